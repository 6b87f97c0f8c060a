"""Saving and loading trees as JSON: a documented, versioned, validated format.

The format (``"format": "puretree-tree", "version": 3``) is flat so that trees of any
depth load and save without recursion::

    {
      "format": "puretree-tree",
      "version": 3,
      "threshold_convention": "x <= threshold goes to children[0]",
      "missing": "distribute",
      "criterion": "entropy",
      "schema": {
        "target": "play", "task": "classification", "classes": ["no", "yes"],
        "features": [{"name": "outlook", "kind": "categorical", "categories": ["overcast", "rain", "sunny"]},
                     {"name": "temp", "kind": "numeric"}]
      },
      "nodes": [
        {"kind": "multiway", "feature": 0, "children": [1, 2, 3], "stats": [5, 9]},
        {"kind": "leaf", "stats": [0, 4]},
        ...
      ]
    }

``nodes`` lists every node in pre-order; node 0 is the root and each child index is
greater than its parent's. Node kinds: ``leaf`` (``stats``) and the split kinds of
:data:`SPLIT_FORMATS`, named as their test classes name themselves: ``threshold``
(``feature``, ``threshold``, two ``children``: ``x <= threshold`` goes to the first),
``multiway`` (``feature``, one child per category, in the schema's category order) and
``subset`` (``feature``, ``left_categories``: category codes that go to the first of two
children; in version 4, ``missing_branch``: 0 or 1, the child a missing value goes to, learned
from the data, absent or null where the tree's strategy decides; ``"threshold": "inf"`` with
``"missing_branch": 1`` is the split that sends the missing values alone right). A tree
with no ``missing_branch`` is written as version 3, as before version 4. In version 5, a
two-branch split may carry ``surrogates`` (rpart's, ``missing="surrogate"``): ``{"splits":
[{"feature", "kind": "threshold" or "subset", "threshold" or "left_categories", "flip",
"known"?}, ...], "fallback": 0, 1 or null, "known"?}`` (:class:`~puretree.nodes.Surrogates`); a
tree without them is written as an older version. In version 6, the model may hold
``histograms``: what the training rows say at each node, drawn by the pictures
(:func:`puretree.distributions.with_histograms`, laid out by
:func:`puretree.distributions.histograms_to_dict`, with a ``version`` of its own); a tree
without them is written as an older version. ``missing`` is the tree's missing-value strategy (``majority``, ``distribute`` or
``error``; ``majority`` when absent); ``criterion`` the impurity the tree was grown with
(absent or null when unknown). Version 1 files (written before version 2 named the kinds
after their tests) are read too: there ``numeric`` is ``threshold`` and ``categorical`` is
``multiway``, and there is no criterion. Every node has ``stats``: the weighted class counts
in the order of ``classes`` (for regression: weight, sum, sum of squares); versions 1 and 2
called them ``counts``, whatever the task. Floats are written in Python's shortest round-trip form, so
thresholds survive a save/load exactly. Loading checks everything and raises
:class:`~puretree.errors.ModelFormatError` naming the node and field at fault.

>>> from puretree.datasets import load_playtennis
>>> from puretree.grow import id3
>>> tree = id3(load_playtennis())
>>> from_json(to_json(tree)) == tree
True
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from typing import Any

import attrs

from .. import boosted, ensemble
from ..data import category_key
from ..distributions import histograms_from_dict, histograms_to_dict
from ..errors import ModelFormatError, digits, shown
from ..files import write_text
from ..fold import LEAVE, events
from ..growth.assemble import assemble
from ..nodes import CATEGORICAL, CLASSIFICATION, MISSING_STRATEGIES, NUMERIC, REGRESSION, Feature, Leaf, Multiway, Node, Schema, Split, Subset, Surrogate, Surrogates, Threshold
from ..tree import Tree

__all__ = ["FORMAT", "VERSION", "READS", "SplitFormat", "SPLIT_FORMATS", "to_dict", "from_dict", "to_json", "from_json", "save", "load"]

FORMAT = "puretree-tree"
#: The newest version this puretree writes. A tree without a learned missing-value side
#: is written as version 3 (the same file as before version 4), so older readers keep reading it.
VERSION = 6
#: The versions it reads: 1 named the split kinds ``numeric``, ``categorical``, ``subset``
#: and had no ``criterion``; 1 and 2 named every node's statistics ``counts``; 4 added a
#: threshold split's ``missing_branch``; 5 a split's ``surrogates``; 6 the tree's ``histograms``.
READS = (1, 2, 3, 4, 5, 6)

#: The field holding a node's statistics, by version.
_STATS_FIELD = {1: "counts", 2: "counts", 3: "stats", 4: "stats", 5: "stats", 6: "stats"}
#: The first version whose threshold splits may carry ``missing_branch``.
_SIDES = 4
#: The first version whose splits may carry ``surrogates``.
_SURROGATES = 5
#: The first version whose model may carry ``histograms``.
_HISTOGRAMS = 6


def _schema_dict(schema: Schema) -> dict[str, Any]:
    features = []
    for f in schema.features:
        entry: dict[str, Any] = {"name": f.name, "kind": f.kind}
        if f.kind == CATEGORICAL:
            entry["categories"] = list(f.categories)
        features.append(entry)
    return {"target": schema.target, "task": schema.task, "classes": list(schema.classes), "features": features}


def _node_dict(node: Node, kids: list[int]) -> dict[str, Any]:
    stats = list(node.stats)
    if not isinstance(node, Split):
        return {"kind": "leaf", "stats": stats}
    test = node.test
    entry = {"kind": test.kind, "feature": node.feature, **SPLIT_FORMATS[test.kind].write(test), "children": kids, "stats": stats}
    if node.surrogates is not None:
        entry["surrogates"] = _surrogates_dict(node.surrogates)
    return entry


def _surrogates_dict(sur: Surrogates) -> dict[str, Any]:
    splits = []
    for s in sur.splits:
        one = {"feature": s.feature, "kind": s.test.kind, **SPLIT_FORMATS[s.test.kind].write(s.test), "flip": s.flip}
        if s.known is not None:
            one["known"] = list(s.known)
        splits.append(one)
    out: dict[str, Any] = {"splits": splits, "fallback": sur.fallback}
    if sur.known is not None:
        out["known"] = list(sur.known)
    return out


def _codes(value: Any, feature: Feature, where: str) -> list[int]:
    if not isinstance(value, list):
        raise _fail(where, f"known must be a list of category codes, got {shown(value)}")
    m = len(feature.categories)
    for c in value:
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < m:
            raise _fail(where, f"category code {shown(c)} is out of range (0..{m - 1})")
    return value


def _read_surrogates(value: Any, schema: Schema, feature: int, where: str) -> Surrogates:
    where = f"{where}.surrogates"
    entries = _require(value, "splits", list, where)
    fallback = value.get("fallback")
    if fallback is not None and (isinstance(fallback, bool) or fallback not in (0, 1)):
        raise _fail(where, f"fallback must be 0 (the first child), 1 (the second) or null, got {shown(fallback)}")
    splits = []
    for k, entry in enumerate(entries):
        at = f"{where}.splits[{k}]"
        kind = _require(entry, "kind", str, at)
        if kind not in ("threshold", "subset"):
            raise _fail(at, f"a surrogate is a threshold or subset test, got kind {kind!r}")
        fmt = SPLIT_FORMATS[kind]
        j = _feature(entry, schema, fmt.test.feature_kind, at)
        if j == feature:
            raise _fail(at, f"a surrogate of a split on feature {j} is on that feature too")
        test = fmt.read(entry, schema.features[j], 2, at)
        if getattr(test, "missing_branch", None) is not None:
            raise _fail(at, "a surrogate has no missing_branch")
        flip = entry.get("flip", False)
        if not isinstance(flip, bool):
            raise _fail(at, f"flip must be true or false, got {shown(flip)}")
        known = entry.get("known")
        if known is not None and kind != "subset":
            raise _fail(at, "known (the codes a surrogate decides) belongs to a subset surrogate")
        splits.append(Surrogate(j, test, flip=flip, known=None if known is None else _codes(known, schema.features[j], at)))
    known = value.get("known")
    if known is not None:
        if schema.features[feature].is_numeric:
            raise _fail(where, "known (the codes the split's test decides) belongs to a subset split")
        known = _codes(known, schema.features[feature], where)
    return Surrogates(tuple(splits), fallback, known)


def to_dict(tree: Tree) -> dict[str, Any]:
    """The JSON-ready dictionary of a tree (see the module docs for the format), or of an
    ensemble (format ``puretree-ensemble``: :func:`puretree.ensemble.to_dict`)."""
    if not isinstance(tree, Tree):
        if isinstance(tree, ensemble.Ensemble):
            return ensemble.to_dict(tree, to_dict)
        if isinstance(tree, boosted.Boosted):
            return boosted.to_dict(tree, to_dict, _schema_dict)
    # Ids are pre-order: a node's is the number of nodes entered before it. The splits entered
    # and not yet left are the path to the current node: the last of them is its parent.
    order: list[Node] = []
    kids: list[list[int]] = []
    path: list[int] = []
    for what, node, _ in events(tree.root):
        if what == LEAVE:
            path.pop()
            continue
        me = len(order)
        if path:
            kids[path[-1]].append(me)
        order.append(node)
        kids.append([])
        path.append(me)
    sided = any(getattr(node.test, "missing_branch", None) is not None for node in order if isinstance(node, Split))
    surrogated = any(node.surrogates is not None for node in order if isinstance(node, Split))
    out = {
        "format": FORMAT,
        "version": _HISTOGRAMS if tree.histograms is not None else _SURROGATES if surrogated else _SIDES if sided else 3,
        "threshold_convention": "x <= threshold goes to children[0]",
        "missing": tree.missing,
        "criterion": tree.criterion,
        "schema": _schema_dict(tree.schema),
        "nodes": [_node_dict(node, kids[i]) for i, node in enumerate(order)],
    }
    if tree.histograms is not None:  # only when the fit was asked to keep them
        out["histograms"] = histograms_to_dict(tree.histograms)
    return out


def to_json(tree: Tree, *, indent: int | None = None) -> str:
    """The tree as JSON text."""
    return json.dumps(to_dict(tree), indent=indent, allow_nan=False, ensure_ascii=False)


def save(tree: Tree, path: str | os.PathLike[str]) -> None:
    """Write the tree to ``path`` as JSON, atomically.

    The JSON goes to a temporary file next to ``path`` that is flushed, fsynced and renamed
    over it (:func:`puretree.files.write_text`): a crash, a kill or a concurrent save leaves
    the old model or a complete new one, never a truncated file.
    """
    write_text(path, to_json(tree, indent=1) + "\n")


# -- loading and validation --------------------------------------------------------------


#: The largest integer a model may hold: every integer up to 2**53 is exactly a double, so
#: a count, threshold or label means the same in every reader (JSON parsers in other
#: languages, the generated code) as it does here.
MAX_EXACT_INT = 2**53

#: A subset split costs one table entry per category of its feature when predicting (and one
#: name per category in ``rules``), so the total over all subset splits is capped: beyond it a
#: small file could need gigabytes. Trees learned from data stay far below.
MAX_SUBSET_ENTRIES = 2**22


def _fail(where: str, message: str) -> ModelFormatError:
    return ModelFormatError(f"{where}: {message}")


def _text(value: str, where: str) -> str:
    """A string that can be written out: a lone surrogate (from a ``\\udc80`` escape) cannot
    be encoded as UTF-8, so it would fail later in ``show``, ``export`` or ``predict -o``."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        raise _fail(where, f"{value!r} is not valid Unicode text (it holds a lone surrogate)") from None
    return value


def _exact_int(value: int, where: str, what: str) -> int:
    if abs(value) > MAX_EXACT_INT:
        number = str(value) if abs(value) < 10**30 else f"of {digits(value)} digits"  # str() refuses 4,300+ digits
        raise _fail(where, f"{what} {number} is beyond 2**53, the largest integer a double holds exactly")
    return value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _require(obj: Any, key: str, kind: type | tuple[type, ...], where: str) -> Any:
    if not isinstance(obj, dict):
        raise _fail(where, f"expected an object, got {type(obj).__name__}")
    if key not in obj:
        raise _fail(where, f"missing field {key!r}")
    value = obj[key]
    if not isinstance(value, kind) or (kind in (int, float, (int, float)) and isinstance(value, bool)):
        names = kind.__name__ if isinstance(kind, type) else " or ".join(k.__name__ for k in kind)
        raise _fail(where, f"field {key!r} must be {names}, got {shown(value)}")
    if isinstance(value, int) and not isinstance(value, bool):
        _exact_int(value, where, f"field {key!r}: the integer")
    if isinstance(value, str):
        _text(value, f"{where}.{key}")
    return value


def _scalar_label(value: Any, where: str) -> Any:
    if isinstance(value, str):
        return _text(value, where)
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return _exact_int(value, where, "integer label")
    if isinstance(value, float) and math.isfinite(value):
        return value
    raise _fail(where, f"{shown(value)} is not a string, integer, boolean or finite number")


def _distinct(values: list[Any], where: str) -> None:
    """Refuse labels or categories that the cell rules (:func:`~puretree.data.category_key`)
    make one value: a repeat, two spellings of one value (``1`` and ``1.0``, ``1`` and
    ``"1"``, ``true`` and ``"True"``), or booleans mixed with numbers, which the data encoders
    refuse too (``True == 1`` in Python: generated code and dictionaries would take a row's
    ``True`` down the branch of ``1``).

    >>> _distinct(["a", "b"], "schema.classes")
    >>> _distinct([True, 1], "schema.classes")
    Traceback (most recent call last):
    ...
    puretree.errors.ModelFormatError: schema.classes: mixes booleans and numbers (entry 0 is True, entry 1 is 1): True == 1 in Python, so they would be one value; a model holds all booleans or all numbers
    """
    first: dict[tuple[str, Any], int] = {}
    kinds: dict[str, int] = {}
    for i, v in enumerate(values):
        key = category_key(v)
        j = first.setdefault(key, i)
        if j != i:
            if type(values[j]) is type(v) and values[j] == v:
                raise _fail(where, f"duplicate value {shown(v)} (entries {j} and {i})")
            raise _fail(where, f"entries {j} and {i} ({shown(values[j])} and {shown(v)}) are one value under puretree's cell rules, so a cell could not choose between them; write it once")
        kinds.setdefault(key[0], i)
    if "bool" in kinds and "number" in kinds:
        b, n = kinds["bool"], kinds["number"]
        raise _fail(where, f"mixes booleans and numbers (entry {b} is {shown(values[b])}, entry {n} is {shown(values[n])}): True == 1 in Python, so they would be one value; a model holds all booleans or all numbers")


def _unique(values: list[Any], where: str) -> None:
    seen: set[tuple[str, Any]] = set()
    for v in values:
        key = (type(v).__name__, v)
        if key in seen:
            raise _fail(where, f"duplicate value {v!r}")
        seen.add(key)


def _parse_schema(obj: Any) -> Schema:
    task = _require(obj, "task", str, "schema")
    if task not in (CLASSIFICATION, REGRESSION):
        raise _fail("schema", f"unknown task {task!r}")
    target = _require(obj, "target", str, "schema")
    classes = [_scalar_label(c, "schema.classes") for c in _require(obj, "classes", list, "schema")]
    _distinct(classes, "schema.classes")
    if task == CLASSIFICATION and not classes:
        raise _fail("schema.classes", "a classification tree needs at least one class")
    if task == REGRESSION and classes:
        raise _fail("schema.classes", "a regression tree has no classes")
    features = []
    for j, f in enumerate(_require(obj, "features", list, "schema")):
        where = f"schema.features[{j}]"
        name = _require(f, "name", str, where)
        kind = _require(f, "kind", str, where)
        if kind == NUMERIC:
            features.append(Feature(name, NUMERIC))
        elif kind == CATEGORICAL:
            cats = [_scalar_label(c, where + ".categories") for c in _require(f, "categories", list, where)]
            _distinct(cats, where + ".categories")
            features.append(Feature(name, CATEGORICAL, tuple(cats)))
        else:
            raise _fail(where, f"unknown kind {kind!r}")
    _unique([f.name for f in features], "schema.features (names)")
    return Schema(tuple(features), tuple(classes), target=target, task=task)


def _stats(entry: dict[str, Any], field: str, width: int, regression: bool, where: str) -> tuple[float, ...]:
    values = _require(entry, field, list, where)
    if len(values) != width:
        raise _fail(where, f"{field} has {len(values)} entries, expected {width}")
    for v in values:
        if not _is_number(v):
            raise _fail(where, f"{field} entry {v!r} is not a finite number")
        if isinstance(v, int):
            _exact_int(v, where, f"{field} entry")  # before isfinite, which overflows on huge ints
        elif not math.isfinite(v):
            raise _fail(where, f"{field} entry {v!r} is not a finite number")
    stats = tuple(float(v) for v in values)
    if not regression:
        if any(v < 0 for v in stats):
            raise _fail(where, f"{field} (class counts) must not be negative")
        # Prediction divides by the total: it must be a finite number.
        if not math.isfinite(sum(stats)):
            raise _fail(where, f"the class counts ({field}) add up to more than a double holds")
        return stats
    w, s, _ = stats
    if w < 0:
        raise _fail(where, f"the weight ({field}[0]) must not be negative")
    # The prediction is the mean sum / weight; pruning uses sum**2 / weight.
    if w > 0 and not (math.isfinite(s / w) and math.isfinite(s * (s / w))):
        raise _fail(where, f"the mean ({field}[1] / {field}[0] = {s!r} / {w!r}) overflows a double")
    return stats


def _weight(counts: tuple[float, ...], regression: bool) -> float:
    return counts[0] if regression else sum(counts)


def _feature(entry: dict[str, Any], schema: Schema, kind: str, where: str) -> int:
    j = _require(entry, "feature", int, where)
    if not 0 <= j < schema.n_features:
        raise _fail(where, f"feature index {j} is out of range (0..{schema.n_features - 1})")
    if schema.features[j].kind != kind:
        raise _fail(where, f"a {entry['kind']} split needs a {kind} feature, {schema.features[j].name!r} is {schema.features[j].kind}")
    return j


# -- the registry of split kinds ---------------------------------------------------------


@attrs.frozen
class SplitFormat:
    """How one kind of split test is written to JSON and read back.

    ``write(test)`` gives the entry's fields for the test; ``read(entry, feature, n_children,
    where)`` gives the test back, validated (it raises :class:`ModelFormatError` naming
    ``where``); ``table_entries(feature)`` is how many table entries prediction spends on
    one such split (capped in total by :data:`MAX_SUBSET_ENTRIES`).
    """

    test: Any  # the test's class
    write: Callable[[Any], dict[str, Any]]
    read: Callable[[dict[str, Any], Feature, int, str], Any]
    table_entries: Callable[[Feature], int] = lambda feature: 0


def _write_threshold(test: Threshold) -> dict[str, Any]:
    if test.missing_branch is None:
        return {"threshold": test.value}
    # JSON has no infinity: the split that sends the missing values alone right says "inf".
    return {"threshold": "inf" if test.value == math.inf else test.value, "missing_branch": test.missing_branch}


def _read_threshold(entry: dict[str, Any], feature: Feature, n_children: int, where: str) -> Threshold:
    side = entry.get("missing_branch")
    if side is not None and (isinstance(side, bool) or side not in (0, 1)):
        raise _fail(where, f"missing_branch must be 0 (the first child), 1 (the second) or null, got {shown(side)}")
    if entry.get("threshold") == "inf":
        if side != 1:
            raise _fail(where, "threshold 'inf' (every known value goes to the first child) needs missing_branch 1: the missing values alone go to the second")
        return Threshold(math.inf, missing_branch=1)
    t = _require(entry, "threshold", (int, float), where)  # an int beyond 2**53 is refused there
    if not math.isfinite(t):
        raise _fail(where, f"threshold {t!r} is not finite")
    return Threshold(float(t), missing_branch=side)


def _read_subset(entry: dict[str, Any], feature: Feature, n_children: int, where: str) -> Subset:
    codes = _require(entry, "left_categories", list, where)
    m = len(feature.categories)
    for c in codes:
        if isinstance(c, bool) or not isinstance(c, int) or not 0 <= c < m:
            raise _fail(where, f"category code {shown(c)} is out of range (0..{m - 1})")
    if n_children != 2:
        raise _fail(where, f"a {entry['kind']} split has 2 children, got {n_children}")
    # Both branches must receive some known category; otherwise one is dead code
    # and its rule has an empty condition.
    if not 0 < len(set(codes)) < m:
        raise _fail(where, f"a subset split on {feature.name!r} must send some but not all of its {m} categories left, got {len(set(codes))}")
    return Subset(tuple(codes))


def _read_multiway(entry: dict[str, Any], feature: Feature, n_children: int, where: str) -> Multiway:
    m = len(feature.categories)
    if m == 0:
        raise _fail(where, f"a {entry['kind']} split on {feature.name!r}, which has no categories: a split needs at least one child")
    if n_children != m:
        raise _fail(where, f"a {entry['kind']} split on {feature.name!r} has one child per category ({m}), got {n_children}")
    return Multiway(m)


#: The split kinds of the format, by the name their test class gives itself.
SPLIT_FORMATS: dict[str, SplitFormat] = {
    Threshold.kind: SplitFormat(Threshold, _write_threshold, _read_threshold),
    Multiway.kind: SplitFormat(Multiway, lambda test: {}, _read_multiway),
    Subset.kind: SplitFormat(Subset, lambda test: {"left_categories": list(test.left_codes)}, _read_subset, lambda feature: len(feature.categories)),
}

#: The name each version of the format gives a split kind.
_KIND_NAMES: dict[int, dict[str, str]] = {
    1: {"numeric": Threshold.kind, "categorical": Multiway.kind, "subset": Subset.kind},
    2: {kind: kind for kind in SPLIT_FORMATS},
    3: {kind: kind for kind in SPLIT_FORMATS},
    4: {kind: kind for kind in SPLIT_FORMATS},
    5: {kind: kind for kind in SPLIT_FORMATS},
    6: {kind: kind for kind in SPLIT_FORMATS},
}


def _other_version(kind: str, version: int) -> str:
    """A hint for a kind name of another version of the format (a hand-edited file)."""
    for other, names in _KIND_NAMES.items():
        if other != version and kind in names:
            ours = {test: name for name, test in _KIND_NAMES[version].items()}
            return f" in a version {version} model (that is version {other}'s name for what version {version} calls {ours[names[kind]]!r})"
    return ""


def _criterion(obj: dict[str, Any], version: int) -> str | None:
    if version < 2 or obj.get("criterion") is None:
        return None
    value = obj["criterion"]
    if not isinstance(value, str):
        raise _fail("model", f"field 'criterion' must be a string or null, got {shown(value)}")
    return _text(value, "model.criterion")


def from_dict(obj: Any) -> Tree:
    """A tree from its dictionary form, validated (raises :class:`ModelFormatError`)."""
    if not isinstance(obj, dict):
        raise _fail("model", f"expected a JSON object, got {type(obj).__name__}")
    if obj.get("format") == "puretree-ensemble":
        return ensemble.from_dict(obj, from_dict)  # type: ignore[return-value]
    if obj.get("format") == boosted.BOOSTED_FORMAT:
        return boosted.from_dict(obj, from_dict, _parse_schema)  # type: ignore[return-value]
    if obj.get("format") != FORMAT:
        raise _fail("model", f"not a puretree model (format {shown(obj.get('format'))}, expected {FORMAT!r})")
    version = obj.get("version")
    if type(version) is not int or version not in READS:  # True == 1, but true is not a version
        raise _fail("model", f"unsupported version {shown(version)} (this puretree reads versions {', '.join(map(str, READS))})")
    kind_names = _KIND_NAMES[version]
    schema = _parse_schema(obj.get("schema"))
    entries = _require(obj, "nodes", list, "model")
    if not entries:
        raise _fail("nodes", "a tree needs at least one node")
    regression = schema.is_regression
    width = 3 if regression else len(schema.classes)
    n = len(entries)
    referenced = [False] * n
    child_lists: list[list[int]] = []
    for i, entry in enumerate(entries):
        where = f"nodes[{i}]"
        kind = _require(entry, "kind", str, where)
        if kind == "leaf":
            child_lists.append([])
            continue
        if kind not in kind_names:
            raise _fail(where, f"unknown node kind {kind!r}{_other_version(kind, version)}; a node is one of {['leaf', *kind_names]}")
        kids = _require(entry, "children", list, where)
        for c in kids:
            if isinstance(c, bool) or not isinstance(c, int) or not i < c < n:
                raise _fail(where, f"child index {shown(c)} must be an integer between {i + 1} and {n - 1}")
            if referenced[c]:
                raise _fail(where, f"node {c} is the child of more than one node")
            referenced[c] = True
        child_lists.append(kids)
    unreached = [i for i in range(1, n) if not referenced[i]]
    if unreached:
        raise _fail(f"nodes[{unreached[0]}]", "is not reachable from the root")
    table_entries = 0

    def node(i: int, kids: tuple[Node, ...]) -> Node:
        nonlocal table_entries
        entry, where = entries[i], f"nodes[{i}]"
        kind = entry["kind"]
        counts = _stats(entry, _STATS_FIELD[version], width, regression, where)
        if kind == "leaf":
            return Leaf(counts)
        if not math.isfinite(sum(_weight(k.stats, regression) for k in kids)):
            # "distribute" divides each child's weight by their total.
            raise _fail(where, "the children's weights add up to more than a double holds")
        fmt = SPLIT_FORMATS[kind_names[kind]]
        if version < _SIDES and "missing_branch" in entry:
            raise _fail(where, f"missing_branch is a field of version {_SIDES} models, this one says version {version}")
        j = _feature(entry, schema, fmt.test.feature_kind, where)
        feature = schema.features[j]
        test = fmt.read(entry, feature, len(kids), where)
        if len(kids) != test.n_branches:
            raise _fail(where, f"a {kind} split has {test.n_branches} children, got {len(kids)}")
        surrogates = None
        if "surrogates" in entry:
            if version < _SURROGATES:
                raise _fail(where, f"surrogates is a field of version {_SURROGATES} models, this one says version {version}")
            if test.n_branches != 2:
                raise _fail(where, f"surrogates belong to a two-branch split, not a {kind} split")
            surrogates = _read_surrogates(entry["surrogates"], schema, j, where)
        table_entries += fmt.table_entries(feature)
        if table_entries > MAX_SUBSET_ENTRIES:
            raise _fail(where, f"the subset splits together cover more than {MAX_SUBSET_ENTRIES} categories; predicting with this model would need a table that large")
        return Split(j, test, kids, counts, surrogates=surrogates)

    root = assemble(child_lists, node)  # children have larger indices, checked above
    missing = obj.get("missing", "majority")
    if missing not in MISSING_STRATEGIES:
        raise _fail("model", f"unknown missing-value strategy {shown(missing)}; expected one of {list(MISSING_STRATEGIES)}")
    tree = Tree(root, schema, missing, criterion=_criterion(obj, version))
    if "histograms" in obj:
        if version < _HISTOGRAMS:
            raise _fail("model", f"histograms is a field of version {_HISTOGRAMS} models, this one says version {version}")
        tree = attrs.evolve(tree, histograms=histograms_from_dict(obj["histograms"], tree))
    return tree


class _Unreadable:
    """A number a model cannot hold, kept as a placeholder that no field accepts, so that the
    validation names the node and field that hold it: ``NaN``, ``Infinity`` or ``-Infinity``
    (not JSON, though Python's json reads them), or an integer literal too long for a model
    (int() of 4,300+ digits raises), kept as its length only."""

    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what

    def __repr__(self) -> str:
        return self.what


def _reader() -> tuple[Callable[[str], Any], Callable[[str], Any], list[_Unreadable]]:
    """``json.loads``'s ``parse_constant`` and ``parse_int`` hooks, and the placeholders they made."""
    made: list[_Unreadable] = []

    def unreadable(what: str) -> _Unreadable:
        made.append(_Unreadable(what))
        return made[-1]

    def constant(name: str) -> Any:
        return unreadable(f"{name} (not a valid JSON number)")

    def integer(literal: str) -> Any:
        if len(literal) <= 400:
            return int(literal)
        return unreadable(f"a {len(literal.lstrip('-'))}-digit number (too long: beyond 2**53, the largest integer a double holds exactly)")

    return constant, integer, made


def from_json(text: str | bytes) -> Tree:
    """A tree from JSON text, validated."""
    if not isinstance(text, (str, bytes, bytearray)):
        raise ModelFormatError(f"model: expected JSON text (str or bytes), got {type(text).__name__}")
    constant, integer, unreadable = _reader()
    try:
        obj = json.loads(text, parse_constant=constant, parse_int=integer)
    except json.JSONDecodeError as exc:
        raise ModelFormatError(f"model: not valid JSON ({exc})") from None
    except RecursionError:
        raise ModelFormatError("model: nested too deeply to be a puretree model") from None
    model = from_dict(obj)  # names the field that holds a placeholder, if it reads that field
    if unreadable:  # in a field no reader looks at: still not a model's JSON
        raise ModelFormatError(f"model: {unreadable[0]!r} in a field puretree does not read")
    return model


def load(path: str | os.PathLike[str]) -> Tree:
    """Read a tree saved with :func:`save`."""
    try:
        with open(path, encoding="utf-8") as fh:
            text = fh.read()
    except FileNotFoundError:
        raise ModelFormatError(f"{os.fspath(path)}: no such file") from None
    except IsADirectoryError:
        raise ModelFormatError(f"{os.fspath(path)}: is a directory, not a model file") from None
    except UnicodeDecodeError:
        raise ModelFormatError(f"{os.fspath(path)}: not a text (JSON) file") from None
    try:
        return from_json(text)
    except ModelFormatError as exc:
        raise ModelFormatError(f"{os.fspath(path)}: {exc}") from None
