"""The pictures of docs/views.md, made by puretree's own views: ``python docs/make_pictures.py``
(or ``make pictures``) writes them into docs/img/. tests/test_views_distributions.py checks
that the committed files are what this script makes now, byte for byte.

>>> sorted(pictures())
['views-iris-dot.svg', 'views-iris-path.svg', 'views-iris.svg', 'views-playtennis.svg', 'views-regression.svg']
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import numpy as np

import puretree as pt
from puretree.distributions import with_histograms

IMG = Path(__file__).resolve().parent / "img"

#: The pictures' width in pixels: a page's column.
WIDTH = 760


def pictures() -> dict[str, str]:
    """Each picture's file name and SVG text: the same on every machine (no randomness, no date)."""
    from sklearn.datasets import load_diabetes, load_iris

    X, y = load_iris(return_X_y=True)
    species = np.array(["setosa", "versicolor", "virginica"])[y]
    names = ["sepal length", "sepal width", "petal length", "petal width"]
    # The fit keeps its rows' histograms (as TreeClassifier(store_histograms=True) and
    # `puretree fit --histograms` do): the iris pictures draw them with no data given.
    iris = with_histograms(pt.cart(X, species, max_depth=3), X, species)
    Xd, yd = load_diabetes(return_X_y=True)
    diabetes = pt.cart_regressor(Xd[:, [2, 3, 8]], yd, max_depth=2)
    tennis = pt.datasets.load_playtennis()
    return {
        "views-iris.svg": pt.to_svg(iris, feature_names=names, width=WIDTH),
        "views-iris-path.svg": pt.to_svg(iris, feature_names=names, row=X[100], width=WIDTH),
        "views-iris-dot.svg": graphviz(pt.to_dot(iris, feature_names=names)),
        "views-regression.svg": pt.to_svg(diabetes, X=Xd[:, [2, 3, 8]], y=yd, feature_names=["bmi", "bp", "s5"], decimals=3, width=WIDTH),
        "views-playtennis.svg": pt.to_svg(pt.id3(tennis), X=tennis, width=WIDTH),
    }


def graphviz(dot: str) -> str:
    """DOT drawn by Graphviz's ``dot -Tsvg``, without its comments (they name Graphviz's version)."""
    svg = subprocess.run(["dot", "-Tsvg"], input=dot, capture_output=True, text=True, check=True).stdout
    return re.sub(r"<!--.*?-->\n?", "", svg, flags=re.S)


def main() -> None:
    IMG.mkdir(exist_ok=True)
    for name, svg in pictures().items():
        (IMG / name).write_text(svg, encoding="utf-8")
        print(f"wrote {IMG / name}")


if __name__ == "__main__":
    main()
