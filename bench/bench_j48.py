"""puretree's c45 against Weka's J48 (3.6.14, Debian's ``weka`` package), side by side.

For each of Weka's example data sets:

- **unpruned**: ``c45(min_samples_leaf=1, threshold="data")`` against ``J48 -U -M 1``: the share of
  a grid of unseen rows (each attribute drawn uniformly over its range or its values, seeded) on
  which the two predict the same class, and the leaf counts;
- **default**: ``pessimistic(c45(...), data, cf=0.25)`` (with subtree raising) against J48's
  defaults (``-C 0.25 -M 2``): leaf counts, and 10-fold stratified cross-validated accuracy
  (each with its own folds: Weka's seeded by 1, puretree's by 0).

Run it with ``make bench-j48`` (installs Debian's ``weka`` and ``liac-arff``, which reads every
ARFF file Weka ships; scipy's reader refuses some). Prints a Markdown table.
"""

from __future__ import annotations

import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import puretree as pt
from puretree.prune.raising import pessimistic_with_raising

EXAMPLES = Path("/usr/share/doc/weka/examples")
WEKA = "/usr/share/java/weka.jar"
SETS = ["weather.nominal", "weather.numeric", "contact-lenses", "labor", "iris", "glass", "diabetes", "breast-cancer", "vote", "credit-g", "ionosphere", "segment-challenge", "soybean"]
GRID = 2000


def load(name: str) -> tuple[pd.DataFrame, list[str], dict[str, list[str] | None], str, str]:
    """One of Weka's example files: features, labels, each attribute's declared values, the text."""
    import arff  # liac-arff: reads every file Weka ships (scipy's reader refuses some)

    text = (EXAMPLES / f"{name}.arff").read_text(encoding="utf-8", errors="replace")
    parsed = arff.loads(text)
    names = [a[0] for a in parsed["attributes"]]
    frame = pd.DataFrame(parsed["data"], columns=names)
    kinds = {a: (list(v) if isinstance(v, list) else None) for a, v in parsed["attributes"]}
    target = names[-1]
    X = frame.drop(columns=[target])
    for col in X.columns:
        if kinds[col] is None:
            X[col] = X[col].astype(float)
        else:  # every declared value is a category (a branch), as in J48
            X[col] = pd.Categorical(X[col], categories=kinds[col])
    return X, [str(v) for v in frame[target]], kinds, text, target


def j48(args: list[str], train: str, test: str | None = None) -> str:
    cmd = ["java", "-Xmx2g", "-cp", WEKA, "weka.classifiers.trees.J48", *args, "-t", train]
    if test is not None:
        cmd += ["-T", test, "-p", "0"]
    return subprocess.run(cmd, capture_output=True, text=True, check=True).stdout


def grid(X: pd.DataFrame, kinds: dict[str, list[str] | None], rng: np.random.Generator) -> pd.DataFrame:
    out = {}
    for col in X.columns:
        values = kinds[col]
        if values is None:
            known = X[col].dropna().to_numpy(dtype=float)
            out[col] = rng.uniform(known.min(), known.max(), GRID)
        else:
            seen = sorted(set(X[col].dropna()))
            out[col] = rng.choice(seen, GRID)
    return pd.DataFrame(out)


def q(text: str) -> str:
    return "'" + str(text).replace("\\", "\\\\").replace("'", "\\'") + "'"


def to_arff(frame: pd.DataFrame, kinds: dict[str, list[str] | None], target: str, classes: list[str], path: Path, labels: list[str] | None = None) -> None:
    lines = ["@relation grid"]
    for col in frame.columns:
        values = kinds[col]
        lines.append(f"@attribute {q(col)} " + ("numeric" if values is None else "{" + ",".join(q(v) for v in values) + "}"))
    lines.append(f"@attribute {q(target)} " + "{" + ",".join(q(c) for c in classes) + "}")
    lines.append("@data")
    for i, row in enumerate(frame.itertuples(index=False)):
        cells = ["?" if pd.isna(v) else repr(float(v)) if kinds[c] is None else q(v) for c, v in zip(frame.columns, row)]
        lines.append(",".join(cells + [q(classes[0] if labels is None else labels[i])]))
    path.write_text("\n".join(lines) + "\n")


def predictions(output: str, classes: list[str]) -> list[str]:
    """J48's predicted classes from ``-p 0`` output (by index: Weka shortens the names)."""
    out = []
    for line in output.splitlines():
        found = re.findall(r"(\d+):", line)
        if re.match(r"\s*\d+\s", line) and len(found) >= 2:
            out.append(classes[int(found[1]) - 1])  # inst#, actual, predicted
    return out


def weka_leaves(output: str) -> int:
    """Leaves of J48's printed tree that hold training weight (J48 also prints empty ones)."""
    tree = output.split("------------------", 1)[1].split("Number of Leaves", 1)[0]
    return len(re.findall(r": [^\n]*\((?!0\.0\))[\d.]+(/[\d.]+)?\)", tree))


def leaves(tree: pt.Tree) -> int:
    return sum(1 for node in pt.iter_nodes(tree) if isinstance(node, pt.Leaf) and sum(node.counts) > 0)


def main() -> None:
    rng = np.random.default_rng(0)
    print("| data | rows | unpruned: same prediction on the grid | unpruned leaves c45 / J48 -U -M 1 | pruned leaves c45 + pessimistic / J48 | 10-fold CV accuracy, same folds: c45 / J48 |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    with tempfile.TemporaryDirectory() as tmp:
        for name in SETS:
            try:
                X, y, kinds, text, target = load(name)
            except FileNotFoundError:
                continue
            train = Path(tmp) / f"{name}.arff"
            train.write_text(text)
            categorical = [c for c in X.columns if kinds[c] is not None]
            labels = y
            options = {"categorical": categorical}
            unpruned = pt.c45(X, labels, min_samples_leaf=1, threshold="data", **options)
            g = grid(X, kinds, rng)
            gpath = Path(tmp) / f"{name}-grid.arff"
            to_arff(g, kinds, target, kinds[target], gpath)
            weka_u = predictions(j48(["-U", "-M", "1"], str(train), str(gpath)), kinds[target])
            ours_u = [str(v) for v in unpruned.predict(g)]
            agree = np.mean([a == b for a, b in zip(ours_u, weka_u)]) if weka_u else float("nan")
            leaves_u = weka_leaves(j48(["-U", "-M", "1"], str(train)))
            grown = pt.c45(X, labels, threshold="data", **options)
            pruned = pessimistic_with_raising(grown, X, labels)
            default_out = j48([], str(train))
            leaves_d = weka_leaves(default_out)
            # Cross-validation on the same stratified folds for both (puretree's, seed 0).
            ds = pt.as_dataset(X, labels, **options)
            right_ours = right_weka = 0
            for _, fold in pt.stratified_folds(ds.y, k=10, seed=0):
                test = np.zeros(len(X), dtype=bool)
                test[fold] = True
                tr, te = X[~test].reset_index(drop=True), X[test].reset_index(drop=True)
                ytr, yte = [labels[i] for i in np.flatnonzero(~test)], [labels[i] for i in np.flatnonzero(test)]
                model = pessimistic_with_raising(pt.c45(tr, ytr, threshold="data", **options), tr, ytr)
                right_ours += int(np.sum(np.asarray(model.predict(te), dtype=str) == np.asarray(yte)))
                to_arff(tr, kinds, target, kinds[target], Path(tmp) / "tr.arff", ytr)
                to_arff(te, kinds, target, kinds[target], Path(tmp) / "te.arff", yte)
                weka = predictions(j48([], str(Path(tmp) / "tr.arff"), str(Path(tmp) / "te.arff")), kinds[target])
                right_weka += sum(a == b for a, b in zip(weka, yte))
            acc, cv = right_ours / len(X), right_weka / len(X)
            print(f"| {name} | {len(X)} | {agree:.1%} | {leaves(unpruned)} / {leaves_u} | {leaves(pruned)} / {leaves_d} | {100 * acc:.1f} / {100 * cv:.1f} |", flush=True)


if __name__ == "__main__":
    sys.exit(main())
