"""The level-wise growth engine: the same trees as :func:`puretree.grow.grow`, grown a level at a time.

:func:`puretree.grow.grow` is the specification: a recursive function that hands each node
its rows and asks the split generators for the best candidate. This module grows the very
same tree (same splits, same thresholds, same counts) without a Python call per node and
without copying any ancestor's arrays:

1. **Instances.** Every row reaching the current level is an *instance*: its original row,
   its statistics (weighted one-hot class counts, or ``(w, w*y, w*y**2)``) and the node of
   the level it sits in. Instances are kept sorted by (node, original row), so the rows of a
   node form a contiguous *segment* in the order the reference sees them. A row with a
   missing value that ``missing="distribute"`` sends down several branches becomes several
   instances, each with its fractional weight.
2. **One presorted order per numeric feature** (``orders``, shaped ``(features, instances)``)
   is computed once at the root by a stable argsort and afterwards only *stably partitioned*
   by the instances' new node ids: each segment of each order stays sorted by the feature's
   value (NaN last, equal values in row order), exactly the order the reference's
   ``NodeData.restrict`` keeps.
3. **Per-node statistics by segmented sums**: ``np.bincount`` over node ids, which adds in
   row order, so a node's counts are bit for bit the reference's ``stats.sum(axis=0)``.
4. **Every threshold of every node and feature of the level is scored together**: the
   sorted statistics are cumulated within segments (exactly, segment by segment, when the
   statistics are not integers), the candidate positions between distinct values are
   gathered, and the user's score is called once per chunk of features with ``parent``
   shaped ``(M, k)`` and ``children`` shaped ``(M, 2, k)``; every call of a score goes
   through :func:`_score`. Categorical features are scored per level too: one-branch-per-
   category splits with one call per feature (``children`` shaped ``(nodes, categories,
   k)``); subset splits (CART) enumerate each node's present categories as the reference does.
5. **Lone nodes.** Deep narrow trees (a chain has one node per level) would pay the level
   machinery for one node at a time; a level whose frontier is a single small node hands it
   to the reference's own split generators (the node's instances are already its rows in row
   order and the orders their sorted positions), and children known to be leaves (pure, too
   few rows, at ``max_depth``) leave the level's arrays at once.
6. **Ties** are broken as the reference breaks them (:data:`~puretree.grow.TIE_TOLERANCE`,
   then the lowest threshold, then the lowest feature index), over the same numbers.
7. **The tree** is assembled bottom-up from the per-level records once growth stops.

**The compiled kernel.** Classification with the built-in Gini score on numeric features
without missing values (``cart``'s common case) is handed whole to :mod:`puretree.kernels`
(C, compiled with the package), which grows the same tree level by level (see
:func:`_kernel_applies`); ``grow(..., engine="numpy")`` (or ``PURETREE_ENGINE=numpy``), or a
package built without a C compiler, keeps everything here, and ``engine="c"`` insists on the kernel.

Memory is a small multiple of the data whatever the depth: the instances of one level, the
orders (int32), one chunk of sorted statistics (at most ``_CHUNK`` floats) and one slice of
candidates handed to the score (at most ``_SCORE_CHUNK``). A level costs
``O(instances x features)`` numpy work plus a few dozen numpy calls, so a chain 10,000 levels
deep costs 10,000 small levels, not 10,000 copies of the data.

Equality with the reference: on unweighted classification data every statistic is an integer
and every sum exact, so the trees are ``==``. Regression statistics and fractional weights
are summed in the reference's order wherever that order is defined (node counts, the
cumulative sums along a sorted feature, category sums); the remaining differences (the sum
of the known rows of a node with missing values, subset sums computed by a matrix product)
are a few ulps, and only change a split when two candidates' scores lie within those ulps of
the edge of :data:`~puretree.grow.TIE_TOLERANCE` of each other.

>>> from puretree.datasets import load_playtennis
>>> from puretree.grow import id3
>>> id3(load_playtennis(), engine="fast") == id3(load_playtennis(), engine="reference")
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .data import Dataset
from .errors import DataError
from .nodes import Leaf, Multiway, Node, Split, Subset, Threshold
from .tasks import as_task

__all__ = ["build", "supports", "assemble_arrays", "quantile_bins", "edge_bins", "check_bins", "ENGINES"]

#: The values of ``grow(..., engine=...)``: ``"auto"`` uses the level-wise engines when they support
#: the splitters given (the compiled kernel where it applies, else numpy); ``"fast"`` insists on
#: them; ``"c"`` on the compiled kernel; ``"numpy"`` on the level-wise engine without the kernel;
#: ``"reference"`` runs the recursive builder. ``$PURETREE_ENGINE`` chooses for ``"auto"``.
ENGINES = ("auto", "c", "numpy", "fast", "reference")

#: Largest number of floats one chunk of sorted statistics holds (memory bound, as the reference).
_CHUNK = 4_000_000
#: Largest number of candidate splits handed to a score at once.
_SCORE_CHUNK = 100_000
#: A lone node of at most this many sorted statistics (rows x numeric features x k) is
#: searched by the reference's split generators (fewer numpy calls); larger ones by the
#: level machinery, whose chunks bound memory more tightly.
_SINGLE_NODE_MAX = 1_000_000


def _kinds() -> dict[Any, str]:
    from .splits import multiway_splits, subset_splits, threshold_splits

    return {threshold_splits: "threshold", multiway_splits: "multiway", subset_splits: "subset"}


def supports(splitters: Any) -> bool:
    """Whether the fast engine knows every split generator given (each at most once).

    >>> from puretree.grow import threshold_splits, subset_splits
    >>> supports((threshold_splits, subset_splits)), supports((lambda node, **kw: None,))
    (True, False)
    """
    known = _kinds()
    kinds = [known.get(s) for s in splitters]
    return None not in kinds and len(set(kinds)) == len(kinds)


def _score(score: Any, parent: np.ndarray, children: np.ndarray, names: Any) -> np.ndarray:
    """Every call of a user's score goes through here: ``parent`` (..., k), ``children``
    (..., b, k), ``names`` broadcastable to (...); returns float64 scores shaped (...)."""
    return np.broadcast_to(np.asarray(score(parent, children, names), dtype=np.float64), children.shape[:-2])


def _first_tied(scores: np.ndarray) -> np.ndarray:
    """Row-wise :func:`puretree.splits.tie_first`: the first column within tolerance of the row's best."""
    from .splits import TIE_TOLERANCE

    best = scores.max(axis=-1)
    with np.errstate(invalid="ignore"):
        tol = TIE_TOLERANCE * np.maximum(1.0, np.abs(best))
        return np.argmax(scores >= (best - tol)[..., None], axis=-1)


def _seq_sum(a: np.ndarray, axis: int) -> np.ndarray:
    """Sum along ``axis`` adding in index order (numpy's ``sum(axis=0)`` over rows of several columns)."""
    a = np.moveaxis(a, axis, 0)
    if a.shape[0] == 0:
        return np.zeros(a.shape[1:])
    out = a[0].copy()
    for i in range(1, a.shape[0]):
        out += a[i]
    return out


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


def _refuse_missing(ds: Dataset) -> None:
    from .splits import refuse_missing  # one message for both builders

    refuse_missing(ds)


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
        self.branch: np.ndarray | None = None  # every instance's branch (single-node levels)


def _numeric_candidates(st: "_Level", cfg: Any, ctx: "_Context") -> _Best:
    """Best threshold split per node over all numeric features (threshold_splits)."""
    from .splits import TIE_TOLERANCE, variance_decrease

    N, q = st.n_nodes, ctx.q
    out = _Best(N)
    m = st.m
    if q == 0 or m < 2:
        return out
    k = ctx.k
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
    seg_first = np.zeros(m, dtype=bool)
    seg_first[starts] = True
    for start in range(0, q, chunk) if ctx.numeric_missing else ():
        idx = st.orders[start : start + chunk]
        rows = st.row[idx]
        V = np.take_along_axis(ctx.Xn[start : start + chunk], rows, axis=1)
        nan = np.isnan(V)
        if nan.any():
            incomplete |= np.bitwise_or.reduceat(nan.any(axis=0), starts)
    for start in range(0, q, chunk):
        c = min(chunk, q - start)
        idx = st.orders[start : start + c]
        V = np.take_along_axis(ctx.Xn[start : start + c], st.row[idx], axis=1)  # (c, m)
        # runs pay when values repeat (digits: 17 values); on continuous data one cumsum is cheaper
        if runs and np.count_nonzero(V[:, 1:] != V[:, :-1]) < 0.5 * V.size:
            fp, pp, left = _run_prefix_sums(V, idx, st, ctx, seg_first)
            n_known = np.broadcast_to(lens, (c, N))
            if cfg.min_samples_leaf > 1 and len(fp):
                n_left = pos_in_seg[pp] + 1
                ok = (n_left >= cfg.min_samples_leaf) & (lens[node_at[pp]] - n_left >= cfg.min_samples_leaf)
                fp, pp, left = fp[ok], pp[ok], left[ok]
            if len(fp) == 0:
                continue
            L: Any = None
        else:
            S = st.stats[idx]  # (c, m, k)
            if st.integral:
                # integer statistics: one cumsum per feature; each segment's offset is
                # subtracted at the candidates only (exact)
                C = np.cumsum(S, axis=1)
                off = np.zeros((c, N, k))
                inner = starts > 0
                off[:, inner] = C[:, starts[inner] - 1]
                L = _Offset(C, off, node_at)
            else:
                L = _segmented_cumsum(S, starts, lens)
            del S
            valid = (V[:, :-1] < V[:, 1:]) & not_last  # between distinct values of one segment
            if ctx.numeric_missing:
                n_known = np.add.reduceat(~np.isnan(V), starts, axis=1)  # (c, N)
            else:
                n_known = np.broadcast_to(lens, (c, N))
            if cfg.min_samples_leaf > 1:
                n_left = pos_in_seg[:-1] + 1
                valid &= (n_left >= cfg.min_samples_leaf) & (n_known[:, node_at[:-1]] - n_left >= cfg.min_samples_leaf)
            if valid.sum() > 0.5 * valid.size:
                # most positions are candidates (continuous values): score them all in place,
                # without gathering the candidates first
                _dense_candidates(V, L, valid, start, cfg, ctx, st, incomplete, n_known, total, fs, fa, fb)
                continue
            fp, pp = np.nonzero(valid)
            if len(fp) == 0:
                continue
            left = L[fp, pp]
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
        if ctx.variance_decrease:
            s = variance_decrease(parent, left)
        else:
            # scored in slices of at most _SCORE_CHUNK candidates: a score's temporaries are
            # several times its input, and bound the peak memory of a level
            s = np.empty(len(fp))
            for a in range(0, len(fp), _SCORE_CHUNK):
                b = min(len(fp), a + _SCORE_CHUNK)
                par = parent if one else parent[a:b]
                children = np.empty((b - a, 2, k))
                children[:, 0] = left[a:b]
                right = children[:, 1]
                np.subtract(par, left[a:b], out=right)
                if not ctx.regression:
                    np.maximum(right, 0.0, out=right)
                f0, f1 = fp[a], fp[b - 1]
                names = np.broadcast_to(ctx.numeric_names[start + f0], (b - a,)) if f0 == f1 else ctx.numeric_names[start + fp[a:b]]
                s[a:b] = _score(cfg.score, par, children, names)
                del children, right
        inc = incomplete[nodes]
        if one and inc.any():
            parent = np.broadcast_to(parent, left.shape)
        if inc.any():
            w = parent[:, 0] if ctx.regression else parent.sum(axis=-1)
            t = total[nodes]
            with np.errstate(invalid="ignore", divide="ignore"):
                frac = np.where(t > 0, w / np.where(t > 0, t, 1.0), 0.0)
                s = np.where(inc, s * frac, s)
        s = np.where(np.isnan(s), -np.inf, s)
        if fp[0] == fp[-1] and nodes[0] == nodes[-1]:
            # one (node, feature) group: the reference's own search
            best = s.max()
            tol = TIE_TOLERANCE * max(1.0, abs(best) if np.isfinite(best) else 0.0)
            i = int(np.argmax(s >= best - tol))
            fs[nodes[0], start + fp[0]] = s[i]
            fa[nodes[0], start + fp[0]] = V[fp[0], pp[i]]
            fb[nodes[0], start + fp[0]] = V[fp[0], pp[i] + 1]
            continue
        group = fp * N + nodes  # non-decreasing: nonzero walks (feature, position)
        g_start = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        g_best = np.maximum.reduceat(s, g_start)
        g_of = np.repeat(np.arange(len(g_start)), np.diff(np.r_[g_start, len(group)]))
        g_tol = TIE_TOLERANCE * np.maximum(1.0, np.abs(np.where(np.isfinite(g_best), g_best, 0.0)))
        ok = np.flatnonzero(s >= (g_best - g_tol)[g_of])
        pick = ok[np.r_[True, g_of[ok][1:] != g_of[ok][:-1]]]  # first near-best threshold per group
        pf, pn, pp_ = fp[pick], nodes[pick], pp[pick]
        fs[pn, start + pf] = s[pick]
        fa[pn, start + pf] = V[pf, pp_]
        fb[pn, start + pf] = V[pf, pp_ + 1]
    if ctx.allowed is not None:  # feature subsampling: each node's drawn features only
        fs[~ctx.allowed[:, ctx.numeric]] = -np.inf
    has = ~np.isneginf(fs).all(axis=1)
    if has.any():
        rows_ = np.flatnonzero(has)
        at = _first_tied(fs[rows_])
        out.score[rows_] = fs[rows_, at]
        out.feature[rows_] = ctx.numeric[at]
        a, b = fa[rows_, at], fb[rows_, at]
        mid = a / 2.0 + b / 2.0  # grow.midpoint, elementwise
        # binned: values are their bin's largest training value, the cut goes right above it
        out.threshold[rows_] = a if ctx.binned else np.where((a <= mid) & (mid < b), mid, a)
    return out


def _dense_candidates(V: np.ndarray, L: Any, valid: np.ndarray, start: int, cfg: Any, ctx: "_Context", st: "_Level", incomplete: np.ndarray, n_known: np.ndarray, total: np.ndarray, fs: np.ndarray, fa: np.ndarray, fb: np.ndarray) -> None:
    """Every position of every segment of a chunk of features scored, invalid ones set to
    -inf, and each (node, feature)'s first near-best threshold found by segmented reductions;
    the same choice as the gathered path, with sequential passes only."""
    from .splits import TIE_TOLERANCE, variance_decrease

    c, m = V.shape
    k = ctx.k
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
    if ctx.variance_decrease:
        s[:, :-1] = variance_decrease(parent, left)
    else:
        step = max(1, _SCORE_CHUNK // max(1, m - 1))
        for a in range(0, c, step):
            b = min(c, a + step)
            children = np.empty((b - a, m - 1, 2, k))
            children[:, :, 0] = left[a:b]
            right = children[:, :, 1]
            np.subtract(parent[a:b], left[a:b], out=right)
            if not ctx.regression:
                np.maximum(right, 0.0, out=right)
            names = ctx.numeric_names[start + a : start + b, None]  # (features, 1), as the reference passes them
            s[a:b, :-1] = _score(cfg.score, parent[a:b], children, names)
            del children, right
    if incomplete.any():
        inc = np.repeat(incomplete, lens)[:-1]
        w = parent[..., 0] if ctx.regression else parent.sum(axis=-1)
        t = np.repeat(total, lens)[:-1]
        with np.errstate(invalid="ignore", divide="ignore"):
            frac = np.where(t > 0, w / np.where(t > 0, t, 1.0), 0.0)
            s[:, :-1] = np.where(inc, s[:, :-1] * frac, s[:, :-1])
    body = s[:, :-1]
    body[~valid | np.isnan(body)] = -np.inf
    best = np.maximum.reduceat(s, starts, axis=1)  # (c, N)
    tol = TIE_TOLERANCE * np.maximum(1.0, np.abs(np.where(np.isfinite(best), best, 0.0)))
    ok = s >= np.repeat(best - tol, lens, axis=1)
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


def _categorical_candidates(st: "_Level", cfg: Any, ctx: "_Context", kinds: tuple[str, ...]) -> dict[str, _Best]:
    """Best multiway and subset splits per node, one pass over each categorical feature."""
    from .splits import tie_first

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
        column = ctx.X[st.row, j]
        known = ~np.isnan(column)
        key = st.node[known] * mj + column[known].astype(np.int64)
        per = _segment_sums(key, st.stats[known], N * mj).reshape(N, mj, k)
        rows = np.bincount(key, minlength=N * mj).reshape(N, mj)
        known_sum = _seq_sum(per, axis=1)
        present = rows > 0
        n_present = present.sum(axis=1)
        ok = usable & (n_present >= 2)
        name = np.asarray(ctx.feature_names[j])
        if want_multi:
            elig = ok & ~((rows < cfg.min_samples_leaf) & present).any(axis=1)
            e = np.flatnonzero(elig)
            if len(e):
                s = _score(cfg.score, known_sum[e], per[e], name)
                same = (known_sum[e] == st.node_stats[e]).all(axis=-1)
                w = known_sum[e][:, 0] if ctx.regression else known_sum[e].sum(axis=-1)
                with np.errstate(invalid="ignore", divide="ignore"):
                    frac = np.where(total[e] > 0, w / np.where(total[e] > 0, total[e], 1.0), 0.0)
                    s = np.where(same, s, s * frac)
                ms[e, jj] = np.where(np.isfinite(s), s, -np.inf)
        if want_subset:
            for i in np.flatnonzero(ok).tolist():
                hit = _subset_one(per[i], rows[i], known_sum[i], st.node_stats[i], cfg, ctx, name)
                if hit is not None:
                    score, left_codes, children = hit
                    sub_found[i].append((score, int(j), left_codes, children))
    out: dict[str, _Best] = {}
    if want_multi:
        best = _Best(N)
        has = ~np.isneginf(ms).all(axis=1)
        if has.any():
            r = np.flatnonzero(has)
            at = _first_tied(ms[r])
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


def _subset_one(per: np.ndarray, rows: np.ndarray, known: np.ndarray, parent: np.ndarray, cfg: Any, ctx: "_Context", name: Any) -> tuple[float, tuple[int, ...], np.ndarray] | None:
    """One node's best subset split of one feature, as :func:`puretree.splits.subset_splits` finds it."""
    from .splits import subset_candidates, tie_first  # the same candidates as the reference

    regression = ctx.regression
    present = np.flatnonzero(rows > 0)
    stats = per[present]
    masks = subset_candidates(stats, present, known, task=ctx.task)
    left = masks.astype(np.float64) @ stats
    right = known - left
    if not regression:
        np.maximum(right, 0.0, out=right)
    children = np.stack((left, right), axis=-2)
    s = _score(cfg.score, known, children, name)
    if not np.array_equal(known, parent):
        total = float(parent[0] if regression else parent.sum(axis=-1))
        frac = (known[0] if regression else known.sum(axis=-1)) / total if total > 0 else 0.0
        s = s * frac
    if cfg.min_samples_leaf > 1:
        n_left = masks.astype(np.int64) @ rows[present]
        n_right = int(rows.sum()) - n_left
        s = np.where((n_left >= cfg.min_samples_leaf) & (n_right >= cfg.min_samples_leaf), s, -np.inf)
    s = np.where(np.isnan(s), -np.inf, s)
    if np.isneginf(s).all():
        return None
    b = tie_first(s)
    return float(s[b]), tuple(int(c) for c in present[masks[b]]), children[b]


class _Through:
    """A score called through :func:`_score`, for the reference's split generators."""

    def __init__(self, score: Any) -> None:
        self.score = score

    def __call__(self, parent: Any, children: Any, features: Any = None) -> np.ndarray:
        return _score(self.score, np.asarray(parent, dtype=np.float64), np.asarray(children, dtype=np.float64), features)


def _single_node(st: "_Level", cfg: Any, ctx: "_Context", kinds: tuple[str, ...], depth: int) -> list[_Best]:
    """A frontier of one node (deep narrow trees: a chain has one per level): the reference's
    own split generators on the node's rows, which already come in the order they expect
    (instances are the node's rows in row order, the orders their positions). Fewer numpy
    calls than the level machinery, and the very numbers of the reference."""
    import attrs as _attrs

    from .splits import NodeData, best_candidate

    V = np.take_along_axis(ctx.Xn, st.row[st.orders], axis=1) if ctx.q else np.zeros((0, st.m))
    node = NodeData(
        X=ctx.X[st.row],
        y=ctx.y[st.row],
        stats=st.stats,
        order=st.orders,
        values=V,
        numeric=ctx.numeric,
        categorical=tuple(j for j, u in zip(ctx.categorical, st.usable[0].tolist()) if u),
        schema=ctx.schema,
        depth=depth,
        path=ctx.paths[0] if ctx.paths else (),
    )
    # The variance shortcut of threshold_splits recognises the score itself; other scores
    # are called through _score.
    score = cfg.score if ctx.variance_decrease else _Through(cfg.score)
    cand = best_candidate(node, _attrs.evolve(cfg, score=score))
    found = [_Best(1) for _ in kinds]
    if cand is not None:
        b = found[kinds.index(cand.kind)]
        b.score[0], b.feature[0] = cand.score, cand.feature
        if cand.kind == "threshold":
            b.threshold[0] = cand.threshold
        elif cand.kind == "subset":
            b.left[0] = tuple(int(c) for c in cand.left_categories)
        b.children[0] = cand.children
        b.branch = cand.branch.astype(np.int64)
    return found


class _Context:
    """What stays fixed while a tree grows."""

    def __init__(self, ds: Dataset, cfg: Any) -> None:
        from .criteria import ImpurityDecrease
        from .impurity import variance

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
        #: Feature subsampling: the features each node of the level may split on (None: all),
        #: and the nodes' paths from the root, which key their generators.
        self.allowed: np.ndarray | None = None
        self.paths: list[tuple[int, ...]] = []


class _Level:
    """The instances of one level: rows, statistics and node (sorted by node, then row), the
    per-feature orders, and the per-node statistics (``node_stats``) and usable categorical features."""

    def __init__(self, row: np.ndarray, stats: np.ndarray, node: np.ndarray, orders: np.ndarray, usable: np.ndarray, n_nodes: int, integral: bool) -> None:
        self.row, self.stats, self.node, self.orders, self.usable = row, stats, node, orders, usable
        self.n_nodes, self.integral = n_nodes, integral
        self.m = len(row)
        self.lens = np.bincount(node, minlength=n_nodes)
        self.starts = np.concatenate(([0], np.cumsum(self.lens)[:-1])).astype(np.int64)
        self.node_stats = _segment_sums(node, stats, n_nodes)
        self._cls: np.ndarray | None = None

    @property
    def cls(self) -> np.ndarray:
        """Class code of each instance (classification), from its one-hot statistics."""
        if self._cls is None:
            self._cls = np.argmax(self.stats, axis=1)
        return self._cls

    @property
    def w(self) -> np.ndarray:
        if getattr(self, "_w", None) is None:
            self._w = self.stats.sum(axis=1)
        return self._w

    @property
    def unit(self) -> bool:
        """Whether every instance weighs exactly 1 (counts by rows)."""
        if getattr(self, "_unit", None) is None:
            self._unit = bool(np.all(self.w == 1.0))
        return self._unit

    def keep_nodes(self, keep: np.ndarray) -> "_Level":
        """The level restricted to the nodes ``keep`` (a boolean mask), renumbered in order."""
        inst = keep[self.node]
        new_id = np.cumsum(inst) - 1
        new_node = np.cumsum(keep) - 1
        q = self.orders.shape[0]
        orders = self.orders
        if q and self.m:
            # every order holds the same instances grouped by node, so one mask serves all rows
            orders = self.orders[inst[self.orders]].reshape(q, int(inst.sum()))
            np.take(new_id.astype(orders.dtype), orders, out=orders)
        lv = _Level.__new__(_Level)
        lv.row, lv.stats, lv.node = self.row[inst], self.stats[inst], new_node[self.node[inst]]
        lv.orders, lv.usable, lv.n_nodes, lv.integral = orders, self.usable[keep], int(keep.sum()), self.integral
        lv.m = len(lv.row)
        lv.lens, lv.node_stats = self.lens[keep], self.node_stats[keep]
        lv._cls = None if self._cls is None else self._cls[inst]
        lv.starts = np.concatenate(([0], np.cumsum(lv.lens)[:-1])).astype(np.int64)
        return lv


def quantile_bins(column: np.ndarray, max_bins: int) -> np.ndarray:
    """Each value replaced by the largest training value of its quantile bin (NaN stays NaN).

    At most ``max_bins`` distinct values remain, so a split can only fall between bins; as a
    bin's values all lie at or below its largest one, the cut ``x <= that value`` sends every
    training row where its bin went.

    >>> quantile_bins(np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, np.nan]), 3).tolist()
    [2.0, 2.0, 4.0, 4.0, 6.0, 6.0, nan]
    >>> quantile_bins(np.array([5.0, 1.0, 5.0]), 10).tolist()     # fewer values than bins: unchanged
    [5.0, 1.0, 5.0]
    """
    out = column.copy()
    known = ~np.isnan(column)
    values = np.unique(column[known])
    if len(values) <= max_bins:
        return out
    # cut points: the values at the inner quantiles of the known rows (an order statistic each)
    cuts = np.unique(np.quantile(column[known], np.arange(1, max_bins) / max_bins, method="inverted_cdf"))
    bin_of = np.searchsorted(cuts, column[known], side="left")  # x <= cuts[b] -> bin b
    top = np.full(len(cuts) + 1, -np.inf)
    np.maximum.at(top, bin_of, column[known])
    out[known] = top[bin_of]
    return out


def edge_bins(column: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Each value replaced by the upper edge of its bin, given the bins' upper edges (sorted):
    the first edge at or above it; a value above the last edge goes to the last bin. NaN stays NaN.

    So ``x <= edges[b]`` holds exactly for the values of bins ``0..b``, and a tree grown on the
    binned values, whose thresholds are edges, sends every raw value where its bin went.

    >>> edge_bins(np.array([0.5, 1.0, 1.5, 3.0, 9.0, np.nan]), np.array([1.0, 2.0, 3.0])).tolist()
    [1.0, 1.0, 2.0, 3.0, 3.0, nan]
    """
    out = column.copy()
    known = ~np.isnan(column)
    out[known] = edges[np.minimum(np.searchsorted(edges, column[known], side="left"), len(edges) - 1)]
    return out


def check_bins(bins: Any, schema: Any) -> tuple[np.ndarray | None, ...]:
    """``bins`` (one array of upper bin edges per feature, as :func:`puretree.dask.bin_edges`
    gives) checked against ``schema``: one entry per feature, a numeric feature's strictly
    increasing finite numbers (a categorical feature's entry is ignored: ``None``).

    >>> from puretree.nodes import Feature, Schema
    >>> check_bins([[1, 2]], Schema((Feature("a"),), ("n", "y")))
    (array([1., 2.]),)
    >>> check_bins([[2, 1]], Schema((Feature("a"),), ("n", "y")))
    Traceback (most recent call last):
    ...
    puretree.errors.ParameterError: bins for feature 'a' must be strictly increasing finite numbers (the bins' upper edges), got [2.0, 1.0]
    """
    from .errors import ParameterError

    if isinstance(bins, (str, bytes)) or not hasattr(bins, "__len__") or len(bins) != schema.n_features:
        raise ParameterError(f"bins must hold one array of bin edges per feature ({schema.n_features}), got {bins!r:.200}")
    out: list[np.ndarray | None] = []
    for f, edges in zip(schema.features, bins):
        if not f.is_numeric:
            out.append(None)
            continue
        try:
            e = np.array(edges, dtype=np.float64).reshape(-1) if np.ndim(edges) == 1 else None
        except (TypeError, ValueError):
            e = None
        if e is None or len(e) == 0 or not np.isfinite(e).all() or not (np.diff(e) > 0).all():
            shown = e.tolist()[:10] if e is not None else edges
            raise ParameterError(f"bins for feature {f.name!r} must be strictly increasing finite numbers (the bins' upper edges), got {shown!r:.200}")
        out.append(e)
    return tuple(out)


def _kernels() -> Any:
    """:mod:`puretree.kernels` if its compiled library loads here (checked on first use), else ``None``."""
    from . import kernels

    return kernels if kernels.AVAILABLE and kernels.library() is not None else None


def _kernel_applies(ds: Dataset, cfg: Any) -> bool:
    """Whether the compiled kernel grows this fit: classification on numeric features without
    missing values, the built-in Gini impurity decrease, the built-in threshold splits (other
    built-in generators find nothing without categorical features), no ``accept`` hook, and
    weights whose squares stay finite and normal (the reference's rescaling of huge counts never
    applies, and the kernel's ranking keeps its precision)."""
    from .criteria import ImpurityDecrease
    from .impurity import gini

    schema = ds.schema
    if schema.is_regression or cfg.accept is not None or not schema.features or not all(f.is_numeric for f in schema.features):
        return False
    if not (isinstance(cfg.score, ImpurityDecrease) and cfg.score.impurity is gini):
        return False
    if "threshold" not in {_kinds()[s] for s in cfg.splitters}:
        return False
    kernels = _kernels()
    if kernels is None or max(1, len(schema.classes)) > kernels.MAX_CLASSES or not 0 < ds.n_rows <= kernels.MAX_ROWS:
        return False
    if getattr(cfg, "max_features", None) is not None and len(schema.features) > kernels.MAX_DRAW:
        return False  # numpy draws from so many features another way
    # weights of zero (rows left out of a bootstrap sample) add exactly nothing; others must
    # keep their squares normal floats
    w = ds.sample_weight
    if w is not None and not (float(w.sum()) < kernels.MAX_WEIGHT and float(np.min(w, initial=np.inf, where=w != 0)) >= kernels.MIN_WEIGHT):
        return False
    return not _any_nan(ds.X)


def _refuse_kernel(ds: Dataset, cfg: Any, *, histogram: bool) -> None:
    """Why ``engine="c"`` cannot grow this fit, as a :class:`~puretree.errors.ParameterError`."""
    from .errors import ParameterError

    if _kernels() is None:
        from . import kernels

        raise ParameterError(f"engine='c' needs puretree's compiled kernel, which is unavailable here ({kernels.unavailable_reason() or 'disabled'}); {kernels.REMEDY}")
    raise ParameterError(
        "engine='c' grows classification trees with the built-in Gini score and threshold splits on numeric features without missing values, "
        f"at most {_kernels().MAX_CLASSES} classes, no accept hook, no histogram mode{' (max_bins or bins was given)' if histogram else ''}; "
        "this fit is outside that: use engine='auto' or 'numpy'"
    )


def _any_nan(X: np.ndarray) -> bool:
    """Whether ``X`` holds a NaN, a block of rows at a time (no temporary the size of ``X``)."""
    step = max(1, _CHUNK // max(1, X.shape[1]))
    return any(bool(np.isnan(X[a : a + step]).any()) for a in range(0, X.shape[0], step))


def _kernel_tree(ds: Dataset, cfg: Any, progress: Any = None) -> Node:
    """The tree grown by the compiled kernel, as nodes. ``ds.X`` is read in place."""
    from . import kernels

    k = max(1, len(ds.schema.classes))
    w = ds.sample_weight
    if w is None:
        root = np.bincount(np.asarray(ds.y), minlength=k).astype(np.float64)  # exact: integers
    else:
        stats = np.zeros((ds.n_rows, k))
        stats[np.arange(ds.n_rows), ds.y] = w
        root = stats.sum(axis=0)  # the reference's own sum
        del stats
    feature, threshold, child, counts = kernels.grow_arrays(
        ds.X, np.asarray(ds.y), w, k, root, min_samples_split=cfg.min_samples_split, min_samples_leaf=cfg.min_samples_leaf, max_depth=cfg.max_depth, min_gain=cfg.min_gain,
        max_features=getattr(cfg, "max_features", None), feature_key=getattr(cfg, "feature_key", (0,)),
    )  # fmt: skip
    if progress is not None:  # the compiled loop calls no Python: its levels are reported once it is done
        _report_levels(child, counts, progress)
    return assemble_arrays(np.maximum(feature, 0), threshold, child, counts, checked=False)


def _report_levels(child: np.ndarray, counts: np.ndarray, progress: Any) -> None:
    """``progress(depth, nodes, rows)`` per level of the kernel's arrays (rows: the level's weight)."""
    depth = np.zeros(len(child), dtype=np.int64)
    for g in np.flatnonzero(child >= 0).tolist():  # parents before children: ids grow with depth
        depth[child[g]] = depth[child[g] + 1] = depth[g] + 1
    weight = counts.sum(axis=1)
    for d in range(int(depth.max()) + 1):
        progress(d, int((depth == d).sum()), int(round(float(weight[depth == d].sum()))))


def assemble_arrays(feature: np.ndarray, threshold: np.ndarray, child: np.ndarray, counts: np.ndarray, *, checked: bool = True) -> Node:
    """Nodes from a threshold tree's arrays (the compiled kernel's, :mod:`puretree.dask`'s): node
    ``g`` is a leaf when ``child[g] < 0``, else a split on ``feature[g]`` at ``threshold[g]``
    whose children are ``child[g]`` and ``child[g] + 1`` (larger ids); ``counts[g]`` its statistics.

    ``checked=False`` (the compiled kernel's own arrays: feature indices, finite thresholds and
    counts by construction) sets the nodes' fields without running their converters and
    validators again, which cost more than the kernel's growth on small data; the nodes are
    the same values (their digest is computed as always).

    >>> args = (np.array([0, -1, -1]), np.array([2.5, 0.0, 0.0]), np.array([1, -1, -1]), np.array([[2.0, 2.0], [2.0, 0.0], [0.0, 2.0]]))
    >>> assemble_arrays(*args, checked=False) == assemble_arrays(*args)
    True
    """
    ft, thr, ch, cn = feature.tolist(), threshold.tolist(), child.tolist(), counts.tolist()
    made: list[Any] = [None] * len(ch)
    leaf, split, test = (Leaf, Split, Threshold) if checked else (_trusted_leaf, _trusted_split, _trusted_threshold)
    for g in range(len(ch) - 1, -1, -1):
        c = ch[g]
        if c < 0:
            made[g] = leaf(cn[g])
        else:
            made[g] = split(ft[g], test(thr[g]), (made[c], made[c + 1]), cn[g])
            made[c] = made[c + 1] = None  # each node is referenced by its parent only
    return made[0]


_set = object.__setattr__  # the nodes are frozen: set their slots as attrs' own __init__ does


def _trusted_threshold(value: float) -> Threshold:
    test = object.__new__(Threshold)
    _set(test, "value", value + 0.0)  # one zero, as Threshold's converter makes it
    return test


def _trusted_leaf(stats: list[float]) -> Leaf:
    node = object.__new__(Leaf)
    _set(node, "stats", tuple(stats))
    node.__attrs_post_init__()  # the digest
    return node


def _trusted_split(feature: int, test: Threshold, kids: tuple[Node, Node], stats: list[float]) -> Split:
    node = object.__new__(Split)
    _set(node, "feature", feature)
    _set(node, "test", test)
    _set(node, "children", kids)
    _set(node, "stats", tuple(stats))
    node.__attrs_post_init__()  # the digest
    return node


def build(ds: Dataset, cfg: Any, *, max_bins: int | None = None, bins: Any = None, progress: Any = None, kernel: str = "auto") -> Node:
    """The root of the tree :func:`puretree.grow.grow` grows from ``ds`` with settings ``cfg``
    (its ``_Settings``), grown level by level. ``max_bins``: histogram mode, each numeric
    feature binned once by :func:`quantile_bins`, thresholds at the bins' upper values.
    ``bins`` (checked by :func:`check_bins`): histogram mode with the bins given, each value
    replaced by its bin's upper edge (:func:`edge_bins`), thresholds at edges.
    ``progress(depth, nodes, rows)`` is called once per level: its depth, the nodes made at
    that depth, the rows they hold. ``kernel``: ``"auto"`` grows with the compiled kernel where
    it applies, ``"never"`` with numpy, ``"required"`` with the kernel or not at all
    (:class:`~puretree.errors.ParameterError`)."""
    from .splits import node_statistics

    if cfg.missing == "error":
        _refuse_missing(ds)
    if kernel != "never" and max_bins is None and bins is None and _kernel_applies(ds, cfg):
        return _kernel_tree(ds, cfg, progress)
    if kernel == "required":
        _refuse_kernel(ds, cfg, histogram=max_bins is not None or bins is not None)
    ctx = _Context(ds, cfg)
    if max_bins is not None and ctx.q:
        ctx.binned = True
        ctx.Xn = np.ascontiguousarray(np.stack([quantile_bins(row, max_bins) for row in ctx.Xn]).reshape(ctx.Xn.shape))
    elif bins is not None and ctx.q:
        ctx.binned = True
        ctx.Xn = np.ascontiguousarray(np.stack([edge_bins(row, bins[j]) for row, j in zip(ctx.Xn, ctx.numeric.tolist())]).reshape(ctx.Xn.shape))
    kinds = tuple(_kinds()[s] for s in cfg.splitters)
    stats = node_statistics(ds)
    n, k = stats.shape
    ctx.k = k
    regression = ctx.regression
    y: Any = ds.y  # labelled data: not None
    integral = bool(np.all(stats == np.floor(stats)) and stats.sum() < 2.0**52)
    # int32 positions while they fit: the orders are the engine's largest arrays
    ctx.index = np.int32 if n < 2**31 - 1 else np.int64
    orders = np.argsort(ctx.Xn, axis=1, kind="stable").astype(ctx.index) if ctx.q else np.zeros((0, n), dtype=np.int64)
    st = _Level(np.arange(n), stats, np.zeros(n, dtype=np.int64), orders, np.ones((1, len(ctx.categorical)), dtype=bool), 1, integral)
    st.node_stats[0] = stats.sum(axis=0)  # the reference's own sum (pairwise when there is one column)
    # Records of the tree: one entry per node, children filled in as they are created.
    made: list[Any] = []  # Leaf, or a split description (kind, feature, test, counts, child ids)
    frontier = [0]
    made.append(None)
    path_of: dict[int, tuple[int, ...]] = {0: ()}  # feature subsampling: each pending node's path
    depth = 0
    min_split = cfg.min_samples_split
    reported = 0  # records already reported to progress
    while st.n_nodes:
        if progress is not None:  # this level's nodes, and the leaves made early at this depth
            progress(depth, len(made) - reported, len(st.row))
            reported = len(made)
        N = st.n_nodes
        yv = y[st.row]
        pure = np.minimum.reduceat(yv, st.starts) == np.maximum.reduceat(yv, st.starts)
        leaf = pure | (st.lens < min_split)
        if cfg.max_depth is not None and depth >= cfg.max_depth:
            leaf[:] = True
        if ctx.q == 0:
            leaf |= ~st.usable.any(axis=1)
        for i in np.flatnonzero(leaf).tolist():
            made[frontier[i]] = Leaf(st.node_stats[i])
        if leaf.all():
            break
        if leaf.any():
            keep = ~leaf
            frontier = [g for g, kp in zip(frontier, keep.tolist()) if kp]
            st = st.keep_nodes(keep)
            N = st.n_nodes
        if getattr(cfg, "max_features", None) is not None:
            from .splits import node_features

            ctx.paths = [path_of[g] for g in frontier]
            for g in frontier:
                del path_of[g]
            ctx.allowed = np.zeros((N, len(ctx.feature_names)), dtype=bool)
            for i, path in enumerate(ctx.paths):
                ctx.allowed[i, node_features(len(ctx.feature_names), cfg.max_features, cfg.feature_key, path)] = True
        # -- the best candidate of every node, per splitter, in the splitters' order
        if N == 1 and st.m * max(ctx.q, 1) * k <= _SINGLE_NODE_MAX and not ctx.binned:
            found = _single_node(st, cfg, ctx, kinds, depth)
        else:
            cat = _categorical_candidates(st, cfg, ctx, kinds) if ctx.categorical and ("multiway" in kinds or "subset" in kinds) else {}
            found = [_numeric_candidates(st, cfg, ctx) if kind == "threshold" else cat.get(kind, _Best(N)) for kind in kinds]
        scores = np.stack([f.score for f in found], axis=1)  # (N, kinds)
        feats = np.stack([f.feature for f in found], axis=1)
        from .splits import TIE_TOLERANCE

        best = scores.max(axis=1)
        has = ~np.isneginf(best)
        with np.errstate(invalid="ignore"):
            tied = scores >= (best - TIE_TOLERANCE * np.maximum(1.0, np.abs(best)))[:, None]
        big = np.iinfo(np.int64).max
        choice = np.argmin(np.where(tied, feats, big), axis=1)  # lowest feature; first splitter on equal
        chosen = scores[np.arange(N), choice]
        if cfg.min_gain is not None:
            has &= chosen > cfg.min_gain
        feature = feats[np.arange(N), choice]
        # -- the branch of every instance
        split = has.copy()
        if not split.any():
            for i in range(N):
                made[frontier[i]] = Leaf(st.node_stats[i])
            break
        inst_split = split[st.node]
        nb = np.zeros(N, dtype=np.int64)
        thresholds = np.zeros(N)
        left_sets: dict[int, tuple[int, ...]] = {}
        if N == 1 and found[choice[0]].branch is not None:
            # one node: the reference's candidate already holds every row's branch and the sums
            b0 = found[choice[0]]
            branch = b0.branch
            child_known = np.array(b0.children[0], dtype=np.float64)
            nb[0] = len(child_known)
            thresholds[0] = b0.threshold[0]
            if 0 in b0.left:
                left_sets[0] = b0.left[0]
            offset = np.zeros(1, dtype=np.int64)
            n_children = int(nb[0])
        else:
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
            child_known = _segment_sums(offset[st.node[known_inst]] + branch[known_inst], st.stats[known_inst], n_children)
            for c, kind in enumerate(kinds):
                for i, ch in found[c].children.items():
                    if split[i] and choice[i] == c:
                        child_known[offset[i] : offset[i] + nb[i]] = ch  # the reference's own sums (subsets: a matrix product)
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
                    routed = _segment_sums(offset[st.node[inst_split]] + branch[inst_split], st.stats[inst_split], n_children)
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
                    absent_stats = _segment_sums(st.node[a_idx], st.stats[a_idx], N)
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
        # leave now instead of being carried into the next level and compacted there
        early = np.zeros(n_children, dtype=bool)
        if not regression and not absent.any() and (st.integral or "subset" not in kinds):
            slot = offset[st.node] + branch
            in_split = copies > 0
            rows_in = np.bincount(slot[in_split], minlength=n_children)
            early = (rows_in > 0) & (((child_known > 0).sum(axis=1) <= 1) | (rows_in < min_split))
            if cfg.max_depth is not None and depth + 1 >= cfg.max_depth:
                early = rows_in > 0
            if early.any():
                copies[in_split & early[np.where(in_split, slot, 0)]] = 0
        # -- records of this level's nodes and their children
        child_of = np.full(n_children, -1, dtype=np.int64)  # child slot -> next level's node index
        pre_src = np.concatenate([np.flatnonzero(copies > 0)] + extra_src)
        pre_slot = np.concatenate([offset[st.node[copies > 0]] + branch[copies > 0]] + extra_node)
        pre_scale = np.concatenate([np.ones(int((copies > 0).sum()))] + extra_scale)
        occupied = np.zeros(n_children, dtype=bool)
        occupied[pre_slot] = True
        child_of[occupied] = np.arange(int(occupied.sum()))
        next_frontier: list[int] = []
        for i in range(N):
            g = frontier[i]
            if not split[i]:
                made[g] = Leaf(st.node_stats[i])
                continue
            kids = []
            for s in range(int(offset[i]), int(offset[i] + nb[i])):
                gid = len(made)
                kids.append(gid)
                if occupied[s]:
                    made.append(None)
                    next_frontier.append(gid)
                    if ctx.paths:
                        path_of[gid] = (*ctx.paths[i], s - int(offset[i]))
                elif early[s]:
                    made.append(Leaf(child_known[s]))
                else:
                    made.append(Leaf(np.zeros(k)))
            f = int(feature[i])
            kd = kinds[choice[i]]
            test = float(thresholds[i]) if kd == "threshold" else left_sets.get(i)
            made[g] = (kd, f, test, st.node_stats[i], kids)
        if not next_frontier:
            break
        # -- the next level: new instances sorted by (node, row), orders stably partitioned
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
        new_stats = st.stats[src]
        sc = pre_scale[perm]
        frac_rows = sc != 1.0
        if frac_rows.any():
            new_stats[frac_rows] = new_stats[frac_rows] * sc[frac_rows, None]
        nn = new_node[perm]
        # usable categorical features: the parent's, less a multiway split's feature
        parent_of_next = np.repeat(np.arange(N), nb)[occupied]
        usable = st.usable[parent_of_next].copy()
        if "multiway" in kinds and ctx.categorical:
            multi = np.array([kinds[c] == "multiway" for c in choice.tolist()])[parent_of_next]
            fpar = feature[parent_of_next]
            for jj, j in enumerate(ctx.categorical):
                usable[multi & (fpar == j), jj] = False
        if ctx.q:
            if len(pre_src) == len(np.unique(pre_src)) if extra_src else True:
                # one copy at most per old instance: map, drop, then partition
                new_id_of_old = np.full(st.m, -1, dtype=ctx.index)
                new_id_of_old[pre_src] = new_id_of_pre
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
        else:
            new_orders = np.zeros((0, len(row)), dtype=np.int64)
        del st  # the old level's orders go before the new level's sums are made
        st = _Level(row, new_stats, nn, new_orders, usable, n_next, integral)
        frontier = next_frontier
        depth += 1
    if progress is not None and len(made) > reported:  # the last level's children, all leaves made at once
        progress(depth + 1, len(made) - reported, 0)
    return _assemble(made)


def _assemble(made: list[Any]) -> Node:
    """Nodes from the records, children before parents (ids grow with depth)."""
    for g in range(len(made) - 1, -1, -1):
        rec = made[g]
        if isinstance(rec, tuple):
            kind, f, test, counts, kids = rec
            children = [made[c] for c in kids]
            if kind == "threshold":
                made[g] = Split(f, Threshold(test), children, counts)
            elif kind == "subset":
                made[g] = Split(f, Subset(test), children, counts)
            else:
                made[g] = Split(f, Multiway(len(children)), children, counts)
            for c in kids:
                made[c] = None  # release: each node is referenced by its parent only
    return made[0]
