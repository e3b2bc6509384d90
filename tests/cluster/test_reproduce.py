"""The CART reproduction's grid of fits on the cluster gives the records of a local run."""

import joblib
from distributed import get_task_stream

from prunus.experiments.cart import Settings, synthetic_rates

TINY = Settings(sizes=(150, 200), qs=(0.2,), repeats=1, n_mc=1000, cv=3, real_datasets=(), sklearn_alphas=5)


def test_cart_grid_on_the_cluster_equals_local(client):
    local = synthetic_rates(TINY, progress=False)
    with get_task_stream(client) as stream, joblib.parallel_backend("dask"):
        remote = synthetic_rates(TINY, progress=False)
    assert len(stream.data) >= 4  # one task per (example, q, n, repetition)
    assert len(local) == 2 * 2 * 2 * 5  # examples x sizes x methods x rules
    assert remote == local
