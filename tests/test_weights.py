"""Row and class weights: weight 0 is no row, integer weight k is k copies, bad weights refused."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from puretree.data import from_numpy
from puretree.errors import DataError, ParameterError
from puretree.grow import c45, cart, cart_regressor, class_weights, id3
from puretree.io import to_dict
from puretree.predict import predict, predict_proba

LEARNERS = {
    "id3": id3,
    "c45": c45,
    "cart": cart,
    "misclassification": lambda X, y, **kw: cart(X, y, score="misclassification", **kw),
    "entropy-cart": lambda X, y, **kw: cart(X, y, score="entropy", **kw),
}

rows = st.lists(
    st.tuples(st.integers(0, 5), st.integers(0, 3), st.sampled_from(["a", "b", "c"]), st.integers(0, 3)),
    min_size=2,
    max_size=20,
)


def _data(table):
    X = np.array([[float(a), float(b)] for a, b, _, _ in table])
    y = [c for _, _, c, _ in table]
    w = [k for _, _, _, k in table]
    return X, y, w


def _same_tree(a, b):
    da, db = to_dict(a), to_dict(b)
    assert da["nodes"] == db["nodes"]


@given(rows, st.sampled_from(sorted(LEARNERS)))
def test_weight_zero_is_the_same_as_removing_the_row(table, name):
    X, y, w = _data(table)
    keep = np.array(w) > 0
    if not keep.any():
        w[0] = 1
        keep[0] = True
    fit = LEARNERS[name]
    weighted = fit(X, y, sample_weight=[float(v > 0) for v in w])
    removed = fit(X[keep], [c for c, k in zip(y, keep) if k])
    # The schema keeps every class seen in y; compare the trees on the classes both know.
    if weighted.schema.classes == removed.schema.classes:
        _same_tree(weighted, removed)
    np.testing.assert_array_equal(predict(weighted, X), predict(removed, X))


@given(rows, st.sampled_from(sorted(LEARNERS)))
def test_integer_weight_k_is_the_same_as_k_copies(table, name):
    X, y, w = _data(table)
    if sum(w) == 0:
        w[0] = 2
    repeat = np.repeat(np.arange(len(y)), w)
    fit = LEARNERS[name]
    weighted = fit(X, y, sample_weight=w)
    copied = fit(X[repeat], [y[i] for i in repeat])
    np.testing.assert_array_equal(predict(weighted, X), predict(copied, X))
    if weighted.schema.classes == copied.schema.classes:  # a class of weight 0 is known to one only
        _same_tree(weighted, copied)
        np.testing.assert_allclose(predict_proba(weighted, X), predict_proba(copied, X), atol=1e-12)


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(-20, 20), st.integers(0, 3)), min_size=2, max_size=20))
def test_regression_integer_weight_k_is_the_same_as_k_copies(table):
    X = np.array([[float(a)] for a, _, _ in table])
    y = [float(t) for _, t, _ in table]
    w = [k for _, _, k in table]
    if sum(w) == 0:
        w[0] = 3
    repeat = np.repeat(np.arange(len(y)), w)
    weighted = cart_regressor(X, y, sample_weight=w)
    copied = cart_regressor(X[repeat], [y[i] for i in repeat])
    _same_tree(weighted, copied)  # integer targets: sums are exact either way
    np.testing.assert_allclose(predict(weighted, X), predict(copied, X), atol=1e-9)


@pytest.mark.parametrize(
    "weights, message",
    [([1.0, -1.0, 1.0], "row 1"), ([1.0, float("nan"), 1.0], "row 1"), ([1.0, 1.0], "2 values but the data has 3 rows"), ([0.0, 0.0, 0.0], "every sample weight is zero")],
)
def test_bad_weights_are_refused(weights, message):
    with pytest.raises(DataError, match=message):
        cart(np.array([[0.0], [1.0], [2.0]]), ["a", "b", "a"], sample_weight=weights)


def test_weights_are_not_modified():
    w = np.array([1.0, 2.0, 0.0, 1.0])
    cart(np.array([[0.0], [1.0], [2.0], [3.0]]), ["a", "b", "a", "b"], sample_weight=w, class_weight="balanced")
    np.testing.assert_array_equal(w, [1.0, 2.0, 0.0, 1.0])


def test_balanced_class_weight_matches_scikit_learn():
    from sklearn.utils.class_weight import compute_class_weight

    y = np.array(["a"] * 7 + ["b"] * 2 + ["c"])
    ds = from_numpy(np.zeros((10, 1)), y)
    expected = compute_class_weight("balanced", classes=np.array(["a", "b", "c"]), y=y)
    np.testing.assert_allclose(class_weights(ds, "balanced"), expected[ds.y], rtol=1e-15)


def test_class_weight_equals_the_same_sample_weight_and_changes_the_tree():
    X = np.array([[float(i)] for i in range(10)])
    y = ["a"] * 8 + ["b", "a"]
    by_class = cart(X, y, class_weight={"b": 20.0}, max_depth=1)
    by_row = cart(X, y, sample_weight=[20.0 if c == "b" else 1.0 for c in y], max_depth=1)
    _same_tree(by_class, by_row)
    assert predict(by_class, {"x0": 8.0}) == "b"
    assert predict(cart(X, y, max_depth=1), {"x0": 8.0}) == "a"


def test_class_weight_mistakes():
    X, y = np.array([[0.0], [1.0]]), ["a", "b"]
    with pytest.raises(ParameterError, match="'z'"):
        cart(X, y, class_weight={"z": 2.0})
    with pytest.raises(ParameterError, match="balanced"):
        cart(X, y, class_weight="equal")
    with pytest.raises(ParameterError, match=">= 0"):
        cart(X, y, class_weight={"a": -1})
    with pytest.raises(ParameterError, match="regression"):
        cart_regressor(X, [1.0, 2.0], class_weight="balanced")
