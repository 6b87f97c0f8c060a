"""TreeSHAP in generated code (issue 31): ``generate(..., contributions=True)`` gives C's
``NAME_contributions`` and Python's ``contributions``, equal bit for bit to
``puretree.explain.contributions``, the library's values in their defined float order; that
reference equals ``pt.shap_values`` within 1e-12 and shap's TreeExplainer within 1e-9.

The C is compiled by verify with gcc and the strict flags on the host, and once run on an
emulated Cortex-M4 (QEMU); the Python is run in this process."""

from __future__ import annotations

import math
import pathlib
import shutil
import subprocess
import sys

import numpy as np
import pytest
import sklearn.datasets as sklearn_datasets
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor, RandomForestClassifier

import puretree as pt
from puretree.codegen import ensemble as codegen_ensemble
from puretree.errors import CodegenError, DataError, ParameterError
from puretree.explain import contribution_tables, contributions
from puretree.nodes import Feature, Leaf, Multiway, Schema, Split
from puretree.strategies import boundary_rows, trees

try:
    import shap  # a test dependency (constraints/test.txt)
except ImportError:  # shap 0.51 installs on Python 3.11+ only
    shap = None
needs_shap = pytest.mark.skipif(shap is None, reason="shap 0.51 (the reference) installs on Python 3.11+ only")


def _breast_cancer() -> tuple[np.ndarray, np.ndarray]:
    return sklearn_datasets.load_breast_cancer(return_X_y=True)


def _with_missing(X: np.ndarray, share: float = 0.1) -> np.ndarray:
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < share] = np.nan
    return X


def _as_shap(model: pt.Tree | pt.Ensemble | pt.Boosted, X: np.ndarray) -> np.ndarray:
    """shap_values' values in contributions' layout: (rows, outputs, features)."""
    v = pt.shap_values(model, X).values
    return v[:, None, :] if v.ndim == 2 else v.transpose(0, 2, 1)


def _python_module(files: dict[str, str], name: str, tmp_path: pathlib.Path) -> dict[str, object]:
    for filename, text in files.items():
        (tmp_path / filename).write_text(text, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))  # an ensemble's module loads its members' from its folder
    try:
        scope: dict[str, object] = {"__file__": str(tmp_path / f"{name}.py"), "__name__": f"contrib_{name}"}
        exec(compile(files[f"{name}.py"], str(tmp_path / f"{name}.py"), "exec"), scope)
    finally:
        sys.path.remove(str(tmp_path))
    return scope


def _bits(a: object) -> np.ndarray:
    return np.asarray(a, dtype=np.float64).view(np.int64)


# -- the library's reference ------------------------------------------------------------------


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_reference_equals_shap_values_on_hypothesis_trees(data: st.DataObject) -> None:
    tree = data.draw(trees(splits=("threshold",), missing=("majority",)))
    rows = data.draw(st.lists(boundary_rows(tree, missing=True, unseen=False), min_size=1, max_size=6))
    c = contributions(tree, rows)
    k = len(tree.schema.classes)
    assert c.shape == (len(rows), k, tree.schema.n_features + 1)
    np.testing.assert_allclose(c[:, :, :-1], _as_shap(tree, rows), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(c[:, :, -1], np.broadcast_to(pt.shap_values(tree, rows).expected_value, (len(rows), k)))
    # An output's entries add up to its answer.
    np.testing.assert_allclose(c.sum(axis=2), pt.predict_proba(tree, rows, unseen="ignore"), rtol=0, atol=1e-9)


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_generated_python_is_the_reference_bit_for_bit_on_hypothesis_trees(data: st.DataObject) -> None:
    tree = data.draw(trees(splits=("threshold",), missing=("majority",)))
    rows = data.draw(st.lists(boundary_rows(tree, missing=True, unseen=False), min_size=1, max_size=6))
    scope: dict[str, object] = {}
    exec(pt.generate(tree, "python", name="tree", contributions=True)["tree.py"], scope)
    got = [scope["contributions"](row) for row in rows]  # type: ignore[operator]
    np.testing.assert_array_equal(_bits(got), _bits(contributions(tree, rows).reshape(len(rows), -1)))


@needs_shap
@pytest.mark.parametrize("kind", ["forest", "gradient boosting"])
def test_reference_equals_shap_on_imported_breast_cancer(kind: str) -> None:
    X, y = _breast_cancer()
    if kind == "forest":
        est = RandomForestClassifier(n_estimators=10, max_depth=6, random_state=0).fit(X, y)
        members = tuple(pt.from_sklearn(e) for e in est.estimators_)
        model: pt.Ensemble | pt.Boosted = pt.Ensemble(members, (1.0,) * len(members), members[0].schema, "forest", 0, ())
    else:
        est = GradientBoostingClassifier(n_estimators=20, max_depth=3, random_state=0).fit(X, y)
        model = pt.from_sklearn(est)
    c = contributions(model, X)
    np.testing.assert_allclose(c[:, :, :-1], _as_shap(model, X), rtol=0, atol=1e-12)
    explainer = shap.TreeExplainer(est, feature_perturbation="tree_path_dependent")
    want = np.asarray(explainer.shap_values(X, check_additivity=False))
    want = want[:, None, :] if want.ndim == 2 else want.transpose(0, 2, 1)
    np.testing.assert_allclose(c[:, :, :-1], want, rtol=0, atol=1e-9)
    np.testing.assert_allclose(c[0, :, -1], np.atleast_1d(explainer.expected_value), rtol=0, atol=1e-9)


def test_reference_refusals() -> None:
    schema = Schema((Feature("colour", kind="categorical", categories=("red", "blue")),), classes=("a", "b"))
    tree = pt.Tree(Split(0, Multiway(2), (Leaf((1, 0)), Leaf((0, 1))), (1, 1)), schema)
    with pytest.raises(ParameterError, match="feature 'colour' is categorical"):
        contribution_tables(tree)
    with pytest.raises(CodegenError, match="feature 'colour' is categorical"):
        pt.generate(tree, "c", contributions=True)
    X, y = _breast_cancer()
    spread = pt.cart(_with_missing(X), y, max_depth=3, missing="distribute")
    with pytest.raises(DataError, match="X: row 0, column"):
        contributions(spread, _with_missing(X[:1], 1.0))


# -- the generated code, bit for bit -------------------------------------------------------------


def _models() -> dict[str, object]:
    X, y = _breast_cancer()
    Xm = _with_missing(X)
    Xr, yr = sklearn_datasets.load_diabetes(return_X_y=True)
    return {
        "tree": (pt.cart(X, y, max_depth=5), X[:40]),
        "tree with missing values (majority)": (pt.cart(Xm, y, max_depth=5, missing="majority"), Xm[:40]),
        "forest": (pt.random_forest(X, y, n_trees=5, max_depth=4, seed=0), X[:20]),
        "adaboost (votes)": (pt.adaboost(X, y, n_rounds=5, seed=0), X[:20]),
        "regression forest": (pt.random_forest(Xr, yr, n_trees=3, max_depth=4, seed=0, task="regression"), Xr[:20]),
        "boosted regression": (pt.from_sklearn(GradientBoostingRegressor(n_estimators=5, max_depth=3, random_state=0).fit(Xr, yr)), Xr[:20]),
        "boosted three classes": (pt.from_sklearn(GradientBoostingClassifier(n_estimators=4, max_depth=2, random_state=0).fit(X[:, :6], np.arange(len(y)) % 3)), X[:20, :6]),
    }


MODELS = _models()


@pytest.mark.parametrize("target", ["c", "c-table", "python"])
@pytest.mark.parametrize("case", sorted(MODELS))
def test_generated_code_is_the_reference_bit_for_bit(case: str, target: str) -> None:
    model, X = MODELS[case]
    if target == "c-table" and isinstance(model, pt.Boosted):
        target = "c"  # a boosted model's C is its table
    report = pt.verify(model, X, target, contributions=True)
    assert report.n_contributions >= len(X)
    assert report.contribution_mismatches == [] and report.ok


def test_missing_values_follow_the_path_as_the_model_sends_them() -> None:
    model, X = MODELS["tree with missing values (majority)"]
    assert any(any(leaf.nan_ok) for leaf in contribution_tables(model).leaves)  # the learned sides are in the tables
    rows = _with_missing(X, 0.5)
    c = contributions(model, rows)
    np.testing.assert_allclose(c.sum(axis=2), pt.predict_proba(model, rows), rtol=0, atol=1e-9)
    scope: dict[str, object] = {}
    exec(pt.generate(model, "python", name="tree", contributions=True)["tree.py"], scope)
    got = [scope["contributions"]([None if math.isnan(v) else v for v in row]) for row in rows.tolist()]  # type: ignore[operator]
    np.testing.assert_array_equal(_bits(got), _bits(c.reshape(len(rows), -1)))


def test_xgboost_float32_and_missing_values() -> None:
    xgboost = pytest.importorskip("xgboost")
    X, y = _breast_cancer()
    Xm = _with_missing(X)
    booster = xgboost.XGBClassifier(n_estimators=5, max_depth=3, random_state=0).fit(Xm, y)
    model = pt.from_xgboost(booster)
    assert model.precision == "float32"
    np.testing.assert_allclose(contributions(model, Xm)[:, :, :-1], _as_shap(model, Xm), rtol=0, atol=1e-12)
    for target in ("c", "python"):
        report = pt.verify(model, Xm[:30], target, contributions=True)
        assert report.contribution_mismatches == [] and report.ok


def test_lightgbm() -> None:
    lightgbm = pytest.importorskip("lightgbm")
    X, y = _breast_cancer()
    model = pt.from_lightgbm(lightgbm.LGBMClassifier(n_estimators=5, num_leaves=8, verbose=-1).fit(_with_missing(X), y))
    np.testing.assert_allclose(contributions(model, X)[:, :, :-1], _as_shap(model, X), rtol=0, atol=1e-12)
    for target in ("c", "python"):
        report = pt.verify(model, _with_missing(X[:20]), target, contributions=True)
        assert report.contribution_mismatches == [] and report.ok


def test_a_changed_float_order_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """verify compares bits: the same formula with a product grouped otherwise (equal in exact
    arithmetic) differs in the last place on some rows, and verify reports them."""
    model, X = MODELS["forest"]
    real = codegen_ensemble.contributing.c_contributions

    def regrouped(*args: object, **kwargs: object) -> dict[str, str]:
        files = real(*args, **kwargs)  # type: ignore[arg-type]
        old = "term = pw[i] * (double)(i + 1u) * tree_cl_inv[k + 1u];"
        assert old in files["tree.c"]
        return {**files, "tree.c": files["tree.c"].replace(old, "term = pw[i] * ((double)(i + 1u) * tree_cl_inv[k + 1u]);")}

    monkeypatch.setattr(codegen_ensemble.contributing, "c_contributions", regrouped)
    report = pt.verify(model, X, "c", contributions=True)
    assert report.n_contribution_mismatches > 0 and not report.ok


def test_a_model_that_refuses_missing_values() -> None:
    X, y = _breast_cancer()
    model = pt.cart(_with_missing(X), y, max_depth=3, missing="distribute")
    files = pt.generate(model, "python", name="tree", contributions=True)
    scope: dict[str, object] = {}
    exec(files["tree.py"], scope)
    row = X[0].tolist()
    row[3] = None
    with pytest.raises(ValueError, match="column 'x3': a missing value"):
        scope["contributions"](row)  # type: ignore[operator]
    # C answers NaN in every entry (verify checks it on its missing-value rows).
    assert "out[c] = NAN;" in pt.generate(model, "c", name="tree", contributions=True)["tree.c"]
    report = pt.verify(model, _with_missing(X[:20]), "c", contributions=True)
    assert report.contribution_mismatches == [] and report.ok


def test_layout_and_float_features() -> None:
    model, X = MODELS["forest"]
    files = pt.generate(model, "c", name="bc", feature_type="float", contributions=True)
    assert "#define BC_N_CONTRIBUTIONS 62u" in files["bc.h"]  # 2 classes x (30 features + the expected value)
    assert "void bc_contributions(const float *x, double *out);" in files["bc.h"]
    rows = X.astype(np.float32).astype(np.float64)
    report = pt.verify(model, rows, "c", feature_type="float", name="bc", contributions=True)
    assert report.contribution_mismatches == [] and report.ok
    c = contributions(model, rows)
    np.testing.assert_allclose(c.sum(axis=2), pt.predict_proba(model, rows), rtol=0, atol=1e-9)


def test_refused_targets_and_types() -> None:
    model, _ = MODELS["tree"]
    with pytest.raises(CodegenError, match="python, c and c-table targets, not 'java'"):
        pt.generate(model, "java", contributions=True)
    with pytest.raises(CodegenError, match="double or float features, not 'int16'"):
        pt.generate(model, "c", feature_type="int16", contributions=True)


def test_python_row_errors_name_the_column() -> None:
    model, X = MODELS["tree"]
    scope: dict[str, object] = {}
    exec(pt.generate(model, "python", name="tree", contributions=True)["tree.py"], scope)
    row = X[0].tolist()
    row[2] = "abc"
    with pytest.raises(ValueError, match="column 'x2': 'abc' is not a number"):
        scope["contributions"](row)  # type: ignore[operator]
    with pytest.raises(ValueError, match="expected 30 values, got 2"):
        scope["contributions"]([1.0, 2.0])  # type: ignore[operator]
    named = dict(zip(model.schema.feature_names, X[0].tolist()))
    assert scope["contributions"](named) == scope["contributions"](X[0].tolist())  # type: ignore[operator]


@pytest.mark.skipif(shutil.which("qemu-system-arm") is None or shutil.which("arm-none-eabi-gcc") is None, reason="needs qemu-system-arm and arm-none-eabi-gcc")
def test_on_an_emulated_cortex_m4() -> None:
    model, X = MODELS["tree with missing values (majority)"]
    report = pt.verify(model, X[:10], "c", contributions=True, on="cortex-m4")
    assert report.n_contributions > 10 and report.contribution_mismatches == [] and report.ok


def test_command_line(tmp_path: pathlib.Path) -> None:
    X, y = _breast_cancer()
    model = pt.cart(X, y, max_depth=3)
    pt.save(model, tmp_path / "tree.json")
    header = ",".join(model.schema.feature_names)
    (tmp_path / "rows.csv").write_text(header + "\n" + "\n".join(",".join(repr(v) for v in row) for row in X[:20].tolist()) + "\n")
    run = [sys.executable, "-m", "puretree"]
    done = subprocess.run([*run, "export", str(tmp_path / "tree.json"), "--to", "c", "--contributions", "-o", str(tmp_path / "out")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "void tree_contributions(const double *x, double *out);" in (tmp_path / "out" / "tree.h").read_text()
    done = subprocess.run([*run, "verify", str(tmp_path / "tree.json"), str(tmp_path / "rows.csv"), "--to", "c", "--contributions"], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "tree_contributions: checked" in done.stdout and "0 mismatches" in done.stdout
    done = subprocess.run([*run, "export", str(tmp_path / "tree.json"), "--to", "java", "--contributions", "-o", str(tmp_path / "j")], capture_output=True, text=True)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert done.stderr.strip().count("\n") == 0 and "not 'java'" in done.stderr
