"""Counts, leaf ids and predictions over dask blocks equal the in-memory ones."""

import subprocess
import sys

import dask
import dask.array as da
import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus import CARTClassifier, PenalizedTreeClassifier
from prunus import distributed as pdist
from prunus.distributed import DaskCARTClassifier, DaskPACBayesTreeClassifier
from prunus.tree import grow_cart

from .conftest import labelled


def brute_counts(tree, X, y, w, n_classes):
    """Independent reference: walk every row from the root, adding its weight to each node met."""
    counts = np.zeros((tree.n_nodes, n_classes))
    for row, label, weight in zip(X, y, w):
        node = 0
        while True:
            counts[node, label] += weight
            if tree.children_left[node] == -1:
                break
            go_left = row[tree.feature[node]] <= tree.threshold[node]
            node = tree.children_left[node] if go_left else tree.children_right[node]
    return counts


def test_import_prunus_never_imports_dask():
    code = (
        "import sys, prunus, prunus.distributed, prunus.pruning, prunus.voting, prunus.tree\n"
        "prunus.CARTClassifier(); prunus.PACBayesTreeClassifier(); prunus.distributed.DaskCARTClassifier()\n"
        "assert 'dask' not in sys.modules, 'dask imported'\n"
        "assert 'distributed' not in sys.modules, 'distributed imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


@pytest.mark.parametrize("chunks", [(1000, 4), (337, 2), (1, 4)])
def test_counts_equal_in_memory_and_brute_force(client, chunks):
    X, y = labelled(n=2000 if chunks[0] > 1 else 60)
    tree = grow_cart(X[::3], y[::3], max_depth=6, random_state=0)
    w = np.random.RandomState(1).randint(0, 5, size=X.shape[0]).astype(np.float64)
    Xd = da.from_array(X, chunks=chunks)
    yd = da.from_array(y, chunks=max(chunks[0] // 2, 1))  # other row chunks than X: realigned
    for weights, wd in ((None, None), (w, da.from_array(w, chunks=chunks[0]))):
        expected = tree.node_counts(X, y, weights, n_classes=3)
        got = pdist.node_counts(tree, Xd, yd, wd, n_classes=3)
        np.testing.assert_array_equal(got, expected)
        np.testing.assert_array_equal(got, brute_counts(tree, X, y, np.ones(len(y)) if weights is None else w, 3))


def test_counts_float_weights(client):
    X, y = labelled()
    tree = grow_cart(X[::2], y[::2], random_state=0)
    rng = np.random.RandomState(2)
    # Multiples of 1/8 below 2^20: every partial sum is exact, so any order gives the same float.
    dyadic = rng.randint(0, 2**10, size=X.shape[0]) / 8.0
    np.testing.assert_array_equal(
        pdist.node_counts(tree, da.from_array(X, chunks=300), y, dyadic), tree.node_counts(X, y, dyadic)
    )
    # Other weights: the same sums in another order.
    w = rng.exponential(size=X.shape[0])
    np.testing.assert_allclose(
        pdist.node_counts(tree, da.from_array(X, chunks=300), y, da.from_array(w, chunks=300)),
        tree.node_counts(X, y, w),
        rtol=1e-12,
        atol=0,
    )


def test_counts_default_n_classes_pads_blocks(client):
    X, y = labelled(n=900)
    y = np.where(np.arange(900) < 800, y % 2, y)  # class 2 only in the last block
    tree = grow_cart(X, y, max_depth=4, random_state=0)
    got = pdist.node_counts(tree, da.from_array(X, chunks=300), da.from_array(y, chunks=300))
    np.testing.assert_array_equal(got, tree.node_counts(X, y))
    assert got.shape == (tree.n_nodes, 3)


def test_dataframe_input(client):
    X, y = labelled(n=1500)
    tree = grow_cart(X[::2], y[::2], random_state=0)
    df = pd.DataFrame(X, columns=list("abcd"))
    df["a"] = df["a"].astype(np.float32).astype(np.float64)  # exact in both dtypes
    X = df.to_numpy()
    ddf = dd.from_pandas(df, npartitions=4)
    ys = dd.from_pandas(pd.Series(y), npartitions=4)
    expected = tree.node_counts(X, y)
    np.testing.assert_array_equal(pdist.node_counts(tree, ddf, ys), expected)
    np.testing.assert_array_equal(pdist.node_counts(tree, ddf, y), expected)  # labels in memory
    np.testing.assert_array_equal(pdist.apply(tree, ddf).compute(), tree.apply(X))
    est = DaskCARTClassifier(selection="alpha", alpha=0.01, random_state=0).fit(X, y)
    assert est.score(ddf, ys) == pytest.approx(est.score(X, y), abs=1e-12)  # partitions of unknown length
    np.testing.assert_array_equal(est.predict(ddf).compute(), est.predict(X))
    bad = ddf.assign(e=ddf["a"].astype(str))
    with pytest.raises(TypeError, match="numeric"):
        pdist.node_counts(tree, bad.drop(columns=["d"]), ys)


def test_predictions_equal(client):
    X, y = labelled(n=1200)
    labels = np.array(["low", "mid", "high"])[y]
    Xd = da.from_array(X, chunks=(250, 4))
    w = np.random.RandomState(0).randint(1, 4, size=len(y)).astype(float)
    for est in (
        DaskCARTClassifier(method="M2", random_state=0),
        DaskPACBayesTreeClassifier(partition="kd", lambda1=1.0, lambda2=1.0, random_state=0),
    ):
        est.fit(X, labels)
        pred = est.predict(Xd)
        assert isinstance(pred, da.Array)
        np.testing.assert_array_equal(pred.compute(), est.predict(X))
        np.testing.assert_array_equal(est.predict_proba(Xd).compute(), est.predict_proba(X))
        if hasattr(est, "apply"):
            np.testing.assert_array_equal(est.apply(Xd).compute(), est.apply(X))
        assert est.score(Xd, labels) == pytest.approx(est.score(X, labels), abs=1e-12)
        assert est.score(Xd, da.from_array(labels, chunks=500), da.from_array(w, chunks=100)) == pytest.approx(
            est.score(X, labels, w), abs=1e-12
        )
    # Any fitted estimator, or a Tree with one value per node, through prunus.distributed.predict.
    penalized = PenalizedTreeClassifier(partition="cart", lam=1.0, random_state=0).fit(X, labels)
    np.testing.assert_array_equal(pdist.predict(penalized, Xd).compute(), penalized.predict(X))
    np.testing.assert_array_equal(
        pdist.predict(penalized, Xd, method="predict_proba").compute(), penalized.predict_proba(X)
    )
    values = np.arange(penalized.tree_.n_nodes) * 10
    np.testing.assert_array_equal(
        pdist.predict(penalized.tree_, Xd, values).compute(), values[penalized.tree_.apply(X)]
    )


def test_bad_input_is_refused_before_or_during_compute(client):
    X, y = labelled(n=400)
    tree = grow_cart(X, y, max_depth=3, random_state=0)
    with pytest.raises(ValueError, match="features"):
        pdist.node_counts(tree, da.from_array(X[:, :3], chunks=100), y)
    with pytest.raises(ValueError, match="rows"):
        pdist.node_counts(tree, da.from_array(X, chunks=100), y[:-1])
    bad = X.copy()
    bad[350, 1] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        pdist.node_counts(tree, da.from_array(bad, chunks=100), y)
    missing = X.copy()
    missing[::7, 0] = np.nan  # NaN is a missing value: routed as in memory
    np.testing.assert_array_equal(
        pdist.node_counts(tree, da.from_array(missing, chunks=100), y), tree.node_counts(missing, y)
    )
    with pytest.raises(ValueError, match="sample_weight"):
        pdist.node_counts(tree, da.from_array(X, chunks=100), y, -np.ones(len(y)))
    with pytest.raises(ValueError, match="split_every"):
        pdist.node_counts(tree, da.from_array(X, chunks=100), y, split_every=1)
    est = DaskCARTClassifier(method="M2", random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(da.from_array(X[:, :2], chunks=100))


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(1, 120),
    block=st.integers(1, 50),
    split_every=st.integers(2, 5),
    seed=st.integers(0, 2**16),
)
def test_counts_property(n, block, split_every, seed):
    """Any row chunking and reduction fan-in gives the in-memory counts (integer weights)."""
    rng = np.random.RandomState(seed)
    X = rng.randint(0, 4, size=(n, 2)).astype(float)
    y = rng.randint(0, 3, size=n)
    w = rng.randint(0, 3, size=n).astype(float)
    tree = grow_cart(rng.randint(0, 4, size=(30, 2)).astype(float), rng.randint(0, 3, size=30), random_state=0)
    with dask.config.set(scheduler="synchronous"):
        got = pdist.node_counts(tree, da.from_array(X, chunks=(block, 2)), y, w, n_classes=3, split_every=split_every)
    np.testing.assert_array_equal(got, tree.node_counts(X, y, w, n_classes=3))


def test_tree_methods_refuse_dask_input_naming_the_functions():
    X, y = labelled(n=900)
    tree = grow_cart(X[::2], y[::2], random_state=0)
    Xd = da.from_array(X, chunks=200)
    with pytest.raises(TypeError, match=r"prunus\.distributed\.node_counts"):
        tree.node_counts(Xd, da.from_array(y, chunks=200))
    with pytest.raises(TypeError, match=r"prunus\.distributed\.apply"):
        tree.apply(Xd)
    with pytest.raises(TypeError, match="DaskCARTClassifier"):
        CARTClassifier(random_state=0).fit(X, y).predict(Xd)
