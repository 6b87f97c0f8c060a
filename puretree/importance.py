"""Feature importances: the total weighted impurity decrease per feature, normalised.

For every split node, ``w(node) * impurity(node) - sum_c w(c) * impurity(c)`` is credited to
the feature it splits on; the totals are divided by their sum (all zeros when no split
decreases impurity). This is scikit-learn's ``feature_importances_`` (mean decrease in
impurity) when ``impurity`` is the criterion the tree was grown with: Gini by default for a
classification tree, :func:`~puretree.impurity.variance` for a regression tree; pass
``impurity=entropy`` for ID3/C4.5 trees.

>>> from puretree.datasets import load_playtennis
>>> from puretree.grow import id3
>>> from puretree.impurity import entropy
>>> tree = id3(load_playtennis())
>>> {k: round(v, 3) for k, v in feature_importances(tree, impurity=entropy).items()}
{'outlook': 0.262, 'temperature': 0.0, 'humidity': 0.369, 'wind': 0.369}
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from .fold import iter_nodes
from .impurity import gini, variance
from .nodes import Leaf, children
from .tree import Tree

__all__ = ["impurity_decreases", "feature_importances", "format_importances"]


def _weight(counts: np.ndarray, regression: bool) -> np.ndarray:
    return counts[..., 0] if regression else counts.sum(axis=-1)


def impurity_decreases(tree: Tree, *, impurity: Callable[..., Any] | None = None) -> np.ndarray:
    """Per feature (schema order), the total weighted impurity decrease of its splits."""
    regression = tree.schema.is_regression
    measure = impurity if impurity is not None else (variance if regression else gini)
    out = np.zeros(tree.schema.n_features)
    for node in iter_nodes(tree.root):  # iterative: any depth
        if isinstance(node, Leaf):
            continue
        kids = np.array([c.stats for c in children(node)], dtype=np.float64)
        own = np.asarray(node.stats, dtype=np.float64)
        before = _weight(own, regression) * float(measure(own))
        after = float(np.sum(_weight(kids, regression) * np.asarray(measure(kids))))
        out[node.feature] += before - after
    return out


def feature_importances(tree: Tree, *, impurity: Callable[..., Any] | None = None) -> dict[str, float]:
    """Normalised importances by feature name, in schema order (they sum to 1, or are all 0);
    an ensemble's as :func:`puretree.ensemble.feature_importances` computes them."""
    if not isinstance(tree, Tree) and hasattr(tree, "members"):
        return tree.feature_importances(impurity=impurity)
    if not isinstance(tree, Tree) and hasattr(tree, "stages"):  # a boosted model (puretree.boosted): its trees' own rule
        return tree.feature_importances()
    raw = impurity_decreases(tree, impurity=impurity)
    total = raw.sum()
    normalised = raw / total if total > 0 else np.zeros_like(raw)
    return dict(zip(tree.schema.feature_names, normalised.tolist()))


def format_importances(importances: dict[str, float]) -> str:
    """One ``name  value`` line per feature, most important first (ties: schema order).

    >>> print(format_importances({"a": 0.25, "b": 0.75}))
    b  0.7500
    a  0.2500
    """
    width = max((len(n) for n in importances), default=0)
    ranked = sorted(importances.items(), key=lambda kv: -kv[1])
    return "\n".join(f"{name.ljust(width)}  {value:.4f}" for name, value in ranked)
