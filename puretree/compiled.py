"""A tree compiled once into a Python function, in memory: ``to_function(tree)``.

The function is the generated Python module's ``predict`` (:mod:`puretree.codegen`, target
``python``), executed from its source in memory instead of written to a file: the same
templates, the same exactness. Nothing from the model reaches the source but literals
quoted by :mod:`puretree.codegen.literals` (names and labels cannot inject code).

The compiled form is kept per tree outside the tree: a weak mapping from trees to it (equal
trees share it; an entry vanishes with the last tree equal to its key), so that it takes no
part in the tree's equality, hash or pickled form. The last tree asked for is also
remembered by identity (through a weak reference), because hashing a tree costs more than
predicting one row.

:func:`one_row` is how :func:`puretree.predict.predict` answers one row (a mapping or a 1-row
array) in microseconds: it checks every cell as the library does (a row it is unsure of is
left to the general path, which then decides exactly as before), and walks the compiled tree.

>>> from puretree.datasets import load_playtennis
>>> from puretree.grow import id3
>>> tree = id3(load_playtennis())
>>> play = to_function(tree)
>>> play({"outlook": "sunny", "temperature": "hot", "humidity": "normal", "wind": "weak"})
'yes'
>>> play(["rain", "mild", "high", "strong"])
'no'
>>> to_function(tree) is play  # compiled once
True
"""

from __future__ import annotations

import math
import operator
import weakref
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np

from .codegen.render import generate
from .data import MISSING_TOKENS, labels_array
from .errors import CodegenError, DataError, ParameterError
from .nodes import Leaf, Split
from .predict import Label

if TYPE_CHECKING:  # the tree value sits above: its one-row answers run the generated code
    from .tree import Tree

__all__ = ["to_function", "Compiled", "compiled", "one_row"]

_INF = math.inf
_NUMBERS = frozenset({float, int})


@attrs.frozen(eq=False)
class Compiled:
    """A tree's generated module, executed in memory, and what the library needs around it.

    ``function``: the module's ``predict`` (raising :class:`~puretree.errors.DataError`);
    ``walk``: its ``_walk``, from the row's cells in schema order to the outcome index (-2
    or less: a missing value the "distribute" strategy spreads). Per outcome: ``labels`` (the
    schema's class label) or ``values`` (the regression value), and ``proba``.
    """

    function: Callable[[Mapping[str, Any] | Sequence[Any]], Label]
    walk: Callable[[list[Any]], int]
    names: tuple[str, ...]
    #: A mapping's cells in schema order, as a tuple (one lookup in C per feature).
    cells_of: Callable[[Mapping[str, Any]], Any]
    numeric: tuple[int, ...]
    #: Per categorical feature: its index and the cells taken as they are, by (type, value):
    #: its categories and the missing-value spellings.
    categorical: tuple[tuple[int, frozenset[tuple[type, Any]]], ...]
    labels: tuple[Any, ...]
    class_index: tuple[int, ...]
    label_array: np.ndarray | None
    values: tuple[float, ...]
    proba: tuple[np.ndarray, ...]


def _source(tree: Tree) -> dict[str, Any]:
    """Execute the tree's generated Python module in a fresh namespace."""
    source = generate(tree, "python", name="tree")["tree.py"]
    namespace: dict[str, Any] = {"__name__": "puretree.compiled.tree"}
    exec(compile(source, "<puretree.compiled tree.py>", "exec"), namespace)  # our own generated source
    return namespace


def _compile(tree: Tree) -> Compiled | None:
    try:
        module = _source(tree)
    except (CodegenError, SyntaxError, RecursionError, MemoryError):  # a tree the Python target cannot take
        return None
    schema = tree.schema
    generated = module["predict"]

    def function(row: Any) -> Any:
        try:
            return generated(row)
        except DataError:
            raise
        except ValueError as exc:  # the module's own error, as the library's
            raise DataError(str(exc)) from None

    function.__doc__ = generated.__doc__
    function.__name__ = function.__qualname__ = "predict"
    missing_cells = {(str, t) for t in MISSING_TOKENS} | {(type(None), None)}
    categorical = tuple(
        (j, frozenset({(type(c), c) for c in f.categories} | missing_cells))
        for j, f in enumerate(schema.features) if not f.is_numeric
    )
    regression = schema.is_regression
    return Compiled(
        function=function,
        walk=module["_walk"],
        names=schema.feature_names,
        cells_of=operator.itemgetter(*schema.feature_names) if schema.n_features > 1 else (lambda row: tuple(row[n] for n in schema.feature_names)),
        numeric=tuple(j for j, f in enumerate(schema.features) if f.is_numeric),
        categorical=categorical,
        labels=() if regression else tuple(schema.classes[k] for k in module["_CLASS"]),
        class_index=() if regression else tuple(module["_CLASS"]),
        label_array=None if regression else labels_array(schema.classes),
        values=tuple(v + 0.0 for v in module["_VALUE"]) if regression else (),
        proba=() if regression else tuple(np.array(p, dtype=np.float64) for p in module["_PROBA"]),
    )


def _spelling(tree: Tree) -> tuple[Any, ...]:
    """What equality leaves out but the compiled form depends on: the types of the class
    labels and categories (a tree whose classes are (0, 1) equals one whose are (False, True))."""
    schema = tree.schema
    return (tuple(map(type, schema.classes)), tuple(tuple(map(type, f.categories)) for f in schema.features))


# tree -> {spelling: its compiled form (None: the Python target cannot take it)}.
_CACHE: "weakref.WeakKeyDictionary[Tree, dict[tuple[Any, ...], Compiled | None]]" = weakref.WeakKeyDictionary()
# The last (tree, compiled form) asked for, the tree by weak reference: found by identity.
_last: tuple[Any, Any] = (lambda: None, None)


def compiled(tree: Tree) -> Compiled | None:
    """The tree's compiled form (made on first use, then cached); None for a tree the Python
    target cannot take (the caller falls back to the general path)."""
    global _last
    ref, found = _last
    if ref() is tree:
        return found
    spelling = _spelling(tree)
    forms = _CACHE.get(tree)
    if forms is None:
        forms = _CACHE[tree] = {}
    if spelling not in forms:
        forms[spelling] = _compile(tree)
    found = forms[spelling]
    _last = (weakref.ref(tree), found)
    return found


def to_function(tree: Tree) -> Callable[[Mapping[str, Any] | Sequence[Any]], Label]:
    """``tree`` compiled into a Python function of one row: its predicted class label (value,
    for a regression tree).

    The function is the generated Python module's ``predict`` (see docs/codegen.md),
    compiled once per tree, in memory. A row is a mapping from feature name to value or a
    sequence in schema order; only the features the row's path reads are converted and
    checked (a bad value in a feature the path does not read is not examined), and a bad one
    raises :class:`~puretree.errors.DataError` naming the column. Its predictions equal
    :func:`puretree.predict` exactly.
    """
    if not (isinstance(getattr(tree, "root", None), (Leaf, Split)) and hasattr(tree, "schema")):  # a Tree (a layer up)
        raise ParameterError(f"to_function needs a Tree, got {type(tree).__name__}")
    found = compiled(tree)
    if found is None:
        raise CodegenError("this tree cannot be compiled to Python (see puretree.codegen.generate for why)")
    return found.function


def _cells(c: Compiled, values: Any, *, floats: bool = False) -> Any:
    """The row's cells as the compiled walk takes them, every cell checked as the library
    checks it; None when a cell needs the library's own encoding (text, other types, an
    unknown spelling of a category, an infinite number: the general path decides or refuses).
    ``floats``: every cell is known to be a float (a row of a float array)."""
    numbers = [values[j] for j in c.numeric] if c.categorical else values
    kinds = {float} if floats else set(map(type, numbers))
    if not kinds <= _NUMBERS:
        return None
    if int in kinds:
        try:
            numbers = list(map(float, numbers))
        except OverflowError:
            return None
        if c.categorical:
            values = list(values)
            for j, v in zip(c.numeric, numbers):
                values[j] = v
        else:
            values = numbers
    total = sum(numbers)
    if total - total != 0.0 and (_INF in numbers or -_INF in numbers):  # NaN (missing) is fine
        return None
    for j, known in c.categorical:
        v = values[j]
        try:
            ok = (type(v), v) in known or (type(v) is float and v != v)
        except TypeError:  # unhashable
            return None
        if not ok:
            return None
    return values


def one_row(tree: Tree, X: Any, what: str) -> tuple[Any] | None:
    """One row's answer through the compiled tree, as ``(answer,)``; None when the general
    path must decide.

    ``X``: a mapping or a 1-row 2-D array; ``what``: ``"predict"``, ``"proba"`` or
    ``"value"``. The answer has the form the general path gives (a label or float for a
    mapping, a 1-element array or a 1-row matrix for an array).
    """
    c = compiled(tree)
    if c is None:
        return None
    single = isinstance(X, Mapping)
    if single:
        try:
            values = c.cells_of(X)
        except Exception:  # a missing column: the general path names it
            return None
    elif X.shape[1] == len(c.names) and X.dtype.kind in "fiuOU":
        values = X[0].tolist()
    else:
        return None
    cells = _cells(c, values, floats=not single and X.dtype.kind == "f")
    if cells is None:
        return None
    try:
        end = c.walk(cells)
    except Exception:  # refused (a missing value under "error"): the general path words it
        return None
    if end < 0:  # a missing value to distribute: the general path sums exactly as always
        return None
    if what == "proba":
        p = c.proba[end].copy()  # a copy: the caller may write into it
        return (p if single else p[None, :],)
    if c.values:
        v = c.values[end]
        return (v if single else np.array([v]),)
    if what == "value":
        return None
    if single:
        return (c.labels[end],)
    assert c.label_array is not None  # a classification tree's
    return (c.label_array[[c.class_index[end]]],)
