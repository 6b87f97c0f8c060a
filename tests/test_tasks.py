"""Statistics as a value: the two tasks, their weight, remainder, prediction, and who uses them."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from puretree.criteria import SCORES, gain_ratio, impurity_decrease, information_gain, score_task
from puretree.grow import CheckedScore, cart, cart_regressor, node_statistics
from puretree.data import from_numpy
from puretree.impurity import entropy, gini, misclassification, sum_last, variance
from puretree.tasks import CLASSIFICATION, REGRESSION, TASKS, as_task, impurity_task

WEIGHTS = st.floats(0, 1e6, allow_subnormal=False)


@given(a=hnp.arrays(np.float64, st.tuples(st.integers(1, 20), st.integers(1, 12)), elements=WEIGHTS))
def test_sum_last_is_numpys_sum_bit_for_bit(a):
    assert np.array_equal(sum_last(a), a.sum(axis=-1))
    assert np.array_equal(CLASSIFICATION.weight(a), a.sum(axis=-1))


@given(y=st.lists(st.integers(0, 3), min_size=1, max_size=30), data=st.data())
def test_class_counts_weigh_what_their_rows_weigh(y, data):
    w = np.array(data.draw(st.lists(WEIGHTS, min_size=len(y), max_size=len(y))))
    stats = CLASSIFICATION.row_statistics(np.array(y), w, 4)
    assert stats.shape == (len(y), 4)
    assert np.array_equal(CLASSIFICATION.weight(stats), w)
    totals = stats.sum(axis=0)
    assert CLASSIFICATION.predict(totals) == int(np.argmax(np.bincount(y, weights=w, minlength=4)))


@given(y=st.lists(st.floats(-1e3, 1e3), min_size=1, max_size=30), data=st.data())
def test_regression_sums_weigh_their_rows_and_predict_the_weighted_mean(y, data):
    w = np.array(data.draw(st.lists(st.floats(0.5, 10), min_size=len(y), max_size=len(y))))
    stats = REGRESSION.row_statistics(np.array(y), w, 0)
    assert np.array_equal(REGRESSION.weight(stats), w)
    totals = stats.sum(axis=0)
    assert float(REGRESSION.predict(totals)) == pytest.approx(np.average(y, weights=w), rel=1e-9, abs=1e-9)
    assert float(REGRESSION.impurity(totals)) == float(variance(totals))


def test_prediction_ties_and_empty_nodes():
    assert CLASSIFICATION.predict([[2.0, 2.0, 1.0], [0.0, 0.0, 0.0]]).tolist() == [0, 0]
    assert REGRESSION.predict([[0.0, 0.0, 0.0], [2.0, -4.0, 8.0]]).tolist() == [0.0, -2.0]


@given(total=hnp.arrays(np.float64, 3, elements=st.floats(0, 100)), f=st.floats(0, 1))
def test_the_remainder_of_class_counts_is_never_negative_that_of_sums_is_exact(total, f):
    part = total * f * (1 + 1e-15)  # a rounding past the total
    assert (CLASSIFICATION.remainder(total, part) >= 0).all()
    signed = total - 50.0
    assert np.array_equal(REGRESSION.remainder(signed, part), signed - part)


def test_tasks_are_one_value_each_through_pickle_copy_and_their_names():
    for task in (CLASSIFICATION, REGRESSION):
        assert pickle.loads(pickle.dumps(task)) is task
        assert copy.deepcopy(task) is task
        assert as_task(task.name) is task and TASKS[task.name] is task
    assert as_task(True) is REGRESSION and as_task(False) is CLASSIFICATION
    assert as_task(from_numpy(np.zeros((2, 1)), [1.0, 2.0], task="regression").schema) is REGRESSION
    with pytest.raises(ValueError, match="not a task"):
        as_task("regresion")


def test_impurities_and_scores_know_their_task():
    assert impurity_task(variance) is REGRESSION
    assert all(impurity_task(f) is CLASSIFICATION for f in (entropy, gini, misclassification, lambda c: 0.0))
    assert score_task(SCORES["variance"]) is REGRESSION and score_task(SCORES["gain_ratio"]) is CLASSIFICATION
    assert score_task(CheckedScore(SCORES["variance"], 0, 1, True)) is REGRESSION
    assert score_task(lambda p, c, f=None: 0.0) is None


def _my_variance(stats):
    s = np.asarray(stats, dtype=np.float64)
    w = s[..., 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(w > 0, s[..., 2] / w - (s[..., 1] / w) ** 2, 0.0)


REG_X = np.array([[float(i % 7), float(i % 3)] for i in range(60)])
REG_Y = np.array([((i * 37) % 11) + 0.5 * (i % 7) for i in range(60)])


def test_a_users_regression_impurity_says_its_task_to_the_combinator():
    mine = impurity_decrease(_my_variance, task="regression")
    assert mine.task is REGRESSION and impurity_decrease(_my_variance).task is CLASSIFICATION
    assert information_gain(_my_variance, task=REGRESSION).task is REGRESSION
    assert gain_ratio(_my_variance, task="regression").task is REGRESSION
    for engine in ("reference", "fast"):
        ours = cart_regressor(REG_X, REG_Y, max_depth=3, engine=engine)
        theirs = cart_regressor(REG_X, REG_Y, max_depth=3, score=mine, engine=engine)
        assert [n.feature for n in _splits(theirs.root)] == [n.feature for n in _splits(ours.root)]
        assert [n.threshold for n in _splits(theirs.root)] == [n.threshold for n in _splits(ours.root)]


def test_the_weight_of_attribute_the_docs_once_asked_for_still_marks_a_regression_impurity():
    def legacy(stats):
        return _my_variance(stats)

    legacy.weight_of = lambda s: np.asarray(s, dtype=np.float64)[..., 0]
    assert impurity_decrease(legacy).task is REGRESSION


def _splits(node):
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        if hasattr(n, "threshold"):
            out.append(n)
            stack.extend([n.right, n.left])
    return out


def test_subset_splits_of_a_regression_tree_order_categories_by_their_mean_whatever_the_score():
    # A user's score (not a combinator) once made the subset search weigh regression sums as
    # class counts (weight + sum + sum of squares): the same split, its sides swapped.
    rng = np.random.default_rng(3)
    cat = rng.integers(0, 6, 300)
    y = np.array([5.0, -3.0, 10.0, 0.0, 7.0, -8.0])[cat] + rng.normal(0, 1, 300) + 40
    X = cat.astype(str)[:, None].astype(object)
    builtin = impurity_decrease(variance)

    def users(parent, children, features=None):
        return builtin(parent, children, features)

    for engine in ("reference", "fast"):
        a = cart_regressor(X, y, categorical=["x0"], max_depth=2, engine=engine)
        b = cart_regressor(X, y, categorical=["x0"], max_depth=2, score=users, engine=engine)
        assert a == b
        assert set(a.root.left_categories) == {1, 3, 5}  # the lower means: -3, 0, -8


def test_node_statistics_follow_the_task_or_the_flag():
    ds = from_numpy(np.zeros((3, 1)), ["a", "b", "a"])
    assert node_statistics(ds).tolist() == [[1.0, 0.0], [0.0, 1.0], [1.0, 0.0]]
    reg = from_numpy(np.zeros((2, 1)), [1.0, 3.0], task="regression")
    assert node_statistics(reg).tolist() == [[1.0, 1.0, 1.0], [1.0, 3.0, 9.0]]
    assert cart(np.zeros((3, 1)), ["a", "b", "a"]).root.counts == (2.0, 1.0)


def test_the_remainder_can_be_written_in_place():
    total, part = np.array([[3.0, 1.0], [2.0, 2.0]]), np.array([[1.0, 1.5], [0.5, 0.0]])
    for task in (CLASSIFICATION, REGRESSION):
        out = np.empty((2, 2))
        assert task.remainder(total, part, out=out) is out
        assert np.array_equal(out, task.remainder(total, part))
