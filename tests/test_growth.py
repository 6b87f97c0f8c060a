"""The growth package's pieces on their own, without Dask: the frontier loop over the histogram source
(:func:`puretree.growth.histograms.grow`) over blocks of rows held in memory grows the tree the
in-memory engine grows from the same bin edges, and the chooser keeps the reference's tie rule."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import puretree
from puretree.criteria import SCORES
from puretree.growth import choose, histograms, level
from puretree.nodes import Leaf, Split, Threshold
from puretree.splits import node_features, tie_first


class MemoryBlocks:
    """The rows cut into blocks, each block's functions called in turn (the Blocks protocol)."""

    def __init__(self, bins: np.ndarray, target: np.ndarray, sizes: list[int]) -> None:
        at = np.cumsum(sizes)[:-1]
        self.bins, self.target = np.split(bins, at), np.split(target, at)
        self.node: list = []

    def start(self, fn):
        self.node = [fn(t, None) for t in self.target]

    def total(self, fn, *shared):
        return functools.reduce(histograms.merge, [fn(b, t, None, n, *shared) for b, t, n in zip(self.bins, self.target, self.node)])

    def update(self, fn, *shared):
        self.node = [fn(b, n, *shared) for b, n in zip(self.bins, self.node)]


def _bins(X: np.ndarray, edges: tuple[np.ndarray, ...], missing: int) -> np.ndarray:
    """Each value's bin: the first whose upper edge is at or above it (the last, above them all)."""
    out = np.column_stack([np.minimum(np.searchsorted(e, X[:, j], side="left"), len(e) - 1) for j, e in enumerate(edges)]).astype(np.uint16)
    out[np.isnan(X)] = missing
    return out


def _grown(X, y, sizes, edges, *, c45: bool, max_depth, min_samples_leaf) -> puretree.Tree:
    k = int(y.max()) + 1
    n_bins = max(len(e) for e in edges) + 1
    score = SCORES["gain_ratio" if c45 else "gini"]
    p = X.shape[1]
    rules = histograms.Rules(score, np.array([f"x{j}" for j in range(p)]), max_depth, 2.0, float(min_samples_leaf), None, False, False, np.zeros(p, dtype=bool), c45, (0,) * p)
    blocks = MemoryBlocks(_bins(X, edges, n_bins - 1), y, sizes)
    root = histograms.grow(blocks, rules, edges=edges, n_bins=n_bins, k=k, c45=histograms.C45Rules(True, score.impurity) if c45 else None, spread=False, histogram_bytes=2**20)
    schema = puretree.as_dataset(X, y).schema
    return puretree.Tree(root, schema, "majority")


@st.composite
def problems(draw):
    """Small numeric data with ties and missing values, 2-3 classes (each present), in 1-4 blocks."""
    n = draw(st.integers(2, 40))
    p = draw(st.integers(1, 3))
    values = st.integers(0, 6).map(float) | st.floats(-5, 5, allow_nan=False, width=32).map(float) | st.just(np.nan)
    X = draw(hnp.arrays(np.float64, (n, p), elements=values))
    k = draw(st.integers(2, 3))
    y = np.concatenate([np.arange(k), draw(hnp.arrays(np.int64, n, elements=st.integers(0, k - 1)))])
    X = np.vstack([np.zeros((k, p)), X])
    cuts = sorted(draw(st.sets(st.integers(1, len(y) - 1), max_size=3)))
    return X, y, np.diff([0, *cuts, len(y)]).tolist()


@settings(max_examples=60, deadline=None)
@given(problem=problems(), n_edges=st.integers(1, 6), c45=st.booleans(), max_depth=st.none() | st.integers(0, 3), min_samples_leaf=st.integers(1, 3))
def test_the_histogram_source_grows_the_engines_tree_from_the_same_edges(problem, n_edges, c45, max_depth, min_samples_leaf):
    X, y, sizes = problem
    edges = tuple(np.unique(np.r_[np.nanquantile(X[:, j], np.linspace(0, 1, n_edges)), np.nanmax(X[:, j])]) if not np.isnan(X[:, j]).all() else np.array([0.0]) for j in range(X.shape[1]))
    options = dict(max_depth=max_depth, min_samples_leaf=min_samples_leaf)
    grown = _grown(X, y, sizes, edges, c45=c45, **options)
    if c45:
        assert grown == puretree.c45(X, y, bins=edges, missing="majority", collapse=False, **options)
    else:
        assert grown == puretree.cart(X, y, bins=edges, **options)


@given(scores=hnp.arrays(np.float64, st.integers(1, 8), elements=st.sampled_from([0.0, 0.5, 0.5 - 1e-13, 0.5 + 1e-13, 1.0, -np.inf])).filter(lambda s: s.max() > -np.inf))
def test_the_choosers_tie_rules_are_the_reference_one(scores):
    assert int(choose.first_tied(scores[None])[0]) == tie_first(scores)
    assert choose.first_tied_in_groups(scores, np.zeros(len(scores), dtype=np.int64)).tolist() == [tie_first(scores)]


def test_choosing_among_kinds_takes_the_lowest_feature_among_ties_and_honours_min_gain():
    scores = np.array([[0.5, 0.5 - 1e-14], [0.2, 0.4], [-np.inf, -np.inf]])
    features = np.array([[4, 2], [1, 3], [0, 0]])
    has, choice = choose.among_kinds(scores, features, None)
    assert has.tolist() == [True, True, False] and choice[:2].tolist() == [1, 1]
    has, _ = choose.among_kinds(scores, features, 0.45)
    assert has.tolist() == [True, False, False]
    with pytest.raises(puretree.errors.ParameterError, match="c45 chooses splits"):
        choose.c45_criterion(SCORES["gini"].impurity)


class _Complete:
    """A source of a complete binary tree ``depth`` levels deep (every node splits on feature 0),
    recording what the frontier loop hands it."""

    def __init__(self, depth: int) -> None:
        self.depth, self.n, self.seen = depth, 1, []

    def rows(self) -> int:
        return 4 * self.n

    def stats(self) -> np.ndarray:
        return np.ones((self.n, 2))

    def closed(self, depths: np.ndarray) -> np.ndarray:
        return depths >= self.depth

    def keep(self, mask: np.ndarray) -> None:
        self.n = int(mask.sum())

    def split(self, depths, allowed, paths, n_made):
        assert len(depths) == self.n and len(set(depths.tolist())) == 1
        self.seen.append((int(depths[0]), allowed, paths, n_made))
        return [(0, Threshold(float(d)), [None, None]) for d in depths.tolist()]

    def advance(self) -> None:
        self.n *= 2


@settings(max_examples=30)
@given(depth=st.integers(0, 4), n_features=st.integers(1, 12), data=st.data())
def test_the_frontier_loop_numbers_records_draws_features_once_per_node_and_reports_each_depth(depth, n_features, data):
    max_features = data.draw(st.none() | st.integers(1, n_features))
    source, reports = _Complete(depth), []
    root = level.grow(source, n_features=n_features, max_features=max_features, feature_key=(3, 1), progress=lambda *a: reports.append(a))
    # the tree: complete, each split's test its depth, every node's statistics the source's
    kids = [root]
    for d in range(depth):
        assert all(isinstance(n, Split) and n.test == Threshold(float(d)) and n.stats == (1.0, 1.0) for n in kids)
        kids = [c for n in kids for c in n.children]
    assert len(kids) == 2**depth and all(isinstance(n, Leaf) and n.stats == (1.0, 1.0) for n in kids)
    # one split() per depth, the nodes made before it, and each node's draw from its own path
    assert [(d, made) for d, _, _, made in source.seen] == [(d, 2 ** (d + 1) - 1) for d in range(depth)]
    for d, allowed, paths, _ in source.seen:
        if max_features is None:
            assert allowed is None and paths is None
            continue
        assert paths == [tuple(int(b) for b in format(i, f"0{d}b")) if d else () for i in range(2**d)]
        assert [np.flatnonzero(a).tolist() for a in allowed] == [node_features(n_features, max_features, (3, 1), p).tolist() for p in paths]
    # progress: each depth's new nodes and its frontier's rows
    assert reports == [(d, 2**d, 4 * 2**d) for d in range(depth + 1)]


def test_feature_subsampling_draws_in_the_frontier_loop_only():
    # A lone node (the root, here) is searched by the reference's generators (the sorted
    # source's small-node path); they see the loop's draw and do not draw again.
    from unittest import mock

    from puretree import splits
    from puretree.fold import iter_nodes

    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 6))
    ds = puretree.as_dataset(X, (X[:, 0] + X[:, 3] > 0).astype(int) + (X[:, 5] > 1))
    with mock.patch.object(splits, "node_features", wraps=splits.node_features) as again, mock.patch.object(level, "drawn", wraps=level.drawn) as drawn:
        tree = puretree.cart(ds, max_features=2, seed=4, engine="numpy")
    assert again.call_count == 0
    # a frontier's draws at a time: every split searched a draw
    assert sum(len(call.args[3]) for call in drawn.call_args_list) >= sum(isinstance(n, Split) for n in iter_nodes(tree.root)) > 1
    assert tree == puretree.cart(ds, max_features=2, seed=4, engine="reference")
