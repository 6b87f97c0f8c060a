"""The numpy path's shortcuts of the sorted source (:mod:`puretree.growth.sorted`), each against
the plain computation it stands for: the next frontier's orders counted into place, and the
built-in Gini's screened candidates on integer counts."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

import puretree
from puretree.growth import sorted as source


@st.composite
def moves(draw):
    """A frontier's instances (segments by node), per feature an order sorted within each
    segment, and each instance's fate: its node's first or second child, or gone."""
    sizes = draw(st.lists(st.integers(1, 12), min_size=1, max_size=6))
    q = draw(st.integers(1, 4))
    m = sum(sizes)
    node = np.repeat(np.arange(len(sizes)), sizes)
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    orders = np.stack([np.lexsort((rng.random(m), node)) for _ in range(q)]).astype(np.int32)
    side = rng.integers(-1, 2, size=m)  # -1 gone, 0 first child, 1 second child
    kept = side >= 0
    slot = node * 2 + side  # the children's slots in order; the occupied ones become the next nodes
    occupied = np.zeros(2 * len(sizes), dtype=bool)
    occupied[slot[kept]] = True
    child_of = np.cumsum(occupied) - 1
    new_node_of_old = np.where(kept, child_of[np.where(kept, slot, 0)], -1)
    new_order = np.lexsort((np.arange(m)[kept], new_node_of_old[kept]))  # new instances sorted by (node, row)
    new_id_of_old = np.full(m, -1, dtype=np.int32)
    new_id_of_old[np.flatnonzero(kept)[new_order]] = np.arange(int(kept.sum()))
    nn = new_node_of_old[kept][new_order]
    parent = (np.flatnonzero(occupied) // 2).astype(np.int64)
    return orders, new_id_of_old, nn, parent, node, len(sizes)


@given(moves())
def test_orders_counted_into_place_are_the_stable_partition(move):
    orders, new_id_of_old, nn, parent, node, n_old = move
    if len(parent) == 0:
        return
    mapped = new_id_of_old[orders]
    expected = mapped[mapped >= 0].reshape(len(orders), -1)
    expected = np.take_along_axis(expected, np.argsort(nn[expected], axis=1, kind="stable"), axis=1)
    values = orders * 10.0 + 0.5  # any numbers that follow the instances
    got, moved = source._partition_pairs(orders, new_id_of_old, nn, parent, node, n_old, values)
    assert got.dtype == orders.dtype and got.tolist() == expected.tolist()
    old_of_new = np.argsort(new_id_of_old)[len(new_id_of_old) - len(nn) :]  # each new id's old instance
    assert moved.tolist() == (old_of_new[got] * 10.0 + 0.5).tolist()


def test_orders_of_more_than_two_children_are_left_to_the_sort():
    # three children of one node: not counted into place
    assert source._partition_pairs(np.array([[0, 1, 2]], dtype=np.int32), np.array([0, 1, 2]), np.array([0, 1, 2]), np.array([0, 0, 0]), np.zeros(3, dtype=np.int64), 1) is None


@given(st.integers(0, 2**32 - 1), st.integers(2, 4), st.booleans())
def test_numpy_paths_trees_are_the_compiled_ones(seed, k, weighted):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(300, 3)).astype(float) + rng.integers(0, 2, size=(300, 1)) * rng.random((300, 3))
    y = rng.integers(0, k, size=300)
    w = rng.integers(0, 4, size=300).astype(float) if weighted else None
    assert puretree.cart(X, y, sample_weight=w, engine="numpy") == puretree.cart(X, y, sample_weight=w, engine="reference")
