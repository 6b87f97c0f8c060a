"""``explain``: each feature's TreeSHAP value in a saved model's answer for each row of a data file."""

from __future__ import annotations

import argparse
import csv
import io
import sys
from typing import Any

import attrs
import numpy as np

from ...data import table_dataset
from ...errors import ParameterError
from ...explain import PERTURBATIONS, shap_values
from ...files import check_not_inputs, write_text
from ...io.formats import read_table
from ...nodes import format_number
from .core import add_input_options, label_text, load_model

__all__ = ["ORDER", "register"]

ORDER = 30


def _columns(sv: Any, classes: tuple[Any, ...], chosen: list[int]) -> tuple[list[str], list[list[str]]]:
    """The CSV: per row, ``expected`` and one column per feature (per chosen class, named ``feature(class)``)."""
    names = list(sv.feature_names)
    if sv.values.ndim == 2:  # regression: one output
        header = ["expected", *names]
        rows = [[format_number(float(sv.expected_value))] + [format_number(float(v)) for v in row] for row in sv.values]
        return header, rows
    header = []
    for k in chosen:
        c = label_text(classes[k])
        header += [f"expected({c})", *(f"{n}({c})" for n in names)]
    rows = []
    for row in sv.values:
        cells: list[str] = []
        for k in chosen:
            cells += [format_number(float(sv.expected_value[k]))] + [format_number(float(v)) for v in row[:, k]]
        rows.append(cells)
    return header, rows


def _explain(args: argparse.Namespace) -> int:
    if args.output is not None:
        check_not_inputs(args.output, [args.model, args.data, args.background])
    model = load_model(args.model, args.data)
    header, body, _ = read_table(args.data, sep=args.sep, format=args.data_format)
    X = table_dataset(model.schema, header, body)
    background = None
    if args.background is not None:
        b_header, b_body, _ = read_table(args.background, sep=args.sep, format=args.data_format)
        background = table_dataset(model.schema, b_header, b_body)
    fp = "interventional" if background is not None else "tree_path_dependent"
    classes = model.schema.classes
    chosen = list(range(len(classes)))
    if args.class_ is not None:
        if model.schema.is_regression:
            raise ParameterError("--class goes with a classification model; this one is a regression model")
        texts = [label_text(c) for c in classes]
        if args.class_ not in texts:
            raise ParameterError(f"--class {args.class_!r} is not one of the model's classes {texts}")
        chosen = [texts.index(args.class_)]
    sv = shap_values(model, X, feature_perturbation=fp, data=background)
    if sv.output == "raw" and sv.values.ndim == 2 and not model.schema.is_regression:
        # two classes, one raw score: the log-odds of the second class, the first's its negation
        sv = attrs.evolve(sv, values=np.stack((-sv.values, sv.values), axis=-1), expected_value=np.array([-sv.expected_value, sv.expected_value]))
    out_header, rows = _columns(sv, classes, chosen)
    stream: Any = io.StringIO() if args.output is not None else sys.stdout
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(out_header)
    writer.writerows(rows)
    if args.output is not None:
        write_text(args.output, stream.getvalue())
        print(f"{len(rows)} rows of Shapley values ({fp}) written to {args.output}")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "explain",
        help="each feature's TreeSHAP value in a model's answer for each row",
        description="Write, for each row of DATA, the model's expected value and each feature's Shapley value (TreeSHAP: they add up to "
        "the answer: the probability of each class, or the prediction) as CSV. Path-dependent by default; --background FILE: "
        f"interventional, over the rows of FILE (one of {', '.join(PERTURBATIONS)}, as shap names them).",
    )
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("data", metavar="DATA", help="CSV, ARFF, Parquet or JSON lines; - for standard input")
    p.add_argument("--background", metavar="FILE", help="the background rows of the interventional values (e.g. 100 training rows)")
    p.add_argument("--class", dest="class_", metavar="LABEL", help="only this class's values (default: every class)")
    add_input_options(p)
    p.add_argument("-o", "--output", metavar="VALUES.csv", help="write the CSV to this file (replaced atomically) instead of standard output")
    p.set_defaults(func=_explain)
