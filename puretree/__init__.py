"""puretree: decision trees as immutable values.

Grow ID3, C4.5 and CART trees with pure functions whose criteria are plain functions, prune
them with tree rewrites, turn them into rules, and compile them to standalone Python and C.
Hypothesis strategies for testing live in :mod:`puretree.strategies` (not imported here).

``import puretree`` is light: each name below is imported from its submodule on first use
(PEP 562), so that the ``puretree`` command has its Ctrl-C handling in place before numpy
and the rest load.

>>> import puretree
>>> tree = puretree.id3(puretree.datasets.load_playtennis())
>>> tree.schema.features[tree.root.feature].name
'outlook'
>>> import puretree.predict  # the submodule loads, yet the name stays the function
>>> puretree.predict.__name__, puretree.predict.__module__
('predict', 'puretree.answers')
"""

from __future__ import annotations

import importlib
import sys
import types

TYPE_CHECKING = False  # typing.TYPE_CHECKING, without importing typing: `import puretree` stays light
if TYPE_CHECKING:  # what the names are, for type checkers; at run time they load on first use
    from typing import Any

    from . import boosted, codegen, costs, criteria, datasets, ensemble, evaluate, fold, importance, impurity, prune, rules
    from .codegen.ensemble import export, generate, to_java, to_javascript, to_rust, verify
    from .compiled import to_function
    from .costs import cost_sensitive, nunez, tan_schlimmer
    from .criteria import gain_ratio, impurity_decrease, information_gain, per_feature, split_info
    from .data import Dataset, as_dataset, from_numpy, from_pandas, from_rows, read_csv
    from .errors import CodegenError, DataError, KernelUnavailableWarning, MemoryLimitError, ModelFormatError, ParameterError, PuretreeError, PuretreeWarning, SchemaError
    from .evaluate import accuracy, confusion_matrix, cross_validate, precision_recall, roc_auc, stratified_folds, train_test_split
    from .fold import depth, iter_nodes, n_leaves, n_nodes, rewrite
    from .fold import fold as fold_tree
    from .c45 import c45
    from .grow import attribute_scores, by_task, cart, cart_regressor, class_weights, grow, id3, multiway_splits, subset_splits, threshold_splits
    from .importance import feature_importances
    from .monotone import check_monotone
    from .explain import ShapValues, shap_values
    from .analysis import Counterfactual, Diff, DiffBox, Robustness, counterfactual, diff, robustness
    from .ensemble import Ensemble, adaboost, bagging, extra_trees, random_forest, stump
    from .boosted import Boosted
    from .io._xgboost import from_xgboost
    from .io._lightgbm import from_lightgbm
    from .gradient_boosting import gradient_boosting
    from .hist_gradient_boosting import hist_gradient_boosting
    from .impurity import entropy, gini, misclassification, variance
    from .io import from_json, load, save, to_json
    from .nodes import CategoricalSplit, Feature, Leaf, Multiway, NumericSplit, Schema, Split, Subset, SubsetSplit, Threshold
    from .tree import Tree
    from .answers import predict, predict_proba
    from .predict import apply, decision_path
    from .prune import chi_square_test, choose_alpha, cost_complexity, cost_complexity_path, pessimistic, reduced_error, simplify
    from .rules import Rule, RuleList, prune_rules, to_rules
    from .io.formats import read_arff, read_data
    from .sklearn import from_sklearn, to_sklearn
    from .text import summary, to_text
    from .views import to_dot, to_html, to_svg
    from .distributions import node_histograms, with_histograms

from ._version import __version__

__all__ = [
    "__version__",
    # values
    "Tree", "Schema", "Feature", "Leaf", "Split", "Threshold", "Multiway", "Subset",
    # deprecated aliases of Split (one release)
    "NumericSplit", "CategoricalSplit", "SubsetSplit",
    # data
    "Dataset", "as_dataset", "from_numpy", "from_pandas", "from_rows", "read_csv", "read_arff", "read_data", "datasets",
    # criteria
    "entropy", "gini", "misclassification", "variance",
    "information_gain", "gain_ratio", "impurity_decrease", "split_info", "per_feature",
    "cost_sensitive", "tan_schlimmer", "nunez",
    "criteria", "impurity", "costs",
    # growing
    "grow", "id3", "c45", "cart", "cart_regressor", "by_task", "class_weights",
    "threshold_splits", "multiway_splits", "subset_splits", "attribute_scores",
    # ensembles
    "Ensemble", "bagging", "random_forest", "extra_trees", "adaboost", "stump", "ensemble", "gradient_boosting", "hist_gradient_boosting",
    # boosted models
    "Boosted", "boosted",
    # using and inspecting
    "predict", "predict_proba", "apply", "decision_path", "to_text", "summary", "feature_importances", "importance", "check_monotone", "shap_values", "ShapValues", "diff", "Diff", "DiffBox", "robustness", "Robustness", "counterfactual", "Counterfactual",
    "to_dot", "to_svg", "to_html", "node_histograms", "with_histograms",
    "fold", "fold_tree", "rewrite", "iter_nodes", "n_nodes", "n_leaves", "depth",
    # pruning and rules
    "prune", "simplify", "reduced_error", "pessimistic", "cost_complexity", "cost_complexity_path", "choose_alpha",
    "chi_square_test", "rules", "Rule", "RuleList", "to_rules", "prune_rules",
    # evaluation
    "evaluate", "accuracy", "confusion_matrix", "precision_recall", "roc_auc", "train_test_split",
    "stratified_folds", "cross_validate",
    # saving, compiling, converting
    "to_json", "from_json", "save", "load", "codegen", "generate", "export", "verify", "to_javascript", "to_java", "to_rust", "to_function", "from_sklearn", "to_sklearn", "from_xgboost", "from_lightgbm",
    # errors
    "PuretreeError", "DataError", "SchemaError", "ModelFormatError", "ParameterError", "CodegenError", "MemoryLimitError",
    # warnings
    "PuretreeWarning", "KernelUnavailableWarning",
]

# Where each public name lives: {submodule: names}; (name, attribute) where they differ.
_SOURCES: dict[str, tuple[str | tuple[str, str], ...]] = {
    ".codegen": ("export", "generate", "verify", "to_javascript", "to_java", "to_rust"),
    ".compiled": ("to_function",),
    ".costs": ("cost_sensitive", "nunez", "tan_schlimmer"),
    ".criteria": ("gain_ratio", "impurity_decrease", "information_gain", "per_feature", "split_info"),
    ".data": ("Dataset", "as_dataset", "from_numpy", "from_pandas", "from_rows", "read_csv"),
    ".errors": ("CodegenError", "DataError", "KernelUnavailableWarning", "MemoryLimitError", "ModelFormatError", "ParameterError", "PuretreeError", "PuretreeWarning", "SchemaError"),
    ".evaluate": ("accuracy", "confusion_matrix", "cross_validate", "precision_recall", "roc_auc", "stratified_folds", "train_test_split"),
    ".fold": ("depth", "iter_nodes", "n_leaves", "n_nodes", "rewrite", ("fold_tree", "fold")),
    ".c45": ("c45",),
    ".grow": ("attribute_scores", "by_task", "cart", "cart_regressor", "class_weights", "grow", "id3", "multiway_splits", "subset_splits", "threshold_splits"),
    ".importance": ("feature_importances",),
    ".monotone": ("check_monotone",),
    ".explain": ("ShapValues", "shap_values"),
    ".analysis": ("Counterfactual", "Diff", "DiffBox", "Robustness", "counterfactual", "diff", "robustness"),
    ".ensemble": ("Ensemble", "adaboost", "bagging", "extra_trees", "random_forest", "stump"),
    ".boosted": ("Boosted",),
    ".io._xgboost": ("from_xgboost",),
    ".io._lightgbm": ("from_lightgbm",),
    ".gradient_boosting": ("gradient_boosting",),
    ".hist_gradient_boosting": ("hist_gradient_boosting",),
    ".impurity": ("entropy", "gini", "misclassification", "variance"),
    ".io": ("from_json", "load", "save", "to_json"),
    ".nodes": ("CategoricalSplit", "Feature", "Leaf", "Multiway", "NumericSplit", "Schema", "Split", "Subset", "SubsetSplit", "Threshold"),
    ".tree": ("Tree",),
    ".answers": ("predict", "predict_proba"),
    ".predict": ("apply", "decision_path"),
    ".prune": ("chi_square_test", "choose_alpha", "cost_complexity", "cost_complexity_path", "pessimistic", "reduced_error", "simplify"),
    ".rules": ("Rule", "RuleList", "prune_rules", "to_rules"),
    ".io.formats": ("read_arff", "read_data"),
    ".sklearn": ("from_sklearn", "to_sklearn"),
    ".text": ("summary", "to_text"),
    ".views": ("to_dot", "to_html", "to_svg"),
    ".distributions": ("node_histograms", "with_histograms"),
}
_WHERE: dict[str, tuple[str, str]] = {
    (item if isinstance(item, str) else item[0]): (module, item if isinstance(item, str) else item[1])
    for module, items in _SOURCES.items()
    for item in items
}
# Submodules reachable as attributes (``puretree.io``), as they were when the package imported
# them all. ``predict``, ``grow``, ``c45`` and ``gradient_boosting`` are not among them: those names are the functions.
_SUBMODULES = frozenset({"boosted", "codegen", "costs", "criteria", "data", "datasets", "ensemble", "errors", "evaluate", "explain", "fold", "importance", "impurity", "io", "mcu", "nodes", "prune", "rules", "sklearn", "text", "views"})


def __getattr__(name: str) -> Any:
    """Import a public name from its submodule on first use (PEP 562), then keep it."""
    if name in _WHERE:
        module, attribute = _WHERE[name]
        value = getattr(importlib.import_module(module, __name__), attribute)
    elif name in _SUBMODULES:
        value = importlib.import_module(f".{name}", __name__)
    else:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__) | _SUBMODULES)


def _function(name: str, home: str | None = None) -> property:
    """``puretree.NAME`` as the function NAME of the submodule ``home`` (by default the
    submodule of the same name).

    Importing the submodule ``puretree.predict`` makes Python set the package's attribute
    ``predict`` to that submodule (the eager package rebound it to the function afterwards);
    this property keeps the function whatever is imported, in whichever order.
    """
    where = f"{__name__}.{home or name}"

    def get(module: types.ModuleType) -> Any:
        # sys.modules first: a call through puretree.predict stays as fast as a direct one.
        sub = sys.modules.get(where) or importlib.import_module(where)
        return getattr(sub, name)

    def set(module: types.ModuleType, value: Any) -> None:
        if not isinstance(value, types.ModuleType):
            raise AttributeError(f"puretree.{name} is read-only; patch {where}.{name} instead")

    return property(get, set)


class _Package(types.ModuleType):
    predict = _function("predict", "answers")  # one row through the compiled tree (puretree.answers)
    grow = _function("grow")
    c45 = _function("c45")
    gradient_boosting = _function("gradient_boosting")
    hist_gradient_boosting = _function("hist_gradient_boosting")


sys.modules[__name__].__class__ = _Package
