"""Invariant checks for tree code: plain functions that raise an informative ``AssertionError``.

Each ``check_*`` function returns ``None`` when the invariant holds and raises
``AssertionError`` naming what broke (the counts, the node's path, the row) when it does not.
They need nothing but puretree, so they work inside any test runner; inside a Hypothesis
property (with :mod:`puretree.strategies`) the failure is shrunk to a minimal example.

- :func:`check_impurity`: an impurity is zero on pure counts, symmetric in the classes,
  maximal at the uniform distribution, non-negative and finite, and scale-invariant.
- :func:`check_tree`: a tree is well formed (indices in range, consistent statistics).
- :func:`check_pruning`: one tree is a pruning of another.
- :func:`check_roundtrip`: a tree survives a save/load round trip, predictions included.
- :func:`check_fits_training_data`: a fully grown tree reproduces its training labels.
- :func:`check_export`: generated code (:mod:`puretree.codegen`) agrees with the model.
- :func:`boundary_cases`: the rows that sit on and around every test of a tree.

>>> from puretree.impurity import gini
>>> check_impurity(gini)                     # the built-in battery of counts
>>> check_impurity(lambda c: gini(c) + 0.1, [3, 0])
Traceback (most recent call last):
    ...
AssertionError: check_impurity: <lambda> is not zero on pure counts: f([3.0, 0.0]) = 0.1
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from .codegen.ensemble import verify
from .data import Dataset, as_dataset, encode_features, labels_array
from .fold import path_down, path_of, walk
from .io import from_json, to_dict, to_json
from .nodes import Codes, Interval, Leaf, Node, Split, children
from .predict import predict_proba
from .tasks import impurity_task
from .tree import Tree

__all__ = [
    "check_impurity",
    "check_tree",
    "check_pruning",
    "check_roundtrip",
    "check_fits_training_data",
    "check_export",
    "boundary_cases",
    "next_up",
    "next_down",
    "UNSEEN",
]

#: The value :func:`boundary_cases` uses for "a category never seen in training".
UNSEEN = "<unseen category>"

# Count vectors that break impurities written in a hurry: pure, uniform, one-off, empty
# classes, huge and tiny weights (each is also checked permuted, scaled and made pure).
_BATTERY: tuple[tuple[float, ...], ...] = (
    (1.0,), (0.0, 0.0), (1.0, 0.0), (0.0, 5.0), (1.0, 1.0), (9.0, 5.0), (2.0, 3.0, 0.0),
    (1.0, 2.0, 3.0, 4.0), (0.5, 0.25), (1e-3, 7.0), (1e6, 1.0), (3.0, 3.0, 3.0), (100.0, 0.0, 1.0),
)


def _name(f: Any) -> str:
    return getattr(f, "__name__", None) or repr(f)


def _fmt(c: Iterable[float]) -> str:
    return "[" + ", ".join(repr(float(v)) for v in c) + "]"


def _value(f: Callable[..., Any], c: np.ndarray) -> float:
    out = np.asarray(f(c), dtype=np.float64)
    if out.shape != ():
        raise AssertionError(f"check_impurity: {_name(f)} returned shape {out.shape} for one count vector {_fmt(c)}, expected a scalar")
    return float(out)


def _permutations(k: int) -> Iterable[tuple[int, ...]]:
    if k <= 4:
        return itertools.permutations(range(k))
    # Beyond 4 classes: every rotation and the reversal generate enough asymmetry to notice.
    rotations = [tuple((i + s) % k for i in range(k)) for s in range(k)]
    return rotations + [tuple(reversed(range(k)))]


def check_impurity(f: Callable[..., Any], counts: Any = None, *, rtol: float = 1e-9) -> None:
    """Check that ``f`` behaves as an impurity of class counts (see :mod:`puretree.impurity`).

    ``counts`` is one count vector, or an array of them (one per row); by default a built-in
    battery of awkward vectors. For each vector ``c`` (total weight ``n``) this checks that
    ``f(c)`` is finite and ``>= 0``; ``f`` is 0 when ``n`` is 0 and on every pure vector
    ``n * e_j``; ``f`` does not change when the classes are permuted or the counts are
    scaled by 2, 3, 1/2 or 1000 (within ``rtol``); ``f(c) <= f(uniform with total n)``; and
    ``f`` applied to the stacked vectors agrees with ``f`` applied to each (vectorisation).

    >>> from puretree.impurity import entropy
    >>> check_impurity(entropy, [[9, 5], [4, 0]])
    >>> check_impurity(lambda c: np.asarray(c, float)[..., 0], [1, 1])
    Traceback (most recent call last):
        ...
    AssertionError: check_impurity: <lambda> is not zero on pure counts: f([2.0, 0.0]) = 2.0
    """
    if impurity_task(f).is_regression:
        raise TypeError(f"check_impurity checks class impurities; {_name(f)} is a regression impurity")
    vectors = _BATTERY if counts is None else np.atleast_2d(np.asarray(counts, dtype=np.float64))
    batch = [np.asarray(c, dtype=np.float64) for c in vectors]
    for c in batch:
        if c.ndim != 1 or c.size == 0 or not np.isfinite(c).all() or (c < 0).any():
            raise ValueError(f"check_impurity: counts must be finite, non-negative vectors, got {_fmt(np.ravel(c))}")
    problem = next((p for p in (_problem(f, c, rtol) for c in batch) if p is not None), None)
    if problem is None and counts is not None and len(batch) > 1 and len({c.size for c in batch}) == 1:
        stacked = np.asarray(f(np.stack(batch)), dtype=np.float64)
        single = np.array([_value(f, c) for c in batch])
        if stacked.shape != single.shape or not np.allclose(stacked, single, rtol=rtol, atol=0.0, equal_nan=True):
            problem = f"{_name(f)} on a batch of {len(batch)} count vectors gives {stacked.tolist()}, one by one {single.tolist()}"
    if problem is not None:
        # One raise for every kind of failure, so that Hypothesis shrinks them as one bug.
        raise AssertionError(f"check_impurity: {problem}")


def _close(a: float, b: float, rtol: float) -> bool:
    return abs(a - b) <= rtol * max(1.0, abs(a), abs(b))


def _problem(f: Callable[..., Any], c: np.ndarray, rtol: float) -> str | None:
    """What is wrong with ``f`` around the count vector ``c``, or None."""
    name, k, n = _name(f), c.size, float(c.sum())
    v = _value(f, c)
    if not math.isfinite(v) or v < 0:
        return f"{name}({_fmt(c)}) = {v!r}, expected a finite number >= 0"
    if n == 0:
        if v != 0:
            return f"{name} of empty counts {_fmt(c)} is {v!r}, expected 0 (a node with no weight)"
        return None
    for j in range(k):
        p = np.where(np.arange(k) == j, n, 0.0)
        pv = _value(f, p)
        if not math.isfinite(pv) or abs(pv) > rtol:
            return f"{name} is not zero on pure counts: f({_fmt(p)}) = {pv!r}"
    for perm in _permutations(k):
        q = c[list(perm)]
        qv = _value(f, q)
        if not _close(qv, v, rtol):
            return f"{name} is not symmetric in the classes: f({_fmt(c)}) = {v!r} but f({_fmt(q)}) = {qv!r}"
    uniform = np.full(k, n / k)
    uv = _value(f, uniform)
    if not (v <= uv or _close(v, uv, rtol)):
        return f"{name} is not maximal at the uniform distribution: f({_fmt(c)}) = {v!r} > f({_fmt(uniform)}) = {uv!r}"
    for scale in (2.0, 3.0, 0.5, 1000.0):
        s = c * scale
        if not np.isfinite(s).all() or ((c > 0) & (s < np.finfo(np.float64).tiny)).any():
            continue  # the scaled counts overflow or lose precision: not the impurity's fault
        sv = _value(f, s)
        if not _close(sv, v, rtol):
            return f"{name} is not scale-invariant: f({_fmt(c)}) = {v!r} but f({_fmt(s)}) = {sv!r}"
    return None


# -- trees -------------------------------------------------------------------------------


def _branch(node: Node, i: int) -> str:
    # Two branches read as left and right, as the threshold convention says; more by number.
    return (".left" if i == 0 else ".right") if len(children(node)) == 2 else f".children[{i}]"


def _where(cell: Any) -> str:
    """A node's place, ``root.right.children[2]``, from its :func:`~puretree.fold.path_down`
    cell. Written only for a message: the cells share their paths, so a walk over every node
    with its path stays linear in memory and time at any depth."""
    return "root" + "".join(_branch(node, i) for node, i in path_of(cell))


def check_tree(tree: Tree, *, rtol: float = 1e-9) -> None:
    """Check that a tree is well formed for its schema.

    Every split tests a feature of the right kind that exists; thresholds are finite;
    category codes are in range; a multiway split has one child per category; counts
    have one entry per class (three for regression) and are not negative; and a split's
    counts equal the sum of its children's (within ``rtol`` for weighted counts), or hold it,
    at a split with surrogates (rpart's rows that no test routes stay there).

    >>> from puretree.nodes import Feature, Schema, Threshold
    >>> schema = Schema((Feature("x"),), ("a", "b"))
    >>> check_tree(Tree(Split(0, Threshold(1.0), (Leaf((1, 0)), Leaf((0, 2))), (1, 2)), schema))
    >>> check_tree(Tree(Split(0, Threshold(1.0), (Leaf((1, 0)), Leaf((0, 2))), (1, 3)), schema))
    Traceback (most recent call last):
        ...
    AssertionError: check_tree: at root, the stats [1.0, 3.0] are not the sum of the children's stats [1.0, 2.0]
    """
    schema = tree.schema
    width = 3 if schema.is_regression else len(schema.classes)
    for node, cell in walk(tree.root, path_down, None):
        if len(node.stats) != width:
            raise AssertionError(f"check_tree: at {_where(cell)}, stats {_fmt(node.stats)} have {len(node.stats)} entries, expected {width}")
        if (node.stats[0] < 0) if schema.is_regression else any(v < 0 for v in node.stats):
            raise AssertionError(f"check_tree: at {_where(cell)}, stats {_fmt(node.stats)} are negative")
        if isinstance(node, Leaf):
            continue
        if node.feature >= schema.n_features:
            raise AssertionError(f"check_tree: at {_where(cell)}, feature index {node.feature} is out of range ({schema.n_features} features)")
        feature = schema.features[node.feature]
        if node.test.feature_kind != feature.kind:
            raise AssertionError(f"check_tree: at {_where(cell)}, a {node.test.kind} split tests {feature.kind} feature {feature.name!r}")
        problem = node.test.problem(feature)
        if problem is not None:
            raise AssertionError(f"check_tree: at {_where(cell)}, {problem}")
        if any(len(kid.stats) != width for kid in children(node)):
            continue  # the child is reported when the walk reaches it
        total = np.sum([kid.stats for kid in children(node)], axis=0)
        if node.surrogates is not None and not schema.is_regression:
            # rpart's rows that no test routes stay at the split: the children hold at most its stats.
            if (total > np.asarray(node.stats) * (1 + rtol) + rtol).any():
                raise AssertionError(f"check_tree: at {_where(cell)}, the children's stats {_fmt(total)} exceed the split's {_fmt(node.stats)}")
            continue
        if not np.allclose(total, node.stats, rtol=rtol, atol=rtol):
            raise AssertionError(f"check_tree: at {_where(cell)}, the stats {_fmt(node.stats)} are not the sum of the children's stats {_fmt(total)}")


def _same_test(a: Node, b: Node) -> bool:
    return isinstance(a, Split) and isinstance(b, Split) and a.feature == b.feature and a.test == b.test


def _test_text(node: Node) -> str:
    if isinstance(node, Split):
        return f"{node.test!r} on feature {node.feature}"
    return f"Leaf({_fmt(node.stats)})"


def check_pruning(original: Tree, pruned: Tree) -> None:
    """Check that ``pruned`` is a pruning of ``original``: some subtrees replaced by leaves.

    Every split of ``pruned`` is the original's split at the same place (same test, same
    counts), and every leaf of ``pruned`` stands where the original has a leaf or a subtree,
    with that subtree's counts. Schema and missing-value strategy are unchanged. Of several
    differences, the first in reading order (pre-order, as :func:`check_tree`) is reported.

    >>> from puretree.nodes import Feature, Schema, Threshold
    >>> schema = Schema((Feature("x"),), ("a", "b"))
    >>> tree = Tree(Split(0, Threshold(1.0), (Leaf((1, 0)), Leaf((0, 2))), (1, 2)), schema)
    >>> check_pruning(tree, Tree(Leaf((1, 2)), schema))
    >>> check_pruning(tree, Tree(Leaf((0, 3)), schema))
    Traceback (most recent call last):
        ...
    AssertionError: check_pruning: the leaf at root has stats [0.0, 3.0], but the original subtree there has [1.0, 2.0]
    """
    if pruned.schema != original.schema:
        raise AssertionError("check_pruning: the pruned tree has a different schema")
    if pruned.missing != original.missing:
        raise AssertionError(f"check_pruning: the missing-value strategy changed from {original.missing!r} to {pruned.missing!r}")
    # Each node of the pruned tree is handed the original's node at the same place and its path
    # (as rewrites.is_pruning_of walks); the walk asks for the children of a split only after
    # the checks below passed on it, so a mismatched split is never gone past.
    def down(b: Node, value: tuple[Node, Any]) -> list[tuple[Node, Any]]:
        a, cell = value
        return list(zip(children(a), path_down(b, cell)))

    for b, (a, cell) in walk(pruned.root, down, (original.root, None)):
        if tuple(a.stats) != tuple(b.stats):
            what = "leaf" if isinstance(b, Leaf) else "split"
            raise AssertionError(f"check_pruning: the {what} at {_where(cell)} has stats {_fmt(b.stats)}, but the original subtree there has {_fmt(a.stats)}")
        if not isinstance(b, Leaf) and (isinstance(a, Leaf) or not _same_test(a, b)):
            raise AssertionError(f"check_pruning: at {_where(cell)} the pruned tree has {_test_text(b)}, the original {_test_text(a)}")


def check_roundtrip(
    tree: Tree,
    *,
    dumps: Callable[[Tree], Any] = to_json,
    loads: Callable[[Any], Tree] = from_json,
    rows: Any = None,
) -> None:
    """Check that ``loads(dumps(tree))`` is the same tree and predicts the same.

    By default the round trip is puretree's JSON (:mod:`puretree.io`); pass your own
    ``dumps``/``loads`` to test another serialisation. Trees are compared through their
    flat dictionary form (safe at any depth), and their class probabilities must be equal,
    bit for bit, on ``rows`` (default: :func:`boundary_cases` of the tree).

    >>> from puretree.nodes import Feature, Schema, Threshold
    >>> tree = Tree(Split(0, Threshold(0.1), (Leaf((1, 0)), Leaf((0, 2))), (1, 2)), Schema((Feature("x"),), ("a", "b")))
    >>> check_roundtrip(tree)
    >>> rounded = lambda text: from_json(text.replace("0.1", "0.1000001"))
    >>> check_roundtrip(tree, loads=rounded)
    Traceback (most recent call last):
        ...
    AssertionError: check_roundtrip: the tree changed in the round trip: nodes[0].threshold was 0.1, is now 0.1000001
    """
    back = loads(dumps(tree))
    before, after = to_dict(tree), to_dict(back)
    if before != after:
        raise AssertionError(f"check_roundtrip: the tree changed in the round trip: {_first_difference(before, after)}")
    if tree.schema.is_regression:
        return
    rows = boundary_cases(tree) if rows is None else rows
    if len(rows) == 0:
        return
    p, q = _proba_or_error(tree, rows), _proba_or_error(back, rows)
    if isinstance(p, str) or isinstance(q, str):
        if p != q:
            raise AssertionError(f"check_roundtrip: predicting failed differently: before {p!r}, after {q!r}")
        return
    bad = np.flatnonzero(~np.all((p == q) | (np.isnan(p) & np.isnan(q)), axis=1))
    if len(bad):
        i = int(bad[0])
        raise AssertionError(f"check_roundtrip: row {_row_text(rows, i)} predicts {p[i].tolist()} before and {q[i].tolist()} after")


def _proba_or_error(tree: Tree, rows: Any) -> np.ndarray | str:
    try:
        return np.atleast_2d(predict_proba(tree, rows, unseen="ignore"))  # boundary probes: unseen on purpose
    except Exception as exc:  # a predictable failure (missing="error") must stay the same failure
        return f"{type(exc).__name__}: {exc}"


def _row_text(rows: Any, i: int) -> str:
    try:
        return repr(rows[i])
    except Exception:
        return f"#{i}"


def _first_difference(a: Any, b: Any, where: str = "") -> str:
    """Where two JSON-like values first differ, e.g. ``nodes[3].threshold was 1.5, is now 2``."""
    if isinstance(a, dict) and isinstance(b, dict):
        for key in list(a) + [k for k in b if k not in a]:
            if key not in a or key not in b:
                return f"{where + '.' if where else ''}{key} is {'missing' if key not in b else 'new'}"
            if a[key] != b[key] or type(a[key]) is not type(b[key]):
                return _first_difference(a[key], b[key], f"{where}.{key}" if where else str(key))
    if isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            return f"{where} had {len(a)} entries, has {len(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y or type(x) is not type(y):
                return _first_difference(x, y, f"{where}[{i}]")
    return f"{where} was {json.dumps(a)}, is now {json.dumps(b)}"


def _row_key(row: list[float]) -> tuple[float | None, ...]:
    # NaN is not equal to itself, so a missing cell is keyed as None: identical rows stay one group.
    return tuple(None if math.isnan(v) else v for v in row)


def check_fits_training_data(tree: Tree, X: Any, y: Any = None, *, sample_weight: Any = None) -> None:
    """Check that a fully grown tree reproduces its training data.

    Without stopping rules a tree splits until its leaves are pure or hold identical rows,
    so every training row must be predicted as a label of greatest total weight among the
    rows with the same features (for consistent data: its own label). ``X``/``y`` are
    anything :func:`puretree.data.as_dataset` accepts, e.g. the :class:`Dataset` itself.
    With sample weights, a score may refuse a split that isolates a negligible weight (gain
    ratio needs a split information above 1e-12), so test weighted data with a score that
    does not, such as Gini's impurity decrease.

    >>> from puretree.grow import id3
    >>> from puretree.datasets import load_playtennis
    >>> data = load_playtennis()
    >>> check_fits_training_data(id3(data), data)
    >>> check_fits_training_data(id3(data, max_depth=1), data)
    Traceback (most recent call last):
        ...
    AssertionError: check_fits_training_data: row 5 {'outlook': 'rain', 'temperature': 'cool', 'humidity': 'normal', 'wind': 'strong'} is predicted 'yes', but its label is 'no'
    """
    ds = X if isinstance(X, Dataset) and y is None else as_dataset(X, y, sample_weight=sample_weight)
    if ds.y is None:
        raise ValueError("check_fits_training_data needs the training labels")
    if ds.schema.is_regression:
        raise TypeError("check_fits_training_data checks classification trees")
    w = np.ones(ds.n_rows) if ds.sample_weight is None else ds.sample_weight
    groups: dict[tuple[float | None, ...], np.ndarray] = {}
    k = len(ds.schema.classes)
    keys = [_row_key(row) for row in ds.X.tolist()]
    for key, label, weight in zip(keys, ds.y.tolist(), w.tolist()):
        groups.setdefault(key, np.zeros(k))[label] += weight
    predicted = tree.predict(ds)
    labels = labels_array(ds.schema.classes)
    for i, (row, key, p) in enumerate(zip(ds.X.tolist(), keys, predicted.tolist())):
        weights = groups[key]
        if weights.max() <= 0:
            continue  # rows of zero weight teach the tree nothing
        best = {labels[j].item() for j in np.flatnonzero(weights == weights.max())}
        if p not in best:
            shown = {f.name: (v if f.is_numeric or math.isnan(v) or v < 0 else f.categories[int(v)]) for f, v in zip(ds.schema.features, row)}
            expected = f"its label is {labels[ds.y[i]].item()!r}" if len(best) == 1 and weights.sum() == weights.max() else f"the heaviest labels of identical rows are {sorted(best, key=repr)}"
            raise AssertionError(f"check_fits_training_data: row {i} {shown} is predicted {p!r}, but {expected}")


def check_export(tree: Tree, target: str, *, feature_type: str = "double", rows: Any = None, **options: Any) -> None:
    """Check that the code generated for ``target`` predicts exactly as ``tree`` does.

    The code is generated, compiled or loaded and run by :func:`puretree.codegen.verify` on
    ``rows`` (default: :func:`boundary_cases` of the tree with missing cells, at float32
    values for ``feature_type="float"``) and on its own threshold neighbourhoods; every
    class probability must be equal bit for bit. ``options`` go to the code generator
    (``form``, ``index_type``, ``name``, ...).

    >>> from puretree.nodes import Feature, Schema, Threshold
    >>> tree = Tree(Split(0, Threshold(0.1), (Leaf((1, 0)), Leaf((0, 2))), (1, 2)), Schema((Feature("x"),), ("a", "b")))
    >>> check_export(tree, "python")
    """

    if rows is None:
        rows = boundary_cases(tree, width=32 if feature_type == "float" else 64, missing=True)
    if isinstance(rows, np.ndarray) and rows.dtype.kind == "f" and rows.ndim == 2:
        X = rows
    elif len(rows) == 0:
        X = np.zeros((0, tree.schema.n_features))
    else:
        X = encode_features(tree.schema, rows)
    report = verify(tree, X, target, feature_type=feature_type, **options)
    if report.mismatches:
        shown = "; ".join(f"row {_encoded_text(tree, row)}: model {want!r}, code {got!r}" for row, want, got in report.mismatches[:3])
        raise AssertionError(f"check_export: the {target} code disagrees with the model on {len(report.mismatches)} of {report.n_checked} rows: {shown}")


def _encoded_text(tree: Tree, row: Any) -> str:
    try:
        values = np.asarray(row, dtype=np.float64).tolist()
    except (TypeError, ValueError):
        return repr(row)
    out = {}
    for f, v in zip(tree.schema.features, values):
        out[f.name] = v if f.is_numeric or math.isnan(v) else (f.categories[int(v)] if 0 <= v < len(f.categories) else UNSEEN)
    return repr(out)


# -- boundary rows -----------------------------------------------------------------------


def next_up(x: float, *, width: int = 64) -> float:
    """The next representable value above ``x`` (float64, or float32 with ``width=32``).

    >>> next_up(1.0) - 1.0 == 2.0 ** -52, next_up(1.0, width=32) - 1.0 == 2.0 ** -23
    (True, True)
    """
    if width == 32:
        with np.errstate(over="ignore"):
            return float(np.nextafter(np.float32(x), np.float32(np.inf)))
    return math.nextafter(x, math.inf)


def next_down(x: float, *, width: int = 64) -> float:
    """The next representable value below ``x`` (float64, or float32 with ``width=32``)."""
    if width == 32:
        with np.errstate(over="ignore"):
            return float(np.nextafter(np.float32(x), np.float32(-np.inf)))
    return math.nextafter(x, -math.inf)


def _around(t: float, width: int) -> list[float]:
    """A threshold and its representable neighbours; for float32, the float32 values that
    bracket it (a float32 input is compared with the float64 threshold, or with the threshold
    rounded to float32 by a C ``float`` target: both sides are covered)."""
    if width == 64:
        values = [next_down(t), t, next_up(t)]
    else:
        f = float(np.float32(t)) if abs(t) <= float(np.finfo(np.float32).max) else math.copysign(float(np.finfo(np.float32).max), t)
        below = f if f <= t else next_down(f, width=32)
        above = f if f >= t else next_up(f, width=32)
        values = [next_down(below, width=32), below, above, next_up(above, width=32)]
    return [v for v in values if math.isfinite(v)]


def _unseen(categories: Sequence[Any]) -> str:
    value = UNSEEN
    while value in categories:
        value += "'"
    return value


def boundary_cases(tree: Tree, *, width: int = 64, missing: bool = False, unseen: bool = True) -> list[dict[str, Any]]:
    """Rows that probe every test of ``tree`` exactly at its boundary.

    For every split reachable from the root, rows that follow the path to that split (their
    other features chosen inside every test on the way) and then carry, in the split's
    feature, each of: the threshold and the next representable value on either side
    (``width=64``: float64; ``width=32``: the float32 values around the threshold); or every
    category of a categorical test plus one never seen in training (``unseen=True``); plus
    a missing cell (``None``) when ``missing=True``. Rows are mappings from feature name to
    raw value (category values, not codes), in pre-order of the splits, without duplicates.

    >>> from puretree.nodes import Feature, Schema, Threshold
    >>> tree = Tree(Split(0, Threshold(1.0), (Leaf((1, 0)), Leaf((0, 2))), (1, 2)), Schema((Feature("x"),), ("a", "b")))
    >>> [row["x"] for row in boundary_cases(tree)]
    [0.9999999999999999, 1.0, 1.0000000000000002]
    """
    if width not in (32, 64):
        raise ValueError(f"width must be 32 or 64, got {width!r}")
    schema = tree.schema
    features = schema.features
    rows: list[dict[str, Any]] = []
    seen: set[str] = set()
    # Per feature: what the path allows, as the tests' constraints say (an interval or codes).
    start: tuple[Any, ...] = tuple(Interval() if f.is_numeric else Codes(range(len(f.categories))) for f in features)

    # Each node is handed what the path to it allows, or None when no row can reach it (some
    # feature's constraint is empty); an unreachable node hands None on to its children.
    def down(node: Node, limits: tuple[Any, ...] | None) -> list[tuple[Any, ...] | None]:
        if limits is None or not isinstance(node, Split):
            return [None] * len(children(node))
        j = node.feature
        return [None if lim[j].is_empty else lim for _, lim in _child_limits(node, limits, features[j])]

    for node, limits in walk(tree.root, down, start):
        if limits is None or isinstance(node, Leaf):
            continue
        j = node.feature
        base = {f.name: _inside(f, lim, width) for f, lim in zip(features, limits)}
        feature = features[j]
        if feature.is_numeric:
            # Around every bound the branches set: for a threshold, x = t and its neighbours.
            bounds = sorted({b for c in node.test.constraints(feature) for b in (c.lo, c.hi) if math.isfinite(b)})
            probes: list[Any] = [v for b in bounds for v in _around(b, width)]
        else:
            probes = list(feature.categories) + ([_unseen(feature.categories)] if unseen else [])
        if missing:
            probes.append(None)
        for value in probes:
            row = dict(base)
            row[feature.name] = value
            key = repr(sorted(row.items(), key=lambda kv: kv[0]))
            if key not in seen:
                seen.add(key)
                rows.append(row)
    return rows


def _inside(feature: Any, limit: Any, width: int) -> Any:
    """A value satisfying a path's constraint on one feature."""
    if feature.is_numeric:
        lo, hi = limit.lo, limit.hi
        if math.isfinite(hi):
            return hi  # x <= hi holds, and hi > lo for a reachable node
        if math.isfinite(lo):
            up = next_up(lo, width=width)
            return up if math.isfinite(up) else lo
        return 0.0
    codes = limit.codes
    if not codes:
        return None if not feature.categories else feature.categories[0]
    return feature.categories[codes[0]]


def _child_limits(node: Split, limits: tuple[Any, ...], feature: Any) -> list[tuple[Node, tuple[Any, ...]]]:
    """Each child with the path's constraints narrowed by its branch's constraint."""
    j = node.feature
    return [(kid, limits[:j] + (limits[j].meet(c),) + limits[j + 1 :]) for kid, c in zip(node.children, node.test.constraints(feature))]