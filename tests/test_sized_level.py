"""``max_leaf_nodes`` and ``min_impurity_decrease`` on every source (issue 25): the level-wise
engines (sorted in memory, numpy's scan and the compiled ones; binned; Dask) grow them with
missing values, ``missing="learn"`` and ``monotonic_cst`` too, the same trees as the recursive
reference builder and, where scikit-learn has the combination, as scikit-learn 1.9's.

The frontier loop grows the full tree and reads the best-first one off it
(:func:`puretree.growth.level.best_first_records`), each split ranked by the improvement its
source recorded when its chooser chose it. With missing values a split's score is its known
rows' times their share of the node's weight (C4.5's rule, and the heaviest branch then takes the
missing rows), and with monotonic constraints a node's statistics are clipped (its weight rounded
to a power of two): in neither case do the children's statistics give the improvement back.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from test_bounded_bins import _binned_values, _shape, _thresholds
from test_missing_learn import compare, with_nan
from test_monotonic_cst import assert_monotone, constraints

import puretree as pt
from puretree.growth import kernels
from puretree.nodes import Split

LOADERS = {"breast_cancer": load_breast_cancer, "wine": load_wine, "diabetes": load_diabetes}
SIZES = [dict(max_leaf_nodes=2), dict(max_leaf_nodes=5), dict(max_leaf_nodes=17), dict(max_leaf_nodes=100), dict(min_impurity_decrease=0.001), dict(min_impurity_decrease=0.01)]


def _ids(options):
    return ",".join(f"{k}={v}" for k, v in options.items())


def _data(name, nan=True):
    """float32 values (scikit-learn's), 10% of the cells NaN (seeded) when ``nan``; the fit's
    task options."""
    X, y = LOADERS[name](return_X_y=True)
    X = with_nan(X) if nan else X.astype(np.float32).astype(np.float64)
    return X, y, (dict(task="regression") if name == "diabetes" else {})


def _scaled(size, y, regression):
    """``size`` with min_impurity_decrease in the target's units for regression (a share of its variance)."""
    if regression and "min_impurity_decrease" in size:
        return {**size, "min_impurity_decrease": size["min_impurity_decrease"] * float(np.var(y))}
    return size


@pytest.mark.parametrize("size", SIZES, ids=_ids)
@pytest.mark.parametrize("missing", ["majority", "learn", "distribute"])
@pytest.mark.parametrize("name", sorted(LOADERS))
def test_the_level_wise_engines_grow_the_reference_tree_on_missing_values(name, missing, size):
    X, y, task = _data(name)
    options = dict(missing=missing, **_scaled(size, y, bool(task)), **task)
    reference = pt.cart(X, y, engine="reference", **options)
    for engine in ("fast", "numpy"):
        assert pt.cart(X, y, engine=engine, **options) == reference, engine
    if "max_leaf_nodes" in size:
        assert pt.n_leaves(reference) <= size["max_leaf_nodes"]


@pytest.mark.parametrize("size", SIZES, ids=_ids)
@pytest.mark.parametrize("missing", ["majority", "learn"])
@pytest.mark.parametrize("nan", [False, True], ids=["complete", "nan"])
@pytest.mark.parametrize("name", ["breast_cancer", "diabetes"])
def test_the_level_wise_engines_grow_the_reference_tree_with_monotonic_constraints(name, nan, missing, size):
    X, y, task = _data(name, nan)
    cst = constraints(X.shape[1])
    options = dict(missing=missing, monotonic_cst=cst, **_scaled(size, y, bool(task)), **task)
    reference = pt.cart(X, y, engine="reference", **options)
    for engine in ("fast", "numpy"):
        assert pt.cart(X, y, engine=engine, **options) == reference, engine
    assert_monotone(reference, cst)


@pytest.mark.parametrize("whole", [True, False], ids=["whole", "level_by_level"])
def test_the_compiled_paths_rank_the_splits_too(monkeypatch, whole):
    # engine="fast" grows with C where it applies: a small fit whole in one call
    # (kernels.grow_bounded, which records each split's score too), else level by level with the
    # compiled scans (kernels.scan_level: Gini on complete data; kernels.scan_bounded: a learned
    # side, monotonic constraints); each fit here went through the path named
    from unittest import mock

    if not whole:
        monkeypatch.setattr(kernels, "WHOLE_TREE_MAX_WORK", 0)
    X, y, _ = _data("breast_cancer")
    Xc, _, _ = _data("breast_cancer", nan=False)
    Xr, yr, task = _data("diabetes")
    cases = [(X, y, dict(missing="learn"), "scan_bounded"), (Xc, y, dict(monotonic_cst=constraints(30)), "scan_bounded"), (Xc, y, dict(), "scan_level"), (Xr, yr, dict(missing="learn", monotonic_cst=constraints(10), **task), "scan_bounded")]
    for data, target, fit, scan in cases:
        scan = "grow_bounded" if whole else scan
        for size in (dict(max_leaf_nodes=17), dict(min_impurity_decrease=0.01 * (float(np.var(target)) if task and target is yr else 1.0))):
            with mock.patch.object(kernels, scan, wraps=getattr(kernels, scan)) as spy:
                fast = pt.cart(data, target, engine="fast", **fit, **size)
            assert spy.called, (fit, size, scan)
            assert fast == pt.cart(data, target, engine="reference", **fit, **size)
    assert pt.cart(Xc, y, engine="c", max_leaf_nodes=17) == pt.cart(Xc, y, engine="reference", max_leaf_nodes=17)


SKLEARN_SIZES = [dict(max_leaf_nodes=5), dict(max_leaf_nodes=17), dict(max_leaf_nodes=100), dict(min_impurity_decrease=0.01), dict(max_leaf_nodes=17, min_impurity_decrease=0.001)]


@pytest.mark.parametrize("size", SKLEARN_SIZES, ids=_ids)
@pytest.mark.parametrize("name, monotonic", [("breast_cancer", False), ("breast_cancer", True), ("wine", False), ("diabetes", False), ("diabetes", True)])
def test_equal_to_scikit_learn_with_learned_sides_and_constraints(name, monotonic, size):
    X, y, task = _data(name)
    regression = bool(task)
    cst = constraints(X.shape[1]) if monotonic else None
    size = _scaled(size, y, regression)
    est = (DecisionTreeRegressor if regression else DecisionTreeClassifier)(random_state=0, monotonic_cst=cst, **size).fit(X, y)
    for engine in ("fast", "numpy"):
        tree = pt.cart(X, y, missing="learn", monotonic_cst=cst, engine=engine, **size, **task)
        same, tied = compare(tree, est, X, y, regression)
        assert pt.n_nodes(tree) == est.tree_.node_count and same > tied
    if cst is not None:
        assert_monotone(tree, cst)


def _at(node, path):
    for b in path:
        node = node.children[b]
    return node


def _paths(node, path=()):
    yield path, node
    if isinstance(node, Split):
        for b, kid in enumerate(node.children):
            yield from _paths(kid, (*path, b))


@pytest.mark.parametrize("engine", ["fast", "numpy", "reference"])
@pytest.mark.parametrize("name", ["breast_cancer", "diabetes"])
def test_a_subtree_cut_off_leaves_the_clipped_value_of_its_root(name, engine):
    # the best-first tree is the full tree cut: every node's statistics the full tree's at its
    # place, so a split turned leaf keeps the value clipped to its bounds, as the reference clips it
    X, y, task = _data(name)
    cst = constraints(X.shape[1])
    full = pt.cart(X, y, missing="learn", monotonic_cst=cst, engine=engine, **task)
    for leaves in (5, 17):
        small = pt.cart(X, y, missing="learn", monotonic_cst=cst, engine=engine, max_leaf_nodes=leaves, **task)
        cut = 0
        for path, node in _paths(small.root):
            there = _at(full.root, path)
            assert node.stats == there.stats
            if isinstance(node, Split):
                assert (node.feature, node.test) == (there.feature, there.test)
            else:
                cut += isinstance(there, Split)
        assert cut > 0 and pt.n_leaves(small) == leaves
        assert_monotone(small, cst)


def _edges(X, n):
    return [np.unique(np.quantile(c[~np.isnan(c)], np.linspace(1.0 / n, 1.0, n))) for c in X.T]


@pytest.mark.parametrize("size", [dict(max_leaf_nodes=2), dict(max_leaf_nodes=9), dict(max_leaf_nodes=40), dict(min_impurity_decrease=0.005)], ids=_ids)
@pytest.mark.parametrize("fit", [dict(missing="majority"), dict(missing="learn"), dict(monotonic_cst=True), dict(missing="learn", monotonic_cst=True)], ids=_ids)
@pytest.mark.parametrize("name", ["breast_cancer", "diabetes"])
def test_the_binned_fit_is_the_reference_fit_of_the_binned_values(name, fit, size):
    X, y, task = _data(name)
    X = X[:, :8]
    edges = _edges(X, 12)
    w = np.random.default_rng(4).integers(1, 4, size=len(y)).astype(float) if name == "diabetes" else None
    options = dict(fit, **_scaled(size, y, bool(task)), **task)
    if options.get("monotonic_cst"):
        options["monotonic_cst"] = constraints(X.shape[1])
    binned = pt.cart(X, y, bins=edges, sample_weight=w, **options)
    exact = pt.cart(_binned_values(X, edges), y, engine="reference", sample_weight=w, **options)
    assert _shape(binned.root) == _shape(exact.root)
    for b, e in zip(_thresholds(binned.root), _thresholds(exact.root)):
        assert b == e == np.inf or (b <= e and any(b == edge for edge in np.concatenate(edges).tolist()))
    assert isinstance(binned.root, Split)


@st.composite
def sized_fits(draw):
    """Small data with ties and missing values, two classes or targets, maybe weights, a missing
    strategy, maybe monotonic constraints, and the size options."""
    n = draw(st.integers(4, 60))
    p = draw(st.integers(1, 3))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    X = np.round(rng.normal(size=(n, p)), 1)
    X[rng.random(X.shape) < draw(st.sampled_from([0.0, 0.1, 0.3]))] = np.nan
    regression = draw(st.booleans())
    y = np.round(rng.normal(size=n), 1) if regression else rng.integers(0, 2, size=n)
    w = rng.integers(1, 4, size=n).astype(float) if draw(st.booleans()) else None
    missing = draw(st.sampled_from(["majority", "learn", "distribute"]))
    options = dict(missing=missing, min_samples_leaf=draw(st.sampled_from([1, 3])), max_leaf_nodes=draw(st.none() | st.integers(2, 8)), min_impurity_decrease=draw(st.sampled_from([0.0, 0.001, 0.02])))
    if missing != "distribute" and draw(st.booleans()):
        options["monotonic_cst"] = draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=p, max_size=p))
    if options["max_leaf_nodes"] is None and options["min_impurity_decrease"] == 0.0:
        options["max_leaf_nodes"] = 3
    return X, y, w, regression, options


@settings(max_examples=150, deadline=None)
@given(sized_fits())
def test_property_the_level_wise_tree_is_the_reference_tree(case):
    X, y, w, regression, options = case
    fit = pt.cart_regressor if regression else pt.cart
    reference = fit(X, y, sample_weight=w, engine="reference", **options)
    for engine in ("fast", "numpy"):
        assert fit(X, y, sample_weight=w, engine=engine, **options) == reference
    if options["max_leaf_nodes"] is not None:
        assert pt.n_leaves(reference) <= options["max_leaf_nodes"]


DASK_FITS = [dict(max_leaf_nodes=4), dict(max_leaf_nodes=6, missing="learn"), dict(min_impurity_decrease=0.005, monotonic_cst=[1, -1, 0]), dict(max_leaf_nodes=5, min_impurity_decrease=0.001, missing="learn", monotonic_cst=[0, 1, -1])]


@pytest.mark.parametrize("parts", [1, 3, 8])
@pytest.mark.parametrize("options", DASK_FITS, ids=_ids)
def test_dask_grows_the_in_memory_binned_tree(client, options, parts):
    # tests/test_dask_options.py's helpers: the same edges, 15% missing values, weights
    from test_dask_options import _compare, _dask, _data as dask_data, _splits
    from puretree import dask as ptdask

    X, y, target, w, edges = dask_data()
    for regression, t in ((False, y), (True, target)):
        for weights in (None, w):
            scaled = dict(options, min_impurity_decrease=options.get("min_impurity_decrease", 0.0) * (float(np.var(t)) if regression else 1.0))
            grown = _compare(X, t, weights, edges, parts, regression, **scaled)
            full = (ptdask.cart_regressor if regression else ptdask.cart)(*_dask(parts, X, t), bins=edges, **{k: v for k, v in options.items() if k in ("missing", "monotonic_cst")})
            assert 0 < len(_splits(grown.root)) < len(_splits(full.root))  # the option cut something
