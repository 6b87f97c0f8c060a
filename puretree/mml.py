"""Minimum message length (MML) of a decision tree, as Wallace and Patrick (1993) code it, and
the two uses seed 001 points to: pruning by it, and stopping growth by it.

A tree and the training labels are sent as one message: first the tree, then each leaf's
class labels. Shorter is better; a subtree survives only when it shortens the message.

- **each node**: 1 bit, leaf or split;
- **each split**: ``log2(a)`` bits naming its attribute, ``a`` being the attributes available
  there (every numeric attribute, and the categorical ones no multiway split above has
  used); a threshold split adds ``log2(c)`` bits naming its cut among the ``c`` candidate
  cuts (the node's distinct training values of the attribute, minus one); a two-way split on
  a categorical attribute (CART's subsets) adds ``log2(2**(m-1) - 1)`` for its grouping of
  the attribute's ``m`` categories;
- **each leaf**: its class counts ``n_1 .. n_k`` (``n`` rows, ``k`` classes of the schema)
  under a uniform Dirichlet prior, ``log2((n+k-1)! / ((k-1)! n_1! ... n_k!))`` bits: the
  length of the labels in the adaptive (Laplace) code. Computed with ``math.lgamma``
  (``x! = Gamma(x + 1)``), which also gives weighted, fractional counts a length
  (missing values distributed over branches, row weights): a smooth interpolation, not a
  count of messages.

A worked example, PlayTennis' ID3 tree (``outlook``, then ``humidity`` under sunny and
``wind`` under rain; eight nodes, five leaves, no numeric attribute):

- nodes: 8 x 1 bit = 8;
- splits: outlook among 4 attributes, ``log2 4 = 2``; humidity and wind each among the 3
  left (outlook is used), ``2 log2 3``;
- leaves: overcast (0 no, 4 yes): ``log2(5!/(1! 0! 4!)) = log2 5``; sunny-high (3, 0):
  ``log2(4!/3!) = 2``; sunny-normal (0, 2): ``log2 3``; rain-strong (2, 0): ``log2 3``;
  rain-weak (0, 3): ``2``;
- total: ``14 + 4 log2 3 + log2 5 = 22.66`` bits.

A single leaf (5 no, 9 yes) costs ``1 + log2(15!/(1! 5! 9!)) = 1 + log2 30030 = 15.87`` bits:
shorter. On fourteen days the tree does not pay for itself, and MML pruning keeps one leaf.

>>> from puretree.datasets import load_playtennis
>>> from puretree.grow import id3
>>> tree = id3(load_playtennis())
>>> round(message_length(tree), 4), round(14 + 4 * math.log2(3) + math.log2(5), 4)
(22.6618, 22.6618)
>>> round(leaf_bits((5, 9)), 4), round(math.log2(30030), 4)
(14.8741, 14.8741)
>>> mml_prune(tree).root
Leaf(stats=(5.0, 9.0))
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np

from .data import encode_features
from .errors import ParameterError
from .fold import fold
from .nodes import Leaf, Node, Schema, Split, Tree, children, with_children

__all__ = ["leaf_bits", "split_bits", "node_bits", "message_length", "mml_prune", "mml_stop", "MMLStop"]

_LN2 = math.log(2.0)


def leaf_bits(counts: Sequence[float] | np.ndarray, k: int | None = None) -> float:
    """Bits for a leaf's class labels given their counts, under a uniform Dirichlet prior
    over ``k`` classes (default: as many as ``counts``):
    ``log2((n+k-1)! / ((k-1)! n_1! ... n_k!))``.

    >>> round(leaf_bits((3, 0)), 6), leaf_bits((0, 0)), round(leaf_bits((1, 1)), 6)
    (2.0, 0.0, 2.584963)
    """
    values = [float(c) for c in counts]
    k = len(values) if k is None else k
    if k < 1 or any(c < 0 or not math.isfinite(c) for c in values):
        raise ParameterError(f"leaf_bits needs finite non-negative counts over at least one class, got {list(counts)!r}")
    n = sum(values)
    nats = math.lgamma(n + k) - math.lgamma(k) - sum(math.lgamma(c + 1.0) for c in values)
    return max(0.0, nats / _LN2)  # lgamma's rounding may leave -1e-16 for a one-class leaf


def split_bits(n_available: int, n_choices: int = 1) -> float:
    """Bits naming a split: its attribute among ``n_available`` and, for a cut or a
    grouping, the one chosen among ``n_choices``.

    >>> split_bits(4), split_bits(1, 4)
    (2.0, 2.0)
    """
    return math.log2(max(1, int(n_available))) + math.log2(max(1, int(n_choices)))


def _test_choices(node: Split, schema: Schema, values: np.ndarray | None) -> int:
    """The candidates the split's test was chosen among (1: a multiway split has one). By
    the test's kind name: a kind of test of your own is charged for its attribute only."""
    test = node.test
    if test.kind == "threshold":
        if values is None:
            # Without the training rows: at most one cut between each two of the node's rows.
            return max(1, math.ceil(sum(node.counts)) - 1)
        return max(1, len(np.unique(values[~np.isnan(values)])) - 1)
    if test.kind == "subset":
        return max(1, 2 ** (len(schema.features[node.feature].categories) - 1) - 1)
    return 1


def node_bits(node: Node, schema: Schema, *, n_available: int, values: np.ndarray | None = None) -> float:
    """A node's own share of the message: one bit, plus its split's bits (its leaf labels'
    bits for a leaf). ``values``: the node's training values of the split's attribute (to
    count a threshold's candidate cuts)."""
    if isinstance(node, Leaf):
        return 1.0 + leaf_bits(node.counts, len(schema.classes))
    assert isinstance(node, Split)
    return 1.0 + split_bits(n_available, _test_choices(node, schema, values))


def _classification(tree: Tree) -> None:
    if tree.schema.is_regression:
        raise ParameterError("the message length needs a classification tree; this is a regression tree")


def _down(tree: Tree, X: np.ndarray | None) -> Any:
    """Top-down: each child's (multiway-used categorical features, training rows reaching it).

    Rows whose value is missing (or a category never seen) follow the tree's strategy: every
    branch under "distribute", the heaviest branch otherwise.
    """
    schema = tree.schema

    def down(node: Split, value: tuple[frozenset[int], np.ndarray | None]) -> list[tuple[frozenset[int], np.ndarray | None]]:
        used, rows = value
        kids = children(node)
        below = used | {node.feature} if node.test.kind == "multiway" else used
        if rows is None or X is None:
            return [(below, None)] * len(kids)
        branch = node.test.branch_of(X[rows, node.feature], schema.features[node.feature])
        lost = branch < 0
        if lost.any():
            if tree.missing == "distribute":
                return [(below, rows[(branch == b) | lost]) for b in range(len(kids))]
            heavy = int(np.argmax([sum(k.stats) for k in kids]))
            branch = np.where(lost, heavy, branch)
        return [(below, rows[branch == b]) for b in range(len(kids))]

    return down


def _fold_costs(tree: Tree, X: Any, prune: bool) -> tuple[Node, float]:
    _classification(tree)
    schema = tree.schema
    Xe = None if X is None else encode_features(schema, X)
    n_features = len(schema.features)
    start: tuple[frozenset[int], np.ndarray | None] = (frozenset(), None if Xe is None else np.arange(Xe.shape[0]))

    def f(node: Node, results: tuple[tuple[Node, float], ...], value: tuple[frozenset[int], np.ndarray | None]) -> tuple[Node, float]:
        if not results:
            return node, node_bits(node, schema, n_available=0)
        used, rows = value
        assert isinstance(node, Split)
        values = None if rows is None or Xe is None else Xe[rows, node.feature]
        cost = node_bits(node, schema, n_available=n_features - len(used), values=values) + sum(c for _, c in results)
        kids = tuple(n for n, _ in results)
        rebuilt = node if all(a is b for a, b in zip(kids, children(node))) else with_children(node, kids)
        if prune:
            as_leaf = node_bits(Leaf(node.counts), schema, n_available=0)
            if as_leaf <= cost:  # a tie: the smaller tree
                return Leaf(node.counts), as_leaf
        return rebuilt, cost

    return fold(tree, f, down=_down(tree, Xe), start=start)


def message_length(tree: Tree, X: Any = None) -> float:
    """The tree's message length in bits (module docstring): the tree, then its leaves' labels.

    ``X``: the training rows (anything :func:`~puretree.data.encode_features` takes; labels
    are not needed, the leaves' counts hold them). They count each threshold's candidate
    cuts; without them a threshold split is charged for one cut between each two of its
    rows (``ceil(weight) - 1``), an upper bound.

    >>> from puretree.datasets import load_temperature
    >>> from puretree.grow import id3
    >>> data = load_temperature()
    >>> tree = id3(data)         # temperature <= 54: no (2); <= 85: yes (3); else no (1)
    >>> bits = 5 + math.log2(5) + math.log2(3) + (math.log2(3) + 2 + 1)
    >>> round(message_length(tree, data), 4) == round(bits, 4)
    True
    """
    return _fold_costs(tree, X, prune=False)[1]


def mml_prune(tree: Tree, X: Any = None) -> Tree:
    """MML pruning: bottom-up, a subtree becomes a leaf (of its own counts) when the leaf's
    message is no longer than the subtree's. Because the message length is a sum over nodes,
    bottom-up gives the shortest message among all prunings of ``tree``. ``X``: the training
    rows, as for :func:`message_length`.

    >>> from puretree.datasets import load_temperature
    >>> from puretree.grow import id3
    >>> mml_prune(id3(load_temperature())).root
    Leaf(stats=(3.0, 3.0))
    """
    root, _ = _fold_costs(tree, X, prune=True)
    return attrs.evolve(tree, root=root)


@attrs.frozen
class MMLStop:
    """An ``accept`` hook for :func:`~puretree.grow.grow`: allow a split only when the node
    sent as that split with leaf children is strictly shorter than the node sent as a leaf
    (a one-step look-ahead of :func:`mml_prune`'s comparison). ``wants_context`` asks the
    builder for the node's rows and the candidate (to count attributes and cuts); such a hook
    makes ``grow`` use its recursive builder."""

    wants_context = True

    def __call__(self, parent: Any, routed: Any, *, node: Any = None, candidate: Any = None) -> bool:
        if node is None or candidate is None:
            raise ParameterError("mml_stop() needs the node's rows: grow it with engine='reference' or 'auto'")
        k = len(node.schema.classes)
        n_available = len(node.numeric) + len(node.categorical)
        if candidate.kind == "threshold":
            column = node.X[:, candidate.feature]
            choices = max(1, len(np.unique(column[~np.isnan(column)])) - 1)
        elif candidate.kind == "subset":
            choices = max(1, 2 ** (len(node.schema.features[candidate.feature].categories) - 1) - 1)
        else:
            choices = 1
        as_split = split_bits(n_available, choices) + sum(1.0 + leaf_bits(c, k) for c in np.asarray(routed, dtype=np.float64))
        return bool(as_split < leaf_bits(np.asarray(parent, dtype=np.float64), k))

    def __repr__(self) -> str:
        return "mml_stop()"


def mml_stop() -> MMLStop:
    """The MML stopping rule for ``grow(..., accept=mml_stop())`` (:class:`MMLStop`).

    >>> from puretree.datasets import load_playtennis
    >>> from puretree.grow import id3
    >>> id3(load_playtennis(), accept=mml_stop()).root
    Leaf(stats=(5.0, 9.0))
    """
    return MMLStop()
