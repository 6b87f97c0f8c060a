"""The ensemble estimators (RandomForest*, ExtraTrees*, Bagging*, AdaBoostClassifier in
puretree.estimators) pass scikit-learn's own estimator checks with no expected failure, and
answer as the puretree ensembles they wrap."""

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import load_diabetes, load_iris
from sklearn.model_selection import GridSearchCV
from sklearn.utils.estimator_checks import estimator_checks_generator

import puretree as pt
from puretree.estimators import (
    AdaBoostClassifier,
    BaggingClassifier,
    BaggingRegressor,
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)

ESTIMATORS = [RandomForestClassifier(), RandomForestRegressor(), ExtraTreesClassifier(), ExtraTreesRegressor(), BaggingClassifier(), BaggingRegressor(), AdaBoostClassifier()]


def scikit_learn_checks():
    for estimator in ESTIMATORS:
        for item in estimator_checks_generator(estimator, mark="xfail", xfail_strict=True):
            est, check = getattr(item, "values", item)
            name = check.func.__name__
            if name != "check_array_api_input":  # runs only with SCIPY_ARRAY_API set; no array-API support is declared
                yield pytest.param(est, check, id=f"{type(est).__name__}-{name}")


@pytest.mark.parametrize("estimator, check", list(scikit_learn_checks()))
def test_scikit_learn_checks(estimator, check):
    check(estimator)


def test_extra_trees_are_puretrees_extra_trees_with_scikit_learns_parameters():
    from sklearn.ensemble import ExtraTreesClassifier as SkClassifier
    from sklearn.ensemble import ExtraTreesRegressor as SkRegressor

    X, y = load_iris(return_X_y=True)
    est = ExtraTreesClassifier(n_estimators=6, random_state=2, max_depth=3).fit(X, y)
    assert est.ensemble_ == pt.ensemble.extra_trees(X, y, n_trees=6, seed=2, max_depth=3)
    assert est.oob_score_ is None and len(est.estimators_) == 6
    Xd, yd = load_diabetes(return_X_y=True)
    reg = ExtraTreesRegressor(n_estimators=4, random_state=1, max_depth=2).fit(Xd, yd)
    assert reg.ensemble_ == pt.ensemble.extra_trees(pt.from_numpy(Xd, yd, task="regression"), n_trees=4, seed=1, max_depth=2, max_features=None)
    # The parameters they share with scikit-learn's have scikit-learn's names and defaults.
    for ours, theirs in ((ExtraTreesClassifier(), SkClassifier()), (ExtraTreesRegressor(), SkRegressor())):
        mine, sk = ours.get_params(), theirs.get_params()
        shared = {"n_estimators", "max_depth", "min_samples_split", "max_features", "bootstrap", "random_state", "n_jobs"}
        assert shared <= set(mine) and all(mine[k] == sk[k] for k in shared - {"min_samples_split"}), {k: (mine[k], sk[k]) for k in shared}


def test_the_forest_is_puretrees_forest():
    X, y = load_iris(return_X_y=True)
    est = RandomForestClassifier(n_estimators=7, random_state=3, max_depth=4).fit(X, y)
    ens = pt.ensemble.random_forest(X, y, n_trees=7, seed=3, max_depth=4)
    assert est.ensemble_ == ens
    np.testing.assert_array_equal(est.predict_proba(X), pt.predict_proba(ens, X))
    assert est.oob_score_ == ens.oob_score and len(est.estimators_) == 7


def test_bagging_and_boosting_are_puretrees():
    X, y = load_iris(return_X_y=True)
    assert BaggingClassifier(n_estimators=4, random_state=1).fit(X, y).ensemble_ == pt.ensemble.bagging(X, y, n_trees=4, seed=1)
    assert AdaBoostClassifier(n_estimators=6).fit(X, y).ensemble_ == pt.ensemble.adaboost(X, y, n_rounds=6)
    Xr, yr = load_diabetes(return_X_y=True)
    reg = RandomForestRegressor(n_estimators=3, random_state=0, max_depth=3).fit(Xr, yr)
    np.testing.assert_allclose(reg.predict(Xr), pt.predict(pt.ensemble.random_forest(Xr, yr, n_trees=3, seed=0, max_depth=3, max_features=None, task="regression"), Xr))
    assert BaggingRegressor(n_estimators=3).fit(Xr, yr).score(Xr, yr) > 0.5


def test_a_grid_search_takes_them():
    X, y = load_iris(return_X_y=True)
    search = GridSearchCV(RandomForestClassifier(n_estimators=5), {"max_depth": [1, 3], "max_features": ["sqrt", None]}, cv=3).fit(X, y)
    assert sorted(search.best_params_) == ["max_depth", "max_features"] and search.best_score_ > 0.8
    assert clone(AdaBoostClassifier(learning_rate=0.5)).get_params()["learning_rate"] == 0.5
