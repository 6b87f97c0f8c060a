"""Measuring a tree: accuracy and the confusion matrix.

>>> accuracy(["a", "b", "b"], ["a", "b", "a"])
0.6666666666666666
>>> labels, matrix = confusion_matrix(["a", "b", "b"], ["a", "b", "a"])
>>> labels, matrix.tolist()
(('a', 'b'), [[1, 0], [1, 1]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from .errors import DataError

__all__ = ["accuracy", "confusion_matrix", "format_confusion"]


def _pair(y_true: Any, y_pred: Any) -> tuple[list[Any], list[Any]]:
    t, p = list(np.asarray(y_true, dtype=object)), list(np.asarray(y_pred, dtype=object))
    if len(t) != len(p):
        raise DataError(f"{len(t)} true labels but {len(p)} predictions")
    if not t:
        raise DataError("no labels to compare")
    return t, p


def accuracy(y_true: Any, y_pred: Any) -> float:
    """The fraction of predictions equal to the true labels."""
    t, p = _pair(y_true, y_pred)
    return sum(a == b for a, b in zip(t, p)) / len(t)


def confusion_matrix(y_true: Any, y_pred: Any, *, labels: Sequence[Any] | None = None) -> tuple[tuple[Any, ...], np.ndarray]:
    """``(labels, matrix)``: ``matrix[i, j]`` counts rows of true label i predicted as j."""
    t, p = _pair(y_true, y_pred)
    if labels is None:
        labels = sorted(set(t) | set(p), key=lambda v: (type(v).__name__, v))
    index = {v: i for i, v in enumerate(labels)}
    extra = [v for v in dict.fromkeys(t + p) if v not in index]
    labels = tuple(labels) + tuple(extra)
    index.update({v: len(index) + i for i, v in enumerate(extra)})
    matrix = np.zeros((len(labels), len(labels)), dtype=np.int64)
    for a, b in zip(t, p):
        matrix[index[a], index[b]] += 1
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
