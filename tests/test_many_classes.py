"""Many classes: growth memory follows the node statistics (classes x nodes of a level), never
rows x classes (issue 23).

The level-wise engine keeps an instance as its class code and weight, and scores a feature's
candidates a slice at a time when its sorted statistics (rows x classes) would not fit in one
chunk (:func:`puretree.growth.sorted._blocked_candidates`). The property below forces that path on
small data (``_CHUNK`` patched down) and checks it grows the reference builder's tree; the
memory tests run a fit in a child process under an address-space limit
(``resource.setrlimit(RLIMIT_AS)``) that rows x classes numbers would exceed.
"""

from __future__ import annotations

from functools import partial
from unittest import mock

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from puretree.growth import sorted as sorted_source
from puretree.data import Dataset
from puretree.grow import by_task, cart, grow, id3
from puretree.strategies import datasets

from test_engine import same_tree

PRESETS = {"id3": id3, "gain_ratio": partial(grow, score=by_task("gain_ratio", "variance"), missing="distribute"), "cart": cart}
SCORES = ["gini", "entropy", "gain_ratio", "misclassification"]
options = st.fixed_dictionaries({}, optional={"max_depth": st.integers(0, 4), "min_samples_leaf": st.integers(1, 4), "min_samples_split": st.integers(2, 6)})


def _sliced(fit, ds, **opts):
    """The fast engine's numpy path with every numeric feature scored slice by slice
    (one candidate per slice), and the reference's tree."""
    with mock.patch.object(sorted_source, "_CHUNK", 4):
        fast = fit(ds, engine="numpy", **opts)
    return fast, fit(ds, engine="reference", **opts)


@given(ds=datasets(max_rows=40, max_classes=6, missing=0.1), weights=st.sampled_from(["none", "whole", "fractional"]), preset=st.sampled_from(sorted(PRESETS)), score=st.sampled_from(SCORES), missing=st.sampled_from(["majority", "distribute"]), opts=options)
def test_sliced_scan_grows_the_reference_tree(ds, weights, preset, score, missing, opts):
    if weights == "whole":
        ds = Dataset(ds.schema, ds.X, ds.y, 1.0 + np.arange(ds.n_rows) % 3)
    elif weights == "fractional":
        ds = Dataset(ds.schema, ds.X, ds.y, np.linspace(0.5, 3.0, ds.n_rows))
    fast, ref = _sliced(PRESETS[preset], ds, score=score, missing=missing, **opts)
    assert same_tree(fast.root, ref.root)
    if weights != "fractional" and missing == "majority":
        assert fast == ref  # integer counts: every sum exact, whatever the grouping


# -- memory, in a child process under an address-space limit ---------------------------------

#: 20,000 rows, 20,000 classes (one row each), 5 features of 8 values: the one-hot statistics
#: the engine used to make (rows x classes floats) take 3.0 GiB, three times LIMIT.
CHILD = """
import json, resource, sys, time
resource.setrlimit(resource.RLIMIT_AS, ({limit},) * 2)
import numpy as np
import puretree as pt
rng = np.random.default_rng(0)
X = rng.integers(0, 8, (20_000, 5)).astype(np.float64)
y = rng.permutation(20_000)
try:
    tree = pt.{call}
    out = {{"ok": pt.n_nodes(tree)}}
except BaseException as e:
    out = {{"error": type(e).__name__, "puretree": isinstance(e, pt.PuretreeError), "message": str(e)}}
try:  # this process's own peak: ru_maxrss would count the pytest process it was forked from
    with open("/proc/self/status") as status:
        out["peak"] = next(int(line.split()[1]) * 1024 for line in status if line.startswith("VmHWM:"))
except OSError:
    out["peak"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
print(json.dumps(out))
"""
LIMIT = 1 << 30


def _in_child(call: str) -> dict:
    import json
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", CHILD.format(limit=LIMIT, call=call)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout.splitlines()[-1])


def test_many_classes_grow_within_an_address_space_limit():
    # before issue 23's fix: MemoryError asking for the 3 GiB one-hot array
    out = _in_child("cart(X, y, max_depth=4)")
    assert out.get("ok") == 31, out  # 16 leaves: 5 features of 8 values split every node
    assert out["peak"] < LIMIT


def test_reference_builder_refuses_rows_by_classes_before_allocating():
    out = _in_child('grow(X, y, engine="reference", max_depth=2)')
    assert out.get("error") == "MemoryLimitError" and out["puretree"], out
    assert "20,000 rows x 20,000 classes" in out["message"]
    assert out["peak"] < LIMIT // 4  # refused before the 3 GiB array, not by the allocator


def test_a_tree_too_large_for_memory_is_refused_before_it_is_made():
    # grown to purity, the tree would need 20,000 leaves x 20,000 counts (about 16 GB as floats)
    out = _in_child("cart(X, y)")
    assert out.get("error") == "MemoryLimitError" and out["puretree"], out
    assert "with 20,000 classes" in out["message"]
    assert out["peak"] < LIMIT
