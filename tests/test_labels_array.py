"""Labels given as a numpy array take a vectorised path in ``encode_labels`` (one check per
distinct label); it must give the row-by-row path's classes and codes, and its errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from puretree.data import encode_labels
from puretree.errors import DataError

TEXT = st.sampled_from(["a", "b", " a", "A", "1", "1.0", "01", "true", "True", "?", "", "NA", "nan", "x y", "\u00e9"])
NUMBERS = st.one_of(st.integers(-5, 5), st.sampled_from([2**53, 2**53 + 1, -(2**60)]))
FLOATS = st.one_of(st.sampled_from([0.0, -0.0, 1.5, float("nan"), float("inf"), -float("inf"), 2.0]), st.floats(-3, 3, allow_nan=False))


def outcome(y):
    try:
        classes, codes = encode_labels(y)
    except DataError as exc:
        return "error", str(exc)
    return classes, [type(c) for c in classes], codes.dtype, codes.tolist()


@given(st.one_of(st.lists(TEXT, min_size=1, max_size=12), st.lists(NUMBERS, min_size=1, max_size=12), st.lists(FLOATS, min_size=1, max_size=12), st.lists(st.booleans(), min_size=1, max_size=12)))
def test_array_labels_are_the_row_by_row_labels(labels):
    as_array = np.array(labels)
    assert as_array.dtype.kind in "biufU"
    assert outcome(as_array) == outcome(list(labels))  # a list takes the row-by-row path


@pytest.mark.parametrize(
    "labels, message",
    [
        (np.array([1.0, 2.0, np.nan, np.inf]), "row 2: the target is missing"),
        (np.array([1.0, np.inf, np.nan]), "row 1: the target: inf is not finite"),
        (np.array(["a", "?", "b"]), "row 1: the target is missing"),
        (np.array(["a", "1", "1.0"]), "holds both '1' \\(row 1\\) and '1.0' \\(row 2\\)"),
        (np.array([3, 2**60]), "row 1: the target: the integer"),
    ],
)
def test_array_labels_name_the_row(labels, message):
    with pytest.raises(DataError, match=message):
        encode_labels(labels)
