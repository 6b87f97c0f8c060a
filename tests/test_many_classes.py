"""Many classes: growth memory follows the node statistics (classes x nodes of a level), never
rows x classes (issue 23).

The level-wise engine keeps an instance as its class code and weight, and scores a feature's
candidates a slice at a time when its sorted statistics (rows x classes) would not fit in one
chunk (:func:`puretree.engine._blocked_candidates`). The property below forces that path on
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

from puretree import engine
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
    with mock.patch.object(engine, "_CHUNK", 4), mock.patch.object(engine, "_SINGLE_NODE_MAX", 0), mock.patch.object(engine, "_USE_KERNEL", False):
        fast = fit(ds, engine="fast", **opts)
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
