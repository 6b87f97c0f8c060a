"""Random search for outputs lost to a signal: Ctrl-C, SIGTERM or SIGKILL at random moments.

    python bench/interrupt_sweep.py --runs 200 --seed 1

Runs `puretree fit / predict -o / export / prune -o` (a model rewritten in place) in a scratch
folder and signals each at a random moment, then checks what the command line promises:
Ctrl-C gives status 130 and exactly `puretree: interrupted` on stderr, SIGTERM 143 and
`puretree: terminated` (or status 0 and no stderr if it finished first); every output is
the old file or the complete new one; no temporary file is left except after SIGKILL.
Timings are random, so this is for finding bugs, not for `make test`: a failure found here
becomes a deterministic test in tests/test_outputs.py (a checkpoint of `puretree.files`).
A signal sent before `puretree` has started (before its `started` checkpoint, reported through
the test hook of `puretree.files`: the interpreter's own start-up, the first few tens of
milliseconds) is outside the promise and counted apart, as "before start".
"""

from __future__ import annotations

import argparse
import collections
import csv
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import puretree

COMMANDS = {
    "fit": ["fit", "slow.csv", "--target", "y", "-o", "m.json"],
    "predict": ["predict", "m.json", "data.csv", "-o", "p.csv"],
    "export": ["export", "m.json", "--target", "c", "-o", "out"],
    "prune": ["prune", "m.json", "--method", "pessimistic", "-o", "m.json"],
}


def _setup(folder: Path) -> None:
    shutil.copy(str(puretree.datasets.path("playtennis")), folder / "data.csv")
    rng = random.Random(0)
    with open(folder / "slow.csv", "w", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow(["a", "b", "c", "y"])
        writer.writerows([round(rng.gauss(0, 1), 4) for _ in range(3)] + [f"k{rng.randrange(3)}"] for _ in range(1500))
    subprocess.run([sys.executable, "-m", "puretree", "fit", "data.csv", "--target", "play", "-o", "m.json"], cwd=folder, check=True, capture_output=True)
    subprocess.run([sys.executable, "-m", "puretree", "export", "m.json", "--target", "python", "-o", "out"], cwd=folder, check=True, capture_output=True)
    (folder / "p.csv").write_text("prediction\nold\n")


def _state(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _verdict(folder: Path, sig: int, status: int, err: str, started: bool) -> str:
    if not started:
        return "before start"
    left = [p.name for p in folder.iterdir() if p.name.startswith(".")]
    try:
        json.loads((folder / "m.json").read_text())
    except ValueError:
        return "lost data (m.json)"
    if left and sig != signal.SIGKILL:
        return f"temporary file left: {left}"
    if sig == signal.SIGKILL:
        return "ok"
    if status == 0 and err == "":
        return "ok (finished first)"
    want = (130, "puretree: interrupted\n") if sig == signal.SIGINT else (143, "puretree: terminated\n")
    return "ok" if (status, err) == want else f"wrong: status {status}, stderr {err[-200:]!r}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-delay", type=float, default=0.6, help="seconds")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    counts: collections.Counter[str] = collections.Counter()
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(scratch) / "work"
        folder.mkdir()
        report = Path(scratch) / "report"
        env = {**os.environ, "PURETREE_TEST_HOOK": str(report)}
        _setup(folder)
        for run in range(args.runs):
            name = rng.choice(sorted(COMMANDS))
            sig = rng.choice([signal.SIGINT, signal.SIGINT, signal.SIGTERM, signal.SIGKILL])
            delay = rng.uniform(0.0, args.max_delay)
            report.unlink(missing_ok=True)
            child = subprocess.Popen([sys.executable, "-m", "puretree", *COMMANDS[name]], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env=env, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
            try:
                child.communicate(timeout=delay)
            except subprocess.TimeoutExpired:
                child.send_signal(sig)
            _, err = child.communicate(timeout=120)
            started = report.exists() and "started" in report.read_text().split()
            verdict = _verdict(folder, sig, child.returncode, err, started)
            counts[verdict] += 1
            if not verdict.startswith(("ok", "before start")):
                print(f"run {run}: {name}, {signal.Signals(sig).name} after {delay:.3f} s: {verdict}", file=sys.stderr)
            for p in folder.iterdir():  # the documented SIGKILL leftovers, so the next run starts clean
                if p.name.startswith("."):
                    shutil.rmtree(p) if p.is_dir() else p.unlink()
            if not (folder / "out").exists():
                _setup(folder)
    for verdict, n in counts.most_common():
        print(f"{n:5d}  {verdict}")


if __name__ == "__main__":
    main()
