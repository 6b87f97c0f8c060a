"""The in-memory binned fit (the histogram source, C) against the exact fit and against the
sorted source on the same binned values (issue 24: the binned fit at most the exact fit's time).

    python bench/bench_binned.py ROWS FEATURES DEPTH|none     e.g. 1000000 10 none

Three alternating rounds (exact, binned, sorted-on-binned), medians, each fit in this process
under an 8 GB address-space limit; prints each median, the rounds, the trees' sizes, and whether
the histogram source's tree == the sorted source's.
"""
import resource, sys, time, statistics
resource.setrlimit(resource.RLIMIT_AS, (8 * 2**30, 8 * 2**30))
import numpy as np
from sklearn.datasets import make_classification
import puretree as pt
from puretree.growth import histograms
rows = int(sys.argv[1]); feats = int(sys.argv[2]); depth = None if sys.argv[3] == "none" else int(sys.argv[3])
X, y = make_classification(n_samples=rows, n_features=feats, n_informative=5, random_state=0)
edges = [np.unique(np.quantile(X[:, j], np.linspace(0, 1, 256)[1:])) for j in range(feats)]
out = {"exact": [], "binned": [], "sorted": []}
trees = {}
for r in range(3):
    for name in out:
        t = time.perf_counter()
        if name == "exact": trees[name] = pt.cart(X, y, max_depth=depth)
        elif name == "binned": trees[name] = pt.cart(X, y, bins=edges, max_depth=depth)
        else:
            orig = histograms.applies
            histograms.applies = lambda *a: False
            trees[name] = pt.cart(X, y, bins=edges, max_depth=depth)
            histograms.applies = orig
        out[name].append(time.perf_counter() - t)
for name, ts in out.items():
    print(name, f"median {statistics.median(ts):.2f}s", [round(t, 2) for t in ts], pt.n_nodes(trees[name]))
print("binned == sorted:", trees["binned"] == trees["sorted"])
