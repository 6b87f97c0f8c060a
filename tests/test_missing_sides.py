"""A learned missing-value side per split (``Threshold.missing_branch``, issue 25): the node
value, prediction, JSON (version 4, still reading version 3), text, generated code and the
scikit-learn bridge."""

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import puretree as pt
from puretree.codegen import generate, verify
from puretree.errors import CodegenError, ModelFormatError, ParameterError
from puretree.io import from_json, to_dict, to_json
from puretree.nodes import MISSING, Feature, Leaf, Schema, Split, Threshold
from puretree.strategies import trees
from puretree.tree import Tree

SCHEMA = Schema((Feature("x"), Feature("y")), ("a", "b"))
# x <= 1.5 (or missing) -> a ; else: y known -> split on x <= 3 (missing goes left) ; y missing -> a
ROOT = Split(0, Threshold(1.5, missing_branch=0), (
    Leaf((3, 1)),
    Split(1, Threshold(math.inf, missing_branch=1), (
        Split(0, Threshold(3.0), (Leaf((0, 2)), Leaf((4, 1))), (4, 3)),
        Leaf((5, 0)),
    ), (9, 3)),
), (12, 4))
ROWS = np.array([[1.0, 0.0], [np.nan, 0.0], [2.0, 0.0], [4.0, 0.0], [2.0, np.nan], [np.nan, np.nan]])


def reference_end(node, row):
    """The node a row ends at, walked one split at a time with the tests' own answers."""
    while isinstance(node, Split):
        b = int(node.test.branch_of(np.array([row[node.feature]]), SCHEMA.features[node.feature])[0])
        if b == MISSING:  # no side: "majority"
            b = int(np.argmax([sum(k.stats) for k in node.children]))
        node = node.children[b]
    return node


def test_the_side_is_part_of_the_test_value():
    side = Threshold(1.5, missing_branch=1)
    assert side != Threshold(1.5) and hash(side) != hash(Threshold(1.5)) and side == Threshold(1.5, 1)
    assert repr(Threshold(1.5)) == "Threshold(value=1.5)" and repr(side) == "Threshold(value=1.5, missing_branch=1)"
    assert side.branch_of(np.array([np.nan, 1.0, 2.0]), Feature("x")).tolist() == [1, 0, 1]
    assert Threshold(1.5).branch_of(np.array([np.nan]), Feature("x")).tolist() == [MISSING]
    assert side.at_data(np.array([1.0, 2.0])) == Threshold(1.0, missing_branch=1)


@pytest.mark.parametrize("make", [
    lambda: Threshold(1.0, missing_branch=2),
    lambda: Threshold(1.0, missing_branch=True),
    lambda: Threshold(math.inf),
    lambda: Threshold(math.inf, missing_branch=0),
    lambda: Threshold(-math.inf, missing_branch=1),
])
def test_a_bad_side_is_refused(make):
    with pytest.raises(ParameterError):
        make()


@pytest.mark.parametrize("missing", ["majority", "distribute", "error"])
def test_a_split_with_a_side_sends_missing_values_there_whatever_the_strategy(missing):
    tree = Tree(ROOT, SCHEMA, missing)
    # Every missing value here meets a split with a side, except x at the x <= 3 split, which
    # no row with a missing x reaches (the root sends it left).
    ends = pt.apply(tree, ROWS)
    assert ends.tolist() == [1, 1, 4, 5, 6, 1]
    assert pt.predict(tree, ROWS).tolist() == ["a", "a", "b", "a", "a", "a"]
    assert pt.decision_path(tree, ROWS)[4] == (0, 2, 6)
    assert pt.predict_proba(tree, ROWS)[4].tolist() == [1.0, 0.0]


def test_a_split_without_a_side_follows_the_strategy():
    root = Split(0, Threshold(1.5), (Leaf((3, 1)), Leaf((1, 5))), (4, 6))
    row = np.array([[np.nan]])
    schema = Schema((Feature("x"),), ("a", "b"))
    assert pt.predict(Tree(root, schema, "majority"), row).tolist() == ["b"]
    with pytest.raises(pt.errors.DataError, match="missing value"):
        pt.predict(Tree(root, schema, "error"), row)
    sided = Tree(Split(0, Threshold(1.5, missing_branch=0), root.children, root.stats), schema, "error")
    assert pt.predict(sided, row).tolist() == ["a"]


def test_text_says_where_missing_values_go():
    text = Tree(ROOT, SCHEMA).to_text()
    assert "x <= 1.5 or missing" in text and "y is known" in text and "y is missing" in text


# -- JSON ------------------------------------------------------------------------------------

# A version 3 file as puretree wrote it before version 4 (no sides).
VERSION_3 = """{"format": "puretree-tree", "version": 3, "threshold_convention": "x <= threshold goes to children[0]",
 "missing": "majority", "criterion": "gini",
 "schema": {"target": "target", "task": "classification", "classes": ["a", "b"], "features": [{"name": "x", "kind": "numeric"}]},
 "nodes": [{"kind": "threshold", "feature": 0, "threshold": 1.5, "children": [1, 2], "stats": [3, 2]},
           {"kind": "leaf", "stats": [3, 0]}, {"kind": "leaf", "stats": [0, 2]}]}"""


def test_a_version_3_file_still_loads_and_is_written_back_as_it_was():
    tree = from_json(VERSION_3)
    assert tree.root.test == Threshold(1.5) and tree.root.test.missing_branch is None
    assert to_dict(tree) == {**json.loads(VERSION_3), "nodes": [
        {"kind": "threshold", "feature": 0, "threshold": 1.5, "children": [1, 2], "stats": [3.0, 2.0]},
        {"kind": "leaf", "stats": [3.0, 0.0]}, {"kind": "leaf", "stats": [0.0, 2.0]}]}


def test_sides_make_a_version_4_file_that_round_trips():
    tree = Tree(ROOT, SCHEMA)
    d = to_dict(tree)
    assert d["version"] == 4
    assert d["nodes"][0] == {"kind": "threshold", "feature": 0, "threshold": 1.5, "missing_branch": 0, "children": [1, 2], "stats": [12.0, 4.0]}
    assert d["nodes"][2]["threshold"] == "inf" and d["nodes"][2]["missing_branch"] == 1
    assert "missing_branch" not in d["nodes"][3]
    back = from_json(to_json(tree))
    assert back == tree and pt.predict(back, ROWS).tolist() == pt.predict(tree, ROWS).tolist()


@pytest.mark.parametrize("change, message", [
    (lambda d: d["nodes"][0].update(missing_branch=2), "missing_branch must be 0"),
    (lambda d: d["nodes"][0].update(missing_branch=True), "missing_branch must be 0"),
    (lambda d: d["nodes"][2].update(missing_branch=0), "threshold 'inf' .* needs missing_branch 1"),
    (lambda d: d.update(version=3), "missing_branch is a field of version 4 models"),
])
def test_a_bad_side_in_a_file_is_refused_by_name(change, message):
    d = to_dict(Tree(ROOT, SCHEMA))
    change(d)
    with pytest.raises(ModelFormatError, match=message):
        from_json(json.dumps(d))


def test_an_ensemble_of_trees_with_and_without_sides_round_trips():
    plain = Tree(Split(0, Threshold(1.0), (Leaf((1, 0)), Leaf((0, 1))), (1, 1)), SCHEMA)
    ens = pt.ensemble.Ensemble((plain, Tree(ROOT, SCHEMA)), (1.0, 1.0), SCHEMA, "bagging", 0, {}, None)
    back = from_json(to_json(ens))
    assert back.members == ens.members


# -- generated code --------------------------------------------------------------------------


@pytest.mark.parametrize("target, options", [
    ("python", {}), ("python", {"form": "table"}), ("c", {}), ("c", {"form": "table"}), ("c", {"form": "compact"}),
    ("c-table", {}), ("c", {"feature_type": "float"}), ("c", {"feature_type": "int16"}),
])
def test_generated_code_takes_each_side(target, options):
    report = verify(Tree(ROOT, SCHEMA), ROWS, target, **options)
    assert report.ok and report.n_checked >= len(ROWS) and not report.unreached


def test_generated_code_takes_sides_in_a_quantized_tree():
    report = verify(Tree(ROOT, SCHEMA), ROWS, "c", feature_type="int16", quantize=[(0.0, 5.0), (0.0, 1.0)], max_changed="100%")
    assert report.n_mismatches == 0 and report.n_quantize_mismatches == 0 and report.n_quantized > 0


@pytest.mark.parametrize("missing", ["distribute", "error"])
def test_generated_code_refuses_sides_under_another_strategy(missing):
    with pytest.raises(CodegenError, match="learned where missing values go"):
        generate(Tree(ROOT, SCHEMA, missing), "python")


# -- Hypothesis: drawn trees carry sides --------------------------------------------------------


@settings(max_examples=60)
@given(trees(missing=("majority",), min_depth=1, max_depth=4, splits=("threshold",)), st.data())
def test_drawn_trees_answer_rows_with_missing_values_by_their_sides(tree, data):
    n = tree.schema.n_features
    cells = st.one_of(st.just(math.nan), st.floats(-1e6, 1e6))
    rows = np.array(data.draw(st.lists(st.lists(cells, min_size=n, max_size=n), min_size=1, max_size=8)), dtype=np.float64)
    schema = tree.schema
    ends = pt.apply(tree, rows)
    flat = pt.flat.flatten(tree)
    for row, end in zip(rows, ends.tolist()):
        node = tree.root
        while isinstance(node, Split):
            b = int(node.test.branch_of(np.array([row[node.feature]]), schema.features[node.feature])[0])
            if b == MISSING:
                b = int(np.argmax([sum(k.stats) for k in node.children]))
            node = node.children[b]
        assert flat.nodes[end] == node
    assert from_json(to_json(tree)) == tree


def test_the_strategies_draw_sides():
    from hypothesis import find

    tree = find(trees(missing=("majority",), splits=("threshold",), min_depth=1), lambda t: t.root.test.missing_branch == 1)
    assert tree.root.test.missing_branch == 1
    # ... and the split that sends the missing values alone right, whose right child no known
    # value reaches (an empty leaf, as the strategies make a branch the path excludes).
    alone = find(trees(missing=("majority",), splits=("threshold",), min_depth=1), lambda t: t.root.test.value == math.inf)
    assert alone.root.test.missing_branch == 1 and sum(alone.root.children[1].stats) == 0
    assert from_json(to_json(alone)) == alone and verify(alone, np.array([[np.nan] * alone.schema.n_features]), "c").ok


# -- scikit-learn --------------------------------------------------------------------------------


def _with_nan(X, seed=0):
    X = np.array(X, dtype=np.float64)
    X[np.random.default_rng(seed).random(X.shape) < 0.1] = np.nan
    return X


@pytest.mark.parametrize("which", ["classifier", "regressor"])
def test_from_sklearn_keeps_each_split_s_side(which):
    from sklearn.datasets import load_breast_cancer, load_diabetes
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

    from puretree.sklearn import from_sklearn, to_sklearn

    load, Est = (load_breast_cancer, DecisionTreeClassifier) if which == "classifier" else (load_diabetes, DecisionTreeRegressor)
    X, y = load(return_X_y=True)
    X = _with_nan(X)
    est = Est(random_state=0).fit(X, y)
    tree = from_sklearn(est)
    with_nan = np.isnan(X).any(axis=1)
    assert with_nan.sum() > 100
    assert (pt.predict(tree, X[with_nan]) == est.predict(X[with_nan])).all()
    sides = [n.test.missing_branch for n in pt.fold.iter_nodes(tree) if isinstance(n, Split)]
    assert sides and None not in sides and set(sides) == {0, 1}
    if which == "regressor":  # diabetes' tree holds splits that send the missing values alone right
        assert any(n.test.value == math.inf for n in pt.fold.iter_nodes(tree) if isinstance(n, Split))
    assert (to_sklearn(tree).predict(X) == est.predict(X)).all()
    for target in ("python", "c"):
        assert verify(tree, X, target).ok
