"""Growing: presets, the three algorithms' split rules, stopping rules, ties, inputs, invariants."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from puretree.criteria import impurity_decrease
from puretree.datasets import load_buys_computer, load_playtennis
from puretree.errors import DataError, ParameterError
from puretree.fold import depth, iter_nodes, iter_paths
from puretree.c45 import c45_splits, collapse_unhelpful
from puretree.grow import c45, cart, grow, id3, multiway_splits, subset_splits, threshold_splits
from puretree.impurity import gini
from puretree.io import to_dict
from puretree.flat import flatten
from puretree.nodes import CategoricalSplit, Leaf, NumericSplit, SubsetSplit
from puretree.tree import Tree

# The plain gain-ratio builder (what c45 was before it gained C4.5's guards): fully grown,
# for the properties every fully grown tree has. c45 itself has its own tests below.
gain_ratio_tree = functools.partial(grow, score="gain_ratio", missing="distribute")
LEARNERS = [id3, gain_ratio_tree, cart]


def _leaves(tree):
    return [n for n in iter_nodes(tree) if isinstance(n, Leaf)]


# -- presets --------------------------------------------------------------------------------


def test_presets_are_partials_of_grow():
    data = load_buys_computer()
    for preset, score, splitters in (
        (id3, "information_gain", (threshold_splits, multiway_splits)),
        (cart, "gini", (threshold_splits, subset_splits)),
    ):
        assert isinstance(preset, functools.partial)
        assert preset.func is grow
        assert preset(data).root == grow(data, score=score, splitters=splitters).root
    # c45 is grow with C4.5's split generator and J48's defaults, then J48's collapse.
    expected = collapse_unhelpful(grow(data, score="gain_ratio", splitters=(c45_splits,), min_samples_leaf=2, missing="distribute"))
    assert c45(data) == expected


def test_preset_options_can_be_overridden():
    data = load_playtennis()
    assert isinstance(id3(data, max_depth=0).root, Leaf)
    assert cart(data, score="entropy") == grow(data, score="entropy", splitters=(threshold_splits, subset_splits))


# -- the three algorithms -------------------------------------------------------------------


def test_id3_does_not_reuse_a_categorical_attribute_below():
    for data in (load_playtennis(), load_buys_computer()):
        tree = id3(data)
        for path, _leaf in iter_paths(tree):
            used = [node.feature for node, _ in path]
            assert len(used) == len(set(used))
            assert all(isinstance(node, CategoricalSplit) for node, _ in path)


def test_categorical_split_has_one_child_per_category():
    data = load_buys_computer()
    for node in iter_nodes(c45(data)):
        if isinstance(node, CategoricalSplit):
            assert len(node.children) == len(data.schema.features[node.feature].categories)


def test_empty_branch_is_a_zero_leaf_that_predicts_the_parents_majority():
    rows = [{"g": "x", "f": "a"}, {"g": "x", "f": "a"}, {"g": "x", "f": "b"}, {"g": "y", "f": "c"}, {"g": "y", "f": "a"}]
    tree = id3(rows, ["p", "p", "q", "q", "q"])
    # g and f tie at the root (gain 0.420 each): the lowest feature index, g, wins.
    assert tree.schema.features[tree.root.feature].name == "g"
    below_x = tree.root.children[0]
    assert isinstance(below_x, CategoricalSplit) and below_x.counts == (2, 1)
    assert below_x.children == (Leaf((2, 0)), Leaf((0, 1)), Leaf((0, 0)))  # f = c never occurs with g = x
    assert tree.predict({"g": "x", "f": "c"}) == "p"  # the parent's majority
    assert tree.predict_proba({"g": "x", "f": "c"}).tolist() == pytest.approx([2 / 3, 1 / 3])
    assert tree.to_text().splitlines()[3] == "|   f = c: p (0)"


def test_c45_thresholds_are_midpoints_between_consecutive_distinct_values():
    rng = np.random.default_rng(0)
    X = rng.integers(0, 20, size=(60, 2)).astype(float)
    y = (X[:, 0] + X[:, 1] + rng.integers(0, 8, size=60) > 22).astype(int)  # a signal C4.5 splits on
    tree = c45(X, y, min_samples_leaf=1)
    flat = flatten(tree)
    reaching = {}
    for r, path in enumerate(tree.decision_path(X)):
        for node_id in path:
            reaching.setdefault(node_id, []).append(r)
    checked = 0
    for node_id, rows in reaching.items():
        node = flat.nodes[node_id]
        if isinstance(node, NumericSplit):
            x = X[rows, node.feature]
            assert node.threshold == (x[x <= node.threshold].max() + x[x > node.threshold].min()) / 2
            checked += 1
    assert checked > 3


def test_cart_splits_are_binary():
    for node in iter_nodes(cart(load_buys_computer())):
        assert not isinstance(node, CategoricalSplit)


def _best_subset_brute_force(codes, y, m):
    parent = np.bincount(y, minlength=2).astype(float)
    score = impurity_decrease(gini)
    best = -np.inf
    for r in range(1, m):
        for left in itertools.combinations(range(m), r):
            mask = np.isin(codes, left)
            children = np.array([np.bincount(y[mask], minlength=2), np.bincount(y[~mask], minlength=2)], dtype=float)
            if children.sum(axis=1).min() > 0:
                best = max(best, float(score(parent, children)))
    return best


@pytest.mark.parametrize("seed", range(8))
def test_cart_two_class_subset_is_optimal(seed):
    rng = np.random.default_rng(seed)
    m = 6
    codes = rng.integers(0, m, size=40)
    codes[:m] = np.arange(m)
    y = rng.integers(0, 2, size=40)
    X = np.array([[f"v{c}"] for c in codes], dtype=object)
    tree = cart(X, y, max_depth=1)
    assert isinstance(tree.root, SubsetSplit)
    left = np.isin(codes, [int(tree.schema.features[0].categories[c][1:]) for c in tree.root.left_categories])
    children = np.array([np.bincount(y[left], minlength=2), np.bincount(y[~left], minlength=2)], dtype=float)
    found = float(impurity_decrease(gini)(np.bincount(y, minlength=2).astype(float), children))
    assert found == pytest.approx(_best_subset_brute_force(codes, y, m), abs=1e-12)


def test_cart_more_classes_enumerates_subsets():
    # Three classes, four categories: {a, b} | {c, d} separates perfectly; no ordering by one
    # class's proportion need find it, exhaustive enumeration does.
    X = np.array([[v] for v in "aabbccdd"], dtype=object)
    y = [0, 0, 1, 1, 2, 2, 2, 2]
    tree = cart(X, y, max_depth=1)
    cats = tree.schema.features[0].categories
    assert {cats[c] for c in tree.root.left_categories} in ({"a", "b"}, {"c", "d"})


# -- stopping rules ------------------------------------------------------------------------


def test_pure_node_is_a_leaf():
    tree = cart(np.array([[1.0], [2.0]]), ["a", "a"])
    assert tree.root == Leaf((2,))


def test_no_attribute_left_gives_the_majority():
    # Inconsistent rows on one categorical attribute: after splitting on it, nothing is left.
    rows = [{"f": "a"}, {"f": "a"}, {"f": "a"}, {"f": "b"}]
    tree = id3(rows, ["p", "q", "q", "p"])
    assert tree.root.children[0] == Leaf((1, 2))
    assert tree.predict({"f": "a"}) == "q"


def test_identical_rows_get_their_majority():
    X = np.array([[1.0, 2.0]] * 5 + [[3.0, 2.0]])
    tree = cart(X, ["b", "a", "b", "a", "b", "a"])
    assert tree.root.left == Leaf((2, 3))
    assert tree.predict({"x0": 1.0, "x1": 2.0}) == "b"


def test_majority_tie_goes_to_the_first_class():
    tree = cart(np.array([[1.0], [1.0]]), ["z", "y"])
    assert tree.root == Leaf((1, 1))
    assert tree.predict({"x0": 1.0}) == "y"


def test_min_gain():
    data = load_playtennis()
    assert isinstance(id3(data, min_gain=0.25).root, Leaf)  # best gain 0.2467 is not above 0.25
    assert isinstance(id3(data, min_gain=0.24).root, CategoricalSplit)
    # Exactly equal is not above: a zero-gain split is refused with min_gain=0.
    X = np.array([[0.0], [0.0], [1.0], [1.0]])
    assert isinstance(id3(X, ["a", "b", "a", "b"], min_gain=0).root, Leaf)
    # Without min_gain a zero-gain split is still a candidate (as in scikit-learn).
    assert isinstance(id3(X, ["a", "b", "a", "b"]).root, NumericSplit)


def test_max_depth_and_min_samples():
    rng = np.random.default_rng(1)
    X, y = rng.normal(size=(200, 3)), rng.integers(0, 3, size=200)
    for learner in LEARNERS:
        assert depth(learner(X, y, max_depth=3)) == 3
        assert isinstance(learner(X, y, max_depth=0).root, Leaf)
        leaves = _leaves(learner(X, y, min_samples_leaf=7))
        assert min(sum(leaf.counts) for leaf in leaves) >= 7
        for node in iter_nodes(learner(X, y, min_samples_split=30)):
            if not isinstance(node, Leaf):
                assert sum(node.counts) >= 30


def test_accept_can_veto_a_split():
    data = load_playtennis()
    seen = []

    def only_binary(parent, children):
        seen.append((np.asarray(parent).tolist(), np.asarray(children).shape))
        return len(children) == 2

    tree = id3(data, accept=only_binary)
    assert isinstance(tree.root, Leaf)  # the best split (outlook, three ways) is vetoed
    assert seen == [([5.0, 9.0], (3, 2))]


def test_bad_options_raise_parameter_errors():
    X, y = np.array([[1.0], [2.0]]), [0, 1]
    for options, named in [
        ({"max_depth": -1}, "max_depth"),
        ({"max_depth": 2.5}, "max_depth"),
        ({"min_samples_leaf": -1}, "min_samples_leaf"),
        ({"min_samples_split": float("inf")}, "min_samples_split"),
        ({"min_gain": float("nan")}, "min_gain"),
        ({"score": "ginni"}, "ginni"),
        ({"missing": "drop"}, "drop"),
    ]:
        with pytest.raises(ParameterError, match=named):
            grow(X, y, **options)


def test_bad_data_raise_data_errors():
    with pytest.raises(DataError, match="no target"):
        grow(np.array([[1.0]]))
    with pytest.raises(DataError, match="3 values"):
        cart(np.array([[1.0], [2.0]]), [0, 1, 1])
    with pytest.raises(DataError, match="row 1, column 'x0'"):
        cart(np.array([[1.0], [np.inf]]), [0, 1])
    with pytest.raises(DataError, match="row 1"):
        cart(np.array([[1.0], [2.0]]), ["a", None])
    with pytest.raises(DataError, match="row 1: sample weight -1.0"):
        cart(np.array([[1.0], [2.0]]), [0, 1], sample_weight=[1, -1])


# -- ties -----------------------------------------------------------------------------------


def test_tied_features_go_to_the_lowest_index_and_lowest_threshold():
    X = np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0], [4.0, 4.0]])
    tree = cart(X, ["a", "b", "b", "a"])
    assert tree.root.feature == 0
    # x <= 1.5 and x <= 3.5 tie (each isolates one "a"): the lower threshold wins.
    assert tree.root.threshold == 1.5


# -- inputs ---------------------------------------------------------------------------------


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64, np.float32, np.float64])
def test_numeric_arrays_of_any_dtype_give_the_same_tree(dtype):
    rng = np.random.default_rng(2)
    X = rng.integers(0, 50, size=(80, 3))
    y = (X[:, 0] + X[:, 2] > 50).astype(int)
    reference = to_dict(cart(X.astype(np.float64), y))
    tree = cart(X.astype(dtype), y)
    assert to_dict(tree) == reference
    assert (tree.predict(X.astype(dtype)) == y).all()


def test_float32_thresholds_separate_float32_values():
    X = np.array([[0.1], [0.2], [0.3]], dtype=np.float32)
    tree = cart(X, [0, 1, 1])
    assert float(X[0, 0]) <= tree.root.threshold < float(X[1, 0])
    assert tree.predict(X).tolist() == [0, 1, 1]


def test_pandas_mixed_columns():
    df = pd.DataFrame(
        {
            "n": [1, 2, 3, 4, 5, 6],
            "c": pd.Categorical(["a", "b", "a", "c", "b", "c"]),
            "s": ["u", "u", "v", "v", "u", "v"],
            "f": np.array([0.5, 0.1, 0.2, 0.3, 0.9, 0.4], dtype=np.float32),
        }
    )
    y = pd.Series(["p", "q", "p", "q", "q", "p"], name="label")
    for learner in LEARNERS:
        tree = learner(df, y)
        kinds = {f.name: f.kind for f in tree.schema.features}
        assert kinds == {"n": "numeric", "c": "categorical", "s": "categorical", "f": "numeric"}
        assert tree.schema.target == "label"
        assert tree.predict(df).tolist() == y.tolist()
        # Columns are matched by name, in any order; the target column may be present.
        assert tree.predict(df.assign(label=y)[["label", "f", "s", "c", "n"]]).tolist() == y.tolist()
    tree = cart(df.assign(label=y), target="label")
    assert tree.predict(df).tolist() == y.tolist()


def test_sequence_of_mappings():
    rows = [{"t": 20, "sky": "sun"}, {"t": 25, "sky": "rain"}, {"t": 30, "sky": "sun"}, {"t": 15, "sky": "rain"}]
    tree = c45(rows, ["yes", "no", "yes", "no"])
    assert [f.kind for f in tree.schema.features] == ["numeric", "categorical"]
    assert tree.predict(rows).tolist() == ["yes", "no", "yes", "no"]


@pytest.mark.parametrize("labels", [["lo", "hi", "lo", "hi"], [10, -3, 10, -3], [True, False, True, False], [1.5, 2.5, 1.5, 2.5]])
@pytest.mark.parametrize("learner", LEARNERS)
def test_labels_come_back_exactly_as_given(labels, learner):
    X = np.array([[0.0], [1.0], [2.0], [3.0]])
    tree = learner(X, labels)
    for row, label in zip(X, labels):
        got = tree.predict({"x0": row[0]})
        assert type(got) is type(label) and got == label
    batch = tree.predict(X)
    assert batch.tolist() == labels
    assert [type(v) for v in batch.tolist()] == [type(v) for v in labels]
    assert set(tree.schema.classes) == set(labels)


def test_numpy_labels_come_back_as_python_scalars():
    y = np.array([3, 7, 3, 7], dtype=np.int32)
    tree = cart(np.array([[0.0], [1.0], [2.0], [3.0]]), y)
    assert tree.schema.classes == (3, 7) and all(type(c) is int for c in tree.schema.classes)
    assert tree.predict(np.array([[0.0], [1.0]])).tolist() == [3, 7]


# -- invariants (Hypothesis) ----------------------------------------------------------------


@st.composite
def consistent_data(draw):
    """Rows of numeric (small ints, so duplicates occur) and categorical columns, labelled
    by a random function of the whole row: consistent by construction."""
    n_num = draw(st.integers(0, 2))
    n_cat = draw(st.integers(0 if n_num else 1, 2))
    n = draw(st.integers(1, 25))
    num = [draw(st.lists(st.integers(-3, 3), min_size=n, max_size=n)) for _ in range(n_num)]
    cat = [draw(st.lists(st.sampled_from("abcd"), min_size=n, max_size=n)) for _ in range(n_cat)]
    kind = draw(st.sampled_from(["str", "int", "bool"]))
    pool = {"str": ["no", "yes", "maybe"], "int": [0, 7, -2], "bool": [False, True]}[kind]
    keys = [tuple(c[i] for c in num + cat) for i in range(n)]
    label_of = {k: draw(st.sampled_from(pool)) for k in dict.fromkeys(keys)}
    rows = [{**{f"n{j}": num[j][i] for j in range(n_num)}, **{f"c{j}": cat[j][i] for j in range(n_cat)}} for i in range(n)]
    return rows, [label_of[k] for k in keys]


@pytest.mark.parametrize("learner", LEARNERS)
@given(data=consistent_data())
def test_fully_grown_tree_fits_consistent_data_exactly(learner, data):
    rows, y = data
    tree = learner(rows, y)
    assert tree.predict(rows).tolist() == y
    assert [tree.predict(r) for r in rows] == y


@st.composite
def any_data(draw):
    n = draw(st.integers(2, 30))
    X = np.array(draw(st.lists(st.lists(st.integers(0, 4), min_size=2, max_size=2), min_size=n, max_size=n)), dtype=float)
    y = draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=n, max_size=n))
    perm = draw(st.permutations(range(n)))
    return X, y, np.array(perm)


@pytest.mark.parametrize("learner", LEARNERS)
@given(data=any_data())
def test_predictions_do_not_depend_on_row_order(learner, data):
    X, y, perm = data
    categorical_X = np.array([[f"v{int(v)}" for v in row] for row in X], dtype=object)
    for features in (X, categorical_X):
        tree = learner(features, y)
        shuffled = learner(features[perm], [y[i] for i in perm])
        assert shuffled.predict(features).tolist() == tree.predict(features).tolist()
        assert np.array_equal(shuffled.predict_proba(features), tree.predict_proba(features))


@given(data=any_data(), weights=st.lists(st.floats(0.5, 3.0), min_size=30, max_size=30))
def test_no_input_is_mutated(data, weights):
    X, y, _ = data
    y_arr = np.array(y)
    w = np.array(weights[: len(y)])
    df = pd.DataFrame({"a": X[:, 0], "b": [f"v{int(v)}" for v in X[:, 1]]})
    copies = (X.copy(), y_arr.copy(), w.copy(), df.copy(deep=True))
    for learner in LEARNERS:
        tree = learner(X, y_arr, sample_weight=w)
        tree.predict(X)
        tree.predict_proba(X)
        tree = learner(df, y_arr, sample_weight=w)
        tree.predict(df)
        tree.apply(df)
    assert np.array_equal(X, copies[0]) and np.array_equal(y_arr, copies[1]) and np.array_equal(w, copies[2])
    pd.testing.assert_frame_equal(df, copies[3])


def test_trees_are_values():
    data = load_playtennis()
    assert id3(data) == id3(data)
    assert hash(id3(data)) == hash(id3(data))
    assert isinstance(id3(data), Tree)
