"""Evaluation: metrics against scikit-learn, splits and folds, cross-validation, the seeds' mammals."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from puretree.data import from_numpy
from puretree.datasets import load_mammals, load_playtennis
from puretree.errors import DataError, ParameterError
from puretree.evaluate import (
    accuracy,
    cross_validate,
    format_precision_recall,
    precision_recall,
    roc_auc,
    stratified_folds,
    train_test_split,
)
from puretree.fold import depth, n_leaves
from puretree.grow import c45, cart, id3
from puretree.nodes import CategoricalSplit, Leaf
from puretree.tree import Tree
from puretree.predict import predict_proba
from puretree.prune import pessimistic, reduced_error

labels = st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=40)


@given(labels, st.data())
def test_precision_and_recall_match_scikit_learn(truth, data):
    from sklearn.metrics import precision_recall_fscore_support

    guess = data.draw(st.lists(st.sampled_from(["a", "b", "c"]), min_size=len(truth), max_size=len(truth)))
    ours = precision_recall(truth, guess, labels=["a", "b", "c"])
    p, r, f, s = precision_recall_fscore_support(truth, guess, labels=["a", "b", "c"], zero_division=0)
    assert [x.precision for x in ours] == pytest.approx(p.tolist())
    assert [x.recall for x in ours] == pytest.approx(r.tolist())
    assert [x.f1 for x in ours] == pytest.approx(f.tolist())
    assert [x.support for x in ours] == s.tolist()


def test_precision_recall_table():
    text = format_precision_recall(precision_recall(["no", "yes", "yes"], ["no", "yes", "no"]))
    assert text.splitlines()[1].split() == ["no", "0.5000", "1.0000", "0.6667", "1"]


@given(st.lists(st.tuples(st.booleans(), st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.9, 1.0])), min_size=2, max_size=50))
def test_roc_auc_matches_scikit_learn_with_ties(pairs):
    from sklearn.metrics import roc_auc_score

    truth = ["yes" if t else "no" for t, _ in pairs]
    score = [s for _, s in pairs]
    if len(set(truth)) < 2:
        with pytest.raises(DataError):
            roc_auc(truth, score)
        return
    assert roc_auc(truth, score) == pytest.approx(roc_auc_score(truth, score), abs=1e-12)
    assert roc_auc(truth, score, positive="no") == pytest.approx(1 - roc_auc_score(truth, score), abs=1e-12)


def test_roc_auc_from_a_trees_predict_proba():
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 2))
    y = np.where(X[:, 0] + rng.normal(size=200) > 0, "p", "n")
    train, test = train_test_split(X, y, test_size=0.5, seed=1)
    tree = cart(train, max_depth=3)
    proba = predict_proba(tree, test)
    truth = test.labels()
    assert roc_auc(truth, proba) == pytest.approx(roc_auc_score(truth, proba[:, 1]))
    assert 0.5 < roc_auc(truth, proba) <= 1.0
    with pytest.raises(DataError, match="two probability columns"):
        roc_auc(truth, np.hstack([proba, proba]))


def test_train_test_split_is_seeded_disjoint_and_complete():
    data = load_playtennis()
    a_train, a_test = train_test_split(data, test_size=0.3, seed=4)
    b_train, b_test = train_test_split(data, test_size=0.3, seed=4)
    c_train, c_test = train_test_split(data, test_size=0.3, seed=5)
    assert a_test.X.tolist() == b_test.X.tolist() and a_test.y.tolist() == b_test.y.tolist()
    assert (a_test.n_rows, a_train.n_rows) == (5, 9)
    rows = sorted(map(tuple, np.column_stack([a_train.X, a_train.y]).tolist() + np.column_stack([a_test.X, a_test.y]).tolist()))
    assert rows == sorted(map(tuple, np.column_stack([data.X, data.y]).tolist()))
    assert a_test.X.tolist() != c_test.X.tolist() or a_test.y.tolist() != c_test.y.tolist()
    assert a_train.schema == data.schema
    train, test = train_test_split(data, test_size=4, seed=0)
    assert test.n_rows == 4
    for bad in (0, 14, 1.5, -0.2, "x"):
        with pytest.raises(ParameterError):
            train_test_split(data, test_size=bad)


def test_stratified_split_keeps_class_proportions():
    y = np.array(["a"] * 30 + ["b"] * 10)
    train, test = train_test_split(np.arange(40.0)[:, None], y, test_size=0.25, seed=0, stratify=True)
    assert sorted(test.labels().tolist()) == ["a"] * 8 + ["b"] * 2


@given(st.lists(st.sampled_from(["a", "b", "c"]), min_size=6, max_size=60), st.integers(2, 6), st.integers(0, 10))
def test_stratified_folds_partition_the_rows_and_spread_each_class(y, k, seed):
    if k > len(y):
        with pytest.raises(ParameterError):
            stratified_folds(y, k=k, seed=seed)
        return
    folds = stratified_folds(y, k=k, seed=seed)
    tests = np.concatenate([t for _, t in folds])
    assert sorted(tests.tolist()) == list(range(len(y)))
    sizes = [len(t) for _, t in folds]
    assert max(sizes) - min(sizes) <= 1
    for train, test in folds:
        assert set(train.tolist()).isdisjoint(test.tolist()) and len(train) + len(test) == len(y)
    arr = np.array(y)
    for c in set(y):
        per_fold = [int((arr[t] == c).sum()) for _, t in folds]
        assert max(per_fold) - min(per_fold) <= 1
    assert [t.tolist() for _, t in folds] == [t.tolist() for _, t in stratified_folds(y, k=k, seed=seed)]


def test_cross_validate_takes_any_fit_and_scores_out_of_fold():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 5, size=(90, 3)).astype(float)
    y = np.where(X[:, 0] + X[:, 1] > 4, "p", "n")
    data = from_numpy(X, y)
    full = cross_validate(cart, data, k=5, seed=0)
    assert len(full.scores) == 5 and len(full.models) == 5
    # The scores are each fold's accuracy on its own held-out rows.
    for (train, test), model, score in zip(stratified_folds(data.y, k=5, seed=0), full.models, full.scores):
        assert score == accuracy(data.labels()[test].tolist(), model.predict(data.subset(test)).tolist())
        assert sum(model.root.counts) == len(train)
    assert full.mean == pytest.approx(accuracy(data.labels().tolist(), full.predictions.tolist()), abs=0.02)
    stump = cross_validate(partial(cart, max_depth=1), data, k=5, seed=0)
    assert stump.mean < full.mean
    pruned = cross_validate(lambda d: pessimistic(c45(d)), data, k=5, seed=0)
    assert all(isinstance(m, Tree) for m in pruned.models)
    with pytest.raises(ParameterError):
        cross_validate("cart", data)
    with pytest.raises(ParameterError):
        cross_validate(cart, data, k=1)


# -- the seeds' mammals example (seed 004) ------------------------------------------------


def error_rate(tree, data) -> float:
    return 1.0 - accuracy(data.labels().tolist(), tree.predict(data).tolist())


def test_mammals_trees_the_library_grows():
    train, test = load_mammals()
    for learner in (id3, c45, cart):
        tree = learner(train)
        # All three split on four_legged, then body temperature (warm four-legged animals are
        # the two mammals of the training table): a 3-leaf tree with no training error.
        assert tree.schema.features[tree.root.feature].name == "four_legged"
        assert (n_leaves(tree), depth(tree)) == (3, 2)
        assert error_rate(tree, train) == 0.0
        # On the testing table it misses human and dolphin (mammals without four legs): 20%.
        assert error_rate(tree, test) == pytest.approx(0.2)
        wrong = [n for n, ok in zip(["human", "pigeon", "elephant", "leopard shark", "turtle", "penguin", "eel", "dolphin", "spiny anteater", "gila monster"],
                                    tree.predict(test) == test.labels()) if not ok]
        assert wrong == ["human", "dolphin"]
        # Reduced-error pruning with the testing table as validation keeps it: every removal
        # would lower the accuracy.
        assert n_leaves(reduced_error(tree, test)) == 3


def test_mammals_seed_trees_error_rates():
    train, test = load_mammals()
    s = train.schema
    f = {name: i for i, name in enumerate(s.feature_names)}
    warm = s.features[f["body_temperature"]].categories.index("warm-blooded")
    births = s.features[f["gives_birth"]].categories.index("yes")
    no, yes = (1, 0), (0, 1)
    # The seed's simpler tree: body temperature, then gives birth (the bat and the whale of the
    # training table are labelled non-mammals, hence 20% training error).
    birth_children = [Leaf(no), Leaf(no)]
    birth_children[births] = Leaf(yes)
    gives = CategoricalSplit(f["gives_birth"], tuple(birth_children), (2, 2))
    temp_children = [Leaf(no), Leaf(no)]
    temp_children[warm] = gives
    simple = Tree(CategoricalSplit(f["body_temperature"], tuple(temp_children), (8, 2)), s)
    assert error_rate(simple, train) == pytest.approx(0.2)
    assert error_rate(simple, test) == pytest.approx(0.1)
    # puretree's grown tree (0% / 20%) lies between the seed's overfit tree (0% / 30%) and it.
    assert error_rate(id3(train), test) == pytest.approx(0.2)
