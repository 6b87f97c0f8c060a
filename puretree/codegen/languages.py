"""Compiling and running generated JavaScript, Java and Rust: the runners of ``verify``.

Each target's code is built with a small driver program that reads rows from standard input
and prints the answers: a row is the 64-bit patterns of its values in hexadecimal (exact,
NaN included), ended by ``;``; an answer line is the class index followed by the bit patterns
of the probabilities (classification) or the bit pattern of the value (regression), so that
nothing is rounded on the way in or out. Node.js runs JavaScript as it is; Java is compiled
with ``javac`` and run with ``java``; Rust is compiled with ``rustc -O`` (edition 2018, so
that Debian bookworm's rustc 1.63 builds it).

>>> token(0.5), value("3fe0000000000000")
('3fe0000000000000', 0.5)
"""

from __future__ import annotations

import math
import os
import shutil
import struct
import subprocess
from pathlib import Path
from typing import Any

import numpy as np

from ..errors import CodegenError

__all__ = ["TARGETS", "TOOLS", "token", "value", "build", "run"]

#: The targets these runners build, with the file a model's code is in.
TARGETS = {"javascript": "{name}.js", "java": "{name}.java", "rust": "{name}.rs"}
#: The programs each target needs.
TOOLS = {"javascript": ("node",), "java": ("javac", "java"), "rust": ("rustc",)}
#: The driver's class (Java): ``__`` is in no name that code generation accepts.
_JAVA_DRIVER = "Puretree__Driver"


def token(v: float) -> str:
    """A double as the hexadecimal digits of its 64 bits (what the drivers read)."""
    return f"{struct.unpack('<Q', struct.pack('<d', float(v)))[0]:016x}"


def value(text: str) -> float:
    """A double from the hexadecimal digits of its 64 bits (what the drivers print)."""
    return float(struct.unpack("<d", struct.pack("<Q", int(text, 16)))[0])


def _js_driver(name: str, regression: bool, kind: str = "tree") -> str:
    if kind == "boosted":
        answer = ("const r = m.decisionFunction(x);"
                  + (" out.push('- ' + Array.from(r, hex).join(' ') + ' |');" if regression else
                     " const c = m.predict(x); out.push(c + ' ' + Array.from(r, hex).join(' ') + ' | ' + Array.from(m.predictProba(x), hex).join(' '));"))
    elif kind == "adaboost":
        answer = ("const c = m.predict(x); const v = m.votes(x); const p = m.predictProba(x);"
                  " out.push(v === null || p === null ? String(c) : c + ' ' + Array.from(v, hex).join(' ') + ' | ' + Array.from(p, hex).join(' '));")
    else:
        answer = ("out.push(hex(m.predict(x)));" if regression else
                  "const c = m.predict(x); const p = m.predictProba(x);"
                  " out.push(p === null ? String(c) : c + ' ' + Array.from(p, hex).join(' '));")
    return f""""use strict";
const m = require("./{name}.js");
const view = new DataView(new ArrayBuffer(8));
function dbl(t) {{ view.setBigUint64(0, BigInt("0x" + t)); return view.getFloat64(0); }}
function hex(v) {{ view.setFloat64(0, v); return view.getBigUint64(0).toString(16); }}
const pieces = require("fs").readFileSync(0, "utf8").split(";");
pieces.pop();
const out = [];
for (const piece of pieces) {{
    const x = piece.split(/\\s+/).filter((t) => t !== "").map(dbl);
    {answer}
}}
process.stdout.write(out.join("\\n") + (out.length ? "\\n" : ""));
"""


def _java_driver(name: str, regression: bool, kind: str = "tree") -> str:
    hexes = "for (double u : {}) {{ out.append(' ').append(java.lang.Long.toHexString(java.lang.Double.doubleToRawLongBits(u))); }}"
    if kind == "boosted":
        answer = (f"double[] s = {name}.decisionFunction(x);"
                  + (f" out.append('-'); {hexes.format('s')} out.append(\" |\");" if regression else
                     f" out.append({name}.predict(x)); {hexes.format('s')} out.append(\" |\"); {hexes.format(name + '.predictProba(x)')}"))
    elif kind == "adaboost":
        answer = (f"int c = {name}.predict(x); double[] w = {name}.votes(x); double[] p = {name}.predictProba(x); out.append(c);"
                  f" if (w != null && p != null) {{ {hexes.format('w')} out.append(\" |\"); {hexes.format('p')} }}")
    else:
        answer = ("out.append(java.lang.Long.toHexString(java.lang.Double.doubleToRawLongBits(" + name + ".predict(x))));" if regression else
              f"int c = {name}.predict(x); double[] p = {name}.predictProba(x); out.append(c);"
              " if (p != null) { for (double v : p) { out.append(' ').append(java.lang.Long.toHexString(java.lang.Double.doubleToRawLongBits(v))); } }")
    return f"""public final class {_JAVA_DRIVER} {{
    public static void main(java.lang.String[] args) throws java.io.IOException {{
        java.lang.String text = new java.lang.String(java.lang.System.in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
        java.lang.String[] pieces = text.split(";", -1);
        java.lang.StringBuilder out = new java.lang.StringBuilder();
        for (int r = 0; r + 1 < pieces.length; r++) {{
            java.lang.String row = pieces[r].trim();
            java.lang.String[] tokens = row.isEmpty() ? new java.lang.String[0] : row.split("\\\\s+");
            double[] x = new double[tokens.length];
            for (int j = 0; j < tokens.length; j++) {{
                x[j] = java.lang.Double.longBitsToDouble(java.lang.Long.parseUnsignedLong(tokens[j], 16));
            }}
            {answer}
            out.append('\\n');
        }}
        java.lang.System.out.print(out);
    }}
}}
"""


def _rust_driver(name: str, regression: bool, kind: str = "tree") -> str:
    hexes = 'for v in {}.iter() {{ out.push_str(&format!(" {{:x}}", v.to_bits())); }}'
    if kind == "boosted":
        answer = ("let r = model::decision_function(&x);"
                  + (f' out.push(\'-\'); {hexes.format("r")} out.push_str(" |");' if regression else
                     f' out.push_str(&model::predict(&x).to_string()); {hexes.format("r")} out.push_str(" |"); {hexes.format("model::predict_proba(&x)")}'))
    elif kind == "adaboost":
        answer = ('let c = model::predict(&x); out.push_str(&c.to_string());'
                  f' if let (Some(v), Some(p)) = (model::votes(&x), model::predict_proba(&x)) {{ {hexes.format("v")} out.push_str(" |"); {hexes.format("p")} }}')
    else:
        answer = ('out.push_str(&format!("{:x}", model::predict(&x).to_bits()));' if regression else
              'let c = model::predict(&x); out.push_str(&c.to_string());'
              ' if let Some(p) = model::predict_proba(&x) { for v in p.iter() { out.push_str(&format!(" {:x}", v.to_bits())); } }')
    return f"""mod model {{
    include!("{name}.rs");
}}
use std::io::Read;
fn main() {{
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text).unwrap();
    let mut pieces: Vec<&str> = text.split(';').collect();
    pieces.pop();
    let mut out = String::new();
    for piece in pieces {{
        let x: Vec<f64> = piece.split_whitespace().map(|t| f64::from_bits(u64::from_str_radix(t, 16).unwrap())).collect();
        {answer}
        out.push('\\n');
    }}
    print!("{{}}", out);
}}
"""


def _tools(target: str) -> None:
    missing = [t for t in TOOLS[target] if shutil.which(t) is None]
    if missing:
        raise CodegenError(f"checking {target} code needs {' and '.join(missing)} on this machine (Debian: nodejs, default-jdk-headless, rustc)")


def _step(cmd: list[str], work: Path, what: str) -> None:
    done = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
    if done.returncode != 0:
        raise CodegenError(f"{what} failed ({' '.join(cmd)}): {(done.stderr or done.stdout).strip()[:2000]}")


def build(files: dict[str, str], target: str, name: str, *, regression: bool, workdir: str | os.PathLike[str], kind: str = "tree") -> list[str]:
    """Write ``files`` and a driver into ``workdir`` and build them; the command that runs the driver.
    ``kind``: ``tree`` (a tree, bagging or a forest: the class and probabilities, or the value),
    ``adaboost`` (the class, the votes and the probabilities) or ``boosted`` (the class, the raw
    scores and the probabilities)."""
    if target not in TARGETS:
        raise CodegenError(f"no runner for target {target!r}; these run: {', '.join(TARGETS)}")
    _tools(target)
    work = Path(workdir)
    for filename, text in files.items():
        (work / filename).write_text(text, encoding="utf-8")
    if target == "javascript":
        (work / "driver.js").write_text(_js_driver(name, regression, kind), encoding="utf-8")
        return ["node", str(work / "driver.js")]
    if target == "java":
        (work / f"{_JAVA_DRIVER}.java").write_text(_java_driver(name, regression, kind), encoding="utf-8")
        sources = sorted(f for f in os.listdir(work) if f.endswith(".java"))
        _step(["javac", "-encoding", "UTF-8", "-Xlint:all", "-Werror", "-d", "classes", *sources], work, "compiling the generated Java")
        return ["java", "-Xss16m", "-cp", str(work / "classes"), _JAVA_DRIVER]
    (work / "driver.rs").write_text(_rust_driver(name, regression, kind), encoding="utf-8")
    _step(["rustc", "-O", "--edition", "2018", "-D", "warnings", "driver.rs", "-o", "driver"], work, "compiling the generated Rust")
    return [str(work / "driver")]


def run(command: list[str], rows: np.ndarray, *, regression: bool, kind: str = "tree") -> list[Any]:
    """Run a built driver on ``rows``: per row, the answer in the form of
    :func:`puretree.codegen.verify.run_c` (a value, or ``(class, probabilities)``; ``None``
    for a refused row); AdaBoost's ``(class, votes, probabilities)``; a boosted model's
    ``(class or None, raw scores, probabilities)``."""
    text = "".join(" ".join([*(token(v) for v in row), ";"]) + "\n" for row in rows.tolist())
    done = subprocess.run(command, input=text, capture_output=True, text=True)
    if done.returncode != 0:
        raise CodegenError(f"the compiled code failed (exit {done.returncode}): {done.stderr.strip()[:2000]}")
    out: list[Any] = []
    for line in done.stdout.splitlines():
        head, _, tail = line.partition("|")
        parts = head.split()
        if kind == "boosted":
            out.append((None if parts[0] == "-" else int(parts[0]), tuple(value(p) for p in parts[1:]), tuple(value(p) for p in tail.split())))
        elif regression:
            v = value(parts[0])
            out.append(None if math.isnan(v) else v)
        elif int(parts[0]) < 0:
            out.append(None)
        elif kind == "adaboost":
            out.append((int(parts[0]), tuple(value(p) for p in parts[1:]), tuple(value(p) for p in tail.split())))
        else:
            out.append((int(parts[0]), tuple(value(p) for p in parts[1:])))
    return out

