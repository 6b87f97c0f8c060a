"""Significance tests for pre-pruning: the chi-square test of independence between branch
and class (Quinlan's original ID3 stopping rule), with its own chi-square tail probability
(the regularised upper incomplete gamma function), so that no SciPy is needed.

>>> round(chi_square_sf(3.841458820694124, 1), 6)
0.05
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import attrs
import numpy as np

from ..params import Interval, check

__all__ = ["chi_square_sf", "chi_square_test"]


def _upper_gamma_regularized(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a): a series below ``a + 1``, Lentz's continued fraction above."""
    if x <= 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-16:
            break
    return min(1.0, math.exp(log_front) * h)


def chi_square_sf(statistic: float, df: int) -> float:
    """The p-value ``P(X >= statistic)`` of a chi-square variable with ``df`` degrees of freedom.

    >>> round(chi_square_sf(3.841458820694124, 1), 6), round(chi_square_sf(5.991464547107979, 2), 6)
    (0.05, 0.05)
    """
    df = check("df", df, Interval(int, 1, None))
    return _upper_gamma_regularized(df / 2.0, max(0.0, statistic) / 2.0)


@attrs.frozen
class _ChiSquareTest:
    alpha: float

    def __call__(self, parent: Any, children: Any) -> bool:
        table = np.asarray(children, dtype=np.float64)
        table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
        rows, cols = table.shape
        if rows < 2 or cols < 2:
            return False  # nothing separated, or a single class: no evidence of dependence
        expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / table.sum()
        statistic = float(((table - expected) ** 2 / expected).sum())
        return chi_square_sf(statistic, (rows - 1) * (cols - 1)) < self.alpha

    def __repr__(self) -> str:
        return f"chi_square_test(alpha={self.alpha!r})"


def chi_square_test(alpha: float = 0.05) -> Callable[[Any, Any], bool]:
    """An ``accept`` function for :func:`~puretree.grow.grow`: allow a split only when the
    chi-square test of independence between branch and class (on the branches' class counts,
    empty branches and absent classes left out) is significant at level ``alpha``: Quinlan's
    original ID3 stopping rule.

    >>> test = chi_square_test(0.05)
    >>> test([9, 5], [[2, 3], [4, 0], [3, 2]]), test([10, 10], [[10, 0], [0, 10]])
    (False, True)
    """
    return _ChiSquareTest(check("alpha", alpha, Interval(float, 0, 1, closed="right")))
