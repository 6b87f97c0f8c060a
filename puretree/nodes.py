"""The values: schema, nodes and trees, all frozen ``attrs`` classes.

A tree is a plain value. Nodes compare and hash structurally, are never mutated, and
change only through :func:`attrs.evolve` (or the rewrites in :mod:`puretree.fold`).

**The threshold convention** (one, everywhere: model, text, JSON, generated code):
a :class:`NumericSplit` sends a row **left when** ``x <= threshold`` and right otherwise.
Thresholds learned from data are midpoints between consecutive distinct training values,
so on the training data ``x <= t`` and the seeds' ``x < t`` decide identically.

Every node carries ``counts``: the weighted class counts of the training rows that reached
it (for a regression tree: the additive statistics ``(weight, sum, sum of squares)``).

>>> schema = Schema(features=(Feature("x"),), classes=("no", "yes"))
>>> tree = Tree(NumericSplit(0, 1.5, Leaf((2, 0)), Leaf((0, 3)), (2, 3)), schema)
>>> tree.predict([[1.0], [1.5], [2.0]]).tolist()
['no', 'no', 'yes']
>>> tree.root.left == Leaf((2.0, 0.0))
True
"""

from __future__ import annotations

import math
from typing import Any, Union

import attrs
import numpy as np

from .errors import ParameterError

__all__ = [
    "NUMERIC",
    "CATEGORICAL",
    "Feature",
    "Schema",
    "Leaf",
    "NumericSplit",
    "CategoricalSplit",
    "SubsetSplit",
    "Node",
    "Split",
    "Tree",
    "children",
    "with_children",
    "is_leaf",
    "MISSING_STRATEGIES",
]

NUMERIC = "numeric"
CATEGORICAL = "categorical"
CLASSIFICATION = "classification"
REGRESSION = "regression"


def _float_tuple(values: Any) -> tuple[float, ...]:
    return tuple(float(v) for v in values)


def _finite_values(instance: Any, attribute: attrs.Attribute, value: tuple[float, ...]) -> None:
    # Regression statistics may hold negative sums; only the weight (first entry) must be >= 0.
    for v in value:
        if not math.isfinite(v):
            raise ParameterError(f"{type(instance).__name__}.{attribute.name} holds a non-finite value {v!r}")


def _index(instance: Any, attribute: attrs.Attribute, value: int) -> None:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 0:
        raise ParameterError(f"{type(instance).__name__}.{attribute.name} must be an index >= 0, got {value!r}")


def _plain_int(value: Any) -> Any:
    # A numpy integer index would compare equal but not serialise to JSON; keep plain ints.
    return int(value) if isinstance(value, np.integer) else value


def _finite(instance: Any, attribute: attrs.Attribute, value: float) -> None:
    if not math.isfinite(value):
        raise ParameterError(f"{type(instance).__name__}.{attribute.name} must be finite, got {value!r}")


@attrs.frozen
class Feature:
    """One input column: its name, its kind and (for a categorical one) its category values.

    Category *codes* used by the splits are indices into ``categories``.

    >>> Feature("outlook", "categorical", ("overcast", "rain", "sunny")).code_of("rain")
    1
    """

    name: str = attrs.field(validator=attrs.validators.instance_of(str))
    kind: str = attrs.field(default=NUMERIC, validator=attrs.validators.in_((NUMERIC, CATEGORICAL)))
    categories: tuple[Any, ...] = attrs.field(default=(), converter=tuple)

    @property
    def is_numeric(self) -> bool:
        return self.kind == NUMERIC

    def code_of(self, value: Any) -> int:
        """The code of a category value, or -1 for a value never seen in training."""
        try:
            return self.categories.index(value)
        except ValueError:
            return -1


@attrs.frozen
class Schema:
    """What a tree needs to know about its data: features, class labels, the target's name.

    ``classes`` are the class labels exactly as given (str, int or bool), in sorted order;
    a class index in ``counts`` refers to this tuple. A regression schema has no classes.
    """

    features: tuple[Feature, ...] = attrs.field(converter=tuple)
    classes: tuple[Any, ...] = attrs.field(default=(), converter=tuple)
    target: str = "target"
    task: str = attrs.field(default=CLASSIFICATION, validator=attrs.validators.in_((CLASSIFICATION, REGRESSION)))

    @property
    def feature_names(self) -> tuple[str, ...]:
        return tuple(f.name for f in self.features)

    @property
    def n_features(self) -> int:
        return len(self.features)

    @property
    def is_regression(self) -> bool:
        return self.task == REGRESSION

    def index_of(self, name: str) -> int:
        """The column index of a feature name.

        >>> Schema(features=(Feature("a"), Feature("b"))).index_of("b")
        1
        """
        for i, f in enumerate(self.features):
            if f.name == name:
                return i
        from .errors import SchemaError

        raise SchemaError(f"unknown feature {name!r}; the schema has {list(self.feature_names)}")


# -- values at any depth ---------------------------------------------------------------------
#
# attrs' generated ``__eq__``, ``__hash__`` and ``__repr__`` recurse once per level and raise
# RecursionError past about 500 levels, while puretree grows trees 10,000 levels deep. So the
# node classes take theirs from the three functions below instead: every node computes a
# structural digest once, when it is built (its children exist already, so this is O(1) per
# node); the digest is the hash, decides most inequalities at once, and an equal digest is
# confirmed by an iterative structural comparison, so equality stays exact.


def _fields(node: Any) -> tuple[Any, ...]:
    """A node's own fields, without its children (floats as Python compares them: 0.0 == -0.0)."""
    match node:
        case Leaf():
            return ("leaf", node.counts)
        case NumericSplit():
            return ("numeric", node.feature, node.threshold, node.counts)
        case SubsetSplit():
            return ("subset", node.feature, node.left_categories, node.counts)
        case CategoricalSplit():
            return ("categorical", node.feature, len(node.children), node.counts)
    raise TypeError(f"not a puretree node: {node!r}")


def _digest(node: Any) -> int:
    return hash((_fields(node), tuple(c._digest for c in children(node))))


def _node_eq(self: Any, other: Any) -> Any:
    if type(other) is not type(self):
        return NotImplemented
    stack = [(self, other)]
    while stack:
        a, b = stack.pop()
        if a is b:
            continue
        if type(a) is not type(b) or a._digest != b._digest or _fields(a) != _fields(b):
            return False
        stack.extend(zip(children(a), children(b)))
    return True


def _node_ne(self: Any, other: Any) -> Any:
    equal = _node_eq(self, other)
    return equal if equal is NotImplemented else not equal


def _node_hash(self: Any) -> int:
    return self._digest


def _node_repr(self: Any) -> str:
    """attrs' repr, built on an explicit stack: its size grows with the number of nodes only."""
    parts: list[str] = []
    stack: list[Any] = [self]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            parts.append(item)
            continue
        name = type(item).__name__
        match item:
            case Leaf():
                parts.append(f"Leaf(counts={item.counts!r})")
            case NumericSplit() | SubsetSplit():
                test = f"threshold={item.threshold!r}" if isinstance(item, NumericSplit) else f"left_categories={item.left_categories!r}"
                stack.extend(reversed([f"{name}(feature={item.feature!r}, {test}, left=", item.left, ", right=", item.right, f", counts={item.counts!r})"]))
            case CategoricalSplit():
                seq: list[Any] = [f"{name}(feature={item.feature!r}, children=("]
                for i, child in enumerate(item.children):
                    seq.extend([", "] if i else [])
                    seq.append(child)
                seq.append(",), " if len(item.children) == 1 else "), ")
                seq.append(f"counts={item.counts!r})")
                stack.extend(reversed(seq))
    return "".join(parts)


def _set_digest(self: Any) -> None:
    object.__setattr__(self, "_digest", _digest(self))


def _as_value(cls: type) -> type:
    """Give a node class the depth-safe equality, hash and repr (see above)."""
    cls.__eq__ = _node_eq  # type: ignore[method-assign]
    cls.__ne__ = _node_ne  # type: ignore[method-assign]
    cls.__hash__ = _node_hash  # type: ignore[method-assign]
    cls.__repr__ = _node_repr  # type: ignore[method-assign]
    return cls


def _threshold(value: Any) -> float:
    # One zero: -0.0 and 0.0 send every row the same way, so they are one threshold.
    return float(value) + 0.0


@_as_value
@attrs.frozen(eq=False, repr=False)
class Leaf:
    """A terminal node: the weighted class counts of the training rows that reached it."""

    counts: tuple[float, ...] = attrs.field(converter=_float_tuple, validator=_finite_values)
    _digest: int = attrs.field(init=False, repr=False, eq=False, default=0)

    def __attrs_post_init__(self) -> None:
        _set_digest(self)


@_as_value
@attrs.frozen(eq=False, repr=False)
class NumericSplit:
    """Two branches on a numeric feature: ``x <= threshold`` goes to ``left``."""

    feature: int = attrs.field(converter=_plain_int, validator=_index)
    threshold: float = attrs.field(converter=_threshold, validator=_finite)
    left: "Node"
    right: "Node"
    counts: tuple[float, ...] = attrs.field(converter=_float_tuple, validator=_finite_values)
    _digest: int = attrs.field(init=False, repr=False, eq=False, default=0)

    def __attrs_post_init__(self) -> None:
        _set_digest(self)


@_as_value
@attrs.frozen(eq=False, repr=False)
class CategoricalSplit:
    """One branch per category of a categorical feature (ID3, C4.5).

    ``children[c]`` receives rows whose category code is ``c``; there is one child for
    every category in the schema. A branch no training row reached is a leaf with zero
    counts, which predicts its parent's distribution (the seeds' "empty branch" rule).
    """

    feature: int = attrs.field(converter=_plain_int, validator=_index)
    children: tuple["Node", ...] = attrs.field(converter=tuple)
    counts: tuple[float, ...] = attrs.field(converter=_float_tuple, validator=_finite_values)
    _digest: int = attrs.field(init=False, repr=False, eq=False, default=0)

    def __attrs_post_init__(self) -> None:
        _set_digest(self)


def _sorted_codes(values: Any) -> tuple[int, ...]:
    return tuple(sorted({int(v) for v in values}))


@_as_value
@attrs.frozen(eq=False, repr=False)
class SubsetSplit:
    """Two branches on a categorical feature (CART): codes in ``left_categories`` go left."""

    feature: int = attrs.field(converter=_plain_int, validator=_index)
    left_categories: tuple[int, ...] = attrs.field(converter=_sorted_codes)
    left: "Node"
    right: "Node"
    counts: tuple[float, ...] = attrs.field(converter=_float_tuple, validator=_finite_values)
    _digest: int = attrs.field(init=False, repr=False, eq=False, default=0)

    def __attrs_post_init__(self) -> None:
        _set_digest(self)


Split = Union[NumericSplit, CategoricalSplit, SubsetSplit]
Node = Union[Leaf, NumericSplit, CategoricalSplit, SubsetSplit]


def is_leaf(node: Node) -> bool:
    return isinstance(node, Leaf)


def children(node: Node) -> tuple[Node, ...]:
    """The children of a node, left to right (empty for a leaf).

    >>> children(NumericSplit(0, 0.5, Leaf((1, 0)), Leaf((0, 1)), (1, 1)))
    (Leaf(counts=(1.0, 0.0)), Leaf(counts=(0.0, 1.0)))
    """
    match node:
        case Leaf():
            return ()
        case NumericSplit(left=left, right=right) | SubsetSplit(left=left, right=right):
            return (left, right)
        case CategoricalSplit(children=kids):
            return kids
    raise TypeError(f"not a puretree node: {node!r}")


def with_children(node: Node, new: tuple[Node, ...]) -> Node:
    """The same node with its children replaced (same arity); a leaf is returned as is."""
    match node:
        case Leaf():
            return node
        case NumericSplit() | SubsetSplit():
            left, right = new
            if left is node.left and right is node.right:
                return node
            return attrs.evolve(node, left=left, right=right)
        case CategoricalSplit():
            if all(a is b for a, b in zip(new, node.children)):
                return node
            return attrs.evolve(node, children=tuple(new))
    raise TypeError(f"not a puretree node: {node!r}")


#: How a tree treats a missing value at a split when predicting:
#: ``"majority"``: follow the branch that received the most training weight (ties: the first);
#: ``"distribute"`` (C4.5): follow every branch and combine their predictions, weighted by the
#: branches' training weights; ``"error"``: refuse, naming the row and the feature.
MISSING_STRATEGIES = ("majority", "distribute", "error")


@attrs.frozen
class Tree:
    """A learned tree: its root, the schema that gives the root's indices a meaning, and its
    missing-value strategy (see :data:`MISSING_STRATEGIES`).

    The methods are thin conveniences over the functions of :mod:`puretree.predict`
    and :mod:`puretree.text`; the tree itself is an immutable value.
    """

    root: Node
    schema: Schema
    missing: str = attrs.field(default="majority", validator=attrs.validators.in_(MISSING_STRATEGIES))

    @property
    def classes(self) -> tuple[Any, ...]:
        return self.schema.classes

    def predict(self, X: Any) -> Any:
        from .predict import predict

        return predict(self, X)

    def predict_proba(self, X: Any) -> Any:
        from .predict import predict_proba

        return predict_proba(self, X)

    def apply(self, X: Any) -> Any:
        from .predict import apply

        return apply(self, X)

    def decision_path(self, row: Any) -> Any:
        from .predict import decision_path

        return decision_path(self, row)

    def to_text(self, **options: Any) -> str:
        from .text import to_text

        return to_text(self, **options)

    def __str__(self) -> str:
        return self.to_text()
