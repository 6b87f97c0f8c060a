"""Using a tree: predict, predict_proba, apply (end node) and the decision path.

Every function takes one row (a mapping from feature name to value) or a batch (an array in
schema column order, a DataFrame, a sequence of mappings, a Dataset). Batches are
evaluated level by level with numpy over a flat, pre-order table of the tree
(:class:`FlatTree`), so any depth works and no Python loop runs per row.

**Unseen categories.** A row whose value at a categorical split is a category never seen
in training stops at that split and gets that node's class distribution: the answer the
training data gives for "everything that reached here". A branch no training row reached
(an empty leaf) answers with its nearest ancestor's distribution. Predictions are never
``None`` and never crash. By default such a row also raises an
:class:`UnseenCategoryWarning`; ``unseen="ignore"`` says nothing, ``"error"`` refuses the row.

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
>>> fog = {"outlook": "fog", "temperature": "hot", "humidity": "high", "wind": "weak"}
>>> predict_proba(tree, fog, unseen="ignore").round(3).tolist()  # "fog" is unseen: the root's answer, quietly
[0.357, 0.643]
>>> decision_path(tree, {"outlook": "sunny", "temperature": "hot", "humidity": "high", "wind": "weak"})
(0, 5, 6)
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, Literal, Protocol, TypeAlias, Union, overload

import numpy as np

from .data import Dataset, encode_features, labels_array
from .errors import DataError, ParameterError
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
    "UNSEEN_OPTIONS",
    "UnseenCategoryWarning",
    "unseen_cells",
    "check_unseen",
    "Row",
    "Batch",
    "Frame",
    "Label",
    "Unseen",
]

#: What ``predict`` and its kin do with a category never seen in training: ``"warn"`` (the
#: default: the row is answered, and a warning says how many rows and where), ``"error"``
#: (a :class:`~puretree.errors.DataError`) or ``"ignore"`` (answered in silence).
UNSEEN_OPTIONS = ("warn", "error", "ignore")
#: :data:`UNSEEN_OPTIONS`, for type checkers.
Unseen: TypeAlias = Literal["warn", "error", "ignore"]


class Frame(Protocol):
    """A table as a pandas DataFrame is one to the library: named columns and their dtypes."""

    @property
    def columns(self) -> Any: ...

    @property
    def dtypes(self) -> Any: ...


#: One row: a mapping from feature name to value (answered with one label, one value).
Row: TypeAlias = Mapping[str, Any]
#: A batch of rows (answered with an array): a 2-D array, a sequence of rows (mappings, or
#: sequences of values in schema order), a :class:`~puretree.data.Dataset` or a DataFrame.
Batch: TypeAlias = Union[np.ndarray, Sequence[Mapping[str, Any]], Sequence[Sequence[Any]], Dataset, Frame]
#: One row's answer: a class label exactly as given in training (str, int or bool), or a
#: regression tree's value (a float).
Label: TypeAlias = Union[str, int, float, bool]


class UnseenCategoryWarning(UserWarning):
    """Rows hold categories the tree did not see in training (each answered at the split it
    cannot pass); ``unseen="ignore"`` says nothing, ``unseen="error"`` refuses them."""


def unseen_cells(schema: Any, Xe: np.ndarray) -> list[tuple[str, int, int]]:
    """``(column, rows, first row)`` for each categorical column of the encoded matrix ``Xe``
    that holds categories the schema does not know (encoded as -1).

    >>> from puretree.nodes import Feature, Schema
    >>> s = Schema((Feature("c", "categorical", ("x",)),), ("n",))
    >>> unseen_cells(s, np.array([[0.0], [-1.0], [np.nan], [-1.0]]))
    [('c', 2, 1)]
    """
    found = []
    for j, f in enumerate(schema.features):
        if not f.is_numeric:
            rows = np.flatnonzero(Xe[:, j] < 0)  # NaN (missing) is not < 0
            if len(rows):
                found.append((f.name, int(len(rows)), int(rows[0])))
    return found


def _cell(X: Any, row: int, name: str, j: int) -> Any:
    """The raw cell of ``X`` at ``row`` and column ``name`` (``j``), to show; ``None`` if unknown."""
    try:
        if isinstance(X, Mapping):
            return X[name]
        if hasattr(X, "columns") and hasattr(X, "iloc"):
            return X[name].iloc[row]
        if isinstance(X, (list, tuple)) and isinstance(X[row], Mapping):
            return X[row][name]
        if isinstance(X, np.ndarray) and X.ndim == 2:
            return X[row, j].item() if hasattr(X[row, j], "item") else X[row, j]
    except (KeyError, IndexError, TypeError):
        pass
    return None


def _caller_level() -> int:
    """The ``stacklevel`` that names the first caller outside puretree (the user's line)."""
    package = os.path.dirname(os.path.abspath(__file__))
    frame, level = sys._getframe(1), 1
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(package + os.sep):
        frame, level = frame.f_back, level + 1  # type: ignore[assignment]
    return level


def _check_unseen(tree: Tree, X: Any, Xe: np.ndarray, unseen: Unseen, row_name: Any) -> None:
    """Say (or refuse) the categories of ``X`` (encoded as ``Xe``) the tree never saw."""
    if unseen == "ignore":
        return
    found = unseen_cells(tree.schema, Xe)
    if not found:
        return
    rows = int(np.count_nonzero((Xe[:, [tree.schema.feature_names.index(n) for n, _, _ in found]] < 0).any(axis=1)))
    parts = []
    for name, count, first in found:
        value = _cell(X, first, name, tree.schema.feature_names.index(name))
        shown = "" if value is None else f" {value!r}"
        parts.append(f"column {name!r}: {count} row{'s' if count != 1 else ''}, the first{shown} at {row_name(first)}")
    text = f"{rows} row{'s' if rows != 1 else ''} hold{'s' if rows == 1 else ''} a category the tree did not see in training ({'; '.join(parts)})"
    if unseen == "error":
        raise DataError(f"{text}; unseen='warn' or 'ignore' answers such a row at the split it cannot pass")
    warnings.warn(f"{text}; each is answered at the split it cannot pass (unseen='ignore' says nothing, 'error' refuses)", UnseenCategoryWarning, stacklevel=_caller_level())


def _check_unseen_option(unseen: Any) -> None:
    if unseen not in UNSEEN_OPTIONS:
        raise ParameterError(f"unseen must be one of {list(UNSEEN_OPTIONS)}, got {unseen!r}")


def check_unseen(tree: Tree, X: Any, *, unseen: Unseen = "warn") -> None:
    """Check the rows ``X`` for categories ``tree`` never saw, as ``predict(..., unseen=)``
    does (for a path that answers without the walker: one row through the compiled tree)."""
    _check_unseen_option(unseen)
    if unseen != "ignore" and not all(f.is_numeric for f in tree.schema.features):
        _check_unseen(tree, X, encode_features(tree.schema, X), unseen, _row_namer(X))


def _numeric_rows(tree: Tree, X: Any) -> Any:
    """A DataFrame for a tree of numeric features as the float64 matrix it encodes to (so that
    the numpy walk of :func:`~puretree.flat.dense_ends` applies to it as to an array); anything
    else as it is."""
    if hasattr(X, "columns") and hasattr(X, "dtypes") and all(f.is_numeric for f in tree.schema.features):
        if [str(c) for c in X.columns] == list(tree.schema.feature_names) and all(d == np.float64 for d in X.dtypes):
            # The frame's own values, read only (a view when they are one block): nothing to encode.
            values = X.to_numpy(dtype=np.float64, copy=False).view()
            values.flags.writeable = False
            return values
        return encode_features(tree.schema, X)
    return X


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


def _combined(tree: Tree, X: Any, unseen: Unseen = "ignore") -> tuple[np.ndarray, bool]:
    """Per row: class probabilities (or the predicted mean, as one column)."""
    flat = flatten(tree)
    X = _numeric_rows(tree, X)
    ends = dense_ends(flat, X, tree.schema.features)
    if ends is not None:
        # 0.0 + p, as the sums below form it (a -0.0 mean becomes 0.0).
        return normalised_fractions(flat)[ends] + 0.0, False
    Xe, single = _encode(tree, X)
    _check_unseen(tree, X, Xe, unseen, _row_namer(X))
    rows, ends, weights = descend(flat, Xe, missing=tree.missing, names=tree.schema.feature_names, stop_at_missing=False, row_name=_row_namer(X))
    per_node = normalised_fractions(flat)
    out = np.zeros((Xe.shape[0], per_node.shape[1]))
    np.add.at(out, rows, weights[:, None] * per_node[ends])
    return out, single


@overload
def apply(tree: Tree, X: Row, *, unseen: Unseen = "warn") -> int: ...
@overload
def apply(tree: Tree, X: Batch, *, unseen: Unseen = "warn") -> np.ndarray: ...
def apply(tree: Tree, X: Any, *, unseen: Unseen = "warn") -> int | np.ndarray:
    """The pre-order id of the node where each row ends (normally a leaf).

    A row stops early at a split it cannot pass: an unseen category, or (under the
    "distribute" strategy) a missing value.
    """
    _check_unseen_option(unseen)
    flat = flatten(tree)
    Xe, single = _encode(tree, X)
    _check_unseen(tree, X, Xe, unseen, _row_namer(X))
    ids = _end_nodes(flat, Xe, tree, _row_namer(X))
    return int(ids[0]) if single else ids


def _ensemble(model: Any) -> bool:
    """Whether ``model`` is an ensemble (:class:`puretree.ensemble.Ensemble` or a boosted model,
    :class:`puretree.boosted.Boosted`, higher layers: it answers for itself)."""
    return hasattr(model, "members") or hasattr(model, "stages")


def predict_proba(tree: Tree, X: Any, *, unseen: Unseen = "warn") -> np.ndarray:
    """Class probabilities, columns in the order of ``tree.schema.classes`` (an ensemble's:
    :func:`puretree.ensemble.predict_proba`)."""
    if _ensemble(tree):
        return tree.predict_proba(X, unseen=unseen)
    if tree.schema.is_regression:
        raise ParameterError("predict_proba needs a classification tree; this is a regression tree")
    _check_unseen_option(unseen)
    proba, single = _combined(tree, X, unseen)
    return proba[0] if single else proba


def predict_value(tree: Tree, X: Any, *, unseen: Unseen = "warn") -> Any:
    """Regression: the weighted mean target of the leaf each row reaches."""
    _check_unseen_option(unseen)
    mean, single = _combined(tree, X, unseen)
    return float(mean[0, 0]) if single else mean[:, 0]


def predict(tree: Tree, X: Any, *, unseen: Unseen = "warn") -> Any:
    """Predicted labels (values, for a regression tree): one for a mapping, an array for a batch.

    Labels come back exactly as given in training (their Python type for one row, their
    natural numpy dtype for a batch). A batch of no rows gives an empty array of that dtype
    (``predict_proba``: shape ``(0, n_classes)``). An ensemble answers as
    :func:`puretree.ensemble.predict` says.

    ``unseen`` says what a category never seen in training does (:data:`UNSEEN_OPTIONS`):
    the row is answered at the split it cannot pass (see the module notes) and, by default,
    an :class:`UnseenCategoryWarning` says how many rows and where; ``"error"`` refuses them,
    ``"ignore"`` answers in silence. The default warns because such a row's answer is the
    split's, not the learned one: worth a word, not a refusal of the whole batch.
    """
    if _ensemble(tree):
        return tree.predict(X, unseen=unseen)
    _check_unseen_option(unseen)
    if tree.schema.is_regression:
        return predict_value(tree, X, unseen=unseen)
    flat = flatten(tree)
    X = _numeric_rows(tree, X)
    ends = dense_ends(flat, X, tree.schema.features)
    if ends is not None:  # the first most probable class of each end node
        return labels_array(tree.schema.classes)[np.argmax(normalised_fractions(flat), axis=1)[ends]]
    proba = predict_proba(tree, X, unseen=unseen)
    if proba.ndim == 1:
        return tree.schema.classes[int(np.argmax(proba))]
    return labels_array(tree.schema.classes)[np.argmax(proba, axis=1)]


@overload
def decision_path(tree: Tree, X: Row) -> tuple[int, ...]: ...
@overload
def decision_path(tree: Tree, X: Batch) -> list[tuple[int, ...]]: ...
def decision_path(tree: Tree, X: Any) -> tuple[int, ...] | list[tuple[int, ...]]:
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
