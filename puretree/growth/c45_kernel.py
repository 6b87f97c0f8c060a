"""J48's scan of a node's numeric cuts as one compiled loop (C), for whole-number counts.

Each row holds one class (a weight times its one-hot class vector, as the builder makes them),
so the loop adds one number per row and feature, and scores only the admissible cuts.

:func:`puretree.growth.c45_vector.numeric_options` calls :func:`scan_features` when the compiled
library of :mod:`puretree.growth.kernels` is there and the node's counts are whole numbers (unweighted rows without fractions), else
it runs its numpy expressions; both compute what :func:`puretree.growth.c45_scan.numeric_option`
computes, to the last bit. The loop (``pt_c45_scan`` in ``puretree/growth/_kernel.c``) is
:func:`_scan`, this module's readable specification of it, operation for operation: ``x log2 x``
comes from the same table of numpy's values, and every sum over classes is added in numpy's
pairwise order (:func:`_pairwise`), so the gains are equal floats, not merely close ones
(tests/test_c45_vector.py compares the two).

The library is compiled with the package (:mod:`puretree.growth.kernels` checks and loads it at the
first call, which :mod:`puretree.growth.c45_vector` makes only for a node big enough to repay that;
:func:`loaded` says whether it has happened). Where it is unavailable (a package built without a
C compiler, a damaged library), :data:`AVAILABLE` turns False and the numpy expressions run.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from . import kernels
from .c45_scan import J48_EPSILON, VALUE_TOLERANCE

__all__ = ["AVAILABLE", "MAX_CLASSES", "scan_features", "loaded"]

#: Whether the compiled loop may run here (it is optional: the numpy path grows the same trees).
#: Turns False for good if the library cannot be loaded.
AVAILABLE = kernels.AVAILABLE
#: numpy adds up to 128 numbers in one pairwise block; more classes take the numpy path.
MAX_CLASSES = 128


def _pairwise(a: np.ndarray, n: int) -> float:
    """``a[:n].sum()`` in numpy's order (``pairwise_sum`` for n <= 128): one by one below 8,
    else eight running sums combined as ((r0+r1)+(r2+r3))+((r4+r5)+(r6+r7)), then the rest."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    r0, r1, r2, r3, r4, r5, r6, r7 = a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]
    i = 8
    while i < n - (n % 8):
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[i]
        i += 1
    return res


def _scan(order: np.ndarray, values: np.ndarray, rows: np.ndarray, shift: int, k: int, table: np.ndarray, total: float, n_classes: int, min_leaf: float) -> Any:
    """For each feature (row of ``order``/``values``): its number of admissible cuts, the best
    gain J48's scan finds and the sorted position of its cut (-1: none above 1e-6), the class
    counts of its known rows and those left of the cut. Row ``r`` holds weight
    ``rows[r] >> shift`` of class ``rows[r] & (2**shift - 1)`` and none of the other classes
    (one number per row: one memory access where the rows are visited in a feature's order)."""
    f, n = order.shape
    mask = (1 << shift) - 1
    n_cuts = np.zeros(f, np.int64)
    best = np.zeros(f)
    where = np.full(f, -1, np.int64)
    known = np.zeros((f, k), np.int64)
    left_at = np.zeros((f, k), np.int64)
    node = np.zeros(k, np.int64)
    for r in range(n):
        node[rows[r] & mask] += rows[r] >> shift
    left = np.zeros(k, np.int64)
    tl = np.zeros(k)
    tr = np.zeros(k)
    for i in range(f):
        # The known rows' counts: the node's, less the rows missing this feature (sorted last).
        known[i, :] = node
        nk = n
        while nk > 0 and np.isnan(values[i, nk - 1]):
            nk -= 1
            row = rows[order[i, nk]]
            known[i, row & mask] -= row >> shift
        kwi = 0
        for c in range(k):
            kwi += known[i, c]
            tl[c] = table[known[i, c]]
        kw = float(kwi)
        least = min(max(0.1 * kw / n_classes, min_leaf), 25.0)
        if nk < 2 or kw - 2 * least < -J48_EPSILON:
            continue
        parent = table[kwi] - _pairwise(tl, k)
        share = kw / total
        left[:] = 0
        wl = 0
        b = 0.0
        cuts = 0
        for p in range(nk - 1):
            row = rows[order[i, p]]
            w = row >> shift
            left[row & mask] += w
            wl += w
            if not values[i, p] + VALUE_TOLERANCE < values[i, p + 1]:
                continue
            wlf = float(wl)
            if not (wlf - least > -J48_EPSILON and (kw - wlf) - least > -J48_EPSILON):
                continue
            cuts += 1
            for c in range(k):
                tl[c] = table[left[c]]
                tr[c] = table[known[i, c] - left[c]]
            children = (table[wl] - _pairwise(tl, k)) + (table[kwi - wl] - _pairwise(tr, k))
            numerator = share * (parent - children)
            gain = 0.0 if (kw <= 0 or abs(numerator) < J48_EPSILON) else numerator / kw
            if gain > b + J48_EPSILON:  # J48 moves on only for a gain better by 1e-6
                b = gain
                where[i] = p
                left_at[i, :] = left
        n_cuts[i] = cuts
        best[i] = b
    return n_cuts, best, where, known, left_at


def loaded() -> bool:
    """Whether the compiled library has been loaded in this process."""
    return kernels.loaded()


def _kernel() -> Any:
    """The compiled library, or None where it cannot be loaded (then :data:`AVAILABLE` turns
    False for good) or ``PURETREE_ENGINE=numpy`` keeps compiled loops out."""
    global AVAILABLE
    if not AVAILABLE or os.environ.get("PURETREE_ENGINE", "").strip() == "numpy":  # numpy chosen: no compiled loop
        return None
    lib = kernels.library()
    if lib is None:
        AVAILABLE = False
    return lib


def _scan_compiled(lib: Any, order: np.ndarray, values: np.ndarray, rows: np.ndarray, shift: int, k: int, table: np.ndarray, total: float, n_classes: int, min_leaf: float) -> Any:
    """:func:`_scan` by the compiled loop; None where it refuses its input (a table too short
    for the node's weight, an order that is no list of rows): the caller takes numpy's way."""
    f, n = order.shape
    n_cuts, best, where = np.zeros(f, np.int64), np.zeros(f), np.full(f, -1, np.int64)
    known, left_at = np.zeros((f, k), np.int64), np.zeros((f, k), np.int64)
    code = lib.pt_c45_scan(
        order.ctypes.data, values.ctypes.data, f, n, rows.ctypes.data, shift, k, table.ctypes.data, len(table), float(total), int(n_classes), float(min_leaf),
        J48_EPSILON, VALUE_TOLERANCE, n_cuts.ctypes.data, best.ctypes.data, where.ctypes.data, known.ctypes.data, left_at.ctypes.data,
    )  # fmt: skip
    if code == 1:
        raise MemoryError("puretree.growth.c45_kernel: out of memory")
    return (n_cuts, best, where, known, left_at) if code == 0 else None


def scan_features(order: np.ndarray, values: np.ndarray, counts: np.ndarray, table: np.ndarray, total: float, n_classes: int, min_leaf: float) -> tuple[np.ndarray, ...] | None:
    """:func:`_scan` on the node's sorted orders and values and its whole-number class counts
    ``counts`` (rows x classes, int64); ``table[x]`` is ``x log2 x`` as :func:`puretree.growth.c45_scan.bits`
    gives it. None when a row holds weight in two classes (the builder never makes one) or
    the compiled library is unavailable: the caller computes the same with numpy.

    Four rows of one feature, classes a a b b: the one cut between the two values is worth a
    whole bit, and leaves (2, 0) on its left.

    >>> from puretree.growth.c45_scan import bits
    >>> table = bits(np.arange(5, dtype=np.float64))
    >>> found = scan_features(np.array([[0, 1, 2, 3]]), np.array([[1.0, 1.0, 2.0, 2.0]]),
    ...                       np.array([[1, 0], [1, 0], [0, 1], [0, 1]]), table, 4.0, 2, 1.0)
    >>> found is None or [a.tolist() for a in found] == [[1], [1.0], [1], [[2, 2]], [[2, 0]]]
    True
    """
    if counts.shape[1] > MAX_CLASSES or (np.count_nonzero(counts, axis=1) > 1).any() or (kernel := _kernel()) is None:
        return None
    k = counts.shape[1]
    classes = counts.argmax(axis=1)
    shift = max(1, (k - 1).bit_length())
    rows = (counts[np.arange(len(counts)), classes] << shift) | classes
    order, values = np.ascontiguousarray(order, dtype=np.int64), np.ascontiguousarray(values, dtype=np.float64)
    if values.shape != order.shape or len(rows) != order.shape[1]:
        raise ValueError("puretree.growth.c45_kernel: order, values and counts do not match")
    rows = np.ascontiguousarray(rows, dtype=np.int64)
    return _scan_compiled(kernel, order, values, rows, shift, k, np.ascontiguousarray(table, dtype=np.float64), total, n_classes, min_leaf)
