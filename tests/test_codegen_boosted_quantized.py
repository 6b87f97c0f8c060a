"""Quantized (int16, int8) C of boosted models (issue 28): one NAME_quantize for the whole model,
the trees' thresholds on its integer scale. ``verify`` runs the integer code against the quantized
model on quantized rows (raw scores bit for bit), NAME_quantize against puretree's quantization
value by value, and counts the held-out rows whose prediction the quantization changes."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.ensemble import GradientBoostingClassifier
from sklearn.model_selection import train_test_split

import puretree as pt
from puretree import boosted as bs
from puretree.codegen import boosted as cb
from puretree.codegen.lower import feature_ranges
from puretree.errors import CodegenError
from puretree.io import save
from puretree.sklearn import from_sklearn

sys.path.insert(0, str(Path(__file__).parent))
from test_codegen_boosted import _broken, _hand, _thresholds_only, X_HAND  # noqa: E402
from test_import_xgboost import _model as _xgb_model  # noqa: E402


def _cancer() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    X, y = load_breast_cancer(return_X_y=True)
    return tuple(train_test_split(X, y, test_size=0.2, random_state=0))  # type: ignore[return-value]


def _models() -> dict[str, tuple[bs.Boosted, np.ndarray, np.ndarray]]:
    """(model, training rows, held-out rows): scikit-learn's 100-stage depth-3 classifier
    imported, the same grown by puretree, an XGBoost import (float32 sums)."""
    Xtr, Xte, ytr, _ = _cancer()
    sk = from_sklearn(GradientBoostingClassifier(n_estimators=100, max_depth=3, random_state=0).fit(Xtr, ytr))
    grown = pt.gradient_boosting(Xtr, ytr, n_estimators=100, max_depth=3)
    booster, _, _ = _xgb_model("breast_cancer", 0.1)
    return {"sklearn": (sk, Xtr, Xte), "grown": (grown, Xtr, Xte), "xgboost": (pt.from_xgboost(booster), Xtr, Xte)}


MODELS = _models()


@pytest.mark.parametrize("which", sorted(MODELS))
def test_quantized_int16_c_agrees_with_the_float_model_on_99_percent_of_held_out_rows(which: str) -> None:
    model, Xtr, Xte = MODELS[which]
    report = pt.verify(model, Xte, "c", feature_type="int16", quantize=feature_ranges(Xtr), max_changed="1%")
    assert report.mismatches == [] and report.n_quantize_mismatches == 0 and report.n_quantized > 0
    assert report.n_rows == len(Xte) and report.max_changed == 1
    assert report.changed_by_quantization is not None and report.changed_by_quantization <= 0.01 * len(Xte)
    assert report.ok
    # the count is the quantized model's classes against the float model's, computed here again
    q, offset, scale = cb.quantized_model(model, feature_ranges(Xtr), "int16")
    from puretree.codegen.lower import quantize

    changed = int(np.sum(bs.predict(q, quantize(Xte, offset, scale, "int16"), unseen="ignore") != bs.predict(model, Xte)))
    assert report.changed_by_quantization == changed


def test_one_quantizer_for_the_whole_model() -> None:
    model, Xtr, _ = MODELS["sklearn"]
    files = pt.generate(model, "c", feature_type="int16", quantize=feature_ranges(Xtr))
    assert files["tree.c"].count("void tree_quantize(const float *x, int16_t *q)") == 1
    assert "void tree_quantize(const float *x, int16_t *q);" in files["tree.h"] and "#define TREE_MISSING INT16_MIN" in files["tree.h"]
    assert "static const int16_t tree_threshold[" in files["tree.c"]  # the thresholds on the integer scale


def test_int8_and_a_regression_model_verify() -> None:
    X, y = load_diabetes(return_X_y=True)
    model = pt.gradient_boosting(X[:300], y[:300], loss="squared_error", n_estimators=20, max_depth=3)
    X[300::7, 2] = np.nan  # missing readings: the type's minimum, sent where the float model sends NaN
    for ftype in ("int8", "int16"):
        report = pt.verify(model, X[300:], "c", feature_type=ftype, quantize=feature_ranges(X[:300]), max_changed="100%")
        assert report.mismatches == [] and report.n_quantize_mismatches == 0 and report.ok
        assert report.changed_by_quantization is not None and report.max_changed == len(X) - 300


def test_the_missing_sides_of_a_quantized_model_are_checked() -> None:
    """Splits sending missing values either way (the hand-made model): 0 mismatches, and the
    walk's missing-value test is what the check rows catch when it is lost."""
    model = _thresholds_only("float64")
    ranges = [(-1.0, 8.0), (-1.0, 3.0)]
    assert pt.verify(model, X_HAND[:, :2], "c", feature_type="int16", quantize=ranges).mismatches == []


@pytest.mark.parametrize("old, new", [("(v <= tree_threshold[r] &&", "(v < tree_threshold[r] &&"), ("|| v != TREE_MISSING", "|| 1"), ("scaled + 32768.0f", "scaled + 32767.0f")],
                         ids=["strict", "missing-lost", "quantizer-bias"])
def test_verify_finds_a_broken_quantized_c(monkeypatch: pytest.MonkeyPatch, old: str, new: str) -> None:
    model = _thresholds_only("float64")
    ranges = [(-1.0, 8.0), (-1.0, 3.0)]
    assert pt.verify(model, X_HAND[:, :2], "c", feature_type="int16", quantize=ranges).ok
    _broken(monkeypatch, old, new)
    report = pt.verify(model, X_HAND[:, :2], "c", feature_type="int16", quantize=ranges)
    assert report.n_mismatches + report.n_quantize_mismatches > 0 and not report.ok


def test_quantized_code_is_refused_where_it_cannot_be_written() -> None:
    model = _thresholds_only("float64")
    ranges = [(-1.0, 8.0), (-1.0, 3.0)]
    with pytest.raises(CodegenError, match="quantized code is C"):
        pt.generate(model, "python", quantize=ranges)
    with pytest.raises(CodegenError, match="int8 or int16 features, not 'float'"):
        pt.generate(model, "c", feature_type="float", quantize=ranges)
    with pytest.raises(CodegenError, match="int8 or int16 features, not 'int32'"):
        pt.generate(model, "c", feature_type="int32", quantize=ranges)
    with pytest.raises(CodegenError, match="threshold splits on numeric features"):
        pt.generate(_hand("log_loss", 1), "c", feature_type="int16", quantize=[(0.0, 1.0)] * 3)
    with pytest.raises(CodegenError, match="one \\(low, high\\) range per feature"):
        pt.generate(model, "c", feature_type="int16", quantize=[(0.0, 1.0)])


def test_the_command_line_verifies_a_quantized_boosted_model(tmp_path: Path) -> None:
    Xtr, Xte, ytr, yte = _cancer()
    names = [f"f{j}" for j in range(Xtr.shape[1])]
    for fname, X, y in (("train.csv", Xtr, ytr), ("test.csv", Xte, yte)):
        rows = [",".join([*names, "label"])] + [",".join([*(repr(float(v)) for v in r), str(int(c))]) for r, c in zip(X, y)]
        (tmp_path / fname).write_text("\n".join(rows) + "\n")
    grown = pt.gradient_boosting(pt.read_csv(tmp_path / "train.csv", target="label"), n_estimators=30, max_depth=3)
    save(grown, tmp_path / "gb.json")
    cmd = [sys.executable, "-m", "puretree", "verify", str(tmp_path / "gb.json"), str(tmp_path / "test.csv"), "--to", "c", "--feature-type", "int16",
           "--quantize", "--ranges-from", str(tmp_path / "train.csv"), "--max-changed", "1%"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "tree_quantize: checked" in done.stdout and "0 mismatches" in done.stdout and "within the 1 allowed (--max-changed 1%)" in done.stdout
    out = tmp_path / "out"
    done = subprocess.run([sys.executable, "-m", "puretree", "export", str(tmp_path / "gb.json"), "--to", "c", "--feature-type", "int16", "--quantize",
                           "--ranges-from", str(tmp_path / "train.csv"), "-o", str(out)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "void tree_quantize(const float *x, int16_t *q);" in (out / "tree.h").read_text()
