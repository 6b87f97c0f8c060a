"""Growing trees: the public face of :mod:`puretree.builder` (``grow`` and its presets),
:mod:`puretree.splits` (what split generators see and return) and :mod:`puretree.c45`.

Everything a user grows a tree with is importable from here, as it always was:

>>> from puretree.grow import c45, cart, id3
>>> from puretree.datasets import load_playtennis
>>> print(id3(load_playtennis(), max_depth=1).to_text())
outlook = overcast: yes (4)
outlook = rain: yes (5/2)
outlook = sunny: no (5/2)

The modules behind it are layered so that no import goes in a circle: ``splits`` (candidates,
the built-in split generators) is used by the recursive ``builder`` and by the level-wise
``engine``; ``c45`` builds on both; this module only gathers their names.
"""

from __future__ import annotations

from .builder import (
    GROW_CONSTRAINTS,
    ByTask,
    C45Options,
    DataOptions,
    ForestOptions,
    GrowOptions,
    Grower,
    MemberOptions,
    attribute_scores,
    by_task,
    cart,
    cart_regressor,
    check_options,
    class_weights,
    data_thresholds,
    grow,
    id3,
)
from .c45 import c45
from .splits import (
    MAX_EXACT_SUBSET_CATEGORIES,
    MISSING_BRANCH,
    THRESHOLDS,
    TIE_TOLERANCE,
    Candidate,
    CheckedScore,
    NodeData,
    SplitGenerator,
    best_candidate,
    known_fraction,
    midpoint,
    multiway_splits,
    node_statistics,
    refuse_missing,
    root_data,
    subset_candidates,
    subset_masks,
    subset_splits,
    threshold_splits,
    tie_first,
    variance_decrease,
)

__all__ = [
    "root_data",
    "grow",
    "id3",
    "c45",
    "cart",
    "cart_regressor",
    "ByTask",
    "by_task",
    "Grower",
    "DataOptions",
    "GrowOptions",
    "C45Options",
    "ForestOptions",
    "MemberOptions",
    "class_weights",
    "NodeData",
    "Candidate",
    "SplitGenerator",
    "threshold_splits",
    "multiway_splits",
    "subset_splits",
    "subset_candidates",
    "subset_masks",
    "variance_decrease",
    "tie_first",
    "best_candidate",
    "known_fraction",
    "GROW_CONSTRAINTS",
    "check_options",
    "midpoint",
    "attribute_scores",
    "node_statistics",
    "data_thresholds",
    "THRESHOLDS",
    "TIE_TOLERANCE",
    "MISSING_BRANCH",
    "MAX_EXACT_SUBSET_CATEGORIES",
    "refuse_missing",
    "CheckedScore",
]
