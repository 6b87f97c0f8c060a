"""The compiled path-dependent TreeSHAP (``puretree/growth/_treeshap.c``, issue 31: at most
shap's time) gives the numpy path's values: to rounding (~1e-15; the numpy path adds the leaves
in another order), and bit for bit :func:`puretree.explain.contributions`' values (the same
operations in the same order). Its leaf paths equal the numpy paths bit for bit. It is taken
where the library is there and every tree is a threshold tree; the numpy path otherwise
(``PURETREE_ENGINE=numpy``, categorical splits)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import sklearn.datasets as sklearn_datasets
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.ensemble import (AdaBoostClassifier, GradientBoostingClassifier, GradientBoostingRegressor, HistGradientBoostingClassifier,
                              RandomForestClassifier, RandomForestRegressor)

import puretree as pt
from puretree import explain
from puretree.growth import kernels
from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
from puretree.strategies import boundary_rows, trees


@pytest.fixture(autouse=True, scope="module")
def _library() -> None:
    # the suite runs with the compiled kernel built (setup.py): a missing one is a failure here
    assert kernels.library() is not None, kernels.unavailable_reason()


def _numpy(model: Any, X: Any) -> Any:
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PURETREE_ENGINE", "numpy")
        mp.setattr(explain, "_compiled_path_dependent", _never)
        return pt.shap_values(model, X)


def _never(*args: Any) -> None:
    raise AssertionError("the compiled path was taken")


def _compiled(model: Any, X: Any) -> Any:
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("PURETREE_ENGINE", raising=False)
        mp.setattr(explain, "_numpy_values", _never)
        return pt.shap_values(model, X)


def _as_contributions(values: np.ndarray) -> np.ndarray:
    """``values`` ``(rows, features[, outputs])`` in contributions' layout, the expected value left out."""
    return (values if values.ndim == 3 else values[:, :, None]).transpose(0, 2, 1)


def _check(model: Any, X: Any) -> None:
    fast, slow = _compiled(model, X), _numpy(model, X)
    scale = max(1.0, float(np.abs(slow.values).max(initial=0.0)))
    np.testing.assert_allclose(fast.values, slow.values, rtol=0, atol=1e-12 * scale)
    np.testing.assert_allclose(fast.expected_value, slow.expected_value, rtol=0, atol=1e-12 * scale)
    if all(f.is_numeric for f in model.schema.features):
        # contributions' float order, bit for bit
        assert np.array_equal(_as_contributions(fast.values), explain.contributions(model, X)[:, :, :-1])
    members, k = explain._members(model), explain._n_outputs(model)
    votes = isinstance(model, pt.ensemble.Ensemble) and model.method == "adaboost"
    ours, theirs = explain._flat_table(members, k, votes, explain._compiled()[0]), explain._flat_table(members, k, votes)
    for name in ("start", "feature", "lo", "hi", "nan_ok", "zero", "value", "output", "expected"):
        assert np.array_equal(getattr(ours, name), getattr(theirs, name)), name


@settings(max_examples=80, deadline=None)
@given(st.data())
def test_compiled_equals_numpy_on_threshold_trees(data: st.DataObject) -> None:
    # learned missing sides, the "majority" side, empty leaves, a feature tested again on a
    # path, rows on the thresholds and with missing values
    tree = data.draw(trees(splits=("threshold",), missing=("majority",), max_depth=6, max_nodes=50))
    rows = data.draw(st.lists(boundary_rows(tree, missing=True, unseen=False), min_size=1, max_size=8))
    _check(tree, rows)


@settings(max_examples=30, deadline=None)
@given(st.data())
def test_compiled_equals_numpy_for_trees_that_refuse_missing_values(data: st.DataObject) -> None:
    tree = data.draw(trees(splits=("threshold",), missing=("distribute", "error"), max_depth=5, max_nodes=40))
    rows = data.draw(st.lists(boundary_rows(tree, missing=False, unseen=False), min_size=1, max_size=6))
    _check(tree, rows)


@pytest.mark.parametrize("kind", ["forest", "forest-regression", "adaboost", "gb-multiclass", "gb-regression", "hgb-missing"])
def test_compiled_equals_numpy_on_imported_ensembles(kind: str) -> None:
    load = sklearn_datasets.load_diabetes if "regression" in kind else sklearn_datasets.load_wine if "multiclass" in kind else sklearn_datasets.load_breast_cancer
    X, y = load(return_X_y=True)
    est = {
        "forest": lambda: RandomForestClassifier(n_estimators=5, max_depth=6, random_state=0),
        "forest-regression": lambda: RandomForestRegressor(n_estimators=5, max_depth=6, random_state=0),
        "adaboost": lambda: AdaBoostClassifier(n_estimators=5, random_state=0),
        "gb-multiclass": lambda: GradientBoostingClassifier(n_estimators=5, max_depth=3, random_state=0),
        "gb-regression": lambda: GradientBoostingRegressor(n_estimators=5, max_depth=3, random_state=0),
        "hgb-missing": lambda: HistGradientBoostingClassifier(max_iter=5, max_depth=4, random_state=0),
    }[kind]()
    if kind == "hgb-missing":  # learned missing sides
        X = X.copy()
        X[np.random.default_rng(0).random(X.shape) < 0.1] = np.nan
    _check(pt.from_sklearn(est.fit(X, y)), X)


@pytest.mark.parametrize("objective", ["binary", "multiclass"])
def test_compiled_equals_numpy_on_xgboost_and_lightgbm_imports(objective: str) -> None:
    xgboost = pytest.importorskip("xgboost")
    lightgbm = pytest.importorskip("lightgbm")
    load = sklearn_datasets.load_breast_cancer if objective == "binary" else sklearn_datasets.load_wine
    X, y = load(return_X_y=True)
    X = X.copy()
    X[np.random.default_rng(1).random(X.shape) < 0.1] = np.nan
    extra = {"num_class": 3} if objective == "multiclass" else {}
    booster = xgboost.train({"objective": "binary:logistic" if objective == "binary" else "multi:softprob", "max_depth": 3, "nthread": 1, **extra}, xgboost.DMatrix(X, y), 5)
    lgb = lightgbm.train({"objective": objective, "num_leaves": 8, "verbose": -1, "num_threads": 1, **extra}, lightgbm.Dataset(X, y), 5)
    for model in (pt.from_xgboost(booster), pt.from_lightgbm(lgb)):  # XGBoost's: float32 features
        _check(model, X)


def test_many_rows_in_blocks_and_threads_equal_one_thread(monkeypatch: pytest.MonkeyPatch) -> None:
    # more rows than a block (2048): several blocks, each its own (leaf, pattern) table; shared
    # between threads or not, the same floats
    X, y = sklearn_datasets.make_classification(n_samples=5000, n_features=8, random_state=0)
    est = RandomForestClassifier(n_estimators=3, max_depth=8, random_state=0).fit(X, y)
    model = pt.from_sklearn(est)
    monkeypatch.setattr(explain, "_PARALLEL_WORK", 0)
    threaded = _compiled(model, X).values
    monkeypatch.setattr(explain, "_PARALLEL_WORK", 10**18)
    alone = _compiled(model, X).values
    assert np.array_equal(threaded, alone)
    _check(model, X)


def test_a_path_of_more_features_than_a_pattern_holds() -> None:
    # 70 distinct features on one path (a pattern key holds 64): computed row by row. Each split
    # sends half its weight each way (the polynomial of a long path whose shares are small
    # loses its precision in both ways of computing it, as shap's does)
    n = 70
    schema = Schema(tuple(Feature(f"x{j}") for j in range(n)), task="regression")
    node: Any = Leaf((1.0, 2.0, 4.0))
    for j in reversed(range(n)):
        w = node.stats[0]
        side = Leaf((w, w * (j % 3), w * (j % 3) ** 2))
        node = Split(j, Threshold(0.5), (node, side), (2 * w, node.stats[1] + side.stats[1], node.stats[2] + side.stats[2]))
    tree = pt.Tree(node, schema)
    X = np.random.default_rng(0).random((20, n)) * 0.55  # most values on the path's side
    X[0] = 0.0  # the deepest leaf
    _check(tree, X)
    sv = _compiled(tree, X)
    np.testing.assert_allclose(sv.values.sum(axis=1) + sv.expected_value, pt.predict(tree, X), rtol=0, atol=1e-9)


def test_categorical_trees_and_the_numpy_engine_take_the_numpy_path(monkeypatch: pytest.MonkeyPatch) -> None:
    ds = pt.datasets.load_playtennis()
    tree = pt.id3(ds)  # multiway splits: the numpy path, with the library there
    monkeypatch.setattr(explain, "_compiled_path_dependent", _never)
    assert pt.shap_values(tree, ds).values.shape == (14, 4, 2)
    X, y = sklearn_datasets.load_breast_cancer(return_X_y=True)
    threshold_tree = pt.cart(X, y, max_depth=3)
    with pytest.raises(AssertionError, match="compiled path was taken"):
        pt.shap_values(threshold_tree, X[:5])
    monkeypatch.setenv("PURETREE_ENGINE", "numpy")
    assert pt.shap_values(threshold_tree, X[:5]).values.shape == (5, 30, 2)


def test_the_interventional_game_stays_in_numpy(monkeypatch: pytest.MonkeyPatch) -> None:
    X, y = sklearn_datasets.load_breast_cancer(return_X_y=True)
    tree = pt.cart(X, y, max_depth=3)
    monkeypatch.setattr(explain, "_compiled_path_dependent", _never)
    sv = pt.shap_values(tree, X[:5], feature_perturbation="interventional", data=X[:20])
    np.testing.assert_allclose(sv.values.sum(axis=1) + sv.expected_value, pt.predict_proba(tree, X[:5]), rtol=0, atol=1e-12)
