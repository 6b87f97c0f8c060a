"""Best-first growth (``max_leaf_nodes``) against scikit-learn, side by side in one process.

On a continuous synthetic set (100,000 rows x 20 features, float32 values as scikit-learn sees
them, a noisy non-linear class), fits alternately
``DecisionTreeClassifier(max_leaf_nodes=N, random_state=0)`` and ``puretree.cart(X, y,
max_leaf_nodes=N)`` (the compiled kernel's full tree, read best-first by
``puretree.growth.level.best_first``) and prints each one's CPU times (``time.process_time``),
the ratio of the medians (issue 25 asks for at most 0.5), the ratio of the median wall-clock
times (meaningful on an idle machine only) and the leaves. Every fit runs under a 6 GB
address-space limit.

    python bench/bench_leaf_budget.py                 # N = 1000, 5 runs each
    python bench/bench_leaf_budget.py --leaves 100 --runs 3
"""

from __future__ import annotations

import argparse
import resource
import statistics
import time

import numpy as np
from sklearn.tree import DecisionTreeClassifier

import puretree as pt


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--leaves", type=int, default=1000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--rows", type=int, default=100_000)
    args = parser.parse_args()
    resource.setrlimit(resource.RLIMIT_AS, (6_000_000_000, 6_000_000_000))
    rng = np.random.default_rng(0)
    X = rng.normal(size=(args.rows, 20)).astype(np.float32).astype(np.float64)
    y = (X[:, 0] + X[:, 1] * X[:, 2] + np.sin(3 * X[:, 3]) + 0.5 * rng.normal(size=len(X)) > 0).astype(int)
    pt.cart(X[:100], y[:100])  # untimed warm-up
    theirs, ours, theirs_wall, ours_wall = [], [], [], []
    for _ in range(args.runs):
        cpu, wall = time.process_time(), time.perf_counter()
        DecisionTreeClassifier(max_leaf_nodes=args.leaves, random_state=0).fit(X, y)
        theirs.append(time.process_time() - cpu)
        theirs_wall.append(time.perf_counter() - wall)
        cpu, wall = time.process_time(), time.perf_counter()
        tree = pt.cart(X, y, max_leaf_nodes=args.leaves)
        ours.append(time.process_time() - cpu)
        ours_wall.append(time.perf_counter() - wall)
    ratio, wall_ratio = statistics.median(ours) / statistics.median(theirs), statistics.median(ours_wall) / statistics.median(theirs_wall)
    print(f"scikit-learn cpu s {[round(t, 3) for t in theirs]}  puretree cpu s {[round(t, 3) for t in ours]}  ratio {ratio:.2f}  wall ratio {wall_ratio:.2f}  leaves {pt.n_leaves(tree)}")


if __name__ == "__main__":
    main()
