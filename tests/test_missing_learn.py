"""``missing="learn"`` (issue 25): the side of the missing values learned at each threshold
split as scikit-learn's best splitter learns it, equal to scikit-learn 1.9's trees node for
node on data with 10% NaN cells (a node may differ only where both splits tie, checked)."""

import math

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

import puretree as pt
from puretree.codegen import verify
from puretree.errors import ParameterError
from puretree.nodes import Split
from puretree.splits import TIE_TOLERANCE


def with_nan(X, seed=0):
    """float32 values (scikit-learn's), 10% of the cells NaN (seeded)."""
    X = np.asarray(X, dtype=np.float32).astype(np.float64)
    X[np.random.default_rng(seed).random(X.shape) < 0.1] = np.nan
    return X


def _impurity(y, rows, regression):
    if not len(rows):
        return 0.0
    if regression:
        return float(y[rows].var())
    share = np.bincount(y[rows], minlength=int(y.max()) + 1) / len(rows)
    return 1.0 - float((share * share).sum())


def _gain(y, rows, go_left, regression):
    n = len(rows)
    left, right = rows[go_left], rows[~go_left]
    return _impurity(y, rows, regression) - len(left) / n * _impurity(y, left, regression) - len(right) / n * _impurity(y, right, regression)


def compare(tree, est, X, y, regression):
    """Walk both trees over the training rows: at each node the same feature, the same rows in
    each child, the same side for missing values and the same leaf values; where the splits
    differ, their impurity decreases on the node's rows must tie (scikit-learn visits features
    in a random order, puretree takes the lowest index), and the subtrees are not compared.
    Returns (nodes equal, nodes tied)."""
    inner = est.tree_
    same = tied = 0
    stack = [(tree.root, 0, np.arange(len(y)))]
    while stack:
        node, i, rows = stack.pop()
        leaf = inner.children_left[i] < 0
        if leaf or not isinstance(node, Split):
            assert leaf and not isinstance(node, Split), f"scikit-learn node {i} ({len(rows)} rows): a leaf in one tree only"
            if regression:
                assert node.stats[1] / node.stats[0] == pytest.approx(inner.value[i, 0, 0], rel=1e-9, abs=1e-12)
            else:
                assert np.allclose(np.array(node.stats) / sum(node.stats), inner.value[i, 0] / inner.value[i, 0].sum(), atol=1e-12)
            same += 1
            continue
        ours = node.test.branch_of(X[rows, node.feature], tree.schema.features[node.feature]) == 0
        x = X[rows, inner.feature[i]].astype(np.float32)
        theirs = np.where(np.isnan(x), bool(inner.missing_go_to_left[i]), x <= inner.threshold[i])
        if node.feature == inner.feature[i] and (ours == theirs).all():
            assert node.test.missing_branch == (0 if inner.missing_go_to_left[i] else 1), f"node {i}: the side of the missing values"
            if math.isinf(inner.threshold[i]):
                assert node.test.value == math.inf and node.test.missing_branch == 1
            same += 1
            stack += [(node.children[0], inner.children_left[i], rows[ours]), (node.children[1], inner.children_right[i], rows[~ours])]
            continue
        ours_gain, theirs_gain = _gain(y, rows, ours, regression), _gain(y, rows, theirs, regression)
        assert abs(ours_gain - theirs_gain) <= TIE_TOLERANCE * max(1.0, abs(ours_gain)), f"node {i} ({len(rows)} rows): features {node.feature} and {inner.feature[i]} do not tie ({ours_gain!r} vs {theirs_gain!r})"
        tied += 1
        # Two features that part the rows alike (or mirrored): the children hold the same rows.
        if (ours == theirs).all():
            stack += [(node.children[0], inner.children_left[i], rows[ours]), (node.children[1], inner.children_right[i], rows[~ours])]
        elif (ours == ~theirs).all():
            stack += [(node.children[0], inner.children_right[i], rows[ours]), (node.children[1], inner.children_left[i], rows[~ours])]
    return same, tied


@pytest.mark.parametrize("engine", ["auto", "reference"])
@pytest.mark.parametrize("load, options", [
    (load_breast_cancer, {}),
    (load_wine, {}),
    (load_breast_cancer, {"min_samples_leaf": 5}),
    (load_diabetes, {}),
    (load_diabetes, {"max_depth": 5}),
])
def test_equal_to_scikit_learn_on_data_with_missing_values(load, options, engine):
    X, y = load(return_X_y=True)
    X = with_nan(X)
    regression = load is load_diabetes
    est = (DecisionTreeRegressor if regression else DecisionTreeClassifier)(random_state=0, **options).fit(X, y)
    codes = y if regression else np.searchsorted(np.unique(y), y)
    # "auto": the level-wise engine where it grows (binary classes, regression), else the recursive builder (wine's three classes)
    tree = pt.cart(X, y, missing="learn", engine=engine, **options, **({"task": "regression"} if regression else {}))
    same, tied = compare(tree, est, X, codes, regression)
    assert pt.n_nodes(tree) == est.tree_.node_count and same > tied
    with_missing = np.isnan(X).any(axis=1)
    if not tied:
        assert (pt.predict(tree, X[with_missing]) == est.predict(X[with_missing])).all()


def test_equal_node_for_node_on_a_continuous_synthetic_set():
    # Continuous values: no two splits tie, so the whole tree is scikit-learn's.
    rng = np.random.default_rng(1)
    X = rng.normal(size=(3000, 8)).astype(np.float32).astype(np.float64)
    y = X[:, 0] * 3 + np.sin(X[:, 1]) + rng.normal(size=3000)
    X[rng.random(X.shape) < 0.1] = np.nan
    est = DecisionTreeRegressor(random_state=0, min_samples_leaf=5).fit(X, y)
    tree = pt.cart_regressor(X, y, missing="learn", min_samples_leaf=5)
    same, tied = compare(tree, est, X, y, True)
    # Only ties between features that part a small node's rows alike (here mirrored), whose
    # subtrees are compared too.
    assert same + tied == est.tree_.node_count == pt.n_nodes(tree) and tied <= 3
    assert np.allclose(pt.predict(tree, X), est.predict(X), rtol=1e-12, atol=1e-12)


def test_without_missing_values_the_side_is_the_child_with_more_rows():
    X, y = load_breast_cancer(return_X_y=True)
    X = X.astype(np.float32).astype(np.float64)
    tree = pt.cart(X, y, missing="learn", max_depth=4)
    same, tied = compare(tree, DecisionTreeClassifier(random_state=0, max_depth=4).fit(X, y), X, y, False)
    assert same > 0
    for node in pt.iter_nodes(tree):
        if isinstance(node, Split):
            rows = [sum(c.stats) for c in node.children]
            assert node.test.missing_branch == (0 if rows[0] > rows[1] else 1)


def test_a_learned_tree_predicts_saves_and_generates_code_with_its_sides():
    X, y = load_breast_cancer(return_X_y=True)
    X = with_nan(X)
    tree = pt.cart(X, y, missing="learn", max_depth=6)
    assert tree.missing == "majority"
    sides = [n.test.missing_branch for n in pt.iter_nodes(tree) if isinstance(n, Split)]
    assert None not in sides and set(sides) == {0, 1}
    assert pt.from_json(pt.to_json(tree)) == tree
    for target in ("python", "c"):
        assert verify(tree, X, target).ok


def test_the_compiled_kernel_refuses_learn_by_name_and_numpy_grows_it():
    X = with_nan(np.arange(40.0).reshape(-1, 2))
    with pytest.raises(ParameterError, match="missing='learn' is grown by numpy"):
        pt.grow(X, [0, 1] * 10, missing="learn", engine="c")
    for engine in ("numpy", "fast"):
        assert pt.grow(X, [0, 1] * 10, missing="learn", engine=engine) == pt.grow(X, [0, 1] * 10, missing="learn", engine="reference")


def test_auto_and_reference_grow_the_same_learned_tree():
    X = with_nan(np.random.default_rng(3).normal(size=(200, 4)))
    y = (np.nan_to_num(X[:, 0]) > 0).astype(int)
    assert pt.cart(X, y, missing="learn") == pt.cart(X, y, missing="learn", engine="reference")


def test_learned_categorical_splits_send_missing_values_down_the_heaviest_branch():
    X = [{"c": "a", "x": 1.0}, {"c": "b", "x": np.nan}, {"c": None, "x": 2.0}, {"c": "a", "x": 3.0}, {"c": "b", "x": 0.5}]
    tree = pt.cart(X, ["p", "q", "q", "p", "q"], missing="learn", categorical=["c"])
    assert tree.missing == "majority" and pt.predict(tree, X).tolist() == ["p", "q", "q", "p", "q"]


def test_learn_needs_the_threshold_generator_it_replaces():
    X = with_nan(np.arange(40.0).reshape(-1, 2))
    with pytest.raises(ParameterError, match="missing='learn' learns the side of the threshold splits"):
        pt.c45(X, [0, 1] * 10, missing="learn")


def test_the_command_line_fits_with_missing_learn(tmp_path):
    import subprocess
    import sys

    data = tmp_path / "d.csv"
    data.write_text("x,y\n1,a\n2,a\n,b\n3,b\n0.5,a\n,b\n", encoding="utf-8")
    model = tmp_path / "m.json"
    fit = subprocess.run([sys.executable, "-m", "puretree", "fit", str(data), "--target", "y", "--algorithm", "cart", "--missing", "learn", "-o", str(model)], capture_output=True, text=True)
    assert fit.returncode == 0, fit.stderr
    assert pt.load(model).root.test.missing_branch == 1
    show = subprocess.run([sys.executable, "-m", "puretree", "show", str(model)], capture_output=True, text=True)
    assert "x > 2.5 or missing: b" in show.stdout
    refused = subprocess.run([sys.executable, "-m", "puretree", "fit", str(data), "--target", "y", "--algorithm", "c45", "--missing", "learn", "-o", str(model)], capture_output=True, text=True)
    assert refused.returncode != 0 and refused.stderr.count("\n") == 1 and "missing='learn'" in refused.stderr


def test_friedman_mse_is_squared_error_with_scikit_learn_s_warning():
    import warnings

    from sklearn.tree import DecisionTreeRegressor

    from puretree.estimators import TreeRegressor

    X, y = load_diabetes(return_X_y=True)
    plain = pt.cart_regressor(X, y, max_depth=3)
    assert pt.cart_regressor(X, y, max_depth=3, score="squared_error") == plain
    with pytest.warns(FutureWarning) as ours:
        assert pt.cart_regressor(X, y, max_depth=3, score="friedman_mse") == plain
    with warnings.catch_warnings(record=True) as theirs:
        warnings.simplefilter("always")
        DecisionTreeRegressor(criterion="friedman_mse", max_depth=3).fit(X, y)
    assert [str(w.message) for w in ours] == [str(w.message) for w in theirs if w.category is FutureWarning]
    with pytest.warns(FutureWarning, match="friedman_mse"):
        assert TreeRegressor(criterion="friedman_mse", max_depth=3).fit(X, y).tree_ == plain
    with pytest.raises(ParameterError, match="is for numeric targets"):
        pt.cart(X[:20], ["a", "b"] * 10, score="friedman_mse")
