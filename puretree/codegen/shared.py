"""Ensembles that share: every member of a forest, bagging or AdaBoost ensemble (or every tree
of a boosted model) in **one** node table, each distinct subtree stored once.

Subtrees are told apart by what the generated code does with them, bottom-up: a leaf by its
outcome (a forest's probability row, an AdaBoost member's class, a regression value), a split
by its feature, its threshold *as written in the feature type*, where a missing value goes and
its two children's identities. Identical keys get one entry, so the members' nodes become a
DAG: a subtree two members (or two branches) hold is written once, and so is every outcome.

The table is the compact one (:func:`puretree.codegen.lower.lower`'s ``compact``, one code,
one threshold and one reference per split): internal nodes in pre-order of their first use, a
split's first child (its left one, or its right one when the left is a leaf) the next node.
Where that child was already written, the next node is a *jump*: a split that sends every
row to its reference (threshold NaN, or the integer type's minimum, the missing value's
spelling, with a missing value going right), one step more on that path, no copy of the
subtree. Under ``missing="error"`` a jump would refuse rows for the feature it reads, so
there such a subtree is written again instead.

Two members, the second holding the first as its left subtree: two distinct splits, two
distinct leaves, and one jump (the second root's left child was written first):

>>> from puretree.nodes import Feature, Leaf, NumericSplit, Schema
>>> from puretree.tree import Tree
>>> schema = Schema((Feature("x"), Feature("y")), ("a", "b"))
>>> first = NumericSplit(0, 0.5, Leaf((1, 0)), Leaf((0, 1)), (1, 1))
>>> second = NumericSplit(1, 2.0, first, Leaf((0, 3)), (1, 4))
>>> t = shared_table([Tree(first, schema), Tree(second, schema)], ftype="double", outcome="proba")
>>> t["n_unique"], t["n_jumps"], t["roots"], t["outcomes"]
(2, 1, [0, 1], [('0.0', '1.0'), ('1.0', '0.0')])
"""

from __future__ import annotations

import math
import struct
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..ensemble import vote_total
from ..errors import CodegenError
from ..flat import LEAF, flatten, normalised_fractions
from . import literals as lit
from .render import environment
from .lower import COMPACT_HEAVY_LEFT, COMPACT_LEFT_LEAF, COMPACT_RIGHT_LEAF, missing_children, smallest_type, threshold_literal, threshold_splits_only

__all__ = ["shared_table", "shared_files", "share_arrays", "OUTCOMES"]

#: What a leaf holds: ``proba`` (a forest's or bagging's probability row), ``class`` (an
#: AdaBoost member's class: its vote), ``value`` (regression).
OUTCOMES = ("proba", "class", "value")


def _leaf_key(row: np.ndarray, outcome: str) -> Any:
    if outcome == "class":
        return int(np.argmax(row))  # the first most probable class, as the member's predict
    if outcome == "value":
        return lit.c_double(float(row[0]))
    return tuple(lit.c_double(v) for v in row.tolist())


def _check(members: Sequence[Any]) -> str:
    """The members' common missing-value strategy; refuses what the compact table cannot hold."""
    strategies = {m.missing for m in members}
    if len(strategies) != 1 or not strategies <= {"majority", "error"}:
        raise CodegenError(f"the shared table holds members with one missing-value strategy, 'majority' or 'error'; these have {sorted(strategies)}: use form table")
    return strategies.pop()


def shared_table(members: Sequence[Any], *, ftype: str, outcome: str, index_type: str = "auto") -> dict[str, Any]:
    """The shared compact table of the trees ``members`` (same schema) for C of feature type
    ``ftype``: ``code``, ``threshold`` (literals), ``ref`` per written node, ``roots`` (a member's
    root node, or ``n_nodes + outcome`` for a member that is one leaf), ``outcomes`` (the
    distinct leaf keys, see :data:`OUTCOMES`), ``bits``/``mask`` (two leaf outcomes packed in one
    reference), the narrowest ``code_type`` and ``index_type``, ``n_unique`` (distinct splits),
    ``n_jumps``, ``depth`` (the most steps one member's walk takes, jumps included) and
    ``comparisons`` (the sum of those over the members: the header's worst case)."""
    if outcome not in OUTCOMES:
        raise CodegenError(f"unknown outcome kind {outcome!r}; choose one of {list(OUTCOMES)}")
    missing = _check(members)
    outcomes: dict[Any, int] = {}
    unique: dict[tuple[Any, ...], int] = {}  # split key -> id
    splits: list[tuple[Any, ...]] = []  # id -> key: (feature, literal, heavy_left, left, right); a child ("L", o) or ("N", id)
    roots: list[tuple[str, int]] = []
    for tree in members:
        flat = flatten(tree)
        if not threshold_splits_only(flat):
            raise CodegenError("the shared table holds threshold splits only (a member splits on a categorical feature or has surrogates): use form table")
        rows = normalised_fractions(flat)
        heavy = missing_children(flat)
        key_of: dict[int, tuple[str, int]] = {}
        for node in range(flat.n_nodes - 1, -1, -1):  # pre-order reversed: children before parents
            if flat.kind[node] == LEAF:
                o = _leaf_key(rows[node], outcome)
                key_of[node] = ("L", outcomes.setdefault(o, len(outcomes)))
                continue
            left, right = int(flat.left[node]), int(flat.right[node])
            literal, _ = threshold_literal(float(flat.threshold[node]), "c", ftype)
            key = (int(flat.feature[node]), literal, missing == "majority" and int(heavy[node]) == left, key_of[left], key_of[right])
            if key not in unique:
                unique[key] = len(splits)
                splits.append(key)
            key_of[node] = ("N", unique[key])
        roots.append(key_of[0])
    return _emit(splits, roots, list(outcomes), missing=missing, ftype=ftype, index_type=index_type)


def _jump_threshold(ftype: str) -> str:
    """A threshold no present value is at or below: NaN for floating types, the integer type's
    minimum (the missing value's spelling, caught before the comparison) otherwise."""
    ctype, int_range = lit.C_TYPES[ftype]
    return "NAN" if int_range is None else lit.c_int(int_range[0], ctype)


def _emit(splits: list[tuple[Any, ...]], roots: list[tuple[str, int]], outcomes: list[Any], *, missing: str, ftype: str, index_type: str) -> dict[str, Any]:
    n_out = max(1, len(outcomes))
    bits = max(1, (n_out - 1).bit_length())
    nodes: list[list[Any]] = []  # [code, literal, ref]
    at: dict[int, int] = {}  # split id -> its node
    n_jumps = 0
    jumps: set[int] = set()

    def finish(i: int, sid: int) -> None:
        j, literal, heavy_left, left, right = splits[sid]
        left_leaf, right_leaf = left[0] == "L", right[0] == "L"
        if left_leaf and right_leaf:
            ref = left[1] << bits | right[1]
        elif left_leaf:
            ref = left[1]
        elif right_leaf:
            ref = right[1]
        else:
            ref = at[right[1]]
        nodes[i] = [j << 3 | COMPACT_LEFT_LEAF * left_leaf | COMPACT_RIGHT_LEAF * right_leaf | COMPACT_HEAVY_LEFT * heavy_left, literal, ref]

    def write(root: int) -> None:
        # Iterative pre-order (any depth): ("enter", split, _) writes a node and its first child
        # next; ("second", split, node) writes a node's right child after its left subtree;
        # ("finish", split, node) fills in the node's code and reference.
        stack: list[tuple[str, int, int]] = [("enter", root, -1)]
        nonlocal n_jumps
        while stack:
            op, sid, extra = stack.pop()
            if op == "finish":
                finish(extra, sid)
                continue
            if op == "second":
                right = splits[sid][4]
                if right[0] == "N" and right[1] not in at:
                    stack += [("finish", sid, extra), ("enter", right[1], -1)]
                else:
                    finish(extra, sid)
                continue
            i = len(nodes)
            nodes.append([])
            at.setdefault(sid, i)  # a copy (under "error") leaves the first one the shared one
            _, _, _, left, right = splits[sid]
            first = left if left[0] == "N" else (right if right[0] == "N" else None)
            stack.append(("second" if first is left else "finish", sid, i))
            if first is None:
                continue
            if first[1] not in at:
                stack.append(("enter", first[1], -1))
            elif missing == "majority":
                jumps.add(len(nodes))
                nodes.append([0, _jump_threshold(ftype), at[first[1]]])
                n_jumps += 1
            else:
                stack.append(("enter", first[1], -1))  # under "error" a jump would refuse rows: written again

    for kind, ident in roots:
        if kind == "N" and ident not in at:
            write(ident)
    n = len(nodes)
    root_refs = [at[ident] if kind == "N" else n + ident for kind, ident in roots]
    steps = _steps(nodes, root_refs, jumps)
    return {
        "code": [c for c, _, _ in nodes],
        "threshold": [t for _, t, _ in nodes],
        "ref": [r for _, _, r in nodes],
        "roots": root_refs,
        "n_nodes": n,
        "n_unique": len(splits),
        "n_jumps": n_jumps,
        "outcomes": outcomes,
        "bits": bits,
        "mask": (1 << bits) - 1,
        "code_type": smallest_type(max((c for c, _, _ in nodes), default=0), "auto", "feature codes"),
        "index_type": smallest_type(max([r for _, _, r in nodes] + root_refs + [0]), index_type, "node references"),
        "root_type": smallest_type(max(root_refs + [0]), index_type, "node references"),
        "depth": max(steps, default=0),
        "comparisons": sum(steps),
    }


def _steps(nodes: list[list[Any]], roots: list[int], jumps: set[int]) -> list[int]:
    """Per member, the most nodes its walk visits (jumps included): a longest path in the DAG
    from its root, children first (iterative, any depth)."""

    def kids(i: int) -> list[int]:
        code, _, ref = nodes[i]
        if i in jumps:
            return [ref]
        out = [] if code & COMPACT_LEFT_LEAF else [i + 1]
        if not code & COMPACT_RIGHT_LEAF:
            out.append(i + 1 if code & COMPACT_LEFT_LEAF else ref)
        return out

    steps: dict[int, int] = {}
    for root in (r for r in roots if r < len(nodes)):
        stack = [(root, False)]
        while stack:
            i, ready = stack.pop()
            if i in steps:
                continue
            if ready:
                steps[i] = 1 + max((steps[k] for k in kids(i)), default=0)
                continue
            stack.append((i, True))
            stack += [(k, False) for k in kids(i) if k not in steps]
    return [steps[r] if r < len(nodes) else 0 for r in roots]


# -- boosted models -----------------------------------------------------------------------------


def _bits(v: float) -> bytes:
    return struct.pack("<d", float(v))


def share_arrays(a: dict[str, Any], *, left_next: bool) -> dict[str, Any]:
    """A boosted model's one set of arrays (:func:`puretree.codegen.boosted`'s: kind, feature,
    threshold, children, missing and unknown-category children, value, categories, subset codes,
    roots, outputs) with each distinct subtree stored once. With ``left_next`` (the compact
    tables: every left child the node after its parent) the nodes are written in pre-order of
    first use and a left child already written is reached through a jump (kind 1, threshold NaN:
    every row goes right, to the written subtree), or copied when it is a leaf (a copy is no
    larger than a jump); otherwise nodes keep their children's indices.

    >>> leaf = dict(kind=0, feature=0, threshold=0.0, nan=-1, other=-1, ncat=0)
    >>> a = {"kind": [1, 0, 0, 1, 0, 0], "feature": [0] * 6, "threshold": [0.5, 0, 0, 0.5, 0, 0], "left": [1, -1, -1, 4, -1, -1],
    ...      "right": [2, -1, -1, 5, -1, -1], "nan": [2, -1, -1, 5, -1, -1], "other": [-1] * 6, "value": [0, 1.0, 2.0, 0, 1.0, 2.0],
    ...      "ncat": [0] * 6, "codes": {}, "roots": [0, 3], "outputs": [0, 0]}
    >>> b = share_arrays(a, left_next=True)
    >>> b["kind"], b["roots"]
    ([1, 0, 0], [0, 0])
    """
    unique: dict[tuple[Any, ...], int] = {}
    keys: list[tuple[Any, ...]] = []
    ident: dict[int, int] = {}

    def key_of(i: int) -> tuple[Any, ...]:
        def child(c: int) -> int:
            return ident[c] if c >= 0 else -1

        return (a["kind"][i], a["feature"][i], _bits(a["threshold"][i]), child(a["left"][i]), child(a["right"][i]), child(a["nan"][i]),
                child(a["other"][i]), _bits(a["value"][i]), a["ncat"][i], tuple(a["codes"].get(i, ())))

    for root in a["roots"]:
        for i in _post_order(a, root, ident):  # children before parents
            k = key_of(i)
            if k not in unique:
                unique[k] = len(keys)
                keys.append(k)
            ident[i] = unique[k]
    return _write_arrays(a, keys, [ident[r] for r in a["roots"]], left_next=left_next)


def _post_order(a: dict[str, Any], root: int, done: dict[int, int]) -> list[int]:
    """The nodes under ``root`` not yet in ``done``, children before parents (iterative)."""
    out: list[int] = []
    seen: set[int] = set()
    stack: list[tuple[int, bool]] = [(root, False)]
    while stack:
        i, expanded = stack.pop()
        if expanded:
            out.append(i)
            continue
        if i in seen or i in done:
            continue
        seen.add(i)
        stack.append((i, True))
        stack += [(c, False) for c in (a["left"][i], a["right"][i], a["nan"][i], a["other"][i]) if c >= 0]
    return out


def _write_arrays(a: dict[str, Any], keys: list[tuple[Any, ...]], roots: list[int], *, left_next: bool) -> dict[str, Any]:
    fields = ("kind", "feature", "threshold", "left", "right", "nan", "other", "value", "ncat")
    out: dict[str, Any] = {f: [] for f in fields}
    out["codes"] = {}
    at: dict[int, int] = {}
    pending: list[tuple[int, int]] = []  # (written node, key id) whose children's indices are filled in at the end

    def new(kid: int) -> int:
        kind, feature, tbits, *_ , vbits, ncat, codes = keys[kid]
        i = len(out["kind"])
        at.setdefault(kid, i)
        out["kind"].append(kind)
        out["feature"].append(feature)
        out["threshold"].append(struct.unpack("<d", tbits)[0])
        out["value"].append(struct.unpack("<d", vbits)[0])
        out["ncat"].append(ncat)
        for f in ("left", "right", "nan", "other"):
            out[f].append(-1)
        if codes:
            out["codes"][i] = codes
        pending.append((i, kid))
        return i

    def jump(target: int) -> None:
        i = len(out["kind"])
        for f, v in (("kind", 1), ("feature", 0), ("threshold", math.nan), ("value", 0.0), ("ncat", 0), ("left", i + 1), ("right", target), ("nan", target), ("other", -1)):
            out[f].append(v)

    if not left_next:
        for kid in range(len(keys)):
            new(kid)
    else:
        for root in roots:
            stack = [root]
            while stack:
                kid = stack.pop()
                if kid in at:
                    continue
                new(kid)
                left, right = keys[kid][3], keys[kid][4]
                if left >= 0 and left in at:
                    if keys[left][0] == 0:
                        new(left)  # a leaf: a copy is no larger than a jump, and one step shorter
                    else:
                        jump(at[left])  # this split's next node: reached through a jump
                    left = -1
                stack += [c for c in (right, left) if c >= 0]
    for i, kid in pending:
        _, _, _, left, right, nan, other, *_ = keys[kid]
        for f, c in (("left", left), ("right", right), ("nan", nan), ("other", other)):
            # With left_next a split's left child is the next node: the subtree, a copy of a
            # leaf or a jump to the subtree written before (and so is a missing value's child
            # when it is the left one).
            out[f][i] = -1 if c < 0 else (i + 1 if left_next and c == left and f != "right" else at[c])
    out["roots"] = [at[r] for r in roots]
    out["outputs"] = list(a["outputs"])
    return out


# -- ensembles' files ---------------------------------------------------------------------------

_DESCRIPTION = {"bagging": "bagging", "forest": "a random forest", "adaboost": "AdaBoost (SAMME)"}


def shared_files(ens: Any, *, name: str, ftype: str, index_type: str = "auto", quantize: Any = None, template_dirs: Any = None) -> dict[str, str]:
    """``NAME.c`` and ``NAME.h`` of an ensemble in one shared table (``codegen_templates/_shared/c``):
    the combiner of :mod:`puretree.codegen.ensemble` (the same sums, in member order) over
    :func:`shared_table`'s walks. ``ftype`` is checked; ``quantize`` is ``(quantizer model,
    quantized members)`` or ``None``."""
    regression = ens.schema.is_regression
    outcome = "value" if regression else ("class" if ens.method == "adaboost" else "proba")
    members = ens.members if quantize is None else quantize[1]
    t = shared_table(members, ftype=ftype, outcome=outcome, index_type=index_type)
    ctype, int_range = lit.C_TYPES[ftype]
    k = len(ens.schema.classes)
    weights = [float(w) for w in ens.weights]
    size = {"uint8_t": 1, "uint16_t": 2, "uint32_t": 4, "int8_t": 1, "int16_t": 2, "int32_t": 4, "float": 4, "double": 8}
    packed = (size[ctype] + size[t["code_type"]] + size[t["index_type"]]) % size[ctype] == 0
    model = {
        **t,
        "name": name,
        "method": ens.method,
        "description": _DESCRIPTION[ens.method],
        "n_members": len(ens.members),
        "n_features": ens.schema.n_features,
        "n_classes": k,
        "regression": regression,
        "missing": _check(members),
        "n_outcomes": len(t["outcomes"]),
        "class_type": smallest_type(max(k, 1), "auto", "class indices"),
        "unit_weights": all(w == 1.0 for w in weights),
        "weights": [lit.c_double(w) for w in weights],
        "losses": [lit.c_double(-1 / (k - 1) * w if k > 1 else 0.0) for w in weights],
        "total": lit.c_double(vote_total(ens)),
        "ctype": ctype,
        "integer_features": int_range is not None,
        "missing_sentinel": lit.c_int(int_range[0], ctype) if int_range else "NAN",
        "jump_threshold": _jump_threshold(ftype),
        "packed": packed,
        "max_comparisons": t["comparisons"],
        # The combiner's locals (up to three arrays of a double per class, counters, one
        # volatile term) and the walk's (a few words).
        "max_stack_bytes": 64 + 24 * k,
        "quantize": None if quantize is None else quantize[0],
    }
    if ens.schema.n_features == 0:
        raise CodegenError("this model has no features; C code needs at least one (export it to Python, or retrain with a feature)")
    env = environment(template_dirs)
    files = {}
    for template in ("_shared/c/NAME.c.j2", "_shared/c/NAME.h.j2"):
        filename = template.rsplit("/", 1)[1][: -len(".j2")].replace("NAME", name)
        files[filename] = env.get_template(template).render(**model)
    return files
