"""The binned source's compiled loops (puretree/growth/_histograms.c) against its numpy
functions: the same floats, bit for bit; and the in-memory binned fit grown by that source,
equal to the sorted source's tree on the binned values."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import puretree as pt
from puretree.errors import DataError
from puretree.growth import histograms as hist
from puretree.growth import sorted as sorted_source

pytestmark = pytest.mark.skipif(hist._library() is None, reason="the compiled library is not built here")  # the wheel tests cover the build


@st.composite
def blocks(draw):
    """A block of binned rows: bins, node ids (-1: none), a batch of slots, targets, weights."""
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    n, p, n_bins, nodes = draw(st.integers(0, 300)), draw(st.integers(1, 6)), draw(st.integers(2, 20)), draw(st.integers(1, 8))
    k = draw(st.sampled_from([0, 1, 2, 5]))
    dtype = draw(st.sampled_from([np.uint8, np.uint16, np.uint32]))
    bins = rng.integers(0, n_bins, size=(n, p)).astype(dtype)
    node = rng.integers(-1, nodes, size=n).astype(np.int32)
    slot = np.where(rng.random(nodes) < 0.8, 0, -1).astype(np.int64)
    n_slots = int((slot >= 0).sum())
    slot[slot >= 0] = np.arange(n_slots)
    if k:
        target = rng.integers(0, k, size=n).astype(np.int32)
    else:
        target = rng.normal(size=n) * 10.0 ** rng.integers(-3, 4, size=n)
        target[rng.random(n) < 0.1] = -0.0
    weight = None if draw(st.booleans()) else rng.random(n) * 10.0 ** rng.integers(-2, 3, size=n) * (rng.random(n) > 0.2)
    return bins, target, weight, node, slot, max(n_slots, 1), n_bins, k


@settings(max_examples=150, deadline=None)
@given(blocks(), st.integers(1, 3))
def test_compiled_histograms_are_numpys_bit_for_bit(block, threads):
    bins, target, weight, node, slot, n_slots, n_bins, k = block
    want = hist.histogram(bins, target, weight, node, slot, n_slots, n_bins, k, compiled=False)
    got = hist.histogram(bins, target, weight, node, slot, n_slots, n_bins, k, compiled=True, threads=threads)
    for a, b in zip(want, got):
        assert (a is None) == (b is None)
        if a is not None:
            assert a.shape == b.shape and a.tobytes() == b.tobytes()


@settings(max_examples=150, deadline=None)
@given(blocks(), st.sampled_from([1, 2, 3, 7]))
def test_compiled_cut_sums_are_the_cumulated_bins(block, min_leaf):
    # every candidate cut of the histograms, by the compiled scan of the non-empty bins and by
    # numpy's cumsum of every bin: the same cuts and floats (signed zeros included)
    bins, target, weight, node, slot, n_slots, n_bins, k = block
    H = hist.histogram(bins, target, weight, node, slot, n_slots, n_bins, k, compiled=False)[0]
    parents = H[:, 0].sum(axis=1)
    rules = hist.Rules("gini", np.array(["x"] * H.shape[1]), None, 2, min_leaf, None, k == 0, False, np.zeros(H.shape[1], dtype=bool), False, (0,) * H.shape[1])
    C = np.cumsum(H[:, :, :-1], axis=2)
    rows = C[..., -1]
    valid = (H[:, :, :-1, -1] > 0) & (rows < rows[:, :, -1:])
    if min_leaf > 1:
        valid &= (rows >= min_leaf) & (rows[:, :, -1:] - rows >= min_leaf)
    ni, fj, bb = np.nonzero(valid)
    want = (ni, fj, bb, C[ni, fj, bb, :-1], C[ni, fj, -1, :-1])
    for got in (hist._c_cut_sums(hist._library(required=True), H, rules.min_samples_leaf, parents), hist._cut_sums(H, min_leaf)):
        for a, b in zip(want, got):
            assert a.shape == b.shape and a.tobytes() == b.tobytes()


@settings(max_examples=100, deadline=None)
@given(blocks(), st.integers(1, 3))
def test_compiled_moves_are_numpys(block, threads):
    bins, _, _, node, _, _, n_bins, _ = block
    rng = np.random.default_rng(abs(int(node.sum())) + 7)
    g = int(node.max(initial=0)) + 1
    p = bins.shape[1]
    feature = rng.integers(0, p, size=g)
    cut = rng.integers(0, n_bins, size=g)
    left = rng.integers(-1, 9, size=g).astype(np.int32)
    right = rng.integers(-1, 9, size=g).astype(np.int32)
    heavy = rng.integers(0, 2, size=g).astype(np.int8)
    table_of = np.where(rng.random(g) < 0.3, rng.integers(0, 2, size=g), -1)
    dest = rng.integers(-1, 9, size=(2, n_bins)).astype(np.int32)
    want = hist.move(bins, node, feature, cut, left, right, heavy, n_bins - 1, table_of, dest, compiled=False)
    got = hist.move(bins, node, feature, cut, left, right, heavy, n_bins - 1, table_of, dest, compiled=True, threads=threads)
    assert np.array_equal(want, got)


@settings(max_examples=150, deadline=None)
@given(blocks())
def test_compiled_class_counts_are_the_histograms_class_channels(block):
    # what a worker sends for unweighted classes (packed int32 counts) counted directly by the
    # compiled loop: the class channels of numpy's float64 histogram, the same numbers
    bins, target, _, node, slot, n_slots, n_bins, k = block
    if k == 0:
        target = (np.abs(target) * 7).astype(np.int64) % 3
        k = 3
    want = hist.histogram(bins, target, None, node, slot, n_slots, n_bins, k, compiled=False)[0][..., :-1]
    got = hist.packed(bins, target, None, node, hist.histogram, slot, n_slots, n_bins, k)
    assert isinstance(got[0], hist.Packed) and got[1:] == (None, None)
    assert got[0].counts.dtype == np.int32 and got[0].counts.shape == want.shape and (got[0].counts == want).all()
    assert (hist.unpack(got[0]) == hist.histogram(bins, target, None, node, slot, n_slots, n_bins, k, compiled=False)[0]).all()


def test_compiled_class_counts_refuse_a_class_out_of_range():
    with pytest.raises(DataError, match="out of range"):
        hist.packed(np.zeros((2, 1), dtype=np.uint8), np.array([0, 2], dtype=np.int32), None, np.zeros(2, dtype=np.int32), hist.histogram, np.zeros(1, dtype=np.int64), 1, 2, 2)


@settings(max_examples=150, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(0, 200), st.integers(1, 4), st.sampled_from([1, 2, 3, 17, 255, 256, 300]))
def test_compiled_binning_is_searchsorted(seed, n, p, m):
    # the bins of values on, between, below and above the edges, signed zeros, NaN: numpy's
    # searchsorted (side "left", clipped to the last edge's bin), NaN in the missing bin
    rng = np.random.default_rng(seed)
    edges = [np.unique(np.round(rng.normal(size=m) * 10, 1)) for _ in range(p)]
    edges = [e if len(e) else np.zeros(1) for e in edges]
    n_bins = max(len(e) for e in edges) + 1
    dtype = np.uint8 if n_bins <= 256 else np.uint16
    X = np.round(rng.normal(size=(n, p)) * 12, 1)
    for j, e in enumerate(edges):
        on = rng.random(n) < 0.3
        X[on, j] = rng.choice(np.concatenate((e, [0.0, -0.0, 1e300, -1e300])), size=int(on.sum()))
    X[rng.random((n, p)) < 0.1] = np.nan
    want = np.column_stack([np.where(np.isnan(X[:, j]), n_bins - 1, np.minimum(np.searchsorted(e, X[:, j], side="left"), len(e) - 1)) for j, e in enumerate(edges)]).reshape(n, p)
    got = hist.bin_columns(X, edges, dtype, n_bins - 1, compiled=True)
    assert got.dtype == dtype and (got == want).all()
    assert (hist.bin_columns(X, edges, dtype, n_bins - 1, compiled=False) == want).all()
    assert (hist.bin_columns(np.asfortranarray(X), edges, dtype, n_bins - 1, compiled=True) == want).all()  # not C-ordered: numpy's search


def test_binning_past_the_bins_type_is_refused():
    with pytest.raises(DataError, match="do not fit uint8"):
        hist.bin_columns(np.zeros((2, 1)), [np.arange(300.0)], np.uint8, 300, compiled=True)


def test_an_index_out_of_range_is_refused_not_read():
    bins = np.array([[0], [5]], dtype=np.uint8)  # bin 5 of 3
    with pytest.raises(DataError, match="out of range"):
        hist.histogram(bins, np.array([0, 1], dtype=np.int32), None, np.zeros(2, dtype=np.int32), np.zeros(1, dtype=np.int64), 1, 3, 2, compiled=True)
    with pytest.raises(DataError, match="out of range"):  # a class code past k
        hist.histogram(bins[:1], np.array([4], dtype=np.int32), None, np.zeros(1, dtype=np.int32), np.zeros(1, dtype=np.int64), 1, 3, 2, compiled=True)


def _data(seed: int, n: int = 3000, missing: bool = False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[:, 3] = rng.integers(0, 3, size=n)
    y = ((X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int) + (X[:, 1] > 1)).astype(int)
    if missing:
        X[rng.random(X.shape) < 0.05] = np.nan
    return X, y


@pytest.mark.parametrize("missing", [False, True])
@pytest.mark.parametrize("options", [{"max_bins": 16}, {"max_bins": 255, "min_samples_leaf": 5}, {"max_bins": 8, "max_depth": 4, "min_gain": 0.001}, {"max_bins": 16, "max_features": 2, "seed": 4}])
def test_the_binned_fit_is_the_sorted_sources_tree(monkeypatch, options, missing):
    X, y = _data(3, missing=missing)
    grown = []
    original = hist.grow_binned
    monkeypatch.setattr(hist, "grow_binned", lambda *a, **k: grown.append(1) or original(*a, **k))
    for engine in ("auto", "numpy"):
        tree = pt.cart(X, y, engine=engine, **options)
        with monkeypatch.context() as m:  # the sorted source on the binned values, as before
            m.setattr(hist, "applies", lambda *a: False)
            assert tree == pt.cart(X, y, engine=engine, **options)
    assert len(grown) == 2  # the histogram source grew both (C, then numpy)
    edges = [np.unique(np.nanquantile(X[:, j], np.linspace(0, 1, 12)[1:])) for j in range(X.shape[1])]
    assert pt.id3(X, y, bins=edges) == pt.id3(X, y, bins=edges, engine="numpy")


def test_fits_outside_the_histogram_source_keep_the_sorted_source(monkeypatch):
    X, y = _data(5)
    calls = []
    original = sorted_source.Sorted.__init__
    monkeypatch.setattr(sorted_source.Sorted, "__init__", lambda self, *a, **k: calls.append(1) or original(self, *a, **k))
    pt.cart(X, y, max_bins=16, sample_weight=np.linspace(0.5, 2, len(y)))  # weights: sums in another order
    pt.cart_regressor(X, y.astype(float), max_bins=16)
    pt.cart(X, y, max_bins=16, accept=lambda parent, children: True)  # a hook: the sorted source hands it statistics
    assert len(calls) == 3
    pt.cart(X, y, max_bins=16, max_features=2, seed=1)
    assert len(calls) == 3
