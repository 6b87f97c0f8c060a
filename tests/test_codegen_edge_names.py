"""export never writes code that fails its own build flags or does not import: long names,
features without categories, models without features, categorical splits with thousands of
categories (nested Python). Every case is compiled with gcc -std=c99 -Wall -Wextra
-Werror -pedantic -Wconversion and checked against the model by ``verify``."""

from __future__ import annotations

import numpy as np
import pytest

from puretree.codegen.lower import C_OBJECT_LIMIT, C_STRING_LIMIT
from puretree.codegen.render import generate
from puretree.codegen.verify import verify
from puretree.errors import CodegenError
from puretree.io import from_json, to_json
from puretree.nodes import CategoricalSplit, Feature, Leaf, NumericSplit, Schema, SubsetSplit
from puretree.tree import Tree


def stump(features, classes, split):
    return from_json(to_json(Tree(split, Schema(features, classes))))


@pytest.mark.parametrize("size", [C_STRING_LIMIT, C_STRING_LIMIT + 1, 10_000, C_OBJECT_LIMIT - 1])
@pytest.mark.parametrize("target", ["c", "c-table"])
def test_long_class_labels_feature_names_and_categories_compile(size, target):
    label, name, category = "a" * size, "é" * (size // 2), "\\*/" * (size // 3)
    tree = stump(
        (Feature(name), Feature("c", "categorical", (category, "q"))), (label, "b"),
        NumericSplit(0, 0.5, SubsetSplit(1, (0,), Leaf((1, 0)), Leaf((0, 1)), (1, 1)), Leaf((0, 1)), (1, 2)),
    )
    report = verify(tree, np.array([[0.0, 0.0], [1.0, 1.0]]), target)
    assert report.ok and report.n_checked > 2
    source = generate(tree, target)["tree.c"]
    assert ("tree_long_name_0" in source) == (size > C_STRING_LIMIT)


def test_a_name_too_long_for_any_c_object_is_refused():
    tree = stump((Feature("x"),), ("a" * C_OBJECT_LIMIT, "b"), NumericSplit(0, 0.5, Leaf((1, 0)), Leaf((0, 1)), (1, 1)))
    with pytest.raises(CodegenError, match="class label 0 is 65535 bytes"):
        generate(tree, "c")
    assert "def predict" in generate(tree, "python")["tree.py"]


@pytest.mark.parametrize("target", ["c", "c-table", "python"])
def test_a_categorical_feature_without_categories_compiles(target):
    # What training on an all-missing categorical column gives.
    tree = stump((Feature("colour", "categorical", ()), Feature("x")), ("a", "b"), NumericSplit(1, 0.5, Leaf((1, 0)), Leaf((0, 1)), (1, 1)))
    report = verify(tree, np.array([[np.nan, 0.0], [np.nan, 1.0]]), target)
    assert report.ok and report.n_checked >= 6


@pytest.mark.parametrize("target", ["c", "c-table"])
def test_a_categorical_split_with_one_category_compiles(target):
    tree = stump((Feature("c", "categorical", ("p",)),), ("a", "b"), CategoricalSplit(0, (Leaf((1, 2)),), (1, 2)))
    assert verify(tree, np.array([[0.0]]), target).ok


def test_a_model_without_features_is_refused_for_c_and_exported_to_python():
    tree = stump((), ("a", "b"), Leaf((1, 2)))
    for target in ("c", "c-table"):
        with pytest.raises(CodegenError, match="no features"):
            generate(tree, target)
    assert verify(tree, np.zeros((1, 0)), "python").ok


def test_a_split_with_thousands_of_categories_gives_python_that_imports():
    # Each category is one more elif, nested one deeper: CPython gives up past about 2,000.
    m = 3_000
    tree = stump((Feature("c", "categorical", tuple(f"k{i}" for i in range(m))),), ("a", "b"),
                 CategoricalSplit(0, tuple(Leaf((i % 2, 1 - i % 2)) for i in range(m)), (1, 1)))
    assert "while node" in generate(tree, "python")["tree.py"]
    assert verify(tree, np.zeros((1, 1)), "python").ok
    with pytest.raises(CodegenError, match="nest 3000 deep"):
        generate(tree, "python", form="nested")


def test_nested_c_refuses_a_split_with_more_categories_than_it_can_compile_in_time():
    from puretree.codegen.lower import C_ELIF_LIMIT

    m = C_ELIF_LIMIT + 1
    tree = stump((Feature("c", "categorical", tuple(f"k{i}" for i in range(m))),), ("a", "b"),
                 CategoricalSplit(0, tuple(Leaf((i % 2, 1 - i % 2)) for i in range(m)), (1, 1)))
    with pytest.raises(CodegenError, match="use the c-table target"):
        generate(tree, "c")
    assert verify(tree, np.zeros((1, 1)), "c-table").ok
