"""The examples run as a user would run them, and print what they promise."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def run(name):
    done = subprocess.run([sys.executable, "-W", "error", str(EXAMPLES / name)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    return done.stdout


def test_quickstart():
    out = run("quickstart.py")
    assert "E(S) = 0.940" in out
    gains = {k: float(v) for k, v in re.findall(r"Gain\(S, (\w+)\s*\) = (\d\.\d+)", out)}
    assert list(gains) == ["outlook", "humidity", "wind", "temperature"]  # best first
    assert gains == pytest.approx({"outlook": 0.246, "humidity": 0.151, "wind": 0.048, "temperature": 0.029}, abs=1e-3)
    assert "outlook = overcast: yes (4)\n" in out
    assert "|   humidity = normal: yes (2)\n" in out
    assert "nodes: 8, leaves: 5, depth: 2" in out
    predictions = re.findall(r"-> play = (\w+)", out)
    assert predictions == ["no", "yes", "yes", "yes"]  # the last outlook ("foggy") was never seen
    assert out.count("was never seen in training") == 1 and "'foggy' was never seen in training" in out  # and says so (issue 26)


def test_custom_criterion():
    out = run("custom_criterion.py")
    assert "impurity_decrease(my_gini)" in out
    assert "same as the built-in gini: True" in out
    assert "root by gain in nats: True" in out
    assert re.search(r"humidity\s+gain 0\.152\s+cost\s+2\s+gain\*\*2/cost 0\.0115", out)
    assert "root attribute: humidity" in out
    assert out.rstrip().splitlines()[-1].startswith("nodes: ")
