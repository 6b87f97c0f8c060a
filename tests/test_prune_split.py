"""pruning split by concern: the facade's names, the modules' boundaries, the criterion a tree
records, and every rewrite at 100,000 levels (no id() memo, no visit counter, no recursion)."""

from __future__ import annotations

import ast
from pathlib import Path

import attrs
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import puretree
from puretree import estimates, prune, validation
from puretree.prune import complexity, rewrites, significance
from puretree.datasets import load_buys_computer, load_playtennis
from puretree.fold import depth, iter_nodes, n_leaves, n_nodes
from puretree.grow import id3
from puretree.impurity import entropy, gini, misclassification
from puretree.nodes import CategoricalSplit, Feature, Leaf, NumericSplit, Schema, SubsetSplit, children
from puretree.tree import Tree
from puretree.strategies import trees

PACKAGE = Path(puretree.__file__).parent
#: The modules this split made, and the kit they use (paths in the package).
PRUNING_MODULES = ("prune/__init__", "prune/rewrites", "estimates", "prune/complexity", "prune/significance", "validation", "fold", "importance")

#: puretree.prune's public names before the split: user code, the CLI, rules.py and c45.py use them.
PUBLIC_BEFORE = (
    "check_cf best_alpha_on collapse is_pruning_of same_class simplify reduced_error pessimistic c45_added_errors "
    "pessimistic_errors penalty_error tree_penalty_error penalty CostComplexityPath cost_complexity_path cost_complexity "
    "AlphaChoice choose_alpha chi_square_test chi_square_sf validation_codes"
).split()


def test_prune_still_exports_every_public_name_from_the_module_that_owns_it():
    assert set(PUBLIC_BEFORE) <= set(prune.__all__)
    owners = (complexity, estimates, rewrites, significance, validation)
    for name in PUBLIC_BEFORE:
        owner = [m for m in owners if name in m.__all__]
        assert len(owner) == 1, name  # one home per name
        assert getattr(prune, name) is getattr(owner[0], name)


@pytest.mark.parametrize("module", PRUNING_MODULES)
def test_no_private_name_is_imported_across_modules(module):
    source = (PACKAGE / f"{module}.py").read_text()
    imported = [(node.module, alias.name) for node in ast.walk(ast.parse(source)) if isinstance(node, ast.ImportFrom) for alias in node.names]
    assert [f"{m}.{n}" for m, n in imported if n.startswith("_") and n != "__future__" and m != "__future__"] == []


@pytest.mark.parametrize("module", PRUNING_MODULES)
def test_nothing_is_keyed_by_identity_or_by_a_visit_counter(module):
    """Values are handed up by fold and down by walk: no id() memo, no itertools.count
    predicting the order in which a traversal visits."""
    calls = [node.func for node in ast.walk(ast.parse((PACKAGE / f"{module}.py").read_text())) if isinstance(node, ast.Call)]
    assert [ast.unparse(f) for f in calls if ast.unparse(f) in ("id", "itertools.count", "count")] == []


def _chain(levels: int) -> Tree:
    """A left chain: every split sends its one class-a row left, to the bottom leaf, and has one
    pure leaf of class b on the right; split k levels above the bottom has counts (1, k)."""
    node = Leaf((1, 0))
    for i in range(levels):
        node = NumericSplit(0, float(levels - i), node, Leaf((0, 1)), (1, i + 1))
    return Tree(node, Schema((Feature("x"),), ("a", "b")))


def test_every_rewrite_prunes_a_100_000_level_chain():
    levels = 100_000
    tree = _chain(levels)
    whole = Leaf(tree.root.counts)
    # No per-leaf penalty: every split fixes one training error and stays (shared, not copied).
    assert prune.penalty(tree, per_leaf=0.0) is tree
    # A penalty of 0.25 per leaf: a subtree of 4 pure leaves costs 1.0 + 0.25 = a leaf's, upwards all collapse.
    assert prune.penalty(tree, per_leaf=0.25).root == whole
    assert prune.pessimistic(tree).root == whole
    assert prune.simplify(tree) is tree  # no split has children that all predict one class
    half = prune.collapse(tree, [levels // 2])  # left children first: the split at depth k has pre-order id k
    assert depth(half) == levels // 2 and n_leaves(half) == levels // 2 + 1
    assert prune.is_pruning_of(half, tree) and not prune.is_pruning_of(tree, half)
    # A class-a row reaches the bottom leaf: only the bottom split, counts (1, 1), predicts a as a
    # leaf too (ties go to the first class), so only it goes; a class-b row is right at the root.
    small = _chain(10_000)
    kept = prune.reduced_error(small, [{"x": 0.5}], ["a"])
    assert depth(kept) == 9_999 and n_leaves(kept) == 10_000 and prune.is_pruning_of(kept, small)
    assert prune.reduced_error(small, [{"x": 0.5}], ["b"]).root == Leaf(small.root.counts)


@given(trees(max_depth=4), st.data())
def test_collapse_cuts_exactly_the_pre_order_range_of_a_node(tree, data):
    nodes = list(iter_nodes(tree))
    i = data.draw(st.integers(0, len(nodes) - 1))
    size = n_nodes(nodes[i])
    expected = nodes[:i] + [Leaf(nodes[i].counts)] + nodes[i + size :]
    out = list(iter_nodes(prune.collapse(tree, [i])))
    assert [(type(n), n.counts) for n in out] == [(type(n), n.counts) for n in expected]
    assert prune.is_pruning_of(prune.collapse(tree, [i]), tree)


def test_is_pruning_of_compares_the_test_of_every_kind_of_split():
    from puretree.datasets import load_temperature
    from puretree.grow import cart

    for tree in (cart(load_temperature()), cart(load_buys_computer()), id3(load_playtennis())):
        root = tree.root
        assert prune.is_pruning_of(tree, tree)
        changes = [{"feature": (root.feature + 1) % tree.schema.n_features}] if tree.schema.n_features > 1 else []
        if isinstance(root, NumericSplit):
            changes.append({"threshold": root.threshold + 1.0})
        if isinstance(root, SubsetSplit):
            changes.append({"left_categories": tuple(c for c in root.left_categories[:-1])} if len(root.left_categories) > 1 else {"left_categories": (root.left_categories[0] + 1,)})
        for change in changes:
            moved = attrs.evolve(tree, root=attrs.evolve(root, **change))
            assert not prune.is_pruning_of(moved, tree) and not prune.is_pruning_of(tree, moved), change
    # A multiway split with another number of branches is another test.
    multi = id3(load_playtennis())
    fewer = attrs.evolve(multi, root=CategoricalSplit(multi.root.feature, children(multi.root)[:2], multi.root.counts))
    assert not prune.is_pruning_of(fewer, multi)


# -- cost-complexity measures with the criterion the tree records -----------------------------


def _recording(tree: Tree, criterion: str | None) -> Tree:
    """``tree`` recording ``criterion``: with ``Tree.criterion`` when the field exists, else as a
    subclass that adds it (what a tree of an older puretree lacks)."""
    if attrs.has(Tree) and "criterion" in attrs.fields_dict(Tree):
        return attrs.evolve(tree, criterion=criterion)

    @attrs.frozen
    class Recording(Tree):
        criterion: str | None = None

    return Recording(**{f.alias: getattr(tree, f.name) for f in attrs.fields(Tree) if f.init}, criterion=criterion)


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("loader", ["load_iris", "load_wine", "load_breast_cancer"])
def test_cost_complexity_path_defaults_to_the_recorded_criterion_as_scikit_learn(loader, criterion):
    import sklearn.datasets
    from sklearn.tree import DecisionTreeClassifier

    from puretree.sklearn import from_sklearn

    X, y = getattr(sklearn.datasets, loader)(return_X_y=True)
    clf = DecisionTreeClassifier(criterion=criterion, random_state=0).fit(X, y)
    reference = clf.cost_complexity_pruning_path(X, y)
    path = prune.cost_complexity_path(_recording(from_sklearn(clf), criterion))
    assert len(path.ccp_alphas) == len(reference.ccp_alphas)
    np.testing.assert_allclose(path.ccp_alphas, reference.ccp_alphas, rtol=1e-9, atol=0)
    np.testing.assert_allclose(path.impurities, reference.impurities, rtol=1e-9, atol=1e-15)


def test_the_recorded_criterion_is_the_default_and_an_impurity_given_wins():
    tree = _recording(id3(load_buys_computer()), None)
    assert complexity.risk_impurity(tree) is gini  # records nothing: Gini
    for name, impurity in (("gini", gini), ("entropy", entropy), ("misclassification", misclassification), ("log_loss", entropy)):
        recorded = _recording(tree, name)
        assert complexity.risk_impurity(recorded) is impurity
        assert complexity.risk_impurity(recorded, gini) is gini
    recorded = _recording(tree, "entropy")
    by_default, given_entropy = prune.cost_complexity_path(recorded), prune.cost_complexity_path(tree, impurity=entropy)
    assert by_default.ccp_alphas.tolist() == given_entropy.ccp_alphas.tolist() != prune.cost_complexity_path(tree).ccp_alphas.tolist()
    assert prune.cost_complexity_path(tree).ccp_alphas.tolist() == prune.cost_complexity_path(tree, impurity=gini).ccp_alphas.tolist()
    alpha = float(by_default.ccp_alphas[1])
    assert prune.cost_complexity(recorded, alpha).root == prune.cost_complexity(tree, alpha, impurity=entropy).root
    assert prune.best_alpha_on(recorded, load_buys_computer()) == prune.best_alpha_on(tree, load_buys_computer(), impurity=entropy)
    # A name it does not know (a hand-edited model) counts as none: Gini, not an error, since
    # every command must finish on any model that loads.
    for unknown in ("twoing", ""):
        assert complexity.risk_impurity(_recording(tree, unknown)) is gini


def test_cli_cost_complexity_defaults_to_the_library_default(tmp_path):
    from puretree.cli import main
    from puretree.io import load, save

    tree = id3(load_playtennis())
    save(tree, tmp_path / "m.json")
    alpha = float(prune.cost_complexity_path(load(tmp_path / "m.json")).ccp_alphas[1])
    assert main(["prune", str(tmp_path / "m.json"), "--method", "cost-complexity", "--alpha", repr(alpha), "-o", str(tmp_path / "p.json")]) == 0
    assert load(tmp_path / "p.json") == prune.cost_complexity(load(tmp_path / "m.json"), alpha)
    assert main(["prune", str(tmp_path / "m.json"), "--method", "penalty", "--impurity", "gini", "-o", str(tmp_path / "q.json")]) == 1
