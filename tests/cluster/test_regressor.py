"""DaskCARTRegressor: M1 with the growing sample in memory and per-node moments of the rest by blocks."""

import pickle

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import r2_score

from prunus import CARTRegressor
from prunus.distributed import DaskCARTRegressor
from prunus.pruning import squared_error_path
from prunus.pruning.selection import ROOT_TEMPERATURE, cv_temperatures, select_holdout
from prunus.tree import grow_cart

#: Block merges round differently from one pass over all rows (Chan's update), so moments,
#: alphas and means agree to this relative tolerance; discrete structure agrees exactly.
RTOL = 1e-12


def regression(n=3000, d=4, seed=0):
    """Rows in [0, 1]^d; a step of height 2 in the first feature plus a slope in the second, dyadic noise."""
    rng = np.random.RandomState(seed)
    X = rng.rand(n, d)
    y = 2.0 * (X[:, 0] > 0.5) + X[:, 1] + rng.randint(-4, 5, size=n) / 8.0
    return X, y


def _same_regressor(a, b):
    assert a.tree_ == b.tree_
    assert a.pruned_tree_ == b.pruned_tree_
    assert a.selected_index_ == b.selected_index_
    np.testing.assert_array_equal(a.split_.grow_indices, b.split_.grow_indices)
    np.testing.assert_allclose(a.path_.alphas, b.path_.alphas, rtol=RTOL, atol=1e-15)
    # The weights of integer-weighted rows add exactly in any order.
    np.testing.assert_array_equal(a.pruned_counts_[:, 0], b.pruned_counts_[:, 0])
    np.testing.assert_allclose(a.pruned_counts_, b.pruned_counts_, rtol=RTOL, atol=1e-12)


@pytest.mark.parametrize("selection", ["holdout", "alpha", "slope", "penalty"])
def test_dask_regressor_equals_in_memory(client, selection):
    X, y = regression()
    w = np.random.RandomState(3).randint(1, 4, size=len(y)).astype(float)
    params = dict(method="M1", grow_size=800, selection=selection, alpha=0.002, random_state=7)
    ref = CARTRegressor(**params).fit(X, y, sample_weight=w)
    got = DaskCARTRegressor(**params).fit(
        da.from_array(X, chunks=(400, 2)), da.from_array(y, chunks=700), da.from_array(w, chunks=500)
    )
    _same_regressor(ref, got)
    np.testing.assert_allclose(got.predict(X), ref.predict(X), rtol=RTOL)
    if selection == "holdout":
        np.testing.assert_allclose(ref.test_risk_, got.test_risk_, rtol=RTOL)
    elif selection in ("slope", "penalty"):
        np.testing.assert_allclose(ref.penalty_c_, got.penalty_c_, rtol=RTOL)


def test_dask_regressor_equals_reference_built_by_hand(client):
    """Gey & Nedelec's M1 with hold-out selection, assembled from the public pieces on the recorded split."""
    X, y = regression(n=2500, seed=4)
    est = DaskCARTRegressor(method="M1", grow_size=600, test_size=0.2, random_state=11)
    est.fit(da.from_array(X, chunks=300), da.from_array(y, chunks=300))
    grow, test, prune = est.split_.masks()
    assert grow.sum() == 600 and not (grow & test).any() and (grow | test | prune).all()
    grow_seed = np.random.RandomState(11).randint(2**31 - 1)  # the estimator's first draw
    tree = grow_cart(X[grow], y[grow], criterion="squared_error", random_state=grow_seed)
    path = squared_error_path(tree, tree.node_moments(X[prune], y[prune]))
    k, risk = select_holdout(path, tree.node_moments(X[test], y[test]))
    assert est.tree_ == tree
    assert est.selected_index_ == k
    np.testing.assert_allclose(est.test_risk_, risk, rtol=RTOL)
    np.testing.assert_allclose(est.path_.moments, path.moments, rtol=RTOL, atol=1e-12)
    # Leaves predict L2's means.
    leaves = est.pruned_tree_.apply(X[prune])
    for leaf in np.unique(leaves):
        np.testing.assert_allclose(est.predict(X[prune][leaves == leaf][:1])[0], y[prune][leaves == leaf].mean())


@pytest.mark.parametrize("selection", ["cv", "cv-1se"])
def test_cv_by_blocks_equals_reference(client, selection):
    """Folds are whole blocks; fold trees grown on L1 outside the fold, pruned with L2 outside it, and
    every held-out row's squared error evaluated at the full path's temperatures (rpart's per-row SE)."""
    X, y = regression(n=2400, seed=5)
    est = DaskCARTRegressor(method="M1", grow_size=600, selection=selection, cv=3, random_state=4)
    est.fit(da.from_array(X, chunks=(200, 4)), da.from_array(y, chunks=200))
    assert sorted(np.bincount(est.cv_block_folds_)) == [4, 4, 4]
    grow, _, prune = est.split_.masks()
    fold = est.cv_block_folds_[np.arange(len(y)) // 200]
    seed = np.random.RandomState(4).randint(2**31 - 1)
    tree = grow_cart(X[grow], y[grow], criterion="squared_error", random_state=seed)
    path = squared_error_path(tree, tree.node_moments(X[prune], y[prune]))
    paths = []
    for k in range(3):
        g, p = grow & (fold != k), prune & (fold != k)
        tree_k = grow_cart(X[g], y[g], criterion="squared_error", random_state=seed)
        paths.append(squared_error_path(tree_k, tree_k.node_moments(X[p], y[p])))
    top = max(float(q.alphas[-1]) for q in [path, *paths])
    betas = cv_temperatures(path.alphas, max(2 * top, ROOT_TEMPERATURE))
    np.testing.assert_allclose(est.cv_results_["alpha"], betas, rtol=RTOL, atol=1e-15)
    sse = np.zeros(len(betas))
    fourth = np.zeros(len(betas))
    for k, path_k in enumerate(paths):
        t = fold == k
        for j, beta in enumerate(betas):  # row by row: the leaf of T_beta and its L2 mean
            sub, kept = path_k.subtree(path_k.index(beta), return_index=True)
            loss = (y[t] - path_k.value[kept][sub.apply(X[t])]) ** 2
            sse[j] += loss.sum()
            fourth[j] += (loss**2).sum()
    mean = sse / len(y)
    se = np.sqrt((fourth / len(y) - mean**2) / len(y))
    np.testing.assert_allclose(est.cv_results_["mean_risk"], mean, rtol=1e-9)
    np.testing.assert_allclose(est.cv_results_["se_risk"], se, rtol=1e-9)
    best = len(mean) - 1 - int(np.argmin(mean[::-1]))  # ties: the smaller tree
    if selection == "cv-1se":
        best = int(np.flatnonzero(mean <= mean[best] + se[best]).max())
    assert est.tree_ == tree
    assert est.selected_index_ == best


@pytest.mark.filterwarnings("ignore:Dask currently has limited support:UserWarning")
def test_dataframe_input_lazy_predictions_score_and_to_local(client):
    X, y = regression(n=2000)
    params = dict(method="M1", grow_size=500, random_state=0)
    ref = CARTRegressor(**params).fit(X, y)
    ddf = dd.from_pandas(pd.DataFrame(X, columns=["f0", "f1", "f2", "f3"]), npartitions=5)
    got = DaskCARTRegressor(**params).fit(ddf, dd.from_pandas(pd.Series(y), npartitions=5))
    _same_regressor(ref, got)
    Xd = da.from_array(X, chunks=333)
    pred = got.predict(Xd)
    assert isinstance(pred, da.Array) and pred.dtype == np.float64
    np.testing.assert_allclose(pred.compute(), ref.predict(X), rtol=RTOL)
    np.testing.assert_array_equal(got.apply(Xd).compute(), ref.apply(X))
    w = np.random.RandomState(1).rand(len(y))
    np.testing.assert_allclose(got.score(Xd, da.from_array(y, chunks=333)), r2_score(y, ref.predict(X)), rtol=1e-9)
    np.testing.assert_allclose(
        got.score(Xd, y, sample_weight=w), r2_score(y, ref.predict(X), sample_weight=w), rtol=1e-9
    )
    local = pickle.loads(pickle.dumps(got.to_local()))
    assert type(local) is CARTRegressor
    np.testing.assert_array_equal(local.predict(X), got.predict(X))


def test_far_target_keeps_its_digits(client):
    """Blocks merge their moments by Chan's update: y + 1e9 gives the same tree and sums of squares."""
    X, y = regression(n=1600, seed=2)
    Xd = da.from_array(X, chunks=200)
    params = dict(method="M1", grow_size=400, selection="alpha", alpha=0.001, random_state=3)
    a = DaskCARTRegressor(**params).fit(Xd, da.from_array(y, chunks=200))
    b = DaskCARTRegressor(**params).fit(Xd, da.from_array(y + 1e9, chunks=200))
    assert a.tree_ == b.tree_ and a.selected_index_ == b.selected_index_
    # Each mean near 1e9 is rounded to ~1e-7, so a node's sum of squares moves by ~1e-8: relative to the
    # root's (raw sums of y and y^2, ~1e22 here, would be off by ~1e6).
    np.testing.assert_allclose(
        b.path_.moments[:, 2], a.path_.moments[:, 2], rtol=1e-6, atol=1e-9 * a.path_.moments[0, 2]
    )
    np.testing.assert_allclose(b.predict(X) - 1e9, a.predict(X), atol=1e-6)


def test_bad_input(client):
    X, y = regression(n=600)
    Xd = da.from_array(X, chunks=200)
    with pytest.raises(ValueError, match="grow_size is required"):
        DaskCARTRegressor(method="M1").fit(Xd, y)
    with pytest.raises(ValueError, match="method='M1'"):
        DaskCARTRegressor(method="M2", grow_size=100).fit(Xd, y)
    with pytest.raises(ValueError, match="at least cv=5 row blocks"):
        DaskCARTRegressor(method="M1", selection="cv", cv=5, grow_size=100).fit(Xd, y)
    for est in (CARTRegressor, DaskCARTRegressor):
        with pytest.raises(ValueError, match=r"needs a dask collection \(prunus.distributed.DaskCARTRegressor\)"):
            est(method="M1", selection="cv", grow_size=100).fit(X, y)
    with pytest.raises(ValueError, match="grow_size"):
        DaskCARTRegressor(method="M1", grow_size=600).fit(Xd, y)
    bad = y.copy()
    bad[450] = np.nan  # outside the growing sample or inside it: a block or the sample says so
    with pytest.raises(ValueError, match="y contains NaN"):
        DaskCARTRegressor(method="M1", grow_size=100, random_state=0).fit(Xd, da.from_array(bad, chunks=200))
    with pytest.raises(ValueError, match="y must hold numbers"):
        DaskCARTRegressor(method="M1", grow_size=100).fit(Xd, da.from_array(np.array(["a"] * 600), chunks=200))
    with pytest.raises(ValueError, match="rows"):
        DaskCARTRegressor(method="M1", grow_size=100).fit(Xd, y[:-1])
    with pytest.raises(TypeError, match="prunus.distributed.DaskCARTRegressor"):
        CARTRegressor(method="M1", grow_size=50).fit(Xd, y)


def test_node_moments_of_any_tree_over_blocks(client):
    from prunus.distributed import node_moments

    X, y = regression(n=1500, seed=6)
    w = np.random.RandomState(0).randint(0, 3, size=len(y)).astype(float)
    tree = grow_cart(X[:300], y[:300], criterion="squared_error", max_depth=4, random_state=0)
    got = node_moments(tree, da.from_array(X, chunks=170), da.from_array(y, chunks=170), w, split_every=3)
    ref = tree.node_moments(X, y, w)
    np.testing.assert_array_equal(got[:, 0], ref[:, 0])  # integer weights: exact in any order
    np.testing.assert_allclose(got, ref, rtol=RTOL, atol=1e-12)
    with pytest.raises(TypeError, match=r"prunus.distributed.node_moments"):
        tree.node_moments(da.from_array(X, chunks=170), y)
    with pytest.raises(ValueError, match="features"):
        node_moments(tree, da.from_array(X[:, :2], chunks=170), y)
