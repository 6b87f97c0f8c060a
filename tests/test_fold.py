"""Folds and rewrites: order, sharing, combinators, and depth without recursion."""

from __future__ import annotations

import pytest

from puretree.datasets import load_playtennis
from puretree.fold import chain, depth, first_of, fixed_point, fold, iter_nodes, iter_paths, n_leaves, n_nodes, rewrite, run
from puretree.grow import id3
from puretree.nodes import CategoricalSplit, Leaf, NumericSplit, children


def _chain_tree(levels):
    node = Leaf((1, 0))
    for i in range(levels):
        node = NumericSplit(0, float(levels - i), node, Leaf((0, 1)), (i + 1, 1))
    return node


def test_run_is_a_trampoline():
    def count(n):
        if n == 0:
            return 0
        return 1 + (yield count(n - 1))

    assert run(count(200_000)) == 200_000


def test_fold_order_and_results():
    tree = id3(load_playtennis())
    seen = []
    size = fold(tree, lambda node, kids: seen.append(type(node).__name__) or 1 + sum(kids))
    assert size == n_nodes(tree) == 8
    assert seen[-1] == "Split"  # bottom-up: the root comes last
    assert n_leaves(tree) == 5 and depth(tree) == 2


def test_iter_nodes_is_pre_order():
    tree = id3(load_playtennis())
    nodes = list(iter_nodes(tree))
    assert nodes[0] is tree.root
    assert nodes[1] is tree.root.children[0]
    assert nodes[2] is tree.root.children[1] and nodes[3] is tree.root.children[1].children[0]


def test_iter_paths():
    tree = id3(load_playtennis())
    paths = list(iter_paths(tree))
    assert len(paths) == 5
    first_path, first_leaf = paths[0]
    assert first_path == ((tree.root, 0),) and first_leaf == Leaf((0, 4))
    for path, leaf in paths:
        node = tree.root
        for split, branch in path:
            assert split is node
            node = children(node)[branch]
        assert node is leaf


def test_rewrite_is_bottom_up_and_shares_unchanged_subtrees():
    tree = id3(load_playtennis())
    assert rewrite(tree, lambda n: None) is tree
    # Replace only the "rain" subtree's leaves: the untouched sunny subtree is the same object.
    flip = lambda n: Leaf(tuple(reversed(n.counts))) if isinstance(n, Leaf) and n.counts == (2.0, 0.0) else None  # noqa: E731
    new = rewrite(tree, flip)
    assert new.root.children[2] is tree.root.children[2]
    assert new.root.children[1].children[0] == Leaf((0, 2))
    assert new.schema is tree.schema
    # Children first: a rule that collapses splits over two leaves collapses the whole tree.
    collapse = lambda n: Leaf(n.counts) if children(n) and all(isinstance(c, Leaf) for c in children(n)) else None  # noqa: E731
    assert rewrite(tree, collapse).root == Leaf((5, 9))


def test_rule_combinators():
    leaf = Leaf((1, 2))
    to_a = lambda n: Leaf((9, 9)) if n == leaf else None  # noqa: E731
    to_b = lambda n: Leaf((7, 7)) if n == Leaf((9, 9)) else None  # noqa: E731
    never = lambda n: None  # noqa: E731
    assert first_of(never, to_a, to_b)(leaf) == Leaf((9, 9))
    assert first_of(never)(leaf) is None
    assert chain(to_a, to_b)(leaf) == Leaf((7, 7))
    assert chain(never, never)(leaf) is None
    halve = lambda n: Leaf((n.counts[0] // 2, 0)) if n.counts[0] > 1 else None  # noqa: E731
    assert fixed_point(halve)(Leaf((64, 0))) == Leaf((1, 0))
    assert fixed_point(halve)(Leaf((1, 0))) is None
    same = lambda n: n  # noqa: E731 - a rule returning an equal node must not loop forever
    assert fixed_point(same)(leaf) is None


@pytest.mark.parametrize("levels", [3_000])
def test_deep_trees_without_recursion(levels):
    root = _chain_tree(levels)
    assert depth(root) == levels
    assert n_nodes(root) == 2 * levels + 1 and n_leaves(root) == levels + 1
    assert fold(root, lambda n, kids: 1 + max(kids, default=-1)) == levels
    assert sum(1 for _ in iter_paths(root)) == levels + 1
    deepest = rewrite(root, lambda n: Leaf((5, 5)) if n == Leaf((1, 0)) else None)
    assert depth(deepest) == levels
    assert isinstance(deepest, NumericSplit) and not isinstance(deepest, CategoricalSplit)
