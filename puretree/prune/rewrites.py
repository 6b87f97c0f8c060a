"""The pruning rewrites: each a pure function ``Tree -> Tree`` built on the traversal kit.

A pruned node becomes a :class:`~puretree.nodes.Leaf` carrying the node's own ``counts``. A
split's counts are already the sum of its training rows, so the new leaf predicts the node's
training majority, exactly what the seeds prescribe. Local decisions are bottom-up: a
:func:`~puretree.fold.rewrite` rule (:func:`simplify`) or a :func:`~puretree.fold.fold` that
carries each subtree's estimated errors up with it (:func:`pessimistic`, :func:`penalty`).
Global, greedy decisions (:func:`reduced_error`, the cost-complexity sequence) are computed on
the pre-order arrays of :func:`puretree.flat.flatten` and applied with :func:`collapse`, a
rewrite that is handed each node's pre-order id top-down.

>>> from puretree.datasets import load_playtennis
>>> from puretree.grow import id3
>>> from puretree.fold import n_leaves
>>> tree = id3(load_playtennis())
>>> n_leaves(tree), n_leaves(penalty(tree, per_leaf=1.0)), n_leaves(penalty(tree, per_leaf=5.0))
(5, 5, 1)
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import attrs
import numpy as np

from ..errors import ParameterError
from ..estimates import C45_MARGIN, check_cf, check_classification, check_penalty, pessimistic_errors, training_errors
from ..flat import LEAF, flatten
from ..fold import fold, rewrite, subtree_sizes, subtree_sums, walk
from ..nodes import Leaf, Node, children, with_children
from .raising import pessimistic_with_raising
from ..tree import Tree
from ..validation import validation_counts

__all__ = [
    "collapse",
    "is_pruning_of",
    "same_class",
    "simplify",
    "reduced_error",
    "pessimistic",
    "penalty",
]


def collapse(tree: Tree, node_ids: Iterable[int]) -> Tree:
    """The tree with the nodes at the given pre-order ids (as in :func:`~puretree.predict.apply`)
    replaced by leaves of their own counts. Ids inside an already collapsed subtree are ignored.

    >>> from puretree.datasets import load_playtennis
    >>> from puretree.grow import id3
    >>> print(collapse(id3(load_playtennis()), [5]).to_text())
    outlook = overcast: yes (4)
    outlook = rain
    |   wind = strong: no (2)
    |   wind = weak: yes (3)
    outlook = sunny: no (5/2)
    """
    flat = flatten(tree)
    n = flat.n_nodes
    wanted = np.zeros(n, dtype=bool)
    for i in node_ids:
        if not 0 <= int(i) < n:
            raise ParameterError(f"node id {i} is not in this tree (it has {n} nodes)")
        wanted[int(i)] = True

    def child_ids(node: Node, i: int) -> list[int]:
        start = flat.child_offset[i]
        return flat.child_table[start : start + flat.n_children[i]].tolist()

    def rule(node: Node, i: int) -> Node | None:
        return Leaf(node.stats) if wanted[i] and children(node) else None

    return rewrite(tree, rule, down=child_ids, start=0)


#: A split's fields that are not its test: the subtrees below it and its training counts.
_NOT_THE_TEST = frozenset({"left", "right", "children", "counts"})


def _same_split(p: Node, o: Node) -> bool:
    """Whether two splits test the same thing: the same kind, as many branches, and equal
    fields apart from their children and counts (feature and threshold, category subset or
    test), whatever the kind; fields left out of equality (a cached digest) are not compared."""
    if type(p) is not type(o) or len(children(p)) != len(children(o)):
        return False
    return all(getattr(p, f.name) == getattr(o, f.name) for f in attrs.fields(type(p)) if f.eq and f.name not in _NOT_THE_TEST)


def is_pruning_of(pruned: Tree | Node, original: Tree | Node) -> bool:
    """Whether ``pruned`` is ``original`` with some subtrees replaced by leaves of their counts:
    every split of ``pruned`` is the original's (same test, same counts) and each of its leaves
    stands where the original has a node with the same counts.

    >>> from puretree.datasets import load_playtennis
    >>> from puretree.grow import id3
    >>> tree = id3(load_playtennis())
    >>> is_pruning_of(penalty(tree, per_leaf=5.0), tree), is_pruning_of(tree, penalty(tree, per_leaf=5.0))
    (True, False)
    """
    a = pruned.root if isinstance(pruned, Tree) else pruned
    b = original.root if isinstance(original, Tree) else original
    # Each node of the pruned tree is handed the original's node at the same place; all()
    # stops at the first mismatch, before the walk asks for the children of a mismatched split.
    pairs = walk(a, lambda p, o: children(o), b)
    return all(p.stats == o.stats and (isinstance(p, Leaf) or _same_split(p, o)) for p, o in pairs)


# -- simplify ----------------------------------------------------------------------------


def same_class(node: Node) -> Node | None:
    """The rewrite rule behind :func:`simplify`: a split whose children are all leaves
    predicting one class becomes a leaf (None otherwise). Combine it with other rules:

    >>> from puretree.fold import first_of, rewrite
    >>> from puretree.nodes import Feature, NumericSplit, Schema
    >>> few = lambda n: Leaf(n.counts) if children(n) and sum(n.counts) < 4 else None   # fewer than 4 rows
    >>> left = NumericSplit(0, 0.5, Leaf((0, 1)), Leaf((1, 1)), (1, 2))
    >>> right = NumericSplit(0, 2.0, Leaf((2, 0)), Leaf((3, 1)), (5, 1))
    >>> t = Tree(NumericSplit(0, 1.0, left, right, (6, 3)), Schema((Feature("x"),), ("a", "b")))
    >>> out = rewrite(t, first_of(same_class, few)).root
    >>> out.left, out.right
    (Leaf(stats=(1.0, 2.0)), Leaf(stats=(5.0, 1.0)))
    """
    kids = children(node)
    if not kids or not all(isinstance(k, Leaf) for k in kids):
        return None
    # An empty branch predicts its parent's distribution, hence its parent's majority.
    own = int(np.argmax(node.counts))
    predicted = {int(np.argmax(k.counts)) if sum(k.counts) > 0 else own for k in kids}
    return Leaf(node.counts) if len(predicted) == 1 else None


def simplify(tree: Tree) -> Tree:
    """Collapse every split whose branches all end in leaves predicting the same class
    (bottom-up, so chains of such splits collapse in one pass). Predicted labels do not change.

    >>> from puretree.nodes import Feature, NumericSplit, Schema
    >>> schema = Schema((Feature("x"),), ("a", "b"))
    >>> t = Tree(NumericSplit(0, 1.0, Leaf((3, 1)), Leaf((2, 0)), (5, 1)), schema)
    >>> simplify(t).root
    Leaf(stats=(5.0, 1.0))
    """
    check_classification(tree, "simplify")
    return rewrite(tree, same_class)


# -- bottom-up pruning by an error estimate ------------------------------------------------


def _prune_by_estimate(tree: Tree, estimate: Callable[[tuple[float, ...]], float], *, margin: float = 0.0) -> Tree:
    """Bottom-up, replace a split by a leaf of its counts when ``estimate(counts)`` is at most
    its (already pruned) subtree's estimate plus ``margin``; a subtree's estimate is the sum
    of its leaves'. A fold whose result is ``(node after pruning, its estimate)``."""

    def step(node: Node, kids: tuple[tuple[Node, float], ...]) -> tuple[Node, float]:
        as_leaf = estimate(node.stats)
        if not kids:
            return node, as_leaf
        subtree = sum(e for _, e in kids)
        if as_leaf <= subtree + margin:
            return Leaf(node.stats), as_leaf
        return with_children(node, tuple(k for k, _ in kids)), subtree

    root, _ = fold(tree.root, step)
    return tree if root is tree.root else attrs.evolve(tree, root=root)


def pessimistic(tree: Tree, X: Any = None, y: Any = None, *, cf: float = 0.25, raising: bool = True, sample_weight: Any = None) -> Tree:
    """C4.5's error-based pruning. Given the training data (``X``, ``y``) it is J48's: subtree
    replacement and **subtree raising** (:func:`puretree.prune.raising.pessimistic_with_raising`, with
    ``raising=False`` replacement only, recounted from the data); without data, subtree
    replacement alone, from the counts the tree holds, as described below.

    The estimated errors of a leaf are its training errors plus
    :func:`~puretree.estimates.c45_added_errors`; of a subtree, the sum over its (already
    pruned) leaves. A subtree is replaced by a leaf when the leaf's estimate is not above the
    subtree's plus 0.1 (Quinlan's and Weka's margin). A smaller ``cf`` prunes more.

    **Subtree raising** (C4.5's other operation, replacing a node by its largest branch) needs
    the training data: it re-routes the rows of the other branches into the raised subtree and
    recounts every node below, and a puretree tree keeps counts, not rows.

    >>> from puretree.datasets import load_buys_computer
    >>> from puretree.grow import c45
    >>> from puretree.fold import n_leaves
    >>> tree = c45(load_buys_computer())
    >>> n_leaves(tree), n_leaves(pessimistic(tree)), n_leaves(pessimistic(tree, cf=0.05))
    (5, 5, 1)
    """
    check_classification(tree, "pessimistic pruning")
    check_cf(cf)
    if X is not None:
        return pessimistic_with_raising(tree, X, y, cf=cf, raising=raising, sample_weight=sample_weight)
    return _prune_by_estimate(tree, lambda counts: pessimistic_errors(counts, cf=cf), margin=C45_MARGIN)


def penalty(tree: Tree, *, per_leaf: float = 0.5) -> Tree:
    """Collapse, bottom-up, every subtree whose penalised errors (training errors plus
    ``per_leaf`` for each leaf) are not lower than those of a single leaf. Bottom-up is
    optimal here: the result has the lowest :func:`~puretree.estimates.tree_penalty_error` of
    all prunings (ties: the smaller tree). With ``per_leaf = 0.5`` a binary split survives
    when it fixes at least one training error; with ``1`` it must fix more than one (seed 004).
    """
    check_classification(tree, "penalty pruning")
    zeta = check_penalty(per_leaf, "per_leaf")
    return _prune_by_estimate(tree, lambda counts: training_errors(counts) + zeta)


# -- reduced-error pruning ---------------------------------------------------------------


def reduced_error(tree: Tree, X: Any, y: Any = None) -> Tree:
    """Reduced-error pruning (seed 000 §5.2.1, seed 002 "Pruning") with validation data.

    Repeatedly replace by a leaf (its training majority) the node whose removal most
    increases validation accuracy, among removals that leave it no worse; stop when every
    further removal would lower it. A subtree no validation row reaches is therefore pruned
    (its removal changes nothing). **Ties** between equally good removals go to the node
    whose removal takes away the most leaves, then to the first in pre-order (closest to the
    root, leftmost).

    >>> from puretree.datasets import load_temperature
    >>> from puretree.grow import cart
    >>> tree = cart(load_temperature())
    >>> print(reduced_error(tree, [{"temperature": 95}], ["yes"]).to_text())
    temperature <= 54: no (2)
    temperature > 54: yes (4/1)
    """
    check_classification(tree, "reduced-error pruning")
    flat, own = validation_counts(tree, X, y)
    n = flat.n_nodes
    prediction = np.argmax(flat.value, axis=1)
    ids = np.arange(n)
    as_leaf = subtree_sums(flat.parent, own)[ids, prediction]  # correct if this node were a leaf
    correct = subtree_sums(flat.parent, own[ids, prediction])  # correct under the current subtree
    is_leaf = flat.kind == LEAF
    leaves = subtree_sums(flat.parent, is_leaf.astype(np.int64))
    end = ids + subtree_sizes(flat.parent)
    candidate = ~is_leaf
    tol = 1e-9 * max(1.0, float(own.sum()))
    pruned: list[int] = []
    while candidate.any():
        gain = np.where(candidate, as_leaf - correct, -np.inf)
        best = float(gain.max())
        if best < -tol:
            break
        tied = candidate & (gain >= best - tol)
        most = leaves[tied].max()
        i = int(np.flatnonzero(tied & (leaves == most))[0])
        pruned.append(i)
        candidate[i:end[i]] = False
        ancestors = (ids < i) & (end > i)
        correct[ancestors] += as_leaf[i] - correct[i]
        leaves[ancestors] -= leaves[i] - 1
        correct[i], leaves[i] = as_leaf[i], 1
    return collapse(tree, pruned)
