"""Histogram gradient boosting: scikit-learn's ``HistGradientBoosting*`` and LightGBM's
algorithm, on the growth package's binned source, as a :class:`~puretree.boosted.Boosted`.

Each numeric feature is binned once (:func:`puretree.growth.engine.quantile_bins`: at most
``max_bins`` bins, each standing for the largest training value in it, numbered by
:func:`puretree.growth.histograms.binned_rows`, a missing value in a bin of its own). Every
stage grows one regression tree per output (one for regression and two classes, one per class
for more) on the loss's gradients ``g`` and hessians ``h`` of the current raw scores, leaf by
leaf (best first) until ``max_leaf_nodes`` leaves:

- a node's histogram holds, per feature and bin, ``sum h``, ``sum -g``, ``sum g**2 / h`` and
  the rows: the binned source's regression histogram
  (:func:`puretree.growth.histograms.histogram`, summed in C where the library loads) of the
  target ``-g / h`` weighted by ``h``; only the smaller child of a split is summed, the
  larger one is its parent's histogram less the smaller's;
- a split's gain is ``G_L**2 / (H_L + l2) + G_R**2 / (H_R + l2) - G**2 / (H + l2)`` (``l2``:
  ``l2_regularization``), for every cut between bins and both sides for the node's missing
  values (the side a missing value takes is learned; where the node had none, it goes to the
  child with more rows); each child needs ``min_samples_leaf`` rows and a hessian sum of 1e-3;
  the best gain (the lowest feature, then cut, then missing values right on a tie) if positive;
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
from collections.abc import Callable
from typing import Any

import numpy as np

from .boosted import Boosted, leaf_values, table, tree_schema
from .data import Dataset, as_dataset
from .errors import DataError, ParameterError
from .growth.assemble import from_records
from .growth.engine import quantile_bins
from .growth.histograms import binned_rows, histogram
from .growth.kernels import PARALLEL_MIN_WORK
from .nodes import TESTS, Leaf, Node
from .params import Interval, Options, check
from .tree import Tree

__all__ = ["hist_gradient_boosting", "LOSSES", "MIN_HESSIAN"]

#: The losses, by task.
LOSSES = {"classification": ("log_loss",), "regression": ("squared_error",)}

#: The least hessian sum of a child (scikit-learn's ``min_hessian_to_split``, LightGBM's
#: ``min_sum_hessian_in_leaf``).
MIN_HESSIAN = 1e-3

_THRESHOLD: Any = TESTS["threshold"]  # the split test a stage tree makes

#: The smallest hessian a row keeps (a saturated probability's ``p (1 - p)`` underflows), so
#: that its target ``-g / h`` stays finite.
_TINY_HESSIAN = 1e-16

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
    """The initial raw score per output: the link of the weighted class shares (clipped to
    ``[eps, 1 - eps]``; K classes: ``log p_k`` less their mean), or the weighted mean."""
    if loss == "squared_error":
        return np.array([float(np.average(y, weights=w))])
    eps = float(np.finfo(np.float64).eps)
    p = np.clip(np.bincount(y, weights=w, minlength=n_classes) / w.sum(), eps, 1 - eps)
    if n_classes == 2:
        return np.array([math.log(p[1] / (1 - p[1]))])
    logs = np.log(p)
    return logs - logs.mean()


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


class _Grower:
    """The state of the fit shared by its stage trees: the bins, the rules, the threads."""

    def __init__(self, X: np.ndarray, bins: np.ndarray, edges: list[np.ndarray], n_bins: int, *, max_leaf_nodes: int | None, max_depth: int | None, min_samples_leaf: int, l2: float, threads: int) -> None:
        self.X, self.bins, self.edges, self.n_bins = X, bins, edges, n_bins
        self.leaf_rows: dict[int, np.ndarray] = {}
        self.max_leaf_nodes, self.max_depth, self.min_samples_leaf, self.l2 = max_leaf_nodes, max_depth, min_samples_leaf, l2
        self.threads = threads
        self.slot = np.zeros(1, dtype=np.int64)
        # cuts past a feature's last bin: no cut (its bins there are empty)
        last = np.array([len(e) - 1 for e in edges])
        self.beyond = np.arange(n_bins - 1)[None, :] > last[:, None]
        self.last = last

    def histogram(self, rows: np.ndarray | None, target: np.ndarray, weight: np.ndarray) -> np.ndarray:
        """The histogram ``(feature, bin, channel)`` of ``rows`` (None: all)."""
        if rows is None:
            b, t, w = self.bins, target, weight
        else:
            b, t, w = self.bins[rows], target[rows], weight[rows]
        # threads only for work enough (a pool costs more than a small node's sums)
        threads = self.threads if b.size >= PARALLEL_MIN_WORK else 1
        H, _, _ = histogram(b, t, w, np.zeros(len(t), dtype=np.int32), self.slot, 1, self.n_bins, 0, threads=threads)
        return H[0]

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

    def value(self, stats: np.ndarray) -> list[float]:
        """A leaf's statistics: ``(H + l2, -G, sum g**2 / h)``, its mean the Newton step."""
        return [float(stats[0]) + self.l2, float(stats[1]), float(stats[2])]

    def grow(self, target: np.ndarray, weight: np.ndarray, rows: np.ndarray) -> tuple[Node, np.ndarray]:
        """One stage tree on ``target = -g / h`` weighted by ``h`` over ``rows``; with each
        row's leaf value (``rows`` not among them: 0)."""
        H0 = self.histogram(rows if len(rows) < len(target) else None, target, weight)
        records: list[Any] = [None]
        nodes: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, int]] = {}  # open node: rows, histogram, totals, depth
        heap: list[tuple[float, int, tuple[float, int, int, int]]] = []

        def enter(g: int, node_rows: np.ndarray, Hn: np.ndarray, depth: int) -> None:
            total = Hn[0].sum(axis=0)
            nodes[g] = (node_rows, Hn, total, depth)
            found = None if self.max_depth is not None and depth >= self.max_depth else self.best_split(Hn, total)
            if found is None:
                records[g] = self.value(total)
                self.leaf_rows[g] = nodes.pop(g)[0]
            else:
                heapq.heappush(heap, (-found[0], g, found))

        self.leaf_rows = {}
        enter(0, rows, H0, 0)
        leaves = 1
        while heap and (self.max_leaf_nodes is None or leaves < self.max_leaf_nodes):
            _, g, (_, f, b, side) = heapq.heappop(heap)
            node_rows, Hn, total, depth = nodes.pop(g)
            col = self.bins[node_rows, f]
            miss = col == self.n_bins - 1
            right = np.where(miss, side == 1, col > b)
            r_rows, l_rows = node_rows[right], node_rows[~right]
            if side == 0 or Hn[f, -1, 3] > 0:
                missing_branch = side
            else:  # no missing value here: the child with more rows takes them
                missing_branch = 1 if len(r_rows) > len(l_rows) else 0
            cut = math.inf if b >= self.last[f] else float(self.edges[f][b])
            test = _THRESHOLD(cut, missing_branch=1 if cut == math.inf else missing_branch)
            kids = (len(records), len(records) + 1)
            records[g] = (f, test, kids, self.value(total))
            records.extend([None, None])
            small, large = (l_rows, r_rows) if len(l_rows) <= len(r_rows) else (r_rows, l_rows)
            Hs = self.histogram(small, target, weight)
            Hl = Hn - Hs
            first, second = (Hs, Hl) if small is l_rows else (Hl, Hs)
            enter(kids[0], l_rows, first, depth + 1)
            enter(kids[1], r_rows, second, depth + 1)
            leaves += 1
        values = np.zeros(len(target))
        for g, (node_rows, _, total, _) in nodes.items():  # the budget's open nodes: leaves
            records[g] = self.value(total)
            self.leaf_rows[g] = node_rows
        for g, node_rows in self.leaf_rows.items():
            values[node_rows] = _mean(records[g])
        self.leaf_rows = {}
        root = from_records([Leaf(r) if isinstance(r, list) else r for r in records])
        return root, values


def _mean(stats: list[float]) -> float:
    # As puretree.boosted reads a leaf: sum / weight (+ 0.0: no negative zero)
    return (stats[1] / stats[0] if stats[0] > 0 else 0.0) + 0.0


def _stage_tree(grower: _Grower, target: np.ndarray, weight: np.ndarray, rows: np.ndarray, schema: Any) -> tuple[Tree, np.ndarray]:
    """A stage tree and each training row's leaf value (the rows left out: by the tree)."""
    root, values = grower.grow(target, weight, rows)
    tree = Tree(root, schema, missing="majority")
    if len(rows) < len(target):
        out = np.zeros(len(target), dtype=bool)
        out[rows] = True
        values[~out] = leaf_values(table(tree), grower.X[~out])
    return tree, values


# -- fitting -----------------------------------------------------------------------------------


def _features(ds: Dataset) -> np.ndarray:
    """The numeric features (NaN: missing); a categorical feature or an infinite value refused by name."""
    for f in ds.schema.features:
        if not f.is_numeric:
            raise ParameterError(f"hist_gradient_boosting does not split categorical features natively yet; feature {f.name!r} is categorical (encode it as numbers first)")
    X = np.asarray(ds.X, dtype=np.float64)
    bad = np.isinf(X)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise DataError(f"hist_gradient_boosting takes finite values or NaN (missing); feature {ds.schema.features[j].name!r} has {float(X[i, j])!r} at {ds.row_name(i)}")
    return X


def hist_gradient_boosting(
    X: Any,
    y: Any = None,
    *,
    loss: str | None = None,
    learning_rate: float = 0.1,
    max_iter: int = 100,
    max_leaf_nodes: int | None = 31,
    max_depth: int | None = None,
    min_samples_leaf: int = 20,
    l2_regularization: float = 0.0,
    max_bins: int = 255,
    categorical_features: Any = None,
    early_stopping: str | bool = "auto",
    scoring: str = "loss",
    validation_fraction: float = 0.1,
    n_iter_no_change: int = 10,
    tol: float = 1e-7,
    random_state: int | None = None,
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
    missing values take one more). ``early_stopping``, ``scoring`` (``"loss"`` only),
    ``validation_fraction``, ``n_iter_no_change``, ``tol`` and ``random_state`` (the validation
    split's seed) as scikit-learn's; ``option("n_iter_")`` is the number of stages kept.
    ``categorical_features`` (native categorical splits) is not supported yet: anything but None
    is a :class:`~puretree.errors.ParameterError`, and so is a categorical feature. ``threads``
    (default: the cores) sum the histograms. ``progress(stages)`` is called after each stage.
    ``X``, ``y`` and the data options are :func:`~puretree.data.as_dataset`'s; nothing given is modified.

    >>> X = np.array([[float(i)] for i in range(40)])
    >>> model = hist_gradient_boosting(X, [0.0] * 20 + [10.0] * 20, loss="squared_error", max_iter=20, learning_rate=0.5, min_samples_leaf=5)
    >>> model.init, model.option("n_iter_")
    ((5.0,), 20)
    >>> [round(float(v), 3) for v in model.predict([[3.0], [30.0]])]
    [0.0, 10.0]
    """
    opts = {name: check(name, value, *_CONSTRAINTS[name]) for name, value in dict(
        max_iter=max_iter, learning_rate=learning_rate, max_leaf_nodes=max_leaf_nodes, max_depth=max_depth, min_samples_leaf=min_samples_leaf,
        l2_regularization=l2_regularization, max_bins=max_bins, early_stopping=early_stopping, scoring=scoring, validation_fraction=validation_fraction,
        n_iter_no_change=n_iter_no_change, tol=tol, random_state=random_state, threads=threads).items()}  # fmt: skip
    if categorical_features is not None:
        raise ParameterError(f"categorical_features={categorical_features!r}: native categorical splits are not supported by hist_gradient_boosting yet; encode the categories as numbers and pass categorical_features=None")
    if loss in LOSSES["regression"] and "task" not in data_options and not isinstance(X, Dataset):
        data_options = {**data_options, "task": "regression"}
    ds = as_dataset(X, y, sample_weight=sample_weight, **data_options)
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
    X_all = _features(ds)
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

    bins, edges, n_bins = binned_rows(Xt, lambda column, j: quantile_bins(column, opts["max_bins"]), threads=n_threads)
    grower = _Grower(Xt, bins, edges, n_bins, max_leaf_nodes=opts["max_leaf_nodes"], max_depth=opts["max_depth"], min_samples_leaf=opts["min_samples_leaf"], l2=opts["l2_regularization"], threads=n_threads)
    init = _init(loss, yt[positive], wt[positive], n_classes)
    K = len(init)
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
        g, h = _gradients(loss, yt, raw, wt, n_classes)
        h = np.maximum(h, _TINY_HESSIAN)
        trees = []
        for k in range(K):
            weight = np.ascontiguousarray(h[:, k])
            target = -g[:, k] / weight
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
    options = {
        "max_iter": opts["max_iter"], "n_iter_": len(stages), "max_leaf_nodes": opts["max_leaf_nodes"], "max_depth": opts["max_depth"],
        "min_samples_leaf": opts["min_samples_leaf"], "l2_regularization": opts["l2_regularization"], "max_bins": opts["max_bins"],
        "early_stopping": stopping, "validation_fraction": opts["validation_fraction"], "n_iter_no_change": opts["n_iter_no_change"],
        "tol": opts["tol"], "random_state": opts["random_state"], "builder": "hist_gradient_boosting",
    }  # fmt: skip
    if K == 1 and loss == "log_loss":
        options["strict_class"] = True  # scikit-learn's HGB: class 1 where the probability is above one half
    return Boosted(tuple(stages), tuple(float(v) for v in init), lr, loss, ds.schema, "float64", options)
