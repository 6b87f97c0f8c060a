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

import hashlib
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from ..data import Dataset, as_dataset
from ..errors import CodegenError, ParameterError
from ..flat import LEAF, flatten
from ..mcu import rows_runner
from ..nodes import Codes, Interval
from ..predict import apply, predict_proba, predict_value
from ..tree import Tree
from . import languages, literals as lit
from .leaves import LEAF_SCALE, LEAF_TYPES, leaf_answers
from .lower import MANIFEST_MARK, QUANTIZED_MAX, check_options, quantize, quantized_tree, tree_quantization
from .render import generate

__all__ = ["allowed_changes", "STRICT_FLAGS", "SANITIZE_FLAGS", "FP_FLAGS", "quantize_probes", "run_quantize", "Report", "check_rows", "check_batches", "expected", "run_c", "run_python", "verify", "verify_code", "driver_source", "driver_lines", "find_export", "read_manifest", "compile_c", "MAX_REPORTED"]

STRICT_FLAGS = ("-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wconversion")
SANITIZE_FLAGS = ("-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-g")
#: The generated source is built without fused multiply-add, so that its float arithmetic
#: (the fixed-point quantizer's) rounds once per operation, as puretree's does.
FP_FLAGS = ("-ffp-contract=off",)


@attrs.frozen
class Report:
    """What ``verify`` found: the number of rows checked, the number that differ and the first
    :data:`MAX_REPORTED` of them ``(row values, model, code)``, and the nodes that no row
    without missing values reaches in the feature type (dead branches, or branches only a
    missing value leads to: the missing-value rows are all that check them)."""

    n_checked: int
    mismatches: list[tuple[Any, Any, Any]]
    n_mismatches: int = attrs.field(default=attrs.Factory(lambda self: len(self.mismatches), takes_self=True))
    unreached: tuple[int, ...] = ()
    #: Fixed point only: the values ``NAME_quantize`` was checked on, the first
    #: :data:`MAX_REPORTED` that differ from puretree's quantization ``(feature, value,
    #: puretree, code)`` and their number; and how many of the given rows the quantization
    #: itself changes (the quantized tree on quantized rows against the float model on the rows).
    n_quantized: int = 0
    quantize_mismatches: list[tuple[Any, Any, Any, Any]] = attrs.Factory(list)
    n_quantize_mismatches: int = 0
    changed_by_quantization: int | None = None
    #: Fixed point only: the number of rows of ``X`` (the share changed is of these) and how
    #: many of them the quantization may change (``verify``'s ``max_changed``, as a count).
    n_rows: int = 0
    max_changed: int = 0
    #: With ``contributions``: the rows whose ``NAME_contributions`` was compared with
    #: :func:`puretree.explain.contributions` bit for bit, and the first :data:`MAX_REPORTED`
    #: that differ ``(row values, library, code)`` and their number.
    n_contributions: int = 0
    contribution_mismatches: list[tuple[Any, Any, Any]] = attrs.Factory(list)
    n_contribution_mismatches: int = 0

    @property
    def too_many_changed(self) -> bool:
        """The quantization changes more rows of ``X`` than ``max_changed`` allows."""
        return self.changed_by_quantization is not None and self.changed_by_quantization > self.max_changed

    @property
    def ok(self) -> bool:
        return self.n_mismatches == 0 and self.n_quantize_mismatches == 0 and self.n_contribution_mismatches == 0 and not self.too_many_changed


def allowed_changes(max_changed: Any, n_rows: int) -> int:
    """How many of ``n_rows`` rows the quantization may change: ``max_changed`` is a count
    (an ``int``, or its text ``"N"``) or a share of the rows as text ``"P%"`` (rounded down).

    >>> allowed_changes(0, 200), allowed_changes("3", 200), allowed_changes("2.5%", 200), allowed_changes("100%", 7)
    (0, 3, 5, 7)
    >>> allowed_changes(0.05, 200)
    Traceback (most recent call last):
    ...
    puretree.errors.ParameterError: max_changed must be a number of rows (0, 3) or a share of them ('5%'), got 0.05
    """
    bad = ParameterError(f"max_changed must be a number of rows (0, 3) or a share of them ('5%'), got {max_changed!r}")
    if isinstance(max_changed, bool):
        raise bad
    if isinstance(max_changed, (int, np.integer)):
        if max_changed < 0:
            raise bad
        return int(max_changed)
    if not isinstance(max_changed, str):
        raise bad
    text = max_changed.strip()
    try:
        if text.endswith("%"):
            share = float(text[:-1])
            if not 0 <= share <= 100:  # NaN included
                raise bad
            return math.floor(share / 100 * n_rows + 1e-9)  # 2.5% of 200 is 5, not 4.999...
        count = int(text)
    except ValueError:
        raise bad from None
    if count < 0:
        raise bad
    return count


#: How many differing rows a :class:`Report` keeps (all of them are counted).
MAX_REPORTED = 100


# -- the rows to check ----------------------------------------------------------------------


def _to_type(X: np.ndarray, tree: Tree, ftype: str) -> np.ndarray:
    """Values as the generated code sees them in ``ftype`` (NaN stays NaN), back in float64."""
    out = np.array(X, dtype=np.float64, copy=True)
    if ftype == "float":
        with np.errstate(over="ignore"):
            out = out.astype(np.float32).astype(np.float64)
    elif ftype in ("int8", "int16", "int32"):
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
        f32 = lit.float32_floor(t)
        with np.errstate(over="ignore"):
            near = [np.nextafter(f32, np.float32(-np.inf)), f32, np.nextafter(f32, np.float32(np.inf))]
            return [float(v) for v in near if np.isfinite(v)]
    lo, hi = lit.C_TYPES[ftype][1]
    f = math.floor(t)
    return [float(v) for v in (f - 1, f, f + 1) if lo < v <= hi]


def _typed_value(current: float, lo: float, hi: float, ftype: str) -> float | None:
    """A value of the feature type in ``(lo, hi]``: ``current`` if it is one, else the bound's
    nearest; None when the interval holds no value of the type (the path cannot be taken)."""
    if lo < current <= hi and not math.isnan(current):
        return current
    if not lo < hi:  # an empty interval (the known values' side of a missing-only split)
        return None
    if ftype == "double":
        v = hi if hi < math.inf else float(np.nextafter(lo, np.inf))
    elif ftype == "float":
        with np.errstate(over="ignore"):
            v = float(lit.float32_floor(hi)) if hi < math.inf else float(np.nextafter(lit.float32_floor(lo), np.float32(np.inf)))
    else:
        tlo, thi = lit.C_TYPES[ftype][1]
        v = float(min(math.floor(hi), thi)) if hi < math.inf else float(math.floor(lo) + 1)
        if not tlo < v <= thi:
            return None
    return v if math.isfinite(v) and lo < v <= hi else None


def _subtree_end(flat: Any) -> np.ndarray:
    """For each node, one past the last pre-order id of its subtree."""
    n = flat.n_nodes
    size = np.ones(n, dtype=np.int64)
    for i in range(n - 1, 0, -1):
        size[flat.parent[i]] += size[i]
    return np.arange(n) + size


def _node_rows(tree: Tree, flat: Any, start: np.ndarray, ftype: str) -> Iterator[tuple[int, np.ndarray | None]]:
    """For every node (pre-order), a row that the path constraints say reaches it: starting
    from ``start``, each split on the way narrows its feature to an interval (numeric) or a
    set of codes (categorical) and the row takes a value inside. A node whose constraints
    leave no value of the feature type (and every node below it) comes with ``None``: no row
    without missing values reaches it."""
    schema = tree.schema
    Stack = list[tuple[int, np.ndarray | None, dict[int, Any]]]
    stack: Stack = [(0, start, {})]
    while stack:
        node, row, bounds = stack.pop()
        yield node, row
        if int(flat.kind[node]) == LEAF:
            continue
        j = int(flat.feature[node])
        kids = flat.child_table[flat.child_offset[node]: flat.child_offset[node] + flat.n_children[node]].tolist()
        feature = schema.features[j]
        todo: Stack = []
        # Each branch narrows the feature to what the split's test says of it (an interval or
        # a set of codes); the row takes a value inside, if the type has one.
        allowed = bounds.get(j, Interval() if feature.is_numeric else Codes(range(len(feature.categories))))
        test = flat.nodes[node].test
        for b, (child, constraint) in enumerate(zip(kids, test.constraints(feature))):
            narrowed = allowed.meet(constraint)
            new = None
            if row is not None and isinstance(narrowed, Interval):
                v = _typed_value(float(row[j]), narrowed.lo, narrowed.hi, ftype)
                if v is None and getattr(test, "missing_branch", None) == b and not math.isnan(row[j]):
                    v = math.nan  # no known value takes this branch; a missing one does
                if v is not None:
                    new = row.copy()
                    new[j] = v
            elif row is not None and narrowed.codes:
                new = row.copy()
                new[j] = row[j] if row[j] in narrowed.codes else narrowed.codes[0]
            todo.append((child, new, {**bounds, j: narrowed}))
        stack.extend(reversed(todo))


def _batch_size(n_features: int) -> int:
    # Rows are checked in batches of about 4 million values, whatever their number.
    return max(1, min(2**16, 2**22 // max(1, n_features)))


def check_batches(tree: Tree, X: np.ndarray, feature_type: str = "double", *, unreached: list[int] | None = None) -> Iterator[np.ndarray]:
    """The rows to check, in batches (every one of them, however many): ``X`` (encoded, in the
    feature type); for every node, a row reaching it; for every threshold split, that row with
    the feature at the threshold and just below and above it in the feature type; for every
    split, that row with the feature missing, and for a categorical one with an unseen
    category (both codes past the end and -1); and for every feature a split tests, a row with
    it missing (and unseen), for the others one row with all of them missing (and unseen).
    Node ids that no row without missing values reaches are appended to ``unreached``."""
    ftype = check_options("c", {"feature_type": feature_type})["feature_type"]
    base = _to_type(X, tree, ftype)
    n_features = tree.schema.n_features
    size = _batch_size(n_features)
    seen: set[bytes] = set()

    def unique(rows: Iterable[np.ndarray]) -> list[np.ndarray]:
        # Rows already checked are not checked again (a leaf's row is often a threshold's neighbour).
        fresh = []
        for row in rows:
            key = hashlib.blake2b(row.tobytes(), digest_size=16).digest()
            if key not in seen:
                seen.add(key)
                fresh.append(row)
        return fresh

    for i in range(0, base.shape[0], size):
        unique(base[i: i + size])
        yield base[i: i + size]
    flat = flatten(tree)
    start = base[0].copy() if base.shape[0] else np.zeros(n_features)
    start = np.where(np.isnan(start), 0.0, start)  # so that every strategy (even "error") walks it
    for j, feature in enumerate(tree.schema.features):
        if not feature.is_numeric and not 0 <= start[j] < len(feature.categories):
            start[j] = 0.0 if feature.categories else start[j]
    # Features no split tests cannot change an answer: one row with all of them missing (and
    # one with them unseen) checks that the code ignores them, instead of a row per feature.
    tested = set(flat.feature[flat.kind != LEAF].tolist())
    ignored = [j for j in range(n_features) if j not in tested]
    per_feature = []
    if ignored:
        gone = start.copy()
        gone[ignored] = np.nan
        per_feature.append(gone)
        unseen = start.copy()
        unseen[[j for j in ignored if not tree.schema.features[j].is_numeric]] = -1.0
        per_feature.append(unseen)
    for j, feature in enumerate(tree.schema.features):
        if j not in tested:
            continue
        gone = start.copy()
        gone[j] = np.nan
        per_feature.append(gone)
        if not feature.is_numeric:
            for code in (len(feature.categories), -1):
                unseen = start.copy()
                unseen[j] = code
                per_feature.append(unseen)
    for i in range(0, len(per_feature), size):
        fresh = unique(per_feature[i: i + size])
        if fresh:
            yield np.array(fresh)
    end = _subtree_end(flat)
    pending: list[tuple[int, np.ndarray | None]] = []

    def derived(batch: list[tuple[int, np.ndarray | None]]) -> list[np.ndarray]:
        if unreached is not None:
            unreached.extend(k for k, r in batch if r is None)
        batch = [(k, r) for k, r in batch if r is not None]
        if not batch:
            return []
        nodes = np.array([k for k, _ in batch], dtype=np.int64)
        rows = np.array([r for _, r in batch])
        ends = np.asarray(apply(attrs.evolve(tree, missing="majority"), Dataset(tree.schema, rows), unseen="ignore"))  # probes: unseen on purpose
        reached = (ends >= nodes) & (ends < end[nodes])
        out = []
        for node, row, ok in zip(nodes.tolist(), rows, reached.tolist()):
            if not ok:
                if unreached is not None:
                    unreached.append(node)
                continue
            out.append(row)
            if int(flat.kind[node]) == LEAF:
                continue
            j = int(flat.feature[node])
            feature = tree.schema.features[j]
            values: list[float] = [math.nan]
            if feature.is_numeric:
                # Around every bound the test's branches set (a threshold: x = t and its neighbours).
                bounds = sorted({b for c in flat.nodes[node].test.constraints(feature) for b in (c.lo, c.hi) if math.isfinite(b)})
                values += [v for b in bounds for v in _neighbours(b, ftype)]
            else:
                values += [float(len(tree.schema.features[j].categories)), -1.0]
            for v in values:
                new = row.copy()
                new[j] = v
                out.append(new)
        return out

    out: list[np.ndarray] = []
    for item in _node_rows(tree, flat, start, ftype):
        pending.append(item)
        if len(pending) >= size:
            out += unique(derived(pending))
            pending = []
        while len(out) >= size:
            yield np.array(out[:size])
            out = out[size:]
    if pending:
        out += unique(derived(pending))
    for i in range(0, len(out), size):
        yield np.array(out[i: i + size])


def check_rows(tree: Tree, X: np.ndarray, feature_type: str = "double") -> np.ndarray:
    """All the rows of :func:`check_batches` as one array (for small trees and tests)."""
    batches = list(check_batches(tree, X, feature_type))
    return np.vstack(batches) if batches else np.zeros((0, tree.schema.n_features))


def expected(tree: Tree, rows: np.ndarray) -> list[Any]:
    """The model's answer per row: a tuple of probabilities (classification), a value
    (regression) or ``None`` where the model refuses the row (strategy "error")."""
    if tree.missing != "error" or rows.shape[0] == 0:
        return _answer(tree, Dataset(tree.schema, rows))
    # Under "error" a row is refused when its path meets a missing value: walked with
    # "distribute", exactly such a row stops at a split whose feature it lacks.
    flat = flatten(tree)
    ends = np.asarray(apply(attrs.evolve(tree, missing="distribute"), Dataset(tree.schema, rows), unseen="ignore"))
    at_split = flat.kind[ends] != LEAF
    refused = at_split & np.isnan(rows[np.arange(len(rows)), flat.feature[ends]])
    out: list[Any] = [None] * len(rows)
    keep = np.flatnonzero(~refused)
    if keep.size:
        for i, answer in zip(keep.tolist(), _answer(tree, Dataset(tree.schema, rows[keep]))):
            out[i] = answer
    return out


def _answer(tree: Tree, ds: Dataset) -> list[Any]:
    if tree.schema.is_regression:
        return [float(v) for v in predict_value(tree, ds, unseen="ignore")]
    return [tuple(float(p) for p in row) for row in predict_proba(tree, ds, unseen="ignore")]


# -- running generated code -----------------------------------------------------------------


def compile_c(files: dict[str, str], name: str, feature_type: str, *, regression: bool, proba: bool, workdir: str | os.PathLike[str], sanitize: bool = False, cc: str = "gcc", quantized: bool = False, driver: str | None = None) -> Path:
    """Write the generated files and a test driver into ``workdir`` and compile them; the
    generated source with :data:`STRICT_FLAGS` (warnings are errors) and :data:`FP_FLAGS`.
    Returns the program. ``driver``: the driver's source (:func:`driver_source`; default:
    a tree's). With ``quantized``, a second program ``qdriver`` in ``workdir`` runs
    ``NAME_quantize`` (see :func:`run_quantize`)."""
    if shutil.which(cc) is None:
        raise CodegenError(f"no C compiler {cc!r} on this machine")
    work = Path(workdir)
    for filename, text in files.items():
        (work / filename).write_text(text, encoding="utf-8")
    ctype = lit.C_TYPES[feature_type][0]
    (work / "driver.c").write_text(driver if driver is not None else _driver(name, ctype, regression=regression, proba=proba), encoding="utf-8")
    extra = list(SANITIZE_FLAGS) if sanitize else []
    program = work / "driver"
    steps = [
        [cc, *STRICT_FLAGS, *FP_FLAGS, *extra, "-O1", "-c", f"{name}.c", "-o", f"{name}.o"],
        [cc, "-std=c99", *extra, "-O0", "-c", "driver.c", "-o", "driver.o"],
        [cc, *extra, f"{name}.o", "driver.o", "-o", str(program), "-lm"],
    ]
    if quantized:
        (work / "qdriver.c").write_text(_quantize_driver(name, ctype), encoding="utf-8")
        steps += [
            [cc, "-std=c99", *extra, "-O0", "-c", "qdriver.c", "-o", "qdriver.o"],
            [cc, *extra, f"{name}.o", "qdriver.o", "-o", str(work / "qdriver"), "-lm"],
        ]
    for cmd in steps:
        done = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
        if done.returncode != 0:
            raise CodegenError(f"compiling the generated C failed ({' '.join(cmd)}): {done.stderr.strip()[:2000]}")
    return program


def _driver(name: str, ctype: str, *, regression: bool, proba: bool, uint8: bool = False) -> str:
    big = name.upper()
    if uint8 and proba:  # the leaf's numerators, printed as integers
        body = (f"uint8_t p[{big}_N_CLASSES]; int k; int c = {name}_predict_proba(x, p);"
                f' if (c != {name}_predict(x)) {{ printf("inconsistent\\n"); }}'
                f' printf("%d", c); for (k = 0; k < {big}_N_CLASSES; k++) printf(" %d", (int)p[k]); printf("\\n");')
    elif regression:
        body = f'printf("%a\\n", {name}_predict(x));'
    elif proba:
        body = (f"double p[{big}_N_CLASSES]; int k; int c = {name}_predict_proba(x, p);"
                f' if (c != {name}_predict(x)) {{ printf("inconsistent\\n"); }}'
                f' printf("%d", c); for (k = 0; k < {big}_N_CLASSES; k++) printf(" %a", p[k]); printf("\\n");')
    else:
        body = f'printf("%d\\n", {name}_predict(x));'
    return driver_source(name, ctype, body)


def driver_source(name: str, ctype: str, body: str) -> str:
    """A C program that reads rows from standard input and runs ``body`` (C statements over the
    row ``x``) on each: the driver of every compiled check (trees and ensembles)."""
    # One row per ";"-terminated group of tokens: no line length limit, and a row of a
    # tree without features is still a row. A malformed row makes the driver fail loudly.
    big = name.upper()
    read = "(%s)strtol(tok, &end, 10)" % ctype if ctype.startswith("int") else "(%s)strtod(tok, &end)" % ctype
    return f"""#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "{name}.h"
int main(void) {{
    static char tok[128];
    {ctype} x[{big}_N_FEATURES > 0 ? {big}_N_FEATURES : 1];
    int j = 0;
    while (scanf("%127s", tok) == 1) {{
        char *end;
        if (strcmp(tok, ";") == 0) {{
            if (j != {big}_N_FEATURES) {{ fprintf(stderr, "row with %d values, expected %d\\n", j, (int){big}_N_FEATURES); return 3; }}
            {{ {body} }}
            j = 0;
            continue;
        }}
        if (j >= {big}_N_FEATURES) {{ fprintf(stderr, "row with more than %d values\\n", (int){big}_N_FEATURES); return 3; }}
        x[j++] = {read};
        if (*end != '\\0') {{ fprintf(stderr, "bad value %s\\n", tok); return 3; }}
    }}
    return 0;
}}
"""


def _quantize_driver(name: str, ctype: str) -> str:
    # Rows of float32 values (C99 hexadecimal, inf, nan), ";"-terminated; prints the quantized values.
    big = name.upper()
    return f"""#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "{name}.h"
int main(void) {{
    static char tok[128];
    float x[{big}_N_FEATURES];
    {ctype} q[{big}_N_FEATURES];
    int j = 0, k;
    while (scanf("%127s", tok) == 1) {{
        char *end;
        if (strcmp(tok, ";") == 0) {{
            if (j != {big}_N_FEATURES) {{ fprintf(stderr, "row with %d values, expected %d\\n", j, (int){big}_N_FEATURES); return 3; }}
            for (k = 0; k < {big}_N_FEATURES; k++) q[k] = 0; /* features the tree never reads stay 0 */
            {name}_quantize(x, q);
            for (k = 0; k < {big}_N_FEATURES; k++) printf("%ld ", (long)q[k]);
            printf("\\n");
            j = 0;
            continue;
        }}
        if (j >= {big}_N_FEATURES) {{ fprintf(stderr, "row with more than %d values\\n", (int){big}_N_FEATURES); return 3; }}
        x[j++] = strtof(tok, &end);
        if (*end != '\\0') {{ fprintf(stderr, "bad value %s\\n", tok); return 3; }}
    }}
    return 0;
}}
"""


def run_quantize(program: Path, rows: np.ndarray, feature_type: str) -> np.ndarray:
    """Run the compiled ``qdriver`` on ``rows`` (as float32): the quantized values, missing as NaN."""
    with np.errstate(over="ignore"):
        rows32 = np.asarray(rows, dtype=np.float64).astype(np.float32).astype(np.float64)
    text = "".join(" ".join([*(("nan" if math.isnan(v) else float(v).hex()) for v in row), ";"]) + "\n" for row in rows32.tolist())
    done = subprocess.run([str(program)], input=text, capture_output=True, text=True)
    if done.returncode != 0:
        raise CodegenError(f"the compiled quantizer failed (exit {done.returncode}): {done.stderr.strip()[:2000]}")
    sentinel = lit.C_TYPES[feature_type][1][0]
    out = np.array([[float(v) for v in line.split()] for line in done.stdout.splitlines()], dtype=np.float64).reshape(len(rows32), -1)
    out[out == sentinel] = np.nan
    return out


def quantize_probes(tree: Tree, X: np.ndarray, offset: np.ndarray, scale: np.ndarray, ftype: str = "int16") -> np.ndarray:
    """Rows to check a quantizer on: ``X`` and, per feature, the values where rounding
    matters: each threshold's largest float32 below it and its float32 neighbours, the
    range's ends, the offset, values past the range, the float32 extremes, infinities, NaN.
    (Quantization works value by value: the columns of the extra rows need not be related.)
    ``ftype``: the integer type quantized onto (its :data:`QUANTIZED_MAX` places the range's ends)."""
    n = tree.schema.n_features
    flat = flatten(tree)
    per_feature: list[list[float]] = [[] for _ in range(n)]
    for node in np.flatnonzero(flat.kind != LEAF).tolist():
        j = int(flat.feature[node])
        if tree.schema.features[j].is_numeric:
            t = lit.float32_floor(float(flat.threshold[node]))
            with np.errstate(over="ignore"):
                per_feature[j] += [float(np.nextafter(t, np.float32(-np.inf))), float(t), float(np.nextafter(t, np.float32(np.inf)))]
    big = float(np.finfo(np.float32).max)
    for j in range(n):
        o, s = float(offset[j]), float(scale[j])
        half = 1.0 / s * QUANTIZED_MAX[ftype] if s > 0 else 1.0
        per_feature[j] += [o, o - half, o + half, o - 2 * half, o + 2 * half, -big, big, -math.inf, math.inf, math.nan, 0.0, -0.0]
        if not tree.schema.features[j].is_numeric:
            per_feature[j] += [float(c) for c in range(-1, len(tree.schema.features[j].categories) + 1)]
    height = max(len(v) for v in per_feature)
    extra = np.array([[v[i % len(v)] for v in per_feature] for i in range(height)], dtype=np.float64).reshape(height, n)
    return np.vstack([np.asarray(X, dtype=np.float64).reshape(-1, n), extra])


def _c_token(v: float, feature_type: str) -> str:
    if math.isnan(v):
        return str(lit.C_TYPES[feature_type][1][0]) if feature_type.startswith("int") else "nan"
    if feature_type.startswith("int"):
        return str(int(v))
    return float(v).hex()


def driver_lines(program: Path, rows: np.ndarray, feature_type: str) -> list[str]:
    """Run a compiled driver (:func:`driver_source`) on ``rows``: its output, a line per row."""
    text = "".join(" ".join([*(_c_token(v, feature_type) for v in row), ";"]) + "\n" for row in rows.tolist())
    done = subprocess.run([str(program)], input=text, capture_output=True, text=True)
    if done.returncode != 0:
        raise CodegenError(f"the compiled code failed (exit {done.returncode}): {done.stderr.strip()[:2000]}")
    lines = done.stdout.splitlines()
    if "inconsistent" in lines:
        raise CodegenError("predict and predict_proba disagree in the generated C")
    return lines


def run_c(program: Path, rows: np.ndarray, feature_type: str, *, regression: bool, proba: bool, scale: float | None = None) -> list[Any]:
    """Run the compiled driver on ``rows``; the answer per row in the form of :func:`expected`
    (``scale``: the driver prints whole numbers of 1/scale, a uint8 leaf table's)."""
    out: list[Any] = []
    for line in driver_lines(program, rows, feature_type):
        parts = line.split()
        if regression:
            value = float.fromhex(parts[0]) if parts[0] not in ("nan", "-nan") else None
            out.append(value)
        elif proba:
            cls = int(parts[0])
            out.append(None if cls < 0 else (cls, tuple((int(p) / scale if scale else float.fromhex(p)) for p in parts[1:])))
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
    assert spec is not None and spec.loader is not None  # a .py file always has a source loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def python_row(tree: Tree, row: Sequence[float]) -> list[Any]:
    """An encoded row as the values a user passes: categories as themselves, missing as None,
    an unseen category as a value that is none of them."""
    out: list[Any] = []
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
    """Run a generated (or hand-edited) module on ``rows``; the answer per row in the form of
    :func:`expected`. A ValueError is the module refusing the row (strategy "error"); any
    other exception is recorded as the row's answer, so that it shows as a mismatch."""
    out: list[Any] = []
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
        except Exception as exc:  # the code under test is at fault, not verify: report it
            out.append(f"raised {type(exc).__name__}: {exc}"[:200])
    return out


def _compare(tree: Tree, rows: np.ndarray, want: list[Any], got: list[Any], *, proba: bool) -> list[tuple[Any, Any, Any]]:
    bad = []
    for row, w, g in zip(rows.tolist(), want, got):
        if tree.schema.is_regression or w is None:
            same = (w is None and g is None) or (w is not None and g is not None and w == g)
        else:
            cls = int(np.argmax(w))
            if proba:
                same = isinstance(g, tuple) and g[0] == cls and g[1] == w
            else:
                same = g == cls
        if not same:
            bad.append((row, w, g))
    if len(got) != len(want):
        bad.append(("row count", len(want), len(got)))
    return bad


def _encoded(X: Any) -> np.ndarray:
    if isinstance(X, np.ndarray) and X.dtype.kind == "f" and X.ndim == 2:
        return X
    return X.X if isinstance(X, Dataset) else as_dataset(X).X


def _check(tree: Tree, X: np.ndarray, ftype: str, run: Any, *, proba: bool, answers: Any = expected) -> Report:
    """Every row of :func:`check_batches`, batch by batch: the model's answers (``answers``:
    :func:`expected`, or the uint8 leaf table's) against ``run``'s."""
    unreached: list[int] = []
    n_checked = n_bad = 0
    shown: list[tuple[Any, Any, Any]] = []
    for rows in check_batches(tree, X, ftype, unreached=unreached):
        bad = _compare(tree, rows, answers(tree, rows), run(rows), proba=proba)
        n_checked += len(rows)
        n_bad += len(bad)
        shown += bad[: MAX_REPORTED - len(shown)]
    return Report(n_checked, shown, n_bad, tuple(unreached))


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
    quantize: Any = None,
    on: str | None = None,
    max_changed: int | str = 0,
    **options: Any,
) -> Report:
    """Generate ``target`` code for ``tree``, run it on every row of :func:`check_batches`
    (the rows of ``X``, every node's threshold neighbourhood, unseen categories and missing
    values; no cap) and compare every answer with the model's, exactly.

    With ``quantize`` (fixed point: one ``(low, high)`` range per feature), the integer tree
    is checked exactly against puretree's quantized tree on the quantized rows (and every
    neighbourhood of its integer thresholds), ``NAME_quantize`` against puretree's
    quantization on the rows of ``X`` and :func:`quantize_probes`, and the report counts the
    rows of ``X`` whose prediction the quantization itself changes; the report is not ``ok``
    when they are more than ``max_changed`` (a count, or a share of the rows as ``"P%"``:
    :func:`allowed_changes`; default 0). ``on``: run the C on an emulated microcontroller (``"cortex-m4"``...:
    :mod:`puretree.mcu`) instead of the host.

    With ``leaf_type="uint8"`` (C, classification: :mod:`puretree.codegen.leaves`), the code is
    checked exactly against the model whose leaves answer in whole 255ths, and the report
    counts the rows of ``X`` whose class that rounding (with ``quantize``, together with the
    features') changes against the model, at most ``max_changed`` of them."""
    if target not in ("python", "c", "c-table", *languages.TARGETS):
        raise CodegenError(f"verify runs the built-in targets python, c, c-table, {', '.join(languages.TARGETS)}, not {target!r}")
    if on is not None and target not in ("c", "c-table"):
        raise CodegenError(f"verify runs C (targets c and c-table) on a microcontroller, not {target}")
    encoded = _encoded(X)
    allowed_changes(max_changed, 0)  # a bad value fails before anything is built
    ftype = check_options(target, {"feature_type": feature_type})["feature_type"]
    use_proba = (proba or target in languages.TARGETS) and not tree.schema.is_regression
    files = generate(tree, target, name=name, feature_type=ftype, proba=use_proba, template_dirs=template_dirs, quantize=quantize, **options)
    return _run_files(tree, encoded, files, target=target, name=name, ftype=ftype, proba=use_proba, sanitize=sanitize, ranges=quantize, on=on, max_changed=max_changed,
                      leaf_type=options.get("leaf_type", "double"))


def _answers_differ(tree: Tree, a: list[Any], b: list[Any]) -> int:
    """How many answers (of :func:`expected`) predict differently: another class, another value."""
    def said(answer: Any) -> Any:
        if answer is None or tree.schema.is_regression:
            return answer
        return int(np.argmax(answer))

    return sum(said(x) != said(y) for x, y in zip(a, b))


def _uint8_answers(tree: Tree, rows: np.ndarray) -> list[Any]:
    """The answers of the code with uint8 leaves: :func:`expected`, each distribution in 255ths."""
    return leaf_answers(expected(tree, rows))


def _run_files(tree: Tree, X: np.ndarray, files: dict[str, str], *, target: str, name: str, ftype: str, proba: bool, sanitize: bool, ranges: Any = None, on: str | None = None, max_changed: int | str = 0,
               leaf_type: str = "double") -> Report:
    uint8 = leaf_type == "uint8"
    if uint8 and on is not None:
        raise CodegenError("code with uint8 leaves is checked on the host; --on checks the double leaf tables")
    if ranges is not None and target != "python":
        if on is not None:
            raise CodegenError("the fixed-point check runs on the host only; --on checks the float and integer forms")
        report = _run_quantized(tree, X, files, name=name, ftype=ftype, proba=proba, sanitize=sanitize, ranges=ranges, uint8=uint8)
        return attrs.evolve(report, n_rows=len(X), max_changed=allowed_changes(max_changed, len(X)))
    report = _run_plain(tree, X, files, target=target, name=name, ftype=ftype, proba=proba, sanitize=sanitize, on=on, uint8=uint8)
    if not uint8:
        return report
    model = expected(tree, X) if len(X) else []
    return attrs.evolve(report, changed_by_quantization=_answers_differ(tree, model, leaf_answers(model)), n_rows=len(X), max_changed=allowed_changes(max_changed, len(X)))


def _run_plain(tree: Tree, X: np.ndarray, files: dict[str, str], *, target: str, name: str, ftype: str, proba: bool, sanitize: bool, on: str | None, uint8: bool) -> Report:
    answers = _uint8_answers if uint8 else expected
    with tempfile.TemporaryDirectory(prefix="puretree-verify-") as work:
        if target == "python":
            try:
                module = load_python(files[f"{name}.py"], work)
            except Exception as exc:  # the code under test does not even import: say so
                raise CodegenError(f"importing {name}.py failed: {type(exc).__name__}: {exc}") from None
            try:
                return _check(tree, X, "double", lambda rows: run_python(module, tree, rows), proba=True, answers=answers)
            finally:
                sys.modules.pop(module.__name__, None)
        regression = tree.schema.is_regression
        if target in languages.TARGETS:
            command = languages.build(files, target, name, regression=regression, workdir=work)
            return _check(tree, X, "double", lambda rows: languages.run(command, rows, regression=regression), proba=True, answers=answers)
        if on is not None:
            if sanitize:
                raise CodegenError("the sanitizers run on the host only, not with a microcontroller")
            n_classes = 0 if regression else len(tree.schema.classes)
            run = rows_runner(files, name=name, feature_type=ftype, core=on, n_features=tree.schema.n_features, n_classes=n_classes, proba=proba, workdir=work)
            return _check(tree, X, ftype, run, proba=proba, answers=answers)
        driver = _driver(name, lit.C_TYPES[ftype][0], regression=regression, proba=proba, uint8=uint8)
        program = compile_c(files, name, ftype, regression=regression, proba=proba, workdir=work, sanitize=sanitize, driver=driver)
        scale = float(LEAF_SCALE) if uint8 else None
        return _check(tree, X, ftype, lambda rows: run_c(program, rows, ftype, regression=regression, proba=proba, scale=scale), proba=proba, answers=answers)


def _run_quantized(tree: Tree, X: np.ndarray, files: dict[str, str], *, name: str, ftype: str, proba: bool, sanitize: bool, ranges: Any, uint8: bool = False) -> Report:
    answers = _uint8_answers if uint8 else expected
    per_unit = float(LEAF_SCALE) if uint8 else None
    offset, scale = tree_quantization(tree, ranges, ftype)
    qtree = quantized_tree(tree, offset, scale, ftype)
    QX = quantize(X, offset, scale, ftype)
    regression = tree.schema.is_regression
    with tempfile.TemporaryDirectory(prefix="puretree-verify-") as work:
        driver = _driver(name, lit.C_TYPES[ftype][0], regression=regression, proba=proba, uint8=uint8)
        program = compile_c(files, name, ftype, regression=regression, proba=proba, workdir=work, sanitize=sanitize, quantized=True, driver=driver)
        report = _check(qtree, QX, ftype, lambda rows: run_c(program, rows, ftype, regression=regression, proba=proba, scale=per_unit), proba=proba, answers=answers)
        probes = quantize_probes(tree, X, offset, scale, ftype)
        got = run_quantize(Path(work) / "qdriver", probes, ftype)
    want = quantize(probes, offset, scale, ftype)
    differ = ~((got == want) | (np.isnan(got) & np.isnan(want)))
    bad = [(int(j), float(probes[i, j]), float(want[i, j]), float(got[i, j])) for i, j in zip(*np.nonzero(differ))]
    changed = _answers_differ(tree, expected(tree, X), answers(qtree, QX)) if len(X) else 0
    return attrs.evolve(report, n_quantized=int(probes.size), quantize_mismatches=bad[:MAX_REPORTED], n_quantize_mismatches=len(bad), changed_by_quantization=changed)


# -- checking files a user already has --------------------------------------------------------

_MANIFEST_KEYS = {"target": str, "name": str, "form": str, "feature_type": str, "index_type": str, "proba": bool, "missing": str, "task": str, "n_features": int}


def read_manifest(path: str | os.PathLike[str]) -> dict[str, Any] | None:
    """The export manifest in the first line of a generated file, or None when it has none.
    A manifest that is there but malformed raises :class:`CodegenError`."""
    try:
        with open(path, encoding="utf-8") as fh:
            first = fh.readline(65536)
    except (OSError, UnicodeDecodeError):
        return None
    text = first.strip()
    for opening, closing in (("# ", ""), ("/* ", " */"), ("// ", "")):
        if text.startswith(opening + MANIFEST_MARK) and text.endswith(closing):
            body = text[len(opening + MANIFEST_MARK): len(text) - len(closing)]
            break
    else:
        return None
    try:
        manifest = json.loads(body)
    except ValueError:
        raise CodegenError(f"{os.fspath(path)}: the {MANIFEST_MARK} header is not valid JSON") from None
    if not isinstance(manifest, dict) or manifest.get("format") != "puretree-export" or manifest.get("version") != 1:
        raise CodegenError(f"{os.fspath(path)}: the {MANIFEST_MARK} header is not a puretree export manifest (version 1)")
    for key, kind in _MANIFEST_KEYS.items():
        if not isinstance(manifest.get(key), kind) or (kind is int and isinstance(manifest.get(key), bool)):
            raise CodegenError(f"{os.fspath(path)}: the {MANIFEST_MARK} header lacks a valid {key!r}")
    if manifest["target"] not in ("python", "c", "c-table", *languages.TARGETS):
        raise CodegenError(f"{os.fspath(path)}: verify --code runs the built-in targets python, c, c-table, {', '.join(languages.TARGETS)}, not {manifest['target']!r}")
    check_options(manifest["target"], {"name": manifest["name"], "feature_type": manifest["feature_type"]})
    ranges = manifest.get("quantize")
    if ranges is not None and not (isinstance(ranges, list) and len(ranges) == manifest["n_features"]
                                   and all(isinstance(r, list) and len(r) == 2 and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in r) for r in ranges)):
        raise CodegenError(f"{os.fspath(path)}: the {MANIFEST_MARK} header's 'quantize' is not one (low, high) pair per feature")
    if manifest.get("leaf_type", "double") not in LEAF_TYPES:
        raise CodegenError(f"{os.fspath(path)}: the {MANIFEST_MARK} header's 'leaf_type' is not one of {list(LEAF_TYPES)}")
    return manifest


def _main_file(manifest: dict[str, Any]) -> str:
    """The file of an export that holds its manifest and its entry points."""
    target = manifest["target"]
    pattern = languages.TARGETS.get(target, "{name}.py" if target == "python" else "{name}.c")
    return pattern.format(name=manifest["name"])


def find_export(code_dir: str | os.PathLike[str], *, name: str | None = None) -> tuple[dict[str, Any], dict[str, str]]:
    """The manifest and the files ``{file name: text}`` of the export in ``code_dir`` (the one
    called ``name`` when the folder holds several)."""
    folder = Path(code_dir)
    if not folder.is_dir():
        raise CodegenError(f"{os.fspath(code_dir)}: no such folder")
    found: dict[str, dict[str, Any]] = {}
    for path in sorted(folder.iterdir()):
        if path.suffix in (".py", ".c", ".js", ".java", ".rs") and path.is_file():
            manifest = read_manifest(path)
            if manifest is not None and path.name == _main_file(manifest):
                found[path.name] = manifest
    if name is not None:
        found = {k: m for k, m in found.items() if m["name"] == name}
    if not found:
        which = f" named {name!r}" if name is not None else ""
        raise CodegenError(f"{os.fspath(code_dir)}: no code exported by puretree{which} (no .py or .c file starting with a '{MANIFEST_MARK}' header); export it with `puretree export`")
    if len(found) > 1:
        raise CodegenError(f"{os.fspath(code_dir)}: holds several exports ({', '.join(sorted(found))}); choose one with --name")
    filename, manifest = next(iter(found.items()))
    wanted = [filename, manifest["name"] + ".h"] if manifest["target"] in ("c", "c-table") else [filename]
    files = {}
    for f in wanted:
        try:
            files[f] = (folder / f).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise CodegenError(f"{os.fspath(folder / f)}: cannot read it ({exc})") from None
    return manifest, files


def verify_code(tree: Tree, X: Any, code_dir: str | os.PathLike[str], *, name: str | None = None, sanitize: bool = False, on: str | None = None, max_changed: int | str = 0) -> tuple[dict[str, Any], Report]:
    """Check the code already in ``code_dir`` (as written by ``export``, possibly edited since):
    compile or import those files, not freshly generated ones, and compare them with the model
    on every row :func:`verify` checks. How they were generated comes from their
    ``puretree-export:`` header. Returns the manifest and the report. ``on`` and
    ``max_changed``: as for :func:`verify`."""
    allowed_changes(max_changed, 0)
    manifest, files = find_export(code_dir, name=name)
    if on is not None and manifest["target"] not in ("c", "c-table"):
        raise CodegenError(f"{os.fspath(code_dir)}: holds {manifest['target']} code; verify runs C on a microcontroller")
    if manifest["n_features"] != tree.schema.n_features or manifest["task"] != tree.schema.task:
        raise CodegenError(
            f"{os.fspath(code_dir)}: the code was exported from a {manifest['task']} model with {manifest['n_features']} features; "
            f"this model is a {tree.schema.task} model with {tree.schema.n_features}"
        )
    report = _run_files(tree, _encoded(X), files, target=manifest["target"], name=manifest["name"], ftype=manifest["feature_type"],
                        proba=manifest["proba"] and not tree.schema.is_regression, sanitize=sanitize, ranges=manifest.get("quantize"), on=on, max_changed=max_changed,
                        leaf_type=manifest.get("leaf_type", "double"))
    return manifest, report
