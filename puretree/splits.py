"""What a split generator sees and returns: the rows at a node, candidate splits, and
the three built-in generators. Both builders use them, the recursive reference builder
(:mod:`puretree.builder`) and the level-wise engine (:mod:`puretree.growth.engine`), so the two
score every candidate with the same functions and break ties the same way.

- :class:`NodeData`: the rows reaching a node (their matrix, statistics, per-feature sorted
  orders) and :func:`root_data`, the root's;
- :class:`Candidate`: a proposed split with its score, branch per row and children's statistics;
- :func:`threshold_splits`, :func:`multiway_splits`, :func:`subset_splits`: the built-in
  generators (see :mod:`puretree.grow` for what each proposes);
- :func:`best_candidate`: the best of the generators' candidates at a node (ties within
  :data:`TIE_TOLERANCE` go to the lowest feature index), a user's score checked at the node
  (:class:`CheckedScore`).

>>> from puretree.data import as_dataset
>>> from puretree.datasets import load_temperature
>>> from puretree.criteria import information_gain
>>> node = root_data(as_dataset(load_temperature()))
>>> cand = threshold_splits(node, score=information_gain(), min_samples_leaf=1)
>>> cand.threshold, round(cand.score, 3)
(54.0, 0.459)
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np

from .codegen.literals import float32_threshold
from .criteria import ImpurityDecrease, Score
from .data import Dataset
from .errors import DataError, ParameterError, PuretreeError
from .growth.random_draw import missing_side, node_key, proxy_rank, random_cuts
from .impurity import gini, variance
from .nodes import TESTS, Schema, Test
from .tasks import TASKS, Task, as_task

__all__ = [
    "CHUNK",
    "heavy_enough",
    "TIE_TOLERANCE",
    "MISSING_BRANCH",
    "THRESHOLDS",
    "MAX_EXACT_SUBSET_CATEGORIES",
    "NodeData",
    "Candidate",
    "SplitGenerator",
    "known_fraction",
    "midpoint",
    "tie_first",
    "threshold_splits",
    "learned_threshold_splits",
    "random_threshold_splits",
    "threshold_candidate",
    "improvement",
    "FEATURE_THRESHOLD",
    "monotone_value",
    "monotone_ok",
    "monotone_children_bounds",
    "monotone_clipped",
    "monotone_clipped_rows",
    "variance_decrease",
    "branch_stats",
    "multiway_splits",
    "subset_masks",
    "subset_candidates",
    "subset_splits",
    "Settings",
    "MAX_FEATURES",
    "resolve_max_features",
    "node_features",
    "only_features",
    "RAND_R_MAX",
    "rand_r",
    "sklearn_sort",
    "SklearnSplitter",
    "score_name",
    "CheckedScore",
    "best_candidate",
    "node_statistics",
    "refuse_missing",
    "root_data",
]

#: Scores closer than this (relative) to the best one count as tied.
TIE_TOLERANCE = 1e-12
#: Largest number of floats a vectorised search holds at once (memory bound): the reference's
#: threshold search, the level-wise engine's sorted statistics and C4.5's chunked gains.
CHUNK = 4_000_000
#: The branch code of a row whose value at the split is missing.
MISSING_BRANCH = -1
#: How a numeric threshold is placed between two training values (see ``grow``).
THRESHOLDS = ("midpoint", "data")
#: Exact subset enumeration for more than two classes up to this many categories.
MAX_EXACT_SUBSET_CATEGORIES = 12


@attrs.frozen(eq=False)
class NodeData:
    """The rows reaching a node, as the split generators see them.

    ``X`` (n, p) and ``stats`` (n, k) are the node's rows; ``y`` their class codes (or
    targets); ``order[i]`` lists the row positions sorted by numeric feature
    ``numeric[i]`` and ``values[i]`` the sorted values; ``categorical`` the categorical
    features still usable here.
    """

    X: np.ndarray
    y: np.ndarray
    stats: np.ndarray
    order: np.ndarray
    values: np.ndarray
    numeric: np.ndarray
    categorical: tuple[int, ...]
    schema: Schema
    depth: int
    #: Rows of the whole training set (C4.5 compares a feature's number of values with it).
    root_rows: int = 0
    #: The branches taken from the root to this node: its name in the per-node random
    #: generators of feature subsampling (:func:`node_features`), the same in both builders.
    #: None: not tracked (no subsampling; a deep tree would pay a path per node).
    path: tuple[int, ...] | None = None
    #: Monotonic constraints (``monotonic_cst``), one of -1, 0, +1 per feature, on the value
    #: :func:`monotone_value` measures (None: unconstrained); see :func:`monotone_ok`.
    monotonic: np.ndarray | None = None
    #: The bounds (lower, upper) this node's value must keep, passed down from its ancestors'
    #: constrained splits (scikit-learn's ``lower_bound``/``upper_bound``).
    bounds: tuple[float, float] = (-np.inf, np.inf)

    @property
    def n_rows(self) -> int:
        return int(self.X.shape[0])

    @property
    def task(self) -> Task:
        """What the statistics are (:mod:`puretree.tasks`): the schema's task."""
        return TASKS[self.schema.task]

    def restrict(self, rows: np.ndarray, *, drop: int | None = None, scale: np.ndarray | None = None, branch: int = 0) -> "NodeData":
        """The node data of the rows selected by the boolean mask ``rows``.

        ``scale`` (one factor per selected row) multiplies the selected rows' statistics:
        the fractional weight of a row with a missing value sent down several branches.
        The sorted orders stay sorted, since a mask keeps their relative order.
        """
        n_child = int(rows.sum())
        new_position = np.cumsum(rows) - 1
        keep = rows[self.order]
        q = self.order.shape[0]
        return NodeData(
            X=self.X[rows],
            y=self.y[rows],
            stats=self.stats[rows] if scale is None else self.stats[rows] * scale[:, None],
            order=new_position[self.order[keep]].reshape(q, n_child),
            values=self.values[keep].reshape(q, n_child),
            numeric=self.numeric,
            categorical=tuple(j for j in self.categorical if j != drop),
            schema=self.schema,
            depth=self.depth + 1,
            root_rows=self.root_rows,
            path=None if self.path is None else (*self.path, branch),
            monotonic=self.monotonic,
            bounds=self.bounds,
        )


def _split_kind(kind: str) -> str:
    # "numeric" is the former name of a threshold split (one release, for users' generators).
    return "threshold" if kind == "numeric" else kind


@attrs.frozen(eq=False)
class Candidate:
    """A proposed split: its score, feature, test, and the branch of every row.

    ``kind`` is the split test's kind name (:data:`~puretree.nodes.TESTS`: ``"threshold"``,
    ``"multiway"``, ``"subset"``); ``threshold`` or ``left_categories`` complete the test.

    >>> Candidate(0.5, 0, "threshold", np.array([0, 1]), np.array([[1.0, 0.0], [0.0, 1.0]]), threshold=1.5).test
    Threshold(value=1.5)
    """

    score: float
    feature: int
    kind: str = attrs.field(converter=_split_kind)
    branch: np.ndarray
    children: np.ndarray
    threshold: float | None = None
    left_categories: tuple[int, ...] = ()
    #: The branch the rows with a missing value take, learned (``missing="learn"``); None: the
    #: tree's strategy routes them (their ``branch`` is ``MISSING_BRANCH``).
    missing_branch: int | None = None

    @property
    def n_branches(self) -> int:
        return int(self.children.shape[0])

    @property
    def test(self) -> Test:
        """The split test this candidate proposes (its kind's class makes it)."""
        return TESTS[self.kind].of_candidate(self)


SplitGenerator = Callable[..., "Candidate | None"]


def known_fraction(known: np.ndarray, parent: np.ndarray, task: Task) -> np.ndarray:
    """Share of the node's weight whose value is known (C4.5's factor F on the gain).

    >>> from puretree.tasks import CLASSIFICATION
    >>> float(known_fraction(np.array([6.0, 4.0]), np.array([9.0, 5.0]), CLASSIFICATION))
    0.7142857142857143
    """
    total = float(task.weight(parent))
    return task.weight(known) / total if total > 0 else np.zeros(known.shape[:-1])


def midpoint(a: float, b: float) -> float:
    """The threshold between consecutive distinct values ``a < b``: their midpoint, such that
    ``a <= t < b`` holds in float64 even for adjacent or huge floats.

    >>> midpoint(48.0, 60.0)
    54.0
    >>> import math; midpoint(1.0, math.nextafter(1.0, 2.0))    # adjacent: the lower value
    1.0
    """
    m = a / 2.0 + b / 2.0  # halves first: a + b may overflow
    return m if a <= m < b else a


def tie_first(scores: np.ndarray) -> int:
    """Index of the first score tied with the maximum (scores within tolerance).

    >>> tie_first(np.array([0.5, 0.7, 0.7 - 1e-14, 0.7]))
    1
    """
    best = float(scores.max())
    tol = TIE_TOLERANCE * max(1.0, abs(best))
    return int(np.argmax(scores >= best - tol))


def threshold_splits(node: NodeData, *, score: Score, min_samples_leaf: float, min_weight_leaf: float = 0.0) -> Candidate | None:
    """Best binary split ``x <= t`` over all numeric features, all thresholds scored at once;
    ``min_weight_leaf``: each child holds at least this weight (scikit-learn's
    ``min_weight_fraction_leaf`` times the training weight)."""
    q, n = node.order.shape
    if q == 0 or n < 2:
        return None
    k = node.stats.shape[1]
    parent = node.stats.sum(axis=0)
    names = np.asarray(node.schema.feature_names)[node.numeric]
    task = node.task
    chunk = max(1, CHUNK // max(1, n * k * 2))
    by_sums = task.is_regression and isinstance(score, ImpurityDecrease) and score.impurity is variance
    # NaN sorts last, so a feature has missing values here exactly when its last value is NaN.
    incomplete = np.isnan(node.values[:, -1])
    best_scores, best_positions = [], []
    for start in range(0, q, chunk):
        order = node.order[start : start + chunk]
        values = node.values[start : start + chunk]
        sorted_stats = node.stats[order]  # (c, n, k)
        left = np.cumsum(sorted_stats, axis=1)[:, :-1]  # (c, n-1, k)
        n_known: Any = n
        if incomplete[start : start + chunk].any():
            # Score on the known rows only (they come first in the sorted order) ...
            known = ~np.isnan(values)
            n_known = known.sum(axis=1)[:, None]
            base = np.einsum("cnk,cn->ck", sorted_stats, known)[:, None, :]  # (c, 1, k)
        else:
            base = parent
        if by_sums:
            s = variance_decrease(base, left)
        else:
            children = np.stack((left, task.remainder(base, left)), axis=-2)  # (c, n-1, 2, k)
            s = np.broadcast_to(np.asarray(score(base, children, names[start : start + chunk, None]), dtype=np.float64), left.shape[:2])
        if base is not parent:
            with np.errstate(invalid="ignore"):  # -inf * 0 (a feature missing everywhere): NaN, dropped below
                s = s * known_fraction(base, parent, task)  # ... and scale by the known share
        valid = values[:, :-1] < values[:, 1:]  # between distinct values only (False next to NaN)
        if node.monotonic is not None:
            valid &= monotone_ok(node, node.numeric[start : start + chunk], left, task.remainder(base, left))
        if min_samples_leaf > 1:
            n_left = np.arange(1, n)
            valid &= (n_left >= min_samples_leaf) & (n_known - n_left >= min_samples_leaf)
        if min_weight_leaf > 0:
            valid &= heavy_enough(task.weight(left), task.weight(base), min_weight_leaf)
        s = np.where(valid & ~np.isnan(s), s, -np.inf)
        row_best = s.max(axis=1)
        tol = TIE_TOLERANCE * np.maximum(1.0, np.abs(np.where(np.isfinite(row_best), row_best, 0.0)))
        positions = np.argmax(s >= (row_best - tol)[:, None], axis=1)  # first near-best threshold
        best_scores.extend(np.take_along_axis(s, positions[:, None], axis=1)[:, 0].tolist())
        best_positions.extend(positions.tolist())
    return threshold_candidate(node, best_scores, best_positions)


def threshold_candidate(node: NodeData, scores: Sequence[float], positions: Sequence[int]) -> Candidate | None:
    """The split ``x <= t`` of the best numeric feature, from each numeric feature's best score
    and the position of its cut in the feature's sorted values (``None`` when no feature has a
    finite score): ties go to the lowest feature (:func:`tie_first`), the threshold is the
    midpoint of the values around the cut, missing values go down :data:`MISSING_BRANCH`.

    >>> from puretree.data import from_numpy
    >>> node = root_data(from_numpy(np.array([[1.0, 5.0], [2.0, 4.0], [3.0, 6.0]]), ["a", "a", "b"]))
    >>> c = threshold_candidate(node, [0.3, 0.1], [1, 0])
    >>> c.feature, c.threshold, c.branch.tolist()
    (0, 2.5, [0, 0, 1])
    """
    best = np.asarray(scores, dtype=np.float64)
    if np.isneginf(best).all():
        return None
    i = tie_first(best)
    pos = positions[i]
    j = int(node.numeric[i])
    threshold = midpoint(float(node.values[i, pos]), float(node.values[i, pos + 1]))
    column = node.X[:, j]
    branch = np.where(np.isnan(column), MISSING_BRANCH, column > threshold).astype(np.int64)
    return Candidate(float(best[i]), j, "threshold", branch, branch_stats(node.stats, branch, 2), threshold=threshold)


def learned_threshold_splits(node: NodeData, *, score: Score, min_samples_leaf: float, min_weight_leaf: float = 0.0) -> Candidate | None:
    """Best binary split ``x <= t`` with the side of the missing values learned
    (``missing="learn"``), as scikit-learn's best splitter finds it (1.3 and later).

    For a feature with missing values at the node every threshold is scored twice, the
    missing rows on the right and then on the left, and then the split that sends the missing
    rows alone right (threshold ``+inf``: every known value goes left); each is scored on all
    the node's rows (no known-fraction factor). The first best of them wins, in that order,
    as scikit-learn's strict comparisons keep the first. For a feature without missing values
    here, the missing values (seen only when predicting) go left when the left child has more
    training rows (unweighted), else right (a tie goes right). ``min_weight_leaf``: each child,
    its missing rows included, holds at least this weight (:func:`heavy_enough`).

    >>> from puretree.criteria import SCORES
    >>> from puretree.data import from_numpy
    >>> ds = from_numpy(np.array([[1.0], [2.0], [np.nan], [3.0], [np.nan]]), ["a", "a", "b", "b", "b"])
    >>> c = learned_threshold_splits(root_data(ds), score=SCORES["gini"], min_samples_leaf=1)
    >>> c.test, c.branch.tolist()
    (Threshold(value=2.5, missing_branch=1), [0, 0, 1, 1, 1])
    """
    q, n = node.order.shape
    if q == 0 or n < 2:
        return None
    k = node.stats.shape[1]
    parent = node.stats.sum(axis=0)
    names = np.asarray(node.schema.feature_names)[node.numeric]
    task = node.task
    chunk = max(1, CHUNK // max(1, n * k * 6))
    by_sums = task.is_regression and isinstance(score, ImpurityDecrease) and score.impurity is variance
    best_scores, best_positions = [], []

    def scored(left: np.ndarray, name: np.ndarray) -> np.ndarray:
        if by_sums:
            return variance_decrease(parent, left)
        children = np.stack((left, task.remainder(parent, left)), axis=-2)
        return np.broadcast_to(np.asarray(score(parent, children, name), dtype=np.float64), left.shape[:-1])

    for start in range(0, q, chunk):
        order = node.order[start : start + chunk]
        values = node.values[start : start + chunk]
        name = names[start : start + chunk, None]
        sorted_stats = node.stats[order]  # (c, n, k): NaN sorts last
        known = ~np.isnan(values)
        n_known = known.sum(axis=1)  # (c,)
        n_missing = n - n_known
        absent = parent - np.einsum("cnk,cn->ck", sorted_stats, known)  # (c, k): the missing rows' statistics
        left = np.cumsum(sorted_stats, axis=1)[:, :-1]  # (c, n-1, k)
        n_left = np.arange(1, n)[None, :]
        valid = values[:, :-1] < values[:, 1:]  # between distinct known values only
        has_missing = (n_missing > 0)[:, None]
        right_ok = valid & (n_left >= min_samples_leaf) & (n - n_left >= min_samples_leaf)
        left_ok = valid & has_missing & (n_left + n_missing[:, None] >= min_samples_leaf) & (n_known[:, None] - n_left >= min_samples_leaf)
        alone_ok = (n_missing > 0) & (n_known > 0) & (n_known >= min_samples_leaf) & (n_missing >= min_samples_leaf)
        if min_weight_leaf > 0:  # every child's weight, its missing rows included
            w_node = task.weight(parent)
            right_ok &= heavy_enough(task.weight(left), w_node, min_weight_leaf)
            left_ok &= heavy_enough(task.weight(left + absent[:, None, :]), w_node, min_weight_leaf)
            alone_ok &= heavy_enough(task.weight(parent - absent), w_node, min_weight_leaf)
        if node.monotonic is not None:
            features = node.numeric[start : start + chunk]
            right_ok &= monotone_ok(node, features, left, parent - left)
            left_ok &= monotone_ok(node, features, left + absent[:, None, :], parent - left - absent[:, None, :])
            alone_ok &= monotone_ok(node, features, (parent - absent)[:, None, :], absent[:, None, :])[:, 0]
        with np.errstate(invalid="ignore", divide="ignore"):
            s = np.concatenate([
                np.where(right_ok, scored(left, name), -np.inf),  # missing rows right
                np.where(left_ok, scored(left + absent[:, None, :], name), -np.inf),  # missing rows left
                np.where(alone_ok[:, None], scored((parent - absent)[:, None, :], name), -np.inf),  # missing rows alone right
            ], axis=1)
        s = np.where(np.isnan(s), -np.inf, s)
        row_best = s.max(axis=1)
        tol = TIE_TOLERANCE * np.maximum(1.0, np.abs(np.where(np.isfinite(row_best), row_best, 0.0)))
        positions = np.argmax(s >= (row_best - tol)[:, None], axis=1)
        best_scores.extend(np.take_along_axis(s, positions[:, None], axis=1)[:, 0].tolist())
        best_positions.extend(positions.tolist())
    scores = np.asarray(best_scores)
    if np.isneginf(scores).all():
        return None
    i = tie_first(scores)
    pos = best_positions[i]
    j = int(node.numeric[i])
    column = node.X[:, j]
    missing_here = bool(np.isnan(column).any())
    if pos == 2 * (n - 1):  # the missing rows alone go right
        threshold, side = np.inf, 1
    else:
        p = pos % (n - 1)
        threshold = midpoint(float(node.values[i, p]), float(node.values[i, p + 1]))
        if missing_here:
            side = 1 if pos < n - 1 else 0
        else:  # no missing value to learn from: the child with more rows (a tie: right)
            side = 0 if p + 1 > n - (p + 1) else 1
    branch = np.where(np.isnan(column), side, column > threshold).astype(np.int64)
    return Candidate(float(scores[i]), j, "threshold", branch, branch_stats(node.stats, branch, 2), threshold=threshold, missing_branch=side)


def heavy_enough(w_left: Any, w_node: Any, min_weight_leaf: float) -> Any:
    """Where both children of a two-way split (the left's weight ``w_left``, the node's
    ``w_node``) hold at least ``min_weight_leaf`` (``min_weight_fraction_leaf`` times the
    training weight), as scikit-learn's splitters test it (the right child's weight is the
    node's less the left's). The one rule of every source: the recursive builder's generators,
    the sorted source's scans and the histogram chooser (:mod:`puretree.growth.choose`) ask it;
    the compiled scans make the same two comparisons.

    >>> heavy_enough(np.array([1.0, 2.0, 3.0]), 5.0, 2.0).tolist()
    [False, True, True]
    """
    return (w_left >= min_weight_leaf) & (w_node - w_left >= min_weight_leaf)


#: scikit-learn's FEATURE_THRESHOLD: a feature whose values at a node span no more is constant there.
FEATURE_THRESHOLD = 1e-7


def random_threshold_splits(node: NodeData, *, score: Score, min_samples_leaf: float, min_weight_leaf: float = 0.0, max_features: int | None = None, key: tuple[int, ...] = (0,), learn: bool = False) -> Candidate | None:
    """scikit-learn's random splitter (extra trees, ``splitter="random"``): the numeric
    features are visited in a random order, each non-constant one cut at a threshold drawn
    uniformly between its minimum and maximum at the node (the maximum drawn: the minimum), and
    the best of those cuts wins (the first visited on a tie). As scikit-learn does, the visit
    stops after ``max_features`` features (None: all) once one of them was not constant at the
    node. The draws are :mod:`puretree.growth.random_draw`'s, keyed by ``key`` and the node's
    path, so the same seed grows the same tree, here and in the compiled tree
    (:mod:`puretree.growth.random_cuts`). With the built-in Gini impurity decrease on classes and
    no missing value among the cut features, the cuts are ranked by scikit-learn's proxy of it
    (:func:`~puretree.growth.random_draw.proxy_rank`, the same order); otherwise by ``score``.
    Missing values are scored as :func:`threshold_splits` scores them (the known rows, scaled by
    their share) and routed by the tree's strategy; with ``learn`` (``missing="learn"``) each
    cut sends its feature's missing rows to a side drawn as scikit-learn's random splitter draws
    it (:func:`~puretree.growth.random_draw.missing_side`) where the node has missing values in
    that feature, else to the child of more rows (a tie: right), and is scored on all the node's rows.
    With monotonic constraints (``node.monotonic``) a drawn cut whose children leave the node's
    bounds or go against the direction is not taken (:func:`monotone_ok`), as scikit-learn's
    random splitter rejects it.

    >>> from puretree.criteria import SCORES
    >>> from puretree.data import from_numpy
    >>> node = attrs.evolve(root_data(from_numpy(np.array([[0.0], [1.0], [2.0], [3.0]]), ["a", "a", "b", "b"])), path=())
    >>> c = random_threshold_splits(node, score=SCORES["gini"], min_samples_leaf=1)
    >>> c.feature, 0.0 <= c.threshold < 3.0, c.threshold == random_threshold_splits(node, score=SCORES["gini"], min_samples_leaf=1).threshold
    (0, True, True)
    """
    n = node.n_rows
    numeric = node.numeric
    if len(numeric) == 0 or n < 2:
        return None
    nkey = node_key(key, node.path or ())
    cuts = random_cuts(node.X[:, numeric], nkey, limit=max_features)
    if not cuts:
        return None
    feats = numeric[np.array([f for f, _ in cuts], dtype=np.int64)]
    thresholds = np.array([t for _, t in cuts])
    columns = node.X[:, feats]
    known = ~np.isnan(columns)
    goes_left = (columns <= thresholds) & known  # (n, v)
    task = node.task
    parent = node.stats.sum(axis=0)
    if learn:  # the missing rows join their drawn side (no missing row here: the child of more rows, a tie right)
        n_left = goes_left.sum(axis=0)
        drawn = np.array([missing_side(nkey, len(numeric), f) for f, _ in cuts], dtype=np.int64)
        side = np.where(known.all(axis=0), np.where(n_left > n - n_left, 0, 1), drawn)
        goes_left |= ~known & (side == 0)
        base, n_base = parent, n  # scored on all the node's rows
    else:  # scored on the known rows, scaled by their share; the missing rows routed by the tree's strategy
        side = np.full(len(feats), MISSING_BRANCH)
        base, n_base = known.T.astype(np.float64) @ node.stats, known.sum(axis=0)  # (v, k)
    left = goes_left.T.astype(np.float64) @ node.stats  # (v, k)
    n_left = goes_left.sum(axis=0)
    children = np.stack((left, task.remainder(parent, left) if learn else base - left), axis=-2)  # (v, 2, k)
    names = np.asarray(node.schema.feature_names)[feats]
    with np.errstate(invalid="ignore"):
        s = np.broadcast_to(np.asarray(score(base, children, names), dtype=np.float64), (len(feats),))
        if not learn:
            s = s * known_fraction(base, parent, task)
    ok = (n_left >= max(1.0, min_samples_leaf)) & (n_base - n_left >= max(1.0, min_samples_leaf))
    if min_weight_leaf > 0:
        ok &= heavy_enough(task.weight(left), task.weight(base), min_weight_leaf)
    if node.monotonic is not None:  # a drawn cut outside the node's bounds is not taken, as scikit-learn's random splitter
        ok &= monotone_ok(node, feats, left[:, None, :], task.remainder(base, left)[:, None, :])[:, 0]
    s = np.where(ok & ~np.isnan(s), s, -np.inf)
    if np.isneginf(s).all():
        return None
    by_proxy = not task.is_regression and isinstance(score, ImpurityDecrease) and score.impurity is gini and bool(known.all())
    rank = np.where(ok, proxy_rank(parent, left), -np.inf) if by_proxy else s
    i = int(np.argmax(rank))  # strictly better only: the first visited on a tie
    column = node.X[:, int(feats[i])]
    branch = np.where(np.isnan(column), side[i], column > thresholds[i]).astype(np.int64)
    return Candidate(float(s[i]), int(feats[i]), "threshold", branch, branch_stats(node.stats, branch, 2), threshold=float(thresholds[i]), missing_branch=int(side[i]) if learn else None)


def improvement(node: NodeData, candidate: Candidate, total_weight: float) -> float:
    """scikit-learn's weighted impurity improvement of ``candidate`` at ``node``:
    ``N_t / N * (impurity - N_t_R / N_t * right_impurity - N_t_L / N_t * left_impurity)``, the
    candidate's score (an impurity decrease) times the node's share of the training weight
    ``total_weight``; what ``min_impurity_decrease`` bounds and best-first growth ranks by.

    >>> from puretree.criteria import SCORES
    >>> from puretree.data import from_numpy
    >>> node = root_data(from_numpy(np.array([[0.0], [1.0]]), ["a", "b"]))
    >>> improvement(node, threshold_splits(node, score=SCORES["gini"], min_samples_leaf=1), 4.0)
    0.25
    """
    return float(node.task.weight(node.stats.sum(axis=0))) / total_weight * candidate.score
def monotone_value(stats: np.ndarray, task: Task) -> np.ndarray:
    """The value a monotonic constraint bears on, from statistics (last axis): the share of the
    first class (two classes) or the mean (regression), as scikit-learn's criteria compute it.

    >>> from puretree.tasks import CLASSIFICATION, REGRESSION
    >>> monotone_value(np.array([[1.0, 3.0]]), CLASSIFICATION).tolist(), monotone_value(np.array([2.0, 5.0, 13.0]), REGRESSION).tolist()
    ([0.25], 2.5)
    """
    with np.errstate(invalid="ignore", divide="ignore"):
        if task.is_regression:
            return stats[..., 1] / stats[..., 0]
        return stats[..., 0] / stats.sum(axis=-1)


def monotone_ok(node: NodeData, features: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Which two-way splits of ``features`` (one per row of ``left``/``right``, the children's
    statistics, shape (c, m, k)) keep the node's monotonic constraints, as scikit-learn's
    ``check_monotonicity``: on a constrained feature both children's values lie within the
    node's bounds and do not go against the direction (``(left - right) * direction <= 0``).
    Splits on an unconstrained feature are all kept.

    >>> from puretree.data import from_numpy
    >>> node = attrs.evolve(root_data(from_numpy(np.zeros((2, 2)), [0.0, 1.0], task="regression")), monotonic=np.array([1, -1]))
    >>> l, r = np.array([[[1.0, 1.0, 1.0]], [[1.0, 1.0, 1.0]]]), np.array([[[1.0, 3.0, 9.0]], [[1.0, 3.0, 9.0]]])
    >>> monotone_ok(node, np.array([0, 1]), l, r).tolist()
    [[True], [False]]
    """
    assert node.monotonic is not None
    direction = node.monotonic[features]
    ok = np.ones(np.broadcast_shapes(left.shape, right.shape)[:-1], dtype=bool)
    constrained = np.flatnonzero(direction)  # only these rows are checked (a third of the cost with a third constrained)
    if constrained.size == 0:
        return ok
    lower, upper = node.bounds
    task = node.task
    vl = monotone_value(np.broadcast_to(left, ok.shape + left.shape[-1:])[constrained], task)
    vr = monotone_value(np.broadcast_to(right, ok.shape + right.shape[-1:])[constrained], task)
    with np.errstate(invalid="ignore"):
        ok[constrained] = (vl >= lower) & (vr >= lower) & (vl <= upper) & (vr <= upper) & ((vl - vr) * direction[constrained][:, None] <= 0)
    return ok


def monotone_children_bounds(node: NodeData, feature: int, children: np.ndarray) -> list[tuple[float, float]]:
    """The bounds each child of a split on ``feature`` passes down (scikit-learn's tree
    builder): a constrained feature cuts the node's bounds at the middle value of its two
    children (the lower side's upper bound, the higher side's lower bound); any other split
    hands every child the node's bounds.

    >>> from puretree.data import from_numpy
    >>> node = attrs.evolve(root_data(from_numpy(np.zeros((2, 1)), [0.0, 1.0], task="regression")), monotonic=np.array([-1]))
    >>> monotone_children_bounds(node, 0, np.array([[1.0, 4.0, 16.0], [1.0, 2.0, 4.0]]))
    [(3.0, inf), (-inf, 3.0)]
    """
    lower, upper = node.bounds
    direction = 0 if node.monotonic is None or feature >= node.monotonic.shape[0] else int(node.monotonic[feature])
    if direction == 0 or children.shape[0] != 2:
        return [(lower, upper)] * children.shape[0]
    task = node.task
    weights = task.weight(children)
    # scikit-learn's middle_value: each child's value halved, then added
    first = 1 if task.is_regression else 0
    middle = float(children[0, first] / (2 * weights[0]) + children[1, first] / (2 * weights[1]))
    if direction > 0:
        return [(lower, middle), (middle, upper)]
    return [(middle, upper), (lower, middle)]


def monotone_clipped(totals: np.ndarray, bounds: tuple[float, float], task: Task) -> np.ndarray:
    """A node's statistics with its value clipped to ``bounds`` (scikit-learn's
    ``clip_node_value``): unchanged when the value lies within them, else the statistics of the
    same weight whose value is the bound (two classes: the first class's share, the second
    taking the rest; regression: the mean, the spread kept), its weight the nearest power of two.

    >>> from puretree.tasks import CLASSIFICATION
    >>> monotone_clipped(np.array([1.0, 3.0]), (0.5, 1.0), CLASSIFICATION).tolist()
    [2.0, 2.0]
    >>> monotone_clipped(np.array([1.0, 2.0]), (0.5, 1.0), CLASSIFICATION).tolist()   # weight 3: 4
    [2.0, 2.0]
    """
    lower, upper = bounds
    return monotone_clipped_rows(totals[None, :], np.array([lower]), np.array([upper]), task)[0]


def monotone_clipped_rows(stats: np.ndarray, lower: np.ndarray, upper: np.ndarray, task: Task) -> np.ndarray:
    """:func:`monotone_clipped` for many nodes at once: ``stats`` (n, k), their bounds ``lower``
    and ``upper`` (n,); the rows within their bounds are returned unchanged (the same array when
    every row is).

    >>> from puretree.tasks import CLASSIFICATION
    >>> monotone_clipped_rows(np.array([[1.0, 3.0], [3.0, 1.0]]), np.array([0.5, 0.5]), np.array([1.0, 1.0]), CLASSIFICATION).tolist()
    [[2.0, 2.0], [3.0, 1.0]]
    """
    value = monotone_value(stats, task)
    with np.errstate(invalid="ignore"):
        low, high = value < lower, value > upper
    rows = np.flatnonzero(low | high)
    if not rows.size:
        return stats
    out = stats.copy()
    v = value[rows]
    clipped = np.where(low[rows], lower[rows], upper[rows])
    # The weight is rounded to a power of two, which scales exactly: every node clipped to one
    # bound then predicts exactly that bound (a monotone tree stays monotone to the last bit).
    if task.is_regression:
        w = stats[rows, 0]
        spread = stats[rows, 2] / w - v * v
        w = _power_of_two(w)
        out[rows] = np.stack([w, clipped * w, (spread + clipped * clipped) * w], axis=1)
    else:
        w = _power_of_two(stats[rows].sum(axis=1))
        out[rows] = np.stack([clipped * w, (1.0 - clipped) * w], axis=1)
    return out


def _power_of_two(w: np.ndarray) -> np.ndarray:
    return np.asarray(2.0 ** np.round(np.log2(w)))


def variance_decrease(parent: np.ndarray, left: np.ndarray) -> np.ndarray:
    """The decrease in variance of every two-way split, straight from the prefix sums.

    ``var(parent) - sum_i w_i / w * var(child_i)`` equals ``(S_l**2 / w_l + S_r**2 / w_r) / w
    - (S / w)**2`` (the sums of squares cancel), which needs neither the children's stacked
    statistics nor their sums of squares: fewer passes over the data, and no cancellation
    between large sums of squares (scikit-learn's "proxy improvement" is the same quantity).
    """
    w, total = parent[..., 0], parent[..., 1]
    w_left, s_left = left[..., 0], left[..., 1]
    w_right, s_right = w - w_left, total - s_left
    with np.errstate(divide="ignore", invalid="ignore"):
        gain = (s_left * s_left / w_left + s_right * s_right / w_right) / w - np.square(total / w)
    return np.where((w_left > 0) & (w_right > 0), np.maximum(gain, 0.0), -np.inf)


def branch_stats(stats: np.ndarray, branch: np.ndarray, n_branches: int) -> np.ndarray:
    out = np.zeros((n_branches, stats.shape[1]))
    for b in range(n_branches):
        out[b] = stats[branch == b].sum(axis=0)
    return out


def _category_stats(node: NodeData, j: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Codes of feature ``j`` for the node's rows (``MISSING_BRANCH`` where missing),
    statistics per category, rows per category, and the statistics of the known rows."""
    column = node.X[:, j]
    m = len(node.schema.features[j].categories)
    known = ~np.isnan(column)
    if known.all():
        codes = column.astype(np.int64)
        stats = node.stats
    else:
        codes = np.where(known, column, MISSING_BRANCH).astype(np.int64)
        stats = node.stats[known]
    present = codes[known] if not known.all() else codes
    per = np.stack([np.bincount(present, weights=stats[:, c], minlength=m) for c in range(stats.shape[1])], axis=-1)
    return codes, per, np.bincount(present, minlength=m), per.sum(axis=0)


def _scaled_score(score: Score, parent: np.ndarray, known: np.ndarray, children: np.ndarray, name: Any, task: Task) -> np.ndarray:
    """``score`` of a split on the known rows, times their share of the node's weight."""
    s = np.asarray(score(known, children, name), dtype=np.float64)
    if np.array_equal(known, parent):
        return s
    return s * known_fraction(known, parent, task)


def multiway_splits(node: NodeData, *, score: Score, min_samples_leaf: float, min_weight_leaf: float = 0.0) -> Candidate | None:
    """Best one-branch-per-category split over the usable categorical features."""
    parent = node.stats.sum(axis=0)
    found: list[tuple[float, int, np.ndarray, np.ndarray]] = []
    for j in node.categorical:
        codes, per, rows, known = _category_stats(node, j)
        present = rows > 0
        if present.sum() < 2:
            continue  # a "split" that sends every row one way separates nothing
        if (rows[present] < min_samples_leaf).any():
            continue
        if min_weight_leaf > 0 and (node.task.weight(per[present]) < min_weight_leaf).any():
            continue
        s = float(_scaled_score(score, parent, known, per, np.asarray(node.schema.features[j].name), node.task))
        if np.isfinite(s):
            found.append((s, j, codes, per))
    if not found:
        return None
    i = tie_first(np.array([f[0] for f in found]))
    s, j, codes, per = found[i]
    return Candidate(s, j, "multiway", codes, per)


def subset_masks(m: int) -> np.ndarray:
    """All non-trivial two-way partitions of ``m`` categories, the first always on the left.

    >>> subset_masks(3).astype(int).tolist()
    [[1, 0, 0], [1, 0, 1], [1, 1, 0]]
    """
    combos = np.array(list(itertools.product((False, True), repeat=m - 1)), dtype=bool)[:-1]
    return np.concatenate([np.ones((len(combos), 1), dtype=bool), combos], axis=1)


def subset_candidates(stats: np.ndarray, present: np.ndarray, known: np.ndarray, *, task: Task | None = None, regression: bool | None = None, weight_of: Any = None) -> np.ndarray:
    """The two-way partitions worth scoring of the categories ``present`` at a node (their
    statistics ``stats``), as boolean masks (True: left): with two classes or regression the
    prefixes of the categories ordered by class-1 proportion or by mean (Breiman's theorem,
    exact); with more classes every partition up to ``MAX_EXACT_SUBSET_CATEGORIES``
    categories, beyond that the prefixes by the majority class's proportion (a heuristic).

    ``task`` says what the statistics are; ``regression=`` (a flag) is its former spelling,
    still read, and ``weight_of`` is ignored: the task knows where the weight is.

    >>> from puretree.tasks import REGRESSION
    >>> means = np.array([[1.0, 5.0, 25.0], [1.0, 1.0, 1.0], [1.0, 3.0, 9.0]])   # means 5, 1, 3
    >>> subset_candidates(means, np.arange(3), means.sum(axis=0), task=REGRESSION).astype(int).tolist()
    [[0, 1, 0], [0, 1, 1]]
    """
    task = as_task(task if task is not None else bool(regression))
    m, k = len(present), stats.shape[1]
    if not (task.ordering_is_exact(k) or m > MAX_EXACT_SUBSET_CATEGORIES):
        return subset_masks(m)
    key = task.category_key(stats, known)
    ranked = np.lexsort((present, key))  # ties: by category code, deterministic
    masks = np.zeros((m - 1, m), dtype=bool)
    masks[:, ranked] = np.tri(m - 1, m, dtype=bool)  # prefix i holds the first i+1 ranked categories
    return masks


def subset_splits(node: NodeData, *, score: Score, min_samples_leaf: float, min_weight_leaf: float = 0.0) -> Candidate | None:
    """Best two-way split of the categories of a categorical feature (CART)."""
    parent = node.stats.sum(axis=0)
    task = node.task
    found: list[tuple[float, int, tuple[int, ...], np.ndarray]] = []
    for j in node.categorical:
        codes, per, rows, known = _category_stats(node, j)
        present = np.flatnonzero(rows > 0)
        m = len(present)
        if m < 2:
            continue
        stats = per[present]
        masks = subset_candidates(stats, present, known, task=task)
        left = masks.astype(np.float64) @ stats  # (B, k)
        children = np.stack((left, task.remainder(known, left)), axis=-2)
        s = np.broadcast_to(_scaled_score(score, parent, known, children, np.asarray(node.schema.features[j].name), task), (len(masks),))
        if min_samples_leaf > 1:
            n_left = masks.astype(np.int64) @ rows[present]
            n_right = int(rows.sum()) - n_left
            s = np.where((n_left >= min_samples_leaf) & (n_right >= min_samples_leaf), s, -np.inf)
        if min_weight_leaf > 0:
            s = np.where(heavy_enough(task.weight(left), task.weight(known), min_weight_leaf), s, -np.inf)
        s = np.where(np.isnan(s), -np.inf, s)
        if np.isneginf(s).all():
            continue
        b = tie_first(s)
        found.append((float(s[b]), j, tuple(int(c) for c in present[masks[b]]), children[b]))
    if not found:
        return None
    i = tie_first(np.array([f[0] for f in found]))
    best, j, left_codes, children = found[i]
    column = node.X[:, j]
    branch = np.where(np.isnan(column), MISSING_BRANCH, np.where(np.isin(column, left_codes), 0, 1))
    return Candidate(best, j, "subset", branch, children, left_categories=left_codes)


_BUILTIN_SPLITTERS = (threshold_splits, multiway_splits, subset_splits, learned_threshold_splits, random_threshold_splits)
#: The built-in generators that take ``min_weight_leaf``.
_WEIGHING_SPLITTERS = (threshold_splits, multiway_splits, subset_splits, random_threshold_splits, learned_threshold_splits)


@attrs.frozen
class Settings:
    score: Score
    splitters: tuple[SplitGenerator, ...]
    max_depth: int | None
    min_samples_split: float
    min_samples_leaf: float
    min_gain: float | None
    accept: Callable[..., bool] | None  # (parent, children), and the node's context for hooks that want it
    missing: str = "majority"
    trusted: bool = False  # a built-in score: no per-call checks
    #: Feature subsampling: how many features each node draws (None: all of them, no drawing).
    max_features: int | None = None
    #: The key of the per-node generators: (seed,) or (seed, member) (see :func:`node_features`).
    feature_key: tuple[int, ...] = (0,)
    # -- scikit-learn's size controls (puretree.builder's sizes block) --
    #: Each child holds at least this weight (``min_weight_fraction_leaf`` times ``total_weight``).
    min_weight_leaf: float = 0.0
    #: A split is made only if its :func:`improvement` is at least this (scikit-learn's rule, within EPSILON).
    min_impurity_decrease: float = 0.0
    #: The training weight (the root's): the ``N`` of :func:`improvement`.
    total_weight: float = 1.0
    #: Best-first growth to at most this many leaves (None: depth-first, no bound).
    max_leaf_nodes: int | None = None
    #: Monotonic constraints are on (the root's ``NodeData.monotonic``): nodes clip their values.
    monotonic: bool = False
    #: A node's split found by a hook in place of the split generators (:class:`SklearnSplitter`,
    #: scikit-learn's search replayed): called once per node the recursive builder would split,
    #: in its order (depth first, the left child first), it returns the split or None (a leaf).
    visit: Callable[[NodeData], "Candidate | None"] | None = None


#: The names ``max_features`` may take besides a count or a fraction (as in scikit-learn).
MAX_FEATURES = ("sqrt", "log2")


def resolve_max_features(max_features: Any, n_features: int) -> int | None:
    """How many features a node draws: ``None`` (all: no drawing), ``"sqrt"``, ``"log2"``, a
    count (at most ``n_features``) or a fraction in (0, 1] of them; at least one, as
    scikit-learn's forests round it.

    >>> resolve_max_features("sqrt", 30), resolve_max_features("log2", 64), resolve_max_features(0.5, 9)
    (5, 6, 4)
    >>> resolve_max_features(None, 4) is None, resolve_max_features(4, 4) is None
    (True, True)
    >>> resolve_max_features(7, 4)
    Traceback (most recent call last):
    ...
    puretree.errors.ParameterError: max_features=7 is more than the 4 features of the data
    """
    if max_features is None:
        return None
    if isinstance(max_features, str):
        if max_features not in MAX_FEATURES:
            raise ParameterError(f"max_features must be None, {' or '.join(map(repr, MAX_FEATURES))}, a count or a fraction in (0, 1], got {max_features!r}")
        count = int(np.sqrt(n_features)) if max_features == "sqrt" else int(np.log2(max(1, n_features)))
    elif isinstance(max_features, (int, np.integer)) and not isinstance(max_features, bool):
        if max_features < 1:
            raise ParameterError(f"max_features must be at least 1, got {max_features!r}")
        if max_features > n_features:
            raise ParameterError(f"max_features={max_features!r} is more than the {n_features} features of the data")
        count = int(max_features)
    elif isinstance(max_features, (float, np.floating)) and 0.0 < max_features <= 1.0:
        count = int(max_features * n_features)
    else:
        raise ParameterError(f"max_features must be None, {' or '.join(map(repr, MAX_FEATURES))}, a count or a fraction in (0, 1], got {max_features!r}")
    count = max(1, count)
    return None if count >= n_features else count


def node_features(n_features: int, max_features: int, key: tuple[int, ...], path: tuple[int, ...]) -> np.ndarray:
    """The features (sorted indices) a node may split on: ``max_features`` of ``n_features``
    drawn without replacement by a generator keyed by the seed, the member and the node (its
    ``path`` of branches from the root), ``SeedSequence(seed, spawn_key=(member, 1, *path))``.
    The key names the node, not the order nodes are grown in, so the recursive builder and
    the level-wise engine, serial and parallel runs, draw the same features.

    >>> node_features(10, 3, (0,), (0, 1)).tolist() == node_features(10, 3, (0,), (0, 1)).tolist()
    True
    >>> len(node_features(10, 3, (0, 5), ()))
    3
    """
    words = _seed_words(key, path)
    if words is None:  # a number past 32 bits: numpy's own coercion
        rng = np.random.default_rng(np.random.SeedSequence(key[0], spawn_key=(*key[1:], 1, *path)))
        return np.sort(rng.choice(n_features, size=max_features, replace=False))
    # The same generator built in fewer steps (half the cost; a forest draws once a node): the
    # seed and spawn key as the one array of words SeedSequence hashes, and no shuffle of the
    # chosen features, which are sorted anyway (the shuffle comes after the choice).
    drawn = np.random.Generator(np.random.PCG64(words)).choice(n_features, size=max_features, replace=False, shuffle=False)
    drawn.sort()
    return drawn


#: SeedSequence's pool size: a spawned sequence's entropy is padded with zeros to it.
_POOL_SIZE = int(np.random.SeedSequence(0).pool_size)


def _seed_words(key: tuple[int, ...], path: tuple[int, ...]) -> np.ndarray | None:
    """The words ``SeedSequence(key[0], spawn_key=(*key[1:], 1, *path))`` hashes into its pool
    (numpy's ``get_assembled_entropy``: the seed's 32-bit words, zeros up to the pool size,
    then one word per spawn key entry), so that ``SeedSequence(words)`` has the same pool and
    every generator drawn from it the same numbers; None when a number takes more than one
    word (the caller then builds the SeedSequence itself).

    >>> seq = np.random.SeedSequence(7, spawn_key=(3, 1, 0, 1))
    >>> np.random.SeedSequence(_seed_words((7, 3), (0, 1))).generate_state(4).tolist() == seq.generate_state(4).tolist()
    True
    """
    spawn = (*key[1:], 1, *path)
    if not (0 <= key[0] < 2**32 and 0 <= min(spawn) and max(spawn) < 2**32):
        return None
    return np.array((key[0], *(0,) * (_POOL_SIZE - 1), *spawn), dtype=np.uint32)


def only_features(node: NodeData, allowed: np.ndarray) -> NodeData:
    """``node`` seen through the features ``allowed`` (sorted indices) only: the split
    generators then do the work of those features, not of all of them."""
    keep = np.isin(node.numeric, allowed)
    return attrs.evolve(node, order=node.order[keep], values=node.values[keep], numeric=node.numeric[keep], categorical=tuple(j for j in node.categorical if j in set(allowed.tolist())))


#: scikit-learn's ``RAND_R_MAX`` (``sklearn/tree/_utils.pxd``) and ``DEFAULT_SEED`` (``sklearn/utils/_random.pxd``).
RAND_R_MAX = 2**31 - 1
_DEFAULT_SEED = 1
#: scikit-learn's EPSILON (the doubles' machine epsilon): its builder makes a node of impurity
#: at most this a leaf.
_SKLEARN_EPSILON = float(np.finfo(np.float64).eps)


def rand_r(state: int) -> tuple[int, int]:
    """scikit-learn's ``our_rand_r`` (``sklearn/utils/_random.pxd``): a 32-bit xorshift step of
    ``state`` (0 is read as 1); returns the new state and the draw, the state modulo ``2**31``.

    >>> rand_r(1)
    (270369, 270369)
    """
    s = state or _DEFAULT_SEED
    s ^= (s << 13) & 0xFFFFFFFF
    s ^= s >> 17
    s ^= (s << 5) & 0xFFFFFFFF
    return s, s % (RAND_R_MAX + 1)


def _swap(values: list[float], rows: list[int], i: int, j: int) -> None:
    values[i], values[j] = values[j], values[i]
    rows[i], rows[j] = rows[j], rows[i]


def _sift_down(values: list[float], rows: list[int], lo: int, start: int, end: int) -> None:
    root = start
    while True:
        child = root * 2 + 1
        top = root
        if child < end and values[lo + top] < values[lo + child]:
            top = child
        if child + 1 < end and values[lo + top] < values[lo + child + 1]:
            top = child + 1
        if top == root:
            return
        _swap(values, rows, lo + root, lo + top)
        root = top


def _heapsort(values: list[float], rows: list[int], lo: int, n: int) -> None:
    start = (n - 2) // 2
    while True:
        _sift_down(values, rows, lo, start, n)
        if start == 0:
            break
        start -= 1
    end = n - 1
    while end > 0:
        _swap(values, rows, lo, lo + end)
        _sift_down(values, rows, lo, 0, end)
        end -= 1


def _insertion_sort(values: list[float], rows: list[int], lo: int, n: int) -> None:
    for i in range(lo + 1, lo + n):
        v, r = values[i], rows[i]
        j = i
        while j > lo and values[j - 1] > v:
            values[j], rows[j] = values[j - 1], rows[j - 1]
            j -= 1
        values[j], rows[j] = v, r


def _median3(values: list[float], lo: int, n: int) -> float:
    a, b, c = values[lo], values[lo + n // 2], values[lo + n - 1]
    if a < b:
        return b if b < c else (c if a < c else a)
    if b < c:
        return a if a < c else c
    return b


def _introsort_3way(values: list[float], rows: list[int], lo: int, n: int, maxd: int) -> None:
    while n > 15:
        if maxd <= 0:
            _heapsort(values, rows, lo, n)
            return
        maxd -= 1
        pivot = _median3(values, lo, n)
        # the three-way partition, its swaps written out (this loop is the replay's hot spot)
        i = left = lo
        right = lo + n
        while i < right:
            v = values[i]
            if v < pivot:
                values[i], values[left] = values[left], v
                rows[i], rows[left] = rows[left], rows[i]
                i += 1
                left += 1
            elif v > pivot:
                right -= 1
                values[i], values[right] = values[right], v
                rows[i], rows[right] = rows[right], rows[i]
            else:
                i += 1
        _introsort_3way(values, rows, lo, left - lo, maxd)
        n -= right - lo
        lo = right
    _insertion_sort(values, rows, lo, n)


def sklearn_sort(values: list[float], rows: list[int]) -> None:
    """Sort ``values`` and ``rows`` together, in place, exactly as scikit-learn 1.9's
    ``simultaneous_sort(..., use_three_way_partition=True)`` (``sklearn/utils/_sorting.pyx``,
    the tree splitter's sort) does: an introsort, not stable, so equal values end in the order
    it leaves them, which scikit-learn's sums then follow.

    >>> values, rows = [3.0, 1.0, 2.0, 1.0], [0, 1, 2, 3]
    >>> sklearn_sort(values, rows); values, rows
    ([1.0, 1.0, 2.0, 3.0], [1, 3, 2, 0])
    """
    n = len(values)
    if n and len(set(values)) == n:  # distinct values: one sorted order, whichever sort finds it
        pairs = sorted(zip(values, rows))
        values[:], rows[:] = [v for v, _ in pairs], [r for _, r in pairs]
    elif n:
        _introsort_3way(values, rows, 0, n, 2 * int(np.log2(n)))


def _sequential(start: float, values: Sequence[float]) -> float:
    """``start`` plus ``values`` one after the other, a C loop's rounding."""
    for v in values:
        start += v
    return start


@attrs.define
class SklearnSplitter:
    """scikit-learn 1.9's best splitter for a squared-error regression tree
    (``node_split_best`` in ``sklearn/tree/_splitter.pyx``, ``DepthFirstTreeBuilder`` in
    ``_tree.pyx``), replayed node by node in its order and its float arithmetic, as the
    recursive builder's :attr:`Settings.visit` hook.

    **The feature order.** The splitter holds one ``features`` array for the whole tree and a
    32-bit state seeded once per tree by ``random_state.randint(0, RAND_R_MAX)`` (the
    ``seed`` here). At each node it searches (depth first, the left child first), it draws
    features without replacement by Fisher-Yates, ``f_j = low + rand_r() % (high - low)`` with
    ``low = n_drawn_constants`` and ``high = f_i - n_found_constants``: a feature known constant
    from the ancestors is skipped; one found constant here (its node values span at most
    :data:`FEATURE_THRESHOLD`) is set aside for the descendants; any other is searched. It stops
    after ``max_features`` searched features (all of them when None); the known constants keep
    their order for the siblings and descendants.

    **The search.** Each drawn feature sorts the node's rows (:func:`sklearn_sort`, in the
    rows' current order: the order ties are left in depends on it). Cuts lie where the next
    value exceeds the previous by more than :data:`FEATURE_THRESHOLD`, each side holding
    ``min_samples_leaf`` rows, at the midpoint ``a / 2 + b / 2``; each is scored by the "proxy
    improvement" ``S_l**2 / w_l + S_r**2 / w_r``, ``S_l`` carried from cut to cut (the rows
    between added one by one, or, when more rows lie between the cuts than beyond the new one,
    the node's sum less the rows beyond it), ``S_r = S - S_l``; the first strictly best wins.
    The rows are then partitioned by swaps (which orders each child's rows), and the
    children's impurities computed, all in scikit-learn's order of summation.

    **Leaves** before any search, as scikit-learn's builder decides: depth, ``min_samples_split``,
    ``2 * min_samples_leaf`` rows, impurity at most ``EPSILON``; they draw nothing.

    >>> from puretree.data import from_numpy
    >>> ds = from_numpy(np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]), [0.0, 0.0, 1.0], task="regression")
    >>> splitter = SklearnSplitter.seeded(2, seed=7)
    >>> cand = splitter(attrs.evolve(root_data(ds), path=()))
    >>> cand.feature, float(np.float32(cand.threshold))   # the two features tie: the first drawn wins
    (1, 2.5)
    """

    features: list[int]
    constant_features: list[int]
    state: int
    max_features: int
    max_depth: int | None = None
    min_samples_split: float = 2
    min_samples_leaf: float = 1
    #: Per node path: the constant features its children inherit, its rows' order on entry
    #: (node-local positions) and its impurity, as the parent's split left them.
    known: dict[tuple[int, ...], int] = attrs.Factory(dict)
    orders: dict[tuple[int, ...], list[int]] = attrs.Factory(dict)
    impurities: dict[tuple[int, ...], float] = attrs.Factory(dict)
    #: Per node path: the node's value as scikit-learn's tree stores it (its mean target, summed
    #: in its rows' order), for every node the splitter saw or made.
    values: dict[tuple[int, ...], float] = attrs.Factory(dict)

    @classmethod
    def seeded(cls, n_features: int, *, seed: int, max_features: int | None = None, max_depth: int | None = None, min_samples_split: float = 2, min_samples_leaf: float = 1) -> "SklearnSplitter":
        """The splitter of one tree whose state is ``seed`` (scikit-learn's ``rand_r_state``)."""
        return cls(list(range(n_features)), [0] * n_features, int(seed), n_features if max_features is None else int(max_features), max_depth, min_samples_split, min_samples_leaf)

    def _rand_int(self, low: int, high: int) -> int:
        self.state, r = rand_r(self.state)
        return low + r % (high - low)

    def __call__(self, node: NodeData) -> Candidate | None:
        path = node.path or ()
        n = node.n_rows
        w_array, wy_array = node.stats[:, 0], node.stats[:, 1]
        w, wy = w_array.tolist(), wy_array.tolist()
        y = np.asarray(node.y, dtype=np.float64).tolist()
        samples = self.orders.pop(path, None) or list(range(n))
        # criterion.init: the node's sums in its rows' order
        W = _sequential(0.0, [w[i] for i in samples])
        S = _sequential(0.0, [wy[i] for i in samples])
        squares = _sequential(0.0, [wy[i] * y[i] for i in samples])
        impurity = self.impurities.pop(path, None)
        if not path:
            self.values[path] = S / W
        if impurity is None:
            impurity = squares / W - (S / W) ** 2
        msl = self.min_samples_leaf
        if (self.max_depth is not None and node.depth >= self.max_depth) or n < self.min_samples_split or n < 2 * msl or impurity <= _SKLEARN_EPSILON:
            return None
        n_known = self.known.get(path[:-1], 0) if path else 0
        features = self.features
        f_i = len(features)
        n_visited = n_found = n_drawn = 0
        n_total = n_known
        best = -np.inf
        best_split: tuple[int, int, float] | None = None
        columns: dict[int, list[float]] = {}
        while f_i > n_total and (n_visited < self.max_features or n_visited <= n_found + n_drawn):
            n_visited += 1
            f_j = self._rand_int(n_drawn, f_i - n_found)
            if f_j < n_known:
                features[n_drawn], features[f_j] = features[f_j], features[n_drawn]
                n_drawn += 1
                continue
            f_j += n_found
            f = features[f_j]
            column = columns.setdefault(f, node.X[:, f].tolist())
            values = [column[i] for i in samples]
            sklearn_sort(values, samples)
            if values[-1] <= values[0] + FEATURE_THRESHOLD:
                features[f_j], features[n_total] = features[n_total], features[f_j]
                n_found += 1
                n_total += 1
                continue
            f_i -= 1
            features[f_i], features[f_j] = features[f_j], features[f_i]
            sorted_values = np.asarray(values)
            cuts = np.flatnonzero(sorted_values[1:] > sorted_values[:-1] + FEATURE_THRESHOLD) + 1
            cuts = cuts[(cuts >= msl) & (n - cuts >= msl)]
            if cuts.shape[0] == 0:
                continue
            order = np.asarray(samples)
            wy_s, w_s = wy_array[order], w_array[order]
            # Sums carried as scikit-learn's criterion carries them (RegressionCriterion.update):
            # np.add.accumulate adds one value after the other, as its loop does.
            prefix_wy, prefix_w = np.add.accumulate(wy_s), np.add.accumulate(w_s)
            pos, s_left, w_left, fresh = 0, 0.0, 0.0, True  # fresh: the sums are the prefix sums from 0
            for p in cuts.tolist():
                if p - pos <= n - p:
                    if fresh:
                        s_left, w_left = float(prefix_wy[p - 1]), float(prefix_w[p - 1])
                    else:
                        s_left = float(np.add.accumulate(np.concatenate(([s_left], wy_s[pos:p])))[-1])
                        w_left = float(np.add.accumulate(np.concatenate(([w_left], w_s[pos:p])))[-1])
                else:  # reverse_reset, then the rows beyond the cut taken out from the end
                    s_left = float(np.add.accumulate(np.concatenate(([S], -wy_s[p:][::-1])))[-1])
                    w_left = float(np.add.accumulate(np.concatenate(([W], -w_s[p:][::-1])))[-1])
                    fresh = False
                pos = p
                s_right, w_right = S - s_left, W - w_left
                if w_left <= 0 or w_right <= 0:  # scikit-learn's 0 / 0: NaN, never best
                    continue
                proxy = s_left * s_left / w_left + s_right * s_right / w_right
                if proxy > best:
                    best, best_split = proxy, (f, p, values[p - 1] / 2.0 + values[p] / 2.0)
        features[:n_known] = self.constant_features[:n_known]
        self.constant_features[n_known:n_total] = features[n_known:n_total]
        self.known[path] = n_total
        if best_split is None:
            return None
        f, p, threshold = best_split
        column = columns[f]
        start, end = 0, n  # partition_samples_final: swaps, in the rows' current order
        while start < end:
            if column[samples[start]] <= threshold:
                start += 1
            else:
                end -= 1
                samples[start], samples[end] = samples[end], samples[start]
        # criterion.reset(); update(p); children_impurity()
        if p <= n - p:
            s_left = _sequential(0.0, [wy[i] for i in samples[:p]])
            w_left = _sequential(0.0, [w[i] for i in samples[:p]])
        else:
            s_left = _sequential(S, [-wy[i] for i in samples[p:][::-1]])
            w_left = _sequential(W, [-w[i] for i in samples[p:][::-1]])
        w_right, s_right = W - w_left, S - s_left
        sq_left = _sequential(0.0, [w[i] * y[i] * y[i] for i in samples[:p]])
        branch = (np.asarray(column) > threshold).astype(np.int64)
        local = np.where(branch == 0, np.cumsum(branch == 0) - 1, np.cumsum(branch == 1) - 1).tolist()
        for b, part in ((0, samples[:p]), (1, samples[p:])):
            self.orders[path + (b,)] = [local[i] for i in part]
            self.values[path + (b,)] = _sequential(0.0, [wy[i] for i in part]) / _sequential(0.0, [w[i] for i in part])
        self.impurities[path + (0,)] = sq_left / w_left - (s_left / w_left) ** 2
        self.impurities[path + (1,)] = (squares - sq_left) / w_right - (s_right / w_right) ** 2
        score = max(best / W - (S / W) ** 2, 0.0)  # the variance decrease
        # scikit-learn compares float32(x) <= threshold: the threshold a double is compared with instead
        return Candidate(score, f, "threshold", branch, branch_stats(node.stats, branch, 2), threshold=float32_threshold(threshold))


def score_name(score: Any) -> str:
    name = getattr(score, "__name__", None)
    return name if isinstance(name, str) else repr(score)


@attrs.frozen
class CheckedScore:
    """A user's score as the splitters call it at one node, its failures made clear.

    A score that raises, returns ``None``, something that is not numbers, the wrong shape,
    or NaN for a split that holds weight becomes a :class:`~puretree.errors.ParameterError`
    naming the score and the node (its depth and number of rows). A NaN score would
    otherwise lose every comparison and silently turn the node into a leaf. The checks are
    one conversion, one shape test and one NaN test per call; built-in scores are not wrapped.
    """

    score: Score
    depth: int
    rows: int
    #: What the statistics are; a ``regression`` flag (its former spelling) is read too.
    task: Task = attrs.field(converter=as_task)

    @property
    def regression(self) -> bool:
        return self.task.is_regression

    def _fail(self, what: str) -> ParameterError:
        return ParameterError(f"the score {score_name(self.score)} {what} (at the node of depth {self.depth} with {self.rows} rows)")

    def __call__(self, parent: Any, children: Any, features: Any = None) -> np.ndarray:
        try:
            out = self.score(parent, children, features)
        except PuretreeError:
            raise
        except Exception as exc:
            raise self._fail(f"raised {type(exc).__name__}: {exc}") from exc
        if out is None:
            raise self._fail("returned None, not scores")
        try:
            arr = np.asarray(out, dtype=np.float64)
        except (TypeError, ValueError):
            raise self._fail(f"returned {type(out).__name__} {str(out)[:40]!r}, not numbers") from None
        expected = np.broadcast_shapes(np.shape(parent)[:-1], np.shape(children)[:-2])
        if arr.shape != expected:
            try:
                fits = np.broadcast_shapes(arr.shape, expected) == expected
            except ValueError:
                fits = False
            if not fits:
                raise self._fail(f"returned shape {arr.shape}; expected one score per candidate split, shape {expected}")
        if np.isnan(arr).any():
            self._check_nan(arr, np.asarray(children, dtype=np.float64), features, expected)
        return arr

    def _check_nan(self, arr: np.ndarray, children: np.ndarray, features: Any, expected: tuple[int, ...]) -> None:
        """NaN is an error where the split holds weight; elsewhere (0/0 on no rows) it is dropped."""
        weight = self.task.weight(children).sum(axis=-1)
        bad = np.isnan(np.broadcast_to(arr, expected)) & (weight > 0)
        if bad.any():
            at = tuple(int(i) for i in np.argwhere(bad)[0])
            names = np.broadcast_to(np.asarray(features), expected) if features is not None else None
            named = f" for feature {str(names[at])!r}" if names is not None and names.shape == expected else ""
            raise self._fail(f"returned NaN{named}; a score must be a number, or -inf for 'not a candidate'")


def best_candidate(node: NodeData, cfg: Settings) -> Candidate | None:
    """The best of the split generators' candidates at ``node`` (ties: the lowest feature),
    the score checked at the node unless it is a built-in one."""
    score = cfg.score if cfg.trusted else CheckedScore(cfg.score, node.depth, node.n_rows, node.task)
    whole = node  # the random splitter draws its own features, as scikit-learn's does
    if cfg.max_features is not None:
        node = only_features(node, node_features(node.schema.n_features, cfg.max_features, cfg.feature_key, node.path or ()))
    found = []
    for gen in cfg.splitters:
        if gen is random_threshold_splits:
            c = random_threshold_splits(whole, score=score, min_samples_leaf=cfg.min_samples_leaf, min_weight_leaf=cfg.min_weight_leaf, max_features=cfg.max_features, key=cfg.feature_key, learn=cfg.missing == "learn")
        elif cfg.min_weight_leaf > 0 and any(gen is b for b in _WEIGHING_SPLITTERS):
            c = gen(node, score=score, min_samples_leaf=cfg.min_samples_leaf, min_weight_leaf=cfg.min_weight_leaf)
        elif cfg.min_weight_leaf > 0 and getattr(gen, "weighs_leaves", False):  # C4.5's: its leaf bound is a weight
            c = _propose(gen, node, score, max(cfg.min_samples_leaf, cfg.min_weight_leaf))
        else:
            c = _propose(gen, node, score, cfg.min_samples_leaf)
        if c is not None:
            found.append(c)
    if not found:
        return None
    best = max(c.score for c in found)
    tol = TIE_TOLERANCE * max(1.0, abs(best))
    return min((c for c in found if c.score >= best - tol), key=lambda c: c.feature)


def _propose(gen: SplitGenerator, node: NodeData, score: Score, min_samples_leaf: float) -> Candidate | None:
    """A split generator's best candidate; a user's generator that fails is named with the node."""
    if any(gen is b for b in _BUILTIN_SPLITTERS):
        return gen(node, score=score, min_samples_leaf=min_samples_leaf)
    try:
        found = gen(node, score=score, min_samples_leaf=min_samples_leaf)
    except PuretreeError:
        raise
    except Exception as exc:
        raise ParameterError(f"the split generator {score_name(gen)} raised {type(exc).__name__}: {exc} (at the node of depth {node.depth} with {node.n_rows} rows)") from exc
    if found is not None and not isinstance(found, Candidate):
        raise ParameterError(f"the split generator {score_name(gen)} returned {type(found).__name__}, not a Candidate or None (at the node of depth {node.depth} with {node.n_rows} rows)")
    return found


def node_statistics(ds: Dataset, *, regression: bool | None = None) -> np.ndarray:
    """Per-row additive statistics: weighted one-hot class counts, or (w, w*y, w*y**2)
    (:meth:`~puretree.tasks.Task.row_statistics` of the data's task, or of the one the
    ``regression`` flag names)."""
    if ds.y is None:
        raise DataError("the data has no target column")
    w = np.ones(ds.n_rows) if ds.sample_weight is None else ds.sample_weight
    task = as_task(ds.schema if regression is None else regression)
    return task.row_statistics(ds.y, w, len(ds.schema.classes))


def refuse_missing(ds: Dataset) -> None:
    """``missing="error"``: the first missing cell, by its file line (or row) and column."""
    absent = np.argwhere(np.isnan(ds.X))
    if len(absent):
        r, c = absent[0]
        raise DataError(f"{ds.row_name(int(r))}, column {ds.schema.features[c].name!r}: missing value (missing='error' refuses them; use 'majority' or 'distribute')")


def root_data(ds: Dataset, *, missing: str = "majority") -> NodeData:
    if missing == "error":
        refuse_missing(ds)
    numeric = np.array([j for j, f in enumerate(ds.schema.features) if f.is_numeric], dtype=np.int64)
    columns = ds.X[:, numeric].T
    order = np.argsort(columns, axis=1, kind="stable")  # NaN (missing) sorts last
    return NodeData(
        X=ds.X,
        y=np.asarray(ds.y),
        stats=node_statistics(ds),
        order=order,
        values=np.take_along_axis(columns, order, axis=1),
        numeric=numeric,
        categorical=tuple(j for j, f in enumerate(ds.schema.features) if not f.is_numeric),
        schema=ds.schema,
        depth=0,
        root_rows=ds.n_rows,
    )
