"""Issue 29: hostile model files given to ``puretree import`` are refused with a one-line
ModelFormatError naming the tree and node, in bounded time and memory: each runs in a child
process under a 2 GB address-space limit and a time limit, and must end with status 1."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

xgb = pytest.importorskip("xgboost")

LIMIT_BYTES = 2 * 1024**3
LIMIT_SECONDS = 60.0


def _limited() -> None:  # in the child, before it starts: its memory is bounded
    resource.setrlimit(resource.RLIMIT_AS, (LIMIT_BYTES, LIMIT_BYTES))


def _import(path: Path, source: str) -> tuple[subprocess.CompletedProcess[str], float]:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    start = time.monotonic()
    done = subprocess.run([sys.executable, "-m", "puretree", "import", path.name, "--from", source, "-o", "out.json"], cwd=path.parent,
                          capture_output=True, text=True, preexec_fn=_limited, env=env, timeout=LIMIT_SECONDS)
    return done, time.monotonic() - start


def _xgb_json() -> dict:
    X = np.random.default_rng(0).random((200, 3))
    booster = xgb.train({"objective": "reg:squarederror", "max_depth": 3, "nthread": 1}, xgb.DMatrix(X, X[:, 0]), 3)
    return json.loads(booster.save_raw("json"))


def _lgb_text(tree: str) -> str:
    return ("tree\nversion=v4\nnum_class=1\nnum_tree_per_iteration=1\nlabel_index=0\nmax_feature_idx=0\nobjective=regression\n"
            f"feature_names=x\nfeature_infos=none\ntree_sizes=0\n\nTree=0\n{tree}is_linear=0\nshrinkage=1\n\nend of trees\n")


def _expanding(depth: int = 12) -> str:
    words = " ".join(["1431655765"] * 64)
    left = " ".join(str(i + 1) for i in range(depth - 1)) + f" {~(depth - 1)}"
    right = " ".join(str(~i) for i in range(depth - 1)) + f" {~depth}"
    return _lgb_text(f"num_leaves={depth + 1}\nnum_cat={depth}\nsplit_feature={' '.join(['0'] * depth)}\nthreshold={' '.join(str(i) for i in range(depth))}\n"
                     f"decision_type={' '.join(['9'] * depth)}\nleft_child={left}\nright_child={right}\nleaf_value={' '.join(['1'] * (depth + 1))}\n"
                     f"cat_boundaries={' '.join(str(64 * i) for i in range(depth + 1))}\ncat_threshold={' '.join([words] * depth)}\n")


def _cases(tmp: Path) -> list[tuple[str, str, str]]:
    """(file name, --from, words the one-line refusal holds)."""
    good = _xgb_json()
    cycle = json.loads(json.dumps(good))
    t = cycle["learner"]["gradient_booster"]["model"]["trees"][1]
    t["left_children"][1] = 0 if t["left_children"][1] != -1 else t["left_children"][1]
    t["left_children"][0] = 0
    (tmp / "cycle.json").write_text(json.dumps(cycle))
    huge = json.loads(json.dumps(good))
    tree = huge["learner"]["gradient_booster"]["model"]["trees"][0]
    tree["left_children"] = [1] * 3_000_000  # shapes that disagree, and big
    (tmp / "shapes.json").write_text(json.dumps(huge))
    booster = xgb.Booster(model_file=None)
    booster.load_model(bytearray(json.dumps(good).encode()))
    ubj = bytes(booster.save_raw("ubj"))
    (tmp / "count.ubj").write_bytes(ubj.replace(b"[$d#L", b"[$d#L\x7f\xff\xff\xff", 1))  # 2**63 floats announced
    (tmp / "string.ubj").write_bytes(b"{L" + (1).to_bytes(8, "big") + b"aSL" + (2**62).to_bytes(8, "big") + b"x}")
    (tmp / "nested.ubj").write_bytes(b"{L" + (1).to_bytes(8, "big") + b"a" + b"[" * 100_000)
    (tmp / "leaves.txt").write_text(_lgb_text("num_leaves=1000000000\nnum_cat=0\nsplit_feature=0\nthreshold=0.5\ndecision_type=2\nleft_child=-1\nright_child=-2\nleaf_value=1 2\n"))
    (tmp / "expanding.txt").write_text(_expanding())
    return [("cycle.json", "xgboost", "tree 1, node 0: child 0 is not one of"), ("shapes.json", "xgboost", "tree 0"), ("count.ubj", "xgboost", "beyond the file"),
            ("string.ubj", "xgboost", "UBJSON byte"), ("nested.ubj", "xgboost", "nested deeper"),
            ("leaves.txt", "lightgbm", "tree 0"), ("expanding.txt", "lightgbm", "tree 0, node")]


def test_hostile_files_are_refused_in_bounded_time_and_memory(tmp_path: Path) -> None:
    for name, source, words in _cases(tmp_path):
        done, seconds = _import(tmp_path / name, source)
        assert done.returncode == 1, (name, done.stderr)
        assert done.stderr.startswith(f"puretree: error: {name}: ") and done.stderr.count("\n") == 1 and words in done.stderr, (name, done.stderr)
        assert "MemoryError" not in done.stderr and seconds < LIMIT_SECONDS / 2, (name, seconds)
        assert not (tmp_path / "out.json").exists()
