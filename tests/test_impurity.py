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


# -- every built-in score, at every scale (subnormal to 1e308) -----------------------------

from hypothesis import example  # noqa: E402

from puretree.criteria import SCORES  # noqa: E402

# Counts that stress float arithmetic: zero, the smallest subnormal, tiny, ordinary and huge.
_EXTREME = st.sampled_from([0.0, 5e-324, 1e-320, 2.2250738585072014e-308, 1e-300, 1.0, 3.0, 1e300, 1e307, 1e308]) | st.floats(0, 1e308)


@st.composite
def extreme_partitions(draw, width=None):
    """Children statistics (b branches x k) at extreme scales whose sum, the parent, is finite."""
    k = width or draw(st.integers(1, 4))
    b = draw(st.integers(1, 4))
    children = np.array([[draw(_EXTREME) for _ in range(k)] for _ in range(b)], dtype=np.float64)
    with np.errstate(over="ignore"):
        parent = children.sum(axis=0)
    if not np.isfinite(parent).all():
        children = children / b  # each column's sum then fits a double
        parent = children.sum(axis=0)
    return parent, children


def _regression_stats(children):
    """Consistent (weight, sum, sum of squares) for one value per branch, from drawn magnitudes."""
    w, v = np.minimum(children[:, 0], 1e100), np.minimum(children[:, 1], 1e100)
    kids = np.column_stack((w, w * v, w * v * v))
    return kids.sum(axis=0), kids


# the scores of class counts (the regression scores read (weight, sum, sum of squares))
CLASS_SCORES = sorted(name for name in SCORES if name not in ("variance", "poisson", "absolute_error"))


@pytest.mark.parametrize("name", CLASS_SCORES)
@given(data=extreme_partitions())
@example(data=(np.array([1.5e-323, 1.5e-323, 1.5e-323]), np.array([[5e-324, 5e-324, 5e-324]] * 3) / 1.0))
@example(data=(np.array([3 * 5e-324] * 3), np.array([[3 * 5e-324] * 3])))  # one identical child
@example(data=(np.array([1.5e308, 1.5e308]), np.array([[1e308, 5e307], [5e307, 1e308]])))
def test_built_in_scores_are_never_negative_or_nan(name, data):
    parent, children = data
    s = float(SCORES[name](parent, children))
    assert not math.isnan(s)
    assert s >= 0.0 or s == -math.inf  # -inf: "not a candidate" (no weight, or no split info)
    if parent.max() > 0 and name != "gain_ratio":
        assert s <= float(SCORES[name].impurity(parent)) + 1e-9


def test_gain_of_one_identical_child_is_zero_even_when_subnormal():
    # Issue 9's counterexample: three subnormal counts, one child equal to its parent.
    parent = np.array([5e-324, 5e-324, 5e-324])
    assert float(information_gain(entropy)(parent, parent[None, :])) == 0.0


@given(data=extreme_partitions(width=2))
@example(data=(np.array([1e308, 1e308]), np.array([[1e308, 1e308]])))
@example(data=(np.array([1e-300, 1e300]), np.array([[5e-301, 5e299], [5e-301, 5e299]])))
def test_variance_decrease_is_never_negative_or_nan(data):
    with np.errstate(over="ignore"):
        parent, kids = _regression_stats(data[1])
    s = float(SCORES["variance"](parent, kids))
    assert not math.isnan(s) and (s >= 0.0 or s == -math.inf)


@given(st.lists(_EXTREME, min_size=1, max_size=5))
def test_impurities_are_right_at_every_scale(counts):
    # Scaling counts by any factor leaves the class proportions, so the impurity, unchanged.
    c = np.array(counts)
    if c.max() == 0:
        return
    for f in IMPURITIES:
        small = float(f(c / c.max()))
        assert float(f(c)) == pytest.approx(small, rel=1e-9, abs=1e-12)
