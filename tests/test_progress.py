"""Progress of a fit: the growth engines' ``progress`` hook, and ``puretree fit --progress``."""

from __future__ import annotations

import fcntl
import os
import pty
import struct
import subprocess
import sys
import termios
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import puretree
from puretree.cli import main
from puretree.fold import n_nodes, walk
from puretree.strategies import datasets

TENNIS = Path(str(puretree.datasets.path("playtennis")))


def _recorder():
    calls: list[tuple[int, int, int]] = []
    return calls, lambda depth, nodes, rows: calls.append((depth, nodes, rows))


def _nodes_per_depth(tree):
    out: dict[int, int] = {}
    for _, d in walk(tree, lambda n, d: [d + 1] * len(n.children), 0):
        out[d] = out.get(d, 0) + 1
    return out


@settings(max_examples=30)
@given(datasets(min_rows=1, max_rows=40), st.sampled_from(["reference", "fast"]), st.sampled_from([None, 2, 5]))
def test_progress_reports_every_node_once_and_changes_nothing(data, engine, max_depth):
    calls, hook = _recorder()
    tree = puretree.grow(data, engine=engine, max_depth=max_depth, progress=hook)
    assert tree == puretree.grow(data, engine=engine, max_depth=max_depth)
    per_depth: dict[int, int] = {}
    for depth, nodes, rows in calls:
        assert nodes >= 0 and rows >= 0
        per_depth[depth] = per_depth.get(depth, 0) + nodes
    assert {d: c for d, c in per_depth.items() if c} == _nodes_per_depth(tree)
    assert calls[0] == (0, 1, data.n_rows)  # the root first, with every row


def test_progress_from_the_compiled_kernel():
    # Gini on numeric data goes to the compiled kernel, which reports its levels once done.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(500, 3))
    y = (X[:, 0] + 0.5 * rng.normal(size=500) > 0).astype(int)
    calls, hook = _recorder()
    tree = puretree.cart(X, y, progress=hook)
    assert tree == puretree.cart(X, y)
    assert [d for d, _, _ in calls] == list(range(puretree.depth(tree) + 1))
    assert sum(n for _, n, _ in calls) == n_nodes(tree)
    assert calls[0] == (0, 1, 500)


def test_progress_is_an_option_of_every_preset():
    calls, hook = _recorder()
    data = puretree.datasets.load_playtennis()
    for preset in (puretree.id3, puretree.c45, puretree.cart):
        calls.clear()
        tree = preset(data, progress=hook)
        assert sum(n for _, n, _ in calls) >= n_nodes(tree)  # c45 collapses some of what it grew
    with pytest.raises(puretree.ParameterError, match="did you mean 'progress'"):
        puretree.grow(data, progres=hook)


def _fit(tmp_path, *extra, stderr=subprocess.PIPE):
    out = tmp_path / f"m{len(list(tmp_path.iterdir()))}.json"
    done = subprocess.run([sys.executable, "-m", "puretree", "fit", str(TENNIS), "--target", "play", "--ignore", "day", "-o", str(out), *extra],
                          capture_output=stderr is subprocess.PIPE, stdout=None if stderr is subprocess.PIPE else subprocess.PIPE, stderr=None if stderr is subprocess.PIPE else stderr,
                          text=True, timeout=120, cwd=tmp_path)
    return done, out


def test_fit_progress_goes_to_stderr_and_changes_neither_stdout_nor_the_model(tmp_path):
    quiet, quiet_model = _fit(tmp_path)
    shown, shown_model = _fit(tmp_path, "--progress")
    assert quiet.returncode == shown.returncode == 0
    assert quiet.stderr == ""
    assert "fit: " in shown.stderr and " nodes" in shown.stderr and "rows/s" in shown.stderr and "depth 2" in shown.stderr
    assert shown.stdout.replace(str(shown_model), "M") == quiet.stdout.replace(str(quiet_model), "M")
    assert shown_model.read_bytes() == quiet_model.read_bytes()
    off, _ = _fit(tmp_path, "--no-progress")
    assert (off.returncode, off.stderr) == (0, "")


def test_fit_progress_is_on_by_default_on_a_terminal(tmp_path):
    leader, follower = pty.openpty()
    fcntl.ioctl(follower, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))  # a terminal 100 columns wide
    try:
        done, model = _fit(tmp_path, stderr=follower)
        os.close(follower)
        follower = -1
        seen = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the terminal closed: everything has been read
                break
            if not chunk:
                break
            seen += chunk
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)
    assert done.returncode == 0 and done.stdout.startswith("c45 tree from 14 rows")
    assert b"rows/s" in seen and b" nodes" in seen


def test_fit_progress_without_tqdm_names_the_extra(tmp_path, capsys, monkeypatch):
    monkeypatch.setitem(sys.modules, "tqdm", None)  # import tqdm now fails
    code = main(["fit", str(TENNIS), "--target", "play", "-o", str(tmp_path / "m.json"), "--progress"])
    assert code == 2
    assert capsys.readouterr().err == "puretree: error: --progress needs tqdm: pip install 'puretree[cli]'\n"
    assert not (tmp_path / "m.json").exists()


def test_progress_must_be_callable():
    with pytest.raises(puretree.ParameterError, match="progress must be a function"):
        puretree.grow(puretree.datasets.load_playtennis(), progress=3)
