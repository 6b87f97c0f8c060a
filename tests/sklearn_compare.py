"""A test helper: is puretree's tree scikit-learn's, node for node?

``compare`` walks both trees on the training rows: the same feature and the same rows in each
child, the same statistics in each node; where the two part (scikit-learn visits features in
a random order, puretree takes the lowest index), both splits' scores must be within puretree's
tie tolerance on that node's rows.
"""

import numpy as np

from puretree.criteria import SCORES
from puretree.nodes import Leaf
from puretree.splits import TIE_TOLERANCE

__all__ = ["compare", "node_stats"]


def node_stats(y, regression, n_classes):
    """Each row's statistics: a one-hot class row, or ``(1, y, y**2)``."""
    if regression:
        return np.stack([np.ones(len(y)), y, y * y], axis=1)
    return np.eye(n_classes)[y]


def compare(ours, theirs, X, y, *, regression=False, weight=None, score=None, columns=None):
    """The number of nodes where the trees part on a tie; fails on any other difference.

    ``score``: the score that judges a tie (by default Gini, or the variance for regression; one
    with a ``rows_gain(y, w, left)`` method is given the node's rows);
    ``columns``: which statistics must agree (all by default; a tree imported from scikit-learn
    has no sum of squares unless it was grown on the squared error; ``"mean"``: the value
    ``sum / weight`` only, for trees whose leaves hold a median).
    """
    score = SCORES["variance" if regression else "gini"] if score is None else score
    stats = node_stats(y, regression, 0 if regression else int(y.max()) + 1)
    if weight is not None:
        stats = stats * weight[:, None]
    keep = slice(None) if columns is None or columns == "mean" else list(columns)
    ties = agreed = 0
    stack = [(ours.root, theirs.root, np.arange(len(X)))]
    while stack:
        a, b, rows = stack.pop()
        assert isinstance(a, Leaf) == isinstance(b, Leaf), f"a leaf against a split at a node of {len(rows)} rows"
        ca, cb = np.asarray(a.counts, dtype=float), np.asarray(b.counts, dtype=float)
        if columns == "mean":  # the value only: from_sklearn may store a power of two as the weight
            np.testing.assert_allclose(ca[1] / ca[0], cb[1] / cb[0], rtol=1e-12, atol=1e-12)
        else:
            np.testing.assert_allclose(ca[keep], cb[keep], rtol=1e-9, atol=1e-9)
        if isinstance(a, Leaf):
            continue
        left_a = X[rows, a.feature] <= a.test.value
        left_b = X[rows, b.feature] <= b.test.value
        if a.feature == b.feature and np.array_equal(left_a, left_b):
            agreed += 1
            stack += [(a.children[0], b.children[0], rows[left_a]), (a.children[1], b.children[1], rows[~left_a])]
            continue
        parent = stats[rows].sum(axis=0)
        if hasattr(score, "rows_gain"):  # a score of the rows themselves (the absolute error)
            w = np.ones(len(rows)) if weight is None else weight[rows]
            gains = [score.rows_gain(np.asarray(y, dtype=float)[rows], w, left) for left in (left_a, left_b)]
        else:
            gains = [float(score(parent, np.stack([stats[rows][left].sum(axis=0), stats[rows][~left].sum(axis=0)]))) for left in (left_a, left_b)]
        assert abs(gains[0] - gains[1]) <= TIE_TOLERANCE * max(1.0, abs(gains[0])), f"features {a.feature} and {b.feature} at a node of {len(rows)} rows: scores {gains}, not a tie"
        ties += 1
    assert agreed >= 1, "the roots differ"
    return ties
