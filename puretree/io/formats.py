"""Data files in every format puretree reads: CSV, ARFF, Parquet and JSON lines.

The format follows the file's extension (``.arff``; ``.parquet`` or ``.pq``; ``.jsonl`` or
``.ndjson``; anything else is CSV, ``.tsv`` with tabs), or is named (``format="arff"``).
``-`` reads standard input (CSV unless a format is named). Each reader gives the same
thing, a header and rows of text cells that remember where each row was in the file
(:class:`~puretree.data.CsvRows`), plus the column kinds the file *declares*:

- **ARFF** (Weka's format), read with `liac-arff <https://pypi.org/project/liac-arff/>`_:
  ``numeric``, ``real`` and ``integer`` attributes are numeric; nominal attributes are
  categories, even when their values are numbers (``{1,2,3}``); ``string`` attributes are
  categories; ``?`` is missing. The class is the last attribute unless ``target`` names
  another (Weka's convention). A ``%`` comment at the end of a declaration is dropped, as
  Weka's own reader does.
- **Parquet**, read with pandas (and pyarrow): numeric dtypes are numeric, the others
  (``category``, ``object``, ``string``, ``bool``) categories; needs ``puretree[parquet]``.
- **JSON lines**: one JSON object per line, read with the standard library's ``json`` (so a
  bad record is named by its line); a column whose values are all JSON numbers is numeric,
  one with a string or a boolean is categorical; an absent key or ``null`` is missing.
- **CSV**: kinds inferred from the cells (see :mod:`puretree.data`); ``sep`` is the delimiter.

Errors are :class:`~puretree.errors.DataError` naming the file and the line (or, in Parquet,
the row) and column.

>>> import os, tempfile
>>> scratch = tempfile.TemporaryDirectory(); path = os.path.join(scratch.name, "grades.arff")
>>> _ = open(path, "w").write('''@relation grades
... @attribute grade {1,2,3}   % a nominal attribute of numbers
... @attribute hours numeric
... @attribute passed {yes,no}
... @data
... 1,10,yes
... 3,?,no
... 2,4.5,yes
... ''')
>>> ds = read_arff(path)
>>> [(f.name, f.kind, f.categories) for f in ds.schema.features], ds.schema.target
([('grade', 'categorical', ('1', '2', '3')), ('hours', 'numeric', ())], 'passed')
>>> ds.X[1].tolist(), ds.labels().tolist(), ds.row_name(2)
([2.0, nan], ['yes', 'no', 'yes'], '.../grades.arff: line 8')
>>> scratch.cleanup()
"""

from __future__ import annotations

import io
import json
import math
import os
import re
import sys
from collections.abc import Iterable
from typing import Any

from ..data import STDIN, CsvRows, Dataset, did_you_mean, parse_number, read_csv, read_csv_table, read_text, table_to_dataset
from ..errors import DataError, ParameterError
from ..nodes import CATEGORICAL, CLASSIFICATION, NUMERIC

__all__ = ["FORMATS", "format_of", "read_table", "read_data", "read_arff"]

#: The formats puretree reads, by name.
FORMATS = ("csv", "arff", "parquet", "jsonl")
_EXTENSIONS = {".arff": "arff", ".parquet": "parquet", ".pq": "parquet", ".jsonl": "jsonl", ".ndjson": "jsonl"}

#: A file's declared column kinds: {column: "numeric" or "categorical"}.
Kinds = dict[str, str]


def format_of(path: str | os.PathLike[str], format: str | None = None) -> str:
    """The format to read ``path`` as: ``format`` if given (checked), else by extension.

    >>> format_of("iris.arff"), format_of("x.PARQUET"), format_of("-"), format_of("d.txt", "jsonl")
    ('arff', 'parquet', 'csv', 'jsonl')
    >>> format_of("d", "aarf")
    Traceback (most recent call last):
    ...
    puretree.errors.ParameterError: unknown data format 'aarf' (did you mean 'arff'?); the formats are ['csv', 'arff', 'parquet', 'jsonl']
    """
    if format is not None:
        if format not in FORMATS:
            raise ParameterError(f"unknown data format {format!r}{did_you_mean(format, FORMATS)}; the formats are {list(FORMATS)}")
        return format
    return _EXTENSIONS.get(os.path.splitext(os.fspath(path))[1].lower(), "csv")


def read_table(path: str | os.PathLike[str], *, sep: str | None = None, format: str | None = None) -> tuple[list[str], CsvRows, Kinds]:
    """``(header, rows, kinds)`` of a data file of any format (see the module notes): the rows
    as text cells (missing as ``""``) that know their file and lines, and the declared kinds.
    ``sep`` (CSV only) defaults to a tab for ``.tsv`` files, else a comma."""
    chosen = format_of(path, format)
    if sep is not None and chosen != "csv":
        raise ParameterError(f"--sep / sep= is for CSV files; {os.fspath(path)} is read as {chosen}")
    if chosen == "arff":
        return _arff_table(path)
    if chosen == "parquet":
        return _parquet_table(path)
    if chosen == "jsonl":
        return _jsonl_table(path)
    header, body = read_csv_table(path, sep=_csv_sep(path, sep))
    return header, body, {}


def _csv_sep(path: str | os.PathLike[str], sep: str | None) -> str:
    """The separator of a CSV file: ``sep``, else a tab for ``.tsv`` files, else a comma."""
    if sep is not None:
        return sep
    return "\t" if os.fspath(path).lower().endswith(".tsv") else ","


def read_data(
    path: str | os.PathLike[str],
    *,
    target: str | None = None,
    categorical: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    task: str = CLASSIFICATION,
    sep: str | None = None,
    format: str | None = None,
) -> Dataset:
    """A dataset from a data file of any format, with :func:`~puretree.data.read_csv`'s options.

    The kinds the file declares are kept (``categorical`` overrides them). For ARFF,
    ``target=None`` is the last attribute, as in Weka; for the others it means no target.
    """
    if format_of(path, format) == "csv":  # read_csv: through pandas' C reader where it reads the same cells
        return read_csv(path, target=target, categorical=categorical, ignore=ignore, task=task, sep=_csv_sep(path, sep))
    header, body, kinds = read_table(path, sep=sep, format=format)
    if target is None and format_of(path, format) == "arff":
        target = header[-1]
    return table_to_dataset(header, body, target=target, categorical=categorical, ignore=ignore, task=task, kinds=kinds)


def read_arff(
    path: str | os.PathLike[str],
    *,
    target: str | None = None,
    categorical: Iterable[str] | None = None,
    ignore: Iterable[str] = (),
    task: str = CLASSIFICATION,
) -> Dataset:
    """A dataset from an ARFF file (Weka's format) with its declared types: the class is
    ``target``, by default the last attribute (see the module notes)."""
    return read_data(path, target=target, categorical=categorical, ignore=ignore, task=task, format="arff")


# -- cells --------------------------------------------------------------------------------


def _text(cell: Any, at: str) -> str:
    """A typed cell (ARFF, JSON, Parquet) as the text a CSV file would hold: numbers exactly
    (``repr`` of a float reads back as the same double), missing as ``""``."""
    if cell is None:
        return ""
    if isinstance(cell, str):
        return cell
    if isinstance(cell, _LongInteger):
        raise DataError(f"{at}: an integer of {cell.digits} digits is too large (a number must lie within a double's range, a category or a label within +-2**53)")
    if type(cell).__name__ in ("NAType", "NaTType"):  # pandas' missing values
        return ""
    if hasattr(cell, "item") and not isinstance(cell, (list, dict)):  # a numpy scalar
        cell = cell.item()
    if isinstance(cell, bool):
        return "True" if cell else "False"
    if isinstance(cell, int):
        return str(cell)
    if isinstance(cell, float):
        if math.isnan(cell):
            return ""
        if math.isinf(cell):
            raise DataError(f"{at}: {cell!r} is not a finite number")
        # A whole number as a CSV file writes it (a numeric class 198, not 198.0); else repr, exact.
        return str(int(cell)) if cell.is_integer() and abs(cell) <= 2**53 else repr(cell)
    raise DataError(f"{at}: {_short(cell)} is not a number, a text or a boolean")


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# -- ARFF ---------------------------------------------------------------------------------


def _without_comment(line: str) -> str:
    """A declaration line without its trailing ``%`` comment (outside quotes), as Weka reads it.

    >>> _without_comment("@attribute total { low, high} % low < 100")
    '@attribute total { low, high}'
    >>> _without_comment("@attribute 'a % b' numeric")
    "@attribute 'a % b' numeric"
    """
    quote, escaped = "", False
    for i, ch in enumerate(line):
        if escaped:
            escaped = False
        elif ch == "\\":
            escaped = True
        elif quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "%":
            return line[:i].rstrip()
    return line


# An ARFF data row's instance weight, Weka's ``1,2,yes,{2}`` (liac-arff does not read it).
_ARFF_WEIGHT = re.compile(r"^(?P<row>.*\S)\s*,\s*\{(?P<weight>[^{}]*)\}\s*$")


def _arff_weights(text: str, rows: list[int], source: str) -> tuple[str, list[float] | None]:
    r"""The text with each data row's instance weight (``,{2}`` at its end) taken off, and the
    weights (1 where a row gives none), or ``None`` when no row gives one.

    >>> _arff_weights("@data\n1,yes,{2}\n2,no\n", [2, 3], "w.arff")
    ('@data\n1,yes\n2,no\n', [2.0, 1.0])
    >>> _arff_weights("@data\n1,yes,{heavy}\n", [2], "w.arff")
    Traceback (most recent call last):
    ...
    puretree.errors.DataError: w.arff: line 2: the instance weight {heavy} is not a number; Weka writes a row's weight as ,{2} at its end
    """
    lines = text.split("\n")
    weights: list[float] = []
    found = False
    for at in rows:
        match = _ARFF_WEIGHT.match(lines[at - 1])
        weight = 1.0
        if match is not None:
            found = True
            lines[at - 1] = match["row"]
            parsed = parse_number(match["weight"])
            if parsed is None or not math.isfinite(parsed) or parsed < 0:
                what = "is not a number" if parsed is None else "is negative or not finite"
                raise DataError(f"{source}: line {at}: the instance weight {{{match['weight'].strip()}}} {what}; Weka writes a row's weight as ,{{2}} at its end")
            weight = parsed
        weights.append(weight)
    return ("\n".join(lines), weights) if found else (text, None)


def _arff_header(text: str, source: str) -> tuple[str, list[int]]:
    """The text with declaration comments dropped, and the 1-based line of each data row
    (liac-arff reads one row per line, skipping blank lines and ``%`` comments).

    A file without its ``@data`` line is refused here, by name (liac-arff says only
    "Invalid layout of the ARFF file"):

    >>> _arff_header("@relation r\\n@attribute a numeric\\n1\\n", "r.arff")
    Traceback (most recent call last):
    ...
    puretree.errors.DataError: r.arff: line 3: a data row before the @data line: an ARFF file's rows follow a line '@data' after the @attribute declarations
    """
    lines = text.split("\n")
    rows: list[int] = []
    in_data = False
    for i, line in enumerate(lines):
        stripped = line.strip()
        if in_data:
            if stripped and not stripped.startswith("%"):
                rows.append(i + 1)
        elif stripped.lower().startswith("@data"):
            in_data = True
        elif stripped.startswith("@"):
            lines[i] = _without_comment(line)
        elif stripped and not stripped.startswith("%"):
            if not any(d.strip().startswith("@") for d in lines[:i]):
                raise DataError(f"{source}: line {i + 1}: not a readable ARFF file (it starts with {_short(stripped)}, not with @relation and @attribute declarations)")
            raise DataError(f"{source}: line {i + 1}: a data row before the @data line: an ARFF file's rows follow a line '@data' after the @attribute declarations")
    if not in_data:
        raise DataError(f"{source}: no @data line: an ARFF file's rows follow a line '@data' after the @attribute declarations")
    return "\n".join(lines), rows


def _arff_table(path: str | os.PathLike[str]) -> tuple[list[str], CsvRows, Kinds]:
    import arff  # liac-arff

    source, text = read_text(path, what="ARFF")
    cleaned, lines = _arff_header(text, source)
    cleaned, weights = _arff_weights(cleaned, lines, source)
    try:
        decoded = arff.loads(cleaned)
    except arff.ArffException as exc:
        reason = str(exc.message or type(exc).__name__).split(", at line")[0].rstrip(".")
        if "%" in reason and exc.line >= 0:
            reason = reason.replace("%d", str(exc.line))
        if isinstance(exc, arff.BadAttributeType):  # date and relational attributes
            reason += "; puretree reads numeric, real, integer, nominal and string attributes"
        raise DataError(f"{source}: line {exc.line}: not a readable ARFF file ({reason})") from None
    except (ValueError, TypeError, IndexError, KeyError) as exc:  # liac-arff's own slips on odd input
        raise DataError(f"{source}: not a readable ARFF file ({type(exc).__name__}: {exc})") from None
    attributes = decoded["attributes"]
    header = [str(name) for name, _ in attributes]
    kinds = {str(name): (NUMERIC if isinstance(kind, str) and kind.upper() in ("NUMERIC", "REAL", "INTEGER") else CATEGORICAL) for name, kind in attributes}
    data = decoded["data"]
    if not data:
        raise DataError(f"{source}: the file declares its attributes but has no data rows")
    at = lines if len(lines) == len(data) else None
    body = CsvRows(
        ([_text(cell, f"{source}: line {at[r]}, column {header[j]!r}" if at else f"{source}: row {r}, column {header[j]!r}") for j, cell in enumerate(row)] for r, row in enumerate(data)),
        source=source,
        lines=at,
        weights=weights if at else None,
    )
    if weights is not None and not at:
        raise DataError(f"{source}: instance weights ({{...}} at the ends of rows) in a file whose rows puretree cannot match to its lines")
    return header, body, kinds


# -- Parquet ------------------------------------------------------------------------------


def _pandas(source: str, what: str, extra: str) -> Any:
    try:
        import pandas
    except ImportError:
        raise ParameterError(f"{source}: reading {what} needs pandas: pip install 'puretree[{extra}]'") from None
    return pandas


def _parquet_table(path: str | os.PathLike[str]) -> tuple[list[str], CsvRows, Kinds]:
    source = "<stdin>" if os.fspath(path) == STDIN else os.fspath(path)
    pd = _pandas(source, "Parquet", "parquet")
    if source != "<stdin>" and not os.path.exists(source):
        raise DataError(f"{source}: no such file")
    try:
        frame = pd.read_parquet(io.BytesIO(sys.stdin.buffer.read()) if source == "<stdin>" else path)
    except ImportError:  # pandas without pyarrow (pandas' own message is many lines, naming pip install pyarrow)
        raise ParameterError(f"{source}: reading Parquet needs pandas and pyarrow: pip install 'puretree[parquet]'") from None
    except (ValueError, OSError, TypeError) as exc:
        raise DataError(f"{source}: not a readable Parquet file ({' '.join(str(exc).split())[:200]})") from None
    header = [str(c) for c in frame.columns]
    if len(set(header)) != len(header) or not header:
        raise DataError(f"{source}: {'no columns' if not header else 'repeated column names'}")
    kinds: Kinds = {}
    columns = []
    for name, column in zip(header, frame.columns):
        series = frame[column]
        kind = series.dtype.kind
        if kind in "mMc":
            raise DataError(f"{source}: column {name!r} holds {series.dtype} values, neither numbers nor categories")
        kinds[name] = NUMERIC if kind in "iuf" else CATEGORICAL
        cells = series.to_numpy(dtype=object).tolist()
        columns.append([_text(c, f"{source}: row {i}, column {name!r}") for i, c in enumerate(cells)])
    if not len(frame):
        raise DataError(f"{source}: the file has columns but no rows")
    return header, CsvRows((list(r) for r in zip(*columns)), source=source, lines=None), kinds


# -- JSON lines ---------------------------------------------------------------------------


class _LongInteger:
    """A JSON integer literal of more digits than ``int()`` takes (4,300), kept as its length,
    so that the cell's error names its line and column rather than Python's conversion limit."""

    __slots__ = ("digits",)

    def __init__(self, digits: int) -> None:
        self.digits = digits


def _integer(literal: str) -> Any:
    """``json.loads``'s ``parse_int``: an int, or a :class:`_LongInteger` for a literal too long."""
    return int(literal) if len(literal) <= 4000 else _LongInteger(len(literal.lstrip("-")))


class _RepeatedKey(Exception):
    """A key given twice in one JSON object (``json`` would keep the last value, silently)."""


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """``json.loads``'s ``object_pairs_hook``: an object's pairs as a dict, refusing a repeated key."""
    record = dict(pairs)
    if len(record) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise _RepeatedKey(key)
            seen.add(key)
    return record


def _jsonl_table(path: str | os.PathLike[str]) -> tuple[list[str], CsvRows, Kinds]:
    source, text = read_text(path, what="JSON lines")
    records: list[dict[str, Any]] = []
    lines: list[int] = []
    for i, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line, object_pairs_hook=_object, parse_int=_integer)
        except _RepeatedKey as exc:
            raise DataError(f"{source}: line {i}: the key {_short(exc.args[0])} appears twice in one record; a record gives each column once") from None
        except (ValueError, RecursionError) as exc:
            raise DataError(f"{source}: line {i}: not a JSON record ({getattr(exc, 'msg', exc)})") from None
        if not isinstance(record, dict):
            raise DataError(f"{source}: line {i}: a JSON {type(record).__name__}, not an object of column: value")
        records.append(record)
        lines.append(i)
    if not records:
        raise DataError(f"{source}: the file is empty")
    header = list(dict.fromkeys(k for r in records for k in r))
    kinds: Kinds = {}
    for name in header:
        values = [r[name] for r in records if r.get(name) is not None]
        numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in values)
        kinds[name] = NUMERIC if numbers and values else CATEGORICAL
    body = CsvRows(
        ([_text(r.get(name), f"{source}: line {at}, column {name!r}") for name in header] for r, at in zip(records, lines)),
        source=source,
        lines=lines,
    )
    return header, body, kinds

