"""Hypothesis plugin: ``st.from_type`` for puretree's values.

Registered through Hypothesis' ``"hypothesis"`` entry point (see ``pyproject.toml``), so it
runs when Hypothesis is imported, whether or not puretree has been. The strategies are
resolved lazily: :mod:`puretree.strategies` imports Hypothesis itself, and importing it from
here, while Hypothesis is still being imported, would be circular.

>>> from hypothesis import find, strategies as st
>>> from puretree.tree import Tree
>>> find(st.from_type(Tree), lambda t: True).root
Leaf(stats=(0.0,))
"""

from __future__ import annotations

from typing import Any

__all__: list[str] = []


def _resolve(kind: type) -> Any:
    """The strategy for one of puretree's types (called by Hypothesis on first use)."""
    from . import strategies as pts
    from .nodes import DEPRECATED_SPLITS, TESTS, Feature, Leaf, Schema, Split
    from .tree import Tree

    def rooted(splits: tuple[str, ...]) -> Any:
        # A split node alone is meaningless without the schema that gives its indices a meaning;
        # draw a whole tree whose root is such a split and hand over its root.
        return pts.trees(splits=splits, min_depth=1).map(lambda tree: tree.root).filter(lambda node: isinstance(node, Split) and node.test.kind in splits)

    def tests(test: Any) -> Any:
        # Likewise a test: the root's test of a tree whose root is a split of that kind.
        return rooted((test.kind,)).map(lambda node: node.test)

    table: dict[Any, Any] = {
        Tree: lambda: pts.trees(),
        Schema: lambda: pts.schemas(),
        Feature: lambda: pts.schemas(min_features=1, max_features=1).map(lambda schema: schema.features[0]),
        Leaf: lambda: pts.leaves(),
        Split: lambda: rooted(tuple(TESTS)),
        **{test: (lambda test=test: tests(test)) for test in TESTS.values()},
        # The deprecated node classes: a split of their kind.
        **{alias: (lambda alias=alias: rooted((alias.test_class.kind,))) for alias in DEPRECATED_SPLITS},
    }
    make = table.get(kind)
    return NotImplemented if make is None else make()


def _hypothesis_setup_hook() -> None:
    """Register puretree's node and schema types with ``st.register_type_strategy``."""
    from hypothesis import strategies as st

    from .nodes import DEPRECATED_SPLITS, TESTS, Feature, Leaf, Schema, Split
    from .tree import Tree

    for kind in (Tree, Schema, Feature, Leaf, Split, *TESTS.values(), *DEPRECATED_SPLITS):
        st.register_type_strategy(kind, _resolve)
