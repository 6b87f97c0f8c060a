"""The compiled kernel as the package builds, ships, checks and runs it.

- The C is portable: it compiles cleanly under ``-std=c11 -Wall -Wextra -Werror -pedantic`` with
  gcc, clang and Debian's MinGW cross-compiler (a Windows DLL exporting the kernel's functions);
  the gcc and clang builds grow the reference's trees.
- The wheel holds the compiled library; installed into a fresh virtual environment, a fit uses
  it and writes nothing outside the environment and the user's output.
- Built without a compiler, the package still installs; the first fit warns once
  (:class:`puretree.KernelUnavailableWarning`) and numpy grows the same trees.
- A library that is missing, damaged, foreign or stale is never loaded: numpy takes over, with
  the warning, in a process that goes on (a library cut short used to kill it with SIGBUS).
- A long compiled fit stops on Ctrl-C within a second or two.

Every check runs in a fresh Python (the library is loaded once per process).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest

from puretree.growth import kernels

from test_packaging import ROOT, build_wheel

SOURCE = ROOT / "puretree" / "growth" / "_kernel.c"
#: Every C source of the library (setup.py's SOURCES): the kernel, the binned source's loops, the random splitter's tree, TreeSHAP.
SOURCES = [SOURCE, ROOT / "puretree" / "growth" / "_histograms.c", ROOT / "puretree" / "growth" / "_random_cuts.c", ROOT / "puretree" / "growth" / "_treeshap.c"]
STRICT = ["-std=c11", "-Wall", "-Wextra", "-Werror", "-pedantic", "-O2", "-ffp-contract=off"]


def _default_sigint() -> None:
    """Give the child Ctrl-C as a terminal does: a suite started in the background (a shell's ``&``)
    passes SIGINT on as ignored, and Python then installs no KeyboardInterrupt handler."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def write_record(library: Path) -> None:
    """The record setup.py writes next to a library it built."""
    facts = {"library": library.name, "size": library.stat().st_size, "sha256": hashlib.sha256(library.read_bytes()).hexdigest(), "source_sha256": hashlib.sha256(SOURCE.read_bytes()).hexdigest(),
             "sources": {path.relative_to(ROOT / "puretree").as_posix(): hashlib.sha256(path.read_bytes()).hexdigest() for path in SOURCES}}
    library.with_name("_kernel_lib.json").write_text(json.dumps(facts))


def run_python(code: str, *, env: dict[str, str], cwd: Path | None = None, python: str = sys.executable) -> subprocess.CompletedProcess:
    return subprocess.run([python, "-c", textwrap.dedent(code)], env=env, cwd=cwd, capture_output=True, text=True, timeout=600)


#: A few fits checked against the reference; prints the library's path, or "numpy".
CHECK = """
    import sys, warnings
    import numpy as np
    from puretree.growth import kernels
    from puretree.grow import cart

    rng = np.random.default_rng(1)
    X = rng.integers(0, 9, size=(400, 4)).astype(float)
    y = (X[:, 0] + rng.integers(0, 4, size=400) > 6).astype(int) + (X[:, 2] > 5)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert cart(X, y) == cart(X, y, engine="reference")
        assert cart(X, y, max_features=2, seed=3) == cart(X, y, max_features=2, seed=3, engine="reference")
        assert cart(X, y, sample_weight=rng.random(400) + 0.5).root.counts is not None
        assert cart(X, y, max_bins=5) == cart(X, y, max_bins=5, engine="numpy")  # the binned source's C and numpy
        from puretree import explain  # the compiled TreeSHAP gives contributions' floats; numpy's, to rounding
        values, want = explain.shap_values(cart(X, y), X).values.transpose(0, 2, 1), explain.contributions(cart(X, y), X)[:, :, :-1]
        assert (explain._compiled() is not None) == (kernels.library() is not None)
        assert np.array_equal(values, want) if kernels.library() is not None else np.allclose(values, want, rtol=0, atol=1e-12)
    for w in caught:
        print("WARNING", w.category.__name__, str(w.message).replace(chr(10), " "))
    print(kernels.library()._name if kernels.library() is not None else "numpy")
"""


@pytest.mark.parametrize("compiler", ["gcc", "clang", "x86_64-w64-mingw32-gcc"])
def test_the_c_compiles_cleanly_with_each_compiler(compiler, tmp_path):
    # .ci/system-deps installs the three; a warning of any of them is an error
    path = shutil.which(compiler)
    assert path, f"{compiler} is missing (.ci/system-deps installs it)"
    windows = "mingw" in compiler
    library = tmp_path / ("_kernel_lib.dll" if windows else "_kernel_lib.so")
    extra = ["-shared"] if windows else ["-shared", "-fPIC", "-pthread", "-fvisibility=hidden"]
    done = subprocess.run([path, *STRICT, *extra, "-o", str(library), *map(str, SOURCES), *([] if windows else ["-lm"])], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0 and done.stderr == "", done.stderr
    wanted = {"pt_scan_level", "pt_partition_level", "pt_c45_scan", "pt_subset_orders", "pt_walk", "pt_gini", "pt_gini_decrease", "pt_hist_accumulate", "pt_hist_move", "pt_hist_cuts", "pt_treeshap", "pt_treeshap_paths"}
    if windows:  # a DLL that exports the kernel's functions and needs no POSIX threads
        table = subprocess.run([shutil.which("x86_64-w64-mingw32-objdump") or "x86_64-w64-mingw32-objdump", "-p", str(library)], capture_output=True, text=True, check=True).stdout
        assert wanted <= set(table.split()) and "pthread" not in table
        return
    # the build grows the reference's trees
    write_record(library)
    done = run_python(CHECK, env={**os.environ, "PURETREE_KERNEL_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [str(library)]


def fresh_environment(folder: Path, wheel: Path) -> str:
    """A new virtual environment holding the wheel (installed offline by pip) and seeing the
    test environment's libraries (numpy, attrs, ...) after its own; its Python."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(folder)], check=True, timeout=300)
    python = str(folder / ("Scripts/python.exe" if os.name == "nt" else "bin/python"))
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # pip looks at the new environment alone
    done = subprocess.run([sys.executable, "-m", "pip", "--python", python, "install", "--no-deps", "--no-index", "-q", str(wheel)], capture_output=True, text=True, timeout=300, env=env)
    assert done.returncode == 0, done.stderr
    site = subprocess.run([python, "-c", "import sysconfig; print(sysconfig.get_path('platlib'))"], capture_output=True, text=True, check=True).stdout.strip()
    import arff
    import attrs
    import jinja2

    found = {str(Path(np.__file__).parents[1]), str(Path(attrs.__file__).parents[1]), str(Path(jinja2.__file__).parents[1]), str(Path(arff.__file__).parent)}
    (Path(site) / "test_dependencies.pth").write_text("\n".join(sorted(found)) + "\n")
    return python


def clean_env(home: Path, tmp: Path) -> dict[str, str]:
    """The environment of a user's process: their own home and temporary folder, no source tree
    on the path, no bytecode written into the shared test environment."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "XDG_CACHE_HOME", "PURETREE_KERNEL_DIR", "PURETREE_ENGINE")}
    return {**env, "HOME": str(home), "TMPDIR": str(tmp), "PYTHONDONTWRITEBYTECODE": "1"}


def test_the_installed_wheel_fits_with_its_compiled_kernel_and_writes_nothing_else(tmp_path):
    wheel, _ = build_wheel(tmp_path / "build")
    python = fresh_environment(tmp_path / "env", wheel)
    home, tmp, work = tmp_path / "home", tmp_path / "tmp", tmp_path / "work"
    for d in (home, tmp, work):
        d.mkdir()
    code = """
        import sys, warnings
        warnings.simplefilter("error")  # no KernelUnavailableWarning, nor any other
        import numpy as np, puretree
        from puretree.growth import kernels
        from puretree.grow import cart, c45

        assert puretree.__file__.startswith(sys.prefix), puretree.__file__
        rng = np.random.default_rng(0)
        X = rng.random((3000, 5))
        y = (X[:, 0] + X[:, 1] > 1).astype(int)
        tree = cart(X, y)
        assert kernels.fits() == 1 and tree == cart(X, y, engine="reference")
        assert cart(X, y, engine="c") == tree
        c45(X[:500], y[:500])
        puretree.save(tree, "tree.json")
        print(kernels.library()._name)
    """
    done = run_python(code, env=clean_env(home, tmp), cwd=work, python=python)
    assert done.returncode == 0, done.stderr
    (loaded,) = done.stdout.split()
    assert Path(loaded).name == "_kernel_lib.so" and Path(loaded).is_relative_to(tmp_path / "env")  # the wheel's own
    # nothing written but the user's output: no cache in the home folder, no temporary files
    assert [p.name for p in work.iterdir()] == ["tree.json"]
    assert list(home.iterdir()) == [] and list(tmp.iterdir()) == []


def test_built_without_a_compiler_it_installs_and_warns_once(tmp_path):
    # CC names a missing program: setuptools cannot compile; the build goes on without the kernel
    env = {**os.environ, "CC": str(tmp_path / "no-such-cc")}
    wheel, output = build_wheel(tmp_path / "build", env=env, verbose=True)
    assert "puretree: the C growth kernel was not compiled" in output
    assert not [n for n in zipfile.ZipFile(wheel).namelist() if "_kernel_lib" in n]
    python = fresh_environment(tmp_path / "env", wheel)
    home, tmp = tmp_path / "home", tmp_path / "tmp"
    home.mkdir()
    tmp.mkdir()
    code = """
        import warnings
        import numpy as np, puretree
        from puretree.grow import cart

        X = np.array([[1.0, 5.0], [2.0, 4.0], [3.0, 3.0], [4.0, 1.0]])
        y = ["a", "a", "b", "b"]
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            first, second = cart(X, y), cart(X, y)
        assert first == second == cart(X, y, engine="reference")
        (w,) = caught
        assert issubclass(w.category, puretree.KernelUnavailableWarning) and issubclass(w.category, puretree.PuretreeWarning)
        print(w.message)
        try:
            cart(X, y, engine="c")
        except puretree.PuretreeError as error:
            print("ERROR", error)
    """
    done = run_python(code, env=clean_env(home, tmp), cwd=tmp_path, python=python)
    assert done.returncode == 0, done.stderr
    message, error = done.stdout.strip().split("\n")
    assert "no compiled kernel in" in message and "pip install" in message and "C compiler" in message and "PURETREE_ENGINE=numpy" in message
    assert error.startswith("ERROR engine='c' needs puretree's compiled kernel, which is unavailable here")


def _libm() -> Path:
    """Another shared library of this process (the C maths library): foreign to puretree."""
    for line in Path("/proc/self/maps").read_text().splitlines():
        path = line.split()[-1]
        if "/libm.so" in path or "/libm-" in path:
            return Path(path)
    raise AssertionError("libm is not mapped")  # pragma: no cover


def _damage(folder: Path, how: str) -> None:
    """The package's built library and its record, copied into ``folder`` and spoiled ``how``."""
    built = Path(kernels.__file__).parent
    shutil.copy(built / "_kernel_lib.json", folder / "_kernel_lib.json")
    library = folder / "_kernel_lib.so"
    data = (built / "_kernel_lib.so").read_bytes()
    if how == "cut short":  # as a copy interrupted half way
        library.write_bytes(data[: len(data) // 2])
    elif how == "foreign":  # another library under its name
        shutil.copy(_libm(), library)
    elif how == "foreign, recorded":  # ... even with a record that matches it
        shutil.copy(_libm(), library)
        write_record(library)
    elif how == "missing":
        pass
    elif how == "record damaged":
        library.write_bytes(data)
        (folder / "_kernel_lib.json").write_text('{"library": "_kernel_lib.so", "size": ')
    elif how == "stale":  # the source changed since the build
        library.write_bytes(data)
        (folder / "_kernel.c").write_text(SOURCE.read_text() + "\n/* changed */\n")
    elif how.startswith("stale _"):  # another source compiled in (the binned source's loops, ...) changed since the build
        library.write_bytes(data)
        source = next(path for path in SOURCES if path.name == how.split()[1])
        (folder / source.name).write_text(source.read_text() + "\n/* changed */\n")  # next to the library, as in the package


@pytest.mark.parametrize(
    "how, says",
    [
        ("cut short", "damaged or replaced"),
        ("foreign", "damaged or replaced"),
        ("foreign, recorded", "does not load as puretree's kernel"),
        ("missing", "cannot be read"),
        ("record damaged", "cannot be read"),
        ("stale", "is older than"),
        ("stale _histograms.c", "is older than"),
        ("stale _random_cuts.c", "is older than"),
        ("stale _treeshap.c", "is older than"),
    ],
)
def test_a_bad_library_is_never_loaded_and_numpy_takes_over(tmp_path, how, says):
    _damage(tmp_path, how)
    done = run_python(CHECK, env={**os.environ, "PURETREE_KERNEL_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr  # no SIGBUS, no AttributeError
    *warned, last = done.stdout.strip().split("\n")
    assert last == "numpy"
    (warning,) = warned
    assert warning.startswith("WARNING KernelUnavailableWarning") and says in warning, warning


def test_a_long_compiled_fit_stops_on_ctrl_c(tmp_path):
    # 1,000,000 x 10 of noise: a fit of many seconds in the C; Ctrl-C ends it within ~a second
    code = """
        import resource, sys, time
        resource.setrlimit(resource.RLIMIT_AS, (8 * 2**30, 8 * 2**30))
        import numpy as np
        from puretree.growth import kernels
        from puretree.grow import cart

        rng = np.random.default_rng(0)
        X = np.asfortranarray(rng.random((1_000_000, 10)))
        y = rng.integers(0, 2, size=1_000_000)
        sorted_once = kernels.shared_presort(X, kernels.presort(X))  # sorted before: the fit starts in the C at once
        sorted_once.__enter__()
        print("fitting", flush=True)
        cart(X, y, engine="c")
        print("finished", flush=True)
    """
    child = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)
    try:
        assert child.stdout is not None and child.stdout.readline() == "fitting\n"
        time.sleep(2.0)  # the C grows the tree by now (the whole fit takes many seconds)
        assert child.poll() is None, "the fit ended before it could be interrupted"
        child.send_signal(signal.SIGINT)
        sent = time.monotonic()
        out, err = child.communicate(timeout=60)
        took = time.monotonic() - sent
    finally:
        if child.poll() is None:  # pragma: no cover - a fit that did not stop
            child.kill()
            child.communicate()
    assert "finished" not in out and child.returncode != 0
    assert "KeyboardInterrupt" in err, err[-2000:]
    assert took < 2.0, f"the fit took {took:.1f} s to stop"
