"""puretree.dask.hist_gradient_boosting against xgboost.dask (``tree_method="hist"``), side by side.

Data: make_classification 1,000,000 x 10 (``n_informative=5, random_state=0``, as
bench/bench_dask.py), the first 80% to train, the last 20% held out; the training rows are
scattered to a ``distributed.LocalCluster`` of ``--workers`` worker processes (one thread each)
as ``--chunks`` row blocks. Both fits grow ``--iterations`` stages of at most ``--leaves``
leaves best first (XGBoost: ``grow_policy="lossguide", max_depth=0, max_leaves``), learning rate
0.1, no L2 (``reg_lambda=0``), 255 bins, XGBoost with ``nthread=1`` per worker; puretree's
leaves need ``min_samples_leaf=20`` rows (XGBoost has no such rule; its ``min_child_weight``
is set to puretree's least hessian, 1e-3). puretree's edges come from ``puretree.dask.bin_edges``
(timed apart). The fits alternate, ``--repeats`` times each; the table gives the medians of the
wall-clock time and of the CPU time (the client process, which runs the scheduler, plus the
workers' ``getrusage``), the held-out accuracy, and each worker's peak resident size up to
the end of puretree's first fit, before XGBoost's (``ru_maxrss``, the workers start before the
data is made) against the training data's size.
``--check`` also fits ``puretree.hist_gradient_boosting(X, y, bins=edges)`` in memory and says
whether the Dask model equals it (``==``).

    PYTHONPATH=. python bench/bench_dask_boosting.py                  # 1,000,000 x 10, 8 chunks, 20 stages
    PYTHONPATH=. python bench/bench_dask_boosting.py --rows 100000 --repeats 1 --check
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time

import numpy as np

from bench_dask import _start_meter, _stop_meter  # noqa: E402  (bench/ is the script's directory)


def _cpu_seconds(dask_worker=None) -> float:
    """This process's CPU time (user + system), in seconds."""
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def _measured(client, fit):
    """``fit()``'s result, wall-clock seconds, CPU seconds (this process and the workers)."""
    workers0, cpu0, t0 = client.run(_cpu_seconds), time.process_time(), time.perf_counter()
    out = fit()
    wall, cpu = time.perf_counter() - t0, time.process_time() - cpu0
    workers1 = client.run(_cpu_seconds)
    return out, wall, cpu + sum(workers1[a] - workers0[a] for a in workers1)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--features", type=int, default=10)
    ap.add_argument("--chunks", type=int, default=8)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--leaves", type=int, default=31)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--worker-memory", default="2GB", help="each worker's memory limit (dask's)")
    ap.add_argument("--check", action="store_true", help="fit in memory too and compare (==)")
    args = ap.parse_args(argv)

    import dask.array as da
    import xgboost.dask as dxgb
    from distributed import Client, LocalCluster
    from sklearn.datasets import make_classification

    import puretree
    from puretree import dask as ptdask

    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, memory_limit=args.worker_memory, dashboard_address=None)
    client = Client(cluster)
    X, y = make_classification(n_samples=args.rows, n_features=args.features, n_informative=min(5, args.features), random_state=0)
    cut = int(0.8 * args.rows)
    Xtr, ytr, Xte, yte = X[:cut], y[:cut], X[cut:], y[cut:]
    data_mb = (Xtr.nbytes + ytr.nbytes) / 2**20
    ours = dict(max_iter=args.iterations, learning_rate=0.1, max_leaf_nodes=args.leaves, min_samples_leaf=20, l2_regularization=0.0)
    theirs = dict(tree_method="hist", n_estimators=args.iterations, learning_rate=0.1, grow_policy="lossguide", max_depth=0, max_leaves=args.leaves, reg_lambda=0.0, min_child_weight=1e-3, max_bin=255, nthread=1)
    with cluster, client:
        step = -(-cut // args.chunks)
        bounds = [(a, min(cut, a + step)) for a in range(0, cut, step)]
        xs, ys = client.scatter([Xtr[a:b] for a, b in bounds]), client.scatter([ytr[a:b] for a, b in bounds])
        Xd = da.concatenate([da.from_delayed(f, shape=(b - a, args.features), dtype=Xtr.dtype) for f, (a, b) in zip(xs, bounds)])
        yd = da.concatenate([da.from_delayed(f, shape=(b - a,), dtype=ytr.dtype) for f, (a, b) in zip(ys, bounds)])
        small = da.from_array(Xtr[:1000], chunks=(500, args.features)), da.from_array(ytr[:1000], chunks=(500,))
        ptdask.hist_gradient_boosting(*small, max_iter=1)  # warm-up: the workers import puretree
        before = client.run(_start_meter)
        t = time.perf_counter()
        edges = ptdask.bin_edges(Xd, max_bins=255)
        t_edges = time.perf_counter() - t
        runs: dict[str, list[tuple[float, float]]] = {"puretree.dask": [], "xgboost.dask": []}
        models: dict[str, object] = {}
        peaks: dict[str, object] = {}
        for _ in range(args.repeats):  # alternating
            models["puretree.dask"], wall, cpu = _measured(client, lambda: ptdask.hist_gradient_boosting(Xd, yd, bins=edges, **ours))
            runs["puretree.dask"].append((wall, cpu))
            if not peaks:  # the workers' peaks from their start to puretree's first fit's end (XGBoost's not yet)
                peaks = client.run(_stop_meter)
            models["xgboost.dask"], wall, cpu = _measured(client, lambda: dxgb.DaskXGBClassifier(**theirs).fit(Xd, yd))
            runs["xgboost.dask"].append((wall, cpu))
        held = da.from_array(Xte, chunks=(-(-len(Xte) // args.chunks), args.features))
        accuracy = {"puretree.dask": 100.0 * float(np.mean(models["puretree.dask"].predict(Xte) == yte)), "xgboost.dask": 100.0 * float(np.mean(models["xgboost.dask"].predict(held).compute() == yte))}
    same = None
    if args.check:
        same = models["puretree.dask"] == puretree.hist_gradient_boosting(Xtr, ytr, bins=edges, early_stopping=False, **ours)

    print(f"make_classification {args.rows:,} x {args.features}, train {cut:,} rows ({data_mb:.0f} MB), {args.chunks} chunks, {args.workers} worker processes x 1 thread, {args.iterations} stages of <= {args.leaves} leaves, median of {args.repeats} alternating runs")
    print(f"{'fit':<16}{'wall s':>9}{'CPU s':>9}{'held-out %':>12}   (wall, CPU of each run)")
    base = {}
    for name, times in runs.items():
        wall, cpu = statistics.median(t for t, _ in times), statistics.median(c for _, c in times)
        base[name] = (wall, cpu)
        print(f"{name:<16}{wall:>9.2f}{cpu:>9.2f}{accuracy[name]:>12.3f}   {[(round(a, 1), round(b, 1)) for a, b in times]}")
    (pw, pc), (xw, xc) = base["puretree.dask"], base["xgboost.dask"]
    print(f"ratio puretree / xgboost: wall {pw / xw:.2f}x, CPU {pc / xc:.2f}x; dask bin_edges {t_edges:.2f} s (not in puretree's time)")
    if same is not None:
        print(f"puretree.dask model == puretree.hist_gradient_boosting(bins=edges) in memory: {same}")
    for address, (mb, maxrss) in sorted(peaks.items()):
        print(f"worker {address}: peak RSS {maxrss:.0f} MB up to puretree's first fit's end (ru_maxrss; sampled: {mb:.0f} MB), {before[address]:.0f} MB before it (imports and its chunks); the training data is {data_mb:.0f} MB")
    with open("/proc/loadavg") as f:
        print(f"load average at the end: {f.read().split()[:3]}")
    return 0 if same in (None, True) else 1


if __name__ == "__main__":
    sys.exit(main())
