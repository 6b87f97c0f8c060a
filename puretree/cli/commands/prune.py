"""``prune`` and ``rules``."""

from __future__ import annotations

import argparse
from typing import Any

from ...data import Dataset, table_dataset
from ...errors import DataError, ParameterError
from ...evaluate import accuracy
from ...files import check_not_inputs
from ...fold import n_leaves
from ...io import load, save
from ...io.formats import read_table
from ...prune import best_alpha_on, cost_complexity, penalty, pessimistic, reduced_error
from ...prune.complexity import IMPURITIES, cv_prune
from ...prune.mml import CODES, message_length, mml_prune
from ...rules import prune_rules, to_rules
from ...text import summary
from ...tree import Tree
from .core import ALGORITHMS, label_text, number, true_labels

__all__ = ["ORDER", "register"]

ORDER = 20

_METHODS = ("reduced-error", "pessimistic", "cost-complexity", "penalty", "mml", "cv")
#: Where --data applies; --folds, --seed and --algorithm apply where it cross-validates.
_DATA_METHODS = ("pessimistic", "cost-complexity", "mml", "cv")
#: The impurity that measures a node's risk in cost-complexity pruning (None: the tree's own).
_IMPURITIES = {name: IMPURITIES[name] for name in ("entropy", "gini", "misclassification")}


_probability = number(float, low=0, high=1, open_low=True)
_non_negative = number(float, low=0)
_folds = number(int, low=2, what="number of folds")
_seed = number(int, low=0)
_concentration = number(float, low=0, open_low=True, what="Dirichlet concentration")


def _labelled(tree: Tree, path: str) -> tuple[Dataset, list[str]]:
    """A labelled CSV file encoded for ``tree``: its features (by column name) and labels."""
    if tree.schema.is_regression:
        raise ParameterError("pruning and rules need a classification tree; this one is a regression tree")
    # Any data format (ARFF, Parquet, JSON lines, CSV), by the file's extension.
    header, body, _ = read_table(path)
    missing = [n for n in tree.schema.feature_names if n not in [h.strip() for h in header]]
    if missing:
        raise DataError(f"{path}: missing column(s) {missing}; the tree expects {list(tree.schema.feature_names)} and {tree.schema.target!r}")
    labels = true_labels(tree, header, body, path)
    # Wrapped in a Dataset of the tree's schema: category codes are not category values.
    return table_dataset(tree.schema, header, body), labels


def _check_usage(args: argparse.Namespace) -> None:
    method = args.method
    if method == "reduced-error" and args.validation is None:
        raise ParameterError("--method reduced-error needs --validation DATA.csv")
    if method == "cv" and args.data is None:
        raise ParameterError("--method cv needs --data TRAIN.csv (the rows the tree was grown on)")
    if method == "cost-complexity" and args.alpha is None and args.validation is None and args.data is None:
        raise ParameterError("--method cost-complexity needs --alpha A, --data TRAIN.csv to choose alpha by cross-validation, or --validation DATA.csv to choose it on held-out rows")
    if method == "cost-complexity" and args.alpha is None and args.validation is not None and args.data is not None:
        raise ParameterError("--method cost-complexity chooses alpha by cross-validation on --data or on --validation: give one of them (or --alpha)")
    cross_validates = method == "cv" or (method == "cost-complexity" and args.alpha is None and args.data is not None)
    unused = {"--cf": args.cf is not None and method != "pessimistic", "--alpha": args.alpha is not None and method != "cost-complexity",
              "--data": args.data is not None and method not in _DATA_METHODS,
              "--impurity": args.impurity is not None and method not in ("cost-complexity", "cv"),
              "--penalty": args.penalty is not None and method != "penalty", "--se": args.se is not None and method != "cv",
              "--mml-alpha": args.mml_alpha is not None and method != "mml", "--mml-code": args.mml_code is not None and method != "mml"}
    unused.update({option: given is not None and not cross_validates for option, given in (("--folds", args.folds), ("--seed", args.seed), ("--algorithm", args.algorithm))})
    for option, given in unused.items():
        if given:
            cv_only = option in ("--folds", "--seed", "--algorithm")
            raise ParameterError(f"{option} applies only to --method cv, and to --method cost-complexity with --data and no --alpha" if cv_only else f"{option} does not apply to --method {method}")


def _fold_learner(tree: Tree, args: argparse.Namespace) -> Any:
    """How the folds grow their trees: --algorithm, else by the criterion the tree records
    (gini: cart; otherwise c45, fit's default)."""
    name = args.algorithm or ("cart" if tree.criterion == "gini" else "c45")
    return name, ALGORITHMS[name]


def _cross_validated(tree: Tree, args: argparse.Namespace, train: tuple[Dataset, list[str]], se: float) -> Tree:
    name, fit = _fold_learner(tree, args)
    folds = 10 if args.folds is None else args.folds
    seed = 0 if args.seed is None else args.seed
    if folds > train[0].n_rows:
        raise ParameterError(f"--folds {folds} is more than the {train[0].n_rows} rows of {args.data}")
    out = cv_prune(tree, train[0], train[1], fit=fit, k=folds, seed=seed, se=se, impurity=_IMPURITIES.get(args.impurity))
    rule = "the least" if not se else "within one standard error of the least (1-SE rule)" if se == 1 else f"within {se:g} standard errors of the least"
    print(f"{folds}-fold cross-validation on {args.data} ({name} trees, seed {seed}): cross-validated error {out.cv_error[out.chosen]:.4f} "
          f"+/- {out.std_error[out.chosen]:.4f} at alpha {out.alpha:.6g}, {rule}; least {out.cv_error[out.best]:.4f} at {out.leaves[out.best]} leaves")
    return out.tree


def _one_tree(model: Any, path: str, command: str) -> Tree:
    """The model, when it is one tree: pruning and rules read a single tree's nodes."""
    if not isinstance(model, Tree):
        what = "a boosted model" if hasattr(model, "stages") else "an ensemble"
        raise ParameterError(f"{path} is {what}; {command} takes one tree")
    return model


def _prune(args: argparse.Namespace) -> int:
    _check_usage(args)
    # The model may be rewritten in place (save is atomic); the validation data may not.
    check_not_inputs(args.output, [args.validation, args.data])
    tree = _one_tree(load(args.model), args.model, "prune")
    validation = _labelled(tree, args.validation) if args.validation is not None else None
    if args.method == "reduced-error":
        assert validation is not None
        pruned = reduced_error(tree, validation[0], validation[1])
    elif args.method == "pessimistic":
        cf = 0.25 if args.cf is None else args.cf
        if args.data is None:
            print("no --data: subtree replacement only (subtree raising needs the training rows)")
            pruned = pessimistic(tree, cf=cf)
        else:
            train = _labelled(tree, args.data)
            pruned = pessimistic(tree, train[0], train[1], cf=cf)
    elif args.method == "penalty":
        pruned = penalty(tree, per_leaf=0.5 if args.penalty is None else args.penalty)
    elif args.method == "mml":
        rows = None if args.data is None else _labelled(tree, args.data)[0]
        if rows is None:
            print("no --data: a threshold's candidate cuts are bounded by its rows (the training rows count them)")
        alpha, code = 1.0 if args.mml_alpha is None else args.mml_alpha, args.mml_code or "flat"
        pruned = mml_prune(tree, rows, alpha=alpha, code=code)
        print(f"message length: {message_length(tree, rows, alpha=alpha, code=code):.2f} -> {message_length(pruned, rows, alpha=alpha, code=code):.2f} bits")
    elif args.method == "cv":
        pruned = _cross_validated(tree, args, _labelled(tree, args.data), se=1.0 if args.se is None else args.se)
    elif args.alpha is None and args.data is not None:
        pruned = _cross_validated(tree, args, _labelled(tree, args.data), se=0.0)
    else:
        if args.alpha is None:
            assert validation is not None
            alpha = best_alpha_on(tree, *validation, impurity=_IMPURITIES.get(args.impurity))
            print(f"alpha chosen on {args.validation}: {alpha:.6g}")
        else:
            alpha = args.alpha
        pruned = cost_complexity(tree, alpha, impurity=_IMPURITIES.get(args.impurity))
    print(f"leaves: {n_leaves(tree)} -> {n_leaves(pruned)}")
    print(f"before: {summary(tree)}")
    print(f"after:  {summary(pruned)}")
    if validation is not None:
        X, labels = validation
        before = accuracy(labels, [label_text(v) for v in tree.predict(X).tolist()])
        after = accuracy(labels, [label_text(v) for v in pruned.predict(X).tolist()])
        print(f"validation accuracy: {before:.4f} -> {after:.4f}")
    save(pruned, args.output)
    print(f"saved to {args.output}")
    return 0


def _rules(args: argparse.Namespace) -> int:
    tree = _one_tree(load(args.model), args.model, "rules")
    if tree.schema.is_regression:
        raise ParameterError("rules need a classification tree; this one is a regression tree")
    if args.validation is not None and not args.prune:
        raise ParameterError("--validation is used with --prune")
    if args.prune:
        if args.validation is None:
            raise ParameterError("--prune needs --validation DATA.csv (a saved tree does not keep its training rows)")
        X, labels = _labelled(tree, args.validation)
        rules = prune_rules(tree, X, labels, estimate=args.estimate, cf=args.cf)
    else:
        rules = to_rules(tree)
    print(rules.to_text())
    return 0


def register(sub: Any) -> None:
    p = sub.add_parser(
        "prune",
        help="prune a saved tree",
        description="Prune a saved tree and save the result; prints the number of leaves before and after. "
        "reduced-error needs --validation; cost-complexity needs --alpha, --data TRAIN.csv to choose alpha by "
        "k-fold cross-validation, or --validation to pick the path's alpha that is most accurate on it; "
        "pessimistic with --data TRAIN.csv also raises subtrees, as J48 does; mml collapses each subtree a leaf "
        "encodes in a shorter message (Wallace and Patrick); cv (needs --data) keeps the smallest subtree of the "
        "weakest-link sequence within one standard error of the least cross-validated error (CART's 1-SE rule).",
    )
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("--method", required=True, choices=_METHODS)
    p.add_argument("--validation", metavar="DATA.csv", help="held-out labelled rows with the tree's feature and target columns")
    p.add_argument("--data", metavar="TRAIN.csv",
                   help="the rows the tree was grown on (pessimistic: subtree raising, as J48; mml: counting cuts; cv, cost-complexity: cross-validation)")
    p.add_argument("--folds", type=_folds, metavar="K", help="cv, cost-complexity with --data: number of stratified folds (default: 10)")
    p.add_argument("--seed", type=_seed, metavar="N", help="cv, cost-complexity with --data: the folds' seed (default: 0)")
    p.add_argument("--algorithm", choices=sorted(ALGORITHMS),
                   help="cv, cost-complexity with --data: how each fold grows its tree, as fit does (default: cart for a tree grown with gini, else c45)")
    p.add_argument("--cf", type=_probability, metavar="CF", help="pessimistic: confidence level in (0, 1) (default: 0.25)")
    p.add_argument("--alpha", type=_non_negative, metavar="A", help="cost-complexity: complexity parameter >= 0")
    p.add_argument("--se", type=_non_negative, metavar="S",
                   help="cv: keep the smallest subtree within S standard errors of the least cross-validated error (default: 1, Breiman's 1-SE rule; 0: the least)")
    p.add_argument("--penalty", type=_non_negative, metavar="Z", help="penalty: errors added per leaf (default: 0.5)")
    p.add_argument("--mml-alpha", type=_concentration, metavar="A",
                   help="mml: the leaves' symmetric Dirichlet concentration, > 0 (default: 1, the uniform prior; below 1 pure leaves cost less)")
    p.add_argument("--mml-code", choices=CODES,
                   help="mml: flat (one bit per node, cuts uniform; the default) or wallace-patrick (leaf/split by the parent's branches, cuts by binary chop)")
    p.add_argument("--impurity", choices=sorted(_IMPURITIES),
                   help="cost-complexity: the impurity of a node's risk, the one the tree was grown with (default: the criterion the tree records, else gini)")
    p.add_argument("-o", "--output", required=True, metavar="PRUNED.json", help="where to save the pruned tree (replaced atomically; may be MODEL.json itself)")
    p.set_defaults(func=_prune)

    p = sub.add_parser(
        "rules",
        help="print a tree as IF-THEN rules",
        description="Print one IF-THEN rule per leaf. With --prune, drop each rule's preconditions whose removal "
        "strictly improves its accuracy on --validation (with --estimate pessimistic: does not lower C4.5's estimate), "
        "then sort the rules and add a default class.",
    )
    p.add_argument("model", metavar="MODEL.json")
    p.add_argument("--prune", action="store_true", help="post-prune the rules (needs --validation)")
    p.add_argument("--validation", metavar="DATA.csv", help="labelled rows that estimate each rule's accuracy")
    p.add_argument("--estimate", choices=("accuracy", "pessimistic"), default="accuracy",
                   help="accuracy on the rows (a validation set), or C4.5's pessimistic estimate (for the training set)")
    p.add_argument("--cf", type=_probability, default=0.25, metavar="CF", help="confidence level of the pessimistic estimate (default: 0.25)")
    p.set_defaults(func=_rules)
