"""LightGBM's models as :class:`~puretree.boosted.Boosted` values (issue 29): :func:`from_lightgbm`.

This module reads a ``lightgbm.Booster`` (through ``model_to_string()``) or the text it saves
(``save_model``), refuses a malformed or hostile one with a :class:`~puretree.errors.ModelFormatError`
naming the tree and node, in time and memory linear in the text, and gives

- :func:`_read`: a :class:`_Model`, plain arrays per tree, whose raw scores :func:`_raw_scores`
  computes as LightGBM does (the reference the trees are checked against);
- :func:`_stages`: the same trees as puretree regression :class:`~puretree.tree.Tree` values,
  ``stages[i][k]`` the tree of iteration ``i`` and output ``k``, deciding as LightGBM on every
  double (NaN included) with puretree's own ``Threshold`` tests;
- :func:`from_lightgbm`: those stages as a :class:`~puretree.boosted.Boosted` model (``float64``
  sums from 0.0, learning rate 1, the loss named as LightGBM's objective).

What LightGBM does (``include/LightGBM/tree.h``, ``src/c_api.cpp``; measured against
``Booster.predict`` with lightgbm 4.7):

- a value with ``|x| <= kZeroThreshold`` (the float ``1e-35f``) reaches the trees as ``0.0``
  (the C API drops it as a zero of a sparse row);
- a numerical split sends a row left when ``x <= threshold`` (doubles); its ``decision_type`` byte
  holds ``default_left`` (bit 1) and the missing type (bits 2-3): for ``None`` a NaN is read as 0,
  for ``Zero`` a NaN or a zero goes the default way, for ``NaN`` a NaN goes the default way;
- a categorical split (bit 0) sends NaN, a negative value and a value past ``2**31`` right, else
  ``int(x)`` (truncated) left when its bit is set in the split's bitset
  (``cat_threshold[cat_boundaries[c]:cat_boundaries[c + 1]]``, ``c = int(threshold)``);
- the raw score of output ``k`` is the sum, from 0.0 in tree order, of the leaf values of trees
  ``k, k + K, k + 2K...`` (``K = num_tree_per_iteration``; the initial score is in the first
  trees' leaves); ``binary`` gives ``1 / (1 + exp(-sigmoid * raw))``, ``multiclass`` the softmax
  from the largest raw score, ``regression`` the raw score.

A puretree ``Threshold`` sends ``x <= value`` left and NaN to its ``missing_branch``. LightGBM's
test on one node is the same on every interval between a few cut points (the threshold, the
edges of the zero band ``[-kZeroThreshold, kZeroThreshold]``, the edges ``[c, c + 1)`` of the
categories in the bitset), so each node becomes a small balanced search over those cuts whose
ends are the node's two subtrees (shared, not copied); NaN follows the path to an end of its side.

>>> model = _read(_EXAMPLE)
>>> _raw_scores(model, np.array([[0.5, 2.0], [np.nan, 2.0], [1e-40, 0.0]])).tolist()
[[1.5], [-1.0], [-1.0]]
>>> [[float(t.predict(np.array([[0.5, 2.0]]))[0]) for t in stage] for stage in _stages(model)]
[[1.5]]
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from ..errors import ModelFormatError, PuretreeError
from ..nodes import REGRESSION, Feature, Leaf, Node, Schema, Split, Threshold, exact_mean
from ..tree import Tree

__all__ = ["from_lightgbm"]

#: LightGBM's kZeroThreshold: ``const double kZeroThreshold = 1e-35f`` (a float literal).
_ZERO = float(np.float32(1e-35))
#: The objectives whose output this reader knows (the link is the Boosted model's, at merge).
_OBJECTIVES = ("binary", "multiclass", "regression")
#: decision_type's bits and missing types (tree.h: kCategoricalMask, kDefaultLeftMask).
_CATEGORICAL, _DEFAULT_LEFT = 1, 2
_MISSING_NONE, _MISSING_ZERO, _MISSING_NAN = 0, 1, 2
#: The most puretree nodes one LightGBM tree may become: a tree whose categorical splits, each a
#: search over its categories' edges with its two subtrees at the ends, would flatten to more is
#: refused (a hostile file cannot make prediction or code generation blow up).
_MAX_NODES = 1_000_000
#: The most bitset words one categorical split may hold (2**16 categories): LightGBM's own
#: max_cat_threshold keeps them far below.
_MAX_WORDS = 2048

_EXAMPLE = """tree
version=v4
num_class=1
num_tree_per_iteration=1
label_index=0
max_feature_idx=1
objective=regression
feature_names=a b
feature_infos=[0:1] [0:3]
tree_sizes=0

Tree=0
num_leaves=3
num_cat=0
split_feature=0 1
threshold=1.0000000180025095e-35 1.5
decision_type=2 0
left_child=-1 -2
right_child=1 -3
leaf_value=-1 0.5 1.5
leaf_count=5 3 2
internal_value=0 0
internal_count=10 5
is_linear=0
shrinkage=1

end of trees
"""


@attrs.frozen
class _Tree:
    """One LightGBM tree as its text stores it: inner node ``i``'s children (``~leaf`` for a leaf),
    feature, threshold (or categorical split index) and decision byte; the leaves' values."""

    left: np.ndarray
    right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    decision: np.ndarray
    leaf_value: np.ndarray
    leaf_count: np.ndarray
    internal_value: np.ndarray
    internal_count: np.ndarray
    cat_boundaries: np.ndarray
    cat_threshold: np.ndarray  # uint32 words of the categorical splits' bitsets


@attrs.frozen
class _Model:
    """The model's header and trees, and what the Boosted model needs to start from.

    ``init`` is 0.0 per output (LightGBM folds the initial score into the first trees' leaves),
    ``learning_rate`` 1.0 (the leaves hold the shrunk values); ``pandas_categorical`` the
    categories of each pandas categorical column, in order, when the model was fit on a
    DataFrame (the codes the trees see are indices into them)."""

    objective: str
    sigmoid: float
    num_class: int
    n_outputs: int  # num_tree_per_iteration
    feature_names: tuple[str, ...]
    trees: tuple[_Tree, ...]
    pandas_categorical: tuple[tuple[Any, ...], ...] | None = None

    @property
    def init(self) -> tuple[float, ...]:
        return (0.0,) * self.n_outputs

    @property
    def learning_rate(self) -> float:
        return 1.0


def _fail(where: str, message: str) -> ModelFormatError:
    return ModelFormatError(f"LightGBM model, {where}: {message}")


# -- reading -------------------------------------------------------------------------------


def _text_of(source: Any) -> tuple[str, str | None]:
    """The model text of a Booster (or a fitted LGBMModel), a path, or the text itself, and the
    path (None for the others)."""
    booster = getattr(source, "booster_", source)
    if hasattr(booster, "model_to_string"):
        return str(booster.model_to_string()), None
    if isinstance(source, str) and source.startswith(("tree\n", "tree\r\n")):
        return source, None
    if isinstance(source, (str, os.PathLike)):
        name = os.fspath(source)
        try:
            return Path(source).read_text(encoding="utf-8"), name
        except UnicodeDecodeError as exc:
            raise ModelFormatError(f"{name}: not a LightGBM model text (not UTF-8)") from exc
        except OSError as exc:
            raise ModelFormatError(f"{name}: cannot read the model ({exc.strerror or exc})") from exc
    raise _fail("input", f"expected a lightgbm.Booster, its model text or a path to it, got {type(source).__name__}")


def _blocks(text: str) -> tuple[dict[str, str], list[tuple[str, dict[str, str]]], str]:
    """The header's ``key=value`` pairs, each ``Tree=i`` block's pairs, and the text after the trees."""
    head, _, rest = text.partition("\nend of trees")
    chunks = head.replace("\r\n", "\n").split("\n\n")
    if not chunks or chunks[0].split("\n", 1)[0].strip() != "tree":
        raise _fail("header", "the text does not start with LightGBM's 'tree' line")
    header = _pairs(chunks[0].split("\n")[1:], "header")
    trees = []
    for chunk in chunks[1:]:
        lines = [line for line in chunk.split("\n") if line.strip()]
        if not lines:
            continue
        name = lines[0].strip()
        if not name.startswith("Tree="):
            raise _fail(name[:40], "expected a 'Tree=' block")
        trees.append((name, _pairs(lines[1:], name)))
    return header, trees, rest


def _pairs(lines: list[str], where: str) -> dict[str, str]:
    out = {}
    for line in lines:
        key, eq, value = line.partition("=")
        if not eq:
            raise _fail(where, f"expected key=value, got {line[:40]!r}")
        out[key.strip()] = value.strip()
    return out


def _numbers(pairs: dict[str, str], key: str, n: int, where: str, kind: Callable[[str], Any], required: bool = True) -> list[Any]:
    if key not in pairs:
        if required:
            raise _fail(where, f"{key} is missing")
        return [kind("0")] * n
    words = pairs[key].split()
    if len(words) != n:
        raise _fail(where, f"{key} holds {len(words)} values, expected {n}")
    try:
        return [kind(w) for w in words]
    except ValueError as exc:
        raise _fail(where, f"{key}: {exc}") from exc


def _int(word: str) -> int:
    value = int(word)
    if not -(2**31) <= value < 2**32:  # 32-bit (cat_threshold's words are unsigned)
        raise ValueError(f"{word[:30]} is beyond 32 bits")
    return value


def _one(pairs: dict[str, str], key: str, where: str) -> int:
    values = _numbers(pairs, key, 1, where, _int)
    return int(values[0])


def _objective(text: str) -> tuple[str, float]:
    words = text.split()
    name = words[0] if words else ""
    if name not in _OBJECTIVES:
        raise _fail("objective", f"{text[:60]!r}: only {', '.join(_OBJECTIVES)} can be read")
    options = dict(w.partition(":")[::2] for w in words[1:])
    if name == "regression" and options:
        raise _fail("objective", f"{text[:60]!r}: a regression with a transformed output (sqrt) cannot be read")
    try:
        sigmoid = float(options.get("sigmoid", "1"))
    except ValueError as exc:
        raise _fail("objective", f"sigmoid {options['sigmoid'][:30]!r} is not a number") from exc
    if not (math.isfinite(sigmoid) and sigmoid > 0):
        raise _fail("objective", f"sigmoid must be a positive number, got {sigmoid}")
    return name, sigmoid


def _read(source: Any) -> _Model:
    """Check a LightGBM model (Booster, text or path) and return its arrays (see the module's notes)."""
    text, name = _text_of(source)
    try:
        return _from_text(text)
    except ModelFormatError as exc:  # a file's errors name the file, as the command line shows them
        if name is None:
            raise
        raise ModelFormatError(f"{name}: {exc}") from None


def _from_text(text: str) -> _Model:
    header, blocks, rest = _blocks(text)
    objective, sigmoid = _objective(header.get("objective", ""))
    num_class = _one(header, "num_class", "header")
    per_iteration = _one(header, "num_tree_per_iteration", "header")
    n_features = _one(header, "max_feature_idx", "header") + 1
    if "average_output" in header:
        raise _fail("header", "average_output (a random forest, boosting='rf') cannot be read: only gbdt models")
    expected = (num_class, num_class) if objective == "multiclass" else (1, 1)
    if (num_class, per_iteration) != expected or not 1 <= num_class <= 2**16:
        raise _fail("header", f"num_class={num_class} and num_tree_per_iteration={per_iteration} do not fit objective {objective}")
    if not 1 <= n_features <= 2**24:
        raise _fail("header", f"max_feature_idx must give between 1 and 2**24 features, got {n_features}")
    names = header.get("feature_names", "").split()
    if len(names) != n_features:
        raise _fail("header", f"feature_names holds {len(names)} names for {n_features} features")
    if not blocks or len(blocks) % per_iteration:
        raise _fail("trees", f"{len(blocks)} trees is not a positive multiple of num_tree_per_iteration={per_iteration}")
    trees = []
    for t, (name, pairs) in enumerate(blocks):
        if name != f"Tree={t}":
            raise _fail(f"tree {t}", f"the block is named {name[:40]!r}, expected 'Tree={t}'")
        trees.append(_read_tree(t, pairs, n_features))
    return _Model(objective, sigmoid, num_class, per_iteration, tuple(names), tuple(trees), _pandas_categorical(rest))


def _pandas_categorical(rest: str) -> tuple[tuple[Any, ...], ...] | None:
    _, found, text = rest.rpartition("\npandas_categorical:")
    if not found:
        return None
    try:
        value = json.loads(text.split("\n", 1)[0])
    except ValueError as exc:
        raise _fail("pandas_categorical", "not a JSON list") from exc
    if value is None:
        return None
    if not isinstance(value, list) or not all(isinstance(v, list) for v in value):
        raise _fail("pandas_categorical", "expected a list of lists of categories")
    return tuple(tuple(v) for v in value)


def _read_tree(t: int, pairs: dict[str, str], n_features: int) -> _Tree:
    where = f"tree {t}"
    if pairs.get("is_linear", "0") != "0":
        raise _fail(where, "a linear tree (linear_tree=True: a linear model in each leaf) cannot be read; puretree's leaves hold constants")
    n_leaves = _one(pairs, "num_leaves", where)
    n_cat = _one(pairs, "num_cat", where)
    # Every array is counted against the text before it is made: num_leaves=10**9 with a
    # short leaf_value is refused here, not allocated.
    words = len(pairs.get("leaf_value", "").split())
    if n_leaves < 1 or n_leaves != words:
        raise _fail(where, f"num_leaves={n_leaves} but leaf_value holds {words} values")
    leaf_value = np.array(_numbers(pairs, "leaf_value", n_leaves, where, float), dtype=np.float64)
    bad = np.flatnonzero(~np.isfinite(leaf_value))
    if bad.size:
        raise _fail(f"{where}, leaf {int(bad[0])}", f"leaf value {leaf_value[bad[0]]} is not finite")
    leaf_count = np.array(_numbers(pairs, "leaf_count", n_leaves, where, _int, required=False), dtype=np.int64)
    m = n_leaves - 1
    if not 0 <= n_cat <= m:
        raise _fail(where, f"num_cat={n_cat} for {m} splits")
    ints = {key: np.array(_numbers(pairs, key, m, where, _int, required=m > 0), dtype=np.int64) for key in ("left_child", "right_child", "split_feature")}
    decision = np.array(_numbers(pairs, "decision_type", m, where, _int, required=False), dtype=np.int64)
    threshold = np.array(_numbers(pairs, "threshold", m, where, float, required=m > 0), dtype=np.float64)
    internal_value = np.array(_numbers(pairs, "internal_value", m, where, float, required=False), dtype=np.float64)
    internal_count = np.array(_numbers(pairs, "internal_count", m, where, _int, required=False), dtype=np.int64)
    if n_cat:
        bounds = np.array(_numbers(pairs, "cat_boundaries", n_cat + 1, where, _int), dtype=np.int64)
        words_ = pairs.get("cat_threshold", "").split()
        cats = np.array(_numbers(pairs, "cat_threshold", len(words_), where, _int), dtype=np.int64)
    else:
        bounds, cats = np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64)
    tree = _Tree(ints["left_child"], ints["right_child"], ints["split_feature"], threshold, decision, leaf_value,
                 leaf_count, np.nan_to_num(internal_value), internal_count, bounds, cats.astype(np.uint32) if (cats >= 0).all() else cats)
    _check_tree(t, tree, n_features, n_cat)
    return tree


def _check_tree(t: int, tree: _Tree, n_features: int, n_cat: int) -> None:
    """Each inner node and leaf reached once from the root, features, decisions and bitsets valid.

    A walk that meets a node twice (a cycle or a shared child) is refused, so prediction ends
    after at most ``num_leaves - 1`` steps however the text was made."""
    m = tree.left.size
    bounds, words = tree.cat_boundaries, tree.cat_threshold
    if bounds[0] != 0 or (np.diff(bounds) < 0).any() or bounds[-1] != words.size:
        raise _fail(f"tree {t}", f"cat_boundaries {bounds[:8].tolist()}... must rise from 0 to cat_threshold's {words.size} words")
    if words.dtype != np.uint32:
        raise _fail(f"tree {t}", "cat_threshold holds a negative word")
    if bounds.size > 1 and np.diff(bounds).max() > _MAX_WORDS:
        raise _fail(f"tree {t}", f"a categorical bitset of more than {_MAX_WORDS} words")
    seen_node = np.zeros(m, dtype=bool)
    seen_leaf = np.zeros(m + 1, dtype=bool)
    stack = [0] if m else []
    if not m:
        seen_leaf[0] = True
    while stack:
        i = stack.pop()
        where = f"tree {t}, node {i}"
        if seen_node[i]:
            raise _fail(where, "reached twice from the root (a cycle or a shared child)")
        seen_node[i] = True
        f, kind = int(tree.feature[i]), int(tree.decision[i])
        if not 0 <= f < n_features:
            raise _fail(where, f"feature {f} is not one of the model's {n_features}")
        if not 0 <= kind < 16 or (kind >> 2) & 3 == 3:
            raise _fail(where, f"decision_type {kind} is not a LightGBM decision (bits: categorical, default_left, missing type 0-2)")
        th = float(tree.threshold[i])
        if kind & _CATEGORICAL:
            if not (th.is_integer() and 0 <= th < n_cat):
                raise _fail(where, f"categorical split index {th} is not one of the tree's {n_cat}")
        elif not (math.isfinite(th) or th == math.inf):  # +inf: every known value left (LightGBM splits missing values off so)
            raise _fail(where, f"threshold {th} is neither finite nor +inf")
        for child in (int(tree.left[i]), int(tree.right[i])):
            if child >= 0:
                if not 0 < child < m:
                    raise _fail(where, f"child {child} is not an inner node of the tree's {m}")
                stack.append(child)
            else:
                leaf = ~child
                if not leaf <= m:
                    raise _fail(where, f"leaf {leaf} is not one of the tree's {m + 1}")
                if seen_leaf[leaf]:
                    raise _fail(where, f"leaf {leaf} reached twice from the root")
                seen_leaf[leaf] = True
    if not seen_node.all():
        raise _fail(f"tree {t}, node {int(np.argmin(seen_node))}", "not reachable from the root")
    if not seen_leaf.all():
        raise _fail(f"tree {t}, leaf {int(np.argmin(seen_leaf))}", "not reachable from the root")


# -- LightGBM's arithmetic ----------------------------------------------------------------


def _goes_left(tree: _Tree, nodes: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Whether each raw value ``x[r]`` goes left at node ``nodes[r]``, as LightGBM decides (the module's notes)."""
    x = np.where(np.abs(x) <= _ZERO, 0.0, x)  # the C API reads these as zeros (NaN stays NaN)
    kind = tree.decision[nodes]
    missing = (kind >> 2) & 3
    default_left = (kind & _DEFAULT_LEFT) > 0
    nan = np.isnan(x)
    with np.errstate(invalid="ignore"):
        f0 = np.where(nan & (missing != _MISSING_NAN), 0.0, x)
        by_default = ((missing == _MISSING_ZERO) & (np.abs(f0) <= _ZERO)) | ((missing == _MISSING_NAN) & np.isnan(f0))
        numerical = np.where(by_default, default_left, f0 <= tree.threshold[nodes])
        # categorical: int(x) by truncation; NaN, negative and beyond int32 (x86 gives INT_MIN) go right
        usable = ~nan & (x < 2.0**31) & (x > -1.0)
        code = np.where(usable, np.trunc(np.where(usable, x, 0.0)), 0).astype(np.int64)
        split = tree.threshold[nodes].astype(np.int64) if len(tree.cat_boundaries) > 1 else np.zeros(len(nodes), dtype=np.int64)
        split = np.clip(split, 0, len(tree.cat_boundaries) - 2) if len(tree.cat_boundaries) > 1 else split
        start = tree.cat_boundaries[split]
        n_words = tree.cat_boundaries[np.minimum(split + 1, len(tree.cat_boundaries) - 1)] - start
        word = code // 32
        inside = usable & (word < n_words)
        bits = tree.cat_threshold.astype(np.int64)[np.where(inside, start + word, 0)] if tree.cat_threshold.size else np.zeros(len(nodes), dtype=np.int64)
        categorical = inside & (((bits >> (code % 32)) & 1) == 1)
    return np.where((kind & _CATEGORICAL) > 0, categorical, numerical)


def _leaves(tree: _Tree, X: np.ndarray) -> np.ndarray:
    """The leaf each row of ``X`` reaches (a walk of at most num_leaves - 1 levels, all rows at once)."""
    node = np.zeros(len(X), dtype=np.int64)
    if tree.left.size == 0:
        return node
    active = np.arange(len(X))
    while active.size:
        at = node[active]
        left = _goes_left(tree, at, X[active, tree.feature[at]])
        node[active] = np.where(left, tree.left[at], tree.right[at])
        active = active[node[active] >= 0]
    return ~node


def _raw_scores(model: _Model, X: Any) -> np.ndarray:
    """LightGBM's raw scores, shape (rows, num_tree_per_iteration): leaf values in doubles, summed from 0.0 in tree order."""
    X = np.asarray(X, dtype=np.float64)
    out = np.zeros((len(X), model.n_outputs))
    for t, tree in enumerate(model.trees):
        k = t % model.n_outputs
        out[:, k] = out[:, k] + tree.leaf_value[_leaves(tree, X)]
    return out


def _probabilities(model: _Model, raw: np.ndarray) -> np.ndarray:
    """LightGBM's ``predict()`` from the raw scores: the sigmoid (binary: one column, the positive
    class's), the softmax from the largest score (multiclass), the score itself (regression)."""
    if model.objective == "binary":
        return 1.0 / (1.0 + np.exp(-model.sigmoid * raw))
    if model.objective == "multiclass":
        e = np.exp(raw - raw.max(axis=1, keepdims=True))
        total = np.zeros(len(raw))
        for k in range(raw.shape[1]):  # wsum += exp(...) class by class, as LightGBM's Softmax
            total = total + e[:, k]
        return e / total[:, None]
    return raw


# -- puretree trees ------------------------------------------------------------------------


def _stats(value: float, count: int) -> tuple[float, float, float]:
    """Regression statistics ``(weight, sum, sum of squares)`` whose mean is exactly ``value``,
    the node's training rows (its cover) as the weight (:func:`~puretree.nodes.exact_mean`)."""
    w, total = exact_mean(value, count)
    return (w, total, value * value * w)


def _prev(x: float) -> float:
    return float(np.nextafter(x, -np.inf))


def _cuts(tree: _Tree, i: int) -> list[float]:
    """Points such that node ``i``'s decision is the same on each interval ``(p_j, p_j+1]`` between them."""
    band = [_prev(-_ZERO), _ZERO]  # [-kZero, kZero] = (prev(-kZero), kZero]
    if not tree.decision[i] & _CATEGORICAL:
        return sorted({float(tree.threshold[i]), *band})
    c = int(tree.threshold[i])
    words = tree.cat_threshold[tree.cat_boundaries[c] : tree.cat_boundaries[c + 1]].astype(np.int64)
    codes = [32 * w + b for w in range(words.size) for b in range(32) if (int(words[w]) >> b) & 1]
    # int(x) == 0 on (-1, 1); == c on [c, c + 1) = (prev(c), prev(c + 1)] for c >= 1
    points = {-1.0, _prev(1.0), *band}
    for code in codes:
        if code >= 1:
            points.update((_prev(float(code)), _prev(float(code + 1))))
    return sorted(points)


def _search(tree: _Tree, i: int) -> tuple[list[float], list[bool], bool]:
    """Node ``i`` as cut points, the side of each interval between them (True: left) with equal
    neighbours merged, and the side of NaN."""
    cuts = _cuts(tree, i)
    reps = np.array([*cuts, float(np.nextafter(cuts[-1], np.inf)), np.nan])  # each interval's top (the last's: above), then NaN
    *sides, nan_left = _goes_left(tree, np.full(reps.size, i), reps).tolist()
    kept_cuts, kept_sides = [], [sides[0]]
    for cut, side in zip(cuts, sides[1:]):
        if side != kept_sides[-1]:
            kept_cuts.append(cut)
            kept_sides.append(side)
    return kept_cuts, kept_sides, bool(nan_left)


def _node(tree: _Tree, i: int, search: tuple[list[float], list[bool], bool], left: Node, right: Node, stats: tuple[float, ...]) -> Node:
    """LightGBM's node ``i`` (its :func:`_search`) as puretree splits: a balanced search over its
    cuts whose ends are ``left`` or ``right``."""
    cuts, sides, nan_left = search
    feature = int(tree.feature[i])
    if not cuts:  # every known value goes one way
        known = left if sides[0] else right
        if sides[0] == nan_left:
            return known
        return Split(feature, Threshold(math.inf, missing_branch=1), (known, left if nan_left else right), stats)
    target = sides.index(nan_left)  # the interval NaN is sent to: one of its side's

    def build(lo: int, hi: int) -> Node:  # intervals lo..hi (inclusive); depth log2 of the cuts
        if lo == hi:
            return left if sides[lo] else right
        mid = (lo + hi) // 2  # cut ``cuts[mid]`` separates intervals lo..mid and mid+1..hi
        return Split(feature, Threshold(cuts[mid], missing_branch=0 if target <= mid else 1), (build(lo, mid), build(mid + 1, hi)), stats)

    return build(0, len(sides) - 1)


def _puretree_root(t: int, tree: _Tree) -> Node:
    """The tree's root as puretree nodes, built children first with an explicit stack (any depth)."""
    if tree.left.size == 0:
        return Leaf(_stats(float(tree.leaf_value[0]), int(tree.leaf_count[0])))
    built: dict[int, Node] = {}
    size: dict[int, int] = {}

    def child(c: int) -> tuple[Node, int]:
        if c < 0:
            return Leaf(_stats(float(tree.leaf_value[~c]), int(tree.leaf_count[~c]))), 1
        return built.pop(c), size.pop(c)

    stack = [(0, False)]
    while stack:
        i, ready = stack.pop()
        if not ready:
            stack.append((i, True))
            stack.extend((int(c), False) for c in (tree.right[i], tree.left[i]) if c >= 0)
            continue
        (a, na), (b, nb) = child(int(tree.left[i])), child(int(tree.right[i]))
        search = _search(tree, i)
        cuts, sides, _ = search
        n = 1 + len(cuts) + sum(na if s else nb for s in sides)  # the flattened size (shared subtrees counted each time)
        if n > _MAX_NODES:
            raise _fail(f"tree {t}, node {i}", f"its categorical splits make a puretree tree of more than {_MAX_NODES} nodes")
        built[i] = _node(tree, i, search, a, b, _stats(float(tree.internal_value[i]), int(tree.internal_count[i])))
        size[i] = n
    return built[0]


def _stages(model: _Model, schema: Schema | None = None) -> tuple[tuple[Tree, ...], ...]:
    """The trees as puretree regression trees, ``stages[i][k]`` iteration ``i``'s for output ``k``:
    each predicts the leaf value LightGBM's tree gives the row, on every double and NaN.

    A categorical feature is a numeric one here, holding the category codes LightGBM reads.
    ``schema``: the trees' (a regression schema on the model's features), by default one made here."""
    if schema is None:
        schema = Schema(tuple(Feature(n) for n in model.feature_names), (), task=REGRESSION)
    trees = [Tree(_puretree_root(t, tree), schema) for t, tree in enumerate(model.trees)]
    K = model.n_outputs
    return tuple(tuple(trees[i : i + K]) for i in range(0, len(trees), K))


# -- the public importer ---------------------------------------------------------------------


def _schema(model: _Model) -> Schema:
    """The Boosted model's schema: the features (numeric: a categorical one holds LightGBM's
    codes), the classes 0..K-1 (binary: 0 and 1) or a regression target."""
    features = tuple(Feature(n) for n in model.feature_names)
    if model.objective == "regression":
        return Schema(features, task=REGRESSION)
    return Schema(features, tuple(range(2 if model.objective == "binary" else model.num_class)))


def from_lightgbm(booster_or_path: Any) -> Any:
    """A LightGBM model as a :class:`~puretree.boosted.Boosted` value (``precision="float64"``):
    from a ``lightgbm.Booster`` (or a fitted ``LGBMModel``), the text it saves
    (``Booster.save_model("m.txt")``, read here without lightgbm), or that text itself.

    Objectives ``binary`` (the loss ``"binary"``: probabilities by the sigmoid of ``sigmoid * raw``,
    LightGBM's ``sigmoid`` parameter kept as the model's option), ``multiclass`` (the softmax)
    and ``regression`` (L2, the raw score), of ``gbdt`` models; numerical splits with
    ``default_left`` and every missing type (None, Zero, NaN), categorical splits with their
    bitsets. Each stage holds iteration ``i``'s tree of every output; the initial score is in
    the first trees' leaves, so ``init`` is 0 and the learning rate 1. The raw scores are
    ``Booster.predict(X, raw_score=True)``, the same double sums in the same order; the classes
    are 0..K-1 (binary: 1 where the raw score is above 0). A categorical feature is read as
    LightGBM reads it, its category code (a number: NaN and negative codes go right).
    ``linear_tree`` models, random forests and other objectives are refused with a
    :class:`~puretree.errors.ModelFormatError`, as is a malformed text (naming the tree and node).

    >>> model = from_lightgbm(_EXAMPLE)
    >>> model.loss, model.precision, len(model.stages), model.n_outputs
    ('regression', 'float64', 1, 1)
    >>> model.decision_function([[0.5, 2.0], [float("nan"), 2.0], [1e-40, 0.0]]).tolist()
    [1.5, -1.0, -1.0]
    """
    from ..boosted import Boosted, tree_schema

    text, name = _text_of(booster_or_path)
    try:
        model = _from_text(text)
        try:
            schema = _schema(model)
            stages = _stages(model, tree_schema(schema))
            options: dict[str, Any] = {"source": "lightgbm"}
            if model.objective == "binary":
                options["sigmoid"] = model.sigmoid
            return Boosted(stages, model.init, model.learning_rate, model.objective, schema, "float64", options)
        except ModelFormatError:
            raise
        except PuretreeError as exc:  # a combination no reader check above names (duplicate feature names, say)
            raise _fail("model", str(exc)) from None
    except ModelFormatError as exc:  # a file's errors name the file, as the command line shows them
        if name is None:
            raise
        raise ModelFormatError(f"{name}: {exc}") from None
