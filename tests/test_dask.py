"""puretree.dask: trees grown on data spread over Dask workers equal the in-memory ones.

One LocalCluster (two workers, threads, no processes: cheap) serves the whole module; each
Hypothesis example costs a few cluster round trips per level, so the properties draw few.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import puretree
from puretree.errors import DataError, ParameterError, PuretreeError

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

from puretree import dask as ptdask  # noqa: E402  (after the optional imports are known)
from puretree.growth import histograms  # noqa: E402


def _chunked(X, y, sizes):
    return da.from_array(X, chunks=(tuple(sizes), X.shape[1])), da.from_array(y, chunks=(tuple(sizes),))


@st.composite
def problems(draw):
    """Small numeric data with repeated values (ties), 2-3 classes, split into 1-4 partitions."""
    n = draw(st.integers(2, 40))
    p = draw(st.integers(1, 3))
    values = st.integers(0, 6).map(float) | st.floats(-5, 5, allow_nan=False, width=32).map(float)
    X = draw(hnp.arrays(np.float64, (n, p), elements=values))
    y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, draw(st.integers(1, 2)))))
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=3))) if n > 1 else []
    sizes = np.diff([0, *cuts, n]).tolist()
    return X, y, sizes


@settings(max_examples=20, deadline=None)
@given(problem=problems(), max_bins=st.sampled_from([2, 3, 5, 255]), max_depth=st.none() | st.integers(0, 3), min_samples_leaf=st.integers(1, 3), min_samples_split=st.integers(2, 5), batch=st.sampled_from([1, 2**30]))
def test_dask_tree_equals_the_in_memory_tree_with_the_same_edges(client, problem, max_bins, max_depth, min_samples_leaf, min_samples_split, batch):
    X, y, sizes = problem
    Xd, yd = _chunked(X, y, sizes)
    edges = ptdask.bin_edges(Xd, max_bins=max_bins)
    assert all(len(e) <= max_bins and (np.diff(e) > 0).all() for e in edges)
    options = dict(max_depth=max_depth, min_samples_leaf=min_samples_leaf, min_samples_split=min_samples_split)
    grown = ptdask.cart(Xd, yd, bins=edges, histogram_bytes=batch, **options)  # 1: one node per batch
    assert grown == puretree.cart(X, y, bins=edges, **options)


@settings(max_examples=20, deadline=None)
@given(problem=problems())
def test_edges_of_few_values_are_the_values_and_match_max_bins(problem):
    # no cluster: bins given as each column's distinct values leave the data unchanged, as
    # max_bins does when a column has fewer distinct values than bins
    X, y, _ = problem
    edges = tuple(np.unique(X[:, j]) for j in range(X.shape[1]))
    assert puretree.cart(X, y, bins=edges) == puretree.cart(X, y, max_bins=255)


def test_exact_tree_on_a_small_example(client):
    X = np.array([[1.0, 5.0], [2.0, 4.0], [3.0, 3.0], [4.0, 2.0], [5.0, 1.0], [6.0, 0.0]])
    y = np.array(["a", "a", "b", "b", "b", "c"])
    Xd, yd = _chunked(X, y, [2, 2, 2])
    edges = ptdask.bin_edges(Xd, max_bins=255)
    assert [e.tolist() for e in edges] == [[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]]
    tree = ptdask.cart(Xd, yd, bins=edges)
    assert tree.to_text().splitlines() == ["x0 <= 2: a (2)", "x0 > 2", "|   x0 <= 5: b (3)", "|   x0 > 5: c (1)"]
    assert tree == puretree.cart(X, y, bins=edges)
    assert ptdask.predict(tree, Xd).compute().tolist() == y.tolist()


def test_edges_are_upper_edges_and_values_map_to_the_first_edge_above():
    # in memory: 2.5 belongs to the bin of edge 3, so x <= 3 (the cut) keeps it left of 4.5
    X = np.array([[1.0], [2.5], [4.5], [9.0]])
    tree = puretree.cart(X, [0, 0, 1, 1], bins=[[1.0, 3.0, 5.0]])
    assert tree.root.threshold == 3.0
    assert tree.predict(np.array([[3.0], [3.5]])).tolist() == [0, 1]


def test_many_values_get_at_most_max_bins_edges_ending_at_the_maximum(client):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 2))
    edges = ptdask.bin_edges(da.from_array(X, chunks=(500, 2)), max_bins=16)
    for j, e in enumerate(edges):
        assert 2 <= len(e) <= 16 and (np.diff(e) > 0).all() and e[-1] == X[:, j].max()
        # approximate quantiles: each bin holds roughly 1/16 of the rows
        sizes = np.bincount(np.minimum(np.searchsorted(e, X[:, j]), len(e) - 1), minlength=len(e))
        assert sizes.max() < 3 * len(X) / 16


def test_dataframe_input_names_the_features_and_predicts_a_series(client):
    rng = np.random.default_rng(1)
    frame = pd.DataFrame({"height": rng.integers(0, 8, 60).astype(float), "width": rng.normal(size=60)})
    labels = pd.Series(np.where(frame["height"] + frame["width"] > 3.5, "big", "small"), name="size")
    ddf, dy = dd.from_pandas(frame, npartitions=3), dd.from_pandas(labels, npartitions=3)
    edges = ptdask.bin_edges(ddf, max_bins=8)
    tree = ptdask.cart(ddf, dy, bins=edges, max_depth=3)
    assert tree.schema.feature_names == ("height", "width")
    assert tree == puretree.cart(frame, labels.to_numpy(), bins=edges, max_depth=3)
    predicted = ptdask.predict(tree, ddf).compute()
    assert predicted.tolist() == tree.predict(frame).tolist()
    assert ptdask.cart(ddf, dy, max_bins=8, max_depth=3) == tree  # max_bins computes the same edges


def test_a_missing_value_is_refused_with_missing_error_naming_the_partition(client):
    X = np.arange(60.0).reshape(30, 2)
    X[24, 1] = np.nan
    Xd, yd = _chunked(X, np.arange(30) % 2, [10, 10, 10])
    with pytest.raises(DataError, match=r"partition 2 \(rows 20\.\.29\): row 4 of the partition, column 1: missing value"):
        ptdask.cart(Xd, yd, missing="error")
    assert ptdask.cart(Xd, yd) == puretree.cart(X, np.arange(30) % 2, bins=ptdask.bin_edges(Xd))  # missing="majority", as in memory


@pytest.mark.parametrize(("rows", "named"), [(21, r"partitions 0\.\.1 \(rows 0\.\.20\)"), (12, r"partition 2 \(rows 21\.\.32\)")])
def test_a_failing_task_surfaces_as_a_puretree_error_naming_the_partition(client, monkeypatch, rows, named):
    # the two workers' blocks: partitions 0 and 1 joined (21 rows), partition 2 alone (12)
    X = np.arange(66.0).reshape(33, 2)
    Xd, yd = _chunked(X, np.arange(33) % 3, [10, 11, 12])
    real = histograms.move

    def broken(bins, node, *rest):
        if len(node) == rows:  # one block's rows: a deterministic fault point
            raise MemoryError("worker out of memory")
        return real(bins, node, *rest)

    monkeypatch.setattr(histograms, "move", broken)
    with pytest.raises(PuretreeError, match=named + r": MemoryError: worker out of memory"):
        ptdask.cart(Xd, yd)


def test_each_level_sums_one_block_per_worker_and_the_client_adds_them(client):
    # 6 partitions on 2 workers: each level's histograms are summed by 2 tasks (one block of
    # consecutive rows per worker), never by a task per partition, nor added worker to worker
    rng = np.random.default_rng(3)
    X = rng.normal(size=(600, 3))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    Xd, yd = _chunked(X, y, [100] * 6)
    edges = ptdask.bin_edges(Xd, max_bins=16)
    with distributed.get_task_stream(client) as stream:
        tree = ptdask.cart(Xd, yd, bins=edges, max_depth=3)
    keys = [str(t["key"]) for t in stream.data]
    sums = [k for k in keys if k.startswith("puretree-packed-")]
    assert tree == puretree.cart(X, y, bins=edges, max_depth=3)
    assert len(sums) == 2 * 4  # the root and 3 levels below it, 2 blocks each
    assert {k.split("-rows-")[1].rsplit("-", 1)[0] for k in sums} == {"0-299", "300-599"}
    assert not [k for k in keys if k.startswith("merge")]


def test_another_scheduler_chosen_beside_a_client_grows_the_same_tree(client):
    # dask's own synchronous scheduler chosen while a distributed client exists: the persisted
    # partitions hold no futures, so each partition stays a block (no per-worker blocks)
    import dask

    X = np.arange(60.0).reshape(30, 2) % 7
    y = np.arange(30) % 3
    Xd, yd = _chunked(X, y, [10, 10, 10])
    edges = ptdask.bin_edges(Xd)
    with dask.config.set(scheduler="sync"):
        assert ptdask.cart(Xd, yd, bins=edges) == puretree.cart(X, y, bins=edges)


def test_options_are_checked():
    X, y = _chunked(np.zeros((4, 1)), np.array([0, 1, 0, 1]), [4])
    with pytest.raises(ParameterError, match="not both"):
        ptdask.cart(X, y, bins=[[0.0]], max_bins=4)
    with pytest.raises(ParameterError, match="dask array or a dask DataFrame"):
        ptdask.cart(np.zeros((4, 1)), y)
    with pytest.raises(ParameterError, match="max_depth"):
        ptdask.cart(X, y, max_depth=-1)
    with pytest.raises(ParameterError, match=r"missing='surrogate' .* grow it in memory \(puretree.cart"):
        ptdask.cart(X, y, missing="surrogate")
    with pytest.raises(ParameterError, match="'variance' is for numeric targets"):
        ptdask.cart(X, y, score="variance")
    with pytest.raises(ParameterError, match="not both"):
        puretree.cart([[1.0], [2.0]], ["a", "b"], bins=[[1.0, 2.0]], max_bins=4)
    with pytest.raises(ParameterError, match="one array of bin edges per feature"):
        puretree.cart([[1.0], [2.0]], ["a", "b"], bins=[[1.0], [2.0]])
    with pytest.raises(ParameterError, match="feature 'x0' must be strictly increasing"):
        puretree.cart([[1.0], [2.0]], ["a", "b"], bins=[[2.0, 1.0]])
    for grow in (ptdask.cart, ptdask.id3, ptdask.c45, ptdask.cart_regressor):
        with pytest.raises(ParameterError, match=r"unknown option 'max_dept' for puretree.dask \(did you mean 'max_depth'\?\)"):
            grow(X, y, max_dept=1)
    with pytest.raises(ParameterError, match="unknown option 'class_weight'"):  # in memory, not (yet) on Dask
        ptdask.cart(X, y, class_weight="balanced")


def test_import_puretree_does_not_import_dask():
    code = "import sys, puretree; puretree.cart([[0.0], [1.0]], [0, 1]); print('dask' in sys.modules or 'distributed' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120)
    assert out.stdout.strip() == "False"


def test_ties_go_to_the_lowest_threshold_then_the_lowest_feature(client):
    # cutting after 1 or after 3 scores the same; two identical columns score the same
    X = np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0]])
    y = np.array([0, 1, 1, 0])
    Xd, yd = _chunked(X, y, [1, 3])
    edges = ptdask.bin_edges(Xd)
    tree = ptdask.cart(Xd, yd, bins=edges, max_depth=1)
    assert (tree.root.feature, tree.root.threshold) == (0, 1.0)
    assert tree == puretree.cart(X, y, bins=edges, max_depth=1)


def test_partition_tasks_are_named_by_partition():
    # a lost worker's error (KilledWorker) names the task's key: it names the partition
    X, y = _chunked(np.arange(8.0).reshape(4, 2), np.array([0, 1, 0, 1]), [2, 2])
    parts = ptdask._inputs(X, y)
    import dask

    keys = [t.key for t in ptdask._tasks(dask, parts, ptdask._labels, parts.y)]
    assert [k.split("-")[:4] for k in keys] == [["puretree", "labels", "partition", "0"], ["puretree", "labels", "partition", "1"]]


def test_empty_partitions_are_harmless(client):
    X = np.arange(20.0).reshape(10, 2)
    y = np.arange(10) % 3
    Xd = da.from_array(X, chunks=((4, 0, 6), 2))
    yd = da.from_array(y, chunks=((4, 0, 6),))
    edges = ptdask.bin_edges(Xd, max_bins=4)
    tree = ptdask.cart(Xd, yd, bins=edges)
    assert tree == puretree.cart(X, y, bins=edges)
    assert ptdask.predict(tree, Xd).compute().tolist() == tree.predict(X).tolist()


@pytest.mark.parametrize("max_features, seed", [(1, 0), (2, 5), ("sqrt", 3)])
def test_dask_max_features_draws_the_in_memory_features(client, max_features, seed):
    # each node's own draw of the features, as puretree.cart(bins=edges, max_features=, seed=)
    # draws them; missing values included
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(600, 4))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = ((np.nan_to_num(X[:, 0]) + rng.normal(size=600) > 0).astype(int) + (np.nan_to_num(X[:, 2]) > 1)).astype(int)
    Xd, yd = _chunked(X, y, [200, 250, 150])
    edges = ptdask.bin_edges(Xd, max_bins=16)
    for fit, grow in ((ptdask.cart, puretree.cart), (ptdask.id3, puretree.id3)):
        grown = fit(Xd, yd, bins=edges, max_features=max_features, seed=seed)
        assert grown == grow(X, y, bins=edges, max_features=max_features, seed=seed)
        assert grown != fit(Xd, yd, bins=edges)  # the draw changed the tree
    with pytest.raises(ParameterError, match="draws no features"):
        ptdask.c45(Xd, yd, bins=edges, max_features=2)
    with pytest.raises(ParameterError, match="seed"):
        ptdask.cart(Xd, yd, bins=edges, max_features=2, seed=-1)
