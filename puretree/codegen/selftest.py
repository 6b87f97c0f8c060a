"""A self-test that generated code carries onto the device (``puretree export --selftest``).

The C gets ``int NAME_selftest(void)`` and the Python ``selftest()``: a bounded set of the rows
:func:`puretree.codegen.verify` checks (every node, the thresholds and their neighbours in the
feature type, missing values), with puretree's answer to each, and the model's digest
(``NAME_DIGEST``, the SHA-256 of its puretree JSON). The function answers 0 when the built code
predicts every row as the library did, else 1 + the index of the first row it predicts
otherwise: a wrong compiler flag, a truncated flash image or an edited threshold shows there,
on the device.

The rows are stored as their non-zero cells (most cells of those rows are zero: a row differs
from the all-zero row where a path's tests placed it), so 64 rows of breast_cancer's 30
features take about 1 KB of flash, not 15 KB. Rows the model refuses (strategy "error") are
not among them: a refusal is no prediction to compare.

This module only writes the code; :func:`puretree.codegen.ensemble.generate` picks the rows
and the answers for trees, ensembles and boosted models.

>>> rows = np.array([[0.0, 1.5], [np.nan, 0.0], [2.0, 2.0]])
>>> chosen, wants = pick(rows, [1, 0, None])
>>> chosen.shape, wants
((2, 2), [1, 0])
>>> _cells(chosen)
([1, 1], [1, 0], [1.5, nan])
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from . import literals as lit

__all__ = ["MAX_ROWS", "pick", "c_selftest", "python_selftest"]

#: The most rows a self-test holds (the issue's bound: about 2 KB of flash on breast_cancer).
MAX_ROWS = 64


def pick(rows: np.ndarray, answers: Sequence[Any], max_rows: int = MAX_ROWS) -> tuple[np.ndarray, list[Any]]:
    """The rows of the self-test and their answers: those the model answers (``None``: refused,
    left out), at most ``max_rows``, spread evenly over verify's order (which goes node by node,
    root first), the first and the last included.

    >>> pick(np.arange(10.0).reshape(5, 2), [0, None, 1, 1, 0], max_rows=3)[1]
    [0, 1, 0]
    """
    keep = [i for i, a in enumerate(answers) if a is not None]
    if len(keep) > max_rows:
        keep = [keep[int(round(j))] for j in np.linspace(0, len(keep) - 1, max_rows)]
    return np.asarray(rows, dtype=np.float64)[keep].reshape(len(keep), -1), [answers[i] for i in keep]


def _cells(rows: np.ndarray) -> tuple[list[int], list[int], list[float]]:
    counts, features, values = [], [], []
    for row in rows.tolist():
        cells = [(j, v) for j, v in enumerate(row) if v != 0.0 or math.copysign(1.0, v) < 0]  # NaN != 0: kept
        counts.append(len(cells))
        features += [j for j, _ in cells]
        values += [v for _, v in cells]
    return counts, features, values


def _c_array(ctype: str, name: str, values: list[str], per_line: int = 12) -> list[str]:
    values = values or ["0"]  # C has no empty array
    body = ["    " + ", ".join(values[i:i + per_line]) + "," for i in range(0, len(values), per_line)]
    return [f"static const {ctype} {name}[{len(values)}] = {{", *body, "};"]


def _c_value(v: float, feature_type: str) -> str:
    ctype, int_range = lit.C_TYPES[feature_type]
    if int_range is not None:
        return lit.c_int(int(int_range[0]) if math.isnan(v) else int(v), ctype)
    if math.isnan(v):
        return "NAN"  # <math.h>'s, a constant expression (the self-test includes it)
    return lit.c_double(v) if feature_type == "double" else lit.c_float(v)


def c_selftest(files: Mapping[str, str], *, name: str, feature_type: str, rows: np.ndarray, answers: Sequence[Any], regression: bool, digest: str) -> dict[str, str]:
    """``files`` (generated C) with ``NAME_selftest`` and ``NAME_DIGEST`` added: the function
    at the end of ``NAME.c``, its prototype and the digest after the header's
    ``NAME_MAX_COMPARISONS`` line. ``answers``: the class index per row (classification) or
    the value (regression), as ``NAME_predict`` returns them."""
    ctype = lit.C_TYPES[feature_type][0]
    big = name.upper()
    n_features = rows.shape[1]
    counts, features, values = _cells(rows)
    index_type = "unsigned char" if n_features <= 256 else "unsigned short"
    n = len(counts)
    want = [lit.c_double(float(a)) for a in answers] if regression else [str(int(a)) for a in answers]
    code = ["", "", f"/* Self-test (puretree export --selftest): {n} rows of those puretree verify checks, each",
            " * stored as its non-zero cells, with the model's answer. */",
            "#include <math.h>",
            *_c_array("unsigned char", f"{name}_st_cells", [str(c) for c in counts]),
            *_c_array(index_type, f"{name}_st_feature", [str(j) for j in features]),
            *_c_array(ctype, f"{name}_st_value", [_c_value(v, feature_type) for v in values]),
            *_c_array("double" if regression else "short", f"{name}_st_want", want),
            "",
            f"int {name}_selftest(void)",
            "{",
            f"    {ctype} x[{n_features}];",
            "    int i, j, k = 0;",
            f"    for (i = 0; i < {n}; i++) {{",
            f"        for (j = 0; j < {n_features}; j++) x[j] = 0;",
            f"        for (j = 0; j < {name}_st_cells[i]; j++, k++) x[{name}_st_feature[k]] = {name}_st_value[k];",
            ]
    if regression:
        code += ["        {",
                 f"            volatile double got = {name}_predict(x), want = {name}_st_want[i];",
                 "            if (got != want && !(got != got && want != want)) return i + 1; /* NaN answers NaN */",
                 "        }"]
    else:
        code += [f"        if ({name}_predict(x) != {name}_st_want[i]) return i + 1;"]
    code += ["    }", "    return 0;", "}", ""]
    header = files[f"{name}.h"]
    mark = f"#define {big}_MAX_COMPARISONS "
    at = header.index(mark)
    end = header.index("\n", at) + 1
    declared = ["/* The model's digest (SHA-256 of its puretree JSON) and its self-test: 0 when this build",
                f" * predicts the {n} stored rows as puretree did, else 1 + the index of the first it predicts",
                " * otherwise. */",
                f"#define {big}_DIGEST {lit.c_string(digest)}",
                f"int {name}_selftest(void);"]
    return {**files, f"{name}.h": header[:end] + "\n".join(declared) + "\n" + header[end:], f"{name}.c": files[f"{name}.c"].rstrip("\n") + "\n" + "\n".join(code)}


def _py_literal(value: Any) -> str:
    if isinstance(value, float):
        return lit.py_float(value)
    if isinstance(value, tuple):
        return "(" + "".join(_py_literal(v) + ", " for v in value) + ")"
    return repr(value)  # None, a category's label (str, int, bool): Python's own literal


def python_selftest(files: Mapping[str, str], *, name: str, rows: Sequence[Sequence[Any]], answers: Sequence[Any], regression: bool, digest: str) -> dict[str, str]:
    """``files`` (generated Python) with ``DIGEST`` and ``selftest()`` added to ``NAME.py``:
    ``rows`` as the generated ``predict`` takes them (numbers, labels, ``None`` for missing),
    ``answers`` the label per row, or the value."""
    n = len(answers)
    listed = "".join("    [" + ", ".join(_py_literal(v) for v in row) + "],\n" for row in rows)
    code = ["", "", "#: The model's digest: the SHA-256 of its puretree JSON.",
            f"DIGEST = {lit.py_string(digest)}",
            f"_ST_ROWS = [\n{listed}]",
            f"_ST_WANT = [{', '.join(_py_literal(float(a)) if regression else _py_literal(a) for a in answers)}]",
            "",
            "",
            "def selftest():",
            f'    """0 when this code predicts the {n} stored rows as puretree did, else 1 + the index',
            '    of the first row it predicts otherwise (puretree export --selftest)."""',
            "    for i, (row, want) in enumerate(zip(_ST_ROWS, _ST_WANT)):",
            "        got = predict(row)",
            ("        if got != want and not (got != got and want != want):  # NaN answers NaN" if regression else "        if got != want:"),
            "            return i + 1",
            "    return 0",
            ""]
    return {**files, f"{name}.py": files[f"{name}.py"].rstrip("\n") + "\n" + "\n".join(code)}
