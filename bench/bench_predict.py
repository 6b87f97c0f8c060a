"""Python prediction speed side by side: generated Python against m2cgen's, the library's one row
and its batches against scikit-learn, on the same trees, in one process.

Run (m2cgen from PyPI, benchmarks only: ``bash bench/setup_codegen.sh`` installs it, or
``.venv/bin/pip install m2cgen``)::

    .venv/bin/python bench/bench_predict.py [--quick]

Trees: breast_cancer fully grown; depth 12 and fully grown on 100,000 x 20
make_classification (scikit-learn fits them; ``from_sklearn`` converts them, so both decide
alike). Every time is the median of several repeats; ratios are puretree / peer, so below 1
means puretree is faster. Predictions are compared, not timed, for equality first.

- **generated Python, per row**: puretree's ``predict(row)`` (the default form, a row as a
  list) against m2cgen's ``score(row)`` followed by an argmax of its scores, on the same rows;
- **library, one row**: ``puretree.predict(tree, mapping)`` and ``puretree.predict(tree,
  1-row array)`` beside scikit-learn's ``predict`` on a 1-row array;
- **library, batch**: ``puretree.predict`` on 100,000 rows against scikit-learn's ``predict``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import timeit
from pathlib import Path

from sklearn.datasets import load_breast_cancer, make_classification
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import puretree  # noqa: E402
from puretree.codegen import generate  # noqa: E402
from puretree.codegen.verify import load_python  # noqa: E402
from puretree.sklearn import from_sklearn  # noqa: E402


def trees(quick: bool):
    """(name, estimator, rows to time one by one, batch rows)."""
    X, y = load_breast_cancer(return_X_y=True)
    yield "breast_cancer (full)", DecisionTreeClassifier(random_state=0).fit(X, y), X, X
    n = 20_000 if quick else 100_000
    X, y = make_classification(n_samples=n, n_features=20, n_informative=10, random_state=0)
    yield f"synthetic {n}x20 (depth 12)", DecisionTreeClassifier(max_depth=12, random_state=0).fit(X, y), X[:2000], X
    yield f"synthetic {n}x20 (full)", DecisionTreeClassifier(random_state=0).fit(X, y), X[:2000], X


def side_by_side(ours, theirs, *, rounds: int, per_round: int = 1) -> tuple[float, float]:
    """Seconds per call of each, timed in alternation (a busy machine slows both alike):
    the median over ``rounds`` rounds of ``per_round`` calls each."""
    a, b = [], []
    for _ in range(rounds):
        a.append(timeit.timeit(ours, number=per_round))
        b.append(timeit.timeit(theirs, number=per_round))
    return statistics.median(a) / per_round, statistics.median(b) / per_round


def m2cgen_score(est, work: Path):
    import m2cgen

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 100_000))
    source = m2cgen.export_to_python(est)
    path = work / "m2c_model.py"
    path.write_text(source)
    namespace: dict = {}
    exec(compile(source, str(path), "exec"), namespace)
    return namespace["score"]


def argmax(scores):
    # m2cgen's score returns the class probabilities; the label needs an argmax (the first
    # maximum, as scikit-learn's), here the fastest in plain Python.
    return scores.index(max(scores))


def bench(name, est, sample, batch, work: Path, lines: list[str]) -> None:
    tree = from_sklearn(est)
    names = tree.schema.feature_names
    classes = est.classes_
    rows = sample.tolist()
    mappings = [dict(zip(names, r)) for r in rows]
    module = load_python(generate(tree, "python", name="pt")["pt.py"], work)
    form = "table" if "while node" in generate(tree, "python")["tree.py"] else "nested"
    score = m2cgen_score(est, work)
    want = est.predict(sample).tolist()
    assert [module.predict(r) for r in rows] == want, "generated Python disagrees with scikit-learn"
    assert [classes[argmax(score(r))] for r in rows] == want, "m2cgen disagrees with scikit-learn"
    assert puretree.predict(tree, batch).tolist() == est.predict(batch).tolist(), "the library disagrees with scikit-learn"
    assert [puretree.predict(tree, m) for m in mappings[:200]] == want[:200]

    predict = module.predict
    chunks = [rows[i: i + 100] for i in range(0, len(rows), 100)]
    mine, peer = [], []
    for n in range(5):  # many short rounds, alternating: a preempted round is an outlier
        for i, chunk in enumerate(chunks):
            # Who goes first alternates: the second to walk the same rows finds the CPU's
            # branch predictor trained on the same decisions (timing one function twice in a
            # row, the second run is 15-25% faster), so a fixed order favours the second.
            pair = [(mine, lambda: [predict(r) for r in chunk]), (peer, lambda: [argmax(score(r)) for r in chunk])]
            for times, run in pair if (i + n) % 2 == 0 else pair[::-1]:
                times.append(timeit.timeit(run, number=1) / len(chunk))
    ours, theirs = statistics.median(mine), statistics.median(peer)
    lines.append(f"| {name} | generated Python `predict(row)` ({form}) | {ours * 1e6:.2f} us | m2cgen `score` + argmax | {theirs * 1e6:.2f} us | {ours / theirs:.2f} |")

    one = batch[:1].copy()
    mapping = mappings[0]
    puretree.predict(tree, one)  # the first call compiles the tree: not timed
    lib_map, sk_one = side_by_side(lambda: puretree.predict(tree, mapping), lambda: est.predict(one), rounds=41, per_round=20)
    lib_arr, _ = side_by_side(lambda: puretree.predict(tree, one), lambda: est.predict(one), rounds=41, per_round=20)
    lines.append(f"| {name} | library, one row (mapping) | {lib_map * 1e6:.2f} us | scikit-learn, 1-row array | {sk_one * 1e6:.2f} us | {lib_map / sk_one:.2f} |")
    lines.append(f"| {name} | library, one row (1-row array) | {lib_arr * 1e6:.2f} us | scikit-learn, 1-row array | {sk_one * 1e6:.2f} us | {lib_arr / sk_one:.2f} |")

    lib_batch, sk_batch = side_by_side(lambda: puretree.predict(tree, batch), lambda: est.predict(batch), rounds=15)
    lines.append(f"| {name} | library, {len(batch):,} rows | {lib_batch * 1e3:.2f} ms | scikit-learn, {len(batch):,} rows | {sk_batch * 1e3:.2f} ms | {lib_batch / sk_batch:.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20,000 synthetic rows instead of 100,000")
    args = parser.parse_args()
    lines = ["| tree | puretree | time | peer | time | ratio |", "| --- | --- | --- | --- | --- | --- |"]
    with tempfile.TemporaryDirectory() as tmp:
        for name, est, sample, batch in trees(args.quick):
            print(f"{name}: depth {est.get_depth()}, {est.tree_.node_count} nodes", file=sys.stderr)
            bench(name, est, sample, batch, Path(tmp), lines)
    print("\n".join(lines))


if __name__ == "__main__":
    main()
