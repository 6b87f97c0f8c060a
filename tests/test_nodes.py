"""Node values: frozen, structural equality and hashing, validation, evolve."""

from __future__ import annotations

import attrs
import numpy as np
import pytest

from puretree.errors import ParameterError, SchemaError
from puretree.nodes import CategoricalSplit, Feature, Leaf, NumericSplit, Schema, SubsetSplit, children, is_leaf, with_children
from puretree.tree import Tree

SCHEMA = Schema((Feature("x"), Feature("c", "categorical", ("a", "b", "c"))), ("no", "yes"))


def test_frozen_and_structural():
    a = NumericSplit(0, 1.5, Leaf((1, 0)), Leaf((0, 1)), (1, 1))
    b = NumericSplit(0, 1.5, Leaf([1, 0]), Leaf(np.array([0, 1])), [1.0, 1.0])
    assert a == b and hash(a) == hash(b)
    assert a != attrs.evolve(a, threshold=2.5)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        a.threshold = 3.0
    assert len({a, b, Leaf((1, 0))}) == 2


def test_converters():
    leaf = Leaf(np.array([1, 2], dtype=np.int32))
    assert leaf.counts == (1.0, 2.0) and all(type(c) is float for c in leaf.counts)
    split = SubsetSplit(np.int64(1), [2, 0, 2], Leaf((1, 0)), Leaf((0, 1)), (1, 1))
    assert split.left_categories == (0, 2) and type(split.feature) is int
    assert type(NumericSplit(np.int32(0), np.float32(0.5), leaf, leaf, (2, 4)).threshold) is float


@pytest.mark.parametrize(
    "make",
    [
        lambda: Leaf((1.0, float("nan"))),
        lambda: Leaf((float("inf"),)),
        lambda: NumericSplit(0, float("inf"), Leaf((1,)), Leaf((1,)), (2,)),
        lambda: NumericSplit(-1, 0.5, Leaf((1,)), Leaf((1,)), (2,)),
        lambda: NumericSplit(True, 0.5, Leaf((1,)), Leaf((1,)), (2,)),
        lambda: NumericSplit(1.0, 0.5, Leaf((1,)), Leaf((1,)), (2,)),
        lambda: CategoricalSplit(-2, (Leaf((1,)),), (1,)),
    ],
)
def test_validation(make):
    with pytest.raises(ParameterError):
        make()


def test_children_and_with_children():
    left, right = Leaf((1, 0)), Leaf((0, 1))
    split = NumericSplit(0, 0.5, left, right, (1, 1))
    assert children(split) == (left, right) and children(left) == ()
    assert is_leaf(left) and not is_leaf(split)
    assert with_children(split, (left, right)) is split
    swapped = with_children(split, (right, left))
    assert swapped.left is right and swapped.threshold == 0.5
    multi = CategoricalSplit(1, (left, right, left), (2, 1))
    assert with_children(multi, (right, right, right)).children == (right,) * 3
    assert with_children(left, ()) is left
    with pytest.raises(TypeError):
        children("not a node")


def test_schema_and_tree():
    assert SCHEMA.feature_names == ("x", "c") and SCHEMA.n_features == 2
    assert SCHEMA.index_of("c") == 1
    with pytest.raises(SchemaError, match="'z'"):
        SCHEMA.index_of("z")
    assert SCHEMA.features[1].code_of("b") == 1 and SCHEMA.features[1].code_of("q") == -1
    tree = Tree(SubsetSplit(1, (0,), Leaf((2, 0)), Leaf((0, 3)), (2, 3)), SCHEMA)
    assert tree.missing == "majority" and tree.classes == ("no", "yes")
    assert tree.predict([{"x": 0, "c": "a"}, {"x": 0, "c": "c"}]).tolist() == ["no", "yes"]
    assert str(tree) == tree.to_text() == "c in {a}: no (2)\nc not in {a}: yes (3)"
    with pytest.raises(ValueError):
        Tree(Leaf((1, 1)), SCHEMA, "ignore")
    with pytest.raises(ValueError):
        Feature("x", "ordinal")
