"""M1 fits with the growing sample in memory and the rest counted by blocks."""

import pickle

import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

from prunus import CARTClassifier, HSVoteClassifier, PACBayesTreeClassifier, PenalizedTreeClassifier
from prunus.distributed import DaskCARTClassifier, DaskPACBayesTreeClassifier
from prunus.pruning import cost_complexity_path
from prunus.pruning.selection import cv_temperatures, select_holdout
from prunus.tree import grow_cart
from prunus.voting import NodeStats, pac_bayes_weights

from .conftest import labelled


def _same_cart(a, b):
    assert a.tree_ == b.tree_
    assert a.pruned_tree_ == b.pruned_tree_
    assert a.selected_index_ == b.selected_index_
    np.testing.assert_array_equal(a.path_.alphas, b.path_.alphas)
    np.testing.assert_array_equal(a.pruned_counts_, b.pruned_counts_)
    np.testing.assert_array_equal(a.split_.grow_indices, b.split_.grow_indices)
    np.testing.assert_array_equal(a.classes_, b.classes_)


@pytest.mark.parametrize("selection", ["holdout", "alpha", "slope", "penalty"])
def test_cart_m1_dask_equals_in_memory(client, selection):
    X, y = labelled(n=3000)
    w = np.random.RandomState(3).randint(1, 4, size=len(y)).astype(float)
    params = dict(method="M1", grow_size=800, selection=selection, alpha=0.002, random_state=7)
    ref = CARTClassifier(**params).fit(X, y, sample_weight=w)
    got = DaskCARTClassifier(**params).fit(
        da.from_array(X, chunks=(400, 2)), da.from_array(y, chunks=700), da.from_array(w, chunks=500)
    )
    _same_cart(ref, got)
    if selection == "holdout":
        np.testing.assert_array_equal(ref.test_risk_, got.test_risk_)
    elif selection in ("slope", "penalty"):
        assert ref.penalty_c_ == got.penalty_c_


@pytest.mark.filterwarnings("ignore:Dask currently has limited support:UserWarning")
def test_cart_m1_dataframe_and_labels(client):
    X, y = labelled(n=2000)
    labels = np.array(["a", "b", "c"])[y]
    params = dict(method="M1", grow_size=500, random_state=0)
    ref = CARTClassifier(**params).fit(X, labels)
    ddf = dd.from_pandas(pd.DataFrame(X, columns=["f0", "f1", "f2", "f3"]), npartitions=5)
    got = DaskCARTClassifier(**params).fit(ddf, dd.from_pandas(pd.Series(labels), npartitions=5))
    _same_cart(ref, got)
    np.testing.assert_array_equal(got.predict(X), ref.predict(X))


def test_cart_m1_equals_reference_built_by_hand(client):
    """Gey's M1 with hold-out selection, assembled from the public pieces on the recorded split."""
    X, y = labelled(n=2500, n_classes=2, seed=4)
    est = DaskCARTClassifier(method="M1", grow_size=600, test_size=0.2, random_state=11)
    est.fit(da.from_array(X, chunks=300), da.from_array(y, chunks=300))
    grow, test, prune = est.split_.masks()
    assert grow.sum() == 600 and not (grow & test).any() and (grow | test | prune).all()
    assert 0.15 < test.sum() / (~grow).sum() < 0.25
    grow_seed = np.random.RandomState(11).randint(2**31 - 1)  # the estimator's first draw
    tree = grow_cart(X[grow], y[grow], random_state=grow_seed)
    path = cost_complexity_path(tree, tree.node_counts(X[prune], y[prune], n_classes=2))
    k, risk = select_holdout(path, tree.node_counts(X[test], y[test], n_classes=2))
    assert est.tree_ == tree
    assert est.selected_index_ == k
    np.testing.assert_array_equal(est.test_risk_, risk)
    np.testing.assert_array_equal(est.path_.counts, path.counts)


def test_split_does_not_depend_on_chunks(client):
    X, y = labelled(n=1500)
    fits = [
        DaskCARTClassifier(method="M1", grow_size=300, random_state=2).fit(da.from_array(X, chunks=c), y)
        for c in (100, 701, 1500)
    ]
    for other in fits[1:]:
        _same_cart(fits[0], other)


def test_to_local_is_an_ordinary_estimator(client):
    X, y = labelled(n=2000)
    est = DaskCARTClassifier(method="M1", grow_size=500, random_state=0).fit(da.from_array(X, chunks=500), y)
    local = est.to_local()
    assert type(local) is CARTClassifier
    assert local.get_params() == {**est.get_params(), "method": "M1"}
    clone = pickle.loads(pickle.dumps(local))
    pred = clone.predict(X)
    assert isinstance(pred, np.ndarray)
    np.testing.assert_array_equal(pred, est.predict(X))
    lazy = est.predict(da.from_array(X, chunks=700))
    assert isinstance(lazy, da.Array)
    np.testing.assert_array_equal(lazy.compute(), pred)
    with pytest.raises(TypeError, match="DaskCARTClassifier"):
        clone.predict(da.from_array(X, chunks=700))


@pytest.mark.parametrize("partition", ["cart", "kd", "dyadic"])
def test_pacbayes_dask_equals_in_memory_and_reference(client, partition):
    X, y = labelled(n=2000)
    lam = dict(lambda1=None, lambda2=None) if partition == "cart" else dict(lambda1=2.0, lambda2=0.5)
    params = dict(partition=partition, max_depth=5, grow_size=600, random_state=3, **lam)
    ref = PACBayesTreeClassifier(**params).fit(X, y)
    got = DaskPACBayesTreeClassifier(**params).fit(da.from_array(X, chunks=(333, 4)), da.from_array(y, chunks=333))
    assert got.tree_ == ref.tree_
    assert (got.lambda1_, got.lambda2_) == (ref.lambda1_, ref.lambda2_)
    np.testing.assert_array_equal(got.node_counts_, ref.node_counts_)
    np.testing.assert_array_equal(got.node_weight_, ref.node_weight_)
    # The weights are those of the counts of every row outside S0.
    rest = np.ones(len(y), dtype=bool)
    rest[got.split_.grow_indices] = False
    counts = got.tree_.node_counts(X[rest], y[rest], n_classes=3)
    np.testing.assert_array_equal(got.node_counts_, counts)
    weights = pac_bayes_weights(got.tree_, NodeStats(got.tree_, counts, got.empty_cells), got.lambda1_, got.lambda2_)
    np.testing.assert_allclose(got.node_weight_, weights["node_weight"], rtol=1e-12)
    np.testing.assert_array_equal(pickle.loads(pickle.dumps(got.to_local())).predict(X), ref.predict(X))


def test_bad_sampled_fits(client):
    X, y = labelled(n=600)
    Xd = da.from_array(X, chunks=200)
    with pytest.raises(ValueError, match="grow_size is required"):
        DaskCARTClassifier(method="M1").fit(Xd, y)
    with pytest.raises(ValueError, match="method='M1'"):
        DaskCARTClassifier(method="M2", grow_size=100).fit(Xd, y)
    with pytest.raises(ValueError, match="at least cv=5 row blocks"):
        DaskCARTClassifier(method="M1", selection="cv", cv=5, grow_size=100).fit(Xd, y)
    with pytest.raises(ValueError, match="needs a dask collection"):
        CARTClassifier(method="M1", selection="cv", grow_size=100).fit(X, y)
    with pytest.raises(ValueError, match="grow_size"):
        DaskCARTClassifier(method="M1", grow_size=600).fit(Xd, y)
    with pytest.raises(ValueError, match="grow_size"):
        DaskPACBayesTreeClassifier(grow_size=1.5).fit(Xd, y)
    with pytest.raises(ValueError, match="one class"):
        DaskCARTClassifier(method="M1", grow_size=100).fit(Xd, np.zeros(600, dtype=int))
    with pytest.raises(ValueError, match="rows"):
        DaskCARTClassifier(method="M1", grow_size=100).fit(Xd, y[:-1])


def test_core_estimators_refuse_dask_input_naming_the_counterpart():
    X, y = labelled(n=100, n_classes=2)
    Xd = da.from_array(X, chunks=50)
    with pytest.raises(TypeError, match="prunus.distributed.DaskCARTClassifier"):
        CARTClassifier(method="M1", grow_size=50).fit(Xd, y)
    with pytest.raises(TypeError, match="prunus.distributed.DaskPACBayesTreeClassifier"):
        PACBayesTreeClassifier(grow_size=50).fit(X, da.from_array(y, chunks=50))
    for est in (PenalizedTreeClassifier(), HSVoteClassifier()):
        with pytest.raises(TypeError, match="takes in-memory arrays"):
            est.fit(Xd, y)


@pytest.mark.parametrize("selection", ["cv", "cv-1se"])
def test_cart_m1_cv_by_blocks_equals_reference(client, selection):
    """Folds are whole blocks; each fold's tree is grown on L1 outside it, pruned with L2 outside it."""
    X, y = labelled(n=2400, n_classes=2, seed=5)
    est = DaskCARTClassifier(method="M1", grow_size=600, selection=selection, cv=3, random_state=4)
    est.fit(da.from_array(X, chunks=(200, 4)), da.from_array(y, chunks=200))
    assert sorted(np.bincount(est.cv_block_folds_)) == [4, 4, 4]
    grow, _, prune = est.split_.masks()
    fold = est.cv_block_folds_[np.arange(len(y)) // 200]
    grow_seed = np.random.RandomState(4).randint(2**31 - 1)
    tree = grow_cart(X[grow], y[grow], random_state=grow_seed)
    path = cost_complexity_path(tree, tree.node_counts(X[prune], y[prune], n_classes=2))
    betas = cv_temperatures(path.alphas)
    wrong, weight = [], []
    for k in range(3):
        g, p, t = grow & (fold != k), prune & (fold != k), fold == k
        tree_k = grow_cart(X[g], y[g], random_state=grow_seed)
        path_k = cost_complexity_path(tree_k, tree_k.node_counts(X[p], y[p], n_classes=2))
        wrong.append(path_k.misclassified(tree_k.node_counts(X[t], y[t], n_classes=2), betas))
        weight.append(float(t.sum()))
    mean = np.array(wrong).sum(axis=0) / np.sum(weight)
    np.testing.assert_array_equal(est.cv_results_["mean_risk"], mean)
    best = len(mean) - 1 - int(np.argmin(mean[::-1]))  # ties: the smaller tree
    if selection == "cv-1se":
        se = np.sqrt(mean * (1 - mean) / len(y))
        best = int(np.flatnonzero(mean <= mean[best] + se[best]).max())
    assert est.tree_ == tree
    assert est.selected_index_ == best
