"""A user's impurity or score that fails is a ParameterError naming the score and the node;
valid user scores grow exactly the trees the built-in ones grow."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from puretree.criteria import SCORES, gain_ratio, impurity_decrease, information_gain
from puretree.datasets import load_playtennis
from puretree.errors import ParameterError
from puretree.grow import CheckedScore, attribute_scores, cart, grow, id3
from puretree.impurity import entropy, gini

X = np.array([[0.0], [1.0], [2.0], [3.0]])
Y = ["a", "b", "a", "b"]


def nan_impurity(counts):
    return np.full(np.shape(counts)[:-1], np.nan)


def raising_impurity(counts):
    raise ZeroDivisionError("boom")


def nan_score(parent, children, features):
    return np.full(np.shape(children)[:-2], np.nan)


def none_score(parent, children, features):
    return None


def wrong_shape(parent, children, features):
    return np.zeros(7)


def text_score(parent, children, features):
    return "high"


@pytest.mark.parametrize("score, message", [
    (information_gain(nan_impurity),
     "the score information_gain(nan_impurity) returned NaN for feature 'x0'; a score must be a number, or -inf for 'not a candidate' (at the node of depth 0 with 4 rows)"),
    (gain_ratio(nan_impurity),
     "the score gain_ratio(nan_impurity) returned NaN for feature 'x0'; a score must be a number, or -inf for 'not a candidate' (at the node of depth 0 with 4 rows)"),
    (information_gain(raising_impurity), "the score information_gain(raising_impurity) raised ZeroDivisionError: boom (at the node of depth 0 with 4 rows)"),
    (nan_score, "the score nan_score returned NaN for feature 'x0'; a score must be a number, or -inf for 'not a candidate' (at the node of depth 0 with 4 rows)"),
    (none_score, "the score none_score returned None, not scores (at the node of depth 0 with 4 rows)"),
    (wrong_shape, "the score wrong_shape returned shape (7,); expected one score per candidate split, shape (1, 3) (at the node of depth 0 with 4 rows)"),
    (text_score, "the score text_score returned str 'high', not numbers (at the node of depth 0 with 4 rows)"),
])
def test_a_failing_score_names_itself_and_the_node(score, message):
    with pytest.raises(ParameterError) as info:
        grow(X, Y, score=score)
    assert str(info.value) == message


def test_a_nan_impurity_never_gives_a_silent_one_leaf_tree():
    data = load_playtennis()
    with pytest.raises(ParameterError, match=r"returned NaN for feature 'outlook'.*depth 0 with 14 rows"):
        id3(data, score=information_gain(nan_impurity))
    with pytest.raises(ParameterError, match=r"returned NaN for feature 'outlook'.*depth 0 with 14 rows"):
        cart(data, score=impurity_decrease(nan_impurity))
    with pytest.raises(ParameterError, match=r"information_gain\(nan_impurity\) returned NaN"):
        attribute_scores(data, score=information_gain(nan_impurity))


def test_deeper_nodes_are_named():
    calls = []

    def fails_below_root(parent, children, features):
        calls.append(1)
        if np.asarray(parent).sum(axis=-1).max() < 14:
            raise ValueError("only at the root")
        return SCORES["information_gain"](parent, children, features)

    with pytest.raises(ParameterError) as info:
        id3(load_playtennis(), score=fails_below_root)
    assert str(info.value) == "the score fails_below_root raised ValueError: only at the root (at the node of depth 1 with 5 rows)"


def test_nan_for_a_split_with_no_weight_is_dropped_not_an_error():
    """0/0 where a candidate split holds no weight is harmless (the builder drops NaN there);
    NaN where the split holds weight is the error."""

    def left_share(parent, children, features):
        c = np.asarray(children, dtype=np.float64)
        with np.errstate(invalid="ignore", divide="ignore"):
            return c[..., 0, :].sum(axis=-1) / c.sum(axis=(-1, -2))

    checked = CheckedScore(left_share, 3, 0, False)
    parent = np.zeros((2, 2))
    children = np.array([[[1.0, 0.0], [0.0, 1.0]], [[0.0, 0.0], [0.0, 0.0]]])  # the second split has no weight
    out = checked(parent, children, np.array(["f", "g"]))
    assert out[0] == 0.5 and np.isnan(out[1])

    def nan_share(parent, children, features):
        return np.where(np.arange(2) == 0, np.nan, 0.5)

    with pytest.raises(ParameterError) as info:
        CheckedScore(nan_share, 3, 9, False)(parent, children, np.array(["f", "g"]))
    assert str(info.value) == "the score nan_share returned NaN for feature 'f'; a score must be a number, or -inf for 'not a candidate' (at the node of depth 3 with 9 rows)"


def test_checked_score_passes_valid_scores_through_unchanged():
    parent = np.array([9.0, 5.0])
    children = np.array([[[2.0, 3.0], [4.0, 0.0], [3.0, 2.0]]])
    wrapped = CheckedScore(information_gain(entropy), 0, 14, False)
    assert wrapped(parent, children, np.array(["outlook"])).tolist() == information_gain(entropy)(parent, children).tolist()


@given(
    rows=st.lists(st.tuples(st.integers(0, 6), st.sampled_from("xyz"), st.sampled_from("pqr")), min_size=2, max_size=30),
    name=st.sampled_from(["gini", "information_gain", "gain_ratio"]),
)
def test_a_user_copy_of_a_builtin_score_grows_the_same_tree(rows, name):
    """Wrapping user scores in checks changes no tree: a plain function calling the built-in score
    (so wrapped) grows exactly the tree the built-in score (not wrapped) grows."""
    builtin = SCORES[name]

    def mine(parent, children, features):
        return builtin(parent, children, features)

    data = [{"n": n, "c": c} for n, c, _ in rows]
    labels = [t for _, _, t in rows]
    for preset in (id3, cart):
        assert preset(data, labels, score=mine) == preset(data, labels, score=name)
    assert impurity_decrease(gini) == SCORES["gini"]


def test_a_failing_split_generator_or_accept_is_named():
    def broken(node, *, score, min_samples_leaf):
        raise KeyError("oops")

    with pytest.raises(ParameterError) as info:
        grow(X, Y, splitters=(broken,))
    assert str(info.value) == "the split generator broken raised KeyError: 'oops' (at the node of depth 0 with 4 rows)"

    def veto(parent, children):
        raise ValueError("no")

    with pytest.raises(ParameterError) as info:
        grow(np.array([[0.0], [1.0]]), ["a", "b"], accept=veto)
    assert str(info.value) == "accept=veto raised ValueError: no (for the split of statistics [1.0, 1.0] into [[1.0, 0.0], [0.0, 1.0]])"
    with pytest.raises(ParameterError, match=r"^accept must be a function"):
        grow(X, Y, accept=3)
    with pytest.raises(ParameterError, match=r"^splitters= takes a sequence of split generators, got None"):
        grow(X, Y, splitters=None)


def test_bad_arguments_to_the_combinators_are_parameter_errors():
    from puretree.criteria import per_feature

    with pytest.raises(ParameterError, match=r"^the impurity of information_gain\(\) must be a function \(statistics -> impurity\), got 'entropy'$"):
        information_gain("entropy")
    with pytest.raises(ParameterError, match=r"^per_feature: the value for 'age' must be a finite number, got 'cheap'$"):
        per_feature({"age": "cheap"})
    with pytest.raises(ParameterError, match=r"^entropy's base must be a finite number > 0 other than 1, got 1$"):
        entropy([1, 1], base=1)
