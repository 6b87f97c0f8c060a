"""Issue 29, first step: XGBoost JSON models read and checked, margins bit for bit against XGBoost's own."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine

from puretree.errors import ModelFormatError, PuretreeError
from puretree.io import _xgboost as xr

xgb = pytest.importorskip("xgboost")  # pinned in constraints/test.txt; a test install has it


def _with_nan(X: np.ndarray, share: float, seed: int) -> np.ndarray:
    X = np.array(X, dtype=np.float64)
    X[np.random.default_rng(seed).random(X.shape) < share] = np.nan
    return X


def _train(X: np.ndarray, y: np.ndarray, objective: str, **params: object) -> object:
    d = xgb.DMatrix(X, y)
    return xgb.train({"objective": objective, "max_depth": 4, "nthread": 1, "seed": 0, **params}, d, 25)


CASES = {
    "breast_cancer": (load_breast_cancer, "binary:logistic", {}),
    "wine": (load_wine, "multi:softprob", {"num_class": 3}),
    "diabetes": (load_diabetes, "reg:squarederror", {}),
}


def _model(name: str, nan: float) -> tuple[object, np.ndarray, np.ndarray]:
    load, objective, params = CASES[name]
    X, y = load(return_X_y=True)
    X = _with_nan(X, nan, 0)
    rows = np.random.default_rng(1).permutation(len(X))
    train, held = rows[: len(X) * 2 // 3], rows[len(X) * 2 // 3 :]
    return _train(X[train], y[train], objective, **params), X[held], X[train]


@pytest.mark.parametrize("nan", [0.0, 0.1])
@pytest.mark.parametrize("name", sorted(CASES))
def test_margins_equal_xgboost_bit_for_bit(name: str, nan: float) -> None:
    booster, held, _ = _model(name, nan)
    forest = xr._read(json.loads(booster.save_raw("json")))
    expected = booster.predict(xgb.DMatrix(held), output_margin=True).reshape(len(held), -1)
    got = xr._margins(forest, held)
    assert got.dtype == np.float32
    assert np.array_equal(got.view(np.int32), expected.astype(np.float32).view(np.int32))


def test_binary_base_score_is_the_float32_logit_xgboost_computes() -> None:
    """The stored probability's logit with numpy's float32 log is one ulp off here; the margins then differ."""
    X, y = load_breast_cancer(return_X_y=True)
    X = _with_nan(X, 0.1, 0)
    booster = _train(X[:400], y[:400], "binary:logistic", base_score=0.6274165)  # set: breast_cancer's share of benign rows
    held = X[400:]
    obj = json.loads(booster.save_raw("json"))
    forest = xr._read(obj)
    p = np.float32(json.loads(obj["learner"]["learner_model_param"]["base_score"])[0])
    naive = -np.log(np.float32(1) / p - np.float32(1))
    assert forest.base_margin[0] != naive  # the case that makes the rule matter is in this model
    expected = booster.predict(xgb.DMatrix(held), output_margin=True)
    assert np.array_equal(xr._margins(forest, held)[:, 0], expected)


def test_threshold_ties_go_right_as_in_xgboost() -> None:
    """Rows exactly on a float32 threshold and on its float32 neighbours, where < and <= differ."""
    booster, _, train = _model("diabetes", 0.0)
    forest = xr._read(json.loads(booster.save_raw("json")))
    tree = forest.trees[0]
    inner = np.flatnonzero(tree.left != -1)
    rows = []
    for i in inner:
        for v in (tree.value[i], np.nextafter(tree.value[i], np.float32(-np.inf)), np.nextafter(tree.value[i], np.float32(np.inf))):
            row = np.array(train[0], dtype=np.float64)
            row[tree.feature[i]] = float(v)
            rows.append(row)
    X = np.array(rows)
    expected = booster.predict(xgb.DMatrix(X), output_margin=True)
    assert np.array_equal(xr._margins(forest, X)[:, 0], expected)


# -- corrupt and hostile files -----------------------------------------------------------


@pytest.fixture(scope="module")
def model_obj() -> dict:
    booster, _, _ = _model("wine", 0.1)
    return json.loads(booster.save_raw("json"))


def _tree(obj: dict, t: int) -> dict:
    return obj["learner"]["gradient_booster"]["model"]["trees"][t]


def _refused(obj: dict, *words: str) -> None:
    with pytest.raises(ModelFormatError) as info:
        xr._read(obj)
    for word in words:
        assert word in str(info.value)


def test_a_cycle_in_child_indices_is_refused_naming_tree_and_node(model_obj: dict) -> None:
    obj = copy.deepcopy(model_obj)
    t = _tree(obj, 2)
    inner = next(i for i, c in enumerate(t["left_children"]) if i > 0 and c != -1)
    t["left_children"][inner] = inner  # a loop on itself: a walk would never end
    _refused(obj, f"tree 2, node {inner}", "reached twice")


def test_a_shared_child_is_refused(model_obj: dict) -> None:
    obj = copy.deepcopy(model_obj)
    t = _tree(obj, 0)
    t["right_children"][0] = t["left_children"][0]
    _refused(obj, "tree 0, node", "reached twice")


def test_a_child_outside_the_tree_is_refused(model_obj: dict) -> None:
    obj = copy.deepcopy(model_obj)
    t = _tree(obj, 1)
    t["right_children"][0] = 10**9
    _refused(obj, "tree 1, node 0", "child 1000000000")


def test_wrong_shapes_are_refused(model_obj: dict) -> None:
    obj = copy.deepcopy(model_obj)
    _tree(obj, 0)["split_conditions"].pop()
    _refused(obj, "tree 0, split_conditions")
    obj = copy.deepcopy(model_obj)
    obj["learner"]["gradient_booster"]["model"]["tree_info"][3] = 7
    _refused(obj, "tree 3", "output group 7")


def test_a_feature_outside_the_model_is_refused(model_obj: dict) -> None:
    obj = copy.deepcopy(model_obj)
    _tree(obj, 4)["split_indices"][0] = 999
    _refused(obj, "tree 4, node 0", "feature 999")


def test_an_unknown_objective_or_booster_is_refused(model_obj: dict) -> None:
    obj = copy.deepcopy(model_obj)
    obj["learner"]["objective"]["name"] = "rank:pairwise"
    _refused(obj, "rank:pairwise")
    obj = copy.deepcopy(model_obj)
    obj["learner"]["gradient_booster"]["name"] = "gblinear"
    _refused(obj, "gblinear")


def test_a_deep_chain_is_read_without_recursion() -> None:
    """A chain 50 000 deep (a hostile depth): read in linear time, no RecursionError."""
    # node 2i (i < depth) tests x0 <= 0.5: its left child is 2i+2, its right child the leaf 2i+1
    depth = 50_000
    size = 2 * depth + 1
    left, right = [-1] * size, [-1] * size
    for i in range(depth):
        left[2 * i], right[2 * i] = 2 * i + 2, 2 * i + 1
    cond = [0.5] * size
    tree = {"left_children": left, "right_children": right, "split_indices": [0] * size, "split_conditions": cond, "default_left": [1] * size}
    obj = {"learner": {"objective": {"name": "reg:squarederror"}, "learner_model_param": {"num_feature": "1", "num_class": "0", "base_score": "[5E-1]"},
                       "gradient_booster": {"name": "gbtree", "model": {"trees": [tree], "tree_info": [0]}}}}
    forest = xr._read(obj)
    assert forest.trees[0].left.size == size
    assert xr._margins(forest, np.array([[0.0], [1.0]]))[:, 0].tolist() == [1.0, 1.0]  # 0.5 + leaf 0.5


_MUTABLE = ("left_children", "right_children", "split_indices", "default_left")


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_mutated_files_are_read_or_refused_with_a_model_format_error(model_obj: dict, data: st.DataObject) -> None:
    """Any mutation of child indices, features or directions: a checked forest or a ModelFormatError, never another error."""
    obj = copy.deepcopy(model_obj)
    trees = obj["learner"]["gradient_booster"]["model"]["trees"]
    for _ in range(data.draw(st.integers(1, 4))):
        t = data.draw(st.integers(0, len(trees) - 1))
        key = data.draw(st.sampled_from(_MUTABLE))
        arr = trees[t][key]
        i = data.draw(st.integers(0, len(arr) - 1))
        arr[i] = data.draw(st.one_of(st.integers(-3, len(arr) + 2), st.just(2**63), st.floats(), st.none(), st.text(max_size=2)))
    try:
        forest = xr._read(obj)
    except ModelFormatError as exc:
        assert isinstance(exc, PuretreeError) and str(exc).startswith("XGBoost model, ")
        return
    forest_rows = np.zeros((3, forest.n_features))
    assert xr._margins(forest, forest_rows).shape == (3, forest.n_groups)


def test_credit_g_categorical_splits_bit_for_bit() -> None:
    """credit-g's categoricals as pandas categories, 10% of cells missing: the listed codes go right."""
    import pandas as pd

    df = pd.read_csv(Path(__file__).parent / "data" / "credit-g.csv")
    y = (df.pop("class") == "good").to_numpy(dtype=float)
    rng = np.random.default_rng(3)
    for name in df.columns:
        df[name] = df[name].mask(rng.random(len(df)) < 0.1)
        if not pd.api.types.is_numeric_dtype(df[name]):
            df[name] = df[name].astype("category")
    train, held = df.iloc[:700], df.iloc[700:]
    booster = xgb.train({"objective": "binary:logistic", "max_depth": 4, "nthread": 1, "max_cat_to_onehot": 1},
                        xgb.DMatrix(train, y[:700], enable_categorical=True), 25)
    forest = xr._read(json.loads(booster.save_raw("json")))
    assert any(tree.categories for tree in forest.trees)  # the model does split on categories
    codes = np.column_stack([held[c].cat.codes.replace(-1, np.nan).to_numpy(dtype=float) if held[c].dtype == "category" else held[c].to_numpy(dtype=float) for c in held.columns])
    expected = booster.predict(xgb.DMatrix(held, enable_categorical=True), output_margin=True)
    assert np.array_equal(xr._margins(forest, codes)[:, 0], expected)


def test_bad_category_lists_are_refused_naming_tree_and_node() -> None:
    X = np.array([[float(i % 5), float(i)] for i in range(200)])
    import pandas as pd

    df = pd.DataFrame({"c": pd.Categorical(X[:, 0].astype(int)), "x": X[:, 1]})
    y = np.isin(X[:, 0], (1, 3)).astype(float) + (X[:, 1] > 100)
    booster = xgb.train({"objective": "reg:squarederror", "max_depth": 2, "nthread": 1, "max_cat_to_onehot": 1},
                        xgb.DMatrix(df, y, enable_categorical=True), 2)
    good = json.loads(booster.save_raw("json"))
    t = next(i for i, tree in enumerate(good["learner"]["gradient_booster"]["model"]["trees"]) if tree["categories_nodes"])
    node = _tree(good, t)["categories_nodes"][0]
    sizes = [10**6] + _tree(good, t)["categories_sizes"][1:]
    for key, value, words in (("categories_sizes", sizes, ("outside",)), ("categories", [-1] * len(_tree(good, t)["categories"]), ("negative",)),
                              ("categories_nodes", [], ("without its categories",)), ("split_type", [7] * len(_tree(good, t)["split_type"]), ("split_type 7",))):
        obj = copy.deepcopy(good)
        _tree(obj, t)[key] = value
        if key == "categories_nodes":
            _tree(obj, t)["categories_segments"], _tree(obj, t)["categories_sizes"] = [], []
            _refused(obj, f"tree {t}, node", *words)
        elif key == "categories_sizes":
            _refused(obj, f"tree {t}, node {node}", *words)
        else:
            _refused(obj, f"tree {t}, node", *words)


@pytest.mark.parametrize("name", sorted(CASES))
def test_probabilities_within_two_float32_ulps(name: str) -> None:
    booster, held, _ = _model(name, 0.1)
    forest = xr._read(json.loads(booster.save_raw("json")))
    expected = booster.predict(xgb.DMatrix(held)).reshape(len(held), -1).astype(np.float32)
    got = xr._probabilities(forest, held)
    ulps = np.abs(got.view(np.int32).astype(np.int64) - expected.view(np.int32).astype(np.int64))
    assert ulps.max() <= 2


# -- the public importer: pt.from_xgboost --------------------------------------------------

import puretree as pt  # noqa: E402
from puretree.codegen.boosted import check_rows  # noqa: E402


def _bits(a: np.ndarray) -> np.ndarray:
    return np.asarray(a, dtype=np.float32).view(np.int32)


@pytest.mark.parametrize("nan", [0.0, 0.1])
@pytest.mark.parametrize("name", sorted(CASES))
def test_from_xgboost_raw_scores_are_the_margins_bit_for_bit(name: str, nan: float) -> None:
    """Held-out rows and every split's boundary rows (the thresholds and their float32 and double
    neighbours, NaN): the Boosted's raw scores are XGBoost's margins, float32 values."""
    booster, held, _ = _model(name, nan)
    model = pt.from_xgboost(booster)
    assert model.precision == "float32" and model.learning_rate == 1.0 and model.loss == CASES[name][1]
    for rows in (held, check_rows(model, held)):
        expected = booster.predict(xgb.DMatrix(rows), output_margin=True).reshape(len(rows), -1)
        got = np.asarray(model.decision_function(rows)).reshape(len(rows), -1)
        assert np.array_equal(got, got.astype(np.float32).astype(np.float64))  # float32 values
        assert np.array_equal(_bits(got), _bits(expected))


@pytest.mark.parametrize("name", sorted(CASES))
def test_from_xgboost_probabilities_within_two_float32_ulps(name: str) -> None:
    booster, held, _ = _model(name, 0.1)
    model = pt.from_xgboost(booster)
    expected = booster.predict(xgb.DMatrix(held)).reshape(len(held), -1).astype(np.float32)
    if name == "diabetes":
        got = np.asarray(pt.predict(model, held)).reshape(len(held), 1)
    else:
        proba = pt.predict_proba(model, held)
        got = proba[:, 1:] if expected.shape[1] == 1 else proba
        assert np.allclose(proba.sum(axis=1), 1.0)
    ulps = np.abs(_bits(got).astype(np.int64) - _bits(expected).astype(np.int64))
    assert ulps.max() <= 2


@pytest.mark.parametrize("name", sorted(CASES))
def test_booster_json_ubjson_and_bytes_give_one_model(name: str, tmp_path: Path) -> None:
    booster, _, _ = _model(name, 0.1)
    booster.save_model(tmp_path / "m.json")
    booster.save_model(tmp_path / "m.ubj")
    model = pt.from_xgboost(booster)
    assert pt.from_xgboost(tmp_path / "m.json") == model
    assert pt.from_xgboost(str(tmp_path / "m.ubj")) == model
    assert pt.from_xgboost((tmp_path / "m.ubj").read_bytes()) == model
    assert (tmp_path / "m.ubj").read_bytes()[:2] == b"{L"  # the file is UBJSON, not JSON


def test_the_ubjson_reader_reads_what_json_reads(tmp_path: Path) -> None:
    booster, _, _ = _model("wine", 0.1)
    booster.save_model(tmp_path / "m.ubj")
    booster.save_model(tmp_path / "m.json")
    ub = xr._ubjson((tmp_path / "m.ubj").read_bytes())
    js = json.loads((tmp_path / "m.json").read_text())
    assert xr._read(ub).n_groups == xr._read(js).n_groups
    for a, b in zip(ub["learner"]["gradient_booster"]["model"]["trees"], js["learner"]["gradient_booster"]["model"]["trees"]):
        for key in ("left_children", "right_children", "split_indices", "default_left"):
            assert a[key] == b[key]
        assert np.array_equal(np.float32(a["split_conditions"]), np.float32(b["split_conditions"]))


@pytest.mark.parametrize(
    "cut, words",
    [
        (lambda d: d[: len(d) // 2], "truncated"),
        (lambda d: d + b"}", "after the document"),
        (lambda d: d.replace(b"[$d#L", b"[$d#L\x7f\xff\xff\xff", 1), "beyond the file"),
        (lambda d: b"{L" + (1).to_bytes(8, "big") + b"a" + b"[" * 200, "nested deeper"),
        (lambda d: b"{i\x01aX}", "unknown marker 'X'"),
        (lambda d: b"{L\x00", "truncated"),
    ],
)
def test_corrupt_ubjson_is_refused_with_a_model_format_error(cut, words: str, tmp_path: Path) -> None:
    booster, _, _ = _model("breast_cancer", 0.0)
    booster.save_model(tmp_path / "m.ubj")
    bad = tmp_path / "bad.ubj"
    bad.write_bytes(cut((tmp_path / "m.ubj").read_bytes()))
    with pytest.raises(ModelFormatError) as info:
        pt.from_xgboost(bad)
    assert str(info.value).startswith(str(bad)) and words in str(info.value)


def test_from_xgboost_refuses_what_it_cannot_read(tmp_path: Path) -> None:
    with pytest.raises(ModelFormatError, match="no such file|cannot read"):
        pt.from_xgboost(tmp_path / "absent.json")
    with pytest.raises(ModelFormatError, match="takes a Booster"):
        pt.from_xgboost(3.5)
    (tmp_path / "x.json").write_text("{not json")
    with pytest.raises(ModelFormatError, match="x.json: not JSON"):
        pt.from_xgboost(tmp_path / "x.json")
    booster, _, _ = _model("wine", 0.0)
    obj = json.loads(booster.save_raw("json"))
    model = obj["learner"]["gradient_booster"]["model"]
    model["trees"].pop()
    model["tree_info"].pop()
    with pytest.raises(ModelFormatError, match="output groups hold"):
        pt.from_xgboost(json.dumps(obj).encode())


def test_set_base_score_and_parallel_trees() -> None:
    """base_score set by the user, and num_parallel_tree=2 (two trees a round per output: two stages)."""
    X, y = load_breast_cancer(return_X_y=True)
    X = _with_nan(X, 0.1, 0)
    booster = _train(X[:400], y[:400], "binary:logistic", base_score=0.6274165, num_parallel_tree=2, subsample=0.8)
    model = pt.from_xgboost(booster)
    assert len(model.stages) == 50
    expected = booster.predict(xgb.DMatrix(X[400:]), output_margin=True)
    assert np.array_equal(_bits(model.decision_function(X[400:])), _bits(expected))


def _credit_g() -> tuple[object, object, np.ndarray]:
    import pandas as pd

    df = pd.read_csv(Path(__file__).parent / "data" / "credit-g.csv")
    y = (df.pop("class") == "good").to_numpy(dtype=float)
    rng = np.random.default_rng(3)
    for name in df.columns:
        df[name] = df[name].mask(rng.random(len(df)) < 0.1)
        if not pd.api.types.is_numeric_dtype(df[name]):
            df[name] = df[name].astype("category")
    booster = xgb.train({"objective": "binary:logistic", "max_depth": 4, "nthread": 1, "max_cat_to_onehot": 1},
                        xgb.DMatrix(df.iloc[:700], y[:700], enable_categorical=True), 25)
    return booster, df.iloc[700:], y


def test_from_xgboost_credit_g_names_the_categories_and_equals_the_margins() -> None:
    """The model's categories (cats.enc) become the schema's: a DataFrame of category values is
    read by name, NaN and all, and the raw scores are XGBoost's."""
    booster, held, _ = _credit_g()
    model = pt.from_xgboost(booster)
    feature = model.schema.features[model.schema.index_of("checking_status")]
    assert feature.kind == "categorical" and feature.categories == tuple(held["checking_status"].cat.categories)
    expected = booster.predict(xgb.DMatrix(held, enable_categorical=True), output_margin=True)
    assert np.array_equal(_bits(model.decision_function(held)), _bits(expected))
    proba = booster.predict(xgb.DMatrix(held, enable_categorical=True))
    ulps = np.abs(_bits(pt.predict_proba(model, held)[:, 1]).astype(np.int64) - _bits(proba).astype(np.int64))
    assert ulps.max() <= 2


def test_credit_g_boundary_rows_equal_the_margins() -> None:
    """Every categorical split's codes, an unknown code as missing, and NaN, against XGBoost on codes."""
    import pandas as pd

    booster, held, _ = _credit_g()
    model = pt.from_xgboost(booster)
    rows = check_rows(model, pt.data.encode_features(model.schema, held))
    cat = [j for j, f in enumerate(model.schema.features) if not f.is_numeric]
    known = np.ones(len(rows), dtype=bool)
    for j in cat:  # XGBoost reads a code past its categories as it likes: only the codes it knows
        v = rows[:, j]
        known &= np.isnan(v) | ((v >= 0) & (v < len(model.schema.features[j].categories)) & (v == np.floor(v)))
    rows = rows[known]
    frame = pd.DataFrame({f.name: (pd.Categorical.from_codes(np.where(np.isnan(rows[:, j]), -1, rows[:, j]).astype(int), categories=f.categories)
                                   if not f.is_numeric else rows[:, j]) for j, f in enumerate(model.schema.features)})
    expected = booster.predict(xgb.DMatrix(frame, enable_categorical=True), output_margin=True)
    got = model.decision_function(pt.data.Dataset(model.schema, rows))
    assert len(rows) > 500 and np.array_equal(_bits(got), _bits(expected))


def test_a_deep_chain_imports_and_predicts_without_recursion() -> None:
    depth = 20_000
    size = 2 * depth + 1
    left, right = [-1] * size, [-1] * size
    for i in range(depth):
        left[2 * i], right[2 * i] = 2 * i + 2, 2 * i + 1
    tree = {"left_children": left, "right_children": right, "split_indices": [0] * size, "split_conditions": [0.5] * size, "default_left": [1] * size}
    obj = {"learner": {"objective": {"name": "reg:squarederror"}, "learner_model_param": {"num_feature": "1", "num_class": "0", "base_score": "[5E-1]"},
                       "gradient_booster": {"name": "gbtree", "model": {"trees": [tree], "tree_info": [0]}}}}
    model = pt.from_xgboost(json.dumps(obj).encode())
    assert model.decision_function(np.array([[0.0], [1.0]])).tolist() == [1.0, 1.0]


# -- the command line: import, export and verify -------------------------------------------


def _cli(*args: str, cwd: Path) -> "subprocess.CompletedProcess[str]":
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "puretree", *args], cwd=cwd, capture_output=True, text=True)


def test_the_command_line_imports_exports_and_verifies(tmp_path: Path) -> None:
    import csv

    booster, held, _ = _model("wine", 0.1)
    booster.save_model(tmp_path / "m.ubj")
    with open(tmp_path / "held.csv", "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow([f"f{j}" for j in range(held.shape[1])])
        out.writerows([["" if np.isnan(v) else repr(float(v)) for v in row] for row in held])
    done = _cli("import", "m.ubj", "--from", "xgboost", "-o", "m.json", cwd=tmp_path)
    assert done.returncode == 0 and "25 stages x 3 output(s)" in done.stdout
    assert pt.load(tmp_path / "m.json") == pt.from_xgboost(booster)
    done = _cli("export", "m.json", "--to", "c", "-o", "gen", cwd=tmp_path)
    assert done.returncode == 0 and sorted(p.name for p in (tmp_path / "gen").iterdir()) == ["tree.c", "tree.h"]
    for target in ("python", "c"):
        done = _cli("verify", "m.json", "held.csv", "--to", target, cwd=tmp_path)
        assert done.returncode == 0 and ": 0 mismatches" in done.stdout


def test_the_command_line_refuses_in_one_line(tmp_path: Path) -> None:
    booster, _, _ = _model("breast_cancer", 0.0)
    booster.save_model(tmp_path / "m.ubj")
    (tmp_path / "bad.ubj").write_bytes((tmp_path / "m.ubj").read_bytes()[:100])
    for args, words in ((("import", "bad.ubj", "--from", "xgboost", "-o", "x.json"), "bad.ubj: XGBoost model, UBJSON byte"),
                        (("import", "absent.ubj", "--from", "xgboost", "-o", "x.json"), "absent.ubj: cannot read the model"),
                        (("import", "m.ubj", "--from", "catboost", "-o", "x.json"), "invalid choice")):
        done = _cli(*args, cwd=tmp_path)
        assert done.returncode != 0 and words in done.stderr and "Traceback" not in done.stderr
        assert len(done.stderr.strip().splitlines()) <= 3  # argparse's usage lines, or one line of ours
    assert _cli("import", "m.ubj", "--from", "xgboost", "-o", "m.json", cwd=tmp_path).returncode == 0
    done = _cli("export", "m.json", "--to", "c", "-o", "gen", "--report", cwd=tmp_path)
    assert done.returncode != 0 and done.stderr.strip() == "puretree: error: m.json is a boosted model: its code is written for python, c, javascript, java or rust (C as tables), without --report"


@pytest.fixture(scope="module")
def small_ubj() -> bytes:
    import pandas as pd

    df = pd.DataFrame({"c": pd.Categorical(["a", "b", "c", "a", "b"] * 20), "x": np.arange(100.0)})
    y = (df["c"] == "b").to_numpy(float) + (df["x"] > 50)
    booster = xgb.train({"objective": "reg:squarederror", "max_depth": 2, "nthread": 1, "max_cat_to_onehot": 1}, xgb.DMatrix(df, y, enable_categorical=True), 3)
    return bytes(booster.save_raw("ubj"))


@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_mutated_ubjson_is_read_or_refused_with_a_model_format_error(small_ubj: bytes, data: st.DataObject) -> None:
    """Any few bytes changed (or the file cut): a checked model or a ModelFormatError, never another error."""
    raw = bytearray(small_ubj)
    for _ in range(data.draw(st.integers(1, 4))):
        raw[data.draw(st.integers(0, len(raw) - 1))] = data.draw(st.integers(0, 255))
    if data.draw(st.booleans()):
        raw = raw[: data.draw(st.integers(0, len(raw)))]
    try:
        model = pt.from_xgboost(bytes(raw))
    except ModelFormatError:
        return
    assert np.asarray(model.decision_function(pt.data.Dataset(model.schema, np.zeros((2, model.schema.n_features))))).shape[0] == 2


@settings(max_examples=80, deadline=None)
@given(data=st.data())
def test_mutated_model_fields_are_read_or_refused(small_ubj: bytes, data: st.DataObject) -> None:
    """The fields the importer reads beyond the trees (names, types, categories, objective, classes)."""
    obj = xr._ubjson(small_ubj)
    learner = obj["learner"]
    junk = st.one_of(st.none(), st.integers(-3, 300), st.text(max_size=3), st.lists(st.integers(-1, 300), max_size=4), st.just({}), st.floats())
    target = data.draw(st.sampled_from(["feature_names", "feature_types", "enc", "values", "offsets", "num_class", "objective", "num_target", "base_weights"]))
    value = data.draw(junk)
    if target in ("feature_names", "feature_types"):
        learner[target] = value if data.draw(st.booleans()) else [value, value]
    elif target == "enc":
        learner["gradient_booster"]["model"]["cats"]["enc"] = value
    elif target in ("values", "offsets"):
        learner["gradient_booster"]["model"]["cats"]["enc"][0][target] = value
    elif target == "objective":
        learner["objective"]["name"] = data.draw(st.sampled_from(["binary:logistic", "multi:softprob", "reg:squarederror"]))
        learner["learner_model_param"]["num_class"] = str(data.draw(st.integers(0, 3)))
    elif target == "base_weights":
        learner["gradient_booster"]["model"]["trees"][0]["base_weights"] = value
    else:
        learner["learner_model_param"][target] = value
    try:
        model = pt.from_xgboost(json.dumps(obj).encode())
    except ModelFormatError:
        return
    assert isinstance(model, pt.Boosted)


def test_show_prune_and_rules_on_a_boosted_model_or_an_ensemble(tmp_path: Path) -> None:
    """show prints a summary and the first trees; prune and rules, which read one tree, refuse in
    one line (an ensemble's file was an internal error there before)."""
    booster, _, _ = _model("wine", 0.0)
    pt.save(pt.from_xgboost(booster), tmp_path / "b.json")
    X = np.arange(20.0).reshape(-1, 1)
    pt.save(pt.random_forest(X, (X[:, 0] > 9).astype(int), n_trees=2), tmp_path / "e.json")
    done = _cli("show", "b.json", "--trees", "1", "--importances", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("boosted model (multi:softprob): 25 stages x 3 output(s)") and "stage 0, output 2:" in done.stdout
    for model, what in (("b.json", "a boosted model"), ("e.json", "an ensemble")):
        for args in (("prune", model, "--method", "pessimistic", "-o", "p.json"), ("rules", model)):
            done = _cli(*args, cwd=tmp_path)
            assert done.returncode != 0 and done.stderr.strip() == f"puretree: error: {model} is {what}; {args[0]} takes one tree"


def test_an_estimator_of_xgboosts_scikit_learn_api_is_read_through_its_booster() -> None:
    X, y = load_wine(return_X_y=True)
    clf = xgb.XGBClassifier(n_estimators=10, max_depth=3, n_jobs=1).fit(X[::2], y[::2])
    model = pt.from_xgboost(clf)
    assert model.loss == "multi:softprob" and model.classes == (0, 1, 2)
    assert pt.predict(model, X[1::2]).tolist() == clf.predict(X[1::2]).tolist()


def test_node_covers_are_kept_and_bad_ones_refused(model_obj: dict) -> None:
    """Each node's weight is XGBoost's cover (sum_hessian, as float32), which TreeSHAP weighs the
    branches by; a cover that is not a finite number >= 0, or a list of the wrong length, is refused by name."""
    model = pt.from_xgboost(json.dumps(model_obj).encode())
    tree = model.stages[0][0]
    covers = _tree(model_obj, 0)["sum_hessian"]
    assert tree.root.stats[0] == float(np.float32(covers[0]))
    left = _tree(model_obj, 0)["left_children"][0]
    assert tree.root.children[0].stats[0] == pytest.approx(float(np.float32(covers[left])), rel=1e-11)
    for bad, words in ((-1.0, ("tree 2, node 1", "sum_hessian -1.0")), (float("nan"), ("tree 2, node 1", "sum_hessian nan"))):
        obj = copy.deepcopy(model_obj)
        _tree(obj, 2)["sum_hessian"][1] = bad
        with pytest.raises(ModelFormatError) as info:
            pt.from_xgboost(json.dumps(obj).encode())
        assert all(w in str(info.value) for w in words), str(info.value)
    obj = copy.deepcopy(model_obj)
    _tree(obj, 2)["sum_hessian"] = [1.0]
    with pytest.raises(ModelFormatError, match="tree 2, sum_hessian"):
        pt.from_xgboost(json.dumps(obj).encode())
