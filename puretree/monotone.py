"""``check_monotone(model, feature, direction)``: whether a tree, an ensemble or a boosted model is monotone in
one feature, decided exactly over the model's boxes (never by sampling).

A tree cuts the feature space into boxes, one per leaf (an interval per numeric feature, a
set of codes per categorical one); an ensemble's members, overlaid, cut it into the
non-empty intersections of one leaf box per member, and the model answers one constant on
each. The model is non-decreasing in feature ``f`` exactly when no two boxes ``A`` and ``B``
that share a point in every other feature, with some ``a`` in ``A``'s ``f``-interval below
some ``b`` in ``B``'s, answer ``A > B`` (non-increasing: ``A < B``). Each box's answer is
the model's own prediction at a point of the box, so the comparison is the one ``predict``
makes. The answer is ``True``, or a witness: two rows that differ only in ``feature``, the
first with the smaller value, whose predictions break the direction.

The value compared is the prediction of a regression model and the probability of
``classes[1]`` of a binary classifier (scikit-learn's ``monotonic_cst`` semantics); rows
have no missing values. **Cost**: the boxes of an ensemble are found tree by tree, each
member's leaf boxes met with the boxes of the members before it, so their number ``B`` is
at most the product of the members' leaf counts (one tree: its leaves); pairs are then
compared with numpy, ``O(B**2 * n_features)`` time and ``O(B * 1024)`` memory (boxes are
compared a block at a time); finding the boxes costs ``O(B_t * L_t)`` per member ``t``
(``B_t``: the boxes of the members before it, ``L_t``: its leaves).

>>> import numpy as np
>>> from puretree.grow import cart_regressor
>>> X = np.arange(20.0).reshape(-1, 1)
>>> check_monotone(cart_regressor(X, X[:, 0] ** 2), "x0", +1)
True
>>> a, b = check_monotone(cart_regressor(X, (X[:, 0] - 10.0) ** 2), "x0", +1)
>>> a["x0"] < b["x0"]
True
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .answers import predict, predict_proba
from .errors import ParameterError
from .fold import walk
from .nodes import Codes, Interval, Leaf, Schema, Split
from .tree import Tree

__all__ = ["check_monotone"]

#: Boxes compared with every other box in one numpy step (the pair arrays are this squared).
_BLOCK = 1024


def member_trees(model: Any) -> tuple[Tree, ...]:
    """The trees whose leaves cut the model's input space: a tree itself, an ensemble's members,
    a boosted model's stage trees (every output's)."""
    if isinstance(model, Tree):
        return (model,)
    members = getattr(model, "members", None)
    if members is None:
        stages = getattr(model, "stages", None)
        if stages is None:
            raise ParameterError(f"expected a puretree Tree, Ensemble or Boosted model, got {type(model).__name__}")
        members = [tree for stage in stages for tree in stage]
        if not members:  # no stage: the answer is the initial score everywhere, one box
            return (Tree(Leaf((1.0, 0.0, 0.0)), Schema(model.schema.features, (), model.schema.target, "regression")),)
    return tuple(members)


def start_box(schema: Schema) -> tuple[Any, ...]:
    """The box of every row without missing values: each numeric feature any number, each
    categorical feature any of its categories."""
    return tuple(Interval() if ft.is_numeric else Codes(range(len(ft.categories))) for ft in schema.features)


def leaf_boxes(tree: Tree, start: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    """The box of every leaf a row without missing values can reach (the kit's walk: any depth)."""
    features = tree.schema.features

    def down(node: Any, box: tuple[Any, ...] | None) -> list[tuple[Any, ...] | None]:
        j = node.feature
        if box is None:
            return [None] * len(node.children)
        narrowed = [box[j].meet(c) for c in node.test.constraints(features[j])]
        return [None if n.is_empty else box[:j] + (n,) + box[j + 1:] for n in narrowed]

    return [box for node, box in walk(tree, down, start) if box is not None and not isinstance(node, Split)]


def model_boxes(trees: tuple[Tree, ...], start: tuple[Any, ...], most: int | None = None) -> list[tuple[Any, ...]] | None:
    """Every non-empty intersection of ``start`` and one leaf box per tree, tree by tree (None
    once there are more than ``most``)."""
    boxes = [start]
    for tree in trees:
        leaves = leaf_boxes(tree, start)
        met = ((tuple(a.meet(b) for a, b in zip(box, leaf)) for box in boxes for leaf in leaves))
        boxes = [box for box in met if not any(limit.is_empty for limit in box)]
        if most is not None and len(boxes) > most:
            return None
    return boxes


def box_point(lo: float, hi: float) -> float:
    """A plain value in ``(lo, hi]`` (not empty)."""
    if math.isfinite(hi):
        return hi
    if math.isfinite(lo):
        step = lo + max(1.0, abs(lo))
        return step if math.isfinite(step) else float(np.nextafter(lo, math.inf))
    return 0.0


def box_row(schema: Any, box: tuple[Any, ...]) -> dict[str, Any]:
    row: dict[str, Any] = {}
    for feature, limit in zip(schema.features, box):
        row[feature.name] = box_point(limit.lo, limit.hi) if isinstance(limit, Interval) else feature.categories[limit.codes[0]]
    return row


def _values(model: Any, schema: Any, rows: list[dict[str, Any]]) -> np.ndarray:
    if schema.is_regression:
        return np.asarray(predict(model, rows), dtype=np.float64)
    return np.asarray(predict_proba(model, rows), dtype=np.float64)[:, 1]


def check_monotone(model: Any, feature: str | int, direction: int) -> Any:
    """True when ``model`` (a tree, an ensemble or a boosted model, grown, loaded or imported) never decreases along
    ``feature`` (``direction=+1``; never increases: ``-1``), the other features held fixed;
    else a witness pair of rows (mappings by feature name) that differ only in ``feature``,
    the first with the smaller value, whose predictions break the direction. Exact: decided
    over the model's boxes (see the module notes for what is compared and the cost).

    >>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
    >>> tree = Tree(Split(0, Threshold(1.5), (Leaf((1.0, 5.0, 25.0)), Leaf((1.0, 2.0, 4.0))), (2.0, 7.0, 29.0)),
    ...             Schema((Feature("x"),), task="regression"))
    >>> check_monotone(tree, "x", -1), check_monotone(tree, "x", +1)
    (True, ({'x': 1.5}, {'x': 3.0}))
    """
    trees = member_trees(model)
    schema = model.schema  # a boosted model's trees are regression trees: its own schema says the task
    if direction not in (1, -1) or isinstance(direction, bool):
        raise ParameterError(f"direction must be +1 (non-decreasing) or -1 (non-increasing), got {direction!r}")
    if isinstance(feature, str):
        f = schema.index_of(feature)
    elif isinstance(feature, (int, np.integer)) and not isinstance(feature, bool) and 0 <= feature < schema.n_features:
        f = int(feature)
    else:
        raise ParameterError(f"feature must be a name or an index below {schema.n_features}, got {feature!r}")
    if not schema.features[f].is_numeric:
        raise ParameterError(f"feature {schema.features[f].name!r} is categorical: monotonicity needs an ordered (numeric) feature")
    if not schema.is_regression and len(schema.classes) > 2:
        raise ParameterError(f"check_monotone reads a regression model or a binary classifier (the probability of classes[1]); this model has {len(schema.classes)} classes")
    if not schema.is_regression and len(schema.classes) < 2:
        return True
    start = start_box(schema)
    boxes = model_boxes(trees, start)
    assert boxes is not None  # no limit
    value = _values(model, schema, [box_row(schema, box) for box in boxes])
    n = len(boxes)
    lo = np.array([[b.lo if isinstance(b, Interval) else 0.0 for b in box] for box in boxes]).reshape(n, -1)
    hi = np.array([[b.hi if isinstance(b, Interval) else 0.0 for b in box] for box in boxes]).reshape(n, -1)
    others = [j for j in range(schema.n_features) if j != f]
    members = {j: np.array([[c in box[j].codes for c in range(len(schema.features[j].categories))] for box in boxes]) for j in others if not schema.features[j].is_numeric}
    with np.errstate(over="ignore"):  # the float under each box's top; under -max lies only -inf, which numpy flags
        under = np.nextafter(hi[:, f], -np.inf)
    for first in range(0, n, _BLOCK):
        a = slice(first, min(n, first + _BLOCK))
        # A below B along f: some a in (loA, hiA] under some b in (loB, hiB].
        below = lo[a, f][:, None] < np.minimum(hi[a, f][:, None], under[None, :])
        breaks = value[a][:, None] > value[None, :] if direction == 1 else value[a][:, None] < value[None, :]
        ok = below & breaks
        for j in others:
            if j in members:
                ok &= (members[j][a].astype(np.int64) @ members[j].T.astype(np.int64)) > 0
            else:
                ok &= np.maximum(lo[a, j][:, None], lo[None, :, j]) < np.minimum(hi[a, j][:, None], hi[None, :, j])
        for i, k in zip(*np.nonzero(ok)):
            witness = _witness(model, schema, boxes[first + int(i)], boxes[int(k)], f, direction)
            if witness is not None:
                return witness
    return True


def _witness(model: Any, schema: Any, A: tuple[Any, ...], B: tuple[Any, ...], f: int, direction: int) -> tuple[dict[str, Any], dict[str, Any]] | None:
    """Two rows in the shared part of boxes ``A`` and ``B``, the first in ``A`` below the second
    in ``B`` along ``f``, when their predictions break the direction (None otherwise)."""
    shared = tuple(a.meet(b) for a, b in zip(A, B))
    low = box_row(schema, shared)
    high = dict(low)
    a_hi = min(A[f].hi, float(np.nextafter(B[f].hi, -np.inf)))
    a = box_point(A[f].lo, a_hi)
    low[schema.features[f].name] = a
    high[schema.features[f].name] = box_point(max(B[f].lo, a), B[f].hi)
    va, vb = _values(model, schema, [low, high]).tolist()
    return (low, high) if (va > vb if direction == 1 else va < vb) else None
