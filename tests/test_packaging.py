"""What the wheel says about itself: license file, classifiers, URLs, keywords, py.typed, and
what it holds (the compiled kernel: tests/test_kernel_build.py installs and runs it)."""

from __future__ import annotations

import email.parser
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: What a copy of the source tree leaves out: environments, builds, caches, a library built in place.
_NOT_SOURCE = shutil.ignore_patterns(".venv*", ".git", "build", "dist", "site", "*.egg-info", "__pycache__", ".hypothesis", ".mypy_cache", ".pytest_cache", "_kernel_lib.*")


def build_wheel(out: Path, *, env: dict[str, str] | None = None, verbose: bool = False) -> tuple[Path, str]:
    """puretree's wheel built into ``out`` from a copy of the source tree (so that the build's
    files stay out of the tree), offline with the setuptools of the test environment (the test
    extra); the wheel's path and the build's output."""
    source = out / "source"
    shutil.copytree(ROOT, source, ignore=_NOT_SOURCE, symlinks=True)
    command = [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-v" if verbose else "-q", "-w", str(out), str(source)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, env=env)
    assert done.returncode == 0, done.stderr
    (path,) = out.glob("puretree-*.whl")
    return path, done.stdout + done.stderr


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    path, _ = build_wheel(tmp_path_factory.mktemp("wheel"))
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
    assert "tqdm>=4.66; extra == 'cli'" in [r.replace('"', "'") for r in meta.get_all("Requires-Dist")]  # either quote is valid


def test_the_wheel_is_typed(wheel):
    assert "puretree/py.typed" in wheel.namelist()


def test_trove_classifiers_are_known(wheel):
    import trove_classifiers  # installed with hatchling (the test extra)

    trove = trove_classifiers
    assert set(_metadata(wheel).get_all("Classifier")) <= trove.classifiers


def test_the_wheel_holds_the_compiled_kernel_and_its_record(wheel):
    import hashlib
    import json
    import sysconfig

    names = wheel.namelist()
    record = json.loads(wheel.read("puretree/growth/_kernel_lib.json"))
    library = wheel.read(f"puretree/growth/{record['library']}")
    assert record["library"] == "_kernel_lib.so" and len(library) == record["size"]
    assert hashlib.sha256(library).hexdigest() == record["sha256"]
    assert record["source_sha256"] == hashlib.sha256((ROOT / "puretree" / "growth" / "_kernel.c").read_bytes()).hexdigest()
    sources = {f"growth/{name}": ROOT / "puretree" / "growth" / name for name in ("_kernel.c", "_histograms.c", "_random_cuts.c", "_treeshap.c")}
    assert not any(f"puretree/{name}" in names for name in sources)  # compiled, not shipped
    assert record["sources"] == {name: hashlib.sha256(path.read_bytes()).hexdigest() for name, path in sources.items()}  # the record covers every source built in
    # a platform wheel for every Python 3 (the library calls nothing of Python's)
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    assert Path(wheel.filename).name == f"puretree-0.1.0-py3-none-{platform}.whl"
    assert "puretree/codegen_templates/c/NAME.c.j2" in names and "puretree/mcu_data/runner.c" in names
