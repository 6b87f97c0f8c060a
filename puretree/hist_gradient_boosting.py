"""Histogram gradient boosting: scikit-learn's ``HistGradientBoosting*`` and LightGBM's
algorithm, on the growth package's binned source, as a :class:`~puretree.boosted.Boosted`.

Each numeric feature is binned once (:func:`puretree.growth.engine.quantile_bins`: at most
``max_bins`` bins, each standing for the largest training value in it, numbered by
:func:`puretree.growth.histograms.binned_rows`, a missing value in a bin of its own). Every
stage grows one regression tree per output (one for regression and two classes, one per class
for more) on the loss's gradients ``g`` and hessians ``h`` of the current raw scores, leaf by
leaf (best first) until ``max_leaf_nodes`` leaves:

- a node's histogram holds, per feature and bin, ``sum h``, ``sum -g``, ``sum g**2 / h`` (the
  leaf's third statistic: feature 0's alone in C) and the rows: the binned source's regression
  histogram of the target ``-g / h`` weighted by ``h`` (:func:`puretree.growth.histograms.histogram`,
  or, where the library loads, in C: the same floats); only the smaller child of a split is
  summed, the larger one is its parent's histogram less the smaller's. In C a split is one
  step (``pt_hgb_step``): the rows parted, the smaller child summed, the larger subtracted and
  both children's best cuts searched, each of ``threads`` threads on its own range of the
  features (one range's thread parts the rows, the others pick the smaller child's rows as it
  would): every cell the same sum in the same row order, so the model is the same for any
  number of threads;
- a split's gain is ``G_L**2 / (H_L + l2) + G_R**2 / (H_R + l2) - G**2 / (H + l2)`` (``l2``:
  ``l2_regularization``), for every cut between bins and both sides for the node's missing
  values (the side a missing value takes is learned; where the feature had none among the
  training rows, it goes to the child with more rows, the right one on a tie, as scikit-learn's
  grower sends it); each child needs ``min_samples_leaf`` rows and a hessian sum of 1e-3;
  the best gain (the lowest feature, then cut, then missing values right on a tie) if positive;
- a categorical feature (its bins its category codes) is split by scikit-learn's HGB rule
  (:meth:`Grower.categorical_split`) into a :class:`~puretree.nodes.Subset` test whose
  missing values and unknown categories take one branch;
- a leaf's value is the Newton step ``-G / (H + l2)``: the leaf holds the statistics
  ``(H + l2, -G, sum g**2 / h)``, so its mean is that step and the model's sums need nothing else.

The raw score is the initial one (the loss's link of the (weighted) class shares, or the
mean) plus ``learning_rate`` times each stage's leaf value, in float64 (:class:`Boosted`'s
``float64`` order); the thresholds are the bins' largest training values (``x <= t`` goes
left), so the model answers every training row as the binned fit did. A binary model's class
1 is where the raw score is above 0 (scikit-learn's HGB, the option ``strict_class``).
Early stopping (``early_stopping``; ``"auto"``: on above 10 000 rows, as scikit-learn) holds
out ``validation_fraction`` of the rows as scikit-learn's ``train_test_split`` does (stratified
for classes, :func:`puretree.gradient_boosting`'s split) and stops when none of the last
``n_iter_no_change`` validation losses improved on the one before them by more than ``tol``.

The trees are not scikit-learn's bit for bit (the bins' edges, the sums' order and the tie rules
differ); the accuracy is theirs (``bench/bench_hist_gb.py``).

>>> X = np.array([[float(i % 7), float(i % 3)] for i in range(60)])
>>> y = ["a" if x[0] < 3 else "b" for x in X]
>>> model = hist_gradient_boosting(X, y, max_iter=5, min_samples_leaf=5)
>>> len(model.stages), model.option("n_iter_"), model.loss
(5, 5, 'log_loss')
>>> bool((model.predict(X) == np.array(y)).all())
True
"""

from __future__ import annotations

import heapq
import math
import os
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from types import MappingProxyType
from typing import Any

import numpy as np

from .boosted import Boosted, leaf_values, table, tree_schema
from .data import Dataset, as_dataset
from .errors import DataError, ParameterError
from .growth.assemble import assemble
from .growth.engine import check_bins
from .growth.histograms import bin_matrix, compiled_loops, histogram
from .growth.kernels import PARALLEL_MIN_WORK
from .nodes import TESTS, Leaf, Node, Split, Surrogates
from .params import Interval, Options, check
from .tree import Tree

__all__ = ["hist_gradient_boosting", "categorical_names", "LOSSES", "MIN_HESSIAN", "Grower", "init_sums", "initial_scores", "stage_targets", "checked_options", "boosted_model", "DEFAULTS"]

#: The losses, by task.
LOSSES = {"classification": ("log_loss",), "regression": ("squared_error",)}

#: The least hessian sum of a child (scikit-learn's ``min_hessian_to_split``, LightGBM's
#: ``min_sum_hessian_in_leaf``).
MIN_HESSIAN = 1e-3

_THRESHOLD: Any = TESTS["threshold"]  # the split test a stage tree makes
_SUBSET: Any = TESTS["subset"]  # ... on a categorical feature

#: A category's least support (scikit-learn's HGB ``MIN_CAT_SUPPORT``, LightGBM's ``cat_smooth``):
#: a category of less hessian (scaled to rows) goes right, and it smooths the sorting ratio.
_MIN_CAT_SUPPORT = 10.0

#: The smallest hessian a row keeps (a saturated probability's ``p (1 - p)`` underflows), so
#: that its target ``-g / h`` stays finite.
_TINY_HESSIAN = 1e-16

#: Least work (a node's rows x features) of a tree's step shared between the threads: below it,
#: handing a range to the kernel's pooled helper thread costs more than it saves.
_STEP_MIN_WORK = 20_000

#: An array and its address (0: none needed, the numpy loops).
_Block = tuple[np.ndarray, int]

#: The options' defaults (scikit-learn 1.9's ``HistGradientBoosting*``): :func:`hist_gradient_boosting`'s,
#: :func:`puretree.dask.hist_gradient_boosting`'s (but ``early_stopping``) and the estimators'
#: (:class:`puretree.estimators.HistGradientBoostingClassifier`) signatures read them here.
DEFAULTS: Mapping[str, Any] = MappingProxyType({
    "learning_rate": 0.1, "max_iter": 100, "max_leaf_nodes": 31, "max_depth": None, "min_samples_leaf": 20, "l2_regularization": 0.0,
    "max_bins": 255, "categorical_features": None, "early_stopping": "auto", "scoring": "loss", "validation_fraction": 0.1,
    "n_iter_no_change": 10, "tol": 1e-7, "random_state": None,
})  # fmt: skip

_CONSTRAINTS: dict[str, tuple[Any, ...]] = {
    "max_iter": (Interval(int, 1, None),),
    "learning_rate": (Interval(float, 0, None, closed="neither"),),
    "max_leaf_nodes": (Interval(int, 2, None), None),
    "max_depth": (Interval(int, 1, None), None),
    "min_samples_leaf": (Interval(int, 1, None),),
    "l2_regularization": (Interval(float, 0, None),),
    "max_bins": (Interval(int, 2, 255),),
    "early_stopping": (Options(("auto", True, False)),),
    "scoring": (Options(("loss",)),),
    "validation_fraction": (Interval(float, 0, 1, closed="neither"),),
    "n_iter_no_change": (Interval(int, 1, None),),
    "tol": (Interval(float, 0, None),),
    "random_state": (Interval(int, 0, 2**32 - 1), None),
    "threads": (Interval(int, 1, None), None),
}


# -- the losses ---------------------------------------------------------------------------------


def _softmax(raw: np.ndarray) -> np.ndarray:
    e = np.exp(raw - raw.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def _init(loss: str, y: np.ndarray, w: np.ndarray, n_classes: int) -> np.ndarray:
    """The initial raw score per output, from the weighted sums of :func:`init_sums`."""
    return initial_scores(loss, init_sums(loss, y, w, n_classes), n_classes)


def init_sums(loss: str, y: np.ndarray, w: np.ndarray, n_classes: int) -> list[float]:
    """The sums the initial raw score needs: the weight of each class (classification), or
    ``sum y * w`` (regression), then the total weight. Each is :func:`math.fsum`'s, the exact
    sum rounded once, so that it does not depend on the order of the rows (:mod:`puretree.dask`
    adds its partitions' exact sums to the same floats).

    >>> init_sums("log_loss", np.array([0, 1, 1]), np.array([0.1, 0.2, 0.3]), 2)
    [0.1, 0.5, 0.6]
    """
    if loss == "squared_error":
        return [math.fsum(y * w), math.fsum(w)]
    return [math.fsum(w[y == c]) for c in range(n_classes)] + [math.fsum(w)]


def initial_scores(loss: str, sums: Sequence[float], n_classes: int) -> np.ndarray:
    """The initial raw score per output from :func:`init_sums`: the link of the weighted class
    shares (clipped to ``[eps, 1 - eps]``; K classes: ``log p_k`` less their mean), or the
    weighted mean.

    >>> initial_scores("squared_error", [6.0, 3.0], 0).tolist()
    [2.0]
    """
    if loss == "squared_error":
        return np.array([sums[0] / sums[1]])
    eps = float(np.finfo(np.float64).eps)
    p = np.clip(np.array(sums[:n_classes]) / sums[n_classes], eps, 1 - eps)
    if n_classes == 2:
        return np.array([math.log(p[1] / (1 - p[1]))])
    logs = np.log(p)
    return logs - logs.mean()


def stage_targets(loss: str, y: np.ndarray, raw: np.ndarray, w: np.ndarray, n_classes: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Each output's stage tree's target ``-g / h`` and weight ``h`` (at least the tiny hessian)
    for the current raw scores: row by row, so a block of rows gets its rows' floats."""
    g, h = _gradients(loss, y, raw, w, n_classes)
    h = np.maximum(h, _TINY_HESSIAN)
    out = []
    for k in range(raw.shape[1]):
        weight = np.ascontiguousarray(h[:, k])
        out.append((-g[:, k] / weight, weight))
    return out


def _gradients(loss: str, y: np.ndarray, raw: np.ndarray, w: np.ndarray, n_classes: int) -> tuple[np.ndarray, np.ndarray]:
    """The gradients and hessians ``(rows, outputs)`` of the half losses, weighted."""
    if loss == "squared_error":
        g, h = raw - y[:, None], np.ones_like(raw)
    elif n_classes == 2:
        p = 1.0 / (1.0 + np.exp(-raw))
        g, h = p - y[:, None], p * (1.0 - p)
    else:
        p = _softmax(raw)
        g, h = p - np.eye(n_classes)[y], p * (1.0 - p)
    return g * w[:, None], h * w[:, None]


def _loss(loss: str, y: np.ndarray, raw: np.ndarray, w: np.ndarray, n_classes: int) -> float:
    """The weighted mean half loss (early stopping's score is its negative)."""
    if loss == "squared_error":
        per = 0.5 * (raw[:, 0] - y) ** 2
    elif n_classes == 2:
        per = np.logaddexp(0.0, raw[:, 0]) - y * raw[:, 0]
    else:
        top = raw.max(axis=1)
        per = top + np.log(np.exp(raw - top[:, None]).sum(axis=1)) - raw[np.arange(len(y)), y]
    return float(np.average(per, weights=w))


def _should_stop(scores: list[float], n_iter_no_change: int, tol: float) -> bool:
    """scikit-learn's rule: none of the last ``n_iter_no_change`` scores beats the one before
    them by more than ``tol``.

    >>> _should_stop([-1.0, -0.5, -0.5, -0.5], 2, 0.0), _should_stop([-1.0, -0.5, -0.4], 2, 0.0)
    (True, False)
    """
    at = n_iter_no_change + 1
    if len(scores) < at:
        return False
    reference = scores[-at] + tol
    return not any(s > reference for s in scores[-at + 1 :])


# -- one stage tree, best first -----------------------------------------------------------------


class Grower:
    """The state of the fit shared by its stage trees: the bins, the rules, the threads, and
    the compiled loops (``lib``; None: numpy's, the same floats). :mod:`puretree.dask` grows
    the same stage trees with its rows on the workers: it overrides :meth:`histogram`,
    :meth:`partition` and :meth:`row_values`, and turns :attr:`steps_compiled` off (the compiled
    step, :meth:`step`, reads the rows in this process)."""

    steps_compiled = True

    def __init__(self, X: np.ndarray, bins: np.ndarray, edges: list[np.ndarray], n_bins: int, *, max_leaf_nodes: int | None, max_depth: int | None, min_samples_leaf: int, l2: float, threads: int, lib: Any = None, pool: ThreadPoolExecutor | None = None, categories: Sequence[int] = ()) -> None:
        self.X, self.bins, self.edges, self.n_bins = X, np.ascontiguousarray(bins), edges, n_bins
        self.max_leaf_nodes, self.max_depth, self.min_samples_leaf, self.l2 = max_leaf_nodes, max_depth, min_samples_leaf, l2
        self.threads = threads
        # the compiled loops read one byte per bin (max_bins <= 255: always)
        self.lib = lib if self.bins.dtype == np.uint8 else None
        self.pool = pool
        self.slot = np.zeros(1, dtype=np.int64)
        # categories[f] > 0: a categorical feature of that many categories (its bins its codes)
        self.categories = [int(c) for c in categories] + [0] * (len(edges) - len(categories))
        self.categorical = [f for f, c in enumerate(self.categories) if c]
        # the features with a missing value among the training rows (scikit-learn's has_missing_values):
        # their splits send missing values to the side the search learned, even at a node without any
        self.has_missing = dict(enumerate((self.bins == n_bins - 1).any(axis=0).tolist())) if len(self.bins) else {f: False for f in range(len(edges))}
        # cuts past a feature's last bin: no cut (its bins there are empty); a categorical feature has no cut
        last = np.array([-1 if self.categories[f] else len(e) - 1 for f, e in enumerate(edges)], dtype=np.int64)
        self.beyond = np.arange(n_bins - 1)[None, :] > last[:, None]
        self.last = last
        if self.lib is not None:
            # what every compiled step reads or writes, and its address (ctypes' lookup costs more than a small step)
            self._out = np.zeros(20)
            # goes_right[side, b]: the bins a cut after bin b sends right, missing values (the last bin) when side is 1
            goes_right = np.zeros((2, n_bins - 1, n_bins), dtype=np.uint8)
            goes_right[:, :, :-1] = np.arange(n_bins - 1)[None, None, :] > np.arange(n_bins - 1)[None, :, None]
            goes_right[1, :, -1] = 1
            self._goes_right = goes_right
            self._addresses = (self.bins.ctypes.data, last.ctypes.data, self._out.ctypes.data, goes_right.ctypes.data)

    def histogram(self, rows: np.ndarray, target: np.ndarray, weight: np.ndarray) -> np.ndarray:
        """The histogram ``(feature, bin, channel)`` of ``rows``: the channels ``h``,
        ``h * target`` (``-g``), ``h * target**2`` (feature 0's alone by the compiled loop: the
        node's totals are read from feature 0) and the rows."""
        n, p = self.bins.shape
        if self.lib is None:
            b, t, w = (self.bins, target, weight) if len(rows) == n else (self.bins[rows], target[rows], weight[rows])
            threads = self.threads if b.size >= PARALLEL_MIN_WORK else 1
            H, _, _ = histogram(b, t, w, np.zeros(len(t), dtype=np.int32), self.slot, 1, self.n_bins, 0, threads=threads)
            return H[0]
        H = np.zeros((p, self.n_bins, 4))
        lib, args = self.lib, (self.bins.ctypes.data, n, p, rows.ctypes.data, len(rows), target.ctypes.data, weight.ctypes.data)

        def call(f0: int, f1: int) -> int:
            return int(lib.pt_hgb_histogram(*args, f0, f1, self.n_bins, H.ctypes.data))

        # two halves of the features at once where the work pays for waking a thread (ctypes releases the GIL)
        if self.pool is not None and len(rows) * p >= PARALLEL_MIN_WORK and p > 1:
            ranges = _feature_ranges(p, self.threads)
            futures = [self.pool.submit(call, a, b) for a, b in ranges[1:]]
            codes = [call(*ranges[0])] + [f.result() for f in futures]
        else:
            codes = [call(0, p)]
        if any(codes):
            raise DataError("a bin or row is out of range in hist_gradient_boosting's histogram")
        return H

    def best_split(self, H: np.ndarray, total: np.ndarray) -> tuple[float, int, int, int] | None:
        """The best ``(gain, feature, cut bin, missing side)`` of a node from its histogram, or None.
        The L2 term enters here and in :meth:`value` only."""
        l2, msl = self.l2, self.min_samples_leaf
        if total[3] < 2 * msl or total[0] < 2 * MIN_HESSIAN:
            return None
        left = np.cumsum(H[:, :-1, :], axis=1)  # a cut after bin b: bins 0..b left
        missing = H[:, -1, :]
        parent = total[1] * total[1] / (total[0] + l2)
        best: tuple[float, int, int, int] | None = None
        for side in (1, 0):  # missing values right, then left (only where the node has some)
            if side == 0:
                has = missing[:, 3] > 0
                if not has.any():
                    break
                L = left + missing[:, None, :]
            else:
                has = None
                L = left
            R = total - L
            ok = (L[..., 3] >= msl) & (R[..., 3] >= msl) & (L[..., 0] >= MIN_HESSIAN) & (R[..., 0] >= MIN_HESSIAN) & ~self.beyond
            if has is not None:
                ok &= has[:, None]
            with np.errstate(divide="ignore", invalid="ignore"):  # an empty side: masked by ok
                gain = np.where(ok, L[..., 1] ** 2 / (L[..., 0] + l2) + R[..., 1] ** 2 / (R[..., 0] + l2) - parent, -np.inf)
            at = int(np.argmax(gain))
            g = float(gain.flat[at])
            if g > 0 and (best is None or g > best[0]):
                best = (g, at // gain.shape[1], at % gain.shape[1], side)
        return best

    def split_of(self, H: np.ndarray, depth: int, searched: tuple[np.ndarray, tuple[float, int, int, int] | None] | None = None) -> tuple[np.ndarray, tuple[float, int, int, Any] | None]:
        """A node's totals (feature 0's bins summed in order) and its best split (None: a leaf):
        ``(gain, feature, cut bin, missing side)`` on a numeric feature, ``(gain, feature, -1,
        (bins sent left, missing values left))`` on a categorical one; the higher gain, on a tie
        the lower feature. ``searched``: the totals and numeric split :meth:`step` found."""
        deep = self.max_depth is not None and depth >= self.max_depth
        found: tuple[float, int, int, Any] | None
        if searched is not None:
            total, found = searched[0], None if deep else searched[1]
        elif self.lib is None or deep:
            total = H[0].sum(axis=0)
            found = None if deep else self.best_split(H, total)
        else:
            total, out = np.empty(4), np.empty(4)
            p = H.shape[0]
            ok = self.lib.pt_hgb_best_split(H.ctypes.data, p, self.n_bins, self.last.ctypes.data, self.l2, float(self.min_samples_leaf), MIN_HESSIAN, total.ctypes.data, out.ctypes.data)
            found = (float(out[0]), int(out[1]), int(out[2]), int(out[3])) if ok else None
        if self.categorical and not deep:
            cat = self.categorical_split(H, total)
            if cat is not None and (found is None or cat[0] > found[0] or (cat[0] == found[0] and cat[1] < found[1])):
                found = cat
        return total, found

    def categorical_split(self, H: np.ndarray, total: np.ndarray) -> tuple[float, int, int, tuple[np.ndarray, bool]] | None:
        """The best split on a categorical feature, scikit-learn's HGB rule: the categories (the
        missing values one more, where the feature had some in training) of hessian enough
        (``h * rows / H >= 10``, ``MIN_CAT_SUPPORT``) sorted by ``sum g / (sum h + 10)``, the
        first ones of that order (at most half, then the last ones, at most half less one) sent
        left; the rest, and every category of too little support, right. Missing values go where
        their category went, or, where the feature had none in training, to the child with more rows."""
        l2, msl = self.l2, self.min_samples_leaf
        if total[3] < 2 * msl or total[0] < 2 * MIN_HESSIAN:
            return None
        support = total[3] / total[0]
        parent = total[1] * total[1] / (total[0] + l2)
        best: tuple[float, int, int, tuple[np.ndarray, bool]] | None = None
        missing = self.n_bins - 1
        for f in self.categorical:
            h = H[f]
            candidates = np.arange(self.categories[f])
            if self.has_missing[f]:
                candidates = np.append(candidates, missing)
            used = candidates[h[candidates, 0] * support >= _MIN_CAT_SUPPORT]
            if len(used) <= 1:
                continue
            # sum g / (sum h + 10): the histogram holds -g
            order = used[np.argsort(-h[used, 1] / (h[used, 0] + _MIN_CAT_SUPPORT), kind="stable")]
            k = len(order)
            for direction, middle in ((1, (k + 1) // 2), (-1, (k + 1) // 2 - 1)):
                seq = order if direction == 1 else order[::-1]
                h_left = g_left = n_left = 0.0
                for i in range(middle):
                    cell = h[seq[i]]
                    n_left += cell[3]
                    h_left += cell[0]
                    g_left += cell[1]
                    h_right, g_right, n_right = total[0] - h_left, total[1] - g_left, total[3] - n_left
                    if n_left < msl or h_left < MIN_HESSIAN:
                        continue
                    if n_right < msl or h_right < MIN_HESSIAN:
                        break
                    gain = float(g_left * g_left / (h_left + l2) + g_right * g_right / (h_right + l2) - parent)
                    if gain > 0 and (best is None or gain > best[0]):
                        left = np.zeros(self.n_bins, dtype=bool)
                        left[seq[: i + 1]] = True
                        missing_left = bool(left[missing]) if self.has_missing[f] else n_left > n_right
                        best = (gain, int(f), -1, (left, missing_left))
        return best

    def partition(self, rows: np.ndarray, f: int, b: int, side: Any) -> tuple[np.ndarray, np.ndarray]:
        """A node's rows parted: bins up to ``b`` left, missing values to ``side``; or, on a
        categorical feature (``b`` -1), the bins ``side[0]`` marks left; in order."""
        if b < 0:
            goes_left = side[0][self.bins[rows, f]]
            return rows[goes_left], rows[~goes_left]
        if self.lib is None:
            col = self.bins[rows, f]
            right = np.where(col == self.n_bins - 1, side == 1, col > b)
            return rows[~right], rows[right]
        left, right = np.empty_like(rows), np.empty_like(rows)
        n, p = self.bins.shape
        m = int(self.lib.pt_hgb_partition(self.bins.ctypes.data, n, p, rows.ctypes.data, len(rows), f, b, self.n_bins - 1, side, left.ctypes.data, right.ctypes.data))
        if m < 0:
            raise DataError("a row or feature is out of range in hist_gradient_boosting's partition")
        return left[:m], right[: len(rows) - m]

    def value(self, stats: np.ndarray) -> list[float]:
        """A leaf's statistics: ``(H + l2, -G, sum g**2 / h)``, its mean the Newton step."""
        return [float(stats[0]) + self.l2, float(stats[1]), float(stats[2])]

    def step(self, rows: _Block, target: int, weight: int, split: tuple[int, int, bool, _Block] | None = None) -> list[tuple[_Block, _Block, Any]]:
        """The compiled step of a tree (``pt_hgb_step``, its features shared between the threads;
        arrays as ``(array, address)``, ``target`` and ``weight`` addresses): the root's
        ``(rows, histogram, (totals, numeric split or None))``, or, with ``split`` ``(feature,
        address of its goes-right table per bin, ties_right, parent's histogram)``, its two
        children's (the table's left side first): the rows parted, the smaller child's histogram
        summed, the larger's the parent's less it (written over the parent's), both children's
        numeric splits searched. The floats of :meth:`histogram`, ``np.subtract`` and :meth:`best_split`."""
        n, p = self.bins.shape
        Hs = np.zeros((p, self.n_bins, 4))
        hs = Hs.ctypes.data
        f, table, ties_right, (Hp, hp) = split if split is not None else (-1, 0, False, (None, 0))
        kids = np.empty(len(rows[0]) if split is not None else 0, dtype=np.int64)
        k = kids.ctypes.data
        # one thread where the node is too small to pay for starting another (the same floats either way)
        threads = self.threads if len(rows[0]) * p >= _STEP_MIN_WORK else 1
        assert self.lib is not None
        code = self.lib.pt_hgb_step(
            self._addresses[0], n, p, rows[1], len(rows[0]), target, weight, self.n_bins, self._addresses[1], self.l2, float(self.min_samples_leaf),
            MIN_HESSIAN, f, table or None, int(ties_right), threads, hp or None, hs, k or None, self._addresses[2])  # fmt: skip
        if code:
            raise MemoryError("hist_gradient_boosting: out of memory") if code == 1 else DataError("a bin or row is out of range in hist_gradient_boosting's step")
        out = self._out.tolist()

        def searched(child: int) -> tuple[np.ndarray, tuple[float, int, int, int] | None]:
            o = out[10 + 5 * child : 15 + 5 * child]
            return np.array(out[2 + 4 * child : 6 + 4 * child]), ((o[1], int(o[2]), int(o[3]), int(o[4])) if o[0] else None)

        if split is None:
            return [(rows, (Hs, hs), searched(0))]
        assert Hp is not None
        m = int(out[0])
        small, large = ((Hs, hs), searched(0)), ((Hp, hp), searched(1))
        sides = (large, small) if out[1] else (small, large)
        return [((kids[:m], k), *sides[0]), ((kids[m:], k + 8 * m), *sides[1])]

    def parted(self, node_rows: _Block, Hn: _Block, f: int, b: int, side: Any, swap: bool, target: np.ndarray, weight: np.ndarray, addresses: tuple[int, int]) -> list[tuple[_Block, _Block, Any]]:
        """A split node's two children ``(rows, histogram, searched)``, left then right (``swap``:
        the categorical test's branches are the split's right then left side); the smaller
        child's histogram summed, the larger's the parent's less it (over the parent's)."""
        if self.lib is not None and self.steps_compiled:
            table = self._addresses[3] + (side * (self.n_bins - 1) + b) * self.n_bins if b >= 0 else np.ascontiguousarray(~side[0], dtype=np.uint8)
            kids = self.step(node_rows, *addresses, (f, table if isinstance(table, int) else table.ctypes.data, swap, Hn))
            return kids[::-1] if swap else kids
        l_rows, r_rows = self.partition(node_rows[0], f, b, side)
        if swap:  # the codes sent left are none: the test names the right side's, its branch 0
            l_rows, r_rows = r_rows, l_rows
        small = l_rows if len(l_rows) <= len(r_rows) else r_rows
        Hs = self.histogram(small, target, weight)
        Hl = np.subtract(Hn[0], Hs, out=Hn[0])  # the parent's histogram is not needed again
        return [((l_rows, 0), (Hs if small is l_rows else Hl, 0), None), ((r_rows, 0), (Hl if small is l_rows else Hs, 0), None)]

    def grow(self, target: np.ndarray, weight: np.ndarray, rows: np.ndarray) -> tuple[Node, np.ndarray]:
        """One stage tree on ``target = -g / h`` weighted by ``h`` over ``rows``; with each
        row's leaf value (``rows`` not among them: 0)."""
        records: list[Any] = [None]
        nodes: dict[int, tuple[_Block, _Block, np.ndarray, int]] = {}  # open node: rows, histogram, totals, depth
        heap: list[tuple[float, int, tuple[float, int, int, Any]]] = []
        leaf_rows: dict[int, np.ndarray] = {}

        def enter(g: int, node_rows: _Block, Hn: _Block, searched: Any, depth: int) -> None:
            total, found = self.split_of(Hn[0], depth, searched)
            if found is None:
                records[g] = self.value(total)
                leaf_rows[g] = node_rows[0]
            else:
                nodes[g] = (node_rows, Hn, total, depth)
                heapq.heappush(heap, (-found[0], g, found))

        stepped = self.lib is not None and self.steps_compiled
        addresses = (target.ctypes.data, weight.ctypes.data) if stepped else (0, 0)
        if not stepped:
            enter(0, (rows, 0), (self.histogram(rows, target, weight), 0), None, 0)
        else:
            enter(0, *self.step((rows, rows.ctypes.data), *addresses)[0], 0)
        leaves = 1
        while heap and (self.max_leaf_nodes is None or leaves < self.max_leaf_nodes):
            _, g, (_, f, b, side) = heapq.heappop(heap)
            node_rows, Hn, total, depth = nodes.pop(g)
            fallback, swap = None, False
            if b < 0:
                test, fallback, swap = self.subset(f, *side)
            first, second = self.parted(node_rows, Hn, f, b, side, swap, target, weight, addresses)
            if b >= 0:
                if self.has_missing[f]:  # the side learned (at a node without missing values: right, the search's tie)
                    missing_branch = side
                else:  # none in training: the child with more rows takes them, a tie the right (scikit-learn's grower)
                    missing_branch = 0 if len(first[0][0]) > len(second[0][0]) else 1
                cut = math.inf if b >= self.last[f] else float(self.edges[f][b])
                test = _THRESHOLD(cut, missing_branch=1 if cut == math.inf else missing_branch)
            kids = (len(records), len(records) + 1)
            records[g] = (f, test, kids, self.value(total), fallback)
            records.extend([None, None])
            enter(kids[0], *first, depth + 1)
            enter(kids[1], *second, depth + 1)
            leaves += 1
        for g, (node_rows, _, total, _) in nodes.items():  # the budget's open nodes: leaves
            records[g] = self.value(total)
            leaf_rows[g] = node_rows[0]
        return _assembled(records), self.row_values(target, [(node_rows, _mean(records[g])) for g, node_rows in leaf_rows.items()])

    def row_values(self, target: np.ndarray, leaves: list[tuple[Any, float]]) -> Any:
        """Each row's leaf value (0: a row of no leaf) from the leaves' ``(rows, value)``."""
        values = np.zeros(len(target))
        for node_rows, value in leaves:
            values[node_rows] = value
        return values

    def subset(self, f: int, left: np.ndarray, missing_left: bool) -> tuple[Any, int, bool]:
        """A categorical split's test, the branch its missing values and unknown categories take
        (scikit-learn's HGB: an unknown category goes as a missing value), and whether its
        branches are the split's right then left side (no known code sent left)."""
        codes = np.flatnonzero(left[: self.categories[f]])
        if len(codes):
            return _SUBSET(tuple(int(c) for c in codes)), 0 if missing_left else 1, False
        rest = np.flatnonzero(~left[: self.categories[f]])
        return _SUBSET(tuple(int(c) for c in rest)), 1 if missing_left else 0, True


def _assembled(records: list[Any]) -> Node:
    """The tree of a stage's records: a leaf's statistics, or a split's ``(feature, test,
    children, statistics, fallback)`` (``fallback``: a categorical split's branch for missing
    values and unknown categories, as :class:`~puretree.nodes.Surrogates` without surrogates)."""

    def node(g: int, children: tuple[Node, ...]) -> Node:
        rec = records[g]
        if isinstance(rec, list):
            return Leaf(rec)
        f, test, _, stats, fallback = rec
        return Split(f, test, children, stats, surrogates=None if fallback is None else Surrogates((), fallback=fallback))

    return assemble([() if isinstance(r, list) else r[2] for r in records], node)


def _feature_ranges(p: int, parts: int) -> list[tuple[int, int]]:
    """``[0, p)`` in at most ``parts`` consecutive ranges of features."""
    cuts = [p * i // max(1, min(parts, p)) for i in range(max(1, min(parts, p)) + 1)]
    return [(a, b) for a, b in zip(cuts[:-1], cuts[1:])]


def _mean(stats: list[float]) -> float:
    # As puretree.boosted reads a leaf: sum / weight (+ 0.0: no negative zero)
    return (stats[1] / stats[0] if stats[0] > 0 else 0.0) + 0.0


def _stage_tree(grower: Grower, target: np.ndarray, weight: np.ndarray, rows: np.ndarray, schema: Any) -> tuple[Tree, np.ndarray]:
    """A stage tree and each training row's leaf value (the rows left out: by the tree)."""
    root, values = grower.grow(target, weight, rows)
    tree = Tree(root, schema, missing="majority")
    if len(rows) < len(target):
        out = np.zeros(len(target), dtype=bool)
        out[rows] = True
        values[~out] = leaf_values(table(tree), grower.X[~out])
    return tree, values


# -- fitting -----------------------------------------------------------------------------------


def _features(ds: Dataset, max_bins: int) -> np.ndarray:
    """The features (NaN: missing; a categorical one's category codes); an infinite value, or a
    categorical feature of more than ``max_bins`` categories, refused by name."""
    for f in ds.schema.features:
        if not f.is_numeric and len(f.categories) > max_bins:
            raise ParameterError(f"categorical feature {f.name!r} has {len(f.categories)} categories, more than max_bins={max_bins} (one bin per category)")
    X = np.asarray(ds.X, dtype=np.float64)
    bad = np.isinf(X)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise DataError(f"hist_gradient_boosting takes finite values or NaN (missing); feature {ds.schema.features[j].name!r} has {float(X[i, j])!r} at {ds.row_name(i)}")
    return X


def categorical_names(chosen: Any, ds: Dataset) -> list[str]:
    """The names of the features ``categorical_features`` makes categorical (scikit-learn's
    forms: None or ``"from_dtype"``, the data's own categorical features alone; feature indices,
    names, or a boolean mask), each refused by name when it is no feature.

    >>> ds = as_dataset([[0.0, 1.0], [1.0, 2.0]], [0, 1])
    >>> categorical_names([1], ds), categorical_names([True, False], ds), categorical_names(["x1"], ds)
    (['x1'], ['x0'], ['x1'])
    """
    names = list(ds.schema.feature_names)
    if chosen is None or (isinstance(chosen, str) and chosen == "from_dtype"):
        return []
    if isinstance(chosen, (str, bytes)):
        raise ParameterError(f"categorical_features takes None, 'from_dtype', feature indices, names or a boolean mask, got the string {chosen!r} (write [{chosen!r}])")
    try:
        values = list(np.asarray(chosen).ravel().tolist()) if hasattr(chosen, "__array__") else list(chosen)
    except TypeError:
        raise ParameterError(f"categorical_features takes None, 'from_dtype', feature indices, names or a boolean mask, got {chosen!r}") from None
    if values and all(isinstance(v, (bool, np.bool_)) for v in values):
        if len(values) != len(names):
            raise ParameterError(f"categorical_features: a boolean mask of {len(values)} values for {len(names)} features")
        return [n for n, v in zip(names, values) if v]
    out = []
    for v in values:
        if isinstance(v, str):
            if v not in names:
                raise ParameterError(f"categorical_features names {v!r}, which is no feature (the features: {names})")
            out.append(v)
        elif isinstance(v, (int, np.integer)) and not isinstance(v, bool):
            if not 0 <= int(v) < len(names):
                raise ParameterError(f"categorical_features holds the index {int(v)}, out of range for {len(names)} features")
            out.append(names[int(v)])
        else:
            raise ParameterError(f"categorical_features holds {v!r}: give feature indices, names or a boolean mask")
    return list(dict.fromkeys(out))


def _given_edges(bins: Any, schema: Any) -> tuple[np.ndarray | None, ...]:
    """``bins=`` checked (:func:`~puretree.growth.engine.check_bins`): a numeric feature's edges,
    at most 255 (its bins fit a byte; the missing values take one more).

    >>> _given_edges([[1.0, 2.0]], as_dataset([[0.0]], [0]).schema)
    (array([1., 2.]),)
    """
    edges = check_bins(bins, schema)
    for f, e in zip(schema.features, edges):
        if e is not None and len(e) > 255:
            raise ParameterError(f"bins for feature {f.name!r} holds {len(e)} edges; hist_gradient_boosting takes at most 255 bins per feature")
    return edges


def _column_bins(column: np.ndarray, max_bins: int) -> tuple[np.ndarray, np.ndarray]:
    """A column's bin numbers (NaN: past the last) and upper edges: the numbers and edges of
    :func:`~puretree.growth.histograms.binned_rows` with :func:`~puretree.growth.engine.quantile_bins`,
    from one sort (a bin's upper edge is its largest training value, its last in sorted order)."""
    nan = np.isnan(column)
    s = np.sort(column[~nan])
    if len(s) == 0:
        edges = np.zeros(1)
    else:
        distinct = s[np.concatenate(([True], s[1:] != s[:-1]))]
        if len(distinct) <= max_bins:
            edges = distinct
        else:
            cuts = np.unique(np.quantile(s, np.arange(1, max_bins) / max_bins, method="inverted_cdf"))
            ends = np.concatenate((np.searchsorted(s, cuts, side="right"), [len(s)]))  # each bin's end in s
            starts = np.concatenate(([0], ends[:-1]))
            edges = s[ends[ends > starts] - 1]
    return np.searchsorted(edges, column, side="left"), edges


def _binned(X: np.ndarray, max_bins: int, pool: ThreadPoolExecutor, categories: Sequence[int] = (), given: Sequence[np.ndarray | None] | None = None) -> tuple[np.ndarray, list[np.ndarray], int]:
    """Every value's bin number (a missing value: the last bin), the edges, the bins' count, as
    :func:`~puretree.growth.histograms.binned_rows` numbers them; the columns in ``pool``
    (numpy's sorts and searches release the GIL). ``categories[j]`` (0: numeric) is a
    categorical column's number of categories: its bins are its category codes. ``given``: a
    numeric column's edges (``bins=``), a value above the last in the last bin, as
    :func:`puretree.growth.engine.edge_bins` and :mod:`puretree.dask` bin it.

    >>> X = np.array([[1.0, 5.0], [2.0, np.nan], [3.0, 5.0], [4.0, 6.0]])
    >>> with ThreadPoolExecutor(2) as pool:
    ...     bins, edges, n_bins = _binned(X, 2, pool)
    >>> bins.T.tolist(), [e.tolist() for e in edges], n_bins
    ([[0, 0, 1, 1], [0, 2, 0, 1]], [[2.0, 4.0], [5.0, 6.0]], 3)
    """

    def column(j: int) -> tuple[np.ndarray, np.ndarray]:
        if j < len(categories) and categories[j]:
            codes = X[:, j]
            return np.where(np.isnan(codes), 0, codes).astype(np.int64), np.arange(categories[j], dtype=np.float64)
        edges = None if given is None else given[j]
        if edges is not None:
            return np.minimum(np.searchsorted(edges, X[:, j], side="left"), len(edges) - 1), edges
        return _column_bins(X[:, j], max_bins)

    return bin_matrix(X, list(pool.map(column, range(X.shape[1]))))


def hist_gradient_boosting(
    X: Any,
    y: Any = None,
    *,
    loss: str | None = None,
    learning_rate: float = DEFAULTS["learning_rate"],
    max_iter: int = DEFAULTS["max_iter"],
    max_leaf_nodes: int | None = DEFAULTS["max_leaf_nodes"],
    max_depth: int | None = DEFAULTS["max_depth"],
    min_samples_leaf: int = DEFAULTS["min_samples_leaf"],
    l2_regularization: float = DEFAULTS["l2_regularization"],
    max_bins: int = DEFAULTS["max_bins"],
    bins: Any = None,
    categorical_features: Any = DEFAULTS["categorical_features"],
    early_stopping: str | bool = DEFAULTS["early_stopping"],
    scoring: str = DEFAULTS["scoring"],
    validation_fraction: float = DEFAULTS["validation_fraction"],
    n_iter_no_change: int = DEFAULTS["n_iter_no_change"],
    tol: float = DEFAULTS["tol"],
    random_state: int | None = DEFAULTS["random_state"],
    sample_weight: Any = None,
    threads: int | None = None,
    progress: Callable[[int], None] | None = None,
    **data_options: Any,
) -> Boosted:
    """Histogram gradient boosting (see the module notes), with the options of scikit-learn 1.9's
    ``HistGradientBoostingClassifier`` / ``HistGradientBoostingRegressor`` that mean the same.

    ``loss``: ``"log_loss"`` (classes: binary or multinomial) or ``"squared_error"`` (regression;
    it makes ``y`` numeric targets). ``max_iter`` stages, each of at most ``max_leaf_nodes``
    leaves (None: no budget) and depth ``max_depth``, leaves of ``min_samples_leaf`` rows or
    more, ``l2_regularization`` in every gain and leaf, ``max_bins`` bins per feature (2 to 255;
    missing values take one more), or ``bins``: one array of upper bin edges per feature (as
    :func:`puretree.dask.bin_edges` gives; at most 255 each, a categorical feature's entry
    ignored), a value above the last edge in the last bin. ``early_stopping``, ``scoring`` (``"loss"`` only),
    ``validation_fraction``, ``n_iter_no_change``, ``tol`` and ``random_state`` (the validation
    split's seed) as scikit-learn's; ``option("n_iter_")`` is the number of stages kept.
    ``categorical_features`` (scikit-learn's forms: None or ``"from_dtype"`` (the data's
    categorical features alone), feature indices, names or a boolean mask) reads the named
    numeric columns as categories (their distinct values); every categorical feature (at most
    ``max_bins`` categories) is split natively by scikit-learn's HGB rule into a
    :class:`~puretree.nodes.Subset` test, its missing values and unknown categories sent to one
    branch (:class:`~puretree.nodes.Surrogates` ``fallback``). ``threads``
    (default: the cores) bin the features and grow each tree (the same model for any number). ``progress(stages)`` is called after each stage.
    ``X``, ``y`` and the data options are :func:`~puretree.data.as_dataset`'s; nothing given is modified.

    >>> X = np.array([[float(i)] for i in range(40)])
    >>> model = hist_gradient_boosting(X, [0.0] * 20 + [10.0] * 20, loss="squared_error", max_iter=20, learning_rate=0.5, min_samples_leaf=5)
    >>> model.init, model.option("n_iter_")
    ((5.0,), 20)
    >>> [round(float(v), 3) for v in model.predict([[3.0], [30.0]])]
    [0.0, 10.0]
    """
    opts = checked_options(**dict(
        max_iter=max_iter, learning_rate=learning_rate, max_leaf_nodes=max_leaf_nodes, max_depth=max_depth, min_samples_leaf=min_samples_leaf,
        l2_regularization=l2_regularization, max_bins=max_bins, early_stopping=early_stopping, scoring=scoring, validation_fraction=validation_fraction,
        n_iter_no_change=n_iter_no_change, tol=tol, random_state=random_state, threads=threads))  # fmt: skip
    if loss in LOSSES["regression"] and "task" not in data_options and not isinstance(X, Dataset):
        data_options = {**data_options, "task": "regression"}
    ds = as_dataset(X, y, sample_weight=sample_weight, **data_options)
    named = categorical_names(categorical_features, ds)
    if any(ds.schema.features[ds.schema.feature_names.index(n)].is_numeric for n in named):
        if isinstance(X, Dataset):
            raise ParameterError(f"categorical_features={categorical_features!r} names numeric features of a Dataset; read the dataset with categorical=[...] instead")
        # the named columns read again as categories (their distinct values)
        known = list(data_options.get("categorical") or ())
        ds = as_dataset(X, y, sample_weight=sample_weight, **{**data_options, "categorical": known + [n for n in named if n not in known]})
    if ds.y is None:
        raise DataError("no target: pass y, or a dataset read with target=...")
    if ds.n_rows == 0:
        raise DataError("no rows to learn from")
    task = ds.schema.task
    loss = LOSSES[task][0] if loss is None else loss
    if loss not in LOSSES[task]:
        other = "regression" if task == "classification" else "classification"
        hint = f" ({loss!r} is a {other} loss)" if loss in LOSSES[other] else ""
        raise ParameterError(f"loss must be one of {list(LOSSES[task])} for {task}, got {loss!r}{hint}")
    n_classes = len(ds.schema.classes) if task == "classification" else 0
    yv = np.asarray(ds.y, dtype=np.int64 if task == "classification" else np.float64)
    if task == "classification" and len(np.unique(yv)) < 2:
        raise DataError("gradient boosting needs at least two classes in y")
    if task == "regression" and not np.isfinite(yv).all():
        bad = int(np.flatnonzero(~np.isfinite(yv))[0])
        raise DataError(f"the target must be finite; {ds.row_name(bad)} has {float(yv[bad])!r}")
    X_all = _features(ds, opts["max_bins"])
    given = None if bins is None else _given_edges(bins, ds.schema)
    w_all = np.ones(ds.n_rows) if ds.sample_weight is None else np.asarray(ds.sample_weight, dtype=np.float64)
    n_threads = opts["threads"] or os.cpu_count() or 1
    stopping = ds.n_rows > 10_000 if opts["early_stopping"] == "auto" else bool(opts["early_stopping"])
    seed = 0 if opts["random_state"] is None else opts["random_state"]

    Xt, yt, wt = X_all, yv, w_all
    X_val = y_val = w_val = None
    if stopping:
        from .gradient_boosting import validation_split

        train, val = validation_split(ds.n_rows, opts["validation_fraction"], seed, yv if task == "classification" else None)
        Xt, yt, wt = X_all[train], yv[train], w_all[train]
        X_val, y_val, w_val = X_all[val], yv[val], w_all[val]
    positive = np.flatnonzero(wt > 0)  # a row of weight 0 is no row
    if len(positive) == 0:
        raise DataError("sample_weight: every weight is zero; at least one row needs a positive weight")
    if task == "classification" and len(np.unique(yt[positive])) < 2:
        raise DataError("the training rows (of positive weight, after the early-stopping split) hold one class: try another random_state or more rows")

    with ThreadPoolExecutor(n_threads) as pool:
        categories = [0 if f.is_numeric else len(f.categories) for f in ds.schema.features]
        binned, edges, n_bins = _binned(Xt, opts["max_bins"], pool, categories, given)
        grower = Grower(Xt, binned, edges, n_bins, max_leaf_nodes=opts["max_leaf_nodes"], max_depth=opts["max_depth"], min_samples_leaf=opts["min_samples_leaf"], l2=opts["l2_regularization"], threads=n_threads, lib=compiled_loops(), pool=pool if n_threads > 1 else None, categories=categories)
        return _boost(grower, ds, loss, yt, wt, positive, n_classes, opts, stopping, X_val, y_val, w_val, progress)


def checked_options(**options: Any) -> dict[str, Any]:
    """:func:`hist_gradient_boosting`'s ``options`` checked (a :class:`~puretree.errors.ParameterError` names a bad one).

    >>> checked_options(max_iter=3)
    {'max_iter': 3}
    """
    return {name: check(name, value, *_CONSTRAINTS[name]) for name, value in options.items()}


def boosted_model(stages: Sequence[tuple[Tree, ...]], init: np.ndarray, loss: str, schema: Any, opts: dict[str, Any], stopping: bool) -> Boosted:
    """The model of the grown ``stages`` with its options (``opts``: :func:`checked_options`'s)."""
    options = {
        "max_iter": opts["max_iter"], "n_iter_": len(stages), "max_leaf_nodes": opts["max_leaf_nodes"], "max_depth": opts["max_depth"],
        "min_samples_leaf": opts["min_samples_leaf"], "l2_regularization": opts["l2_regularization"], "max_bins": opts["max_bins"],
        "early_stopping": stopping, "validation_fraction": opts["validation_fraction"], "n_iter_no_change": opts["n_iter_no_change"],
        "tol": opts["tol"], "random_state": opts["random_state"], "builder": "hist_gradient_boosting",
    }  # fmt: skip
    if len(init) == 1 and loss == "log_loss":
        options["strict_class"] = True  # scikit-learn's HGB: class 1 where the probability is above one half
    return Boosted(tuple(stages), tuple(float(v) for v in init), float(opts["learning_rate"]), loss, schema, "float64", options)


def _boost(grower: Grower, ds: Dataset, loss: str, yt: np.ndarray, wt: np.ndarray, positive: np.ndarray, n_classes: int, opts: dict[str, Any], stopping: bool, X_val: np.ndarray | None, y_val: np.ndarray | None, w_val: np.ndarray | None, progress: Callable[[int], None] | None) -> Boosted:
    """The stages, grown on the binned training rows, and the model."""
    init = _init(loss, yt[positive], wt[positive], n_classes)
    raw = np.tile(init, (len(yt), 1))
    lr = float(opts["learning_rate"])
    schema = tree_schema(ds.schema)
    stages: list[tuple[Tree, ...]] = []
    scores: list[float] = []
    raw_val = None
    if stopping:
        assert X_val is not None and y_val is not None and w_val is not None
        raw_val = np.tile(init, (len(y_val), 1))
        scores.append(-_loss(loss, y_val, raw_val, w_val, n_classes))
    rows = positive.astype(np.int64)
    for _ in range(opts["max_iter"]):
        trees = []
        for k, (target, weight) in enumerate(stage_targets(loss, yt, raw, wt, n_classes)):
            tree, values = _stage_tree(grower, target, weight, rows, schema)
            raw[:, k] += lr * values
            trees.append(tree)
        stages.append(tuple(trees))
        if progress is not None:
            progress(len(stages))
        if raw_val is not None:
            assert X_val is not None and y_val is not None and w_val is not None
            for k, tree in enumerate(trees):
                raw_val[:, k] += lr * leaf_values(table(tree), X_val)
            scores.append(-_loss(loss, y_val, raw_val, w_val, n_classes))
            if _should_stop(scores, opts["n_iter_no_change"], opts["tol"]):
                break
    return boosted_model(stages, init, loss, ds.schema, opts, stopping)
