"""The histogram gradient boosting estimators (puretree.estimators.HistGradientBoostingClassifier
and HistGradientBoostingRegressor, issue 28) pass scikit-learn's estimator checks, wrap
puretree.hist_gradient_boosting, and name their fitted state as scikit-learn's."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_iris
from sklearn.utils.estimator_checks import estimator_checks_generator

import puretree as pt
from puretree.errors import ParameterError
from puretree.estimators import HistGradientBoostingClassifier, HistGradientBoostingRegressor

# Few stages: the checks fit many times.
ESTIMATORS = [HistGradientBoostingClassifier(max_iter=10), HistGradientBoostingRegressor(max_iter=10)]


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


def test_the_estimator_is_the_function():
    X, y = load_iris(return_X_y=True)
    X = X.copy()
    X[::7, 1] = np.nan
    clf = HistGradientBoostingClassifier(max_iter=8, min_samples_leaf=5).fit(X, y)
    model = pt.hist_gradient_boosting(X, y, max_iter=8, min_samples_leaf=5, random_state=0)
    assert np.array_equal(clf.decision_function(X), model.decision_function(X))
    assert np.array_equal(clf.predict_proba(X), model.predict_proba(X))
    assert clf.n_iter_ == 8 and clf.n_trees_per_iteration_ == 3


def test_staged_predictions_end_at_the_final_ones():
    X, y = load_breast_cancer(return_X_y=True)
    clf = HistGradientBoostingClassifier(max_iter=500, early_stopping=True, n_iter_no_change=3, learning_rate=0.5).fit(X, y)
    staged = list(clf.staged_predict_proba(X))
    assert len(staged) == clf.n_iter_ < 500
    assert np.array_equal(staged[-1], clf.predict_proba(X))
    assert np.array_equal(list(clf.staged_predict(X))[-1], clf.predict(X))
    reg = HistGradientBoostingRegressor(max_iter=5).fit(X, y.astype(float))
    assert np.array_equal(list(reg.staged_predict(X))[-1], reg.predict(X))


def test_categorical_features_split_natively():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 6, 400).astype(float), rng.normal(size=400)])
    y = np.isin(X[:, 0], [1.0, 4.0]).astype(int)  # no threshold on the codes separates these
    clf = HistGradientBoostingClassifier(categorical_features=[0], max_iter=3, min_samples_leaf=5).fit(X, y)
    model = pt.hist_gradient_boosting(X, y, categorical_features=[0], max_iter=3, min_samples_leaf=5, random_state=0)
    assert np.array_equal(clf.predict_proba(X), model.predict_proba(X)) and np.array_equal(clf.predict(X), y)
    assert clf.model_.stages[0][0].root.test.kind == "subset"
    with pytest.raises(ParameterError, match="categorical_features"):
        HistGradientBoostingClassifier(categorical_features=["nope"]).fit(X, y)


def test_the_three_signatures_share_one_table_of_defaults():
    # hist_gradient_boosting, puretree.dask's and the two estimators: every option's default is
    # DEFAULTS' (dask's early_stopping alone differs: it grows without), and each is keyword-only
    import importlib
    import inspect

    import puretree.dask

    defaults = importlib.import_module("puretree.hist_gradient_boosting").DEFAULTS
    signatures = {f: inspect.signature(f) for f in (pt.hist_gradient_boosting, puretree.dask.hist_gradient_boosting, HistGradientBoostingClassifier.__init__, HistGradientBoostingRegressor.__init__)}
    for f, signature in signatures.items():
        shared = {name: p for name, p in signature.parameters.items() if name in defaults}
        assert len(shared) >= 11, f
        for name, p in shared.items():
            assert p.kind is inspect.Parameter.KEYWORD_ONLY, (f, name)
            expected = False if (f is puretree.dask.hist_gradient_boosting and name == "early_stopping") else defaults[name]
            assert p.default == expected and type(p.default) is type(expected), (f, name, p.default)
    assert set(defaults) <= set(signatures[pt.hist_gradient_boosting].parameters) and set(defaults) <= set(signatures[HistGradientBoostingClassifier.__init__].parameters)
    assert HistGradientBoostingRegressor().get_params()["max_leaf_nodes"] == defaults["max_leaf_nodes"] == 31
