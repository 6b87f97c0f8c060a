"""Impurities: values, vectorisation, and their invariants (Hypothesis)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from puretree.criteria import impurity_decrease, information_gain
from puretree.impurity import class_weight_of, entropy, gini, misclassification, variance

IMPURITIES = [entropy, gini, misclassification]

counts_1d = st.integers(1, 8).flatmap(lambda k: arrays(np.float64, k, elements=st.floats(0, 1e6, allow_nan=False)))


def test_known_values():
    assert float(entropy([9, 5])) == pytest.approx(0.9403, abs=1e-4)
    assert float(entropy([1, 1, 1, 1])) == pytest.approx(2.0)
    assert float(entropy([1, 1], base=math.e)) == pytest.approx(math.log(2))
    assert float(entropy([1, 1], base=10)) == pytest.approx(math.log10(2))
    assert float(gini([9, 5])) == pytest.approx(1 - (81 + 25) / 196)
    assert float(misclassification([9, 5])) == pytest.approx(5 / 14)
    assert float(variance([3, 6, 14])) == pytest.approx(2 / 3)


@pytest.mark.parametrize("impurity", IMPURITIES)
def test_pure_and_empty_nodes_have_zero_impurity(impurity):
    assert float(impurity([0, 7, 0])) == 0.0
    assert float(impurity([0, 0, 0])) == 0.0
    assert float(variance([0, 0, 0])) == 0.0


@pytest.mark.parametrize("impurity", IMPURITIES)
def test_vectorised_over_leading_axes(impurity):
    c = np.array([[[4, 0], [2, 2]], [[1, 3], [0, 0]]], dtype=float)
    out = impurity(c)
    assert out.shape == (2, 2)
    assert out.tolist() == [[float(impurity(r)) for r in row] for row in c]


@pytest.mark.parametrize("impurity", IMPURITIES)
def test_scale_invariant_weighted_counts(impurity):
    assert float(impurity([0.5, 1.5, 2.0])) == pytest.approx(float(impurity([1, 3, 4])), abs=1e-12)


def test_input_not_mutated():
    c = np.array([[3.0, 1.0], [0.0, 0.0]])
    before = c.copy()
    for f in IMPURITIES:
        f(c)
    variance(np.array([2.0, 3.0, 5.0]))
    assert (c == before).all()


def test_class_weight_of():
    assert class_weight_of([[1, 2], [3, 4]]).tolist() == [3.0, 7.0]


@given(counts_1d)
def test_entropy_bounded_by_log2_k(counts):
    h = float(entropy(counts))
    assert 0.0 <= h <= math.log2(len(counts)) + 1e-9


@given(counts_1d)
def test_gini_and_misclassification_bounded(counts):
    k = len(counts)
    assert 0.0 <= float(gini(counts)) <= 1 - 1 / k + 1e-12
    assert 0.0 <= float(misclassification(counts)) <= 1 - 1 / k + 1e-12
    assert float(misclassification(counts)) <= float(gini(counts)) + 1e-12


@st.composite
def counts_and_partition(draw):
    """Random per-row counts (k classes) and a random partition of the rows into b branches."""
    k = draw(st.integers(1, 5))
    n = draw(st.integers(1, 12))
    rows = draw(arrays(np.float64, (n, k), elements=st.floats(0, 1000, allow_nan=False)))
    b = draw(st.integers(1, 4))
    branch = np.array(draw(st.lists(st.integers(0, b - 1), min_size=n, max_size=n)))
    children = np.array([rows[branch == i].sum(axis=0) for i in range(b)])
    return rows.sum(axis=0), children


@pytest.mark.parametrize("impurity", IMPURITIES)
@given(data=counts_and_partition())
def test_gain_is_never_negative(impurity, data):
    parent, children = data
    g = float(impurity_decrease(impurity)(parent, children))
    if parent.sum() > 0:
        assert g >= 0.0
        assert g <= float(impurity(parent)) + 1e-9
    else:
        assert g == float("-inf")  # nothing to split: not a candidate


@given(data=counts_and_partition())
def test_information_gain_is_entropy_decrease(data):
    parent, children = data
    if parent.sum() == 0:
        return
    w = children.sum(axis=1)
    expected = float(entropy(parent)) - sum(wi / w.sum() * float(entropy(c)) for wi, c in zip(w, children))
    assert float(information_gain(entropy)(parent, children)) == pytest.approx(max(expected, 0.0), abs=1e-9)
