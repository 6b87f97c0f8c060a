"""Trees thousands of levels deep: grow, predict, print and round-trip without RecursionError.

5,000 rows with a label alternating along one numeric feature: every split can only peel
off one row, so the fully grown tree is a chain 4,999 levels deep. (Node equality is iterative
at any depth: tests/test_values.py; here trees are also compared through ``to_dict``.)
"""

from __future__ import annotations

import numpy as np
import pytest

from puretree.fold import depth, fold, iter_nodes, n_leaves, n_nodes, rewrite
from functools import partial

from puretree.grow import cart, grow, id3
from puretree.io import from_json, to_dict, to_json
from puretree.nodes import Leaf, NumericSplit
from puretree.text import MAX_INDENT, summary

N = 5_000


# C4.5's guards (average gain, MDL-corrected cuts) rightly refuse to peel off one row at a
# time, so the deep gain-ratio tree is grown by the plain builder.
gain_ratio_tree = partial(grow, score="gain_ratio", missing="distribute")


@pytest.fixture(scope="module", params=[cart, gain_ratio_tree, id3], ids=["cart", "gain_ratio", "id3"])
def deep(request):
    X = np.arange(N, dtype=np.float64).reshape(-1, 1)
    y = np.where(np.arange(N) % 2 == 0, "even", "odd")
    return request.param(X, y), X, y


def test_grows_thousands_of_levels(deep):
    tree, _, _ = deep
    assert depth(tree) == N - 1
    assert n_nodes(tree) == 2 * N - 1 and n_leaves(tree) == N
    assert fold(tree, lambda node, kids: 1 + max(kids, default=-1)) == N - 1


def test_predicts_every_row(deep):
    tree, X, y = deep
    assert tree.predict(X).tolist() == y.tolist()
    assert tree.predict_proba(X[-3:]).tolist() == [[0.0, 1.0], [1.0, 0.0], [0.0, 1.0]]  # rows 4997 (odd), 4998, 4999
    last = {"x0": float(N - 1)}
    assert len(tree.decision_path(last)) in (2, N)
    paths = tree.decision_path(X[[0, N // 2, N - 1]])
    assert max(len(p) for p in paths) == N
    assert tree.predict(last) == y[-1]


def test_prints(deep):
    tree, _, _ = deep
    text = tree.to_text()
    lines = text.split("\n")
    assert len(lines) == 2 * (N - 1)
    # Indentation stops at MAX_INDENT levels; deeper lines say their depth instead.
    assert max(line.count("|   ") for line in lines) == MAX_INDENT
    assert max(int(line.split("[depth ")[1].split("]")[0]) for line in lines if "[depth " in line) == N - 2
    assert summary(tree) == f"nodes: {2 * N - 1}, leaves: {N}, depth: {N - 1}"


def test_json_round_trip(deep):
    tree, X, _ = deep
    d = to_dict(tree)
    back = from_json(to_json(tree))
    assert to_dict(back) == d
    some = X[::97]
    assert back.predict(some).tolist() == tree.predict(some).tolist()


def test_rewrite_and_iterate(deep):
    tree, _, _ = deep
    # Collapse every split whose two children are leaves: exactly one at the bottom of the chain.
    collapse = lambda n: Leaf(n.counts) if isinstance(n, NumericSplit) and isinstance(n.left, Leaf) and isinstance(n.right, Leaf) else None  # noqa: E731
    smaller = rewrite(tree, collapse)
    assert depth(smaller) == 0  # bottom-up: each collapse exposes the next one
    assert sum(1 for _ in iter_nodes(tree)) == 2 * N - 1
