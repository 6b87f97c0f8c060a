"""puretree.dask.c45: C4.5 chosen on the client from the per-bin histograms equals the
in-memory ``puretree.c45(X, y, bins=edges)`` (unweighted classification, ``==``).

One LocalCluster (two workers, threads, no processes: cheap) serves the whole module.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import puretree
from puretree.errors import ParameterError
from puretree.fold import n_leaves
from puretree.nodes import Threshold

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

from puretree import dask as ptdask  # noqa: E402  (after the optional imports are known)
from dask_compare import frames, same_structure  # noqa: E402


@st.composite
def problems(draw, *, nan):
    """Small numeric data with ties (and maybe missing values), 2-3 classes, in 1-4 partitions."""
    n = draw(st.integers(2, 60))
    p = draw(st.integers(1, 3))
    values = st.integers(0, 6).map(float) | st.floats(-5, 5, allow_nan=False, width=32).map(float)
    if nan:
        values = values | st.just(np.nan)
    X = draw(hnp.arrays(np.float64, (n, p), elements=values))
    y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, draw(st.integers(1, 2)))))
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=3)))
    return X, y, np.diff([0, *cuts, n]).tolist()


def _dask(sizes, *columns):
    return [da.from_array(c, chunks=(tuple(sizes),) + c.shape[1:]) for c in columns]


_OPTIONS = dict(
    max_bins=st.sampled_from([2, 3, 5, 255]),
    max_depth=st.none() | st.integers(0, 3),
    min_samples_leaf=st.sampled_from([0, 1, 2, 3]),
    score=st.sampled_from(["gain_ratio", "information_gain", "gini"]),  # gini: the gain of another impurity
    collapse=st.booleans(),
    batch=st.sampled_from([1, 2**30]),
)


@settings(max_examples=20, deadline=None)
@given(problem=problems(nan=False), **_OPTIONS)
def test_dask_c45_equals_the_in_memory_c45_with_the_same_edges(client, problem, max_bins, batch, **options):
    X, y, sizes = problem
    Xd, yd = _dask(sizes, X, y)
    edges = ptdask.bin_edges(Xd, max_bins=max_bins)
    grown = ptdask.c45(Xd, yd, bins=edges, histogram_bytes=batch, **options)  # missing="distribute", C4.5's default
    assert grown == puretree.c45(X, y, bins=edges, **options)


@settings(max_examples=20, deadline=None)
@given(problem=problems(nan=True), **_OPTIONS)
def test_missing_values_go_down_the_heavier_branch_as_in_memory(client, problem, max_bins, batch, **options):
    X, y, sizes = problem
    Xd, yd = _dask(sizes, X, y)
    edges = ptdask.bin_edges(Xd, max_bins=max_bins)
    grown = ptdask.c45(Xd, yd, bins=edges, missing="majority", histogram_bytes=batch, **options)
    assert grown == puretree.c45(X, y, bins=edges, missing="majority", **options)


@settings(max_examples=15, deadline=None)
@given(problem=frames(), max_depth=st.none() | st.integers(0, 3), min_samples_leaf=st.sampled_from([1, 2, 3]), batch=st.sampled_from([1, 2**30]))
def test_categorical_features_split_one_branch_per_category_as_in_memory(client, problem, max_depth, min_samples_leaf, batch):
    frame, y, npartitions = problem
    ddf, dy = dd.from_pandas(frame, npartitions=npartitions), dd.from_pandas(pd.Series(y), npartitions=npartitions)
    edges = ptdask.bin_edges(ddf, max_bins=4)
    options = dict(max_depth=max_depth, min_samples_leaf=min_samples_leaf, missing="majority")
    grown = ptdask.c45(ddf, dy, bins=edges, histogram_bytes=batch, **options)
    # the frame as its partitions hold it (dask may store an object column as strings)
    assert grown == puretree.c45(ddf.compute(), y, bins=edges, **options)


def test_exact_tree_on_a_small_example(client):
    X = np.array([[0.5, 3.0], [1.2, 1.0], [1.7, 2.0], [2.5, 0.0], [3.1, 3.0], [3.9, 1.0], [0.2, 2.0], [2.9, 0.0]])
    y = np.array(["a", "a", "a", "b", "b", "b", "a", "b"])
    Xd, yd = _dask([3, 3, 2], X, y)
    edges = ([1.0, 2.0, 3.0, 4.0], [0.0, 1.0, 2.0, 3.0])
    tree = ptdask.c45(Xd, yd, bins=edges, min_samples_leaf=1)
    assert tree.root.feature == 0 and tree.root.test == Threshold(2.0)  # an edge, not the midpoint 2.25
    assert tree.to_text() == "x0 <= 2: a (4)\nx0 > 2: b (4)"
    assert tree == puretree.c45(X, y, bins=edges, min_samples_leaf=1)
    assert tree.missing == "distribute" and tree.criterion == "entropy"
    assert ptdask.predict(tree, Xd).compute().tolist() == y.tolist()


def test_max_bins_computes_the_edges_on_the_workers(client):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=200) > 0).astype(int)
    Xd, yd = _dask([50] * 4, X, y)
    grown = ptdask.c45(Xd, yd, max_bins=8)
    assert grown == puretree.c45(X, y, bins=ptdask.bin_edges(Xd, max_bins=8))
    assert grown == ptdask.c45(Xd, yd, bins=ptdask.bin_edges(Xd, max_bins=8))


@settings(max_examples=20, deadline=None)
@given(problem=problems(nan=True), **_OPTIONS)
def test_distribute_sends_fractions_of_rows_down_every_branch_as_in_memory(client, problem, max_bins, batch, **options):
    # the fractions are summed in another order (each partition's instances, then the
    # partitions): the in-memory structure, statistics within 1e-9
    X, y, sizes = problem
    Xd, yd = _dask(sizes, X, y)
    edges = ptdask.bin_edges(Xd, max_bins=max_bins)
    grown = ptdask.c45(Xd, yd, bins=edges, missing="distribute", histogram_bytes=batch, **options)
    expected = puretree.c45(X, y, bins=edges, missing="distribute", **options)
    assert (grown.schema, grown.missing, grown.criterion) == (expected.schema, expected.missing, expected.criterion)
    same_structure(grown.root, expected.root)


def test_distribute_on_an_exact_example(client):
    # x0 of row 3 is missing: it goes down both branches, 3/5 and 2/5 of a row (the known weights)
    X = np.array([[1.0], [1.0], [np.nan], [1.0], [3.0], [3.0]])
    y = np.array([0, 0, 1, 0, 1, 1])
    Xd, yd = _dask([3, 3], X, y)
    tree = ptdask.c45(Xd, yd, bins=[[1.0, 2.0, 3.0]], min_samples_leaf=1, collapse=False)
    same_structure(tree.root, puretree.c45(X, y, bins=[[1.0, 2.0, 3.0]], min_samples_leaf=1, collapse=False).root)
    assert tree.root.test == Threshold(1.0)
    np.testing.assert_allclose(tree.root.children[0].stats, (3.0, 0.6))
    np.testing.assert_allclose(tree.root.children[1].stats, (0.0, 2.4))
    with pytest.raises(ParameterError, match="not yet 'distribute'"):  # cart and id3: not yet
        ptdask.cart(Xd, yd, bins=[[1.0, 2.0, 3.0]], missing="distribute")


def test_options_are_checked():
    Xd, yd = _dask([2], np.array([[1.0], [2.0]]), np.array([0.0, 1.0]))
    with pytest.raises(ParameterError, match="classification trees"):
        ptdask.c45(Xd, yd, task="regression")
    with pytest.raises(ParameterError, match="gain_ratio"):  # as the in-memory c45 refuses it
        ptdask.c45(Xd, yd, score=lambda parent, children, names: np.zeros(children.shape[:-2]))
    with pytest.raises(ParameterError, match="not both"):
        ptdask.c45(Xd, yd, bins=[[1.0, 2.0]], max_bins=4)
    with pytest.raises(ParameterError, match="threshold"):
        ptdask.c45(Xd, yd, threshold="middle")
    with pytest.raises(ParameterError, match="collapse"):
        ptdask.c45(Xd, yd, collapse="yes")


def test_a_larger_sample_through_the_compiled_scan_and_with_weights(client):
    # 3,000 rows x 5: big enough for the in-memory c45's compiled scan of whole counts
    rng = np.random.default_rng(3)
    X = rng.normal(size=(3000, 5)).round(2)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + 0.5 * rng.normal(size=3000) > 0).astype(int) + (X[:, 3] > 1.2)
    Xd, yd = _dask([750] * 4, X, y)
    edges = ptdask.bin_edges(Xd, max_bins=32)
    grown = ptdask.c45(Xd, yd, bins=edges)
    assert grown == puretree.c45(X, y, bins=edges)
    assert n_leaves(grown) > 5  # a real tree, not a stump
    # weights: the in-memory structure, the statistics summed in another order
    w = rng.choice([0.5, 1.0, 2.0], size=3000)
    weighted = ptdask.c45(Xd, yd, bins=edges, sample_weight=_dask([750] * 4, w)[0])
    expected = puretree.c45(X, y, bins=edges, sample_weight=w)
    assert weighted.to_text() == expected.to_text()
