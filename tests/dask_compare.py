"""Test helpers for puretree.dask against the in-memory fits: ``same_structure`` (the same
splits in the same shape, statistics within a relative tolerance: sums taken per partition
and then across partitions come in another order than in memory) and ``frames`` (small pandas
frames with categorical, object and numeric columns, each with missing cells)."""

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from puretree.nodes import Split

__all__ = ["frames", "same_structure"]


def same_structure(a, b, rtol=1e-9):
    """The same splits (feature, test: a learned side included) in the same shape, statistics within ``rtol``."""
    assert type(a) is type(b)
    np.testing.assert_allclose(a.stats, b.stats, rtol=rtol, atol=1e-12)
    if isinstance(a, Split):
        assert (a.feature, a.test) == (b.feature, b.test)
        assert len(a.children) == len(b.children)
        for x, y in zip(a.children, b.children):
            same_structure(x, y, rtol)


@st.composite
def frames(draw, *, max_rows=50):
    """A pandas category column, an object column of numbers and a numeric column, each with
    missing cells (4 to ``max_rows`` rows), in 1-3 partitions; 2-3 classes."""
    import pandas as pd  # a test dependency; the modules using this have skipped without it

    n = draw(st.integers(4, max_rows))
    colours = draw(st.lists(st.sampled_from(["red", "green", "blue", "grey", "teal", None]), min_size=n, max_size=n))
    shapes = draw(st.lists(st.sampled_from([1, 2, 3, 5, 8, 13, None]), min_size=n, max_size=n))
    sizes = draw(hnp.arrays(np.float64, n, elements=st.integers(0, 6).map(float) | st.just(np.nan)))
    frame = pd.DataFrame({"colour": pd.Categorical(colours), "shape": pd.Series(shapes, dtype=object), "size": sizes})
    y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, draw(st.integers(1, 2)))))
    return frame, y, draw(st.integers(1, 3))
