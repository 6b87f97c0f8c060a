"""monotonic_cst (issue 25): scikit-learn's monotonic constraints, grown by the level-wise engine (growth.bounds) and the reference builder.

Every comparison runs scikit-learn (1.9) side by side; nothing of its result is written here.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from test_missing_learn import compare, with_nan

import puretree as pt
from puretree.estimators import TreeClassifier, TreeRegressor
from puretree.codegen import verify
from puretree.errors import ParameterError


def constraints(n):
    """+1, -1, 0 in turn over the features."""
    return [(1, -1, 0)[j % 3] for j in range(n)]


def synthetic(regression):
    """A continuous 20k x 20 set: a value rising in x0, falling in x1, bumpy in x2."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20000, 20)).astype(np.float32).astype(np.float64)
    z = X[:, 0] - X[:, 1] + 0.5 * np.sin(X[:, 2]) + rng.normal(size=20000)
    return X, (z if regression else (z > 0).astype(int))


def data(name, nan):
    if name == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
    elif name == "diabetes":
        X, y = load_diabetes(return_X_y=True)
    else:
        X, y = synthetic(name == "synthetic_regression")
    return (with_nan(X) if nan else X.astype(np.float32).astype(np.float64)), y


def assert_monotone(tree, cst):
    for j, c in enumerate(cst):
        if c:
            assert pt.check_monotone(tree, j, c) is True, (j, c)


CASES = [
    ("breast_cancer", "gini", {}),
    ("breast_cancer", "entropy", {}),
    ("breast_cancer", "log_loss", {}),
    ("breast_cancer", "gini", {"max_depth": 4}),
    ("diabetes", "squared_error", {"min_samples_leaf": 5}),
    ("synthetic_classification", "gini", {"min_samples_leaf": 50}),
    ("synthetic_classification", "entropy", {"min_samples_leaf": 50}),
    ("synthetic_regression", "squared_error", {"min_samples_leaf": 5}),
]


@pytest.mark.parametrize("engine", ["fast", "reference"])
@pytest.mark.parametrize("nan", [False, True], ids=["complete", "nan"])
@pytest.mark.parametrize("name, criterion, options", CASES)
def test_equal_to_scikit_learn(name, criterion, options, nan, engine):
    X, y = data(name, nan)
    regression = criterion == "squared_error"
    cst = constraints(X.shape[1])
    est = (DecisionTreeRegressor if regression else DecisionTreeClassifier)(criterion=criterion, random_state=0, monotonic_cst=cst, **options).fit(X, y)
    score = "variance" if regression else {"log_loss": "entropy"}.get(criterion, criterion)
    tree = pt.cart(X, y, missing="learn", monotonic_cst=cst, score=score, engine=engine, **options, **({"task": "regression"} if regression else {}))
    same, tied = compare(tree, est, X, y, regression)
    # A tie (see compare) ends the comparison below it: its two splits may pass down other bounds.
    assert pt.n_nodes(tree) == est.tree_.node_count and same > tied
    assert_monotone(tree, cst)
    # Without constraints the tree differs: the constraints did something.
    assert pt.cart(X, y, missing="learn", score=score, **options, **({"task": "regression"} if regression else {})) != tree


def test_leaf_values_are_clipped_as_scikit_learn_clips_them():
    X, y = data("diabetes", True)
    cst = constraints(X.shape[1])
    est = DecisionTreeRegressor(random_state=0, monotonic_cst=cst, max_depth=5).fit(X, y)
    tree = pt.cart(X, y, monotonic_cst=cst, max_depth=5, missing="learn", task="regression")
    assert np.allclose(pt.predict(tree, X), est.predict(X), rtol=1e-12, atol=0)
    # Some leaf is clipped: it predicts a bound, not its rows' mean.
    means = {int(i): y[est.apply(X) == i].mean() for i in np.unique(est.apply(X))}
    assert any(not np.isclose(est.tree_.value[i, 0, 0], m) for i, m in means.items())


@st.composite
def constrained_fits(draw):
    n = draw(st.integers(5, 40))
    p = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**16))
    rng = np.random.default_rng(seed)
    X = np.round(rng.normal(size=(n, p)), draw(st.integers(0, 2)))
    if draw(st.booleans()):
        X[rng.random(X.shape) < 0.15] = np.nan
    regression = draw(st.booleans())
    y = rng.normal(size=n) if regression else rng.integers(0, 2, size=n)
    if not regression and len(set(y.tolist())) < 2:
        y[0] = 1 - y[0]
    cst = draw(st.lists(st.sampled_from([-1, 0, 1]), min_size=p, max_size=p))
    missing = draw(st.sampled_from(["learn", "majority"]))
    return X, y, regression, cst, missing, draw(st.sampled_from([None, 2, 4]))


@settings(max_examples=60, deadline=None)
@given(constrained_fits())
def test_every_constrained_tree_is_monotone(fit):
    X, y, regression, cst, missing, max_depth = fit
    tree = pt.cart(X, y, monotonic_cst=cst, missing=missing, max_depth=max_depth, **({"task": "regression"} if regression else {}))
    assert_monotone(tree, cst)


def test_a_constrained_tree_saves_and_generates_code_exactly():
    X, y = data("breast_cancer", True)
    tree = pt.cart(X, y, monotonic_cst=constraints(X.shape[1]), missing="learn", max_depth=6)
    assert pt.from_json(pt.to_json(tree)) == tree
    for target in ("python", "c"):
        assert verify(tree, X, target).ok
    X, y = data("diabetes", True)
    tree = pt.cart(X, y, monotonic_cst=constraints(X.shape[1]), missing="learn", max_depth=6, task="regression")
    assert pt.from_json(pt.to_json(tree)) == tree
    for target in ("python", "c"):
        assert verify(tree, X, target).ok


def test_the_compiled_kernel_refuses_it_and_the_level_wise_engine_grows_it():
    X, y = data("breast_cancer", False)
    cst = constraints(X.shape[1])
    with pytest.raises(ParameterError, match="monotonic_cst.*compiled kernel"):
        pt.cart(X, y, monotonic_cst=cst, engine="c")
    reference = pt.cart(X, y, monotonic_cst=cst, engine="reference")
    for engine in ("auto", "fast", "numpy"):
        assert pt.cart(X, y, monotonic_cst=cst, engine=engine) == reference
    # what the level-wise engine does not grow: refused by name there, grown recursively by "auto"
    with pytest.raises(ParameterError, match="monotonic_cst.*level-wise engine"):
        pt.cart(X, y, monotonic_cst=cst, missing="distribute", engine="fast")
    assert pt.cart(X, y, monotonic_cst=cst, missing="distribute") == pt.cart(X, y, monotonic_cst=cst, missing="distribute", engine="reference")
    # histogram mode grows it too (the tree of the binned values: tests/test_bounded_bins.py), not with "distribute"
    assert all(pt.check_monotone(pt.cart(X, y, monotonic_cst=cst, max_bins=16), j, c) is True for j, c in enumerate(cst) if c)
    with pytest.raises(ParameterError, match="histogram"):
        pt.cart(X, y, monotonic_cst=cst, missing="distribute", max_bins=16)


@pytest.mark.parametrize("cst, message", [
    ([1, 0], "2 entries but the data has 4 features"),
    ([1, 0, 2, 0], "feature 'x2' must be -1, 0 or 1, got 2"),
    ([True, 0, 0, 0], "feature 'x0' must be -1, 0 or 1, got True"),
    ("1,0,0,0", "a sequence of -1, 0 or 1"),
])
def test_bad_constraints_are_refused_by_name(cst, message):
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ParameterError, match=message):
        pt.cart(X, y > 0, monotonic_cst=cst)


def test_multiclass_is_refused_as_scikit_learn_refuses_it():
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="multiclass"):
        DecisionTreeClassifier(monotonic_cst=[1, 0, 0, 0]).fit(X, y)
    with pytest.raises(ParameterError, match="3 classes"):
        pt.cart(X, y, monotonic_cst=[1, 0, 0, 0])


def test_a_categorical_feature_cannot_be_constrained():
    rows = [{"a": "x", "b": 1.0}, {"a": "y", "b": 2.0}, {"a": "x", "b": 3.0}]
    with pytest.raises(ParameterError, match="'a' is categorical"):
        pt.cart(rows, [0, 1, 1], monotonic_cst=[1, 0])
    assert_monotone(pt.cart(rows, [0, 1, 1], monotonic_cst=[0, 1]), [0, 1])


def test_the_input_is_not_mutated():
    X, y = data("breast_cancer", True)
    cst = np.array(constraints(X.shape[1]))
    before = (X.copy(), y.copy(), cst.copy())
    pt.cart(X, y, monotonic_cst=cst, missing="learn", max_depth=3)
    assert np.array_equal(X, before[0], equal_nan=True) and np.array_equal(y, before[1]) and np.array_equal(cst, before[2])


def test_the_estimators_take_scikit_learn_s_option():
    X, y = data("breast_cancer", True)
    cst = constraints(X.shape[1])
    ours = TreeClassifier(monotonic_cst=cst, missing="learn", max_depth=5).fit(X, y)
    assert ours.tree_ == pt.cart(X, y, monotonic_cst=cst, missing="learn", max_depth=5)
    assert_monotone(ours.tree_, cst)
    X, y = data("diabetes", False)
    cst = constraints(X.shape[1])
    est = DecisionTreeRegressor(monotonic_cst=cst, max_depth=5, random_state=0).fit(X, y)
    ours = TreeRegressor(monotonic_cst=cst, missing="learn", max_depth=5).fit(X, y)
    assert np.allclose(ours.predict(X), est.predict(X), rtol=1e-12, atol=0)
    with pytest.raises(ParameterError, match="3 classes"):
        TreeClassifier(monotonic_cst=[1, 0, 0, 0]).fit(*load_iris(return_X_y=True))


def test_the_command_line_takes_monotonic_cst(tmp_path):
    import subprocess
    import sys

    X, y = data("diabetes", False)
    cst = constraints(X.shape[1])
    csv = tmp_path / "d.csv"
    np.savetxt(csv, np.column_stack([X, y]), delimiter=",", header=",".join([f"x{j}" for j in range(X.shape[1])] + ["y"]), comments="", fmt="%.17g")
    out = tmp_path / "t.json"
    run = subprocess.run([sys.executable, "-m", "puretree", "fit", str(csv), "--target", "y", "--algorithm", "cart", "--task", "regression",
                          "--max-depth", "5", "--missing", "learn", "--monotonic-cst", ",".join(map(str, cst)), "-o", str(out)], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    tree = pt.from_json(out.read_text())
    assert np.allclose(pt.predict(tree, X), pt.predict(pt.cart(X, y, monotonic_cst=cst, missing="learn", max_depth=5, task="regression"), X), rtol=1e-12, atol=0)
    assert_monotone(tree, cst)
    for bad, message in (("1,2", "expected -1, 0 or 1 per feature"), ("1,0", "2 entries but the data has 10 features")):
        run = subprocess.run([sys.executable, "-m", "puretree", "fit", str(csv), "--target", "y", "--algorithm", "cart", "--task", "regression",
                              "--monotonic-cst", bad, "-o", str(tmp_path / "u.json")], capture_output=True, text=True)
        assert run.returncode != 0 and message in run.stderr and "Traceback" not in run.stderr and len(run.stderr.strip().splitlines()) == 1, run.stderr
