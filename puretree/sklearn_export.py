"""A puretree tree as a fitted scikit-learn tree (:func:`to_sklearn`), for scikit-learn's own
views (``plot_tree``, ``export_text``, ``export_graphviz``) and tools. Re-exported by
:mod:`puretree.sklearn`; a module of its own so that the estimators (:mod:`puretree.estimators`,
which :mod:`puretree.sklearn` loads on first use) call it without an import circle.
scikit-learn is imported when :func:`to_sklearn` is called, never when this module loads.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .data import labels_array
from .errors import ParameterError
from .fold import depth, walk
from .impurity import entropy, gini, misclassification, variance
from .nodes import Split, children
from .tree import Tree

__all__ = ["to_sklearn", "UnsupportedTreeError"]


class UnsupportedTreeError(ParameterError):
    """A puretree tree that a scikit-learn tree cannot express (:func:`to_sklearn`)."""


# Its public name is puretree.sklearn's (tracebacks, pickles and the docs say so); it lives here.
UnsupportedTreeError.__module__ = "puretree.sklearn"


#: puretree's impurity names -> scikit-learn's criterion names.
_SKLEARN_CRITERIA = {"gini": "gini", "entropy": "entropy", "variance": "squared_error"}
_IMPURITY = {"gini": gini, "entropy": entropy, "misclassification": misclassification}


def _preorder(tree: Tree) -> list[tuple[Any, int, int]]:
    """``(node, parent id, branch)`` in scikit-learn's numbering (depth first, left first)."""
    out: list[tuple[Any, int, int]] = []
    # walk asks for a split's children's values right after yielding the split: its id is the last.
    for node, (parent, branch) in walk(tree, lambda node, _: [(len(out) - 1, b) for b in range(len(children(node)))], (-1, 0)):
        out.append((node, parent, branch))
    return out


def _check_expressible(tree: Tree, nodes: list[tuple[Any, int, int]]) -> None:
    """Refuse, by name, what a scikit-learn tree cannot express."""
    if tree.missing == "distribute":
        raise UnsupportedTreeError(
            "to_sklearn: the tree's missing-value strategy 'distribute' (a row with a missing value goes down every branch, "
            "weighted) cannot be expressed by a scikit-learn tree, which sends it down one branch; grow with missing='majority'"
        )
    features = tree.schema.features
    for node, _, _ in nodes:
        if not isinstance(node, Split):
            continue
        name = features[node.feature].name
        if node.surrogates is not None:
            raise UnsupportedTreeError(
                f"to_sklearn: the split on {name!r} routes missing values through surrogate splits (missing='surrogate'), "
                "which a scikit-learn tree cannot express (it sends a missing value down one branch); grow with missing='majority' or 'learn'"
            )
        if node.test.kind != "threshold" or len(node.children) != 2:  # the test says what it is
            kind = {"multiway": "a multiway split", "subset": "a subset split"}.get(node.test.kind, f"a {node.test.kind!r} split")
            raise UnsupportedTreeError(
                f"to_sklearn: {kind} on the categorical column {name!r} cannot be expressed by a scikit-learn tree, "
                "which has numeric binary splits only (x <= t); grow with numeric features, or one-hot encode the column"
            )


def to_sklearn(tree: Tree) -> Any:
    """A fitted scikit-learn ``DecisionTreeClassifier`` (``DecisionTreeRegressor`` for a
    regression tree) that predicts as ``tree`` does.

    scikit-learn trees make numeric binary splits ``x <= t`` only: a tree with a multiway or a
    subset split, or grown with the ``"distribute"`` missing-value strategy, is refused with
    an :class:`UnsupportedTreeError` naming what cannot be expressed. The two agree exactly on
    float32 inputs, scikit-learn's own domain (it converts every input to float32 first; a
    double between two float32 values may be rounded across a threshold). A missing value
    (NaN) goes to the side a split learned (``missing_go_to_left``), else down the heavier
    branch, as puretree's ``"majority"`` strategy sends it (a tree
    whose strategy is ``"error"`` refuses such rows; the scikit-learn tree does not).
    Columns are given by position (``feature_names_in_`` is not set): pass numbers, in the
    order of ``tree.schema.feature_names``.

    >>> import numpy as np
    >>> from puretree.grow import cart
    >>> X = np.array([[0.1, 5.0], [0.2, 3.0], [0.3, 1.0], [0.4, 2.0]], dtype=np.float32)
    >>> tree = cart(X, ["a", "a", "b", "b"])
    >>> est = to_sklearn(tree)
    >>> est.predict(X).tolist(), est.classes_.tolist()
    (['a', 'a', 'b', 'b'], ['a', 'b'])
    >>> float(est.tree_.threshold[0]) == tree.root.test.value, est.predict_proba(X[:1]).tolist()
    (True, [[1.0, 0.0]])
    """
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
    from sklearn.tree._tree import NODE_DTYPE
    from sklearn.tree._tree import Tree as SkTree

    if not isinstance(tree, Tree):
        raise ParameterError(f"to_sklearn expects a puretree Tree, got {type(tree).__name__}")
    nodes = _preorder(tree)
    _check_expressible(tree, nodes)
    regression = tree.schema.is_regression
    n, n_features = len(nodes), tree.schema.n_features
    width = 1 if regression else len(tree.schema.classes)
    array = np.zeros(n, dtype=NODE_DTYPE)
    array["left_child"] = array["right_child"] = -1  # TREE_LEAF
    array["feature"] = -2  # TREE_UNDEFINED
    array["threshold"] = -2.0
    values = np.zeros((n, 1, width))
    measure = variance if regression else _IMPURITY.get(tree.criterion or "gini", gini)
    for i, (node, parent, branch) in enumerate(nodes):
        counts = np.asarray(node.stats, dtype=np.float64)
        weight = float(counts[0]) if regression else float(counts.sum())
        if parent >= 0:
            array[parent]["left_child" if branch == 0 else "right_child"] = i
        if weight <= 0 and parent >= 0:
            values[i] = values[parent]  # a branch no training row reached predicts as its parent (as puretree)
        elif regression:
            values[i, 0, 0] = counts[1] / counts[0] if counts[0] > 0 else 0.0
        else:
            values[i, 0] = counts / weight if weight > 0 else counts
        array[i]["impurity"] = float(measure(counts)) if weight > 0 else 0.0
        array[i]["weighted_n_node_samples"] = weight
        array[i]["n_node_samples"] = max(1, int(round(weight)))
        if isinstance(node, Split):
            kids = [float(c.stats[0]) if regression else float(sum(c.stats)) for c in node.children]
            array[i]["feature"] = node.feature
            array[i]["threshold"] = node.test.value
            side = node.test.missing_branch
            # The side the split learned; else puretree's "majority": the heavier branch, the first (left) on a tie.
            array[i]["missing_go_to_left"] = int(kids[0] >= kids[1]) if side is None else int(side == 0)
    n_classes = np.array([width], dtype=np.intp)
    inner = SkTree(n_features, n_classes, 1)
    inner.__setstate__({"max_depth": depth(tree), "node_count": n, "nodes": array, "values": values})
    if regression:
        est = DecisionTreeRegressor(criterion=_SKLEARN_CRITERIA.get(tree.criterion or "", "squared_error"))
    else:
        est = DecisionTreeClassifier(criterion=_SKLEARN_CRITERIA.get(tree.criterion or "", "gini"))
        est.classes_ = labels_array(tree.schema.classes)
        est.n_classes_ = width
    est.n_features_in_ = n_features
    est.n_outputs_ = 1
    est.max_features_ = n_features
    est.tree_ = inner
    return est
