"""scikit-learn's gradient-boosted models through ``from_sklearn`` (issue 29): ``GradientBoosting*``
and ``HistGradientBoosting*`` become a ``Boosted`` whose raw scores equal scikit-learn's
``decision_function`` (regression: ``predict``) bit for bit, whose probabilities are within
1e-12 relative and classes equal, on held-out rows; the generated Python and C pass ``verify``."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import (
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    HistGradientBoostingClassifier,
    HistGradientBoostingRegressor,
    IsolationForest,
)

import puretree as pt
from puretree import boosted as bs
from puretree.errors import ParameterError
from puretree.fold import iter_nodes
from puretree.nodes import Split, Subset
from puretree.sklearn import from_sklearn

LOADERS = {"breast_cancer": load_breast_cancer, "wine": load_wine, "diabetes": load_diabetes}


def _data(name: str, nan: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    X, y = LOADERS[name](return_X_y=True)
    if nan:
        X = X.copy()
        X[np.random.default_rng(0).random(X.shape) < nan] = np.nan
    return X[::2], y[::2], X[1::2], y[1::2]


def _raw(est: Any, X: Any) -> np.ndarray:
    return est.decision_function(X) if hasattr(est, "classes_") else est.predict(X)


def _agrees(est: Any, X: Any) -> bs.Boosted:
    model = from_sklearn(est)
    assert isinstance(model, bs.Boosted)
    assert np.array_equal(bs.decision_function(model, X), _raw(est, X))  # bit for bit
    if hasattr(est, "classes_"):
        assert np.allclose(bs.predict_proba(model, X), est.predict_proba(X), rtol=1e-12, atol=0)
        assert np.array_equal(bs.predict(model, X), est.predict(X))
    else:
        assert np.array_equal(bs.predict(model, X), est.predict(X))
    return model


GB_CASES = [
    ("breast_cancer", "log_loss"),
    ("breast_cancer", "exponential"),
    ("wine", "log_loss"),
    ("diabetes", "squared_error"),
    ("diabetes", "absolute_error"),
    ("diabetes", "huber"),
    ("diabetes", "quantile"),
]


@pytest.mark.parametrize("name, loss", GB_CASES)
def test_gradient_boosting_scores_as_scikit_learn(name: str, loss: str) -> None:
    X, y, held, _ = _data(name)
    kind = GradientBoostingRegressor if name == "diabetes" else GradientBoostingClassifier
    est = kind(n_estimators=25, max_depth=3, loss=loss, subsample=0.8, random_state=0).fit(X, y)
    model = _agrees(est, held)
    assert (model.loss, model.learning_rate, model.precision) == (loss, est.learning_rate, "float64")
    assert len(model.stages) == 25 and model.n_outputs == (3 if name == "wine" else 1)
    _verifies(model, held[:40])


def _verifies(model: bs.Boosted, rows: Any) -> None:
    """The generated Python and C (double features) agree with the library on ``rows`` and
    verify's boundary rows (thresholds' neighbours, NaN, unknown codes): 0 mismatches."""
    for target in ("python", "c"):
        report = pt.verify(model, rows, target)
        assert report.n_checked > len(rows) and report.mismatches == []


def test_gradient_boosting_with_zero_init_and_early_stopping() -> None:
    X, y, held, _ = _data("wine")
    est = GradientBoostingClassifier(n_estimators=200, init="zero", n_iter_no_change=3, validation_fraction=0.3, random_state=0).fit(X, y)
    assert est.n_estimators_ < 200
    model = _agrees(est, held)
    assert model.init == (0.0, 0.0, 0.0) and len(model.stages) == est.n_estimators_


HGB_CASES = [("breast_cancer", "log_loss", 0.0), ("wine", "log_loss", 0.0), ("diabetes", "squared_error", 0.0), ("diabetes", "absolute_error", 0.0),
             ("diabetes", "quantile", 0.0), ("breast_cancer", "log_loss", 0.1), ("wine", "log_loss", 0.1), ("diabetes", "squared_error", 0.1)]


@pytest.mark.parametrize("name, loss, nan", HGB_CASES)
def test_hist_gradient_boosting_scores_as_scikit_learn(name: str, loss: str, nan: float) -> None:
    X, y, held, _ = _data(name, nan)
    if name == "diabetes":
        est: Any = HistGradientBoostingRegressor(max_iter=30, loss=loss, random_state=0, **({"quantile": 0.3} if loss == "quantile" else {})).fit(X, y)
    else:
        est = HistGradientBoostingClassifier(max_iter=30, random_state=0).fit(X, y)
    model = _agrees(est, held)
    assert model.learning_rate == 1.0 and len(model.stages) == est.n_iter_
    _verifies(model, held[:40])


def _frame(n: int = 600) -> tuple[pd.DataFrame, np.ndarray]:
    rng = np.random.default_rng(1)
    df = pd.DataFrame({"a": rng.normal(size=n), "c": pd.Categorical(rng.choice(list("pqrstu"), n)),
                       "b": rng.normal(size=n), "d": pd.Categorical(rng.choice(["x", "y", "z"], n))})
    y = ((df.a > 0) ^ df.c.isin(list("pqr")) ^ (df.d == "y")).to_numpy().astype(int) + (df.b > 1).to_numpy()
    for col in df:
        df.loc[rng.random(n) < 0.1, col] = np.nan
    return df, y


@pytest.mark.parametrize("kind", ["binary", "3 classes", "regression"])
def test_hist_gradient_boosting_with_categorical_columns_and_nan(kind: str) -> None:
    df, y = _frame()
    if kind == "binary":
        y = (y > 0).astype(int)
    if kind == "regression":
        est: Any = HistGradientBoostingRegressor(max_iter=30, categorical_features="from_dtype", random_state=0)
    else:
        est = HistGradientBoostingClassifier(max_iter=30, categorical_features="from_dtype", random_state=0)
    est.fit(df.iloc[:400], y[:400])
    model = _agrees(est, df.iloc[400:])
    _verifies(model, df.iloc[400:440])
    assert [f.kind for f in model.schema.features] == ["numeric", "categorical", "numeric", "categorical"]
    assert model.schema.features[1].categories == tuple("pqrstu")
    # a category unseen at fit goes the missing values' way, as scikit-learn sends it
    unseen = df.iloc[400:].copy()
    unseen["c"] = unseen["c"].cat.add_categories(["new"])
    unseen.iloc[:50, 1] = "new"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.array_equal(bs.decision_function(model, unseen), _raw(est, unseen))


def test_categorical_splits_are_subsets_with_the_missing_side() -> None:
    """Among them splits that send every known category one way and NaN the other (an empty
    bitset): scikit-learn makes them where a node's rows have NaN; they become two subsets."""
    df, y = _frame()
    est = HistGradientBoostingClassifier(max_iter=10, categorical_features="from_dtype", random_state=0).fit(df, y)
    empty = [i for it in est._predictors for p in it for i, n in enumerate(p.nodes)
             if n["is_categorical"] and not n["is_leaf"] and not p.raw_left_cat_bitsets[n["bitset_idx"]].any()]
    assert empty
    model = from_sklearn(est)
    subsets = [n for s in model.stages for t in s for n in iter_nodes(t.root) if isinstance(n, Split) and isinstance(n.test, Subset)]
    assert subsets and all(n.surrogates is not None and n.surrogates.fallback in (0, 1) for n in subsets)
    assert all(0 < len(n.test.left_codes) < len(model.schema.features[n.feature].categories) for n in subsets)


def _models() -> dict[str, Any]:
    X, y, _, _ = _data("wine")
    Xd, yd, _, _ = _data("diabetes", 0.1)
    df, yc = _frame()
    return {
        "gb wine": (GradientBoostingClassifier(n_estimators=10, max_depth=3, random_state=0).fit(X, y), X[:60]),
        "gb diabetes huber": (GradientBoostingRegressor(n_estimators=10, loss="huber", random_state=0).fit(np.nan_to_num(Xd), yd), np.nan_to_num(Xd[:60])),
        "hgb diabetes nan": (HistGradientBoostingRegressor(max_iter=10, random_state=0).fit(Xd, yd), Xd[:60]),
        "hgb categorical": (HistGradientBoostingClassifier(max_iter=10, categorical_features="from_dtype", random_state=0).fit(df, yc), df.iloc[:60]),
    }


MODELS = _models()


@pytest.mark.parametrize("target", ["python", "c"])
@pytest.mark.parametrize("case", sorted(MODELS))
def test_exported_code_verifies_with_no_mismatch(case: str, target: str) -> None:
    est, rows = MODELS[case]
    report = pt.verify(from_sklearn(est), rows, target)
    assert report.n_checked > len(rows) and report.mismatches == [] and report.ok


@pytest.mark.parametrize("case", sorted(MODELS))
def test_saved_and_loaded_is_the_same_model(case: str) -> None:
    model = from_sklearn(MODELS[case][0])
    assert pt.from_json(pt.to_json(model)) == model


def test_refused_with_the_reason() -> None:
    X, y, _, _ = _data("breast_cancer")
    custom = GradientBoostingClassifier(n_estimators=3, init=DummyClassifier(strategy="prior")).fit(X, y)
    with pytest.raises(ParameterError, match="init=DummyClassifier.*custom initial estimator"):
        from_sklearn(custom)
    Xd, yd, _, _ = _data("diabetes")
    with pytest.raises(ParameterError, match="loss 'poisson'"):
        from_sklearn(HistGradientBoostingRegressor(max_iter=3, loss="poisson").fit(Xd, yd))
    with pytest.raises(ParameterError, match="IsolationForest.*anomaly score"):
        from_sklearn(IsolationForest(n_estimators=3, random_state=0).fit(X))
    with pytest.raises(ParameterError, match="not fitted"):
        from_sklearn(HistGradientBoostingClassifier())


def test_interaction_constraints_convert() -> None:
    X, y, held, _ = _data("breast_cancer")
    est = HistGradientBoostingClassifier(max_iter=10, interaction_cst=[[0, 1, 2], [3, 4, 5]], random_state=0).fit(X, y)
    _agrees(est, held)


def test_numeric_columns_named_categorical_keep_their_values() -> None:
    """``categorical_features=[1]`` on a matrix: the categories are the column's values (3, 7,
    10, 12, not codes 0..3); a value unseen at fit (5) and NaN go the missing values' way."""
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=400), rng.choice([3.0, 7.0, 10.0, 12.0], 400)])
    y = X[:, 0] + (X[:, 1] == 7) * 2
    X[rng.random(400) < 0.1, 1] = np.nan
    est = HistGradientBoostingRegressor(max_iter=10, categorical_features=[1], random_state=0).fit(X, y)
    model = from_sklearn(est)
    assert model.schema.features[1].categories == (3.0, 7.0, 10.0, 12.0)
    rows = X.copy()
    rows[:10, 1] = 5.0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.array_equal(bs.decision_function(model, rows), est.predict(rows))
    assert pt.verify(model, X[:50], "c").mismatches == []
    assert pt.from_json(pt.to_json(model)) == model


def test_a_binary_hist_model_predicts_class_1_only_above_zero() -> None:
    """scikit-learn's HGB classifier says class 1 where raw > 0 (GradientBoostingClassifier: >= 0):
    with its trees left out and a baseline of 0, every raw score is 0 and the class is 0."""
    X, y, held, _ = _data("breast_cancer")
    est = HistGradientBoostingClassifier(max_iter=3, random_state=0).fit(X, y)
    est._predictors = []
    est._baseline_prediction = np.zeros_like(est._baseline_prediction)
    model = from_sklearn(est)
    assert model.option("strict_class") is True and bs.strict_class(model)
    assert (est.predict(held) == 0).all() and np.array_equal(bs.predict(model, held), est.predict(held))
    for target in ("python", "c"):
        assert pt.verify(model, held[:20], target).mismatches == []
    gb = GradientBoostingClassifier(n_estimators=3, random_state=0).fit(X, y)
    assert not bs.strict_class(from_sklearn(gb))


def test_a_one_category_feature_split_from_its_missing_values_is_refused() -> None:
    """puretree's subsets send some but not all of a feature's categories left: a split of a
    feature of one category against NaN has no such form (and would not load back from JSON)."""
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"a": rng.normal(size=400), "c": pd.Categorical(np.where(rng.random(400) < 0.5, "only", None))})
    y = df["a"].to_numpy() + df["c"].isna().to_numpy() * 3.0
    est = HistGradientBoostingRegressor(max_iter=5, categorical_features="from_dtype", random_state=0).fit(df, y)
    with pytest.raises(ParameterError, match="categorical feature 'c', of one category"):
        from_sklearn(est)


_X, _Y, _, _ = _data("wine", 0.1)
_HGB = HistGradientBoostingClassifier(max_iter=8, random_state=0).fit(_X, _Y)
_GB = GradientBoostingClassifier(n_estimators=8, max_depth=2, random_state=0).fit(np.nan_to_num(_X), _Y)
_THRESHOLDS = sorted({float(t) for it in _HGB._predictors for p in it for t in p.nodes["num_threshold"][p.nodes["is_leaf"] == 0]}
                     | {float(t) for row in _GB.estimators_ for e in row for t in e.tree_.threshold[e.tree_.children_left >= 0]})


@st.composite
def _rows(draw: Any, nan: bool) -> np.ndarray:
    """Rows of wine's 13 features: thresholds, their float32 and double neighbours, any finite
    double (and NaN for the HGB model)."""
    near = st.sampled_from(_THRESHOLDS).flatmap(lambda t: st.sampled_from([t, float(np.nextafter(t, np.inf)), float(np.nextafter(t, -np.inf)),
                                                                             float(np.float32(t)), float(np.nextafter(np.float32(t), np.float32(np.inf)))]))
    value = st.one_of(near, st.floats(-1e6, 1e6), *([st.just(float("nan"))] if nan else []))
    return np.array(draw(st.lists(st.lists(value, min_size=13, max_size=13), min_size=1, max_size=8)), dtype=np.float64)


@settings(deadline=None)
@given(rows=_rows(nan=True))
def test_hist_model_scores_any_row_as_scikit_learn(rows: np.ndarray) -> None:
    assert np.array_equal(bs.decision_function(_converted(_HGB), rows), _HGB.decision_function(rows))


@settings(deadline=None)
@given(rows=_rows(nan=False))
def test_gradient_boosting_scores_any_row_as_scikit_learn(rows: np.ndarray) -> None:
    assert np.array_equal(bs.decision_function(_converted(_GB), rows), _GB.decision_function(rows))


_CONVERTED: dict[int, bs.Boosted] = {}


def _converted(est: Any) -> bs.Boosted:
    if id(est) not in _CONVERTED:
        _CONVERTED[id(est)] = from_sklearn(est)
    return _CONVERTED[id(est)]


@pytest.mark.parametrize("kind", [GradientBoostingClassifier, HistGradientBoostingClassifier])
@pytest.mark.parametrize("dataset", ["breast_cancer", "wine"])
def test_string_class_labels_are_kept(kind: Any, dataset: str) -> None:
    X, y, held, _ = _data(dataset)
    labels = np.array(["low", "mid", "top"])[y]
    est = kind(random_state=0, **({"n_estimators": 10} if kind is GradientBoostingClassifier else {"max_iter": 10})).fit(X, labels)
    model = _agrees(est, held)
    assert model.classes == tuple(sorted(set(labels.tolist())))
