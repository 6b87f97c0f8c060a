"""MML and cross-validated pruning against Weka's J48 and CART's cost-complexity, side by side.

On Weka's data sets shipped in ``tests/data`` (read from Weka's own ARFF files, as
``bench_j48.py`` does), every method is measured on the same stratified 10-fold split
(puretree's ``stratified_folds``, seed 0); J48 is run by Weka on each fold's training rows:

- **J48**: Weka's J48 with its defaults (``-C 0.25 -M 2``); leaves of the tree grown on all rows;
- **MML**: ``mml_prune(c45(X, y, threshold="data"), X, alpha=A, code=C)``: C4.5 grown as J48 grows
  it unpruned, then pruned by Wallace and Patrick's message length (``puretree.prune.mml``; ``--mml-alpha``:
  the leaves' Dirichlet concentration, default 1; ``--mml-code``: ``flat`` or ``wallace-patrick``);
- **MML stop**: ``c45(..., accept=mml_stop(alpha=A))``: growth stopped by the same message length
  (the stopping hook has the flat code only);
- **CC (CV alpha)**: ``choose_alpha(X, y, fit=cart, k=10).tree``: CART's tree pruned at the alpha of
  best 10-fold cross-validated accuracy (the folds inside each training part: nested);
- **CV 1-SE**: ``cv_prune(cart(X, y), X, y, k=10).tree``: the weakest-link subtree whose 10-fold
  cross-validated error is within one standard error of the least (Breiman's 1-SE rule);
- **depth by CV**: ``cv_depth(X, y, fit=cart, k=10).tree``: growth stopped once 10-fold CV
  accuracy worsens.

It prints one Markdown table and the acceptance checks of issue 15: MML trees with no more
leaves than J48's, their accuracy at most 2 points below J48's; CV 1-SE at most 1 point below
cost-complexity with a CV-chosen alpha. Run it with ``.venv/bin/python bench/bench_pruning.py``
(needs Debian's ``weka`` and ``liac-arff``, as ``make bench-j48``). Fits run under a 6 GB address-space limit.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import puretree as pt  # noqa: E402
from bench_j48 import j48, leaves, load, predictions, to_arff, weka_leaves  # noqa: E402
from puretree.prune.complexity import choose_alpha, cv_depth, cv_prune  # noqa: E402
from puretree.prune.mml import CODES, mml_prune, mml_stop  # noqa: E402

SETS = ["labor", "breast-cancer", "vote", "soybean", "credit-g"]  # tests/data's Weka sets
FOLDS = 10


def methods(options: dict, mml_alpha: float = 1.0, mml_code: str = "flat") -> dict:
    """name -> fit(X, y): each a function of the training rows only."""

    def mml(X, y):
        return mml_prune(pt.c45(X, y, threshold="data", **options), X, alpha=mml_alpha, code=mml_code)

    def mml_stopped(X, y):
        return pt.c45(X, y, threshold="data", accept=mml_stop(alpha=mml_alpha), **options)

    def cc(X, y):
        return choose_alpha(pt.as_dataset(X, y, **options), fit=pt.cart, k=FOLDS).tree

    def cv1se(X, y):
        data = pt.as_dataset(X, y, **options)
        return cv_prune(pt.cart(data), data, fit=pt.cart, k=FOLDS).tree

    def depth(X, y):
        return cv_depth(pt.as_dataset(X, y, **options), fit=pt.cart, k=FOLDS).tree

    return {"MML": mml, "MML stop": mml_stopped, "CC (CV alpha)": cc, "CV 1-SE": cv1se, "depth by CV": depth}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", nargs="+", choices=SETS, default=SETS, help="which of Weka's data sets")
    parser.add_argument("--methods", nargs="+", choices=list(methods({})), default=list(methods({})),
                        help="which puretree methods (J48 always runs)")
    parser.add_argument("--mml-alpha", type=float, default=1.0, help="MML: the leaves' Dirichlet concentration (default: 1)")
    parser.add_argument("--mml-code", choices=CODES, default="flat", help="MML: the code of the tree's shape and cuts (default: flat)")
    args = parser.parse_args()
    if any(m.startswith("MML") for m in args.methods):
        print(f"MML: alpha={args.mml_alpha:g}, code={args.mml_code}\n")
    # 6 GB of address space: bounds the fits, and leaves room for the JVM that Weka runs in
    # (it reserves its 2 GB heap and class space up front).
    resource.setrlimit(resource.RLIMIT_AS, (6 * 10**9, 6 * 10**9))
    names = ["J48", *args.methods]
    print("| data | rows | " + " | ".join(f"{n}: leaves, CV acc." for n in names) + " |")
    print("| --- | ---: | " + " | ".join("---:" for _ in names) + " |")
    checks = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.data:
            X, y, kinds, text, target = load(name)
            options = {"categorical": [c for c in X.columns if kinds[c] is not None]}
            train_path = Path(tmp) / f"{name}.arff"
            train_path.write_text(text)
            fits = {m: f for m, f in methods(options, args.mml_alpha, args.mml_code).items() if m in args.methods}
            size = {"J48": weka_leaves(j48([], str(train_path)))}
            seconds = {}
            for m, fit in fits.items():
                t0 = time.perf_counter()
                size[m] = leaves(fit(X, y))
                seconds[m] = time.perf_counter() - t0
            right = dict.fromkeys(names, 0)
            ds = pt.as_dataset(X, y, **options)
            for tr_idx, te_idx in pt.stratified_folds(ds.y, k=FOLDS, seed=0):
                tr, te = X.iloc[tr_idx].reset_index(drop=True), X.iloc[te_idx].reset_index(drop=True)
                ytr, yte = [y[i] for i in tr_idx], [y[i] for i in te_idx]
                to_arff(tr, kinds, target, kinds[target], Path(tmp) / "tr.arff", ytr)
                to_arff(te, kinds, target, kinds[target], Path(tmp) / "te.arff", yte)
                weka = predictions(j48([], str(Path(tmp) / "tr.arff"), str(Path(tmp) / "te.arff")), kinds[target])
                right["J48"] += sum(a == b for a, b in zip(weka, yte))
                for m, fit in fits.items():
                    guess = np.asarray(fit(tr, ytr).predict(te), dtype=str)
                    right[m] += int(np.sum(guess == np.asarray(yte)))
            acc = {m: 100 * right[m] / len(y) for m in names}
            print(f"| {name} | {len(y)} | " + " | ".join(f"{size[m]}, {acc[m]:.1f}" for m in names) + " |", flush=True)
            checks.append((name, size, acc, seconds))
    print()
    ok = True
    for name, size, acc, seconds in checks:
        said = []
        if "MML" in size:
            mml_leaves = size["MML"] <= size["J48"]
            mml_acc = acc["MML"] >= acc["J48"] - 2
            ok &= mml_leaves and mml_acc
            said.append(f"MML leaves {size['MML']} <= J48 {size['J48']}: {mml_leaves}; "
                        f"MML accuracy {acc['MML']:.1f} >= J48 {acc['J48']:.1f} - 2: {mml_acc}")
        if "CV 1-SE" in size and "CC (CV alpha)" in size:
            cv_acc = acc["CV 1-SE"] >= acc["CC (CV alpha)"] - 1
            ok &= cv_acc
            said.append(f"CV 1-SE {acc['CV 1-SE']:.1f} >= CC {acc['CC (CV alpha)']:.1f} - 1: {cv_acc}")
        said.append("one fit on all rows, s: " + ", ".join(f"{m} {s:.2f}" for m, s in seconds.items()))
        print(f"{name}: " + "; ".join(said))
    print("all checks hold" if ok else "SOME CHECKS FAIL")
    return 0


if __name__ == "__main__":
    sys.exit(main())
