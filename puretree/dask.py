"""Trees grown on data spread over Dask workers (``pip install 'puretree[dask]'``).

The data (a ``dask.array`` of rows x features, or a ``dask.dataframe``) never comes to one
machine; only small summaries do. :func:`bin_edges` computes every numeric column's bins in
one pass (its distinct values, or the merged partitions' quantile sketches); :func:`cart`,
:func:`id3`, :func:`c45` and :func:`cart_regressor` replace every partition's values by their
bin numbers once, keep them on the workers (one block of rows per worker with a distributed
client), and grow level by level: each block sums its rows into histograms of the open nodes,
the sums are added up, and the client chooses every node's split from the total, then each
block moves its rows to their children. :func:`predict` is the library's own prediction, partition by partition.

This module is the Dask plumbing: inputs, bin edges, tasks and their errors. What a partition
computes (its histograms, its rows' moves: C compiled with the package, numpy where it is not)
and how the client chooses from the summed histograms is the histogram source,
:mod:`puretree.growth.histograms`, grown by the one frontier loop (:mod:`puretree.growth.level`)
with the one chooser of :mod:`puretree.growth.choose` that the in-memory engine uses too. So
with the same edges the tree is the in-memory one, ``puretree.cart(X, y, bins=edges)`` (and
``id3``, ``c45`` alike): equal (``==``) for unweighted class counts, which are summed exactly;
with weights, regression statistics or C4.5's fractional rows (``missing="distribute"``) the
in-memory structure with statistics equal to within 1e-9 relative, summed in another order.
A failure inside a partition's task surfaces as a :class:`~puretree.errors.PuretreeError`
naming the partition (its number and rows). :func:`hist_gradient_boosting` grows the in-memory
:func:`puretree.hist_gradient_boosting` model (``==``) from the same edges
(:mod:`puretree.dask_boosting` tells how).

docs/scale-out.md tells the rest: how the edges are made, how a level grows (packed counts,
sibling subtraction, batches of at most ``histogram_bytes``), missing values, categorical
features, ``max_features``, and what is not yet supported.

>>> import dask.array as da
>>> X = da.from_array(np.array([[1.0], [2.0], [3.0], [4.0]]), chunks=2)
>>> y = da.from_array(np.array([0, 0, 1, 1]), chunks=2)
>>> edges = bin_edges(X, max_bins=255)
>>> edges
(array([1., 2., 3., 4.]),)
>>> tree = cart(X, y, bins=edges)
>>> print(tree.to_text())
x0 <= 2: 0 (2)
x0 > 2: 1 (2)
>>> predict(tree, X).compute().tolist()
[0, 0, 1, 1]
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, TypedDict, cast

import difflib
import functools
import inspect
import uuid

import attrs
import numpy as np

from .builder import ByTask, check_options, monotonic_directions
from .boosted import Boosted
from .c45 import collapse_unhelpful
from .dask_boosting import boost
from .criteria import SCORES, AbsoluteErrorDecrease, ImpurityDecrease, PoissonDecrease, resolve_score, score_task
from .data import as_dataset, category_key, encode_features, is_missing, labels_array
from .growth.engine import check_bins
from .errors import DataError, ParameterError, PuretreeError
from .growth import histograms as hist
from .growth.choose import c45_criterion
from .growth.level import Sizes
from .hist_gradient_boosting import DEFAULTS, LOSSES, checked_options
from .impurity import variance as impurity_variance
from .nodes import Schema
from .predict import predict as predict_rows
from .splits import resolve_max_features
from .tasks import CLASSIFICATION, REGRESSION
from .tree import Tree

if TYPE_CHECKING:  # Unpack is typing's from Python 3.11; type checkers know typing_extensions' on 3.10
    from typing_extensions import Unpack

__all__ = ["bin_edges", "cart", "cart_regressor", "id3", "c45", "hist_gradient_boosting", "predict", "HISTOGRAM_BYTES", "DaskOptions", "DaskID3Options", "DaskC45Options", "DaskRegressorOptions"]

#: Largest size (bytes) of one summed histogram (a batch of frontier nodes). Each partition's
#: task makes one of this size too, so a worker holds about (its partitions + 1) of them at a
#: level's peak, whatever the depth.
HISTOGRAM_BYTES = hist.HISTOGRAM_BYTES


def _dask() -> tuple[Any, Any, Any]:
    """dask, dask.array and dask.dataframe, or a clear error when the extra is not installed."""
    try:
        import dask
        import dask.array as da
        import dask.dataframe as dd
    except ImportError as exc:  # pragma: no cover - the test extra installs dask
        raise ParameterError(f"puretree.dask needs dask: pip install 'puretree[dask]' ({exc})") from None
    return dask, da, dd


def _in_partition(part: int | tuple[int, int], rows: tuple[int, int], fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` run on a worker; any failure becomes a PuretreeError naming the partition
    (or the first and last of the partitions a block joins, ``part`` a pair)."""
    name = f"partitions {part[0]}..{part[1]}" if isinstance(part, tuple) else f"partition {part}"
    try:
        return fn(*args)
    except PuretreeError as exc:
        raise type(exc)(f"{name} (rows {rows[0]}..{rows[1] - 1}): {exc}") from None
    except Exception as exc:
        raise DataError(f"{name} (rows {rows[0]}..{rows[1] - 1}): {type(exc).__name__}: {exc}") from None


def _run(dask: Any, *work: Any, persist: bool = False) -> Any:
    """``dask.compute(*work)`` (``persist``: ``dask.persist``, the results kept on the workers,
    as a list); a failure outside the partitions' own code (a lost worker) becomes a
    PuretreeError naming the task, which names the partition."""
    try:
        return list(dask.persist(*work)) if persist else dask.compute(*work)
    except PuretreeError:
        raise
    except Exception as exc:
        raise DataError(f"a Dask task failed: {type(exc).__name__}: {exc}") from exc


@attrs.frozen
class _Parts:
    """The data as aligned partitions: row blocks of X (all columns), of y and of the sample
    weights (None: unweighted), their row ranges."""

    X: list[Any]
    y: list[Any] | None
    rows: list[tuple[int, int]]
    names: list[str] | None
    n_features: int
    w: list[Any] | None = None
    #: The columns that are categories (a frame's non-numeric columns): the partitions of X are
    #: then pandas frames, encoded on the workers against the schema.
    categorical: tuple[int, ...] = ()


def _inputs(X: Any, y: Any = None, sample_weight: Any = None) -> _Parts:
    dask, da, dd = _dask()
    names = None
    if isinstance(X, dd.DataFrame):
        names = [str(c) for c in X.columns]
        # as the in-memory from_pandas: numeric dtypes are numeric, the others categorical
        categorical = tuple(j for j, c in enumerate(X.columns) if X[c].dtype.kind not in "iuf")
        if categorical:
            return _frame_inputs(X, y, sample_weight, names, categorical, dask, da, dd)
        Xa = X.to_dask_array(lengths=True)
    elif isinstance(X, da.Array):
        Xa = X
    else:
        raise ParameterError(f"X must be a dask array or a dask DataFrame, got {type(X).__name__} (use puretree.cart for data in memory)")
    if Xa.ndim != 2:
        raise DataError(f"X must be two-dimensional (rows x features), got {Xa.ndim} dimensions")
    if Xa.dtype.kind not in "iuf":
        raise DataError(f"X holds {Xa.dtype}; a dask array of features must hold numbers (categorical features come as a dask DataFrame's non-numeric columns)")
    if any(np.isnan(c) for c in Xa.chunks[0]):
        Xa = Xa.compute_chunk_sizes()
    Xa = Xa.astype(np.float64).rechunk({1: -1})
    sizes = [int(c) for c in Xa.chunks[0]]
    return _parts(list(Xa.to_delayed().ravel()), sizes, y, sample_weight, names, int(Xa.shape[1]), (), da, dd)


def _frame_inputs(X: Any, y: Any, sample_weight: Any, names: list[str], categorical: tuple[int, ...], dask: Any, da: Any, dd: Any) -> _Parts:
    """A frame with categorical columns: its partitions stay frames (one pass counts their rows)."""
    frames = list(X.to_delayed())
    sizes = [int(n) for n in _run(dask, *[dask.delayed(len)(f) for f in frames])]
    return _parts(frames, sizes, y, sample_weight, names, len(names), categorical, da, dd)


def _parts(blocks: list[Any], sizes: list[int], y: Any, sample_weight: Any, names: list[str] | None, n_features: int, categorical: tuple[int, ...], da: Any, dd: Any) -> _Parts:
    """X's row blocks of ``sizes`` rows, with ``y`` and the weights cut into the same blocks."""
    bounds = np.concatenate(([0], np.cumsum(sizes))).astype(int).tolist()
    rows = [(bounds[i], bounds[i + 1]) for i in range(len(sizes))]
    y_parts = None if y is None else _aligned(y, "y", "labels", sizes, da, dd)
    w_parts = None if sample_weight is None else _aligned(sample_weight, "sample_weight", "weights", sizes, da, dd)
    return _Parts(blocks, y_parts, rows, names, n_features, w_parts, categorical)


def _aligned(v: Any, name: str, what: str, sizes: list[int], da: Any, dd: Any) -> list[Any]:
    """One column (``y``, ``sample_weight``: a dask array or Series) in blocks of X's rows."""
    if isinstance(v, dd.DataFrame):
        if len(v.columns) != 1:
            raise DataError(f"{name} must be one column, got a frame of {len(v.columns)}")
        v = v[v.columns[0]]
    if isinstance(v, dd.Series):
        va = v.to_dask_array(lengths=True)
    elif isinstance(v, da.Array):
        va = v
    else:
        raise ParameterError(f"{name} must be a dask array or Series, got {type(v).__name__}")
    if va.ndim != 1:
        raise DataError(f"{name} must be one-dimensional, got {va.ndim} dimensions")
    if any(np.isnan(c) for c in va.chunks[0]):
        va = va.compute_chunk_sizes()
    if va.shape[0] != sum(sizes):
        raise DataError(f"X has {sum(sizes)} rows but {name} has {va.shape[0]} {what}")
    return list(va.rechunk((tuple(sizes),)).to_delayed().ravel())


# -- partition tasks (run on the workers) ------------------------------------------------


def _refuse_infinite(block: np.ndarray) -> None:
    bad = np.argwhere(np.isinf(block))
    if len(bad):
        r, c = bad[0]
        raise DataError(f"row {int(r)} of the partition, column {int(c)}: the value {float(block[r, c])!r} is not finite")


def _numbers(block: Any, numeric: tuple[str, ...] | None) -> np.ndarray:
    """The numeric columns of a partition as float64 (a frame's ``numeric`` columns; an array as it is)."""
    return block if numeric is None else block[list(numeric)].to_numpy(dtype=np.float64, na_value=np.nan)


def _distinct_categories(frame: Any, columns: tuple[str, ...]) -> list[list[Any]]:
    """Each categorical column's distinct known values in this partition (Python objects)."""
    out = []
    for c in columns:
        column = frame[c]
        values = column[~column.isna()].to_numpy(dtype=object).tolist()
        seen: dict[Any, Any] = {}
        # (type, value) first: True == 1 == 1.0 for a dict, not for category_key
        for v in dict.fromkeys(zip(map(type, values), values)):
            if not is_missing(v[1]):
                seen.setdefault(category_key(v[1]), v[1])
        out.append(list(seen.values()))
    return out


def _column_values(block: Any, max_bins: int, numeric: tuple[str, ...] | None = None) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per (numeric) column, over its known (non-NaN) values: its distinct values (at most ``max_bins + 1``)
    and a quantile sketch, the values at ``8 * max_bins`` evenly spaced ranks with the number
    of rows each stands for (its own and those below it down to the previous one). Refuses
    infinities, as the in-memory data does."""
    block = _numbers(block, numeric)
    _refuse_infinite(block)
    out = []
    for j in range(block.shape[1]):
        column = np.sort(block[:, j])
        column = column[: len(column) - int(np.isnan(column).sum())]  # NaN sorts last
        n = len(column)
        g = min(n, 8 * max_bins)
        ranks = (np.arange(1, g + 1) * n) // g - 1 if g else np.zeros(0, dtype=np.int64)  # the last rank is the largest value
        distinct = column[np.r_[True, column[1:] != column[:-1]]] if n else column
        out.append((distinct[: max_bins + 1], column[ranks], np.diff(np.r_[-1, ranks])))
    return out


def _labels(block: np.ndarray) -> np.ndarray:
    if block.dtype.kind == "f" and np.isnan(block).any():
        raise DataError(f"row {int(np.flatnonzero(np.isnan(block))[0])} of the partition: missing label (NaN)")
    return np.unique(block)


def _check_targets(block: np.ndarray) -> np.ndarray:
    """Regression targets as float64; a target that is not a finite number is refused, as in memory."""
    if block.dtype.kind not in "biuf":
        raise DataError(f"the regression target holds {block.dtype}, not numbers")
    y = block.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(y))
    if len(bad):
        raise DataError(f"row {int(bad[0])} of the partition: the regression target {float(y[bad[0]])!r} is not a finite number")
    return y


def _check_weights(block: np.ndarray) -> np.ndarray:
    """Sample weights as float64; a negative or non-finite weight is refused, as in memory."""
    if block.dtype.kind not in "biuf":
        raise DataError(f"sample_weight holds {block.dtype}, not numbers")
    w = block.astype(np.float64)
    bad = np.flatnonzero(~np.isfinite(w) | (w < 0))
    if len(bad):
        raise DataError(f"row {int(bad[0])} of the partition: sample weight {float(w[bad[0]])!r} is negative or not finite")
    return w


def _bin_block(block: Any, edges: tuple[np.ndarray | None, ...], dtype: Any, missing: int, refuse_missing: bool, schema: Schema | None = None) -> np.ndarray:
    """Each value's bin number (:func:`puretree.growth.engine.edge_bins`'s bins), column by column; a
    category's bin is its code (``edges`` None); a missing value (NaN) gets the bin
    ``missing``, past every feature's bins. A frame (``schema`` given) is encoded first."""
    if schema is not None:
        block = encode_features(schema, block)  # as the in-memory data: numbers, category codes, NaN
    _refuse_infinite(block)
    if refuse_missing and np.isnan(block).any():
        r, c = np.argwhere(np.isnan(block))[0]
        raise DataError(f"row {int(r)} of the partition, column {int(c)}: missing value (missing='error' refuses them; use 'majority')")
    return hist.bin_columns(block, edges, dtype, missing)


def _class_codes(block: np.ndarray, index: dict[Any, int]) -> np.ndarray:
    values, inverse = np.unique(block, return_inverse=True)
    return np.array([index[v] for v in values.tolist()], dtype=np.int32)[inverse.reshape(-1)]


def _predict_block(block: Any, tree: Tree) -> Any:
    return predict_rows(tree, block)


def _predict_frame(frame: Any, tree: Tree) -> Any:
    import pandas as pd

    return pd.Series(predict_rows(tree, frame) if len(frame) else labels_array(tree.schema.classes)[:0], index=frame.index)


# -- the client --------------------------------------------------------------------------


def _tasks(dask: Any, parts: _Parts, fn: Callable[..., Any], *columns: Sequence[Any], shared: tuple[Any, ...] = ()) -> list[Any]:
    """One delayed task per partition: ``fn(column_1[i], ..., *shared)``, failures named; the
    task's key names the partition too (a lost worker's error names the key)."""
    from dask.base import tokenize

    call = dask.delayed(_in_partition, pure=True)
    token = tokenize(fn.__name__, *columns, shared)
    what = fn.__name__.strip("_").replace("_", "-")
    return [call(i, parts.rows[i], fn, *(c[i] for c in columns), *shared, dask_key_name=f"puretree-{what}-partition-{i}-{token}") for i in range(len(parts.rows))]


def _total(dask: Any, values: list[Any], combine: Callable[[Any, Any], Any] = np.add) -> Any:
    """The partitions' values combined pairwise on the workers (a tree of ``combine`` calls)."""
    add = dask.delayed(combine, pure=True)
    while len(values) > 1:
        values = [add(values[i], values[i + 1]) if i + 1 < len(values) else values[i] for i in range(0, len(values), 2)]
    return values[0]


def _edges_from(summaries: list[list[tuple[np.ndarray, np.ndarray, np.ndarray]]], max_bins: int) -> tuple[np.ndarray, ...]:
    """Each column's edges from the partitions' summaries: its distinct values when there are at
    most ``max_bins``, else the merged sketches' quantiles at ``i / max_bins`` and the maximum."""
    out = []
    for j in range(len(summaries[0])):
        distinct = np.unique(np.concatenate([s[j][0] for s in summaries]))
        if len(distinct) == 0:  # every value missing: one bin, which no known value fills
            out.append(np.zeros(1))
            continue
        if len(distinct) <= max_bins:
            out.append(distinct.astype(np.float64))
            continue
        values = np.concatenate([s[j][1] for s in summaries])
        order = np.argsort(values, kind="stable")
        values = values[order]
        rows = np.cumsum(np.concatenate([s[j][2] for s in summaries])[order])
        targets = rows[-1] * np.arange(1, max_bins) / max_bins
        cuts = values[np.minimum(np.searchsorted(rows, targets, side="left"), len(values) - 1)]
        out.append(np.unique(np.append(cuts, values[-1])))
    return tuple(out)


def bin_edges(X: Any, *, max_bins: int = 255) -> tuple[np.ndarray | None, ...]:
    """The bins of every column of ``X`` (a dask array or DataFrame), computed on the workers:
    one sorted float array of upper bin edges per numeric column, at most ``max_bins`` each
    (None for a categorical column: a frame's non-numeric column, whose categories are its bins).

    A column with at most ``max_bins`` distinct values gets one bin per value; otherwise the
    edges are approximate quantiles at ``i / max_bins`` (merged from the partitions' sketches)
    and the column's maximum.
    ``puretree.cart(X, y, bins=edges)`` and :func:`cart` accept the result.

    >>> import dask.array as da
    >>> X = da.from_array(np.arange(20.0).reshape(10, 2), chunks=(5, 2))
    >>> [e.tolist() for e in bin_edges(X, max_bins=2)]   # the medians, then the maxima
    [[8.0, 18.0], [9.0, 19.0]]
    """
    max_bins = check_options(max_bins=max_bins)["max_bins"]
    if max_bins is None:
        raise ParameterError("max_bins must be an integer >= 2, got None")
    return _bin_edges(_inputs(X), max_bins)


def _bin_edges(parts: _Parts, max_bins: int) -> tuple[np.ndarray | None, ...]:
    """The numeric columns' edges; a categorical column's entry is None (its codes are its bins)."""
    dask, _, _ = _dask()
    numeric = [j for j in range(parts.n_features) if j not in parts.categorical]
    names = tuple(parts.names[j] for j in numeric) if parts.categorical and parts.names else None
    summaries = _run(dask, _tasks(dask, parts, _column_values, parts.X, shared=(max_bins, names)))[0]
    edges = iter(_edges_from(summaries, max_bins) if numeric else ())
    return tuple(None if j in parts.categorical else next(edges) for j in range(parts.n_features))


def _schema(classes: np.ndarray, parts: _Parts, names: list[str] | None, task: str, categories: list[list[Any]]) -> Schema:
    """The schema the in-memory ``cart`` gives data with these labels, features and (for a
    frame's categorical columns) categories: it is inferred from a small frame holding them."""
    m = max([len(classes), 1] + [len(c) for c in categories])
    y = np.zeros(m) if task == "regression" else np.resize(classes, m)
    if not parts.categorical:
        return as_dataset(np.zeros((m, parts.n_features)), y, feature_names=names, task=task).schema
    import pandas as pd

    own = list(names if names is not None else cast("list[str]", parts.names))
    cats = iter(categories)
    frame = pd.DataFrame({n: (pd.Series(list(np.resize(np.array(next(cats) or [None], dtype=object), m)), dtype=object) if j in parts.categorical else np.zeros(m)) for j, n in enumerate(own)})
    return as_dataset(frame, y, task=task, categorical=[own[j] for j in parts.categorical]).schema


class DaskRegressorOptions(TypedDict, total=False):
    """:func:`cart_regressor`'s options: those every Dask growth function takes (``task`` is its own)."""

    bins: Any
    max_bins: int | None
    sample_weight: Any
    max_depth: int | None
    min_samples_split: float
    min_gain: float | None
    feature_names: Sequence[str] | None
    histogram_bytes: int
    monotonic_cst: Sequence[int] | None
    min_impurity_decrease: float
    max_leaf_nodes: int | None
    min_weight_fraction_leaf: float
    splitter: str


class DaskC45Options(DaskRegressorOptions, total=False):
    """:func:`c45`'s ``**options`` (those it does not name itself), for type checkers."""

    task: str


class DaskID3Options(DaskC45Options, total=False):
    """:func:`id3`'s ``**options`` (all of :class:`DaskOptions` but ``score``)."""

    min_samples_leaf: float
    missing: str
    max_features: Any
    seed: int


class DaskOptions(DaskID3Options, total=False):
    """The keyword options of :func:`cart` (those of :func:`_grow`), for type checkers: a
    misspelt one is a type error as well as a :class:`~puretree.errors.ParameterError`."""

    score: Any


def _options_known(options: Mapping[str, Any]) -> None:
    """Refuse a keyword :func:`_grow` does not take (``max_dept=1``), naming it, as the
    in-memory builders do, rather than with Python's TypeError."""
    known = [name for name in inspect.signature(_grow).parameters if name not in ("X", "y", "multiway", "c45")]
    for name in options:
        if name not in known:
            close = difflib.get_close_matches(name, known, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise ParameterError(f"unknown option {name!r} for puretree.dask{hint}; its options are {known}")


def _grow(
    X: Any,
    y: Any,
    multiway: bool,
    *,
    c45: bool = False,
    bins: Any = None,
    max_bins: int | None = None,
    score: Any = ByTask("gini", "variance"),
    task: str = "classification",
    sample_weight: Any = None,
    missing: str = "majority",
    max_depth: int | None = None,
    min_samples_split: float = 2,
    min_samples_leaf: float = 1,
    min_gain: float | None = None,
    feature_names: Sequence[str] | None = None,
    histogram_bytes: int = HISTOGRAM_BYTES,
    max_features: Any = None,
    seed: int = 0,
    monotonic_cst: Sequence[int] | None = None,
    min_impurity_decrease: float = 0.0,
    max_leaf_nodes: int | None = None,
    min_weight_fraction_leaf: float = 0.0,
    splitter: str = "best",
) -> Tree:
    """The tree grown from ``X`` and ``y`` on the workers, without gathering the data, with
    :func:`cart`'s options: categorical features split by subsets, or with one branch per
    category (``multiway``, :func:`id3`); ``c45``: C4.5's choice (:func:`c45`)."""
    dask, _, _ = _dask()
    opts = check_options(max_depth=max_depth, min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf, min_gain=min_gain, max_bins=max_bins, missing=missing, min_impurity_decrease=min_impurity_decrease, max_leaf_nodes=max_leaf_nodes, min_weight_fraction_leaf=min_weight_fraction_leaf, splitter=splitter)
    sized = opts["min_impurity_decrease"] > 0 or opts["max_leaf_nodes"] is not None
    _refuse_options(c45=c45, missing=missing, monotonic=monotonic_cst is not None, sized=sized, min_weight_fraction_leaf=opts["min_weight_fraction_leaf"], splitter=splitter)
    if task not in ("classification", "regression"):
        raise ParameterError(f"task must be 'classification' or 'regression', got {task!r}")
    if bins is not None and max_bins is not None:
        raise ParameterError("give bins= (the bin edges) or max_bins= (compute them), not both")
    if not isinstance(histogram_bytes, int) or histogram_bytes < 1:
        raise ParameterError(f"histogram_bytes must be a positive integer, got {histogram_bytes!r}")
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ParameterError(f"seed must be a non-negative integer, got {seed!r}")
    if c45 and max_features is not None:
        raise ParameterError("puretree.dask.c45 draws no features (max_features); use puretree.dask.cart or id3, or puretree.c45 in memory")
    regression = task == "regression"
    if c45 and regression:
        raise ParameterError("puretree.dask.c45 grows classification trees; C4.5 on numeric targets is not yet supported on Dask (use puretree.dask.cart_regressor)")
    chosen = _task_score(score, REGRESSION if regression else CLASSIFICATION)
    if isinstance(chosen, AbsoluteErrorDecrease):
        raise ParameterError("criterion 'absolute_error' is not grown on Dask: its leaves predict the rows' weighted medians, which the workers' histograms (sums) do not hold; use 'squared_error' ('variance') or 'poisson' on Dask, or puretree.cart_regressor in memory")
    by_ratio, impurity = c45_criterion(chosen) if c45 else (False, None)
    parts = _inputs(X, y, sample_weight)
    if not parts.rows or parts.rows[-1][1] == 0:  # else the labels' schema would hold no class
        raise DataError(f"X has no rows: its {len(parts.rows)} partition(s) are all empty")
    names = list(feature_names) if feature_names is not None else parts.names
    assert parts.y is not None  # _inputs requires the labels
    weights = parts.w if parts.w is not None else [None] * len(parts.rows)
    if parts.w is not None:
        weights = _run(dask, *_tasks(dask, parts, _check_weights, parts.w), persist=True)
    categories = _categories(dask, parts)
    if regression:
        schema = _schema(np.zeros(0), parts, names, task, categories)
        target = _run(dask, *_tasks(dask, parts, _check_targets, parts.y), persist=True)
        k = 0
        if isinstance(chosen, PoissonDecrease):  # scikit-learn's refusals, as in memory
            total = sum(_run(dask, _tasks(dask, parts, _poisson_sum, target, weights))[0])
            if not total > 0:
                raise DataError(f"criterion 'poisson' needs targets with a positive sum; they sum to {total!r}")
    else:
        labels = _run(dask, _tasks(dask, parts, _labels, parts.y))[0]  # one pass for the labels
        schema = _schema(np.unique(np.concatenate(labels)), parts, names, task, categories)
        k = len(schema.classes)
        target = _run(dask, *_tasks(dask, parts, _class_codes, parts.y, shared=({c: i for i, c in enumerate(schema.classes)},)), persist=True)
    monotonic = monotonic_directions(monotonic_cst, schema)
    if parts.categorical and (monotonic is not None or missing == "learn"):  # as the in-memory binned fit: numeric features only
        raise ParameterError(f"{'monotonic_cst' if monotonic is not None else 'missing=learn'} grows threshold splits on numeric features, and {schema.features[parts.categorical[0]].name!r} is categorical (as puretree.cart with bins= refuses it)")
    edges = _bin_edges(parts, opts["max_bins"] or 255) if bins is None else check_bins(bins, schema)
    n_categories = tuple(len(f.categories) if not f.is_numeric else 0 for f in schema.features)
    n_bins = max(len(e) if e is not None else c for e, c in zip(edges, n_categories)) + 1  # the last bin: missing values
    dtype = np.uint8 if n_bins <= 256 else np.uint16 if n_bins <= 65536 else np.uint32
    binned = _run(dask, *_tasks(dask, parts, _bin_block, parts.X, shared=(edges, dtype, n_bins - 1, missing == "error", schema if parts.categorical else None)), persist=True)
    variance = isinstance(chosen, ImpurityDecrease) and chosen.impurity is impurity_variance
    # min_weight_fraction_leaf: a fraction of the training weight (the rows', or the weights' sum, as in memory)
    min_weight = opts["min_weight_fraction_leaf"] * (float(parts.rows[-1][1]) if parts.w is None else sum(_run(dask, _tasks(dask, parts, _weight_sum, weights))[0])) if opts["min_weight_fraction_leaf"] > 0 else 0.0
    rules = hist.Rules(chosen, np.asarray(schema.feature_names, dtype=object).astype(str), opts["max_depth"], opts["min_samples_split"], opts["min_samples_leaf"], opts["min_gain"], regression, variance, np.array([not f.is_numeric for f in schema.features]), multiway, n_categories, integral=k > 0 and parts.w is None and not (c45 and missing == "distribute"), monotonic=monotonic, learn=missing == "learn", min_weight_leaf=min_weight, random=(int(seed),) if splitter == "random" else None, random_features=resolve_max_features(max_features, parts.n_features) if splitter == "random" else None)
    blocks: hist.Blocks = _worker_blocks(parts, binned, target, weights) or _Blocks(dask, parts, binned, target, weights)
    del binned, target, weights  # the partitions' blocks, once joined, are released on the workers
    drawn = resolve_max_features(max_features, parts.n_features)
    # max_leaf_nodes, min_impurity_decrease: read off the full tree by the frontier loop, as in memory
    sizes = Sizes(opts["max_leaf_nodes"], opts["min_impurity_decrease"]) if sized else None
    root = hist.grow(blocks, rules, edges=edges, n_bins=n_bins, k=k, c45=hist.C45Rules(by_ratio, impurity) if c45 else None, spread=c45 and missing == "distribute", histogram_bytes=histogram_bytes, max_features=drawn, feature_key=(int(seed),), sizes=sizes)
    tree = Tree(root, schema, "majority" if missing == "learn" else missing)  # a learned side is each threshold's own
    impurity = getattr(chosen, "impurity", None)
    return attrs.evolve(tree, criterion=getattr(impurity, "__name__", None))


def _refuse_options(*, c45: bool, missing: str, monotonic: bool, sized: bool, min_weight_fraction_leaf: float, splitter: str) -> None:
    """The options that have no meaning on Dask, or not yet, each refused in one line saying
    why and what to use (docs/scale-out.md tabulates them)."""
    if missing == "surrogate":
        raise ParameterError("missing='surrogate' (rpart's surrogate splits) needs each node's rows to rank the other features' splits, which the workers' histograms do not hold; grow it in memory (puretree.cart: the in-memory reference builder only grows it); puretree.dask takes 'majority', 'learn' and 'error'")
    if missing == "distribute" and not c45:
        raise ParameterError("missing='distribute' sends a row down several branches with fractional weights; puretree.dask.cart takes 'majority', 'learn' and 'error' (not yet 'distribute'; puretree.dask.c45 distributes)")
    if splitter != "best" and c45:
        raise ParameterError(f"splitter={splitter!r} draws cart's and id3's thresholds on the bins (as puretree.cart with bins=), not C4.5's cuts; use puretree.dask.cart or id3")
    if min_weight_fraction_leaf > 0 and c45:
        raise ParameterError("min_weight_fraction_leaf on puretree.dask.c45: J48's leaf bound is min_samples_leaf (a weight); use it")
    if c45 and (missing == "learn" or monotonic or sized):
        raise ParameterError("puretree.dask.c45 grows J48's tree, which takes no monotonic_cst, missing='learn', max_leaf_nodes or min_impurity_decrease; use puretree.dask.cart")


def _weight_sum(weight: np.ndarray) -> float:
    """A partition's weights' sum (``min_weight_fraction_leaf`` is a fraction of the training weight)."""
    return float(np.sum(weight))


def _poisson_sum(target: np.ndarray, weight: np.ndarray | None) -> float:
    """``criterion="poisson"``: a partition's targets' sum (over its rows of positive weight,
    as in memory, which leaves weight-0 rows out); a negative target refused, named by its row."""
    negative = np.flatnonzero(target < 0)
    if len(negative):
        raise DataError(f"criterion 'poisson' needs non-negative targets: row {int(negative[0])} of the partition has y = {float(target[negative[0]])!r}")
    return float(target.sum() if weight is None else target[weight > 0].sum())


@attrs.define
class _Blocks:
    """The partitions as the histogram source's blocks (:class:`puretree.growth.histograms.Blocks`):
    each block function runs as one task per partition, histograms are summed on the workers,
    and the rows' nodes stay there (persisted)."""

    dask: Any
    parts: _Parts
    binned: list[Any]
    target: list[Any]
    weights: list[Any]
    node: list[Any] = attrs.field(factory=list)

    def start(self, fn: Callable[..., Any]) -> None:
        self.node = _run(self.dask, *_tasks(self.dask, self.parts, fn, self.target, self.weights), persist=True)

    def total(self, fn: Callable[..., Any], *shared: Any) -> Any:
        # the workers send packed histograms (non-empty cells, integer counts where exact)
        H, lo, hi = _run(self.dask, _total(self.dask, _tasks(self.dask, self.parts, hist.packed, self.binned, self.target, self.weights, self.node, shared=(fn, *shared)), hist.merge))[0]
        return hist.unpack(H), lo, hi

    def update(self, fn: Callable[..., Any], *shared: Any) -> None:
        self.node = _run(self.dask, *_tasks(self.dask, self.parts, fn, self.binned, self.node, shared=shared), persist=True)


@attrs.define
class _WorkerBlocks:
    """The partitions as the histogram source's blocks on a distributed client's workers: the
    binned rows joined into one block per worker (:func:`_worker_blocks`), each block function
    one task per block submitted as a future (no graph to build per level), the blocks'
    histograms gathered and added on the client (:func:`puretree.growth.histograms.merge`:
    integer counts exactly; floats, as always across partitions, in another order than in
    memory), the rows' nodes kept on the workers as futures."""

    client: Any
    parts: list[int | tuple[int, int]]  # each block's partition, or its first and last
    rows: list[tuple[int, int]]
    binned: list[Any]
    target: list[Any]
    weights: list[Any]
    node: list[Any] = attrs.field(factory=list)

    def _each(self, fn: Callable[..., Any], *columns: Sequence[Any], shared: tuple[Any, ...] = ()) -> list[Any]:
        """``fn(column_1[i], ..., *shared)`` submitted for every block ``i``: futures, each
        task's key naming its block's rows (a lost worker's error names the key)."""
        what = fn.__name__.strip("_").replace("_", "-")
        token = uuid.uuid4().hex
        keys = [f"puretree-{what}-rows-{a}-{b - 1}-{token}" for a, b in self.rows]
        n = len(self.rows)
        # one message to the scheduler for all the blocks' tasks (client.map), not one per task
        return cast("list[Any]", self.client.map(_in_partition, self.parts, self.rows, [fn] * n, *columns, *([v] * n for v in shared), key=keys, pure=False))

    def start(self, fn: Callable[..., Any]) -> None:
        self.node = self._each(fn, self.target, self.weights)

    def total(self, fn: Callable[..., Any], *shared: Any) -> Any:
        # the workers send packed histograms (non-empty cells, integer counts where exact)
        futures = self._each(hist.packed, self.binned, self.target, self.weights, self.node, shared=(fn, *shared))
        try:
            H, lo, hi = functools.reduce(hist.merge, self.client.gather(futures))
        except PuretreeError:
            raise
        except Exception as exc:
            raise DataError(f"a Dask task failed: {type(exc).__name__}: {exc}") from exc
        return hist.unpack(H), lo, hi

    def update(self, fn: Callable[..., Any], *shared: Any) -> None:
        self.node = self._each(fn, self.binned, self.node, shared=shared)


def _worker_blocks(parts: _Parts, *columns: list[Any]) -> _WorkerBlocks | None:
    """With a distributed client: the persisted partitions' blocks of each column (the binned
    rows, targets, weights: None for none) joined into one block of consecutive rows per
    worker, each made on its worker (a worker then sums one block per level, not one per
    partition, and no histogram goes from worker to worker); None without a client (the
    blocks then stay the partitions, :class:`_Blocks`)."""
    try:
        from distributed import futures_of, get_client

        client = get_client()
        workers = sorted(client.scheduler_info()["workers"])
    except (ImportError, ValueError):
        return None
    found = [[None if c is None else futures_of(c) for c in column] for column in columns]
    if not workers or any(f == [] for column in found for f in column):  # persisted by another scheduler: no futures
        return None
    groups = [g.tolist() for g in np.array_split(np.arange(len(parts.rows)), min(len(workers), len(parts.rows)))]
    joined: list[list[Any]] = []
    for column in found:
        futures = [None if f is None else f[0] for f in column]
        joined.append([futures[g[0]] if len(g) == 1 or futures[g[0]] is None else client.submit(_joined, *(futures[i] for i in g), workers=[w], pure=False) for g, w in zip(groups, workers)])
    rows = [(parts.rows[g[0]][0], parts.rows[g[-1]][1]) for g in groups]
    return _WorkerBlocks(client, [g[0] if len(g) == 1 else (g[0], g[-1]) for g in groups], rows, *joined)


def _categories(dask: Any, parts: _Parts) -> list[list[Any]]:
    """Each categorical column's distinct values over all partitions (one pass; none: no pass)."""
    if not parts.categorical:
        return []
    assert parts.names is not None  # a frame's columns are named
    columns = tuple(parts.names[j] for j in parts.categorical)
    found = _run(dask, _tasks(dask, parts, _distinct_categories, parts.X, shared=(columns,)))[0]
    out = []
    for c in range(len(columns)):
        seen: dict[Any, Any] = {}
        for values in found:
            for v in values[c]:
                seen.setdefault(category_key(v), v)
        out.append(list(seen.values()))
    return out


def _task_score(score: Any, task: Any) -> Any:
    """The score for the task (a :class:`~puretree.builder.ByTask` picks one); a built-in
    score made for the other task is refused, as :func:`puretree.grow` refuses it."""
    chosen = score.for_task(task) if isinstance(score, ByTask) else score
    if isinstance(chosen, str) and chosen in SCORES and score_task(SCORES[chosen]) is not task:
        kind = "numeric targets; this is a classification task" if task is CLASSIFICATION else "class labels; a regression tree needs 'variance'"
        raise ParameterError(f"the criterion {chosen!r} is for {kind}")
    return resolve_score(chosen)


def cart(X: Any, y: Any, **options: Unpack[DaskOptions]) -> Tree:
    """A CART tree (binary splits: thresholds on numeric features, subsets of categories) grown
    from data on Dask workers, without gathering it: ``X`` a dask array or DataFrame, ``y`` a
    dask array or Series of labels (numbers with ``task="regression"``) partitioned as ``X``.

    Options (keyword-only): ``bins`` (the edges, :func:`bin_edges`) or ``max_bins`` (computes
    them, default 255); ``score`` (a name of :data:`puretree.criteria.SCORES` or a score
    function, called on the client; default Gini, the variance decrease for regression);
    ``task``; ``sample_weight`` (a dask array or Series, one non-negative weight per row; a row
    of weight 0 is no row);
    ``missing`` (``"majority"``, the default, ``"learn"``: each threshold learns its missing
    rows' side, or ``"error"``); ``max_depth``, ``min_samples_split``, ``min_samples_leaf``,
    ``min_gain``, ``feature_names``, ``monotonic_cst``, ``min_impurity_decrease``,
    ``max_leaf_nodes``, ``min_weight_fraction_leaf``, ``splitter`` (``"random"``: extra trees'
    random cuts on the bins, keyed by ``seed``, :func:`puretree.growth.histograms.random_thresholds`),
    as for :func:`puretree.cart` with ``bins=`` (``missing="surrogate"`` is refused:
    docs/scale-out.md tables which options run on Dask); ``max_features`` and ``seed`` (each
    node splits on its own draw of the features, the in-memory fit's draw); ``histogram_bytes`` (default
    :data:`HISTOGRAM_BYTES`) bounds one batch of the frontier's histograms. With the same edges the tree is
    the one ``puretree.cart(X, y, bins=edges, ...)`` grows in memory.
    """
    _options_known(options)
    return _grow(X, y, False, **options)


def id3(X: Any, y: Any, *, score: Any = ByTask("information_gain", "variance"), **options: Unpack[DaskID3Options]) -> Tree:
    """An ID3 tree (information gain; one branch per category, a categorical feature not
    reused below its multiway split; thresholds on numeric features) grown on Dask workers, as
    :func:`puretree.id3` grows it in memory with the same edges. Options as :func:`cart`.

    >>> import dask.array as da
    >>> X = da.from_array(np.array([[1.0], [2.0], [3.0], [4.0]]), chunks=2)
    >>> print(id3(X, da.from_array(np.array([0, 0, 1, 1]), chunks=2), bins=[[1.0, 2.0, 3.0, 4.0]]).to_text())
    x0 <= 2: 0 (2)
    x0 > 2: 1 (2)
    """
    _options_known(options)
    return _grow(X, y, True, score=score, **options)


def c45(X: Any, y: Any, *, score: Any = ByTask("gain_ratio", "variance"), min_samples_leaf: float = 2, missing: str = "distribute", collapse: bool = True, threshold: str = "midpoint", **options: Unpack[DaskC45Options]) -> Tree:
    """A C4.5 tree (gain ratio among the attributes of at least average gain, J48's
    MDL-corrected numeric cuts and minimum branch sizes, one branch per category, then
    :func:`puretree.c45.collapse_unhelpful`) grown on Dask workers from the same per-bin
    histograms as :func:`cart`: with the same edges it is the tree
    ``puretree.c45(X, y, bins=edges, ...)`` grows in memory (its thresholds are bin edges).
    Classification only. ``missing``: ``"distribute"`` (C4.5's, the default: a missing value
    sends its row down every branch with a fraction of its weight, kept on the workers as
    instances of the row), ``"majority"`` (the heavier branch) or ``"error"``. With fractions
    (or weights) the sums are added in another order than in memory: the in-memory structure,
    statistics within 1e-9 relative; unweighted without missing values, or with ``"majority"``,
    the same tree (``==``).
    Other options as :func:`cart` (``min_samples_leaf`` is J48's ``-M``, default 2);
    ``threshold`` is checked and, as in memory with bins, has no effect: every threshold is an edge.

    >>> import dask.array as da
    >>> X = da.from_array(np.array([[0.5], [1.2], [1.7], [2.5], [3.1], [3.9]]), chunks=3)
    >>> y = da.from_array(np.array(["a", "a", "a", "b", "b", "b"]), chunks=3)
    >>> print(c45(X, y, bins=[[1.0, 2.0, 3.0, 4.0]], min_samples_leaf=1).to_text())
    x0 <= 2: a (3)
    x0 > 2: b (3)
    """
    check_options(threshold=threshold)
    _options_known(options)
    if not isinstance(collapse, bool):
        raise ParameterError(f"collapse must be True or False, got {collapse!r}")
    tree = _grow(X, y, True, c45=True, score=score, min_samples_leaf=min_samples_leaf, missing=missing, **options)
    return collapse_unhelpful(tree) if collapse else tree


def cart_regressor(X: Any, y: Any, **options: Unpack[DaskRegressorOptions]) -> Tree:
    """A CART regression tree (the variance decrease; leaves predict the weighted mean):
    :func:`cart` with ``task="regression"``, as :func:`puretree.cart_regressor` is in memory.

    >>> import dask.array as da
    >>> X = da.from_array(np.array([[1.0], [2.0], [3.0], [4.0]]), chunks=2)
    >>> y = da.from_array(np.array([1.0, 1.5, 8.0, 9.0]), chunks=2)
    >>> print(cart_regressor(X, y, bins=[[1.0, 2.0, 3.0, 4.0]], max_depth=1).to_text())
    x0 <= 2: 1.25 (2)
    x0 > 2: 8.5 (2)
    """
    return cart(X, y, task="regression", **options)


@attrs.define
class _Runner:
    """The booster's tasks on the partitions (:class:`puretree.dask_boosting.Runner`)."""

    dask: Any
    parts: _Parts

    def each(self, fn: Callable[..., Any], *columns: Sequence[Any], shared: tuple[Any, ...] = ()) -> list[Any]:
        return cast("list[Any]", _run(self.dask, *_tasks(self.dask, self.parts, fn, *columns, shared=shared), persist=True))

    def gather(self, fn: Callable[..., Any], *columns: Sequence[Any], shared: tuple[Any, ...] = ()) -> list[Any]:
        return list(_run(self.dask, _tasks(self.dask, self.parts, fn, *columns, shared=shared))[0])

    def chain(self, fn: Callable[..., Any], *columns: Sequence[Any], shared: tuple[Any, ...] = ()) -> Any:
        from dask.base import tokenize

        call = self.dask.delayed(_in_partition, pure=True)
        token = tokenize(fn.__name__, *columns, shared)
        what = fn.__name__.strip("_").replace("_", "-")
        out = None
        for i, rows in enumerate(self.parts.rows):  # partition i adds to the sums of 0..i-1: the in-memory order
            out = call(i, rows, fn, out, *(c[i] for c in columns), *shared, dask_key_name=f"puretree-{what}-partition-{i}-{token}")
        return _run(self.dask, out)[0]


def hist_gradient_boosting(
    X: Any,
    y: Any,
    *,
    loss: str | None = None,
    bins: Any = None,
    max_bins: int = DEFAULTS["max_bins"],
    learning_rate: float = DEFAULTS["learning_rate"],
    max_iter: int = DEFAULTS["max_iter"],
    max_leaf_nodes: int | None = DEFAULTS["max_leaf_nodes"],
    max_depth: int | None = DEFAULTS["max_depth"],
    min_samples_leaf: int = DEFAULTS["min_samples_leaf"],
    l2_regularization: float = DEFAULTS["l2_regularization"],
    early_stopping: str | bool = False,
    validation_fraction: float = DEFAULTS["validation_fraction"],
    n_iter_no_change: int = DEFAULTS["n_iter_no_change"],
    tol: float = DEFAULTS["tol"],
    random_state: int | None = DEFAULTS["random_state"],
    sample_weight: Any = None,
    feature_names: Sequence[str] | None = None,
    progress: Callable[[int], None] | None = None,
) -> Boosted:
    """Histogram gradient boosting (:func:`puretree.hist_gradient_boosting`) grown from data on
    Dask workers, without gathering it (:mod:`puretree.dask_boosting` tells how): ``X`` a dask
    array or DataFrame (its non-numeric columns categorical, split natively), ``y`` a dask
    array or Series of labels (numbers with ``loss="squared_error"``) partitioned as ``X``,
    ``sample_weight`` likewise. ``bins`` (the edges, :func:`bin_edges`) or ``max_bins``
    (computes them); the other options are the in-memory ones. With the same edges the model
    equals (``==``, every float) ``puretree.hist_gradient_boosting(X, y, bins=edges,
    early_stopping=False, ...)`` in memory. Early stopping is not supported (it holds out a
    random tenth of the rows): ``early_stopping`` must be False, the default here.

    >>> import dask.array as da
    >>> X = np.array([[float(i % 7), float(i % 3)] for i in range(60)])
    >>> y = np.array([int(x[0] >= 3) for x in X])
    >>> Xd, yd = da.from_array(X, chunks=(25, 2)), da.from_array(y, chunks=25)
    >>> edges = bin_edges(Xd)
    >>> model = hist_gradient_boosting(Xd, yd, bins=edges, max_iter=5, min_samples_leaf=5)
    >>> from puretree import hist_gradient_boosting as in_memory
    >>> model == in_memory(X, y, bins=edges, max_iter=5, min_samples_leaf=5, early_stopping=False)
    True
    >>> model.predict(X[:4]).tolist()
    [0, 0, 0, 1]
    """
    dask, _, _ = _dask()
    if early_stopping is not False:
        raise ParameterError(f"puretree.dask.hist_gradient_boosting grows without early stopping (it holds out a random part of the rows); early_stopping must be False, got {early_stopping!r}")
    opts = checked_options(
        max_iter=max_iter, learning_rate=learning_rate, max_leaf_nodes=max_leaf_nodes, max_depth=max_depth, min_samples_leaf=min_samples_leaf,
        l2_regularization=l2_regularization, max_bins=max_bins, validation_fraction=validation_fraction, n_iter_no_change=n_iter_no_change,
        tol=tol, random_state=random_state)  # fmt: skip
    task = "regression" if loss in LOSSES["regression"] else "classification"
    loss = LOSSES[task][0] if loss is None else loss
    if loss not in LOSSES[task]:
        raise ParameterError(f"loss must be one of {LOSSES['classification'] + LOSSES['regression']}, got {loss!r}")
    parts = _inputs(X, y, sample_weight)
    if not parts.rows or parts.rows[-1][1] == 0:
        raise DataError(f"X has no rows: its {len(parts.rows)} partition(s) are all empty")
    assert parts.y is not None  # _inputs requires the labels
    names = list(feature_names) if feature_names is not None else parts.names
    weights = parts.w if parts.w is not None else [None] * len(parts.rows)
    if parts.w is not None:
        weights = _run(dask, *_tasks(dask, parts, _check_weights, parts.w), persist=True)
    categories = _categories(dask, parts)
    if task == "regression":
        schema = _schema(np.zeros(0), parts, names, task, categories)
        target = _run(dask, *_tasks(dask, parts, _check_targets, parts.y), persist=True)
    else:
        labels = _run(dask, _tasks(dask, parts, _labels, parts.y))[0]
        schema = _schema(np.unique(np.concatenate(labels)), parts, names, task, categories)
        if len(schema.classes) < 2:
            raise DataError("gradient boosting needs at least two classes in y")
        target = _run(dask, *_tasks(dask, parts, _class_codes, parts.y, shared=({c: i for i, c in enumerate(schema.classes)},)), persist=True)
    for f in schema.features:
        if not f.is_numeric and len(f.categories) > opts["max_bins"]:
            raise ParameterError(f"categorical feature {f.name!r} has {len(f.categories)} categories, more than max_bins={opts['max_bins']} (one bin per category)")
    edges = _bin_edges(parts, opts["max_bins"]) if bins is None else check_bins(bins, schema)
    for f, e in zip(schema.features, edges):
        if e is not None and len(e) > 255:
            raise ParameterError(f"bins for feature {f.name!r} holds {len(e)} edges; hist_gradient_boosting takes at most 255 bins per feature")
    n_categories = [len(f.categories) if not f.is_numeric else 0 for f in schema.features]
    n_bins = max(len(e) if e is not None else c for e, c in zip(edges, n_categories)) + 1  # the last bin: missing values
    binned = _run(dask, *_tasks(dask, parts, _bin_block, parts.X, shared=(edges, np.uint8, n_bins - 1, False, schema if parts.categorical else None)), persist=True)
    parts, (binned, target, weights) = _per_worker(dask, parts, binned, target, weights)
    return boost(_Runner(dask, parts), schema=schema, edges=edges, n_bins=n_bins, binned=binned, y=target, w=weights, loss=loss, opts={**opts, "early_stopping": False}, progress=progress)


def _joined(*blocks: Any) -> Any:
    return None if blocks[0] is None else np.concatenate(blocks)


def _per_worker(dask: Any, parts: _Parts, *columns: list[Any]) -> tuple[_Parts, list[list[Any]]]:
    """The partitions' blocks joined into one block of consecutive rows per worker of the
    distributed client (when there is one and fewer workers than partitions), each kept on its
    worker: the booster's histogram pass visits the blocks one after the other, so a worker's
    consecutive rows make one task rather than one per partition. No worker gets more rows
    than its share."""
    try:
        from distributed import get_client

        client = get_client()
        workers = sorted(client.scheduler_info()["workers"])
    except (ImportError, ValueError):
        return parts, list(columns)
    if not 0 < len(workers) < len(parts.rows):
        return parts, list(columns)
    groups = [g.tolist() for g in np.array_split(np.arange(len(parts.rows)), len(workers))]
    joined = []
    for column in columns:
        made = [dask.delayed(_joined, pure=True)(*(column[i] for i in g)) for g in groups]
        joined.append([client.persist(block, workers=[w]) for block, w in zip(made, workers)])
    rows = [(parts.rows[g[0]][0], parts.rows[g[-1]][1]) for g in groups]
    return attrs.evolve(parts, X=[None] * len(groups), y=None, w=None, rows=rows), joined


def predict(tree: Tree, X: Any) -> Any:
    """The tree's predictions for ``X`` (a dask array or DataFrame), computed partition by
    partition with :func:`puretree.predict.predict`: a dask array (a dask Series for a frame),
    not yet computed."""
    _, da, dd = _dask()
    dtype = np.dtype(np.float64) if tree.schema.is_regression else labels_array(tree.schema.classes).dtype
    if isinstance(X, dd.DataFrame):
        return X.map_partitions(_predict_frame, tree, meta=("prediction", dtype))
    if isinstance(X, da.Array):
        if X.ndim != 2:
            raise DataError(f"X must be two-dimensional (rows x features), got {X.ndim} dimensions")
        return X.rechunk({1: -1}).map_blocks(_predict_block, tree, drop_axis=1, dtype=dtype)
    raise ParameterError(f"X must be a dask array or a dask DataFrame, got {type(X).__name__}")
