"""Issue 29: scikit-learn's forests, extra trees, bagging and AdaBoost of trees as puretree
ensembles that predict as scikit-learn does (probabilities within 1e-12, classes equal)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine
from sklearn.ensemble import (
    AdaBoostClassifier,
    AdaBoostRegressor,
    BaggingClassifier,
    BaggingRegressor,
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    IsolationForest,
    RandomForestClassifier,
    RandomForestRegressor,
)
from sklearn.neighbors import KNeighborsClassifier
from sklearn.tree import DecisionTreeClassifier, ExtraTreeClassifier

import puretree as pt
from puretree.ensemble import Ensemble
from puretree.errors import ParameterError
from puretree.sklearn import from_sklearn

LOADERS = {"breast_cancer": load_breast_cancer, "wine": load_wine, "diabetes": load_diabetes}


def _split(name: str, nan: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    X, y = LOADERS[name](return_X_y=True)
    X = np.array(X, dtype=np.float64)
    if nan:
        X[np.random.default_rng(2).random(X.shape) < nan] = np.nan
    if name != "diabetes":
        y = np.array(["c" + str(v) for v in y])  # string labels: the ensemble's classes are the labels, not the members' indices
    rows = np.random.default_rng(1).permutation(len(X))
    train, held = rows[: len(X) * 2 // 3], rows[len(X) * 2 // 3 :]
    return X[train], y[train], X[held], y[held]


CLASSIFIERS = {
    "forest": lambda: RandomForestClassifier(n_estimators=15, max_depth=6, random_state=0),
    "extra_trees": lambda: ExtraTreesClassifier(n_estimators=15, random_state=0),
    "bagging": lambda: BaggingClassifier(DecisionTreeClassifier(), n_estimators=10, random_state=0),
    "bagging_features": lambda: BaggingClassifier(DecisionTreeClassifier(max_depth=5), n_estimators=10, max_features=0.5, random_state=0),
    "bagging_bootstrap_features": lambda: BaggingClassifier(ExtraTreeClassifier(), n_estimators=10, max_features=0.7, bootstrap_features=True, random_state=0),
    "adaboost_stumps": lambda: AdaBoostClassifier(n_estimators=30, random_state=0),
    "adaboost_trees": lambda: AdaBoostClassifier(DecisionTreeClassifier(max_depth=3), n_estimators=20, learning_rate=0.5, random_state=0),
}
REGRESSORS = {
    "forest": lambda: RandomForestRegressor(n_estimators=15, max_depth=6, random_state=0),
    "extra_trees": lambda: ExtraTreesRegressor(n_estimators=15, random_state=0),
    "bagging": lambda: BaggingRegressor(n_estimators=10, random_state=0),
    "bagging_features": lambda: BaggingRegressor(n_estimators=10, max_features=0.5, random_state=0),
    "bagging_bootstrap_features": lambda: BaggingRegressor(n_estimators=10, max_features=0.7, bootstrap_features=True, random_state=0),
}
METHOD = {"forest": "forest", "extra_trees": "forest", "adaboost_stumps": "adaboost", "adaboost_trees": "adaboost"}


def _close(got: np.ndarray, expected: np.ndarray) -> None:
    assert got.shape == expected.shape
    assert np.all(np.abs(got - expected) <= 1e-12 * np.maximum(np.abs(expected), 1.0)), np.max(np.abs(got - expected))


@pytest.mark.parametrize("data", ["breast_cancer", "wine"])
@pytest.mark.parametrize("kind", sorted(CLASSIFIERS))
def test_classifiers_predict_as_scikit_learn(kind: str, data: str) -> None:
    Xt, yt, Xh, _ = _split(data)
    theirs = CLASSIFIERS[kind]().fit(Xt, yt)
    ours = from_sklearn(theirs)
    assert isinstance(ours, Ensemble) and ours.method == METHOD.get(kind, "bagging")
    assert ours.classes == tuple(theirs.classes_.tolist()) and len(ours.members) == len(theirs.estimators_)
    X = np.vstack([Xh, Xt[:50]])
    _close(ours.predict_proba(X), theirs.predict_proba(X))
    assert np.array_equal(ours.predict(X), theirs.predict(X))
    if kind.startswith("bagging_"):  # the members saw feature subsets: some split on a column past their own count
        assert any(not np.array_equal(f, np.arange(len(f))) for f in theirs.estimators_features_)


@pytest.mark.parametrize("kind", sorted(REGRESSORS))
def test_regressors_predict_as_scikit_learn(kind: str) -> None:
    Xt, yt, Xh, _ = _split("diabetes")
    theirs = REGRESSORS[kind]().fit(Xt, yt)
    ours = from_sklearn(theirs)
    assert isinstance(ours, Ensemble) and ours.schema.is_regression
    X = np.vstack([Xh, Xt[:50]])
    _close(ours.predict(X), theirs.predict(X))


@pytest.mark.parametrize("make", [lambda: RandomForestClassifier(n_estimators=10, random_state=0), lambda: BaggingClassifier(DecisionTreeClassifier(), n_estimators=5, max_features=0.6, random_state=0)], ids=["forest", "bagging"])
def test_missing_values_follow_each_split_s_learned_side(make) -> None:
    """scikit-learn's trees learn where NaN goes at each split; the converted members keep it."""
    Xt, yt, Xh, _ = _split("breast_cancer", nan=0.1)
    theirs = make().fit(Xt, yt)
    ours = from_sklearn(theirs)
    _close(ours.predict_proba(Xh), theirs.predict_proba(Xh))
    assert np.isnan(Xh).any()


def test_a_member_that_saw_some_classes_only() -> None:
    """A bagging member grown on rows of two classes of three: its probabilities go to those
    classes' columns, as scikit-learn's _parallel_predict_proba adds them."""

    class FewClasses(DecisionTreeClassifier):  # sample_weight unsupported: bagging fits each member on its rows only
        def fit(self, X, y, check_input=True):  # type: ignore[override]
            return super().fit(X, y)

    X, y = load_wine(return_X_y=True)
    y = np.where(y == 2, 1, y)
    y[np.flatnonzero(y == 1)[:3]] = 2  # a class of three rows: some members' rows miss it
    theirs = BaggingClassifier(FewClasses(max_depth=3), n_estimators=8, max_samples=40, bootstrap=False, random_state=3).fit(X, y)
    assert any(len(m.classes_) < 3 for m in theirs.estimators_)
    ours = from_sklearn(theirs)
    _close(ours.predict_proba(X), theirs.predict_proba(X))
    assert np.array_equal(ours.predict(X), theirs.predict(X))


def test_adaboost_that_stopped_early_divides_by_every_round() -> None:
    """A perfect first stump stops the boosting: weight 1, the other rounds zeros in the total."""
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    y = np.array(["a", "a", "b", "b"])
    theirs = AdaBoostClassifier(n_estimators=10, random_state=0).fit(X, y)
    ours = from_sklearn(theirs)
    assert (len(ours.members), ours.weights, ours.option("n_rounds")) == (1, (1.0,), 10)
    _close(ours.predict_proba(X), theirs.predict_proba(X))


def test_feature_names_come_from_the_frame() -> None:
    import pandas as pd

    X, y = load_breast_cancer(return_X_y=True, as_frame=True)
    theirs = RandomForestClassifier(n_estimators=3, max_depth=3, random_state=0).fit(X, y)
    ours = from_sklearn(theirs)
    assert ours.schema.feature_names == tuple(X.columns)
    assert isinstance(X, pd.DataFrame)
    _close(ours.predict_proba(X), theirs.predict_proba(X))


@pytest.mark.parametrize("target", ["python", "c"])
def test_converted_ensembles_save_load_and_verify(target: str) -> None:
    """A converted bagging of feature subsets is an ordinary puretree ensemble: saved and read
    back equal, and its generated code passes verify (NaN rows and threshold neighbours included)."""
    Xt, yt, Xh, _ = _split("wine", nan=0.05)
    ours = from_sklearn(BaggingClassifier(DecisionTreeClassifier(max_depth=4), n_estimators=4, max_features=0.5, random_state=0).fit(Xt, yt))
    assert pt.from_json(pt.to_json(ours)) == ours
    report = pt.verify(ours, Xh, target)
    assert report.n_mismatches == 0 and report.n_checked > len(Xh)


@pytest.mark.parametrize(
    ("model", "words"),
    [
        (lambda: IsolationForest(n_estimators=5, random_state=0), "anomaly score"),
        (lambda: AdaBoostRegressor(n_estimators=3, random_state=0), "weighted median"),
        (lambda: BaggingClassifier(KNeighborsClassifier(), n_estimators=2, random_state=0), "not a decision tree"),
        (lambda: KNeighborsClassifier(), "expected a fitted scikit-learn tree or ensemble of trees"),
    ],
    ids=["isolation", "adaboost_regressor", "bagging_neighbours", "neighbours"],
)
def test_what_cannot_be_represented_is_refused_with_the_reason(model, words: str) -> None:
    X, y = load_breast_cancer(return_X_y=True)
    est = model()
    est.fit(X, y)
    with pytest.raises(ParameterError, match=words):
        from_sklearn(est)


def test_an_unfitted_ensemble_is_refused() -> None:
    with pytest.raises(ParameterError, match="expected a fitted"):
        from_sklearn(RandomForestClassifier())
