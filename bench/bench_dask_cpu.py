"""puretree.dask.cart against xgboost.dask on one cluster, fit by fit in turn: wall and CPU time.

bench/bench_dask.py's data and options (make_classification 1,000,000 x 10, the first 80% to
train, 8 chunks scattered to a ``LocalCluster`` of 2 single-threaded worker processes,
``max_depth=12``, ``max_bins=255``; XGBoost's ``tree_method="hist"``, one tree of learning rate
1). A warm-up round, then ``--rounds`` rounds, each one fit of puretree then one of XGBoost:
on a machine shared with other jobs the two see the same load. Each fit's CPU time is the
client process's (the scheduler of a LocalCluster runs in it) plus the workers' (their
``getrusage``); the medians, their ratio, and whether the tree equals the in-memory
``puretree.cart(X, y, bins=edges)``. Needs xgboost (``pip install xgboost-cpu``).

    python bench/bench_dask_cpu.py --rounds 5
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time


def _cpu() -> float:
    """On a worker: its CPU time so far (user + system), in seconds."""
    import resource

    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args(argv)

    import dask.array as da
    import xgboost.dask as dxgb
    from distributed import Client, LocalCluster
    from sklearn.datasets import make_classification

    import puretree
    from puretree import dask as ptdask

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, memory_limit="2GB", dashboard_address=None)
    client = Client(cluster)
    X, y = make_classification(n_samples=1_000_000, n_features=10, n_informative=5, random_state=0)
    cut = 800_000
    Xtr, ytr = X[:cut], y[:cut]
    with cluster, client:
        step = -(-cut // 8)
        bounds = [(a, min(cut, a + step)) for a in range(0, cut, step)]
        xs = client.scatter([Xtr[a:b] for a, b in bounds])
        ys = client.scatter([ytr[a:b] for a, b in bounds])
        Xd = da.concatenate([da.from_delayed(f, shape=(b - a, 10), dtype=Xtr.dtype) for f, (a, b) in zip(xs, bounds)])
        yd = da.concatenate([da.from_delayed(f, shape=(b - a,), dtype=ytr.dtype) for f, (a, b) in zip(ys, bounds)])
        edges = ptdask.bin_edges(Xd, max_bins=255)
        fits = {
            "puretree.dask.cart": lambda: ptdask.cart(Xd, yd, bins=edges, max_depth=12),
            "xgboost.dask hist": lambda: dxgb.DaskXGBClassifier(tree_method="hist", n_estimators=1, learning_rate=1.0, max_depth=12, max_bin=255).fit(Xd, yd),
        }
        seen: dict[str, tuple[list[float], list[float]]] = {name: ([], []) for name in fits}
        for r in range(args.rounds + 1):  # round 0 warms up
            for name, fit in fits.items():
                c0, p0, t0 = sum(client.run(_cpu).values()), time.process_time(), time.perf_counter()
                fit()
                wall, cpu = time.perf_counter() - t0, time.process_time() - p0 + sum(client.run(_cpu).values()) - c0
                if r:
                    seen[name][0].append(wall)
                    seen[name][1].append(cpu)
                print(f"round {r}{' (warm-up)' if not r else ''}: {name:<20} wall {wall:6.2f} s  CPU {cpu:6.2f} s  load {open('/proc/loadavg').read().split()[0]}", flush=True)
        same = fits["puretree.dask.cart"]() == puretree.cart(Xtr, ytr, bins=edges, max_depth=12)
    (pw, pc), (xw, xc) = ((statistics.median(w), statistics.median(c)) for w, c in seen.values())
    print(f"medians of {args.rounds}: puretree.dask.cart wall {pw:.2f} s CPU {pc:.2f} s; xgboost.dask wall {xw:.2f} s CPU {xc:.2f} s")
    print(f"ratio puretree / xgboost: wall {pw / xw:.2f}, CPU {pc / xc:.2f}; tree == in-memory cart(bins=edges): {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
