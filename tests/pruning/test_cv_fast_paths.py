"""The fast paths of a cross-validated regression give the numbers of the
general path, bit for bit: the compiled fold evaluation against the path
object's, the two-pass squared-error scan against the one-pass scan, the
compiled interval sums against their numpy expression.

Both sides of each comparison run the same floating-point operations in the
same order on the same machine, so exact equality is what the code promises
(no tolerance: a difference is a bug, not rounding).
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.pruning import selection as sel
from prunus.pruning._path_kernels import interval_sums
from prunus.tree._grower import grow_depth_first
from prunus.tree._splitter import GrowthData, Workspace
from prunus.tree._surrogate import empty_store
from prunus.tree.cart import CARTGrower, GrowthParams, _settings, _workspace_arrays


def _data(seed, n, d, nan_rate, tied):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 6, size=(n, d)).astype(float) if tied else rng.random((n, d))
    y = X[:, 0] * 2.0 + X[:, -1] + rng.normal(0, 1.0, n)
    if tied:
        y = np.round(y)
    X[rng.random((n, d)) < nan_rate] = np.nan
    return X, y, rng


def _params(min_leaf=1, max_depth=None):
    return GrowthParams("squared_error", max_depth, 2, min_leaf, 0.0, None, None)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(12, 160),
    d=st.integers(1, 4),
    nan_rate=st.sampled_from([0.0, 0.2]),
    tied=st.booleans(),
    weighted=st.booleans(),
    min_leaf=st.integers(1, 3),
    max_depth=st.sampled_from([None, 3]),
)
def test_compiled_fold_equals_path_objects(seed, n, d, nan_rate, tied, weighted, min_leaf, max_depth):
    X, y, rng = _data(seed, n, d, nan_rate, tied)
    w = rng.integers(0, 4, n).astype(float) if weighted else np.ones(n)
    w[0] = 1.0
    grower = CARTGrower(X, y, regression=True)
    params = _params(min_leaf, max_depth)
    perm = rng.permutation(n)
    test, train = np.sort(perm[: n // 5]), np.sort(perm[n // 5 :])
    if w[train].sum() == 0:
        train = np.append(train, 0)
    grow_weight = np.zeros(n)
    grow_weight[train] = w[train]
    tree, _ = grower.grow(params, grow_weight)
    betas = np.sort(rng.random(7) * float(np.var(y) + 1.0))[::-1].copy()  # unsorted order is part of the test
    path, _ = sel.build_path(grower, train, w, "M2", params, 0, None)
    expected = path._held_out_rows(grower.X, grower.y, w, test, betas)
    got = sel._regression_fold_loss(grower, w, grow_weight, test, params, 0, betas)
    for a, b in zip(expected, got):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(2, 200),
    d=st.integers(1, 4),
    tied=st.booleans(),
    weighted=st.booleans(),
    min_leaf=st.integers(1, 4),
)
def test_two_pass_scan_grows_the_one_pass_tree(seed, n, d, tied, weighted, min_leaf):
    X, y, rng = _data(seed, n, d, 0.0, tied)
    w = rng.integers(1, 4, n).astype(float) if weighted else np.ones(n)
    for a, b in zip(*_grown_both_ways(X, y, w, min_leaf)):
        np.testing.assert_array_equal(a, b)


def _grown_both_ways(X, y, w, min_leaf=1):
    grower = CARTGrower(X, y, regression=True)
    n, d = X.shape
    settings_ = _settings(_params(min_leaf), n, d, grower.n_classes, 0)
    unit = bool(np.all(w == 1.0))
    data = GrowthData(grower._columns, grower._codes, w, unit, grower._target, grower.n_categories)
    grown = []
    for scan in (np.empty((0, 0)), np.empty((4, n))):  # one pass, then two passes
        work = Workspace(*_workspace_arrays(grower.order, w, grower.n_classes, 0, np.zeros(0, dtype=np.bool_)), scan)
        grown.append(grow_depth_first(data, work, settings_, empty_store()))
    return grown


@pytest.mark.parametrize("shift", [0.0, 1e9])
def test_two_pass_scan_keeps_the_first_of_mirrored_splits(shift):
    # x = 0..3, y = 0 1 1 0: the thresholds 0.5 and 2.5 have equal gains
    # (the same two terms, added in the other order); the first one is kept.
    X = np.repeat(np.arange(4.0), 3)[:, None]
    y = np.repeat([0.0, 1.0, 1.0, 0.0], 3) + shift
    one, two = _grown_both_ways(X, y, np.ones(12))
    assert one[3][0] == two[3][0] == 0.5
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("seed", range(5))
def test_interval_sums_equal_the_numpy_expression(seed):
    rng = np.random.default_rng(seed)
    n_nodes, m, points = 50, 2, 9
    values = rng.normal(size=(n_nodes, m)) * 10.0 ** rng.integers(-8, 8, size=(n_nodes, 1))
    start = rng.integers(0, points + 1, n_nodes)
    stop = np.minimum(start + rng.integers(0, points + 1, n_nodes), points)
    diff = np.zeros((points + 1, m))
    np.add.at(diff, start, values)
    np.add.at(diff, stop, -values)
    np.testing.assert_array_equal(interval_sums(values, start, stop, points), np.cumsum(diff[:-1], axis=0))


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(12, 160),
    n_classes=st.integers(2, 4),
    nan_rate=st.sampled_from([0.0, 0.2]),
    categorical=st.booleans(),
    weighted=st.booleans(),
    max_surrogates=st.sampled_from([0, 3]),
    min_leaf=st.integers(1, 3),
)
def test_compiled_classification_fold_equals_path_objects(
    seed, n, n_classes, nan_rate, categorical, weighted, max_surrogates, min_leaf
):
    # Numeric and (optionally) categorical features, missing values routed by
    # the learned side or by surrogate splits, integer weights with zeros.
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, 5, n), rng.random(n), rng.integers(0, 7, n)]).astype(float)
    y = (X[:, 0] + (X[:, 1] > 0.5) + rng.integers(0, 2, n)).astype(np.int64) % n_classes
    X[rng.random(X.shape) < nan_rate] = np.nan
    w = rng.integers(0, 4, n).astype(float) if weighted else np.ones(n)
    w[0] = 1.0
    grower = CARTGrower(X, y, n_classes, n_categories=[0, 0, 7] if categorical else None)
    params = GrowthParams("gini", None, 2, min_leaf, 0.0, None, None, "best", max_surrogates)
    perm = rng.permutation(n)
    test, train = np.sort(perm[: n // 4]), np.sort(perm[n // 4 :])
    if w[train].sum() == 0:
        train = np.append(train, 0)
    betas = np.concatenate([[0.0], np.sort(rng.random(6) * 0.3)[::-1], [2.0]])  # unsorted order is part of the test
    path, _ = sel.build_path(grower, train, w, "M2", params, 0, None)
    expected = path._held_out_rows(grower.X, grower.y, w, test, betas)
    got = sel._classification_fold_loss(grower, w, train, test, params, 0, betas)
    for a, b in zip(expected, got):
        np.testing.assert_array_equal(a, b)


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(12, 120),
    d=st.integers(1, 4),
    nan_where=st.sampled_from(["none", "held_out", "everywhere"]),
    weighted=st.booleans(),
)
def test_fold_loss_with_surrogates_asked_equals_path_objects(seed, n, d, nan_where, weighted):
    """Surrogate splits asked for (prunus's default): a fold whose training
    rows miss no value grows no surrogates, so its held-out rows (missing
    values or not) follow each split's missing side; a fold with missing
    values grows surrogates, and its held-out rows missing a split's feature
    follow them. The compiled fold gives the numbers of ``build_path`` and
    the Tree's routing either way."""
    X, y, rng = _data(seed, n, d, 0.0, False)
    w = rng.integers(0, 4, n).astype(float) if weighted else np.ones(n)
    perm = rng.permutation(n)
    test, train = np.sort(perm[: n // 5]), np.sort(perm[n // 5 :])
    w[train[0]] = 1.0
    holes = rng.random((n, d)) < 0.25
    if nan_where == "held_out":
        X[test[:, None], np.arange(d)] = np.where(holes[test], np.nan, X[test])
    elif nan_where == "everywhere":
        X[holes] = np.nan
    grower = CARTGrower(X, y, regression=True)
    params = GrowthParams("squared_error", None, 2, 1, 0.0, None, None, max_surrogates=5)
    betas = np.sort(rng.random(5) * float(np.var(y) + 1.0))
    path, _ = sel.build_path(grower, train, w, "M2", params, 0, None)
    expected = path._held_out_rows(grower.X, grower.y, w, test, betas)
    got = sel._fold_loss(sel.FoldJob(grower, w, "M2", params, 0), (train, test), 0, betas)
    for a, b in zip(expected, got):
        np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("configured", [None, "threading", "n_jobs=1"])
def test_default_threads_equal_sequential_folds(monkeypatch, configured):
    """The default n_jobs runs the folds in threads of its own (a pool per
    fit), unless joblib is configured; the numbers are the sequential ones."""
    from joblib import parallel_config

    from prunus import CARTRegressor

    X, y, _ = _data(3, 200, 3, 0.0, False)
    sequential = CARTRegressor(selection="cv", cv=5, random_state=0, n_jobs=1).fit(X, y)
    monkeypatch.setattr(CARTRegressor, "_THREADS_FROM_CELLS", 0)
    pools = []
    real_pool = sel.ThreadPoolExecutor

    def pool(*args, **kwargs):
        pools.append(kwargs.get("max_workers"))
        return real_pool(*args, **kwargs)

    monkeypatch.setattr(sel, "ThreadPoolExecutor", pool)
    config = {"threading": {"backend": "threading"}, "n_jobs=1": {"n_jobs": 1}}.get(configured, {})
    with parallel_config(**config):
        default = CARTRegressor(selection="cv", cv=5, random_state=0).fit(X, y)
    assert len(pools) == (1 if configured is None else 0)
    for key, value in sequential.cv_results_.items():
        np.testing.assert_array_equal(value, default.cv_results_[key])
    assert default.selected_index_ == sequential.selected_index_
