"""The sorted source: the rows of a level's nodes in memory, every numeric feature presorted
once, candidate statistics by segmented sums along the sorted columns, rows routed by the
decisions; :func:`puretree.growth.level.grow` drives it a frontier at a time.

1. **Instances.** Every row reaching the frontier is an *instance*: its original row,
   its statistics (its class code and weight, never a one-hot row of classes; or
   ``(w, w*y, w*y**2)``) and the node of the frontier it sits in. Instances are kept sorted
   by (node, original row), so the rows of a node form a contiguous *segment* in the order
   the reference sees them. A row with a
   missing value that ``missing="distribute"`` sends down several branches becomes several
   instances, each with its fractional weight.
2. **One presorted order per numeric feature** (``orders``, shaped ``(features, instances)``)
   is computed once at the root by a stable argsort and afterwards only *stably partitioned*
   by the instances' new node ids: each segment of each order stays sorted by the feature's
   value (NaN last, equal values in row order), exactly the order the reference's
   ``NodeData.restrict`` keeps.
3. **Per-node statistics by segmented sums**: ``np.bincount`` over ``node * k + class``,
   which adds in row order, so a node's counts are bit for bit the reference's
   ``stats.sum(axis=0)``.
4. **Every threshold of every node and feature of the frontier is scored together**: the
   sorted statistics are cumulated within segments (exactly, segment by segment, when the
   statistics are not integers), the candidate positions between distinct values are
   gathered, and the user's score is called once per chunk of features with ``parent``
   shaped ``(M, k)`` and ``children`` shaped ``(M, 2, k)``; every call of a score goes
   through :func:`puretree.growth.choose.score_of`; the built-in Gini's candidates are first
   screened by the compiled scan's ranking (:func:`_rank`, :func:`_near`), so that only those
   near the best get the reference's score. Categorical features are scored per
   frontier too: one-branch-per-category splits with one call per feature (``children``
   shaped ``(nodes, categories, k)``); subset splits (CART) enumerate each node's present
   categories as the reference does.
5. **Children known to be leaves** (pure, too few rows, at ``max_depth``) leave the arrays
   at once, so a deep narrow tree (a chain has one node per level) carries few rows.
6. **The compiled backend.** Where the score is the built-in Gini impurity decrease on classes
   and no numeric feature has a missing value, every (node, numeric feature)'s best threshold
   of a level is found by :func:`puretree.growth.kernels.scan_level` (C, one pass per node and
   feature, the same numbers as the numpy scan, :func:`_numpy_scan`) and the orders of the next
   frontier by :func:`puretree.growth.kernels.partition_level`; categorical features, user
   scores, regression and missing values are numpy's, feature by feature, in the same level
   (``grow(..., engine="numpy")`` keeps all of it in numpy).
7. **Ties** are broken as the reference breaks them (:data:`~puretree.splits.TIE_TOLERANCE`,
   then the lowest threshold, then the lowest feature index), over the same numbers, by
   :mod:`puretree.growth.choose`.

Memory is a small multiple of the data whatever the depth: the instances of one frontier,
the orders (int32; without the compiled kernel also each order's values, carried in order:
as much again as the numeric columns), one chunk of sorted statistics (at most :data:`puretree.splits.CHUNK`
floats) and one slice of candidates handed to the score (at most
:data:`puretree.growth.choose.SCORE_CHUNK`). It never grows as rows x classes: with many
classes a feature's candidates are scored a slice at a time (:func:`_blocked_candidates`), so
growth holds the node statistics (classes x nodes of a frontier) and the tree; a tree whose
class counts alone would not fit in memory is refused with
:class:`~puretree.errors.MemoryLimitError` before they are made.

Equality with the reference: on unweighted classification data every statistic is an integer
and every sum exact, so the trees are ``==``. Regression statistics and fractional weights
are summed in the reference's order wherever that order is defined (node counts, the
cumulative sums along a sorted feature, category sums); the remaining differences (the sum
of the known rows of a node with missing values, subset sums computed by a matrix product,
the left counts of a feature scored slice by slice with many classes and fractional weights)
are a few ulps, and only change a split when two candidates' scores lie within those ulps of
the edge of :data:`~puretree.splits.TIE_TOLERANCE` of each other.

>>> from puretree.datasets import load_playtennis
>>> from puretree.grow import id3
>>> id3(load_playtennis(), engine="fast") == id3(load_playtennis(), engine="reference")
True
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

import numpy as np

from ..criteria import ImpurityDecrease
from ..data import Dataset
from ..errors import DataError, ParameterError
from ..impurity import gini, variance
from ..nodes import TESTS
from ..splits import CHUNK as _CHUNK  # one chunk of sorted statistics: the reference's memory bound
from ..splits import node_statistics, tie_first
from ..tasks import as_task
from . import kernels
from .choose import among_kinds, best_subsets, binary_scores, category_sum, first_tied, first_tied_in_groups, heavy_enough, known_share, multiway_scores, tolerance, weight_of
from .limits import check_tree_size, memory_budget
from .assemble import trusted_threshold
from .level import Decision

__all__ = ["Sorted", "refuse_compiled", "gini_rank", "segmented_cumsum"]


def _segment_sums(key: np.ndarray, stats: np.ndarray, n: int) -> np.ndarray:
    """Per-key sums of ``stats`` rows (n, k), added in row order (bincount is sequential)."""
    return np.stack([np.bincount(key, weights=stats[:, c], minlength=n) for c in range(stats.shape[1])], axis=-1) if len(key) else np.zeros((n, stats.shape[1]))


def _segmented_cumsum(S: np.ndarray, starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """Cumulative sums of ``S`` (c, m, k) along axis 1, restarting at every segment, each
    segment added in its own order from its first row, as the reference does (so float
    statistics give the reference's very numbers). Segments of similar length (within a
    factor 2) are padded into one rectangular block per length class: at most twice the
    data, about log2(m) calls. (Integer statistics take a cheaper exact route: one global
    cumsum, see :class:`_Offset`.)
    """
    out = np.empty_like(S)
    cls = np.ceil(np.log2(np.maximum(lens, 1))).astype(np.int64)
    for c in np.unique(cls):
        sel = np.flatnonzero(cls == c)
        width = int(lens[sel].max())
        if len(sel) == 1:
            a, b = int(starts[sel[0]]), int(starts[sel[0]] + lens[sel[0]])
            out[:, a:b] = np.cumsum(S[:, a:b], axis=1)
            continue
        offs = np.arange(width)
        inside = offs[None, :] < lens[sel][:, None]
        idx = np.where(inside, starts[sel][:, None] + offs[None, :], 0)
        block = S[:, idx] * inside[None, :, :, None]  # (c, segments, width, k), zero padding at the end
        np.cumsum(block, axis=2, out=block)
        out[:, idx[inside]] = block[:, inside]
    return out




class _Offset:
    """Segmented prefix sums as a global cumsum ``C`` less each segment's offset, indexed
    like the array they stand for: ``L[f, p] == C[f, p] - off[f, node of p]``."""

    def __init__(self, C: np.ndarray, off: np.ndarray, node_at: np.ndarray) -> None:
        self.C, self.off, self.node_at = C, off, node_at

    def __getitem__(self, key: tuple[np.ndarray, np.ndarray]) -> np.ndarray:
        f, p = key
        f = np.broadcast_to(f, np.broadcast_shapes(np.shape(f), np.shape(p)))
        c, m, k = self.C.shape
        n = self.off.shape[1]
        # one flat index per axis-0 gather: numpy's fast path, unlike two index arrays
        return self.C.reshape(c * m, k)[f * m + p] - self.off.reshape(c * n, k)[f * n + self.node_at[p]]


class _Best:
    """The best candidate of each splitting node of a level, per splitter kind."""

    def __init__(self, n: int) -> None:
        self.score = np.full(n, -np.inf)
        self.feature = np.full(n, -1, dtype=np.int64)
        self.threshold = np.zeros(n)
        self.left: dict[int, tuple[int, ...]] = {}
        self.children: dict[int, np.ndarray] = {}


def _min_weight(cfg: Any) -> float:
    """The least weight of a child (``min_weight_fraction_leaf`` times the training weight; 0: no bound)."""
    return float(getattr(cfg, "min_weight_leaf", 0.0))


def _numeric_candidates(st: "_Level", cfg: Any, ctx: "_Context") -> _Best:
    """Best threshold split per node over all numeric features (threshold_splits): each
    (node, feature)'s first near-best threshold from the compiled scan where it applies
    (``ctx.compiled``: :func:`puretree.growth.kernels.scan_level`), else from numpy's
    (:func:`_numpy_scan`), then each node's first near-best feature."""
    N, q = st.n_nodes, ctx.q
    out = _Best(N)
    if q == 0 or st.m < 2:
        return out
    if ctx.compiled is not None and st.cls is not None:
        allowed = None if ctx.allowed is None else ctx.allowed[:, ctx.numeric]
        w = None if st.unit else st.w
        fs, fa, fb = ctx.compiled.scan_level(ctx.Xn, st.orders, st.row, st.cls, w, ctx.k, st.starts, st.lens, st.node_stats, allowed, min_leaf=cfg.min_samples_leaf, min_weight=_min_weight(cfg))
    else:
        fs, fa, fb = _numpy_scan(st, cfg, ctx)
    if ctx.allowed is not None:  # feature subsampling: each node's drawn features only
        fs[~ctx.allowed[:, ctx.numeric]] = -np.inf
    # first_tied over every node at once (a deep tree pays each numpy call once a level): a node
    # without a candidate has best -inf, its bar -inf, so it picks column 0, of score -inf
    best = fs.max(axis=1)
    bar = best - tolerance(best)
    at = np.argmax(fs >= bar[:, None], axis=1)
    nodes = np.arange(N)
    out.score = fs[nodes, at]
    out.feature = np.where(best != -np.inf, ctx.numeric[at], -1)
    a, b = fa[nodes, at], fb[nodes, at]
    mid = a / 2.0 + b / 2.0  # grow.midpoint, elementwise
    # binned: values are their bin's largest training value, the cut goes right above it
    out.threshold = a if ctx.binned else np.where((a <= mid) & (mid < b), mid, a)
    return out


def _numpy_scan(st: "_Level", cfg: Any, ctx: "_Context") -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per (node, numeric feature) the first near-best threshold's score (-inf: none) and the
    values either side, ``(fs, fa, fb)``, by segmented sums along the sorted columns."""
    N, q, m, k = st.n_nodes, ctx.q, st.m, ctx.k
    node_at = st.node  # instances are sorted by node: position p of any order is in node node_at[p]
    starts, lens = st.starts, st.lens
    not_last = np.ones(m - 1, dtype=bool)
    ends = starts + lens - 1
    not_last[ends[ends < m - 1]] = False
    pos_in_seg = np.arange(m) - starts[node_at]
    counts = st.node_stats
    total = counts[:, 0] if ctx.regression else counts.sum(axis=-1)
    chunk = max(1, _CHUNK // max(1, m * k * 2))
    fs = np.full((N, q), -np.inf)
    fa = np.zeros((N, q))
    fb = np.zeros((N, q))
    # The reference scales every numeric feature's score by the known fraction when any of them
    # has a missing value in the node (its base is then the known rows' sum).
    incomplete = np.zeros(N, dtype=bool)
    # Integer class counts without missing values: sum each run of equal values once
    # (bincount), and cumulate over runs only; exact, and far fewer numbers than rows x classes.
    runs = not ctx.regression and st.integral and not ctx.numeric_missing
    if runs:
        chunk = max(1, (_CHUNK // 16) // max(1, m))
    # Many classes: one feature's sorted statistics (rows x classes) would not fit in a chunk;
    # its candidates are scored a slice at a time from class codes (see _blocked_candidates).
    blocked = not ctx.regression and m * k * 2 > _CHUNK
    if blocked:
        chunk = 1
    seg_first = np.zeros(m, dtype=bool)
    seg_first[starts] = True
    for start in range(0, q, chunk) if ctx.numeric_missing else ():
        idx = st.orders[start : start + chunk]
        rows = st.row[idx]
        V = np.take_along_axis(ctx.Xn[start : start + chunk], rows, axis=1)
        nan = np.isnan(V)
        if nan.any():
            incomplete |= np.bitwise_or.reduceat(nan.any(axis=0), starts)
    for f in range(q) if blocked else ():
        _blocked_candidates(f, st, cfg, ctx, incomplete, fs, fa, fb)
    for start in range(0, q, chunk) if not blocked else ():
        c = min(chunk, q - start)
        idx = st.orders[start : start + c]
        if st.values is not None:  # carried in order: no gather from the columns
            V = st.values[start : start + c]
        else:
            V = ctx.Xn[start : start + c].ravel().take(st.row.take(idx) + (np.arange(c) * ctx.Xn.shape[1])[:, None])  # (c, m): one flat gather
        # runs pay when values repeat (digits: 17 values); on continuous data one cumsum is cheaper
        neq = None
        repeats = False
        if runs:  # where a value differs from the next (the last column False)
            neq = np.zeros((c, m), dtype=bool)
            np.not_equal(V[:, 1:], V[:, :-1], out=neq[:, :-1])
            repeats = bool(np.count_nonzero(neq) < 0.5 * V.size)
        if repeats:
            fp, pp, left = _run_prefix_sums(V, idx, st, ctx, seg_first)
            n_known = np.broadcast_to(lens, (c, N))
            if cfg.min_samples_leaf > 1 and len(fp):
                n_left = pos_in_seg[pp] + 1
                ok = (n_left >= cfg.min_samples_leaf) & (lens[node_at[pp]] - n_left >= cfg.min_samples_leaf)
                fp, pp, left = fp[ok], pp[ok], left[ok]
            if _min_weight(cfg) > 0 and len(fp):  # classes without missing values: the node's weight is its base
                ok = heavy_enough(weight_of(left, False), total[node_at[pp]], _min_weight(cfg))
                fp, pp, left = fp[ok], pp[ok], left[ok]
            if len(fp) == 0:
                continue
            L: Any = None
            if ctx.screen:  # the built-in Gini: the reference's score for the candidates near the best only
                nodes = node_at[pp]
                first = np.flatnonzero(np.r_[True, np.diff(fp * N + nodes) != 0])
                near = _near(_rank(left.T, counts[nodes].T), first, total[nodes[first]])
                fp, pp, left = fp[near], pp[near], left[near]
        elif ctx.screen and st.integral:
            fp, pp, left = _gini_candidates(V, idx, st, cfg, not_last, total, neq)
            L = None
        else:
            if st.integral:
                # integer statistics: one cumsum per feature; each segment's offset is
                # subtracted at the candidates only (exact)
                C = np.cumsum(st.dense(idx), axis=1)
                off = np.zeros((c, N, k))
                inner = starts > 0
                off[:, inner] = C[:, starts[inner] - 1]
                L = _Offset(C, off, node_at)
            else:
                L = _segmented_cumsum(st.dense(idx), starts, lens)
            valid = (V[:, :-1] < V[:, 1:]) & not_last  # between distinct values of one segment
            if ctx.numeric_missing:
                n_known = np.add.reduceat(~np.isnan(V), starts, axis=1)  # (c, N)
            else:
                n_known = np.broadcast_to(lens, (c, N))
            if cfg.min_samples_leaf > 1:
                n_left = pos_in_seg[:-1] + 1
                valid &= (n_left >= cfg.min_samples_leaf) & (n_known[:, node_at[:-1]] - n_left >= cfg.min_samples_leaf)
            if _min_weight(cfg) > 0:
                if isinstance(L, _Offset):
                    L = L.C - np.repeat(L.off, lens, axis=1)
                valid &= _weighed(L, n_known, incomplete, st, ctx, _min_weight(cfg))
            if ctx.screen:  # the built-in Gini on fractional weights
                rank = np.full((c, m), -np.inf)
                rank[:, :-1] = np.where(valid, _rank(np.moveaxis(L[:, :-1], -1, 0), counts[node_at[:-1]].T), -np.inf)
                valid &= _near(rank, starts, total)[:, :-1]
            elif valid.sum() > 0.5 * valid.size:
                # most positions are candidates (continuous values): score them all in place,
                # without gathering the candidates first
                _dense_candidates(V, L, valid, start, cfg, ctx, st, incomplete, n_known, total, fs, fa, fb)
                continue
            fp, pp = np.nonzero(valid)
            if len(fp) == 0:
                continue
            left = L[fp, pp]
        if len(fp) == 0:
            continue
        nodes = node_at[pp]
        base_all = np.broadcast_to(counts, (c, N, k))
        if incomplete.any():
            last_known = starts[None, :] + n_known - 1  # (c, N)
            known_sum = np.where((n_known > 0)[..., None], L[np.arange(c)[:, None], np.maximum(last_known, 0)], 0.0)
            base_all = np.where(incomplete[None, :, None], known_sum, base_all)
        one = N == 1 and c == 1  # a single node and feature: one parent, as the reference passes it
        if one:
            parent = base_all[0, 0]
        elif incomplete.any():
            parent = base_all.reshape(c * N, k)[fp * N + nodes]
        else:
            parent = counts[nodes]
        names = None if ctx.variance_decrease else ctx.numeric_names[start + fp]
        s = binary_scores(cfg.score, parent, left, names, regression=ctx.regression, variance=ctx.variance_decrease)
        inc = incomplete[nodes]
        if inc.any():
            s = known_share(s, weight_of(np.broadcast_to(parent, left.shape), ctx.regression), total[nodes], inc)
        s = np.where(np.isnan(s), -np.inf, s)
        _pick_thresholds(s, fp, nodes, pp, V, start, N, fs, fa, fb)
    return fs, fa, fb


def _weighed(L: np.ndarray, n_known: np.ndarray, incomplete: np.ndarray, st: "_Level", ctx: "_Context", min_weight: float) -> np.ndarray:
    """Which positions of a chunk of features (left sums ``L`` (c, m, k) cumulated within
    segments) leave both children at least ``min_weight`` (:func:`~puretree.growth.choose.heavy_enough`),
    the node's weight being its rows' or, where the node has a missing value
    (``incomplete``), the known rows' of the feature (``n_known`` (c, N)), as the scores' base."""
    c, m = L.shape[:2]
    node_at = st.node[:-1]
    base = np.broadcast_to(weight_of(st.node_stats, ctx.regression), (c, st.n_nodes))
    if incomplete.any():
        last_known = np.maximum(st.starts[None, :] + n_known - 1, 0)
        known_w = np.where(n_known > 0, weight_of(L[np.arange(c)[:, None], last_known], ctx.regression), 0.0)
        base = np.where(incomplete[None, :], known_w, base)
    return heavy_enough(weight_of(L[:, :-1], ctx.regression), base[:, node_at], min_weight)  # type: ignore[no-any-return]


def _rank(left: Any, parent: Any) -> np.ndarray:
    """The compiled scan's ranking of binary candidates (left sides ``left``, nodes ``parent``,
    each a class at a time: ``(k, ...)``): ``sum(left**2)/w_left + sum(right**2)/w_right``, the
    Gini impurity decrease times the node's weight less a constant; ``inf`` where a side is
    empty (then every candidate of the node is scored)."""
    wl, wr, sl, sr = (np.zeros(np.shape(left[0])) for _ in range(4))
    for a, p in zip(left, parent):
        d = np.maximum(p - a, 0.0)
        wl += a
        wr += d
        sl += a * a
        sr += d * d
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where((wl > 0) & (wr > 0), sl / wl + sr / wr, np.inf)


def _gini_candidates(V: np.ndarray, idx: np.ndarray, st: "_Level", cfg: Any, not_last: np.ndarray, total: np.ndarray, neq: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The built-in Gini's candidates of a chunk of features (sorted values ``V``, instances
    ``idx``) on integral class sums, screened (:func:`_near`): their features, positions and
    left sums. ``neq`` (c, m), if given: where a value differs from the next (the last column
    False); it is overwritten.

    Every number is an integer below 2**53, so every sum is exact whatever its order and the
    ranking is :func:`_rank`'s bit for bit, in fewer and cheaper passes: the left sums of every
    class but the last are integer cumsums (several times faster than float ones) less the
    sums of the segments before (the same for every feature: each order holds a segment's
    rows); the last class's are the left weight less the others'; unit rows' left weight is
    the position in the segment."""
    c, m = V.shape
    k, starts, lens, node_at = st.k, st.starts, st.lens, st.node
    if neq is None:
        neq = np.zeros((c, m), dtype=bool)
        np.not_equal(V[:, 1:], V[:, :-1], out=neq[:, :-1])
    valid = neq  # between distinct values of one segment (sorted within a segment: != is <)
    valid[:, :-1] &= not_last
    pos = np.arange(m, dtype=np.float64) - starts[node_at]  # (m,) the rows before each in its segment
    if cfg.min_samples_leaf > 1:
        valid &= (pos + 1 >= cfg.min_samples_leaf) & (lens[node_at] - (pos + 1) >= cfg.min_samples_leaf)
    counts = st.node_stats
    before = np.cumsum(counts, axis=0) - counts  # (N, k) each class's sum over the segments before

    def left(x: np.ndarray, j: int) -> np.ndarray:  # the segmented cumsum of x (c, m), class j's (-1: all classes')
        base = before[:, j] if j >= 0 else before.sum(axis=1)
        return np.subtract(np.cumsum(x, axis=1), base[node_at], out=np.empty((c, m)))

    cls = st.cls.take(idx)
    if st.unit:
        wl: Any = pos + 1.0  # (m,), shared by the features
        wide = np.int32 if m < 2**31 else np.int64
        sums = [left(np.equal(cls, j).astype(wide), j) for j in range(k - 1)]
    else:
        w = st.w.take(idx).astype(np.int64)  # integral weights summing below 2**52: exact
        sums = [left(np.where(cls == j, w, 0), j) for j in range(k - 1)]
        wl = left(w, -1)
    last = np.subtract(wl, sums[0]) if k > 1 else np.broadcast_to(wl, (c, m)).copy()
    for x in sums[1:]:
        last -= x
    sums.append(last)
    wr = total[node_at] - wl
    sl = np.zeros((c, m))
    sr = np.zeros((c, m))
    tmp = np.empty((c, m))
    for j, a in enumerate(sums):
        sl += np.multiply(a, a, out=tmp)
        np.subtract(counts[node_at, j], a, out=tmp)
        sr += np.multiply(tmp, tmp, out=tmp)
    with np.errstate(divide="ignore", invalid="ignore"):
        rank = np.divide(sl, wl, out=sl)
        rank += np.divide(sr, wr, out=sr)
        if not st.unit:  # a side of no weight: every candidate of the node is scored (unit rows: never, at a valid position)
            rank[(wl <= 0) | (wr <= 0)] = np.inf
    if _min_weight(cfg) > 0:
        valid &= heavy_enough(np.broadcast_to(wl, (c, m)), total[node_at], _min_weight(cfg))
    rank[~valid] = -np.inf
    fp, pp = np.nonzero(valid & _near(rank, starts, total))
    return fp, pp, np.stack([s[fp, pp] for s in sums], axis=-1)


def _near(rank: np.ndarray, first: np.ndarray, weight: np.ndarray, axis: int = -1) -> np.ndarray:
    """Which ``rank`` values, in groups starting at ``first`` along ``axis``, come within
    :data:`~puretree.growth.kernels.SCREEN` times the group's ``weight`` of the group's best, as
    the compiled scan screens positions before scoring them exactly (every one where the best is
    ``inf``): the others cannot come within the tie tolerance of the best score."""
    best = np.maximum.reduceat(rank, first, axis=axis)
    bar = np.where(np.isinf(best), -np.inf, best - kernels.SCREEN * weight)
    return rank >= np.repeat(bar, np.diff(np.r_[first, rank.shape[axis]]), axis=axis)


def _blocked_candidates(f: int, st: "_Level", cfg: Any, ctx: "_Context", incomplete: np.ndarray, fs: np.ndarray, fa: np.ndarray, fb: np.ndarray) -> None:
    """Numeric feature ``f``'s best threshold per node when there are too many classes for its
    sorted statistics (rows x classes) to be held: the candidates are scored a slice at a
    time, each slice's left counts summed from class codes (bincount over the rows between
    consecutive candidates, then cumulated), so no array exceeds about ``_CHUNK / 4`` numbers
    besides the node statistics. Exact on integer statistics; on fractional weights the sums
    are grouped differently from the reference's row-by-row cumsum (a few ulps)."""
    N, m, k = st.n_nodes, st.m, ctx.k
    node_at, starts, lens = st.node, st.starts, st.lens
    idx = st.orders[f]
    V = ctx.Xn[f][st.row[idx]]
    not_last = np.ones(m - 1, dtype=bool)
    ends = starts + lens - 1
    not_last[ends[ends < m - 1]] = False
    valid = (V[:-1] < V[1:]) & not_last  # between distinct values of one segment
    known = ~np.isnan(V)
    if cfg.min_samples_leaf > 1:
        n_known = np.add.reduceat(known, starts) if ctx.numeric_missing else lens
        n_left = np.arange(m - 1) - starts[node_at[:-1]] + 1
        valid &= (n_left >= cfg.min_samples_leaf) & (n_known[node_at[:-1]] - n_left >= cfg.min_samples_leaf)
    pp = np.flatnonzero(valid)
    if len(pp) == 0:
        return
    nodes = node_at[pp]
    counts = st.node_stats
    total = counts.sum(axis=-1)
    base = counts
    if incomplete.any():
        # the known rows' sums, added in the feature's sorted order as the cumsum would
        kp = np.flatnonzero(known)
        base = np.where(incomplete[:, None], st.sums(node_at[kp], idx[kp], N), counts)
    one = N == 1  # a single node: one parent, as the reference passes it
    step = max(1, (_CHUNK // 4) // k)
    s = np.empty(len(pp))
    carry, carry_node, lo = np.zeros(k), -1, 0
    name = ctx.numeric_names[f]
    for a in range(0, len(pp), step):
        p, nd = pp[a : a + step], nodes[a : a + step]
        b = len(p)
        # rows lo..p[-1]: each goes to the first candidate at or after it, within its node
        pos = np.arange(lo, p[-1] + 1)
        to = np.searchsorted(p, pos)
        mine = node_at[pos] == nd[to]
        left = np.cumsum(st.sums(to[mine], idx[pos[mine]], b), axis=0)
        # restart at each node's first candidate of the slice (exact: integer counts)
        first = np.flatnonzero(np.r_[True, nd[1:] != nd[:-1]])
        before = np.zeros((len(first), k))
        before[1:] = left[first[1:] - 1]
        if nd[0] == carry_node:
            before[0] -= carry
        left -= np.repeat(before, np.diff(np.r_[first, b]), axis=0)
        carry, carry_node, lo = left[-1].copy(), nd[-1], p[-1] + 1
        parent = base[0] if one else base[nd]
        sc = binary_scores(cfg.score, parent, left, np.broadcast_to(name, (b,)), regression=False, variance=False)
        if _min_weight(cfg) > 0:
            sc = np.where(heavy_enough(weight_of(left, False), weight_of(np.broadcast_to(parent, left.shape), False), _min_weight(cfg)), sc, -np.inf)
        if incomplete.any():
            sc = known_share(sc, weight_of(np.broadcast_to(parent, left.shape), False), total[nd], incomplete[nd])
        s[a : a + b] = sc
        del left, parent
    s = np.where(np.isnan(s), -np.inf, s)
    _pick_thresholds(s, np.zeros(len(pp), dtype=np.int64), nodes, pp, V[None], f, N, fs, fa, fb)


def _pick_thresholds(s: np.ndarray, fp: np.ndarray, nodes: np.ndarray, pp: np.ndarray, V: np.ndarray, start: int, N: int, fs: np.ndarray, fa: np.ndarray, fb: np.ndarray) -> None:
    """The first near-best threshold of each (node, feature) group of scored candidates
    (``s``, at feature ``start + fp``, position ``pp`` of the sorted values ``V``), as the
    reference picks it; its score and the values either side go to ``fs``, ``fa``, ``fb``."""
    pick = first_tied_in_groups(s, fp * N + nodes)  # groups non-decreasing: nonzero walks (feature, position)
    pf, pn, pp_ = fp[pick], nodes[pick], pp[pick]
    fs[pn, start + pf] = s[pick]
    fa[pn, start + pf] = V[pf, pp_]
    fb[pn, start + pf] = V[pf, pp_ + 1]


def _dense_candidates(V: np.ndarray, L: Any, valid: np.ndarray, start: int, cfg: Any, ctx: "_Context", st: "_Level", incomplete: np.ndarray, n_known: np.ndarray, total: np.ndarray, fs: np.ndarray, fa: np.ndarray, fb: np.ndarray) -> None:
    """Every position of every segment of a chunk of features scored, invalid ones set to
    -inf, and each (node, feature)'s first near-best threshold found by segmented reductions;
    the same choice as the gathered path, with sequential passes only."""
    c, m = V.shape
    starts, lens, node_at = st.starts, st.lens, st.node
    if isinstance(L, _Offset):
        L = L.C - np.repeat(L.off, lens, axis=1)
    left = L[:, :-1]  # (c, m-1, k)
    if incomplete.any():
        last_known = starts[None, :] + n_known - 1
        known_sum = np.where((n_known > 0)[..., None], L[np.arange(c)[:, None], np.maximum(last_known, 0)], 0.0)
        base = np.where(incomplete[None, :, None], known_sum, st.node_stats[None])  # (c, N, k)
        parent = np.repeat(base, lens, axis=1)[:, :-1]  # (c, m-1, k)
    else:
        parent = np.broadcast_to(st.node_stats[node_at[:-1]], left.shape)
    s = np.full((c, m), -np.inf)
    names = ctx.numeric_names[start : start + c, None]  # (features, 1), as the reference passes them
    s[:, :-1] = binary_scores(cfg.score, parent, left, names, regression=ctx.regression, variance=ctx.variance_decrease)
    if incomplete.any():
        s[:, :-1] = known_share(s[:, :-1], weight_of(parent, ctx.regression), np.repeat(total, lens)[:-1], np.repeat(incomplete, lens)[:-1])
    body = s[:, :-1]
    body[~valid | np.isnan(body)] = -np.inf
    best = np.maximum.reduceat(s, starts, axis=1)  # (c, N)
    ok = s >= np.repeat(best - tolerance(best), lens, axis=1)
    first = np.minimum.reduceat(np.where(ok, np.arange(m), m), starts, axis=1)  # (c, N)
    first = np.minimum(first, m - 2) if m >= 2 else first
    f_idx = np.arange(c)[:, None]
    # a segment without a candidate keeps -inf (its clipped "first" may point into the next)
    fs[:, start : start + c] = np.where(np.isneginf(best), -np.inf, s[f_idx, first]).T
    fa[:, start : start + c] = V[f_idx, first].T
    fb[:, start : start + c] = V[f_idx, first + 1].T


def _run_prefix_sums(V: np.ndarray, idx: np.ndarray, st: "_Level", ctx: "_Context", seg_first: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Left statistics of every split between distinct values, from per-run class sums.

    ``V`` (c, m) holds the sorted values (no NaN) and ``idx`` the instances. A run is a maximal
    stretch of equal values within a segment; a split lies after the last row of a run that
    is followed by another run of the same segment. Returns (feature, position, left stats).
    """
    c, m = V.shape
    k = ctx.k
    newrun = np.empty((c, m), dtype=bool)
    newrun[:, 0] = True
    np.not_equal(V[:, 1:], V[:, :-1], out=newrun[:, 1:])
    newrun[:, 1:] |= seg_first[1:]
    flat_new = newrun.ravel()
    run_id = np.cumsum(flat_new) - 1
    n_runs = int(run_id[-1]) + 1
    key = run_id * k + st.cls[idx].ravel()
    rc = np.bincount(key, weights=None if st.unit else st.w[idx].ravel(), minlength=n_runs * k).reshape(n_runs, k)
    cum = np.cumsum(rc, axis=0)
    first_pos = np.flatnonzero(flat_new)  # flat position of each run's first row
    seg_start_run = flat_new & np.tile(seg_first, c)
    first_run_of_seg = np.cumsum(seg_start_run[first_pos]) - 1  # segment index of each run
    seg_first_run = np.flatnonzero(seg_start_run[first_pos])
    offsets = np.zeros((len(seg_first_run), k), dtype=cum.dtype)
    inner = seg_first_run > 0
    offsets[inner] = cum[seg_first_run[inner] - 1]
    # a run closes a split when the next run starts inside the same segment
    ends = np.r_[first_pos[1:] - 1, c * m - 1]
    split_after = np.r_[~seg_start_run[first_pos[1:]], False]
    r = np.flatnonzero(split_after)
    left = (cum[r] - offsets[first_run_of_seg[r]]).astype(np.float64)
    p = ends[r]
    return p // m, p % m, left


def _partition_pairs(orders: np.ndarray, new_id_of_old: np.ndarray, nn: np.ndarray, parent: np.ndarray, node_at: np.ndarray, n_old: int, values: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray | None] | None:
    """The next frontier's orders (numpy's path) when every node has at most two children that
    grow on (None otherwise): each kept instance's new position is counted, not sorted for.
    The children of a node sit next to each other, the first child's rows before the second's,
    so an instance of segment ``s`` that goes to the first child lands at the number of
    first-child instances up to it in the order plus those of the second children of the
    segments before ``s``; one that goes to the second child, at the number of second-child
    instances up to it plus the first children's of segments up to ``s``. Two integer cumsums
    and a scatter per order: the same orders as a stable partition by new node. ``values``
    (the orders' values, as the orders): moved alike, returned with the orders.

    >>> orders = np.array([[3, 1, 0, 2]])  # one node, instances 0..3; 0 and 3 go left, 1 right, 2 leaves
    >>> _partition_pairs(orders, np.array([0, 2, -1, 1]), np.array([0, 0, 1]), np.array([0, 0]), np.zeros(4, dtype=np.int64), 1)[0].tolist()
    [[1, 0, 2]]
    """
    n_next = len(parent)
    if n_next > 2 and bool((parent[2:] == parent[:-2]).any()):
        return None
    second = np.zeros(n_next, dtype=bool)
    second[1:] = parent[1:] == parent[:-1]
    lens = np.bincount(nn, minlength=n_next)
    n_second = np.bincount(parent, weights=np.where(second, lens, 0), minlength=n_old).astype(np.int64)
    n_first = np.bincount(parent, weights=np.where(second, 0, lens), minlength=n_old).astype(np.int64)
    off_first = (np.cumsum(n_second) - n_second - 1)[node_at]  # (m,) per position of the old orders
    off_second = (np.cumsum(n_first) - 1)[node_at]
    kept_old = new_id_of_old >= 0
    code = np.full(len(new_id_of_old), -2, dtype=np.int64)  # new id * 2 + which child; -2: gone (an even code)
    code[kept_old] = new_id_of_old[kept_old].astype(np.int64) * 2 + second[nn[new_id_of_old[kept_old]]]
    q, m = orders.shape
    m_new = len(nn)
    out = np.empty((q, m_new), dtype=orders.dtype)
    wide = np.int32 if q * max(m, m_new) < 2**30 else np.int64  # codes and positions: the smaller type while it holds them (faster passes)
    code = code.astype(wide)
    off_first = off_first.astype(wide)
    shift = (off_second - off_first).astype(wide)  # the second child's offset less the first's
    flat = out.reshape(-1)
    moved = None if values is None else np.empty((q, m_new))
    moved_flat = None if moved is None else moved.reshape(-1)
    for a in range(q):  # an order at a time: its temporaries stay in the cache
        c = code.take(orders[a])
        kept = c >= 0
        two = c & 1
        n_two = np.cumsum(two, dtype=wide)
        n_kept = np.cumsum(kept, dtype=wide)
        # without a branch per instance (a mask's where is several times slower on mixed sides):
        # first child: n_kept - n_two + off_first; second: n_two + off_second
        dest = n_two * 2
        dest -= n_kept
        dest += shift
        dest *= two
        dest += n_kept
        dest -= n_two
        dest += off_first + a * m_new
        c >>= 1
        if m == m_new:
            flat[dest] = c
            if moved_flat is not None and values is not None:
                moved_flat[dest] = values[a]
        else:
            dest = dest[kept]
            flat[dest] = c[kept]
            if moved_flat is not None and values is not None:
                moved_flat[dest] = values[a][kept]
    return out, moved

def _categorical_candidates(st: "_Level", cfg: Any, ctx: "_Context", kinds: tuple[str, ...]) -> dict[str, _Best]:
    """Best multiway and subset splits per node, one pass over each categorical feature."""
    N, k = st.n_nodes, ctx.k
    want_multi, want_subset = "multiway" in kinds, "subset" in kinds
    ms = np.full((N, len(ctx.categorical)), -np.inf)
    sub = _Best(N)
    sub_found: list[list[tuple[float, int, tuple[int, ...], np.ndarray]]] = [[] for _ in range(N)]
    total = st.node_stats[:, 0] if ctx.regression else st.node_stats.sum(axis=-1)
    for jj, j in enumerate(ctx.categorical):
        usable = st.usable[:, jj] if ctx.allowed is None else st.usable[:, jj] & ctx.allowed[:, j]
        if not usable.any():
            continue
        mj = ctx.n_categories[jj]
        codes = ctx.codes[jj][st.row]
        known: Any = codes >= 0
        if known.all():  # no missing cell: no selection to make (the same sums, in the same order)
            key, known = st.node * mj + codes, None
        else:
            key = st.node[known] * mj + codes[known]
        per = st.sums(key, known, N * mj).reshape(N, mj, k)
        rows = np.bincount(key, minlength=N * mj).reshape(N, mj)
        known_sum = category_sum(per)
        present = rows > 0
        n_present = present.sum(axis=1)
        ok = usable & (n_present >= 2)
        name = np.asarray(ctx.feature_names[j])
        if want_multi:
            incomplete = ~(known_sum == st.node_stats).all(axis=-1)
            ms[:, jj] = multiway_scores(cfg.score, per, rows, known_sum, total, name, among=usable, incomplete=incomplete, min_samples_leaf=cfg.min_samples_leaf, regression=ctx.regression, min_weight_leaf=_min_weight(cfg))
        if want_subset:
            incomplete = ~(known_sum == st.node_stats).all(axis=-1)
            hits = best_subsets(cfg.score, per, rows, known_sum, total, name, task=ctx.task, incomplete=incomplete, min_samples_leaf=cfg.min_samples_leaf, nodes=np.flatnonzero(ok), min_weight_leaf=_min_weight(cfg))
            for i, (score, left_codes, children) in hits.items():
                sub_found[i].append((score, int(j), left_codes, children))
    out: dict[str, _Best] = {}
    if want_multi:
        best = _Best(N)
        has = ~np.isneginf(ms).all(axis=1)
        if has.any():
            r = np.flatnonzero(has)
            at = first_tied(ms[r])
            best.score[r] = ms[r, at]
            best.feature[r] = np.asarray(ctx.categorical)[at]
        out["multiway"] = best
    if want_subset:
        for i, found in enumerate(sub_found):
            if found:
                b = tie_first(np.array([f[0] for f in found]))
                score, feature, left_codes, children = found[b]
                sub.score[i], sub.feature[i] = score, feature
                sub.left[i], sub.children[i] = left_codes, children
        out["subset"] = sub
    return out


def _screened(ds: Dataset, cfg: Any, kinds: tuple[str, ...], ctx: "_Context") -> bool:
    """Whether this fit's numeric thresholds may be screened by a ranking (:func:`_near`, the
    compiled scan's): classes, the built-in Gini impurity decrease, threshold splits, numeric
    features without missing values, and weights whose squares stay finite and normal (the
    ranking keeps its precision)."""
    if ctx.regression or "threshold" not in kinds or not ctx.q or ctx.numeric_missing or not (isinstance(cfg.score, ImpurityDecrease) and cfg.score.impurity is gini):
        return False
    w = ds.sample_weight  # weights of zero add exactly nothing
    return w is None or (float(w.sum()) < kernels.MAX_WEIGHT and float(np.min(w, initial=np.inf, where=w != 0)) >= kernels.MIN_WEIGHT)


def _compiled(ds: Dataset, cfg: Any, kinds: tuple[str, ...], ctx: "_Context") -> Any:
    """:mod:`puretree.growth.kernels` if its scan answers this fit's numeric thresholds (else
    None): a :func:`_screened` fit of at most :data:`~puretree.growth.kernels.MAX_CLASSES`
    classes; loaded on the first such fit (a library that does not load warns once, and numpy answers)."""
    if not ctx.screen or len(ds.schema.classes) > kernels.MAX_CLASSES or not 0 < ds.n_rows <= kernels.MAX_ROWS:
        return None
    return kernels if kernels.AVAILABLE and kernels.library() is not None else None


def refuse_compiled(histogram: bool) -> None:
    """Why ``engine="c"`` cannot grow this fit, as a :class:`~puretree.errors.ParameterError`."""
    if not kernels.AVAILABLE or kernels.library() is None:
        raise ParameterError(f"engine='c' needs puretree's compiled kernel, which is unavailable here ({kernels.unavailable_reason() or 'disabled'}); {kernels.REMEDY}")
    raise ParameterError(
        "engine='c' grows classification trees with the built-in Gini score and threshold splits on numeric features without missing values, "
        f"at most {kernels.MAX_CLASSES} classes, no histogram mode{' (max_bins or bins was given)' if histogram else ''}; "
        "this fit is outside that: use engine='auto' or 'numpy'"
    )


class _Context:
    """What stays fixed while a tree grows."""

    @cached_property
    def codes(self) -> np.ndarray:
        """The categorical features' codes, one contiguous int64 row each (-1: missing): a
        node's rows gather from it about 15 times faster than from the row-major ``X``."""
        C = self.X[:, list(self.categorical)].T
        return np.where(np.isnan(C), -1, C).astype(np.int64)

    def __init__(self, ds: Dataset, cfg: Any) -> None:
        schema = ds.schema
        self.X = ds.X
        self.y: Any = ds.y  # set: the engine grows from labelled data
        self.schema = schema
        self.regression = schema.is_regression
        self.task = as_task(schema)
        self.feature_names = list(schema.feature_names)
        self.numeric = np.array([j for j, f in enumerate(schema.features) if f.is_numeric], dtype=np.int64)
        self.categorical = tuple(j for j, f in enumerate(schema.features) if not f.is_numeric)
        self.n_categories = [len(schema.features[j].categories) for j in self.categorical]
        self.q = len(self.numeric)
        self.Xn = np.ascontiguousarray(ds.X[:, self.numeric].T)
        self.binned = False
        self.numeric_names = np.asarray(self.feature_names, dtype=object)[self.numeric].astype(str) if self.q else np.array([], dtype=str)
        self.numeric_missing = bool(np.isnan(self.Xn).any())
        self.variance_decrease = self.regression and isinstance(cfg.score, ImpurityDecrease) and cfg.score.impurity is variance
        self.k = 0
        self.index: Any = np.int64  # the dtype of positions, chosen by build
        #: Feature subsampling: the features each node of the frontier may split on (None: all).
        self.allowed: np.ndarray | None = None
        #: :mod:`puretree.growth.kernels` when its scan answers the numeric thresholds (None: numpy).
        self.compiled: Any = None
        self.screen = False  # numpy's scan screens its candidates as the compiled scan does (_near)
        self.budget = memory_budget()  # the memory this process may use, read once a fit


class _Level:
    """The instances of one level: rows, statistics and node (sorted by node, then row), the
    per-feature orders, and the per-node statistics (``node_stats``) and usable categorical features.

    A classification instance is its class code and weight (``cls``, ``w``), never a one-hot
    row: rows x classes numbers would not fit with many classes. Its statistics are made
    dense (:meth:`dense`) for a few instances at a time only; regression instances keep their
    three statistics (``stats``)."""

    def __init__(self, row: np.ndarray, cls: np.ndarray | None, w: np.ndarray, stats: np.ndarray | None, k: int, node: np.ndarray, orders: np.ndarray, usable: np.ndarray, n_nodes: int, integral: bool, known: Any = None) -> None:
        self.row, self.w, self.k = row, w, k
        self.cls: Any = cls  # None in regression
        self._stats: Any = stats  # None in classification
        self.node, self.orders, self.usable = node, orders, usable
        self.n_nodes, self.integral = n_nodes, integral
        self.m = len(row)
        # known: the nodes' rows, class sums (added in this very order) and whether every weight is 1
        facts: tuple[np.ndarray, np.ndarray, bool] = known or (np.bincount(node, minlength=n_nodes), self.sums(node, None, n_nodes), bool(np.all(w == 1.0)))
        self.lens, self.node_stats, self.unit = facts
        self.starts = np.cumsum(self.lens) - self.lens
        #: numpy's path: each order's values, ``(features, instances)``, carried from level to level
        #: where the orders are counted into place (None: gathered from the columns when needed)
        self.values: np.ndarray | None = None

    def dense(self, idx: Any) -> np.ndarray:
        """The statistics of the instances ``idx`` (any shape or a mask), shaped ``(..., k)``."""
        if self.cls is None:
            return self._stats[idx]  # type: ignore[index]
        cls, w = self.cls[idx], self.w[idx]
        out = np.zeros((*cls.shape, self.k))
        np.put_along_axis(out, cls[..., None], w[..., None], axis=-1)
        return out

    def sums(self, key: np.ndarray, sel: Any, n: int) -> np.ndarray:
        """Per-key sums ``(n, k)`` of the statistics of the instances ``sel`` (``None``: all),
        added in instance order (bincount is sequential), as the reference's ``sum(axis=0)``."""
        if self.cls is None:
            return _segment_sums(key, self._stats if sel is None else self._stats[sel], n)
        unit = getattr(self, "unit", False)  # rows of weight 1: counted (the same integers), without a weight's gather
        cls = self.cls if sel is None else self.cls[sel]
        w = None if unit else self.w if sel is None else self.w[sel]
        if len(key) == 0:
            return np.zeros((n, self.k))
        flat = np.bincount(key * self.k + cls, weights=w, minlength=n * self.k)
        return flat.reshape(n, self.k).astype(np.float64, copy=False)

    def take(self, src: np.ndarray, scale: np.ndarray | None = None) -> tuple[np.ndarray | None, np.ndarray, np.ndarray | None]:
        """``(cls, w, stats)`` of the instances ``src``, each scaled by ``scale`` (fractional copies)."""
        cls = None if self.cls is None else self.cls[src]
        w = self.w[src]
        stats = None if self._stats is None else self._stats[src]
        if scale is not None:
            frac = scale != 1.0
            if frac.any():
                w = w.copy()
                w[frac] = w[frac] * scale[frac]
                if stats is not None:
                    stats[frac] = stats[frac] * scale[frac, None]
        return cls, w, stats

    def keep_nodes(self, keep: np.ndarray) -> "_Level":
        """The level restricted to the nodes ``keep`` (a boolean mask), renumbered in order."""
        inst = keep[self.node]
        q, orders = self.orders.shape[0], self.orders
        if q and self.m:
            # every order holds the same instances grouped by node, so one mask serves all rows
            orders = self.orders[inst[self.orders]].reshape(q, int(inst.sum()))
            np.take((np.cumsum(inst) - 1).astype(orders.dtype), orders, out=orders)
        return _Level(self.row[inst], *self.take(inst), self.k, (np.cumsum(keep) - 1)[self.node[inst]], orders, self.usable[keep], int(keep.sum()), self.integral, (self.lens[keep], self.node_stats[keep], self.unit))


def _early(slot: np.ndarray, child_known: np.ndarray, cfg: Any, depths: np.ndarray, nb: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Which children (of class sums ``child_known``, their instances' slots ``slot``) are leaves
    at once: pure, too few rows, or at ``max_depth`` (nodes at ``depths``, ``nb`` children
    each); and each child's rows."""
    rows_in = np.bincount(slot, minlength=len(child_known))
    early = ((child_known > 0).sum(axis=1) <= 1) | (rows_in < cfg.min_samples_split)
    if cfg.max_depth is not None:
        early |= np.repeat(depths + 1 >= cfg.max_depth, nb)
    return early & (rows_in > 0), rows_in


class Sorted:
    """The sorted source of ``ds`` grown with settings ``cfg`` (:class:`puretree.builder`'s)
    and the split kinds ``kinds`` (``"threshold"``, ``"multiway"``, ``"subset"``, in the
    splitters' order), for :func:`puretree.growth.level.grow`. ``binned(column, j)``: each
    numeric feature ``j``'s values replaced by their bin's (histogram mode), thresholds then
    at the bins' values.
    """

    def __init__(self, ds: Dataset, cfg: Any, kinds: tuple[str, ...], *, binned: Callable[[np.ndarray, int], np.ndarray] | None = None, compiled: str = "auto") -> None:
        ctx = _Context(ds, cfg)
        ctx.screen = _screened(ds, cfg, kinds, ctx)
        if compiled != "never":
            ctx.compiled = _compiled(ds, cfg, kinds, ctx)
            if compiled == "required" and ctx.compiled is None:
                refuse_compiled(binned is not None)
        if binned is not None and ctx.q:
            ctx.binned = True
            ctx.Xn = np.ascontiguousarray(np.stack([binned(row, j) for row, j in zip(ctx.Xn, ctx.numeric.tolist())]).reshape(ctx.Xn.shape))
        y: Any = ds.y  # labelled data: not None
        n = ds.n_rows
        w = np.ones(n) if ds.sample_weight is None else np.asarray(ds.sample_weight, dtype=np.float64)
        if ctx.regression:
            rows_stats = node_statistics(ds)  # (w, w*y, w*y**2): three numbers a row
            stats, cls, k = rows_stats, None, 3
            integral = bool(np.all(rows_stats == np.floor(rows_stats)) and rows_stats.sum() < 2.0**52)
        else:
            # an instance is its class code and weight: a rows x classes array is never made
            stats, cls, k = None, np.asarray(y, dtype=np.int64), max(1, len(ds.schema.classes))
            integral = bool(np.all(w == np.floor(w)) and w.sum() < 2.0**52)
        ctx.k = k
        # int32 positions while they fit: the orders are the largest arrays
        ctx.index = np.int32 if n < 2**31 - 1 else np.int64
        orders: Any = None
        if ctx.compiled is not None:  # int32 orders: the kernel's; sorted once for an ensemble's members
            ctx.compiled._FITS[0] += 1
            orders = ctx.compiled.shared_orders(ds.X) if binned is None and ctx.q == ds.schema.n_features else None
            orders = ctx.compiled.sorted_columns(ctx.Xn) if orders is None else orders
        elif ctx.q:  # numpy's stable sorts, a feature per core (the kernel's library is not needed)
            orders = kernels.sorted_columns(ctx.Xn) if ctx.index is np.int32 else np.argsort(ctx.Xn, axis=1, kind="stable")
        else:
            orders = np.zeros((0, n), dtype=np.int64)
        st = _Level(np.arange(n), cls, w, stats, k, np.zeros(n, dtype=np.int64), orders, np.ones((1, len(ctx.categorical)), dtype=bool), 1, integral)
        if ctx.compiled is None and ctx.q and not ctx.numeric_missing:
            # numpy's scan reads each order's values at every level: carried in order (as much
            # memory again as the numeric columns) instead of gathered from the columns each time
            st.values = np.take_along_axis(ctx.Xn, orders, axis=1)
        # the reference's own sum: pairwise when there is one column (else bincount's, row by row)
        if stats is not None:
            st.node_stats[0] = stats.sum(axis=0)
        elif k == 1:
            st.node_stats[0, 0] = w.sum()
        self.ctx, self.cfg, self.kinds, self.st = ctx, cfg, kinds, st
        # thresholds on numeric features only (the categorical kinds find nothing without
        # categorical features), on classes, nothing to veto: split's short way
        self._thresholds_only = "threshold" in kinds and not ctx.categorical and not ctx.regression and not ctx.numeric_missing and cfg.accept is None and ctx.q > 0
        self._next: Any = None  # what split() decided, for advance()
        self._open = False  # whether split() left no child that closed() would close
        self._scratch: Any = None

    def rows(self) -> int:
        """The instances of the frontier."""
        return self.st.m

    def stats(self) -> np.ndarray:
        """The statistics of the frontier's nodes."""
        return self.st.node_stats

    def closed(self, depths: np.ndarray) -> np.ndarray:
        """The frontier's nodes that are leaves before any search: pure, too few rows, at
        ``max_depth``, or with nothing to split on."""
        st, cfg = self.st, self.cfg
        if self._open:  # split made leaves at once of the children that would close here
            return np.zeros(len(depths), dtype=bool)
        yv = self.ctx.y[st.row]
        leaf = (np.minimum.reduceat(yv, st.starts) == np.maximum.reduceat(yv, st.starts)) | (st.lens < cfg.min_samples_split)
        if cfg.max_depth is not None:
            leaf |= depths >= cfg.max_depth
        if self.ctx.q == 0:
            leaf |= ~st.usable.any(axis=1)
        return leaf

    def keep(self, keep: np.ndarray) -> None:
        """The frontier restricted to the nodes ``keep`` (a boolean mask)."""
        self.st = self.st.keep_nodes(keep)

    def split(self, depths: np.ndarray, allowed: np.ndarray | None, paths: Sequence[tuple[int, ...]] | None, n_made: int) -> list[Decision | None]:
        """Each node's decision: the best candidate per split kind chosen among the kinds
        (:func:`~puretree.growth.choose.among_kinds`), ``accept``'s veto, its children's
        statistics; every instance's branch is kept for :meth:`advance`. ``allowed``: the
        features each node may split on (feature subsampling); ``n_made``: the tree's nodes so far."""
        st, cfg, ctx, kinds = self.st, self.cfg, self.ctx, self.kinds
        k, N = ctx.k, st.n_nodes
        ctx.allowed = allowed  # drawn by the frontier loop from the nodes' paths
        self._open = False
        if self._thresholds_only:
            return self._split_thresholds(depths, n_made)
        cat = _categorical_candidates(st, cfg, ctx, kinds) if ctx.categorical and ("multiway" in kinds or "subset" in kinds) else {}
        found = [_numeric_candidates(st, cfg, ctx) if kind == "threshold" else cat.get(kind, _Best(N)) for kind in kinds]
        feats = np.stack([f.feature for f in found], axis=1)  # (N, kinds)
        has, choice = among_kinds(np.stack([f.score for f in found], axis=1), feats, cfg.min_gain)
        feature = feats[np.arange(N), choice]
        # -- the branch of every instance
        split = has.copy()
        if not split.any():
            return [None] * N
        inst_split = split[st.node]
        nb = np.zeros(N, dtype=np.int64)
        thresholds = np.zeros(N)
        left_sets: dict[int, tuple[int, ...]] = {}
        f_of = np.where(split, feature, 0)
        x = ctx.X[st.row, f_of[st.node]]
        branch = np.full(st.m, -1, dtype=np.int64)
        knownx = ~np.isnan(x)
        for c, kind in enumerate(kinds):
            sel = split & (choice == c)
            if not sel.any():
                continue
            mine = sel[st.node] & knownx
            if kind == "threshold":
                thresholds[sel] = found[c].threshold[sel]
                nb[sel] = 2
                branch[mine] = (x[mine] > thresholds[st.node[mine]]).astype(np.int64)
            elif kind == "multiway":
                cats = np.array([ctx.n_categories[ctx.categorical.index(int(f))] for f in feature[sel].tolist()], dtype=np.int64)
                nb[sel] = cats
                branch[mine] = x[mine].astype(np.int64)
            else:
                nb[sel] = 2
                width = max(ctx.n_categories)
                table = np.zeros((N, width), dtype=bool)
                for i in np.flatnonzero(sel).tolist():
                    left_sets[i] = found[c].left[i]
                    table[i, list(found[c].left[i])] = True
                branch[mine] = np.where(table[st.node[mine], x[mine].astype(np.int64)], 0, 1)
        offset = np.concatenate(([0], np.cumsum(nb)[:-1])).astype(np.int64)
        n_children = int(nb.sum())
        known_inst = inst_split & (branch >= 0)
        child_known = st.sums(offset[st.node[known_inst]] + branch[known_inst], known_inst, n_children)
        for c, kind in enumerate(kinds):
            for i, ch in found[c].children.items():
                if split[i] and choice[i] == c:
                    child_known[offset[i] : offset[i] + nb[i]] = ch  # the reference's own sums (subsets: a matrix product)
        if not ctx.regression:  # the children's class counts: refused before they are made
            check_tree_size(n_made + n_children, k, ctx.budget)
        absent = inst_split & (branch < 0)
        copies = inst_split.astype(np.int64)
        child_weight = ctx.task.weight(child_known)
        routed = child_known
        extra_node: list[np.ndarray] = []
        extra_src: list[np.ndarray] = []
        extra_scale: list[np.ndarray] = []
        if absent.any():
            a_idx = np.flatnonzero(absent)
            if cfg.missing == "majority":
                heavy = np.zeros(N, dtype=np.int64)
                for i in np.unique(st.node[a_idx]).tolist():
                    heavy[i] = int(np.argmax(child_weight[offset[i] : offset[i] + nb[i]]))
                branch[a_idx] = heavy[st.node[a_idx]]
                if cfg.accept is not None:
                    routed = st.sums(offset[st.node[inst_split]] + branch[inst_split], inst_split, n_children)
            elif cfg.missing == "distribute":
                copies[a_idx] = 0  # replaced by one copy per branch with known weight
                share_all = np.zeros(n_children)
                for i in np.unique(st.node[a_idx]).tolist():
                    wts = child_weight[offset[i] : offset[i] + nb[i]]
                    share_all[offset[i] : offset[i] + nb[i]] = wts / wts.sum()
                for b in range(int(nb.max())):
                    has_b = b < nb[st.node[a_idx]]
                    src = a_idx[has_b]
                    sh = share_all[offset[st.node[src]] + b]
                    src, sh = src[sh > 0], sh[sh > 0]
                    extra_src.append(src)
                    extra_node.append(offset[st.node[src]] + b)
                    extra_scale.append(sh)
                if cfg.accept is not None:
                    absent_stats = st.sums(st.node[a_idx], a_idx, N)
                    routed = child_known + share_all[:, None] * absent_stats[np.repeat(np.arange(N), nb)]
            else:  # pragma: no cover - missing="error" refused the data above
                raise DataError("missing value")
        if cfg.accept is not None:
            for i in np.flatnonzero(split).tolist():
                if not cfg.accept(st.node_stats[i], routed[offset[i] : offset[i] + nb[i]]):
                    split[i] = False
            if not split.all():
                dropped = ~split[st.node]
                copies[dropped] = 0
                keep_extra = [split[st.node[s]] for s in extra_src]
                extra_src = [s[kp] for s, kp in zip(extra_src, keep_extra)]
                extra_node = [s[kp] for s, kp in zip(extra_node, keep_extra)]
                extra_scale = [s[kp] for s, kp in zip(extra_scale, keep_extra)]
        # -- children that are leaves already (pure, too few rows, at max_depth), when their
        # counts are known exactly here (no missing value routed; sums in row order): their rows
        # leave now instead of being carried into the next frontier and compacted there
        early = np.zeros(n_children, dtype=bool)
        if not ctx.regression and not absent.any() and (st.integral or "subset" not in kinds):
            slot = offset[st.node] + branch
            in_split = copies > 0
            early, _ = _early(slot[in_split], child_known, cfg, depths, nb)
            if early.any():
                copies[in_split & early[np.where(in_split, slot, 0)]] = 0
        # -- the decisions: a child with instances grows on (None), the others are leaves
        pre_src = np.concatenate([np.flatnonzero(copies > 0)] + extra_src)
        pre_slot = np.concatenate([offset[st.node[copies > 0]] + branch[copies > 0]] + extra_node)
        pre_scale = np.concatenate([np.ones(int((copies > 0).sum()))] + extra_scale)
        occupied = np.zeros(n_children, dtype=bool)
        occupied[pre_slot] = True
        out: list[Decision | None] = []
        zeros = np.zeros(k)
        # each split's score as chosen and its node's weight (best-first growth ranks by them)
        chosen_score = np.stack([f.score for f in found], axis=1)[np.arange(N), choice].tolist()
        node_weight = weight_of(st.node_stats, ctx.regression).tolist()
        for i in range(N):
            if not split[i]:
                out.append(None)
                continue
            kd = kinds[choice[i]]
            slots = range(int(offset[i]), int(offset[i] + nb[i]))
            test = float(thresholds[i]) if kd == "threshold" else left_sets.get(i) if kd == "subset" else len(slots)
            out.append((int(feature[i]), TESTS[kd](test), [None if occupied[s] else child_known[s] if early[s] else zeros for s in slots], chosen_score[i], node_weight[i]))
        self._next = (pre_src, pre_slot, pre_scale, occupied, extra_src, nb, feature, choice, None)
        return out

    def _split_thresholds(self, depths: np.ndarray, n_made: int) -> list[Decision | None]:
        """:meth:`split` where every split is a threshold on a numeric feature without missing
        values, no ``accept`` vetoes and the statistics are classes (cart, random forests): the
        same decisions and the same instances moved, in fewer numpy calls (deep narrow trees
        pay this once per level)."""
        st, cfg, ctx = self.st, self.cfg, self.ctx
        k, N = ctx.k, st.n_nodes
        found = _numeric_candidates(st, cfg, ctx)
        has = found.score != -np.inf  # among_kinds with one kind
        if cfg.min_gain is not None:
            has &= found.score > cfg.min_gain
        if not has.any():
            return [None] * N
        node = st.node
        nb = has * 2
        offset = np.cumsum(nb) - nb
        n_children = int(nb[-1] + offset[-1])
        inst_split = has[node]
        x = ctx.X[st.row, np.where(has, found.feature, 0)[node]]
        slot = offset[node] + (x > found.threshold[node])
        in_slot = slot[inst_split]
        child_known = st.sums(in_slot, inst_split, n_children)
        check_tree_size(n_made + n_children, k, ctx.budget)  # the children's class counts: refused before they are made
        # children that are leaves already (pure, too few rows, at max_depth): their rows leave now
        # (as split decides it: with subset splits among the kinds, on integral statistics only)
        self._open = st.integral or "subset" not in self.kinds  # then every node of the next frontier is open
        if self._open:
            early, rows_in = _early(in_slot, child_known, cfg, depths, nb)
        else:
            early = np.zeros(n_children, dtype=bool)
        moved = inst_split.copy()
        moved[inst_split] = ~early[in_slot]
        pre_src = np.flatnonzero(moved)
        pre_slot = slot[pre_src]
        occupied = np.zeros(n_children, dtype=bool)
        occupied[pre_slot] = True
        out: list[Decision | None] = [None] * N
        zeros = np.zeros(k)
        occ, ear, feats, thr, offs = occupied.tolist(), early.tolist(), found.feature.tolist(), found.threshold.tolist(), offset.tolist()
        scores, weights = found.score.tolist(), st.node_stats.sum(axis=1).tolist()  # best-first growth ranks by them
        for i in np.flatnonzero(has).tolist():
            s = offs[i]
            out[i] = (feats[i], trusted_threshold(thr[i]), [None if occ[b] else child_known[b] if ear[b] else zeros for b in (s, s + 1)], scores[i], weights[i])
        # the next frontier's rows and class sums, added in its order: known here
        known = (rows_in[occupied], child_known[occupied], st.unit) if self._open else None
        self._next = (pre_src, pre_slot, None, occupied, [], nb, found.feature, np.full(N, self.kinds.index("threshold")), known)  # None: every copy whole
        return out

    def advance(self) -> None:
        """The next frontier: the instances moved to the children :meth:`split` opened (in
        the order of their slots), sorted by (node, row); the orders stably partitioned."""
        st, ctx, kinds = self.st, self.ctx, self.kinds
        pre_src, pre_slot, pre_scale, occupied, extra_src, nb, feature, choice, known = self._next
        self._next = None
        N = st.n_nodes
        child_of = np.full(len(occupied), -1, dtype=np.int64)  # child slot -> next frontier's node index
        child_of[occupied] = np.arange(int(occupied.sum()))
        new_node = child_of[pre_slot]
        n_next = int(occupied.sum())
        if extra_src and any(len(e) for e in extra_src):
            perm = np.lexsort((st.row[pre_src], new_node))
            integral = False
        else:
            perm = np.argsort(new_node.astype(np.uint16) if n_next < 2**16 else new_node, kind="stable")
            integral = st.integral
        new_id_of_pre = np.empty(len(perm), dtype=np.int64)
        new_id_of_pre[perm] = np.arange(len(perm))
        src = pre_src[perm]
        row = st.row[src]
        new_cls, new_w, new_stats = st.take(src, None if pre_scale is None else pre_scale[perm])
        nn = new_node[perm]
        # usable categorical features: the parent's, less a multiway split's feature
        parent_of_next = np.repeat(np.arange(N), nb)[occupied]
        usable = st.usable[parent_of_next].copy()
        if "multiway" in kinds and ctx.categorical:
            multi = np.array([kinds[c] == "multiway" for c in choice.tolist()])[parent_of_next]
            fpar = feature[parent_of_next]
            for jj, j in enumerate(ctx.categorical):
                usable[multi & (fpar == j), jj] = False
        scratch: list[np.ndarray] = []
        new_values = None
        if ctx.q:
            once = not (extra_src and any(len(e) for e in extra_src)) or len(pre_src) == len(np.unique(pre_src))
            if once:  # one copy at most per old instance: map, drop, then partition
                new_id_of_old = np.full(st.m, -1, dtype=ctx.index)
                new_id_of_old[pre_src] = new_id_of_pre
                scratch.append(new_id_of_old)
            paired = None
            if once and ctx.compiled is not None:
                # renumbered and stably partitioned by the new nodes, one pass per feature
                new_orders = ctx.compiled.partition_level(st.orders, new_id_of_old, nn, n_next)
            elif once and n_next > 1:
                paired = _partition_pairs(st.orders, new_id_of_old, nn, parent_of_next, st.node, N, st.values)
            if paired is not None:
                new_orders, new_values = paired
            elif not (once and ctx.compiled is not None):
                if once:
                    mapped = np.take(new_id_of_old, st.orders)
                    kept = mapped >= 0
                    new_orders = mapped if kept.all() else mapped[kept].reshape(ctx.q, -1)
                    del mapped, kept
                else:
                    # each old instance's copies, in the old orders' positions
                    n_copies = np.bincount(pre_src, minlength=st.m)
                    order_pre = np.argsort(pre_src, kind="stable")  # pre-instances grouped by source
                    first_pre_sorted = np.concatenate(([0], np.cumsum(n_copies)[:-1]))
                    cnt = n_copies[st.orders].ravel()
                    base = np.repeat(first_pre_sorted[st.orders].ravel(), cnt)
                    within = np.arange(len(base)) - np.repeat(np.cumsum(cnt) - cnt, cnt)
                    new_orders = new_id_of_pre[order_pre[base + within]].reshape(ctx.q, -1)
                # a stable partition by new node: radix sort on 16-bit keys when they fit; row by
                # row on large data, so that the temporaries stay the size of one feature's order
                if n_next > 1:
                    small = n_next < 2**16
                    step = max(1, (_CHUNK // 4) // max(1, new_orders.shape[1]))
                    for a in range(0, ctx.q, step):
                        keys = nn[new_orders[a : a + step]]
                        part = np.argsort(keys.astype(np.uint16) if small else keys, axis=1, kind="stable")
                        new_orders[a : a + step] = np.take_along_axis(new_orders[a : a + step], part, axis=1)
                    scratch += [keys, part]
        else:
            new_orders = np.zeros((0, len(row)), dtype=np.int64)
        del st
        self.st = None  # type: ignore[assignment]  # the old frontier's orders go before the new one's sums are made
        self.st = _Level(row, new_cls, new_w, new_stats, ctx.k, nn, new_orders, usable, n_next, integral, known)
        self.st.values = new_values
        # The move's largest scratch arrays live until the next move: freed at once, the
        # allocator hands their pages back to the system and the next frontier's search faults
        # them in again (measured on 30,000 x 20: 14% more page faults, 8% more time).
        self._scratch = scratch


#: The compiled scan's Gini ranking and the reference's segmented sums, for the sources built on
#: this one (:mod:`puretree.growth.bounds`).
gini_rank = _rank
segmented_cumsum = _segmented_cumsum
