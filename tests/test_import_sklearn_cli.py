"""Issue 29: ``puretree import MODEL.pkl|MODEL.joblib --from sklearn`` reads a pickled scikit-learn
model only with ``--trust-pickle`` (unpickling runs code), then saves, exports and verifies it."""

from __future__ import annotations

import csv
import pickle
import subprocess
import sys
from pathlib import Path

import joblib
import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.ensemble import HistGradientBoostingClassifier, RandomForestClassifier
from sklearn.tree import DecisionTreeRegressor

import puretree as pt
from puretree.sklearn import from_sklearn


def _cli(*args: str, cwd: Path) -> "subprocess.CompletedProcess[str]":
    return subprocess.run([sys.executable, "-m", "puretree", *args], cwd=cwd, capture_output=True, text=True)


def _iris() -> tuple[np.ndarray, np.ndarray]:
    X, y = load_iris(return_X_y=True)
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < 0.1] = np.nan
    return X, y


class _Planted:
    """A pickle that runs code when loaded: it writes a file next to it."""

    def __reduce__(self) -> tuple[object, tuple[str, ...]]:
        return (Path.touch, (Path("ran.txt"),))


def test_a_pickle_is_refused_without_trust_pickle_and_nothing_runs(tmp_path: Path) -> None:
    (tmp_path / "m.pkl").write_bytes(pickle.dumps(_Planted()))
    done = _cli("import", "m.pkl", "--from", "sklearn", "-o", "m.json", cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1 and "m.pkl" in done.stderr and "--trust-pickle" in done.stderr and "runs whatever code" in done.stderr
    assert not (tmp_path / "ran.txt").exists() and not (tmp_path / "m.json").exists()
    help_text = _cli("import", "--help", cwd=tmp_path).stdout
    assert "--trust-pickle" in help_text and "runs any code" in help_text


@pytest.mark.parametrize("dump", ["pickle", "joblib"])
def test_trusted_pickles_import_as_from_sklearn_does(dump: str, tmp_path: Path) -> None:
    X, y = _iris()
    models = {
        "forest": RandomForestClassifier(n_estimators=4, random_state=0).fit(X, y),
        "hgb": HistGradientBoostingClassifier(max_iter=5, random_state=0).fit(X, y),
        "tree": DecisionTreeRegressor(max_depth=3, random_state=0).fit(X, y.astype(float)),
    }
    for name, est in models.items():
        path = tmp_path / f"{name}.{'pkl' if dump == 'pickle' else 'joblib'}"
        if dump == "pickle":
            path.write_bytes(pickle.dumps(est))
        else:
            joblib.dump(est, path)
        done = _cli("import", path.name, "--from", "sklearn", "--trust-pickle", "-o", f"{name}.json", cwd=tmp_path)
        assert done.returncode == 0, done.stderr
        assert pt.load(tmp_path / f"{name}.json") == from_sklearn(est)


def test_an_imported_pickle_exports_and_verifies_with_no_mismatch(tmp_path: Path) -> None:
    X, y = _iris()
    est = HistGradientBoostingClassifier(max_iter=8, random_state=0).fit(X, y)
    (tmp_path / "m.pkl").write_bytes(pickle.dumps(est))
    with open(tmp_path / "rows.csv", "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow([f"x{j}" for j in range(X.shape[1])])
        out.writerows([["" if np.isnan(v) else repr(float(v)) for v in row] for row in X[::3]])
    assert _cli("import", "m.pkl", "--from", "sklearn", "--trust-pickle", "-o", "m.json", cwd=tmp_path).returncode == 0
    for target in ("python", "c"):
        done = _cli("verify", "m.json", "rows.csv", "--to", target, cwd=tmp_path)
        assert done.returncode == 0 and ": 0 mismatches" in done.stdout, done.stdout + done.stderr


def test_bad_trusted_pickles_are_refused_in_one_line_naming_the_file(tmp_path: Path) -> None:
    (tmp_path / "cut.pkl").write_bytes(pickle.dumps(list(range(1000)))[:50])
    (tmp_path / "dict.pkl").write_bytes(pickle.dumps({"not": "a model"}))
    (tmp_path / "cut.joblib").write_bytes(b"\x80\x04garbage")
    for name, words in (("cut.pkl", "cut.pkl: not a readable pickle"), ("dict.pkl", "dict.pkl: expected a fitted scikit-learn tree"),
                        ("cut.joblib", "cut.joblib: not a readable pickle"), ("absent.pkl", "absent.pkl: cannot read the model")):
        done = _cli("import", name, "--from", "sklearn", "--trust-pickle", "-o", "x.json", cwd=tmp_path)
        assert done.returncode == 1 and "Traceback" not in done.stderr and words in done.stderr
        assert done.stderr.count("\n") == 1
    assert not (tmp_path / "x.json").exists()
