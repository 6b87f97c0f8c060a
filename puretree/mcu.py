"""Generated C on emulated microcontrollers: build a firmware, run it in QEMU, read its answers.

The startup code and linker scripts live in one place, ``puretree/mcu_data/`` (shipped in
the wheel): ``startup.c`` (vector table, reset handler, faults end the run), one linker
script per board family (``mps2.ld``, ``microbit.ld``, sharing ``sections.ld``) and
``runner.c``, a program that reads rows from the host through semihosting (newlib's
``librdimon``, ``--specs=rdimon.specs``) and writes every answer back. One firmware holds
any number of generated models of one feature type, so a whole matrix of checks needs one
build and one QEMU run per board and feature type, however many rows it checks.

=============  ==============  ====================================================
core           QEMU machine    compiler flags (``arm-none-eabi-gcc``)
=============  ==============  ====================================================
``cortex-m0``  ``microbit``    ``-mcpu=cortex-m0 -mthumb`` (soft float; 16 KiB RAM)
``cortex-m3``  ``mps2-an385``  ``-mcpu=cortex-m3 -mthumb`` (soft float)
``cortex-m4``  ``mps2-an386``  ``-mcpu=cortex-m4 -mthumb -mfpu=fpv4-sp-d16 -mfloat-abi=hard``
``cortex-m7``  ``mps2-an500``  ``-mcpu=cortex-m7 -mthumb -mfpu=fpv5-d16 -mfloat-abi=hard``
=============  ==============  ====================================================

Everything is compiled with :data:`OPT_FLAGS`; the generated files also with
``-std=c99 -Wall -Wextra -Werror -pedantic -Wconversion``, as on the host.

Needs Debian's ``gcc-arm-none-eabi``, ``libnewlib-arm-none-eabi`` and ``qemu-system-arm``;
:func:`check_tools` names the missing ones.

>>> sorted(CORES)
['cortex-m0', 'cortex-m3', 'cortex-m4', 'cortex-m7']
>>> CORES["cortex-m4"].machine
'mps2-an386'
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

import attrs
import numpy as np

from .codegen import literals as lit
from .codegen.render import generate
from .errors import CodegenError

__all__ = [
    "Board",
    "CORES",
    "board",
    "OPT_FLAGS",
    "STRICT_FLAGS",
    "STACK_FLAGS",
    "HELPER_STACK_BYTES",
    "Program",
    "Stack",
    "data_dir",
    "check_tools",
    "program_for",
    "build_firmware",
    "Run",
    "run_firmware",
    "rows_runner",
    "instructions_per_prediction",
    "measure_stack",
    "read_stack",
    "generate_with_stack",
    "measured_files",
    "stack_block",
    "instructions_block",
    "unmeasured_block",
    "with_unmeasured_note",
    "PACKAGES",
    "DEFAULT_CORE",
    "FINE_SHIFT",
    "QUANTIZED_FEATURE_TYPES",
]


@attrs.frozen
class Board:
    """An emulated board: the core's name, QEMU's machine, the compiler's flags for the core,
    the linker script (in :func:`data_dir`) and the RAM available (bytes)."""

    core: str
    machine: str
    cflags: tuple[str, ...]
    linker_script: str
    ram: int


CORES: dict[str, Board] = {
    "cortex-m0": Board("cortex-m0", "microbit", ("-mcpu=cortex-m0", "-mthumb", "-mfloat-abi=soft"), "microbit.ld", 16 * 1024),
    "cortex-m3": Board("cortex-m3", "mps2-an385", ("-mcpu=cortex-m3", "-mthumb", "-mfloat-abi=soft"), "mps2.ld", 4 << 20),
    "cortex-m4": Board("cortex-m4", "mps2-an386", ("-mcpu=cortex-m4", "-mthumb", "-mfpu=fpv4-sp-d16", "-mfloat-abi=hard"), "mps2.ld", 4 << 20),
    "cortex-m7": Board("cortex-m7", "mps2-an500", ("-mcpu=cortex-m7", "-mthumb", "-mfpu=fpv5-d16", "-mfloat-abi=hard"), "mps2.ld", 4 << 20),
}

#: Optimisation flags of every object in a firmware (the sizes and counts documented are for these).
OPT_FLAGS = ("-Os", "-ffunction-sections", "-fdata-sections")
#: The generated files are held to the host's strict flags on the target too.
STRICT_FLAGS = ("-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic", "-Wconversion")
#: What the measured stack figure is for: the core's flags, then these (``-fstack-usage``
#: writes each function's frame, ``-fcallgraph-info=su`` the calls between them). The same
#: optimisation flags as the firmware: ``-fdata-sections`` alone changes frames (every table
#: gets its own base register instead of one section anchor).
_STACK_OUTPUTS = ("-fstack-usage", "-fcallgraph-info=su")
STACK_FLAGS = ("-std=c99", *OPT_FLAGS, *_STACK_OUTPUTS)
#: Stack the compiler's helpers (soft-float routines, memcpy) add below a generated function,
#: at most, as measured on the emulated boards by tests/test_mcu.py (painted stack).
HELPER_STACK_BYTES = 64

#: The feature types of quantized (fixed-point) code, codegen's ``quantize=``: tests/test_mcu.py
#: adds each model's quantized forms to these types' firmwares (the integer rows go through the
#: runner as any int8/int16/int32 rows do: ``lit.C_TYPES`` and :func:`_encode`).
QUANTIZED_FEATURE_TYPES: tuple[str, ...] = ("int8", "int16", "int32")

GCC = "arm-none-eabi-gcc"
QEMU = "qemu-system-arm"
#: QEMU's ``-icount shift`` for timing single calls: each instruction advances the virtual
#: clock 2**6 ns, so SysTick (25 MHz on the MPS2 boards, 16 MHz on the micro:bit) ticks at least
#: once per instruction (at shift 0, once per 40 on the MPS2 boards). Its 24-bit counter then
#: wraps after about 10 million instructions: the most one timed stretch (a call, or the
#: calibration loop) may take.
FINE_SHIFT = 6
_MAGIC = 0x4A4F4250
_CALIBRATE = 0xFFFFFFFF


def data_dir() -> Path:
    """The folder of startup code, linker scripts and the row runner (package data)."""
    return Path(__file__).resolve().parent / "mcu_data"


def board(core: str) -> Board:
    """The board emulating ``core``; an unknown core is a :class:`CodegenError`.

    >>> board("cortex-m0").machine
    'microbit'
    """
    if core not in CORES:
        raise CodegenError(f"unknown core {core!r}; choose one of {', '.join(sorted(CORES))}")
    return CORES[core]


def check_tools(*, qemu: bool = True) -> None:
    """Raise :class:`CodegenError` naming the Debian packages missing for emulated runs."""
    missing = []
    if shutil.which(GCC) is None:
        missing.append("gcc-arm-none-eabi")
    elif not _rdimon_found():
        missing.append("libnewlib-arm-none-eabi")
    if qemu and shutil.which(QEMU) is None:
        missing.append("qemu-system-arm")
    if missing:
        raise CodegenError(f"running generated C on an emulated microcontroller needs {', '.join(missing)} (Debian: apt-get install {' '.join(missing)})")


def _rdimon_found() -> bool:
    done = subprocess.run([GCC, "-print-file-name=rdimon.specs"], capture_output=True, text=True)
    return done.returncode == 0 and os.path.isabs(done.stdout.strip())


@attrs.frozen
class Program:
    """One generated model inside a firmware: its name (the C prefix), files, number of
    features, of classes (0: regression) and whether it has ``predict_proba``; it provides
    ``NAME_predict`` (and ``NAME_predict_proba``) as generated code does."""

    name: str
    files: Mapping[str, str]
    n_features: int
    n_classes: int
    proba: bool
    #: Generated code is held to :data:`STRICT_FLAGS`; other code (a benchmark's peer) may
    #: opt out and add flags (include folders).
    strict: bool = True
    cflags: tuple[str, ...] = ()


def program_for(files: Mapping[str, str], *, name: str, n_features: int, n_classes: int, proba: bool) -> Program:
    """A :class:`Program` from generated C files (``NAME.c`` and ``NAME.h``)."""
    if f"{name}.c" not in files or f"{name}.h" not in files:
        raise CodegenError(f"no generated C files {name}.c and {name}.h to build")
    if n_features < 1:
        raise CodegenError("a model without features cannot be built for a microcontroller")
    return Program(name, dict(files), n_features, n_classes, proba and n_classes > 0)


def _models_c(programs: Sequence[Program]) -> str:
    # Names are checked C identifiers (codegen's check_options), so they are safe here.
    lines = ['#include "runner.h"']
    lines += [f'#include "{p.name}.h"' for p in programs]
    lines.append("const struct pt_model pt_models[] = {")
    for p in programs:
        if p.n_classes:
            proba = f"{p.name}_predict_proba" if p.proba else "0"
            lines.append(f"    {{ {p.n_features}u, {p.n_classes}u, {p.name}_predict, {proba}, 0 }},")
        else:
            lines.append(f"    {{ {p.n_features}u, 0u, 0, 0, {p.name}_predict }},")
    lines.append("};")
    lines.append(f"const uint32_t pt_n_models = {len(programs)}u;")
    return "\n".join(lines) + "\n"


def _run(cmd: Sequence[str], cwd: Path, what: str) -> None:
    done = subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        raise CodegenError(f"{what} failed ({' '.join(cmd)}): {done.stderr.strip()[:2000]}")


def build_firmware(programs: Sequence[Program], *, core: str, feature_type: str, workdir: str | os.PathLike[str]) -> Path:
    """Compile ``programs`` (all of ``feature_type``) with the startup code and the row
    runner into one firmware for ``core``, in ``workdir``; returns the ELF file."""
    b = board(core)
    check_tools(qemu=False)
    if not programs or len({p.name for p in programs}) != len(programs):
        raise CodegenError("a firmware needs models with distinct names")
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    data = data_dir()
    ctype = lit.C_TYPES[feature_type][0]
    base = [GCC, *b.cflags, *OPT_FLAGS, f"-I{data}", "-I."]
    objects = []
    for p in programs:
        for filename, text in p.files.items():
            (work / filename).write_text(text, encoding="utf-8")
        # The stack figures come with the build (read_stack): these flags do not change the code.
        strict = STRICT_FLAGS if p.strict else ("-std=c99",)
        _run([*base, *strict, *p.cflags, *_STACK_OUTPUTS, "-c", f"{p.name}.c", "-o", f"{p.name}.o"], work, f"compiling {p.name}.c for {core}")
        objects.append(f"{p.name}.o")
    (work / "pt_models.c").write_text(_models_c(programs), encoding="utf-8")
    elf = work / f"firmware-{core}.elf"
    _run([*base, "-std=c99", f"-DPT_FEATURE={ctype}", "--specs=rdimon.specs", "-nostartfiles", f"-L{data}", f"-T{b.linker_script}",
          "-Wl,--gc-sections", str(data / "startup.c"), str(data / "runner.c"), "pt_models.c", *objects, "-lm", "-o", str(elf)],
         work, f"linking the firmware for {core}")
    return elf


def _encode(rows: np.ndarray, feature_type: str) -> bytes:
    if feature_type == "double":
        return np.ascontiguousarray(rows, dtype="<f8").tobytes()
    if feature_type == "float":
        with np.errstate(over="ignore"):
            return np.ascontiguousarray(rows, dtype="<f4").tobytes()
    lo = lit.C_TYPES[feature_type][1][0]
    return np.where(np.isnan(rows), lo, rows).astype({"int8": "i1", "int16": "<i2"}.get(feature_type, "<i4")).tobytes()


def _answer_dtype(p: Program) -> np.dtype:
    if not p.n_classes:
        return np.dtype("<f8")
    if p.proba:
        return np.dtype([("c", "<i4"), ("c2", "<i4"), ("p", "<f8", (p.n_classes,))])
    return np.dtype("<i4")


def _decode(p: Program, raw: np.ndarray) -> list[Any]:
    """Answers in the form of :func:`puretree.codegen.verify.expected`'s comparison: a value
    (None for NaN), a class (None when refused) or ``(class, probabilities)``."""
    if not p.n_classes:
        return [None if np.isnan(v) else float(v) for v in raw.tolist()]
    if not p.proba:
        return [None if c < 0 else int(c) for c in raw.tolist()]
    if np.any(raw["c"] != raw["c2"]):
        raise CodegenError(f"predict and predict_proba disagree in the generated C of {p.name} on the microcontroller")
    return [None if c < 0 else (int(c), tuple(float(v) for v in ps)) for c, ps in zip(raw["c"].tolist(), raw["p"].tolist())]


@attrs.frozen
class Run:
    """What a firmware run returned: per job its answers (in the form of
    :func:`puretree.codegen.verify.run_c`), its ticks ``(predict, empty function)`` and the
    most stack one call used (when asked for), and the calibration loop's ticks."""

    answers: list[list[Any]]
    ticks: list[tuple[int, int]]
    calibration: int
    stacks: list[int]


def run_firmware(
    elf: str | os.PathLike[str],
    programs: Sequence[Program],
    jobs: Sequence[tuple[int, np.ndarray]],
    *,
    core: str,
    feature_type: str,
    workdir: str | os.PathLike[str],
    count: int = 0,
    calibrate: int = 0,
    stack: bool = False,
    timeout: float = 900.0,
    shift: int = 0,
) -> Run:
    """Run the firmware once in QEMU on ``jobs`` (``(index of the program, rows)``): a
    :class:`Run` with each job's answers, with ``count`` the SysTick ticks of ``count`` times each job's
    predictions and of as many calls of an empty function, and with ``calibrate`` the ticks of that many
    two-instruction loop iterations, and with ``stack`` the most stack any
    call of each job used, painted and read back (helpers included). QEMU runs with ``-icount shift=SHIFT`` (0 unless given): a tick is a fixed
    number of executed instructions, not cycles (:data:`FINE_SHIFT`). The timeout only guards against a hang."""
    b = board(core)
    check_tools()
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    chunks = []
    for index, rows in jobs:
        p = programs[index]
        rows = np.asarray(rows, dtype=np.float64).reshape(-1, p.n_features)
        flags = ((count << 8 | 1) if count else 0) | (2 if stack else 0)
        chunks.append(np.array([_MAGIC, index, len(rows), flags], dtype="<u4").tobytes())
        chunks.append(_encode(rows, feature_type))
    if calibrate:
        chunks.append(np.array([_MAGIC, _CALIBRATE, calibrate, 0], dtype="<u4").tobytes())
    (work / "pt-in.bin").write_bytes(b"".join(chunks))
    out = work / "pt-out.bin"
    out.unlink(missing_ok=True)
    cmd = [QEMU, "-machine", b.machine, "-nographic", "-monitor", "none", "-serial", "none", "-icount", f"shift={shift},align=off,sleep=off",
           "-semihosting-config", "enable=on,target=native", "-kernel", os.fspath(Path(elf).resolve())]
    try:
        done = subprocess.run(cmd, cwd=work, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise CodegenError(f"QEMU ({b.machine}) did not finish within {timeout:.0f} s") from None
    raw = out.read_bytes() if out.exists() else b""
    if done.returncode != 0 or not raw.endswith(b"PTOK"):
        raise CodegenError(f"the firmware failed on {b.machine} (QEMU exit {done.returncode}): {(done.stdout + done.stderr).strip()[:2000] or 'no output (a fault?)'}")
    answers, ticks, stacks, pos = [], [], [], 0
    for index, rows in jobs:
        p = programs[index]
        n = len(np.asarray(rows).reshape(-1, p.n_features))
        dt = _answer_dtype(p)
        answers.append(_decode(p, np.frombuffer(raw, dtype=dt, count=n, offset=pos)))
        pos += n * dt.itemsize
        if count:
            t = np.frombuffer(raw, dtype="<u4", count=2, offset=pos)
            ticks.append((int(t[0]), int(t[1])))
            pos += 8
        if stack:
            stacks.append(int(np.frombuffer(raw, dtype="<u4", count=1, offset=pos)[0]))
            pos += 4
    calibration = int(np.frombuffer(raw, dtype="<u4", count=1, offset=pos)[0]) if calibrate else 0
    return Run(answers, ticks, calibration, stacks)


def rows_runner(files: Mapping[str, str], *, name: str, feature_type: str, core: str, n_features: int, n_classes: int, proba: bool,
                workdir: str | os.PathLike[str]) -> Callable[[np.ndarray], list[Any]]:
    """Build one firmware for the generated ``files`` and return ``run(rows) -> answers``
    (one QEMU run per call), answers in the form :func:`puretree.codegen.verify.run_c` gives."""
    programs = [program_for(files, name=name, n_features=n_features, n_classes=n_classes, proba=proba)]
    check_tools()
    elf = build_firmware(programs, core=core, feature_type=feature_type, workdir=workdir)

    def run(rows: np.ndarray) -> list[Any]:
        return run_firmware(elf, programs, [(0, rows)], core=core, feature_type=feature_type, workdir=workdir).answers[0]

    return run


def instructions_per_prediction(elf: str | os.PathLike[str], programs: Sequence[Program], jobs: Sequence[tuple[int, np.ndarray]], *,
                                core: str, feature_type: str, workdir: str | os.PathLike[str], repeats: int = 64, shift: int = 0) -> list[float]:
    """Mean instructions executed inside one call of each job's ``predict`` (the loop and
    the call itself, measured with an empty function of the same type, subtracted). QEMU
    counts instructions (``-icount``), not cycles: a Cortex-M's cycles per instruction vary
    (flash wait states, pipeline refills on branches, the FPU)."""
    calib_n = 1_000_000
    done = run_firmware(elf, programs, jobs, core=core, feature_type=feature_type, workdir=workdir, count=repeats, calibrate=calib_n, shift=shift)
    ticks = done.ticks
    per_tick = 2 * calib_n / done.calibration  # the loop runs subs + bne per iteration
    out = []
    for (index, rows), (busy, idle) in zip(jobs, ticks):
        n = len(np.asarray(rows).reshape(-1, programs[index].n_features))
        out.append((busy - idle) * per_tick / (n * repeats))
    return out


# -- measured stack -------------------------------------------------------------------------


@attrs.frozen
class Stack:
    """Stack a generated entry point needs, measured: the bytes of the deepest call chain
    (each function's frame from ``-fstack-usage``, the calls from ``-fcallgraph-info``), the
    chain itself, the functions outside the generated file it calls (compiler helpers,
    e.g. soft-float routines, not counted), and the flags measured with."""

    entry: str
    bytes: int
    chain: tuple[str, ...]
    external: tuple[str, ...]
    flags: tuple[str, ...]


_NODE = re.compile(r'node: \{ title: "([^"]+)" label: "([^"]*)"')
_EDGE = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')
_FRAME = re.compile(r"(\d+) bytes \((static|dynamic|bounded)[^)]*\)")


def measure_stack(files: Mapping[str, str], *, name: str, core: str, workdir: str | os.PathLike[str]) -> list[Stack]:
    """Compile ``NAME.c`` for ``core`` with :data:`STACK_FLAGS` and return, for each public
    function, its deepest call chain's stack (:func:`read_stack`)."""
    b = board(core)
    check_tools(qemu=False)
    work = Path(workdir)
    work.mkdir(parents=True, exist_ok=True)
    for filename, text in files.items():
        (work / filename).write_text(text, encoding="utf-8")
    _run([GCC, *b.cflags, *STACK_FLAGS, "-c", f"{name}.c", "-o", f"{name}.o"], work, f"compiling {name}.c for {core}")
    return read_stack(work, name=name, core=core)


def read_stack(workdir: str | os.PathLike[str], *, name: str, core: str) -> list[Stack]:
    """The stack of each public function of ``NAME.c`` compiled in ``workdir`` (by
    :func:`measure_stack` or :func:`build_firmware`): the frames ``-fstack-usage`` gives,
    summed along the deepest chain of the calls ``-fcallgraph-info`` lists. A frame that is
    not static (a variable-length array) is a :class:`CodegenError`: generated code has none."""
    flags = (*board(core).cflags, *STACK_FLAGS)
    graph = (Path(workdir) / f"{name}.ci").read_text(encoding="utf-8")
    frames: dict[str, int] = {}
    defined: set[str] = set()
    for title, label in _NODE.findall(graph):
        m = _FRAME.search(label.replace("\\n", " "))
        if m:
            if m.group(2) != "static":
                raise CodegenError(f"{name}.c: function {title} has a {m.group(2)} stack frame")
            frames[title] = int(m.group(1))
            defined.add(title)
    calls: dict[str, list[str]] = {}
    for src, dst in _EDGE.findall(graph):
        calls.setdefault(src, []).append(dst)

    def deepest(fn: str, seen: tuple[str, ...]) -> tuple[int, tuple[str, ...]]:
        if fn in seen:
            raise CodegenError(f"{name}.c: recursion through {fn}")
        best: tuple[int, tuple[str, ...]] = (0, ())
        for callee in calls.get(fn, []):
            if callee in defined:
                best = max(best, deepest(callee, (*seen, fn)))
        return frames[fn] + best[0], (fn, *best[1])

    def reachable(fn: str) -> set[str]:
        out, todo = set(), [fn]
        while todo:
            f = todo.pop()
            for callee in calls.get(f, []):
                if callee not in out:
                    out.add(callee)
                    todo.append(callee)
        return out

    entries = [f for f in sorted(defined) if f.startswith(f"{name}_predict")]
    result = []
    for entry in entries:
        total, chain = deepest(entry, ())
        external = tuple(sorted(reachable(entry) - defined))
        result.append(Stack(entry, total, tuple(f.rsplit(":", 1)[-1] for f in chain), external, flags))
    return result


def generate_with_stack(tree: Any, target: str, *, core: str, name: str = "tree", feature_type: str = "double", proba: bool = True,
                        form: str = "auto", index_type: str = "auto", template_dirs: Sequence[str | os.PathLike[str]] | None = None, quantize: Any = None,
                        rows: Any = None) -> dict[str, str]:
    """The files of :func:`puretree.codegen.generate` for a tree, the header stating the stack
    measured for ``core`` and, given ``rows``, the instructions per prediction on them
    (:func:`measured_files`). ``puretree.codegen.ensemble.generate_measured`` does it for any model, on
    the rows ``verify`` checks."""
    if target not in ("c", "c-table"):
        raise CodegenError(f"the stack is measured for C (targets c and c-table), not {target!r}")
    files = generate(tree, target, name=name, feature_type=feature_type, proba=proba, form=form, index_type=index_type, template_dirs=template_dirs, quantize=quantize)
    classes = 0 if tree.schema.is_regression else len(tree.schema.classes)
    return measured_files(files, name=name, core=core, feature_type=feature_type, n_features=tree.schema.n_features, n_classes=classes, proba=proba, rows=rows)


def measured_files(files: Mapping[str, str], *, name: str, core: str, feature_type: str, n_features: int, n_classes: int, proba: bool, rows: Any = None) -> dict[str, str]:
    """Generated C ``files`` whose header ``NAME.h`` states what was measured for ``core``: the
    stack (:func:`stack_block`) and, given ``rows``, the instructions one prediction executes on
    the emulated board, the most and the mean over the rows (:func:`instructions_block`). The
    block goes right after the header's ``NAME_MAX_COMPARISONS`` (the static worst case it
    completes), in place of the note of :func:`unmeasured_block` if the header has it; nothing
    else changes. With rows, one compile serves both figures (the firmware's objects are built
    with the stack flags, :func:`build_firmware`) and one QEMU run times every row once, with
    QEMU's virtual clock slowed so that a SysTick tick is below one instruction
    (:data:`FINE_SHIFT`): no repeats are needed. ``proba``: the code has a
    ``NAME_predict_proba`` taking doubles (not so with uint8 leaves; only ``NAME_predict`` is
    timed anyway)."""
    header = files[f"{name}.h"]
    header = header.replace(unmeasured_block(name=name) + "\n", "")
    mark = re.search(rf"^#define {re.escape(name.upper())}_MAX_COMPARISONS \d+u\n", header, flags=re.M)
    if mark is None:
        raise CodegenError(f"{name}.h states no {name.upper()}_MAX_COMPARISONS (a user's template?): the measured figures go after it")
    with tempfile.TemporaryDirectory(prefix="puretree-measure-") as work:
        if rows is None or not len(rows):
            block = stack_block(measure_stack(files, name=name, core=core, workdir=work), name=name, core=core)
        else:
            program = program_for(files, name=name, n_features=n_features, n_classes=n_classes, proba=proba)
            check_tools()
            elf = build_firmware([program], core=core, feature_type=feature_type, workdir=work)
            block = stack_block(read_stack(work, name=name, core=core), name=name, core=core)
            rows = np.asarray(rows, dtype=np.float64).reshape(-1, n_features)
            counts = instructions_per_prediction(elf, [program], [(0, row) for row in rows], core=core, feature_type=feature_type, workdir=work,
                                                 repeats=1, shift=FINE_SHIFT)
            block += "\n" + instructions_block(counts, name=name, core=core)
    return {**files, f"{name}.h": header[: mark.end()] + block + "\n" + header[mark.end():]}


def with_unmeasured_note(files: Mapping[str, str], *, name: str) -> dict[str, str]:
    """``files`` with :func:`unmeasured_block` in ``NAME.h`` right after its
    ``NAME_MAX_COMPARISONS`` (where :func:`measured_files` puts the figures); a header without
    that line (a user's template) is left as it is.

    >>> files = with_unmeasured_note({"m.h": "#define M_MAX_COMPARISONS 3u\\n"}, name="m")
    >>> files["m.h"].splitlines()[1:3]
    ['/*', ' * Instructions per call of m_predict: not measured. `puretree export` (C) measures them']
    """
    header = files.get(f"{name}.h")
    mark = None if header is None else re.search(rf"^#define {re.escape(name.upper())}_MAX_COMPARISONS \d+u\n", header, flags=re.M)
    if header is None or mark is None:
        return dict(files)
    return {**files, f"{name}.h": header[: mark.end()] + unmeasured_block(name=name) + "\n" + header[mark.end():]}


#: Debian's packages for the measurement (and every emulated run).
PACKAGES = ("gcc-arm-none-eabi", "libnewlib-arm-none-eabi", "qemu-system-arm")
#: The core ``puretree export`` measures on by default.
DEFAULT_CORE = "cortex-m4"


def unmeasured_block(*, name: str) -> str:
    """The header lines of code whose instructions per prediction were not measured: how to get them.

    >>> print(unmeasured_block(name="tree"))
    /*
     * Instructions per call of tree_predict: not measured. `puretree export` (C) measures them
     * on the emulated cortex-m4 when arm-none-eabi-gcc and qemu-system-arm are installed (Debian:
     * apt-get install gcc-arm-none-eabi libnewlib-arm-none-eabi qemu-system-arm), and so does
     * puretree.generate(..., measure="cortex-m4"): this header then states
     * TREE_INSTRUCTIONS_MAX_CORTEX_M4 and TREE_INSTRUCTIONS_MEAN_CORTEX_M4.
     */
    """
    big = name.upper()
    tag = DEFAULT_CORE.upper().replace("-", "_")
    return "\n".join([
        "/*",
        f" * Instructions per call of {name}_predict: not measured. `puretree export` (C) measures them",
        f" * on the emulated {DEFAULT_CORE} when {GCC} and {QEMU} are installed (Debian:",
        f" * apt-get install {' '.join(PACKAGES)}), and so does",
        f' * puretree.generate(..., measure="{DEFAULT_CORE}"): this header then states',
        f" * {big}_INSTRUCTIONS_MAX_{tag} and {big}_INSTRUCTIONS_MEAN_{tag}.",
        " */",
    ])


def instructions_block(counts: Sequence[float], *, name: str, core: str) -> str:
    """The header lines stating the instructions per prediction measured on ``core`` (QEMU's
    ``-icount``: instructions, not cycles), the most and the mean over the rows measured.

    >>> print(instructions_block([20.0, 31.2, 25.0], name="tree", core="cortex-m4"))
    /*
     * Instructions per call of tree_predict measured on cortex-m4 (QEMU -icount, the call's
     * own overhead subtracted) over 3 rows: at most 31, mean 25.4. A board's cycles per
     * instruction vary (flash wait states, the FPU).
     */
    #define TREE_INSTRUCTIONS_MAX_CORTEX_M4 31u
    #define TREE_INSTRUCTIONS_MEAN_CORTEX_M4 25u
    """
    big = name.upper()
    tag = core.upper().replace("-", "_")
    most = round(max(counts))
    mean = sum(counts) / len(counts)
    return "\n".join([
        "/*",
        f" * Instructions per call of {name}_predict measured on {core} (QEMU -icount, the call's",
        f" * own overhead subtracted) over {len(counts)} rows: at most {most}, mean {mean:.1f}. A board's cycles per",
        " * instruction vary (flash wait states, the FPU).",
        " */",
        f"#define {big}_INSTRUCTIONS_MAX_{tag} {most}u",
        f"#define {big}_INSTRUCTIONS_MEAN_{tag} {round(mean)}u",
    ])


def stack_block(stacks: Sequence[Stack], *, name: str, core: str) -> str:
    """The header lines stating the measured stack (a comment and ``NAME_STACK_BYTES_<CORE>``)."""
    big = name.upper()
    tag = core.upper().replace("-", "_")
    most = max(s.bytes for s in stacks)
    lines = ["/*", f" * Stack measured on {core}: arm-none-eabi-gcc {' '.join(stacks[0].flags)},",
             " * each function's frame (-fstack-usage) summed along its deepest call chain. The compiler's",
             f" * helpers listed add at most {HELPER_STACK_BYTES} bytes more (measured on emulated boards).",
             " * Other compilers or flags need other figures: measure them the same way."]
    for s in stacks:
        helpers = f" (+ helpers: {', '.join(s.external)})" if s.external else ""
        lines.append(f" *   {s.entry}: {s.bytes} bytes, {' -> '.join(s.chain)}{helpers}")
    lines += [" */", f"#define {big}_STACK_BYTES_{tag} {most}u"]
    return "\n".join(lines)
