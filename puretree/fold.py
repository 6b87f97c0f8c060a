"""The traversal kit: folds, walks and rewrites over trees, iterative at any depth.

Trees can be thousands of levels deep (a fully grown tree on an alternating label), so
nothing here uses the Python call stack per level: every function keeps its own explicit
stack. Three primitives cover the library's walks:

- :func:`fold`, bottom-up: ``f(node, results)`` receives its children's results, left to
  right, and returns the node's result (the root's result is the fold's);
- :func:`walk`, top-down: each node gets the value its parent handed down (``start`` for the
  root; ``down(node, value)`` gives one value per child); it yields ``(node, value)`` in pre-order;
- :func:`rewrite`, built from them: children are rewritten first, then ``rule`` sees the
  updated node and may replace it; with ``down``, the rule also gets the node's top-down value.

For output that opens a node before its children and closes it after them (nested code, a
table of pre-order ids), :func:`events` is the walk with an ``"enter"`` and a ``"leave"``
event per node; :func:`path_down` and :func:`path_of` hand each node its path from the root
as shared cells, so that a walk over every node holds memory linear in the nodes.

>>> from puretree.nodes import Leaf, NumericSplit
>>> node = NumericSplit(0, 0.5, Leaf((1, 0)), NumericSplit(0, 1.5, Leaf((0, 1)), Leaf((1, 0)), (1, 1)), (2, 1))
>>> fold(node, lambda n, kids: 1 + sum(kids))          # number of nodes
5
>>> fold(node, lambda n, kids: 1 + max(kids, default=-1))  # depth (edges)
2
>>> [(n.stats, d) for n, d in walk(node, lambda n, d: [d + 1] * len(children(n)), 0)]
[((2.0, 1.0), 0), ((1.0, 0.0), 1), ((1.0, 1.0), 1), ((0.0, 1.0), 2), ((1.0, 0.0), 2)]

The rule combinators (:func:`first_of`, :func:`chain`, :func:`fixed_point`) build one rule
from several; :func:`subtree_sizes` and :func:`subtree_sums` are the bottom-up fold over the
pre-order arrays of :func:`puretree.flat.flatten`.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

import attrs
import numpy as np

from .errors import ParameterError
from .nodes import Leaf, Node, Split, children, with_children

if TYPE_CHECKING:  # the tree value sits above the traversal kit, which reads only its root
    from .tree import Tree

__all__ = [
    "run",
    "fold",
    "walk",
    "rewrite",
    "iter_nodes",
    "iter_paths",
    "events",
    "ENTER",
    "LEAVE",
    "path_down",
    "path_of",
    "first_of",
    "chain",
    "fixed_point",
    "n_nodes",
    "n_leaves",
    "depth",
    "subtree_sizes",
    "subtree_sums",
]

T = TypeVar("T")
Rule = Callable[..., "Node | None"]
#: ``down(node, value)``: the values ``node`` hands its children, one per child.
Down = Callable[[Node, Any], Iterable[Any]]


def run(gen: Generator[Any, Any, T]) -> T:
    """Drive a generator-based recursion without growing the Python stack.

    A generator yields a generator (a sub-call) and is sent back that sub-call's
    return value. ``run`` returns the outermost generator's return value.

    >>> def countdown(n):
    ...     if n == 0:
    ...         return 0
    ...     return 1 + (yield countdown(n - 1))
    >>> run(countdown(100_000))
    100000
    """
    stack = [gen]
    value: Any = None
    while True:
        try:
            sub = stack[-1].send(value)
        except StopIteration as stop:
            stack.pop()
            if not stack:
                return stop.value
            value = stop.value
            continue
        stack.append(sub)
        value = None


def _root(tree_or_node: Tree | Node) -> Node:
    return tree_or_node if isinstance(tree_or_node, (Leaf, Split)) else tree_or_node.root


def _handed_down(down: Down, node: Node, value: Any, n: int) -> tuple[Any, ...]:
    """The values ``down`` gives a node's ``n`` children, checked: one per child."""
    given: Any = down(node, value)
    if type(given) in (list, tuple) and len(given) == n:  # the usual answer, copied in one step
        return tuple(given)
    values = tuple(itertools.islice(given, n))
    if len(values) != n or (hasattr(given, "__len__") and len(given) != n):
        raise ParameterError(f"down(node, value) must give one value per child: the node has {n} children, it gave {len(given) if hasattr(given, '__len__') else len(values)}")
    return values


def fold(tree_or_node: Tree | Node, f: Callable[..., T], *, down: Down | None = None, start: Any = None) -> T:
    """Bottom-up fold: ``f(node, results_of_children)``, children left to right, each node
    after all its descendants (post-order). With ``down``, each node also gets the value its
    parent handed down, as in :func:`walk`, and ``f`` is called as ``f(node, results, value)``.

    >>> from puretree.nodes import Leaf, NumericSplit
    >>> node = NumericSplit(0, 0.5, Leaf((1, 0)), Leaf((0, 1)), (1, 1))
    >>> fold(node, lambda n, kids, d: max(kids, default=d), down=lambda n, d: [d + 1, d + 1], start=0)
    1
    """
    # A frame: the node, its top-down value, its children, their values, their results so far.
    def frame(node: Node, value: Any) -> tuple[Node, Any, tuple[Node, ...], tuple[Any, ...] | None, list[Any]]:
        kids = children(node)
        values = _handed_down(down, node, value, len(kids)) if down is not None and kids else None
        return node, value, kids, values, []

    stack = [frame(_root(tree_or_node), start)]
    while True:
        node, value, kids, values, results = stack[-1]
        i = len(results)
        if i < len(kids):
            stack.append(frame(kids[i], None if values is None else values[i]))
            continue
        stack.pop()
        out = f(node, tuple(results)) if down is None else f(node, tuple(results), value)
        if not stack:
            return out
        stack[-1][4].append(out)


def walk(tree_or_node: Tree | Node, down: Down, start: Any) -> Iterator[tuple[Node, Any]]:
    """Top-down walk: ``(node, value)`` in pre-order (a node before its children, children
    left to right). The root's value is ``start``; ``down(node, value)`` gives the values for
    the node's children, one per child (a sequence of that length, or an iterator such as
    ``itertools.repeat(v)``). It is called only for a split, and only when the walk goes on
    past it, so a consumer that stops early never asks for values it does not need.

    >>> from puretree.nodes import Leaf, NumericSplit
    >>> node = NumericSplit(0, 0.5, Leaf((1, 0)), Leaf((0, 1)), (1, 1))
    >>> [path for n, path in walk(node, lambda n, p: [p + "L", p + "R"], "")]
    ['', 'L', 'R']
    """
    stack = [(_root(tree_or_node), start)]
    while stack:
        node, value = stack.pop()
        yield node, value
        kids = children(node)
        if kids:
            stack.extend(zip(reversed(kids), reversed(_handed_down(down, node, value, len(kids)))))


def rewrite(tree_or_node: Tree | Node, rule: Rule, *, down: Down | None = None, start: Any = None) -> Any:
    """Bottom-up rewrite: children are rewritten first, then ``rule`` sees the updated node.

    ``rule(node)`` returns a replacement node, or ``None`` when it does not apply. With
    ``down``, the rule is called as ``rule(node, value)``, ``value`` being what :func:`walk`
    would hand the (original) node: its pre-order id, its depth, the path to it... Unchanged
    subtrees are shared, not copied. A :class:`Tree` comes back as a tree with the same schema
    (the very same tree when nothing changed). It is a :func:`fold` whose result is the node.

    >>> from puretree.nodes import Leaf, NumericSplit
    >>> same = lambda n: Leaf(n.stats) if children(n) and all(not children(c) for c in children(n)) else None
    >>> rewrite(NumericSplit(0, 0.5, Leaf((1, 0)), Leaf((0, 1)), (1, 1)), same)
    Leaf(stats=(1.0, 1.0))
    >>> deeper = lambda n, d: Leaf(n.stats) if d >= 1 and children(n) else None   # cut below depth 1
    >>> t = NumericSplit(0, 0.5, Leaf((1, 0)), NumericSplit(0, 1.5, Leaf((0, 1)), Leaf((1, 0)), (1, 1)), (2, 1))
    >>> rewrite(t, deeper, down=lambda n, d: [d + 1] * len(children(n)), start=0).right
    Leaf(stats=(1.0, 1.0))
    """

    def step(node: Node, kids: tuple[Node, ...], *value: Any) -> Node:
        if kids:
            node = with_children(node, kids)  # the same node when no child changed
        replaced = rule(node, *value)
        return node if replaced is None else replaced

    if not isinstance(tree_or_node, (Leaf, Split)):  # a tree: its root rewritten, its schema kept
        new_root = fold(tree_or_node.root, step, down=down, start=start)
        return tree_or_node if new_root is tree_or_node.root else attrs.evolve(tree_or_node, root=new_root)
    return fold(tree_or_node, step, down=down, start=start)


def iter_nodes(tree_or_node: Tree | Node) -> Iterator[Node]:
    """All nodes in pre-order (a node before its children, children left to right)."""
    stack = [_root(tree_or_node)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def path_down(node: Node, cell: Any) -> list[Any]:
    """A :data:`Down` handing each child its path from the root as a linked cell,
    ``(parent's cell, (split, branch_index))`` (the root's cell is ``None``).

    Pending nodes share their parents' cells, so a walk over every node with its path holds
    memory linear in the nodes, not in depth times nodes; :func:`path_of` makes a cell a tuple.

    >>> from puretree.nodes import Leaf, NumericSplit
    >>> node = NumericSplit(0, 0.5, Leaf((1, 0)), NumericSplit(0, 1.5, Leaf((0, 1)), Leaf((1, 0)), (1, 1)), (2, 1))
    >>> [[i for _, i in path_of(cell)] for n, cell in walk(node, path_down, None)]
    [[], [0], [1], [1, 0], [1, 1]]
    """
    return [(cell, (node, i)) for i in range(len(children(node)))]


def path_of(cell: Any) -> tuple[tuple[Node, int], ...]:
    """The path a :func:`path_down` cell stands for: ``((split, branch_index), ...)`` from the root."""
    steps = []
    while cell is not None:
        cell, step = cell
        steps.append(step)
    return tuple(reversed(steps))


def iter_paths(tree_or_node: Tree | Node) -> Iterator[tuple[tuple[tuple[Node, int], ...], Node]]:
    """Every leaf with its path: ``((split, branch_index), ...), leaf``, in pre-order.

    >>> from puretree.nodes import Leaf, NumericSplit
    >>> node = NumericSplit(0, 0.5, Leaf((1, 0)), Leaf((0, 1)), (1, 1))
    >>> [(len(path), path[0][1], leaf) for path, leaf in iter_paths(node)]
    [(1, 0, Leaf(stats=(1.0, 0.0))), (1, 1, Leaf(stats=(0.0, 1.0)))]
    """
    # The walk's pending nodes share their paths (:func:`path_down`); a leaf's path becomes a
    # tuple only when it is yielded.
    return ((path_of(cell), node) for node, cell in walk(tree_or_node, path_down, None) if not children(node))


#: The two kinds of :func:`events`.
ENTER, LEAVE = "enter", "leave"


def events(tree_or_node: Tree | Node, *, down: Down | None = None, start: Any = None) -> Iterator[tuple[str, Node, Any]]:
    """The walk as events: ``(ENTER, node, value)`` before a node's descendants and
    ``(LEAVE, node, value)`` after them, leaves included. Enter events come in pre-order (the
    k-th is the node of pre-order id k); leave events in post-order. ``value`` is what
    :func:`walk` hands the node (``start`` for the root, ``down`` for its children, asked for
    a split only once its enter event has been consumed); without ``down``, a child's is ``None``.

    What a node writes before its first child goes with its enter event, what follows its last
    with its leave event, and what comes between two children with the second's enter event
    (its branch index handed down): nested output in one pass, in time linear in the nodes.

    >>> from puretree.nodes import Leaf, NumericSplit
    >>> node = NumericSplit(0, 0.5, Leaf((1, 0)), NumericSplit(0, 1.5, Leaf((0, 1)), Leaf((1, 0)), (1, 1)), (2, 1))
    >>> out = []
    >>> for what, n, d in events(node, down=lambda n, d: [d + 1] * len(children(n)), start=0):
    ...     if what == ENTER:
    ...         out.append("  " * d + ("leaf" if not children(n) else f"x <= {n.threshold}?"))
    ...     elif children(n):
    ...         out.append("  " * d + "end")
    >>> for line in out:
    ...     print(line)
    x <= 0.5?
      leaf
      x <= 1.5?
        leaf
        leaf
      end
    end
    """
    stack: list[tuple[str, Node, Any]] = [(ENTER, _root(tree_or_node), start)]
    while stack:
        what, node, value = stack.pop()
        yield what, node, value
        if what == LEAVE:
            continue
        stack.append((LEAVE, node, value))
        kids = children(node)
        if kids:
            values = _handed_down(down, node, value, len(kids)) if down is not None else (None,) * len(kids)
            stack.extend(zip(itertools.repeat(ENTER), reversed(kids), reversed(values)))


def n_nodes(tree_or_node: Tree | Node) -> int:
    """Number of nodes, leaves included."""
    return sum(1 for _ in iter_nodes(tree_or_node))


def n_leaves(tree_or_node: Tree | Node) -> int:
    """Number of leaves."""
    return sum(1 for n in iter_nodes(tree_or_node) if not children(n))


def depth(tree_or_node: Tree | Node) -> int:
    """Length of the longest root-to-leaf path, in edges (a single leaf has depth 0)."""
    return max(d for _, d in walk(tree_or_node, lambda node, d: itertools.repeat(d + 1), 0))


def first_of(*rules: Rule) -> Rule:
    """A rule that applies the first of ``rules`` that applies (returns non-None)."""

    def rule(node: Node) -> Node | None:
        for r in rules:
            out = r(node)
            if out is not None:
                return out
        return None

    return rule


def chain(*rules: Rule) -> Rule:
    """A rule that applies ``rules`` in sequence, each to the previous result; None if none applied."""

    def rule(node: Node) -> Node | None:
        changed = False
        for r in rules:
            out = r(node)
            if out is not None:
                node, changed = out, True
        return node if changed else None

    return rule


def fixed_point(rule: Rule, *, max_steps: int = 10_000) -> Rule:
    """A rule that re-applies ``rule`` to its own output until it no longer applies."""

    def repeated(node: Node) -> Node | None:
        changed = False
        for _ in range(max_steps):
            out = rule(node)
            if out is None or out == node:
                break
            node, changed = out, True
        return node if changed else None

    return repeated


# -- the same folds over pre-order arrays ----------------------------------------------------


def subtree_sums(parent: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Sums over subtrees of per-node ``values`` indexed by pre-order id: ``out[i]`` is node
    ``i``'s value plus all its descendants'. ``parent`` is :func:`~puretree.flat.flatten`'s
    (the root's parent is ignored); rows of a 2-d ``values`` are summed as vectors.

    >>> subtree_sums(np.array([-1, 0, 1, 0]), np.array([1, 2, 3, 4])).tolist()
    [10, 5, 3, 4]
    """
    out = values.copy()
    for i in range(len(parent) - 1, 0, -1):  # children come after their parent in pre-order
        out[parent[i]] += out[i]
    return out


def subtree_sizes(parent: np.ndarray) -> np.ndarray:
    """The number of nodes of each node's subtree, itself included, by pre-order id: the
    subtree of node ``i`` is the id range ``[i, i + size[i])``.

    >>> subtree_sizes(np.array([-1, 0, 1, 0])).tolist()
    [4, 2, 1, 1]
    """
    return subtree_sums(parent, np.ones(len(parent), dtype=np.int64))
