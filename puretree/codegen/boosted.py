"""Code generation for boosted models (:class:`~puretree.boosted.Boosted`): Python and C whose raw
scores are the library's bit for bit, in the library's float order.

The trees become tables (:func:`puretree.boosted.table`: a node's kind, feature, threshold,
children, where a missing value and an unknown category go, its value; a subset split's left
codes as a bitset in C, a frozenset in Python), all trees in one set of arrays, walked by one
small loop: any depth, any number of trees, no recursion and no nesting for a compiler to
choke on. The Python of a model no deeper than :data:`NESTED_MAX_DEPTH` is by default nested
``if``/``else`` per tree, all inline in ``decision_function``, each leaf adding its value
(``form="nested"``; ``"table"`` forces the tables), which answers a row faster: no call per tree. The generated code adds the trees' values exactly as :mod:`puretree.boosted` does:

- ``float64``: ``raw[k] = init[k]``, then ``raw[k] += learning_rate * value`` tree by tree, stage
  by stage, in double;
- ``float32`` (XGBoost): the numeric features rounded to float32 first, ``acc[k]`` a float,
  ``acc[k] = (float)((double)acc[k] + learning_rate * value)`` after every tree (Python: ``acc``
  an ``array('f')``, whose ``acc[k] += ...`` rounds the double sum to float32 the same way).

The probabilities are computed as the library computes them (in float32 for ``float32`` models,
as XGBoost does), through ``exp`` of the C library for ``float32`` models (the double ``exp``
rounded to float32, as the library rounds numpy's) and the code's own ``NAME_exp`` for
``float64`` ones (:func:`_c_exp`: no C library, whose ``exp`` links ``errno``; Python:
``math.exp``): they agree to a few units in the last place, and :func:`verify` checks them to a
relative 1e-12; the raw scores and the classes it checks for equality.

A model of threshold splits on numeric features gets the packed C tables (:func:`_c_packed`):
per node one feature byte (missing side in its high bit), the right child's distance and one
number, a split's threshold or what a leaf adds.

Inputs: one row as numbers in the schema's feature order (a categorical feature's category
code, NaN for a missing value), ``double`` (or ``float``) in C.

>>> import numpy as np
>>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
>>> from puretree.boosted import Boosted, tree_schema
>>> from puretree.tree import Tree
>>> schema = Schema((Feature("x"),), ("a", "b"))
>>> t = Tree(Split(0, Threshold(0.5, missing_branch=1), (Leaf((1.0, -1.0, 1.0)), Leaf((1.0, 2.0, 4.0))), (2.0, 1.0, 5.0)), tree_schema(schema))
>>> model = Boosted(((t,), (t,)), (0.25,), 0.5, "log_loss", schema)
>>> sorted(boosted_files(model, "python", name="gb"))
['gb.py']
>>> verify(model, np.array([[0.0], [1.0]]), "python").mismatches
[]
"""

from __future__ import annotations

import math
import struct
import tempfile
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from ..boosted import LOSSES, Boosted, class_codes, decision_function, predict_proba, sigmoid_scale, strict_class, table
from ..data import Dataset, encode_features
from ..errors import CodegenError
from . import literals as lit
from .verify import MAX_REPORTED, Report, compile_c, driver_lines, driver_source
from .lower import check_options, max_comparisons, quantization, quantize as quantize_rows, quantized_range, quantized_tree, quantizer_model, read_features
from .render import environment
from .shared import share_arrays
from .verify import allowed_changes, quantize_probes, run_quantize

__all__ = ["boosted_files", "verify", "check_rows", "quantized_check_rows", "quantized_model", "NESTED_MAX_DEPTH", "QUANTIZED_TYPES"]

_TARGETS = ("python", "c")


def _arrays(model: Boosted) -> dict[str, Any]:
    """Every tree's table in one set of arrays (node ids offset by the trees before), the trees
    in the order their values are added (stage by stage, output by output) and the subset splits'
    left codes."""
    kind: list[int] = []
    feature: list[int] = []
    threshold: list[float] = []
    left: list[int] = []
    right: list[int] = []
    nan: list[int] = []
    other: list[int] = []
    value: list[float] = []
    ncat: list[int] = []
    codes: dict[int, tuple[int, ...]] = {}
    roots: list[int] = []
    outputs: list[int] = []
    for stage in model.stages:
        for k, tree in enumerate(stage):
            t = table(tree)
            base = len(kind)
            roots.append(base)
            outputs.append(k)

            def shift(a: np.ndarray) -> list[int]:
                return [int(v) + base if v >= 0 else -1 for v in a.tolist()]

            kind += t.kind.tolist()
            feature += t.feature.tolist()
            threshold += t.threshold.tolist()
            left += shift(t.left)
            right += shift(t.right)
            nan += shift(t.nan)
            other += shift(t.other)
            value += t.value.tolist()
            ncat += t.n_categories.tolist()
            codes.update({base + i: c for i, c in t.codes.items()})
    return {"kind": kind, "feature": feature, "threshold": threshold, "left": left, "right": right, "nan": nan, "other": other,
            "value": value, "ncat": ncat, "codes": codes, "roots": roots, "outputs": outputs}


def boosted_files(model: Boosted, target: str, *, name: str = "tree", feature_type: str = "double", **options: Any) -> dict[str, str]:
    """The generated files of a boosted model: ``NAME.py``, or ``NAME.c`` and ``NAME.h``."""
    if target not in _TARGETS:
        raise CodegenError(f"boosted models are generated for the targets {', '.join(_TARGETS)}, not {target!r}")
    quantize = options.get("quantize")
    opts = check_options(target, {"name": name, "feature_type": feature_type})
    if quantize is not None:
        if target != "c":
            raise CodegenError(f"quantized code is C (target c with feature_type {' or '.join(QUANTIZED_TYPES)}), not {target}")
        if opts["feature_type"] not in QUANTIZED_TYPES:
            raise CodegenError(f"a boosted model's quantized C reads {' or '.join(QUANTIZED_TYPES)} features, not {opts['feature_type']!r}")
    elif target == "c" and opts["feature_type"] not in ("double", "float"):
        raise CodegenError(f"a boosted model's C reads double or float features (int8 or int16 with quantize), not {opts['feature_type']!r}")
    form = options.get("form", "auto")
    if form not in ("auto", "nested", "table", "shared"):
        raise CodegenError(f"a boosted model's Python is written nested or as a table, not {form!r} (its C also as one shared table: form shared)")
    if form == "shared" and target != "c":
        raise CodegenError("the shared table (form shared) is written for C (target c)")
    if form == "shared" and quantize is not None:
        raise CodegenError("a boosted model's quantized C is written as its packed tables, not as the shared table (form shared)")
    arrays = _arrays(model)
    if form == "shared":  # each distinct subtree once (puretree.codegen.shared)
        arrays = share_arrays(arrays, left_next=_compact(model, arrays))
    if target == "python":
        if form == "nested" and _depth(arrays) > NESTED_MAX_DEPTH:
            raise CodegenError(f"a tree {_depth(arrays)} levels deep is written as a table (form='table'): nested Python stops at {NESTED_MAX_DEPTH} levels")
        nested = form == "nested" or (form == "auto" and _depth(arrays) <= NESTED_MAX_DEPTH)
        return {f"{name}.py": _python(model, name, arrays, nested=nested)}
    return _c(model, name, opts["feature_type"], arrays, quantize=quantize)


#: The integer feature types of a boosted model's quantized C (int32's values are not all
#: float32 values, to which a float32 model rounds its features).
QUANTIZED_TYPES = ("int8", "int16")


def quantized_model(model: Boosted, ranges: Any, feature_type: str) -> tuple[Boosted, np.ndarray, np.ndarray]:
    """The model the quantized C runs (each tree the
    :func:`~puretree.codegen.lower.quantized_tree` of itself: thresholds on the integer scale, the
    leaves and sums unchanged) and the ``(offset, scale)`` of its one ``NAME_quantize``, from the
    training ``ranges`` of the features some tree reads (:func:`~puretree.codegen.lower.quantization`).

    >>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
    >>> from puretree.boosted import tree_schema
    >>> from puretree.tree import Tree
    >>> schema = Schema((Feature("x"), Feature("y")), ("a", "b"))
    >>> t = Tree(Split(0, Threshold(0.5), (Leaf((1.0, -1.0, 1.0)), Leaf((1.0, 2.0, 4.0))), (2.0, 1.0, 5.0)), tree_schema(schema))
    >>> q, offset, scale = quantized_model(Boosted(((t,),), (0.0,), 0.1, "log_loss", schema), [(0.0, 1.0), (0.0, 9.0)], "int16")
    >>> q.stages[0][0].root.test.value, scale.tolist()
    (0.0, [65534.0, 0.0])
    """
    used = sorted({j for stage in model.stages for tree in stage for j in read_features(tree)})
    offset, scale = quantization(model.schema, ranges, feature_type, used=used)
    stages = tuple(tuple(quantized_tree(tree, offset, scale, feature_type) for tree in stage) for stage in model.stages)
    return attrs.evolve(model, stages=stages), offset, scale


# -- Python -------------------------------------------------------------------------------

#: The deepest tree the Python is written nested for (one function of if/else per tree, the
#: faster form); deeper models are written as tables, walked by one loop.
NESTED_MAX_DEPTH = 40


def _depth(a: dict[str, Any]) -> int:
    """The most splits on a path from a root to a leaf, over all trees."""
    deepest = 0
    stack = [(r, 0) for r in a["roots"]]
    while stack:
        i, d = stack.pop()
        deepest = max(deepest, d)
        if a["kind"][i]:
            stack += [(a["left"][i], d + 1), (a["right"][i], d + 1)]
    return deepest


def _nested_tree(a: dict[str, Any], root: int, out: int, lr: float, pad: str = "    ") -> list[str]:
    """One tree as nested if/else, inline in ``decision_function``, each leaf adding its value times
    the learning rate (the product in double, as the library forms it, written as a literal) to
    ``acc[out]``: through ``acc``'s float32 array in a float32 model, which rounds the double sum
    to float32 as the library does, without a call per tree. A threshold split sends NaN where its
    table does (``v <= t`` is false for NaN, so only a left side needs a test), a subset split its
    left codes, its other known codes, NaN and any other value each their way."""
    lines: list[str] = []

    def add(i: int, pad: str) -> None:
        lines.append(f"{pad}acc[{out}] += {lit.py_float(lr * a['value'][i])}")

    def emit(i: int, pad: str) -> None:
        kind = a["kind"][i]
        if kind == 0:
            add(i, pad)
            return
        left, right, nan = a["left"][i], a["right"][i], a["nan"][i]
        if kind == 1:
            # the NaN test only where NaN goes left; elsewhere x[j] is read once, unnamed
            test = f"(v := x[{a['feature'][i]}]) <= {lit.py_float(a['threshold'][i])} or v != v" if nan == left else f"x[{a['feature'][i]}] <= {lit.py_float(a['threshold'][i])}"
            lines.append(f"{pad}if {test}:")
            emit(left, pad + "    ")
            lines.append(f"{pad}else:")
            emit(right, pad + "    ")
            return
        lines.append(f"{pad}v = x[{a['feature'][i]}]")
        codes = set(a["codes"][i])
        others = [c for c in range(a["ncat"][i]) if c not in codes]
        first = "if"
        for codes_, child in ((sorted(codes), left), (others, right)):
            if codes_:
                lines.append(f"{pad}{first} v in {{{', '.join(f'{float(c)!r}' for c in codes_)}}}:")
                emit(child, pad + "    ")
                first = "elif"
        lines.append(f"{pad}{first} v != v:")
        emit(nan, pad + "    ")
        lines.append(f"{pad}else:")
        if a["other"][i] >= 0:
            emit(a["other"][i], pad + "    ")
        else:
            add(i, pad + "    ")

    emit(root, pad)
    return lines


def _tuple(values: list[Any]) -> str:
    return "(" + "".join(f"{v!r}, " for v in values) + ")"


def _describe(model: Boosted) -> str:
    return f"a boosted model ({model.loss}): {len(model.stages)} stages x {model.n_outputs} output(s), learning rate {model.learning_rate!r}, {model.precision} sums"


def _python(model: Boosted, name: str, a: dict[str, Any], *, nested: bool) -> str:
    float32 = model.precision == "float32"
    link = LOSSES[model.loss]
    k = model.n_outputs
    lines = [
        f'"""{name}: {_describe(model)}. Generated by puretree.',
        "",
        "decision_function(x) gives the raw scores, bit for bit puretree's; x is one row of numbers in",
        "FEATURES order (a categorical feature's category code, NaN for a missing value).",
        '"""',
        "",
        "import math",
        "import struct",
        "from array import array",
        "",
        f"FEATURES = {_tuple(list(model.schema.feature_names))}",
        f"CLASSES = {_tuple(list(model.schema.classes))}",
        f"N_OUTPUTS = {k}",
        f"_NUMERIC = {_tuple([f.is_numeric for f in model.schema.features])}",
        f"_INIT = {_tuple(list(model.init))}",
        f"_LR = {model.learning_rate!r}",
    ]
    tables = [
        f"_KIND = {_tuple(a['kind'])}",
        f"_FEATURE = {_tuple(a['feature'])}",
        "_THRESHOLD = (" + "".join(f"{lit.py_float(v)}, " for v in a["threshold"]) + ")",  # inf: an imported split sending every number one way
        f"_LEFT = {_tuple(a['left'])}",
        f"_RIGHT = {_tuple(a['right'])}",
        f"_NAN = {_tuple(a['nan'])}",
        f"_OTHER = {_tuple(a['other'])}",
        f"_VALUE = {_tuple(a['value'])}",
        f"_NCAT = {_tuple(a['ncat'])}",
        "_LEFT_CODES = {" + ", ".join(f"{i}: frozenset({list(c)!r})" for i, c in sorted(a["codes"].items())) + "}",
        f"_ROOTS = {_tuple(a['roots'])}",
        f"_OUTPUTS = {_tuple(a['outputs'])}",
    ]
    lines += ([] if nested else tables) + [
        "",
        "",
        "def _float32(v):",
        "    # The float32 nearest v (struct rounds to nearest), as numpy's astype(float32).",
        "    try:",
        "        return struct.unpack('f', struct.pack('f', v))[0]",
        "    except OverflowError:",
        "        return math.copysign(math.inf, v)",
        "",
        "",
        "def _exp(v):",
        "    try:",
        "        return math.exp(v)",
        "    except OverflowError:",
        "        return math.inf",
        "",
        "",
    ]
    walker = [
        "def _leaf(i, x):",
        "    while _KIND[i]:",
        "        v = x[_FEATURE[i]]",
        "        if v != v:",
        "            nxt = _NAN[i]",
        "        elif _KIND[i] == 1:",
        "            nxt = _LEFT[i] if v <= _THRESHOLD[i] else _RIGHT[i]",
        "        elif 0 <= v < _NCAT[i] and v == math.floor(v):",
        "            nxt = _LEFT[i] if int(v) in _LEFT_CODES[i] else _RIGHT[i]",
        "        else:",
        "            nxt = _OTHER[i]",
        "        if nxt < 0:",
        "            break",
        "        i = nxt",
        "    return _VALUE[i]",
        "",
        "",
    ]
    if not nested:
        lines += walker
    all_numeric = all(f.is_numeric for f in model.schema.features)
    lines += ["def decision_function(x):", '    """The raw scores of row x, a list of N_OUTPUTS floats."""']
    if float32 and all_numeric:  # every feature rounded to float32 at once, by the array's conversion
        lines += ["    try:", "        x = array('f', x).tolist()", "    except TypeError:  # not numbers: as float() reads them", "        x = array('f', [float(v) for v in x]).tolist()"]
    elif float32:  # the numeric features rounded to float32, the category codes kept
        lines += ["    x = [float(v) for v in x]", "    x = [r if numeric else v for r, v, numeric in zip(array('f', x), x, _NUMERIC)]"]
    else:
        lines += ["    x = [float(v) for v in x]"]
    lines += ["    if len(x) != len(FEATURES):", "        raise ValueError('expected %d values, got %d' % (len(FEATURES), len(x)))"]
    # float32: acc is an array of C floats, so that each += rounds the double sum to float32
    lines += ["    acc = array('f', _INIT)" if float32 else "    acc = list(_INIT)"]
    if nested:
        for t, (root, k_) in enumerate(zip(a["roots"], a["outputs"])):
            lines += [f"    # tree {t}", *_nested_tree(a, root, k_, model.learning_rate)]
    else:
        lines += ["    for root, k in zip(_ROOTS, _OUTPUTS):", "        acc[k] += _LR * _leaf(root, x)"]
    lines += ["    return acc.tolist()" if float32 else "    return acc"]
    if link == "identity":
        lines += ["", "", "def predict(x):", '    """The predicted value of row x."""', "    return decision_function(x)[0]", ""]
        return "\n".join(lines)
    scale = sigmoid_scale(model)  # of the raw score in the sigmoid: 2 (exponential), LightGBM's sigmoid
    lines += ["", "", "def _code(raw):"]
    if k == 1:
        lines += [f"    return 1 if raw[0] {'>' if strict_class(model) else '>='} 0 else 0"]
    else:
        lines += ["    return max(range(len(raw)), key=lambda k: (raw[k], -k))"]
    lines += ["", "", "def predict_proba(x):", '    """The class probabilities of row x, in CLASSES order."""', "    raw = decision_function(x)"]
    if float32 and k == 1:
        z = "raw[0]" if scale == 1.0 else f"_float32({lit.py_float(float(np.float32(scale)))} * raw[0])"
        lines += [f"    p = _float32(1.0 / _float32(1.0 + _float32(_exp(-{z}))))", "    return [1.0 - p, p]"]
    elif float32:
        lines += ["    top = max(raw)", "    e = [_float32(math.exp(_float32(v - top))) for v in raw]", "    total = 0.0", "    for v in e:", "        total += v",
                  "    total = _float32(total)", "    return [_float32(v / total) for v in e]"]
    elif k == 1:
        z = "raw[0]" if scale == 1.0 else f"{lit.py_float(scale)} * raw[0]"
        lines += [f"    p = 1.0 / (1.0 + _exp(-({z})))", "    return [1.0 - p, p]"]
    else:
        lines += ["    top = max(raw)", "    e = [math.exp(v - top) for v in raw]", "    total = 0.0", "    for v in e:", "        total += v", "    return [v / total for v in e]"]
    lines += ["", "", "def predict(x):", '    """The predicted class of row x."""', "    return CLASSES[_code(decision_function(x))]", ""]
    return "\n".join(lines)


# -- C ------------------------------------------------------------------------------------


def _c_double(v: float) -> str:
    if math.isnan(v):
        return "NAN"  # a shared table's jump (puretree.codegen.shared): no row is at or below it
    return float(v).hex() if math.isfinite(v) else lit.c_double(v)


def _c_array(ctype: str, cname: str, values: list[str]) -> str:
    values = values or ["0"]  # C has no empty arrays
    body = ",".join(("\n    " if i % 8 == 0 else " ") + v for i, v in enumerate(values))
    return f"static const {ctype} {cname}[{len(values)}] = {{{body}\n}};"


def _c_int(values: list[int]) -> str:
    """The narrowest C integer type holding every value (a table's flash is mostly its types)."""
    lo, hi = min(values, default=0), max(values, default=0)
    return "signed char" if -128 <= lo and hi <= 127 else "short" if -32768 <= lo and hi <= 32767 else "long"


def _c_unsigned(largest: int) -> str:
    """The narrowest unsigned C type holding 0 to ``largest``."""
    return "unsigned char" if largest <= 255 else "unsigned short" if largest <= 65535 else "unsigned long"


def _c_ints(cname: str, values: list[int]) -> str:
    return _c_array(_c_int(values), cname, [str(v) for v in values])


def _float_below(t: float) -> float:
    """The largest float32 at most ``t``: a float32 ``v`` has ``v <= t`` exactly when it has
    ``v <= _float_below(t)``, as no float32 lies between them."""
    with np.errstate(over="ignore"):  # beyond float32's range: inf, then the largest float32 below
        f = np.float32(t)
    if math.isnan(t) or float(f) <= t:
        return float(f)
    return float(np.nextafter(f, np.float32(-np.inf)))


def _compact(model: Boosted, a: dict[str, Any]) -> bool:
    """Whether the model's C can be the compact tables: threshold splits only, each sending NaN
    to one of its children, every left child the node after its parent (then neither the left
    children, the missing values' children nor the subset tables are stored)."""
    kind, left, right, nan = a["kind"], a["left"], a["right"], a["nan"]
    return all(kind[i] == 0 or (kind[i] == 1 and left[i] == i + 1 and nan[i] in (left[i], right[i]) and right[i] >= 0) for i in range(len(kind)))


def _packable(model: Boosted, a: dict[str, Any]) -> bool:
    """Whether the model's C can be the packed tables (:func:`_c_packed`): the compact tables'
    splits (:func:`_compact`) on numeric features, at most 127 of them (a feature and its
    missing side fit in one byte)."""
    return 1 <= model.schema.n_features <= 127 and all(f.is_numeric for f in model.schema.features) and _compact(model, a)


def _c_packed(model: Boosted, name: str, ctype: str, a: dict[str, Any], *, quantized: bool = False) -> list[str]:
    """The packed tables of a model whose splits are thresholds on numeric features (see
    :func:`_packable`). Where a split's threshold and what a leaf adds (``learning_rate *
    value``, the product the library forms, in double; float32 when every one is a float32 and
    the model sums in float32) share a type, the node layout: per node one byte (its feature,
    plus 128 when a missing value goes left; 255: a leaf), its right child's distance (the left
    one is the next node) and one number, the threshold or the addend. Otherwise (and where it
    is smaller) the split layout, :func:`_c_split_layout`.

    The walk is in float when the inputs are float32 values (``float`` inputs, or a float32
    model, which rounds them first): a threshold is then the largest float32 at most it (the
    same test). Quantized (``quantized``: the model's thresholds are the integers of
    :func:`~puretree.codegen.lower.quantized_tree`), in the integer type, the type's minimum
    being the missing value."""
    k = model.n_outputs
    n_nodes = len(a["kind"])
    f32 = model.precision == "float32"
    lr = model.learning_rate
    splits = [a["kind"][i] != 0 for i in range(n_nodes)]
    flag = [a["feature"][i] | (128 if a["nan"][i] == a["left"][i] else 0) if splits[i] else 255 for i in range(n_nodes)]
    right = [a["right"][i] - i if splits[i] else 0 for i in range(n_nodes)]
    adds = [lr * v for v in a["value"]]  # the library's product, rounded to double
    vtype = "float" if f32 and all(float(np.float32(v)) == v for v in adds) else "double"
    if quantized:
        ttype = ctype  # the features' type
    else:
        ttype = "float" if (ctype == "float" or f32) else "double"
    thresholds = [a["threshold"][i] for i in range(n_nodes)]
    if ttype == "float":
        thresholds = [_float_below(t) for t in thresholds]

    def num(v: float, type_: str) -> str:
        if type_ == "float":
            return (float(v).hex() + "f") if math.isfinite(v) else ("(float)" + _c_double(v))
        if type_ == "double":
            return _c_double(v)
        return str(int(v))

    shared = not quantized and ttype == vtype
    if not shared or _split_layout_smaller(a, splits, ttype):
        return _c_split_layout(model, name, ctype, a, splits, thresholds, adds, ttype, vtype, quantized=quantized)
    slots = [num(thresholds[i] if splits[i] else adds[i], ttype) for i in range(n_nodes)]
    nan_left = any(f != 255 and f & 128 for f in flag)
    src = [
        "/* Node i: feature byte (a feature, + 128 when a missing value goes left; 255: a leaf), its right child at",
        " * i + right[i] (the left one is i + 1), and its threshold, or what a leaf adds.",
        " * A value x goes left when x <= threshold (NaN: right unless the byte says left). */",
        _c_array("unsigned char", f"{name}_feature", [str(v) for v in flag]),
        _c_array(_c_unsigned(max(right, default=0)), f"{name}_right", [str(v) for v in right]),
        _c_array(ttype, f"{name}_node", slots),
        _c_ints(f"{name}_roots", a["roots"]),
        *([_c_ints(f"{name}_outputs", a["outputs"])] if k > 1 else []),
        _c_array("double", f"{name}_init", [_c_double(v) for v in model.init]),
        "",
    ]
    goes_left = _goes_left(f"{name}_node[i]", name, quantized=False, nan_left=nan_left)
    src += [
        f"static {vtype} {name}_leaf(int i, const {ttype} *x) {{",
        "    unsigned char f;",
        f"    while ((f = {name}_feature[i]) != 255u) {{",
        f"        {ttype} v = x[f & 127u];",
        f"        i = ({goes_left}) ? i + 1 : i + (int){name}_right[i];",
        "    }",
        f"    return {name}_node[i];",
        "}",
        "",
    ]
    return src + _c_packed_sums(model, name, ctype, a, ttype, vtype)


#: Bytes of a C type on a 32-bit microcontroller (the packed layouts' sizes are compared in them).
_C_SIZES = {"signed char": 1, "unsigned char": 1, "short": 2, "unsigned short": 2, "long": 4, "unsigned long": 4, "float": 4, "double": 8,
            "int8_t": 1, "int16_t": 2}


def _goes_left(threshold: str, name: str, *, quantized: bool, nan_left: bool) -> str:
    """The C test sending the value ``v`` of a node with feature byte ``f`` to its left child."""
    if quantized:
        return f"v <= {threshold} && (f > 127u || v != {name.upper()}_MISSING)"
    if nan_left:
        return f"v <= {threshold} || (f > 127u && isnan(v))"
    return f"v <= {threshold}"


def _split_refs(a: dict[str, Any], splits: list[bool]) -> tuple[list[int], list[int]]:
    """Per node, how the split layout refers to it: a split by its index among the splits, a
    leaf as ``-1 - its index among the leaves``; and the leaves' node indices."""
    ref: list[int] = []
    leaves: list[int] = []
    n_splits = 0
    for i, is_split in enumerate(splits):
        if is_split:
            ref.append(n_splits)
            n_splits += 1
        else:
            ref.append(-1 - len(leaves))
            leaves.append(i)
    return ref, leaves


def _split_layout_smaller(a: dict[str, Any], splits: list[bool], ttype: str) -> bool:
    """Whether the split layout (:func:`_c_split_layout`) takes fewer bytes than the node layout
    when thresholds and leaves' numbers share a type: it stores nothing per leaf but its number,
    and two child references per split (fewer bytes where the trees have few splits)."""
    n_nodes, n_splits = len(splits), sum(splits)
    n_leaves = n_nodes - n_splits
    right = max((a["right"][i] - i for i in range(n_nodes) if splits[i]), default=0)
    nodes = n_nodes * (1 + _C_SIZES[_c_unsigned(right)] + _C_SIZES[ttype])
    refs = _C_SIZES[_c_int([n_splits, -1 - n_leaves])]
    return n_splits * (1 + _C_SIZES[ttype] + 2 * refs) + n_leaves * _C_SIZES[ttype] < nodes


def _c_split_layout(model: Boosted, name: str, ctype: str, a: dict[str, Any], splits: list[bool], thresholds: list[float], adds: list[float],
                    ttype: str, vtype: str, *, quantized: bool) -> list[str]:
    """The packed tables over the splits only (the smaller where a leaf's number is wider than a
    threshold: double leaves, float thresholds): per split its feature byte (+ 128 when a missing
    value goes left), threshold and two child references, a split by its index, a leaf as
    ``-1 - its index`` in ``NAME_value``, which holds what each leaf adds."""
    ref, leaves = _split_refs(a, splits)
    nodes = [i for i, is_split in enumerate(splits) if is_split]
    nan_left = any(a["nan"][i] == a["left"][i] for i in nodes)

    def num(v: float) -> str:
        if ttype == "float":
            return (float(v).hex() + "f") if math.isfinite(v) else ("(float)" + _c_double(v))
        return _c_double(v) if ttype == "double" else str(int(v))

    def value(v: float) -> str:
        return (float(v).hex() + "f") if vtype == "float" else _c_double(v)

    return [
        "/* Split s: feature byte (a feature, + 128 when a missing value goes left), threshold, children; a child or",
        f" * root r >= 0 is split r, r < 0 the leaf whose addend is {name}_value[-1 - r]. A value x goes left when x <= threshold",
        (f" * ({name.upper()}_MISSING goes right unless the byte says left). */" if quantized else " * (NaN: right unless the byte says left). */"),
        _c_array("unsigned char", f"{name}_feature", [str(a["feature"][i] | (128 if a["nan"][i] == a["left"][i] else 0)) for i in nodes]),
        _c_array(ttype, f"{name}_threshold", [num(thresholds[i]) for i in nodes]),
        _c_ints(f"{name}_left", [ref[a["left"][i]] for i in nodes]),
        _c_ints(f"{name}_right", [ref[a["right"][i]] for i in nodes]),
        _c_array(vtype, f"{name}_value", [value(adds[i]) for i in leaves]),
        _c_ints(f"{name}_roots", [ref[r] for r in a["roots"]]),
        *([_c_ints(f"{name}_outputs", a["outputs"])] if model.n_outputs > 1 else []),
        _c_array("double", f"{name}_init", [_c_double(v) for v in model.init]),
        "",
        f"static {vtype} {name}_leaf(int r, const {ttype} *x) {{",
        "    while (r >= 0) {",
        f"        unsigned char f = {name}_feature[r];",
        f"        {ttype} v = x[f & 127u];",
        f"        r = ({_goes_left(f'{name}_threshold[r]', name, quantized=quantized, nan_left=nan_left)}) ? (int){name}_left[r] : (int){name}_right[r];",
        "    }",
        f"    return {name}_value[-1 - r];",
        "}",
        "",
    ] + _c_packed_sums(model, name, ctype, a, ttype, vtype)


def _c_packed_sums(model: Boosted, name: str, ctype: str, a: dict[str, Any], ttype: str, vtype: str) -> list[str]:
    """``NAME_decision_function`` of the packed layouts: every tree's addend summed in the library's order."""
    k = model.n_outputs
    f32 = model.precision == "float32"
    src = [f"void {name}_decision_function(const {ctype} *x, double *raw) {{", "    int j, t;"]
    n_trees = len(a["roots"])
    n = model.schema.n_features
    out = f"{name}_outputs[t]" if k > 1 else "0"
    if ttype == ctype:
        src += [f"    const {ttype} *xf = x;"]
    else:  # double inputs of a float32 model: rounded to float32, as the library reads them
        src += [f"    float xf[{n}];", f"    for (j = 0; j < {n}; j++) xf[j] = (float)x[j];"]
    if f32:
        add = (f"acc[{out}] += {name}_leaf((int){name}_roots[t], xf);" if vtype == "float" else
               f"acc[{out}] = (float)((double)acc[{out}] + {name}_leaf((int){name}_roots[t], xf));")
        src += [f"    float acc[{k}];", f"    for (j = 0; j < {k}; j++) acc[j] = (float){name}_init[j];",
                f"    for (t = 0; t < {n_trees}; t++) {add}", f"    for (j = 0; j < {k}; j++) raw[j] = (double)acc[j];", "}"]
    else:
        src += [f"    for (j = 0; j < {k}; j++) raw[j] = {name}_init[j];",
                f"    for (t = 0; t < {n_trees}; t++) raw[{out}] += {name}_leaf((int){name}_roots[t], xf);", "}"]
    return src


def _c_exp(name: str) -> list[str]:
    """``NAME_exp``: e to the x in double without the C library (whose ``exp`` links ``errno``
    and its reentrancy data, about 2 KB on a microcontroller), within a few units in the last
    place (the probabilities of a float64 model are checked to a relative 1e-12): ``x = k ln 2
    + r`` (Cody and Waite's two-part ln 2), ``e^r`` by its Taylor series to ``r^13`` (|r| <= 0.35:
    the rest is below 1e-17), times ``2^k`` built in the exponent bits (in two steps near the ends of the range)."""
    return [
        f"static double {name}_exp(double x) {{",
        "    union { double d; unsigned long long u; } scale;",
        "    double r, e = 1.0;",
        "    int k, n;",
        "    if (x != x) return x;",
        "    if (x > 709.8) return HUGE_VAL;",
        "    if (x < -745.2) return 0.0;",
        "    k = (int)(x * 1.4426950408889634 + (x < 0.0 ? -0.5 : 0.5));",
        "    r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;",
        "    for (n = 13; n > 0; n--) e = 1.0 + e * r / n;",
        "    if (k > 1000) {",
        "        e *= 0x1p100;",
        "        k -= 100;",
        "    } else if (k < -1000) {",
        "        e *= 0x1p-100;",
        "        k += 100;",
        "    }",
        "    scale.u = (unsigned long long)(k + 1023) << 52;",
        "    return e * scale.d;",
        "}",
        "",
    ]


def _c(model: Boosted, name: str, ftype: str, a: dict[str, Any], *, quantize: Any = None) -> dict[str, str]:
    ctype = lit.C_TYPES[ftype][0]
    if quantize is not None:
        used = sorted({j for stage in model.stages for tree in stage for j in read_features(tree)})
        quantizer = quantizer_model(model.schema, quantize, ftype, used=used)
        model = quantized_model(model, quantize, ftype)[0]
        a = _arrays(model)
        if not _packable(model, a):
            raise CodegenError("quantized C is written for boosted models of threshold splits on numeric features (at most 127): "
                               "this one has a categorical feature, a subset split or more features")
    big = name.upper()
    k = model.n_outputs
    link = LOSSES[model.loss]
    classes = 0 if link == "identity" else len(model.schema.classes)
    # the subset splits' left codes as bits: node i's code c is bit c % 32 of word bit0[i] + c / 32
    words: list[int] = []
    bit0 = [0] * len(a["kind"])
    for i, codes in sorted(a["codes"].items()):
        bit0[i] = len(words)
        row = [0] * max(1, (a["ncat"][i] + 31) // 32)
        for c in codes:
            row[c // 32] |= 1 << (c % 32)
        words += row
    n_features = max(1, model.schema.n_features)
    header = [
        f"/* {name}: {_describe(model)}. Generated by puretree. */",
        f"#ifndef {big}_H",
        f"#define {big}_H",
        f"#define {big}_N_FEATURES {model.schema.n_features}",
        f"#define {big}_N_OUTPUTS {k}",
        # The locals of the deepest chain: the row as doubles, up to three arrays of a double per
        # output (raw scores, their exponentials, a caller's), counters; no heap, no recursion.
        f"/* Stack: about {32 + 8 * n_features + 24 * k} bytes of locals in the deepest call chain ({big}_MAX_STACK_BYTES); no heap, no",
        f" * recursion. Worst case: {sum(max_comparisons(t) for stage in model.stages for t in stage)} tests per prediction ({big}_MAX_COMPARISONS): every",
        " * stage's trees run, each at most its longest path's tests (a comparison or a category lookup). */",
        f"#define {big}_MAX_STACK_BYTES {32 + 8 * n_features + 24 * k}u",
        f"#define {big}_MAX_COMPARISONS {sum(max_comparisons(t) for stage in model.stages for t in stage)}u",
    ]
    if classes:
        header += [
            f"#define {big}_N_CLASSES {classes}",
            f"/* The raw scores of row x into raw[{big}_N_OUTPUTS], bit for bit puretree's. */",
            f"void {name}_decision_function(const {ctype} *x, double *raw);",
            f"/* The class probabilities into proba[{big}_N_CLASSES]; returns the predicted class's index. */",
            f"int {name}_predict_proba(const {ctype} *x, double *proba);",
            "/* The predicted class's index. */",
            f"int {name}_predict(const {ctype} *x);",
        ]
    else:
        header += [
            f"void {name}_decision_function(const {ctype} *x, double *raw);",
            "/* The predicted value (the raw score). */",
            f"double {name}_predict(const {ctype} *x);",
        ]
    if quantize is not None:
        header[3:3] = ["#include <stdint.h>"]
        header += [
            f"/* The missing value: NaN readings become {big}_MISSING through {name}_quantize. */",
            f"#define {big}_MISSING {lit.c_int(lit.C_TYPES[ftype][1][0], ctype)}",
            f"/* Fixed point: {name}_quantize turns float readings into the {ctype} features the model reads (one",
            f" * call for the whole model), in float arithmetic: s = (x - offset) * scale + {quantizer['bias']}, clamped to",
            f" * [1, {quantizer['high']}] (NaN becomes 0), truncated, plus {quantizer['shift']}. Each feature's training range maps onto",
            f" * {big}_QUANTIZED_LOW..{big}_QUANTIZED_HIGH; the thresholds are quantized the same way, so a reading goes the float",
            " * model's way except near a threshold. `puretree verify --quantize` checks it value for value. */",
            f"#define {big}_QUANTIZED_LOW {lit.c_int(quantized_range(ftype)[0], ctype)}",
            f"#define {big}_QUANTIZED_HIGH {lit.c_int(quantized_range(ftype)[1], ctype)}",
            f"void {name}_quantize(const float *x, {ctype} *q);",
        ]
    header += ["#endif", ""]
    src = [f"/* {name}: {_describe(model)}. Generated by puretree. */", "#include <math.h>", f'#include "{name}.h"', ""]
    if quantize is not None:
        src += _c_packed(model, name, ctype, a, quantized=True)
        src += environment().from_string('{% from "c/_quantizer.c.j2" import quantizer %}{{ quantizer(N, B, ctype, q, "the model") }}').render(
            N=name, B=big, ctype=ctype, q=quantizer).splitlines()
    elif _packable(model, a):
        src += _c_packed(model, name, ctype, a)
    elif _compact(model, a):
        src += _c_compact(model, name, ctype, a)
    else:
        src += _c_tables(model, name, ctype, a, words, bit0)
    if not classes:
        src += ["", f"double {name}_predict(const {ctype} *x) {{", f"    double raw[{k}];", f"    {name}_decision_function(x, raw);", "    return raw[0];", "}", ""]
        return {f"{name}.h": "\n".join(header), f"{name}.c": "\n".join(src)}
    src += ["", f"static int {name}_code(const double *raw) {{"]
    if k == 1:
        src += [f"    return raw[0] {'>' if strict_class(model) else '>='} 0.0 ? 1 : 0;", "}"]
    else:
        src += ["    int j, best = 0;", f"    for (j = 1; j < {k}; j++) if (raw[j] > raw[best]) best = j;", "    return best;", "}"]
    scale = sigmoid_scale(model)
    if model.precision == "float64":
        src += ["", *_c_exp(name)]
    src += ["", f"int {name}_predict_proba(const {ctype} *x, double *proba) {{", f"    double raw[{k}];", f"    {name}_decision_function(x, raw);"]
    if model.precision == "float32" and k == 1:
        # float32 * float32 formed in double and rounded once: the float32 product
        z = "(float)raw[0]" if scale == 1.0 else f"(float)({lit.c_double(float(np.float32(scale)))} * (double)(float)raw[0])"
        src += ["    {", f"        float e = (float)exp(-(double){z});", "        float p = 1.0f / (1.0f + e);", "        proba[0] = 1.0 - (double)p;", "        proba[1] = (double)p;", "    }"]
    elif model.precision == "float32":
        src += ["    {", "        int j;", "        float top = (float)raw[0], e[%d];" % k, "        double total = 0.0;", f"        for (j = 1; j < {k}; j++) if ((float)raw[j] > top) top = (float)raw[j];",
                f"        for (j = 0; j < {k}; j++) {{ e[j] = (float)exp((double)((float)raw[j] - top)); total += (double)e[j]; }}",
                f"        for (j = 0; j < {k}; j++) proba[j] = (double)(e[j] / (float)total);", "    }"]
    elif k == 1:
        z = "raw[0]" if scale == 1.0 else f"{lit.c_double(scale)} * raw[0]"
        src += ["    {", f"        double p = 1.0 / (1.0 + {name}_exp(-({z})));", "        proba[0] = 1.0 - p;", "        proba[1] = p;", "    }"]
    else:
        src += ["    {", "        int j;", "        double top = raw[0], total = 0.0;", f"        for (j = 1; j < {k}; j++) if (raw[j] > top) top = raw[j];",
                f"        for (j = 0; j < {k}; j++) {{ proba[j] = {name}_exp(raw[j] - top); total += proba[j]; }}",
                f"        for (j = 0; j < {k}; j++) proba[j] /= total;", "    }"]
    src += [f"    return {name}_code(raw);", "}", "", f"int {name}_predict(const {ctype} *x) {{", f"    double raw[{k}];",
            f"    {name}_decision_function(x, raw);", f"    return {name}_code(raw);", "}", ""]
    return {f"{name}.h": "\n".join(header), f"{name}.c": "\n".join(src)}


def _c_tables(model: Boosted, name: str, ctype: str, a: dict[str, Any], words: list[int], bit0: list[int]) -> list[str]:
    """The general tables (any split, any missing side) and the loop that walks them."""
    k = model.n_outputs
    n_features = max(1, model.schema.n_features)
    src = [
        _c_array("signed char", f"{name}_kind", [str(v) for v in a["kind"]]),
        _c_ints(f"{name}_feature", a["feature"]),
        _c_array("double", f"{name}_threshold", [_c_double(v) for v in a["threshold"]]),
        _c_ints(f"{name}_left", a["left"]),
        _c_ints(f"{name}_right", a["right"]),
        _c_ints(f"{name}_nan", a["nan"]),
        _c_ints(f"{name}_other", a["other"]),
        _c_array("double", f"{name}_value", [_c_double(v) for v in a["value"]]),
        _c_ints(f"{name}_ncat", a["ncat"]),
        _c_ints(f"{name}_bit0", bit0),
        _c_array("unsigned long", f"{name}_bits", [f"{v}UL" for v in words]),
        _c_ints(f"{name}_roots", a["roots"]),
        _c_ints(f"{name}_outputs", a["outputs"]),
        *([_c_array("unsigned char", f"{name}_numeric", [str(int(f.is_numeric)) for f in model.schema.features])] if model.precision == "float32" else []),
        _c_array("double", f"{name}_init", [_c_double(v) for v in model.init]),
        "",
        f"static double {name}_leaf(int i, const double *x) {{",
        f"    while ({name}_kind[i] != 0) {{",
        f"        double v = x[{name}_feature[i]];",
        "        int next;",
        "        if (isnan(v)) {",
        f"            next = (int){name}_nan[i];",
        f"        }} else if ({name}_kind[i] == 1) {{",
        f"            next = (int)(v <= {name}_threshold[i] ? {name}_left[i] : {name}_right[i]);",
        f"        }} else if (v >= 0.0 && v < (double){name}_ncat[i] && v == floor(v)) {{",
        "            int c = (int)v;",
        f"            next = (int)((({name}_bits[{name}_bit0[i] + c / 32] >> (c % 32)) & 1UL) ? {name}_left[i] : {name}_right[i]);",
        "        } else {",
        f"            next = (int){name}_other[i];",
        "        }",
        "        if (next < 0) break;",
        "        i = next;",
        "    }",
        f"    return {name}_value[i];",
        "}",
        "",
        f"void {name}_decision_function(const {ctype} *x, double *raw) {{",
        f"    double xd[{n_features}];",
        "    int j, t;",
    ]
    n_trees = len(a["roots"])
    if model.precision == "float32":
        src += [
            f"    float acc[{k}];",
            f"    for (j = 0; j < {model.schema.n_features}; j++) xd[j] = {name}_numeric[j] ? (double)(float)x[j] : (double)x[j];",
            f"    for (j = 0; j < {k}; j++) acc[j] = (float){name}_init[j];",
            f"    for (t = 0; t < {n_trees}; t++) {{",
            f"        int o = {name}_outputs[t];",
            f"        acc[o] = (float)((double)acc[o] + {_c_double(model.learning_rate)} * {name}_leaf((int){name}_roots[t], xd));",
            "    }",
            f"    for (j = 0; j < {k}; j++) raw[j] = (double)acc[j];",
            "}",
        ]
    else:
        src += [
            f"    for (j = 0; j < {model.schema.n_features}; j++) xd[j] = (double)x[j];",
            f"    for (j = 0; j < {k}; j++) raw[j] = {name}_init[j];",
            f"    for (t = 0; t < {n_trees}; t++) raw[{name}_outputs[t]] += {_c_double(model.learning_rate)} * {name}_leaf((int){name}_roots[t], xd);",
            "}",
        ]
    return src


def _c_compact(model: Boosted, name: str, ctype: str, a: dict[str, Any]) -> list[str]:
    """The compact tables of a model whose splits are all thresholds (see :func:`_compact`): per
    node its kind (0: a leaf; 1: a threshold, NaN going right; 3: NaN going left), feature,
    threshold, right child (the left one is the next node) and value, in the narrowest types.
    A ``float32`` model of numeric features only is walked in float: its thresholds are the
    largest float32 at most each one (the same test on the float32 inputs it reads), its values
    float32 (they are), its sums ``acc += value`` in float when the learning rate is 1 (a float
    sum is the double sum rounded to float: the same value). Otherwise in double, as the
    general tables are."""
    k = model.n_outputs
    n = max(1, model.schema.n_features)
    kind = [0 if t == 0 else (3 if a["nan"][i] == a["left"][i] else 1) for i, t in enumerate(a["kind"])]
    in_float = model.precision == "float32" and all(f.is_numeric for f in model.schema.features)
    values_float = model.precision == "float32" and all(math.isnan(v) or float(np.float32(v)) == v for v in a["value"])
    thresholds = [a["threshold"][i] if t else 0.0 for i, t in enumerate(kind)]
    vtype, ttype = ("float" if values_float else "double"), ("float" if in_float else "double")
    if in_float:
        thresholds = [_float_below(v) for v in thresholds]

    def num(v: float, ctype_: str) -> str:
        if ctype_ == "float":
            return (float(v).hex() + "f") if math.isfinite(v) else ("(float)" + _c_double(v))
        return _c_double(v)

    right = [a["right"][i] if kind[i] else 0 for i in range(len(kind))]
    src = [
        "/* node i's left child is node i + 1; kind 0: a leaf, 1: x <= threshold goes left, NaN right; 3: NaN left too */",
        _c_ints(f"{name}_kind", kind),
        _c_ints(f"{name}_feature", [a["feature"][i] if kind[i] else 0 for i in range(len(kind))]),
        _c_array(ttype, f"{name}_threshold", [num(v, ttype) for v in thresholds]),
        _c_ints(f"{name}_right", right),
        _c_array(vtype, f"{name}_value", [num(v, vtype) for v in a["value"]]),
        _c_ints(f"{name}_roots", a["roots"]),
        *([_c_ints(f"{name}_outputs", a["outputs"])] if k > 1 else []),
        _c_array("double", f"{name}_init", [_c_double(v) for v in model.init]),
        "",
        f"static {vtype} {name}_leaf(int i, const {ttype} *x) {{",
        f"    while ({name}_kind[i] != 0) {{",
        f"        {ttype} v = x[{name}_feature[i]];",
        f"        i = v <= {name}_threshold[i] || ({name}_kind[i] == 3 && isnan(v)) ? i + 1 : {name}_right[i];",
        "    }",
        f"    return {name}_value[i];",
        "}",
        "",
        f"void {name}_decision_function(const {ctype} *x, double *raw) {{",
        "    int j, t;",
    ]
    n_trees = len(a["roots"])
    out = f"{name}_outputs[t]" if k > 1 else "0"
    if in_float:
        if ctype == "float":
            src += ["    const float *xf = x;"]
        else:
            src += [f"    float xf[{n}];", f"    for (j = 0; j < {model.schema.n_features}; j++) xf[j] = (float)x[j];"]
    elif model.precision == "float32":
        src += [f"    double xf[{n}];", f"    for (j = 0; j < {model.schema.n_features}; j++) xf[j] = (double)(float)x[j];"]
    else:
        src += [f"    double xf[{n}];", f"    for (j = 0; j < {model.schema.n_features}; j++) xf[j] = (double)x[j];"]
    if model.precision == "float32":
        add = (f"acc[{out}] += {name}_leaf((int){name}_roots[t], xf);" if values_float and model.learning_rate == 1.0 else
               f"acc[{out}] = (float)((double)acc[{out}] + {_c_double(model.learning_rate)} * (double){name}_leaf((int){name}_roots[t], xf));")
        src += [f"    float acc[{k}];", f"    for (j = 0; j < {k}; j++) acc[j] = (float){name}_init[j];",
                f"    for (t = 0; t < {n_trees}; t++) {add}", f"    for (j = 0; j < {k}; j++) raw[j] = (double)acc[j];", "}"]
    else:
        src += [f"    for (j = 0; j < {k}; j++) raw[j] = {name}_init[j];",
                f"    for (t = 0; t < {n_trees}; t++) raw[{out}] += {_c_double(model.learning_rate)} * {name}_leaf((int){name}_roots[t], xf);", "}"]
    return src


# -- verifying ----------------------------------------------------------------------------


def _f32_neighbours(t: float) -> list[float]:
    f = np.float32(t)
    out = {float(f), float(np.nextafter(f, np.float32(-np.inf))), float(np.nextafter(f, np.float32(np.inf))),
           float(np.nextafter(t, -math.inf)), float(np.nextafter(t, math.inf)), float(t)}
    return [v for v in out if math.isfinite(v)]


def _reaching(t: Any, base: np.ndarray) -> list[np.ndarray]:
    """For every node of table ``t``, ``base`` with the features its path tests set so that the
    row reaches it (None where the path cannot be met: a cut below another on one feature)."""
    out: list[np.ndarray] = [np.empty(0)] * len(t.kind)
    stack: list[tuple[int, dict[int, tuple[float, float]], dict[int, frozenset[int]]]] = [(0, {}, {})]
    while stack:
        i, cuts, codes = stack.pop()
        row = base.copy()
        ok = True
        for j, (lo, hi) in cuts.items():
            v = hi if math.isfinite(hi) else (lo + 1.0 if math.isfinite(lo) else 0.0)
            ok &= lo < v <= hi
            row[j] = v
        for j, allowed in codes.items():
            ok &= bool(allowed)
            row[j] = float(min(allowed)) if allowed else -1.0
        out[i] = row if ok else np.empty(0)
        if t.kind[i] == 0:
            continue
        j = int(t.feature[i])
        if t.kind[i] == 1:
            lo, hi = cuts.get(j, (-math.inf, math.inf))
            c = float(t.threshold[i])
            stack.append((int(t.left[i]), {**cuts, j: (lo, min(hi, c))}, codes))
            stack.append((int(t.right[i]), {**cuts, j: (max(lo, c), hi)}, codes))
        else:
            known = codes.get(j, frozenset(range(int(t.n_categories[i]))))
            left = frozenset(t.codes[i])
            stack.append((int(t.left[i]), cuts, {**codes, j: known & left}))
            stack.append((int(t.right[i]), cuts, {**codes, j: known - left}))
    return out


def quantized_check_rows(checked: Boosted, inputs: np.ndarray, feature_type: str) -> np.ndarray:
    """The rows :func:`verify` checks quantized code on: ``inputs`` (the quantized rows) and the
    boundary rows of ``checked`` (:func:`quantized_model`) on the integer scale (a threshold,
    the integer below it, missing), in the range of ``feature_type``, without repeats."""
    lo, hi = quantized_range(feature_type)
    rows = np.clip(np.floor(check_rows(checked, inputs, "double")), lo, hi)
    _, first = np.unique(np.ascontiguousarray(rows).view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))), return_index=True)
    return rows[np.sort(first)]


def check_rows(model: Boosted, X: np.ndarray, feature_type: str = "double") -> np.ndarray:
    """``X`` (encoded) and the boundary rows: for every node of every tree a row of ``X`` (the
    first, or zeros) changed to reach it; for every split, that row with the split's feature at
    the threshold and its float32 and double neighbours, -1 and missing, or (categorical) at each
    code, an unknown code, -1, a fraction and missing; and a row with every feature missing.
    In the feature type, without repeats."""
    n = model.schema.n_features
    base = np.array(X[0] if len(X) else np.zeros(n), dtype=np.float64)
    probes: list[np.ndarray] = [X, np.full((1, n), np.nan)]
    for stage in model.stages:
        for tree in stage:
            t = table(tree)
            reach = _reaching(t, base)
            probes.append(np.array([r for r in reach if r.size], dtype=np.float64).reshape(-1, n))
            for i in np.flatnonzero(t.kind != 0).tolist():
                j = int(t.feature[i])
                if t.kind[i] == 1:
                    # -1: a negative value, which a LightGBM categorical split (imported as cuts) sends right
                    values = _f32_neighbours(float(t.threshold[i])) + [-1.0, math.nan]
                else:
                    m = int(t.n_categories[i])
                    values = [float(c) for c in range(m)] + [float(m), -1.0, 0.5, math.nan]
                start = reach[i] if reach[i].size else base
                rows = np.repeat(start[None, :], len(values), axis=0)
                rows[:, j] = values
                probes.append(rows)
    rows = np.vstack(probes).astype(np.float64)
    if feature_type == "float":
        rows = rows.astype(np.float32).astype(np.float64)
    _, first = np.unique(np.ascontiguousarray(rows).view(np.dtype((np.void, rows.dtype.itemsize * max(1, n)))), return_index=True)
    return rows[np.sort(first)] if n else rows


def _expected(model: Boosted, rows: np.ndarray) -> list[Any]:
    ds = Dataset(model.schema, rows)
    raw = np.asarray(decision_function(model, ds, unseen="ignore"), dtype=np.float64).reshape(len(rows), -1)
    if LOSSES[model.loss] == "identity":
        return [(None, tuple(r), ()) for r in raw.tolist()]
    codes = class_codes(model, raw)
    proba = predict_proba(model, ds, unseen="ignore")
    return [(int(c), tuple(r), tuple(p)) for c, r, p in zip(codes.tolist(), raw.tolist(), proba.tolist())]


def _bits(v: float) -> bytes:
    return struct.pack("<d", v)


def _same(want: Any, got: Any) -> bool:
    if not isinstance(got, tuple) or len(got) != 3 or got[0] != want[0] or len(got[1]) != len(want[1]) or len(got[2]) != len(want[2]):
        return False
    raw_same = all(_bits(a) == _bits(b) for a, b in zip(want[1], got[1]))  # -0.0 and 0.0 differ: bit for bit
    return raw_same and all(math.isclose(a, b, rel_tol=1e-12, abs_tol=1e-300) for a, b in zip(want[2], got[2]))


def _run_python(model: Boosted, work: Path, name: str, rows: np.ndarray) -> list[Any]:
    import importlib.util
    import sys
    import uuid

    key = f"puretree_generated_{uuid.uuid4().hex}"
    spec = importlib.util.spec_from_file_location(key, work / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except Exception as exc:
        raise CodegenError(f"importing {name}.py failed: {type(exc).__name__}: {exc}") from None
    regression = LOSSES[model.loss] == "identity"
    out: list[Any] = []
    try:
        for row in rows.tolist():
            try:
                raw = tuple(float(v) for v in module.decision_function(row))
                if regression:
                    out.append((None, raw, ()))
                else:
                    out.append((model.schema.classes.index(module.predict(row)), raw, tuple(module.predict_proba(row))))
            except Exception as exc:  # the code under test is at fault: a mismatch
                out.append(f"raised {type(exc).__name__}: {exc}"[:200])
    finally:
        sys.modules.pop(key, None)
    return out


def _run_c(model: Boosted, files: dict[str, str], work: Path, name: str, ftype: str, rows: np.ndarray, sanitize: bool, *, quantized: bool = False) -> list[Any]:
    big = name.upper()
    regression = LOSSES[model.loss] == "identity"
    if regression:
        body = (f"double raw[{big}_N_OUTPUTS]; int k; {name}_decision_function(x, raw);"
                f' if ({name}_predict(x) != raw[0] && !(raw[0] != raw[0])) {{ printf("inconsistent\\n"); }}'
                f' printf("-"); for (k = 0; k < {big}_N_OUTPUTS; k++) printf(" %a", raw[k]); printf(" |\\n");')
    else:
        body = (f"double raw[{big}_N_OUTPUTS]; double p[{big}_N_CLASSES]; int k; int c = {name}_predict_proba(x, p); {name}_decision_function(x, raw);"
                f' if (c != {name}_predict(x)) {{ printf("inconsistent\\n"); }}'
                f' printf("%d", c); for (k = 0; k < {big}_N_OUTPUTS; k++) printf(" %a", raw[k]); printf(" |");'
                f' for (k = 0; k < {big}_N_CLASSES; k++) printf(" %a", p[k]); printf("\\n");')
    driver = driver_source(name, lit.C_TYPES[ftype][0], body)
    program = compile_c(files, name, ftype, regression=regression, proba=True, workdir=work, sanitize=sanitize, driver=driver, quantized=quantized)
    out: list[Any] = []
    for line in driver_lines(program, rows, ftype):
        head, _, tail = line.partition("|")
        parts = head.split()
        code = None if parts[0] == "-" else int(parts[0])
        out.append((code, tuple(float.fromhex(p) for p in parts[1:]), tuple(float.fromhex(p) for p in tail.split())))
    return out


def verify(model: Boosted, X: Any, target: str, *, feature_type: str = "double", name: str = "tree", sanitize: bool = False, **options: Any) -> Report:
    """The generated code of a boosted model run on ``X`` and its boundary rows (:func:`check_rows`)
    against the library: raw scores bit for bit, classes equal, probabilities to a relative 1e-12.

    With ``quantize`` (the training ranges; C, ``feature_type`` int8 or int16): the integer code
    against :func:`quantized_model` on the quantized rows of ``X`` and the boundary rows of its
    integer thresholds (each threshold, the integer below, missing), ``NAME_quantize`` against
    puretree's quantization value by value (:func:`~puretree.codegen.verify.quantize_probes`),
    and the report's ``changed_by_quantization``: how many rows of ``X`` the quantized model on
    the quantized rows predicts otherwise than the model on the rows (the classes; regression:
    the values), at most ``max_changed`` (a count, or a share ``"1%"``) for the report to be ok."""
    if target not in _TARGETS:
        raise CodegenError(f"verify runs a boosted model's python or c, not {target!r}")
    if options.pop("on", None) is not None:
        raise CodegenError("verify's 'on' is not available for boosted models")
    quantize = options.pop("quantize", None)
    max_changed = options.pop("max_changed", None)
    options.pop("template_dirs", None)
    ftype = check_options(target, {"feature_type": feature_type})["feature_type"]
    files = boosted_files(model, target, name=name, feature_type=ftype, quantize=quantize, **options)
    X = X if isinstance(X, np.ndarray) and X.dtype == np.float64 and X.ndim == 2 else encode_features(model.schema, X if not isinstance(X, Dataset) else X)
    X = np.asarray(X, dtype=np.float64)
    checked = model
    if quantize is not None:
        checked, offset, scale = quantized_model(model, quantize, ftype)
        inputs = quantize_rows(X, offset, scale, ftype)
        rows = quantized_check_rows(checked, inputs, ftype)
        probes = np.vstack([quantize_probes(tree, X if i == 0 else X[:0], offset, scale, ftype) for i, tree in enumerate(t for stage in model.stages for t in stage)])
    else:
        rows = check_rows(model, X, ftype if target == "c" else "double")
    want = _expected(checked, rows)
    with tempfile.TemporaryDirectory(prefix="puretree-verify-") as tmp:
        work = Path(tmp)
        if target == "python":
            (work / f"{name}.py").write_text(files[f"{name}.py"], encoding="utf-8")
            got = _run_python(model, work, name, rows)
        else:
            got = _run_c(model, files, work, name, ftype, rows, sanitize, quantized=quantize is not None)
            q_got = run_quantize(work / "qdriver", probes, ftype) if quantize is not None else None
    bad = [(row, w, g) for row, w, g in zip(rows.tolist(), want, got) if not _same(w, g)]
    if len(got) != len(want):
        bad.append(("row count", len(want), len(got)))
    report = Report(len(rows), bad[: MAX_REPORTED], len(bad))
    if quantize is None or q_got is None:
        return report
    q_want = quantize_rows(probes, offset, scale, ftype)
    differ = ~((q_got == q_want) | (np.isnan(q_got) & np.isnan(q_want)))
    q_bad = [(int(j), float(probes[i, j]), float(q_want[i, j]), float(q_got[i, j])) for i, j in zip(*np.nonzero(differ))]
    return attrs.evolve(report, n_quantized=int(probes.size), quantize_mismatches=q_bad[:MAX_REPORTED], n_quantize_mismatches=len(q_bad),
                        changed_by_quantization=_changed(model, checked, X, inputs), n_rows=len(X),
                        max_changed=allowed_changes(0 if max_changed is None else max_changed, len(X)))


def _changed(model: Boosted, qmodel: Boosted, X: np.ndarray, QX: np.ndarray) -> int:
    """How many rows the quantized model on the quantized rows predicts otherwise than the model
    on the rows: their classes, or (regression) their values."""
    if not len(X):
        return 0
    a = decision_function(model, Dataset(model.schema, X), unseen="ignore")
    b = decision_function(qmodel, Dataset(model.schema, QX), unseen="ignore")
    a, b = np.asarray(a, dtype=np.float64).reshape(len(X), -1), np.asarray(b, dtype=np.float64).reshape(len(X), -1)
    if LOSSES[model.loss] == "identity":
        return int(np.sum(a[:, 0] != b[:, 0]))
    return int(np.sum(class_codes(model, a) != class_codes(qmodel, b)))
