"""Bring your own criterion: a user-written impurity and a user-composed, cost-aware score.

Neither touches the library. An impurity is any function from class counts shaped
``(..., n_classes)`` to impurities shaped ``(...)``; a score is any function
``score(parent, children, features)`` returning "higher is better" (``-inf``: not a candidate).

Run it with ``python examples/custom_criterion.py``.
"""

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

import puretree as pt

data = pt.datasets.load_playtennis()


# 1. A user-written impurity: a plain function over counts, vectorised with numpy (it must
#    accept any leading axes). Here: Gini impurity written from scratch.
def my_gini(counts: ArrayLike) -> Any:
    counts = np.asarray(counts, dtype=float)
    p = counts / counts.sum(axis=-1, keepdims=True)  # NaN for an empty branch: the score skips it
    return 1.0 - (p**2).sum(axis=-1)


my_score = pt.impurity_decrease(my_gini)
print(f"1. a user-written impurity: {my_score!r}")
mine, builtin = pt.attribute_scores(data, score=my_score), pt.attribute_scores(data, score="gini")
for name, value in mine.items():
    print(f"   decrease({name}) = {value:.4f}")
print(f"   same as the built-in gini: {all(abs(mine[k] - builtin[k]) < 1e-12 for k in mine)}")
tree = pt.grow(data, score=my_score, splitters=(pt.multiway_splits,))
print(tree.to_text())

# A lambda works just as well:
entropy_in_nats = lambda counts: pt.entropy(counts, base=np.e)  # noqa: E731
print(f"   root by gain in nats: {pt.id3(data, score=pt.information_gain(entropy_in_nats)).root == pt.id3(data).root}")


# 2. A user-composed score: gain ** 2 / cost, with a cost per attribute (Tan & Schlimmer,
#    as in seed 000). per_feature turns a table into a function of the features' names.
cost = pt.per_feature({"outlook": 10.0, "temperature": 1.0, "humidity": 2.0, "wind": 1.0})
gain = pt.information_gain(pt.entropy)


def gain_squared_per_cost(parent: np.ndarray, children: np.ndarray, features: np.ndarray) -> Any:
    return gain(parent, children, features) ** 2 / cost(features)


print("\n2. a user-composed score: gain ** 2 / cost")
plain = pt.attribute_scores(data, score=gain)
composed = pt.attribute_scores(data, score=gain_squared_per_cost)
for name in data.schema.feature_names:
    print(f"   {name:<11} gain {plain[name]:.3f}  cost {float(cost(np.asarray(name))):>4.0f}  gain**2/cost {composed[name]:.4f}")
cheap = pt.id3(data, score=gain_squared_per_cost)
assert isinstance(cheap.root, pt.Split)  # the root splits (a leaf has no feature)
root = cheap.schema.features[cheap.root.feature].name
print(f"   root attribute: {root} (plain information gain picks outlook)")
print(cheap.to_text())
print(pt.summary(cheap))
