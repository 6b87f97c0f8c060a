"""Cross-validated control of a tree's size: CART's 1-SE pruning, alpha by k-fold CV, depth by CV;
and the prune command's mml, cv and cost-complexity --data methods."""

from __future__ import annotations

import csv

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puretree.cli import main
from puretree.prune.complexity import cost_complexity, cost_complexity_path, cv_depth, cv_prune
from puretree.data import read_csv
from puretree.errors import DataError, ParameterError
from puretree.evaluate import stratified_folds
from puretree.fold import depth, n_leaves
from puretree.grow import cart, grow, id3
from puretree.io import load, to_dict
from puretree.prune.mml import mml_prune
from puretree.prune import is_pruning_of


def noisy_data(n, seed):
    rng = np.random.default_rng(seed)
    X = np.round(rng.uniform(0, 10, size=(n, 2)), 2)
    y = np.where((X[:, 0] + X[:, 1] > 10) ^ (rng.random(n) < 0.2), "yes", "no")
    return X, y


def literal_cv_errors(tree, X, y, fit, k, seed):
    """CART's R^cv per subtree, written out: every fold's tree pruned at each representative alpha."""
    path = cost_complexity_path(tree)
    edges = np.unique(path.ccp_alphas)
    reps = [float(np.sqrt(a * b)) for a, b in zip(edges[:-1], edges[1:])] + [float(edges[-1])]
    wrong = np.zeros(len(reps))
    for train, test in stratified_folds(y, k=k, seed=seed):
        t = fit(X[train], y[train])
        for j, a in enumerate(reps):
            wrong[j] += int(np.sum(cost_complexity(t, a).predict(X[test]) != y[test]))
    return reps, wrong / len(y)


def test_cv_prune_scores_each_subtree_as_cart_does():
    X, y = noisy_data(200, 3)
    tree = cart(X, y)
    out = cv_prune(tree, X, y, k=5)
    reps, errors = literal_cv_errors(tree, X, y, cart, 5, 0)
    assert out.alphas.tolist() == pytest.approx(reps)
    assert out.cv_error.tolist() == pytest.approx(errors.tolist())
    assert out.std_error.tolist() == pytest.approx(np.sqrt(errors * (1 - errors) / len(y)).tolist())
    # The least error, ties to the smaller tree; then the smallest within one SE of it.
    assert out.best == max(j for j in range(len(errors)) if errors[j] <= errors.min() + 1e-12)
    assert out.chosen == max(j for j in range(len(errors)) if errors[j] <= errors[out.best] + out.std_error[out.best] + 1e-12)
    assert out.chosen >= out.best and out.leaves[out.chosen] <= out.leaves[out.best]
    assert to_dict(out.tree) == to_dict(cost_complexity(tree, out.alpha))
    assert is_pruning_of(out.tree, tree) and n_leaves(out.tree) < n_leaves(tree)
    # se=0: the least error itself.
    zero = cv_prune(tree, X, y, k=5, se=0)
    assert zero.chosen == zero.best == out.best


def test_cv_prune_refuses_what_it_cannot_use():
    X, y = noisy_data(40, 1)
    tree = cart(X, y)
    with pytest.raises(DataError, match="'maybe'"):
        cv_prune(tree, X, np.where(np.arange(40) == 7, "maybe", y))
    with pytest.raises(ParameterError, match="se"):
        cv_prune(tree, X, y, se=-1)
    with pytest.raises(ParameterError, match="regression"):
        cv_prune(grow(X, X[:, 0], task="regression"), X, X[:, 0])


def test_cv_depth_stops_when_cv_accuracy_worsens():
    X, y = noisy_data(300, 5)
    out = cv_depth(X, y, k=5)
    scores = list(out.mean_accuracy)
    assert out.depths == tuple(range(len(scores))) and out.depth == out.depths[-1]
    # Never a drop among the depths kept; the next depth (if any was tried past them) was worse
    # or added nothing.
    assert all(b >= a - 1e-12 for a, b in zip(scores, scores[1:]))
    assert depth(out.tree) <= out.depth and depth(out.tree) < depth(cart(X, y))
    nxt = out.depth + 1
    folds = list(stratified_folds(y, k=5, seed=0))
    trees = [cart(X[tr], y[tr], max_depth=nxt) for tr, _ in folds]
    if any(depth(t) >= nxt for t in trees):
        deeper = np.mean([np.mean(t.predict(X[te]) == y[te]) for t, (_, te) in zip(trees, folds)])
        assert deeper < scores[-1]
    assert to_dict(out.tree) == to_dict(cart(X, y, max_depth=out.depth))


def test_cv_depth_on_pure_data_grows_until_nothing_is_added():
    X = np.arange(40, dtype=float)[:, None]
    y = np.where(X[:, 0] < 20, "a", "b")
    out = cv_depth(X, y, k=4, fit=id3)
    assert out.depth == 1 and n_leaves(out.tree) == 2


# -- the command line ---------------------------------------------------------------------


def write_csv(file, X, y):
    with open(file, "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["a", "b", "label"])
        w.writerows([[a, b, c] for (a, b), c in zip(X.tolist(), y.tolist())])
    return str(file)


@pytest.fixture
def saved(tmp_path):
    X, y = noisy_data(150, 11)
    train = write_csv(tmp_path / "train.csv", X, y)
    model = str(tmp_path / "model.json")
    assert main(["fit", train, "--target", "label", "--algorithm", "cart", "-o", model]) == 0
    return tmp_path, train, model


def run(args, capsys):
    capsys.readouterr()
    status = main(args)
    return status, capsys.readouterr()


def test_prune_cv_and_cost_complexity_with_data_match_the_library(saved, capsys):
    tmp, train, model = saved
    tree = load(model)
    data = read_csv(train, target="label")
    for method, se in (("cv", 1.0), ("cost-complexity", 0.0)):
        out_file = str(tmp / f"{method}.json")
        status, captured = run(["prune", model, "--method", method, "--data", train, "--folds", "5", "-o", out_file], capsys)
        assert status == 0, captured.err
        want = cv_prune(tree, data, fit=cart, k=5, se=se)
        assert to_dict(load(out_file)) == to_dict(want.tree)
        assert "5-fold cross-validation" in captured.out and f"alpha {want.alpha:.6g}" in captured.out
    # --algorithm and --seed reach the folds.
    out_file = str(tmp / "cv-id3.json")
    status, _ = run(["prune", model, "--method", "cv", "--data", train, "--algorithm", "id3", "--seed", "3", "-o", out_file], capsys)
    assert status == 0
    assert to_dict(load(out_file)) == to_dict(cv_prune(tree, data, fit=id3, k=10, seed=3).tree)


def test_prune_mml_matches_the_library(saved, capsys):
    tmp, train, model = saved
    tree = load(model)
    out_file = str(tmp / "mml.json")
    status, captured = run(["prune", model, "--method", "mml", "--data", train, "-o", out_file], capsys)
    assert status == 0
    assert to_dict(load(out_file)) == to_dict(mml_prune(tree, read_csv(train, target="label")))
    assert "message length:" in captured.out
    status, captured = run(["prune", model, "--method", "mml", "-o", out_file], capsys)
    assert status == 0 and "no --data" in captured.out
    assert to_dict(load(out_file)) == to_dict(mml_prune(tree))


@pytest.mark.parametrize(
    "args, message",
    [
        (["--method", "cv"], "needs --data"),
        (["--method", "cv", "--data", "TRAIN", "--folds", "1"], "folds"),
        (["--method", "cv", "--data", "TRAIN", "--folds", "500"], "more than the 150 rows"),
        (["--method", "mml", "--folds", "3"], "--folds applies only"),
        (["--method", "cost-complexity", "--alpha", "0.1", "--seed", "2"], "--seed applies only"),
        (["--method", "cost-complexity", "--data", "TRAIN", "--validation", "TRAIN"], "give one of them"),
        (["--method", "penalty", "--data", "TRAIN"], "does not apply"),
        (["--method", "cv", "--data", "BADLABEL", "--folds", "2"], "'maybe'"),
    ],
)
def test_cv_and_mml_usage_errors(saved, capsys, args, message):
    tmp, train, model = saved
    bad = tmp / "bad.csv"
    bad.write_text("a,b,label\n1,2,yes\n3,4,maybe\n")
    names = {"TRAIN": train, "BADLABEL": str(bad)}
    status, captured = run(["prune", model, *[names.get(a, a) for a in args], "-o", str(tmp / "out.json")], capsys)
    assert status != 0
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("puretree: error:") and message in lines[0], captured.err
    assert not (tmp / "out.json").exists()


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(12, 40), st.sampled_from([0.0, 0.5, 1.0, 2.0]))
def test_cv_prune_invariants(seed, n, se):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, 2)).astype(float)
    y = np.where((X[:, 0] > 2) ^ (rng.random(n) < 0.25), "p", "q")
    y[:3] = ["p", "q", "p"]
    tree = cart(X, y)
    out = cv_prune(tree, X, y, k=3, se=se)
    # The sequence shrinks as alpha grows, ending at the root; the choice is a pruning of the
    # tree, never larger than the least-error subtree, and within se standard errors of it.
    assert np.all(np.diff(out.alphas) > 0) and np.all(np.diff(out.leaves) <= 0) and out.leaves[-1] == 1
    assert is_pruning_of(out.tree, tree) and n_leaves(out.tree) == out.leaves[out.chosen]
    assert out.leaves[out.chosen] <= out.leaves[out.best]
    assert out.cv_error[out.chosen] <= out.cv_error[out.best] + se * out.std_error[out.best] + 1e-12
    assert out.cv_error[out.best] == out.cv_error.min()


# -- one routine for choose_alpha and cv_prune; every alpha's subtree in one pass -------------


def mixed_data(seed, n, missing):
    """A numeric and a categorical column, 25% label noise; with ``missing``, some cells of each
    column are missing (so that C4.5's "distribute" spreads rows over branches)."""
    from puretree.data import from_numpy

    rng = np.random.default_rng(seed)
    x = np.round(rng.uniform(0, 10, n), 1)
    colour = rng.choice(["red", "green", "blue"], n)
    y = np.where((x > 5) ^ (colour == "red") ^ (rng.random(n) < 0.25), "p", "q")
    y[:2] = ["p", "q"]
    X = np.empty((n, 2), dtype=object)
    X[:, 0], X[:, 1] = x, colour
    if missing:
        X[rng.random(n) < 0.15, 0] = np.nan
        X[rng.random(n) < 0.15, 1] = None
    return from_numpy(X, y, categorical=["x1"])


def pruned_outputs(tree, rows, alphas):
    """The reference: the tree pruned at each alpha, then asked for each row's probabilities."""
    from puretree.predict import predict_proba

    return np.stack([predict_proba(cost_complexity(tree, float(a)), rows) for a in alphas])


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 10_000), st.integers(20, 80), st.booleans(), st.sampled_from(["cart", "c45"]))
def test_path_outputs_equal_pruning_then_predicting(seed, n, missing, builder):
    from puretree.prune.complexity import path_outputs
    from puretree.grow import c45

    data = mixed_data(seed, n, missing)
    grown = {"cart": cart, "c45": c45}[builder](data.subset(np.arange(0, n, 2)))
    rows = data.subset(np.arange(1, n, 2))
    path = cost_complexity_path(grown)
    rng = np.random.default_rng(seed)
    # Every edge of the path, points between them, beyond the last, and infinity.
    alphas = np.concatenate([path.ccp_alphas, rng.uniform(0, 1.5 * path.ccp_alphas.max() + 1e-3, 5), [np.inf]])
    fast = path_outputs(grown, rows, alphas)
    assert np.array_equal(fast, pruned_outputs(grown, rows, alphas))  # bit for bit
    assert np.array_equal(path_outputs(grown, rows, alphas, path=path), fast)


def test_path_outputs_of_a_regression_tree_are_the_pruned_trees_means():
    from puretree.prune.complexity import path_outputs
    from puretree.data import from_numpy

    rng = np.random.default_rng(2)
    X = rng.normal(size=(60, 2))
    y = np.where(X[:, 0] > 0, 3.0, -3.0) + rng.normal(size=60)
    tree = grow(X[:40], y[:40], task="regression")
    alphas = np.unique(cost_complexity_path(tree).ccp_alphas)
    rows = from_numpy(X[40:], task="regression")
    fast = path_outputs(tree, rows, alphas)[:, :, 0]
    assert np.array_equal(fast, np.stack([cost_complexity(tree, float(a)).predict(rows) for a in alphas]))


def test_path_outputs_refuses_a_negative_alpha():
    from puretree.prune.complexity import path_outputs

    data = mixed_data(0, 20, False)
    with pytest.raises(ParameterError, match="alpha"):
        path_outputs(cart(data), data, [0.0, -1.0])


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.integers(20, 60), st.booleans(), st.integers(2, 5))
def test_choose_alpha_is_cv_prune_without_the_standard_error(seed, n, missing, k):
    """One routine: the same candidates, folds and pooled estimates; the least-error choice and
    the 1-SE choice differ only in the last step, and the 1-SE subtree is never the larger."""
    from puretree.prune import choose_alpha

    data = mixed_data(seed, n, missing)
    choice = choose_alpha(data, k=k, seed=seed % 7)
    tree = cart(data)
    least = cv_prune(tree, data, k=k, seed=seed % 7, se=0)
    one_se = cv_prune(tree, data, k=k, seed=seed % 7, se=1)
    assert np.array_equal(choice.alphas, least.alphas) and np.array_equal(least.cv_error, one_se.cv_error)
    assert choice.mean_accuracy.tolist() == pytest.approx((1 - least.cv_error).tolist(), abs=1e-12)
    assert choice.best_alpha == least.alpha and to_dict(choice.tree) == to_dict(least.tree)
    assert one_se.best == least.best == least.chosen <= one_se.chosen
    assert n_leaves(one_se.tree) <= n_leaves(least.tree) and is_pruning_of(one_se.tree, least.tree)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 10_000), st.integers(20, 60), st.booleans())
def test_cv_prune_errors_equal_the_literal_procedure(seed, n, missing):
    """Each fold's tree pruned at each candidate and asked to predict (the slow way) gives the
    errors the one-pass routine counts; the leaves are those of the full tree pruned there."""
    data = mixed_data(seed, n, missing)
    tree = cart(data)
    out = cv_prune(tree, data, k=3, seed=1)
    wrong = np.zeros(len(out.alphas))
    for train, test in stratified_folds(data.y, k=3, seed=1):
        fold_tree = cart(data.subset(train))
        for j, a in enumerate(out.alphas):
            wrong[j] += np.sum(cost_complexity(fold_tree, float(a)).predict(data.subset(test)) != data.subset(test).labels())
    assert np.array_equal(out.cv_error, wrong / n)
    assert out.leaves.tolist() == [n_leaves(cost_complexity(tree, float(a))) for a in out.alphas]


def test_choose_alpha_pools_the_folds_as_breiman_does():
    """R^cv is the share of all rows misclassified, not the mean of per-fold rates: with folds
    of unequal size the two differ. 23 rows in 4 folds (6, 6, 6, 5)."""
    from puretree.prune import choose_alpha

    data = mixed_data(4, 23, False)
    choice = choose_alpha(data, k=4, seed=0)
    folds = stratified_folds(data.y, k=4, seed=0)
    assert sorted(len(t) for _, t in folds) == [5, 6, 6, 6]
    right = np.zeros(len(choice.alphas))
    for train, test in folds:
        t = cart(data.subset(train))
        right += [np.sum(cost_complexity(t, float(a)).predict(data.subset(test)) == data.subset(test).labels()) for a in choice.alphas]
    assert np.array_equal(choice.mean_accuracy, right / 23)


def test_the_one_se_rule_by_hand():
    """Errors 0.30, 0.20, 0.22, 0.25, 0.40 of 100 rows: the least is 0.20 (subtree 1), its
    standard error sqrt(0.2 * 0.8 / 100) = 0.04, so 0.22 is within one SE and 0.25 is not;
    ties of the least go to the smaller tree (the later subtree)."""
    from puretree.prune.complexity import _select

    error = np.array([0.30, 0.20, 0.22, 0.25, 0.40])
    std_error = np.sqrt(error * (1 - error) / 100)
    assert std_error[1] == pytest.approx(0.04)
    assert _select(error, std_error, 1.0) == (1, 2)
    assert _select(error, std_error, 0.0) == (1, 1)
    assert _select(error, std_error, 2.0) == (1, 3)  # 0.25 <= 0.20 + 2 * 0.04
    tied = np.array([0.30, 0.20, 0.20, 0.50])
    assert _select(tied, np.sqrt(tied * (1 - tied) / 100), 0.0) == (2, 2)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(15, 70), st.booleans(), st.sampled_from(["cart", "id3"]))
def test_cart_and_id3_grown_to_a_depth_are_their_deeper_tree_cut_there(seed, n, missing, builder):
    """What lets cv_depth grow each fold's tree once for cart and id3."""
    from puretree.prune.complexity import cut_at_depth

    fit = {"cart": cart, "id3": id3}[builder]
    data = mixed_data(seed, n, missing)
    deep = fit(data)
    for d in range(depth(deep) + 2):
        assert to_dict(cut_at_depth(deep, d)) == to_dict(fit(data, max_depth=d))


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10_000), st.integers(20, 70), st.booleans(), st.sampled_from(["cart", "id3"]))
def test_cv_depth_growing_once_equals_growing_per_depth(seed, n, missing, builder):
    fit = {"cart": cart, "id3": id3}[builder]
    data = mixed_data(seed, n, missing)
    fast = cv_depth(data, fit=fit, k=3, seed=2)
    slow = cv_depth(data, fit=lambda *a, **kw: fit(*a, **kw), k=3, seed=2)  # not the preset: grown per depth
    assert (fast.depths, fast.mean_accuracy, fast.depth) == (slow.depths, slow.mean_accuracy, slow.depth)
    assert to_dict(fast.tree) == to_dict(slow.tree)


def test_prune_cv_se_option(saved, capsys):
    tmp, train, model = saved
    tree = load(model)
    data = read_csv(train, target="label")
    for se, said in ((0.5, "within 0.5 standard errors of the least"), (0, "the least;"), (1, "(1-SE rule)")):
        out_file = str(tmp / f"se{se}.json")
        status, captured = run(["prune", model, "--method", "cv", "--data", train, "--folds", "5", "--se", str(se), "-o", out_file], capsys)
        assert status == 0, captured.err
        assert to_dict(load(out_file)) == to_dict(cv_prune(tree, data, fit=cart, k=5, se=se).tree)
        assert said in captured.out
    for args, message in ((["--method", "cv", "--data", train, "--se", "-1"], "--se"), (["--method", "penalty", "--se", "1"], "--se does not apply")):
        status, captured = run(["prune", model, *args, "-o", str(tmp / "out.json")], capsys)
        lines = captured.err.strip().splitlines()
        assert status != 0 and len(lines) == 1 and message in lines[0], captured.err
