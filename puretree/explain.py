"""TreeSHAP: each feature's exact share of a tree's or an ensemble's answer for a row.

:func:`shap_values` gives, for every row and feature, the feature's Shapley value in the answer
(Lundberg et al. 2018, "Consistent individualized feature attribution for tree ensembles"):
the values of a row and the ``expected_value`` add up to the model's output for that row.
Two games, as ``shap.TreeExplainer`` names them:

- ``feature_perturbation="tree_path_dependent"`` (the default): a feature left out of a coalition
  follows every branch of its splits in proportion to the training weight that went each way
  (each node's *cover*: its weighted count, a regression node's weight), Algorithm 2 of the
  paper. ``expected_value`` is the cover-weighted mean of the leaves.
- ``feature_perturbation="interventional"``: a left-out feature takes its value from a row of
  the background set ``data`` (e.g. 100 rows), averaged over them (Lundberg et al. 2020);
  ``expected_value`` is the mean output over the background.

**What is explained.** A classification tree, a bagging ensemble or a forest: the class
probabilities (``values`` shaped ``(rows, features, classes)``, as ``shap.TreeExplainer``
answers for scikit-learn's classifiers); a regression tree or ensemble: the prediction
(``(rows, features)``); AdaBoost: its weighted votes per class (:func:`puretree.ensemble.votes`,
whose softmax is the probability: a softmax is not a sum, so the votes are what adds up); a
boosted model (:class:`~puretree.boosted.Boosted`: gradient boosting grown or imported): its raw
scores (``decision_function``, shap's ``model_output="raw"``: log-odds for two classes, one raw
score per class for more), ``(rows, features)`` for one output and ``(rows, features, outputs)``
for more, the initial score in ``expected_value``; a stage tree's leaves count
``learning_rate`` times, each node's cover its first statistic (the training weight that
reached it, as scikit-learn stores it; XGBoost's ``cover`` and LightGBM's counts for imported
models), a float32 model's features read as float32 as it reads them.

**How.** A leaf's share depends on the row only through which of the features on the leaf's
path the row agrees with (and, interventionally, which the background row agrees with), so the
paper's recursion is run once per leaf and pattern. Path-dependent values of a model whose
splits are all thresholds are computed in C where puretree's compiled library is there
(``puretree/growth/_treeshap.c``: each leaf's unique path, then per block of rows each (leaf,
pattern) once, in :func:`contributions`' float order, so its values bit for bit); otherwise
(``PURETREE_ENGINE=numpy``, no library, categorical splits, the interventional game) for all
rows and leaves of a depth together with numpy: the same polynomial (EXTEND and UNWIND of the
paper, in shap's float order within a leaf). Either adds the leaves' terms in another order
than shap's walk, so values agree with shap's to rounding, not bit for bit.

**Missing values and categories.** A missing value (NaN) goes where prediction sends it (the
split's learned side, else the heavier child under the ``"majority"`` strategy), so a row with
NaN is explained as it is answered; trees under the ``"distribute"`` or ``"error"`` strategy, or
with surrogate splits, refuse rows with NaN. Categorical splits of any kind (multiway, subset) are
explained by the categories each branch takes; a category the tree has no branch for is refused.

>>> import puretree as pt
>>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
>>> schema = Schema((Feature("a"), Feature("b")), task="regression")
>>> leaf = lambda w, mean: Leaf((w, w * mean, w * mean * mean))
>>> tree = pt.Tree(Split(0, Threshold(0.5), (leaf(2, 0.0), Split(1, Threshold(0.5), (leaf(1, 1.0), leaf(1, 3.0)), (2, 4, 10))), (4, 4, 10)), schema)
>>> sv = pt.shap_values(tree, [[1.0, 1.0]])
>>> sv.expected_value, sv.values.tolist()
(1.0, [[1.25, 0.75]])
>>> bool(sv.values.sum() + sv.expected_value == pt.predict(tree, [[1.0, 1.0]])[0])
True
"""

from __future__ import annotations

import ctypes
import math
import os
from collections.abc import Mapping
from typing import Any

import attrs
import numpy as np

from .boosted import Boosted
from .data import Dataset, encode_features
from .ensemble import Ensemble, vote_total
from .errors import DataError, ParameterError
from .fold import iter_nodes, walk
from .growth import kernels
from .nodes import Codes, Interval, Split
from .predict import unseen_cells
from .tree import Tree

__all__ = ["PERTURBATIONS", "ShapValues", "shap_values", "ContributionLeaf", "ContributionTables", "contribution_tables", "contributions"]

#: The two games (``shap.TreeExplainer``'s names).
PERTURBATIONS = ("tree_path_dependent", "interventional")

#: What :func:`shap_values` explains.
Model = Tree | Ensemble | Boosted

#: Rows, leaves and path entries computed at once: the working arrays stay near 32 MB.
_CELLS = 4_000_000

#: _by_pairs sums a chunk's shares with one count when it has at most this many cells per feature.
_SMALL = 4000


@attrs.frozen(eq=False)
class ShapValues:
    """Shapley values of a model's output and the output they start from.

    ``values[i, j]`` (``values[i, j, k]`` for class ``k``) is feature ``j``'s share in row ``i``'s
    output; ``values[i].sum(axis=0) + expected_value`` is the output. ``output`` says which output:
    ``"probability"``, ``"value"`` (regression), ``"votes"`` (AdaBoost) or ``"raw"`` (a boosted model's raw scores).
    """

    values: np.ndarray
    expected_value: Any
    feature_names: tuple[str, ...]
    output: str
    feature_perturbation: str


# -- the leaves and their paths ---------------------------------------------------------------


@attrs.frozen(eq=False)
class _Leaves:
    """Every leaf of a model whose path tests ``depth`` distinct features, as arrays.

    Per leaf ``l`` and path feature ``d`` (the features in the order of their last test on the
    path, as the paper's unique path keeps them): the column ``feature``; the box the path asks
    of it, ``lo < x <= hi`` (numeric) or ``allowed[l, d, code]`` (categorical, ``categorical``);
    whether a missing value follows the path (``nan_ok``); the share of the training weight
    that follows the path at its splits (``zero``). ``value[l]``: the leaf's output, scaled by
    its member's weight in the model.
    """

    depth: int
    feature: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    nan_ok: np.ndarray
    zero: np.ndarray
    categorical: np.ndarray
    allowed: np.ndarray | None
    value: np.ndarray
    #: Places that stand for no feature (:func:`_merged`): every row agrees, all weight goes there.
    pad: np.ndarray | None = None


def _weight(stats: tuple[float, ...], regression: bool) -> float:
    """A node's training weight (shap's cover): its weighted count, a regression node's weight."""
    return stats[0] if regression else sum(stats)


def _output(stats: tuple[float, ...], regression: bool) -> np.ndarray | None:
    """A node's answer as prediction gives it (None: a node without weight, which answers as its
    parent: :func:`puretree.flat.normalised_fractions`)."""
    w = _weight(stats, regression)
    if not w > 0:
        return None
    return np.array([stats[1] / w]) if regression else np.asarray(stats, dtype=np.float64) / sum(stats)


Path = list[tuple[int, Any, bool, float]]


def _paths(tree: Tree, votes: bool) -> tuple[list[tuple[Path, np.ndarray]], np.ndarray]:
    """Per leaf: its path's distinct features as ``(feature, constraint, nan_ok, zero fraction)``
    in the order of their last test on the path, and the leaf's output (an AdaBoost member's
    vote when ``votes``); and the path-dependent expected output: the leaves' outputs weighted by
    the training weight's share that reaches them."""
    regression = tree.schema.is_regression
    k = 1 if regression else len(tree.schema.classes)
    features = tree.schema.features
    leaves: list[tuple[Path, np.ndarray]] = []
    expected = np.zeros(k)
    root_value = _output(tree.root.stats, regression)
    if root_value is None:
        root_value = np.zeros(1) if regression else np.full(k, 1.0 / max(1, k))
    Handed = tuple[dict[int, tuple[Any, bool, float]], float, np.ndarray]

    def down(node: Any, handed: Handed) -> list[Handed]:
        """Each child's path state, share of the training weight and output (an empty child
        answers as its parent)."""
        state, reach, value = handed
        j = node.feature
        constraints = node.test.constraints(features[j])
        covers = [_weight(c.stats, regression) for c in node.children]
        total = sum(covers)
        side = getattr(node.test, "missing_branch", None)
        # Where a missing value goes: the learned side, else the heavier child under "majority"
        # (the first of the heaviest, as prediction takes it); under the other strategies nowhere.
        nan_to = side if side is not None else int(np.argmax(covers)) if tree.missing == "majority" else -1
        out = []
        for b, child in enumerate(node.children):
            # The branch's share among its siblings' weights (= of the parent's, in a tree whose
            # weights add up, as scikit-learn's do): the values add up in any tree.
            share = covers[b] / total if total > 0 else 0.0
            if j in state:
                box, nan_ok, zero = state[j]
                entry = (box.meet(constraints[b]), nan_ok and b == nan_to, share * zero)
            else:
                entry = (constraints[b], b == nan_to, share)
            kept = {f: v for f, v in state.items() if f != j}
            kept[j] = entry  # last: the feature's latest test moves it to the end of the path
            own = _output(child.stats, regression)
            out.append((kept, reach * share, value if own is None else own))
        return out

    for node, (state, reach, value) in walk(tree, down, ({}, 1.0, root_value)):
        if type(node) is not Split:
            if votes:
                hit = np.arange(k) == int(np.argmax(value))
                value = np.where(hit, 1.0, -1 / (k - 1) if k > 1 else 0.0)
            leaves.append(([(j, *entry) for j, entry in state.items()], value))
            expected += reach * value
    return leaves, expected


@attrs.frozen(eq=False)
class _Table:
    """Every leaf of some threshold trees with its path, in the trees' order and each tree's
    pre-order (the order :func:`contributions` adds them): leaf ``l``'s path features are entries
    ``start[l]`` to ``start[l + 1]`` of ``feature``, ``lo``, ``hi``, ``nan_ok`` and ``zero`` (as
    :class:`_Leaves` holds them per leaf); ``value``: ``(leaves, outputs)``, placed and scaled;
    ``output``: the one output a boosted stage tree's leaf adds to, else -1 (every output);
    ``expected``: the summed path-dependent expected value."""

    start: np.ndarray
    feature: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    nan_ok: np.ndarray
    zero: np.ndarray
    value: np.ndarray
    output: np.ndarray
    expected: np.ndarray


def _flat_paths(members: list[tuple[Tree, float, int | None]], k: int, votes: bool) -> tuple[list[tuple[int, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]], np.ndarray]:
    """:func:`_paths` for trees whose every split is ``x <= t`` (:attr:`puretree.flat.FlatTree.dense`),
    all at once: per path length ``(depth, feature, lo, hi, nan_ok, zero, value)`` (``value``
    placed and scaled as :func:`_leaves` gives it), and the summed path-dependent expected value
    (:func:`_flat_table`'s leaves, grouped by their path's length)."""
    table = _flat_table(members, k, votes)
    count = np.diff(table.start)
    groups = []
    for length in np.unique(count).tolist():
        ls = np.flatnonzero(count == length)
        at = table.start[ls][:, None] + np.arange(length)
        groups.append((length, table.feature[at], table.lo[at], table.hi[at], table.nan_ok[at], table.zero[at], table.value[ls]))
    return groups, table.expected


def _flat_table(members: list[tuple[Tree, float, int | None]], k: int, votes: bool, paths: Any = None) -> _Table:
    """:func:`_paths` for trees whose every split is ``x <= t`` (:func:`_flat_tree`), all at once,
    as a :class:`_Table`: the paths with numpy, or with the compiled ``pt_treeshap_paths`` given
    as ``paths`` (the same numbers). The same numbers as :func:`_paths`: each path edge's share
    of its siblings' weight, met per feature in path order, the features ordered by their last test."""
    parent: list[int] = []
    depth: list[int] = []
    feature: list[int] = []
    threshold: list[float] = []
    side: list[int] = []  # a split's learned side for missing values (-1: none); -2 at a leaf
    second: list[bool] = []  # whether the node is its parent's second child
    stats: list[tuple[float, ...]] = []
    sizes: list[int] = []
    for tree, _, _ in members:
        start = len(parent)
        # fold's pre-order walk, as puretree.flat numbers the nodes (a split's first child next);
        # each child is handed (its parent's number, its depth, whether it is the second child).
        def down(node: Any, handed: tuple[int, int, bool]) -> list[tuple[int, int, bool]]:
            me = len(parent) - 1  # the walk hands a split's children on right after yielding it
            return [(me, handed[1] + 1, False), (me, handed[1] + 1, True)]

        for node, (up, d, is_second) in walk(tree, down, (-1, 0, False)):
            parent.append(up)
            depth.append(d)
            second.append(is_second)
            stats.append(node.stats)
            if type(node) is Split:
                test = node.test
                feature.append(node.feature)
                threshold.append(test.value)
                side.append(-1 if test.missing_branch is None else test.missing_branch)
            else:
                feature.append(-1)
                threshold.append(0.0)
                side.append(-2)
        sizes.append(len(parent) - start)
    # Every tree's nodes at once (the members share a schema: one width of statistics).
    table = np.array(stats, dtype=np.float64).reshape(len(parent), -1)
    regression = members[0][0].schema.is_regression
    w = table[:, 0] if regression else table.sum(axis=1)
    # A node's answer as prediction gives it (a node without weight answers as its parent:
    # puretree.flat.normalised_fractions).
    with np.errstate(divide="ignore", invalid="ignore"):
        value = table[:, 1:2] / table[:, :1] if regression else table / table.sum(axis=1, keepdims=True)
    for i in np.flatnonzero(~(w > 0)).tolist():  # pre-order: the parent's answer is set already
        value[i] = value[parent[i]] if parent[i] >= 0 else 0.0 if regression else 1.0 / max(1, value.shape[1])
    kind = np.asarray(side, dtype=np.int64)
    leaf = kind == -2
    value = value[leaf]
    if votes:
        hit = np.arange(value.shape[1])[None, :] == np.argmax(value, axis=1)[:, None]
        value = np.where(hit, 1.0, -1 / (value.shape[1] - 1) if value.shape[1] > 1 else 0.0)
    output = np.repeat(np.array([-1 if o is None else o for _, _, o in members], dtype=np.int64), sizes)[leaf]
    if (output >= 0).any():  # a boosted model's stage trees: one value each, at its output
        placed = np.zeros((len(value), k))
        placed[np.arange(len(value)), output] = value[:, 0]
        value = placed
    a = {"value": value * np.repeat(np.array([scale for _, scale, _ in members], dtype=np.float64), sizes)[leaf][:, None], "output": output, "weight": w,
         "majority": np.repeat(np.array([tree.missing == "majority" for tree, _, _ in members]), sizes)}
    a["parent"] = np.asarray(parent, dtype=np.int64)
    a["depth"] = np.asarray(depth, dtype=np.int64)
    a["feature"] = np.asarray(feature, dtype=np.intp)
    a["threshold"] = np.asarray(threshold, dtype=np.float64)
    a["leaf"] = leaf
    ids = np.arange(len(parent))
    a["left"] = np.where(a["leaf"], -1, ids + 1)
    a["right"] = np.full(len(parent), -1)
    seconds = np.asarray(second, dtype=bool)
    a["right"][a["parent"][seconds]] = ids[seconds]
    a["missing"] = np.where(kind == 0, a["left"], np.where(kind == 1, a["right"], -1))
    if paths is not None:
        return _compiled_paths(paths, a, k)
    leaves = np.flatnonzero(a["leaf"])
    n_leaves = len(leaves)
    value = a["value"].reshape(n_leaves, k)
    # Every (leaf, edge into a node on its path): walked up from the leaves, one level a step.
    owner_parts, child_parts = [], []
    owner, at_node = np.arange(n_leaves), leaves
    while True:
        above = a["parent"][at_node]
        has = above >= 0
        if not has.any():
            break
        owner, at_node = owner[has], at_node[has]
        owner_parts.append(owner)
        child_parts.append(at_node)
        at_node = above[has]
    if owner_parts:
        e_owner, e_child = np.concatenate(owner_parts), np.concatenate(child_parts)
    else:
        e_owner = e_child = np.zeros(0, dtype=np.intp)
    e_par = a["parent"][e_child]
    e_level = a["depth"][e_par]
    e_feature = a["feature"][e_par]
    t = a["threshold"][e_par]
    left, right = a["left"][e_par], a["right"][e_par]
    went_left = e_child == left
    e_lo = np.where(went_left, -math.inf, t)
    e_hi = np.where(went_left, t, math.inf)
    w = a["weight"]
    total = w[left] + w[right]
    e_share = np.where(total > 0, w[e_child] / np.where(total > 0, total, 1.0), 0.0)
    # Where a missing value goes: the learned side, else the heavier child under "majority"
    # (the first of the heaviest, as prediction takes it); under the other strategies nowhere.
    learned = a["missing"][e_par]
    heavy = np.where(w[left] >= w[right], left, right)
    e_nan = e_child == np.where(learned >= 0, learned, np.where(a["majority"][e_par], heavy, -1))
    # Per leaf: the training weight's share that reaches it, the product of its edges' top down.
    order = np.lexsort((e_level, e_owner))
    reach = np.ones(n_leaves)
    if len(order):
        starts = np.flatnonzero(np.diff(e_owner[order], prepend=-1))
        reach[e_owner[order][starts]] = np.multiply.reduceat(e_share[order], starts)
    expected = (reach[:, None] * value).sum(axis=0)
    # Per (leaf, feature): its edges met in path order; then the features by their last test.
    order = np.lexsort((e_level, e_feature, e_owner))
    o_owner, o_feature = e_owner[order], e_feature[order]
    starts = np.flatnonzero((np.diff(o_owner, prepend=-1) != 0) | (np.diff(o_feature, prepend=-1) != 0))
    ends = np.append(starts[1:], len(order))[: len(starts)] - 1  # (no edges: trees that are one leaf)
    s_owner, s_feature, s_last = o_owner[starts], o_feature[starts], e_level[order][ends]
    if len(order):
        s_lo = np.maximum.reduceat(e_lo[order], starts)
        s_hi = np.minimum.reduceat(e_hi[order], starts)
        s_zero = np.multiply.reduceat(e_share[order], starts)
        s_nan = np.logical_and.reduceat(e_nan[order], starts)
    else:
        s_lo = s_hi = s_zero = np.zeros(0)
        s_nan = np.zeros(0, dtype=bool)
    by_last = np.lexsort((s_last, s_owner))
    entries = np.zeros(n_leaves + 1, dtype=np.int64)  # leaf l's entries: entries[l] to entries[l + 1]
    np.cumsum(np.bincount(s_owner, minlength=n_leaves), out=entries[1:])
    return _Table(entries, s_feature[by_last].astype(np.intp), s_lo[by_last], s_hi[by_last], s_nan[by_last], s_zero[by_last],
                  value, a["output"], expected)


def _flat_tree(tree: Tree) -> bool:
    """Whether every split of the tree is ``x <= t`` (:func:`_flat_paths` takes it)."""
    return all(n.test.kind == "threshold" for n in iter_nodes(tree) if type(n) is Split)


def _leaves(model: Model) -> tuple[list[_Leaves], np.ndarray, int]:
    """The model's leaves grouped by path depth, the path-dependent expected value, and the
    number of outputs."""
    k = _n_outputs(model)
    rows: dict[int, list[tuple[Path, np.ndarray]]] = {}
    expected = np.zeros(k)
    if isinstance(model, Boosted):
        expected += model.init
    votes = isinstance(model, Ensemble) and model.method == "adaboost"
    members = _members(model)
    dense = [m for m in members if _flat_tree(m[0])]
    blocks: dict[int, list[tuple[np.ndarray, ...]]] = {}
    if dense:
        groups, dense_expected = _flat_paths(dense, k, votes)
        expected += dense_expected
        for depth, *arrays in groups:
            blocks.setdefault(depth, []).append(tuple(arrays))
    for member, scale, output in members:
        if _flat_tree(member):
            continue
        leaves, member_expected = _paths(member, votes)
        expected += _placed(member_expected, k, output) * scale
        for path, value in leaves:
            rows.setdefault(len(path), []).append((path, _placed(value, k, output) * scale))
    categories = max((len(f.categories) for f in model.schema.features), default=0)
    out = []
    for depth in sorted(set(rows) | set(blocks)):
        if depth not in rows and len(blocks[depth]) == 1:  # flat trees' leaves alone: as they come
            feature, lo, hi, nan_ok, zero, value = blocks[depth][0]
            out.append(_Leaves(depth, feature, lo, hi, nan_ok, zero, np.zeros(feature.shape, dtype=bool), None, value))
            continue
        group = rows.get(depth, [])
        m = len(group)
        feature = np.zeros((m, depth), dtype=np.intp)
        lo = np.full((m, depth), -math.inf)
        hi = np.full((m, depth), math.inf)
        nan_ok = np.zeros((m, depth), dtype=bool)
        zero = np.zeros((m, depth))
        categorical = np.zeros((m, depth), dtype=bool)
        allowed = None
        for i, (path, _) in enumerate(group):
            for d, (j, box, ok, z) in enumerate(path):
                feature[i, d], nan_ok[i, d], zero[i, d] = j, ok, z
                if isinstance(box, Interval):
                    lo[i, d], hi[i, d] = box.lo, box.hi
                else:
                    assert isinstance(box, Codes)
                    if allowed is None:
                        allowed = np.zeros((m, depth, max(1, categories)), dtype=bool)
                    categorical[i, d] = True
                    allowed[i, d, list(box.codes)] = True
        value = np.array([v for _, v in group]).reshape(m, k)
        found = blocks.get(depth, [])
        if found:  # the flat trees' leaves first, then these (numeric: no categories allowed)
            feature = np.concatenate([*(b[0] for b in found), feature])
            lo = np.concatenate([*(b[1] for b in found), lo])
            hi = np.concatenate([*(b[2] for b in found), hi])
            nan_ok = np.concatenate([*(b[3] for b in found), nan_ok])
            zero = np.concatenate([*(b[4] for b in found), zero])
            value = np.concatenate([*(b[5] for b in found), value])
            flat_m = len(feature) - m
            categorical = np.concatenate([np.zeros((flat_m, depth), dtype=bool), categorical])
            if allowed is not None:
                allowed = np.concatenate([np.zeros((flat_m, *allowed.shape[1:]), dtype=bool), allowed])
        out.append(_Leaves(depth, feature, lo, hi, nan_ok, zero, categorical, allowed, value))
    return out, expected, k


#: The groups are computed as one when padding them adds at most this many (row, leaf, path
#: feature) cells per group saved (paths of at most _MERGE_DEPTH features): each group costs
#: fixed steps that outweigh a small model's work.
_MERGE_CELLS = 25_000
_MERGE_DEPTH = 12


def _merged(groups: list[_Leaves], n_rows: int) -> list[_Leaves]:
    """The groups of a small model as one of the longest path length, the shorter paths padded
    with places that stand for no feature (every row takes them, and all the training weight: a
    player that changes nothing, whose Shapley value is 0 and leaves the others' as they are)."""
    depth = max((g.depth for g in groups), default=0)
    added = n_rows * sum(g.feature.shape[0] * (depth - g.depth) for g in groups)
    if len(groups) < 2 or added > _MERGE_CELLS * (len(groups) - 1) or depth > _MERGE_DEPTH:
        return groups
    def padded(a: np.ndarray, g: _Leaves, fill: Any) -> np.ndarray:
        out = np.full((a.shape[0], depth, *a.shape[2:]), fill, dtype=a.dtype)
        out[:, depth - g.depth :] = a  # the pads first: the path's own features keep their order
        return out
    allowed = None
    if any(g.allowed is not None for g in groups):
        width = max(g.allowed.shape[2] for g in groups if g.allowed is not None)
        allowed = np.concatenate([padded(g.allowed if g.allowed is not None else np.zeros((g.feature.shape[0], g.depth, width), dtype=bool), g, False) for g in groups])
    pad = np.concatenate([padded(np.zeros(g.feature.shape, dtype=bool), g, True) for g in groups])
    return [_Leaves(depth,
                    np.concatenate([padded(g.feature, g, 0) for g in groups]),
                    np.concatenate([padded(g.lo, g, -math.inf) for g in groups]),
                    np.concatenate([padded(g.hi, g, math.inf) for g in groups]),
                    np.concatenate([padded(g.nan_ok, g, True) for g in groups]),
                    np.concatenate([padded(g.zero, g, 1.0) for g in groups]),
                    np.concatenate([padded(g.categorical, g, False) for g in groups]),
                    allowed,
                    np.concatenate([g.value for g in groups]),
                    pad if pad.any() else None)]


def _placed(value: np.ndarray, k: int, output: int | None) -> np.ndarray:
    """A member's output as the model's ``k`` outputs: all of them (None), or a boosted stage
    tree's one value at its output."""
    if output is None:
        return value
    out = np.zeros(k)
    out[output] = value[0]
    return out


def _members(model: Model) -> list[tuple[Tree, float, int | None]]:
    """The trees, the factor each one's output is scaled by in the model's output, and the
    output a boosted stage tree adds to (None: every output)."""
    if isinstance(model, Tree):
        return [(model, 1.0, None)]
    if isinstance(model, Boosted):
        return [(tree, model.learning_rate, c) for stage in model.stages for c, tree in enumerate(stage)]
    total = vote_total(model)
    return [(m, w / total, None) for m, w in zip(model.members, model.weights)]


def _n_outputs(model: Model) -> int:
    if isinstance(model, Boosted):
        return model.n_outputs
    return 1 if model.schema.is_regression else len(model.schema.classes)


# -- which rows agree with which path ---------------------------------------------------------


def _agree(group: _Leaves, X: np.ndarray) -> np.ndarray:
    """``(rows, leaves, depth)``: whether each row's value of each path feature is in the path's box."""
    x = X[:, group.feature]
    with np.errstate(invalid="ignore"):
        ok = (x > group.lo) & (x <= group.hi)
    if group.allowed is not None:
        codes = np.where(np.isnan(x) | ~group.categorical, 0, x).astype(np.intp)
        codes = np.clip(codes, 0, group.allowed.shape[2] - 1)
        leaf = np.arange(group.feature.shape[0])[None, :, None]
        path = np.arange(group.depth)[None, None, :]
        ok = np.where(group.categorical, group.allowed[leaf, path, codes], ok)
    if group.pad is not None:
        ok |= group.pad
    if not np.isnan(X).any():  # no missing value: no pass over the cells for them
        return ok
    return np.where(np.isnan(x), group.nan_ok, ok)


# -- the paper's polynomial, for many leaves and rows at once --------------------------------


def _path_shares(one: np.ndarray, zero: np.ndarray) -> np.ndarray:
    """Algorithm 2's weight of each path feature at a leaf, times ``one - zero``: EXTEND over the
    path, then UNWOUND_PATH_SUM per feature (shap's ``tree_shap.h``), batched over the leading axes.

    ``one``: ``(..., depth)``, 1 where the row takes the path's branches of a feature, else 0;
    ``zero``: the training weight's share that takes them; the answer has their shape.
    """
    shape = np.broadcast_shapes(one.shape, zero.shape)
    depth = shape[-1]
    # Computed path feature first, the batch last: every step below is then one contiguous
    # pass over the batch (the same operations, in the same order, as shap's per path).
    one_t = np.broadcast_to(one, shape).reshape(-1, depth).T
    zero_t = np.broadcast_to(zero, shape).reshape(-1, depth).T
    return _path_shares_t(np.ascontiguousarray(one_t), np.ascontiguousarray(zero_t)).T.reshape(shape)


def _path_shares_t(one: np.ndarray, zero: np.ndarray) -> np.ndarray:
    """:func:`_path_shares` of ``(depth, batch)`` arrays, answering ``(depth, batch)``."""
    depth, n = one.shape
    pweight = np.zeros((depth + 1, n))
    pweight[0] = 1.0
    for k in range(1, depth + 1):  # extend by path feature k (the dummy root is element 0)
        o, z = one[k - 1], zero[k - 1]
        old = pweight[:k].copy()
        at = np.arange(k)[:, None]
        # shap's z * pweight[i] * (k - i) / (k + 1), with the two constants taken as one factor
        np.multiply(old, z * ((k - at) / (k + 1)), out=pweight[:k])
        pweight[1 : k + 1] += old * (o * ((at + 1) / (k + 1)))
    # UNWOUND_PATH_SUM: for a feature the row takes (one = 1) shap's recursion, term by term in
    # its order; for one it does not (one = 0) the sum of pweight[i] / (zero * (depth - i)), taken
    # here as (sum of pweight[i] / (depth - i)) / zero: one product for all of them.
    total = np.zeros((depth, n))
    nxt = np.repeat(pweight[depth : depth + 1], depth, axis=0)
    tmp = np.empty((depth, n))
    for i in range(depth - 1, -1, -1):
        np.divide(nxt, i + 1, out=tmp)
        total += tmp
        np.multiply(tmp, zero, out=nxt)
        nxt *= depth - i
        np.subtract(pweight[i : i + 1], nxt, out=nxt)
    with np.errstate(divide="ignore", invalid="ignore"):
        cold = pweight[0] / depth
        for i in range(1, depth):  # term by term (a product's float order can vary with the memory's alignment)
            cold = cold + pweight[i] * (1.0 / (depth - i))
        cold = cold[None, :] / zero
    total = np.where(one != 0, total, cold)
    shares = total * (depth + 1) * (one - zero)
    # A leaf no coalition reaches (a path feature the row does not take and no training weight
    # took): its terms are 0 / 0 above, and its share nothing.
    dead = ((one == 0) & (zero == 0)).any(axis=0, keepdims=True)
    return np.where(dead, 0.0, shares)


def _interventional_weights(depth: int) -> tuple[np.ndarray, np.ndarray]:
    """``(N, M)`` -> the Shapley weight of a feature a leaf needs from the row (``M`` of the
    ``N`` features where the row and the background row part) and of one it needs from the
    background row: ``(M-1)! (N-M)! / N!`` and ``M! (N-M-1)! / N!``."""
    pos = np.zeros((depth + 1, depth + 1))
    neg = np.zeros((depth + 1, depth + 1))
    for n in range(1, depth + 1):
        for m in range(n + 1):
            if m >= 1:
                pos[n, m] = 1.0 / (n * math.comb(n - 1, m - 1))
            if m < n:
                neg[n, m] = 1.0 / (n * math.comb(n - 1, m))
    return pos, neg


def _patterns(agree: np.ndarray) -> np.ndarray:
    """Each row's agreement with a leaf's path as bits (path feature ``d``: bit ``d``), for the
    paths of at most 40 features that take patterns."""
    depth = agree.shape[-1]
    out = agree[..., 0].astype(np.int64)
    for d in range(1, depth):
        out |= agree[..., d].astype(np.int64) << d
    return out


def _distinct(agree: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The distinct (leaf, pattern) pairs of ``agree`` (``(rows, leaves, depth)``): each pair's
    leaf, its pattern's bits ``(pairs, depth)``, and the pair of each row and leaf
    ``(rows, leaves)``. Rows share few patterns per leaf, so the paper's polynomial runs once
    per pair, not once per row."""
    m, depth = agree.shape[1], agree.shape[2]
    key = _patterns(agree) * m + np.arange(m)  # < 2**depth * m: exact in int64 for depth <= 40
    unique, inverse = np.unique(key, return_inverse=True)
    bits = ((unique // m)[:, None] >> np.arange(depth)) & 1
    return unique % m, bits.astype(bool), inverse.reshape(key.shape)


#: Paths of more distinct features than this are computed row by row, not by pattern.
_PATTERN_DEPTH = 40


def _add(phi: np.ndarray, group: _Leaves, shares: np.ndarray) -> None:
    """``phi[row, feature, output] += shares[row, leaf, d] * value[leaf, output]`` over the
    leaves' path features ``d`` that test ``feature``."""
    for j in np.unique(group.feature).tolist():
        leaf, d = np.nonzero(group.feature == j)
        # Products and a sum, not a BLAS product or einsum: a small product's threads cost more
        # than it does (on a busy machine, much more), and their float order can vary with the
        # memory's alignment, where this one is the same for the same values.
        phi[:, j, :] += (shares[:, leaf, d][:, :, None] * group.value[leaf][None]).sum(axis=1)


def _chunks(n: int, per_row: int) -> list[slice]:
    step = max(1, _CELLS // max(1, per_row))
    return [slice(s, min(n, s + step)) for s in range(0, n, step)]


def _by_pairs(group: _Leaves, X: np.ndarray, reached: np.ndarray, phi: np.ndarray, shares_of: Any) -> None:
    """Add to ``phi`` each row's shares at the group's leaves, ``shares_of(leaf, bits)`` computing
    them for (leaf, agreement pattern) pairs: once for every pair some row has (then looked up
    per row), found with a flag per possible pair when there are few enough of those, else
    chunk by chunk of rows with :func:`_distinct`."""
    n = X.shape[0]
    m, depth = group.feature.shape[0], group.depth
    chunks = _chunks(n, m * (depth + 1) * 4)
    if m << depth > _CELLS:
        for rows in chunks:
            agree = _agree(group, X[rows])
            reached[rows] += agree.all(axis=-1).sum(axis=1)
            leaf, bits, pair = _distinct(agree)
            _add(phi[rows], group, shares_of(leaf, bits)[pair])
        return
    first = np.arange(m, dtype=np.int64) << depth  # (leaf, pattern) -> leaf * 2**depth + pattern
    seen = np.zeros(m << depth, dtype=bool)
    keys: list[np.ndarray] = []
    keep = n * m <= _CELLS  # the rows' keys kept for the second pass (else computed again)
    for rows in chunks:
        pattern = _patterns(_agree(group, X[rows]))
        reached[rows] += (pattern == (1 << depth) - 1).sum(axis=1)
        key = pattern + first
        seen[key] = True
        if keep:
            keys.append(key)
    pairs = np.flatnonzero(seen)
    index = np.cumsum(seen) - 1  # a seen pair's row of the table
    bits = ((pairs & ((1 << depth) - 1))[:, None] >> np.arange(depth)) & 1
    table = shares_of(pairs >> depth, bits.astype(bool))
    n_features, k = phi.shape[1:]
    valued = None
    for i, rows in enumerate(chunks):
        key = keys[i] if keep else _patterns(_agree(group, X[rows])) + first
        r = rows.stop - rows.start
        if r * m * depth > _SMALL * n_features:
            _add(phi[rows], group, table.take(index[key], axis=0))
            continue
        # Few cells: _add's steps per feature would cost more than they do. The table's shares
        # times their leaf's values, summed into (row, feature, output) with one count.
        if valued is None:
            valued = (table[:, :, None] * group.value[pairs >> depth][:, None, :]).reshape(len(table), depth * k)
            column = (group.feature.reshape(-1, 1) * k + np.arange(k)).reshape(-1)  # (leaf, d, output) -> (feature, output)
        at = (np.arange(r)[:, None] * (n_features * k) + column).reshape(-1)
        phi[rows] += np.bincount(at, weights=valued.take(index[key], axis=0).reshape(-1), minlength=r * n_features * k).reshape(r, n_features, k)


def _path_dependent(groups: list[_Leaves], X: np.ndarray, phi: np.ndarray, reached: np.ndarray) -> None:
    """Add the path-dependent values to ``phi``, and to ``reached`` the leaves each row reaches."""
    for group in groups:
        m, depth = group.feature.shape[0], group.depth
        if depth == 0:
            reached += m
        elif depth > _PATTERN_DEPTH:  # patterns too wide for an int64 key: row by row
            for rows in _chunks(X.shape[0], m * (depth + 1) * 4):
                agree = _agree(group, X[rows])
                reached[rows] += agree.all(axis=-1).sum(axis=1)
                _add(phi[rows], group, _path_shares(agree.astype(np.float64), group.zero[None]))
        else:
            def shares_of(leaf: np.ndarray, bits: np.ndarray, group: _Leaves = group) -> np.ndarray:
                out = np.empty(bits.shape)
                for part in _chunks(len(leaf), 4 * (group.depth + 1)):
                    # (path feature, pair) arrays: see _path_shares
                    one = np.ascontiguousarray(bits[part].T, dtype=np.float64)
                    out[part] = _path_shares_t(one, group.zero.T.take(leaf[part], axis=1)).T
                return out

            _by_pairs(group, X, reached, phi, shares_of)


def _interventional(groups: list[_Leaves], X: np.ndarray, R: np.ndarray, phi: np.ndarray, reached: np.ndarray) -> np.ndarray:
    """Add the interventional values to ``phi``, and to ``reached`` the leaves each row reaches;
    return the mean output over the background."""
    n_back = R.shape[0]
    expected = np.zeros(phi.shape[2])
    for group in groups:
        m, depth = group.feature.shape[0], group.depth
        back = _agree(group, R)  # (background, leaves, depth)
        expected += (back.all(axis=-1).sum(axis=0)[:, None] * group.value).sum(axis=0) / n_back
        if depth == 0:
            reached += m
            continue
        if depth > _PATTERN_DEPTH:
            raise ParameterError(f"interventional values take paths of at most {_PATTERN_DEPTH} distinct features; this model has a leaf whose path tests {depth}")
        full = (1 << depth) - 1
        rcode = _patterns(back).T  # (leaves, background)
        rfail = (~back).astype(np.float64).transpose(1, 0, 2)  # (leaves, background, depth)
        pos, neg = _interventional_weights(depth)

        def shares_of(leaf: np.ndarray, bits: np.ndarray, rcode: np.ndarray = rcode, rfail: np.ndarray = rfail, full: int = full, pos: np.ndarray = pos, neg: np.ndarray = neg) -> np.ndarray:
            out = np.empty(bits.shape)
            for part in _chunks(len(leaf), n_back * (bits.shape[1] + 2)):
                at = leaf[part]
                out[part] = _interventional_shares(bits[part], rcode[at], rfail[at], full, pos, neg) / n_back
            return out

        _by_pairs(group, X, reached, phi, shares_of)
    return expected


def _interventional_shares(agree: np.ndarray, rcode: np.ndarray, rfail: np.ndarray, full: int, pos: np.ndarray, neg: np.ndarray) -> np.ndarray:
    """Summed over the background rows, each path feature's weight at a leaf for a pattern
    (``agree``: ``(pairs, depth)``; the leaf's background patterns ``rcode``, ``(pairs, background)``,
    and the features each background row fails, ``rfail``, ``(pairs, background, depth)``):
    the leaf is reached by a mix of the row and a background row when every path feature agrees
    with one of them; a feature only the row agrees with gets ``+pos[N, M]``, one only the
    background row agrees with ``-neg[N, M]`` (``M`` of the first kind, ``N`` of both)."""
    xcode = _patterns(agree)[:, None]  # (pairs, 1)
    needs_back = ~xcode & full
    reach = (needs_back & ~rcode) == 0  # (pairs, background)
    m = np.bitwise_count(xcode & ~rcode & full).astype(np.intp)
    nn = m + np.bitwise_count(needs_back).astype(np.intp)
    a = np.where(reach, pos[nn, m], 0.0)
    b = np.where(reach, neg[nn, m], 0.0).sum(axis=1)  # (pairs,)
    from_row = (a[:, :, None] * rfail).sum(axis=1)  # (pairs, depth); not a product: see _add
    return np.where(agree, from_row, -b[:, None])


# -- the compiled path-dependent values ------------------------------------------------------

#: Least work (rows x path entries) shared between the cores: below it, starting threads costs
#: more than it saves.
_PARALLEL_WORK = 2_000_000


def _compiled() -> tuple[Any, Any] | None:
    """The compiled ``pt_treeshap_paths`` and ``pt_treeshap`` (``puretree/growth/_treeshap.c``),
    declared; None where the library is unavailable, built before them, or ``PURETREE_ENGINE=numpy``
    chooses numpy."""
    if os.environ.get("PURETREE_ENGINE", "").strip() == "numpy" or not kernels.AVAILABLE:
        return None
    lib = kernels.library()
    paths, values = (getattr(lib, name, None) for name in ("pt_treeshap_paths", "pt_treeshap")) if lib is not None else (None, None)
    if paths is None or values is None:
        return None
    if values.argtypes is None:
        p, i64 = ctypes.c_void_p, ctypes.c_int64
        paths.argtypes = [i64, p, p, p, p, p, p, p, p, i64, p, p, p, p, p, p, p]
        paths.restype = ctypes.c_int
        values.argtypes = [p, i64, p, p, p, p, p, p, p, i64, p, i64, i64, i64, i64, ctypes.c_int, p, p]
        values.restype = ctypes.c_int
    return paths, values


def _address(a: np.ndarray) -> int:
    return int(a.__array_interface__["data"][0])


def _compiled_paths(fn: Any, a: dict[str, np.ndarray], k: int) -> _Table:
    """:func:`_flat_table`'s paths by the compiled ``pt_treeshap_paths`` from its node arrays ``a``."""
    n = len(a["parent"])
    i64 = [np.ascontiguousarray(a[name], dtype=np.int64) for name in ("parent", "feature", "left", "right", "missing")]
    threshold, weight = (np.ascontiguousarray(a[name], dtype=np.float64) for name in ("threshold", "weight"))
    majority = np.ascontiguousarray(a["majority"], dtype=np.uint8)
    n_leaves = int(a["leaf"].sum())
    capacity = int(a["depth"][a["leaf"]].sum())  # a path has at most one entry per edge
    start = np.empty(n_leaves + 1, dtype=np.int64)
    feature = np.empty(capacity, dtype=np.int64)
    lo, hi, zero = np.empty(capacity), np.empty(capacity), np.empty(capacity)
    nan_ok = np.empty(capacity, dtype=np.uint8)
    reach = np.empty(n_leaves)
    status = fn(n, *(_address(v) for v in i64[:2]), _address(threshold), *(_address(v) for v in i64[2:4]), _address(weight), _address(i64[4]),
                _address(majority), capacity, *(_address(v) for v in (start, feature, lo, hi, nan_ok, zero, reach)))
    if status == 1:
        raise MemoryError("TreeSHAP: no memory for the paths")
    if status != 0:  # the node arrays are built above: a defect, not the user's input
        raise AssertionError(f"pt_treeshap_paths refused the node arrays (status {status})")
    used = int(start[-1])
    value = a["value"].reshape(n_leaves, k)
    expected = (reach[:, None] * value).sum(axis=0)
    return _Table(start, feature[:used], lo[:used], hi[:used], nan_ok[:used].astype(bool), zero[:used], value, a["output"], expected)


def _compiled_path_dependent(fn: Any, table: _Table, X: np.ndarray, phi: np.ndarray, reached: np.ndarray) -> None:
    """Add the path-dependent values of the rows ``X`` to ``phi`` (C order) and to ``reached``
    the leaves each row reaches, with the compiled TreeSHAP: :func:`contributions`' operations
    in its order, so its values bit for bit (the numpy path's to rounding)."""
    start, feature, output = (np.ascontiguousarray(a, dtype=np.int64) for a in (table.start, table.feature, table.output))
    lo, hi, zero, value = (np.ascontiguousarray(a, dtype=np.float64) for a in (table.lo, table.hi, table.zero, table.value))
    nan_ok = np.ascontiguousarray(table.nan_ok, dtype=np.uint8)
    X = np.ascontiguousarray(X, dtype=np.float64)
    n, p = X.shape
    threads = min(os.cpu_count() or 1, 64) if n * len(feature) >= _PARALLEL_WORK else 1
    status = fn(_address(start), len(start) - 1, _address(feature), _address(lo), _address(hi), _address(nan_ok), _address(zero),
                _address(value), _address(output), phi.shape[2], _address(X), n, p, p, 1, threads, _address(phi), _address(reached))
    if status == 1:
        raise MemoryError("TreeSHAP: no memory for a block's tables")
    if status != 0:  # the tables are built above: a defect, not the user's input
        raise AssertionError(f"pt_treeshap refused the leaf tables (status {status})")


# -- checks and the public function ----------------------------------------------------------


def _row_namer(X: Any, what: str) -> Any:
    """How errors name a row of ``X`` (``what``: "X" or "data"): by file and line for a dataset
    read from a file, else by its argument's name and row number."""
    if isinstance(X, Dataset) and X.source is not None:
        return X.row_name
    return lambda r: f"{what}: row {r}"


def _encoded(model: Model, X: Any, what: str) -> np.ndarray:
    """``X`` as the model's float matrix (a float32 boosted model's numeric features rounded to
    float32, as it reads them), its unseen categories and its missing values that the model
    cannot explain refused with the column and row named."""
    Xe = np.array(encode_features(model.schema, X), dtype=np.float64)
    if isinstance(model, Boosted) and model.precision == "float32":
        numeric = [j for j, f in enumerate(model.schema.features) if f.is_numeric]
        with np.errstate(over="ignore"):  # beyond float32's range: +-inf, as XGBoost reads it
            Xe[:, numeric] = Xe[:, numeric].astype(np.float32).astype(np.float64)
    row = _row_namer(X, what)
    for name, count, first in unseen_cells(model.schema, Xe):
        raise DataError(f"{row(first)}, column {name!r}: a category the model never saw (rows with one: {count}); its answer stops at a split and has no Shapley values")
    absent = np.isnan(Xe)
    if absent.any():
        for m, _, _ in _members(model):
            surrogated = any(type(n) is Split and n.surrogates is not None for n in iter_nodes(m))
            if m.missing in ("distribute", "error") or surrogated:
                r, j = (int(v[0]) for v in np.nonzero(absent))
                why = "surrogate splits" if surrogated else f"the missing-value strategy {m.missing!r}"
                raise DataError(f"{row(r)}, column {model.schema.feature_names[j]!r}: a missing value, which a tree with {why} does not send down one path; TreeSHAP needs one")
    return Xe


def _check_reached(reached: np.ndarray, n_trees: int, row: Any) -> None:
    """Every row reached one leaf of every tree (a category with no branch at a split stops it)."""
    bad = np.flatnonzero(reached != n_trees)
    if bad.size:
        raise DataError(f"{row(int(bad[0]))} stops at a split with no branch for its value (rows that do: {bad.size}); it has no Shapley values")


def _reached(groups: list[_Leaves], X: np.ndarray) -> np.ndarray:
    """How many leaves each row reaches."""
    reached = np.zeros(X.shape[0], dtype=np.int64)
    for group in groups:
        for rows in _chunks(X.shape[0], group.feature.size + 1):
            reached[rows] += _agree(group, X[rows]).all(axis=-1).sum(axis=1)
    return reached


def shap_values(model: Model, X: Any, *, feature_perturbation: str = "tree_path_dependent", data: Any = None) -> ShapValues:
    """The TreeSHAP values of ``model``'s output for the rows ``X`` (see the module notes).

    ``X`` and ``data`` are what :func:`puretree.predict` takes (a 2-D array in schema order, a
    DataFrame, a :class:`~puretree.data.Dataset`, mappings). ``data`` is the background set of the
    ``"interventional"`` game and is not taken by the other. One row given as a mapping gives
    ``values`` without the row axis.

    >>> import puretree as pt
    >>> ds = pt.datasets.load_playtennis()  # categorical features, multiway splits
    >>> tree = pt.id3(ds)
    >>> sv = pt.shap_values(tree, ds)
    >>> sv.values.shape, sv.output
    ((14, 4, 2), 'probability')
    >>> bool(np.allclose(sv.values.sum(axis=1) + sv.expected_value, pt.predict_proba(tree, ds)))
    True
    """
    if not isinstance(model, (Tree, Ensemble, Boosted)):
        raise ParameterError(f"shap_values explains a puretree Tree, Ensemble or Boosted model, got {type(model).__name__}")
    if feature_perturbation not in PERTURBATIONS:
        raise ParameterError(f"feature_perturbation must be one of {list(PERTURBATIONS)}, got {feature_perturbation!r}")
    interventional = feature_perturbation == "interventional"
    if interventional and data is None:
        raise ParameterError('feature_perturbation="interventional" needs a background set: data=... (e.g. 100 rows of the training data)')
    if not interventional and data is not None:
        raise ParameterError('data (a background set) is for feature_perturbation="interventional"; "tree_path_dependent" uses the training weight of each node')
    Xe = _encoded(model, X, "X")
    members = _members(model)
    n_trees = len(members)
    compiled = None if interventional else _compiled()
    if compiled is not None and all(_flat_tree(m) for m, _, _ in members):
        # threshold trees, path-dependent: the compiled TreeSHAP over the leaves' table
        k = _n_outputs(model)
        table = _flat_table(members, k, isinstance(model, Ensemble) and model.method == "adaboost", compiled[0])
        expected = table.expected + (np.asarray(model.init, dtype=np.float64) if isinstance(model, Boosted) else 0.0)
        phi = np.zeros((Xe.shape[0], model.schema.n_features, k))
        reached = np.zeros(Xe.shape[0], dtype=np.int64)
        _compiled_path_dependent(compiled[1], table, Xe, phi, reached)
    else:
        expected, k, phi, reached = _numpy_values(model, Xe, interventional, data)
    _check_reached(reached, n_trees, _row_namer(X, "X"))
    if isinstance(model, Boosted):
        output = "raw"
    else:
        output = "value" if model.schema.is_regression else "votes" if isinstance(model, Ensemble) and model.method == "adaboost" else "probability"
    single = k == 1 and (model.schema.is_regression or isinstance(model, Boosted))  # one output: no output axis
    values: np.ndarray = phi[:, :, 0] if single else phi
    base: Any = float(expected[0]) if single else expected
    if isinstance(X, Mapping):
        values = values[0]
    return ShapValues(values, base, model.schema.feature_names, output, feature_perturbation)


def _numpy_values(model: Model, Xe: np.ndarray, interventional: bool, data: Any) -> tuple[np.ndarray, int, np.ndarray, np.ndarray]:
    """The values of the rows ``Xe`` with numpy, by (leaf, pattern) pairs: the expected value,
    the number of outputs, ``phi`` and the leaves each row reaches."""
    groups, expected, k = _leaves(model)
    groups = _merged(groups, Xe.shape[0])
    n_trees = len(_members(model))
    phi = np.zeros((Xe.shape[0], model.schema.n_features, k))
    reached = np.zeros(Xe.shape[0], dtype=np.int64)
    if interventional:
        R = _encoded(model, data, "data")
        if R.shape[0] == 0:
            raise ParameterError("the background set data has no rows")
        _check_reached(_reached(groups, R), n_trees, _row_namer(data, "data"))
        expected = _interventional(groups, Xe, R, phi, reached)
        if isinstance(model, Boosted):  # every row starts from the initial raw score
            expected = expected + np.asarray(model.init)
    else:
        _path_dependent(groups, Xe, phi, reached)
    return expected, k, phi, reached


# -- one float order for the library and the generated code ---------------------------------


@attrs.frozen(eq=False)
class ContributionLeaf:
    """One leaf as :func:`contributions` and the generated ``NAME_contributions`` read it: the
    path's distinct features (``feature``, in the order of their last test on the path), the
    box each asks of the row (``lo < x <= hi``), whether a missing value follows the path
    (``nan_ok``), the share of the training weight that follows it (``zero``), and the leaf's
    output, scaled by its tree's weight in the model: ``value[c]`` for every output ``c``
    (``output`` None), or one value added to output ``output`` (a boosted stage tree)."""

    feature: tuple[int, ...]
    lo: tuple[float, ...]
    hi: tuple[float, ...]
    nan_ok: tuple[bool, ...]
    zero: tuple[float, ...]
    value: tuple[float, ...]
    output: int | None


@attrs.frozen(eq=False)
class ContributionTables:
    """A model's leaves in the order :func:`contributions` adds them (tree by tree, each tree's
    leaves in pre-order), its ``expected`` value per output, ``n_features``, ``n_outputs``,
    whether rows with a missing value are refused (``nan_refused``: a tree with the
    ``"distribute"`` or ``"error"`` strategy or surrogate splits sends one down no single path)
    and whether the numeric features are read as float32 (``float32``: an XGBoost model)."""

    leaves: tuple[ContributionLeaf, ...]
    expected: tuple[float, ...]
    n_features: int
    n_outputs: int
    nan_refused: bool
    float32: bool


def contribution_tables(model: Model) -> ContributionTables:
    """The leaves of ``model`` as :func:`contributions` and the generated code walk them.

    Numeric features only: a categorical split is refused (:class:`~puretree.errors.ParameterError`).

    >>> import puretree as pt
    >>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
    >>> schema = Schema((Feature("a"),), task="regression")
    >>> tree = pt.Tree(Split(0, Threshold(0.5), (Leaf((1, 0.0, 0.0)), Leaf((3, 6.0, 12.0))), (4, 6.0, 12.0)), schema)
    >>> t = contribution_tables(tree)
    >>> t.expected, [(leaf.feature, leaf.lo, leaf.hi, leaf.zero, leaf.value) for leaf in t.leaves]
    ((1.5,), [((0,), (-inf,), (0.5,), (0.25,), (0.0,)), ((0,), (0.5,), (inf,), (0.75,), (2.0,))])
    """
    if not isinstance(model, (Tree, Ensemble, Boosted)):
        raise ParameterError(f"contributions explain a puretree Tree, Ensemble or Boosted model, got {type(model).__name__}")
    for f in model.schema.features:
        if not f.is_numeric:
            raise ParameterError(f"contributions in the code's float order take numeric features; feature {f.name!r} is categorical (shap_values explains it)")
    k = _n_outputs(model)
    expected = np.zeros(k)
    if isinstance(model, Boosted):
        expected += model.init
    votes = isinstance(model, Ensemble) and model.method == "adaboost"
    leaves = []
    refused = False
    for member, scale, output in _members(model):
        refused = refused or member.missing in ("distribute", "error") or any(type(n) is Split and n.surrogates is not None for n in iter_nodes(member))
        paths, member_expected = _paths(member, votes)
        expected += _placed(member_expected, k, output) * scale
        for path, value in paths:
            if not path:
                continue  # a tree of one leaf: its value is all in the expected value
            boxes = [box for _, box, _, _ in path]
            for (j, _, _, _), box in zip(path, boxes):
                if not isinstance(box, Interval):
                    raise ParameterError(f"contributions in the code's float order take threshold splits; feature {model.schema.feature_names[j]!r} is split by categories (shap_values explains it)")
            scaled = _placed(value, k, output) * scale
            leaves.append(ContributionLeaf(
                tuple(int(j) for j, _, _, _ in path), tuple(float(b.lo) for b in boxes), tuple(float(b.hi) for b in boxes),
                tuple(bool(ok) for _, _, ok, _ in path), tuple(float(z) for _, _, _, z in path),
                (float(scaled[output]),) if output is not None else tuple(float(v) for v in scaled), output))
    float32 = isinstance(model, Boosted) and model.precision == "float32"
    return ContributionTables(tuple(leaves), tuple(float(v) for v in expected), model.schema.n_features, k, refused, float32)


def _leaf_shares(leaf: ContributionLeaf, x: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """Rows ``x`` (``(rows, features)``) that take part at ``leaf`` and each path feature's
    share there, in the defined float order (see :func:`contributions`), elementwise over the
    rows: numpy's elementwise operations round each one as C's double operations do."""
    depth = len(leaf.feature)
    one = []
    for d, j in enumerate(leaf.feature):
        v = x[:, j]
        with np.errstate(invalid="ignore"):
            inside = (v > leaf.lo[d]) & (v <= leaf.hi[d])
        one.append(np.where(np.isnan(v), leaf.nan_ok[d], inside))
    live = np.ones(x.shape[0], dtype=bool)
    for d in range(depth):
        if leaf.zero[d] == 0.0:
            live &= one[d]  # no coalition without the row's value reaches the leaf
    inv = [0.0] + [1.0 / n for n in range(1, depth + 2)]  # the code's table: products, not divisions
    pw = [np.ones(x.shape[0])] + [np.zeros(x.shape[0]) for _ in range(depth)]
    for k in range(1, depth + 1):  # EXTEND by path feature k (element 0: the empty path)
        o, z = one[k - 1], leaf.zero[k - 1]
        for i in range(k - 1, -1, -1):
            pw[i + 1] = np.where(o, pw[i + 1] + pw[i] * float(i + 1) * inv[k + 1], pw[i + 1])
            pw[i] = z * pw[i] * float(k - i) * inv[k + 1]
    shares = []
    with np.errstate(divide="ignore", invalid="ignore"):
        for d in range(depth):
            z = leaf.zero[d]
            nxt = pw[depth]
            hot = np.zeros(x.shape[0])
            for i in range(depth - 1, -1, -1):  # UNWOUND_PATH_SUM, the row's value on the path
                tmp = nxt * inv[i + 1]
                hot = hot + tmp
                nxt = pw[i] - tmp * z * float(depth - i)
            cold = np.zeros(x.shape[0])
            if z != 0.0:
                for i in range(depth - 1, -1, -1):  # the row's value off the path
                    cold = cold + pw[i] * inv[depth - i]
                cold = cold / z
            total = np.where(one[d], hot, cold)
            shares.append(total * float(depth + 1) * (np.where(one[d], 1.0, 0.0) - z))
    return live, shares


def contributions(model: Model, X: Any) -> np.ndarray:
    """Path-dependent TreeSHAP in one defined float order, the one the generated
    ``NAME_contributions`` follows (``generate(..., contributions=True)``), so that the code's
    values equal these bit for bit. ``(rows, outputs, features + 1)``: per output, the
    features' values, then the expected value (the layout of the generated code's ``out``).

    The order: ``out`` starts at zero; for each tree in the model's order and each of its
    leaves in pre-order whose path features the row's values or the training weight can take
    (a feature whose branch no training weight took and the row does not take leaves it out),
    Lundberg's EXTEND over the path features (``pw[i+1] += pw[i] * (i+1) * inv[k+1]`` where the
    row takes feature ``k``'s branches, then ``pw[i] = zero * pw[i] * (k-i) * inv[k+1]``, ``i`` down
    from ``k-1``; ``inv[n]`` the double nearest ``1/n``: products, where a microcontroller's
    software divisions cost several times more), then per path feature ``d`` in path order its
    UNWOUND_PATH_SUM ``total`` (``i`` down from ``depth-1``; see docs/explain.md) and
    ``out[c][feature] += total * (depth+1) * (one - zero) * value[c]``, each product rounded
    before it is added (no fused multiply-add). The values
    equal :func:`shap_values`' to rounding (about 1e-15 relative), not bit for bit: those add in
    another order. Numeric features only; the interventional game needs the background set,
    which the generated code does not carry.

    >>> import puretree as pt
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(200, 4)); y = (X[:, 0] + X[:, 1] * X[:, 2] > 0).astype(int)
    >>> tree = pt.cart(X, y, max_depth=4)
    >>> c = contributions(tree, X[:5])
    >>> c.shape, bool(np.allclose(c[:, :, :-1].transpose(0, 2, 1), pt.shap_values(tree, X[:5]).values, rtol=0, atol=1e-12))
    ((5, 2, 5), True)
    """
    tables = contribution_tables(model)
    Xe = _encoded(model, X, "X")
    n, f, k = Xe.shape[0], tables.n_features, tables.n_outputs
    out = np.zeros((n, k, f + 1))
    for leaf in tables.leaves:
        live, shares = _leaf_shares(leaf, Xe)
        for d, j in enumerate(leaf.feature):
            share = np.where(live, shares[d], 0.0)
            for c in ([leaf.output] if leaf.output is not None else range(k)):
                term = share * (leaf.value[0] if leaf.output is not None else leaf.value[c])
                out[:, c, j] = np.where(live, out[:, c, j] + term, out[:, c, j])
    out[:, :, f] = tables.expected
    return out
