"""Minimum message length (Wallace and Patrick 1993): the code, pruning by it, stopping by it."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puretree.datasets import load_playtennis, load_temperature
from puretree.errors import ParameterError
from puretree.fold import iter_nodes, n_leaves
from puretree.grow import c45, cart, grow, id3
from puretree.mml import leaf_bits, message_length, mml_prune, mml_stop, split_bits
from puretree.nodes import Leaf, Split, Tree, children, with_children
from puretree.prune import is_pruning_of
from puretree.strategies import class_counts, trees


def exact_leaf_bits(counts) -> float:
    n, k = sum(counts), len(counts)
    messages = math.factorial(n + k - 1) // (math.factorial(k - 1) * math.prod(math.factorial(c) for c in counts))
    return math.log2(messages)


@given(st.lists(st.integers(0, 30), min_size=1, max_size=5))
def test_leaf_bits_is_the_dirichlet_code_length(counts):
    assert leaf_bits(counts) == pytest.approx(exact_leaf_bits(counts), abs=1e-9)


@given(class_counts(weighted=True))
def test_leaf_bits_of_weighted_counts_is_finite_and_grows_with_a_row(counts):
    bits = leaf_bits(counts)
    assert math.isfinite(bits) and bits >= 0
    # One more row of any class never shortens the labels' message.
    for i in range(len(counts)):
        more = list(counts)
        more[i] += 1
        assert leaf_bits(more) >= bits - 1e-9


def test_worked_example_playtennis_by_hand():
    tree = id3(load_playtennis())
    # 8 nodes (1 bit each); outlook among 4 attributes (2 bits); humidity and wind among the
    # 3 left (log2 3 each); leaves (0,4): log2 5, (3,0): log2 4, (0,2): log2 3, (2,0): log2 3,
    # (0,3): log2 4.
    by_hand = 8 + 2 + 2 * math.log2(3) + math.log2(5) + 2 + math.log2(3) + math.log2(3) + 2
    assert message_length(tree) == pytest.approx(by_hand, abs=1e-9)
    assert message_length(tree) == pytest.approx(22.6618, abs=1e-4)
    # The one-leaf tree: 1 + log2(15! / (1! 5! 9!)) = 1 + log2(30030), shorter: pruning keeps it.
    leaf = Tree(Leaf(tree.root.counts), tree.schema)
    assert message_length(leaf) == pytest.approx(1 + math.log2(30030), abs=1e-9)
    assert mml_prune(tree) == leaf


def test_worked_example_with_thresholds():
    data = load_temperature()
    tree = id3(data)
    # Root: temperature among 1 attribute (0 bits) and its cut among the 5 between 6 values;
    # right child: among the 3 cuts between its 4 values. Leaves (2,0), (0,3), (1,0).
    by_hand = 5 + math.log2(5) + math.log2(3) + math.log2(3) + 2 + 1
    assert message_length(tree, data) == pytest.approx(by_hand, abs=1e-9)
    # Without the rows a cut is charged one per gap between the node's rows: the same here
    # (all values distinct), and never less.
    assert message_length(tree) == pytest.approx(by_hand, abs=1e-9)
    repeated = np.repeat(data.X, 2, axis=0)  # each value twice: still 5 and 3 cuts
    assert message_length(tree, repeated) == pytest.approx(by_hand, abs=1e-9)


def prunings(node):
    """Every pruning of a node (brute force, for small trees)."""
    kids = children(node)
    if not kids:
        return [node]
    out = [Leaf(node.counts)]
    for combo in itertools.product(*(prunings(k) for k in kids)):
        out.append(with_children(node, tuple(combo)))
    return out


@settings(max_examples=60)
@given(trees(max_depth=3, max_nodes=9))
def test_mml_prune_is_the_shortest_pruning(tree):
    pruned = mml_prune(tree)
    assert is_pruning_of(pruned, tree)
    best = min(message_length(Tree(r, tree.schema, tree.missing)) for r in prunings(tree.root))
    assert message_length(pruned) == pytest.approx(best, abs=1e-9)
    assert message_length(pruned) <= message_length(tree) + 1e-9
    assert mml_prune(pruned) == pruned  # nothing left to prune


def test_mml_prune_keeps_a_split_that_pays_for_itself():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 10, size=(300, 2))
    y = np.where(X[:, 0] > 5, "b", "a")
    noisy = np.where(rng.random(300) < 0.1, np.where(y == "a", "b", "a"), y)
    tree = grow(X, noisy)  # grown to purity: it fits the flipped labels too
    pruned = mml_prune(tree, X)
    assert 2 <= n_leaves(pruned) < n_leaves(tree)
    assert pruned.root.feature == 0
    assert np.mean(pruned.predict(X) == y) >= 0.95


def test_mml_stop_as_a_stopping_rule():
    # PlayTennis: no split pays for itself, the root stays a leaf (the docstring's example).
    assert isinstance(id3(load_playtennis(), accept=mml_stop()).root, Leaf)
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 10, size=(400, 3))
    y = np.where((X[:, 0] > 5) & (X[:, 1] > 3), "b", "a")
    noisy = np.where(rng.random(400) < 0.1, np.where(y == "a", "b", "a"), y)
    full = grow(X, noisy)
    stopped = grow(X, noisy, accept=mml_stop())
    assert is_pruning_of(stopped, full)  # growth stopped early: the same splits, fewer
    assert n_leaves(stopped) == 3 < n_leaves(full)
    assert np.mean(stopped.predict(X) == y) == 1.0  # the concept, without the noise
    # Every split it kept passed the test: the split with leaf children is shorter than a leaf.
    k = len(stopped.schema.classes)
    for node in iter_nodes(stopped):
        if isinstance(node, Split):
            kids_bits = sum(1 + leaf_bits(c.counts, k) for c in children(node))
            assert kids_bits < leaf_bits(node.counts, k)


def test_stopping_looks_one_split_ahead_pruning_sees_the_whole_subtree():
    # XOR: no single split shortens the message, so the stopping rule keeps one leaf; the
    # full tree's subtrees do, and MML post-pruning keeps them.
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 10, size=(400, 3))
    y = np.where((X[:, 0] > 5) ^ (X[:, 1] > 5), "b", "a")
    noisy = np.where(rng.random(400) < 0.1, np.where(y == "a", "b", "a"), y)
    assert isinstance(grow(X, noisy, accept=mml_stop()).root, Leaf)
    pruned = mml_prune(grow(X, noisy), X)
    assert n_leaves(pruned) >= 4 and np.mean(pruned.predict(X) == y) > 0.75


def test_mml_stop_cut_count_is_the_nodes():
    # A hook that wants context gets the node's rows: the cut count is the node's distinct
    # values minus one, as message_length counts it with the training rows.
    seen = []

    class Spy:
        wants_context = True

        def __call__(self, parent, routed, *, node, candidate):
            column = node.X[:, candidate.feature]
            seen.append((len(np.unique(column)) - 1, node.n_rows))
            return True

    data = load_temperature()
    grow(data, accept=Spy())
    assert seen == [(5, 6), (3, 4)]
    with pytest.raises(ParameterError, match="engine='fast'"):
        grow(data, accept=mml_stop(), engine="fast")


def test_mml_refuses_regression_trees():
    tree = grow([[1.0], [2.0], [3.0]], [1.0, 2.0, 5.0], task="regression")
    with pytest.raises(ParameterError, match="regression"):
        message_length(tree)
    with pytest.raises(ParameterError, match="regression"):
        mml_prune(tree)
    with pytest.raises(ParameterError, match="counts"):
        leaf_bits((1.0, -2.0))


def test_cart_subset_splits_are_charged_their_groupings():
    from puretree.datasets import load_buys_computer

    tree = cart(load_buys_computer())
    subsets = [n for n in iter_nodes(tree) if isinstance(n, Split) and n.test.kind == "subset"]
    assert subsets
    # A grouping of m categories is one of 2**(m-1) - 1: age (3 categories) costs log2 3.
    assert split_bits(1, 2 ** (3 - 1) - 1) == pytest.approx(math.log2(3))
    assert message_length(tree) > message_length(mml_prune(tree)) - 1e-9


def test_fractional_counts_of_distributed_missing_values():
    # Weka's vote data (tests/data): C4.5 sends rows with a missing vote down every branch,
    # so the leaves hold fractional counts, which lgamma gives a length.
    from pathlib import Path

    from puretree.data import read_csv

    data = read_csv(Path(__file__).parent / "data" / "vote.csv", target="Class")
    tree = c45(data)
    fractional = [n for n in iter_nodes(tree) if any(not float(c).is_integer() for c in n.counts)]
    assert fractional
    full, pruned = message_length(tree, data), message_length(mml_prune(tree, data), data)
    assert math.isfinite(full) and pruned <= full
    assert is_pruning_of(mml_prune(tree, data), tree)
    # Without the rows every threshold is charged at least as much: the bound never shortens.
    assert message_length(tree) >= full - 1e-9
