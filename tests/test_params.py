"""Declared parameter constraints: what they admit, what they return, and the one wording."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from puretree.costs import nunez
from puretree.errors import ParameterError
from puretree.grow import GROW_CONSTRAINTS, cart, check_options, grow
from puretree.params import Interval, IsCallable, Options, check, check_all, describe

X4 = np.array([[0.0], [1.0], [2.0], [3.0]])
Y4 = ["a", "a", "b", "b"]

CLOSED = st.sampled_from(["both", "left", "right", "neither"])


@given(x=st.integers(-10**20, 10**20), low=st.integers(-100, 100), closed=CLOSED)
def test_an_integer_interval_admits_exactly_the_integers_past_its_bound(x, low, closed):
    c = Interval(int, low, None, closed=closed)
    assert c.accepts(x) == (x >= low if closed in ("both", "left") else x > low)
    assert c.accepts(np.int64(max(min(x, 2**62), -(2**62)))) == c.accepts(max(min(x, 2**62), -(2**62)))


@given(x=st.floats(allow_nan=True, allow_infinity=True), low=st.floats(-5, 5), high=st.floats(-5, 5), closed=CLOSED)
def test_a_number_interval_admits_exactly_the_numbers_between_its_bounds(x, low, high, closed):
    c = Interval(float, low, high, closed=closed)
    inside = (x >= low if closed in ("both", "left") else x > low) and (x <= high if closed in ("both", "right") else x < high)
    assert c.accepts(x) == (not math.isnan(x) and inside)


@given(x=st.floats(allow_nan=True, allow_infinity=True))
def test_nan_is_never_a_number_and_infinity_only_when_allowed(x):
    assert Interval(float).accepts(x) == math.isfinite(x)
    assert Interval(float, finite=False).accepts(x) == (not math.isnan(x))


@pytest.mark.parametrize("value", [True, False, "1", 2.0, None, [1], np.array([1])])
def test_an_integer_is_not_a_bool_a_float_or_text(value):
    assert not Interval(int, 0, None).accepts(value)


@given(x=st.one_of(st.integers(-1000, 1000), st.floats(-1e6, 1e6)))
def test_check_returns_the_value_normalised(x):
    out = check("v", x, Interval(float, None, None))
    assert type(out) is float and out == x
    if isinstance(x, int):
        out = check("v", np.int32(x), Interval(int, None, None))
        assert type(out) is int and out == x


@given(value=st.one_of(st.integers(-5, -1), st.floats(allow_nan=True), st.text(max_size=3), st.booleans()))
def test_a_refused_value_gets_the_one_wording(value):
    constraints = (Interval(int, 0, None), None)
    with pytest.raises(ParameterError) as info:
        check("max_depth", value, *constraints)
    assert str(info.value) == f"max_depth must be an integer >= 0 or None, got {value!r}"
    assert describe(constraints) == "an integer >= 0 or None"


def test_the_descriptions_of_each_kind():
    assert Interval(int, 1, None).describe() == "an integer >= 1"
    assert Interval(int, None, 9, closed="neither").describe() == "an integer < 9"
    assert Interval(float, 0, None).describe() == "a finite number >= 0"
    assert Interval(float, 0, 1, closed="neither").describe() == "a number in (0, 1)"
    assert Interval(float, 0.5, 1, closed="left").describe() == "a number in [0.5, 1)"
    assert Interval(float, finite=False).describe() == "a number"
    assert Options(("a", "b")).describe() == "one of ['a', 'b']"
    assert IsCallable().describe() == "a function"


def test_options_compare_by_value_and_kind():
    c = Options(("majority", "error"))
    assert c.accepts("error") and c.accepts(np.str_("error"))
    assert not c.accepts("Error") and not c.accepts(None) and not c.accepts(np.array(["error", "x"]))
    assert not Options((1, 2)).accepts("1")


def test_a_long_value_is_cut_short_in_the_message():
    with pytest.raises(ParameterError) as info:
        check("threshold", "x" * 1000, Options(("midpoint", "data")))
    assert len(str(info.value)) < 200


def test_check_all_names_the_first_failing_option_and_needs_a_declaration():
    declared = {"a": (Interval(int, 0, None),), "b": (Options(("x",)),)}
    assert check_all(declared, a=1, b="x") == {"a": 1, "b": "x"}
    with pytest.raises(ParameterError, match=r"^b must be one of \['x'\], got 'y'$"):
        check_all(declared, a=1, b="y")
    with pytest.raises(KeyError):
        check_all(declared, c=1)


#: One bad value for each of grow's declared options.
BAD_GROW_OPTIONS = [
    ("max_depth", -1), ("max_depth", 2.5), ("max_depth", True),
    ("min_samples_split", "2"), ("min_samples_split", float("inf")),
    ("min_samples_leaf", -1), ("min_samples_leaf", float("nan")),
    ("min_gain", float("nan")), ("min_gain", "0"),
    ("accept", 3),
    ("missing", "nope"), ("threshold", "mid"),
    ("max_bins", 1), ("max_bins", 2.0),
]


@pytest.mark.parametrize("name, value", BAD_GROW_OPTIONS)
def test_grow_refuses_each_option_in_the_declared_words(name, value):
    with pytest.raises(ParameterError) as info:
        grow(X4, Y4, **{name: value})
    assert str(info.value) == f"{name} must be {describe(GROW_CONSTRAINTS[name])}, got {value!r}"


def test_grow_refuses_an_unknown_engine_in_the_same_words():
    from puretree.growth.engine import ENGINES

    with pytest.raises(ParameterError) as info:
        grow(X4, Y4, engine="turbo")
    assert str(info.value) == f"engine must be one of {list(ENGINES)}, got 'turbo'"


def test_normalised_options_grow_the_same_tree():
    assert cart(X4, Y4, max_depth=np.int64(1), min_samples_leaf=np.float32(1)) == cart(X4, Y4, max_depth=1, min_samples_leaf=1)
    assert check_options(max_depth=np.int8(3), min_gain=None) == {"max_depth": 3, "min_gain": None}


def test_the_other_modules_checks_use_the_same_words():
    from puretree.criteria import information_gain, per_feature
    from puretree.grow import class_weights
    from puretree.data import from_numpy
    from puretree.impurity import entropy

    cases = [
        (lambda: nunez("gini", {}, w=2), "w must be a number in [0, 1], got 2"),
        (lambda: nunez("gini", {"x": -1}), "the cost of 'x' must be a finite number >= 0, got -1"),
        (lambda: per_feature({"x": 1}, default="1"), "per_feature: default must be a finite number or None, got '1'"),
        (lambda: entropy([1, 1], base=-2), "entropy's base must be a finite number > 0 other than 1, got -2"),
        (lambda: information_gain(3), "the impurity of information_gain() must be a function (statistics -> impurity), got 3"),
        (lambda: information_gain(entropy, task="regresion"), "the task of information_gain() must be one of ['classification', 'regression'], got 'regresion'"),
        (lambda: class_weights(from_numpy(X4, Y4), {"a": -2}), "class_weight for 'a' must be a finite number >= 0, got -2"),
    ]
    for call, message in cases:
        with pytest.raises(ParameterError) as info:
            call()
        assert str(info.value) == message


def test_validate_params_checks_every_call_and_keeps_the_function_readable():
    from puretree.params import validate_params

    @validate_params({"alpha": (Interval(float, 0, None),), "method": (Options(("a", "b")),)})
    def prune_like(tree, *, alpha=0.0, method="a"):
        """Doc."""
        return alpha, method

    assert prune_like(None) == (0.0, "a")
    assert prune_like(None, alpha=np.float32(0.5)) == (0.5, "a")
    assert type(prune_like(None, alpha=1)[0]) is float
    assert prune_like.__doc__ == "Doc." and prune_like.__name__ == "prune_like"
    with pytest.raises(ParameterError, match=r"^alpha must be a finite number >= 0, got -1$"):
        prune_like(None, alpha=-1)
    with pytest.raises(ParameterError, match=r"^method must be one of \['a', 'b'\], got 'c'$"):
        prune_like(None, method="c")
    with pytest.raises(TypeError):
        prune_like(None, 1)  # keyword-only stays keyword-only
    with pytest.raises(TypeError, match="no parameter"):
        validate_params({"beta": (None,)})(prune_like.__wrapped__)


def test_an_integer_beyond_a_doubles_range_is_refused_by_name():
    with pytest.raises(ParameterError, match=r"^min_samples_leaf must be a finite number >= 0, got 1000"):
        check("min_samples_leaf", 10**400, Interval(float, 0, None))
    assert check("max_depth", 10**400, Interval(int, 0, None)) == 10**400
