"""The frontier loop: one way to grow a tree from any source of statistics.

A *source* holds the rows of the open nodes (the *frontier*) and answers for them: which are
leaves before any search (:meth:`Source.closed`), each one's decision, found from its
candidate statistics by the chooser of :mod:`puretree.growth.choose` (:meth:`Source.split`),
and, once decided, the rows moved to the children that grow on (:meth:`Source.advance`). The
loop keeps the records of the tree, numbers the nodes (children after their parent), draws
the features each node may split on (``max_features``, :func:`puretree.splits.node_features`:
the one draw of every source, a frontier at a time in one compiled call,
:func:`puretree.growth.kernels.draw_frontier`, the same numbers; node by node with
``node_features`` where the library is unavailable or not to be used) and assembles the nodes
(:func:`puretree.growth.assemble.from_records`).

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
from . import kernels
from .assemble import from_records

__all__ = ["Decision", "Source", "Sizes", "EPSILON", "grow", "drawn", "FrontierHeap", "best_first", "best_first_records", "floats"]

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


def grow(source: Source, *, n_features: int, max_features: Any = None, feature_key: Any = (0,), progress: Callable[[int, int, int], Any] | None = None, sizes: Sizes | None = None, compiled: bool = True) -> Node:
    """The root of the tree grown from ``source``, a frontier at a time until no node is open.
    ``max_features``: each node splits on its own draw of the ``n_features`` features
    (:func:`puretree.splits.node_features`, keyed by ``feature_key`` and its path; drawn by the
    compiled library where it loads, unless ``compiled`` is False: the numpy engine).
    ``progress(depth, nodes, rows)``: called once per depth, with the nodes made at that depth
    and the rows of the frontier. ``sizes``: the tree read off the full one by
    :func:`best_first_records`, each split ranked by its decision's recorded score and weight."""
    made: list[Any] = [None]  # a leaf's statistics (a list of floats), or a split's record (feature, test, children's ids, statistics)
    scored: dict[int, tuple[float, float]] = {}  # sizes: each split's (score, weight), by record id
    frontier = [0]  # the records' ids of the open nodes, in the source's order
    path_of: dict[int, tuple[int, ...]] = {0: ()}  # feature subsampling: each open node's path
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
            depths = depths[~closed]
        paths = allowed = None
        if max_features is not None:
            paths = [path_of.pop(g) for g in frontier]
            allowed = drawn(n_features, max_features, feature_key, paths, compiled=compiled)
        decisions = source.split(depths, allowed, paths, len(made))
        next_frontier: list[int] = []
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
                else:
                    made.append(None)
                    leaves.append(b)
                    leaf_stats.append(child)
            made[g] = (feature, test, kids, stats[i])
        for b, child_stats in zip(leaves, floats(leaf_stats) if leaf_stats else ()):
            made[b] = child_stats
        if not next_frontier:
            break
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


def drawn(n_features: int, max_features: int, key: Any, paths: Sequence[tuple[int, ...]], *, compiled: bool = True) -> np.ndarray:
    """``(nodes, features)`` bool: the features each node of a frontier (its ``paths``) may split
    on, :func:`puretree.splits.node_features`'s draws: all in one compiled call
    (:func:`puretree.growth.kernels.draw_frontier`) where ``compiled`` and the library loads,
    else node by node with ``node_features`` (the same sets).

    >>> drawn(10, 3, (0,), [(), (1,)], compiled=False).sum(axis=1).tolist()
    [3, 3]
    >>> (drawn(10, 3, (0,), [(), (1,)]) == drawn(10, 3, (0,), [(), (1,)], compiled=False)).all()
    np.True_
    """
    got = kernels.draw_frontier(n_features, max_features, key, paths) if compiled else None
    if got is not None:
        return got
    out = np.zeros((len(paths), n_features), dtype=bool)
    for i, path in enumerate(paths):
        out[i, node_features(n_features, max_features, key, path)] = True
    return out


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
