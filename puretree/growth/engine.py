"""The in-memory grower: the same trees as :func:`puretree.builder.grow`'s recursive
specification, grown a frontier at a time.

:func:`build` grows every fit with the one frontier loop (:func:`puretree.growth.level.grow`)
over the sorted source (:class:`puretree.growth.sorted.Sorted`: presorted columns in memory; in
histogram mode, ``max_bins=`` or ``bins=``, each numeric value first replaced by its bin's, by
:func:`quantile_bins` or :func:`edge_bins`). In histogram mode, unweighted classes on numeric
features grow with the histogram source instead (:func:`puretree.growth.histograms.grow_binned`:
per-node histograms of the bins, summed in C where the library loads), the same tree (every
count an integer, every sum exact); weights and regression keep the sorted source, whose sums
come in the reference's order.

**The compiled kernel.** Where the built-in Gini score grows classes on numeric features without
missing values (``cart``'s common case), the sorted source scans each level's numeric thresholds
and moves its presorted orders with :mod:`puretree.growth.kernels` (C, compiled with the
package); numpy answers everything else. ``grow(..., engine="numpy")`` (or
``PURETREE_ENGINE=numpy``), or a package built without a C compiler, keeps everything in numpy,
and ``engine="c"`` insists on the kernel. A small such fit, or one of squared error on targets,
grows whole in one compiled call (:func:`puretree.growth.bounds.grow_whole`: the frontier
loop's levels in C, the same tree, ``max_features``' draws made in C too), where a level's
Python would cost more than its scan (a random forest's members on small data).

>>> from puretree.datasets import load_playtennis
>>> from puretree.grow import id3
>>> id3(load_playtennis(), engine="fast") == id3(load_playtennis(), engine="reference")
True
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ..criteria import ImpurityDecrease
from ..data import Dataset
from ..impurity import gini, variance
from . import histograms
from . import bounds, kernels
from .bounds import Bounded
from .level import Sizes
from .level import grow as grow_frontier
from .sorted import Sorted, refuse_compiled
from ..nodes import Node
from ..splits import multiway_splits, refuse_missing, subset_splits, threshold_splits

__all__ = ["build", "supports", "quantile_bins", "edge_bins", "check_bins", "ENGINES"]


#: The values of ``grow(..., engine=...)``: ``"auto"`` uses the level-wise engines when they support
#: the splitters given (the compiled kernel where it applies, else numpy); ``"fast"`` insists on
#: them; ``"c"`` on the compiled kernel; ``"numpy"`` on the level-wise engine without the kernel;
#: ``"reference"`` runs the recursive builder. ``$PURETREE_ENGINE`` chooses for ``"auto"``.
ENGINES = ("auto", "c", "numpy", "fast", "reference")


def _kinds() -> dict[Any, str]:
    return {threshold_splits: "threshold", multiway_splits: "multiway", subset_splits: "subset"}


def supports(splitters: Any) -> bool:
    """Whether the fast engine knows every split generator given (each at most once).

    >>> from puretree.grow import threshold_splits, subset_splits
    >>> supports((threshold_splits, subset_splits)), supports((lambda node, **kw: None,))
    (True, False)
    """
    known = _kinds()
    kinds = [known.get(s) for s in splitters]
    return None not in kinds and len(set(kinds)) == len(kinds)


def quantile_bins(column: np.ndarray, max_bins: int) -> np.ndarray:
    """Each value replaced by the largest training value of its quantile bin (NaN stays NaN).

    At most ``max_bins`` distinct values remain, so a split can only fall between bins; as a
    bin's values all lie at or below its largest one, the cut ``x <= that value`` sends every
    training row where its bin went.

    >>> quantile_bins(np.array([1.0, 2.0, 3.0, 4.0, 5.0, 6.0, np.nan]), 3).tolist()
    [2.0, 2.0, 4.0, 4.0, 6.0, 6.0, nan]
    >>> quantile_bins(np.array([5.0, 1.0, 5.0]), 10).tolist()     # fewer values than bins: unchanged
    [5.0, 1.0, 5.0]
    """
    out = column.copy()
    known = ~np.isnan(column)
    values = np.unique(column[known])
    if len(values) <= max_bins:
        return out
    # cut points: the values at the inner quantiles of the known rows (an order statistic each)
    cuts = np.unique(np.quantile(column[known], np.arange(1, max_bins) / max_bins, method="inverted_cdf"))
    bin_of = np.searchsorted(cuts, column[known], side="left")  # x <= cuts[b] -> bin b
    top = np.full(len(cuts) + 1, -np.inf)
    np.maximum.at(top, bin_of, column[known])
    out[known] = top[bin_of]
    return out


def edge_bins(column: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Each value replaced by the upper edge of its bin, given the bins' upper edges (sorted):
    the first edge at or above it; a value above the last edge goes to the last bin. NaN stays NaN.

    So ``x <= edges[b]`` holds exactly for the values of bins ``0..b``, and a tree grown on the
    binned values, whose thresholds are edges, sends every raw value where its bin went.

    >>> edge_bins(np.array([0.5, 1.0, 1.5, 3.0, 9.0, np.nan]), np.array([1.0, 2.0, 3.0])).tolist()
    [1.0, 1.0, 2.0, 3.0, 3.0, nan]
    """
    out = column.copy()
    known = ~np.isnan(column)
    out[known] = edges[np.minimum(np.searchsorted(edges, column[known], side="left"), len(edges) - 1)]
    return out


def check_bins(bins: Any, schema: Any) -> tuple[np.ndarray | None, ...]:
    """``bins`` (one array of upper bin edges per feature, as :func:`puretree.dask.bin_edges`
    gives) checked against ``schema``: one entry per feature, a numeric feature's strictly
    increasing finite numbers (a categorical feature's entry is ignored: ``None``).

    >>> from puretree.nodes import Feature, Schema
    >>> check_bins([[1, 2]], Schema((Feature("a"),), ("n", "y")))
    (array([1., 2.]),)
    >>> check_bins([[2, 1]], Schema((Feature("a"),), ("n", "y")))
    Traceback (most recent call last):
    ...
    puretree.errors.ParameterError: bins for feature 'a' must be strictly increasing finite numbers (the bins' upper edges), got [2.0, 1.0]
    """
    from ..errors import ParameterError

    if isinstance(bins, (str, bytes)) or not hasattr(bins, "__len__") or len(bins) != schema.n_features:
        raise ParameterError(f"bins must hold one array of bin edges per feature ({schema.n_features}), got {bins!r:.200}")
    out: list[np.ndarray | None] = []
    for f, edges in zip(schema.features, bins):
        if not f.is_numeric:
            out.append(None)
            continue
        try:
            e = np.array(edges, dtype=np.float64).reshape(-1) if np.ndim(edges) == 1 else None
        except (TypeError, ValueError):
            e = None
        if e is None or len(e) == 0 or not np.isfinite(e).all() or not (np.diff(e) > 0).all():
            shown = e.tolist()[:10] if e is not None else edges
            raise ParameterError(f"bins for feature {f.name!r} must be strictly increasing finite numbers (the bins' upper edges), got {shown!r:.200}")
        out.append(e)
    return tuple(out)


def build(ds: Dataset, cfg: Any, *, max_bins: int | None = None, bins: Any = None, progress: Any = None, kernel: str = "auto", monotonic: np.ndarray | None = None, learn: bool = False, sizes: Sizes | None = None) -> Node:
    """The root of the tree :func:`puretree.grow.grow` grows from ``ds`` with settings ``cfg``
    (its ``_Settings``), grown a frontier at a time. ``max_bins``: histogram mode, each numeric
    feature binned once by :func:`quantile_bins`, thresholds at the bins' upper values.
    ``bins`` (checked by :func:`check_bins`): histogram mode with the bins given, each value
    replaced by its bin's upper edge (:func:`edge_bins`), thresholds at edges.
    ``progress(depth, nodes, rows)`` is called once per level: its depth, the nodes made at
    that depth, the rows they hold. ``kernel``: ``"auto"``: the sorted source scans its numeric
    thresholds with the compiled kernel where it applies, ``"never"`` with numpy,
    ``"required"`` with the kernel or not at all (:class:`~puretree.errors.ParameterError`).
    ``monotonic`` (-1, 0, +1 per feature) and ``learn`` (``missing="learn"``): grown by
    :class:`puretree.growth.bounds.Bounded` (its scan compiled where ``kernel`` allows and
    :func:`puretree.growth.kernels.scan_bounded` applies, else numpy's), where :func:`puretree.growth.bounds.applies`.
    ``sizes`` (``max_leaf_nodes``, ``min_impurity_decrease``): the frontier loop reads the tree
    off its full one, each split ranked by the improvement recorded as it was chosen
    (:class:`puretree.growth.level.Sizes`); the compiled whole-tree call (a small fit) records them too."""
    if cfg.missing == "error":
        refuse_missing(ds)  # one message for both builders
    if kernel == "required" and (max_bins is not None or bins is not None):
        refuse_compiled(True)
    kinds = tuple(_kinds()[s] for s in cfg.splitters)
    binned: Any = None
    if max_bins is not None:
        binned = lambda column, j: quantile_bins(column, max_bins)  # noqa: E731
    elif bins is not None:
        binned = lambda column, j: edge_bins(column, bins[j])  # noqa: E731
    if monotonic is not None or learn:  # on the sorted rows, binned or not
        if binned is None and progress is None:  # a small fit: every level in one compiled call, the same tree
            whole = bounds.grow_whole(ds, cfg, monotonic=monotonic, learn=learn, compiled=kernel, sizes=sizes)
            if whole is not None:
                return whole
        source: Any = Bounded(ds, cfg, kinds, binned=binned, monotonic=monotonic, learn=learn, compiled=kernel)
        whole = None if progress is not None or binned is None else source.grow_whole(ds.X, max_features=getattr(cfg, "max_features", None), feature_key=getattr(cfg, "feature_key", (0,)), sizes=sizes)
        if whole is not None:
            return whole
        return grow_frontier(source, n_features=ds.schema.n_features, max_features=getattr(cfg, "max_features", None), feature_key=getattr(cfg, "feature_key", (0,)), progress=progress, sizes=sizes, compiled=kernel != "never")
    if binned is not None and histograms.applies(ds, cfg, kinds):  # the binned source: C where the library loads
        return histograms.grow_binned(ds, cfg, kinds, binned if bins is None else None, edges=bins, compiled=False if kernel == "never" else None, threads=os.cpu_count() or 1, progress=progress, sizes=sizes)
    if binned is None and progress is None and _whole(ds, cfg, kinds, kernel):
        # a small fit in one compiled call: the frontier loop's levels in C, the same tree
        whole = bounds.grow_whole(ds, cfg, monotonic=None, learn=False, compiled=kernel, sizes=sizes)
        if whole is not None:
            return whole
    source = Sorted(ds, cfg, kinds, binned=binned, compiled=kernel)
    return grow_frontier(source, n_features=ds.schema.n_features, max_features=getattr(cfg, "max_features", None), feature_key=getattr(cfg, "feature_key", (0,)), progress=progress, sizes=sizes, compiled=kernel != "never")


def _whole(ds: Dataset, cfg: Any, kinds: tuple[str, ...], kernel: str) -> bool:
    """Whether a fit without options grows whole in one compiled call
    (:func:`puretree.growth.bounds.grow_whole`, with neither constraints nor a learned
    side: the same tree as the sorted source's frontier loop), checked before any sort: a small fit
    (:data:`~puretree.growth.kernels.WHOLE_TREE_MAX_WORK`) that :class:`~puretree.growth.bounds.Bounded`
    grows (:func:`puretree.growth.bounds.applies`), no missing value, the built-in Gini on classes
    or the variance decrease on targets, the kernel not turned off (and for ``engine="c"`` classes
    only: its level-wise scan answers no regression, which it refuses). ``max_features`` too: the
    compiled call draws each node's features as the loop draws them."""
    n, p = ds.X.shape
    if kernel == "never" or not 2 <= n or n * p > kernels.WHOLE_TREE_MAX_WORK or not kernels.AVAILABLE:
        return False
    if getattr(cfg, "min_weight_leaf", 0.0) > 0:  # a bound on the children's weight: the frontier loop's scan holds it
        return False
    if not bounds.applies(ds, cfg, kinds, cfg.missing) or not isinstance(cfg.score, ImpurityDecrease):
        return False
    if ds.schema.is_regression:
        return kernel == "auto" and cfg.score.impurity is variance and not np.isnan(ds.X).any()
    return cfg.score.impurity is gini and len(ds.schema.classes) <= kernels.MAX_CLASSES and not np.isnan(ds.X).any()
