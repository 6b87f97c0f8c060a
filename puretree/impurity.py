"""Impurities: plain vectorised functions over class-count arrays.

An impurity takes counts shaped ``(..., n_classes)`` (weighted counts are fine; they need
not be normalised) and returns impurities shaped ``(...)``. A node with no weight has
impurity 0. Any function with that contract, a ``def`` or a ``lambda``, plugs into the
split scores of :mod:`puretree.criteria`.

Regression uses the additive statistics ``(weight, sum, sum of squares)``; its impurity is
:func:`variance`. Which statistics an impurity reads (and so where their weight is) is the
business of :mod:`puretree.tasks`, not of the functions here.

>>> round(float(entropy([9, 5])), 4)         # the seeds' E(S) for PlayTennis
0.9403
>>> round(float(gini([9, 5])), 4)            # buys_computer, Gini(D)
0.4592
>>> entropy([[4, 0], [2, 2]]).tolist()       # vectorised over leading axes
[0.0, 1.0]
>>> float(misclassification([3, 1]))
0.25
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .params import Interval, check

__all__ = ["entropy", "gini", "misclassification", "variance", "class_weight_of", "sum_last", "proportions", "weighted_median"]


_F64_MAX = float(np.finfo(np.float64).max)
#: entropy's base: a logarithm's.
_BASE = Interval(float, 0, None, closed="neither", exclude=(1,))


def sum_last(a: np.ndarray) -> np.ndarray:
    """Sum over the last axis, numpy's sum bit for bit. For a short last axis (a few classes)
    adding the columns is several times faster than numpy's reduction, which loops over the
    short axis innermost; below 8 columns numpy adds them in order too (from 8 on it adds
    them pairwise, so from 8 on this is numpy's reduction), so every builder, whichever
    of the two it calls, gets the same weights to the last digit.

    >>> a = np.array([[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]])
    >>> bool(sum_last(a)[0] == a.sum(axis=-1)[0])
    True
    """
    k = a.shape[-1] if a.ndim else 0
    if a.ndim <= 1 or k >= 8:
        return a.sum(axis=-1)
    out = a[..., 0].copy()
    for i in range(1, k):
        out += a[..., i]
    return out


def proportions(weights: Any) -> tuple[np.ndarray, np.ndarray]:
    """Each entry's share of the sum over the last axis, and that sum.

    Right at every scale: where the sum overflows (counts near 1e308), the entries are
    scaled down by their largest one first. Shares of an all-zero vector are NaN (0/0);
    callers mask them by ``total > 0``.

    >>> p, total = proportions([1e308, 1e308])
    >>> p.tolist(), float(total)
    ([0.5, 0.5], inf)
    """
    c = np.asarray(weights, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        total = sum_last(c)
        p = c / total[..., None]
        huge = np.isinf(total)
        if huge.any():
            scaled = c[huge] / c[huge].max(axis=-1, keepdims=True)
            p[huge] = scaled / sum_last(scaled)[..., None]
    return p, total


def entropy(counts: Any, *, base: float = 2.0) -> np.ndarray:
    """Shannon entropy of the class distribution, in bits by default (``base=math.e``: nats).

    Uses 0 * log 0 = 0, so pure nodes have entropy exactly 0.

    >>> float(entropy([1, 1, 1, 1]))
    2.0
    >>> round(float(entropy([1, 1], base=math.e)), 6)
    0.693147
    """
    if base != 2.0 or type(base) is not float:  # the default needs no check (entropy is called at every node)
        check("entropy's base", base, _BASE)
    p, total = proportions(counts)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)
    h = -sum_last(terms) / math.log(base)
    # Clamp rounding below zero (pure nodes) so that impurities are never negative.
    return np.where(total > 0, np.maximum(h, 0.0), 0.0)


def gini(counts: Any) -> np.ndarray:
    """Gini impurity ``1 - sum p_j**2``.

    >>> float(gini([5, 5]))
    0.5
    """
    # Proportions first: squaring raw counts underflows (0/0) for tiny weights.
    p, total = proportions(counts)
    with np.errstate(invalid="ignore"):
        g = 1.0 - sum_last(np.square(p))
    return np.where(total > 0, np.maximum(g, 0.0), 0.0)


def misclassification(counts: Any) -> np.ndarray:
    """Misclassification error ``1 - max p_j``.

    >>> float(misclassification([2, 2]))
    0.5
    """
    p, total = proportions(counts)
    with np.errstate(invalid="ignore"):
        e = 1.0 - p.max(axis=-1)
    return np.where(total > 0, np.maximum(e, 0.0), 0.0)


def variance(stats: Any) -> np.ndarray:
    """Variance of a regression node from its additive statistics ``(weight, sum, sum of squares)``.

    >>> round(float(variance([3, 6, 14])), 12)    # values 1, 2, 3: mean 2, variance 2/3
    0.666666666667
    """
    s = np.asarray(stats, dtype=np.float64)
    w, total, squares = s[..., 0], s[..., 1], s[..., 2]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        v = squares / w - np.square(total / w)
    # Values whose squares do not fit a double give inf - inf: saturate at the largest double.
    v = np.where(np.isnan(v), _F64_MAX, np.minimum(v, _F64_MAX))
    return np.where(w > 0, np.maximum(v, 0.0), 0.0)


def class_weight_of(stats: Any) -> np.ndarray:
    """The weight of a class-count vector: the sum over classes."""
    return sum_last(np.asarray(stats, dtype=np.float64))


def weighted_median(y: np.ndarray, w: np.ndarray) -> float:
    """scikit-learn's weighted median of ``y`` (weights ``w``, all positive): the smallest
    target whose cumulative weight exceeds half the total, or the midpoint of two targets when
    a cumulative weight is exactly half.

    >>> weighted_median(np.array([3.0, 1.0, 2.0]), np.ones(3)), weighted_median(np.array([1.0, 4.0]), np.ones(2))
    (2.0, 2.5)
    """
    order = np.argsort(y, kind="stable")
    ys, c = y[order], np.cumsum(w[order])
    half = 0.5 * c[-1]
    k = int(np.searchsorted(c, half, side="right"))  # the first target whose cumulative weight exceeds half
    if k > 0 and c[k - 1] == half:
        return float((ys[k - 1] + ys[k]) / 2)
    return float(ys[k])
