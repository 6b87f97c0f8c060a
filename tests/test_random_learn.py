"""splitter="random" (issue 25) with missing="learn": the side of the missing values drawn, as
scikit-learn's random splitter draws it (growth.random_draw.missing_side); with monotonic_cst: a
drawn cut outside the node's bounds not taken. In memory, on bins and on Dask."""

from __future__ import annotations

import numpy as np
import pytest

import puretree
from puretree.builder import _seed_key
from puretree.growth.random_draw import missing_side, node_key
from puretree.nodes import Split
from puretree.predict import apply

from test_dask_options import _compare, _same_tree

da = pytest.importorskip("dask.array")


def _data(seed=0, n=300, p=4):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = (X[:, 0] + X[:, 1] - X[:, 2] > 0).astype(int)
    target = 2 * X[:, 0] + X[:, 1]
    X[rng.random(X.shape) < 0.15] = np.nan
    return X, y, target, rng.uniform(0.5, 2.0, size=n)


def _walk(tree, X, seed):
    """Each split with its path and the rows reaching it (NaN rows following the split's side),
    and each row's leaf (pre-order id)."""
    splits, leaf = [], np.full(len(X), -1)
    counter = iter(range(10**9))

    def visit(node, path, at):
        me = next(counter)
        if not isinstance(node, Split):
            leaf[at] = me
            return
        splits.append((node, path, at))
        column = X[at, node.feature]
        right = np.where(np.isnan(column), node.test.missing_branch == 1, column > node.test.value)
        visit(node.children[0], path + (0,), at[~right])
        visit(node.children[1], path + (1,), at[right])

    visit(tree.root, (), np.arange(len(X)))
    return splits, leaf


@pytest.mark.parametrize("seed", [0, 3, 11])
def test_in_memory_random_learn_draws_the_side_where_the_node_has_missing_values(seed):
    X, y, _, _ = _data(seed)
    tree = puretree.cart(X, y, splitter="random", missing="learn", seed=seed)
    assert tree == puretree.cart(X, y, splitter="random", missing="learn", seed=seed)
    splits, leaf = _walk(tree, X, seed)
    assert len(splits) > 3
    drawn = 0
    for node, path, at in splits:
        column = X[at, node.feature]
        missing = np.isnan(column)
        if missing.any():
            drawn += 1
            assert node.test.missing_branch == missing_side(node_key(_seed_key(seed), path), X.shape[1], node.feature)
        else:  # the child of more training rows (a tie: right)
            n_left = int((column <= node.test.value).sum())
            assert node.test.missing_branch == (0 if n_left > len(at) - n_left else 1)
        # the training statistics follow the side
        right = np.where(missing, node.test.missing_branch == 1, column > node.test.value)
        assert np.array(node.children[0].stats) == pytest.approx(np.bincount(y[at[~right]], minlength=2))
    assert drawn > 0
    assert (apply(tree, X) == leaf).all()  # predictions with NaN rows follow the side


@pytest.mark.parametrize("regression", [False, True])
def test_a_bin_per_value_grows_the_in_memory_random_learn_tree(regression):
    # no bin holds two values: the binned tree is the in-memory one with its thresholds moved down to
    # training values, the drawn sides included (min_samples_leaf keeps away the tiny nodes where two
    # cuts tie to rounding, which the two sources break apart, with missing="majority" too)
    X, y, target, w = _data(5)
    task = "regression" if regression else "classification"
    for weights in (None, w):
        for seed in range(4):
            options = dict(sample_weight=weights, task=task, splitter="random", missing="learn", seed=seed, min_samples_leaf=8)
            binned = puretree.cart(X, target if regression else y, max_bins=10_000, **options)
            memory = puretree.cart(X, target if regression else y, threshold="data", **options)
            assert isinstance(binned.root, Split)
            assert any(isinstance(n, Split) and n.test.missing_branch == 0 for n in _splits(binned.root))
            _same_tree(binned, memory, exact=weights is None and not regression)


def _splits(node):
    if isinstance(node, Split):
        yield node
        for child in node.children:
            yield from _splits(child)


def _monotone_data(seed=0, n=400):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X[:, 0] - X[:, 2] + 0.7 * rng.normal(size=n) > 0).astype(int)
    target = X[:, 0] - X[:, 2] + 0.5 * rng.normal(size=n)
    return X, y, target, rng.uniform(0.5, 2.0, size=n)


@pytest.mark.parametrize("regression", [False, True])
def test_random_cuts_hold_monotonic_constraints_in_memory_and_on_bins(regression):
    X, y, target, _ = _monotone_data()
    t, task = (target, "regression") if regression else (y, "classification")
    for seed in range(4):
        for options in (dict(), dict(max_bins=64), dict(max_bins=10_000)):
            tree = puretree.cart(X, t, task=task, splitter="random", monotonic_cst=[1, 0, -1], seed=seed, **options)
            assert isinstance(tree.root, Split)
            assert puretree.check_monotone(tree, 0, 1) is True
            assert puretree.check_monotone(tree, 2, -1) is True
        # a bin per value: the in-memory random tree with its thresholds moved down to training values
        options = dict(task=task, splitter="random", monotonic_cst=[1, 0, -1], seed=seed, min_samples_leaf=5)
        _same_tree(puretree.cart(X, t, max_bins=10_000, **options), puretree.cart(X, t, threshold="data", **options), exact=not regression)


@pytest.mark.parametrize("missing", ["majority", "learn"])
def test_dask_grows_the_in_memory_binned_random_tree_with_monotonic_constraints(client, missing):
    X, y, target, w = _monotone_data(3, n=200)
    X[np.random.default_rng(1).random(X.shape) < 0.1] = np.nan
    edges = [np.quantile(X[~np.isnan(X[:, j]), j], np.linspace(0, 1, 33)) for j in range(3)]
    for regression, t in ((False, y), (True, target)):
        for weights in (None, w):
            for seed in (0, 5):
                grown = _compare(X, t, weights, edges, 3, regression, splitter="random", seed=seed, missing=missing, monotonic_cst=[1, 0, -1])
                assert isinstance(grown.root, Split)
                if missing == "learn":  # the learned side is checked with its missing rows (majority routes them after the check, with splitter="best" too)
                    assert puretree.check_monotone(grown, 0, 1) is True and puretree.check_monotone(grown, 2, -1) is True
