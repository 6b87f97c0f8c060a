"""Ensembles against scikit-learn, side by side in one process: test accuracy and fit time.

Over 5 seeded 75/25 splits (stratified, ``sklearn.model_selection.train_test_split`` with
``random_state=seed``) of breast_cancer, digits and wine, fits alternately

- ``puretree.random_forest(n_trees=100, seed=seed)`` (both cores) and
  ``RandomForestClassifier(100, random_state=seed, n_jobs=2)``;
- ``puretree.adaboost(n_rounds=50)`` and
  ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=50)`` (SAMME);

and prints per data set the mean test accuracy of each (and the difference in points), the
median fit time of each and their ratio. Every fit runs under a 4 GB address-space limit.

    python bench/bench_ensembles.py                  # all three data sets, 5 splits
    python bench/bench_ensembles.py --data wine --splits 2
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_wine
from sklearn.ensemble import AdaBoostClassifier, RandomForestClassifier
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

import puretree as pt

DATA = {"breast_cancer": load_breast_cancer, "digits": load_digits, "wine": load_wine}


def timed(fit):
    start = time.perf_counter()
    model = fit()
    return time.perf_counter() - start, model


def bench(name: str, splits: int) -> list[dict[str, object]]:
    X, y = DATA[name](return_X_y=True)
    pt.cart(X[:50], y[:50])  # untimed warm-up: numba's compiled kernel loaded from its cache
    rows = {"forest": ([], [], [], []), "adaboost": ([], [], [], [])}
    for seed in range(splits):
        Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.25, random_state=seed, stratify=y)
        fits = {
            "forest": (lambda: RandomForestClassifier(100, random_state=seed, n_jobs=2).fit(Xa, ya), lambda: pt.random_forest(Xa, ya, n_trees=100, seed=seed)),
            "adaboost": (lambda: AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=50, random_state=seed).fit(Xa, ya), lambda: pt.adaboost(Xa, ya, n_rounds=50, seed=seed)),
        }
        for kind, (theirs, ours) in fits.items():
            t_s, clf = timed(theirs)
            t_p, ens = timed(ours)
            acc_s, acc_p, time_s, time_p = rows[kind]
            acc_s.append(float(np.mean(clf.predict(Xb) == yb)))
            acc_p.append(float(np.mean(pt.predict(ens, Xb) == yb)))
            time_s.append(t_s)
            time_p.append(t_p)
    out = []
    for kind, (acc_s, acc_p, time_s, time_p) in rows.items():
        out.append({
            "data": name, "model": kind,
            "puretree_acc": float(np.mean(acc_p)), "sklearn_acc": float(np.mean(acc_s)),
            "points": 100 * (float(np.mean(acc_p)) - float(np.mean(acc_s))),
            "puretree_s": statistics.median(time_p), "sklearn_s": statistics.median(time_s),
            "ratio": statistics.median(time_p) / statistics.median(time_s),
        })
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", nargs="+", choices=sorted(DATA), default=sorted(DATA))
    parser.add_argument("--splits", type=int, default=5)
    args = parser.parse_args()
    resource.setrlimit(resource.RLIMIT_AS, (4_000_000_000, 4_000_000_000))
    print(f"{'data':<14} {'model':<9} {'puretree acc':>12} {'sklearn acc':>11} {'points':>7} {'puretree s':>10} {'sklearn s':>9} {'ratio':>6}")
    for name in args.data:
        for r in bench(name, args.splits):
            print(f"{r['data']:<14} {r['model']:<9} {r['puretree_acc']:>12.4f} {r['sklearn_acc']:>11.4f} {r['points']:>+7.2f} {r['puretree_s']:>10.3f} {r['sklearn_s']:>9.3f} {r['ratio']:>6.2f}", flush=True)


if __name__ == "__main__":
    main()
