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
   (``uint8`` for up to 256 bins) and kept on the workers (persisted), with the class codes and
   each row's node id (an ``int32`` array per partition, replaced at every level). For each level,
   every partition counts its rows into a histogram ``(node, feature, bin, class)`` for the open
   nodes of the frontier; the histograms are added pairwise on the workers (a tree of sums) and
   only the total comes to the client, which chooses every node's split; a map over the
   partitions then moves each row to its child. A frontier whose histograms would exceed
   ``histogram_bytes`` is processed in batches of nodes, so memory stays bounded however wide
   (or deep) the tree grows.
3. **Prediction** (:func:`predict`): the library's own prediction, partition by partition.

**Equality.** The client scores every node's candidate thresholds with the same score function
and the same rules as the in-memory engine's histogram mode: candidates between consecutive
non-empty bins; ``min_samples_leaf`` and ``min_samples_split`` count rows; a node is a leaf
when pure, below ``min_samples_split`` rows, at ``max_depth``, without a candidate, or when its
best score is not above ``min_gain``; ties (scores within 1e-12, relative) go to the lowest
threshold of a feature, then to the lowest feature. Class counts are integers, summed exactly,
so with the same edges the tree is equal (``==``) to ``puretree.cart(X, y, bins=edges)``.

**Not yet**: regression, sample and class weights, missing values (refused, naming the
partition) and categorical features (a dask frame must hold numbers only).

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

import attrs
import numpy as np

from .builder import check_options
from .criteria import resolve_score, score_task
from .data import as_dataset, labels_array
from .engine import assemble_arrays, check_bins
from .errors import DataError, ParameterError, PuretreeError
from .nodes import Leaf, Node, Schema, Tree
from .predict import predict as predict_rows
from .splits import TIE_TOLERANCE

__all__ = ["bin_edges", "cart", "predict", "HISTOGRAM_BYTES"]

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
    """The data as aligned partitions: row blocks of X (all columns) and of y, their row ranges."""

    X: list[Any]
    y: list[Any] | None
    rows: list[tuple[int, int]]
    names: list[str] | None
    n_features: int


def _inputs(X: Any, y: Any = None) -> _Parts:
    dask, da, dd = _dask()
    names = None
    if isinstance(X, dd.DataFrame):
        names = [str(c) for c in X.columns]
        Xa = X.to_dask_array(lengths=True)
    elif isinstance(X, da.Array):
        Xa = X
    else:
        raise ParameterError(f"X must be a dask array or a dask DataFrame, got {type(X).__name__} (use puretree.cart for data in memory)")
    if Xa.ndim != 2:
        raise DataError(f"X must be two-dimensional (rows x features), got {Xa.ndim} dimensions")
    if Xa.dtype.kind not in "iuf":
        raise DataError(f"X holds {Xa.dtype}; puretree.dask grows on numeric features only (categorical features: not yet)")
    if any(np.isnan(c) for c in Xa.chunks[0]):
        Xa = Xa.compute_chunk_sizes()
    Xa = Xa.astype(np.float64).rechunk({1: -1})
    sizes = [int(c) for c in Xa.chunks[0]]
    bounds = np.concatenate(([0], np.cumsum(sizes))).tolist()
    rows = [(bounds[i], bounds[i + 1]) for i in range(len(sizes))]
    y_parts = None
    if y is not None:
        if isinstance(y, dd.DataFrame):
            if len(y.columns) != 1:
                raise DataError(f"y must be one column, got a frame of {len(y.columns)}")
            y = y[y.columns[0]]
        if isinstance(y, dd.Series):
            ya = y.to_dask_array(lengths=True)
        elif isinstance(y, da.Array):
            ya = y
        else:
            raise ParameterError(f"y must be a dask array or Series, got {type(y).__name__}")
        if ya.ndim != 1:
            raise DataError(f"y must be one-dimensional, got {ya.ndim} dimensions")
        if any(np.isnan(c) for c in ya.chunks[0]):
            ya = ya.compute_chunk_sizes()
        if ya.shape[0] != Xa.shape[0]:
            raise DataError(f"X has {Xa.shape[0]} rows but y has {ya.shape[0]} labels")
        y_parts = list(ya.rechunk((tuple(sizes),)).to_delayed().ravel())
    return _Parts(list(Xa.to_delayed().ravel()), y_parts, rows, names, int(Xa.shape[1]))


# -- partition tasks (run on the workers) ------------------------------------------------


def _column_values(block: np.ndarray, max_bins: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Per column: its distinct values (at most ``max_bins + 1``) and a quantile sketch, the
    values at ``8 * max_bins`` evenly spaced ranks with the number of rows each stands for
    (its own and those below it down to the previous one). Refuses NaN and infinities."""
    bad = np.argwhere(~np.isfinite(block))
    if len(bad):
        r, c = bad[0]
        what = "a missing value (NaN)" if np.isnan(block[r, c]) else f"the value {float(block[r, c])!r}"
        raise DataError(f"row {int(r)} of the partition, column {int(c)}: {what}; puretree.dask needs finite numbers (missing values: not yet)")
    n = block.shape[0]
    g = min(n, 8 * max_bins)
    ranks = (np.arange(1, g + 1) * n) // g - 1  # the last rank is the largest value
    out = []
    for j in range(block.shape[1]):
        column = np.sort(block[:, j])
        distinct = column[np.r_[True, column[1:] != column[:-1]]] if n else column
        out.append((distinct[: max_bins + 1], column[ranks], np.diff(np.r_[-1, ranks])))
    return out


def _labels(block: np.ndarray) -> np.ndarray:
    if block.dtype.kind == "f" and np.isnan(block).any():
        raise DataError(f"row {int(np.flatnonzero(np.isnan(block))[0])} of the partition: missing label (NaN)")
    return np.unique(block)


def _bin_block(block: np.ndarray, edges: tuple[np.ndarray, ...], dtype: Any) -> np.ndarray:
    """Each value's bin number (:func:`puretree.engine.edge_bins`'s bins), column by column."""
    out = np.empty(block.shape, dtype=dtype)
    for j, e in enumerate(edges):
        out[:, j] = np.minimum(np.searchsorted(e, block[:, j], side="left"), len(e) - 1)
    return out


def _class_codes(block: np.ndarray, index: dict[Any, int]) -> np.ndarray:
    values, inverse = np.unique(block, return_inverse=True)
    return np.array([index[v] for v in values.tolist()], dtype=np.int32)[inverse.reshape(-1)]


def _class_counts(codes: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(codes, minlength=k).astype(np.int64)


def _root_ids(codes: np.ndarray) -> np.ndarray:
    return np.zeros(len(codes), dtype=np.int32)


def _histogram(bins: np.ndarray, codes: np.ndarray, node: np.ndarray, slot: np.ndarray, n_slots: int, n_bins: int, k: int) -> np.ndarray:
    """Class counts ``(slot, feature, bin, class)`` of the rows whose node has a slot in this batch."""
    mine = node >= 0
    s = np.full(len(node), -1, dtype=np.int64)
    s[mine] = slot[node[mine]]
    rows = np.flatnonzero(s >= 0)
    p = bins.shape[1]
    idx = (s[rows, None] * p + np.arange(p)) * n_bins + bins[rows]
    idx = idx * k + codes[rows, None]
    return np.bincount(idx.reshape(-1), minlength=n_slots * p * n_bins * k).reshape(n_slots, p, n_bins, k)


def _move(bins: np.ndarray, node: np.ndarray, feature: np.ndarray, cut: np.ndarray, left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Every row's node at the next level (-1: its node became a leaf)."""
    out = np.full(len(node), -1, dtype=np.int32)
    mine = np.flatnonzero(node >= 0)
    g = node[mine]
    goes_right = bins[mine, feature[g]] > cut[g]
    out[mine] = np.where(goes_right, right[g], left[g])
    return out


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


def _total(dask: Any, values: list[Any]) -> Any:
    """The sum of delayed arrays, added pairwise on the workers (a tree of additions)."""
    add = dask.delayed(np.add, pure=True)
    while len(values) > 1:
        values = [add(values[i], values[i + 1]) if i + 1 < len(values) else values[i] for i in range(0, len(values), 2)]
    return values[0]


def _edges_from(summaries: list[list[tuple[np.ndarray, np.ndarray, np.ndarray]]], max_bins: int) -> tuple[np.ndarray, ...]:
    """Each column's edges from the partitions' summaries: its distinct values when there are at
    most ``max_bins``, else the merged sketches' quantiles at ``i / max_bins`` and the maximum."""
    out = []
    for j in range(len(summaries[0])):
        distinct = np.unique(np.concatenate([s[j][0] for s in summaries]))
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


def bin_edges(X: Any, *, max_bins: int = 255) -> tuple[np.ndarray, ...]:
    """The bins of every column of ``X`` (a dask array or DataFrame of numbers), computed on the
    workers: one sorted float array of upper bin edges per column, at most ``max_bins`` each.

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


def _bin_edges(parts: _Parts, max_bins: int) -> tuple[np.ndarray, ...]:
    dask, _, _ = _dask()
    summaries = _run(dask, _tasks(dask, parts, _column_values, parts.X, shared=(max_bins,)))[0]
    return _edges_from(summaries, max_bins)


@attrs.frozen
class _Rules:
    """What decides a node's split on the client (the in-memory engine's rules)."""

    score: Any
    names: np.ndarray
    edges: tuple[np.ndarray, ...]
    max_depth: int | None
    min_samples_split: float
    min_samples_leaf: float
    min_gain: float | None


def _choose(H: np.ndarray, counts: np.ndarray, rules: _Rules) -> list[tuple[int, int, float] | None]:
    """Each node's split from its histogram ``(feature, bin, class)``: ``(feature, bin, score)`` or None.

    Candidates lie between consecutive non-empty bins; the left side is every bin up to the
    cut. Scores as the engine's: the same call ``score(parent, children, names)``, NaN as
    -inf, the first (lowest) cut within tolerance of a feature's best, then the first feature.
    """
    n, p, nb, k = H.shape
    C = np.cumsum(H, axis=2)
    left_rows = C.sum(axis=-1)
    total = counts.sum(axis=-1)
    valid = (H.sum(axis=-1) > 0) & (left_rows < total[:, None, None])
    if rules.min_samples_leaf > 1:
        valid &= (left_rows >= rules.min_samples_leaf) & (total[:, None, None] - left_rows >= rules.min_samples_leaf)
    ni, fj, bb = np.nonzero(valid)  # ordered by node, feature, bin: groups are contiguous
    fs = np.full((n, p), -np.inf)
    fb = np.zeros((n, p), dtype=np.int64)
    if len(ni):
        left = C[ni, fj, bb].astype(np.float64)
        parent = counts[ni]
        children = np.empty((len(ni), 2, k))
        children[:, 0] = left
        children[:, 1] = np.maximum(parent - left, 0.0)
        s = np.broadcast_to(np.asarray(rules.score(parent, children, rules.names[fj]), dtype=np.float64), (len(ni),))
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
        best = fs[i].max()
        if np.isneginf(best):
            out.append(None)
            continue
        j = int(np.argmax(fs[i] >= best - TIE_TOLERANCE * max(1.0, abs(best))))
        if rules.min_gain is not None and not fs[i, j] > rules.min_gain:
            out.append(None)
            continue
        out.append((j, int(fb[i, j]), float(fs[i, j])))
    return out


def _assemble(made: list[Any]) -> Node:
    """Nodes from the records (children have larger ids than their parent, the two children of
    a split consecutive), through the arrays the level-wise engine assembles its kernel's trees
    from: a threshold split is the engine's artefact, not one more kind dispatch here."""
    n = len(made)
    feature, threshold, child = np.full(n, -1, dtype=np.int64), np.zeros(n), np.full(n, -1, dtype=np.int64)
    stats: list[Any] = [None] * n
    for g, rec in enumerate(made):
        if isinstance(rec, Leaf):
            stats[g] = rec.stats
        else:
            feature[g], threshold[g], child[g], _, stats[g] = rec
    return assemble_arrays(feature, threshold, child, np.array(stats, dtype=np.float64))


def _schema(classes: np.ndarray, n_features: int, names: list[str] | None) -> Schema:
    """The schema the in-memory ``cart`` gives data with these labels and features."""
    return as_dataset(np.zeros((len(classes), n_features)), classes, feature_names=names).schema


def cart(
    X: Any,
    y: Any,
    *,
    bins: Any = None,
    max_bins: int | None = None,
    score: Any = "gini",
    max_depth: int | None = None,
    min_samples_split: float = 2,
    min_samples_leaf: float = 1,
    min_gain: float | None = None,
    feature_names: Sequence[str] | None = None,
    histogram_bytes: int = HISTOGRAM_BYTES,
) -> Tree:
    """A CART classification tree grown from ``X`` (a dask array or DataFrame of numbers) and
    ``y`` (a dask array or Series of labels, partitioned as ``X``), without gathering the data.

    ``bins``: the bin edges (:func:`bin_edges`); else they are computed with ``max_bins``
    (default 255). ``score`` is a classification score (a name of
    :data:`puretree.criteria.SCORES` or a score function, called on the client). The other
    options mean what they mean for :func:`puretree.cart`; with the same edges the tree is equal
    to ``puretree.cart(X, y, bins=edges, ...)`` on the same data in memory.
    ``histogram_bytes`` bounds one batch of the frontier's histograms.
    """
    dask, _, _ = _dask()
    opts = check_options(max_depth=max_depth, min_samples_split=min_samples_split, min_samples_leaf=min_samples_leaf, min_gain=min_gain, max_bins=max_bins)
    if bins is not None and max_bins is not None:
        raise ParameterError("give bins= (the bin edges) or max_bins= (compute them), not both")
    if not isinstance(histogram_bytes, int) or histogram_bytes < 1:
        raise ParameterError(f"histogram_bytes must be a positive integer, got {histogram_bytes!r}")
    parts = _inputs(X, y)
    names = list(feature_names) if feature_names is not None else parts.names
    chosen = resolve_score(score)
    task = score_task(chosen)
    if task is not None and task.is_regression:
        raise ParameterError(f"the criterion {score!r} is for numeric targets; puretree.dask grows classification trees (regression: not yet)")
    assert parts.y is not None  # _inputs requires the labels
    # one pass for the labels, and the edges' pass when they are not given
    labels = _run(dask, _tasks(dask, parts, _labels, parts.y))[0]
    classes = np.unique(np.concatenate(labels))
    schema = _schema(classes, parts.n_features, names)
    if schema.is_regression:
        raise ParameterError("puretree.dask grows classification trees only (regression: not yet)")
    # Every feature is numeric here (a Dask array of numbers), so every entry is an array.
    edges = cast("tuple[np.ndarray, ...]", _bin_edges(parts, opts["max_bins"] or 255) if bins is None else check_bins(bins, schema))
    k = len(schema.classes)
    n_bins = max(len(e) for e in edges)
    dtype = np.uint8 if n_bins <= 256 else np.uint16 if n_bins <= 65536 else np.uint32
    index = {c: i for i, c in enumerate(schema.classes)}
    binned = _persist(dask, _tasks(dask, parts, _bin_block, parts.X, shared=(edges, dtype)))
    codes = _persist(dask, _tasks(dask, parts, _class_codes, parts.y, shared=(index,)))
    node = _persist(dask, _tasks(dask, parts, _root_ids, codes))
    root = _run(dask, _total(dask, _tasks(dask, parts, _class_counts, codes, shared=(k,))))[0]
    rules = _Rules(chosen, np.asarray(schema.feature_names, dtype=object).astype(str), edges, opts["max_depth"], opts["min_samples_split"], opts["min_samples_leaf"], opts["min_gain"])
    per_node = parts.n_features * n_bins * k * 8
    batch = max(1, histogram_bytes // per_node)
    made: list[Any] = [None]
    frontier = [0]  # the records' ids of the level's nodes; a row's node id indexes this list
    counts = [root.astype(np.float64)]
    depth = 0
    while frontier:
        open_ = [i for i, c in enumerate(counts) if not _is_leaf(c, depth, rules)]
        for i, c in enumerate(counts):
            made[frontier[i]] = Leaf(c)
        splits: dict[int, tuple[int, int, np.ndarray]] = {}
        for a in range(0, len(open_), batch):
            some = open_[a : a + batch]
            slot = np.full(len(frontier), -1, dtype=np.int64)
            slot[some] = np.arange(len(some))
            H = _run(dask, _total(dask, _tasks(dask, parts, _histogram, binned, codes, node, shared=(slot, len(some), n_bins, k))))[0]
            for s, (i, found) in enumerate(zip(some, _choose(H, np.stack([counts[i] for i in some]), rules))):
                if found is not None:
                    j, b, _ = found
                    splits[i] = (j, b, H[s, j, : b + 1].sum(axis=0).astype(np.float64))
            del H
        if not splits:
            break
        n = len(frontier)
        feature, cut = np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64)
        left, right = np.full(n, -1, dtype=np.int32), np.full(n, -1, dtype=np.int32)
        next_frontier: list[int] = []
        next_counts: list[np.ndarray] = []
        for i in sorted(splits):
            j, b, lc = splits[i]
            feature[i], cut[i] = j, b
            left[i], right[i] = len(next_frontier), len(next_frontier) + 1
            g = len(made)
            made.extend([None, None])
            made[frontier[i]] = (j, float(edges[j][b]), g, g + 1, counts[i])
            next_frontier += [g, g + 1]
            next_counts += [lc, np.maximum(counts[i] - lc, 0.0)]
        node = _persist(dask, _tasks(dask, parts, _move, binned, node, shared=(feature, cut, left, right)))
        frontier, counts = next_frontier, next_counts
        depth += 1
    tree = Tree(_assemble(made), schema, "majority")
    impurity = getattr(chosen, "impurity", None)
    return attrs.evolve(tree, criterion=getattr(impurity, "__name__", None))


def _is_leaf(counts: np.ndarray, depth: int, rules: _Rules) -> bool:
    """A node is a leaf before any split is searched: pure, too few rows, or at max_depth."""
    return bool(np.count_nonzero(counts) <= 1 or counts.sum() < rules.min_samples_split or (rules.max_depth is not None and depth >= rules.max_depth))


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
