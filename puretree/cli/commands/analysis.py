"""Exact questions about saved models: ``diff`` (where two models answer differently) and
``check-monotone`` (whether a model is monotone in one feature)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ...data import table_dataset
from ...analysis import diff
from ...errors import ParameterError
from ...io import load
from ...io.formats import read_table
from ...monotone import check_monotone
from .core import add_input_options, number

__all__ = ["ORDER", "register"]

ORDER = 32


def _diff(args: argparse.Namespace) -> int:
    old, new = load(args.old), load(args.new)
    X = None
    if args.data is not None:
        header, body, _ = read_table(args.data, sep=args.sep, format=args.data_format)
        X = table_dataset(old.schema, header, body)
    found = diff(old, new, tolerance=args.tolerance, X=X, max_boxes=args.max_boxes)
    print(found.to_text())
    return 0


def _check_monotone(args: argparse.Namespace) -> int:
    model = load(args.model)
    direction = {"+1": 1, "1": 1, "-1": -1}.get(args.direction)
    if direction is None:
        raise ParameterError(f"--direction must be +1 or -1, got {args.direction!r}")
    answer = check_monotone(model, args.feature, direction)
    word = "non-decreasing" if direction == 1 else "non-increasing"
    if answer is True:
        print(f"monotone: the model is {word} in {args.feature}")
        return 0
    low, high = answer
    print(f"not monotone: the model is not {word} in {args.feature}; these two rows break it:")
    print(json.dumps(low))
    print(json.dumps(high))
    return 3


def register(sub: Any) -> None:
    p = sub.add_parser(
        "diff",
        help="the exact input boxes where two models answer differently",
        description="Print how many boxes of inputs two models (trees, ensembles or boosted models on the same features) answer "
        "differently in (another class, or regression values more than --tolerance apart), then each box: both answers and its "
        "conditions; with --data, the weight of the rows in each box. Exact: found over the models' leaves, never by sampling.",
    )
    p.add_argument("old", metavar="OLD.json")
    p.add_argument("new", metavar="NEW.json")
    p.add_argument("--data", metavar="DATA", help="rows (CSV, ARFF, Parquet or JSON lines) whose number in each box is shown")
    p.add_argument("--tolerance", type=number(float), default=0.0, metavar="T", help="regression: values at most T apart agree (default 0)")
    p.add_argument("--max-boxes", type=number(int), default=100_000, metavar="N", help="stop after N boxes (default 100000)")
    add_input_options(p)
    p.set_defaults(func=_diff)

    m = sub.add_parser(
        "check-monotone",
        help="whether a model never decreases (or never increases) along one feature",
        description="Decide exactly, over the model's boxes, whether MODEL's prediction (a binary classifier: the probability "
        "of its second class) never decreases (--direction +1) or never increases (-1) along FEATURE, the other features "
        "held fixed. Exit status 0: monotone; 3: not, with two rows (JSON) that break it.",
    )
    m.add_argument("model", metavar="MODEL.json")
    m.add_argument("--feature", required=True, metavar="F", help="the feature's name")
    m.add_argument("--direction", required=True, metavar="+1|-1", help="+1: non-decreasing; -1: non-increasing")
    m.set_defaults(func=_check_monotone)
