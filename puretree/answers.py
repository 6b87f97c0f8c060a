"""The model-level answers that ``puretree.predict`` and ``puretree.predict_proba`` name: one row
through the tree compiled to Python, a batch through the walker.

A single row (a mapping, or a 1-row 2-D array) goes through the tree's generated Python function,
compiled once per tree (:mod:`puretree.compiled`): a few microseconds, where the walker's set-up
for a batch costs more than the walk. Every batch, every ensemble and every row that the compiled
code leaves to the general path (a missing value to distribute, an error to word) goes through
:mod:`puretree.predict`, which answers the same (``tests/test_compiled.py`` checks it). The walker
is a layer below the code generator and never calls it; this module is the one that joins them.

>>> from puretree.datasets import load_playtennis
>>> from puretree.grow import id3
>>> tree = id3(load_playtennis())
>>> row = {"outlook": "sunny", "temperature": "hot", "humidity": "normal", "wind": "weak"}
>>> predict(tree, row), predict(tree, [row]).tolist()
('yes', ['yes'])
>>> predict_proba(tree, row).round(3).tolist()
[0.0, 1.0]
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, overload

import numpy as np

from .compiled import one_row
from .predict import Batch, Label, Row, Unseen, check_unseen
from .predict import predict as walk_predict
from .predict import predict_proba as walk_proba
from .predict import predict_value as walk_value

if TYPE_CHECKING:  # a tree, an ensemble or a boosted model (higher layers, which answer for themselves)
    from .boosted import Boosted
    from .ensemble import Ensemble
    from .tree import Tree

__all__ = ["predict", "predict_proba", "predict_value"]


def _one(model: Any, X: Any, what: str, unseen: Unseen) -> tuple[tuple[Any] | None, Unseen]:
    """``(answer,)`` for one row of a tree through its compiled code (None for a batch, an
    ensemble, or a row the general path must decide), and the ``unseen`` left for the walker
    (``"ignore"`` once the row was checked here)."""
    if hasattr(model, "members") or hasattr(model, "stages"):  # an ensemble or a boosted model answers for itself
        return None, unseen
    if not (isinstance(X, Mapping) or (type(X) is np.ndarray and X.ndim == 2 and X.shape[0] == 1)):
        return None, unseen
    check_unseen(model, X, unseen=unseen)  # the compiled code answers an unseen category without a word
    return one_row(model, X, what), "ignore"


@overload
def predict(model: Tree | Ensemble | Boosted, X: Row, *, unseen: Unseen = "warn") -> Label: ...
@overload
def predict(model: Tree | Ensemble | Boosted, X: Batch, *, unseen: Unseen = "warn") -> np.ndarray: ...
def predict(model: Tree | Ensemble | Boosted, X: Any, *, unseen: Unseen = "warn") -> Label | np.ndarray:
    """Predicted labels (values, for a regression tree), as :func:`puretree.predict.predict`
    gives them (``unseen`` as there); one row is answered through the compiled tree."""
    fast, unseen = _one(model, X, "predict", unseen)
    return fast[0] if fast is not None else walk_predict(model, X, unseen=unseen)  # type: ignore[arg-type]  # an ensemble answers for itself there


def predict_proba(model: Tree | Ensemble | Boosted, X: Row | Batch, *, unseen: Unseen = "warn") -> np.ndarray:
    """Class probabilities, as :func:`puretree.predict.predict_proba` gives them (one row: a 1-D
    array, a batch: rows x classes); one row is answered through the compiled tree."""
    regression = not (hasattr(model, "members") or hasattr(model, "stages")) and model.schema.is_regression
    fast, unseen = (None, unseen) if regression else _one(model, X, "proba", unseen)  # the walker refuses a regression tree
    return fast[0] if fast is not None else walk_proba(model, X, unseen=unseen)  # type: ignore[arg-type]  # an ensemble answers for itself there


@overload
def predict_value(model: Tree, X: Row, *, unseen: Unseen = "warn") -> float: ...
@overload
def predict_value(model: Tree, X: Batch, *, unseen: Unseen = "warn") -> np.ndarray: ...
def predict_value(model: Tree, X: Any, *, unseen: Unseen = "warn") -> float | np.ndarray:
    """A regression tree's predicted means, as :func:`puretree.predict.predict_value` gives them;
    one row is answered through the compiled tree."""
    fast, unseen = _one(model, X, "value", unseen)
    return fast[0] if fast is not None else walk_value(model, X, unseen=unseen)
