"""Quick start: learn Mitchell's PlayTennis tree (ID3) from the data shipped with puretree.

Run it with ``make demo`` (or ``python examples/quickstart.py`` where puretree is installed).
"""

import warnings

import puretree as pt
from puretree.predict import UnseenCategoryWarning

data = pt.datasets.load_playtennis()
assert data.y is not None  # the dataset carries its labels
print(f"PlayTennis: {data.n_rows} days, features {', '.join(data.schema.feature_names)}")
classes, counts = data.schema.classes, [int((data.y == i).sum()) for i in range(len(data.schema.classes))]
print(f"classes {dict(zip(classes, counts))}: E(S) = {float(pt.entropy(counts)):.3f} bits")

print("\nInformation gain of each attribute at the root:")
for name, gain in sorted(pt.attribute_scores(data, score="information_gain").items(), key=lambda kv: -kv[1]):
    print(f"  Gain(S, {name:<11}) = {gain:.4f}")

tree = pt.id3(data)
print("\nThe ID3 tree:")
print(tree.to_text())
print(pt.summary(tree))

days = [
    {"outlook": "sunny", "temperature": "cool", "humidity": "high", "wind": "strong"},
    {"outlook": "rain", "temperature": "mild", "humidity": "normal", "wind": "weak"},
    {"outlook": "overcast", "temperature": "hot", "humidity": "high", "wind": "strong"},
    {"outlook": "foggy", "temperature": "mild", "humidity": "high", "wind": "weak"},  # never seen
]
print("\nPredictions:")
for day in days:
    proba = dict(zip(tree.classes, pt.predict_proba(tree, day, unseen="ignore").round(3).tolist()))
    # A category the tree never saw is answered at the split that cannot pass it; by default
    # predict warns (unseen="warn"): here the warning becomes a remark on the line.
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", UnseenCategoryWarning)
        label = pt.predict(tree, day)
    remark = f"   <- outlook {day['outlook']!r} was never seen in training: answered by the split's class mix" if said else ""
    print(f"  {day} -> play = {label}   {proba}{remark}")
