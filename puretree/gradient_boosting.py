"""Gradient boosting of regression trees, as scikit-learn 1.9's ``GradientBoostingClassifier``
and ``GradientBoostingRegressor`` fit it (``sklearn/ensemble/_gb.py``).

The model is an initial raw prediction per output plus, stage after stage, ``learning_rate``
times the leaf value of one regression tree per output (one for regression and two classes,
one per class for more). Every stage tree is a squared-error tree of the negative gradient of
the loss, grown by the recursive builder (:func:`puretree.builder.visited_regression_tree`),
whose leaves then take the loss's step ("terminal region update"):

============== ============================== ===================================================
loss           initial raw prediction         leaf value (over the leaf's in-bag rows)
============== ============================== ===================================================
log_loss, 2    ``logit`` of the class-1 share  one Newton step: ``sum(g) / sum(p (1 - p))``
log_loss, K>2  ``log(p_k / gmean(p))``         ``(K - 1) / K * sum(g) / sum(p (1 - p))``
squared_error  mean                            the tree's own (the gradient's mean)
absolute_error median                          weighted lower median of the residuals
huber          median                          median + mean of the clipped residuals (Friedman)
quantile       the ``alpha`` quantile          weighted ``alpha`` quantile of the residuals
============== ============================== ===================================================

(``g`` the negative gradient, ``p`` the predicted probability; the class shares clipped to
``[eps, 1 - eps]``; Huber's ``delta`` is the ``alpha`` quantile of the absolute residuals,
set anew each stage.) The raw scores are summed in float64, the initial value first, then the
stages in order; probabilities are the logistic (two classes) or the softmax of them.

**scikit-learn's splits, replayed.** scikit-learn's best splitter visits the features of
each node in a random order even with ``max_features=None`` and keeps the first strictly best
split in its own float arithmetic, so where splits tie its model depends on ``random_state``
and on its rounding. ``sklearn_tie_break=True`` replays both
(:class:`~puretree.splits.SklearnSplitter` finds each stage tree's splits inside the
recursive builder): the booster holds ``numpy.random.RandomState(random_state)``; each stage
first draws its subsample from it (``uniform(size=n)``, row ``i`` in the bag when
``u_i * (n - i)`` is below the rows still wanted), then each of its trees draws its splitter's
seed ``randint(0, 2**31 - 1)``; the splitter draws the features of each node it searches by
Fisher-Yates with a 32-bit xorshift, sorts the rows by its introsort, carries the sums from
cut to cut and partitions the rows as scikit-learn does; a squared-error leaf keeps the mean
summed in scikit-learn's order. The gradients, softmax and logistic use the C library's
``exp``, as scikit-learn's compiled losses do. The data are rounded to float32 first, as
scikit-learn fits on float32, and each threshold ``t`` is stored as the largest double ``v``
with ``x <= v`` exactly when ``float32(x) <= t``, so the model (a
:class:`~puretree.boosted.Boosted` summing in float64) answers every double as scikit-learn
does. Early stopping holds out ``validation_fraction``
of the rows exactly as scikit-learn's ``train_test_split`` does (stratified for classes) with
``random_state``. Without the option (and without ``max_features``), each stage tree is
:func:`~puretree.splits.threshold_splits`' (ties to the lowest feature).

>>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0], [4.0, 1.0], [5.0, 0.0]])
>>> model = gradient_boosting(X, ["a", "a", "b", "b", "c", "c"], n_estimators=5, max_depth=2, sklearn_tie_break=True, random_state=0)
>>> len(model.stages), len(model.stages[0]), model.loss     # 5 stages of 3 trees: one per class
(5, 3, 'log_loss')
>>> model.predict(X).tolist()
['a', 'a', 'b', 'b', 'c', 'c']
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import attrs
import numpy as np

from .boosted import Boosted, tree_schema
from .builder import visited_regression_tree
from .data import Dataset, as_dataset
from .errors import DataError, ParameterError
from .nodes import Leaf, Node, Split, exact_mean
from .params import Interval, check
from .splits import RAND_R_MAX, SklearnSplitter, resolve_max_features
from .tree import Tree

__all__ = ["gradient_boosting", "gradient_importances", "validation_split", "LOSSES"]

#: The losses, by task: classification's and regression's.
LOSSES = {"classification": ("log_loss",), "regression": ("squared_error", "absolute_error", "huber", "quantile")}

_EPS = float(np.finfo(np.float64).eps)


# -- the losses: scikit-learn's formulas (sklearn/_loss/_loss.pyx.tp), row by row ------------

def _exp_minus_max(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's ``exp(raw - max)`` with the C library's ``exp``, their sum class after class,
    and the maximum: scikit-learn's ``sum_exp_minus_max`` (its losses and gradients)."""
    top = raw.max(axis=1)
    e = np.array([[math.exp(v) for v in row] for row in (raw - top[:, None]).tolist()]).reshape(raw.shape)
    total = e[:, 0].copy()
    for k in range(1, raw.shape[1]):
        total += e[:, k]
    return e, total, top


def _softmax(raw: np.ndarray) -> np.ndarray:
    """Rows' softmax as scikit-learn's multinomial gradient computes it."""
    e, total, _ = _exp_minus_max(raw)
    return e / total[:, None]


def _binomial_gradient(y: np.ndarray, raw: np.ndarray) -> np.ndarray:
    """``expit(raw) - y``, scikit-learn's ``cgradient_half_binomial``."""
    out = np.empty(raw.shape[0])
    for i, (t, r) in enumerate(zip(y.tolist(), raw.tolist())):
        if r > -37:
            e = math.exp(-r)
            out[i] = ((1 - t) - t * e) / (1 + e)
        else:
            out[i] = math.exp(r) - t
    return out


def _neg_gradient(loss: str, y: np.ndarray, raw: np.ndarray, n_classes: int, delta: float, alpha: float) -> np.ndarray:
    """The negative gradient of the loss, (rows, outputs)."""
    if loss == "log_loss" and n_classes == 2:
        return -_binomial_gradient(y, raw[:, 0])[:, None]
    if loss == "log_loss":
        return np.eye(n_classes)[y] - _softmax(raw)
    r = raw[:, 0]
    if loss == "squared_error":
        g = r - y
    elif loss == "absolute_error":
        g = np.where(r > y, 1.0, -1.0)
    elif loss == "quantile":
        g = np.where(y >= r, -alpha, 1.0 - alpha)
    else:  # huber
        res = r - y
        g = np.where(np.abs(res) <= delta, res, np.where(res >= 0, delta, -delta))
    return -g[:, None]


def _log1pexp(r: float) -> float:
    if r <= -37:
        return math.exp(r)
    if r <= -2:
        return math.log1p(math.exp(r))
    if r <= 18:
        return math.log(1.0 + math.exp(r))
    if r <= 33.3:
        return r + math.exp(-r)
    return r


def _loss_value(loss: str, y: np.ndarray, raw: np.ndarray, w: np.ndarray, n_classes: int, delta: float, alpha: float) -> float:
    """The weighted mean loss as scikit-learn's early stopping measures it (twice the half
    losses: squared error and binary log-loss)."""
    if loss == "log_loss" and n_classes == 2:
        per = np.array([_log1pexp(r) - t * r for t, r in zip(y.tolist(), raw[:, 0].tolist())])
        return 2 * float(np.average(per, weights=w))
    if loss == "log_loss":
        _, total, top = _exp_minus_max(raw)
        per = np.array([math.log(t) for t in total.tolist()]) + top - raw[np.arange(raw.shape[0]), y]
        return float(np.average(per, weights=w))
    r = raw[:, 0]
    diff = y - r
    if loss == "squared_error":
        return 2 * float(np.average(0.5 * diff * diff, weights=w))
    if loss == "absolute_error":
        return float(np.average(np.abs(diff), weights=w))
    if loss == "quantile":
        return float(np.average(np.where(diff >= 0, alpha * diff, (alpha - 1) * diff), weights=w))
    a = np.abs(diff)
    return float(np.average(np.where(a <= delta, 0.5 * diff * diff, delta * (a - 0.5 * delta)), weights=w))


def _weighted_percentile(values: np.ndarray, weights: np.ndarray, rank: float) -> float:
    """scikit-learn's ``_weighted_percentile`` (inverted cdf): the first value in sorted order
    whose cumulated weight reaches ``rank / 100`` of the total.

    >>> _weighted_percentile(np.array([4.0, 1.0, 3.0, 2.0]), np.ones(4), 50.0)
    2.0
    """
    order = np.argsort(values, kind="stable")
    cdf = np.cumsum(weights[order])
    target = rank / 100 * cdf[-1]
    if target == 0:
        target = np.nextafter(target, target + 1)
    i = min(int(np.searchsorted(cdf, target)), len(values) - 1)
    return float(values[order[i]])


def _logit(p: float) -> float:
    """``log(p / (1 - p))`` as scipy's ``logit`` computes it (scikit-learn's link): through
    ``log1p`` near one half, where the plain formula loses precision.

    >>> _logit(0.5675), math.log(0.5675 / (1 - 0.5675))
    (0.27165842298362375, 0.2716584229836237)
    """
    if p < 0.3 or p > 0.65:
        return math.log(p / (1 - p))
    s = 2 * (p - 0.5)
    return math.log1p(s) - math.log1p(-s)


def _init(loss: str, y: np.ndarray, w: np.ndarray | None, n_classes: int, alpha: float) -> np.ndarray:
    """The initial raw prediction per output (scikit-learn's ``DummyClassifier(strategy="prior")``
    or ``DummyRegressor``, through the loss's link)."""
    if loss == "log_loss":
        counts = np.bincount(y, weights=w, minlength=n_classes).astype(np.float64)
        p = np.clip(counts / counts.sum(), _EPS, 1 - _EPS)
        if n_classes == 2:
            return np.array([_logit(float(p[1]))])
        logs = np.log(p)
        return np.log(p / np.exp(logs.mean()))
    if loss == "squared_error":
        return np.array([float(np.average(y, weights=w))])
    rank = 100.0 * alpha if loss == "quantile" else 50.0
    if w is None:
        return np.array([float(np.percentile(y, rank))])
    return np.array([_weighted_percentile(y, w, rank)])


def _leaf_update(loss: str, y_k: np.ndarray, g: np.ndarray, residual: np.ndarray, w: np.ndarray, n_classes: int, delta: float, alpha: float) -> float:
    """A leaf's value from its in-bag rows: scikit-learn's ``_update_terminal_regions``."""
    if loss == "log_loss":
        prob = y_k - g
        numerator = float(np.average(g, weights=w))
        if n_classes > 2:
            numerator *= (n_classes - 1) / n_classes
        denominator = float(np.average(prob * (1 - prob), weights=w))
        return 0.0 if abs(denominator) < 1e-150 else numerator / denominator
    if loss == "absolute_error":
        return _weighted_percentile(residual, w, 50)
    if loss == "quantile":
        return _weighted_percentile(residual, w, 100 * alpha)
    median = _weighted_percentile(residual, w, 50)  # huber
    diff = residual - median
    return float(median + np.average(np.sign(diff) * np.minimum(delta, np.abs(diff)), weights=w))


# -- trees -------------------------------------------------------------------------------------

def _leaf_ids(node: Node, X: np.ndarray) -> tuple[list[Leaf], np.ndarray]:
    """The tree's leaves in pre-order and the index of the leaf each row of ``X`` reaches
    (no missing values: ``x <= t`` goes left)."""
    leaves: list[Leaf] = []
    ids = np.empty(X.shape[0], dtype=np.int64)

    def walk(n: Node, rows: np.ndarray) -> None:
        if isinstance(n, Leaf):
            ids[rows] = len(leaves)
            leaves.append(n)
            return
        assert isinstance(n, Split)
        right = X[rows, n.feature] > n.test.value  # type: ignore[attr-defined]
        walk(n.children[0], rows[~right])
        walk(n.children[1], rows[right])

    walk(node, np.arange(X.shape[0]))
    return leaves, ids


def _leaf_paths(node: Node, path: tuple[int, ...] = ()) -> list[tuple[int, ...]]:
    """The branches from the root to each leaf, in pre-order."""
    if isinstance(node, Leaf):
        return [path]
    assert isinstance(node, Split)
    return [p for b, child in enumerate(node.children) for p in _leaf_paths(child, (*path, b))]


def _value(leaf: Leaf) -> float:
    w = float(leaf.counts[0])
    return float(leaf.counts[1]) / w if w > 0 else 0.0


def _leaf_of_value(leaf: Leaf, v: float) -> Leaf:
    """``leaf`` predicting ``v`` exactly (``sum / weight == v``), its weight (cover) kept (:func:`~puretree.nodes.exact_mean`)."""
    w, total = exact_mean(v, float(leaf.counts[0]))
    return Leaf((w, total, total * v))


def _with_values(node: Node, values: list[float], start: int = 0) -> tuple[Node, int]:
    """``node`` with its leaves (pre-order) predicting ``values``."""
    if isinstance(node, Leaf):
        return _leaf_of_value(node, values[start]), start + 1
    assert isinstance(node, Split)
    kids = []
    for child in node.children:
        kid, start = _with_values(child, values, start)
        kids.append(kid)
    return attrs.evolve(node, children=tuple(kids)), start


def _tree_values(tree: Tree, X: np.ndarray) -> np.ndarray:
    leaves, ids = _leaf_ids(tree.root, X)
    return np.array([_value(leaf) for leaf in leaves])[ids]


# -- the validation split: scikit-learn's train_test_split -------------------------------------

def _approximate_mode(class_counts: np.ndarray, n_draws: int, rng: np.random.RandomState) -> np.ndarray:
    """scikit-learn's ``_approximate_mode`` (``sklearn/utils/extmath.py``)."""
    continuous = class_counts / class_counts.sum() * n_draws
    floored = np.floor(continuous)
    need_to_add = int(n_draws - floored.sum())
    if need_to_add > 0:
        remainder = continuous - floored
        for value in np.sort(np.unique(remainder))[::-1]:
            (inds,) = np.where(remainder == value)
            add_now = min(len(inds), need_to_add)
            inds = rng.choice(inds, size=add_now, replace=False)
            floored[inds] += 1
            need_to_add -= add_now
            if need_to_add == 0:
                break
    return floored.astype(int)


def _validation_split(n: int, fraction: float, seed: int, classes: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    """The (train, validation) row indices of ``train_test_split(..., test_size=fraction,
    random_state=seed, stratify=classes)``, in its order."""
    n_test = math.ceil(fraction * n)
    n_train = n - n_test
    if n_train <= 0 or n_test <= 0:
        raise ParameterError(f"validation_fraction={fraction} leaves {n_train} training and {n_test} validation rows of {n}; both must be at least 1")
    rng = np.random.RandomState(seed)
    if classes is None:
        perm = rng.permutation(n)
        return perm[n_test : n_test + n_train], perm[:n_test]
    _, y_indices, counts = np.unique(classes, return_inverse=True, return_counts=True)
    if counts.min() < 2 or n_train < len(counts) or n_test < len(counts):
        raise DataError(f"early stopping holds out a stratified {fraction} of the rows: each class needs at least 2 rows and each side at least one row per class ({len(counts)} classes, {n} rows)")
    class_indices = np.split(np.argsort(y_indices, kind="stable"), np.cumsum(counts)[:-1])
    n_i = _approximate_mode(counts, n_train, rng)
    t_i = _approximate_mode(counts - n_i, n_test, rng)
    train: list[int] = []
    test: list[int] = []
    for i in range(len(counts)):
        perm_i = class_indices[i].take(rng.permutation(counts[i]), mode="clip")
        train.extend(perm_i[: n_i[i]])
        test.extend(perm_i[n_i[i] : n_i[i] + t_i[i]])
    return rng.permutation(train), rng.permutation(test)


#: The early-stopping split (scikit-learn's ``train_test_split``), for the histogram booster too.
validation_split = _validation_split


def _sample_mask(n: int, n_inbag: int, rng: np.random.RandomState) -> np.ndarray:
    """scikit-learn's ``_random_sample_mask``: ``n_inbag`` of ``n`` rows, from ``uniform(size=n)``."""
    u = rng.uniform(size=n).tolist()
    mask = np.zeros(n, dtype=bool)
    bagged = 0
    for i in range(n):
        if u[i] * (n - i) < n_inbag - bagged:
            mask[i] = True
            bagged += 1
    return mask


# -- fitting -----------------------------------------------------------------------------------

_CONSTRAINTS = {
    "n_estimators": (Interval(int, 1, None),),
    "learning_rate": (Interval(float, 0, None, closed="neither"),),
    "subsample": (Interval(float, 0, 1, closed="right"),),
    "validation_fraction": (Interval(float, 0, 1, closed="neither"),),
    "n_iter_no_change": (Interval(int, 1, None), None),
    "tol": (Interval(float, 0, None),),
    "alpha": (Interval(float, 0, 1, closed="neither"),),
    "random_state": (Interval(int, 0, 2**32 - 1), None),
}


def _checked(**options: Any) -> dict[str, Any]:
    return {name: check(name, value, *_CONSTRAINTS[name]) for name, value in options.items()}


def _float32(ds: Dataset) -> np.ndarray:
    """The features as scikit-learn fits on them (float32), in float64; a categorical feature,
    a missing value or a value beyond float32's range is refused by name."""
    for f in ds.schema.features:
        if not f.is_numeric:
            raise DataError(f"gradient_boosting takes numeric features only; feature {f.name!r} is categorical (encode it first)")
    with np.errstate(over="ignore"):
        X = ds.X.astype(np.float32).astype(np.float64)
    bad = ~np.isfinite(X)
    if bad.any():
        i, j = (int(v) for v in np.argwhere(bad)[0])
        raise DataError(f"gradient_boosting needs finite values within float32's range; feature {ds.schema.features[j].name!r} has {float(ds.X[i, j])!r} at {ds.row_name(i)}")
    return X


def gradient_boosting(
    X: Any,
    y: Any = None,
    *,
    loss: str | None = None,
    n_estimators: int = 100,
    learning_rate: float = 0.1,
    max_depth: int | None = 3,
    subsample: float = 1.0,
    max_features: int | float | str | None = None,
    random_state: int | None = None,
    sklearn_tie_break: bool = False,
    n_iter_no_change: int | None = None,
    validation_fraction: float = 0.1,
    tol: float = 1e-4,
    alpha: float = 0.9,
    min_samples_split: float = 2,
    min_samples_leaf: float = 1,
    min_impurity_decrease: float = 0.0,
    sample_weight: Any = None,
    progress: Callable[[int], None] | None = None,
    **data_options: Any,
) -> Boosted:
    """Gradient boosting of regression trees (see the module notes), as scikit-learn 1.9's
    ``GradientBoostingClassifier`` / ``GradientBoostingRegressor`` with the same options.

    ``loss``: ``"log_loss"`` (classification, the default for class labels),
    ``"squared_error"`` (regression's default; a regression loss makes ``y`` numeric targets), ``"absolute_error"``, ``"huber"`` or
    ``"quantile"`` (``alpha``: the quantile, and Huber's breaking point). ``subsample`` < 1 fits
    each stage on a draw of the rows; ``max_features`` lets each node search that many features
    (``"sqrt"``, ``"log2"``, a count or a fraction), drawn as scikit-learn's splitter draws them
    from ``random_state``. ``n_iter_no_change``: stop when the loss on the held-out
    ``validation_fraction`` of the rows has not improved by ``tol`` for that many stages
    (``option("n_estimators_")`` is the number of stages kept). ``sklearn_tie_break``: visit
    each node's features in scikit-learn's order for the same ``random_state`` so that tied
    splits go the same way (the model is then scikit-learn's, see the module notes);
    otherwise the lowest feature wins a tie. ``X``, ``y`` and the data options are
    :func:`~puretree.data.as_dataset`'s; the input is never modified. ``progress``, if given, is
    called with the number of stages grown after each stage (``fit --progress``).

    >>> X = np.array([[1.0], [2.0], [3.0], [4.0]])
    >>> model = gradient_boosting(X, [1.0, 1.0, 11.0, 11.0], loss="squared_error", n_estimators=10, learning_rate=0.5, max_depth=1)
    >>> model.init, len(model.stages), model.option("n_estimators_")
    ((6.0,), 10, 10)
    >>> print(model.stages[0][0].to_text())
    x0 <= 2.5: -5 (2)
    x0 > 2.5: 5 (2)
    >>> [round(float(v), 4) for v in model.predict(X)]   # 6 -+ 5 * (1 - 0.5 ** 10)
    [1.0049, 1.0049, 10.9951, 10.9951]
    """
    opts = _checked(n_estimators=n_estimators, learning_rate=learning_rate, subsample=subsample, validation_fraction=validation_fraction, n_iter_no_change=n_iter_no_change, tol=tol, alpha=alpha, random_state=random_state)
    if loss in LOSSES["regression"] and "task" not in data_options and not isinstance(X, Dataset):
        data_options = {**data_options, "task": "regression"}  # a regression loss says what y is
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
    if task == "classification" and len(np.unique(np.asarray(ds.y))) < 2:
        raise DataError("gradient boosting needs at least two classes in y")
    Xf = _float32(ds)
    yv = np.asarray(ds.y, dtype=np.int64 if task == "classification" else np.float64)
    if task == "regression" and not np.isfinite(yv).all():
        raise DataError(f"the target must be finite; {ds.row_name(int(np.flatnonzero(~np.isfinite(yv))[0]))} has {yv[~np.isfinite(yv)][0]!r}")
    weights = None if ds.sample_weight is None else np.asarray(ds.sample_weight, dtype=np.float64)
    seed = 0 if opts["random_state"] is None else opts["random_state"]
    n_features = ds.schema.n_features
    n_drawn = resolve_max_features(max_features, n_features)

    X_val = y_val = w_val = None
    if opts["n_iter_no_change"] is not None:
        train, val = _validation_split(ds.n_rows, opts["validation_fraction"], seed, yv if task == "classification" else None)
        X_val, y_val = Xf[val], yv[val]
        w_val = np.ones(len(val)) if weights is None else weights[val]
        Xf, yv = Xf[train], yv[train]
        weights = None if weights is None else weights[train]
        if task == "classification" and len(np.unique(yv)) != len(np.unique(np.asarray(ds.y))):
            raise DataError("the training rows left after the early-stopping split miss a class: try another random_state")
    n = Xf.shape[0]
    sw = np.ones(n) if weights is None else weights

    init = _init(loss, yv, weights, n_classes, opts["alpha"])
    K = len(init)
    raw = np.tile(init, (n, 1))
    rng = np.random.RandomState(seed)
    reg_schema = tree_schema(ds.schema)  # the stage trees' schema as a Boosted (and its JSON) has it
    stages: list[tuple[Tree, ...]] = []
    n_inbag = max(1, int(opts["subsample"] * n))
    mask = np.ones(n, dtype=bool)
    history = None if opts["n_iter_no_change"] is None else np.full(opts["n_iter_no_change"], np.inf)
    raw_val = None if X_val is None else np.tile(init, (X_val.shape[0], 1))
    delta = 0.0
    for i in range(opts["n_estimators"]):
        if opts["subsample"] < 1.0:
            mask = _sample_mask(n, n_inbag, rng)
        if loss == "huber":
            delta = _weighted_percentile(np.abs(yv - raw[:, 0]), sw, 100 * opts["alpha"])
        g = _neg_gradient(loss, yv, raw, n_classes, delta, opts["alpha"])
        stage_w = sw * mask if opts["subsample"] < 1.0 else sw
        trees = []
        for k in range(K):
            tree_seed = int(rng.randint(0, RAND_R_MAX))
            visit = None
            if sklearn_tie_break or n_drawn is not None:
                visit = SklearnSplitter.seeded(n_features, seed=tree_seed, max_features=n_drawn, max_depth=max_depth, min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf)
            stage_ds = Dataset(reg_schema, Xf, g[:, k].copy(), stage_w if (weights is not None or opts["subsample"] < 1.0) else None)
            tree = visited_regression_tree(stage_ds, visit=visit, max_depth=max_depth, min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf, min_impurity_decrease=min_impurity_decrease)
            if loss == "squared_error" and visit is not None:  # the leaf means as scikit-learn sums them
                tree = attrs.evolve(tree, root=_with_values(tree.root, [visit.values[path] for path in _leaf_paths(tree.root)])[0])
            if loss != "squared_error":
                leaves, ids = _leaf_ids(tree.root, Xf)
                y_k = (yv == k).astype(np.float64) if loss == "log_loss" and n_classes > 2 else yv.astype(np.float64)
                values = []
                for leaf in range(len(leaves)):
                    rows = np.flatnonzero((ids == leaf) & mask)
                    values.append(_leaf_update(loss, y_k[rows], g[rows, k], y_k[rows] - raw[rows, k], sw[rows], n_classes, delta, opts["alpha"]))
                tree = attrs.evolve(tree, root=_with_values(tree.root, values)[0])
            raw[:, k] += opts["learning_rate"] * _tree_values(tree, Xf)
            trees.append(tree)
        stages.append(tuple(trees))
        if progress is not None:
            progress(len(stages))
        if history is not None:
            assert raw_val is not None and X_val is not None and y_val is not None and w_val is not None
            for k, tree in enumerate(trees):
                raw_val[:, k] += opts["learning_rate"] * _tree_values(tree, X_val)
            validation_loss = _loss_value(loss, y_val, raw_val, w_val, n_classes, delta, opts["alpha"])
            if np.any(validation_loss + opts["tol"] < history):
                history[i % len(history)] = validation_loss
            else:
                break
    options = {"n_estimators": opts["n_estimators"], "n_estimators_": len(stages), "alpha": opts["alpha"], "subsample": opts["subsample"], "max_depth": max_depth, "max_features": max_features, "random_state": opts["random_state"], "sklearn_tie_break": sklearn_tie_break, "n_iter_no_change": opts["n_iter_no_change"], "validation_fraction": opts["validation_fraction"], "tol": opts["tol"], "min_samples_split": min_samples_split, "min_samples_leaf": min_samples_leaf, "huber_delta": delta}
    return Boosted(tuple(stages), tuple(float(v) for v in init), float(opts["learning_rate"]), loss, ds.schema, "float64", options)


def gradient_importances(model: Boosted, X: Any, y: Any = None, *, sample_weight: Any = None, **data_options: Any) -> np.ndarray:
    """scikit-learn's ``feature_importances_`` of a model :func:`gradient_boosting` fitted on
    ``X``, ``y`` (the same data and weights): each stage tree's weighted impurity decreases of
    the negative gradient it was grown on, averaged over the trees that split, normalised.

    A stage tree's leaves hold the stage's leaf values, not the gradient's statistics, so
    :meth:`Boosted.feature_importances` cannot give these; the fit is replayed (the gradients
    stage by stage, the subsample draws and the early-stopping split from ``random_state``).

    >>> X = np.array([[0.0, 5.0], [1.0, 3.0], [2.0, 4.0], [3.0, 1.0]])
    >>> model = gradient_boosting(X, [0.0, 1.0, 5.0, 6.0], loss="squared_error", n_estimators=3, max_depth=1)
    >>> gradient_importances(model, X, [0.0, 1.0, 5.0, 6.0], task="regression").tolist()
    [1.0, 0.0]
    """
    from .importance import impurity_decreases

    if model.loss in LOSSES["regression"] and "task" not in data_options and not isinstance(X, Dataset):
        data_options = {**data_options, "task": "regression"}
    ds = as_dataset(X, y, sample_weight=sample_weight, **data_options)
    task = ds.schema.task
    Xf = _float32(ds)
    yv = np.asarray(ds.y, dtype=np.int64 if task == "classification" else np.float64)
    weights = None if ds.sample_weight is None else np.asarray(ds.sample_weight, dtype=np.float64)
    n_classes = len(ds.schema.classes) if task == "classification" else 0
    seed = model.option("random_state") or 0
    alpha = float(model.option("alpha", 0.9))
    if model.option("n_iter_no_change") is not None:
        train, _ = _validation_split(ds.n_rows, float(model.option("validation_fraction")), seed, yv if task == "classification" else None)
        Xf, yv = Xf[train], yv[train]
        weights = None if weights is None else weights[train]
    n = Xf.shape[0]
    sw = np.ones(n) if weights is None else weights
    subsample = float(model.option("subsample", 1.0))
    n_inbag = max(1, int(subsample * n))
    rng = np.random.RandomState(seed)
    raw = np.tile(np.asarray(model.init, dtype=np.float64), (n, 1))
    mask = np.ones(n, dtype=bool)
    total = np.zeros(ds.schema.n_features)
    n_split = 0
    for stage in model.stages:
        if subsample < 1.0:
            mask = _sample_mask(n, n_inbag, rng)
        delta = _weighted_percentile(np.abs(yv - raw[:, 0]), sw, 100 * alpha) if model.loss == "huber" else 0.0
        g = _neg_gradient(model.loss, yv, raw, n_classes, delta, alpha)
        w = sw * mask
        for k, tree in enumerate(stage):
            rng.randint(0, RAND_R_MAX)  # the tree's splitter seed, drawn as the fit drew it
            leaves, ids = _leaf_ids(tree.root, Xf)
            if isinstance(tree.root, Split):
                stats = [(float(np.sum(w[ids == i])), float(np.sum((w * g[:, k])[ids == i])), float(np.sum((w * g[:, k] ** 2)[ids == i]))) for i in range(len(leaves))]
                grown = attrs.evolve(tree, root=_with_stats(tree.root, stats)[0])
                total += impurity_decreases(grown)
                n_split += 1
            raw[:, k] += model.learning_rate * np.array([_value(leaf) for leaf in leaves])[ids]
    if n_split == 0:
        return total
    mean = total / n_split
    return mean / mean.sum() if mean.sum() > 0 else mean


def _with_stats(node: Node, stats: list[tuple[float, float, float]], start: int = 0) -> tuple[Node, int]:
    """``node`` with its leaves (pre-order) holding ``stats``."""
    if isinstance(node, Leaf):
        return Leaf(stats[start]), start + 1
    assert isinstance(node, Split)
    kids = []
    for child in node.children:
        kid, start = _with_stats(child, stats, start)
        kids.append(kid)
    return attrs.evolve(node, children=tuple(kids)), start
