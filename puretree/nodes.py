"""The values: schema, nodes and trees, all frozen ``attrs`` classes.

A tree is a plain value. Nodes compare and hash structurally, are never mutated, and
change only through :func:`attrs.evolve` (or the rewrites in :mod:`puretree.fold`).

A tree is made of :class:`Leaf` and :class:`Split` nodes. A split holds a feature, a *test*
(a small frozen value: :class:`Threshold`, :class:`Multiway` or :class:`Subset`) and one child
per branch of the test. The test alone says what the split means: how many branches, which
branch a column of values takes, what each branch says about a row, how it reads in text.

**The threshold convention** (one, everywhere: model, text, JSON, generated code):
a :class:`Threshold` test sends a row **left** (branch 0) **when** ``x <= value`` and right otherwise.
Thresholds learned from data are midpoints between consecutive distinct training values,
so on the training data ``x <= t`` and the seeds' ``x < t`` decide identically.

Every node carries ``stats``: the statistics of the training rows that reached it. In a
classification tree they are the weighted class counts (``node.counts`` reads them by that
name); in a regression tree, the additive statistics ``(weight, sum, sum of squares)``.

A tree (:class:`puretree.tree.Tree`) pairs a root node with the :class:`Schema` that names
its features and classes.

>>> root = Split(0, Threshold(1.5), (Leaf((2, 0)), Leaf((0, 3))), (2, 3))
>>> root.test.branch_of(np.array([1.0, 1.5, 2.0]), Feature("x")).tolist()
[0, 0, 1]
>>> root.children[0] == Leaf((2.0, 0.0))
True
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from typing import Any, ClassVar, Union

import attrs
import numpy as np

from .errors import DataError, ParameterError, SchemaError, digits

__all__ = [
    "NUMERIC",
    "CATEGORICAL",
    "Feature",
    "Schema",
    "Leaf",
    "Split",
    "Threshold",
    "Multiway",
    "Subset",
    "TESTS",
    "OLD_KIND_NAMES",
    "DEPRECATED_SPLITS",
    "Test",
    "Interval",
    "Codes",
    "Constraint",
    "MISSING",
    "UNSEEN",
    "format_number",
    "NumericSplit",
    "CategoricalSplit",
    "SubsetSplit",
    "Node",
    "children",
    "with_children",
    "is_leaf",
    "exact_mean",
    "MISSING_STRATEGIES",
    "Surrogate",
    "Surrogates",
]

NUMERIC = "numeric"
CATEGORICAL = "categorical"
CLASSIFICATION = "classification"
REGRESSION = "regression"


def _tuple(values: Any) -> tuple[Any, ...]:
    # ``converter=tuple`` would leave type checkers an unsolved ``Iterable[_T_co]``.
    return tuple(values)


def _float_tuple(values: Any) -> tuple[float, ...]:
    return tuple(float(v) for v in values)


def _finite_values(instance: Any, attribute: attrs.Attribute, value: tuple[float, ...]) -> None:
    # Regression statistics may hold negative sums; only the weight (first entry) must be >= 0.
    for v in value:
        if not math.isfinite(v):
            raise ParameterError(f"{type(instance).__name__}.{attribute.name} holds a non-finite value {v!r}")


def _exact_integers(instance: Any, attribute: attrs.Attribute, value: tuple[Any, ...]) -> None:
    # A label or category integer beyond 2**53 cannot be saved exactly (io) nor shown (a
    # 5,000-digit int has no str): the data encoders refuse them, and so does a schema built by hand.
    for v in value:
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > 2**53:
            shown = str(v) if abs(v) < 10**40 else f"of {digits(v)} digits"
            raise DataError(f"{type(instance).__name__}.{attribute.name}: the integer {shown} is beyond 2**53, the largest integer a double (a saved model) holds exactly")


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
    categories: tuple[Any, ...] = attrs.field(default=(), converter=_tuple, validator=_exact_integers)

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

    features: tuple[Feature, ...] = attrs.field(converter=_tuple)
    classes: tuple[Any, ...] = attrs.field(default=(), converter=_tuple, validator=_exact_integers)
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
    if type(node) is Split:
        return ("split", node.feature, node.test, node.stats, node.surrogates)
    if type(node) is Leaf:
        return ("leaf", node.stats)
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
        elif type(item) is Leaf:
            parts.append(f"Leaf(stats={item.stats!r})")
        else:
            seq: list[Any] = [f"Split(feature={item.feature!r}, test={item.test!r}, children=("]
            for i, child in enumerate(item.children):
                seq.extend([", "] if i else [])
                seq.append(child)
            seq.append(",), " if len(item.children) == 1 else "), ")
            seq.append(f"stats={item.stats!r}" + ("" if item.surrogates is None else f", surrogates={item.surrogates!r}") + ")")
            stack.extend(reversed(seq))
    return "".join(parts)


def _set_digest(self: Any) -> None:
    object.__setattr__(self, "_digest", _digest(self))


def _as_value(cls: type) -> type:
    """Give a node class the depth-safe equality, hash and repr (see above), and a
    ``__setstate__`` that computes the digest anew: the digest hashes strings, which Python
    salts per process, so a digest carried in a pickle would make a node unpickled in another
    process unequal to the same node built there."""
    for name, method in (("__eq__", _node_eq), ("__ne__", _node_ne), ("__hash__", _node_hash), ("__repr__", _node_repr)):
        setattr(cls, name, method)
    restore = cls.__setstate__  # type: ignore[attr-defined]

    def __setstate__(self: Any, state: Any) -> None:
        restore(self, state)
        _set_digest(self)  # the children are restored before their parent: their digests are this process's

    cls.__setstate__ = __setstate__  # type: ignore[attr-defined]
    return cls


# -- split tests -----------------------------------------------------------------------------
#
# What a split means lives in its test, a small frozen value: how many branches it has,
# which branch a column of values takes, what a branch says about a row (its constraint) and
# how each branch reads in text. Text, rules, invariants, strategies and prediction ask the
# test; only the modules that make a kind-specific artefact (the JSON registry in io/json.py, code
# lowering, the vectorised builder, the scikit-learn bridge) look at the test's class.

#: ``branch_of`` answers for a missing value (NaN) at a split without a learned side
#: (``Threshold.missing_branch``): the tree's missing-value strategy decides.
MISSING = -1
#: ``branch_of`` answers for a value the test has no branch for (a category never seen in
#: training): the row stops at the split and gets the split's distribution.
UNSEEN = -2


@attrs.frozen
class Interval:
    """A branch's constraint on a numeric feature: ``lo < x <= hi``.

    >>> Interval(hi=1.5).meet(Interval(lo=0.5))
    Interval(lo=0.5, hi=1.5)
    >>> Interval(lo=2.0, hi=1.0).is_empty
    True
    """

    lo: float = -math.inf
    hi: float = math.inf

    def meet(self, other: "Interval") -> "Interval":
        """The values both intervals allow."""
        return Interval(max(self.lo, other.lo), min(self.hi, other.hi))

    @property
    def is_empty(self) -> bool:
        return not self.lo < self.hi


@attrs.frozen
class Codes:
    """A branch's constraint on a categorical feature: the row's category code is in ``codes``.

    >>> Codes((0, 2)).meet(Codes((2, 1)))
    Codes(codes=(2,))
    """

    codes: tuple[int, ...] = attrs.field(converter=lambda v: tuple(sorted({int(c) for c in v})))

    def meet(self, other: "Codes") -> "Codes":
        keep = set(other.codes)
        return Codes(tuple(c for c in self.codes if c in keep))

    @property
    def is_empty(self) -> bool:
        return not self.codes


Constraint = Union[Interval, Codes]


def _category_column(values: np.ndarray, feature: Feature) -> tuple[np.ndarray, np.ndarray]:
    """Codes as integers (-1 where absent or unseen), and where a value is missing."""
    values = np.asarray(values, dtype=np.float64)
    absent = np.isnan(values)
    known = ~absent & (values >= 0) & (values < len(feature.categories))
    return np.where(known, values, -1).astype(np.int64), absent


def _categorical_answer(branch: np.ndarray, absent: np.ndarray) -> np.ndarray:
    """A branch per row from a branch per known code (-1: none), missing ones marked."""
    return np.where(absent, MISSING, np.where(branch < 0, UNSEEN, branch)).astype(np.int64)


def _threshold(value: Any) -> float:
    # One zero: -0.0 and 0.0 send every row the same way, so they are one threshold.
    return float(value) + 0.0


def _side(value: Any) -> Any:
    return None if value is None else _plain_int(value)


def _branch_or_none(instance: Any, attribute: attrs.Attribute, value: Any) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value not in (0, 1)):
        raise ParameterError(f"{type(instance).__name__}.{attribute.name} must be None, 0 (left) or 1 (right), got {value!r}")


@attrs.frozen(repr=False)
class Threshold:
    """``x <= value`` goes to branch 0 (left), ``x > value`` to branch 1 (right).

    ``missing_branch`` is the branch a missing value (NaN) takes at this split, learned from
    the data (scikit-learn's ``missing_go_to_left``, ``grow(..., missing="learn")``); None
    (the default, and every tree before it existed) leaves it to the tree's missing-value
    strategy. ``value`` is finite, or ``+inf`` on a split that sends the missing values alone
    right (``missing_branch=1``: every known value goes left), as scikit-learn learns it.

    >>> test = Threshold(1.5)
    >>> test.branch_of(np.array([1.0, 1.5, 2.0, np.nan]), Feature("x")).tolist()
    [0, 0, 1, -1]
    >>> test.constraints(Feature("x"))
    (Interval(lo=-inf, hi=1.5), Interval(lo=1.5, hi=inf))
    >>> test.labels("x", ())
    ['x <= 1.5', 'x > 1.5']
    >>> Threshold(-0.0) == Threshold(0.0)
    True
    >>> side = Threshold(1.5, missing_branch=1)
    >>> side.branch_of(np.array([1.0, np.nan]), Feature("x")).tolist(), side.labels("x", ())
    ([0, 1], ['x <= 1.5', 'x > 1.5 or missing'])
    >>> Threshold(1.5) == side, side
    (False, Threshold(value=1.5, missing_branch=1))
    """

    value: float = attrs.field(converter=_threshold)
    #: The branch a missing value takes (0 or 1), or None: the tree's strategy decides.
    missing_branch: int | None = attrs.field(default=None, converter=_side, validator=_branch_or_none)

    def __attrs_post_init__(self) -> None:
        if not (math.isfinite(self.value) or (self.value == math.inf and self.missing_branch == 1)):
            raise ParameterError(f"Threshold.value must be finite (or +inf on a split that sends only missing values right, missing_branch=1), got {self.value!r}")

    def __getattr__(self, name: str) -> Any:
        # The fast paths' trusted constructor (growth.assemble) sets the value's slot only, as
        # tests were before the side existed: an unset side is no side.
        if name == "missing_branch":
            return None
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    def __repr__(self) -> str:
        # The side only when there is one: trees without it print as they always have.
        side = "" if self.missing_branch is None else f", missing_branch={self.missing_branch!r}"
        return f"Threshold(value={self.value!r}{side})"

    #: The one name of this kind: in JSON, the docs, the CLI and the strategies.
    kind: ClassVar[str] = "threshold"
    #: The kind of feature the test reads.
    feature_kind: ClassVar[str] = NUMERIC

    @property
    def n_branches(self) -> int:
        return 2

    def branch_of(self, values: np.ndarray, feature: Feature) -> np.ndarray:
        """The branch each value takes (``MISSING`` for NaN), vectorised."""
        values = np.asarray(values, dtype=np.float64)
        absent = MISSING if self.missing_branch is None else self.missing_branch
        return np.where(np.isnan(values), absent, values > self.value).astype(np.int64)

    def constraints(self, feature: Feature) -> tuple[Constraint, ...]:
        """What each branch says about the feature's value."""
        return (Interval(hi=self.value), Interval(lo=self.value))

    def labels(self, name: str, categories: Sequence[str]) -> list[str]:
        """Each branch as text, given the feature's (printable) name and category names."""
        if self.value == math.inf:  # the missing values alone go right
            return [f"{name} is known", f"{name} is missing"]
        t = format_number(self.value)
        labels = [f"{name} <= {t}", f"{name} > {t}"]
        if self.missing_branch is not None:
            labels[self.missing_branch] += " or missing"
        return labels

    def problem(self, feature: Feature) -> str | None:
        """Why this test cannot stand on ``feature`` (None: it can)."""
        return None

    def at_data(self, values: np.ndarray | None) -> "Threshold":
        """The cut moved down to the largest of ``values`` (the feature's sorted training
        values) not above it, as J48 places it; itself when it is there already.

        >>> Threshold(54.0).at_data(np.array([40.0, 48.0, 60.0]))
        Threshold(value=48.0)
        """
        if values is None or not len(values) or self.value == math.inf:  # +inf: the missing values alone go right
            return self
        i = int(np.searchsorted(values, self.value, side="right")) - 1
        return self if i < 0 or values[i] == self.value else attrs.evolve(self, value=float(values[i]))

    @classmethod
    def of_candidate(cls, candidate: Any) -> "Threshold":
        """The test a split generator's :class:`~puretree.splits.Candidate` proposes."""
        return cls(candidate.threshold, missing_branch=getattr(candidate, "missing_branch", None))

    @staticmethod
    def branches_on(feature: Feature) -> int:
        """How many branches a test of this kind has on ``feature``."""
        return 2

    @staticmethod
    def possible(feature: Feature, limit: Constraint, choices: Any) -> bool:
        """Whether a test of this kind can split ``feature`` where a path allows ``limit``
        (``choices``: see :meth:`drawn`)."""
        return feature.is_numeric and choices.room(limit)

    @classmethod
    def drawn(cls, feature: Feature, limit: Constraint, choices: Any) -> "Threshold":
        """A test of this kind made of ``choices``' answers (how :mod:`puretree.strategies`
        draws one): ``choices.room(interval)``, ``choices.cut(interval)`` (a value inside)
        and ``choices.flags(n)`` (n booleans, not all alike) are all a kind may ask.

        ``choices.side(n)`` (None or a branch of the n) draws the branch a missing value takes,
        and ``choices.alone()``, asked when that is the right one, whether the missing values
        go there alone (``Threshold(inf, missing_branch=1)``: every known value goes left).

        >>> class Middle:
        ...     def cut(self, interval): return (interval.lo + interval.hi) / 2
        ...     def side(self, n): return None
        >>> Threshold.drawn(Feature("x"), Interval(0.0, 3.0), Middle())
        Threshold(value=1.5)
        """
        side = choices.side(2)
        if side == 1 and choices.alone():
            return cls(math.inf, missing_branch=1)
        return cls(choices.cut(limit), missing_branch=side)


def _positive(instance: Any, attribute: attrs.Attribute, value: int) -> None:
    if not isinstance(value, (int, np.integer)) or isinstance(value, bool) or value < 1:
        raise ParameterError(f"{type(instance).__name__}.{attribute.name} must be an integer >= 1, got {value!r}")


@attrs.frozen
class Multiway:
    """One branch per category (ID3, C4.5): category code ``c`` goes to branch ``c``.

    ``n_branches`` is the number of categories of the feature. A branch no training row
    reached is a leaf with zero counts, which predicts its parent's distribution.

    >>> feature = Feature("c", CATEGORICAL, ("a", "b", "c"))
    >>> Multiway(3).branch_of(np.array([2.0, 0.0, -1.0, np.nan]), feature).tolist()
    [2, 0, -2, -1]
    >>> Multiway(3).labels("c", ("a", "b", "c"))
    ['c = a', 'c = b', 'c = c']
    """

    n_branches: int = attrs.field(converter=_plain_int, validator=_positive)

    kind: ClassVar[str] = "multiway"
    feature_kind: ClassVar[str] = CATEGORICAL

    def branch_of(self, values: np.ndarray, feature: Feature) -> np.ndarray:
        code, absent = _category_column(values, feature)
        return _categorical_answer(np.where(code < self.n_branches, code, -1), absent)

    def constraints(self, feature: Feature) -> tuple[Constraint, ...]:
        return tuple(Codes((c,)) for c in range(self.n_branches))

    def labels(self, name: str, categories: Sequence[str]) -> list[str]:
        return [f"{name} = {categories[c]}" for c in range(self.n_branches)]

    def problem(self, feature: Feature) -> str | None:
        m = len(feature.categories)
        if self.n_branches != m:
            return f"a multiway split on {feature.name!r} has {self.n_branches} children, expected {m} (one per category)"
        return None

    def at_data(self, values: np.ndarray | None) -> "Multiway":
        """Itself: a multiway split has no cut to place (see :meth:`Threshold.at_data`)."""
        return self

    @classmethod
    def of_candidate(cls, candidate: Any) -> "Multiway":
        """The test a split generator's :class:`~puretree.splits.Candidate` proposes."""
        return cls(candidate.n_branches)

    @staticmethod
    def branches_on(feature: Feature) -> int:
        """One branch per category of ``feature``."""
        return len(feature.categories)

    @staticmethod
    def possible(feature: Feature, limit: Constraint, choices: Any) -> bool:
        """On a categorical feature whose path still allows two categories or more."""
        return not feature.is_numeric and len(getattr(limit, "codes", ())) >= 2

    @classmethod
    def drawn(cls, feature: Feature, limit: Constraint, choices: Any) -> "Multiway":
        """Nothing to choose: one branch per category (see :meth:`Threshold.drawn`)."""
        return cls(len(feature.categories))


def _sorted_codes(values: Any) -> tuple[int, ...]:
    return tuple(sorted({int(v) for v in values}))


@attrs.frozen
class Subset:
    """Two branches on a categorical feature (CART): codes in ``left_codes`` go to branch 0.

    >>> feature = Feature("c", CATEGORICAL, ("a", "b", "c"))
    >>> Subset((2, 0)).branch_of(np.array([0.0, 1.0, 2.0, -1.0]), feature).tolist()
    [0, 1, 0, -2]
    >>> Subset((0, 2)).constraints(feature)
    (Codes(codes=(0, 2)), Codes(codes=(1,)))
    >>> Subset((0,)).labels("c", ("a", "b", "c"))
    ['c in {a}', 'c not in {a}']
    """

    left_codes: tuple[int, ...] = attrs.field(converter=_sorted_codes)

    kind: ClassVar[str] = "subset"
    feature_kind: ClassVar[str] = CATEGORICAL

    @property
    def n_branches(self) -> int:
        return 2

    def branch_of(self, values: np.ndarray, feature: Feature) -> np.ndarray:
        code, absent = _category_column(values, feature)
        return _categorical_answer(np.where(code < 0, -1, np.where(np.isin(code, self.left_codes), 0, 1)), absent)

    def constraints(self, feature: Feature) -> tuple[Constraint, ...]:
        chosen = set(self.left_codes)
        return (Codes(self.left_codes), Codes(tuple(c for c in range(len(feature.categories)) if c not in chosen)))

    def labels(self, name: str, categories: Sequence[str]) -> list[str]:
        values = ", ".join(categories[c] for c in self.left_codes)
        return [f"{name} in {{{values}}}", f"{name} not in {{{values}}}"]

    def problem(self, feature: Feature) -> str | None:
        m = len(feature.categories)
        if any(not 0 <= c < m for c in self.left_codes):
            return f"left_codes {list(self.left_codes)} are out of range for {m} categories"
        return None

    def at_data(self, values: np.ndarray | None) -> "Subset":
        """Itself: a subset split has no cut to place (see :meth:`Threshold.at_data`)."""
        return self

    @classmethod
    def of_candidate(cls, candidate: Any) -> "Subset":
        """The test a split generator's :class:`~puretree.splits.Candidate` proposes."""
        return cls(candidate.left_categories)

    @staticmethod
    def branches_on(feature: Feature) -> int:
        return 2

    @staticmethod
    def possible(feature: Feature, limit: Constraint, choices: Any) -> bool:
        """On a categorical feature whose path still allows two categories or more."""
        return not feature.is_numeric and len(getattr(limit, "codes", ())) >= 2

    @classmethod
    def drawn(cls, feature: Feature, limit: Constraint, choices: Any) -> "Subset":
        """The allowed codes ``choices.flags`` sends left (see :meth:`Threshold.drawn`).

        >>> class Alternate:
        ...     def flags(self, n): return [i % 2 == 0 for i in range(n)]
        >>> Subset.drawn(Feature("c", CATEGORICAL, ("a", "b", "c")), Codes((0, 1, 2)), Alternate())
        Subset(left_codes=(0, 2))
        """
        allowed = getattr(limit, "codes")
        goes_left = list(choices.flags(len(allowed)))
        return cls(tuple(c for c, g in zip(allowed, goes_left) if g))


#: Every kind of split test, by its one name.
TESTS: dict[str, type[Union[Threshold, Multiway, Subset]]] = {cls.kind: cls for cls in (Threshold, Multiway, Subset)}
#: The names two kinds had before 0.3 (JSON version 1, ``strategies.trees(splits=...)``).
OLD_KIND_NAMES: dict[str, str] = {"numeric": Threshold.kind, "categorical": Multiway.kind}
Test = Union[Threshold, Multiway, Subset]


def _codes_or_none(values: Any) -> tuple[int, ...] | None:
    return None if values is None else _sorted_codes(values)


def _surrogate_test(instance: Any, attribute: attrs.Attribute, value: Any) -> None:
    if type(value) not in (Threshold, Subset) or getattr(value, "missing_branch", None) is not None:
        raise ParameterError(f"Surrogate.test must be a Threshold (without a missing side) or a Subset, got {value!r}")


def _decides(test: Any, known: tuple[int, ...] | None, values: np.ndarray, feature: Feature) -> tuple[np.ndarray, np.ndarray]:
    """The branch ``test`` gives each value, and whether it decides it: a known value (for a
    categorical test, one of the ``known`` codes when they are given)."""
    branch = test.branch_of(values, feature)
    decided = branch >= 0
    if known is not None:
        decided &= np.isin(values, np.asarray(known, dtype=np.float64))
    return branch, decided


@attrs.frozen
class Surrogate:
    """A surrogate split (rpart's): a test on another feature standing in for a split's own
    test where that one's value is missing.

    ``test``'s branch, swapped when ``flip`` is set, is the split's branch the row takes.
    ``known`` (a :class:`Subset`'s only): the category codes this surrogate decides; a row with
    another code (one no training row at the split had) passes to the next surrogate.

    >>> s = Surrogate(1, Threshold(2.5), flip=True)
    >>> s.branch_of(np.array([1.0, 3.0, np.nan]), Feature("x")).tolist()
    [1, 0, -1]
    >>> Surrogate(2, Subset((0,)), known=(0, 2)).branch_of(np.array([0.0, 1.0, 2.0]), Feature("c", CATEGORICAL, ("a", "b", "c"))).tolist()
    [0, -1, 1]
    """

    feature: int = attrs.field(converter=_plain_int, validator=_index)
    test: Any = attrs.field(validator=_surrogate_test)
    flip: bool = attrs.field(default=False, validator=attrs.validators.instance_of(bool))
    known: tuple[int, ...] | None = attrs.field(default=None, converter=_codes_or_none)

    def __attrs_post_init__(self) -> None:
        if self.known is not None and type(self.test) is not Subset:
            raise ParameterError("Surrogate.known (the codes a categorical surrogate decides) belongs to a Subset test")

    def branch_of(self, values: np.ndarray, feature: Feature) -> np.ndarray:
        """The split's branch (0 or 1) each value sends a row to, -1 where this surrogate does not decide."""
        branch, decided = _decides(self.test, self.known, np.asarray(values, dtype=np.float64), feature)
        return np.where(decided, branch ^ int(self.flip), -1).astype(np.int64)


def _fallback(instance: Any, attribute: attrs.Attribute, value: Any) -> None:
    if value is not None and (isinstance(value, bool) or value not in (0, 1)):
        raise ParameterError(f"Surrogates.fallback must be None, 0 or 1, got {value!r}")


@attrs.frozen
class Surrogates:
    """How a split routes a row its own test cannot decide (rpart's ``usesurrogate=2``): the
    first surrogate in ``splits`` that decides it; else the ``fallback`` branch (the child
    with more training rows); else (``fallback`` None, a tie) the row stops at the split and
    gets its distribution. ``known``: for a split on a :class:`Subset`, the category codes its
    test decides (those of its training rows); a row with another code is routed as missing.

    >>> features = (Feature("a"), Feature("b"))
    >>> sur = Surrogates((Surrogate(1, Threshold(0.5)),), fallback=1)
    >>> X = np.array([[0.0, 9.0], [np.nan, 0.0], [np.nan, 1.0], [np.nan, np.nan]])
    >>> sur.route(0, Threshold(1.0), X, features).tolist()
    [0, 0, 1, 1]
    """

    splits: tuple[Surrogate, ...] = attrs.field(default=(), converter=_tuple)
    fallback: int | None = attrs.field(default=None, converter=_side, validator=_fallback)
    known: tuple[int, ...] | None = attrs.field(default=None, converter=_codes_or_none)

    def __attrs_post_init__(self) -> None:
        for s in self.splits:
            if type(s) is not Surrogate:
                raise ParameterError(f"Surrogates.splits holds {s!r}, not a Surrogate")

    def route(self, feature: int, test: Any, X: np.ndarray, features: Sequence[Feature]) -> np.ndarray:
        """The branch (0 or 1) each row of ``X`` (encoded, all features) takes at a split on
        ``feature`` by ``test`` with these surrogates; -1 where it stops at the split."""
        branch, decided = _decides(test, self.known, X[:, feature], features[feature])
        out = np.where(decided, branch, -1).astype(np.int64)
        for s in self.splits:
            todo = out < 0
            if not todo.any():
                break
            out[todo] = s.branch_of(X[todo, s.feature], features[s.feature])
        if self.fallback is not None:
            out[out < 0] = self.fallback
        return out


def format_number(x: float) -> str:
    """The shortest text that reads back as the same float; integers without ``.0``.

    >>> format_number(54.0), format_number(0.1), format_number(1e-300)
    ('54', '0.1', '1e-300')
    """
    text = repr(float(x))
    return text[:-2] if text.endswith(".0") else text


# -- nodes -----------------------------------------------------------------------------------


def _stats_argument(stats: Any, counts: Any, node: str) -> Any:
    """``stats``, or ``counts`` (its name in classification, and before 0.3): the latter wins,
    since ``attrs.evolve(node, counts=...)`` passes both."""
    if counts is not None:
        return counts
    if stats is None:
        raise TypeError(f"{node}() missing its statistics: {node}(stats) (or counts= for class counts)")
    return stats


class _Statistics:
    """The two names of a node's statistics."""

    __slots__ = ()
    stats: tuple[float, ...]

    @property
    def counts(self) -> tuple[float, ...]:
        """The weighted class counts of a classification tree's node: ``stats`` by its name there.

        (In a regression tree ``stats`` are ``(weight, sum, sum of squares)``, not counts; read
        them as ``stats``. ``counts`` returns them too, for code written before 0.3.)
        """
        return self.stats


@_as_value
@attrs.frozen(eq=False, repr=False, init=False)
class Leaf(_Statistics):
    """A terminal node: the statistics of the training rows that reached it.

    Class counts in a classification tree, ``(weight, sum, sum of squares)`` in a regression
    tree; ``Leaf(stats=...)`` is accepted for the former.

    >>> Leaf((2, 1)), Leaf(stats=(2, 1)) == Leaf((2, 1)), Leaf((2, 1)).counts
    (Leaf(stats=(2.0, 1.0)), True, (2.0, 1.0))
    """

    stats: tuple[float, ...] = attrs.field(converter=_float_tuple, validator=_finite_values)
    _digest: int = attrs.field(init=False, repr=False, eq=False, default=0)

    def __init__(self, stats: Any = None, *, counts: Any = None) -> None:
        self.__attrs_init__(_stats_argument(stats, counts, "Leaf"))  # type: ignore[attr-defined]

    def __attrs_post_init__(self) -> None:
        _set_digest(self)


def _is_test(instance: Any, attribute: attrs.Attribute, value: Any) -> None:
    if type(value) not in TESTS.values():
        raise ParameterError(f"Split.test must be one of {[cls.__name__ for cls in TESTS.values()]}, got {value!r}")


@_as_value
@attrs.frozen(eq=False, repr=False, init=False)
class Split(_Statistics):
    """An inner node: a test on one feature and one child per branch of the test.

    ``children[i]`` receives the rows for which ``test.branch_of`` gives ``i``; ``stats``
    are those of the training rows that reached the split (class counts or regression
    statistics, as :class:`Leaf`'s; ``counts=`` is accepted for class counts).

    >>> split = Split(0, Threshold(1.5), (Leaf((2, 0)), Leaf((0, 3))), (2, 3))
    >>> split.test.n_branches, split.children[1]
    (2, Leaf(stats=(0.0, 3.0)))

    **Deprecated aliases** (kept for one release, see :class:`NumericSplit`): ``threshold``,
    ``left``, ``right`` and ``left_categories`` read the test and the children as the old
    node classes named them, and the constructor accepts them as keywords, so
    ``attrs.evolve(split, threshold=2.0)`` still works.
    """

    feature: int = attrs.field(converter=_plain_int, validator=_index)
    test: Any = attrs.field(validator=_is_test)
    children: tuple["Node", ...] = attrs.field(converter=_tuple)
    stats: tuple[float, ...] = attrs.field(converter=_float_tuple, validator=_finite_values)
    #: rpart's surrogate splits and majority branch for a row whose value is missing
    #: (``grow(..., missing="surrogate")``), or None: the tree's strategy decides.
    surrogates: "Surrogates | None" = attrs.field(default=None)
    _digest: int = attrs.field(init=False, repr=False, eq=False, default=0)

    def __init__(self, feature: int, test: Any, children: Any, stats: Any = None, *, counts: Any = None, surrogates: "Surrogates | None" = None, **deprecated: Any) -> None:
        if deprecated:
            test, children = _old_keywords(test, tuple(children), deprecated)
        self.__attrs_init__(feature, test, children, _stats_argument(stats, counts, "Split"), surrogates)  # type: ignore[attr-defined]

    def __attrs_post_init__(self) -> None:
        if len(self.children) != self.test.n_branches:
            raise ParameterError(f"a {self.test.kind} split has {self.test.n_branches} children, got {len(self.children)}")
        if self.surrogates is not None:
            if type(self.surrogates) is not Surrogates:
                raise ParameterError(f"Split.surrogates must be a Surrogates value or None, got {self.surrogates!r}")
            if self.test.n_branches != 2:
                raise ParameterError(f"surrogates belong to a two-branch split, not a {self.test.kind} split")
            if self.surrogates.known is not None and type(self.test) is not Subset:
                raise ParameterError("Surrogates.known (the codes the primary test decides) belongs to a subset split")
            if any(s.feature == self.feature for s in self.surrogates.splits):
                raise ParameterError(f"a surrogate of a split on feature {self.feature} is on that feature too")
        _set_digest(self)

    # -- deprecated aliases (one release): the old node classes' field names ----------------

    @property
    def threshold(self) -> float:
        """Deprecated: ``test.value`` of a :class:`Threshold` split."""
        if type(self.test) is not Threshold:
            raise AttributeError(f"a {self.test.kind} split has no threshold")
        return self.test.value

    @property
    def left_categories(self) -> tuple[int, ...]:
        """Deprecated: ``test.left_codes`` of a :class:`Subset` split."""
        if type(self.test) is not Subset:
            raise AttributeError(f"a {self.test.kind} split has no left_categories")
        return self.test.left_codes

    @property
    def left(self) -> "Node":
        """Deprecated: ``children[0]`` of a two-branch (threshold or subset) split."""
        if type(self.test) is Multiway:
            raise AttributeError("a multiway split has no left child; use children")
        return self.children[0]

    @property
    def right(self) -> "Node":
        """Deprecated: ``children[1]`` of a two-branch (threshold or subset) split."""
        if type(self.test) is Multiway:
            raise AttributeError("a multiway split has no right child; use children")
        return self.children[1]


def _old_keywords(test: Any, kids: tuple[Any, ...], changes: dict[str, Any]) -> tuple[Any, tuple[Any, ...]]:
    """Apply the old field names (``attrs.evolve(node, threshold=...)`` and the like)."""
    unknown = set(changes) - {"threshold", "left_categories", "left", "right"}
    if unknown:
        raise TypeError(f"Split() got unexpected keyword arguments {sorted(unknown)}")
    if "threshold" in changes:
        test = Threshold(changes["threshold"], missing_branch=getattr(test, "missing_branch", None))
    if "left_categories" in changes:
        test = Subset(changes["left_categories"])
    if "left" in changes:
        kids = (changes["left"],) + kids[1:]
    if "right" in changes:
        kids = kids[:1] + (changes["right"],) + kids[2:]
    return test, kids


Node = Union[Leaf, Split]


# -- the old node classes, as deprecated aliases ----------------------------------------------


class _SplitAlias(type):
    """The metaclass of the deprecated node classes: calling one builds a :class:`Split`, and
    ``isinstance`` (hence ``match``) holds for a split whose test is of the alias' kind."""

    def __instancecheck__(cls, obj: Any) -> bool:
        return type(obj) is Split and type(obj.test) is cls.test_class  # type: ignore[attr-defined]

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        return cls._build(*args, **kwargs)  # type: ignore[attr-defined]


class NumericSplit(metaclass=_SplitAlias):
    """Deprecated (one release): ``Split(feature, Threshold(threshold), (left, right), counts)``.

    ``NumericSplit(...)`` builds that split; ``isinstance(node, NumericSplit)`` and
    ``case NumericSplit(feature=f, threshold=t, left=l, right=r)`` match it.

    >>> node = NumericSplit(0, 1.5, Leaf((1, 0)), Leaf((0, 1)), (1, 1))
    >>> node.test, isinstance(node, NumericSplit), isinstance(node, SubsetSplit)
    (Threshold(value=1.5), True, False)
    """

    __match_args__ = ("feature", "threshold", "left", "right", "counts")
    test_class = Threshold

    @staticmethod
    def _build(feature: int, threshold: float, left: Node, right: Node, counts: Any) -> Split:
        return Split(feature, Threshold(threshold), (left, right), counts)


class CategoricalSplit(metaclass=_SplitAlias):
    """Deprecated (one release): ``Split(feature, Multiway(len(children)), children, counts)``."""

    __match_args__ = ("feature", "children", "counts")
    test_class = Multiway

    @staticmethod
    def _build(feature: int, children: Any, counts: Any) -> Split:
        kids = tuple(children)
        return Split(feature, Multiway(len(kids)), kids, counts)


class SubsetSplit(metaclass=_SplitAlias):
    """Deprecated (one release): ``Split(feature, Subset(left_categories), (left, right), counts)``."""

    __match_args__ = ("feature", "left_categories", "left", "right", "counts")
    test_class = Subset

    @staticmethod
    def _build(feature: int, left_categories: Any, left: Node, right: Node, counts: Any) -> Split:
        return Split(feature, Subset(left_categories), (left, right), counts)


#: The deprecated node classes (one release), each with the ``test_class`` it stands for.
DEPRECATED_SPLITS: tuple[type, ...] = (NumericSplit, CategoricalSplit, SubsetSplit)


def is_leaf(node: Node) -> bool:
    return type(node) is Leaf


def exact_mean(value: float, weight: float) -> tuple[float, float]:
    """A regression node's weight and weighted sum whose mean (``sum / weight``, as prediction
    divides) is exactly ``value``, the weight kept as given where it can be (a node's cover, which
    TreeSHAP weighs its branches by): a sum among the doubles next to ``value * weight`` that
    divides back, else the same with the weight scaled by ``1 + k * 2**-45 / phi`` for the first
    such ``k`` (a cover off by at most about 1e-11 of itself: neighbouring weights would move the
    quotients in step), else the nearest power of two as the weight, which always divides back.
    Imported and boosted trees carry their leaf values this way.

    >>> exact_mean(0.5, 3.0)
    (3.0, 1.5)
    >>> w, total = exact_mean(0.1, 3.0)  # no double near 0.3 divides by 3 back to 0.1
    >>> total / w == 0.1, abs(w / 3.0 - 1) < 1e-12
    (True, True)
    """
    given = float(weight) if weight > 0 else 1.0
    for k in range(_NUDGES):
        w = given * (1.0 + k * _NUDGE) if k else given
        for total in _outward(value * w, 4):
            if total / w == value:
                return w, total
    w = float(2.0 ** round(math.log2(given)))
    return w, value * w


#: exact_mean's relative steps of the weight (not a power of two: they move the quotients off
#: their grid) and how many it tries.
_NUDGE = 2.0**-45 / 1.618033988749895
_NUDGES = 256


def _outward(x: float, steps: int) -> Iterator[float]:
    """``x``, then the doubles next to it, nearest first, up to ``steps`` each way."""
    yield x
    up = down = x
    for _ in range(steps):
        up, down = math.nextafter(up, math.inf), math.nextafter(down, -math.inf)
        yield up
        yield down


def children(node: Node) -> tuple[Node, ...]:
    """The children of a node, left to right (empty for a leaf).

    >>> children(Split(0, Threshold(0.5), (Leaf((1, 0)), Leaf((0, 1))), (1, 1)))
    (Leaf(stats=(1.0, 0.0)), Leaf(stats=(0.0, 1.0)))
    """
    if type(node) is Split:
        return node.children
    if type(node) is Leaf:
        return ()
    raise TypeError(f"not a puretree node: {node!r}")


def with_children(node: Node, new: tuple[Node, ...]) -> Node:
    """The same node with its children replaced (same arity); a leaf is returned as is."""
    if type(node) is Leaf:
        return node
    if type(node) is not Split:
        raise TypeError(f"not a puretree node: {node!r}")
    new = tuple(new)
    if len(new) == len(node.children) and all(a is b for a, b in zip(new, node.children)):
        return node
    return Split(node.feature, node.test, new, node.stats, surrogates=node.surrogates)


#: How a tree treats a missing value at a split when predicting:
#: ``"majority"``: follow the branch that received the most training weight (ties: the first);
#: ``"distribute"`` (C4.5): follow every branch and combine their predictions, weighted by the
#: branches' training weights; ``"error"``: refuse, naming the row and the feature.
MISSING_STRATEGIES = ("majority", "distribute", "error")
