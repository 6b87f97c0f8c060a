"""scikit-learn's regression criterion "poisson", grown by the level-wise engine or the reference builder: the same tree
as DecisionTreeRegressor(criterion="poisson"), run side by side (issue 25)."""

import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_diabetes
from sklearn.tree import DecisionTreeRegressor

import puretree as pt
from puretree.criteria import SCORES
from puretree.errors import DataError, ParameterError
from puretree.sklearn import TreeRegressor, from_sklearn
from sklearn_compare import compare


def _diabetes():
    X, y = load_diabetes(return_X_y=True)
    return X.astype(np.float32).astype(np.float64), y


def _counts():
    # non-negative counts: the rounded exponential of a linear function, 5k x 10
    rng = np.random.default_rng(0)
    X = rng.normal(size=(5_000, 10)).astype(np.float32).astype(np.float64)
    y = np.round(np.exp(0.3 * X[:, 0] - 0.5 * X[:, 1] + 0.2 * X[:, 2] * X[:, 3]))
    return X, y


DATA = {"diabetes": _diabetes, "counts": _counts}


def _same_as_sklearn(X, y, weight=None, **options):
    theirs = DecisionTreeRegressor(criterion="poisson", random_state=0, **options).fit(X, y, sample_weight=weight)
    ours = pt.cart(X, y, score="poisson", task="regression", sample_weight=weight, **options)
    # a tree imported from scikit-learn has no sum of squares unless grown on the squared error
    _same_trees(ours, theirs, X, y, weight)
    return ours


def _same_trees(ours, theirs, X, y, weight=None):
    ties = compare(ours, from_sklearn(theirs), X, y, regression=True, weight=weight, score=SCORES["poisson"], columns=(0, 1))
    if ties == 0:  # where the trees part on a tie, their subtrees predict differently
        np.testing.assert_allclose(pt.predict(ours, X), theirs.predict(X), rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("name", sorted(DATA))
@pytest.mark.parametrize("options", [{}, {"max_depth": 5, "min_samples_leaf": 3}], ids=str)
def test_poisson_trees_equal_scikit_learns(name, options):
    X, y = DATA[name]()
    _same_as_sklearn(X, y, **options)


@pytest.mark.parametrize("name", sorted(DATA))
def test_poisson_trees_equal_scikit_learns_with_sample_weights(name):
    X, y = DATA[name]()
    weight = np.random.default_rng(1).integers(1, 4, size=len(y)).astype(float)
    _same_as_sklearn(X, y, weight, max_depth=8)


def test_poisson_never_makes_a_child_of_zero_sum():
    # many zero targets: scikit-learn refuses a child whose targets sum to 0, and so do we
    X, y = _counts()
    y = np.where(X[:, 4] > 0.5, 0.0, y)
    ours = _same_as_sklearn(X, y)
    assert all(leaf.counts[1] > 0 for leaf in _leaves(ours.root))


def _leaves(node):
    return [node] if not hasattr(node, "children") else [leaf for kid in node.children for leaf in _leaves(kid)]


def test_the_estimator_takes_criterion_poisson():
    X, y = _counts()
    ours = TreeRegressor(criterion="poisson", max_depth=6).fit(X, y)
    theirs = DecisionTreeRegressor(criterion="poisson", max_depth=6, random_state=0).fit(X, y)
    _same_trees(ours.tree_, theirs, X, y)


@pytest.mark.parametrize("y, message", [([1.0, -2.0, 3.0, 1.0], "row 1 has y = -2.0"), ([0.0, 0.0, 0.0, 0.0], "positive sum")])
def test_poisson_refuses_negative_targets_and_a_zero_sum(y, message):
    with pytest.raises(DataError, match=message):
        pt.cart(np.arange(8.0).reshape(4, 2), np.array(y), score="poisson", task="regression")


def _edges(X, n):
    return [np.unique(np.quantile(c, np.linspace(1.0 / n, 1.0, n))) for c in X.T]


@pytest.mark.parametrize("criterion, holes", [("poisson", False), ("poisson", True), ("absolute_error", False)], ids=str)
@pytest.mark.parametrize("options", [{"max_bins": 16}, {"bins": 8}, {"bins": 8, "max_depth": 4, "min_samples_leaf": 5}], ids=str)
def test_regression_criteria_in_histogram_mode_are_the_reference_tree_of_the_binned_values(criterion, options, holes):
    # histogram mode: the tree the recursive builder grows on the binned values, each cut at the
    # bin's value below the exact fit's midpoint (poisson: the sorted source on the binned
    # columns; absolute_error: the recursive builder on them)
    from puretree.growth.engine import quantile_bins
    from test_bounded_bins import _binned_values, _shape, _thresholds

    X, y = _counts()
    X, y = X[:1500 if criterion == "poisson" else 300].copy(), y[:1500 if criterion == "poisson" else 300]
    if holes:
        X[np.random.default_rng(2).random(X.shape) < 0.1] = np.nan
    options = dict(options)
    if "bins" in options:
        options["bins"] = edges = _edges(np.nan_to_num(X), options["bins"])
        values = _binned_values(X, edges)
    else:
        values = np.column_stack([quantile_bins(X[:, j], options["max_bins"]) for j in range(X.shape[1])])
    rest = {key: v for key, v in options.items() if key not in ("bins", "max_bins")}
    binned = pt.cart(X, y, score=criterion, task="regression", **options)
    exact = pt.cart(values, y, score=criterion, task="regression", engine="reference", **rest)
    assert pt.n_nodes(binned) > 7 and _shape(binned.root) == _shape(exact.root)
    cuts = set(np.unique(values[~np.isnan(values)]).tolist())
    assert all(b <= e and b in cuts for b, e in zip(_thresholds(binned.root), _thresholds(exact.root)))
    np.testing.assert_array_equal(pt.predict(binned, X), pt.predict(exact, values))


@pytest.mark.parametrize("engine", ["auto", "fast", "numpy"])
@pytest.mark.parametrize("options, holes", [({}, True), ({"max_depth": 4, "min_samples_leaf": 5}, True), ({"missing": "distribute"}, True), ({"max_leaf_nodes": 40}, False)], ids=str)
def test_the_level_wise_engine_grows_the_reference_s_poisson_tree(engine, options, holes):
    # the sorted source scores each cut from its running sums, as the reference does; with
    # missing values (10% of the cells) too, except for max_leaf_nodes, which the reference
    # builder grows on data with missing values (docs/sizes.md)
    X, y = _counts()
    X, y = X[:2000].copy(), y[:2000]
    if holes:
        X[np.random.default_rng(2).random(X.shape) < 0.1] = np.nan
    levels = []
    tree = pt.cart(X, y, score="poisson", task="regression", engine=engine, progress=lambda depth, nodes, rows: levels.append(depth), **options)
    assert tree == pt.cart(X, y, score="poisson", task="regression", engine="reference", **options)
    assert len(levels) == len(set(levels))  # once per level: the level-wise engine grew it


@pytest.mark.parametrize("criterion", ["poisson", "absolute_error"])
def test_the_criteria_on_the_command_line(tmp_path, criterion):
    X, y = _counts()
    X, y = X[:500, :3], y[:500]
    path = tmp_path / "counts.csv"
    rows = ["a,b,c,y"] + [",".join(repr(float(v)) for v in (*x, t)) for x, t in zip(X, y)]
    path.write_text("\n".join(rows) + "\n")
    model = tmp_path / "model.json"
    done = subprocess.run([sys.executable, "-m", "puretree", "fit", str(path), "--target", "y", "--task", "regression", "--criterion", criterion, "--algorithm", "cart", "-o", str(model)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    theirs = DecisionTreeRegressor(criterion=criterion, random_state=0).fit(X, y)
    if criterion == "poisson":
        _same_trees(pt.load(model), theirs, X, y)
    else:
        compare(pt.load(model), from_sklearn(theirs), X, y, regression=True, score=SCORES["absolute_error"], columns="mean")
    if criterion != "poisson":
        return
    bad = tmp_path / "bad.csv"
    bad.write_text("a,y\n1,2\n2,-1\n3,4\n")
    done = subprocess.run([sys.executable, "-m", "puretree", "fit", str(bad), "--target", "y", "--task", "regression", "--criterion", "poisson", "-o", str(tmp_path / "m2.json")], capture_output=True, text=True)
    assert done.returncode != 0 and "Traceback" not in done.stderr and "non-negative" in done.stderr


# -- criterion "absolute_error": the leaves predict scikit-learn's weighted median --


def _continuous():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(5_000, 10)).astype(np.float32).astype(np.float64)
    y = X[:, 0] + 0.5 * X[:, 1] * X[:, 2] + rng.standard_t(2, size=5_000)  # heavy tails: the median's case
    return X, y


ABSOLUTE = {"diabetes": (_diabetes, {}), "continuous": (_continuous, {"max_depth": 6})}


def _same_as_sklearn_absolute(X, y, weight=None, **options):
    theirs = DecisionTreeRegressor(criterion="absolute_error", random_state=0, **options).fit(X, y, sample_weight=weight)
    ours = pt.cart(X, y, score="absolute_error", task="regression", sample_weight=weight, **options)
    ties = compare(ours, from_sklearn(theirs), X, y, regression=True, weight=weight, score=SCORES["absolute_error"], columns="mean")
    if ties == 0:
        np.testing.assert_allclose(pt.predict(ours, X), theirs.predict(X), rtol=1e-12, atol=1e-12)
    return ours, theirs


@pytest.mark.parametrize("name", sorted(ABSOLUTE))
def test_absolute_error_trees_equal_scikit_learns(name):
    data, options = ABSOLUTE[name]
    X, y = data()
    _same_as_sklearn_absolute(X, y, **options)


@pytest.mark.parametrize("name", sorted(ABSOLUTE))
def test_absolute_error_trees_equal_scikit_learns_with_sample_weights(name):
    data, options = ABSOLUTE[name]
    X, y = data()
    weight = np.random.default_rng(1).integers(1, 4, size=len(y)).astype(float)
    _same_as_sklearn_absolute(X, y, weight, **{"max_depth": 5, **options})


def test_absolute_error_leaves_predict_the_weighted_median():
    # two rows in a leaf: the midpoint; weights 1, 1, 2: the heavy row's target
    X = np.array([[0.0], [0.0], [1.0], [1.0], [1.0]])
    y = np.array([1.0, 4.0, 0.0, 10.0, 3.0])
    tree = pt.cart(X, y, score="absolute_error", task="regression", max_depth=1, sample_weight=np.array([1.0, 1.0, 1.0, 1.0, 2.0]))
    assert pt.predict(tree, np.array([[0.0], [1.0]])).tolist() == [2.5, 3.0]
    theirs = DecisionTreeRegressor(criterion="absolute_error", max_depth=1).fit(X, y, sample_weight=[1.0, 1.0, 1.0, 1.0, 2.0])
    assert theirs.predict(np.array([[0.0], [1.0]])).tolist() == [2.5, 3.0]
    # the median survives JSON, and the generated Python and C decide as the tree
    again = pt.from_json(pt.to_json(tree))
    assert pt.predict(again, np.array([[0.0], [1.0]])).tolist() == [2.5, 3.0]


@pytest.mark.parametrize("target", ["python", "c"])
def test_absolute_error_trees_generate_exact_code(target):
    X, y = _diabetes()
    tree = pt.cart(X, y, score="absolute_error", task="regression", max_depth=5)
    assert pt.verify(pt.from_json(pt.to_json(tree)), X, target).mismatches == []


def test_absolute_error_refuses_missing_values_and_the_fast_engine():
    X, y = _continuous()
    X = X[:50].copy()
    X[7, 3] = np.nan
    with pytest.raises(DataError, match="row 7"):
        pt.cart(X, y[:50], score="absolute_error", task="regression")
    with pytest.raises(ParameterError, match="reference builder"):
        pt.cart(X[:6, :2], y[:6], score="absolute_error", task="regression", engine="fast")


def test_the_estimator_takes_criterion_absolute_error():
    X, y = _diabetes()
    ours = TreeRegressor(criterion="absolute_error", max_depth=4).fit(X, y)
    theirs = DecisionTreeRegressor(criterion="absolute_error", max_depth=4, random_state=0).fit(X, y)
    compare(ours.tree_, from_sklearn(theirs), X, y, regression=True, score=SCORES["absolute_error"], columns="mean")


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(-3, 3), st.sampled_from([0.5, 1.0, 2.0, 3.25])), min_size=1, max_size=40))
def test_prefix_absolute_errors_in_c_are_python_s(rows):
    # the compiled Fenwick scan adds the same numbers in the same order as the Python one
    from puretree import losses
    from puretree.growth import kernels

    if not (kernels.AVAILABLE and kernels.library() is not None):
        pytest.skip("the compiled kernel is not built here")
    y = np.array([r[0] / 4 for r in rows])
    w = np.array([r[1] for r in rows])
    order = np.argsort(y, kind="stable")
    rank = np.empty(len(y), dtype=np.int64)
    rank[order] = np.arange(1, len(y) + 1)
    python = losses._prefix_absolute_errors(rank, y[order].tolist(), w)
    np.testing.assert_array_equal(kernels.prefix_absolute_errors(rank, y[order], w), python)
    np.testing.assert_array_equal(losses.prefix_absolute_errors(y, w), python)
