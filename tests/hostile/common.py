"""Shared inputs of the hostile sweep: a small training file, a hand-written model, builders.

The model is written out by hand (not fitted) so that the JSON cases mutate a known document.

>>> sorted(MODEL["schema"])
['classes', 'features', 'target', 'task']
"""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

__all__ = ["TRAIN", "MODEL", "model", "model_text", "chain", "line", "row", "load_ok", "rows_out", "predictions"]

#: Training rows: ``a`` numeric, ``c`` categorical, ``label`` the class. Line 1 is the header.
TRAIN = "a,c,label\n1,x,n\n2,x,n\n3,x,p\n4,x,p\n1,y,n\n2,y,n\n3,z,p\n4,z,p\n"

#: ``c`` first (one branch per category), then ``a <= 2.5`` under ``x``.
MODEL: dict[str, Any] = {
    "format": "puretree-tree",
    "version": 1,
    "threshold_convention": "x <= threshold goes to children[0]",
    "missing": "majority",
    "schema": {
        "target": "label",
        "task": "classification",
        "classes": ["n", "p"],
        "features": [{"name": "a", "kind": "numeric"}, {"name": "c", "kind": "categorical", "categories": ["x", "y", "z"]}],
    },
    "nodes": [
        {"kind": "categorical", "feature": 1, "children": [1, 4, 5], "counts": [4, 4]},
        {"kind": "numeric", "feature": 0, "threshold": 2.5, "children": [2, 3], "counts": [2, 2]},
        {"kind": "leaf", "counts": [2, 0]},
        {"kind": "leaf", "counts": [0, 2]},
        {"kind": "leaf", "counts": [2, 0]},
        {"kind": "leaf", "counts": [0, 2]},
    ],
}


def model(edit: Callable[[dict[str, Any]], Any] | None = None) -> dict[str, Any]:
    """A deep copy of :data:`MODEL`, changed in place by ``edit``."""
    m = copy.deepcopy(MODEL)
    if edit is not None:
        edit(m)
    return m


def model_text(edit: Callable[[dict[str, Any]], Any] | None = None) -> str:
    return json.dumps(model(edit), ensure_ascii=False)


def chain(depth: int, *, features: int = 1) -> dict[str, Any]:
    """A model whose numeric splits form one chain ``depth`` levels deep (the right child
    continues), over ``features`` numeric features used in turn."""
    nodes: list[dict[str, Any]] = []
    for level in range(depth):
        me = len(nodes)
        nodes.append({"kind": "numeric", "feature": level % features, "threshold": float(level) + 0.5, "children": [me + 1, me + 2], "counts": [1, 1]})
        nodes.append({"kind": "leaf", "counts": [1, 0] if level % 2 else [0, 1]})
    nodes.append({"kind": "leaf", "counts": [1, 0]})
    return {
        "format": "puretree-tree",
        "version": 1,
        "missing": "majority",
        "schema": {"target": "y", "task": "classification", "classes": ["n", "p"], "features": [{"name": f"f{j}", "kind": "numeric"} for j in range(features)]},
        "nodes": nodes,
    }


def line(n: int) -> "re.Pattern[str]":
    """A message fragment: ``line n`` (not ``line n0``)."""
    return re.compile(rf"\bline {n}\b", re.IGNORECASE)


def row(n: int) -> "re.Pattern[str]":
    return re.compile(rf"\brow {n}\b", re.IGNORECASE)


def load_ok(path: Path) -> Any:
    """The model at ``path`` loaded, or None when it does not load."""
    from puretree.io import load

    try:
        return load(path)
    except Exception:  # noqa: BLE001 - a file that does not load is what the caller reports
        return None


def rows_out(stdout: str) -> list[list[str]]:
    import csv
    import io

    return list(csv.reader(io.StringIO(stdout)))


def predictions(stdout: str) -> list[str]:
    """The prediction column of ``puretree predict`` output (header dropped)."""
    rows = rows_out(stdout)
    return [r[0] for r in rows[1:]] if rows and rows[0][:1] == ["prediction"] else ["<no header>"]
