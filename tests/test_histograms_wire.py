"""What the histogram source sends and sums: unweighted class counts travel packed (int32 counts,
the rows channel rebuilt as their sum) and add up to the same floats as the float histograms;
a split node's heaviest child's histogram is its parent's less its siblings', so only the
lighter children's are summed over the blocks, and the tree stays the binned tree."""

from __future__ import annotations

import functools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import puretree
from puretree.criteria import SCORES
from puretree.growth import histograms as hist


@st.composite
def class_blocks(draw):
    """Blocks of binned rows with class codes and node ids (-1: none), and a batch of slots."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    p, n_bins, nodes, k = draw(st.integers(1, 4)), draw(st.integers(2, 12)), draw(st.integers(1, 5)), draw(st.integers(1, 4))
    sizes = draw(st.lists(st.integers(0, 60), min_size=1, max_size=4))
    slot = np.where(rng.random(nodes) < 0.8, 0, -1).astype(np.int64)
    n_slots = int((slot >= 0).sum())
    slot[slot >= 0] = np.arange(n_slots)
    blocks = [(rng.integers(0, n_bins, size=(n, p)).astype(np.uint8), rng.integers(0, k, size=n).astype(np.int32), rng.integers(-1, nodes, size=n).astype(np.int32)) for n in sizes]
    return blocks, (slot, max(n_slots, 1), n_bins, k)


@settings(max_examples=60, deadline=None)
@given(problem=class_blocks())
def test_packed_class_counts_add_up_to_the_float_histograms_bit_for_bit(problem):
    blocks, shared = problem
    floats = functools.reduce(hist.merge, [hist.histogram(b, t, None, n, *shared) for b, t, n in blocks])
    sent = [hist.packed(b, t, None, n, hist.histogram, *shared) for b, t, n in blocks]
    assert all(isinstance(s[0], hist.Packed) and s[0].counts.dtype == np.int32 and s[0].counts.shape[-1] == shared[-1] for s in sent)
    packed = functools.reduce(hist.merge, sent)
    H = hist.unpack(packed[0])
    assert H.dtype == np.float64 and H.shape == floats[0].shape
    assert H.tobytes() == floats[0].tobytes()
    assert packed[1:] == (None, None)


def test_weighted_or_regression_statistics_travel_as_floats():
    bins = np.array([[0], [1], [1]], dtype=np.uint8)
    node, slot = np.zeros(3, dtype=np.int32), np.zeros(1, dtype=np.int64)
    weighted = hist.packed(bins, np.array([0, 1, 1], dtype=np.int32), np.array([0.5, 1.0, 2.0]), node, hist.histogram, slot, 1, 3, 2)
    assert isinstance(weighted[0], np.ndarray) and weighted[0][0, 0, 1].tolist() == [0.0, 3.0, 2.0]
    regression = hist.packed(bins, np.array([1.0, 2.0, 4.0]), None, node, hist.histogram, slot, 1, 3, 0)
    assert isinstance(regression[0], np.ndarray) and regression[1].tolist() == [1.0] and regression[2].tolist() == [4.0]


class CountingBlocks(hist.Rows):
    """Rows in memory that count the histograms summed (slots), level after level."""

    summed: list[int] = []

    def total(self, fn, *shared):
        if fn is hist.histogram:
            self.summed.append(int(shared[1]))
        return super().total(fn, *shared)


def _grown(X, y, edges, max_depth, histogram_bytes):
    """The tree the histogram source grows from ``X`` binned by ``edges``, the histograms summed
    (slots) and the nodes searched, level after level."""
    bins, found, n_bins = hist.binned_rows(X, edges=edges)
    p, k = X.shape[1], int(y.max()) + 1
    rules = hist.Rules(SCORES["gini"], np.array([f"x{j}" for j in range(p)]), max_depth, 2.0, 1.0, None, False, False, np.zeros(p, dtype=bool), False, (0,) * p, integral=True)
    blocks = CountingBlocks(bins, y.astype(np.int32), None)
    blocks.summed = []
    source = hist.Histograms(blocks, rules, edges=found, n_bins=n_bins, k=k, c45=None, spread=False, histogram_bytes=histogram_bytes)
    searched: list[int] = []
    split = source.split
    source.split = lambda depths, *a: (searched.append(len(depths)), split(depths, *a))[1]  # type: ignore[method-assign]
    root = puretree.growth.level.grow(source, n_features=p)
    return puretree.Tree(root, puretree.as_dataset(X, y).schema, "majority"), sum(blocks.summed), sum(searched)


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**16), n=st.integers(20, 200), k=st.integers(2, 3), max_depth=st.none() | st.integers(1, 5), histogram_bytes=st.sampled_from([1, 2**10, 2**20]))
def test_subtracting_siblings_grows_the_binned_tree_and_sums_no_more_histograms(seed, n, k, max_depth, histogram_bytes):
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, 3)), 1)
    X[rng.random((n, 3)) < 0.05] = np.nan
    y = np.concatenate([np.arange(k), ((X[:, 0] > 0) + (np.nan_to_num(X[:, 1]) > 0.5) * (k - 2) + (rng.random(n) < 0.2)) % k])
    X = np.vstack([np.zeros((k, 3)), X])
    edges = tuple(np.unique(np.round(np.nanquantile(X[:, j], np.linspace(0, 1, 9)), 1)) for j in range(3))
    tree, summed, searched = _grown(X, y, edges, max_depth, histogram_bytes)
    assert tree == puretree.cart(X, y, bins=edges, max_depth=max_depth)
    assert summed <= searched  # a closed sibling's histogram may be summed in place of its open sibling's


def test_only_the_lighter_children_are_summed():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 4))
    y = ((X[:, 0] + X[:, 1] * X[:, 2] + rng.normal(size=2000) * 0.5) > 0).astype(int)
    edges = tuple(np.quantile(X[:, j], np.linspace(0, 1, 32)) for j in range(4))
    tree, summed, searched = _grown(X, y, edges, 6, 2**20)
    assert tree == puretree.cart(X, y, bins=edges, max_depth=6)
    assert searched > 30 and summed <= 0.6 * searched  # the root, then about half of every level
    kept_none, all_summed, searched_again = _grown(X, y, edges, 6, 1)  # no room to keep a parent's counts
    assert kept_none == tree and all_summed == searched_again == searched
