"""puretree: decision trees as immutable values.

Grow ID3, C4.5 and CART trees with pure functions whose criteria are plain functions, prune
them with tree rewrites, turn them into rules, and compile them to standalone Python and C.
Hypothesis strategies for testing live in :mod:`puretree.strategies` (not imported here).

>>> import puretree
>>> tree = puretree.id3(puretree.datasets.load_playtennis())
>>> tree.schema.features[tree.root.feature].name
'outlook'
"""

from . import codegen, costs, criteria, datasets, evaluate, fold, importance, impurity, prune, rules
from .codegen import export, generate, verify
from .costs import cost_sensitive, nunez, tan_schlimmer
from .criteria import gain_ratio, impurity_decrease, information_gain, per_feature, split_info
from .data import Dataset, as_dataset, from_numpy, from_pandas, from_rows, read_csv
from .errors import CodegenError, DataError, ModelFormatError, ParameterError, PuretreeError, SchemaError
from .evaluate import accuracy, confusion_matrix, cross_validate, precision_recall, roc_auc, stratified_folds, train_test_split
from .fold import depth, iter_nodes, n_leaves, n_nodes, rewrite
from .fold import fold as fold_tree
from .grow import attribute_scores, by_task, c45, cart, cart_regressor, class_weights, grow, id3, multiway_splits, subset_splits, threshold_splits
from .importance import feature_importances
from .impurity import entropy, gini, misclassification, variance
from .io import from_json, load, save, to_json
from .nodes import CategoricalSplit, Feature, Leaf, NumericSplit, Schema, SubsetSplit, Tree
from .predict import apply, decision_path, predict, predict_proba
from .prune import chi_square_test, choose_alpha, cost_complexity, cost_complexity_path, pessimistic, reduced_error, simplify
from .rules import Rule, RuleList, prune_rules, to_rules
from .sklearn import from_sklearn
from .text import summary, to_text

__version__ = "0.1.0"

__all__ = [
    "__version__",
    # values
    "Tree", "Schema", "Feature", "Leaf", "NumericSplit", "CategoricalSplit", "SubsetSplit",
    # data
    "Dataset", "as_dataset", "from_numpy", "from_pandas", "from_rows", "read_csv", "datasets",
    # criteria
    "entropy", "gini", "misclassification", "variance",
    "information_gain", "gain_ratio", "impurity_decrease", "split_info", "per_feature",
    "cost_sensitive", "tan_schlimmer", "nunez",
    "criteria", "impurity", "costs",
    # growing
    "grow", "id3", "c45", "cart", "cart_regressor", "by_task", "class_weights",
    "threshold_splits", "multiway_splits", "subset_splits", "attribute_scores",
    # using and inspecting
    "predict", "predict_proba", "apply", "decision_path", "to_text", "summary", "feature_importances", "importance",
    "fold", "fold_tree", "rewrite", "iter_nodes", "n_nodes", "n_leaves", "depth",
    # pruning and rules
    "prune", "simplify", "reduced_error", "pessimistic", "cost_complexity", "cost_complexity_path", "choose_alpha",
    "chi_square_test", "rules", "Rule", "RuleList", "to_rules", "prune_rules",
    # evaluation
    "evaluate", "accuracy", "confusion_matrix", "precision_recall", "roc_auc", "train_test_split",
    "stratified_folds", "cross_validate",
    # saving, compiling, converting
    "to_json", "from_json", "save", "load", "codegen", "generate", "export", "verify", "from_sklearn",
    # errors
    "PuretreeError", "DataError", "SchemaError", "ModelFormatError", "ParameterError", "CodegenError",
]
