"""The builder: one pure recursive function, parameterised by functions.

``grow`` takes its criterion (a *score*, see :mod:`puretree.criteria`), its *split
generators* and its stopping rules as keyword arguments. ID3, C4.5 and CART are presets
of it made with :func:`functools.partial`.

**Split generators** look at the rows reaching a node and return their best
:class:`Candidate` (or ``None``):

- :func:`threshold_splits`: numeric features, two branches ``x <= t`` / ``x > t``, with
  ``t`` the midpoint between consecutive distinct values. Every threshold of every numeric
  feature is scored in one vectorised call, from prefix sums of the rows' statistics.
- :func:`multiway_splits`: categorical features, one branch per category (ID3, C4.5). A
  feature used this way is not offered again below (every branch holds one value of it).
- :func:`subset_splits`: categorical features, two branches by a subset of categories
  (CART). With two classes (or regression) the optimal subset is found exactly by ordering
  categories by class-1 proportion (by mean), Breiman's theorem; with more classes all
  ``2**(m-1) - 1`` subsets are enumerated while a node has at most 12 categories, and beyond
  that categories are ordered by the proportion of the node's majority class (a heuristic).

**Stopping**, as the seeds give it: a node becomes a leaf when all its rows have one class
(or one target value); when no feature is left to split on; when no split separates its rows
(identical rows: the leaf gets their majority); when the best score is not above
``min_gain`` (if given); when ``max_depth`` is reached; when its weight is below
``min_samples_split``. A branch no row reaches is a leaf with zero statistics, which predicts
its parent's distribution. ``min_samples_split`` and ``min_samples_leaf`` count rows (as in
scikit-learn), whatever their weights; the scores see the weights.

**Missing values** (NaN in the encoded matrix) are handled as ``missing`` says, in training
and at prediction alike (:data:`~puretree.nodes.MISSING_STRATEGIES`). Every split generator
scores a feature on the rows where it is known and multiplies the score by the known
fraction of the node's weight (C4.5's rule for gain). The chosen split then routes the rows
whose value is missing: ``"distribute"`` (C4.5, the default of :func:`c45`) sends them down
every branch with their weight multiplied by the branch's share of the known weight;
``"majority"`` (the default of :func:`id3`, :func:`cart` and :func:`grow`) sends them down
the heaviest branch; ``"error"`` refuses data with a missing value (:class:`DataError`).
So each child's statistics (its ``counts`` field) are the weight that reached it, and a
child's share of its parent's weight is exactly the fraction prediction uses.

**Weights**: ``sample_weight`` (one non-negative weight per row) and ``class_weight`` (a
mapping from class label to weight, or ``"balanced"``: ``n_rows / (n_classes * rows of the
class)``, as scikit-learn computes it) multiply into every statistic; a row of weight 0 is
the same as no row.

**Regression**: with ``task="regression"`` (or a regression :class:`Dataset`) the statistics
are ``(weight, sum, sum of squares)``, the presets score splits by the decrease in
:func:`~puretree.impurity.variance` and leaves predict the weighted mean. What the statistics
mean (their weight, what a node predicts) is the data's :class:`~puretree.tasks.Task`, chosen
once; the options' constraints are declared once, in :data:`GROW_CONSTRAINTS`. ``cart_regressor``
is ``cart`` with ``task="regression"``.

**Ties** are broken deterministically: the highest score wins, and scores within 1e-12
(relative) of each other tie; among tied splits the lowest feature index wins, then the
lowest threshold. Among tied classes (majority) the first class in sorted order wins.

>>> from puretree.datasets import load_playtennis
>>> tree = id3(load_playtennis())
>>> print(tree.to_text())
outlook = overcast: yes (4)
outlook = rain
|   wind = strong: no (2)
|   wind = weak: yes (3)
outlook = sunny
|   humidity = high: no (3)
|   humidity = normal: yes (2)
"""

from __future__ import annotations

import difflib
import itertools
from collections.abc import Callable, Generator, Mapping, Sequence
from functools import partial
from typing import Any

import attrs
import numpy as np

from .criteria import SCORES, ImpurityDecrease, Score, resolve_score, score_task
from .data import DATA_OPTIONS, Dataset, as_dataset
from .errors import DataError, ParameterError, PuretreeError
from .fold import rewrite, run
from .impurity import entropy, gini, misclassification, variance
from .nodes import MISSING_STRATEGIES, CategoricalSplit, Leaf, Node, NumericSplit, Schema, SubsetSplit, Tree
from .params import Interval, IsCallable, Options, check, check_all
from .tasks import CLASSIFICATION, TASKS, Task, as_task

__all__ = [
    "root_data",
    "grow",
    "id3",
    "c45",
    "cart",
    "cart_regressor",
    "ByTask",
    "by_task",
    "class_weights",
    "NodeData",
    "Candidate",
    "SplitGenerator",
    "threshold_splits",
    "multiway_splits",
    "subset_splits",
    "subset_candidates",
    "subset_masks",
    "variance_decrease",
    "tie_first",
    "best_candidate",
    "known_fraction",
    "GROW_CONSTRAINTS",
    "check_options",
    "midpoint",
    "attribute_scores",
    "node_statistics",
    "data_thresholds",
    "THRESHOLDS",
    "refuse_missing",
    "CheckedScore",
]

#: Scores closer than this (relative) to the best one count as tied.
TIE_TOLERANCE = 1e-12
#: Largest number of floats a vectorised threshold search holds at once (memory bound).
_CHUNK = 4_000_000
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

    @property
    def n_rows(self) -> int:
        return int(self.X.shape[0])

    @property
    def task(self) -> Task:
        """What the statistics are (:mod:`puretree.tasks`): the schema's task."""
        return TASKS[self.schema.task]

    def restrict(self, rows: np.ndarray, *, drop: int | None = None, scale: np.ndarray | None = None) -> "NodeData":
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
        )


@attrs.frozen(eq=False)
class Candidate:
    """A proposed split: its score, feature, test, and the branch of every row."""

    score: float
    feature: int
    kind: str  # "numeric" | "multiway" | "subset"
    branch: np.ndarray
    children: np.ndarray
    threshold: float | None = None
    left_categories: tuple[int, ...] = ()

    @property
    def n_branches(self) -> int:
        return int(self.children.shape[0])


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


def threshold_splits(node: NodeData, *, score: Score, min_samples_leaf: float) -> Candidate | None:
    """Best binary split ``x <= t`` over all numeric features, all thresholds scored at once."""
    q, n = node.order.shape
    if q == 0 or n < 2:
        return None
    k = node.stats.shape[1]
    parent = node.stats.sum(axis=0)
    names = np.asarray(node.schema.feature_names)[node.numeric]
    task = node.task
    chunk = max(1, _CHUNK // max(1, n * k * 2))
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
        if min_samples_leaf > 1:
            n_left = np.arange(1, n)
            valid &= (n_left >= min_samples_leaf) & (n_known - n_left >= min_samples_leaf)
        s = np.where(valid & ~np.isnan(s), s, -np.inf)
        row_best = s.max(axis=1)
        tol = TIE_TOLERANCE * np.maximum(1.0, np.abs(np.where(np.isfinite(row_best), row_best, 0.0)))
        positions = np.argmax(s >= (row_best - tol)[:, None], axis=1)  # first near-best threshold
        best_scores.extend(np.take_along_axis(s, positions[:, None], axis=1)[:, 0].tolist())
        best_positions.extend(positions.tolist())
    scores = np.asarray(best_scores)
    if np.isneginf(scores).all():
        return None
    i = tie_first(scores)
    pos = best_positions[i]
    j = int(node.numeric[i])
    threshold = midpoint(float(node.values[i, pos]), float(node.values[i, pos + 1]))
    column = node.X[:, j]
    branch = np.where(np.isnan(column), MISSING_BRANCH, column > threshold).astype(np.int64)
    return Candidate(float(scores[i]), j, "numeric", branch, _branch_stats(node.stats, branch, 2), threshold=threshold)


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


def _branch_stats(stats: np.ndarray, branch: np.ndarray, n_branches: int) -> np.ndarray:
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


def multiway_splits(node: NodeData, *, score: Score, min_samples_leaf: float) -> Candidate | None:
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


def subset_splits(node: NodeData, *, score: Score, min_samples_leaf: float) -> Candidate | None:
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
        s = np.where(np.isnan(s), -np.inf, s)
        if np.isneginf(s).all():
            continue
        b = tie_first(s)
        found.append((float(s[b]), j, tuple(int(c) for c in present[masks[b]]), children[b]))
    if not found:
        return None
    i = tie_first(np.array([f[0] for f in found]))
    s, j, left_codes, children = found[i]
    column = node.X[:, j]
    branch = np.where(np.isnan(column), MISSING_BRANCH, np.where(np.isin(column, left_codes), 0, 1))
    return Candidate(s, j, "subset", branch, children, left_categories=left_codes)


_BUILTIN_SPLITTERS = (threshold_splits, multiway_splits, subset_splits)


@attrs.frozen
class _Settings:
    score: Score
    splitters: tuple[SplitGenerator, ...]
    max_depth: int | None
    min_samples_split: float
    min_samples_leaf: float
    min_gain: float | None
    accept: Callable[[np.ndarray, np.ndarray], bool] | None
    missing: str = "majority"
    trusted: bool = False  # a built-in score: no per-call checks


def _score_name(score: Any) -> str:
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
        return ParameterError(f"the score {_score_name(self.score)} {what} (at the node of depth {self.depth} with {self.rows} rows)")

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


def best_candidate(node: NodeData, cfg: _Settings) -> Candidate | None:
    """The best of the split generators' candidates at ``node`` (ties: the lowest feature),
    the score checked at the node unless it is a built-in one."""
    score = cfg.score if cfg.trusted else CheckedScore(cfg.score, node.depth, node.n_rows, node.task)
    found = [c for gen in cfg.splitters if (c := _propose(gen, node, score, cfg.min_samples_leaf)) is not None]
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
        raise ParameterError(f"the split generator {_score_name(gen)} raised {type(exc).__name__}: {exc} (at the node of depth {node.depth} with {node.n_rows} rows)") from exc
    if found is not None and not isinstance(found, Candidate):
        raise ParameterError(f"the split generator {_score_name(gen)} returned {type(found).__name__}, not a Candidate or None (at the node of depth {node.depth} with {node.n_rows} rows)")
    return found


def _checked_accept(accept: Callable[[np.ndarray, np.ndarray], bool] | None) -> Callable[[np.ndarray, np.ndarray], bool] | None:
    """``accept`` with its failures named (made once per grow call)."""
    if check("accept", accept, *GROW_CONSTRAINTS["accept"]) is None:
        return None

    def checked(parent: np.ndarray, children: np.ndarray) -> bool:
        try:
            return bool(accept(parent, children))
        except PuretreeError:
            raise
        except Exception as exc:
            raise ParameterError(f"accept={_score_name(accept)} raised {type(exc).__name__}: {exc} (for the split of statistics {parent.tolist()} into {children.tolist()})") from exc

    return checked


def _is_pure(node: NodeData) -> bool:
    return bool(node.y.min() == node.y.max())


def _grow(node: NodeData, cfg: _Settings) -> Generator[Any, Node, Node]:
    # The node's statistics (a Leaf's and a split's ``counts`` field holds them, class
    # counts or regression sums alike).
    totals = node.stats.sum(axis=0)
    if (
        _is_pure(node)
        or (cfg.max_depth is not None and node.depth >= cfg.max_depth)
        or node.n_rows < cfg.min_samples_split
        or (node.order.shape[0] == 0 and not node.categorical)
    ):
        return Leaf(totals)
    cand = best_candidate(node, cfg)
    if cand is None or (cfg.min_gain is not None and not cand.score > cfg.min_gain):
        return Leaf(totals)
    masks, scales, routed = _route(node, cand, cfg.missing)
    if cfg.accept is not None and not cfg.accept(totals, routed):
        return Leaf(totals)
    drop = cand.feature if cand.kind == "multiway" else None
    # Children's data are built before recursing and released one by one, so that a deep
    # tree holds the rows of one pending path, not of every ancestor.
    pending = [node.restrict(masks[b], drop=drop, scale=scales[b]) if masks[b].any() else None for b in range(cand.n_branches)]
    del node
    pending.reverse()
    kids: list[Node] = []
    while pending:
        child = pending.pop()
        kids.append(Leaf(np.zeros_like(totals)) if child is None else (yield _grow(child, cfg)))
    if cand.kind == "numeric":
        return NumericSplit(cand.feature, cand.threshold, kids[0], kids[1], totals)
    if cand.kind == "subset":
        return SubsetSplit(cand.feature, cand.left_categories, kids[0], kids[1], totals)
    return CategoricalSplit(cand.feature, tuple(kids), totals)


def _route(node: NodeData, cand: Candidate, missing: str) -> tuple[list[np.ndarray], list[np.ndarray | None], np.ndarray]:
    """Which rows go down each branch, with what weight factor, and the branches' statistics.

    Rows with a known value follow their branch. Rows whose value is missing
    (``MISSING_BRANCH``) go down the heaviest branch ("majority") or down every branch
    with a known weight, their weight multiplied by that branch's share ("distribute").
    """
    branch = cand.branch
    absent = branch == MISSING_BRANCH
    b_range = range(cand.n_branches)
    if not absent.any():
        return [branch == b for b in b_range], [None] * cand.n_branches, cand.children
    weights = node.task.weight(cand.children)
    if missing == "majority":
        branch = np.where(absent, int(np.argmax(weights)), branch)
        return [branch == b for b in b_range], [None] * cand.n_branches, _branch_stats(node.stats, branch, cand.n_branches)
    if missing != "distribute":
        raise DataError(f"column {node.schema.features[cand.feature].name!r}: missing value (the missing-value strategy is {missing!r})")
    share = weights / weights.sum()
    absent_stats = node.stats[absent].sum(axis=0)
    masks, scales = [], []
    for b in b_range:
        mask = (branch == b) | (absent & (share[b] > 0))
        masks.append(mask)
        scales.append(np.where(absent[mask], share[b], 1.0))
    return masks, scales, cand.children + share[:, None] * absent_stats


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
        y=ds.y,
        stats=node_statistics(ds),
        order=order,
        values=np.take_along_axis(columns, order, axis=1),
        numeric=numeric,
        categorical=tuple(j for j, f in enumerate(ds.schema.features) if not f.is_numeric),
        schema=ds.schema,
        depth=0,
        root_rows=ds.n_rows,
    )


#: What grow's options may be (:mod:`puretree.params`); ``engine`` is checked against the
#: engine's names where the engine is imported.
GROW_CONSTRAINTS = {
    "max_depth": (Interval(int, 0, None), None),
    "min_samples_split": (Interval(float, 0, None),),
    "min_samples_leaf": (Interval(float, 0, None),),
    "min_gain": (Interval(float, finite=False), None),
    "accept": (IsCallable("a function (parent statistics, children statistics) -> bool"), None),
    "missing": (Options(MISSING_STRATEGIES),),
    "threshold": (Options(THRESHOLDS),),
    "max_bins": (Interval(int, 2, None), None),
}


def check_options(**options: Any) -> dict[str, Any]:
    """grow's options checked against :data:`GROW_CONSTRAINTS`, normalised (numbers as
    ``int`` or ``float``), by name.

    >>> check_options(max_depth=3, min_samples_leaf=1)
    {'max_depth': 3, 'min_samples_leaf': 1.0}
    >>> check_options(max_depth=2.5)
    Traceback (most recent call last):
    ...
    puretree.errors.ParameterError: max_depth must be an integer >= 0 or None, got 2.5
    """
    return check_all(GROW_CONSTRAINTS, **options)


def _check_options(max_depth: Any, min_samples_split: Any, min_samples_leaf: Any, min_gain: Any) -> None:
    # The former spelling, which c45.py calls; check_options is the public one.
    check_options(max_depth=max_depth, min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf, min_gain=min_gain)


@attrs.frozen(repr=False)
class ByTask:
    """A score that depends on the task: ``classification`` for class labels, ``regression``
    for numeric targets. The presets use it so that ``cart(X, y, task="regression")`` grows a
    variance-reduction tree.

    >>> by_task("gini", "variance")
    by_task('gini', 'variance')
    """

    classification: Score | str
    regression: Score | str

    def for_task(self, task: Task | bool) -> Score | str:
        """The score for ``task`` (a :class:`~puretree.tasks.Task`, or a regression flag)."""
        return self.regression if as_task(task).is_regression else self.classification

    def __repr__(self) -> str:
        return f"by_task({self.classification!r}, {self.regression!r})"


def by_task(classification: Score | str, regression: Score | str = "variance") -> ByTask:
    """A :class:`ByTask` score: one for classification, one for regression."""
    return ByTask(classification, regression)


def _score_for(score: Score | str | ByTask, task: Task) -> Score:
    """The score to grow with, for the data's task; a named score made for the other task is refused."""
    chosen = score.for_task(task) if isinstance(score, ByTask) else score
    if isinstance(chosen, str) and chosen in SCORES and score_task(SCORES[chosen]) is not task:
        if task.is_regression:
            raise ParameterError(f"the criterion {chosen!r} is for class labels; a regression tree needs 'variance' (or a score over (weight, sum, sum of squares))")
        raise ParameterError(f"the criterion {chosen!r} is for numeric targets; this is a classification task")
    return resolve_score(chosen)


def class_weights(ds: Dataset, class_weight: Any) -> np.ndarray:
    """One weight per row from ``class_weight``: a mapping label -> weight (absent labels: 1)
    or ``"balanced"``, ``n_rows / (n_classes * rows of the class)`` as in scikit-learn.

    >>> from puretree.data import from_numpy
    >>> ds = from_numpy(np.zeros((4, 1)), ["a", "a", "a", "b"])
    >>> class_weights(ds, "balanced").tolist()
    [0.6666666666666666, 0.6666666666666666, 0.6666666666666666, 2.0]
    >>> class_weights(ds, {"b": 3}).tolist()
    [1.0, 1.0, 1.0, 3.0]
    """
    if ds.schema.is_regression:
        raise ParameterError("class_weight needs class labels; this is a regression task")
    classes = ds.schema.classes
    if isinstance(class_weight, str):
        if class_weight != "balanced":
            raise ParameterError(f"class_weight must be a mapping or 'balanced', got {class_weight!r}")
        rows = np.bincount(ds.y, minlength=len(classes)).astype(np.float64)
        per_class = np.where(rows > 0, ds.n_rows / (np.count_nonzero(rows) * np.maximum(rows, 1.0)), 0.0)
    elif isinstance(class_weight, Mapping):
        per_class = np.ones(len(classes))
        index = {c: i for i, c in enumerate(classes)}
        for label, weight in class_weight.items():
            if label not in index:
                raise ParameterError(f"class_weight names the class {label!r}, which is not in the target; classes are {list(classes)}")
            per_class[index[label]] = check(f"class_weight for {label!r}", weight, Interval(float, 0, None))
    else:
        raise ParameterError(f"class_weight must be a mapping or 'balanced', got {class_weight!r}")
    return per_class[ds.y]


#: grow's own keyword options, for "did you mean" hints on a misspelt one.
_GROW_OPTIONS = ("score", "splitters", "max_depth", "min_samples_split", "min_samples_leaf", "min_gain", "accept", "sample_weight", "class_weight", "missing", "threshold", "engine", "max_bins")


def _check_keywords(options: Mapping[str, Any]) -> None:
    """Refuse a keyword that is neither a growth option nor a data option (``max_dept=1``)."""
    for name in options:
        if name not in DATA_OPTIONS:
            close = difflib.get_close_matches(name, _GROW_OPTIONS + DATA_OPTIONS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ParameterError(f"unknown option {name!r}{hint}; the options are {list(_GROW_OPTIONS + DATA_OPTIONS)}")


def _prepare(X: Any, y: Any, sample_weight: Any, class_weight: Any, data_options: dict[str, Any]) -> Dataset:
    """The dataset to learn from: checked, with class weights applied and zero-weight rows gone."""
    _check_keywords(data_options)
    ds = as_dataset(X, y, sample_weight=sample_weight, **data_options)
    task = data_options.get("task")
    if task is not None and ds.schema.task != task:
        raise ParameterError(f"task={task!r}, but the dataset given is for {ds.schema.task}")
    if ds.y is None:
        raise DataError("no target: pass y, or a dataset read with target=...")
    if ds.n_rows == 0:
        raise DataError("no rows to learn from")
    if class_weight is not None:
        base = np.ones(ds.n_rows) if ds.sample_weight is None else ds.sample_weight
        ds = attrs.evolve(ds, sample_weight=base * class_weights(ds, class_weight))
    if ds.sample_weight is not None:
        with np.errstate(over="ignore"):
            total = float(ds.sample_weight.sum())
        if not np.isfinite(total):
            raise DataError(f"the row weights (sample_weight times class_weight) sum to {total!r}, beyond a double's range: scale them down")
        keep = ds.sample_weight > 0
        if not keep.any():
            raise DataError("every sample weight is zero")
        if not keep.all():
            ds = ds.subset(keep)  # weight 0 is the same as leaving the row out
    if ds.schema.is_regression:
        _check_regression_range(ds)
    return ds


def _check_regression_range(ds: Dataset) -> None:
    """Refuse targets whose weighted sum of squares overflows: every node's statistics would be inf."""
    with np.errstate(over="ignore", invalid="ignore"):
        totals = node_statistics(ds).sum(axis=0)
    if not np.isfinite(totals).all():
        biggest = float(np.max(np.abs(ds.y)))
        raise DataError(f"the regression targets are too large: their weighted sum of squares overflows a double (largest |target| {biggest:g}); scale them down")


def grow(
    X: Any,
    y: Any = None,
    *,
    score: Score | str | ByTask = ByTask("information_gain", "variance"),
    splitters: Sequence[SplitGenerator] = (threshold_splits, multiway_splits),
    max_depth: int | None = None,
    min_samples_split: float = 2,
    min_samples_leaf: float = 1,
    min_gain: float | None = None,
    accept: Callable[[np.ndarray, np.ndarray], bool] | None = None,
    sample_weight: Any = None,
    class_weight: Any = None,
    missing: str = "majority",
    threshold: str = "midpoint",
    engine: str = "auto",
    max_bins: int | None = None,
    **data_options: Any,
) -> Tree:
    """Grow a tree from data, choosing each split by ``score`` among the ``splitters``' candidates.

    ``X`` is a numpy array, a pandas DataFrame, a sequence of mappings or a
    :class:`~puretree.data.Dataset`; ``y`` the labels (not needed for a Dataset). Other
    keyword options (``feature_names``, ``categorical``, ``target``, ``task``) describe the
    data. ``accept(parent, children)`` (their statistics) may veto a split (e.g. a significance
    test). ``sample_weight`` and ``class_weight`` weigh rows; ``missing`` is the
    missing-value strategy (:data:`~puretree.nodes.MISSING_STRATEGIES`), used in training
    and stored in the tree for prediction. ``threshold`` places numeric cuts: ``"midpoint"``
    (the seeds': halfway between the two training values) or ``"data"`` (C4.5's and J48's: the
    largest training value not above the midpoint, see :func:`data_thresholds`). The input is
    never modified. ``engine``:
    ``"auto"`` (default) grows level by level with :mod:`puretree.engine` when it knows the
    ``splitters`` (the built-in ones), else with this module's recursive builder, which
    ``"reference"`` forces and ``"fast"`` refuses to fall back to; both grow the same tree.
    ``max_bins=N`` (fast engine only): histogram mode, each numeric feature binned once into
    at most ``N`` quantile bins, every threshold the largest training value of a bin.

    >>> tree = grow([[1.0], [2.0], [3.0], [np.nan]], [10.0, 12.0, 30.0, 31.0], task="regression",
    ...             max_depth=1, missing="distribute")
    >>> print(tree.to_text())
    x0 <= 2.5: 16 (2.667)
    x0 > 2.5: 30.25 (1.333)
    """
    opts = check_options(max_depth=max_depth, min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf, min_gain=min_gain, missing=missing, threshold=threshold)
    ds = _prepare(X, y, sample_weight, class_weight, data_options)
    task = as_task(ds.schema)
    chosen = _score_for(score, task)
    cfg = _Settings(chosen, _check_splitters(splitters), opts["max_depth"], opts["min_samples_split"], opts["min_samples_leaf"], opts["min_gain"], _checked_accept(accept), missing, _is_builtin(chosen))
    from . import engine as fast  # imported here: the engine builds on this module

    check("engine", engine, Options(fast.ENGINES))
    max_bins = check_options(max_bins=max_bins)["max_bins"]
    # A user's score is checked node by node (CheckedScore names the node), which the
    # recursive builder does; "auto" keeps the level-wise engine for the built-in scores.
    use_engine = fast.supports(cfg.splitters) and (engine == "fast" or (engine == "auto" and (cfg.trusted or max_bins is not None)))
    if use_engine:
        if not cfg.trusted:
            cfg = attrs.evolve(cfg, score=CheckedScore(cfg.score, 0, ds.n_rows, task))
        tree = Tree(fast.build(ds, cfg, max_bins=max_bins), ds.schema, missing)
    else:
        if max_bins is not None:
            raise ParameterError(f"max_bins (histogram mode) needs the fast engine and the built-in split generators (engine={engine!r})")
        if engine == "fast":
            raise ParameterError(f"engine='fast' knows only the built-in split generators, got {list(cfg.splitters)!r}; use engine='auto' or 'reference'")
        tree = Tree(run(_grow(root_data(ds, missing=missing), cfg)), ds.schema, missing)
    # The impurity it was grown with, which cost-complexity pruning measures it by (None: a user's).
    impurity = getattr(chosen, "impurity", None)
    tree = attrs.evolve(tree, criterion=impurity.__name__ if any(impurity is f for f in (entropy, gini, misclassification, variance)) else None)
    return data_thresholds(tree, ds.X) if threshold == "data" else tree


def data_thresholds(tree: Tree, X: np.ndarray) -> Tree:
    """Every numeric threshold moved down to the largest value of its feature in ``X`` (the
    training data, encoded) that is not above it, as J48's ``setSplitPoint`` does. A midpoint
    lies between two values of the node's rows and no row of the node lies between the two,
    so every training row takes the same branch; unseen values between them may not.

    >>> from puretree.nodes import Feature, Schema
    >>> t = Tree(NumericSplit(0, 54.0, Leaf((2.0, 0.0)), Leaf((0.0, 3.0)), (2.0, 3.0)), Schema((Feature("t"),), ("n", "y")))
    >>> data_thresholds(t, np.array([[40.0], [48.0], [60.0], [72.0], [80.0]])).root.threshold
    48.0
    """
    X = np.asarray(X, dtype=np.float64) if not isinstance(X, np.ndarray) or X.dtype != np.float64 else X
    if X.ndim != 2 or X.shape[1] != tree.schema.n_features:
        raise DataError(f"data_thresholds needs the encoded training matrix, rows x {tree.schema.n_features} features; got shape {X.shape}")
    columns = {j: np.sort(X[:, j][~np.isnan(X[:, j])]) for j, f in enumerate(tree.schema.features) if f.is_numeric}

    def rule(node: Node) -> Node | None:
        if not isinstance(node, NumericSplit):
            return None
        values = columns[node.feature]
        i = int(np.searchsorted(values, node.threshold, side="right")) - 1
        if i < 0 or values[i] == node.threshold:
            return None
        return attrs.evolve(node, threshold=float(values[i]))

    return rewrite(tree, rule)


def _is_builtin(score: Score) -> bool:
    return any(score is s or (type(score) is type(s) and score == s) for s in SCORES.values())


def _check_splitters(splitters: Any) -> tuple[SplitGenerator, ...]:
    if callable(splitters) or isinstance(splitters, (str, bytes)):
        raise ParameterError(f"splitters= takes a sequence of split generators, got {splitters!r}")
    try:
        out = tuple(splitters)
    except TypeError:
        raise ParameterError(f"splitters= takes a sequence of split generators, got {splitters!r}") from None
    for gen in out:
        if not callable(gen):
            raise ParameterError(f"splitters= holds {gen!r}, which is not a split generator (a callable)")
    return out


def attribute_scores(X: Any, y: Any = None, *, score: Score | str | ByTask = ByTask("information_gain", "variance"), splitters: Sequence[SplitGenerator] = (threshold_splits, multiway_splits), **data_options: Any) -> dict[str, float]:
    """The best score of each feature at the root (what ``grow`` compares to pick the root).

    A feature with missing values has its score scaled by its known fraction, as in ``grow``.

    >>> from puretree.datasets import load_playtennis
    >>> {k: round(v, 3) for k, v in attribute_scores(load_playtennis()).items()}
    {'outlook': 0.247, 'temperature': 0.029, 'humidity': 0.152, 'wind': 0.048}
    """
    _check_keywords(data_options)
    ds = as_dataset(X, y, **data_options)
    if ds.y is None:
        raise DataError("no target: pass y, or a dataset read with target=...")
    root = root_data(ds)
    task = as_task(ds.schema)
    cfg_score = _score_for(score, task)
    if not _is_builtin(cfg_score):
        cfg_score = CheckedScore(cfg_score, 0, ds.n_rows, task)
    out: dict[str, float] = {}
    for j, f in enumerate(ds.schema.features):
        if f.is_numeric:
            i = int(np.flatnonzero(root.numeric == j)[0])
            only = attrs.evolve(root, order=root.order[i : i + 1], values=root.values[i : i + 1], numeric=root.numeric[i : i + 1], categorical=())
        else:
            only = attrs.evolve(root, order=root.order[:0], values=root.values[:0], numeric=root.numeric[:0], categorical=(j,))
        found = [c.score for gen in splitters if (c := gen(only, score=cfg_score, min_samples_leaf=0)) is not None]
        out[f.name] = max(found) if found else float("-inf")
    return out


def _preset(name: str, doc: str, **defaults: Any) -> Callable[..., Tree]:
    preset = partial(grow, **defaults)
    preset.__doc__ = doc  # type: ignore[misc]
    preset.__name__ = name  # type: ignore[attr-defined]
    return preset


id3 = _preset(
    "id3",
    "ID3: information gain, one branch per category, a used categorical attribute not reused below.\n"
    "Numeric attributes are split at midpoint thresholds scored by information gain.\n"
    "A missing value goes down the heaviest branch (missing='majority'); regression scores variance.",
    score=ByTask("information_gain", "variance"),
    splitters=(threshold_splits, multiway_splits),
)
cart = _preset(
    "cart",
    "CART: Gini impurity decrease, binary splits: thresholds on numeric, subsets on categorical attributes.\n"
    "With task='regression' (or a regression dataset): variance decrease, leaves predict the weighted mean.\n"
    "A missing value goes down the heaviest branch (missing='majority'; CART's surrogate splits are not built).",
    score=ByTask("gini", "variance"),
    splitters=(threshold_splits, subset_splits),
)
cart_regressor = _preset(
    "cart_regressor",
    "CART regression tree (scikit-learn's DecisionTreeRegressor): cart with task='regression'.",
    score=ByTask("gini", "variance"),
    splitters=(threshold_splits, subset_splits),
    task="regression",
)


# The former private names, which engine.py and c45.py import; the public names above
# replace them (kept until those modules switch).
_variance_decrease = variance_decrease
_subset_masks = subset_masks
_tie_first = tie_first
_best_candidate = best_candidate


def _stats_weight(stats: np.ndarray, regression: bool) -> np.ndarray:
    """Former spelling of ``as_task(regression).weight(stats)``."""
    return as_task(bool(regression)).weight(stats)


def _weight_of(score: Any) -> Callable[[Any], np.ndarray]:
    """Former spelling: the weight function of the task a score is made for (classification
    for a user's function). The task of the data is what the builders use now."""
    return (score_task(score) or CLASSIFICATION).weight


def __getattr__(name: str) -> Any:
    # c45 lives in puretree.c45 (its split generator builds on this module); reached from here
    # too, as it always was, without an import circle.
    if name == "c45":
        from .c45 import c45

        return c45
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
