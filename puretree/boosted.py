"""Boosted models as values: stages of regression trees added to an initial raw score.

A :class:`Boosted` is what gradient boosting grows (scikit-learn's ``GradientBoosting*``) and
what the importers read (:func:`puretree.from_xgboost`, :func:`puretree.from_lightgbm`): ``stages[i][k]`` is the regression tree
that stage ``i`` adds to output ``k`` (one output for regression and binary classification, K
for K classes), ``init`` the raw score every row starts from, ``learning_rate`` the factor of
each leaf value. A row's **raw score** (scikit-learn's ``decision_function``, XGBoost's margin)
is the initial score plus every stage's ``learning_rate * leaf value``, added stage by stage in
order; ``precision`` says in which arithmetic:

- ``"float64"`` (scikit-learn, LightGBM): ``raw += learning_rate * v`` in double, the rows'
  features as given;
- ``"float32"`` (XGBoost): the numeric features are read as float32 (rounded to nearest, as
  XGBoost reads them), ``raw`` starts at ``float32(init)`` and ``raw = float32(raw + learning_rate * v)``
  after every tree (the sum
  formed in double and rounded once: with ``learning_rate`` 1 and float32 leaf values, as an
  imported XGBoost model has, that is XGBoost's float32 addition, bit for bit).

**Probabilities** come from the raw scores through the loss's link (:data:`LOSSES`). In
``float64`` models, in double: one output: ``p = 1 / (1 + exp(-raw))`` (``exponential``: of
``2 * raw``; LightGBM's ``binary``: of ``sigmoid * raw``, its ``sigmoid`` option, see
:func:`sigmoid_scale`), the columns ``(1 - p, p)``; K outputs: ``e_k = exp(raw_k - max)`` summed k by k in
class order, ``e_k / sum`` (scikit-learn's ``HalfMultinomialLoss`` order, and LightGBM's ``Softmax``). In ``float32`` models,
as XGBoost computes them, in float32: ``p = 1 / (1 + float32(exp(-raw)))``; ``e_k =
float32(exp(float32(raw_k - max)))`` summed in double, ``e_k / float32(sum)`` (measured against
xgboost 3.2: equal, or one float32 ulp off where its ``expf`` rounds otherwise). **Classes**: K outputs, the first largest raw
score; one output, class 1 where ``raw >= 0`` (scikit-learn), where ``raw > 0`` for XGBoost's
``binary:logistic`` and LightGBM's ``binary`` (:data:`STRICT_LOSSES`: the probability above one half)
and scikit-learn's ``HistGradientBoostingClassifier`` (the option ``strict_class``, :func:`strict_class`).

The trees are plain :class:`~puretree.tree.Tree` values on the model's features (a regression
schema): threshold splits (``x <= t`` left, a missing value by the split's ``missing_branch``, else
the heavier branch) and subset splits (a missing value or a category the split does not know
by ``Surrogates(fallback=...)`` when the split has one, else the heavier branch / the node's
value); a leaf's value is its mean, ``stats[1] / stats[0]`` (a node no training row reached: its nearest
ancestor's, as :mod:`puretree.predict` answers).

>>> from puretree.nodes import Feature, Leaf, Schema, Split, Threshold
>>> features = (Feature("x"),)
>>> stump = Tree(Split(0, Threshold(0.5), (Leaf((1.0, -1.0, 1.0)), Leaf((1.0, 2.0, 4.0))), (2.0, 1.0, 5.0)), Schema(features, task="regression"))
>>> model = Boosted(((stump,), (stump,)), (0.25,), 0.5, "log_loss", Schema(features, ("no", "yes")))
>>> decision_function(model, [[0.0], [1.0]]).tolist()     # 0.25 + 2 * 0.5 * leaf
[-0.75, 2.25]
>>> predict(model, [[0.0], [1.0]]).tolist(), model.predict({"x": 1.0})
(['no', 'yes'], 'yes')
>>> [s.tolist() for s in staged_decision_function(model, [[1.0]])]
[[1.25], [2.25]]
>>> from puretree.io import from_json, to_json
>>> from_json(to_json(model)) == model
True
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Iterator, Mapping
from typing import Any, overload

import attrs
import numpy as np

from .data import encode_features, labels_array
from .errors import ModelFormatError, ParameterError, shown
from .params import recorded_options
from .fold import iter_nodes, n_nodes
from .nodes import Schema, Split
from .predict import Batch, Label, Row, Unseen, check_unseen
from .text import to_text
from .tree import Tree

__all__ = [
    "Boosted",
    "LOSSES",
    "STRICT_LOSSES",
    "PRECISIONS",
    "sigmoid_scale",
    "strict_class",
    "decision_function",
    "staged_decision_function",
    "predict_proba",
    "staged_predict_proba",
    "predict",
    "feature_importances",
    "summary",
    "tree_schema",
    "to_dict",
    "from_dict",
    "BOOSTED_FORMAT",
    "BOOSTED_VERSION",
]

#: Each loss a boosted model may name, and its link: ``"identity"`` (regression), ``"logistic"``
#: (probabilities by the sigmoid of one output or the softmax of K), ``"exponential"``
#: (scikit-learn's AdaBoost-like loss: the sigmoid of twice the raw score).
LOSSES: dict[str, str] = {
    "squared_error": "identity",
    "absolute_error": "identity",
    "huber": "identity",
    "quantile": "identity",
    "reg:squarederror": "identity",
    "log_loss": "logistic",
    "binary:logistic": "logistic",
    "multi:softprob": "logistic",
    "exponential": "exponential",
    # LightGBM's objectives (puretree.from_lightgbm): ``binary`` takes the sigmoid of
    # ``sigmoid * raw``, its ``sigmoid`` parameter kept in the model's options (see sigmoid_scale)
    "binary": "logistic",
    "multiclass": "logistic",
    "regression": "identity",
}

#: The one-output losses whose class 1 is where ``raw > 0`` (the probability above one half,
#: as XGBoost and LightGBM read it); the others' is where ``raw >= 0`` (scikit-learn).
STRICT_LOSSES = ("binary:logistic", "binary")

#: How the raw scores are added: see the module notes.
PRECISIONS = ("float64", "float32")


def _stages(value: Any) -> Any:
    # Left as given when it is no sequence of sequences: __attrs_post_init__ words the refusal.
    try:
        return tuple(tuple(stage) for stage in value)
    except TypeError:
        return value


def _floats(value: Any) -> Any:
    try:
        return tuple(float(v) for v in value)
    except (TypeError, ValueError):
        return value


def _number(value: Any) -> Any:
    if isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, bool):
        return float(value)
    return value


def tree_schema(schema: Schema) -> Schema:
    """The schema of a boosted model's trees: its features, a regression target.

    >>> from puretree.nodes import Feature
    >>> tree_schema(Schema((Feature("x"),), ("a", "b"))).task
    'regression'
    """
    return Schema(schema.features, (), schema.target, "regression")


@attrs.frozen
class Boosted:
    """Stages of regression trees, the initial raw scores, the learning rate, the loss, the
    schema (features; classes for classification), the precision of the sums (see the module
    notes) and the builder's options as sorted ``(name, value)`` pairs (JSON scalars)."""

    stages: tuple[tuple[Tree, ...], ...] = attrs.field(converter=_stages)
    init: tuple[float, ...] = attrs.field(converter=_floats)
    learning_rate: float = attrs.field(converter=_number)
    loss: str
    schema: Schema
    precision: str = "float64"
    options: tuple[tuple[str, Any], ...] = attrs.field(default=(), converter=recorded_options)

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.schema, Schema):
            raise ParameterError(f"a boosted model's schema must be a Schema, got {type(self.schema).__name__}")
        if self.loss not in LOSSES:
            raise ParameterError(f"unknown loss {self.loss!r}; expected one of {sorted(LOSSES)}")
        if self.precision not in PRECISIONS:
            raise ParameterError(f"precision must be one of {list(PRECISIONS)}, got {self.precision!r}")
        lr = self.learning_rate
        if not isinstance(lr, float) or not (0 < lr < math.inf):
            raise ParameterError(f"learning_rate must be a finite number > 0, got {lr!r}")
        k = n_outputs(self.schema, self.loss)
        scale = self.option("sigmoid", 1.0)
        if self.loss == "binary" and not (type(scale) in (int, float) and 0 < scale < math.inf):
            raise ParameterError(f"the option 'sigmoid' of the loss 'binary' must be a finite number > 0, got {scale!r}")
        if not isinstance(self.init, tuple) or len(self.init) != k or not all(math.isfinite(v) for v in self.init):
            raise ParameterError(f"init must hold {k} finite raw score(s) (one per output), got {self.init!r}")
        if not isinstance(self.stages, tuple):
            raise ParameterError(f"stages must be a sequence of stages (each a sequence of {k} trees), got {type(self.stages).__name__}")
        want = tree_schema(self.schema)
        for i, stage in enumerate(self.stages):
            if not isinstance(stage, tuple):
                raise ParameterError(f"stage {i} is a {type(stage).__name__}, not a sequence of {k} trees (one per output)")
            if len(stage) != k:
                raise ParameterError(f"stage {i} has {len(stage)} trees; the model has {k} output(s), one tree each")
            for j, tree in enumerate(stage):
                _check_tree(i, j, tree, want)

    @property
    def classes(self) -> tuple[Any, ...]:
        return self.schema.classes

    @property
    def n_outputs(self) -> int:
        return len(self.init)

    def option(self, name: str, default: Any = None) -> Any:
        return dict(self.options).get(name, default)

    @overload
    def predict(self, X: Row, *, unseen: Unseen = "warn") -> Label: ...
    @overload
    def predict(self, X: Batch, *, unseen: Unseen = "warn") -> np.ndarray: ...
    def predict(self, X: Any, *, unseen: Unseen = "warn") -> Label | np.ndarray:
        return predict(self, X, unseen=unseen)

    def predict_proba(self, X: Row | Batch, *, unseen: Unseen = "warn") -> np.ndarray:
        return predict_proba(self, X, unseen=unseen)

    def decision_function(self, X: Row | Batch, *, unseen: Unseen = "warn") -> Any:
        return decision_function(self, X, unseen=unseen)

    def feature_importances(self, **options: Any) -> dict[str, float]:
        return feature_importances(self, **options)

    def to_text(self, **options: Any) -> str:
        return summary(self, **options)

    def __str__(self) -> str:
        return summary(self)


def n_outputs(schema: Schema, loss: str) -> int:
    """How many raw scores a row gets: one for regression and two classes, K for K classes."""
    if LOSSES[loss] == "identity":
        if not schema.is_regression:
            raise ParameterError(f"the loss {loss!r} is a regression loss; the schema has classes {list(schema.classes)[:5]}")
        return 1
    if schema.is_regression or len(schema.classes) < 2:
        raise ParameterError(f"the loss {loss!r} needs two classes or more in the schema, got {list(schema.classes)[:5]}")
    k = len(schema.classes)
    if loss in ("binary:logistic", "binary", "exponential"):
        if k != 2:
            raise ParameterError(f"the loss {loss!r} takes two classes, got {k}")
        return 1
    if loss in ("multi:softprob", "multiclass"):
        return k
    return 1 if k == 2 else k


def sigmoid_scale(model: Boosted) -> float:
    """The factor of the raw score in a one-output model's sigmoid: 2 for ``exponential``, the
    ``sigmoid`` option (LightGBM's parameter, 1 by default) for ``binary``, else 1.

    >>> from puretree.nodes import Feature
    >>> sigmoid_scale(Boosted((), (0.0,), 1.0, "binary", Schema((Feature("x"),), (0, 1)), options={"sigmoid": 0.7}))
    0.7
    """
    if model.loss == "exponential":
        return 2.0
    return float(model.option("sigmoid", 1.0)) if model.loss == "binary" else 1.0


def strict_class(model: Boosted) -> bool:
    """Whether a one-output model's class 1 is where ``raw > 0`` (:data:`STRICT_LOSSES`, and a
    model with the option ``strict_class``: scikit-learn's ``HistGradientBoostingClassifier``),
    not ``raw >= 0``.

    >>> from puretree.nodes import Feature
    >>> strict_class(Boosted((), (0.0,), 1.0, "log_loss", Schema((Feature("x"),), (0, 1)), options={"strict_class": True}))
    True
    """
    return model.loss in STRICT_LOSSES or bool(model.option("strict_class", False))


def _check_tree(i: int, j: int, tree: Any, want: Schema) -> None:
    where = f"stage {i}, tree {j}"
    if not isinstance(tree, Tree):
        raise ParameterError(f"{where} is a {type(tree).__name__}, not a Tree")
    if tree.schema.features != want.features or not tree.schema.is_regression:
        raise ParameterError(f"{where} is not a regression tree on the model's features")
    if tree.missing != "majority":
        raise ParameterError(f"{where} routes missing values by {tree.missing!r}; a boosted model's trees send them down one branch ('majority')")
    for node in iter_nodes(tree):
        if type(node) is Split:
            if node.test.kind not in ("threshold", "subset"):
                raise ParameterError(f"{where}: a {node.test.kind} split; a boosted model's trees split by thresholds and subsets")
            if node.surrogates is not None and node.surrogates.splits:
                raise ParameterError(f"{where}: surrogate splits; a boosted model's trees route a missing value by its branch or fallback alone")


# -- the trees as tables -----------------------------------------------------------------


@attrs.frozen
class _Table:
    """One tree as arrays, nodes in pre-order: how a row goes down it (the generated code's
    tables are these). ``nan[i]`` / ``other[i]``: the child a missing value / an unknown category
    goes to, -1 to stop at node ``i`` (its value answers); ``codes[i]``: a subset split's left codes."""

    kind: np.ndarray  # 0 leaf, 1 threshold, 2 subset
    feature: np.ndarray
    threshold: np.ndarray
    left: np.ndarray
    right: np.ndarray
    nan: np.ndarray
    other: np.ndarray
    value: np.ndarray
    n_categories: np.ndarray  # of a subset split's feature: the codes below it are known
    codes: dict[int, tuple[int, ...]]


def _mean(stats: tuple[float, ...]) -> float:
    # As puretree.flat.normalised_fractions: sum / weight, 0 for a root without weight.
    return (stats[1] / stats[0] if stats[0] > 0 else 0.0) + 0.0


def table(tree: Tree) -> _Table:
    """The pre-order table of one tree (iterative: any depth)."""
    nodes = list(iter_nodes(tree))
    index = {id(n): i for i, n in enumerate(nodes)}
    n = len(nodes)
    kind = np.zeros(n, np.int8)
    feature = np.zeros(n, np.int64)
    threshold = np.zeros(n)
    left = np.full(n, -1, np.int64)
    right = np.full(n, -1, np.int64)
    nan = np.full(n, -1, np.int64)
    other = np.full(n, -1, np.int64)
    value = np.zeros(n)
    n_categories = np.zeros(n, np.int64)
    codes: dict[int, tuple[int, ...]] = {}
    parent = np.full(n, -1, np.int64)
    for i, node in enumerate(nodes):
        # A node no training row reached answers with its nearest ancestor's value (as puretree.flat
        # gives it): pre-order sets the parent's first.
        value[i] = _mean(node.stats) if node.stats[0] > 0 or parent[i] < 0 else value[parent[i]]
        if type(node) is not Split:
            continue
        a, b = index[id(node.children[0])], index[id(node.children[1])]
        parent[a] = parent[b] = i
        left[i], right[i], feature[i] = a, b, node.feature
        heavy = a if node.children[0].stats[0] >= node.children[1].stats[0] else b
        fallback = None if node.surrogates is None else node.surrogates.fallback
        if node.test.kind == "threshold":
            kind[i], threshold[i] = 1, node.test.value
            side = node.test.missing_branch
            nan[i] = heavy if side is None and fallback is None else (a, b)[side if side is not None else fallback]  # type: ignore[index]
        else:
            kind[i] = 2
            codes[i] = node.test.left_codes
            n_categories[i] = len(tree.schema.features[node.feature].categories)
            nan[i] = heavy if fallback is None else (a, b)[fallback]
            other[i] = -1 if fallback is None else (a, b)[fallback]
    return _Table(kind, feature, threshold, left, right, nan, other, value, n_categories, codes)


def _tables(model: Boosted) -> list[list[_Table]]:
    """The stages' tables (cached: equal models share them; an entry goes with its last model)."""
    out = _TABLES.get(model)
    if out is None:
        out = _TABLES[model] = [[table(t) for t in stage] for stage in model.stages]
    return out


_TABLES: "weakref.WeakKeyDictionary[Boosted, list[list[_Table]]]" = weakref.WeakKeyDictionary()


def leaf_values(t: _Table, X: np.ndarray) -> np.ndarray:
    """The value each row of encoded ``X`` ends at, a level at a time over the rows still at a split."""
    node = np.zeros(len(X), np.int64)
    at = np.arange(len(X))
    while at.size:
        g = node[at]
        k = t.kind[g]
        inner = k != 0
        at, g, k = at[inner], g[inner], k[inner]
        if not at.size:
            break
        x = X[at, t.feature[g]]
        missing = np.isnan(x)
        nxt = np.where(x <= t.threshold[g], t.left[g], t.right[g])
        sub = k == 2
        if sub.any():
            for i in np.unique(g[sub]).tolist():
                here = g == i
                v = x[here]
                known = (v >= 0) & (v == np.floor(v)) & (v < t.n_categories[i])
                goes_left = np.isin(v, np.asarray(t.codes[i], dtype=np.float64))
                nxt[here] = np.where(known, np.where(goes_left, t.left[i], t.right[i]), t.other[i])
        nxt = np.where(missing, t.nan[g], nxt)
        node[at] = np.where(nxt >= 0, nxt, g)
        at = at[nxt >= 0]
    return t.value[node]


# -- using -------------------------------------------------------------------------------


def _encoded(model: Boosted, X: Any, unseen: Unseen) -> tuple[np.ndarray, bool]:
    single = isinstance(X, Mapping)
    Xe = encode_features(model.schema, X)
    if model.stages:  # an unseen category said (or refused) once for the batch
        check_unseen(model.stages[0][0], X, unseen=unseen)
    if model.precision == "float32":  # XGBoost reads its features as float32
        numeric = [j for j, f in enumerate(model.schema.features) if f.is_numeric]
        Xe = np.array(Xe, dtype=np.float64)
        with np.errstate(over="ignore"):  # beyond float32's range is +-inf, as XGBoost reads it
            Xe[:, numeric] = Xe[:, numeric].astype(np.float32).astype(np.float64)
    return Xe, single


def _raw(model: Boosted, Xe: np.ndarray) -> Iterator[np.ndarray]:
    """The raw scores after the initial score and after each stage, ``(rows, outputs)``."""
    tables = _tables(model)
    lr = model.learning_rate
    if model.precision == "float32":
        acc32 = np.tile(np.array(model.init, dtype=np.float32), (len(Xe), 1))
        yield acc32.astype(np.float64)
        for stage in tables:
            for k, t in enumerate(stage):
                # float32 + float32 formed in double and rounded once: the float32 sum (2 * 24 + 2 <= 53)
                with np.errstate(over="ignore"):  # a sum beyond float32's range is +-inf, as in XGBoost
                    acc32[:, k] = (acc32[:, k].astype(np.float64) + lr * leaf_values(t, Xe)).astype(np.float32)
            yield acc32.astype(np.float64)
        return
    acc = np.tile(np.array(model.init, dtype=np.float64), (len(Xe), 1))
    yield acc.copy()
    for stage in tables:
        for k, t in enumerate(stage):
            acc[:, k] += lr * leaf_values(t, Xe)
        yield acc.copy()


def _shaped(raw: np.ndarray, single: bool) -> Any:
    if raw.shape[1] == 1:
        return float(raw[0, 0]) if single else raw[:, 0]
    return raw[0] if single else raw


def decision_function(model: Boosted, X: Any, *, unseen: Unseen = "warn") -> Any:
    """The raw scores (see the module notes): one row, a float (K outputs: a 1-D array); a batch,
    shape ``(rows,)`` for one output and ``(rows, K)`` for K, as scikit-learn's ``decision_function``."""
    Xe, single = _encoded(model, X, unseen)
    *_, last = _raw(model, Xe)
    return _shaped(last, single)


def staged_decision_function(model: Boosted, X: Any, *, unseen: Unseen = "warn") -> Iterator[Any]:
    """The raw scores after each stage (the first after stage 0), as scikit-learn's
    ``staged_decision_function``."""
    Xe, single = _encoded(model, X, unseen)
    scores = _raw(model, Xe)
    next(scores)
    for raw in scores:
        yield _shaped(raw, single)


def _sigmoid(z: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore"):  # a large negative raw score: exp is inf, the probability 0 (as in C)
        return 1.0 / (1.0 + np.exp(-z))


def _proba(model: Boosted, raw: np.ndarray) -> np.ndarray:
    link = LOSSES[model.loss]
    if link == "identity":
        raise ParameterError(f"predict_proba needs a classification model; the loss {model.loss!r} is a regression loss")
    if model.precision == "float32":
        return _proba32(raw.astype(np.float32), sigmoid_scale(model))
    if raw.shape[1] == 1:
        scale = sigmoid_scale(model)
        p = _sigmoid(raw[:, 0] if scale == 1.0 else scale * raw[:, 0])
        return np.column_stack([1.0 - p, p])
    e = np.exp(raw - raw.max(axis=1, keepdims=True))
    total = np.zeros(len(raw))
    for k in range(e.shape[1]):  # class by class, as scikit-learn's HalfMultinomialLoss sums
        total = total + e[:, k]
    return e / total[:, None]


def _proba32(m: np.ndarray, scale: float) -> np.ndarray:
    """XGBoost's links in float32 (``float32`` models): ``p = 1 / (1 + float32(exp(-z)))`` in float32;
    ``e_k = float32(exp(float32(m_k - max)))``, summed in double class by class, ``e_k / float32(sum)``
    in float32. Each ``exp`` is the double one rounded to float32."""
    one = np.float32(1.0)
    if m.shape[1] == 1:
        z = m[:, 0] if scale == 1.0 else m[:, 0] * np.float32(scale)
        with np.errstate(over="ignore"):  # exp past float32's range: inf, the probability 0, as XGBoost's
            e = np.exp(-z.astype(np.float64)).astype(np.float32)
        p = (one / (one + e)).astype(np.float32).astype(np.float64)
        return np.column_stack([1.0 - p, p])
    shifted = (m - m.max(axis=1, keepdims=True)).astype(np.float32)
    e = np.exp(shifted.astype(np.float64)).astype(np.float32)
    total = np.zeros(len(m))
    for k in range(e.shape[1]):
        total = total + e[:, k].astype(np.float64)
    return (e / total.astype(np.float32)[:, None]).astype(np.float32).astype(np.float64)


def predict_proba(model: Boosted, X: Any, *, unseen: Unseen = "warn") -> np.ndarray:
    """Class probabilities, columns in the order of ``model.classes`` (see the module notes)."""
    if LOSSES[model.loss] == "identity":
        raise ParameterError(f"predict_proba needs a classification model; the loss {model.loss!r} is a regression loss")
    Xe, single = _encoded(model, X, unseen)
    *_, last = _raw(model, Xe)
    proba = _proba(model, last)
    return proba[0] if single else proba


def staged_predict_proba(model: Boosted, X: Any, *, unseen: Unseen = "warn") -> Iterator[np.ndarray]:
    """The class probabilities after each stage."""
    if LOSSES[model.loss] == "identity":
        raise ParameterError(f"predict_proba needs a classification model; the loss {model.loss!r} is a regression loss")
    Xe, single = _encoded(model, X, unseen)
    scores = _raw(model, Xe)
    next(scores)
    for raw in scores:
        proba = _proba(model, raw)
        yield proba[0] if single else proba


def class_codes(model: Boosted, raw: np.ndarray) -> np.ndarray:
    """Each row's class index from its raw scores ``(rows, outputs)`` (see the module notes)."""
    if raw.shape[1] == 1:
        return (raw[:, 0] > 0 if strict_class(model) else raw[:, 0] >= 0).astype(np.int64)
    return np.argmax(raw, axis=1)


def predict(model: Boosted, X: Any, *, unseen: Unseen = "warn") -> Any:
    """Predicted classes (regression: the raw scores, the predicted values), one for a mapping,
    an array for a batch."""
    Xe, single = _encoded(model, X, unseen)
    *_, last = _raw(model, Xe)
    if LOSSES[model.loss] == "identity":
        return _shaped(last, single)
    codes = class_codes(model, last)
    if single:
        return model.schema.classes[int(codes[0])]
    return labels_array(model.schema.classes)[codes]


def feature_importances(model: Boosted, *, kind: str = "impurity") -> dict[str, float]:
    """Normalised importances by feature name. ``"impurity"``: scikit-learn's rule for gradient
    boosting (each tree's weighted impurity decreases, unnormalised, averaged over the trees with a
    split, then normalised; needs the trees' training statistics); ``"splits"``: how many splits
    test each feature, normalised (XGBoost's ``weight``; for imported models, whose trees carry
    no training statistics)."""
    from .importance import impurity_decreases

    names = model.schema.feature_names
    trees = [t for stage in model.stages for t in stage if type(t.root) is Split]
    if kind == "splits":
        count = np.zeros(len(names))
        for tree in trees:
            tab = table(tree)
            np.add.at(count, tab.feature[tab.kind != 0], 1.0)
        out = count / count.sum() if count.sum() > 0 else count
    elif kind == "impurity":
        if not trees:
            out = np.zeros(len(names))
        else:
            mean = np.mean([impurity_decreases(t) for t in trees], axis=0, dtype=np.float64)
            out = mean / np.sum(mean) if np.sum(mean) > 0 else mean
    else:
        raise ParameterError(f"kind must be 'impurity' or 'splits', got {kind!r}")
    return dict(zip(names, np.asarray(out, dtype=np.float64).tolist()))


def summary(model: Boosted, *, first: int = 0, **text_options: Any) -> str:
    """A few lines: the loss, stages, outputs, learning rate and precision, and the first
    ``first`` stages' trees as text."""
    n = [n_nodes(t) for stage in model.stages for t in stage]
    lines = [f"boosted model ({model.loss}): {len(model.stages)} stages x {model.n_outputs} output(s), learning rate {model.learning_rate:g}, {model.precision}"]
    if n:
        lines.append(f"nodes per tree: {min(n)}-{max(n)} (mean {np.mean(n):.1f}); init {', '.join(f'{v:.6g}' for v in model.init)}")
    for i, stage in enumerate(model.stages[:first]):
        for k, tree in enumerate(stage):
            lines.append(f"stage {i}, output {k}:")
            lines.append(to_text(tree, **text_options))
    return "\n".join(lines)


# -- JSON (read and written by puretree.io, which passes its tree codec) -------------------

BOOSTED_FORMAT = "puretree-boosted"
BOOSTED_VERSION = 1
_TREE_KEYS = ("missing", "criterion", "nodes")
#: The most trees a boosted model file may hold: each costs at least a node, so a file of a
#: few bytes per tree cannot ask for more memory than its size says; this bounds the count.
MAX_TREES = 1_000_000


def to_dict(model: Boosted, tree_to_dict: Callable[[Tree], dict[str, Any]], schema_to_dict: Callable[[Schema], dict[str, Any]]) -> dict[str, Any]:
    """The JSON-ready dictionary of a boosted model; ``tree_to_dict`` writes one tree,
    ``schema_to_dict`` the schema (the model's, with its classes; the trees' is derived from it)."""
    trees = [[tree_to_dict(t) for t in stage] for stage in model.stages]
    versions = [t["version"] for stage in trees for t in stage]
    return {
        "format": BOOSTED_FORMAT,
        "version": BOOSTED_VERSION,
        "loss": model.loss,
        "learning_rate": model.learning_rate,
        "precision": model.precision,
        "init": list(model.init),
        "options": dict(model.options),
        "tree_format": {**{k: trees[0][0][k] for k in ("format", "threshold_convention")}, "version": max(versions)} if trees else None,
        "schema": schema_to_dict(model.schema),
        "stages": [[{k: t[k] for k in _TREE_KEYS} for t in stage] for stage in trees],
    }


def _fail(where: str, message: str) -> ModelFormatError:
    return ModelFormatError(f"{where}: {message}")


def _plain_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int):
        return abs(value) <= 2**53
    return isinstance(value, float) and math.isfinite(value)


def from_dict(obj: dict[str, Any], tree_from_dict: Callable[[Any], Tree], schema_from_dict: Callable[[Any], Schema]) -> Boosted:
    """A boosted model from its dictionary, validated: :class:`ModelFormatError` names the field,
    the stage and tree, and (through the tree codec) the node."""
    if obj.get("version") != BOOSTED_VERSION or isinstance(obj.get("version"), bool):
        raise _fail("model", f"unsupported boosted model version {shown(obj.get('version'))} (this puretree reads version {BOOSTED_VERSION})")
    loss = obj.get("loss")
    if loss not in LOSSES:
        raise _fail("model.loss", f"unknown loss {shown(loss)}; expected one of {sorted(LOSSES)}")
    precision = obj.get("precision")
    if precision not in PRECISIONS:
        raise _fail("model.precision", f"expected one of {list(PRECISIONS)}, got {shown(precision)}")
    lr: Any = obj.get("learning_rate")
    if not _plain_number(lr) or not lr > 0:
        raise _fail("model.learning_rate", f"expected a finite number > 0, got {shown(lr)}")
    init = obj.get("init")
    if not isinstance(init, list) or not init or len(init) > MAX_TREES or not all(_plain_number(v) for v in init):
        raise _fail("model.init", "expected a non-empty list of finite numbers (one per output)")
    options = obj.get("options")
    if not isinstance(options, dict) or not all(isinstance(v, (str, bool, type(None))) or _plain_number(v) for v in options.values()):
        raise _fail("model.options", "expected an object of names to numbers, text, true/false or null")
    schema = schema_from_dict(obj.get("schema"))
    stages = obj.get("stages")
    if not isinstance(stages, list):
        raise _fail("model.stages", "expected a list of stages (each a list of trees)")
    if sum(len(s) if isinstance(s, list) else 0 for s in stages) > MAX_TREES:
        raise _fail("model.stages", f"more than {MAX_TREES} trees")
    head = obj.get("tree_format")
    if stages and not isinstance(head, dict):
        raise _fail("model.tree_format", "expected an object (the trees' format and version)")
    tree_head = {**(head or {}), "schema": _regression_schema(obj.get("schema"))}
    out = []
    for i, stage in enumerate(stages):
        if not isinstance(stage, list):
            raise _fail(f"model.stages[{i}]", f"expected a list of trees, got {type(stage).__name__}")
        trees = []
        for k, entry in enumerate(stage):
            if not isinstance(entry, dict):
                raise _fail(f"model.stages[{i}][{k}]", f"expected an object, got {type(entry).__name__}")
            try:
                trees.append(tree_from_dict({**{key: entry[key] for key in _TREE_KEYS if key in entry}, **tree_head}))
            except ModelFormatError as exc:
                raise _fail(f"model.stages[{i}][{k}] (stage {i}, tree {k})", str(exc)) from None
        out.append(tuple(trees))
    try:
        return Boosted(tuple(out), tuple(float(v) for v in init), float(lr), loss, schema, precision, options)
    except ParameterError as exc:
        raise _fail("model", str(exc)) from None


def _regression_schema(schema: Any) -> Any:
    if not isinstance(schema, dict):
        return schema
    return {**schema, "classes": [], "task": "regression"}
