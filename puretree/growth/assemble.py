"""Nodes from records: the one place a tree's nodes are put together, bottom-up.

Every builder that does not recurse (the level-wise engine, its compiled kernel, Dask), JSON
loading, the scikit-learn bridge and the Hypothesis strategies number their nodes so that
children have larger ids than their parent, and make each node once its children are made.
:func:`assemble` is that loop; :func:`from_records` and :func:`from_arrays` are the two record
forms the growers produce.

>>> from puretree.nodes import Leaf, Threshold
>>> root = from_records([(0, Threshold(2.5), (1, 2), (2.0, 2.0)), Leaf((2.0, 0.0)), Leaf((0.0, 2.0))])
>>> root.test, [kid.stats for kid in root.children]
(Threshold(value=2.5), [(2.0, 0.0), (0.0, 2.0)])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..nodes import Leaf, Node, Split, Test, Threshold

__all__ = ["assemble", "from_records", "from_arrays", "Record"]

#: A split's record: its feature, its test, its children's ids and its statistics.
Record = tuple[int, Test, Sequence[int], Any]


def assemble(kids: Sequence[Sequence[int]], node: Callable[[int, tuple[Any, ...]], Node]) -> Node:
    """The root of the nodes ``node(g, children)`` makes, ``g`` from the last id down to 0,
    each given its children already made; ``kids[g]`` are node ``g``'s children's ids, all
    larger than ``g``. A node is released from the working list once its parent holds it, so
    at any time each node is referenced once.

    >>> stats = [(3.0, 1.0), (3.0, 0.0), (0.0, 1.0)]
    >>> root = assemble([(1, 2), (), ()], lambda g, c: Split(0, Threshold(1.0), c, stats[g]) if c else Leaf(stats[g]))
    >>> [kid.stats for kid in root.children]
    [(3.0, 0.0), (0.0, 1.0)]
    """
    made: list[Any] = [None] * len(kids)
    for g in range(len(kids) - 1, -1, -1):
        ids = kids[g]
        made[g] = node(g, tuple([made[c] for c in ids]))
        for c in ids:
            made[c] = None
    return made[0]


def from_records(records: Sequence[Leaf | Record]) -> Node:
    """Nodes from growth records, children with larger ids than their parent: a ``Leaf``, or
    a split's :data:`Record` ``(feature, test, children's ids, statistics)``."""

    def node(g: int, children: tuple[Node, ...]) -> Node:
        rec = records[g]
        if isinstance(rec, Leaf):
            return rec
        return Split(rec[0], rec[1], children, rec[3])

    return assemble([() if isinstance(r, Leaf) else r[2] for r in records], node)


def from_arrays(feature: np.ndarray, threshold: np.ndarray, child: np.ndarray, counts: np.ndarray, *, checked: bool = True) -> Node:
    """Nodes from a threshold tree's arrays (the compiled kernel's): node ``g`` is a leaf when
    ``child[g] < 0``, else a split on ``feature[g]`` at ``threshold[g]`` whose children are
    ``child[g]`` and ``child[g] + 1`` (larger ids); ``counts[g]`` its statistics.

    ``checked=False`` (the compiled kernel's own arrays: feature indices, finite thresholds and
    counts by construction) sets the nodes' fields without running their converters and
    validators again, which cost more than the kernel's growth on small data; the nodes are
    the same values (their digest is computed as always).

    >>> args = (np.array([0, -1, -1]), np.array([2.5, 0.0, 0.0]), np.array([1, -1, -1]), np.array([[2.0, 2.0], [2.0, 0.0], [0.0, 2.0]]))
    >>> from_arrays(*args, checked=False) == from_arrays(*args)
    True
    """
    ft, thr, ch, cn = feature.tolist(), threshold.tolist(), child.tolist(), counts.tolist()
    leaf, split, test = (Leaf, Split, Threshold) if checked else (_trusted_leaf, _trusted_split, _trusted_threshold)

    def node(g: int, children: tuple[Node, ...]) -> Node:
        return split(ft[g], test(thr[g]), children, cn[g]) if children else leaf(cn[g])

    return assemble([() if c < 0 else (c, c + 1) for c in ch], node)


_set = object.__setattr__  # the nodes are frozen: set their slots as attrs' own __init__ does


def _trusted_threshold(value: float) -> Threshold:
    test = object.__new__(Threshold)
    _set(test, "value", value + 0.0)  # one zero, as Threshold's converter makes it
    return test


def _trusted_leaf(stats: list[float]) -> Leaf:
    node = object.__new__(Leaf)
    _set(node, "stats", tuple(stats))
    node.__attrs_post_init__()  # the digest
    return node


def _trusted_split(feature: int, test: Threshold, kids: tuple[Node, ...], stats: list[float]) -> Split:
    node = object.__new__(Split)
    _set(node, "feature", feature)
    _set(node, "test", test)
    _set(node, "children", kids)
    _set(node, "stats", tuple(stats))
    _set(node, "surrogates", None)
    node.__attrs_post_init__()  # the digest
    return node
