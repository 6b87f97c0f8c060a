"""Exact questions about saved models: ``diff`` (where two models answer differently),
``check-monotone`` (whether a model is monotone in one feature), ``counterfactual`` (the
nearest row a model answers with a given class) and ``robustness`` (the largest ball around a
row with one answer)."""

from __future__ import annotations

import argparse
import json
import math
from typing import Any

from ...data import table_dataset
from ...analysis import METHODS, NORMS, counterfactual, diff, robustness
from ...errors import ParameterError
from ...io import load
from ...io.formats import read_table
from ...nodes import format_number as number_text
from ...monotone import check_monotone
from .core import add_input_options, label_text, number

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


def _row(text: str) -> dict[str, Any]:
    """``--row``'s JSON object of feature values."""
    try:
        row = json.loads(text)
    except ValueError as exc:
        raise ParameterError(f"--row must be a JSON object of feature values: {exc}") from None
    if not isinstance(row, dict):
        raise ParameterError(f"--row must be a JSON object of feature values, got {text[:40]!r}")
    return row


def _ranges(texts: list[str] | None, model: Any) -> dict[str, Any]:
    """``--range`` options, ``F=LO:HI`` for a numeric feature (either end may be left out) or
    ``F=A,B`` for the categories a categorical feature may take.

    >>> from puretree.grow import cart
    >>> tree = cart([[0.0, "u"], [1.0, "v"]], ["a", "b"])
    >>> _ranges(["x0=:2.5", "x1=u,v"], tree)
    {'x0': (-inf, 2.5), 'x1': ['u', 'v']}
    """
    features = {f.name: f for f in model.schema.features}
    out: dict[str, Any] = {}
    for text in texts or ():
        name, sep, spec = text.partition("=")
        if not sep or name not in features:
            raise ParameterError(f"--range {text!r}: expected FEATURE=LO:HI or FEATURE=A,B with a feature of the model {list(features)[:10]}")
        if not features[name].is_numeric:
            out[name] = spec.split(",")
            continue
        lo, colon, hi = spec.partition(":")
        try:
            out[name] = (float(lo) if lo else -math.inf, float(hi) if hi else math.inf)
        except ValueError:
            colon = ""
        if not colon:
            raise ParameterError(f"--range {text!r}: a numeric feature's range is LO:HI (numbers; an end may be left out)")
    return out


def _counterfactual(args: argparse.Namespace) -> int:
    model = load(args.model)
    row = _row(args.row)
    if model.schema.is_regression:
        raise ParameterError("counterfactual asks a classifier for a class; this is a regression model")
    texts = [label_text(c) for c in model.schema.classes]
    if args.target not in texts:
        raise ParameterError(f"--target {args.target!r} is not one of the model's classes {texts}")
    target = model.schema.classes[texts.index(args.target)]
    ranges = _ranges(args.range, model)
    found = counterfactual(model, row, target, norm=args.norm, immutable=args.immutable or (), ranges=ranges, method=args.method, time_limit=args.time_limit)
    if found is None:
        print(f"no row with the immutable features kept and within the ranges is answered {args.target}")
        return 3
    proof = "" if found.exact else f"; not proven nearest: the nearest is at least {number_text(found.lower_bound)} away"
    print(f"distance {number_text(found.distance)} ({found.norm}) to a row answered {label_text(found.answer)}{proof}:")
    print(json.dumps(found.row))
    return 0


def _robustness(args: argparse.Namespace) -> int:
    model = load(args.model)
    found = robustness(model, _row(args.row), method=args.method, time_limit=args.time_limit)
    answer = label_text(found.answer) if not model.schema.is_regression else number_text(found.answer)
    if found.witness is None and found.exact:
        print(f"every row is answered {answer}: no radius bounds it")
        return 0
    kind = "exact" if found.exact else "a verified lower bound"
    print(f"radius {number_text(found.radius)} ({kind}): every row whose numeric features are each less than that from --row is answered {answer}")
    if found.witness is not None:
        other = label_text(found.witness_answer) if not model.schema.is_regression else number_text(found.witness_answer)
        where = "on the ball's edge" if found.exact else "the nearest found (farther than the bound)"
        print(f"a row answered {other}, {where}:")
        print(json.dumps(found.witness))
    return 0


def _model_and_row(p: argparse.ArgumentParser) -> None:
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("--row", required=True, metavar="JSON", help='the row, e.g. \'{"age": 41, "income": 30000}\'')


def _search_options(p: argparse.ArgumentParser, auto: str) -> None:
    """``--method`` and ``--time-limit``, as counterfactual and robustness take them (``auto``: what "auto" picks)."""
    p.add_argument("--method", choices=METHODS, default="auto", help=f"boxes: search the model's boxes; milp: the solver; auto (default): {auto}")
    p.add_argument("--time-limit", type=number(float, low=0, open_low=True), default=60.0, metavar="S", help="the solver's seconds (default 60)")


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

    c = sub.add_parser(
        "counterfactual",
        help="the nearest row that a classifier answers with a given class",
        description="Print the nearest row to --row (a JSON object) that MODEL answers with --target, and its distance ("
        f"{', '.join(NORMS)} over the numeric features; a changed category counts 1); --immutable features keep their values. "
        "Exact: a tree over its leaves; an ensemble or a boosted model by a mixed-integer program over its members' leaves "
        "(scipy.optimize.milp), and when that runs out of --time-limit the row found and a lower bound on the nearest distance. "
        "Exit status 3 when no such row exists.",
    )
    _model_and_row(c)
    c.add_argument("--target", required=True, metavar="LABEL", help="the class wanted")
    c.add_argument("--norm", choices=NORMS, default="l1", help="the distance (default l1)")
    c.add_argument("--immutable", nargs="+", metavar="F", help="features that must keep their values")
    c.add_argument("--range", action="append", metavar="F=LO:HI", help="keep feature F within [LO, HI] (an end may be left out), or "
                   "F=A,B within those categories; repeat for several features")
    _search_options(c, "boxes for a tree, else milp")
    c.set_defaults(func=_counterfactual)

    r = sub.add_parser(
        "robustness",
        help="the largest ball around a row in which a model gives one answer",
        description="Print the largest L-infinity radius around --row (over its numeric features; its categories stay) within which "
        "MODEL gives --row's answer, and a row on the ball's edge that gets another answer (checked by predicting it). Exact for a "
        "tree; an ensemble or a boosted classifier by a mixed-integer program (scipy.optimize.milp), and when that runs out of "
        "--time-limit a verified lower bound.",
    )
    _model_and_row(r)
    _search_options(r, "boxes for a tree or a regression model, else milp")
    r.set_defaults(func=_robustness)
