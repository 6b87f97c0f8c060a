"""Hypothesis strategies for testing tree code: data sets, trees, criteria, boundary rows.

Needs Hypothesis (``pip install puretree[hypothesis]``); ``import puretree`` never imports
this module. The strategies follow Hypothesis' conventions: they are functions, their
bounds are keyword-only, a bad argument raises :class:`hypothesis.errors.InvalidArgument`,
and they shrink towards small, plain examples (one row, one feature, zeros, a leaf).

- :func:`datasets`: :class:`~puretree.data.Dataset` values (``ds.X``, ``ds.y``,
  ``ds.labels()``; pass ``ds`` straight to ``grow`` or ``predict``), biased towards the data
  that breaks tree code: duplicated rows with different labels, constant columns, ties,
  floats at the float32/float64 edges (subnormals, the largest finite values, adjacent
  floats, ``-0.0``), a single class, a single row.
- :func:`trees`: valid trees built directly (every split kind, consistent counts, every
  leaf reachable), for testing printers, rewrites, exporters and serialisers.
- :func:`schemas`, :func:`leaves`, :func:`class_counts`: the parts.
- :func:`impurities`, :func:`criteria`: the built-in impurities and split scores, and
  random compositions of them.
- :func:`boundary_rows`: rows on and one representable value either side of every
  threshold of a tree, every category of every categorical test and an unseen one.

>>> from hypothesis import given
>>> from puretree.invariants import check_roundtrip
>>> @given(trees())
... def test_json_round_trip(tree):
...     check_roundtrip(tree)
>>> test_json_round_trip()
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

import attrs
import numpy as np
from hypothesis import strategies as st
from hypothesis.errors import InvalidArgument

from .criteria import gain_ratio, impurity_decrease, information_gain
from .data import Dataset
from .growth.assemble import assemble
from .impurity import entropy, gini, misclassification
from .invariants import boundary_cases, next_down, next_up
from .nodes import CATEGORICAL, MISSING_STRATEGIES, NUMERIC, OLD_KIND_NAMES, TESTS, Codes, Feature, Interval, Leaf, Node, Schema, Split
from .tree import Tree

__all__ = [
    "EDGE_FLOATS",
    "EDGE_FLOATS32",
    "SPLIT_KINDS",
    "numbers",
    "schemas",
    "datasets",
    "class_counts",
    "leaves",
    "trees",
    "impurities",
    "criteria",
    "boundary_rows",
]

_F32_MAX = float(np.finfo(np.float32).max)
_F32_TINY = float(np.finfo(np.float32).tiny)
_F32_SUB = float(np.finfo(np.float32).smallest_subnormal)

#: Float64 values that break numeric code: signed zeros, the smallest subnormal, the largest
#: subnormal and smallest normal, the largest finite values, values just off 1, the float32
#: limits, 2**53 (beyond which integers are not all representable) and its neighbour.
EDGE_FLOATS: tuple[float, ...] = (
    0.0, -0.0, 1.0, -1.0, 0.5, 0.1, 5e-324, -5e-324, 2.225073858507201e-308, 2.2250738585072014e-308,
    1.7976931348623157e308, -1.7976931348623157e308, 0.9999999999999999, 1.0000000000000002,
    _F32_SUB, _F32_TINY, _F32_MAX, -_F32_MAX, 16777216.0, 9007199254740992.0, 9007199254740994.0, 1e-300, 1e300,
)
#: The float32-representable values among those, plus float32's own adjacent values around 1.
EDGE_FLOATS32: tuple[float, ...] = tuple(v for v in EDGE_FLOATS if abs(v) <= _F32_MAX and float(np.float32(v)) == v) + (
    next_down(1.0, width=32), next_up(1.0, width=32), 16777218.0,
)

#: The split kinds :func:`trees` builds, named as their tests name themselves: thresholds on
#: numeric features, one branch per category (multiway), category subsets.
SPLIT_KINDS = tuple(TESTS)



# -- argument checks (Hypothesis' convention: InvalidArgument, naming the argument) -------


def _check_int(name: str, value: Any, *, minimum: int, none_ok: bool = False) -> None:
    if value is None and none_ok:
        return
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise InvalidArgument(f"{name}={value!r} must be an integer >= {minimum}{' or None' if none_ok else ''}")


def _check_range(lo_name: str, lo: int, hi_name: str, hi: int | None, *, minimum: int) -> None:
    _check_int(lo_name, lo, minimum=minimum)
    _check_int(hi_name, hi, minimum=minimum, none_ok=True)
    if hi is not None and lo > hi:
        raise InvalidArgument(f"{lo_name}={lo!r} is larger than {hi_name}={hi!r}")


def _check_choice(name: str, values: Any, allowed: Sequence[str]) -> tuple[str, ...]:
    if isinstance(values, str) or not isinstance(values, (tuple, list, set, frozenset)):
        raise InvalidArgument(f"{name}={values!r} must be a tuple of values from {list(allowed)}")
    values = tuple(values)
    bad = [v for v in values if v not in allowed]
    if bad or not values:
        raise InvalidArgument(f"{name}={values!r} must be a non-empty tuple of values from {list(allowed)}")
    return tuple(dict.fromkeys(values))


def _check_width(width: Any) -> None:
    if width not in (32, 64) or isinstance(width, bool):
        raise InvalidArgument(f"width={width!r} must be 32 or 64")


def _check_strategy(name: str, value: Any) -> None:
    if value is not None and not isinstance(value, st.SearchStrategy):
        raise InvalidArgument(f"{name}={value!r} must be a Hypothesis strategy or None")


def _missing_probability(missing: Any) -> float:
    if isinstance(missing, bool):
        return 0.2 if missing else 0.0
    if isinstance(missing, (int, float)) and 0 <= missing <= 1:
        return float(missing)
    raise InvalidArgument(f"missing={missing!r} must be a bool or a probability between 0 and 1")


# -- numbers -------------------------------------------------------------------------------


def _nudge(value: float, steps: int, width: int) -> float:
    out = value
    for _ in range(abs(steps)):
        out = next_up(out, width=width) if steps > 0 else next_down(out, width=width)
    return out if math.isfinite(out) else value


def numbers(*, width: int = 64) -> st.SearchStrategy[float]:
    """Finite floats for feature values and thresholds, biased to where tree code breaks.

    Small integers (so that values tie), the :data:`EDGE_FLOATS`, any finite float, each
    possibly moved one representable value up or down (adjacent floats). ``width=32`` gives
    float32-representable values only. Shrinks towards ``0.0``.

    >>> import math
    >>> from hypothesis import find
    >>> huge = find(numbers(), lambda x: x > 1e300)   # which huge value depends on the search
    >>> 1e300 < huge and math.isfinite(huge)
    True
    """
    _check_width(width)
    return _numbers(width)


@functools.lru_cache(maxsize=2)
def _numbers(width: int) -> st.SearchStrategy[float]:
    edges = EDGE_FLOATS32 if width == 32 else EDGE_FLOATS
    base = st.one_of(st.integers(-3, 3).map(float), st.sampled_from(edges), st.floats(allow_nan=False, allow_infinity=False, width=width))  # type: ignore[arg-type]  # 32 or 64, checked
    return st.builds(_nudge, base, st.sampled_from((0, 1, -1)), st.just(width))


@functools.lru_cache(maxsize=1024)
def _one_of_values(values: tuple[Any, ...]) -> st.SearchStrategy[Any]:
    """``st.sampled_from`` built once per tuple of choices (strategies cost more to build and
    validate than to draw from, and a tree draws several per node)."""
    return st.sampled_from(values)


@functools.lru_cache(maxsize=256)
def _integers(lo: int, hi: int) -> st.SearchStrategy[int]:
    return st.integers(lo, hi)


# -- schemas and data sets -----------------------------------------------------------------

_STR_CLASSES = ("a", "b", "c", "d", "e", "f", "g", "h")


def _labels(draw: Any, n: int, what: str) -> tuple[Any, ...]:
    """``n`` distinct sorted labels: strings, integers or (for at most two) booleans."""
    styles = ["str", "int"] + (["bool"] if n <= 2 else [])
    style = draw(_one_of_values(tuple(styles)), label=f"{what} style")
    if style == "str":
        return _STR_CLASSES[:n] if n <= len(_STR_CLASSES) else tuple(f"v{i:03d}" for i in range(n))
    if style == "int":
        return tuple(range(n))
    return (False, True)[:n]


@st.composite
def _schemas(draw: Any, min_features: int, max_features: int, kinds: tuple[str, ...], n_classes: int | None, max_classes: int, max_categories: int, names: Any) -> Schema:
    p = draw(_integers(min_features, max_features), label="number of features")
    if names is None:
        feature_names = [f"x{j}" for j in range(p)]
    else:
        feature_names = draw(st.lists(names, min_size=p, max_size=p, unique=True), label="feature names")
    features = []
    for name in feature_names:
        # Both kinds make the same draws (categories are drawn for a numeric feature too, and
        # ignored), so the shrinker can turn one kind into the other by changing one choice;
        # categorical comes first whatever the order given, so every shrink ends at the same
        # simplest feature (one category) instead of stopping at whichever it met first.
        kind = draw(_one_of_values(tuple(sorted(kinds))), label="kind")
        m = draw(_integers(1, max_categories), label="number of categories")
        categories = _labels(draw, m, "category")
        features.append(Feature(name, NUMERIC) if kind == NUMERIC else Feature(name, CATEGORICAL, categories))
    k = n_classes if n_classes is not None else draw(_integers(1, max_classes), label="number of classes")
    return Schema(tuple(features), _labels(draw, k, "class"))


def schemas(
    *,
    min_features: int = 1,
    max_features: int = 4,
    kinds: Sequence[str] = (NUMERIC, CATEGORICAL),
    n_classes: int | None = None,
    max_classes: int = 3,
    max_categories: int = 4,
    names: st.SearchStrategy[str] | None = None,
) -> st.SearchStrategy[Schema]:
    """Classification schemas: features of the given ``kinds``, ``n_classes`` class labels.

    ``n_classes=None`` draws 1 to ``max_classes`` classes. Class labels and category values
    are strings, integers or booleans (as users' data have them). Features are named
    ``x0, x1, ...`` unless ``names`` (a strategy of strings) is given: use
    ``names=st.text()`` to test that quotes, spaces and non-ASCII names survive.
    """
    _check_range("min_features", min_features, "max_features", max_features, minimum=0)
    kinds = _check_choice("kinds", kinds, (NUMERIC, CATEGORICAL))
    _check_int("n_classes", n_classes, minimum=1, none_ok=True)
    _check_int("max_classes", max_classes, minimum=1)
    _check_int("max_categories", max_categories, minimum=1)
    _check_strategy("names", names)
    return _schemas(min_features, max_features, kinds, n_classes, max_classes, max_categories, names)


_WEIGHT_VALUES = st.sampled_from((1.0, 2.0, 0.5, 0.0, 3.0, 1e-3, 1e3)) | st.floats(0, 100)


@functools.lru_cache(maxsize=256)
def _row_strategy(sizes: tuple[int, ...], n_classes: int, weights: bool) -> st.SearchStrategy[Any]:
    """One row: a palette index per column, a class index, a weight.

    Built once per shape and reused: constructing and validating strategies on every draw
    would cost more than drawing from them.
    """
    cells = st.tuples(*(st.integers(0, size - 1) for size in sizes))
    return st.tuples(cells, st.integers(0, n_classes - 1), _WEIGHT_VALUES if weights else st.just(1.0))


# A missing cell is a (row, column) position taken modulo the table's shape, drawn after the
# rows: deleting a row or a feature keeps every position valid, so a search for "some cell
# is missing" always shrinks to one row, one feature and one missing cell. (Drawn as a flag
# inside each cell, the flag of column 3 vanishes when the shrinker drops column 3, and the
# search stops at whatever table it had: the cause of a flaky shrink.)
_POSITION = st.tuples(st.integers(0, 2**16), st.integers(0, 2**16))


def _missing_cells(draw: Any, n_rows: int, n_features: int, fraction: float) -> list[tuple[int, int]]:
    cells = n_rows * n_features
    if fraction >= 1.0:
        return [(i, j) for i in range(n_rows) for j in range(n_features)]
    most = math.ceil(fraction * cells)
    if most == 0 or cells == 0:
        return []
    drawn = draw(st.lists(_POSITION, max_size=most), label="missing cells")
    return [(i % n_rows, j % n_features) for i, j in drawn]


@st.composite
def _datasets(draw: Any, schema_strategy: Any, min_rows: int, max_rows: int, missing: float, weights: bool, width: int) -> Dataset:
    schema = draw(schema_strategy, label="schema")
    palettes = []
    for f in schema.features:
        # A small palette per column: values repeat, so rows tie and duplicate, and a
        # palette of one value is a constant column.
        # Drawn for a categorical column too (and ignored): see _schemas on aligned draws.
        palette = draw(_palettes(width, min(max_rows, 6)), label=f"values of {f.name}")
        palettes.append(palette if f.is_numeric else [float(c) for c in range(len(f.categories))])
    row = _row_strategy(tuple(map(len, palettes)), len(schema.classes), weights)
    # Rows as a list: the shrinker deletes whole rows at once.
    rows = draw(st.lists(row, min_size=min_rows, max_size=max_rows), label="rows")
    X = np.array([[p[i] for p, i in zip(palettes, r[0])] for r in rows], dtype=np.float64).reshape(len(rows), schema.n_features)
    for i, j in _missing_cells(draw, len(rows), schema.n_features, missing):
        X[i, j] = math.nan
    y = np.array([r[1] for r in rows], dtype=np.int64)
    w = None
    if weights:
        w = np.array([r[2] for r in rows], dtype=np.float64)
        if not (w > 0).any():
            w[0] = 1.0  # a data set learns from at least one row
    return Dataset(schema, X, y, w)


@functools.lru_cache(maxsize=32)
def _palettes(width: int, max_size: int) -> st.SearchStrategy[list[float]]:
    return st.lists(numbers(width=width), min_size=1, max_size=max_size)


def datasets(
    *,
    min_rows: int = 1,
    max_rows: int = 20,
    min_features: int = 1,
    max_features: int = 4,
    n_classes: int | None = None,
    max_classes: int = 3,
    kinds: Sequence[str] = (NUMERIC, CATEGORICAL),
    max_categories: int = 4,
    missing: bool | float = False,
    weights: bool = False,
    width: int = 64,
    names: st.SearchStrategy[str] | None = None,
) -> st.SearchStrategy[Dataset]:
    """Classification data sets as :class:`~puretree.data.Dataset` values.

    A drawn ``ds`` has ``ds.schema`` (see :func:`schemas`), ``ds.X`` (float64, numeric
    values as they are and categorical cells as category codes), ``ds.y`` (class indices)
    and ``ds.labels()`` (the labels themselves); ``grow(ds)``, ``predict(tree, ds)`` and
    ``check_fits_training_data(tree, ds)`` take it whole. Every column draws its values from
    a small palette of :func:`numbers`, so values repeat (ties in the gains, duplicated rows
    with different labels, constant columns); the shrinker goes to one row, one feature,
    the value 0 and the first class.

    ``missing``: ``True`` (or a fraction) makes up to that fraction of the cells NaN
    (``True``: a fifth; ``1.0``: every cell), for growing and predicting with missing values. ``weights=True`` adds ``sample_weight`` (zeros, tiny and huge
    weights included; at least one is positive). ``width=32``: float32-representable values.

    >>> from hypothesis import find
    >>> ds = find(datasets(min_rows=2, n_classes=2), lambda ds: ds.X[0].tolist() == ds.X[1].tolist() and ds.y[0] != ds.y[1])
    >>> ds.n_rows, ds.labels().tolist()      # shrunk to two identical rows, two labels
    (2, ['a', 'b'])
    >>> set(ds.X.ravel().tolist())           # the simplest values (how many columns is up to the search)
    {0.0}
    """
    _check_range("min_rows", min_rows, "max_rows", max_rows, minimum=1)
    p = _missing_probability(missing)
    if not isinstance(weights, bool):
        raise InvalidArgument(f"weights={weights!r} must be a bool")
    _check_width(width)
    schema_strategy = schemas(
        min_features=min_features, max_features=max_features, kinds=kinds, n_classes=n_classes,
        max_classes=max_classes, max_categories=max_categories, names=names,
    )
    return _datasets(schema_strategy, min_rows, max_rows, p, weights, width)


# -- counts, leaves and trees ----------------------------------------------------------------


def class_counts(*, n_classes: int | None = None, max_classes: int = 4, weighted: bool = False, max_count: int = 8) -> st.SearchStrategy[tuple[float, ...]]:
    """Class-count vectors: integers from 0 to ``max_count`` (halves too with ``weighted=True``).

    ``n_classes=None`` draws 1 to ``max_classes`` classes. Shrinks towards all zeros.
    """
    _check_int("n_classes", n_classes, minimum=1, none_ok=True)
    _check_int("max_classes", max_classes, minimum=1)
    _check_int("max_count", max_count, minimum=0)
    if not isinstance(weighted, bool):
        raise InvalidArgument(f"weighted={weighted!r} must be a bool")
    # Halves keep sums exact in float64, so a parent's counts are exactly its children's sum.
    value = st.integers(0, 2 * max_count).map(lambda v: v / 2) if weighted else st.integers(0, max_count).map(float)
    size = st.just(n_classes) if n_classes is not None else st.integers(1, max_classes)
    return size.flatmap(lambda k: st.tuples(*([value] * k)))


@functools.lru_cache(maxsize=64)
def _counts(k: int, weighted: bool) -> st.SearchStrategy[tuple[float, ...]]:
    value = st.integers(0, 16).map(lambda v: v / 2) if weighted else st.integers(0, 8).map(float)
    return st.tuples(*([value] * k))


@functools.lru_cache(maxsize=64)
def _flags(n: int) -> st.SearchStrategy[list[bool]]:
    return st.lists(st.booleans(), min_size=n, max_size=n)


def leaves(*, n_classes: int | None = None, weighted: bool = False) -> st.SearchStrategy[Leaf]:
    """Leaves with :func:`class_counts`."""
    return class_counts(n_classes=n_classes, weighted=weighted).map(Leaf)


def _first_above(lo: float, width: int) -> float:
    top = _F32_MAX if width == 32 else float(np.finfo(np.float64).max)
    return -top if lo == -math.inf else next_up(lo, width=width)


def _threshold_room(limit: tuple[float, float], width: int) -> bool:
    """Whether some threshold ``t`` with ``lo < t < hi`` leaves both branches reachable."""
    lo, hi = limit
    t = _first_above(lo, width)
    top = _F32_MAX if width == 32 else float(np.finfo(np.float64).max)
    return t < hi and t < top


def _room_below(lo: float, t: float, levels: int, width: int) -> bool:
    """Whether ``levels`` nested thresholds fit strictly between ``lo`` and ``t``."""
    for _ in range(levels):
        lo = _first_above(lo, width)
        if not lo < t:
            return False
    return True


def _fit_threshold(t: float, limit: tuple[float, float], width: int) -> float:
    """The drawn threshold if it keeps both branches reachable, else one that does."""
    lo, hi = limit
    top = _F32_MAX if width == 32 else float(np.finfo(np.float64).max)
    if lo < t < hi and t < top:
        return t
    return _midpoint(limit, width)


def _midpoint(limit: tuple[float, float], width: int) -> float:
    """A threshold halfway through the interval (the first one above ``lo`` if none is)."""
    lo, hi = limit
    top = _F32_MAX if width == 32 else float(np.finfo(np.float64).max)
    a, b = max(lo, -top), min(hi, top)
    m = a / 2.0 + b / 2.0
    if width == 32:
        m = float(np.float32(m))
    return m if lo < m < hi and m < top else _first_above(lo, width)


@attrs.frozen
class _Spec:
    kind: str
    feature: int = 0
    test: Any = None
    kids: tuple[int, ...] = ()
    empty: bool = False


@attrs.frozen
class _Choices:
    """What a split test asks when it is drawn (see :meth:`puretree.nodes.Threshold.drawn`):
    the kinds themselves say what they need; this answers from Hypothesis' ``draw``."""

    draw: Any
    forced_levels: int = 0
    width: int = 64
    thresholds: Any = None
    #: Whether a split may learn the branch a missing value takes (a "majority" tree's).
    sides: bool = False

    def room(self, limit: Interval) -> bool:
        return _threshold_room((limit.lo, limit.hi), self.width)

    def cut(self, limit: Interval) -> float:
        interval = (limit.lo, limit.hi)
        t = _fit_threshold(self.draw(self.thresholds, label="threshold"), interval, self.width)
        if self.forced_levels > 0 and not _room_below(limit.lo, t, self.forced_levels, self.width):
            # The spine must go on splitting: a threshold at the bottom of the interval
            # (say -1.8e308) would leave its left branch no room for the splits to come.
            t = _midpoint(interval, self.width)
        return t

    def side(self, n: int) -> int | None:
        """None (the tree's strategy decides), or the branch a missing value takes."""
        if not self.sides:
            return None
        return self.draw(_one_of_values((None, *range(n))), label="missing-value side")

    def alone(self) -> bool:
        """Whether the missing values alone take the right branch (a threshold of +inf)."""
        return bool(self.draw(st.booleans(), label="missing values alone"))

    def flags(self, n: int) -> list[bool]:
        goes_left = self.draw(_flags(n), label="subset")
        if not any(goes_left):
            goes_left[0] = True
        if all(goes_left):
            goes_left[-1] = False
        return goes_left


def _start(feature: Feature) -> Any:
    return Interval() if feature.is_numeric else Codes(range(len(feature.categories)))


@st.composite
def _trees(draw: Any, schema_strategy: Any, min_depth: int, max_depth: int, max_nodes: int, splits: tuple[str, ...], weighted: bool, missing: tuple[str, ...], width: int, thresholds: Any) -> Tree:
    schema = draw(schema_strategy, label="schema")
    # Drawn first: a "majority" tree's splits may learn where a missing value goes (generated
    # code holds learned sides under that strategy).
    strategy = draw(_one_of_values(missing), label="missing-value strategy")
    features = schema.features
    k = len(schema.classes)
    counts = _counts(k, weighted)
    start = tuple(_start(f) for f in features)
    specs: list[_Spec | None] = [None]
    size = 1
    # Pre-order construction on an explicit stack: (spec slot, depth, on the leftmost spine,
    # per-feature constraints of the path, whether no training row can reach the node).
    stack: list[tuple[int, int, bool, tuple[Any, ...], bool]] = [(0, 0, True, start, False)]
    while stack:
        slot, depth, spine, limits, empty = stack.pop()
        options = []
        if depth < max_depth and not empty:
            probe = _Choices(draw, width=width)
            for kind in splits:
                test_class = TESTS[kind]
                usable = [j for j, f in enumerate(features) if test_class.possible(f, limits[j], probe) and size + test_class.branches_on(f) <= max_nodes]
                if usable:
                    options.append((kind, usable))
        forced = spine and depth < min_depth and options
        choices = [o[0] for o in options] if forced else ["leaf"] + [o[0] for o in options]
        kind = draw(_one_of_values(tuple(choices)), label="node kind")
        if kind == "leaf":
            specs[slot] = _Spec("leaf", empty=empty)
            continue
        j = draw(_one_of_values(tuple(dict(options)[kind])), label="feature")
        feature = features[j]
        test = TESTS[kind].drawn(feature, limits[j], _Choices(draw, min_depth - depth - 1 if forced else 0, width, thresholds, sides=strategy == "majority"))
        # Each branch narrows the path's constraint on the feature as the test says; a branch
        # the path excludes (a category no row on it can have) gets an empty leaf.
        kid_limits = [limits[j].meet(c) for c in test.constraints(feature)]
        kid_empty = [empty or lim.is_empty for lim in kid_limits]
        first = len(specs)
        specs.extend([None] * len(kid_limits))
        size += len(kid_limits)
        specs[slot] = _Spec(kind, j, test, tuple(range(first, first + len(kid_limits))))
        # min_depth goes on down the first child a training row can reach.
        spine_child = next((i for i, e in enumerate(kid_empty) if not e), 0)
        for i in reversed(range(len(kid_limits))):
            child = limits[:j] + (kid_limits[i],) + limits[j + 1 :]
            stack.append((first + i, depth + 1, spine and i == spine_child, child, kid_empty[i]))
    # Bottom-up: children have larger slots than their parent.
    def node(slot: int, kids: tuple[Node, ...]) -> Node:
        spec = specs[slot]
        assert spec is not None
        if spec.kind == "leaf":
            return Leaf((0.0,) * k if spec.empty else draw(counts, label="leaf counts"))
        total = tuple(float(v) for v in np.sum([kid.stats for kid in kids], axis=0))
        return Split(spec.feature, spec.test, kids, total)

    root = assemble([spec.kids if spec else () for spec in specs], node)
    return Tree(root, schema, strategy)


def trees(
    *,
    schema: Schema | st.SearchStrategy[Schema] | None = None,
    min_depth: int = 0,
    max_depth: int = 3,
    max_nodes: int = 25,
    splits: Sequence[str] = SPLIT_KINDS,
    n_classes: int | None = None,
    weighted: bool = False,
    missing: Sequence[str] = MISSING_STRATEGIES,
    width: int = 64,
    thresholds: st.SearchStrategy[float] | None = None,
) -> st.SearchStrategy[Tree]:
    """Valid classification trees, built directly (no data, no fitting).

    Splits are drawn from ``splits`` (any of :data:`SPLIT_KINDS`; the old names ``"numeric"``
    and ``"categorical"`` are deprecated aliases of ``"threshold"`` and ``"multiway"``) on
    features of the matching kind, thresholds from ``thresholds`` (default :func:`numbers`, edge values included;
    ``width=32``: float32-representable). Every tree
    is valid as a learned tree would be: a split's counts are the sum of its children's; a
    threshold lies strictly inside the interval its path allows and category subsets are
    proper subsets of the categories the path allows, so every leaf is reachable; a
    multiway split has one child per category, and children for categories its path
    excludes are empty leaves (zero counts). ``min_depth`` forces splits down the leftmost
    path (where the schema allows them); ``max_depth`` and ``max_nodes`` bound the size.
    ``schema`` fixes the schema (a value or a strategy; default: :func:`schemas` with the
    feature kinds ``splits`` needs). ``missing`` are the strategies drawn for
    :attr:`Tree.missing`; in a ``"majority"`` tree a threshold split may also carry a learned
    missing-value side (:attr:`~puretree.nodes.Threshold.missing_branch`). Shrinks towards a
    single leaf with zero counts.

    >>> from hypothesis import find
    >>> from puretree.fold import n_nodes
    >>> find(trees(), lambda t: True).root
    Leaf(stats=(0.0,))
    >>> tree = find(trees(splits=("subset",)), lambda t: n_nodes(t) > 1)
    >>> tree.root.test, tree.schema.features[0].categories
    (Subset(left_codes=(0,)), ('a', 'b'))
    """
    _check_range("min_depth", min_depth, "max_depth", max_depth, minimum=0)
    _check_int("max_nodes", max_nodes, minimum=1)
    if isinstance(splits, (tuple, list, set, frozenset)):
        splits = tuple(OLD_KIND_NAMES.get(kind, kind) if isinstance(kind, str) else kind for kind in splits)
    splits = _check_choice("splits", splits, SPLIT_KINDS)
    missing = _check_choice("missing", missing, MISSING_STRATEGIES)
    _check_int("n_classes", n_classes, minimum=1, none_ok=True)
    if not isinstance(weighted, bool):
        raise InvalidArgument(f"weighted={weighted!r} must be a bool")
    _check_width(width)
    _check_strategy("thresholds", thresholds)
    if thresholds is None:
        thresholds = numbers(width=width)
    elif width == 32:
        thresholds = thresholds.map(_to_float32)
    if schema is None:
        kinds = tuple(dict.fromkeys(TESTS[kind].feature_kind for kind in splits))
        schema_strategy: Any = schemas(kinds=kinds, n_classes=n_classes)
    elif isinstance(schema, Schema):
        if schema.is_regression:
            raise InvalidArgument("schema must be a classification schema (trees() builds classification trees)")
        if n_classes is not None and n_classes != len(schema.classes):
            raise InvalidArgument(f"n_classes={n_classes!r} disagrees with the schema's {len(schema.classes)} classes")
        schema_strategy = st.just(schema)
    elif isinstance(schema, st.SearchStrategy):
        schema_strategy = schema
    else:
        raise InvalidArgument(f"schema={schema!r} must be a Schema, a strategy of schemas, or None")
    return _trees(schema_strategy, min_depth, max_depth, max_nodes, splits, weighted, missing, width, thresholds)


def _to_float32(value: float) -> float:
    """A threshold as the nearest float32, kept finite (and non-finite input made 0)."""
    if not math.isfinite(value):
        return 0.0
    return float(np.float32(max(-_F32_MAX, min(_F32_MAX, value))))


# -- criteria --------------------------------------------------------------------------------


@attrs.frozen(repr=False)
class _Mixture:
    """A non-negative combination of impurities: again an impurity (concave, zero when pure)."""

    terms: tuple[tuple[float, Callable[..., Any]], ...]

    def __call__(self, counts: Any) -> np.ndarray:
        c = np.asarray(counts, dtype=np.float64)
        return sum((w * np.asarray(f(c), dtype=np.float64) for w, f in self.terms), np.zeros(c.shape[:-1]))

    def __repr__(self) -> str:
        return " + ".join(f"{w!r}*{getattr(f, '__name__', repr(f))}" for w, f in self.terms)

    @property
    def __name__(self) -> str:  # scores print their impurity by name
        return f"({self!r})"


@attrs.frozen(repr=False)
class _ScoreSum:
    """A non-negative combination of split scores (``-inf`` stays "not a candidate")."""

    terms: tuple[tuple[float, Callable[..., Any]], ...]

    def __call__(self, parent: Any, children: Any, features: Any = None) -> np.ndarray:
        parts = [w * np.asarray(s(parent, children, features), dtype=np.float64) for w, s in self.terms]
        with np.errstate(invalid="ignore"):
            return sum(parts[1:], parts[0])

    def __repr__(self) -> str:
        return " + ".join(f"{w!r}*{s!r}" for w, s in self.terms)


_BUILTIN_IMPURITIES = (entropy, gini, misclassification)
_WEIGHTS = st.sampled_from((1.0, 0.5, 2.0, 0.25, 3.0))


def impurities() -> st.SearchStrategy[Callable[..., Any]]:
    """The built-in class impurities, and non-negative combinations of them.

    Every value drawn passes :func:`puretree.invariants.check_impurity`.
    """
    base = st.sampled_from(_BUILTIN_IMPURITIES)
    mixed = st.lists(st.tuples(_WEIGHTS, base), min_size=2, max_size=3).map(lambda terms: _Mixture(tuple(terms)))
    return st.one_of(base, mixed)


def criteria() -> st.SearchStrategy[Callable[..., Any]]:
    """Split scores: ``information_gain``, ``gain_ratio`` and ``impurity_decrease`` of any of
    :func:`impurities`, and non-negative sums of such scores.

    Each follows the score contract of :mod:`puretree.criteria` (``score(parent, children,
    features)``, vectorised, ``-inf`` for "not a candidate") and has a readable repr.
    """
    single = st.builds(lambda combine, imp: combine(imp), st.sampled_from((information_gain, impurity_decrease, gain_ratio)), impurities())
    summed = st.lists(st.tuples(_WEIGHTS, single), min_size=2, max_size=3).map(lambda terms: _ScoreSum(tuple(terms)))
    return st.one_of(single, summed)


# -- boundary rows ---------------------------------------------------------------------------


def boundary_rows(tree: Tree, *, width: int = 64, missing: bool = False, unseen: bool = True) -> st.SearchStrategy[dict[str, Any]]:
    """Rows (mappings from feature name to raw value) at the edges of ``tree``'s tests.

    Draws either one of :func:`puretree.invariants.boundary_cases` (a row that follows the
    path to a split and sits exactly on its threshold or one representable value either
    side; or carries each category of a categorical test, or an unseen one), or a row that
    mixes such boundary values of every feature at once. ``width=32`` uses the float32
    values around each threshold; ``missing=True`` adds missing cells (``None``).

    >>> from hypothesis import find
    >>> from puretree.nodes import Threshold
    >>> tree = Tree(Split(0, Threshold(1.0), (Leaf((1, 0)), Leaf((0, 2))), (1, 2)), Schema((Feature("x"),), ("a", "b")))
    >>> find(boundary_rows(tree), lambda row: row["x"] > 1.0)
    {'x': 1.0000000000000002}
    """
    _check_width(width)
    if not isinstance(tree, Tree):
        raise InvalidArgument(f"tree={tree!r} must be a puretree Tree")
    cases = boundary_cases(tree, width=width, missing=missing, unseen=unseen)
    if not cases:
        # A single leaf tests nothing: any row will do.
        row = {f.name: (0.0 if f.is_numeric else (f.categories[0] if f.categories else None)) for f in tree.schema.features}
        return st.just(row)
    per_feature: dict[str, list[Any]] = {}
    for row in cases:
        for name, value in row.items():
            values = per_feature.setdefault(name, [])
            if not any(value is v or (type(value) is type(v) and value == v) for v in values):
                values.append(value)
    mixed = st.fixed_dictionaries({name: st.sampled_from(values) for name, values in per_feature.items()})
    return st.one_of(st.sampled_from(cases), mixed)
