"""IF-THEN rules: a tree as a rule list, rule post-pruning, and rule lists that predict.

:func:`to_rules` turns each leaf into one rule: the tests on its path, with redundant ones
merged (``x <= 3`` and ``x <= 5`` is ``x <= 3``; ``x in {a, b}`` then ``x in {b, c}`` is
``x = b``), its class and the training rows it covers. :func:`prune_rules` is the seeds' rule
post-pruning: drop each precondition whose removal strictly improves the rule's accuracy on a
validation set, or (C4.5rules) does not lower its pessimistic estimate on the training set,
then sort the rules by estimated accuracy and end with a default class.

A :class:`RuleList` is a frozen value. It predicts like a tree: the first rule whose
conditions all hold gives the class, and a row no rule covers gets the default class. A
condition on a missing value (NaN) or on a category never seen in training does not hold:
such a row falls through to a later rule or to the default (a tree would instead follow its
missing-value strategy, or stop at the split). For every other row, ``to_rules(tree)``
predicts exactly the tree's class.

>>> from puretree.datasets import load_playtennis
>>> from puretree.grow import id3
>>> rules = to_rules(id3(load_playtennis()))
>>> print(rules)
IF outlook = overcast THEN yes  [4/4]
IF outlook = rain AND wind = strong THEN no  [2/2]
IF outlook = rain AND wind = weak THEN yes  [3/3]
IF outlook = sunny AND humidity = high THEN no  [3/3]
IF outlook = sunny AND humidity = normal THEN yes  [2/2]
ELSE yes
"""

from __future__ import annotations

import math

from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import numpy as np

from .data import encode_features, labels_array
from .errors import ParameterError
from .estimates import c45_added_errors, check_cf
from .fold import n_nodes as count_nodes, walk
from .nodes import Codes, Constraint, Interval, Leaf, Node, Schema, Split
from .params import Options, validate_params
from .text import format_number, shorten
from .tree import Tree
from .validation import validation_codes

__all__ = ["Condition", "Rule", "RuleList", "to_rules", "prune_rules", "ESTIMATES", "MAX_CONDITIONS_PER_NODE", "MIN_CONDITIONS_LIMIT"]

#: :func:`to_rules` lists at most ``max(MIN_CONDITIONS_LIMIT, MAX_CONDITIONS_PER_NODE * nodes)``
#: conditions in all (a categorical condition counts once plus once per category it names).
#: Merging keeps a rule to one interval per numeric feature and one set per categorical
#: feature, but a deep tree over many features could still need a number of conditions that
#: grows with its size squared; such a tree is refused rather than listed.
MAX_CONDITIONS_PER_NODE = 64
MIN_CONDITIONS_LIMIT = 2**20

#: How :func:`prune_rules` estimates a rule's accuracy on the data it is given.
ESTIMATES = ("accuracy", "pessimistic")


@attrs.frozen
class Condition:
    """One precondition: ``feature <= value``, ``feature > value`` (numeric), or
    ``feature in codes`` (categorical: ``value`` is a sorted tuple of category codes)."""

    feature: int
    op: str = attrs.field(validator=attrs.validators.in_(("<=", ">", "in")))
    value: Any

    def holds(self, X: np.ndarray) -> np.ndarray:
        """Which rows of an encoded matrix satisfy the condition (NaN never does)."""
        column = X[:, self.feature]
        with np.errstate(invalid="ignore"):
            if self.op == "<=":
                return column <= self.value
            if self.op == ">":
                return column > self.value
        return np.isin(column, np.asarray(self.value, dtype=np.float64))

    def to_text(self, schema: Schema) -> str:
        feature = schema.features[self.feature]
        if self.op != "in":
            return f"{shorten(feature.name)} {self.op} {format_number(self.value)}"
        names = [shorten(feature.categories[c]) for c in self.value]
        if not names:  # tests on one path that no category passes: the rule never holds
            return f"{shorten(feature.name)} in {{}}"
        return f"{shorten(feature.name)} = {names[0]}" if len(names) == 1 else f"{shorten(feature.name)} in {{{', '.join(names)}}}"


def _weight_text(w: float) -> str:
    return str(int(w)) if float(w).is_integer() else format_number(round(w, 3))


@attrs.frozen
class Rule:
    """``IF conditions THEN classes[prediction]``. ``counts`` are the class weights of the rows
    the rule covers in the data that last measured it (the training rows for
    :func:`to_rules`, the pruning data after :func:`prune_rules`); ``estimate`` is the accuracy
    estimate pruning used (None when the rule was never estimated, or covered no row)."""

    conditions: tuple[Condition, ...] = attrs.field(converter=lambda c: tuple(c))  # typed: not converter=tuple
    prediction: int
    counts: tuple[float, ...] = attrs.field(converter=lambda c: tuple(float(v) for v in c))
    estimate: float | None = None

    @property
    def coverage(self) -> float:
        """The weight of the rows the rule covers."""
        return float(sum(self.counts))

    @property
    def correct(self) -> float:
        return float(self.counts[self.prediction]) if self.counts else 0.0

    @property
    def accuracy(self) -> float:
        """The fraction of covered rows of the predicted class (nan when it covers none)."""
        return self.correct / self.coverage if self.coverage > 0 else float("nan")

    def holds(self, X: np.ndarray) -> np.ndarray:
        mask = np.ones(X.shape[0], dtype=bool)
        for c in self.conditions:
            mask &= c.holds(X)
        return mask

    def to_text(self, schema: Schema) -> str:
        test = " AND ".join(c.to_text(schema) for c in self.conditions) or "TRUE"
        return f"IF {test} THEN {shorten(schema.classes[self.prediction])}  [{_weight_text(self.correct)}/{_weight_text(self.coverage)}]"


@attrs.frozen
class RuleList:
    """An ordered list of rules and a default class (an index into ``schema.classes``)."""

    rules: tuple[Rule, ...] = attrs.field(converter=lambda r: tuple(r))
    default: int
    schema: Schema

    def __len__(self) -> int:
        return len(self.rules)

    def matches(self, X: Any) -> np.ndarray:
        """Per row, the index of the first rule that covers it, or -1 (the default)."""
        return self._first_rule(encode_features(self.schema, X))

    def _first_rule(self, Xe: np.ndarray) -> np.ndarray:
        first = np.full(Xe.shape[0], -1, dtype=np.int64)
        for i, rule in enumerate(self.rules):
            open_rows = first < 0
            if not open_rows.any():
                break
            first[open_rows & rule.holds(Xe)] = i
        return first

    def predict_codes(self, X: Any) -> np.ndarray:
        """Per row, the index of the predicted class."""
        table = np.array([r.prediction for r in self.rules] + [self.default], dtype=np.int64)
        return table[self.matches(X)]  # index -1 picks the last entry: the default

    def predict(self, X: Any) -> Any:
        """Predicted labels: one for a mapping, an array for a batch (as ``Tree.predict``)."""
        codes = self.predict_codes(X)
        if isinstance(X, Mapping):
            return self.schema.classes[int(codes[0])]
        return labels_array(self.schema.classes)[codes]

    def to_text(self) -> str:
        lines = [r.to_text(self.schema) for r in self.rules]
        return "\n".join(lines + [f"ELSE {shorten(self.schema.classes[self.default])}"])

    def __str__(self) -> str:
        return self.to_text()


# -- tree to rules -----------------------------------------------------------------------


def _merge(conditions: dict[tuple[int, str], Any], feature: int, op: str, value: Any) -> dict[tuple[int, str], Any]:
    """Add a test to a path's conditions, keeping one (the tightest) per feature and kind."""
    out = dict(conditions)  # insertion order: each feature keeps its first position on the path
    key = (feature, op)
    if key not in out:
        out[key] = value
    elif op == "<=":
        out[key] = min(out[key], value)
    elif op == ">":
        out[key] = max(out[key], value)
    else:
        keep = set(value)  # once, not per category: sets may hold thousands of codes
        out[key] = tuple(c for c in out[key] if c in keep)
    return out


def _conditions(constraint: Constraint) -> list[tuple[str, Any]]:
    """A branch's constraint (the split's test says which) as rule conditions ``(op, value)``."""
    if isinstance(constraint, Codes):
        return [("in", constraint.codes)]
    assert isinstance(constraint, Interval)
    return ([(">", constraint.lo)] if constraint.lo > -math.inf else []) + ([("<=", constraint.hi)] if constraint.hi < math.inf else [])


def _reading_order(conditions: dict[tuple[int, str], Any]) -> Any:
    """Features in the order the path first tests them; a lower bound before an upper one."""
    first: dict[int, int] = {}
    for feature, _ in conditions:
        first.setdefault(feature, len(first))
    return lambda item: (first[item[0][0]], item[0][1] == "<=")


def to_rules(tree: Tree) -> RuleList:
    """One rule per leaf, in pre-order, with merged conditions; the default is the root's
    majority. An empty leaf's rule predicts its nearest ancestor's majority and covers 0 rows.

    Each rule holds at most one interval per numeric feature (``a < x <= b``, as two
    conditions) and one set per categorical feature, whatever the depth of its leaf. A tree
    whose rules would still hold more than ``max(MIN_CONDITIONS_LIMIT,
    MAX_CONDITIONS_PER_NODE * nodes)`` conditions in all raises :class:`ParameterError`
    (its rule list would grow with the tree's size squared).

    >>> from puretree.datasets import load_temperature
    >>> from puretree.grow import id3
    >>> print(to_rules(id3(load_temperature())))
    IF temperature <= 54 THEN no  [2/2]
    IF temperature > 54 AND temperature <= 85 THEN yes  [3/3]
    IF temperature > 85 THEN no  [1/1]
    ELSE no
    """
    if tree.schema.is_regression:
        raise ParameterError("rules need a classification tree; this is a regression tree")
    schema = tree.schema
    rules: list[Rule] = []
    n_nodes = count_nodes(tree)
    limit = max(MIN_CONDITIONS_LIMIT, MAX_CONDITIONS_PER_NODE * n_nodes)

    # Each node is handed its path's merged conditions and the counts an empty leaf borrows
    # (its parent's). Merging keeps a path to at most two conditions per feature, so deep
    # chains stay cheap; down is asked only once the node has been counted below.
    def down(node: Node, value: tuple[dict[tuple[int, str], Any], tuple[float, ...]]) -> list[tuple[dict[tuple[int, str], Any], tuple[float, ...]]]:
        conditions, inherited = value
        assert isinstance(node, Split)  # down is asked for splits only
        own = node.counts if sum(node.counts) > 0 else inherited
        out = []
        for constraint in node.test.constraints(schema.features[node.feature]):
            merged = conditions
            for op, bound in _conditions(constraint):
                merged = _merge(merged, node.feature, op, bound)
            out.append((merged, own))
        return out

    # Counted at every node, not only at leaves: copying a path's conditions costs as much.
    spent = 0
    for node, (conditions, inherited) in walk(tree.root, down, ({}, tree.root.counts)):
        spent += sum(1 + (len(v) if op == "in" else 0) for (_, op), v in conditions.items())
        if spent > limit:
            raise ParameterError(
                f"this tree's rules would hold more than {limit} conditions (at most {MAX_CONDITIONS_PER_NODE} per node of its {n_nodes}): "
                "too many to list; use the tree itself (show) instead"
            )
        if isinstance(node, Leaf):
            own = node.counts if sum(node.counts) > 0 else inherited
            conds = tuple(Condition(f, op, v) for (f, op), v in sorted(conditions.items(), key=_reading_order(conditions)))
            rules.append(Rule(conds, int(np.argmax(own)), node.counts))
    return RuleList(tuple(rules), int(np.argmax(tree.root.counts)), schema)


# -- rule post-pruning -------------------------------------------------------------------


def _estimate(counts: np.ndarray, prediction: int, how: str, cf: float) -> float | None:
    n = float(counts.sum())
    if n <= 0:
        return None
    errors = n - float(counts[prediction])
    if how == "accuracy":
        return 1.0 - errors / n
    return 1.0 - (errors + c45_added_errors(n, errors, cf=cf)) / n


def _class_counts(codes: np.ndarray, mask: np.ndarray, k: int) -> np.ndarray:
    """Class counts of the masked rows; the last slot counts labels the tree never saw."""
    return np.bincount(np.where(codes[mask] >= 0, codes[mask], k), minlength=k + 1).astype(np.float64)


def _prune_one(rule: Rule, holds: list[np.ndarray], codes: np.ndarray, k: int, how: str, cf: float) -> Rule:
    keep = list(range(len(rule.conditions)))

    def covered(indices: Sequence[int]) -> np.ndarray:
        mask = np.ones(len(codes), dtype=bool)
        for i in indices:
            mask &= holds[i]
        return mask

    current = _estimate(_class_counts(codes, covered(keep), k), rule.prediction, how, cf)
    # Greedy: drop the precondition whose removal gives the best estimate. On a validation
    # set (seed 000 §5.2.2) only when that strictly improves the rule's accuracy: a tie keeps
    # the precondition, so a handful of validation rows cannot empty a rule. With C4.5's
    # pessimistic estimate, as Quinlan's C4.5rules, when it is not lower (the estimate
    # already penalises a rule for the rows it covers). A rule the data never reaches has no
    # estimate and is left as it is.
    strict = how == "accuracy"
    while current is not None and keep:
        trials = []
        for position in range(len(keep)):
            rest = keep[:position] + keep[position + 1 :]
            trials.append(_estimate(_class_counts(codes, covered(rest), k), rule.prediction, how, cf))
        best = max(range(len(trials)), key=lambda p: (trials[p], -p))  # ties: the first condition
        if (trials[best] <= current + 1e-12) if strict else (trials[best] < current - 1e-12):  # type: ignore[operator]  # current is not None: the data reach the rule
            break
        current = trials[best]
        del keep[best]
    counts = _class_counts(codes, covered(keep), k)
    return Rule(tuple(rule.conditions[i] for i in keep), rule.prediction, counts[:k], current)


@validate_params({"estimate": (Options(ESTIMATES),)})
def prune_rules(rules: RuleList | Tree, X: Any, y: Any = None, *, estimate: str = "accuracy", cf: float = 0.25) -> RuleList:
    """Rule post-pruning (seed 000 §5.2.2): prune each rule's preconditions, then sort.

    ``X``/``y`` is the data that estimates a rule's accuracy: with ``estimate="accuracy"`` a
    validation set (the fraction of covered rows of the rule's class); with
    ``estimate="pessimistic"`` the training set, scored by C4.5's upper confidence limit at
    ``cf`` (:func:`~puretree.estimates.c45_added_errors`), which penalises rules that cover few
    rows. Greedily, best removal first, a precondition is dropped while its removal strictly
    improves the validation accuracy (seed 000: "if this improves its estimated accuracy"; a
    tie keeps it, so one validation row cannot turn a rule into ``IF TRUE``), or, with the
    pessimistic estimate, does not lower it (as Quinlan's C4.5rules). The rules are then sorted by estimated accuracy (ties: more covered
    rows first, then the original order; rules the data never reached last), duplicates are
    dropped, and the default class is the majority of the rows no rule covers (the original
    default when every row is covered).

    >>> from puretree.datasets import load_playtennis
    >>> from puretree.grow import id3
    >>> tree = id3(load_playtennis())
    >>> data = load_playtennis()
    >>> print(prune_rules(id3(data), data, estimate="pessimistic"))
    IF outlook = overcast THEN yes  [4/4]
    IF humidity = normal THEN yes  [6/7]
    IF outlook = rain AND wind = weak THEN yes  [3/3]
    IF outlook = sunny AND humidity = high THEN no  [3/3]
    IF outlook = rain AND wind = strong THEN no  [2/2]
    ELSE yes
    """
    check_cf(cf)
    if isinstance(rules, Tree):
        tree, rules = rules, to_rules(rules)
    else:
        tree = Tree(Leaf(tuple(1.0 if i == rules.default else 0.0 for i in range(len(rules.schema.classes)))), rules.schema)
    Xe, codes = validation_codes(tree, X, y)
    k = len(rules.schema.classes)
    pruned = []
    for rule in rules.rules:
        holds = [c.holds(Xe) for c in rule.conditions]
        pruned.append(_prune_one(rule, holds, codes, k, estimate, cf))
    order = sorted(range(len(pruned)), key=lambda i: (pruned[i].estimate is None, -(pruned[i].estimate or 0.0), -pruned[i].coverage, i))
    unique: list[Rule] = []
    seen: set[tuple[Any, ...]] = set()
    for i in order:
        key = (pruned[i].conditions, pruned[i].prediction)
        if key not in seen:
            seen.add(key)
            unique.append(pruned[i])
    result = RuleList(tuple(unique), rules.default, rules.schema)
    left = result._first_rule(Xe) < 0
    left_counts = _class_counts(codes, left, k)[:k]
    default = int(np.argmax(left_counts)) if left_counts.sum() > 0 else rules.default
    return attrs.evolve(result, default=default)
