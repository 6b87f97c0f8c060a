"""Folds and rewrites: order, sharing, combinators, and depth without recursion."""

from __future__ import annotations

import itertools

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
    size = fold(tree, lambda node, kids: seen.append(node) or 1 + sum(kids))
    assert size == n_nodes(tree) == 8
    assert seen[-1] is tree.root  # bottom-up: the root comes last
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


# -- the kit: fold with top-down values, walk, rewrite built on them ----------------------------

from hypothesis import given  # noqa: E402

from puretree.errors import ParameterError  # noqa: E402
from puretree.fold import walk  # noqa: E402
from puretree.strategies import trees  # noqa: E402


def _depths(node, d):
    return [d + 1] * len(children(node))


def _paths(node, path):
    return [path + (i,) for i in range(len(children(node)))]


@given(trees(max_depth=4))
def test_walk_is_pre_order_and_hands_each_node_its_parents_value(tree):
    walked = list(walk(tree, _paths, ()))
    assert [n for n, _ in walked] == list(iter_nodes(tree))
    for node, path in walked:  # the value handed down is the path of branch indices to the node
        at = tree.root
        for i in path:
            at = children(at)[i]
        assert at is node
    assert max(len(p) for _, p in walked) == depth(tree)


@given(trees(max_depth=4))
def test_fold_gets_its_childrens_results_and_its_top_down_value(tree):
    assert fold(tree, lambda n, kids: 1 + sum(kids)) == n_nodes(tree)
    # With down: the deepest top-down depth below each node, folded up, is the tree's depth.
    assert fold(tree, lambda n, kids, d: max(kids, default=d), down=_depths, start=0) == depth(tree)
    post = []
    fold(tree, lambda n, kids, p: post.append((n, p)), down=_paths, start=())
    assert sorted(p for _, p in post) == sorted(p for _, p in walk(tree, _paths, ()))
    # Post-order: no node comes before one of its descendants.
    assert not any(len(a) < len(b) and b[: len(a)] == a for (_, a), (_, b) in itertools.combinations(post, 2))


@given(trees(max_depth=4))
def test_rewrite_is_a_fold_and_sees_top_down_values(tree):
    assert rewrite(tree, lambda n: None) is tree
    assert rewrite(tree, lambda n, p: None, down=_paths, start=()) is tree
    # Cut everything below depth 1: the same as collapsing the root's children.
    cut = rewrite(tree, lambda n, d: Leaf(n.counts) if d == 1 and children(n) else None, down=_depths, start=0)
    assert depth(cut) == min(depth(tree), 1)
    assert all(c.counts == o.counts for c, o in zip(children(cut.root), children(tree.root)))
    seen = {}
    rewrite(tree, lambda n, p: seen.setdefault(p, n) and None, down=_paths, start=())
    assert {p: n for n, p in walk(tree, _paths, ())}.keys() == seen.keys()


def test_walk_asks_down_only_for_splits_it_goes_past():
    tree = id3(load_playtennis())
    asked = []

    def down(node, d):
        asked.append(node)
        return _depths(node, d)

    first = next(walk(tree, down, 0))
    assert first == (tree.root, 0) and asked == []
    assert sum(1 for _ in walk(tree, down, 0)) == n_nodes(tree)
    assert len(asked) == n_nodes(tree) - n_leaves(tree)  # leaves are never asked


def test_down_must_give_one_value_per_child():
    tree = id3(load_playtennis())  # the root has three children
    for bad in (lambda n, v: [v], lambda n, v: [v] * 4):
        with pytest.raises(ParameterError, match="one value per child: the node has 3 children"):
            list(walk(tree, bad, 0))
        with pytest.raises(ParameterError, match="one value per child"):
            fold(tree, lambda n, kids, v: 0, down=bad, start=0)
    assert [v for _, v in walk(tree, lambda n, v: itertools.repeat(v + 1), 0)][:2] == [0, 1]


def test_the_kit_runs_at_100_000_levels():
    levels = 100_000
    root = _chain_tree(levels)
    assert fold(root, lambda n, kids: 1 + max(kids, default=-1)) == levels
    assert fold(root, lambda n, kids, d: max(kids, default=d), down=_depths, start=0) == levels
    assert depth(root) == levels
    assert sum(1 for _ in walk(root, _depths, 0)) == 2 * levels + 1
    assert rewrite(root, lambda n: None) is root
    # Cut the chain halfway down, with the depth handed down to the rule.
    cut = rewrite(root, lambda n, d: Leaf(n.counts) if d == levels // 2 and children(n) else None, down=_depths, start=0)
    assert depth(cut) == levels // 2 and n_leaves(cut) == levels // 2 + 1


def test_iter_paths_shares_the_paths_it_has_not_yielded_yet():
    # A left chain keeps one pending right leaf per level: with a path tuple each, memory would
    # grow as depth squared (5e7 entries at 10,000 levels); shared cells keep it linear.
    import tracemalloc

    levels = 2_000
    root = _chain_tree(levels)
    tracemalloc.start()
    try:
        lengths = [len(path) for path, _ in iter_paths(root)]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert sorted(lengths) == sorted([levels] + list(range(1, levels + 1)))
    assert peak < 100 * levels * 8 * 4  # linear: a few hundred bytes per level, not levels**2 / 2 entries


# -- events: enter and leave, for nested output --------------------------------------------------

from puretree.fold import ENTER, LEAVE, events, path_down, path_of  # noqa: E402


@given(trees(max_depth=4))
def test_events_enter_in_pre_order_and_leave_in_post_order(tree):
    seen = list(events(tree, down=_paths, start=()))
    assert len(seen) == 2 * n_nodes(tree)
    entered = [(n, v) for what, n, v in seen if what == ENTER]
    assert [n for n, _ in entered] == list(iter_nodes(tree))
    assert [v for _, v in entered] == [v for _, v in walk(tree, _paths, ())]  # walk's values
    post = []
    fold(tree, lambda n, kids: post.append(n))
    assert [n for what, n, _ in seen if what == LEAVE] == post
    # Properly nested: each leave closes the latest node entered and not yet left, with its value.
    open_ = []
    for what, node, value in seen:
        if what == ENTER:
            open_.append((node, value))
        else:
            assert open_.pop() == (node, value)
    assert open_ == []
    # Without down, every child's value is None.
    assert [v for what, _, v in events(tree, start=0) if what == ENTER] == [0] + [None] * (n_nodes(tree) - 1)


def test_events_ask_down_only_after_a_split_is_entered():
    tree = id3(load_playtennis())
    asked = []

    def down(node, d):
        asked.append(node)
        return _depths(node, d)

    it = events(tree, down=down, start=0)
    assert next(it) == (ENTER, tree.root, 0) and asked == []
    assert next(it) == (ENTER, tree.root.children[0], 1) and asked == [tree.root]
    with pytest.raises(ParameterError, match="one value per child"):
        list(events(tree, down=lambda n, v: [v], start=0))


def test_events_nest_output_at_100_000_levels():
    levels = 100_000
    root = _chain_tree(levels)
    deepest, closed = 0, 0
    for what, node, d in events(root, down=_depths, start=0):
        if what == ENTER:
            deepest = max(deepest, d)
        elif children(node):
            closed += 1
    assert deepest == levels and closed == levels


@given(trees(max_depth=4))
def test_path_down_hands_each_node_its_path(tree):
    for node, cell in walk(tree, path_down, None):
        at = tree.root
        for split, i in path_of(cell):
            assert split is at
            at = children(at)[i]
        assert at is node
    leaves = [(path_of(cell), n) for n, cell in walk(tree, path_down, None) if not children(n)]
    assert leaves == list(iter_paths(tree))
