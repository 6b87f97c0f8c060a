"""c45 (C4.5 as J48 grows it) against scikit-learn's entropy tree and cart, and through the command line.

- iris, breast_cancer, digits: ``pt.c45`` against scikit-learn's
  ``DecisionTreeClassifier(criterion="entropy")``, alternating in one process (so that machine
  load affects both alike), medians;
- 20,000 x 20: c45's time over cart's (medians of 3 in one process) and c45's depth;
- 300,000 x 20: ``puretree fit`` with the default algorithm (c45), in a child process under a
  memory limit (8 GB), its wall time and peak resident size.

Run ``python bench/bench_c45.py`` (``--rows N`` changes the CLI run's size, ``--small-only``
runs only the first table, ``--repeats N`` its runs per library).
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time

import numpy as np
from sklearn.datasets import load_breast_cancer, load_digits, load_iris, make_classification
from sklearn.tree import DecisionTreeClassifier

import puretree as pt

LIMIT = 8_000_000_000


def _timed(fit) -> float:
    start = time.perf_counter()
    fit()
    return time.perf_counter() - start


def against_sklearn(repeats: int) -> None:
    print("| data | scikit-learn entropy (median) | `pt.c45` (median) | ratio | leaves scikit-learn / c45 |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, load in (("iris", load_iris), ("breast_cancer", load_breast_cancer), ("digits", load_digits)):
        X, y = load(return_X_y=True)
        sk_fit = lambda: DecisionTreeClassifier(criterion="entropy", random_state=0).fit(X, y)  # noqa: E731
        pt_fit = lambda: pt.c45(X, y)  # noqa: E731
        sk_fit(), pt_fit()  # warm up (imports, the compiled loop loaded)
        sk, ours = [], []
        for _ in range(repeats):
            sk.append(_timed(sk_fit))
            ours.append(_timed(pt_fit))
        a, b = statistics.median(sk), statistics.median(ours)
        leaves = f"{sk_fit().get_n_leaves()} / {pt.n_leaves(pt.c45(X, y))}"
        print(f"| {name} {X.shape[0]:,} x {X.shape[1]} ({repeats} runs each) | {a * 1e3:.1f} ms | {b * 1e3:.1f} ms | {b / a:.2f} | {leaves} |")
    print(f"\nload average {os.getloadavg()[0]:.2f} (1 min) after the runs\n")


def in_process(n: int = 20_000, repeats: int = 3) -> None:
    X, y = make_classification(n_samples=n, n_features=20, random_state=0)
    times: dict[str, list[float]] = {"cart": [], "c45": []}
    depths = {}
    for _ in range(repeats):
        for name, fit in (("cart", pt.cart), ("c45", pt.c45)):
            start = time.perf_counter()
            tree = fit(X, y)
            times[name].append(time.perf_counter() - start)
            depths[name] = pt.depth(tree)
    cart, c45 = statistics.median(times["cart"]), statistics.median(times["c45"])
    print(f"| make_classification {n:,} x 20 | {cart:.2f} s (depth {depths['cart']}) | {c45:.2f} s (depth {depths['c45']}) | {c45 / cart:.2f} |")


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def through_cli(n: int) -> None:
    X, y = make_classification(n_samples=n, n_features=20, random_state=0)
    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "data.csv")
        with open(data, "w", newline="") as fh:
            out = csv.writer(fh)
            out.writerow([f"f{j}" for j in range(20)] + ["y"])
            out.writerows([*map(repr, row), label] for row, label in zip(X.tolist(), y.tolist()))
        command = [os.path.join(os.path.dirname(sys.executable), "puretree"), "fit", data, "--target", "y", "-o", os.path.join(tmp, "m.json")]
        start = time.perf_counter()
        done = subprocess.run(command, capture_output=True, text=True, preexec_fn=_limit, check=False)
        wall = time.perf_counter() - start
        peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
        print(f"`puretree fit` ({n:,} x 20, c45): exit {done.returncode}, {wall:.1f} s, peak {peak:.0f} MB: {done.stdout.strip() or done.stderr.strip()}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--small-only", action="store_true")
    args = parser.parse_args()
    against_sklearn(args.repeats)
    if args.small_only:
        return
    print("| data | cart | c45 | c45 / cart |")
    print("| --- | ---: | ---: | ---: |")
    in_process()
    through_cli(args.rows)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
