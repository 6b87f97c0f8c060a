"""scikit-learn estimators: :class:`TreeClassifier` and :class:`TreeRegressor`.

They grow puretree trees (``algorithm="id3" | "c45" | "cart"``, CART by default as
scikit-learn users expect) behind scikit-learn's estimator API, so that ``clone``,
``Pipeline``, ``GridSearchCV`` and ``cross_val_score`` take them. The fitted tree is the
puretree :class:`~puretree.tree.Tree` value in ``tree_``: print it, save it, prune it,
compile it. This module imports scikit-learn when it loads; :mod:`puretree.sklearn` loads it
on first use of either name, so ``import puretree`` never imports scikit-learn.

Data: a numeric array (NaN is a missing value), or a pandas DataFrame whose numeric columns
are numeric features and whose other columns (``category``, ``object``, ``string``, ``bool``
dtypes) are categorical features, as :func:`puretree.data.from_pandas` reads them.

>>> import numpy as np
>>> from puretree.sklearn import TreeClassifier
>>> X = np.array([[1.0], [2.0], [3.0], [4.0]]); y = np.array(["a", "a", "b", "b"])
>>> clf = TreeClassifier().fit(X, y)
>>> clf.predict([[1.5], [3.5]]).tolist(), clf.classes_.tolist(), clf.n_features_in_
(['a', 'b'], ['a', 'b'], 1)
>>> print(clf.tree_.to_text())
x0 <= 2.5: a (2)
x0 > 2.5: b (2)
"""

from __future__ import annotations

import difflib
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any, TypeAlias, Union

import attrs
import numpy as np
from numpy.typing import ArrayLike
from scipy.sparse import csr_array, csr_matrix
from sklearn import get_config
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin, clone
from sklearn.utils import Bunch, check_random_state
from sklearn.utils.class_weight import compute_class_weight, compute_sample_weight
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_array, check_is_fitted, column_or_1d, validate_data

from .data import category_key, from_numpy, from_pandas
from .boosted import Boosted
from .boosted import class_codes as boosted_class_codes
from .boosted import decision_function as boosted_decision
from .boosted import predict_proba as boosted_proba
from .boosted import staged_decision_function as boosted_staged_decision
from .boosted import staged_predict_proba as boosted_staged_proba
from .distributions import with_histograms
from .ensemble import adaboost, bagging, extra_trees, out_of_bag_score, random_forest, stump
from .ensemble import predict_proba as ensemble_proba
from .errors import DataError, ParameterError
from .flat import flatten
from .fold import depth, n_leaves
from .gradient_boosting import gradient_boosting, gradient_importances
from .grow import c45, cart, class_weights, id3
from .hist_gradient_boosting import DEFAULTS as _HGB_DEFAULTS
from .importance import feature_importances
from .nodes import CLASSIFICATION, REGRESSION
from .predict import apply as tree_apply
from .predict import predict as tree_predict
from .predict import predict_proba as tree_predict_proba
from .predict import Frame, Unseen
from .prune import cost_complexity, cost_complexity_path, pessimistic, simplify
from .sklearn_export import to_sklearn as tree_to_sklearn

if TYPE_CHECKING:  # scikit-learn ships no type information: the estimators' methods carry their own
    from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
    from typing_extensions import Self  # typing's from Python 3.11

    from .ensemble import Ensemble
    from .tree import Tree

__all__ = [
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
    "HistGradientBoostingClassifier",
    "HistGradientBoostingRegressor",
    "ALGORITHMS",
    "PRUNING",
    "node_indicator",
]

#: What the estimators take as ``X``: an array-like of rows (numbers; text for categories) or a DataFrame.
_Matrix: TypeAlias = Union[ArrayLike, Frame]

#: The growth presets an estimator's ``algorithm`` names.
ALGORITHMS = {"cart": cart, "c45": c45, "id3": id3}
#: The post-pruning an estimator's ``prune`` names (``None``: none; ``ccp_alpha`` applies after it).
PRUNING = (None, "pessimistic", "simplify")


def _choice(name: str, value: Any, allowed: Any) -> None:
    if value not in allowed:
        close = difflib.get_close_matches(str(value), [str(a) for a in allowed if a is not None], n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise ParameterError(f"{name} must be one of {list(allowed)}, got {value!r}{hint}")


def node_indicator(ends: np.ndarray, parent: np.ndarray) -> Any:
    """The ``(n_rows, n_nodes)`` sparse 0/1 matrix of the nodes each row visits, given the
    node each row ends at and each node's parent (-1 at the root), as scikit-learn's
    ``decision_path`` returns it: CSR, int64 ones, each row's node ids ascending (in
    pre-order, a path's ids increase from the root down); a ``csr_matrix`` or a
    ``csr_array`` as scikit-learn's ``sparse_interface`` setting asks.

    >>> node_indicator(np.array([1, 2]), np.array([-1, 0, 0])).toarray().tolist()
    [[1, 1, 0], [1, 0, 1]]
    """
    ends = np.asarray(ends, dtype=np.intp)
    n_rows = len(ends)
    rows, nodes = [np.arange(n_rows, dtype=np.intp)], [ends]
    # Climb all rows one level at a time: as many numpy steps as the deepest path is long.
    while len(nodes[-1]):
        up = parent[nodes[-1]]
        above = up >= 0
        rows.append(rows[-1][above])
        nodes.append(up[above].astype(np.intp))
    row, node = np.concatenate(rows), np.concatenate(nodes)
    order = np.lexsort((node, row))
    indptr = np.zeros(n_rows + 1, dtype=np.intp)
    np.cumsum(np.bincount(row, minlength=n_rows), out=indptr[1:])
    kind = csr_array if get_config().get("sparse_interface") == "sparray" else csr_matrix
    return kind((np.ones(len(node), dtype=np.intp), node[order], indptr), shape=(n_rows, len(parent)))


def _is_frame(X: Any) -> bool:
    """A pandas DataFrame whose column names are all text (the names scikit-learn records)."""
    return hasattr(X, "columns") and hasattr(X, "dtypes") and hasattr(X, "iloc") and all(isinstance(c, str) for c in X.columns)


class _Estimator(BaseEstimator):
    """What every estimator shares: checking rows against the fit, and the tags. The fitted
    model is the attribute named by ``_fitted`` (a tree or an ensemble, with a schema)."""

    _task = CLASSIFICATION
    _fitted = "tree_"
    missing: str | None = None
    n_features_in_: int
    feature_names_in_: np.ndarray

    if TYPE_CHECKING:  # scikit-learn's methods (BaseEstimator's, the mixins'), typed for users of mypy

        def get_params(self, deep: bool = True) -> dict[str, Any]: ...

        def set_params(self, **params: Any) -> Self: ...

        def score(self, X: _Matrix, y: ArrayLike, sample_weight: ArrayLike | None = None) -> float: ...

    def _rows(self, X: Any) -> Any:
        """``X`` checked against the fit (feature count and names), ready for the model."""
        check_is_fitted(self, self._fitted)
        if _is_frame(X) and hasattr(self, "feature_names_in_"):
            validate_data(self, X, skip_check_array=True, reset=False)
            return X
        categorical = any(not f.is_numeric for f in getattr(self, self._fitted).schema.features)
        return validate_data(self, X, dtype=None if categorical else np.float64, ensure_all_finite=False if categorical else "allow-nan", reset=False)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        # NaN is a missing value, routed by the tree's strategy, unless it is "error".
        tags.input_tags.allow_nan = self.missing != "error"
        return tags


class _Tree(_Estimator):
    """What the two tree estimators share: the growth options, fitting, pruning, encoding."""

    tree_: Tree

    def _grow(self, X: Any, y: Any, sample_weight: Any) -> Any:
        """Validate like scikit-learn, then grow and prune; returns the checked targets."""
        _choice("algorithm", self.algorithm, ALGORITHMS)
        _choice("prune", self.prune, PRUNING)
        if not isinstance(self.store_histograms, (bool, np.bool_)):
            raise ParameterError(f"store_histograms must be True or False, got {self.store_histograms!r}")
        regression = self._task == REGRESSION
        if sample_weight is not None and hasattr(sample_weight, "__array__"):
            sample_weight = np.asarray(sample_weight)  # a Series or an array-like: its numbers
        if _is_frame(X):
            # Names and n_features_in_ recorded by scikit-learn; the cells are read by puretree,
            # which keeps categorical columns as categories.
            validate_data(self, X, y, skip_check_array=True)
            if len(X) == 0:
                raise DataError("X has no rows (0 samples)")
            y = column_or_1d(check_array(y, ensure_2d=False, dtype="numeric" if regression else None), warn=True)
            ds = from_pandas(X, y, task=self._task, sample_weight=sample_weight)
        else:
            X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite="allow-nan", y_numeric=regression)
            ds = from_numpy(X, y, task=self._task, sample_weight=sample_weight)
        if not regression:
            check_classification_targets(y)
        tree = ALGORITHMS[self.algorithm](ds, **self._growth_options())
        if self.prune == "pessimistic":
            tree = pessimistic(tree, ds, cf=self.cf)
        elif self.prune == "simplify":
            tree = simplify(tree)
        if self.ccp_alpha:
            tree = cost_complexity(tree, self.ccp_alpha)
        if self.store_histograms:
            # After growth and pruning, the rows routed through the final tree, weighted as
            # the fit weighed them (sample and class weights): its pictures draw them.
            weight = ds.sample_weight
            if getattr(self, "class_weight", None) is not None:
                weight = (1.0 if weight is None else weight) * class_weights(ds, self.class_weight)
            tree = with_histograms(tree, ds, sample_weight=weight)
        self.tree_ = tree
        return y


    def _growth_options(self) -> dict[str, Any]:
        """The options the ``algorithm`` preset grows the tree with (an ensemble's members too,
        when this estimator is its ``estimator``)."""
        options: dict[str, Any] = {
            "max_depth": self.max_depth,
            "min_samples_split": self.min_samples_split,
            "min_gain": self.min_gain,
            "threshold": self.threshold,
            "max_bins": self.max_bins,
        }
        if self.min_samples_leaf is not None:  # else the algorithm's own (c45: 2, as J48)
            options["min_samples_leaf"] = self.min_samples_leaf
        if self.criterion is not None:
            options["score"] = self.criterion
        if self.missing is not None:
            options["missing"] = self.missing
        if getattr(self, "class_weight", None) is not None:
            options["class_weight"] = self.class_weight
        options.update(self._size_options())
        if self.monotonic_cst is not None:  # scikit-learn's: per feature -1, 0, +1 (see puretree.grow.grow)
            options["monotonic_cst"] = self.monotonic_cst
        return options

    def _size_options(self) -> dict[str, Any]:
        """scikit-learn's size controls and splitter, where they differ from the defaults (the
        grown tree is then the one without them); ``random_state`` seeds the random splitter."""
        options: dict[str, Any] = {}
        if self.min_weight_fraction_leaf:
            options["min_weight_fraction_leaf"] = self.min_weight_fraction_leaf
        if self.min_impurity_decrease:
            options["min_impurity_decrease"] = self.min_impurity_decrease
        if self.max_leaf_nodes is not None:
            options["max_leaf_nodes"] = self.max_leaf_nodes
        if self.splitter != "best":
            options["splitter"] = self.splitter
        if self.max_features is not None:  # each node splits on that many features, drawn anew
            options["max_features"] = self.max_features
        if self.splitter != "best" or self.max_features is not None:
            options["seed"] = _seed(self.random_state)
        return options

    def apply(self, X: _Matrix, check_input: bool = True, *, unseen: Unseen = "warn") -> np.ndarray:
        """The pre-order id of the node each row ends at (a leaf, or a split the row cannot pass:
        an unseen category), as an int64 array; ``check_input`` is scikit-learn's and ignored
        (puretree always checks)."""
        rows = self._rows(X)
        return np.asarray(tree_apply(self.tree_, rows, unseen=unseen), dtype=np.intp)

    def decision_path(self, X: _Matrix, check_input: bool = True, *, unseen: Unseen = "warn") -> csr_matrix | csr_array:
        """The node indicator matrix, as scikit-learn's: a sparse CSR ``(n_samples, n_nodes)``
        matrix whose entry ``[i, j]`` is 1 when row ``i`` passes node ``j`` (pre-order ids, the
        root 0; the same ids as :meth:`apply` and as the tree ``to_sklearn()`` returns);
        ``unseen`` as :meth:`apply`."""
        ends = self.apply(X, unseen=unseen)
        return node_indicator(ends, flatten(self.tree_).parent)

    def get_depth(self) -> int:
        """The depth of the tree: the longest root-to-leaf path, in splits (a single leaf: 0)."""
        check_is_fitted(self, "tree_")
        return depth(self.tree_)

    def get_n_leaves(self) -> np.intp:
        """The number of leaves (a numpy integer, as scikit-learn's)."""
        check_is_fitted(self, "tree_")
        return np.intp(n_leaves(self.tree_))

    def cost_complexity_pruning_path(self, X: _Matrix, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Bunch:
        """scikit-learn's minimal cost-complexity pruning path for this estimator on ``X, y``:
        a :class:`~sklearn.utils.Bunch` with ``ccp_alphas`` (the effective alphas, rising) and
        ``impurities`` (the total leaf impurity of the tree pruned at each). As scikit-learn
        does, the estimator is cloned with ``ccp_alpha=0`` and fitted; the path is puretree's
        :func:`~puretree.prune.cost_complexity_path` of that tree (after ``prune``, if any)."""
        est = clone(self).set_params(ccp_alpha=0.0)
        est.fit(X, y, sample_weight=sample_weight)
        path = cost_complexity_path(est.tree_)
        return Bunch(ccp_alphas=path.ccp_alphas, impurities=path.impurities)

    def to_sklearn(self) -> DecisionTreeClassifier | DecisionTreeRegressor:
        """The fitted tree as scikit-learn's own ``DecisionTreeClassifier`` (or
        ``DecisionTreeRegressor``), predicting as this estimator does, for
        ``sklearn.tree.plot_tree``, ``export_text`` and ``export_graphviz``; see
        :func:`puretree.sklearn.to_sklearn` for what it refuses (multiway or subset splits,
        the ``"distribute"`` missing-value strategy) and why. Feature names fitted from a
        DataFrame are kept as its ``feature_names_in_``."""
        check_is_fitted(self, "tree_")
        est = tree_to_sklearn(self.tree_)
        if hasattr(self, "classes_"):
            est.classes_ = self.classes_
        if hasattr(self, "feature_names_in_"):
            est.feature_names_in_ = self.feature_names_in_
        return est

    @property
    def feature_importances_(self) -> np.ndarray:
        """Each feature's total weighted impurity decrease, normalised to sum to 1 (or all 0)."""
        check_is_fitted(self, "tree_")
        return np.array(list(feature_importances(self.tree_).values()))



class TreeClassifier(ClassifierMixin, _Tree):
    """A puretree classification tree as a scikit-learn classifier.

    ``algorithm`` picks the growth preset (:func:`~puretree.grow.cart`, the default,
    :func:`~puretree.grow.c45` or :func:`~puretree.grow.id3`); ``None`` for an option means
    the preset's own default. ``criterion`` overrides its split score (``"gini"``,
    ``"entropy"``, ``"information_gain"``, ``"gain_ratio"``, ``"misclassification"``).
    scikit-learn's size controls ``min_weight_fraction_leaf``, ``min_impurity_decrease``,
    ``max_leaf_nodes`` (best-first growth), ``splitter="random"`` and ``max_features`` (each
    node splits on that many features drawn at random: ``"sqrt"``, ``"log2"``, a count or a
    fraction; both seeded by ``random_state``) are grow's options of those names
    (``docs/sizes.md``).
    After growth, ``prune="pessimistic"`` applies C4.5's error-based pruning at confidence
    ``cf`` (J48's tree, with ``algorithm="c45"``), ``prune="simplify"`` merges splits whose
    branches agree, and ``ccp_alpha > 0`` CART's minimal cost-complexity pruning.
    ``missing="surrogate"`` grows rpart's tree with its surrogate splits (with ``"cart"``).
    ``monotonic_cst`` (one of -1, 0, +1 per feature) constrains the probability of
    ``classes_[1]`` (two classes only) as scikit-learn's does. ``store_histograms=True``
    keeps, in ``tree_``, what the training rows (with their sample and class weights) say at
    each node (:func:`~puretree.distributions.with_histograms`): ``tree_``'s pictures
    (``to_svg``, ``to_html``, ``to_dot``, a notebook's) then draw each split's feature
    distribution with no data given, and ``save`` keeps them in the model file.

    Fitted attributes: ``tree_`` (the puretree tree), ``classes_``, ``n_features_in_``,
    ``feature_names_in_`` (DataFrame input) and ``feature_importances_``.
    """

    classes_: np.ndarray

    def __init__(
        self,
        *,
        algorithm: str = "cart",
        criterion: str | None = None,
        max_depth: int | None = None,
        min_samples_split: float = 2,
        min_samples_leaf: float | None = None,
        min_gain: float | None = None,
        threshold: str = "midpoint",
        missing: str | None = None,
        class_weight: Any = None,
        max_bins: int | None = None,
        prune: str | None = None,
        cf: float = 0.25,
        ccp_alpha: float = 0.0,
        min_weight_fraction_leaf: float = 0.0,
        min_impurity_decrease: float = 0.0,
        max_leaf_nodes: int | None = None,
        splitter: str = "best",
        random_state: Any = None,
        monotonic_cst: Any = None,
        max_features: int | float | str | None = None,
        store_histograms: bool = False,
    ) -> None:
        self.algorithm = algorithm
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_gain = min_gain
        self.threshold = threshold
        self.missing = missing
        self.class_weight = class_weight
        self.max_bins = max_bins
        self.prune = prune
        self.cf = cf
        self.ccp_alpha = ccp_alpha
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_leaf_nodes = max_leaf_nodes
        self.splitter = splitter
        self.random_state = random_state
        self.monotonic_cst = monotonic_cst
        self.max_features = max_features
        self.store_histograms = store_histograms

    def fit(self, X: _Matrix, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Grow the tree from ``X`` and the labels ``y`` (optionally weighted)."""
        y = self._grow(X, y, sample_weight)
        self.classes_ = np.unique(y)
        learned = self.tree_.schema.classes
        # puretree sorts the labels as numpy does; the columns of predict_proba rely on it.
        if len(learned) != len(self.classes_) or any(category_key(a) != category_key(b) for a, b in zip(learned, self.classes_.tolist())):
            raise DataError(f"the labels {list(self.classes_)[:6]} do not sort the same way in puretree ({list(learned)[:6]}); give them one type")
        return self

    def predict_proba(self, X: _Matrix, *, unseen: Unseen = "warn") -> np.ndarray:
        """Class probabilities (the leaf's class fractions), columns in the order of ``classes_``;
        ``unseen`` as :func:`puretree.predict.predict` says (a keyword of the call, as
        scikit-learn's ``Pipeline.predict(X, **params)`` passes it on, not a parameter of fit)."""
        rows = self._rows(X)  # first: it raises NotFittedError before fit
        return tree_predict_proba(self.tree_, rows, unseen=unseen)

    def predict_log_proba(self, X: _Matrix, *, unseen: Unseen = "warn") -> np.ndarray:
        """The logarithm of :meth:`predict_proba` (``-inf`` where a class has probability 0), as
        scikit-learn's."""
        with np.errstate(divide="ignore"):
            return np.log(self.predict_proba(X, unseen=unseen))

    def predict(self, X: _Matrix, *, unseen: Unseen = "warn") -> np.ndarray:
        """The most probable class of each row (the first of ``classes_`` on a tie, as puretree);
        ``unseen`` as :meth:`predict_proba`."""
        proba = self.predict_proba(X, unseen=unseen)
        return self.classes_[np.argmax(proba, axis=1)]


class TreeRegressor(RegressorMixin, _Tree):
    """A puretree regression tree (variance reduction, leaves predict the weighted mean) as a
    scikit-learn regressor. The options are :class:`TreeClassifier`'s, without
    ``class_weight`` (``monotonic_cst`` constrains the prediction); ``criterion`` may be ``"variance"`` (the default of every preset; also
    ``"squared_error"``), ``"poisson"`` or ``"absolute_error"`` (leaves predict the weighted
    median), as scikit-learn's (see ``docs/criteria.md``)."""

    _task = REGRESSION

    def __init__(
        self,
        *,
        algorithm: str = "cart",
        criterion: str | None = None,
        max_depth: int | None = None,
        min_samples_split: float = 2,
        min_samples_leaf: float | None = None,
        min_gain: float | None = None,
        threshold: str = "midpoint",
        missing: str | None = None,
        max_bins: int | None = None,
        prune: str | None = None,
        cf: float = 0.25,
        ccp_alpha: float = 0.0,
        min_weight_fraction_leaf: float = 0.0,
        min_impurity_decrease: float = 0.0,
        max_leaf_nodes: int | None = None,
        splitter: str = "best",
        random_state: Any = None,
        monotonic_cst: Any = None,
        max_features: int | float | str | None = None,
        store_histograms: bool = False,
    ) -> None:
        self.algorithm = algorithm
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_gain = min_gain
        self.threshold = threshold
        self.missing = missing
        self.max_bins = max_bins
        self.prune = prune
        self.cf = cf
        self.ccp_alpha = ccp_alpha
        self.min_weight_fraction_leaf = min_weight_fraction_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_leaf_nodes = max_leaf_nodes
        self.splitter = splitter
        self.random_state = random_state
        self.monotonic_cst = monotonic_cst
        self.max_features = max_features
        self.store_histograms = store_histograms

    def fit(self, X: _Matrix, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Grow the tree from ``X`` and the numeric targets ``y`` (optionally weighted)."""
        self._grow(X, y, sample_weight)
        return self

    def predict(self, X: _Matrix, *, unseen: Unseen = "warn") -> np.ndarray:
        """The weighted mean target of the leaf each row reaches (``unseen`` as the classifier's)."""
        rows = self._rows(X)  # first: it raises NotFittedError before fit
        return np.asarray(tree_predict(self.tree_, rows, unseen=unseen), dtype=np.float64)



# -- ensembles ---------------------------------------------------------------------------------


def _seed(random_state: Any) -> int:
    """puretree's seed for scikit-learn's ``random_state``: the integer itself, 0 for None (a
    puretree ensemble is always reproducible), or a draw from a ``RandomState``."""
    if random_state is None:
        return 0
    if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, bool) and random_state >= 0:
        return int(random_state)
    return int(check_random_state(random_state).randint(0, 2**31 - 1))


#: The members' growth options of the forests, scikit-learn's names, and their defaults (a value
#: that differs goes to the growth preset under the same name, see ``docs/sizes.md``).
_FOREST_SIZES = {"min_weight_fraction_leaf": 0.0, "min_impurity_decrease": 0.0, "max_leaf_nodes": None, "monotonic_cst": None}
#: The members' options a bagging or AdaBoost estimator takes itself: with ``estimator`` given,
#: they stay at their defaults (the members' options are the estimator's).
_OWN_MEMBER_OPTIONS = ("algorithm", "criterion", "max_depth", "min_samples_split", "min_samples_leaf", "missing")


class _EnsembleEstimator(_Estimator):
    """What the ensemble estimators share: the members' growth options, the row weights
    (``sample_weight`` times ``class_weight``), fitting and the pruning of the members
    (``ccp_alpha``); the fitted puretree :class:`~puretree.ensemble.Ensemble` is ``ensemble_``."""

    _fitted = "ensemble_"
    ensemble_: Ensemble
    criterion: str | None
    max_depth: int | None
    min_samples_split: float
    min_samples_leaf: float | None

    def _tree_options(self) -> dict[str, Any]:
        # Only what differs from the presets' defaults: the ensemble records its options (JSON).
        options: dict[str, Any] = {}
        if self.max_depth is not None:
            options["max_depth"] = self.max_depth
        if self.min_samples_split != 2:
            options["min_samples_split"] = self.min_samples_split
        if self.min_samples_leaf is not None:
            options["min_samples_leaf"] = self.min_samples_leaf
        if self.criterion is not None:
            options["score"] = self.criterion
        if self.missing is not None:
            options["missing"] = self.missing
        for name, default in _FOREST_SIZES.items():
            value = getattr(self, name, default)
            # (None, or a number: an array of monotonic_cst is compared to None only)
            if (value is not None) if default is None else (value != default):
                options[name] = value
        return options

    def _check_fit_options(self) -> None:
        """scikit-learn's ``oob_score`` and ``warm_start`` checked (and refused where puretree
        cannot honour them) before any work."""
        oob = getattr(self, "oob_score", False)
        if not isinstance(oob, (bool, np.bool_)):
            raise ParameterError(f"oob_score must be True or False, got {oob!r} (puretree scores accuracy, or R squared for regression; a scoring callable is not taken)")
        if oob and not getattr(self, "bootstrap", False):
            raise ParameterError("oob_score=True needs bootstrap=True: without it no row is left out of a member")
        warm = getattr(self, "warm_start", False)
        if not isinstance(warm, (bool, np.bool_)):
            raise ParameterError(f"warm_start must be True or False, got {warm!r}")
        previous = getattr(self, "ensemble_", None) if warm else None
        if previous is not None and self.n_estimators < len(previous.members):  # type: ignore[attr-defined]
            raise ParameterError(f"n_estimators={self.n_estimators} must be at least the {len(previous.members)} members fitted before, with warm_start=True")  # type: ignore[attr-defined]

    def _warm_started(self, ens: Ensemble, ds: Any) -> Ensemble:
        """With ``warm_start=True`` after a fit, as scikit-learn's: the members fitted before are
        kept and the new ones added (member ``m`` is grown as a fresh fit grows it: from
        ``random_state`` and ``m``, on this data; puretree grows the whole ensemble and keeps the
        first ones, so on the same data the result is the fresh fit's, in the fresh fit's time)."""
        previous = getattr(self, "ensemble_", None) if getattr(self, "warm_start", False) else None
        if previous is None:
            return ens
        if previous.schema != ens.schema:
            raise ParameterError("warm_start=True: the data's columns, their kinds or the classes differ from the previous fit's; fit with warm_start=False")
        kept = len(previous.members)
        if len(ens.members) == kept:
            warnings.warn("Warm-start fitting without increasing n_estimators does not fit new trees.", UserWarning, stacklevel=3)
            return previous
        ens = attrs.evolve(ens, members=previous.members + ens.members[kept:])
        return attrs.evolve(ens, oob_score=out_of_bag_score(ens, ds))

    def _row_weights(self, y: np.ndarray, sample_weight: Any) -> Any:
        """The rows' weights: ``sample_weight`` times the ``class_weight`` of each row's class, as
        scikit-learn's forests compute it ("balanced": ``n_samples / (n_classes * weight of the
        class)``, the weights summed with ``sample_weight``)."""
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight, dtype=np.float64)
            if sample_weight.shape != (len(y),):
                raise DataError(f"sample_weight must have one weight per row ({len(y)}), got shape {sample_weight.shape}")
            if len(y) and not np.any(sample_weight):  # (AdaBoost would divide by their sum)
                raise DataError("sample_weight: every weight is zero; at least one row needs a positive weight")
        class_weight = getattr(self, "class_weight", None)
        if class_weight is None:
            return sample_weight
        if isinstance(class_weight, str):
            _choice("class_weight", class_weight, ("balanced", "balanced_subsample"))
            if class_weight == "balanced_subsample" and getattr(self, "bootstrap", False):
                raise ParameterError(
                    "class_weight='balanced_subsample' with bootstrap=True is not supported: its weights come from each member's "
                    "bootstrap draw, which puretree makes while growing the member; use 'balanced' (weights from all the rows) or bootstrap=False"
                )
            classes = np.unique(y)
            class_weight = dict(zip(classes.tolist(), compute_class_weight("balanced", classes=classes, y=y, sample_weight=sample_weight)))
        elif not isinstance(class_weight, dict):
            raise ParameterError(f"class_weight must be None, 'balanced', 'balanced_subsample' or a dict of class: weight, got {class_weight!r}")
        try:
            expanded = compute_sample_weight(class_weight, y)
        except ValueError as error:  # a class the dict names that y lacks, a negative weight...
            raise ParameterError(f"class_weight {class_weight!r}: {error}") from error
        return expanded if sample_weight is None else sample_weight * expanded

    def _fit_ensemble(self, X: Any, y: Any, sample_weight: Any = None) -> Self:
        self._check_fit_options()
        regression = self._task == REGRESSION
        if sample_weight is not None and hasattr(sample_weight, "__array__"):
            sample_weight = np.asarray(sample_weight)  # a Series or an array-like: its numbers
        if _is_frame(X):
            validate_data(self, X, y, skip_check_array=True)
            if len(X) == 0:
                raise DataError("X has no rows (0 samples)")
            y = column_or_1d(check_array(y, ensure_2d=False, dtype="numeric" if regression else None), warn=True)
            if not regression:
                check_classification_targets(y)
            ds = from_pandas(X, y, task=self._task, sample_weight=self._row_weights(y, sample_weight))
        else:
            X, y = validate_data(self, X, y, dtype=np.float64, ensure_all_finite="allow-nan", y_numeric=regression)
            if not regression:
                check_classification_targets(y)
            ds = from_numpy(X, y, task=self._task, sample_weight=self._row_weights(y, sample_weight))
        self.ensemble_ = self._warm_started(self._pruned(self._build(ds), ds), ds)
        if getattr(self, "oob_score", False):
            self.oob_score_ = self.ensemble_.oob_score
        if not regression:
            self.classes_ = np.unique(y)
            learned = self.ensemble_.schema.classes
            if len(learned) != len(self.classes_) or any(category_key(a) != category_key(b) for a, b in zip(learned, self.classes_.tolist())):
                raise DataError(f"the labels {list(self.classes_)[:6]} do not sort the same way in puretree ({list(learned)[:6]}); give them one type")
        return self

    def _member_pruning(self) -> tuple[float, bool]:
        """The pruning each member gets after its growth: CART's ``ccp_alpha`` and whether
        ``prune="simplify"`` applies."""
        return float(getattr(self, "ccp_alpha", 0.0) or 0.0), False

    def _pruned(self, ens: Ensemble, ds: Any) -> Ensemble:
        """Each member pruned after its growth, as scikit-learn prunes each of its members (their
        own weights: the rows it drew, or the row weights without bootstrap); the out-of-bag score measured
        again, on the pruned members."""
        alpha, simplified = self._member_pruning()
        if not alpha and not simplified:
            return ens
        members = [simplify(m) if simplified else m for m in ens.members]
        members = [cost_complexity(m, alpha) if alpha else m for m in members]
        recorded = {**dict(ens.options), **({"ccp_alpha": alpha} if alpha else {}), **({"prune": "simplify"} if simplified else {})}
        ens = attrs.evolve(ens, members=tuple(members), options=recorded)
        return attrs.evolve(ens, oob_score=out_of_bag_score(ens, ds))

    def _build(self, ds: Any) -> Ensemble:
        raise NotImplementedError

    def _proba(self, X: Any, unseen: Unseen = "warn") -> np.ndarray:
        rows = self._rows(X)
        return np.asarray(ensemble_proba(self.ensemble_, rows, unseen=unseen), dtype=np.float64)

    @property
    def feature_importances_(self) -> np.ndarray:
        """Each feature's importance averaged over the members (weighted as they vote)."""
        check_is_fitted(self, "ensemble_")
        return np.array(list(self.ensemble_.feature_importances().values()))

    @property
    def estimators_(self) -> list[Tree]:
        """The member trees (puretree :class:`~puretree.tree.Tree` values)."""
        check_is_fitted(self, "ensemble_")
        return list(self.ensemble_.members)


class _EnsembleClassifier(ClassifierMixin, _EnsembleEstimator):
    classes_: np.ndarray

    def fit(self, X: _Matrix, y: ArrayLike) -> Self:
        """Build the ensemble from ``X`` and the labels ``y``."""
        return self._fit_ensemble(X, y)

    def predict_proba(self, X: _Matrix, *, unseen: Unseen = "warn") -> np.ndarray:
        """Class probabilities (the members' combined vote), columns in the order of ``classes_``;
        ``unseen`` as the tree estimators' (one warning for the batch)."""
        return self._proba(X, unseen)

    def predict(self, X: _Matrix, *, unseen: Unseen = "warn") -> np.ndarray:
        """The most probable class of each row (the first of ``classes_`` on a tie)."""
        proba = self.predict_proba(X, unseen=unseen)  # first: it raises NotFittedError before fit
        return self.classes_[np.argmax(proba, axis=1)]


class _EnsembleRegressor(RegressorMixin, _EnsembleEstimator):
    _task = REGRESSION

    def fit(self, X: _Matrix, y: ArrayLike) -> Self:
        """Build the ensemble from ``X`` and the numeric targets ``y``."""
        return self._fit_ensemble(X, y)

    def predict(self, X: _Matrix, *, unseen: Unseen = "warn") -> np.ndarray:
        """The members' mean prediction (``unseen`` as the classifiers')."""
        rows = self._rows(X)
        return np.asarray(self.ensemble_.predict(rows, unseen=unseen), dtype=np.float64)


class _Weighted:
    """``fit`` with scikit-learn's ``sample_weight``: a row of integer weight ``k`` grows what
    ``k`` copies of it grow (scikit-learn's ``check_sample_weight_equivalence``), bootstrap or not:
    the members' draw (:func:`puretree.ensemble.bootstrap_counts`) is made in the rows' own order
    and in units of weight."""

    def fit(self, X: _Matrix, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Build the ensemble from ``X`` and the targets ``y``, the rows weighted by
        ``sample_weight`` (with ``bootstrap=True``, each member draws its rows with probability
        proportional to them, as scikit-learn 1.9, and is grown on their counts)."""
        return self._fit_ensemble(X, y, sample_weight)  # type: ignore[attr-defined,no-any-return]


class _Forest:
    """The parameters the forests and extra trees share, scikit-learn's names and meanings."""

    def _init_forest(self, n_estimators: int, args: dict[str, Any]) -> None:
        self.n_estimators = n_estimators
        for name, value in args.items():
            setattr(self, name, value)

    def _features(self) -> Any:
        return self.max_features  # type: ignore[attr-defined]

    def _grower(self) -> Any:
        return random_forest

    def _build(self, ds: Any) -> Ensemble:
        grow = self._grower()
        return grow(  # type: ignore[no-any-return]
            ds,
            n_trees=self.n_estimators,
            max_features=self._features(),
            seed=_seed(self.random_state),  # type: ignore[attr-defined]
            bootstrap=self.bootstrap,  # type: ignore[attr-defined]
            max_samples=self.max_samples,  # type: ignore[attr-defined]
            n_jobs=self.n_jobs,  # type: ignore[attr-defined]
            **self._tree_options(),  # type: ignore[attr-defined]
        )


class _RegressionForest(_Forest):
    def _features(self) -> Any:
        # scikit-learn's regression default (1.0, every feature) is puretree's None
        return None if self.max_features == 1.0 else self.max_features  # type: ignore[attr-defined]


class _ExtraTrees(_Forest):
    def _grower(self) -> Any:
        return extra_trees


_FOREST_DOC = """

    The members' growth options are scikit-learn's (``criterion``, ``max_depth``,
    ``min_samples_split``, ``min_samples_leaf``, ``min_weight_fraction_leaf``,
    ``min_impurity_decrease``, ``max_leaf_nodes``, ``monotonic_cst``, ``max_features``) plus
    puretree's ``missing``; ``ccp_alpha`` prunes each member after its growth, on its own weights.
    ``oob_score=True`` sets ``oob_score_`` (accuracy; R squared for regression) from the rows each
    member's bootstrap left out. ``class_weight`` and ``fit``'s ``sample_weight`` weigh the rows:
    with ``bootstrap=True`` each member draws ``max_samples`` rows (None: the weights' sum; an
    integer; a fraction of the weights' sum) with probability proportional to their weights, as
    scikit-learn 1.9, and is grown on their counts. ``warm_start=True`` keeps the members fitted
    before and adds new ones, as scikit-learn's; ``verbose`` is not taken (see ``docs/sklearn.md``)."""


class RandomForestClassifier(_Weighted, _Forest, _EnsembleClassifier):
    """puretree's random forest (:func:`puretree.ensemble.random_forest`) as a scikit-learn
    classifier: ``n_estimators`` CART trees on bootstrap samples, each split choosing among
    ``max_features`` features drawn for it; scikit-learn's parameter names where the meaning is
    the same. ``random_state`` is puretree's seed (None: 0; the forest is always reproducible,
    and does not depend on ``n_jobs``). Fitted: ``ensemble_``, ``estimators_``, ``classes_``,
    ``oob_score_`` (with ``oob_score=True``), ``feature_importances_``.

    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]] * 5); y = np.array(["a", "a", "b", "b"] * 5)
    >>> RandomForestClassifier(n_estimators=5, random_state=0).fit(X, y).predict([[0.5], [2.5]]).tolist()
    ['a', 'b']
    """

    __doc__ = (__doc__ or "") + _FOREST_DOC

    def __init__(
        self,
        n_estimators: int = 100,
        *,
        criterion: str | None = None,
        max_depth: int | None = None,
        min_samples_split: float = 2,
        min_samples_leaf: float | None = None,
        min_weight_fraction_leaf: float = 0.0,
        max_features: Any = "sqrt",
        max_leaf_nodes: int | None = None,
        min_impurity_decrease: float = 0.0,
        bootstrap: bool = True,
        oob_score: bool = False,
        n_jobs: int | None = None,
        random_state: Any = None,
        warm_start: bool = False,
        class_weight: Any = None,
        ccp_alpha: float = 0.0,
        max_samples: int | float | None = None,
        monotonic_cst: Any = None,
        missing: str | None = None,
    ) -> None:
        self._init_forest(n_estimators, {k: v for k, v in locals().items() if k not in ("self", "n_estimators", "__class__")})


class RandomForestRegressor(_Weighted, _RegressionForest, _EnsembleRegressor):
    """puretree's regression forest as a scikit-learn regressor (see
    :class:`RandomForestClassifier`, without ``class_weight``); ``max_features`` defaults to every
    feature (``1.0``), as scikit-learn's regression forests do."""

    __doc__ = (__doc__ or "") + _FOREST_DOC

    def __init__(
        self,
        n_estimators: int = 100,
        *,
        criterion: str | None = None,
        max_depth: int | None = None,
        min_samples_split: float = 2,
        min_samples_leaf: float | None = None,
        min_weight_fraction_leaf: float = 0.0,
        max_features: Any = 1.0,
        max_leaf_nodes: int | None = None,
        min_impurity_decrease: float = 0.0,
        bootstrap: bool = True,
        oob_score: bool = False,
        n_jobs: int | None = None,
        random_state: Any = None,
        warm_start: bool = False,
        ccp_alpha: float = 0.0,
        max_samples: int | float | None = None,
        monotonic_cst: Any = None,
        missing: str | None = None,
    ) -> None:
        self._init_forest(n_estimators, {k: v for k, v in locals().items() if k not in ("self", "n_estimators", "__class__")})


class ExtraTreesClassifier(_Weighted, _ExtraTrees, _EnsembleClassifier):
    """puretree's extremely randomised trees (:func:`puretree.ensemble.extra_trees`) as a
    scikit-learn classifier: :class:`RandomForestClassifier`'s parameters, its members cut at
    thresholds drawn at random (``splitter="random"``), on all the rows by default
    (``bootstrap=False``), as scikit-learn's ``ExtraTreesClassifier``.

    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]] * 5); y = np.array(["a", "a", "b", "b"] * 5)
    >>> ExtraTreesClassifier(n_estimators=5, random_state=0).fit(X, y).predict([[0.2], [2.8]]).tolist()
    ['a', 'b']
    """

    __doc__ = (__doc__ or "") + _FOREST_DOC

    def __init__(
        self,
        n_estimators: int = 100,
        *,
        criterion: str | None = None,
        max_depth: int | None = None,
        min_samples_split: float = 2,
        min_samples_leaf: float | None = None,
        min_weight_fraction_leaf: float = 0.0,
        max_features: Any = "sqrt",
        max_leaf_nodes: int | None = None,
        min_impurity_decrease: float = 0.0,
        bootstrap: bool = False,
        oob_score: bool = False,
        n_jobs: int | None = None,
        random_state: Any = None,
        warm_start: bool = False,
        class_weight: Any = None,
        ccp_alpha: float = 0.0,
        max_samples: int | float | None = None,
        monotonic_cst: Any = None,
        missing: str | None = None,
    ) -> None:
        self._init_forest(n_estimators, {k: v for k, v in locals().items() if k not in ("self", "n_estimators", "__class__")})


class ExtraTreesRegressor(_Weighted, _ExtraTrees, _RegressionForest, _EnsembleRegressor):
    """puretree's extremely randomised regression trees as a scikit-learn regressor (see
    :class:`ExtraTreesClassifier`); ``max_features`` defaults to every feature (``1.0``), as
    scikit-learn's."""

    __doc__ = (__doc__ or "") + _FOREST_DOC

    def __init__(
        self,
        n_estimators: int = 100,
        *,
        criterion: str | None = None,
        max_depth: int | None = None,
        min_samples_split: float = 2,
        min_samples_leaf: float | None = None,
        min_weight_fraction_leaf: float = 0.0,
        max_features: Any = 1.0,
        max_leaf_nodes: int | None = None,
        min_impurity_decrease: float = 0.0,
        bootstrap: bool = False,
        oob_score: bool = False,
        n_jobs: int | None = None,
        random_state: Any = None,
        warm_start: bool = False,
        ccp_alpha: float = 0.0,
        max_samples: int | float | None = None,
        monotonic_cst: Any = None,
        missing: str | None = None,
    ) -> None:
        self._init_forest(n_estimators, {k: v for k, v in locals().items() if k not in ("self", "n_estimators", "__class__")})


def _member_estimator(ensemble: Any, default_base: Any, default_options: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """The growth preset and options of an ensemble's members: the ensemble's own options, or
    those of its ``estimator`` (a puretree :class:`TreeClassifier` / :class:`TreeRegressor`), whose
    ``random_state`` the ensemble's replaces (each member is seeded by its number)."""
    est = ensemble.estimator
    if est is None:
        return default_base, default_options
    if not isinstance(est, _Tree) or est._task != ensemble._task:
        kind = "TreeRegressor" if ensemble._task == REGRESSION else "TreeClassifier"
        raise ParameterError(f"estimator must be None or a puretree {kind} (puretree.estimators), got {est!r}")
    defaults = type(ensemble)().get_params()
    given = [k for k in _OWN_MEMBER_OPTIONS if k in defaults and getattr(ensemble, k) != defaults[k]]
    if given:
        raise ParameterError(f"give the members' options on estimator or on the ensemble, not both: {', '.join(given)} set beside estimator")
    if est.store_histograms:
        raise ParameterError("estimator: store_histograms=True is not taken for an ensemble's members")
    _choice("estimator's algorithm", est.algorithm, ALGORITHMS)
    _choice("estimator's prune", est.prune, PRUNING)
    options = {k: v for k, v in est._growth_options().items() if k != "seed"}
    return ALGORITHMS[est.algorithm], options


class _Bagging:
    """The options of bagging: ``algorithm`` grows the members (as :class:`TreeClassifier`'s),
    or ``estimator`` (a puretree tree estimator) gives the preset and all the options."""

    def _member_pruning(self) -> tuple[float, bool]:
        est = self.estimator  # type: ignore[attr-defined]
        if est is None:
            return 0.0, False
        if est.prune == "pessimistic":
            raise ParameterError("estimator: prune='pessimistic' is not taken for bagging's members (C4.5's pruning would need each member's rows); use 'simplify' or ccp_alpha")
        return float(est.ccp_alpha or 0.0), est.prune == "simplify"

    def _build(self, ds: Any) -> Ensemble:
        _choice("algorithm", self.algorithm, ALGORITHMS)  # type: ignore[attr-defined]
        base, options = _member_estimator(self, ALGORITHMS[self.algorithm], self._tree_options())  # type: ignore[attr-defined]
        if options.get("class_weight") == "balanced" and self.bootstrap:  # type: ignore[attr-defined]
            raise ParameterError("estimator: class_weight='balanced' is not taken for bagging's bootstrap members (puretree weighs each member's drawn rows, not all rows); give a dict of class weights")
        return bagging(
            ds,
            base=base,
            n_trees=self.n_estimators,  # type: ignore[attr-defined]
            seed=_seed(self.random_state),  # type: ignore[attr-defined]
            bootstrap=self.bootstrap,  # type: ignore[attr-defined]
            max_samples=self.max_samples,  # type: ignore[attr-defined]
            # scikit-learn's 1.0 (every feature) is puretree's None
            member_features=None if self.max_features == 1.0 else self.max_features,  # type: ignore[attr-defined]
            bootstrap_features=bool(self.bootstrap_features),  # type: ignore[attr-defined]
            n_jobs=self.n_jobs,  # type: ignore[attr-defined]
            **options,
        )


_BAGGING_DOC = """

    ``estimator``: None (members grown by ``algorithm`` with the options given here) or a puretree
    :class:`TreeClassifier` / :class:`TreeRegressor`, whose algorithm and growth options grow
    every member (its ``ccp_alpha`` and ``prune="simplify"`` prune each; the ensemble's
    ``random_state`` seeds them). ``oob_score=True`` sets ``oob_score_``. ``max_samples`` and
    ``fit``'s ``sample_weight`` as the forests' (with ``bootstrap=False``, ``max_samples`` distinct
    rows). ``max_features`` (a count, or a fraction of the features) is how many features each
    member may split on, drawn for it without replacement (``bootstrap_features=True``: with
    replacement), as scikit-learn's; ``verbose`` is not taken; ``warm_start`` as the forests'
    (see ``docs/sklearn.md``)."""


class BaggingClassifier(_Weighted, _Bagging, _EnsembleClassifier):
    """puretree's bagging (:func:`puretree.ensemble.bagging`) as a scikit-learn classifier:
    ``n_estimators`` trees grown by ``algorithm`` (``"cart"``, ``"c45"``, ``"id3"``) on
    bootstrap samples (``bootstrap=False``: all rows), their class probabilities averaged."""

    __doc__ = (__doc__ or "") + _BAGGING_DOC

    def __init__(
        self,
        estimator: Any = None,
        n_estimators: int = 10,
        *,
        max_samples: int | float | None = None,
        max_features: int | float = 1.0,
        bootstrap_features: bool = False,
        algorithm: str = "cart",
        criterion: str | None = None,
        max_depth: int | None = None,
        min_samples_split: float = 2,
        min_samples_leaf: float | None = None,
        bootstrap: bool = True,
        oob_score: bool = False,
        warm_start: bool = False,
        random_state: Any = None,
        n_jobs: int | None = None,
        missing: str | None = None,
    ) -> None:
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.max_features = max_features
        self.bootstrap_features = bootstrap_features
        self.algorithm = algorithm
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.warm_start = warm_start
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.missing = missing


class BaggingRegressor(_Weighted, _Bagging, _EnsembleRegressor):
    """puretree's bagging of regression trees as a scikit-learn regressor (see
    :class:`BaggingClassifier`)."""

    __doc__ = (__doc__ or "") + _BAGGING_DOC

    def __init__(
        self,
        estimator: Any = None,
        n_estimators: int = 10,
        *,
        max_samples: int | float | None = None,
        max_features: int | float = 1.0,
        bootstrap_features: bool = False,
        algorithm: str = "cart",
        criterion: str | None = None,
        max_depth: int | None = None,
        min_samples_split: float = 2,
        min_samples_leaf: float | None = None,
        bootstrap: bool = True,
        oob_score: bool = False,
        warm_start: bool = False,
        random_state: Any = None,
        n_jobs: int | None = None,
        missing: str | None = None,
    ) -> None:
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.max_samples = max_samples
        self.max_features = max_features
        self.bootstrap_features = bootstrap_features
        self.algorithm = algorithm
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.bootstrap = bootstrap
        self.oob_score = oob_score
        self.warm_start = warm_start
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.missing = missing


class AdaBoostClassifier(_Weighted, _EnsembleClassifier):
    """puretree's AdaBoost SAMME (:func:`puretree.ensemble.adaboost`) as a scikit-learn
    classifier: up to ``n_estimators`` CART trees of depth ``max_depth`` (stumps by default),
    each weighted by ``learning_rate * (log((1 - e) / e) + log(K - 1))``. ``estimator`` (None, or
    a puretree :class:`TreeClassifier` without post-pruning) gives the members' algorithm and
    growth options instead; ``sample_weight`` is the rows' starting weights, as scikit-learn's."""

    def __init__(
        self,
        estimator: Any = None,
        *,
        n_estimators: int = 50,
        learning_rate: float = 1.0,
        max_depth: int | None = 1,
        criterion: str | None = None,
        min_samples_split: float = 2,
        min_samples_leaf: float | None = None,
        random_state: Any = None,
        missing: str | None = None,
    ) -> None:
        self.estimator = estimator
        self.n_estimators = n_estimators
        self.learning_rate = learning_rate
        self.max_depth = max_depth
        self.criterion = criterion
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.random_state = random_state
        self.missing = missing

    def _build(self, ds: Any) -> Ensemble:
        options = self._tree_options()
        # Depth 1 is puretree's stump, AdaBoost's own default (and so recorded in the model).
        base = stump if options.get("max_depth") == 1 else cart
        if base is stump:
            del options["max_depth"]
        base, options = _member_estimator(self, base, options)
        est = self.estimator
        if est is not None and (est.prune is not None or est.ccp_alpha):
            raise ParameterError("estimator: post-pruning (prune, ccp_alpha) is not taken for AdaBoost's members: each is weighed as grown")
        return adaboost(ds, n_rounds=self.n_estimators, base=base, seed=_seed(self.random_state), learning_rate=self.learning_rate, **options)


# -- gradient boosting ---------------------------------------------------------------------------


class _GradientBoosting(_Estimator):
    """What the two gradient boosting estimators share: :func:`puretree.gradient_boosting` behind
    scikit-learn's ``GradientBoosting*`` parameters. The fitted :class:`~puretree.boosted.Boosted`
    is ``model_`` (its stages of puretree trees: ``model_.stages``, also ``estimators_``)."""

    _fitted = "model_"
    model_: Boosted
    feature_importances_: np.ndarray
    loss: str
    learning_rate: float
    n_estimators: int
    subsample: float
    max_depth: int | None
    min_samples_split: float
    min_samples_leaf: float
    min_impurity_decrease: float
    max_features: Any
    random_state: Any
    n_iter_no_change: int | None
    validation_fraction: float
    tol: float
    sklearn_tie_break: bool

    def _fit_boosted(self, X: Any, y: Any, sample_weight: Any) -> Self:
        regression = self._task == REGRESSION
        # Numeric, finite features only (as scikit-learn's): gradient_boosting reads them as float32.
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=regression)
        y = column_or_1d(y, warn=True)
        if not regression:
            check_classification_targets(y)
            if len(np.unique(y)) < 2:
                raise DataError(f"gradient boosting needs at least two classes in y; it has one class, {y[0]!r}")
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight, dtype=np.float64)
            if sample_weight.shape != (len(y),):
                raise DataError(f"sample_weight must have one weight per row ({len(y)}), got shape {sample_weight.shape}")
            if not np.any(sample_weight):  # (the initial prediction is a weighted mean)
                raise DataError("sample_weight: every weight is zero; at least one row needs a positive weight")
        names = [str(n) for n in self.feature_names_in_] if hasattr(self, "feature_names_in_") else None
        ds = from_numpy(X, y, feature_names=names, task=self._task, sample_weight=sample_weight)
        self.model_ = gradient_boosting(
            ds,
            loss=self.loss,
            n_estimators=self.n_estimators,
            learning_rate=self.learning_rate,
            max_depth=self.max_depth,
            subsample=self.subsample,
            max_features=self.max_features,
            random_state=_seed(self.random_state),
            sklearn_tie_break=self.sklearn_tie_break,
            n_iter_no_change=self.n_iter_no_change,
            validation_fraction=self.validation_fraction,
            tol=self.tol,
            alpha=getattr(self, "alpha", 0.9),  # the regression losses' (the classifier has none)
            min_samples_split=self.min_samples_split,
            min_samples_leaf=self.min_samples_leaf,
            min_impurity_decrease=self.min_impurity_decrease,
        )
        self.n_estimators_ = int(self.model_.option("n_estimators_"))
        # scikit-learn's: of the gradients the stage trees were grown on (the fit replayed)
        self.feature_importances_ = gradient_importances(self.model_, ds)
        if not regression:
            self.classes_ = np.unique(y)
            self.n_classes_ = len(self.classes_)
            learned = self.model_.schema.classes
            if len(learned) != len(self.classes_) or any(category_key(a) != category_key(b) for a, b in zip(learned, self.classes_.tolist())):
                raise DataError(f"the labels {list(self.classes_)[:6]} do not sort the same way in puretree ({list(learned)[:6]}); give them one type")
        return self

    def _rows(self, X: Any) -> Any:
        check_is_fitted(self, "model_")
        return validate_data(self, X, dtype=np.float64, reset=False)

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False  # refused, as scikit-learn's GradientBoosting refuses it
        return tags

    def _raw(self, X: Any) -> np.ndarray:
        """The raw scores (:func:`puretree.boosted.decision_function`): shape ``(rows,)`` for one
        output (regression, two classes), ``(rows, K)`` for K classes."""
        rows = self._rows(X)  # first: it raises NotFittedError before fit
        return np.asarray(boosted_decision(self.model_, rows), dtype=np.float64)

    def _staged_raw(self, X: Any) -> Iterator[np.ndarray]:
        """The raw scores after each stage, the first after stage 0."""
        rows = self._rows(X)
        for raw in boosted_staged_decision(self.model_, rows):
            yield np.asarray(raw, dtype=np.float64)


    @property
    def estimators_(self) -> np.ndarray:
        """The stage trees, shape ``(n_estimators_, outputs)`` as scikit-learn's, each a puretree
        :class:`~puretree.tree.Tree` (a regression tree of the stage's leaf values)."""
        check_is_fitted(self, "model_")
        out = np.empty((len(self.model_.stages), self.model_.n_outputs), dtype=object)
        for i, stage in enumerate(self.model_.stages):
            for k, tree in enumerate(stage):
                out[i, k] = tree
        return out


class GradientBoostingClassifier(ClassifierMixin, _GradientBoosting):
    """:func:`puretree.gradient_boosting` as a scikit-learn classifier, with the parameters of
    scikit-learn's ``GradientBoostingClassifier`` (1.9) that mean the same, and its defaults
    (``loss="log_loss"``; scikit-learn's ``"exponential"`` is refused). ``sklearn_tie_break=True``
    grows scikit-learn's model for the same integer ``random_state`` (see
    :mod:`puretree.gradient_boosting`); it is pure Python, so the default is ``False`` (ties
    to the lowest feature). ``random_state=None`` is seed 0 (a fit is always reproducible).
    Absent: ``criterion`` (always ``friedman_mse``'s splits), ``init``, ``warm_start``,
    ``max_leaf_nodes``, ``min_weight_fraction_leaf``, ``ccp_alpha``, ``verbose``, ``train_score_``,
    ``oob_improvement_``; ``NaN`` and categorical features are refused.

    >>> import numpy as np
    >>> X = np.array([[0.0], [1.0], [2.0], [3.0]]); y = np.array(["a", "a", "b", "b"])
    >>> clf = GradientBoostingClassifier(n_estimators=3, max_depth=1).fit(X, y)
    >>> clf.predict([[0.5], [2.5]]).tolist(), clf.n_estimators_, clf.estimators_.shape
    (['a', 'b'], 3, (3, 1))
    """

    classes_: np.ndarray

    def __init__(
        self,
        *,
        loss: str = "log_loss",
        learning_rate: float = 0.1,
        n_estimators: int = 100,
        subsample: float = 1.0,
        min_samples_split: float = 2,
        min_samples_leaf: float = 1,
        min_impurity_decrease: float = 0.0,
        max_depth: int | None = 3,
        random_state: Any = None,
        max_features: Any = None,
        validation_fraction: float = 0.1,
        n_iter_no_change: int | None = None,
        tol: float = 1e-4,
        sklearn_tie_break: bool = False,
    ) -> None:
        self.loss = loss
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.subsample = subsample
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_depth = max_depth
        self.random_state = random_state
        self.max_features = max_features
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.sklearn_tie_break = sklearn_tie_break

    def fit(self, X: _Matrix, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Boost from ``X`` and the labels ``y``, the rows weighted by ``sample_weight``."""
        return self._fit_boosted(X, y, sample_weight)

    def predict_proba(self, X: _Matrix) -> np.ndarray:
        """Class probabilities, columns in the order of ``classes_``."""
        rows = self._rows(X)
        return np.asarray(boosted_proba(self.model_, rows), dtype=np.float64)

    def staged_predict_proba(self, X: _Matrix) -> Iterator[np.ndarray]:
        """The class probabilities after each stage."""
        rows = self._rows(X)
        for proba in boosted_staged_proba(self.model_, rows):
            yield np.asarray(proba, dtype=np.float64)

    def decision_function(self, X: _Matrix) -> np.ndarray:
        """The raw scores: shape ``(rows,)`` for two classes (the log-odds of ``classes_[1]``),
        ``(rows, K)`` for K classes, as scikit-learn's."""
        return self._raw(X)

    def staged_decision_function(self, X: _Matrix) -> Iterator[np.ndarray]:
        """The raw scores after each stage, the first after stage 0: shape ``(rows, 1)`` for two
        classes, ``(rows, K)`` for K (as scikit-learn's, whose ``decision_function`` is 1-D)."""
        for raw in self._staged_raw(X):
            yield raw.reshape(len(raw), -1)

    def _classes(self, raw: Any) -> np.ndarray:
        raw = np.asarray(raw, dtype=np.float64)
        return self.classes_[boosted_class_codes(self.model_, raw.reshape(len(raw), -1))]

    def predict(self, X: _Matrix) -> np.ndarray:
        """Each row's class: one output, ``classes_[1]`` where the raw score is at least 0; K, the
        first largest raw score (as scikit-learn's)."""
        return self._classes(self.decision_function(X))

    def staged_predict(self, X: _Matrix) -> Iterator[np.ndarray]:
        """The classes after each stage."""
        for raw in self.staged_decision_function(X):
            yield self._classes(raw)


class GradientBoostingRegressor(RegressorMixin, _GradientBoosting):
    """:func:`puretree.gradient_boosting` as a scikit-learn regressor: ``loss`` is
    ``"squared_error"`` (default), ``"absolute_error"``, ``"huber"`` or ``"quantile"``
    (``alpha``: the quantile, Huber's breaking point); the other parameters and what is absent
    as :class:`GradientBoostingClassifier`'s.

    >>> import numpy as np
    >>> X = np.array([[1.0], [2.0], [3.0], [4.0]])
    >>> reg = GradientBoostingRegressor(n_estimators=10, learning_rate=0.5, max_depth=1).fit(X, [1.0, 1.0, 11.0, 11.0])
    >>> [round(float(v), 4) for v in reg.predict(X)]
    [1.0049, 1.0049, 10.9951, 10.9951]
    """

    _task = REGRESSION

    def __init__(
        self,
        *,
        loss: str = "squared_error",
        learning_rate: float = 0.1,
        n_estimators: int = 100,
        subsample: float = 1.0,
        min_samples_split: float = 2,
        min_samples_leaf: float = 1,
        min_impurity_decrease: float = 0.0,
        max_depth: int | None = 3,
        random_state: Any = None,
        max_features: Any = None,
        alpha: float = 0.9,
        validation_fraction: float = 0.1,
        n_iter_no_change: int | None = None,
        tol: float = 1e-4,
        sklearn_tie_break: bool = False,
    ) -> None:
        self.loss = loss
        self.learning_rate = learning_rate
        self.n_estimators = n_estimators
        self.subsample = subsample
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        self.min_impurity_decrease = min_impurity_decrease
        self.max_depth = max_depth
        self.random_state = random_state
        self.max_features = max_features
        self.alpha = alpha
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.sklearn_tie_break = sklearn_tie_break

    def fit(self, X: _Matrix, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Boost from ``X`` and the numeric targets ``y``, the rows weighted by ``sample_weight``."""
        return self._fit_boosted(X, y, sample_weight)

    def predict(self, X: _Matrix) -> np.ndarray:
        """The predicted values (the raw scores)."""
        return self._raw(X)

    def staged_predict(self, X: _Matrix) -> Iterator[np.ndarray]:
        """The predicted values after each stage."""
        yield from self._staged_raw(X)


# -- histogram gradient boosting -----------------------------------------------------------------


class _HistGradientBoosting(_GradientBoosting):
    """What the two histogram boosting estimators share: :func:`puretree.hist_gradient_boosting`
    behind scikit-learn's ``HistGradientBoosting*`` parameters; ``model_`` is the fitted
    :class:`~puretree.boosted.Boosted`, ``n_iter_`` its stages (after early stopping),
    ``n_trees_per_iteration_`` its outputs. NaN is a missing value (its side is learned)."""

    max_iter: int
    max_leaf_nodes: int | None
    l2_regularization: float
    max_bins: int
    categorical_features: Any
    early_stopping: Any
    scoring: str
    min_samples_leaf: Any  # an integer (a float's fraction is GradientBoosting's, refused here by name)
    n_iter_no_change: Any

    def _fit_boosted(self, X: Any, y: Any, sample_weight: Any) -> Self:
        from .hist_gradient_boosting import categorical_names, hist_gradient_boosting

        regression = self._task == REGRESSION
        X, y = validate_data(self, X, y, dtype=np.float64, y_numeric=regression, ensure_all_finite="allow-nan")
        y = column_or_1d(y, warn=True)
        if not regression:
            check_classification_targets(y)
            if len(np.unique(y)) < 2:
                raise DataError(f"gradient boosting needs at least two classes in y; it has one class, {y[0]!r}")
        if sample_weight is not None:
            sample_weight = np.asarray(sample_weight, dtype=np.float64)
            if sample_weight.shape != (len(y),):
                raise DataError(f"sample_weight must have one weight per row ({len(y)}), got shape {sample_weight.shape}")
            if not np.any(sample_weight):
                raise DataError("sample_weight: every weight is zero; at least one row needs a positive weight")
        names = [str(n) for n in self.feature_names_in_] if hasattr(self, "feature_names_in_") else None
        ds = from_numpy(X, y, feature_names=names, task=self._task, sample_weight=sample_weight)
        categorical = categorical_names(self.categorical_features, ds)
        if categorical:  # the named columns read as categories (their distinct values)
            ds = from_numpy(X, y, feature_names=names, categorical=categorical, task=self._task, sample_weight=sample_weight)
        self.model_ = hist_gradient_boosting(
            ds,
            loss=self.loss,
            learning_rate=self.learning_rate,
            max_iter=self.max_iter,
            max_leaf_nodes=self.max_leaf_nodes,
            max_depth=self.max_depth,
            min_samples_leaf=self.min_samples_leaf,
            l2_regularization=self.l2_regularization,
            max_bins=self.max_bins,
            categorical_features=None,  # read as categories above
            early_stopping=self.early_stopping,
            scoring=self.scoring,
            validation_fraction=self.validation_fraction,
            n_iter_no_change=self.n_iter_no_change,
            tol=self.tol,
            random_state=_seed(self.random_state),
        )
        self.n_iter_ = int(self.model_.option("n_iter_"))
        self.n_trees_per_iteration_ = self.model_.n_outputs
        if not regression:
            self.classes_ = np.unique(y)
            self.n_classes_ = len(self.classes_)
            learned = self.model_.schema.classes
            if len(learned) != len(self.classes_) or any(category_key(a) != category_key(b) for a, b in zip(learned, self.classes_.tolist())):
                raise DataError(f"the labels {list(self.classes_)[:6]} do not sort the same way in puretree ({list(learned)[:6]}); give them one type")
        return self

    def _rows(self, X: Any) -> Any:
        check_is_fitted(self, "model_")
        return validate_data(self, X, dtype=np.float64, reset=False, ensure_all_finite="allow-nan")

    def __sklearn_tags__(self) -> Any:
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True  # a missing value: the side each split learned
        return tags


class HistGradientBoostingClassifier(_HistGradientBoosting, GradientBoostingClassifier):
    """:func:`puretree.hist_gradient_boosting` as a scikit-learn classifier, with the parameters
    of scikit-learn's ``HistGradientBoostingClassifier`` (1.9) that mean the same and its
    defaults (``loss="log_loss"``). ``random_state=None`` is seed 0 (the early-stopping split).
    Absent: ``monotonic_cst``, ``interaction_cst``, ``warm_start``, ``class_weight``,
    ``verbose``, ``max_features``; ``categorical_features`` (indices, names ``x0, x1, ...`` or a
    boolean mask) splits those columns natively, ``scoring`` is ``"loss"`` only.

    >>> import numpy as np
    >>> X = np.array([[float(i)] for i in range(40)]); y = np.array(["a"] * 20 + ["b"] * 20)
    >>> clf = HistGradientBoostingClassifier(max_iter=5, min_samples_leaf=5).fit(X, y)
    >>> clf.predict([[3.0], [33.0]]).tolist(), clf.n_iter_, clf.n_trees_per_iteration_
    (['a', 'b'], 5, 1)
    """

    def __init__(
        self,
        *,
        loss: str = "log_loss",
        learning_rate: float = _HGB_DEFAULTS["learning_rate"],
        max_iter: int = _HGB_DEFAULTS["max_iter"],
        max_leaf_nodes: int | None = _HGB_DEFAULTS["max_leaf_nodes"],
        max_depth: int | None = _HGB_DEFAULTS["max_depth"],
        min_samples_leaf: int = _HGB_DEFAULTS["min_samples_leaf"],
        l2_regularization: float = _HGB_DEFAULTS["l2_regularization"],
        max_bins: int = _HGB_DEFAULTS["max_bins"],
        categorical_features: Any = _HGB_DEFAULTS["categorical_features"],
        early_stopping: Any = _HGB_DEFAULTS["early_stopping"],
        scoring: str = _HGB_DEFAULTS["scoring"],
        validation_fraction: float = _HGB_DEFAULTS["validation_fraction"],
        n_iter_no_change: int = _HGB_DEFAULTS["n_iter_no_change"],
        tol: float = _HGB_DEFAULTS["tol"],
        random_state: Any = _HGB_DEFAULTS["random_state"],
    ) -> None:
        self.loss = loss
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.early_stopping = early_stopping
        self.scoring = scoring
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.random_state = random_state

class HistGradientBoostingRegressor(_HistGradientBoosting, GradientBoostingRegressor):
    """:func:`puretree.hist_gradient_boosting` as a scikit-learn regressor (``loss="squared_error"``);
    the other parameters and what is absent as :class:`HistGradientBoostingClassifier`'s.

    >>> import numpy as np
    >>> X = np.array([[float(i)] for i in range(40)])
    >>> reg = HistGradientBoostingRegressor(max_iter=20, learning_rate=0.5, min_samples_leaf=5).fit(X, [0.0] * 20 + [10.0] * 20)
    >>> [round(float(v), 3) for v in reg.predict([[3.0], [30.0]])]
    [0.0, 10.0]
    """

    def __init__(
        self,
        *,
        loss: str = "squared_error",
        learning_rate: float = _HGB_DEFAULTS["learning_rate"],
        max_iter: int = _HGB_DEFAULTS["max_iter"],
        max_leaf_nodes: int | None = _HGB_DEFAULTS["max_leaf_nodes"],
        max_depth: int | None = _HGB_DEFAULTS["max_depth"],
        min_samples_leaf: int = _HGB_DEFAULTS["min_samples_leaf"],
        l2_regularization: float = _HGB_DEFAULTS["l2_regularization"],
        max_bins: int = _HGB_DEFAULTS["max_bins"],
        categorical_features: Any = _HGB_DEFAULTS["categorical_features"],
        early_stopping: Any = _HGB_DEFAULTS["early_stopping"],
        scoring: str = _HGB_DEFAULTS["scoring"],
        validation_fraction: float = _HGB_DEFAULTS["validation_fraction"],
        n_iter_no_change: int = _HGB_DEFAULTS["n_iter_no_change"],
        tol: float = _HGB_DEFAULTS["tol"],
        random_state: Any = _HGB_DEFAULTS["random_state"],
    ) -> None:
        self.loss = loss
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.max_leaf_nodes = max_leaf_nodes
        self.max_depth = max_depth
        self.min_samples_leaf = min_samples_leaf
        self.l2_regularization = l2_regularization
        self.max_bins = max_bins
        self.categorical_features = categorical_features
        self.early_stopping = early_stopping
        self.scoring = scoring
        self.validation_fraction = validation_fraction
        self.n_iter_no_change = n_iter_no_change
        self.tol = tol
        self.random_state = random_state
