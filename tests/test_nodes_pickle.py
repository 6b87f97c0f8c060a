"""A tree pickled in one process equals the same tree grown in another (issue: the node digest
hashes strings, which Python salts per process; a digest carried in the pickle made them unequal)."""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import puretree as pt
from puretree.datasets import load_playtennis

GROW = "from puretree.datasets import load_playtennis; from puretree.grow import id3; tree = id3(load_playtennis())"


def _run(code: str, seed: str, cwd: Path) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, cwd=cwd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_a_tree_pickled_in_another_process_equals_the_tree_grown_here(tmp_path):
    path = tmp_path / "tree.pickle"
    _run(f"import pickle\n{GROW}\nopen({str(path)!r}, 'wb').write(pickle.dumps(tree))", "1", tmp_path)
    answer = _run(f"import pickle\n{GROW}\nloaded = pickle.loads(open({str(path)!r}, 'rb').read())\nprint(loaded == tree, hash(loaded) == hash(tree), loaded.root == tree.root)", "2", tmp_path)
    assert answer == "True True True"


def test_an_unpickled_node_keeps_its_place_in_sets_and_dicts():
    tree = pt.id3(load_playtennis())
    copy = pickle.loads(pickle.dumps(tree))
    assert copy == tree and hash(copy.root) == hash(tree.root)
    assert {tree.root: 1}[copy.root] == 1
