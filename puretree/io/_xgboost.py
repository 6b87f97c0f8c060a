"""XGBoost's saved models as :class:`~puretree.boosted.Boosted` values (issue 29): :func:`from_xgboost`.

A model XGBoost saved as JSON (``Booster.save_raw("json")``, a ``.json`` file) or UBJSON (a
``.ubj`` file, read by :func:`_ubjson`) is first read into :class:`_Forest`, plain arrays per
tree, checked: a malformed or hostile file is refused with a
:class:`~puretree.errors.ModelFormatError` that names the tree and node (or the byte), in time
and memory linear in the file. :func:`from_xgboost` turns the arrays into puretree trees; the
arithmetic it keeps is the one :func:`_margins` states (and the tests measure against xgboost):

- XGBoost sends a row left when ``float32(x) < float32(threshold)`` (strict), NaN by ``default_left``;
  at a categorical split it sends the listed category codes right and every other value left;
- the margin of output group ``g`` starts at the base margin and adds each tree of the group in
  file order, rounding to float32 after every addition (measured against ``predict(output_margin=True)``
  with xgboost 3.2: bit for bit; adding the base score last is not);
- ``base_score`` is stored as a probability for ``binary:logistic`` (7 significant digits, in a
  string: ``"[6.274165E-1]"``) and XGBoost turns it into a margin as ``float32(-log(float32(1/p - 1)))``
  with the logarithm of the float32 value (numpy's float32 ``log`` is one ulp off on some values).

>>> _float32_le(0.5) == float(np.nextafter(np.float32(0.5), np.float32(-np.inf)))
True
"""

from __future__ import annotations

import json
import math
from typing import Any

import attrs
import numpy as np

from ..errors import ModelFormatError, ParameterError

__all__ = ["from_xgboost"]

#: The objectives whose margins this reader knows how to start (the link comes with the importer).
_OBJECTIVES = ("binary:logistic", "multi:softprob", "reg:squarederror")

_TREE_ARRAYS = ("left_children", "right_children", "split_indices", "split_conditions", "default_left")


@attrs.frozen
class _Tree:
    """One regression tree as XGBoost stores it: node ``i``'s children, feature, threshold or leaf value."""

    left: np.ndarray
    right: np.ndarray
    feature: np.ndarray
    value: np.ndarray  # float32: the threshold of an inner node, the leaf value of a leaf
    default_left: np.ndarray
    categories: dict[int, frozenset[int]] = attrs.field(factory=dict)  # node -> the category codes sent right


@attrs.frozen
class _Forest:
    objective: str
    n_features: int
    n_groups: int
    base_margin: np.ndarray  # float32, one per output group
    trees: tuple[_Tree, ...]
    groups: np.ndarray  # the output group of each tree


def _float32_le(threshold: float) -> float:
    """The largest float32 below ``float32(threshold)``: ``x < t`` on float32 values is ``x <= this``."""
    return float(np.nextafter(np.float32(threshold), np.float32(-np.inf)))


def _fail(where: str, message: str) -> ModelFormatError:
    return ModelFormatError(f"XGBoost model, {where}: {message}")


def _get(obj: Any, path: tuple[str, ...]) -> Any:
    for i, key in enumerate(path):
        if not isinstance(obj, dict) or key not in obj:
            raise _fail("/".join(path[: i + 1]), "missing")
        obj = obj[key]
    return obj


def _int_array(values: Any, where: str, n: int) -> np.ndarray:
    if not isinstance(values, list) or len(values) != n:
        raise _fail(where, f"expected a list of {n} integers")
    # Bounded before numpy sees them: a 2**63 in a hostile file is a refusal, not an OverflowError.
    if not all(isinstance(v, int) and not isinstance(v, bool) and -(2**31) <= v < 2**31 for v in values):
        raise _fail(where, "expected integers of 32 bits")
    return np.array(values, dtype=np.int64)


def _base_margin(text: Any, objective: str, n_groups: int) -> np.ndarray:
    try:
        values = json.loads(text) if isinstance(text, str) else text
        values = values if isinstance(values, list) else [values]
        base = np.array([float(v) for v in values], dtype=np.float32)
    except (TypeError, ValueError) as exc:
        raise _fail("learner_model_param/base_score", f"not a number or list of numbers: {text!r}") from exc
    if base.size not in (1, n_groups) or not np.all(np.isfinite(base)):
        raise _fail("learner_model_param/base_score", f"expected 1 or {n_groups} finite numbers, got {text!r}")
    base = np.broadcast_to(base, (n_groups,)).astype(np.float32)
    if objective == "binary:logistic":
        if not np.all((base > 0) & (base < 1)):
            raise _fail("learner_model_param/base_score", f"a probability must lie in (0, 1), got {text!r}")
        base = np.array([-math.log(float(np.float32(np.float32(1) / p - np.float32(1)))) for p in base], dtype=np.float32)
    return base


def _check_tree(t: int, left: np.ndarray, right: np.ndarray, feature: np.ndarray, n_features: int) -> None:
    """Each node is reached once from the root, children point inside the tree, features exist.

    A walk from the root that meets a node twice (a cycle or a shared child) is refused, so
    prediction ends after at most ``n`` steps however the file was built."""
    n = left.size
    seen = np.zeros(n, dtype=bool)
    stack = [0]
    while stack:
        i = stack.pop()
        if seen[i]:
            raise _fail(f"tree {t}, node {i}", "reached twice from the root (a cycle or a shared child)")
        seen[i] = True
        a, b = int(left[i]), int(right[i])
        if a == -1 and b == -1:
            continue
        for child in (a, b):
            if not 0 < child < n:
                raise _fail(f"tree {t}, node {i}", f"child {child} is not one of the tree's {n} nodes below its root")
        if not 0 <= feature[i] < n_features:
            raise _fail(f"tree {t}, node {i}", f"feature {int(feature[i])} is not one of the model's {n_features}")
        stack.extend((b, a))
    if not seen.all():
        raise _fail(f"tree {t}, node {int(np.argmin(seen))}", "not reachable from the root")


def _read_tree(t: int, obj: Any, n_features: int) -> _Tree:
    if not isinstance(obj, dict):
        raise _fail(f"tree {t}", "not an object")
    left = obj.get("left_children")
    n = len(left) if isinstance(left, list) else 0
    if n == 0:
        raise _fail(f"tree {t}", "left_children must be a non-empty list")
    lc = _int_array(obj.get("left_children"), f"tree {t}, left_children", n)
    rc = _int_array(obj.get("right_children"), f"tree {t}, right_children", n)
    fi = _int_array(obj.get("split_indices"), f"tree {t}, split_indices", n)
    dl = _int_array(obj.get("default_left"), f"tree {t}, default_left", n)
    if not np.isin(dl, (0, 1)).all():
        raise _fail(f"tree {t}, node {int(np.flatnonzero(~np.isin(dl, (0, 1)))[0])}", "default_left must be 0 or 1")
    cond = obj.get("split_conditions")
    if not isinstance(cond, list) or len(cond) != n or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in cond):
        raise _fail(f"tree {t}, split_conditions", f"expected a list of {n} numbers")
    value = np.array(cond, dtype=np.float32)
    bad = np.flatnonzero(~np.isfinite(value))
    if bad.size:
        raise _fail(f"tree {t}, node {int(bad[0])}", f"threshold or leaf value {cond[int(bad[0])]!r} is not finite")
    _check_tree(t, lc, rc, fi, n_features)
    return _Tree(lc, rc, fi, value, dl.astype(bool), _categories(t, obj, n, lc))


def _categories(t: int, obj: dict[str, Any], n: int, left: np.ndarray) -> dict[int, frozenset[int]]:
    """The categorical nodes' sets: ``categories[segment:segment+size]`` for each node in ``categories_nodes``."""
    kinds = _int_array(obj.get("split_type", [0] * n), f"tree {t}, split_type", n)
    bad = np.flatnonzero(~np.isin(kinds, (0, 1)))
    if bad.size:
        raise _fail(f"tree {t}, node {int(bad[0])}", f"split_type {int(kinds[bad[0]])} is neither 0 (numerical) nor 1 (categorical)")
    nodes = obj.get("categories_nodes", [])
    k = len(nodes) if isinstance(nodes, list) else -1
    nodes = _int_array(nodes, f"tree {t}, categories_nodes", k)
    starts = _int_array(obj.get("categories_segments", []), f"tree {t}, categories_segments", k)
    sizes = _int_array(obj.get("categories_sizes", []), f"tree {t}, categories_sizes", k)
    cats = obj.get("categories", [])
    cats = _int_array(cats, f"tree {t}, categories", len(cats) if isinstance(cats, list) else -1)
    out: dict[int, frozenset[int]] = {}
    for node, start, size in zip(nodes.tolist(), starts.tolist(), sizes.tolist()):
        where = f"tree {t}, node {node}"
        if not 0 <= node < n or kinds[node] != 1 or left[node] == -1 or node in out:
            raise _fail(where, "listed in categories_nodes but not a categorical split of the tree")
        if not (0 <= start and 0 <= size and start + size <= cats.size):
            raise _fail(where, f"categories {start}..{start + size} lie outside the tree's {cats.size}")
        chosen = cats[start : start + size]
        if (chosen < 0).any():
            raise _fail(where, f"category {int(chosen.min())} is negative")
        out[node] = frozenset(chosen.tolist())
    missing = [i for i in np.flatnonzero(kinds == 1).tolist() if i not in out and left[i] != -1]
    if missing:
        raise _fail(f"tree {t}, node {missing[0]}", "a categorical split without its categories")
    return out


def _read(obj: Any) -> _Forest:
    """Check a parsed XGBoost JSON model and return its arrays (see the module's notes)."""
    learner = _get(obj, ("learner",))
    objective = _get(learner, ("objective", "name"))
    if objective not in _OBJECTIVES:
        raise _fail("learner/objective", f"{objective!r} is not one of {', '.join(_OBJECTIVES)}")
    booster = _get(learner, ("gradient_booster", "name"))
    if booster != "gbtree":
        raise _fail("learner/gradient_booster", f"{booster!r}: only gbtree models can be read")
    param = _get(learner, ("learner_model_param",))
    try:
        n_features = int(_get(param, ("num_feature",)))
        n_groups = max(1, int(_get(param, ("num_class",))))
    except (TypeError, ValueError) as exc:
        raise _fail("learner/learner_model_param", "num_feature and num_class must be integers") from exc
    if n_features <= 0:
        raise _fail("learner/learner_model_param/num_feature", f"must be positive, got {n_features}")
    model = _get(learner, ("gradient_booster", "model"))
    trees = _get(model, ("trees",))
    if not isinstance(trees, list) or not trees:
        raise _fail("gradient_booster/model/trees", "expected a non-empty list of trees")
    groups = _int_array(_get(model, ("tree_info",)), "gradient_booster/model/tree_info", len(trees))
    bad = np.flatnonzero((groups < 0) | (groups >= n_groups))
    if bad.size:
        raise _fail(f"tree {int(bad[0])}", f"output group {int(groups[bad[0]])} is not one of the model's {n_groups}")
    base = _base_margin(_get(param, ("base_score",)), objective, n_groups)
    return _Forest(objective, n_features, n_groups, base, tuple(_read_tree(t, tree, n_features) for t, tree in enumerate(trees)), groups)


def _leaf_values(tree: _Tree, X: np.ndarray) -> np.ndarray:
    """The leaf value each row of float32 ``X`` reaches, with puretree's ``<=`` test on the float32 neighbour."""
    out = np.empty(len(X), dtype=np.float32)
    for r, x in enumerate(X):
        i = 0
        while tree.left[i] != -1:
            v = x[tree.feature[i]]
            if np.isnan(v):
                i = tree.left[i] if tree.default_left[i] else tree.right[i]
            elif i in tree.categories:  # XGBoost sends the listed categories right, every other value left
                i = tree.right[i] if v >= 0 and float(v).is_integer() and int(v) in tree.categories[i] else tree.left[i]
            else:
                i = tree.left[i] if float(v) <= _float32_le(tree.value[i]) else tree.right[i]
        out[r] = tree.value[i]
    return out


def _margins(forest: _Forest, X: Any) -> np.ndarray:
    """XGBoost's margins, float32, summed in its order: from the base margin, tree by tree in file order."""
    X32 = np.asarray(X, dtype=np.float64).astype(np.float32)
    acc = np.tile(forest.base_margin, (len(X32), 1))
    for tree, g in zip(forest.trees, forest.groups):
        acc[:, g] = acc[:, g] + _leaf_values(tree, X32)  # float32 + float32 rounds to float32
    return acc


def _probabilities(forest: _Forest, X: Any) -> np.ndarray:
    """The link on the float32 margins, as XGBoost applies it: sigmoid for binary:logistic (one column,
    the positive class), softmax for multi:softprob; identity for reg:squarederror."""
    m = _margins(forest, X)
    if forest.objective == "binary:logistic":
        return (1.0 / (1.0 + np.exp(-m.astype(np.float64)))).astype(np.float32)
    if forest.objective == "multi:softprob":
        # XGBoost's Softmax works in float32: exp(x - max) rounded, summed class by class, then divided.
        shifted = (m - m.max(axis=1, keepdims=True)).astype(np.float32)
        e = np.exp(shifted.astype(np.float64)).astype(np.float32)
        total = np.zeros(len(m), dtype=np.float32)
        for k in range(e.shape[1]):
            total = (total + e[:, k]).astype(np.float32)
        return (e / total[:, None]).astype(np.float32)
    return m


# -- the public importer ---------------------------------------------------------------------


def _ubjson(data: bytes, *, max_depth: int = 64) -> Any:
    """A UBJSON document (``Booster.save_model("m.ubj")``) as the objects ``json.loads`` would give.

    A small reader of the subset XGBoost writes (draft 12: the scalar markers, strings, arrays and
    objects, optimized ``$type#count`` containers), so that a model file is read without
    xgboost; every length is checked against the bytes left, so a hostile file is refused in
    time and memory linear in its size.

    >>> _ubjson(b"{i\\x01a[$d#i\\x02?\\x80\\x00\\x00@\\x00\\x00\\x00i\\x01bSi\\x02hi}")
    {'a': [1.0, 2.0], 'b': 'hi'}
    """
    pos = 0
    n = len(data)
    sizes = {"i": (1, ">i1"), "U": (1, ">u1"), "I": (2, ">i2"), "l": (4, ">i4"), "L": (8, ">i8"), "d": (4, ">f4"), "D": (8, ">f8")}

    def fail(message: str) -> ModelFormatError:
        return _fail(f"UBJSON byte {pos}", message)

    def take(k: int) -> bytes:
        nonlocal pos
        if k < 0 or pos + k > n:
            raise fail(f"{k} bytes asked, {n - pos} left (a truncated or corrupt file)")
        out = data[pos : pos + k]
        pos += k
        return out

    def marker() -> str:
        return take(1).decode("latin-1")

    def number(m: str) -> Any:
        size, dtype = sizes[m]
        v = np.frombuffer(take(size), dtype=dtype)[0]
        return float(v) if m in "dD" else int(v)

    def length() -> int:
        m = marker()
        if m not in "iUIlL":
            raise fail(f"a length must be an integer, got marker {m!r}")
        k = number(m)
        if k < 0 or k > n:
            raise fail(f"length {k} is beyond the file's {n} bytes")
        return k

    def text() -> str:
        try:
            return take(length()).decode("utf-8")
        except UnicodeDecodeError:
            raise fail("a string that is not UTF-8") from None

    def value(m: str, depth: int) -> Any:
        if m in sizes:
            return number(m)
        if m == "S" or m == "H":
            s = text()
            return float(s) if m == "H" else s
        if m == "C":
            return take(1).decode("latin-1")
        if m in "TFZ":
            return {"T": True, "F": False, "Z": None}[m]
        if m in "[{":
            if depth >= max_depth:
                raise fail(f"nested deeper than {max_depth}")
            return container(m, depth + 1)
        raise fail(f"unknown marker {m!r}")

    def container(kind: str, depth: int) -> Any:
        typ, count = None, None
        m = marker()
        if m == "$":
            typ = marker()
            m = marker()
            if m != "#":
                raise fail("a typed container needs its count ('#')")
        if m == "#":
            count = length()
        elif m != "N":
            nonlocal pos
            pos -= 1
        if kind == "[":
            if typ is not None and typ in sizes and count is not None:
                size, dtype = sizes[typ]
                return np.frombuffer(take(size * count), dtype=dtype).tolist()
            items: list[Any] = []
            while count is None or len(items) < count:
                if typ is not None:  # a typed container's values come without markers
                    items.append(value(typ, depth))
                    continue
                m = marker()
                if count is None and m == "]":
                    break
                if m != "N":
                    items.append(value(m, depth))
            return items
        obj: dict[str, Any] = {}
        while count is None or len(obj) < count:
            if count is None:
                m = marker()
                if m == "}":
                    break
                pos -= 1
            key = text()
            obj[key] = value(typ if typ is not None else marker(), depth)
        return obj

    out = value(marker(), 0)
    if pos != n:
        raise fail(f"{n - pos} bytes after the document")
    return out


def _parse(source: Any) -> Any:
    """The model's JSON objects from a Booster, a saved file (JSON or UBJSON) or its bytes."""
    if hasattr(source, "save_raw"):  # an xgboost.Booster (or an estimator's get_booster())
        return json.loads(bytes(source.save_raw("json")))
    if hasattr(source, "get_booster"):
        return json.loads(bytes(source.get_booster().save_raw("json")))
    if isinstance(source, (bytes, bytearray)):
        data, name = bytes(source), "model"
    else:
        import os

        try:
            name = os.fspath(source)
        except TypeError:
            raise ModelFormatError(f"from_xgboost takes a Booster, a saved model's path or its bytes, not a {type(source).__name__}") from None
        try:
            with open(name, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            raise ModelFormatError(f"{name}: cannot read the model ({exc.strerror or exc})") from None
    # JSON is text; XGBoost's UBJSON starts with a length of 8 bytes, zeros among them.
    text = all(b >= 0x20 or b in b"\t\n\r" for b in data[:64])
    try:
        if not text:
            return _ubjson(data)
        try:
            return json.loads(data)
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise ModelFormatError(f"not JSON ({exc}), nor UBJSON") from None
        except RecursionError:
            raise ModelFormatError("nested too deeply to be a model") from None
    except ModelFormatError as exc:
        raise ModelFormatError(f"{name}: {exc}") from None


def _category_values(enc: Any, j: int) -> tuple[Any, ...] | None:
    """Feature ``j``'s category values from the model's ``cats.enc`` (None: not recorded)."""
    if not isinstance(enc, list) or j >= len(enc) or not isinstance(enc[j], dict):
        return None
    entry = enc[j]
    values = entry.get("values")
    if not isinstance(values, list) or not values:
        return None
    offsets = entry.get("offsets")
    if isinstance(offsets, list) and offsets:  # strings: UTF-8 bytes, cut at the offsets
        if not all(isinstance(o, int) for o in offsets) or offsets[0] != 0 or offsets[-1] != len(values) or any(b < a for a, b in zip(offsets, offsets[1:])):
            raise _fail(f"cats/enc[{j}]", "offsets do not cut the values into strings")
        try:
            raw = bytes(values)
            names = tuple(raw[a:b].decode("utf-8") for a, b in zip(offsets, offsets[1:]))
        except (ValueError, TypeError):
            raise _fail(f"cats/enc[{j}]", "the category names are not UTF-8 text") from None
        return _distinct(j, names)
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values):
        raise _fail(f"cats/enc[{j}]", "category values must be finite numbers")
    return _distinct(j, tuple(int(v) if float(v).is_integer() and abs(v) <= 2**53 else float(v) for v in values))


def _distinct(j: int, values: tuple[Any, ...]) -> tuple[Any, ...]:
    if len(set(values)) != len(values):
        raise _fail(f"cats/enc[{j}]", "a category is listed twice")
    return values


def _schema(obj: Any, forest: _Forest) -> Any:
    from ..nodes import CATEGORICAL, Feature, Schema

    learner = obj["learner"]
    names = learner.get("feature_names") or [f"f{j}" for j in range(forest.n_features)]
    types = learner.get("feature_types") or ["float"] * forest.n_features
    if not isinstance(names, list) or len(names) != forest.n_features or not all(isinstance(v, str) for v in names) or len(set(names)) != len(names):
        raise _fail("learner/feature_names", f"expected {forest.n_features} distinct names")
    if not isinstance(types, list) or len(types) != forest.n_features:
        raise _fail("learner/feature_types", f"expected {forest.n_features} types")
    enc = obj["learner"]["gradient_booster"]["model"].get("cats", {})
    enc = enc.get("enc") if isinstance(enc, dict) else None
    used: dict[int, int] = {}  # categorical feature -> 1 + the largest code a split lists
    for tree in forest.trees:
        for node, chosen in tree.categories.items():
            j = int(tree.feature[node])
            used[j] = max(used.get(j, 0), 1 + max(chosen, default=-1))
    features = []
    for j, (name, kind) in enumerate(zip(names, types)):
        if kind == "c" or j in used:
            cats = _category_values(enc, j)
            if cats is None:  # no names recorded: the codes are the categories
                cats = tuple(range(used.get(j, 0)))
            elif len(cats) < used.get(j, 0):
                raise _fail(f"cats/enc[{j}]", f"{len(cats)} categories, but a split lists code {used[j] - 1}")
            features.append(Feature(name, CATEGORICAL, cats))
        else:
            features.append(Feature(name))
    if (forest.objective == "multi:softprob") != (forest.n_groups > 1):
        raise _fail("learner_model_param/num_class", f"{forest.objective} with {forest.n_groups} output group(s)")
    if forest.objective == "reg:squarederror":
        return Schema(tuple(features), task="regression")
    return Schema(tuple(features), tuple(range(max(2, forest.n_groups))))


def _covers(t: int, sum_hessian: Any, n: int) -> list[float] | None:
    """Tree ``t``'s node covers (XGBoost's ``sum_hessian``, which shap weighs the branches by);
    None where the file has none (every node then weighs 1)."""
    if sum_hessian is None:
        return None
    if not isinstance(sum_hessian, list) or len(sum_hessian) != n or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in sum_hessian):
        raise _fail(f"tree {t}, sum_hessian", f"expected a list of {n} numbers")
    bad = [i for i, v in enumerate(sum_hessian) if not (math.isfinite(v) and v >= 0)]
    if bad:
        raise _fail(f"tree {t}, node {bad[0]}", f"sum_hessian {sum_hessian[bad[0]]!r} is not a finite number >= 0")
    return [float(np.float32(v)) for v in sum_hessian]  # XGBoost's float32s, however the file wrote them


def _tree(t: int, tree: _Tree, schema: Any, base_weights: Any, sum_hessian: Any = None) -> Any:
    """Tree ``t`` as a puretree tree: ``float32(x) < t`` as ``x <= the float32 below t`` (on
    float32 values), NaN by ``default_left``; a categorical split's listed codes to the right.
    Each node's weight is its cover (``sum_hessian``), its mean the leaf value or base weight."""
    from ..nodes import TESTS, Leaf, Split, Surrogates, exact_mean
    from ..tree import Tree
    from ..boosted import tree_schema

    n = tree.left.size
    order: list[int] = []
    stack = [0]
    while stack:
        i = stack.pop()
        order.append(i)
        if tree.left[i] != -1:
            stack.extend((int(tree.right[i]), int(tree.left[i])))
    weights = base_weights if isinstance(base_weights, list) and len(base_weights) == n else None
    covers = _covers(t, sum_hessian, n)

    def stats_of(i: int, v: float) -> tuple[float, float, float]:
        w, total = exact_mean(v, covers[i] if covers is not None else 1.0)
        return (w, total, total * v)

    built: dict[int, Any] = {}
    for i in reversed(order):
        if tree.left[i] == -1:
            built[i] = Leaf(stats_of(i, float(tree.value[i])))
            continue
        j = int(tree.feature[i])
        kids = (built.pop(int(tree.left[i])), built.pop(int(tree.right[i])))
        side = 0 if tree.default_left[i] else 1
        w = float(np.float32(weights[i])) if weights is not None and isinstance(weights[i], (int, float)) and math.isfinite(weights[i]) else 0.0
        stats = stats_of(i, w)
        if i in tree.categories:
            m = len(schema.features[j].categories)
            left = tuple(c for c in range(m) if c not in tree.categories[i])
            built[i] = Split(j, TESTS["subset"](left), kids, stats, surrogates=Surrogates(fallback=side))
        else:
            cut = _float32_le(tree.value[i])
            if not math.isfinite(cut):
                raise _fail(f"tree {t}, node {i}", f"threshold {float(tree.value[i])!r}: no float32 value lies below it")
            threshold: Any = TESTS["threshold"]  # the Threshold test, named by its kind
            built[i] = Split(j, threshold(cut, missing_branch=side), kids, stats)
    return Tree(built[0], tree_schema(schema), "majority")


def from_xgboost(booster_or_path: Any) -> Any:
    """An XGBoost model as a :class:`~puretree.boosted.Boosted` value (``precision="float32"``):
    from a ``Booster`` (or an estimator's, ``get_booster()``), a model saved as JSON or UBJSON
    (``Booster.save_model("m.json")`` / ``("m.ubj")``, read here without xgboost), or its bytes.

    Objectives ``binary:logistic``, ``multi:softprob`` and ``reg:squarederror`` of ``gbtree``;
    ``base_score`` as XGBoost stores it, set or estimated; categorical splits with the model's
    category names (``cats``) when it records them, else category codes. Each stage holds the
    i-th tree of every output group, file order kept. The raw scores are XGBoost's
    ``predict(output_margin=True)``, bit for bit (see :mod:`puretree.boosted` for the float32
    arithmetic and this module's notes for the tests); a feature value is read as float32 and a
    category the model does not list goes the missing values' way.

    >>> import json
    >>> tree = {"left_children": [1, -1, -1], "right_children": [2, -1, -1], "split_indices": [0, 0, 0],
    ...         "split_conditions": [0.5, -0.25, 0.75], "default_left": [1, 0, 0]}
    >>> saved = {"learner": {"objective": {"name": "reg:squarederror"}, "feature_names": ["x"],
    ...          "learner_model_param": {"num_feature": "1", "num_class": "0", "base_score": "[5E-1]"},
    ...          "gradient_booster": {"name": "gbtree", "model": {"trees": [tree], "tree_info": [0]}}}}
    >>> model = from_xgboost(json.dumps(saved).encode())
    >>> model.decision_function([[0.0], [1.0], [float("nan")]]).tolist()
    [0.25, 1.25, 0.25]
    """
    import os

    obj = _parse(booster_or_path)
    named = isinstance(booster_or_path, (str, os.PathLike))
    try:
        return _boosted(obj)
    except ModelFormatError as exc:  # a saved file's error names the file, as its parse errors do
        if not named:
            raise
        raise ModelFormatError(f"{os.fspath(booster_or_path)}: {exc}") from None


def _boosted(obj: Any) -> Any:
    """The parsed model ``obj`` as a Boosted value (see :func:`from_xgboost`)."""
    from ..boosted import Boosted

    forest = _read(obj)
    learner = obj["learner"]
    param = learner["learner_model_param"]
    if str(param.get("num_target", "1")) not in ("0", "1"):
        raise _fail("learner_model_param/num_target", f"{param.get('num_target')!r}: multi-target models are not read")
    schema = _schema(obj, forest)
    model = learner["gradient_booster"]["model"]
    per_group: list[list[int]] = [[] for _ in range(forest.n_groups)]
    for t, g in enumerate(forest.groups.tolist()):
        per_group[g].append(t)
    if len({len(ts) for ts in per_group}) != 1:
        raise _fail("gradient_booster/model/tree_info", f"the output groups hold {[len(ts) for ts in per_group]} trees; a stage needs one of each")
    trees_json = model["trees"]
    stages = tuple(
        tuple(_tree(t, forest.trees[t], schema, trees_json[t].get("base_weights"), trees_json[t].get("sum_hessian")) for t in stage)
        for stage in zip(*per_group)
    )
    version = obj.get("version")
    options = {"source": "xgboost", "base_score": str(param.get("base_score"))}
    if isinstance(version, list) and all(isinstance(v, int) for v in version):
        options["xgboost_version"] = ".".join(map(str, version))
    try:
        return Boosted(stages, tuple(float(v) for v in forest.base_margin), 1.0, forest.objective, schema, "float32", options)
    except ParameterError as exc:  # a combination no reader check above names
        raise _fail("model", str(exc)) from None
