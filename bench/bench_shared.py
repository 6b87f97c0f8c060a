"""Flash of a 100-tree forest in C: puretree's shared table against its unshared tables, emlearn's
inline forest and m2cgen's C (issue 30, "Ensembles that share").

Run by hand with emlearn and m2cgen installed (``bash bench/setup_codegen.sh``; the Arm toolchain
comes with ``make test``'s Debian packages):

    .venv/bin/python bench/bench_shared.py [--trees 100] [--depth 8]

The model: ``RandomForestClassifier(n_estimators=100, max_depth=8, random_state=0)`` on
breast_cancer (80% to train, ``train_test_split(..., test_size=0.2, random_state=0)``),
imported with ``from_sklearn``. Each code is linked for Cortex-M4 (``-Os -mthumb
-mfloat-abi=hard -mfpu=fpv4-sp-d16``) behind one call to its predict, ``--gc-sections``
(``bench_codegen.flash``: what a firmware pays, soft-float helpers included; in brackets the
object file as generated). Float inputs for puretree and emlearn, double for m2cgen (its only
kind). Flash figures do not depend on the machine's load.

What each computes (the class; see docs/codegen.md):

- puretree (shared and unshared): scikit-learn's ``predict``, the mean of the trees'
  probabilities, bit for bit (``verify``, whose rows are the test rows and every threshold's
  neighbours, must report 0 mismatches);
- puretree, members voting their classes: the same trees combined as AdaBoost combines
  members with equal weights, one vote per tree for its most probable class: the function
  emlearn's inline forest computes (leaves are class ids), again checked by ``verify``;
- emlearn inline (its default for a classifier, ``leaf_bits=0``): each tree's most probable
  class, majority vote, comparing ``x < t`` with the threshold printed with six decimals as a
  float constant;
- m2cgen: the probabilities summed and scaled by ``1/n`` (an argmax added to get the class).

The last columns count the rows each predicts otherwise (run on the host, gcc -O2): the 114 test
rows against scikit-learn's ``predict``, and the boundary rows (the test rows plus each tree's
threshold neighbourhoods, float64 and float32, ``bench_codegen.probe_rows``) against the function
the code computes on the rows it receives (rounded to float for the float codes): scikit-learn's
``predict`` for the averaging codes, the voting forest's (puretree's library) for the voting ones.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_codegen  # noqa: E402
from puretree.codegen import generate, verify  # noqa: E402
from puretree.codegen.shared import shared_table  # noqa: E402
from puretree.ensemble import Ensemble  # noqa: E402
from puretree.sklearn import from_sklearn  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--depth", type=int, default=8)
    args = parser.parse_args()
    import emlearn
    import m2cgen

    sys.setrecursionlimit(10_000)  # m2cgen recurses over the trees
    X, y = load_breast_cancer(return_X_y=True)
    Xtr, Xte, ytr, _ = train_test_split(X, y, test_size=0.2, random_state=0)
    est = RandomForestClassifier(n_estimators=args.trees, max_depth=args.depth, random_state=0).fit(Xtr, ytr)
    forest = from_sklearn(est)
    # The same members, one vote each for their class (AdaBoost's combination, equal weights).
    voting = Ensemble(forest.members, (1.0,) * len(forest.members), forest.schema, "adaboost")
    d, k = X.shape[1], len(est.classes_)
    want = est.predict(Xte)
    n_splits = sum(int(est.estimators_[i].tree_.node_count - est.estimators_[i].tree_.n_leaves) for i in range(args.trees))
    t = shared_table(forest.members, ftype="float", outcome="proba")
    print(f"\n#### RandomForestClassifier(n_estimators={args.trees}, max_depth={args.depth}, random_state=0), breast_cancer: {n_splits} splits, "
          f"{t['n_unique']} distinct ({t['n_jumps']} jumps), {len(t['outcomes'])} distinct leaves; emlearn {emlearn.__version__}, m2cgen {m2cgen.__version__}; "
          f"load {os.getloadavg()[0]:.1f}\n")
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-shared-") as tmp:
        work = Path(tmp)
        entries = []
        for key, model, form in (("puretree shared, float", forest, "shared"), ("puretree unshared (compact), float", forest, "compact"),
                                 ("puretree shared, members voting their classes, float", voting, "shared")):
            name = f"pt{len(entries)}"
            for fname, text in generate(model, "c-table", name=name, feature_type="float", form=form, proba=False).items():
                (work / fname).write_text(text)
            report = verify(model, Xte, "c-table", feature_type="float", form=form, name=name)
            entries.append((key, str(work / f"{name}.c"), "float", f"{name}_predict(x)", "", f"verify: {report.n_mismatches} of {report.n_checked}"))
        emlearn.convert(est, method="inline", dtype="float").save(file=str(work / "eml.h"), name="eml")
        (work / "eml.c").write_text('#include "eml.h"\n')
        entries.append(("emlearn inline, float", str(work / "eml.c"), "float", f"eml_predict(x, {d})", "", ""))
        (work / "m2cgen.c").write_text(m2cgen.export_to_c(est))
        entries.append(("m2cgen, double", str(work / "m2cgen.c"), "double", "m2c_predict(x)", bench_codegen.M2C_WRAP % (k, k), ""))
        rng = np.random.default_rng(0)
        probes = np.vstack([Xte] + [bench_codegen.probe_rows(tree, Xte, rng)[len(Xte):] for tree in est.estimators_])
        as_float = probes.astype(np.float32).astype(np.float64)  # what a float program receives
        averaged = {"float": est.predict(as_float), "double": est.predict(probes)}
        voted = np.asarray(voting.predict(as_float, unseen="ignore"))
        for key, c_file, ctype, call, wrap, note in entries:
            size = bench_codegen.flash(key, c_file, ctype, call, wrap, d, "M4", work)
            _, got = bench_codegen.host_run(key, c_file, ctype, call, wrap, Xte, work)
            _, on_probes = bench_codegen.host_run(key, c_file, ctype, call, wrap, probes, work)
            reference = voted if "voting" in key or key.startswith("emlearn") else averaged[ctype]
            rows.append((key, size, int((est.classes_[got] != want).sum()), f"{int((est.classes_[on_probes] != reference).sum())} of {len(probes)}", note))
    base = {key: int(size.split()[0]) for key, size, *_ in rows}
    eml, m2c = base["emlearn inline, float"], base["m2cgen, double"]
    print("| C, Cortex-M4 -Os | flash B: linked (object) | / emlearn inline | / m2cgen | test rows unlike scikit-learn's predict | boundary rows unlike its function | verify |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for key, size, bad, boundary, note in rows:
        print(f"| {key} | {size} | {base[key] / eml:.2f} | {base[key] / m2c:.2f} | {bad} of {len(Xte)} | {boundary} | {note} |")
    shared = base["puretree shared, float"]
    print(f"\nGates (issue 30): shared / emlearn inline = {shared / eml:.2f} (<= 0.5: {'PASS' if shared <= 0.5 * eml else 'FAIL'}); "
          f"shared / m2cgen = {shared / m2c:.2f} (<= 0.5: {'PASS' if shared <= 0.5 * m2c else 'FAIL'})")
    print(f"(run at {time.strftime('%Y-%m-%d %H:%M')})")


if __name__ == "__main__":
    main()
