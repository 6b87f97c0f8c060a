"""scikit-learn's monotonic constraints and learned missing side, grown a frontier at a time.

:class:`Bounded` is the sorted source (:class:`puretree.growth.sorted.Sorted`: its instances,
presorted orders and moves) with its own threshold search and routing, for the two options
that change which threshold a node takes and where its rows go:

- ``monotonic_cst`` (:func:`puretree.splits.monotone_ok`): each node of the frontier carries the
  bounds its ancestors' constrained splits passed down (:func:`children_bounds`, scikit-learn's
  middle value); a candidate whose children's values leave them, or go against the direction,
  is not taken; every node's statistics are clipped to its bounds
  (:func:`puretree.splits.monotone_clipped_rows`) as the recursive builder clips them.
- ``missing="learn"`` (:func:`puretree.splits.learned_threshold_splits`): every threshold of a
  feature with missing values at the node is scored with the missing rows right, then left,
  then the missing rows alone right (threshold ``+inf``), on all the node's rows; the first
  best wins, and the node's missing rows go to the side learned.

The search is the compiled kernel's (:func:`puretree.growth.kernels.scan_bounded`, once per
level) for the built-in Gini on classes and the variance decrease where no node is scored on its
known rows only (``missing="learn"``, or no missing value), else numpy's (:meth:`Bounded._scan`,
and with ``engine="numpy"``), a chunk of features at a time over the sorted columns. Both add
the recursive builder's numbers in its order (running sums in each node's sorted order), so
the trees are ``==`` to ``engine="reference"``'s (:func:`applies` says for which fits).

>>> import numpy as np
>>> import puretree as pt
>>> X = np.array([[1.0], [2.0], [np.nan], [3.0], [np.nan], [4.0]])
>>> y = [0, 0, 1, 1, 1, 0]
>>> pt.cart(X, y, missing="learn", engine="fast") == pt.cart(X, y, missing="learn", engine="reference")
True
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..criteria import ImpurityDecrease
from ..data import Dataset
from ..impurity import gini
from ..splits import CHUNK, monotone_clipped_rows, monotone_value, node_statistics
from ..tasks import as_task
from ..errors import MemoryLimitError
from ..nodes import Node
from .assemble import from_binary_arrays, from_records, trusted_threshold
from .choose import binary_scores, first_tied, heavy_enough, known_share, tolerance, weight_of
from .level import Decision, Sizes, best_first_records, floats
from .limits import check_tree_size, memory_budget
from . import kernels
from .sorted import Sorted, gini_rank, segmented_cumsum

__all__ = ["Bounded", "applies", "children_bounds", "grow_whole", "monotone_ok", "learned_ok", "learned_side"]


def applies(ds: Dataset, cfg: Any, kinds: tuple[str, ...], missing: str) -> bool:
    """Whether :class:`Bounded` grows this fit: threshold splits (``kinds``: the splitters'
    kinds; subset and multiway splits find nothing without a categorical feature) on numeric features only,
    a built-in score, no ``accept`` hook, and missing values learned, sent to the heaviest
    branch or absent (``missing="distribute"`` stays with the recursive builder).

    >>> from puretree.data import from_numpy
    >>> from puretree.splits import Settings
    >>> from puretree.criteria import SCORES
    >>> ds = from_numpy(np.zeros((2, 1)), ["a", "b"])
    >>> cfg = Settings(SCORES["gini"], (), None, 2, 1, None, None, "learn", True)
    >>> applies(ds, cfg, ("threshold",), "learn"), applies(ds, cfg, ("threshold",), "distribute")
    (True, False)
    """
    return "threshold" in kinds and set(kinds) <= {"threshold", "subset", "multiway"} and len(set(kinds)) == len(kinds) and all(f.is_numeric for f in ds.schema.features) and bool(cfg.trusted) and cfg.accept is None and missing in ("learn", "majority", "error")


def children_bounds(lower: np.ndarray, upper: np.ndarray, direction: np.ndarray, children: np.ndarray, task: Any) -> tuple[np.ndarray, np.ndarray]:
    """The bounds the two children of each split pass down (scikit-learn's tree builder, as
    :func:`puretree.splits.monotone_children_bounds` for one node): the splits' bounds
    ``lower``/``upper`` (n,), the constraint of their features ``direction`` (n,), their
    children's statistics ``children`` (n, 2, k); returns the children's (n, 2) lower and upper
    bounds. A constrained split cuts at the middle value of its children.

    >>> from puretree.tasks import REGRESSION
    >>> lo, up = children_bounds(np.array([-np.inf]), np.array([np.inf]), np.array([-1]), np.array([[[1.0, 4.0, 16.0], [1.0, 2.0, 4.0]]]), REGRESSION)
    >>> lo.tolist(), up.tolist()
    ([[3.0, -inf]], [[inf, 3.0]])
    """
    weights = task.weight(children)  # (n, 2)
    first = 1 if task.is_regression else 0
    with np.errstate(invalid="ignore", divide="ignore"):
        # scikit-learn's middle_value: each child's value halved, then added
        middle = children[:, 0, first] / (2 * weights[:, 0]) + children[:, 1, first] / (2 * weights[:, 1])
    lo = np.stack([lower, lower], axis=1)
    up = np.stack([upper, upper], axis=1)
    rise, fall = direction > 0, direction < 0
    up[rise, 0], lo[rise, 1] = middle[rise], middle[rise]
    lo[fall, 0], up[fall, 1] = middle[fall], middle[fall]
    return lo, up


def monotone_ok(direction: np.ndarray, lower: np.ndarray, upper: np.ndarray, left: np.ndarray, parent: np.ndarray, task: Any, *, remainder: bool, right: np.ndarray | None = None) -> np.ndarray:
    """:func:`puretree.splits.monotone_ok` for candidates with their own bounds: ``direction``
    (c,) per feature, ``lower``, ``upper`` broadcast against the candidates' left sides ``left``
    (c, ..., k) in nodes ``parent`` (broadcast to it); the right side is ``parent - left``
    (``remainder``: :meth:`~puretree.tasks.Task.remainder`, as threshold_splits passes it), or
    ``right`` where given.
    Only the constrained features' rows are computed. The histogram source
    (:mod:`puretree.growth.histograms`) passes its candidates as rows, each with its own bounds."""
    ok = np.ones(left.shape[:-1], dtype=bool)
    rows = np.flatnonzero(direction)
    if not rows.size:
        return ok
    lower, upper = np.broadcast_to(lower, ok.shape)[rows], np.broadcast_to(upper, ok.shape)[rows]
    lf = left[rows]
    par = np.broadcast_to(parent, left.shape)[rows]
    vl = monotone_value(lf, task)
    if right is not None:
        vr = monotone_value(np.broadcast_to(right, left.shape)[rows], task)
    else:
        vr = monotone_value(task.remainder(par, lf) if remainder else par - lf, task)
    d = direction[rows].reshape((-1,) + (1,) * (lf.ndim - 2))
    with np.errstate(invalid="ignore"):
        ok[rows] = (vl >= lower) & (vr >= lower) & (vl <= upper) & (vr <= upper) & ((vl - vr) * d <= 0)
    return ok


def learned_ok(n_left: Any, n: Any, n_known: Any, n_missing: Any, min_samples_leaf: float) -> tuple[Any, Any, Any]:
    """``missing="learn"``: which candidates ``min_samples_leaf`` lets a node take, by rows:
    a cut of ``n_left`` known rows left with the missing rows right, the same cut with them
    left, and (per feature: ``n_known`` known rows, ``n_missing`` missing, ``n`` in all) the
    missing rows alone right. The sorted source (:class:`Bounded`) and the histogram source
    (:func:`puretree.growth.histograms.learned_thresholds`) both ask this.

    >>> [a.tolist() for a in learned_ok(np.array([1, 2]), 6, 4, 2, 2)]
    [[False, True], [True, True], True]
    """
    msl = min_samples_leaf
    right = (n_left >= msl) & (n - n_left >= msl)
    left = (n_missing > 0) & (n_left + n_missing >= msl) & (n_known - n_left >= msl)
    alone = (n_missing > 0) & (n_known > 0) & (n_known >= msl) & (n_missing >= msl)
    return right, left, np.asarray(alone)


def learned_side(has_missing: Any, use_left: Any, rows_left: Any, rows_right: Any) -> Any:
    """``missing="learn"``: the side (0 left, 1 right) a split sends missing values: the side
    learned where its feature had missing rows at the node (``use_left``: the cut was taken
    with them left), else the child of more rows (a tie: right), as the recursive builder learns it.

    >>> learned_side(np.array([True, False, False]), np.array([True, False, False]), np.array([1, 3, 2]), np.array([5, 2, 2])).tolist()
    [0, 0, 1]
    """
    return np.where(has_missing, np.where(use_left, 0, 1), np.where(rows_left > rows_right, 0, 1))


def _first_at_least(s: np.ndarray, bar: np.ndarray, starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """Per segment (``starts``, along axis 1 of ``s`` (c, m)) the first position whose score
    reaches the segment's ``bar`` (c, N); ``m`` where none does."""
    m = s.shape[1]
    hit = s >= np.repeat(bar, lens, axis=1)
    return np.minimum.reduceat(np.where(hit, np.arange(m), m), starts, axis=1)


class Bounded(Sorted):
    """The sorted source of a fit with monotonic constraints (``monotonic``: -1, 0, +1 per
    feature; None: none) and/or a learned missing side (``learn``). Children known to be
    leaves are not taken out early: each grows on into the next frontier, where its bounds are known."""

    def __init__(self, ds: Dataset, cfg: Any, kinds: tuple[str, ...], *, binned: Callable[[np.ndarray, int], np.ndarray] | None = None, monotonic: np.ndarray | None, learn: bool, compiled: str = "auto") -> None:
        super().__init__(ds, cfg, kinds, binned=binned, compiled="never")
        ctx = self.ctx
        ctx.screen = False
        w = ds.sample_weight  # the built-in Gini's candidates are screened by the compiled scan's ranking (sorted.gini_rank)
        self._gini = not ctx.regression and isinstance(cfg.score, ImpurityDecrease) and cfg.score.impurity is gini and (w is None or (float(w.sum()) < kernels.MAX_WEIGHT and float(np.min(w, initial=np.inf, where=w != 0)) >= kernels.MIN_WEIGHT))
        self.monotonic = monotonic
        self.learn = learn
        # the compiled scan (kernels.scan_bounded): the Gini on classes or the variance decrease,
        # int32 orders, and no node scored on its known rows only (learned, or no missing value)
        scored = (self._gini and ctx.k <= kernels.MAX_CLASSES) or ctx.variance_decrease
        #: The least weight of a child (``min_weight_fraction_leaf``; 0: no bound): numpy's scan holds it.
        self.min_weight = float(getattr(cfg, "min_weight_leaf", 0.0))
        if compiled != "never" and scored and not self.min_weight > 0 and ctx.q and (learn or not ctx.numeric_missing) and ctx.index is np.int32 and kernels.AVAILABLE and kernels.library() is not None:
            ctx.compiled = kernels  # its scan here, and its move of the orders (Sorted.advance)
        self.lower = np.full(1, -np.inf)
        self.upper = np.full(1, np.inf)
        self._bounds_next: Any = None

    def grow_whole(self, X: np.ndarray, *, max_features: Any = None, feature_key: Any = (0,), sizes: Sizes | None = None) -> Node | None:
        """The root of the tree :func:`puretree.growth.level.grow` grows from this source, grown
        in one compiled call (:func:`puretree.growth.kernels.grow_bounded`: the same levels, the
        same numbers, ``max_features``' draws keyed by ``feature_key``) where the compiled scan
        applies and the fit is small (:data:`~puretree.growth.kernels.WHOLE_TREE_MAX_WORK`): there the
        frontier loop's Python, a few hundred microseconds a level, costs more than the
        scan. ``X``: the rows (raw values, which route them; the scan reads the binned ones).
        None: grow it level by level.

        >>> from puretree.data import from_numpy
        >>> from puretree.splits import Settings
        >>> from puretree.criteria import SCORES
        >>> ds = from_numpy(np.array([[1.0], [2.0], [np.nan], [3.0]]), [0, 0, 1, 1])
        >>> cfg = Settings(SCORES["gini"], (), None, 2, 1, None, None, "learn", True)
        >>> root = Bounded(ds, cfg, ("threshold",), monotonic=None, learn=True).grow_whole(ds.X)
        >>> root is None or (root.test.value, root.test.missing_branch) == (2.5, 1)
        True
        """
        st, cfg, ctx = self.st, self.cfg, self.ctx
        n, q = ctx.Xn.shape[1], ctx.q
        if ctx.compiled is None or q != X.shape[1] or n * q > kernels.WHOLE_TREE_MAX_WORK or n < 2 or (max_features is not None and q > kernels.MAX_DRAW):
            return None
        if not ctx.regression:
            try:  # every node's class counts: refused before they are made (else level by level, which checks as it goes)
                check_tree_size(2 * n - 1, ctx.k, ctx.budget)
            except MemoryLimitError:
                return None
        Xr = np.ascontiguousarray(X.T) if ctx.binned else ctx.Xn
        grown = kernels.grow_bounded(
            ctx.Xn, Xr, st.orders, st.cls, None if st.unit or ctx.regression else st.w, st.dense(slice(None)) if ctx.regression else None, np.asarray(ctx.y, dtype=np.float64),
            ctx.k, st.node_stats[0], self.monotonic, learn=self.learn, binned=ctx.binned, min_leaf=cfg.min_samples_leaf, min_split=cfg.min_samples_split,
            max_depth=cfg.max_depth, min_gain=cfg.min_gain, max_features=max_features, feature_key=feature_key,
        )  # fmt: skip
        return _assembled(grown, self.monotonic, self.learn, ctx.task, sizes)

    def stats(self) -> np.ndarray:
        """The frontier's statistics, each clipped to its node's bounds."""
        s = self.st.node_stats
        if self.monotonic is None:
            return s
        return monotone_clipped_rows(s, self.lower, self.upper, self.ctx.task)

    def keep(self, keep: np.ndarray) -> None:
        super().keep(keep)
        self.lower, self.upper = self.lower[keep], self.upper[keep]

    def advance(self) -> None:
        super().advance()
        self.lower, self.upper = self._bounds_next
        self._bounds_next = None

    def split(self, depths: np.ndarray, allowed: np.ndarray | None, paths: Sequence[tuple[int, ...]] | None, n_made: int) -> list[Decision | None]:
        """Each node's threshold split (None: a leaf) and the routing of its instances, the
        missing ones to the learned side (``learn``) or down the heavier branch."""
        st, cfg, ctx = self.st, self.cfg, self.ctx
        N, k = st.n_nodes, ctx.k
        score, feature, threshold, side = self._search(allowed)
        has = ~np.isneginf(score)
        if cfg.min_gain is not None:
            has &= score > cfg.min_gain
        if not has.any():
            return [None] * N
        node = st.node
        f_of = np.where(has, feature, 0)
        nb = has * 2
        offset = np.cumsum(nb) - nb
        n_children = int(nb.sum())
        inst_split = has[node]
        x = ctx.X[st.row, f_of[node]]
        nan = np.isnan(x)
        branch = (x > threshold[node]).astype(np.int64)
        if nan.any():
            if self.learn:
                branch[nan] = side[node[nan]]
            else:  # "majority": the heavier branch of the known rows (the left on a tie)
                known = inst_split & ~nan
                child_known = st.sums(offset[node[known]] + branch[known], known, n_children)
                w = weight_of(child_known, ctx.regression)
                heavy = np.zeros(N, dtype=np.int64)
                heavy[has] = (w[offset[has] + 1] > w[offset[has]]).astype(np.int64)
                branch[nan] = heavy[node[nan]]
        slot = offset[node] + branch
        pre_src = np.flatnonzero(inst_split)
        pre_slot = slot[pre_src]
        child = st.sums(pre_slot, inst_split, n_children)
        if not ctx.regression:  # the children's class counts: refused before they are made
            check_tree_size(n_made + n_children, k, ctx.budget)
        occupied = np.zeros(n_children, dtype=bool)
        occupied[pre_slot] = True
        lo = np.repeat(self.lower, nb)
        up = np.repeat(self.upper, nb)
        if self.monotonic is not None:
            d = np.where(has, self.monotonic[f_of], 0)[has]
            clo, cup = children_bounds(self.lower[has], self.upper[has], d, child.reshape(-1, 2, k), ctx.task)
            lo, up = clo.ravel(), cup.ravel()
        self._bounds_next = (lo[occupied], up[occupied])
        out: list[Decision | None] = [None] * N
        zeros = np.zeros(k)
        occ, offs, feats, thr, sides = occupied.tolist(), offset.tolist(), f_of.tolist(), threshold.tolist(), side.tolist()
        scores, weights = score.tolist(), weight_of(st.node_stats, ctx.regression).tolist()  # unclipped: best-first growth ranks by them
        for i in np.flatnonzero(has).tolist():
            s = offs[i]
            out[i] = (feats[i], trusted_threshold(thr[i], sides[i] if self.learn else None), [None if occ[b] else zeros for b in (s, s + 1)], scores[i], weights[i])
        self._next = (pre_src, pre_slot, np.ones(len(pre_src)), occupied, [], nb, f_of, np.full(N, self.kinds.index("threshold")), None)
        return out

    def _search(self, allowed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per node of the frontier the best threshold split's score (-inf: none), feature,
        threshold and missing side, as :func:`puretree.splits.threshold_splits` (or
        :func:`~puretree.splits.learned_threshold_splits`) finds it at that node."""
        st, cfg, ctx = self.st, self.cfg, self.ctx
        N, q, m = st.n_nodes, ctx.q, st.m
        fs = np.full((N, q), -np.inf)
        fa, fb = np.zeros((N, q)), np.zeros((N, q))
        fside = np.ones((N, q), dtype=np.int64)
        if q and m >= 2 and ctx.compiled is not None:
            inst = st.dense(slice(None)) if ctx.regression else None
            fs, fa, fb, fside = ctx.compiled.scan_bounded(
                ctx.Xn, st.orders, st.row, st.cls, None if st.unit or inst is not None else st.w, inst, st.starts, st.lens, st.node_stats,
                weight_of(st.node_stats, ctx.regression), self.lower, self.upper, self.monotonic[ctx.numeric] if self.monotonic is not None else None,
                learn=self.learn, min_leaf=cfg.min_samples_leaf,
            )  # fmt: skip
        elif q and m >= 2:
            self._scan(fs, fa, fb, fside)
        if allowed is not None:  # feature subsampling: each node's drawn features only
            fs[~allowed[:, ctx.numeric]] = -np.inf
        score = np.full(N, -np.inf)
        feature = np.zeros(N, dtype=np.int64)
        threshold, side = np.zeros(N), np.ones(N, dtype=np.int64)
        has = ~np.isneginf(fs).all(axis=1)
        if has.any():
            r = np.flatnonzero(has)
            at = first_tied(fs[r])  # the lowest feature among the near-best
            score[r], feature[r], side[r] = fs[r, at], ctx.numeric[at], fside[r, at]
            a, b = fa[r, at], fb[r, at]
            mid = a / 2.0 + b / 2.0  # splits.midpoint, elementwise
            # binned: values are their bin's largest training value, the cut goes right above it (as Sorted cuts)
            threshold[r] = np.where(np.isinf(b) & (b > 0), np.inf, a if ctx.binned else np.where((a <= mid) & (mid < b), mid, a))
        return score, feature, threshold, side

    def _scan(self, fs: np.ndarray, fa: np.ndarray, fb: np.ndarray, fside: np.ndarray) -> None:
        """Fill each (node, feature)'s chosen candidate: score ``fs``, the values either side of
        the cut ``fa``/``fb`` (``fb`` = +inf: the missing rows alone go right), the side ``fside``."""
        st, cfg, ctx = self.st, self.cfg, self.ctx
        N, q, m, k = st.n_nodes, ctx.q, st.m, ctx.k
        starts, lens, node_at = st.starts, st.lens, st.node
        counts = st.node_stats
        total = weight_of(counts, ctx.regression)
        task = ctx.task
        msl = cfg.min_samples_leaf
        not_last = np.ones(m - 1, dtype=bool)
        ends = starts + lens - 1
        not_last[ends[ends < m - 1]] = False
        n_left = (np.arange(m) - starts[node_at] + 1)[:-1].astype(np.float64)
        n = lens[node_at[:-1]].astype(np.float64)
        at = node_at[:-1]
        lower, upper = self.lower[at], self.upper[at]
        chunk = max(1, CHUNK // max(1, m * k * 6))
        incomplete = np.zeros(N, dtype=bool)
        if not self.learn and ctx.numeric_missing:
            # the reference scales every feature's score by the known share when any has a missing value in the node
            for start in range(0, q, chunk):
                V = np.take_along_axis(ctx.Xn[start : start + chunk], st.row[st.orders[start : start + chunk]], axis=1)
                incomplete |= np.bitwise_or.reduceat(np.isnan(V).any(axis=0), starts)
        for start in range(0, q, chunk):
            c = min(chunk, q - start)
            idx = st.orders[start : start + c]
            V = np.take_along_axis(ctx.Xn[start : start + c], st.row[idx], axis=1)  # (c, m), NaN last in each segment
            S = st.dense(idx)  # (c, m, k)
            if st.integral:  # exact: one cumsum, each segment's offset taken off
                L = np.cumsum(S, axis=1)
                off = np.zeros((c, N, k))
                off[:, starts > 0] = L[:, starts[starts > 0] - 1]
                L -= np.repeat(off, lens, axis=1)
            else:  # each segment added in its own order from its first row, as the reference adds it
                L = segmented_cumsum(S, starts, lens)
            known = ~np.isnan(V)
            n_known = np.add.reduceat(known, starts, axis=1)  # (c, N)
            last = np.maximum(starts[None, :] + n_known - 1, 0)
            known_sum = np.where((n_known > 0)[..., None], L[np.arange(c)[:, None], last], 0.0)  # (c, N, k)
            valid = (V[:, :-1] < V[:, 1:]) & not_last  # between distinct known values of one segment
            names = None if ctx.variance_decrease else ctx.numeric_names[start : start + c, None]
            direction = np.zeros(c, dtype=np.int64) if self.monotonic is None else self.monotonic[ctx.numeric[start : start + c]]
            left = L[:, :-1]
            nk = n_known[:, at].astype(np.float64)

            def exact(par: np.ndarray, lf: np.ndarray, ok: np.ndarray) -> np.ndarray:
                # the reference's score at the candidates ``ok`` only (-inf elsewhere, and for NaN)
                out = np.full(ok.shape, -np.inf)
                at_ = np.nonzero(ok)
                if at_[0].size:
                    nm = None if names is None else ctx.numeric_names[start + at_[0]]
                    got = binary_scores(cfg.score, par[at_], lf[at_], nm, regression=ctx.regression, variance=ctx.variance_decrease)
                    out[at_] = np.where(np.isnan(got), -np.inf, got)
                return out

            if self.learn:
                nmiss = n - nk
                parent = np.broadcast_to(counts[at], left.shape)
                absent = counts[None] - known_sum  # (c, N, k): the missing rows' statistics
                right_ok, left_ok, _ = learned_ok(n_left, n, nk, nmiss, msl)
                ok_r = valid & right_ok
                nm = lens[None, :] - n_known
                missing_here = bool(nm.any())  # else only the missing rows right: no other variant to score
                alone = counts[None] - absent
                parent_a = np.broadcast_to(counts, alone.shape)
                if missing_here:
                    ok_l = valid & left_ok
                    ok_a = learned_ok(0, lens[None, :], n_known, nm, msl)[2]  # (c, N)
                    left_l = left + absent[:, at]
                else:
                    ok_l, ok_a, left_l = np.zeros(ok_r.shape, dtype=bool), np.zeros(nm.shape, dtype=bool), left
                if self.min_weight > 0:  # each child's weight, its missing rows included (splits.learned_threshold_splits)
                    ok_r = ok_r & heavy_enough(weight_of(left, ctx.regression), total[at], self.min_weight)
                    ok_l = ok_l & heavy_enough(weight_of(left_l, ctx.regression), total[at], self.min_weight)
                    ok_a = ok_a & heavy_enough(weight_of(alone, ctx.regression), total[None, :], self.min_weight)
                if self.monotonic is not None:
                    ok_r &= monotone_ok(direction, lower, upper, left, parent, task, remainder=False)
                    if missing_here:
                        ok_l &= monotone_ok(direction, lower, upper, left_l, parent, task, remainder=False)
                        ok_a &= monotone_ok(direction, self.lower, self.upper, alone, parent_a, task, remainder=False, right=absent)
                if self._gini:
                    ok_r, ok_l, ok_a = _screened(ok_r, ok_l, ok_a, parent, left, left_l, parent_a, alone, starts, lens, total) if missing_here else (_screened(ok_r, None, None, parent, left, None, None, None, starts, lens, total)[0], ok_l, ok_a)
                with np.errstate(invalid="ignore", divide="ignore"):
                    s_r = exact(parent, left, ok_r)
                    s_l = exact(parent, left_l, ok_l)
                    s_a = exact(parent_a, alone, ok_a)
            else:
                base = np.where(incomplete[None, :, None], known_sum, counts[None])  # (c, N, k)
                parent = base[:, at]
                ok_r = valid
                if msl > 1:
                    ok_r = ok_r & (n_left >= msl) & (nk - n_left >= msl)
                if self.min_weight > 0:  # the node's weight: its known rows' where it has a missing value, as the score's base
                    ok_r = ok_r & heavy_enough(weight_of(left, ctx.regression), weight_of(parent, ctx.regression), self.min_weight)
                if self.monotonic is not None:
                    ok_r = ok_r & monotone_ok(direction, lower, upper, left, parent, task, remainder=True)
                s_l = np.full(ok_r.shape, -np.inf)
                s_a = np.full((c, N), -np.inf)
                if self._gini:  # the known share scales a (node, feature)'s candidates alike: screened unscaled
                    ok_r = _screened(ok_r, None, None, parent, left, None, None, None, starts, lens, total)[0]
                with np.errstate(invalid="ignore", divide="ignore"):
                    s_r = exact(parent, left, ok_r)
                    inc = incomplete[at]
                    if inc.any():
                        s_r = known_share(s_r, weight_of(parent, ctx.regression), total[at], inc)
                    s_r = np.where(ok_r & ~np.isnan(s_r), s_r, -np.inf)
            pad = np.full((c, 1), -np.inf)
            s_r, s_l = np.concatenate([s_r, pad], axis=1), np.concatenate([s_l, pad], axis=1)
            best = np.maximum(np.maximum(np.maximum.reduceat(s_r, starts, axis=1), np.maximum.reduceat(s_l, starts, axis=1)), s_a)  # (c, N)
            bar = best - tolerance(best)
            first_r = _first_at_least(s_r, bar, starts, lens)
            first_l = _first_at_least(s_l, bar, starts, lens)
            found = np.isfinite(best)
            use_r = found & (first_r < m)
            use_l = found & ~use_r & (first_l < m)
            use_a = found & ~use_r & ~use_l
            p = np.where(use_r, first_r, np.where(use_l, first_l, 0))
            p = np.minimum(p, m - 2)
            fi = np.arange(c)[:, None]
            chosen = np.where(use_r, s_r[fi, p], np.where(use_l, s_l[fi, p], s_a))
            fs[:, start : start + c] = np.where(found, chosen, -np.inf).T
            fa[:, start : start + c] = V[fi, p].T
            fb[:, start : start + c] = np.where(use_a, np.inf, V[fi, p + 1]).T
            # the side: learned where the feature has missing rows here, else the child with more rows (a tie: right)
            rows_left = p - starts[None, :] + 1
            fside[:, start : start + c] = learned_side(n_known < lens[None, :], use_l, rows_left, lens[None, :] - rows_left).T


def _assembled(grown: tuple[np.ndarray, ...] | None, monotonic: np.ndarray | None, learn: bool, task: Any, sizes: Sizes | None = None) -> Node | None:
    """The root of the tree :func:`puretree.growth.kernels.grow_bounded` grew (None: it did not);
    ``sizes``: read off it as the frontier loop reads its own (:func:`_sized`)."""
    if grown is None:
        return None
    kernels._FITS[0] += 1  # a compiled fit (its call lets go of the GIL): an ensemble grows its members in threads
    feature, threshold, side, first, stats, lower, upper, score = grown
    weights = weight_of(stats, task.is_regression)  # before clipping: what best-first growth ranks by
    if monotonic is not None:  # every node's value within its bounds, as the loop clips each frontier's
        stats = monotone_clipped_rows(stats, lower, upper, task)
    if sizes is not None:
        return _sized(feature, threshold, side if learn else None, first, stats, score, weights, sizes)
    sides = side.tolist() if learn else None
    args = feature.tolist(), (threshold + 0.0).tolist(), first.tolist(), _tuples(stats)
    if not gc.isenabled():
        return from_binary_arrays(*args, sides=sides)
    gc.disable()
    try:
        return from_binary_arrays(*args, sides=sides)
    finally:
        gc.enable()


def _sized(feature: np.ndarray, threshold: np.ndarray, side: np.ndarray | None, first: np.ndarray, stats: np.ndarray, score: np.ndarray, weights: np.ndarray, sizes: Sizes) -> Node:
    """The tree of ``sizes`` read off the compiled call's full tree, as the frontier loop reads its
    records (:func:`puretree.growth.level.best_first_records`): each split ranked by the score
    recorded when it was chosen and its node's weight before clipping."""
    f, t, fc = feature.tolist(), (threshold + 0.0).tolist(), first.tolist()
    sd = [None] * len(f) if side is None else side.tolist()
    rows = floats(stats)
    records = [rows[g] if f[g] < 0 else (f[g], trusted_threshold(t[g], sd[g]), range(fc[g], fc[g] + 2), rows[g]) for g in range(len(f))]
    total = sizes.total_weight if sizes.total_weight is not None else float(weights[0])
    gains = {g: sizes.improvement(s, w, total) for g, (s, w) in enumerate(zip(score.tolist(), weights.tolist())) if f[g] >= 0}
    return from_records(best_first_records(records, gains, max_leaf_nodes=sizes.max_leaf_nodes), trusted=True)


def grow_whole(ds: Dataset, cfg: Any, *, monotonic: np.ndarray | None, learn: bool, compiled: str = "auto", sizes: Sizes | None = None) -> Node | None:
    """:meth:`Bounded.grow_whole` of ``Bounded(ds, cfg, kinds, monotonic=monotonic, learn=learn,
    compiled=compiled)`` (with ``cfg``'s ``max_features`` and ``feature_key``; no binning; ``ds``
    one :func:`applies` to), from only the arrays the compiled call reads: a small fit's setup of
    the sorted source (its level, its columns' names, numpy's carried values) costs about as much
    as its growth; the columns' orders are :func:`puretree.growth.kernels.shared_presort`'s where
    an ensemble shares them. The same arrays, the same tree; None where :meth:`Bounded.grow_whole`
    would give None.

    >>> from puretree.data import from_numpy
    >>> from puretree.splits import Settings
    >>> from puretree.criteria import SCORES
    >>> ds = from_numpy(np.array([[1.0], [2.0], [np.nan], [3.0]]), [0, 0, 1, 1])
    >>> cfg = Settings(SCORES["gini"], (), None, 2, 1, None, None, "learn", True)
    >>> root = grow_whole(ds, cfg, monotonic=None, learn=True)
    >>> root is None or root == Bounded(ds, cfg, ("threshold",), monotonic=None, learn=True).grow_whole(ds.X)
    True
    """
    n, q = ds.X.shape
    max_features = getattr(cfg, "max_features", None)
    if compiled == "never" or n < 2 or q < 1 or n * q > kernels.WHOLE_TREE_MAX_WORK or n >= 2**31 - 1 or not kernels.AVAILABLE or (max_features is not None and q > kernels.MAX_DRAW):
        return None
    if getattr(cfg, "min_weight_leaf", 0.0) > 0:  # a bound on the children's weight: numpy's scan holds it (Bounded._scan)
        return None
    regression = ds.schema.is_regression
    score = cfg.score
    w = np.ones(n) if ds.sample_weight is None else np.asarray(ds.sample_weight, dtype=np.float64)
    if regression:  # the variance decrease (Sorted's _Context.variance_decrease)
        from ..impurity import variance

        if not (isinstance(score, ImpurityDecrease) and score.impurity is variance):
            return None
        k = 3
    else:  # the built-in Gini, its weights within the ranking's range (Bounded._gini), few classes
        k = max(1, len(ds.schema.classes))
        sw = ds.sample_weight
        if not (isinstance(score, ImpurityDecrease) and score.impurity is gini and k <= kernels.MAX_CLASSES) or (sw is not None and not (float(sw.sum()) < kernels.MAX_WEIGHT and float(np.min(sw, initial=np.inf, where=sw != 0)) >= kernels.MIN_WEIGHT)):
            return None
    Xn = np.ascontiguousarray(ds.X.T)  # every feature numeric (applies)
    if not learn and np.isnan(Xn).any():  # the heavier branch of a missing value: the loop's
        return None
    if kernels.library() is None:
        return None
    if not regression:
        try:  # every node's class counts: refused before they are made (else level by level, which checks as it goes)
            check_tree_size(2 * n - 1, k, memory_budget())
        except MemoryLimitError:
            return None
    orders = kernels.shared_orders(ds.X, copy=False)  # the compiled call reads them, changes none
    if orders is None:
        orders = kernels.sorted_columns(Xn)
    if regression:  # Sorted's instances and root: (w, w*y, w*y**2) a row, their sum(axis=0)
        inst = node_statistics(ds)
        cls, wt, root = None, None, inst.sum(axis=0)
    else:  # class codes and weights; the root's sums as _Level adds them (bincount in row order)
        inst, cls = None, np.asarray(ds.y, dtype=np.int64)
        unit = bool(np.all(w == 1.0))
        root = np.bincount(cls, weights=None if unit else w, minlength=k).astype(np.float64, copy=False)
        if k == 1:
            root = np.array([w.sum()])
        wt = None if unit else w
    grown = kernels.grow_bounded(
        Xn, Xn, orders, cls, wt, inst, np.asarray(ds.y, dtype=np.float64), k, root, monotonic, learn=learn, binned=False,
        min_leaf=cfg.min_samples_leaf, min_split=cfg.min_samples_split, max_depth=cfg.max_depth, min_gain=cfg.min_gain,
        max_features=max_features, feature_key=getattr(cfg, "feature_key", (0,)),
    )  # fmt: skip
    return _assembled(grown, monotonic, learn, as_task(ds.schema), sizes)


def _tuples(stats: np.ndarray) -> list[tuple[float, ...]]:
    """Each row of ``stats`` (n, k) as a tuple of Python floats, checked finite as
    :func:`puretree.growth.level.floats` checks them, made in one call (a structured view's rows
    are tuples: no list a row, which the cyclic collector would count and visit).

    >>> _tuples(np.array([[1.0, 2.0], [3.0, 4.0]]))
    [(1.0, 2.0), (3.0, 4.0)]
    """
    rows = np.ascontiguousarray(stats, dtype=np.float64)
    if not np.isfinite(rows).all():
        floats(rows)  # raises, naming the value
    return rows.view([(f"s{j}", np.float64) for j in range(rows.shape[1])]).reshape(-1).tolist()  # type: ignore[no-any-return]


def _screened(ok_r: np.ndarray, ok_l: Any, ok_a: Any, parent: np.ndarray, left: np.ndarray, left_l: Any, parent_a: Any, alone: Any, starts: np.ndarray, lens: np.ndarray, total: np.ndarray) -> tuple[Any, Any, Any]:
    """The candidates (missing rows right ``ok_r`` (c, m-1), left ``ok_l``, alone ``ok_a``
    (c, N); the latter two may be None) of each (feature, node) whose Gini ranking
    (:func:`puretree.growth.sorted.gini_rank`) comes within :data:`~puretree.growth.kernels.SCREEN`
    times the node's weight ``total`` of the best of all three: the others cannot come within
    the tie tolerance of the best score, so only these get the reference's score."""
    c = ok_r.shape[0]
    pad = np.full((c, 1), -np.inf)

    def ranked(ok: np.ndarray, par: np.ndarray, lf: np.ndarray) -> np.ndarray:
        return np.where(ok, gini_rank(np.moveaxis(lf, -1, 0), np.moveaxis(par, -1, 0)), -np.inf)

    r_r = np.concatenate([ranked(ok_r, parent, left), pad], axis=1)
    best = np.maximum.reduceat(r_r, starts, axis=1)
    if ok_l is not None:
        r_l = np.concatenate([ranked(ok_l, parent, left_l), pad], axis=1)
        r_a = ranked(ok_a, parent_a, alone)
        best = np.maximum(np.maximum(best, np.maximum.reduceat(r_l, starts, axis=1)), r_a)
    bar = np.where(np.isinf(best), -np.inf, best - kernels.SCREEN * total[None, :])
    wide = np.repeat(bar, lens, axis=1)[:, :-1]
    if ok_l is None:
        return ok_r & (r_r[:, :-1] >= wide), None, None
    return ok_r & (r_r[:, :-1] >= wide), ok_l & (r_l[:, :-1] >= wide), ok_a & (r_a >= bar)
