"""What the wheel says about itself: license file, classifiers, URLs, keywords, py.typed."""

from __future__ import annotations

import email.parser
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    # Built offline with the hatchling of the test environment (the test extra), as
    # tests/test_codegen_wheel.py builds the generated packages.
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(ROOT)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    (path,) = out.glob("puretree-*.whl")
    return zipfile.ZipFile(path)


def _metadata(wheel):
    (name,) = [n for n in wheel.namelist() if n.endswith(".dist-info/METADATA")]
    return email.parser.Parser().parsestr(wheel.read(name).decode("utf-8"))


def test_the_wheel_carries_the_license(wheel):
    meta = _metadata(wheel)
    assert meta["License-Expression"] == "MIT"
    assert meta.get_all("License-File") == ["LICENSE"]
    (license_file,) = [n for n in wheel.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
    assert wheel.read(license_file).decode() == (ROOT / "LICENSE").read_text()
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")


def test_the_wheel_describes_the_project(wheel):
    meta = _metadata(wheel)
    classifiers = meta.get_all("Classifier")
    assert "Typing :: Typed" in classifiers and "Programming Language :: Python :: 3" in classifiers
    assert any(c.startswith("Topic :: ") for c in classifiers) and any(c.startswith("Development Status :: ") for c in classifiers)
    urls = dict(u.split(", ", 1) for u in meta.get_all("Project-URL"))
    assert {"Homepage", "Documentation", "Source", "Issues"} <= set(urls)
    assert all(u.startswith("https://") for u in urls.values())
    assert "decision tree" in meta["Keywords"].split(",")
    assert "tqdm>=4.66; extra == 'cli'" in meta.get_all("Requires-Dist")


def test_the_wheel_is_typed(wheel):
    assert "puretree/py.typed" in wheel.namelist()


def test_trove_classifiers_are_known(wheel):
    import trove_classifiers  # installed with hatchling (the test extra)

    trove = trove_classifiers
    assert set(_metadata(wheel).get_all("Classifier")) <= trove.classifiers
