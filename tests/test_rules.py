"""Rules: tree to rule list, merged conditions, post-pruning, predicting like the tree."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from puretree.datasets import load_buys_computer, load_playtennis, load_temperature
from puretree.errors import ParameterError
from puretree.fold import n_leaves
from puretree.grow import c45, cart, grow, id3
from puretree.nodes import CategoricalSplit, Feature, Leaf, NumericSplit, Schema, SubsetSplit
from puretree.tree import Tree
from puretree.rules import Condition, Rule, RuleList, prune_rules, to_rules


def test_playtennis_rules_print_as_the_seeds_write_them():
    rules = to_rules(id3(load_playtennis()))
    assert "IF outlook = sunny AND humidity = high THEN no  [3/3]" in str(rules).splitlines()
    assert len(rules) == 5
    assert str(rules).splitlines()[-1] == "ELSE yes"


def test_redundant_numeric_conditions_are_merged():
    schema = Schema((Feature("x"), Feature("z")), ("a", "b"))
    inner = NumericSplit(0, 3.0, Leaf((2, 0)), Leaf((0, 1)), (2, 1))
    middle = NumericSplit(1, 0.5, inner, Leaf((0, 2)), (2, 3))
    root = NumericSplit(0, 5.0, middle, Leaf((0, 4)), (2, 7))
    rules = to_rules(Tree(root, schema))
    assert [r.to_text(schema) for r in rules.rules] == [
        "IF x <= 3 AND z <= 0.5 THEN a  [2/2]",
        "IF x > 3 AND x <= 5 AND z <= 0.5 THEN b  [1/1]",
        "IF x <= 5 AND z > 0.5 THEN b  [2/2]",
        "IF x > 5 THEN b  [4/4]",
    ]
    lower = NumericSplit(0, 1.0, Leaf((1, 0)), Leaf((0, 1)), (1, 1))
    tree = Tree(NumericSplit(0, 0.5, Leaf((3, 0)), NumericSplit(0, 2.0, lower, Leaf((0, 1)), (1, 2)), (4, 2)), schema)
    assert [r.conditions for r in to_rules(tree).rules] == [
        (Condition(0, "<=", 0.5),),
        (Condition(0, ">", 0.5), Condition(0, "<=", 1.0)),  # x <= 2 then x <= 1: the tighter
        (Condition(0, ">", 1.0), Condition(0, "<=", 2.0)),  # x > 0.5 then x > 1: the tighter
        (Condition(0, ">", 2.0),),
    ]


def test_category_sets_are_intersected():
    schema = Schema((Feature("c", "categorical", ("p", "q", "r", "s")),), ("a", "b"))
    inner = SubsetSplit(0, (1,), Leaf((2, 0)), Leaf((0, 3)), (2, 3))
    tree = Tree(SubsetSplit(0, (0, 1, 2), inner, Leaf((0, 1)), (2, 4)), schema)
    texts = [r.to_text(schema) for r in to_rules(tree).rules]
    assert texts == ["IF c = q THEN a  [2/2]", "IF c in {p, r} THEN b  [3/3]", "IF c = s THEN b  [1/1]"]


def test_an_empty_branch_rule_predicts_its_parents_class_and_covers_nothing():
    schema = Schema((Feature("c", "categorical", ("u", "v", "w")),), ("a", "b"))
    tree = Tree(CategoricalSplit(0, (Leaf((0, 3)), Leaf((0, 0)), Leaf((1, 0))), (1, 3)), schema)
    empty = to_rules(tree).rules[1]
    assert (empty.prediction, empty.coverage, np.isnan(empty.accuracy)) == (1, 0.0, True)
    assert to_rules(tree).predict({"c": "v"}) == tree.predict({"c": "v"}) == "b"


mixed_data = st.integers(0, 2**31 - 1).map(lambda s: np.random.default_rng(s))


@given(mixed_data, st.sampled_from(["id3", "c45", "cart"]))
def test_rules_predict_exactly_like_the_tree(rng, algorithm):
    n = 40
    rows = [{"x": float(rng.integers(0, 8)), "c": str(rng.choice(["r", "g", "b", "k"])), "z": float(rng.normal())} for _ in range(n)]
    y = ["p" if (r["x"] > 3) ^ (r["c"] == "g") ^ (rng.random() < 0.2) else "n" for r in rows]
    if len(set(y)) < 2:
        y[0] = "p" if y[0] == "n" else "n"
    tree = {"id3": id3, "c45": c45, "cart": cart}[algorithm](rows, y)
    rules = to_rules(tree)
    assert len(rules) == n_leaves(tree)
    fresh = [{"x": float(rng.integers(-1, 10)), "c": str(rng.choice(["r", "g", "b", "k"])), "z": float(rng.normal())} for _ in range(30)]
    assert rules.predict(fresh).tolist() == tree.predict(fresh).tolist()
    assert rules.predict(rows).tolist() == tree.predict(rows).tolist()
    assert all(r.coverage > 0 or r.counts == tuple(0.0 for _ in r.counts) for r in rules.rules)


def test_unseen_categories_and_missing_values_fall_to_the_default():
    data = load_playtennis()
    rules = to_rules(id3(data))
    row = {"outlook": "fog", "temperature": "hot", "humidity": "high", "wind": "weak"}
    assert rules.matches([row]).tolist() == [-1]
    assert rules.predict(row) == "yes"
    missing = {"outlook": None, "temperature": "hot", "humidity": "high", "wind": "weak"}
    assert rules.predict(missing) == "yes"


def test_rule_lists_are_frozen_values():
    a, b = to_rules(id3(load_playtennis())), to_rules(id3(load_playtennis()))
    assert a == b and hash(a) == hash(b)
    with pytest.raises(AttributeError):
        a.default = 0  # type: ignore[misc]


def test_pruning_with_a_validation_set_drops_conditions_that_do_not_hurt():
    data = load_playtennis()
    tree = id3(data)
    # A validation set where wind alone decides among rainy days and sunny days split by humidity.
    rows = [
        {"outlook": "rain", "temperature": "mild", "humidity": "high", "wind": "strong"},
        {"outlook": "sunny", "temperature": "mild", "humidity": "high", "wind": "strong"},
        {"outlook": "sunny", "temperature": "hot", "humidity": "normal", "wind": "weak"},
        {"outlook": "overcast", "temperature": "hot", "humidity": "high", "wind": "strong"},
    ]
    labels = ["no", "no", "yes", "yes"]
    pruned = prune_rules(tree, rows, labels)
    # The validation accuracy of the pruned list is at least the tree's.
    assert np.mean(pruned.predict(rows) == np.array(labels)) >= np.mean(tree.predict(rows) == np.array(labels))
    # Each kept rule's estimate is its accuracy on the rows it covers in the validation set.
    for rule in pruned.rules:
        if rule.estimate is not None:
            assert rule.estimate == pytest.approx(rule.accuracy)
    estimates = [r.estimate for r in pruned.rules if r.estimate is not None]
    assert estimates == sorted(estimates, reverse=True)
    # Every rule is a generalisation of one of the tree's rules (conditions only removed).
    original = {r.prediction: [set(q.conditions) for q in to_rules(tree).rules if q.prediction == r.prediction] for r in pruned.rules}
    assert all(any(set(r.conditions) <= s for s in original[r.prediction]) for r in pruned.rules)


def brute_force_prune(rule: Rule, X, codes, estimate) -> float:
    """The best estimate over removing conditions one at a time, greedily, as documented: on
    validation accuracy a removal must strictly improve the estimate."""
    conds = list(rule.conditions)

    def est(cs):
        mask = np.ones(len(codes), dtype=bool)
        for c in cs:
            mask &= c.holds(X)
        n = mask.sum()
        return None if n == 0 else float((codes[mask] == rule.prediction).mean())

    current = est(conds)
    while current is not None and conds:
        trials = [est(conds[:i] + conds[i + 1 :]) for i in range(len(conds))]
        best = max(range(len(trials)), key=lambda i: (trials[i], -i))
        if trials[best] <= current:
            break
        current = trials[best]
        del conds[best]
    return current


@given(mixed_data)
def test_pruned_estimates_follow_the_greedy_definition(rng):
    from puretree.prune import validation_codes

    n = 60
    X = rng.integers(0, 5, size=(n, 3)).astype(float)
    y = np.where((X[:, 0] > 1) ^ (rng.random(n) < 0.2), "p", "n")
    y[:2] = ["p", "n"]
    tree = cart(X[:40], y[:40]) if len(set(y[:40].tolist())) > 1 else cart(X, y)
    pruned = prune_rules(tree, X[40:], y[40:])
    Xe, codes = validation_codes(tree, X[40:], y[40:])
    originals = to_rules(tree).rules
    want = sorted((e for e in (brute_force_prune(r, Xe, codes, "accuracy") for r in originals) if e is not None), reverse=True)
    got = [r.estimate for r in pruned.rules if r.estimate is not None]
    # Duplicates that pruning made identical are dropped, so compare as sets of values.
    assert set(np.round(got, 12)) == set(np.round(want, 12))
    assert got == sorted(got, reverse=True)


def test_pessimistic_rule_pruning_on_the_training_data():
    data = load_buys_computer()
    pruned = prune_rules(c45(data), data, estimate="pessimistic")
    lines = str(pruned).splitlines()
    assert lines[0] == "IF age = middle_aged THEN yes  [4/4]"
    assert "IF student = yes THEN yes  [6/7]" in lines
    assert lines[-1] == "ELSE yes"
    estimates = [r.estimate for r in pruned.rules]
    assert estimates == sorted(estimates, reverse=True)
    # A pessimistic estimate is below the plain accuracy of the same rows.
    assert all(r.estimate < r.accuracy for r in pruned.rules)


def test_default_class_is_the_majority_of_uncovered_rows():
    schema = Schema((Feature("x"),), ("a", "b"))
    rules = RuleList((Rule((Condition(0, "<=", 1.0),), 0, (1, 0)),), 0, schema)
    out = prune_rules(rules, [[0.0], [5.0], [6.0]], ["a", "b", "b"])
    assert out.default == 1 and out.predict([[7.0]]).tolist() == ["b"]


def test_prune_rules_rejects_bad_options():
    tree = id3(load_playtennis())
    with pytest.raises(ParameterError, match="estimate"):
        prune_rules(tree, load_playtennis(), estimate="magic")
    with pytest.raises(ParameterError, match="cf"):
        prune_rules(tree, load_playtennis(), estimate="pessimistic", cf=1.0)
    with pytest.raises(ParameterError, match="regression"):
        to_rules(grow(np.arange(6.0)[:, None], np.arange(6.0), score="variance", task="regression"))


def test_rules_of_a_tree_thousands_of_levels_deep():
    X = np.arange(3000.0)[:, None]
    y = np.arange(3000) % 2
    tree = cart(X, y)
    rules = to_rules(tree)
    assert len(rules) == 3000
    assert max(len(r.conditions) for r in rules.rules) == 2  # merged: one bound on each side
    assert (rules.predict(X) == tree.predict(X)).all()


def test_temperature_rules_with_both_bounds():
    text = str(to_rules(id3(load_temperature())))
    assert "IF temperature > 54 AND temperature <= 85 THEN yes  [3/3]" in text


def test_prune_rules_checks_estimate_then_cf_with_the_declared_wording():
    tree = id3(load_playtennis())
    data = load_playtennis()
    with pytest.raises(ParameterError, match=r"^estimate must be one of \['accuracy', 'pessimistic'\], got 'exact'$"):
        prune_rules(tree, data, estimate="exact", cf=2.0)
    with pytest.raises(ParameterError, match=r"^cf must be a number in \(0, 1\), got 2.0$"):
        prune_rules(tree, data, estimate="pessimistic", cf=2.0)
    assert "estimate" in prune_rules.parameter_constraints


def test_a_tie_on_validation_keeps_the_precondition():
    # Issue 15: one validation row, a sunny, high-humidity "no" day. Dropping either
    # precondition of "IF outlook = sunny AND humidity = high THEN no" keeps its validation
    # accuracy at 1/1: a tie, not an improvement (seed 000 §5.2.2), so the rule stays whole
    # and the list still classifies all 14 PlayTennis days as the tree does.
    data = load_playtennis()
    tree = id3(data)
    day = {"outlook": "sunny", "temperature": "mild", "humidity": "high", "wind": "weak"}
    pruned = prune_rules(tree, [day], ["no"])
    assert str(pruned).splitlines()[0] == "IF outlook = sunny AND humidity = high THEN no  [1/1]"
    assert all(r.conditions for r in pruned.rules)
    assert int(np.sum(pruned.predict(data) == data.labels())) == 14
    assert int(np.sum(tree.predict(data) == data.labels())) == 14


def test_a_strict_improvement_on_validation_drops_the_precondition():
    # Two sunny, high-humidity days, one "yes": the rule is 1/2; without "outlook = sunny" it
    # also covers a rainy high-humidity "no" day (2/3, better), so that precondition goes.
    tree = id3(load_playtennis())
    rows = [
        {"outlook": "sunny", "temperature": "mild", "humidity": "high", "wind": "weak"},
        {"outlook": "sunny", "temperature": "mild", "humidity": "high", "wind": "weak"},
        {"outlook": "rain", "temperature": "mild", "humidity": "high", "wind": "weak"},
    ]
    pruned = prune_rules(tree, rows, ["no", "yes", "no"])
    assert "IF humidity = high THEN no  [2/3]" in str(pruned).splitlines()


def test_pessimistic_rule_pruning_drops_on_a_tie():
    # C4.5rules drops a precondition when the pessimistic estimate is not lower: a rule whose
    # conditions every training row meets loses them on the tie.
    schema = Schema((Feature("x"),), ("a", "b"))
    rules = RuleList((Rule((Condition(0, "<=", 10.0),), 0, (3, 0)),), 1, schema)
    out = prune_rules(rules, [[0.0], [1.0], [2.0]], ["a", "a", "a"], estimate="pessimistic")
    assert out.rules[0].conditions == ()
    same = prune_rules(rules, [[0.0], [1.0], [2.0]], ["a", "a", "a"])
    assert same.rules[0].conditions == (Condition(0, "<=", 10.0),)
