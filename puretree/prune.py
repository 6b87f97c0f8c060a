"""Pruning: every method is a pure rewrite ``Tree -> Tree`` built on :func:`puretree.fold.rewrite`.

A pruned node becomes a :class:`~puretree.nodes.Leaf` carrying the node's own ``counts``. A
split's counts are already the sum of its training rows, so the new leaf predicts the node's
training majority, exactly what the seeds prescribe. Nothing here mutates a tree, and nothing
recurses on the Python stack once per level: local decisions are bottom-up rewrite rules;
global, greedy decisions (reduced-error, the cost-complexity sequence) are computed on the
pre-order arrays of :func:`puretree.predict.flatten` and then applied with :func:`collapse`,
itself a rewrite.

The methods:

- :func:`simplify`: collapse a split whose branches all predict the same class.
- :func:`reduced_error`: the seeds' reduced-error pruning with a validation set.
- :func:`pessimistic`: C4.5's error-based pruning (upper confidence limit at ``cf``).
- :func:`penalty`: collapse a subtree whose penalised error ``errors + zeta * leaves`` is not
  lower than a leaf's (the seeds' penalty-per-leaf estimate, :func:`penalty_error`).
- :func:`cost_complexity`, :func:`cost_complexity_path`, :func:`choose_alpha`: CART's minimal
  cost-complexity pruning, the same path as scikit-learn's ``cost_complexity_pruning_path``.
- :func:`chi_square_test`: a pre-pruning significance test for ``grow(accept=...)``.

>>> from puretree.datasets import load_playtennis
>>> from puretree.grow import id3
>>> from puretree.fold import n_leaves
>>> tree = id3(load_playtennis())
>>> n_leaves(tree), n_leaves(penalty(tree, per_leaf=1.0)), n_leaves(penalty(tree, per_leaf=5.0))
(5, 5, 1)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping
from statistics import NormalDist
from typing import Any

import attrs
import numpy as np

from .data import Dataset, encode_features
from .errors import DataError, ParameterError
from .fold import iter_nodes, rewrite
from .impurity import entropy, gini, variance
from .nodes import CategoricalSplit, Leaf, Node, NumericSplit, SubsetSplit, Tree, children
from .predict import LEAF, descend, flatten

__all__ = [
    "check_cf",
    "best_alpha_on",
    "collapse",
    "is_pruning_of",
    "same_class",
    "simplify",
    "reduced_error",
    "pessimistic",
    "c45_added_errors",
    "pessimistic_errors",
    "penalty_error",
    "tree_penalty_error",
    "penalty",
    "CostComplexityPath",
    "cost_complexity_path",
    "cost_complexity",
    "AlphaChoice",
    "choose_alpha",
    "chi_square_test",
    "chi_square_sf",
    "validation_codes",
]


# -- small pieces ------------------------------------------------------------------------


def _classification_only(tree: Tree, what: str) -> None:
    if tree.schema.is_regression:
        raise ParameterError(f"{what} needs a classification tree; this is a regression tree")


def _errors(counts: tuple[float, ...]) -> float:
    """Training errors of a node made a leaf: its weight minus its majority class's weight."""
    return float(sum(counts) - max(counts)) if counts else 0.0


def _is_split(node: Node) -> bool:
    return not isinstance(node, Leaf)


def _to_leaf(node: Node) -> Leaf:
    return Leaf(node.counts)


def _memo_rule(decide: Callable[[Node, list[Any]], tuple[bool, Any, Any]]) -> Callable[[Node], Node | None]:
    """A bottom-up rule that keeps one value per node (e.g. the subtree's estimated errors).

    ``decide(node, child_values)`` returns ``(collapse, value_if_leaf, value_if_kept)``; a leaf
    gets ``decide(leaf, [])`` with ``collapse`` ignored. Values are stored by node identity
    for the duration of one rewrite (the nodes are kept alive, so identities are not reused).
    """
    memo: dict[int, tuple[Node, Any]] = {}

    def rule(node: Node) -> Node | None:
        kids = children(node)
        prune, as_leaf, as_split = decide(node, [memo[id(c)][1] for c in kids])
        if not kids:
            memo[id(node)] = (node, as_leaf)
            return None
        if prune:
            leaf = _to_leaf(node)
            memo[id(leaf)] = (leaf, as_leaf)
            return leaf
        memo[id(node)] = (node, as_split)
        return None

    return rule


def collapse(tree: Tree, node_ids: Iterable[int]) -> Tree:
    """The tree with the nodes at the given pre-order ids (as in :func:`~puretree.predict.apply`)
    replaced by leaves of their own counts. Ids inside an already collapsed subtree are ignored.

    >>> from puretree.datasets import load_playtennis
    >>> from puretree.grow import id3
    >>> print(collapse(id3(load_playtennis()), [5]).to_text())
    outlook = overcast: yes (4)
    outlook = rain
    |   wind = strong: no (2)
    |   wind = weak: yes (3)
    outlook = sunny: no (5/2)
    """
    flat = flatten(tree)
    n = flat.n_nodes
    wanted = np.zeros(n, dtype=bool)
    for i in node_ids:
        if not 0 <= int(i) < n:
            raise ParameterError(f"node id {i} is not in this tree (it has {n} nodes)")
        wanted[int(i)] = True
    size = _subtree_sizes(flat.parent)
    # rewrite() calls its rule once per node in post-order; a node's post-order position is
    # its pre-order id, minus its ancestors, plus its descendants.
    post = np.arange(n) - flat.depth + size - 1
    wanted_post = np.zeros(n, dtype=bool)
    wanted_post[post[wanted]] = True
    position = itertools.count()

    def rule(node: Node) -> Node | None:
        return _to_leaf(node) if wanted_post[next(position)] and _is_split(node) else None

    return rewrite(tree, rule)


def _subtree_sizes(parent: np.ndarray) -> np.ndarray:
    size = np.ones(len(parent), dtype=np.int64)
    for i in range(len(parent) - 1, 0, -1):  # children come after their parent in pre-order
        size[parent[i]] += size[i]
    return size


def is_pruning_of(pruned: Tree | Node, original: Tree | Node) -> bool:
    """Whether ``pruned`` is ``original`` with some subtrees replaced by leaves of their counts:
    every split of ``pruned`` is the original's (same test, same counts) and each of its leaves
    stands where the original has a node with the same counts.

    >>> from puretree.datasets import load_playtennis
    >>> from puretree.grow import id3
    >>> tree = id3(load_playtennis())
    >>> is_pruning_of(penalty(tree, per_leaf=5.0), tree), is_pruning_of(tree, penalty(tree, per_leaf=5.0))
    (True, False)
    """
    a = pruned.root if isinstance(pruned, Tree) else pruned
    b = original.root if isinstance(original, Tree) else original
    stack = [(a, b)]
    while stack:
        p, o = stack.pop()
        if p.counts != o.counts:
            return False
        if isinstance(p, Leaf):
            continue
        if type(p) is not type(o):
            return False
        match p:
            case NumericSplit():
                same = p.feature == o.feature and p.threshold == o.threshold
            case SubsetSplit():
                same = p.feature == o.feature and p.left_categories == o.left_categories
            case CategoricalSplit():
                same = p.feature == o.feature and len(p.children) == len(o.children)
            case _:
                same = False
        if not same:
            return False
        stack.extend(zip(children(p), children(o)))
    return True


# -- simplify ----------------------------------------------------------------------------


def same_class(node: Node) -> Node | None:
    """The rewrite rule behind :func:`simplify`: a split whose children are all leaves
    predicting one class becomes a leaf (None otherwise). Combine it with other rules:

    >>> from puretree.fold import first_of, rewrite
    >>> from puretree.nodes import Feature, Schema
    >>> few = lambda n: Leaf(n.counts) if children(n) and sum(n.counts) < 4 else None   # fewer than 4 rows
    >>> left = NumericSplit(0, 0.5, Leaf((0, 1)), Leaf((1, 1)), (1, 2))
    >>> right = NumericSplit(0, 2.0, Leaf((2, 0)), Leaf((3, 1)), (5, 1))
    >>> t = Tree(NumericSplit(0, 1.0, left, right, (6, 3)), Schema((Feature("x"),), ("a", "b")))
    >>> out = rewrite(t, first_of(same_class, few)).root
    >>> out.left, out.right
    (Leaf(counts=(1.0, 2.0)), Leaf(counts=(5.0, 1.0)))
    """
    kids = children(node)
    if not kids or not all(isinstance(k, Leaf) for k in kids):
        return None
    # An empty branch predicts its parent's distribution, hence its parent's majority.
    own = int(np.argmax(node.counts))
    predicted = {int(np.argmax(k.counts)) if sum(k.counts) > 0 else own for k in kids}
    return _to_leaf(node) if len(predicted) == 1 else None


def simplify(tree: Tree) -> Tree:
    """Collapse every split whose branches all end in leaves predicting the same class
    (bottom-up, so chains of such splits collapse in one pass). Predicted labels do not change.

    >>> from puretree.nodes import Feature, Schema
    >>> schema = Schema((Feature("x"),), ("a", "b"))
    >>> t = Tree(NumericSplit(0, 1.0, Leaf((3, 1)), Leaf((2, 0)), (5, 1)), schema)
    >>> simplify(t).root
    Leaf(counts=(5.0, 1.0))
    """
    _classification_only(tree, "simplify")
    return rewrite(tree, same_class)


# -- validation data ---------------------------------------------------------------------


def _label_index(classes: tuple[Any, ...]) -> Callable[[Any], int]:
    exact = {c: i for i, c in enumerate(classes)}
    # Labels read from a CSV file are text: "1" must find the class 1 learned from numbers.
    text = {str(c): i for i, c in enumerate(classes)}

    def index(value: Any) -> int:
        if isinstance(value, np.generic):
            value = value.item()
        try:
            hit = exact.get(value)
        except TypeError:
            hit = None
        if hit is not None and type(classes[hit]) is type(value):
            return hit
        return text.get(str(value).strip(), -1)

    return index


def validation_codes(tree: Tree, X: Any, y: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """Encode labelled data for ``tree``: ``(features matrix, class indices)``.

    ``X`` is a :class:`~puretree.data.Dataset` with a target, a DataFrame or a sequence of
    mappings holding the tree's target column, or any feature table with the labels in ``y``.
    A label the tree never saw gets index -1 (a row no leaf can predict correctly).
    """
    if y is None:
        if isinstance(X, Dataset):
            if X.y is None:
                raise DataError("the validation data has no target column")
            y = X.labels()
        else:
            y = _target_column(X, tree.schema.target)
    Xe = encode_features(tree.schema, X)
    labels = list(y.tolist() if hasattr(y, "tolist") else y)
    if len(labels) != Xe.shape[0]:
        raise DataError(f"the validation data has {Xe.shape[0]} rows but {len(labels)} labels")
    if not labels:
        raise DataError("the validation data has no rows")
    index = _label_index(tuple(tree.schema.classes))
    return Xe, np.fromiter((index(v) for v in labels), dtype=np.int64, count=len(labels))


def _target_column(X: Any, target: str) -> list[Any]:
    if hasattr(X, "columns") and hasattr(X, "dtypes"):
        if target not in X.columns:
            raise DataError(f"no labels: pass y, or include the target column {target!r}")
        return X[target].tolist()
    if isinstance(X, Mapping):
        X = [X]
    if isinstance(X, (list, tuple)) and X and isinstance(X[0], Mapping):
        if any(target not in row for row in X):
            raise DataError(f"no labels: pass y, or include the target column {target!r} in every row")
        return [row[target] for row in X]
    raise DataError(f"no labels: pass y, or data holding the target column {target!r}")


def _validation_counts(tree: Tree, X: Any, y: Any) -> tuple[Any, np.ndarray, np.ndarray]:
    """Per node: the weighted validation class counts of the rows that *end* there.

    Rows follow the tree's missing-value strategy; under ``"distribute"`` a row with a
    missing value is spread over the branches by training fractions and counted fractionally,
    as C4.5 counts errors. A row that stops at a split (an unseen category) ends there and
    gets that split's prediction, pruned or not. The last column holds unknown labels.
    """
    flat = flatten(tree)
    Xe, codes = validation_codes(tree, X, y)
    rows, ends, weights = descend(flat, Xe, missing=tree.missing, names=tree.schema.feature_names, stop_at_missing=False)
    k = len(tree.schema.classes)
    own = np.zeros((flat.n_nodes, k + 1))
    np.add.at(own, (ends, np.where(codes[rows] >= 0, codes[rows], k)), weights)
    return flat, own, codes


def _accumulate(parent: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Sums over subtrees: ``out[i]`` = values of ``i`` plus all its descendants."""
    out = values.copy()
    for i in range(len(parent) - 1, 0, -1):
        out[parent[i]] += out[i]
    return out


# -- reduced-error pruning ---------------------------------------------------------------


def reduced_error(tree: Tree, X: Any, y: Any = None) -> Tree:
    """Reduced-error pruning (seed 000 §5.2.1, seed 002 "Pruning") with validation data.

    Repeatedly replace by a leaf (its training majority) the node whose removal most
    increases validation accuracy, among removals that leave it no worse; stop when every
    further removal would lower it. A subtree no validation row reaches is therefore pruned
    (its removal changes nothing). **Ties** between equally good removals go to the node
    whose removal takes away the most leaves, then to the first in pre-order (closest to the
    root, leftmost).

    >>> from puretree.datasets import load_temperature
    >>> from puretree.grow import cart
    >>> tree = cart(load_temperature())
    >>> print(reduced_error(tree, [{"temperature": 95}], ["yes"]).to_text())
    temperature <= 54: no (2)
    temperature > 54: yes (4/1)
    """
    _classification_only(tree, "reduced-error pruning")
    flat, own, _ = _validation_counts(tree, X, y)
    n = flat.n_nodes
    prediction = np.argmax(flat.value, axis=1)
    ids = np.arange(n)
    as_leaf = _accumulate(flat.parent, own)[ids, prediction]  # correct if this node were a leaf
    correct = _accumulate(flat.parent, own[ids, prediction])  # correct under the current subtree
    is_leaf = flat.kind == LEAF
    leaves = _accumulate(flat.parent, is_leaf.astype(np.int64))
    end = ids + _subtree_sizes(flat.parent)
    candidate = ~is_leaf
    tol = 1e-9 * max(1.0, float(own.sum()))
    pruned: list[int] = []
    while candidate.any():
        gain = np.where(candidate, as_leaf - correct, -np.inf)
        best = float(gain.max())
        if best < -tol:
            break
        tied = candidate & (gain >= best - tol)
        most = leaves[tied].max()
        i = int(np.flatnonzero(tied & (leaves == most))[0])
        pruned.append(i)
        candidate[i:end[i]] = False
        ancestors = (ids < i) & (end > i)
        correct[ancestors] += as_leaf[i] - correct[i]
        leaves[ancestors] -= leaves[i] - 1
        correct[i], leaves[i] = as_leaf[i], 1
    return collapse(tree, pruned)


# -- pessimistic (error-based) pruning ---------------------------------------------------


def c45_added_errors(n: float, errors: float, *, cf: float = 0.25) -> float:
    """C4.5's extra pessimistic errors for a leaf with ``n`` cases and ``errors`` errors:
    ``n * U_cf(errors, n) - errors``, where ``U_cf`` is the upper limit of the binomial error
    rate at confidence ``cf`` (Quinlan's ``AddErrs``, as in Weka's ``Stats.addErrs``: exact for
    zero errors, interpolated below one error, the normal approximation with a continuity
    correction above). ``z`` is the exact normal quantile of ``1 - cf`` (0.674 at 0.25), as in
    Weka; C4.5's own code interpolates a small table (0.69 at 0.25).

    >>> round(c45_added_errors(6, 0), 4), round(c45_added_errors(16, 1), 4)
    (1.2378, 1.4757)
    """
    check_cf(cf)
    if n <= 0:
        return 0.0
    if errors < 1e-6:
        return n * (1.0 - math.exp(math.log(cf) / n))
    if errors < 0.9999:
        zero = n * (1.0 - math.exp(math.log(cf) / n))
        return zero + errors * (c45_added_errors(n, 1.0, cf=cf) - zero)
    if errors + 0.5 >= n:
        # Within half an error of every case wrong: Weka's J48 adds what is left, N - E
        # (C4.5's own code adds 0.67 x (N - E) here).
        return max(n - errors, 0.0)
    z = NormalDist().inv_cdf(1.0 - cf)
    e = errors + 0.5
    upper = (e + z * z / 2 + z * math.sqrt(e * (1 - e / n) + z * z / 4)) / (n + z * z)
    return n * upper - errors


def check_cf(cf: Any) -> None:
    if isinstance(cf, bool) or not isinstance(cf, (int, float, np.integer, np.floating)) or not 0 < cf < 1:
        raise ParameterError(f"the confidence level cf must be a number strictly between 0 and 1, got {cf!r}")


def pessimistic_errors(counts: tuple[float, ...], *, cf: float = 0.25) -> float:
    """The estimated errors of a leaf with these class counts: ``E + AddErrs(N, E)``."""
    n = float(sum(counts))
    e = _errors(counts)
    return e + c45_added_errors(n, e, cf=cf)


#: C4.5 prunes when the leaf's estimate is within this many errors of the subtree's.
C45_MARGIN = 0.1


def pessimistic(tree: Tree, X: Any = None, y: Any = None, *, cf: float = 0.25, raising: bool = True, sample_weight: Any = None) -> Tree:
    """C4.5's error-based pruning. Given the training data (``X``, ``y``) it is J48's: subtree
    replacement and **subtree raising** (:func:`puretree.c45.pessimistic_with_raising`, with
    ``raising=False`` replacement only, recounted from the data); without data, subtree
    replacement alone, from the counts the tree holds, as described below.

    The estimated errors of a leaf are its training errors plus :func:`c45_added_errors`; of a
    subtree, the sum over its (already pruned) leaves. A subtree is replaced by a leaf when the
    leaf's estimate is not above the subtree's plus 0.1 (Quinlan's and Weka's margin). A
    smaller ``cf`` prunes more.

    **Subtree raising** (C4.5's other operation, replacing a node by its largest branch) needs
    the training data: it re-routes the rows of the other branches into the raised subtree and
    recounts every node below, and a puretree tree keeps counts, not rows.

    >>> from puretree.datasets import load_buys_computer
    >>> from puretree.grow import c45
    >>> from puretree.fold import n_leaves
    >>> tree = c45(load_buys_computer())
    >>> n_leaves(tree), n_leaves(pessimistic(tree)), n_leaves(pessimistic(tree, cf=0.05))
    (5, 5, 1)
    """
    _classification_only(tree, "pessimistic pruning")
    check_cf(cf)
    if X is not None:
        from .c45 import pessimistic_with_raising

        return pessimistic_with_raising(tree, X, y, cf=cf, raising=raising, sample_weight=sample_weight)

    def decide(node: Node, kids: list[float]) -> tuple[bool, float, float]:
        leaf = pessimistic_errors(node.counts, cf=cf)
        subtree = sum(kids)
        return leaf <= subtree + C45_MARGIN, leaf, subtree

    return rewrite(tree, _memo_rule(decide))


# -- penalty per leaf --------------------------------------------------------------------


def _check_penalty(value: Any, name: str = "penalty") -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not math.isfinite(value) or value < 0:
        raise ParameterError(f"the {name} must be a finite number >= 0, got {value!r}")
    return float(value)


def penalty_error(errors: float, leaves: int, n: float, *, penalty: float = 0.5) -> float:
    """The seeds' generalisation error estimate ``e = (sum of errors + penalty * leaves) / N``
    (seed 004: training error plus a penalty per leaf for model complexity).

    >>> round(penalty_error(4, 7, 24, penalty=0.5), 4), round(penalty_error(6, 4, 24, penalty=0.5), 4)
    (0.3125, 0.3333)
    """
    _check_penalty(penalty)
    if n <= 0:
        raise ParameterError(f"the number of training rows must be > 0, got {n!r}")
    return (errors + penalty * leaves) / n


def tree_penalty_error(tree: Tree, *, penalty: float = 0.5) -> float:
    """:func:`penalty_error` of a tree: training errors and weight from its leaves' counts."""
    _classification_only(tree, "the penalty estimate")
    leaves = [n for n in iter_nodes(tree) if isinstance(n, Leaf)]
    return penalty_error(sum(_errors(l.counts) for l in leaves), len(leaves), float(sum(tree.root.counts)), penalty=penalty)


def penalty(tree: Tree, *, per_leaf: float = 0.5) -> Tree:
    """Collapse, bottom-up, every subtree whose penalised errors (training errors plus
    ``per_leaf`` for each leaf) are not lower than those of a single leaf. Bottom-up is
    optimal here: the result has the lowest :func:`tree_penalty_error` of all prunings
    (ties: the smaller tree). With ``per_leaf = 0.5`` a binary split survives when it fixes at
    least one training error; with ``1`` it must fix more than one (seed 004).
    """
    _classification_only(tree, "penalty pruning")
    zeta = _check_penalty(per_leaf, "penalty per leaf")

    def decide(node: Node, kids: list[float]) -> tuple[bool, float, float]:
        leaf = _errors(node.counts) + zeta
        subtree = sum(kids)
        return leaf <= subtree, leaf, subtree

    return rewrite(tree, _memo_rule(decide))


# -- minimal cost-complexity pruning -----------------------------------------------------


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
    with np.errstate(divide="ignore", invalid="ignore"):
        if impurity is gini:
            squares = counts[:, 0] * counts[:, 0]
            for c in range(1, counts.shape[1]):
                squares += counts[:, c] * counts[:, c]
            values = 1.0 - squares / (weight * weight)
        elif impurity is entropy:
            values = np.zeros(len(weight))
            for c in range(counts.shape[1]):
                p = counts[:, c] / weight
                values -= np.where(counts[:, c] > 0, p * (np.log(np.where(p > 0, p, 1.0)) / math.log(2.0)), 0.0)
        else:
            values = np.asarray(impurity(counts), dtype=np.float64)
    return weight, np.where(weight > 0, values, 0.0)


def _node_risk(tree: Tree, impurity: Callable[..., Any] | None = None) -> tuple[Any, np.ndarray]:
    """``R(t) = impurity(t) * weight(t) / total weight``, scikit-learn's definition (Gini by
    default, or variance for regression)."""
    flat = flatten(tree)
    counts = flat.counts
    if tree.schema.is_regression:
        weight, values = counts[:, 0], variance(counts)
    else:
        weight, values = _sklearn_impurity(counts, gini if impurity is None else impurity)
    total = weight[0]
    if total <= 0:
        raise DataError("the tree's root has zero weight: nothing to measure")
    return flat, weight * values / total


def cost_complexity_path(tree: Tree, *, impurity: Callable[..., Any] | None = None) -> CostComplexityPath:
    """The minimal cost-complexity pruning path, equal to scikit-learn's
    ``cost_complexity_pruning_path`` on the same tree. ``impurity`` measures a node's risk:
    Gini by default (scikit-learn's default criterion); pass the one the tree was grown with
    (``entropy`` for ``criterion="entropy"``, C4.5, ID3). Regression trees use the variance.

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
    leaves = _accumulate(flat.parent, is_leaf.astype(np.int64))
    end = ids + _subtree_sizes(flat.parent)
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
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.integer, np.floating)) or math.isnan(alpha) or alpha < 0:
        raise ParameterError(f"alpha must be a number >= 0, got {alpha!r}")
    return float(alpha)


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
    from .evaluate import accuracy

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


@attrs.frozen(eq=False)
class AlphaChoice:
    """The outcome of :func:`choose_alpha`: candidate alphas, their mean cross-validated
    accuracy (minus the mean squared error, for regression) and its standard deviation, the
    best alpha and the full tree pruned at it."""

    alphas: np.ndarray
    mean_accuracy: np.ndarray
    std_accuracy: np.ndarray
    best_alpha: float
    tree: Tree


def choose_alpha(X: Any, y: Any = None, *, fit: Callable[..., Tree] | None = None, k: int = 5, seed: int = 0, impurity: Callable[..., Any] | None = None) -> AlphaChoice:
    """Choose the cost-complexity alpha by stratified k-fold cross-validation (CART's way).

    The full data's tree gives the path; each step's interval ``[a_i, a_(i+1))`` is
    represented by its geometric mean (Breiman et al.), so that the candidates sit inside
    the intervals rather than on their edges. Every fold grows a tree with ``fit`` (default:
    :func:`~puretree.grow.cart`), prunes it at each candidate and scores it on the held-out
    part (``impurity``: :func:`cost_complexity_path`'s). The best mean accuracy wins; ties go to
    the larger alpha (the smaller tree). For a
    regression tree the folds are plain (shuffled, seeded) and the score is minus the mean
    squared error, so that higher is still better.

    >>> from puretree.datasets import load_playtennis
    >>> choice = choose_alpha(load_playtennis(), k=3)
    >>> len(choice.alphas) == len(choice.mean_accuracy), choice.best_alpha in choice.alphas
    (True, True)
    """
    from .data import as_dataset
    from .evaluate import accuracy, stratified_folds
    from .grow import cart

    fit = cart if fit is None else fit
    data = as_dataset(X, y)
    if data.y is None:
        raise DataError("choose_alpha needs labelled data")
    full = fit(data)
    regression = full.schema.is_regression
    edges = np.unique(cost_complexity_path(full, impurity=impurity).ccp_alphas)
    alphas = np.sqrt(edges * np.append(edges[1:], edges[-1]))
    alphas[-1] = edges[-1]
    scores = np.zeros((k, len(alphas)))
    # Regression targets are not strata: one group gives plain shuffled folds.
    for f, (train, test) in enumerate(stratified_folds(np.zeros(data.n_rows) if regression else data.y, k=k, seed=seed)):
        tree = fit(data.subset(train))
        fold_path = cost_complexity_path(tree, impurity=impurity)
        held = data.subset(test)
        for j, a in enumerate(alphas):
            guess = cost_complexity(tree, float(a), path=fold_path).predict(held)
            if regression:
                scores[f, j] = -float(np.mean((guess - held.y) ** 2))
            else:
                scores[f, j] = accuracy(held.labels().tolist(), guess.tolist())
    mean = scores.mean(axis=0)
    best = int(np.flatnonzero(mean >= mean.max() - 1e-12)[-1])
    return AlphaChoice(alphas, mean, scores.std(axis=0), float(alphas[best]), cost_complexity(full, float(alphas[best]), impurity=impurity))


# -- pre-pruning: a chi-square significance test -----------------------------------------


def _upper_gamma_regularized(a: float, x: float) -> float:
    """Q(a, x) = Γ(a, x) / Γ(a): a series below ``a + 1``, Lentz's continued fraction above."""
    if x <= 0:
        return 1.0
    log_front = a * math.log(x) - x - math.lgamma(a)
    if x < a + 1:
        term = total = 1.0 / a
        ap = a
        for _ in range(10_000):
            ap += 1
            term *= x / ap
            total += term
            if abs(term) < abs(total) * 1e-16:
                break
        return max(0.0, 1.0 - total * math.exp(log_front))
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        step = d * c
        h *= step
        if abs(step - 1) < 1e-16:
            break
    return min(1.0, math.exp(log_front) * h)


def chi_square_sf(statistic: float, df: int) -> float:
    """The p-value ``P(X >= statistic)`` of a chi-square variable with ``df`` degrees of freedom.

    >>> round(chi_square_sf(3.841458820694124, 1), 6), round(chi_square_sf(5.991464547107979, 2), 6)
    (0.05, 0.05)
    """
    if df < 1:
        raise ParameterError(f"degrees of freedom must be >= 1, got {df!r}")
    return _upper_gamma_regularized(df / 2.0, max(0.0, statistic) / 2.0)


@attrs.frozen
class _ChiSquareTest:
    alpha: float

    def __call__(self, parent: Any, children: Any) -> bool:
        table = np.asarray(children, dtype=np.float64)
        table = table[table.sum(axis=1) > 0][:, table.sum(axis=0) > 0]
        rows, cols = table.shape
        if rows < 2 or cols < 2:
            return False  # nothing separated, or a single class: no evidence of dependence
        expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / table.sum()
        statistic = float(((table - expected) ** 2 / expected).sum())
        return chi_square_sf(statistic, (rows - 1) * (cols - 1)) < self.alpha

    def __repr__(self) -> str:
        return f"chi_square_test(alpha={self.alpha!r})"


def chi_square_test(alpha: float = 0.05) -> Callable[[Any, Any], bool]:
    """An ``accept`` function for :func:`~puretree.grow.grow`: allow a split only when the
    chi-square test of independence between branch and class (on the branches' class counts,
    empty branches and absent classes left out) is significant at level ``alpha``: Quinlan's
    original ID3 stopping rule.

    >>> test = chi_square_test(0.05)
    >>> test([9, 5], [[2, 3], [4, 0], [3, 2]]), test([10, 10], [[10, 0], [0, 10]])
    (False, True)
    """
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.integer, np.floating)) or not 0 < alpha <= 1:
        raise ParameterError(f"the significance level must be in (0, 1], got {alpha!r}")
    return _ChiSquareTest(float(alpha))
