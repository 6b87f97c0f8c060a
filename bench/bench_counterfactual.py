"""``puretree.counterfactual`` and ``robustness`` of ensembles of 10 trees of depth 4 (scikit-learn's
random forest and gradient boosting, XGBoost and LightGBM imported, puretree's random forest) on
breast_cancer (30 features) and a 20-feature synthetic set (make_classification, 2,000 rows): the
CPU and wall time of 20 rows (the first 20, each asked for the other class) per norm, and how many
answers are exact. Each model runs in a child process under a 4 GiB address-space limit.

    python bench/bench_counterfactual.py
"""

from __future__ import annotations

import multiprocessing as mp
import resource
import time
from typing import Any

import numpy as np


def models(dataset: str) -> tuple[np.ndarray, dict[str, Any]]:
    import lightgbm
    import xgboost
    from sklearn.datasets import load_breast_cancer, make_classification
    from sklearn.ensemble import GradientBoostingClassifier, RandomForestClassifier

    import puretree as pt

    if dataset == "breast_cancer":
        X, y = load_breast_cancer(return_X_y=True)
    else:
        X, y = make_classification(n_samples=2000, n_features=20, n_informative=10, random_state=0)
    return X, {
        "sklearn forest": pt.from_sklearn(RandomForestClassifier(n_estimators=10, max_depth=4, random_state=0).fit(X, y)),
        "sklearn gb": pt.from_sklearn(GradientBoostingClassifier(n_estimators=10, max_depth=4, random_state=0).fit(X, y)),
        "xgboost": pt.from_xgboost(xgboost.XGBClassifier(n_estimators=10, max_depth=4, random_state=0).fit(X, y)),
        "lightgbm": pt.from_lightgbm(lightgbm.LGBMClassifier(n_estimators=10, max_depth=4, num_leaves=16, verbose=-1, random_state=0).fit(X, y)),
        "puretree forest": pt.random_forest(X, y, n_trees=10, max_depth=4, seed=0),
    }


def run(dataset: str, kind: str, queue: Any) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (4 << 30, 4 << 30))
    import puretree as pt

    X, ms = models(dataset)
    model = ms[kind]
    names = model.schema.feature_names
    out = {}
    for norm in ("l1", "l2", "linf", "robustness"):
        cpu, wall, exact = time.process_time(), time.perf_counter(), 0
        for i in range(20):
            row = dict(zip(names, X[i].tolist()))
            answer = pt.predict(model, row)
            if norm == "robustness":
                r = pt.robustness(model, row)
                assert r.witness is None or pt.predict(model, r.witness) != answer
                exact += r.exact
                continue
            target = next(c for c in model.schema.classes if c != answer)
            cf = pt.counterfactual(model, row, target, norm=norm)
            assert pt.predict(model, cf.row) == target
            exact += cf.exact
        out[norm] = f"{time.process_time() - cpu:.2f} s CPU, {time.perf_counter() - wall:.1f} s wall, {exact}/20 exact"
    queue.put(out)


def main() -> None:
    for dataset in ("breast_cancer", "synthetic"):
        for kind in ("sklearn forest", "sklearn gb", "xgboost", "lightgbm", "puretree forest"):
            queue: Any = mp.Queue()
            child = mp.Process(target=run, args=(dataset, kind, queue))
            child.start()
            child.join(900)
            if child.is_alive():
                child.kill()
                print(dataset, kind, "killed after 900 s", flush=True)
                continue
            print(dataset, kind, queue.get() if not queue.empty() else f"exit {child.exitcode}", flush=True)


if __name__ == "__main__":
    main()
