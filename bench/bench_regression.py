"""Regression trees: puretree's cart_regressor against scikit-learn's DecisionTreeRegressor.

Same data, same train/test split (75/25, seeded), same max_depth. Fits alternate between
the libraries and the medians of the fit times are compared, so machine load affects both
alike. Prints, per data set and depth: both test mean squared errors, their relative
difference (target: within 2%), the median fit times and their ratio.

    python bench/bench_regression.py                     # make_regression 100,000 x 20 and diabetes
    python bench/bench_regression.py --repeats 5 --depths 5 10 20
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from sklearn.datasets import load_diabetes, make_regression
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeRegressor

from puretree.grow import cart_regressor
from puretree.predict import predict


def _timed(fit):
    start = time.perf_counter()
    model = fit()
    return time.perf_counter() - start, model


def bench(name: str, X: np.ndarray, y: np.ndarray, depth: int | None, repeats: int, seed: int) -> str:
    X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=seed)
    ours, theirs = [], []
    for _ in range(repeats):
        t, ours_model = _timed(lambda: cart_regressor(X_train, y_train, max_depth=depth))
        ours.append(t)
        t, their_model = _timed(lambda: DecisionTreeRegressor(max_depth=depth, random_state=seed).fit(X_train, y_train))
        theirs.append(t)
    mse_ours = float(np.mean((predict(ours_model, X_test) - y_test) ** 2))
    mse_theirs = float(np.mean((their_model.predict(X_test) - y_test) ** 2))
    a, b = statistics.median(ours), statistics.median(theirs)
    return (
        f"| {name} | {X_train.shape[0]} x {X.shape[1]} | {depth if depth is not None else 'full'} | {mse_ours:.6g} | {mse_theirs:.6g} | "
        f"{100 * (mse_ours - mse_theirs) / mse_theirs:+.2f}% | {a:.3f} s | {b:.3f} s | {a / b:.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--depths", type=int, nargs="+", default=[5, 10])
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    X, y = make_regression(n_samples=100_000, n_features=20, n_informative=10, noise=10.0, random_state=args.seed)
    diabetes = load_diabetes()
    print("| data | train rows x features | max_depth | test MSE puretree | test MSE scikit-learn | difference | fit puretree | fit scikit-learn | time ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for depth in args.depths:
        print(bench("make_regression", X, y, depth, args.repeats, args.seed), flush=True)
    # scikit-learn compares float32 copies of X with its thresholds; on diabetes a single test
    # row between the float32 and the float64 midpoint moves the test error of a 111-row test
    # set by a few percent. The same data rounded to float32 first shows the trees' own error.
    rounded = diabetes.data.astype(np.float32).astype(np.float64)
    for depth in [3, *args.depths]:
        print(bench("diabetes", diabetes.data, diabetes.target, depth, args.repeats, args.seed), flush=True)
        print(bench("diabetes, X rounded to float32", rounded, diabetes.target, depth, args.repeats, args.seed), flush=True)


if __name__ == "__main__":
    main()
