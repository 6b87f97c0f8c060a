"""Using a tree: predict, predict_proba, apply (end node) and the decision path.

Every function takes one row (a mapping from feature name to value) or a batch (an array in
schema column order, a DataFrame, a sequence of mappings, a Dataset). Batches are
evaluated level by level with numpy over a flat, pre-order table of the tree
(:class:`FlatTree`), so any depth works and no Python loop runs per row.

**Unseen categories.** A row whose value at a categorical split is a category never seen
in training stops at that split and gets that node's class distribution: the answer the
training data gives for "everything that reached here". A branch no training row reached
(an empty leaf) answers with its nearest ancestor's distribution. Predictions are never
``None`` and never crash.

**Missing values** (NaN, None, empty cells) follow the tree's ``missing`` strategy
(:data:`~puretree.nodes.MISSING_STRATEGIES`): the heaviest branch (``"majority"``), every
branch with its training weight fraction, combining the leaves' class probabilities
(``"distribute"``, C4.5), or a :class:`~puretree.errors.DataError` (``"error"``).

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

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import numpy as np

from .data import Dataset, encode_features, labels_array
from .errors import ParameterError
from .flat import FlatTree, dense_ends, descend, flatten, normalised_fractions
from .nodes import MISSING_STRATEGIES

if TYPE_CHECKING:
    from .tree import Tree

__all__ = [
    "predict",
    "predict_proba",
    "predict_value",
    "apply",
    "decision_path",
    "MISSING_STRATEGIES",
]


def _encode(tree: Tree, X: Any) -> tuple[np.ndarray, bool]:
    single = isinstance(X, Mapping)
    return encode_features(tree.schema, X), single


def _row_namer(X: Any) -> Any:
    """How errors name a row of ``X``: by file line for a dataset read from a file."""
    return X.row_name if isinstance(X, Dataset) else "row {}".format


def _end_nodes(flat: FlatTree, X: np.ndarray, tree: Tree, row_name: Any = "row {}".format) -> np.ndarray:
    """The node id where each row's single path ends: a leaf, or a split it cannot pass."""
    rows, ends, _ = descend(flat, X, missing=tree.missing, names=tree.schema.feature_names, stop_at_missing=True, row_name=row_name)
    out = np.empty(X.shape[0], dtype=np.int64)
    out[rows] = ends
    return out


def _combined(tree: Tree, X: Any) -> tuple[np.ndarray, bool]:
    """Per row: class probabilities (or the predicted mean, as one column)."""
    flat = flatten(tree)
    ends = dense_ends(flat, X, tree.schema.features)
    if ends is not None:
        # 0.0 + p, as the sums below form it (a -0.0 mean becomes 0.0).
        return normalised_fractions(flat)[ends] + 0.0, False
    Xe, single = _encode(tree, X)
    rows, ends, weights = descend(flat, Xe, missing=tree.missing, names=tree.schema.feature_names, stop_at_missing=False, row_name=_row_namer(X))
    per_node = normalised_fractions(flat)
    out = np.zeros((Xe.shape[0], per_node.shape[1]))
    np.add.at(out, rows, weights[:, None] * per_node[ends])
    return out, single


def apply(tree: Tree, X: Any) -> Any:
    """The pre-order id of the node where each row ends (normally a leaf).

    A row stops early at a split it cannot pass: an unseen category, or (under the
    "distribute" strategy) a missing value.
    """
    flat = flatten(tree)
    Xe, single = _encode(tree, X)
    ids = _end_nodes(flat, Xe, tree, _row_namer(X))
    return int(ids[0]) if single else ids


def _ensemble(model: Any) -> bool:
    """Whether ``model`` is an ensemble (:class:`puretree.ensemble.Ensemble`, a higher layer:
    it answers for itself)."""
    return hasattr(model, "members")


def predict_proba(tree: Tree, X: Any) -> np.ndarray:
    """Class probabilities, columns in the order of ``tree.schema.classes`` (an ensemble's:
    :func:`puretree.ensemble.predict_proba`)."""
    if _ensemble(tree):
        return tree.predict_proba(X)
    if tree.schema.is_regression:
        raise ParameterError("predict_proba needs a classification tree; this is a regression tree")
    proba, single = _combined(tree, X)
    return proba[0] if single else proba


def predict_value(tree: Tree, X: Any) -> Any:
    """Regression: the weighted mean target of the leaf each row reaches."""
    mean, single = _combined(tree, X)
    return float(mean[0, 0]) if single else mean[:, 0]


def predict(tree: Tree, X: Any) -> Any:
    """Predicted labels (values, for a regression tree): one for a mapping, an array for a batch.

    Labels come back exactly as given in training (their Python type for one row, their
    natural numpy dtype for a batch). A batch of no rows gives an empty array of that dtype
    (``predict_proba``: shape ``(0, n_classes)``). An ensemble answers as
    :func:`puretree.ensemble.predict` says.
    """
    if _ensemble(tree):
        return tree.predict(X)
    if tree.schema.is_regression:
        return predict_value(tree, X)
    flat = flatten(tree)
    ends = dense_ends(flat, X, tree.schema.features)
    if ends is not None:  # the first most probable class of each end node
        return labels_array(tree.schema.classes)[np.argmax(normalised_fractions(flat), axis=1)[ends]]
    proba = predict_proba(tree, X)
    if proba.ndim == 1:
        return tree.schema.classes[int(np.argmax(proba))]
    return labels_array(tree.schema.classes)[np.argmax(proba, axis=1)]


def decision_path(tree: Tree, X: Any) -> Any:
    """The pre-order ids of the nodes a row visits, root first (a tuple; a list of them for a batch)."""
    flat = flatten(tree)
    Xe, single = _encode(tree, X)
    paths = []
    for end in _end_nodes(flat, Xe, tree, _row_namer(X)).tolist():
        path = [end]
        while flat.parent[path[-1]] >= 0:
            path.append(int(flat.parent[path[-1]]))
        paths.append(tuple(reversed(path)))
    return paths[0] if single else paths
