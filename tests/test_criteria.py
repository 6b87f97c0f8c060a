"""Scores and combinators, and the two extension points: a user's impurity and a user's score."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from puretree.criteria import SCORES, gain_ratio, impurity_decrease, information_gain, per_feature, resolve_score, split_info
from puretree.datasets import load_playtennis
from puretree.errors import ParameterError
from puretree.grow import attribute_scores, grow, id3, multiway_splits, threshold_splits
from puretree.impurity import entropy, gini, misclassification


def test_combinators_are_values_with_a_readable_repr():
    assert repr(information_gain(entropy)) == "information_gain(entropy)"
    assert repr(impurity_decrease(gini)) == "impurity_decrease(gini)"
    assert repr(gain_ratio(entropy)) == "gain_ratio(entropy)"
    assert information_gain(entropy) == information_gain(entropy)
    assert hash(gain_ratio(entropy)) == hash(gain_ratio(entropy))
    assert information_gain(entropy) != information_gain(gini)
    assert information_gain(entropy) != gain_ratio(entropy)
    assert len({impurity_decrease(gini), impurity_decrease(gini), impurity_decrease(misclassification)}) == 2
    with pytest.raises(AttributeError):
        information_gain(entropy).impurity = gini  # frozen


def test_repr_of_a_user_impurity_names_it():
    def half_gini(c):
        return gini(c) / 2

    assert repr(impurity_decrease(half_gini)) == "impurity_decrease(half_gini)"


def test_gain_ratio_without_split_information_is_not_a_candidate():
    # Every row in one branch: split info 0, so the ratio would divide by zero.
    assert float(gain_ratio(entropy)([3, 3], [[3, 3], [0, 0]])) == float("-inf")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = gain_ratio(entropy)([[3, 3], [3, 3]], [[[3, 3], [0, 0]], [[3, 0], [0, 3]]])
    assert out.tolist() == [float("-inf"), 1.0]


def test_split_info_is_entropy_of_branch_sizes():
    assert float(split_info([7, 7])) == 1.0
    assert float(split_info([14])) == 0.0


def test_scores_are_vectorised():
    parent = np.array([5.0, 9.0])
    children = np.array([[[2, 3], [4, 0], [3, 2]], [[3, 4], [2, 5], [0, 0]]], dtype=float)
    out = information_gain(entropy)(parent, children)
    assert out.shape == (2,)
    assert out[0] == pytest.approx(0.2467, abs=1e-4)
    assert out[1] == pytest.approx(float(information_gain(entropy)(parent, children[1])))


def test_resolve_score():
    assert resolve_score("gini") is SCORES["gini"]
    f = information_gain(entropy)
    assert resolve_score(f) is f
    with pytest.raises(ParameterError, match="'ginni'"):
        resolve_score("ginni")
    with pytest.raises(ParameterError, match="42"):
        resolve_score(42)


def test_per_feature():
    cost = per_feature({"a": 2, "b": 3.5})
    assert cost(np.array(["b", "a"])).tolist() == [3.5, 2.0]
    assert cost(np.asarray("a")).shape == ()
    assert per_feature({"a": 1}, default=9.0)(np.array([["z"]])).tolist() == [[9.0]]
    with pytest.raises(ParameterError, match="'zz'"):
        cost(np.array(["zz"]))
    assert per_feature({"a": 1, "b": 2}) == per_feature({"b": 2, "a": 1})
    assert repr(per_feature({"a": 1})) == "per_feature({'a': 1.0})"


# -- extension points ----------------------------------------------------------------------


def test_user_impurity_as_a_lambda_plugs_into_grow():
    data = load_playtennis()
    # Misclassification error written by hand; NaN for an empty branch is harmless.
    error_rate = lambda c: 1.0 - np.max(c, axis=-1) / np.sum(c, axis=-1)  # noqa: E731
    mine = grow(data, score=information_gain(error_rate), splitters=(multiway_splits,))
    ours = grow(data, score=information_gain(misclassification), splitters=(multiway_splits,))
    assert mine == ours
    assert (mine.predict(data) == data.labels()).all()
    scores = attribute_scores(data, score=impurity_decrease(error_rate))
    assert scores == pytest.approx(attribute_scores(data, score="misclassification"))


def test_user_impurity_def_with_numeric_features():
    def twice_gini(counts):
        return 2 * gini(counts)

    X = np.array([[1.0], [2.0], [3.0], [4.0]])
    tree = grow(X, ["a", "a", "b", "b"], score=impurity_decrease(twice_gini), splitters=(threshold_splits,))
    assert tree.root.threshold == 2.5


def test_user_composed_score_gain_squared_over_cost():
    data = load_playtennis()
    gain = information_gain(entropy)
    cost = per_feature({"outlook": 100.0, "temperature": 1.0, "humidity": 1.0, "wind": 1.0})

    def gain2_per_cost(parent, children, features):
        return gain(parent, children, features) ** 2 / cost(features)

    plain = attribute_scores(data, score=gain)
    scored = attribute_scores(data, score=gain2_per_cost)
    for name, g in plain.items():
        assert scored[name] == pytest.approx(g**2 / cost(np.asarray(name)))
    tree = id3(data, score=gain2_per_cost)
    root_name = data.schema.features[tree.root.feature].name
    assert root_name == "humidity"  # outlook, the best by gain, is too expensive
    assert id3(data).schema.features[id3(data).root.feature].name == "outlook"
    assert (tree.predict(data) == data.labels()).all()


def test_composed_score_sees_feature_names_for_numeric_thresholds():
    seen = []

    def spy(parent, children, features):
        seen.append(np.asarray(features).copy())
        return information_gain(entropy)(parent, children)

    X = np.array([[1.0, 5.0], [2.0, 6.0], [3.0, 7.0]])
    grow(X, [0, 1, 1], score=spy, feature_names=["p", "q"], splitters=(threshold_splits,))
    assert {str(v) for arr in seen for v in np.ravel(arr)} == {"p", "q"}
