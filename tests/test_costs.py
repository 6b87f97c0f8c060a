"""Cost-sensitive split scores: f(Gain) / g(Cost)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from puretree.costs import NunezCost, cost_sensitive, nunez, tan_schlimmer
from puretree.criteria import gain_ratio, information_gain
from puretree.errors import ParameterError
from puretree.grow import attribute_scores, id3


def _medical():
    """``blood_test`` separates the classes best; ``temperature`` almost as well."""
    rows, y = [], []
    for i in range(40):
        sick = i < 20
        blood = "high" if sick else "low"
        if i in (0, 39):  # one disagreement each side for blood, two for temperature
            blood = "low" if sick else "high"
        fever = "yes" if sick else "no"
        if i in (0, 1, 38, 39):
            fever = "no" if sick else "yes"
        rows.append({"temperature": fever, "blood_test": blood})
        y.append("sick" if sick else "well")
    return rows, y


def test_a_costly_attribute_loses_the_root_to_a_cheap_slightly_weaker_one():
    rows, y = _medical()
    gains = attribute_scores(rows, y)
    assert gains["blood_test"] > gains["temperature"] > 0.5 * gains["blood_test"]
    assert id3(rows, y).root.feature == 1  # blood_test: the better split wins without costs
    costs = {"blood_test": 10.0, "temperature": 1.0}
    for score in (tan_schlimmer(information_gain(), costs), nunez(information_gain(), costs, w=1.0)):
        tree = id3(rows, y, score=score)
        assert tree.schema.features[tree.root.feature].name == "temperature", score


def test_formulas():
    parent, children = np.array([9.0, 5.0]), np.array([[6.0, 1.0], [3.0, 4.0]])
    gain = float(information_gain()(parent, children))
    assert float(tan_schlimmer("information_gain", {"a": 4.0})(parent, children, "a")) == pytest.approx(gain**2 / 4)
    assert float(nunez("information_gain", {"a": 4.0}, w=0.5)(parent, children, "a")) == pytest.approx((2**gain - 1) / 5**0.5)
    user = cost_sensitive(gain_ratio(), {"a": 3.0}, f=np.sqrt, g=np.log1p)
    ratio = float(gain_ratio()(parent, children))
    assert float(user(parent, children, "a")) == pytest.approx(np.sqrt(ratio) / np.log1p(3.0))
    # Unnamed features cost the default; vectorised over many features at once.
    out = tan_schlimmer("information_gain", {"a": 2.0})(parent, np.stack([children, children]), np.array(["a", "b"]))
    np.testing.assert_allclose(out, [gain**2 / 2, gain**2 / 1])


@given(st.floats(0.0, 1.0))
def test_nunez_with_w_zero_ignores_costs(g):
    score = nunez("information_gain", {"a": 100.0}, w=0.0)
    children = np.array([[1.0 + g, 1.0], [1.0, 1.0 + 2 * g]])
    parent = children.sum(axis=0)
    assert float(score(parent, children, "a")) == pytest.approx(2 ** float(information_gain()(parent, children)) - 1)


def test_not_a_candidate_stays_not_a_candidate():
    score = tan_schlimmer(gain_ratio(), {"a": 2.0})
    # One branch only: split info 0, gain ratio -inf; squaring must not turn it into +inf.
    assert float(score([3.0, 1.0], [[3.0, 1.0], [0.0, 0.0]], "a")) == -np.inf


def test_values_are_small_comparable_hashable_callables():
    a = tan_schlimmer("information_gain", {"x": 2.0})
    b = tan_schlimmer("information_gain", {"x": 2.0})
    assert a == b and hash(a) == hash(b)
    assert a != tan_schlimmer("information_gain", {"x": 3.0})
    assert repr(a) == "tan_schlimmer(information_gain(entropy), per_feature({'x': 2.0}))"
    assert repr(nunez("gini", {"x": 1.0}, w=0.5)) == "nunez(impurity_decrease(gini), per_feature({'x': 1.0}), w=0.5)"
    assert "f=sqrt" in repr(cost_sensitive("gini", {"x": 1.0}, f=np.sqrt))
    assert NunezCost(0.5) == NunezCost(0.5)


def test_bad_costs_and_parameters_are_refused():
    with pytest.raises(ParameterError, match="blood"):
        tan_schlimmer("gini", {"blood": -1.0})
    with pytest.raises(ParameterError, match="w must"):
        nunez("gini", {}, w=2.0)
    with pytest.raises(ParameterError, match="costs must"):
        cost_sensitive("gini", 3.0)
    with pytest.raises(ParameterError, match="no value given"):
        tan_schlimmer("gini", {"a": 1.0}, default=None)([1, 1], [[1, 0], [0, 1]], "b")
