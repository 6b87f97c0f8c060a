"""puretree.dask with sample weights, regression targets and missing values, against the in-memory tree.

Unweighted classification sums integers exactly: the trees are equal (``==``), missing values
or not. Weights and regression targets are summed in another order than in memory (per
partition, then across partitions), so the issue's promise is the same structure (features,
thresholds, shape) with statistics within 1e-9 relative, which :func:`dask_compare.same_structure`
checks. One LocalCluster (two workers, threads) serves the module; properties draw few examples.
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
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

from puretree import dask as ptdask  # noqa: E402  (after the optional imports are known)
from dask_compare import frames, same_structure  # noqa: E402


def _same_tree(a, b):
    assert (a.schema, a.missing, a.criterion) == (b.schema, b.missing, b.criterion)
    same_structure(a.root, b.root)


def _dask(sizes, *columns):
    """Each array as a dask array in row blocks of ``sizes``."""
    return [da.from_array(c, chunks=(tuple(sizes),) + c.shape[1:]) for c in columns]


@st.composite
def problems(draw, *, regression=False, nan=True):
    """Small numeric data with repeated values and (maybe) missing values, 2-3 classes or
    numeric targets, dyadic or arbitrary weights (zeros included), in 1-4 partitions."""
    n = draw(st.integers(2, 40))
    p = draw(st.integers(1, 3))
    values = st.integers(0, 6).map(float) | st.floats(-5, 5, allow_nan=False, width=32).map(float)
    if nan:
        values = values | st.just(np.nan)
    X = draw(hnp.arrays(np.float64, (n, p), elements=values))
    if regression:
        y = draw(hnp.arrays(np.float64, n, elements=st.integers(-3, 3).map(float) | st.floats(-100, 100, allow_nan=False, allow_infinity=False)))
    else:
        y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, draw(st.integers(1, 2)))))
    weights = st.sampled_from([0.0, 0.5, 1.0, 1.5, 3.0]) | st.floats(0.01, 10)
    w = draw(st.none() | hnp.arrays(np.float64, n, elements=weights))
    if w is not None and not (w > 0).any():
        w[0] = 1.0
    cuts = sorted(draw(st.sets(st.integers(1, n - 1), max_size=3)))
    sizes = np.diff([0, *cuts, n]).tolist()
    return X, y, w, sizes


_OPTIONS = dict(max_bins=st.sampled_from([2, 3, 5, 255]), max_depth=st.none() | st.integers(0, 3), min_samples_leaf=st.integers(1, 3), batch=st.sampled_from([1, 2**30]))


def _grow_both(X, y, w, sizes, max_bins, max_depth, min_samples_leaf, batch, **task):
    Xd, yd = _dask(sizes, X, y)
    edges = ptdask.bin_edges(Xd, max_bins=max_bins)
    weighed = {} if w is None else {"sample_weight": _dask(sizes, w)[0]}
    options = dict(max_depth=max_depth, min_samples_leaf=min_samples_leaf, **task)
    grown = ptdask.cart(Xd, yd, bins=edges, histogram_bytes=batch, **weighed, **options)  # 1: one node per batch
    return grown, puretree.cart(X, y, bins=edges, sample_weight=w, **options)


@settings(max_examples=15, deadline=None)
@given(problem=problems(), **_OPTIONS)
def test_weighted_classification_with_missing_values_has_the_in_memory_structure(client, problem, **options):
    X, y, w, sizes = problem
    grown, in_memory = _grow_both(X, y, w, sizes, **options)
    _same_tree(grown, in_memory)
    if w is None:  # integer counts: exactly the in-memory tree, missing values included
        assert grown == in_memory


@settings(max_examples=15, deadline=None)
@given(problem=problems(regression=True), **_OPTIONS)
def test_regression_has_the_in_memory_structure(client, problem, **options):
    X, y, w, sizes = problem
    grown, in_memory = _grow_both(X, y, w, sizes, **options, task="regression")
    _same_tree(grown, in_memory)


def test_weights_and_regression_on_a_larger_sample(client):
    # continuous targets and weights: sums in another order, the same tree within 1e-9
    rng = np.random.default_rng(7)
    X = rng.normal(size=(3000, 4))
    X[rng.random(X.shape) < 0.05] = np.nan
    y = np.nan_to_num(X[:, 0]) * 3 + np.sin(np.nan_to_num(X[:, 1])) + rng.normal(size=3000)
    w = rng.exponential(size=3000)
    Xd, yd, wd = _dask([700, 800, 1500], X, y, w)
    edges = ptdask.bin_edges(Xd, max_bins=32)
    grown = ptdask.cart_regressor(Xd, yd, bins=edges, sample_weight=wd, max_depth=6)
    _same_tree(grown, puretree.cart_regressor(X, y, bins=edges, sample_weight=w, max_depth=6))
    labels = (y > 0).astype(int)
    grown = ptdask.cart(Xd, _dask([700, 800, 1500], labels)[0], bins=edges, sample_weight=wd, max_depth=6)
    _same_tree(grown, puretree.cart(X, labels, bins=edges, sample_weight=w, max_depth=6))


def test_a_missing_value_goes_down_the_heavier_branch(client):
    # x0 <= 2 holds 2 rows, x0 > 2 holds 3: the row whose x0 is missing goes right, and
    # prediction sends a missing value there too
    X = np.array([[1.0], [2.0], [3.0], [4.0], [5.0], [np.nan]])
    y = np.array(["a", "a", "b", "b", "b", "b"])
    Xd, yd = _dask([3, 3], X, y)
    tree = ptdask.cart(Xd, yd, bins=[[2.0, 5.0]])
    assert tree.to_text().splitlines() == ["x0 <= 2: a (2)", "x0 > 2: b (4)"]
    assert tree == puretree.cart(X, y, bins=[[2.0, 5.0]])
    assert ptdask.predict(tree, Xd).compute().tolist() == ["a", "a", "b", "b", "b", "b"]


def test_bin_edges_skip_missing_values(client):
    X = np.array([[1.0, np.nan], [np.nan, np.nan], [3.0, np.nan], [2.0, np.nan]])
    edges = ptdask.bin_edges(_dask([2, 2], X)[0], max_bins=255)
    assert [e.tolist() for e in edges] == [[1.0, 2.0, 3.0], [0.0]]  # an all-missing column: one bin


def test_a_row_of_weight_zero_is_no_row(client):
    X = np.array([[1.0], [2.0], [3.0], [4.0]])
    y = np.array([0, 1, 1, 1])
    Xd, yd, wd = _dask([2, 2], X, y, np.array([1.0, 0.0, 2.0, 2.0]))
    tree = ptdask.cart(Xd, yd, bins=[[1.0, 2.0, 3.0, 4.0]], sample_weight=wd, min_samples_split=4)
    assert tree.to_text() == "1 (5/1)"  # 3 rows of weight: fewer than min_samples_split
    assert tree == puretree.cart(X, y, bins=[[1.0, 2.0, 3.0, 4.0]], sample_weight=[1.0, 0.0, 2.0, 2.0], min_samples_split=4)


def test_dataframe_regression_with_weights_in_a_series(client):
    rng = np.random.default_rng(3)
    frame = pd.DataFrame({"size": rng.integers(0, 9, 90).astype(float), "age": rng.normal(size=90)})
    price = pd.Series(frame["size"] * 10.0 + rng.integers(0, 3, 90), name="price")
    weight = pd.Series(rng.integers(1, 4, 90).astype(float))
    ddf = dd.from_pandas(frame, npartitions=3)
    tree = ptdask.cart_regressor(ddf, dd.from_pandas(price, npartitions=3), sample_weight=dd.from_pandas(weight, npartitions=3), max_bins=8, max_depth=3)
    assert tree.schema.feature_names == ("size", "age") and tree.schema.is_regression
    edges = ptdask.bin_edges(ddf, max_bins=8)
    _same_tree(tree, puretree.cart_regressor(frame, price.to_numpy(), bins=edges, sample_weight=weight.to_numpy(), max_depth=3))
    assert np.allclose(ptdask.predict(tree, ddf).compute().to_numpy(), tree.predict(frame))


def test_bad_values_are_refused_naming_the_partition(client):
    X = np.arange(60.0).reshape(30, 2)
    y = (np.arange(30) % 2).astype(float)
    w = np.ones(30)
    w[14] = -1.0
    Xd, yd, wd = _dask([10, 10, 10], X, y, w)
    with pytest.raises(DataError, match=r"partition 1 \(rows 10\.\.19\): row 4 of the partition: sample weight -1\.0 is negative"):
        ptdask.cart(Xd, yd, sample_weight=wd)
    y[25] = np.nan
    with pytest.raises(DataError, match=r"partition 2 \(rows 20\.\.29\): row 5 of the partition: the regression target nan is not a finite number"):
        ptdask.cart_regressor(Xd, _dask([10, 10, 10], y)[0])
    X[24, 1] = np.nan
    Xd, yd = _dask([10, 10, 10], X, np.arange(30) % 2)
    with pytest.raises(DataError, match=r"partition 2 \(rows 20\.\.29\): row 4 of the partition, column 1: missing value \(missing='error'"):
        ptdask.cart(Xd, yd, missing="error")
    X[24, 1] = np.inf
    with pytest.raises(DataError, match=r"partition 2 \(rows 20\.\.29\): row 4 of the partition, column 1: the value inf is not finite"):
        ptdask.cart(_dask([10, 10, 10], X)[0], yd)


def test_options_are_checked():
    Xd, yd = _dask([4], np.zeros((4, 1)), np.array([0, 1, 0, 1]))
    with pytest.raises(ParameterError, match="'distribute'"):
        ptdask.cart(Xd, yd, missing="distribute")
    with pytest.raises(ParameterError, match="'gini' is for class labels"):
        ptdask.cart_regressor(Xd, yd, score="gini")
    with pytest.raises(ParameterError, match="task must be"):
        ptdask.cart(Xd, yd, task="ranking")
    with pytest.raises(ParameterError, match="sample_weight must be a dask array"):
        ptdask.cart(Xd, yd, sample_weight=np.ones(4))
    with pytest.raises(DataError, match="X has 4 rows but sample_weight has 3 weights"):
        ptdask.cart(Xd, yd, sample_weight=da.ones(3, chunks=3))


@settings(max_examples=15, deadline=None)
@given(problem=frames(max_rows=40), max_depth=st.none() | st.integers(0, 3), min_samples_leaf=st.integers(1, 3), batch=st.sampled_from([1, 2**30]))
def test_categorical_features_give_the_in_memory_tree(client, problem, max_depth, min_samples_leaf, batch):
    frame, y, npartitions = problem
    ddf, dy = dd.from_pandas(frame, npartitions=npartitions), dd.from_pandas(pd.Series(y), npartitions=npartitions)
    edges = ptdask.bin_edges(ddf, max_bins=4)
    assert edges[0] is None and edges[1] is None  # categories are their own bins
    options = dict(max_depth=max_depth, min_samples_leaf=min_samples_leaf)
    grown = ptdask.cart(ddf, dy, bins=edges, histogram_bytes=batch, **options)
    # the frame as its partitions hold it (dask may store an object column as strings)
    assert grown == puretree.cart(ddf.compute(), y, bins=edges, **options)


def test_subset_splits_on_a_category_column(client):
    rng = np.random.default_rng(5)
    colour = rng.choice(["red", "green", "blue", "grey"], 200)
    size = rng.normal(size=200)
    y = np.where(np.isin(colour, ["red", "grey"]) ^ (size > 1.0), "warm", "cold")
    frame = pd.DataFrame({"colour": pd.Categorical(colour), "size": size})
    ddf, dy = dd.from_pandas(frame, npartitions=4), dd.from_pandas(pd.Series(y), npartitions=4)
    tree = ptdask.cart(ddf, dy, max_bins=16, max_depth=2)
    assert tree.to_text().splitlines()[0].startswith("colour in {blue, green}")
    assert tree == puretree.cart(frame, y, bins=ptdask.bin_edges(ddf, max_bins=16), max_depth=2)
    assert ptdask.predict(tree, ddf).compute().tolist() == tree.predict(frame).tolist()
    weights = rng.integers(0, 3, 200).astype(float)
    price = np.isin(colour, ["red"]) * 10.0 + size + rng.normal(size=200)
    grown = ptdask.cart_regressor(ddf, dd.from_pandas(pd.Series(price), npartitions=4), sample_weight=dd.from_pandas(pd.Series(weights), npartitions=4), max_bins=16, max_depth=3)
    _same_tree(grown, puretree.cart_regressor(frame, price, sample_weight=weights, bins=ptdask.bin_edges(ddf, max_bins=16), max_depth=3))


@settings(max_examples=15, deadline=None)
@given(problem=frames(max_rows=40), max_depth=st.none() | st.integers(0, 3), min_samples_leaf=st.integers(1, 3), batch=st.sampled_from([1, 2**30]))
def test_id3_multiway_splits_give_the_in_memory_tree(client, problem, max_depth, min_samples_leaf, batch):
    frame, y, npartitions = problem
    ddf, dy = dd.from_pandas(frame, npartitions=npartitions), dd.from_pandas(pd.Series(y), npartitions=npartitions)
    edges = ptdask.bin_edges(ddf, max_bins=4)
    options = dict(max_depth=max_depth, min_samples_leaf=min_samples_leaf)
    grown = ptdask.id3(ddf, dy, bins=edges, histogram_bytes=batch, **options)
    assert grown == puretree.id3(ddf.compute(), y, bins=edges, **options)


def test_id3_uses_a_category_once_and_grows_regression_with_weights(client):
    rng = np.random.default_rng(11)
    colour = rng.choice(["red", "green", "blue"], 150)
    size = rng.normal(size=150)
    frame = pd.DataFrame({"colour": pd.Categorical(colour), "size": size})
    y = np.where((colour == "red") | (size > 0.5), 1, 0)
    ddf = dd.from_pandas(frame, npartitions=3)
    tree = ptdask.id3(ddf, dd.from_pandas(pd.Series(y), npartitions=3), max_bins=8)
    assert tree.to_text().splitlines()[0].startswith("colour = blue")  # one branch per category
    assert sum(line.lstrip("| ").startswith("colour =") for line in tree.to_text().splitlines()) == 3  # never again below
    edges = ptdask.bin_edges(ddf, max_bins=8)
    assert tree == puretree.id3(frame, y, bins=edges)
    price = (colour == "red") * 4.0 + size + rng.normal(size=150)
    weights = rng.exponential(size=150)
    grown = ptdask.id3(ddf, dd.from_pandas(pd.Series(price), npartitions=3), task="regression", sample_weight=dd.from_pandas(pd.Series(weights), npartitions=3), bins=edges, max_depth=3)
    _same_tree(grown, puretree.id3(frame, price, task="regression", sample_weight=weights, bins=edges, max_depth=3))
