"""Using a tree: predict, predict_proba, apply (end node) and the decision path.

Every function takes one row (a mapping from feature name to value) or a batch (an array in
schema column order, a DataFrame, a sequence of mappings, a Dataset). Batches are
evaluated level by level with numpy over a flat, pre-order table of the tree
(:class:`FlatTree`), so any depth works and no Python loop runs per row.

**Unseen categories and missing values.** A row whose value at a categorical split is a
category never seen in training (or whose value at any split is missing) stops at that
split and gets that node's class distribution: the answer the training data gives for
"everything that reached here". A branch no training row reached (an empty leaf) answers
with its nearest ancestor's distribution. Predictions are never ``None`` and never crash.

**Ties** between classes go to the first class in sorted order.

>>> from puretree.datasets import load_playtennis
>>> from puretree.grow import id3
>>> tree = id3(load_playtennis())
>>> predict(tree, {"outlook": "sunny", "temperature": "hot", "humidity": "normal", "wind": "weak"})
'yes'
>>> predict_proba(tree, {"outlook": "fog", "temperature": "hot", "humidity": "high", "wind": "weak"}).round(3).tolist()
[0.357, 0.643]
>>> decision_path(tree, {"outlook": "sunny", "temperature": "hot", "humidity": "high", "wind": "weak"})
(0, 5, 6)
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from typing import Any

import attrs
import numpy as np

from .data import encode_features, labels_array
from .nodes import CategoricalSplit, Leaf, Node, NumericSplit, SubsetSplit, Tree, children

__all__ = [
    "LEAF",
    "NUMERIC_SPLIT",
    "MULTIWAY_SPLIT",
    "SUBSET_SPLIT",
    "FlatTree",
    "flatten",
    "predict",
    "predict_proba",
    "predict_value",
    "apply",
    "decision_path",
    "distribution",
]

LEAF, NUMERIC_SPLIT, MULTIWAY_SPLIT, SUBSET_SPLIT = 0, 1, 2, 3


@attrs.frozen(eq=False)
class FlatTree:
    """A tree as parallel arrays indexed by pre-order node id (the root is 0).

    ``left``/``right`` are child ids of binary splits. For a categorical split, its
    categories' entries are ``table[offset[i] : offset[i] + n_categories[i]]``: the child id
    per category code (multiway) or 1 for "goes left" / 0 (subset). ``value`` is the
    distribution a row ending at that node gets (an empty leaf borrows its ancestor's).
    """

    kind: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    offset: np.ndarray
    n_categories: np.ndarray
    table: np.ndarray
    counts: np.ndarray
    value: np.ndarray
    parent: np.ndarray
    depth: np.ndarray
    nodes: tuple[Node, ...]

    @property
    def n_nodes(self) -> int:
        return len(self.nodes)


def _weight(counts: tuple[float, ...], regression: bool) -> float:
    return counts[0] if regression else sum(counts)


def flatten(tree: Tree) -> FlatTree:
    """The pre-order array form of a tree (cached per tree object)."""
    key = id(tree)
    hit = _CACHE.get(key)
    if hit is not None and hit[0]() is tree:
        return hit[1]
    flat = _flatten(tree)
    _CACHE[key] = (weakref.ref(tree, lambda _ref, key=key: _CACHE.pop(key, None)), flat)
    return flat


# id(tree) -> (weak reference, flat form); entries vanish with their tree.
_CACHE: dict[int, tuple[weakref.ref, FlatTree]] = {}


def _flatten(tree: Tree) -> FlatTree:
    regression = tree.schema.is_regression
    nodes: list[Node] = []
    parent: list[int] = []
    depth: list[int] = []
    stack: list[tuple[Node, int, int]] = [(tree.root, -1, 0)]
    while stack:
        node, par, d = stack.pop()
        nodes.append(node)
        parent.append(par)
        depth.append(d)
        me = len(nodes) - 1
        stack.extend((c, me, d + 1) for c in reversed(children(node)))
    n = len(nodes)
    # A child's id: pre-order places the first child right after its parent, and each
    # next child after the previous child's whole subtree.
    kids: list[list[int]] = [[] for _ in range(n)]
    for i in range(1, n):
        kids[parent[i]].append(i)
    kind = np.zeros(n, dtype=np.int8)
    feature = np.zeros(n, dtype=np.int64)
    threshold = np.zeros(n, dtype=np.float64)
    left = np.full(n, -1, dtype=np.int64)
    right = np.full(n, -1, dtype=np.int64)
    offset = np.zeros(n, dtype=np.int64)
    n_categories = np.zeros(n, dtype=np.int64)
    table: list[int] = []
    width = len(tree.root.counts)
    counts = np.zeros((n, width))
    value = np.zeros((n, width))
    for i, node in enumerate(nodes):
        counts[i] = node.counts
        own = _weight(node.counts, regression) > 0
        value[i] = node.counts if own or parent[i] < 0 else value[parent[i]]
        match node:
            case Leaf():
                pass
            case NumericSplit():
                kind[i], feature[i], threshold[i] = NUMERIC_SPLIT, node.feature, node.threshold
                left[i], right[i] = kids[i]
            case SubsetSplit():
                m = len(tree.schema.features[node.feature].categories)
                kind[i], feature[i] = SUBSET_SPLIT, node.feature
                left[i], right[i] = kids[i]
                offset[i], n_categories[i] = len(table), m
                chosen = set(node.left_categories)
                table.extend(1 if c in chosen else 0 for c in range(m))
            case CategoricalSplit():
                kind[i], feature[i] = MULTIWAY_SPLIT, node.feature
                offset[i], n_categories[i] = len(table), len(kids[i])
                table.extend(kids[i])
    return FlatTree(
        kind, feature, threshold, left, right, offset, n_categories, np.asarray(table, dtype=np.int64),
        counts, value, np.asarray(parent, dtype=np.int64), np.asarray(depth, dtype=np.int64), tuple(nodes),
    )


def _encode(tree: Tree, X: Any) -> tuple[np.ndarray, bool]:
    single = isinstance(X, Mapping)
    return encode_features(tree.schema, X), single


def _end_nodes(flat: FlatTree, X: np.ndarray) -> np.ndarray:
    """The node id where each row's descent ends: a leaf, or a split it cannot pass."""
    end = np.zeros(X.shape[0], dtype=np.int64)
    rows = np.arange(X.shape[0])
    node = end.copy()
    while rows.size:
        kind = flat.kind[node]
        moving = kind != LEAF
        end[rows[~moving]] = node[~moving]
        rows, node, kind = rows[moving], node[moving], kind[moving]
        if not rows.size:
            break
        x = X[rows, flat.feature[node]]
        nxt = np.where(x <= flat.threshold[node], flat.left[node], flat.right[node])
        categorical = kind != NUMERIC_SPLIT
        code = np.where(categorical & (x >= 0) & (x < flat.n_categories[node]), x, -1).astype(np.int64)
        known = code >= 0
        entry = flat.table[np.where(known & categorical, flat.offset[node] + code, 0)] if flat.table.size else np.zeros_like(code)
        nxt = np.where(kind == MULTIWAY_SPLIT, entry, nxt)
        nxt = np.where(kind == SUBSET_SPLIT, np.where(entry == 1, flat.left[node], flat.right[node]), nxt)
        blocked = np.isnan(x) | (categorical & ~known)
        end[rows[blocked]] = node[blocked]
        rows, node = rows[~blocked], nxt[~blocked]
    return end


def apply(tree: Tree, X: Any) -> Any:
    """The pre-order id of the node where each row ends (normally a leaf)."""
    flat = flatten(tree)
    Xe, single = _encode(tree, X)
    ids = _end_nodes(flat, Xe)
    return int(ids[0]) if single else ids


def distribution(tree: Tree, X: Any) -> np.ndarray:
    """The (unnormalised) training statistics each row ends with, shaped ``(n, k)``."""
    flat = flatten(tree)
    Xe, _ = _encode(tree, X)
    return flat.value[_end_nodes(flat, Xe)]


def predict_proba(tree: Tree, X: Any) -> np.ndarray:
    """Class probabilities, columns in the order of ``tree.schema.classes``."""
    flat = flatten(tree)
    Xe, single = _encode(tree, X)
    value = flat.value[_end_nodes(flat, Xe)]
    total = value.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        proba = np.where(total > 0, value / np.where(total > 0, total, 1.0), 1.0 / max(1, value.shape[1]))
    return proba[0] if single else proba


def predict_value(tree: Tree, X: Any) -> Any:
    """Regression: the weighted mean target of the node each row ends at."""
    flat = flatten(tree)
    Xe, single = _encode(tree, X)
    value = flat.value[_end_nodes(flat, Xe)]
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(value[:, 0] > 0, value[:, 1] / np.where(value[:, 0] > 0, value[:, 0], 1.0), 0.0)
    return float(mean[0]) if single else mean


def predict(tree: Tree, X: Any) -> Any:
    """Predicted labels (values, for a regression tree): one for a mapping, an array for a batch.

    Labels come back exactly as given in training (their Python type for one row, their
    natural numpy dtype for a batch).
    """
    if tree.schema.is_regression:
        return predict_value(tree, X)
    proba = predict_proba(tree, X)
    if proba.ndim == 1:
        return tree.schema.classes[int(np.argmax(proba))]
    return labels_array(tree.schema.classes)[np.argmax(proba, axis=1)]


def decision_path(tree: Tree, X: Any) -> Any:
    """The pre-order ids of the nodes a row visits, root first (a tuple; a list of them for a batch)."""
    flat = flatten(tree)
    Xe, single = _encode(tree, X)
    paths = []
    for end in _end_nodes(flat, Xe).tolist():
        path = [end]
        while flat.parent[path[-1]] >= 0:
            path.append(int(flat.parent[path[-1]]))
        paths.append(tuple(reversed(path)))
    return paths[0] if single else paths
