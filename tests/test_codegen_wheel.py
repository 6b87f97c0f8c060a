"""The templates ship inside the wheel: code generation works from an installed wheel, not
only from the source checkout."""

import subprocess
import sys
import zipfile

import pytest

SCRIPT = r"""
import sys
sys.path.insert(0, sys.argv[1])
import puretree
from puretree.codegen import generate, template_roots
from puretree.datasets import load_playtennis
from puretree.grow import id3
assert puretree.__file__.startswith(sys.argv[1]), puretree.__file__
root = template_roots()[0]
assert str(root).startswith(sys.argv[1]) and root.parts[-2:] == ("puretree", "codegen_templates"), root
tree = id3(load_playtennis())
for target in ("python", "c", "c-table"):
    files = generate(tree, target, name="tennis")
    print(target, sorted(files), sum(len(v) for v in files.values()))
"""


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(out), str(root)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    (path,) = out.glob("puretree-*.whl")
    return path


def test_wheel_carries_the_templates(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    for template in ("python/NAME.py.j2", "c/NAME.c.j2", "c/NAME.h.j2", "c-table/NAME.c.j2", "c-table/NAME.h.j2"):
        assert f"puretree/codegen_templates/{template}" in names
    # puretree.mcu's startup code, linker scripts and row runner (package data).
    for data in ("startup.c", "runner.c", "runner.h", "mps2.ld", "microbit.ld", "sections.ld"):
        assert f"puretree/mcu_data/{data}" in names


def test_code_generation_from_the_installed_wheel(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    done = subprocess.run([sys.executable, "-c", SCRIPT, str(site)], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert [line.split(" ")[0] for line in lines] == ["python", "c", "c-table"]
    assert "['tennis.c', 'tennis.h']" in lines[1]
