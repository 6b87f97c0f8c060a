"""The package type-checks: ``mypy -p puretree`` (the version pinned in constraints/test.txt,
settings in pyproject.toml) reports no error, and ``py.typed`` tells type checkers to read it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import puretree

ROOT = Path(__file__).resolve().parents[1]


def test_the_package_says_it_is_typed():
    assert (Path(puretree.__file__).parent / "py.typed").is_file()


def test_mypy_reports_no_error():
    # A subprocess from the repository root: mypy reads [tool.mypy] there and keeps its cache
    # in .mypy_cache, so later runs check only what changed.
    done = subprocess.run([sys.executable, "-m", "mypy", "-p", "puretree"], capture_output=True, text=True, cwd=ROOT, timeout=900)
    assert done.returncode == 0, done.stdout[-5000:] + done.stderr[-2000:]
    assert done.stdout.startswith("Success: no issues found")
