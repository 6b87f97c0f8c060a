"""Folds and rewrites over trees: recursive in form, iterative in execution.

Trees can be thousands of levels deep (a fully grown tree on an alternating label),
so nothing here uses the Python call stack per level. The functions are written as
plain recursion with generators: a recursive call is ``result = yield subcall``, and
:func:`run` drives the generators on an explicit stack (a trampoline).

>>> from puretree.nodes import Leaf, NumericSplit
>>> node = NumericSplit(0, 0.5, Leaf((1, 0)), NumericSplit(0, 1.5, Leaf((0, 1)), Leaf((1, 0)), (1, 1)), (2, 1))
>>> fold(node, lambda n, kids: 1 + sum(kids))          # number of nodes
5
>>> fold(node, lambda n, kids: 1 + max(kids, default=-1))  # depth (edges)
2
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator
from typing import Any, TypeVar

from .nodes import Node, Tree, children, with_children

__all__ = [
    "run",
    "fold",
    "iter_nodes",
    "iter_paths",
    "rewrite",
    "first_of",
    "chain",
    "fixed_point",
    "n_nodes",
    "n_leaves",
    "depth",
]

T = TypeVar("T")
Rule = Callable[[Node], "Node | None"]


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
    return tree_or_node.root if isinstance(tree_or_node, Tree) else tree_or_node


def fold(tree_or_node: Tree | Node, f: Callable[[Node, tuple[T, ...]], T]) -> T:
    """Bottom-up fold: ``f(node, results_of_children)``, children left to right."""

    def go(node: Node) -> Generator[Any, Any, T]:
        results = []
        for child in children(node):
            results.append((yield go(child)))
        return f(node, tuple(results))

    return run(go(_root(tree_or_node)))


def iter_nodes(tree_or_node: Tree | Node) -> Iterator[Node]:
    """All nodes in pre-order (a node before its children, children left to right)."""
    stack = [_root(tree_or_node)]
    while stack:
        node = stack.pop()
        yield node
        stack.extend(reversed(children(node)))


def iter_paths(tree_or_node: Tree | Node) -> Iterator[tuple[tuple[tuple[Node, int], ...], Node]]:
    """Every leaf with its path: ``((split, branch_index), ...), leaf``, in pre-order."""
    stack: list[tuple[Node, tuple[tuple[Node, int], ...]]] = [(_root(tree_or_node), ())]
    while stack:
        node, path = stack.pop()
        kids = children(node)
        if not kids:
            yield path, node
        for i in reversed(range(len(kids))):
            stack.append((kids[i], path + ((node, i),)))


def n_nodes(tree_or_node: Tree | Node) -> int:
    """Number of nodes, leaves included."""
    return sum(1 for _ in iter_nodes(tree_or_node))


def n_leaves(tree_or_node: Tree | Node) -> int:
    """Number of leaves."""
    return sum(1 for n in iter_nodes(tree_or_node) if not children(n))


def depth(tree_or_node: Tree | Node) -> int:
    """Length of the longest root-to-leaf path, in edges (a single leaf has depth 0)."""
    best = 0
    stack = [(_root(tree_or_node), 0)]
    while stack:
        node, d = stack.pop()
        best = max(best, d)
        stack.extend((c, d + 1) for c in children(node))
    return best


def rewrite(tree_or_node: Tree | Node, rule: Rule) -> Any:
    """Bottom-up rewrite: children are rewritten first, then ``rule`` sees the updated node.

    ``rule(node)`` returns a replacement node, or ``None`` when it does not apply. Unchanged
    subtrees are shared, not copied. A :class:`Tree` comes back as a tree with the same schema.

    >>> from puretree.nodes import Leaf, NumericSplit
    >>> same = lambda n: Leaf(n.counts) if children(n) and all(not children(c) for c in children(n)) else None
    >>> rewrite(NumericSplit(0, 0.5, Leaf((1, 0)), Leaf((0, 1)), (1, 1)), same)
    Leaf(counts=(1.0, 1.0))
    """

    def go(node: Node) -> Generator[Any, Any, Node]:
        kids = children(node)
        if kids:
            new = []
            for child in kids:
                new.append((yield go(child)))
            node = with_children(node, tuple(new))
        replaced = rule(node)
        return node if replaced is None else replaced

    if isinstance(tree_or_node, Tree):
        import attrs

        new_root = run(go(tree_or_node.root))
        return tree_or_node if new_root is tree_or_node.root else attrs.evolve(tree_or_node, root=new_root)
    return run(go(tree_or_node))


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
