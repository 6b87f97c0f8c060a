"""``fit``, ``show``, ``predict`` and ``evaluate``."""

from __future__ import annotations

import argparse
import csv
import io
import math
import re
import sys
import time
import warnings
from typing import Any

import numpy as np

from ...data import category_key, is_missing, parse_number, table_dataset
from ...distributions import with_histograms
from ...ensemble import adaboost, bagging, random_forest, stump
from ...errors import DataError, ModelFormatError, ParameterError
from ...evaluate import accuracy, confusion_matrix, cross_validate, format_confusion, stratified_folds
from ...files import check_not_inputs, checkpoint, write_text
from ...fold import n_nodes
from ...gradient_boosting import LOSSES as _GB_LOSSES
from ...gradient_boosting import gradient_boosting
from ...grow import c45, cart, id3
from ...importance import feature_importances, format_importances
from ...io import load, save
from ...io.formats import FORMATS, format_of, read_data, read_table
from ...nodes import MISSING_STRATEGIES
from ...predict import predict, predict_proba, unseen_cells
from ...prune.rewrites import pessimistic, reduced_error
from ...text import format_number, summary, to_text
from ...tree import Tree
from ...views import VIEW_FORMATS, SlowLayoutWarning, render_view
from .. import CommandLineError, fit_progress, progress_wanted

__all__ = ["ORDER", "register", "ALGORITHMS", "number", "label_text", "true_labels", "load_model", "add_input_options"]  # the last six: shared with prune and explain

ORDER = 10

ALGORITHMS = {"id3": id3, "c45": c45, "cart": cart}
_CRITERIA = ("entropy", "information_gain", "gain_ratio", "gini", "misclassification", "variance", "squared_error", "poisson", "absolute_error")


#: The largest whole number an option takes (an int64): larger is a range error, not a crash.
_MAX_WHOLE = 2**63 - 1
_WHOLE = re.compile(r"[+-]?[0-9]+", re.ASCII)


def _echo(text: str) -> str:
    """A user's argument quoted in a message, cut short (a 5,000-digit number stays one short line)."""
    return repr(text) if len(text) <= 40 else repr(text[:37] + "...")


def number(kind: type, *, low: float | None = None, high: float | None = None, open_low: bool = False, what: str = "") -> Any:
    """An argparse ``type``: text parsed as ``kind`` (int or float), finite, within bounds.

    Only plain ASCII decimal numbers are accepted (``int()`` and ``float()`` would also take
    ``1_000`` and non-ASCII digits); whole numbers must be at most :data:`_MAX_WHOLE`.

    >>> number(int, low=2, what="number of folds")("1")
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a number of folds >= 2, got '1'
    >>> number(float, low=0, high=1, open_low=True)("0.25")
    0.25
    >>> number(int, low=0)(str(10**23))
    Traceback (most recent call last):
    ...
    argparse.ArgumentTypeError: expected a whole number between 0 and 9223372036854775807, got '100000000000000000000000'
    """
    noun = what or ("whole number" if kind is int else "number")

    def parse(text: str) -> Any:
        if kind is int:
            span = f"{noun} between {-_MAX_WHOLE if low is None else f'{low:g}'} and {_MAX_WHOLE if high is None else f'{high:g}'}"
            if not _WHOLE.fullmatch(text.strip()):
                raise argparse.ArgumentTypeError(f"expected a {span}, got {_echo(text)}")
            # Beyond 40 digits the value is out of range anyway (and int() refuses 4,300+ digits).
            value: Any = int(text) if len(text.strip()) <= 40 else (-1 if text.strip().startswith("-") else 1) * (_MAX_WHOLE + 1)
            if not -_MAX_WHOLE <= value <= _MAX_WHOLE:
                raise argparse.ArgumentTypeError(f"expected a {span}, got {_echo(text)}")
        else:
            value = parse_number(text)
            if value is None:
                raise argparse.ArgumentTypeError(f"expected a {noun}, got {_echo(text)}")
            if not math.isfinite(value):
                raise argparse.ArgumentTypeError(f"expected a finite {noun}, got {_echo(text)}")
        if high is not None and not (low < value < high if open_low else low <= value <= high):
            raise argparse.ArgumentTypeError(f"expected a {noun} strictly between {low:g} and {high:g}, got {_echo(text)}")
        if high is None and low is not None and not (value > low if open_low else value >= low):
            raise argparse.ArgumentTypeError(f"expected a {noun} {'>' if open_low else '>='} {low:g}, got {_echo(text)}")
        return value

    parse.__name__ = f"{kind.__name__}_argument"
    return parse


non_negative_int = number(int, low=0)
positive_int = number(int, low=1)
_folds = number(int, low=2, what="number of folds")
finite_float = number(float)


def _add_fit_options(p: argparse.ArgumentParser, *, require_target: bool = True) -> None:
    """The options that describe how to grow a tree (shared by fit and cross-validation)."""
    p.add_argument("--label", "--target", dest="target", required=require_target, metavar="COLUMN", help="the class column (an ARFF file's default: its last attribute); --label is the same option")
    p.add_argument("--algorithm", choices=sorted(ALGORITHMS), default="c45", help="growth preset (default: c45)")
    p.add_argument("--criterion", choices=_CRITERIA, help="override the preset's split criterion")
    p.add_argument("--categorical", nargs="+", default=(), metavar="COLUMN", help="treat these numeric-looking columns as categories")
    p.add_argument("--ignore", nargs="+", default=(), metavar="COLUMN", help="leave these columns out (identifiers)")
    p.add_argument("--max-depth", type=non_negative_int, metavar="N")
    p.add_argument("--min-samples-split", type=non_negative_int, default=2, metavar="N")
    p.add_argument("--min-samples-leaf", type=positive_int, metavar="N",
                   help="c45: at least two branches of a split hold N rows (J48's -M, default 2); id3, cart: every leaf holds N rows (default 1)")
    p.add_argument("--threshold", choices=("midpoint", "data"), default="midpoint",
                   help="numeric cuts halfway between two training values (default), or at the lower one (C4.5's and J48's choice)")
    p.add_argument("--min-gain", type=finite_float, metavar="X", help="stop when the best score is not above X")
    p.add_argument("--task", choices=("classification", "regression"), default="classification", help="predict a class (default) or a number (regression: variance, leaves predict the mean)")
    p.add_argument("--missing", choices=(*MISSING_STRATEGIES, "learn", "surrogate"), help="missing values: heaviest branch, every branch weighted (C4.5), refuse, a side learned per split, or rpart's surrogate splits (cart) (default: the algorithm's)")
    p.add_argument("--monotonic-cst", type=_monotonic_cst, metavar="D,D,...",
                   help="monotonic constraints, one of -1, 0, 1 per feature in the data's column order (target and --ignore'd columns left out): "
                        "the prediction (two classes: the probability of the second class) rises (1) or falls (-1) with the feature, as scikit-learn's monotonic_cst")
    _add_size_options(p)


def _add_size_options(p: argparse.ArgumentParser) -> None:
    """scikit-learn's size controls and splitter (grow's options of those names; docs/sizes.md)."""
    p.add_argument("--max-leaf-nodes", type=non_negative_int, metavar="N", help="grow best-first (the split of largest weighted impurity decrease first) to at most N leaves, as scikit-learn")
    p.add_argument("--min-weight-fraction-leaf", type=finite_float, default=0.0, metavar="F", help="every leaf holds at least this fraction of the training weight (0 to 0.5)")
    p.add_argument("--min-impurity-decrease", type=finite_float, default=0.0, metavar="X", help="split only where the weighted impurity decrease N_t/N * score reaches X")
    p.add_argument("--splitter", choices=("best", "random"), default="best", help="numeric cuts: the best (default) or the best of random cuts between each feature's extremes (extra trees; drawn from --seed)")


def _size_options(args: argparse.Namespace) -> dict[str, Any]:
    """grow's size options from the parsed arguments, where they are not the defaults."""
    options: dict[str, Any] = {}
    if getattr(args, "max_leaf_nodes", None) is not None:
        options["max_leaf_nodes"] = args.max_leaf_nodes
    if getattr(args, "min_weight_fraction_leaf", 0.0):
        options["min_weight_fraction_leaf"] = args.min_weight_fraction_leaf
    if getattr(args, "min_impurity_decrease", 0.0):
        options["min_impurity_decrease"] = args.min_impurity_decrease
    if getattr(args, "splitter", "best") != "best":
        options["splitter"] = args.splitter
    return options


def _monotonic_cst(text: str) -> list[int]:
    """``--monotonic-cst``: comma-separated -1, 0 or 1, one per feature."""
    parts = [t.strip() for t in text.split(",")]
    if not all(t in ("-1", "0", "1", "+1") for t in parts):
        bad = next(t for t in parts if t not in ("-1", "0", "1", "+1"))
        raise argparse.ArgumentTypeError(f"expected -1, 0 or 1 per feature, separated by commas; got {_echo(bad)}")
    return [int(t) for t in parts]


def _separator(text: str) -> str:
    """``--sep``: one character; ``\\t`` or ``tab`` for a tab (hard to type in a shell)."""
    sep = "\t" if text in ("\\t", "tab") else text
    if len(sep) != 1 or sep in "\r\n\"":
        raise argparse.ArgumentTypeError(f"expected one character (or \\t for a tab), got {_echo(text)}")
    return sep


def _add_input_options(p: argparse.ArgumentParser) -> None:
    """How to read the data file: its format (else by extension) and a CSV file's separator."""
    p.add_argument("--data-format", choices=FORMATS, metavar="FORMAT",
                   help=f"read the data as {', '.join(FORMATS)} (default: by extension: .arff, .parquet, .jsonl; else CSV; - is standard input)")
    p.add_argument("--sep", type=_separator, metavar="CHAR", help="the CSV delimiter (default: a comma; a tab for .tsv; \\t for a tab)")


#: Shared with the other command modules (explain).
add_input_options = _add_input_options


def _read_args_data(args: argparse.Namespace, path: str, *, target: str | None, task: str = "classification") -> Any:
    """The dataset of a fit (or --cv): ARFF's class is its last attribute unless --target names one."""
    if target is None and format_of(path, args.data_format) != "arff":
        raise CommandLineError(f"{args.command}: the following arguments are required: --target (only an ARFF file has a default class, its last attribute)")
    return read_data(path, target=target, categorical=args.categorical or None, ignore=args.ignore, task=task, sep=args.sep, format=args.data_format)


def _fit_options(args: argparse.Namespace) -> dict[str, Any]:
    """Keyword options for the growth preset from parsed arguments."""
    options: dict[str, Any] = {
        "max_depth": args.max_depth,
        "min_samples_split": args.min_samples_split,
        "min_gain": args.min_gain,
        "threshold": args.threshold,
    }
    if args.min_samples_leaf is not None:  # else the algorithm's own default (c45: 2, as J48)
        options["min_samples_leaf"] = args.min_samples_leaf
    if args.criterion:
        options["score"] = args.criterion
    if getattr(args, "missing", None):
        options["missing"] = args.missing
    options.update(_size_options(args))
    if options.get("splitter") == "random" and not getattr(args, "ensemble", None) and getattr(args, "seed", None) is not None:
        options["seed"] = args.seed  # an ensemble keys its members' draws by its own seed
    if getattr(args, "monotonic_cst", None) is not None:
        options["monotonic_cst"] = args.monotonic_cst
    return options


_ENSEMBLES = ("bagging", "forest", "adaboost", "gradient-boosting", "hist-gradient-boosting")
_BOOSTERS = ("gradient-boosting", "hist-gradient-boosting")


def _max_features(text: str) -> Any:
    """``--max-features``: sqrt, log2, none, a count or a fraction in (0, 1]."""
    if text in ("sqrt", "log2", "none"):
        return text
    if _WHOLE.fullmatch(text.strip()):
        return positive_int(text)
    return number(float, low=0, high=1, open_low=True, what="fraction of the features")(text)


def _add_ensemble_options(p: argparse.ArgumentParser) -> None:
    """fit's options for growing an ensemble instead of one tree."""
    p.add_argument("--ensemble", choices=_ENSEMBLES, help="grow an ensemble: bagging of --algorithm trees, a random forest of CART trees, or AdaBoost (SAMME) of CART stumps (--max-depth: deeper members)")
    p.add_argument("--n-trees", type=positive_int, metavar="N", help="members of the ensemble (default: 10 for bagging, 100 for a forest, 50 rounds for AdaBoost)")
    p.add_argument("--max-features", type=_max_features, metavar="sqrt|log2|none|N|F",
                   help="features drawn at every split (default: sqrt for a forest, all otherwise)")
    p.add_argument("--seed", type=non_negative_int, default=0, metavar="S", help="seed of the ensemble's random choices (default: 0)")
    g = p.add_argument_group("gradient boosting (--ensemble gradient-boosting: pt.gradient_boosting, a Boosted model; scikit-learn's options)")
    g.add_argument("--n-estimators", type=positive_int, metavar="N", help="boosting stages (default: 100; --n-trees is the same)")
    g.add_argument("--learning-rate", type=number(float, low=0, open_low=True), metavar="R", help="each stage's factor (default: 0.1)")
    g.add_argument("--loss", choices=[*_GB_LOSSES["classification"], *_GB_LOSSES["regression"]], help="log_loss (classification's default), squared_error (regression's default), absolute_error, huber, quantile")
    g.add_argument("--subsample", type=number(float, low=0, high=1, open_low=True), metavar="F", help="fraction of the rows each stage is grown on (default: 1)")
    g.add_argument("--alpha", type=number(float, low=0, high=1, open_low=True), metavar="A", help="the quantile loss's quantile and Huber's breaking point (default: 0.9)")
    g.add_argument("--n-iter-no-change", type=positive_int, metavar="N", help="stop when the held-out loss has not improved by --tol for N stages (default: no early stopping)")
    g.add_argument("--validation-fraction", type=number(float, low=0, high=1, open_low=True), metavar="F", help="rows held out for --n-iter-no-change (default: 0.1)")
    g.add_argument("--tol", type=number(float, low=0), metavar="X", help="the improvement --n-iter-no-change asks for (default: 1e-4)")
    g.add_argument("--sklearn-tie-break", action="store_true", help="visit the features in scikit-learn's order for --seed: scikit-learn's model (slower: pure Python)")
    h = p.add_argument_group("histogram gradient boosting (--ensemble hist-gradient-boosting: pt.hist_gradient_boosting; also --n-estimators, --learning-rate, --loss, --n-iter-no-change, "
                             "--validation-fraction, --tol, --max-leaf-nodes (default 31), --max-depth, --min-samples-leaf (default 20), --seed)")
    h.add_argument("--l2-regularization", type=number(float, low=0), metavar="X", help="L2 term of every gain and leaf value (default: 0)")
    h.add_argument("--max-bins", type=positive_int, metavar="N", help="bins per feature, 2 to 255 (default: 255)")


def _fit_from_args(args: argparse.Namespace, data: Any) -> Any:
    if getattr(args, "ensemble", None):
        return _ensemble_from_args(args, data)
    return ALGORITHMS[args.algorithm](data, **_fit_options(args))


#: fit's gradient boosting options and pt.gradient_boosting's names for them.
_BOOSTING = ("learning_rate", "loss", "subsample", "alpha", "n_iter_no_change", "validation_fraction", "tol")


def _boosting_from_args(args: argparse.Namespace, data: Any, progress: Any = None) -> Any:
    """``--ensemble gradient-boosting``: pt.gradient_boosting with the tree options it takes."""
    if args.algorithm != "c45" or args.criterion or args.missing or args.splitter != "best" or args.max_leaf_nodes is not None or args.min_weight_fraction_leaf or args.min_gain is not None or args.monotonic_cst is not None or args.threshold != "midpoint":
        raise ParameterError("--ensemble gradient-boosting grows scikit-learn's squared-error stage trees: it takes --max-depth, --min-samples-split, --min-samples-leaf, --min-impurity-decrease and --max-features, not --algorithm, --criterion, --missing, --splitter, --max-leaf-nodes, --min-weight-fraction-leaf, --min-gain, --monotonic-cst or --threshold")
    if args.n_trees is not None and args.n_estimators is not None and args.n_trees != args.n_estimators:
        raise ParameterError(f"--n-trees {args.n_trees} and --n-estimators {args.n_estimators} differ; give one")
    options = {name: getattr(args, name) for name in _BOOSTING if getattr(args, name) is not None}
    if args.max_features is not None:
        options["max_features"] = None if args.max_features == "none" else args.max_features
    if args.min_samples_leaf is not None:
        options["min_samples_leaf"] = args.min_samples_leaf
    return gradient_boosting(
        data, n_estimators=args.n_estimators or args.n_trees or 100, max_depth=3 if args.max_depth is None else args.max_depth,
        min_samples_split=args.min_samples_split, min_impurity_decrease=args.min_impurity_decrease, random_state=args.seed,
        sklearn_tie_break=args.sklearn_tie_break, progress=progress, **options,
    )


def _refuse_boosting_options(args: argparse.Namespace) -> None:
    given = [f"--{name.replace('_', '-')}" for name in (*_BOOSTING, "n_estimators") if getattr(args, name, None) is not None]
    given += ["--sklearn-tie-break"] if getattr(args, "sklearn_tie_break", False) else []
    if given:
        raise ParameterError(f"{', '.join(given)}: for --ensemble gradient-boosting only")
    _refuse_hist_options(args)


_HIST = ("l2_regularization", "max_bins")


def _refuse_hist_options(args: argparse.Namespace) -> None:
    given = [f"--{name.replace('_', '-')}" for name in _HIST if getattr(args, name, None) is not None]
    if given:
        raise ParameterError(f"{', '.join(given)}: for --ensemble hist-gradient-boosting only")


def _hist_boosting_from_args(args: argparse.Namespace, data: Any, progress: Any = None) -> Any:
    """``--ensemble hist-gradient-boosting``: pt.hist_gradient_boosting, early stopping on with
    --n-iter-no-change (off otherwise: the fit is the data's alone)."""
    from ...hist_gradient_boosting import hist_gradient_boosting

    if args.algorithm != "c45" or args.criterion or args.missing or args.splitter != "best" or args.min_weight_fraction_leaf or args.min_gain is not None or args.monotonic_cst is not None or args.threshold != "midpoint" or args.min_samples_split != 2 or args.min_impurity_decrease or args.max_features is not None or args.subsample is not None or args.alpha is not None or args.sklearn_tie_break:
        raise ParameterError("--ensemble hist-gradient-boosting grows histogram stage trees: it takes --max-leaf-nodes, --max-depth, --min-samples-leaf, --l2-regularization and --max-bins, not --algorithm, --criterion, --missing, --splitter, --min-weight-fraction-leaf, --min-gain, --monotonic-cst, --threshold, --min-samples-split, --min-impurity-decrease, --max-features, --subsample, --alpha or --sklearn-tie-break")
    if args.n_trees is not None and args.n_estimators is not None and args.n_trees != args.n_estimators:
        raise ParameterError(f"--n-trees {args.n_trees} and --n-estimators {args.n_estimators} differ; give one")
    options = {name: getattr(args, name) for name in ("learning_rate", "loss", "validation_fraction", "tol", "l2_regularization", "max_bins", "max_depth", "min_samples_leaf") if getattr(args, name) is not None}
    if args.n_iter_no_change is not None:
        options["n_iter_no_change"] = args.n_iter_no_change
    return hist_gradient_boosting(
        data, max_iter=args.n_estimators or args.n_trees or 100, max_leaf_nodes=31 if args.max_leaf_nodes is None else args.max_leaf_nodes,
        early_stopping=args.n_iter_no_change is not None, random_state=args.seed, progress=progress, **options,
    )


def _ensemble_from_args(args: argparse.Namespace, data: Any) -> Any:
    if args.ensemble == "gradient-boosting":
        _refuse_hist_options(args)
        return _boosting_from_args(args, data)
    if args.ensemble == "hist-gradient-boosting":
        return _hist_boosting_from_args(args, data)
    _refuse_boosting_options(args)
    options = {k: v for k, v in _fit_options(args).items() if v is not None}
    if args.max_features is not None:
        options["max_features"] = None if args.max_features == "none" else args.max_features
    seed = args.seed
    if args.ensemble == "forest":
        return random_forest(data, n_trees=args.n_trees or 100, seed=seed, **options)
    if args.ensemble == "bagging":
        return bagging(data, base=ALGORITHMS[args.algorithm], n_trees=args.n_trees or 10, seed=seed, **options)
    base = stump if "max_depth" not in options else cart
    return adaboost(data, n_rounds=args.n_trees or 50, base=base, seed=seed, **options)


def _stage_progress(requested: bool | None, total: int) -> Any:
    """``fit --progress`` for gradient boosting: a tqdm bar of the stages grown, or ``None``
    (see :func:`~puretree.cli.progress_wanted`)."""
    if not progress_wanted(requested):
        return None
    from tqdm import tqdm  # type: ignore[import-untyped]  # tqdm ships no type hints; an optional dependency
    return tqdm(total=total, desc="fit", unit=" stages", file=sys.stderr, mininterval=0.2, leave=True, dynamic_ncols=True)


def _is_ensemble(model: Any) -> bool:
    """An ensemble or a boosted model: shown as a summary and its first trees."""
    return not isinstance(model, Tree) and (hasattr(model, "members") or hasattr(model, "stages"))


def _summary(model: Any) -> str:
    return model.to_text().splitlines()[0] if _is_ensemble(model) else summary(model)


def _fit(args: argparse.Namespace) -> int:
    check_not_inputs(args.output, [args.data])
    # Reading a large file takes a while too: where progress is shown, say so, and how long it took.
    boosting = getattr(args, "ensemble", None) in _BOOSTERS  # its progress: one line per stage
    shown = (boosting or not getattr(args, "ensemble", None)) and progress_wanted(args.progress)
    started = time.perf_counter()
    if shown:
        print(f"reading {args.data} ...", file=sys.stderr, flush=True)
    data = _read_args_data(args, args.data, target=args.target, task=args.task)
    if shown:
        print(f"read {data.n_rows:,} rows x {len(data.schema.features)} features in {time.perf_counter() - started:.1f} s", file=sys.stderr, flush=True)
    if args.histograms and getattr(args, "ensemble", None):
        raise ParameterError("--histograms keeps one tree's training histograms; it does not go with --ensemble")
    checkpoint("fit", args.data)
    progress = None if getattr(args, "ensemble", None) else fit_progress(args.progress)  # progress: one tree's growth
    tree = None
    if boosting:
        bar = _stage_progress(args.progress, args.n_estimators or args.n_trees or 100)
        try:
            grow_boosted = _hist_boosting_from_args if args.ensemble == "hist-gradient-boosting" else _boosting_from_args
            if args.ensemble == "gradient-boosting":
                _refuse_hist_options(args)
            tree = grow_boosted(args, data, None if bar is None else (lambda done: bar.update(done - bar.n)))
        finally:
            if bar is not None:
                bar.close()
    else:
        try:
            if progress is None:
                tree = _fit_from_args(args, data)
            else:
                tree = ALGORITHMS[args.algorithm](data, **_fit_options(args), progress=progress)
        finally:
            if progress is not None:
                # The tree's own count ends the line: the growth also reports nodes pruned since.
                progress.close(None if tree is None else n_nodes(tree))
    if args.histograms:  # after growth: the training rows routed through the tree (docs/views.md)
        tree = with_histograms(tree, data)
    save(tree, args.output)
    what = args.ensemble.replace("-", " ") if boosting else f"{args.ensemble} ensemble" if getattr(args, "ensemble", None) else f"{args.algorithm} tree"
    if data.schema.is_regression:
        fit_text = f"training mean squared error {float(np.mean((predict(tree, data) - data.y) ** 2)):.6g}"
    else:
        fit_text = f"training accuracy {accuracy(data.labels().tolist(), predict(tree, data).tolist()):.4f}"
    print(f"{what} from {data.n_rows} rows: {_summary(tree)}; {fit_text}")
    print(f"saved to {args.output}")
    return 0


def _view_options(args: argparse.Namespace) -> dict[str, Any]:
    """show's display options, as every view takes them (puretree.text.display checks them)."""
    if args.width is not None and args.format != "svg":
        raise ParameterError(f"--width goes with --format svg, not {args.format}")
    names = {"feature_names": args.feature_names, "class_names": args.class_names}
    options: dict[str, Any] = {k: [n.strip() for n in v.split(",")] for k, v in names.items() if v is not None}
    options["decimals"] = None if args.decimals == "exact" else int(args.decimals)
    options["max_depth"] = args.max_depth
    return options


def _decimals(text: str) -> str:
    """--decimals: a whole number >= 0, or ``exact``."""
    return text if text == "exact" else str(non_negative_int(text))


def _show(args: argparse.Namespace) -> int:
    if args.output is not None:
        check_not_inputs(args.output, [args.model] + ([args.data] if args.data is not None else []))
    if args.importances and args.format != "text":
        raise ParameterError(f"--importances goes with --format text, not {args.format}")
    tree = load(args.model)
    options = _view_options(args)
    if args.data is not None:
        options.update(_show_data(args, tree))
    if args.format == "text":
        if _is_ensemble(tree):  # a summary and the first trees
            lines = [tree.to_text(first=args.trees, **options)]
        else:
            lines = [to_text(tree, **options), summary(tree)]
        if args.importances:
            lines += ["feature importances (total weighted impurity decrease, normalised):", format_importances(feature_importances(tree))]
        text = "\n".join(lines) + "\n"
    else:
        if _is_ensemble(tree):
            raise ParameterError(f"--format {args.format} draws one tree; an ensemble is shown as text (--format text --trees N)")
        with warnings.catch_warnings(record=True) as caught:  # a slow-layout warning: one line, not Python's two
            warnings.simplefilter("always", SlowLayoutWarning)
            text = render_view(tree, args.format, **options, **({"width": args.width} if args.format == "svg" and args.width else {}))
        for warning in caught:
            print(f"puretree: warning: {warning.message}", file=sys.stderr)
    if args.output is None:
        sys.stdout.write(text)
    else:
        write_text(args.output, text)
        print(f"{args.format} view written to {args.output}")
    return 0


def _show_data(args: argparse.Namespace, tree: Any) -> dict[str, Any]:
    """show --data: the rows and targets whose distributions the picture draws at each node."""
    if args.format not in ("svg", "html", "dot"):
        raise ParameterError(f"--data goes with --format svg, html or dot, not {args.format}")
    if _is_ensemble(tree):
        raise ParameterError(f"--format {args.format} draws one tree; an ensemble is shown as text (--format text --trees N)")
    header, body, _ = read_table(args.data, sep=args.sep, format=args.data_format)
    rows = table_dataset(tree.schema, header, body)
    if tree.schema.is_regression:
        true_labels(tree, header, [], args.data)  # the target column is there
        return {"X": rows, "y": _true_values(header, body, args.data, tree.schema.target)}
    return {"X": rows, "y": true_labels(tree, header, body, args.data)}


def _write_csv(header: list[str], rows: Any, *, output: str | None) -> None:
    """CSV to standard output, or to the file ``output`` (replaced atomically, whole)."""
    stream: Any = io.StringIO() if output is not None else sys.stdout
    writer = csv.writer(stream, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(rows)
    if output is not None:
        write_text(output, stream.getvalue())


def label_text(value: Any) -> str:
    return format_number(value) if isinstance(value, float) else str(value)


def _say_unseen(tree: Any, X: Any, header: list[str], body: Any) -> None:
    """On standard error: how many rows hold categories the tree never saw, and where."""
    if _is_ensemble(tree):
        return
    found = unseen_cells(tree.schema, X.X)
    if not found:
        return
    rows = int(np.count_nonzero((X.X[:, [tree.schema.feature_names.index(n) for n, _, _ in found]] < 0).any(axis=1)))
    position = {h.strip(): j for j, h in enumerate(header)}
    parts = [f"column {name!r}: {count} row{'s' if count != 1 else ''}, the first {body[first][position[name]].strip()!r} at {X.row_name(first)}" for name, count, first in found]
    print(f"puretree predict: {rows} row{'s' if rows != 1 else ''} hold{'s' if rows == 1 else ''} a category the tree did not see in training "
          f"({'; '.join(parts)}); each is answered at the split it cannot pass", file=sys.stderr)


def _looks_like_a_model(path: str) -> bool:
    """Whether the file starts as a saved puretree model does (its first few hundred bytes)."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(512)
    except OSError:
        return False
    return head.lstrip().startswith(b"{") and b'"format": "puretree-' in head


def _load_model(model: str, data: str) -> Any:
    """``load(model)``; when it fails and the data file is the model, the error says the two
    were given the other way round."""
    try:
        return load(model)
    except ModelFormatError as exc:
        if data != "-" and _looks_like_a_model(data):
            raise ModelFormatError(f"{exc} (the model comes first: puretree predict MODEL.json DATA; {data!r} is the model)") from None
        raise


#: Shared with the other command modules (explain).
load_model = _load_model


def _predict(args: argparse.Namespace) -> int:
    if args.output is not None:
        check_not_inputs(args.output, [args.model, args.data])
    tree = _load_model(args.model, args.data)
    header, body, _ = read_table(args.data, sep=args.sep, format=args.data_format)
    # Wrapped in a Dataset of the tree's schema: a bare float matrix would be read as raw
    # cells, and category codes are not category values.
    X = table_dataset(tree.schema, header, body)
    labels = predict(tree, X, unseen="ignore").tolist()  # said below, once, on standard error
    if args.proba and tree.schema.is_regression:
        raise ParameterError("--proba needs a classification tree; this one is a regression tree")
    _say_unseen(tree, X, header, body)
    if args.proba:
        proba = predict_proba(tree, X, unseen="ignore")
        _write_csv(["prediction"] + [f"p({label_text(c)})" for c in tree.schema.classes],
                   ([label_text(l)] + [format_number(float(v)) for v in row] for l, row in zip(labels, proba)), output=args.output)
    else:
        _write_csv(["prediction"], ([label_text(l)] for l in labels), output=args.output)
    if args.output is not None:
        print(f"{len(labels)} predictions written to {args.output}")
    return 0


def true_labels(tree: Tree, header: list[str], body: list[list[str]], source: str) -> list[str]:
    """The target column of a CSV table as text, checked to be present and not missing.

    A cell that spells one of the tree's classes (by :func:`~puretree.data.category_key`:
    ``true`` for the class ``True``, ``1.0`` for the class ``1``) becomes that class's text,
    so that it is compared with the predictions as the same value.
    """
    target = tree.schema.target
    if target not in [h.strip() for h in header]:
        raise DataError(f"{source}: no target column {target!r} to evaluate against")
    t = [h.strip() for h in header].index(target)
    lines = getattr(body, "lines", None)
    text = {category_key(c): label_text(c) for c in tree.schema.classes}
    out = []
    for i, row in enumerate(body):
        cell = row[t].strip()
        if is_missing(cell):
            at = f"line {lines[i]}" if lines is not None else f"row {i}"
            raise DataError(f"{source}: {at}, column {target!r}: the true label is missing")
        out.append(text.get(category_key(cell), cell))
    return out


def _true_values(header: list[str], body: list[list[str]], source: str, target: str) -> np.ndarray:
    """The target column of a CSV table as finite numbers (regression), refusing any other cell."""
    t = [h.strip() for h in header].index(target)
    lines = getattr(body, "lines", None)
    out = np.empty(len(body))
    for i, row in enumerate(body):
        cell = row[t].strip()
        value = parse_number(cell)
        if value is None or not math.isfinite(value):
            at = f"line {lines[i]}" if lines is not None else f"row {i}"
            problem = "is missing" if is_missing(cell) else f"{_echo(cell)} is not a finite number"
            raise DataError(f"{source}: {at}, column {target!r}: the true value {problem}")
        out[i] = value
    return out


#: How ``evaluate --cv --prune`` prunes each fold's tree (J48's pipeline in one command).
_CV_PRUNING = ("none", "pessimistic", "reduced-error")


def _fit_pruned(args: argparse.Namespace, part: Any, prune: str) -> Any:
    """One fold's tree, grown from ``part`` and pruned as ``--prune`` says. Reduced-error
    pruning holds out one of 3 stratified parts of ``part`` (seeded by --seed), as J48 -R -N 3."""
    if prune == "none":
        return _fit_from_args(args, part)
    if getattr(args, "ensemble", None):
        raise ParameterError("--prune prunes one tree; it does not apply to --ensemble")
    if prune == "pessimistic":
        return pessimistic(_fit_from_args(args, part), part, cf=args.cf)
    grow_rows, prune_rows = stratified_folds(part.y, k=3, seed=args.seed)[0]
    return reduced_error(_fit_from_args(args, part.subset(grow_rows)), part.subset(prune_rows))


def _cross_validate(args: argparse.Namespace) -> int:
    if args.data is not None:
        raise ParameterError("with --cv give only DATA.csv (the trees are grown from it), not a model")
    if args.target is None and format_of(args.model, args.data_format) != "arff":
        raise ParameterError("--cv needs --target COLUMN (and optionally --algorithm and other fit options)")
    if args.task != "classification":
        raise ParameterError("--cv cross-validates classification trees (stratified folds); for regression use the library's cross_validate")
    data = _read_args_data(args, args.model, target=args.target)
    prune = args.prune or "none"
    result = cross_validate(lambda part: _fit_pruned(args, part, prune), data, k=args.cv, seed=args.seed)
    truth = [label_text(v) for v in data.labels().tolist()]
    guessed = [label_text(v) for v in result.predictions.tolist()]
    labels, matrix = confusion_matrix(truth, guessed, labels=[label_text(c) for c in data.schema.classes])
    pruned = "" if prune == "none" else f", {prune} pruning" + (f" (cf {args.cf:g})" if prune == "pessimistic" else "")
    print(f"{args.cv}-fold stratified cross-validation of {args.algorithm}{pruned} on {data.n_rows} rows (seed {args.seed})")
    print("fold accuracies: " + " ".join(f"{s:.4f}" for s in result.scores))
    print(f"accuracy: {result.mean:.4f} +/- {result.std:.4f} (mean and standard deviation over folds)")
    print(format_confusion(labels, matrix))
    return 0


def _evaluate(args: argparse.Namespace) -> int:
    if args.cv is not None:
        return _cross_validate(args)
    if args.prune is not None:
        raise ParameterError("--prune prunes the trees --cv grows; to prune a saved model, use puretree prune")
    if args.data is None:
        raise ParameterError("evaluate needs MODEL.json DATA.csv, or DATA.csv --cv K --target COLUMN")
    if args.target is not None:
        raise ParameterError("--target and the fit options are for --cv; a saved model knows its target")
    tree = _load_model(args.model, args.data)
    header, body, _ = read_table(args.data, sep=args.sep, format=args.data_format)
    # Wrapped in a Dataset of the tree's schema: a bare float matrix would be read as raw
    # cells, and category codes are not category values.
    X = table_dataset(tree.schema, header, body)
    if tree.schema.is_regression:
        true_labels(tree, header, [], args.data)  # the target column is there
        values = _true_values(header, body, args.data, tree.schema.target)
        pred = predict(tree, X)
        with np.errstate(over="ignore"):  # errors beyond 1e154 square to inf: reported as such
            mse = float(np.mean((pred - values) ** 2))
        print(f"rows: {len(values)}")
        print(f"mean squared error: {mse:.6g}")
        return 0
    truth = true_labels(tree, header, body, args.data)
    guessed = [label_text(l) for l in predict(tree, X).tolist()]
    order = [label_text(c) for c in tree.schema.classes]
    labels, matrix = confusion_matrix(truth, guessed, labels=order)
    print(f"rows: {len(truth)}")
    print(f"accuracy: {accuracy(truth, guessed):.4f}")
    print(format_confusion(labels, matrix))
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser("fit", help="learn a tree from a data file", description="Learn a tree from a data file (CSV, ARFF, Parquet or JSON lines; - for standard input) and save it as JSON.")
    p.add_argument("data", metavar="DATA")
    _add_fit_options(p, require_target=False)
    _add_input_options(p)
    _add_ensemble_options(p)
    p.add_argument("-o", "--output", required=True, metavar="MODEL.json", help="where to save the model (replaced atomically; never one of the inputs)")
    p.add_argument("--progress", action=argparse.BooleanOptionalAction, default=None,
                   help="report the fit's progress on standard error: nodes, depth, rows per second (default: on when standard error is a terminal; needs tqdm, the cli extra)")
    p.add_argument("--histograms", action="store_true",
                   help="keep in the model what the training rows say at each node (each split's feature distribution by class, each "
                   "leaf's size): show --format svg, html or dot then draws them without --data")
    p.set_defaults(func=_fit)

    p = sub.add_parser("show", help="print a saved tree, or draw it (DOT, SVG, HTML)",
                       description="Print a saved tree and a summary line, or write it as Graphviz DOT, an SVG picture or an HTML page to explore.")
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("--importances", action="store_true", help="also print each feature's importance (Gini decrease; variance for regression)")
    p.add_argument("--format", choices=VIEW_FORMATS, default="text",
                   help="text (default); dot: Graphviz's language; svg: a picture drawn by puretree; html: one standalone page where the tree can be explored")
    p.add_argument("-o", "--output", metavar="FILE", help="write to this file (replaced atomically) instead of standard output")
    p.add_argument("--trees", type=non_negative_int, default=2, metavar="N", help="an ensemble: print its first N trees (default: 2)")
    p.add_argument("--decimals", type=_decimals, default="3", metavar="N",
                   help="round thresholds to N decimal places, as scikit-learn prints them (default: 3; exact: the shortest exact form)")
    p.add_argument("--max-depth", type=non_negative_int, default=None, metavar="N",
                   help="show splits down to depth N (the root: 0); a deeper split ends in (...)")
    p.add_argument("--feature-names", metavar="A,B,...", help="names to show for the features, in column order, comma-separated")
    p.add_argument("--class-names", metavar="A,B,...", help="names to show for the classes, in the order of the model's classes, comma-separated")
    p.add_argument("--width", type=positive_int, default=None, metavar="PIXELS", help="--format svg: scale the picture to this width")
    p.add_argument("--data", metavar="DATA", default=None,
                   help="--format svg, html or dot: rows with the model's target column (the training data, say); each split shows its feature's "
                   "distribution over them (stacked by class, the threshold marked), each leaf its size and purity (a model fitted with "
                   "--histograms draws its own without --data)")
    _add_input_options(p)
    p.set_defaults(func=_show)

    p = sub.add_parser("predict", help="predict the rows of a data file", description="Write one prediction per row as CSV to standard output, or to a file with -o.")
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("data", metavar="DATA", help="CSV, ARFF, Parquet or JSON lines; - for standard input")
    p.add_argument("--proba", action="store_true", help="add one probability column per class")
    _add_input_options(p)
    p.add_argument("-o", "--output", metavar="PREDICTIONS.csv", help="write the CSV to this file (replaced atomically) instead of standard output")
    p.set_defaults(func=_predict)

    p = sub.add_parser(
        "evaluate",
        help="accuracy and confusion matrix on a labelled data file, or k-fold cross-validation",
        description="Measure a saved tree on a labelled CSV file: `puretree evaluate MODEL.json DATA.csv`. "
        "Or cross-validate growing a tree from a CSV file: `puretree evaluate DATA.csv --cv K --target COLUMN "
        "[--algorithm ... and the other fit options]`: stratified K-fold (seeded by --seed), prints each fold's "
        "accuracy, their mean and standard deviation, and the confusion matrix of the out-of-fold predictions.",
    )
    p.add_argument("model", metavar="MODEL.json | DATA.csv", help="a saved model; with --cv, the data to cross-validate on")
    p.add_argument("data", nargs="?", metavar="DATA.csv", help="the labelled rows to measure the model on (not with --cv)")
    p.add_argument("--cv", type=_folds, metavar="K", help="cross-validate a fit with K folds (K >= 2)")
    p.add_argument("--seed", type=non_negative_int, default=0, metavar="N", help="seed of the --cv fold assignment (default: 0)")
    p.add_argument("--prune", choices=_CV_PRUNING, default=None,
                   help="with --cv, prune each fold's tree as Weka's J48 does: pessimistic (J48's default: error-based, with subtree "
                   "raising, at --cf), reduced-error (J48 -R: grown on 2 of 3 stratified parts of the fold's training rows, "
                   "pruned on the third) or none (J48 -U; the default)")
    p.add_argument("--cf", type=number(float, low=0, high=1, open_low=True), default=0.25, metavar="CF",
                   help="with --prune pessimistic: the confidence level in (0, 1) (default: 0.25, J48's -C)")
    _add_fit_options(p, require_target=False)
    _add_input_options(p)
    p.set_defaults(func=_evaluate)
