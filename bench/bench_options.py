"""monotonic_cst and missing="learn" against scikit-learn for the same tree (issue 25: at most 1x
scikit-learn's time), on breast_cancer, wine, diabetes, the continuous 20k x 20 set of the tests
(tests/test_monotonic_cst.py: classes and regression) and a 100k x 20 make_classification.

    OMP_NUM_THREADS=1 python bench/bench_options.py [ROUNDS] [--repeat R] [--only NAME]

monotonic_cst (+1, -1, 0 over the features in turn) on the complete data, missing="learn" on a
copy with 10% of the cells NaN (seeded); values rounded to float32 (scikit-learn's); wine (three
classes) has no monotonic case (scikit-learn refuses it). Each case runs ``ROUNDS`` alternating
rounds (default 5: scikit-learn, then puretree's default engine), each round timing ``R`` fits in a
row (default: enough for about 0.2 s of scikit-learn, at least 1; a small fit alone is below the
clock's noise), in this process under an 8 GB address-space limit, scikit-learn single-threaded;
each round after a full collection (gc.collect(), outside the clock: the
cyclic collector's full passes, which a process that imported scikit-learn pays about 0.25 s for
and which a tree's nodes set off every few hundred small fits, land on whichever round reaches
its count; CPython's timeit turns the collector off instead); prints the medians of the CPU time per fit (time.process_time: every thread of the process, fair
on a loaded machine), their ratio puretree/scikit-learn, the wall-clock ratio, the rounds' CPU
times, and both trees' node counts.
"""
import os
os.environ.setdefault("OMP_NUM_THREADS", "1")
import argparse, gc, resource, statistics, time
resource.setrlimit(resource.RLIMIT_AS, (8 * 2**30, 8 * 2**30))
import numpy as np
from sklearn.datasets import load_breast_cancer, load_diabetes, load_wine, make_classification
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from threadpoolctl import threadpool_limits
import puretree as pt

parser = argparse.ArgumentParser()
parser.add_argument("rounds", nargs="?", type=int, default=5)
parser.add_argument("--repeat", type=int, default=None)
parser.add_argument("--only", default=None, help="run the data sets whose name contains this")
args = parser.parse_args()


def synthetic(regression):
    """tests/test_monotonic_cst.py's continuous 20k x 20 set."""
    rng = np.random.default_rng(3)
    X = rng.normal(size=(20000, 20))
    z = X[:, 0] - X[:, 1] + 0.5 * np.sin(X[:, 2]) + rng.normal(size=20000)
    return X, (z if regression else (z > 0).astype(int))


def datasets():
    yield "breast_cancer", *load_breast_cancer(return_X_y=True), False
    yield "wine", *load_wine(return_X_y=True), False
    yield "diabetes", *load_diabetes(return_X_y=True), True
    yield "synthetic 20k x 20 classes", *synthetic(False), False
    yield "synthetic 20k x 20 regression", *synthetic(True), True
    X, y = make_classification(n_samples=100_000, n_features=20, n_informative=5, random_state=0)
    yield "make_classification 100k x 20", X, y, False


def with_nan(X):
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < 0.1] = np.nan
    return X


def timed(fit, repeat):
    gc.collect()  # outside the clock: a round starts with the collector's counts at zero, whoever ran before
    c, t = time.process_time(), time.perf_counter()
    for _ in range(repeat):
        out = fit()
    return (time.process_time() - c) / repeat, (time.perf_counter() - t) / repeat, out


for name, X, y, regression in datasets():
    if args.only and args.only not in name:
        continue
    X = X.astype(np.float32).astype(np.float64)
    cst = [(1, -1, 0)[j % 3] for j in range(X.shape[1])]
    Est = DecisionTreeRegressor if regression else DecisionTreeClassifier
    task = {"task": "regression"} if regression else {}
    cases = [('missing="learn"', with_nan(X), {}, {"missing": "learn"})]
    if len(np.unique(y)) <= 2 or regression:
        cases.insert(0, ("monotonic_cst", X, {"monotonic_cst": cst}, {"monotonic_cst": cst, "missing": "learn"}))
    for option, data, sk_options, pt_options in cases:
        def sk_fit():
            return Est(random_state=0, **sk_options).fit(data, y)

        def pt_fit():
            return pt.cart(data, y, **pt_options, **task)

        repeat = args.repeat
        if repeat is None:  # about 0.2 s of scikit-learn a round
            repeat = max(1, int(0.2 / max(timed(sk_fit, 1)[0], 1e-4)))
        times = {"sklearn": [], "puretree": []}
        walls = {"sklearn": [], "puretree": []}
        for _ in range(args.rounds):
            for who, fit in (("sklearn", sk_fit), ("puretree", pt_fit)):
                with threadpool_limits(1 if who == "sklearn" else None):  # entered outside the clock
                    cpu, wall, out = timed(fit, repeat)
                times[who].append(cpu)
                walls[who].append(wall)
                if who == "sklearn":
                    sk_nodes = out.tree_.node_count
                else:
                    pt_nodes = pt.n_nodes(out)
        med = {k: statistics.median(v) for k, v in times.items()}
        wall = statistics.median(walls["puretree"]) / statistics.median(walls["sklearn"])
        print(f"{name:30s} {option:16s} x{repeat:<4d} CPU sklearn {med['sklearn'] * 1e3:.3f}ms puretree {med['puretree'] * 1e3:.3f}ms ratio {med['puretree'] / med['sklearn']:.2f} (wall {wall:.2f})"
              f"  rounds {[round(t * 1e3, 3) for t in times['sklearn']]} {[round(t * 1e3, 3) for t in times['puretree']]}  nodes {sk_nodes} {pt_nodes}", flush=True)
