"""Issue 29: LightGBM model texts read and checked; raw scores, probabilities and the puretree trees
against LightGBM's own ``Booster.predict``, on held-out rows (NaN, zeros and categories included)."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine

import puretree as pt
from puretree.errors import ModelFormatError, PuretreeError
from puretree.io import _lightgbm as lr

lgb = pytest.importorskip("lightgbm")  # pinned in constraints/test.txt; a test install has it

DATA = Path(__file__).parent / "data"


def _with_nan(X: np.ndarray, share: float, seed: int) -> np.ndarray:
    X = np.array(X, dtype=np.float64)
    X[np.random.default_rng(seed).random(X.shape) < share] = np.nan
    return X


def _train(X: np.ndarray, y: np.ndarray, objective: str, rounds: int = 30, categorical: list[int] | None = None, **params: object) -> object:
    d = lgb.Dataset(X, y, categorical_feature=categorical or "auto", free_raw_data=False)
    return lgb.train({"objective": objective, "num_leaves": 15, "num_threads": 1, "seed": 0, "verbose": -1, "deterministic": True, **params}, d, rounds)


def _credit_g() -> tuple[np.ndarray, np.ndarray, list[int]]:
    """credit-g with its 13 categorical columns as the codes LightGBM reads (pandas category codes)."""
    import pandas as pd

    df = pd.read_csv(DATA / "credit-g.csv")
    y = (df.pop("class") == "good").to_numpy(dtype=float)
    cats = [j for j, c in enumerate(df.columns) if not pd.api.types.is_numeric_dtype(df[c])]
    X = np.column_stack([df[c].astype("category").cat.codes.to_numpy(dtype=float) if j in cats else df[c].to_numpy(dtype=float) for j, c in enumerate(df.columns)])
    return X, y, cats


CASES = {
    "breast_cancer": (lambda: load_breast_cancer(return_X_y=True) + (None,), "binary", {}),
    "wine": (lambda: load_wine(return_X_y=True) + (None,), "multiclass", {"num_class": 3}),
    "diabetes": (lambda: load_diabetes(return_X_y=True) + (None,), "regression", {}),
    "credit_g": (_credit_g, "binary", {"min_data_per_group": 5, "cat_smooth": 1, "max_cat_to_onehot": 2}),
}


def _model(name: str, nan: float) -> tuple[object, np.ndarray]:
    load, objective, params = CASES[name]
    X, y, cats = load()
    X = _with_nan(X, nan, 0)
    rows = np.random.default_rng(1).permutation(len(X))
    train, held = rows[: len(X) * 2 // 3], rows[len(X) * 2 // 3 :]
    return _train(X[train], y[train], objective, categorical=cats, **params), X[held]


def _close(got: np.ndarray, expected: np.ndarray) -> None:
    assert got.shape == expected.shape
    assert np.all(np.abs(got - expected) <= 1e-12 * np.maximum(np.abs(expected), 1e-300)), np.max(np.abs(got - expected))


def _expected(booster: object, X: np.ndarray, **options: object) -> np.ndarray:
    out = np.asarray(booster.predict(X, **options), dtype=np.float64)
    return out.reshape(len(X), -1)


@pytest.mark.parametrize("nan", [0.0, 0.1])
@pytest.mark.parametrize("name", sorted(CASES))
def test_raw_scores_probabilities_and_classes_equal_lightgbm(name: str, nan: float) -> None:
    booster, held = _model(name, nan)
    model = lr._read(booster)
    raw = lr._raw_scores(model, held)
    _close(raw, _expected(booster, held, raw_score=True))
    assert np.array_equal(raw, _expected(booster, held, raw_score=True))  # the same sums in the same order: bit for bit
    proba = lr._probabilities(model, raw)
    expected = _expected(booster, held)
    _close(proba, expected)
    if model.objective == "multiclass":
        assert np.array_equal(proba.argmax(axis=1), expected.argmax(axis=1))
    elif model.objective == "binary":
        assert np.array_equal(proba[:, 0] > 0.5, expected[:, 0] > 0.5)


@pytest.mark.parametrize("nan", [0.0, 0.1])
@pytest.mark.parametrize("name", sorted(CASES))
def test_puretree_trees_sum_to_lightgbm_raw_scores(name: str, nan: float) -> None:
    """The stages as puretree trees: each tree's prediction, summed in tree order, is LightGBM's raw score."""
    booster, held = _model(name, nan)
    model = lr._read(booster)
    stages = lr._stages(model)
    assert len(stages) == booster.num_trees() // model.n_outputs and all(len(s) == model.n_outputs for s in stages)
    total = np.zeros((len(held), model.n_outputs))
    for stage in stages:
        for k, tree in enumerate(stage):
            total[:, k] = total[:, k] + tree.predict(held)
    expected = _expected(booster, held, raw_score=True)
    _close(total, expected)
    assert np.array_equal(total, lr._raw_scores(model, held))  # the same sums, bit for bit


@pytest.mark.parametrize("target", ["python", "c"])
def test_the_trees_pass_verify_and_its_rows_score_as_lightgbm(target: str) -> None:
    """Each tree's generated code passes verify (every threshold, its neighbours, NaN), and on
    the rows verify checks (which hold each categorical rule's edges: the categories are
    thresholds here) the trees sum to LightGBM's raw score."""
    from puretree.codegen.verify import check_batches

    booster, held = _model("credit_g", 0.1)
    model = lr._read(booster)
    stages = lr._stages(model)
    trees = [stage[0] for stage in stages[:: 3 if target == "c" else 1]]
    for tree in trees:
        report = pt.verify(tree, held[:40], target)
        assert report.n_mismatches == 0
    rows = np.vstack([batch for tree in trees[:5] for batch in check_batches(tree, held[:40])])
    total = np.zeros(len(rows))
    for (tree,) in stages:
        total = total + tree.predict(rows)
    _close(total[:, None], _expected(booster, rows, raw_score=True))


def _boundary_rows(model: lr._Model, base: np.ndarray) -> np.ndarray:
    """Rows on every split's edges: each threshold and its neighbours, the zero band's edges,
    NaN, and for a categorical split each listed category, its neighbours and -0.5, -1, 2**31."""
    rows = []
    for tree in model.trees:
        for i in range(tree.left.size):
            values = [np.nan, 0.0, -0.0, lr._ZERO, -lr._ZERO, np.nextafter(lr._ZERO, 1), np.nextafter(-lr._ZERO, -1), 1e-40]
            th = float(tree.threshold[i])
            if tree.decision[i] & 1:
                c = int(th)
                words = tree.cat_threshold[tree.cat_boundaries[c] : tree.cat_boundaries[c + 1]]
                codes = [32 * w + b for w in range(len(words)) for b in range(32) if (int(words[w]) >> b) & 1]
                for code in codes:
                    values += [code, code + 0.5, np.nextafter(code, -1), code + 1, code - 1]
                values += [-0.5, -1.0, np.nextafter(-1.0, 0), 2.0**31, 1e12]
            else:
                values += [th, np.nextafter(th, -np.inf), np.nextafter(th, np.inf)]
            for v in values:
                row = np.array(base, dtype=np.float64)
                row[tree.feature[i]] = v
                rows.append(row)
    return np.array(rows)


@pytest.mark.parametrize(("params", "missing_type"), [({}, 2), ({"zero_as_missing": True}, 1), ({"use_missing": False}, 0)], ids=["nan", "zero", "none"])
def test_every_missing_type_on_boundary_rows(params: dict, missing_type: int) -> None:
    """Missing types NaN, Zero (zero_as_missing) and None (use_missing=False), with categorical
    splits: rows on each split's edges (tiny values that LightGBM reads as 0, NaN, categories
    -0.5, 2**31...) score as LightGBM's, in the reader and in the puretree trees."""
    X, y, cats = _credit_g()
    X = _with_nan(X, 0.1, 5)
    X[np.random.default_rng(6).random(X.shape) < 0.1] = 0.0
    booster = _train(X[:700], y[:700], "binary", rounds=8, categorical=cats, min_data_per_group=5, cat_smooth=1, max_cat_to_onehot=2, **params)
    model = lr._read(booster)
    assert {int(k) >> 2 & 3 for tree in model.trees for k in tree.decision if not k & 1} == {missing_type}  # the numerical splits'
    assert any(tree.decision.size and (tree.decision & 1).any() for tree in model.trees)  # categorical splits are in the model
    rows = _boundary_rows(model, X[700])
    expected = _expected(booster, rows, raw_score=True)
    _close(lr._raw_scores(model, rows), expected)
    total = np.zeros(len(rows))
    for (tree,) in lr._stages(model):
        total = total + tree.predict(rows)
    _close(total[:, None], expected)


def test_binary_sigmoid_option_and_multiclass_shapes() -> None:
    X, y = load_breast_cancer(return_X_y=True)
    booster = _train(X[:400], y[:400], "binary", rounds=10, sigmoid=0.7)
    model = lr._read(booster)
    assert model.sigmoid == 0.7
    _close(lr._probabilities(model, lr._raw_scores(model, X[400:])), _expected(booster, X[400:]))
    X, y = load_wine(return_X_y=True)
    model = lr._read(_train(X, y, "multiclass", rounds=4, num_class=3))
    assert (model.num_class, model.n_outputs, len(model.trees), model.init, model.learning_rate) == (3, 3, 12, (0.0, 0.0, 0.0), 1.0)


def test_read_from_text_and_file(tmp_path: Path) -> None:
    booster, held = _model("diabetes", 0.1)
    path = tmp_path / "model.txt"
    booster.save_model(str(path))
    expected = _expected(booster, held, raw_score=True)
    windows = tmp_path / "windows.txt"
    windows.write_bytes(booster.model_to_string().replace("\n", "\r\n").encode())
    for source in (path, str(path), booster.model_to_string(), windows, booster.model_to_string().replace("\n", "\r\n")):
        _close(lr._raw_scores(lr._read(source), held), expected)
    with pytest.raises(ModelFormatError, match="absent.txt: cannot read the model"):
        lr._read(tmp_path / "absent.txt")
    (tmp_path / "binary.txt").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ModelFormatError, match="not UTF-8"):
        lr._read(tmp_path / "binary.txt")


def test_pandas_categories_are_kept() -> None:
    import pandas as pd

    df = pd.read_csv(DATA / "credit-g.csv")
    y = (df.pop("class") == "good").to_numpy(dtype=float)
    for c in df.columns:
        if not pd.api.types.is_numeric_dtype(df[c]):
            df[c] = df[c].astype("category")
    booster = lgb.train({"objective": "binary", "verbose": -1, "num_threads": 1}, lgb.Dataset(df, y), 3)
    model = lr._read(booster)
    assert model.pandas_categorical is not None and model.pandas_categorical[0] == tuple(df["checking_status"].cat.categories)


def test_linear_trees_are_refused() -> None:
    X, y = load_diabetes(return_X_y=True)
    booster = _train(X, y, "regression", rounds=2, linear_tree=True)
    with pytest.raises(ModelFormatError, match=r"tree 0: a linear tree"):
        lr._read(booster)


@pytest.mark.parametrize("objective", ["multiclassova", "poisson", "cross_entropy"])
def test_other_objectives_are_refused(objective: str) -> None:
    X, y = load_wine(return_X_y=True)
    params = {"num_class": 3} if objective == "multiclassova" else {}
    booster = _train(X, y if objective != "cross_entropy" else (y > 0).astype(float), objective, rounds=2, **params)
    with pytest.raises(ModelFormatError, match="only binary, multiclass, regression"):
        lr._read(booster)


# -- corrupt and hostile texts -----------------------------------------------------------


@pytest.fixture(scope="module")
def model_text() -> str:
    X, y, cats = _credit_g()
    return _train(_with_nan(X, 0.1, 0), y, "binary", rounds=6, categorical=cats, min_data_per_group=5, cat_smooth=1, max_cat_to_onehot=2).model_to_string()


def _set(text: str, t: int, key: str, change: object) -> str:
    """The text with tree ``t``'s ``key`` line replaced by ``change(values)``."""
    head, sep, rest = text.partition(f"Tree={t}\n")
    block, blank, tail = rest.partition("\n\n")
    lines = block.split("\n")
    for j, line in enumerate(lines):
        if line.startswith(key + "="):
            values = line[len(key) + 1 :].split()
            lines[j] = f"{key}=" + " ".join(str(v) for v in change(values))  # type: ignore[operator]
    return head + sep + "\n".join(lines) + blank + tail


def _refused(text: str, *words: str) -> None:
    with pytest.raises(ModelFormatError) as info:
        lr._read(text)
    for word in words:
        assert word in str(info.value)


def _replace(values: list, i: int, v: object) -> list:
    values = list(values)
    values[i] = v
    return values


def test_a_cycle_in_child_indices_is_refused_naming_tree_and_node(model_text: str) -> None:
    left = re.search(r"Tree=2\n(?:.*\n)*?left_child=(.*)\n", model_text).group(1).split()  # type: ignore[union-attr]
    inner = next(i for i, c in enumerate(left) if i > 0 and int(c) >= 0)
    _refused(_set(model_text, 2, "left_child", lambda v: _replace(v, inner, inner)), f"tree 2, node {inner}", "reached twice")


def test_a_shared_leaf_or_child_outside_the_tree_is_refused(model_text: str) -> None:
    text = _set(model_text, 1, "right_child", lambda v: _replace(v, 0, 10**6))
    _refused(text, "tree 1, node 0", "child 1000000")
    text = _set(model_text, 0, "left_child", lambda v: [-1] * len(v))
    _refused(text, "tree 0, node", "leaf 0 reached twice")


def test_wrong_shapes_and_huge_num_leaves_are_refused(model_text: str) -> None:
    _refused(_set(model_text, 3, "threshold", lambda v: v[:-1]), "tree 3", "threshold holds")
    _refused(_set(model_text, 3, "num_leaves", lambda v: [10**9]), "tree 3", "num_leaves=1000000000")
    _refused(_set(model_text, 0, "num_leaves", lambda v: [2**40]), "tree 0", "beyond 32 bits")


def test_bad_bitsets_are_refused(model_text: str) -> None:
    t = next(i for i, block in enumerate(model_text.split("Tree=")[1:]) if "num_cat=0" not in block)
    _refused(_set(model_text, t, "cat_boundaries", lambda v: [0] + [10**6] * (len(v) - 1)), f"tree {t}", "cat_boundaries")
    _refused(_set(model_text, t, "cat_threshold", lambda v: _replace(v, 0, -5)), f"tree {t}", "negative word")
    _refused(_set(model_text, t, "cat_boundaries", lambda v: _replace(v, 1, int(v[-1]) + 1)), f"tree {t}", "cat_boundaries")


def test_bad_decision_types_features_and_thresholds_are_refused(model_text: str) -> None:
    _refused(_set(model_text, 0, "decision_type", lambda v: _replace(v, 0, 12)), "tree 0, node 0", "decision_type 12")
    _refused(_set(model_text, 0, "split_feature", lambda v: _replace(v, 0, 99)), "tree 0, node 0", "feature 99")
    text = _set(_set(model_text, 0, "threshold", lambda v: _replace(v, 0, 7.5)), 0, "decision_type", lambda v: _replace(v, 0, 1))
    _refused(text, "tree 0, node 0", "categorical split index 7.5")
    _refused(_set(model_text, 0, "threshold", lambda v: _replace(v, 0, "inf")), "tree 0, node 0", "categorical split index inf")
    numeric = _set(model_text, 0, "decision_type", lambda v: _replace(v, 0, 0))
    for bad in ("-inf", "nan"):  # +inf is LightGBM's own split of the missing values (read, below)
        _refused(_set(numeric, 0, "threshold", lambda v, bad=bad: _replace(v, 0, bad)), "tree 0, node 0", f"threshold {float(bad)} is neither finite nor +inf")
    _refused(_set(model_text, 0, "leaf_value", lambda v: _replace(v, 1, "nan")), "tree 0, leaf 1", "not finite")


def test_a_deep_chain_is_read_without_recursion() -> None:
    """A chain 20 000 splits deep (a hostile depth): read, turned into puretree nodes and evaluated without recursion."""
    depth = 20_000
    left = " ".join(str(~i) for i in range(depth))  # node i: left is leaf i, right is node i + 1; the last node's right is leaf depth
    right = " ".join([str(i + 1) for i in range(depth - 1)] + [str(~depth)])
    text = (f"tree\nversion=v4\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\nmax_feature_idx=0\nobjective=regression\n"
            f"feature_names=x\nfeature_infos=none\ntree_sizes=0\n\nTree=0\nnum_leaves={depth + 1}\nnum_cat=0\n"
            f"split_feature={' '.join(['0'] * depth)}\nthreshold={' '.join(str(float(i)) for i in range(depth))}\n"
            f"decision_type={' '.join(['2'] * depth)}\nleft_child={left}\nright_child={right}\n"
            f"leaf_value={' '.join(str(float(i)) for i in range(depth + 1))}\nis_linear=0\nshrinkage=1\n\nend of trees\n")
    model = lr._read(text)
    X = np.array([[-1.0], [5.5], [1e9], [np.nan]])
    assert lr._raw_scores(model, X)[:, 0].tolist() == [0.0, 6.0, float(depth), 0.0]
    (tree,), = lr._stages(model)
    assert tree.predict(X).tolist() == [0.0, 6.0, float(depth), 0.0]


def test_an_expanding_categorical_tree_is_refused_in_bounded_time() -> None:
    """Categorical splits whose every other category goes left, nested: the puretree tree would
    flatten to billions of nodes; refused, naming the tree and node, before any is built."""
    depth = 12
    words = " ".join(["1431655765"] * 64)  # 0b0101...: 1024 intervals per split
    left = " ".join(str(i + 1) for i in range(depth - 1)) + f" {~(depth - 1)}"
    right = " ".join(str(~i) for i in range(depth - 1)) + f" {~depth}"
    text = (f"tree\nversion=v4\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\nmax_feature_idx=0\nobjective=regression\n"
            f"feature_names=x\nfeature_infos=none\ntree_sizes=0\n\nTree=0\nnum_leaves={depth + 1}\nnum_cat={depth}\n"
            f"split_feature={' '.join(['0'] * depth)}\nthreshold={' '.join(str(i) for i in range(depth))}\n"
            f"decision_type={' '.join(['9'] * depth)}\nleft_child={left}\nright_child={right}\n"
            f"leaf_value={' '.join(['1'] * (depth + 1))}\ncat_boundaries={' '.join(str(64 * i) for i in range(depth + 1))}\n"
            f"cat_threshold={' '.join([words] * depth)}\nis_linear=0\nshrinkage=1\n\nend of trees\n")
    model = lr._read(text)
    assert lr._raw_scores(model, np.array([[2.0]]))[0, 0] == 1.0
    with pytest.raises(ModelFormatError, match=r"tree 0, node \d+: its categorical splits make a puretree tree of more than"):
        lr._stages(model)


_KEYS = ("left_child", "right_child", "split_feature", "decision_type", "threshold", "num_leaves", "cat_boundaries", "cat_threshold", "leaf_value", "num_cat")


@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_mutated_texts_are_read_or_refused_with_a_model_format_error(model_text: str, data: st.DataObject) -> None:
    """Any mutation of child indices, features, decisions, thresholds, sizes or bitsets: a checked
    model whose raw scores and puretree trees agree, or a ModelFormatError, never another error."""
    text = model_text
    for _ in range(data.draw(st.integers(1, 4))):
        t = data.draw(st.integers(0, 5))
        key = data.draw(st.sampled_from(_KEYS))
        value = data.draw(st.one_of(st.integers(-3, 40), st.just(2**63), st.floats(), st.text(alphabet="x-1e.", max_size=3)))
        where = data.draw(st.integers(0, 30))
        text = _set(text, t, key, lambda v: _replace(v, where % len(v), value) if v else [value])
    try:
        model = lr._read(text)
    except ModelFormatError as exc:
        assert isinstance(exc, PuretreeError) and str(exc).startswith("LightGBM model, ")
        return
    X = _with_nan(np.random.default_rng(0).normal(size=(20, len(model.feature_names))) * 3, 0.2, 1)
    raw = lr._raw_scores(model, X)
    try:
        stages = lr._stages(model)
    except ModelFormatError as exc:
        assert "more than" in str(exc)
        return
    total = np.zeros_like(raw)
    for stage in stages:
        for k, tree in enumerate(stage):
            total[:, k] = total[:, k] + tree.predict(X)
    assert np.array_equal(total, raw)


# -- pt.from_lightgbm: the Boosted model --------------------------------------------------


@pytest.mark.parametrize("nan", [0.0, 0.1])
@pytest.mark.parametrize("name", sorted(CASES))
def test_from_lightgbm_scores_as_lightgbm_bit_for_bit(name: str, nan: float) -> None:
    """The public importer's raw scores are Booster.predict(raw_score=True) bit for bit, its
    probabilities within 1e-12 relative, its classes LightGBM's; the JSON round trip holds."""
    booster, held = _model(name, nan)
    model = pt.from_lightgbm(booster)
    assert isinstance(model, pt.Boosted) and model.precision == "float64" and model.loss == CASES[name][1]
    raw = np.asarray(model.decision_function(held), dtype=np.float64).reshape(len(held), -1)
    assert np.array_equal(raw, _expected(booster, held, raw_score=True))
    assert pt.from_json(pt.to_json(model)) == model
    if model.loss == "regression":
        assert np.array_equal(model.predict(held), raw[:, 0])
        return
    expected = _expected(booster, held)
    proba = model.predict_proba(held)
    if model.loss == "binary":
        _close(proba[:, 1:], expected)
        assert np.array_equal(proba[:, 0], 1.0 - proba[:, 1])
        classes = (expected[:, 0] > 0.5).astype(int)  # LGBMClassifier: argmax of (1 - p, p)
    else:
        _close(proba, expected)
        classes = expected.argmax(axis=1)
    assert model.classes == tuple(range(proba.shape[1]))
    assert np.array_equal(model.predict(held), classes)


def test_the_sigmoid_parameter_is_kept_and_used(tmp_path: Path) -> None:
    X, y = load_breast_cancer(return_X_y=True)
    booster = _train(X[:400], y[:400], "binary", rounds=10, sigmoid=0.7)
    model = pt.from_lightgbm(booster)
    assert model.option("sigmoid") == 0.7
    _close(model.predict_proba(X[400:])[:, 1:], _expected(booster, X[400:]))
    pt.save(model, tmp_path / "m.json")
    loaded = pt.load(tmp_path / "m.json")
    assert loaded == model and np.array_equal(loaded.predict_proba(X[400:]), model.predict_proba(X[400:]))
    with pytest.raises(pt.ParameterError, match="sigmoid"):
        pt.Boosted(model.stages, model.init, 1.0, "binary", model.schema, options={"sigmoid": -1.0})


def test_from_lightgbm_reads_files_and_text_and_names_the_file(tmp_path: Path) -> None:
    booster, held = _model("wine", 0.1)
    booster.save_model(str(tmp_path / "m.txt"))
    model = pt.from_lightgbm(booster)
    assert pt.from_lightgbm(tmp_path / "m.txt") == model == pt.from_lightgbm(booster.model_to_string())
    text = booster.model_to_string()
    (tmp_path / "bad.txt").write_text(_set(text, 2, "left_child", lambda v: v[:-1]))
    with pytest.raises(ModelFormatError, match=r"bad.txt: LightGBM model, tree 2: left_child holds"):
        pt.from_lightgbm(str(tmp_path / "bad.txt"))
    with pytest.raises(ModelFormatError, match=r"^LightGBM model, tree 2"):
        pt.from_lightgbm(_set(text, 2, "left_child", lambda v: v[:-1]))
    X, y = load_diabetes(return_X_y=True)
    with pytest.raises(ModelFormatError, match="linear tree"):
        pt.from_lightgbm(_train(X, y, "regression", rounds=2, linear_tree=True))


def _cli(*args: str, cwd: Path) -> "subprocess.CompletedProcess[str]":
    import subprocess
    import sys

    return subprocess.run([sys.executable, "-m", "puretree", *args], cwd=cwd, capture_output=True, text=True)


def test_the_command_line_imports_exports_and_verifies(tmp_path: Path) -> None:
    import csv

    booster, held = _model("credit_g", 0.1)
    booster.save_model(str(tmp_path / "m.txt"))
    with open(tmp_path / "held.csv", "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(booster.feature_name())
        out.writerows([["" if np.isnan(v) else repr(float(v)) for v in row] for row in held])
    done = _cli("import", "m.txt", "--from", "lightgbm", "-o", "m.json", cwd=tmp_path)
    assert done.returncode == 0 and "binary, 30 stages x 1 output(s)" in done.stdout and "float64 sums" in done.stdout
    assert pt.load(tmp_path / "m.json") == pt.from_lightgbm(booster)
    for target in ("python", "c"):
        done = _cli("verify", "m.json", "held.csv", "--to", target, cwd=tmp_path)
        assert done.returncode == 0 and ": 0 mismatches" in done.stdout, done.stdout + done.stderr


def test_the_command_line_refuses_a_bad_model_in_one_line(tmp_path: Path) -> None:
    booster, _ = _model("wine", 0.0)
    text = booster.model_to_string()
    (tmp_path / "bad.txt").write_text(_set(text, 4, "split_feature", lambda v: _replace(v, 0, 99)))
    (tmp_path / "junk.txt").write_bytes(b"\x00\xff not a model")
    (tmp_path / "linear.txt").write_text(_set(text, 0, "is_linear", lambda v: [1]))
    for args, words in ((("bad.txt",), "puretree: error: bad.txt: LightGBM model, tree 4, node 0: feature 99"),
                        (("absent.txt",), "puretree: error: absent.txt: cannot read the model"),
                        (("junk.txt",), "puretree: error: junk.txt: not a LightGBM model text"),
                        (("linear.txt",), "puretree: error: linear.txt: LightGBM model, tree 0: a linear tree")):
        done = _cli("import", *args, "--from", "lightgbm", "-o", "x.json", cwd=tmp_path)
        assert done.returncode != 0 and done.stderr.startswith(words), done.stderr
        assert len(done.stderr.strip().splitlines()) == 1 and not (tmp_path / "x.json").exists()


def test_a_fitted_lgbm_classifier_is_read_through_its_booster() -> None:
    X, y = load_wine(return_X_y=True)
    clf = lgb.LGBMClassifier(n_estimators=5, num_leaves=7, n_jobs=1, verbose=-1).fit(X[::2], y[::2])
    model = pt.from_lightgbm(clf)
    assert model == pt.from_lightgbm(clf.booster_) and model.loss == "multiclass"
    assert np.array_equal(model.predict(X[1::2]), clf.predict(X[1::2]))
    _close(model.predict_proba(X[1::2]), clf.predict_proba(X[1::2]))


def test_verify_checks_a_row_for_every_categorical_rule() -> None:
    """Each categorical split's rules have rows among verify's boundary rows (check_rows) on its
    feature: every category of its bitset (sent left) and the values just past its edges, a
    negative value and NaN (sent right); and on those rows the model scores as LightGBM, bit for bit."""
    from puretree.codegen.boosted import check_rows

    booster, held = _model("credit_g", 0.1)
    model = pt.from_lightgbm(booster)
    rows = check_rows(model, held[:5])
    rules = 0
    for tree in lr._read(booster).trees:
        for i in np.flatnonzero(tree.decision & 1).tolist():
            j = int(tree.feature[i])
            c = int(tree.threshold[i])
            words = tree.cat_threshold[tree.cat_boundaries[c] : tree.cat_boundaries[c + 1]]
            codes = [32 * w + b for w in range(len(words)) for b in range(32) if (int(words[w]) >> b) & 1]
            column = rows[:, j]
            for code in codes:  # the category itself, and just below and past its edges where the side changes
                assert ((column >= code) & (column < code + 1)).any()
                if code - 1 not in codes:
                    assert ((column < code) & (column >= code - 1e-9)).any() or code == 0 and (column < -lr._ZERO).any()
                if code + 1 not in codes:
                    assert ((column >= code + 1) & (column < code + 1 + 1e-9)).any()
            assert (column < -lr._ZERO).any() and np.isnan(column).any()
            rules += 1
    assert rules > 10
    assert np.array_equal(np.asarray(model.decision_function(rows), dtype=np.float64).reshape(len(rows), -1), _expected(booster, rows, raw_score=True))


def test_a_threshold_of_inf_that_lightgbm_writes_is_read() -> None:
    """LightGBM splits the missing values off with ``threshold=inf`` (every known value left): a
    model of its own, read and scored as LightGBM scores it, and its code verified."""
    import lightgbm

    X, y = load_wine(return_X_y=True)
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < 0.1] = np.nan
    booster = lightgbm.train({"objective": "multiclass", "num_class": 3, "num_leaves": 8, "verbose": -1, "num_threads": 1}, lightgbm.Dataset(X, y), 10)
    assert any(line.startswith("threshold=") and " inf" in line for line in booster.model_to_string().splitlines())
    model = pt.from_lightgbm(booster)
    assert np.array_equal(np.asarray(model.decision_function(X)), booster.predict(X, raw_score=True))
    assert pt.verify(model, X, "python").mismatches == []
