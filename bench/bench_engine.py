"""The growth engine against scikit-learn, side by side: time (medians, ratios) and peak memory.

Time: in one process, runs alternating between scikit-learn's ``DecisionTreeClassifier``
(fully grown, Gini, ``random_state=0``) and ``puretree.cart`` (its default engine: the
compiled kernel of :mod:`puretree.growth.kernels` for this data, C), on iris, breast_cancer,
digits, make_classification 100,000 x 20 and a chain 10,000 levels deep (10,000 rows, one
feature, alternating labels); ``--sets 1000000x10`` adds make_classification 1,000,000 x 10.
Each library fits iris once untimed first (imports, the compiled kernel checked and loaded).
``--reference`` adds puretree's recursive reference builder (``engine="reference"``),
``--numpy`` the numpy engine (:mod:`puretree.growth.engine` without the kernel).

Memory: each fit runs in its own child process (imports and data included) under an address
space limit (``resource.setrlimit(RLIMIT_AS)``); a small meter process starts that one child,
waits for it and reads ``getrusage(RUSAGE_CHILDREN).ru_maxrss``, the child's peak resident size.

    python bench/bench_engine.py                        # everything, 5 runs each
    python bench/bench_engine.py --sets iris digits --repeats 9
    python bench/bench_engine.py --sets chain --repeats 1 --reference
    python bench/bench_engine.py --sets 1000000x10 --repeats 3
    python bench/bench_engine.py --memory-only
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

import numpy as np

SETS = ("iris", "breast_cancer", "digits", "100000x20", "chain", "1000000x10")
#: What runs without --sets (1,000,000 x 10 takes minutes).
DEFAULT_SETS = SETS[:-1]
#: Address-space limit of a memory child (bytes): a runaway fit fails instead of swapping.
MEMORY_LIMIT = 8 * 2**30


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    from sklearn import datasets

    if name == "chain":
        n = 10_000
        return np.arange(n, dtype=np.float64).reshape(-1, 1), np.arange(n) % 2
    if name == "100000x20":
        return datasets.make_classification(n_samples=100_000, n_features=20, n_informative=10, random_state=0)
    if name == "1000000x10":  # as bench/bench_fit.py makes it
        return datasets.make_classification(n_samples=1_000_000, n_features=10, n_informative=5, random_state=0)
    X, y = getattr(datasets, f"load_{name}")(return_X_y=True)
    return X.astype(np.float64), y


def fitter(which: str):
    if which == "sklearn":
        from sklearn.tree import DecisionTreeClassifier

        return lambda X, y: DecisionTreeClassifier(random_state=0).fit(X, y)
    from puretree.grow import cart

    engine = {"puretree": "auto", "numpy": "numpy", "reference": "reference"}[which]
    return lambda X, y: cart(X, y, engine=engine)


def timed(fit, X, y) -> float:
    start = time.perf_counter()
    fit(X, y)
    return time.perf_counter() - start


def bench_time(name: str, repeats: int, reference: bool, numpy: bool = False) -> dict[str, float]:
    X, y = load(name)
    who = ["sklearn", "puretree"] + (["reference"] if reference else []) + (["numpy"] if numpy else [])
    fits = {w: fitter(w) for w in who}
    runs: dict[str, list[float]] = {w: [] for w in who}
    for w in who:
        # untimed warm-up: imports, the compiled kernel checked and loaded
        fits[w](*load("iris"))
    for _ in range(repeats):
        for w in who:
            runs[w].append(timed(fits[w], X, y))
    return {w: statistics.median(r) for w, r in runs.items()}


def child(which: str, name: str) -> None:
    """Body of a memory child: load, fit once, exit."""
    X, y = load(name)
    fitter(which)(X, y)


def meter(which: str, name: str) -> None:
    """Start one child under the memory limit, wait, print its peak RSS in MB."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))

    done = subprocess.run([sys.executable, __file__, "--child", which, name], preexec_fn=limit, check=False)
    peak_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # Linux: kilobytes
    print(f"{done.returncode} {peak_kb / 1024:.1f}")


def peak_mb(which: str, name: str) -> float:
    out = subprocess.run([sys.executable, __file__, "--meter", which, name], capture_output=True, text=True, check=True).stdout.split()
    if out[0] != "0":
        raise SystemExit(f"the {which} child on {name} failed (exit {out[0]})")
    return float(out[1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sets", nargs="+", choices=SETS, default=list(DEFAULT_SETS))
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--reference", action="store_true", help="time the recursive reference builder too")
    parser.add_argument("--numpy", action="store_true", help="time the numpy engine (no compiled kernel) too")
    parser.add_argument("--memory-only", action="store_true")
    parser.add_argument("--child", nargs=2, metavar=("WHO", "SET"), help=argparse.SUPPRESS)
    parser.add_argument("--meter", nargs=2, metavar=("WHO", "SET"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(*args.child)
    if args.meter:
        return meter(*args.meter)
    if not args.memory_only:
        extra = (["reference"] if args.reference else []) + (["numpy"] if args.numpy else [])
        print(f"| data | scikit-learn (median of {args.repeats}) | puretree cart | ratio |" + "".join(f" {w} | ratio |" for w in extra))
        print("| --- | ---: | ---: | ---: |" + " ---: | ---: |" * len(extra), flush=True)
        for name in args.sets:
            t = bench_time(name, args.repeats, args.reference, args.numpy)
            line = f"| {name} | {t['sklearn']:.4f} s | {t['puretree']:.4f} s | {t['puretree'] / t['sklearn']:.2f} |"
            for w in extra:
                line += f" {t[w]:.4f} s | {t[w] / t['sklearn']:.2f} |"
            print(line, flush=True)
        print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}", flush=True)
    print()
    print("| peak RSS of a child fitting 100,000 x 20 (imports and data included) | MB |")
    print("| --- | ---: |")
    for who in ("sklearn", "puretree"):
        print(f"| {who} | {peak_mb(who, '100000x20'):.0f} |", flush=True)


if __name__ == "__main__":
    main()
