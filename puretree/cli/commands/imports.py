"""``import``: a model another library saved, as a puretree model file (issue 29)."""

from __future__ import annotations

import argparse
from typing import Any

from ...files import check_not_inputs
from ...io import from_lightgbm, from_xgboost, save

__all__ = ["ORDER", "register"]

ORDER = 45

#: The libraries ``import --from`` reads, and the files they save.
SOURCES = {
    "xgboost": "a model saved by XGBoost's Booster.save_model, as JSON (.json) or UBJSON (.ubj)",
    "lightgbm": "a model saved by LightGBM's Booster.save_model, as its model text (.txt)",
}
READERS = {"xgboost": from_xgboost, "lightgbm": from_lightgbm}


def _import(args: argparse.Namespace) -> int:
    check_not_inputs(args.output, [args.model])
    model = READERS[args.source](args.model)
    save(model, args.output)
    print(f"{args.output}: {model.loss}, {len(model.stages)} stages x {model.n_outputs} output(s), {model.schema.n_features} features ({model.precision} sums)")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "import",
        help="read a model saved by XGBoost or LightGBM as a puretree model file",
        description="Read a model another library saved and save it as a puretree model (JSON): "
        + "; ".join(f"--from {k}: {v}" for k, v in SOURCES.items())
        + ". Its raw scores equal the library's (XGBoost's margins, LightGBM's raw scores) bit for bit; export and verify take the saved file.",
    )
    p.add_argument("model", metavar="MODEL.json|MODEL.ubj|MODEL.txt")
    p.add_argument("--from", dest="source", required=True, choices=tuple(SOURCES), help="the library that saved MODEL")
    p.add_argument("-o", "--output", required=True, metavar="OUT.json", help="where to save the puretree model (replaced atomically)")
    p.set_defaults(func=_import)
