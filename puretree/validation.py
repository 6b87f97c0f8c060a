"""Labelled rows held out for pruning, encoded for a tree: the rows reduced-error pruning,
J48's subtree raising and rule pruning measure a tree on; and a tree's training rows as a
labelled dataset in its schema, for the pruning methods that grow trees again on folds.

>>> from puretree.datasets import load_temperature
>>> from puretree.grow import cart
>>> tree = cart(load_temperature())
>>> X, codes = validation_codes(tree, [{"temperature": 95}, {"temperature": 40}], ["yes", "maybe"])
>>> X.tolist(), codes.tolist()          # a label the tree never saw gets -1
([[95.0], [40.0]], [1, -1])
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from .data import Dataset, encode_features
from .errors import DataError
from .flat import FlatTree, descend, flatten
from .tree import Tree

__all__ = ["validation_codes", "validation_counts", "training_dataset"]


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


def validation_counts(tree: Tree, X: Any, y: Any = None) -> tuple[FlatTree, np.ndarray]:
    """The tree's :func:`~puretree.flat.flatten` table and, per node (pre-order id), the
    weighted validation class counts of the rows that *end* there.

    Rows follow the tree's missing-value strategy; under ``"distribute"`` a row with a
    missing value is spread over the branches by training fractions and counted fractionally,
    as C4.5 counts errors. A row that stops at a split (an unseen category) ends there and
    gets that split's prediction, pruned or not. The last column holds unknown labels.

    >>> from puretree.datasets import load_temperature
    >>> from puretree.grow import cart
    >>> flat, own = validation_counts(cart(load_temperature()), [{"temperature": 95}], ["yes"])
    >>> own.sum(axis=0).tolist()            # one row, of class "yes", no unknown label
    [0.0, 1.0, 0.0]
    """
    flat = flatten(tree)
    Xe, codes = validation_codes(tree, X, y)
    rows, ends, weights = descend(flat, Xe, missing=tree.missing, names=tree.schema.feature_names, stop_at_missing=False)
    k = len(tree.schema.classes)
    own = np.zeros((flat.n_nodes, k + 1))
    np.add.at(own, (ends, np.where(codes[rows] >= 0, codes[rows], k)), weights)
    return flat, own


def training_dataset(tree: Tree, X: Any, y: Any = None) -> Dataset:
    """Labelled rows as a :class:`~puretree.data.Dataset` in ``tree``'s schema (its features'
    categories, its classes), for methods that grow trees again on parts of the training rows
    (:func:`~puretree.prune.complexity.cv_prune`). ``X``, ``y`` as for :func:`validation_codes`; a
    label the tree does not know is a :class:`~puretree.errors.DataError` naming it and its row.

    >>> from puretree.datasets import load_temperature
    >>> from puretree.grow import cart
    >>> training_dataset(cart(load_temperature()), [{"temperature": 40}], ["no"]).labels().tolist()
    ['no']
    """
    Xe, codes = validation_codes(tree, X, y)
    unknown = np.flatnonzero(codes < 0)
    if unknown.size:
        i = int(unknown[0])
        name = X.row_name(i) if isinstance(X, Dataset) else f"row {i}"
        labels = X.labels() if isinstance(X, Dataset) and y is None else y
        value = list(labels.tolist() if hasattr(labels, "tolist") else labels)[i] if labels is not None else "?"
        raise DataError(f"{name}: label {value!r} is not one of the tree's classes {list(tree.schema.classes)}")
    weights = X.sample_weight if isinstance(X, Dataset) else None
    return Dataset(tree.schema, Xe, codes, weights, getattr(X, "source", None), getattr(X, "lines", None))
