"""Time and output size of show, rules and verify on deep chains built directly (no fit).

Tests assert that output grows linearly (tests/test_deep_output.py, tests/test_verify_code.py);
this measures how long it takes. Prints one line per command: seconds, output size and bytes
per node.

    python bench/bench_deep_models.py                 # a 50,000-level chain; verify on 10,000 levels
    python bench/bench_deep_models.py --depth 20000 --verify-depth 3000
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from puretree.codegen.verify import verify
from puretree.io import from_json, to_json
from puretree.nodes import Feature, Leaf, NumericSplit, Schema
from puretree.tree import Tree
from puretree.rules import to_rules
from puretree.text import to_text


def chain(depth: int) -> Tree:
    node = Leaf((1.0, 0.0))
    for d in range(depth, 0, -1):
        node = NumericSplit(0, float(d), Leaf((0.0, 1.0) if d % 2 == 0 else (1.0, 0.0)), node, (1.0, float(depth - d + 1)))
    return Tree(node, Schema((Feature("x"),), ("a", "b")))


def timed(what: str, n_nodes: int, run) -> None:
    start = time.perf_counter()
    out = run()
    seconds = time.perf_counter() - start
    size = len(out) if isinstance(out, str) else out
    print(f"{what:<34} {seconds:8.2f} s  {size:>12,} {'bytes' if isinstance(out, str) else 'rows'}  ({size / n_nodes:.1f} per node)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=50_000)
    parser.add_argument("--verify-depth", type=int, default=10_000)
    args = parser.parse_args()
    tree = from_json(to_json(chain(args.depth)))
    n = 2 * args.depth + 1
    timed(f"show ({args.depth} levels)", n, lambda: to_text(tree))
    timed(f"rules ({args.depth} levels)", n, lambda: str(to_rules(tree)))
    small = chain(args.verify_depth)
    m = 2 * args.verify_depth + 1
    for target in ("c-table", "python"):
        timed(f"verify {target} ({args.verify_depth} levels)", m, lambda: verify(small, np.array([[0.0]]), target).n_checked)


if __name__ == "__main__":
    main()
