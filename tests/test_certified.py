"""The certified rewrites (puretree/codegen/certified.py): each keeps every answer it claims to
keep, on random trees with unreachable branches (Hypothesis), on exact small examples, and in
generated C checked by verify against the original model."""

from __future__ import annotations

import importlib
import shutil
import subprocess
import sys

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puretree.codegen import generate, verify
from puretree.codegen.certified import certified, merge_same_class, remove_unreachable, snap_thresholds
from puretree.codegen.verify import check_rows, expected
from puretree.errors import CodegenError, ParameterError
from puretree.flat import flatten
from puretree.fold import n_nodes, rewrite
from puretree.io.json import save
from puretree.nodes import CATEGORICAL, Feature, Leaf, Schema, Split, Subset, Multiway, Surrogate, Surrogates, Threshold
from puretree.predict import apply
from puretree.strategies import trees
from puretree.tree import Tree
from puretree.data import Dataset

lowering = importlib.import_module("puretree.codegen.lower")
GCC = shutil.which("gcc") is not None

#: Thresholds drawn from a few values, so that a path often repeats or contradicts a test.
PALETTE = (-1.0, 0.0, 0.5, 1.0, 2.0, 2.5)


@st.composite
def edited_trees(draw, min_codes=0, **options):
    """A tree of :func:`puretree.strategies.trees` whose tests are then redrawn without regard
    for the path (thresholds from :data:`PALETTE`, subsets of all categories): as edited,
    imported or raised trees are, with branches their ancestors make unreachable. ``min_codes``:
    the fewest codes a subset sends left."""
    tree = draw(trees(max_depth=4, max_nodes=25, **options))
    features = tree.schema.features

    def rule(node):
        if type(node) is not Split:
            return None
        kind = node.test.kind
        if kind == "threshold" and node.test.value != float("inf"):
            test = attrs.evolve(node.test, value=draw(st.sampled_from(PALETTE)))
        elif kind == "subset":
            m = len(features[node.feature].categories)
            test = Subset(draw(st.lists(st.integers(0, m - 1), min_size=min_codes, max_size=m)))
        else:
            return None
        return Split(node.feature, test, node.children, node.stats, surrogates=node.surrogates)

    return rewrite(tree, rule)


def _rows(tree, draw_rows):
    """verify's rows for ``tree`` (every node, every threshold and its neighbours, missing and
    unseen values) and random rows from the palette, with missing cells and unseen codes."""
    n = tree.schema.n_features
    values = np.array(PALETTE + (np.nan, 3.0, -1.0, 7.0))
    X = values[np.asarray(draw_rows, dtype=np.int64).reshape(-1, n) % len(values)] if n else np.zeros((1, 0))
    return np.vstack([check_rows(tree, X), X]) if n else X


def _answers(tree, rows):
    return expected(tree, rows)


def _classes(answers):
    return [None if a is None else int(np.argmax(a)) for a in answers]


row_indices = st.lists(st.integers(0, 9), min_size=12, max_size=48)


@settings(max_examples=100)
@given(edited_trees(), row_indices)
def test_removing_unreachable_branches_keeps_every_answer(tree, cells):
    rows = _rows(tree, cells[: len(cells) // max(1, tree.schema.n_features) * tree.schema.n_features])
    out = remove_unreachable(tree)
    assert _answers(out, rows) == _answers(tree, rows)
    assert n_nodes(out) <= n_nodes(tree)


@settings(max_examples=100)
@given(edited_trees(), row_indices)
def test_a_row_ends_where_it_ended_a_reachable_leaf_untouched(tree, cells):
    rows = _rows(tree, cells[: len(cells) // max(1, tree.schema.n_features) * tree.schema.n_features])
    out = remove_unreachable(tree)
    rows = rows[[a is not None for a in _answers(tree, rows)]]  # a refused row ("error") ends nowhere
    old_nodes, new_nodes = flatten(tree).nodes, flatten(out).nodes
    ends = zip(apply(tree, Dataset(tree.schema, rows), unseen="ignore").tolist(), apply(out, Dataset(tree.schema, rows), unseen="ignore").tolist())
    for a, b in ends:
        was, now = old_nodes[a], new_nodes[b]
        assert now.stats == was.stats
        if type(was) is Leaf:
            assert now == was


@settings(max_examples=100)
@given(edited_trees(), row_indices)
def test_merging_one_class_subtrees_keeps_every_class(tree, cells):
    rows = _rows(tree, cells[: len(cells) // max(1, tree.schema.n_features) * tree.schema.n_features])
    out = merge_same_class(tree)
    assert _classes(_answers(out, rows)) == _classes(_answers(tree, rows))
    both = merge_same_class(remove_unreachable(tree))
    assert _classes(_answers(both, rows)) == _classes(_answers(tree, rows))


@settings(max_examples=100)
@given(edited_trees(), row_indices, st.sampled_from(["int8", "int16", "float"]))
def test_on_the_grid_of_a_feature_type_every_reading_keeps_its_answer(tree, cells, ftype):
    rows = check_rows(tree, _rows(tree, cells[: len(cells) // max(1, tree.schema.n_features) * tree.schema.n_features]), ftype)
    snapped = snap_thresholds(tree, ftype)
    assert _answers(snapped, rows) == _answers(tree, rows)
    out = certified(tree, feature_type=ftype)
    assert _answers(out, rows) == _answers(tree, rows)
    merged = certified(tree, feature_type=ftype, proba=False)
    assert _classes(_answers(merged, rows)) == _classes(_answers(tree, rows))


@settings(max_examples=100)
@given(edited_trees())
def test_the_rewrites_are_idempotent(tree):
    once = remove_unreachable(tree)
    assert remove_unreachable(once) == once
    merged = merge_same_class(once)
    assert merge_same_class(merged) == merged
    for ftype in ("int8", "float"):
        snapped = snap_thresholds(tree, ftype)
        assert snap_thresholds(snapped, ftype) == snapped


@settings(max_examples=60)
@given(trees(max_depth=4, max_nodes=25))
def test_a_tree_whose_every_leaf_is_reachable_loses_nothing(tree):
    # The strategy's trees place each test strictly inside what its path allows.
    assert n_nodes(remove_unreachable(tree)) == n_nodes(tree)


def _as_regression(tree):
    """The same tree as a regression tree: each node's counts become (weight, sum, sum of
    squares) statistics (a zero weight stays zero: an empty leaf inherits its parent's mean)."""
    def stats(c):
        w = float(sum(c))
        return (w, w * (c[0] - c[-1] + 0.5), w * (1.0 + c[0] ** 2))

    def rule(node):
        if type(node) is Leaf:
            return Leaf(stats(node.stats))
        return Split(node.feature, node.test, node.children, stats(node.stats), surrogates=node.surrogates)

    out = rewrite(tree.root, rule)
    return Tree(out, Schema(tree.schema.features, (), task="regression"), missing=tree.missing)


@settings(max_examples=80)
@given(edited_trees(), row_indices)
def test_a_regression_tree_keeps_every_value(tree, cells):
    tree = _as_regression(tree)
    rows = _rows(tree, cells[: len(cells) // max(1, tree.schema.n_features) * tree.schema.n_features])
    for ftype in ("double", "int16"):
        typed = check_rows(tree, rows, ftype)
        assert _answers(certified(tree, feature_type=ftype, proba=False), typed) == _answers(tree, typed)


@settings(max_examples=25, deadline=None)
@given(edited_trees(min_codes=1))  # (the Python target cannot write a subset split of no codes yet: `in (,)`)
def test_the_generated_python_of_a_certified_tree_equals_the_original(tree):
    X = np.zeros((1, tree.schema.n_features))
    report = verify(tree, X, "python", certified=True)
    assert report.ok, report.mismatches[:3]


@pytest.mark.skipif(not GCC, reason="needs gcc")
@settings(max_examples=10, deadline=None)
@given(edited_trees(missing=("majority", "error")), st.sampled_from(["double", "int8"]), st.booleans())
def test_the_generated_c_of_a_certified_tree_equals_the_original(tree, ftype, proba):
    X = np.zeros((1, tree.schema.n_features))
    report = verify(tree, X, "c", feature_type=ftype, proba=proba, certified=True)
    assert report.ok, report.mismatches[:3]


# -- exact examples ---------------------------------------------------------------------------

X1 = Schema((Feature("x"),), ("a", "b"))


def _tree(root, missing="majority", schema=X1):
    return Tree(root, schema, missing=missing)


def test_a_test_its_ancestor_decided_goes():
    inner = Split(0, Threshold(5.0), (Leaf((2, 0)), Leaf((0, 0))), (2, 0))  # x <= 5 under x <= 3
    tree = _tree(Split(0, Threshold(3.0), (inner, Leaf((0, 4))), (2, 4)))
    assert remove_unreachable(tree).root == Split(0, Threshold(3.0), (Leaf((2, 0)), Leaf((0, 4))), (2, 4))


def test_a_branch_missing_values_reach_stays():
    # Under "majority" a missing value at the inner split goes to its heavier branch, the right
    # one, which no known value under x <= 3 reaches: it stays (so does the split).
    inner = Split(0, Threshold(5.0), (Leaf((1, 0)), Leaf((0, 2))), (1, 2))
    tree = _tree(Split(0, Threshold(3.0), (inner, Leaf((0, 1))), (1, 3)))
    assert remove_unreachable(tree) == tree
    assert remove_unreachable(attrs.evolve(tree, missing="error")).root.children[0] == Leaf((1, 0))
    # A learned side sends missing values left at both splits: the inner right branch is unreachable.
    sided = _tree(Split(0, Threshold(3.0, missing_branch=0), (Split(0, Threshold(5.0, missing_branch=0), inner.children, (1, 2)), Leaf((0, 1))), (1, 3)))
    assert remove_unreachable(sided).root.children[0] == Leaf((1, 0))


def test_a_split_whose_removal_would_move_missing_values_stays():
    # Missing values go to the root's heavier branch, the inner split (7 against 6), then on to
    # its right branch (5 against 2); its left one no row reaches. Replacing the inner split by
    # its right branch (5) would make the root send missing values left: it stays, the
    # unreachable branch becomes a leaf of its counts.
    inner = Split(0, Threshold(1.0), (Split(0, Threshold(0.0), (Leaf((0, 1)), Leaf((1, 0))), (1, 1)), Leaf((5, 0))), (6, 1))
    tree = _tree(Split(0, Threshold(3.0), (Leaf((0, 6)), inner), (6, 7)))
    out = remove_unreachable(tree)
    assert out.root.children[1] == Split(0, Threshold(1.0), (Leaf((1, 1)), Leaf((5, 0))), (6, 1))
    rows = np.array([[np.nan], [0.5], [4.0], [-1.0]])
    assert expected(out, rows) == expected(tree, rows)
    lighter = _tree(Split(0, Threshold(3.0), (Leaf((0, 4)), inner), (6, 5)))  # 5 against 4: it goes
    assert remove_unreachable(lighter).root.children[1] == Leaf((5, 0))


def test_an_empty_branch_keeps_the_distribution_it_inherits():
    # The reachable branch has no training weight: it answers with its parent's distribution,
    # which the root's is not, so its parent stays.
    inner = Split(0, Threshold(1.0), (Leaf((3, 0)), Leaf((0, 0))), (3, 0))
    tree = _tree(Split(0, Threshold(2.0), (Leaf((0, 5)), inner), (3, 5)), missing="error")
    out = remove_unreachable(tree)
    assert out.root.children[1] == inner
    assert expected(out, np.array([[5.0]])) == expected(tree, np.array([[5.0]])) == [(1.0, 0.0)]


def test_categorical_codes_the_path_excludes_are_unreachable():
    schema = Schema((Feature("c", CATEGORICAL, ("p", "q", "r")),), ("a", "b"))
    multi = Split(0, Multiway(3), (Leaf((1, 0)), Leaf((0, 2)), Leaf((3, 0))), (4, 2))
    tree = _tree(Split(0, Subset((0, 2)), (multi, Leaf((0, 7))), (4, 9)), missing="error", schema=schema)
    out = remove_unreachable(tree)
    assert out.root.children[0] == multi  # codes 0 and 2 both reach it: it stays, code 1 unreachable
    assert out.root.children[0].children[1] == Leaf((0, 2))
    rows = np.array([[0.0], [1.0], [2.0], [-1.0], [3.0]])
    assert expected(out, rows) == expected(tree, rows)
    # A subset split under a branch that allows one code: the other branch goes, and the split.
    one = Split(0, Subset((1,)), (Leaf((0, 2)), Leaf((5, 0))), (5, 2))
    t2 = _tree(Split(0, Subset((2,)), (one, Leaf((0, 7))), (5, 9)), missing="error", schema=schema)
    assert remove_unreachable(t2).root.children[0] == Leaf((5, 0))


def test_surrogates_may_route_an_undecided_row_anywhere():
    schema = Schema((Feature("x"), Feature("y")), ("a", "b"))
    sur = Surrogates((Surrogate(1, Threshold(0.5)),), fallback=0)
    inner = Split(0, Threshold(5.0), (Leaf((1, 0)), Leaf((0, 2))), (1, 2), surrogates=sur)
    tree = _tree(Split(1, Threshold(3.0), (inner, Leaf((0, 1))), (1, 3)), schema=schema)
    assert remove_unreachable(tree) == tree
    # Under x <= 3 on x itself (and "error"), no row is undecided: the right branch goes.
    t2 = _tree(Split(0, Threshold(3.0), (inner, Leaf((0, 1))), (1, 3)), missing="error", schema=schema)
    assert remove_unreachable(t2).root.children[0] == Leaf((1, 0))


def test_merging_keeps_the_class_and_refuses_what_it_cannot():
    tree = _tree(Split(0, Threshold(1.0), (Leaf((3, 1)), Leaf((2, 0))), (5, 1)))
    assert merge_same_class(tree).root == Leaf((5, 1))
    # Missing values shared out: the mixture's class is not one leaf's, nothing merges.
    assert merge_same_class(attrs.evolve(tree, missing="distribute")) == attrs.evolve(tree, missing="distribute")
    # A refused row (strategy "error") stays refused.
    assert merge_same_class(attrs.evolve(tree, missing="error")) == attrs.evolve(tree, missing="error")
    # Below a split that shares missing values out, a subtree's distributions are part of the
    # mixture: merging the left subtree (all "a", its own counts (30, 0)) would turn the answer
    # for x missing from b into a.
    schema = Schema((Feature("x"), Feature("y")), ("a", "b"))
    left = Split(1, Threshold(0.0, missing_branch=0), (Leaf((11, 9)), Leaf((12, 8))), (30, 0))  # (a side of its own: it shares nothing)
    shared = _tree(Split(0, Threshold(1.0), (left, Leaf((0, 20))), (30, 20)), missing="distribute", schema=schema)
    row = np.array([[np.nan, -1.0]])
    assert _classes(expected(shared, row)) == [1]
    assert merge_same_class(shared) == shared
    assert _classes(expected(attrs.evolve(shared, root=Split(0, Threshold(1.0), (Leaf((30, 0)), Leaf((0, 20))), (30, 20))), row)) == [0]
    # The split's own counts would answer b: it stays.
    odd = _tree(Split(0, Threshold(1.0), (Leaf((3, 1)), Leaf((2, 0))), (1, 5)))
    assert merge_same_class(odd) == odd
    regression = Tree(Leaf((1.0, 2.0, 4.0)), Schema((Feature("x"),), task="regression"))
    with pytest.raises(ParameterError, match="regression"):
        merge_same_class(regression)


def test_thresholds_snap_to_the_grid_and_the_grid_shows_what_is_unreachable():
    inner = Split(0, Threshold(2.7), (Leaf((0, 3)), Leaf((4, 0))), (4, 3))  # 2.3 < x <= 2.7: no integer
    tree = _tree(Split(0, Threshold(2.3), (Leaf((5, 0)), inner), (9, 3)), missing="error")
    assert snap_thresholds(tree, "int16").root.test == Threshold(2.0)
    assert snap_thresholds(tree, "double") is tree
    assert n_nodes(remove_unreachable(tree)) == 5
    assert n_nodes(certified(tree, feature_type="int16")) == 3
    big = _tree(Split(0, Threshold(300.0), (Leaf((5, 0)), Leaf((0, 1))), (5, 1)))
    assert snap_thresholds(big, "int8").root.test == Threshold(127.0)
    # Every int8 reading is <= 127, and a missing one goes to the heavier branch, the same.
    assert certified(big, feature_type="int8").root == Leaf((5, 0))
    # Under "error" a missing reading is refused at the split: it stays.
    assert certified(attrs.evolve(big, missing="error"), feature_type="int8").root.test == Threshold(127.0)
    with pytest.raises(CodegenError, match="feature type"):
        snap_thresholds(tree, "int64")


def test_options_are_checked():
    tree = _tree(Leaf((1, 0)))
    with pytest.raises(CodegenError, match="certified must be True or False"):
        generate(tree, "c", certified="yes")


def test_ensembles_are_refused():
    from puretree.ensemble import Ensemble

    ens = Ensemble.__new__(Ensemble)  # the check comes before anything reads the members
    with pytest.raises(CodegenError, match="single tree"):
        generate(ens, "c", certified=True)


# -- the code, checked against the original model ------------------------------------------------


def _raised_tree():
    """A tree as subtree raising or editing leaves it: tests on x repeated below tests on x."""
    schema = Schema((Feature("x"), Feature("y")), ("a", "b", "c"))
    deep = Split(0, Threshold(4.0), (Split(1, Threshold(0.5), (Leaf((3, 0, 0)), Leaf((0, 2, 0))), (3, 2, 0)), Leaf((0, 0, 0))), (3, 2, 0))
    left = Split(0, Threshold(2.0), (deep, Split(0, Threshold(1.0), (Leaf((0, 0, 0)), Leaf((0, 0, 4))), (0, 0, 4))), (3, 2, 4))
    return Tree(Split(0, Threshold(3.0), (left, Leaf((0, 6, 1))), (3, 8, 5)), schema)


@pytest.mark.skipif(not GCC, reason="needs gcc")
@pytest.mark.parametrize("ftype,proba", [("double", True), ("double", False), ("int16", True), ("float", False)])
def test_the_certified_code_equals_the_original_model(ftype, proba):
    tree = _raised_tree()
    X = np.array([[0.0, 0.0], [1.5, 1.0], [2.5, 0.0], [3.5, np.nan], [np.nan, 1.0]])
    report = verify(tree, X, "c", feature_type=ftype, proba=proba, certified=True)
    assert report.ok and report.n_checked > len(X)
    smaller = generate(tree, "c", feature_type=ftype, proba=proba, certified=True)["tree.c"]
    assert smaller.count("<=") < generate(tree, "c", feature_type=ftype, proba=proba)["tree.c"].count("<=")


@pytest.mark.skipif(not GCC, reason="needs gcc")
def test_verify_catches_a_rewrite_that_changes_an_answer(monkeypatch):
    # The check has teeth: a "rewrite" that drops a reachable branch fails verify.
    tree = _raised_tree()
    monkeypatch.setattr(lowering, "certified", lambda t, **kw: attrs.evolve(t, root=t.root.children[0]))
    report = verify(tree, np.array([[0.0, 0.0]]), "c", certified=True)
    assert not report.ok


@pytest.mark.skipif(not GCC, reason="needs gcc")
def test_quantized_certified_code_equals_the_quantized_model():
    from sklearn.datasets import load_breast_cancer
    from sklearn.tree import DecisionTreeClassifier
    from puretree.sklearn import from_sklearn

    X, y = load_breast_cancer(return_X_y=True)
    tree = from_sklearn(DecisionTreeClassifier(random_state=0).fit(X, y))
    ranges = lowering.feature_ranges(X)
    report = verify(tree, X, "c", feature_type="int8", quantize=ranges, proba=False, certified=True, max_changed="100%")
    plain = verify(tree, X, "c", feature_type="int8", quantize=ranges, proba=False, max_changed="100%")
    assert report.n_mismatches == 0 and report.n_quantize_mismatches == 0
    assert report.changed_by_quantization == plain.changed_by_quantization
    offset, scale = lowering.tree_quantization(tree, ranges, "int8")
    qtree = lowering.quantized_tree(tree, offset, scale, "int8")
    assert n_nodes(certified(qtree, feature_type="int8")) < n_nodes(qtree)


@pytest.mark.skipif(not GCC, reason="needs gcc")
def test_the_command_line_exports_and_verifies_certified_code(tmp_path):
    tree = _raised_tree()
    save(tree, tmp_path / "m.json")
    (tmp_path / "d.csv").write_text("x,y\n0,0\n1.5,1\n2.5,0\n3.5,\n", encoding="utf-8")
    run = lambda *a: subprocess.run([sys.executable, "-m", "puretree", *a], capture_output=True, text=True)
    done = run("verify", str(tmp_path / "m.json"), str(tmp_path / "d.csv"), "--to", "c", "--certified", "--no-proba")
    assert done.returncode == 0, done.stderr
    assert "0 mismatches" in done.stdout
    done = run("export", str(tmp_path / "m.json"), "--to", "c", "-o", str(tmp_path / "out"), "--certified")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "out" / "tree.c").read_text(encoding="utf-8") == generate(tree, "c", certified=True)["tree.c"]
