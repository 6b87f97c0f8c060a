"""The best split from candidate statistics: one chooser per family, fed by every source.

The in-memory engine (sorted columns, or bins) and Dask (histograms summed over partitions)
gather candidate statistics differently; what they make of them is written here once.

**CART** (``cart``, ``id3``, ``cart_regressor``): a binary candidate's children are its left
side and the rest (:func:`binary_children`), scored by the user's score in slices of bounded
size (:func:`binary_scores`); on a node with missing values a score is scaled by the known
share of the node's weight (:func:`known_share`); the first candidate within
:data:`~puretree.splits.TIE_TOLERANCE` of the best wins, per node and feature
(:func:`first_tied_in_groups`), per node (:func:`first_tied`), and across split kinds the
lowest feature (:func:`among_kinds`). Categorical features: one branch per category
(:func:`multiway_scores`) or the best subset (:func:`best_subset`).

>>> first_tied(np.array([[0.5, 0.7, 0.7 - 1e-14, 0.7], [1.0, 0.0, 1.0, 0.0]])).tolist()
[1, 0]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..splits import TIE_TOLERANCE, subset_candidates, tie_first, variance_decrease

__all__ = [
    "SCORE_CHUNK",
    "score_of",
    "weight_of",
    "first_tied",
    "first_tied_in_groups",
    "known_share",
    "binary_children",
    "binary_scores",
    "multiway_scores",
    "best_subset",
    "among_kinds",
]

#: Largest number of candidate splits handed to a score at once: a score's temporaries are
#: several times its input, and bound the peak memory of a level.
SCORE_CHUNK = 100_000


def score_of(score: Any, parent: np.ndarray, children: np.ndarray, names: Any) -> np.ndarray:
    """Every call of a user's score goes through here: ``parent`` (..., k), ``children``
    (..., b, k), ``names`` broadcastable to (...); returns float64 scores shaped (...)."""
    return np.broadcast_to(np.asarray(score(parent, children, names), dtype=np.float64), children.shape[:-2])


def weight_of(stats: np.ndarray, regression: bool) -> np.ndarray:
    """The weight statistics hold (:meth:`puretree.tasks.Task.weight`): column 0, or the classes' sum."""
    return stats[..., 0] if regression else stats.sum(axis=-1)


def _tolerance(best: np.ndarray) -> np.ndarray:
    return TIE_TOLERANCE * np.maximum(1.0, np.abs(np.where(np.isfinite(best), best, 0.0)))


def first_tied(scores: np.ndarray) -> np.ndarray:
    """Row-wise :func:`puretree.splits.tie_first`: the first column within tolerance of the row's best."""
    best = scores.max(axis=-1)
    with np.errstate(invalid="ignore"):
        tol = TIE_TOLERANCE * np.maximum(1.0, np.abs(best))
        return np.argmax(scores >= (best - tol)[..., None], axis=-1)


def first_tied_in_groups(s: np.ndarray, group: np.ndarray) -> np.ndarray:
    """The position of each group's first score within tolerance of the group's best, for
    scores ``s`` in groups ``group`` (non-decreasing: each group contiguous).

    >>> first_tied_in_groups(np.array([0.5, 0.9, 0.9, 0.2, 0.1]), np.array([0, 0, 0, 3, 3])).tolist()
    [1, 3]
    """
    g_start = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    g_best = np.maximum.reduceat(s, g_start)
    g_of = np.repeat(np.arange(len(g_start)), np.diff(np.r_[g_start, len(group)]))
    ok = np.flatnonzero(s >= (g_best - _tolerance(g_best))[g_of])
    return ok[np.r_[True, g_of[ok][1:] != g_of[ok][:-1]]]


def known_share(s: Any, known: Any, total: Any, incomplete: Any = True) -> Any:
    """Scores ``s`` scaled by the known weight's share ``known / total`` of the node's weight
    (0 for a node of no weight) where ``incomplete``, as the reference scales a feature scored
    on its known rows (:func:`puretree.splits.known_fraction`)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        frac = np.where(total > 0, known / np.where(total > 0, total, 1.0), 0.0)
        return np.where(incomplete, s * frac, s)


def binary_children(parent: np.ndarray, left: np.ndarray, regression: bool) -> np.ndarray:
    """The two children ``(..., 2, k)`` of binary candidates: the left side and the rest of
    ``parent`` (class counts clipped at 0 against rounding)."""
    children = np.empty(left.shape[:-1] + (2, left.shape[-1]))
    children[..., 0, :] = left
    right = children[..., 1, :]
    np.subtract(parent, left, out=right)
    if not regression:
        np.maximum(right, 0.0, out=right)
    return children


def binary_scores(score: Any, parent: np.ndarray, left: np.ndarray, names: Any, *, regression: bool, variance: bool) -> np.ndarray:
    """The scores of binary candidates with left sides ``left`` (n, ..., k) in nodes of
    statistics ``parent`` (one node's (k,), or one per candidate), feature names ``names``
    (one, or one per candidate along axis 0): the variance decrease by its own formula
    (``variance``), else the score in slices of at most :data:`SCORE_CHUNK` candidates."""
    if variance:
        return variance_decrease(parent, left)
    n = left.shape[0]
    step = max(1, SCORE_CHUNK // max(1, int(np.prod(left.shape[1:-1]))))
    s = np.empty(left.shape[:-1])
    for a in range(0, n, step):
        b = min(n, a + step)
        par = parent if parent.ndim == 1 else parent[a:b]
        s[a:b] = score_of(score, par, binary_children(par, left[a:b], regression), names if np.ndim(names) == 0 else names[a:b])
    return s


def multiway_scores(score: Any, per: np.ndarray, rows: np.ndarray, known: np.ndarray, total: np.ndarray, name: Any, *, among: np.ndarray, incomplete: np.ndarray, min_samples_leaf: float, regression: bool) -> np.ndarray:
    """Each node's score of one branch per category of a feature (-inf: no split), from the
    nodes' per-category statistics ``per`` (N, m, k) and rows ``rows`` (N, m), their sums
    ``known`` (N, k, added in category order) and the nodes' weights ``total``: the nodes
    ``among`` with two categories present, each present one with ``min_samples_leaf`` rows,
    scored on the known rows (every category a child, empty ones too) and scaled by their
    share of the weight where ``incomplete``; not finite: no split."""
    present = rows > 0
    e = np.flatnonzero(among & (present.sum(axis=1) >= 2) & ~((rows < min_samples_leaf) & present).any(axis=1))
    out = np.full(len(rows), -np.inf)
    if len(e):
        s = known_share(score_of(score, known[e], per[e], name), weight_of(known[e], regression), total[e], incomplete[e])
        out[e] = np.where(np.isfinite(s), s, -np.inf)
    return out


def best_subset(score: Any, per: np.ndarray, rows: np.ndarray, known: np.ndarray, total: float, name: Any, *, task: Any, incomplete: bool, min_samples_leaf: float) -> tuple[float, tuple[int, ...], np.ndarray] | None:
    """One node's best subset split of a categorical feature from its per-category statistics
    ``per`` (m, k) and rows ``rows`` (m,), their sum ``known`` (added in category order) and
    the node's weight ``total``: ``(score, left categories, children)`` or None, as
    :func:`puretree.splits.subset_splits` finds it (:func:`~puretree.splits.subset_candidates`'
    partitions of the present categories, scored on the known rows and scaled by their share of
    the weight where ``incomplete``)."""
    present = np.flatnonzero(rows > 0)
    if len(present) < 2:
        return None
    stats = per[present]
    masks = subset_candidates(stats, present, known, task=task)
    children = binary_children(known, masks.astype(np.float64) @ stats, task.is_regression)
    s = score_of(score, known, children, name)
    if incomplete:
        s = s * (float(weight_of(known, task.is_regression)) / total if total > 0 else 0.0)
    if min_samples_leaf > 1:
        n_left = masks.astype(np.int64) @ rows[present]
        n_right = rows.sum() - n_left
        s = np.where((n_left >= min_samples_leaf) & (n_right >= min_samples_leaf), s, -np.inf)
    s = np.where(np.isnan(s), -np.inf, s)
    if np.isneginf(s).all():
        return None
    b = tie_first(s)
    return float(s[b]), tuple(int(c) for c in present[masks[b]]), children[b]


def among_kinds(scores: np.ndarray, features: np.ndarray, min_gain: float | None) -> tuple[np.ndarray, np.ndarray]:
    """Whether each node splits and with which kind, from each kind's best ``scores`` (N,
    kinds; -inf: none) and ``features``: the lowest feature among the kinds within tolerance
    of the best (the first kind on one feature), if its score is above ``min_gain``.

    >>> among_kinds(np.array([[0.5, 0.5], [-np.inf, -np.inf]]), np.array([[3, 1], [0, 0]]), None)
    (array([ True, False]), array([1, 0]))
    """
    best = scores.max(axis=1)
    has = ~np.isneginf(best)
    with np.errstate(invalid="ignore"):
        tied = scores >= (best - TIE_TOLERANCE * np.maximum(1.0, np.abs(best)))[:, None]
    choice = np.argmin(np.where(tied, features, np.iinfo(np.int64).max), axis=1)
    if min_gain is not None:
        has &= scores[np.arange(len(scores)), choice] > min_gain
    return has, choice
