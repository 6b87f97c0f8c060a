"""Two checkouts of puretree side by side: the fits issue 24 says must not get slower, and the
numpy path's time against the compiled fit's.

Each run is a child process per checkout (``PYTHONPATH`` set to it), alternating between the
checkouts; a child fits iris once untimed (imports, the kernel loaded), then times each case
once. The table gives each case's median over the runs, and the second checkout's time over
the first's: wall-clock time, or with ``--cpu`` the child's CPU time (``time.process_time``, all
its threads), which a machine loaded by other work disturbs less.

    python bench/bench_checkouts.py /work/wt/r7-base /work/wt/r7-speed --repeats 5
    python bench/bench_checkouts.py OLD NEW --cases forest_digits chain_3000
    python bench/bench_checkouts.py OLD NEW --repeats 3 --cpu
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

CASES = ("forest_digits", "chain_3000", "cart_breast_cancer", "cart_digits", "cart_100k", "numpy_100k")


def case(name: str):  # the fit of one case, its data made beforehand
    import numpy as np
    from sklearn import datasets

    import puretree as pt

    if name == "forest_digits":
        X, y = datasets.load_digits(return_X_y=True)
        return lambda: pt.random_forest(X, y, n_trees=100, seed=0)
    if name == "chain_3000":
        X, y = np.arange(3000.0)[:, None], np.arange(3000) % 2
        return lambda: pt.cart(X, y)
    if name in ("cart_breast_cancer", "cart_digits"):
        X, y = getattr(datasets, f"load_{name[5:]}")(return_X_y=True)
        return lambda: pt.cart(X, y)
    X, y = datasets.make_classification(n_samples=100_000, n_features=20, n_informative=10, random_state=0)
    return lambda: pt.cart(X, y, engine="numpy" if name == "numpy_100k" else "auto")


def child(names: list[str]) -> None:
    from sklearn.datasets import load_iris

    import puretree as pt

    pt.cart(*load_iris(return_X_y=True))
    out = {}
    for name in names:
        fit = case(name)
        start, cpu = time.perf_counter(), time.process_time()
        fit()
        out[name] = (time.perf_counter() - start, time.process_time() - cpu)
    print(json.dumps(out))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("checkouts", nargs="*", help="two checkouts: the old one, then the new one")
    parser.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cpu", action="store_true", help="CPU time (process_time) instead of wall-clock time")
    parser.add_argument("--child", nargs="+", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child)
    if len(args.checkouts) != 2:
        parser.error("give two checkouts")
    runs: dict[str, dict[str, list[float]]] = {c: {n: [] for n in args.cases} for c in args.checkouts}
    for _ in range(args.repeats):
        for where in args.checkouts:
            env = {**os.environ, "PYTHONPATH": os.path.abspath(where)}
            env.pop("PURETREE_ENGINE", None)
            got = subprocess.run([sys.executable, os.path.abspath(__file__), "--child", *args.cases], env=env, cwd=where, capture_output=True, text=True, check=True)
            for name, (wall, cpu) in json.loads(got.stdout.splitlines()[-1]).items():
                runs[where][name].append(cpu if args.cpu else wall)
    old, new = args.checkouts
    print(f"| case ({'CPU' if args.cpu else 'wall'} time, median of {args.repeats}) | {old} | {new} | ratio |\n| --- | ---: | ---: | ---: |")
    med = {c: {n: statistics.median(r) for n, r in runs[c].items()} for c in args.checkouts}
    for name in args.cases:
        print(f"| {name} | {med[old][name] * 1e3:.1f} ms | {med[new][name] * 1e3:.1f} ms | {med[new][name] / med[old][name]:.2f} |")
    if "numpy_100k" in args.cases and "cart_100k" in args.cases:
        for c in args.checkouts:
            print(f"numpy path / compiled fit, 100k x 20, {c}: {med[c]['numpy_100k'] / med[c]['cart_100k']:.2f}")
    print(f"load average after: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


if __name__ == "__main__":
    main()
