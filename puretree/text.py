"""A readable text rendering, in the manner of the seeds' drawings and Weka's J48.

Each branch is a line ``feature test``; a branch that ends in a leaf carries
``: class (weight)`` or ``: class (weight/errors)``. Deeper levels are indented with ``|   ``,
up to :data:`MAX_INDENT` levels (names and labels longer than :data:`MAX_NAME` characters
are cut, saying their length); deeper lines keep that indentation and start with a depth
marker ``[depth N]`` instead (N counts from 0 at the root's branches), so the text of a chain
of any depth grows linearly with the tree. Thresholds are rounded to ``decimals`` places
(3 by default, as scikit-learn's ``plot_tree`` prints them: ``round(t, 3)``, then the shortest
form; ``decimals=None`` prints them exactly), with the convention ``x <= t`` left, ``x > t``
right. Every view takes the same display options (:class:`Display`): ``decimals``,
``max_depth`` (deeper splits end in ``(...)``), ``feature_names`` and ``class_names``.

>>> from puretree.datasets import load_temperature
>>> from puretree.grow import id3
>>> print(to_text(id3(load_temperature())))
temperature <= 54: no (2)
temperature > 54
|   temperature <= 85: yes (3)
|   temperature > 85: no (1)
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import attrs
import numpy as np

from .fold import depth, n_leaves, n_nodes, walk
from .nodes import Leaf, Node, Schema, Split, format_number
from .errors import ParameterError
from .params import Interval, check, validate_params

if TYPE_CHECKING:  # the tree's own text method calls this module
    from .tree import Tree

__all__ = ["MAX_INDENT", "MAX_NAME", "DECIMALS", "TRUNCATED", "Display", "display", "shorten", "to_text", "summary", "format_number", "branch_labels", "leaf_label"]

#: The decimal places a view rounds thresholds to by default (scikit-learn's ``plot_tree``
#: precision). ``decimals=None`` prints them exactly.
DECIMALS = 3

#: What marks a split below ``max_depth``, whose subtree a view leaves out (scikit-learn's
#: ``plot_tree`` draws the same).
TRUNCATED = "(...)"

#: The deepest level that is indented; below it lines carry a ``[depth N]`` marker instead.
#: Indenting every level would make the text of a deep chain grow with its depth squared.
MAX_INDENT = 64


#: The longest feature name, category or class label printed in full; a longer one is cut,
#: saying how long it was. A name is repeated on every line that tests it, so a huge name
#: in a deep tree would otherwise make the text grow with the name's size times the depth.
MAX_NAME = 256


def shorten(value: object) -> str:
    """A name or label as printed in text output: in full up to :data:`MAX_NAME` characters.

    >>> shorten("outlook")
    'outlook'
    >>> long = shorten("x" * 1000)
    >>> long.endswith("x... (1000 characters)"), len(long) <= MAX_NAME
    (True, True)
    """
    text = str(value)
    if len(text) <= MAX_NAME:
        return text
    return f"{text[:MAX_NAME - 40]}... ({len(text)} characters)"


@attrs.frozen
class Display:
    """How a view shows a tree (every view takes these options, checked once here):
    thresholds rounded to ``decimals`` places (None: exactly), splits shown down to
    ``max_depth`` (None: all; 0: the root's branches only), and the schema's feature and class
    names replaced by ``feature_names`` / ``class_names`` (one per feature / class, in order).
    """

    decimals: int | None = DECIMALS
    max_depth: int | None = None

    def threshold(self, value: float) -> float:
        """A threshold as shown: ``round(value, decimals)``, as scikit-learn rounds it (and
        never ``-0``).

        >>> Display().threshold(0.13579999999999998), Display(decimals=None).threshold(0.1358)
        (0.136, 0.1358)
        """
        return value if self.decimals is None else round(value, self.decimals) + 0.0

    def cut(self, depth: int) -> bool:
        """Whether a split at ``depth`` (the root: 0) is shown without its subtree."""
        return self.max_depth is not None and depth > self.max_depth


def _names(given: Any, what: str, have: Sequence[Any]) -> tuple[Any, ...] | None:
    if given is None:
        return None
    if isinstance(given, str) or not isinstance(given, Sequence) and not hasattr(given, "__array__"):
        raise ParameterError(f"{what} must be a list of names, got {given!r}")
    names = tuple(str(n) for n in list(given))
    if len(names) != len(have):
        noun = {"class_names": "classes", "feature_names": "features"}.get(what, what)
        raise ParameterError(f"{what} has {len(names)} names for the tree's {len(have)} {noun} {list(have)[:8]}")
    return names


def display(tree: Tree, *, decimals: int | None = DECIMALS, max_depth: int | None = None, feature_names: Any = None, class_names: Any = None) -> tuple[Tree, Display]:
    """A view's options checked: the tree with its schema's names replaced as asked (a copy;
    the tree given is untouched), and the :class:`Display`.

    >>> from puretree.nodes import Feature, Leaf
    >>> from puretree.tree import Tree
    >>> shown, how = display(Tree(Leaf((1, 2)), Schema((Feature("x"),), ("a", "b"))), class_names=["no", "yes"])
    >>> shown.schema.classes, how
    (('no', 'yes'), Display(decimals=3, max_depth=None))
    >>> display(shown, feature_names=["p", "q"])
    Traceback (most recent call last):
    ...
    puretree.errors.ParameterError: feature_names has 2 names for the tree's 1 features ['x']
    """
    how = Display(check("decimals", decimals, Interval(int, 0, None), None), check("max_depth", max_depth, Interval(int, 0, None), None))
    schema = tree.schema
    features = _names(feature_names, "feature_names", schema.feature_names)
    classes = _names(class_names, "class_names", schema.classes)
    if classes is not None and schema.is_regression:
        raise ParameterError("class_names is for a classification tree; this is a regression tree")
    if features is not None:
        schema = attrs.evolve(schema, features=tuple(attrs.evolve(f, name=n) for f, n in zip(schema.features, features)))
    if classes is not None:
        schema = attrs.evolve(schema, classes=classes)
    return (tree if schema is tree.schema else attrs.evolve(tree, schema=schema)), how


def branch_labels(node: Node, schema: Schema, how: Display = Display(decimals=None)) -> list[str]:
    """The test text of each branch of a split, e.g. ``['outlook = rain', ...]`` (the test says;
    a threshold rounded as ``how`` asks, by default not at all).

    >>> from puretree.nodes import Feature, Subset, Threshold
    >>> schema = Schema((Feature("c", "categorical", ("a", "b", "c")),), ("no", "yes"))
    >>> branch_labels(Split(0, Subset((0, 2)), (Leaf((1, 0)), Leaf((0, 1))), (1, 1)), schema)
    ['c in {a, c}', 'c not in {a, c}']
    >>> branch_labels(Split(0, Threshold(38.605000000000004), (Leaf((1, 0)), Leaf((0, 1))), (1, 1)), Schema((Feature("x"),)), Display(decimals=2))
    ['x <= 38.61', 'x > 38.61']
    """
    if not isinstance(node, Split):
        return []
    feature = schema.features[node.feature]
    test = node.test
    if how.decimals is not None and test.kind == "threshold":
        # The test prints a rounded copy of itself: what a split reads as lives in its test.
        test = attrs.evolve(test, value=how.threshold(test.value))
    labels = test.labels(shorten(feature.name), _Shortened(feature.categories))
    if node.surrogates is not None and node.surrogates.splits:
        # rpart's surrogates, on the first branch's line: what sends a row there in their stead.
        shown = [_surrogate_label(s, schema, how) for s in node.surrogates.splits]
        labels[0] += f" (surrogate{'s' if len(shown) > 1 else ''}: {', '.join(shown)})"
    return labels


def _surrogate_label(surrogate: Any, schema: Schema, how: Display) -> str:
    """What sends a row down a split's first branch by this surrogate."""
    feature = schema.features[surrogate.feature]
    test = surrogate.test
    if how.decimals is not None and test.kind == "threshold":
        test = attrs.evolve(test, value=how.threshold(test.value))
    return test.labels(shorten(feature.name), _Shortened(feature.categories))[int(surrogate.flip)]


class _Shortened:
    """Category names as printed, shortened when read: a test reads only those it names."""

    def __init__(self, categories: tuple[Any, ...]) -> None:
        self._categories = categories

    def __getitem__(self, code: int) -> str:
        return shorten(self._categories[code])

    def __len__(self) -> int:
        return len(self._categories)


def _weight_text(w: float) -> str:
    return format_number(round(w, 3)) if not float(w).is_integer() else str(int(w))


def leaf_label(counts: tuple[float, ...], schema: Schema, fallback: tuple[float, ...] | None = None) -> str:
    """``class (weight[/errors])`` for a classification leaf, ``mean (weight)`` for regression."""
    if schema.is_regression:
        w = counts[0]
        mean = counts[1] / w if w > 0 else (fallback[1] / fallback[0] if fallback and fallback[0] > 0 else 0.0)
        return f"{format_number(round(mean, 6))} ({_weight_text(w)})"
    total = sum(counts)
    source = counts if total > 0 or fallback is None else fallback
    best = int(np.argmax(source)) if len(source) else 0
    label = shorten(schema.classes[best]) if schema.classes else best
    errors = total - counts[best] if total > 0 else 0.0
    size = _weight_text(total) if errors <= 1e-12 else f"{_weight_text(total)}/{_weight_text(errors)}"
    return f"{label} ({size})"


def _has_weight(counts: tuple[float, ...], schema: Schema) -> bool:
    return (counts[0] if schema.is_regression else sum(counts)) > 0


def _prefix(indent: str, level: int, max_indent: int) -> str:
    if level <= max_indent:
        return indent * level
    return f"{indent * max_indent}[depth {level}] "


@validate_params({"max_indent": (Interval(int, 0, None),)})
def to_text(
    tree: Tree,
    *,
    indent: str = "|   ",
    max_indent: int = MAX_INDENT,
    decimals: int | None = DECIMALS,
    max_depth: int | None = None,
    feature_names: Sequence[str] | None = None,
    class_names: Sequence[str] | None = None,
) -> str:
    """The tree as indented text, one line per branch (a single line for a lone leaf).

    Thresholds are rounded to ``decimals`` places (None: printed exactly); below
    ``max_depth`` a split's line ends in ``(...)`` and its subtree is left out;
    ``feature_names`` and ``class_names`` replace the schema's (see :func:`display`).

    Lines are indented by ``indent`` once per level up to ``max_indent`` levels; a line
    deeper than that keeps ``max_indent`` indents and starts with ``[depth N]``:

    >>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
    >>> from puretree.tree import Tree
    >>> node = Leaf((1, 0))
    >>> for t in (3, 2, 1):
    ...     node = Split(0, Threshold(t), (Leaf((0, 1)), node), (1, 1))
    >>> tree = Tree(node, Schema((Feature("x"),), ("a", "b")))
    >>> print(to_text(tree, max_indent=1))
    x <= 1: b (1)
    x > 1
    |   x <= 2: b (1)
    |   x > 2
    |   [depth 2] x <= 3: b (1)
    |   [depth 2] x > 3: a (1)
    >>> print(to_text(tree, max_depth=0, class_names=["no", "yes"]))
    x <= 1: yes (1)
    x > 1 (...)
    """
    tree, how = display(tree, decimals=decimals, max_depth=max_depth, feature_names=feature_names, class_names=class_names)
    schema = tree.schema
    if isinstance(tree.root, Leaf):
        return leaf_label(tree.root.stats, schema)

    # Each node is handed (its level, the counts an empty leaf below it borrows: its parent's,
    # the line that leads to it). A split hands its children the counts it would lend.
    def down(node: Node, value: tuple[int, tuple[float, ...], str | None]) -> list[tuple[int, tuple[float, ...], str]]:
        level, inherited, _ = value
        own = node.stats if _has_weight(node.stats, schema) else inherited
        head = _prefix(indent, level, max_indent)
        return [(level + 1, own, head + label) for label in branch_labels(node, schema, how)]

    lines: list[str] = []
    for node, (level, inherited, line) in walk(tree.root, down, (0, tree.root.stats, None)):
        if line is None or how.cut(level - 1):
            continue  # the root (its branches make the lines), or below max_depth
        if isinstance(node, Leaf):
            lines.append(f"{line}: {leaf_label(node.stats, schema, inherited)}")
        else:
            lines.append(f"{line} {TRUNCATED}" if how.cut(level) else line)
    return "\n".join(lines)


def summary(tree: Tree) -> str:
    """One line: numbers of nodes and leaves, and the depth."""
    return f"nodes: {n_nodes(tree)}, leaves: {n_leaves(tree)}, depth: {depth(tree)}"
