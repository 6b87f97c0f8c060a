"""The subset splits of many nodes at once (choose.best_subsets) are, number for number, each
node's own (choose.best_subset): the batch only saves the Python calls (issue 26: a frame with
category columns fitted at the ndarray's speed)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from puretree.criteria import ImpurityDecrease
from puretree.growth.choose import best_subset, best_subsets
from puretree.impurity import entropy, gini
from puretree.tasks import CLASSIFICATION


@st.composite
def tables(draw):
    n, m, k = draw(st.integers(1, 12)), draw(st.integers(1, 14)), draw(st.integers(1, 9))
    whole = draw(st.booleans())
    cell = st.integers(0, 6).map(float) if whole else st.sampled_from([0.0, 0.1, 0.5, 1.0, 2.0, 1 / 3, 3.0])
    per = np.array(draw(st.lists(cell, min_size=n * m * k, max_size=n * m * k))).reshape(n, m, k)
    # a node often lacks a category (its rows 0): some nodes share which are present, some not
    absent = np.array(draw(st.lists(st.booleans(), min_size=n * m, max_size=n * m))).reshape(n, m) & draw(st.booleans())
    per[absent] = 0.0
    rows = np.where(per.sum(axis=-1) > 0, np.ceil(per.sum(axis=-1)).astype(np.int64) + 1, 0)
    known = per.sum(axis=1)
    missing = np.array(draw(st.lists(st.sampled_from([0.0, 0.0, 1.0, 2.5]), min_size=n, max_size=n)))
    return per, rows, known, known.sum(axis=-1) + missing, missing > 0


@settings(max_examples=300, deadline=None)
@given(tables(), st.sampled_from([gini, entropy]), st.sampled_from([1, 2, 3]))
def test_many_nodes_at_once_find_each_nodes_own_subset_split(table, impurity, min_samples_leaf):
    per, rows, known, total, incomplete = table
    score, name = ImpurityDecrease(impurity), np.asarray("c")
    nodes = np.flatnonzero((rows > 0).sum(axis=1) >= 2)
    got = best_subsets(score, per, rows, known, total, name, task=CLASSIFICATION, incomplete=incomplete, min_samples_leaf=min_samples_leaf, nodes=nodes)
    want = {}
    for i in nodes.tolist():
        hit = best_subset(score, per[i], rows[i], known[i], float(total[i]), name, task=CLASSIFICATION, incomplete=bool(incomplete[i]), min_samples_leaf=min_samples_leaf)
        if hit is not None:
            want[i] = hit
    assert list(got) == list(want)
    for i, (s, left, children) in want.items():
        assert got[i][0] == s and got[i][1] == left and np.array_equal(got[i][2], children), (i, got[i], want[i])


def test_a_frame_with_category_columns_grows_the_tree_it_grew_node_by_node(monkeypatch):
    # The level engine with subsets scored a node at a time (the batch disabled) and at once.
    import pandas as pd

    import puretree as pt
    import puretree.growth.choose as choose
    from puretree.io.json import to_json as dumps

    rng = np.random.default_rng(3)
    n = 3000
    df = pd.DataFrame({f"c{j}": pd.Categorical(rng.integers(0, 4 + j, n)) for j in range(4)})
    df["x"] = rng.normal(size=n)
    for k in (2, 3):
        y = (df["c0"].cat.codes.to_numpy() + df["c1"].cat.codes.to_numpy() + rng.integers(0, 3, n)) % k
        w = rng.integers(1, 4, n).astype(float)
        batched = [dumps(pt.cart(df, y, max_depth=6, sample_weight=sw)) for sw in (None, w)]
        with monkeypatch.context() as m:
            m.setattr(choose, "_SEQUENTIAL_CLASSES", 0)  # every node alone, as before
            alone = [dumps(pt.cart(df, y, max_depth=6, sample_weight=sw)) for sw in (None, w)]
        assert batched == alone
