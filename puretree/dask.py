"""Trees grown on data spread over Dask workers (``pip install 'puretree[dask]'``).

The data (a ``dask.array`` of rows x features, or a ``dask.dataframe``) never comes to one
machine; only small summaries do:

1. **Bins** (:func:`bin_edges`): one pass computes, per column and partition, its distinct
   values (at most ``max_bins + 1`` of them) and a quantile sketch (its values at ``8 * max_bins``
   evenly spaced ranks, each with the number of rows it stands for). A column with at most
   ``max_bins`` distinct values keeps every value as its own bin (as the in-memory
   :func:`~puretree.engine.quantile_bins` does); otherwise its edges are the merged sketches'
   approximate quantiles at ``1/max_bins, 2/max_bins, ...`` (each off by at most
   ``1 / (8 * max_bins)`` of a partition's rows) and its maximum. The edges are a value: a tuple of one sorted
   float array per feature, the bins' *upper* edges, which the in-memory ``cart(X, y, bins=edges)``
   accepts too. A value belongs to the first bin whose edge is at or above it (a value above the
   last edge, to the last bin), and a threshold is always an edge, so ``x <= edge`` sends a raw
   value where its bin went.
2. **Levels** (:func:`cart`): every partition's values are replaced once by their bin numbers
   (``uint8`` for up to 255 bins; a missing value gets one more bin) and kept on the workers
   (persisted), with the targets (class codes, or numbers), the sample weights and each row's
   node id (an ``int32`` array per partition, replaced at every level; a row of weight 0 is in
   no node). For each level, every partition sums its rows' statistics into a histogram
   ``(node, feature, bin, channel)`` for the open nodes of the frontier: the channels are the
   (weighted) class counts, or the regression statistics ``(w, w*y, w*y**2)``, and the number
   of rows. The histograms are added pairwise on the workers (a tree of sums) and only the
   total comes to the client, which chooses every node's split; a map over the partitions
   then moves each row to its child. A frontier whose histograms would exceed
   ``histogram_bytes`` is processed in batches of nodes, so memory stays bounded however wide
   (or deep) the tree grows.
3. **Prediction** (:func:`predict`): the library's own prediction, partition by partition.

**Equality.** The client scores every node's candidate thresholds with the same score function
and the same rules as the in-memory engine's histogram mode: candidates between consecutive
non-empty bins; ``min_samples_leaf`` and ``min_samples_split`` count rows; a node is a leaf
when pure (one class, or one target value), below ``min_samples_split`` rows, at
``max_depth``, without a candidate, or when its best score is not above ``min_gain``; ties
(scores within 1e-12, relative) go to the lowest threshold of a feature, then to the lowest
feature. **Missing values** as ``missing="majority"`` treats them in memory: a feature is
scored on its known rows and, in a node with a missing value in any feature, the score is
multiplied by the known share of the node's weight; the rows whose value is missing go down
the heavier branch (by known weight; the left on a tie). Unweighted class counts are
integers, summed exactly, so with the same edges the tree is equal (``==``) to
``puretree.cart(X, y, bins=edges)``, missing values or not. Weights and regression
statistics are summed in another order (each partition's rows, then the partitions), so
those trees have the in-memory structure with statistics equal to within 1e-9 relative
(a split could differ only where two candidates' scores tie to within rounding).

**Categorical features**: a dask frame's non-numeric columns, as in memory; one pass collects
their distinct values (the schema orders them as ``puretree.cart`` does), each partition
encodes its rows against the schema, a category's code is its bin, and the client chooses
subset splits from the per-category histograms as the engine does (the same
:func:`~puretree.splits.subset_candidates`, scores, scaling for missing values and ties).

:func:`id3` splits them with one branch per category instead (a feature so used is not
offered again below), from the same histograms.

:func:`c45` chooses C4.5's splits (gain ratio, average-gain filter, MDL-corrected cuts,
one branch per category) from the same histograms, as ``puretree.c45(X, y, bins=edges)``
grows C4.5 on the bins' edges in memory.

With ``missing="distribute"`` (C4.5's default) a row whose value is missing goes down every
branch with a fraction of its weight (each branch's share of the known weight): each
partition then keeps its rows as *instances* ``(row, node, fraction)`` rather than one node id
per row, and the histograms sum the instances' weights times their fractions.

**Not yet**: class weights, and ``missing="distribute"`` for :func:`cart` and :func:`id3`.

A failure inside a partition's task surfaces as a :class:`~puretree.errors.PuretreeError`
naming the partition (its number and rows).

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

from collections.abc import Callable, Sequence
from typing import Any, cast

import difflib
import inspect
import math

import attrs
import numpy as np

from .builder import ByTask, check_options
from .c45 import choose_option, collapse_unhelpful
from .c45_scan import J48_EPSILON, VALUE_TOLERANCE, Option, at_least, best_cut, known_gain, split_info
from .criteria import SCORES, GainRatio, ImpurityDecrease, resolve_score, score_task
from .data import as_dataset, category_key, encode_features, is_missing, labels_array
from .engine import check_bins
from .errors import DataError, ParameterError, PuretreeError
from .impurity import variance as impurity_variance
from .nodes import TESTS, Leaf, Node, Schema, Split
from .predict import predict as predict_rows
from .splits import TIE_TOLERANCE, subset_candidates, tie_first
from .tasks import CLASSIFICATION, REGRESSION
from .tree import Tree

__all__ = ["bin_edges", "cart", "cart_regressor", "id3", "c45", "predict", "HISTOGRAM_BYTES"]

#: Largest size (bytes) of one summed histogram (a batch of frontier nodes). Each partition's
#: task makes one of this size too, so a worker holds about (its partitions + 1) of them at a
#: level's peak, whatever the depth.
HISTOGRAM_BYTES = 16 * 2**20


def _dask() -> tuple[Any, Any, Any]:
    """dask, dask.array and dask.dataframe, or a clear error when the extra is not installed."""
    try:
        import dask
        import dask.array as da
        import dask.dataframe as dd
    except ImportError as exc:  # pragma: no cover - the test extra installs dask
        raise ParameterError(f"puretree.dask needs dask: pip install 'puretree[dask]' ({exc})") from None
    return dask, da, dd


def _in_partition(part: int, rows: tuple[int, int], fn: Callable[..., Any], *args: Any) -> Any:
    """``fn(*args)`` run on a worker; any failure becomes a PuretreeError naming the partition."""
    try:
        return fn(*args)
    except PuretreeError as exc:
        raise type(exc)(f"partition {part} (rows {rows[0]}..{rows[1] - 1}): {exc}") from None
    except Exception as exc:
        raise DataError(f"partition {part} (rows {rows[0]}..{rows[1] - 1}): {type(exc).__name__}: {exc}") from None


def _run(dask: Any, *work: Any) -> Any:
    """``dask.compute(*work)``; a failure outside the partitions' own code (a lost worker) becomes
    a PuretreeError naming the task, which names the partition."""
    try:
        return dask.compute(*work)
    except PuretreeError:
        raise
    except Exception as exc:
        raise DataError(f"a Dask task failed: {type(exc).__name__}: {exc}") from exc


def _persist(dask: Any, parts: list[Any]) -> list[Any]:
    try:
        return list(dask.persist(*parts))
    except PuretreeError:
        raise
    except Exception as exc:  # pragma: no cover - persist only schedules on a cluster
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


def _encode(frame: Any, schema: Schema) -> np.ndarray:
    """A frame partition encoded as the in-memory data is: numbers, category codes, NaN."""
    return encode_features(schema, frame)


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
    """Each value's bin number (:func:`puretree.engine.edge_bins`'s bins), column by column; a
    category's bin is its code (``edges`` None); a missing value (NaN) gets the bin
    ``missing``, past every feature's bins. A frame (``schema`` given) is encoded first."""
    if schema is not None:
        block = _encode(block, schema)
    _refuse_infinite(block)
    nan = np.isnan(block)
    if refuse_missing and nan.any():
        r, c = np.argwhere(nan)[0]
        raise DataError(f"row {int(r)} of the partition, column {int(c)}: missing value (missing='error' refuses them; use 'majority')")
    out = np.empty(block.shape, dtype=dtype)
    for j, e in enumerate(edges):
        if e is None:
            out[:, j] = np.where(nan[:, j], 0, block[:, j]).astype(dtype)
        else:
            out[:, j] = np.minimum(np.searchsorted(e, block[:, j], side="left"), len(e) - 1)
    out[nan] = missing
    return out


def _class_codes(block: np.ndarray, index: dict[Any, int]) -> np.ndarray:
    values, inverse = np.unique(block, return_inverse=True)
    return np.array([index[v] for v in values.tolist()], dtype=np.int32)[inverse.reshape(-1)]


def _root_ids(target: np.ndarray, weight: np.ndarray | None) -> np.ndarray:
    """Every row in the root (0), but a row of weight 0, which is no row (as in memory): -1."""
    out = np.zeros(len(target), dtype=np.int32)
    if weight is not None:
        out[weight == 0] = -1
    return out


def _row_stats(target: np.ndarray, weight: np.ndarray | None, rows: np.ndarray, k: int) -> np.ndarray:
    """The rows' statistics (:meth:`puretree.tasks.Task.row_statistics`): weighted one-hot class
    counts (``k`` classes), or ``(w, w*y, w*y**2)`` (``k == 0``: regression)."""
    w = np.ones(len(rows)) if weight is None else weight[rows]
    if k == 0:
        y = target[rows]
        return np.column_stack((w, w * y, w * y * y))
    out = np.zeros((len(rows), k))
    out[np.arange(len(rows)), target[rows]] = w
    return out


def _histogram(bins: np.ndarray, target: np.ndarray, weight: np.ndarray | None, node: np.ndarray, slot: np.ndarray, n_slots: int, n_bins: int, k: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The statistics ``(slot, feature, bin, channel)`` of the rows whose node has a slot in this
    batch: the channels are the statistics (``k`` class counts, or 3 for regression, ``k ==
    0``) and the number of rows; bin ``n_bins - 1`` holds the missing values. Regression adds
    each slot's smallest and largest target (a node whose targets are all equal is a leaf)."""
    mine = node >= 0
    s = np.full(len(node), -1, dtype=np.int64)
    s[mine] = slot[node[mine]]
    rows = np.flatnonzero(s >= 0)
    p = bins.shape[1]
    cells = n_slots * p * n_bins
    idx = ((s[rows, None] * p + np.arange(p)) * n_bins + bins[rows]).reshape(-1)  # row by row, p cells each
    if k and weight is None:
        # unweighted classes: integer counts in one bincount, exact; rows are their sum
        counts = np.bincount(idx * k + np.repeat(target[rows], p), minlength=cells * k).reshape(cells, k)
        H = np.concatenate((counts, counts.sum(axis=1, keepdims=True)), axis=1).astype(np.float64)
    else:
        stats = _row_stats(target, weight, rows, k)
        H = np.empty((cells, stats.shape[1] + 1))
        for c in range(stats.shape[1]):  # bincount adds in row order
            H[:, c] = np.bincount(idx, weights=np.repeat(stats[:, c], p), minlength=cells)
        H[:, -1] = np.bincount(idx, minlength=cells)
    H = H.reshape(n_slots, p, n_bins, -1)
    if k:
        return H, None, None
    lo, hi = np.full(n_slots, np.inf), np.full(n_slots, -np.inf)
    np.minimum.at(lo, s[rows], target[rows])
    np.maximum.at(hi, s[rows], target[rows])
    return H, lo, hi


def _root_histogram(bins: np.ndarray, target: np.ndarray, weight: np.ndarray | None, node: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """The root's statistics and row count (one bin, every row in it), and its targets' range."""
    one = np.zeros((len(node), 1), dtype=np.uint8)
    return _histogram(one, target, weight, node, np.zeros(1, dtype=np.int64), 1, 1, k)


def _merge(a: tuple[Any, Any, Any], b: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
    """Two partitions' histograms as one: statistics added, target ranges joined (a monoid)."""
    if a[1] is None:
        return a[0] + b[0], None, None
    return a[0] + b[0], np.minimum(a[1], b[1]), np.maximum(a[2], b[2])


def _move(bins: np.ndarray, node: np.ndarray, feature: np.ndarray, cut: np.ndarray, left: np.ndarray, right: np.ndarray, heavy: np.ndarray, missing: int, table_of: np.ndarray, dest: np.ndarray) -> np.ndarray:
    """Every row's node at the next level (-1: its node became a leaf). A threshold split sends
    a row left or right by its bin, a missing value to the heavier child (``heavy``: 0 left,
    1 right); a subset or multiway split (``table_of[g] >= 0``) sends it to the node
    ``dest[table_of[g], bin]`` (its missing bin names the heavier child)."""
    out = np.full(len(node), -1, dtype=np.int32)
    mine = np.flatnonzero(node >= 0)
    g = node[mine]
    b = bins[mine, feature[g]]
    goes_right = np.where(b == missing, heavy[g] == 1, b > cut[g])
    out[mine] = np.where(goes_right, right[g], left[g])
    t = table_of[g]
    by_table = np.flatnonzero(t >= 0)
    if len(by_table):
        out[mine[by_table]] = dest[t[by_table], b[by_table]]
    return out


def _root_instances(target: np.ndarray, weight: np.ndarray | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``missing="distribute"``: a partition's rows as instances ``(row, node, fraction)``, a
    row being in several nodes with fractions of its weight once a missing value has sent it
    down every branch; at the root every row of positive weight is one whole instance."""
    rows = np.arange(len(target)) if weight is None else np.flatnonzero(weight != 0)
    return rows, np.zeros(len(rows), dtype=np.int32), np.ones(len(rows))


def _instance_histogram(bins: np.ndarray, target: np.ndarray, weight: np.ndarray | None, inst: tuple[np.ndarray, np.ndarray, np.ndarray], slot: np.ndarray, n_slots: int, n_bins: int, k: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """:func:`_histogram` of the instances, each weighing its row's weight times its fraction
    (the rows channel counts instances, as the in-memory node counts its rows)."""
    rows, node, frac = inst
    return _histogram(bins[rows], target[rows], frac if weight is None else weight[rows] * frac, node, slot, n_slots, n_bins, k)


def _instance_root_histogram(bins: np.ndarray, target: np.ndarray, weight: np.ndarray | None, inst: tuple[np.ndarray, np.ndarray, np.ndarray], k: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    one = np.zeros((len(bins), 1), dtype=np.uint8)
    return _instance_histogram(one, target, weight, inst, np.zeros(1, dtype=np.int64), 1, 1, k)


def _move_instances(bins: np.ndarray, inst: tuple[np.ndarray, np.ndarray, np.ndarray], feature: np.ndarray, cut: np.ndarray, left: np.ndarray, right: np.ndarray, missing: int, table_of: np.ndarray, dest: np.ndarray, kids: np.ndarray, share: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The instances of the next level: a known value follows its branch (:func:`_move`); a
    missing one goes down every branch ``b`` of positive ``share[node, b]`` (the branch's part of
    the known weight) to node ``kids[node, b]``, its fraction multiplied by the share (C4.5)."""
    rows, node, frac = inst
    out = _move(bins[rows], node, feature, cut, left, right, np.zeros(len(feature), dtype=np.int8), missing, table_of, dest)
    absent = bins[rows, feature[node]] == missing
    out[absent] = -1
    keep = np.flatnonzero(out >= 0)
    at, b = np.nonzero((share[node] > 0) & (kids[node] >= 0) & absent[:, None])
    return (np.concatenate((rows[keep], rows[at])), np.concatenate((out[keep], kids[node[at], b])).astype(np.int32), np.concatenate((frac[keep], frac[at] * share[node[at], b])))


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


@attrs.frozen
class _Rules:
    """What decides a node's split on the client (the in-memory engine's rules)."""

    score: Any
    names: np.ndarray
    max_depth: int | None
    min_samples_split: float
    min_samples_leaf: float
    min_gain: float | None
    regression: bool
    variance: bool  # the variance decrease: scored by the engine's own formula
    categorical: np.ndarray  # per feature: whether it is categorical
    multiway: bool  # categorical splits: one branch per category (id3), else subsets (cart)
    n_categories: tuple[int, ...]  # per feature: its categories (0: numeric)


def _weight(stats: np.ndarray, rules: _Rules) -> np.ndarray:
    """The weight statistics hold (:meth:`puretree.tasks.Task.weight`): column 0, or the classes' sum."""
    return stats[..., 0] if rules.regression else stats.sum(axis=-1)


def _choose(H: np.ndarray, parents: np.ndarray, usable: list[np.ndarray], rules: _Rules) -> list[tuple[str, int, Any, float] | None]:
    """Each node's split from its histogram ``(feature, bin, channel)`` (the last bin: missing
    values; the last channel: rows): ``("threshold", feature, bin, score)``, ``("subset",
    feature, left categories, score)``, ``("multiway", feature, feature, score)`` or None.
    ``parents``: the nodes' statistics and rows; ``usable``: the categorical features each
    node may split on (not used by a multiway split above it).

    As the in-memory engine chooses: the best threshold of the numeric features, the best
    subset (:func:`_best_subset`, cart) or multiway split (:func:`_multiway_score`, id3) of the
    categorical ones, then the better of the two, the lower feature on a tie (scores within
    1e-12, relative), and ``min_gain``.
    """
    n = H.shape[0]
    numeric = _best_thresholds(H[:, ~rules.categorical], parents, rules)
    number_of = np.flatnonzero(~rules.categorical)
    out: list[tuple[str, int, Any, float] | None] = []
    for i in range(n):
        found: list[tuple[str, int, Any, float]] = []
        if numeric[i] is not None:
            j, b, score = numeric[i]  # type: ignore[misc]
            found.append(("threshold", int(number_of[j]), b, score))
        if rules.multiway:
            ways = [(f, hit) for f in np.flatnonzero(usable[i]).tolist() if (hit := _multiway_score(H[i, f], parents[i], rules, f)) is not None]
            if ways:
                f, score = ways[tie_first(np.array([h for _, h in ways]))]
                found.append(("multiway", f, f, score))
        subsets = [] if rules.multiway else [(f, sub) for f in np.flatnonzero(rules.categorical).tolist() if (sub := _best_subset(H[i, f], parents[i], rules, f)) is not None]
        if subsets:
            f, (score, codes) = subsets[tie_first(np.array([h[0] for _, h in subsets]))]
            found.append(("subset", f, codes, score))
        if not found:
            out.append(None)
            continue
        scores = np.array([c[3] for c in found])
        best = scores.max()
        tied = [c for c in found if c[3] >= best - TIE_TOLERANCE * max(1.0, abs(best))]
        pick = min(tied, key=lambda c: c[1])  # the lowest feature; the threshold first on one feature
        out.append(None if rules.min_gain is not None and not pick[3] > rules.min_gain else pick)
    return out


def _best_thresholds(H: np.ndarray, parents: np.ndarray, rules: _Rules) -> list[tuple[int, int, float] | None]:
    """Each node's best threshold over the numeric features' histograms ``H``: ``(feature
    among them, bin, score)`` or None.

    Candidates lie between consecutive non-empty bins; the left side is every known bin up to
    the cut. Scores as the engine's: the same call ``score(parent, children, names)`` (the
    variance decrease by the engine's formula), on the known rows of the feature when the node
    has a missing value in any numeric feature, then scaled by their share of the node's
    weight; NaN as -inf; the first (lowest) cut within tolerance of a feature's best, then the
    first feature.
    """
    from .splits import variance_decrease

    n, p, _, _ = H.shape
    C = np.cumsum(H[:, :, :-1], axis=2)  # the known bins, cumulated
    left_rows = C[..., -1]
    known_rows = left_rows[:, :, -1]
    known_sum = C[:, :, -1, :-1]  # (n, p, c)
    incomplete = np.asarray((H[:, :, -1, -1] > 0).any(axis=1))  # a missing value in the node, any numeric feature
    valid = (H[:, :, :-1, -1] > 0) & (left_rows < known_rows[:, :, None])
    if rules.min_samples_leaf > 1:
        valid &= (left_rows >= rules.min_samples_leaf) & (known_rows[:, :, None] - left_rows >= rules.min_samples_leaf)
    ni, fj, bb = np.nonzero(valid)  # ordered by node, feature, bin: groups are contiguous
    fs = np.full((n, p), -np.inf)
    fb = np.zeros((n, p), dtype=np.int64)
    if len(ni):
        left = C[ni, fj, bb, :-1]
        total = parents[:, :-1]
        parent = np.where(incomplete[ni, None], known_sum[ni, fj], total[ni])
        if rules.variance:
            s = variance_decrease(parent, left)
        else:
            children = np.empty((len(ni), 2, left.shape[1]))
            children[:, 0] = left
            children[:, 1] = parent - left if rules.regression else np.maximum(parent - left, 0.0)
            s = np.broadcast_to(np.asarray(rules.score(parent, children, rules.names[~rules.categorical][fj]), dtype=np.float64), (len(ni),))
        if incomplete.any():
            w, t = _weight(parent, rules), _weight(total, rules)[ni]
            with np.errstate(invalid="ignore", divide="ignore"):
                frac = np.where(t > 0, w / np.where(t > 0, t, 1.0), 0.0)
            s = np.where(incomplete[ni], s * frac, s)
        s = np.where(np.isnan(s), -np.inf, s)
        group = ni * p + fj
        g_start = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
        g_best = np.maximum.reduceat(s, g_start)
        g_of = np.repeat(np.arange(len(g_start)), np.diff(np.r_[g_start, len(group)]))
        tol = TIE_TOLERANCE * np.maximum(1.0, np.abs(np.where(np.isfinite(g_best), g_best, 0.0)))
        ok = np.flatnonzero(s >= (g_best - tol)[g_of])
        pick = ok[np.r_[True, g_of[ok][1:] != g_of[ok][:-1]]]
        fs[ni[pick], fj[pick]] = s[pick]
        fb[ni[pick], fj[pick]] = bb[pick]
    out: list[tuple[int, int, float] | None] = []
    for i in range(n):
        best = fs[i].max() if p else -np.inf
        if np.isneginf(best):
            out.append(None)
            continue
        j = int(np.argmax(fs[i] >= best - TIE_TOLERANCE * max(1.0, abs(best))))
        out.append((j, int(fb[i, j]), float(fs[i, j])))
    return out


@attrs.frozen
class _C45Rules:
    """What C4.5's choice needs beyond :class:`_Rules`: gain ratio (else gain), the gain's
    impurity, and the training rows (J48's many-valued attributes are compared with them)."""

    by_ratio: bool
    impurity: Any
    root_rows: float


def _c45_score(score: Any) -> tuple[bool, Any]:
    """Whether C4.5 maximises the gain ratio (else the gain), and the gain's impurity, as
    :class:`puretree.c45.C45Splits` reads its score; another score is refused."""
    if isinstance(score, GainRatio):
        return True, score.impurity
    if isinstance(score, ImpurityDecrease):
        return False, score.impurity
    raise ParameterError(f"c45 chooses splits by gain_ratio(impurity) or information_gain(impurity) (impurity_decrease); got {score!r}")


def _c45_choose(H: np.ndarray, parents: np.ndarray, usable: list[np.ndarray], rules: _Rules, edges: Sequence[np.ndarray | None], c45: _C45Rules) -> list[tuple[str, int, Any, float] | None]:
    """Each node's C4.5 split from its histogram ``(feature, bin, channel)`` (the last bin:
    missing values; the last channel: rows), as :class:`puretree.c45.C45Splits` chooses it on
    the binned values in memory (:func:`_c45_numeric`, :func:`_c45_categorical`, then the same
    :func:`puretree.c45.choose_option`): ``("threshold", feature, bin, score)``,
    ``("multiway", feature, feature, score)`` or None."""
    numeric = np.flatnonzero(~rules.categorical).tolist()
    out: list[tuple[str, int, Any, float] | None] = []
    for i in range(H.shape[0]):
        total = float(parents[i, :-1].sum())
        min_leaf = float(rules.min_samples_leaf)
        if total - 2 * min_leaf < -J48_EPSILON:
            out.append(None)
            continue
        n_classes = parents.shape[1] - 1
        categorical = np.flatnonzero(usable[i]).tolist()
        many = [j for j in categorical if rules.n_categories[j] >= 0.3 * c45.root_rows]
        all_many = not numeric and len(many) == len(categorical)
        options = [o for j in numeric if (o := _c45_numeric(H[i, j], cast("np.ndarray", edges[j]), j, total, n_classes, min_leaf, c45.impurity)) is not None]
        options += [o for j in categorical if (o := _c45_categorical(H[i, j], rules.n_categories[j], j, total, min_leaf, j in many and not all_many, c45.impurity)) is not None]
        chosen = choose_option(options, c45.by_ratio)
        if chosen is None or (rules.min_gain is not None and not chosen[1] > rules.min_gain):
            out.append(None)
        elif chosen[0].kind == "threshold":
            out.append(("threshold", chosen[0].feature, int(cast(float, chosen[0].threshold)), chosen[1]))
        else:
            out.append(("multiway", chosen[0].feature, chosen[0].feature, chosen[1]))
    return out


def _c45_numeric(h: np.ndarray, edges: np.ndarray, j: int, total: float, n_classes: int, min_leaf: float, impurity: Any) -> Option | None:
    """J48's best cut of numeric feature ``j`` from its histogram ``h`` (bin, channel), as
    :func:`puretree.c45_scan.numeric_option` finds it on the rows' binned values (each value
    its bin's upper edge): the sorted rows' cuts are the gaps between consecutive non-empty
    bins whose edges are more than 1e-5 apart, and the same sums give the same floats. The
    option's ``threshold`` is the bin left of the cut (its edge is the threshold)."""
    known = h[:-1]
    rows = known[:, -1]
    stats = known[:, :-1]
    n_known = float(rows.sum())
    known_parent = stats.sum(axis=0)
    known_weight = float(known_parent.sum())
    least = min(max(0.1 * known_weight / n_classes, min_leaf), 25.0)
    if known_weight - 2 * least < -J48_EPSILON or n_known < 2:
        return None
    present = np.flatnonzero(rows > 0)
    cuts = present[:-1][edges[present[:-1]] + VALUE_TOLERANCE < edges[present[1:]]]
    w_left = np.cumsum(stats.sum(axis=1))[cuts]
    cuts = cuts[at_least(w_left, least) & at_least(known_weight - w_left, least)]
    if len(cuts) == 0:
        return None
    left = np.cumsum(stats, axis=0)[cuts]
    gains = known_gain(known_parent, np.stack((left, known_parent - left), axis=-2), total, impurity)
    best, where = best_cut(gains)
    corrected = best - math.log2(len(cuts)) / total
    if where < 0 or corrected < J48_EPSILON:
        return None
    branches = np.stack((left[where], known_parent - left[where]))
    info = float(split_info(branches.sum(axis=1), total))
    return Option(j, corrected, corrected / info if info > 0 else 0.0, True, "threshold", threshold=float(cuts[where]), branches=branches)


def _c45_categorical(h: np.ndarray, m: int, j: int, total: float, min_leaf: float, many_values: bool, impurity: Any) -> Option | None:
    """J48's split of categorical feature ``j`` (one branch per category) from its histogram
    ``h``, as :func:`puretree.c45_scan.categorical_option` scores it."""
    per = h[:m, :-1]
    if np.count_nonzero(at_least(per.sum(axis=1), min_leaf)) < 2:
        return None
    gain = float(known_gain(per.sum(axis=0), per, total, impurity))
    info = float(split_info(per.sum(axis=1), total))
    return Option(j, gain, gain / info if info > 0 else 0.0, not many_values, "multiway", branches=per)


def _multiway_score(h: np.ndarray, parent: np.ndarray, rules: _Rules, f: int) -> float | None:
    """One node's score of a split with one branch per category of feature ``f`` (histogram
    ``h``: category, channel), or None, as the in-memory engine scores it: at least two
    categories present, each present one with ``min_samples_leaf`` rows, scored on the known
    rows (every category a child, empty ones too), scaled by their share of the weight when
    some are missing; not finite: no split."""
    m = rules.n_categories[f]
    per, rows = h[:m, :-1], h[:m, -1]
    present = rows > 0
    if present.sum() < 2 or (rows[present] < rules.min_samples_leaf).any():
        return None
    known = per[0].copy()
    for r in per[1:]:  # in category order, as the engine adds them
        known += r
    s = float(np.asarray(rules.score(known, per, np.asarray(rules.names[f])), dtype=np.float64))
    if h[-1, -1] > 0:  # missing values: the known share of the node's weight
        total = float(_weight(parent[:-1], rules))
        s = s * (float(_weight(known, rules)) / total if total > 0 else 0.0)
    return s if np.isfinite(s) else None


def _best_subset(h: np.ndarray, parent: np.ndarray, rules: _Rules, f: int) -> tuple[float, tuple[int, ...]] | None:
    """One node's best subset split of categorical feature ``f`` from its histogram ``h``
    (category, channel): ``(score, left categories)`` or None, as the in-memory engine finds it
    (:func:`puretree.splits.subset_candidates`' partitions of the present categories, scored on
    the known rows and scaled by their share of the weight when some are missing)."""
    m = rules.n_categories[f]
    rows = h[:m, -1]
    present = np.flatnonzero(rows > 0)
    if len(present) < 2:
        return None
    stats = h[present, :-1]
    known = stats[0].copy()
    for r in stats[1:]:  # in category order, as the engine adds them
        known += r
    masks = subset_candidates(stats, present, known, task=REGRESSION if rules.regression else CLASSIFICATION)
    left = masks.astype(np.float64) @ stats
    right = known - left
    if not rules.regression:
        np.maximum(right, 0.0, out=right)
    children = np.stack((left, right), axis=-2)
    s = np.broadcast_to(np.asarray(rules.score(known, children, np.asarray(rules.names[f])), dtype=np.float64), children.shape[:-2])
    if h[-1, -1] > 0:  # missing values: the known share of the node's weight
        total = float(_weight(parent[:-1], rules))
        s = s * (float(_weight(known, rules)) / total if total > 0 else 0.0)
    if rules.min_samples_leaf > 1:
        n_left = masks.astype(np.int64) @ rows[present]
        n_right = rows.sum() - n_left
        s = np.where((n_left >= rules.min_samples_leaf) & (n_right >= rules.min_samples_leaf), s, -np.inf)
    s = np.where(np.isnan(s), -np.inf, s)
    if np.isneginf(s).all():
        return None
    b = tie_first(s)
    return float(s[b]), tuple(int(c) for c in present[masks[b]])


def _branches(kind: str, test: Any, h: np.ndarray, rules: _Rules, spread: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """A split's branch for every bin of its feature's histogram ``h`` (bin, channel), the
    missing bin included, and its children's statistics and rows. Threshold: bins up to
    ``test`` go left (0); subset: the categories ``test`` go left; multiway: a branch per
    category. The missing values go to the heaviest branch by the known weight, the first on
    a tie (the engine's ``missing="majority"``), or (``spread``: C4.5's ``"distribute"``) down
    every branch with its ``share`` of the known weight, returned too. Each branch sums its own
    bins, so a class absent from a branch is exactly 0 there."""
    bins = np.arange(len(h) - 1)
    if kind == "threshold":
        branch, nb = (bins > test).astype(np.int64), 2
    elif kind == "subset":
        branch, nb = np.where(np.isin(bins, test), 0, 1), 2
    else:
        nb = rules.n_categories[test]
        branch = np.minimum(bins, nb - 1)  # bins past the categories hold no row
    children = np.zeros((nb, h.shape[1]))
    for b in range(nb):
        children[b] = h[:-1][branch == b].sum(axis=0)
    known = _weight(children[:, :-1], rules)
    heavy = int(np.argmax(known))
    share = np.zeros(nb)
    if h[-1, -1] > 0 and spread:  # C4.5's "distribute": every branch its share of the known weight
        share = known / known.sum()
        children[:, :-1] += share[:, None] * h[-1, :-1]
        children[share > 0, -1] += h[-1, -1]
    elif h[-1, -1] > 0:
        children[heavy] += h[-1]
    return np.append(branch, heavy), children, share


def _assemble(made: list[Any]) -> Node:
    """Nodes from the records (children have larger ids than their parent): a Leaf, or
    ``(feature, test, children's ids, statistics)``."""
    for g in range(len(made) - 1, -1, -1):
        rec = made[g]
        if not isinstance(rec, Leaf):
            f, test, kids, stats = rec
            made[g] = Split(f, test, tuple(made[c] for c in kids), stats)
            for c in kids:
                made[c] = None  # each node is referenced by its parent only
    return made[0]


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


def _options_known(options: dict[str, Any]) -> None:
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
) -> Tree:
    """The tree grown from ``X`` (a dask array or DataFrame, NaN for a missing
    value) and ``y`` (a dask array or Series of labels, or of numbers with
    ``task="regression"``, partitioned as ``X``), without gathering the data: categorical
    features split by subsets (:func:`cart`) or with one branch per category (``multiway``,
    :func:`id3`).

    ``bins``: the bin edges (:func:`bin_edges`); else they are computed with ``max_bins``
    (default 255). ``score`` is a score (a name of :data:`puretree.criteria.SCORES` or a score
    function, called on the client); by default Gini for classes and the variance decrease for
    regression, as :func:`puretree.cart`. ``sample_weight``: one non-negative weight per row, a
    dask array or Series (a row of weight 0 is no row). ``missing``: ``"majority"`` (a missing
    value goes down the heavier branch, :func:`puretree.cart`'s default) or ``"error"``. The
    other options mean what they mean for :func:`puretree.cart`; with the same edges the tree
    is the one ``puretree.cart(X, y, bins=edges, ...)`` grows from the same data in memory.
    ``histogram_bytes`` bounds one batch of the frontier's histograms.
    """
    dask, _, _ = _dask()
    opts = check_options(max_depth=max_depth, min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf, min_gain=min_gain, max_bins=max_bins, missing=missing)
    if missing == "distribute" and not c45:
        raise ParameterError("missing='distribute' sends a row down several branches with fractional weights; puretree.dask supports 'majority' and 'error' (not yet 'distribute')")
    if task not in ("classification", "regression"):
        raise ParameterError(f"task must be 'classification' or 'regression', got {task!r}")
    if bins is not None and max_bins is not None:
        raise ParameterError("give bins= (the bin edges) or max_bins= (compute them), not both")
    if not isinstance(histogram_bytes, int) or histogram_bytes < 1:
        raise ParameterError(f"histogram_bytes must be a positive integer, got {histogram_bytes!r}")
    regression = task == "regression"
    if c45 and regression:
        raise ParameterError("puretree.dask.c45 grows classification trees; C4.5 on numeric targets is not yet supported on Dask (use puretree.dask.cart_regressor)")
    chosen = _task_score(score, REGRESSION if regression else CLASSIFICATION)
    by_ratio, impurity = _c45_score(chosen) if c45 else (False, None)
    parts = _inputs(X, y, sample_weight)
    names = list(feature_names) if feature_names is not None else parts.names
    assert parts.y is not None  # _inputs requires the labels
    weights = parts.w if parts.w is not None else [None] * len(parts.rows)
    if parts.w is not None:
        weights = _persist(dask, _tasks(dask, parts, _check_weights, parts.w))
    categories = _categories(dask, parts)
    if regression:
        schema = _schema(np.zeros(0), parts, names, task, categories)
        target = _persist(dask, _tasks(dask, parts, _check_targets, parts.y))
        k = 0
    else:
        labels = _run(dask, _tasks(dask, parts, _labels, parts.y))[0]  # one pass for the labels
        schema = _schema(np.unique(np.concatenate(labels)), parts, names, task, categories)
        k = len(schema.classes)
        target = _persist(dask, _tasks(dask, parts, _class_codes, parts.y, shared=({c: i for i, c in enumerate(schema.classes)},)))
    edges = _bin_edges(parts, opts["max_bins"] or 255) if bins is None else check_bins(bins, schema)
    n_categories = tuple(len(f.categories) if not f.is_numeric else 0 for f in schema.features)
    n_bins = max(len(e) if e is not None else c for e, c in zip(edges, n_categories)) + 1  # the last bin: missing values
    dtype = np.uint8 if n_bins <= 256 else np.uint16 if n_bins <= 65536 else np.uint32
    binned = _persist(dask, _tasks(dask, parts, _bin_block, parts.X, shared=(edges, dtype, n_bins - 1, missing == "error", schema if parts.categorical else None)))
    spread = c45 and missing == "distribute"  # rows as fractional instances (C4.5)
    node = _persist(dask, _tasks(dask, parts, _root_instances if spread else _root_ids, target, weights))
    root, lo, hi = _run(dask, _total(dask, _tasks(dask, parts, _instance_root_histogram if spread else _root_histogram, binned, target, weights, node, shared=(k,)), _merge))[0]
    root = root[0, 0, 0]
    if root[-1] == 0:
        raise DataError("every sample weight is zero")
    if not np.isfinite(root).all():
        raise DataError("the statistics of the rows (weights, or targets' weighted squares) overflow a double: scale them down")
    variance = isinstance(chosen, ImpurityDecrease) and chosen.impurity is impurity_variance
    rules = _Rules(chosen, np.asarray(schema.feature_names, dtype=object).astype(str), opts["max_depth"], opts["min_samples_split"], opts["min_samples_leaf"], opts["min_gain"], regression, variance, np.array([not f.is_numeric for f in schema.features]), multiway, n_categories)
    per_node = parts.n_features * n_bins * ((k or 3) + 1) * 8  # the statistics' channels, and rows
    batch = max(1, histogram_bytes // per_node)
    made: list[Any] = [None]
    frontier = [0]  # the records' ids of the level's nodes; a row's node id indexes this list
    counts = [root]  # each node's statistics, then its rows
    usable = [rules.categorical.copy()]  # each node's categorical features not used by a multiway split above
    depth = 0
    while frontier:
        open_ = [i for i, c in enumerate(counts) if not _is_leaf(c, depth, rules)]
        for i, c in enumerate(counts):
            made[frontier[i]] = Leaf(c[:-1])
        splits: dict[int, tuple[str, int, Any, np.ndarray, np.ndarray, np.ndarray]] = {}
        for a in range(0, len(open_), batch):
            some = open_[a : a + batch]
            slot = np.full(len(frontier), -1, dtype=np.int64)
            slot[some] = np.arange(len(some))
            H, lo, hi = _run(dask, _total(dask, _tasks(dask, parts, _instance_histogram if spread else _histogram, binned, target, weights, node, shared=(slot, len(some), n_bins, k)), _merge))[0]
            parents = np.stack([counts[i] for i in some])
            chosen_splits = _c45_choose(H, parents, [usable[i] for i in some], rules, edges, _C45Rules(by_ratio, impurity, float(root[-1]))) if c45 else _choose(H, parents, [usable[i] for i in some], rules)
            for s, (i, found) in enumerate(zip(some, chosen_splits)):
                if found is not None and not (regression and lo[s] == hi[s]):  # regression: equal targets, a leaf
                    kind, j, test, _ = found
                    splits[i] = (kind, j, test, *_branches(kind, test, H[s, j], rules, spread))
            del H
        if not splits:
            break
        n = len(frontier)
        feature, cut, heavy = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int8)
        left, right = np.full(n, -1, dtype=np.int32), np.full(n, -1, dtype=np.int32)
        table_of = np.full(n, -1, dtype=np.int64)
        tables: list[np.ndarray] = []
        widest = max(len(v[4]) for v in splits.values())
        kids, shares = np.full((n, widest), -1, dtype=np.int32), np.zeros((n, widest))  # distribute: where a missing value goes
        next_frontier: list[int] = []
        next_counts: list[np.ndarray] = []
        next_usable: list[np.ndarray] = []
        for i in sorted(splits):
            kind, j, test, branch_of_bin, kids_stats, share = splits[i]
            g = len(made)
            made.extend([None] * len(kids_stats))
            ids = []
            for b, st in enumerate(kids_stats):
                if st[-1] > 0:
                    ids.append(len(next_frontier))
                    next_frontier.append(g + b)
                    next_counts.append(st)
                    next_usable.append(usable[i] if kind != "multiway" else np.where(np.arange(len(usable[i])) == j, False, usable[i]))
                else:  # a category no row reached: a leaf of zero statistics, as in memory
                    ids.append(-1)
                    made[g + b] = Leaf(st[:-1])
            kids[i, : len(ids)], shares[i, : len(share)] = ids, share
            if kind == "threshold":
                feature[i], cut[i], heavy[i], left[i], right[i] = j, test, branch_of_bin[-1], ids[0], ids[1]
                test = TESTS[kind](float(cast("np.ndarray", edges[j])[test]))  # the cut: an edge
            else:
                feature[i], table_of[i] = j, len(tables)
                tables.append(np.array(ids, dtype=np.int32)[branch_of_bin])
                test = TESTS[kind](test if kind == "subset" else len(kids_stats))  # the left categories, or the branches
            made[frontier[i]] = (j, test, range(g, g + len(kids_stats)), counts[i][:-1])
        dest = np.stack(tables) if tables else np.zeros((0, n_bins), dtype=np.int32)
        if spread:
            node = _persist(dask, _tasks(dask, parts, _move_instances, binned, node, shared=(feature, cut, left, right, n_bins - 1, table_of, dest, kids, shares)))
        else:
            node = _persist(dask, _tasks(dask, parts, _move, binned, node, shared=(feature, cut, left, right, heavy, n_bins - 1, table_of, dest)))
        frontier, counts, usable = next_frontier, next_counts, next_usable
        depth += 1
    tree = Tree(_assemble(made), schema, missing)
    impurity = getattr(chosen, "impurity", None)
    return attrs.evolve(tree, criterion=getattr(impurity, "__name__", None))


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


def cart(X: Any, y: Any, **options: Any) -> Tree:
    """A CART tree (binary splits: thresholds on numeric features, subsets of categories) grown
    from data on Dask workers, without gathering it: ``X`` a dask array or DataFrame, ``y`` a
    dask array or Series of labels (numbers with ``task="regression"``) partitioned as ``X``.

    Options (keyword-only): ``bins`` (the edges, :func:`bin_edges`) or ``max_bins`` (computes
    them, default 255); ``score`` (default Gini, the variance decrease for regression);
    ``task``; ``sample_weight`` (a dask array or Series, one non-negative weight per row);
    ``missing`` (``"majority"``, the default, or ``"error"``); ``max_depth``,
    ``min_samples_split``, ``min_samples_leaf``, ``min_gain``, ``feature_names``, as for
    :func:`puretree.cart`; ``histogram_bytes`` (default :data:`HISTOGRAM_BYTES`) bounds one
    batch of the frontier's histograms. See :func:`_grow`. With the same edges the tree is
    the one ``puretree.cart(X, y, bins=edges, ...)`` grows in memory.
    """
    _options_known(options)
    return _grow(X, y, False, **options)


def id3(X: Any, y: Any, *, score: Any = ByTask("information_gain", "variance"), **options: Any) -> Tree:
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


def c45(X: Any, y: Any, *, score: Any = ByTask("gain_ratio", "variance"), min_samples_leaf: float = 2, missing: str = "distribute", collapse: bool = True, threshold: str = "midpoint", **options: Any) -> Tree:
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


def cart_regressor(X: Any, y: Any, **options: Any) -> Tree:
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


def _is_leaf(counts: np.ndarray, depth: int, rules: _Rules) -> bool:
    """A node is a leaf before any split is searched: too few rows, at max_depth, or (classes)
    pure; a regression node whose targets are all equal is found a leaf by its histogram pass."""
    if counts[-1] < rules.min_samples_split or (rules.max_depth is not None and depth >= rules.max_depth):
        return True
    return not rules.regression and bool(np.count_nonzero(counts[:-1]) <= 1)


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
