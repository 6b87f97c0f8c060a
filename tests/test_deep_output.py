"""Output whose size could grow faster than the tree stays linear in the tree.

A chain of 50,000 levels (built directly, loaded from JSON like any model file) is shown and
turned into rules; the text must grow linearly with the number of nodes. Time is measured in
the bench, not asserted here.
"""

from __future__ import annotations

import pytest

from puretree.cli import main
from puretree.errors import ParameterError
from puretree.io import from_json, to_json
from puretree.nodes import CategoricalSplit, Feature, Leaf, NumericSplit, Schema, SubsetSplit
from puretree.tree import Tree
from puretree.rules import MAX_CONDITIONS_PER_NODE, to_rules
from puretree.text import MAX_INDENT, to_text

DEPTH = 50_000


def chain(depth, n_features=1, kind="numeric"):
    """A chain: every split has a leaf on the left and the rest of the chain on the right."""
    if kind == "numeric":
        features = tuple(Feature(f"x{j}") for j in range(n_features))
    else:
        features = tuple(Feature(f"c{j}", "categorical", ("p", "q", "r")) for j in range(n_features))
    node = Leaf((1.0, 0.0))
    for d in range(depth, 0, -1):
        j = d % n_features
        if kind == "numeric":
            node = NumericSplit(j, float(d), Leaf((0.0, 1.0)), node, (1.0, float(depth - d + 1)))
        else:
            node = SubsetSplit(j, (d % 3,), Leaf((0.0, 1.0)), node, (1.0, float(depth - d + 1)))
    return Tree(node, Schema(features, ("a", "b")))


def n_nodes(depth):
    return 2 * depth + 1


# One line per branch: its indentation (capped), the depth marker, the test and the leaf.
PER_LINE = len("|   ") * MAX_INDENT + len("[depth 50000] ") + 60


@pytest.fixture(scope="module")
def deep():
    return from_json(to_json(chain(DEPTH)))


def test_show_of_a_50000_level_chain_is_linear(deep):
    text = to_text(deep)
    lines = text.split("\n")
    assert len(lines) == 2 * DEPTH
    assert len(text) < PER_LINE * n_nodes(DEPTH)
    assert max(map(len, lines)) < PER_LINE
    # The depth is still readable: the last line says how deep it is.
    assert lines[-1].startswith("|   " * MAX_INDENT + f"[depth {DEPTH - 1}] ")


def test_show_grows_linearly_with_depth():
    small, large = len(to_text(chain(5_000))), len(to_text(chain(10_000)))
    assert large < 2.1 * small


def test_indentation_below_the_cap_is_unchanged():
    text = to_text(chain(MAX_INDENT + 1))
    lines = text.split("\n")
    assert lines[2 * MAX_INDENT].startswith("|   " * MAX_INDENT + "x")
    assert lines[2 * MAX_INDENT + 1].startswith("|   " * MAX_INDENT + "x")
    assert all("[depth" not in line for line in lines)
    assert to_text(chain(MAX_INDENT + 2)).split("\n")[-1].startswith("|   " * MAX_INDENT + f"[depth {MAX_INDENT + 1}] x")


def test_show_on_the_command_line(tmp_path, capsys, deep):
    (tmp_path / "deep.json").write_text(to_json(deep), encoding="utf-8")
    assert main(["show", str(tmp_path / "deep.json")]) == 0
    out = capsys.readouterr().out
    assert len(out) < PER_LINE * n_nodes(DEPTH)
    assert f"depth: {DEPTH}" in out


def test_rules_of_a_50000_level_chain_are_linear(deep):
    rules = to_rules(deep)
    assert len(rules) == DEPTH + 1
    # One interval per feature: the deepest rule has two conditions, not 50,000.
    assert max(len(r.conditions) for r in rules.rules) == 2
    text = str(rules)
    assert len(text) < 100 * n_nodes(DEPTH)
    assert rules.rules[-1].to_text(deep.schema) == f"IF x0 > {DEPTH} THEN a  [1/1]"


@pytest.mark.parametrize("kind", ["numeric", "categorical"])
def test_rules_over_a_few_features_stay_linear(kind):
    tree = from_json(to_json(chain(20_000, n_features=5, kind=kind)))
    rules = to_rules(tree)
    assert max(len(r.conditions) for r in rules.rules) <= 2 * 5
    assert len(str(rules)) < 200 * n_nodes(20_000)


def test_rules_of_a_deep_tree_over_many_features_are_refused_not_listed():
    # Every level tests a new feature: the deepest rules need thousands of conditions each.
    depth = 3_000
    tree = chain(depth, n_features=depth)
    with pytest.raises(ParameterError, match="too many to list"):
        to_rules(tree)
    # Just within the limit: listed.
    shallow = chain(300, n_features=300)
    assert sum(len(r.conditions) for r in to_rules(shallow).rules) <= max(2**20, MAX_CONDITIONS_PER_NODE * n_nodes(300))


def test_contradictory_category_tests_read_as_an_empty_set():
    schema = Schema((Feature("c", "categorical", ("p", "q", "r")),), ("a", "b"))
    inner = SubsetSplit(0, (1,), Leaf((0, 1)), Leaf((1, 0)), (1, 1))
    tree = Tree(CategoricalSplit(0, (inner, Leaf((1, 0)), Leaf((0, 1))), (2, 1)), schema)
    text = str(to_rules(tree))
    assert "IF c in {} THEN b" in text


def test_huge_names_do_not_multiply_with_depth():
    # A 100,000-character feature name, class label and category, repeated on every line.
    big = "n" * 100_000
    schema = Schema((Feature(big), Feature("c", "categorical", (big, "q"))), (big, "b"))
    node = Leaf((1.0, 0.0))
    for d in range(2_000, 0, -1):
        node = NumericSplit(0, float(d), SubsetSplit(1, (0,), Leaf((1.0, 0.0)), Leaf((0.0, 1.0)), (1.0, 1.0)), node, (2.0, 1.0))
    tree = from_json(to_json(Tree(node, schema)))
    for text in (to_text(tree), str(to_rules(tree))):
        assert "(100000 characters)" in text
        assert len(text) < 2_000 * 4 * 1_000
