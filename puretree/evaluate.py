"""Measuring a tree honestly: accuracy, the confusion matrix, per-class precision and recall,
ROC AUC, a seeded train/test split and stratified k-fold cross-validation of any ``fit``.

>>> accuracy(["a", "b", "b"], ["a", "b", "a"])
0.6666666666666666
>>> labels, matrix = confusion_matrix(["a", "b", "b"], ["a", "b", "a"])
>>> labels, matrix.tolist()
(('a', 'b'), [[1, 0], [1, 1]])

Labels are compared by value as the data module defines it
(:func:`~puretree.data.category_key`): the text ``"True"`` is the boolean ``True`` and ``"1"``
the number ``1``, but ``True`` is not ``1``:

>>> accuracy([True, "1", 1.0], ["true", 1, True])
0.6666666666666666
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np

from .data import Dataset, as_dataset, category_key
from .errors import DataError, ParameterError
from .params import Interval, IsCallable, check

__all__ = [
    "accuracy",
    "confusion_matrix",
    "format_confusion",
    "ClassScores",
    "precision_recall",
    "format_precision_recall",
    "roc_auc",
    "train_test_split",
    "stratified_folds",
    "CrossValidation",
    "cross_validate",
]


def _labels_list(values: Any, what: str) -> list[Any]:
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__") and not hasattr(values, "__iter__"):
        raise DataError(f"{what} must be a sequence of labels, got {type(values).__name__}")
    arr = np.asarray(list(values) if not hasattr(values, "__len__") else values, dtype=object)
    if arr.ndim != 1:
        raise DataError(f"{what} must be one label per row (one-dimensional), got shape {arr.shape}")
    return list(arr)


def _pair(y_true: Any, y_pred: Any) -> tuple[list[Any], list[Any]]:
    t, p = _labels_list(y_true, "the true labels"), _labels_list(y_pred, "the predictions")
    if len(t) != len(p):
        raise DataError(f"{len(t)} true labels but {len(p)} predictions")
    if not t:
        raise DataError("no labels to compare")
    return t, p


def _label_key(value: Any) -> Any:
    """A label's value for comparison (see the module notes); unhashable labels by their repr."""
    key = category_key(value)
    try:
        hash(key)
    except TypeError:
        return ("other", repr(value))
    return key


def _label_order(value: Any) -> tuple[str, str, Any]:
    kind, v = _label_key(value)
    return (kind, type(v).__name__, v) if kind != "number" else (kind, "", v)


def accuracy(y_true: Any, y_pred: Any) -> float:
    """The fraction of predictions equal to the true labels (compared by value, as above)."""
    t, p = _pair(y_true, y_pred)
    return sum(_label_key(a) == _label_key(b) for a, b in zip(t, p)) / len(t)


def confusion_matrix(y_true: Any, y_pred: Any, *, labels: Sequence[Any] | None = None) -> tuple[tuple[Any, ...], np.ndarray]:
    """``(labels, matrix)``: ``matrix[i, j]`` counts rows of true label i predicted as j.

    Labels are matched by value (``"True"`` is ``True``); a value missing from ``labels`` is
    added after them, spelled as it first appears.
    """
    t, p = _pair(y_true, y_pred)
    if labels is None:
        first: dict[Any, Any] = {}
        for v in t + p:
            first.setdefault(_label_key(v), v)
        try:
            labels = sorted(first.values(), key=_label_order)
        except TypeError:  # values of one kind that do not order (other objects): as they came
            labels = list(first.values())
    index: dict[Any, int] = {}
    kept: list[Any] = []
    for v in [*labels, *t, *p]:  # the given labels first, then any other value as it first appears
        key = _label_key(v)
        if key not in index:
            index[key] = len(kept)
            kept.append(v)
    labels = tuple(kept)
    matrix = np.zeros((len(labels), len(labels)), dtype=np.int64)
    for a, b in zip(t, p):
        matrix[index[_label_key(a)], index[_label_key(b)]] += 1
    return labels, matrix


def format_confusion(labels: Sequence[Any], matrix: np.ndarray) -> str:
    """A confusion matrix as an aligned text table (rows: true, columns: predicted).

    >>> print(format_confusion(("no", "yes"), np.array([[4, 1], [0, 9]])))
    true \\ predicted   no  yes
    no                  4    1
    yes                 0    9
    """
    names = [str(v) for v in labels]
    head = "true \\ predicted"
    first = max([len(head)] + [len(n) for n in names])
    width = max([len(n) for n in names] + [len(str(int(matrix.max()))) if matrix.size else 1])
    lines = [head.ljust(first) + "".join(f"  {n:>{width}}" for n in names)]
    for n, row in zip(names, matrix):
        lines.append(n.ljust(first) + "".join(f"  {int(v):>{width}}" for v in row))
    return "\n".join(lines)



@attrs.frozen
class ClassScores:
    """One class's precision, recall, F1 and support (its number of true rows)."""

    label: Any
    precision: float
    recall: float
    f1: float
    support: int


def precision_recall(y_true: Any, y_pred: Any, *, labels: Sequence[Any] | None = None) -> tuple[ClassScores, ...]:
    """Per-class precision (right among predicted), recall (found among true), F1 and support.

    A class never predicted has precision 0, a class absent from the truth recall 0 (as
    scikit-learn's ``zero_division=0``).

    >>> [(s.label, s.precision, s.recall, s.support) for s in precision_recall(["a", "b", "b"], ["a", "b", "a"])]
    [('a', 0.5, 1.0, 1), ('b', 1.0, 0.5, 2)]
    """
    names, matrix = confusion_matrix(y_true, y_pred, labels=labels)
    found = np.diag(matrix).astype(np.float64)
    predicted = matrix.sum(axis=0)
    actual = matrix.sum(axis=1)
    out = []
    for i, label in enumerate(names):
        p = found[i] / predicted[i] if predicted[i] else 0.0
        r = found[i] / actual[i] if actual[i] else 0.0
        f = 2 * p * r / (p + r) if p + r > 0 else 0.0
        out.append(ClassScores(label, float(p), float(r), float(f), int(actual[i])))
    return tuple(out)


def format_precision_recall(scores: Sequence[ClassScores]) -> str:
    """Per-class scores as an aligned text table.

    >>> print(format_precision_recall(precision_recall(["a", "b", "b"], ["a", "b", "a"])))
    class  precision  recall      f1  support
    a         0.5000  1.0000  0.6667        1
    b         1.0000  0.5000  0.6667        2
    """
    names = [str(s.label) for s in scores]
    first = max([len("class")] + [len(n) for n in names])
    lines = ["class".ljust(first) + "  precision  recall      f1  support"]
    for n, s in zip(names, scores):
        lines.append(f"{n.ljust(first)}  {s.precision:9.4f}  {s.recall:6.4f}  {s.f1:6.4f}  {s.support:7d}")
    return "\n".join(lines)


def roc_auc(y_true: Any, y_score: Any, *, positive: Any = None) -> float:
    """Area under the ROC curve for two classes: the probability that a random positive row
    scores above a random negative one (ties count one half), i.e. the Mann-Whitney statistic.

    ``y_score`` is the positive class's score per row (e.g. a column of ``predict_proba``), or
    the two-column output of ``predict_proba`` itself, whose second column belongs to the
    second class in sorted order. ``positive`` defaults to that second class.

    >>> roc_auc(["n", "p", "n", "p"], [0.1, 0.8, 0.4, 0.4])
    0.875
    """
    truth = _labels_list(y_true, "the true labels")
    try:
        score = np.asarray(y_score, dtype=np.float64)
    except (TypeError, ValueError):
        raise DataError("the scores must be numbers (one per row, or two probability columns)") from None
    if score.ndim == 2:
        if score.shape[1] != 2:
            raise DataError(f"roc_auc needs one score per row or two probability columns, got {score.shape[1]} columns")
        score = score[:, 1]
    if score.ndim != 1 or len(score) != len(truth):
        raise DataError(f"{len(truth)} true labels but {score.shape[0] if score.ndim else 0} scores")
    if not np.isfinite(score).all():
        raise DataError("the scores must be finite numbers")
    first: dict[Any, Any] = {}
    for t in truth:
        first.setdefault(_label_key(t), t)
    classes = sorted(first.values(), key=_label_order)
    if positive is None:
        if len(classes) != 2:
            raise DataError(f"roc_auc needs exactly two classes in y_true, got {classes[:6]}")
        positive = classes[1]
    wanted = _label_key(positive)
    is_pos = np.array([_label_key(t) == wanted for t in truth], dtype=bool)
    n_pos, n_neg = int(is_pos.sum()), int((~is_pos).sum())
    if n_pos == 0 or n_neg == 0:
        raise DataError(f"roc_auc needs rows of both the positive class {positive!r} and the others")
    ranks = _average_ranks(score)
    return float((ranks[is_pos].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def _average_ranks(values: np.ndarray) -> np.ndarray:
    """1-based ranks, tied values sharing their mean rank."""
    order = np.argsort(values, kind="stable")
    sorted_values = values[order]
    starts = np.flatnonzero(np.r_[True, sorted_values[1:] != sorted_values[:-1]])
    ends = np.r_[starts[1:], len(values)]
    ranks = np.empty(len(values))
    for s, e in zip(starts, ends):
        ranks[order[s:e]] = (s + e + 1) / 2.0
    return ranks


def _dataset(X: Any, y: Any) -> Dataset:
    data = as_dataset(X, y)
    if data.y is None:
        raise DataError("no labels: pass y, or a dataset with a target")
    return data


def _check_seed(seed: Any) -> None:
    check("seed", seed, Interval(int, None, None), None)


def train_test_split(X: Any, y: Any = None, *, test_size: float = 0.25, seed: int | None = 0, stratify: bool = False) -> tuple[Dataset, Dataset]:
    """A seeded random split into a training and a testing :class:`~puretree.data.Dataset`.

    ``test_size`` is a fraction in (0, 1) or a number of rows; the test part gets
    ``ceil(test_size * n)`` rows, as in scikit-learn. With ``stratify=True`` every class is
    split in the same proportion. Both parts keep the full schema (all categories, all
    classes). The same seed gives the same split.

    >>> from puretree.datasets import load_playtennis
    >>> train, test = train_test_split(load_playtennis(), test_size=0.3, seed=1)
    >>> train.n_rows, test.n_rows
    (9, 5)
    """
    data = _dataset(X, y)
    _check_seed(seed)
    n = data.n_rows
    # A fraction of the rows, or a whole number of them (as scikit-learn reads test_size).
    test_size = check("test_size", test_size, Interval(int, 1, None), Interval(float, 0, 1, closed="neither"))
    n_test = int(math.ceil(test_size * n)) if 0 < test_size < 1 else int(test_size)
    if not 1 <= n_test < n:
        raise ParameterError(f"test_size={test_size!r} leaves no rows to train or to test on ({n} rows)")
    rng = np.random.default_rng(seed)
    if stratify:
        # Deal each class's shuffled rows round the folds of a 1-in-(n/n_test) split: take from
        # every class its share of the test rows, the remainder going to the largest remainders.
        shares = []
        for c in np.unique(np.asarray(data.y)):
            rows = rng.permutation(np.flatnonzero(data.y == c))
            shares.append((rows, len(rows) * n_test / n))
        base = [int(math.floor(s)) for _, s in shares]
        extra = n_test - sum(base)
        order = sorted(range(len(shares)), key=lambda i: (-(shares[i][1] - base[i]), i))
        for i in order[:extra]:
            base[i] += 1
        test = np.concatenate([rows[:b] for (rows, _), b in zip(shares, base)])
    else:
        test = rng.permutation(n)[:n_test]
    mask = np.zeros(n, dtype=bool)
    mask[test] = True
    return data.subset(~mask), data.subset(mask)


def stratified_folds(y: Any, *, k: int = 5, seed: int | None = 0) -> list[tuple[np.ndarray, np.ndarray]]:
    """``k`` (train indices, test indices) pairs; every row is tested exactly once and each
    class is spread evenly over the folds (its shuffled rows dealt round-robin, continuing
    from class to class so that fold sizes differ by at most one).

    >>> [test.tolist() for _, test in stratified_folds(["a", "a", "b", "b"], k=2, seed=0)]
    [[0, 2], [1, 3]]
    """
    _check_seed(seed)
    k = check("k", k, Interval(int, 2, None))
    labels = np.asarray(y.tolist() if hasattr(y, "tolist") else list(y), dtype=object)
    n = len(labels)
    if k > n:
        raise ParameterError(f"cannot make {k} folds from {n} rows")
    rng = np.random.default_rng(seed)
    fold_of = np.empty(n, dtype=np.int64)
    start = 0
    groups: dict[Any, list[int]] = {}
    for i, v in enumerate(labels.tolist()):
        groups.setdefault(v, []).append(i)
    for key in sorted(groups, key=lambda v: (type(v).__name__, v)):
        rows = rng.permutation(np.asarray(groups[key]))
        fold_of[rows] = (start + np.arange(len(rows))) % k
        start = (start + len(rows)) % k
    everything = np.arange(n)
    return [(everything[fold_of != f], everything[fold_of == f]) for f in range(k)]


@attrs.frozen(eq=False)
class CrossValidation:
    """The outcome of :func:`cross_validate`: one score per fold, every row's out-of-fold
    prediction, and the models fitted on each fold."""

    scores: tuple[float, ...]
    predictions: np.ndarray
    models: tuple[Any, ...]

    @property
    def mean(self) -> float:
        return float(np.mean(self.scores))

    @property
    def std(self) -> float:
        return float(np.std(self.scores))


def cross_validate(
    fit: Callable[[Dataset], Any],
    X: Any,
    y: Any = None,
    *,
    k: int = 5,
    seed: int | None = 0,
    score: Callable[[Any, Any], float] = accuracy,
) -> CrossValidation:
    """Stratified k-fold cross-validation of any ``fit(train: Dataset) -> model`` whose model
    has ``predict``: a preset, a ``functools.partial`` of :func:`~puretree.grow.grow` with your
    own criterion, or a function that grows and then prunes. Each fold's model is scored by
    ``score(true labels, predictions)`` on the rows it never saw.

    >>> from functools import partial
    >>> from puretree.datasets import load_playtennis
    >>> from puretree.grow import id3
    >>> cv = cross_validate(partial(id3, max_depth=1), load_playtennis(), k=3, seed=0)
    >>> len(cv.scores), len(cv.predictions)
    (3, 14)
    """
    check("fit", fit, IsCallable())
    data = _dataset(X, y)
    truth = data.labels()
    predictions = np.empty(data.n_rows, dtype=object)
    scores, models = [], []
    for train, test in stratified_folds(data.y, k=k, seed=seed):
        model = fit(data.subset(train))
        held = data.subset(test)
        guess = np.asarray(model.predict(held), dtype=object)
        predictions[test] = guess
        scores.append(float(score(truth[test].tolist(), guess.tolist())))
        models.append(model)
    return CrossValidation(tuple(scores), predictions, tuple(models))
