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

**C4.5** (``c45``), J48's numbers: gains, split information and J48's scan of a feature's cuts
(:func:`known_gain`, :func:`split_info`, :func:`best_cut`), a categorical feature's option
(:func:`c45_multiway`), and the choice among a node's options (:func:`choose_option`: the gain
ratio among the options of at least average gain). The search of a node's sorted rows
(:mod:`puretree.growth.c45_cuts`: for :mod:`puretree.c45`, and for the histogram source with a
node's non-empty bins as rows) feeds them.

>>> first_tied(np.array([[0.5, 0.7, 0.7 - 1e-14, 0.7], [1.0, 0.0, 1.0, 0.0]])).tolist()
[1, 0]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import attrs
import numpy as np

from ..criteria import GainRatio, ImpurityDecrease
from ..errors import ParameterError
from ..impurity import entropy
from .. import splits as _splits  # its TIE_TOLERANCE read at each call: one constant, also the C's
from ..splits import CheckedScore, heavy_enough, subset_candidates, tie_first, variance_decrease

__all__ = [
    "SCORE_CHUNK",
    "score_of",
    "weight_of",
    "tolerance",
    "first_tied",
    "first_tied_in_groups",
    "known_share",
    "heavy_enough",
    "binary_children",
    "binary_scores",
    "category_sum",
    "multiway_scores",
    "best_subset",
    "best_subsets",
    "among_kinds",
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
    "best_cut",
    "c45_multiway",
    "many_valued",
    "choose_option",
    "c45_criterion",
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


def tolerance(best: np.ndarray) -> np.ndarray:
    """How far below each best score (finite, else 0) a score still ties with it."""
    return _splits.TIE_TOLERANCE * np.maximum(1.0, np.abs(np.where(np.isfinite(best), best, 0.0)))


def first_tied(scores: np.ndarray) -> np.ndarray:
    """Row-wise :func:`puretree.splits.tie_first`: the first column within tolerance of the row's best."""
    best = scores.max(axis=-1)
    with np.errstate(invalid="ignore"):
        tol = _splits.TIE_TOLERANCE * np.maximum(1.0, np.abs(best))
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
    ok = np.flatnonzero(s >= (g_best - tolerance(g_best))[g_of])
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


def category_sum(per: np.ndarray) -> np.ndarray:
    """The sum over categories (axis -2) of per-category statistics, added in category order
    (the ``known`` that :func:`multiway_scores` and :func:`best_subset` take), as every source
    adds them.

    >>> category_sum(np.array([[[1.0, 0.0], [2.0, 3.0]]])).tolist()
    [[3.0, 3.0]]
    """
    if per.shape[-2] == 0:
        return np.zeros(per.shape[:-2] + per.shape[-1:])
    out = per[..., 0, :].copy()
    for c in range(1, per.shape[-2]):
        out += per[..., c, :]
    return out


def multiway_scores(score: Any, per: np.ndarray, rows: np.ndarray, known: np.ndarray, total: np.ndarray, name: Any, *, among: np.ndarray, incomplete: np.ndarray, min_samples_leaf: float, regression: bool, min_weight_leaf: float = 0.0) -> np.ndarray:
    """Each node's score of one branch per category of a feature (-inf: no split), from the
    nodes' per-category statistics ``per`` (N, m, k) and rows ``rows`` (N, m), their sums
    ``known`` (N, k, added in category order) and the nodes' weights ``total``: the nodes
    ``among`` with two categories present, each present one with ``min_samples_leaf`` rows
    (and ``min_weight_leaf`` weight), scored on the known rows (every category a child, empty ones too) and scaled by their
    share of the weight where ``incomplete``; not finite: no split."""
    present = rows > 0
    light = rows < min_samples_leaf
    if min_weight_leaf > 0:  # every present category a child of at least that weight
        light = light | (weight_of(per, regression) < min_weight_leaf)
    e = np.flatnonzero(among & (present.sum(axis=1) >= 2) & ~(light & present).any(axis=1))
    out = np.full(len(rows), -np.inf)
    if len(e):
        s = known_share(score_of(score, known[e], per[e], name), weight_of(known[e], regression), total[e], incomplete[e])
        out[e] = np.where(np.isfinite(s), s, -np.inf)
    return out


def best_subset(score: Any, per: np.ndarray, rows: np.ndarray, known: np.ndarray, total: float, name: Any, *, task: Any, incomplete: bool, min_samples_leaf: float, min_weight_leaf: float = 0.0) -> tuple[float, tuple[int, ...], np.ndarray] | None:
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
    if min_weight_leaf > 0:
        s = np.where(heavy_enough(weight_of(children[:, 0], task.is_regression), weight_of(known, task.is_regression), min_weight_leaf), s, -np.inf)
    s = np.where(np.isnan(s), -np.inf, s)
    if np.isneginf(s).all():
        return None
    b = tie_first(s)
    return float(s[b]), tuple(int(c) for c in present[masks[b]]), children[b]


#: Fewer classes than this are summed one after another by numpy (its pairwise sum starts at
#: 8 terms), whatever the shape of the batch: a score of many nodes' candidates at once is then,
#: bit for bit, the score of each node's.
_SEQUENTIAL_CLASSES = 8


def best_subsets(score: Any, per: np.ndarray, rows: np.ndarray, known: np.ndarray, total: np.ndarray, name: Any, *, task: Any, incomplete: np.ndarray, min_samples_leaf: float, nodes: Any, min_weight_leaf: float = 0.0) -> dict[int, tuple[float, tuple[int, ...], np.ndarray]]:
    """:func:`best_subset` of each of the ``nodes`` (``per`` (N, m, k), ``rows`` (N, m),
    ``known`` (N, k), ``total`` and ``incomplete`` (N,)): the nodes that find a split, with
    what :func:`best_subset` finds, number for number.

    Nodes whose present categories are the same are scored in one batch when that cannot
    change a bit: class counts that are whole numbers (every sum exact, in any order), fewer
    than 8 classes (sums over the classes run in order), and candidates the same for every
    node (two classes: prefixes by class-1 proportion; more: every partition). Any other node
    (regression, weights with fractions, many classes) takes :func:`best_subset` alone.

    >>> from puretree.criteria import ImpurityDecrease
    >>> from puretree.impurity import gini
    >>> from puretree.tasks import CLASSIFICATION
    >>> per = np.array([[[3.0, 0.0], [0.0, 2.0], [1.0, 1.0]], [[2.0, 2.0], [0.0, 0.0], [0.0, 4.0]]])
    >>> rows = per.sum(axis=-1).astype(np.int64)
    >>> found = best_subsets(ImpurityDecrease(gini), per, rows, per.sum(axis=1), per.sum(axis=(1, 2)), np.asarray("c"), task=CLASSIFICATION, incomplete=np.zeros(2, dtype=bool), min_samples_leaf=1, nodes=[0, 1])
    >>> {i: (round(s, 6), left) for i, (s, left, _) in found.items()}
    {0: (0.27551, (0,)), 1: (0.125, (0,))}
    """
    out: dict[int, tuple[float, tuple[int, ...], np.ndarray]] = {}
    nodes = np.asarray(nodes, dtype=np.int64)  # node indices (a sequence or an array)
    k = per.shape[-1]
    batched = not task.is_regression and 2 <= k < _SEQUENTIAL_CLASSES and len(nodes) > 1
    if batched:
        counts = per[nodes]
        batched = bool(np.all(counts == np.floor(counts)) and counts.sum() < 2.0**52)
    if not batched:
        for i in nodes.tolist():
            hit = best_subset(score, per[i], rows[i], known[i], float(total[i]), name, task=task, incomplete=bool(incomplete[i]), min_samples_leaf=min_samples_leaf, min_weight_leaf=min_weight_leaf)
            if hit is not None:
                out[i] = hit
        return out
    patterns, group = np.unique(rows[nodes] > 0, axis=0, return_inverse=True)
    group = group.reshape(-1)
    for g, pattern in enumerate(patterns):
        present = np.flatnonzero(pattern)
        mine = nodes[group == g]
        m = len(present)
        if m < 2:
            continue
        if not (k == 2 or m <= _splits.MAX_EXACT_SUBSET_CATEGORIES):  # candidates that differ by node
            for i in mine.tolist():
                hit = best_subset(score, per[i], rows[i], known[i], float(total[i]), name, task=task, incomplete=bool(incomplete[i]), min_samples_leaf=min_samples_leaf, min_weight_leaf=min_weight_leaf)
                if hit is not None:
                    out[i] = hit
            continue
        n_candidates = m - 1 if k == 2 else 2 ** (m - 1) - 1
        step = max(1, SCORE_CHUNK // n_candidates)
        for lo in range(0, len(mine), step):
            _subset_batch(score, per, rows, known, total, name, task, incomplete, min_samples_leaf, mine[lo : lo + step], present, out, min_weight_leaf)
    return {i: out[i] for i in sorted(out)}


def _subset_batch(score: Any, per: np.ndarray, rows: np.ndarray, known: np.ndarray, total: np.ndarray, name: Any, task: Any, incomplete: np.ndarray, min_samples_leaf: float, mine: np.ndarray, present: np.ndarray, out: dict[int, tuple[float, tuple[int, ...], np.ndarray]], min_weight_leaf: float = 0.0) -> None:
    """:func:`best_subsets` of the nodes ``mine``, whose present categories are ``present``."""
    stats = per[mine][:, present]  # (G, m, k)
    G, m, k = stats.shape
    if k == 2:  # subset_candidates' prefixes, ranked per node by the same key and ties
        key = task.category_key(stats.reshape(G * m, k), None).reshape(G, m)
        ranked = np.lexsort((np.broadcast_to(present, (G, m)), key), axis=-1)
        position = np.empty_like(ranked)
        np.put_along_axis(position, ranked, np.arange(m), axis=-1)
        masks = position[:, None, :] <= np.arange(m - 1)[None, :, None]  # (G, m - 1, m)
    else:
        masks = np.broadcast_to(_splits.subset_masks(m), (G, 2 ** (m - 1) - 1, m))
    parent = known[mine]
    children = binary_children(parent[:, None, :], np.matmul(masks.astype(np.float64), stats), task.is_regression)
    s = score_of(score, np.broadcast_to(parent[:, None, :], children.shape[:-2] + (k,)), children, name)
    partial = incomplete[mine]
    if partial.any():
        share = np.zeros(G)
        weight = weight_of(parent, task.is_regression)
        np.divide(weight, total[mine], out=share, where=total[mine] > 0)
        s = np.where(partial[:, None], s * share[:, None], s)
    if min_samples_leaf > 1:
        n_left = np.matmul(masks.astype(np.int64), rows[mine][:, present, None])[..., 0]
        n_right = rows[mine].sum(axis=1)[:, None] - n_left
        s = np.where((n_left >= min_samples_leaf) & (n_right >= min_samples_leaf), s, -np.inf)
    if min_weight_leaf > 0:
        s = np.where(heavy_enough(weight_of(children[..., 0, :], False), weight_of(parent, False)[:, None], min_weight_leaf), s, -np.inf)
    s = np.where(np.isnan(s), -np.inf, s)
    splits = ~np.isneginf(s).all(axis=1)
    best = first_tied(s)
    for g in np.flatnonzero(splits).tolist():
        b = int(best[g])
        out[int(mine[g])] = (float(s[g, b]), tuple(int(c) for c in present[masks[g, b]]), children[g, b])


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
        tied = scores >= (best - _splits.TIE_TOLERANCE * np.maximum(1.0, np.abs(best)))[:, None]
    choice = np.argmin(np.where(tied, features, np.iinfo(np.int64).max), axis=1)
    if min_gain is not None:
        has &= scores[np.arange(len(scores)), choice] > min_gain
    return has, choice


# -- C4.5 -------------------------------------------------------------------------------

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


def c45_multiway(feature: int, per: np.ndarray, total: float, min_leaf: float, many_values: bool, impurity: Any) -> Option | None:
    """J48's ``handleEnumeratedAttribute``: one branch per category, from the class counts
    ``per`` (category, class) of the rows with a known value; None unless two categories hold
    ``min_leaf``. A feature of ``many_values`` does not count towards the average gain."""
    if np.count_nonzero(at_least(per.sum(axis=1), min_leaf)) < 2:
        return None
    gain = float(known_gain(per.sum(axis=0), per, total, impurity))
    info = float(split_info(per.sum(axis=1), total))
    return Option(feature, gain, gain / info if info > 0 else 0.0, not many_values, "multiway", branches=per)


def many_valued(categorical: Sequence[int], n_categories: Callable[[int], int], n_numeric: int, root_rows: float) -> set[int]:
    """The categorical features whose gain does not count towards J48's average: those with
    at least 0.3 categories per training row, unless every feature of the node is one."""
    many = {j for j in categorical if n_categories(j) >= 0.3 * root_rows}
    return set() if n_numeric == 0 and len(many) == len(categorical) else many


def choose_option(options: list[Any], by_ratio: bool) -> tuple[Any, float] | None:
    """C4.5's choice among a node's attribute options (:class:`Option` or :class:`Scored`) and
    its score, or None: by gain ratio among the options of at least average gain
    (``by_ratio``), else by gain; J48's order and tolerances."""
    if not options:
        return None
    options = sorted(options, key=lambda o: o.feature)  # J48 looks at the attributes in order
    if not by_ratio:
        best_gain = max(o.gain for o in options)
        chosen = next(o for o in options if not greater(best_gain, o.gain))
        return None if chosen.gain < J48_EPSILON else (chosen, chosen.gain)
    counted = [o.gain for o in options if o.counts_in_average]
    average = sum(counted) / len(counted) if counted else 0.0
    best_ratio, chosen_option = 0.0, None
    for option in options:
        if option.gain >= average - AVERAGE_GAIN_SLACK and greater(option.ratio, best_ratio):
            best_ratio, chosen_option = option.ratio, option
    if chosen_option is None or abs(best_ratio) < J48_EPSILON:
        return None
    return chosen_option, best_ratio


def c45_criterion(score: Any) -> tuple[bool, Any]:
    """Whether C4.5 maximises the gain ratio (else the gain), and the gain's impurity; another
    score is refused."""
    if isinstance(score, CheckedScore):  # a user's impurity inside a built-in combinator
        score = score.score
    if isinstance(score, GainRatio):
        return True, score.impurity
    if isinstance(score, ImpurityDecrease):
        return False, score.impurity
    raise ParameterError(f"c45 chooses splits by gain_ratio(impurity) or information_gain(impurity) (impurity_decrease); got {score!r}: grow() with your own splitters takes other scores, in memory")
