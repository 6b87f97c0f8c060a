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
from puretree.prune.mml import CODES, cut_bits, leaf_bits, message_length, mml_prune, mml_stop, split_bits, structure_bits
from puretree.nodes import Leaf, Split, children, with_children
from puretree.tree import Tree
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


# -- the Dirichlet concentration (alpha) and Wallace and Patrick's tree code ------------------

alphas = st.floats(0.01, 20.0, allow_nan=False, allow_infinity=False)


def adaptive_code_bits(counts, alpha):
    """The labels sent one by one, class by class, each with probability (n_i + alpha) / (n + k alpha)
    (n_i of its class and n in all sent before it): the code W&P's leaf length is the total of."""
    k, sent, seen, bits = len(counts), [0] * len(counts), 0, 0.0
    for i, c in enumerate(counts):
        for _ in range(c):
            bits -= math.log2((sent[i] + alpha) / (seen + k * alpha))
            sent[i] += 1
            seen += 1
    return bits


@given(st.lists(st.integers(0, 25), min_size=1, max_size=5), alphas)
def test_leaf_bits_with_alpha_is_the_adaptive_code(counts, alpha):
    assert leaf_bits(counts, alpha=alpha) == pytest.approx(adaptive_code_bits(counts, alpha), rel=1e-9, abs=1e-9)


@given(st.lists(st.integers(0, 30), min_size=1, max_size=5))
def test_alpha_one_is_the_issues_closed_formula(counts):
    # Exactly the default's computation, and log2((n+k-1)! / ((k-1)! n_1! ... n_k!)).
    assert leaf_bits(counts, alpha=1) == leaf_bits(counts)
    assert leaf_bits(counts, alpha=1.0) == pytest.approx(exact_leaf_bits(counts), abs=1e-9)


@given(st.integers(1, 40), st.integers(1, 25), alphas, alphas)
def test_a_pure_leaf_is_cheaper_under_a_smaller_alpha(n, k, a, b):
    # Each label after the first has probability (i + alpha) / (i + k alpha), which falls as alpha grows.
    lo, hi = sorted((a, b))
    pure = [n] + [0] * (k - 1)
    assert leaf_bits(pure, alpha=lo) <= leaf_bits(pure, alpha=hi) + 1e-9
    # The issue's soybean figure: 10 rows of one class among 19 cost 23.6 bits under alpha = 1.
    assert leaf_bits([10] + [0] * 18) == pytest.approx(math.log2(math.comb(28, 10)), abs=1e-9)


@given(class_counts(weighted=True), alphas)
def test_one_more_row_never_shortens_a_leaf_under_any_alpha(counts, alpha):
    bits = leaf_bits(counts, alpha=alpha)
    assert math.isfinite(bits) and bits >= 0
    for i in range(len(counts)):
        more = list(counts)
        more[i] += 1
        assert leaf_bits(more, alpha=alpha) >= bits - 1e-9


codes = st.sampled_from(CODES)


@settings(max_examples=60)
@given(trees(max_depth=3, max_nodes=9), alphas, codes)
def test_mml_prune_is_the_shortest_pruning_under_any_alpha_and_code(tree, alpha, code):
    pruned = mml_prune(tree, alpha=alpha, code=code)
    assert is_pruning_of(pruned, tree)
    length = message_length(pruned, alpha=alpha, code=code)
    best = min(message_length(Tree(r, tree.schema, tree.missing), alpha=alpha, code=code) for r in prunings(tree.root))
    assert length == pytest.approx(best, abs=1e-9)
    assert length <= message_length(tree, alpha=alpha, code=code) + 1e-9  # pruning never lengthens the message
    assert mml_prune(pruned, alpha=alpha, code=code) == pruned


def test_default_is_alpha_one_and_the_flat_code():
    tree = id3(load_playtennis())
    assert message_length(tree) == message_length(tree, alpha=1.0, code="flat")
    assert message_length(tree, alpha=0.5) != message_length(tree)


def test_worked_example_playtennis_wallace_patrick_code():
    tree = id3(load_playtennis())
    # Root: 1 bit. Below outlook (3 branches) a leaf costs log2(3/2), a split log2 3: overcast is
    # a leaf, sunny and rain split; below humidity and wind (2 branches) each leaf costs 1 bit.
    shape = 1 + math.log2(3 / 2) + 2 * math.log2(3) + 4 * 1
    names = 2 + 2 * math.log2(3)  # as in the flat code
    labels = math.log2(5) + 2 + math.log2(3) + math.log2(3) + 2
    assert message_length(tree, code="wallace-patrick") == pytest.approx(shape + names + labels, abs=1e-9)


def test_wallace_patrick_cuts_by_binary_chop():
    data = load_temperature()
    tree = id3(data)  # root: the 1st (from 0) of 5 cuts; right child: the 2nd of its 3 cuts
    # Five cuts: the median (index 2) at depth 1, indices 0 and 3 at depth 2, 1 and 4 at 3:
    # probabilities 1/2 + 2/8 + 2/32 = 13/16. Three cuts: 1/2 + 2/8 = 3/4.
    root_cut = 5 + math.log2(13 / 16)
    right_cut = 3 + math.log2(3 / 4)
    by_hand = 5 + root_cut + right_cut + math.log2(3) + 2 + 1  # binary: one bit per node
    assert message_length(tree, data, code="wallace-patrick") == pytest.approx(by_hand, abs=1e-9)
    # Without the rows the longest code of each node's bound is charged: never shorter.
    assert message_length(tree, code="wallace-patrick") >= by_hand - 1e-9


@given(st.integers(1, 300))
def test_the_cut_codes_are_complete(n):
    # Kraft: the n cuts' probabilities sum to one in both codes; the unknown cut is the longest.
    for code in CODES:
        bits = [cut_bits(i, n, code=code) for i in range(n)]
        assert sum(2.0 ** -b for b in bits) == pytest.approx(1.0, rel=1e-12)
        assert cut_bits(None, n, code=code) == pytest.approx(max(bits), abs=1e-12)


@given(st.integers(2, 50))
def test_the_shape_code_is_complete(a):
    # Below a split of a branches, leaf and split share the probability.
    p = 2.0 ** -structure_bits(True, a, code="wallace-patrick") + 2.0 ** -structure_bits(False, a, code="wallace-patrick")
    assert p == pytest.approx(1.0, rel=1e-12)
    assert structure_bits(True, a) == structure_bits(False, a) == 1.0


@pytest.mark.parametrize("alpha", [0, -1, float("nan"), float("inf"), True, "1"])
def test_bad_alpha_is_a_parameter_error(alpha):
    tree = id3(load_playtennis())
    for call in (lambda: leaf_bits((1, 2), alpha=alpha), lambda: message_length(tree, alpha=alpha),
                 lambda: mml_prune(tree, alpha=alpha), lambda: mml_stop(alpha=alpha)):
        with pytest.raises(ParameterError, match="alpha"):
            call()
    with pytest.raises(ParameterError, match="wallace-patrick"):
        message_length(tree, code="quinlan")


@pytest.mark.parametrize("alpha", [1.0, 0.3, 3.0])
def test_mml_stop_with_alpha(alpha):
    rng = np.random.default_rng(1)
    X = rng.uniform(0, 10, size=(400, 3))
    y = np.where((X[:, 0] > 5) & (X[:, 1] > 3), "b", "a")
    noisy = np.where(rng.random(400) < 0.1, np.where(y == "a", "b", "a"), y)
    stopped = grow(X, noisy, accept=mml_stop(alpha=alpha))
    assert is_pruning_of(stopped, grow(X, noisy))
    k = len(stopped.schema.classes)
    for node in iter_nodes(stopped):
        if isinstance(node, Split):
            assert sum(1 + leaf_bits(c.counts, k, alpha=alpha) for c in children(node)) < leaf_bits(node.counts, k, alpha=alpha)
    assert repr(mml_stop()) == "mml_stop()" and repr(mml_stop(alpha=0.5)) == "mml_stop(alpha=0.5)"


def test_many_classes_a_smaller_alpha_keeps_the_pure_small_leaves():
    # 19 classes, 5 rows each, told apart by one numeric feature: under alpha = 1 a pure 5-row
    # leaf costs log2 C(23, 5) = 15.1 bits and splitting two classes apart does not pay (two pure
    # leaves and the cut: 35.3 bits, against 31.6 for their mixed leaf); under alpha = 0.05 it does.
    X = np.repeat(np.arange(19.0), 5)[:, None]
    y = np.array([f"c{int(v):02d}" for v in X[:, 0]])
    full = grow(X, y)
    assert n_leaves(full) == 19
    assert n_leaves(mml_prune(full, X, alpha=0.05)) == 19
    assert n_leaves(mml_prune(full, X)) < 19
    assert message_length(mml_prune(full, X, alpha=0.05), X, alpha=0.05) < message_length(Tree(Leaf(full.root.counts), full.schema), X, alpha=0.05)


# -- the command line ---------------------------------------------------------------------------


@pytest.fixture
def saved_model(tmp_path):
    from puretree.cli import main

    rng = np.random.default_rng(11)
    X = np.round(rng.uniform(0, 10, size=(150, 2)), 2)
    y = np.where((X[:, 0] + X[:, 1] > 10) ^ (rng.random(150) < 0.2), "yes", "no")
    train = tmp_path / "train.csv"
    train.write_text("a,b,label\n" + "".join(f"{a},{b},{c}\n" for (a, b), c in zip(X, y)))
    model = tmp_path / "model.json"
    assert main(["fit", str(train), "--target", "label", "--algorithm", "cart", "-o", str(model)]) == 0
    return tmp_path, str(train), str(model)


def test_prune_mml_alpha_and_code_match_the_library(saved_model, capsys):
    from puretree.cli import main
    from puretree.data import read_csv
    from puretree.io import load, to_dict

    tmp, train, model = saved_model
    tree, data = load(model), read_csv(train, target="label")
    out = str(tmp / "mml.json")
    for extra, options in ((["--mml-alpha", "0.25"], {"alpha": 0.25}), (["--mml-code", "wallace-patrick"], {"code": "wallace-patrick"}),
                           (["--mml-alpha", "3", "--mml-code", "flat"], {"alpha": 3.0})):
        capsys.readouterr()
        assert main(["prune", model, "--method", "mml", "--data", train, *extra, "-o", out]) == 0
        pruned = mml_prune(tree, data, **options)
        assert to_dict(load(out)) == to_dict(pruned)
        assert f"-> {message_length(pruned, data, **options):.2f} bits" in capsys.readouterr().out


@pytest.mark.parametrize(
    "args, message",
    [
        (["--method", "mml", "--mml-alpha", "0"], "Dirichlet concentration > 0"),
        (["--method", "mml", "--mml-alpha", "nan"], "finite"),
        (["--method", "mml", "--mml-code", "qr"], "invalid choice"),
        (["--method", "penalty", "--mml-alpha", "0.5"], "--mml-alpha does not apply"),
        (["--method", "pessimistic", "--mml-code", "flat"], "--mml-code does not apply"),
    ],
)
def test_prune_mml_option_errors(saved_model, capsys, args, message):
    from puretree.cli import main

    tmp, train, model = saved_model
    capsys.readouterr()
    try:
        status = main(["prune", model, *args, "-o", str(tmp / "out.json")])
    except SystemExit as exit:  # argparse's own usage errors
        status = exit.code
    err = capsys.readouterr().err
    assert status != 0 and message in err, err
    assert not (tmp / "out.json").exists()


@given(st.integers(1, 5000), st.integers(0, 5000), st.integers(0, 5000))
def test_an_unknown_cut_is_charged_at_least_any_known_one(n, i, more):
    # Without the rows a threshold is charged the longest code among a bound on its cuts: never
    # less than the cut itself costs among the node's real candidates.
    for code in CODES:
        assert cut_bits(None, n + more, code=code) >= cut_bits(i % n, n, code=code) - 1e-12
