"""The pictures of docs/views.md, made by puretree's own views: ``python docs/make_pictures.py``
(or ``make pictures``) writes them into docs/img/. tests/test_views_distributions.py checks
that the committed files are what this script makes now, byte for byte.

>>> sorted(pictures())
['views-iris-path.svg', 'views-iris.svg', 'views-playtennis.svg', 'views-regression.svg']
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

import puretree as pt

IMG = Path(__file__).resolve().parent / "img"

#: The pictures' width in pixels: a page's column.
WIDTH = 760


def pictures() -> dict[str, str]:
    """Each picture's file name and SVG text: the same on every machine (no randomness, no date)."""
    from sklearn.datasets import load_diabetes, load_iris

    X, y = load_iris(return_X_y=True)
    species = np.array(["setosa", "versicolor", "virginica"])[y]
    names = ["sepal length", "sepal width", "petal length", "petal width"]
    iris = pt.cart(X, species, max_depth=3)
    h = pt.node_histograms(iris, X, species)  # once, for both iris pictures
    Xd, yd = load_diabetes(return_X_y=True)
    diabetes = pt.cart_regressor(Xd[:, [2, 3, 8]], yd, max_depth=2)
    tennis = pt.datasets.load_playtennis()
    return {
        "views-iris.svg": pt.to_svg(iris, histograms=h, feature_names=names, width=WIDTH),
        "views-iris-path.svg": pt.to_svg(iris, histograms=h, feature_names=names, row=X[100], width=WIDTH),
        "views-regression.svg": pt.to_svg(diabetes, X=Xd[:, [2, 3, 8]], y=yd, feature_names=["bmi", "bp", "s5"], decimals=3, width=WIDTH),
        "views-playtennis.svg": pt.to_svg(pt.id3(tennis), X=tennis, width=WIDTH),
    }


def main() -> None:
    IMG.mkdir(exist_ok=True)
    for name, svg in pictures().items():
        (IMG / name).write_text(svg, encoding="utf-8")
        print(f"wrote {IMG / name}")


if __name__ == "__main__":
    main()
