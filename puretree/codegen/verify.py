"""Checking generated code against the model: compile or load it, run it, compare exactly.

``verify(tree, X, target)`` generates the code, runs it on the rows of ``X`` and on the
*threshold neighbourhoods* (each threshold's value in the feature type and the representable
values just below and above it, put into a row that reaches that split), on unseen categories
and on missing values, and compares every prediction (and probability) with
:func:`puretree.predict.predict_proba` bit for bit. C is compiled with
``gcc -std=c99 -Wall -Wextra -Werror -pedantic -Wconversion`` (and optionally run under
``-fsanitize=address,undefined``); one small driver program reads all rows from stdin.

>>> from puretree.datasets import load_playtennis
>>> from puretree.grow import id3
>>> data = load_playtennis()
>>> report = verify(id3(data), data, "python")
>>> report.mismatches, report.n_checked > data.n_rows
([], True)
"""

from __future__ import annotations

import importlib.util
import math
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from ..data import Dataset, as_dataset
from ..errors import CodegenError, DataError
from ..nodes import Tree
from ..predict import NUMERIC_SPLIT, decision_path, flatten, predict_proba, predict_value
from . import literals as lit
from .lower import check_options
from .render import generate

__all__ = ["STRICT_FLAGS", "SANITIZE_FLAGS", "Report", "check_rows", "expected", "run_c", "run_python", "verify", "compile_c"]

STRICT_FLAGS = ("-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wconversion")
SANITIZE_FLAGS = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-g")


@attrs.frozen
class Report:
    """What ``verify`` found: rows checked and the differing ones ``(row values, model, code)``."""

    n_checked: int
    mismatches: list[tuple[Any, Any, Any]]

    @property
    def ok(self) -> bool:
        return not self.mismatches


# -- the rows to check ----------------------------------------------------------------------


def _to_type(X: np.ndarray, tree: Tree, ftype: str) -> np.ndarray:
    """Values as the generated code sees them in ``ftype`` (NaN stays NaN), back in float64."""
    out = np.array(X, dtype=np.float64, copy=True)
    if ftype == "float":
        with np.errstate(over="ignore"):
            out = out.astype(np.float32).astype(np.float64)
    elif ftype in ("int16", "int32"):
        lo, hi = lit.C_TYPES[ftype][1]
        present = ~np.isnan(out)
        out[present] = np.clip(np.rint(out[present]), lo + 1, hi)
    return out


def _neighbours(t: float, ftype: str) -> list[float]:
    if ftype == "double":
        with np.errstate(over="ignore"):
            values = [float(np.nextafter(t, -np.inf)), t, float(np.nextafter(t, np.inf))]
        return [v for v in values if math.isfinite(v)]
    if ftype == "float":
        f = lit.float32_floor(t)
        with np.errstate(over="ignore"):
            values = [np.nextafter(f, np.float32(-np.inf)), f, np.nextafter(f, np.float32(np.inf))]
            return [float(v) for v in values if np.isfinite(v)]
    lo, hi = lit.C_TYPES[ftype][1]
    f = math.floor(t)
    return [float(v) for v in (f - 1, f, f + 1) if lo < v <= hi]


def check_rows(tree: Tree, X: np.ndarray, feature_type: str = "double", *, limit: int = 4000) -> np.ndarray:
    """The rows to check: ``X`` (encoded, in the feature type), and for every numeric split, a
    row reaching it with that feature at the threshold and just below/above it in the feature
    type; plus each row with each feature missing, and with each categorical feature unseen."""
    ftype = check_options("c", {"feature_type": feature_type})["feature_type"]
    base = _to_type(X, tree, ftype)
    if base.shape[0] == 0:
        base = np.zeros((1, tree.schema.n_features))
    flat = flatten(tree)
    # Rows to carry the neighbourhood values: without missing cells, so that every strategy
    # (even "error") walks them to a leaf.
    clean = np.where(np.isnan(base), 0.0, base)
    reach: dict[int, int] = {}
    for r, path in enumerate(decision_path(tree, Dataset(tree.schema, clean))):
        for node in path:
            reach.setdefault(node, r)
    extra = []
    for node in np.flatnonzero(flat.kind == NUMERIC_SPLIT).tolist():
        j = int(flat.feature[node])
        row = clean[reach.get(node, 0)]
        for v in _neighbours(float(flat.threshold[node]), ftype):
            new = row.copy()
            new[j] = v
            extra.append(new)
    few = base[: max(1, min(len(base), 50))]
    for j, feature in enumerate(tree.schema.features):
        gone = few.copy()
        gone[:, j] = np.nan
        extra.extend(gone)
        if not feature.is_numeric:
            unseen = few.copy()
            unseen[:, j] = len(feature.categories)
            extra.extend(unseen)
            unseen[:, j] = -1
            extra.extend(unseen)
    rows = np.vstack([base] + ([np.array(extra)] if extra else []))
    return rows[:limit] if len(rows) > limit else rows


def expected(tree: Tree, rows: np.ndarray) -> list[Any]:
    """The model's answer per row: a tuple of probabilities (classification), a value
    (regression) or ``None`` where the model refuses the row (strategy "error")."""
    ds = Dataset(tree.schema, rows)
    if tree.missing == "error":
        out = []
        for i in range(len(rows)):
            try:
                out.append(_answer(tree, Dataset(tree.schema, rows[i: i + 1]))[0])
            except DataError:
                out.append(None)
        return out
    return _answer(tree, ds)


def _answer(tree: Tree, ds: Dataset) -> list[Any]:
    if tree.schema.is_regression:
        return [float(v) for v in predict_value(tree, ds)]
    return [tuple(float(p) for p in row) for row in predict_proba(tree, ds)]


# -- running generated code -----------------------------------------------------------------


def compile_c(files: dict[str, str], name: str, feature_type: str, *, regression: bool, proba: bool, workdir: str | os.PathLike[str], sanitize: bool = False, cc: str = "gcc") -> Path:
    """Write the generated files and a test driver into ``workdir`` and compile them; the
    generated source with :data:`STRICT_FLAGS` (warnings are errors). Returns the program."""
    if shutil.which(cc) is None:
        raise CodegenError(f"no C compiler {cc!r} on this machine")
    work = Path(workdir)
    for filename, text in files.items():
        (work / filename).write_text(text, encoding="utf-8")
    ctype = lit.C_TYPES[feature_type][0]
    (work / "driver.c").write_text(_driver(name, ctype, regression=regression, proba=proba), encoding="utf-8")
    extra = list(SANITIZE_FLAGS) if sanitize else []
    program = work / "driver"
    steps = [
        [cc, *STRICT_FLAGS, *extra, "-O1", "-c", f"{name}.c", "-o", f"{name}.o"],
        [cc, "-std=c99", *extra, "-O0", "-c", "driver.c", "-o", "driver.o"],
        [cc, *extra, f"{name}.o", "driver.o", "-o", str(program), "-lm"],
    ]
    for cmd in steps:
        done = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
        if done.returncode != 0:
            raise CodegenError(f"compiling the generated C failed ({' '.join(cmd)}): {done.stderr.strip()[:2000]}")
    return program


def _driver(name: str, ctype: str, *, regression: bool, proba: bool) -> str:
    big = name.upper()
    read = "(%s)strtol(tok, &end, 10)" % ctype if ctype.startswith("int") else "(%s)strtod(tok, &end)" % ctype
    if regression:
        body = f'printf("%a\\n", {name}_predict(x));'
    elif proba:
        body = (f"double p[{big}_N_CLASSES]; int k; int c = {name}_predict_proba(x, p);"
                f' if (c != {name}_predict(x)) {{ printf("inconsistent\\n"); }}'
                f' printf("%d", c); for (k = 0; k < {big}_N_CLASSES; k++) printf(" %a", p[k]); printf("\\n");')
    else:
        body = f'printf("%d\\n", {name}_predict(x));'
    return f"""#include <stdio.h>
#include <stdlib.h>
#include "{name}.h"
int main(void) {{
    static char line[1 << 16];
    {ctype} x[{big}_N_FEATURES > 0 ? {big}_N_FEATURES : 1];
    while (fgets(line, sizeof line, stdin)) {{
        char *tok = line; char *end; int j;
        for (j = 0; j < {big}_N_FEATURES; j++) {{ x[j] = {read}; tok = end; }}
        {{ {body} }}
    }}
    return 0;
}}
"""


def _c_token(v: float, feature_type: str) -> str:
    if math.isnan(v):
        return str(lit.C_TYPES[feature_type][1][0]) if feature_type.startswith("int") else "nan"
    if feature_type.startswith("int"):
        return str(int(v))
    return float(v).hex()


def run_c(program: Path, rows: np.ndarray, feature_type: str, *, regression: bool, proba: bool) -> list[Any]:
    """Run the compiled driver on ``rows``; the answer per row in the form of :func:`expected`."""
    text = "".join(" ".join(_c_token(v, feature_type) for v in row) + "\n" for row in rows.tolist())
    done = subprocess.run([str(program)], input=text, capture_output=True, text=True)
    if done.returncode != 0:
        raise CodegenError(f"the compiled code failed (exit {done.returncode}): {done.stderr.strip()[:2000]}")
    out = []
    for line in done.stdout.splitlines():
        if line == "inconsistent":
            raise CodegenError("predict and predict_proba disagree in the generated C")
        parts = line.split()
        if regression:
            value = float.fromhex(parts[0]) if parts[0] not in ("nan", "-nan") else None
            out.append(value)
        elif proba:
            cls = int(parts[0])
            out.append(None if cls < 0 else (cls, tuple(float.fromhex(p) for p in parts[1:])))
        else:
            cls = int(parts[0])
            out.append(None if cls < 0 else cls)
    return out


def load_python(source: str, workdir: str | os.PathLike[str]) -> Any:
    """Import a generated Python module from ``workdir`` under a fresh unique name."""
    module_name = f"puretree_generated_{uuid.uuid4().hex}"
    path = Path(workdir) / f"{module_name}.py"
    path.write_text(source, encoding="utf-8")
    spec = importlib.util.spec_from_file_location(module_name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def python_row(tree: Tree, row: Sequence[float]) -> list[Any]:
    """An encoded row as the values a user passes: categories as themselves, missing as None,
    an unseen category as a value that is none of them."""
    out = []
    for feature, v in zip(tree.schema.features, row):
        if math.isnan(v):
            out.append(None)
        elif feature.is_numeric:
            out.append(float(v))
        elif 0 <= v < len(feature.categories):
            out.append(feature.categories[int(v)])
        else:
            out.append(("unseen", float(v)))
    return out


def run_python(module: Any, tree: Tree, rows: np.ndarray) -> list[Any]:
    out = []
    for row in rows.tolist():
        values = python_row(tree, row)
        try:
            if tree.schema.is_regression:
                out.append(float(module.predict(values)))
            else:
                p = tuple(module.predict_proba(values))
                label = module.predict(values)
                out.append((tree.schema.classes.index(label), p))
        except ValueError:
            out.append(None)
    return out


def _compare(tree: Tree, rows: np.ndarray, want: list[Any], got: list[Any], *, proba: bool) -> list[tuple[Any, Any, Any]]:
    bad = []
    for row, w, g in zip(rows.tolist(), want, got):
        if tree.schema.is_regression or w is None:
            same = (w is None and g is None) or (w is not None and g is not None and w == g)
        else:
            cls = int(np.argmax(w))
            if proba:
                same = g is not None and g[0] == cls and g[1] == w
            else:
                same = g == cls
        if not same:
            bad.append((row, w, g))
    if len(got) != len(want):
        bad.append(("row count", len(want), len(got)))
    return bad


def verify(
    tree: Tree,
    X: Any,
    target: str,
    *,
    feature_type: str = "double",
    name: str = "tree",
    proba: bool = True,
    sanitize: bool = False,
    template_dirs: Iterable[str | os.PathLike[str]] | None = None,
    **options: Any,
) -> Report:
    """Generate ``target`` code for ``tree``, run it on the rows of ``X`` and their threshold
    neighbourhoods, and compare every answer with the model's, exactly."""
    if target not in ("python", "c", "c-table"):
        raise CodegenError(f"verify runs the built-in targets python, c and c-table, not {target!r}")
    if isinstance(X, np.ndarray) and X.dtype.kind == "f" and X.ndim == 2:
        encoded = X
    else:
        encoded = as_dataset(X).X if not isinstance(X, Dataset) else X.X
    ftype = check_options(target, {"feature_type": feature_type})["feature_type"]
    rows = check_rows(tree, encoded, ftype if target != "python" else "double")
    want = expected(tree, rows)
    use_proba = proba and not tree.schema.is_regression
    files = generate(tree, target, name=name, feature_type=ftype, proba=use_proba, template_dirs=template_dirs, **options)
    with tempfile.TemporaryDirectory(prefix="puretree-verify-") as work:
        if target == "python":
            module = load_python(files[f"{name}.py"], work)
            try:
                got = run_python(module, tree, rows)
            finally:
                sys.modules.pop(module.__name__, None)
            return Report(len(rows), _compare(tree, rows, want, got, proba=True))
        program = compile_c(files, name, ftype, regression=tree.schema.is_regression, proba=use_proba, workdir=work, sanitize=sanitize)
        got = run_c(program, rows, ftype, regression=tree.schema.is_regression, proba=use_proba)
    return Report(len(rows), _compare(tree, rows, want, got, proba=use_proba))
