"""puretree.dask with the in-memory binned fit's options (issue 25): ``monotonic_cst``,
``missing="learn"``, ``min_impurity_decrease``, ``max_leaf_nodes`` and ``score="poisson"``
grow the tree ``puretree.cart(X, y, bins=edges, ...)`` grows from the same edges, under 1, 3
and 8 partitions, with missing values and weights; every option with no meaning on Dask is
refused in one line saying why.

Unweighted classes are summed exactly: the trees are equal (``==``). Weights and regression
targets are summed in another order (per partition, then across partitions): the same
structure, statistics within 1e-9 relative (:func:`_same_tree`), as tests/test_dask_stats.py
checks the default options. One LocalCluster (two workers, threads) serves the module.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import puretree
from puretree.errors import DataError, ParameterError
from puretree.nodes import Split

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")
pd = pytest.importorskip("pandas")

from puretree import dask as ptdask  # noqa: E402  (after the optional imports are known)
from dask_compare import same_structure  # noqa: E402


def _same_tree(a, b, exact):
    assert (a.schema, a.missing, a.criterion) == (b.schema, b.missing, b.criterion)
    if exact:
        assert a == b
    same_structure(a.root, b.root)


def _dask(parts, *columns):
    """Each array as a dask array in ``parts`` row blocks (as even as numpy splits them)."""
    n = len(columns[0])
    sizes = [len(b) for b in np.array_split(np.arange(n), parts)]
    return [da.from_array(c, chunks=(tuple(sizes),) + c.shape[1:]) for c in columns]


def _data(nan=True, seed=0):
    """200 rows, 3 features of few values (ties), 15% missing; two classes, non-negative
    targets, weights in (0, 1) with some zeros."""
    rng = np.random.default_rng(seed)
    n = 200
    X = rng.integers(0, 8, (n, 3)).astype(float)
    if nan:
        X[rng.random((n, 3)) < 0.15] = np.nan
    known = np.nan_to_num(X)
    y = ((known[:, 0] - known[:, 1] / 2 + rng.normal(size=n)) > 2).astype(int)
    target = np.abs(known[:, 0] + known[:, 2] / 3 + rng.normal(size=n))
    w = rng.random(n)
    w[rng.random(n) < 0.05] = 0.0
    edges = [np.unique(X[~np.isnan(X[:, j]), j]) for j in range(3)]
    return X, y, target, w, edges


def _compare(X, target, w, edges, parts, regression, **options):
    """The Dask tree and the in-memory binned tree from the same edges, compared."""
    grow_dask, grow_memory = (ptdask.cart_regressor, puretree.cart_regressor) if regression else (ptdask.cart, puretree.cart)
    Xd, yd = _dask(parts, X, target)
    weighed = {} if w is None else {"sample_weight": _dask(parts, w)[0]}
    grown = grow_dask(Xd, yd, bins=edges, **weighed, **options)
    expected = grow_memory(X, target, bins=edges, sample_weight=w, **options)
    _same_tree(grown, expected, exact=not regression and w is None)
    return grown


OPTIONS = {
    "monotonic_cst": dict(monotonic_cst=[1, -1, 0]),
    "learn": dict(missing="learn"),
    "learn_min_samples_leaf": dict(missing="learn", min_samples_leaf=6),
    "learn_monotonic": dict(missing="learn", monotonic_cst=[0, 1, -1], max_depth=4),
}


@pytest.mark.parametrize("parts", [1, 3, 8])
@pytest.mark.parametrize("name", sorted(OPTIONS))
def test_an_option_grows_the_in_memory_binned_tree(client, name, parts):
    X, y, target, w, edges = _data()
    for regression, t in ((False, y), (True, target)):
        for weights in (None, w):
            grown = _compare(X, t, weights, edges, parts, regression, **OPTIONS[name])
            assert isinstance(grown.root, Split)  # the option was used on a tree that splits


def test_id3_takes_the_options_too(client):
    X, y, _, w, edges = _data(seed=7)
    Xd, yd = _dask(3, X, y)
    for options in (dict(missing="learn"), dict(monotonic_cst=[1, -1, 0]), dict(missing="learn", monotonic_cst=[0, 0, 1])):
        assert ptdask.id3(Xd, yd, bins=edges, **options) == puretree.id3(X, y, bins=edges, **options)


def test_the_learned_side_sends_missing_values_where_the_in_memory_tree_sends_them(client):
    X, y, _, _, edges = _data(seed=3)
    tree = _compare(X, y, None, edges, 3, False, missing="learn")
    sides = {node.test.missing_branch for node in _splits(tree.root)}
    assert sides <= {0, 1} and len(sides) == 2  # learned both ways somewhere: not the heavier branch alone
    assert (ptdask.predict(tree, _dask(3, X)[0]).compute() == puretree.cart(X, y, bins=edges, missing="learn").predict(X)).all()


def test_a_dask_tree_with_learned_sides_saves_and_generates_code(client):
    from puretree.codegen import verify

    X, y, _, w, edges = _data(seed=5)
    tree = _compare(X, y, w, edges, 3, False, missing="learn", monotonic_cst=[1, 0, 0], max_depth=5)
    assert puretree.from_json(puretree.to_json(tree)) == tree
    for target in ("python", "c"):
        assert verify(tree, X, target).ok


def test_monotonic_constraints_hold_on_the_dask_tree(client):
    X, _, target, w, edges = _data(nan=False)
    tree = _compare(X, target, w, edges, 8, True, monotonic_cst=[1, 0, 0])
    grid = np.array([[a, b, c] for a in range(8) for b in range(8) for c in range(8)], dtype=float).reshape(8, 64, 3)
    predicted = tree.predict(grid.reshape(-1, 3)).reshape(8, 64)
    assert (np.diff(predicted, axis=0) >= 0).all()  # non-decreasing in x0, whatever x1, x2


@pytest.mark.parametrize("parts", [1, 3, 8])
@pytest.mark.parametrize("options", [dict(max_leaf_nodes=5), dict(min_impurity_decrease=0.01), dict(max_leaf_nodes=7, min_impurity_decrease=0.002, max_depth=5)])
def test_sizes_are_read_off_the_full_tree_as_in_memory(client, options, parts):
    X, y, target, w, edges = _data(nan=False)
    for regression, t in ((False, y), (True, target)):
        for weights in (None, w):
            grown = _compare(X, t, weights, edges, parts, regression, **options)
            full = (ptdask.cart_regressor if regression else ptdask.cart)(*_dask(parts, X, t), bins=edges)
            assert len(_splits(grown.root)) < len(_splits(full.root))  # the option pruned something


@pytest.mark.parametrize("parts", [1, 3, 8])
def test_poisson_regression_grows_the_in_memory_tree(client, parts):
    X, _, target, w, edges = _data()
    for weights in (None, w):
        _compare(X, target, weights, edges, parts, True, score="poisson", max_depth=4)


def _splits(node):
    return [node] + [s for kid in node.children for s in _splits(kid)] if isinstance(node, Split) else []


@st.composite
def problems(draw):
    """Small data with ties, missing values and (maybe) weights, two classes or non-negative
    targets, an option of the binned fit, in 1-4 partitions."""
    n = draw(st.integers(4, 40))
    p = draw(st.integers(1, 3))
    values = st.integers(0, 5).map(float) | st.floats(-5, 5, allow_nan=False, width=32).map(float) | st.just(np.nan)
    X = draw(hnp.arrays(np.float64, (n, p), elements=values))
    regression = draw(st.booleans())
    if regression:
        y = draw(hnp.arrays(np.float64, n, elements=st.integers(0, 3).map(float) | st.floats(0, 50, allow_nan=False)))
        y[0] += 1.0  # a positive sum (poisson)
    else:
        y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, 1)))
    w = draw(st.none() | hnp.arrays(np.float64, n, elements=st.sampled_from([0.0, 0.5, 1.0, 3.0]) | st.floats(0.01, 10)))
    if w is not None:
        w[0] = 1.0  # some weight, on the row of positive target
    options = draw(st.sampled_from(["monotonic", "learn", "both", "sizes", "poisson"] if regression else ["monotonic", "learn", "both", "sizes"]))
    chosen = {
        "monotonic": dict(monotonic_cst=draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=p, max_size=p))),
        "learn": dict(missing="learn"),
        "both": dict(missing="learn", monotonic_cst=draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=p, max_size=p))),
        "sizes": dict(max_leaf_nodes=draw(st.integers(2, 5)), min_impurity_decrease=draw(st.sampled_from([0.0, 0.01]))),
        "poisson": dict(score="poisson"),
    }[options]
    chosen["min_samples_leaf"] = draw(st.integers(1, 3))
    return X, y, w, regression, chosen, draw(st.integers(1, 4))


@settings(max_examples=30, deadline=None)
@given(problem=problems(), max_bins=st.sampled_from([2, 3, 255]))
def test_property_every_option_grows_the_in_memory_binned_tree(client, problem, max_bins):
    X, y, w, regression, options, parts = problem
    edges = ptdask.bin_edges(_dask(parts, X)[0], max_bins=max_bins)
    _compare(X, y, w, edges, parts, regression, **options)


# -- refusals: one line each, saying why and what to use ---------------------------------------


def _small(y=(0, 1, 0, 1)):
    X, yy = _dask(2, np.array([[1.0, 0.0], [2.0, 1.0], [np.nan, 0.0], [4.0, 1.0]]), np.array(y))
    return X, yy


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (dict(missing="surrogate"), r"missing='surrogate' .* histograms do not hold; grow it in memory \(puretree.cart"),
        (dict(missing="distribute"), r"missing='distribute' .* puretree.dask.cart takes 'majority', 'learn' and 'error'"),
        (dict(monotonic_cst=[1]), r"monotonic_cst has 1 entries but the data has 2 features"),
        (dict(splitter="best", max_leaf_nodes=1), r"max_leaf_nodes must be"),
    ],
)
def test_an_option_without_a_meaning_on_dask_is_refused(client, options, message):
    X, y = _small()
    with pytest.raises(ParameterError, match=message):
        ptdask.cart(X, y, **options)


def test_regression_and_c45_refusals(client):
    X, y = _small()
    Xr, yr = _dask(2, np.array([[1.0], [2.0], [3.0], [4.0]]), np.array([1.0, -2.0, 3.0, 4.0]))
    with pytest.raises(ParameterError, match=r"criterion 'absolute_error' is not grown on Dask: .* medians"):
        ptdask.cart_regressor(Xr, yr, score="absolute_error")
    with pytest.raises(DataError, match=r"partition 0 \(rows 0\.\.1\): criterion 'poisson' needs non-negative targets: row 1 of the partition has y = -2.0"):
        ptdask.cart_regressor(Xr, yr, score="poisson")
    with pytest.raises(DataError, match="criterion 'poisson' needs targets with a positive sum; they sum to 0.0"):
        ptdask.cart_regressor(Xr, _dask(2, np.zeros(4))[0], score="poisson")
    for options in (dict(monotonic_cst=[1, 0]), dict(missing="learn"), dict(max_leaf_nodes=3)):
        with pytest.raises(ParameterError, match=r"puretree.dask.c45 grows J48's tree, which takes no monotonic_cst"):
            ptdask.c45(X, y, **options)
    with pytest.raises(ParameterError, match="monotonic_cst needs a regression or a two-class target"):
        ptdask.cart(X, _dask(2, np.array([0, 1, 2, 1]))[0], monotonic_cst=[1, 0])


def test_categorical_features_refuse_monotonic_and_learn(client):
    frame = dd.from_pandas(pd.DataFrame({"size": [1.0, 2.0, np.nan, 4.0], "colour": ["r", "g", "r", "b"]}), npartitions=2)
    y = dd.from_pandas(pd.Series([0, 1, 0, 1]), npartitions=2)
    with pytest.raises(ParameterError, match="monotonic_cst for feature 'colour': a monotonic constraint needs a numeric feature"):
        ptdask.cart(frame, y, monotonic_cst=[0, 1])
    for options in (dict(monotonic_cst=[1, 0]), dict(missing="learn")):
        with pytest.raises(ParameterError, match=r"grows threshold splits on numeric features, and 'colour' is categorical"):
            ptdask.cart(frame, y, **options)
