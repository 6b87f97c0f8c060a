"""c45 (C4.5 as J48 grows it) against cart on make_classification, and through the command line.

- 20,000 x 20: c45's time over cart's (medians of 3 in one process) and c45's depth;
- 300,000 x 20: ``puretree fit`` with the default algorithm (c45), in a child process under a
  memory limit (8 GB), its wall time and peak resident size.

Run ``python bench/bench_c45.py`` (``--rows N`` changes the CLI run's size).
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
from sklearn.datasets import make_classification

import puretree as pt

LIMIT = 8_000_000_000


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
    args = parser.parse_args()
    print("| data | cart | c45 | c45 / cart |")
    print("| --- | ---: | ---: | ---: |")
    in_process()
    through_cli(args.rows)


if __name__ == "__main__":
    np.seterr(all="ignore")
    main()
