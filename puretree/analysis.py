"""Exact answers about models, over their boxes: ``diff(a, b)``, the input boxes where two
models answer differently.

Each model cuts the input space into boxes (a tree: its leaves; an ensemble or a boosted model:
the non-empty intersections of one leaf per member tree, :mod:`puretree.monotone`'s boxes), and
answers one constant in each. Two models overlaid cut it into the intersections of one leaf of
every tree of both; :func:`diff` finds those where the answers differ: the class, or for
regression a value more than ``tolerance`` apart. It never enumerates them all: it goes down one
tree at a time (the one with the fewest leaves left in the box), keeps for every tree only the
leaves that meet the box, and stops refining a box as soon as the leaves left bound both answers
enough to decide them (both classes known: the box is returned whole if they differ, dropped if
they agree; both values within ``tolerance``: dropped). The bounds carry a margin for the float
rounding of the sums; a box too close to call is refined to single leaves, and every returned
box's answers are the models' own predictions at a point of it, so the boxes are exact: every
row (without missing values, with categories the models know) inside a returned box gets two
different answers, every row outside all of them the same answer.

A box is an interval ``lo < x <= hi`` per numeric feature and a set of categories per
categorical one. A model that reads its numeric features as float32 (XGBoost's, precision
``"float32"``) sends ``x`` left at a split ``t`` when ``float32(x) <= t``: its boxes' limits
are moved to the largest double that rounds to ``t`` or below, so that the boxes are exact for
the rows as given. **Cost**: one step per box visited, each ``O(L * (d + c))`` for the ``L`` leaves still
meeting the box, ``d`` the features the step narrows and ``c`` the bound columns (1 for
regression and two classes, ``K * (K - 1) / 2`` for ``K``); the number of boxes visited is
bounded by the boxes found and their refinement, and ``max_boxes`` stops the search.

>>> import numpy as np
>>> from puretree.grow import cart_regressor
>>> X = np.arange(8.0).reshape(-1, 1)
>>> old = cart_regressor(X, np.array([0, 0, 0, 0, 1, 1, 1, 1.0]))
>>> new = cart_regressor(X, np.array([0, 0, 0, 0, 0, 1, 1, 1.0]))
>>> d = diff(old, new, X=X)
>>> d.complete, len(d.boxes)
(True, 1)
>>> box = d.boxes[0]
>>> box.text(d.schema), box.a, box.b, box.weight
('3.5 < x0 <= 4.5', 1.0, 0.0, 1.0)
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Any

import attrs
import numpy as np

from .boosted import Boosted, leaf_values, table
from .data import encode_features
from .ensemble import Ensemble, vote_total
from .errors import DataError, ParameterError, PuretreeError, shown
from .monotone import box_row, leaf_boxes, member_trees, model_boxes, start_box
from .nodes import Codes, Interval, Schema, format_number
from .predict import predict as walk_predict
from .predict import predict_proba as tree_proba
from .predict import predict_value as tree_value
from .tree import Tree

__all__ = ["diff", "Diff", "DiffBox", "robustness", "Robustness", "counterfactual", "Counterfactual", "NORMS", "METHODS", "SolverUnavailableError"]

#: Boxes gathered before their answers are predicted (a batch per model).
_CHUNK = 2048


@attrs.frozen
class DiffBox:
    """One box where the two models differ: ``bounds`` (per feature an
    :class:`~puretree.nodes.Interval` ``lo < x <= hi`` or the :class:`~puretree.nodes.Codes` of its
    categories, in schema order), each model's answer (a class, or a predicted value) and the
    weight of the given rows that fall in it (None when no data was given)."""

    bounds: tuple[Any, ...]
    a: Any
    b: Any
    weight: float | None = None

    def text(self, schema: Schema) -> str:
        """The box as conditions on the features it limits (``everywhere`` when none)."""
        parts = []
        for feature, limit in zip(schema.features, self.bounds):
            name = feature.name
            if isinstance(limit, Codes):
                if len(limit.codes) < len(feature.categories):
                    parts.append(f"{name} in {{{', '.join(str(feature.categories[c]) for c in limit.codes)}}}")
            elif limit.lo > -math.inf and limit.hi < math.inf:
                parts.append(f"{format_number(limit.lo)} < {name} <= {format_number(limit.hi)}")
            elif limit.hi < math.inf:
                parts.append(f"{name} <= {format_number(limit.hi)}")
            elif limit.lo > -math.inf:
                parts.append(f"{name} > {format_number(limit.lo)}")
        return " and ".join(parts) or "everywhere"

    def contains(self, schema: Schema, row: Any) -> bool:
        """Whether a row (a mapping by feature name, or values in schema order) lies in the box."""
        x = encode_features(schema, row if isinstance(row, Mapping) else [row])[0]
        return _inside(self.bounds, x)


def _inside(bounds: tuple[Any, ...], x: np.ndarray) -> bool:
    for limit, v in zip(bounds, x.tolist()):
        if isinstance(limit, Codes):
            if v not in limit.codes:
                return False
        elif not (limit.lo < v <= limit.hi):
            return False
    return True


@attrs.frozen
class Diff:
    """What :func:`diff` found: the boxes where the models differ, whether they are all of them
    (``complete``: False when the search stopped at ``max_boxes``), the models' schema, the
    tolerance and, when data was given, the total weight of the rows in the boxes and of all rows."""

    boxes: tuple[DiffBox, ...]
    complete: bool
    schema: Schema
    tolerance: float = 0.0
    weight: float | None = None
    total_weight: float | None = None

    def summary(self) -> str:
        """One line: how many boxes (all, or the first found), and the data's weight in them."""
        n = len(self.boxes)
        what = "regression values more than " + format_number(self.tolerance) + " apart" if self.schema.is_regression else "different classes"
        line = f"{n} box{'es' if n != 1 else ''} where the models answer {what}"
        if not self.complete:
            line += f" (stopped at {n}: there are more)"
        if self.weight is not None:
            line += f"; {format_number(self.weight)} of {format_number(self.total_weight or 0.0)} data weight falls in them"
        return line

    def to_text(self) -> str:
        """The summary, then a line per box: its answers, its weight and its conditions."""
        lines = [self.summary()]
        for i, box in enumerate(self.boxes, 1):
            weight = "" if box.weight is None else f" weight={format_number(box.weight)}"
            lines.append(f"{i}: a={_answer_text(box.a)} b={_answer_text(box.b)}{weight}: {box.text(self.schema)}")
        return "\n".join(lines)


def _answer_text(value: Any) -> str:
    return format_number(value) if isinstance(value, float) else str(value)


# -- each model as leaf contributions ---------------------------------------------------


@attrs.frozen
class _Scored:
    """A model as the trees whose leaves cut its space: per tree its leaf boxes and each leaf's
    contribution to the model's score columns (summed with ``base``), how the answer reads the
    columns (``kind``) and the float rounding the bounds must allow for (``eps``)."""

    boxes: list[list[tuple[Any, ...]]]
    columns: list[np.ndarray]  # per tree: leaves x columns
    base: np.ndarray
    kind: str  # "value": the column is the value; "sign": class 1 when above 0; "argmax": pairwise differences
    n_classes: int
    eps: float


def _pairs(vec: np.ndarray) -> np.ndarray:
    """The differences ``v_c - v_j`` for every ``c < j`` (an argmax's bound columns)."""
    k = vec.shape[1]
    return np.stack([vec[:, c] - vec[:, j] for c in range(k) for j in range(c + 1, k)], axis=1) if k > 1 else np.zeros((len(vec), 0))


def _to_float32_space(box: tuple[Any, ...]) -> tuple[Any, ...]:
    """A float32 model's leaf box in the doubles it is given: ``float32(x) <= t`` is ``x <= h(t)``."""
    return tuple(Interval(_below32(b.lo), _below32(b.hi)) if isinstance(b, Interval) else b for b in box)


def _below32(t: float) -> float:
    """The largest double ``x`` with ``float32(x) <= t`` (``t`` itself when infinite)."""
    if not math.isfinite(t):
        return t
    f = np.float32(t)
    if float(f) > t:
        f = np.nextafter(f, np.float32(-np.inf))
    up = np.nextafter(f, np.float32(np.inf))
    m = (float(f) + float(up)) / 2 if np.isfinite(up) else float(f) + float(np.spacing(f)) / 2
    with np.errstate(over="ignore"):
        return m if np.float32(m) == f else float(np.nextafter(m, -np.inf))


def _as_batch(schema: Schema, rows: list[dict[str, Any]]) -> Any:
    """Rows as an array in schema order when every feature is numeric (the fast form to predict)."""
    if all(f.is_numeric for f in schema.features):
        return np.array([[row[name] for name in schema.feature_names] for row in rows], dtype=np.float64).reshape(len(rows), schema.n_features)
    return rows


def _scored(model: Any, schema: Schema) -> _Scored:
    start = start_box(schema)
    trees = member_trees(model)
    boxes = [leaf_boxes(t, start) for t in trees]
    rows = [_as_batch(schema, [box_row(schema, b) for b in bs]) for bs in boxes]
    k = 1 if schema.is_regression else len(schema.classes)
    unit = 2.0**-52
    if isinstance(model, Tree):
        if schema.is_regression:
            vecs = [np.asarray(tree_value(model, rows[0], unseen="ignore"), dtype=np.float64).reshape(-1, 1)]
        else:
            labels = walk_predict(model, rows[0], unseen="ignore")
            index = {c: i for i, c in enumerate(schema.classes)}
            vecs = [np.eye(k)[[index[c] for c in labels.tolist()]]]
        base, kind = np.zeros(k if k > 1 else 1), "value" if schema.is_regression else "argmax"
    elif isinstance(model, Ensemble):
        total = vote_total(model)
        vecs = []
        for tree, w, r in zip(trees, model.weights, rows):
            if schema.is_regression:
                vecs.append(w * np.asarray(tree_value(tree, r, unseen="ignore"), dtype=np.float64).reshape(-1, 1) / total)
            else:
                p = np.asarray(tree_proba(tree, r, unseen="ignore"), dtype=np.float64).reshape(len(r), -1)
                if model.method == "adaboost":
                    hit = np.argmax(p, axis=1)[:, None] == np.arange(k)[None, :]
                    p = np.where(hit, 1.0, -1.0 / (k - 1) if k > 1 else 0.0)
                vecs.append(w * p / total)
        base, kind = np.zeros(k if k > 1 else 1), "value" if schema.is_regression else "argmax"
    elif isinstance(model, Boosted):
        outputs = model.n_outputs
        vecs = []
        for i, (tree, r) in enumerate(zip(trees, rows)):
            v = np.zeros((len(r), outputs))
            if model.stages:
                v[:, i % outputs] = model.learning_rate * leaf_values(table(tree), encode_features(schema, r))
            vecs.append(v)
        base = np.asarray(model.init, dtype=np.float64)
        kind = "value" if schema.is_regression else ("sign" if outputs == 1 else "argmax")
        if model.precision == "float32":
            boxes = [[_to_float32_space(b) for b in bs] for bs in boxes]
            unit = 2.0**-23
    else:
        raise ParameterError(f"diff compares puretree Trees, Ensembles and Boosted models, got {type(model).__name__}")
    scale = float(np.abs(base).sum()) + sum(float(np.abs(v).max(initial=0.0)) * v.shape[1] for v in vecs)
    eps = 8.0 * unit * (len(vecs) + 2) * max(scale, 1e-300)
    columns = [(_pairs(v) if kind == "argmax" else v) for v in vecs]
    base_columns = _pairs(base.reshape(1, -1))[0] if kind == "argmax" else base
    return _Scored(boxes, columns, base_columns, kind, k, eps)


def _decide(s: _Scored, lower: np.ndarray, upper: np.ndarray) -> int | None:
    """The class the bounds settle (None: not yet)."""
    if s.kind == "sign":
        return 1 if lower[0] > s.eps else 0 if upper[0] < -s.eps else None
    k = s.n_classes
    if k == 1:
        return 0
    if k == 2:  # one column, v_0 - v_1
        return 0 if lower[0] > s.eps else 1 if upper[0] < -s.eps else None
    # c wins when every lower bound of v_c - v_j is above eps (the column of j < c is v_j - v_c).
    first, second = _PAIRS.get(k) or _PAIRS.setdefault(k, tuple(np.array(v) for v in zip(*[(c, j) for c in range(k) for j in range(c + 1, k)])))
    margin = np.full((k, k), np.inf)
    margin[first, second] = lower
    margin[second, first] = -upper
    winners = np.flatnonzero((margin > s.eps).all(axis=1))
    return int(winners[0]) if len(winners) else None


_PAIRS: dict[int, tuple[np.ndarray, ...]] = {}


# -- the search -------------------------------------------------------------------------


def _check_pair(a: Any, b: Any) -> Schema:
    for name, m in (("a", a), ("b", b)):
        if not isinstance(m, (Tree, Ensemble, Boosted)):
            raise ParameterError(f"diff compares puretree Trees, Ensembles and Boosted models; {name} is a {type(m).__name__}")
    sa, sb = a.schema, b.schema
    if sa.features != sb.features:
        raise ParameterError(f"the models read different features: {list(sa.feature_names)[:8]} and {list(sb.feature_names)[:8]} (or their kinds or categories differ)")
    if sa.is_regression != sb.is_regression:
        raise ParameterError(f"one model is a regression model, the other a classifier ({sa.task!r} and {sb.task!r})")
    if sa.classes != sb.classes:
        raise ParameterError(f"the classifiers have different classes: {list(sa.classes)[:8]} and {list(sb.classes)[:8]}")
    return sa


def _data(schema: Schema, X: Any, sample_weight: Any) -> tuple[np.ndarray | None, np.ndarray | None]:
    if X is None:
        if sample_weight is not None:
            raise ParameterError("sample_weight goes with X: the weights are those of X's rows")
        return None, None
    Xe = np.asarray(encode_features(schema, X), dtype=np.float64)
    if sample_weight is None:
        return Xe, np.ones(len(Xe))
    try:
        w = np.asarray(sample_weight, dtype=np.float64).reshape(-1)
    except (TypeError, ValueError):
        raise DataError(f"sample_weight must be numbers, got {shown(sample_weight)}") from None
    if len(w) != len(Xe):
        raise DataError(f"sample_weight has {len(w)} values for {len(Xe)} rows")
    bad = np.flatnonzero(~(np.isfinite(w) & (w >= 0)))
    if len(bad):
        raise DataError(f"sample_weight of row {int(bad[0])} is {shown(float(w[bad[0]]))}: weights must be finite and >= 0")
    return Xe, w


def _check_options(tolerance: Any, max_boxes: Any) -> tuple[float, int]:
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float, np.integer, np.floating)) or not (0 <= float(tolerance) < math.inf):
        raise ParameterError(f"tolerance must be a finite number >= 0, got {shown(tolerance)}")
    if isinstance(max_boxes, bool) or not isinstance(max_boxes, (int, np.integer)) or max_boxes < 1:
        raise ParameterError(f"max_boxes must be an integer >= 1, got {shown(max_boxes)}")
    return float(tolerance), int(max_boxes)


def diff(a: Any, b: Any, *, tolerance: float = 0.0, X: Any = None, sample_weight: Sequence[float] | np.ndarray | None = None, max_boxes: int = 100_000) -> Diff:
    """The boxes of inputs where models ``a`` and ``b`` (trees, ensembles or boosted models on
    the same features) answer differently: another class, or for regression values more than
    ``tolerance`` apart. With rows ``X`` (any form :func:`~puretree.predict.predict` takes), each
    box carries the weight of the rows in it (``sample_weight``, by default 1 a row). The search
    stops once more than ``max_boxes`` boxes are found, with the first ``max_boxes`` and
    ``complete=False``. See the module notes for how it is exact and what it costs.

    >>> from puretree.datasets import load_playtennis
    >>> from puretree.grow import id3, cart
    >>> data = load_playtennis()
    >>> d = diff(id3(data), cart(data, max_depth=1))
    >>> d.summary()
    '2 boxes where the models answer different classes'
    >>> [(box.text(d.schema), box.a, box.b) for box in d.boxes]
    [('outlook in {sunny} and humidity in {normal}', 'yes', 'no'), ('outlook in {rain} and wind in {weak}', 'yes', 'no')]
    """
    schema = _check_pair(a, b)
    tol, limit = _check_options(tolerance, max_boxes)
    Xe, weights = _data(schema, X, sample_weight)
    sa, sb = _scored(a, schema), _scored(b, schema)
    n_features = schema.n_features
    numeric = [f.is_numeric for f in schema.features]
    # One table of every leaf of both models' trees, tree by tree.
    leaf_lo, leaf_hi, tree_of, cols = [], [], [], []
    ca, cb = len(sa.base), len(sb.base)
    cats: dict[int, list[list[bool]]] = {j: [] for j in range(n_features) if not numeric[j]}
    t = 0
    for side, s in ((0, sa), (1, sb)):
        for boxes, columns in zip(s.boxes, s.columns):
            for box, col in zip(boxes, columns):
                leaf_lo.append([lim.lo if isinstance(lim, Interval) else -math.inf for lim in box])
                leaf_hi.append([lim.hi if isinstance(lim, Interval) else math.inf for lim in box])
                for j in cats:
                    cats[j].append([c in box[j].codes for c in range(len(schema.features[j].categories))])
                tree_of.append(t)
                cols.append(np.concatenate([col, np.zeros(cb)]) if side == 0 else np.concatenate([np.zeros(ca), col]))
            t += 1
    lo_all = np.array(leaf_lo).reshape(-1, n_features)
    hi_all = np.array(leaf_hi).reshape(-1, n_features)
    lo_by_feature, hi_by_feature = np.ascontiguousarray(lo_all.T), np.ascontiguousarray(hi_all.T)
    cat_all = {j: np.array(v, dtype=bool) for j, v in cats.items()}
    tree_all = np.array(tree_of, dtype=np.int64)
    col_all = np.array(cols).reshape(len(tree_of), ca + cb)
    base = np.concatenate([sa.base, sb.base])
    regression = schema.is_regression

    found: list[DiffBox] = []
    made: dict[Any, Any] = {}
    pending: list[tuple[np.ndarray, np.ndarray, dict[int, np.ndarray], np.ndarray | None]] = []

    def flush() -> None:
        if not pending:
            return
        points = _points(schema, pending)
        ya, yb = walk_predict(a, points, unseen="ignore"), walk_predict(b, points, unseen="ignore")
        for (lo, hi, cat, rows), va, vb in zip(pending, ya.tolist(), yb.tolist()):
            differ = abs(va - vb) > tol if regression else va != vb
            if differ:
                w = None if rows is None or weights is None else float(weights[rows].sum())
                found.append(DiffBox(_bounds(schema, lo, hi, cat, made), va, vb, w))
        pending.clear()

    start_lo = np.full(n_features, -math.inf)
    start_hi = np.full(n_features, math.inf)
    start_cat = {j: np.ones(len(schema.features[j].categories), dtype=bool) for j in cats}
    start_rows = None if Xe is None else np.arange(len(Xe))
    stack = [(start_lo, start_hi, start_cat, np.arange(len(tree_all)), start_rows)]
    complete = True
    n_trees = int(tree_all[-1]) + 1 if len(tree_all) else 0
    columns_open = {(x, y): np.repeat([x, y], [ca, cb]) for x in (False, True) for y in (False, True)}
    width = ca + cb
    signed_all = np.concatenate([col_all, -col_all], axis=1)
    while stack:
        lo, hi, cat, idx, rows = stack.pop()
        groups = tree_all[idx]
        counts = np.bincount(groups, minlength=n_trees)
        if counts.all():  # every tree has leaves left in the box (the box is not empty)
            starts = np.cumsum(counts) - counts
        else:
            starts = np.concatenate(([0], np.flatnonzero(groups[1:] != groups[:-1]) + 1))
            counts = np.diff(np.append(starts, len(idx)))
        # Each tree's least and (negated) greatest column values in one pass: max(x) = -min(-x),
        # and a sum of negated values the negated sum, exactly.
        least = np.minimum.reduceat(signed_all.take(idx, axis=0), starts, axis=0)
        low, high = least[:, :width], -least[:, width:]
        sums = least.sum(axis=0)
        lower, upper = base + sums[:width], base - sums[width:]
        if regression:
            gap_lo = lower[0] - upper[ca]
            gap_hi = upper[0] - lower[ca]
            if gap_lo >= -tol + sa.eps + sb.eps and gap_hi <= tol - sa.eps - sb.eps:
                continue  # the values agree everywhere in the box
            open_columns = np.ones(ca + cb, dtype=bool)
        else:
            da, db = _decide(sa, lower[:ca], upper[:ca]), _decide(sb, lower[ca:], upper[ca:])
            if da is not None and da == db:
                continue
            open_columns = columns_open[da is None, db is None]
        # How much each tree's leaves left in the box still move the answers not yet settled.
        spread = (high - low)[:, open_columns].sum(axis=1)
        if not spread.any():  # both answers settled (or constant) in the whole box
            pending.append((lo, hi, cat, rows))
            if len(pending) >= min(_CHUNK, limit + 1 - len(found)):
                flush()
                if len(found) > limit:
                    complete = False
                    break
            continue
        # Branch on the tree whose leaves left move the unsettled answers most.
        g = int(np.argmax(spread))
        leaves = idx[starts[g]:starts[g] + counts[g]]
        if ca == cb == 1:
            # Visit first the leaf that pulls the two answers furthest apart (the midpoints of
            # their bounds with this tree's leaf fixed): boxes where they differ come sooner.
            mid = (lower + upper) / 2 - (low[g] + high[g]) / 2 + col_all[leaves]
            apart = np.abs(mid[:, 0] - mid[:, 1]) if regression else -mid[:, 0] * mid[:, 1]
            leaves = leaves[np.argsort(apart, kind="stable")]
        for leaf in leaves.tolist():
            stack.append(_narrowed(lo, hi, cat, idx, rows, leaf, lo_all, hi_all, lo_by_feature, hi_by_feature, cat_all, Xe))
    if complete:
        flush()
        if len(found) > limit:
            complete = False
    total = None if weights is None else float(weights.sum())
    kept = tuple(found[:limit])
    weight = None if weights is None else float(sum(box.weight or 0.0 for box in kept))
    return Diff(kept, complete, schema, tol, weight, total)


def _narrowed(lo: np.ndarray, hi: np.ndarray, cat: dict[int, np.ndarray], idx: np.ndarray, rows: np.ndarray | None, leaf: int,
              lo_all: np.ndarray, hi_all: np.ndarray, lo_by_feature: np.ndarray, hi_by_feature: np.ndarray,
              cat_all: dict[int, np.ndarray], Xe: np.ndarray | None) -> tuple[Any, ...]:
    """The box met with one leaf's: its limits, the leaves of every tree that still meet it, the rows in it."""
    new_lo = np.maximum(lo, lo_all[leaf])
    new_hi = np.minimum(hi, hi_all[leaf])
    keep = None
    for j in np.flatnonzero((new_lo > lo) | (new_hi < hi)).tolist():  # the few features the leaf narrows
        meets = (lo_by_feature[j].take(idx) < new_hi[j]) & (hi_by_feature[j].take(idx) > new_lo[j])
        keep = meets if keep is None else keep & meets
        if rows is not None:
            x = Xe[rows, j]  # type: ignore[index]
            rows = rows[(x > new_lo[j]) & (x <= new_hi[j])]
    if not cat_all:
        return new_lo, new_hi, cat, idx if keep is None else idx[keep], rows
    if keep is None:
        keep = np.ones(len(idx), dtype=bool)
    new_cat = dict(cat)
    for j, table_j in cat_all.items():
        met = cat[j] & table_j[leaf]
        if not np.array_equal(met, cat[j]):
            new_cat[j] = met
            keep &= (table_j[idx] & met).any(axis=1)
            if rows is not None:
                codes = Xe[rows, j]  # type: ignore[index]
                ok = (codes >= 0) & (codes < len(met))
                inside = np.zeros(len(rows), dtype=bool)
                inside[ok] = met[codes[ok].astype(np.int64)]
                rows = rows[inside]
    return new_lo, new_hi, new_cat, idx[keep], rows


def _points(schema: Schema, boxes: list[tuple[Any, ...]]) -> Any:
    """A row inside each box, as :func:`puretree.monotone.box_row` takes it (an array in schema
    order when every feature is numeric: the fast form to predict)."""
    lo = np.array([box[0] for box in boxes]).reshape(len(boxes), -1)
    hi = np.array([box[1] for box in boxes]).reshape(len(boxes), -1)
    with np.errstate(over="ignore", invalid="ignore"):  # an infinite lo is not used: only where it is finite
        above = lo + np.maximum(1.0, np.abs(lo))
        above = np.where(np.isfinite(above), above, np.nextafter(lo, np.inf))
    x = np.where(np.isfinite(hi), hi, np.where(np.isfinite(lo), above, 0.0))
    if all(f.is_numeric for f in schema.features):
        return x
    return [{f.name: float(x[i, j]) if f.is_numeric else f.categories[int(np.flatnonzero(box[2][j])[0])] for j, f in enumerate(schema.features)}
            for i, box in enumerate(boxes)]


def _bounds(schema: Schema, lo: np.ndarray, hi: np.ndarray, cat: dict[int, np.ndarray], made: dict[Any, Any]) -> tuple[Any, ...]:
    """The box's limits as values (``made``: those already built, shared between boxes)."""
    out = []
    for j, key in enumerate(zip(lo.tolist(), hi.tolist())):
        if j in cat:
            key = (j, cat[j].tobytes())
        limit = made.get(key)
        if limit is None:
            limit = made[key] = Interval(*key) if j not in cat else Codes(np.flatnonzero(cat[j]).tolist())
        out.append(limit)
    return tuple(out)


# -- robustness and counterfactuals ---------------------------------------------------------


@attrs.frozen
class Robustness:
    """What :func:`robustness` found: every row whose numeric features are each less than
    ``radius`` from the given row's (its categories as given) gets ``answer``; ``exact``: the
    witness row, at L-infinity distance ``radius``, gets another answer, ``witness_answer``
    (checked by predicting it); not exact: ``radius`` is a verified lower bound, and the
    witness, when one was found, a row with another answer farther away (an upper bound).
    ``radius`` is infinite when no row gets another answer."""

    radius: float
    answer: Any
    exact: bool
    witness: dict[str, Any] | None = None
    witness_answer: Any = None


@attrs.frozen
class Counterfactual:
    """What :func:`counterfactual` found: the nearest row (``row``) that the model answers with
    ``answer`` (the target, checked by predicting it) and its ``distance`` to the given row in
    the chosen ``norm`` (each changed category counts 1). ``exact``: no row within the
    constraints nearer than ``distance`` gets the target; not exact (the solver's time ran
    out): the nearest lies between ``lower_bound`` and ``distance``. ``method``: ``"boxes"`` or
    ``"milp"``, the search that found it."""

    row: dict[str, Any]
    distance: float
    norm: str
    answer: Any
    exact: bool = True
    lower_bound: float = 0.0
    method: str = "boxes"


NORMS = ("l1", "l2", "linf")
#: How :func:`counterfactual` and :func:`robustness` search (see :func:`counterfactual`).
METHODS = ("auto", "boxes", "milp")


def _one_row(schema: Schema, row: Any) -> np.ndarray:
    """The row encoded, refused when a feature is missing or a category unknown (naming it)."""
    if not isinstance(row, Mapping):
        raise DataError(f"row must be a mapping of feature names to values, got {type(row).__name__}")
    x = np.asarray(encode_features(schema, row), dtype=np.float64)[0]
    for j, f in enumerate(schema.features):
        if math.isnan(x[j]):
            raise DataError(f"the row's {f.name!r} is missing: the answer must be known there")
        if not f.is_numeric and x[j] < 0:
            raise DataError(f"the row's {f.name!r} is {shown(row.get(f.name))}, not one of the model's categories")
    return x


def _boxes_and_answers(model: Any, schema: Schema, start: tuple[Any, ...], most: int) -> tuple[list[tuple[Any, ...]], list[Any]] | None:
    """The model's boxes inside ``start`` (limits in the doubles it is given) and its answer in each;
    None when there are more than ``most``."""
    boxes = model_boxes(member_trees(model), start, most)
    if boxes is None:
        return None
    if isinstance(model, Boosted) and model.precision == "float32":
        boxes = [_to_float32_space(b) for b in boxes]
        boxes = [b for b in boxes if not any(lim.is_empty for lim in b)]
    if not boxes:
        return [], []
    return boxes, walk_predict(model, _as_batch(schema, [box_row(schema, b) for b in boxes]), unseen="ignore").tolist()


def _nearest(lo: float, hi: float, v: float) -> float:
    """The value of ``(lo, hi]`` nearest ``v`` (above an open ``lo``: the next float)."""
    if v > hi:
        return hi
    if v <= lo:
        return float(np.nextafter(lo, math.inf))
    return v


def _check_model(model: Any, what: str) -> Schema:
    if not isinstance(model, (Tree, Ensemble, Boosted)):
        raise ParameterError(f"{what} takes a puretree Tree, Ensemble or Boosted model, got {type(model).__name__}")
    return model.schema


def robustness(model: Any, row: Mapping[str, Any], *, method: str = "auto", max_boxes: int = 100_000, time_limit: float = 60.0) -> Robustness:
    """The largest L-infinity ball around ``row`` (over its numeric features; its categories
    stay) in which ``model`` gives one answer, with a witness row on its edge that gets another.

    ``method`` as in :func:`counterfactual`: ``"boxes"`` is exact over the model's boxes (a
    tree's leaves; an ensemble's or a boosted model's intersections of one leaf per member) up
    to ``max_boxes`` of them, and beyond gives a verified lower bound from the bounds of the
    member trees' leaves (no witness); ``"milp"`` (a classifier) finds the nearest row of each
    other class with ``scipy.optimize.milp``, exact up to the solver's gap when it finishes
    within ``time_limit`` seconds, else the verified lower bound and the nearest row it found.
    ``"auto"`` (default): boxes for a tree or a regression model, the solver for an ensemble or
    a boosted classifier.

    >>> import numpy as np
    >>> from puretree.grow import cart
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 3.0], [1.0, 3.0]])
    >>> tree = cart(X, ["a", "b", "a", "b"])
    >>> r = robustness(tree, {"x0": 0.75, "x1": 1.0})
    >>> r.radius, r.answer, r.witness, r.witness_answer
    (0.25, 'b', {'x0': 0.5, 'x1': 1.0}, 'a')
    """
    schema = _check_model(model, "robustness")
    _, most = _check_options(0.0, max_boxes)
    limit = _check_method(method, time_limit)
    x = _one_row(schema, row)
    answer = walk_predict(model, dict(row), unseen="ignore")
    start = tuple(Interval() if f.is_numeric else Codes((int(x[j]),)) for j, f in enumerate(schema.features))
    if _use_milp(model, method):
        if schema.is_regression:
            raise ParameterError("robustness with method='milp' asks a classifier; this is a regression model (use method='boxes')")
        deadline = time.monotonic() + limit
        nearest: _Found | None = None
        exact = True
        for other in schema.classes:
            if other == answer:
                continue
            got = _milp_nearest(model, schema, x, start, other, "linf", max(deadline - time.monotonic(), 1e-3))
            exact = exact and got.exact
            if got.row is not None and (nearest is None or got.distance < nearest.distance):
                nearest = got
        if exact:
            if nearest is None or nearest.row is None:
                return Robustness(math.inf, answer, True)
            return Robustness(nearest.distance, answer, True, nearest.row, walk_predict(model, nearest.row, unseen="ignore"))
        bound = _lower_bound(model, schema, x, answer)
        if nearest is None or nearest.row is None:
            return Robustness(bound, answer, False)
        return Robustness(min(bound, nearest.distance), answer, False, nearest.row, walk_predict(model, nearest.row, unseen="ignore"))
    found = _boxes_and_answers(model, schema, start, most)
    if found is None:
        return Robustness(_lower_bound(model, schema, x, answer), answer, False)
    best, witness = math.inf, None
    for box, got in zip(*found):
        if got == answer:
            continue
        point = {f.name: (_nearest(lim.lo, lim.hi, float(x[j])) if f.is_numeric else f.categories[int(x[j])]) for j, (f, lim) in enumerate(zip(schema.features, box))}
        distance = max((abs(point[f.name] - float(x[j])) for j, f in enumerate(schema.features) if f.is_numeric), default=0.0)
        if distance < best:
            best, witness = distance, point
    if witness is None:
        return Robustness(math.inf, answer, True)
    return Robustness(best, answer, True, witness, walk_predict(model, witness, unseen="ignore"))


def _lower_bound(model: Any, schema: Schema, x: np.ndarray, answer: Any) -> float:
    """The largest radius (bisected) whose ball the member trees' leaf bounds prove has one answer."""
    s = _scored(model, schema)
    numeric = np.array([f.is_numeric for f in schema.features])
    tables = []
    for boxes, columns in zip(s.boxes, s.columns):
        keep = [all(int(x[j]) in lim.codes for j, lim in enumerate(box) if isinstance(lim, Codes)) for box in boxes]
        lo = np.array([[lim.lo if isinstance(lim, Interval) else -math.inf for lim in box] for box in boxes]).reshape(len(boxes), -1)
        hi = np.array([[lim.hi if isinstance(lim, Interval) else math.inf for lim in box] for box in boxes]).reshape(len(boxes), -1)
        tables.append((lo[keep], hi[keep], columns[keep]))
    label = answer
    classes = {c: i for i, c in enumerate(schema.classes)}

    def holds(r: float) -> bool:
        lower, upper = s.base.copy(), s.base.copy()
        for lo, hi, col in tables:
            meet = ((lo < np.where(numeric, x + r, np.inf)) & (hi >= np.where(numeric, x - r, -np.inf))).all(axis=1)
            lower += col[meet].min(axis=0)
            upper += col[meet].max(axis=0)
        if schema.is_regression:
            return bool(upper[0] - lower[0] == 0.0)
        return _decide(s, lower, upper) == classes[label]

    if not holds(0.0):
        return 0.0
    low, high = 0.0, 1.0
    while holds(high) and high < 1e300:
        low, high = high, high * 2
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if holds(mid) else (low, mid)
    return low


# -- the MILP search over an ensemble's leaves -----------------------------------------------


class SolverUnavailableError(PuretreeError, ImportError):
    """An ensemble's counterfactual needs ``scipy.optimize.milp`` (scipy, the ``solver`` extra)
    and scipy is not installed."""


#: What the solver's answer may miss the class constraint by (relative to the scores' scale):
#: above its feasibility tolerance (1e-7) and the coefficients it drops (below 1e-9), so that
#: every leaf combination the model answers with the target stays feasible; the combinations
#: it lets in that the model does not answer so are cut off one by one after predicting them.
_MARGIN = 1e-6
#: Cut-offs of such near ties before the search gives up (refused: never met on real models).
_MOST_CUTS = 50
#: The scaled optimum of the second solve: HiGHS stops within an absolute gap of 1e-6, which
#: this makes a relative gap of 1e-9.
_SCALE = 1e3


def _solver() -> Any:
    """``scipy.optimize.milp`` and its constraint class, or a clear error without scipy."""
    try:
        from scipy.optimize import LinearConstraint, milp
        from scipy.sparse import csr_array
    except ImportError as exc:
        raise SolverUnavailableError(f"the counterfactual of an ensemble or a boosted model needs scipy.optimize.milp: pip install 'puretree[solver]' ({exc})") from None
    return milp, LinearConstraint, csr_array


@attrs.frozen
class _Found:
    """One search's answer: the nearest row (None: no row gets the target), its distance,
    whether the solver proved it nearest, and a lower bound on the nearest distance."""

    row: dict[str, Any] | None
    distance: float
    exact: bool
    lower: float


def _distance(norm: str, deltas: list[float]) -> float:
    d = np.asarray(deltas, dtype=np.float64)
    return float(d.sum() if norm == "l1" else math.hypot(*d.tolist()) if norm == "l2" else d.max(initial=0.0))  # hypot: no overflow of the squares


def _target_rows(s: _Scored, target: int) -> list[tuple[int, float, float]]:
    """The class constraint as (score column, sign, bound): ``sign * column >= bound`` on the
    summed columns, one per other class (a boosted binary model: the sign of its one score)."""
    if s.kind == "sign":
        return [(0, 1.0 if target == 1 else -1.0, 0.0)]
    pairs = [(c, j) for c in range(s.n_classes) for j in range(c + 1, s.n_classes)]
    # argmax takes the first of equal scores; the margin makes ties feasible either way.
    return [(col, 1.0 if c == target else -1.0, 0.0) for col, (c, j) in enumerate(pairs) if target in (c, j)]


def _milp_nearest(model: Any, schema: Schema, x: np.ndarray, start: tuple[Any, ...], target: Any, norm: str, time_limit: float) -> _Found:
    """The nearest row in ``start`` that ``model`` answers ``target``, by a mixed-integer program
    (Kantchelian et al. 2016): one binary per reachable leaf (one leaf per tree), one binary per
    interval between a numeric feature's cuts and per category (one each per feature), each
    leaf allowed only with intervals inside its box, the class a linear inequality on the
    leaves' summed scores. Each interval's distance to the row is a constant (its nearest
    value, above an open end the next float), so all three norms are linear (l2: the squares,
    one interval per feature). The solver's row is never trusted: the witness is built from the
    intervals it picked and predicted; a near tie the model answers otherwise is cut off."""
    milp, LinearConstraint, csr_array = _solver()
    s = _scored(model, schema)
    k = schema.classes.index(target)
    # Leaves: per tree those meeting start (each box met with it); one binary each.
    leaves: list[tuple[int, tuple[Any, ...], np.ndarray]] = []
    for t, (boxes, columns) in enumerate(zip(s.boxes, s.columns)):
        met = [(tuple(a.meet(b) for a, b in zip(box, start)), columns[i]) for i, box in enumerate(boxes)]
        met = [(box, col) for box, col in met if not any(lim.is_empty for lim in box)]
        if not met:
            return _Found(None, math.inf, True, math.inf)
        leaves.extend((t, box, col) for box, col in met)
    n_trees = len(s.boxes)
    n_leaves = len(leaves)
    # Per feature its choices: (lo, hi] intervals between the cuts (numeric) or categories,
    # with each choice's value for the row and its distance.
    choices: list[tuple[int, list[Any], list[Any], list[float]]] = []  # feature, limits, values, distances
    for j, f in enumerate(schema.features):
        here = start[j]
        if f.is_numeric:
            thresholds = sorted({v for _, box, _ in leaves for v in (box[j].lo, box[j].hi) if math.isfinite(v)} | {v for v in (here.lo, here.hi) if math.isfinite(v)})
            if not thresholds:
                continue
            edges = [-math.inf, *thresholds, math.inf]
            limits = [Interval(a, b) for a, b in zip(edges, edges[1:]) if here.lo <= a and b <= here.hi]
            values = [_nearest(lim.lo, lim.hi, float(x[j])) for lim in limits]
            choices.append((j, limits, values, [abs(v - float(x[j])) for v in values]))
        else:
            limited = any(len(box[j].codes) < len(here.codes) for _, box, _ in leaves)
            if not limited and int(x[j]) in here.codes:
                continue
            codes = list(here.codes)
            choices.append((j, codes, [f.categories[c] for c in codes], [0.0 if c == int(x[j]) else 1.0 for c in codes]))
    offsets = np.cumsum([n_leaves] + [len(c[1]) for c in choices]).tolist()
    n = offsets[-1] + (1 if norm == "linf" else 0)
    # The constraints as sparse rows (index, coefficient), each with its lower and upper bound.
    rows: list[tuple[list[int], list[float], float, float]] = []
    for t in range(n_trees):  # one leaf per tree
        here_t = [i for i, leaf in enumerate(leaves) if leaf[0] == t]
        rows.append((here_t, [1.0] * len(here_t), 1.0, 1.0))
    for (j, limits, _, _), first in zip(choices, offsets):  # one choice per feature
        span = list(range(first, first + len(limits)))
        rows.append((span, [1.0] * len(span), 1.0, 1.0))
        for i, (_, box, _) in enumerate(leaves):  # a leaf only with a choice inside its box
            if isinstance(box[j], Interval):
                inside = [box[j].lo <= lim.lo and lim.hi <= box[j].hi for lim in limits]
            else:
                inside = [c in box[j].codes for c in limits]
            if not all(inside):
                chosen = [first + c for c, ok in enumerate(inside) if ok]
                rows.append(([i, *chosen], [1.0] + [-1.0] * len(chosen), -math.inf, 0.0))
    scores = np.array([col for _, _, col in leaves]).reshape(n_leaves, -1)
    for col, sign, bound in _target_rows(s, k):
        coef = sign * scores[:, col]
        scale = float(np.abs(coef).max(initial=0.0) + abs(s.base[col])) or 1.0
        rows.append((list(range(n_leaves)), (coef / scale).tolist(), (bound - sign * float(s.base[col])) / scale - _MARGIN - s.eps / scale, math.inf))
    distances = np.zeros(n)
    for (_, _, _, dist), first in zip(choices, offsets):
        distances[first:first + len(dist)] = dist
    spans = [list(range(first, first + len(limits))) for (_, limits, _, _), first in zip(choices, offsets)] if norm == "linf" else []
    integrality = np.ones(n)
    top = np.ones(n)
    linf_cost = np.zeros(n)  # linf minimises s alone (in the objective's scale, set by its rows)
    if norm == "linf":
        integrality[-1], top[-1], linf_cost[-1] = 0, math.inf, 1.0
    cuts: list[tuple[list[int], list[float], float, float]] = []
    deadline = time.monotonic() + time_limit

    def solve(scale: float, bound: float | None, strict: bool = False) -> Any:
        """One solve (None: no row), repeated while its row is a near tie the model answers
        otherwise; with ``bound``, only choices at most (``strict``: less than) that far."""
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return "time"
            hi = top.copy()
            far = distances
            if bound is not None:  # no choice farther than the best row found can be in a nearer one
                hi[:offsets[-1]][(distances[:offsets[-1]] >= bound) if strict else (distances[:offsets[-1]] > bound)] = 0.0
                far = np.minimum(distances, bound)  # theirs fixed at 0: no huge coefficient to trouble the solver
            # linf: s >= each feature's distance, in the objective's scale (the solver's
            # tolerance is absolute: at the best distance's scale it cannot hide a nearer row).
            every = rows + cuts + [([n - 1, *span], [1.0, *(-far[span] * scale).tolist()], 0.0, math.inf) for span in spans]
            matrix = csr_array((np.concatenate([np.asarray(r[1], dtype=np.float64) for r in every]),
                                (np.repeat(np.arange(len(every)), [len(r[0]) for r in every]), np.concatenate([np.asarray(r[0], dtype=np.int64) for r in every]))),
                               shape=(len(every), n))
            result = milp(linf_cost if norm == "linf" else (far**2 if norm == "l2" else far) * scale, integrality=integrality, bounds=(np.zeros(n), hi),
                          constraints=LinearConstraint(matrix, np.array([r[2] for r in every]), np.array([r[3] for r in every])),
                          options={"mip_rel_gap": 0.0, "time_limit": left})
            if result.x is None:
                return None if result.status == 2 else "time"
            z = result.x
            row_found: dict[str, Any] = {f.name: (float(x[j]) if f.is_numeric else f.categories[int(x[j])]) for j, f in enumerate(schema.features)}
            for (j, _, values, _), first, last in zip(choices, offsets, offsets[1:]):
                row_found[schema.features[j].name] = values[int(np.argmax(z[first:last]))]
            if walk_predict(model, row_found, unseen="ignore") == target:
                deltas = [abs(row_found[f.name] - float(x[j])) if f.is_numeric else float(row_found[f.name] != f.categories[int(x[j])]) for j, f in enumerate(schema.features)]
                return row_found, _distance(norm, deltas), result.status == 0, result.mip_dual_bound, scale
            if len(cuts) >= _MOST_CUTS:
                raise ParameterError(f"counterfactual: the solver's rows kept landing on near ties of the scores ({_MOST_CUTS} cut off); the model answers them otherwise")
            # A near tie the model answers otherwise: cut off this leaf combination.
            encoded = encode_features(schema, row_found)[0]
            met = [i for i, (_, box, _) in enumerate(leaves) if _inside(box, encoded)]
            cuts.append((met, [1.0] * len(met), -math.inf, n_trees - 1.0))

    most = float(distances.max(initial=0.0))
    got = solve(1.0 / ((most**2 if norm == "l2" else most) or 1.0), None)
    if got is None:
        return _Found(None, math.inf, True, math.inf)
    if isinstance(got, str):
        return _Found(None, math.inf, False, 0.0)
    best, distance, exact, dual, scale = got
    lower = _dual(dual, scale, norm)
    if exact and distance > 0 and norm == "linf":
        # A nearer row uses only choices nearer than the best: a question of which choices
        # are allowed, exact whatever the solver's tolerances; asked until none is left.
        while exact and distance > 0:
            again = solve(1.0 / distance, distance, strict=True)
            if again is None:
                break
            if isinstance(again, str):
                exact = False
            else:
                best, distance, exact = again[0], again[1], again[2]
    elif exact and distance > 0:
        # Again with the best distance scaled to _SCALE: the solver's absolute gap becomes relative.
        again = solve(_SCALE / (distance**2 if norm == "l2" else distance), distance)
        if isinstance(again, str):
            exact = False
        elif again is not None:
            if again[1] < distance:
                best, distance = again[0], again[1]
            exact = again[2]
            lower = max(lower, _dual(again[3], again[4], norm))
    return _Found(best, distance, exact, distance if exact else min(lower, distance))


def _dual(bound: Any, scale: float, norm: str) -> float:
    """The solver's lower bound on the distance (0 when it has none)."""
    if bound is None or not math.isfinite(bound):
        return 0.0
    value = max(float(bound), 0.0) / scale
    return math.sqrt(value) if norm == "l2" else value


def _check_method(method: Any, time_limit: Any) -> float:
    if method not in METHODS:
        raise ParameterError(f"method must be one of {list(METHODS)}, got {shown(method)}")
    if isinstance(time_limit, bool) or not isinstance(time_limit, (int, float, np.integer, np.floating)) or not float(time_limit) > 0:
        raise ParameterError(f"time_limit must be a number of seconds > 0, got {shown(time_limit)}")
    return float(time_limit)


def _use_milp(model: Any, method: str) -> bool:
    """Whether the search goes through the solver: asked for, or ``"auto"`` on a classifier made of several trees."""
    if method == "auto":
        return not isinstance(model, Tree) and not model.schema.is_regression
    return method == "milp"


def counterfactual(model: Any, row: Mapping[str, Any], target: Any, *, norm: str = "l1", immutable: Sequence[str] = (),
                   ranges: Mapping[str, Any] | None = None, method: str = "auto", max_boxes: int = 100_000, time_limit: float = 60.0) -> Counterfactual | None:
    """The nearest row to ``row`` that ``model`` (a classifier) answers with ``target``, in the
    ``norm`` ``"l1"``, ``"l2"`` or ``"linf"`` over the numeric features (a changed category
    counts 1), keeping the ``immutable`` features as they are and each feature of ``ranges``
    within its range (numeric: ``(lo, hi)``, both included; categorical: the allowed categories).
    None when no row within the constraints gets ``target``.

    ``method``: ``"boxes"`` searches the model's boxes, exact: a tree's leaves, an ensemble's or
    a boosted model's intersections of one leaf per member (more than ``max_boxes``: refused,
    naming the count). ``"milp"`` solves a mixed-integer program over the members' leaves with
    ``scipy.optimize.milp`` (the ``solver`` extra), exact up to the solver's gap (relative 1e-9)
    when it finishes within ``time_limit`` seconds (``exact``); when it does not, the row found
    is returned with ``exact=False`` and ``lower_bound``, the solver's bound on the nearest
    distance. ``"auto"`` (default): boxes for a tree, the solver for an ensemble or a boosted
    model. Either way the row returned is predicted: it gets ``target``.

    >>> import numpy as np
    >>> from puretree.grow import cart
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 3.0], [1.0, 3.0]])
    >>> tree = cart(X, ["a", "b", "a", "b"])
    >>> cf = counterfactual(tree, {"x0": 0.75, "x1": 1.0}, "a")
    >>> cf.row, cf.distance, cf.answer, cf.exact
    ({'x0': 0.5, 'x1': 1.0}, 0.25, 'a', True)
    >>> counterfactual(tree, {"x0": 0.75, "x1": 1.0}, "a", immutable=["x0"]) is None
    True
    """
    schema = _check_model(model, "counterfactual")
    _, most = _check_options(0.0, max_boxes)
    limit = _check_method(method, time_limit)
    if norm not in NORMS:
        raise ParameterError(f"norm must be one of {list(NORMS)}, got {shown(norm)}")
    if schema.is_regression:
        raise ParameterError("counterfactual asks a classifier for a class; this is a regression model")
    if target not in schema.classes:
        raise ParameterError(f"target {shown(target)} is not one of the model's classes {list(schema.classes)[:10]}")
    x = _one_row(schema, row)
    start = _constrained_start(schema, x, immutable, ranges)
    if start is None:
        return None
    if _use_milp(model, method):
        found = _milp_nearest(model, schema, x, start, target, norm, limit)
        if found.row is None:
            if found.exact:
                return None
            raise ParameterError(f"counterfactual: the solver found no row answered {shown(target)} within time_limit={shown(limit)} s; raise time_limit")
        return Counterfactual(found.row, found.distance, norm, walk_predict(model, found.row, unseen="ignore"), found.exact, found.lower, "milp")
    found_boxes = _boxes_and_answers(model, schema, start, most)
    if found_boxes is None:
        raise ParameterError(f"the model has more than max_boxes={most} boxes: counterfactual is exact only over all of them; raise max_boxes or use method='milp'")
    best, witness = math.inf, None
    for box, got in zip(*found_boxes):
        if got != target:
            continue
        point: dict[str, Any] = {}
        deltas = []
        for j, (f, lim) in enumerate(zip(schema.features, box)):
            if f.is_numeric:
                point[f.name] = _nearest(lim.lo, lim.hi, float(x[j]))
                deltas.append(abs(point[f.name] - float(x[j])))
            else:
                keep = int(x[j]) in lim.codes
                point[f.name] = f.categories[int(x[j]) if keep else lim.codes[0]]
                deltas.append(0.0 if keep else 1.0)
        distance = _distance(norm, deltas)
        if distance < best:
            best, witness = distance, point
    if witness is None:
        return None
    return Counterfactual(witness, best, norm, walk_predict(model, witness, unseen="ignore"), True, best, "boxes")


def _constrained_start(schema: Schema, x: np.ndarray, immutable: Sequence[str], ranges: Mapping[str, Any] | None) -> tuple[Any, ...] | None:
    """The box the answer must lie in: the immutable features at the row's values, the others
    within their ranges (None: empty)."""
    names = schema.feature_names
    if isinstance(immutable, str):
        raise ParameterError(f"immutable must be a list of feature names, got the string {shown(immutable)}")
    for name in [*immutable, *(ranges or {})]:
        if name not in names:
            raise ParameterError(f"unknown feature {shown(name)}; the model's features are {list(names)[:10]}")
    start = list(start_box(schema))
    for name in immutable:
        j = names.index(name)
        start[j] = Interval(float(np.nextafter(x[j], -math.inf)), float(x[j])) if schema.features[j].is_numeric else Codes((int(x[j]),))
    for name, allowed in (ranges or {}).items():
        j, f = names.index(name), schema.features[names.index(name)]
        if f.is_numeric:
            try:
                lo, hi = (float(v) for v in allowed)
            except (TypeError, ValueError):
                raise ParameterError(f"the range of {name!r} must be two numbers (lo, hi), got {shown(allowed)}") from None
            if not lo <= hi:
                raise ParameterError(f"the range of {name!r} is empty: {shown(allowed)}")
            start[j] = start[j].meet(Interval(float(np.nextafter(lo, -math.inf)), hi))
        else:
            unknown = [c for c in allowed if c not in f.categories]
            if unknown or isinstance(allowed, str):
                raise ParameterError(f"the range of {name!r} must be categories of the feature, got {shown(unknown or allowed)}")
            start[j] = start[j].meet(Codes(f.categories.index(c) for c in allowed))
    if any(lim.is_empty for lim in start):
        return None
    return tuple(start)
