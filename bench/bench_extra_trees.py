"""Extra trees against scikit-learn, side by side in one process: test accuracy and fit time.

Over 5 stratified 75/25 splits (``train_test_split(..., stratify=y, random_state=seed)``, seeds
0-4) of breast_cancer, digits and credit-g (``tests/data/credit-g.csv``, its categorical columns
one-hot encoded by ``pandas.get_dummies`` so that both libraries see the same numeric matrix),
fits alternately ``puretree.extra_trees(n_trees=100, seed=seed, n_jobs=2)`` and
``ExtraTreesClassifier(100, random_state=seed, n_jobs=2)`` (both: ``max_features="sqrt"``, no
bootstrap), and prints per data set the mean test accuracy of each, the difference in points
(issue 25 asks for puretree within 1 point), the median fit CPU time of each (``time.process_time``:
this process's every thread, both libraries growing their trees in threads) and their ratio, and
the ratio of the median wall-clock times (meaningful on an idle machine only). Every fit runs
under a 4 GB address-space limit. Deterministic: the same figures of accuracy on every run (the
times vary with the machine's load).

    python bench/bench_extra_trees.py
    python bench/bench_extra_trees.py --data breast_cancer --splits 2
    python bench/bench_extra_trees.py --max-bins 255     # puretree's members grown on 255 bins (histogram mode)
"""

from __future__ import annotations

import argparse
import pathlib
import resource
import statistics
import time

import numpy as np
import pandas as pd
from sklearn.datasets import load_breast_cancer, load_digits
from sklearn.ensemble import ExtraTreesClassifier
from sklearn.model_selection import train_test_split

import puretree as pt

CREDIT = pathlib.Path(__file__).resolve().parent.parent / "tests" / "data" / "credit-g.csv"


def credit_g():
    frame = pd.read_csv(CREDIT)
    y = (frame.pop("class") == "good").astype(int).to_numpy()
    return pd.get_dummies(frame, dtype=float).to_numpy(dtype=float), y


DATA = {"breast_cancer": lambda: load_breast_cancer(return_X_y=True), "digits": lambda: load_digits(return_X_y=True), "credit-g": credit_g}


def timed(fit):
    """(CPU seconds, wall seconds, the model) of ``fit()``."""
    cpu, wall = time.process_time(), time.perf_counter()
    model = fit()
    return time.process_time() - cpu, time.perf_counter() - wall, model


def bench(name: str, splits: int, n_trees: int, max_bins: int | None = None) -> dict[str, object]:
    X, y = DATA[name]()
    acc_s, acc_p, time_s, time_p, wall_s, wall_p = [], [], [], [], [], []
    for seed in range(splits):
        Xa, Xb, ya, yb = train_test_split(X, y, test_size=0.25, random_state=seed, stratify=y)
        t_s, w_s, clf = timed(lambda: ExtraTreesClassifier(n_trees, random_state=seed, n_jobs=2).fit(Xa, ya))
        t_p, w_p, ens = timed(lambda: pt.extra_trees(Xa, ya, n_trees=n_trees, seed=seed, n_jobs=2, max_bins=max_bins))
        acc_s.append(float(np.mean(clf.predict(Xb) == yb)))
        acc_p.append(float(np.mean(pt.predict(ens, Xb) == yb)))
        time_s.append(t_s)
        time_p.append(t_p)
        wall_s.append(w_s)
        wall_p.append(w_p)
    return {
        "data": name, "puretree_acc": float(np.mean(acc_p)), "sklearn_acc": float(np.mean(acc_s)),
        "points": 100 * (float(np.mean(acc_p)) - float(np.mean(acc_s))),
        "puretree_s": statistics.median(time_p), "sklearn_s": statistics.median(time_s),
        "ratio": statistics.median(time_p) / statistics.median(time_s),
        "wall_ratio": statistics.median(wall_p) / statistics.median(wall_s),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", nargs="+", choices=sorted(DATA), default=sorted(DATA))
    parser.add_argument("--splits", type=int, default=5)
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--max-bins", type=int, default=None, help="puretree's members in histogram mode (max_bins=N)")
    args = parser.parse_args()
    resource.setrlimit(resource.RLIMIT_AS, (4_000_000_000, 4_000_000_000))
    print(f"{'data':<14} {'puretree acc':>12} {'sklearn acc':>11} {'points':>7} {'puretree cpu s':>14} {'sklearn cpu s':>13} {'ratio':>6} {'wall ratio':>10}")
    for name in args.data:
        r = bench(name, args.splits, args.trees, args.max_bins)
        print(f"{r['data']:<14} {r['puretree_acc']:>12.4f} {r['sklearn_acc']:>11.4f} {r['points']:>+7.2f} {r['puretree_s']:>14.3f} {r['sklearn_s']:>13.3f} {r['ratio']:>6.2f} {r['wall_ratio']:>10.2f}", flush=True)


if __name__ == "__main__":
    main()
