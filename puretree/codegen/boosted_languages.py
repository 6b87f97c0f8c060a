"""JavaScript, Java and Rust for boosted models (:class:`~puretree.boosted.Boosted`:
:func:`puretree.gradient_boosting`, :func:`puretree.hist_gradient_boosting`, imported XGBoost,
LightGBM and scikit-learn models) whose raw scores are the library's bit for bit, as the Python
and C of :mod:`puretree.codegen.boosted` are, line for line:

- ``float64`` (puretree's, LightGBM's, scikit-learn's): ``raw[k] = init[k]``, then
  ``raw[k] += learning_rate * value`` tree by tree, stage by stage, in double;
- ``float32`` (XGBoost): the numeric features rounded to float32 first (``Math.fround``,
  ``(float)``, ``as f32``), ``acc[k]`` a float32, ``acc[k] = float32(double(acc[k]) +
  learning_rate * value)`` after every tree (a float32 sum is the double sum rounded once);

then the link (the sigmoid or the softmax) in float32 where the library computes it in float32,
through the language's ``exp`` (to a few units in the last place of numpy's: :func:`verify`
checks the probabilities to a relative 1e-12, the raw scores and the classes for equality).

Two forms: ``nested`` (each tree as if/else, its leaves answering ``learning_rate * value`` as
one literal: inline in JavaScript's ``decisionFunction``, a small function per tree in Java and
Rust, which their compilers inline) and ``table`` (all trees' nodes in one set of arrays, walked
by one loop: any size). ``auto`` is nested where the language compiles it well.

>>> import numpy as np
>>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
>>> from puretree.boosted import Boosted, tree_schema
>>> from puretree.tree import Tree
>>> schema = Schema((Feature("x"),), ("a", "b"))
>>> t = Tree(Split(0, Threshold(0.5, missing_branch=1), (Leaf((1.0, -1.0, 1.0)), Leaf((1.0, 2.0, 4.0))), (2.0, 1.0, 5.0)), tree_schema(schema))
>>> model = Boosted(((t,), (t,)), (0.25,), 0.5, "log_loss", schema)
>>> sorted(boosted_files(model, "rust", name="gb"))
['gb.rs']
>>> "acc0 += t1(x);" in boosted_files(model, "rust", name="gb")["gb.rs"]
True
"""

from __future__ import annotations

import math
import tempfile
from typing import Any

import numpy as np

from ..boosted import LOSSES, Boosted, sigmoid_scale, strict_class
from ..data import Dataset, encode_features
from ..errors import CodegenError
from . import boosted as boosting, literals as lit
from .languages import TARGETS, build, run
from .lower import check_options
from .verify import MAX_REPORTED, Report

__all__ = ["boosted_files", "verify", "JS_NESTED_MAX_NODES", "JAVA_NESTED_MAX_TREE_NODES", "JAVA_NESTED_MAX_LITERALS"]


#: Most internal nodes the nested JavaScript inlines into one function (V8's optimizing compiler
#: leaves bigger functions to the interpreter: LightGBM's 100 trees of 31 leaves, 2,358 nodes
#: inline, ran 3.5x slower than as tables); bigger models are written a function per tree.
JS_NESTED_MAX_NODES = 1000
#: Most nodes of one tree in a nested Java method (javac's limit is 64 KB of bytecode a method,
#: HotSpot compiles methods up to 8,000 bytes: about 500 nodes) and most distinct double
#: literals in the class (its constant pool holds 65,535 entries, two a double).
JAVA_NESTED_MAX_TREE_NODES = 500
JAVA_NESTED_MAX_LITERALS = 25000

_BOOSTED_TARGETS = tuple(TARGETS)


class _Lang:
    """The few spellings the boosted writers need per language."""

    def __init__(self, target: str) -> None:
        self.target = target
        self.num = {"javascript": lit.js_float, "java": lit.java_double, "rust": lit.rust_f64}[target]
        self.string = {"javascript": lit.js_string, "java": lit.java_string, "rust": lit.rust_string}[target]

    def read(self, j: int, float32: bool) -> str:
        """Feature j of the row, rounded to float32 in a float32 model."""
        if not float32:
            return f"x[{j}]"
        return {"javascript": f"Math.fround(x[{j}])", "java": f"((double) (float) x[{j}])", "rust": f"(x[{j}] as f32 as f64)"}[self.target]

    def read32(self, j: int) -> str:
        """Feature j of the row as a float32 (Java, Rust)."""
        return {"java": f"((float) x[{j}])", "rust": f"(x[{j}] as f32)"}[self.target]

    def float32(self, v: float) -> str:
        """A float32 value as a float literal read back exactly (Java, Rust)."""
        if math.isinf(v):
            return {"java": "java.lang.Float.POSITIVE_INFINITY", "rust": "f32::INFINITY"}[self.target] if v > 0 else {"java": "java.lang.Float.NEGATIVE_INFINITY", "rust": "f32::NEG_INFINITY"}[self.target]
        if math.isnan(v):
            return {"java": "java.lang.Float.NaN", "rust": "f32::NAN"}[self.target]
        text = str(np.float32(v))  # numpy's shortest float32 round trip
        if "." not in text and "e" not in text:
            text += ".0"
        if self.target == "rust":
            return text + "f32"
        return f"({text}f)" if text.startswith("-") else text + "f"

    def local(self, v: str, expr: str) -> str:
        return {"javascript": f"const {v} = {expr};", "java": f"final double {v} = {expr};", "rust": f"let {v}: f64 = {expr};"}[self.target]

    def isnan(self, v: str) -> str:
        return f"{v}.is_nan()" if self.target == "rust" else (f"{v} !== {v}" if self.target == "javascript" else f"{v} != {v}")

    def cond(self, c: str) -> str:
        return f"if {c} {{" if self.target == "rust" else f"if ({c}) {{"

    def elif_(self, c: str) -> str:
        return f"}} else if {c} {{" if self.target == "rust" else f"}} else if ({c}) {{"

    def eq(self) -> str:
        return "===" if self.target == "javascript" else "=="


def _tree_lines(lang: _Lang, a: dict[str, Any], root: int, leaf: Any, float32: bool, numeric: list[bool], pad: str, *, in_float: bool = False) -> list[str]:
    """One tree as nested if/else: ``leaf(i)`` is the statement (or, in Rust, the expression)
    of node i's value. A threshold split sends NaN where its table does (``!(v > t)``: NaN
    left), a subset split its left codes, its other known codes, NaN and any other value each
    their way (a child -1: the node's own value, as the table walk stops there). ``in_float``
    (Java, Rust): a numeric feature's threshold test in float32, the float32 reading against
    the largest float32 at most the threshold (the same test: no float32 lies between them)."""
    lines: list[str] = []
    eq = lang.eq()

    def emit(i: int, pad: str) -> None:
        kind = a["kind"][i]
        if kind == 0:
            lines.append(pad + leaf(i))
            return
        j = a["feature"][i]
        left, right, nan = a["left"][i], a["right"][i], a["nan"][i]
        inner = pad + "    "

        def child(c: int, p: str) -> None:
            if c < 0:
                lines.append(p + leaf(i))
            else:
                emit(c, p)

        x = lang.read(j, float32 and numeric[j])
        if kind == 1:
            t = lang.num(a["threshold"][i])
            if nan in (left, right) and in_float and numeric[j]:
                x, t = lang.read32(j), lang.float32(boosting._float_below(a["threshold"][i]))
            if nan in (left, right):
                test = f"!({x} > {t})" if nan == left and nan != right else f"{x} <= {t}"
                lines.append(pad + lang.cond(test))
                emit(left, inner)
                lines.append(pad + "} else {")
                emit(right, inner)
                lines.append(pad + "}")
                return
            v = f"v{i}"
            lines.append(pad + "{")
            lines.append(inner + lang.local(v, x))
            lines.append(inner + lang.cond(lang.isnan(v)))
            child(nan, inner + "    ")
            lines.append(inner + lang.elif_(f"{v} <= {t}"))
            emit(left, inner + "    ")
            lines.append(inner + "} else {")
            emit(right, inner + "    ")
            lines.append(inner + "}")
            lines.append(pad + "}")
            return
        v = f"v{i}"
        codes = sorted(set(a["codes"][i]))
        others = [c for c in range(a["ncat"][i]) if c not in set(codes)]
        lines.append(pad + "{")
        lines.append(inner + lang.local(v, x))
        first = True
        for group, c in ((codes, left), (others, right)):
            if group:
                test = " || ".join(f"{v} {eq} {lang.num(float(code))}" for code in group)
                lines.append(inner + (lang.cond(test) if first else lang.elif_(test)))
                child(c, inner + "    ")
                first = False
        lines.append(inner + (lang.cond(lang.isnan(v)) if first else lang.elif_(lang.isnan(v))))
        child(nan, inner + "    ")
        lines.append(inner + "} else {")
        child(a["other"][i], inner + "    ")
        lines.append(inner + "}")
        lines.append(pad + "}")

    emit(root, pad)
    return lines


def _n_internal(a: dict[str, Any]) -> int:
    return sum(1 for k in a["kind"] if k)


def _tree_sizes(a: dict[str, Any]) -> list[int]:
    """The nodes of each tree (the trees' nodes are consecutive in the tables)."""
    ends = [*a["roots"][1:], len(a["kind"])]
    return [e - r for r, e in zip(a["roots"], ends)]


def _boosted_form(model: Any, target: str, a: dict[str, Any], form: str) -> str:
    """``nested`` or ``table``: ``auto`` picks nested where the language compiles it well."""
    if form not in ("auto", "nested", "table"):
        raise CodegenError(f"a boosted model's {target} is written nested or as a table, not {form!r}")
    deep = boosting._depth(a) > boosting.NESTED_MAX_DEPTH
    if form == "nested" and deep:
        raise CodegenError(f"a tree {boosting._depth(a)} levels deep is written as a table (form='table'): nested code stops at {boosting.NESTED_MAX_DEPTH} levels")
    if form != "auto":
        return form
    if deep:
        return "table"
    if target == "java" and (max(_tree_sizes(a), default=0) > JAVA_NESTED_MAX_TREE_NODES or len(set(a["threshold"]) | set(a["value"])) > JAVA_NESTED_MAX_LITERALS):
        return "table"
    return "nested"


def boosted_files(model: Any, target: str, *, name: str = "tree", feature_type: str = "double", form: str = "auto", **options: Any) -> dict[str, str]:
    """A boosted model's JavaScript (``NAME.js``), Java (``NAME.java``) or Rust (``NAME.rs``):
    ``decisionFunction`` (Rust: ``decision_function``), the raw scores bit for bit the
    library's; ``predict``, the class index (or the value); ``predictProba`` (``predict_proba``),
    the probabilities through the link. ``form``: ``nested`` (if/else per tree), ``table`` (one
    loop over the trees' tables) or ``auto``."""
    if target not in _BOOSTED_TARGETS:
        raise CodegenError(f"no boosted writer for target {target!r}; these are written: {', '.join(_BOOSTED_TARGETS)}")
    if options.get("quantize") is not None:
        raise CodegenError("boosted models are generated in float and double; quantized code is not written for them")
    if options.get("template_dirs"):
        raise CodegenError("a boosted model's code is written without templates (template_dirs is for trees and forests)")
    check_options(target, {"name": name, "feature_type": feature_type})
    a = boosting._arrays(model)
    chosen = _boosted_form(model, target, a, form)
    writer = {"javascript": _boosted_js, "java": _boosted_java, "rust": _boosted_rust}[target]
    return {TARGETS[target].format(name=name): writer(model, name, a, chosen == "nested")}


def _facts(model: Boosted, a: dict[str, Any]) -> dict[str, Any]:
    regression = LOSSES[model.loss] == "identity"
    return {
        "float32": model.precision == "float32",
        # float32 sums (XGBoost) whose every step can be a float32 addition: learning rate 1 and
        # float32 values, so float32(double(acc) + value) is acc + value in float32 (one rounding of
        # the exact sum either way), a shorter chain of dependent instructions per tree
        "in_float": model.precision == "float32" and model.learning_rate == 1.0 and all(math.isnan(v) or float(np.float32(v)) == v for v in a["value"]),
        "k": model.n_outputs,
        "regression": regression,
        "n_classes": 0 if regression else len(model.schema.classes),
        "numeric": [f.is_numeric for f in model.schema.features],
        "n_features": model.schema.n_features,
        "n_trees": len(a["roots"]),
    }


def _labels(model: Any) -> list[str]:
    return [lit.py_float(c) if isinstance(c, float) else str(c) for c in model.schema.classes]


def _header(model: Any, comment: str) -> list[str]:
    return [
        f"{comment} Boosted model compiled by puretree: {boosting._describe(model)}.",
        f"{comment} The raw scores are puretree's bit for bit (verify checks them on every threshold's",
        f"{comment} neighbours and missing values): the trees' values added in the library's order and",
        f"{comment} precision{', in float32 as XGBoost (the numeric features rounded to float32 first)' if model.precision == 'float32' else ', in double'};",
        f"{comment} the probabilities through the link, as the library computes them (exp to a few units in",
        f"{comment} the last place). A row: N_FEATURES numbers in FEATURES order, a category as its code, NaN",
        f"{comment} for a missing value.",
    ]


def _link_js(model: Any, f: dict[str, Any]) -> list[str]:
    k, scale = f["k"], sigmoid_scale(model)
    out = ["", "// The index of the predicted class in CLASSES.", "function code(r) {"]
    if k == 1:
        out += [f"    return r[0] {'>' if strict_class(model) else '>='} 0.0 ? 1 : 0;", "}"]
    else:
        out += ["    let best = 0;", "    for (let j = 1; j < N_OUTPUTS; j++) {", "        if (r[j] > r[best]) {", "            best = j;", "        }", "    }", "    return best;", "}"]
    out += ["", "function proba(r) {"]
    if f["float32"] and k == 1:
        z = "Math.fround(r[0])" if scale == 1.0 else f"Math.fround({lit.js_float(float(np.float32(scale)))} * Math.fround(r[0]))"
        out += [f"    const e = Math.fround(Math.exp(-{z}));", "    const p = Math.fround(1 / Math.fround(1 + e));", "    return [1 - p, p];", "}"]
    elif f["float32"]:
        out += ["    let top = Math.fround(r[0]);", "    for (let j = 1; j < N_OUTPUTS; j++) {", "        if (Math.fround(r[j]) > top) {", "            top = Math.fround(r[j]);", "        }", "    }",
                "    const e = new Array(N_OUTPUTS);", "    let total = 0.0;", "    for (let j = 0; j < N_OUTPUTS; j++) {",
                "        e[j] = Math.fround(Math.exp(Math.fround(Math.fround(r[j]) - top)));", "        total += e[j];", "    }",
                "    const t = Math.fround(total);", "    for (let j = 0; j < N_OUTPUTS; j++) {", "        e[j] = Math.fround(e[j] / t);", "    }", "    return e;", "}"]
    elif k == 1:
        z = "r[0]" if scale == 1.0 else f"{lit.js_float(scale)} * r[0]"
        out += [f"    const p = 1 / (1 + Math.exp(-({z})));", "    return [1 - p, p];", "}"]
    else:
        out += ["    let top = r[0];", "    for (let j = 1; j < N_OUTPUTS; j++) {", "        if (r[j] > top) {", "            top = r[j];", "        }", "    }",
                "    const e = new Array(N_OUTPUTS);", "    let total = 0.0;", "    for (let j = 0; j < N_OUTPUTS; j++) {", "        e[j] = Math.exp(r[j] - top);", "        total += e[j];", "    }",
                "    for (let j = 0; j < N_OUTPUTS; j++) {", "        e[j] /= total;", "    }", "    return e;", "}"]
    out += ["", "// The index of the predicted class in CLASSES.", "function predict(x) {", "    return code(decisionFunction(x));", "}",
            "", "// The class probabilities, in CLASSES order.", "function predictProba(x) {", "    return proba(decisionFunction(x));", "}"]
    return out


def _boosted_js(model: Any, name: str, a: dict[str, Any], nested: bool) -> str:
    f = _facts(model, a)
    lang = _Lang("javascript")
    k, lr = f["k"], model.learning_rate
    src = [*_header(model, "//"), '"use strict";', "",
           "const FEATURES = Object.freeze([" + ", ".join(lang.string(n) for n in model.schema.feature_names) + "]);",
           f"const N_FEATURES = {f['n_features']};", f"const N_OUTPUTS = {k};"]
    if not f["regression"]:
        src += ["const CLASSES = Object.freeze([" + ", ".join(lang.string(c) for c in _labels(model)) + "]);", f"const N_CLASSES = {f['n_classes']};"]
    src += ["", "function check(x) {", "    if (x.length !== N_FEATURES) {", '        throw new RangeError("expected " + N_FEATURES + " values, got " + x.length);', "    }", "}", ""]
    init = [lit.js_float(v) for v in model.init]
    if nested and _n_internal(a) <= JS_NESTED_MAX_NODES:
        src += ["// The raw scores of row x: every tree inline, its leaf adding learning_rate * value (a literal).", "function decisionFunction(x) {", "    check(x);"]
        src += [f"    let acc{j} = {f'Math.fround({v})' if f['float32'] else v};" for j, v in enumerate(init)]
        for t, (root, out) in enumerate(zip(a["roots"], a["outputs"])):
            def leaf(i: int, out: int = out) -> str:
                c = lit.js_float(lr * a["value"][i])
                return f"acc{out} = Math.fround(acc{out} + {c});" if f["float32"] else f"acc{out} += {c};"
            src += [f"    // tree {t}", *_tree_lines(lang, a, root, leaf, f["float32"], f["numeric"], "    ")]
        src += ["    return [" + ", ".join(f"acc{j}" for j in range(k)) + "];", "}"]
    elif nested:
        # a function per tree (each small enough for V8 to optimize), answering its leaf's
        # learning_rate * value (a literal)
        for t, root in enumerate(a["roots"]):
            def answer(i: int) -> str:
                return f"return {lit.js_float(lr * a['value'][i])};"
            src += [f"function t{t}(x) {{", *_tree_lines(lang, a, root, answer, f["float32"], f["numeric"], "    "), "}", ""]
        src += ["// The raw scores of row x.", "function decisionFunction(x) {", "    check(x);"]
        src += [f"    let acc{j} = {f'Math.fround({v})' if f['float32'] else v};" for j, v in enumerate(init)]
        for t, out in enumerate(a["outputs"]):
            src.append(f"    acc{out} = Math.fround(acc{out} + t{t}(x));" if f["float32"] else f"    acc{out} += t{t}(x);")
        src += ["    return [" + ", ".join(f"acc{j}" for j in range(k)) + "];", "}"]
    else:
        words, bit0 = _bitsets(a)
        src += [
            "// All trees' nodes, one set of tables (a tree's node ids offset by the trees before); kind 0: a leaf,",
            "// 1: x <= threshold goes left, 2: a category in the node's left codes (bits from BIT0) goes left;",
            "// NAN: where a missing value goes, OTHER: an unknown category (-1: stop, the node's value).",
            f"const KIND = new Int8Array([{', '.join(map(str, a['kind']))}]);",
            f"const FEATURE = new Int32Array([{', '.join(map(str, a['feature']))}]);",
            f"const THRESHOLD = new Float64Array([{', '.join(lit.js_float(v) for v in a['threshold'])}]);",
            f"const LEFT = new Int32Array([{', '.join(map(str, a['left']))}]);",
            f"const RIGHT = new Int32Array([{', '.join(map(str, a['right']))}]);",
            f"const NAN = new Int32Array([{', '.join(map(str, a['nan']))}]);",
            f"const OTHER = new Int32Array([{', '.join(map(str, a['other']))}]);",
            f"const VALUE = new Float64Array([{', '.join(lit.js_float(v) for v in a['value'])}]);",
            f"const NCAT = new Int32Array([{', '.join(map(str, a['ncat']))}]);",
            f"const BIT0 = new Int32Array([{', '.join(map(str, bit0))}]);",
            f"const BITS = new Uint32Array([{', '.join(map(str, words))}]);",
            f"const ROOTS = new Int32Array([{', '.join(map(str, a['roots']))}]);",
            f"const OUTPUTS = new Int32Array([{', '.join(map(str, a['outputs']))}]);",
            f"const NUMERIC = [{', '.join('true' if n else 'false' for n in f['numeric'])}];",
            f"const INIT = [{', '.join(init)}];",
            f"const LR = {lit.js_float(lr)};",
            "",
            "function leaf(i, x) {",
            "    while (KIND[i] !== 0) {",
            "        const v = x[FEATURE[i]];",
            "        let next;",
            "        if (v !== v) {",
            "            next = NAN[i];",
            "        } else if (KIND[i] === 1) {",
            "            next = v <= THRESHOLD[i] ? LEFT[i] : RIGHT[i];",
            "        } else if (v >= 0 && v < NCAT[i] && v === Math.floor(v)) {",
            "            next = (BITS[BIT0[i] + (v >>> 5)] >>> (v & 31)) & 1 ? LEFT[i] : RIGHT[i];",
            "        } else {",
            "            next = OTHER[i];",
            "        }",
            "        if (next < 0) {",
            "            break;",
            "        }",
            "        i = next;",
            "    }",
            "    return VALUE[i];",
            "}",
            "",
            "// The raw scores of row x.",
            "function decisionFunction(x) {",
            "    check(x);",
        ]
        if f["float32"]:
            src += ["    const xd = x.map((v, j) => (NUMERIC[j] ? Math.fround(v) : v));",
                    "    const acc = Float32Array.from(INIT); // each store rounds the double sum to float32",
                    "    for (let t = 0; t < ROOTS.length; t++) {", "        acc[OUTPUTS[t]] = acc[OUTPUTS[t]] + LR * leaf(ROOTS[t], xd);", "    }", "    return Array.from(acc);", "}"]
        else:
            src += ["    const acc = INIT.slice();", "    for (let t = 0; t < ROOTS.length; t++) {", "        acc[OUTPUTS[t]] += LR * leaf(ROOTS[t], x);", "    }", "    return acc;", "}"]
    if f["regression"]:
        src += ["", "// The predicted value (the raw score).", "function predict(x) {", "    return decisionFunction(x)[0];", "}", "",
                "module.exports = { decisionFunction, predict, FEATURES, N_FEATURES, N_OUTPUTS };", ""]
    else:
        src += _link_js(model, f)
        src += ["", "module.exports = { decisionFunction, predict, predictProba, FEATURES, N_FEATURES, N_OUTPUTS, CLASSES, N_CLASSES };", ""]
    return "\n".join(src)


def _bitsets(a: dict[str, Any]) -> tuple[list[int], list[int]]:
    """The subset splits' left codes as 32-bit words: node i's code c is bit c % 32 of word
    ``bit0[i] + c / 32`` (as the C tables hold them)."""
    words: list[int] = []
    bit0 = [0] * len(a["kind"])
    for i, codes in sorted(a["codes"].items()):
        bit0[i] = len(words)
        row = [0] * max(1, (a["ncat"][i] + 31) // 32)
        for c in codes:
            row[c // 32] |= 1 << (c % 32)
        words += row
    return words or [0], bit0


def verify(model: Boosted, X: Any, target: str, *, name: str = "tree", feature_type: str = "double", form: str = "auto", **options: Any) -> Report:
    """A boosted model's JavaScript, Java or Rust built and run on ``X`` and its boundary rows
    (:func:`puretree.codegen.boosted.check_rows`: every node reached, each threshold with its
    float32 and double neighbours, -1, missing values) against the library: raw scores bit
    for bit, classes equal, probabilities to a relative 1e-12 (as the Python and C are checked)."""
    for key in ("on", "quantize"):
        if options.pop(key, None) is not None:
            raise CodegenError(f"verify's {key!r} is not available for boosted models")
    if options.pop("sanitize", False):
        raise CodegenError(f"the sanitizers are for C, not {target}")
    options.pop("max_changed", None)
    options.pop("template_dirs", None)
    files = boosted_files(model, target, name=name, feature_type=feature_type, form=form)
    X = X if isinstance(X, np.ndarray) and X.dtype == np.float64 and X.ndim == 2 else encode_features(model.schema, X if not isinstance(X, Dataset) else X)
    rows = boosting.check_rows(model, np.asarray(X, dtype=np.float64), "double")
    want = boosting._expected(model, rows)
    regression = LOSSES[model.loss] == "identity"
    with tempfile.TemporaryDirectory(prefix="puretree-verify-") as tmp:
        command = build(files, target, name, regression=regression, workdir=tmp, kind="boosted")
        got = run(command, rows, regression=regression, kind="boosted")
    bad = [(row, w, g) for row, w, g in zip(rows.tolist(), want, got) if not boosting._same(w, g)]
    if len(got) != len(want):
        bad.append(("row count", len(want), len(got)))
    return Report(len(rows), bad[:MAX_REPORTED], len(bad))


def _java_plain(v: float) -> str:
    """A double as ``Double.parseDouble`` reads it back exactly (the tables' strings)."""
    return "Infinity" if v == math.inf else "-Infinity" if v == -math.inf else "NaN" if math.isnan(v) else repr(float(v))


def _java_table(kind: str, cname: str, values: list[Any]) -> str:
    # Parsed from strings when the class loads: an array initializer costs bytecode per entry
    # in the class initializer, which the JVM limits to 64 KiB (see the tree's template).
    texts = [_java_plain(v) for v in values] if kind == "double" else [str(int(v)) for v in values]
    groups = [" ".join(texts[i:i + 2000]) for i in range(0, len(texts), 2000)] or [""]
    return f"    private static final {kind}[] {cname} = {kind}s(" + ", ".join(f'"{g}"' for g in groups) + ");"


def _link_java(model: Any, f: dict[str, Any]) -> list[str]:
    k, scale = f["k"], sigmoid_scale(model)
    out = ["", "    private static int code(double[] r) {"]
    if k == 1:
        out += [f"        return r[0] {'>' if strict_class(model) else '>='} 0.0 ? 1 : 0;", "    }"]
    else:
        out += ["        int best = 0;", "        for (int j = 1; j < N_OUTPUTS; j++) {", "            if (r[j] > r[best]) {", "                best = j;", "            }", "        }", "        return best;", "    }"]
    out += ["", "    private static double[] proba(double[] r) {"]
    if f["float32"] and k == 1:
        z = "((float) r[0])" if scale == 1.0 else f"((float) ({lit.java_double(float(np.float32(scale)))} * (double) (float) r[0]))"
        out += [f"        final float e = (float) java.lang.Math.exp(-(double) {z});", "        final float p = 1.0f / (1.0f + e);", "        return new double[] { 1.0 - (double) p, (double) p };", "    }"]
    elif f["float32"]:
        out += ["        float top = (float) r[0];", "        for (int j = 1; j < N_OUTPUTS; j++) {", "            if ((float) r[j] > top) {", "                top = (float) r[j];", "            }", "        }",
                "        final float[] e = new float[N_OUTPUTS];", "        double total = 0.0;", "        for (int j = 0; j < N_OUTPUTS; j++) {",
                "            e[j] = (float) java.lang.Math.exp((double) ((float) r[j] - top));", "            total += (double) e[j];", "        }",
                "        final double[] p = new double[N_OUTPUTS];", "        for (int j = 0; j < N_OUTPUTS; j++) {", "            p[j] = (double) (e[j] / (float) total);", "        }", "        return p;", "    }"]
    elif k == 1:
        z = "r[0]" if scale == 1.0 else f"{lit.java_double(scale)} * r[0]"
        out += [f"        final double p = 1.0 / (1.0 + java.lang.Math.exp(-({z})));", "        return new double[] { 1.0 - p, p };", "    }"]
    else:
        out += ["        double top = r[0];", "        for (int j = 1; j < N_OUTPUTS; j++) {", "            if (r[j] > top) {", "                top = r[j];", "            }", "        }",
                "        final double[] e = new double[N_OUTPUTS];", "        double total = 0.0;", "        for (int j = 0; j < N_OUTPUTS; j++) {", "            e[j] = java.lang.Math.exp(r[j] - top);", "            total += e[j];", "        }",
                "        for (int j = 0; j < N_OUTPUTS; j++) {", "            e[j] /= total;", "        }", "        return e;", "    }"]
    out += ["", "    /** The index of the predicted class in classes(). */", "    public static int predict(double[] x) {", "        return code(decisionFunction(x));", "    }",
            "", "    /** The class probabilities, in classes() order. */", "    public static double[] predictProba(double[] x) {", "        return proba(decisionFunction(x));", "    }"]
    return out


def _boosted_java(model: Any, name: str, a: dict[str, Any], nested: bool) -> str:
    f = _facts(model, a)
    lang = _Lang("java")
    k, lr = f["k"], model.learning_rate
    acc = "float" if f["float32"] else "double"
    src = ["/*", *[" *" + line[2:] for line in _header(model, "//")], " * java.lang is spelt out: the class's own name could hide one of its classes.", " */",
           f"public final class {name} {{", f"    private {name}() {{", "    }", "",
           f"    public static final int N_FEATURES = {f['n_features']};", f"    public static final int N_OUTPUTS = {k};",
           "    private static final java.lang.String[] FEATURE_NAMES = { " + ", ".join(lang.string(n) for n in model.schema.feature_names) + " };"]
    if not f["regression"]:
        src += [f"    public static final int N_CLASSES = {f['n_classes']};", "    private static final java.lang.String[] CLASS_NAMES = { " + ", ".join(lang.string(c) for c in _labels(model)) + " };"]
    src += ["", "    /** The feature names, in the order of a row's values. */", "    public static java.lang.String[] features() {", "        return FEATURE_NAMES.clone();", "    }"]
    if not f["regression"]:
        src += ["", "    /** The class labels (as text), in the order of predictProba's probabilities. */", "    public static java.lang.String[] classes() {", "        return CLASS_NAMES.clone();", "    }"]
    src += ["", "    private static void check(double[] x) {", "        if (x.length != N_FEATURES) {",
            '            throw new java.lang.IllegalArgumentException("expected " + N_FEATURES + " values, got " + x.length);', "        }", "    }"]
    init = [lit.java_double(v) for v in model.init]
    if nested:
        # One method per tree (HotSpot compiles and inlines small methods; one method of every
        # tree would pass its 8,000-byte limit and stay interpreted), each answering its leaf's
        # learning_rate * value (a literal).
        fast = f["in_float"]
        for t, root in enumerate(a["roots"]):
            def leaf(i: int) -> str:
                return f"return {lang.float32(a['value'][i]) if fast else lit.java_double(lr * a['value'][i])};"
            src += ["", f"    private static {'float' if fast else 'double'} t{t}(double[] x) {{", *_tree_lines(lang, a, root, leaf, f["float32"], f["numeric"], "        ", in_float=fast), "    }"]
        src += ["", "    /** The raw scores of row x, bit for bit puretree's. */", "    public static double[] decisionFunction(double[] x) {", "        check(x);"]
        src += [f"        {acc} acc{j} = {f'(float) {v}' if f['float32'] else v};" for j, v in enumerate(init)]
        for t, out in enumerate(a["outputs"]):
            src.append(f"        acc{out} += t{t}(x);" if fast or not f["float32"] else f"        acc{out} = (float) (acc{out} + t{t}(x));")
        src += ["        return new double[] { " + ", ".join(f"acc{j}" for j in range(k)) + " };", "    }"]
    else:
        words, bit0 = _bitsets(a)
        src += ["",
                "    /*",
                "     * All trees' nodes, one set of tables (a tree's node ids offset by the trees before); kind 0: a leaf,",
                "     * 1: x <= threshold goes left, 2: a category in the node's left codes (bits from BIT0) goes left;",
                "     * NAN: where a missing value goes, OTHER: an unknown category (-1: stop, the node's value).",
                "     */",
                _java_table("int", "KIND", a["kind"]), _java_table("int", "FEATURE", a["feature"]), _java_table("double", "THRESHOLD", a["threshold"]),
                _java_table("int", "LEFT", a["left"]), _java_table("int", "RIGHT", a["right"]), _java_table("int", "NAN", a["nan"]), _java_table("int", "OTHER", a["other"]),
                _java_table("double", "VALUE", a["value"]), _java_table("int", "NCAT", a["ncat"]), _java_table("int", "BIT0", bit0),
                _java_table("int", "BITS", [w - (1 << 32) if w >= 1 << 31 else w for w in words]),
                _java_table("int", "ROOTS", a["roots"]), _java_table("int", "OUTPUTS", a["outputs"]),
                _java_table("int", "NUMERIC", [int(n) for n in f["numeric"]]), _java_table("double", "INIT", list(model.init)),
                f"    private static final double LR = {lit.java_double(lr)};",
                "",
                "    private static java.lang.String[] words(java.lang.String... parts) {",
                '        java.lang.String text = java.lang.String.join(" ", parts).trim();',
                '        return text.isEmpty() ? new java.lang.String[0] : text.split(" +");',
                "    }",
                "",
                "    private static int[] ints(java.lang.String... parts) {",
                "        java.lang.String[] w = words(parts);",
                "        int[] out = new int[w.length];",
                "        for (int i = 0; i < w.length; i++) {",
                "            out[i] = java.lang.Integer.parseInt(w[i]);",
                "        }",
                "        return out;",
                "    }",
                "",
                "    private static double[] doubles(java.lang.String... parts) {",
                "        java.lang.String[] w = words(parts);",
                "        double[] out = new double[w.length];",
                "        for (int i = 0; i < w.length; i++) {",
                "            out[i] = java.lang.Double.parseDouble(w[i]); // correctly rounded: the literal's double exactly",
                "        }",
                "        return out;",
                "    }",
                "",
                "    private static double leaf(int i, double[] x) {",
                "        while (KIND[i] != 0) {",
                "            final double v = x[FEATURE[i]];",
                "            final int next;",
                "            if (v != v) {",
                "                next = NAN[i];",
                "            } else if (KIND[i] == 1) {",
                "                next = v <= THRESHOLD[i] ? LEFT[i] : RIGHT[i];",
                "            } else if (v >= 0.0 && v < NCAT[i] && v == java.lang.Math.floor(v)) {",
                "                final int c = (int) v;",
                "                next = ((BITS[BIT0[i] + (c >>> 5)] >>> (c & 31)) & 1) != 0 ? LEFT[i] : RIGHT[i];",
                "            } else {",
                "                next = OTHER[i];",
                "            }",
                "            if (next < 0) {",
                "                break;",
                "            }",
                "            i = next;",
                "        }",
                "        return VALUE[i];",
                "    }",
                "",
                "    /** The raw scores of row x, bit for bit puretree's. */",
                "    public static double[] decisionFunction(double[] x) {",
                "        check(x);"]
        if f["float32"]:
            src += ["        final double[] xd = new double[N_FEATURES];", "        for (int j = 0; j < N_FEATURES; j++) {", "            xd[j] = NUMERIC[j] != 0 ? (double) (float) x[j] : x[j];", "        }",
                    "        final float[] acc = new float[N_OUTPUTS];", "        for (int j = 0; j < N_OUTPUTS; j++) {", "            acc[j] = (float) INIT[j];", "        }",
                    "        for (int t = 0; t < ROOTS.length; t++) {", "            acc[OUTPUTS[t]] = (float) (acc[OUTPUTS[t]] + LR * leaf(ROOTS[t], xd));", "        }",
                    "        final double[] raw = new double[N_OUTPUTS];", "        for (int j = 0; j < N_OUTPUTS; j++) {", "            raw[j] = acc[j];", "        }", "        return raw;", "    }"]
        else:
            src += ["        final double[] raw = INIT.clone();", "        for (int t = 0; t < ROOTS.length; t++) {", "            raw[OUTPUTS[t]] += LR * leaf(ROOTS[t], x);", "        }", "        return raw;", "    }"]
    if f["regression"]:
        src += ["", "    /** The predicted value (the raw score). */", "    public static double predict(double[] x) {", "        return decisionFunction(x)[0];", "    }"]
    else:
        src += _link_java(model, f)
    src += ["}", ""]
    return "\n".join(src)


def _link_rust(model: Any, f: dict[str, Any]) -> list[str]:
    k, scale = f["k"], sigmoid_scale(model)
    allow = "#[allow(dead_code, unused_parens, clippy::all)]"
    out = ["", allow, f"fn code(r: &[f64; {k}]) -> i32 {{"]
    if k == 1:
        out += [f"    if r[0] {'>' if strict_class(model) else '>='} 0.0 {{ 1 }} else {{ 0 }}", "}"]
    else:
        out += ["    let mut best = 0;", f"    for j in 1..{k} {{", "        if r[j] > r[best] {", "            best = j;", "        }", "    }", "    best as i32", "}"]
    out += ["", allow, f"fn proba(r: &[f64; {k}]) -> [f64; N_CLASSES] {{"]
    if f["float32"] and k == 1:
        z = "(r[0] as f32)" if scale == 1.0 else f"(({lit.rust_f64(float(np.float32(scale)))} * (r[0] as f32 as f64)) as f32)"
        out += [f"    let e: f32 = (-({z} as f64)).exp() as f32;", "    let p: f32 = 1.0f32 / (1.0f32 + e);", "    [1.0 - p as f64, p as f64]", "}"]
    elif f["float32"]:
        out += ["    let mut top: f32 = r[0] as f32;", f"    for j in 1..{k} {{", "        if (r[j] as f32) > top {", "            top = r[j] as f32;", "        }", "    }",
                f"    let mut e = [0.0f32; {k}];", "    let mut total = 0.0f64;", f"    for j in 0..{k} {{", "        e[j] = (((r[j] as f32) - top) as f64).exp() as f32;", "        total += e[j] as f64;", "    }",
                f"    let mut p = [0.0f64; {k}];", f"    for j in 0..{k} {{", "        p[j] = (e[j] / (total as f32)) as f64;", "    }", "    p", "}"]
    elif k == 1:
        z = "r[0]" if scale == 1.0 else f"{lit.rust_f64(scale)} * r[0]"
        out += [f"    let p = 1.0 / (1.0 + (-({z})).exp());", "    [1.0 - p, p]", "}"]
    else:
        out += ["    let mut top = r[0];", f"    for j in 1..{k} {{", "        if r[j] > top {", "            top = r[j];", "        }", "    }",
                f"    let mut e = [0.0f64; {k}];", "    let mut total = 0.0f64;", f"    for j in 0..{k} {{", "        e[j] = (r[j] - top).exp();", "        total += e[j];", "    }",
                f"    for j in 0..{k} {{", "        e[j] /= total;", "    }", "    e", "}"]
    out += ["", "/// The index of the predicted class in CLASSES. Panics unless x holds N_FEATURES values.", allow, "pub fn predict(x: &[f64]) -> i32 {", "    code(&decision_function(x))", "}",
            "", "/// The class probabilities, in CLASSES order. Panics unless x holds N_FEATURES values.", allow, "pub fn predict_proba(x: &[f64]) -> [f64; N_CLASSES] {", "    proba(&decision_function(x))", "}"]
    return out


def _rust_array(rtype: str, cname: str, values: list[str]) -> list[str]:
    body = ["    " + ", ".join(values[i:i + 16]) + "," for i in range(0, len(values), 16)]
    return ["#[allow(dead_code, clippy::all)]", f"static {cname}: [{rtype}; {len(values)}] = [", *body, "];"]


def _boosted_rust(model: Any, name: str, a: dict[str, Any], nested: bool) -> str:
    f = _facts(model, a)
    lang = _Lang("rust")
    k, lr = f["k"], model.learning_rate
    n = f["n_features"]
    allow = "#[allow(dead_code, unused_parens, clippy::all)]"
    src = [*_header(model, "//"), f'// Use this file as a module, e.g. `mod {name} {{ include!("{name}.rs"); }}`.', "",
           allow, f"pub const N_FEATURES: usize = {n};", allow, f"pub const N_OUTPUTS: usize = {k};",
           allow, f"pub static FEATURES: [&str; {n}] = [" + ", ".join(lang.string(s) for s in model.schema.feature_names) + "];"]
    if not f["regression"]:
        src += [allow, f"pub const N_CLASSES: usize = {f['n_classes']};", allow, f"pub static CLASSES: [&str; {f['n_classes']}] = [" + ", ".join(lang.string(c) for c in _labels(model)) + "];"]
    init = [lit.rust_f64(v) for v in model.init]
    if nested:
        fast = f["in_float"]
        for t, root in enumerate(a["roots"]):
            def leaf(i: int) -> str:
                return lang.float32(a["value"][i]) if fast else lit.rust_f64(lr * a["value"][i])
            src += ["", allow, f"fn t{t}(x: &[f64]) -> {'f32' if fast else 'f64'} {{", *_tree_lines(lang, a, root, leaf, f["float32"], f["numeric"], "    ", in_float=fast), "}"]
        src += ["", "/// The raw scores of row x, bit for bit puretree's. Panics unless x holds N_FEATURES values.", allow,
                f"pub fn decision_function(x: &[f64]) -> [f64; {k}] {{", '    assert!(x.len() == N_FEATURES, "expected {} values, got {}", N_FEATURES, x.len());']
        src += [f"    let mut acc{j}: {'f32' if f['float32'] else 'f64'} = {v}{' as f32' if f['float32'] else ''};" for j, v in enumerate(init)]
        for t, out in enumerate(a["outputs"]):
            src.append(f"    acc{out} = (acc{out} as f64 + t{t}(x)) as f32;" if f["float32"] and not fast else f"    acc{out} += t{t}(x);")
        src += ["    [" + ", ".join(f"acc{j}{' as f64' if f['float32'] else ''}" for j in range(k)) + "]", "}"]
    else:
        words, bit0 = _bitsets(a)
        src += ["", "// All trees' nodes, one set of tables (a tree's node ids offset by the trees before); kind 0: a leaf,",
                "// 1: x <= threshold goes left, 2: a category in the node's left codes (bits from BIT0) goes left;",
                "// NAN: where a missing value goes, OTHER: an unknown category (-1: stop, the node's value).",
                *_rust_array("i8", "KIND", [str(v) for v in a["kind"]]), *_rust_array("u32", "FEATURE", [str(v) for v in a["feature"]]),
                *_rust_array("f64", "THRESHOLD", [lit.rust_f64(v) for v in a["threshold"]]),
                *_rust_array("i32", "LEFT", [str(v) for v in a["left"]]), *_rust_array("i32", "RIGHT", [str(v) for v in a["right"]]),
                *_rust_array("i32", "NAN", [str(v) for v in a["nan"]]), *_rust_array("i32", "OTHER", [str(v) for v in a["other"]]),
                *_rust_array("f64", "VALUE", [lit.rust_f64(v) for v in a["value"]]), *_rust_array("u32", "NCAT", [str(v) for v in a["ncat"]]),
                *_rust_array("u32", "BIT0", [str(v) for v in bit0]), *_rust_array("u32", "BITS", [str(v) for v in words]),
                *_rust_array("u32", "ROOTS", [str(v) for v in a["roots"]]), *_rust_array("u32", "OUTPUTS", [str(v) for v in a["outputs"]]),
                *_rust_array("bool", "NUMERIC", ["true" if v else "false" for v in f["numeric"]]), *_rust_array("f64", "INIT", init),
                allow, f"const LR: f64 = {lit.rust_f64(lr)};", "",
                allow, "fn leaf(root: u32, x: &[f64]) -> f64 {", "    let mut i = root as usize;", "    while KIND[i] != 0 {", "        let v = x[FEATURE[i] as usize];",
                "        let next = if v.is_nan() {", "            NAN[i]", "        } else if KIND[i] == 1 {", "            if v <= THRESHOLD[i] { LEFT[i] } else { RIGHT[i] }",
                "        } else if v >= 0.0 && v < NCAT[i] as f64 && v == v.floor() {", "            let c = v as u32;",
                "            if (BITS[(BIT0[i] + c / 32) as usize] >> (c % 32)) & 1 != 0 { LEFT[i] } else { RIGHT[i] }", "        } else {", "            OTHER[i]", "        };",
                "        if next < 0 {", "            break;", "        }", "        i = next as usize;", "    }", "    VALUE[i]", "}", "",
                "/// The raw scores of row x, bit for bit puretree's. Panics unless x holds N_FEATURES values.", allow,
                f"pub fn decision_function(x: &[f64]) -> [f64; {k}] {{", '    assert!(x.len() == N_FEATURES, "expected {} values, got {}", N_FEATURES, x.len());']
        if f["float32"]:
            src += [f"    let mut xd = [0.0f64; {max(1, n)}];", f"    for j in 0..{n} {{", "        xd[j] = if NUMERIC[j] { x[j] as f32 as f64 } else { x[j] };", "    }",
                    f"    let mut acc = [0.0f32; {k}];", f"    for j in 0..{k} {{", "        acc[j] = INIT[j] as f32;", "    }",
                    "    for t in 0..ROOTS.len() {", "        let o = OUTPUTS[t] as usize;", "        acc[o] = (acc[o] as f64 + LR * leaf(ROOTS[t], &xd)) as f32;", "    }",
                    f"    let mut raw = [0.0f64; {k}];", f"    for j in 0..{k} {{", "        raw[j] = acc[j] as f64;", "    }", "    raw", "}"]
        else:
            src += ["    let mut raw = INIT;", "    for t in 0..ROOTS.len() {", "        raw[OUTPUTS[t] as usize] += LR * leaf(ROOTS[t], x);", "    }", "    raw", "}"]
    if f["regression"]:
        src += ["", "/// The predicted value (the raw score). Panics unless x holds N_FEATURES values.", allow, "pub fn predict(x: &[f64]) -> f64 {", "    decision_function(x)[0]", "}"]
    else:
        src += _link_rust(model, f)
    src += [""]
    return "\n".join(src)
