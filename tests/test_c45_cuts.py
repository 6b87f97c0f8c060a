"""C4.5's search of a node's numeric cuts (:mod:`puretree.growth.c45_cuts`), on its two backends.

:func:`~puretree.growth.c45_cuts.numeric_options` scores all numeric features of a node at once
in numpy; whole-number counts go through the compiled loop (``pt_c45_scan``, C) where the
library is there. On Hypothesis-drawn data the two backends grow ``==`` trees (weights and
missing values included), and the options at a node are those of :func:`oracle`, J48's
``handleNumericAttribute`` written feature by feature in this file. J48's scan of near-tied
gains and the block and table limits are checked on their own as well.
"""

from __future__ import annotations

import math
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puretree.growth import c45_cuts
from puretree.c45 import c45
from puretree.growth.choose import J48_EPSILON, VALUE_TOLERANCE, Option, at_least, best_cut, known_gain, split_info
from puretree.splits import midpoint
from puretree.grow import root_data
from puretree.impurity import entropy, gini
from puretree.strategies import datasets
from test_engine import same_tree as same_nodes

#: The compiled loop is there wherever the tests run: tests/test_kernels.py asserts it.
BACKENDS = [False, True]


def backend(kernel):
    """The compiled loop for every node it takes (``True``), or numpy alone (``False``)."""
    return mock.patch.multiple(c45_cuts, KERNEL=kernel, KERNEL_MIN_WORK=0)


def numpy_tree(*data, **options):
    with backend(False):
        return c45(*data, **options)


def oracle(node, i, total, n_classes, min_leaf, impurity=entropy):
    """J48's ``handleNumericAttribute`` for numeric feature ``i``, one feature, row by row."""
    values, order = node.values[i], node.order[i]
    n_known = int(np.count_nonzero(~np.isnan(values)))
    stats = node.stats[order[:n_known]]
    known_parent = stats.sum(axis=0) if n_known else np.zeros(node.stats.shape[1])
    known_weight = float(known_parent.sum())
    least = min(max(0.1 * known_weight / n_classes, min_leaf), 25.0)
    if known_weight - 2 * least < -J48_EPSILON or n_known < 2:
        return None
    cuts = np.flatnonzero(values[: n_known - 1] + VALUE_TOLERANCE < values[1:n_known])
    w_left = np.cumsum(stats.sum(axis=1))[cuts]
    cuts = cuts[at_least(w_left, least) & at_least(known_weight - w_left, least)]
    if len(cuts) == 0:
        return None
    lefts = np.cumsum(stats, axis=0)
    best, where = best_cut(np.array([float(known_gain(known_parent, np.stack((lefts[p], known_parent - lefts[p])), total, impurity)) for p in cuts]))
    corrected = best - math.log2(len(cuts)) / total
    if where < 0 or corrected < J48_EPSILON:
        return None
    p = int(cuts[where])
    branches = np.stack((lefts[p], known_parent - lefts[p]))
    info = float(split_info(branches.sum(axis=1), total))
    threshold = midpoint(float(values[p]), float(values[p + 1]))
    return Option(int(node.numeric[i]), corrected, corrected / info if info > 0 else 0.0, True, "threshold", threshold=threshold, branches=branches)


def same_tree(a, b, *, rel: float = 1e-9) -> bool:
    """Same schema, missing-value strategy and structure; counts equal to ``rel`` relative."""
    return a.schema == b.schema and a.missing == b.missing and same_nodes(a.root, b.root, rel=rel)


# The gain ratio (C4.5) or the gain alone, with the same guards.
options = st.fixed_dictionaries(
    {"min_samples_leaf": st.sampled_from([0, 1, 2, 3]), "threshold": st.sampled_from(["midpoint", "data"]), "score": st.sampled_from(["gain_ratio", "information_gain"])}
)


@pytest.mark.parametrize("kernel", BACKENDS)
@given(ds=datasets(min_rows=2, max_rows=40, max_features=4), opts=options)
def test_unweighted_trees_are_equal(kernel, ds, opts):
    with backend(kernel):
        fast = c45(ds, **opts)
    assert fast == numpy_tree(ds, **opts)


@pytest.mark.parametrize("kernel", BACKENDS)
@given(ds=datasets(min_rows=2, max_rows=60, max_features=3, kinds=("numeric",), max_classes=12), m=st.sampled_from([0, 1, 2]))
@settings(max_examples=40)
def test_many_classes_are_equal(kernel, ds, m):
    # Eight classes and more: numpy sums them pairwise, which the compiled loop repeats.
    with backend(kernel):
        fast = c45(ds, min_samples_leaf=m)
    assert fast == numpy_tree(ds, min_samples_leaf=m)


@pytest.mark.parametrize("kernel", BACKENDS)
@given(ds=datasets(min_rows=2, max_rows=40, max_features=4, missing=0.3, weights=True), opts=options, missing=st.sampled_from(["distribute", "majority"]))
def test_weighted_and_missing_trees_are_the_same(kernel, ds, opts, missing):
    with backend(kernel):
        fast = c45(ds, missing=missing, **opts)
    assert same_tree(fast, numpy_tree(ds, missing=missing, **opts))


@given(datasets(min_rows=2, max_rows=40, max_features=4, missing=0.3, weights=True), st.sampled_from([1, 40, 200, 10_000]))
@settings(max_examples=40)
def test_blocks_and_the_per_feature_fallback_grow_the_same_tree(ds, block):
    # The numpy path. BLOCK 1: every feature alone is too big, the specification's chunked scan
    # runs; 40 and 200: blocks of one or a few features (rows x classes up to 160 here);
    # 10,000: one block.
    with mock.patch.object(c45_cuts, "BLOCK", block), backend(False):
        fast = c45(ds)
    assert same_tree(fast, numpy_tree(ds))


@pytest.mark.parametrize("kernel", BACKENDS)
@given(
    ds=st.one_of(
        datasets(min_rows=2, max_rows=40, max_features=4, kinds=("numeric",)),  # whole counts: the table, the compiled loop
        datasets(min_rows=2, max_rows=40, max_features=4, kinds=("numeric",), missing=0.3, weights=True),
    ),
    min_leaf=st.sampled_from([0.0, 1.0, 2.0, 5.0]),
    impurity=st.sampled_from([entropy, gini]),
    block=st.sampled_from([1, 40, c45_cuts.BLOCK]),
)
def test_options_at_the_root_are_the_oracles(kernel, ds, min_leaf, impurity, block):
    node = root_data(ds)
    total, k = float(node.stats.sum()), len(ds.schema.classes)
    spec = [o for i in range(len(node.numeric)) if (o := oracle(node, i, total, k, min_leaf, impurity)) is not None]
    with backend(kernel), mock.patch.object(c45_cuts, "BLOCK", block), mock.patch.object(c45_cuts, "_compiled", wraps=c45_cuts._compiled) as compiled:
        fast = [s.option() for s in c45_cuts.numeric_options(node, total, k, min_leaf, impurity)]
    # the compiled loop ran wherever it may: whole counts, entropy, at least two rows
    whole = c45_cuts._whole_counts(node.stats, total, node.order.shape[1]) is not None
    assert compiled.called == (kernel and whole and impurity is entropy and node.order.shape[1] >= 2 and len(node.numeric) > 0)
    assert [(o.feature, o.gain, o.ratio, o.threshold) for o in fast] == [(o.feature, o.gain, o.ratio, o.threshold) for o in spec]
    assert all(np.array_equal(a.branches, b.branches) for a, b in zip(fast, spec))


def test_whole_counts_use_the_table_and_fractions_do_not():
    stats = np.array([[1.0, 0.0], [0.0, 2.0]])
    assert c45_cuts._whole_counts(stats, 3.0, 2).tolist() == [[1, 0], [0, 2]]
    assert c45_cuts._whole_counts(stats * 0.5, 1.5, 2) is None
    assert c45_cuts._whole_counts(stats, 1e12, 2) is None  # too heavy for a table


def test_the_compiled_loop_refuses_a_table_too_short():
    # an index past the table's end is never read: the caller takes numpy's way instead
    order, values, counts = np.array([[0, 1]]), np.array([[0.0, 1.0]]), np.array([[3, 0], [0, 3]])
    assert c45_cuts._compiled(order, values, counts, c45_cuts._table(4)[:4], 6.0, 2, 0.0) is None
    assert c45_cuts._compiled(order, values, counts, c45_cuts._table(7)[:7], 6.0, 2, 0.0) is not None


# Gains a few 1e-7 apart: J48's "better by more than 1e-6" makes the chosen cut depend on the
# order of the scan, which the fast path must replay.
near_ties = st.lists(st.one_of(st.just(-math.inf), st.integers(0, 12).map(lambda i: 0.5 + i * 4e-7), st.floats(0, 1)), min_size=1, max_size=12)


@given(st.lists(near_ties, min_size=1, max_size=5))
def test_scan_is_j48s_sequential_scan(rows):
    width = max(len(r) for r in rows)
    gains = np.array([r + [-math.inf] * (width - len(r)) for r in rows])
    best, pos = c45_cuts.scan(gains)
    for i, row in enumerate(gains):
        positions = np.flatnonzero(row > -np.inf)
        b, where = best_cut(row[positions]) if len(positions) else (0.0, -1)
        if where < 0:
            assert best[i] == -np.inf
        else:
            assert (best[i], pos[i]) == (b, positions[where])


def test_the_compiled_loop_takes_only_rows_of_one_class():
    # The builder's rows hold one class each; a row with weight in two goes the numpy way.
    order, values = np.array([[0, 1]]), np.array([[0.0, 1.0]])
    table = c45_cuts._table(4)
    assert c45_cuts._compiled(order, values, np.array([[1, 1], [0, 1]]), table, 3.0, 2, 0.0) is None
    n_cuts, best, where, known, left = c45_cuts._compiled(order, values, np.array([[1, 0], [0, 1]]), table, 2.0, 2, 0.0)
    # One cut, between the two rows: a whole bit of gain.
    assert (n_cuts.tolist(), best.tolist(), where.tolist(), known.tolist(), left.tolist()) == ([1], [1.0], [0], [[1, 1]], [[1, 0]])


def test_a_library_that_cannot_be_compiled_leaves_numpy_to_do_it():
    # a compiler that fails (or none) is no error: numpy grows the same tree
    X = np.arange(200, dtype=float).reshape(100, 2)
    y = (np.arange(100) % 7 < 3).astype(int)
    with mock.patch.object(c45_cuts.kernels, "library", lambda: None), backend(True):
        tree = c45(X, y)
        assert c45_cuts.KERNEL is False
    assert tree == numpy_tree(X, y)
