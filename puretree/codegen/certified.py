"""Certified rewrites for deployment: smaller trees that answer every input as the model does.

Each rule is a pure function ``Tree -> Tree`` on the traversal kit (:func:`puretree.fold.fold`),
and each returns a tree whose answers are equal to its argument's on every input the deployed
code can receive, missing values and unseen categories included:

- :func:`remove_unreachable`: a branch that no input reaches, given its ancestors' tests,
  becomes a leaf of its own statistics, and a split with a single branch left is replaced by
  that branch. ``predict`` and ``predict_proba`` are unchanged.
- :func:`merge_same_class`: a split whose every reachable end (leaf, or a split a row may stop
  at) answers one class becomes a leaf of its statistics. ``predict`` is unchanged,
  ``predict_proba`` is not: for code that answers the class alone (``proba=False``).
- :func:`snap_thresholds`: each threshold moved onto the grid of the readings the code
  receives (the integers of ``int8``/``int16``/``int32`` features, float32 for ``float``), to
  the grid point that keeps the comparison on every reading. Comparisons that differ in the
  model but not on the grid become equal, and :func:`remove_unreachable` removes what that
  makes unreachable.

**What "reachable" means.** A row reaches a node when some input takes it there under the
model's rules: a threshold sends ``x <= t`` left, a missing value (NaN) follows the side the
split learned (``Threshold.missing_branch``), its surrogates, or the tree's strategy (the
heaviest branch under "majority", every branch under "distribute"; "error" refuses the row), and
a category never seen in training stops at a categorical split. Going down, each feature keeps
the values its path allows: an interval (numeric) or a set of codes (categorical), and whether
it may still be missing or unseen. A branch is unreachable when its test leaves it no value and
no missing or unseen value is routed there.

**Why the statistics are kept.** A node's statistics are more than its answer: its parent sends
missing values to its heaviest child (or shares them out by weight), and an empty leaf answers
with its nearest non-empty ancestor's distribution. So an unreachable branch keeps its weight
(it becomes a leaf of its own statistics), a merged split becomes a leaf of the split's own
statistics, and a split is replaced by its one reachable child only when neither the parent's
routing of missing values nor any inherited distribution changes (otherwise it stays, with its
unreachable branch as a leaf).

**Proof.** :func:`puretree.codegen.verify` with ``certified=True`` runs the code of the
rewritten tree against the *original* model on all of verify's rows; the tests check the rules
as Hypothesis properties on random trees (tests/test_certified.py).

>>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
>>> from puretree.tree import Tree
>>> from puretree.fold import n_nodes
>>> inner = Split(0, Threshold(1.0), (Leaf((0, 1)), Leaf((4, 3))), (4, 4))  # x <= 1.0 under x > 2.0
>>> tree = Tree(Split(0, Threshold(2.0), (Leaf((5, 0)), inner), (9, 4)), Schema((Feature("x"),), ("a", "b")))
>>> print(remove_unreachable(tree).to_text())
x <= 2: a (5)
x > 2: a (7/3)
>>> n_nodes(tree), n_nodes(remove_unreachable(tree)), n_nodes(merge_same_class(remove_unreachable(tree)))
(5, 3, 1)
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np

from ..errors import CodegenError, ParameterError
from ..fold import fold, rewrite
from ..nodes import Codes, Feature, Interval, Leaf, Node, Split, children, with_children
from . import literals as lit

if TYPE_CHECKING:  # the tree value sits above: its one-row answers run the generated code
    from ..tree import Tree

__all__ = ["Values", "Routing", "route", "root_values", "snap_thresholds", "remove_unreachable", "merge_same_class", "certified"]


@attrs.frozen
class Values:
    """What a path allows one feature to be: ``known`` values (an :class:`~puretree.nodes.Interval`
    or :class:`~puretree.nodes.Codes`), and whether it may be ``missing`` (NaN) or an ``unseen``
    category (a code the feature does not have).

    >>> Values(Interval(hi=2.0), missing=False).empty
    False
    >>> Values(Interval(2.0, 1.0), missing=False).empty
    True
    """

    known: Any
    missing: bool = True
    unseen: bool = False

    @property
    def empty(self) -> bool:
        """No value at all: no row with this feature so reaches the node."""
        return self.known.is_empty and not self.missing and not self.unseen


@attrs.frozen
class Routing:
    """Where the rows reaching a split go, given what their path allows its feature to be.

    ``to[i]``: the values child ``i`` receives (None: no row reaches it). ``stops``: a row may
    end at the split itself (an unseen category, or no surrogate decides); ``raises``: a row may
    be refused there (strategy "error"); ``spreads``: a row may follow every branch
    ("distribute"); ``weighs``: a missing value is routed by the children's training weights.
    """

    to: tuple[Values | None, ...]
    stops: bool = False
    raises: bool = False
    spreads: bool = False
    weighs: bool = False

    @property
    def reached(self) -> list[int]:
        return [i for i, v in enumerate(self.to) if v is not None]

    @property
    def passes(self) -> bool:
        """Every row reaching the split goes on to one and the same child."""
        return not (self.stops or self.raises or self.spreads) and len(self.reached) == 1


def _weights(nodes: Any, regression: bool) -> np.ndarray:
    # As puretree.flat computes them for the heaviest branch and the shares (numpy's row sums).
    stats = np.asarray([n.stats for n in nodes], dtype=np.float64)
    return stats[:, 0].copy() if regression else stats.sum(axis=1)


def _heavy(nodes: Any, regression: bool) -> int:
    """The child a missing value goes to under "majority": the heaviest (ties: the first)."""
    return int(np.argmax(_weights(nodes, regression)))


def _has_weight(node: Node, regression: bool) -> bool:
    # puretree.flat: a node with no training weight answers with its parent's distribution.
    return (node.stats[0] if regression else sum(node.stats)) > 0


def _value(node: Node, inherited: tuple[float, ...] | None, regression: bool) -> tuple[float, ...]:
    """The distribution a row ending at ``node`` gets: its own, or (no weight) its parent's."""
    return node.stats if inherited is None or _has_weight(node, regression) else inherited


def root_values(feature: Feature, feature_type: str = "double") -> Values:
    """What a feature may be at the root: any value, missing, or (categorical) unseen. For an
    integer feature type, the type's values above its minimum (the minimum is the missing value).

    >>> root_values(Feature("x"), "int8")
    Values(known=Interval(lo=-128.0, hi=127.0), missing=True, unseen=False)
    """
    if not feature.is_numeric:
        return Values(Codes(range(len(feature.categories))), missing=True, unseen=True)
    span = lit.C_TYPES[feature_type][1] if feature_type in lit.C_TYPES else None
    return Values(Interval() if span is None else Interval(float(span[0]), float(span[1])), missing=True)


def route(split: Split, values: Values, feature: Feature, missing: str, regression: bool) -> Routing:
    """Where the rows reaching ``split`` go when its feature may be ``values`` (the tree's
    strategy for missing values: ``missing``).

    >>> from puretree.nodes import Leaf, Split, Threshold
    >>> s = Split(0, Threshold(1.5), (Leaf((2, 0)), Leaf((0, 3))), (2, 3))
    >>> r = route(s, Values(Interval(lo=2.0)), Feature("x"), "majority", False)
    >>> r.reached, r.weighs, r.to[1]
    ([1], True, Values(known=Interval(lo=2.0, hi=inf), missing=True, unseen=False))
    """
    test, kids = split.test, split.children
    n = len(kids)
    known = [values.known.meet(c) for c in test.constraints(feature)]
    codes = set(getattr(values.known, "codes", ()))
    # Known codes no branch takes (a multiway split with fewer branches than categories) stop there.
    uncovered = codes - {c for k in known for c in getattr(k, "codes", ())}
    side = getattr(test, "missing_branch", None)
    sur = split.surrogates
    # What the split's own test cannot decide: a missing value (unless the test learned its
    # side), an unseen category, a code no branch takes or (surrogates' ``known``) one not decided.
    undecided_codes = uncovered | (codes - set(sur.known) if sur is not None and sur.known is not None else set())
    nan_undecided = values.missing and side is None
    undecided = nan_undecided or values.unseen or bool(undecided_codes)
    missing_to = [values.missing and side == i for i in range(n)]
    stops = raises = spreads = weighs = False
    extra: list[set[int]] = [set() for _ in range(n)]
    unseen_to = [False] * n
    if sur is not None and undecided:
        # Surrogates (or their fallback) may send an undecided row down either branch, or stop it.
        for i in range(n):
            missing_to[i] = missing_to[i] or nan_undecided
            unseen_to[i] = values.unseen
            extra[i] = set(undecided_codes)
        stops = sur.fallback is None
    else:
        stops = values.unseen or bool(uncovered)
        if nan_undecided:
            if missing == "majority":
                missing_to[_heavy(kids, regression)] = True
                weighs = True
            elif missing == "distribute":
                missing_to = [True] * n
                spreads = weighs = True
            else:
                raises = True
    to: list[Values | None] = []
    for i in range(n):
        k = known[i]
        if extra[i]:
            k = Codes(tuple(k.codes) + tuple(extra[i]))
        v = Values(k, missing=missing_to[i], unseen=unseen_to[i])
        to.append(None if v.empty else v)
    return Routing(tuple(to), stops=stops, raises=raises, spreads=spreads, weighs=weighs)


@attrs.frozen
class _At:
    """What a node is handed down: what each feature may be, the distribution it would
    inherit (its parent's; None at the root) and whether rows are spread above it."""

    values: dict[int, Values]
    inherited: tuple[float, ...] | None
    spread_above: bool = False


def _context(tree: Tree, feature_type: str) -> tuple[Any, Any]:
    """The analysis' ``down`` (each child gets what its branch allows its split's feature to be,
    :func:`route`, and its parent's distribution) and ``values_at(at, j)``: what feature ``j``
    may be at a node (what the root allows, unless a split on the way narrowed it)."""
    schema, regression, missing = tree.schema, tree.schema.is_regression, tree.missing
    features = schema.features

    def values_at(at: _At, j: int) -> Values:
        return at.values[j] if j in at.values else root_values(features[j], feature_type)

    def down(node: Node, at: _At | None) -> list[_At | None]:
        if at is None:  # below an unreachable branch: nothing to hand down
            return [None] * len(children(node))
        assert isinstance(node, Split)
        r = route(node, values_at(at, node.feature), features[node.feature], missing, regression)
        mine = _value(node, at.inherited, regression)
        return [None if v is None else _At({**at.values, node.feature: v}, mine, at.spread_above or r.spreads) for v in r.to]

    return down, values_at


def _check_feature_type(feature_type: str) -> None:
    if feature_type not in lit.C_TYPES:
        raise CodegenError(f"unknown feature type {feature_type!r}; choose one of {list(lit.C_TYPES)}")


def remove_unreachable(tree: Tree, *, feature_type: str = "double") -> Tree:
    """The tree without the branches no input reaches: each becomes a leaf of its own
    statistics, and a split left with one reachable branch (every row reaching it, missing
    values included, goes there) is replaced by that branch, where that changes neither how its
    parent routes missing values nor an inherited distribution. ``predict`` and
    ``predict_proba`` are unchanged on every input; ``feature_type`` (``int8``, ``int16``,
    ``int32``: the code reads integers above the type's minimum) narrows what a numeric
    feature may be.

    >>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
    >>> from puretree.tree import Tree
    >>> low = Split(0, Threshold(5.0), (Leaf((2, 0)), Leaf((0, 0))), (2, 0))   # x <= 5.0 under x <= 3.0
    >>> tree = Tree(Split(0, Threshold(3.0), (low, Leaf((0, 4))), (2, 4)), Schema((Feature("x"),), ("a", "b")))
    >>> remove_unreachable(tree).root.children[0]
    Leaf(stats=(2.0, 0.0))
    """
    _check_feature_type(feature_type)
    regression, missing = tree.schema.is_regression, tree.missing
    down, values_at = _context(tree, feature_type)

    def step(node: Node, results: tuple[tuple[Node, Node | None], ...], at: _At | None) -> tuple[Node, Node | None]:
        # A node's result: (the node rewritten, what it may be replaced by: its one reachable
        # branch, rewritten), the replacement left to its parent, which knows its routing.
        if at is None or not results:
            return node, None
        assert isinstance(node, Split)
        r = route(node, values_at(at, node.feature), tree.schema.features[node.feature], missing, regression)
        mine = _value(node, at.inherited, regression)
        kids = [results[i][0] if v is not None else (c if type(c) is Leaf else Leaf(c.stats)) for i, (c, v) in enumerate(zip(node.children, r.to))]
        heavy = _heavy(node.children, regression)
        for i in r.reached:
            by = results[i][1]
            if by is None:
                continue
            old = node.children[i]
            # The replacement answers with the distribution the replaced branch gave it...
            if _value(by, _value(old, mine, regression), regression) != _value(by, mine, regression):
                continue
            trial = kids[:i] + [by] + kids[i + 1:]
            # ... and the split routes missing values as before (same heaviest child, same shares).
            if r.weighs and (_heavy(trial, regression) != heavy if missing == "majority" else not np.array_equal(_weights(trial, regression), _weights(node.children, regression))):
                continue
            kids = trial
        new = with_children(node, tuple(kids))
        return new, (kids[r.reached[0]] if r.passes else None)

    root, by = fold(tree.root, step, down=down, start=_At({}, None))
    if by is not None and _value(by, _value(tree.root, None, regression), regression) == _value(by, None, regression):
        root = by
    return tree if root == tree.root else attrs.evolve(tree, root=root)


def _class_of(value: tuple[float, ...]) -> int:
    """The class a distribution answers, as prediction computes it (puretree.flat's shares)."""
    row = np.asarray(value, dtype=np.float64)[None, :]
    total = row.sum(axis=1, keepdims=True)
    uniform = 1.0 / max(1, row.shape[1])
    return int(np.argmax(np.where(total > 0, row / np.where(total > 0, total, 1.0), uniform)))


def merge_same_class(tree: Tree, *, feature_type: str = "double") -> Tree:
    """The tree with every split whose reachable ends all answer one class replaced by a leaf
    of the split's own statistics (which answers that class: else the split stays). A row's
    predicted class is unchanged on every input; its probabilities are not: this rewrite is
    for code that answers the class alone (``proba=False``). Splits where a missing value may be
    refused ("error") or shared out ("distribute"), and everything below a share, stay as they
    are: there the answer is not one leaf's.

    >>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
    >>> from puretree.tree import Tree
    >>> t = Tree(Split(0, Threshold(1.0), (Leaf((3, 1)), Leaf((2, 0))), (5, 1)), Schema((Feature("x"),), ("a", "b")))
    >>> merge_same_class(t).root
    Leaf(stats=(5.0, 1.0))
    """
    _check_feature_type(feature_type)
    if tree.schema.is_regression:
        raise ParameterError("merge_same_class merges subtrees that answer one class; this is a regression tree")
    missing = tree.missing
    down, values_at = _context(tree, feature_type)

    def step(node: Node, results: tuple[tuple[Node, frozenset[int] | None], ...], at: _At | None) -> tuple[Node, frozenset[int] | None]:
        # A node's result: (the node rewritten, the classes its reachable ends answer; None when
        # a row's answer there is not one end's).
        if at is None:
            return node, frozenset()
        mine = _class_of(_value(node, at.inherited, False))
        if not results:
            return node, frozenset({mine})
        assert isinstance(node, Split)
        r = route(node, values_at(at, node.feature), tree.schema.features[node.feature], missing, False)
        new = with_children(node, tuple(n for n, _ in results))
        sets = [results[i][1] for i in r.reached]
        if r.raises or r.spreads or any(s is None for s in sets):
            return new, None
        classes = frozenset({mine}).union(*[s for s in sets if s is not None])
        if len(classes) == 1 and not at.spread_above:
            return Leaf(node.stats), classes
        return new, classes

    root, _ = fold(tree.root, step, down=down, start=_At({}, None))
    return tree if root == tree.root else attrs.evolve(tree, root=root)


def snap_thresholds(tree: Tree, feature_type: str) -> Tree:
    """The tree with each threshold on the grid of the readings ``feature_type`` holds: for
    ``int8``/``int16``/``int32``, ``floor(t)`` within the type's range (for an integer ``x``,
    ``x <= t`` exactly when ``x <= floor(t)``); for ``float``, the largest float32 not above
    ``t``; for ``double``, unchanged. It answers as the model on every reading of the type
    (not on values between the grid's points: it is the tree the code of that type runs).
    For quantized code (``quantize=``), the grid is that of the quantized readings, and
    :func:`puretree.codegen.lower.quantized_tree` is the model's tree on it.

    >>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
    >>> from puretree.tree import Tree
    >>> t = Tree(Split(0, Threshold(2.7), (Leaf((1, 0)), Leaf((0, 1))), (1, 1)), Schema((Feature("x"),), ("a", "b")))
    >>> snap_thresholds(t, "int16").root.test, snap_thresholds(t, "int8") == snap_thresholds(t, "int16")
    (Threshold(value=2.0), True)
    """
    _check_feature_type(feature_type)
    if feature_type == "double":
        return tree
    span = lit.C_TYPES[feature_type][1]

    def grid(t: float) -> float:
        if not math.isfinite(t):  # +inf: only missing values go right, on any grid
            return t
        if span is None:  # float32: -inf below every finite float32 is no threshold to keep
            f = float(lit.float32_floor(t))
            return f if math.isfinite(f) else t
        return float(min(max(math.floor(t), span[0]), span[1]))

    def rule(node: Node) -> Node | None:
        # A cut ``x <= value`` (the one test whose branches are the two sides of a value).
        if type(node) is Split and tree.schema.features[node.feature].is_numeric and isinstance(getattr(node.test, "value", None), float):
            t = grid(node.test.value)
            if t != node.test.value:
                return Split(node.feature, attrs.evolve(node.test, value=t), node.children, node.stats, surrogates=node.surrogates)
        return None

    return rewrite(tree, rule)


def certified(tree: Tree, *, feature_type: str = "double", proba: bool = True) -> Tree:
    """The rewrites that fit code reading ``feature_type`` and answering probabilities
    (``proba``) or the class alone: :func:`snap_thresholds`, then :func:`remove_unreachable`,
    then (classification without ``proba``) :func:`merge_same_class`. What
    ``generate(..., certified=True)`` lowers; :func:`puretree.codegen.verify` with
    ``certified=True`` checks that code against the original model.

    >>> from puretree.datasets import load_playtennis
    >>> from puretree.grow import id3
    >>> from puretree.fold import n_nodes
    >>> tree = id3(load_playtennis())
    >>> n_nodes(tree), n_nodes(certified(tree)), n_nodes(certified(tree, proba=False))
    (8, 8, 8)
    """
    out = remove_unreachable(snap_thresholds(tree, feature_type), feature_type=feature_type)
    if not proba and not tree.schema.is_regression:
        out = merge_same_class(out, feature_type=feature_type)
    return out
