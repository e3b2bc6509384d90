"""The n_jobs loops run on the cluster under joblib's dask backend, with the same results."""

import joblib
import numpy as np
import pytest
from distributed import get_task_stream

from prunus import CARTClassifier, PACBayesTreeClassifier

from .conftest import labelled


def _on_cluster(client, fit):
    with get_task_stream(client) as stream, joblib.parallel_backend("dask"):
        est = fit()
    return est, len(stream.data)


def test_cart_cv_folds_on_the_cluster(client):
    X, y = labelled(n=800)

    def make():
        return CARTClassifier(selection="cv", cv=4, n_jobs=2, random_state=0)

    local = make().set_params(n_jobs=None).fit(X, y)
    remote, n_tasks = _on_cluster(client, lambda: make().fit(X, y))
    assert n_tasks >= 4  # one task per fold at least
    assert remote.selected_index_ == local.selected_index_
    np.testing.assert_array_equal(remote.cv_results_["mean_risk"], local.cv_results_["mean_risk"])


def test_pacbayes_cv_grid_on_the_cluster(client):
    X, y = labelled(n=600)

    def make():
        return PACBayesTreeClassifier(partition="kd", max_depth=4, cv=2, n_jobs=2, random_state=0)

    local = make().set_params(n_jobs=None).fit(X, y)
    remote, n_tasks = _on_cluster(client, lambda: make().fit(X, y))
    assert n_tasks >= 2
    assert (remote.lambda1_, remote.lambda2_) == (local.lambda1_, local.lambda2_)
    np.testing.assert_array_equal(remote.cv_results_["mean_test_error"], local.cv_results_["mean_test_error"])


def test_forest_trees_on_the_cluster_and_dask_predictions(client):
    import dask.array as da

    from prunus.distributed import predict
    from prunus.voting import PACBayesForestClassifier

    X, y = labelled(n=500)
    make = lambda: PACBayesForestClassifier(n_estimators=4, n_jobs=2, random_state=0)  # noqa: E731
    local = make().fit(X, y)  # threads here (n_jobs sets how votes are summed, so it stays 2)
    remote, n_tasks = _on_cluster(client, lambda: make().fit(X, y))
    assert n_tasks >= 2
    np.testing.assert_array_equal(remote.predict_proba(X), local.predict_proba(X))
    Xd = da.from_array(X, chunks=120)
    # A core estimator refuses dask input; prunus.distributed.predict maps it over the blocks.
    with pytest.raises(TypeError, match="takes in-memory arrays"):
        local.predict(Xd)
    np.testing.assert_array_equal(predict(local, Xd).compute(), local.predict(X))
    # The forest sums its trees' votes in n_jobs chunks, and joblib gives a task inside a worker one
    # job: the same sums in another order.
    np.testing.assert_allclose(
        predict(local, Xd, method="predict_proba").compute(), local.predict_proba(X), rtol=1e-12, atol=1e-15
    )
