"""C4.5's search of a node's attributes: the best cut of every numeric feature (J48's
``handleNumericAttribute``) and the option of a categorical one (``handleEnumeratedAttribute``),
which :mod:`puretree.c45` hands to :func:`~puretree.growth.choose.choose_option`. The histogram
source (:mod:`puretree.growth.histograms`, Dask's C4.5) searches its bins with the same code
(:func:`sorted_options`), a node's non-empty bins as its rows.

:func:`numeric_options` scores all the node's numeric features at once, in numpy calls over
``(features, rows, classes)`` arrays taken in blocks of at most :data:`BLOCK` numbers: the class
counts left of every cut are one cumulative sum over the presorted rows, the gains of every cut
one expression. J48's numbers (gain, split information, MDL correction, tolerances) are
:mod:`puretree.growth.choose`'s. J48's sequential scan (a later cut replaces the best one only
when its gain is better by more than 1e-6) is settled at once for a feature whose best gain is
more than 1e-6 above every gain before it, and replayed for the few with near ties (:func:`scan`).

For whole-number counts (unweighted rows, no fractions of rows) with entropy, ``x log2 x`` is
looked up in a table of numpy's values, and where the compiled library is there (C,
``pt_c45_scan`` in ``puretree/growth/_kernel.c``, loaded by :mod:`puretree.growth.kernels`) and
the node is big enough to repay loading it, the whole scan is that one compiled loop. It adds
the classes in numpy's pairwise order and reads the same table, so both backends give equal
floats (``==``); tests/test_c45_cuts.py holds them to that and to a feature-by-feature oracle.

>>> from puretree.datasets import load_temperature
>>> from puretree.splits import root_data
>>> node = root_data(load_temperature())
>>> [o.option().threshold for o in numeric_options(node, 6.0, 2, 2.0)]
[54.0]
"""

from __future__ import annotations

import math
import os
from itertools import repeat
from typing import Any

import numpy as np

from . import kernels
from .choose import J48_EPSILON, VALUE_TOLERANCE, Option, Scored, at_least, best_cut, bits, c45_multiway, known_gain, split_info, weighted_entropy
from ..impurity import entropy
from ..splits import NodeData, midpoint

__all__ = ["numeric_options", "sorted_options", "categorical_option", "scan", "BLOCK", "KERNEL", "KERNEL_MIN_WORK", "MAX_CLASSES", "TABLE_LIMIT"]

#: At most this many class counts (features x rows x classes) are summed in one block, and cuts x
#: classes scored at once; a feature whose rows x classes alone exceed it is summed alone.
BLOCK = 1_000_000
#: Node weights up to this (or 4 per row) have x log2 x tabulated (8 bytes per unit of weight).
TABLE_LIMIT = 1 << 20
#: Whether whole-number counts may go through the compiled loop; turns False for good if the
#: library cannot be loaded (the numpy path grows the same trees).
KERNEL = kernels.AVAILABLE
#: The first node whose rows x numeric features reach this loads the compiled library (a few
#: milliseconds), worth it from about this size on; smaller trees grow on numpy alone.
KERNEL_MIN_WORK = 10_000
#: numpy adds up to 128 numbers in one pairwise block, which the loop repeats; more classes take numpy.
MAX_CLASSES = 128


def numeric_options(node: NodeData, total: float, n_classes: int, min_leaf: float, impurity: Any = entropy) -> list[Scored]:
    """The C4.5 options of all of ``node``'s numeric features that have an admissible cut with
    gain left after the MDL correction, in feature order (the gain's ``impurity``: entropy for
    C4.5; another is scaled as :func:`~puretree.growth.choose.known_gain` scales it)."""
    return sorted_options(node.order, node.values, node.stats, node.numeric, total, n_classes, min_leaf, impurity)


def sorted_options(order: np.ndarray, values: np.ndarray, stats: np.ndarray, numeric: np.ndarray, total: float, n_classes: int, min_leaf: float, impurity: Any = entropy) -> list[Scored]:
    """:func:`numeric_options` of rows of statistics ``stats``, given per feature ``numeric[i]``
    the rows sorted by its value (``order[i]``) and the sorted values (``values[i]``, NaN last)."""
    q, n = order.shape
    if q == 0 or n < 2:
        return []
    k = stats.shape[1]
    counts = _whole_counts(stats, total, n) if impurity is entropy else None
    # x log2 x of every whole number up to the node's weight: with whole counts the entropies
    # are table look-ups of the same numbers.
    table = None if counts is None else _table(int(total) + 1)
    if table is not None and KERNEL and (kernels.loaded() or q * n >= KERNEL_MIN_WORK):
        if (found := _compiled(order, values, counts, table, total, n_classes, min_leaf)) is not None:  # type: ignore[arg-type]  # a table: counts too
            n_cuts, best, where, known, left_at = found
            at = np.flatnonzero(where >= 0)
            return _scored(numeric, values, at, where[at], best[at], n_cuts[at], left_at[at].astype(np.float64), known[at].astype(np.float64), total, table)
    row_weight = stats.sum(axis=1)
    step = max(1, BLOCK // (n * k))
    out: list[Scored] = []
    for a in range(0, q, step):
        b = min(q, a + step)
        out.extend(_block(order[a:b], values[a:b], stats if counts is None else counts, numeric[a:b], row_weight, table, total, n_classes, min_leaf, impurity))
    return out


def categorical_option(node: NodeData, j: int, total: float, min_leaf: float, many_values: bool, impurity: Any) -> Option | None:
    """J48's ``handleEnumeratedAttribute``: one branch per category of feature ``j``."""
    m = len(node.schema.features[j].categories)
    column = node.X[:, j]
    known = ~np.isnan(column)
    codes = column[known].astype(np.int64)
    stats = node.stats[known]
    per = np.stack([np.bincount(codes, weights=stats[:, c], minlength=m) for c in range(stats.shape[1])], axis=-1)
    return c45_multiway(j, per, total, min_leaf, many_values, impurity)


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


def _block(order: np.ndarray, values: np.ndarray, stats: np.ndarray, numeric: np.ndarray, row_weight: np.ndarray, table: np.ndarray | None, total: float, n_classes: int, min_leaf: float, impurity: Any) -> list[Scored]:
    """The options of the features ``numeric`` (rows sorted by each in ``order`` (f, n), their
    sorted values ``values``), from the rows' statistics (whole counts where there is a ``table``)."""
    f, n = order.shape
    rows = np.arange(f)
    n_known = n - np.count_nonzero(np.isnan(values), axis=1)  # NaN (missing) sorts last
    last = np.maximum(n_known - 1, 0)
    # Class counts and weight up to each sorted row (sequential sums).
    cum = np.cumsum(stats[order], axis=1)  # (f, n, k)
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
    gains = np.full((f, n - 1), -np.inf)
    step = max(1, BLOCK // cum.shape[2])  # cuts scored at once: the temporaries hold cuts x classes numbers
    for a in range(0, len(fi), step):
        gains[fi[a : a + step], pi[a : a + step]] = _gains(cum, known_parent, known_weight, cum_weight, fi[a : a + step], pi[a : a + step], table, total, impurity)
    at = np.flatnonzero(n_cuts)  # the features with an admissible cut
    best, pos = scan(gains[at])
    found = best > -np.inf
    at, pos = at[found], pos[found]
    return _scored(numeric, values, at, pos, best[found], n_cuts[at], cum[at, pos].astype(np.float64), known_parent[at], total, table)


def _gains(cum: np.ndarray, known_parent: np.ndarray, known_weight: np.ndarray, cum_weight: np.ndarray, fi: np.ndarray, pi: np.ndarray, table: np.ndarray | None, total: float, impurity: Any) -> np.ndarray:
    """The gain of admissible cuts (features ``fi`` in order, after sorted positions ``pi``), as
    :func:`~puretree.growth.choose.known_gain` computes it, operation for operation."""
    if impurity is not entropy:  # the impurity's own decrease, feature by feature
        bounds = np.flatnonzero(np.diff(fi)) + 1
        return np.concatenate([
            known_gain(known_parent[g[0]], np.stack((left := cum[g, p], known_parent[g[0]] - left), axis=-2), total, impurity)
            for g, p in zip(np.split(fi, bounds), np.split(pi, bounds))
        ])  # fmt: skip
    kw = known_weight[fi]
    if table is None:
        left = cum[fi, pi]  # (m, k)
        children = weighted_entropy(left) + weighted_entropy(known_parent[fi] - left)
        parent = weighted_entropy(known_parent)
    else:  # the same x log2 x, looked up; the sums over classes as numpy sums them
        known_i = known_parent.astype(np.int64)
        left_i = cum[fi, pi]
        wl = cum_weight[fi, pi].astype(np.int64)
        children = (table[wl] - _class_sum(table[left_i])) + (table[kw.astype(np.int64) - wl] - _class_sum(table[known_i[fi] - left_i]))
        parent = table[known_weight.astype(np.int64)] - _class_sum(table[known_i])
    numerator = (known_weight / total)[fi] * (parent[fi] - children)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(kw > 0, np.where(np.abs(numerator) < J48_EPSILON, 0.0, numerator / kw), 0.0)


def _scored(numeric: np.ndarray, values: np.ndarray, at: np.ndarray, pos: np.ndarray, best: np.ndarray, n_cuts: np.ndarray, left: np.ndarray, known: np.ndarray, total: float, table: np.ndarray | None) -> list[Scored]:
    """The options of the features ``at`` (rows of ``values``, features ``numeric[at]``) whose
    best cut follows sorted position ``pos`` with gain ``best`` among ``n_cuts`` admissible
    cuts, ``left`` and ``known`` the class counts left of the cut and of the known rows
    (whole numbers when there is a ``table`` of x log2 x)."""
    # The MDL correction; math.log2 (J48's Utils.log2 of an int), for the same last bit.
    corrected = best - np.array([math.log2(c) for c in n_cuts.tolist()]) / total
    keep = corrected >= J48_EPSILON
    if not keep.any():
        return []
    at, pos, corrected, left, known = at[keep], pos[keep], corrected[keep], left[keep], known[keep]
    right = known - left
    w_left, w_right = left.sum(axis=1), right.sum(axis=1)
    if table is None:
        info = split_info(np.stack((w_left, w_right), axis=1), total)
    else:  # split_info of whole numbers, from the table
        unknown = total - (w_left + w_right)
        a, b, u = w_left.astype(np.int64), w_right.astype(np.int64), unknown.astype(np.int64)
        ent = (-(table[a] + table[b]) - table[u]) + table[int(total)]
        info = np.where(np.abs(ent) < J48_EPSILON, 0.0, ent / total)
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
    ties before their maximum are replayed as J48 scans.

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


def _compiled(order: np.ndarray, values: np.ndarray, counts: np.ndarray, table: np.ndarray, total: float, n_classes: int, min_leaf: float) -> tuple[np.ndarray, ...] | None:
    """The compiled scan (``pt_c45_scan``) of every feature: its number of admissible cuts,
    the best gain J48's scan finds and the sorted position of its cut (-1: none above 1e-6),
    the class counts of its known rows and those left of the cut. None where it cannot run:
    a row holding weight in two classes (the builder never makes one), too many classes, no
    library (then :data:`KERNEL` turns False for good) or ``PURETREE_ENGINE=numpy``; or where
    it refuses its input (a table too short for the node's weight). numpy computes the same.

    Four rows of one feature, classes a a b b: the one cut between the two values is worth a
    whole bit, and leaves (2, 0) on its left.

    >>> found = _compiled(np.array([[0, 1, 2, 3]]), np.array([[1.0, 1.0, 2.0, 2.0]]),
    ...                   np.array([[1, 0], [1, 0], [0, 1], [0, 1]]), _table(5), 4.0, 2, 1.0)
    >>> found is None or [a.tolist() for a in found] == [[1], [1.0], [1], [[2, 2]], [[2, 0]]]
    True
    """
    global KERNEL
    k = counts.shape[1]
    if k > MAX_CLASSES or (np.count_nonzero(counts, axis=1) > 1).any() or os.environ.get("PURETREE_ENGINE", "").strip() == "numpy":
        return None
    if (lib := kernels.library() if KERNEL else None) is None:
        KERNEL = False
        return None
    # Row r as one number: its weight shifted left of its class (one memory access per row and feature).
    classes = counts.argmax(axis=1)
    shift = max(1, (k - 1).bit_length())
    rows = np.ascontiguousarray((counts[np.arange(len(counts)), classes] << shift) | classes, dtype=np.int64)
    order, values = np.ascontiguousarray(order, dtype=np.int64), np.ascontiguousarray(values, dtype=np.float64)
    table = np.ascontiguousarray(table, dtype=np.float64)
    f, n = order.shape
    n_cuts, best, where = np.zeros(f, np.int64), np.zeros(f), np.full(f, -1, np.int64)
    known, left_at = np.zeros((f, k), np.int64), np.zeros((f, k), np.int64)
    code = lib.pt_c45_scan(
        order.ctypes.data, values.ctypes.data, f, n, rows.ctypes.data, shift, k, table.ctypes.data, len(table), float(total), int(n_classes), float(min_leaf),
        J48_EPSILON, VALUE_TOLERANCE, n_cuts.ctypes.data, best.ctypes.data, where.ctypes.data, known.ctypes.data, left_at.ctypes.data,
    )  # fmt: skip
    if code == 1:
        raise MemoryError("puretree.growth.c45_cuts: out of memory")
    return (n_cuts, best, where, known, left_at) if code == 0 else None
