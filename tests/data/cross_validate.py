"""10-fold stratified cross-validated accuracy of puretree on Weka's data sets with missing values.

    python tests/data/cross_validate.py

Prints one Markdown table row per data set (the figures of docs/real-data.md): c45
(unpruned, missing values distributed), c45 followed by C4.5's pessimistic pruning at
cf=0.25 (what J48 does by default), and cart with missing values sent to the majority branch.
Folds: puretree.evaluate.stratified_folds, seed 0.
"""

from __future__ import annotations

from functools import partial
from pathlib import Path

#: (file stem, class column, nominal columns whose values look like numbers).
DATASETS = (
    ("breast-cancer", "Class", ("deg-malig",)),
    ("vote", "Class", ()),
    ("soybean", "class", ()),
    ("credit-g", "class", ()),
    ("labor", "class", ()),
)

HERE = Path(__file__).parent


def load(stem: str):
    """The shipped CSV of a data set as a puretree Dataset."""
    from puretree.data import read_csv

    for name, target, categorical in DATASETS:
        if name == stem:
            return read_csv(HERE / f"{stem}.csv", target=target, categorical=categorical or None)
    raise KeyError(stem)


def _pruned_c45(train):
    from puretree.grow import c45
    from puretree.prune import pessimistic

    return pessimistic(c45(train), cf=0.25)


def main() -> None:
    import numpy as np

    from puretree.evaluate import cross_validate
    from puretree.grow import c45, cart

    learners = (("c45", c45), ("c45 + pessimistic", _pruned_c45), ("cart (majority)", partial(cart, missing="majority")))
    print("| data set | rows | missing cells | " + " | ".join(name for name, _ in learners) + " |")
    print("|---|---|---|" + "---|" * len(learners))
    for stem, _, _ in DATASETS:
        data = load(stem)
        missing = int(np.isnan(data.X).sum())
        cells = [f"{100 * cross_validate(fit, data, k=10, seed=0).mean:.1f}%" for _, fit in learners]
        print(f"| {stem} | {data.n_rows} | {missing} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
