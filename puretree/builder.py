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
``"learn"`` learns at each threshold split the side its missing values take, as scikit-learn
does (:func:`~puretree.splits.learned_threshold_splits`: each threshold is scored with the
missing rows on either side, and the split sending them alone right is tried too); the side is
part of the split's test (:attr:`~puretree.nodes.Threshold.missing_branch`) and the tree's
strategy is ``"majority"`` for its other (categorical) splits. The level-wise engine grows it
(and ``monotonic_cst``) on numeric features with threshold splits and a built-in score
(:mod:`puretree.growth.bounds`, the same trees); other fits grow with this recursive builder.
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
import os
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from functools import partial
from typing import TYPE_CHECKING, Any, Protocol, TypedDict

import attrs
import numpy as np

from .growth import engine as fast
from .growth import random_cuts
from .criteria import SCORES, AbsoluteErrorDecrease, PoissonDecrease, Score, resolve_score, score_name_of, score_task
from .data import DATA_OPTIONS, Dataset, as_dataset
from .errors import DataError, ParameterError, PuretreeError
from .fold import rewrite, run
from .growth.limits import check_rows_by_classes
from .losses import absolute_error_splits, median_statistics
from .impurity import entropy, gini, misclassification, variance
from .nodes import MISSING_STRATEGIES, Leaf, Node, Split
from .params import Interval, IsCallable, Options, check, check_all
from .splits import MISSING_BRANCH, THRESHOLDS, Candidate, CheckedScore, NodeData, Settings, SplitGenerator, best_candidate, branch_stats, learned_threshold_splits, monotone_children_bounds, monotone_clipped, multiway_splits, node_statistics, resolve_max_features, root_data, score_name, subset_splits, threshold_splits
from .splits import improvement, random_threshold_splits, refuse_missing
from .growth.assemble import from_records
from .growth.level import EPSILON, FrontierHeap, Sizes
from .tasks import Task, as_task
from .tree import Tree

if TYPE_CHECKING:  # Unpack is typing's from Python 3.11; type checkers know typing_extensions' on 3.10
    from typing_extensions import Unpack

__all__ = [
    "DataOptions",
    "GrowOptions",
    "C45Options",
    "MemberOptions",
    "ForestOptions",
    "Grower",
    "grow",
    "id3",
    "cart",
    "cart_regressor",
    "ByTask",
    "by_task",
    "class_weights",
    "GROW_CONSTRAINTS",
    "check_options",
    "attribute_scores",
    "data_thresholds",
    "visited_regression_tree",
    "monotonic_directions",
]


def _checked_accept(accept: Callable[[np.ndarray, np.ndarray], bool] | None) -> Callable[[np.ndarray, np.ndarray], bool] | None:
    """``accept`` with its failures named (made once per grow call)."""
    if check("accept", accept, *GROW_CONSTRAINTS["accept"]) is None:
        return None
    # A hook with ``wants_context = True`` (puretree.prune.mml's stopping rule) is also handed the
    # node's rows and the candidate, as ``node=`` and ``candidate=``.
    wants = bool(getattr(accept, "wants_context", False))

    def checked(parent: np.ndarray, children: np.ndarray, **context: Any) -> bool:
        try:
            return bool(accept(parent, children, **context) if wants else accept(parent, children))  # type: ignore[misc]  # not None: checked above
        except PuretreeError:
            raise
        except Exception as exc:
            raise ParameterError(f"accept={score_name(accept)} raised {type(exc).__name__}: {exc} (for the split of statistics {parent.tolist()} into {children.tolist()})") from exc

    return checked


def _is_pure(node: NodeData) -> bool:
    return bool(node.y.min() == node.y.max())


def _grow(node: NodeData, cfg: Settings, progress: Callable[[int, int, int], None] | None = None) -> Generator[Any, Node, Node]:
    # The node's statistics (a Leaf's and a split's ``counts`` field holds them, class
    # counts or regression sums alike).
    totals = node.stats.sum(axis=0)
    if cfg.monotonic:  # the value this node predicts stays within its ancestors' bounds
        totals = monotone_clipped(totals, node.bounds, node.task)
    if progress is not None:
        progress(node.depth, 1, node.n_rows)
    if (
        (_is_pure(node) and cfg.visit is None)  # scikit-learn's rule (impurity at most EPSILON) is the hook's
        or (cfg.max_depth is not None and node.depth >= cfg.max_depth)
        or node.n_rows < cfg.min_samples_split
        or (node.order.shape[0] == 0 and not node.categorical)
    ):
        return Leaf(totals)
    cand = best_candidate(node, cfg) if cfg.visit is None else cfg.visit(node)
    if cand is None or (cfg.min_gain is not None and not cand.score > cfg.min_gain) or _too_small(node, cand, cfg):
        return Leaf(totals)
    masks, scales, routed = _route(node, cand, cfg.missing)
    if cfg.accept is not None and not cfg.accept(totals, routed, node=node, candidate=cand):
        return Leaf(totals)
    drop = cand.feature if cand.kind == "multiway" else None
    # Children's data are built before recursing and released one by one, so that a deep
    # tree holds the rows of one pending path, not of every ancestor.
    pending = [node.restrict(masks[b], drop=drop, scale=scales[b], branch=b) if masks[b].any() else None for b in range(cand.n_branches)]
    if cfg.monotonic:
        pending = [None if child is None else attrs.evolve(child, bounds=bounds) for child, bounds in zip(pending, monotone_children_bounds(node, cand.feature, routed))]
    node_depth = node.depth
    del node
    pending.reverse()
    kids: list[Node] = []
    while pending:
        child = pending.pop()
        if child is None and progress is not None:
            progress(node_depth + 1, 1, 0)
        kids.append(Leaf(np.zeros_like(totals)) if child is None else (yield _grow(child, cfg, progress)))
    return Split(cand.feature, cand.test, tuple(kids), totals)


# -- scikit-learn's size controls: min_impurity_decrease, best-first growth (max_leaf_nodes) --

#: scikit-learn's EPSILON (the doubles' machine epsilon): a split is kept when its improvement
#: plus EPSILON reaches ``min_impurity_decrease`` (the frontier loop's too).
_EPSILON = EPSILON


def _too_small(node: NodeData, cand: Candidate, cfg: Settings) -> bool:
    """Whether ``cand``'s weighted improvement falls short of ``min_impurity_decrease``, by
    scikit-learn's test (``improvement + EPSILON < min_impurity_decrease``)."""
    return cfg.min_impurity_decrease > 0 and improvement(node, cand, cfg.total_weight) + _EPSILON < cfg.min_impurity_decrease


def _totals(node: NodeData, cfg: Settings) -> np.ndarray:
    """The node's statistics, as its node holds them: with monotonic constraints its value
    clipped to the bounds its ancestors passed down (scikit-learn's ``clip_node_value``)."""
    totals = node.stats.sum(axis=0)
    return monotone_clipped(totals, node.bounds, node.task) if cfg.monotonic else totals


def _decide(node: NodeData, cfg: Settings) -> tuple[float, Any]:
    """A node of best-first growth as scikit-learn's ``_add_split_node`` judges it: its
    improvement (0 for a leaf) and its split ``(candidate, masks, scales, routed)`` (``routed``:
    the branches' statistics), or None (a leaf)."""
    totals = _totals(node, cfg)
    if _is_pure(node) or (cfg.max_depth is not None and node.depth >= cfg.max_depth) or node.n_rows < cfg.min_samples_split or (node.order.shape[0] == 0 and not node.categorical):
        return 0.0, None
    cand = best_candidate(node, cfg)
    if cand is None or (cfg.min_gain is not None and not cand.score > cfg.min_gain) or _too_small(node, cand, cfg):
        return 0.0, None
    masks, scales, routed = _route(node, cand, cfg.missing)
    if cfg.accept is not None and not cfg.accept(totals, routed, node=node, candidate=cand):
        return 0.0, None
    return improvement(node, cand, cfg.total_weight), (cand, masks, scales, routed)


def _grow_best_first(root: NodeData, cfg: Settings, progress: Callable[[int, int, int], None] | None = None) -> Node:
    """The tree of at most ``cfg.max_leaf_nodes`` leaves, grown best-first as scikit-learn's
    ``BestFirstTreeBuilder`` grows it: each node's split is found when the node is made, the
    nodes wait in a :class:`~puretree.growth.level.FrontierHeap` on their improvement, and the
    best is split while fewer than ``max_leaf_nodes - 1`` splits were made (each split of ``b``
    branches adds ``b - 1`` leaves); every other node is a leaf. Same stopping rules as the
    depth-first builder."""
    assert cfg.max_leaf_nodes is not None
    records: list[Any] = [None]  # a Leaf, or a split's record (feature, test, children's ids, statistics)
    heap = FrontierHeap()
    gain, decision = _decide(root, cfg)
    heap.push(gain, (0, root, decision))
    leaves = 1
    while heap:
        g, node, decision = heap.pop()
        if progress is not None:
            progress(node.depth, 1, node.n_rows)
        totals = _totals(node, cfg)
        if decision is None or leaves + decision[0].n_branches - 1 > cfg.max_leaf_nodes:
            records[g] = Leaf(totals)
            continue
        cand, masks, scales, routed = decision
        leaves += cand.n_branches - 1
        drop = cand.feature if cand.kind == "multiway" else None
        kids = range(len(records), len(records) + cand.n_branches)
        # monotonic constraints: the bounds each child passes down, as the depth-first builder's
        bounds = monotone_children_bounds(node, cand.feature, routed) if cfg.monotonic else [node.bounds] * cand.n_branches
        for b, kid in zip(range(cand.n_branches), kids):
            if not masks[b].any():  # a branch no row reaches
                records.append(Leaf(np.zeros_like(totals)))
                continue
            child = node.restrict(masks[b], drop=drop, scale=scales[b], branch=b)
            if cfg.monotonic:
                child = attrs.evolve(child, bounds=bounds[b])
            records.append(None)
            gain, child_decision = _decide(child, cfg)
            heap.push(gain, (kid, child, child_decision))
        records[g] = (cand.feature, cand.test, kids, totals)
    return from_records(records)


def _route(node: NodeData, cand: Candidate, missing: str) -> tuple[list[np.ndarray], list[Any], np.ndarray]:
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
    if missing in ("majority", "learn"):  # "learn": a split without a learned side (a category's)
        branch = np.where(absent, int(np.argmax(weights)), branch)
        return [branch == b for b in b_range], [None] * cand.n_branches, branch_stats(node.stats, branch, cand.n_branches)
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


#: How a numeric feature's threshold is found: the best of all (``"best"``) or the best of
#: random cuts (``"random"``, scikit-learn's extra-tree splitter: :func:`~puretree.splits.random_threshold_splits`).
SPLITTERS = ("best", "random")

#: What grow's options may be (:mod:`puretree.params`); ``engine`` is checked against the
#: engine's names where the engine is imported.
GROW_CONSTRAINTS = {
    "max_depth": (Interval(int, 0, None), None),
    "min_samples_split": (Interval(float, 0, None),),
    "min_samples_leaf": (Interval(float, 0, None),),
    "min_gain": (Interval(float, finite=False), None),
    "accept": (IsCallable("a function (parent statistics, children statistics) -> bool"), None),
    "progress": (IsCallable("a function (depth, nodes, rows)"), None),
    "missing": (Options(MISSING_STRATEGIES + ("learn", "surrogate")),),
    "threshold": (Options(THRESHOLDS),),
    "max_bins": (Interval(int, 2, None), None),
    # scikit-learn's size controls
    "min_weight_fraction_leaf": (Interval(float, 0, 0.5),),
    "min_impurity_decrease": (Interval(float, 0, None),),
    "max_leaf_nodes": (Interval(int, 2, None), None),
    "splitter": (Options(SPLITTERS),),
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
    if isinstance(chosen, str):  # scikit-learn's names of the squared error
        chosen = score_name_of(chosen)
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
        rows = np.bincount(np.asarray(ds.y), minlength=len(classes)).astype(np.float64)
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


class DataOptions(TypedDict, total=False):
    """The keyword options that describe raw data (:data:`~puretree.data.DATA_OPTIONS`), as the
    growth functions take them: a type checker refuses any other name (``max_depht=3``), where at
    run time the function's :class:`~puretree.errors.ParameterError` names it."""

    feature_names: Sequence[str] | None
    categorical: Iterable[str] | None
    target: str | None
    task: str | Task


class _Stopping(TypedDict, total=False):
    # grow's options that neither c45 nor the ensembles name themselves
    max_depth: int | None
    min_samples_split: float
    min_gain: float | None
    accept: Callable[[np.ndarray, np.ndarray], bool] | None
    sample_weight: Any
    class_weight: Any
    engine: str
    progress: Callable[[int, int, int], None] | None
    min_weight_fraction_leaf: float
    min_impurity_decrease: float
    max_leaf_nodes: int | None
    splitter: str
    monotonic_cst: Sequence[int] | None


class _Splitting(TypedDict, total=False):
    # grow's options that c45 names itself (its own defaults)
    score: Score | str | ByTask
    splitters: Sequence[SplitGenerator]
    min_samples_leaf: float
    missing: str
    threshold: str
    max_bins: int | None
    bins: Any


class C45Options(DataOptions, _Stopping, total=False):
    """:func:`~puretree.c45.c45`'s ``**options``: grow's options that it does not name itself."""

    max_features: int | float | str | None
    seed: int | tuple[int, ...]


class GrowOptions(C45Options, _Splitting, total=False):
    """Every keyword option of :func:`grow` (the presets :func:`id3`, :func:`cart` and
    :func:`cart_regressor` take them all)."""


class ForestOptions(DataOptions, _Stopping, _Splitting, total=False):
    """The options :func:`~puretree.ensemble.random_forest` hands its members (or the data):
    grow's but ``seed`` and ``max_features`` (the forest's own), and C4.5's ``collapse`` (for
    ``base=c45``)."""

    collapse: bool


class MemberOptions(ForestOptions, total=False):
    """The options :func:`~puretree.ensemble.bagging` and :func:`~puretree.ensemble.adaboost`
    hand their members (or the data): :class:`ForestOptions` and ``max_features``."""

    max_features: int | float | str | None


class Grower(Protocol):
    """What the presets (:func:`id3`, :func:`cart`, :func:`cart_regressor`) are to a type
    checker: :func:`grow` with other defaults, taking exactly grow's keyword options."""

    def __call__(self, X: Any, y: Any = None, **options: Unpack[GrowOptions]) -> Tree: ...


#: grow's own keyword options, for "did you mean" hints on a misspelt one.
_GROW_OPTIONS = ("score", "splitters", "max_depth", "min_samples_split", "min_samples_leaf", "min_gain", "accept", "sample_weight", "class_weight", "missing", "threshold", "engine", "max_bins", "bins", "max_features", "seed", "progress", "min_weight_fraction_leaf", "min_impurity_decrease", "max_leaf_nodes", "splitter", "monotonic_cst")


def _check_keywords(options: Mapping[str, Any]) -> None:
    """Refuse a keyword that is neither a growth option nor a data option (``max_dept=1``)."""
    for name in options:
        if name not in DATA_OPTIONS:
            close = difflib.get_close_matches(name, _GROW_OPTIONS + DATA_OPTIONS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ParameterError(f"unknown option {name!r}{hint}; the options are {list(_GROW_OPTIONS + DATA_OPTIONS)}")


def _prepare(X: Any, y: Any, sample_weight: Any, class_weight: Any, data_options: DataOptions) -> Dataset:
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
        biggest = float(np.max(np.abs(np.asarray(ds.y))))
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
    bins: Any = None,
    max_features: int | float | str | None = None,
    seed: int | tuple[int, ...] = 0,
    progress: Callable[[int, int, int], None] | None = None,
    min_weight_fraction_leaf: float = 0.0,
    min_impurity_decrease: float = 0.0,
    max_leaf_nodes: int | None = None,
    splitter: str = "best",
    monotonic_cst: Sequence[int] | None = None,
    **data_options: Unpack[DataOptions],
) -> Tree:
    """Grow a tree from data, choosing each split by ``score`` among the ``splitters``' candidates.

    ``X`` is a numpy array, a pandas DataFrame, a sequence of mappings or a
    :class:`~puretree.data.Dataset`; ``y`` the labels (not needed for a Dataset). Other
    keyword options (``feature_names``, ``categorical``, ``target``, ``task``) describe the
    data. ``accept(parent, children)`` (their statistics) may veto a split (e.g. a significance
    test). ``sample_weight`` and ``class_weight`` weigh rows; ``missing`` is the
    missing-value strategy (:data:`~puretree.nodes.MISSING_STRATEGIES`), used in training
    and stored in the tree for prediction, or ``"learn"``: each threshold split learns the
    side its missing values take (see the module notes; the reference builder grows it), or
    ``"surrogate"`` (``cart``): rpart's tree with its surrogate splits (:mod:`puretree.surrogates`). ``threshold`` places numeric cuts: ``"midpoint"``
    (the seeds': halfway between the two training values) or ``"data"`` (C4.5's and J48's: the
    largest training value not above the midpoint, see :func:`data_thresholds`). The input is
    never modified. ``engine``:
    ``"auto"`` (default) grows level by level with :mod:`puretree.growth.engine` when it knows the
    ``splitters`` (the built-in ones), else with this module's recursive builder, which
    ``"reference"`` forces and ``"fast"`` refuses to fall back to; all grow the same tree.
    The level-wise engine hands ``cart``'s common case (Gini, numeric features, no missing
    value) to the compiled kernel (:mod:`puretree.growth.kernels`): ``"c"`` insists on it (an error
    where it is unavailable or does not apply), ``"numpy"`` does without it. The environment
    variable ``PURETREE_ENGINE`` (one of these names) chooses in place of ``"auto"``: ``numpy``
    keeps every compiled loop out (C4.5's scan too), ``c`` insists on the kernel wherever the
    level-wise engine grows, ``reference`` grows recursively.
    ``max_bins=N`` (fast engine only): histogram mode, each numeric feature binned once into
    at most ``N`` quantile bins, every threshold the largest training value of a bin.
    ``max_features`` (random forests): each node splits on a random subset of the features,
    ``"sqrt"``, ``"log2"``, a count or a fraction of them
    (:func:`~puretree.splits.resolve_max_features`), drawn by a generator keyed by ``seed``
    (an integer; ensembles pass ``(seed, member)``) and the node's path from the root
    (:func:`~puretree.splits.node_features`): both engines draw the same features.
    ``progress(depth, nodes, rows)``, if given, hears of the growth as it goes: once per node
    from the recursive builder, once per level from the level-wise engine (the nodes made at
    that depth and the rows they hold); it does not change the tree.
    ``bins=edges`` (fast engine only): histogram mode with given bins, one array of upper bin
    edges per feature (:func:`puretree.dask.bin_edges` computes them on a cluster): each value
    becomes the first edge at or above it (above the last edge: the last edge), every threshold
    is an edge, so ``x <= edge`` sends a value where its bin went.
    scikit-learn's size controls (see ``docs/sizes.md``; the level-wise engines grow
    ``min_impurity_decrease`` and ``max_leaf_nodes`` by reading them off the full tree, each split
    ranked by the improvement recorded when it was chosen (:class:`puretree.growth.level.Sizes`),
    so with missing values, ``missing="learn"`` and ``monotonic_cst`` too, and the weight bound in
    every chooser; without bins they refuse the random splitter, which ``engine="auto"`` grows with
    the recursive builder or, on classes without missing values, whole in C):
    ``min_weight_fraction_leaf``: each child holds at least this fraction of the training weight
    (:func:`~puretree.growth.choose.heavy_enough`, every source's rule, histogram mode and
    :mod:`puretree.dask` included);
    ``min_impurity_decrease``: a split is made only if its score times the node's share of the
    training weight (:func:`~puretree.splits.improvement`) reaches it;
    ``max_leaf_nodes=N``: best-first growth (scikit-learn's), the node of best improvement split
    first, up to ``N`` leaves; ``splitter="random"``: numeric thresholds drawn at random between
    the node's minimum and maximum (extra trees, :func:`~puretree.splits.random_threshold_splits`),
    keyed by ``seed``; in histogram mode drawn between the edges of the node's lowest and highest
    bins holding a row and moved down to an edge
    (:func:`~puretree.growth.histograms.random_thresholds`, the tree :mod:`puretree.dask` grows
    from the same edges; ``missing="learn"``: each cut's missing side drawn, in memory too; ``monotonic_cst``: a drawn cut outside the node's bounds not taken; see ``docs/sizes.md``).

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
    cfg = Settings(chosen, _check_splitters(splitters), opts["max_depth"], opts["min_samples_split"], opts["min_samples_leaf"], opts["min_gain"], _checked_accept(accept), missing, _is_builtin(chosen))
    key = _seed_key(seed)
    if max_features is not None:
        cfg = attrs.evolve(cfg, max_features=resolve_max_features(max_features, ds.schema.n_features), feature_key=key)

    engine, kernel = _engine_chosen(engine)
    monotonic = _monotonic_constraints(monotonic_cst, ds)
    if monotonic is not None:
        cfg = attrs.evolve(cfg, monotonic=True)
    cfg, sized = _sizes(cfg, ds, min_weight_fraction_leaf=min_weight_fraction_leaf, min_impurity_decrease=min_impurity_decrease, max_leaf_nodes=max_leaf_nodes, splitter=splitter, seed_key=key)
    if splitter == "random" and engine in ("auto", "fast") and kernel != "never" and max_bins is None and bins is None and monotonic is None and missing not in ("learn", "surrogate") and not getattr(accept, "wants_context", False):
        # The random splitter's tree in C (growth.random_cuts), the reference's draws and rules; None: the reference grows it.
        grown = random_cuts.build(ds, cfg)
        if grown is not None:
            tree = attrs.evolve(Tree(grown, ds.schema, missing), criterion="gini")
            return data_thresholds(tree, ds.X) if threshold == "data" else tree
    random_bins = splitter == "random" and (max_bins is not None or bins is not None)  # grown on the histograms (_random_binned)
    refused = _reference_only(cfg, ds, min_weight_fraction_leaf=min_weight_fraction_leaf, splitter="best" if random_bins else splitter) if sized and not (random_bins and sized.startswith("splitter=")) else ""
    if refused:
        # These are specified in the recursive builder; the level-wise engines do not take them yet.
        if engine == "fast":
            raise ParameterError(f"{refused} is grown by the reference builder only for now: the level-wise engines (engine='fast', 'c' or 'numpy') do not take it; use engine='auto' or 'reference'")
        if max_bins is not None or bins is not None:
            raise ParameterError(f"{refused} is grown by the reference builder only for now, and histogram mode (max_bins, bins) needs the level-wise engine")
        engine = "reference"
    if isinstance(chosen, PoissonDecrease):
        engine = _poisson_engine(ds, engine, max_bins, bins)
    if isinstance(chosen, AbsoluteErrorDecrease):
        engine = _absolute_error_engine(ds, engine, max_bins, bins, missing)
        if not any(s is threshold_splits for s in cfg.splitters):
            raise ParameterError(f"criterion 'absolute_error' scores the threshold splits that threshold_splits makes (grow, cart); these split generators ({', '.join(score_name(s) for s in cfg.splitters)}) do not use it")
        cfg = attrs.evolve(cfg, splitters=tuple(absolute_error_splits if s is threshold_splits else s for s in cfg.splitters))
    if missing == "surrogate":
        if sized or monotonic is not None:
            raise ParameterError(f"missing='surrogate' grows rpart's tree, whose controls are not scikit-learn's size options or monotonic constraints; got {sized or 'monotonic_cst'}")
        return _surrogate_tree(ds, chosen, cfg, engine, max_bins, bins, max_features, accept, splitters, threshold)
    if random_bins:
        return _random_binned(ds, cfg, chosen, engine=engine, kernel=kernel, max_bins=max_bins, bins=bins, monotonic=monotonic, progress=progress, threshold=threshold)
    if missing == "learn" and not any(s is random_threshold_splits for s in cfg.splitters):  # the random splitter draws its side itself
        # The learned side: splits.learned_threshold_splits in the recursive builder, growth.bounds on the sorted source.
        if not any(s is threshold_splits for s in cfg.splitters):
            raise ParameterError(f"missing='learn' learns the side of the threshold splits that threshold_splits makes (grow, id3, cart); these split generators ({', '.join(score_name(s) for s in cfg.splitters)}) do not use it")
        cfg = attrs.evolve(cfg, splitters=tuple(learned_threshold_splits if s is threshold_splits else s for s in cfg.splitters))
    max_bins = check_options(max_bins=max_bins)["max_bins"]
    check("progress", progress, *GROW_CONSTRAINTS["progress"])
    bounded = _bounded_engine(ds, cfg, engine, kernel, monotonic=monotonic, missing=missing) if monotonic is not None or missing == "learn" else False
    # max_leaf_nodes, min_impurity_decrease: the frontier loop reads them off its full tree
    sizes = Sizes(cfg.max_leaf_nodes, cfg.min_impurity_decrease, cfg.total_weight) if cfg.max_leaf_nodes is not None or cfg.min_impurity_decrease > 0 else None
    if bins is not None:
        if max_bins is not None:
            raise ParameterError("give bins= (the bin edges) or max_bins= (compute them), not both")
        bins = fast.check_bins(bins, ds.schema)
    histogram_X = None
    if isinstance(chosen, AbsoluteErrorDecrease) and (max_bins is not None or bins is not None):
        # Histogram mode: the recursive builder grows on the binned values, and each cut moves
        # down to its bin's value (data_thresholds over them), where the sorted source puts it.
        ds = attrs.evolve(ds, X=_binned_columns(ds, max_bins, bins))
        histogram_X, max_bins, bins = ds.X, None, None
    # A user's score is checked node by node (CheckedScore names the node), which the
    # recursive builder does; "auto" keeps the level-wise engine for the built-in scores.
    # The level-wise engine hands accept the statistics only: a hook that wants the node's rows
    # grows with the recursive builder.
    level_wise = engine == "fast"
    if getattr(accept, "wants_context", False) and level_wise:
        raise ParameterError(f"accept={score_name(accept)} needs each node's rows, which engine='fast', 'c' or 'numpy' does not hand it; use engine='auto' or 'reference'")
    use_engine = monotonic is None and fast.supports(cfg.splitters) and not getattr(accept, "wants_context", False) and (level_wise or (engine == "auto" and (cfg.trusted or max_bins is not None or bins is not None)))
    if bounded:  # monotonic constraints, a learned side: the sorted source's own search (growth.bounds)
        plain = attrs.evolve(cfg, splitters=tuple(threshold_splits if s is learned_threshold_splits else s for s in cfg.splitters))
        grown = fast.build(ds, plain, max_bins=max_bins, bins=bins, progress=progress, kernel=kernel, monotonic=monotonic, learn=missing == "learn", sizes=sizes)
        tree = Tree(grown, ds.schema, "majority" if missing == "learn" else missing)
    elif use_engine:
        if not cfg.trusted:
            cfg = attrs.evolve(cfg, score=CheckedScore(cfg.score, 0, ds.n_rows, task))
        grown = fast.build(ds, cfg, max_bins=max_bins, bins=bins, progress=progress, kernel=kernel, sizes=sizes)
        tree = Tree(grown, ds.schema, missing)
    else:
        if max_bins is not None or bins is not None:
            raise ParameterError(f"max_bins or bins (histogram mode) needs the fast engine and the built-in split generators (engine={engine!r})")
        if level_wise:
            raise ParameterError(f"the level-wise engines (engine='fast', 'c' or 'numpy') know only the built-in split generators, got {list(cfg.splitters)!r}; use engine='auto' or 'reference'")
        if not ds.schema.is_regression:  # rows x classes statistics: refused before they are made
            check_rows_by_classes(ds.n_rows, len(ds.schema.classes))
        root = root_data(ds, missing=missing)
        if cfg.max_features is not None or random_threshold_splits in cfg.splitters:  # the nodes' paths key their draws
            root = attrs.evolve(root, path=())
        if monotonic is not None:
            root = attrs.evolve(root, monotonic=monotonic)
        grown = _grow_best_first(root, cfg, progress) if cfg.max_leaf_nodes is not None else run(_grow(root, cfg, progress))
        # A learned tree's threshold splits carry their side; its other splits send a missing value down the heaviest branch.
        if isinstance(chosen, AbsoluteErrorDecrease):  # the leaves predict the weighted median
            grown = median_statistics(grown, ds.X, np.asarray(ds.y, dtype=np.float64), np.ones(ds.n_rows) if ds.sample_weight is None else ds.sample_weight)
        tree = Tree(grown, ds.schema, "majority" if missing == "learn" else missing)
    # The impurity it was grown with, which cost-complexity pruning measures it by (None: a user's).
    impurity: Any = getattr(chosen, "impurity", None)
    tree = attrs.evolve(tree, criterion=impurity.__name__ if any(impurity is f for f in (entropy, gini, misclassification, variance)) else None)
    if histogram_X is not None:
        tree = data_thresholds(tree, histogram_X)
    return data_thresholds(tree, ds.X) if threshold == "data" else tree


def _binned_columns(ds: Dataset, max_bins: int | None, bins: Any) -> np.ndarray:
    """``ds.X`` with each numeric value replaced by its bin's, as histogram mode bins it:
    :func:`~puretree.growth.engine.quantile_bins` into ``max_bins``, or the bins' upper edges
    given (``bins``, checked: :func:`~puretree.growth.engine.edge_bins`); categorical codes kept.

    >>> from puretree.data import from_numpy
    >>> _binned_columns(from_numpy(np.array([[0.5], [1.5], [2.5]]), [0.0, 1.0, 2.0], task="regression"), None, (np.array([1.0, 2.0]),)).ravel().tolist()
    [1.0, 2.0, 2.0]
    """
    X = ds.X.copy()
    for j, f in enumerate(ds.schema.features):
        if f.is_numeric:
            X[:, j] = fast.quantile_bins(X[:, j], max_bins) if max_bins is not None else fast.edge_bins(X[:, j], bins[j])
    return X


#: Cells (rows x features) from which histogram mode's random cuts sum their histograms in threads.
_THREADED_CELLS = 1 << 20


def _random_binned(ds: Dataset, cfg: Settings, chosen: Score, *, engine: str, kernel: str, max_bins: Any, bins: Any, monotonic: Any, progress: Any, threshold: str) -> Tree:
    """``splitter="random"`` in histogram mode (``max_bins``, ``bins``): the histogram source's
    random cuts (:func:`puretree.growth.histograms.random_thresholds`, drawn by
    :func:`puretree.growth.random_draw.bin_cuts`), the tree :mod:`puretree.dask` grows from the
    same edges; ``max_leaf_nodes`` and ``min_impurity_decrease`` read off the full tree (a
    node's cut depends on its path only, not on the order nodes are split in)."""
    from .growth import histograms

    why = (
        "engine='reference' grows without bins" if engine == "reference"
        else "missing='distribute' sends a row down several branches; use 'majority', 'learn' or 'error'" if cfg.missing == "distribute"
        else "accept= hooks are the recursive builder's" if cfg.accept is not None
        else "missing='learn' learns the side of threshold splits on numeric features, and the data has a categorical one (as with splitter='best')" if cfg.missing == "learn" and not all(f.is_numeric for f in ds.schema.features)
        else f"the split generators must be the built-in ones, got {', '.join(score_name(s) for s in cfg.splitters)}" if not all(any(s is b for b in (random_threshold_splits, subset_splits, multiway_splits)) for s in cfg.splitters)
        else None
    )
    if why is not None:
        raise ParameterError(f"splitter='random' with histogram mode (max_bins, bins) grows the random cuts on the histograms: {why}")
    max_bins = check_options(max_bins=max_bins)["max_bins"]
    check("progress", progress, *GROW_CONSTRAINTS["progress"])
    if bins is not None:
        if max_bins is not None:
            raise ParameterError("give bins= (the bin edges) or max_bins= (compute them), not both")
        bins = fast.check_bins(bins, ds.schema)
    if kernel == "required":
        from .growth.sorted import refuse_compiled

        refuse_compiled(True)
    if cfg.missing == "error":
        refuse_missing(ds)
    if not cfg.trusted:
        cfg = attrs.evolve(cfg, score=CheckedScore(cfg.score, 0, ds.n_rows, as_task(ds.schema)))
    kinds = tuple("multiway" if s is multiway_splits else "subset" if s is subset_splits else "threshold" for s in cfg.splitters)
    binned = None if max_bins is None else (lambda column, j: fast.quantile_bins(column, max_bins))
    learn = cfg.missing == "learn"
    # a small fit's histograms cost less than starting threads for them (an ensemble grows its members in threads)
    threads = 1 if ds.X.size < _THREADED_CELLS else os.cpu_count() or 1
    sizes = Sizes(cfg.max_leaf_nodes, cfg.min_impurity_decrease, cfg.total_weight) if cfg.max_leaf_nodes is not None or cfg.min_impurity_decrease > 0 else None
    grown = histograms.grow_binned(ds, cfg, kinds, binned, edges=bins, compiled=False if kernel == "never" else None, threads=threads, progress=progress, random=cfg.feature_key, learn=learn, sizes=sizes, monotonic=monotonic)
    impurity: Any = getattr(chosen, "impurity", None)
    tree = Tree(grown, ds.schema, "majority" if learn else cfg.missing, criterion=impurity.__name__ if any(impurity is f for f in (entropy, gini, misclassification, variance)) else None)
    return data_thresholds(tree, ds.X) if threshold == "data" else tree


def visited_regression_tree(ds: Dataset, *, visit: Callable[[NodeData], Candidate | None] | None, max_depth: int | None, min_samples_split: float = 2, min_samples_leaf: float = 1, min_impurity_decrease: float = 0.0) -> Tree:
    """A variance (squared error) regression tree of ``ds`` (numeric features, no missing
    value; rows of weight 0 are left out, as scikit-learn's splitter leaves them out) grown by
    this recursive builder, each node's split found by ``visit``
    (:attr:`~puretree.splits.Settings.visit`, e.g. scikit-learn's splitter replayed,
    :class:`~puretree.splits.SklearnSplitter`; None: :func:`~puretree.splits.threshold_splits`,
    ties to the lowest feature). Gradient boosting grows its stages with it.

    >>> from puretree.data import from_numpy
    >>> ds = from_numpy(np.array([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]]), [0.0, 0.0, 1.0], task="regression")
    >>> visited_regression_tree(ds, visit=None, max_depth=1).root.feature
    0
    >>> from puretree.splits import SklearnSplitter
    >>> visited_regression_tree(ds, visit=SklearnSplitter.seeded(2, seed=7, max_depth=1), max_depth=1).root.feature
    1
    """
    opts = check_options(max_depth=max_depth, min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf, min_impurity_decrease=min_impurity_decrease)
    if ds.sample_weight is not None and not (ds.sample_weight > 0).all():
        ds = ds.subset(ds.sample_weight > 0)
    score = _score_for("variance", as_task(ds.schema))
    cfg = Settings(score, (threshold_splits,), opts["max_depth"], opts["min_samples_split"], opts["min_samples_leaf"], None, None, "error", True, visit=visit, min_impurity_decrease=opts["min_impurity_decrease"], total_weight=float(node_statistics(ds)[:, 0].sum()))
    root = attrs.evolve(root_data(ds, missing="error"), path=())
    return Tree(run(_grow(root, cfg)), ds.schema, "majority", criterion="variance")


def _check_poisson_targets(ds: Dataset) -> None:
    """scikit-learn's refusals for ``criterion="poisson"``: a negative target (named by its row),
    or targets whose sum is not positive."""
    y = np.asarray(ds.y, dtype=np.float64)
    negative = np.flatnonzero(y < 0)
    if negative.size:
        raise DataError(f"criterion 'poisson' needs non-negative targets: row {int(negative[0])} has y = {float(y[negative[0]])!r}")
    if not y.sum() > 0:
        raise DataError(f"criterion 'poisson' needs targets with a positive sum; they sum to {float(y.sum())!r}")


def _poisson_engine(ds: Dataset, engine: str, max_bins: Any, bins: Any) -> str:
    """The engine that grows a Poisson tree, after the targets are checked: the level-wise
    engine's sorted source (numpy: its scan scores each cut from the running sums of weight and
    target, as the reference does; in histogram mode on the binned values) or the recursive builder."""
    _check_poisson_targets(ds)
    return engine


def _absolute_error_engine(ds: Dataset, engine: str, max_bins: Any, bins: Any, missing: str) -> str:
    """The engine that grows an absolute-error tree: the recursive builder, on data without
    missing values (scikit-learn's absolute error refuses them too); in histogram mode
    (``max_bins``, ``bins``) on the binned values (:func:`_binned_columns`)."""
    if engine == "fast":
        raise ParameterError("criterion 'absolute_error' is grown by the reference builder only for now: the level-wise engines (engine='fast', 'c' or 'numpy') do not take it; use engine='auto' or 'reference'")
    holes = np.argwhere(np.isnan(ds.X))
    if holes.size:
        r, j = (int(v) for v in holes[0])
        raise DataError(f"criterion 'absolute_error' does not take missing values (as scikit-learn's): row {r}, column {ds.schema.feature_names[j]!r} is missing")
    return "reference"


def _bounded_engine(ds: Dataset, cfg: Settings, engine: str, kernel: str, *, monotonic: Any, missing: str) -> bool:
    """Whether the level-wise engine grows a fit with ``monotonic_cst`` or ``missing="learn"``
    (:mod:`puretree.growth.bounds`, its scan compiled where it applies): where :func:`puretree.growth.bounds.applies`, without
    the compiled kernel insisted on (``min_weight_fraction_leaf`` it holds); ``engine="fast"`` (``"numpy"``) refuses
    what it cannot grow, ``"auto"`` grows it with the recursive builder."""
    from .growth.bounds import applies

    plain = tuple(threshold_splits if s is learned_threshold_splits else s for s in cfg.splitters)
    named = "monotonic_cst" if monotonic is not None else "missing='learn'"
    if engine == "reference":
        return False
    if kernel == "required":
        if engine == "fast":
            raise ParameterError(f"{named} is grown by numpy on the level-wise engine, not by the compiled kernel: use engine='auto', 'numpy' or 'reference'")
        return False
    kinds = tuple("threshold" if s is threshold_splits else "subset" if s is subset_splits else "multiway" if s is multiway_splits else "other" for s in plain)
    grows = applies(ds, cfg, kinds, missing) and not isinstance(cfg.score, (PoissonDecrease, AbsoluteErrorDecrease))
    if not grows and engine == "fast":
        raise ParameterError(f"{named} is grown by the level-wise engine (engine='fast' or 'numpy') for threshold splits on numeric features with a built-in score and missing='learn', 'majority' or 'error'; use engine='auto' or 'reference'")
    return grows


def _reference_only(cfg: Settings, ds: Dataset, *, min_weight_fraction_leaf: Any, splitter: Any) -> str:
    """The size option that only the recursive builder grows (``""``: none): the random splitter
    changes which split a node takes (the level-wise engines' choosers do not know it). (The
    weight bound, ``min_weight_fraction_leaf``, every chooser holds:
    :func:`puretree.growth.choose.heavy_enough`; ``max_leaf_nodes`` and ``min_impurity_decrease``
    are read off the improvements recorded as the splits are chosen.)"""
    if splitter == "random":
        return "splitter='random'"
    return ""


def _sizes(cfg: Settings, ds: Dataset, *, min_weight_fraction_leaf: Any, min_impurity_decrease: Any, max_leaf_nodes: Any, splitter: Any, seed_key: tuple[int, ...]) -> tuple[Settings, str]:
    """``cfg`` with scikit-learn's size controls (checked), and the name of the first one in use
    (``""``: none, the tree grows as without them)."""
    opts = check_all(GROW_CONSTRAINTS, min_weight_fraction_leaf=min_weight_fraction_leaf, min_impurity_decrease=min_impurity_decrease, max_leaf_nodes=max_leaf_nodes, splitter=splitter)
    used = [name for name, off in (("min_weight_fraction_leaf", 0.0), ("min_impurity_decrease", 0.0), ("max_leaf_nodes", None), ("splitter", "best")) if opts[name] != off]
    if not used:
        return cfg, ""
    if opts["splitter"] == "random":
        if not any(s is threshold_splits for s in cfg.splitters):
            raise ParameterError(f"splitter='random' draws the thresholds that threshold_splits finds (grow, id3, cart); these split generators ({', '.join(score_name(s) for s in cfg.splitters)}) do not use it")
        cfg = attrs.evolve(cfg, splitters=tuple(random_threshold_splits if s is threshold_splits else s for s in cfg.splitters), feature_key=seed_key)
    if opts["min_weight_fraction_leaf"] > 0 and not all(getattr(s, "weighs_leaves", False) or any(s is b for b in (threshold_splits, multiway_splits, subset_splits, random_threshold_splits)) for s in cfg.splitters):
        raise ParameterError(f"min_weight_fraction_leaf is applied by the built-in split generators (threshold_splits, multiway_splits, subset_splits, c45_splits) only; got {', '.join(score_name(s) for s in cfg.splitters)}")
    total = float(np.sum(ds.sample_weight)) if ds.sample_weight is not None else float(ds.n_rows)
    cfg = attrs.evolve(cfg, min_weight_leaf=opts["min_weight_fraction_leaf"] * total, min_impurity_decrease=opts["min_impurity_decrease"], total_weight=total, max_leaf_nodes=opts["max_leaf_nodes"])
    return cfg, f"{used[0]}={opts[used[0]]!r}"


def _surrogate_tree(ds: Dataset, score: Score, cfg: Settings, engine: str, max_bins: Any, bins: Any, max_features: Any, accept: Any, splitters: Any, threshold: str) -> Tree:
    """``missing="surrogate"``: rpart's tree with its surrogate splits (:mod:`puretree.surrogates`)."""
    from .surrogates import grow_rpart

    why = (
        "the level-wise engines (engine='fast', 'c' or 'numpy') do not build surrogates; use engine='auto' or 'reference'" if engine == "fast"
        else "histogram mode (max_bins, bins) is the level-wise engine's" if max_bins is not None or bins is not None
        else "max_features (random forests) is not rpart's" if max_features is not None
        else "accept= hooks are not rpart's" if accept is not None
        else "threshold='data' places cuts as J48 does, rpart cuts at midpoints" if threshold != "midpoint"
        else "rpart's binary splits are cart's splitters (threshold_splits, subset_splits): use cart (algorithm='cart' in the estimators and the command line)" if tuple(splitters) != (threshold_splits, subset_splits)
        else None
    )
    if why is not None:
        raise ParameterError(f"missing='surrogate' is grown by the reference builder as rpart grows it: {why}")
    impurity = "gini" if score == SCORES["gini"] else "information" if score == SCORES["information_gain"] else None
    if ds.schema.is_regression:
        raise ParameterError("missing='surrogate' grows rpart's classification tree (method='class'); this data has a numeric target")
    if impurity is None or cfg.min_gain is not None:
        raise ParameterError(f"missing='surrogate' grows rpart's classification tree, scored by 'gini' or 'information_gain' without min_gain; got score={score_name(score)}" + (f", min_gain={cfg.min_gain}" if cfg.min_gain is not None else ""))
    root = grow_rpart(ds, impurity=impurity, max_depth=cfg.max_depth, min_samples_split=cfg.min_samples_split, min_samples_leaf=cfg.min_samples_leaf)
    return Tree(root, ds.schema, "majority", criterion="gini" if impurity == "gini" else "entropy")


#: What each ``engine`` means: the builder (``"auto"``: the level-wise engine where it knows the
#: splitters, else the recursive one; ``"fast"``: the level-wise engine or an error; ``"reference"``:
#: the recursive builder) and the compiled kernel's part (:func:`puretree.growth.engine.build`'s ``kernel``).
_ENGINE_MEANS = {"auto": ("auto", "auto"), "fast": ("fast", "auto"), "c": ("fast", "required"), "numpy": ("fast", "never"), "reference": ("reference", "auto")}
#: What ``$PURETREE_ENGINE`` makes of ``engine="auto"``: a preference that never refuses a fit the
#: default grows, save ``"c"``, which insists on the kernel wherever the level-wise engine grows.
_ENVIRONMENT_MEANS = {"auto": ("auto", "auto"), "fast": ("fast", "auto"), "c": ("auto", "required"), "numpy": ("auto", "never"), "reference": ("reference", "auto")}


def _engine_chosen(engine: Any) -> tuple[str, str]:
    """``engine`` checked, as (builder, kernel) (see ``_ENGINE_MEANS``); ``"auto"`` is
    ``$PURETREE_ENGINE``'s choice where that is set.

    >>> import os
    >>> from unittest import mock
    >>> with mock.patch.dict(os.environ, {"PURETREE_ENGINE": "numpy"}):
    ...     _engine_chosen("auto"), _engine_chosen("c")
    (('auto', 'never'), ('fast', 'required'))
    """
    from .growth.engine import ENGINES

    check("engine", engine, Options(ENGINES))
    chosen = os.environ.get("PURETREE_ENGINE", "").strip()
    if engine != "auto" or not chosen:
        return _ENGINE_MEANS[engine]
    if chosen not in ENGINES:
        raise ParameterError(f"the environment variable PURETREE_ENGINE must be one of {', '.join(ENGINES)}, not {chosen!r}")
    return _ENVIRONMENT_MEANS[chosen]


def _monotonic_constraints(monotonic_cst: Any, ds: Dataset) -> np.ndarray | None:
    """``monotonic_cst`` checked against the data, as the builder enforces it (None: no constraint).

    One of -1, 0, +1 per feature, on the probability of the second class (two classes) or on
    the prediction (regression); as scikit-learn builds it, a classification constraint is held
    on the first class's share, so its directions are flipped here.

    >>> from puretree.data import from_numpy
    >>> _monotonic_constraints([1, -1, 0], from_numpy(np.zeros((2, 3)), ["a", "b"])).tolist()
    [-1, 1, 0]
    >>> _monotonic_constraints([2, 0, 0], from_numpy(np.zeros((2, 3)), ["a", "b"]))
    Traceback (most recent call last):
    ...
    puretree.errors.ParameterError: monotonic_cst for feature 'x0' must be -1, 0 or 1, got 2
    """
    return monotonic_directions(monotonic_cst, ds.schema)


def monotonic_directions(monotonic_cst: Any, schema: Any) -> np.ndarray | None:
    """``monotonic_cst`` checked against the data's ``schema`` (a :class:`~puretree.nodes.Schema`),
    the directions the engines hold (flipped for two classes), as :func:`grow` checks it; None:
    no constraint. :mod:`puretree.dask` checks it with this too.

    >>> from puretree.nodes import Feature, Schema
    >>> monotonic_directions([1], Schema((Feature("a"),), ("n", "y"))).tolist()
    [-1]
    """
    if monotonic_cst is None:
        return None
    if isinstance(monotonic_cst, (str, bytes)) or not isinstance(monotonic_cst, Iterable):
        raise ParameterError(f"monotonic_cst must be a sequence of -1, 0 or 1, one per feature, got {monotonic_cst!r}")
    given = list(monotonic_cst)
    features = schema.features
    if len(given) != len(features):
        raise ParameterError(f"monotonic_cst has {len(given)} entries but the data has {len(features)} features")
    out = np.zeros(len(given), dtype=np.int64)
    for j, (f, v) in enumerate(zip(features, given)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer, float, np.floating)) or v not in (-1, 0, 1):
            raise ParameterError(f"monotonic_cst for feature {f.name!r} must be -1, 0 or 1, got {v!r}")
        if v != 0 and not f.is_numeric:
            raise ParameterError(f"monotonic_cst for feature {f.name!r}: a monotonic constraint needs a numeric feature, and {f.name!r} is categorical")
        out[j] = int(v)
    if not schema.is_regression:
        if len(schema.classes) > 2:
            raise ParameterError(f"monotonic_cst needs a regression or a two-class target, as scikit-learn's; this target has {len(schema.classes)} classes")
        out = -out  # held on the first class's share: the opposite direction
    return out


def _seed_key(seed: Any) -> tuple[int, ...]:
    """``seed`` as the key of the per-node generators: an integer, or a tuple of them."""
    parts = seed if isinstance(seed, tuple) else (seed,)
    if not parts or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 0 for v in parts):
        raise ParameterError(f"seed must be a non-negative integer (or a tuple of them), got {seed!r}")
    return tuple(int(v) for v in parts)


def data_thresholds(tree: Tree, X: np.ndarray) -> Tree:
    """Every numeric threshold moved down to the largest value of its feature in ``X`` (the
    training data, encoded) that is not above it, as J48's ``setSplitPoint`` does. A midpoint
    lies between two values of the node's rows and no row of the node lies between the two,
    so every training row takes the same branch; unseen values between them may not.

    >>> from puretree.nodes import Feature, Schema, Threshold
    >>> t = Tree(Split(0, Threshold(54.0), (Leaf((2.0, 0.0)), Leaf((0.0, 3.0))), (2.0, 3.0)), Schema((Feature("t"),), ("n", "y")))
    >>> data_thresholds(t, np.array([[40.0], [48.0], [60.0], [72.0], [80.0]])).root.test
    Threshold(value=48.0)
    """
    X = np.asarray(X, dtype=np.float64) if not isinstance(X, np.ndarray) or X.dtype != np.float64 else X
    if X.ndim != 2 or X.shape[1] != tree.schema.n_features:
        raise DataError(f"data_thresholds needs the encoded training matrix, rows x {tree.schema.n_features} features; got shape {X.shape}")
    columns = {j: np.sort(X[:, j][~np.isnan(X[:, j])]) for j, f in enumerate(tree.schema.features) if f.is_numeric}

    def rule(node: Node) -> Node | None:
        if not isinstance(node, Split):
            return None
        test = node.test.at_data(columns.get(node.feature))
        return None if test is node.test else attrs.evolve(node, test=test)

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


def attribute_scores(X: Any, y: Any = None, *, score: Score | str | ByTask = ByTask("information_gain", "variance"), splitters: Sequence[SplitGenerator] = (threshold_splits, multiway_splits), **data_options: Unpack[DataOptions]) -> dict[str, float]:
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


def _preset(name: str, doc: str, **defaults: Any) -> Grower:
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
    "A missing value goes down the heaviest branch (missing='majority'); missing='surrogate' grows rpart's tree with its surrogate splits.",
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
