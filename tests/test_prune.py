"""Pruning methods: seeds' numbers, scikit-learn's path, brute-force references, properties."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from puretree.datasets import load_buys_computer, load_playtennis, load_temperature
from puretree.errors import ParameterError
from puretree.evaluate import accuracy, cross_validate
from puretree.fold import depth, iter_nodes, n_leaves, n_nodes
from puretree.grow import c45, cart, grow, id3
from puretree.io import to_dict
from puretree.nodes import CategoricalSplit, Feature, Leaf, NumericSplit, Schema, children
from puretree.tree import Tree
from puretree.prune import (
    c45_added_errors,
    chi_square_sf,
    chi_square_test,
    choose_alpha,
    collapse,
    cost_complexity,
    cost_complexity_path,
    is_pruning_of,
    penalty,
    penalty_error,
    pessimistic,
    pessimistic_errors,
    reduced_error,
    simplify,
    tree_penalty_error,
)

# -- helpers -------------------------------------------------------------------------------


def chain_tree(leaf_counts: list[tuple[float, float]]) -> Tree:
    """A right-leaning chain of threshold splits on x whose leaves have the given counts."""
    schema = Schema((Feature("x"),), ("a", "b"))
    node = Leaf(leaf_counts[-1])
    for i in range(len(leaf_counts) - 2, -1, -1):
        left = Leaf(leaf_counts[i])
        total = tuple(a + b for a, b in zip(left.counts, node.counts))
        node = NumericSplit(0, float(i) + 0.5, left, node, total)
    return Tree(node, schema)


def val_accuracy(tree: Tree, X, y) -> float:
    return accuracy(list(y), tree.predict(X).tolist())


small_data = st.integers(min_value=0, max_value=2**31 - 1).map(
    lambda seed: _random_data(np.random.default_rng(seed))
)


def _random_data(rng: np.random.Generator):
    n = int(rng.integers(12, 40))
    X = rng.integers(0, 5, size=(n, 3)).astype(float)
    noise = rng.random(n) < 0.25
    y = np.where((X[:, 0] + X[:, 1] > 4) ^ noise, "p", "n")
    Xv = rng.integers(0, 5, size=(15, 3)).astype(float)
    yv = np.where((Xv[:, 0] + Xv[:, 1] > 4) ^ (rng.random(15) < 0.25), "p", "n")
    return X, y, Xv, yv


def grown(X, y):
    return cart(X, y) if len(set(y.tolist())) > 1 else cart(np.vstack([X, X[:1]]), np.append(y, "p" if y[0] == "n" else "n"))


# -- collapse and is_pruning_of -------------------------------------------------------------


def test_collapse_replaces_nodes_by_leaves_of_their_counts_and_keeps_the_input():
    tree = id3(load_playtennis())
    before = to_dict(tree)
    pruned = collapse(tree, [0])
    assert pruned.root == Leaf(tree.root.counts)
    assert to_dict(tree) == before
    assert collapse(tree, []) is tree
    with pytest.raises(ParameterError, match="node id 99"):
        collapse(tree, [99])


def test_is_pruning_of_rejects_changed_tests_and_counts():
    tree = id3(load_playtennis())
    assert is_pruning_of(tree, tree)
    other = Tree(Leaf((1, 1)), tree.schema)
    assert not is_pruning_of(other, tree)
    schema = Schema((Feature("x"),), ("a", "b"))
    a = Tree(NumericSplit(0, 1.0, Leaf((1, 0)), Leaf((0, 1)), (1, 1)), schema)
    b = Tree(NumericSplit(0, 2.0, Leaf((1, 0)), Leaf((0, 1)), (1, 1)), schema)
    assert not is_pruning_of(a, b)
    assert is_pruning_of(Tree(Leaf((1, 1)), schema), b)


# -- simplify -------------------------------------------------------------------------------


def test_simplify_collapses_same_class_chains_bottom_up():
    tree = chain_tree([(0, 5), (3, 0), (2, 1), (4, 0)])
    out = simplify(tree)
    # The last three leaves all predict "a": the lowest split collapses, then the one above it.
    assert n_leaves(out) == 2
    assert out.root.left == Leaf((0, 5))
    assert out.root.right == Leaf((9, 1))


def test_simplify_treats_an_empty_branch_as_its_parent_class():
    schema = Schema((Feature("c", "categorical", ("u", "v", "w")),), ("a", "b"))
    tree = Tree(CategoricalSplit(0, (Leaf((3, 1)), Leaf((0, 0)), Leaf((2, 0))), (5, 1)), schema)
    assert simplify(tree).root == Leaf((5, 1))


@given(small_data)
def test_simplify_never_changes_a_prediction(data):
    X, y, Xv, _ = data
    tree = grown(X, y)
    out = simplify(tree)
    assert is_pruning_of(out, tree)
    assert out.predict(Xv).tolist() == tree.predict(Xv).tolist()
    assert out.predict(X).tolist() == tree.predict(X).tolist()


# -- reduced-error pruning ------------------------------------------------------------------


def reference_reduced_error(tree: Tree, X, y) -> Tree:
    """The seeds' procedure, literally: try every removal with the real predict, keep the best."""
    current = tree
    while True:
        acc = val_accuracy(current, X, y)
        options = []
        for i, node in enumerate(iter_nodes(current)):
            if children(node):
                candidate = collapse(current, [i])
                removed = n_leaves(current) - n_leaves(candidate)
                options.append((val_accuracy(candidate, X, y), removed, -i, candidate))
        good = [o for o in options if o[0] >= acc - 1e-12]
        if not good:
            return current
        best = max(good, key=lambda o: (round(o[0], 12), o[1], o[2]))
        current = best[3]


@given(small_data)
def test_reduced_error_is_the_seeds_greedy_procedure(data):
    X, y, Xv, yv = data
    tree = grown(X, y)
    got = reduced_error(tree, Xv, yv)
    want = reference_reduced_error(tree, Xv, yv)
    assert to_dict(got) == to_dict(want)


@given(small_data)
def test_reduced_error_never_lowers_validation_accuracy_and_stops_at_a_local_best(data):
    X, y, Xv, yv = data
    tree = grown(X, y)
    out = reduced_error(tree, Xv, yv)
    assert is_pruning_of(out, tree)
    assert n_leaves(out) <= n_leaves(tree)
    acc = val_accuracy(out, Xv, yv)
    assert acc >= val_accuracy(tree, Xv, yv)
    # Stopping rule: every further removal would lower validation accuracy.
    for i, node in enumerate(iter_nodes(out)):
        if children(node):
            assert val_accuracy(collapse(out, [i]), Xv, yv) < acc


def test_reduced_error_leaf_is_the_training_majority_and_ties_prefer_the_larger_removal():
    tree = cart(load_temperature())
    # No validation row reaches anything: every removal ties at "no worse", and removing the
    # root (most leaves) comes first, leaving the training majority (3 no / 3 yes: first class).
    out = reduced_error(tree, [{"temperature": 1000.0}], ["no"])
    assert out.root == Leaf(tree.root.counts)
    assert out.predict([[1000.0]]).tolist() == ["no"]


def test_reduced_error_accepts_a_dataset_and_unknown_labels():
    data = load_playtennis()
    tree = id3(data)
    assert to_dict(reduced_error(tree, data)) == to_dict(tree)  # the training data itself: keep all
    # A label the tree never saw is always wrong; the pruning must still run.
    out = reduced_error(tree, [dict(outlook="sunny", temperature="hot", humidity="high", wind="weak")], ["maybe"])
    assert out.root == Leaf(tree.root.counts)


# -- pessimistic pruning --------------------------------------------------------------------


def test_c45_added_errors_matches_quinlans_formulas():
    # Zero errors: the exact binomial limit 1 - cf ** (1 / n).
    assert c45_added_errors(6, 0) == pytest.approx(6 * (1 - 0.25 ** (1 / 6)), rel=1e-12)
    assert c45_added_errors(1, 0, cf=0.1) == pytest.approx(0.9, rel=1e-12)
    # Above one error: the normal approximation with continuity correction, z = Phi^-1(0.75).
    from scipy.stats import norm

    z = norm.ppf(0.75)
    n, e = 16, 1
    upper = (e + 0.5 + z * z / 2 + z * math.sqrt((e + 0.5) * (1 - (e + 0.5) / n) + z * z / 4)) / (n + z * z)
    assert c45_added_errors(n, e) == pytest.approx(n * upper - e, rel=1e-12)
    # Quinlan's book gives U25%(1, 16) = 0.157 from the exact binomial; the approximation is close.
    assert (1 + c45_added_errors(16, 1)) / 16 == pytest.approx(0.157, abs=0.005)
    assert c45_added_errors(0, 0) == 0.0
    # Fewer errors, more confidence: smaller estimates.
    assert c45_added_errors(20, 2, cf=0.1) > c45_added_errors(20, 2, cf=0.25) > c45_added_errors(20, 2, cf=0.5)


def test_pessimistic_prunes_quinlans_example():
    # C4.5 (Quinlan 1993, ch. 4): three pure leaves of 6, 9 and 1 cases under a node of 16
    # cases with 1 error. Subtree: 6*U(0,6) + 9*U(0,9) + 1*U(0,1) = 3.27 > leaf 16*U(1,16) ~ 2.5.
    schema = Schema((Feature("c", "categorical", ("u", "v", "w")),), ("d", "r"))
    tree = Tree(CategoricalSplit(0, (Leaf((6, 0)), Leaf((9, 0)), Leaf((0, 1))), (15, 1)), schema)
    subtree = sum(pessimistic_errors(c.counts) for c in tree.root.children)
    assert subtree == pytest.approx(3.273, abs=1e-3)
    assert pessimistic_errors(tree.root.counts) < subtree
    assert pessimistic(tree).root == Leaf((15, 1))
    # At a high confidence level the leaf estimate is no longer better: the split stays.
    assert pessimistic(tree, cf=0.9) == tree


def test_pessimistic_rejects_cf_outside_the_open_interval():
    tree = id3(load_playtennis())
    for cf in (0, 1, -0.1, 1.5, float("nan"), True):
        with pytest.raises(ParameterError, match="cf"):
            pessimistic(tree, cf=cf)


@given(small_data, st.sampled_from([0.05, 0.25, 0.5]))
def test_pessimistic_is_a_pruning_and_smaller_cf_prunes_more(data, cf):
    X, y, _, _ = data
    tree = grown(X, y)
    out = pessimistic(tree, cf=cf)
    assert is_pruning_of(out, tree)
    assert n_leaves(out) <= n_leaves(tree)
    assert n_leaves(pessimistic(tree, cf=cf / 2)) <= n_leaves(out)


# -- penalty per leaf -----------------------------------------------------------------------

# Seed 004: T_L has 7 leaves and 4 training errors, T_R 4 leaves and 6 errors, N = 24 each.
T_L = chain_tree([(3, 1), (0, 3), (3, 1), (0, 3), (3, 1), (0, 3), (2, 1)])
T_R = chain_tree([(5, 1), (1, 5), (4, 2), (2, 4)])


def test_the_seeds_penalty_example():
    assert (n_leaves(T_L), sum(T_L.root.counts), n_leaves(T_R), sum(T_R.root.counts)) == (7, 24, 4, 24)
    assert tree_penalty_error(T_L, penalty=0.5) == pytest.approx(0.3125, abs=1e-4)
    assert tree_penalty_error(T_R, penalty=0.5) == pytest.approx(0.3333, abs=1e-4)
    assert tree_penalty_error(T_L, penalty=1.0) == pytest.approx(0.458, abs=1e-3)
    assert tree_penalty_error(T_R, penalty=1.0) == pytest.approx(0.417, abs=1e-3)
    assert penalty_error(4, 7, 24, penalty=0.5) == pytest.approx(7.5 / 24)
    assert penalty_error(6, 4, 24, penalty=1.0) == pytest.approx(10 / 24)
    with pytest.raises(ParameterError):
        penalty_error(1, 1, 0)
    with pytest.raises(ParameterError):
        penalty_error(1, 1, 10, penalty=-1)


def test_penalty_half_keeps_a_split_that_fixes_one_error_and_one_does_not():
    # Seed 004: with 0.5 a binary split is worth one training error; with 1 it must fix more.
    fixes_one = chain_tree([(2, 0), (1, 1)])  # as a leaf (3, 1): 1 error; split: 1 error... no gain
    assert penalty(fixes_one, per_leaf=0.5).root == Leaf((3, 1))
    fixes_one = chain_tree([(2, 0), (0, 1)])  # leaf: 1 error; split: 0 errors
    assert penalty(fixes_one, per_leaf=0.5) == fixes_one
    assert penalty(fixes_one, per_leaf=1.0).root == Leaf((2, 1))


def all_prunings(tree: Tree):
    internal = [i for i, n in enumerate(iter_nodes(tree)) if children(n)]
    for r in range(len(internal) + 1):
        for subset in itertools.combinations(internal, r):
            yield collapse(tree, subset)


@given(small_data, st.sampled_from([0.0, 0.5, 1.0, 2.0]))
def test_penalty_pruning_reaches_the_lowest_penalised_error(data, zeta):
    X, y, _, _ = data
    tree = cart(X[:14], y[:14]) if len(set(y[:14].tolist())) > 1 else grown(X, y)
    out = penalty(tree, per_leaf=zeta)
    assert is_pruning_of(out, tree)
    best = tree_penalty_error(out, penalty=zeta)
    internal = sum(1 for n in iter_nodes(tree) if children(n))
    if internal <= 10:  # brute force over every pruning
        assert best <= min(tree_penalty_error(p, penalty=zeta) for p in all_prunings(tree)) + 1e-12


# -- cost-complexity ------------------------------------------------------------------------


def from_sklearn_arrays(model, feature_names) -> Tree:
    """Convert a fitted scikit-learn classifier's tree_ arrays into puretree nodes (test helper)."""
    t = model.tree_
    counts = t.value[:, 0, :] * t.weighted_n_node_samples[:, None]

    def build(i: int):  # iterative post-order would be needed for deep trees; these are small
        if t.children_left[i] < 0:
            return Leaf(counts[i])
        return NumericSplit(int(t.feature[i]), float(t.threshold[i]), build(t.children_left[i]), build(t.children_right[i]), counts[i])

    classes = tuple(model.classes_.tolist())
    return Tree(build(0), Schema(tuple(Feature(n) for n in feature_names), classes))


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_cost_complexity_path_equals_scikit_learn_on_a_converted_tree(seed):
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(200, 4))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] + rng.normal(scale=0.8, size=200) > 0, "p", "n")
    y[rng.random(200) < 0.1] = "m"
    weights = rng.uniform(0.5, 2.0, size=200) if seed % 2 else None
    model = DecisionTreeClassifier(random_state=seed).fit(X, y, sample_weight=weights)
    sk = model.cost_complexity_pruning_path(X, y, sample_weight=weights)
    tree = from_sklearn_arrays(model, ["a", "b", "c", "d"])
    path = cost_complexity_path(tree)
    np.testing.assert_allclose(path.ccp_alphas, sk.ccp_alphas, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(path.impurities, sk.impurities, rtol=1e-9, atol=1e-15)
    # Pruning at an alpha between two steps leaves as many leaves as scikit-learn's ccp_alpha.
    for a in np.unique(sk.ccp_alphas[sk.ccp_alphas > 1e-9])[:-1:3]:
        mid = float(a) * (1 + 1e-7)
        pruned_sk = DecisionTreeClassifier(random_state=seed, ccp_alpha=mid).fit(X, y, sample_weight=weights)
        assert n_leaves(cost_complexity(tree, mid)) == pruned_sk.get_n_leaves()


def test_cost_complexity_path_equals_scikit_learn_on_a_tree_both_grow():
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(7)
    # Distinct values on a 1/64 grid are exact in float32 (scikit-learn's feature type), so
    # both libraries see the same midpoints; with one feature both break equal-score
    # thresholds the same way (the lowest wins).
    X = rng.permutation(np.arange(300))[:, None] / 64.0
    y = np.where(X[:, 0] + rng.normal(scale=1.0, size=300) > 2.3, "p", "n")
    ours = cart(X, y)
    model = DecisionTreeClassifier(random_state=0).fit(X, y)
    theirs = from_sklearn_arrays(model, ["x0"])
    assert n_nodes(ours) == model.tree_.node_count > 50
    for a, b in zip(iter_nodes(ours), iter_nodes(theirs)):
        assert type(a) is type(b)
        assert a.counts == pytest.approx(b.counts, rel=1e-12)
        if children(a):
            assert (a.feature, a.threshold) == (b.feature, b.threshold)
    sk = model.cost_complexity_pruning_path(X, y)
    path = cost_complexity_path(ours)
    np.testing.assert_allclose(path.ccp_alphas, sk.ccp_alphas, rtol=1e-9, atol=1e-15)
    np.testing.assert_allclose(path.impurities, sk.impurities, rtol=1e-9, atol=1e-15)


def test_cost_complexity_path_ends_at_the_root_and_rejects_negative_alpha():
    tree = cart(load_buys_computer())
    path = cost_complexity_path(tree)
    assert path.n_leaves[0] == n_leaves(tree) and path.n_leaves[-1] == 1
    assert np.all(np.diff(path.ccp_alphas) >= -1e-15)
    assert cost_complexity(tree, 0.0) == tree
    assert cost_complexity(tree, float(path.ccp_alphas[-1])).root == Leaf(tree.root.counts)
    for bad in (-0.1, float("nan"), "1"):
        with pytest.raises(ParameterError, match="alpha"):
            cost_complexity(tree, bad)


@given(small_data, st.floats(0, 0.2), st.floats(0, 0.2))
def test_larger_alpha_never_gives_a_larger_tree(data, a, b):
    X, y, _, _ = data
    tree = grown(X, y)
    small, large = sorted((a, b))
    t_small, t_large = cost_complexity(tree, small), cost_complexity(tree, large)
    assert n_leaves(t_large) <= n_leaves(t_small) <= n_leaves(tree)
    assert is_pruning_of(t_large, t_small) and is_pruning_of(t_small, tree)


def test_choose_alpha_reports_the_cross_validated_accuracy_of_its_choice():
    rng = np.random.default_rng(3)
    X = rng.integers(0, 6, size=(80, 3)).astype(float)
    y = np.where((X[:, 0] > 2) ^ (rng.random(80) < 0.2), "p", "n")
    from puretree.data import from_numpy

    data = from_numpy(X, y)
    choice = choose_alpha(data, k=4, seed=5)
    best = int(np.flatnonzero(choice.alphas == choice.best_alpha)[0])
    assert choice.mean_accuracy[best] == pytest.approx(choice.mean_accuracy.max())
    # The larger alpha wins ties: no later candidate is as good.
    assert all(choice.mean_accuracy[j] < choice.mean_accuracy[best] for j in range(best + 1, len(choice.alphas)))
    again = cross_validate(lambda d: cost_complexity(cart(d), choice.best_alpha), data, k=4, seed=5)
    assert again.mean == pytest.approx(choice.mean_accuracy[best])
    assert to_dict(choice.tree) == to_dict(cost_complexity(cart(data), choice.best_alpha))
    assert n_leaves(choice.tree) < n_leaves(cart(data))


def test_choose_alpha_on_a_regression_tree_scores_minus_the_cross_validated_mse():
    from puretree.data import from_numpy
    from puretree.evaluate import stratified_folds

    rng = np.random.default_rng(4)
    X = rng.normal(size=(90, 2))
    y = np.where(X[:, 0] > 0, 5.0, -5.0) + rng.normal(size=90)
    data = from_numpy(X, y, task="regression")
    choice = choose_alpha(data, k=3, seed=1)
    best = int(np.flatnonzero(choice.alphas == choice.best_alpha)[0])
    # Recompute the chosen alpha's score by hand: plain folds, minus the mean squared error.
    errors = []
    for train, test in stratified_folds(np.zeros(90), k=3, seed=1):
        pruned = cost_complexity(cart(data.subset(train)), choice.best_alpha)
        errors.append(float(np.mean((pruned.predict(data.subset(test)) - y[test]) ** 2)))
    assert choice.mean_accuracy[best] == pytest.approx(-np.mean(errors))
    assert choice.mean_accuracy[best] == pytest.approx(choice.mean_accuracy.max())
    # The noise is not worth leaves: the chosen tree is far smaller than the full one.
    assert n_leaves(choice.tree) < n_leaves(cart(data)) / 4


# -- chi-square pre-pruning -----------------------------------------------------------------


def test_chi_square_sf_matches_scipy():
    from scipy.stats import chi2

    for df in (1, 2, 3, 7, 30):
        for x in (0.0, 0.01, 0.5, 1.0, 3.84, 10.0, 45.0, 200.0):
            assert chi_square_sf(x, df) == pytest.approx(chi2.sf(x, df), rel=1e-9, abs=1e-300)


@given(st.lists(st.lists(st.integers(0, 12), min_size=2, max_size=3), min_size=2, max_size=4), st.sampled_from([0.01, 0.05, 0.2]))
def test_chi_square_test_agrees_with_scipy_contingency(table, alpha):
    from scipy.stats import chi2_contingency

    width = min(len(r) for r in table)
    t = np.array([r[:width] for r in table], dtype=float)
    kept = t[t.sum(axis=1) > 0][:, t.sum(axis=0) > 0]
    accept = chi_square_test(alpha)(t.sum(axis=0), t)
    if kept.shape[0] < 2 or kept.shape[1] < 2:
        assert accept is False
    else:
        p = chi2_contingency(kept, correction=False).pvalue
        if abs(p - alpha) > 1e-9:
            assert accept == (p < alpha)


def test_chi_square_pre_pruning_stops_growth_on_playtennis():
    data = load_playtennis()
    # outlook's split of (9 yes, 5 no) is not significant at 5% (p ~ 0.17): ID3 stops at the root.
    stopped = id3(data, accept=chi_square_test(0.05))
    assert stopped.root == Leaf(id3(data).root.counts)
    # At level 1 every split that separates classes passes: the full tree.
    assert to_dict(id3(data, accept=chi_square_test(1.0))) == to_dict(id3(data))
    separable = grow(np.arange(40.0)[:, None], ["a"] * 20 + ["b"] * 20, accept=chi_square_test(0.001))
    assert n_leaves(separable) == 2
    with pytest.raises(ParameterError):
        chi_square_test(0)
    assert repr(chi_square_test(0.05)) == "chi_square_test(alpha=0.05)"


# -- classification only; nothing mutated ---------------------------------------------------


def test_methods_refuse_regression_trees_where_they_need_classes():
    reg = grow(np.arange(10.0)[:, None], np.arange(10.0), score="variance", task="regression")
    for method in (simplify, pessimistic, penalty):
        with pytest.raises(ParameterError, match="classification"):
            method(reg)
    assert n_leaves(cost_complexity(reg, 1e9)) == 1  # cost-complexity works on variance too


def test_no_method_modifies_its_input():
    data = load_buys_computer()
    tree = c45(data)
    before = to_dict(tree)
    simplify(tree), pessimistic(tree), penalty(tree), cost_complexity(tree, 0.05), reduced_error(tree, data)
    assert to_dict(tree) == before


# -- depth ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def deep():
    X = np.arange(5000.0)[:, None]
    y = np.arange(5000) % 2
    return cart(X, y), X, y


def test_every_method_works_on_a_tree_thousands_of_levels_deep(deep):
    tree, X, y = deep
    assert depth(tree) == 4999
    shifted = (np.arange(5000) // 2) % 2  # a validation labelling half of which disagrees
    results = {
        "simplify": simplify(tree),
        "reduced_error": reduced_error(tree, X, shifted),
        "pessimistic": pessimistic(tree),
        "penalty": penalty(tree, per_leaf=1.0),
        "cost_complexity": cost_complexity(tree, 0.01),
    }
    assert n_leaves(results["simplify"]) == n_leaves(tree)  # alternating labels: nothing to merge
    assert n_leaves(results["penalty"]) == 1  # each split fixes exactly one error: not worth 1
    assert val_accuracy(results["reduced_error"], X, shifted) >= val_accuracy(tree, X, shifted)
    for out in results.values():
        assert is_pruning_of(out, tree)
    path = cost_complexity_path(tree)
    assert path.n_leaves[0] == 5000 and path.n_leaves[-1] == 1


# -- cost-complexity with the tree's own impurity ---------------------------------------------


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("loader", ["load_iris", "load_wine", "load_breast_cancer"])
def test_cost_complexity_path_equals_scikit_learns_for_its_criterion(loader, criterion):
    import sklearn.datasets
    from sklearn.tree import DecisionTreeClassifier

    from puretree.impurity import entropy, gini
    from puretree.sklearn import from_sklearn

    X, y = getattr(sklearn.datasets, loader)(return_X_y=True)
    clf = DecisionTreeClassifier(criterion=criterion, random_state=0).fit(X, y)
    reference = clf.cost_complexity_pruning_path(X, y)
    path = cost_complexity_path(from_sklearn(clf), impurity={"gini": gini, "entropy": entropy}[criterion])
    assert len(path.ccp_alphas) == len(reference.ccp_alphas)
    np.testing.assert_allclose(path.ccp_alphas, reference.ccp_alphas, rtol=1e-9, atol=0)
    np.testing.assert_allclose(path.impurities, reference.impurities, rtol=1e-9, atol=1e-15)


def test_cli_cost_complexity_takes_the_impurity(tmp_path):
    from puretree.cli import main
    from puretree.impurity import entropy
    from puretree.io import load, save

    data = load_buys_computer()
    tree = id3(data)
    save(tree, tmp_path / "m.json")
    path = cost_complexity_path(tree, impurity=entropy)
    alpha = float(path.ccp_alphas[1])
    assert main(["prune", str(tmp_path / "m.json"), "--method", "cost-complexity", "--alpha", repr(alpha), "--impurity", "entropy", "-o", str(tmp_path / "p.json")]) == 0
    assert load(tmp_path / "p.json") == cost_complexity(tree, alpha, impurity=entropy)
    assert main(["prune", str(tmp_path / "m.json"), "--method", "penalty", "--impurity", "entropy", "-o", str(tmp_path / "q.json")]) == 1


def test_cost_complexity_path_of_huge_counts_stays_finite():
    # A model from a file may hold counts near 1e200: Gini's squares overflow there, and the
    # path falls back to the proportions (no NaN impurity, no overflow warning).
    import warnings

    from puretree.prune import cost_complexity_path

    schema = Schema((Feature("x"),), ("a", "b"))
    tree = Tree(NumericSplit(0, 0.5, Leaf((1e200, 1e199)), Leaf((0.0, 1e200)), (1e200, 1.1e200)), schema, criterion="gini")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = cost_complexity_path(tree)
    assert np.isfinite(path.impurities).all() and np.isfinite(path.ccp_alphas).all()
    w = 2.1e200
    assert path.impurities[-1] == pytest.approx(1 - (1e200 / w) ** 2 - (1.1e200 / w) ** 2, rel=1e-12)
