"""pt.shap_values against shap.TreeExplainer on the same scikit-learn model and rows (issue 31:
at most shap's time).

    python bench/bench_shap.py [CASE ...]      cases: see CASES below (default: all)

Each case: a scikit-learn tree or forest, puretree's copy (from_sklearn, a forest member by
member), the rows explained and, for "interventional", a 100-row background. Three alternating
rounds (shap, puretree), each timed from the fitted model to the values: shap builds its
TreeExplainer and explains, puretree explains its imported model (imported once, outside the
timing, as a user holds it; its flat form is rebuilt in every call, as on a first call). A
round repeats each library's call until it lasts about 0.2 s (as timeit does: a call of a
millisecond is below what one timing tells apart) and counts the time per call.
Prints the medians of CPU time (time.process_time: the machine may be loaded by other work),
the ratio puretree / shap, the wall-clock medians and the largest difference between the values.
Runs under an 8 GB address-space limit.
"""
import math
import resource
import statistics
import sys
import time

resource.setrlimit(resource.RLIMIT_AS, (8 * 2**30, 8 * 2**30))

import numpy as np  # noqa: E402
import shap  # noqa: E402
from sklearn.datasets import load_breast_cancer, load_diabetes, make_classification  # noqa: E402
from sklearn.ensemble import GradientBoostingClassifier, GradientBoostingRegressor, RandomForestClassifier, RandomForestRegressor  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

import puretree as pt  # noqa: E402
from puretree import flat  # noqa: E402
from puretree.ensemble import Ensemble  # noqa: E402


def synthetic():
    return make_classification(n_samples=20_000, n_features=20, n_informative=8, random_state=7)


# name: (data, estimator, rows explained, feature_perturbation)
CASES = {
    "bc-tree-path": (lambda: load_breast_cancer(return_X_y=True), lambda: DecisionTreeClassifier(random_state=0), None, "tree_path_dependent"),
    "bc-forest-path": (lambda: load_breast_cancer(return_X_y=True), lambda: RandomForestClassifier(n_estimators=100, random_state=0), None, "tree_path_dependent"),
    "diabetes-forest-path": (lambda: load_diabetes(return_X_y=True), lambda: RandomForestRegressor(n_estimators=100, max_depth=8, random_state=0), None, "tree_path_dependent"),
    "synthetic-tree-path": (synthetic, lambda: DecisionTreeClassifier(max_depth=10, random_state=0), None, "tree_path_dependent"),
    "synthetic-forest-path": (synthetic, lambda: RandomForestClassifier(n_estimators=50, max_depth=8, random_state=0), 5_000, "tree_path_dependent"),
    "bc-tree-interventional": (lambda: load_breast_cancer(return_X_y=True), lambda: DecisionTreeClassifier(random_state=0), None, "interventional"),
    "bc-forest-interventional": (lambda: load_breast_cancer(return_X_y=True), lambda: RandomForestClassifier(n_estimators=100, random_state=0), None, "interventional"),
    "diabetes-forest-interventional": (lambda: load_diabetes(return_X_y=True), lambda: RandomForestRegressor(n_estimators=100, max_depth=8, random_state=0), None, "interventional"),
    "bc-gb-path": (lambda: load_breast_cancer(return_X_y=True), lambda: GradientBoostingClassifier(n_estimators=100, max_depth=3, random_state=0), None, "tree_path_dependent"),
    "diabetes-gb-path": (lambda: load_diabetes(return_X_y=True), lambda: GradientBoostingRegressor(n_estimators=100, max_depth=3, random_state=0), None, "tree_path_dependent"),
    "synthetic-forest-interventional": (synthetic, lambda: RandomForestClassifier(n_estimators=50, max_depth=8, random_state=0), 2_000, "interventional"),
}


def imported(est):
    if hasattr(est, "estimators_") and not hasattr(est, "init_"):  # a forest; gradient boosting imports whole
        members = tuple(pt.from_sklearn(e) for e in est.estimators_)
        return Ensemble(members, (1.0,) * len(members), members[0].schema, "forest", 0, ())
    return pt.from_sklearn(est)


def run(name):
    load, make, n_rows, fp = CASES[name]
    X, y = load()
    est = make().fit(X, y)
    model = imported(est)
    rows = X if n_rows is None else X[:n_rows]
    background = X[:100] if fp == "interventional" else None
    times = {"shap": [], "puretree": []}
    walls = {"shap": [], "puretree": []}

    def theirs():
        return np.asarray(shap.TreeExplainer(est, background, feature_perturbation=fp).shap_values(rows, check_additivity=False))

    def ours():
        flat._CACHE.clear()  # as on a first call: the members' flat forms are built again
        return pt.shap_values(model, rows, feature_perturbation=fp, data=background).values

    expected, got = theirs(), ours()  # also warms both (imports, numba's compilation)
    # A call of about a millisecond is below what one timing tells apart: as timeit does, a
    # round repeats the call until it lasts 0.2 s and counts the time per call.
    repeats = {}
    for lib, call in (("shap", theirs), ("puretree", ours)):
        t = time.perf_counter()
        call()
        repeats[lib] = max(1, math.ceil(0.2 / max(time.perf_counter() - t, 1e-6)))
    for _ in range(3):
        for lib, call in (("shap", theirs), ("puretree", ours)):
            t, w = time.process_time(), time.perf_counter()
            for _ in range(repeats[lib]):
                call()
            times[lib].append((time.process_time() - t) / repeats[lib])
            walls[lib].append((time.perf_counter() - w) / repeats[lib])
    s, p = statistics.median(times["shap"]), statistics.median(times["puretree"])
    ws, wp = statistics.median(walls["shap"]), statistics.median(walls["puretree"])
    print(f"{name}: rows {len(rows)}, CPU shap {s:.3f}s {[round(t, 3) for t in times['shap']]}, puretree {p:.3f}s {[round(t, 3) for t in times['puretree']]}, "
          f"ratio {p / s:.2f}, calls per round {repeats['shap']} / {repeats['puretree']} (wall {ws:.3f}s / {wp:.3f}s: {wp / ws:.2f}), max |difference| {np.max(np.abs(got - expected)):.2e}", flush=True)


if __name__ == "__main__":
    for case in sys.argv[1:] or CASES:
        run(case)
