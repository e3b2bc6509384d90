"""The folds of a cross-validation started before T_max's temperatures are
known (their growths beside T_max's, in threads of this process) give the
numbers of folds run after it, one after the other; a run stopped before
its temperatures came stops its folds.

The same floating-point operations run in the same order either way, so the
results must be identical (no tolerance).
"""

import threading

import numpy as np
import pytest
from sklearn.datasets import make_friedman1

from prunus import CARTClassifier, CARTRegressor
from prunus.pruning import selection as sel
from prunus.tree.cart import CARTGrower, GrowthParams


def _table(seed, n=240, d=4, regression=False):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 10, size=(n, d)).astype(float)
    if regression:
        y = X[:, 0] * 2.0 + (X[:, 1] > 5) * 4.0 + rng.normal(0, 2.0, n)
    else:
        y = ((X[:, 0] + X[:, 1] + rng.integers(0, 6, n)) > 11).astype(np.int64) + (X[:, 2] > 8)
    X[rng.random((n, d)) < 0.1] = np.nan
    return X, y, rng.integers(1, 4, n).astype(float)


def _folds(n, k, seed):
    order = np.random.default_rng(seed).permutation(n)
    return [(np.sort(np.setdiff1d(order, part)), np.sort(part)) for part in np.array_split(order, k)]


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("max_surrogates", [0, 5])
def test_folds_started_before_their_temperatures_equal_folds_run_after(monkeypatch, regression, max_surrogates):
    monkeypatch.setattr(sel, "usable_cpus", lambda: 2)
    X, y, w = _table(1, regression=regression)
    grower = CARTGrower(X, y, regression=regression)
    criterion = "squared_error" if regression else "gini"
    params = GrowthParams(criterion, None, 2, 1, 0.0, None, None, max_surrogates=max_surrogates)
    folds = _folds(X.shape[0], 6, 0)
    betas = np.array([0.0, 0.002, 0.02, 0.2, 2.0, 20.0])
    after = sel.cv_risks(grower, w, folds, "M2", params, 7, betas, np.random.RandomState(3), n_jobs=1)
    rng = np.random.RandomState(3)
    with sel.FoldRun(grower, w, iter(folds), "M2", params, 7, rng, -1, None, 6, True, start=True) as run:
        # T_max's growth, beside the folds' own, gives the temperatures.
        grower.grow(params, w, 7)
        before = sel._collect_risks(run, betas)
    for a, b in zip(after, before):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("method", ["M1", "M2"])
@pytest.mark.parametrize("missing", ["auto", "learned"])
@pytest.mark.parametrize("estimator", [CARTClassifier, CARTRegressor])
def test_default_threads_fit_equals_sequential_fit(monkeypatch, method, missing, estimator):
    monkeypatch.setattr(sel, "usable_cpus", lambda: 2)
    monkeypatch.setattr(estimator, "_THREADS_FROM_CELLS", 0)
    X, y, w = _table(2, regression=estimator is CARTRegressor)
    params = dict(selection="cv", cv=5, method=method, missing=missing, random_state=4)
    sequential = estimator(n_jobs=1, **params).fit(X, y, sample_weight=w)
    threads = estimator(**params).fit(X, y, sample_weight=w)
    assert threads._n_jobs(CARTGrower(X, y, regression=estimator is CARTRegressor)) == -1
    assert threads.missing_ == sequential.missing_
    assert threads.selected_index_ == sequential.selected_index_
    assert threads.pruned_tree_ == sequential.pruned_tree_
    for key, value in sequential.cv_results_.items():
        np.testing.assert_array_equal(threads.cv_results_[key], value)


def test_a_run_stopped_before_its_temperatures_stops_its_folds(monkeypatch):
    monkeypatch.setattr(sel, "usable_cpus", lambda: 2)
    X, y = make_friedman1(200, noise=1.0, random_state=0)
    grower = CARTGrower(X, y, regression=True)
    params = GrowthParams("squared_error", None, 2, 1, 0.0, None, None)
    folds = _folds(200, 10, 1)
    taken = []

    def lazy():
        for fold in folds:
            taken.append(1)
            yield fold

    closed = threading.Event()

    def stop_early():
        run = sel.FoldRun(
            grower, np.ones(200), lazy(), "M2", params, 0, np.random.RandomState(0), -1, None, 10, True, True
        )
        run.close()  # e.g. T_max's growth raised: the folds waiting for temperatures give up
        closed.set()

    worker = threading.Thread(target=stop_early, daemon=True)
    worker.start()
    worker.join(60)
    assert closed.is_set()
    # A few folds ahead (threads + 1) were taken, not the others.
    assert len(taken) <= 3
