"""Builds puretree's compiled growth kernel when the package is built (pyproject.toml holds the rest).

``puretree/growth/_kernel.c`` becomes a plain shared library inside the package (``puretree/growth/_kernel_lib``
with the platform's suffix: ``.so``, ``.dylib`` or ``.dll``), which :mod:`puretree.growth.kernels` loads
with ctypes, as LightGBM loads ``lib_lightgbm``. It is built with setuptools' ``Extension`` (as
emlearn builds its C): setuptools finds the platform's C compiler (gcc, clang, MSVC, MinGW) and
builds extensions in place for an editable install (``pip install -e .``), with nothing to
install on the user's machine beyond a C compiler (meson-python and scikit-build-core would add
meson or CMake and ninja). Next to the library goes its record, ``_kernel_lib.json`` (its size
and SHA-256, the SHA-256 of ``_kernel.c`` and of every source compiled into it), which the loader checks
before it loads anything. ``puretree/growth/_histograms.c`` (the binned source's loops) is compiled
into the same library, and so are ``puretree/growth/_random_cuts.c`` (the random splitter's tree) and
``puretree/growth/_treeshap.c`` (path-dependent TreeSHAP, :func:`puretree.shap_values`).

The library calls nothing of Python's, so one build serves every Python 3 of the platform: the
wheel is tagged ``py3-none-<platform>``. Without a C compiler (or when compiling fails) the build
goes on without the library, with a message: the package installs, and grows every tree with
numpy (:class:`puretree.KernelUnavailableWarning` says so at the first fit).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py
from setuptools.errors import BaseError, CCompilerError

SOURCE = "puretree/growth/_kernel.c"
#: Every C source of the library: the growth kernel, the binned source's loops, the random splitter, TreeSHAP.
SOURCES = [SOURCE, "puretree/growth/_histograms.c", "puretree/growth/_random_cuts.c", "puretree/growth/_treeshap.c"]
#: The record of the built library, next to it (puretree.growth.kernels.RECORD reads it).
RECORD = "_kernel_lib.json"

#: Every floating-point operation as written: no fused multiply-add, no -ffast-math (the scores
#: must be the very floats of the Python reference); C11 (-fno-wrapv: not the -fwrapv of Python's own
#: flags, which setuptools passes first; the C relies on no signed overflow); the pt_ functions alone exported.
GCC_FLAGS = ["-std=c11", "-O2", "-fno-wrapv", "-ffp-contract=off", "-fvisibility=hidden"]
#: MSVC contracts nothing under /fp:precise (its default, spelled out).
MSVC_FLAGS = ["/O2", "/fp:precise"]


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class BuildKernel(build_ext):
    """``build_ext`` for a ctypes library: a plain file name, no ``PyInit_`` export, puretree's
    flags, a record of what was built, and a build without a compiler that goes on without it."""

    def get_ext_filename(self, fullname: str) -> str:
        suffix = ".dll" if sys.platform == "win32" else ".dylib" if sys.platform == "darwin" else ".so"
        return os.path.join(*fullname.split(".")) + suffix

    def get_export_symbols(self, ext: Extension) -> list[str]:
        # setuptools would export PyInit_<name>, which this library has not (MSVC's link fails);
        # the C marks its own exports (PT_EXPORT)
        return []

    def build_extension(self, ext: Extension) -> None:
        library = Path(self.get_ext_fullpath(ext.name))
        record = library.with_name(RECORD)
        record.unlink(missing_ok=True)  # a failed build leaves no record of an older library
        kind = getattr(self.compiler, "compiler_type", "unix")
        ext.extra_compile_args = MSVC_FLAGS if kind == "msvc" else GCC_FLAGS + ([] if sys.platform == "win32" else ["-pthread"])
        ext.extra_link_args = [] if sys.platform == "win32" or kind == "msvc" else ["-pthread"]
        ext.libraries = [] if sys.platform == "win32" else ["m"]
        try:
            super().build_extension(ext)
        except (CCompilerError, BaseError, OSError) as error:
            library.unlink(missing_ok=True)
            print(
                f"puretree: the C growth kernel was not compiled ({type(error).__name__}: {error}); puretree installs "
                "without it and grows every tree with numpy (the same trees, slower). For the fast path install a C "
                "compiler and reinstall puretree.",
                file=sys.stderr,
            )
            return
        facts = {
            "library": library.name, "size": library.stat().st_size, "sha256": _digest(library), "source_sha256": _digest(Path(SOURCE)),
            # every source built in, by its path inside the package (the loader finds a stale one)
            "sources": {Path(s).relative_to("puretree").as_posix(): _digest(Path(s)) for s in SOURCES},
        }  # fmt: skip
        record.write_text(json.dumps(facts, indent=1) + "\n")

    def copy_extensions_to_source(self) -> None:
        # in place (pip install -e ., build_ext --inplace): the record goes with its library, and
        # a build that failed leaves neither an older library nor its record behind
        super().copy_extensions_to_source()
        build_py = self.get_finalized_command("build_py")
        for ext in self.extensions:
            inplace, regular = (Path(p) for p in self._get_inplace_equivalent(build_py, ext))
            if regular.is_file() and regular.with_name(RECORD).is_file():
                self.copy_file(str(regular.with_name(RECORD)), str(inplace.with_name(RECORD)), level=self.verbose)
            else:
                inplace.unlink(missing_ok=True)
                inplace.with_name(RECORD).unlink(missing_ok=True)

    def _get_output_mapping(self):  # type: ignore[no-untyped-def]  # setuptools' editable install: what build_ext put where
        for regular, inplace in super()._get_output_mapping():
            yield regular, inplace
            if Path(regular).suffix in (".so", ".dylib", ".dll"):
                yield str(Path(regular).with_name(RECORD)), str(Path(inplace).with_name(RECORD))


class BuildPy(build_py):
    """Also copies the code generation templates (``codegen_templates/``, kept at the top of the
    source tree) into the package, where :mod:`puretree.codegen.render` finds them installed."""

    def run(self) -> None:
        super().run()
        shutil.copytree("codegen_templates", os.path.join(self.build_lib, "puretree", "codegen_templates"), dirs_exist_ok=True)


class Wheel(bdist_wheel):
    """The kernel uses no Python API: one wheel per platform, for every Python 3."""

    def get_tag(self) -> tuple[str, str, str]:
        _, _, platform = super().get_tag()
        return "py3", "none", platform


setup(
    ext_modules=[Extension("puretree.growth._kernel_lib", sources=SOURCES, optional=True)],
    cmdclass={"build_ext": BuildKernel, "build_py": BuildPy, "bdist_wheel": Wheel},
)
