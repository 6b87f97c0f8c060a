"""Nodes from records: the one place a tree's nodes are put together, bottom-up.

Every builder that does not recurse (the frontier loop over every source), JSON
loading, the scikit-learn bridge and the Hypothesis strategies number their nodes so that
children have larger ids than their parent, and make each node once its children are made.
:func:`assemble` is that loop; :func:`from_records` the records the frontier loop produces.

>>> from puretree.nodes import Leaf, Threshold
>>> root = from_records([(0, Threshold(2.5), (1, 2), (2.0, 2.0)), Leaf((2.0, 0.0)), Leaf((0.0, 2.0))])
>>> root.test, [kid.stats for kid in root.children]
(Threshold(value=2.5), [(2.0, 0.0), (0.0, 2.0)])
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..nodes import Leaf, Node, Split, Test, Threshold

__all__ = ["assemble", "from_records", "from_binary_arrays", "Record", "trusted_threshold"]

#: A split's record: its feature, its test, its children's ids and its statistics.
Record = tuple[int, Test, Sequence[int], Any]


def assemble(kids: Sequence[Sequence[int]], node: Callable[[int, tuple[Any, ...]], Node]) -> Node:
    """The root of the nodes ``node(g, children)`` makes, ``g`` from the last id down to 0,
    each given its children already made; ``kids[g]`` are node ``g``'s children's ids, all
    larger than ``g``. A node is released from the working list once its parent holds it, so
    at any time each node is referenced once.

    >>> from puretree.nodes import Threshold
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


def from_records(records: Sequence[Leaf | list[float] | Record], *, trusted: bool = False) -> Node:
    """Nodes from growth records, children with larger ids than their parent: a ``Leaf`` or a
    leaf's statistics (a list of floats), or a split's :data:`Record` ``(feature, test,
    children's ids, statistics)``. ``trusted``: every list of statistics holds finite Python
    floats and every feature is a non-negative int (the frontier loop checks its statistics a
    level at a time), so the nodes' fields are set without their converters and validators
    running again (they cost more than the growth of a small tree); the nodes are the same
    values, their digests computed as always.

    >>> from puretree.nodes import Threshold
    >>> from_records([(0, Threshold(2.5), (1, 2), [2.0, 2.0]), [2.0, 0.0], [0.0, 2.0]], trusted=True) == from_records([(0, Threshold(2.5), (1, 2), (2.0, 2.0)), Leaf((2.0, 0.0)), Leaf((0.0, 2.0))])
    True
    """

    def node(g: int, children: tuple[Node, ...]) -> Node:
        rec = records[g]
        if isinstance(rec, Leaf):
            return rec
        if isinstance(rec, list):
            return _trusted_leaf(rec) if trusted else Leaf(rec)
        if trusted and type(rec[3]) is list:
            return _trusted_split(rec[0], rec[1], children, rec[3])
        return Split(rec[0], rec[1], children, rec[3])

    return assemble([() if isinstance(r, (Leaf, list)) else r[2] for r in records], node)


_set = object.__setattr__  # the nodes are frozen: set their slots as attrs' own __init__ does


def _trusted_leaf(stats: list[float]) -> Leaf:
    node = object.__new__(Leaf)
    stats_ = tuple(stats)
    _set(node, "stats", stats_)
    _set(node, "_digest", hash((("leaf", stats_), ())))  # nodes._digest, written out: a node's fields and its children's digests
    return node


def trusted_threshold(value: float, missing_branch: int | None = None) -> Threshold:
    """``Threshold(value, missing_branch=missing_branch)`` for a Python float found by a scan
    (a midpoint of two training values, or one of them; ``+inf`` with ``missing_branch=1``) and
    a Python int side (0, 1) or None, made without its converter and validators (a forest
    makes one a split). The same value: ``-0.0`` is made ``0.0`` as the converter makes it.

    >>> trusted_threshold(-0.0) == Threshold(0.0), hash(trusted_threshold(2.5, 0)) == hash(Threshold(2.5, missing_branch=0))
    (True, True)
    """
    test = object.__new__(Threshold)
    _set(test, "value", value + 0.0)
    _set(test, "missing_branch", missing_branch)
    return test


def _trusted_split(feature: int, test: Test, kids: tuple[Node, ...], stats: list[float]) -> Split:
    node = object.__new__(Split)
    stats_ = tuple(stats)
    _set(node, "feature", feature)
    _set(node, "test", test)
    _set(node, "children", kids)
    _set(node, "stats", stats_)
    _set(node, "surrogates", None)
    _set(node, "_digest", hash((("split", feature, test, stats_, None), tuple([c._digest for c in kids]))))
    return node


def from_binary_arrays(feature: Sequence[int], threshold: Sequence[float], first_child: Sequence[int], stats: Sequence[Sequence[float]], *, sides: Sequence[int] | None = None) -> Node:
    """The root of a tree of threshold splits given as arrays (as lists), node ``i`` a leaf
    where ``feature[i] < 0``, else ``x[feature[i]] <= threshold[i]`` with children
    ``first_child[i]`` and ``first_child[i] + 1`` (larger ids); ``stats[i]``: its statistics
    (finite Python floats), thresholds finite or ``+inf`` (the missing rows alone right), with no
    ``-0.0``; ``sides[i]``: the branch a missing value takes (a Python int, the threshold's
    ``missing_branch``; None: no side, the tree's strategy routes it). Trusted as :func:`from_records`
    with ``trusted=True`` is, and the same nodes, made in one loop (the random splitter's
    compiled tree, :mod:`puretree.growth.random_cuts`, is assembled in about the time it took to grow).

    >>> root = from_binary_arrays([0, -1, -1], [2.5, 0.0, 0.0], [1, -1, -1], [[2.0, 2.0], [2.0, 0.0], [0.0, 2.0]])
    >>> root == from_records([(0, Threshold(2.5), (1, 2), (2.0, 2.0)), Leaf((2.0, 0.0)), Leaf((0.0, 2.0))])
    True
    """
    n = len(feature)
    made: list[Any] = [None] * n
    digests: list[Any] = [None] * n  # each node's, read by its parent without an attribute lookup
    new = object.__new__
    # the slots' descriptors, set directly (the nodes are frozen; as attrs' own __init__ sets them)
    leaf_stats, leaf_digest = Leaf.__dict__["stats"].__set__, Leaf.__dict__["_digest"].__set__
    t_value, t_side = Threshold.__dict__["value"].__set__, Threshold.__dict__["missing_branch"].__set__
    s_feature, s_test, s_children, s_stats, s_surrogates, s_digest = (Split.__dict__[name].__set__ for name in ("feature", "test", "children", "stats", "surrogates", "_digest"))
    rows: Sequence[Any] = stats if n and type(stats[0]) is tuple else list(map(tuple, stats))  # (the tuples made in one C loop)
    side_of = [None] * n if sides is None else sides  # no side: the tree's strategy routes a missing value
    # equal leaves' statistics and digests made once (a grown-out tree's pure leaves repeat a few
    # counts): fewer objects for the cyclic collector to walk once an ensemble's fit ends
    leaves: dict[tuple[float, ...], tuple[tuple[float, ...], int]] = {}
    for g in range(n - 1, -1, -1):
        f, s = feature[g], rows[g]
        node: Any
        if f < 0:
            s, digest = leaves.get(s) or leaves.setdefault(s, (s, hash((("leaf", s), ()))))
            node = new(Leaf)
            leaf_stats(node, s)
            leaf_digest(node, digest)
        else:
            c = first_child[g]
            test = new(Threshold)
            t_value(test, threshold[g])
            t_side(test, side_of[g])
            node = new(Split)
            s_feature(node, f)
            s_test(node, test)
            s_children(node, (made[c], made[c + 1]))
            s_stats(node, s)
            s_surrogates(node, None)
            digest = hash((("split", f, test, s, None), (digests[c], digests[c + 1])))
            s_digest(node, digest)
        digests[g] = digest
        made[g] = node
    return made[0]
