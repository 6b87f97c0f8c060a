"""``min_weight_fraction_leaf`` on every source where it has a meaning (issue 25): the level-wise
engines in memory (``engine="fast"``, ``"numpy"``, the compiled scan ``"c"``), histogram mode
(``bins=``, ``max_bins=``) and :mod:`puretree.dask` grow the tree the recursive reference builder
grows, which is scikit-learn's: every child of a split holds at least the fraction of the training
weight (the rows', or ``sample_weight`` times ``class_weight``), by the one rule
:func:`puretree.growth.choose.heavy_enough`. References are run in the test, never recorded."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import puretree as pt
from puretree.errors import ParameterError
from puretree.grow import by_task, cart, cart_regressor, id3
from puretree.growth.choose import heavy_enough
from puretree.growth.engine import edge_bins, quantile_bins
from puretree.nodes import Leaf, Split
from puretree.sklearn import from_sklearn
from puretree.strategies import datasets
from sklearn_compare import compare


def _float32(X):
    # scikit-learn grows on float32 values: give both libraries the same ones
    return np.asarray(X, dtype=np.float32).astype(np.float64)


DATA = {
    "breast_cancer": lambda: (_float32(load_breast_cancer().data), load_breast_cancer().target),
    "wine": lambda: (_float32(load_wine().data), load_wine().target),
    "diabetes": lambda: (_float32(load_diabetes().data), load_diabetes().target),
}
FRACTIONS = [0.01, 0.05, 0.2]


def _grower(name):
    return cart_regressor if name == "diabetes" else cart


def _weights(n, seed=1):
    """Whole and half weights, about a fifth of them zero (exact sums in any order)."""
    return np.random.default_rng(seed).choice([0.0, 0.5, 1.0, 2.0, 3.0], size=n)


def _leaves(node):
    return [node] if isinstance(node, Leaf) else [leaf for kid in node.children for leaf in _leaves(kid)]


def _light_leaves(tree, bound, regression):
    return [leaf for leaf in _leaves(tree.root) if (leaf.counts[0] if regression else sum(leaf.counts)) < bound - 1e-9]


def test_the_rule_is_scikit_learns_two_comparisons():
    assert heavy_enough(np.array([0.9, 1.0, 2.0, 2.1]), 3.0, 1.0).tolist() == [False, True, True, False]


@pytest.mark.parametrize("fraction", FRACTIONS)
@pytest.mark.parametrize("name", sorted(DATA))
def test_the_level_wise_engines_grow_scikit_learns_tree(name, fraction):
    X, y = DATA[name]()
    regression = name == "diabetes"
    tree = _grower(name)(X, y, engine="fast", min_weight_fraction_leaf=fraction)
    Est = DecisionTreeRegressor if regression else DecisionTreeClassifier
    compare(tree, from_sklearn(Est(random_state=0, min_weight_fraction_leaf=fraction).fit(X, y)), X, y, regression=regression)
    assert not _light_leaves(tree, fraction * len(y), regression)


@pytest.mark.parametrize("name", sorted(DATA))
def test_weighted_rows_grow_scikit_learns_tree_on_the_level_wise_engine(name):
    X, y = DATA[name]()
    regression = name == "diabetes"
    w = _weights(len(y))
    tree = _grower(name)(X, y, engine="fast", sample_weight=w, min_weight_fraction_leaf=0.04)
    Est = DecisionTreeRegressor if regression else DecisionTreeClassifier
    compare(tree, from_sklearn(Est(random_state=0, min_weight_fraction_leaf=0.04).fit(X, y, sample_weight=w)), X, y, regression=regression, weight=w)
    assert not _light_leaves(tree, 0.04 * w.sum(), regression)


def test_class_weight_bounds_the_leaves_on_the_level_wise_engine_as_scikit_learn_does():
    X, y = DATA["wine"]()
    tree = cart(X, y, engine="fast", class_weight={0: 10.0}, min_weight_fraction_leaf=0.05)
    theirs = from_sklearn(DecisionTreeClassifier(random_state=0, class_weight={0: 10.0}, min_weight_fraction_leaf=0.05).fit(X, y))
    compare(tree, theirs, X, y)
    assert tree != cart(X, y, engine="fast", min_weight_fraction_leaf=0.05)


def _options(name, y, case):
    """The weighing of a case: none, row weights (zeros included), class weights, both."""
    w = _weights(len(y), seed=3)
    if name == "diabetes":
        return {"none": {}, "sample": {"sample_weight": w}, "class": {"sample_weight": w * 2}, "both": {"sample_weight": w + 0.5}}[case]
    return {"none": {}, "sample": {"sample_weight": w}, "class": {"class_weight": "balanced"}, "both": {"sample_weight": w, "class_weight": {0: 3.0}}}[case]


@pytest.mark.parametrize("case", ["none", "sample", "class", "both"])
@pytest.mark.parametrize("name", sorted(DATA))
def test_every_level_wise_engine_grows_the_reference_tree(name, case):
    X, y = DATA[name]()
    grow = _grower(name)
    engines = ["fast", "numpy"] if name == "diabetes" else ["fast", "numpy", "c"]  # the compiled scan: classes
    for fraction in FRACTIONS:
        options = dict(min_weight_fraction_leaf=fraction, **_options(name, y, case))
        reference = grow(X, y, engine="reference", **options)
        for engine in engines:
            assert grow(X, y, engine=engine, **options) == reference, (engine, fraction)


def test_every_scan_of_the_sorted_source_holds_the_bound():
    # digits: repeated values (numpy's scan sums runs of equal values); many classes: a feature's
    # candidates scored a slice at a time (rows x classes would not fit a chunk)
    from sklearn.datasets import load_digits

    X, y = load_digits(return_X_y=True)
    for options in ({}, {"sample_weight": _weights(len(y)) * 2}):
        reference = cart(X, y, engine="reference", min_weight_fraction_leaf=0.01, **options)
        assert cart(X, y, engine="numpy", min_weight_fraction_leaf=0.01, **options) == cart(X, y, engine="c", min_weight_fraction_leaf=0.01, **options) == reference
    rng = np.random.default_rng(1)
    X = rng.normal(size=(6000, 2)).round(2)
    y = np.floor((X[:, 0] + 3) * 150).astype(int)  # about 500 classes
    reference = cart(X, y, engine="reference", min_weight_fraction_leaf=0.01, max_depth=6)
    assert cart(X, y, engine="numpy", min_weight_fraction_leaf=0.01, max_depth=6) == reference != cart(X, y, engine="numpy", max_depth=6)


@pytest.mark.parametrize("missing", ["majority", "distribute"])
@pytest.mark.parametrize("name", ["wine", "diabetes"])
def test_missing_values_grow_the_reference_tree(name, missing):
    X, y = DATA[name]()
    X[np.random.default_rng(0).random(X.shape) < 0.1] = np.nan
    grow = _grower(name)
    for options in ({}, {"sample_weight": _weights(len(y))}):
        for fraction in (0.02, 0.1):
            reference = grow(X, y, engine="reference", missing=missing, min_weight_fraction_leaf=fraction, **options)
            for engine in ("fast", "numpy"):
                assert grow(X, y, engine=engine, missing=missing, min_weight_fraction_leaf=fraction, **options) == reference


def test_a_learned_side_bounds_each_child_with_its_missing_rows_as_scikit_learn_does():
    # the reference builder applied no weight bound with missing="learn" (it grew the full tree),
    # and the level-wise engine refused the bound with it
    from test_missing_learn import compare as compare_learned
    from test_missing_learn import with_nan

    for load, Est, grow, regression in ((load_breast_cancer, DecisionTreeClassifier, cart, False), (load_diabetes, DecisionTreeRegressor, cart_regressor, True)):
        X, y = load(return_X_y=True)
        X = with_nan(X)
        for fraction in (0.01, 0.05, 0.2):
            est = Est(random_state=0, min_weight_fraction_leaf=fraction).fit(X, y)
            tree = grow(X, y, missing="learn", min_weight_fraction_leaf=fraction, engine="reference")
            compare_learned(tree, est, X, y, regression)
            assert pt.n_leaves(tree) == est.get_n_leaves()
            for engine in ("fast", "numpy", "auto"):
                assert grow(X, y, missing="learn", min_weight_fraction_leaf=fraction, engine=engine) == tree
            w = _weights(len(y))
            assert grow(X, y, missing="learn", min_weight_fraction_leaf=fraction, sample_weight=w, engine="fast") == grow(X, y, missing="learn", min_weight_fraction_leaf=fraction, sample_weight=w, engine="reference")


@pytest.mark.parametrize("missing", ["learn", "majority"])
@pytest.mark.parametrize("name", ["breast_cancer", "diabetes"])
def test_monotonic_constraints_with_the_bound_grow_the_reference_tree(name, missing):
    X, y = DATA[name]()
    if missing == "learn":
        X[np.random.default_rng(6).random(X.shape) < 0.1] = np.nan
    grow = _grower(name)
    cst = [1, -1] + [0] * (X.shape[1] - 2)
    for fraction in (0.02, 0.1):
        for weighed in ({}, {"sample_weight": _weights(len(y))}):
            options = dict(monotonic_cst=cst, missing=missing, min_weight_fraction_leaf=fraction, **weighed)
            reference = grow(X, y, engine="reference", **options)
            assert grow(X, y, engine="fast", **options) == grow(X, y, engine="numpy", **options) == reference
            assert reference != grow(X, y, engine="reference", **dict(options, min_weight_fraction_leaf=0.0))


def _categorical_frame(n=400, seed=3):
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({"a": rng.choice(list("pqrstu"), n), "b": rng.normal(size=n).round(1), "c": rng.choice(list("xyz"), n, p=[0.7, 0.2, 0.1])})
    y = (frame.a.isin(["p", "q"]) ^ (frame.b > 0.3) ^ (frame.c == "z")).astype(int).to_numpy()
    return frame, y


@pytest.mark.parametrize("preset", [cart, id3], ids=["subsets", "multiway"])
def test_categorical_splits_hold_the_bound(preset):
    frame, y = _categorical_frame()
    w = _weights(len(y), seed=5)
    grew = 0
    for fraction in (0.01, 0.05, 0.15, 0.3):
        for options in ({}, {"sample_weight": w}, {"class_weight": "balanced"}):
            reference = preset(frame, y, engine="reference", min_weight_fraction_leaf=fraction, **options)
            for engine in ("fast", "numpy"):
                assert preset(frame, y, engine=engine, min_weight_fraction_leaf=fraction, **options) == reference
            grew += reference != preset(frame, y, engine="reference", **options)
    assert grew  # the bound changed some of these trees


@settings(max_examples=80, deadline=None)
@given(
    ds=datasets(max_rows=40, weights=True, missing=0.1),
    fraction=st.floats(0.0, 0.5),
    score=st.sampled_from(["gini", "entropy"]),
    preset=st.sampled_from([cart, id3]),
)
def test_level_wise_is_the_reference_on_any_small_data(ds, fraction, score, preset):
    options = dict(score=by_task(score, "variance"), min_weight_fraction_leaf=fraction)
    assert preset(ds, engine="fast", **options) == preset(ds, engine="reference", **options)


@settings(max_examples=40, deadline=None)
@given(ds=datasets(max_rows=40, kinds=("numeric",)), fraction=st.floats(0.0, 0.5), weights=st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=40, max_size=40))
def test_the_compiled_scan_is_the_reference_on_any_small_data(ds, fraction, weights):
    w = np.array(weights[: ds.n_rows])
    if not w.sum() > 0:
        w[0] = 1.0
    options = dict(min_weight_fraction_leaf=fraction, sample_weight=w)
    assert cart(ds.X, ds.labels(), engine="c", **options) == cart(ds.X, ds.labels(), engine="reference", **options)


# -- histogram mode: the reference tree of the binned values --------------------------------


def _edges(X, n=16):
    return [np.unique(np.quantile(c[~np.isnan(c)], np.linspace(0, 1, n + 1)[1:])) for c in X.T]


@pytest.mark.parametrize("holes", [False, True])
@pytest.mark.parametrize("name", sorted(DATA))
def test_histogram_mode_grows_the_reference_tree_of_the_binned_values(name, holes):
    X, y = DATA[name]()
    if holes:
        X[np.random.default_rng(4).random(X.shape) < 0.05] = np.nan
    grow = _grower(name)
    edges = _edges(X)
    by_edges = np.column_stack([edge_bins(X[:, j], edges[j]) for j in range(X.shape[1])])
    by_quantiles = np.column_stack([quantile_bins(X[:, j], 16) for j in range(X.shape[1])])
    for fraction in (0.02, 0.1):
        for weighed in ({}, {"sample_weight": _weights(len(y))}):
            binned = grow(X, y, bins=edges, min_weight_fraction_leaf=fraction, **weighed)
            _same_binned(binned, grow(by_edges, y, engine="reference", min_weight_fraction_leaf=fraction, **weighed), X, by_edges, weighed.get("sample_weight"))
            assert binned != grow(X, y, bins=edges, **weighed)
        # max_bins: each column's quantile bins first
        quantiled = grow(X, y, max_bins=16, min_weight_fraction_leaf=fraction)
        _same_binned(quantiled, grow(by_quantiles, y, engine="reference", min_weight_fraction_leaf=fraction), X, by_quantiles)
        # the sorted source's bounded search (a learned side, monotonic constraints) on the bins
        cst = [1, -1] + [0] * (X.shape[1] - 2)
        for options in ({"missing": "learn"}, {"monotonic_cst": cst}) if name != "wine" else ({"missing": "learn"},):  # monotonic: two classes or regression
            binned = grow(X, y, bins=edges, min_weight_fraction_leaf=fraction, **options)
            _same_binned(binned, grow(by_edges, y, engine="reference", min_weight_fraction_leaf=fraction, **options), X, by_edges)


def _same_binned(binned, exact, X, values, w=None):
    """The binned fit is the exact fit of the binned ``values`` (tests/test_bounded_bins.py's
    check): the same splits and statistics, each cut at a bin's value at or below the exact
    fit's midpoint, every row of weight (``w``) routed alike (a row of weight 0 is no row:
    nothing places a cut for it)."""
    from test_bounded_bins import _shape, _thresholds

    assert _shape(binned.root) == _shape(exact.root)
    cuts = set(np.unique(values[~np.isnan(values)]).tolist())
    assert all(b <= e and b in cuts for b, e in zip(_thresholds(binned.root), _thresholds(exact.root)))
    rows = slice(None) if w is None else w > 0
    np.testing.assert_array_equal(pt.predict(binned, X)[rows], pt.predict(exact, values)[rows])


# -- with the other size options, which read the best-first tree off the full one -------------


@pytest.mark.parametrize("options", [{"max_leaf_nodes": 6}, {"max_leaf_nodes": 25}, {"min_impurity_decrease": 0.002}, {"max_leaf_nodes": 12, "min_impurity_decrease": 0.001}], ids=str)
@pytest.mark.parametrize("name", sorted(DATA))
def test_with_max_leaf_nodes_and_min_impurity_decrease(name, options):
    X, y = DATA[name]()
    regression = name == "diabetes"
    options = dict(options, min_weight_fraction_leaf=0.03)
    if regression and "min_impurity_decrease" in options:
        options["min_impurity_decrease"] *= 1e4  # the diabetes target's variance is in the thousands
    grow = _grower(name)
    tree = grow(X, y, engine="fast", **options)
    assert tree == grow(X, y, engine="reference", **options)
    assert grow(X, y, max_bins=64, **options) == grow(X, y, max_bins=64, engine="numpy", **options)
    Est = DecisionTreeRegressor if regression else DecisionTreeClassifier
    compare(tree, from_sklearn(Est(random_state=0, **options).fit(X, y)), X, y, regression=regression)


# -- Dask: the in-memory binned tree, under 1, 3 and 8 partitions -----------------------------


@pytest.mark.parametrize("parts", [1, 3, 8])
def test_dask_grows_the_in_memory_binned_tree(client, parts):
    from test_dask_options import _compare, _dask, _data

    from puretree import dask as ptdask

    X, y, target, w, edges = _data()
    for fraction in (0.05, 0.2):
        for regression, t in ((False, y), (True, target)):
            for weights in (None, w):
                for options in ({}, {"missing": "learn"}, {"monotonic_cst": [1, -1, 0]}):
                    grown = _compare(X, t, weights, edges, parts, regression, min_weight_fraction_leaf=fraction, **options)
                    assert isinstance(grown.root, Split)
        Xd, yd = _dask(parts, X, y)
        bounded = ptdask.id3(Xd, yd, bins=edges, min_weight_fraction_leaf=fraction)
        assert bounded == pt.id3(X, y, bins=edges, min_weight_fraction_leaf=fraction)
        assert bounded != pt.id3(X, y, bins=edges)


def test_dask_c45_refuses_the_bound_and_names_its_own(client):
    from test_dask_options import _dask

    from puretree import dask as ptdask

    X, y = _dask(2, np.array([[1.0, 0.0], [2.0, 1.0], [np.nan, 0.0], [4.0, 1.0]]), np.array([0, 1, 0, 1]))
    with pytest.raises(ParameterError, match=r"min_weight_fraction_leaf on puretree.dask.c45: J48's leaf bound is min_samples_leaf \(a weight\); use it"):
        ptdask.c45(X, y, min_weight_fraction_leaf=0.1)
