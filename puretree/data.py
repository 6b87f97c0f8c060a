"""Data in, numbers out: :class:`Dataset` and the encoders from CSV, numpy and pandas.

A dataset is a schema plus a float64 matrix: numeric columns as they are, categorical
columns as category codes (indices into :attr:`Feature.categories`), a missing cell as NaN.
Class labels are encoded as indices into :attr:`Schema.classes`, which keeps the labels
exactly as given (``str``, ``int`` or ``bool``), sorted.

Nothing here writes into an array it was given.

>>> ds = from_rows([{"outlook": "sunny", "temp": 30}, {"outlook": "rain", "temp": 18}],
...                y=["no", "yes"])
>>> [(f.name, f.kind, f.categories) for f in ds.schema.features]
[('outlook', 'categorical', ('rain', 'sunny')), ('temp', 'numeric', ())]
>>> ds.X.tolist(), ds.y.tolist(), ds.schema.classes
([[1.0, 30.0], [0.0, 18.0]], [0, 1], ('no', 'yes'))

**One value, one meaning, whatever the input path** (CSV text, numpy, pandas, mappings, or
rows predicted against a training schema). A cell's *canonical key* (:func:`category_key`)
decides what it means:

- a boolean is ``True``/``False`` (Python or numpy), or the text ``true``/``false`` in any case;
- a number is an int or float (Python or numpy), or text written as a plain decimal number
  (``12``, ``-0.5``, ``1e3``: ASCII digits only, no ``_``, no ``inf``/``nan``); ``1``, ``1.0``
  and ``"1"`` are the same number;
- anything else is text (surrounding whitespace is not part of the value: CSV cells are stripped).

Two cells of a categorical column are one category exactly when their keys are equal, so a
tree learned from the CSV text ``True`` takes the pandas boolean ``True`` down the same branch.
A column that holds two spellings of one key (``True`` and ``"true"``, ``1`` and ``1.0``, ``1``
and ``"1"``, ``"a"`` and ``" a"``), or both booleans and numbers (``True == 1`` in Python), is refused as ambiguous
(:class:`~puretree.errors.DataError`), as is a boolean cell predicted for a column learned from
numbers (or a number for booleans). Class labels follow the same rule. Integer categories
and labels must lie within +-2**53, where a saved model's JSON keeps them exact.

**Numbers in text** (CSV cells, text in object columns) must be plain decimal numbers as
above. In a column whose cells are otherwise numbers, ``inf``, ``-inf``, ``nan`` spellings
other than the missing tokens, and numbers too large for a double (``1e999``) are refused
with an error naming the file, line and column, never read as categories.

**Positions in errors**: rows of arrays, DataFrames and mappings are counted from 0
(``row 0``); CSV rows are named by the file and the 1-based line where the row starts in the
file, counting the header, blank lines and every line of a multi-line quoted cell
(``data.csv: line 7``).
"""

from __future__ import annotations

import csv
import io
import difflib
import math
import numbers
import os
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import attrs
import numpy as np

from .errors import DataError, ParameterError, SchemaError
from .errors import digits
from .errors import shown as _shown
from .nodes import CATEGORICAL, CLASSIFICATION, NUMERIC, REGRESSION, Feature, Schema

__all__ = [
    "build_dataset",
    "check_weights",
    "MISSING_TOKENS",
    "DATA_OPTIONS",
    "MAX_EXACT_INT",
    "CsvRows",
    "Dataset",
    "as_dataset",
    "from_numpy",
    "from_pandas",
    "from_rows",
    "read_csv",
    "read_csv_table",
    "read_text",
    "STDIN",
    "table_to_dataset",
    "did_you_mean",
    "encode_features",
    "encode_table",
    "table_dataset",
    "labels_array",
    "encode_labels",
    "is_missing",
    "category_key",
    "parse_number",
]

#: Cells that mean "missing" in text data (CSV): empty, Weka's ``?``, R's ``NA``.
MISSING_TOKENS = frozenset({"", "?", "NA", "NaN", "nan"})

#: The keyword options that describe raw data (``grow(X, y, categorical=[...])``).
DATA_OPTIONS = ("feature_names", "categorical", "target", "task")

#: Integer categories and labels must lie within +-MAX_EXACT_INT: a double (JSON) holds them exactly.
MAX_EXACT_INT = 2**53

# A plain decimal number: ASCII digits only (float() also takes "1_000", Arabic-Indic and
# fullwidth digits, none of which is a number in a data file). The spellings of infinity and
# NaN are read too, so that a numeric column can refuse them instead of turning categorical.
_NUMBER = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)
_NON_FINITE = re.compile(r"[+-]?(?:inf|infinity|nan)", re.ASCII | re.IGNORECASE)
_BOOLEAN_TEXT = {"true": True, "false": False}
# An integer in text, up to 4,000 digits (int() refuses more than 4,300).
_WHOLE_TEXT = re.compile(r"[+-]?[0-9]{1,4000}", re.ASCII)
_KEY_STARTS = frozenset("0123456789+-.tTfF")
# A line break as the csv module reads text opened with newline="".
_LINE_BREAK = re.compile(r"\r\n|\r|\n")
# A quoted CSV cell, closed (possessive: a doubled quote "" stays inside the cell).
_QUOTED = re.compile(r'"(?:[^"]|"")*+"')


@attrs.frozen(eq=False)
class Dataset:
    """A schema, an encoded feature matrix, encoded targets and optional row weights.

    ``X`` is float64 of shape ``(n_rows, n_features)``; ``y`` holds class indices (int64)
    for classification, float64 targets for regression, or is ``None`` (features only).
    A dataset read from a file knows where each row came from (``source`` and the 1-based
    ``lines``), so that later errors name the line (:meth:`row_name`).
    """

    schema: Schema
    X: np.ndarray
    y: np.ndarray | None = None
    sample_weight: np.ndarray | None = None
    source: str | None = None
    lines: np.ndarray | None = None

    @property
    def n_rows(self) -> int:
        return int(self.X.shape[0])

    def row_name(self, i: int) -> str:
        """How errors name row ``i``: ``row 3``, or ``data.csv: line 5`` for a row read from a file.

        >>> Dataset(Schema((Feature("a"),), ("n",)), np.zeros((2, 1)), source="d.csv", lines=np.array([2, 4])).row_name(1)
        'd.csv: line 4'
        """
        if self.lines is not None and self.source is not None:
            return f"{self.source}: line {int(self.lines[i])}"
        return f"row {i}"

    def labels(self) -> np.ndarray:
        """The targets as the original labels (classification) or values (regression)."""
        if self.y is None:
            raise DataError("this dataset has no target column")
        if self.schema.is_regression:
            return self.y.copy()
        return labels_array(self.schema.classes)[self.y]

    def subset(self, rows: Any) -> "Dataset":
        """The dataset restricted to ``rows`` (an index array or boolean mask)."""
        return Dataset(
            self.schema,
            self.X[rows],
            None if self.y is None else self.y[rows],
            None if self.sample_weight is None else self.sample_weight[rows],
            self.source,
            None if self.lines is None else self.lines[rows],
        )


def labels_array(classes: Sequence[Any]) -> np.ndarray:
    """The classes as a numpy array of their natural dtype (str, int, float or bool)."""
    kinds = {type(c) for c in classes}
    if kinds and kinds <= {str}:
        return np.array(classes, dtype=str)
    if kinds and kinds <= {bool}:
        return np.array(classes, dtype=bool)
    if kinds and kinds <= {int}:
        return np.array(classes, dtype=np.int64)
    if kinds and kinds <= {float}:
        return np.array(classes, dtype=np.float64)
    out = np.empty(len(classes), dtype=object)
    out[:] = list(classes)
    return out


# -- cells -------------------------------------------------------------------------------

#: Names a row in an error message: ``row 3`` (arrays, mappings) or ``data.csv: line 5``.
Where = Callable[[int], str]


def _row(i: int) -> str:
    return f"row {i}"


def _lines(source: str, lines: Sequence[int]) -> Where:
    """Rows named by their file and 1-based starting line (CSV)."""
    return lambda i: f"{source}: line {lines[i]}"


def _where_of(body: Sequence[Any]) -> Where:
    """How to name the rows of ``body``: by file line if it came from :func:`read_csv_table`."""
    lines = getattr(body, "lines", None)
    if lines is not None and len(lines) == len(body):
        return _lines(getattr(body, "source"), lines)
    source = getattr(body, "source", None)
    if source:  # a file without lines (Parquet): its rows, counted from 0
        return lambda i: f"{source}: row {i}"
    return _row


def did_you_mean(name: Any, names: Iterable[Any]) -> str:
    """A hint naming the closest of ``names`` to a mistyped ``name`` (``difflib``), or ``""``.

    >>> did_you_mean("temprature", ["outlook", "temperature", "windy"])
    " (did you mean 'temperature'?)"
    >>> did_you_mean("zzz", ["outlook"])
    ''
    """
    close = difflib.get_close_matches(str(name), [str(n) for n in names], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def is_missing(value: Any) -> bool:
    """Whether a cell means "missing": None, NaN, or a missing token in text.

    >>> [is_missing(v) for v in (None, float("nan"), "?", "", "NA", 0, "a")]
    [True, True, True, True, True, False, False]
    """
    if value is None:
        return True
    if type(value).__name__ in ("NAType", "NaTType"):  # pandas' pd.NA and pd.NaT, without importing pandas
        return True
    if isinstance(value, str):
        return value.strip() in MISSING_TOKENS
    if isinstance(value, (float, np.floating)):
        return math.isnan(value)
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_, int, np.integer)):
        try:
            return math.isnan(float(value))
        except OverflowError:
            return False
    return False


def _native(value: Any) -> Any:
    """A numpy scalar as the equivalent Python scalar (labels and categories stay JSON-able)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def _is_number(value: Any) -> bool:
    # numbers.Real, not np.number: a complex cell is not a number a threshold can compare.
    return isinstance(value, (numbers.Real, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


def _check_task(task: Any) -> None:
    if task not in (CLASSIFICATION, REGRESSION):
        raise ParameterError(f"task must be {CLASSIFICATION!r} or {REGRESSION!r}, got {_shown(task)}")


def _sort_key(value: Any) -> tuple[str, Any]:
    # Labels of one column normally share a type; the kind keeps mixed columns sortable
    # (ints and floats are one kind: numbers sort by value).
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return ("number", value)
    return (type(value).__name__, value)


def parse_number(text: str) -> float | None:
    """The number a text cell spells (a plain decimal number, see the module notes), else ``None``.

    Too large for a double gives ``inf``; spellings of infinity or NaN give ``inf`` or ``nan``
    (callers refuse them); everything else that is not a plain decimal number gives ``None``.

    >>> [parse_number(t) for t in ("12", " -0.5 ", "1e3", "1_000", "\u0663", "\uff13", "0x1", "1e999", "-inf")]
    [12.0, -0.5, 1000.0, None, None, None, None, inf, -inf]
    """
    t = text.strip()
    # Equivalent to matching _NUMBER or _NON_FINITE, and faster: on ASCII text without "_",
    # float() accepts exactly the plain decimal numbers and the spellings of inf and nan.
    if not t.isascii() or "_" in t:
        return None
    try:
        return float(t)
    except ValueError:
        return None


def _parse_number(text: str) -> float | None:
    """A finite number from text, else ``None``."""
    value = parse_number(text)
    return value if value is not None and math.isfinite(value) else None


def _finite_float(value: Any) -> float:
    """``float(value)`` of a number; ``inf`` for one too large for a double (a huge int)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def category_key(value: Any) -> tuple[str, Any]:
    """What a cell means as a category or label: ``("bool", b)``, ``("number", x)`` or ``("text", t)``.

    >>> category_key(True) == category_key(" TRUE ") == category_key(np.bool_(True))
    True
    >>> category_key(1) == category_key(1.0) == category_key("1") == category_key(np.int64(1))
    True
    >>> category_key(True) == category_key(1), category_key("1_000"), category_key(" a ")
    (False, ('text', '1_000'), ('text', 'a'))
    """
    if type(value) is not str:
        value = _native(value)
        if isinstance(value, bool):
            return ("bool", value)
        if isinstance(value, (int, float)):
            return ("number", value)
        if not isinstance(value, str):
            return ("other", value)
    t = value.strip()
    # Only text starting like a boolean or a number can be one (most categories are neither).
    if t and t[0] in _KEY_STARTS:
        b = _BOOLEAN_TEXT.get(t.lower())
        if b is not None:
            return ("bool", b)
        if _WHOLE_TEXT.fullmatch(t):  # exactly, so that long digit strings (identifiers) stay distinct
            return ("number", int(t))
        number = _parse_number(t)
        if number is not None:
            return ("number", number)
    return ("text", t)


def _spelling(value: Any) -> tuple[str, Any]:
    """How a value is written: two spellings of one key make a column ambiguous."""
    value = _native(value)
    return (type(value).__name__, value)


def _check_value(value: Any, what: Callable[[], str]) -> Any:
    """A category or label as a plain, exactly storable Python value; ``what()`` names it in
    errors (called only on an error: naming a row of a coded column costs a pass over its rows).

    >>> _check_value(np.int64(3), lambda: "row 0"), _check_value(" a", lambda: "row 0")
    (3, ' a')
    """
    value = _native(value)
    if isinstance(value, str):
        return value
    if not isinstance(value, (int, float, bool)):
        raise DataError(f"{what()}: {_shown(value)} is not a str, int, float or bool")
    if isinstance(value, float) and not math.isfinite(value):
        raise DataError(f"{what()}: {value!r} is not finite")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_EXACT_INT:
        number = _shown(value) if abs(value) < 10**40 else f"of {digits(value)} digits"
        raise DataError(f"{what()}: the integer {number} is too large: integers must lie within +-2**53 ({MAX_EXACT_INT}), which a saved model keeps exactly")
    return value


def _distinct_values(values: Sequence[Any], what: str, where: Where, rows: Sequence[int]) -> list[Any]:
    """The distinct values of a column (or target) by canonical key, refusing ambiguity.

    ``values[i]`` was found at row ``rows[i]``; errors name ``what`` (the column or target)
    and the rows of the two values in conflict.
    """
    first: dict[tuple[str, Any], tuple[Any, int]] = {}
    kinds: dict[str, tuple[Any, int]] = {}
    for value, row in zip(values, rows):
        key = category_key(value)
        seen = first.get(key)
        if seen is None:
            first[key] = (value, row)
            kinds.setdefault(key[0], (value, row))
        elif _spelling(seen[0]) != _spelling(value):
            raise DataError(
                f"{what} holds both {_shown(seen[0])} ({where(seen[1])}) and {_shown(value)} ({where(row)}), "
                "which are one value to puretree; write it one way"
            )
    if "bool" in kinds and "number" in kinds:
        (b, rb), (n, rn) = kinds["bool"], kinds["number"]
        raise DataError(
            f"{what} mixes booleans and numbers ({_shown(b)} at {where(rb)}, {_shown(n)} at {where(rn)}); "
            "True == 1 in Python, so make it all booleans or all numbers"
        )
    return [v for v, _ in first.values()]


def _check_label(value: Any, row: int, where: Where = _row) -> Any:
    value = _native(value)
    if is_missing(value):
        raise DataError(f"{where(row)}: the target is missing")
    return _check_value(value, lambda: f"{where(row)}: the target")


def encode_labels(y: Iterable[Any], *, task: str = CLASSIFICATION, where: Where = _row) -> tuple[tuple[Any, ...], np.ndarray]:
    """Encode targets: ``(classes, codes)`` for classification, ``((), floats)`` for regression.

    Labels are compared by :func:`category_key` (see the module notes): two spellings of one
    label, or booleans mixed with numbers, are refused.

    >>> encode_labels(["b", "a", "b"])
    (('a', 'b'), array([1, 0, 1]))
    >>> encode_labels([True, False])[0]
    (False, True)
    """
    if task == REGRESSION:
        fast = _numeric_targets(y)
        if fast is not None:
            return (), fast
    else:
        found = _array_labels(y, where)
        if found is not None:
            return found
    raw = _as_list(y)
    if task == REGRESSION:
        out = np.empty(len(raw), dtype=np.float64)
        for i, v in enumerate(raw):
            v = _native(v)
            if is_missing(v):
                raise DataError(f"{where(i)}: the target is missing")
            number = _parse_number(v) if isinstance(v, str) else (_finite_float(v) if _is_number(v) else None)
            if number is None or not math.isfinite(number):
                raise DataError(f"{where(i)}: the regression target {_shown(v)} is not a finite number")
            out[i] = number
        return (), out
    values = [_check_label(v, i, where) for i, v in enumerate(raw)]
    kinds = {type(v) for v in values}
    if bool in kinds and kinds & {int, float}:
        mixed = list(dict.fromkeys((type(v).__name__, v) for v in values))[:6]
        raise DataError(f"the target mixes booleans and integers: {[v for _, v in mixed]}")
    # Each distinct label once (by type and value: True and 1 differ), with its first row.
    first: dict[tuple[type, Any], int] = {}
    for i, v in enumerate(values):
        first.setdefault((type(v), v), i)
    rows = list(first.values())
    classes = tuple(sorted(_distinct_values([values[i] for i in rows], "the target", where, rows), key=_sort_key))
    index = {category_key(c): i for i, c in enumerate(classes)}
    code = {tv: index[category_key(values[i])] for tv, i in first.items()}
    return classes, np.fromiter((code[(type(v), v)] for v in values), dtype=np.int64, count=len(values))


def _array_labels(y: Any, where: Where) -> tuple[tuple[Any, ...], np.ndarray] | None:
    """Class labels from a 1-D numpy array (or Series) of numbers, booleans or text, checked
    and encoded as :func:`encode_labels` does row by row, but with one Python call per
    distinct label instead of per row; ``None`` for anything else (the row-by-row path).

    Each distinct value is checked at its first row, in row order, so an error names the
    same row and value as the row-by-row path.

    >>> _array_labels(np.array(["b", "a", "b"]), _row)
    (('a', 'b'), array([1, 0, 1]))
    """
    arr = y.to_numpy() if hasattr(y, "to_numpy") else y
    if not isinstance(arr, np.ndarray) or arr.ndim != 1 or len(arr) == 0 or arr.dtype.kind not in "biufU":
        return None
    if arr.dtype.kind == "f" and bool(np.any((arr == 0) & np.signbit(arr))):
        return None  # -0.0 and 0.0 are one label, spelt as its first row spells it
    uniq, first, inverse = np.unique(arr, return_index=True, return_inverse=True)
    by_row = np.argsort(first, kind="stable")
    rows = first[by_row].tolist()
    values = [_check_label(v, r, where) for v, r in zip(uniq[by_row].tolist(), rows)]
    classes = tuple(sorted(_distinct_values(values, "the target", where, rows), key=_sort_key))
    index = {category_key(c): i for i, c in enumerate(classes)}
    code = np.empty(len(uniq), dtype=np.int64)
    code[by_row] = [index[category_key(v)] for v in values]
    return classes, code[inverse.reshape(-1)]


def _numeric_targets(y: Any) -> np.ndarray | None:
    """Regression targets from a 1-D numeric array (or Series) without a per-value Python loop:
    a copy as float64, checked like :func:`_check_label`; ``None`` for anything else."""
    arr = y.to_numpy() if hasattr(y, "to_numpy") else y
    if not isinstance(arr, np.ndarray) or arr.ndim != 1 or arr.dtype.kind not in "iuf":
        return None
    out = np.array(arr, dtype=np.float64, copy=True)
    bad = np.flatnonzero(~np.isfinite(out))
    if len(bad):
        row = int(bad[0])
        if np.isnan(out[row]):
            raise DataError(f"row {row}: the target is missing")
        raise DataError(f"row {row}: the target {float(out[row])!r} is not finite")
    return out


def _as_list(values: Any) -> list[Any]:
    if hasattr(values, "to_numpy"):
        values = values.to_numpy()
    if isinstance(values, np.ndarray):
        if values.ndim != 1:
            raise DataError(f"the target must be one-dimensional, got shape {values.shape}")
        return values.tolist() if values.dtype != object else list(values)
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise DataError(f"the target must be a sequence of labels, got {type(values).__name__}")
    return list(values)


# -- columns -----------------------------------------------------------------------------


def _number_cell(cell: Any) -> float | None:
    """The number a present cell holds (possibly not finite), or ``None`` if it is not one."""
    if type(cell) is str:
        return parse_number(cell)
    if _is_number(cell):
        return _finite_float(cell)
    if isinstance(cell, str):
        return parse_number(cell)
    return None


def _infer_feature(name: str, cells: Sequence[Any], *, categorical: bool | None, where: Where = _row) -> Feature:
    """Decide a column's kind from its cells: numeric when every present cell is a number.

    A column of numbers with an infinite (or NaN-spelled, or overflowing) cell is refused,
    not taken for categorical: that cell is almost certainly a data error.
    """
    what = f"column {name!r}"
    if categorical is None:
        categorical = False
        for i, c in enumerate(cells):
            if is_missing(c):
                continue
            v = _number_cell(c)
            if v is None:
                categorical = True
                break
            if not math.isfinite(v):
                # Refused only if every present cell is a number: found by a second look.
                if all(is_missing(d) or _number_cell(d) is not None for d in cells[i + 1 :]):
                    raise DataError(f"{where(i)}, {what}: {_shown(c)} is not a finite number (the column's other cells are numbers)")
                categorical = True
                break
    if not categorical:
        return Feature(name, NUMERIC)
    # Each distinct cell once (by type and value: True and 1 are different cells), with its first row.
    first: dict[tuple[type, Any], int] = {}
    for i, c in enumerate(cells):
        if not is_missing(c):
            try:
                first.setdefault((type(c), c), i)
            except TypeError:  # unhashable: a list or dict in a cell
                raise DataError(f"{where(i)}, {what}: {_shown(c)} is not a str, int, float or bool") from None
    present = list(first.values())
    def category_at(i: int) -> Callable[[], str]:
        return lambda: f"{where(i)}, {what}: the category"

    values = [_check_value(cells[i], category_at(i)) for i in present]
    categories = tuple(sorted(_distinct_values(values, what, where, present), key=_sort_key))
    return Feature(name, CATEGORICAL, categories)


def _encode_column(feature: Feature, cells: Sequence[Any], *, column: int, strict_categories: bool = False, where: Where = _row) -> np.ndarray:
    """Encode one column's cells under ``feature``: floats, codes (-1 for unseen) or NaN."""
    out = np.empty(len(cells), dtype=np.float64)
    name = feature.name
    if feature.is_numeric:
        for row, cell in enumerate(cells):
            if is_missing(cell):
                out[row] = np.nan
                continue
            value = _number_cell(cell)
            if value is None:
                raise DataError(f"{where(row)}, column {name!r}: {_shown(cell)} is not a number")
            if not math.isfinite(value):
                raise DataError(f"{where(row)}, column {name!r}: value {_shown(cell)} is not finite")
            out[row] = value
        return out
    index = {category_key(c): i for i, c in enumerate(feature.categories)}
    learned = {k[0] for k in index}
    if len(index) != len(feature.categories) or {"bool", "number"} <= learned:  # a Feature made by hand with 1 and "1", or True and 1
        _distinct_values(list(feature.categories), f"the tree's categories of column {name!r}", lambda i: f"category {i}", range(len(feature.categories)))
    # Keys by (type, value): True and 1 hash alike, and must not share a cache entry.
    memo: dict[tuple[type, Any], int] = {}
    for row, cell in enumerate(cells):
        if is_missing(cell):
            out[row] = np.nan
            continue
        try:
            code = memo.get((type(cell), cell))
        except TypeError:  # unhashable: a list or dict in a cell
            raise DataError(f"{where(row)}, column {name!r}: {_shown(cell)} is not a str, int, float or bool") from None
        if code is None:
            key = category_key(cell)
            code = index.get(key, -1)
            if code < 0:
                _check_kind(key, learned, feature, cell, where(row))
                if strict_categories:
                    raise DataError(f"{where(row)}, column {name!r}: unknown category {_shown(cell)}")
            memo[(type(cell), cell)] = code
        out[row] = code
    return out


# -- whole columns at once (pandas) ------------------------------------------------------

# The value types (pandas' ``infer_dtype``) whose cells pandas' equality tells apart exactly
# as the per-cell path's (type, value) cache does: one Python type per column. A column of
# mixed types (True, 1 and 1.0 are equal to pandas) takes the per-cell path.
_ONE_TYPE = frozenset({"string", "integer", "floating", "boolean", "empty"})


@attrs.frozen(eq=False)
class _Coded:
    """A column as ``codes`` into its distinct cells ``values`` (in order of first appearance,
    -1 for a missing cell): the per-cell rules run once per distinct cell, not once per row."""

    codes: np.ndarray
    values: list[Any]

    def __len__(self) -> int:
        return len(self.codes)

    def where(self, where: Where) -> Where:
        """Name distinct value ``i`` by the row where it first appears, as the per-cell path does."""
        first: list[np.ndarray] = []

        def name(i: int) -> str:
            if not first:
                present = np.flatnonzero(self.codes >= 0)
                _, at = np.unique(self.codes[present], return_index=True)
                first.append(present[at])
            return where(int(first[0][i]))

        return name

    def expand(self, encoded: np.ndarray) -> np.ndarray:
        """The rows' values from each distinct cell's ``encoded`` value (NaN where missing)."""
        out = np.take(np.append(encoded, np.nan), self.codes)  # code -1 takes the NaN at the end
        return out.astype(np.float64, copy=False)


def _is_numeric_dtype(dtype: Any) -> bool:
    """A dtype of real numbers (numpy or a pandas extension such as ``Int64``), not booleans."""
    return getattr(dtype, "kind", "O") in "iuf"


def _floats(series: Any) -> np.ndarray | None:
    """A numeric pandas column as a new float64 array (missing as NaN), or ``None`` when a cell
    is not finite (the per-cell path names it)."""
    out = np.array(series.to_numpy(dtype=np.float64, na_value=np.nan), dtype=np.float64, copy=True)
    return None if np.isinf(out).any() else out


def _coded(series: Any, *, strip: bool = False) -> _Coded | None:
    """A pandas column as a :class:`_Coded` (``pandas.factorize``), or ``None`` when pandas'
    equality could merge cells that mean different things (a column of mixed types).
    ``strip`` drops the whitespace around text cells (CSV cells)."""
    import pandas as pd

    dtype = series.dtype
    values = dtype.categories if isinstance(dtype, pd.CategoricalDtype) else series
    if getattr(dtype, "kind", "O") == "O" or isinstance(dtype, pd.CategoricalDtype):
        if pd.api.types.infer_dtype(values, skipna=True) not in _ONE_TYPE:
            return None
    codes, uniques = pd.factorize(series, use_na_sentinel=True)
    cells = uniques.tolist()
    if strip:
        cells = [c.strip() if isinstance(c, str) else c for c in cells]
    return _Coded(np.asarray(codes, dtype=np.intp), cells)


def _array_coded(column: np.ndarray) -> _Coded:
    """A 1-D array of numbers or booleans as a :class:`_Coded` (NaN is missing). Each distinct
    value is spelt as at its first row (``-0.0`` and ``0.0`` are one value, as in a dict)."""
    present = np.flatnonzero(~np.isnan(column)) if column.dtype.kind == "f" else np.arange(len(column))
    cells = column[present]
    _, first, inverse = np.unique(cells, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")  # the distinct values in order of first appearance
    rank = np.empty(len(order), dtype=np.intp)
    rank[order] = np.arange(len(order))
    codes = np.full(len(column), -1, dtype=np.intp)
    codes[present] = rank[inverse.reshape(-1)]
    return _Coded(codes, cells[first[order]].tolist())


def _array_column(column: np.ndarray, *, numeric: bool) -> Any:
    """A column of a numeric array, ready for :func:`build_dataset`: finite floats (or NaN) as a
    float64 array, categories as a :class:`_Coded`, or cells (for the per-cell path to name the
    cell that is not finite)."""
    if not numeric:
        return _array_coded(column)
    floats = np.array(column, dtype=np.float64, copy=True)
    return column.tolist() if np.isinf(floats).any() else floats


def _encode_coded(feature: Feature, column: _Coded, *, where: Where = _row) -> np.ndarray:
    """:func:`_encode_column` of a coded column: the same values, errors naming the same rows."""
    return column.expand(_encode_column(feature, column.values, column=0, where=column.where(where)))


def _encode_series(feature: Feature, series: Any, *, where: Where = _row) -> np.ndarray:
    """One pandas column encoded under ``feature``, as :func:`_encode_column` encodes its cells:
    numbers as an array, categories through their codes, anything odd cell by cell."""
    if feature.is_numeric and _is_numeric_dtype(series.dtype):
        floats = _floats(series)
        if floats is not None:
            return floats
    coded = _coded(series)
    if coded is not None:
        return _encode_coded(feature, coded, where=where)
    return _encode_column(feature, series.to_numpy(dtype=object).tolist(), column=0, where=where)


def _check_kind(key: tuple[str, Any], learned: set[str], feature: Feature, cell: Any, at: str) -> None:
    """Refuse a boolean for a column of numbers (or a number for booleans): ambiguous, not unseen."""
    kind = key[0]
    clash = {"bool": "number", "number": "bool"}.get(kind)
    if clash in learned and kind not in learned:
        plural = {"bool": "booleans", "number": "numbers"}
        raise SchemaError(
            f"{at}, column {feature.name!r}: {_shown(cell)} is {'a boolean' if kind == 'bool' else 'a number'}, "
            f"but the tree learned {plural[clash]} for this column {list(feature.categories)[:6]}"
        )


def _check_names(names: Sequence[Any], *, source: str = "") -> tuple[str, ...]:
    names = tuple(str(n) for n in names)
    seen: dict[str, int] = {}
    for j, n in enumerate(names):
        if n in seen:
            where = f"{source}: " if source else ""
            raise DataError(f"{where}duplicate column name {n!r} (columns {seen[n] + 1} and {j + 1})")
        seen[n] = j
    return names


def build_dataset(
    names: Sequence[str],
    columns: Sequence[Sequence[Any]],
    y: Any,
    *,
    categorical: Iterable[str] | None,
    numeric: Iterable[str] | None = None,
    target: str,
    task: str,
    sample_weight: Any = None,
    where: Where = _row,
) -> Dataset:
    _check_task(task)
    names = _check_names(names)
    cat_set = _name_set(categorical, "categorical")
    num_set = set(numeric or ())
    for n in cat_set | num_set:
        if n not in names:
            raise DataError(f"unknown column {n!r}{did_you_mean(n, names)}; the columns are {list(names)}")
    features = tuple(
        _column_feature(n, col, categorical=True if n in cat_set else (False if n in num_set else None), where=where)
        for n, col in zip(names, columns)
    )
    n_rows = len(columns[0]) if columns else (0 if y is None else len(_as_list(y)))
    X = np.empty((n_rows, len(features)), dtype=np.float64)
    for j, (f, col) in enumerate(zip(features, columns)):
        if isinstance(col, _Coded):
            X[:, j] = _encode_coded(f, col, where=where)
        elif isinstance(col, np.ndarray) and f.is_numeric:
            X[:, j] = col
        else:
            X[:, j] = _encode_column(f, col, column=j, where=where)
    classes: tuple[Any, ...] = ()
    codes = None
    if y is not None:
        label_where = where if where is _row else (lambda i: f"{where(i)}, column {target!r}")
        if isinstance(y, _Coded):  # text labels, each distinct one checked once
            missing = np.flatnonzero(y.codes < 0)
            if len(missing):
                raise DataError(f"{label_where(int(missing[0]))}: the target is missing")
            classes, distinct = encode_labels(y.values, task=task, where=y.where(label_where))
            codes = distinct[y.codes]
        else:
            classes, codes = encode_labels(y, task=task, where=label_where)
        if len(codes) != n_rows:
            raise DataError(f"the target has {len(codes)} values but the data has {n_rows} rows")
    weights = None if sample_weight is None else _check_weights(sample_weight, n_rows)
    return Dataset(Schema(features, classes, target=target, task=task), X, codes, weights)


def _column_feature(name: str, column: Any, *, categorical: bool | None, where: Where) -> Feature:
    """:func:`_infer_feature` of a column given as cells, as a :class:`_Coded`, or as a float64
    array of finite numbers or NaN (a column known to be numeric: nothing to infer)."""
    if isinstance(column, _Coded):
        return _infer_feature(name, column.values, categorical=categorical, where=column.where(where))
    if isinstance(column, np.ndarray) and column.dtype == np.float64 and not categorical:
        return Feature(name, NUMERIC)
    return _infer_feature(name, column, categorical=categorical, where=where)


def _name_set(names: Iterable[str] | None, option: str) -> set[str]:
    """A set of column names from an option, refusing a bare string (a set of its letters)."""
    if names is None:
        return set()
    if isinstance(names, (str, bytes)):
        raise ParameterError(f"{option}= takes a list of column names, got the string {names!r} (write [{names!r}])")
    try:
        return {str(n) for n in names}
    except TypeError:
        raise ParameterError(f"{option}= takes a list of column names, got {_shown(names)}") from None


def _check_weights(sample_weight: Any, n_rows: int) -> np.ndarray:
    if sample_weight is None or np.isscalar(sample_weight):
        raise DataError("sample_weight must be a sequence with one weight per row")
    if hasattr(sample_weight, "to_numpy"):
        sample_weight = sample_weight.to_numpy()
    # Text is refused even where numpy would read it ("2" as 2.0): weights are numbers.
    if not (isinstance(sample_weight, np.ndarray) and sample_weight.dtype.kind in "biuf"):
        for v in _flat(sample_weight):
            if not _is_number(v) and not isinstance(v, (bool, np.bool_)):
                raise DataError(f"sample_weight must be one number per row: {_shown(v)} is not a number")
    try:
        w = np.array(sample_weight, dtype=np.float64, copy=True)
    except (TypeError, ValueError, OverflowError):
        raise DataError("sample_weight must be one number per row") from None
    if w.ndim != 1:
        raise DataError(f"sample_weight must be one-dimensional (one weight per row), got shape {w.shape}")
    if len(w) != n_rows:
        raise DataError(f"sample_weight has {len(w)} values but the data has {n_rows} rows")
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if len(bad):
        raise DataError(f"row {int(bad[0])}: sample weight {float(w[bad[0]])!r} is negative or not finite")
    with np.errstate(over="ignore"):
        total = w.sum()
    if not np.isfinite(total):
        raise DataError(f"the sample weights sum to {float(total)!r}, beyond a double's range: scale them down")
    return w


def check_weights(sample_weight: Any, n_rows: int) -> np.ndarray:
    """``sample_weight`` as a fresh float array of ``n_rows`` finite weights >= 0, as every
    fit checks it (the pictures' histograms weigh rows with it too).

    >>> check_weights([1, 2.5], 2).tolist()
    [1.0, 2.5]
    >>> check_weights([1.0, -1.0], 2)
    Traceback (most recent call last):
    ...
    puretree.errors.DataError: row 1: sample weight -1.0 is negative or not finite
    """
    return _check_weights(sample_weight, n_rows)


def _flat(values: Any) -> Iterable[Any]:
    """The leaves of nested sequences (to find the cell that is not a number)."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        yield values
        return
    for v in values:
        yield from _flat(v)


def _as_matrix(X: Any) -> np.ndarray:
    """``np.asarray(X)``, with ragged rows refused by name instead of numpy's shape message."""
    try:
        return np.asarray(X)
    except (ValueError, TypeError) as exc:
        if isinstance(X, Sequence) and not isinstance(X, (str, bytes)):
            lengths = [len(r) if isinstance(r, Sequence) and not isinstance(r, (str, bytes)) else None for r in X]
            for i, n in enumerate(lengths):
                if n != lengths[0]:
                    raise DataError(f"X is ragged: row {i} has {_length_text(n)}, row 0 has {_length_text(lengths[0])}") from None
        raise DataError(f"X is not a table of cells: {exc}") from None


def _described(X: Any, arr: np.ndarray) -> str:
    """What a non-table ``X`` is: its shape, or its type when it is not an array of cells at all."""
    return f"shape {arr.shape}" if arr.ndim else f"a {type(X).__name__}"


def _length_text(n: int | None) -> str:
    return "a single value, not a row" if n is None else f"{n} value{'s' if n != 1 else ''}"


# -- sources -----------------------------------------------------------------------------


def from_numpy(
    X: Any,
    y: Any = None,
    *,
    feature_names: Sequence[str] | None = None,
    categorical: Iterable[str] | None = None,
    target: str = "target",
    task: str = CLASSIFICATION,
    sample_weight: Any = None,
) -> Dataset:
    """A dataset from a 2-D array (numeric dtype, or object/str for categorical columns).

    Columns are named ``x0, x1, ...`` unless ``feature_names`` is given. A numeric array
    gives numeric features unless named in ``categorical``.

    >>> ds = from_numpy(np.array([[1, 2], [3, 4]], dtype=np.int32), [0, 1])
    >>> ds.schema.feature_names, ds.X.dtype
    (('x0', 'x1'), dtype('float64'))
    """
    _check_task(task)
    arr = _as_matrix(X)
    if arr.ndim != 2:
        raise DataError(f"X must be two-dimensional (rows x features), got {_described(X, arr)}")
    if arr.shape[0] == 0:
        raise DataError("X has no rows")
    names = list(feature_names) if feature_names is not None else [f"x{j}" for j in range(arr.shape[1])]
    if len(names) != arr.shape[1]:
        raise DataError(f"{len(names)} feature names for {arr.shape[1]} columns")
    cat = _name_set(categorical, "categorical")
    if arr.dtype.kind == "c":
        raise DataError(f"X holds complex numbers ({arr.dtype}); a feature is a real number or a category")
    if arr.dtype.kind in "biuf" and not cat:
        # Fast path: a plain numeric matrix needs no per-cell inspection.
        if arr.dtype.kind == "b":
            raise DataError("X is boolean; pass it as an object array or name the columns in categorical=")
        Xf = np.array(arr, dtype=np.float64, copy=True)
        bad = np.argwhere(np.isinf(Xf))
        if len(bad):
            r, c = bad[0]
            raise DataError(f"row {int(r)}, column {names[c]!r}: value {float(Xf[r, c])!r} is not finite")
        names = _check_names(names)  # type: ignore[assignment]  # a tuple from here on
        classes: tuple[Any, ...] = ()
        codes = None
        if y is not None:
            classes, codes = encode_labels(y, task=task)
            if len(codes) != arr.shape[0]:
                raise DataError(f"the target has {len(codes)} values but X has {arr.shape[0]} rows")
        weights = None if sample_weight is None else _check_weights(sample_weight, arr.shape[0])
        features = tuple(Feature(n, NUMERIC) for n in names)
        return Dataset(Schema(features, classes, target=target, task=task), Xf, codes, weights)
    if arr.dtype.kind in "iuf":  # numbers, some named categorical: each column at once
        columns: list[Any] = [_array_column(arr[:, j], numeric=str(n) not in cat) for j, n in enumerate(names)]
    else:
        columns = [list(arr[:, j]) for j in range(arr.shape[1])]
    return build_dataset(names, columns, y, categorical=cat, target=target, task=task, sample_weight=sample_weight)


def _frame_names(df: Any) -> list[str]:
    """A DataFrame's column names as text, refusing repeated names (``df[name]`` would be a frame)."""
    return list(_check_names([str(c) for c in df.columns], source="the DataFrame"))


def from_pandas(
    df: Any,
    y: Any = None,
    *,
    target: str | None = None,
    categorical: Iterable[str] | None = None,
    task: str = CLASSIFICATION,
    sample_weight: Any = None,
) -> Dataset:
    """A dataset from a pandas DataFrame: numeric dtypes are numeric, others categorical.

    ``y`` is a Series/sequence of targets, or leave it out and name the ``target`` column.
    """
    _frame_names(df)
    if target is not None:
        if y is not None:
            raise DataError(f"y given twice: as y and as the target column {target!r}")
        if target not in df.columns:
            raise DataError(f"unknown target column {target!r}{did_you_mean(target, map(str, df.columns))}; the columns are {list(map(str, df.columns))}")
        y = df[target]
        df = df.drop(columns=[target])
    names = [str(c) for c in df.columns]
    cat = _name_set(categorical, "categorical")
    numeric = set()
    for name, col in zip(names, df.columns):
        kind = df[col].dtype.kind
        if kind == "c":
            raise DataError(f"column {name!r} holds complex numbers ({df[col].dtype}); a feature is a real number or a category")
        if name not in cat and kind in "iuf":
            numeric.add(name)
        elif name not in cat:
            cat.add(name)
    # Numbers as arrays, categories through their codes; a column of mixed types (or with a
    # cell that is not finite, which the per-cell path names) cell by cell.
    columns: list[Any] = []
    for name, c in zip(names, df.columns):
        series = df[c]
        column: Any = _floats(series) if name in numeric else _coded(series)
        if column is None:
            column = series.to_numpy(dtype=object).tolist() if name in cat else series.to_numpy(dtype=np.float64).tolist()
        columns.append(column)
    target_name = target if target is not None else (str(getattr(y, "name", None) or "target"))
    return build_dataset(names, columns, y, categorical=cat, numeric=numeric, target=target_name, task=task, sample_weight=sample_weight)


def from_rows(
    rows: Sequence[Mapping[str, Any]],
    y: Any = None,
    *,
    categorical: Iterable[str] | None = None,
    target: str = "target",
    task: str = CLASSIFICATION,
    sample_weight: Any = None,
) -> Dataset:
    """A dataset from a sequence of mappings (column name -> cell), all with the same keys."""
    rows = list(rows)
    if not rows:
        raise DataError("no rows")
    for i, row in enumerate(rows):
        if not isinstance(row, Mapping):
            raise DataError(f"row {i} is a {type(row).__name__}, not a mapping like row 0")
    names = list(rows[0].keys())
    for i, row in enumerate(rows):
        if set(row.keys()) != set(names):
            raise DataError(f"row {i} has columns {sorted(map(str, row.keys()))}, expected {sorted(map(str, names))}")
    columns = [[row[n] for row in rows] for n in names]
    return build_dataset(names, columns, y, categorical=categorical, target=target, task=task, sample_weight=sample_weight)


class CsvRows(list):
    """The data rows of a CSV file (a list of lists of cells) that remember their place in the file.

    ``source`` is the file name and ``lines[i]`` the 1-based line of the file where row ``i``
    starts, so that the encoders name ``data.csv: line 7`` in their errors. Rows of a file
    that has no lines (Parquet) have ``lines=None`` and are named ``data.parquet: row 7``.
    ``weights`` are the rows' weights where the file gives them (ARFF's ``{2}``), else ``None``.
    """

    __slots__ = ("source", "lines", "weights")

    def __init__(self, rows: Iterable[list[str]], *, source: str, lines: Sequence[int] | None, weights: Sequence[float] | None = None) -> None:
        super().__init__(rows)
        self.source = source
        self.lines = None if lines is None else list(lines)
        self.weights = None if weights is None else list(weights)


def _undecodable_line(path: str | os.PathLike[str]) -> int:
    """The 1-based line of the first byte that is not UTF-8 (for the error message)."""
    with open(path, "rb") as fh:
        raw = fh.read()
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return raw.count(b"\n", 0, exc.start) + 1
    return 1


#: The name standard input goes by, as a path (``-``) and in messages (``<stdin>``).
STDIN = "-"


def read_text(path: str | os.PathLike[str], *, what: str = "CSV") -> tuple[str, str]:
    """``(source, text)``: a UTF-8 text file (a byte-order mark dropped), or standard input
    for ``-``; errors name the file (and the line of the first byte that is not UTF-8)."""
    if os.fspath(path) == STDIN:
        import sys

        raw = sys.stdin.buffer.read()
        try:
            return "<stdin>", raw.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            line = raw.count(b"\n", 0, exc.start) + 1
            raise DataError(f"<stdin>: line {line}: not a readable {what} file (not UTF-8 text: {exc.reason})") from None
    source = os.fspath(path)
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            return source, fh.read()
    except FileNotFoundError:
        raise DataError(f"{source}: no such file") from None
    except IsADirectoryError:
        raise DataError(f"{source}: is a directory, not a {what} file") from None
    except PermissionError:
        raise DataError(f"{source}: permission denied") from None
    except UnicodeDecodeError as exc:
        raise DataError(f"{source}: line {_undecodable_line(path)}: not a readable {what} file (not UTF-8 text: {exc.reason})") from None


def read_csv_table(path: str | os.PathLike[str], *, sep: str = ",") -> tuple[list[str], CsvRows]:
    """Header and rows of a CSV file, checked: not empty, not header-only, not ragged, no
    repeated column name. ``sep`` is the one-character delimiter (``";"``, ``"\\t"``);
    ``path`` ``-`` reads standard input (named ``<stdin>`` in errors).

    Blank lines are skipped, except in a one-column file, where a blank line is a missing
    cell. The rows (a :class:`CsvRows`) know the line each starts on, for error messages.
    """
    if not isinstance(sep, str) or len(sep) != 1 or sep in "\r\n\"":
        raise ParameterError(f"the separator must be one character other than a quote or a line end, got {sep!r}")
    source, text = read_text(path)
    header: list[str] | None = None
    header_line = 0
    rows: list[list[str]] = []
    lines: list[int] = []
    try:
        if "\x00" in text:
            line = text.count("\n", 0, text.index("\x00")) + 1
            raise DataError(f"{source}: line {line}: a NUL byte: not a text CSV file")
        # The file is in memory already: any field of it may be as long as the file.
        csv.field_size_limit(max(csv.field_size_limit(), len(text) + 1))
        reader = csv.reader(io.StringIO(text, newline=""), delimiter=sep)
        start = 1
        for row in reader:
            line, start = start, reader.line_num + 1
            if header is None:
                if row:
                    header, header_line = [h.strip() for h in row], line
                continue
            if not row:
                if len(header) != 1:
                    continue
                row = [""]
            if len(row) != len(header):
                raise DataError(f"{source}: line {line} has {len(row)} cells, the header has {len(header)}")
            rows.append(row)
            lines.append(line)
    except csv.Error as exc:
        raise DataError(f"{source}: line {reader.line_num}: not a readable CSV file ({exc})") from None
    if header is None:
        raise DataError(f"{source}: the file is empty")
    if not rows:
        raise DataError(f"{source}: the file has a header but no data rows")
    # A quote that never closes makes the rest of the file one cell of the last row (the csv
    # module does not say so): only a last row with a line break in a cell, or a file that
    # does not end with one, can hold such a quote.
    if any("\n" in c or "\r" in c for c in rows[-1]) or not text.endswith(("\n", "\r")):
        _refuse_open_quote(text, sep, source, lines[-1], reader.line_num)
    _check_names(header, source=f"{source}: line {header_line}")
    return header, CsvRows(rows, source=source, lines=lines)


def _line_start(text: str, line: int, last_line: int) -> int:
    """Where ``line`` (1-based) starts in ``text``, whose last line is ``last_line``: found from
    the end, in a window that grows until it holds the line break before ``line``, so that
    finding the last row of a file costs the size of that row, not of the file.

    >>> text = "a\\r\\nb\\nc\\rd"
    >>> [text[_line_start(text, n, 4):][:1] for n in (1, 2, 3, 4)]
    ['a', 'b', 'c', 'd']
    """
    back = last_line - line + (1 if text.endswith(("\n", "\r")) else 0)  # line breaks from the line's start on
    width = 4096
    while True:
        begin = max(0, len(text) - width)
        # A window starting inside "\r\n" finds its "\n": the same end, the same line.
        ends = [m.end() for m in _LINE_BREAK.finditer(text, begin)]
        if len(ends) > back:
            return ends[-back - 1]
        if begin == 0:
            return 0
        width *= 4


def _refuse_open_quote(text: str, sep: str, source: str, line: int, last_line: int) -> None:
    """Refuse a quote that opens a cell of the row starting at ``line`` and never closes.

    The row's cells are scanned as the csv module reads them: a quote opens a cell only at its
    start, a doubled quote inside is a quote, text after the closing quote belongs to the cell.

    >>> _refuse_open_quote('a,b\\n1,"x""y"\\n', ",", "d.csv", 2, 2)
    >>> _refuse_open_quote('a,b\\n1,"x\\n2,y\\n', ",", "d.csv", 2, 3)
    Traceback (most recent call last):
    ...
    puretree.errors.DataError: d.csv: line 2: a quote opens a cell and never closes, so the rest of the file (lines 2-3) would be one cell; close it, or write a quote inside a quoted cell as ""
    """
    start = pos = _line_start(text, line, last_line)
    plain = re.compile(f"[^{re.escape(sep)}\r\n]*")
    while pos < len(text):
        if text[pos] == '"':
            quoted = _QUOTED.match(text, pos)
            if quoted is None:
                at = line + len(_LINE_BREAK.findall(text, start, pos))
                span = f"line {at}" if at >= last_line else f"lines {at}-{last_line}"
                raise DataError(
                    f"{source}: line {at}: a quote opens a cell and never closes, so the rest of the file ({span}) "
                    'would be one cell; close it, or write a quote inside a quoted cell as ""'
                )
            pos = quoted.end()
        pos = plain.match(text, pos).end()  # type: ignore[union-attr]  # matches the empty text
        if pos < len(text) and text[pos] == sep:
            pos += 1
            continue
        return  # the row ends: every quote in it closed


def read_csv(
    path: str | os.PathLike[str],
    *,
    target: str | None = None,
    categorical: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    task: str = CLASSIFICATION,
    sep: str = ",",
) -> Dataset:
    """A dataset from a CSV file with a header line; ``target`` names the class column.

    A column is numeric when every present cell is a plain decimal number, else categorical;
    empty cells, ``?`` and ``NA`` are missing. Columns named in ``ignore`` (identifiers, say)
    are left out. ``sep`` is the delimiter; ``path`` ``-`` reads standard input. Errors name
    the file, line and column (see the module notes), and a mistyped column name the closest one.
    """
    fast = _fast_csv(path, sep=sep, target=target, categorical=categorical, ignore=ignore, task=task)
    if fast is not None:
        return fast
    header, body = read_csv_table(path, sep=sep)
    return table_to_dataset(header, body, target=target, categorical=categorical, ignore=ignore, task=task)


# -- CSV through pandas ------------------------------------------------------------------


def _csv_counts(path: str | os.PathLike[str], sep: str) -> tuple[int, int] | None:
    """``(lines, separators)`` of a CSV file, counted in one streaming pass; ``None`` for a file
    only the csv module's reader reads as puretree means it: one with a quote (a cell may span
    lines or hold the separator), a NUL byte, or a line ending in a lone carriage return."""
    sep_bytes = sep.encode("utf-8")
    breaks = seps = 0
    last = b""
    with open(path, "rb") as fh:
        while True:
            chunk = fh.read(1 << 24)
            if not chunk:
                break
            if chunk.endswith(b"\r"):  # keep "\r\n" in one chunk
                chunk += fh.read(1)
            if b'"' in chunk or b"\x00" in chunk or (b"\r" in chunk and chunk.count(b"\r") != chunk.count(b"\r\n")):
                return None
            breaks += chunk.count(b"\n")
            seps += chunk.count(sep_bytes)
            last = chunk[-1:]
    return breaks + (0 if last == b"\n" or not last else 1), seps


def _csv_header(path: str | os.PathLike[str], sep: str) -> list[str] | None:
    """The first line's column names (stripped), or ``None`` if it is blank or not UTF-8."""
    with open(path, "rb") as fh:
        first = fh.readline()
    try:
        line = first.decode("utf-8-sig").rstrip("\r\n")
    except UnicodeDecodeError:
        return None
    return [h.strip() for h in line.split(sep)] if line.strip() else None


def _fast_csv(
    path: str | os.PathLike[str],
    *,
    sep: str,
    target: str | None,
    categorical: Iterable[str] | None,
    ignore: Iterable[str],
    task: str,
) -> Dataset | None:
    """:func:`read_csv` through ``pandas.read_csv`` (its C engine), or ``None`` where the pure
    reader must decide (pandas missing, standard input, a file with quotes, blank lines, a
    ragged row, a repeated or unknown column name, any error: that reader names it).

    The result is the pure reader's, cell for cell: numbers pandas types as int64 or float64
    (finite) are the numbers ``float()`` reads from the same text (pandas' parser rounds
    correctly, and reads no NaN but the missing tokens given to it); every other column is read
    again as text and typed by the per-cell rules, once per distinct cell."""
    try:
        import pandas as pd
    except ImportError:
        return None
    if os.fspath(path) == STDIN or not isinstance(sep, str) or len(sep) != 1 or sep in "\r\n\"":
        return None
    source = os.fspath(path)
    try:
        counts = _csv_counts(path, sep)
        header = _csv_header(path, sep)
    except OSError:
        return None
    if counts is None or header is None or len(set(header)) != len(header):
        return None
    n_lines, n_seps = counts
    ignored = _name_set(ignore, "ignore")
    named = _name_set(categorical, "categorical")
    if (target is not None and target not in header) or not (ignored | named) <= set(header) or target in ignored | named:
        return None
    if n_lines < 2 or n_seps != n_lines * (len(header) - 1):  # a ragged row (or no rows): the pure reader names it
        return None
    keep = [n for n in header if n != target and n not in ignored]
    text = {n for n in keep if n in named}
    if target is not None and task == CLASSIFICATION:
        text.add(target)
    read = dict(sep=sep, header=0, names=header, index_col=False, encoding="utf-8-sig", engine="c", keep_default_na=False, skip_blank_lines=True)
    tokens = sorted(MISSING_TOKENS)
    try:
        frame = pd.read_csv(path, usecols=keep + ([target] if target is not None else []), dtype={n: str for n in text},
                            na_values={n: tokens for n in keep + [target] if n not in text and n is not None}, **read)
        if len(frame) != n_lines - 1:  # a blank line was skipped: the pure reader decides
            return None
        columns: dict[str, Any] = {}
        for n in [*keep, *([target] if target is not None else [])]:
            if n in text or frame[n].dtype not in (np.float64, np.int64, np.uint64):
                continue
            floats = frame[n].to_numpy(dtype=np.float64)
            if not np.isinf(floats).any():
                columns[n] = floats
        again = [n for n in [*keep, *([target] if target is not None else [])] if n not in columns and n not in text]
        cells = pd.read_csv(path, usecols=again, dtype=str, na_filter=False, **read) if again else None
    except Exception:  # whatever pandas refuses (a name it mangles, bytes it cannot decode...): the pure reader names it
        return None
    for n in keep:
        if n not in columns:
            series = frame[n] if n in text else cells[n]  # type: ignore[index]
            columns[n] = _coded(series, strip=True)
    lines = np.arange(2, n_lines + 1, dtype=np.int64)
    where = _lines(source, lines)  # type: ignore[arg-type]
    y: Any = None
    if target is not None:
        if target in columns:  # regression targets pandas read as finite numbers (NaN: missing)
            y = columns.pop(target)
            missing = np.flatnonzero(np.isnan(y))
            if len(missing):
                raise DataError(f"{where(int(missing[0]))}, column {target!r}: the regression target is missing")
        else:
            raw = frame[target] if target in text else cells[target]  # type: ignore[index]
            if task == CLASSIFICATION:
                y = _coded(raw, strip=True)
            else:
                y = [_regression_cell(v.strip(), where(i), target) for i, v in enumerate(raw.tolist())]
    del frame, cells
    numeric = {n for n in keep if isinstance(columns[n], np.ndarray)}
    ds = _with_typed_labels(build_dataset(keep, [columns[n] for n in keep], y, categorical=named, numeric=numeric, target=target or "target", task=task, where=where))
    return attrs.evolve(ds, source=source, lines=lines)


def table_to_dataset(
    header: Sequence[str],
    body: CsvRows,
    *,
    target: str | None = None,
    categorical: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    task: str = CLASSIFICATION,
    kinds: Mapping[str, str] | None = None,
) -> Dataset:
    """A dataset from a text table read from a file (:func:`read_csv_table`, or another format's
    reader) with ``read_csv``'s options. ``kinds`` maps the columns whose kind the file declares
    (ARFF, Parquet, JSON lines) to ``"numeric"`` or ``"categorical"``; the others are inferred
    from their cells, as in a CSV file, and ``categorical`` overrides both."""
    source = body.source
    names = _check_names(header, source=source)
    ignore = _name_set(ignore, "ignore")
    for n in ignore:
        if n not in names:
            raise DataError(f"{source}: cannot ignore unknown column {n!r}{did_you_mean(n, names)}; the columns are {list(names)}")
        if n == target:
            raise DataError(f"{source}: the target column {n!r} cannot be ignored")
    where = _where_of(body)
    y = None
    if target is not None:
        if target not in names:
            raise DataError(f"{source}: unknown target column {target!r}{_sep_hint(names) or did_you_mean(target, names)}; the columns are {list(names)}")
        t = names.index(target)
        y = [row[t].strip() for row in body]
        if task == REGRESSION:
            y = [_regression_cell(v, where(i), target) for i, v in enumerate(y)]
    keep = [j for j, n in enumerate(names) if n != target and n not in ignore]
    columns = [[row[j].strip() for row in body] for j in keep]
    categorical = _name_set(categorical, "categorical")
    for n in categorical:
        if n not in names:
            raise DataError(f"{source}: unknown column {n!r} in categorical{did_you_mean(n, names)}; the columns are {list(names)}")
        if n == target:
            raise DataError(f"{source}: the target column {n!r} cannot be named categorical: class labels are categories already, and categorical names features")
        if n in ignore:
            raise DataError(f"{source}: the column {n!r} is both ignored and named categorical")
    kept = {names[j] for j in keep}
    declared = dict(kinds or {})
    numeric = {n for n in kept if declared.get(n) == NUMERIC and n not in categorical}
    categorical = {n for n in kept if n in categorical or declared.get(n) == CATEGORICAL}
    weights = getattr(body, "weights", None)  # a file's own row weights (ARFF's {2})
    ds = _with_typed_labels(build_dataset([names[j] for j in keep], columns, y, categorical=categorical, numeric=numeric, target=target or "target", task=task, where=where, sample_weight=weights))
    return attrs.evolve(ds, source=source, lines=None if body.lines is None else np.asarray(body.lines, dtype=np.int64))


# A class label written as a whole number (a file's text): such labels are ints.
_INTEGER_LABEL = re.compile(r"-?[0-9]+", re.ASCII)


def _typed_classes(classes: Sequence[Any]) -> list[Any] | None:
    """Class labels read from a file's text as the type they all spell, or ``None`` to keep the
    text: all whole numbers (``-?[0-9]+``, within +-2**53) are ints, all plain decimal numbers
    (finite; see the module notes) floats, all ``true``/``false`` in any case booleans.

    >>> _typed_classes(["0", "1", "10"]), _typed_classes(["-1", "2.5"]), _typed_classes(["FALSE", "true"])
    ([0, 1, 10], [-1.0, 2.5], [False, True])
    >>> _typed_classes(["1", "yes"]), _typed_classes(["1_000", "2"]), _typed_classes(["inf", "1"])
    (None, None, None)
    """
    if not classes or not all(isinstance(c, str) for c in classes):
        return None
    if all(_INTEGER_LABEL.fullmatch(c) for c in classes):
        whole = [int(c) for c in classes]
        return whole if all(abs(v) <= MAX_EXACT_INT for v in whole) else None
    numbers = [_parse_number(c) for c in classes]
    if all(v is not None for v in numbers):
        return numbers
    if all(c.lower() in _BOOLEAN_TEXT for c in classes):
        return [_BOOLEAN_TEXT[c.lower()] for c in classes]
    return None


def _with_typed_labels(ds: Dataset) -> Dataset:
    """A dataset read from a file with its class labels typed (:func:`_typed_classes`): the
    classes sorted as their type sorts (9 before 10), the codes following them."""
    typed = None if ds.schema.is_regression or ds.y is None else _typed_classes(ds.schema.classes)
    if typed is None:
        return ds
    order = sorted(range(len(typed)), key=lambda i: _sort_key(typed[i]))
    new_code = np.empty(len(typed), dtype=np.int64)
    new_code[order] = np.arange(len(typed))
    schema = attrs.evolve(ds.schema, classes=tuple(typed[i] for i in order))
    return attrs.evolve(ds, schema=schema, y=new_code[ds.y])


def _sep_hint(header: Sequence[str]) -> str:
    """A hint for a file read with the wrong separator: one column whose name holds ``;`` or a
    tab (and so no comma, the default separator).

    >>> _sep_hint(["a;b;class"])
    " (the header holds ';' and no comma: is the file ';'-separated? give --sep ';', or sep=';' in Python)"
    >>> _sep_hint(["a", "b"])
    ''
    """
    if len(header) != 1:
        return ""
    for sep, name, kind, given in ((";", "';'", "';'-separated", "';'"), ("\t", "a tab", "tab-separated", "'\\t'")):
        if sep in header[0]:
            return f" (the header holds {name} and no comma: is the file {kind}? give --sep {given}, or sep={given} in Python)"
    return ""


def _regression_cell(text: str, at: str, column: str) -> float:
    if is_missing(text):
        raise DataError(f"{at}, column {column!r}: the regression target is missing")
    value = _parse_number(text)
    if value is None:
        raise DataError(f"{at}, column {column!r}: the regression target {_shown(text)} is not a finite number")
    return value


def _check_options(X: Any, options: Mapping[str, Any]) -> None:
    """Refuse keyword options unknown to the data encoders, or that do not apply to ``X``."""
    for name in options:
        if name not in DATA_OPTIONS:
            close = difflib.get_close_matches(name, DATA_OPTIONS, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ParameterError(f"unknown option {name!r}{hint}; the data options are {list(DATA_OPTIONS)}")
    if isinstance(X, Dataset):
        fixed = [n for n in options if n != "task"]
        if fixed:
            raise ParameterError(f"{fixed[0]}= describes raw data; a Dataset already has its schema (give it to the function that made the Dataset)")
    elif hasattr(X, "columns") and hasattr(X, "dtypes") or (isinstance(X, Sequence) and X and isinstance(X[0], Mapping)):
        if "feature_names" in options:
            raise ParameterError("feature_names= is for arrays; a DataFrame or a list of mappings names its own columns")


def as_dataset(X: Any, y: Any = None, *, sample_weight: Any = None, **options: Any) -> Dataset:
    """Whatever the user gave (Dataset, DataFrame, array, list of mappings) as a Dataset.

    ``options`` are the :data:`DATA_OPTIONS` that apply to ``X``; any other is a
    :class:`~puretree.errors.ParameterError`.
    """
    _check_options(X, options)
    if "task" in options:
        _check_task(options["task"])
    if isinstance(X, Dataset):
        if y is not None:
            raise DataError("y given twice: the dataset already carries its target")
        if sample_weight is not None:
            return attrs.evolve(X, sample_weight=_check_weights(sample_weight, X.n_rows))
        return X
    if hasattr(X, "columns") and hasattr(X, "dtypes"):
        return from_pandas(X, y, sample_weight=sample_weight, **options)
    if isinstance(X, Sequence) and X and isinstance(X[0], Mapping):
        return from_rows(X, y, sample_weight=sample_weight, **options)
    return from_numpy(X, y, sample_weight=sample_weight, **options)


# -- encoding new rows under a known schema ----------------------------------------------


def encode_features(schema: Schema, X: Any) -> np.ndarray:
    """Encode rows to predict under ``schema``: a float64 matrix, the input left untouched.

    Accepts a mapping (one row), a sequence of mappings, a DataFrame (columns by name, in
    any order), a :class:`Dataset` with the same features, or a 2-D array in schema order
    (an empty sequence or an array of shape ``(0, n)`` gives no rows). Unseen categories
    become -1, missing cells NaN; cells are matched to categories by :func:`category_key`.

    >>> s = Schema((Feature("a"), Feature("c", "categorical", ("x", "y"))), ("n", "p"))
    >>> encode_features(s, [{"a": 1, "c": "y"}, {"c": "z", "a": "2.5"}]).tolist()
    [[1.0, 1.0], [2.5, -1.0]]
    """
    names = schema.feature_names
    if isinstance(X, Dataset):
        if X.schema.feature_names != names:
            raise SchemaError(f"the data has columns {list(X.schema.feature_names)}, the tree expects {list(names)}")
        if all(a == b for a, b in zip(X.schema.features, schema.features)):
            return X.X
        return _stack(schema, _decode_columns(X), X.n_rows)
    if isinstance(X, Mapping):
        X = [X]
    if hasattr(X, "columns") and hasattr(X, "dtypes"):
        cols = _frame_names(X)
        _check_column_set(cols, names)
        lookup = {str(c): c for c in X.columns}
        out = np.empty((len(X), len(names)), dtype=np.float64)
        for j, (f, n) in enumerate(zip(schema.features, names)):
            out[:, j] = _encode_series(f, X[lookup[n]])
        return out
    if isinstance(X, Sequence) and not isinstance(X, (str, bytes)) and len(X) == 0:
        return np.empty((0, len(names)), dtype=np.float64)
    if isinstance(X, Sequence) and len(X) > 0 and isinstance(X[0], Mapping):
        for i, row in enumerate(X):
            if not isinstance(row, Mapping):
                raise DataError(f"row {i} is a {type(row).__name__}, not a mapping like row 0")
            _check_column_set(list(row.keys()), names, row=i)
        columns = [[row[n] for row in X] for n in names]
        return _stack(schema, columns, len(X))
    arr = _as_matrix(X)
    if arr.ndim == 1 and len(names) > 0 and arr.shape[0] == len(names) and not isinstance(X, np.ndarray):
        arr = arr.reshape(1, -1)
    if arr.ndim != 2:
        raise DataError(f"X must be two-dimensional (rows x features), got {_described(X, arr)}")
    if arr.shape[1] != len(names):
        raise SchemaError(f"X has {arr.shape[1]} columns, the tree expects {len(names)}: {list(names)}")
    if arr.dtype.kind in "iuf" and all(f.is_numeric for f in schema.features):
        out = np.array(arr, dtype=np.float64, copy=True)
        bad = np.argwhere(np.isinf(out))
        if len(bad):
            r, c = bad[0]
            raise DataError(f"row {int(r)}, column {names[c]!r}: value {float(out[r, c])!r} is not finite")
        return out
    if arr.dtype.kind in "iuf":
        _refuse_numbers_for_categories(schema, arr)
        out = np.empty(arr.shape, dtype=np.float64)
        for j, f in enumerate(schema.features):
            column = _array_column(arr[:, j], numeric=f.is_numeric)
            if isinstance(column, _Coded):
                out[:, j] = _encode_coded(f, column)
            elif isinstance(column, np.ndarray):
                out[:, j] = column
            else:
                out[:, j] = _encode_column(f, column, column=j)
        return out
    columns = [arr[:, j].tolist() for j in range(arr.shape[1])]
    return _stack(schema, columns, arr.shape[0])


def _refuse_numbers_for_categories(schema: Schema, arr: np.ndarray) -> None:
    """Refuse a numeric array whose cell would be read as a category value that cannot be:
    a number, for a feature whose categories are text or booleans. Such a cell would be an
    unseen category (every row answered at the split), and the likely cause is a matrix of
    category codes such as a :class:`Dataset`'s ``X``: the Dataset itself says they are codes."""
    for j, f in enumerate(schema.features):
        if f.is_numeric or any(category_key(c)[0] == "number" for c in f.categories):
            continue  # numbers are values here: a number category, or a numeric feature
        present = np.flatnonzero(~np.isnan(arr[:, j].astype(np.float64)))
        if present.size:
            r = int(present[0])
            raise SchemaError(
                f"row {r}, column {f.name!r}: a numeric array holds the number {_shown(arr[r, j].item())}, but the tree's "
                f"categories for this column are {_shown(list(f.categories), 60)}; pass the rows with their category values "
                "(a DataFrame, mappings or an object array), or, for category codes such as a Dataset's X, "
                "the Dataset itself: predict(tree, dataset), not predict(tree, dataset.X)"
            )


def _decode_columns(ds: Dataset) -> list[list[Any]]:
    """The dataset's columns as raw cells again (categories as their values, missing as None)."""
    columns = []
    for j, f in enumerate(ds.schema.features):
        col = ds.X[:, j]
        if f.is_numeric:
            columns.append([None if math.isnan(v) else v for v in col.tolist()])
        else:
            columns.append([None if math.isnan(v) or v < 0 else f.categories[int(v)] for v in col.tolist()])
    return columns


def _check_column_set(cols: Sequence[str], names: Sequence[str], *, row: int | None = None) -> None:
    missing = [n for n in names if n not in cols]
    if missing:
        where = "" if row is None else f"row {row}: "
        raise SchemaError(f"{where}missing column(s) {missing}{_closest_other(missing, cols, names)}; the tree expects {list(names)}")
    # Extra columns (e.g. the target) are ignored, as scikit-learn users expect.


def _closest_other(missing: Sequence[str], columns: Sequence[str], expected: Sequence[str]) -> str:
    """For the first missing column, the closest column of the data that the tree does not
    expect (a mistyped name), as a hint.

    >>> _closest_other(["temperature"], ["outlook", "temprature"], ["outlook", "temperature"])
    " (did you mean 'temprature'?)"
    """
    return did_you_mean(missing[0], [c for c in columns if c not in set(expected)])


def _stack(schema: Schema, columns: Sequence[Sequence[Any]], n_rows: int, *, where: Where = _row) -> np.ndarray:
    out = np.empty((n_rows, len(schema.features)), dtype=np.float64)
    for j, (f, col) in enumerate(zip(schema.features, columns)):
        out[:, j] = _encode_column(f, col, column=j, where=where)
    return out


def encode_table(schema: Schema, header: Sequence[str], body: Sequence[Sequence[str]]) -> np.ndarray:
    """Encode a text table (e.g. a CSV file's header and rows) under ``schema``, columns by name.

    Extra columns (such as the target) are ignored; a missing feature column or a repeated
    column name is an error. Rows read by :func:`read_csv_table` are named by file and line
    in errors.
    """
    where = _where_of(body)
    source = getattr(body, "source", "")
    header = list(_check_names([h.strip() for h in header], source=source))
    if source:
        missing = [n for n in schema.feature_names if n not in header]
        if missing:
            hint = _sep_hint(header) or _closest_other(missing, header, schema.feature_names)
            raise SchemaError(f"{source}: missing column(s) {missing}{hint}; the tree expects {list(schema.feature_names)}")
    _check_column_set(header, schema.feature_names)
    position = {h: j for j, h in enumerate(header)}
    columns = [[row[position[n]].strip() for row in body] for n in schema.feature_names]
    return _stack(schema, columns, len(body), where=where)


def table_dataset(schema: Schema, header: Sequence[str], body: Sequence[Sequence[str]]) -> Dataset:
    """A text table encoded under ``schema`` as a :class:`Dataset` (features only) that keeps
    the rows' file lines, so that errors at prediction (a missing value a tree refuses) name them.

    Wrapped in a Dataset of the tree's schema, the encoded codes are read as category codes,
    not as raw cells.
    """
    lines = getattr(body, "lines", None)
    return Dataset(
        schema,
        encode_table(schema, header, body),
        source=getattr(body, "source", None),
        lines=None if lines is None else np.asarray(lines, dtype=np.int64),
    )
