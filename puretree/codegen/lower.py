"""``lower(tree, target, options)``: a tree as a plain render model for the code templates.

The model holds only dicts, lists, ints, bools and **already formatted literals** (strings); no
node ever reaches a template. Everything a template needs to decide exactly as
:func:`puretree.predict.predict` does is computed here, once:

- **Outcomes.** Every place a row can end (a leaf, or a categorical split it cannot pass
  because its category was never seen) answers with that node's distribution as the model
  computes it (an empty leaf borrows its nearest ancestor's). Identical answers are stored
  once; ``outcome_class`` is the first most probable class (ties: the first class).
- **Thresholds in the feature type.** For ``double`` (and Python) the model's threshold is
  printed exactly. For ``float`` it becomes the largest float32 ``t'`` with ``t' <= t``, so
  ``x <= t'`` in float32 decides as ``(double) x <= t`` for every float32 ``x``. For integer
  types it becomes ``floor(t)`` (``x <= floor(t)`` iff ``x <= t`` for integer ``x``), clamped
  to the type's range (an always-true comparison is emitted as such, never as a warning).
- **Two shapes of the same tree.** ``lines``: the nested if/else form, as a flat list of
  indented statements (built from the kit's enter/leave events, so any depth lowers); ``table``: the
  internal nodes as parallel arrays, children as references (``ref < n_internal``: an internal
  node; otherwise outcome ``ref - n_internal``), for the table-driven loop and for the
  "distribute" missing-value walk (``spread``), which visits branches level by level in the
  same order as the model adds them up, so even the floating-point sums are identical.
  ``compact`` (``form="compact"``): the smallest table, for threshold splits (see :func:`_compact`).
- **Fixed point** (``quantize``: one ``(low, high)`` training range per feature, integer
  feature types): the tree is lowered as :func:`quantized_tree` of itself, and the model
  carries the offsets and scales of ``NAME_quantize`` (see :data:`QUANTIZER`).

>>> from puretree.datasets import load_playtennis
>>> from puretree.grow import id3
>>> model = lower(id3(load_playtennis()), "c-table", {"name": "tennis"})
>>> model["table"]["n_internal"], len(model["outcomes"]), model["index_type"], model["depth"]
(3, 5, 'uint8_t', 2)
>>> lower(id3(load_playtennis()), "c", {"name": "tennis"})["lines"][0]
{'depth': 0, 'op': 'if', 'test': {'kind': 'codes', 'feature': 0, 'codes': [0], 'or_missing': False, 'n': 3}}
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np

from .._version import __version__
from ..errors import CodegenError
from ..flat import KIND_CODES, LEAF, flatten, normalised_fractions
from ..fold import ENTER, events, fold, iter_nodes, rewrite
from ..nodes import Split, Threshold
from . import literals as lit
from .certified import certified
from .leaves import LEAF_SCALE, LEAF_TYPES, check_leaf_type, leaf_numerators

#: The flat table's kind codes of the split tests lowering writes particular code for.
THRESHOLD_SPLIT, MULTIWAY_SPLIT, SUBSET_SPLIT = KIND_CODES["threshold"], KIND_CODES["multiway"], KIND_CODES["subset"]

if TYPE_CHECKING:  # the tree value sits above: its one-row answers run the generated code
    from ..tree import Tree

__all__ = ["ARRAY_LANGUAGES", "JAVA_NESTED_SPLITS", "QUANTIZER", "QUANTIZED_MAX", "quantized_range", "feature_ranges", "read_features", "tree_quantization", "quantization", "quantizer_model", "quantize", "quantized_tree", "resources", "MANIFEST_MARK", "TARGET_LANGUAGES", "FEATURE_TYPES", "INDEX_TYPES", "PYTHON_NESTING_LIMIT", "PYTHON_ELIF_LIMIT", "C_NESTING_LIMIT", "C_ELIF_LIMIT", "lower", "check_options", "max_comparisons", "threshold_literal", "missing_children", "smallest_type", "COMPACT_LEFT_LEAF", "COMPACT_RIGHT_LEAF", "COMPACT_HEAVY_LEFT", "threshold_splits_only"]

#: Built-in targets and the language whose literals they use.
TARGET_LANGUAGES = {"python": "python", "c": "c", "c-table": "c", "javascript": "javascript", "java": "java", "rust": "rust"}
LANGUAGES = ("python", "c", "javascript", "java", "rust")
#: The languages whose built-in targets read a row as an array of doubles (categories as
#: their codes, NaN for a missing value), as the C targets do, nested or as a table.
ARRAY_LANGUAGES = ("javascript", "java", "rust")
#: Nested Java: a method's bytecode is at most 64 KiB (JVMS 4.7.3); above this many splits
#: the auto form is the table.
JAVA_NESTED_SPLITS = 1500
FEATURE_TYPES = tuple(lit.C_TYPES)
#: Unsigned index types, smallest first, with their largest value.
INDEX_TYPES = {"uint8_t": 2**8 - 1, "uint16_t": 2**16 - 1, "uint32_t": 2**32 - 1}
#: The deepest tree the Python target writes as nested if/else; deeper trees use the flat form.
#: CPython refuses more than 100 indentation levels; each tree level adds one.
PYTHON_NESTING_LIMIT = 60
#: The most ``if``/``elif`` statements nested inside one another that nested Python may hold:
#: each ``elif`` is an ``if`` inside the previous one's ``else``, so a categorical split with
#: thousands of categories nests thousands deep, and CPython's compiler gives up (RecursionError
#: or MemoryError) somewhere past 2,000. Deeper trees use the flat form.
PYTHON_ELIF_LIMIT = 500
#: C99 (5.2.4.1) promises 127 nested blocks; deeper trees need the table-driven form.
C_NESTING_LIMIT = 120
#: The most if/else-if statements nested inside one another that nested C may hold (each
#: category of a categorical split is one more ``else if``): compilers take time growing with
#: its square (gcc: 4.5 s for 5,000, minutes for 50,000). Such trees need the c-table target.
C_ELIF_LIMIT = 1000

_DEFAULTS: dict[str, Any] = {
    "name": "tree",
    "feature_type": "double",
    "proba": True,
    "form": "auto",
    "index_type": "auto",
    "language": None,
    "quantize": None,
    "leaf_type": "double",
    "certified": False,
}


def check_options(target: str, options: Mapping[str, Any] | None) -> dict[str, Any]:
    """Options with defaults filled in, checked; a bad one raises :class:`CodegenError`.

    >>> check_options("c", {"name": "2bad"})
    Traceback (most recent call last):
    ...
    puretree.errors.CodegenError: invalid name '2bad': use an ASCII letter followed by letters, digits or single underscores (at most 31 characters, not a keyword)
    """
    unknown = set(options or {}) - set(_DEFAULTS)
    if unknown:
        raise CodegenError(f"unknown code generation option(s) {sorted(unknown)}; known: {sorted(_DEFAULTS)}")
    opts = {**_DEFAULTS, **(options or {})}
    name = opts["name"]
    if not isinstance(name, str) or not lit.c_identifier_ok(name):
        raise CodegenError(f"invalid name {name!r}: use an ASCII letter followed by letters, digits or single underscores (at most 31 characters, not a keyword)")
    ftype = {"int8_t": "int8", "int16_t": "int16", "int32_t": "int32"}.get(opts["feature_type"], opts["feature_type"])
    if ftype not in lit.C_TYPES:
        raise CodegenError(f"unknown feature type {opts['feature_type']!r}; choose one of {list(FEATURE_TYPES)}")
    opts["feature_type"] = ftype
    if opts["index_type"] != "auto" and opts["index_type"] not in INDEX_TYPES:
        raise CodegenError(f"unknown index type {opts['index_type']!r}; choose auto or one of {list(INDEX_TYPES)}")
    if opts["form"] not in ("auto", "nested", "table", "compact", "shared"):
        raise CodegenError(f"unknown form {opts['form']!r}; choose auto, nested, table, compact (C) or shared (C, ensembles)")
    language = opts["language"] or TARGET_LANGUAGES.get(target)
    if language is None:
        raise CodegenError(f"target {target!r} is not built in: say which language its literals use (language=python|c|javascript)")
    if language not in LANGUAGES:
        raise CodegenError(f"unknown language {language!r}; choose one of {list(LANGUAGES)}")
    opts["language"] = language
    # A Java class called "java" would hide the package java.lang that the code names.
    if language in ("java", "rust") and name in (lit.JAVA_KEYWORDS | {"java"} if language == "java" else lit.RUST_KEYWORDS):
        raise CodegenError(f"invalid name {name!r}: a keyword of {language.capitalize()} (or, in Java, the package java)")
    if language in ARRAY_LANGUAGES and ftype != "double" and TARGET_LANGUAGES.get(target) == language:
        raise CodegenError(f"the {target} target reads doubles (the language's numbers); feature type {ftype!r} is for C")
    if opts["leaf_type"] not in LEAF_TYPES:
        raise CodegenError(f"unknown leaf type {opts['leaf_type']!r}; choose one of {list(LEAF_TYPES)}")
    if not isinstance(opts["proba"], bool):
        raise CodegenError(f"proba must be True or False, got {opts['proba']!r}")
    if not isinstance(opts["certified"], bool):
        raise CodegenError(f"certified must be True or False, got {opts['certified']!r}")
    return opts


# -- literals per language ---------------------------------------------------------------


def _string(language: str, text: str) -> str:
    return {"python": lit.py_string, "c": lit.c_string, "javascript": lit.js_string, "java": lit.java_string, "rust": lit.rust_string}[language](text)


def _double(language: str, value: float) -> str:
    return {"python": lit.py_float, "c": lit.c_double, "javascript": lit.js_float, "java": lit.java_double, "rust": lit.rust_f64}[language](value)


def _label_text(label: Any) -> str:
    return lit.py_float(label) if isinstance(label, float) else str(label)


def _value_literal(language: str, value: Any) -> str:
    """A class label or category value as a literal of its own type (Python), or as text."""
    if language != "python":
        return _string(language, _label_text(value))
    if isinstance(value, bool):
        return "True" if value else "False"
    if isinstance(value, int):
        return str(int(value))
    if isinstance(value, float):
        return lit.py_float(value)
    return lit.py_string(str(value))


# -- fixed point ----------------------------------------------------------------------------

#: Per integer feature type: ``(bias, high, shift)``. The quantizer computes, in float32,
#: ``s = (x - offset) * scale + bias``, clamps ``s`` to ``[1, high]`` (NaN, a missing value,
#: becomes 0) and truncates it (``s`` is not negative, so that is its floor, with no libm
#: call): ``q = (int) s + shift``. Values lie in ``[1 + shift, high + shift]`` and a missing
#: value is ``shift``, the type's minimum; every constant is a float32 value (2**31 - 1 is not).
QUANTIZER = {"int8": (2**7, 2**8 - 1, -(2**7)), "int16": (2**15, 2**16 - 1, -(2**15)), "int32": (2**30, 2**31 - 2**7, -(2**31))}
#: Half the width of the integer range a feature's training range is mapped onto, per type:
#: ``bias - QUANTIZED_MAX + shift`` to ``bias + QUANTIZED_MAX + shift`` (:func:`quantized_range`).
QUANTIZED_MAX = {"int8": 2**7 - 1, "int16": 2**15 - 1, "int32": 2**30 - 2**8}


def quantized_range(ftype: str) -> tuple[int, int]:
    """The integers a feature's training range is mapped onto (readings outside it reach
    at most one unit further, clamped; the type's minimum is the missing value).

    >>> quantized_range("int8"), quantized_range("int16"), quantized_range("int32")
    ((-127, 127), (-32767, 32767), (-2147483392, -256))
    """
    bias, _, shift = QUANTIZER[ftype]
    return bias - QUANTIZED_MAX[ftype] + shift, bias + QUANTIZED_MAX[ftype] + shift
_F32_MAX = float(np.finfo(np.float32).max)
_F32_TINY = float(np.finfo(np.float32).tiny)


def feature_ranges(X: Any) -> tuple[tuple[float, float], ...]:
    """Each column's ``(smallest, largest)`` present value (``(0.0, 0.0)`` when it has none):
    the training data's range that :func:`quantization` maps onto the integer type.

    >>> feature_ranges(np.array([[1.0, np.nan], [3.0, np.nan], [2.0, np.nan]]))
    ((1.0, 3.0), (0.0, 0.0))
    """
    X = np.asarray(X, dtype=np.float64)
    out = []
    for j in range(X.shape[1]):
        col = X[:, j][~np.isnan(X[:, j])]
        out.append((float(col.min()), float(col.max())) if col.size else (0.0, 0.0))
    return tuple(out)


def read_features(tree: Tree) -> list[int]:
    """The features some split of ``tree`` reads, its surrogates' included, in increasing order."""
    flat = flatten(tree)
    stand_ins = {s.feature for node in iter_nodes(tree) if isinstance(node, Split) and node.surrogates for s in node.surrogates.splits}
    return sorted(set(flat.feature[flat.kind != LEAF].tolist()) | stand_ins)


def quantization(schema: Any, ranges: Any, ftype: str, *, used: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """``(offset, scale)`` per feature, as float32 (see :data:`QUANTIZER` for how a value is
    quantized with them): the range ``[lo, hi]`` of a numeric feature covers
    :func:`quantized_range`. A categorical feature's code passes unchanged (offset
    0, scale 1). A feature outside ``used`` (when given: the features the tree reads) gets
    scale 0: it quantizes to 0 whatever its value, and the generated code stores nothing for it.

    >>> from puretree.nodes import Feature, Schema
    >>> off, scale = quantization(Schema((Feature("x"), Feature("y"))), [(0.0, 2.0), (0.0, 1.0)], "int16", used=[0])
    >>> off.tolist(), scale.tolist()
    ([1.0, 0.0], [32767.0, 0.0])
    """
    if ftype not in QUANTIZER:
        raise CodegenError(f"quantization needs an integer feature type (int8, int16 or int32), not {ftype!r}")
    ranges = list(ranges)
    if len(ranges) != schema.n_features:
        raise CodegenError(f"quantization needs one (low, high) range per feature: got {len(ranges)} for {schema.n_features} features")
    top = QUANTIZED_MAX[ftype]
    keep = set(range(schema.n_features) if used is None else used)
    offset = np.zeros(schema.n_features, dtype=np.float32)
    scale = np.zeros(schema.n_features, dtype=np.float32)
    for j, (feature, pair) in enumerate(zip(schema.features, ranges)):
        try:
            lo, hi = (float(v) for v in pair)
        except (TypeError, ValueError):
            raise CodegenError(f"the range of feature {feature.name!r} must be two numbers (low, high), got {pair!r}") from None
        if not (math.isfinite(lo) and math.isfinite(hi) and lo <= hi):
            raise CodegenError(f"the range of feature {feature.name!r} must be finite with low <= high, got ({lo!r}, {hi!r})")
        if j not in keep:
            continue
        if feature.is_numeric and max(-lo, hi) > _F32_MAX:
            # NAME_quantize reads float readings: such a range (and the scale it would give,
            # every reading of float32 size collapsing onto one integer) is no fixed point.
            raise CodegenError(f"the range of feature {feature.name!r}, ({lo!r}, {hi!r}), goes beyond float32 (largest {_F32_MAX:.8g}): "
                               f"the quantizer reads float readings and cannot represent it; give a range within float32")
        if not feature.is_numeric:
            if len(feature.categories) > top:
                raise CodegenError(f"feature {feature.name!r} has {len(feature.categories)} categories; {ftype} quantization holds codes up to {top}")
            scale[j] = 1.0
            continue
        half = hi / 2 - lo / 2  # halves first: no overflow near the float64 limits
        offset[j] = np.float32(min(max(lo / 2 + hi / 2, -_F32_MAX), _F32_MAX))
        # A finite, non-zero scale: (x - offset) * scale is never NaN, whatever x is (inf included).
        scale[j] = np.float32(min(max(top / half, _F32_TINY), _F32_MAX)) if half > 0 else np.float32(1.0)
    return offset, scale


def tree_quantization(tree: Tree, ranges: Any, ftype: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`quantization` for the features ``tree`` reads (the others get scale 0)."""
    return quantization(tree.schema, ranges, ftype, used=read_features(tree))


def quantize(X: Any, offset: np.ndarray, scale: np.ndarray, ftype: str) -> np.ndarray:
    """The library's quantization, exactly as the generated ``NAME_quantize`` computes it in
    float32 (rounded once per operation, no fused multiply-add; :data:`QUANTIZER`): values as
    float64 holding integers, NaN (missing) kept; a feature of scale 0 gives 0.

    >>> off, scale = np.array([1.0], np.float32), np.array([32767.0], np.float32)
    >>> quantize(np.array([[0.0], [1.5], [9.0], [np.nan]]), off, scale, "int16").ravel().tolist()
    [-32767.0, 16383.0, 32767.0, nan]
    """
    bias, high, shift = QUANTIZER[ftype]
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.asarray(X, dtype=np.float64).astype(np.float32)
        s = (x - offset.astype(np.float32)) * scale.astype(np.float32) + np.float32(bias)
        s = np.minimum(np.maximum(s, np.float32(1.0)), np.float32(high))
        q = np.floor(s).astype(np.float64) + shift  # NaN stays NaN: the missing value
    q[:, scale == 0] = 0.0
    return q


def quantized_tree(tree: Tree, offset: np.ndarray, scale: np.ndarray, ftype: str) -> Tree:
    """The tree the integer code runs: each threshold ``t`` becomes the quantized value of
    ``t'``, the largest float32 ``<= t``. Quantization is monotone, so every float32 ``x`` the
    model sends left (``x <= t``, that is ``x <= t'``) has ``q(x) <= q(t')`` and goes left too;
    only the values above ``t'`` that share its integer can change side.

    >>> from puretree.nodes import Feature, Leaf, NumericSplit, Schema
    >>> from puretree.tree import Tree
    >>> tree = Tree(NumericSplit(0, 0.5, Leaf((1, 0)), Leaf((0, 1)), (1, 1)), Schema((Feature("x"),), ("a", "b")))
    >>> quantized_tree(tree, np.array([1.0], np.float32), np.array([32767.0], np.float32), "int16").root.test.value
    -16384.0
    """

    def quantized(test: Any, j: int) -> Any:
        if not isinstance(test, Threshold):
            return test
        t = float(lit.float32_floor(test.value))
        q = float(quantize(np.array([[t]]), offset[j: j + 1], scale[j: j + 1], ftype)[0, 0])
        return Threshold(q, missing_branch=test.missing_branch)

    def rule(node: Any) -> Any:
        if not isinstance(node, Split):
            return None
        sur = node.surrogates
        if sur is not None:  # a surrogate's threshold reads its own feature, quantized the same way
            sur = attrs.evolve(sur, splits=tuple(attrs.evolve(s, test=quantized(s.test, s.feature)) for s in sur.splits))
        if not isinstance(node.test, Threshold) and sur is node.surrogates:
            return None
        return Split(node.feature, quantized(node.test, node.feature), node.children, node.stats, surrogates=sur)

    return rewrite(tree, rule)


def quantizer_model(schema: Any, ranges: Any, ftype: str, *, used: Any) -> dict[str, Any]:
    """What the C templates' ``NAME_quantize`` renders (``c/_quantizer.c.j2``): the ranges,
    the features ``used`` (written by the quantizer; the others left as they are), their
    offsets and scales as float literals, and the constants of :data:`QUANTIZER`.

    >>> from puretree.nodes import Feature, Schema
    >>> q = quantizer_model(Schema((Feature("x"), Feature("y"))), [(0, 2), (0, 1)], "int16", used=[1])
    >>> q["features"], q["offset"], q["scale"], q["range"]
    ([1], ['0.5f'], ['65534.0f'], ['(-32767)', '32767'])
    """
    used = sorted(int(j) for j in used)
    offset, scale = quantization(schema, ranges, ftype, used=used)  # checks the ranges first, naming a bad one
    ranges = [tuple(float(v) for v in pair) for pair in ranges]
    bias, high, shift = QUANTIZER[ftype]
    return {
        "ranges": ranges,
        "features": used,
        "feature_type": _smallest_type(max(used, default=0), "auto", "feature indices"),
        "offset": [lit.c_float(offset[j]) for j in used],
        "scale": [lit.c_float(scale[j]) for j in used],
        "bias": lit.c_float(float(bias)),
        "shift": lit.c_int(shift, lit.C_TYPES[ftype][0]),
        "high": lit.c_float(float(high)),
        "range": [lit.c_int(v, lit.C_TYPES[ftype][0]) for v in quantized_range(ftype)],
    }


# -- thresholds ---------------------------------------------------------------------------


def _threshold(t: float, language: str, ftype: str) -> tuple[str, bool]:
    """``(literal, always_true)``: the threshold to compare with ``<=`` in the feature type."""
    if language != "c" or ftype == "double":
        return _double(language, t), False
    if ftype == "float":
        return lit.c_float(lit.float32_floor(t)), False  # type: ignore[arg-type]  # a float32 is printed as one
    lo, hi = lit.C_TYPES[ftype][1]
    ctype = lit.C_TYPES[ftype][0]
    floor = math.floor(t) if math.isfinite(t) else hi  # +inf: every known value goes left
    if floor >= hi:
        return lit.c_int(hi, ctype), True
    return lit.c_int(max(floor, lo), ctype), False


def _missing_children(flat: Any) -> np.ndarray:
    """Per node, the child a missing value goes to under "majority": the side a split learned
    (``Threshold.missing_branch``), else its heaviest branch."""
    if flat.sided:
        return np.where(flat.missing_child >= 0, flat.missing_child, flat.heavy)
    return flat.heavy


def _smallest_type(largest: int, forced: str, what: str) -> str:
    if forced != "auto":
        if largest > INDEX_TYPES[forced]:
            raise CodegenError(f"this tree is too large for index type {forced}: {what} reach {largest} (at most {INDEX_TYPES[forced]}); choose a wider index type")
        return forced
    for ctype, top in INDEX_TYPES.items():
        if largest <= top:
            return ctype
    raise CodegenError(f"this tree is too large for generated code: {what} reach {largest}")


def threshold_literal(t: float, language: str, ftype: str) -> tuple[str, bool]:
    """``(literal, always_true)``: threshold ``t`` as generated code compares with ``<=`` in the
    feature type (see the module docs).

    >>> threshold_literal(0.1, "c", "float"), threshold_literal(2.5, "c", "int16")
    (('0.099999994f', False), ('2', False))
    """
    return _threshold(t, language, ftype)


def missing_children(flat: Any) -> np.ndarray:
    """Per node of a flattened tree, the child a missing value goes to under "majority"."""
    return _missing_children(flat)


def threshold_splits_only(flat: Any) -> bool:
    """Whether a flattened tree's splits are all thresholds, without surrogates (what the
    compact tables hold)."""
    return not flat.surrogated and not bool(((flat.kind != LEAF) & (flat.kind != THRESHOLD_SPLIT)).any())


def smallest_type(largest: int, forced: str = "auto", what: str = "node references") -> str:
    """The narrowest unsigned C type holding ``largest`` (or ``forced``, checked).

    >>> smallest_type(255), smallest_type(256)
    ('uint8_t', 'uint16_t')
    """
    return _smallest_type(largest, forced, what)


# -- the model ------------------------------------------------------------------------------


def max_comparisons(tree_or_node: Any) -> int:
    """The most tests generated code makes on one path from the root to a leaf, the worst case
    its header states: one per split (a comparison with the threshold, or one lookup of the
    category's branch), and one more for each surrogate a split may try when its feature is
    missing. An ensemble's code runs every member: the sum of theirs.

    >>> from puretree.nodes import Leaf, NumericSplit
    >>> inner = NumericSplit(1, 2.0, Leaf((0, 1)), Leaf((1, 1)), (1, 2))
    >>> max_comparisons(NumericSplit(0, 0.5, Leaf((1, 0)), inner, (2, 2))), max_comparisons(Leaf((1, 0)))
    (2, 0)
    """
    root = getattr(tree_or_node, "root", tree_or_node)
    return fold(root, lambda node, kids: 1 + len(node.surrogates.splits if node.surrogates else ()) + max(kids) if kids else 0)


def lower(tree: Tree, target: str, options: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The render model of ``tree`` for ``target`` (see the module docs); nothing is mutated."""
    opts = check_options(target, options)
    language, ftype, name = opts["language"], opts["feature_type"], opts["name"]
    schema = tree.schema
    quant = None
    if opts["quantize"] is not None:
        if language != "c":
            raise CodegenError("quantization is for C targets (with feature type int8, int16 or int32)")
        used = read_features(tree)
        quant = quantizer_model(schema, opts["quantize"], ftype, used=used)
        offset, scale = quantization(schema, quant["ranges"], ftype, used=used)
        tree = quantized_tree(tree, offset, scale, ftype)
    if opts["certified"]:
        # The rewrites that keep every answer of this code (its readings, its outputs): on the
        # quantized tree, the grid is the quantized readings'. verify checks the original model.
        language_ftype = ftype if language == "c" else "double"
        tree = certified(tree, feature_type=language_ftype, proba=bool(opts["proba"]) or language != "c" or opts["leaf_type"] != "double")
    flat = flatten(tree)
    if flat.surrogated and language not in ("python", "c"):
        raise CodegenError(f"this tree routes missing values through surrogate splits (missing='surrogate'), which the python, c and c-table targets write; {target!r} does not")
    if flat.surrogated and opts["form"] not in ("auto", "table"):
        raise CodegenError(f"a tree with surrogate splits (missing='surrogate') is written in the table form, not {opts['form']!r}")
    if flat.sided and tree.missing != "majority":
        # The templates route a learned side through the "majority" paths (the heavy branch's
        # bit); under "error" or "distribute" a split without a side would need both at once.
        raise CodegenError(f"this tree's splits learned where missing values go, and its strategy for the other splits is {tree.missing!r}: "
                           "generated code holds learned sides with the 'majority' strategy only (attrs.evolve(tree, missing='majority'))")
    regression = schema.is_regression
    distribute = tree.missing == "distribute" and bool((flat.kind != LEAF).any())
    # uint8 leaves: each outcome's distribution in whole 255ths (puretree.codegen.leaves), its
    # class the first of the largest; outcomes are told apart by what the table holds.
    uint8_leaves = check_leaf_type(opts["leaf_type"], regression=regression, language=language, missing="distribute" if distribute else "majority") == "uint8"
    n = flat.n_nodes
    per_node = normalised_fractions(flat)
    internal = np.flatnonzero(flat.kind != LEAF)
    n_internal = len(internal)
    internal_index = {int(node): i for i, node in enumerate(internal)}

    # Outcomes: distinct answers of the nodes where a row can end. Python modules always
    # carry predict_proba; C may leave it out, and then outcomes differ by class only.
    if language == "python" or language in ARRAY_LANGUAGES:
        opts["proba"] = True
    keep_distribution = regression or opts["proba"] or distribute
    outcomes: list[dict[str, Any]] = []
    outcome_of: dict[int, int] = {}
    seen: dict[Any, int] = {}
    for node in range(n):
        # A row may stop at any split with surrogates (no test decides it, a tie for the fallback).
        if flat.kind[node] not in (LEAF, MULTIWAY_SPLIT, SUBSET_SPLIT) and not flat.surrogated:
            continue
        row = per_node[node]
        numerators = leaf_numerators(row.tolist()) if uint8_leaves else None
        cls = 0 if regression else int(np.argmax(row if numerators is None else numerators))
        key = (tuple(row.tolist()) if numerators is None else numerators) if keep_distribution else cls
        if key not in seen:
            seen[key] = len(outcomes)
            outcomes.append({
                "class_index": cls,
                "proba": ([_double(language, v) for v in row.tolist()] if numerators is None else [f"{q}u" for q in numerators]) if not regression else [],
                "value": _double(language, float(row[0])) if regression else "",
            })
        outcome_of[node] = seen[key]
    if not keep_distribution:
        # Outcomes are classes: numbered by class, an outcome is its class when every class
        # is one (the C code then needs no table from one to the other).
        order = sorted(range(len(outcomes)), key=lambda i: outcomes[i]["class_index"])
        new_index = {old: new for new, old in enumerate(order)}
        outcomes = [outcomes[i] for i in order]
        outcome_of = {node: new_index[i] for node, i in outcome_of.items()}
    outcome_is_class = not keep_distribution and [o["class_index"] for o in outcomes] == list(range(len(schema.classes)))

    def ref(node: int) -> int:
        return internal_index[node] if node in internal_index else n_internal + outcome_of[node]

    if language == "c" and schema.n_features == 0:
        # C99 has no arrays of size 0 (the feature names, the features argument).
        raise CodegenError("this model has no features; C code needs at least one (export it to Python, or retrain with a feature)")
    features, classes, long_strings = _names(schema, language, name)
    heavy_left = {}
    rows: dict[str, list[Any]] = {"feature": [], "threshold": [], "left": [], "right": [], "always": []}
    cat_table: list[int] = []
    spread_offset: list[int] = [0]
    spread_child: list[int] = []
    spread_fraction: list[Any] = []
    used_categorical = False
    goes_missing = _missing_children(flat)
    for node in internal.tolist():
        kind, j = int(flat.kind[node]), int(flat.feature[node])
        kids = flat.child_table[flat.child_offset[node]: flat.child_offset[node] + flat.n_children[node]].tolist()
        heavy = int(goes_missing[node])
        if kind == THRESHOLD_SPLIT:
            literal, always = _threshold(float(flat.threshold[node]), language, ftype)
            left, right = ref(int(flat.left[node])), ref(int(flat.right[node]))
            heavy_left[node] = heavy == int(flat.left[node])
        else:
            used_categorical = True
            literal, always = _threshold(0.0, language, ftype)
            m = int(flat.n_categories[node])
            entries = flat.table[flat.offset[node]: flat.offset[node] + m].tolist()  # child per code
            left, right = len(cat_table), ref(heavy)
            cat_table.extend(ref(e) for e in entries)
            cat_table.append(n_internal + outcome_of[node])  # where an unseen category ends
            heavy_left[node] = False
        code = (j << 1) | int(heavy_left[node]) if tree.missing == "majority" else j
        rows["feature"].append(code)
        rows["threshold"].append(literal)
        rows["always"].append(always)
        rows["left"].append(left)
        rows["right"].append(right)
        spread_child.extend(ref(k) for k in kids)
        spread_fraction.extend(_double(language, float(flat.fraction[k])) for k in kids)
        spread_offset.append(len(spread_child))

    routes = [_surrogate_routes(flat, node, language, ftype, ref, n_internal + outcome_of[node]) for node in internal.tolist()] if flat.surrogated else None
    if routes is not None and any(t[3] is not None for r in routes for t in r["tests"]):
        used_categorical = True  # a categorical surrogate reads category codes too
    largest_ref = max([n_internal + len(outcomes)] + rows["left"] + rows["right"] + cat_table + ([len(spread_child)] if distribute else []))
    index_type = _smallest_type(largest_ref, opts["index_type"], "node references")
    feature_code_type = _smallest_type(max(rows["feature"], default=0) + 1, "auto", "feature codes")
    class_type = _smallest_type(max(len(schema.classes), 1), "auto", "class indices")
    count_type = _smallest_type(max([len(f.categories) for f in schema.features] + [1]), "auto", "category counts")
    depth = int(flat.depth.max())
    width = int(np.bincount(flat.depth).max())

    if opts["form"] == "shared":
        raise CodegenError("the shared table (form shared) is for ensembles and boosted models, whose members share subtrees; a tree's smallest table is form compact")
    form = "table" if flat.surrogated else opts["form"]
    if form == "auto":
        shallow = depth <= PYTHON_NESTING_LIMIT and _if_nesting(flat, tree.missing) <= PYTHON_ELIF_LIMIT
        form = "table" if target == "c-table" else ("nested" if target != "python" or shallow else "table")
        if language in ARRAY_LANGUAGES and TARGET_LANGUAGES.get(target) == language:
            # Deep nesting is no limit of JavaScript's or Rust's, but of their parsers' stacks
            # and of Java's 64 KiB methods: past them the table form decides the same way.
            form = "nested" if shallow and (language != "java" or n_internal <= JAVA_NESTED_SPLITS) else "table"
    if form == "compact" and (language != "c" or used_categorical or distribute):
        why = "C code" if language != "c" else ("threshold splits only (this tree splits on a categorical feature)" if used_categorical else "missing values under \"majority\" or \"error\" (this tree distributes them)")
        raise CodegenError(f"the compact table holds {why}: use form table")
    if form == "nested" and language == "python" and depth > PYTHON_NESTING_LIMIT:
        raise CodegenError(f"this tree is {depth} levels deep; nested Python allows at most {PYTHON_NESTING_LIMIT} (use form='table')")
    if form == "nested" and language == "python" and (nesting := _if_nesting(flat, tree.missing)) > PYTHON_ELIF_LIMIT:
        raise CodegenError(f"this tree's if/elif statements nest {nesting} deep (a split on a categorical feature has many categories); nested Python allows at most {PYTHON_ELIF_LIMIT} (use form='table')")
    if form == "nested" and language == "c" and depth > C_NESTING_LIMIT:
        raise CodegenError(f"this tree is {depth} levels deep; nested C is limited to {C_NESTING_LIMIT} levels (C99 guarantees 127 nested blocks): use the c-table target")
    if form == "nested" and language == "c" and (nesting := _if_nesting(flat, tree.missing)) > C_ELIF_LIMIT:
        raise CodegenError(f"this tree's if/else-if statements nest {nesting} deep (a split on a categorical feature has many categories); nested C is limited to {C_ELIF_LIMIT}: use the c-table target")

    # Python and JavaScript numbers are doubles, whatever feature type was asked for.
    manifest = _manifest(target=target, name=name, form=form, feature_type=ftype if language == "c" else "double", index_type=index_type, proba=bool(opts["proba"]) and not regression, missing=tree.missing, task=schema.task, n_features=schema.n_features,
                         **({"quantize": quant["ranges"]} if quant else {}), **({"leaf_type": "uint8"} if uint8_leaves else {}))
    compact = _compact(flat, internal_index, outcome_of, rows, tree.missing, len(outcomes), opts["index_type"], _C_SIZES[lit.C_TYPES[ftype][0]]) if form == "compact" else None
    if compact is not None:
        index_type = compact["index_type"]
    ref_size = int(index_type[4:-2]) // 8
    stack_bytes = 32 + (2 * width * (ref_size + 8) + 8 * max(1, len(schema.classes)) if distribute else 0)
    ctype, int_range = lit.C_TYPES[ftype]
    return {
        "manifest": manifest,
        "name": name,
        "target": target,
        "language": language,
        "form": form,
        "task": schema.task,
        "regression": regression,
        # Without a split, no value is ever looked at: the strategy cannot matter.
        "missing": tree.missing if n_internal else "majority",
        "proba": bool(opts["proba"]) and not regression,
        "feature_type": ftype,
        "ctype": ctype,
        "quantize": quant,
        "leaf_type": opts["leaf_type"],
        "leaf_scale": LEAF_SCALE,
        "integer_features": int_range is not None,
        "missing_sentinel": lit.c_int(int_range[0], ctype) if int_range else "NAN",
        "int_max": lit.c_int(int_range[1], ctype) if int_range else "",
        "index_type": index_type,
        "feature_code_type": feature_code_type,
        "class_type": class_type,
        "count_type": count_type,
        "depth": depth,
        "width": width,
        "max_stack_bytes": stack_bytes,
        "max_comparisons": max_comparisons(tree),
        "n_features": schema.n_features,
        "features": features,
        "has_categorical": used_categorical,
        "classes": classes,
        "n_classes": len(schema.classes),
        "target_name": _string(language, schema.target),
        "long_strings": long_strings,
        "outcomes": outcomes,
        "table": {
            "n_internal": n_internal,
            "feature": rows["feature"],
            "threshold": rows["threshold"],
            "left": rows["left"],
            "right": rows["right"],
            "categories": cat_table,
            "spread_offset": spread_offset if distribute else [],
            "spread_child": spread_child if distribute else [],
            "spread_fraction": spread_fraction if distribute else [],
        },
        "compact": compact,
        "surrogates": routes,
        "sur": _surrogate_arrays(routes) if routes is not None else None,
        "outcome_is_class": outcome_is_class,
        "comparisons": depth if form != "nested" else _if_nesting(flat, tree.missing),
        "lines": _lines(flat, tree, internal_index, outcome_of, rows, features) if form == "nested" else [],
    }


def _surrogate_routes(flat: Any, node: int, language: str, ftype: str, ref: Any, stop: int) -> dict[str, Any]:
    """How a split with surrogates routes a row, for the table walk: its tests in order (its
    own first, then its surrogates), each ``[feature, threshold literal or None, flip, branch
    per category code or None]`` (-1: a code the test does not decide), the fallback branch
    (-1: the row stops, outcome ``stop``) and its two children's references."""
    split = flat.nodes[node]
    sur = split.surrogates
    features = flat.features

    def test(j: int, t: Any, flip: bool, known: Any) -> list[Any]:
        if features[j].is_numeric:
            return [j, _threshold(t.value, language, ftype)[0], flip, None]
        m = len(features[j].categories)
        decided = set(range(m) if known is None else known)
        return [j, None, False, [(int(c not in t.left_codes) ^ int(flip)) if c in decided else -1 for c in range(m)]]

    kids = flat.child_table[flat.child_offset[node]: flat.child_offset[node] + 2].tolist()
    tests = [test(split.feature, split.test, False, sur.known)] + [test(s.feature, s.test, s.flip, s.known) for s in sur.splits]
    return {"tests": tests, "fallback": -1 if sur.fallback is None else sur.fallback, "kids": [ref(k) for k in kids], "stop": stop}


def _surrogate_arrays(routes: list[dict[str, Any]]) -> dict[str, list[Any]]:
    """The routes as flat arrays for C: node i's tests are ``start[i]`` to ``start[i + 1]``;
    a categorical test's branches are ``codes[table[k]:]`` (``table[k]`` -1: a threshold)."""
    out: dict[str, list[Any]] = {"start": [0], "feature": [], "threshold": [], "flip": [], "table": [], "codes": [], "fallback": [], "kids": [], "stop": []}
    for r in routes:
        for j, threshold, flip, table in r["tests"]:
            out["feature"].append(j)
            out["threshold"].append(threshold if threshold is not None else "0")
            out["flip"].append(int(flip))
            out["table"].append(-1 if table is None else len(out["codes"]))
            out["codes"].extend(table or [])
        out["start"].append(len(out["feature"]))
        out["fallback"].append(r["fallback"])
        out["kids"].extend(r["kids"])
        out["stop"].append(r["stop"] - len(routes))
    out["codes"] = out["codes"] or [-1]  # C99 has no arrays of size 0
    return out


#: Flag bits of a compact node's code, below the feature index.
COMPACT_LEFT_LEAF, COMPACT_RIGHT_LEAF, COMPACT_HEAVY_LEFT = 4, 2, 1


def _compact(flat: Any, internal_index: dict[int, int], outcome_of: dict[int, int], rows: dict[str, list], missing: str, n_outcomes: int, forced: str, threshold_size: int) -> dict[str, Any]:
    """The compact table: internal nodes in pre-order, one code, one threshold and one
    reference each. A left child that is an internal node is the next node (pre-order), so
    it is never stored; leaves are folded into the references. The code is
    ``feature << 3 | left_is_leaf << 2 | right_is_leaf << 1 | heavy_left`` and the reference:

    - neither child a leaf: the right child's node index;
    - leaves: ``left_outcome << bits | right_outcome``, the outcome of a child that is not a
      leaf taken as 0 (only the left child a leaf: the right child is the next node, and
      the other way round).

    A leaf's outcome is at the same place whether its sibling is a leaf or not, so the walk
    reads it with one shift or one mask, without looking at the other flag (12 bytes less
    code on a Cortex-M4 at ``-Os`` than when a lone leaf's outcome was the whole reference).
    """
    bits = max(1, (n_outcomes - 1).bit_length())
    goes_missing = _missing_children(flat)
    codes, refs = [], []
    for node, i in internal_index.items():
        j = int(flat.feature[node])
        left, right = int(flat.left[node]), int(flat.right[node])
        left_leaf, right_leaf = left not in internal_index, right not in internal_index
        heavy_left = missing == "majority" and int(goes_missing[node]) == left
        codes.append(j << 3 | COMPACT_LEFT_LEAF * left_leaf | COMPACT_RIGHT_LEAF * right_leaf | COMPACT_HEAVY_LEFT * heavy_left)
        if left_leaf or right_leaf:
            refs.append((outcome_of[left] << bits if left_leaf else 0) | (outcome_of[right] if right_leaf else 0))
        else:
            refs.append(internal_index[right])
    code_type = _smallest_type(max(codes, default=0), "auto", "feature codes")
    index_type = _smallest_type(max(refs, default=0), forced, "node references")
    # One array of structs where no padding is needed (an int16 threshold with a byte each of
    # code and reference): one base address instead of three, less code.
    packed = (threshold_size + _C_SIZES[code_type] + _C_SIZES[index_type]) % threshold_size == 0
    return {
        "code": codes,
        "ref": refs,
        "threshold": rows["threshold"],
        "bits": bits,
        "mask": (1 << bits) - 1,
        "code_type": code_type,
        "index_type": index_type,
        "packed": packed,
    }


#: The first line of every generated file carries ``puretree-export:`` and this JSON object:
#: how the file was generated, so that ``verify --code`` needs nothing but the folder.
MANIFEST_MARK = "puretree-export:"


def _manifest(**fields: Any) -> str:
    """The export manifest as one line of JSON (only names, numbers and fixed words: it cannot
    end a comment or hold anything from the model's labels)."""
    return json.dumps({"format": "puretree-export", "version": 1, **fields, "puretree": __version__}, sort_keys=True, separators=(", ", ": "))


#: C99 (5.2.4.1) promises string literals of 4095 characters and objects of 65535 bytes.
C_STRING_LIMIT = 4095
C_OBJECT_LIMIT = 65535


def _c_names(name: str) -> tuple[Any, list[dict[str, Any]]]:
    """A literal maker for C names, and the char arrays it needed: a name of up to
    :data:`C_STRING_LIMIT` bytes is a string literal; a longer one becomes a static
    ``unsigned char`` array (no length limit applies to those, up to the object limit)
    referenced through a cast."""
    arrays: list[dict[str, Any]] = []

    def literal(text: str, what: str) -> str:
        data = str(text).encode("utf-8", "surrogatepass")
        if len(data) <= C_STRING_LIMIT:
            return lit.c_string(text)
        if len(data) + 1 > C_OBJECT_LIMIT:
            raise CodegenError(f"{what} is {len(data)} bytes long; C99 promises objects of at most {C_OBJECT_LIMIT} bytes, so no portable C can hold it")
        ident = f"{name}_long_name_{len(arrays)}"
        arrays.append({"ident": ident, "size": len(data) + 1, "chars": [f"{b}u" for b in data] + ["0u"]})
        return f"(const char *){ident}"

    return literal, arrays


def _if_nesting(flat: Any, missing: str) -> int:
    """How deep the nested form's ``if``/``elif`` statements nest: a branch's test is the k-th
    ``elif`` of its split (k from 0), nested k deeper than the split's ``if``."""
    first = 0 if missing == "majority" else 1  # the missing-value test comes first
    nesting = np.zeros(flat.n_nodes, dtype=np.int64)
    for node in range(flat.n_nodes):  # pre-order: a parent before its children
        kids = flat.child_table[flat.child_offset[node]: flat.child_offset[node] + flat.n_children[node]]
        if flat.kind[node] == THRESHOLD_SPLIT:
            # if x <= t: left, else: right (an else is not a nested if)
            nesting[kids] = nesting[node] + 1 + first
        elif len(kids):
            # categories are tested in code order (multiway) or left then known (subset)
            nesting[kids] = nesting[node] + 1 + first + np.arange(len(kids))
    return int(nesting.max())


def _names(schema: Any, language: str, name: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], list[dict[str, Any]]]:
    """Features and classes with their literals and their (globally distinct) C constants,
    and the char arrays that hold names too long for a C string literal."""
    if language == "c":
        c_literal, long_strings = _c_names(name)
    else:
        long_strings = []

    def text_literal(text: str, what: str) -> str:
        return c_literal(text, what) if language == "c" else _string(language, text)

    big = name.upper()
    reserved = {f"{big}_N_FEATURES", f"{big}_N_CLASSES", f"{big}_MISSING", f"{big}_H_INCLUDED", f"{big}_MAX_STACK_BYTES"}
    # Each part at most 24 characters: C99 promises 63 significant characters (5.2.4.1).
    def part(text: Any) -> str:
        return lit.word(str(text))[:24].strip("_").upper() or "X"

    feature_words = [f"{big}_F_{part(f.name)}" for f in schema.features]
    category_words = [[f"{big}_{part(f.name)}_{part(_label_text(c))}" for c in f.categories] for f in schema.features]
    class_words = [f"{big}_CLASS_{part(_label_text(c))}" for c in schema.classes]
    flat_words = feature_words + [w for ws in category_words for w in ws] + class_words
    idents = iter(lit.unique(flat_words, reserved=reserved))
    feature_idents = [next(idents) for _ in feature_words]
    category_idents = [[next(idents) for _ in ws] for ws in category_words]
    class_idents = [next(idents) for _ in class_words]
    features = [
        {
            "index": j,
            "name": text_literal(feature.name, f"the name of feature {j}"),
            "ident": feature_idents[j],
            "categorical": not feature.is_numeric,
            "n_categories": len(feature.categories),
            "categories": [
                {"code": c, "value": _value_literal(language, v), "name": text_literal(_label_text(v), f"category {c} of feature {j}"), "ident": category_idents[j][c]}
                for c, v in enumerate(feature.categories)
            ],
        }
        for j, feature in enumerate(schema.features)
    ]
    classes = [
        {"index": k, "value": _value_literal(language, c), "name": text_literal(_label_text(c), f"class label {k}"), "ident": class_idents[k]}
        for k, c in enumerate(schema.classes)
    ]
    return features, classes, long_strings


def _lines(flat: Any, tree: Tree, internal_index: dict[int, int], outcome_of: dict[int, int], rows: dict[str, list], features: list) -> list[dict[str, Any]]:
    """The nested if/else form as indented statements, in one pass of the kit's enter/leave
    events (:func:`puretree.fold.events`): a split's first lines go with its enter event, the
    test that leads to each child with that child's enter event, and its closing lines with
    its leave event.

    Under "majority" the heavy branch's test also admits a missing value; under "error" and
    "distribute" a first test catches the missing value and the split's tests follow as ``elif``.
    """
    missing = tree.missing
    majority = missing == "majority"
    first = "if" if majority else "elif"  # the op of a split's first branch test
    out: list[dict[str, Any]] = []
    # The flat arrays as lists: read once per node, a list is faster to index than an array.
    kinds, feature_of, heavy_of, left_of, right_of = (a.tolist() for a in (flat.kind, flat.feature, _missing_children(flat), flat.left, flat.right))
    child_table, child_offset, n_children = flat.child_table.tolist(), flat.child_offset.tolist(), flat.n_children.tolist()

    # Each node is handed (its pre-order id, its depth, its parent's id, its branch index):
    # ids index the flat arrays, as the flattened tree numbers its nodes in the same order.
    def down(node: Any, value: tuple[int, int, int, int]) -> list[tuple[int, int, int, int]]:
        me, d = value[0], value[1]
        start = child_offset[me]
        return [(c, d + 1, me, b) for b, c in enumerate(child_table[start: start + n_children[me]])]

    def branch_test(parent: int, b: int, child: int, d: int) -> dict[str, Any]:
        """The statement that leads to branch ``b`` of split ``parent``, node ``child`` (at depth ``d``)."""
        kind = kinds[parent]
        i = internal_index[parent]
        j = feature_of[parent]
        heavy = heavy_of[parent]
        op = first if b == 0 else "elif"
        if kind == THRESHOLD_SPLIT:
            left = left_of[parent]
            if b == 1:
                return {"depth": d, "op": "else"}
            test = {"kind": "le", "feature": j, "threshold": rows["threshold"][i], "always": rows["always"][i],
                    "or_missing": majority and heavy == left, "and_present": majority and heavy != left}
            return {"depth": d, "op": op, "test": test}
        m = int(flat.n_categories[parent])
        if kind == MULTIWAY_SPLIT:  # branch b is category code b
            return {"depth": d, "op": op, "test": {"kind": "codes", "feature": j, "codes": [b], "or_missing": majority and heavy == child, "n": m}}
        left, right = left_of[parent], right_of[parent]
        if b == 0:
            entries = flat.table[flat.offset[parent]: flat.offset[parent] + m].tolist()
            codes = [c for c, e in enumerate(entries) if e == left]
            return {"depth": d, "op": op, "test": {"kind": "codes", "feature": j, "codes": codes, "or_missing": majority and heavy == left, "n": m}}
        return {"depth": d, "op": "elif", "test": {"kind": "known", "feature": j, "n": m, "or_missing": majority and heavy == right}}

    for what, _, (me, d, parent, b) in events(tree.root, down=down, start=(0, 0, -1, 0)):
        kind = kinds[me]
        if what == ENTER:
            if parent >= 0:
                out.append(branch_test(parent, b, me, d - 1))
            if kind == LEAF:
                out.append({"depth": d, "op": "result", "outcome": outcome_of[me]})
            elif not majority:
                out.append({"depth": d, "op": "if", "test": {"kind": "missing", "feature": feature_of[me]}})
                out.append({"depth": d + 1, **({"op": "error", "feature": feature_of[me]} if missing == "error" else {"op": "spread", "node": internal_index[me]})})
        elif kind != LEAF:
            if kind != THRESHOLD_SPLIT:  # a category no branch takes: the split's own answer
                out += [{"depth": d, "op": "else"}, {"depth": d + 1, "op": "result", "outcome": outcome_of[me]}]
            out.append({"depth": d, "op": "end"})
    return out


_C_SIZES = {"uint8_t": 1, "uint16_t": 2, "uint32_t": 4, "int8_t": 1, "int16_t": 2, "int32_t": 4, "float": 4, "double": 8}


def resources(model: Mapping[str, Any]) -> dict[str, Any]:
    """What the generated C needs, computed from the render model's tables: ``tables`` (bytes
    of flash per ``static const`` array the predict functions read), ``names`` (the name
    tables' pointers, which a linker drops when nothing reads them; the strings come on top),
    ``stack`` (bytes of locals, :data:`NAME_MAX_STACK_BYTES`), ``static_ram`` (0: nothing is
    written but the caller's arrays) and ``comparisons`` (the most split tests one prediction
    makes). The code itself is not counted: ``bench/bench_codegen.py`` measures it.

    >>> from puretree.datasets import load_playtennis
    >>> from puretree.grow import id3
    >>> r = resources(lower(id3(load_playtennis()), "c-table", {"name": "tennis", "proba": False}))
    >>> r["tables"], r["comparisons"], r["static_ram"]
    ({'feature_code': 3, 'threshold': 24, 'left': 3, 'right': 3, 'category_child': 10, 'n_categories': 4}, 2, 0)
    """
    size = _C_SIZES
    ni = model["table"]["n_internal"]
    t = model["table"]
    ftype = size[model["ctype"]]
    tables: dict[str, int] = {}
    if ni and model["form"] == "compact" and model["compact"]["packed"]:
        tables["nodes"] = ni * (ftype + size[model["compact"]["code_type"]] + size[model["compact"]["index_type"]])
    elif ni and model["form"] == "compact":
        c = model["compact"]
        tables.update(code=ni * size[c["code_type"]], threshold=ni * ftype, ref=ni * size[c["index_type"]])
    elif ni and model.get("sur"):
        sur = model["sur"]
        tables.update(sur_start=4 * len(sur["start"]), sur_feature=4 * len(sur["feature"]), sur_threshold=ftype * len(sur["threshold"]), sur_flip=4 * len(sur["flip"]),
                      sur_table=4 * len(sur["table"]), sur_fallback=4 * ni, sur_kids=8 * ni, sur_stop=4 * ni)
        if model["has_categorical"]:
            tables.update(sur_codes=4 * len(sur["codes"]), n_categories=model["n_features"] * size[model["count_type"]])
    elif ni and (model["form"] == "table" or model["missing"] == "distribute"):
        tables.update(feature_code=ni * size[model["feature_code_type"]], threshold=ni * ftype, left=ni * size[model["index_type"]], right=ni * size[model["index_type"]])
        if t["categories"]:
            tables["category_child"] = len(t["categories"]) * size[model["index_type"]]
        if model["has_categorical"]:
            tables["n_categories"] = model["n_features"] * size[model["count_type"]]
    if model["missing"] == "distribute":
        ref = size[model["index_type"]]
        tables.update(spread_offset=len(t["spread_offset"]) * ref, spread_child=len(t["spread_child"]) * ref, spread_fraction=len(t["spread_fraction"]) * 8)
    n_out = len(model["outcomes"])
    if model["regression"]:
        tables["outcome_value"] = n_out * 8
    else:
        if not model["outcome_is_class"]:
            tables["outcome_class"] = n_out * size[model["class_type"]]
        if model["proba"] or model["missing"] == "distribute":
            tables["outcome_proba"] = n_out * model["n_classes"] * (1 if model.get("leaf_type") == "uint8" else 8)
    if model["quantize"]:
        q = model["quantize"]
        tables.update(quantized=len(q["features"]) * size[q["feature_type"]], offset_scale=len(q["features"]) * 8)
    pointer = 4  # on a 32-bit microcontroller
    names = (model["n_features"] + (0 if model["regression"] else model["n_classes"]) + sum(f["n_categories"] for f in model["features"])) * pointer
    return {
        "tables": tables,
        "flash_tables": sum(tables.values()),
        "names": names,
        "stack": model["max_stack_bytes"],
        "static_ram": 0,
        "comparisons": model["comparisons"],
        "depth": model["depth"],
    }
