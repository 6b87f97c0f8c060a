"""Fixtures shared by test modules."""

import pytest


@pytest.fixture(scope="module")
def client():
    """A dask LocalCluster of two in-process workers and its client, one per test module
    (the tests of ``puretree.dask``); dask is in the ``test`` extra."""
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None) as cluster, distributed.Client(cluster) as c:
        yield c
