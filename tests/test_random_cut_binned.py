"""Extra trees' random cut in histogram mode (issue 25): ``cart(X, y, bins=edges / max_bins=N,
splitter="random")`` and ``puretree.dask.cart`` / ``cart_regressor`` / ``id3`` with
``splitter="random"``, which used to refuse it.

A node's random cut on bins is scikit-learn's cut on the binned values: the features visited in
the in-memory splitter's order, the threshold drawn between the edges of the node's lowest and
highest occupied bins, moved down to an edge (docs/sizes.md). The draw is written once
(``growth.random_draw.bin_cuts``, scored by ``growth.histograms.random_thresholds``), so Dask's
tree is the in-memory binned one from the same edges: equal (``==``) for unweighted classes, the
same structure with statistics within 1e-9 relative with weights or regression targets (summed
in another order), as tests/test_dask_options.py checks the other options.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from sklearn.datasets import load_breast_cancer, load_wine

import puretree
from puretree.errors import ParameterError
from puretree.growth.engine import edge_bins, quantile_bins
from puretree.nodes import Split

from test_dask_options import _compare, _dask, _data, _same_tree, _splits

da = pytest.importorskip("dask.array")
from puretree import dask as ptdask  # noqa: E402  (after the optional import is known)


def _nodes(tree, X):
    """Each split of ``tree`` with the positions of the rows of ``X`` (no missing value) reaching it."""
    out = []

    def visit(node, at):
        if not isinstance(node, Split):
            return
        out.append((node, at))
        goes_left = X[at, node.feature] <= node.test.value
        visit(node.children[0], at[goes_left])
        visit(node.children[1], at[~goes_left])

    visit(tree.root, np.arange(len(X)))
    return out


def _check_cuts(tree, X, binned, edges):
    """Every split's threshold is an edge of its feature within the node's occupied range (the
    binned values of its rows: lowest included, highest excluded), routes the raw rows exactly as
    their binned values, and its children hold the rows it sends them."""
    assert _nodes(tree, X), "the tree splits"
    for node, at in _nodes(tree, X):
        f, t = node.feature, node.test.value
        assert t in edges[f]
        values = binned[at, f]
        assert values.min() <= t < values.max()
        assert ((X[at, f] <= t) == (values <= t)).all()
        left = int((X[at, f] <= t).sum())
        assert [sum(kid.stats) for kid in node.children] == [float(left), float(len(at) - left)]


# -- in memory ---------------------------------------------------------------------------------


def test_binned_random_trees_are_seeded_and_cut_at_edges_within_each_node():
    X, y = load_breast_cancer(return_X_y=True)
    for max_bins in (8, 64):
        a = puretree.cart(X, y, max_bins=max_bins, splitter="random", seed=3)
        assert a == puretree.cart(X, y, max_bins=max_bins, splitter="random", seed=3)
        assert a != puretree.cart(X, y, max_bins=max_bins, splitter="random", seed=4)
        binned = np.column_stack([quantile_bins(X[:, j], max_bins) for j in range(X.shape[1])])
        _check_cuts(a, X, binned, [np.unique(binned[:, j]) for j in range(X.shape[1])])
        assert a != puretree.cart(X, y, max_bins=max_bins, seed=3)  # not the best split's tree


def test_given_edges_cut_at_edges_no_row_occupies_too():
    X, y = load_wine(return_X_y=True)
    rng = np.random.default_rng(0)
    edges = [np.unique(np.r_[np.quantile(X[:, j], np.linspace(0, 1, 12)), rng.uniform(X[:, j].min(), X[:, j].max(), 20)]) for j in range(X.shape[1])]
    tree = puretree.cart(X, y, bins=edges, splitter="random", seed=1)
    binned = np.column_stack([edge_bins(X[:, j], edges[j]) for j in range(X.shape[1])])
    _check_cuts(tree, X, binned, edges)


def test_with_a_bin_per_value_the_binned_tree_is_the_in_memory_random_tree():
    # no bin holds two values: the binned random tree is the in-memory (compiled) one with its
    # thresholds moved down to training values
    for load in (load_breast_cancer, load_wine):
        X, y = load(return_X_y=True)
        for seed in range(3):
            assert puretree.cart(X, y, max_bins=10_000, splitter="random", seed=seed) == puretree.cart(X, y, splitter="random", seed=seed, threshold="data")


@settings(max_examples=60, deadline=None)
@given(
    X=hnp.arrays(np.float64, st.tuples(st.integers(2, 30), st.integers(1, 3)), elements=st.integers(-3, 3).map(float) | st.floats(-10, 10, allow_nan=False, width=32).map(float)),
    data=st.data(),
    seed=st.integers(0, 2**32),
)
def test_property_a_bin_per_value_grows_a_valid_extra_tree(X, data, seed):
    # max_bins at least the distinct values: every cut lies between the node's minimum
    # (included) and maximum (excluded), as scikit-learn's random splitter draws it
    y = data.draw(hnp.arrays(np.int64, len(X), elements=st.integers(0, 2)))
    tree = puretree.cart(X, y, max_bins=len(X) + 1, splitter="random", seed=seed)
    for node, at in _nodes(tree, X):
        column = X[at, node.feature]
        assert column.min() <= node.test.value < column.max()
        assert node.test.value in X[:, node.feature]  # a training value (its bin's edge), maybe not the node's
    assert (tree.predict(X) == puretree.cart(X, y, max_bins=len(X) + 1, splitter="random", seed=seed).predict(X)).all()


def test_missing_values_regression_weights_and_categories_grow_in_memory():
    X, y, target, w, edges = _data()
    for options in (dict(missing="majority"), dict(missing="learn"), dict(max_features=2)):
        for t, grow in ((y, puretree.cart), (target, puretree.cart_regressor)):
            for weights in (None, w):
                tree = grow(X, t, bins=edges, splitter="random", seed=2, sample_weight=weights, **options)
                assert isinstance(tree.root, Split) and tree == grow(X, t, bins=edges, splitter="random", seed=2, sample_weight=weights, **options)
                assert all(s.test.value in edges[s.feature] for s in _splits(tree.root))
    learned = puretree.cart(X, y, bins=edges, splitter="random", seed=2, missing="learn")
    assert {s.test.missing_branch for s in _splits(learned.root)} == {0, 1}  # each cut's side learned


def test_binned_random_refuses_what_has_no_meaning_there():
    X, y, _, _, edges = _data()
    cases = [
        (dict(missing="distribute"), "missing='distribute'"),
        (dict(engine="reference"), "engine='reference'"),
        (dict(accept=lambda parent, children: True), "accept="),
        (dict(missing="surrogate"), "surrogate"),
    ]
    for options, message in cases:
        with pytest.raises(ParameterError, match=message):
            puretree.cart(X, y, bins=edges, splitter="random", **options)
    with pytest.raises(ParameterError, match="not both"):
        puretree.cart(X, y, bins=edges, max_bins=8, splitter="random")
    with pytest.raises(ParameterError, match="threshold_splits"):  # C4.5's cuts are not thresholds drawn at random
        puretree.c45(X, y, max_bins=8, splitter="random")


def test_extra_trees_take_max_bins():
    X, y = load_breast_cancer(return_X_y=True)
    forest = puretree.extra_trees(X, y, n_trees=4, seed=1, max_bins=32)
    assert forest == puretree.extra_trees(X, y, n_trees=4, seed=1, max_bins=32)
    assert dict(forest.options)["max_bins"] == 32
    assert forest.members[0] == puretree.cart(X, y, max_bins=32, splitter="random", max_features="sqrt", seed=(1, 0))
    assert forest != puretree.extra_trees(X, y, n_trees=4, seed=1)


# -- on Dask: the in-memory binned tree ---------------------------------------------------------


@pytest.mark.parametrize("parts", [1, 3, 8])
@pytest.mark.parametrize("missing", ["majority", "learn"])
def test_dask_grows_the_in_memory_binned_random_tree(client, parts, missing):
    X, y, target, w, edges = _data()
    for regression, t in ((False, y), (True, target)):
        for weights in (None, w):
            for seed in (0, 7):
                grown = _compare(X, t, weights, edges, parts, regression, splitter="random", seed=seed, missing=missing)
                assert isinstance(grown.root, Split)
    a, b = (_compare(X, y, None, edges, parts, False, splitter="random", seed=s, missing=missing) for s in (0, 7))
    assert a != b


def test_dask_id3_max_features_and_sizes_take_the_random_cut(client):
    X, y, _, _, edges = _data(seed=5)
    Xd, yd = _dask(3, X, y)
    for options in (dict(), dict(max_features=2), dict(missing="learn")):
        assert ptdask.id3(Xd, yd, bins=edges, splitter="random", seed=9, **options) == puretree.id3(X, y, bins=edges, splitter="random", seed=9, **options)
    X, y, _, _, edges = _data(nan=False, seed=5)
    Xd, yd = _dask(3, X, y)
    for options in (dict(max_leaf_nodes=6), dict(min_impurity_decrease=0.01)):
        grown = ptdask.cart(Xd, yd, bins=edges, splitter="random", seed=9, **options)
        _same_tree(grown, puretree.cart(X, y, bins=edges, splitter="random", seed=9, **options), exact=True)


def test_dask_refuses_the_random_cut_where_it_has_no_meaning(client):
    X, y, _, _, edges = _data()
    Xd, yd = _dask(2, X, y)
    with pytest.raises(ParameterError, match="splitter='random' draws cart's and id3's thresholds"):
        ptdask.c45(Xd, yd, bins=edges, splitter="random")


@st.composite
def problems(draw):
    """Small data with ties, missing values and (maybe) weights; classes or targets; 1-4 partitions."""
    n = draw(st.integers(4, 40))
    p = draw(st.integers(1, 3))
    values = st.integers(0, 5).map(float) | st.floats(-5, 5, allow_nan=False, width=32).map(float) | st.just(np.nan)
    X = draw(hnp.arrays(np.float64, (n, p), elements=values))
    regression = draw(st.booleans())
    y = draw(hnp.arrays(np.float64, n, elements=st.integers(0, 3).map(float) | st.floats(0, 50, allow_nan=False))) if regression else draw(hnp.arrays(np.int64, n, elements=st.integers(0, 2)))
    w = draw(st.none() | hnp.arrays(np.float64, n, elements=st.sampled_from([0.0, 0.5, 1.0, 3.0]) | st.floats(0.01, 10)))
    if w is not None:
        w[0] = 1.0
    options = dict(missing=draw(st.sampled_from(["majority", "learn"])), min_samples_leaf=draw(st.integers(1, 3)), seed=draw(st.integers(0, 1000)))
    return X, y, w, regression, options, draw(st.integers(1, 4))


@settings(max_examples=25, deadline=None)
@given(problem=problems(), max_bins=st.sampled_from([2, 3, 255]))
def test_property_dask_grows_the_in_memory_binned_random_tree(client, problem, max_bins):
    X, y, w, regression, options, parts = problem
    edges = ptdask.bin_edges(_dask(parts, X)[0], max_bins=max_bins)
    _compare(X, y, w, edges, parts, regression, splitter="random", **options)


# -- the draw: many nodes at once are each node's own -------------------------------------------


@settings(max_examples=200, deadline=None)
@given(
    spans=hnp.arrays(np.float64, st.tuples(st.integers(1, 6), st.integers(1, 7), st.just(2)), elements=st.sampled_from([0.0, 1.0, 2.5, -3.0, 1e-9, np.nan]) | st.floats(-1e6, 1e6)),
    keys=st.lists(st.integers(0, 2**64 - 1), min_size=6, max_size=6),
    limit=st.none() | st.integers(1, 7),
)
def test_property_the_frontier_draw_is_each_nodes_draw(spans, keys, limit):
    # drawn_cuts (numpy, a frontier at once: the histogram source's) makes the cuts visit (one
    # node in Python ints: the recursive builder's) makes, bit for bit
    from puretree.growth.random_draw import drawn_cuts, visit

    low, high = np.fmin(spans[..., 0], spans[..., 1]), np.fmax(spans[..., 0], spans[..., 1])
    low[np.isnan(spans).any(axis=-1)] = high[np.isnan(spans).any(axis=-1)] = np.nan
    n, p = low.shape
    nodes, features, thresholds = drawn_cuts(low, high, keys[:n], limit=limit)
    expected = [(i, f, t) for i in range(n) for f, t in visit(p, keys[i], limit, lambda f, i=i: None if np.isnan(low[i, f]) else (float(low[i, f]), float(high[i, f])))]
    assert list(zip(nodes.tolist(), features.tolist(), thresholds.tolist())) == expected


def test_the_weight_bound_holds_on_binned_random_cuts_as_in_memory():
    # a bin per value: the binned random tree with min_weight_fraction_leaf is the in-memory
    # random tree (the reference's rule: a drawn cut leaving a child lighter is no cut)
    for load in (load_breast_cancer, load_wine):
        X, y = load(return_X_y=True)
        w = np.random.default_rng(3).random(len(y)) * 2
        for seed, weights, fraction in ((0, None, 0.05), (1, w, 0.02), (2, w, 0.1)):
            binned = puretree.cart(X, y, max_bins=10_000, splitter="random", seed=seed, sample_weight=weights, min_weight_fraction_leaf=fraction)
            in_memory = puretree.cart(X, y, splitter="random", seed=seed, sample_weight=weights, min_weight_fraction_leaf=fraction, threshold="data")
            _same_tree(binned, in_memory, exact=weights is None)  # weighted sums in another order: statistics within 1e-9
            assert binned != puretree.cart(X, y, max_bins=10_000, splitter="random", seed=seed, sample_weight=weights)
            total = len(y) if weights is None else weights.sum()
            for node, at in _nodes(binned, X):
                goes_left = X[at, node.feature] <= node.test.value
                child = np.ones(len(at)) if weights is None else weights[at]
                assert min(child[goes_left].sum(), child[~goes_left].sum()) >= fraction * total - 1e-9


@pytest.mark.parametrize("missing", ["majority", "learn"])
def test_dask_grows_the_in_memory_binned_random_tree_with_the_weight_bound(client, missing):
    X, y, target, w, edges = _data()
    for regression, t in ((False, y), (True, target)):
        for weights in (None, w):
            grown = _compare(X, t, weights, edges, 3, regression, splitter="random", seed=4, missing=missing, min_weight_fraction_leaf=0.08)
            assert isinstance(grown.root, Split)
