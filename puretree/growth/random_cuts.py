"""The random splitter's tree grown whole in C (``splitter="random"``: :func:`puretree.extra_trees`,
the ExtraTrees estimators, ``grow(..., splitter="random")``): ``growth/_random_cuts.c``'s
``pt_random_tree``, which visits the features, draws the cuts and keys the nodes as
:mod:`puretree.growth.random_draw` specifies, ranks the cuts by scikit-learn's Gini proxy
(:func:`~puretree.growth.random_draw.proxy_rank`) and applies ``max_depth``,
``min_samples_split``, ``min_samples_leaf`` and ``min_weight_fraction_leaf`` (a minimum weight
per leaf) as the recursive builder does, so the tree equals
:func:`puretree.splits.random_threshold_splits`' (the reference).

No frontier loop: a random cut needs no sorted column (a node's minimum, maximum and left
counts are one pass over its rows), so the whole tree is one call, which lets go of the GIL
(an ensemble grows its members in threads). It applies (:func:`build` returns None otherwise,
and the reference grows the tree) to classes with the built-in Gini impurity decrease, integral
weights (every sum exact in any order), numeric features without missing values, no
``accept``, ``min_gain``, ``min_impurity_decrease``, ``max_leaf_nodes`` or monotonic constraint.

>>> import numpy as np
>>> from puretree.grow import cart
>>> X = np.random.default_rng(0).normal(size=(80, 3)); y = (X[:, 0] > 0).astype(int)
>>> cart(X, y, splitter="random", seed=1) == cart(X, y, splitter="random", seed=1, engine="reference")
True
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from ..criteria import ImpurityDecrease
from ..data import Dataset
from ..impurity import gini
from ..nodes import Node
from ..splits import multiway_splits, random_threshold_splits, subset_splits
from . import kernels
from .assemble import from_binary_arrays
from .random_draw import node_key

__all__ = ["applies", "build"]


def applies(ds: Dataset, cfg: Any) -> bool:
    """Whether :func:`build` grows this fit (see the module's text)."""
    if ds.schema.is_regression or not ds.schema.features or not all(f.is_numeric for f in ds.schema.features):
        return False
    if not any(s is random_threshold_splits for s in cfg.splitters) or not all(any(s is b for b in (random_threshold_splits, subset_splits, multiway_splits)) for s in cfg.splitters):
        return False
    if not (cfg.trusted and isinstance(cfg.score, ImpurityDecrease) and cfg.score.impurity is gini):
        return False
    if cfg.accept is not None or cfg.min_gain is not None or getattr(cfg, "visit", None) is not None or getattr(cfg, "monotonic", False):
        return False
    if getattr(cfg, "max_leaf_nodes", None) is not None or getattr(cfg, "min_impurity_decrease", 0.0) > 0:
        return False
    w = ds.sample_weight
    if w is not None and not (np.all(w >= 0) and np.all(w == np.floor(w)) and float(w.sum()) < 2.0**52):
        return False
    return ds.n_rows > 0 and not np.isnan(ds.X).any()


def _function() -> Any:
    """``pt_random_tree`` of the loaded library, declared (None: no library)."""
    lib = kernels.library() if kernels.AVAILABLE else None
    if lib is None:
        return None
    fn = getattr(lib, "pt_random_tree", None)
    if fn is None:  # a library built before it: the reference grows the tree
        return None
    if fn.argtypes is None:
        p, i64, f64 = ctypes.c_void_p, ctypes.c_int64, ctypes.c_double
        fn.argtypes = [p, i64, i64, i64, i64, p, p, i64, i64, i64, f64, f64, f64, ctypes.c_uint64, i64, p, p, p, p, p]
        fn.restype = ctypes.c_int
    return fn


#: ``_FLOATS[i] == float(i)``: the Python floats the trees' class sums are made of, shared (the
#: sums are integral here); grown to the next power of two a fit needs, up to :data:`_MOST_FLOATS`.
_FLOATS = np.arange(1024.0).astype(object)
_MOST_FLOATS = 1 << 17


def _statistics(counts: np.ndarray) -> list[list[float]]:
    """``counts.tolist()`` for integral class sums (the weights are), its floats taken from
    :data:`_FLOATS` rather than each made anew (most of the Python time a tree of many classes
    took to read them); above :data:`_MOST_FLOATS`, made anew.

    >>> _statistics(np.array([[3.0, 0.0], [1.0, 2.0]]))
    [[3.0, 0.0], [1.0, 2.0]]
    """
    global _FLOATS
    top = int(counts.max()) if counts.size else 0
    floats = _FLOATS
    if top >= len(floats):
        if top >= _MOST_FLOATS:
            return counts.tolist()  # type: ignore[no-any-return]
        floats = _FLOATS = np.arange(float(1 << top.bit_length())).astype(object)
    return floats[counts.astype(np.int64)].tolist()  # type: ignore[no-any-return]


def build(ds: Dataset, cfg: Any) -> Node | None:
    """The random splitter's tree of ``ds`` with settings ``cfg`` (the builder's), or None
    where :func:`applies` says no or the compiled library is not here."""
    if not applies(ds, cfg):
        return None
    fn = _function()
    if fn is None:
        return None
    kernels._FITS[0] += 1  # an ensemble then grows its members in threads (the call lets go of the GIL)
    n, p = ds.X.shape
    k = max(1, len(ds.schema.classes))
    X = ds.X if ds.X.dtype == np.float64 and all(s % 8 == 0 for s in ds.X.strides) else np.array(ds.X, dtype=np.float64)  # read in place, whatever its layout
    row_step, col_step = (s // 8 for s in X.strides)
    cls = np.ascontiguousarray(np.asarray(ds.y, dtype=np.int64))
    w = None if ds.sample_weight is None else np.ascontiguousarray(ds.sample_weight, dtype=np.float64)
    cap = 2 * n + 1  # a binary tree of n non-empty leaves has 2n - 1 nodes
    feature = np.empty(cap, dtype=np.int64)
    threshold = np.empty(cap)
    first = np.empty(cap, dtype=np.int64)
    counts = np.empty((cap, k))
    made = np.zeros(1, dtype=np.int64)
    max_features = getattr(cfg, "max_features", None)
    status = fn(
        X.ctypes.data, n, p, row_step, col_step, cls.ctypes.data, None if w is None else w.ctypes.data, k,
        -1 if max_features is None else int(max_features), -1 if cfg.max_depth is None else int(cfg.max_depth),
        float(cfg.min_samples_split), float(cfg.min_samples_leaf), float(getattr(cfg, "min_weight_leaf", 0.0)),
        node_key(getattr(cfg, "feature_key", (0,)), ()), cap,
        feature.ctypes.data, threshold.ctypes.data, first.ctypes.data, counts.ctypes.data, made.ctypes.data,
    )
    if status == 1:
        raise MemoryError("the random splitter's tree: out of memory")
    if status != 0:  # pragma: no cover - the arguments are checked above
        raise RuntimeError(f"pt_random_tree failed ({status})")
    m = int(made[0])
    # + 0.0: one zero (a cut drawn at a node's minimum -0.0 is the threshold 0.0, as Threshold makes it)
    return from_binary_arrays(feature[:m].tolist(), (threshold[:m] + 0.0).tolist(), first[:m].tolist(), _statistics(counts[:m]))
