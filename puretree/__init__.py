"""puretree: decision trees as immutable values.

>>> import puretree
>>> tree = puretree.id3(puretree.datasets.load_playtennis())
>>> tree.root.feature, tree.schema.features[tree.root.feature].name
(0, 'outlook')
"""

from . import criteria, datasets, fold, impurity
from .criteria import gain_ratio, impurity_decrease, information_gain, per_feature, split_info
from .data import Dataset, as_dataset, from_numpy, from_pandas, from_rows, read_csv
from .errors import CodegenError, DataError, ModelFormatError, ParameterError, PuretreeError, SchemaError
from .fold import depth, fold as fold_tree, iter_nodes, n_leaves, n_nodes, rewrite
from .grow import attribute_scores, c45, cart, grow, id3, multiway_splits, subset_splits, threshold_splits
from .impurity import entropy, gini, misclassification, variance
from .io import from_json, load, save, to_json
from .nodes import CategoricalSplit, Feature, Leaf, NumericSplit, Schema, SubsetSplit, Tree
from .predict import apply, decision_path, predict, predict_proba
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
    "criteria", "impurity",
    # growing
    "grow", "id3", "c45", "cart", "threshold_splits", "multiway_splits", "subset_splits", "attribute_scores",
    # using
    "predict", "predict_proba", "apply", "decision_path", "to_text", "summary",
    "fold", "fold_tree", "rewrite", "iter_nodes", "n_nodes", "n_leaves", "depth",
    # saving
    "to_json", "from_json", "save", "load",
    # errors
    "PuretreeError", "DataError", "SchemaError", "ModelFormatError", "ParameterError", "CodegenError",
]
