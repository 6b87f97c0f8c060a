"""Missing values in training: C4.5's fractional rows, the majority branch, strict refusal."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from puretree.criteria import information_gain
from puretree.data import from_numpy, from_rows
from puretree.datasets import load_playtennis
from puretree.errors import DataError
from puretree.fold import iter_nodes
from puretree.grow import root_data, attribute_scores, c45, cart, grow, id3
from puretree.io import from_json, to_json
from puretree.nodes import Leaf, children
from puretree.predict import predict, predict_proba
from puretree.flat import flatten

_spec = importlib.util.spec_from_file_location("weka_cv", Path(__file__).parent / "data" / "cross_validate.py")
weka_cv = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(weka_cv)


def _playtennis_rows():
    ds = load_playtennis()
    rows = []
    for x in ds.X:
        rows.append({f.name: f.categories[int(v)] for f, v in zip(ds.schema.features, x)})
    return rows, ds.labels().tolist()


def _with_missing(row_index: int, column: str):
    rows, y = _playtennis_rows()
    rows[row_index] = dict(rows[row_index], **{column: None})
    return rows, y


def test_gain_is_computed_on_known_rows_and_scaled_by_the_known_fraction():
    rows, y = _with_missing(5, "outlook")
    got = attribute_scores(rows, y)["outlook"]
    known_rows = [r for i, r in enumerate(rows) if i != 5]
    known_y = [c for i, c in enumerate(y) if i != 5]
    on_known = attribute_scores(known_rows, known_y)["outlook"]
    assert got == pytest.approx(13 / 14 * on_known, abs=1e-12)
    # A complete feature is unaffected.
    assert attribute_scores(rows, y)["wind"] == pytest.approx(attribute_scores(*_playtennis_rows())["wind"], abs=1e-12)


def test_c45_sends_a_missing_row_down_every_branch_with_fractional_weight():
    rows, y = _with_missing(5, "outlook")  # D6: rain, cool, normal, strong -> no
    tree = c45(rows, y, score=information_gain())
    root = tree.root
    assert tree.schema.features[root.feature].name == "outlook"
    known = np.array([sum(c.counts) for c in children(root)]) - np.array([0.0, 0.0, 0.0])
    # Known rows per branch (overcast 4, rain 4, sunny 5) plus 1/13 of the row times the share.
    shares = np.array([4, 4, 5]) / 13
    np.testing.assert_allclose(known, np.array([4, 4, 5]) + shares, atol=1e-12)
    assert sum(root.counts) == pytest.approx(14.0)
    # The row's class ("no") is spread over the branches with those shares.
    no = tree.schema.classes.index("no")
    np.testing.assert_allclose([c.counts[no] for c in children(root)], np.array([0, 1, 3]) + shares, atol=1e-12)
    # Prediction weights are the same shares: FlatTree.fraction is the child's share of the parent.
    flat = flatten(tree)
    kids = flat.child_table[flat.child_offset[0] : flat.child_offset[0] + flat.n_children[0]]
    np.testing.assert_allclose(flat.fraction[kids], shares, atol=1e-12)


def test_majority_sends_missing_rows_down_the_heaviest_branch():
    rows, y = _with_missing(5, "outlook")
    tree = id3(rows, y)
    assert tree.missing == "majority"
    weights = [sum(c.counts) for c in children(tree.root)]
    assert weights == [4.0, 4.0, 6.0]  # sunny (5 known) is heaviest and takes the row


def test_every_node_conserves_weight_under_distribute():
    data = weka_cv.load("labor")
    tree = c45(data)
    for node in iter_nodes(tree.root):
        kids = children(node)
        if kids:
            assert sum(sum(c.counts) for c in kids) == pytest.approx(sum(node.counts), rel=1e-9)
    assert sum(tree.root.counts) == pytest.approx(data.n_rows)


def test_error_strategy_refuses_missing_values_in_training_naming_row_and_column():
    rows, y = _with_missing(3, "humidity")
    with pytest.raises(DataError, match=r"row 3, column 'humidity'"):
        grow(rows, y, missing="error")


def test_defaults_per_algorithm():
    rows, y = _with_missing(5, "outlook")
    assert c45(rows, y).missing == "distribute"
    assert id3(rows, y).missing == "majority"
    assert cart(rows, y).missing == "majority"
    assert cart(rows, y, missing="distribute").missing == "distribute"


def test_restrict_keeps_sorted_orders_and_scales_stats():
    X = np.array([[3.0, np.nan], [1.0, 5.0], [2.0, 4.0], [np.nan, 1.0]])
    node = root_data(from_numpy(X, [0, 1, 0, 1]))
    mask = np.array([True, False, True, True])
    child = node.restrict(mask, scale=np.array([1.0, 1.0, 0.25]))
    np.testing.assert_allclose(child.stats.sum(axis=1), [1.0, 1.0, 0.25])
    for i in range(child.order.shape[0]):
        values = child.values[i]
        known = values[~np.isnan(values)]
        assert np.all(np.diff(known) > 0) and np.isnan(values[len(known):]).all()
        np.testing.assert_array_equal(child.X[child.order[i], child.numeric[i]], values)


def test_complete_data_gives_the_same_tree_under_every_strategy():
    ds = load_playtennis()
    trees = [to_json(id3(ds, missing=m)).replace(f'"missing": "{m}"', "") for m in ("majority", "distribute", "error")]
    assert trees[0] == trees[1] == trees[2]


@pytest.mark.parametrize("stem", [d[0] for d in weka_cv.DATASETS])
def test_c45_fits_and_predicts_on_weka_data(stem):
    data = weka_cv.load(stem)
    tree = c45(data)
    labels = predict(tree, data)
    assert set(labels.tolist()) <= set(tree.schema.classes)
    proba = predict_proba(tree, data)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # Training accuracy of an unpruned tree is high; far above the majority class.
    majority = np.bincount(data.y).max() / data.n_rows
    assert np.mean(labels == data.labels()) > majority
    assert from_json(to_json(tree)).missing == "distribute"


def test_cart_with_majority_fits_weka_data_with_missing_values():
    data = weka_cv.load("soybean")
    tree = cart(data)
    assert np.mean(predict(tree, data) == data.labels()) > 0.9


cells = st.one_of(st.none(), st.sampled_from(["a", "b", "c"]))


@given(
    st.lists(st.tuples(cells, st.one_of(st.none(), st.integers(0, 4)), st.booleans()), min_size=2, max_size=25),
    st.sampled_from(["majority", "distribute"]),
)
def test_any_data_with_missing_values_grows_a_tree_that_conserves_weight(rows, missing):
    data = [{"c": c, "n": None if n is None else float(n)} for c, n, _ in rows]
    y = [label for _, _, label in rows]
    if all(r["n"] is None for r in data):
        data[0]["n"] = 0.0  # a column missing everywhere has no kind
    tree = grow(data, y, missing=missing)
    for node in iter_nodes(tree.root):
        kids = children(node)
        if kids:
            assert sum(sum(k.counts) for k in kids) == pytest.approx(sum(node.counts), rel=1e-9)
        if isinstance(node, Leaf):
            assert all(c >= 0 for c in node.counts)
    assert sum(tree.root.counts) == pytest.approx(len(rows))
    proba = predict_proba(tree, data)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


def test_regression_with_missing_distributes_target_statistics():
    tree = grow([[1.0], [2.0], [3.0], [np.nan]], [10.0, 12.0, 30.0, 31.0], task="regression", max_depth=1, missing="distribute")
    left, right = children(tree.root)
    assert left.counts[0] == pytest.approx(2 + 2 / 3)
    assert left.counts[1] / left.counts[0] == pytest.approx((10 + 12 + 31 * 2 / 3) / (2 + 2 / 3))
    # At prediction a missing value combines the leaves' means with the same shares.
    assert predict(tree, {"x0": None}) == pytest.approx(2 / 3 * left.counts[1] / left.counts[0] + 1 / 3 * right.counts[1] / right.counts[0])


def test_from_rows_none_and_question_mark_are_missing():
    ds = from_rows([{"a": "?"}, {"a": None}, {"a": "x"}], ["p", "q", "p"])
    assert np.isnan(ds.X[:2, 0]).all()
