"""puretree.invariants: each check passes on what is right and rejects, with a message that
says what broke, what is wrong."""

import re

import attrs
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puretree import prune
from puretree.criteria import split_info
from puretree.datasets import load_playtennis
from puretree.fold import iter_nodes, rewrite
from puretree.grow import cart, id3
from puretree.impurity import entropy, gini, misclassification
from puretree.invariants import (
    UNSEEN,
    boundary_cases,
    check_export,
    check_fits_training_data,
    check_impurity,
    check_pruning,
    check_roundtrip,
    check_tree,
    next_down,
    next_up,
)
from puretree.io import from_json, to_json
from puretree.nodes import CategoricalSplit, Feature, Leaf, NumericSplit, Schema, SubsetSplit, children
from puretree.tree import Tree
from puretree.strategies import class_counts, datasets, trees

# -- check_impurity ----------------------------------------------------------------------


@pytest.mark.parametrize("f", [entropy, gini, misclassification], ids=lambda f: f.__name__)
def test_builtin_impurities_pass(f):
    check_impurity(f)


@given(st.sampled_from([entropy, gini, misclassification]), st.lists(class_counts(n_classes=3, weighted=True), min_size=1, max_size=4))
def test_builtin_impurities_pass_on_drawn_counts(f, counts):
    check_impurity(f, counts)


def naive_entropy(counts):
    p = np.asarray(counts, dtype=float) / np.sum(counts, axis=-1, keepdims=True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.sum(p * np.log2(p), axis=-1)  # forgets 0 * log 0 = 0


@pytest.mark.parametrize(
    "f, counts, message",
    [
        (naive_entropy, [1, 0], "naive_entropy([1.0, 0.0]) = nan, expected a finite number >= 0"),
        (naive_entropy, [1, 1], "not zero on pure counts: f([2.0, 0.0]) = nan"),
        (lambda c: -gini(c), [1, 2], "= -0.444"),
        (lambda c: gini(c) + 0.01, [1, 2], "not zero on pure counts"),
        (lambda c: gini(np.asarray(c) * [1, 2]), [1, 2], "not symmetric in the classes"),
        (lambda c: np.sqrt(np.sum(c, axis=-1)) * gini(c), [1, 2], "not scale-invariant"),
        (lambda c: gini(c) * (1.5 - 2 * gini(c)), [1, 3], "not maximal at the uniform distribution: f([1.0, 3.0]) = 0.28125 > f([2.0, 2.0]) = 0.25"),
        (lambda c: np.where(np.sum(c, axis=-1) > 0, gini(c), 1.0), [0, 0], "of empty counts [0.0, 0.0] is 1.0"),
    ],
)
def test_broken_impurities_are_rejected(f, counts, message):
    with pytest.raises(AssertionError, match=None if message is None else re.escape(message)):
        check_impurity(f, counts)


def test_check_impurity_checks_vectorisation():
    looped = lambda c: float(gini(np.asarray(c)[0])) if np.ndim(c) > 1 else float(gini(c))  # noqa: E731
    with pytest.raises(AssertionError, match="on a batch of 2"):
        check_impurity(looped, [[1, 3], [2, 2]])


def test_check_impurity_rejects_bad_counts_and_regression():
    from puretree.impurity import variance

    with pytest.raises(ValueError):
        check_impurity(gini, [1, -1])
    with pytest.raises(TypeError):
        check_impurity(variance)


def test_gain_ratio_split_info_zero():
    # The documented broken variant's ingredient: split info is 0 for a one-branch split.
    assert float(split_info([5, 0])) == 0.0


# -- check_tree --------------------------------------------------------------------------

SCHEMA = Schema((Feature("x"), Feature("c", "categorical", ("p", "q", "r"))), ("a", "b"))


def test_check_tree_rejects_malformed_trees():
    good = Tree(NumericSplit(0, 1.0, Leaf((1, 0)), Leaf((0, 2)), (1, 2)), SCHEMA)
    check_tree(good)
    cases = [
        (NumericSplit(1, 1.0, Leaf((1, 0)), Leaf((0, 2)), (1, 2)), "tests categorical feature 'c'"),
        (SubsetSplit(0, (0,), Leaf((1, 0)), Leaf((0, 2)), (1, 2)), "tests numeric feature 'x'"),
        (SubsetSplit(1, (5,), Leaf((1, 0)), Leaf((0, 2)), (1, 2)), "out of range for 3 categories"),
        (CategoricalSplit(1, (Leaf((1, 0)), Leaf((0, 2))), (1, 2)), "has 2 children, expected 3"),
        (NumericSplit(4, 1.0, Leaf((1, 0)), Leaf((0, 2)), (1, 2)), "feature index 4 is out of range"),
        (NumericSplit(0, 1.0, Leaf((1, 0, 0)), Leaf((0, 2)), (1, 2)), "root.left, stats [1.0, 0.0, 0.0] have 3 entries"),
        (NumericSplit(0, 1.0, Leaf((1, -1)), Leaf((0, 2)), (1, 1)), "are negative"),
    ]
    for root, message in cases:
        with pytest.raises(AssertionError, match=re.escape(message)):
            check_tree(Tree(root, SCHEMA))


# -- check_pruning -----------------------------------------------------------------------


def collapse_where(tree, chosen):
    """Replace the splits whose pre-order index is in ``chosen`` by leaves (a hand-made pruning)."""
    ids = {id(node): i for i, node in enumerate(iter_nodes(tree))}
    return rewrite(tree, lambda node: Leaf(node.counts) if children(node) and ids.get(id(node)) in chosen else None)


@given(trees(max_depth=4, weighted=True), st.sets(st.integers(0, 40)))
def test_hand_made_prunings_pass(tree, chosen):
    pruned = collapse_where(tree, chosen)
    check_pruning(tree, pruned)
    check_pruning(tree, tree)


@given(datasets(min_rows=4, max_rows=20, n_classes=2), st.sampled_from(["simplify", "pessimistic", "penalty", "cost_complexity", "reduced_error"]))
@settings(max_examples=40)
def test_puretree_prunings_pass(ds, method):
    tree = cart(ds)
    pruned = {
        "simplify": lambda: prune.simplify(tree),
        "pessimistic": lambda: prune.pessimistic(tree),
        "penalty": lambda: prune.penalty(tree, per_leaf=1.0),
        "cost_complexity": lambda: prune.cost_complexity(tree, 0.05),
        "reduced_error": lambda: prune.reduced_error(tree, ds.subset(np.arange(ds.n_rows)[::2])),
    }[method]()
    check_pruning(tree, pruned)


ORIGINAL = Tree(
    NumericSplit(0, 1.0, Leaf((3, 0)), CategoricalSplit(1, (Leaf((0, 2)), Leaf((1, 0)), Leaf((0, 0))), (1, 2)), (4, 2)),
    SCHEMA,
)


@pytest.mark.parametrize(
    "root, message",
    [
        (NumericSplit(0, 2.0, Leaf((3, 0)), Leaf((1, 2)), (4, 2)), "at root the pruned tree has Threshold(value=2.0) on feature 0"),
        (NumericSplit(0, 1.0, Leaf((3, 0)), Leaf((2, 1)), (4, 2)), "the leaf at root.right has stats [2.0, 1.0]"),
        (NumericSplit(0, 1.0, NumericSplit(0, 0.5, Leaf((1, 0)), Leaf((2, 0)), (3, 0)), Leaf((1, 2)), (4, 2)), "at root.left the pruned tree has Threshold(value=0.5) on feature 0"),
        (NumericSplit(0, 1.0, Leaf((3, 0)), SubsetSplit(1, (0,), Leaf((0, 2)), Leaf((1, 0)), (1, 2)), (4, 2)), "at root.right the pruned tree has Subset(left_codes=(0,)) on feature 1"),
        (Leaf((4, 3)), "the leaf at root has stats [4.0, 3.0]"),
    ],
)
def test_non_prunings_are_rejected(root, message):
    with pytest.raises(AssertionError, match=re.escape(message)):
        check_pruning(ORIGINAL, Tree(root, SCHEMA))


def test_pruning_keeps_schema_and_missing_strategy():
    with pytest.raises(AssertionError, match="different schema"):
        check_pruning(ORIGINAL, Tree(Leaf((4, 2)), Schema((Feature("x"),), ("a", "b"))))
    with pytest.raises(AssertionError, match="missing-value strategy changed"):
        check_pruning(ORIGINAL, attrs.evolve(ORIGINAL, missing="error"))


def test_check_pruning_handles_deep_trees():
    node = Leaf((1, 0))
    for i in range(3000):
        node = NumericSplit(0, float(i), Leaf((0, 1)), node, (1, i + 1))
    deep = Tree(node, Schema((Feature("x"),), ("a", "b")))
    check_pruning(deep, collapse_where(deep, {10}))
    check_roundtrip(deep)  # 9000 boundary rows through a 3000-level tree, before and after


def test_check_pruning_reports_the_first_mismatch_in_reading_order():
    # Both branches differ from the original: the left one, read first, is the one reported.
    both = NumericSplit(0, 1.0, Leaf((2, 1)), Leaf((2, 1)), (4, 2))
    with pytest.raises(AssertionError, match=re.escape("the leaf at root.left has stats [2.0, 1.0]")):
        check_pruning(ORIGINAL, Tree(both, SCHEMA))


def _consistent_chain(levels, bad_at=None, moved_at=None):
    """A right chain whose counts add up, except at depth ``bad_at`` (a split whose counts are
    off); the split at depth ``moved_at`` has its threshold moved by a half."""
    node = Leaf((1, 0))
    for d in range(levels - 1, -1, -1):
        leaf = Leaf((0, 1) if d % 2 else (1, 0))
        counts = tuple(a + b for a, b in zip(leaf.counts, node.counts))
        node = NumericSplit(0, d + (0.5 if d == moved_at else 0.0), leaf, node, (counts[0] + 1, counts[1]) if d == bad_at else counts)
    return Tree(node, Schema((Feature("x"),), ("a", "b")))


def test_the_checks_name_places_at_10_000_levels():
    # Paths are shared cells (fold.path_down), written out only for the message: a walk over
    # 20,001 nodes with their paths stays linear (path tuples would copy depth**2 / 2 entries).
    levels = 10_000
    check_tree(_consistent_chain(levels))
    bad = _consistent_chain(levels, bad_at=levels - 1)
    with pytest.raises(AssertionError, match=re.escape("check_tree: at root" + ".right" * (levels - 1) + ", the stats")):
        check_tree(bad)
    tree = _consistent_chain(levels)
    check_pruning(tree, tree)
    with pytest.raises(AssertionError, match=re.escape("at root" + ".right" * (levels - 1) + " the pruned tree has Threshold(value=9999.5)")):
        check_pruning(tree, _consistent_chain(levels, moved_at=levels - 1))
    assert len(boundary_cases(tree)) == 3 * levels


# -- check_roundtrip ---------------------------------------------------------------------


def test_lossy_serialisations_are_rejected():
    tree = Tree(NumericSplit(0, 0.1 + 0.2, Leaf((1, 0)), Leaf((0, 2)), (1, 2)), SCHEMA)
    check_roundtrip(tree)
    rounded = lambda text: from_json(text.replace(repr(0.1 + 0.2), "0.3"))  # noqa: E731  (a 6-digit exporter)
    with pytest.raises(AssertionError, match="nodes.0..threshold was 0.30000000000000004, is now 0.3"):
        check_roundtrip(tree, loads=rounded)
    dropped = lambda text: from_json(text.replace('"missing": "majority"', '"missing": "error"'))  # noqa: E731
    with pytest.raises(AssertionError, match="missing was \"majority\", is now \"error\""):
        check_roundtrip(tree, loads=dropped)


def test_roundtrip_compares_predictions():
    tree = Tree(NumericSplit(0, 1.0, Leaf((1, 0)), Leaf((0, 2)), (1, 2)), SCHEMA)
    # A "serialiser" that keeps the dictionary but loads another tree: predictions differ.
    other = Tree(NumericSplit(0, 1.0, Leaf((1, 0)), Leaf((0, 2)), (1, 2)), SCHEMA)
    swapped = attrs.evolve(other, root=NumericSplit(0, 1.0, Leaf((0, 2)), Leaf((1, 0)), (1, 2)))
    with pytest.raises(AssertionError, match="changed in the round trip"):
        check_roundtrip(tree, dumps=lambda t: to_json(t), loads=lambda text: swapped)


# -- check_fits_training_data ------------------------------------------------------------


def test_fits_training_data_with_duplicates():
    X = [[0.0], [0.0], [0.0], [1.0]]
    tree = id3(X, ["a", "b", "b", "a"])
    check_fits_training_data(tree, X, ["a", "b", "b", "a"])
    with pytest.raises(AssertionError, match="heaviest labels of identical rows are \\['a'\\]"):
        check_fits_training_data(tree, X, ["a", "a", "b", "a"])


def test_fits_training_data_with_missing_values():
    # Identical rows with NaN cells are one group (NaN != NaN must not split them apart).
    X = [[np.nan, 0.0], [np.nan, 0.0], [1.0, 2.0], [1.0, 3.0]]
    tree = cart(X, ["a", "a", "b", "a"], missing="learn")
    check_fits_training_data(tree, X, ["a", "a", "b", "a"])
    with pytest.raises(AssertionError, match="row 0 .* is predicted 'a', but its label is 'b'"):
        check_fits_training_data(tree, X, ["b", "b", "b", "a"])


def test_fits_training_data_rejects_a_stump():
    data = load_playtennis()
    with pytest.raises(AssertionError, match="is predicted"):
        check_fits_training_data(id3(data, max_depth=0), data)


# -- boundary_cases ----------------------------------------------------------------------


def test_boundary_cases_follow_the_path():
    schema = Schema((Feature("x"), Feature("c", "categorical", ("p", "q"))), ("a", "b"))
    inner = NumericSplit(0, 5.0, Leaf((1, 0)), Leaf((0, 1)), (1, 1))
    tree = Tree(SubsetSplit(1, (1,), inner, Leaf((2, 0)), (3, 1)), schema)
    rows = boundary_cases(tree, missing=True)
    root_rows = [r for r in rows if r["x"] == 0.0]
    assert [r["c"] for r in root_rows] == ["p", "q", UNSEEN, None]
    inner_rows = [r for r in rows if r not in root_rows]
    assert [r["x"] for r in inner_rows] == [next_down(5.0), 5.0, next_up(5.0), None]
    assert all(r["c"] == "q" for r in inner_rows)  # the path to the inner split needs c in {q}
    assert tree.apply(inner_rows[:3]).tolist() == [2, 2, 3]


def test_boundary_cases_float32():
    tree = Tree(NumericSplit(0, 0.1, Leaf((1, 0)), Leaf((0, 1)), (1, 1)), Schema((Feature("x"),), ("a", "b")))
    values = [r["x"] for r in boundary_cases(tree, width=32)]
    f = float(np.float32(0.1))  # 0.10000000149..., above 0.1
    assert values == [next_down(next_down(f, width=32), width=32), next_down(f, width=32), f, next_up(f, width=32)]
    assert all(float(np.float32(v)) == v for v in values)


def test_boundary_cases_skip_unreachable_subtrees():
    schema = Schema((Feature("x"),), ("a", "b"))
    never = NumericSplit(0, 0.25, Leaf((0, 0)), Leaf((0, 0)), (0, 0))  # x > 1 and x <= 0.5: no row
    inner = NumericSplit(0, 0.5, never, Leaf((0, 0)), (0, 0))
    tree = Tree(NumericSplit(0, 1.0, Leaf((0, 1)), inner, (0, 1)), schema)
    values = [r["x"] for r in boundary_cases(tree)]
    assert values == [next_down(1.0), 1.0, next_up(1.0), next_down(0.5), 0.5, next_up(0.5)]


# -- check_export ------------------------------------------------------------------------


@given(trees(max_depth=3, max_nodes=15))
@settings(max_examples=15)
def test_python_export_agrees_on_drawn_trees(tree):
    check_export(tree, "python")


@pytest.mark.parametrize("target, feature_type", [("c", "double"), ("c-table", "float")])
def test_c_export_agrees(target, feature_type):
    tree = cart(load_playtennis())
    check_export(tree, target, feature_type=feature_type)


@given(trees(max_depth=2, max_nodes=7, width=32, missing=("majority", "error")))
@settings(max_examples=4)
def test_c_float_export_agrees_on_drawn_trees(tree):
    # Compiling is slow: a few drawn trees, float32 thresholds at the edges included.
    check_export(tree, "c", feature_type="float")


def test_export_with_the_wrong_comparison_is_caught(monkeypatch):
    import sys

    import puretree.codegen  # noqa: F401  (the package's verify function hides the module)

    verify_module = sys.modules["puretree.codegen.verify"]
    real = verify_module.generate

    def off_by_one(*args, **kwargs):
        files = real(*args, **kwargs)
        return {name: text.replace("<=", "<") for name, text in files.items()}

    monkeypatch.setattr(verify_module, "generate", off_by_one)
    tree = Tree(NumericSplit(0, 0.5, Leaf((1, 0)), Leaf((0, 2)), (1, 2)), Schema((Feature("x"),), ("a", "b")))
    with pytest.raises(AssertionError, match=r"check_export: the python code disagrees with the model on \d+ of \d+ rows: row \{'x': 0.5\}: model \(1.0, 0.0\)"):
        check_export(tree, "python", form="nested")
