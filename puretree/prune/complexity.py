"""CART's minimal cost-complexity pruning: the weakest-link path, pruning at an alpha, and
choosing alpha (on held-out rows or by cross-validation); cross-validated control of a tree's
size (:func:`cv_prune`, CART's 1-SE rule; :func:`cv_depth`, growth that stops when
cross-validated accuracy worsens). The path equals scikit-learn's
``cost_complexity_pruning_path`` on the same tree.

A node's risk is measured with an impurity: by default the one the tree records as its
``criterion`` (a tree grown with entropy is pruned with entropy), else Gini; a regression tree
always uses the variance (:func:`risk_impurity`).

>>> from puretree.datasets import load_temperature
>>> from puretree.grow import cart
>>> tree = cart(load_temperature())
>>> cost_complexity_path(tree).ccp_alphas.tolist(), cost_complexity(tree, 0.3).root
([0.0, 0.25], Leaf(stats=(3.0, 3.0)))
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import attrs
import numpy as np

from ..builder import cart, id3
from ..data import Dataset, as_dataset, encode_features, labels_array
from ..errors import DataError, ParameterError
from ..evaluate import accuracy, stratified_folds
from ..flat import LEAF, FlatTree, descend, flatten, normalised_fractions
from ..fold import depth as tree_depth, subtree_sizes, subtree_sums
from ..impurity import entropy, gini, misclassification, variance
from ..params import Interval, check
from .rewrites import collapse
from ..tree import Tree
from ..validation import training_dataset

__all__ = [
    "IMPURITIES",
    "risk_impurity",
    "CostComplexityPath",
    "cost_complexity_path",
    "cost_complexity",
    "best_alpha_on",
    "AlphaChoice",
    "choose_alpha",
    "path_outputs",
    "CVPruning",
    "cv_prune",
    "DepthChoice",
    "cv_depth",
    "cut_at_depth",
]

#: The impurity that measures a node's risk, by the criterion name a tree records
#: (``log_loss`` is scikit-learn's other name for entropy).
IMPURITIES: dict[str, Callable[..., Any]] = {"gini": gini, "entropy": entropy, "log_loss": entropy, "misclassification": misclassification}


def risk_impurity(tree: Tree, impurity: Callable[..., Any] | None = None) -> Callable[..., Any]:
    """The impurity cost-complexity measures ``tree``'s nodes with: the variance for a
    regression tree; else ``impurity`` when given; else the impurity named by the tree's
    recorded ``criterion`` (see :data:`IMPURITIES`); else Gini (a tree that records none, or
    a name not in :data:`IMPURITIES`).

    >>> from puretree.datasets import load_playtennis
    >>> from puretree.grow import cart
    >>> tree = cart(load_playtennis())
    >>> risk_impurity(tree) is gini, risk_impurity(tree, entropy) is entropy
    (True, True)
    """
    if tree.schema.is_regression:
        return variance
    if impurity is not None:
        return impurity
    # A name it does not know (a hand-edited model file) counts as none: models are untrusted
    # input, and every command must finish on any model that loads.
    return IMPURITIES.get(str(getattr(tree, "criterion", None)), gini)


@attrs.frozen(eq=False)
class CostComplexityPath:
    """The weakest-link sequence: after step ``i``, the tree has total leaf impurity
    ``impurities[i]`` and ``n_leaves[i]`` leaves; ``ccp_alphas[i]`` is the effective alpha at
    which that step happens (step 0 is the full tree, alpha 0). ``pruned[i - 1]`` is the
    pre-order id of the node made a leaf at step ``i``. Names follow scikit-learn.
    """

    ccp_alphas: np.ndarray
    impurities: np.ndarray
    n_leaves: np.ndarray
    pruned: tuple[int, ...]


def _sklearn_impurity(counts: np.ndarray, impurity: Callable[..., Any]) -> tuple[np.ndarray, np.ndarray]:
    """Node weights and impurities; Gini and entropy written as scikit-learn's criteria compute
    them, operation for operation, so that weakest links whose alphas tie in exact arithmetic
    are ordered the same way. Any other impurity is called as it is."""
    weight = counts[:, 0].copy()
    for c in range(1, counts.shape[1]):
        weight += counts[:, c]
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if impurity is gini:
            squares = counts[:, 0] * counts[:, 0]
            for c in range(1, counts.shape[1]):
                squares += counts[:, c] * counts[:, c]
            values = 1.0 - squares / (weight * weight)
            # Counts beyond about 1e154 overflow the squares (a model from a file may hold
            # them): there Gini is taken from the proportions, which cannot overflow.
            values = np.where(np.isfinite(values), values, gini(counts))
        elif impurity is entropy:
            values = np.zeros(len(weight))
            for c in range(counts.shape[1]):
                p = counts[:, c] / weight
                values -= np.where(counts[:, c] > 0, p * (np.log(np.where(p > 0, p, 1.0)) / math.log(2.0)), 0.0)
        else:
            values = np.asarray(impurity(counts), dtype=np.float64)
    return weight, np.where(weight > 0, values, 0.0)


def _node_risk(tree: Tree, impurity: Callable[..., Any] | None) -> tuple[FlatTree, np.ndarray]:
    """``R(t) = impurity(t) * weight(t) / total weight``, scikit-learn's definition."""
    flat = flatten(tree)
    counts = flat.stats
    if tree.schema.is_regression:
        weight, values = counts[:, 0], variance(counts)
    else:
        weight, values = _sklearn_impurity(counts, risk_impurity(tree, impurity))
    total = weight[0]
    if total <= 0:
        raise DataError("the tree's root has zero weight: nothing to measure")
    return flat, weight * values / total


def cost_complexity_path(tree: Tree, *, impurity: Callable[..., Any] | None = None) -> CostComplexityPath:
    """The minimal cost-complexity pruning path, equal to scikit-learn's
    ``cost_complexity_pruning_path`` on the same tree. ``impurity`` measures a node's risk;
    by default the tree's recorded criterion, else Gini (scikit-learn's default criterion):
    :func:`risk_impurity`. Pass the one the tree was grown with (``entropy`` for
    ``criterion="entropy"``, C4.5, ID3) when the tree does not record it. Regression trees use
    the variance.

    At each step the internal node with the smallest effective alpha
    ``(R(t) - R(T_t)) / (leaves(T_t) - 1)`` is pruned (ties: the first in pre-order, as
    scikit-learn's depth-first node order).

    >>> from puretree.datasets import load_temperature
    >>> from puretree.grow import cart
    >>> path = cost_complexity_path(cart(load_temperature()))
    >>> path.ccp_alphas.tolist(), path.impurities.tolist(), path.n_leaves.tolist()
    ([0.0, 0.25], [0.0, 0.5], [3, 1])
    """
    flat, risk = _node_risk(tree, impurity)
    n = flat.n_nodes
    ids = np.arange(n)
    is_leaf = flat.kind == LEAF
    leaves = subtree_sums(flat.parent, is_leaf.astype(np.int64))
    end = ids + subtree_sizes(flat.parent)
    # R(T_t) summed leaf by leaf in pre-order, as scikit-learn does: the same rounding gives
    # the same choice between weakest links whose alphas tie in exact arithmetic.
    leaf_risk = np.where(is_leaf, risk, 0.0)
    branch = np.array([np.cumsum(leaf_risk[i : end[i]])[-1] for i in range(n)])
    candidate = ~is_leaf
    alphas, impurities, counts, pruned = [0.0], [float(branch[0])], [int(leaves[0])], []
    with np.errstate(divide="ignore", invalid="ignore"):
        while candidate[0]:
            alpha = np.where(candidate, (risk - branch) / (leaves - 1), np.inf)
            i = int(np.argmin(alpha))
            candidate[i:end[i]] = False
            ancestors = (ids < i) & (end > i)
            leaves[ancestors] -= leaves[i] - 1
            branch[ancestors] += risk[i] - branch[i]
            branch[i], leaves[i] = risk[i], 1
            alphas.append(float(alpha[i]))
            impurities.append(float(branch[0]))
            counts.append(int(leaves[0]))
            pruned.append(i)
    return CostComplexityPath(np.array(alphas), np.array(impurities), np.array(counts), tuple(pruned))


def _check_alpha(alpha: Any) -> float:
    # Infinity is a fair alpha: it prunes to the root.
    return check("alpha", alpha, Interval(float, 0, None, finite=False))


def cost_complexity(tree: Tree, alpha: float, *, path: CostComplexityPath | None = None, impurity: Callable[..., Any] | None = None) -> Tree:
    """The tree pruned at complexity ``alpha``: the weakest-link steps whose effective alpha
    is at most ``alpha`` are applied (scikit-learn's ``ccp_alpha``). A larger alpha never gives
    a larger tree. Pass a ``path`` computed before to prune one tree at many alphas cheaply;
    ``impurity`` is :func:`cost_complexity_path`'s.
    """
    alpha = _check_alpha(alpha)
    path = cost_complexity_path(tree, impurity=impurity) if path is None else path
    steps = 0
    while steps < len(path.pruned) and not path.ccp_alphas[steps + 1] > alpha:
        steps += 1
    return collapse(tree, path.pruned[:steps])


def best_alpha_on(tree: Tree, X: Any, y: Any = None, *, impurity: Callable[..., Any] | None = None) -> float:
    """The alpha of the cost-complexity path whose pruned tree is most accurate on held-out
    rows ``X``, ``y`` (a labelled :class:`~puretree.data.Dataset` needs no ``y``); ties go to
    the larger alpha, the smaller tree. ``impurity`` is :func:`cost_complexity_path`'s.

    >>> from puretree.datasets import load_playtennis
    >>> from puretree.grow import cart
    >>> data = load_playtennis()
    >>> best_alpha_on(cart(data), data)     # the training rows themselves: prune nothing
    0.0
    """
    if y is None:
        if not isinstance(X, Dataset) or X.y is None:
            raise DataError("best_alpha_on needs labelled rows: a Dataset with a target, or y")
        y = X.labels()
    truth = list(y.tolist() if hasattr(y, "tolist") else y)
    path = cost_complexity_path(tree, impurity=impurity)
    best_alpha, best_score = 0.0, -1.0
    for alpha in dict.fromkeys(path.ccp_alphas.tolist()):
        score = accuracy(truth, cost_complexity(tree, alpha, path=path).predict(X).tolist())
        if score >= best_score:
            best_alpha, best_score = alpha, score
    return best_alpha


def _candidates(path: CostComplexityPath) -> np.ndarray:
    """One alpha per subtree of the path: the geometric mean of its interval ``[a_i, a_(i+1))``
    (Breiman et al. 1984, 3.4.2: ``sqrt(a_k a_(k+1))``), the last one (the root) its own edge.
    Steps of equal alpha make one subtree, as Breiman prunes all weakest links at once."""
    edges = np.unique(path.ccp_alphas)
    alphas = np.sqrt(edges * np.append(edges[1:], edges[-1]))
    alphas[-1] = edges[-1]
    return alphas


def _steps_at(path: CostComplexityPath, alphas: np.ndarray) -> np.ndarray:
    """How many weakest-link steps :func:`cost_complexity` applies at each alpha: the steps
    before the first whose alpha exceeds it."""
    reached = np.maximum.accumulate(path.ccp_alphas[1:]) if len(path.pruned) else np.empty(0)
    return np.searchsorted(reached, alphas, side="right")


def path_outputs(tree: Tree, X: Any, alphas: Any, *, path: CostComplexityPath | None = None, impurity: Callable[..., Any] | None = None) -> np.ndarray:
    """What ``tree`` pruned at each of ``alphas`` answers for the rows ``X``, in one pass
    over the tree: ``out[j]`` is ``cost_complexity(tree, alphas[j])``'s class probabilities
    for each row (for a regression tree, its predicted mean in column 0), equal to theirs.

    Rows walk the full tree once. The weakest-link steps are then applied in order, each
    moving the rows that end inside the collapsed node's subtree (a pre-order id range) up to
    that node: so each row's end node is known after every step, without pruning or walking
    the tree again. A row that a missing value spreads over several branches ("distribute")
    is walked again per subtree, stopping at the collapsed nodes, so that its weights are
    summed as the pruned tree sums them.

    >>> from puretree.datasets import load_temperature
    >>> from puretree.grow import cart
    >>> data = load_temperature()
    >>> path_outputs(cart(data), data, [0.0, 0.3])[:, :2].tolist()
    [[[1.0, 0.0], [1.0, 0.0]], [[0.5, 0.5], [0.5, 0.5]]]
    """

    path = cost_complexity_path(tree, impurity=impurity) if path is None else path
    wanted = np.asarray([_check_alpha(a) for a in np.atleast_1d(np.asarray(alphas, dtype=np.float64)).tolist()])
    steps = _steps_at(path, wanted)
    flat = flatten(tree)
    Xe = encode_features(tree.schema, X)
    names = tree.schema.feature_names
    rows, ends, weights = descend(flat, Xe, missing=tree.missing, names=names, stop_at_missing=False, row_name=X.row_name if isinstance(X, Dataset) else "row {}".format)
    per_node = normalised_fractions(flat)
    out = np.zeros((len(wanted), Xe.shape[0], per_node.shape[1]))
    spread = np.bincount(rows, minlength=Xe.shape[0]) > 1
    one = ~spread[rows]
    rows, ends, weights = rows[one], ends[one], weights[one]
    size = subtree_sizes(flat.parent)
    # The step at which each node becomes a leaf (past the last: never).
    step_of = np.full(flat.n_nodes, len(path.pruned) + 1)
    step_of[list(path.pruned)] = np.arange(1, len(path.pruned) + 1)
    order = np.argsort(steps, kind="stable")
    at = ends.copy()
    done = 0
    for j in order.tolist():
        # Later steps collapse ancestors of earlier ones: the last step to reach a row's end
        # names the node it ends at in the pruned tree.
        for node in path.pruned[done : steps[j]]:
            inside = (at >= node) & (at < node + size[node])
            at[inside] = node
        done = max(done, int(steps[j]))
        np.add.at(out[j], rows, weights[:, None] * per_node[at])
    if spread.any():
        spread_rows = np.flatnonzero(spread)
        for j in range(len(wanted)):
            pruned = attrs.evolve(flat, kind=np.where(step_of <= steps[j], LEAF, flat.kind))
            r, e, w = descend(pruned, Xe[spread_rows], missing=tree.missing, names=names, stop_at_missing=False)
            np.add.at(out[j], spread_rows[r], w[:, None] * per_node[e])
    return out + 0.0  # as predict_proba forms its sums: a -0.0 becomes 0.0


def _fold_losses(full: Tree, data: Dataset, fit: Callable[..., Tree], k: int, seed: int, impurity: Callable[..., Any] | None) -> tuple[np.ndarray, np.ndarray]:
    """The candidates of ``full``'s weakest-link sequence (:func:`_candidates`) and, per fold
    and candidate, the summed loss of the held-out rows (misclassified rows; for regression,
    squared errors): each of ``k`` folds grows a tree with ``fit`` on the other rows and is
    pruned at every candidate (:func:`path_outputs`). The folds are stratified by class and
    seeded (regression targets are not strata: one group, plain shuffled folds). One routine
    for :func:`choose_alpha` and :func:`cv_prune`: the same sequence, folds and estimates."""

    regression = full.schema.is_regression
    alphas = _candidates(cost_complexity_path(full, impurity=impurity))
    losses = np.zeros((k, len(alphas)))
    for f, (train, test) in enumerate(stratified_folds(np.zeros(data.n_rows) if regression else data.y, k=k, seed=seed)):
        tree = fit(data.subset(train))
        held = data.subset(test)
        out = path_outputs(tree, held, alphas, impurity=impurity)
        if regression:
            losses[f] = np.sum((out[:, :, 0] - held.y) ** 2, axis=1)
        else:
            guess = labels_array(tree.schema.classes)[np.argmax(out, axis=2)]
            losses[f] = np.sum(guess != held.labels()[None, :], axis=1)
    return alphas, losses


def _select(error: np.ndarray, std_error: np.ndarray, se: float) -> tuple[int, int]:
    """The subtree of least error and the one kept, as indices into the sequence (smallest
    alpha first): the least error, ties to the larger alpha (the smaller tree); then the
    largest alpha whose error is within ``se`` standard errors of the least (Breiman's rule
    with ``se=1``), the standard error being the least error's. With ``se=0`` both are one.

    >>> _select(np.array([0.30, 0.20, 0.22, 0.25, 0.40]), np.array([0.046, 0.04, 0.041, 0.043, 0.049]), 1.0)
    (1, 2)
    """
    best = int(np.flatnonzero(error <= error.min() + 1e-12)[-1])
    chosen = int(np.flatnonzero(error <= error[best] + se * std_error[best] + 1e-12)[-1])
    return best, chosen


@attrs.frozen(eq=False)
class AlphaChoice:
    """The outcome of :func:`choose_alpha`: candidate alphas, their cross-validated accuracy
    (the share of all rows the fold trees classify right; for regression, minus the mean
    squared error over all rows), the standard deviation of the per-fold scores, the best
    alpha and the full tree pruned at it."""

    alphas: np.ndarray
    mean_accuracy: np.ndarray
    std_accuracy: np.ndarray
    best_alpha: float
    tree: Tree


def choose_alpha(X: Any, y: Any = None, *, fit: Callable[..., Tree] | None = None, k: int = 5, seed: int = 0, impurity: Callable[..., Any] | None = None) -> AlphaChoice:
    """Choose the cost-complexity alpha by stratified k-fold cross-validation (CART's way).

    The full data's tree (grown with ``fit``, default :func:`~puretree.grow.cart`) gives
    the path; each step's interval ``[a_i, a_(i+1))`` is represented by its geometric mean
    (Breiman et al.), so that the candidates sit inside the intervals rather than on their
    edges. Every fold grows a tree with ``fit``, prunes it at each candidate and classifies
    the held-out rows (``impurity``: :func:`cost_complexity_path`'s). A candidate's score is
    the share of all rows classified right (Breiman's R^cv, pooled over the folds, not a mean
    of per-fold rates); the best wins, ties to the larger alpha (the smaller tree). It is
    :func:`cv_prune` with ``se=0`` on the tree ``fit(X, y)``: the same candidates, folds and
    estimates. For a regression tree the folds are plain (shuffled, seeded) and the score is
    minus the mean squared error over all rows, so that higher is still better.

    >>> from puretree.datasets import load_playtennis
    >>> choice = choose_alpha(load_playtennis(), k=3)
    >>> len(choice.alphas) == len(choice.mean_accuracy), choice.best_alpha in choice.alphas
    (True, True)
    """

    fit = cart if fit is None else fit
    data = as_dataset(X, y)
    if data.y is None:
        raise DataError("choose_alpha needs labelled data")
    full = fit(data)
    alphas, losses = _fold_losses(full, data, fit, k, seed, impurity)
    sizes = np.array([len(test) for _, test in stratified_folds(np.zeros(data.n_rows) if full.schema.is_regression else data.y, k=k, seed=seed)])
    regression = full.schema.is_regression
    score = -losses.sum(axis=0) / data.n_rows if regression else (data.n_rows - losses.sum(axis=0)) / data.n_rows
    per_fold = -losses / sizes[:, None] if regression else (sizes[:, None] - losses) / sizes[:, None]
    best, _ = _select(-score, np.zeros(len(score)), 0.0)
    return AlphaChoice(alphas, score, per_fold.std(axis=0), float(alphas[best]), cost_complexity(full, float(alphas[best]), impurity=impurity))


@attrs.frozen(eq=False)
class CVPruning:
    """The outcome of :func:`cv_prune`: per subtree of the weakest-link sequence (smallest
    alpha first) its representative alpha, its leaves, its cross-validated error rate and that
    rate's standard error; the subtree of least error (``best``), the one chosen (``chosen``)
    and the full tree pruned at the chosen alpha."""

    alphas: np.ndarray
    leaves: np.ndarray
    cv_error: np.ndarray
    std_error: np.ndarray
    best: int
    chosen: int
    alpha: float
    tree: Tree


def cv_prune(tree: Tree, X: Any, y: Any = None, *, fit: Callable[..., Tree] | None = None, k: int = 10, seed: int = 0, se: float = 1.0, impurity: Callable[..., Any] | None = None) -> CVPruning:
    """CART's cross-validated pruning of ``tree`` grown on ``X``, ``y`` (Breiman et al. 1984,
    3.4 and 11.5): the weakest-link sequence of ``tree``; each subtree scored through its
    alpha by stratified ``k``-fold cross-validation (each fold grows a tree with ``fit``,
    default :func:`~puretree.grow.cart`, prunes it at the subtree's alpha, the geometric mean
    of its interval, and classifies the held-out rows); the cross-validated error is the
    share of all rows misclassified, its standard error ``sqrt(e (1 - e) / N)`` over all N
    rows. Kept: the smallest subtree whose error is within ``se`` standard errors of the
    least (the 1-SE rule with ``se=1``: seed 003's "remove nodes that do not significantly
    change cross-validation performance"; ``se=0``: the least error, ties to the smaller
    tree, which is :func:`choose_alpha`'s choice).

    >>> from puretree.datasets import load_buys_computer
    >>> from puretree.grow import cart
    >>> data = load_buys_computer()
    >>> out = cv_prune(cart(data), data, k=3)
    >>> out.leaves.tolist()[0] >= out.leaves.tolist()[-1] == 1, out.chosen >= out.best
    (True, True)
    """

    if tree.schema.is_regression:
        raise ParameterError("cv_prune needs a classification tree; this is a regression tree")
    se = check("se", se, Interval(float, 0, None))
    fit = cart if fit is None else fit
    data = training_dataset(tree, X, y)  # in the tree's schema: fold trees share its categories
    path = cost_complexity_path(tree, impurity=impurity)
    alphas, losses = _fold_losses(tree, data, fit, k, seed, impurity)
    n = data.n_rows
    error = losses.sum(axis=0) / n
    std_error = np.sqrt(error * (1 - error) / n)
    best, chosen = _select(error, std_error, se)
    leaves = path.n_leaves[_steps_at(path, alphas)]
    return CVPruning(alphas, leaves, error, std_error, best, chosen, float(alphas[chosen]), cost_complexity(tree, float(alphas[chosen]), path=path))


def _grows_node_by_node(fit: Callable[..., Tree]) -> bool:
    """Whether ``fit`` is puretree's own ``cart`` or ``id3`` preset, whose tree grown to depth
    ``d`` is its deeper tree cut at ``d``. Any other learner (C4.5 collapses subtrees after
    growing them; a user's ``fit`` may do anything) is grown once per depth."""
    return fit is cart or fit is id3


def cut_at_depth(tree: Tree, depth: int) -> Tree:
    """``tree`` with every split at ``depth`` (the root: 0) made a leaf of its own counts.

    >>> from puretree.datasets import load_playtennis
    >>> from puretree.grow import id3
    >>> print(cut_at_depth(id3(load_playtennis()), 1).to_text())
    outlook = overcast: yes (4)
    outlook = rain: yes (5/2)
    outlook = sunny: no (5/2)
    """
    flat = flatten(tree)
    return collapse(tree, np.flatnonzero((flat.depth == depth) & (flat.kind != LEAF)).tolist())


@attrs.frozen(eq=False)
class DepthChoice:
    """The outcome of :func:`cv_depth`: the depths tried, their mean cross-validated accuracy,
    the depth kept and the tree grown on all the data with it."""

    depths: tuple[int, ...]
    mean_accuracy: tuple[float, ...]
    depth: int
    tree: Tree


def cv_depth(X: Any, y: Any = None, *, fit: Callable[..., Tree] | None = None, k: int = 10, seed: int = 0, max_depth: int = 64) -> DepthChoice:
    """Growth that stops once cross-validated accuracy worsens (seed 003): trees of depth 0,
    1, 2, ... (``fit(data, max_depth=d)``, default :func:`~puretree.grow.cart`) are scored by
    stratified ``k``-fold cross-validation; growth goes one level deeper while that does not
    lower the mean accuracy, and stops at the first depth that lowers it, or when a level adds
    nothing (the trees of all folds stopped growing), or at ``max_depth``. Returns the last
    depth before the drop and the tree grown on all the data to it. With puretree's ``cart``
    or ``id3`` preset as ``fit``, a fold's tree of depth ``d`` is its tree of depth ``d + 1``
    cut at ``d`` (:func:`cut_at_depth`; the same tree), so each fit serves two depths.

    >>> from puretree.datasets import load_buys_computer
    >>> from puretree.grow import id3
    >>> choice = cv_depth(load_buys_computer(), fit=id3, k=3)
    >>> choice.depths[0], choice.depth in choice.depths
    (0, True)
    """

    fit = cart if fit is None else fit
    max_depth = check("max_depth", max_depth, Interval(int, 0, None))
    data = as_dataset(X, y)
    if data.y is None:
        raise DataError("cv_depth needs labelled data")
    if data.schema.is_regression:
        raise ParameterError("cv_depth scores accuracy: it needs classification data")
    folds = [(data.subset(train), data.subset(test)) for train, test in stratified_folds(data.y, k=k, seed=seed)]
    # cart and id3 choose each split from its node's rows alone: their tree of depth d is their
    # deeper tree cut at depth d (tests/test_cv_control.py checks it). So their folds grow one
    # level past the depth needed and serve two depths: half the fits. (Not deeper: the deep
    # levels, with the most nodes, cost the most, and the search often stops a level later.)
    by_node = _grows_node_by_node(fit)
    grown: list[Tree] = []
    grown_to = -1
    depths: list[int] = []
    scores: list[float] = []
    for d in range(max_depth + 1):
        if by_node and d > grown_to:
            grown_to = min(max_depth, d + 1)
            grown = [fit(train, max_depth=grown_to) for train, _ in folds]
        trees = [cut_at_depth(t, d) for t in grown] if by_node else [fit(train, max_depth=d) for train, _ in folds]
        if d > 0 and all(tree_depth(t) < d for t in trees):  # no fold's tree reached this depth: deeper adds nothing
            break
        score = float(np.mean([accuracy(test.labels().tolist(), t.predict(test).tolist()) for t, (_, test) in zip(trees, folds)]))
        if scores and score < scores[-1] - 1e-12:
            break
        depths.append(d)
        scores.append(score)
    return DepthChoice(tuple(depths), tuple(scores), depths[-1], fit(data, max_depth=depths[-1]))
