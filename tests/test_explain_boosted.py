"""pt.shap_values of boosted models (issue 31: every ensemble kind puretree grows or imports):
scikit-learn's gradient boosting imported with from_sklearn equals shap.TreeExplainer's raw
path-dependent values within 1e-9 (binary, regression: shap takes no multiclass
GradientBoostingClassifier), the interventional values equal the Shapley definition (binary,
multiclass, regression), and the values add up to the raw score for grown, XGBoost and LightGBM
models."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import numpy as np
import pytest

try:
    import shap  # a test dependency (constraints/test.txt)
except ImportError:  # shap 0.51 installs on Python 3.11+ only: the comparisons with it cannot run on 3.10
    shap = None
import sklearn.datasets as sklearn_datasets
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor

import puretree as pt
from puretree.errors import ParameterError
from test_explain import _exact_interventional  # the Shapley values from their definition

needs_shap = pytest.mark.skipif(shap is None, reason="shap 0.51 (the reference) installs on Python 3.11+ only")

CASES = {
    "breast_cancer": (sklearn_datasets.load_breast_cancer, lambda: GradientBoostingClassifier(n_estimators=30, max_depth=3, random_state=0)),
    "diabetes": (sklearn_datasets.load_diabetes, lambda: GradientBoostingRegressor(n_estimators=30, max_depth=3, random_state=0)),
}


def _fitted(case: str):
    load, make = CASES[case]
    X, y = load(return_X_y=True)
    return X, y, make().fit(X, y)


@needs_shap
@pytest.mark.parametrize("case", sorted(CASES))
def test_path_dependent_equals_shap_on_imported_gradient_boosting(case: str) -> None:
    X, y, est = _fitted(case)
    model = pt.from_sklearn(est)
    explainer = shap.TreeExplainer(est)
    want = np.asarray(explainer.shap_values(X, check_additivity=False))
    got = pt.shap_values(model, X)
    assert got.output == "raw"
    assert got.values.shape == want.shape == (len(X), X.shape[1])  # shap takes two-class GradientBoostingClassifier only
    scale = max(1.0, float(np.abs(got.values).max()))
    assert np.max(np.abs(got.values - want)) <= 1e-9 * scale
    assert np.max(np.abs(np.asarray(got.expected_value) - np.asarray(explainer.expected_value))) <= 1e-9 * scale
    # and the values add up to the model's raw score
    total = got.values.sum(axis=1) + got.expected_value
    np.testing.assert_allclose(total, np.asarray(model.decision_function(X)).reshape(total.shape), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("kind", ["regression", "binary", "multiclass"])
def test_interventional_equals_shapley_definition_on_gradient_boosting(kind: str) -> None:
    # shap's interventional C++ parts from the definition on many-tree models (its float32 weights,
    # shap issue 3267: 3.1 on values near 100 for 30 depth-3 stages on diabetes), so the
    # reference here is the definition: every coalition, the mean raw score over the background
    X, y = sklearn_datasets.load_diabetes(return_X_y=True)
    if kind == "regression":
        est = GradientBoostingRegressor(n_estimators=20, max_depth=3, random_state=0).fit(X, y)
    else:
        labels = np.digitize(y, np.quantile(y, [0.5] if kind == "binary" else [0.33, 0.66]))
        est = GradientBoostingClassifier(n_estimators=10, max_depth=3, random_state=0).fit(X, labels)
    model = pt.from_sklearn(est)
    background, rows = X[:30], X[200:203]
    got = pt.shap_values(model, rows, feature_perturbation="interventional", data=background)
    for i, x in enumerate(rows):
        want = _exact_interventional(est.decision_function if kind != "regression" else est.predict, x, background)
        np.testing.assert_allclose(got.values[i], want, rtol=0, atol=1e-9)
    np.testing.assert_allclose(got.expected_value, np.mean(model.decision_function(background), axis=0), rtol=0, atol=1e-9)
    total = got.values.sum(axis=1) + got.expected_value
    np.testing.assert_allclose(total, model.decision_function(rows), rtol=1e-9, atol=1e-9)


def test_grown_boosting_adds_up_to_its_raw_scores() -> None:
    X, y = sklearn_datasets.load_wine(return_X_y=True)
    model = pt.gradient_boosting(X, y, n_estimators=5, max_depth=2)
    got = pt.shap_values(model, X)
    assert got.values.shape == (len(X), X.shape[1], 3) and len(got.expected_value) == 3
    np.testing.assert_allclose(got.values.sum(axis=1) + got.expected_value, model.decision_function(X), rtol=1e-9, atol=1e-9)
    background = got = pt.shap_values(model, X[:20], feature_perturbation="interventional", data=X[:50])
    np.testing.assert_allclose(background.values.sum(axis=1) + background.expected_value, model.decision_function(X[:20]), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("objective", ["binary", "multiclass", "regression"])
def test_imported_xgboost_and_lightgbm_equal_their_own_tree_shap(objective: str) -> None:
    # The importers keep each node's cover (XGBoost's sum_hessian, LightGBM's counts): the values
    # equal the libraries' own TreeSHAP (pred_contribs / pred_contrib, which shap's equal), with
    # 10% missing cells; XGBoost computes its values in float32, LightGBM in double.
    xgboost = pytest.importorskip("xgboost")
    lightgbm = pytest.importorskip("lightgbm")
    load = {"binary": sklearn_datasets.load_breast_cancer, "multiclass": sklearn_datasets.load_wine, "regression": sklearn_datasets.load_diabetes}[objective]
    X, y = load(return_X_y=True)
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < 0.1] = np.nan
    xgb_objective = {"binary": "binary:logistic", "multiclass": "multi:softprob", "regression": "reg:squarederror"}[objective]
    extra = {"num_class": 3} if objective == "multiclass" else {}
    booster = xgboost.train({"objective": xgb_objective, "max_depth": 3, "nthread": 1, **extra}, xgboost.DMatrix(X, y), 10)
    lgb = lightgbm.train({"objective": objective, "num_leaves": 8, "verbose": -1, "num_threads": 1, **extra}, lightgbm.Dataset(X, y), 10)
    k = 3 if objective == "multiclass" else 1
    theirs_xgb = booster.predict(xgboost.DMatrix(X), pred_contribs=True)  # (rows, outputs, features + 1) for several outputs
    theirs_lgb = lgb.predict(X, pred_contrib=True).reshape(len(X), k, X.shape[1] + 1)  # outputs side by side
    for model, theirs, tolerance in ((pt.from_xgboost(booster), theirs_xgb, 1e-6), (pt.from_lightgbm(lgb), theirs_lgb, 1e-12)):
        theirs = np.asarray(theirs).reshape(len(X), k, X.shape[1] + 1).transpose(0, 2, 1)  # (rows, features + 1, outputs)
        got = pt.shap_values(model, X)
        values = got.values.reshape(len(X), X.shape[1], k)
        scale = float(np.abs(theirs).max())
        assert np.max(np.abs(values - theirs[:, :-1])) <= tolerance * scale
        assert np.max(np.abs(np.asarray(got.expected_value).reshape(k) - theirs[0, -1])) <= tolerance * scale
        raw = np.asarray(model.decision_function(X)).reshape(len(X), k)
        # a float32 model's raw score is rounded to float32 after every tree; the values are exact doubles
        np.testing.assert_allclose(values.sum(axis=1) + np.asarray(got.expected_value).reshape(k), raw, rtol=tolerance, atol=tolerance * scale)


def test_a_boosted_model_is_explained_and_other_values_refused() -> None:
    with pytest.raises(ParameterError, match="Tree, Ensemble or Boosted"):
        pt.shap_values("not a model", [[0.0]])


def test_command_line_explains_a_two_class_boosted_model_per_class(tmp_path) -> None:
    data = pathlib.Path(__file__).parent / "data" / "diabetes.arff"
    fit = subprocess.run([sys.executable, "-m", "puretree", "fit", str(data), "--ensemble", "gradient-boosting", "-o", "gb.json"], capture_output=True, text=True, cwd=tmp_path, timeout=300)
    assert fit.returncode == 0, fit.stderr
    model = pt.load(tmp_path / "gb.json")
    rows = pt.read_arff(data)
    sv = pt.shap_values(model, rows)
    first, second = (str(c) for c in model.schema.classes)
    for cls, sign in ((second, 1.0), (first, -1.0)):  # one raw score: the second class's log-odds, the first's its negation
        done = subprocess.run([sys.executable, "-m", "puretree", "explain", "gb.json", str(data), "--class", cls], capture_output=True, text=True, cwd=tmp_path, timeout=300)
        assert done.returncode == 0, done.stderr
        lines = done.stdout.splitlines()
        assert lines[0] == f"expected({cls})," + ",".join(f"{n}({cls})" for n in model.schema.feature_names)
        got = np.array([[float(v) for v in line.split(",")] for line in lines[1:]])
        np.testing.assert_array_equal(got[:, 0], sign * sv.expected_value)
        np.testing.assert_array_equal(got[:, 1:], sign * sv.values)
