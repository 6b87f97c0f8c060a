"""Every pruning method on one data set, side by side: leaves, depth, validation and test accuracy.

    python examples/pruning_table.py                 # print the table (docs/pruning.md shows it)
    python examples/pruning_table.py --out DIR       # also write DIR/{train,validation,test}.csv

The data are synthetic and seeded: two numeric features and one categorical, the class is
``(x + y > 10) XOR (colour == "red")`` with 20% of the labels flipped, so a fully grown tree
fits a lot of noise. The tree is grown on the training part; reduced-error pruning and the
"on validation" alpha look at the validation part; the test part is looked at by nothing
but the last column, which is therefore the honest one.
"""

from __future__ import annotations

import argparse
import csv
import os
from typing import Any

import numpy as np

from puretree.data import from_rows
from puretree.evaluate import accuracy
from puretree.fold import depth, n_leaves
from puretree.grow import cart
from puretree.tree import Tree
from puretree.prune import (
    chi_square_test,
    choose_alpha,
    cost_complexity,
    cost_complexity_path,
    penalty,
    pessimistic,
    reduced_error,
    simplify,
)

COLOURS = ("blue", "green", "red", "yellow")


def make_rows(rng: np.random.Generator, n: int) -> tuple[list[dict[str, Any]], list[str]]:
    x = np.round(rng.uniform(0, 10, n), 2)
    y = np.round(rng.uniform(0, 10, n), 2)
    colour = rng.choice(COLOURS, n)
    label = ((x + y > 10) ^ (colour == "red")) ^ (rng.random(n) < 0.2)
    rows = [{"x": float(a), "y": float(b), "colour": str(c)} for a, b, c in zip(x, y, colour)]
    return rows, ["yes" if v else "no" for v in label]


def write(path: str, rows: list[dict[str, Any]], labels: list[str]) -> None:
    with open(path, "w", newline="") as fh:
        out = csv.writer(fh)
        out.writerow(["x", "y", "colour", "label"])
        out.writerows([r["x"], r["y"], r["colour"], l] for r, l in zip(rows, labels))


def best_alpha_on(tree: Tree, rows: list[dict[str, Any]], labels: list[str]) -> float:
    """What `puretree prune --method cost-complexity --validation` does: the path's alpha most
    accurate on the validation rows (ties: the larger alpha)."""
    path = cost_complexity_path(tree)
    scored = [(accuracy(labels, cost_complexity(tree, a, path=path).predict(rows).tolist()), a) for a in path.ccp_alphas]
    return float(max(scored)[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", metavar="DIR", help="write the three CSV files here")
    args = parser.parse_args()

    rng = np.random.default_rng(2024)
    train_rows, train_y = make_rows(rng, 600)
    valid_rows, valid_y = make_rows(rng, 300)
    test_rows, test_y = make_rows(rng, 2000)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        for name, rows, labels in (("train", train_rows, train_y), ("validation", valid_rows, valid_y), ("test", test_rows, test_y)):
            write(os.path.join(args.out, f"{name}.csv"), rows, labels)

    train = from_rows(train_rows, train_y, target="label")
    full = cart(train)
    choice = choose_alpha(train, fit=cart, k=5, seed=0)
    on_valid = best_alpha_on(full, valid_rows, valid_y)
    methods = [
        ("none (cart, fully grown)", full),
        ("simplify", simplify(full)),
        ("reduced-error (validation)", reduced_error(full, valid_rows, valid_y)),
        ("pessimistic, cf = 0.25", pessimistic(full)),
        ("pessimistic, cf = 0.05", pessimistic(full, cf=0.05)),
        ("penalty, 0.5 per leaf", penalty(full, per_leaf=0.5)),
        ("penalty, 1 per leaf", penalty(full, per_leaf=1.0)),
        ("penalty, 2 per leaf", penalty(full, per_leaf=2.0)),
        (f"cost-complexity, alpha = {on_valid:.4g} (best on validation)", cost_complexity(full, on_valid)),
        (f"cost-complexity, alpha = {choice.best_alpha:.4g} (5-fold CV on train)", choice.tree),
        ("chi-square pre-pruning, 5% (grow)", cart(train, accept=chi_square_test(0.05))),
        ("chi-square pre-pruning, 1% (grow)", cart(train, accept=chi_square_test(0.01))),
    ]
    print("| pruning | leaves | depth | validation accuracy | test accuracy |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, tree in methods:
        v = accuracy(valid_y, tree.predict(valid_rows).tolist())
        t = accuracy(test_y, tree.predict(test_rows).tolist())
        print(f"| {name} | {n_leaves(tree)} | {depth(tree)} | {v:.4f} | {t:.4f} |")


if __name__ == "__main__":
    main()
