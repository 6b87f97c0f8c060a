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
"""

from __future__ import annotations

import csv
import math
import numbers
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs
import numpy as np

from .errors import DataError, SchemaError
from .nodes import CATEGORICAL, CLASSIFICATION, NUMERIC, REGRESSION, Feature, Schema

__all__ = [
    "MISSING_TOKENS",
    "Dataset",
    "as_dataset",
    "from_numpy",
    "from_pandas",
    "from_rows",
    "read_csv",
    "read_csv_table",
    "encode_features",
    "encode_table",
    "labels_array",
    "encode_labels",
    "is_missing",
]

#: Cells that mean "missing" in text data (CSV): empty, Weka's ``?``, R's ``NA``.
MISSING_TOKENS = frozenset({"", "?", "NA", "NaN", "nan"})


@attrs.frozen(eq=False)
class Dataset:
    """A schema, an encoded feature matrix, encoded targets and optional row weights.

    ``X`` is float64 of shape ``(n_rows, n_features)``; ``y`` holds class indices (int64)
    for classification, float64 targets for regression, or is ``None`` (features only).
    """

    schema: Schema
    X: np.ndarray
    y: np.ndarray | None = None
    sample_weight: np.ndarray | None = None

    @property
    def n_rows(self) -> int:
        return int(self.X.shape[0])

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
        )


def labels_array(classes: Sequence[Any]) -> np.ndarray:
    """The classes as a numpy array of their natural dtype (str, int or bool)."""
    kinds = {type(c) for c in classes}
    if kinds and kinds <= {str}:
        return np.array(classes, dtype=str)
    if kinds and kinds <= {bool}:
        return np.array(classes, dtype=bool)
    if kinds and kinds <= {int}:
        return np.array(classes, dtype=np.int64)
    out = np.empty(len(classes), dtype=object)
    out[:] = list(classes)
    return out


# -- cells -------------------------------------------------------------------------------


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
    if isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_)):
        return math.isnan(float(value))
    return False


def _native(value: Any) -> Any:
    """A numpy scalar as the equivalent Python scalar (labels and categories stay JSON-able)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, (numbers.Real, np.number)) and not isinstance(value, (bool, np.bool_))


def _sort_key(value: Any) -> tuple[str, Any]:
    # Labels of one column normally share a type; the type name keeps mixed columns sortable.
    return (type(value).__name__, value)


def _parse_number(text: str) -> float | None:
    try:
        value = float(text)
    except (TypeError, ValueError):
        return None
    return value if math.isfinite(value) else None


def _check_label(value: Any, row: int) -> Any:
    value = _native(value)
    if is_missing(value):
        raise DataError(f"row {row}: the target is missing")
    if isinstance(value, float) and not math.isfinite(value):
        raise DataError(f"row {row}: the target {value!r} is not finite")
    if not isinstance(value, (str, int, float, bool)):
        raise DataError(f"row {row}: the target {value!r} is not a str, int, float or bool")
    return value


def encode_labels(y: Iterable[Any], *, task: str = CLASSIFICATION) -> tuple[tuple[Any, ...], np.ndarray]:
    """Encode targets: ``(classes, codes)`` for classification, ``((), floats)`` for regression.

    >>> encode_labels(["b", "a", "b"])
    (('a', 'b'), array([1, 0, 1]))
    >>> encode_labels([True, False])[0]
    (False, True)
    """
    if task == REGRESSION:
        fast = _numeric_targets(y)
        if fast is not None:
            return (), fast
    values = [_check_label(v, i) for i, v in enumerate(_as_list(y))]
    if task == REGRESSION:
        out = np.empty(len(values), dtype=np.float64)
        for i, v in enumerate(values):
            if not _is_number(v):
                raise DataError(f"row {i}: the regression target {v!r} is not a number")
            out[i] = float(v)
        return (), out
    # True == 1 == 1.0 in Python, so a set would merge a bool label into a number label (and
    # lose it); refuse the mix before building the set.
    kinds = {type(v) for v in values}
    if bool in kinds and kinds & {int, float}:
        mixed = list(dict.fromkeys((type(v).__name__, v) for v in values))[:6]
        raise DataError(f"the target mixes booleans and integers: {[v for _, v in mixed]}")
    classes = tuple(sorted(set(values), key=_sort_key))
    index = {c: i for i, c in enumerate(classes)}
    return classes, np.fromiter((index[v] for v in values), dtype=np.int64, count=len(values))


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


def _infer_feature(name: str, cells: Sequence[Any], *, categorical: bool | None) -> Feature:
    """Decide a column's kind from its cells: numeric when every present cell is a number."""
    present = [c for c in cells if not is_missing(c)]
    if categorical is None:
        categorical = not all(_is_number(c) or (isinstance(c, str) and _parse_number(c) is not None) for c in present)
    if not categorical:
        return Feature(name, NUMERIC)
    for c in present:
        c = _native(c)
        if not isinstance(c, (str, int, float, bool)):
            raise DataError(f"column {name!r}: the category {c!r} is not a str, int, float or bool")
    categories = tuple(sorted({_native(c) for c in present}, key=_sort_key))
    return Feature(name, CATEGORICAL, categories)


def _encode_column(feature: Feature, cells: Sequence[Any], *, column: int, strict_categories: bool = False) -> np.ndarray:
    """Encode one column's cells under ``feature``: floats, codes (-1 for unseen) or NaN."""
    out = np.empty(len(cells), dtype=np.float64)
    if feature.is_numeric:
        for row, cell in enumerate(cells):
            if is_missing(cell):
                out[row] = np.nan
            elif _is_number(cell):
                value = float(cell)
                if not math.isfinite(value):
                    raise DataError(f"row {row}, column {feature.name!r}: value {cell!r} is not finite")
                out[row] = value
            else:
                value = _parse_number(cell) if isinstance(cell, str) else None
                if value is None:
                    raise DataError(f"row {row}, column {feature.name!r}: {cell!r} is not a number")
                out[row] = value
        return out
    index = {c: i for i, c in enumerate(feature.categories)}
    for row, cell in enumerate(cells):
        if is_missing(cell):
            out[row] = np.nan
            continue
        code = index.get(_native(cell), -1)
        if code < 0 and isinstance(cell, str) and not all(isinstance(c, str) for c in feature.categories):
            # A CSV cell "3" for a category 3 learned from numbers.
            number = _parse_number(cell)
            code = index.get(int(number) if number is not None and number.is_integer() else number, -1)
        if code < 0 and strict_categories:
            raise DataError(f"row {row}, column {feature.name!r}: unknown category {cell!r}")
        out[row] = code
    return out


def _check_names(names: Sequence[Any]) -> tuple[str, ...]:
    names = tuple(str(n) for n in names)
    seen: set[str] = set()
    for n in names:
        if n in seen:
            raise DataError(f"duplicate column name {n!r}")
        seen.add(n)
    return names


def _build(
    names: Sequence[str],
    columns: Sequence[Sequence[Any]],
    y: Any,
    *,
    categorical: Iterable[str] | None,
    numeric: Iterable[str] | None = None,
    target: str,
    task: str,
    sample_weight: Any = None,
) -> Dataset:
    names = _check_names(names)
    cat_set = set(categorical or ())
    num_set = set(numeric or ())
    for n in cat_set | num_set:
        if n not in names:
            raise DataError(f"unknown column {n!r}; the columns are {list(names)}")
    features = tuple(
        _infer_feature(n, col, categorical=True if n in cat_set else (False if n in num_set else None))
        for n, col in zip(names, columns)
    )
    n_rows = len(columns[0]) if columns else (0 if y is None else len(_as_list(y)))
    X = np.empty((n_rows, len(features)), dtype=np.float64)
    for j, (f, col) in enumerate(zip(features, columns)):
        X[:, j] = _encode_column(f, col, column=j)
    classes: tuple[Any, ...] = ()
    codes = None
    if y is not None:
        classes, codes = encode_labels(y, task=task)
        if len(codes) != n_rows:
            raise DataError(f"the target has {len(codes)} values but the data has {n_rows} rows")
    weights = None if sample_weight is None else _check_weights(sample_weight, n_rows)
    return Dataset(Schema(features, classes, target=target, task=task), X, codes, weights)


def _check_weights(sample_weight: Any, n_rows: int) -> np.ndarray:
    w = np.array(sample_weight, dtype=np.float64, copy=True).reshape(-1) if not np.isscalar(sample_weight) else None
    if w is None:
        raise DataError("sample_weight must be a sequence with one weight per row")
    if len(w) != n_rows:
        raise DataError(f"sample_weight has {len(w)} values but the data has {n_rows} rows")
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if len(bad):
        raise DataError(f"row {int(bad[0])}: sample weight {float(w[bad[0]])!r} is negative or not finite")
    return w


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
    arr = np.asarray(X)
    if arr.ndim != 2:
        raise DataError(f"X must be two-dimensional (rows x features), got shape {arr.shape}")
    if arr.shape[0] == 0:
        raise DataError("X has no rows")
    names = list(feature_names) if feature_names is not None else [f"x{j}" for j in range(arr.shape[1])]
    if len(names) != arr.shape[1]:
        raise DataError(f"{len(names)} feature names for {arr.shape[1]} columns")
    cat = set(categorical or ())
    if arr.dtype.kind in "biuf" and not cat:
        # Fast path: a plain numeric matrix needs no per-cell inspection.
        if arr.dtype.kind == "b":
            raise DataError("X is boolean; pass it as an object array or name the columns in categorical=")
        Xf = np.array(arr, dtype=np.float64, copy=True)
        bad = np.argwhere(np.isinf(Xf))
        if len(bad):
            r, c = bad[0]
            raise DataError(f"row {int(r)}, column {names[c]!r}: value {float(Xf[r, c])!r} is not finite")
        names = _check_names(names)
        classes: tuple[Any, ...] = ()
        codes = None
        if y is not None:
            classes, codes = encode_labels(y, task=task)
            if len(codes) != arr.shape[0]:
                raise DataError(f"the target has {len(codes)} values but X has {arr.shape[0]} rows")
        weights = None if sample_weight is None else _check_weights(sample_weight, arr.shape[0])
        features = tuple(Feature(n, NUMERIC) for n in names)
        return Dataset(Schema(features, classes, target=target, task=task), Xf, codes, weights)
    columns = [list(arr[:, j]) for j in range(arr.shape[1])]
    return _build(names, columns, y, categorical=cat, target=target, task=task, sample_weight=sample_weight)


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
    if target is not None:
        if target not in df.columns:
            raise DataError(f"unknown target column {target!r}; the columns are {list(map(str, df.columns))}")
        y = df[target]
        df = df.drop(columns=[target])
    names = [str(c) for c in df.columns]
    cat = set(categorical or ())
    numeric = set()
    for name, col in zip(names, df.columns):
        kind = df[col].dtype.kind
        if name not in cat and kind in "iuf":
            numeric.add(name)
        elif name not in cat:
            cat.add(name)
    columns = [df[c].to_numpy(dtype=object).tolist() if str(c) in cat else df[c].to_numpy(dtype=np.float64).tolist() for c in df.columns]
    target_name = target if target is not None else (str(getattr(y, "name", None) or "target"))
    return _build(names, columns, y, categorical=cat, numeric=numeric, target=target_name, task=task, sample_weight=sample_weight)


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
    names = list(rows[0].keys())
    for i, row in enumerate(rows):
        if set(row.keys()) != set(names):
            raise DataError(f"row {i} has columns {sorted(row.keys())}, expected {sorted(names)}")
    columns = [[row[n] for row in rows] for n in names]
    return _build(names, columns, y, categorical=categorical, target=target, task=task, sample_weight=sample_weight)


def read_csv_table(path: str | os.PathLike[str]) -> tuple[list[str], list[list[str]]]:
    """Header and rows of a CSV file, checked: not empty, not header-only, not ragged."""
    try:
        with open(path, newline="", encoding="utf-8-sig") as fh:
            table = [row for row in csv.reader(fh) if row]
    except FileNotFoundError:
        raise DataError(f"{os.fspath(path)}: no such file") from None
    except IsADirectoryError:
        raise DataError(f"{os.fspath(path)}: is a directory, not a CSV file") from None
    except (UnicodeDecodeError, csv.Error) as exc:
        raise DataError(f"{os.fspath(path)}: not a readable CSV file ({exc})") from None
    if not table:
        raise DataError(f"{os.fspath(path)}: the file is empty")
    header, body = [h.strip() for h in table[0]], table[1:]
    if not body:
        raise DataError(f"{os.fspath(path)}: the file has a header but no data rows")
    for i, row in enumerate(body, start=2):
        if len(row) != len(header):
            raise DataError(f"{os.fspath(path)}: line {i} has {len(row)} cells, the header has {len(header)}")
    return header, body


def read_csv(
    path: str | os.PathLike[str],
    *,
    target: str | None = None,
    categorical: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    task: str = CLASSIFICATION,
) -> Dataset:
    """A dataset from a CSV file with a header line; ``target`` names the class column.

    A column is numeric when every present cell parses as a finite number, else
    categorical; empty cells, ``?`` and ``NA`` are missing. Columns named in ``ignore``
    (identifiers, say) are left out.
    """
    header, body = read_csv_table(path)
    names = _check_names(header)
    ignore = set(ignore)
    for n in ignore:
        if n not in names:
            raise DataError(f"{os.fspath(path)}: cannot ignore unknown column {n!r}; the columns are {list(names)}")
        if n == target:
            raise DataError(f"{os.fspath(path)}: the target column {n!r} cannot be ignored")
    y = None
    if target is not None:
        if target not in names:
            raise DataError(f"{os.fspath(path)}: unknown target column {target!r}; the columns are {list(names)}")
        t = names.index(target)
        y = [row[t] for row in body]
        y = [v.strip() for v in y]
        if task == REGRESSION:
            y = [_regression_cell(v, i, target) for i, v in enumerate(y, start=2)]
    keep = [j for j, n in enumerate(names) if n != target and n not in ignore]
    columns = [[row[j].strip() for row in body] for j in keep]
    return _build([names[j] for j in keep], columns, y, categorical=categorical, target=target or "target", task=task)


def _regression_cell(text: str, line: int, column: str) -> float:
    value = _parse_number(text)
    if value is None:
        raise DataError(f"line {line}, column {column!r}: the regression target {text!r} is not a finite number")
    return value


def as_dataset(X: Any, y: Any = None, *, sample_weight: Any = None, **options: Any) -> Dataset:
    """Whatever the user gave (Dataset, DataFrame, array, list of mappings) as a Dataset."""
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
    any order), a :class:`Dataset` with the same features, or a 2-D array in schema order.
    Unseen categories become -1, missing cells NaN.

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
        cols = [str(c) for c in X.columns]
        _check_column_set(cols, names)
        lookup = {str(c): c for c in X.columns}
        columns = [X[lookup[n]].to_numpy(dtype=object).tolist() for n in names]
        return _stack(schema, columns, len(X))
    if isinstance(X, Sequence) and len(X) > 0 and isinstance(X[0], Mapping):
        for i, row in enumerate(X):
            _check_column_set(list(row.keys()), names, row=i)
        columns = [[row[n] for row in X] for n in names]
        return _stack(schema, columns, len(X))
    arr = np.asarray(X)
    if arr.ndim == 1 and len(names) > 0 and arr.shape[0] == len(names) and not isinstance(X, np.ndarray):
        arr = arr.reshape(1, -1)
    if arr.ndim != 2:
        raise DataError(f"X must be two-dimensional (rows x features), got shape {arr.shape}")
    if arr.shape[1] != len(names):
        raise SchemaError(f"X has {arr.shape[1]} columns, the tree expects {len(names)}: {list(names)}")
    if arr.dtype.kind in "iuf" and all(f.is_numeric for f in schema.features):
        out = np.array(arr, dtype=np.float64, copy=True)
        bad = np.argwhere(np.isinf(out))
        if len(bad):
            r, c = bad[0]
            raise DataError(f"row {int(r)}, column {names[c]!r}: value {float(out[r, c])!r} is not finite")
        return out
    columns = [arr[:, j].tolist() for j in range(arr.shape[1])]
    return _stack(schema, columns, arr.shape[0])


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
    extra = [c for c in cols if c not in names]
    if missing:
        where = "" if row is None else f"row {row}: "
        raise SchemaError(f"{where}missing column(s) {missing}; the tree expects {list(names)}")
    del extra  # extra columns (e.g. the target) are ignored, as scikit-learn users expect


def _stack(schema: Schema, columns: Sequence[Sequence[Any]], n_rows: int) -> np.ndarray:
    out = np.empty((n_rows, len(schema.features)), dtype=np.float64)
    for j, (f, col) in enumerate(zip(schema.features, columns)):
        out[:, j] = _encode_column(f, col, column=j)
    return out


def encode_table(schema: Schema, header: Sequence[str], body: Sequence[Sequence[str]]) -> np.ndarray:
    """Encode a text table (e.g. a CSV file's header and rows) under ``schema``, columns by name.

    Extra columns (such as the target) are ignored; a missing feature column is an error.
    """
    header = [h.strip() for h in header]
    _check_column_set(header, schema.feature_names)
    position = {h: j for j, h in enumerate(header)}
    columns = [[row[position[n]].strip() for row in body] for n in schema.feature_names]
    return _stack(schema, columns, len(body))
