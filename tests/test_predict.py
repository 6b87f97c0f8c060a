"""Using a tree: predict, predict_proba, apply, decision_path; unseen categories; missing values."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from puretree.data import from_rows
from puretree.datasets import load_buys_computer, load_playtennis
from puretree.errors import DataError, SchemaError
from puretree.grow import cart, id3
from puretree.nodes import CategoricalSplit, Feature, Leaf, NumericSplit, Schema, SubsetSplit
from puretree.tree import Tree
from puretree.predict import UnseenCategoryWarning, apply, decision_path, predict, predict_proba
from puretree.flat import flatten

SUNNY_HIGH = {"outlook": "sunny", "temperature": "hot", "humidity": "high", "wind": "weak"}
RAIN_WEAK = {"outlook": "rain", "temperature": "mild", "humidity": "high", "wind": "weak"}


@pytest.fixture(scope="module")
def tennis():
    return id3(load_playtennis())


def test_one_row_and_a_batch(tennis):
    assert predict(tennis, SUNNY_HIGH) == "no"
    assert predict(tennis, RAIN_WEAK) == "yes"
    batch = predict(tennis, [SUNNY_HIGH, RAIN_WEAK])
    assert isinstance(batch, np.ndarray) and batch.tolist() == ["no", "yes"]
    assert predict_proba(tennis, SUNNY_HIGH).tolist() == [1.0, 0.0]
    assert predict_proba(tennis, [SUNNY_HIGH, RAIN_WEAK]).tolist() == [[1.0, 0.0], [0.0, 1.0]]
    assert tennis.predict(SUNNY_HIGH) == "no"  # the method form


def test_apply_and_decision_path_agree(tennis):
    data = load_playtennis()
    ids = apply(tennis, data)
    paths = decision_path(tennis, data)
    flat = flatten(tennis)
    assert ids.shape == (14,)
    for i, path in zip(ids.tolist(), paths):
        assert path[0] == 0 and path[-1] == i
        assert isinstance(flat.nodes[i], Leaf)
        assert all(flat.parent[b] == a for a, b in zip(path, path[1:]))
    assert apply(tennis, SUNNY_HIGH) == paths[0][-1]
    assert decision_path(tennis, SUNNY_HIGH) == paths[0] == (0, 5, 6)
    # The leaf a row reaches holds that row's class: the training data are fitted exactly.
    labels = data.labels()
    for r, i in enumerate(ids.tolist()):
        assert tennis.classes[int(np.argmax(flat.nodes[i].counts))] == labels[r]


@pytest.mark.parametrize(
    "batch",
    [
        lambda rows: rows,
        lambda rows: pd.DataFrame(rows),
        lambda rows: pd.DataFrame(rows)[["wind", "humidity", "temperature", "outlook"]],
        lambda rows: np.array([[r["outlook"], r["temperature"], r["humidity"], r["wind"]] for r in rows], dtype=object),
        lambda rows: from_rows(rows),
    ],
    ids=["mappings", "dataframe", "dataframe-reordered", "object-array", "dataset"],
)
def test_batch_forms_agree(tennis, batch):
    rows = [SUNNY_HIGH, RAIN_WEAK, {**RAIN_WEAK, "wind": "strong"}]
    assert predict(tennis, batch(rows)).tolist() == ["no", "yes", "no"]
    assert apply(tennis, batch(rows)).tolist() == apply(tennis, rows).tolist()


def test_probabilities_sum_to_one():
    data = load_buys_computer()
    tree = cart(data, max_depth=2)
    proba = predict_proba(tree, data)
    assert proba.shape == (14, 2)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert (predict(tree, data) == np.array(tree.classes)[proba.argmax(axis=1)]).all()


# -- unseen categories -----------------------------------------------------------------------


def test_unseen_category_at_a_multiway_split_gets_the_nodes_distribution(tennis):
    # The answer is the subject; the warning is said every time (asserted, not left in the log).
    fog = {**SUNNY_HIGH, "outlook": "fog"}
    with pytest.warns(UnseenCategoryWarning):
        assert predict_proba(tennis, fog).tolist() == pytest.approx([5 / 14, 9 / 14])
        assert predict(tennis, fog) == "yes"
        assert apply(tennis, fog) == 0 and decision_path(tennis, fog) == (0,)
        # Deeper: outlook = rain is known, wind = calm is not: the rain node's (2, 3).
        calm = {**RAIN_WEAK, "wind": "calm"}
        assert predict_proba(tennis, calm).tolist() == pytest.approx([2 / 5, 3 / 5])
        assert len(decision_path(tennis, calm)) == 2
        batch = predict(tennis, [fog, calm, SUNNY_HIGH])
        assert batch.tolist() == ["yes", "yes", "no"]


def test_unseen_category_at_a_subset_split():
    # The answer is the subject; the warning is said every time (asserted, not left in the log).
    data = load_buys_computer()
    tree = cart(data)
    assert isinstance(tree.root, SubsetSplit)
    row = {"age": "centenarian", "income": "high", "student": "no", "credit_rating": "fair"}
    with pytest.warns(UnseenCategoryWarning):
        assert predict_proba(tree, row).tolist() == pytest.approx([5 / 14, 9 / 14])
        assert predict(tree, row) == "yes"
        assert apply(tree, row) == 0


def test_unseen_category_under_every_missing_strategy(tennis):
    # The answer is the subject; the warning is said every time (asserted, not left in the log).
    import attrs

    fog = {**SUNNY_HIGH, "outlook": "fog"}
    for missing in ("majority", "distribute", "error"):
        tree = attrs.evolve(tennis, missing=missing)
    with pytest.warns(UnseenCategoryWarning):
            assert predict(tree, fog) == "yes"


def test_numeric_category_values_and_unseen_ones():
    # The answer is the subject; the warning is said every time (asserted, not left in the log).
    X = np.array([[1], [2], [3], [1], [2], [3]], dtype=object)
    tree = id3(X, ["a", "b", "c", "a", "b", "c"], categorical=["x0"])
    assert tree.schema.features[0].categories == (1, 2, 3)
    with pytest.warns(UnseenCategoryWarning):
        assert predict(tree, {"x0": 2}) == "b"
        assert predict(tree, {"x0": "3"}) == "c"  # as read from text
        assert predict_proba(tree, {"x0": 4}).tolist() == pytest.approx([1 / 3] * 3)


# -- missing values ----------------------------------------------------------------------------


def _hand_tree(missing):
    schema = Schema((Feature("x"), Feature("c", "categorical", ("u", "v"))), ("no", "yes"))
    right = CategoricalSplit(1, (Leaf((0, 2)), Leaf((1, 0))), (1, 2))
    return Tree(NumericSplit(0, 0.5, Leaf((3, 0)), right, (4, 2)), schema, missing)


@pytest.mark.parametrize("absent", [None, float("nan"), "", "?", "NA"])
def test_missing_value_majority(absent):
    tree = _hand_tree("majority")
    row = {"x": absent, "c": "u"}
    assert predict(tree, row) == "no"  # both branches hold 3 training rows: a tie goes to the first
    assert predict_proba(tree, row).tolist() == [1.0, 0.0]
    # Deeper: x is known (goes right), c is missing: the heavier child of the c split ("u", 2).
    assert predict_proba(tree, {"x": 1.0, "c": absent}).tolist() == [0.0, 1.0]


def test_missing_value_distribute():
    tree = _hand_tree("distribute")
    # Left holds 3 of the 6 training rows, right 3: [1, 0] * 1/2 + right's mix * 1/2.
    right_mix = np.array([0, 1]) * 2 / 3 + np.array([1, 0]) * 1 / 3
    expected = 0.5 * np.array([1.0, 0.0]) + 0.5 * right_mix
    assert predict_proba(tree, {"x": None, "c": None}).tolist() == pytest.approx(expected.tolist())
    assert predict_proba(tree, {"x": 0.0, "c": None}).tolist() == [1.0, 0.0]
    both = predict_proba(tree, [{"x": None, "c": "u"}, {"x": 2.0, "c": float("nan")}])
    assert both[0].tolist() == pytest.approx([0.5, 0.5])
    assert both[1].tolist() == pytest.approx([1 / 3, 2 / 3])
    # The single path of a row stops at the split whose value is missing.
    assert decision_path(tree, {"x": None, "c": "u"}) == (0,)
    assert apply(tree, {"x": 2.0, "c": None}) == 2


def test_missing_value_error_names_row_and_column():
    tree = _hand_tree("error")
    assert predict(tree, {"x": 0.0, "c": None}) == "no"  # never reaches the c split
    with pytest.raises(DataError, match=r"row 1, column 'c'"):
        predict(tree, [{"x": 0.0, "c": "u"}, {"x": 1.0, "c": None}])
    with pytest.raises(DataError, match=r"row 0, column 'x'"):
        predict_proba(tree, {"x": math.nan, "c": "u"})


def test_tree_missing_strategy_is_validated():
    from puretree.errors import PuretreeError

    with pytest.raises((PuretreeError, ValueError)):
        _hand_tree("drop")


# -- bad rows ----------------------------------------------------------------------------------


def test_wrong_column_set(tennis):
    with pytest.raises(SchemaError, match="'wind'"):
        predict(tennis, {"outlook": "sunny", "temperature": "hot", "humidity": "high"})
    with pytest.raises(SchemaError, match=r"row 1: missing column\(s\) \['humidity'\]"):
        predict(tennis, [SUNNY_HIGH, {"outlook": "sunny", "temperature": "hot", "wind": "weak"}])
    with pytest.raises(SchemaError, match="3 columns"):
        predict(tennis, np.array([["sunny", "hot", "high"]], dtype=object))
    with pytest.raises(SchemaError, match="'outlook'"):
        predict(tennis, pd.DataFrame([SUNNY_HIGH]).drop(columns="outlook"))
    # Extra columns (the target, an identifier) are ignored, as in scikit-learn pipelines.
    assert predict(tennis, {**SUNNY_HIGH, "play": "yes", "day": "D1"}) == "no"


def test_non_numeric_cell_in_a_numeric_column():
    tree = cart(np.array([[1.0, 2.0], [3.0, 4.0]]), ["a", "b"], feature_names=["p", "q"])
    with pytest.raises(DataError, match=r"row 1, column 'q': 'high' is not a number"):
        predict(tree, [{"p": 1, "q": 2}, {"p": 1, "q": "high"}])
    with pytest.raises(DataError, match=r"row 0, column 'p'.*inf"):
        predict(tree, np.array([[np.inf, 1.0]]))
    assert predict(tree, {"p": "2.5", "q": 0}) == "b"  # numeric text is read as a number


def test_one_dimensional_array_is_refused():
    tree = cart(np.array([[1.0], [3.0]]), ["a", "b"])
    with pytest.raises(DataError, match="two-dimensional"):
        predict(tree, np.array([1.0, 2.0]))
