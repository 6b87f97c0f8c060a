"""What a node's statistics are, and what follows from them: one value per learning task.

A node of a classification tree holds its **class counts** (weighted), one column per class;
a node of a regression tree holds the additive sums ``(weight, sum, sum of squares)`` of its
targets. Both are arrays shaped ``(..., k)``; everything the builder needs to know about them
(their weight, how to split a total, how to order categories, what a leaf predicts) is a
method of :class:`Task`, whose two instances :data:`CLASSIFICATION` and :data:`REGRESSION`
are chosen once, from the data's schema (:func:`as_task`). The methods are vectorised over
the leading axes.

>>> CLASSIFICATION.weight([[2, 3], [4, 0]]).tolist()          # class counts: their sum
[5.0, 4.0]
>>> REGRESSION.weight([[3, 6, 14], [1, 5, 25]]).tolist()      # (w, sum, sum of squares): w
[3.0, 1.0]
>>> CLASSIFICATION.predict([[2, 3], [4, 0]]).tolist()         # the majority class (first on ties)
[1, 0]
>>> REGRESSION.predict([3, 6, 14]).tolist()                    # the weighted mean
2.0
>>> float(REGRESSION.impurity([3, 6, 14])) == float(variance([3, 6, 14]))
True
>>> as_task("regression") is REGRESSION
True
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs
import numpy as np

from .impurity import entropy, gini, misclassification, sum_last, variance

__all__ = ["Task", "CLASSIFICATION", "REGRESSION", "TASKS", "as_task", "impurity_task"]


def _as_float(stats: Any) -> np.ndarray:
    return np.asarray(stats, dtype=np.float64)


@attrs.frozen(repr=False)
class Task:
    """A learning task: the meaning of a node's statistics ``(..., k)``.

    ``name`` is the schema's task (``"classification"`` or ``"regression"``); ``impurity``
    the task's default impurity (Gini, as CART and scikit-learn; the variance); and
    ``impurities`` the built-in impurities made for its statistics.
    """

    name: str
    impurity: Callable[..., Any]
    impurities: tuple[Callable[..., Any], ...]

    @property
    def is_regression(self) -> bool:
        return self.name == "regression"

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        # Pickled and copied as a reference to the module's instance: one value per task.
        return as_task, (self.name,)

    def weight(self, stats: Any) -> np.ndarray:
        """The weight the statistics hold, shaped ``(...)``: the class counts' sum, or column 0.

        The sum is numpy's own, bit for bit (:func:`~puretree.impurity.sum_last`), so that
        every builder agrees on it to the last digit.
        """
        s = _as_float(stats)
        return s[..., 0] if self.is_regression else sum_last(s)

    def remainder(self, total: np.ndarray, part: np.ndarray, *, out: np.ndarray | None = None) -> np.ndarray:
        """``total - part``: the other side of a split (into ``out`` if given). Class counts
        cannot be negative, so a float rounding below 0 becomes 0; regression sums (of
        negative targets) may be.

        >>> CLASSIFICATION.remainder(np.array([3.0, 0.3]), np.array([1.0, 0.1 + 0.2])).tolist()
        [2.0, 0.0]
        """
        out = np.subtract(total, part, out=out)
        if not self.is_regression:
            np.maximum(out, 0.0, out=out)
        return out

    def predict(self, stats: Any) -> np.ndarray:
        """What a node with these statistics predicts: the code of the majority class (the
        first of tied classes), or the weighted mean (0 for no weight)."""
        s = _as_float(stats)
        if not self.is_regression:
            return np.argmax(s, axis=-1)
        w = s[..., 0]
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(w > 0, s[..., 1] / np.where(w > 0, w, 1.0), 0.0)

    def ordering_is_exact(self, k: int) -> bool:
        """Whether ordering the categories by :meth:`category_key` and taking prefixes finds the
        best two-way partition (Breiman's theorem): for regression, and for two classes."""
        return self.is_regression or k <= 2

    def category_key(self, stats: np.ndarray, known: np.ndarray) -> np.ndarray:
        """The key ordering categories (rows of ``stats``, shaped ``(m, k)``) for two-way
        partitions: the mean target, the proportion of class 1 (two classes), or (more classes,
        a heuristic) the proportion of the majority class of ``known``, the node's statistics."""
        w = self.weight(stats)
        if self.is_regression:
            return stats[:, 1] / w
        k = stats.shape[1]
        cls = 1 if k == 2 else int(np.argmax(known))
        return stats[:, cls] / np.maximum(w, 1e-300)

    def row_statistics(self, y: np.ndarray, weight: np.ndarray, n_classes: int) -> np.ndarray:
        """One row of statistics per target: weighted one-hot class counts (``y`` holds
        class codes), or ``(w, w*y, w*y**2)``.

        >>> CLASSIFICATION.row_statistics(np.array([1, 0]), np.array([1.0, 2.0]), 2).tolist()
        [[0.0, 1.0], [2.0, 0.0]]
        >>> REGRESSION.row_statistics(np.array([3.0]), np.array([2.0]), 0).tolist()
        [[2.0, 6.0, 18.0]]
        """
        if self.is_regression:
            y = y.astype(np.float64)
            return np.column_stack((weight, weight * y, weight * y * y))
        stats = np.zeros((len(y), max(1, n_classes)))
        stats[np.arange(len(y)), y] = weight
        return stats

    def __repr__(self) -> str:
        return self.name.upper()


CLASSIFICATION = Task("classification", gini, (entropy, gini, misclassification))
REGRESSION = Task("regression", variance, (variance,))
#: The tasks by the names a schema gives them.
TASKS = {t.name: t for t in (CLASSIFICATION, REGRESSION)}


def as_task(value: Any) -> Task:
    """The task of a :class:`Task`, a task name, a :class:`~puretree.nodes.Schema` (or
    anything with a ``task`` name), or a ``regression`` flag (``True``: regression).

    >>> as_task(True), as_task("classification")
    (REGRESSION, CLASSIFICATION)
    """
    if isinstance(value, Task):
        return value
    if isinstance(value, (bool, np.bool_)):
        return REGRESSION if value else CLASSIFICATION
    name: Any = value if isinstance(value, str) else getattr(value, "task", None)
    try:
        return TASKS[name]
    except (KeyError, TypeError):
        raise ValueError(f"not a task: {value!r}; the tasks are {list(TASKS)}") from None


def impurity_task(impurity: Callable[..., Any]) -> Task:
    """The task whose statistics an impurity reads: regression for :func:`~puretree.impurity.variance`,
    classification for the others. (A function with a ``weight_of`` attribute, the way the
    docs once told users to mark a regression impurity, still counts as regression; say
    ``task="regression"`` to the score's combinator instead.)

    >>> impurity_task(variance), impurity_task(gini), impurity_task(lambda counts: 0.0)
    (REGRESSION, CLASSIFICATION, CLASSIFICATION)
    """
    if any(impurity is f for f in REGRESSION.impurities) or getattr(impurity, "weight_of", None) is not None:
        return REGRESSION
    return CLASSIFICATION
