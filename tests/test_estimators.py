"""TreeClassifier and TreeRegressor follow scikit-learn's estimator API (its own checks, and
the tools that take estimators); to_sklearn gives scikit-learn trees that predict as ours;
scikit-learn stays out of ``import puretree``."""

import json
import pickle
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import estimator_checks_generator

from puretree.datasets import load_playtennis
from puretree.errors import ParameterError, PuretreeError
from puretree.grow import c45, cart, id3
from puretree.importance import feature_importances
from puretree.tree import Tree
from puretree.predict import predict, predict_proba
from puretree.prune import cost_complexity, pessimistic
from puretree.sklearn import TreeClassifier, TreeRegressor, UnsupportedTreeError, from_sklearn, to_sklearn

#: The checks our estimators are known to fail, each with its reason, given to scikit-learn's
#: own mechanism (``expected_failed_checks``: the check is marked xfail, strictly).
EXPECTED_FAILURES: dict[str, str] = {}
ESTIMATORS = [TreeClassifier(), TreeRegressor(), TreeClassifier(algorithm="c45"), TreeClassifier(algorithm="id3"), TreeRegressor(algorithm="id3")]


def expected_failures(estimator):
    return EXPECTED_FAILURES if isinstance(estimator, TreeClassifier) and estimator.algorithm == "cart" else {}


def scikit_learn_checks():
    """Every check of scikit-learn's suite for each estimator but the array API one, which runs
    only where SCIPY_ARRAY_API is set (it skips otherwise) and tests a support the estimators
    do not declare (their array_api_support tag is False)."""
    for estimator in ESTIMATORS:
        for item in estimator_checks_generator(estimator, expected_failed_checks=expected_failures(estimator), mark="xfail", xfail_strict=True):
            marks = getattr(item, "marks", ())
            est, check = getattr(item, "values", item)
            name = check.func.__name__
            if name != "check_array_api_input":
                yield pytest.param(est, check, marks=marks, id=f"{est!r}-{name}")


@pytest.mark.parametrize("estimator, check", list(scikit_learn_checks()))
def test_scikit_learn_checks(estimator, check):
    check(estimator)


def test_at_most_three_expected_failures_each_with_a_reason():
    assert len(EXPECTED_FAILURES) <= 3
    assert all(len(reason) > 40 for reason in EXPECTED_FAILURES.values())


def blobs(seed, n=80, k=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = rng.normal(size=(n, 3)) + y[:, None] * 1.5
    return X, np.array(["ant", "bee", "cat"])[y]


# -- the estimator API ---------------------------------------------------------------------


def test_fitted_attributes():
    X, y = blobs(0)
    clf = TreeClassifier(max_depth=3).fit(X, y)
    assert isinstance(clf.tree_, Tree)
    assert clf.classes_.tolist() == ["ant", "bee", "cat"]
    assert clf.n_features_in_ == 3
    assert not hasattr(clf, "feature_names_in_")  # an array has no names
    assert clf.feature_importances_.tolist() == list(feature_importances(clf.tree_).values())
    assert clf.feature_importances_.sum() == pytest.approx(1.0)
    assert clf.predict_proba(X).shape == (80, 3)
    assert clf.score(X, y) == np.mean(clf.predict(X) == y)
    assert clf.get_params()["algorithm"] == "cart"
    assert clf.set_params(max_depth=1).max_depth == 1


def test_a_dataframe_names_the_features_and_its_categorical_columns_are_categories():
    rng = np.random.default_rng(1)
    n = 60
    grade = pd.Categorical(rng.choice([1, 2, 3], n), categories=[1, 2, 3])
    df = pd.DataFrame({"grade": grade, "size": rng.normal(size=n), "colour": rng.choice(["red", "blue"], n)})
    y = np.where(np.asarray(grade) == 2, "yes", "no")
    clf = TreeClassifier().fit(df, y)
    features = {f.name: f for f in clf.tree_.schema.features}
    assert clf.feature_names_in_.tolist() == ["grade", "size", "colour"]
    # Categories, even the numbers 1, 2, 3: a subset split on them, not a threshold.
    assert features["grade"].kind == "categorical" and features["grade"].categories == (1, 2, 3)
    assert features["colour"].kind == "categorical" and features["size"].kind == "numeric"
    assert clf.tree_.root.feature == 0 and clf.tree_.root.test.kind == "subset"
    assert clf.predict(df).tolist() == y.tolist()
    # scikit-learn's rule: the columns of fit, in the same order
    with pytest.raises(ValueError, match="same order"):
        clf.predict(df[["colour", "size", "grade"]])


def test_regressor():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(100, 2))
    y = np.where(X[:, 0] > 0, 5.0, -1.0) + 0.01 * rng.normal(size=100)
    reg = TreeRegressor(max_depth=2).fit(X, y)
    assert reg.tree_.schema.is_regression
    assert reg.predict(X).tolist() == predict(cart(X, y, task="regression", max_depth=2), X).tolist()
    assert reg.score(X, y) > 0.99
    assert reg.feature_importances_.argmax() == 0


@pytest.mark.parametrize("algorithm, grower", [("cart", cart), ("c45", c45), ("id3", id3)])
def test_each_algorithm_grows_the_presets_tree(algorithm, grower):
    X, y = blobs(3)
    clf = TreeClassifier(algorithm=algorithm, max_depth=4).fit(X, y)
    assert clf.tree_ == grower(X, y, max_depth=4)


def test_post_pruning_options():
    X, y = blobs(4, n=150)
    grown = c45(X, y)
    assert TreeClassifier(algorithm="c45", prune="pessimistic", cf=0.1).fit(X, y).tree_ == pessimistic(grown, X, y, cf=0.1)
    assert TreeClassifier(ccp_alpha=0.02).fit(X, y).tree_ == cost_complexity(cart(X, y), 0.02)


def test_bad_options_name_the_closest_choice():
    X, y = blobs(5)
    with pytest.raises(ParameterError, match="algorithm must be one of .*got 'cat' \\(did you mean 'cart'\\?\\)"):
        TreeClassifier(algorithm="cat").fit(X, y)
    with pytest.raises(ParameterError, match="did you mean 'pessimistic'"):
        TreeClassifier(prune="pesimistic").fit(X, y)
    with pytest.raises(ParameterError, match="max_depth"):
        TreeClassifier(max_depth=-1).fit(X, y)


def test_pipeline_grid_search_cross_validation_clone_and_pickle():
    X, y = blobs(6, n=120)
    pipe = make_pipeline(FunctionTransformer(np.abs), TreeClassifier(max_depth=2))
    assert pipe.fit(X, y).predict(X).tolist() == predict(cart(np.abs(X), y, max_depth=2), np.abs(X)).tolist()
    search = GridSearchCV(TreeClassifier(), {"max_depth": [1, 3], "algorithm": ["cart", "c45"]}, cv=3).fit(X, y)
    assert search.best_params_["max_depth"] in (1, 3)
    assert isinstance(search.best_estimator_.tree_, Tree)
    scores = cross_val_score(TreeRegressor(max_depth=3), X, np.abs(X[:, 0]), cv=4)
    assert len(scores) == 4 and np.all(np.isfinite(scores))
    fitted = TreeClassifier(max_depth=2, algorithm="id3").fit(X, y)
    fresh = clone(fitted)
    assert fresh.get_params() == fitted.get_params() and not hasattr(fresh, "tree_")
    again = pickle.loads(pickle.dumps(fitted))
    assert again.predict(X).tolist() == fitted.predict(X).tolist()


@pytest.mark.parametrize("ours, theirs", [("TreeClassifier", "DecisionTreeClassifier"), ("TreeRegressor", "DecisionTreeRegressor")])
def test_every_decision_tree_parameter_of_scikit_learn_is_taken(ours, theirs):
    import sklearn.tree

    import puretree.sklearn

    sk = getattr(sklearn.tree, theirs)()
    mine = getattr(puretree.sklearn, ours)()
    assert set(sk.get_params()) <= set(mine.get_params()), set(sk.get_params()) - set(mine.get_params())
    methods = {"apply", "decision_path", "get_depth", "get_n_leaves", "cost_complexity_pruning_path", "predict", "score", "fit"}
    if theirs.endswith("Classifier"):
        methods |= {"predict_proba", "predict_log_proba"}
    assert all(callable(getattr(mine, m, None)) for m in methods), [m for m in methods if not hasattr(mine, m)]


def test_a_grid_from_a_scikit_learn_tutorial_runs_unchanged():
    # The grid of scikit-learn's examples on tuning a decision tree, names and values as given there.
    from sklearn.datasets import load_iris

    X, y = load_iris(return_X_y=True)
    grid = {
        "criterion": ["gini", "entropy"],
        "max_depth": [None, 2, 4],
        "min_samples_split": [2, 10],
        "min_samples_leaf": [1, 5],
        "max_features": [None, "sqrt"],
        "ccp_alpha": [0.0, 0.01],
    }
    search = GridSearchCV(TreeClassifier(random_state=0), grid, cv=3).fit(X, y)
    assert set(search.best_params_) == set(grid) and search.best_score_ > 0.9


#: A grid over every parameter of scikit-learn 1.9's decision trees, values as its documentation
#: and tutorials give them (one list of values per parameter, the others at their defaults).
EVERY_PARAMETER = {
    "DecisionTreeClassifier": {
        "criterion": ["gini", "entropy", "log_loss"],
        "splitter": ["best", "random"],
        "max_depth": [None, 3],
        "min_samples_split": [2, 0.1],
        "min_samples_leaf": [1, 5, 0.05],
        "min_weight_fraction_leaf": [0.0, 0.1],
        "max_features": [None, "sqrt", "log2", 2, 0.5],
        "random_state": [None, 0],
        "max_leaf_nodes": [None, 5],
        "min_impurity_decrease": [0.0, 0.01],
        "class_weight": [None, "balanced", {0: 1.0, 1: 2.0}],
        "ccp_alpha": [0.0, 0.01],
        "monotonic_cst": [None, [1, 0, 0, 0]],
    },
    "DecisionTreeRegressor": {
        "criterion": ["squared_error", "absolute_error", "poisson"],
        "splitter": ["best", "random"],
        "max_depth": [None, 3],
        "min_samples_split": [2, 0.1],
        "min_samples_leaf": [1, 5, 0.05],
        "min_weight_fraction_leaf": [0.0, 0.1],
        "max_features": [None, "sqrt", "log2", 2, 0.5],
        "random_state": [None, 0],
        "max_leaf_nodes": [None, 5],
        "min_impurity_decrease": [0.0, 0.01],
        "ccp_alpha": [0.0, 0.01],
        "monotonic_cst": [None, [1, 0, 0, 0]],
    },
}


@pytest.mark.parametrize("ours, theirs", [("TreeClassifier", "DecisionTreeClassifier"), ("TreeRegressor", "DecisionTreeRegressor")])
def test_a_grid_over_every_decision_tree_parameter_runs_unchanged(ours, theirs):
    """The same grid, every parameter name of scikit-learn 1.9's tree among its keys, searched
    with scikit-learn's tree and with puretree's: every candidate fits (errors raise)."""
    import sklearn.tree
    from sklearn.datasets import load_breast_cancer, load_diabetes

    import puretree.sklearn

    grid = [{name: values} for name, values in EVERY_PARAMETER[theirs].items()]
    sk = getattr(sklearn.tree, theirs)()
    assert {name for g in grid for name in g} == set(sk.get_params())
    # (two classes: scikit-learn takes monotonic_cst for binary classification only)
    X, y = load_breast_cancer(return_X_y=True) if theirs.endswith("Classifier") else load_diabetes(return_X_y=True)
    X = X[:, :4]
    candidates = sum(len(v) for v in EVERY_PARAMETER[theirs].values())
    for est in (sk, getattr(puretree.sklearn, ours)()):
        search = GridSearchCV(est, grid, cv=3, error_score="raise").fit(X, y)
        assert len(search.cv_results_["params"]) == candidates and np.isfinite(search.cv_results_["mean_test_score"]).all()


def test_max_features_draws_each_nodes_features_as_grow_does():
    X, y = blobs(3, n=150)
    for seed in (0, 5):
        clf = TreeClassifier(max_features=1, random_state=seed).fit(X, y)
        assert clf.tree_ == cart(X, y, max_features=1, seed=seed)
    assert TreeClassifier(max_features=None).fit(X, y).tree_ == cart(X, y)
    assert TreeClassifier(max_features=1, random_state=0).fit(X, y).tree_ != TreeClassifier(max_features=1, random_state=5).fit(X, y).tree_
    with pytest.raises(ParameterError, match="max_features=7 is more than the 3 features"):
        TreeClassifier(max_features=7).fit(X, y)


def test_predict_log_proba_is_the_log_of_predict_proba_as_scikit_learns():
    from sklearn.tree import DecisionTreeClassifier

    X, y = blobs(4, n=90)
    clf = TreeClassifier(max_depth=2).fit(X, y)
    sk = DecisionTreeClassifier(max_depth=2).fit(X, y)
    with np.errstate(divide="ignore"):
        assert np.array_equal(clf.predict_log_proba(X), np.log(clf.predict_proba(X)))
    got = clf.predict_log_proba(X)
    with np.errstate(divide="ignore"):  # scikit-learn takes the log of its zero probabilities with numpy's warning
        theirs = sk.predict_log_proba(X)
    assert got.dtype == theirs.dtype and got.shape == theirs.shape
    assert np.isneginf(got).any() == np.isneginf(theirs).any()


@settings(max_examples=25, deadline=None)
@given(
    seed=st.integers(0, 2**16),
    n=st.integers(2, 60),
    k=st.integers(1, 4),
    missing=st.floats(0, 0.3),
    frame=st.booleans(),
)
def test_tree_classifier_predicts_exactly_as_cart(seed, n, k, missing, frame):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3)).round(1)  # repeated values: ties in the scores
    X[rng.random(X.shape) < missing] = np.nan
    y = rng.integers(0, k, n)
    Z = np.vstack([X, rng.normal(size=(20, 3)).round(1)])
    if frame:  # a DataFrame whose third column is categorical (numbers as categories)
        def as_frame(A):
            codes = np.where(np.isnan(A[:, 2]), np.nan, np.abs(A[:, 2] * 10) % 4)
            return pd.DataFrame({"a": A[:, 0], "b": A[:, 1], "c": pd.Categorical(codes, categories=[0.0, 1.0, 2.0, 3.0])})

        X, Z = as_frame(X), as_frame(Z)
    clf = TreeClassifier().fit(X, y)
    tree = cart(X, y)
    assert clf.tree_ == tree
    if frame:
        assert tree.schema.features[2].kind == "categorical"
    # Z's categorical codes may be ones the fit never saw: parity, not the warning, is the point here
    assert clf.predict(Z, unseen="ignore").tolist() == predict(tree, Z, unseen="ignore").tolist()
    np.testing.assert_array_equal(clf.predict_proba(Z, unseen="ignore"), predict_proba(tree, Z, unseen="ignore"))


# -- to_sklearn ------------------------------------------------------------------------------


def around_thresholds(tree, X, rng):
    """Float32 rows carrying, at each split's feature, the threshold's float32 neighbours."""
    rows = []
    for node in _splits(tree.root):
        t = np.float32(node.test.value)
        for v in (t, np.nextafter(t, np.float32(-np.inf)), np.nextafter(t, np.float32(np.inf))):
            row = X[rng.integers(len(X))].copy()
            row[node.feature] = v
            rows.append(row)
    return np.array(rows, dtype=np.float32).reshape(-1, X.shape[1])


def _splits(node):
    stack = [node]
    while stack:
        n = stack.pop()
        if hasattr(n, "test"):
            yield n
            stack.extend(n.children)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**16), regression=st.booleans(), depth=st.sampled_from([None, 1, 3]), scale=st.sampled_from([1e-3, 1.0, 1e5]))
def test_to_sklearn_predicts_exactly_as_puretree_on_float32(seed, regression, depth, scale):
    rng = np.random.default_rng(seed)
    X = (rng.normal(size=(80, 3)) * scale).astype(np.float32)
    X[rng.random(X.shape) < 0.1] = np.nan  # missing values go down the heavier branch in both
    if regression:
        y = np.nan_to_num(X[:, 0]).astype(np.float64) * 2 + rng.normal(size=80)
        tree = cart(X, y, task="regression", max_depth=depth)
    else:
        y = rng.choice(["p", "q", "r"], 80)
        tree = cart(X, y, max_depth=depth)
    est = to_sklearn(tree)
    Z = np.vstack([X, around_thresholds(tree, X, rng)])
    assert est.predict(Z).tolist() == predict(tree, Z).tolist()
    if not regression:
        np.testing.assert_allclose(est.predict_proba(Z), predict_proba(tree, Z), rtol=1e-15, atol=0)
        assert est.classes_.tolist() == list(tree.schema.classes)
    # and back: from_sklearn of it decides as the tree on these inputs
    back = from_sklearn(est, feature_names=tree.schema.feature_names, missing=tree.missing)
    assert predict(back, Z).tolist() == predict(tree, Z).tolist()


def test_to_sklearn_feature_importances_follow_the_criterion():
    X, y = blobs(7)
    tree = cart(X, y, max_depth=3)
    est = to_sklearn(tree)
    assert est.criterion == "gini"
    np.testing.assert_allclose(est.feature_importances_, list(feature_importances(tree).values()), rtol=1e-12)


def test_to_sklearn_refuses_by_name_what_it_cannot_express():
    tennis = load_playtennis()
    with pytest.raises(UnsupportedTreeError, match="multiway split on the categorical column 'outlook'"):
        to_sklearn(id3(tennis))
    with pytest.raises(UnsupportedTreeError, match="subset split on the categorical column"):
        to_sklearn(cart(tennis))
    X, y = blobs(8)
    with pytest.raises(UnsupportedTreeError, match="'distribute'"):
        to_sklearn(c45(X, y))
    assert issubclass(UnsupportedTreeError, PuretreeError)
    # a tree that refuses missing values converts; scikit-learn's sends them down the heavier branch
    strict = cart(X, y, max_depth=2, missing="error")
    assert to_sklearn(strict).predict(X).tolist() == predict(strict, X).tolist()
    with pytest.raises(ParameterError, match="expects a puretree Tree"):
        to_sklearn("tree.json")


# -- scikit-learn stays optional -------------------------------------------------------------


def test_import_puretree_does_not_import_scikit_learn():
    code = (
        "import sys, json, numpy as np, puretree, puretree.sklearn\n"
        "tree = puretree.cart(np.array([[1.0], [2.0], [3.0]]), ['a', 'b', 'b'])\n"
        "print(json.dumps([m for m in sys.modules if m == 'sklearn' or m.startswith('sklearn.')]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert json.loads(out.stdout) == []
    # the estimators load it when asked for
    code = "import sys, puretree.sklearn as s; s.TreeClassifier; print('sklearn' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "True"


def test_log_loss_is_scikit_learns_other_name_of_entropy():
    from sklearn.datasets import load_iris
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_iris(return_X_y=True)
    ours = TreeClassifier(criterion="log_loss", max_depth=3).fit(X, y)
    assert ours.tree_ == TreeClassifier(criterion="entropy", max_depth=3).fit(X, y).tree_
    np.testing.assert_array_equal(ours.predict_proba(X), DecisionTreeClassifier(criterion="log_loss", max_depth=3, random_state=0).fit(X, y).predict_proba(X))
