"""Generated code for ensembles and fixed point answers right (issue 23, wrong answers).

- ``puretree verify ENSEMBLE.json DATA.csv --target ...`` runs (it failed on an option the
  user never gave), with and without ``--quantize``;
- an ensemble's C compiles with the integer feature types, and a quantized ensemble has one
  ``NAME_quantize`` for the whole model, which ``verify`` checks (on the host; the ensemble's
  integer C also on emulated boards);
- a training range float32 cannot hold is refused, and ``verify --max-changed`` (default 0)
  fails when the quantization changes more rows than that.
"""

from __future__ import annotations

import importlib
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from puretree import ensemble, mcu
from puretree.codegen import export, generate, verify
from puretree.codegen.lower import feature_ranges, quantize, read_features
from puretree.codegen.verify import check_batches, check_rows
from puretree.data import Dataset, from_numpy
from puretree.errors import CodegenError, ParameterError
from puretree.grow import cart
from puretree.io import save

GUARD = 600  # seconds: only against a hang
# The modules (puretree.codegen re-exports functions under their names).
codegen_ensemble = importlib.import_module("puretree.codegen.ensemble")
codegen_verify = importlib.import_module("puretree.codegen.verify")


def _data(n=160, seed=0):
    """Three numeric features on different scales, missing cells, two classes."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)) * np.array([1.0, 40.0, 1000.0]) + np.array([0.0, 100.0, -500.0])
    y = np.where(X[:, 0] + X[:, 1] / 40.0 - 2.5 > 0, "yes", "no")
    X[rng.random(X.shape) < 0.05] = np.nan
    return X, y


def _write_csv(path: Path, X, y) -> Path:
    lines = ["a,b,c,label"] + [",".join("" if np.isnan(v) else repr(float(v)) for v in row) + f",{label}" for row, label in zip(X, y)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _forest(X, y):
    return ensemble.random_forest(from_numpy(X, y, feature_names=["a", "b", "c"]), n_trees=4, seed=0, max_depth=4, missing="distribute")


def _run(args, *, cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "puretree", *map(str, args)], cwd=cwd, capture_output=True, text=True, timeout=GUARD)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A forest and an AdaBoost ensemble fitted (by the command line) on data.csv, and test.csv."""
    work = tmp_path_factory.mktemp("ensembles")
    X, y = _data()
    _write_csv(work / "data.csv", X, y)
    _write_csv(work / "test.csv", *_data(60, seed=1))
    for method in ("forest", "adaboost"):
        done = _run(["fit", "data.csv", "--target", "label", "--ensemble", method, "--n-trees", "4", "--max-depth", "3", "--seed", "0", "-o", f"{method}.json"], cwd=work)
        assert done.returncode == 0, done.stderr
    return work


# -- verify an ensemble on the command line ---------------------------------------------------


@pytest.mark.parametrize("method", ["forest", "adaboost"])
@pytest.mark.parametrize("target", ["python", "c", "c-table"])
def test_cli_verifies_an_ensemble(files, method, target):
    done = _run(["verify", f"{method}.json", "test.csv", "--target", target], cwd=files)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert re.search(r"checked \d+ rows \(60 from test.csv.*\): 0 mismatches$", done.stdout.strip())


@pytest.mark.parametrize("method", ["forest", "adaboost"])
@pytest.mark.parametrize("target,ftype", [("c", "int16"), ("c-table", "int32")])
def test_cli_verifies_a_quantized_ensemble(files, method, target, ftype):
    done = _run(["verify", f"{method}.json", "test.csv", "--target", target, "--feature-type", ftype,
                 "--quantize", "--ranges-from", "data.csv", "--max-changed", "100%"], cwd=files)
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert re.search(r"^tree_quantize: checked \d+ values against puretree's quantization: 0 mismatches$", out, re.M)
    assert re.search(r"^quantization changes the prediction of \d+ of the 60 rows \([\d.]+%\) of test.csv", out, re.M)
    assert out.strip().endswith(": 0 mismatches") and f"{target} ({ftype}, quantized)" in out


def test_cli_quantize_with_python_is_a_usage_error_for_an_ensemble(files):
    done = _run(["verify", "forest.json", "test.csv", "--target", "python", "--quantize", "--ranges-from", "data.csv"], cwd=files)
    assert done.returncode == 2 and done.stderr.startswith("puretree: error:") and len(done.stderr.splitlines()) == 1


def test_cli_exports_a_quantized_ensemble_with_one_quantizer(files):
    done = _run(["export", "forest.json", "--target", "c", "--feature-type", "int16", "--quantize", "--ranges-from", "data.csv", "-o", "q_out"], cwd=files)
    assert done.returncode == 0, done.stderr
    header = (files / "q_out" / "tree.h").read_text()
    assert "#include <stdint.h>" in header
    assert "void tree_quantize(const float *x, int16_t *q);" in header


# -- integer feature types and one quantizer, in the library ----------------------------------------


@pytest.mark.parametrize("ftype", ["int16", "int32"])
@pytest.mark.parametrize("target", ["c", "c-table"])
def test_an_ensemble_compiles_and_is_exact_with_integer_features(ftype, target):
    X, y = _data()
    report = verify(_forest(X, y), X, target, feature_type=ftype)
    assert report.ok and report.n_checked > len(X)


@pytest.mark.parametrize("method", ["forest", "bagging_regression", "adaboost"])
@pytest.mark.parametrize("ftype", ["int16", "int32"])
def test_a_quantized_ensemble_is_verified_exactly(method, ftype):
    X, y = _data()
    if method == "forest":
        model = _forest(X, y)
    elif method == "adaboost":
        model = ensemble.adaboost(np.nan_to_num(X), y, n_rounds=5, seed=0)
        X = np.nan_to_num(X)
    else:
        from puretree.grow import cart_regressor

        model = ensemble.bagging(from_numpy(X, np.nan_to_num(X[:, 0]) * 3.0 + 1.0, task="regression"), n_trees=3, seed=0, base=cart_regressor, max_depth=4, missing="distribute")
    report = verify(model, X, "c-table", feature_type=ftype, quantize=feature_ranges(X), max_changed="100%")
    assert report.ok, (report.mismatches[:3], report.quantize_mismatches[:3])
    assert report.n_quantized > 0 and report.n_quantize_mismatches == 0
    assert report.changed_by_quantization is not None and report.n_rows == len(X)


def _quantized_forest_source(tmp_path, X, y, ranges):
    forest = _forest(X, y)
    export(forest, "c", out_dir=tmp_path, name="qf", feature_type="int16", quantize=ranges)
    return forest


DRIVER = r"""#include <stdio.h>
#include <stdlib.h>
#include "qf.h"
int main(void) {
    float x[QF_N_FEATURES];
    int16_t q[QF_N_FEATURES];
    char tok[64];
    int j = 0, k;
    while (scanf("%63s", tok) == 1) {
        x[j++] = strtof(tok, NULL);
        if (j == QF_N_FEATURES) {
            for (k = 0; k < QF_N_FEATURES; k++) q[k] = 0;
            qf_quantize(x, q); /* one call for the whole ensemble */
            printf("%d\n", qf_predict(q));
            j = 0;
        }
    }
    return 0;
}
"""


def test_one_ensemble_quantizer_then_predict_answers_as_the_quantized_ensemble(tmp_path):
    X, y = _data()
    ranges = feature_ranges(X)
    forest = _quantized_forest_source(tmp_path, X, y, ranges)
    (tmp_path / "main.c").write_text(DRIVER)
    done = subprocess.run(["gcc", "-std=c99", "-Wall", "-Werror", "-ffp-contract=off", "main.c", "qf.c", "-o", "main", "-lm"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    rows = "\n".join(" ".join("nan" if np.isnan(v) else float(np.float32(v)).hex() for v in row) for row in X) + "\n"
    out = subprocess.run([str(tmp_path / "main")], input=rows, capture_output=True, text=True, check=True).stdout.split()
    qens, offset, scale = codegen_ensemble.quantized_ensemble(forest, ranges, "int16")
    want = ensemble.predict(qens, Dataset(forest.schema, quantize(X, offset, scale, "int16"))).tolist()
    assert [forest.schema.classes[int(c)] for c in out] == want


def test_the_ensemble_quantizer_covers_every_feature_a_member_reads():
    X, y = _data()
    forest = _forest(X, y)
    source = generate(forest, "c", name="qf", feature_type="int16", quantize=feature_ranges(X))["qf.c"]
    read = sorted({j for tree in forest.members for j in read_features(tree)})
    table = re.search(r"static const \w+ qf_quantized\[(\d+)\] = \{\s*([^}]*)\}", source)
    assert table is not None and int(table.group(1)) == len(read)
    assert [int(v.strip().rstrip("u")) for v in table.group(2).split(",")] == read


# -- on emulated boards -----------------------------------------------------------------------------


@pytest.mark.parametrize("core", ["cortex-m0", "cortex-m4"])
def test_an_int16_forest_on_the_board_equals_predict(core):
    X, y = _data()
    report = verify(_forest(X, y), X, "c-table", feature_type="int16", on=core)
    assert report.ok and report.n_checked > len(X)


@pytest.mark.parametrize("core", ["cortex-m3", "cortex-m7"])
def test_a_quantized_int16_forest_on_the_board_equals_the_quantized_ensemble(core, tmp_path):
    X, y = _data()
    ranges = feature_ranges(X)
    forest = _forest(X, y)
    qens, offset, scale = codegen_ensemble.quantized_ensemble(forest, ranges, "int16")
    QX = quantize(X, offset, scale, "int16")
    rows = np.vstack([check_rows(qens.members[0], QX, "int16"), *(r for tree in qens.members for r in check_batches(tree, QX[:0], "int16"))])
    files = generate(forest, "c", name="qf", feature_type="int16", quantize=ranges)
    program = mcu.program_for(files, name="qf", n_features=3, n_classes=2, proba=True)
    elf = mcu.build_firmware([program], core=core, feature_type="int16", workdir=tmp_path)
    got = mcu.run_firmware(elf, [program], [(0, rows)], core=core, feature_type="int16", workdir=tmp_path).answers[0]
    ds = Dataset(forest.schema, rows)
    codes = [forest.schema.classes.index(c) for c in ensemble.predict(qens, ds).tolist()]
    want = [(c, tuple(p)) for c, p in zip(codes, ensemble.predict_proba(qens, ds).tolist())]
    assert len(rows) > len(X) and got == want


def test_cli_verifies_an_ensemble_on_a_board(files):
    done = _run(["verify", "forest.json", "test.csv", "--target", "c", "--feature-type", "int16", "--on", "cortex-m3"], cwd=files)
    assert done.returncode == 0, done.stderr
    assert "on cortex-m3 (QEMU)" in done.stdout and done.stdout.strip().endswith(": 0 mismatches")


# -- ranges the quantizer cannot hold, and rows it may change -----------------------------------


def _one_feature_tree():
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 100, 1000)
    y = np.where((x > 50) | ((x > 20) & (x < 30)), "hi", "lo")
    return cart(from_numpy(x[:, None], y, feature_names=["x"])), x


def test_a_range_beyond_float32_is_refused_naming_the_feature():
    tree, _ = _one_feature_tree()
    with pytest.raises(CodegenError, match=r"feature 'x'.*beyond float32"):
        generate(tree, "c", feature_type="int16", quantize=[(-1e39, 1e39)])
    with pytest.raises(CodegenError, match=r"feature 'x'.*beyond float32"):
        verify(tree, np.zeros((1, 1)), "c", feature_type="int32", quantize=[(0.0, 1e39)])


def test_cli_export_refuses_a_range_beyond_float32(tmp_path):
    tree, x = _one_feature_tree()
    save(tree, tmp_path / "m.json")
    (tmp_path / "wide.csv").write_text("x,y\n-1e39,lo\n1e39,hi\n" + "".join(f"{float(v)!r},lo\n" for v in x[:50]))
    done = _run(["export", "m.json", "--target", "c", "--feature-type", "int16", "--quantize", "--ranges-from", "wide.csv", "-o", "out"], cwd=tmp_path)
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1
    assert "feature 'x'" in done.stderr and "beyond float32" in done.stderr
    assert not (tmp_path / "out").exists()


def test_verify_fails_when_the_quantization_changes_more_rows_than_allowed():
    tree, x = _one_feature_tree()
    X = x[:200, None]
    wide = [(-1e38, 1e38)]  # representable, but every reading lands on a few integers
    report = verify(tree, X, "c", feature_type="int16", quantize=wide)
    changed = report.changed_by_quantization
    assert changed > 0 and report.mismatches == [] and report.n_quantize_mismatches == 0  # the code is exact...
    assert not report.ok and report.too_many_changed and report.max_changed == 0  # ...the answers are not the model's
    assert verify(tree, X, "c", feature_type="int16", quantize=wide, max_changed=changed).ok
    assert not verify(tree, X, "c", feature_type="int16", quantize=wide, max_changed=changed - 1).ok
    assert verify(tree, X, "c", feature_type="int16", quantize=wide, max_changed=f"{100 * changed / 200}%").ok
    fine = verify(tree, X, "c", feature_type="int16", quantize=[(0.0, 100.0)])
    assert fine.ok and fine.changed_by_quantization == 0


def test_cli_verify_max_changed(tmp_path):
    tree, x = _one_feature_tree()
    save(tree, tmp_path / "m.json")
    (tmp_path / "test.csv").write_text("x,y\n" + "".join(f"{float(v)!r},lo\n" for v in x[:200]))
    (tmp_path / "wide.csv").write_text("x,y\n-1e38,lo\n1e38,hi\n")
    base = ["verify", "m.json", "test.csv", "--target", "c", "--feature-type", "int16", "--quantize", "--ranges-from", "wide.csv"]
    strict = _run(base, cwd=tmp_path)
    assert strict.returncode == 1, strict.stderr
    found = re.search(r"^quantization changes the prediction of (\d+) of the 200 rows \(([\d.]+)%\) of test.csv .*: more than the 0 allowed", strict.stdout, re.M)
    assert found, strict.stdout
    changed = int(found.group(1))
    assert changed > 0 and float(found.group(2)) == pytest.approx(100 * changed / 200, abs=0.1)
    assert _run([*base, "--max-changed", str(changed)], cwd=tmp_path).returncode == 0
    assert _run([*base, "--max-changed", str(changed - 1)], cwd=tmp_path).returncode == 1
    assert _run([*base, "--max-changed", "100%"], cwd=tmp_path).returncode == 0
    bad = _run([*base, "--max-changed", "lots"], cwd=tmp_path)
    assert bad.returncode == 2 and "--max-changed" in bad.stderr and len(bad.stderr.splitlines()) == 1


@pytest.mark.parametrize("value", [-1, "-1", "101%", "x%", 0.5, True, "nan%"])
def test_a_bad_max_changed_is_refused(value):
    with pytest.raises(ParameterError, match="max_changed"):
        codegen_verify.allowed_changes(value, 10)
    tree, x = _one_feature_tree()
    with pytest.raises(ParameterError, match="max_changed"):
        verify(tree, x[:5, None], "python", max_changed=value)


@given(n=st.integers(0, 10_000), share=st.floats(0, 100), other=st.floats(0, 100))
def test_a_share_allows_a_whole_number_of_rows_growing_with_it(n, share, other):
    low, high = sorted((share, other))
    a = codegen_verify.allowed_changes(f"{low!r}%", n)
    b = codegen_verify.allowed_changes(f"{high!r}%", n)
    assert 0 <= a <= b <= n
    assert codegen_verify.allowed_changes("100%", n) == n and codegen_verify.allowed_changes(str(n), 0) == n
