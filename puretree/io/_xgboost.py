"""Reading XGBoost's saved JSON model into checked arrays (issue 29, first step of ``from_xgboost``).

This module only reads and checks: it turns a model XGBoost saved as JSON (``Booster.save_raw("json")``
or a ``.json`` file) into :class:`_Forest`, plain arrays per tree, and refuses a malformed or
hostile file with a :class:`~puretree.errors.ModelFormatError` that names the tree and node, in
time and memory linear in the file. Turning the arrays into puretree trees (an ensemble of the
boosting kind) is the next step; the arithmetic it must keep is fixed here, in :func:`_margins`:

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

from ..errors import ModelFormatError

__all__: list[str] = []  # private plumbing until from_xgboost is public

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
                raise _fail(f"tree {t}, node {i}", f"child {child} is not a node of the tree's {n}")
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
