"""Fit time of puretree's CART against scikit-learn's DecisionTreeClassifier, side by side.

Both grow fully grown Gini trees on the same make_classification data in the same process;
runs alternate between the libraries and the medians are compared, so machine load affects
both alike. Prints one line per data set: medians, their ratio and both trees' node counts.

    python bench/bench_fit.py                      # 100,000 x 20 and 1,000,000 x 10
    python bench/bench_fit.py --sizes 100000x20 --repeats 5
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from sklearn.datasets import make_classification
from sklearn.tree import DecisionTreeClassifier

import puretree as pt


def size(text: str) -> tuple[int, int]:
    rows, _, cols = text.partition("x")
    try:
        return int(rows), int(cols)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected ROWSxCOLUMNS such as 100000x20, got {text!r}") from None


def timed(fit, X: np.ndarray, y: np.ndarray) -> tuple[float, object]:
    start = time.perf_counter()
    model = fit(X, y)
    return time.perf_counter() - start, model


def bench(rows: int, cols: int, repeats: int, seed: int) -> dict[str, object]:
    X, y = make_classification(n_samples=rows, n_features=cols, n_informative=min(cols, max(2, cols // 2)), random_state=seed)
    ours, theirs = [], []
    pt.cart(X[:200], y[:200])  # untimed warm-up: the compiled kernel checked and loaded
    for _ in range(repeats):
        t, clf = timed(lambda a, b: DecisionTreeClassifier(random_state=seed).fit(a, b), X, y)
        theirs.append(t)
        t, tree = timed(lambda a, b: pt.cart(a, b), X, y)
        ours.append(t)
    agree = float(np.mean(pt.predict(tree, X[:20_000]) == clf.predict(X[:20_000])))
    return {
        "data": f"{rows:,} x {cols}",
        "puretree_s": statistics.median(ours),
        "sklearn_s": statistics.median(theirs),
        "ratio": statistics.median(ours) / statistics.median(theirs),
        "puretree_nodes": pt.n_nodes(tree),
        "sklearn_nodes": int(clf.tree_.node_count),
        "train_agreement": agree,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=size, nargs="+", default=[(100_000, 20), (1_000_000, 10)])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    print(f"{'data':>16}  {'puretree':>9}  {'sklearn':>9}  {'ratio':>6}  {'nodes (pt / sk)':>16}  agreement")
    for rows, cols in args.sizes:
        r = bench(rows, cols, args.repeats, args.seed)
        print(f"{r['data']:>16}  {r['puretree_s']:8.2f}s  {r['sklearn_s']:8.2f}s  {r['ratio']:6.2f}  "
              f"{r['puretree_nodes']:>7} / {r['sklearn_nodes']:<7}  {r['train_agreement']:.4f}", flush=True)


if __name__ == "__main__":
    main()
