"""Histogram gradient boosting on Dask workers: :func:`puretree.dask.hist_gradient_boosting`.

The stage trees are grown by the in-memory fit's own grower
(:class:`puretree.hist_gradient_boosting.Grower`: its best-first loop, split search, categorical
rule and leaf values) on the client, with the rows on the workers: each partition keeps its
bin numbers, targets, weights and raw scores, computes its rows' gradients, parts its rows of a
node, and adds its rows into a node's histogram. Only histograms, row counts and leaf values
travel; no worker holds more than its partitions.

Why the model is the in-memory one (``==``, bit for bit) from the same bin edges:

- every row's gradient, hessian, target and raw score is computed row by row with the same
  numpy expressions (:func:`~puretree.hist_gradient_boosting.stage_targets`), so a partition's
  rows get the floats the in-memory fit gives them;
- a histogram cell's float sum depends on the order of its additions, and the in-memory fit
  adds a node's rows in row order from 0.0 (the compiled loop, or numpy's ``bincount``). The
  partitions therefore add one after the other, in row order: partition ``i`` receives the
  histogram of partitions ``0..i-1`` and adds its own rows into it (a chain of small tasks; a
  histogram is features x bins x 4 floats). Rounding the gradients to a grid does not make the
  sums free of their order: the compiled loop sums ``h * t`` and ``h * t * t`` with ``t =
  -g / h``, products that leave any grid;
- the initial score's sums are :func:`math.fsum`'s (exact, rounded once,
  :func:`~puretree.hist_gradient_boosting.init_sums`): each partition sends its sums as exact
  expansions (floats whose exact sum is its own), and their ``fsum`` is the whole data's;
- row counts are integers; the split search, on the client, is the in-memory code.

So the histogram pass runs on one partition at a time (two workers do not halve it); the
gradients, the rows' partition and the raw scores' update run on all partitions at once.
Early stopping would need the in-memory fit's random validation split of the rows: it is
refused (:class:`~puretree.errors.ParameterError`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from .boosted import Boosted, tree_schema
from .errors import DataError
from .growth.histograms import compiled_loops
from .hist_gradient_boosting import Grower, boosted_model, initial_scores, stage_targets
from .nodes import Schema
from .tree import Tree

__all__ = ["Runner", "boost", "exact_terms"]


class Runner(Protocol):
    """How the booster runs tasks on the partitions (:mod:`puretree.dask` provides it): each
    ``columns[j][i]`` is partition ``i``'s block (a persisted value), ``shared`` goes to every task."""

    def each(self, fn: Callable[..., Any], *columns: Sequence[Any], shared: tuple[Any, ...] = ()) -> list[Any]:
        """``fn`` on every partition, its results kept on the workers (persisted)."""

    def gather(self, fn: Callable[..., Any], *columns: Sequence[Any], shared: tuple[Any, ...] = ()) -> list[Any]:
        """``fn`` on every partition, its results brought to the client."""

    def chain(self, fn: Callable[..., Any], *columns: Sequence[Any], shared: tuple[Any, ...] = ()) -> Any:
        """``fn(previous, ...)`` on partition 0, 1, ... in order, ``previous`` the result of the
        partition before (None for the first); the last result, brought to the client."""


# -- partition tasks (run on the workers) ------------------------------------------------


def exact_terms(values: np.ndarray) -> list[float]:
    """Floats whose exact sum is the exact sum of ``values`` (each :func:`math.fsum` of what is
    left), so that ``fsum`` of several blocks' terms is ``fsum`` of all their values.

    >>> v = np.array([1e16, 1.0, -1e16, 3.0, 1e-3])
    >>> terms = exact_terms(v)
    >>> math.fsum(terms) == math.fsum(v), math.fsum(exact_terms(v[:2]) + exact_terms(v[2:])) == math.fsum(v)
    (True, True)
    """
    terms: list[float] = []
    while True:
        rest = math.fsum(np.concatenate((values, -np.array(terms, dtype=np.float64))).tolist())
        if rest == 0.0:
            return terms
        terms.append(rest)


def _weights(w: np.ndarray | None, n: int) -> np.ndarray:
    return np.ones(n) if w is None else w


def _init_terms(y: np.ndarray, w: np.ndarray | None, loss: str, n_classes: int) -> list[list[float]]:
    """This partition's :func:`~puretree.hist_gradient_boosting.init_sums`, as exact terms (its
    rows of positive weight, as the in-memory fit's)."""
    w = _weights(w, len(y))
    keep = w > 0
    y, w = y[keep], w[keep]
    if loss == "squared_error":
        return [exact_terms(y * w), exact_terms(w)]
    return [exact_terms(w[y == c]) for c in range(n_classes)] + [exact_terms(w)]


def _missing_in(bins: np.ndarray, features: tuple[int, ...], missing: int) -> list[bool]:
    """Whether each of ``features`` has a missing value in this partition."""
    return [bool((bins[:, f] == missing).any()) for f in features]


def _start(y: np.ndarray, init: np.ndarray) -> np.ndarray:
    """The raw scores of the partition's rows before the first stage."""
    return np.tile(init, (len(y), 1))


def _targets(y: np.ndarray, raw: np.ndarray, w: np.ndarray | None, loss: str, n_classes: int) -> list[tuple[np.ndarray, np.ndarray]]:
    return stage_targets(loss, y, raw, _weights(w, len(y)), n_classes)


def _root(y: np.ndarray, w: np.ndarray | None) -> dict[int, np.ndarray]:
    """The partition's rows of the root: those of positive weight (a row of weight 0 is no row)."""
    return {0: np.flatnonzero(_weights(w, len(y)) > 0).astype(np.int64)}


def _split(bins: np.ndarray, sets: dict[int, np.ndarray], node: int, f: int, b: int, side: Any, missing: int, kids: tuple[int, int]) -> dict[int, np.ndarray]:
    """The rows of ``node`` parted as :meth:`Grower.partition` parts them (in order): bins up to
    ``b`` left, missing values right where ``side`` is 1; or (``b`` -1) the bins ``side[0]`` marks left."""
    rows = sets[node]
    col = bins[rows, f]
    right = ~side[0][col] if b < 0 else np.where(col == missing, side == 1, col > b)
    out = {k: v for k, v in sets.items() if k != node}
    out[kids[0]], out[kids[1]] = rows[~right], rows[right]
    return out


def _accumulate(previous: np.ndarray | None, bins: np.ndarray, sets: dict[int, np.ndarray], targets: list[tuple[np.ndarray, np.ndarray]], nodes: tuple[int, ...], k: int, n_bins: int) -> np.ndarray:
    """The histograms ``(node, feature, bin, channel)`` of ``nodes`` over the partitions before
    (``previous``; None: zeros) with this partition's rows of each node added in row order, as
    the in-memory fit adds them (the compiled loop where it loads; else ``numpy.add.at``, which
    adds in order too): channels ``h``, ``h * t``, ``h * t * t`` (feature 0's alone) and the
    rows, ``t`` the target."""
    p = bins.shape[1]
    H = np.zeros((len(nodes), p, n_bins, 4)) if previous is None else previous.copy()
    target, weight = targets[k]
    lib = compiled_loops()
    for Hn, node in zip(H, nodes):
        rows = sets[node]
        if lib is not None and bins.dtype == np.uint8:
            if lib.pt_hgb_histogram(bins.ctypes.data, bins.shape[0], p, rows.ctypes.data, len(rows), target.ctypes.data, weight.ctypes.data, 0, p, n_bins, Hn.ctypes.data):
                raise DataError("a bin or row is out of range in hist_gradient_boosting's histogram")
            continue
        w, t = weight[rows], target[rows]
        wy = w * t
        for f in range(p):
            col = bins[rows, f].astype(np.int64)
            np.add.at(Hn[f, :, 0], col, w)
            np.add.at(Hn[f, :, 1], col, wy)
            if f == 0:
                np.add.at(Hn[f, :, 2], col, wy * t)
            np.add.at(Hn[f, :, 3], col, 1.0)
    return H


def _add_leaves(raw: np.ndarray, sets: dict[int, np.ndarray], k: int, lr: float, leaves: list[tuple[int, float]]) -> np.ndarray:
    """The raw scores after a stage tree: output ``k`` plus ``lr`` times each row's leaf value."""
    values = np.zeros(len(raw))
    for node, value in leaves:
        values[sets[node]] = value
    out = raw.copy()
    out[:, k] += lr * values
    return out


# -- the client ----------------------------------------------------------------------------


class _Rows:
    """A set of rows spread over the partitions: its number on the workers, its size."""

    def __init__(self, node: int, size: int) -> None:
        self.node, self.size = node, size

    def __len__(self) -> int:
        return self.size


class _DaskGrower(Grower):
    """:class:`Grower` with its rows on the workers: a node's rows are a :class:`_Rows`."""

    steps_compiled = False  # the rows are on the workers: histograms and partitions by the methods below

    def begin(self, run: Runner, binned: list[Any], targets: list[Any], roots: list[Any], size: int, k: int) -> _Rows:
        self.run, self.binned, self.targets, self.sets, self.k, self.next_node = run, binned, targets, roots, k, 1
        self.summed: dict[int, np.ndarray] = {}
        return _Rows(0, size)

    def histogram(self, rows: Any, target: Any, weight: Any) -> np.ndarray:
        # a split's children were summed together (partition): the grower asks for the smaller
        known = self.summed.pop(rows.node, None)
        self.summed.clear()
        return known if known is not None else self.sums((rows.node,))[0]

    def sums(self, nodes: tuple[int, ...]) -> np.ndarray:
        """The histograms of ``nodes``: partition after partition, each adding its rows in order."""
        return np.asarray(self.run.chain(_accumulate, self.binned, self.sets, self.targets, shared=(nodes, self.k, self.n_bins)))

    def partition(self, rows: Any, f: int, b: int, side: Any) -> tuple[Any, Any]:
        """The node's rows parted on the workers, and both children's histograms summed in the
        same pass (one round trip a split; the grower keeps the smaller's, and the larger is
        its parent's less the smaller's, as in memory); their sizes are their row counts."""
        kids = (self.next_node, self.next_node + 1)
        self.next_node += 2
        self.sets = self.run.each(_split, self.binned, self.sets, shared=(rows.node, f, b, side, self.n_bins - 1, kids))
        H = self.sums(kids)
        self.summed = {kids[0]: H[0], kids[1]: H[1]}
        return _Rows(kids[0], int(H[0, 0, :, 3].sum())), _Rows(kids[1], int(H[1, 0, :, 3].sum()))

    def row_values(self, target: Any, leaves: list[tuple[Any, float]]) -> Any:
        return [(rows.node, value) for rows, value in leaves]


def boost(run: Runner, *, schema: Schema, edges: Sequence[np.ndarray | None], n_bins: int, binned: list[Any], y: list[Any], w: list[Any], loss: str, opts: dict[str, Any], progress: Callable[[int], None] | None = None) -> Boosted:
    """The model :func:`puretree.hist_gradient_boosting` grows with these edges, grown on the
    partitions' bins (``binned``), labels (class codes or targets, ``y``) and weights (``w``,
    None each: unweighted); ``opts`` its checked options (early stopping off)."""
    n_classes = len(schema.classes) if schema.task == "classification" else 0
    terms = run.gather(_init_terms, y, w, shared=(loss, n_classes))
    sums = [math.fsum(t for part in terms for t in part[c]) for c in range(len(terms[0]))]
    if not sums[-1] > 0:
        raise DataError("sample_weight: every weight is zero; at least one row needs a positive weight")
    if n_classes and sum(1 for s in sums[:-1] if s > 0) < 2:
        raise DataError("the training rows (of positive weight) hold one class")
    init = initial_scores(loss, sums, n_classes)
    categories = [0 if f.is_numeric else len(f.categories) for f in schema.features]
    p = len(categories)
    grower = _DaskGrower(np.zeros((0, p)), np.zeros((0, p), dtype=np.uint8), [np.arange(c, dtype=np.float64) if c else np.asarray(e) for e, c in zip(edges, categories)], n_bins,
                         max_leaf_nodes=opts["max_leaf_nodes"], max_depth=opts["max_depth"], min_samples_leaf=opts["min_samples_leaf"], l2=opts["l2_regularization"], threads=1, lib=compiled_loops(), categories=categories)  # fmt: skip
    # the features with a missing value among the training rows (Grower.has_missing)
    found = run.gather(_missing_in, binned, shared=(tuple(range(p)), n_bins - 1))
    grower.has_missing = {f: any(part[f] for part in found) for f in range(p)}
    roots = run.each(_root, y, w)
    size = sum(run.gather(_root_size, roots))
    raw = run.each(_start, y, shared=(init,))
    lr = float(opts["learning_rate"])
    tschema = tree_schema(schema)
    stages: list[tuple[Tree, ...]] = []
    for _ in range(opts["max_iter"]):
        targets = run.each(_targets, y, raw, w, shared=(loss, n_classes))
        trees = []
        for k in range(len(init)):
            root_rows = grower.begin(run, binned, targets, roots, size, k)
            root, leaves = grower.grow(np.zeros(0), np.zeros(0), root_rows)  # type: ignore[arg-type]
            raw = run.each(_add_leaves, raw, grower.sets, shared=(k, lr, leaves))
            trees.append(Tree(root, tschema, missing="majority"))
        stages.append(tuple(trees))
        if progress is not None:
            progress(len(stages))
    return boosted_model(stages, init, loss, schema, opts, False)


def _root_size(sets: dict[int, np.ndarray]) -> int:
    return len(sets[0])
