"""c45's fast path grows the specification's tree.

:mod:`puretree.growth.c45_vector` scores the cuts of all numeric features of a node at once;
``C45Splits(vectorised=False)`` runs :mod:`puretree.c45`'s feature-by-feature scan, the
readable specification. On Hypothesis-drawn data:

- unweighted, without missing values: the trees are ``==``;
- with sample weights or missing values (fractional rows): the same structure (kinds,
  features, thresholds) with counts equal to 1e-9 relative. (The fast path repeats the
  specification's operations in the same order, so these are in fact equal too; the looser
  check is what the issue promises.)

Whole-number counts go through :mod:`puretree.growth.c45_kernel`'s compiled loop (C, compiled by
:mod:`puretree.growth.kernels`) where a C compiler is; every property here runs on the numpy
expressions, and on the compiled loop too (the tests run where a compiler is). The options at a node, J48's scan of near-tied gains, numpy's
order of summation and the block and table limits are checked on their own as well.
"""

from __future__ import annotations

import math
from unittest import mock

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from puretree.growth import c45_kernel, c45_vector
from puretree.c45 import C45Splits, c45
from puretree.growth.c45_scan import numeric_option
from puretree.growth.choose import best_cut
from puretree.grow import root_data
from puretree.impurity import entropy
from puretree.strategies import datasets
from test_engine import same_tree as same_nodes

SPEC = (C45Splits(vectorised=False),)
#: The numpy path and the compiled loop (a C compiler is there wherever the tests run:
#: tests/test_kernels.py asserts it).
BACKENDS = [False, True]


def backend(kernel):
    """The compiled loop for every node (``True``), or numpy alone (``False``)."""
    return mock.patch.multiple(c45_vector, KERNEL=kernel, KERNEL_MIN_WORK=0)


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
    assert fast == c45(ds, splitters=SPEC, **opts)


@pytest.mark.parametrize("kernel", BACKENDS)
@given(ds=datasets(min_rows=2, max_rows=60, max_features=3, kinds=("numeric",), max_classes=12), m=st.sampled_from([0, 1, 2]))
@settings(max_examples=40)
def test_many_classes_are_equal(kernel, ds, m):
    # Eight classes and more: numpy sums them pairwise, which the compiled loop repeats.
    with backend(kernel):
        fast = c45(ds, min_samples_leaf=m)
    assert fast == c45(ds, min_samples_leaf=m, splitters=SPEC)


@pytest.mark.parametrize("kernel", BACKENDS)
@given(ds=datasets(min_rows=2, max_rows=40, max_features=4, missing=0.3, weights=True), opts=options, missing=st.sampled_from(["distribute", "majority"]))
def test_weighted_and_missing_trees_are_the_same(kernel, ds, opts, missing):
    with backend(kernel):
        fast = c45(ds, missing=missing, **opts)
    assert same_tree(fast, c45(ds, missing=missing, splitters=SPEC, **opts))


@given(datasets(min_rows=2, max_rows=40, max_features=4, missing=0.3, weights=True), st.sampled_from([1, 40, 200, 10_000]))
@settings(max_examples=40)
def test_blocks_and_the_per_feature_fallback_grow_the_same_tree(ds, block):
    # The numpy path. BLOCK 1: every feature alone is too big, the specification's chunked scan
    # runs; 40 and 200: blocks of one or a few features (rows x classes up to 160 here);
    # 10,000: one block.
    with mock.patch.object(c45_vector, "BLOCK", block), backend(False):
        fast = c45(ds)
    assert same_tree(fast, c45(ds, splitters=SPEC))


@pytest.mark.parametrize("kernel", BACKENDS)
@given(
    ds=st.one_of(
        datasets(min_rows=2, max_rows=40, max_features=4, kinds=("numeric",)),  # whole counts: the table, the compiled loop
        datasets(min_rows=2, max_rows=40, max_features=4, kinds=("numeric",), missing=0.3, weights=True),
    ),
    min_leaf=st.sampled_from([0.0, 1.0, 2.0, 5.0]),
)
def test_options_at_the_root_are_the_specifications(kernel, ds, min_leaf):
    node = root_data(ds)
    total, k = float(node.stats.sum()), len(ds.schema.classes)
    spec = [o for i in range(len(node.numeric)) if (o := numeric_option(node, i, total, k, min_leaf, entropy)) is not None]
    with backend(kernel):
        fast = [s.option() for s in c45_vector.numeric_options(node, total, k, min_leaf)]
    assert [(o.feature, o.gain, o.ratio, o.threshold) for o in fast] == [(o.feature, o.gain, o.ratio, o.threshold) for o in spec]
    assert all(np.array_equal(a.branches, b.branches) for a, b in zip(fast, spec))


def test_whole_counts_use_the_table_and_fractions_do_not():
    stats = np.array([[1.0, 0.0], [0.0, 2.0]])
    assert c45_vector._whole_counts(stats, 3.0, 2).tolist() == [[1, 0], [0, 2]]
    assert c45_vector._whole_counts(stats * 0.5, 1.5, 2) is None
    assert c45_vector._whole_counts(stats, 1e12, 2) is None  # too heavy for a table


@given(st.lists(st.floats(0, 1e6), min_size=0, max_size=c45_kernel.MAX_CLASSES))
def test_pairwise_adds_in_numpys_order(xs):
    # The gains are equal floats only if the loop adds classes as numpy's sum does.
    a = np.array(xs, dtype=np.float64)
    assert c45_kernel._pairwise(a, len(a)) == np.stack([a, a]).sum(axis=-1)[0] == a.sum()


@st.composite
def scan_inputs(draw):
    """A node's sorted orders and values (NaN last), one class per row, as the builder makes them."""
    n = draw(st.integers(1, 30))
    f = draw(st.integers(1, 3))
    k = draw(st.integers(1, 12))
    weight = draw(hnp.arrays(np.int64, n, elements=st.integers(1, 4)))
    classes = draw(hnp.arrays(np.int64, n, elements=st.integers(0, k - 1)))
    counts = np.zeros((n, k), np.int64)
    counts[np.arange(n), classes] = weight
    values = draw(hnp.arrays(np.float64, (f, n), elements=st.one_of(st.integers(0, 5).map(float), st.just(math.nan))))
    order = np.argsort(values, axis=1, kind="stable")  # NaN sorts last
    values = np.take_along_axis(values, order, axis=1)
    total = float(weight.sum()) + draw(st.integers(0, 3))  # rows missing from the node's parent count too
    return order, values, counts, total, draw(st.integers(1, 12)), draw(st.sampled_from([0.0, 1.0, 2.0, 5.0]))


@given(scan_inputs())
def test_the_compiled_loop_is_its_specification(inputs):
    # pt_c45_scan in puretree/growth/_kernel.c against _scan, the Python it repeats: the very numbers
    order, values, counts, total, n_classes, min_leaf = inputs
    table = c45_vector._table(int(total) + 1)
    found = c45_kernel.scan_features(order, values, counts, table, total, n_classes, min_leaf)
    k = counts.shape[1]
    classes = counts.argmax(axis=1)
    shift = max(1, (k - 1).bit_length())
    rows = (counts[np.arange(len(counts)), classes] << shift) | classes
    spec = c45_kernel._scan(order, values, rows, shift, k, table, total, n_classes, min_leaf)
    assert all(np.array_equal(a, b) for a, b in zip(found, spec))


def test_the_compiled_loop_refuses_a_table_too_short():
    # an index past the table's end is never read: the caller takes numpy's way instead
    order, values, counts = np.array([[0, 1]]), np.array([[0.0, 1.0]]), np.array([[3, 0], [0, 3]])
    assert c45_kernel.scan_features(order, values, counts, c45_vector._table(4)[:4], 6.0, 2, 0.0) is None
    assert c45_kernel.scan_features(order, values, counts, c45_vector._table(7)[:7], 6.0, 2, 0.0) is not None


# Gains a few 1e-7 apart: J48's "better by more than 1e-6" makes the chosen cut depend on the
# order of the scan, which the fast path must replay.
near_ties = st.lists(st.one_of(st.just(-math.inf), st.integers(0, 12).map(lambda i: 0.5 + i * 4e-7), st.floats(0, 1)), min_size=1, max_size=12)


@given(st.lists(near_ties, min_size=1, max_size=5))
def test_scan_is_j48s_sequential_scan(rows):
    width = max(len(r) for r in rows)
    gains = np.array([r + [-math.inf] * (width - len(r)) for r in rows])
    best, pos = c45_vector.scan(gains)
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
    table = c45_vector._table(4)
    assert c45_kernel.scan_features(order, values, np.array([[1, 1], [0, 1]]), table, 3.0, 2, 0.0) is None
    n_cuts, best, where, known, left = c45_kernel.scan_features(order, values, np.array([[1, 0], [0, 1]]), table, 2.0, 2, 0.0)
    # One cut, between the two rows: a whole bit of gain.
    assert (n_cuts.tolist(), best.tolist(), where.tolist(), known.tolist(), left.tolist()) == ([1], [1.0], [0], [[1, 1]], [[1, 0]])


def test_a_library_that_cannot_be_compiled_leaves_numpy_to_do_it():
    # a compiler that fails (or none) is no error: numpy grows the same tree
    X = np.arange(200, dtype=float).reshape(100, 2)
    y = (np.arange(100) % 7 < 3).astype(int)
    with mock.patch.object(c45_kernel, "AVAILABLE", True), mock.patch.object(c45_kernel.kernels, "library", lambda: None), backend(True):
        tree = c45(X, y)
        assert c45_kernel.AVAILABLE is False
    assert tree == c45(X, y, splitters=SPEC)
