"""monotonic_cst and missing="learn" against scikit-learn for the same tree (issue 25: at most 1x
scikit-learn's time), on breast_cancer, diabetes and a 100k x 20 make_classification.

    OMP_NUM_THREADS=1 python bench/bench_options.py [ROUNDS]      (default 3)

monotonic_cst (+1, -1, 0 over the features in turn) on the complete data, missing="learn" on a
copy with 10% of the cells NaN (seeded); values rounded to float32 (scikit-learn's). Each case runs
``ROUNDS`` alternating rounds (scikit-learn, then puretree's default engine), each fit in this
process under an 8 GB address-space limit, scikit-learn single-threaded; prints the medians of the
CPU time (time.process_time: every thread of the process, fair on a loaded machine), their ratio
puretree/scikit-learn, the wall-clock ratio, the rounds' CPU times, and both trees' node counts.
"""
import os
os.environ.setdefault("OMP_NUM_THREADS", "1")
import resource, statistics, sys, time
resource.setrlimit(resource.RLIMIT_AS, (8 * 2**30, 8 * 2**30))
import numpy as np
from sklearn.datasets import load_breast_cancer, load_diabetes, make_classification
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from threadpoolctl import threadpool_limits
import puretree as pt

rounds = int(sys.argv[1]) if len(sys.argv) > 1 else 3


def datasets():
    yield "breast_cancer", *load_breast_cancer(return_X_y=True), False
    yield "diabetes", *load_diabetes(return_X_y=True), True
    X, y = make_classification(n_samples=100_000, n_features=20, n_informative=5, random_state=0)
    yield "make_classification 100k x 20", X, y, False


def with_nan(X):
    X = X.copy()
    X[np.random.default_rng(0).random(X.shape) < 0.1] = np.nan
    return X


for name, X, y, regression in datasets():
    X = X.astype(np.float32).astype(np.float64)
    cst = [(1, -1, 0)[j % 3] for j in range(X.shape[1])]
    Est = DecisionTreeRegressor if regression else DecisionTreeClassifier
    task = {"task": "regression"} if regression else {}
    for option, data, sk_options, pt_options in [
        ("monotonic_cst", X, {"monotonic_cst": cst}, {"monotonic_cst": cst, "missing": "learn"}),
        ('missing="learn"', with_nan(X), {}, {"missing": "learn"}),
    ]:
        times = {"sklearn": [], "puretree": []}
        walls = {"sklearn": [], "puretree": []}
        sizes = {}
        for _ in range(rounds):
            with threadpool_limits(1):
                t, c = time.perf_counter(), time.process_time()
                est = Est(random_state=0, **sk_options).fit(data, y)
                times["sklearn"].append(time.process_time() - c)
                walls["sklearn"].append(time.perf_counter() - t)
            sizes["sklearn"] = est.tree_.node_count
            t, c = time.perf_counter(), time.process_time()
            tree = pt.cart(data, y, **pt_options, **task)
            times["puretree"].append(time.process_time() - c)
            walls["puretree"].append(time.perf_counter() - t)
            sizes["puretree"] = pt.n_nodes(tree)
        med = {k: statistics.median(v) for k, v in times.items()}
        wall = statistics.median(walls["puretree"]) / statistics.median(walls["sklearn"])
        print(f"{name:32s} {option:16s} CPU sklearn {med['sklearn']:.4f}s puretree {med['puretree']:.4f}s ratio {med['puretree'] / med['sklearn']:.2f} (wall {wall:.2f})"
              f"  rounds {[round(t, 4) for t in times['sklearn']]} {[round(t, 4) for t in times['puretree']]}  nodes {sizes['sklearn']} {sizes['puretree']}", flush=True)
