"""The histogram source: a block of binned rows summed into per-node histograms, the best split
of every node chosen from the summed histograms, and the rows moved to their children.

Each function of the first part runs on one block of rows (a Dask partition, on its worker)
and returns small arrays; the histograms of several blocks add up (:func:`merge`, a monoid),
so the caller only sums them, whatever runs the blocks. A block holds its rows' bin numbers
(``bins``, rows x features, the last bin of every feature for a missing value), their targets
(class codes, or numbers) and weights, and each row's node id at the current level (-1: in
no open node), or, for C4.5's ``missing="distribute"``, its *instances* ``(row, node,
fraction)``.

The second part turns the summed histograms ``(node, feature, bin, channel)`` (the channels:
the statistics, then the number of rows) into decisions with the one chooser of each family
(:mod:`puretree.growth.choose`), as the in-memory engine chooses from its sorted columns:
:func:`choose` (CART, id3, regression) and :func:`c45_choose`; :func:`branches` gives a
decision's children's statistics. :mod:`puretree.dask` runs the first part on its partitions.

>>> bins = np.array([[0], [0], [1], [1]], dtype=np.uint8)
>>> H, _, _ = histogram(bins, np.array([0, 0, 1, 1]), None, np.zeros(4, dtype=np.int32), np.zeros(1, dtype=np.int64), 1, 3, 2)
>>> H[0, 0].tolist()          # per bin: class 0, class 1, rows; the last bin holds missing values
[[2.0, 0.0, 2.0], [0.0, 2.0, 2.0], [0.0, 0.0, 0.0]]
"""

from __future__ import annotations

import ctypes
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Protocol, cast

import attrs
import numpy as np

from . import kernels
from ..criteria import ImpurityDecrease
from ..errors import DataError, ParameterError
from ..impurity import variance as impurity_variance
from ..nodes import TESTS, Node
from ..splits import monotone_clipped_rows, tie_first
from ..tasks import CLASSIFICATION, REGRESSION
from .choose import (
    J48_EPSILON,
    Option,
    Scored,
    among_kinds,
    best_subset,
    binary_scores,
    c45_multiway,
    category_sum,
    choose_option,
    first_tied,
    first_tied_in_groups,
    heavy_enough,
    known_share,
    many_valued,
    tolerance,
    multiway_scores,
    weight_of,
)
from .c45_cuts import sorted_options
from .assemble import trusted_threshold
from .bounds import children_bounds, learned_ok, learned_side, monotone_ok
from .random_draw import bin_cuts, missing_side, mix, node_key
from .level import Decision, Sizes
from .level import grow as grow_frontier

__all__ = [
    "root_ids",
    "compiled_loops",
    "row_stats",
    "histogram",
    "root_histogram",
    "merge",
    "Packed",
    "unpack",
    "packed",
    "move",
    "root_instances",
    "instance_histogram",
    "instance_root_histogram",
    "move_instances",
    "Rules",
    "C45Rules",
    "choose",
    "best_thresholds",
    "learned_thresholds",
    "random_thresholds",
    "c45_choose",
    "branches",
    "threshold_children",
    "is_leaf",
    "Blocks",
    "Histograms",
    "grow",
    "Rows",
    "HISTOGRAM_BYTES",
    "applies",
    "binned_rows",
    "grow_binned",
    "bin_matrix",
    "bin_columns",
]


# -- on each block of rows ------------------------------------------------------------------


def root_ids(target: np.ndarray, weight: np.ndarray | None) -> np.ndarray:
    """Every row in the root (0), but a row of weight 0, which is no row (as in memory): -1."""
    out = np.zeros(len(target), dtype=np.int32)
    if weight is not None:
        out[weight == 0] = -1
    return out


def row_stats(target: np.ndarray, weight: np.ndarray | None, rows: np.ndarray, k: int) -> np.ndarray:
    """The rows' statistics (:meth:`puretree.tasks.Task.row_statistics`): weighted one-hot class
    counts (``k`` classes), or ``(w, w*y, w*y**2)`` (``k == 0``: regression)."""
    w = np.ones(len(rows)) if weight is None else weight[rows]
    if k == 0:
        y = target[rows]
        return np.column_stack((w, w * y, w * y * y))
    out = np.zeros((len(rows), k))
    out[np.arange(len(rows)), target[rows]] = w
    return out


def histogram(bins: np.ndarray, target: np.ndarray, weight: np.ndarray | None, node: np.ndarray, slot: np.ndarray, n_slots: int, n_bins: int, k: int, *, compiled: bool | None = None, threads: int = 1) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The statistics ``(slot, feature, bin, channel)`` of the rows whose node has a slot in this
    batch: the channels are the statistics (``k`` class counts, or 3 for regression, ``k ==
    0``) and the number of rows; bin ``n_bins - 1`` holds the missing values. Regression adds
    each slot's smallest and largest target (a node whose targets are all equal is a leaf).

    The compiled loop (``growth/_histograms.c``) sums where the library loads (``compiled``:
    None, where it loads and :envvar:`PURETREE_ENGINE` is not ``numpy``; True or False to
    choose), ``threads`` ranges of features at once; numpy's bincount otherwise. Both add every
    cell's rows in row order from 0.0: the same floats, bit for bit."""
    lib = _library() if compiled is None else _library(required=True) if compiled else None
    if lib is not None:
        return _c_histogram(lib, bins, target, weight, node, slot, n_slots, n_bins, k, threads)
    mine = node >= 0
    s = np.full(len(node), -1, dtype=np.int64)
    s[mine] = slot[node[mine]]
    rows = np.flatnonzero(s >= 0)
    p = bins.shape[1]
    cells = n_slots * p * n_bins
    idx = ((s[rows, None] * p + np.arange(p)) * n_bins + bins[rows]).reshape(-1)  # row by row, p cells each
    if k and weight is None:
        # unweighted classes: integer counts in one bincount, exact; rows are their sum
        counts = np.bincount(idx * k + np.repeat(target[rows], p), minlength=cells * k).reshape(cells, k)
        H = np.concatenate((counts, counts.sum(axis=1, keepdims=True)), axis=1).astype(np.float64)
    else:
        stats = row_stats(target, weight, rows, k)
        H = np.empty((cells, stats.shape[1] + 1))
        for c in range(stats.shape[1]):  # bincount adds in row order
            H[:, c] = np.bincount(idx, weights=np.repeat(stats[:, c], p), minlength=cells)
        H[:, -1] = np.bincount(idx, minlength=cells)
    H = H.reshape(n_slots, p, n_bins, -1)
    if k:
        return H, None, None
    lo, hi = np.full(n_slots, np.inf), np.full(n_slots, -np.inf)
    np.minimum.at(lo, s[rows], target[rows])
    np.maximum.at(hi, s[rows], target[rows])
    return H, lo, hi


def root_histogram(bins: np.ndarray, target: np.ndarray, weight: np.ndarray | None, node: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The root's statistics and row count (one bin, every row in it), and its targets' range."""
    one = np.zeros((len(node), 1), dtype=np.uint8)
    return histogram(one, target, weight, node, np.zeros(1, dtype=np.int64), 1, 1, k)


def _library(*, required: bool = False) -> Any:
    """The compiled library with the binned source's loops declared, or None (not built or
    damaged, see :func:`puretree.growth.kernels.library`; or ``PURETREE_ENGINE=numpy``). ``required``:
    the library or a :class:`~puretree.errors.ParameterError`."""
    lib = None if os.environ.get("PURETREE_ENGINE", "").strip() == "numpy" and not required else kernels.library()
    if lib is None:
        if required:
            raise ParameterError(f"the compiled histogram loops are unavailable here ({kernels.unavailable_reason() or 'disabled'}); {kernels.REMEDY}")
        return None
    if not getattr(lib, "_pt_hist_declared", False):
        p, i64 = ctypes.c_void_p, ctypes.c_int64
        lib.pt_hist_accumulate.argtypes = [p, i64, i64, i64, i64, i64, p, p, i64, p, p, p, i64, i64, i64, p, p, p]
        lib.pt_hist_accumulate.restype = ctypes.c_int
        lib.pt_hist_move.argtypes = [p, i64, i64, i64, i64, p, i64, p, p, p, p, p, i64, p, p, i64, i64, p]
        lib.pt_hist_move.restype = ctypes.c_int
        lib.pt_hist_cuts.argtypes = [p, i64, i64, i64, i64, p, ctypes.c_double, p, p, p, p, p, i64]
        lib.pt_hist_cuts.restype = i64
        lib.pt_hgb_histogram.argtypes = [p, i64, i64, p, i64, p, p, i64, i64, i64, p]
        lib.pt_hgb_histogram.restype = ctypes.c_int
        d = ctypes.c_double
        lib.pt_hgb_best_split.argtypes = [p, i64, i64, p, d, d, d, p, p]
        lib.pt_hgb_best_split.restype = ctypes.c_int
        lib.pt_hgb_partition.argtypes = [p, i64, i64, p, i64, i64, i64, i64, i64, p, p]
        lib.pt_hgb_partition.restype = i64
        lib.pt_hgb_step.argtypes = [p, i64, i64, p, i64, p, p, i64, p, d, d, d, i64, p, i64, i64, p, p, p, p]
        lib.pt_hgb_step.restype = ctypes.c_int
        lib.pt_hist_bin.argtypes = [p, i64, i64, i64, i64, p, i64, i64, p, i64]
        lib.pt_hist_bin.restype = ctypes.c_int
        lib.pt_hist_count.argtypes = [p, i64, i64, i64, i64, i64, p, p, i64, p, i64, i64, i64, p]
        lib.pt_hist_count.restype = ctypes.c_int
        lib._pt_hist_declared = True
    return lib


def compiled_loops() -> Any:
    """The compiled library with the binned source's loops declared (``pt_hgb_*`` too, for
    :mod:`puretree.hist_gradient_boosting`), or None: numpy's functions then, the same floats."""
    return _library()


def _ptr(a: np.ndarray | None) -> int | None:
    return None if a is None else a.ctypes.data


def _ranges(n: int, parts: int) -> list[tuple[int, int]]:
    """``[0, n)`` cut into at most ``parts`` consecutive ranges."""
    cuts = np.linspace(0, n, max(1, min(parts, n)) + 1).astype(int).tolist()
    return [(a, b) for a, b in zip(cuts[:-1], cuts[1:])]


def _in_threads(call: Callable[[int, int], int], n: int, threads: int) -> None:
    """``call(a, b)`` on ranges covering ``[0, n)``, in ``threads`` threads (ctypes releases the
    GIL); a range the C refuses (an index out of bounds) is a :class:`DataError`."""
    ranges = _ranges(n, threads)
    if len(ranges) <= 1:
        codes = [call(0, n)]
    else:
        with ThreadPoolExecutor(len(ranges)) as pool:
            codes = list(pool.map(lambda r: call(*r), ranges))
    if any(codes):
        raise DataError("a bin, class code or node id is out of range in the histogram source's arrays")


def _c_histogram(lib: Any, bins: np.ndarray, target: np.ndarray, weight: np.ndarray | None, node: np.ndarray, slot: np.ndarray, n_slots: int, n_bins: int, k: int, threads: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """:func:`histogram` by the compiled loop: each thread sums its own features' cells."""
    bins = np.ascontiguousarray(bins)
    if bins.dtype not in (np.uint8, np.uint16, np.uint32):
        bins = bins.astype(np.uint32)
    node = np.ascontiguousarray(node, dtype=np.int32)
    slot = np.ascontiguousarray(slot, dtype=np.int64)
    cls = np.ascontiguousarray(target, dtype=np.int32) if k else None
    y = None if k else np.ascontiguousarray(target, dtype=np.float64)
    w = None if weight is None else np.ascontiguousarray(weight, dtype=np.float64)
    n, p = bins.shape
    H = np.zeros((n_slots, p, n_bins, (k or 3) + 1))
    lo, hi = (None, None) if k else (np.full(n_slots, np.inf), np.full(n_slots, -np.inf))
    width = bins.dtype.itemsize

    def call(f0: int, f1: int) -> int:
        first = f0 == 0  # one range tracks the targets' range
        return int(lib.pt_hist_accumulate(_ptr(bins), width, n, p, f0, f1, _ptr(node), _ptr(slot), len(slot), _ptr(cls), _ptr(y), _ptr(w), k, n_slots, n_bins, _ptr(H), _ptr(lo) if first else None, _ptr(hi) if first else None))

    if p == 0:  # no feature: the targets' range alone
        call(0, 0)
    else:
        _in_threads(call, p, threads)
    return H, lo, hi


def merge(a: tuple[Any, Any, Any], b: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
    """Two partitions' histograms as one: statistics added, target ranges joined (a monoid).
    Packed counts (:class:`Packed`) add as integers, the same numbers as their floats."""
    if isinstance(a[0], Packed):
        return Packed(_add_counts(a[0].counts, b[0].counts)), None, None
    if a[1] is None:
        return a[0] + b[0], None, None
    return a[0] + b[0], np.minimum(a[1], b[1]), np.maximum(a[2], b[2])


@attrs.frozen(eq=False)
class Packed:
    """Unweighted class counts as a worker sends them: integers (int32 while they fit), the
    rows channel left out (it is their sum), a third of the float64 histogram's bytes for two
    classes. :func:`unpack` gives back the same floats: integers below 2**53 are exact in both."""

    counts: np.ndarray  # (slot, feature, bin, class)


def _add_counts(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a + b`` of non-negative counts, in int64 where int32 could overflow."""
    if a.dtype == np.int32 and b.dtype == np.int32 and int(a.max(initial=0)) + int(b.max(initial=0)) < 2**31:
        return a + b
    return a.astype(np.int64) + b


def unpack(H: Any) -> np.ndarray:
    """The float64 histogram (slot, feature, bin, channel) a :class:`Packed` stands for, its
    rows channel the sum of its classes (anything else as it is).

    >>> H = np.array([[[[2.0, 1.0, 3.0], [0.0, 0.0, 0.0]]]])
    >>> bool((unpack(Packed(np.array([[[[2, 1], [0, 0]]]], dtype=np.int32))) == H).all())
    True
    """
    if not isinstance(H, Packed):
        return H
    c = H.counts
    out = np.empty((*c.shape[:-1], c.shape[-1] + 1))
    out[..., :-1] = c
    rows = out[..., -1]
    np.copyto(rows, c[..., 0])
    for j in range(1, c.shape[-1]):  # class by class (a sum over a short last axis is slow): integers, exact in float64
        rows += c[..., j]
    return out


def packed(bins: np.ndarray, target: np.ndarray, weight: np.ndarray | None, node: Any, fn: Callable[..., tuple[np.ndarray, Any, Any]], *shared: Any) -> tuple[Any, Any, Any]:
    """``fn(bins, target, weight, node, *shared)`` (:func:`histogram` or :func:`root_histogram`),
    what a worker sends: unweighted class counts packed (:class:`Packed`), other statistics as
    they are; :func:`merge` adds either, :func:`unpack` opens them."""
    if fn is histogram and weight is None and len(target) < 2**31 and shared[-1] > 0 and (lib := _library()) is not None:
        return Packed(_c_counts(lib, bins, target, node, *shared)), None, None  # the counts alone, without a float64 histogram
    H, lo, hi = fn(bins, target, weight, node, *shared)
    if weight is not None or lo is not None or fn not in (histogram, root_histogram):
        return H, lo, hi
    return Packed(H[..., :-1].astype(np.int32 if len(target) < 2**31 else np.int64)), None, None


def _c_counts(lib: Any, bins: np.ndarray, target: np.ndarray, node: np.ndarray, slot: np.ndarray, n_slots: int, n_bins: int, k: int) -> np.ndarray:
    """Unweighted class counts ``(slot, feature, bin, class)`` as int32 by the compiled loop: the
    class channels of :func:`histogram` with weights of 1 (below 2**31 rows: the same numbers)."""
    bins = np.ascontiguousarray(bins)
    if bins.dtype not in (np.uint8, np.uint16, np.uint32):
        bins = bins.astype(np.uint32)
    node = np.ascontiguousarray(node, dtype=np.int32)
    slot = np.ascontiguousarray(slot, dtype=np.int64)
    cls = np.ascontiguousarray(target, dtype=np.int32)
    n, p = bins.shape
    C = np.zeros((n_slots, p, n_bins, k), dtype=np.int32)
    if lib.pt_hist_count(_ptr(bins), bins.dtype.itemsize, n, p, 0, p, _ptr(node), _ptr(slot), len(slot), _ptr(cls), k, n_slots, n_bins, _ptr(C)):
        raise DataError("a bin, class code or node id is out of range in the histogram source's arrays")
    return C


def move(bins: np.ndarray, node: np.ndarray, feature: np.ndarray, cut: np.ndarray, left: np.ndarray, right: np.ndarray, heavy: np.ndarray, missing: int, table_of: np.ndarray, dest: np.ndarray, *, compiled: bool | None = None, threads: int = 1) -> np.ndarray:
    """Every row's node at the next level (-1: its node became a leaf). A threshold split sends
    a row left or right by its bin, a missing value to the heavier child (``heavy``: 0 left,
    1 right); a subset or multiway split (``table_of[g] >= 0``) sends it to the node
    ``dest[table_of[g], bin]`` (its missing bin names the heavier child). ``compiled`` and
    ``threads`` (ranges of rows) as for :func:`histogram`."""
    lib = _library() if compiled is None else _library(required=True) if compiled else None
    if lib is not None:
        return _c_move(lib, bins, node, feature, cut, left, right, heavy, missing, table_of, dest, threads)
    out = np.full(len(node), -1, dtype=np.int32)
    mine = np.flatnonzero(node >= 0)
    g = node[mine]
    b = bins[mine, feature[g]]
    goes_right = np.where(b == missing, heavy[g] == 1, b > cut[g])
    out[mine] = np.where(goes_right, right[g], left[g])
    t = table_of[g]
    by_table = np.flatnonzero(t >= 0)
    if len(by_table):
        out[mine[by_table]] = dest[t[by_table], b[by_table]]
    return out


def _c_move(lib: Any, bins: np.ndarray, node: np.ndarray, feature: np.ndarray, cut: np.ndarray, left: np.ndarray, right: np.ndarray, heavy: np.ndarray, missing: int, table_of: np.ndarray, dest: np.ndarray, threads: int) -> np.ndarray:
    """:func:`move` by the compiled loop, each thread a range of rows."""
    bins = np.ascontiguousarray(bins)
    if bins.dtype not in (np.uint8, np.uint16, np.uint32):
        bins = bins.astype(np.uint32)
    node = np.ascontiguousarray(node, dtype=np.int32)
    feature, cut, table_of = (np.ascontiguousarray(a, dtype=np.int64) for a in (feature, cut, table_of))
    left, right = (np.ascontiguousarray(a, dtype=np.int32) for a in (left, right))
    heavy = np.ascontiguousarray(heavy, dtype=np.int8)
    dest = np.ascontiguousarray(dest, dtype=np.int32)
    n, p = bins.shape
    out = np.empty(len(node), dtype=np.int32)
    n_bins = dest.shape[1] if dest.ndim == 2 and len(dest) else 0
    args = (_ptr(node), len(feature), _ptr(feature), _ptr(cut), _ptr(left), _ptr(right), _ptr(heavy), missing, _ptr(table_of), _ptr(dest), len(dest), n_bins, _ptr(out))
    _in_threads(lambda a, b: int(lib.pt_hist_move(_ptr(bins), bins.dtype.itemsize, p, a, b, *args)), n, threads)
    return out


def bin_columns(block: np.ndarray, edges: Sequence[np.ndarray | None], dtype: Any, missing: int, *, compiled: bool | None = None) -> np.ndarray:
    """Each value of ``block`` (rows x features, float64) replaced by its bin: the first of its
    column's upper ``edges`` at or above it (numpy's ``searchsorted``, side ``"left"``), the
    last edge's bin above them all; a category's bin is its code (``edges`` None); a missing
    value (NaN) gets the bin ``missing``, past every feature's. In ``dtype`` (uint8, uint16 or
    uint32). The compiled loop bins the numeric columns where the library loads (``compiled``
    as for :func:`histogram`): the same bins, a binary search per value without numpy's
    temporary arrays.

    >>> bin_columns(np.array([[0.5, 2.0], [2.0, np.nan], [9.0, 0.0]]), [np.array([1.0, 2.0, 3.0]), None], np.uint8, 3).tolist()
    [[0, 2], [1, 3], [2, 0]]
    """
    lib = _library() if compiled is None else _library(required=True) if compiled else None
    block = np.asarray(block, dtype=np.float64)
    out = np.empty(block.shape, dtype=dtype)
    n, p = block.shape
    for j, e in enumerate(edges):
        column = block[:, j]
        if e is None:
            out[:, j] = np.where(np.isnan(column), missing, np.where(np.isnan(column), 0, column).astype(dtype))
        elif lib is not None and block.flags.c_contiguous:
            e = np.ascontiguousarray(e, dtype=np.float64)
            if lib.pt_hist_bin(_ptr(block), p, 0, n, j, _ptr(e), len(e), missing, _ptr(out), out.dtype.itemsize):
                raise DataError(f"column {j}: its bins do not fit {out.dtype} or its edges are empty")
        else:
            out[:, j] = np.where(np.isnan(column), missing, np.minimum(np.searchsorted(e, column, side="left"), len(e) - 1))
    return out


def root_instances(target: np.ndarray, weight: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``missing="distribute"``: a partition's rows as instances ``(row, node, fraction)``, a
    row being in several nodes with fractions of its weight once a missing value has sent it
    down every branch; at the root every row of positive weight is one whole instance."""
    rows = np.arange(len(target)) if weight is None else np.flatnonzero(weight != 0)
    return rows, np.zeros(len(rows), dtype=np.int32), np.ones(len(rows))


def instance_histogram(bins: np.ndarray, target: np.ndarray, weight: np.ndarray | None, inst: tuple[np.ndarray, np.ndarray, np.ndarray], slot: np.ndarray, n_slots: int, n_bins: int, k: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """:func:`histogram` of the instances, each weighing its row's weight times its fraction
    (the rows channel counts instances, as the in-memory node counts its rows)."""
    rows, node, frac = inst
    return histogram(bins[rows], target[rows], frac if weight is None else weight[rows] * frac, node, slot, n_slots, n_bins, k)


def instance_root_histogram(bins: np.ndarray, target: np.ndarray, weight: np.ndarray | None, inst: tuple[np.ndarray, np.ndarray, np.ndarray], k: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    one = np.zeros((len(bins), 1), dtype=np.uint8)
    return instance_histogram(one, target, weight, inst, np.zeros(1, dtype=np.int64), 1, 1, k)


def move_instances(bins: np.ndarray, inst: tuple[np.ndarray, np.ndarray, np.ndarray], feature: np.ndarray, cut: np.ndarray, left: np.ndarray, right: np.ndarray, missing: int, table_of: np.ndarray, dest: np.ndarray, kids: np.ndarray, share: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The instances of the next level: a known value follows its branch (:func:`move`); a
    missing one goes down every branch ``b`` of positive ``share[node, b]`` (the branch's part of
    the known weight) to node ``kids[node, b]``, its fraction multiplied by the share (C4.5)."""
    rows, node, frac = inst
    out = move(bins[rows], node, feature, cut, left, right, np.zeros(len(feature), dtype=np.int8), missing, table_of, dest)
    absent = bins[rows, feature[node]] == missing
    out[absent] = -1
    keep = np.flatnonzero(out >= 0)
    at, b = np.nonzero((share[node] > 0) & (kids[node] >= 0) & absent[:, None])
    return (np.concatenate((rows[keep], rows[at])), np.concatenate((out[keep], kids[node[at], b])).astype(np.int32), np.concatenate((frac[keep], frac[at] * share[node[at], b])))


# -- from the summed histograms ---------------------------------------------------------


@attrs.frozen
class Rules:
    """What decides a node's split on the client (the in-memory engine's rules)."""

    score: Any
    names: np.ndarray
    max_depth: int | None
    min_samples_split: float
    min_samples_leaf: float
    min_gain: float | None
    regression: bool
    variance: bool  # the variance decrease: scored by the engine's own formula
    categorical: np.ndarray  # per feature: whether it is categorical
    multiway: bool  # categorical splits: one branch per category (id3), else subsets (cart)
    n_categories: tuple[int, ...]  # per feature: its categories (0: numeric)
    #: Every statistic an integer (unweighted class counts): sums of non-empty bins only, exact.
    integral: bool = False
    #: The compiled loops (None: where the library loads, as :func:`histogram` chooses).
    compiled: bool | None = None
    #: ``monotonic_cst`` per feature as the in-memory engine holds it (-1, 0, +1 on the value
    #: :func:`puretree.splits.monotone_value` reads; None: no constraint), grown as
    #: :class:`puretree.growth.bounds.Bounded` grows it: bounds passed down, candidates kept within.
    monotonic: np.ndarray | None = None
    #: ``missing="learn"``: each threshold learns its missing rows' side (:func:`learned_thresholds`).
    learn: bool = False
    #: The least weight of a child (``min_weight_fraction_leaf`` times the training weight; 0: no
    #: bound), held by every candidate as the in-memory engine holds it (:func:`~puretree.growth.choose.heavy_enough`).
    min_weight_leaf: float = 0.0
    #: ``splitter="random"`` (extra trees): the seed key of the random cuts (:func:`random_thresholds`);
    #: None: the best threshold of every feature.
    random: tuple[int, ...] | None = None
    #: The random splitter's ``max_features``: it visits features until this many (and one not
    #: constant at the node) were drawn (None: all).
    random_features: int | None = None


def choose(H: np.ndarray, parents: np.ndarray, usable: list[np.ndarray], rules: Rules, allowed: np.ndarray | None = None, bounds: tuple[np.ndarray, np.ndarray] | None = None, *, keys: Sequence[int] | None = None, edges: Sequence[np.ndarray | None] | None = None) -> list[tuple[str, int, Any, float] | None]:
    """Each node's split from its histogram ``(feature, bin, channel)`` (the last bin: missing
    values; the last channel: rows): ``("threshold", feature, bin, score)``, ``("subset",
    feature, left categories, score)``, ``("multiway", feature, feature, score)`` or None.
    ``parents``: the nodes' statistics and rows; ``usable``: the categorical features each
    node may split on (not used by a multiway split above it); ``allowed`` (nodes, features):
    the features each node may split on (``max_features``; None: all); ``bounds``: the nodes'
    lower and upper bounds (``rules.monotonic``). With ``rules.learn`` a threshold's test is
    ``(bin, side)``: the side its missing rows take (bin ``n_bins - 1``: the missing rows alone right).
    With ``rules.random`` the numeric features' threshold is :func:`random_thresholds`' (the
    nodes' ``keys``, :func:`puretree.growth.random_draw.node_key`, key its draws; a threshold
    is one of the features' ``edges``; it visits its own features, not ``allowed``).

    As the in-memory engine chooses, with the same chooser (:mod:`puretree.growth.choose`):
    the best threshold of the numeric features, the best subset (cart) or multiway split (id3)
    of the categorical ones, then the better of the two, the lower feature on a tie, and
    ``min_gain``.
    """
    n = H.shape[0]
    task = REGRESSION if rules.regression else CLASSIFICATION
    total = weight_of(parents[:, :-1], rules.regression)
    categorical = np.flatnonzero(rules.categorical).tolist()
    kinds = ("threshold", "multiway" if rules.multiway else "subset")
    scores, feats = np.full((n, 2), -np.inf), np.zeros((n, 2), dtype=np.int64)
    tests: list[list[Any]] = [[None] * n, [None] * n]
    numeric = np.flatnonzero(~rules.categorical)
    Hn = H[:, ~rules.categorical] if categorical else H  # numeric features alone: no copy
    if rules.random is not None:  # extra trees: the random cut, its features its own draw (as in memory)
        fs, fb, fside = random_thresholds(Hn, parents, rules, cast("Sequence[int]", keys), [cast("np.ndarray", edges[j]) for j in numeric.tolist()] if edges is not None else [], bounds)
    else:
        fs, fb, fside = learned_thresholds(Hn, parents, rules, bounds) if rules.learn else (*best_thresholds(Hn, parents, rules, bounds), None)
        if allowed is not None:
            fs[~allowed[:, numeric]] = -np.inf
    if allowed is not None:
        usable = [u & a for u, a in zip(usable, allowed)]
    has = ~np.isneginf(fs).all(axis=1) if len(numeric) else np.zeros(n, dtype=bool)
    if has.any():
        r = np.flatnonzero(has)
        at = first_tied(fs[r])
        scores[r, 0], feats[r, 0] = fs[r, at], numeric[at]
        for i, b in zip(r.tolist(), fb[r, at].tolist()):
            tests[0][i] = b
        if fside is not None:  # missing="learn": the side goes with the cut
            for i, b, side in zip(r.tolist(), fb[r, at].tolist(), fside[r, at].tolist()):
                tests[0][i] = (b, side)
    if categorical and rules.multiway:
        ms = np.full((n, len(categorical)), -np.inf)
        among = np.array(usable, dtype=bool).reshape(n, -1)
        for jj, f in enumerate(categorical):
            m = rules.n_categories[f]
            per = H[:, f, :m, :-1]
            ms[:, jj] = multiway_scores(rules.score, per, H[:, f, :m, -1], category_sum(per), total, np.asarray(rules.names[f]), among=among[:, f], incomplete=H[:, f, -1, -1] > 0, min_samples_leaf=rules.min_samples_leaf, regression=rules.regression, min_weight_leaf=rules.min_weight_leaf)
        r = np.flatnonzero(~np.isneginf(ms).all(axis=1))
        at = first_tied(ms[r])
        scores[r, 1], feats[r, 1] = ms[r, at], np.asarray(categorical)[at]
        for i in r.tolist():
            tests[1][i] = int(feats[i, 1])
    elif categorical:
        for i in range(n):
            hits = [(f, hit) for f in categorical if (allowed is None or allowed[i, f]) and (hit := _subset(H[i, f], float(total[i]), rules, f, task)) is not None]
            if hits:
                f, (score, codes, _) = hits[tie_first(np.array([h[0] for _, h in hits]))]
                scores[i, 1], feats[i, 1], tests[1][i] = score, f, codes
    split, choice = among_kinds(scores, feats, rules.min_gain)
    return [(kinds[c], int(feats[i, c]), tests[c][i], float(scores[i, c])) if split[i] else None for i, c in enumerate(choice.tolist())]


def best_thresholds(H: np.ndarray, parents: np.ndarray, rules: Rules, bounds: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Each node's best threshold of each numeric feature from their histograms ``H``: the
    scores (node, feature; -inf: none) and the cuts' bins.

    Candidates lie between consecutive non-empty bins; the left side is every known bin up to
    the cut. Scores as the engine's (:func:`puretree.growth.choose.binary_scores`), on the
    known rows of the feature when the node has a missing value in any numeric feature, then
    scaled by their share of the node's weight; NaN, and a cut leaving a side lighter than
    ``rules.min_weight_leaf``, as -inf; the first (lowest) cut within tolerance of a feature's best. ``rules.monotonic``: a candidate whose (known) children's
    values leave the node's ``bounds`` or go against the direction is not taken, as
    :class:`puretree.growth.bounds.Bounded` judges it (:func:`puretree.growth.bounds.monotone_ok`).
    """
    n, p, _, _ = H.shape
    incomplete = np.asarray((H[:, :, -1, -1] > 0).any(axis=1))  # a missing value in the node, any numeric feature
    lib = _library() if rules.compiled is None else _library(required=True) if rules.compiled else None
    ni, fj, bb, left, known_sum = _c_cut_sums(lib, H, rules.min_samples_leaf, parents) if lib is not None else _cut_sums(H, rules.min_samples_leaf)
    fs = np.full((n, p), -np.inf)
    fb = np.zeros((n, p), dtype=np.int64)
    if len(ni):
        total = parents[:, :-1]
        parent = np.where(incomplete[ni, None], known_sum, total[ni])
        names = rules.names[~rules.categorical][fj]
        s = binary_scores(rules.score, parent, left, names, regression=rules.regression, variance=rules.variance)
        if rules.min_weight_leaf > 0:  # both children of at least that weight (the node's: its known rows' where it has a missing value)
            s = np.where(heavy_enough(weight_of(left, rules.regression), weight_of(parent, rules.regression), rules.min_weight_leaf), s, -np.inf)
        if rules.monotonic is not None and bounds is not None:
            ok = monotone_ok(rules.monotonic[~rules.categorical][fj], bounds[0][ni], bounds[1][ni], left, parent, _task(rules), remainder=True)
            s = np.where(ok, s, -np.inf)
        if incomplete.any():
            s = known_share(s, weight_of(parent, rules.regression), weight_of(total, rules.regression)[ni], incomplete[ni])
        s = np.where(np.isnan(s), -np.inf, s)
        pick = first_tied_in_groups(s, ni * p + fj)
        fs[ni[pick], fj[pick]] = s[pick]
        fb[ni[pick], fj[pick]] = bb[pick]
    return fs, fb


def random_thresholds(H: np.ndarray, parents: np.ndarray, rules: Rules, keys: Sequence[int], edges: Sequence[np.ndarray], bounds: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Each node's random cut (``splitter="random"``, extra trees) from the histograms ``H``
    (node, numeric feature, bin, channel; ``edges``: those features' bin edges) of the nodes
    keyed ``keys`` (:func:`puretree.growth.random_draw.node_key` of the seed and the node's
    path): the features visited and cut as :func:`puretree.growth.random_draw.bin_cuts` draws
    them from each feature's occupied bins (its lowest and highest known bin holding a row of
    the node), each cut scored as :func:`best_thresholds` scores a cut (the known rows' share
    on a node with a missing value; ``rules.min_samples_leaf`` rows and ``rules.min_weight_leaf``
    weight each side) or, with
    ``rules.learn``, on all the node's rows with the missing rows on the side drawn as the
    recursive builder's random splitter draws it (:func:`puretree.growth.random_draw.missing_side`)
    where the node has missing values in the feature, else on the child of more rows. With
    ``rules.monotonic`` a cut whose children leave the node's ``bounds`` or go against the
    direction is not taken (as :func:`best_thresholds`). The first visited cut
    within tolerance of the node's best wins, as the recursive builder's random splitter takes
    the first on a tie. Returns the scores (node, feature; finite at the winning feature only),
    the cuts' bins and, with ``rules.learn``, the sides (as :func:`learned_thresholds`; else None).

    >>> from puretree.criteria import SCORES
    >>> from puretree.growth.random_draw import node_key
    >>> H = np.zeros((1, 1, 4, 3))
    >>> H[0, 0, :3, :2] = [[2, 0], [1, 1], [0, 2]]           # three known bins (bin 3: missing values)
    >>> H[..., 2] = H[..., :2].sum(axis=-1)
    >>> rules = Rules(SCORES["gini"], np.array(["x"]), None, 2, 1, None, False, False, np.zeros(1, dtype=bool), False, (0,), random=(0,))
    >>> fs, fb, _ = random_thresholds(H, np.array([[3.0, 3.0, 6.0]]), rules, [node_key((0,), ())], [np.array([1.0, 2.0, 3.0])])
    >>> bool(np.isfinite(fs[0, 0])), int(fb[0, 0]) in (0, 1)
    (True, True)
    """
    n, p, nb, _ = H.shape
    fs = np.full((n, p), -np.inf)
    fb = np.zeros((n, p), dtype=np.int64)
    fside = np.ones((n, p), dtype=np.int64) if rules.learn else None
    occupied = H[:, :, :-1, -1] > 0  # (n, p, known bins): the bins holding a row of the node
    has = occupied.any(axis=2)
    low = np.where(has, np.argmax(occupied, axis=2), -1)
    high = nb - 2 - np.argmax(occupied[:, :, ::-1], axis=2)
    ni_, fj_, bb_ = bin_cuts(low, high, edges, keys, limit=rules.random_features)
    if not len(ni_):
        return fs, fb, fside
    cut = np.full((n, p), -1)
    cut[ni_, fj_] = bb_
    # each cut's left side: its known bins up to the cut (one pass over the histograms, no copy of them)
    L = np.einsum("npbc,npb->npc", H[:, :, :-1], (np.arange(nb - 1) <= cut[:, :, None]).astype(H.dtype))[ni_, fj_]
    K = parents[ni_] - H[ni_, fj_, -1]  # the known bins: the node's rows but the missing bin's
    left, known = L[:, :-1], K[:, :-1]
    n_left, n_known = L[:, -1], K[:, -1]
    total = parents[ni_, :-1]
    names = rules.names[~rules.categorical][fj_]
    msl = max(1.0, float(rules.min_samples_leaf))

    def scored(par: np.ndarray, lf: np.ndarray, ok: np.ndarray) -> np.ndarray:
        out = np.full(len(ok), -np.inf)
        if ok.any():
            with np.errstate(invalid="ignore", divide="ignore"):
                got = binary_scores(rules.score, par[ok], lf[ok], names[ok], regression=rules.regression, variance=rules.variance)
            out[ok] = np.where(np.isnan(got), -np.inf, got)
        return out

    side = None
    if rules.learn:  # as learned_thresholds: on all the node's rows, the missing rows right, then left
        absent, n_miss = H[ni_, fj_, -1, :-1], H[ni_, fj_, -1, -1]
        ok_r, ok_l, _ = learned_ok(n_left, parents[ni_, -1], n_known, n_miss, float(rules.min_samples_leaf))
        if rules.min_weight_leaf > 0:  # each child's weight, its missing rows included (as learned_thresholds)
            w_node = weight_of(total, rules.regression)
            ok_r = ok_r & heavy_enough(weight_of(left, rules.regression), w_node, rules.min_weight_leaf)
            ok_l = ok_l & heavy_enough(weight_of(left + absent, rules.regression), w_node, rules.min_weight_leaf)
        # the side drawn where the node has missing values in the feature (as the recursive builder's random splitter)
        use_l = np.array([missing_side(int(keys[i]), p, f) == 0 for i, f in zip(ni_.tolist(), fj_.tolist())], dtype=bool) & (n_miss > 0)
        if rules.monotonic is not None and bounds is not None:
            direction, lower, upper = rules.monotonic[~rules.categorical][fj_], bounds[0][ni_], bounds[1][ni_]
            ok_r = ok_r & monotone_ok(direction, lower, upper, left, total, _task(rules), remainder=True)
            ok_l = ok_l & monotone_ok(direction, lower, upper, left + absent, total, _task(rules), remainder=True)
        s = np.where(use_l, scored(total, left + absent, ok_l), scored(total, left, ok_r))
        side = learned_side(n_miss > 0, use_l, n_left, parents[ni_, -1] - n_left)
    else:
        incomplete = np.asarray((H[:, :, -1, -1] > 0).any(axis=1))[ni_]  # a missing value in the node, any numeric feature
        parent = np.where(incomplete[:, None], known, total)
        ok = (n_left >= msl) & (n_known - n_left >= msl)
        if rules.min_weight_leaf > 0:  # both children of at least that weight (the node's: its known rows' where it has a missing value)
            ok &= heavy_enough(weight_of(left, rules.regression), weight_of(parent, rules.regression), rules.min_weight_leaf)
        if rules.monotonic is not None and bounds is not None:
            ok &= monotone_ok(rules.monotonic[~rules.categorical][fj_], bounds[0][ni_], bounds[1][ni_], left, parent, _task(rules), remainder=True)
        s = scored(parent, left, ok)
        if incomplete.any():
            s = known_share(s, weight_of(parent, rules.regression), weight_of(total, rules.regression), incomplete)
    for c in first_tied_in_groups(s, ni_).tolist():  # per node: the first visited cut within tolerance of its best
        if np.isfinite(s[c]):
            i, f = int(ni_[c]), int(fj_[c])
            fs[i, f], fb[i, f] = s[c], bb_[c]
            if fside is not None and side is not None:
                fside[i, f] = side[c]
    return fs, fb, fside


def _task(rules: Rules) -> Any:
    return REGRESSION if rules.regression else CLASSIFICATION


def learned_thresholds(H: np.ndarray, parents: np.ndarray, rules: Rules, bounds: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`best_thresholds` for ``missing="learn"``, as :class:`puretree.growth.bounds.Bounded`
    scores it on the sorted binned rows: every cut between non-empty known bins with the
    missing rows right, then left, and the missing rows alone right (bin ``n_bins - 1``), each on
    all the node's rows (no known share); the rows bounds of ``min_samples_leaf`` on each side,
    ``rules.monotonic`` within ``bounds``. Per feature the first candidate within tolerance of
    its best, the missing-right ones first, then missing-left, then alone. Also the side each
    takes: learned where the feature has missing rows at the node (0 left), else the child of
    more rows (a tie: right). Scores (node, feature; -inf: none), cuts' bins, sides.

    >>> from puretree.criteria import SCORES
    >>> H = np.zeros((1, 1, 4, 3))
    >>> H[0, 0, :, :2] = [[2, 0], [0, 2], [0, 0], [0, 2]]  # bins 0, 1 known; bin 3 missing
    >>> H[..., 2] = H[..., :2].sum(axis=-1)
    >>> rules = Rules(SCORES["gini"], np.array(["x"]), None, 2, 1, None, False, False, np.zeros(1, dtype=bool), False, (0,), learn=True)
    >>> fs, fb, side = learned_thresholds(H, np.array([[2.0, 4.0, 6.0]]), rules)
    >>> fb.tolist(), side.tolist()      # the cut after bin 0, the missing rows right
    ([[0]], [[1]])
    """
    n, p, nb, _ = H.shape
    task, msl = _task(rules), float(rules.min_samples_leaf)
    total, rows = parents[:, :-1], parents[:, -1]
    lib = _library() if rules.compiled is None else _library(required=True) if rules.compiled else None
    ni, fj, bb, left, known_sum = _c_cut_sums(lib, H, 0.0, parents) if lib is not None else _cut_sums(H, 0.0)
    C = np.cumsum(H[:, :, :-1], axis=2)
    absent, n_miss = H[:, :, -1, :-1], H[:, :, -1, -1]  # (n, p, k), (n, p): the missing rows
    n_known = rows[:, None] - n_miss
    direction = None if rules.monotonic is None else rules.monotonic[~rules.categorical]
    names = rules.names[~rules.categorical]
    lower, upper = bounds if bounds is not None else (np.full(n, -np.inf), np.full(n, np.inf))

    def scored(par: np.ndarray, lf: np.ndarray, ok: np.ndarray, f: np.ndarray, at: np.ndarray, right: np.ndarray | None = None) -> np.ndarray:
        if direction is not None:
            ok = ok & monotone_ok(direction[f], lower[at], upper[at], lf, par, task, remainder=False, right=right)
        out = np.full(len(ok), -np.inf)
        if ok.any():
            with np.errstate(invalid="ignore", divide="ignore"):
                got = binary_scores(rules.score, par[ok], lf[ok], names[f[ok]], regression=rules.regression, variance=rules.variance)
            out[ok] = np.where(np.isnan(got), -np.inf, got)
        return out

    n_left = C[ni, fj, bb, -1]
    miss, nk, n_all = n_miss[ni, fj], n_known[ni, fj], rows[ni]
    parent = total[ni]
    ok_r, ok_l, _ = learned_ok(n_left, n_all, nk, miss, msl)  # the rules of Bounded's scan
    gi, gj = (a.reshape(-1) for a in np.meshgrid(np.arange(n), np.arange(p), indexing="ij"))
    alone = C[:, :, -1, :-1].reshape(n * p, -1)  # each feature's known rows left, its missing rows right
    ok_a = np.broadcast_to(learned_ok(0, rows[:, None], n_known, n_miss, msl)[2], n_miss.shape).reshape(-1)
    if rules.min_weight_leaf > 0:  # each child's weight, its missing rows included (as Bounded's scan)
        w_node = weight_of(total, rules.regression)
        ok_r = ok_r & heavy_enough(weight_of(left, rules.regression), w_node[ni], rules.min_weight_leaf)
        ok_l = ok_l & heavy_enough(weight_of(left + absent[ni, fj], rules.regression), w_node[ni], rules.min_weight_leaf)
        ok_a = ok_a & heavy_enough(weight_of(alone, rules.regression), w_node[gi], rules.min_weight_leaf)
    s_r = scored(parent, left, ok_r, fj, ni)
    s_l = scored(parent, left + absent[ni, fj], ok_l, fj, ni)
    s_a = scored(total[gi], alone, ok_a, gj, gi, right=absent.reshape(n * p, -1))
    group = ni * p + fj
    best = s_a.copy()
    np.maximum.at(best, group, np.maximum(s_r, s_l))
    bar = best - tolerance(best)
    first = []
    for s in (s_r, s_l):  # each group's first candidate reaching its bar (len(s): none)
        pos = np.full(n * p, len(s))
        hit = np.flatnonzero(s >= bar[group])
        np.minimum.at(pos, group[hit], hit)
        first.append(pos)
    found = np.isfinite(best)
    use_r = found & (first[0] < len(s_r))
    use_l = found & ~use_r & (first[1] < len(s_l))
    at = np.minimum(np.where(use_r, first[0], first[1]), max(len(ni) - 1, 0))
    fs = np.where(found, best, -np.inf).reshape(n, p)
    if len(ni):
        fs = np.where(found, np.where(use_r, s_r[at], np.where(use_l, s_l[at], s_a)), -np.inf).reshape(n, p)
    fb = np.where(use_r | use_l, bb[at] if len(ni) else 0, nb - 1).reshape(n, p)
    left_rows = n_left[at] if len(ni) else np.zeros(n * p)
    side = learned_side(n_miss.reshape(-1) > 0, use_l, left_rows, rows[gi] - left_rows).reshape(n, p)
    return fs, fb.astype(np.int64), side.astype(np.int64)


def _c_cut_sums(lib: Any, H: np.ndarray, min_samples_leaf: float, parents: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The candidate cuts of the histograms ``H`` by the compiled loop, from their non-empty
    known bins only: the floats of the cumulated bins (see :func:`best_thresholds`)."""
    n, p, n_bins, channels = H.shape
    H = np.ascontiguousarray(H, dtype=np.float64)
    use = np.ones(p, dtype=np.uint8)
    # a non-empty cell holds a row: at most the nodes' rows (or instances) per feature
    capacity = int(min(n * p * max(0, n_bins - 1), p * (float(parents[:, -1].sum()) + n) + 1))
    out = [np.empty(capacity, dtype=np.int64) for _ in range(3)]
    left, known = np.empty((capacity, channels - 1)), np.empty((capacity, channels - 1))
    m = int(lib.pt_hist_cuts(_ptr(H), n, p, n_bins, channels, _ptr(use), float(min_samples_leaf), *(_ptr(a) for a in out), _ptr(left), _ptr(known), capacity))
    if m < 0:  # pragma: no cover - the capacity bounds the non-empty cells
        raise DataError("the histograms hold more non-empty cells than rows")
    return out[0][:m], out[1][:m], out[2][:m], left[:m], known[:m]


def _cut_sums(H: np.ndarray, min_samples_leaf: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The candidate cuts of the histograms ``H`` (node, feature, bin, channel) by numpy: each
    cut's node, feature and bin (a non-empty known bin, not its feature's last), its left side's
    statistics (the known bins up to it, cumulated) and its feature's known statistics."""
    C = np.cumsum(H[:, :, :-1], axis=2)  # the known bins, cumulated
    left_rows = C[..., -1]
    known_rows = left_rows[:, :, -1]
    valid = (H[:, :, :-1, -1] > 0) & (left_rows < known_rows[:, :, None])
    if min_samples_leaf > 1:
        valid &= (left_rows >= min_samples_leaf) & (known_rows[:, :, None] - left_rows >= min_samples_leaf)
    ni, fj, bb = np.nonzero(valid)  # ordered by node, feature, bin: groups are contiguous
    return ni, fj, bb, C[ni, fj, bb, :-1], C[ni, fj, -1, :-1]


@attrs.frozen
class C45Rules:
    """What C4.5's choice needs beyond :class:`Rules`: gain ratio (else gain), the gain's
    impurity, and the training rows (J48's many-valued attributes are compared with them;
    :func:`grow` sets them from the root's histogram)."""

    by_ratio: bool
    impurity: Any
    root_rows: float = 0.0


def c45_choose(H: np.ndarray, parents: np.ndarray, usable: list[np.ndarray], rules: Rules, edges: Sequence[np.ndarray | None], c45: C45Rules) -> list[tuple[str, int, Any, float] | None]:
    """Each node's C4.5 split from its histogram ``(feature, bin, channel)`` (the last bin:
    missing values; the last channel: rows), as :class:`puretree.c45.C45Splits` chooses it on
    the binned values in memory, with the same chooser (:mod:`puretree.growth.choose`):
    ``("threshold", feature, bin, score)``, ``("multiway", feature, feature, score)`` or None."""
    numeric = np.flatnonzero(~rules.categorical).tolist()
    out: list[tuple[str, int, Any, float] | None] = []
    for i in range(H.shape[0]):
        total = float(parents[i, :-1].sum())
        min_leaf = float(rules.min_samples_leaf)
        if total - 2 * min_leaf < -J48_EPSILON:
            out.append(None)
            continue
        n_classes = parents.shape[1] - 1
        categorical = np.flatnonzero(usable[i]).tolist()
        many = many_valued(categorical, rules.n_categories.__getitem__, len(numeric), c45.root_rows)
        found, bins, values = _c45_numeric(H[i, numeric], edges, numeric, total, n_classes, min_leaf, c45.impurity)
        options: list[Option | Scored] = [*found]
        options += [o for j in categorical if (o := c45_multiway(j, H[i, j, : rules.n_categories[j], :-1], total, min_leaf, j in many, c45.impurity)) is not None]
        chosen = choose_option(options, c45.by_ratio)
        if chosen is None or (rules.min_gain is not None and not chosen[1] > rules.min_gain):
            out.append(None)
        elif (o := chosen[0].option()).kind == "threshold":  # the cut's bin: the non-empty one left of it
            a = numeric.index(o.feature)
            out.append(("threshold", o.feature, int(bins[a, np.searchsorted(values[a], cast(float, o.threshold), side="right") - 1]), chosen[1]))
        else:
            out.append(("multiway", chosen[0].feature, chosen[0].feature, chosen[1]))
    return out


def _c45_numeric(h: np.ndarray, edges: Sequence[np.ndarray | None], numeric: list[int], total: float, n_classes: int, min_leaf: float, impurity: Any) -> tuple[list[Scored], np.ndarray, np.ndarray]:
    """The C4.5 options of one node's numeric features from their histograms ``h`` (feature,
    bin, channel), by the search of sorted rows (:func:`puretree.growth.c45_cuts.sorted_options`)
    with each feature's non-empty known bins as its rows, in order, valued at their upper edges:
    the same cuts (gaps between consecutive non-empty bins whose edges are more than 1e-5 apart)
    and sums as on the rows' binned values in memory. Also each feature's bins in that order and
    their edges (NaN past the non-empty ones): an option's threshold lies between two of them."""
    known = h[:, :-1]  # the missing bin left out
    q, nb = known.shape[:2]
    empty = ~(known[..., -1] > 0)
    bins = np.argsort(empty, axis=1, kind="stable")  # each feature's non-empty bins first, in order
    values = np.full((q, nb), np.nan)
    for a, j in enumerate(numeric):
        present = np.flatnonzero(~empty[a])
        values[a, : len(present)] = cast("np.ndarray", edges[j])[present]
    order = bins + (np.arange(q) * nb)[:, None]
    options = sorted_options(order, values, known[..., :-1].reshape(q * nb, known.shape[-1] - 1), np.asarray(numeric, dtype=np.int64), total, n_classes, min_leaf, impurity)
    return options, bins, values


def _subset(h: np.ndarray, total: float, rules: Rules, f: int, task: Any) -> tuple[float, tuple[int, ...], np.ndarray] | None:
    """One node's best subset split of categorical feature ``f`` from its histogram ``h``
    (category, channel), by :func:`puretree.growth.choose.best_subset` as the engine finds it."""
    m = rules.n_categories[f]
    per = h[:m, :-1]
    return best_subset(rules.score, per, h[:m, -1], category_sum(per), total, np.asarray(rules.names[f]), task=task, incomplete=bool(h[-1, -1] > 0), min_samples_leaf=rules.min_samples_leaf, min_weight_leaf=rules.min_weight_leaf)


def branches(kind: str, test: Any, h: np.ndarray, rules: Rules, spread: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A split's branch for every bin of its feature's histogram ``h`` (bin, channel), the
    missing bin included, and its children's statistics and rows. Threshold: bins up to
    ``test`` go left (0); subset: the categories ``test`` go left; multiway: a branch per
    category (``missing="learn"``: a threshold's ``test`` is ``(bin, side)``, its missing values
    go to ``side``). The missing values go to the heaviest branch by the known weight, the first on
    a tie (the engine's ``missing="majority"``), or (``spread``: C4.5's ``"distribute"``) down
    every branch with its ``share`` of the known weight, returned too. Each branch sums its own
    bins, so a class absent from a branch is exactly 0 there."""
    bins = np.arange(len(h) - 1)
    side = None
    if kind == "threshold":
        test, side = test if isinstance(test, tuple) else (test, None)  # missing="learn": (bin, side)
        branch, nb = (bins > test).astype(np.int64), 2
    elif kind == "subset":
        branch, nb = np.where(np.isin(bins, test), 0, 1), 2
    else:
        nb = rules.n_categories[test]
        branch = np.minimum(bins, nb - 1)  # bins past the categories hold no row
    children = np.zeros((nb, h.shape[1]))
    for b in range(nb):
        children[b] = h[:-1][branch == b].sum(axis=0)
    known = weight_of(children[:, :-1], rules.regression)
    heavy = int(np.argmax(known)) if side is None else side
    share = np.zeros(nb)
    if h[-1, -1] > 0 and spread:  # C4.5's "distribute": every branch its share of the known weight
        share = known / known.sum()
        children[:, :-1] += share[:, None] * h[-1, :-1]
        children[share > 0, -1] += h[-1, -1]
    elif h[-1, -1] > 0:
        children[heavy] += h[-1]
    return np.append(branch, heavy), children, share


def threshold_children(H: np.ndarray, nodes: np.ndarray, features: np.ndarray, tests: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """:func:`branches` of many threshold splits of integer class histograms at once: each
    split's two children's statistics and rows ``(splits, 2, channels)`` (the missing values
    added to the heavier side, the left on a tie) and that side (0 left, 1 right). The same
    numbers: integer sums are exact in any order."""
    h = H[nodes, features]  # (splits, bins, channels)
    cum = np.cumsum(h[:, :-1], axis=1)
    at = np.arange(len(nodes))
    left = cum[at, tests]
    kids = np.stack((left, cum[:, -1] - left), axis=1)
    known = kids[:, :, :-1].sum(axis=-1)
    heavy = (known[:, 1] > known[:, 0]).astype(np.int64)  # argmax: the first on a tie
    missing = h[:, -1]
    has = missing[:, -1] > 0
    kids[at[has], heavy[has]] += missing[has]
    return kids, heavy


def is_leaf(counts: np.ndarray, depth: int, rules: Rules) -> bool:
    """A node is a leaf before any split is searched: too few rows, at max_depth, or (classes)
    pure; a regression node whose targets are all equal is found a leaf by its histogram pass."""
    if counts[-1] < rules.min_samples_split or (rules.max_depth is not None and depth >= rules.max_depth):
        return True
    return not rules.regression and bool(np.count_nonzero(counts[:-1]) <= 1)


# -- the source --------------------------------------------------------------------------


class Blocks(Protocol):
    """Where the rows are: blocks of binned rows (``bins``), with their targets, weights and
    nodes (or instances), each block's functions run where the block is."""

    def start(self, fn: Callable[..., Any]) -> None:
        """Every block's nodes made: ``fn(target, weight)``."""

    def total(self, fn: Callable[..., Any], *shared: Any) -> Any:
        """``fn(bins, target, weight, node, *shared)`` of every block, added up with :func:`merge`."""

    def update(self, fn: Callable[..., Any], *shared: Any) -> None:
        """Every block's nodes moved: ``node = fn(bins, node, *shared)``."""


class Histograms:
    """The histogram source of ``blocks`` for :func:`puretree.growth.level.grow`: each
    frontier's histograms summed over the blocks (in batches of at most ``histogram_bytes``),
    every node's split chosen from them (:func:`choose`, or C4.5's :func:`c45_choose` with
    ``c45``), then the rows moved to their children. ``edges``: each numeric feature's bin
    edges (a threshold is an edge); ``n_bins``: the bins of the widest feature and the missing
    bin; ``k``: the classes (0: regression); ``spread``: C4.5's ``missing="distribute"``, rows
    as fractional instances. A row's node id is its node's place in the frontier. With integer
    counts (``rules.integral``, not ``spread``) the blocks sum only the lighter children of
    every split: the heaviest child's histogram is its parent's less its siblings' (exact)."""

    def __init__(self, blocks: Blocks, rules: Rules, *, edges: Sequence[np.ndarray | None], n_bins: int, k: int, c45: C45Rules | None, spread: bool, histogram_bytes: int) -> None:
        blocks.start(root_instances if spread else root_ids)
        root = blocks.total(instance_root_histogram if spread else root_histogram, k)[0][0, 0, 0]
        if root[-1] == 0:
            raise DataError("every sample weight is zero")
        if not np.isfinite(root).all():
            raise DataError("the statistics of the rows (weights, or targets' weighted squares) overflow a double: scale them down")
        # the statistics' channels and rows in float64; unweighted class counts are kept and sent
        # as int32 counts without the rows (:class:`Packed`), a batch of histogram_bytes of those
        per_node = len(rules.categorical) * n_bins * (k * 4 if rules.integral and not spread else ((k or 3) + 1) * 8)
        self.blocks, self.rules, self.edges, self.n_bins, self.k, self.spread = blocks, rules, edges, n_bins, k, spread
        self.c45 = attrs.evolve(c45, root_rows=float(root[-1])) if c45 is not None else None
        self.batch = max(1, histogram_bytes // per_node)
        self.counts = [root]  # each frontier node's statistics, then its rows
        # the random cuts' keys (random_draw.node_key of the seed and each frontier node's path)
        self.keys: list[int] = [node_key(rules.random, ())] if rules.random is not None else []
        self._next_keys: list[int] = []
        self.usable = [rules.categorical.copy()]  # each node's categorical features not used by a multiway split above
        self.open = np.arange(1)  # the frontier's nodes still open: their places (the rows' node ids)
        self.lower, self.upper = np.full(1, -np.inf), np.full(1, np.inf)  # monotonic: each frontier node's bounds
        self._next: Any = None  # what split() decided, for advance()
        # Subtraction (exact for integer counts): a split node's class counts are kept (at most
        # keep_bytes of them) and its heaviest open child's histogram is the parent's less its
        # siblings', so only the lighter children's histograms are summed over the blocks.
        self.subtract = rules.integral and not spread
        self.keep_bytes = 4 * histogram_bytes
        self.kept: dict[int, np.ndarray] = {}  # a parent's counts, by its place in the last frontier
        self.family: dict[int, tuple[int, list[int]]] = {}  # a frontier node's parent and its parent's children
        self.sibling: dict[int, int] = {}  # a summed node: the derived node its histogram is subtracted from

    def rows(self) -> int:
        return int(round(sum(float(self.counts[i][-1]) for i in self.open.tolist())))

    def stats(self) -> Any:
        """The open nodes' statistics; with ``monotonic`` each clipped to its node's bounds (as
        :meth:`puretree.growth.bounds.Bounded.stats`)."""
        out = [self.counts[i][:-1] for i in self.open.tolist()]
        if self.rules.monotonic is None or not out:
            return out
        return monotone_clipped_rows(np.stack(out), self.lower[self.open], self.upper[self.open], _task(self.rules))

    def closed(self, depths: np.ndarray) -> np.ndarray:
        return np.array([is_leaf(self.counts[i], d, self.rules) for i, d in zip(self.open.tolist(), depths.tolist())], dtype=bool)

    def keep(self, mask: np.ndarray) -> None:
        self.open = self.open[mask]

    def split(self, depths: np.ndarray, allowed: np.ndarray | None, paths: Sequence[tuple[int, ...]] | None, n_made: int) -> list[Decision | None]:
        """Each open node's decision from its summed histogram; the rows' moves kept for :meth:`advance`."""
        if allowed is not None and self.c45 is not None:
            raise ParameterError("C4.5 on the histogram source draws no features (max_features): grow in memory")
        rules, edges, n_bins, k = self.rules, self.edges, self.n_bins, self.k
        open_ = self.open.tolist()
        place = {i: a for a, i in enumerate(open_)}
        splits: dict[int, tuple[str, int, Any, np.ndarray, np.ndarray, np.ndarray]] = {}
        scores: dict[int, float] = {}  # each split's score as chosen (best-first growth ranks by it)
        kept: dict[int, np.ndarray] = {}  # the split nodes' class counts, for their children's subtraction

        def decide(some: list[int], H: np.ndarray, lo: Any, hi: Any) -> None:
            parents = np.stack([self.counts[i] for i in some])
            usable = [self.usable[i] for i in some]
            bounds = (self.lower[some], self.upper[some]) if rules.monotonic is not None else None
            chosen_splits = c45_choose(H, parents, usable, rules, edges, self.c45) if self.c45 is not None else choose(H, parents, usable, rules, None if allowed is None else allowed[[place[i] for i in some]], bounds, keys=[self.keys[i] for i in some] if rules.random is not None else None, edges=edges)
            fast = rules.integral and not self.spread and not rules.learn  # integer thresholds' children, all at once
            cuts = [(s, f) for s, f in enumerate(chosen_splits) if f is not None and f[0] == "threshold"] if fast else []
            if cuts:
                kids, heavy = threshold_children(H, np.array([s for s, _ in cuts]), np.array([f[1] for _, f in cuts]), np.array([f[2] for _, f in cuts]))
                for c, (s, (kind, j, test, score)) in enumerate(cuts):
                    splits[some[s]] = (kind, j, test, heavy[c : c + 1], kids[c], np.zeros(2))
                    scores[some[s]] = score
            for s, (i, found) in enumerate(zip(some, chosen_splits)):
                if found is not None and not (fast and found[0] == "threshold") and not (rules.regression and lo[s] == hi[s]):  # regression: equal targets, a leaf
                    kind, j, test, score = found
                    splits[i] = (kind, j, test, *branches(kind, test, H[s, j], rules, self.spread))
                    scores[i] = score
                if i in splits and self.subtract and (len(kept) + 1) * H[s, ..., :-1].size * 4 <= self.keep_bytes:
                    kept[i] = H[s, ..., :-1].astype(np.int32)

        direct, derived = self._plan(place)
        rest = {i: self.kept[p].astype(np.int64) for i, p in derived.items()}  # the parent's counts, less the siblings'
        for a in range(0, len(direct), self.batch):
            some = direct[a : a + self.batch]
            slot = np.full(len(self.counts), -1, dtype=np.int64)
            slot[some] = np.arange(len(some))
            H, lo, hi = self.blocks.total(instance_histogram if self.spread else histogram, slot, len(some), n_bins, k)
            for s, i in enumerate(some):
                if (sibling := self.sibling.get(i)) in rest:
                    rest[sibling] -= H[s, ..., :-1].astype(np.int64)
            mine = [s for s, i in enumerate(some) if i in place]  # a closed node's histogram only subtracts
            if mine:
                decide([some[s] for s in mine], H[mine] if len(mine) < len(some) else H, None if lo is None else lo[mine], None if hi is None else hi[mine])
            del H
        derived_nodes = sorted(derived)
        for a in range(0, len(derived_nodes), self.batch):
            some = derived_nodes[a : a + self.batch]
            decide(some, unpack(Packed(np.stack([rest.pop(i) for i in some]))), None, None)
        n = len(self.counts)
        feature, cut, heavy = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int8)
        left, right = np.full(n, -1, dtype=np.int32), np.full(n, -1, dtype=np.int32)
        table_of = np.full(n, -1, dtype=np.int64)
        tables: list[np.ndarray] = []
        widest = max((len(v[4]) for v in splits.values()), default=0)
        kids, shares = np.full((n, widest), -1, dtype=np.int32), np.zeros((n, widest))  # distribute: where a missing value goes
        next_counts: list[np.ndarray] = []
        next_keys: list[int] = []
        next_usable: list[np.ndarray] = []
        next_bounds: list[tuple[float, float]] = []
        next_family: dict[int, tuple[int, list[int]]] = {}
        out: list[Decision | None] = []
        for i in open_:
            if i not in splits:
                out.append(None)
                continue
            kind, j, test, branch_of_bin, kids_stats, share = splits[i]
            ids = []
            kid_bounds = [(self.lower[i], self.upper[i])] * len(kids_stats)
            if rules.monotonic is not None and kind == "threshold":  # the children's bounds, as Bounded passes them down
                lo, up = children_bounds(self.lower[i : i + 1], self.upper[i : i + 1], rules.monotonic[j : j + 1], kids_stats[None, :, :-1], _task(rules))
                kid_bounds = list(zip(lo[0].tolist(), up[0].tolist()))
            for b, (st, bound) in enumerate(zip(kids_stats, kid_bounds)):
                if st[-1] > 0:
                    next_bounds.append(bound)
                    if rules.random is not None:
                        next_keys.append(mix(self.keys[i] ^ (b + 1)))  # node_key of the child's path
                    ids.append(len(next_counts))
                    next_counts.append(st)
                    next_usable.append(self.usable[i] if kind != "multiway" else np.where(np.arange(len(self.usable[i])) == j, False, self.usable[i]))
                else:  # a category no row reached: a leaf of zero statistics, as in memory
                    ids.append(-1)
            kids[i, : len(ids)], shares[i, : len(share)] = ids, share
            if i in kept:
                family = [b for b in ids if b >= 0]
                next_family.update({b: (i, family) for b in family})
            if kind == "threshold":
                at, side = test if isinstance(test, tuple) else (test, None)  # missing="learn": (bin, side)
                feature[i], cut[i], heavy[i], left[i], right[i] = j, at, branch_of_bin[-1], ids[0], ids[1]
                value = np.inf if at == n_bins - 1 else float(cast("np.ndarray", edges[j])[at])  # the cut: an edge (the missing bin: the missing rows alone right)
                test = TESTS[kind](value) if side is None else trusted_threshold(value, side)
            else:
                feature[i], table_of[i] = j, len(tables)
                tables.append(np.array(ids, dtype=np.int32)[branch_of_bin])
                test = TESTS[kind](test if kind == "subset" else len(kids_stats))  # the left categories, or the branches
            out.append((j, test, [None if b >= 0 else st[:-1] for b, st in zip(ids, kids_stats)], scores[i], float(_task(rules).weight(self.counts[i][:-1]))))
        dest = np.stack(tables) if tables else np.zeros((0, n_bins), dtype=np.int32)
        if self.spread:
            self._next = (move_instances, (feature, cut, left, right, n_bins - 1, table_of, dest, kids, shares), next_counts, next_usable)
        else:
            self._next = (move, (feature, cut, left, right, heavy, n_bins - 1, table_of, dest), next_counts, next_usable)
        self.kept, self.family, self._next_keys = kept, next_family, next_keys
        self._bounds = np.array(next_bounds).reshape(-1, 2).T
        return out

    def _plan(self, place: dict[int, int]) -> tuple[list[int], dict[int, int]]:
        """Which nodes' histograms are summed over the blocks (in frontier order: the open nodes
        and the closed siblings a subtraction needs), and which open nodes' are derived (each
        with its parent): of a family whose parent's counts were kept, its open child of most
        rows (the first on a tie)."""
        derived: dict[int, int] = {}
        self.sibling = {}
        for parent, family in {p: f for p, f in self.family.values()}.items():
            open_kids = [b for b in family if b in place]
            if not open_kids or len(family) < 2:
                continue
            heavy = max(open_kids, key=lambda b: (float(self.counts[b][-1]), -b))
            derived[heavy] = parent
            self.sibling.update({b: heavy for b in family if b != heavy})
        direct = sorted(set(place).union(self.sibling) - set(derived))
        return direct, derived

    def advance(self) -> None:
        """Every block's rows moved to the next frontier's nodes."""
        fn, shared, self.counts, self.usable = self._next
        self.keys = self._next_keys
        self._next = None
        self.lower, self.upper = self._bounds
        self.blocks.update(fn, *shared)
        self.open = np.arange(len(self.counts))


def grow(blocks: Blocks, rules: Rules, *, edges: Sequence[np.ndarray | None], n_bins: int, k: int, c45: C45Rules | None, spread: bool, histogram_bytes: int, progress: Callable[[int, int, int], Any] | None = None, max_features: int | None = None, feature_key: tuple[int, ...] = (0,), sizes: Sizes | None = None) -> Node:
    """The root of the tree grown from the rows of ``blocks`` by the frontier loop
    (:func:`puretree.growth.level.grow`) over the histogram source (:class:`Histograms`);
    ``max_features``: each node splits on its own draw of the features (keyed by ``feature_key``);
    ``sizes``: ``max_leaf_nodes`` and ``min_impurity_decrease``, read off the full tree by the loop."""
    source = Histograms(blocks, rules, edges=edges, n_bins=n_bins, k=k, c45=c45, spread=spread, histogram_bytes=histogram_bytes)
    return grow_frontier(source, n_features=len(rules.categorical), progress=progress, max_features=max_features, feature_key=feature_key, sizes=sizes)


# -- in memory ----------------------------------------------------------------------------


@attrs.define
class Rows:
    """Rows in memory as one block (:class:`Blocks`): the histograms summed and the rows moved
    by ``threads`` threads (``compiled``: as for :func:`histogram`)."""

    bins: np.ndarray
    target: np.ndarray
    weight: np.ndarray | None
    compiled: bool | None = None
    threads: int = 1
    node: Any = None

    def start(self, fn: Callable[..., Any]) -> None:
        self.node = fn(self.target, self.weight)

    def total(self, fn: Callable[..., Any], *shared: Any) -> Any:
        extra = {"compiled": self.compiled, "threads": self.threads} if fn is histogram else {}
        return fn(self.bins, self.target, self.weight, self.node, *shared, **extra)

    def update(self, fn: Callable[..., Any], *shared: Any) -> None:
        extra = {"compiled": self.compiled, "threads": self.threads} if fn is move else {}
        self.node = fn(self.bins, self.node, *shared, **extra)


#: Largest size (bytes) of one batch of an in-memory frontier's histograms (as
#: :data:`puretree.dask.HISTOGRAM_BYTES` bounds Dask's).
HISTOGRAM_BYTES = 16 * 2**20


def applies(ds: Any, cfg: Any, kinds: tuple[str, ...]) -> bool:
    """Whether :func:`grow_binned` grows this in-memory binned fit: classification without
    weights (every statistic an integer, every sum exact, so the tree is the sorted source's),
    numeric features, threshold splits, no ``accept`` hook, missing values sent to the heavier
    branch (``"majority"``) or refused."""
    schema = ds.schema
    return (
        not schema.is_regression and ds.sample_weight is None and cfg.accept is None and "threshold" in kinds
        and bool(schema.features) and all(f.is_numeric for f in schema.features)
        and cfg.missing in ("majority", "error")
    )  # fmt: skip


def binned_rows(X: np.ndarray, binned: Callable[[np.ndarray, int], np.ndarray] | None = None, *, edges: Sequence[np.ndarray] | None = None, threads: int = 1) -> tuple[np.ndarray, list[np.ndarray], int]:
    """Every value's bin number, ``threads`` columns at a time: by the ``edges`` given (one
    array of upper edges per column: the first edge at or above the value, the last above
    them all), or with each column binned by ``binned(column, j)`` (its values replaced by their
    bins' upper values) and numbered by its distinct binned values (the edges). A missing
    value gets the last bin, past every feature's. The bins, the edges, the bins' count.

    >>> bins, edges, n_bins = binned_rows(np.array([[0.5], [2.0], [9.0], [np.nan]]), edges=[np.array([1.0, 2.0, 3.0])])
    >>> bins[:, 0].tolist(), n_bins
    ([0, 1, 2, 3], 4)
    """

    def codes(j: int) -> tuple[np.ndarray, np.ndarray]:
        column = X[:, j]
        nan = np.isnan(column)
        if edges is not None:
            e = np.asarray(edges[j], dtype=np.float64)
            return np.minimum(np.searchsorted(e, column, side="left"), len(e) - 1), e  # NaN: past the end, set below
        values = cast(Callable[[np.ndarray, int], np.ndarray], binned)(column, j)
        e = np.unique(values[~nan])
        e = e if len(e) else np.zeros(1)
        return np.searchsorted(e, values, side="left"), e

    if threads <= 1:  # no pool to start and wait on
        return bin_matrix(X, [codes(j) for j in range(X.shape[1])])
    with ThreadPoolExecutor(max(1, min(threads, X.shape[1]))) as pool:  # numpy's sorts and searches release the GIL
        done = list(pool.map(codes, range(X.shape[1])))
    return bin_matrix(X, done)


def bin_matrix(X: np.ndarray, columns: Sequence[tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, list[np.ndarray], int]:
    """The bins of ``X`` from each column's ``(bin numbers, edges)``, in the narrowest unsigned
    type, a missing value in the last bin (past every column's), the edges and the bins' count.

    >>> bins, edges, n_bins = bin_matrix(np.array([[0.5], [np.nan]]), [(np.array([0, 0]), np.array([1.0]))])
    >>> bins[:, 0].tolist(), n_bins, bins.dtype.name
    ([0, 1], 2, 'uint8')
    """
    found = [e for _, e in columns]
    n_bins = max((len(e) for e in found), default=1) + 1
    dtype = np.uint8 if n_bins <= 256 else np.uint16 if n_bins <= 65536 else np.uint32
    out = np.empty(X.shape, dtype=dtype)
    for j, (c, _) in enumerate(columns):
        out[:, j] = np.where(np.isnan(X[:, j]), n_bins - 1, c)
    return out, found, n_bins


def grow_binned(ds: Any, cfg: Any, kinds: tuple[str, ...], binned: Callable[[np.ndarray, int], np.ndarray] | None = None, *, edges: Sequence[np.ndarray | None] | None = None, compiled: bool | None = None, threads: int = 1, progress: Callable[[int, int, int], Any] | None = None, random: tuple[int, ...] | None = None, learn: bool = False, sizes: Sizes | None = None, monotonic: np.ndarray | None = None) -> Node:
    """The root of the tree grown in memory from ``ds`` (a :class:`~puretree.data.Dataset`
    that :func:`applies`) with settings ``cfg``, its numeric columns binned by ``edges`` or
    ``binned`` (:func:`binned_rows`): the histogram source over the rows as one block
    (:class:`Rows`), the tree the sorted source grows on the binned values. ``random``:
    ``splitter="random"``, keyed by this seed (:func:`random_thresholds`), on any data
    :mod:`puretree.dask` grows (weights, numeric targets, categorical features: a category's
    bin is its code; ``learn``: ``missing="learn"``; ``monotonic``: ``monotonic_cst``, -1, 0, +1
    per feature), the tree Dask grows from the same edges."""
    schema = ds.schema
    categorical = np.array([not f.is_numeric for f in schema.features], dtype=bool)
    if random is None:
        bins, found, n_bins = binned_rows(ds.X, binned, edges=cast("Sequence[np.ndarray] | None", edges), threads=threads)
        all_edges: list[np.ndarray | None] = list(found)
    else:
        bins, all_edges, n_bins = _mixed_bins(ds.X, categorical, [len(f.categories) for f in schema.features], binned, edges, threads)
    score = cfg.score
    variance = isinstance(score, ImpurityDecrease) and score.impurity is impurity_variance
    n_categories = tuple(0 if f.is_numeric else len(f.categories) for f in schema.features)
    integral = not schema.is_regression and ds.sample_weight is None
    rules = Rules(score, np.asarray(schema.feature_names, dtype=object).astype(str), cfg.max_depth, cfg.min_samples_split, cfg.min_samples_leaf, cfg.min_gain, schema.is_regression, variance, categorical, "multiway" in kinds, n_categories, integral=integral, compiled=compiled, learn=learn, min_weight_leaf=float(getattr(cfg, "min_weight_leaf", 0.0)), random=random, random_features=getattr(cfg, "max_features", None) if random is not None else None, monotonic=monotonic)
    k = 0 if schema.is_regression else max(1, len(schema.classes))
    target = np.ascontiguousarray(ds.y, dtype=np.float64 if schema.is_regression else np.int32)
    weight = None if ds.sample_weight is None else np.ascontiguousarray(ds.sample_weight, dtype=np.float64)
    rows = Rows(bins, target, weight, compiled, threads)
    return grow(rows, rules, edges=all_edges, n_bins=n_bins, k=k, c45=None, spread=False, histogram_bytes=HISTOGRAM_BYTES, progress=progress, max_features=getattr(cfg, "max_features", None), feature_key=getattr(cfg, "feature_key", (0,)), sizes=sizes)


def _mixed_bins(X: np.ndarray, categorical: np.ndarray, n_categories: Sequence[int], binned: Callable[[np.ndarray, int], np.ndarray] | None, edges: Sequence[np.ndarray | None] | None, threads: int) -> tuple[np.ndarray, list[np.ndarray | None], int]:
    """The bins of ``X`` as :mod:`puretree.dask` makes them: a numeric column's by
    :func:`binned_rows`, a categorical column's its codes (no edges), a missing value in the
    last bin, past every feature's; the bins, each feature's edges (None: categorical), the bins' count.

    >>> bins, edges, n_bins = _mixed_bins(np.array([[0.5, 1.0], [np.nan, 0.0]]), np.array([False, True]), [0, 2], None, [np.array([1.0]), None], 1)
    >>> bins.tolist(), n_bins
    ([[0, 1], [2, 0]], 3)
    """
    numeric = np.flatnonzero(~categorical).tolist()
    found: list[np.ndarray] = []
    codes = np.zeros((X.shape[0], 0), dtype=np.int64)
    if numeric:
        pick = None if binned is None else (lambda column, a: binned(column, numeric[a]))  # noqa: E731
        codes, found, _ = binned_rows(X[:, numeric], pick, edges=None if edges is None else [cast("np.ndarray", edges[j]) for j in numeric], threads=threads)
    all_edges: list[np.ndarray | None] = [None] * X.shape[1]
    for a, j in enumerate(numeric):
        all_edges[j] = found[a]
    n_bins = max([len(e) for e in found] + [int(n_categories[j]) for j in np.flatnonzero(categorical).tolist()] + [1]) + 1
    dtype = np.uint8 if n_bins <= 256 else np.uint16 if n_bins <= 65536 else np.uint32
    out = np.empty(X.shape, dtype=dtype)
    for a, j in enumerate(numeric):
        out[:, j] = np.where(np.isnan(X[:, j]), n_bins - 1, codes[:, a])
    for j in np.flatnonzero(categorical).tolist():
        out[:, j] = np.where(np.isnan(X[:, j]), n_bins - 1, np.nan_to_num(X[:, j])).astype(dtype)
    return out, all_edges, n_bins
