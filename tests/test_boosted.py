"""The boosted-model value (issues 28 and 29): validation, raw scores in both precisions, links,
classes, stages, importances, JSON round trip and hostile JSON, and pt.predict's dispatch."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import puretree as pt
from puretree import boosted as bs
from puretree.data import Dataset
from puretree.errors import ModelFormatError, ParameterError
from puretree.fold import rewrite
from puretree.io import from_json, to_json
from puretree.nodes import CATEGORICAL, Feature, Leaf, Multiway, Schema, Split, Subset, Surrogates, Threshold
from puretree.predict import UnseenCategoryWarning, predict_value
from puretree.strategies import trees
from puretree.tree import Tree

FEATURES = (Feature("x"), Feature("c", CATEGORICAL, ("a", "b", "c")))


def _leaf(v: float, w: float = 1.0) -> Leaf:
    return Leaf((w, v * w, v * v * w))


def _tree(a: float, b: float, c: float, *, cut: float = 0.5, side: int | None = None) -> Tree:
    """x <= cut ? (c in {a} ? a : b) : c; NaN at x by ``side`` (None: the heavier branch, left)."""
    sub = Split(1, Subset((0,)), (_leaf(a), _leaf(b)), (2.0, a + b, a * a + b * b), surrogates=Surrogates(fallback=1))
    return Tree(Split(0, Threshold(cut, missing_branch=side), (sub, _leaf(c)), (3.0, a + b + c, a * a + b * b + c * c)), bs.tree_schema(Schema(FEATURES)))


def _model(loss: str = "log_loss", classes: tuple = ("no", "yes"), k: int = 1, *, precision: str = "float64", lr: float = 0.1, n: int = 3) -> bs.Boosted:
    schema = Schema(FEATURES, classes) if classes else Schema(FEATURES, task="regression")
    stages = tuple(tuple(_tree(0.3 * (i + 1) - j, -0.7 + j, 1.1 * (j + 1) - i, cut=0.5 + i) for j in range(k)) for i in range(n))
    return bs.Boosted(stages, tuple(0.125 * j for j in range(k)), lr, loss, schema, precision, {"n_estimators": n})


def _ds(model: bs.Boosted, X: np.ndarray | None = None) -> Dataset:
    """Rows of category codes, as a Dataset says they are codes."""
    return Dataset(model.schema, ROWS if X is None else X)


ROWS = np.array([[0.0, 0.0], [0.0, 1.0], [2.0, 2.0], [np.nan, 0.0], [0.0, np.nan], [1.5, 1.0], [3.0, 0.0], [0.0, 5.0], [0.0, -1.0]])


# -- validation --------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change, words",
    [
        ({"loss": "hinge"}, "unknown loss 'hinge'"),
        ({"precision": "float16"}, "precision"),
        ({"learning_rate": 0.0}, "learning_rate"),
        ({"learning_rate": math.nan}, "learning_rate"),
        ({"learning_rate": True}, "learning_rate"),
        ({"learning_rate": "0.1"}, "learning_rate"),
        ({"init": (0.0, 1.0)}, "init must hold 1"),
        ({"init": (math.inf,)}, "init must hold 1"),
        ({"loss": "squared_error"}, "regression loss"),
        ({"loss": "binary:logistic", "schema": Schema(FEATURES, ("a", "b", "c"))}, "takes two classes"),
    ],
)
def test_bad_fields_are_refused_with_a_parameter_error(change: dict, words: str) -> None:
    fields = {"stages": _model().stages, "init": (0.0,), "learning_rate": 0.1, "loss": "log_loss", "schema": Schema(FEATURES, ("no", "yes"))}
    with pytest.raises(ParameterError, match=words.replace("(", r"\(")):
        bs.Boosted(**{**fields, **change})


def test_bad_stages_name_the_stage_and_tree() -> None:
    model = _model(k=3, classes=("a", "b", "c"))
    with pytest.raises(ParameterError, match="stage 1 has 2 trees; the model has 3"):
        bs.Boosted((model.stages[0], model.stages[1][:2]), model.init, 0.1, "log_loss", model.schema)
    other = Tree(_leaf(1.0), Schema((Feature("y"),), task="regression"))
    with pytest.raises(ParameterError, match="stage 0, tree 2 is not a regression tree on the model's features"):
        bs.Boosted(((*model.stages[0][:2], other),), model.init, 0.1, "log_loss", model.schema)
    with pytest.raises(ParameterError, match="stage 0 is a Tree, not a sequence of 3 trees"):
        bs.Boosted(model.stages[0], model.init, 0.1, "log_loss", model.schema)
    with pytest.raises(ParameterError, match="stage 0, tree 0 is a str"):
        bs.Boosted((("tree", "b", "c"),), model.init, 0.1, "log_loss", model.schema)
    tree_schema = bs.tree_schema(model.schema)
    multi = Tree(Split(1, Multiway(3), (_leaf(1), _leaf(2), _leaf(3)), (3.0, 6.0, 14.0)), tree_schema)
    with pytest.raises(ParameterError, match="stage 0, tree 0: a multiway split"):
        bs.Boosted(((multi, multi, multi),), model.init, 0.1, "log_loss", model.schema)
    spread = Tree(_leaf(1.0), tree_schema, "distribute")
    with pytest.raises(ParameterError, match="stage 0, tree 1 routes missing values by 'distribute'"):
        bs.Boosted(((model.stages[0][0], spread, spread),), model.init, 0.1, "log_loss", model.schema)


# -- raw scores --------------------------------------------------------------------------


def _by_hand(model: bs.Boosted, X: np.ndarray) -> np.ndarray:
    """Each tree through puretree's own walker, added as the module notes say."""
    ds = Dataset(bs.tree_schema(model.schema), X)
    if model.precision == "float32":
        X32 = X.copy()
        X32[:, 0] = X32[:, 0].astype(np.float32)
        ds = Dataset(bs.tree_schema(model.schema), X32)
        acc = np.tile(np.array(model.init, np.float32), (len(X), 1))
        for stage in model.stages:
            for k, tree in enumerate(stage):
                acc[:, k] = np.float32(acc[:, k].astype(np.float64) + model.learning_rate * predict_value(tree, ds, unseen="ignore"))
        return acc.astype(np.float64)
    acc = np.tile(np.array(model.init), (len(X), 1))
    for stage in model.stages:
        for k, tree in enumerate(stage):
            acc[:, k] += model.learning_rate * predict_value(tree, ds, unseen="ignore")
    return acc


@pytest.mark.parametrize("precision", ["float64", "float32"])
@pytest.mark.parametrize("k", [1, 3])
def test_raw_scores_add_the_trees_stage_by_stage(precision: str, k: int) -> None:
    model = _model(classes=("a", "b", "c") if k == 3 else ("no", "yes"), k=k, precision=precision, lr=0.1)
    X = np.vstack([ROWS, [[0.1, 0.0], [1.0000001, 1.0]]])
    got = np.asarray(bs.decision_function(model, Dataset(model.schema, X), unseen="ignore")).reshape(len(X), -1)
    assert np.array_equal(got, _by_hand(model, X))
    if precision == "float32":
        assert np.array_equal(got, got.astype(np.float32))  # every score a float32 value


def test_float32_reads_features_as_float32() -> None:
    """x a double just above the cut whose float32 is the cut: float64 goes right, float32 left."""
    model = _model(n=1)
    x = float(np.nextafter(0.5, 1.0))
    assert np.float32(x) == np.float32(0.5)
    f64 = bs.decision_function(model, _ds(model, np.array([[x, 0.0]])))
    f32 = bs.decision_function(attrs_evolve(model, precision="float32"), _ds(model, np.array([[x, 0.0]])))
    assert f64[0] == pytest.approx(0.1 * 1.1) and f32[0] == np.float32(0.1 * 0.3)


def attrs_evolve(model: bs.Boosted, **changes: object) -> bs.Boosted:
    import attrs

    return attrs.evolve(model, **changes)


def _classification_trees() -> st.SearchStrategy[Tree]:
    """puretree's tree strategy, made regression trees with random leaf values and (for
    subset splits, sometimes) a fallback branch."""
    schema = Schema((Feature("x"), Feature("y"), Feature("c", CATEGORICAL, ("a", "b", "c", "d"))), ("p", "q"))
    return st.tuples(trees(schema=schema, splits=("threshold", "subset"), missing=("majority",), max_depth=4), st.randoms(use_true_random=False)).map(_as_regression)


def _as_regression(args: tuple) -> Tree:
    tree, rng = args

    def rule(node: object) -> object:
        w = float(sum(node.stats))  # type: ignore[attr-defined]
        v = rng.uniform(-2, 2)
        stats = (w, v * w, v * v * w)
        if isinstance(node, Split):
            sur = Surrogates(fallback=rng.choice((0, 1))) if node.test.kind == "subset" and rng.random() < 0.5 else None
            return Split(node.feature, node.test, node.children, stats, surrogates=sur)
        return Leaf(stats)

    out = rewrite(tree, rule)
    return Tree(out.root if isinstance(out, Tree) else out, bs.tree_schema(tree.schema), "majority")


@settings(max_examples=80, deadline=None)
@given(tree=_classification_trees(), data=st.data())
def test_the_tree_tables_walk_as_puretree_walks(tree: Tree, data: st.DataObject) -> None:
    """The tables the library and the generated code walk answer as puretree's walker, on rows
    with NaN, unseen codes (-1, 4) and the thresholds themselves."""
    cuts = [n.test.value for n in pt.iter_nodes(tree) if isinstance(n, Split) and n.test.kind == "threshold"] or [0.0]
    num = st.one_of(st.sampled_from(cuts), st.floats(-1e6, 1e6), st.just(math.nan))
    code = st.sampled_from([0.0, 1.0, 2.0, 3.0, 4.0, -1.0, math.nan])
    rows = data.draw(st.lists(st.tuples(num, num, code), min_size=1, max_size=20))
    X = np.array(rows, dtype=np.float64)
    want = predict_value(tree, Dataset(tree.schema, X), unseen="ignore")
    got = bs.leaf_values(bs.table(tree), X)
    assert np.array_equal(got, want)


# -- links, classes, stages ----------------------------------------------------------------


def test_probabilities_follow_the_link_of_the_loss() -> None:
    from scipy.special import expit

    binary = _model()
    raw = bs.decision_function(binary, _ds(binary), unseen="ignore")
    p = bs.predict_proba(binary, _ds(binary), unseen="ignore")
    assert np.array_equal(p[:, 1], expit(raw)) and np.array_equal(p[:, 0], 1 - expit(raw))
    expo = attrs_evolve(binary, loss="exponential")
    assert np.array_equal(bs.predict_proba(expo, _ds(expo), unseen="ignore")[:, 1], expit(2 * raw))
    multi = _model(classes=("a", "b", "c"), k=3)
    raw3 = bs.decision_function(multi, _ds(multi), unseen="ignore")
    p3 = bs.predict_proba(multi, _ds(multi), unseen="ignore")
    e = np.exp(raw3 - raw3.max(axis=1, keepdims=True))
    assert np.array_equal(p3, e / ((e[:, 0] + e[:, 1]) + e[:, 2])[:, None])
    with pytest.raises(ParameterError, match="regression loss"):
        bs.predict_proba(_model("squared_error", classes=()), ROWS)


def test_binary_classes_at_a_raw_score_of_zero() -> None:
    """scikit-learn takes class 1 at raw >= 0; XGBoost's binary:logistic at a probability above 1/2."""
    zero = Tree(_leaf(0.0), bs.tree_schema(Schema(FEATURES, ("no", "yes"))))
    sk = bs.Boosted(((zero,),), (0.0,), 1.0, "log_loss", Schema(FEATURES, ("no", "yes")))
    xg = attrs_evolve(sk, loss="binary:logistic")
    assert bs.predict(sk, _ds(sk), unseen="ignore").tolist() == ["yes"] * len(ROWS)
    assert bs.predict(xg, _ds(xg), unseen="ignore").tolist() == ["no"] * len(ROWS)


def test_staged_scores_end_at_the_scores() -> None:
    model = _model(classes=("a", "b", "c"), k=3, n=4)
    staged = list(bs.staged_decision_function(model, _ds(model), unseen="ignore"))
    assert len(staged) == 4 and np.array_equal(staged[-1], bs.decision_function(model, _ds(model), unseen="ignore"))
    first = bs.Boosted(model.stages[:1], model.init, model.learning_rate, model.loss, model.schema)
    assert np.array_equal(staged[0], bs.decision_function(first, _ds(first), unseen="ignore"))
    probas = list(bs.staged_predict_proba(model, _ds(model), unseen="ignore"))
    assert np.array_equal(probas[-1], bs.predict_proba(model, _ds(model), unseen="ignore"))


def test_pt_predict_takes_a_boosted_model() -> None:
    model = _model(classes=("a", "b", "c"), k=3)
    row = {"x": 0.0, "c": "b"}
    assert pt.predict(model, row) == model.predict(row) == bs.predict(model, [row])[0]
    assert np.array_equal(pt.predict_proba(model, row), bs.predict_proba(model, [row])[0])
    assert pt.predict(model, _ds(model, ROWS[:3])).tolist() == bs.predict(model, _ds(model, ROWS[:3])).tolist()
    reg = _model("squared_error", classes=())
    assert pt.predict(reg, row) == bs.decision_function(reg, row)
    with pytest.raises(ParameterError):
        pt.predict_proba(reg, row)


def test_an_unseen_category_warns_once_and_takes_the_fallback() -> None:
    model = _model()
    with pytest.warns(UnseenCategoryWarning):
        got = bs.decision_function(model, [{"x": 0.0, "c": "zebra"}])
    assert got[0] == bs.decision_function(model, [{"x": 0.0, "c": None}])[0]  # the fallback is the missing values' branch
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bs.decision_function(model, [{"x": 0.0, "c": "zebra"}], unseen="ignore")


def test_feature_importances() -> None:
    model = _model(n=2)
    splits = bs.feature_importances(model, kind="splits")
    assert splits == {"x": 0.5, "c": 0.5}
    imp = model.feature_importances()
    assert set(imp) == {"x", "c"} and math.isclose(sum(imp.values()), 1.0)
    with pytest.raises(ParameterError):
        bs.feature_importances(model, kind="gain")


# -- JSON ----------------------------------------------------------------------------------


@pytest.mark.parametrize("precision", ["float64", "float32"])
def test_json_round_trip(precision: str, tmp_path) -> None:
    for model in (_model(precision=precision), _model(classes=("a", "b", "c"), k=3, precision=precision), _model("huber", classes=(), precision=precision)):
        assert from_json(to_json(model)) == model
        pt.save(model, tmp_path / "m.json")
        back = pt.load(tmp_path / "m.json")
        assert back == model and np.array_equal(np.asarray(back.decision_function(_ds(model), unseen="ignore")), np.asarray(model.decision_function(_ds(model), unseen="ignore")))


def _mutated(edit) -> str:
    obj = json.loads(to_json(_model(classes=("a", "b", "c"), k=3)))
    edit(obj)
    return json.dumps(obj)


@pytest.mark.parametrize(
    "edit, words",
    [
        (lambda o: o.update(version=2), "unsupported boosted model version 2"),
        (lambda o: o.update(loss="hinge"), "model.loss"),
        (lambda o: o.update(precision=32), "model.precision"),
        (lambda o: o.update(learning_rate=-1), "model.learning_rate"),
        (lambda o: o.update(init=["x"]), "model.init"),
        (lambda o: o.update(stages={"a": 1}), "model.stages"),
        (lambda o: o["stages"][1].pop(), "stage 1 has 2 trees"),
        (lambda o: o["stages"][2].__setitem__(1, 7), "model.stages[2][1]"),
        (lambda o: o["stages"][1][2]["nodes"][0].update(children=[0, 0]), "stage 1, tree 2"),
        (lambda o: o["stages"][0][0]["nodes"][3].update(stats=[1.0, "x", 1.0]), "stage 0, tree 0"),
        (lambda o: o["schema"].update(task="ranking"), "schema"),
    ],
)
def test_hostile_json_is_refused_naming_the_stage_and_tree(edit, words: str) -> None:
    with pytest.raises(ModelFormatError) as info:
        from_json(_mutated(edit))
    assert words in str(info.value)


def test_a_model_with_too_many_trees_is_refused_before_reading_them() -> None:
    obj = json.loads(to_json(_model()))
    obj["stages"] = [[{}]] * (bs.MAX_TREES + 1)
    with pytest.raises(ModelFormatError, match="more than 1000000 trees"):
        from_json(json.dumps(obj))


@pytest.mark.parametrize("precision", ["float64", "float32"])
def test_a_raw_score_far_below_zero_gives_probability_zero_without_a_warning(precision: str) -> None:
    schema = Schema((Feature("x"),), ("a", "b"))
    stump = Tree(Leaf((1.0, -1000.0, 1e6)), bs.tree_schema(schema))
    model = bs.Boosted(((stump,),), (0.0,), 1.0, "log_loss", schema, precision)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # exp(1000) overflows to inf: the probability is 0, as the generated C gives it
        proba = model.predict_proba([[0.0]])
    assert proba.tolist() == [[1.0, 0.0]]
