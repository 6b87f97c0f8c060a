"""uint8 leaf tables (issue 30: "an int8 leaf/probability table where the model allows it"):
``leaf_type="uint8"`` / ``--leaf-type uint8``.

Each leaf's class distribution is stored as whole 255ths (largest remainder, adding up to 255);
the C answers those numerators (a forest: their sums, as integers). The generated code is
compiled and compared with that model exactly (0 mismatches), and ``verify`` counts the rows
whose class the rounding changes against the model itself, failing past ``max_changed``.
Trees (nested, table, compact; with int8 quantized features too) and random forests; what
cannot hold it (regression, Python, distributed missing values, AdaBoost, boosted models,
unequal weights) is refused. The flash it saves is measured linked for the Cortex-M4.
"""

from __future__ import annotations

import importlib
import subprocess
import sys
from functools import cache
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puretree import ensemble
from puretree.codegen import generate, verify
from puretree.codegen.leaves import LEAF_SCALE, leaf_numerators
from puretree.codegen.lower import feature_ranges, lower, resources
from puretree.data import Dataset, from_numpy
from puretree.errors import CodegenError
from puretree.io import save
from puretree.nodes import Feature, Leaf, NumericSplit, Schema
from puretree.sklearn import from_sklearn
from puretree.tree import Tree

GUARD = 600  # seconds: only against a hang
lower_module = importlib.import_module("puretree.codegen.lower")  # the module (puretree.codegen.lower is also its function's name)
M4 = ("-mcpu=cortex-m4", "-mthumb", "-mfloat-abi=hard", "-mfpu=fpv4-sp-d16")


@cache
def _cancer():
    """breast_cancer, 80% to train (bench/bench_codegen.py's split), and its fully grown tree."""
    from sklearn.datasets import load_breast_cancer
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.2, random_state=0)
    return from_sklearn(DecisionTreeClassifier(random_state=0).fit(Xtr, ytr)), Xtr, ytr, Xte


def _tie_tree() -> Tree:
    """A leaf whose 255ths tie the two largest classes: (84.95, 85.1, 84.95) / 255 gives 85 each,
    so its class becomes the first (0) where the model says 1."""
    schema = Schema((Feature("x"),), ("a", "b", "c"))
    return Tree(NumericSplit(0, 0.5, Leaf((84.95, 85.1, 84.95)), Leaf((0.0, 1.0, 9.0)), (84.95, 86.1, 93.95)), schema)


# -- the numerators ---------------------------------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(w=st.lists(st.floats(0.0, 1e6), min_size=1, max_size=12).filter(lambda w: sum(w) > 0))
def test_numerators_add_up_to_255_within_one_unit_and_keep_the_order(w):
    p = np.asarray(w) / np.sum(w)
    q = leaf_numerators(p.tolist())
    assert sum(q) == LEAF_SCALE and all(0 <= v <= LEAF_SCALE for v in q)
    assert all(abs(v - LEAF_SCALE * x) < 1 + 1e-9 for v, x in zip(q, p))
    assert all(q[a] >= q[b] for a in range(len(q)) for b in range(len(q)) if p[a] > p[b])


def test_the_tie_tree_changes_class_where_its_numerators_tie():
    assert leaf_numerators([84.95 / 255, 85.1 / 255, 84.95 / 255]) == (85, 85, 85)


# -- trees: compiled and compared ---------------------------------------------------------------


@pytest.mark.parametrize("options", [{"target": "c"}, {"target": "c-table"}, {"target": "c-table", "form": "compact"},
                                     {"target": "c-table", "form": "compact", "proba": False},
                                     {"target": "c-table", "form": "compact", "feature_type": "int8", "quantize": "ranges"}])
def test_a_tree_with_uint8_leaves_is_verified_exactly(options):
    tree, Xtr, _, Xte = _cancer()
    opts = dict(options)
    if opts.get("quantize"):
        opts["quantize"] = feature_ranges(Xtr)
    report = verify(tree, Xte, opts.pop("target"), leaf_type="uint8", max_changed="100%", **opts)
    assert report.mismatches == [] and report.n_checked > len(Xte) and report.changed_by_quantization is not None


def test_verify_counts_the_rows_whose_class_the_255ths_change_and_max_changed_gates_them():
    tree = _tie_tree()
    X = np.array([[0.0], [0.25], [0.5], [1.0], [2.0]])
    report = verify(tree, X, "c-table", leaf_type="uint8", max_changed=3)
    assert report.mismatches == [] and report.changed_by_quantization == 3 and report.ok  # x <= 0.5: class b becomes a
    assert not verify(tree, X, "c-table", leaf_type="uint8", max_changed=2).ok
    assert verify(tree, X, "c-table").changed_by_quantization is None  # double leaves: nothing to count
    text = generate(tree, "c-table", leaf_type="uint8")["tree.c"]
    assert "static const uint8_t tree_outcome_proba[2][TREE_N_CLASSES]" in text and "{ 85u, 85u, 85u }" in text


def test_verify_finds_numerators_rounded_otherwise(monkeypatch):
    # Rounded to nearest instead of by largest remainder, the table no longer equals the
    # model verify checks (the rows do not add up to 255): the check can fail.
    tree, _, _, Xte = _cancer()
    assert verify(tree, Xte, "c-table", leaf_type="uint8", max_changed="100%").mismatches == []
    monkeypatch.setattr(lower_module, "leaf_numerators", lambda p: tuple(int(round(LEAF_SCALE * v)) for v in p))
    tie = _tie_tree()
    assert verify(tie, np.array([[0.0], [1.0]]), "c-table", leaf_type="uint8", max_changed="100%").n_mismatches > 0


def test_the_uint8_table_takes_one_byte_per_class():
    tree, *_ = _cancer()
    double = resources(lower(tree, "c-table", {"form": "compact"}))["tables"]["outcome_proba"]
    uint8 = resources(lower(tree, "c-table", {"form": "compact", "leaf_type": "uint8"}))["tables"]["outcome_proba"]
    n_outcomes = len(lower(tree, "c-table", {"form": "compact", "leaf_type": "uint8"})["outcomes"])
    assert uint8 == n_outcomes * 2 and double >= 8 * uint8
    header = generate(tree, "c-table", leaf_type="uint8")["tree.h"]
    assert "#define TREE_PROBA_SCALE 255u" in header and "int tree_predict_proba(const double *features, uint8_t *proba);" in header


# -- forests ------------------------------------------------------------------------------------


@pytest.mark.parametrize("options", [{"target": "c"}, {"target": "c-table", "form": "compact", "feature_type": "float"},
                                     {"target": "c-table", "feature_type": "int8", "quantize": "ranges"}])
def test_a_forest_with_uint8_leaves_is_verified_exactly(options):
    _, Xtr, ytr, Xte = _cancer()
    forest = ensemble.random_forest(Xtr, ytr, n_trees=8, seed=0, max_depth=6)
    opts = dict(options)
    if opts.get("quantize"):
        opts["quantize"] = feature_ranges(Xtr)
    report = verify(forest, Xte, opts.pop("target"), leaf_type="uint8", max_changed="100%", **opts)
    assert report.mismatches == [] and report.n_checked > len(Xte)
    if "quantize" not in opts:
        # The count, from the members' own probabilities: their 255ths added up against the model's class.
        outs = ensemble.member_outputs(forest, Dataset(forest.schema, Xte))
        sums = sum(np.array([leaf_numerators(p) for p in out.tolist()]) for out in outs)
        model = ensemble.predict(forest, Dataset(forest.schema, Xte))
        assert report.changed_by_quantization == int(np.sum(np.asarray(forest.schema.classes)[np.argmax(sums, axis=1)] != model))


def test_a_forest_with_uint8_leaves_adds_integers():
    _, Xtr, ytr, _ = _cancer()
    forest = ensemble.random_forest(Xtr, ytr, n_trees=3, seed=0, max_depth=3)
    files = generate(forest, "c-table", feature_type="float", leaf_type="uint8")
    assert "int tree_predict_proba(const float *features, uint32_t *proba);" in files["tree.h"]
    assert "#define TREE_PROBA_SCALE (255u * TREE_N_MEMBERS)" in files["tree.h"]
    combiner = files["tree.c"].split('#include "tree_m2.c"', 1)[1]
    assert "proba[k] += q[k];" in combiner and "double" not in combiner  # the members' numerators added as integers


# -- what cannot hold it ----------------------------------------------------------------------


def _refusals():
    from puretree.grow import cart, cart_regressor

    X = np.arange(20.0).reshape(-1, 1)
    y = np.array([0, 1] * 10)
    ds = from_numpy(X, y, feature_names=["x"])
    yield "regression", lambda: generate(cart_regressor(X, X[:, 0]), "c", leaf_type="uint8"), "regression model's leaf values stay double"
    yield "python", lambda: generate(cart(ds), "python", leaf_type="uint8"), "is for C targets"
    yield "distribute", lambda: generate(cart(from_numpy(np.where(X > 15, np.nan, X), y, feature_names=["x"]), missing="distribute"), "c", leaf_type="uint8"), "distributes missing values"
    yield "adaboost", lambda: generate(ensemble.adaboost(X, y, n_rounds=2, seed=0), "c", leaf_type="uint8"), "not AdaBoost"
    forest = ensemble.random_forest(X, y, n_trees=2, seed=0)
    import attrs
    yield "weights", lambda: generate(attrs.evolve(forest, weights=(1.0, 2.0)), "c", leaf_type="uint8"), "members of equal weight"
    yield "unknown", lambda: generate(cart(ds), "c", leaf_type="int4"), "unknown leaf type 'int4'"


@pytest.mark.parametrize("case", [name for name, *_ in _refusals()])
def test_what_cannot_hold_uint8_leaves_is_refused(case):
    _, make, message = next(r for r in _refusals() if r[0] == case)
    with pytest.raises(CodegenError, match=message):
        make()


def test_a_boosted_model_refuses_uint8_leaves():
    from puretree.gradient_boosting import gradient_boosting

    X = np.arange(20.0).reshape(-1, 1)
    model = gradient_boosting(X, np.array([0, 1] * 10), n_estimators=2)
    with pytest.raises(CodegenError, match="boosted model's leaves hold raw scores"):
        generate(model, "c", leaf_type="uint8")


# -- the command line ---------------------------------------------------------------------------


def _run(args, *, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "puretree", *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=GUARD)


def test_cli_leaf_type_uint8_exports_verifies_and_gates(tmp_path):
    save(_tie_tree(), tmp_path / "m.json")
    (tmp_path / "data.csv").write_text("x\n0\n0.25\n0.5\n1\n2\n")
    out = _run(["export", "m.json", "--target", "c-table", "--leaf-type", "uint8", "-o", "out", "--report"], cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "outcome_proba 6)" in out.stdout and '"leaf_type": "uint8"' in (tmp_path / "out" / "tree.c").read_text().splitlines()[0]
    done = _run(["verify", "m.json", "data.csv", "--target", "c-table", "--leaf-type", "uint8", "--max-changed", "60%"], cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "quantization changes the prediction of 3 of the 5 rows" in done.stdout and " 0 mismatches" in done.stdout and "_quantize" not in done.stdout
    assert _run(["verify", "m.json", "data.csv", "--target", "c-table", "--leaf-type", "uint8", "--max-changed", "40%"], cwd=tmp_path).returncode == 1
    code = _run(["verify", "m.json", "data.csv", "--code", "out", "--max-changed", "3"], cwd=tmp_path)  # the manifest says uint8
    assert code.returncode == 0 and "changes the prediction of 3 of the 5 rows" in code.stdout, code.stdout + code.stderr
    bad = _run(["export", "m.json", "--target", "python", "--leaf-type", "uint8", "-o", "py"], cwd=tmp_path)
    assert bad.returncode != 0 and len(bad.stderr.strip().splitlines()) == 1 and "C targets" in bad.stderr


# -- flash on the Cortex-M4 ------------------------------------------------------------------------


def _linked_m4(files: dict[str, str], entry: str, work: Path) -> int:
    """``.text + .rodata + .data`` of a Cortex-M4 image (-Os, --gc-sections) whose entry runs
    ``entry`` (C statements over ``const float *x``), as bench/bench_codegen.py measures."""
    for filename, text in files.items():
        (work / filename).write_text(text)
    (work / "entry.c").write_text(f'#include <stdint.h>\n#include "pt.c"\nint entry(const float *x);\nint entry(const float *x) {{ {entry} }}\n')
    flags = ["-Os", *M4, "-std=gnu99", "-w", "-ffp-contract=off", "-ffunction-sections", "-fdata-sections"]
    subprocess.run(["arm-none-eabi-gcc", *flags, "-c", "entry.c", "-o", "entry.o"], cwd=work, check=True, capture_output=True, timeout=GUARD)
    subprocess.run(["arm-none-eabi-gcc", *M4, "-nostartfiles", "-Wl,--gc-sections", "-Wl,-e,entry", "entry.o", "-o", "entry.elf", "-lc", "-lm", "-lgcc", "-lnosys"],
                   cwd=work, check=True, capture_output=True, timeout=GUARD)
    sizes = subprocess.run(["arm-none-eabi-size", "-A", "entry.elf"], cwd=work, check=True, capture_output=True, text=True, timeout=GUARD).stdout
    return sum(int(line.split()[1]) for line in sizes.splitlines() if line.startswith((".text", ".rodata", ".data")))


def test_uint8_leaves_take_less_flash_than_double_ones(tmp_path):
    tree, Xtr, ytr, _ = _cancer()
    forest = ensemble.random_forest(Xtr, ytr, n_trees=5, seed=0, max_depth=6)
    sizes = {}
    for what, model, entry in (("tree", tree, "{} p[PT_N_CLASSES]; return pt_predict_proba(x, p);"), ("forest", forest, "return pt_predict(x);")):
        for leaf, buffer in (("double", "double"), ("uint8", "uint8_t")):
            work = tmp_path / f"{what}_{leaf}"
            work.mkdir()
            files = generate(model, "c-table", name="pt", form="compact", feature_type="float", leaf_type=leaf)
            sizes[what, leaf] = _linked_m4(files, entry.format(buffer), work)
    assert sizes["tree", "uint8"] < sizes["tree", "double"], sizes
    # The forest adds integers: no double arithmetic linked in (soft-float on the M4).
    assert sizes["forest", "uint8"] < 0.7 * sizes["forest", "double"], sizes


@pytest.mark.parametrize("call", ["selftest", "on"])
def test_what_is_not_written_for_uint8_leaves_yet_is_refused(call):
    # The self-test and the board runs compare double probabilities; they say so instead of
    # answering with the double table's. (The figures measured on a board are measured for
    # uint8 leaves too: tests/test_codegen_worst_case.py.)
    tree = _tie_tree()
    X = np.array([[0.0], [1.0]])
    with pytest.raises(CodegenError, match="uint8 leaves"):
        if call == "selftest":
            generate(tree, "c", leaf_type="uint8", selftest=True)
        else:
            verify(tree, X, "c", leaf_type="uint8", on="cortex-m4")
