"""J48's numbers for one attribute at one node: the shared core of C4.5's splitter.

:mod:`puretree.c45` (the readable, feature-by-feature specification), :mod:`puretree.c45_vector`
(every numeric feature of a node at once) and :mod:`puretree.c45_kernel` (the same scan,
compiled) all build on these: J48's tolerances, the gain and split information as C4.5
computes them, the scan of a numeric attribute's cuts and the option a categorical attribute
offers.

>>> import numpy as np
>>> float(known_gain(np.array([9.0, 5.0]), np.array([[2.0, 3.0], [4.0, 0.0], [3.0, 2.0]]), 14.0).round(3))
0.247
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, NamedTuple

import attrs
import numpy as np

from .criteria import ImpurityDecrease
from .splits import NodeData, midpoint
from .impurity import entropy

__all__ = [
    "J48_EPSILON",
    "VALUE_TOLERANCE",
    "AVERAGE_GAIN_SLACK",
    "bits",
    "weighted_entropy",
    "known_gain",
    "split_info",
    "greater",
    "at_least",
    "Option",
    "Scored",
    "chunked_gains",
    "best_cut",
    "numeric_option",
    "categorical_option",
]

#: J48's tolerance in every comparison of gains, ratios and weights (Weka's ``Utils.SMALL``).
J48_EPSILON = 1e-6
#: Two sorted values closer than this are not separated by a cut.
VALUE_TOLERANCE = 1e-5
#: An attribute competes on gain ratio when its gain is at least the average minus this.
AVERAGE_GAIN_SLACK = 1e-3


def bits(x: np.ndarray) -> np.ndarray:
    """``x * log2(x)``, with 0 for weights below J48's 1e-6 (its ``logFunc``)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(x < J48_EPSILON, 0.0, x * np.log2(np.where(x < J48_EPSILON, 1.0, x)))


def weighted_entropy(counts: np.ndarray) -> np.ndarray:
    """``weight x entropy`` (bits) of counts shaped ``(..., k)``: J48's ``oldEnt`` / ``newEnt`` terms."""
    return bits(counts.sum(axis=-1)) - bits(counts).sum(axis=-1)


def known_gain(known_parent: np.ndarray, branches: np.ndarray, total: float, impurity: Any = entropy) -> np.ndarray:
    """C4.5's gain of splits whose known rows' counts are ``branches`` ``(..., b, k)``.

    The entropy decrease on the known rows, times their share of the node's weight ``total``
    (``(1 - unknown rate) x (oldEnt - newEnt) / known weight``); 0 when the decrease is within
    1e-6 of none. Another impurity's decrease is scaled alike.
    """
    known = float(known_parent.sum())
    if impurity is not entropy:
        decrease = np.asarray(ImpurityDecrease(impurity)(known_parent, branches), dtype=np.float64)
        return np.where(np.isfinite(decrease), decrease * (known / total), 0.0) if known > 0 else np.zeros(decrease.shape)
    numerator = (known / total) * (weighted_entropy(known_parent) - weighted_entropy(branches).sum(axis=-1))
    return np.where(np.abs(numerator) < J48_EPSILON, 0.0, numerator / known) if known > 0 else np.zeros(numerator.shape)


def split_info(branch_weights: np.ndarray, total: float) -> np.ndarray:
    """Split information (bits) of the branches plus one branch of the unknown rows; 0 if trivial."""
    unknown = total - branch_weights.sum(axis=-1)
    ent = -bits(branch_weights).sum(axis=-1) - bits(np.maximum(unknown, 0.0)) + bits(np.asarray(total))
    return np.where(np.abs(ent) < J48_EPSILON, 0.0, ent / total)


def greater(a: float, b: float) -> bool:
    return a - b > J48_EPSILON


def at_least(a: Any, b: float) -> Any:
    return a - b > -J48_EPSILON


@attrs.frozen
class Option:
    """One attribute's C4.5 split at a node: its gain, ratio and how rows go."""

    feature: int
    gain: float
    ratio: float
    counts_in_average: bool
    kind: str
    threshold: float | None = None
    branches: np.ndarray | None = None

    def option(self) -> "Option":
        return self


class Scored(NamedTuple):
    """An attribute's C4.5 scores, its :class:`Option` built (``build(index)``) only if it
    wins: the fast path's, which scores many attributes and needs the option of one."""

    feature: int
    gain: float
    ratio: float
    counts_in_average: bool
    build: Callable[[int], Option]
    index: int  # type: ignore[assignment]  # shadows tuple.index, which nothing here calls

    def option(self) -> Option:
        return self.build(self.index)


#: At most this many class counts are held at once while scoring cuts (about 32 MB).
_CHUNK = 4_000_000


def chunked_gains(stats: np.ndarray, order: np.ndarray, cuts: np.ndarray, known_parent: np.ndarray, total: float, impurity: Any) -> np.ndarray:
    """The gain of every cut, computed over blocks of sorted rows, so that the memory held
    is bounded whatever the number of rows times classes (10,000 classes, say)."""
    k = stats.shape[1]
    step = max(1, _CHUNK // max(1, 2 * k))
    gains = np.empty(len(cuts))
    running = np.zeros(k)
    for start in range(0, int(cuts[-1]) + 1, step):
        stop = min(start + step, int(cuts[-1]) + 1)
        block = np.cumsum(stats[order[start:stop]], axis=0)
        block += running
        running = block[-1].copy()
        lo, hi = np.searchsorted(cuts, [start, stop])
        if hi > lo:
            left = block[cuts[lo:hi] - start]
            gains[lo:hi] = known_gain(known_parent, np.stack((left, known_parent - left), axis=-2), total, impurity)
    return gains


def best_cut(gains: np.ndarray) -> tuple[float, int]:
    """J48's scan of a feature's cuts in order: the best gain and its index (-1: none above 1e-6).

    The scan moves on only for a gain better by 1e-6. Every gain before the current best is at
    most 1e-6 above it, so the next move is the first place where the running maximum exceeds
    best + 1e-6: a binary search, not a rescan.

    >>> best_cut(np.array([0.5, 0.5000008, 0.5000015, 0.2]))      # 0.5000008 is no better
    (0.5000015, 2)
    """
    best, where = 0.0, -1
    record = np.maximum.accumulate(gains)
    while (at := int(np.searchsorted(record, best + J48_EPSILON, side="right"))) < len(gains):
        best, where = float(gains[at]), at
    return best, where


def numeric_option(node: NodeData, i: int, total: float, n_classes: int, min_leaf: float, impurity: Any) -> Option | None:
    """J48's ``handleNumericAttribute``: the best admissible cut of numeric feature ``i``."""
    values = node.values[i]
    order = node.order[i]
    n_known = int(np.count_nonzero(~np.isnan(values)))
    known_parent = node.stats[order[:n_known]].sum(axis=0) if n_known else np.zeros(node.stats.shape[1])
    known_weight = float(known_parent.sum())
    least = min(max(0.1 * known_weight / n_classes, min_leaf), 25.0)
    # J48 compares the number of known rows here; the known weight keeps "weight k is k
    # copies" true (the same for unweighted data without missing values).
    if known_weight - 2 * least < -J48_EPSILON or n_known < 2:
        return None
    # A cut after sorted position p-1 (p = 1 .. n_known-1), between values more than 1e-5 apart.
    cuts = np.flatnonzero(values[: n_known - 1] + VALUE_TOLERANCE < values[1:n_known])
    w_left = np.cumsum(node.stats[order[:n_known]].sum(axis=1))[cuts]
    admissible = at_least(w_left, least) & at_least(known_weight - w_left, least)
    cuts = cuts[admissible]
    if len(cuts) == 0:
        return None
    gains = chunked_gains(node.stats, order, cuts, known_parent, total, impurity)
    best, where = best_cut(gains)
    corrected = best - math.log2(len(cuts)) / total
    if where < 0 or corrected < J48_EPSILON:
        return None
    p = int(cuts[where])
    left = node.stats[order[: p + 1]].sum(axis=0)
    branches = np.stack((left, known_parent - left))
    info = float(split_info(branches.sum(axis=1), total))
    ratio = corrected / info if info > 0 else 0.0
    threshold = midpoint(float(values[p]), float(values[p + 1]))
    return Option(int(node.numeric[i]), corrected, ratio, True, "threshold", threshold=threshold, branches=branches)


def categorical_option(node: NodeData, j: int, total: float, min_leaf: float, many_values: bool, impurity: Any) -> Option | None:
    """J48's ``handleEnumeratedAttribute``: one branch per category of feature ``j``."""
    m = len(node.schema.features[j].categories)
    column = node.X[:, j]
    known = ~np.isnan(column)
    codes = column[known].astype(np.int64)
    stats = node.stats[known]
    per = np.stack([np.bincount(codes, weights=stats[:, c], minlength=m) for c in range(stats.shape[1])], axis=-1)
    if np.count_nonzero(at_least(per.sum(axis=1), min_leaf)) < 2:
        return None
    gain = float(known_gain(per.sum(axis=0), per, total, impurity))
    info = float(split_info(per.sum(axis=1), total))
    ratio = gain / info if info > 0 else 0.0
    return Option(j, gain, ratio, not many_values, "multiway", branches=per)
