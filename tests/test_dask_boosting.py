"""puretree.dask.hist_gradient_boosting: the model grown on Dask workers equals (==, every
float) the in-memory one grown from the same bin edges, whatever the partitions.

The module's LocalCluster (conftest ``client``: two in-process workers) serves every test; each
split costs two cluster round trips, so the models are small.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import puretree
from puretree.errors import DataError, ParameterError

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

from puretree import dask as ptdask  # noqa: E402  (after the optional imports are known)


def _chunked(X, y, sizes, w=None):
    Xd = da.from_array(X, chunks=(tuple(sizes), X.shape[1]))
    yd = da.from_array(y, chunks=(tuple(sizes),))
    return Xd, yd, None if w is None else da.from_array(w, chunks=(tuple(sizes),))


def _both(X, y, sizes, *, w=None, **options):
    """The Dask model and the in-memory one with the Dask edges."""
    Xd, yd, wd = _chunked(X, y, sizes, w)
    edges = ptdask.bin_edges(Xd, max_bins=options.pop("max_bins", 255))
    grown = ptdask.hist_gradient_boosting(Xd, yd, bins=edges, sample_weight=wd, **options)
    return grown, puretree.hist_gradient_boosting(X, y, bins=edges, sample_weight=w, early_stopping=False, **options)


def _splits(model):
    """Every split node of every stage tree."""
    out, todo = [], [t.root for stage in model.stages for t in stage]
    while todo:
        node = todo.pop()
        if hasattr(node, "children"):
            out.append(node)
            todo.extend(node.children)
    return out


def _data(n, p, seed, *, missing=0.0, classes=2):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    score = X[:, 0] + np.sin(3 * X[:, 1 % p]) + 0.3 * rng.normal(size=n)
    y = np.digitize(score, np.quantile(score, np.arange(1, classes) / classes)) if classes else score
    X[rng.random((n, p)) < missing] = np.nan
    return X, y


@pytest.mark.parametrize("sizes", [[500], [100, 400], [137, 1, 200, 162], [50] * 10])
def test_binary_model_equals_the_in_memory_one_for_any_chunking(client, sizes):
    X, y = _data(500, 4, 0)
    grown, in_memory = _both(X, y, sizes, max_iter=6, max_leaf_nodes=7, min_samples_leaf=5, max_bins=31)
    assert grown == in_memory
    assert len(grown.stages) == 6 and grown.decision_function(X).tolist() == in_memory.decision_function(X).tolist()


def test_multiclass_with_missing_values_and_weights_equals_the_in_memory_model(client):
    X, y = _data(400, 3, 1, missing=0.15, classes=3)
    w = np.random.default_rng(2).random(400) * 3
    w[::17] = 0.0  # a row of weight 0 is no row
    grown, in_memory = _both(X, y, [150, 150, 100], w=w, max_iter=4, max_leaf_nodes=6, min_samples_leaf=3, l2_regularization=0.5)
    assert grown == in_memory
    assert len(grown.stages[0]) == 3


def test_regression_equals_the_in_memory_model(client):
    X, y = _data(300, 3, 3, missing=0.05, classes=0)
    grown, in_memory = _both(X, y, [90, 110, 100], loss="squared_error", max_iter=5, max_depth=3, max_leaf_nodes=None, min_samples_leaf=4)
    assert grown == in_memory
    assert grown.loss == "squared_error"


def test_categorical_columns_of_a_frame_split_as_in_memory(client):
    rng = np.random.default_rng(4)
    n = 360
    colour = rng.choice(np.array(["red", "green", "blue", "grey"], dtype=object), n)
    colour[rng.random(n) < 0.1] = None
    size = rng.normal(size=n)
    y = ((colour == "red") | (colour == "blue")) ^ (size > 1.0)
    frame = pd.DataFrame({"colour": colour, "size": size})
    target = pd.Series(y.astype(int))
    fd, td = dd.from_pandas(frame, npartitions=3), dd.from_pandas(target, npartitions=3)
    edges = ptdask.bin_edges(fd)
    grown = ptdask.hist_gradient_boosting(fd, td, bins=edges, max_iter=4, min_samples_leaf=5)
    in_memory = puretree.hist_gradient_boosting(frame, target, bins=edges, max_iter=4, min_samples_leaf=5, early_stopping=False)
    assert grown == in_memory
    assert any(node.surrogates is not None for node in _splits(grown))  # a categorical split


@st.composite
def problems(draw):
    """Small data with ties and missing values, two or three classes, in 1-4 partitions."""
    n = draw(st.integers(8, 60))
    p = draw(st.integers(1, 3))
    values = st.integers(0, 5).map(float) | st.floats(-3, 3, allow_nan=False, width=32).map(float) | st.just(np.nan)
    X = draw(hnp.arrays(np.float64, (n, p), elements=values))
    y = np.arange(n) % draw(st.integers(2, 3))
    y = draw(st.permutations(y.tolist()))
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=3)))
    return X, np.array(y), np.diff([0, *cuts, n]).tolist()


@settings(max_examples=10, deadline=None)
@given(problem=problems(), max_bins=st.sampled_from([2, 4, 255]), min_samples_leaf=st.integers(1, 4))
def test_dask_model_equals_the_in_memory_model_with_the_same_edges(client, problem, max_bins, min_samples_leaf):
    X, y, sizes = problem
    grown, in_memory = _both(X, y, sizes, max_iter=3, max_leaf_nodes=4, min_samples_leaf=min_samples_leaf, max_bins=max_bins)
    assert grown == in_memory


def test_the_edges_are_computed_when_not_given(client):
    X, y = _data(200, 2, 5)
    Xd, yd, _ = _chunked(X, y, [100, 100])
    grown = ptdask.hist_gradient_boosting(Xd, yd, max_bins=16, max_iter=2)
    edges = ptdask.bin_edges(Xd, max_bins=16)
    assert grown == puretree.hist_gradient_boosting(X, y, bins=edges, max_bins=16, max_iter=2, early_stopping=False)


def test_bad_input_is_refused_by_name(client):
    X, y = _data(60, 2, 6)
    Xd, yd, _ = _chunked(X, y, [30, 30])
    with pytest.raises(ParameterError, match="early_stopping must be False"):
        ptdask.hist_gradient_boosting(Xd, yd, early_stopping="auto")
    with pytest.raises(ParameterError, match="max_iter"):
        ptdask.hist_gradient_boosting(Xd, yd, max_iter=0)
    with pytest.raises(ParameterError, match="loss must be one of"):
        ptdask.hist_gradient_boosting(Xd, yd, loss="hinge")
    with pytest.raises(ParameterError, match="X must be a dask array"):
        ptdask.hist_gradient_boosting(X, yd)
    with pytest.raises(DataError, match="two classes"):
        ptdask.hist_gradient_boosting(Xd, da.zeros(60, chunks=30, dtype=int))
    with pytest.raises(DataError, match="every weight is zero"):
        ptdask.hist_gradient_boosting(Xd, yd, sample_weight=da.zeros(60, chunks=30))
    bad = X.copy()
    bad[40, 1] = np.inf
    with pytest.raises(DataError, match=r"partition 1 \(rows 30..59\).*row 10 of the partition, column 1"):
        ptdask.hist_gradient_boosting(da.from_array(bad, chunks=(30, 2)), yd)
    with pytest.raises(ParameterError, match="bins for feature 'x1'"):
        ptdask.hist_gradient_boosting(Xd, yd, bins=[[0.0], [1.0, 0.0]])
    with pytest.raises(ParameterError, match="at most 255 bins"):
        ptdask.hist_gradient_boosting(Xd, yd, bins=[np.arange(300.0), [0.0]])


def test_in_memory_bins_option_refuses_bad_edges():
    X, y = _data(40, 2, 7)
    with pytest.raises(ParameterError, match="at most 255 bins per feature"):
        puretree.hist_gradient_boosting(X, y, bins=[np.arange(256.0), [0.0]])
    with pytest.raises(ParameterError, match="one array of bin edges per feature"):
        puretree.hist_gradient_boosting(X, y, bins=[[0.0]])


def test_in_memory_bins_place_values_above_the_last_edge_in_the_last_bin():
    X = np.arange(40.0).reshape(-1, 1)
    y = (X[:, 0] >= 20).astype(int)
    model = puretree.hist_gradient_boosting(X, y, bins=[[9.0, 19.0, 29.0]], max_iter=2, min_samples_leaf=2, early_stopping=False)
    thresholds = {node.test.value for node in _splits(model)}
    assert thresholds == {19.0}
    assert model.predict(np.array([[5.0], [25.0], [100.0]])).tolist() == [0, 1, 1]


def test_a_feature_missing_in_one_partition_only_takes_the_in_memory_side(client):
    # the side of a feature's missing values depends on whether it had any among all training
    # rows (scikit-learn's has_missing_values): gathered from every partition, here the first only
    X, y = _data(400, 3, 4, classes=0)
    X[:60:3, 0] = np.nan
    grown, in_memory = _both(X, y, [100, 150, 150], loss="squared_error", max_iter=4, max_leaf_nodes=8, min_samples_leaf=3)
    assert grown == in_memory
    probes = X.copy()
    probes[:, 0] = np.nan
    assert grown.predict(probes).tolist() == in_memory.predict(probes).tolist()
