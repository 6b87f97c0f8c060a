"""CART's cross-validated pruning on Weka's data sets: why the 1-SE rule costs accuracy, and how fast it runs.

Two parts, on the sets of ``bench_pruning.py`` (Weka's ARFF files, read as ``bench_j48.py`` does):

- **per fold** (``--folds-table``): the outer stratified 10-fold split of ``bench_pruning.py``
  (seed 0); inside each training part, ``cv_prune(cart(part), part, k=10)`` scores the weakest-link
  sequence once. Printed per outer fold: the standard error of the least CV error in rows
  (``sqrt(e (1 - e) / N) * N``), then for the least-error subtree (``choose_alpha``'s choice, ``se=0``),
  the 1-SE subtree (``se=1``) and ``se=0.5``: leaves, R^cv in rows, and held-out rows right.
- **speed** (10 folds on all rows, in one process, medians of ``--repeat`` runs, ratios): the 10
  fold trees' fits alone; then, the fold trees grown, the scoring of every candidate alpha on the
  held-out rows as it was before (each fold's tree pruned at each candidate and asked to predict:
  ``cost_complexity`` then ``predict_proba``, the reference the tests compare with) and now
  (``path_outputs``); the whole ``choose_alpha`` and ``cv_prune`` now (the fits and the scoring);
  and ``cv_depth`` growing each fold once per depth (any ``fit`` that is not the ``cart`` preset
  itself is grown so) against now.

``--impurity misclassification`` measures the per-fold table's weakest links with the
misclassification rate, as Breiman et al. do (scikit-learn and the defaults: the trees' Gini).

Run ``.venv/bin/python bench/bench_cv_pruning.py [--data labor breast-cancer] [--folds-table] [--no-speed]``
(needs ``liac-arff``, as ``make bench-j48``; not Weka). Fits run under a 4 GB address-space limit.
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

import puretree as pt  # noqa: E402
import puretree.prune.complexity as complexity  # noqa: E402
from bench_j48 import load  # noqa: E402
from puretree.fold import n_leaves  # noqa: E402
from puretree.impurity import misclassification  # noqa: E402
from puretree.predict import predict_proba  # noqa: E402

SETS = ["labor", "breast-cancer", "vote", "soybean", "credit-g"]
FOLDS = 10


def pruned_then_predicted(tree: Any, X: Any, alphas: Any, *, path: Any = None, impurity: Any = None) -> np.ndarray:
    """The reference for ``path_outputs``: prune at each alpha, then predict."""
    path = complexity.cost_complexity_path(tree, impurity=impurity) if path is None else path
    return np.stack([predict_proba(complexity.cost_complexity(tree, float(a), path=path), X) for a in alphas])


def per_fold(name: str, impurity: Any = None) -> None:
    X, y, kinds, _, _ = load(name)
    options = {"categorical": [c for c in X.columns if kinds[c] is not None]}
    ds = pt.as_dataset(X, y, **options)
    right = {"least": 0, "1-SE": 0, "0.5-SE": 0}
    print(f"\n{name} ({len(y)} rows)\n")
    print("| fold | SE (rows) | least: leaves, R^cv, right | 1-SE: leaves, R^cv, right | 0.5-SE: leaves, R^cv, right |")
    print("| ---: | ---: | ---: | ---: | ---: |")
    for f, (tr, te) in enumerate(pt.stratified_folds(ds.y, k=FOLDS, seed=0)):
        part, held = ds.subset(tr), ds.subset(te)
        full = pt.cart(part)
        out = complexity.cv_prune(full, part, k=FOLDS, impurity=impurity)
        half = complexity.cv_prune(full, part, k=FOLDS, se=0.5, impurity=impurity)
        n = part.n_rows
        cells = []
        for key, j in (("least", out.best), ("1-SE", out.chosen), ("0.5-SE", half.chosen)):
            tree = complexity.cost_complexity(full, float(out.alphas[j]), impurity=impurity)
            ok = int(np.sum(tree.predict(held) == held.labels()))
            right[key] += ok
            cells.append(f"{n_leaves(tree)}, {round(out.cv_error[j] * n)}/{n}, {ok}/{held.n_rows}")
        print(f"| {f} | {out.std_error[out.best] * n:.1f} | " + " | ".join(cells) + " |", flush=True)
    print(f"\n{name}: outer 10-fold accuracy " + ", ".join(f"{k} {100 * v / len(y):.1f}" for k, v in right.items()))


def median_seconds(run: Any, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        run()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def speed(name: str, repeat: int) -> None:
    X, y, kinds, _, _ = load(name)
    ds = pt.as_dataset(X, y, categorical=[c for c in X.columns if kinds[c] is not None])
    full = pt.cart(ds)
    alphas = complexity._candidates(complexity.cost_complexity_path(full))
    folds = pt.stratified_folds(ds.y, k=FOLDS, seed=0)
    fits = median_seconds(lambda: [pt.cart(ds.subset(tr)) for tr, _ in folds], repeat)
    trees = [(pt.cart(ds.subset(tr)), ds.subset(te)) for tr, te in folds]
    # Scoring every candidate on the held-out rows, the fold trees grown: the part that changed.
    before = median_seconds(lambda: [pruned_then_predicted(t, held, alphas) for t, held in trees], repeat)
    now = median_seconds(lambda: [complexity.path_outputs(t, held, alphas) for t, held in trees], repeat)
    whole = {
        "choose_alpha": median_seconds(lambda: complexity.choose_alpha(ds, fit=pt.cart, k=FOLDS), repeat),
        "cv_prune": median_seconds(lambda: complexity.cv_prune(full, ds, fit=pt.cart, k=FOLDS), repeat),
    }
    not_the_preset = lambda *a, **kw: pt.cart(*a, **kw)  # noqa: E731  # grown once per depth
    depth_before = median_seconds(lambda: complexity.cv_depth(ds, fit=not_the_preset, k=FOLDS), repeat)
    depth_now = median_seconds(lambda: complexity.cv_depth(ds, fit=pt.cart, k=FOLDS), repeat)
    print(f"| {name} | {len(alphas)} | {fits:.2f} | {before:.3f} | {now:.3f} | {before / now:.0f} | {whole['choose_alpha']:.2f} | {whole['cv_prune']:.2f} "
          f"| {depth_before:.2f} | {depth_now:.2f} | {depth_before / depth_now:.1f} |", flush=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", nargs="+", choices=SETS, default=SETS, help="which of Weka's data sets")
    parser.add_argument("--folds-table", action="store_true", help="also print the per-fold table")
    parser.add_argument("--impurity", choices=["misclassification"],
                        help="per-fold table: measure the weakest links with the misclassification rate (CART's R(t)) instead of the trees' Gini")
    parser.add_argument("--speed", action=argparse.BooleanOptionalAction, default=True, help="time the functions (default: yes)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per timing (the median is printed)")
    args = parser.parse_args()
    resource.setrlimit(resource.RLIMIT_AS, (4 * 10**9, 4 * 10**9))
    if args.speed:
        print("| data | candidates | 10 fold fits, s | scoring: before, s | now, s | ratio | choose_alpha, s | cv_prune, s | cv_depth: before, s | now, s | ratio |")
        print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for name in args.data:
            speed(name, args.repeat)
    if args.folds_table:
        impurity = misclassification if args.impurity else None
        for name in args.data:
            per_fold(name, impurity)
    return 0


if __name__ == "__main__":
    sys.exit(main())
