"""from_sklearn: scikit-learn trees become puretree trees with identical predictions, and the
generated code agrees with scikit-learn too."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_breast_cancer, make_regression
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from puretree.codegen.verify import verify
from puretree.errors import ParameterError
from puretree.predict import predict, predict_proba
from puretree.sklearn import float32_threshold, from_sklearn

F32_MAX = float(np.finfo(np.float32).max)


def neighbourhoods(estimator, X, rng):
    """Rows carrying, at each split's feature, the threshold, its float64 neighbours, the
    float32 values around it and the float32 rounding midpoints."""
    t = estimator.tree_
    rows = []
    for node in np.flatnonzero(t.feature >= 0):
        j, thr = int(t.feature[node]), float(t.threshold[node])
        f = np.float32(thr)
        up = np.nextafter(f, np.float32(np.inf))
        down = np.nextafter(f, np.float32(-np.inf))
        mids = [(float(f) + float(up)) / 2, (float(f) + float(down)) / 2]
        for v in [thr, np.nextafter(thr, -np.inf), np.nextafter(thr, np.inf), float(f), float(up), float(down)] + mids + [np.nextafter(m, s) for m in mids for s in (-np.inf, np.inf)]:
            row = X[rng.integers(len(X))].copy()
            row[j] = v
            rows.append(row)
    return np.array(rows) if rows else X[:1]


@settings(max_examples=30)
@given(t=st.one_of(st.floats(allow_nan=False, allow_infinity=False), st.sampled_from([0.0, -0.0, 1e-45, -1e-45, 1.5, F32_MAX, -F32_MAX, 1e300, -1e300, 3.4028235677973366e38])))
def test_float32_threshold_is_exact(t):
    v = float32_threshold(t)
    above = float(np.nextafter(v, np.inf))
    with np.errstate(over="ignore"):
        assert float(np.float32(v)) <= t
        assert not float(np.float32(above)) <= t
    assert np.isfinite(v)


@settings(max_examples=15)
@given(seed=st.integers(0, 2**16), depth=st.sampled_from([None, 2, 5]), regression=st.booleans())
def test_converted_trees_predict_as_sklearn(seed, depth, regression):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(120, 4)) * rng.choice([1e-3, 1.0, 1e6], size=4)
    if regression:
        y = X[:, 0] * 3 + rng.normal(size=120)
        est = DecisionTreeRegressor(max_depth=depth, random_state=seed).fit(X, y)
    else:
        y = rng.choice(["a", "b", "c"], size=120)
        est = DecisionTreeClassifier(max_depth=depth, random_state=seed).fit(X, y)
    tree = from_sklearn(est)
    Z = np.vstack([X, neighbourhoods(est, X, rng)])
    assert predict(tree, Z).tolist() == est.predict(Z).tolist()
    if not regression:
        np.testing.assert_allclose(predict_proba(tree, Z), est.predict_proba(Z), rtol=1e-12)


def test_breast_cancer_generated_code_matches_sklearn():
    X, y = load_breast_cancer(return_X_y=True)
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    tree = from_sklearn(est)
    assert predict(tree, X).tolist() == est.predict(X).tolist()
    assert tree.schema.classes == (0, 1)
    for target, ftype in (("c-table", "float"), ("c", "double"), ("python", "double")):
        assert verify(tree, X, target, feature_type=ftype).mismatches == []


def test_feature_names_and_errors():
    import pandas as pd

    X, y = make_regression(50, 3, random_state=1)
    est = DecisionTreeRegressor(max_depth=3).fit(pd.DataFrame(X, columns=["a", "b", "c"]), y)
    tree = from_sklearn(est)
    assert tree.schema.feature_names == ("a", "b", "c") and tree.schema.is_regression
    assert predict(tree, X).tolist() == est.predict(pd.DataFrame(X, columns=["a", "b", "c"])).tolist()
    with pytest.raises(ParameterError, match="fitted"):
        from_sklearn(DecisionTreeClassifier())
    with pytest.raises(ParameterError, match="feature names"):
        from_sklearn(est, feature_names=["x"])
    multi = DecisionTreeRegressor(max_depth=2).fit(X, np.c_[y, y])
    with pytest.raises(ParameterError, match="multi-output"):
        from_sklearn(multi)


@pytest.mark.parametrize("criterion, recorded", [("gini", "gini"), ("entropy", "entropy"), ("log_loss", "entropy")])
def test_the_criterion_is_recorded(criterion, recorded):
    X, y = load_breast_cancer(return_X_y=True)
    tree = from_sklearn(DecisionTreeClassifier(criterion=criterion, max_depth=3, random_state=0).fit(X, y))
    assert tree.criterion == recorded


def test_a_regression_tree_records_variance():
    X, y = make_regression(n_samples=60, n_features=3, random_state=0)
    assert from_sklearn(DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, y)).criterion == "variance"
    assert from_sklearn(DecisionTreeRegressor(criterion="absolute_error", max_depth=2, random_state=0).fit(X, y)).criterion is None



def test_a_tree_numbering_a_child_before_its_parent_converts_by_its_structure():
    # The bridge builds bottom-up (puretree.growth.assemble) on its own pre-order numbering, so
    # a tree_ whose ids are not in that order (node 3's left child is node 2) converts alike.
    from types import SimpleNamespace

    from puretree.nodes import Leaf, Split, Threshold

    inner = SimpleNamespace(
        n_outputs=1, n_features=1, node_count=5,
        children_left=np.array([1, -1, -1, 2, -1]), children_right=np.array([3, -1, -1, 4, -1]),
        feature=np.array([0, -2, -2, 0, -2]), threshold=np.array([0.5, -2.0, -2.0, 1.5, -2.0]),
        value=np.array([[[1.0, 2.0]], [[1.0, 0.0]], [[0.0, 1.0]], [[0.0, 2.0]], [[0.0, 1.0]]]),
        weighted_n_node_samples=np.array([3.0, 1.0, 1.0, 2.0, 1.0]), impurity=np.zeros(5),
    )
    tree = from_sklearn(SimpleNamespace(tree_=inner, classes_=np.array([0, 1]), criterion="gini"), feature_names=["x"])
    right = Split(0, Threshold(float32_threshold(1.5)), (Leaf((0.0, 1.0)), Leaf((0.0, 1.0))), (0.0, 2.0))
    assert tree.root == Split(0, Threshold(float32_threshold(0.5)), (Leaf((1.0, 0.0)), right), (1.0, 2.0))
