"""The random splitter's draw (``splitter="random"``, extra trees): one specification that the
recursive builder (:func:`puretree.splits.random_threshold_splits`), the compiled tree
(:mod:`puretree.growth.random_cuts`, ``growth/_random_cuts.c``) and the histogram source all follow, so that the same
seed grows the same tree on either.

**Keys.** Every node has a 64-bit key: the root's folds the seed key (``(seed, member, ...)``,
each part taken modulo 2**64) through :func:`mix`, starting from 0; the child down branch ``b``
of a node keyed ``k`` is keyed ``mix(k ^ (b + 1))`` (:func:`node_key`). A node's draws are the
splitmix64 stream of its key, ``draw(key, i) = mix(key + i * GOLDEN)``: a counter-based
generator, so a node's draws depend on its path only, not on the order in which nodes are
grown (depth-first here, in any order in C) and no generator object is made per node.

**What is drawn** (scikit-learn's extra-tree splitter, :func:`random_cuts`): the ``p`` numeric
features are visited in the order of a forward Fisher-Yates shuffle, draw ``i`` picking
position ``i + draw(key, i) % (p - i)``; a feature whose values at the node span no more than
:data:`FEATURE_THRESHOLD` (or are all missing) is skipped; the visit stops before position
``i`` once ``i >= max_features`` and one feature was not constant. A visited feature ``f``
(its position among the numeric features) is cut at ``lo + u * (hi - lo)`` (the node's
minimum and maximum; the maximum itself is replaced by the minimum), where ``u = (draw(key, p
+ f) >> 11) * 2**-53``, uniform on [0, 1) with 53 bits. Every operation is a 64-bit integer's
or a double's, in this order, so C computes the same bits (no fused multiply-add).

**On bins** (histogram mode, :mod:`puretree.dask`): :func:`bin_cuts` makes the same visit and
draws from a node's histogram, a feature's minimum and maximum being the edges of its lowest and
highest bins holding a row of the node, and moves each drawn threshold down to the largest edge
not above it (:func:`puretree.growth.histograms.random_thresholds` scores those cuts).

This replaces the per-node ``numpy.random.SeedSequence`` of puretree 0.x's random splitter
(whose generator object per node cost more than growing the node): the trees differ from
those, the same seed still grows the same tree.

>>> draw(node_key((0,), ()), 0) == draw(node_key((0,), ()), 0), node_key((0,), (1,)) == mix(node_key((0,), ()) ^ 2)
(True, True)
>>> X = np.array([[0.0, 5.0], [1.0, 5.0], [2.0, 5.0]])
>>> [(f, 0.0 <= t < 2.0) for f, t in random_cuts(X, node_key((3,), ()), limit=1)]   # column 1 is constant
[(0, True)]
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

__all__ = ["GOLDEN", "FEATURE_THRESHOLD", "mix", "draw", "node_key", "random_cuts", "visit", "bin_cuts", "drawn_cuts", "proxy_rank", "missing_side"]

_MASK = (1 << 64) - 1
#: splitmix64's increment (the golden ratio's 64 bits).
GOLDEN = 0x9E3779B97F4A7C15
#: scikit-learn's FEATURE_THRESHOLD: a feature whose values at a node span no more is constant there.
FEATURE_THRESHOLD = 1e-7


def mix(x: int) -> int:
    """splitmix64's output for the state ``x + GOLDEN`` (all modulo 2**64).

    >>> mix(0)
    16294208416658607535
    """
    z = (x + GOLDEN) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def draw(key: int, i: int) -> int:
    """Draw ``i`` (from 0) of the node keyed ``key``: its splitmix64 stream."""
    return mix((key + i * GOLDEN) & _MASK)


def missing_side(key: int, p: int, f: int) -> int:
    """``missing="learn"``: the side (0 left, 1 right) the random splitter sends the missing
    values of feature ``f`` (its position among the ``p`` numeric features) at the node keyed
    ``key`` when the node has missing values in it: drawn, as scikit-learn's random splitter
    draws ``missing_go_to_left`` per candidate feature, from the node's draw ``2 * p + f`` (the
    draws before it are the visit's and the thresholds'), its top bit. The recursive builder and
    the histogram source both draw it here.

    >>> missing_side(node_key((0,), ()), 3, 1) in (0, 1), missing_side(5, 2, 0) == missing_side(5, 2, 0)
    (True, True)
    """
    return int(draw(key, 2 * p + f) >> 63)


def node_key(seed_key: Sequence[int], path: Sequence[int]) -> int:
    """The key of the node at ``path`` (its branches from the root) of the tree seeded ``seed_key``."""
    key = 0
    for part in seed_key:
        key = mix(key ^ (int(part) & _MASK))
    for b in path:
        key = mix(key ^ (int(b) + 1))
    return key


def random_cuts(X: np.ndarray, key: int, *, limit: int | None) -> list[tuple[int, float]]:
    """The random splitter's cuts at the node keyed ``key`` whose rows of the numeric features
    are ``X`` (rows x features, NaN: missing): ``(feature's column in X, threshold)`` for each
    visited feature that is not constant, in visit order; ``limit``: ``max_features`` (None: all)."""

    def span(f: int) -> tuple[float, float] | None:  # only the visited features' (max_features: a few)
        column = X[:, f]
        known = column[~np.isnan(column)]
        return None if known.size == 0 else (float(known.min()), float(known.max()))

    return visit(X.shape[1], key, limit, span)


def visit(p: int, key: int, limit: int | None, span: Callable[[int], tuple[float, float] | None]) -> list[tuple[int, float]]:
    """The visit and the draws of one node keyed ``key`` over ``p`` features (see the module's
    text), ``span(f)`` the node's minimum and maximum of feature ``f`` (None: all missing): the
    cuts ``(feature, threshold)`` in visit order. :func:`drawn_cuts` makes them for many nodes at once.

    >>> visit(2, node_key((3,), ()), 1, lambda f: (0.0, 2.0) if f == 0 else (5.0, 5.0))[0][0]   # feature 1 is constant
    0
    """
    limit = p if limit is None else limit
    perm = list(range(p))
    out: list[tuple[int, float]] = []
    seen = False
    for i in range(p):
        if i >= limit and seen:
            break
        j = i + draw(key, i) % (p - i)
        perm[i], perm[j] = perm[j], perm[i]
        f = perm[i]
        found = span(f)
        if found is None:
            continue
        lo, hi = found
        if not hi > lo + FEATURE_THRESHOLD:
            continue
        seen = True
        u = float(draw(key, p + f) >> 11) * 2.0**-53
        t = lo + u * (hi - lo)
        out.append((f, lo if t >= hi else t))
    return out


def bin_cuts(low: np.ndarray, high: np.ndarray, edges: Sequence[np.ndarray], keys: Sequence[int], *, limit: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The random splitter's cuts on binned features (histogram mode, :mod:`puretree.dask`) at
    the nodes keyed ``keys`` whose rows occupy bins ``low[i, f]..high[i, f]`` of feature ``f``
    (its lowest and highest bin holding a known value; ``low[i, f] < 0``: none), each bin valued
    at its upper edge ``edges[f][b]``: the visit and the draws of :func:`drawn_cuts` on the nodes'
    binned values (a threshold drawn uniformly between ``edges[f][low]`` and
    ``edges[f][high]``), each threshold moved down to the largest edge not above it, so ``x <=
    edge`` sends every row where the drawn threshold sends its bin's value. The cuts' nodes,
    features and bins, in :func:`drawn_cuts`' order. The in-memory binned fit and Dask's client
    both draw here.

    >>> edges = [np.array([1.0, 2.0, 3.0, 4.0]), np.array([5.0, 6.0])]
    >>> nodes, features, bins = bin_cuts(np.array([[0, 1]]), np.array([[3, 1]]), edges, [node_key((3,), ())], limit=None)
    >>> nodes.tolist(), features.tolist(), 0 <= int(bins[0]) < 3     # feature 1 occupies one bin: constant
    ([0], [0], True)
    """
    p = low.shape[1] if low.ndim == 2 else 0
    widest = max([len(e) for e in edges] + [1])
    table = np.full((p, widest), np.inf)  # each feature's edges, padded with +inf
    for f, e in enumerate(edges):
        table[f, : len(e)] = e
    has = low >= 0
    f_of = np.broadcast_to(np.arange(p), low.shape)
    lo = np.where(has, table[f_of, np.where(has, low, 0)], np.nan)
    hi = np.where(has, table[f_of, np.where(has, high, 0)], np.nan)
    nodes, features, thresholds = drawn_cuts(lo, hi, keys, limit=limit)
    bins = np.array([int(np.searchsorted(table[f], t, side="right")) - 1 for f, t in zip(features.tolist(), thresholds.tolist())], dtype=np.int64) if len(nodes) < 64 else (table[features] <= thresholds[:, None]).sum(axis=1) - 1
    return nodes, features, bins.astype(np.int64)


def _mixed(x: np.ndarray) -> np.ndarray:
    """:func:`mix` of every uint64 in ``x`` (numpy's uint64 arithmetic wraps modulo 2**64)."""
    z = x + np.uint64(GOLDEN)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _draws(keys: np.ndarray, i: np.ndarray | int) -> np.ndarray:
    """:func:`draw` ``i`` (one, or one per key) of every node keyed ``keys`` (uint64)."""
    with np.errstate(over="ignore"):
        return _mixed(keys + np.asarray(i, dtype=np.uint64) * np.uint64(GOLDEN))


def drawn_cuts(low: np.ndarray, high: np.ndarray, keys: Sequence[int], *, limit: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The visit and the draws of :func:`visit` for the nodes keyed ``keys`` whose known values
    of feature ``f`` span ``low[i, f]..high[i, f]`` (NaN: all missing), all nodes at once in
    numpy's uint64 and float64 (the same operations, so the same numbers): the cuts' nodes,
    features and thresholds, each node's in visit order, the nodes in order.

    >>> nodes, features, t = drawn_cuts(np.array([[0.0, 5.0]]), np.array([[2.0, 5.0]]), [node_key((3,), ())], limit=1)
    >>> nodes.tolist(), features.tolist(), 0.0 <= float(t[0]) < 2.0      # column 1 is constant
    ([0], [0], True)
    """
    n, p = low.shape
    limit = p if limit is None else limit
    k = np.array([int(v) & _MASK for v in keys], dtype=np.uint64)
    rows = np.arange(n)
    perm = np.tile(np.arange(p), (n, 1))
    active = np.ones(n, dtype=bool)
    seen = np.zeros(n, dtype=bool)
    found: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
    for i in range(p):
        if i >= limit:
            active &= ~seen  # the visit stops once max_features were visited and one was not constant
        if not active.any():
            break
        j = i + (_draws(k, i) % np.uint64(p - i)).astype(np.int64)
        at_i = perm[rows, i].copy()
        perm[rows, i] = perm[rows, j]
        perm[rows, j] = at_i
        f = perm[:, i]
        lo, hi = low[rows, f], high[rows, f]
        with np.errstate(invalid="ignore"):
            cut = active & (hi > lo + FEATURE_THRESHOLD)  # NaN (all missing): not cut
        if not cut.any():
            continue
        seen |= cut
        r, fr, lr, hr = rows[cut], f[cut], lo[cut], hi[cut]
        u = (_draws(k[r], p + fr) >> np.uint64(11)).astype(np.float64) * 2.0**-53
        t = lr + u * (hr - lr)
        found.append((r, fr, np.where(t >= hr, lr, t), np.full(len(r), i)))
    if not found:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros(0)
    r, fr, t, step = (np.concatenate(a) for a in zip(*found))
    order = np.lexsort((step, r))  # by node, then visit order
    return r[order], fr[order].astype(np.int64), t[order]


def proxy_rank(parent: np.ndarray, left: np.ndarray) -> np.ndarray:
    """scikit-learn's proxy of the Gini impurity decrease (its ``proxy_impurity_improvement``)
    of two-way splits of class sums ``parent`` (k,) with left sides ``left`` (c, k):
    ``sum(left**2)/w_left + sum(right**2)/w_right`` (a side of weight 0 adds 0), summed class by
    class in order as ``growth/_random_cuts.c`` sums it. It orders the splits as the decrease
    does; the random splitter ranks its cuts by it (one division per side, no rounding of
    the decrease's own subtractions), the first visited winning a tie.

    >>> proxy_rank(np.array([2.0, 2.0]), np.array([[2.0, 0.0], [1.0, 1.0]])).tolist()
    [4.0, 2.0]
    """
    wl = np.zeros(len(left))
    wr, sl, sr = wl.copy(), wl.copy(), wl.copy()
    for c in range(left.shape[1]):
        a = left[:, c]
        d = np.maximum(parent[c] - a, 0.0)
        wl += a
        wr += d
        sl += a * a
        sr += d * d
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(wl > 0, sl / wl, 0.0) + np.where(wr > 0, sr / wr, 0.0)
