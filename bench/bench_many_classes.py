"""Many classes (issue 23): peak resident memory and time of fits with 2, 20,000 and 100,000 classes.

Each fit runs in a child process of its own (``python bench/bench_many_classes.py --child ...``)
under an address-space limit (``resource.setrlimit(RLIMIT_AS)``, 6 GiB unless ``--limit``); the
child makes the data, fits, and reports its own peak resident size
(``resource.getrusage(RUSAGE_SELF).ru_maxrss`` after the fit) and the fit's wall time.

Data: 100,000 rows x 10 features drawn uniformly in [0, 1), labels ``arange(rows) % classes``
shuffled (every class present: 5 rows a class at 20,000 classes, one at 100,000). The many-class
fits bin the features (``max_bins=32``): scoring a candidate costs a number per class, so on
continuous features a level costs rows x features x classes numbers (20,000 classes: about
2e10 a level; ``--case cart-20000-continuous-root`` times the root alone).

    python bench/bench_many_classes.py                  # every case below
    python bench/bench_many_classes.py --case cart-20000 cart-100000 --limit 4

Measured 2026-11-26 with ``python bench/bench_many_classes.py`` (6 GiB limit) on the project
machine (2 cores shared with four other jobs, load about 5: times are slow and noisy); "before"
is the same case on the commit before issue 23's change, which raised a bare ``MemoryError``
asking for a rows x classes array. ``ru_maxrss`` also counts this parent process at the fork
(about 0.03 GiB). The 20,000- and 100,000-class fits use ``max_bins=32``, ``max_depth=6``
unless "grown to purity" (then refused: the tree's class counts would pass half the limit)::

    case                    result                               time      peak RSS  before
    cart-2                  44,505 nodes                            4.8 s  0.09 GiB  (not run)
    cart-2-numpy            44,505 nodes                           18.5 s  0.14 GiB  (not run)
    cart-20000              125 nodes                              27.0 s  0.24 GiB  MemoryError (14.9 GiB array)
    id3-20000               127 nodes                              57.9 s  0.22 GiB  MemoryError (14.9 GiB array)
    cart-100000             103 nodes                              93.5 s  0.56 GiB  MemoryError (74.5 GiB array)
    cart-20000-unlimited    MemoryLimitError at 5,321 nodes       322.6 s  1.61 GiB  MemoryError (14.9 GiB array)
    cart-100000-unlimited   MemoryLimitError at 847 nodes         248.4 s  1.51 GiB  MemoryError (74.5 GiB array)
    c45-20000               MemoryLimitError (needs 74.5 GiB)       0.3 s  0.07 GiB  MemoryError (14.9 GiB array)
    reference-100000        MemoryLimitError (needs 372.5 GiB)        1.5 s  0.09 GiB  MemoryError (74.5 GiB array)
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np

ROWS, FEATURES = 100_000, 10

#: name: (function, classes, options)
CASES: dict[str, tuple[str, int, dict]] = {
    "cart-2": ("cart", 2, {}),
    "cart-2-numpy": ("cart", 2, {"numpy": True}),
    "cart-20000": ("cart", 20_000, {"max_bins": 32, "max_depth": 6}),
    "id3-20000": ("id3", 20_000, {"max_bins": 32, "max_depth": 6}),
    "cart-100000": ("cart", 100_000, {"max_bins": 32, "max_depth": 6}),
    "cart-20000-unlimited": ("cart", 20_000, {"max_bins": 32}),
    "cart-100000-unlimited": ("cart", 100_000, {"max_bins": 32}),
    "c45-20000": ("c45", 20_000, {"max_depth": 6}),
    "reference-100000": ("grow", 100_000, {"engine": "reference", "max_depth": 6}),
    "cart-20000-continuous-root": ("cart", 20_000, {"max_depth": 1}),
}
DEFAULT = [c for c in CASES if c != "cart-20000-continuous-root"]


def data(classes: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    X = rng.random((ROWS, FEATURES))
    y = rng.permutation(np.arange(ROWS) % classes)
    return X, y


def child(case: str, limit_gib: float) -> None:
    """One fit under the address-space limit; prints one JSON line."""
    resource.setrlimit(resource.RLIMIT_AS, (int(limit_gib * 2**30),) * 2)
    import puretree as pt

    func, classes, options = CASES[case]
    options = dict(options)
    if options.pop("numpy", False):
        options["engine"] = "numpy"
    X, y = data(classes)
    start = time.perf_counter()
    try:
        tree = getattr(pt, func)(X, y, **options)
        result = f"ok, {pt.n_nodes(tree)} nodes"
    except Exception as e:  # MemoryError included: the point is to report it
        result = f"{type(e).__name__}: {str(e)[:90]}"
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024  # kilobytes on Linux
    print(json.dumps({"case": case, "result": result, "seconds": seconds, "peak_bytes": peak}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--case", nargs="+", choices=sorted(CASES), default=DEFAULT)
    parser.add_argument("--limit", type=float, default=6.0, help="address-space limit of each child, GiB")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.limit)
        return
    print(f"{ROWS:,} rows x {FEATURES} features, each fit in a child under RLIMIT_AS = {args.limit:g} GiB")
    print(f"{'case':34} {'result':60} {'time':>8} {'peak RSS':>9}")
    for case in args.case:
        out = subprocess.run([sys.executable, __file__, "--child", case, "--limit", str(args.limit)], capture_output=True, text=True)
        lines = [ln for ln in out.stdout.splitlines() if ln.startswith("{")]
        if not lines:  # the child died (killed, or a crash before it could report)
            print(f"{case:34} died with exit code {out.returncode}: {out.stderr.strip()[-200:]}")
            continue
        r = json.loads(lines[-1])
        print(f"{case:34} {r['result'][:60]:60} {r['seconds']:7.1f}s {r['peak_bytes'] / 2**30:7.2f} GiB", flush=True)


if __name__ == "__main__":
    main()
