"""puretree and scikit-learn: ``from_sklearn(estimator)``, ``to_sklearn(tree)``, and the
estimators :class:`TreeClassifier` and :class:`TreeRegressor` (in :mod:`puretree.estimators`,
loaded with scikit-learn on first use of their names).

A fitted :class:`~sklearn.tree.DecisionTreeClassifier` or
:class:`~sklearn.tree.DecisionTreeRegressor` becomes a :class:`~puretree.tree.Tree` whose
predictions are identical, so scikit-learn users get puretree's exact code generation,
text, JSON and pruning. scikit-learn stays optional: it is imported by nobody but the caller.

**Thresholds.** scikit-learn converts the features to float32 and sends a row left when
``float32(x) <= t`` (``t`` a double). puretree compares float64 ``x <= v``. Each threshold
becomes the largest double ``v`` such that, for every double ``x``,
``x <= v`` exactly when ``float32(x) <= t`` (see :func:`float32_threshold`), so the two
decide identically on every input, not only on float32 ones.

**Counts.** Recent scikit-learn stores class *fractions* per node; puretree stores weighted
class counts, rebuilt as ``fraction * weighted_n_node_samples``. Where that rescaling would
change the first most probable class (two fractions one rounding step apart), the node keeps
the fractions themselves, so predictions stay identical. Regression nodes keep the exact mean.

**Missing values.** A scikit-learn tree (1.3 and later) sends a missing value (NaN) at each
split the way it learned (``missing_go_to_left``; where training saw none, towards the child
with more training rows): each split's test keeps that side
(:attr:`~puretree.nodes.Threshold.missing_branch`), so predictions on rows with NaN are
scikit-learn's too. A split that sends the missing values alone right (threshold ``+inf``)
is kept as ``Threshold(inf, missing_branch=1)``. From an older scikit-learn, without
``missing_go_to_left``, the tree's ``missing`` strategy decides.

>>> from sklearn.tree import DecisionTreeClassifier
>>> import numpy as np
>>> X = np.array([[0.1], [0.2], [0.3], [0.4]]); y = np.array([0, 0, 1, 1])
>>> clf = DecisionTreeClassifier(random_state=0).fit(X, y)
>>> tree = from_sklearn(clf, feature_names=["x"])
>>> tree.predict(X).tolist() == clf.predict(X).tolist()
True
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from .codegen.literals import float32_threshold
from .ensemble import Ensemble
from .errors import ParameterError
from .fold import rewrite
from .growth.assemble import assemble
from .nodes import CLASSIFICATION, REGRESSION, Feature, Leaf, Node, Schema, Split, Subset, Surrogates, Threshold, exact_mean
from .sklearn_export import UnsupportedTreeError, to_sklearn
from .tree import Tree

if TYPE_CHECKING:  # the estimators' types, for type checkers (at run time: loaded on first use, below)
    # (`X as X`: re-exported, which mypy cannot read from the __all__ below)
    from .boosted import Boosted
    from .estimators import AdaBoostClassifier as AdaBoostClassifier
    from .estimators import BaggingClassifier as BaggingClassifier
    from .estimators import BaggingRegressor as BaggingRegressor
    from .estimators import RandomForestClassifier as RandomForestClassifier
    from .estimators import RandomForestRegressor as RandomForestRegressor
    from .estimators import ExtraTreesClassifier as ExtraTreesClassifier
    from .estimators import ExtraTreesRegressor as ExtraTreesRegressor
    from .estimators import GradientBoostingClassifier as GradientBoostingClassifier
    from .estimators import GradientBoostingRegressor as GradientBoostingRegressor
    from .estimators import TreeClassifier as TreeClassifier
    from .estimators import TreeRegressor as TreeRegressor

#: The estimators, in :mod:`puretree.estimators`, which imports scikit-learn: loaded on first use.
_ESTIMATORS = (
    "TreeClassifier",
    "TreeRegressor",
    "RandomForestClassifier",
    "RandomForestRegressor",
    "ExtraTreesClassifier",
    "ExtraTreesRegressor",
    "BaggingClassifier",
    "BaggingRegressor",
    "AdaBoostClassifier",
    "GradientBoostingClassifier",
    "GradientBoostingRegressor",
)

__all__ = ["from_sklearn", "to_sklearn", "float32_threshold", "UnsupportedTreeError", *_ESTIMATORS]


def __getattr__(name: str) -> Any:
    """The estimators (``TreeClassifier``...), imported with scikit-learn on first use (PEP 562)."""
    if name in _ESTIMATORS:
        from . import estimators  # imports scikit-learn, an optional dependency

        return getattr(estimators, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

def _native(values: Any) -> tuple[Any, ...]:
    return tuple(v.item() if isinstance(v, np.generic) else v for v in values)


def _first_max(row: np.ndarray) -> int:
    return int(np.argmax(row))


def from_sklearn(estimator: Any, *, feature_names: Sequence[str] | None = None, target: str = "target", missing: str = "majority") -> Tree | Ensemble | Boosted:
    """A puretree tree deciding exactly as the fitted scikit-learn decision tree ``estimator``;
    for a forest, bagging or AdaBoost of decision trees, an :class:`~puretree.ensemble.Ensemble`
    of such trees that predicts as the ensemble does:

    - ``RandomForest*``, ``ExtraTrees*``: method ``"forest"``, the members' class probabilities
      (regression: values) averaged in member order, as scikit-learn adds them;
    - ``Bagging*`` of trees: ``"bagging"``, the same average; a member grown on a subset of the
      features (``max_features``, ``bootstrap_features``) has its splits' features mapped back to
      the model's columns, one grown on a subset of the classes has its counts in their columns;
    - ``AdaBoostClassifier`` of trees (SAMME): ``"adaboost"``, weighted by ``estimator_weights_``.

    For ``GradientBoosting*`` and ``HistGradientBoosting*``, a :class:`~puretree.boosted.Boosted`
    (``float64`` sums) whose raw scores are scikit-learn's ``decision_function`` (regression:
    ``predict``), bit for bit: ``GradientBoosting*`` from the initial score of ``init_`` and the
    trees of ``estimators_`` (a custom ``init`` estimator is refused); ``HistGradientBoosting*``
    from ``_baseline_prediction`` and its predictors, with its categorical splits as subsets
    (a category unseen at fit goes the missing values' way) and its missing-value sides (the
    ``poisson`` and ``gamma`` losses, whose link is the exponential, are refused).

    ``IsolationForest`` (an anomaly score), ``AdaBoostRegressor`` (a weighted median) and
    ensembles of other estimators are refused with the reason
    (a :class:`~puretree.errors.ParameterError`).

    Feature names come from ``feature_names``, else the estimator's ``feature_names_in_``,
    else ``x0, x1, ...``. Class labels are the estimator's ``classes_``. The tree records
    the estimator's criterion (``"gini"``, ``"entropy"`` for entropy and log_loss,
    ``"variance"`` for squared_error; None for another). Each split keeps the side
    scikit-learn sends a missing value to; ``missing`` is the tree's strategy for the splits
    that have none (trees from a scikit-learn older than 1.3).
    """
    if type(estimator).__name__ in _BOOSTED:
        return _from_boosting(estimator, feature_names=feature_names, target=target, missing=missing)
    if getattr(estimator, "tree_", None) is None:
        return _from_ensemble(estimator, feature_names=feature_names, target=target, missing=missing)
    return _from_tree(estimator, feature_names=feature_names, target=target, missing=missing)


def _from_tree(estimator: Any, *, feature_names: Sequence[str] | None, target: str, missing: str) -> Tree:
    """A fitted scikit-learn decision tree as a puretree tree (see :func:`from_sklearn`)."""
    inner = estimator.tree_
    if inner.n_outputs != 1:
        raise ParameterError(f"multi-output trees ({inner.n_outputs} outputs) are not supported")
    regression = not hasattr(estimator, "classes_")
    n_features = int(inner.n_features)
    if feature_names is None:
        names = getattr(estimator, "feature_names_in_", None)
        feature_names = [str(n) for n in names] if names is not None else [f"x{j}" for j in range(n_features)]
    if len(feature_names) != n_features:
        raise ParameterError(f"{len(feature_names)} feature names for a tree of {n_features} features")
    classes = () if regression else _native(estimator.classes_)
    if not regression and list(classes) != sorted(classes):
        raise ParameterError("the estimator's classes_ are not sorted")
    schema = Schema(tuple(Feature(str(n)) for n in feature_names), classes, target=target, task=REGRESSION if regression else CLASSIFICATION)
    left, right = inner.children_left, inner.children_right
    value = inner.value[:, 0, :]
    weight = inner.weighted_n_node_samples
    counts = [_node_counts(value[i], float(weight[i]), float(inner.impurity[i]), regression) for i in range(inner.node_count)]
    # Renumbered in pre-order, children after their parent as assemble builds them (scikit-learn
    # numbers nodes so already; only the structure is relied on).
    order, stack = [], [0]
    while stack:
        i = stack.pop()
        order.append(i)
        if left[i] >= 0:
            stack.extend((int(right[i]), int(left[i])))
    at = {i: n for n, i in enumerate(order)}
    kids = [() if left[i] < 0 else (at[int(left[i])], at[int(right[i])]) for i in order]

    sides = _missing_sides(inner)

    def node(n: int, children: tuple[Node, ...]) -> Node:
        i = order[n]
        if not children:
            return Leaf(counts[i])
        test = Threshold(float32_threshold(float(inner.threshold[i])), missing_branch=None if sides is None else sides[i])
        return Split(int(inner.feature[i]), test, children, counts[i])

    return Tree(assemble(kids, node), schema, missing=missing, criterion=_CRITERIA.get(str(getattr(estimator, "criterion", ""))))


def _missing_sides(inner: Any) -> list[int] | None:
    """Per scikit-learn node, the branch a missing value takes (0: left), or None for a
    scikit-learn older than 1.3, whose trees have no ``missing_go_to_left``."""
    go_left = getattr(inner, "missing_go_to_left", None)
    if go_left is None:
        return None
    return [0 if g else 1 for g in np.asarray(go_left).tolist()]


#: scikit-learn's criterion names -> the impurity puretree measures the tree with (None: another).
_CRITERIA = {"gini": "gini", "entropy": "entropy", "log_loss": "entropy", "squared_error": "variance"}


def _node_counts(row: np.ndarray, weight: float, impurity: float, regression: bool) -> tuple[float, ...]:
    if regression:
        mean = float(row[0])
        w, total = exact_mean(mean, weight)  # puretree's mean is sum / weight: exact, the cover kept
        return (w, total, (impurity + mean * mean) * w)
    total = float(row.sum())
    fractions = row / total if total > 0 else row
    scaled = fractions * weight if weight > 0 else fractions
    if scaled.sum() > 0 and _first_max(scaled / scaled.sum()) != _first_max(row):
        scaled = row
    return tuple(float(v) for v in scaled)


# -- ensembles -----------------------------------------------------------------------------

#: scikit-learn's ensembles of trees -> puretree's ensemble method that combines the members as they do.
_ENSEMBLES = {
    "RandomForestClassifier": "forest",
    "RandomForestRegressor": "forest",
    "ExtraTreesClassifier": "forest",
    "ExtraTreesRegressor": "forest",
    "BaggingClassifier": "bagging",
    "BaggingRegressor": "bagging",
    "AdaBoostClassifier": "adaboost",
}

#: The tree models of scikit-learn that puretree's Ensemble cannot stand for, and why.
_REFUSED = {
    "IsolationForest": "its anomaly score (2 ** -(mean path length / c(n))) is not an average of the members' class probabilities or values, which is what a puretree Ensemble combines",
    "AdaBoostRegressor": "it predicts the weighted median of its members, which a puretree Ensemble (weighted mean, or SAMME votes) does not compute",
}


def _from_ensemble(estimator: Any, *, feature_names: Sequence[str] | None, target: str, missing: str) -> Ensemble:
    """A fitted scikit-learn forest, bagging or AdaBoost of decision trees as a puretree
    :class:`~puretree.ensemble.Ensemble` (see :func:`from_sklearn`).

    Each member is converted as a single tree is, then put on the ensemble's schema: its
    features mapped through ``estimators_features_`` (bagging), its class columns to the
    ensemble's (a forest's and a bagging's members learn the class indices, AdaBoost's the
    labels). Every weight is 1 but AdaBoost's, ``estimator_weights_[i]``; the rounds AdaBoost did
    not run count as zeros in its total (option ``n_rounds``), as scikit-learn's
    ``decision_function`` divides by ``estimator_weights_.sum()``.

    >>> from sklearn.ensemble import RandomForestClassifier
    >>> X = np.array([[0.1, 1.0], [0.2, 0.0], [0.3, 1.0], [0.4, 0.0]]); y = np.array(["a", "a", "b", "b"])
    >>> forest = RandomForestClassifier(n_estimators=3, random_state=0).fit(X, y)
    >>> ens = from_sklearn(forest)
    >>> ens.method, len(ens.members), ens.classes
    ('forest', 3, ('a', 'b'))
    >>> bool(np.array_equal(ens.predict_proba(X), forest.predict_proba(X)))
    True
    """
    name = type(estimator).__name__
    if name in _REFUSED:
        raise ParameterError(f"from_sklearn cannot convert {name}: {_REFUSED[name]}")
    method = _ENSEMBLES.get(name)
    members = getattr(estimator, "estimators_", None)
    if method is None or members is None:
        kinds = ", ".join(["DecisionTreeClassifier", "DecisionTreeRegressor", "ExtraTreeClassifier", "ExtraTreeRegressor", *_ENSEMBLES, *_BOOSTED])
        raise ParameterError(f"expected a fitted scikit-learn tree or ensemble of trees ({kinds}), got {name}")
    if not len(members):
        raise ParameterError(f"the {name} has no member trees")
    for i, m in enumerate(members):
        if getattr(m, "tree_", None) is None:
            raise ParameterError(f"the {name}'s member {i} is a {type(m).__name__}, not a decision tree: only ensembles of trees can be converted")
    if getattr(estimator, "n_outputs_", 1) != 1:
        raise ParameterError(f"multi-output ensembles ({estimator.n_outputs_} outputs) are not supported")
    regression = not hasattr(estimator, "classes_")
    n_features = int(estimator.n_features_in_)
    if feature_names is None:
        names = getattr(estimator, "feature_names_in_", None)
        feature_names = [str(n) for n in names] if names is not None else [f"x{j}" for j in range(n_features)]
    if len(feature_names) != n_features:
        raise ParameterError(f"{len(feature_names)} feature names for an ensemble of {n_features} features")
    classes = () if regression else _native(estimator.classes_)
    if not regression and list(classes) != sorted(classes):
        raise ParameterError("the estimator's classes_ are not sorted")
    schema = Schema(tuple(Feature(str(n)) for n in feature_names), classes, target=target, task=REGRESSION if regression else CLASSIFICATION)
    subsets = getattr(estimator, "estimators_features_", None) if method == "bagging" else None
    trees = []
    for i, member in enumerate(members):
        features = np.arange(n_features) if subsets is None else np.asarray(subsets[i])
        columns = None if regression else _class_columns(estimator, member, method, i)
        tree = _from_tree(member, feature_names=[f"x{j}" for j in range(len(features))], target=target, missing=missing)
        trees.append(Tree(_remapped(tree, features, columns, len(classes)), schema, missing=missing, criterion=tree.criterion))
    if method == "adaboost":
        weights = [float(w) for w in estimator.estimator_weights_[: len(trees)]]
        options = {"source": name, "n_rounds": int(estimator.n_estimators), "learning_rate": float(estimator.learning_rate)}
    else:
        weights = [1.0] * len(trees)
        options = {"source": name, "n_trees": len(trees)}
    seed = estimator.random_state if isinstance(estimator.random_state, int) and estimator.random_state >= 0 else 0
    return Ensemble(tuple(trees), tuple(weights), schema, method, seed, options)


def _class_columns(estimator: Any, member: Any, method: str, i: int) -> np.ndarray | None:
    """Where each of the member's class columns goes among the ensemble's (None: the same ones).

    A forest's and a bagging's members learn the class indices (0.0, 1.0...), AdaBoost's the
    labels themselves."""
    theirs = np.asarray(member.classes_)
    k = len(estimator.classes_)
    if method == "adaboost":
        at = {c: j for j, c in enumerate(_native(estimator.classes_))}
        cols = [at.get(c, -1) for c in _native(theirs)]
    else:
        cols = [int(c) if float(c).is_integer() else -1 for c in theirs.tolist()]
    if any(not 0 <= c < k for c in cols) or len(set(cols)) != len(cols):
        raise ParameterError(f"member {i}'s classes {theirs.tolist()[:10]} are not among the ensemble's {len(estimator.classes_)} classes")
    return None if cols == list(range(k)) else np.asarray(cols)


def _remapped(tree: Tree, features: np.ndarray, columns: np.ndarray | None, k: int) -> Node:
    """The member's root with split features mapped to the ensemble's columns and its class
    counts set in the ensemble's class columns (zeros elsewhere)."""
    identity = np.array_equal(features, np.arange(len(features)))
    if identity and columns is None:
        return tree.root

    def stats(values: tuple[float, ...]) -> tuple[float, ...]:
        if columns is None:
            return values
        out = np.zeros(k)
        out[columns] = values
        return tuple(float(v) for v in out)

    def rule(node: Node) -> Node:
        if not isinstance(node, Split):
            return Leaf(stats(node.stats))
        return Split(int(features[node.feature]), node.test, node.children, stats(node.stats), surrogates=node.surrogates)

    return rewrite(tree.root, rule)  # type: ignore[no-any-return]


# -- gradient boosting ---------------------------------------------------------------------

#: scikit-learn's gradient-boosted models, converted to a puretree :class:`~puretree.boosted.Boosted`.
_BOOSTED = ("GradientBoostingClassifier", "GradientBoostingRegressor", "HistGradientBoostingClassifier", "HistGradientBoostingRegressor")


def _names(estimator: Any, feature_names: Sequence[str] | None, n_features: int) -> list[str]:
    if feature_names is None:
        names = getattr(estimator, "feature_names_in_", None)
        feature_names = [str(n) for n in names] if names is not None else [f"x{j}" for j in range(n_features)]
    if len(feature_names) != n_features:
        raise ParameterError(f"{len(feature_names)} feature names for a model of {n_features} features")
    return [str(n) for n in feature_names]


def _boosted_loss(estimator: Any) -> str:
    from .boosted import LOSSES

    loss = str(getattr(estimator, "loss", ""))
    if loss not in LOSSES:
        raise ParameterError(f"from_sklearn cannot convert a {type(estimator).__name__} with loss {loss!r}: puretree's boosted model has no such link (its losses: {', '.join(sorted(LOSSES))})")
    return loss


def _from_boosting(estimator: Any, *, feature_names: Sequence[str] | None, target: str, missing: str) -> Any:
    """A fitted ``GradientBoosting*`` or ``HistGradientBoosting*`` as a :class:`~puretree.boosted.Boosted`
    (see :func:`from_sklearn`)."""
    name = type(estimator).__name__
    if not hasattr(estimator, "n_features_in_"):
        raise ParameterError(f"the {name} is not fitted")
    if name.startswith("Hist"):
        return _from_hist_boosting(estimator, feature_names=feature_names, target=target)
    return _from_gradient_boosting(estimator, feature_names=feature_names, target=target, missing=missing)


def _from_gradient_boosting(estimator: Any, *, feature_names: Sequence[str] | None, target: str, missing: str) -> Any:
    """``GradientBoosting*``: the initial raw score as ``_raw_predict_init`` computes it from
    ``init_`` (it does not depend on the row), the stage trees of ``estimators_`` (their
    thresholds on float32 features, as :func:`from_sklearn` converts a tree), summed as
    ``predict_stages`` sums them: ``raw += learning_rate * value``, stage by stage, output by output.
    ``predict_stages`` tests ``x <= threshold`` whatever the tree learned about missing values,
    so a NaN goes right at every split."""
    from .boosted import Boosted, tree_schema

    name = type(estimator).__name__
    init = estimator.init
    if init is not None and not (isinstance(init, str) and init == "zero"):
        raise ParameterError(f"from_sklearn cannot convert a {name} with init={type(init).__name__}: a custom initial estimator's prediction depends on the row; only the default (init=None) and 'zero' can be converted")
    loss = _boosted_loss(estimator)
    n_features = int(estimator.n_features_in_)
    names = _names(estimator, feature_names, n_features)
    regression = not hasattr(estimator, "classes_")
    classes = () if regression else _native(estimator.classes_)
    schema = Schema(tuple(Feature(n) for n in names), classes, target=target, task=REGRESSION if regression else CLASSIFICATION)
    members = estimator.estimators_[: int(estimator.n_estimators_)]
    first = np.zeros((1, n_features), dtype=np.float32)
    init_raw = tuple(float(v) for v in np.asarray(estimator._raw_predict_init(first), dtype=np.float64)[0])
    trees_schema = tree_schema(schema)

    def stage_tree(member: Any) -> Tree:
        tree = _from_tree(member, feature_names=names, target=target, missing=missing)
        root = rewrite(tree.root, _nan_right)
        return Tree(root, trees_schema, missing=missing, criterion=tree.criterion)

    stages = tuple(tuple(stage_tree(m) for m in row) for row in members)
    options = {"source": name, "n_estimators": int(estimator.n_estimators_)}
    return Boosted(stages, init_raw, float(estimator.learning_rate), loss, schema, "float64", options)


def _nan_right(node: Node) -> Node:
    if isinstance(node, Split) and isinstance(node.test, Threshold):
        return Split(node.feature, Threshold(node.test.value, missing_branch=1), node.children, node.stats, surrogates=node.surrogates)
    return node


def _value_stats(value: float, count: float) -> tuple[float, float, float]:
    """Regression statistics whose mean is exactly ``value``, the count as the weight (:func:`~puretree.nodes.exact_mean`)."""
    w, total = exact_mean(value, count)
    return (w, total, value * value * w)


def _missing_apart(j: int, known_child: Node, missing_child: Node, stats: tuple[float, ...], known: tuple[int, ...]) -> Node:
    """A categorical split of scikit-learn's HGB that sends every known category one way and the
    missing values (and the categories unseen at fit) the other: a puretree subset sends some but
    not all categories left, so it is two subsets on code 0 (the codes after the first and the
    missing values go on to the second, which parts them)."""
    if known_child is missing_child:
        return known_child
    inner = Split(j, Subset((0,)), (missing_child, known_child), stats, surrogates=Surrogates(fallback=0, known=known))
    return Split(j, Subset((0,)), (known_child, inner), stats, surrogates=Surrogates(fallback=1, known=known))


def _from_hist_boosting(estimator: Any, *, feature_names: Sequence[str] | None, target: str) -> Any:
    """``HistGradientBoosting*``: the initial raw score ``_baseline_prediction``, each iteration's
    predictors (their leaf values hold the learning rate already: the model's is 1), summed from
    the baseline in double as ``_raw_predict`` sums them. A numeric split sends ``x <= num_threshold``
    left and NaN by ``missing_go_to_left``; a categorical split becomes a :class:`~puretree.nodes.Subset`
    of the categories in its bitset, whose ``known`` codes are the categories seen at fit, a
    category not among them (unseen at fit) and NaN going the missing values' way, as scikit-learn
    routes them. The features keep the estimator's column order (scikit-learn puts its
    categorical columns first internally)."""
    from .boosted import Boosted, tree_schema

    name = type(estimator).__name__
    loss = _boosted_loss(estimator)
    n_features = int(estimator.n_features_in_)
    names = _names(estimator, feature_names, n_features)
    regression = not hasattr(estimator, "classes_")
    classes = () if regression else _native(estimator.classes_)
    # scikit-learn's internal column j is the user's column inner[j] (categorical ones first)
    is_cat = getattr(estimator, "is_categorical_", None)
    features = [Feature(n) for n in names]
    known: dict[int, tuple[int, ...]] = {}
    if is_cat is None or not np.any(is_cat):
        inner = np.arange(n_features)
    else:
        is_cat = np.asarray(is_cat, dtype=bool)
        inner = np.concatenate([np.flatnonzero(is_cat), np.flatnonzero(~is_cat)])
        categories = estimator._preprocessor.named_transformers_["encoder"].categories_
        thresholds = estimator._bin_mapper.bin_thresholds_
        for c, j in enumerate(np.flatnonzero(is_cat).tolist()):
            values = [v for v in _native(categories[c]) if not (isinstance(v, float) and np.isnan(v))]
            features[j] = Feature(names[j], "categorical", tuple(values))
            known[j] = tuple(int(v) for v in np.asarray(thresholds[c]).tolist())
    schema = Schema(tuple(features), classes, target=target, task=REGRESSION if regression else CLASSIFICATION)
    trees_schema = tree_schema(schema)

    def stage_tree(predictor: Any) -> Tree:
        nodes = predictor.nodes
        bits = predictor.raw_left_cat_bitsets
        order, stack = [], [0]
        while stack:
            i = stack.pop()
            order.append(i)
            if not nodes["is_leaf"][i]:
                stack.extend((int(nodes["right"][i]), int(nodes["left"][i])))
        at = {i: n for n, i in enumerate(order)}
        kids = [() if nodes["is_leaf"][i] else (at[int(nodes["left"][i])], at[int(nodes["right"][i])]) for i in order]

        def node(n: int, children: tuple[Node, ...]) -> Node:
            i = order[n]
            stats = _value_stats(float(nodes["value"][i]), float(nodes["count"][i]))
            if not children:
                return Leaf(stats)
            j = int(inner[int(nodes["feature_idx"][i])])
            side = 0 if nodes["missing_go_to_left"][i] else 1
            if nodes["is_categorical"][i]:
                words = np.asarray(bits[int(nodes["bitset_idx"][i])], dtype=np.int64)
                left = tuple(c for c in known[j] if (int(words[c // 32]) >> (c % 32)) & 1)
                if 0 < len(left) < len(features[j].categories):
                    return Split(j, Subset(left), children, stats, surrogates=Surrogates(fallback=side, known=known[j]))
                if len(features[j].categories) < 2 and children[0 if left else 1] is not children[side]:
                    raise ParameterError(f"from_sklearn cannot convert this {name}: it splits the categorical feature {names[j]!r}, of one category, into that category and the missing values, which a puretree subset split (some but not all of the feature's categories) cannot express")
                return _missing_apart(j, children[0 if left else 1], children[side], stats, known[j])
            return Split(j, Threshold(float(nodes["num_threshold"][i]), missing_branch=side), children, stats)

        return Tree(assemble(kids, node), trees_schema, criterion=None)

    stages = tuple(tuple(stage_tree(p) for p in iteration) for iteration in estimator._predictors)
    init = tuple(float(v) for v in np.asarray(estimator._baseline_prediction, dtype=np.float64).ravel())
    options: dict[str, Any] = {"source": name, "n_iter": int(estimator.n_iter_)}
    if len(classes) == 2:  # its predict: class 1 where raw > 0 (GradientBoostingClassifier: raw >= 0)
        options["strict_class"] = True
    return Boosted(stages, init, 1.0, loss, schema, "float64", options)
