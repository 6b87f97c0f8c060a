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


def bench(name: str, X: np.ndarray, y: np.ndarray, depth: int | None, repeats: int, seed: int, splits: int = 1) -> str:
    """One table row. With ``splits > 1`` the test errors are means over that many seeded
    train/test splits (scikit-learn's random_state follows the split), which keeps one test
    row sitting near a threshold from deciding the comparison on small data."""
    ours, theirs, mse_ours, mse_theirs = [], [], [], []
    for split in range(splits):
        X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=seed + split)
        for _ in range(repeats if split == 0 else 1):
            t, ours_model = _timed(lambda: cart_regressor(X_train, y_train, max_depth=depth))
            ours.append(t)
            t, their_model = _timed(lambda: DecisionTreeRegressor(max_depth=depth, random_state=seed + split).fit(X_train, y_train))
            theirs.append(t)
        mse_ours.append(float(np.mean((predict(ours_model, X_test) - y_test) ** 2)))
        mse_theirs.append(float(np.mean((their_model.predict(X_test) - y_test) ** 2)))
    a, b = statistics.median(ours), statistics.median(theirs)
    m_ours, m_theirs = statistics.fmean(mse_ours), statistics.fmean(mse_theirs)
    label = name if splits == 1 else f"{name} (mean of {splits} splits)"
    return (
        f"| {label} | {X_train.shape[0]} x {X.shape[1]} | {depth if depth is not None else 'full'} | {m_ours:.6g} | {m_theirs:.6g} | "
        f"{100 * (m_ours - m_theirs) / m_theirs:+.2f}% | {a:.3f} s | {b:.3f} s | {a / b:.2f} |"
    )


def sklearn_spread(name: str, X: np.ndarray, y: np.ndarray, depth: int, splits: int, states: int = 10) -> str:
    """scikit-learn's own test error over ``states`` random_states (it breaks ties between
    equally good splits at random): the range a different, equally valid tie-break lands in."""
    means = []
    for state in range(states):
        errors = []
        for split in range(splits):
            X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.25, random_state=split)
            model = DecisionTreeRegressor(max_depth=depth, random_state=state).fit(X_train, y_train)
            errors.append(float(np.mean((model.predict(X_test) - y_test) ** 2)))
        means.append(statistics.fmean(errors))
    return f"{name}, max_depth {depth}: scikit-learn's mean test MSE over random_state 0..{states - 1}: min {min(means):.6g}, median {statistics.median(means):.6g}, max {max(means):.6g}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--depths", type=int, nargs="+", default=[5, 10])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--splits", type=int, default=20, help="train/test splits averaged on the small diabetes data")
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
        print(bench("diabetes", diabetes.data, diabetes.target, depth, args.repeats, args.seed, splits=args.splits), flush=True)
        print(bench("diabetes, X rounded to float32", rounded, diabetes.target, depth, args.repeats, args.seed, splits=args.splits), flush=True)
    print()
    for depth in [3, *args.depths]:
        print(sklearn_spread("diabetes, X rounded to float32", rounded, diabetes.target, depth, args.splits), flush=True)


if __name__ == "__main__":
    main()
