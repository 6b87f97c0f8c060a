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

Two options generalise it as Wallace and Patrick do (the defaults are the formula above):
``alpha=``, the leaves' prior a symmetric Dirichlet of that concentration (:func:`leaf_bits`;
below 1 pure leaves cost less, which data with many classes needs), and
``code="wallace-patrick"``, their code of the tree's shape (below a split of ``a`` branches a
node is a split with probability ``1/a``: :func:`structure_bits`) and of its cuts (by binary
chop from the median: :func:`cut_bits`) in place of one bit per node and a uniform cut.

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

from ..data import encode_features
from ..errors import ParameterError
from ..fold import fold
from ..nodes import Leaf, Node, Schema, Split, children, with_children
from ..tree import Tree

__all__ = ["CODES", "leaf_bits", "split_bits", "structure_bits", "cut_bits", "node_bits", "message_length", "mml_prune", "mml_stop", "MMLStop"]

_LN2 = math.log(2.0)


def _check_alpha(alpha: float) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating, np.integer)) or not (math.isfinite(alpha) and alpha > 0):
        raise ParameterError(f"alpha (the Dirichlet concentration) must be a finite number > 0, got {alpha!r}")
    return float(alpha)


def leaf_bits(counts: Sequence[float] | np.ndarray, k: int | None = None, *, alpha: float = 1.0) -> float:
    """Bits for a leaf's class labels given their counts, under a symmetric Dirichlet prior of
    concentration ``alpha`` over ``k`` classes (default: as many as ``counts``):
    ``log2(Gamma(n+k*alpha) Gamma(alpha)**k / (Gamma(k*alpha) Gamma(n_1+alpha) ... Gamma(n_k+alpha)))``,
    the length of the labels in the adaptive code that sends each label with probability
    ``(n_i + alpha) / (n + k*alpha)`` (``n_i`` of its class sent before it). ``alpha=1``, the
    uniform prior, is ``log2((n+k-1)! / ((k-1)! n_1! ... n_k!))``; ``alpha < 1`` makes pure
    leaves cheaper and mixed ones dearer.

    >>> round(leaf_bits((3, 0)), 6), leaf_bits((0, 0)), round(leaf_bits((1, 1)), 6)
    (2.0, 0.0, 2.584963)
    >>> round(leaf_bits((3, 0), alpha=0.5), 6)   # 1/2 * 3/4 * 5/6 of the labels' probability
    1.678072
    """
    values = [float(c) for c in counts]
    k = len(values) if k is None else k
    a = _check_alpha(alpha)
    if k < 1 or any(c < 0 or not math.isfinite(c) for c in values):
        raise ParameterError(f"leaf_bits needs finite non-negative counts over at least one class, got {list(counts)!r}")
    n = sum(values)
    if a == 1.0:  # the closed formula, term for term (lgamma(1) = 0)
        nats = math.lgamma(n + k) - math.lgamma(k) - sum(math.lgamma(c + 1.0) for c in values)
    else:
        # Classes absent from ``counts`` (k > len(counts)) add lgamma(alpha) - lgamma(alpha) = 0.
        nats = math.lgamma(n + k * a) - math.lgamma(k * a) - sum(math.lgamma(c + a) - math.lgamma(a) for c in values)
    return max(0.0, nats / _LN2)  # lgamma's rounding may leave -1e-16 for a one-class leaf


def split_bits(n_available: int, n_choices: int = 1) -> float:
    """Bits naming a split: its attribute among ``n_available`` and, for a cut or a
    grouping, the one chosen among ``n_choices``.

    >>> split_bits(4), split_bits(1, 4)
    (2.0, 2.0)
    """
    return math.log2(max(1, int(n_available))) + math.log2(max(1, int(n_choices)))


#: The codes of a tree's shape and cuts: ``"flat"`` (the issue's: one bit per node, a cut
#: uniform among the candidates) and ``"wallace-patrick"`` (theirs: a node below a split of
#: ``a`` branches is a split with probability ``1/a``; a cut coded by binary chop).
CODES = ("flat", "wallace-patrick")


def _check_code(code: str) -> str:
    if not isinstance(code, str) or code not in CODES:
        raise ParameterError(f"code must be one of {list(CODES)}, got {code!r}")
    return code


def structure_bits(is_leaf: bool, parent_arity: int | None = None, *, code: str = "flat") -> float:
    """Bits saying whether a node is a leaf or a split. ``"flat"``: one bit. ``"wallace-patrick"``:
    one bit at the root; below a split of ``a`` branches, ``P(split) = 1/a`` and
    ``P(leaf) = (a-1)/a`` (for binary trees the same one bit; a multiway split's many leaves
    cost less, and the code still sums to one: each split expects one split among its children).

    >>> structure_bits(True), structure_bits(False, 4, code="wallace-patrick")
    (1.0, 2.0)
    >>> round(structure_bits(True, 4, code="wallace-patrick"), 4)    # log2(4/3)
    0.415
    """
    if _check_code(code) == "flat" or parent_arity is None:
        return 1.0
    a = max(2, int(parent_arity))
    return math.log2(a / (a - 1)) if is_leaf else math.log2(a)


def _chop_depth(index: int, n: int) -> int:
    """The depth at which a binary chop over ``n`` sorted positions (the median first, at depth
    1; ``(lo + hi) // 2``) reaches ``index``."""
    lo, hi, d = 0, n - 1, 1
    while True:
        mid = (lo + hi) // 2
        if index == mid:
            return d
        lo, hi, d = (lo, mid - 1, d + 1) if index < mid else (mid + 1, hi, d + 1)


def _chop_total(n: int) -> float:
    """The ``n`` positions' probabilities ``2**-(2d-1)`` summed: the chop fills every level
    but its deepest, ``D``, which holds the rest."""
    deepest = n.bit_length()
    full = 1.0 - 2.0 ** -(deepest - 1)  # levels 1 .. D-1: 2**(d-1) positions of 2**-(2d-1)
    return full + (n - 2 ** (deepest - 1) + 1) * 2.0 ** -(2 * deepest - 1)


def cut_bits(index: int | None, n_cuts: int, *, code: str = "flat") -> float:
    """Bits naming a threshold's cut, the ``index``-th (from 0, in order) of ``n_cuts``
    candidates. ``"flat"``: ``log2(n_cuts)``. ``"wallace-patrick"``: by binary chop, the median
    cut ``1`` bit, the quartiles ``3``, the octiles ``5`` (``2d - 1`` at depth ``d``), scaled
    so that the ``n_cuts`` probabilities sum to one. ``index=None`` (the cut unknown): the
    longest code, an upper bound.

    Seven cuts: the median at depth 1, two quartiles at 2, four octiles at 3; their
    probabilities 1/2 + 2/8 + 4/32 sum to 7/8, so each code shortens by ``log2(8/7)``:

    >>> round(cut_bits(3, 7), 4), round(cut_bits(3, 7, code="wallace-patrick"), 4)
    (2.8074, 0.8074)
    >>> [round(cut_bits(i, 7, code="wallace-patrick") + math.log2(8 / 7), 4) for i in range(7)]
    [5.0, 3.0, 5.0, 1.0, 5.0, 3.0, 5.0]
    """
    n = max(1, int(n_cuts))
    if _check_code(code) == "flat":
        return math.log2(n)
    d = n.bit_length() if index is None else _chop_depth(min(max(int(index), 0), n - 1), n)
    return (2 * d - 1) + math.log2(_chop_total(n))


def _test_bits(node: Split, schema: Schema, values: np.ndarray | None, code: str) -> float:
    """Bits naming the split's test among its attribute's candidates (0: a multiway split has
    one). By the test's kind name: a kind of test of your own is charged for its attribute only."""
    test = node.test
    if test.kind == "threshold":
        if values is None:
            # Without the training rows: at most one cut between each two of the node's rows.
            return cut_bits(None, max(1, math.ceil(sum(node.counts)) - 1), code=code)
        distinct = np.unique(values[~np.isnan(values)])
        index = int(np.searchsorted(distinct, test.value, side="right")) - 1
        return cut_bits(index, max(1, len(distinct) - 1), code=code)
    if test.kind == "subset":
        return math.log2(max(1, 2 ** (len(schema.features[node.feature].categories) - 1) - 1))
    return 0.0


def node_bits(
    node: Node,
    schema: Schema,
    *,
    n_available: int,
    values: np.ndarray | None = None,
    alpha: float = 1.0,
    parent_arity: int | None = None,
    code: str = "flat",
) -> float:
    """A node's own share of the message: leaf or split (:func:`structure_bits`; ``parent_arity``:
    the branches of its parent, ``None`` at the root), plus its split's bits (its leaf labels'
    bits for a leaf, under the Dirichlet concentration ``alpha``). ``values``: the node's
    training values of the split's attribute (to count a threshold's candidate cuts)."""
    if isinstance(node, Leaf):
        return structure_bits(True, parent_arity, code=code) + leaf_bits(node.counts, len(schema.classes), alpha=alpha)
    assert isinstance(node, Split)
    return structure_bits(False, parent_arity, code=code) + math.log2(max(1, int(n_available))) + _test_bits(node, schema, values, code)


def _classification(tree: Tree) -> None:
    if tree.schema.is_regression:
        raise ParameterError("the message length needs a classification tree; this is a regression tree")


_Down = tuple[frozenset[int], "np.ndarray | None", "int | None"]


def _down(tree: Tree, X: np.ndarray | None) -> Any:
    """Top-down: each child's (multiway-used categorical features, training rows reaching it,
    its parent's number of branches).

    Rows whose value is missing (or a category never seen) follow the tree's strategy: every
    branch under "distribute", the heaviest branch otherwise.
    """
    schema = tree.schema

    def down(node: Split, value: _Down) -> list[_Down]:
        used, rows, _ = value
        kids = children(node)
        a = len(kids)
        below = used | {node.feature} if node.test.kind == "multiway" else used
        if rows is None or X is None:
            return [(below, None, a)] * a
        branch = node.test.branch_of(X[rows, node.feature], schema.features[node.feature])
        lost = branch < 0
        if lost.any():
            if tree.missing == "distribute":
                return [(below, rows[(branch == b) | lost], a) for b in range(a)]
            heavy = int(np.argmax([sum(k.stats) for k in kids]))
            branch = np.where(lost, heavy, branch)
        return [(below, rows[branch == b], a) for b in range(a)]

    return down


def _fold_costs(tree: Tree, X: Any, prune: bool, alpha: float, code: str) -> tuple[Node, float]:
    _classification(tree)
    alpha, code = _check_alpha(alpha), _check_code(code)
    schema = tree.schema
    Xe = None if X is None else encode_features(schema, X)
    n_features = len(schema.features)
    start: _Down = (frozenset(), None if Xe is None else np.arange(Xe.shape[0]), None)

    def f(node: Node, results: tuple[tuple[Node, float], ...], value: _Down) -> tuple[Node, float]:
        used, rows, parent_arity = value
        as_leaf = node_bits(Leaf(node.counts), schema, n_available=0, alpha=alpha, parent_arity=parent_arity, code=code)
        if not results:
            return node, as_leaf
        assert isinstance(node, Split)
        values = None if rows is None or Xe is None else Xe[rows, node.feature]
        own = node_bits(node, schema, n_available=n_features - len(used), values=values, parent_arity=parent_arity, code=code)
        cost = own + sum(c for _, c in results)
        kids = tuple(n for n, _ in results)
        rebuilt = node if all(a is b for a, b in zip(kids, children(node))) else with_children(node, kids)
        if prune and as_leaf <= cost:  # a tie: the smaller tree
            return Leaf(node.counts), as_leaf
        return rebuilt, cost

    return fold(tree, f, down=_down(tree, Xe), start=start)


def message_length(tree: Tree, X: Any = None, *, alpha: float = 1.0, code: str = "flat") -> float:
    """The tree's message length in bits (module docstring): the tree, then its leaves' labels
    (under a symmetric Dirichlet prior of concentration ``alpha``: :func:`leaf_bits`).

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
    return _fold_costs(tree, X, prune=False, alpha=alpha, code=code)[1]


def mml_prune(tree: Tree, X: Any = None, *, alpha: float = 1.0, code: str = "flat") -> Tree:
    """MML pruning: bottom-up, a subtree becomes a leaf (of its own counts) when the leaf's
    message is no longer than the subtree's. Because the message length is a sum over nodes,
    bottom-up gives the shortest message among all prunings of ``tree``. ``X``: the training
    rows, and ``alpha`` the leaves' Dirichlet concentration, as for :func:`message_length`.

    >>> from puretree.datasets import load_temperature
    >>> from puretree.grow import id3
    >>> mml_prune(id3(load_temperature())).root
    Leaf(stats=(3.0, 3.0))
    """
    root, _ = _fold_costs(tree, X, prune=True, alpha=alpha, code=code)
    return attrs.evolve(tree, root=root)


@attrs.frozen
class MMLStop:
    """An ``accept`` hook for :func:`~puretree.grow.grow`: allow a split only when the node
    sent as that split with leaf children is strictly shorter than the node sent as a leaf
    (a one-step look-ahead of :func:`mml_prune`'s comparison). ``wants_context`` asks the
    builder for the node's rows and the candidate (to count attributes and cuts); such a hook
    makes ``grow`` use its recursive builder. ``alpha``: the leaves' Dirichlet concentration
    (:func:`leaf_bits`)."""

    alpha: float = attrs.field(default=1.0, converter=_check_alpha)
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
        a = self.alpha
        as_split = split_bits(n_available, choices) + sum(1.0 + leaf_bits(c, k, alpha=a) for c in np.asarray(routed, dtype=np.float64))
        return bool(as_split < leaf_bits(np.asarray(parent, dtype=np.float64), k, alpha=a))

    def __repr__(self) -> str:
        return "mml_stop()" if self.alpha == 1.0 else f"mml_stop(alpha={self.alpha!r})"


def mml_stop(*, alpha: float = 1.0) -> MMLStop:
    """The MML stopping rule for ``grow(..., accept=mml_stop())`` (:class:`MMLStop`), with the
    leaves' Dirichlet concentration ``alpha`` (:func:`leaf_bits`).

    >>> from puretree.datasets import load_playtennis
    >>> from puretree.grow import id3
    >>> id3(load_playtennis(), accept=mml_stop()).root
    Leaf(stats=(5.0, 9.0))
    """
    return MMLStop(alpha)
