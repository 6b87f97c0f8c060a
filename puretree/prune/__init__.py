"""Pruning: every method is a pure rewrite ``Tree -> Tree``; this package gathers them.

The code lives in one module per concern, in this folder or, for what growing shares with
pruning (C4.5 prunes as it grows, with the same estimates), below it; every name below is
theirs:

- :mod:`puretree.prune.rewrites`: :func:`simplify`, :func:`reduced_error`, :func:`pessimistic`,
  :func:`penalty`, and :func:`collapse`, :func:`same_class`, :func:`is_pruning_of`;
- :mod:`puretree.prune.raising`: J48's pruning with subtree raising, recounted from the
  training rows (what :func:`pessimistic` does when given them);
- :mod:`puretree.estimates`: the error estimates (:func:`c45_added_errors`,
  :func:`pessimistic_errors`, :func:`penalty_error`, :func:`tree_penalty_error`);
- :mod:`puretree.prune.complexity`: CART's minimal cost-complexity pruning
  (:func:`cost_complexity_path`, :func:`cost_complexity`, :func:`best_alpha_on`,
  :func:`choose_alpha`), the same path as scikit-learn's ``cost_complexity_pruning_path``;
- :mod:`puretree.prune.significance`: :func:`chi_square_test`, a pre-pruning significance test for
  ``grow(accept=...)``, and :func:`chi_square_sf`;
- :mod:`puretree.validation`: held-out labelled rows encoded for a tree (:func:`validation_codes`).

Minimum message length, :mod:`puretree.prune.mml` (:func:`~puretree.prune.mml.mml_prune`,
:func:`~puretree.prune.mml.mml_stop`, :func:`~puretree.prune.mml.message_length`), lives in
this folder too, under its own name.

The methods:

- :func:`simplify`: collapse a split whose branches all predict the same class.
- :func:`reduced_error`: the seeds' reduced-error pruning with a validation set.
- :func:`pessimistic`: C4.5's error-based pruning (upper confidence limit at ``cf``).
- :func:`penalty`: collapse a subtree whose penalised error ``errors + zeta * leaves`` is not
  lower than a leaf's (the seeds' penalty-per-leaf estimate, :func:`penalty_error`).
- :func:`cost_complexity`, :func:`cost_complexity_path`, :func:`choose_alpha`: CART's minimal
  cost-complexity pruning, measured with the criterion the tree records (else Gini).
- :func:`chi_square_test`: a pre-pruning significance test for ``grow(accept=...)``.

The examples live with the code (:mod:`puretree.prune.rewrites` and the others); here the names are
the same objects:

>>> from puretree.prune import complexity, rewrites
>>> penalty is rewrites.penalty and cost_complexity is complexity.cost_complexity
True
"""

from __future__ import annotations

from .complexity import AlphaChoice, CostComplexityPath, best_alpha_on, choose_alpha, cost_complexity, cost_complexity_path
from ..estimates import c45_added_errors, check_cf, penalty_error, pessimistic_errors, tree_penalty_error
from .rewrites import collapse, is_pruning_of, penalty, pessimistic, reduced_error, same_class, simplify
from .significance import chi_square_sf, chi_square_test
from ..validation import validation_codes

__all__ = [
    "check_cf",
    "best_alpha_on",
    "collapse",
    "is_pruning_of",
    "same_class",
    "simplify",
    "reduced_error",
    "pessimistic",
    "c45_added_errors",
    "pessimistic_errors",
    "penalty_error",
    "tree_penalty_error",
    "penalty",
    "CostComplexityPath",
    "cost_complexity_path",
    "cost_complexity",
    "AlphaChoice",
    "choose_alpha",
    "chi_square_test",
    "chi_square_sf",
    "validation_codes",
]
