"""C4.5's scans of one attribute over a node's rows in memory: the specification's, which
:mod:`puretree.c45` calls feature by feature.

J48's numbers themselves (its tolerances, the gain and split information, the scan of a
numeric attribute's cuts, the MDL correction, the option a categorical attribute offers and
the choice among options) are :mod:`puretree.growth.choose`'s, shared with the vectorised scan
(:mod:`puretree.growth.c45_vector`) and with Dask's histograms; this module finds a feature's cuts and
class counts in the node's sorted rows and hands them over. J48's tolerances stay importable
from here (:mod:`puretree.growth.c45_kernel` reads them).

>>> import numpy as np
>>> float(known_gain(np.array([9.0, 5.0]), np.array([[2.0, 3.0], [4.0, 0.0], [3.0, 2.0]]), 14.0).round(3))
0.247
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .choose import J48_EPSILON, VALUE_TOLERANCE, Option, bits, c45_cut, c45_least, c45_multiway, known_gain
from ..splits import CHUNK, NodeData, midpoint

__all__ = ["chunked_gains", "numeric_option", "categorical_option", "J48_EPSILON", "VALUE_TOLERANCE", "bits"]



def chunked_gains(stats: np.ndarray, order: np.ndarray, cuts: np.ndarray, known_parent: np.ndarray, total: float, impurity: Any) -> np.ndarray:
    """The gain of every cut, computed over blocks of sorted rows, so that the memory held
    is bounded whatever the number of rows times classes (10,000 classes, say)."""
    k = stats.shape[1]
    step = max(1, CHUNK // max(1, 2 * k))
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


def numeric_option(node: NodeData, i: int, total: float, n_classes: int, min_leaf: float, impurity: Any) -> Option | None:
    """J48's ``handleNumericAttribute``: the best admissible cut of numeric feature ``i``."""
    values = node.values[i]
    order = node.order[i]
    n_known = int(np.count_nonzero(~np.isnan(values)))
    known_parent = node.stats[order[:n_known]].sum(axis=0) if n_known else np.zeros(node.stats.shape[1])
    if (least := c45_least(known_parent, n_known, n_classes, min_leaf)) is None:
        return None
    # A cut after sorted position p-1 (p = 1 .. n_known-1), between values more than 1e-5 apart.
    cuts = np.flatnonzero(values[: n_known - 1] + VALUE_TOLERANCE < values[1:n_known])
    w_left = np.cumsum(node.stats[order[:n_known]].sum(axis=1))[cuts]
    return c45_cut(
        int(node.numeric[i]), cuts, w_left, least, known_parent, total,
        gains=lambda cuts: chunked_gains(node.stats, order, cuts, known_parent, total, impurity),
        left=lambda p: node.stats[order[: p + 1]].sum(axis=0),
        threshold=lambda p: midpoint(float(values[p]), float(values[p + 1])),
    )


def categorical_option(node: NodeData, j: int, total: float, min_leaf: float, many_values: bool, impurity: Any) -> Option | None:
    """J48's ``handleEnumeratedAttribute``: one branch per category of feature ``j``."""
    m = len(node.schema.features[j].categories)
    column = node.X[:, j]
    known = ~np.isnan(column)
    codes = column[known].astype(np.int64)
    stats = node.stats[known]
    per = np.stack([np.bincount(codes, weights=stats[:, c], minlength=m) for c in range(stats.shape[1])], axis=-1)
    return c45_multiway(j, per, total, min_leaf, many_values, impurity)
