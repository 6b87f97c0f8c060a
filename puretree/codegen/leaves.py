"""Leaf tables in one byte per class: ``leaf_type="uint8"`` (``--leaf-type uint8``).

A classification tree's generated C stores, per place a row can end, its class
probabilities: as doubles by default (8 bytes per class, exact), or with ``leaf_type="uint8"``
as whole numbers of 255ths, one ``uint8_t`` per class. Each distribution ``p`` becomes the
``q`` of :func:`leaf_numerators`: the largest-remainder apportionment of 255 (``floor(255 p)``
per class, the units left over to the largest remainders, ties to the first class), so the
``q`` add up to exactly 255 and each is within one unit of ``255 p``. ``NAME_predict_proba``
fills a ``uint8_t`` array with ``q`` (probability ``q[k] / NAME_PROBA_SCALE``, 255) and
``NAME_predict`` answers the first class of the largest ``q``. A bagging or forest ensemble
(members of equal weight) adds its members' ``q`` as integers (``uint32_t``, scale ``255 n``
for ``n`` members) and answers the first class of the largest sum: no floating point at all,
so no double arithmetic (soft-float on a Cortex-M0, M3 or M4) is linked in.

The generated code is exact against this model, the *leaf-quantized* one (:func:`leaf_answers`
for a tree; :func:`leaf_combined` for a forest): ``verify`` checks it bit for bit and
reports how many rows' class the rounding changes against the model itself (``max_changed``).
Apportionment keeps the order of the probabilities (``p_a > p_b`` gives ``q_a >= q_b``), so a
tree's class changes only where two classes end up with the same count.

>>> leaf_numerators((0.5, 0.25, 0.25)), leaf_numerators((0.7, 0.2, 0.1))  # 178.5 and 25.5: the first gets the unit
((127, 64, 64), (179, 51, 25))
>>> leaf_proba((0.7, 0.2, 0.1))
(0.7019607843137254, 0.2, 0.09803921568627451)
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..errors import CodegenError

__all__ = ["LEAF_TYPES", "LEAF_SCALE", "leaf_numerators", "leaf_proba", "leaf_answers", "leaf_combined", "check_leaf_type"]

#: The leaf tables the C can hold: ``double`` (exact, the default) and ``uint8`` (255ths).
LEAF_TYPES = ("double", "uint8")
#: A ``uint8`` leaf table's numerators add up to this: probability ``q / LEAF_SCALE``.
LEAF_SCALE = 255


def check_leaf_type(leaf_type: Any, *, regression: bool, language: str, missing: str = "majority", method: str | None = None) -> str:
    """``leaf_type`` checked for a model: ``uint8`` holds class probabilities (classification),
    in C, for the missing-value strategies that end a row at one leaf (majority, error), and
    for trees, bagging and random forests (AdaBoost's members vote with their classes).

    >>> check_leaf_type("uint8", regression=True, language="c")
    Traceback (most recent call last):
    ...
    puretree.errors.CodegenError: leaf_type 'uint8' stores class probabilities; a regression model's leaf values stay double
    """
    if leaf_type not in LEAF_TYPES:
        raise CodegenError(f"unknown leaf type {leaf_type!r}; choose one of {list(LEAF_TYPES)}")
    if leaf_type == "double":
        return leaf_type
    if regression:
        raise CodegenError(f"leaf_type {leaf_type!r} stores class probabilities; a regression model's leaf values stay double")
    if language != "c":
        raise CodegenError(f"leaf_type {leaf_type!r} is for C targets (c, c-table); {language} code holds the probabilities as the language's doubles")
    if missing == "distribute":
        raise CodegenError(f"leaf_type {leaf_type!r} needs a tree that ends each row at one leaf (missing 'majority' or 'error'), not one that distributes missing values")
    if method == "adaboost":
        raise CodegenError(f"leaf_type {leaf_type!r} is written for trees, bagging and random forests, not AdaBoost (its members vote with their classes)")
    return leaf_type


def leaf_numerators(p: Sequence[float]) -> tuple[int, ...]:
    """The ``uint8`` numerators of a distribution: whole 255ths adding up to 255, by largest
    remainder (ties: the first class)."""
    scaled = [LEAF_SCALE * float(v) for v in p]
    q = [math.floor(v) for v in scaled]
    left = LEAF_SCALE - sum(q)
    order = sorted(range(len(q)), key=lambda k: (-(scaled[k] - q[k]), k))
    for i in range(max(0, left)):
        q[order[i % len(q)]] += 1
    return tuple(q)


def leaf_proba(p: Sequence[float]) -> tuple[float, ...]:
    """What the ``uint8`` table's ``predict_proba`` answers for a leaf of distribution ``p``."""
    return tuple(q / float(LEAF_SCALE) for q in leaf_numerators(p))


def leaf_answers(answers: Sequence[Any]) -> list[Any]:
    """A tree's answers (:func:`puretree.codegen.verify.expected`: a distribution per row, or
    None where the tree refuses it) as the ``uint8`` leaf table answers them."""
    return [None if a is None else leaf_proba(a) for a in answers]


def leaf_combined(outputs: np.ndarray) -> list[tuple[int, tuple[float, ...]]]:
    """A bagging or forest ensemble's answers ``(class index, probabilities)`` with each
    member's leaves in ``uint8``, from its members' probabilities ``outputs`` (members, rows,
    classes: :func:`puretree.ensemble.member_outputs`; the members weigh the same): the
    members' numerators added up as integers, ``s``, the probabilities ``s / (255 n)`` for
    ``n`` members and the first class of the largest ``s``.

    >>> leaf_combined(np.array([[[0.5, 0.5]], [[0.25, 0.75]]]))
    [(1, (0.3764705882352941, 0.6235294117647059))]
    """
    sums = np.zeros(outputs.shape[1:], dtype=np.int64)
    for out in outputs:
        sums += np.array([leaf_numerators(p) for p in out.tolist()], dtype=np.int64).reshape(out.shape)
    scale = float(LEAF_SCALE * len(outputs))
    return [(int(np.argmax(s)), tuple(int(v) / scale for v in s)) for s in sums]
