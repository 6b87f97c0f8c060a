"""The frontier loop: one way to grow a tree from any source of statistics.

A *source* holds the rows of the open nodes (the *frontier*) and answers for them: which are
leaves before any search (:meth:`Source.closed`), each one's decision, found from its
candidate statistics by the chooser of :mod:`puretree.growth.choose` (:meth:`Source.split`),
and, once decided, the rows moved to the children that grow on (:meth:`Source.advance`). The
loop keeps the records of the tree, numbers the nodes (children after their parent), draws
the features each node may split on (``max_features``, :func:`puretree.splits.node_features`:
the one draw of every source, made a frontier at a time from the generators' pools the loop
carries, the same numbers) and assembles the nodes (:func:`puretree.growth.assemble.from_records`).

The sources: :class:`puretree.growth.sorted.Sorted` (sorted columns in memory, the
level-wise engine) and :class:`puretree.growth.histograms.Histograms` (binned rows in blocks,
which :mod:`puretree.dask` runs on its partitions). The loop takes a whole frontier at a time
(every open node of a depth); a source addresses its nodes by their place in the frontier and
is told each one's depth, so a loop that takes some nodes best-first hands the source those
nodes.

**Sizes** (scikit-learn's ``max_leaf_nodes`` and ``min_impurity_decrease``, :class:`Sizes`): a
node's split depends on its rows (and its ancestors' bounds) only, not on when it is made, so the
loop grows the full tree and reads the best-first one off its records (:func:`best_first_records`).
Each split is ranked by the improvement its source recorded when its chooser chose it (the
decision's score, as scored: on a node with missing values scaled by the known share, and the
node's weight, before any monotonic clipping), never one recomputed from its children: with
missing values or monotonic constraints the children's statistics do not give it back.

>>> import numpy as np
>>> from puretree.nodes import Threshold
>>> class Stump:  # a source of two rows, classes 0 and 1, split once at 0.5
...     def __init__(self): self.counts = [np.array([1.0, 1.0])]
...     def rows(self): return 2
...     def stats(self): return self.counts
...     def closed(self, depths): return np.array([c.min() == 0 for c in self.counts])
...     def keep(self, mask): self.counts = [c for c, m in zip(self.counts, mask) if m]
...     def split(self, depths, allowed, paths, n_made): return [(0, Threshold(0.5), [None, None])]
...     def advance(self): self.counts = [np.array([1.0, 0.0]), np.array([0.0, 1.0])]
>>> root = grow(Stump(), n_features=1)
>>> root.test, [kid.stats for kid in root.children]
(Threshold(value=0.5), [(1.0, 0.0), (0.0, 1.0)])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol

import attrs
import numpy as np

from ..nodes import Leaf, Node, Split, Test
from ..splits import node_features
from .assemble import from_records

__all__ = ["Decision", "Source", "Sizes", "EPSILON", "grow", "FrontierHeap", "best_first", "best_first_records", "floats"]

#: A node's decision: its feature, its test, per branch ``None`` (the child grows on: the
#: source has rows for it) or the statistics of a leaf, then (for :class:`Sizes`) the split's
#: score as its chooser scored it and the node's weight (of its statistics before any clipping).
Decision = tuple[int, Test, Sequence[Any]] | tuple[int, Test, Sequence[Any], float, float]

#: scikit-learn's EPSILON (the doubles' machine epsilon): a split is kept when its improvement
#: plus EPSILON reaches ``min_impurity_decrease``.
EPSILON = float(np.finfo(np.float64).eps)


@attrs.frozen
class Sizes:
    """scikit-learn's size controls as the frontier loop reads them off its full tree:
    ``max_leaf_nodes`` (best-first growth; None: no budget) and ``min_impurity_decrease``; a
    split's improvement is its score times its node's share of ``total_weight``, the training
    weight (None: the root's), as :func:`puretree.splits.improvement` finds it while growing.

    >>> Sizes(max_leaf_nodes=None, min_impurity_decrease=0.3).improvement(0.5, 2.0, 4.0)   # below 0.3: not made
    >>> Sizes(max_leaf_nodes=2).improvement(0.5, 2.0, 4.0)
    0.25
    """

    max_leaf_nodes: int | None = None
    min_impurity_decrease: float = 0.0
    total_weight: float | None = None

    def improvement(self, score: float, weight: float, total_weight: float) -> float | None:
        """The split's improvement (None: ``min_impurity_decrease`` refuses it), in the very
        operations of :func:`puretree.splits.improvement`."""
        g = float(weight) / total_weight * score
        return None if self.min_impurity_decrease > 0 and g + EPSILON < self.min_impurity_decrease else g


class Source(Protocol):
    """Where the frontier's rows are, and what can be said of them; nodes are addressed by
    their place in the frontier."""

    def rows(self) -> int:
        """The rows (or instances) of the frontier (for ``progress``)."""

    def stats(self) -> Any:
        """The statistics of the frontier's nodes, one per node (indexable)."""

    def closed(self, depths: np.ndarray) -> np.ndarray:
        """Which of the frontier's nodes, at ``depths``, are leaves before any search."""

    def keep(self, mask: np.ndarray) -> None:
        """The frontier reduced to the nodes ``mask`` (the others are leaves)."""

    def split(self, depths: np.ndarray, allowed: np.ndarray | None, paths: Sequence[tuple[int, ...]] | None, n_made: int) -> list[Decision | None]:
        """Each node's :data:`Decision` (None: a leaf), from its candidate statistics;
        ``allowed`` (nodes, features): the features each may split on (None: all), drawn
        from the nodes' ``paths``; ``n_made``: the nodes of the tree so far."""

    def advance(self) -> None:
        """The rows moved to the children that grow on: the next frontier, in the order of the
        decisions and their branches."""


def grow(source: Source, *, n_features: int, max_features: Any = None, feature_key: Any = (0,), progress: Callable[[int, int, int], Any] | None = None, sizes: Sizes | None = None) -> Node:
    """The root of the tree grown from ``source``, a frontier at a time until no node is open.
    ``max_features``: each node splits on its own draw of the ``n_features`` features
    (:func:`puretree.splits.node_features`, keyed by ``feature_key`` and its path).
    ``progress(depth, nodes, rows)``: called once per depth, with the nodes made at that depth
    and the rows of the frontier. ``sizes``: the tree read off the full one by
    :func:`best_first_records`, each split ranked by its decision's recorded score and weight."""
    made: list[Any] = [None]  # a leaf's statistics (a list of floats), or a split's record (feature, test, children's ids, statistics)
    scored: dict[int, tuple[float, float]] = {}  # sizes: each split's (score, weight), by record id
    frontier = [0]  # the records' ids of the open nodes, in the source's order
    path_of: dict[int, tuple[int, ...]] = {0: ()}  # feature subsampling: each open node's path
    draws = None if max_features is None else _Draws(n_features, max_features, feature_key)  # and its generator's pool
    depth = reported = 0
    while frontier:
        if progress is not None:  # this depth's nodes, and the leaves made early at this depth
            progress(depth, len(made) - reported, source.rows())
            reported = len(made)
        depths = np.full(len(frontier), depth)  # level by level: the frontier is one depth
        closed = source.closed(depths)
        stats = floats(source.stats())
        if closed.any():
            for i in np.flatnonzero(closed).tolist():
                made[frontier[i]] = stats[i]
            if closed.all():
                break
            kept = np.flatnonzero(~closed).tolist()
            frontier, stats = [frontier[i] for i in kept], [stats[i] for i in kept]
            source.keep(~closed)
            if draws is not None:
                draws.keep(np.flatnonzero(~closed))
            depths = depths[~closed]
        paths = allowed = None
        if draws is not None:
            paths = [path_of.pop(g) for g in frontier]
            allowed = draws.allowed(paths)
        decisions = source.split(depths, allowed, paths, len(made))
        next_frontier: list[int] = []
        parents: list[int] = []  # per child that grows on (feature subsampling): its parent's place in the frontier, its branch
        turns: list[int] = []
        leaves: list[int] = []  # the ids of the children that are leaves at once, and their statistics
        leaf_stats: list[Any] = []
        for i, (g, decision) in enumerate(zip(frontier, decisions)):
            if decision is None:
                made[g] = stats[i]
                continue
            feature, test, branches = decision[0], decision[1], decision[2]
            if sizes is not None:
                scored[g] = (decision[3], decision[4])  # type: ignore[misc]  # a sized fit's sources record them
            kids = range(len(made), len(made) + len(branches))
            for b, child in zip(kids, branches):
                if child is None:  # grows on
                    made.append(None)
                    next_frontier.append(b)
                    if paths is not None:
                        path_of[b] = (*paths[i], b - kids.start)
                        parents.append(i)
                        turns.append(b - kids.start)
                else:
                    made.append(None)
                    leaves.append(b)
                    leaf_stats.append(child)
            made[g] = (feature, test, kids, stats[i])
        for b, child_stats in zip(leaves, floats(leaf_stats) if leaf_stats else ()):
            made[b] = child_stats
        if not next_frontier:
            break
        if draws is not None:
            draws.descend(parents, turns)
        source.advance()
        frontier = next_frontier
        depth += 1
    if progress is not None and len(made) > reported:  # the last children, all leaves made at once
        progress(depth + 1, len(made) - reported, 0)
    if sizes is not None:
        total = sizes.total_weight
        if total is None:  # the root's weight: its split's (a lone leaf ranks nothing)
            total = scored[0][1] if 0 in scored else 1.0
        gains = {g: sizes.improvement(s, w, total) for g, (s, w) in scored.items()}
        made = best_first_records(made, gains, max_leaf_nodes=sizes.max_leaf_nodes)
    return from_records(made, trusted=True)


class FrontierHeap:
    """Best-first growth's frontier as scikit-learn's ``BestFirstTreeBuilder`` keeps it: a max-heap
    on the nodes' improvement, ``std::push_heap`` and ``std::pop_heap`` (libstdc++'s sift-up
    and hole-moving sift-down, comparing with ``<`` only), so nodes of equal improvement leave
    it in scikit-learn's order (checked against libstdc++). Every node enters, a leaf with improvement 0.

    >>> heap = FrontierHeap()
    >>> for improvement, name in [(0.5, "a"), (0.0, "leaf"), (0.5, "b"), (0.9, "c")]:
    ...     heap.push(improvement, name)
    >>> [heap.pop() for _ in range(len(heap))]
    ['c', 'b', 'a', 'leaf']
    """

    def __init__(self) -> None:
        self._keys: list[float] = []
        self._items: list[Any] = []

    def __len__(self) -> int:
        return len(self._keys)

    def push(self, improvement: float, item: Any) -> None:
        """``item`` in, as ``push_back`` then ``std::push_heap``."""
        self._keys.append(improvement)
        self._items.append(item)
        self._sift_up(len(self._keys) - 1, 0, improvement, item)

    def pop(self) -> Any:
        """The item of largest improvement out, as ``std::pop_heap`` then ``back``/``pop_back``."""
        keys, items = self._keys, self._items
        last = len(keys) - 1
        if last > 0:  # pop_heap: the last element moves into the hole left by the top
            key, item = keys[last], items[last]
            keys[last], items[last] = keys[0], items[0]
            self._adjust(0, last, key, item)
        items_top = items.pop()
        keys.pop()
        return items_top

    def _sift_up(self, hole: int, top: int, key: float, item: Any) -> None:  # libstdc++'s __push_heap
        keys, items = self._keys, self._items
        parent = (hole - 1) // 2
        while hole > top and keys[parent] < key:
            keys[hole], items[hole] = keys[parent], items[parent]
            hole = parent
            parent = (hole - 1) // 2
        keys[hole], items[hole] = key, item

    def _adjust(self, hole: int, length: int, key: float, item: Any) -> None:  # libstdc++'s __adjust_heap
        keys, items = self._keys, self._items
        top = second = hole
        while second < (length - 1) // 2:
            second = 2 * (second + 1)
            if keys[second] < keys[second - 1]:
                second -= 1
            keys[hole], items[hole] = keys[second], items[second]
            hole = second
        if length % 2 == 0 and second == (length - 2) // 2:
            second = 2 * (second + 1)
            keys[hole], items[hole] = keys[second - 1], items[second - 1]
            hole = second - 1
        self._sift_up(hole, top, key, item)


def best_first(root: Node, gain: Callable[[Split], float | None], *, max_leaf_nodes: int | None) -> Node:
    """The tree that best-first growth makes, read off ``root``, the tree the same rules grow
    without a leaf budget: a node's split depends on its rows only, not on when it is expanded,
    so scikit-learn's ``BestFirstTreeBuilder`` makes exactly the splits of ``root`` that its
    :class:`FrontierHeap` reaches, ranked by ``gain(split)`` (None: the split is not made, as
    scikit-learn's ``min_impurity_decrease`` refuses it; the node is a leaf of the split's
    statistics), until the tree has ``max_leaf_nodes`` leaves (None: no budget). This lets any
    engine that grows the full tree grow the best-first one.

    >>> from puretree.nodes import Threshold
    >>> leaf = lambda *c: Leaf(c)
    >>> full = Split(0, Threshold(1.0), (Split(1, Threshold(2.0), (leaf(3.0, 0.0), leaf(0.0, 1.0)), (3.0, 1.0)), leaf(0.0, 4.0)), (3.0, 5.0))
    >>> small = best_first(full, lambda s: float(s.counts[0] * s.counts[1]), max_leaf_nodes=2)
    >>> [type(kid).__name__ for kid in small.children], small.children[0].counts
    (['Leaf', 'Leaf'], (3.0, 1.0))
    """
    # The nodes as the frontier loop's records (children after their parent), read as its are.
    records: list[Any] = []
    gains: dict[int, float | None] = {}
    pending = [root]
    while len(records) < len(pending):
        node = pending[len(records)]
        if isinstance(node, Leaf):
            records.append(list(node.counts))
            continue
        gains[len(records)] = gain(node)
        records.append((node.feature, node.test, range(len(pending), len(pending) + len(node.children)), list(node.counts)))
        pending.extend(node.children)
    return from_records(best_first_records(records, gains, max_leaf_nodes=max_leaf_nodes))


def best_first_records(records: Sequence[Any], gains: Any, *, max_leaf_nodes: int | None) -> list[Any]:
    """:func:`best_first` on the frontier loop's records (a leaf's statistics, or a split's
    ``(feature, test, children's ids, statistics)``; children after their parent), each split
    ranked by ``gains[id]`` (None: not made, a leaf of the split's statistics): the records of
    the best-first tree, renumbered.

    >>> from puretree.nodes import Threshold
    >>> full = [(0, Threshold(1.0), range(1, 3), [3.0, 5.0]), (1, Threshold(2.0), range(3, 5), [3.0, 1.0]), [0.0, 4.0], [3.0, 0.0], [0.0, 1.0]]
    >>> best_first_records(full, {0: 0.5, 1: 0.1}, max_leaf_nodes=2)[1:]
    [[3.0, 1.0], [0.0, 4.0]]
    """
    out: list[Any] = [None]
    heap = FrontierHeap()
    heap.push(_gain_of(records, gains, 0), (0, 0))
    leaves = 1
    while heap:
        at, g = heap.pop()
        rec = records[g]
        branches = 0 if type(rec) is list or gains.get(g) is None else len(rec[2])
        if not branches or (max_leaf_nodes is not None and leaves + branches - 1 > max_leaf_nodes):
            out[at] = rec if type(rec) is list else rec[3]
            continue
        leaves += branches - 1
        kids = range(len(out), len(out) + branches)
        out.extend([None] * branches)
        for kid, child in zip(kids, rec[2]):
            heap.push(_gain_of(records, gains, child), (kid, child))
        out[at] = (rec[0], rec[1], kids, rec[3])
    return out


def _gain_of(records: Sequence[Any], gains: Any, g: int) -> float:
    """Record ``g``'s place in best-first's heap: its split's gain, else 0 (a leaf)."""
    gain = None if type(records[g]) is list else gains.get(g)
    return 0.0 if gain is None else gain


# -- feature subsampling's draws, a frontier at a time ------------------------------------------
# node_features(n, m, key, path) is numpy's default_rng(SeedSequence(seed, spawn_key=(*member, 1,
# *path))).choice(n, m, replace=False). A node's SeedSequence pool is its parent's with one more
# entropy word (its branch), so the loop carries each open node's pool and makes a whole
# frontier's draws in a few dozen numpy calls instead of a generator object per node: the pools'
# last word mixed in (bit_generator.pyx's mix_entropy), generate_state(4, uint64), PCG64 seeded
# from it and stepped (pcg64.h: XSL-RR 128/64, 32-bit outputs handed out low half first, the
# 128-bit state as four 32-bit limbs), Lemire's bounded draws and Floyd's algorithm
# (Generator.choice for populations up to 10,000), operation for operation; a node whose draw
# would reject a 32-bit word (a chance of about m * n / 2**32) is drawn by node_features itself.
_M32 = 0xFFFFFFFF
_INIT_A, _MULT_A, _INIT_B, _MULT_B, _MIX_L, _MIX_R = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED, 0xCA01F9DD, 0x4973F715
_PCG_MULT = (2549297995355413924 << 64) + 4865540595714422341
#: Most features numpy's ``choice`` draws by Floyd's algorithm (it shuffles above).
_FLOYD_MAX = 10_000


def _hash_constants(start: int, count: int, mult: int) -> tuple[np.ndarray, np.ndarray]:
    """The hash constant before and after each of ``count`` steps from ``start``."""
    pre = [start]
    for _ in range(count):
        pre.append(pre[-1] * mult & _M32)
    return np.array(pre[:-1], dtype=np.uint32), np.array(pre[1:], dtype=np.uint32)


def _limbs(values: list[int]) -> np.ndarray:
    """128-bit numbers as four 32-bit limbs each, lowest first (uint64)."""
    return np.array([[v >> (32 * i) & _M32 for i in range(4)] for v in values], dtype=np.uint64)


# which column of a 128-bit product each 32 x 32-bit partial product's low and high halves add to
_LOW = np.array([[int(a + b == i) for i in range(4)] for a in range(4) for b in range(4)], dtype=np.uint64)
_HIGH = np.array([[int(a + b + 1 == i) for i in range(4)] for a in range(4) for b in range(4)], dtype=np.uint64)


class _Draws:
    """The feature draws of one tree's nodes: each open node's SeedSequence pool, a frontier at a time."""

    def __init__(self, n_features: int, max_features: int, key: Any) -> None:
        self.n, self.m, self.key = n_features, max_features, key
        spawn = (*key[1:], 1)  # one 32-bit word each, after the seed's four (node_features' words)
        self.fast = 0 <= key[0] < 2**32 and all(0 <= v < 2**32 for v in spawn) and max_features < n_features <= _FLOYD_MAX
        if not self.fast:
            return
        self.pools = np.random.SeedSequence(key[0], spawn_key=spawn).pool.reshape(1, 4)  # the root's
        self.hash = _INIT_A * pow(_MULT_A, 16 + 4 * len(spawn), 2**32) & _M32  # the mixer's constant after the root's words
        self.b_pre, self.b_post = _hash_constants(_INIT_B, 8, _MULT_B)
        outputs = (max_features + 1) // 2  # 64-bit outputs: two 32-bit draws each
        powers = [pow(_PCG_MULT, t, 2**128) for t in range(outputs + 2)]
        self.factors = np.stack([_limbs(powers[2 : outputs + 2]), _limbs([sum(powers[: t + 1]) % 2**128 for t in range(1, outputs + 1)])], axis=1)  # (outputs, 2, 4)
        first = n_features - max_features  # Floyd's j runs first..n-1, a draw in [0, j] each
        excl = np.arange(first + 1, n_features + 1, dtype=np.uint64)
        self.excl, self.reject_below = excl, (2**32 - excl) % excl

    def allowed(self, paths: Sequence[tuple[int, ...]]) -> np.ndarray:
        """``(nodes, features)``: the features each node of the frontier (its ``paths``, in the
        order of the pools) may split on."""
        N = len(paths)
        out = np.zeros((N, self.n), dtype=bool)
        if not self.fast:
            for i, path in enumerate(paths):
                out[i, node_features(self.n, self.m, self.key, path)] = True
            return out
        pools = self.pools.astype(np.uint64)
        w = (pools[:, [0, 1, 2, 3, 0, 1, 2, 3]] ^ self.b_pre) * self.b_post & _M32  # generate_state(4, uint64)'s eight words
        w ^= w >> 16
        seed = w[:, [2, 3, 0, 1]]  # (high word, low word) -> limbs
        seq = w[:, [6, 7, 4, 5]]
        inc = (seq << 1) & _M32
        inc[:, 1:] |= seq[:, :-1] >> 31
        inc[:, 0] |= 1
        x = seed + inc  # PCG64's state after seeding is MULT * (seed + inc) + inc; carried below
        for i in range(3):
            x[:, i + 1] += x[:, i] >> 32
        x &= _M32
        # the state of each output t: MULT**(t+1) * x + (1 + MULT + ... + MULT**t) * inc
        parts = np.stack([x, inc], axis=1)[:, None, :, :, None] * self.factors[None, :, :, None, :]  # (N, outputs, 2, 4, 4)
        parts = parts.reshape(N, len(self.factors), 32)
        state = (parts & _M32) @ np.tile(_LOW, (2, 1)) + (parts >> 32) @ np.tile(_HIGH, (2, 1))
        for i in range(3):
            state[..., i + 1] += state[..., i] >> 32
        state &= _M32
        hi = state[..., 3] << 32 | state[..., 2]
        xor = hi ^ (state[..., 1] << 32 | state[..., 0])
        rot = hi >> 58
        value = xor >> rot | xor << ((64 - rot) & 63)
        words = np.stack([value & _M32, value >> 32], axis=-1).reshape(N, -1)[:, : self.m]  # the 32-bit draws, low half first
        product = words * self.excl
        values = (product >> 32).astype(np.int64)  # Lemire: [0, j] from the high word
        bad = ((product & _M32) < self.reject_below).any(axis=1)  # a rejected word: numpy draws again
        flat = out.reshape(-1)
        base = np.arange(N) * self.n
        first = self.n - self.m
        for i in range(self.m):  # Floyd: v, or j when v was drawn already
            at = base + values[:, i]
            flat[np.where(flat[at], base + first + i, at)] = True
        for i in np.flatnonzero(bad).tolist():
            out[i] = False
            out[i, node_features(self.n, self.m, self.key, paths[i])] = True
        return out

    def keep(self, kept: np.ndarray) -> None:
        """The pools of the frontier's nodes ``kept`` (their indices)."""
        if self.fast:
            self.pools = self.pools[kept]

    def descend(self, parents: Sequence[int], branches: Sequence[int]) -> None:
        """The next frontier's pools: child ``c`` of frontier node ``parents[c]`` down branch
        ``branches[c]`` (its pool: the parent's with the branch's word mixed in)."""
        if not self.fast:
            return
        pre, post = _hash_constants(self.hash, 4, _MULT_A)
        self.hash = int(post[-1])
        word = np.asarray(branches, dtype=np.uint32)[:, None]
        h = (word ^ pre) * post
        h ^= h >> 16
        pools = self.pools[np.asarray(parents, dtype=np.int64)] * np.uint32(_MIX_L) - h * np.uint32(_MIX_R)
        pools ^= pools >> 16
        self.pools = pools

def floats(stats: Any) -> list[list[float]]:
    """Each node's statistics as a list of Python floats, checked finite (what
    :func:`from_records` then takes as is); a non-finite one is refused as a leaf refuses it.

    >>> floats(np.array([[1.0, 2.0]]))
    [[1.0, 2.0]]
    """
    rows = np.asarray(stats, dtype=np.float64) if isinstance(stats, np.ndarray) else np.stack([np.asarray(s, dtype=np.float64) for s in stats])
    finite = np.isfinite(rows).all(axis=-1)
    if not finite.all():
        Leaf(rows[np.argmin(finite)])  # raises ParameterError, naming the value
    return rows.tolist()
