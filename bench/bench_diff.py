"""``puretree.diff`` of two random forests (100 trees of depth 6, seeds 1 and 2) on breast_cancer:
how long it takes to find the first N boxes where they answer differently.

    python bench/bench_diff.py [N ...]      # default: 1000 10000 100000

Prints the CPU time (time.process_time: the machine may be loaded by other work) and the wall
clock. Runs under a 6 GiB address-space limit (the search's stack of boxes grows with the depth).
"""

from __future__ import annotations

import resource
import sys
import time

import puretree as pt
from sklearn.datasets import load_breast_cancer


def main(limits: list[int]) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (6 * 2**30, 6 * 2**30))
    X, y = load_breast_cancer(return_X_y=True)
    a = pt.random_forest(X, y, n_trees=100, seed=1, max_depth=6)
    b = pt.random_forest(X, y, n_trees=100, seed=2, max_depth=6)
    print(f"leaves: {sum(pt.n_leaves(m) for m in a.members)} and {sum(pt.n_leaves(m) for m in b.members)}")
    for limit in limits:
        start, cpu = time.perf_counter(), time.process_time()
        d = pt.diff(a, b, X=X, max_boxes=limit)
        print(f"max_boxes={limit}: CPU {time.process_time() - cpu:.1f} s, wall {time.perf_counter() - start:.1f} s; {d.summary()}", flush=True)


if __name__ == "__main__":
    main([int(v) for v in sys.argv[1:]] or [1000, 10000, 100000])
