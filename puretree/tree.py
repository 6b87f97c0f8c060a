"""The tree value: a root node with the schema that gives its indices a meaning.

:class:`Tree` sits above the functions that read a tree (:mod:`puretree.predict`,
:mod:`puretree.answers`, :mod:`puretree.text`), so that its conveniences (``tree.predict(X)``,
``print(tree)``) call them without an import circle; the layers below name it only for type
checkers.

>>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
>>> schema = Schema(features=(Feature("x"),), classes=("no", "yes"))
>>> tree = Tree(Split(0, Threshold(1.5), (Leaf((2, 0)), Leaf((0, 3))), (2, 3)), schema)
>>> tree.predict([[1.0], [1.5], [2.0]]).tolist()
['no', 'no', 'yes']
>>> tree.root.children[0] == Leaf((2.0, 0.0))
True
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, overload

import attrs

from .nodes import MISSING_STRATEGIES, Node, Schema
from .answers import predict, predict_proba
from .predict import Batch, Label, Row, Unseen, apply, decision_path
from .text import to_text
from .distributions import NodeHistograms
from .views import notebook_html, notebook_svg

if TYPE_CHECKING:  # numpy only names the annotations' ndarray here
    import numpy as np

__all__ = ["Tree"]


@attrs.frozen
class Tree:
    """A learned tree: its root, the schema that gives the root's indices a meaning, its
    missing-value strategy (see :data:`MISSING_STRATEGIES`) and the criterion it was grown with.

    The methods are thin conveniences over :func:`puretree.predict` (one row through the tree
    compiled to Python, :mod:`puretree.answers`), :mod:`puretree.predict` and
    :mod:`puretree.text`; the tree itself is an immutable value.
    """

    root: Node
    schema: Schema
    missing: str = attrs.field(default="majority", validator=attrs.validators.in_(MISSING_STRATEGIES))
    #: The name of the impurity the tree was grown with ("gini", "entropy", "variance",
    #: "misclassification"), or None when unknown (a user's score, a tree built by hand).
    #: Cost-complexity pruning measures the tree with it.
    #: It is a note on how the tree was made, not part of what it decides: trees equal in root,
    #: schema and strategy are equal (and hash alike) whatever their criteria.
    criterion: str | None = attrs.field(default=None, eq=False, validator=attrs.validators.optional(attrs.validators.instance_of(str)))
    #: What the training rows say at each node (:func:`puretree.distributions.with_histograms`,
    #: the estimators' ``store_histograms=True``, ``puretree fit --histograms``): the pictures
    #: draw each split's feature distribution from it when no data is given. Like the
    #: criterion it is a note, not part of what the tree decides (ignored by == and hash). It
    #: belongs to this root: a tree made from this one with another root (pruned, say) holds none.
    histograms: NodeHistograms | None = attrs.field(
        default=None, eq=False, repr=False, validator=attrs.validators.optional(attrs.validators.instance_of(NodeHistograms))
    )

    def __attrs_post_init__(self) -> None:
        # attrs.evolve(tree, root=...) carries the old histograms along; they describe other nodes.
        h = self.histograms
        if h is not None and (h.regression != self.schema.is_regression or h.root != self.root):
            object.__setattr__(self, "histograms", None)

    @property
    def classes(self) -> tuple[Any, ...]:
        return self.schema.classes

    @overload
    def predict(self, X: Row, *, unseen: Unseen = "warn") -> Label: ...
    @overload
    def predict(self, X: Batch, *, unseen: Unseen = "warn") -> np.ndarray: ...
    def predict(self, X: Any, *, unseen: Unseen = "warn") -> Label | np.ndarray:
        return predict(self, X, unseen=unseen)

    def predict_proba(self, X: Row | Batch, *, unseen: Unseen = "warn") -> np.ndarray:
        return predict_proba(self, X, unseen=unseen)

    @overload
    def apply(self, X: Row, *, unseen: Unseen = "warn") -> int: ...
    @overload
    def apply(self, X: Batch, *, unseen: Unseen = "warn") -> np.ndarray: ...
    def apply(self, X: Any, *, unseen: Unseen = "warn") -> int | np.ndarray:
        return apply(self, X, unseen=unseen)

    @overload
    def decision_path(self, row: Row) -> tuple[int, ...]: ...
    @overload
    def decision_path(self, row: Batch) -> list[tuple[int, ...]]: ...
    def decision_path(self, row: Any) -> tuple[int, ...] | list[tuple[int, ...]]:
        return decision_path(self, row)

    def to_text(self, **options: Any) -> str:
        return to_text(self, **options)

    def __str__(self) -> str:
        return self.to_text()

    # A notebook (Jupyter, VS Code) shows the tree's picture, small: its first levels, fit to
    # a cell's width (puretree.views.notebook_svg); to_svg / to_html draw the whole tree.
    def _repr_svg_(self) -> str:
        return notebook_svg(self)

    def _repr_html_(self) -> str:
        return notebook_html(self)
