"""``import``: a model another library saved, as a puretree model file (issue 29)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ...errors import ModelFormatError
from ...files import check_not_inputs
from ...io import from_lightgbm, from_xgboost, save

__all__ = ["ORDER", "register"]

ORDER = 45

#: The libraries ``import --from`` reads, and the files they save.
SOURCES = {
    "xgboost": "a model saved by XGBoost's Booster.save_model, as JSON (.json) or UBJSON (.ubj)",
    "lightgbm": "a model saved by LightGBM's Booster.save_model, as its model text (.txt)",
    "sklearn": "a fitted scikit-learn tree model pickled by pickle.dump (.pkl) or joblib.dump (.joblib), read only with --trust-pickle",
}
READERS = {"xgboost": from_xgboost, "lightgbm": from_lightgbm}

#: Why a pickle is read only on request: said whenever one is refused.
PICKLE_WARNING = "unpickling runs whatever code the file holds, so a pickle is loaded only with --trust-pickle, for a file from a source you trust"


def _unpickled(path: str) -> Any:
    """The object pickled in ``path``: with joblib for a ``.joblib`` file, else the standard
    pickle. A file that does not unpickle is a :class:`~puretree.errors.ModelFormatError` naming it."""
    try:
        if Path(path).suffix.lower() == ".joblib":
            import joblib  # type: ignore[import-untyped]  # scikit-learn's own dependency; no type hints

            return joblib.load(path)
        import pickle

        with open(path, "rb") as fh:
            return pickle.load(fh)  # noqa: S301 - the user vouched for the file (--trust-pickle)
    except OSError as exc:
        raise ModelFormatError(f"{path}: cannot read the model ({exc.strerror or exc})") from None
    except Exception as exc:  # a corrupt pickle fails in many ways (EOFError, UnpicklingError, a missing class...)
        raise ModelFormatError(f"{path}: not a readable pickle ({type(exc).__name__}: {exc})") from None


def _read_sklearn(args: argparse.Namespace) -> Any:
    from ...errors import ParameterError
    from ...sklearn import from_sklearn

    if not args.trust_pickle:
        from .. import CommandLineError

        raise CommandLineError(f"import: {args.model}: refusing to unpickle a scikit-learn model: {PICKLE_WARNING}")
    try:
        return from_sklearn(_unpickled(args.model))
    except ParameterError as exc:  # not a model puretree converts: say which file held it
        raise ParameterError(f"{args.model}: {exc}") from None


def _summary(model: Any) -> str:
    """One line on what was imported."""
    from ...boosted import Boosted
    from ...ensemble import Ensemble
    from ...fold import n_nodes

    if isinstance(model, Boosted):
        return f"{model.loss}, {len(model.stages)} stages x {model.n_outputs} output(s), {model.schema.n_features} features ({model.precision} sums)"
    if isinstance(model, Ensemble):
        return f"{model.method} of {len(model.members)} trees, {model.schema.n_features} features"
    return f"a tree of {n_nodes(model)} nodes, {model.schema.n_features} features"


def _import(args: argparse.Namespace) -> int:
    check_not_inputs(args.output, [args.model])
    model = _read_sklearn(args) if args.source == "sklearn" else READERS[args.source](args.model)
    save(model, args.output)
    print(f"{args.output}: {_summary(model)}")
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "import",
        help="read a model saved by XGBoost, LightGBM or scikit-learn as a puretree model file",
        description="Read a model another library saved and save it as a puretree model (JSON): "
        + "; ".join(f"--from {k}: {v}" for k, v in SOURCES.items())
        + ". Its predictions are the library's (XGBoost's margins, LightGBM's raw scores, scikit-learn's scores bit for bit); export and verify take the saved file. "
        + f"Pickles: {PICKLE_WARNING}.",
    )
    p.add_argument("model", metavar="MODEL.json|MODEL.ubj|MODEL.txt|MODEL.pkl|MODEL.joblib")
    p.add_argument("--from", dest="source", required=True, choices=tuple(SOURCES), help="the library that saved MODEL")
    p.add_argument("--trust-pickle", action="store_true", help="with --from sklearn: unpickle MODEL (pickle or joblib), which runs any code it holds; only for a file you trust")
    p.add_argument("-o", "--output", required=True, metavar="OUT.json", help="where to save the puretree model (replaced atomically)")
    p.set_defaults(func=_import)
