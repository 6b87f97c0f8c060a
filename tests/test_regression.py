"""Regression trees (CART): variance decrease over (weight, sum, sum of squares), mean leaves."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from puretree.errors import ParameterError
from puretree.fold import depth, iter_nodes
from puretree.grow import by_task, c45, cart, cart_regressor, grow, id3
from puretree.io import from_json, to_json
from puretree.nodes import Leaf
from puretree.predict import apply, predict


def _float32_data(n=300, p=4, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)).astype(np.float32).astype(np.float64)  # exact in scikit-learn's float32
    y = X[:, 0] * 3 + np.sin(4 * X[:, 1]) + rng.normal(scale=0.1, size=n)
    return X, y


def test_cart_task_regression_and_cart_regressor_grow_the_same_tree():
    X, y = _float32_data()
    a = cart(X, y, task="regression", max_depth=4)
    b = cart_regressor(X, y, max_depth=4)
    assert a.schema.is_regression
    assert to_json(a) == to_json(b)


def test_leaves_predict_the_weighted_mean_of_their_rows():
    X, y = _float32_data()
    w = np.random.default_rng(1).uniform(0.5, 2.0, size=len(y))
    tree = cart_regressor(X, y, max_depth=3, sample_weight=w)
    leaf_of = apply(tree, X)
    got = predict(tree, X)
    for leaf in np.unique(leaf_of):
        rows = leaf_of == leaf
        assert got[rows][0] == pytest.approx(np.average(y[rows], weights=w[rows]), rel=1e-12)


@pytest.mark.parametrize("max_depth, min_samples_leaf", [(3, 1), (None, 7), (5, 20)])
def test_same_tree_as_scikit_learn(max_depth, min_samples_leaf):
    from sklearn.tree import DecisionTreeRegressor

    X, y = _float32_data()
    ours = cart_regressor(X, y, max_depth=max_depth, min_samples_leaf=min_samples_leaf)
    theirs = DecisionTreeRegressor(max_depth=max_depth, min_samples_leaf=min_samples_leaf, random_state=0).fit(X, y)
    np.testing.assert_allclose(predict(ours, X), theirs.predict(X), rtol=1e-9, atol=1e-12)
    probe = np.random.default_rng(5).normal(size=(200, X.shape[1]))
    np.testing.assert_allclose(predict(ours, probe), theirs.predict(probe.astype(np.float32)), rtol=1e-9, atol=1e-12)
    assert theirs.get_n_leaves() == sum(isinstance(n, Leaf) for n in iter_nodes(ours.root))


@given(st.lists(st.tuples(st.integers(0, 9), st.floats(-100, 100)), min_size=1, max_size=40), st.integers(1, 5), st.integers(0, 4))
def test_min_samples_leaf_and_max_depth_hold(rows, min_leaf, max_depth):
    X = np.array([[float(a)] for a, _ in rows])
    y = [t for _, t in rows]
    tree = cart_regressor(X, y, min_samples_leaf=min_leaf, max_depth=max_depth)
    assert depth(tree) <= max_depth
    counts = np.bincount(apply(tree, X), minlength=1)
    leaves = [i for i, n in enumerate(iter_nodes(tree.root)) if isinstance(n, Leaf)]
    if len(leaves) > 1:
        assert all(counts[i] >= min_leaf for i in leaves)
    # Root statistics are the additive (weight, sum, sum of squares).
    np.testing.assert_allclose(tree.root.counts, [len(y), sum(y), sum(v * v for v in y)], rtol=1e-9, atol=1e-9)


def test_every_preset_grows_regression_trees_with_variance():
    X, y = _float32_data(n=80)
    for fit in (id3, c45, cart, grow):
        tree = fit(X, y, task="regression", max_depth=2)
        assert tree.schema.is_regression
        assert isinstance(predict(tree, X[0:1])[0], float)


def test_regression_json_round_trip():
    X, y = _float32_data(n=60)
    tree = cart_regressor(X, y, max_depth=3)
    again = from_json(to_json(tree))
    np.testing.assert_array_equal(predict(again, X), predict(tree, X))


def test_criteria_must_fit_the_task():
    X, y = _float32_data(n=20)
    with pytest.raises(ParameterError, match="gini"):
        cart_regressor(X, y, score="gini")
    with pytest.raises(ParameterError, match="variance"):
        cart(X, (y > 0).tolist(), score="variance")
    assert repr(by_task("gini")) == "by_task('gini', 'variance')"


def test_categorical_features_in_regression_use_mean_ordered_subsets():
    rows = [{"colour": c} for c in ["red", "blue", "green", "red", "blue", "green"] * 5]
    y = [{"red": 1.0, "blue": 10.0, "green": 1.5}[r["colour"]] for r in rows]
    tree = cart_regressor(rows, y, max_depth=1)
    cats = tree.schema.features[0].categories
    assert {cats[c] for c in tree.root.left_categories} in ({"red", "green"}, {"blue"})
    assert predict(tree, {"colour": "blue"}) == pytest.approx(10.0)


def test_cost_complexity_pruning_of_a_regression_tree():
    from puretree import prune
    from sklearn.tree import DecisionTreeRegressor

    X, y = _float32_data()
    tree = cart_regressor(X, y, max_depth=5)
    path = prune.cost_complexity_path(tree)
    theirs = DecisionTreeRegressor(max_depth=5, random_state=0).cost_complexity_pruning_path(X, y)
    np.testing.assert_allclose(np.asarray(path.ccp_alphas), theirs.ccp_alphas, rtol=1e-7, atol=1e-12)
    mid = len(theirs.ccp_alphas) // 2  # between two steps: no rounding at the boundary
    alpha = float(theirs.ccp_alphas[mid] + theirs.ccp_alphas[mid + 1]) / 2
    pruned = prune.cost_complexity(tree, alpha=alpha)
    ref = DecisionTreeRegressor(max_depth=5, random_state=0, ccp_alpha=alpha).fit(X, y)
    np.testing.assert_allclose(predict(pruned, X), ref.predict(X), rtol=1e-9)


def test_numeric_target_arrays_are_checked_like_lists():
    from puretree.data import encode_labels
    from puretree.errors import DataError

    values = np.array([1.5, -2.0, 3.0])
    assert encode_labels(values, task="regression")[1].tolist() == encode_labels(values.tolist(), task="regression")[1].tolist()
    assert encode_labels(np.array([1, 2], dtype=np.int8), task="regression")[1].dtype == np.float64
    with pytest.raises(DataError, match="row 1: the target is missing"):
        encode_labels(np.array([1.0, np.nan]), task="regression")
    with pytest.raises(DataError, match="row 0: the target inf is not finite"):
        encode_labels(np.array([np.inf, 1.0]), task="regression")
    y = np.array([3.0, 1.0, 2.0])
    cart_regressor(np.array([[0.0], [1.0], [2.0]]), y)
    assert y.tolist() == [3.0, 1.0, 2.0]  # not modified


def test_variance_decrease_shortcut_equals_the_generic_score():
    from puretree.criteria import impurity_decrease
    from puretree.grow import variance_decrease
    from puretree.impurity import variance

    rng = np.random.default_rng(0)
    y = rng.normal(size=30) * 100 + 1000
    w = rng.uniform(0.5, 2, size=30)
    stats = np.column_stack((w, w * y, w * y * y))
    parent = stats.sum(axis=0)
    left = np.cumsum(stats, axis=0)[:-1]
    children = np.stack((left, parent - left), axis=-2)
    np.testing.assert_allclose(variance_decrease(parent, left), impurity_decrease(variance)(parent, children), rtol=1e-6, atol=1e-6)


def test_a_generic_variance_score_grows_the_same_tree_as_the_shortcut():
    from puretree.criteria import information_gain
    from puretree.impurity import variance

    X, y = _float32_data(n=200)
    fast = cart_regressor(X, y, max_depth=4, min_samples_leaf=5)
    generic = cart_regressor(X, y, max_depth=4, min_samples_leaf=5, score=information_gain(variance))
    np.testing.assert_array_equal(predict(fast, X), predict(generic, X))
