"""The estimators' scikit-learn surface beyond fit and predict (apply, decision_path, get_depth,
get_n_leaves, cost_complexity_pruning_path), checked against scikit-learn's own answers on the
same trees and data; and ``to_sklearn()``, whose fitted scikit-learn tree scikit-learn's own
views (plot_tree, export_text, export_graphviz) take, class labels and all."""

import matplotlib

matplotlib.use("Agg")  # no screen: plot_tree draws into memory

import numpy as np
import pandas as pd
import pytest
import scipy.sparse
import sklearn
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor, export_graphviz, export_text, plot_tree
from sklearn.utils import Bunch

import puretree as pt
from puretree.estimators import node_indicator
from puretree.predict import UnseenCategoryWarning
from puretree.sklearn import TreeClassifier, TreeRegressor, UnsupportedTreeError


def _iris():
    X, y = load_iris(return_X_y=True)
    return X.astype(np.float32), y


def _cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X.astype(np.float32), y


def _diabetes():
    X, y = load_diabetes(return_X_y=True)
    return X.astype(np.float32), y


FITTED = {
    "iris": lambda: (TreeClassifier(max_depth=4), *_iris()),
    "cancer": lambda: (TreeClassifier(), *_cancer()),
    "cancer-entropy": lambda: (TreeClassifier(criterion="entropy", min_samples_leaf=3), *_cancer()),
    "c45-pruned": lambda: (TreeClassifier(algorithm="c45", prune="pessimistic", missing="majority"), *_cancer()),
    "diabetes": lambda: (TreeRegressor(max_depth=6), *_diabetes()),
}


@pytest.mark.parametrize("name", FITTED)
def test_the_tree_views_answer_as_scikit_learn_does_on_the_same_tree(name):
    est, X, y = FITTED[name]()
    est.fit(X, y)
    sk = est.to_sklearn()
    assert np.array_equal(est.apply(X), sk.apply(X))
    assert est.apply(X).dtype == sk.apply(X).dtype == np.intp
    ours, theirs = est.decision_path(X), sk.decision_path(X)
    assert type(ours) is type(theirs) and ours.dtype == theirs.dtype and ours.shape == theirs.shape
    assert (ours != theirs).nnz == 0
    assert np.array_equal(ours.indptr, theirs.indptr) and np.array_equal(ours.indices, theirs.indices)
    assert est.get_depth() == sk.get_depth() and type(est.get_depth()) is type(sk.get_depth()) is int
    assert est.get_n_leaves() == sk.get_n_leaves() and type(est.get_n_leaves()) is type(sk.get_n_leaves())
    assert np.array_equal(est.predict(X), sk.predict(X))


def test_the_node_ids_are_puretree_pre_order_ones():
    X, y = _iris()
    clf = TreeClassifier(max_depth=3).fit(X, y)
    paths = pt.decision_path(clf.tree_, X)
    indicator = clf.decision_path(X)
    for i in range(len(X)):
        assert tuple(indicator[i].indices.tolist()) == paths[i]
        assert clf.apply(X[i : i + 1])[0] == paths[i][-1]


def test_an_independently_grown_scikit_learn_tree_is_the_same_shape():
    # On breast cancer CART and scikit-learn choose the same splits (no tie between two
    # features changes the tree's shape): depth, leaves and the pruning path agree.
    X, y = load_breast_cancer(return_X_y=True)
    ours, theirs = TreeClassifier().fit(X, y), DecisionTreeClassifier(random_state=0).fit(X, y)
    assert (ours.get_depth(), ours.get_n_leaves()) == (theirs.get_depth(), theirs.get_n_leaves())
    a, b = ours.cost_complexity_pruning_path(X, y), theirs.cost_complexity_pruning_path(X, y)
    assert isinstance(a, Bunch) and sorted(a) == sorted(b) == ["ccp_alphas", "impurities"]
    np.testing.assert_allclose(a.ccp_alphas, b.ccp_alphas, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(a.impurities, b.impurities, rtol=1e-12, atol=1e-15)


def test_the_pruning_path_is_of_the_unpruned_clone_and_leaves_the_estimator_alone():
    X, y = _cancer()
    clf = TreeClassifier(ccp_alpha=0.01).fit(X, y)
    before = clf.tree_
    path = clf.cost_complexity_pruning_path(X, y)
    assert clf.tree_ is before and clf.ccp_alpha == 0.01
    full = pt.prune.cost_complexity_path(TreeClassifier().fit(X, y).tree_)
    assert path.ccp_alphas.tolist() == full.ccp_alphas.tolist()
    assert path.impurities.tolist() == full.impurities.tolist()
    # Pruning at each alpha of the path gives the leaf count the path says.
    for alpha, leaves in zip(path.ccp_alphas, full.n_leaves):
        assert TreeClassifier(ccp_alpha=float(alpha)).fit(X, y).get_n_leaves() == leaves


def test_a_regression_pruning_path_matches_scikit_learn():
    X, y = load_diabetes(return_X_y=True)
    ours = TreeRegressor(max_depth=5).cost_complexity_pruning_path(X, y)
    theirs = DecisionTreeRegressor(max_depth=5, random_state=0).cost_complexity_pruning_path(X, y)
    np.testing.assert_allclose(ours.ccp_alphas, theirs.ccp_alphas, rtol=1e-9)
    np.testing.assert_allclose(ours.impurities, theirs.impurities, rtol=1e-9)


def test_the_sparse_interface_follows_scikit_learns_setting():
    X, y = _iris()
    clf = TreeClassifier(max_depth=2).fit(X, y)
    assert isinstance(clf.decision_path(X), scipy.sparse.csr_matrix)
    with sklearn.config_context(sparse_interface="sparray"):
        path = clf.decision_path(X)
        assert isinstance(path, scipy.sparse.csr_array) and not isinstance(path, scipy.sparse.csr_matrix)
        assert type(path) is type(clf.to_sklearn().decision_path(X))


def test_the_methods_need_a_fit():
    from sklearn.exceptions import NotFittedError

    for call in (lambda c: c.apply([[1.0]]), lambda c: c.decision_path([[1.0]]), lambda c: c.get_depth(), lambda c: c.get_n_leaves(), lambda c: c.to_sklearn()):
        with pytest.raises(NotFittedError):
            call(TreeClassifier())


def test_rows_that_stop_at_an_unseen_category_end_at_their_split():
    frame = pd.DataFrame({"outlook": ["sunny", "rain", "overcast", "sunny", "rain", "overcast"], "t": [1.0, 2, 3, 4, 5, 6]})
    clf = TreeClassifier(algorithm="id3").fit(frame, ["no", "yes", "yes", "no", "yes", "yes"])
    row = frame.iloc[:1].copy()
    row["outlook"] = "fog"
    with pytest.warns(UnseenCategoryWarning, match="column 'outlook'"):
        assert clf.apply(row).tolist() == [0]  # the root splits on outlook: the row stops there
    with pytest.warns(UnseenCategoryWarning, match="column 'outlook'"):
        assert clf.decision_path(row).toarray().tolist() == [[1, 0, 0, 0]]


@settings(max_examples=60, deadline=None)
@given(
    ends=st.lists(st.integers(0, 30), max_size=40),
    seed=st.integers(0, 2**16),
)
def test_the_node_indicator_marks_exactly_each_path(ends, seed):
    rng = np.random.default_rng(seed)
    # A random tree as parent pointers: node k's parent is an earlier node (pre-order).
    parent = np.array([-1] + [int(rng.integers(0, k)) for k in range(1, 31)])
    m = node_indicator(np.array(ends, dtype=np.intp), parent)
    assert m.shape == (len(ends), 31)
    for i, end in enumerate(ends):
        path, node = [], end
        while node >= 0:
            path.append(node)
            node = parent[node]
        assert m[i].indices.tolist() == sorted(path)
        assert m[i].data.tolist() == [1] * len(path)


# -- to_sklearn(): scikit-learn's own views -----------------------------------------------------


@pytest.mark.parametrize("labels", [["setosa", "versicolor", "virginica"], [10, 20, 30], [-1, 0, 7]])
def test_scikit_learns_views_take_the_converted_tree_with_its_labels(labels):
    X, y = _iris()
    y = np.array(labels, dtype=object if isinstance(labels[0], str) else None)[y]
    clf = TreeClassifier(max_depth=3).fit(X, y)
    sk = clf.to_sklearn()
    assert type(sk) is DecisionTreeClassifier
    assert sk.classes_.tolist() == clf.classes_.tolist() == sorted(labels)
    assert np.array_equal(sk.predict(X), clf.predict(X))
    text = export_text(sk, feature_names=["sl", "sw", "pl", "pw"])
    assert f"class: {labels[0]}" in text and "pl <= 2.45" in text
    dot = export_graphviz(sk, class_names=[str(c) for c in sk.classes_], feature_names=["sl", "sw", "pl", "pw"])
    assert f"class = {labels[2]}" in dot and dot.startswith("digraph Tree")
    drawn = plot_tree(sk, class_names=[str(c) for c in sk.classes_], precision=3)
    assert sum("samples = " in t.get_text() for t in drawn) == pt.fold.n_nodes(clf.tree_)
    assert any(f"class = {labels[1]}" in t.get_text() for t in drawn)


def test_the_function_form_and_a_regression_tree():
    X, y = _diabetes()
    tree = pt.cart(X, y, task="regression", max_depth=3)
    sk = pt.to_sklearn(tree)
    assert type(sk) is DecisionTreeRegressor
    assert "value: [" in export_text(sk) and "squared_error" in export_graphviz(sk)
    assert sum("samples = " in t.get_text() for t in plot_tree(sk)) == pt.fold.n_nodes(tree)
    np.testing.assert_array_equal(sk.predict(X), pt.predict(tree, X))


def test_frame_feature_names_survive_the_conversion():
    X, y = _iris()
    frame = pd.DataFrame(X, columns=["sl", "sw", "pl", "pw"])
    sk = TreeClassifier(max_depth=2).fit(frame, y).to_sklearn()
    assert sk.feature_names_in_.tolist() == ["sl", "sw", "pl", "pw"]
    assert "pl <= 2.45" in export_text(sk, feature_names=list(sk.feature_names_in_))
    assert sk.predict(frame).tolist() == TreeClassifier(max_depth=2).fit(frame, y).predict(frame).tolist()


def test_trees_scikit_learn_cannot_hold_are_refused_by_reason():
    tennis = TreeClassifier(algorithm="id3")
    frame = pd.DataFrame({"outlook": ["sunny", "rain", "overcast", "sunny", "rain", "overcast"], "t": [1.0, 2, 3, 4, 5, 6]})
    tennis.fit(frame, ["no", "yes", "yes", "no", "yes", "yes"])
    with pytest.raises(UnsupportedTreeError, match="multiway split on the categorical column 'outlook'"):
        tennis.to_sklearn()
    subset = TreeClassifier(algorithm="cart").fit(frame, ["no", "yes", "yes", "no", "yes", "yes"])
    with pytest.raises(UnsupportedTreeError, match="subset split on the categorical column 'outlook'"):
        subset.to_sklearn()
    X, y = _iris()
    with pytest.raises(UnsupportedTreeError, match="'distribute'"):
        TreeClassifier(missing="distribute", max_depth=2).fit(X, y).to_sklearn()
    with pytest.raises(UnsupportedTreeError, match="'distribute'"):
        pt.to_sklearn(pt.cart(X, y, missing="distribute", max_depth=2))


def test_a_tree_with_surrogate_splits_is_refused_by_reason():
    X, y = _iris()
    X = X.copy()
    X[::7, 2] = np.nan  # rows with a missing value: the surrogates route them
    tree = pt.cart(X, y, missing="surrogate", max_depth=2)
    with pytest.raises(UnsupportedTreeError, match="routes missing values through surrogate splits"):
        pt.to_sklearn(tree)
    with pytest.raises(UnsupportedTreeError, match="surrogate"):
        TreeClassifier(missing="surrogate", max_depth=2).fit(X, y).to_sklearn()
