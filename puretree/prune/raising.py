"""J48's pruning: pessimistic (error-based) subtree replacement with subtree raising, recounted
from the training rows (Weka's ``C45PruneableClassifierTree.prune``); :func:`puretree.prune.pessimistic`
with the training data calls it. It lives apart from C4.5's growing (:mod:`puretree.c45`):
it rewrites a grown tree, as every pruning method does.
"""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import Any

import attrs
import numpy as np

from ..errors import DataError, ParameterError
from ..estimates import c45_added_errors, check_cf
from ..fold import run
from ..growth.choose import J48_EPSILON
from ..nodes import Leaf, Node, children, with_children
from ..tree import Tree
from ..validation import validation_codes

__all__ = ["pessimistic_with_raising"]


@attrs.define(eq=False)
class _Work:
    """A node being pruned: its test (the original node), its children, and the training rows
    that reach it with their weights (fractional for rows sent down several branches)."""

    node: Node
    kids: list["_Work"]
    rows: np.ndarray
    weights: np.ndarray
    dist: np.ndarray


def _class_counts(y: np.ndarray, rows: np.ndarray, weights: np.ndarray, k: int) -> np.ndarray:
    codes = y[rows]
    keep = codes >= 0  # a label the tree never saw is an error wherever it goes
    counts = np.bincount(codes[keep], weights=weights[keep], minlength=k).astype(np.float64)
    return counts


def _branch_of(node: Any, X: np.ndarray, tree: Tree) -> np.ndarray:
    """The branch each row takes at a split (the split's test answers); -1 where its value is
    missing or a category the test has no branch for."""
    branch = node.test.branch_of(X[:, node.feature], tree.schema.features[node.feature])
    return np.where(branch < 0, -1, branch)


def _split_rows(node: Node, X: np.ndarray, rows: np.ndarray, weights: np.ndarray, tree: Tree) -> list[tuple[np.ndarray, np.ndarray]]:
    """The rows (and weights) of each branch of ``node``; rows with a missing value go down
    every branch weighted by the branch's share of the known weight ("distribute", J48), or
    down the heaviest branch ("majority")."""
    b = len(children(node))
    missing = tree.missing
    branch = _branch_of(node, X[rows], tree)
    known = branch >= 0
    known_weight = np.bincount(branch[known], weights=weights[known], minlength=b)
    out = []
    absent = ~known
    if absent.any() and missing == "error":
        raise DataError("missing value in the training data, and the tree's missing-value strategy is 'error'")
    total = known_weight.sum()
    # Shares of the known weight here (J48's resetDistribution); with none known, the tree's own.
    fallback = np.array([sum(c.counts) for c in children(node)], dtype=np.float64)
    share = known_weight / total if total > 0 else fallback / max(fallback.sum(), 1e-300)
    heaviest = int(np.argmax(known_weight)) if total > 0 else int(np.argmax(share))
    for i in range(b):
        take = branch == i
        if missing == "distribute":
            extra = absent & (share[i] > 0)
            sel = take | extra
            w = np.where(absent[sel], weights[sel] * share[i], weights[sel])
        else:
            sel = take | (absent & (i == heaviest))
            w = weights[sel]
        out.append((rows[sel], w))
    return out


def _estimated(dist: np.ndarray, cf: float) -> float:
    total = float(dist.sum())
    if total < J48_EPSILON:
        return 0.0
    errors = total - float(dist.max())
    return errors + c45_added_errors(total, errors, cf=cf)


def _distribute(work: _Work, X: np.ndarray, y: np.ndarray, k: int, tree: Tree) -> None:
    """J48's ``newDistribution``: this subtree's rows and class counts recomputed from ``work.rows``."""
    stack = [work]
    while stack:
        w = stack.pop()
        w.dist = _class_counts(y, w.rows, w.weights, k)
        if w.kids:
            for kid, (rows, weights) in zip(w.kids, _split_rows(w.node, X, w.rows, w.weights, tree)):
                kid.rows, kid.weights = rows, weights
                stack.append(kid)


def _branch_errors(work: _Work, rows: np.ndarray, weights: np.ndarray, X: np.ndarray, y: np.ndarray, k: int, cf: float, tree: Tree) -> float:
    """J48's ``getEstimatedErrorsForBranch``: the estimate if these rows went down this subtree."""
    total, stack = 0.0, [(work, rows, weights)]
    while stack:
        w, r, ws = stack.pop()
        if not w.kids:
            total += _estimated(_class_counts(y, r, ws, k), cf)
            continue
        for kid, (kr, kw) in zip(w.kids, _split_rows(w.node, X, r, ws, tree)):
            stack.append((kid, kr, kw))
    return total


def _subtree_errors(work: _Work, cf: float) -> float:
    total, stack = 0.0, [work]
    while stack:
        w = stack.pop()
        if w.kids:
            stack.extend(w.kids)
        else:
            total += _estimated(w.dist, cf)
    return total


def _prune_j48(work: _Work, X: np.ndarray, y: np.ndarray, k: int, cf: float, raising: bool, tree: Tree) -> Generator[Any, Any, None]:
    if not work.kids:
        return
    for kid in work.kids:
        yield _prune_j48(kid, X, y, k, cf, raising, tree)
    largest = int(np.argmax([kid.dist.sum() for kid in work.kids]))
    branch = _branch_errors(work.kids[largest], work.rows, work.weights, X, y, k, cf, tree) if raising else math.inf
    leaf = _estimated(work.dist, cf)
    subtree = _subtree_errors(work, cf)
    margin = 0.1  # Quinlan's and J48's
    if leaf - (subtree + margin) < J48_EPSILON and leaf - (branch + margin) < J48_EPSILON:
        work.kids = []
        return
    if branch - (subtree + margin) < J48_EPSILON:
        raised = work.kids[largest]
        work.node, work.kids = raised.node, raised.kids
        _distribute(work, X, y, k, tree)
        yield _prune_j48(work, X, y, k, cf, raising, tree)


def _build(work: _Work) -> Node:
    def go(w: _Work) -> Generator[Any, Node, Node]:
        counts = tuple(float(c) for c in w.dist)
        if not w.kids:
            return Leaf(counts)
        kids = []
        for kid in w.kids:
            kids.append((yield go(kid)))
        return attrs.evolve(with_children(w.node, tuple(kids)), counts=counts)

    return run(go(work))


def pessimistic_with_raising(tree: Tree, X: Any, y: Any = None, *, cf: float = 0.25, raising: bool = True, sample_weight: Any = None) -> Tree:
    """J48's pruning: pessimistic (error-based) subtree replacement and, with ``raising``,
    **subtree raising** (a node replaced by its largest branch when that branch's estimate,
    recounted on all the node's training rows, is as good). Needs the training data: raising
    sends the rows of the other branches into the raised subtree and recounts every node below,
    so the pruned tree's counts are recomputed from ``X``, ``y``.

    A node's estimated errors as a leaf are its training errors plus
    :func:`~puretree.prune.c45_added_errors` at ``cf``; a subtree's, the sum over its leaves.
    The node becomes a leaf when that is within 0.1 of both the subtree's and the largest
    branch's estimate; else the largest branch replaces it when its estimate is within 0.1 of the
    subtree's, and is pruned again.

    >>> from puretree.c45 import c45
    >>> x = [[v] for v in (2, 1, 2, 0, 2, 0, 1, 1, 2, 1, 0, 0, 2, 0, 0, 0, 1, 1, 2, 1, 0, 1)]
    >>> y = [1, 1, 1, 0, 1, 0, 1, 0, 1, 1, 1, 0, 1, 0, 1, 0, 0, 1, 1, 1, 0, 0]
    >>> tree = c45(x, y, min_samples_leaf=1)
    >>> print(tree.to_text())
    x0 <= 1.5
    |   x0 <= 0.5: 0 (8/2)
    |   x0 > 0.5: 1 (8/3)
    x0 > 1.5: 1 (6)
    >>> print(pessimistic_with_raising(tree, x, y).to_text())    # the left branch raised
    x0 <= 0.5: 0 (8/2)
    x0 > 0.5: 1 (14/3)
    """

    if tree.schema.is_regression:
        raise ParameterError("pessimistic pruning needs a classification tree; this is a regression tree")
    check_cf(cf)
    Xe, codes = validation_codes(tree, X, y)
    n = Xe.shape[0]
    if sample_weight is None:
        weights = np.ones(n)
    else:
        weights = np.asarray(sample_weight, dtype=np.float64)
        if weights.shape != (n,) or not np.isfinite(weights).all() or (weights < 0).any():
            raise ParameterError(f"sample_weight must hold {n} finite non-negative weights")
    k = len(tree.schema.classes)

    def wrap(node: Node) -> Generator[Any, _Work, _Work]:
        kids = []
        for c in children(node):
            kids.append((yield wrap(c)))
        return _Work(node, kids, np.empty(0, dtype=np.int64), np.empty(0), np.zeros(k))

    root = run(wrap(tree.root))
    root.rows, root.weights = np.arange(n), weights
    _distribute(root, Xe, codes, k, tree)
    run(_prune_j48(root, Xe, codes, k, float(cf), raising, tree))
    return attrs.evolve(tree, root=_build(root))
