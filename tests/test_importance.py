"""Feature importances equal scikit-learn's feature_importances_ on the same tree."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from puretree.grow import cart, cart_regressor
from puretree.impurity import entropy, gini, variance
from puretree.importance import feature_importances, format_importances, impurity_decreases
from puretree.io import save
from puretree.nodes import Feature, Leaf, NumericSplit, Schema
from puretree.tree import Tree


def _from_sklearn(model, n_features, regression):
    """scikit-learn's tree_ arrays as a puretree Tree (x <= threshold goes left in both)."""
    t = model.tree_
    w = t.weighted_n_node_samples
    if regression:
        mean = t.value[:, 0, 0]
        counts = np.column_stack((w, w * mean, w * (t.impurity + mean**2)))
        schema = Schema(tuple(Feature(f"x{j}") for j in range(n_features)), (), task="regression")
    else:
        counts = t.value[:, 0, :] * w[:, None]  # value holds fractions in scikit-learn >= 1.4
        if np.allclose(t.value[:, 0, :].sum(axis=1), w):
            counts = t.value[:, 0, :]
        schema = Schema(tuple(Feature(f"x{j}") for j in range(n_features)), tuple(model.classes_.tolist()))
    built = {}
    for i in range(t.node_count - 1, -1, -1):  # children have larger ids
        if t.children_left[i] < 0:
            built[i] = Leaf(counts[i])
        else:
            built[i] = NumericSplit(int(t.feature[i]), float(t.threshold[i]), built.pop(t.children_left[i]), built.pop(t.children_right[i]), counts[i])
    return Tree(built[0], schema)


def _data(n=400, p=6, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p)).astype(np.float32).astype(np.float64)
    score = X[:, 0] + 0.5 * X[:, 1] ** 2 - 0.3 * X[:, 2] + rng.normal(scale=0.3, size=n)
    return X, score


@pytest.mark.parametrize("criterion, impurity", [("gini", gini), ("entropy", entropy)])
@pytest.mark.parametrize("weighted", [False, True])
def test_classification_importances_equal_scikit_learn(criterion, impurity, weighted):
    from sklearn.tree import DecisionTreeClassifier

    X, score = _data()
    y = np.digitize(score, [-0.5, 0.7])
    w = np.random.default_rng(3).uniform(0.2, 3.0, size=len(y)) if weighted else None
    model = DecisionTreeClassifier(criterion=criterion, max_depth=6, random_state=0).fit(X, y, sample_weight=w)
    tree = _from_sklearn(model, X.shape[1], regression=False)
    got = np.array(list(feature_importances(tree, impurity=impurity).values()))
    np.testing.assert_allclose(got, model.feature_importances_, rtol=0, atol=1e-12)


def test_regression_importances_equal_scikit_learn():
    from sklearn.tree import DecisionTreeRegressor

    X, score = _data()
    model = DecisionTreeRegressor(max_depth=7, random_state=0).fit(X, score)
    tree = _from_sklearn(model, X.shape[1], regression=True)
    got = np.array(list(feature_importances(tree).values()))
    np.testing.assert_allclose(got, model.feature_importances_, rtol=0, atol=1e-12)


def test_a_tree_grown_by_puretree_has_scikit_learns_importances():
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    X, score = _data(seed=1)
    y = (score > 0).astype(int)
    # Leaves of >= 10 rows: no tiny node where several features split the rows identically
    # (scikit-learn breaks such ties at random, puretree by the lowest feature index).
    ours = cart(X, y, max_depth=4, min_samples_leaf=10)
    theirs = DecisionTreeClassifier(max_depth=4, min_samples_leaf=10, random_state=0).fit(X, y)
    np.testing.assert_allclose(list(feature_importances(ours).values()), theirs.feature_importances_, atol=1e-12)
    ours_r = cart_regressor(X, score, max_depth=4, min_samples_leaf=10)
    theirs_r = DecisionTreeRegressor(max_depth=4, min_samples_leaf=10, random_state=0).fit(X, score)
    np.testing.assert_allclose(list(feature_importances(ours_r).values()), theirs_r.feature_importances_, atol=1e-12)


def test_a_single_leaf_has_zero_importances_and_raw_decreases_add_up():
    schema = Schema((Feature("a"), Feature("b")), ("n", "y"))
    assert feature_importances(Tree(Leaf((3, 1)), schema)) == {"a": 0.0, "b": 0.0}
    tree = Tree(NumericSplit(1, 0.5, Leaf((3, 0)), Leaf((0, 1)), (3, 1)), schema)
    np.testing.assert_allclose(impurity_decreases(tree), [0.0, 4 * float(gini([3, 1]))])
    assert float(variance([1, 2, 4])) >= 0


def test_show_importances_on_the_command_line(tmp_path):
    X, score = _data(seed=2)
    tree = cart(X, (score > 0).astype(int), max_depth=3)
    path = tmp_path / "model.json"
    save(tree, path)
    out = subprocess.run([sys.executable, "-m", "puretree", "show", str(path), "--importances"], capture_output=True, text=True, check=True).stdout
    assert format_importances(feature_importances(tree)) in out
    first = max(feature_importances(tree).items(), key=lambda kv: kv[1])[0]
    assert out.split("feature importances")[1].splitlines()[1].startswith(first)
