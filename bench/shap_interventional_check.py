"""Why puretree's interventional SHAP values part from shap's on bench_shap's models (issue 31).

    python bench/shap_interventional_check.py [CASE ...]   cases: bench_shap's interventional ones

For each case: the largest difference between puretree's and shap 0.51's interventional values
(100-row background), and how far each library's values are from adding up to the model's own
output (scikit-learn's predict / predict_proba, class 1): the efficiency (additivity) property
every Shapley value has. shap's interventional C++ keeps its weights, terms and thresholds in
float32 (shap issues 5116, 3267), so its values miss additivity by ~1e-8 even on one tree and
by whole units on the diabetes forest; puretree's add up to ~1e-15 and equal the Shapley
definition coalition by coalition (tests/test_explain.py). Runs under an 8 GB limit.
"""
import resource
import sys
from pathlib import Path

resource.setrlimit(resource.RLIMIT_AS, (8 * 2**30, 8 * 2**30))
sys.path.insert(0, str(Path(__file__).parent))

import numpy as np  # noqa: E402
import shap  # noqa: E402

import puretree as pt  # noqa: E402
from bench_shap import CASES, imported  # noqa: E402


def positive_class(values: np.ndarray) -> np.ndarray:
    """Class 1's values of a classifier ((rows, features, classes) in shap 0.51), else as is."""
    return values[:, :, 1] if values.ndim == 3 else values


def check(name: str) -> str:
    load, make, n_rows, fp = CASES[name]
    X, y = load()
    est = make().fit(X, y)
    rows = X if n_rows is None else X[:n_rows]
    background = X[:100]
    explainer = shap.TreeExplainer(est, background, feature_perturbation=fp)
    theirs = positive_class(np.asarray(explainer.shap_values(rows, check_additivity=False)))
    ours = pt.shap_values(imported(est), rows, feature_perturbation=fp, data=background)
    mine = positive_class(np.asarray(ours.values))
    classifier = hasattr(est, "predict_proba")
    output = est.predict_proba(rows)[:, 1] if classifier else est.predict(rows)
    base_theirs = np.atleast_1d(explainer.expected_value)[1 if classifier else 0]
    base_ours = np.atleast_1d(np.asarray(ours.expected_value, dtype=float)).ravel()[-1]
    miss_theirs = np.abs(theirs.sum(axis=1) + base_theirs - output)
    miss_ours = np.abs(mine.sum(axis=1) + base_ours - output)
    return (f"{name:34s} {len(rows):5d} rows  max |puretree - shap| {np.abs(mine - theirs).max():9.3g}  "
            f"additivity miss: shap {miss_theirs.max():9.3g} ({int((miss_theirs > 1e-9).sum())} rows > 1e-9), "
            f"puretree {miss_ours.max():9.3g}")


if __name__ == "__main__":
    for case in sys.argv[1:] or [c for c in CASES if CASES[c][3] == "interventional"]:
        print(check(case), flush=True)
