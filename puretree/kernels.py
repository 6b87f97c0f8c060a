"""A compiled growth kernel (numba) for the common case of :mod:`puretree.engine`.

The common case: classification, numeric features only, no missing value, the built-in
Gini impurity decrease (``impurity_decrease(gini)``, CART's default), any row weights, no
``accept`` hook, exact thresholds. :func:`puretree.engine.build` hands such a fit to
:func:`grow_arrays`; everything else (user scores, which stay plain Python functions over
count arrays, categorical features, missing values, histogram mode, regression) keeps the
numpy engine. Both grow the reference's tree (tests/test_kernels.py and tests/test_engine.py
compare them with :func:`puretree.grow.grow` ``engine="reference"``).

How it grows: one stable presorted order of the rows per feature (plus one in row order),
kept sorted within each node by stable partitioning in place, level after level. Every node
of a level is a segment ``[start, end)`` of every order. A node's best threshold per feature
is found by passes along its segment. Levels with little work run on one core, all in one
compiled call (a chain 10,000 levels deep is one call); wider levels share their features
between the cores (``prange``). Memory: the data as given (read in place), the orders
(int32, features + 1 rows) and the nodes made, whatever the depth.

Ties break as the reference breaks them because the scores are the reference's numbers:
the same formulas in the same order (:func:`puretree.impurity.gini`'s proportions first,
:func:`puretree.impurity.sum_last`'s order of addition, a branch's weight as its share of
the parent), the first threshold within :data:`~puretree.grow.TIE_TOLERANCE` of a feature's
best, then the first feature within it of the node's best.

numba is optional: without it (a Python without numba wheels), :data:`AVAILABLE` is False
and the numpy engine grows every tree. The kernel is compiled once per installation
(``cache=True``); :mod:`puretree.engine` imports this module (and numba) on the first fit
that can use it, so ``import puretree`` does not pay for numba.

>>> import numpy as np
>>> if AVAILABLE:
...     out = grow_arrays(np.array([[1.0], [2.0], [3.0], [4.0]]), np.array([0, 0, 1, 1]), None, 2,
...                       np.array([2.0, 2.0]), min_samples_split=2.0, min_samples_leaf=1.0,
...                       max_depth=None, min_gain=None)
...     feature, threshold, child, counts = out
...     assert threshold[0] == 2.5 and child[0] == 1 and counts[1:3].tolist() == [[2.0, 0.0], [0.0, 2.0]]
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np

__all__ = ["AVAILABLE", "grow_arrays", "TIE_TOLERANCE"]

try:  # numba is an optional speed-up: the numpy engine grows every tree without it
    import numba
    from numba import njit, parallel_chunksize, prange

    AVAILABLE = True
except ImportError:  # pragma: no cover - exercised on Pythons without numba wheels
    AVAILABLE = False

#: Held while a parallel region runs (see ``_grow_levels``).
_PARALLEL = threading.Lock()

#: The same tolerance as :data:`puretree.grow.TIE_TOLERANCE` (checked by a test; not imported,
#: so that the compiled code sees a constant).
TIE_TOLERANCE = 1e-12

#: Least work (rows x features) of a level shared between the cores: below it, waking the
#: other threads costs more than it saves (on a busy machine, a scheduler's time slice).
PARALLEL_MIN_WORK = 200_000

#: Positions whose ranking value comes within this share of the node's weight of the best
#: are scored with the reference's formula (see ``feature_best``); rounding moves the ranking
#: by ~1e-14 of it, and ties are TIE_TOLERANCE (1e-12) apart.
SCREEN = 1e-9

#: Largest total weight the kernel takes: squares of class counts stay finite.
MAX_WEIGHT = 1e150
#: Smallest row weight it takes: squares of class counts stay normal floats (no underflow),
#: so that the ranking keeps its precision.
MIN_WEIGHT = 1e-100

#: A row-major ``X`` larger than this (about a last-level cache) is copied column-major first.
COLUMN_COPY_BYTES = 32 * 2**20

#: Largest class count whose sums the kernel adds in numpy's order (pairwise blocks of 8).
MAX_CLASSES = 128

if AVAILABLE:

    # error_model="numpy": division as IEEE defines it (0/0 is NaN, as in numpy), without
    # Python's zero checks
    @njit(cache=True, error_model="numpy", inline="always")
    def sum_last(a: Any, n: int) -> float:
        # puretree.impurity.sum_last over an axis of n entries, numpy's sum: below 8 the
        # columns are added in order; from 8 on, a pairwise sum in blocks of 8 (n <= 128).
        if n < 8:
            s = a[0]
            for j in range(1, n):
                s += a[j]
            return s
        r0, r1, r2, r3 = a[0], a[1], a[2], a[3]
        r4, r5, r6, r7 = a[4], a[5], a[6], a[7]
        i = 8
        stop = n - n % 8
        while i < stop:
            r0 += a[i]
            r1 += a[i + 1]
            r2 += a[i + 2]
            r3 += a[i + 3]
            r4 += a[i + 4]
            r5 += a[i + 5]
            r6 += a[i + 6]
            r7 += a[i + 7]
            i += 8
        s = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
        while i < n:
            s += a[i]
            i += 1
        return s

    @njit(cache=True, error_model="numpy", inline="always")
    def gini(c: Any, k: int, tmp: Any) -> tuple[float, float]:
        # puretree.impurity.gini: proportions first, 1 - sum p**2, clamped at 0; and the weight
        total = sum_last(c, k)
        if not total > 0:
            return 0.0, total
        for j in range(k):
            p = c[j] / total
            tmp[j] = p * p
        g = 1.0 - sum_last(tmp, k)
        return (g if g > 0.0 else 0.0), total

    @njit(cache=True, error_model="numpy", inline="always")
    def gini_decrease(g_parent: float, left: Any, right: Any, k: int, tmp: Any) -> float:
        # puretree.criteria.ImpurityDecrease(gini): each branch's share of the weight times its
        # impurity, subtracted from the parent's; a negative gain is rounding (0); no weight: -inf
        g_left, w_left = gini(left, k, tmp)
        g_right, w_right = gini(right, k, tmp)
        w = w_left + w_right
        share_left = w_left / w
        share_right = w_right / w
        after = (share_left * g_left if share_left > 0 else 0.0) + (share_right * g_right if share_right > 0 else 0.0)
        gain = g_parent - after
        if gain < 0.0:
            gain = 0.0
        if not w > 0:
            return -np.inf
        return gain

    @njit(cache=True, error_model="numpy")
    def node_summaries(orders: Any, y: Any, w: Any, k: int, root_counts: Any, counts: Any, fr_node: Any, fr_start: Any, fr_end: Any, min_split: float, at_max: bool, splits: Any, g_parent: Any) -> None:
        # each frontier node's class counts (summed in row order, as the numpy engine's
        # bincount adds), whether it may split, and its Gini impurity
        q = orders.shape[0] - 1
        tmp = np.empty(k)
        for i in range(len(fr_node)):
            g, s, e = fr_node[i], fr_start[i], fr_end[i]
            if g == 0:
                counts[0] = root_counts  # the reference's own sum
            else:
                for p in range(s, e):
                    r = orders[q, p]
                    counts[g, y[r]] += w[r]
            lo = y[orders[q, s]]
            hi = lo
            for p in range(s + 1, e):
                v = y[orders[q, p]]
                lo = min(lo, v)
                hi = max(hi, v)
            splits[i] = not (lo == hi or (e - s) < min_split or at_max)
            g_parent[i] = gini(counts[g], k, tmp)[0]

    @njit(cache=True, error_model="numpy")
    def feature_best(f: int, X: Any, orders: Any, y: Any, w: Any, k: int, counts: Any, fr_node: Any, fr_start: Any, fr_end: Any, splits: Any, g_parent: Any, min_leaf: float, best_score: Any, best_pos: Any) -> None:
        # Every splitting node's first near-best threshold on feature f, along the node's
        # segment of the feature's order, between distinct values. Scoring every position
        # with the reference's formula costs six divisions; a first pass ranks them by
        # sum(left**2)/w_left + sum(right**2)/w_right (W times one minus the children's
        # impurity, two divisions), and only the positions within SCREEN of the best of
        # that get the reference's score. The two differ by rounding (~1e-14 of W), far
        # less than SCREEN, so every position the reference would count as tied is scored.
        left = np.empty(k)
        right = np.empty(k)
        tmp = np.empty(k)
        longest = 0
        for i in range(len(fr_node)):
            longest = max(longest, fr_end[i] - fr_start[i])
        scores = np.empty(max(longest, 1))
        for i in range(len(fr_node)):
            if not splits[i]:
                continue
            s, e = fr_start[i], fr_end[i]
            parent = counts[fr_node[i]]
            gp = g_parent[i]
            total = 0.0
            for j in range(k):
                total += parent[j]
            # pass 1: the ranking value of every candidate position (-inf elsewhere)
            left[:] = 0.0
            top = -np.inf
            exact_all = False
            r = orders[f, s]
            v = X[r, f]
            for p in range(s, e - 1):
                left[y[r]] += w[r]
                r_next = orders[f, p + 1]
                v_next = X[r_next, f]
                n_left = p - s + 1
                rank = -np.inf
                if v < v_next and n_left >= min_leaf and (e - s) - n_left >= min_leaf:
                    sq_left = 0.0
                    sq_right = 0.0
                    w_left = 0.0
                    w_right = 0.0
                    for j in range(k):
                        c = left[j]
                        d = parent[j] - c
                        if d < 0.0:
                            d = 0.0
                        sq_left += c * c
                        sq_right += d * d
                        w_left += c
                        w_right += d
                    if w_left > 0.0 and w_right > 0.0:
                        rank = sq_left / w_left + sq_right / w_right
                    else:
                        exact_all = True  # an empty side (rounding): score everything exactly
                        rank = np.inf
                scores[p - s] = rank
                if rank > top:
                    top = rank
                r = r_next
                v = v_next
            if top == -np.inf:
                continue
            bar = -np.inf if exact_all else top - SCREEN * total
            # pass 2: the reference's score where the ranking comes close to the best
            left[:] = 0.0
            best = -np.inf
            for p in range(s, e - 1):
                r = orders[f, p]
                left[y[r]] += w[r]
                if scores[p - s] > -np.inf and scores[p - s] >= bar:
                    for j in range(k):
                        d = parent[j] - left[j]
                        right[j] = d if d > 0.0 else 0.0  # np.maximum(parent - left, 0)
                    sc = gini_decrease(gp, left, right, k, tmp)
                    if np.isnan(sc):
                        sc = -np.inf
                    scores[p - s] = sc
                    if sc > best:
                        best = sc
                else:
                    scores[p - s] = -np.inf
            if best == -np.inf:
                continue
            bar = best - TIE_TOLERANCE * max(1.0, abs(best))
            for p in range(s, e - 1):  # the first threshold within tolerance of the best
                if scores[p - s] >= bar:
                    best_score[i, f] = scores[p - s]
                    best_pos[i, f] = p
                    break

    @njit(cache=True, error_model="numpy")
    def partition(f: int, orders: Any, goes_left: Any, fr_start: Any, fr_end: Any, splits: Any, n_left_of: Any) -> None:
        # order f stably partitioned in place within each splitting node's segment: the left
        # rows moved up, the right ones parked in a scratch array and copied back after them
        longest = 0
        for i in range(len(fr_start)):
            if splits[i]:
                longest = max(longest, fr_end[i] - fr_start[i] - n_left_of[i])
        right = np.empty(longest, dtype=orders.dtype)
        for i in range(len(fr_start)):
            if not splits[i]:
                continue
            s, e = fr_start[i], fr_end[i]
            a = s
            b = 0
            for p in range(s, e):
                r = orders[f, p]
                if goes_left[r]:
                    orders[f, a] = r
                    a += 1
                else:
                    right[b] = r
                    b += 1
            for j in range(b):
                orders[f, a + j] = right[j]

    # numba cannot load from its cache a compiled function that calls a parallel one (the
    # process crashes), so the parallel steps are called from Python, one wide level at a time.
    @njit(cache=True, error_model="numpy", parallel=True)
    def best_all(X: Any, orders: Any, y: Any, w: Any, k: int, counts: Any, fr_node: Any, fr_start: Any, fr_end: Any, splits: Any, g_parent: Any, min_leaf: float, best_score: Any, best_pos: Any) -> None:
        for f in prange(X.shape[1]):  # the features shared between the cores
            feature_best(f, X, orders, y, w, k, counts, fr_node, fr_start, fr_end, splits, g_parent, min_leaf, best_score, best_pos)

    @njit(cache=True, error_model="numpy", parallel=True)
    def partition_all(orders: Any, goes_left: Any, fr_start: Any, fr_end: Any, splits: Any, n_left_of: Any) -> None:
        for f in prange(orders.shape[0]):
            partition(f, orders, goes_left, fr_start, fr_end, splits, n_left_of)

    @njit(cache=True, error_model="numpy")
    def best_serial(X: Any, orders: Any, y: Any, w: Any, k: int, counts: Any, fr_node: Any, fr_start: Any, fr_end: Any, splits: Any, g_parent: Any, min_leaf: float, best_score: Any, best_pos: Any) -> None:
        for f in range(X.shape[1]):
            feature_best(f, X, orders, y, w, k, counts, fr_node, fr_start, fr_end, splits, g_parent, min_leaf, best_score, best_pos)

    @njit(cache=True, error_model="numpy")
    def partition_serial(orders: Any, goes_left: Any, fr_start: Any, fr_end: Any, splits: Any, n_left_of: Any) -> None:
        for f in range(orders.shape[0]):
            partition(f, orders, goes_left, fr_start, fr_end, splits, n_left_of)

    @njit(cache=True, error_model="numpy")
    def level_work(fr_start: Any, fr_end: Any, splits: Any, q: int) -> int:
        # rows of the splitting nodes times features: whether a level pays for both cores
        work = 0
        for i in range(len(fr_start)):
            if splits[i]:
                work += (fr_end[i] - fr_start[i]) * q
        return work

    @njit(cache=True, error_model="numpy")
    def choose_splits(X: Any, orders: Any, fr_node: Any, fr_start: Any, fr_end: Any, splits: Any, best_score: Any, best_pos: Any, min_gain: float, use_min_gain: bool, feature: Any, threshold: Any, child: Any, n_made: int, goes_left: Any, first_child: Any, n_left_of: Any) -> tuple[int, int]:
        # each node's split: the first feature within tolerance of the node's best, its
        # threshold (puretree.grow.midpoint), child ids, and every row's side
        q = X.shape[1]
        n_next = 0
        for i in range(len(fr_node)):
            if not splits[i]:
                continue
            top = -np.inf
            for f in range(q):
                top = max(top, best_score[i, f])
            if top == -np.inf:
                splits[i] = False
                continue
            bar = top - TIE_TOLERANCE * max(1.0, abs(top))
            fb = 0
            while best_score[i, fb] < bar:
                fb += 1
            if use_min_gain and not best_score[i, fb] > min_gain:
                splits[i] = False
                continue
            pos = best_pos[i, fb]
            lo_value = X[orders[fb, pos], fb]
            hi_value = X[orders[fb, pos + 1], fb]
            mid = lo_value / 2.0 + hi_value / 2.0
            g = fr_node[i]
            feature[g] = fb
            threshold[g] = mid if (lo_value <= mid and mid < hi_value) else lo_value
            child[g] = n_made
            first_child[i] = n_made
            n_made += 2
            n_next += 2
            n_left_of[i] = pos - fr_start[i] + 1
            for pp in range(fr_start[i], fr_end[i]):
                goes_left[orders[fb, pp]] = pp <= pos
        return n_made, n_next

    @njit(cache=True, error_model="numpy")
    def next_frontier(fr_start: Any, fr_end: Any, splits: Any, first_child: Any, n_left_of: Any, n_next: int) -> tuple[Any, Any, Any]:
        nf_node = np.empty(n_next, dtype=np.int64)
        nf_start = np.empty(n_next, dtype=np.int64)
        nf_end = np.empty(n_next, dtype=np.int64)
        j = 0
        for i in range(len(fr_start)):
            if splits[i]:
                cut = fr_start[i] + n_left_of[i]
                nf_node[j] = first_child[i]
                nf_start[j] = fr_start[i]
                nf_end[j] = cut
                nf_node[j + 1] = first_child[i] + 1
                nf_start[j + 1] = cut
                nf_end[j + 1] = fr_end[i]
                j += 2
        return nf_node, nf_start, nf_end

    @njit(cache=True, error_model="numpy")
    def with_room(feature: Any, threshold: Any, child: Any, counts: Any, need: int) -> Any:
        # the node arrays, grown (doubled) to hold at least ``need`` nodes
        cap = len(feature)
        if need <= cap:
            return feature, threshold, child, counts
        new_cap = max(need, 2 * cap)
        f2 = np.full(new_cap, -1, dtype=np.int64)
        t2 = np.zeros(new_cap)
        c2 = np.full(new_cap, -1, dtype=np.int64)
        n2 = np.zeros((new_cap, counts.shape[1]))
        f2[:cap] = feature
        t2[:cap] = threshold
        c2[:cap] = child
        n2[:cap] = counts
        return f2, t2, c2, n2

    @njit(cache=True, error_model="numpy")
    def narrow_levels(X: Any, y: Any, w: Any, k: int, root_counts: Any, orders: Any, feature: Any, threshold: Any, child: Any, counts: Any, n_made: int, fr_node: Any, fr_start: Any, fr_end: Any, goes_left: Any, depth: int, min_split: float, min_leaf: float, max_depth: int, min_gain: float, use_min_gain: bool, min_work: int) -> Any:
        # Levels grown here, on one core, until growth stops or a level has work enough for
        # both (returned with its nodes summarised: ``wide`` is True).
        q = X.shape[1]
        while len(fr_node) > 0:
            F = len(fr_node)
            splits = np.zeros(F, dtype=np.bool_)
            g_parent = np.zeros(F)
            node_summaries(orders, y, w, k, root_counts, counts, fr_node, fr_start, fr_end, min_split, max_depth >= 0 and depth >= max_depth, splits, g_parent)
            if not splits.any():
                break
            feature, threshold, child, counts = with_room(feature, threshold, child, counts, n_made + 2 * F)
            if q > 1 and level_work(fr_start, fr_end, splits, q) >= min_work:
                return feature, threshold, child, counts, n_made, fr_node, fr_start, fr_end, depth, True, splits, g_parent
            best_score = np.full((F, q), -np.inf)
            best_pos = np.zeros((F, q), dtype=np.int64)
            best_serial(X, orders, y, w, k, counts, fr_node, fr_start, fr_end, splits, g_parent, min_leaf, best_score, best_pos)
            first_child = np.full(F, -1, dtype=np.int64)
            n_left_of = np.zeros(F, dtype=np.int64)
            n_made, n_next = choose_splits(X, orders, fr_node, fr_start, fr_end, splits, best_score, best_pos, min_gain, use_min_gain, feature, threshold, child, n_made, goes_left, first_child, n_left_of)
            if n_next == 0:
                break
            partition_serial(orders, goes_left, fr_start, fr_end, splits, n_left_of)
            fr_node, fr_start, fr_end = next_frontier(fr_start, fr_end, splits, first_child, n_left_of, n_next)
            depth += 1
        empty = np.zeros(0, dtype=np.int64)
        return feature, threshold, child, counts, n_made, empty, empty, empty, depth, False, np.zeros(0, dtype=np.bool_), np.zeros(0)


def grow_arrays(X: np.ndarray, y: np.ndarray, w: np.ndarray | None, k: int, root_counts: np.ndarray, *, min_samples_split: float, min_samples_leaf: float, max_depth: int | None, min_gain: float | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The tree as arrays: per node its feature (a column of ``X``; -1 for a leaf), threshold,
    first child (the second is the next id; -1 for a leaf) and class counts.

    ``X`` is (rows, features) float64 without NaN, read in place when it is contiguous float64
    and fits :data:`COLUMN_COPY_BYTES` (else copied column-major); ``y`` the class codes, ``w`` the row weights (``None``: 1),
    ``root_counts`` the root's counts as the reference sums them. Children have larger ids
    than their parents.
    """
    if not AVAILABLE:  # pragma: no cover
        raise RuntimeError("puretree.kernels needs numba")
    X = X if X.dtype == np.float64 and (X.flags.c_contiguous or X.flags.f_contiguous) else np.ascontiguousarray(X, dtype=np.float64)
    n, q = X.shape
    if not X.flags.f_contiguous and X.nbytes > COLUMN_COPY_BYTES and q > 1:
        # every position of a feature's order reads that feature's value of a row: within one
        # column these reads stay in the cache, across rows of a large X each one misses it
        X = np.asfortranarray(X)
    y = np.ascontiguousarray(y, dtype=np.int64)
    w = np.ones(n) if w is None else np.ascontiguousarray(w, dtype=np.float64)
    root_counts = np.ascontiguousarray(root_counts, dtype=np.float64)
    # one order of the rows per feature, and one of the rows themselves, each kept sorted
    # within every node's segment by partitioning in place
    orders = np.empty((q + 1, n), dtype=np.int32 if n < 2**31 - 1 else np.int64)
    wide = n * q >= PARALLEL_MIN_WORK and q > 1
    _presort(X, orders, threads=numba.get_num_threads() if wide else 1)
    if not wide:
        return _grow_levels(X, y, w, int(k), root_counts, orders, float(min_samples_split), float(min_samples_leaf), -1 if max_depth is None else int(max_depth), min_gain)
    # one feature per work item, handed out as the threads come free: on a busy machine a
    # thread held back by the scheduler does not hold the whole level back
    with parallel_chunksize(1):
        return _grow_levels(X, y, w, int(k), root_counts, orders, float(min_samples_split), float(min_samples_leaf), -1 if max_depth is None else int(max_depth), min_gain)


def _presort(X: np.ndarray, orders: np.ndarray, *, threads: int) -> None:
    """``orders[f]``: the rows sorted by column ``f`` of ``X``, stably (equal values in row
    order), one column at a time (numpy's sort releases the GIL, so ``threads`` sort
    columns side by side); the last row of ``orders`` is the rows in their own order."""
    q = X.shape[1]

    def one(f: int) -> None:
        orders[f] = np.argsort(X[:, f], kind="stable")

    if threads > 1:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(threads, q)) as pool:
            list(pool.map(one, range(q)))
    else:
        for f in range(q):
            one(f)
    orders[q] = np.arange(X.shape[0])


def _grow_levels(X: np.ndarray, y: np.ndarray, w: np.ndarray, k: int, root_counts: np.ndarray, orders: np.ndarray, min_split: float, min_leaf: float, max_depth: int, min_gain: float | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    n, q = X.shape
    cap = min(2 * n + 1, 1024)  # grown as needed: a full tree of n leaves has 2n - 1 nodes
    feature, threshold, child, counts = np.full(cap, -1, dtype=np.int64), np.zeros(cap), np.full(cap, -1, dtype=np.int64), np.zeros((cap, k))
    goes_left = np.zeros(n, dtype=np.bool_)
    fr_node, fr_start, fr_end = np.zeros(1, dtype=np.int64), np.zeros(1, dtype=np.int64), np.full(1, n, dtype=np.int64)
    n_made, depth = 1, 0
    use_min_gain, gain_floor = min_gain is not None, 0.0 if min_gain is None else float(min_gain)
    while True:
        feature, threshold, child, counts, n_made, fr_node, fr_start, fr_end, depth, wide, splits, g_parent = narrow_levels(
            X, y, w, k, root_counts, orders, feature, threshold, child, counts, n_made, fr_node, fr_start, fr_end, goes_left, depth, min_split, min_leaf, max_depth, gain_floor, use_min_gain, PARALLEL_MIN_WORK
        )
        if not wide:
            break
        # one wide level (narrow_levels summarised its nodes), its features shared between the cores
        F = len(fr_node)
        best_score = np.full((F, q), -np.inf)
        best_pos = np.zeros((F, q), dtype=np.int64)
        # One parallel region at a time in the process: numba's workqueue threading layer (its
        # fallback without OpenMP or TBB) aborts the process on concurrent ones. A fit in
        # another thread meanwhile grows its wide levels on one core instead of waiting.
        both_cores = _PARALLEL.acquire(blocking=False)
        try:
            (best_all if both_cores else best_serial)(X, orders, y, w, k, counts, fr_node, fr_start, fr_end, splits, g_parent, min_leaf, best_score, best_pos)
        finally:
            if both_cores:
                _PARALLEL.release()
        first_child = np.full(F, -1, dtype=np.int64)
        n_left_of = np.zeros(F, dtype=np.int64)
        n_made, n_next = choose_splits(X, orders, fr_node, fr_start, fr_end, splits, best_score, best_pos, gain_floor, use_min_gain, feature, threshold, child, n_made, goes_left, first_child, n_left_of)
        if n_next == 0:
            break
        both_cores = _PARALLEL.acquire(blocking=False)
        try:
            (partition_all if both_cores else partition_serial)(orders, goes_left, fr_start, fr_end, splits, n_left_of)
        finally:
            if both_cores:
                _PARALLEL.release()
        fr_node, fr_start, fr_end = next_frontier(fr_start, fr_end, splits, first_child, n_left_of, n_next)
        depth += 1
    return feature[:n_made].copy(), threshold[:n_made].copy(), child[:n_made].copy(), counts[:n_made].copy()
