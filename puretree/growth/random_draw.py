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

__all__ = ["GOLDEN", "FEATURE_THRESHOLD", "mix", "draw", "node_key", "random_cuts", "bin_cuts", "proxy_rank"]

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

    def span(f: int) -> tuple[float, float] | None:
        column = X[:, f]
        known = column[~np.isnan(column)]
        return None if known.size == 0 else (float(known.min()), float(known.max()))

    return _drawn(X.shape[1], key, limit, span)


def bin_cuts(low: np.ndarray, high: np.ndarray, edges: Sequence[np.ndarray], key: int, *, limit: int | None) -> list[tuple[int, int]]:
    """The random splitter's cuts on binned features (histogram mode, :mod:`puretree.dask`):
    at the node keyed ``key`` whose rows occupy bins ``low[f]..high[f]`` of feature ``f`` (its
    lowest and highest bin holding a known value; ``low[f] < 0``: none), each bin valued at its
    upper edge ``edges[f][b]``, ``(f, bin)`` for each visited feature that is not constant, in
    visit order: the visit and the draw of :func:`random_cuts` on the node's binned values (the
    threshold drawn uniformly between ``edges[f][low[f]]`` and ``edges[f][high[f]]``), the cut
    moved down to the largest edge not above it, so ``x <= edge`` sends every row where the
    drawn threshold sends its bin's value. The in-memory binned fit and Dask's client both draw here.

    >>> edges = [np.array([1.0, 2.0, 3.0, 4.0]), np.array([5.0, 6.0])]
    >>> cuts = bin_cuts(np.array([0, 1]), np.array([3, 1]), edges, node_key((3,), ()), limit=None)
    >>> [(f, 0 <= b < 3) for f, b in cuts]   # feature 1 occupies one bin: constant
    [(0, True)]
    """

    def span(f: int) -> tuple[float, float] | None:
        return None if low[f] < 0 else (float(edges[f][low[f]]), float(edges[f][high[f]]))

    return [(f, int(np.searchsorted(edges[f], t, side="right")) - 1) for f, t in _drawn(len(low), key, limit, span)]


def _drawn(p: int, key: int, limit: int | None, span: Callable[[int], tuple[float, float] | None]) -> list[tuple[int, float]]:
    """The visit and the draws of the node keyed ``key`` over ``p`` features, ``span(f)`` the
    node's minimum and maximum of feature ``f`` (None: all missing): see the module's text."""
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
