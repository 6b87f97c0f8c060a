"""Text output: the kit's walk writes what the recursive reading of the format says."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from puretree.errors import ParameterError
from puretree.nodes import Leaf, children
from puretree.strategies import trees
from puretree.text import Display, branch_labels, leaf_label, to_text


def _reference(tree, indent, max_indent, decimals=None):
    """The format as the module docs state it, recursively (fine for small trees)."""
    schema = tree.schema

    def weight(counts):
        return counts[0] if schema.is_regression else sum(counts)

    def prefix(level):
        return indent * level if level <= max_indent else f"{indent * max_indent}[depth {level}] "

    def lines(node, level, inherited):
        own = node.counts if weight(node.counts) > 0 else inherited
        for label, child in zip(branch_labels(node, schema, Display(decimals=decimals)), children(node)):
            if isinstance(child, Leaf):
                yield f"{prefix(level)}{label}: {leaf_label(child.counts, schema, own)}"
            else:
                yield prefix(level) + label
                yield from lines(child, level + 1, own)

    if isinstance(tree.root, Leaf):
        return leaf_label(tree.root.counts, schema)
    return "\n".join(lines(tree.root, 0, tree.root.counts))


@given(trees(max_depth=4, weighted=True), st.sampled_from(["|   ", "  "]), st.integers(0, 3), st.sampled_from([None, 0, 3]))
def test_to_text_reads_as_the_recursive_definition(tree, indent, max_indent, decimals):
    assert to_text(tree, indent=indent, max_indent=max_indent, decimals=decimals) == _reference(tree, indent, max_indent, decimals)


@pytest.mark.parametrize("bad", [-1, 1.5, True, "2", None])
def test_max_indent_is_a_declared_constraint(bad):
    from puretree.datasets import load_temperature
    from puretree.grow import id3

    with pytest.raises(ParameterError, match=r"^max_indent must be an integer >= 0, got "):
        to_text(id3(load_temperature()), max_indent=bad)
    assert to_text.parameter_constraints["max_indent"]  # declared next to the signature
