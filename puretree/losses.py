"""scikit-learn's ``criterion="absolute_error"``: threshold splits that lower the weighted
absolute deviation from the median, and leaves that predict the weighted median.

The absolute error is not a sum over rows' statistics, so its splits are found from the node's
rows: for every feature, the absolute error of every prefix and every suffix of the rows in
that feature's order, each from a prefix-sum (Fenwick) tree over the targets' ranks, as
scikit-learn's ``MAE`` criterion computes them. The weighted median is scikit-learn's: the
smallest target whose cumulative weight exceeds half the total, or the midpoint of two
targets when a cumulative weight is exactly half.

>>> weighted_median(np.array([3.0, 1.0, 2.0]), np.ones(3)), weighted_median(np.array([1.0, 4.0]), np.ones(2))
(2.0, 2.5)
>>> prefix_absolute_errors(np.array([1.0, 4.0, 2.0]), np.ones(3)).tolist()   # |.-1|; |.-2.5|; |.-2|
[0.0, 3.0, 3.0]
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from .criteria import AbsoluteErrorDecrease, absolute_error_decrease
from .impurity import weighted_median
from .nodes import Leaf, Node, Split
from .splits import TIE_TOLERANCE, Candidate, NodeData, threshold_candidate

__all__ = ["AbsoluteErrorDecrease", "absolute_error_decrease", "absolute_error_splits", "weighted_median", "prefix_absolute_errors", "median_statistics"]


def prefix_absolute_errors(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``sum w |y - median|`` of each prefix ``y[:i + 1]``, in O(n log n): in C where the compiled
    kernel loads (:func:`puretree.growth.kernels.prefix_absolute_errors`, the same operations in
    the same order), else in Python (``PURETREE_ENGINE=numpy`` keeps it in Python)."""
    n = len(y)
    order = np.argsort(y, kind="stable")
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(1, n + 1)
    if _compiled():
        from .growth import kernels

        return kernels.prefix_absolute_errors(rank, y[order], w)
    return _prefix_absolute_errors(rank, y[order].tolist(), w)


def _compiled() -> bool:
    """Whether the compiled kernel computes the prefixes' absolute errors (loaded on first use)."""
    if os.environ.get("PURETREE_ENGINE", "").strip() == "numpy":
        return False
    from .growth import kernels

    return kernels.AVAILABLE and kernels.library() is not None


def _prefix_absolute_errors(rank: np.ndarray, sorted_y: list[float], w: np.ndarray) -> np.ndarray:
    """:func:`prefix_absolute_errors` in Python, from the rows' 1-based ranks and the sorted targets."""
    n = len(rank)
    tw, twy = [0.0] * (n + 1), [0.0] * (n + 1)
    top = 1 << (n.bit_length() - 1)
    out = np.empty(n)
    total_w = total_wy = 0.0
    for p, (r, wi) in enumerate(zip(rank.tolist(), w.tolist())):
        yi = sorted_y[r - 1]
        i = r
        while i <= n:
            tw[i] += wi
            twy[i] += wi * yi
            i += i & -i
        total_w += wi
        total_wy += wi * yi
        half = 0.5 * total_w
        # first: the last rank whose cumulative weight is below half; then: at most half
        below = _descend(tw, twy, n, top, half, strict=True)[0]
        at_most, w_left, wy_left = _descend(tw, twy, n, top, half, strict=False)
        median = sorted_y[at_most] if at_most == below else (sorted_y[below] + sorted_y[at_most]) / 2
        out[p] = (total_wy - wy_left - median * (total_w - w_left)) + (median * w_left - wy_left)
    return out


def _descend(tw: list[float], twy: list[float], n: int, bit: int, target: float, *, strict: bool) -> tuple[int, float, float]:
    """The last rank whose cumulative weight is below (``strict``) or at most ``target``, with
    the cumulative weight and weighted sum up to it."""
    pos, cw, cwy = 0, 0.0, 0.0
    while bit:
        nxt = pos + bit
        if nxt <= n and (cw + tw[nxt] < target if strict else cw + tw[nxt] <= target):
            pos, cw, cwy = nxt, cw + tw[nxt], cwy + twy[nxt]
        bit >>= 1
    return pos, cw, cwy


def absolute_error_splits(node: NodeData, *, score: Any, min_samples_leaf: float, min_weight_leaf: float = 0.0) -> Candidate | None:
    """The best threshold split ``x <= t`` by absolute error (scikit-learn's proxy: the least
    ``AE(left) + AE(right)``), the first near-best threshold of each feature, the lowest feature
    on a tie; its score is the decrease in absolute error per unit of the node's weight."""
    q, n = node.order.shape
    if q == 0 or n < 2:
        return None
    y, w = np.asarray(node.y, dtype=np.float64), node.stats[:, 0]
    w_node = float(w.sum())
    best_scores, best_positions = [], []
    for f in range(q):
        order, values = node.order[f], node.values[f]
        left = prefix_absolute_errors(y[order], w[order])
        right = prefix_absolute_errors(y[order][::-1], w[order][::-1])[::-1]
        parent = left[-1]
        s = (parent - left[:-1] - right[1:]) / w_node  # split after position i
        valid = values[:-1] < values[1:]
        if min_samples_leaf > 1:
            n_left = np.arange(1, n)
            valid &= (n_left >= min_samples_leaf) & (n - n_left >= min_samples_leaf)
        if min_weight_leaf > 0:
            w_left = np.cumsum(w[order])[:-1]
            valid &= (w_left >= min_weight_leaf) & (w_node - w_left >= min_weight_leaf)
        s = np.where(valid, s, -np.inf)
        top = s.max()
        tol = TIE_TOLERANCE * max(1.0, abs(top)) if np.isfinite(top) else 0.0
        pos = int(np.argmax(s >= top - tol))
        best_scores.append(float(s[pos]))
        best_positions.append(pos)
    return threshold_candidate(node, best_scores, best_positions)


def median_statistics(root: Node, X: np.ndarray, y: np.ndarray, w: np.ndarray) -> Node:
    """``root`` with each node's statistics ``(weight, weight * median, weight * median**2)``:
    its training rows' weighted median as its value, so that prediction, JSON and generated code
    (which read the mean ``sum / weight``) give the median."""
    def walk(node: Node, rows: np.ndarray) -> Node:
        weight = float(w[rows].sum())
        m = weighted_median(y[rows], w[rows]) if rows.size else 0.0
        stats = (weight, weight * m, weight * m * m)
        if isinstance(node, Leaf):
            return Leaf(stats)
        go_right = X[rows, node.feature] > node.test.value
        kids = (walk(node.children[0], rows[~go_right]), walk(node.children[1], rows[go_right]))
        return Split(node.feature, node.test, kids, stats)
    return walk(root, np.arange(len(y)))
