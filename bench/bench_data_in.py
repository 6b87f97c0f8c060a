"""Data in, side by side (issue 26): a DataFrame against the same rows as a float64 ndarray,
and ``puretree.read_csv`` against ``pandas.read_csv``.

Run::

    .venv/bin/python bench/bench_data_in.py [--rows 300000] [--repeats 3] [--only frames|csv]

- **frames**: 300,000 x 20 rows (seed 0), once as a float64 frame and once as 15 float64
  columns and 5 ``category`` columns of the integers 0-4 (so that the ndarray of the same rows
  holds the category codes as numbers, which the same tree reads as the same categories).
  Each call (``predict``, ``predict_proba``, ``apply``, fitting ``cart(max_depth=8)``, and
  ``TreeClassifier``'s ``fit``/``predict``/``predict_proba``/``apply``/``decision_path``/``score``;
  for the category frame, the estimator fitted on the frame is given both inputs) is timed on the frame and on the
  ndarray in alternation; the figure is the median of ``--repeats`` rounds, and the ratio
  frame / ndarray (the issue asks for at most 1.5).
- **csv**: a file of 300,000 rows, 20 float64 columns and a 0/1 target (seed 0,
  comma-separated) is written to a temporary directory; ``puretree.read_csv(path,
  target="y")`` and ``pandas.read_csv(path)`` are timed in alternation, medians of
  ``--repeats``; each one's peak memory is measured in a child process of its own (its peak
  resident size, ``getrusage(RUSAGE_CHILDREN).ru_maxrss``), beside the file's size.

- **j48** (``--only j48 --weka DIR``, DIR holding Debian's ``weka`` 3.6.14 package unpacked:
  ``apt-get download weka && dpkg -x weka_3.6.14-3_all.deb DIR``, no root needed, for its
  ``weka.jar``; the five ARFF files are read from ``tests/data``): ``puretree evaluate
  DATA.arff --cv 10 --algorithm c45 --prune pessimistic`` for the seeds 0-9 (their mean)
  beside Weka's ``J48 -x 10`` (its defaults: pruned, -C 0.25 -M 2) on credit-g, diabetes, vote,
  soybean and breast-cancer; the gate is at most 1 point below J48 (breast-cancer reported
  without a gate: its 286 rows move by about 2 points with the fold draw alone).

Every measurement runs in a child process under a memory limit (``RLIMIT_AS``, 6 GB).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 6 * 10**9


def _limit() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT, LIMIT))


def child(code: str) -> dict:
    """Run ``code`` (which prints one JSON object last) in a child under the memory limit;
    its output and its peak resident size in MB."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, preexec_fn=_limit, env=env, cwd=ROOT)
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024  # the largest child so far
    if out.returncode:
        raise SystemExit(f"child failed:\n{out.stderr[-3000:]}")
    return {"result": json.loads(out.stdout.strip().splitlines()[-1]), "peak_mb": peak}


FRAMES = r'''
import json, statistics, time, warnings
import numpy as np, pandas as pd, puretree as pt
from puretree.estimators import TreeClassifier

rows, repeats, kind = {rows}, {repeats}, {kind!r}
rng = np.random.default_rng(0)
X = rng.normal(size=(rows, 20))
if kind == "category":
    X[:, 15:] = rng.integers(0, 5, size=(rows, 5))
y = ((X[:, 0] + X[:, 1] + 0.3 * X[:, 15] + rng.normal(scale=0.5, size=rows)) > 1).astype(np.int64)
names = [f"x{{j}}" for j in range(20)]
df = pd.DataFrame(X, columns=names)
if kind == "category":
    for n in names[15:]:
        df[n] = pd.Categorical(df[n].astype(np.int64), categories=range(5))
    tree = pt.cart(df, y, max_depth=8)  # categorical splits on x15-x19
else:
    tree = pt.cart(X, y, feature_names=names, max_depth=8)
est_df = TreeClassifier(max_depth=8).fit(df, y)
# The float ndarray gets its own estimator (fitted on the ndarray); for the category frame, the
# estimator fitted on the frame itself reads the ndarray's codes as its integer categories 0-4
# (the same tree, the same answers: asserted below), so its methods are timed on both inputs.
est_np = TreeClassifier(max_depth=8).fit(X, y) if kind == "float" else est_df
warnings.simplefilter("ignore")  # scikit-learn's "X does not have valid feature names" (the ndarray, for est_df)

def timed(f):
    t = time.perf_counter(); f(); return time.perf_counter() - t

calls = {{
    "predict": (lambda: pt.predict(tree, df), lambda: pt.predict(tree, X)),
    "predict_proba": (lambda: pt.predict_proba(tree, df), lambda: pt.predict_proba(tree, X)),
    "apply": (lambda: pt.apply(tree, df), lambda: pt.apply(tree, X)),
    "fit cart(max_depth=8)": (lambda: pt.cart(df, y, max_depth=8), lambda: pt.cart(X, y, max_depth=8)),
    "TreeClassifier.fit": (lambda: TreeClassifier(max_depth=8).fit(df, y), lambda: TreeClassifier(max_depth=8).fit(X, y)),
    "TreeClassifier.predict": (lambda: est_df.predict(df), lambda: est_np.predict(X)),
    "TreeClassifier.predict_proba": (lambda: est_df.predict_proba(df), lambda: est_np.predict_proba(X)),
    "TreeClassifier.apply": (lambda: est_df.apply(df), lambda: est_np.apply(X)),
    "TreeClassifier.decision_path": (lambda: est_df.decision_path(df), lambda: est_np.decision_path(X)),
    "TreeClassifier.score": (lambda: est_df.score(df, y), lambda: est_np.score(X, y)),
}}
if kind == "category":
    # Categorical splits cost the grower more than numeric ones: the same tree from the ndarray
    # (its last 5 columns named categorical) is the like-for-like figure for fitting.
    calls["fit cart, ndarray categorical="] = (lambda: pt.cart(df, y, max_depth=8), lambda: pt.cart(X, y, feature_names=names, categorical=names[15:], max_depth=8))
    assert (pt.predict(tree, df) == pt.predict(tree, X)).all()
    assert (est_df.predict_proba(df) == est_df.predict_proba(X)).all() and (est_df.apply(df) == est_df.apply(X)).all()
out = {{}}
for name, (on_df, on_np) in calls.items():
    a, b = [], []
    for _ in range(repeats):
        a.append(timed(on_df)); b.append(timed(on_np))
    out[name] = (statistics.median(a), statistics.median(b))
print(json.dumps(out))
'''

WRITE = r'''
import numpy as np
rng = np.random.default_rng(0)
X = rng.normal(size=({rows}, 20))
y = (X[:, 0] + rng.normal(size={rows}) > 0).astype(int)
with open({path!r}, "w") as fh:
    fh.write(",".join([f"x{{j}}" for j in range(20)] + ["y"]) + "\n")
    for r, t in zip(X.tolist(), y.tolist()):
        fh.write(",".join(map(repr, r)) + f",{{t}}\n")
print("{{}}")
'''

READ = r'''
import json, sys, time
sys.setrecursionlimit(10000)
which, path = {which!r}, {path!r}
import pandas  # both readers use it: its import is not the reading
t = time.perf_counter()
if which == "puretree":
    import puretree as pt
    ds = pt.read_csv(path, target="y")
    assert ds.X.shape[1] == 20 and ds.schema.classes == (0, 1), ds.schema.classes
else:
    import pandas as pd
    pd.read_csv(path)
print(json.dumps(time.perf_counter() - t))
'''


def frames(rows: int, repeats: int) -> None:
    print(f"DataFrame against the same rows as a float64 ndarray ({rows:,} x 20; medians of {repeats} alternating runs)")
    for kind in ("float", "category"):
        run = child(FRAMES.format(rows=rows, repeats=repeats, kind=kind))
        label = "20 float64" if kind == "float" else "15 float64 + 5 category"
        print(f"  {label} columns")
        print(f"    {'call':<30} {'frame (s)':>10} {'ndarray (s)':>12} {'ratio':>7}")
        for name, (a, b) in run["result"].items():
            print(f"    {name:<30} {a:>10.3f} {b:>12.3f} {a / b:>7.2f}")


def csv(rows: int, repeats: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "data.csv")
        child(WRITE.format(rows=rows, path=path))
        size = os.path.getsize(path) / 2**20
        times: dict[str, list[float]] = {"puretree": [], "pandas": []}
        peaks: dict[str, list[float]] = {"puretree": [], "pandas": []}
        for _ in range(repeats):
            for which in ("puretree", "pandas"):
                # One child per read: its own peak resident size (ru_maxrss of the largest child so
                # far, so the reads run from the smaller one up: pandas first would hide nothing).
                code = READ.format(which=which, path=path)
                env = dict(os.environ, PYTHONPATH=str(ROOT))
                t = time.perf_counter()
                out = subprocess.run(
                    [sys.executable, "-c", f"import resource,subprocess,sys;p=subprocess.run([sys.executable,'-c',{code!r}],capture_output=True,text=True);"
                     "print(p.stdout.strip() or p.stderr[-2000:]);print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"],
                    capture_output=True, text=True, preexec_fn=_limit, env=env, cwd=ROOT,
                )
                lines = out.stdout.strip().splitlines()
                try:
                    times[which].append(float(lines[-2]))
                except ValueError:
                    raise SystemExit(f"{which} failed:\n{out.stdout}{out.stderr}") from None
                peaks[which].append(int(lines[-1]) / 1024)
        print(f"read_csv of {rows:,} rows x 20 float64 + a 0/1 target ({size:.1f} MB; medians of {repeats} alternating runs)")
        print(f"    {'reader':<22} {'time (s)':>9} {'peak RSS (MB)':>14} {'peak / file':>12}")
        for which in ("puretree", "pandas"):
            t, p = statistics.median(times[which]), statistics.median(peaks[which])
            print(f"    {which + '.read_csv':<22} {t:>9.3f} {p:>14.0f} {p / size:>12.2f}")
        ratio = statistics.median(times["puretree"]) / statistics.median(times["pandas"])
        print(f"    time ratio puretree / pandas: {ratio:.2f}")


J48_SETS = ("credit-g", "diabetes", "vote", "soybean", "breast-cancer")

J48_OURS = r'''
import contextlib, io, json, re
from puretree.cli import main
path, seeds = {path!r}, range(10)
scores = []
for seed in seeds:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["evaluate", path, "--cv", "10", "--algorithm", "c45", "--prune", "pessimistic", "--seed", str(seed)]) == 0
    scores.append(float(re.search(r"accuracy: ([0-9.]+)", out.getvalue()).group(1)))
print(json.dumps(scores))
'''


def j48_gate(weka: str) -> None:
    import re

    jar = os.path.join(weka, "usr/share/java/weka.jar")
    # The ARFF originals ship in tests/data (byte for byte the package's; tests/data/SOURCES.md):
    # only Weka itself comes from DIR.
    examples = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "tests", "data")
    print("J48's pipeline in one command: puretree evaluate DATA.arff --cv 10 --algorithm c45 --prune pessimistic")
    print(f"    {'data set':<15} {'J48 -x 10':>10} {'puretree (mean of seeds 0-9)':>29} {'difference':>11}  gate")
    for name in J48_SETS:
        path = os.path.join(examples, f"{name}.arff")
        weka_out = subprocess.run(["java", "-Xmx2g", "-cp", jar, "weka.classifiers.trees.J48", "-t", path, "-x", "10"], capture_output=True, text=True, check=True).stdout
        theirs = float(re.findall(r"Correctly Classified Instances\s+\d+\s+([0-9.]+)\s*%", weka_out.split("Stratified cross-validation")[1])[0])
        ours = 100 * statistics.mean(child(J48_OURS.format(path=path))["result"])
        gate = "n/a (no gate)" if name == "breast-cancer" else ("pass" if ours >= theirs - 1 else "FAIL")
        print(f"    {name:<15} {theirs:>9.2f}% {ours:>28.2f}% {ours - theirs:>+10.2f}  {gate}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=300_000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--only", choices=("frames", "csv", "j48"))
    parser.add_argument("--weka", metavar="DIR", help="Debian's weka package unpacked (for --only j48)")
    args = parser.parse_args()
    if args.only == "j48":
        if not args.weka:
            raise SystemExit("--only j48 needs --weka DIR (apt-get download weka; dpkg -x weka_3.6.14-3_all.deb DIR)")
        j48_gate(args.weka)
        return
    if args.only in (None, "frames"):
        frames(args.rows, args.repeats)
    if args.only in (None, "csv"):
        csv(args.rows, args.repeats)


if __name__ == "__main__":
    main()
