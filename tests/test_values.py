"""Nodes and trees behave as values at any depth: equality, hashing and repr are iterative,
linear in the number of nodes, and exact."""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from puretree.io import load, save, to_dict
from puretree.nodes import Feature, Leaf, NumericSplit, Schema, Split, children
from puretree.tree import Tree
from puretree.strategies import trees

N = 100_000
SCHEMA = Schema((Feature("x"),), ("a", "b"))


def chain(n: int, *, last: float = 0.0) -> NumericSplit:
    node = Leaf((1.0, 0.0))
    for i in range(n):
        node = NumericSplit(0, float(i) if i else last, node, Leaf((0.0, 1.0)), (float(i) + 1.0, 1.0))
    return node


@pytest.fixture(scope="module")
def deep():
    return chain(N), chain(N), chain(N, last=0.5)


def test_equality_and_hash_at_any_depth(deep):
    a, b, c = deep
    assert a == b and not a != b and hash(a) == hash(b)
    assert a != c and not a == c  # differs only at the bottom
    assert Tree(a, SCHEMA) == Tree(b, SCHEMA) and hash(Tree(a, SCHEMA)) == hash(Tree(b, SCHEMA))
    assert Tree(a, SCHEMA) != Tree(c, SCHEMA)
    assert len({Tree(a, SCHEMA), Tree(b, SCHEMA), Tree(c, SCHEMA)}) == 2


def test_repr_at_any_depth_is_linear(deep):
    a, _, _ = deep
    text = repr(Tree(a, SCHEMA))
    assert text.startswith("Tree(root=Split(feature=0, test=Threshold(value=99999.0), children=(Split(")
    assert len(text) < 120 * N  # about a hundred characters a node, no indentation


def test_saved_and_loaded_equals_at_any_depth(deep, tmp_path):
    tree = Tree(deep[0], SCHEMA)
    save(tree, tmp_path / "deep.json")
    assert load(tmp_path / "deep.json") == tree


def test_equal_digests_are_confirmed_structurally():
    a = NumericSplit(0, 1.0, Leaf((1.0, 0.0)), Leaf((0.0, 1.0)), (1.0, 1.0))
    b = NumericSplit(0, 2.0, Leaf((1.0, 0.0)), Leaf((0.0, 1.0)), (1.0, 1.0))
    object.__setattr__(b, "_digest", a._digest)  # a forced collision
    assert hash(a) == hash(b) and a != b


def test_one_zero_threshold():
    a = NumericSplit(0, -0.0, Leaf((1.0,)), Leaf((1.0,)), (2.0,))
    b = NumericSplit(0, 0.0, Leaf((1.0,)), Leaf((1.0,)), (2.0,))
    assert a == b and hash(a) == hash(b) and repr(a) == repr(b) and "Threshold(value=0.0)" in repr(a)


def _attrs_repr(node) -> str:
    """attrs' own repr format, recursively (the reference, for small trees)."""
    kids = [_attrs_repr(c) for c in children(node)]
    match node:
        case Leaf():
            return f"Leaf(stats={node.stats!r})"
        case Split():
            inner = ", ".join(kids) + ("," if len(kids) == 1 else "")
            return f"Split(feature={node.feature!r}, test={node.test!r}, children=({inner}), stats={node.stats!r})"


@given(trees(), trees())
@settings(max_examples=100)
def test_equality_is_structural_equality(a, b):
    assert (a == b) == (to_dict(a) == to_dict(b))
    assert a == attrs.evolve(a) and hash(a) == hash(attrs.evolve(a))
    if a == b:
        assert hash(a) == hash(b)
    assert repr(a.root) == _attrs_repr(a.root)


@given(trees(min_depth=1), st.data())
@settings(max_examples=60)
def test_any_change_below_is_seen(tree, data):
    # Rebuild the tree with one leaf's counts changed: it is no longer equal.
    leaves = [n for n in _nodes(tree.root) if isinstance(n, Leaf)]
    target = data.draw(st.sampled_from(leaves))
    changed = _replace(tree.root, target, Leaf(tuple(c + 1.0 for c in target.counts)))
    assert Tree(changed, tree.schema, tree.missing) != tree


def _nodes(node):
    out, stack = [], [node]
    while stack:
        n = stack.pop()
        out.append(n)
        stack.extend(children(n))
    return out


def _replace(node, target, new):
    if node is target:
        return new
    kids = children(node)
    if not kids:
        return node
    from puretree.nodes import with_children

    return with_children(node, tuple(_replace(c, target, new) for c in kids))
