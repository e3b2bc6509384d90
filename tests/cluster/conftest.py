"""A real two-process Dask cluster on loopback, shared by the tests of this folder."""

import numpy as np
import pytest

pytest.importorskip("distributed")
pytest.importorskip("dask.dataframe")


@pytest.fixture(scope="session")
def client():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None, host="127.0.0.1")
    client = Client(cluster, timeout="30s")
    client.wait_for_workers(2, timeout=60)
    yield client
    client.shutdown()
    client.close(timeout=10)


def labelled(n=2000, d=4, n_classes=3, seed=0):
    """Rows in [0, 1]^d, labels from the first feature with 15% noise."""
    rng = np.random.RandomState(seed)
    X = rng.rand(n, d)
    y = np.minimum((X[:, 0] * n_classes).astype(np.int64), n_classes - 1)
    flip = rng.rand(n) < 0.15
    y[flip] = rng.randint(n_classes, size=flip.sum())
    return X, y
