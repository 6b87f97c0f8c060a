"""Generated C on emulated microcontrollers (QEMU) decides exactly as ``predict``.

One firmware per core and feature type (puretree.mcu) holds every model below in both C
forms; one QEMU run sends it all their rows through semihosting: the rows of the data the
model learned from plus the rows verify derives (every node, each threshold and its
neighbours in the feature type, unseen categories, missing values). Every answer, class and
probabilities or regression value, must equal the library's bit for bit (int8 on the
Cortex-M4F only, every other feature type on every board). The int8, int16 and
int32 firmwares also hold every model's quantized (fixed-point) forms, checked against the
integer tree as verify checks them on the host; one more firmware per core (double rows) holds
ensembles (forest, bagging regressor, AdaBoost with its votes) and the quantizers
(``NAME_quantize``), and runs on the M7 a second time built with ``-ffp-contract=fast``.

A 100-stage boosted model (scikit-learn's GradientBoostingClassifier imported, and grown by
puretree) runs on the Cortex-M4F in float, double and quantized int16 and on the Cortex-M0 in double.

Cortex-M0 (micro:bit, soft float, 16 KiB RAM), Cortex-M3 (MPS2 AN385, soft float),
Cortex-M4F (AN386, single-precision FPU, hard-float ABI) and Cortex-M7 (AN500, double-precision
FPU). Missing qemu-system-arm or the Arm toolchain fails these tests naming the Debian
packages (``make test`` installs them through .ci/system-deps).
"""

from __future__ import annotations

import functools
import re
import subprocess
import sys
from pathlib import Path

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puretree import datasets, mcu
from puretree import ensemble
from puretree.codegen import generate as generate_any
from puretree.codegen.lower import FEATURE_TYPES, feature_ranges, quantize, quantized_tree, tree_quantization
from puretree.codegen.render import generate
from puretree.codegen.verify import check_batches, check_rows, expected, quantize_probes, verify
from puretree.codegen.literals import C_TYPES
from puretree.data import Dataset, encode_features, from_numpy, read_csv
from puretree.datasets import load_buys_computer, load_playtennis, load_temperature
from puretree.errors import CodegenError
from puretree.grow import c45, cart, cart_regressor, id3
from puretree.invariants import boundary_cases
from puretree.io import save
from puretree.nodes import Multiway, Subset, Threshold
from puretree.sklearn import from_sklearn
from puretree.strategies import trees

DATA = Path(__file__).parent / "data"
CORES = ("cortex-m0", "cortex-m3", "cortex-m4", "cortex-m7")
TYPES = FEATURE_TYPES
# Every feature type on every board, but int8 on the Cortex-M4F only: its code is int16's
# with narrower values (one more board run, not four).
BOARD_TYPES = [(core, ftype) for core in CORES for ftype in TYPES if ftype != "int8" or core == "cortex-m4"]
FORMS = ("c", "c-table")
# Quantized (fixed-point) code joins the int16 and int32 firmwares (mcu's hook) in every C
# form: nested, table and the compact table (where the tree allows it).
QFORMS = ("c", "c-table", "compact")


def _regression_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 3)) * np.array([1.0, 50.0, 1000.0])
    y = np.sin(X[:, 0]) * 3.0 + X[:, 1] / 7.0
    X[rng.random(X.shape) < 0.1] = np.nan
    return from_numpy(X, y, task="regression")


def _sklearn_breast_cancer(max_depth):
    from sklearn.datasets import load_breast_cancer
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_breast_cancer(return_X_y=True)
    return from_sklearn(DecisionTreeClassifier(max_depth=max_depth, random_state=0).fit(X, y)), X


def _models():
    """(name, tree, training rows, proba): every split kind (threshold, multiway, subset),
    every missing-value strategy, classification and regression, with and without predict_proba."""
    cancer = read_csv(DATA / "breast-cancer.csv", target="Class")  # UCI: categorical, with missing cells
    reg = _regression_data()
    reg_tree = cart_regressor(reg, missing="distribute", max_depth=6)
    sk_tree, sk_X = _sklearn_breast_cancer(6)
    return [
        ("tennis_id3", id3(load_playtennis()), load_playtennis().X, True),  # multiway, majority
        ("buys_cart", cart(load_buys_computer(), missing="distribute"), load_buys_computer().X, True),  # subsets
        ("temp_error", attrs.evolve(c45(load_temperature()), missing="error"), load_temperature().X, True),
        ("cancer_c45", c45(cancer, missing="distribute"), cancer.X, True),  # multiway, missing cells
        ("cancer_cart", cart(cancer, missing="majority"), cancer.X, True),  # subsets and thresholds
        ("sk_cancer", sk_tree, sk_X, True),  # 30 numeric features (scikit-learn's thresholds)
        ("sk_cancer_np", sk_tree, sk_X, False),  # predict only
        ("reg_spread", reg_tree, reg.X, False),  # regression, distribute
        ("reg_error", attrs.evolve(reg_tree, missing="error"), reg.X, False),
    ]


NAMES = ["tennis_id3", "buys_cart", "temp_error", "cancer_c45", "cancer_cart", "sk_cancer", "sk_cancer_np", "reg_spread", "reg_error"]


@functools.cache
def models():
    found = _models()
    assert [m[0] for m in found] == NAMES
    return found


@functools.cache
def generated(name, form, ftype):
    """The C files of a model (the same for every core), its check rows and whether it has predict_proba."""
    _, tree, X, proba = next(m for m in models() if m[0] == name)
    cname = f"{name}_{form.replace('-', '_')}"
    files = generate(tree, form, name=cname, feature_type=ftype, proba=proba)
    return mcu.program_for(files, name=cname, n_features=tree.schema.n_features, n_classes=_n_classes(tree), proba=proba), check_rows(tree, X, ftype)


def _target(form):
    return ("c-table", {"form": "compact"}) if form == "compact" else (form, {})


@functools.cache
def quantized(name, form, ftype):
    """A model's quantized C (ranges: its training rows'), the integer tree it must equal
    (:func:`quantized_tree`) and that tree's check rows among the quantized rows, as verify's
    host check makes them; None when the form does not hold the tree (compact: thresholds only,
    no distributed missing values)."""
    _, tree, X, proba = next(m for m in models() if m[0] == name)
    ranges = feature_ranges(X)
    offset, scale = tree_quantization(tree, ranges, ftype)
    qtree = quantized_tree(tree, offset, scale, ftype)
    cname = f"{name}_q_{form.replace('-', '_')}"
    target, opts = _target(form)
    try:
        files = generate(tree, target, name=cname, feature_type=ftype, proba=proba, quantize=ranges, **opts)
    except CodegenError as exc:
        if form == "compact" and "the compact table holds" in str(exc):
            return None
        raise
    program = mcu.program_for(files, name=cname, n_features=tree.schema.n_features, n_classes=_n_classes(tree), proba=proba)
    return program, qtree, check_rows(qtree, quantize(X, offset, scale, ftype), ftype)


def _n_classes(tree):
    return 0 if tree.schema.is_regression else len(tree.schema.classes)


def _same(tree, want, got, proba):
    if want is None or tree.schema.is_regression:
        return want == got
    cls = int(np.argmax(want))
    return got == ((cls, tuple(want)) if proba else cls)


def _mismatches(tree, rows, got, proba):
    want = expected(tree, rows)
    assert len(got) == len(want)
    return [(row, w, g) for row, w, g in zip(rows.tolist(), want, got) if not _same(tree, w, g, proba)]


@pytest.fixture(scope="session")
def board_runs(tmp_path_factory):
    """For each (core, feature type), built and run once on first use: {(model, form): (tree, rows, answers)}."""
    cache = {}

    def run(core, ftype):
        if (core, ftype) not in cache:
            mcu.check_tools()  # fails, naming the missing Debian packages
            work = tmp_path_factory.mktemp(f"{core}-{ftype}")
            programs, jobs, keys = [], [], []
            for name, tree, X, proba in models():
                for form in FORMS:
                    program, rows = generated(name, form, ftype)
                    programs.append(program)
                    jobs.append((len(programs) - 1, rows))
                    keys.append((name, form, tree, rows, proba))
                for form in QFORMS if ftype in mcu.QUANTIZED_FEATURE_TYPES else ():
                    made = quantized(name, form, ftype)
                    if made is not None:
                        program, qtree, rows = made
                        programs.append(program)
                        jobs.append((len(programs) - 1, rows))
                        keys.append((name, f"quantized {form}", qtree, rows, proba))
            elf = mcu.build_firmware(programs, core=core, feature_type=ftype, workdir=work)
            done = mcu.run_firmware(elf, programs, jobs, core=core, feature_type=ftype, workdir=work, stack=True)
            stacks = [mcu.read_stack(work, name=p.name, core=core) for p in programs]
            cache[core, ftype] = {(name, form): (tree, rows, proba, got, (used, static))
                                  for (name, form, tree, rows, proba), got, used, static in zip(keys, done.answers, done.stacks, stacks)}
        return cache[core, ftype]

    return run


@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("model", NAMES)
@pytest.mark.parametrize("core,ftype", BOARD_TYPES)
def test_generated_c_on_the_board_equals_predict(board_runs, core, ftype, model, form):
    tree, rows, proba, got, _ = board_runs(core, ftype)[model, form]
    n_train = next(X for name, _, X, _ in models() if name == model).shape[0]
    assert len(rows) > n_train  # the training rows and the derived ones
    assert _mismatches(tree, rows, got, proba) == []


@pytest.mark.parametrize("model", NAMES)
@pytest.mark.parametrize("core,ftype", [(c, f) for c, f in BOARD_TYPES if f in mcu.QUANTIZED_FEATURE_TYPES])
def test_quantized_c_on_the_board_equals_the_quantized_tree(board_runs, core, ftype, model):
    # The integer code on the quantized rows (training rows and the integer tree's derived
    # ones) against the tree verify checks it against on the host: quantized_tree.
    runs = board_runs(core, ftype)
    forms = [form for form in QFORMS if (model, f"quantized {form}") in runs]
    assert forms[:2] == ["c", "c-table"]
    for form in forms:
        qtree, rows, proba, got, _ = runs[model, f"quantized {form}"]
        assert len(rows) > 0 and _mismatches(qtree, rows, got, proba) == [], form


def test_the_compact_form_is_quantized_on_the_board_where_it_applies():
    compact = {name for name in NAMES if quantized(name, "compact", "int16") is not None}
    assert {"temp_error", "sk_cancer", "reg_error"} <= compact


@pytest.mark.parametrize("core,ftype", BOARD_TYPES)
def test_measured_stack_bounds_what_the_board_uses(board_runs, core, ftype):
    # The figure -fstack-usage gives along the deepest call chain (what the header states)
    # against the stack the calls really used on the board, painted and read back, over all
    # rows: never above it, but for the compiler helpers' share; and not far below it (a
    # frame's padding and spill slots need not be written), so the rows reach the deepest chain.
    for (model, form), (_, _, _, _, (used, static)) in board_runs(core, ftype).items():
        figure = max(s.bytes for s in static)
        helpers = set().union(*(s.external for s in static))
        assert figure - 8 <= used <= figure + (mcu.HELPER_STACK_BYTES if helpers else 0), (model, form, used, static)


@pytest.mark.parametrize("target", FORMS)
def test_the_header_states_the_measured_stack(target, tmp_path):
    tree = c45(load_temperature(), missing="distribute")
    files = mcu.generate_with_stack(tree, target, core="cortex-m4", name="temp", feature_type="float")
    plain = generate(tree, target, name="temp", feature_type="float")
    assert files["temp.c"] == plain["temp.c"]
    stacks = mcu.measure_stack(plain, name="temp", core="cortex-m4", workdir=tmp_path)
    block = mcu.stack_block(stacks, name="temp", core="cortex-m4")
    assert files["temp.h"].replace(block + "\n", "") == plain["temp.h"]  # the block is all that differs
    figure = max(s.bytes for s in stacks)
    assert f"#define TEMP_STACK_BYTES_CORTEX_M4 {figure}u" in files["temp.h"] and figure > 0
    assert " ".join(mcu.STACK_FLAGS) in files["temp.h"]
    assert "temp_predict -> temp_spread" in files["temp.h"]  # the deepest chain, named


def _fused(obj):
    dis = subprocess.run(["arm-none-eabi-objdump", "-d", str(obj)], capture_output=True, text=True, check=True).stdout
    return re.findall(r"\bvf[mn][as]", dis)


@pytest.mark.parametrize("ftype", ["double", "float"])
def test_spread_sums_do_not_depend_on_fp_contract(ftype, tmp_path):
    # Cortex-M7's FPU has fused multiply-add for double: built with -ffp-contract=fast (GCC's
    # default outside ISO C), a plain `acc += w * p` becomes one VFMA, rounded once, and the
    # "distribute" sums would differ from predict's. The generated code is exact all the same.
    probe = tmp_path / "probe.c"
    probe.write_text("double f(double a, double w, double p);\ndouble f(double a, double w, double p) { return a + w * p; }\n")
    flags = [*mcu.CORES["cortex-m7"].cflags, *mcu.OPT_FLAGS, "-ffp-contract=fast"]
    subprocess.run([mcu.GCC, *flags, "-c", str(probe), "-o", str(tmp_path / "probe.o")], check=True)
    assert _fused(tmp_path / "probe.o")  # these flags do fuse
    programs, jobs, keys = [], [], []
    for name, tree, X, proba in models():
        if tree.missing != "distribute":
            continue
        for form in FORMS:
            program, rows = generated(name, form, ftype)
            programs.append(attrs.evolve(program, cflags=("-ffp-contract=fast",)))
            jobs.append((len(programs) - 1, rows))
            keys.append((tree, rows, proba))
    elf = mcu.build_firmware(programs, core="cortex-m7", feature_type=ftype, workdir=tmp_path)
    for p in programs:
        assert _fused(tmp_path / f"{p.name}.o") == []
    done = mcu.run_firmware(elf, programs, jobs, core="cortex-m7", feature_type=ftype, workdir=tmp_path)
    for (tree, rows, proba), got in zip(keys, done.answers):
        assert _mismatches(tree, rows, got, proba) == []


def test_the_matrix_holds_every_split_kind_task_and_strategy():
    # What test_generated_c_on_the_board_equals_predict covers, checked so that it stays so.
    kinds, strategies, tasks = set(), set(), set()
    for _, tree, _, _ in models():
        strategies.add(tree.missing)
        tasks.add(tree.schema.task)
        stack = [tree.root]
        while stack:
            node = stack.pop()
            if hasattr(node, "test"):
                kinds.add(type(node.test))
                stack.extend(node.children)
    assert kinds == {Threshold, Multiway, Subset}
    assert strategies == {"majority", "distribute", "error"}
    assert tasks == {"classification", "regression"}
    assert any(np.isnan(X).any() for _, _, X, _ in models())


@st.composite
def random_case(draw):
    tree = draw(trees(max_depth=4, max_nodes=20, weighted=True))
    cases = boundary_cases(tree, unseen=True)
    X = encode_features(tree.schema, cases) if cases else np.zeros((1, tree.schema.n_features))
    return tree, X


@settings(max_examples=6, deadline=None)
@given(case=random_case(), ftype=st.sampled_from(FEATURE_TYPES), core=st.sampled_from(("cortex-m0", "cortex-m4")))
def test_random_trees_on_the_board_equal_predict(case, ftype, core):
    tree, X = case
    assert tree.schema.n_features >= 1  # trees() draws at least one feature (C has no empty arrays)
    report = verify(tree, X, "c-table", feature_type=ftype, on=core)
    assert report.mismatches == [] and report.n_checked >= len(X)


def test_a_wrong_threshold_is_caught_on_the_board(tmp_path):
    # The check can fail: code whose threshold was moved disagrees on the board.
    tree = c45(load_temperature())
    files = generate(tree, "c", name="tree", feature_type="float")
    first = re.search(r"<= (-?[0-9.e+-]+)f\)", files["tree.c"])
    moved = float(first.group(1)) + 1.0
    files["tree.c"] = files["tree.c"].replace(first.group(0), f"<= {moved!r}f)", 1)
    run = mcu.rows_runner(files, name="tree", feature_type="float", core="cortex-m0", n_features=1, n_classes=2, proba=True, workdir=tmp_path)
    rows = check_rows(tree, load_temperature().X, "float")
    assert _mismatches(tree, rows, run(rows), True) != []


def test_missing_tools_are_named(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(CodegenError, match="needs gcc-arm-none-eabi, qemu-system-arm"):
        mcu.check_tools()


def test_verify_on_the_command_line(tmp_path):
    model = tmp_path / "tennis.json"
    save(c45(load_playtennis(), missing="distribute"), model)
    csv = datasets.path("playtennis")
    cmd = [sys.executable, "-m", "puretree", "verify", str(model), str(csv), "--target", "c-table", "--feature-type", "float", "--on", "cortex-m4"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "c-table (float) on cortex-m4 (QEMU): checked" in done.stdout and done.stdout.rstrip().endswith(": 0 mismatches")
    # Without QEMU or the toolchain: one line naming the packages, a non-zero exit.
    done = subprocess.run(cmd, capture_output=True, text=True, env={"PATH": str(tmp_path)})
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and "qemu-system-arm" in done.stderr and "Traceback" not in done.stderr


def test_export_states_the_measured_stack(tmp_path):
    model = tmp_path / "temp.json"
    save(c45(load_temperature(), missing="distribute"), model)
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "puretree", "export", str(model), "--target", "c", "--feature-type", "float", "--stack-on", "cortex-m0", "-o", str(out)]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    figure = max(s.bytes for s in mcu.measure_stack({p.name: p.read_text() for p in out.iterdir()}, name="tree", core="cortex-m0", workdir=tmp_path / "m"))
    assert f"#define TREE_STACK_BYTES_CORTEX_M0 {figure}u" in (out / "tree.h").read_text()


def test_a_fault_ends_the_run_with_an_error(tmp_path):
    # A program that faults stops QEMU through semihosting: an error, not a hang.
    files = {"bad.h": "int bad_predict(const float *x);\n",
             "bad.c": '#include "bad.h"\nint bad_predict(const float *x) { return (int)x[0] + *(volatile int *)0xF0000000u; }\n'}
    program = mcu.Program("bad", files, 1, 2, False)
    elf = mcu.build_firmware([program], core="cortex-m3", feature_type="float", workdir=tmp_path)
    with pytest.raises(CodegenError, match="the firmware failed on mps2-an385"):
        mcu.run_firmware(elf, [program], [(0, np.zeros((1, 1)))], core="cortex-m3", feature_type="float", workdir=tmp_path, timeout=60)


# -- ensembles and NAME_quantize on the boards -------------------------------------------------


def _ensembles():
    """(name, ensemble, training rows, target): a forest (classification, categorical features,
    missing cells), a bagging regressor (missing values distributed) and AdaBoost on three classes."""
    from sklearn.datasets import load_iris

    cancer = read_csv(DATA / "breast-cancer.csv", target="Class")
    reg = _regression_data()
    iris_X, iris_y = load_iris(return_X_y=True)
    return [
        ("forest", ensemble.random_forest(cancer, n_trees=4, seed=0, max_depth=4, missing="distribute"), cancer.X, "c-table"),
        ("bag_reg", ensemble.bagging(reg, n_trees=4, seed=0, base=cart_regressor, max_depth=4, missing="distribute"), reg.X, "c"),
        ("boost", ensemble.adaboost(iris_X, iris_y, n_rounds=6, seed=0), iris_X, "c-table"),
    ]


@functools.cache
def ensembles():
    return _ensembles()


def _ensemble_rows(ens, X):
    # As verify checks an ensemble: the rows given and every member's check rows, without repeats.
    rows = np.vstack([check_rows(ens.members[0], X, "double"), *(r for tree in ens.members for r in check_batches(tree, X[:0], "double"))])
    _, first = np.unique(np.ascontiguousarray(rows).view(f"V{rows.itemsize * rows.shape[1]}").ravel(), return_index=True)
    return rows[np.sort(first)]


def _wrapper(name, header, body, *, includes):
    # A model's extra entry point (AdaBoost's votes, NAME_quantize) in the runner's shape:
    # predict_proba(x, out) fills out[] (read back as "probabilities") and returns predict's class.
    decl = f"int {name}_predict(const double *x);\nint {name}_predict_proba(const double *x, double *out);\n"
    source = "".join(f'#include "{i}"\n' for i in includes) + f'#include "{name}.h"\n{body}'
    return {f"{name}.h": decl, f"{name}.c": source, **header}


# The quantizers checked on the boards: numeric and categorical features, a regression tree.
QUANTIZE_MODELS = ("cancer_c45", "sk_cancer", "reg_spread")


def _quantizer(name, ftype):
    """A program running a quantized model's NAME_quantize on float rows (sent as doubles that
    hold float32 values), with the library's quantization of those rows."""
    _, tree, X, proba = next(m for m in models() if m[0] == name)
    ranges = feature_ranges(X)
    offset, scale = tree_quantization(tree, ranges, ftype)
    model = f"{name}_qm_{ftype}"
    files = generate(tree, "c-table", name=model, feature_type=ftype, proba=proba, quantize=ranges)
    n, ctype = tree.schema.n_features, C_TYPES[ftype][0]
    body = (f"int qz_{model}_predict(const double *x) {{ (void)x; return 0; }}\n"
            f"int qz_{model}_predict_proba(const double *x, double *out) {{\n"
            f"    float f[{n}];\n    {ctype} q[{n}];\n    int k;\n"
            f"    for (k = 0; k < {n}; k++) {{ f[k] = (float)x[k]; q[k] = 0; }}\n"
            f"    {model}_quantize(f, q);\n"
            f"    for (k = 0; k < {n}; k++) {{ out[k] = (double)q[k]; }}\n    return 0;\n}}\n")
    # The wrapper compiles the model's source in (the firmware's rows are doubles, the model's integers).
    program = mcu.Program(f"qz_{model}", _wrapper(f"qz_{model}", files, body, includes=(f"{model}.c",)), n, n, True)
    with np.errstate(over="ignore"):
        probes = quantize_probes(tree, X, offset, scale).astype(np.float32).astype(np.float64)
    return program, probes, quantize(probes, offset, scale, ftype)


def _ensemble_programs(ens, X, name, target):
    """The ensemble's program (and AdaBoost's votes through a wrapper), its rows and the
    library's answers in the runner's form: (class, probabilities), (class, votes), values."""
    files = generate_any(ens, target, name=name)
    k = 0 if ens.schema.is_regression else len(ens.schema.classes)
    programs = [mcu.program_for(files, name=name, n_features=ens.schema.n_features, n_classes=k, proba=True)]
    rows = _ensemble_rows(ens, X)
    ds = Dataset(ens.schema, rows)
    if not k:
        return programs, rows, [[float(v) for v in ensemble.predict(ens, ds, unseen="ignore")]]
    codes = [ens.schema.classes.index(c) for c in ensemble.predict(ens, ds, unseen="ignore").tolist()]
    wants = [[(c, tuple(p)) for c, p in zip(codes, ensemble.predict_proba(ens, ds, unseen="ignore").tolist())]]
    if ens.method == "adaboost":
        body = (f"int {name}_v_predict(const double *x) {{ return {name}_predict(x); }}\n"
                f"int {name}_v_predict_proba(const double *x, double *out) {{ return {name}_votes(x, out); }}\n")
        programs.append(mcu.Program(f"{name}_v", _wrapper(f"{name}_v", {}, body, includes=(f"{name}.h",)), ens.schema.n_features, k, True))
        wants.append([(c, tuple(v)) for c, v in zip(codes, ensemble.votes(ens, ds, unseen="ignore").tolist())])
    return programs, rows, wants


EXTRA_RUNS = (*CORES, "cortex-m7 -ffp-contract=fast")


@pytest.fixture(scope="session")
def extra_runs(tmp_path_factory):
    """Per board (and the M7 once more, built with -ffp-contract=fast), one firmware of double
    rows and one QEMU run: the ensembles, AdaBoost's votes and the quantizers of int8, int16 and int32."""
    cache = {}

    def run(key):
        if key not in cache:
            mcu.check_tools()
            core, *flags = key.split()
            work = tmp_path_factory.mktemp(f"{core}-extras")
            programs, jobs, checks = [], [], []
            for name, ens, X, target in ensembles():
                made, rows, wants = _ensemble_programs(ens, X, name, target)
                for program, want in zip(made, wants):
                    programs.append(attrs.evolve(program, cflags=tuple(flags)))
                    jobs.append((len(programs) - 1, rows))
                    checks.append((program.name, ens, rows, want))
            for name in QUANTIZE_MODELS:
                for ftype in mcu.QUANTIZED_FEATURE_TYPES:
                    program, probes, want = _quantizer(name, ftype)
                    programs.append(attrs.evolve(program, cflags=tuple(flags)))
                    jobs.append((len(programs) - 1, probes))
                    checks.append((program.name, ftype, probes, want))
            elf = mcu.build_firmware(programs, core=core, feature_type="double", workdir=work)
            done = mcu.run_firmware(elf, programs, jobs, core=core, feature_type="double", workdir=work)
            cache[key] = (work, programs, {check[0]: (*check[1:], got) for check, got in zip(checks, done.answers)})
        return cache[key]

    return run


def _ensemble_same(ens, want, got, *, probabilities):
    if ens.method == "adaboost" and probabilities:  # through exp: to 1e-12, as verify on the host
        return got is not None and got[0] == want[0] and len(got[1]) == len(want[1]) and all(
            np.isclose(a, b, rtol=1e-12, atol=1e-300) for a, b in zip(got[1], want[1]))
    return got == want


@pytest.mark.parametrize("model", ["forest", "bag_reg", "boost", "boost_v"])
@pytest.mark.parametrize("key", EXTRA_RUNS)
def test_ensembles_on_the_board_equal_predict(extra_runs, key, model):
    _, _, runs = extra_runs(key)
    ens, rows, want, got = runs[model]
    assert len(rows) > 0 and len(got) == len(want)
    bad = [(row, w, g) for row, w, g in zip(rows.tolist(), want, got) if not _ensemble_same(ens, w, g, probabilities=model == "boost")]
    assert bad == []


@pytest.mark.parametrize("key", EXTRA_RUNS)
def test_the_quantizer_on_the_board_equals_quantize(extra_runs, key):
    # NAME_quantize (float32 arithmetic, no fused multiply-add) on float rows against the
    # library's quantize: the rows of the data and every value where rounding matters.
    _, _, runs = extra_runs(key)
    for name in QUANTIZE_MODELS:
        for ftype in mcu.QUANTIZED_FEATURE_TYPES:
            _, probes, want, got = runs[f"qz_{name}_qm_{ftype}"]
            out = np.array([g[1] for g in got], dtype=np.float64).reshape(want.shape)
            out[out == C_TYPES[ftype][1][0]] = np.nan  # the type's minimum: missing
            same = (out == want) | (np.isnan(out) & np.isnan(want))
            assert same.all(), (name, ftype, probes[~same.all(axis=1)][:3].tolist())
            assert np.isnan(want).any() and len(probes) > len(next(X for n, _, X, _ in models() if n == name))


def test_ensemble_sums_and_quantization_do_not_fuse_on_the_m7(extra_runs):
    # Built with -ffp-contract=fast for the M7 (double and single FMA), the combiner's sums and
    # the quantizers' arithmetic still hold no fused multiply-add: the answers above are exact.
    work, programs, _ = extra_runs("cortex-m7 -ffp-contract=fast")
    assert all(p.cflags == ("-ffp-contract=fast",) for p in programs)
    for p in programs:
        assert _fused(work / f"{p.name}.o") == [], p.name


# -- measured figures in the header ----------------------------------------------------------


def _cancer():
    from sklearn.datasets import load_breast_cancer

    return load_breast_cancer(return_X_y=True)


def _measured(kind):
    """A model of each kind on breast_cancer, and the rows verify checks for it."""
    from puretree.codegen import boosted as boosted_code, ensemble as ensemble_code
    from puretree.gradient_boosting import gradient_boosting

    X, y = _cancer()
    none = np.zeros((0, X.shape[1]))
    if kind == "tree":
        model = cart(X, y, max_depth=5)
        return model, check_rows(model, none)
    if kind == "forest":
        model = ensemble.random_forest(X, y, n_trees=3, max_depth=3, seed=0)
        return model, ensemble_code._rows(model, none, "double")
    model = gradient_boosting(X, y, n_estimators=3, max_depth=2)
    return model, boosted_code.check_rows(model, none)


@pytest.mark.parametrize("kind", ["tree", "forest", "boosted"])
def test_the_header_states_the_instructions_measured_on_the_board(kind, tmp_path):
    from puretree.codegen.ensemble import generate_measured

    model, rows = _measured(kind)
    files = generate_measured(model, "c", core="cortex-m4", name="m")
    plain = generate_any(model, "c", name="m")
    assert files["m.c"] == plain["m.c"]
    header = files["m.h"]
    most = int(re.search(r"#define M_INSTRUCTIONS_MAX_CORTEX_M4 (\d+)u", header).group(1))
    n_rows, stated, mean = re.search(r"over (\d+) rows: at most (\d+), mean (\d+\.\d)", header).groups()
    assert int(n_rows) == len(rows) and int(stated) == most and 0 < float(mean) <= most
    assert "#define M_STACK_BYTES_CORTEX_M4 " in header and "#define M_MAX_COMPARISONS " in header
    # Measured again on its own, the slowest of those rows takes what the header says.
    program = mcu.program_for(plain, name="m", n_features=30, n_classes=2, proba=True)
    elf = mcu.build_firmware([program], core="cortex-m4", feature_type="double", workdir=tmp_path)
    each = mcu.instructions_per_prediction(elf, [program], [(0, r) for r in rows], core="cortex-m4", feature_type="double", workdir=tmp_path, repeats=64)
    worst = rows[int(np.argmax(each))]
    alone = mcu.instructions_per_prediction(elf, [program], [(0, worst)], core="cortex-m4", feature_type="double", workdir=tmp_path, repeats=64)[0]
    assert abs(alone - most) <= 2, (alone, most)


def test_export_states_the_measured_figures_of_a_boosted_model(tmp_path):
    model = tmp_path / "b.json"
    save(_measured("boosted")[0], model)
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "puretree", "export", str(model), "--target", "c", "--stack-on", "cortex-m0", "-o", str(out)],
                          capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    header = (out / "tree.h").read_text()
    assert "#define TREE_STACK_BYTES_CORTEX_M0 " in header and "#define TREE_INSTRUCTIONS_MAX_CORTEX_M0 " in header


def _boosted_100():
    """scikit-learn's 100-stage depth-3 GradientBoostingClassifier on breast_cancer (80% of the
    rows), imported, and the model pt.gradient_boosting grows with the same options."""
    from sklearn.ensemble import GradientBoostingClassifier
    from sklearn.model_selection import train_test_split

    from puretree.gradient_boosting import gradient_boosting

    X, y = _cancer()
    Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.2, random_state=0)
    est = GradientBoostingClassifier(n_estimators=100, max_depth=3, random_state=0).fit(Xtr, ytr)
    return {"from_sklearn": from_sklearn(est), "grown": gradient_boosting(Xtr, ytr, n_estimators=100, max_depth=3)}, Xtr, Xte


@pytest.mark.parametrize("core, ftype", [("cortex-m4", "float"), ("cortex-m4", "double"), ("cortex-m4", "int16"), ("cortex-m0", "double")])
def test_a_100_stage_boosted_model_runs_on_the_board(core, ftype, tmp_path):
    """Both 100-stage models in one firmware, on the held-out rows and every row verify derives:
    the class predict_proba returns (equal to predict's, the runner checks) and the probabilities
    as the library's (the code's own exp: to 1e-12). int16: the quantized C (one NAME_quantize),
    against the quantized model on the quantized rows, as verify checks it on the host."""
    from puretree.boosted import class_codes, predict_proba as boosted_proba
    from puretree.codegen import boosted as boosted_code

    models, Xtr, Xte = _boosted_100()
    programs, jobs, expect = [], [], []
    for i, (label, model) in enumerate(models.items()):
        if ftype == "int16":
            checked, offset, scale = boosted_code.quantized_model(model, feature_ranges(Xtr), "int16")
            rows = np.clip(np.floor(boosted_code.check_rows(checked, quantize(Xte, offset, scale, "int16"))), -32767, 32767)
            files = generate_any(model, "c", name=f"gb{i}", feature_type="int16", quantize=feature_ranges(Xtr))
        else:
            checked, rows = model, boosted_code.check_rows(model, Xte, ftype)
            files = generate_any(model, "c", name=f"gb{i}", feature_type=ftype)
        programs.append(mcu.program_for(files, name=f"gb{i}", n_features=30, n_classes=2, proba=True))
        jobs.append((i, rows))
        expect.append(list(zip(class_codes(checked, np.asarray(checked.decision_function(rows, unseen="ignore")).reshape(len(rows), -1)).tolist(),
                               boosted_proba(checked, rows, unseen="ignore").tolist())))
    elf = mcu.build_firmware(programs, core=core, feature_type=ftype, workdir=tmp_path)
    run = mcu.run_firmware(elf, programs, jobs, core=core, feature_type=ftype, workdir=tmp_path)
    for (i, rows), want, got in zip(jobs, expect, run.answers):
        assert len(got) == len(rows) > len(Xte)
        bad = [(r, w, g) for r, w, g in zip(rows.tolist(), want, got)
               if g is None or g[0] != w[0] or not all(np.isclose(a, b, rtol=1e-12, atol=1e-300) for a, b in zip(g[1], w[1]))]
        assert bad == [], (list(models)[i], len(bad), bad[:2])
