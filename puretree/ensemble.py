"""Ensembles as values: bagging, random forests and AdaBoost (SAMME).

An :class:`Ensemble` is a frozen value like a :class:`~puretree.tree.Tree`: its member trees,
their weights, the schema, and how it was built (the method, the seed and the options). The
builders are pure functions of their inputs and seed: the same call gives an equal value.

- :func:`bagging`: every member grown by ``base`` (a grow preset, :func:`~puretree.grow.cart`
  by default) on a bootstrap sample of the rows, drawn as row weights (how many times each row
  was drawn), as scikit-learn's forests do;
- :func:`random_forest`: bagging of CART trees whose every split looks at a random subset of
  the features (``max_features``, a splitter option of :func:`~puretree.grow.grow`);
- :func:`extra_trees`: a random forest of trees whose numeric cuts are drawn at random
  (``splitter="random"``), grown on every row (no bootstrap), as scikit-learn's
  ``ExtraTreesClassifier``; the visit order and cuts of member ``m``'s node at path ``p`` come
  from the counter-based draw of :mod:`puretree.growth.random_draw`, keyed by ``(seed, m)`` and ``p``;
- :func:`adaboost`: SAMME (multi-class AdaBoost) of stumps, scikit-learn's algorithm step by step.

**Randomness.** Every random choice comes from a generator keyed by the seed, the member and
(for feature subsampling) the node: member ``m``'s bootstrap from
``SeedSequence(seed, spawn_key=(m, 0))`` (``max_samples`` rows, by default as many as the row
weights sum to, each drawn with probability proportional to its weight, in the rows' own order,
:func:`canonical_order`: a row of weight 2 is drawn as two copies of it would be, and shuffled
rows give the same ensemble), the features of its node at path ``p`` from
``SeedSequence(seed, spawn_key=(m, 1, *p))`` (:func:`~puretree.splits.node_features`). Nothing
depends on the order the members or the nodes are grown in, so parallel runs, serial runs and
both growth engines give the same ensemble.

**Combining.** Bagging and forests average the members' class probabilities (regression:
their predictions): ``sum(w_i * p_i) / sum(w_i)``, adding in member order, every weight 1.
AdaBoost adds each member's weighted vote (``w`` for the class it predicts, ``-w / (K - 1)``
for the others), divides by the sum of the weights and, for probabilities, takes the softmax
of the votes divided by ``K - 1``, as scikit-learn's ``AdaBoostClassifier`` computes them.

>>> from puretree.datasets import load_playtennis
>>> forest = random_forest(load_playtennis(), n_trees=5, seed=1)
>>> forest == random_forest(load_playtennis(), n_trees=5, seed=1)
True
>>> len(forest.members), forest.method, forest.schema.classes
(5, 'forest', ('no', 'yes'))
>>> predict(forest, {"outlook": "overcast", "temperature": "hot", "humidity": "high", "wind": "weak"})
'yes'
"""

from __future__ import annotations

import contextlib
import gc
import html
import math
import os
import pickle
import warnings
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from functools import partial
from typing import TYPE_CHECKING, Any, overload

import attrs
import numpy as np

from .growth import kernels
from .data import DATA_OPTIONS, Dataset, as_dataset, encode_features, labels_array
from .errors import DataError, ModelFormatError, ParameterError, shown
from .params import recorded_options
from .fold import depth, n_leaves, n_nodes
from .grow import ForestOptions, Grower, MemberOptions, cart, grow
from .importance import feature_importances as tree_importances
from .nodes import Schema, Split
from .predict import Batch, Label, Row, Unseen, check_unseen
from .predict import predict_proba as tree_proba, predict_value as tree_value
from .text import to_text
from .tree import Tree
from .views import notebook_svg

if TYPE_CHECKING:  # Unpack is typing's from Python 3.11; type checkers know typing_extensions' on 3.10
    from typing_extensions import Unpack

__all__ = [
    "METHODS",
    "Ensemble",
    "stump",
    "bagging",
    "random_forest",
    "extra_trees",
    "adaboost",
    "bootstrap_counts",
    "canonical_order",
    "member_outputs",
    "votes",
    "vote_total",
    "predict",
    "predict_proba",
    "feature_importances",
    "oob_score",
    "out_of_bag_score",
    "summary",
    "to_dict",
    "from_dict",
    "ENSEMBLE_FORMAT",
    "ENSEMBLE_VERSION",
]

#: How an ensemble was built: bagging, a random forest, AdaBoost (SAMME).
METHODS = ("bagging", "forest", "adaboost")


def _weights(values: Any) -> tuple[float, ...]:
    return tuple(float(v) for v in values)


def _trees(members: Iterable[Tree]) -> tuple[Tree, ...]:
    return tuple(members)


@attrs.frozen
class Ensemble:
    """Member trees, their weights, the schema and how they were built.

    ``options`` are the builder's options as sorted ``(name, value)`` pairs (JSON scalars).
    ``oob_score`` is the out-of-bag accuracy (regression: R squared) measured when bagging or a
    forest was built with bootstrap samples, else ``None``; it is a note on the fit, not part
    of what the ensemble decides, so it does not take part in ``==``.
    """

    members: tuple[Tree, ...] = attrs.field(converter=_trees)
    weights: tuple[float, ...] = attrs.field(converter=_weights)
    schema: Schema
    method: str = attrs.field(validator=attrs.validators.in_(METHODS))
    seed: int = 0
    options: tuple[tuple[str, Any], ...] = attrs.field(default=(), converter=recorded_options)
    oob_score: float | None = attrs.field(default=None, eq=False)

    def __attrs_post_init__(self) -> None:
        if not self.members:
            raise ParameterError("an ensemble needs at least one member tree")
        if len(self.weights) != len(self.members):
            raise ParameterError(f"an ensemble of {len(self.members)} members needs as many weights, got {len(self.weights)}")
        if not all(math.isfinite(w) and w >= 0 for w in self.weights) or not sum(self.weights) > 0:
            raise ParameterError(f"an ensemble's weights must be finite, non-negative and not all zero, got {list(self.weights)[:5]}")
        for i, m in enumerate(self.members):
            if not isinstance(m, Tree):
                raise ParameterError(f"member {i} is a {type(m).__name__}, not a Tree")
            if m.schema != self.schema:
                raise ParameterError(f"member {i} was grown on another schema than the ensemble's")

    @property
    def classes(self) -> tuple[Any, ...]:
        return self.schema.classes

    def option(self, name: str, default: Any = None) -> Any:
        return dict(self.options).get(name, default)

    @overload
    def predict(self, X: Row, *, unseen: Unseen = "warn") -> Label: ...
    @overload
    def predict(self, X: Batch, *, unseen: Unseen = "warn") -> np.ndarray: ...
    def predict(self, X: Any, *, unseen: Unseen = "warn") -> Label | np.ndarray:
        return predict(self, X, unseen=unseen)

    def predict_proba(self, X: Row | Batch, *, unseen: Unseen = "warn") -> np.ndarray:
        return predict_proba(self, X, unseen=unseen)

    def feature_importances(self, **options: Any) -> dict[str, float]:
        return feature_importances(self, **options)

    def to_text(self, **options: Any) -> str:
        return summary(self, **options)

    def __str__(self) -> str:
        return summary(self)

    # A notebook shows the summary and the first member's picture, small (see Tree's).
    def _repr_svg_(self) -> str:
        return notebook_svg(self.members[0])

    def _repr_html_(self) -> str:
        text = html.escape(summary(self))
        return f'<div class="puretree"><pre style="margin:2px 0">{text}\ntree 0:</pre>{notebook_svg(self.members[0])}</div>'


# -- building ----------------------------------------------------------------------------


stump: Grower = partial(cart, max_depth=1)
stump.__name__ = "stump"  # type: ignore[attr-defined]
stump.__doc__ = "A CART tree of depth 1: AdaBoost's default base learner."  # type: ignore[misc]


def bootstrap_counts(n_rows: int, seed: int, member: int, *, weights: np.ndarray | None = None, n_draws: int | None = None) -> np.ndarray:
    """How many times each row is drawn into member ``member``'s bootstrap sample: ``n_draws``
    draws with replacement (default: the weights' sum, ``n_rows`` without weights), each row
    drawn with probability proportional to its weight (as scikit-learn 1.9's forests and
    bagging draw), from ``SeedSequence(seed, spawn_key=(member, 0))``.

    The draw is by units of weight: ``n_draws`` points uniform on ``[0, W)`` (``W`` the weights'
    sum) fall in the rows' consecutive segments, one of length ``w`` per row. A row of integer
    weight ``k`` is therefore drawn exactly as ``k`` copies of it in its place would be, together.

    >>> bootstrap_counts(5, 0, 3).sum(), (bootstrap_counts(5, 0, 3) == bootstrap_counts(5, 0, 3)).all()
    (np.int64(5), np.True_)
    >>> copies = bootstrap_counts(4, 7, 1)  # rows 1 and 2 the same row twice: weight 2
    >>> bootstrap_counts(3, 7, 1, weights=np.array([1.0, 2.0, 1.0])).tolist() == [copies[0], copies[1] + copies[2], copies[3]]
    True
    """
    cumulative = None if weights is None else np.cumsum(np.asarray(weights, dtype=np.float64))
    total = float(n_rows if cumulative is None else cumulative[-1] if n_rows else 0.0)
    n = int(round(total)) if n_draws is None else int(n_draws)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(member, 0)))
    points = rng.random(n) * total
    if cumulative is None:  # the segments [0, 1), [1, 2), ...: a point's row is its floor (the search's answer)
        rows = points.astype(np.intp)
    else:  # sorted first: the same rows, counted; a search of sorted points mispredicts few branches
        rows = np.searchsorted(cumulative, np.sort(points), side="right")
    return np.bincount(np.minimum(rows, max(n_rows - 1, 0)), minlength=n_rows)


def canonical_order(ds: Dataset) -> np.ndarray:
    """The rows in an order of their own: sorted (stably) by a 64-bit hash of their values (the
    features, then the target). The member draws are made in this order, so that they depend on
    the rows and their weights, not on the order the rows come in: shuffled rows give the same
    ensemble, and a row of weight 2 the same as the row twice (equal rows hash equal, so they
    stay side by side, in the order given). A hash, not a sort of the values, because it costs
    one pass over the columns (a sort by 30 columns of 200,000 rows costs seconds).

    >>> ds = as_dataset(np.array([[2.0], [1.0], [2.0]]), np.array([0, 1, 0]))
    >>> order = canonical_order(ds)
    >>> sorted(order.tolist()) == [0, 1, 2] and abs(order.tolist().index(0) - order.tolist().index(2)) == 1
    True
    """
    values = np.where(np.isnan(ds.X), np.nan, ds.X) + 0.0  # one NaN, and -0.0 as 0.0: equal values, equal bits
    columns = [values[:, j] for j in range(values.shape[1])]
    if ds.y is not None:
        columns.append(np.asarray(ds.y, dtype=np.float64) + 0.0)
    h = np.full(ds.n_rows, 0x9E3779B97F4A7C15, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for column in columns:  # splitmix64's mixing of each column's bits into the row's hash
            h = (h ^ np.ascontiguousarray(column).view(np.uint64)) * np.uint64(0xBF58476D1CE4E5B9)
            h = (h ^ (h >> np.uint64(31))) * np.uint64(0x94D049BB133111EB)
            h ^= h >> np.uint64(29)
    return np.argsort(h, kind="stable")


def _resolve_samples(max_samples: Any, total: float) -> int | None:
    """``max_samples`` as a number of draws: None (the weights' sum, each row's weight counting
    as that many rows), an integer, or a fraction of the weights' sum (scikit-learn 1.9's)."""
    if max_samples is None:
        return None
    if isinstance(max_samples, bool) or not isinstance(max_samples, (int, float, np.integer, np.floating)):
        raise ParameterError(f"max_samples must be None, an integer >= 1 or a fraction > 0, got {max_samples!r}")
    if isinstance(max_samples, (int, np.integer)):
        if max_samples < 1:
            raise ParameterError(f"max_samples must be None, an integer >= 1 or a fraction > 0, got {max_samples!r}")
        return int(max_samples)
    if not (math.isfinite(max_samples) and max_samples > 0):
        raise ParameterError(f"max_samples must be None, an integer >= 1 or a fraction > 0, got {max_samples!r}")
    return max(int(max_samples * total), 1)


def _resolve_features(member_features: Any, n_features: int) -> int | None:
    """``member_features`` as a number of features: None (all), an integer from 1 to the number
    of features, or a fraction of them (at least one), as scikit-learn's bagging counts them."""
    if member_features is None:
        return None
    bad = ParameterError(f"member_features (scikit-learn's bagging max_features) must be None, an integer from 1 to the {n_features} features or a fraction in (0, 1], got {member_features!r}")
    if isinstance(member_features, bool) or not isinstance(member_features, (int, float, np.integer, np.floating)):
        raise bad
    if isinstance(member_features, (int, np.integer)):
        if not 1 <= member_features <= n_features:
            raise bad
        return int(member_features)
    if not 0 < member_features <= 1:
        raise bad
    return max(1, int(member_features * n_features))


@attrs.frozen
class _Sampling:
    """How the members' rows are drawn: with replacement (``bootstrap``) or not, ``n_draws``
    rows (None: the weights' sum, or all rows without replacement), in ``order``
    (:func:`canonical_order`)."""

    bootstrap: bool
    n_draws: int | None = None
    order: np.ndarray | None = attrs.field(default=None, eq=False)
    #: how many features each member sees (None: all), drawn with replacement or not
    n_features: int | None = None
    bootstrap_features: bool = False

    def features(self, n_features: int, seed: int, member: int) -> np.ndarray | None:
        """The features member ``member`` may split on (a sorted array of their indices), drawn
        from ``SeedSequence(seed, spawn_key=(member, 3))``; None: every feature."""
        if self.n_features is None and not self.bootstrap_features:
            return None
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(member, 3)))
        k = n_features if self.n_features is None else self.n_features
        return np.unique(rng.choice(n_features, size=k, replace=self.bootstrap_features))

    @classmethod
    def of(cls, ds: Dataset, bootstrap: bool, max_samples: Any, *, warn: bool = True, member_features: Any = None, bootstrap_features: bool = False) -> _Sampling:
        return attrs.evolve(cls._rows(ds, bootstrap, max_samples, warn), n_features=_resolve_features(member_features, ds.schema.n_features), bootstrap_features=bootstrap_features)

    @classmethod
    def _rows(cls, ds: Dataset, bootstrap: bool, max_samples: Any, warn: bool) -> _Sampling:
        weight = ds.sample_weight
        total = float(ds.n_rows if weight is None else np.sum(weight))
        if weight is not None and not total > 0:
            raise DataError("sample_weight: the weights sum to 0; at least one row needs a positive weight")
        n = _resolve_samples(max_samples, total)
        if not bootstrap:
            if n is None:
                return cls(False)
            positive = ds.n_rows if weight is None else int(np.count_nonzero(weight > 0))
            if n > positive:
                raise ParameterError(f"max_samples={max_samples!r}: {n} rows drawn without replacement (bootstrap=False) needs as many rows of positive weight, there are {positive}")
        elif warn and weight is not None and n is None and round(total) < np.count_nonzero(weight > 0):
            warnings.warn(
                f"the sample weights sum to {total:g}: each member draws {max(round(total), 0)} rows, fewer than the {np.count_nonzero(weight > 0)} rows of positive weight "
                "(a row of weight w counts as w rows); give max_samples as a number of rows",
                UserWarning,
                stacklevel=4,
            )
        return cls(bootstrap, n, canonical_order(ds))

    def weights(self, ds: Dataset, seed: int, member: int) -> np.ndarray | None:
        """The row weights member ``member`` is grown with: how many times each row was drawn
        (the draw carries the data's weights), the data's weights on the rows kept without
        replacement, or the data's weights (every row)."""
        if not self.bootstrap and self.n_draws is None:
            return ds.sample_weight
        assert self.order is not None
        weight = ds.sample_weight
        in_order = None if weight is None else weight[self.order]
        if self.bootstrap:
            drawn = bootstrap_counts(ds.n_rows, seed, member, weights=in_order, n_draws=self.n_draws)
        else:  # n_draws distinct rows of positive weight, uniformly, keeping their weights
            rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(member, 0)))
            candidates = np.flatnonzero(np.ones(ds.n_rows, dtype=bool) if in_order is None else in_order > 0)
            drawn = np.zeros(ds.n_rows)
            drawn[rng.choice(candidates, size=self.n_draws, replace=False)] = 1.0
            if in_order is not None:
                drawn = drawn * in_order
        counts = np.zeros(ds.n_rows)
        counts[self.order] = drawn
        return counts

    def left_out(self, ds: Dataset, seed: int, member: int) -> np.ndarray:
        """The rows of positive weight member ``member``'s draw left out (its out-of-bag rows)."""
        weights = self.weights(ds, seed, member)
        out = np.ones(ds.n_rows, dtype=bool) if weights is None else weights == 0
        return out if ds.sample_weight is None else out & (ds.sample_weight > 0)


def _split_options(options: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    # sample_weight belongs to the data: each member's draw is made from it (and
    # AdaBoost starts from it); passed on to grow it would replace them
    def of_data(k: str) -> bool:
        return k in DATA_OPTIONS or k == "sample_weight"

    data = {k: v for k, v in options.items() if of_data(k)}
    grow = {k: v for k, v in options.items() if not of_data(k)}
    return data, grow


def _check_seed(seed: Any) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ParameterError(f"seed must be a non-negative integer, got {seed!r}")
    return int(seed)


def _check_count(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ParameterError(f"{name} must be an integer >= 1, got {value!r}")
    return int(value)


def _dataset(X: Any, y: Any, data_options: dict[str, Any]) -> Dataset:
    ds = as_dataset(X, y, **data_options)
    if ds.y is None:
        raise DataError("no target: pass y, or a dataset read with target=...")
    if ds.n_rows == 0:
        raise DataError("no rows to learn from")
    return ds


def _grow_member(ds: Dataset, base: Callable[..., Tree], options: dict[str, Any], seed: int, member: int, sampling: _Sampling, orders: np.ndarray | None = None) -> Tree:
    weight = sampling.weights(ds, seed, member)
    data = attrs.evolve(ds, sample_weight=weight)
    features = sampling.features(ds.schema.n_features, seed, member)
    if features is not None:
        # the other features made constant: no split can use them, and the member keeps the
        # ensemble's schema (its columns are no longer the shared sorted ones)
        X = np.zeros_like(ds.X)
        X[:, features] = ds.X[:, features]
        data, orders = attrs.evolve(data, X=X), None
    if orders is None or weight is None or "sample_weight" in options:  # (grow's own weights replace the data's)
        return base(data, seed=(seed, member), **options)

    # grow leaves the rows of weight 0 out (builder._prepare); leaving them out here first
    # lets the kernel start from the data set's sorted columns, less those rows
    keep = weight > 0
    if keep.all() or not keep.any():
        with kernels.shared_presort(data.X, orders):
            return base(data, seed=(seed, member), **options)
    data = data.subset(keep)
    with kernels.shared_presort(data.X, kernels.subset_orders(orders, keep)):
        return base(data, seed=(seed, member), **options)


def _grow_chunk(ds: Dataset, base: Callable[..., Tree], options: dict[str, Any], seed: int, members: Sequence[int], sampling: _Sampling, orders: np.ndarray | None = None) -> list[Tree]:
    return [_grow_member(ds, base, options, seed, m, sampling, orders) for m in members]


def _presorted(ds: Dataset, base: Any) -> np.ndarray | None:
    """The data set's sorted columns (:func:`puretree.growth.kernels.presort`), shared by the members
    when ``base`` is :func:`~puretree.grow.grow` or a preset of it (a partial, such as
    :func:`~puretree.grow.cart` and :func:`stump`): grow leaves rows of weight 0 out exactly as
    :func:`_grow_member` does, and its fits go through the compiled kernel when it applies."""
    if (base.func if isinstance(base, partial) else base) is not grow or ds.n_rows < 2 or not ds.schema.features:
        return None

    if not all(f.is_numeric for f in ds.schema.features) or kernels.library() is None:
        return None
    return kernels.presort(ds.X)


#: Below this much work (rows x features x members) the members are grown in this process:
#: starting a worker costs more than it saves.
PARALLEL_MIN_WORK = 200_000


def _workers(n_jobs: Any, n_members: int, ds: Dataset, base: Any, options: dict[str, Any]) -> int:
    if n_jobs is not None:
        n = _check_count("n_jobs", n_jobs)
    else:
        n = os.cpu_count() or 1
        if ds.n_rows * max(1, ds.schema.n_features) * n_members < PARALLEL_MIN_WORK:
            n = 1
    n = min(n, n_members)
    if n > 1:
        try:  # a base or an option that cannot go to another process (a lambda): grow here
            pickle.dumps((base, options))
        except Exception:
            return 1
    return n


def _grow_all(ds: Dataset, base: Callable[..., Tree], options: dict[str, Any], seed: int, n: int, sampling: _Sampling, n_jobs: Any) -> list[Tree]:
    """Members 0..n-1, grown in worker threads or processes when it pays; the same trees
    either way, since each member's randomness is keyed by its number, not by who grows it.

    The members share ``ds.X`` (they differ by their row weights), so its columns are sorted
    once for all of them (:func:`puretree.growth.kernels.shared_presort`). Member 0 is grown here
    first: when the compiled kernel grew it (which lets go of the GIL while it works), the
    others are grown in threads, which share that sort and need no copy of the data; else
    (the numpy engine, which holds the GIL) in processes."""
    with _collector_paused():
        return _grow_members(ds, base, options, seed, n, sampling, n_jobs)


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused: the members' nodes make no cycles, and each
    collection would walk every node made so far (a fifth of a forest's time on small data).

    On the way out the objects made meanwhile (the members' nodes, which live as long as the
    ensemble) go to the oldest generation without a walk, as ``gc.freeze()`` then
    ``gc.unfreeze()`` moves them: else the first young collection after the fit walks each node
    once more (as long as the compiled growth of an extra-trees forest on small data), then the
    middle generation's once again. Full collections walk them as before. Not when the program
    keeps objects frozen of its own (``unfreeze`` would let them go) or paused the collector.

    >>> import gc
    >>> with _collector_paused():
    ...     made = [[] for _ in range(3)]
    >>> gc.isenabled(), any(o is made[0] for o in gc.get_objects(generation=0)), gc.get_freeze_count()
    (True, False, 0)
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if paused:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def _grow_members(ds: Dataset, base: Callable[..., Tree], options: dict[str, Any], seed: int, n: int, sampling: _Sampling, n_jobs: Any) -> list[Tree]:
    # the random splitter sorts no column (growth.random_cuts)
    orders = None if options.get("splitter") == "random" else _presorted(ds, base)
    workers = _workers(n_jobs, n, ds, base, options)
    if workers == 1:
        return _grow_chunk(ds, base, options, seed, range(n), sampling, orders)
    before = kernels.fits()
    first = _grow_chunk(ds, base, options, seed, [0], sampling, orders)
    if kernels.fits() > before:
        from concurrent.futures import ThreadPoolExecutor

        # one member per task, handed out as threads come free (their sizes differ)
        grow_one = partial(_grow_member, ds, base, options, seed, sampling=sampling, orders=orders)
        with ThreadPoolExecutor(max_workers=workers) as threads:
            return first + list(threads.map(grow_one, range(1, n)))
    return first + _grow_in_processes(ds, base, options, seed, list(range(1, n)), sampling, workers)


def _grow_in_processes(ds: Dataset, base: Callable[..., Tree], options: dict[str, Any], seed: int, members: list[int], sampling: _Sampling, workers: int) -> list[Tree]:
    """``members`` grown by ``workers`` processes, in the order given."""
    n = len(members)
    chunks = [members[i::workers] for i in range(workers)]
    import multiprocessing

    methods = multiprocessing.get_all_start_methods()
    context = multiprocessing.get_context("fork" if "fork" in methods else None)
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        grown = list(pool.map(_grow_chunk, *zip(*[(ds, base, options, seed, c, sampling) for c in chunks])))
    out: list[Tree | None] = [None] * n
    where = {m: i for i, m in enumerate(members)}
    for chunk, trees in zip(chunks, grown):
        for m, tree in zip(chunk, trees):
            out[where[m]] = tree
    return out  # type: ignore[return-value]


def _base_name(base: Any) -> str:
    return str(getattr(base, "__name__", None) or repr(base))


def bagging(
    X: Any,
    y: Any = None,
    *,
    base: Callable[..., Tree] = cart,
    n_trees: int = 10,
    seed: int = 0,
    bootstrap: bool = True,
    max_samples: int | float | None = None,
    member_features: int | float | None = None,
    bootstrap_features: bool = False,
    n_jobs: int | None = None,
    **options: Unpack[MemberOptions],
) -> Ensemble:
    """``n_trees`` trees grown by ``base`` (a grow preset: it takes a dataset, ``seed=`` and
    grow's options) on bootstrap samples of the rows; classification averages their class
    probabilities, regression their predictions. ``bootstrap=False`` grows every member on all
    rows (or on ``max_samples`` distinct rows). ``member_features`` (a count or a fraction) is how
    many features each member may split on, drawn for it from ``SeedSequence(seed,
    spawn_key=(member, 3))``, without replacement (``bootstrap_features=True``: with replacement,
    their distinct draws), as scikit-learn's bagging ``max_features``. Other keyword options go to ``base`` (``max_depth``, ``max_features``...) or describe
    the data (``feature_names``, ``categorical``, ``target``, ``task``). ``n_jobs``: worker
    processes (default: every core, when the work is large enough to pay for them); the
    result does not depend on it.

    >>> import numpy as np
    >>> X = np.arange(20.0).reshape(-1, 1); y = (X[:, 0] > 9).astype(int)
    >>> bag = bagging(X, y, n_trees=3, seed=0)
    >>> predict(bag, [[2.0], [15.0]]).tolist(), round(bag.oob_score, 2)
    ([0, 1], 0.87)
    """
    features = {"member_features": member_features, "bootstrap_features": bootstrap_features}
    return _bagged("bagging", X, y, base=base, n_trees=n_trees, seed=seed, bootstrap=bootstrap, max_samples=max_samples, n_jobs=n_jobs, options=dict(options), features=features)


def random_forest(
    X: Any,
    y: Any = None,
    *,
    n_trees: int = 100,
    max_features: int | float | str | None = "sqrt",
    seed: int = 0,
    bootstrap: bool = True,
    max_samples: int | float | None = None,
    base: Callable[..., Tree] = cart,
    n_jobs: int | None = None,
    **options: Unpack[ForestOptions],
) -> Ensemble:
    """A random forest: bagging of CART trees whose every split chooses among
    ``max_features`` features drawn for that node (``"sqrt"``, ``"log2"``, a count, a fraction,
    or ``None`` for all; see :func:`~puretree.splits.resolve_max_features`). Regression forests
    too (``task="regression"`` or numeric targets); scikit-learn's regression forests default
    to every feature (``max_features=None`` here).

    >>> import numpy as np
    >>> rng = np.random.default_rng(0); X = rng.normal(size=(60, 4)); y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> forest = random_forest(X, y, n_trees=10, seed=3)
    >>> forest == random_forest(X, y, n_trees=10, seed=3, n_jobs=2)
    True
    """
    return _bagged("forest", X, y, base=base, n_trees=n_trees, seed=seed, bootstrap=bootstrap, max_samples=max_samples, n_jobs=n_jobs, options={**options, "max_features": max_features})


def extra_trees(
    X: Any,
    y: Any = None,
    *,
    n_trees: int = 100,
    max_features: int | float | str | None = "sqrt",
    seed: int = 0,
    bootstrap: bool = False,
    max_samples: int | float | None = None,
    base: Callable[..., Tree] = cart,
    n_jobs: int | None = None,
    **options: Unpack[ForestOptions],
) -> Ensemble:
    """Extremely randomised trees (Geurts et al. 2006; scikit-learn's ``ExtraTreesClassifier`` and
    ``ExtraTreesRegressor``): :func:`random_forest`'s members grown with ``splitter="random"``
    (each node cuts its features at thresholds drawn between their minimum and maximum there,
    :func:`~puretree.splits.random_threshold_splits`), on all the rows (``bootstrap=False``) by
    default. The forest records ``splitter="random"`` among its options (method ``"forest"``).

    >>> import numpy as np
    >>> rng = np.random.default_rng(0); X = rng.normal(size=(60, 4)); y = (X[:, 0] + X[:, 1] > 0).astype(int)
    >>> forest = extra_trees(X, y, n_trees=10, seed=3)
    >>> forest == extra_trees(X, y, n_trees=10, seed=3), dict(forest.options)["splitter"], forest.oob_score
    (True, 'random', None)
    """
    return _bagged("forest", X, y, base=base, n_trees=n_trees, seed=seed, bootstrap=bootstrap, max_samples=max_samples, n_jobs=n_jobs, options={**options, "max_features": max_features, "splitter": "random"})


def _bagged(method: str, X: Any, y: Any, *, base: Any, n_trees: Any, seed: Any, bootstrap: Any, max_samples: Any = None, n_jobs: Any, options: dict[str, Any], features: dict[str, Any] | None = None) -> Ensemble:
    n = _check_count("n_trees", n_trees)
    seed = _check_seed(seed)
    if not isinstance(bootstrap, bool):
        raise ParameterError(f"bootstrap must be True or False, got {bootstrap!r}")
    if not callable(base):
        raise ParameterError(f"base must be a grow preset (a function such as cart), got {base!r}")
    data_options, grow_options = _split_options(options)
    ds = _dataset(X, y, data_options)
    if method == "forest" and not bootstrap and max_samples is not None:
        raise ParameterError(f"max_samples={max_samples!r} needs bootstrap=True: a forest without bootstrap grows every member on all the rows (as scikit-learn's)")
    features = features or {}
    if not isinstance(features.get("bootstrap_features", False), bool):
        raise ParameterError(f"bootstrap_features must be True or False, got {features['bootstrap_features']!r}")
    sampling = _Sampling.of(ds, bootstrap, max_samples, **features)
    members = _grow_all(ds, base, grow_options, seed, n, sampling, n_jobs)
    drawn = {k: v for k, v in {"max_samples": max_samples, **features}.items() if v is not None and v is not False}
    recorded = {"base": _base_name(base), "n_trees": n, "bootstrap": bootstrap, **drawn, **grow_options}
    ens = Ensemble(tuple(members), (1.0,) * n, members[0].schema, method, seed, recorded)
    return attrs.evolve(ens, oob_score=_oob(ens, ds) if bootstrap else None)


def _oob(ens: Ensemble, ds: Dataset) -> float | None:
    """Out-of-bag score: each row predicted by the members whose bootstrap left it out
    (accuracy; R squared for regression), over the rows left out at least once."""
    total = np.zeros((ds.n_rows, 1 if ds.schema.is_regression else len(ds.schema.classes)))
    votes_ = np.zeros(ds.n_rows)
    sampling = _Sampling.of(ds, True, ens.option("max_samples"), warn=False)
    plain = not ds.schema.is_regression and all(f.is_numeric for f in ds.schema.features) and not np.isnan(ds.X).any()
    for m, tree in enumerate(ens.members):
        out = sampling.left_out(ds, ens.seed, m)
        if not out.any():
            continue
        arrays = _threshold_arrays(tree) if plain else None
        if arrays is not None:
            total[out] += _walk(arrays, ds.X[out])
        else:
            sub = ds.subset(out)
            total[out] += tree_value(tree, sub)[:, None] if ds.schema.is_regression else tree_proba(tree, sub)
        votes_[out] += 1
    seen = votes_ > 0
    if not seen.any():
        return None
    assert ds.y is not None  # a training set has its targets
    y = ds.y[seen]
    if ds.schema.is_regression:
        pred = total[seen, 0] / votes_[seen]
        w = np.ones(len(y)) if ds.sample_weight is None else ds.sample_weight[seen]
        mean = np.average(y, weights=w)
        ss_tot = float(np.sum(w * (y - mean) ** 2))
        return 1.0 - float(np.sum(w * (y - pred) ** 2)) / ss_tot if ss_tot > 0 else 0.0
    return float(np.mean(np.argmax(total[seen], axis=1) == y))


def out_of_bag_score(ens: Ensemble, X: Any, y: Any = None, **data_options: Any) -> float | None:
    """The out-of-bag score of ``ens`` on the data it was built from (``X, y`` and the data
    options, such as ``sample_weight``, given to the build), measured as the build measures it.
    For members changed after the build (pruned, say): the bootstrap draws are keyed by the
    members' numbers, so each row is still scored by the members that left it out. None without
    bootstrap.

    >>> import numpy as np
    >>> X = np.arange(20.0).reshape(-1, 1); y = (X[:, 0] > 9).astype(int)
    >>> bag = bagging(X, y, n_trees=3, seed=0)
    >>> out_of_bag_score(bag, X, y) == bag.oob_score
    True
    """
    if not ens.option("bootstrap", False):
        return None
    return _oob(ens, _dataset(X, y, data_options))


def _threshold_arrays(tree: Tree) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None:
    """A classification tree of threshold splits only as arrays, nodes breadth first: feature,
    threshold, first child (the second is next; -1: a leaf) and each node's class
    probabilities as :func:`puretree.predict.predict_proba` computes them (a node without
    weight answers with its parent's counts); None for any other split. Cheaper than the
    general flat form, for the out-of-bag score of forests of many small trees.

    >>> from puretree.nodes import Feature, Leaf, Threshold
    >>> root = Split(0, Threshold(1.5), (Leaf((2.0, 0.0)), Leaf((1.0, 3.0))), (3.0, 3.0))
    >>> schema = Schema(features=(Feature("x"),), classes=("a", "b"))
    >>> [a.tolist() for a in _threshold_arrays(Tree(root, schema))]
    [[0, 0, 0], [1.5, 0.0, 0.0], [1, -1, -1], [[0.5, 0.5], [1.0, 0.0], [0.25, 0.75]]]
    """
    nodes = [tree.root]
    parent = [0]
    feature: list[int] = []
    threshold: list[float] = []
    child: list[int] = []
    value: list[tuple[float, ...]] = []
    for i, node in enumerate(nodes):  # the list grows as children are appended: breadth first
        stats = node.stats
        value.append(stats if sum(stats) > 0 or i == 0 else value[parent[i]])
        if type(node) is Split:
            if node.test.kind != "threshold":
                return None
            feature.append(node.feature)
            threshold.append(node.test.value)
            child.append(len(nodes))
            nodes.extend(node.children)
            parent.extend((i, i))
        else:
            feature.append(0)
            threshold.append(0.0)
            child.append(-1)
    counts = np.array(value, dtype=np.float64)
    total = counts.sum(axis=1, keepdims=True)  # as predict's normalised_fractions, row by row
    uniform = 1.0 / max(1, counts.shape[1])
    proba = np.where(total > 0, counts / np.where(total > 0, total, 1.0), uniform) + 0.0
    return np.array(feature, dtype=np.intp), np.array(threshold), np.array(child, dtype=np.intp), proba


def _walk(arrays: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray], X: np.ndarray) -> np.ndarray:
    """Each row's class probabilities down :func:`_threshold_arrays`' tree (``x <= t`` goes
    left; ``X`` without NaN), a level at a time over the rows still at a split."""
    feature, threshold, child, proba = arrays

    if X.shape[0] and kernels.library() is not None:
        return proba[kernels.walk(feature, threshold, child, X)]
    node = np.zeros(X.shape[0], dtype=np.intp)
    at = np.arange(X.shape[0])
    while len(at):
        g = node[at]
        first = child[g]
        inner = first >= 0
        at, g, first = at[inner], g[inner], first[inner]
        node[at] = first + (X[at, feature[g]] > threshold[g])
    return proba[node]


def adaboost(
    X: Any,
    y: Any = None,
    *,
    n_rounds: int = 50,
    base: Callable[..., Tree] = stump,
    seed: int = 0,
    learning_rate: float = 1.0,
    **options: Unpack[MemberOptions],
) -> Ensemble:
    """AdaBoost SAMME (multi-class), as scikit-learn's ``AdaBoostClassifier`` runs it: row
    weights start uniform (summing to 1); each round grows ``base`` on the weighted rows,
    measures its weighted error ``e``, gives it the weight ``learning_rate * (log((1 - e) / e) +
    log(K - 1))`` and multiplies the weights of the rows it got wrong by ``exp(weight)``, then
    normalises them. A member without error ends the boosting with weight 1; one no better than
    chance (``e >= 1 - 1/K``) is dropped and ends it (the first one: a :class:`ParameterError`).
    ``seed`` keys the members' random choices (``max_features``) if ``base`` makes any.

    >>> X = [[0.0], [1.0], [2.0], [3.0]]
    >>> boost = adaboost(X, ["a", "a", "b", "b"], n_rounds=5)
    >>> len(boost.members), boost.weights      # the first stump is perfect: weight 1, stop
    (1, (1.0,))
    """
    rounds = _check_count("n_rounds", n_rounds)
    seed = _check_seed(seed)
    if isinstance(learning_rate, bool) or not isinstance(learning_rate, (int, float)) or not (0 < learning_rate < math.inf):
        raise ParameterError(f"learning_rate must be a number > 0, got {learning_rate!r}")
    data_options, grow_options = _split_options(dict(options))
    ds = _dataset(X, y, data_options)
    if ds.schema.is_regression:
        raise ParameterError("adaboost (SAMME) needs class labels; this is a regression task")
    k = len(ds.schema.classes)
    w = np.ones(ds.n_rows) if ds.sample_weight is None else np.array(ds.sample_weight, dtype=np.float64)
    w = w / w.sum()
    zero = w == 0.0
    eps = np.finfo(np.float64).eps
    members: list[Tree] = []
    weights: list[float] = []
    for r in range(rounds):
        w = np.clip(w, eps, None)
        w[zero] = 0.0
        tree = base(attrs.evolve(ds, sample_weight=w), seed=(seed, r), **grow_options)
        incorrect = np.argmax(tree_proba(tree, ds), axis=1) != ds.y
        error = float(np.mean(np.average(incorrect, weights=w, axis=0)))
        if error <= 0:
            members.append(tree)
            weights.append(1.0)
            break
        if error >= 1.0 - 1.0 / k:
            if not members:
                raise ParameterError(f"the first {_base_name(base)} is no better than chance (weighted error {error:.4g} with {k} classes): AdaBoost cannot start")
            break
        alpha = float(learning_rate * (np.log((1.0 - error) / error) + np.log(k - 1.0)))
        members.append(tree)
        weights.append(alpha)
        if r == rounds - 1:
            break
        with np.errstate(divide="ignore"):  # a row of weight 0 stays at exp(log 0) = 0, as in scikit-learn
            w = np.exp(np.log(w) + alpha * incorrect * (w > 0))
        total = np.sum(w)
        if not np.isfinite(total) or total <= 0:
            break
        w /= total
    recorded = {"base": _base_name(base), "n_rounds": rounds, "learning_rate": float(learning_rate), **grow_options}
    return Ensemble(tuple(members), tuple(weights), members[0].schema, "adaboost", seed, recorded)


# -- using -------------------------------------------------------------------------------


def _encoded(ens: Ensemble, X: Any, unseen: Unseen = "ignore") -> tuple[Dataset, bool]:
    """``X`` encoded once under the ensemble's schema (every member shares it), its unseen
    categories said (or refused) once here as ``unseen`` asks, not once per member."""
    from collections.abc import Mapping

    single = isinstance(X, Mapping)
    Xe = encode_features(ens.schema, X)
    check_unseen(ens.members[0], X, unseen=unseen)  # every member shares the schema: said once
    return Dataset(ens.schema, Xe, None, None, X.source if isinstance(X, Dataset) else None, X.lines if isinstance(X, Dataset) else None), single


def member_outputs(ens: Ensemble, X: Any, *, unseen: Unseen = "warn") -> np.ndarray:
    """Each member's class probabilities (regression: predictions, one column), shaped
    ``(members, rows, columns)``; ``unseen`` as :func:`predict` says."""
    data, _ = _encoded(ens, X, unseen)
    one = tree_value if ens.schema.is_regression else tree_proba
    return np.stack([np.asarray(one(m, data, unseen="ignore"), dtype=np.float64).reshape(data.n_rows, -1) for m in ens.members])


def vote_total(ens: Ensemble) -> float:
    """The sum the combined outputs are divided by: the members' weights added as numpy adds
    them (AdaBoost: with the rounds that were not run as zeros, as scikit-learn keeps them)."""
    w = np.asarray(ens.weights, dtype=np.float64)
    if ens.method == "adaboost":
        rounds = int(ens.option("n_rounds", len(w)))
        w = np.concatenate([w, np.zeros(max(0, rounds - len(w)))])
        return float(w.sum())
    total = 0.0
    for v in ens.weights:  # in member order, as the outputs are added
        total += v
    return total


def votes(ens: Ensemble, X: Any, *, unseen: Unseen = "warn") -> np.ndarray:
    """AdaBoost's weighted votes per class (scikit-learn's ``decision_function`` before its
    two-class folding): ``w`` for the member's class, ``-w / (K - 1)`` for the others, added in
    member order and divided by :func:`vote_total`."""
    k = len(ens.schema.classes)
    outs = member_outputs(ens, X, unseen=unseen)
    pred: Any = 0
    for proba, w in zip(outs, ens.weights):
        hit = np.argmax(proba, axis=1)[:, None] == np.arange(k)[None, :]
        pred = pred + np.where(hit, w, -1 / (k - 1) * w if k > 1 else 0.0)
    out = np.asarray(pred, dtype=np.float64).reshape(outs.shape[1], k)
    out /= vote_total(ens)
    return out


def _softmax(x: np.ndarray) -> np.ndarray:
    x = x - x.max(axis=1, keepdims=True)
    np.exp(x, out=x)
    x /= x.sum(axis=1).reshape(-1, 1)
    return x


def _combined(ens: Ensemble, X: Any, unseen: Unseen) -> np.ndarray:
    """Averaged member outputs: ``sum(w_i * out_i) / sum(w_i)`` in member order."""
    outs = member_outputs(ens, X, unseen=unseen)
    acc = np.zeros(outs.shape[1:])
    for out, w in zip(outs, ens.weights):
        acc += w * out
    acc /= vote_total(ens)
    return acc


def predict_proba(ens: Ensemble, X: Any, *, unseen: Unseen = "warn") -> np.ndarray:
    """Class probabilities, columns in the order of ``ens.schema.classes``: the members'
    averaged (bagging, forests), or AdaBoost's softmax of its votes (as scikit-learn).
    ``unseen`` as :func:`predict` says."""
    from collections.abc import Mapping

    if ens.schema.is_regression:
        raise ParameterError("predict_proba needs a classification ensemble; this is a regression ensemble")
    k = len(ens.schema.classes)
    if ens.method == "adaboost":
        if k == 1:
            proba = np.ones((_encoded(ens, X, unseen)[0].n_rows, 1))
        else:
            v = votes(ens, X, unseen=unseen)
            if k == 2:
                v[:, 0] *= -1
                d = v.sum(axis=1)
                proba = _softmax(np.vstack([-d, d]).T / 2)
            else:
                proba = _softmax(v / (k - 1))
    else:
        proba = _combined(ens, X, unseen)
    return proba[0] if isinstance(X, Mapping) else proba


def predict(ens: Ensemble, X: Any, *, unseen: Unseen = "warn") -> Any:
    """Predicted labels (regression: values), one for a mapping, an array for a batch: the
    most probable class (ties: the first), AdaBoost's by its votes as scikit-learn decides.

    ``unseen`` says what a category never seen in training does, as for a tree
    (:func:`puretree.predict.predict`): one :class:`~puretree.predict.UnseenCategoryWarning`
    for the batch (not one per member) by default, ``"error"`` refuses, ``"ignore"`` is silent."""
    from collections.abc import Mapping

    single = isinstance(X, Mapping)
    if ens.schema.is_regression:
        out = _combined(ens, X, unseen)[:, 0]
        return float(out[0]) if single else out
    k = len(ens.schema.classes)
    if ens.method == "adaboost" and k > 1:
        v = votes(ens, X, unseen=unseen)
        if k == 2:
            v[:, 0] *= -1
            codes = (v.sum(axis=1) > 0).astype(np.int64)
        else:
            codes = np.argmax(v, axis=1)
    else:
        codes = np.argmax(_combined(ens, X, unseen), axis=1)
    if single:
        return ens.schema.classes[int(codes[0])]
    return labels_array(ens.schema.classes)[codes]


def feature_importances(ens: Ensemble, **options: Any) -> dict[str, float]:
    """Normalised importances by feature name, as scikit-learn computes them: a forest's (and
    bagging's) mean of its members' normalised importances, members without a split left out,
    normalised again; AdaBoost's members' importances weighted by their weights, divided by
    the sum of the weights."""
    names = ens.schema.feature_names
    per = [np.array(list(tree_importances(m, **options).values())) for m in ens.members]
    if ens.method == "adaboost":
        acc = np.zeros(len(names))
        for imp, w in zip(per, ens.weights):
            acc = acc + w * imp
        out = acc / vote_total(ens)
    else:
        grown = [imp for imp, m in zip(per, ens.members) if n_nodes(m) > 1]
        if not grown:
            out = np.zeros(len(names))
        else:
            mean = np.mean(grown, axis=0)
            out = mean / np.sum(mean) if np.sum(mean) > 0 else mean
    return dict(zip(names, out.tolist()))


def oob_score(ens: Ensemble) -> float | None:
    """The out-of-bag score measured when the ensemble was built (None without bootstrap)."""
    return ens.oob_score


def summary(ens: Ensemble, *, first: int = 0, **text_options: Any) -> str:
    """A few lines: the method, members and their sizes, and the first ``first`` trees' text.

    >>> import numpy as np
    >>> print(summary(bagging(np.arange(8.0).reshape(-1, 1), [0, 0, 0, 0, 1, 1, 1, 1], n_trees=2, bootstrap=False), first=1))
    bagging of 2 trees (base cart, seed 0)
    nodes: 3-3 (mean 3.0), leaves: 2-2, depth: 1-1
    tree 0 (weight 1):
    x0 <= 3.5: 0 (4)
    x0 > 3.5: 1 (4)
    """
    sizes = [n_nodes(m) for m in ens.members]
    leaves = [n_leaves(m) for m in ens.members]
    depths = [depth(m) for m in ens.members]
    kind = {"bagging": "bagging", "forest": "random forest", "adaboost": "AdaBoost (SAMME)"}[ens.method]
    lines = [f"{kind} of {len(ens.members)} trees (base {ens.option('base', '?')}, seed {ens.seed})"]
    lines.append(f"nodes: {min(sizes)}-{max(sizes)} (mean {np.mean(sizes):.1f}), leaves: {min(leaves)}-{max(leaves)}, depth: {min(depths)}-{max(depths)}")
    if ens.oob_score is not None:
        lines.append(f"out-of-bag {'R squared' if ens.schema.is_regression else 'accuracy'}: {ens.oob_score:.4f}")
    for i, m in enumerate(ens.members[:first]):
        lines.append(f"tree {i} (weight {ens.weights[i]:g}):")
        lines.append(to_text(m, **text_options))
    return "\n".join(lines)


# -- JSON (read and written by puretree.io, which passes its tree codec) -------------------

ENSEMBLE_FORMAT = "puretree-ensemble"
ENSEMBLE_VERSION = 1
#: What a member's entry keeps of a tree's dictionary (the schema is the ensemble's).
_MEMBER_KEYS = ("missing", "criterion", "nodes")


def to_dict(ens: Ensemble, tree_to_dict: Callable[[Tree], dict[str, Any]]) -> dict[str, Any]:
    """The JSON-ready dictionary of an ensemble; ``tree_to_dict`` writes one tree."""
    trees = [tree_to_dict(m) for m in ens.members]
    return {
        "format": ENSEMBLE_FORMAT,
        "version": ENSEMBLE_VERSION,
        "method": ens.method,
        "seed": ens.seed,
        "options": dict(ens.options),
        "oob_score": ens.oob_score,
        "weights": list(ens.weights),
        # The newest version among the members: it reads every older member's nodes too.
        "tree_format": {**{k: trees[0][k] for k in ("format", "threshold_convention")}, "version": max(t["version"] for t in trees)},
        "schema": trees[0]["schema"],
        "members": [{k: t[k] for k in _MEMBER_KEYS} for t in trees],
    }


def _fail(where: str, message: str) -> ModelFormatError:
    return ModelFormatError(f"{where}: {message}")


def _plain_number(value: Any) -> bool:
    """A JSON number a model holds: a finite float, or an integer within +-2**53 (which a double
    holds exactly; math.isfinite of a longer one overflows)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return abs(value) <= 2**53
    return isinstance(value, float) and math.isfinite(value)


def from_dict(obj: dict[str, Any], tree_from_dict: Callable[[Any], Tree]) -> Ensemble:
    """An ensemble from its dictionary, validated (:class:`ModelFormatError` names the field);
    ``tree_from_dict`` reads (and validates) one tree."""
    if obj.get("version") != ENSEMBLE_VERSION or isinstance(obj.get("version"), bool):
        raise _fail("model", f"unsupported ensemble version {shown(obj.get('version'))} (this puretree reads version {ENSEMBLE_VERSION})")
    method = obj.get("method")
    if method not in METHODS:
        raise _fail("model.method", f"unknown method {shown(method)}; expected one of {list(METHODS)}")
    seed = obj.get("seed")
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2**63:
        raise _fail("model.seed", f"expected a non-negative integer, got {shown(seed)}")
    options = obj.get("options")
    if not isinstance(options, dict) or not all(isinstance(v, (str, bool, type(None))) or _plain_number(v) for v in options.values()):
        raise _fail("model.options", "expected an object of names to numbers, text, true/false or null")
    oob = obj.get("oob_score")
    if oob is not None and not _plain_number(oob):
        raise _fail("model.oob_score", f"expected a number or null, got {shown(oob)}")
    members = obj.get("members")
    if not isinstance(members, list) or not members:
        raise _fail("model.members", "expected a non-empty list of trees")
    weights = obj.get("weights")
    if not isinstance(weights, list) or len(weights) != len(members):
        raise _fail("model.weights", f"expected one weight per member ({len(members)})")
    for i, w in enumerate(weights):
        if not _plain_number(w) or w < 0:
            raise _fail(f"model.weights[{i}]", f"expected a finite number >= 0, got {shown(w)}")
    if not sum(weights) > 0:
        raise _fail("model.weights", "the weights are all zero")
    head = obj.get("tree_format")
    if not isinstance(head, dict):
        raise _fail("model.tree_format", "expected an object (the members' tree format and version)")
    trees = []
    for i, entry in enumerate(members):
        if not isinstance(entry, dict):
            raise _fail(f"model.members[{i}]", f"expected an object, got {type(entry).__name__}")
        try:
            trees.append(tree_from_dict({**{k: entry[k] for k in _MEMBER_KEYS if k in entry}, **head, "schema": obj.get("schema")}))
        except ModelFormatError as exc:
            raise _fail(f"model.members[{i}]", str(exc)) from None
    return Ensemble(tuple(trees), tuple(float(w) for w in weights), trees[0].schema, method, seed, options, float(oob) if oob is not None else None)
