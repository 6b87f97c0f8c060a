"""Boosted models and AdaBoost in JavaScript, Java and Rust (issue 30): generated, compiled (node;
javac and java; rustc -O) and run on every row verify checks (the data with missing values, every
node reached, each threshold with its float32 and double neighbours, -1, every category code, an
unknown one and NaN), answering as the library: raw scores (AdaBoost's votes) bit for bit, classes
equal, probabilities to a relative 1e-12 (exp is the language's) — the Python and C's check."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.ensemble import GradientBoostingClassifier

import puretree as pt
from puretree.boosted import Boosted, table
from puretree.cli import main
from puretree.codegen import boosted_languages, generate, verify
from puretree.codegen import literals as lit
from puretree.ensemble import adaboost
from puretree.errors import CodegenError
from puretree.io import save

xgb = pytest.importorskip("xgboost")  # pinned in constraints/test.txt; a test install has it
lgb = pytest.importorskip("lightgbm")

TARGETS = ("javascript", "java", "rust")
FORMS = ("nested", "table")
DATA = Path(__file__).parent / "data"
MAIN = {"javascript": "tree.js", "java": "tree.java", "rust": "tree.rs"}


def _holes(X: np.ndarray, seed: int = 0, share: float = 0.1) -> np.ndarray:
    return np.where(np.random.default_rng(seed).random(X.shape) < share, np.nan, X)


def _credit_g_xgboost() -> tuple[Boosted, np.ndarray]:
    """XGBoost on credit-g's categoricals as pandas categories (subset splits), 10% missing."""
    import pandas as pd

    df = pd.read_csv(DATA / "credit-g.csv")
    y = (df.pop("class") == "good").to_numpy(dtype=float)
    rng = np.random.default_rng(3)
    for name in df.columns:
        df[name] = df[name].mask(rng.random(len(df)) < 0.1)
        if not pd.api.types.is_numeric_dtype(df[name]):
            df[name] = df[name].astype("category")
    booster = xgb.train({"objective": "binary:logistic", "max_depth": 3, "nthread": 1, "max_cat_to_onehot": 1}, xgb.DMatrix(df.iloc[:700], y[:700], enable_categorical=True), 8)
    held = df.iloc[700:800]
    codes = np.column_stack([held[c].cat.codes.replace(-1, np.nan).to_numpy(dtype=float) if held[c].dtype == "category" else held[c].to_numpy(dtype=float) for c in held.columns])
    return pt.from_xgboost(booster), codes


def _models() -> dict[str, tuple[object, np.ndarray]]:
    Xb, yb = load_breast_cancer(return_X_y=True)
    Xb, yb = Xb[:240], yb[:240]
    Xi, yi = load_iris(return_X_y=True)
    Xd, yd = load_diabetes(return_X_y=True)
    Xd, yd = Xd[:200], yd[:200]
    holes_b, holes_i = _holes(Xb), _holes(Xi, 1)
    out: dict[str, tuple[object, np.ndarray]] = {
        "gb_binary": (pt.gradient_boosting(Xb, yb, n_estimators=8), Xb),
        "gb_multiclass": (pt.gradient_boosting(Xi, yi, n_estimators=5), Xi),
        "gb_regression": (pt.gradient_boosting(Xd, yd, n_estimators=8), Xd),
        "hgb_binary_missing": (pt.hist_gradient_boosting(holes_b, yb, max_iter=6), holes_b),
        "sklearn_gb": (pt.from_sklearn(GradientBoostingClassifier(n_estimators=8, random_state=0).fit(Xb, yb)), Xb),
        "xgboost_binary": (pt.from_xgboost(xgb.XGBClassifier(n_estimators=8, max_depth=3, n_jobs=1).fit(holes_b, yb).get_booster()), holes_b),
        "xgboost_multiclass": (pt.from_xgboost(xgb.XGBClassifier(n_estimators=5, max_depth=3, n_jobs=1).fit(holes_i, yi).get_booster()), holes_i),
        "xgboost_categorical": _credit_g_xgboost(),
        "lightgbm_binary": (pt.from_lightgbm(lgb.LGBMClassifier(n_estimators=8, num_leaves=8, n_jobs=1, verbose=-1).fit(holes_b, yb).booster_), holes_b),
        "lightgbm_multiclass": (pt.from_lightgbm(lgb.LGBMClassifier(n_estimators=5, num_leaves=6, min_child_samples=5, n_jobs=1, verbose=-1).fit(holes_i, yi).booster_), holes_i),
        "adaboost_binary": (adaboost(holes_b, yb, n_rounds=6, seed=0), holes_b),
        "adaboost_multiclass": (adaboost(holes_i, yi, n_rounds=6, seed=0), holes_i),
    }
    return out


@pytest.fixture(scope="module")
def models() -> dict[str, tuple[object, np.ndarray]]:
    return _models()


NAMES = ("gb_binary", "gb_multiclass", "gb_regression", "hgb_binary_missing", "sklearn_gb", "xgboost_binary", "xgboost_multiclass", "xgboost_categorical",
         "lightgbm_binary", "lightgbm_multiclass", "adaboost_binary", "adaboost_multiclass")


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("which", NAMES)
def test_compiled_code_answers_as_the_model(models, which, form, target):
    model, X = models[which]
    report = verify(model, X, target, form=form)
    assert report.mismatches == [] and report.n_mismatches == 0
    assert report.n_checked > len(X)  # the thresholds' neighbours and missing values too


def test_the_models_hold_what_the_checks_are_for(models):
    # XGBoost's sums are float32, the others' double; a categorical split is a subset split (kind 2).
    assert models["xgboost_binary"][0].precision == "float32" and models["lightgbm_binary"][0].precision == "float64"
    assert any(int(k) == 2 for stage in models["xgboost_categorical"][0].stages for t in stage for k in table(t).kind)
    assert np.isnan(models["hgb_binary_missing"][1]).any()


def _edited(monkeypatch, edit):
    """verify of code that ``edit`` changed after it was generated."""
    real = boosted_languages.boosted_files
    monkeypatch.setattr(boosted_languages, "boosted_files", lambda *a, **k: {f: edit(t) for f, t in real(*a, **k).items()})


# What each language's float32 sum after a tree is written as.
FLOAT32_SUM = {"javascript": "acc0 = Math.fround(acc0 + ", "java": "float acc0 = (float) ", "rust": "let mut acc0: f32 = "}


@pytest.mark.parametrize("target", TARGETS)
def test_verify_finds_a_threshold_moved_by_one_float32_step(models, monkeypatch, target):
    # The first tree's root threshold of the XGBoost model, nudged to the next float32 up in the
    # generated code: the row at the threshold's neighbour goes the other way.
    # JavaScript compares Math.fround(x) with the double threshold; Java and Rust compare in
    # float32 with the largest float32 at most the threshold.
    model, X = models["xgboost_binary"]
    t = float(table(model.stages[0][0]).threshold[0])
    if target == "javascript":
        old, new = lit.js_float(t), lit.js_float(float(np.nextafter(np.float32(t), np.float32(np.inf))))
    else:
        spell = boosted_languages._Lang(target).float32
        below = boosted_languages.boosting._float_below(t)
        old, new = spell(below), spell(float(np.nextafter(np.float32(below), np.float32(np.inf))))
    assert old in generate(model, target, form="nested")[MAIN[target]]
    _edited(monkeypatch, lambda text: text.replace(f" {old}", f" {new}", 1))
    assert verify(model, X, target, form="nested").n_mismatches >= 1


@pytest.mark.parametrize("target", TARGETS)
def test_verify_finds_xgboost_summed_in_double(models, monkeypatch, target):
    # Without the float32 rounding after each tree the raw scores differ from XGBoost's in the
    # last bits: verify compares them bit for bit.
    model, X = models["xgboost_binary"]
    assert FLOAT32_SUM[target] in generate(model, target, form="nested")[MAIN[target]]
    double = {"javascript": [(r"acc0 = Math\.fround\(acc0 \+ (.*)\);", r"acc0 += \1;")],
              "java": [(r"float acc0 = \(float\) ", "double acc0 = ")],
              "rust": [(r"let mut acc0: f32 = (.*) as f32;", r"let mut acc0: f64 = \1;"), (r"acc0 \+= (t\d+\(x\));", r"acc0 += \1 as f64;"), (r"\[acc0 as f64\]", "[acc0]")]}[target]

    def edit(text):
        for old, new in double:
            text, n = re.subn(old, new, text)
            assert n >= 1
        return text

    _edited(monkeypatch, edit)
    assert verify(model, X, target, form="nested").n_mismatches >= 1


@pytest.mark.parametrize("target", TARGETS)
def test_verify_finds_a_wrong_adaboost_weight(models, monkeypatch, target):
    # The combiner's first member weight, changed in the generated code: the votes differ.
    from puretree.codegen import ensemble

    model, X = models["adaboost_multiclass"]
    old, new = repr(float(model.weights[0])), repr(float(model.weights[0]) * 1.5)  # the combiner's weights: shortest round trip
    real = ensemble.ensemble_files

    def files(*a, **k):
        out = real(*a, **k)
        assert old in out[MAIN[target]]
        return {**out, MAIN[target]: out[MAIN[target]].replace(old, new, 1)}

    monkeypatch.setattr(ensemble, "ensemble_files", files)
    assert verify(model, X, target).n_mismatches >= 1


def test_auto_is_nested_for_small_models_and_the_table_past_the_limits(models, monkeypatch):
    # JavaScript: the trees inline in decisionFunction, past the limit a function per tree;
    # Java: a method per tree, past the limit the tables.
    model, X = models["gb_binary"]
    js = generate(model, "javascript")["tree.js"]
    assert "function leaf(" not in js and "function t0(" not in js
    assert "private static double t0(" in generate(model, "java")["tree.java"]
    monkeypatch.setattr(boosted_languages, "JS_NESTED_MAX_NODES", 3)
    monkeypatch.setattr(boosted_languages, "JAVA_NESTED_MAX_TREE_NODES", 3)
    js = generate(model, "javascript")["tree.js"]
    assert "function t0(x)" in js and "function leaf(" not in js
    assert "private static double leaf(" in generate(model, "java")["tree.java"]
    assert verify(model, X, "javascript").n_mismatches == 0
    xgb_model, xgb_X = models["xgboost_multiclass"]  # float32 sums through the functions' answers
    assert "function t0(x)" in generate(xgb_model, "javascript")["tree.js"]
    assert verify(xgb_model, xgb_X, "javascript").n_mismatches == 0


@pytest.mark.parametrize("target", TARGETS)
def test_what_boosted_code_does_not_take_is_refused(models, target):
    model, _ = models["gb_binary"]
    with pytest.raises(CodegenError, match="nested or as a table"):
        generate(model, target, form="ladder")
    with pytest.raises(CodegenError, match="feature type 'float' is for C"):
        generate(model, target, feature_type="float")
    with pytest.raises(CodegenError, match="without templates"):
        generate(model, target, template_dirs=["somewhere"])


def test_to_functions_take_boosted_models(models):
    model, _ = models["gb_multiclass"]
    assert pt.to_javascript(model, name="gb") == generate(model, "javascript", name="gb")
    assert sorted(pt.to_java(model, name="Gb")) == ["Gb.java"]
    assert "pub fn decision_function(x: &[f64]) -> [f64; 3]" in pt.to_rust(model, name="gb", form="table")["gb.rs"]


@pytest.mark.parametrize("target,file", [("javascript", "gb.js"), ("java", "gb.java"), ("rust", "gb.rs")])
def test_cli_export_and_verify_a_boosted_model(tmp_path, capsys, models, target, file):
    model, X = models["lightgbm_binary"]
    path = tmp_path / "model.json"
    save(model, path)
    data = tmp_path / "rows.csv"
    names = model.schema.feature_names
    data.write_text(",".join(names) + "\n" + "".join(",".join("" if np.isnan(v) else repr(float(v)) for v in row) + "\n" for row in X[:30]))
    out = tmp_path / "out"
    assert main(["export", str(path), "--target", target, "--name", "gb", "--form", "table", "-o", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [file]
    capsys.readouterr()
    assert main(["verify", str(path), str(data), "--target", target, "--form", "nested"]) == 0
    assert capsys.readouterr().out.strip().endswith(": 0 mismatches")
    assert main(["export", str(path), "--target", "c", "--form", "nested", "-o", str(tmp_path / "c")]) != 0
    assert "--form" in capsys.readouterr().err
