"""C4.5 as Quinlan's release 8 and Weka's J48 grow it.

Gain ratio alone prefers splits that cut off one or two rows (their split information is
tiny), so a builder that only maximises it grows long chains on numeric data. C4.5 guards it:

- **Average-gain filter.** Among the attributes that can split a node, only those whose
  information gain is at least the average gain of the candidates (less J48's slack of 1e-3)
  compete on gain ratio. A categorical attribute with at least 0.3 x (training rows) values
  does not count towards the average unless every attribute is like it (J48's rule).
- **Numeric cuts** are chosen by gain, not ratio, and pay release 8's MDL correction: the gain
  minus ``log2(number of admissible cuts) / weight of the node``. A cut is considered only
  between two sorted known values more than 1e-5 apart (J48's value tolerance).
- **Minimum branch sizes.** A split needs at least two branches holding ``min_samples_leaf``
  (J48's ``-M``, a weight) and, for a numeric cut, each side at least
  ``0.1 x known weight / classes`` clamped to ``[min_samples_leaf, 25]``; a node lighter than
  ``2 x min_samples_leaf`` is a leaf.
- **Missing values** count as C4.5 counts them: the gain is computed on the known rows and
  multiplied by their share of the weight, and the split information has one more branch,
  the unknown rows.
- **Collapse.** After growing, a subtree whose leaves make no fewer training errors than the
  node would as a leaf (within 1e-3) becomes that leaf, top-down (J48's ``collapse``).
- Comparisons use J48's tolerance of 1e-6: a later attribute or cut replaces an earlier one
  only when it is better by more than 1e-6, so ties go to the lowest feature index and the
  lowest cut.

The threshold of a cut is the seeds' midpoint between the two values; ``threshold="data"``
takes J48's choice, the largest training value not above the midpoint (the same training
rows go either way; unseen values between the two may not).

>>> from puretree.datasets import load_temperature
>>> print(c45(load_temperature()).to_text())     # 76 splits the right branch, then collapses
temperature <= 54: no (2)
temperature > 54: yes (4/1)
>>> print(c45(load_temperature(), threshold="data").to_text())
temperature <= 48: no (2)
temperature > 48: yes (4/1)
"""

from __future__ import annotations

from collections.abc import Generator
from typing import TYPE_CHECKING, Any, ClassVar

import attrs
import numpy as np

from .builder import ByTask, C45Options, DataOptions, check_options, grow
from .growth.c45_cuts import categorical_option, numeric_options
from .data import DATA_OPTIONS, as_dataset
from .growth.engine import check_bins, edge_bins, quantile_bins
from .errors import ParameterError
from .estimates import training_errors
from .fold import run
from .growth.choose import AVERAGE_GAIN_SLACK, J48_EPSILON, VALUE_TOLERANCE, Option, Scored, c45_criterion, choose_option, many_valued
from .impurity import entropy
from .nodes import Leaf, Node, children, with_children
from .splits import MISSING_BRANCH, Candidate, NodeData, multiway_splits, root_data, threshold_splits
from .tree import Tree

if TYPE_CHECKING:  # Unpack is typing's from Python 3.11; type checkers know typing_extensions' on 3.10
    from typing_extensions import Unpack

__all__ = [
    "c45",
    "c45_splits",
    "choose_option",
    "C45Splits",
    "collapse_unhelpful",
    "c45_scores",
    "C45Score",
    "VALUE_TOLERANCE",
    "J48_EPSILON",
    "AVERAGE_GAIN_SLACK",
]

@attrs.frozen
class C45Splits:
    """The C4.5 split generator (see the module docs); ``impurity`` is the gain's impurity.

    Called as every split generator is, ``c45_splits(node, score=..., min_samples_leaf=...)``;
    ``score`` picks what the winner maximises: ``gain_ratio(impurity)`` (C4.5: entropy) or
    ``impurity_decrease(impurity)`` / ``information_gain(impurity)`` (the gain alone, with the
    same guards). With entropy the gain is computed exactly as J48 computes it.

    The numeric features' cuts are :func:`puretree.growth.c45_cuts.numeric_options`'s (all of a
    node's at once). ``lower`` places a cut at the lower of the node's two values around it
    instead of their midpoint (histogram mode, :func:`c45` with ``bins=``, where the values are
    bin edges).
    """

    #: Its ``min_samples_leaf`` bounds weights (J48's minNumObj), so scikit-learn's
    #: ``min_weight_fraction_leaf`` raises that bound (:func:`puretree.splits.best_candidate`).
    weighs_leaves: ClassVar[bool] = True
    #: Cuts at the lower of the two values (the node's largest known value going left)
    #: instead of their midpoint: histogram mode's thresholds, where the values are bin edges.
    lower: bool = False

    def __call__(self, node: NodeData, *, score: Any, min_samples_leaf: float) -> Candidate | None:
        if node.schema.is_regression:
            # C4.5 grows classification trees; a regression tree splits as the other presets do.
            found = [c for gen in (threshold_splits, multiway_splits) if (c := gen(node, score=score, min_samples_leaf=min_samples_leaf)) is not None]
            return max(found, key=lambda c: (c.score, -c.feature), default=None)
        by_ratio, impurity = c45_criterion(score)
        total = float(node.stats.sum())
        min_leaf = float(min_samples_leaf)
        if total - 2 * min_leaf < -J48_EPSILON:
            return None
        if (chosen := choose_option(_options(node, total, min_leaf, impurity), by_ratio)) is None:
            return None
        return _candidate(node, chosen[0].option(), chosen[1], self.lower)


def _options(node: NodeData, total: float, min_leaf: float, impurity: Any) -> list[Option | Scored]:
    """Every attribute's C4.5 option at ``node`` that can split it: the numeric features' (in
    feature order), then the categorical ones'."""
    features = node.schema.features
    many = many_valued(node.categorical, lambda j: len(features[j].categories), len(node.numeric), node.root_rows)
    options: list[Option | Scored] = list(numeric_options(node, total, len(node.schema.classes), min_leaf, impurity))
    return options + [o for j in node.categorical if (o := categorical_option(node, j, total, min_leaf, j in many, impurity)) is not None]


def _candidate(node: NodeData, o: Option, score: float, lower: bool = False) -> Candidate:
    column = node.X[:, o.feature]
    if o.kind == "threshold":
        if lower:  # the largest known value at or below the midpoint: the lower of the two
            i = int(np.flatnonzero(node.numeric == o.feature)[0])
            values = node.values[i][~np.isnan(node.values[i])]
            cut = float(o.threshold if o.threshold is not None else np.nan)  # a threshold option has its cut
            at = int(np.searchsorted(values, cut, side="right")) - 1
            o = attrs.evolve(o, threshold=float(values[at]))
        branch = np.where(np.isnan(column), MISSING_BRANCH, column > o.threshold).astype(np.int64)
        return Candidate(score, o.feature, "threshold", branch, o.branches, threshold=o.threshold)  # type: ignore[arg-type]  # an option has its branches
    branch = np.where(np.isnan(column), MISSING_BRANCH, np.nan_to_num(column, nan=0.0)).astype(np.int64)
    return Candidate(score, o.feature, "multiway", branch, o.branches)  # type: ignore[arg-type]


#: The C4.5 split generator.
c45_splits = C45Splits()


@attrs.frozen
class C45Score:
    """What C4.5 compares for one attribute at a node: its gain (MDL-corrected for a numeric
    attribute), its gain ratio, whether the gain counts towards the average, and the cut."""

    gain: float
    ratio: float
    counts_in_average: bool
    threshold: float | None = None


def c45_scores(X: Any, y: Any = None, *, min_samples_leaf: float = 2, impurity: Any = entropy, **data_options: Unpack[DataOptions]) -> dict[str, C45Score]:
    """C4.5's gain and gain ratio of every attribute that can split the root (as
    :func:`~puretree.grow.attribute_scores` does for the plain scores); attributes that cannot
    (too few rows on a side, no admissible cut, no gain left after the MDL correction) are absent.

    Quinlan's example of an unknown value (C4.5, 1993, section 3.1): PlayTennis with the
    outlook of one overcast day unknown. The gain is 13/14 x (0.961 - 0.747) = 0.199 and the
    split information, with the unknown day as a branch of its own, 1.809:

    >>> import numpy as np
    >>> from puretree.datasets import load_playtennis
    >>> ds = load_playtennis()
    >>> X = ds.X.copy(); X[2, 0] = np.nan          # day 3 is overcast
    >>> s = c45_scores(X, ds.labels(), feature_names=ds.schema.feature_names, categorical=ds.schema.feature_names)["outlook"]
    >>> round(s.gain, 3), round(s.gain / s.ratio, 3), round(s.ratio, 3)
    (0.199, 1.809, 0.11)
    """

    check_options(min_samples_leaf=min_samples_leaf)
    ds = as_dataset(X, y, **data_options)
    node = root_data(ds)
    found = {o.feature: o for o in _options(node, float(node.stats.sum()), float(min_samples_leaf), impurity)}
    return {f.name: C45Score(o.gain, o.ratio, o.counts_in_average, o.option().threshold) for j, f in enumerate(ds.schema.features) if (o := found.get(j)) is not None}


# -- after growing -------------------------------------------------------------------------


def collapse_unhelpful(tree: Tree) -> Tree:
    """J48's collapse: top-down, a subtree whose leaves make no fewer training errors than
    the node would alone (within 1e-3) becomes a leaf of the node's counts.

    >>> from puretree.nodes import Feature, Schema, Split, Threshold
    >>> split = Split(0, Threshold(0.5), (Leaf((2.0, 1.0)), Leaf((1.0, 0.0))), (3.0, 1.0))
    >>> collapse_unhelpful(Tree(split, Schema((Feature("x"),), ("a", "b")))).root
    Leaf(stats=(3.0, 1.0))
    """
    if tree.schema.is_regression:
        return tree

    # First the training errors of every subtree's leaves, bottom-up, kept beside the nodes;
    # then J48's decisions, top-down (a collapsed node's subtree is not looked at again).
    def annotate(node: Node) -> Generator[Any, Any, tuple[Node, float, list[Any]]]:
        kids = []
        for c in children(node):
            kids.append((yield annotate(c)))
        return node, (sum(k[1] for k in kids) if kids else training_errors(node.counts)), kids

    def go(annotated: tuple[Node, float, list[Any]]) -> Generator[Any, Node, Node]:
        node, errors, kids = annotated
        if not kids:
            return node
        if errors >= training_errors(node.counts) - 1e-3:
            return Leaf(node.counts)
        new = []
        for kid in kids:
            new.append((yield go(kid)))
        return node if all(a is b[0] for a, b in zip(new, kids)) else with_children(node, tuple(new))

    root = run(go(run(annotate(tree.root))))
    return tree if root is tree.root else attrs.evolve(tree, root=root)


def c45(
    X: Any,
    y: Any = None,
    *,
    score: Any = ByTask("gain_ratio", "variance"),
    min_samples_leaf: float = 2,
    threshold: str = "midpoint",
    collapse: bool = True,
    missing: str = "distribute",
    splitters: Any = (c45_splits,),
    bins: Any = None,
    max_bins: int | None = None,
    **options: Unpack[C45Options],
) -> Tree:
    """C4.5 (release 8, as Weka's J48 grows it unpruned): gain ratio among the attributes of at
    least average gain, MDL-corrected numeric cuts, J48's minimum branch sizes
    (``min_samples_leaf``, a weight, default 2 like ``-M 2``), missing values distributed over
    the branches, then :func:`collapse_unhelpful`. ``threshold="data"`` places cuts at training
    values as J48 does. Prune with :func:`puretree.prune.pessimistic` (with the training data,
    for subtree raising) to get J48's default tree. Other options are :func:`~puretree.grow.grow`'s.

    **Histogram mode.** ``bins=edges`` (one array of upper bin edges per feature, as
    :func:`puretree.dask.bin_edges` gives and ``puretree.cart(X, y, bins=edges)`` takes) or
    ``max_bins=N`` (each numeric feature cut into at most ``N`` quantile bins,
    :func:`~puretree.growth.engine.quantile_bins`): every numeric value is first replaced by its bin's
    upper edge (:func:`~puretree.growth.engine.edge_bins`), then C4.5 grows as above on those values,
    so its numeric cuts are those between a node's non-empty bins (the MDL correction counts
    them) and **every threshold is the upper edge of the node's last non-empty bin on the
    left** (not a midpoint; ``threshold=`` has no effect). A raw value goes where its bin went.
    This is exactly the tree :func:`puretree.dask.c45` grows on a cluster from per-bin histograms.

    >>> X = [[0.5], [1.2], [1.7], [2.5], [3.1], [3.9]]
    >>> print(c45(X, ["a", "a", "a", "b", "b", "b"], bins=[[1.0, 2.0, 3.0, 4.0]], min_samples_leaf=1).to_text())
    x0 <= 2: a (3)
    x0 > 2: b (3)
    """
    rest: dict[str, Any] = dict(options)
    if bins is not None or max_bins is not None:
        X, y, rest = _binned(X, y, bins, max_bins, rest)
        splitters = tuple(attrs.evolve(s, lower=True) if isinstance(s, C45Splits) else s for s in splitters)
    tree = grow(X, y, score=score, min_samples_leaf=min_samples_leaf, missing=missing, splitters=splitters, threshold=threshold, **rest)
    return collapse_unhelpful(tree) if collapse else tree


def _binned(X: Any, y: Any, bins: Any, max_bins: int | None, options: dict[str, Any]) -> tuple[Any, None, dict[str, Any]]:
    """The dataset with every numeric value replaced by its bin's upper edge (``bins``) or by
    the largest value of its quantile bin (``max_bins``), and the options left for grow."""

    if bins is not None and max_bins is not None:
        raise ParameterError("give bins= (the bin edges) or max_bins= (compute them), not both")
    max_bins = check_options(max_bins=max_bins)["max_bins"]
    rest = {k: v for k, v in options.items() if k not in DATA_OPTIONS or k == "task"}
    ds = as_dataset(X, y, sample_weight=rest.pop("sample_weight", None), **{k: v for k, v in options.items() if k in DATA_OPTIONS})
    if ds.sample_weight is not None and (keep := ds.sample_weight > 0).any() and not keep.all():
        ds = ds.subset(keep)  # a row of weight 0 is no row, as grow has it: not binned either
    edges = check_bins(bins, ds.schema) if bins is not None else None
    Xb = ds.X.copy()  # the user's data is not touched
    for j, f in enumerate(ds.schema.features):
        if f.is_numeric:
            Xb[:, j] = edge_bins(ds.X[:, j], edges[j]) if edges is not None else quantile_bins(ds.X[:, j], max_bins)  # type: ignore[arg-type]  # numeric: an array
    return attrs.evolve(ds, X=Xb), None, rest
