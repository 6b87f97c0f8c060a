"""C4.5's numeric cuts for every numeric feature of a node at once (the fast path of
:mod:`puretree.c45`).

:func:`puretree.growth.c45_scan.numeric_option` is the readable specification: one feature, its cuts
scanned as J48's ``handleNumericAttribute`` scans them. :func:`numeric_options` computes the
same options for all the node's numeric features in a handful of numpy calls over
``(features, rows, classes)`` arrays: the class counts left of every cut are one cumulative
sum over the presorted rows, and the gains of every cut of every feature one expression.
Each float is computed by the same operations in the same order as the specification, so
the options are equal (``==``), weights and missing values included; a property test in
``tests/test_c45_vector.py`` holds it to that.

Only J48's sequential scan (a later cut replaces the best one only when its gain is better by
more than 1e-6) is not a numpy expression. It is settled at once for a feature whose best
gain is more than 1e-6 above every gain before it (then the scan ends on the first maximum),
and replayed as the specification does for the few features with near ties (:func:`scan`).

Two shortcuts for whole-number counts (unweighted rows, no fractions of rows), each giving the
same floats: ``x log2 x`` is looked up in a table of numpy's values instead of computed, and,
where a C compiler is found and the node is big enough to repay loading it, the whole scan is
one compiled loop (:mod:`puretree.growth.c45_kernel`). Weighted or fractional counts take the numpy
expressions, in blocks of at most :data:`BLOCK` numbers.

>>> from puretree.datasets import load_temperature
>>> from puretree.grow import root_data
>>> node = root_data(load_temperature())
>>> [o.option().threshold for o in numeric_options(node, 6.0, 2, 2.0)]
[54.0]
"""

from __future__ import annotations

import math
from itertools import repeat

import numpy as np

from . import c45_kernel
from .c45_scan import numeric_option
from .choose import J48_EPSILON, VALUE_TOLERANCE, Option, Scored, at_least, best_cut, bits, split_info, weighted_entropy
from ..impurity import entropy
from ..splits import NodeData, midpoint

__all__ = ["numeric_options", "scan", "BLOCK", "KERNEL", "KERNEL_MIN_WORK", "TABLE_LIMIT"]

#: At most this many class counts (features x rows x classes) are scored in one block; a
#: feature whose rows x classes alone exceed it goes through the specification's chunked scan.
BLOCK = 1_000_000


def numeric_options(node: NodeData, total: float, n_classes: int, min_leaf: float) -> list[Scored]:
    """The C4.5 options (entropy gain) of all of ``node``'s numeric features, those that
    have an admissible cut with gain left after the MDL correction, in feature order; the
    same as ``numeric_option`` feature by feature."""
    q, n = node.order.shape
    if q == 0 or n < 2:
        return []
    k = node.stats.shape[1]
    counts = _whole_counts(node.stats, total, n)
    # x log2 x of every whole number up to the node's weight: with whole counts (unweighted
    # rows, no fractions of rows) the entropies are table look-ups of the same numbers.
    table = None if counts is None else _table(int(total) + 1)
    compiled = table is not None and KERNEL and (c45_kernel.loaded() or q * n >= KERNEL_MIN_WORK)
    if compiled and (found := c45_kernel.scan_features(node.order, node.values, counts, table, total, n_classes, min_leaf)) is not None:  # type: ignore[arg-type]  # compiled: both made
        n_cuts, best, where, known, left_at = found
        at = np.flatnonzero(where >= 0)
        return _scored(node.numeric, node.values, at, where[at], best[at], n_cuts[at], left_at[at].astype(np.float64), known[at].astype(np.float64), total, table)
    if n * k > BLOCK:  # one feature's arrays alone would be too big: the specification's chunked scan

        return [o for i in range(q) if (o := numeric_option(node, i, total, n_classes, min_leaf, entropy)) is not None]  # type: ignore[misc]
    row_weight = node.stats.sum(axis=1)
    step = max(1, BLOCK // (n * k))
    out: list[Scored] = []
    for start in range(0, q, step):
        out.extend(_block(node, start, min(q, start + step), row_weight, counts, table, total, n_classes, min_leaf))
    return out


def _whole_counts(stats: np.ndarray, total: float, n: int) -> np.ndarray | None:
    """``stats`` as integers when every one is a whole number and the total is small enough
    for a table of ``x log2 x`` (at most 4 per row, or a million), else None."""
    if total > max(4 * n, TABLE_LIMIT):
        return None
    whole = stats.astype(np.int64)
    return whole if (whole == stats).all() else None


def _class_sum(x: np.ndarray) -> np.ndarray:
    """``x.sum(axis=-1)``; with two classes ``x[..., 0] + x[..., 1]``, the same float, sooner."""
    return x[..., 0] + x[..., 1] if x.shape[-1] == 2 else x.sum(axis=-1)


def _table(size: int) -> np.ndarray:
    """``x log2 x`` (:func:`~puretree.growth.choose.bits`) of 0 .. size - 1, kept for the next node:
    each entry depends only on its x, so a longer table's start is a shorter one."""
    global _TABLE
    if len(_TABLE) < size:
        _TABLE = bits(np.arange(max(size, min(2 * len(_TABLE), TABLE_LIMIT)), dtype=np.float64))
    return _TABLE


_TABLE = np.zeros(0)

#: Node weights up to this (or 4 per row) have x log2 x tabulated (8 bytes per unit of weight).
TABLE_LIMIT = 1 << 20
#: Whether whole-number counts go through the compiled loop of :mod:`puretree.growth.c45_kernel`
#: (when it compiles here); False runs the numpy expressions below.
KERNEL = c45_kernel.AVAILABLE
#: The first node whose rows x numeric features reach this loads the compiled library (a few
#: milliseconds; the first time for a user, compiling it, about a second), worth it from about
#: this size on; smaller trees grow on numpy alone.
KERNEL_MIN_WORK = 10_000


def _block(node: NodeData, start: int, stop: int, row_weight: np.ndarray, counts: np.ndarray | None, table: np.ndarray | None, total: float, n_classes: int, min_leaf: float) -> list[Scored]:
    order = node.order[start:stop]  # (f, n)
    values = node.values[start:stop]
    f, n = order.shape
    rows = np.arange(f)
    n_known = n - np.count_nonzero(np.isnan(values), axis=1)  # NaN (missing) sorts last
    last = np.maximum(n_known - 1, 0)
    # Class counts and weight up to each sorted row (sequential sums, as the specification's).
    cum = np.cumsum((node.stats if counts is None else counts)[order], axis=1)  # (f, n, k)
    cum_weight = np.cumsum(row_weight[order], axis=1)  # (f, n)
    known_parent = cum[rows, last].astype(np.float64)  # (f, k)
    known_parent[n_known == 0] = 0.0
    known_weight = known_parent.sum(axis=1)  # (f,)
    least = np.minimum(np.maximum(0.1 * known_weight / n_classes, min_leaf), 25.0)
    usable = (n_known >= 2) & ~(known_weight - 2 * least < -J48_EPSILON)
    w_left = cum_weight[:, :-1]  # weight left of the cut after sorted position p
    with np.errstate(invalid="ignore"):
        cut = values[:, :-1] + VALUE_TOLERANCE < values[:, 1:]  # False next to NaN
    cut &= at_least(w_left, least[:, None]) & at_least(known_weight[:, None] - w_left, least[:, None]) & usable[:, None]
    n_cuts = np.count_nonzero(cut, axis=1)
    fi, pi = np.nonzero(cut)
    if len(fi) == 0:
        return []
    # The gain of every admissible cut, as the specification's gain computes it.
    kw = known_weight[fi]
    if table is None:
        left = cum[fi, pi]  # (m, k)
        right = known_parent[fi] - left
        children = weighted_entropy(left) + weighted_entropy(right)
        parent = weighted_entropy(known_parent)
    else:  # the same x log2 x, looked up; the sums over classes as numpy sums them
        known_i = known_parent.astype(np.int64)
        left_i = cum[fi, pi]
        right_i = known_i[fi] - left_i
        wl = cum_weight[fi, pi].astype(np.int64)
        children = (table[wl] - _class_sum(table[left_i])) + (table[kw.astype(np.int64) - wl] - _class_sum(table[right_i]))
        parent = table[known_weight.astype(np.int64)] - _class_sum(table[known_i])
    numerator = (known_weight / total)[fi] * (parent[fi] - children)
    with np.errstate(divide="ignore", invalid="ignore"):
        scored = np.where(kw > 0, np.where(np.abs(numerator) < J48_EPSILON, 0.0, numerator / kw), 0.0)
    gains = np.full((f, n - 1), -np.inf)
    gains[fi, pi] = scored
    at = np.flatnonzero(n_cuts)  # the features with an admissible cut
    best, pos = scan(gains[at])
    found = best > -np.inf
    at, pos = at[found], pos[found]
    return _scored(node.numeric[start:stop], values, at, pos, best[found], n_cuts[at], cum[at, pos].astype(np.float64), known_parent[at], total, table)


def _scored(numeric: np.ndarray, values: np.ndarray, at: np.ndarray, pos: np.ndarray, best: np.ndarray, n_cuts: np.ndarray, left: np.ndarray, known: np.ndarray, total: float, table: np.ndarray | None) -> list[Scored]:
    """The options of the features ``at`` (rows of ``values``, features ``numeric[at]``) whose
    best cut follows sorted position ``pos`` with gain ``best`` among ``n_cuts`` admissible
    cuts, ``left`` and ``known`` the class counts left of the cut and of the known rows
    (whole numbers when there is a ``table`` of x log2 x)."""
    # The MDL correction; math.log2, as the specification's, for the same last bit.
    corrected = best - np.array([math.log2(c) for c in n_cuts.tolist()]) / total
    keep = corrected >= J48_EPSILON
    if not keep.any():
        return []
    at, pos, corrected, left, known = at[keep], pos[keep], corrected[keep], left[keep], known[keep]
    right = known - left
    w_left, w_right = left.sum(axis=1), right.sum(axis=1)  # as the specification sums them
    if table is None:
        info = split_info(np.stack((w_left, w_right), axis=1), total)
    else:  # split_info of whole numbers, from the table
        unknown = total - (w_left + w_right)
        a, b, u = w_left.astype(np.int64), w_right.astype(np.int64), unknown.astype(np.int64)
        entropy = (-(table[a] + table[b]) - table[u]) + table[int(total)]
        info = np.where(np.abs(entropy) < J48_EPSILON, 0.0, entropy / total)
    ratio = np.where(info > 0, corrected / np.where(info > 0, info, 1.0), 0.0)
    features = numeric[at].tolist()

    def build(j: int) -> Option:
        i, p = int(at[j]), int(pos[j])
        threshold = midpoint(float(values[i, p]), float(values[i, p + 1]))
        return Option(features[j], float(corrected[j]), float(ratio[j]), True, "threshold", threshold=threshold, branches=np.stack((left[j], right[j])))

    count = len(features)
    return list(map(Scored._make, zip(features, corrected.tolist(), ratio.tolist(), repeat(True, count), repeat(build, count), range(count))))


def scan(gains: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """J48's scan of every row of ``gains`` (features x cut positions, -inf where no cut):
    the best gain of each row and its position, as :func:`puretree.growth.choose.best_cut` finds them
    in the row's cuts; -inf (and position 0) where no gain is above 1e-6.

    The scan ends on the first maximum when that is better by more than 1e-6 than every gain
    before it (and than 0, where the scan starts): one expression for all rows. Rows with near
    ties before their maximum are replayed as the specification scans.

    >>> scan(np.array([[0.5, -np.inf, 0.5000008, 0.5000015], [0.1, 0.3, 0.3, 0.2]]))
    (array([0.5000015, 0.3      ]), array([3, 1]))
    """
    f, m = gains.shape
    if m == 0:
        return np.full(f, -np.inf), np.zeros(f, dtype=np.int64)
    first = np.argmax(gains, axis=1)
    best = gains[np.arange(f), first]
    before = np.where(np.arange(m) < first[:, None], gains, -np.inf).max(axis=1)
    for i in np.flatnonzero(~(best > np.maximum(before, 0.0) + J48_EPSILON)).tolist():
        positions = np.flatnonzero(gains[i] > -np.inf)
        b, where = best_cut(gains[i, positions])
        best[i], first[i] = (b, positions[where]) if where >= 0 else (-np.inf, 0)
    return best, first
