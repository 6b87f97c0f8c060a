"""puretree's JavaScript, Java and Rust against m2cgen's, on the same scikit-learn tree and forest.

Needs node, javac/java, rustc and m2cgen 0.10.0 (not a dependency of puretree: install it in a
venv of its own and point M2CGEN_SITE at that venv's site-packages if it is not importable):

    python3 -m venv --system-site-packages /tmp/m2d && /tmp/m2d/bin/pip install m2cgen==0.10.0
    M2CGEN_SITE=/tmp/m2d/lib/python3.11/site-packages .venv/bin/python bench/bench_targets.py [--quick]

(BENCH_LANGS=javascript,java picks languages, BENCH_MODELS=lightgbm,xgboost models.)

Models: DecisionTreeClassifier() (fully grown), RandomForestClassifier(n_estimators=100,
max_depth=8, random_state=0), LightGBM's LGBMClassifier(n_estimators=100, num_leaves=31) and
XGBoost's XGBClassifier(n_estimators=100, max_depth=3, base_score=0.5) on breast_cancer (80% of
the rows to train); the boosted ones imported (pt.from_lightgbm, pt.from_xgboost). For each language and
model one process (node; java; a rustc -O program) holds both codes and, after 100,000
warm-up predictions of each, times 1,000,000 predictions of one and then of the other, five
times over (alternating), cycling over the test rows; it prints the median CPU time per row
(the timing thread's: process.cpuUsage, ThreadMXBean, CLOCK_THREAD_CPUTIME_ID; a loaded machine
shares the wall clock).
A prediction is puretree's ``predict`` (the class) against m2cgen's ``score`` (the class
probabilities, which is all m2cgen writes) followed by an argmax; and ``predictProba``
against ``score`` alone. The same process prints both codes' answers on every test row, which
are compared with the reference's ``predict_proba`` (probabilities bit for bit; a boosted
model's, through exp, within a relative 1e-12) and ``predict``: the mismatch columns.
"""

from __future__ import annotations

import argparse
import os
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
from sklearn.datasets import load_breast_cancer
from sklearn.ensemble import RandomForestClassifier
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
if os.environ.get("M2CGEN_SITE"):
    sys.path.append(os.environ["M2CGEN_SITE"])

import m2cgen  # noqa: E402

import puretree as pt  # noqa: E402

WARMUP, N, REPEATS = 100_000, 1_000_000, 5
LANGS = tuple(os.environ.get("BENCH_LANGS", "javascript,java,rust").split(","))
MODELS = tuple(os.environ.get("BENCH_MODELS", "tree,forest,lightgbm,xgboost").split(","))


def bits(v: float) -> str:
    return f"{struct.unpack('<Q', struct.pack('<d', float(v)))[0]:016x}"


def unbits(t: str) -> float:
    return float(struct.unpack("<d", struct.pack("<Q", int(t, 16)))[0])


JS = """"use strict";
const pt = require("./pt.js");
const m2 = require("./m2.js");
const view = new DataView(new ArrayBuffer(8));
function dbl(t) { view.setBigUint64(0, BigInt("0x" + t)); return view.getFloat64(0); }
function hex(v) { view.setFloat64(0, v); return view.getBigUint64(0).toString(16).padStart(16, "0"); }
const rows = require("fs").readFileSync("rows.txt", "utf8").trim().split("\\n").map((l) => l.split(" ").map(dbl));
function argmax(p) { let b = 0; for (let k = 1; k < p.length; k++) if (p[k] > p[b]) b = k; return b; }
const fns = {
    pt_predict: (x) => pt.predict(x), m2_predict: (x) => argmax(m2.score(x)),
    pt_proba: (x) => pt.predictProba(x)[0], m2_proba: (x) => m2.score(x)[0],
};
function run(f, n) { let s = 0; const m = rows.length; for (let i = 0; i < n; i++) s += f(rows[i % m]); return s; }
const out = [];
for (const name in fns) run(fns[name], WARMUP);
const times = {}; for (const name in fns) times[name] = [];
for (let r = 0; r < REPEATS; r++) {
    for (const name in fns) {
        const t0 = process.cpuUsage(); const s = run(fns[name], N); const t1 = process.cpuUsage(t0);
        times[name].push((t1.user + t1.system) * 1000 / N); if (s === -1) out.push("");
    }
}
for (const name in fns) out.push("time " + name + " " + times[name].join(" "));
for (const x of rows) out.push("pt " + pt.predict(x) + " " + pt.predictProba(x).map(hex).join(" ") + " | m2 " + m2.score(x).map(hex).join(" "));
console.log(out.join("\\n"));
"""

JAVA = """public class Bench {
    static double[][] rows;
    static int argmax(double[] p) { int b = 0; for (int k = 1; k < p.length; k++) if (p[k] > p[b]) b = k; return b; }
    static double run(int which, int n) {
        double s = 0; int m = rows.length;
        for (int i = 0; i < n; i++) {
            double[] x = rows[i % m];
            switch (which) {
                case 0: s += PtModel.predict(x); break;
                case 1: s += argmax(M2Model.score(x)); break;
                case 2: s += PtModel.predictProba(x)[0]; break;
                default: s += M2Model.score(x)[0]; break;
            }
        }
        return s;
    }
    static String hex(double v) { return String.format("%016x", Double.doubleToRawLongBits(v)); }
    public static void main(String[] args) throws Exception {
        java.util.List<String> lines = java.nio.file.Files.readAllLines(java.nio.file.Paths.get("rows.txt"));
        rows = new double[lines.size()][];
        for (int i = 0; i < rows.length; i++) {
            String[] t = lines.get(i).trim().split(" ");
            rows[i] = new double[t.length];
            for (int j = 0; j < t.length; j++) rows[i][j] = Double.longBitsToDouble(Long.parseUnsignedLong(t[j], 16));
        }
        String[] names = {"pt_predict", "m2_predict", "pt_proba", "m2_proba"};
        double sink = 0;
        java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
        for (int w = 0; w < 4; w++) sink += run(w, WARMUP);
        StringBuilder[] times = new StringBuilder[4];
        for (int w = 0; w < 4; w++) times[w] = new StringBuilder("time " + names[w]);
        for (int r = 0; r < REPEATS; r++) {
            for (int w = 0; w < 4; w++) {
                long t0 = cpu.getCurrentThreadCpuTime(); sink += run(w, N); long t1 = cpu.getCurrentThreadCpuTime();
                times[w].append(' ').append((t1 - t0) / (double) N);
            }
        }
        StringBuilder out = new StringBuilder();
        for (int w = 0; w < 4; w++) out.append(times[w]).append('\\n');
        for (double[] x : rows) {
            out.append("pt ").append(PtModel.predict(x));
            for (double v : PtModel.predictProba(x)) out.append(' ').append(hex(v));
            out.append(" | m2");
            for (double v : M2Model.score(x)) out.append(' ').append(hex(v));
            out.append('\\n');
        }
        System.out.print(out);
        if (sink == 0.123) System.out.println("");
    }
}
"""

RUST = """mod pt { include!("pt.rs"); }
#[allow(unused_parens, unused_mut, clippy::all)]
mod m2 { include!("m2.rs"); }
#[repr(C)]
struct Timespec { sec: i64, nsec: i64 }
extern "C" { fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32; }
// CLOCK_THREAD_CPUTIME_ID (Linux): the CPU time of this thread, not the wall clock.
fn cpu_ns() -> f64 { let mut t = Timespec { sec: 0, nsec: 0 }; unsafe { clock_gettime(3, &mut t); } t.sec as f64 * 1e9 + t.nsec as f64 }
fn argmax(p: &[f64]) -> usize { let mut b = 0; for k in 1..p.len() { if p[k] > p[b] { b = k; } } b }
fn run(rows: &[Vec<f64>], which: usize, n: usize) -> f64 {
    let mut s = 0.0; let m = rows.len();
    for i in 0..n {
        let x = &rows[i % m];
        s += match which {
            0 => pt::predict(x) as f64,
            1 => argmax(&m2::score(x.clone())) as f64,
            2 => PT_PROBA[0],
            _ => m2::score(x.clone())[0],
        };
    }
    s
}
fn main() {
    let text = std::fs::read_to_string("rows.txt").unwrap();
    let rows: Vec<Vec<f64>> = text.trim().lines().map(|l| l.split(' ').map(|t| f64::from_bits(u64::from_str_radix(t, 16).unwrap())).collect()).collect();
    let names = ["pt_predict", "m2_predict", "pt_proba", "m2_proba"];
    let mut sink = 0.0;
    for w in 0..4 { sink += run(&rows, w, WARMUP); }
    let mut times: Vec<String> = names.iter().map(|n| format!("time {}", n)).collect();
    for _ in 0..REPEATS {
        for w in 0..4 {
            let t0 = cpu_ns(); sink += run(&rows, w, N); let dt = cpu_ns() - t0;
            times[w].push_str(&format!(" {}", dt / N as f64));
        }
    }
    for t in times.iter() { println!("{}", t); }
    for x in rows.iter() {
        let p: Vec<String> = PT_PROBA.iter().map(|v| format!("{:016x}", v.to_bits())).collect();
        let q: Vec<String> = m2::score(x.clone()).iter().map(|v| format!("{:016x}", v.to_bits())).collect();
        println!("pt {} {} | m2 {}", pt::predict(x), p.join(" "), q.join(" "));
    }
    if sink == 0.123 { println!(); }
}
"""


def harness(lang: str, source: str, boosted: bool = False) -> str:
    consts = {"WARMUP": WARMUP, "N": N, "REPEATS": REPEATS}
    # a boosted model's Rust predict_proba answers the array (it refuses no row)
    source = source.replace("PT_PROBA", "pt::predict_proba(x)" if boosted else "pt::predict_proba(x).unwrap()")
    if lang == "javascript":
        head = "".join(f"const {k} = {v};\n" for k, v in consts.items())
        return source.replace('"use strict";\n', '"use strict";\n' + head, 1)
    if lang == "java":
        head = "".join(f"    static final int {k} = {v};\n" for k, v in consts.items())
        return source.replace("public class Bench {\n", "public class Bench {\n" + head, 1)
    return "".join(f"const {k}: usize = {v};\n" for k, v in consts.items()) + source


def build(lang: str, sk_model, model, work: Path) -> list[str]:
    boosted = isinstance(model, pt.Boosted)
    if lang == "javascript":
        files = pt.to_javascript(model, name="pt")
        (work / "m2.js").write_text(m2cgen.export_to_javascript(sk_model) + "\nmodule.exports = { score };\n")
        (work / "bench.js").write_text(harness(lang, JS, boosted))
        cmd = ["node", "bench.js"]
    elif lang == "java":
        files = pt.to_java(model, name="PtModel")
        (work / "M2Model.java").write_text(m2cgen.export_to_java(sk_model, class_name="M2Model"))
        (work / "Bench.java").write_text(harness(lang, JAVA, boosted))
        cmd = ["java", "-cp", "classes", "Bench"]
    else:
        files = pt.to_rust(model, name="pt")
        (work / "m2.rs").write_text(m2cgen.export_to_rust(sk_model).replace("fn score(", "pub fn score(", 1))
        (work / "main.rs").write_text(harness(lang, RUST, boosted))
        cmd = [str(work / "bench")]
    for name, text in files.items():
        (work / name).write_text(text)
    if lang == "java":
        subprocess.run(["javac", "-J-Xss64m", "-d", "classes", *sorted(p.name for p in work.glob("*.java"))], cwd=work, check=True, capture_output=True, text=True)
    if lang == "rust":
        subprocess.run(["rustc", "-O", "--edition", "2018", "main.rs", "-o", "bench"], cwd=work, check=True, capture_output=True, text=True)
    return cmd


def main() -> None:
    global N, WARMUP
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="100,000 predictions after 10,000 (a smoke run, not the figures)")
    args = parser.parse_args()
    if args.quick:
        N, WARMUP = 100_000, 10_000
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test, y_train, _ = train_test_split(X, y, test_size=0.2, random_state=0)
    models = {
        "tree": DecisionTreeClassifier(random_state=0).fit(X_train, y_train),
        "forest": RandomForestClassifier(n_estimators=100, max_depth=8, random_state=0).fit(X_train, y_train),
    }
    import lightgbm
    import xgboost

    # Boosted models m2cgen 0.10 writes: LightGBM's and XGBoost's (not scikit-learn's
    # GradientBoostingClassifier, which it refuses; XGBoost 3 only with base_score given).
    models["lightgbm"] = lightgbm.LGBMClassifier(n_estimators=100, num_leaves=31, random_state=0, n_jobs=1, verbose=-1).fit(X_train, y_train)
    models["xgboost"] = xgboost.XGBClassifier(n_estimators=100, max_depth=3, base_score=0.5, random_state=0, n_jobs=1).fit(X_train, y_train)
    models = {k: v for k, v in models.items() if k in MODELS}
    print(f"load: {os.getloadavg()[0]:.2f}; {N:,} predictions after {WARMUP:,}, median of {REPEATS}, ns per row; mismatches on {len(X_test)} test rows")
    print(f"{'model':8} {'language':11} {'pt predict':>10} {'m2 predict':>10} {'ratio':>6} {'pt proba':>9} {'m2 proba':>9} {'ratio':>6}  mismatches (proba bits / class): puretree, m2cgen")
    for key, sk in models.items():
        want_p = sk.predict_proba(X_test)
        want_c = sk.predict(X_test)
        model = pt.from_lightgbm(sk.booster_) if key == "lightgbm" else pt.from_xgboost(sk.get_booster()) if key == "xgboost" else pt.from_sklearn(sk)
        # probabilities through exp (boosted models): within a relative 1e-12, as verify checks them; otherwise bit for bit
        same = (lambda p, q: np.allclose(p, q, rtol=1e-12, atol=0.0)) if isinstance(model, pt.Boosted) else (lambda p, q: p == q.tolist())
        for lang in LANGS:
            with tempfile.TemporaryDirectory(prefix="bench-targets-") as tmp:
                work = Path(tmp)
                (work / "rows.txt").write_text("".join(" ".join(bits(v) for v in row) + "\n" for row in X_test))
                try:
                    cmd = build(lang, sk, model, work)
                except subprocess.CalledProcessError as exc:
                    print(f"{key:8} {lang:11} build failed: {exc.stderr.strip().splitlines()[-1][:200] if exc.stderr else exc}")
                    continue
                done = subprocess.run(cmd, cwd=work, capture_output=True, text=True)
                if done.returncode != 0:
                    print(f"{key:8} {lang:11} run failed: {done.stderr.strip()[-300:]}")
                    continue
            times, answers = {}, []
            for line in done.stdout.splitlines():
                if line.startswith("time "):
                    name, *vals = line.split()[1:]
                    times[name] = float(np.median([float(v) for v in vals]))
                elif line.startswith("pt "):
                    left, right = line[3:].split(" | m2 ")
                    parts = left.split()
                    answers.append((int(parts[0]), [unbits(t) for t in parts[1:]], [unbits(t) for t in right.split()]))
            bad = {"pt": [0, 0], "m2": [0, 0]}
            for (c, p, q), wp, wc in zip(answers, want_p, want_c):
                bad["pt"][0] += not same(p, wp)
                bad["pt"][1] += sk.classes_[c] != wc
                bad["m2"][0] += not same(q, wp)
                bad["m2"][1] += sk.classes_[int(np.argmax(q))] != wc
            r1 = times["pt_predict"] / times["m2_predict"]
            r2 = times["pt_proba"] / times["m2_proba"]
            print(f"{key:8} {lang:11} {times['pt_predict']:10.1f} {times['m2_predict']:10.1f} {r1:6.2f} {times['pt_proba']:9.1f} {times['m2_proba']:9.1f} {r2:6.2f}  "
                  f"{bad['pt'][0]}/{bad['pt'][1]}, {bad['m2'][0]}/{bad['m2'][1]}", flush=True)


if __name__ == "__main__":
    main()
