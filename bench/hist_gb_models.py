"""puretree.hist_gradient_boosting's models on a few data sets, as JSON, saved by one version of
the code and checked (==) by another: a change meant for speed alone changes no model.

    PYTHONPATH=/work/main python bench/hist_gb_models.py save /tmp/models.json   # the reference's models
    PYTHONPATH=. python bench/hist_gb_models.py check /tmp/models.json           # the same ones? (exit 0)

(Run as a script, not with ``-c`` from a checkout: then the current folder's puretree comes first.)

The data: the 100k x 20 timing set (2 threads; 1 thread, 20 stages), breast_cancer, digits,
credit-g with its categorical columns, a regression with missing values, weights (some 0) and
l2, one with early stopping and max_depth, three classes with missing values, and few bins.
Each model as its JSON text (a pickled node keeps its cached hash, which is its process's).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_digits, make_classification, make_regression

import puretree as pt

PROTOCOL = dict(max_iter=100, learning_rate=0.1, max_leaf_nodes=31, min_samples_leaf=20, l2_regularization=0.0, max_bins=255, early_stopping=False)


def credit_g() -> tuple[np.ndarray, np.ndarray, list[int]]:
    """credit-g's features (its categorical columns as codes), target and categorical columns."""
    frame = pd.read_csv(Path(__file__).resolve().parents[1] / "tests" / "data" / "credit-g.csv")
    y = (frame.pop("class") == "good").astype(int).to_numpy()
    categorical = [j for j, name in enumerate(frame.columns) if not pd.api.types.is_numeric_dtype(frame[name])]
    for j in categorical:
        name = frame.columns[j]
        frame[name] = frame[name].astype("category").cat.codes.astype(float)
    return frame.to_numpy(dtype=np.float64), y, categorical


def cases() -> Iterator[tuple[str, Callable[[], Any]]]:
    """Each case's name and its fit."""
    fit = pt.hist_gradient_boosting
    X, y = make_classification(n_samples=100_000, n_features=20, n_informative=10, random_state=0)
    yield "100k, 2 threads", lambda: fit(X, y, threads=2, **PROTOCOL)
    yield "100k, 1 thread", lambda: fit(X, y, threads=1, **{**PROTOCOL, "max_iter": 20})
    Xb, yb = load_breast_cancer(return_X_y=True)
    yield "breast_cancer", lambda: fit(Xb, yb, threads=2, **PROTOCOL)
    Xd, yd = load_digits(return_X_y=True)
    yield "digits", lambda: fit(Xd, yd, threads=2, **{**PROTOCOL, "max_iter": 20})
    Xc, yc, categorical = credit_g()
    yield "credit-g", lambda: fit(Xc, yc, threads=2, categorical_features=categorical, **PROTOCOL)
    rng = np.random.default_rng(0)
    Xr, yr = make_regression(n_samples=30_000, n_features=12, noise=5.0, random_state=1)
    Xr[rng.random(Xr.shape) < 0.05] = np.nan
    w = rng.random(len(yr)) * 2
    w[:100] = 0
    yield "regression, missing, weights, l2", lambda: fit(Xr, yr, loss="squared_error", sample_weight=w, threads=2, **{**PROTOCOL, "max_iter": 30, "l2_regularization": 1.0})
    yield "regression, early stopping, max_depth", lambda: fit(Xr, yr, loss="squared_error", threads=2, early_stopping=True, max_iter=40, max_depth=4, max_leaf_nodes=None, random_state=3)
    X3, y3 = make_classification(n_samples=50_000, n_features=30, n_informative=8, n_classes=3, random_state=2)
    X3[rng.random(X3.shape) < 0.02] = np.nan
    yield "3 classes, missing", lambda: fit(X3, y3, threads=2, **{**PROTOCOL, "max_iter": 15, "min_samples_leaf": 5})
    yield "few bins", lambda: fit(np.round(X3[:, :5] * 3), y3, threads=2, **{**PROTOCOL, "max_iter": 15, "max_bins": 16})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("mode", choices=["save", "check"])
    parser.add_argument("path", type=Path)
    args = parser.parse_args()
    if args.mode == "save":
        args.path.write_text(json.dumps({name: pt.to_json(make()) for name, make in cases()}))
        return 0
    reference = json.loads(args.path.read_text())
    different = 0
    for name, make in cases():
        same = pt.to_json(make()) == reference[name]
        different += not same
        print(f"{name}: {'==' if same else 'DIFFERENT'}", flush=True)
    return 1 if different else 0


if __name__ == "__main__":
    sys.exit(main())
