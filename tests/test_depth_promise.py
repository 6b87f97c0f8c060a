"""One depth promise for every stage: a tree 10,000 levels deep is grown, saved, loaded,
compared, hashed, printed (repr and text), used to predict, turned into rules, exported and
verified, with no RecursionError and no stage quadratic in the depth.

10,000 rows of one feature whose label alternates: every split can only peel off one row,
so cart grows a chain of 9,999 splits.
"""

from __future__ import annotations

import attrs
import numpy as np
import pytest

import puretree as pt
from puretree.codegen.render import export
from puretree.codegen.verify import verify_code
from puretree.fold import depth, n_leaves, rewrite
from puretree.nodes import Leaf, Split, Threshold
from puretree.rules import to_rules

N = 10_000


@pytest.fixture(scope="module")
def chain():
    X = np.arange(N, dtype=np.float64).reshape(-1, 1)
    y = np.where(np.arange(N) % 2 == 0, "even", "odd")
    return pt.cart(X, y), X, y


def test_it_grows_and_predicts(chain):
    tree, X, y = chain
    assert depth(tree) == N - 1 and n_leaves(tree) == N
    assert tree.predict(X).tolist() == y.tolist()


def test_it_saves_loads_and_compares(chain, tmp_path):
    tree, X, _ = chain
    pt.save(tree, tmp_path / "m.json")
    back = pt.load(tmp_path / "m.json")
    assert back == tree and hash(back) == hash(tree) and not (back != tree)
    # One threshold changed at the bottom of the chain makes the trees differ.
    bottom = lambda n: attrs.evolve(n, test=Threshold(n.test.value + 0.25)) if isinstance(n, Split) and all(isinstance(c, Leaf) for c in n.children) else None  # noqa: E731
    other = rewrite(tree, bottom)
    assert other != tree and depth(other) == N - 1


def test_it_prints(chain):
    tree, _, _ = chain
    text = repr(tree)
    assert text.count("Leaf(") == N and text.startswith("Tree(")
    assert len(tree.to_text().splitlines()) == 2 * (N - 1)


def test_it_turns_into_rules(chain):
    tree, X, y = chain
    rules = to_rules(tree)
    assert len(rules) == N  # one rule per leaf
    assert rules.predict(X[::97]).tolist() == y[::97].tolist()


def test_it_exports_and_verifies(chain, tmp_path):
    tree, X, _ = chain
    export(tree, "c-table", out_dir=tmp_path)
    manifest, report = verify_code(tree, X[::500], tmp_path)
    assert manifest["target"] == "c-table"
    assert report.ok and report.n_checked >= 3 * (N - 1)
