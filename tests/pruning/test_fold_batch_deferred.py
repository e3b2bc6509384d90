"""The batched folds' deferred surrogate searches: a fold's growth leaves the
search of a node none of whose training rows misses the split's feature for
later; completed over the node's training rows, the surrogates are those the
one-fold growth (``CARTGrower.grow_arrays``, every search over presorted
segments) finds, node by node, exactly (integer weights)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.pruning import _fold_batch
from prunus.pruning import selection as sel
from prunus.pruning._folds import fold_of_rows, folds_of
from prunus.tree._surrogate import DEFERRED, _gather_surrogates
from prunus.tree.cart import CARTGrower, GrowthParams


def _table(rng, n, d, n_classes, n_levels, nan_rate):
    """Numeric features of many or few values and categorical ones; NaN at
    ``nan_rate`` in the odd features only, so that many nodes split on a
    complete feature (their searches deferred)."""
    X = np.empty((n, d))
    n_cat = np.zeros(d, dtype=np.int64)
    for f in range(d):
        kind = f % 3
        if kind == 0:
            X[:, f] = rng.normal(size=n).round(1)
        elif kind == 1:
            X[:, f] = rng.integers(0, 4, n)
        else:
            n_cat[f] = n_levels
            X[:, f] = rng.integers(0, n_levels, n)
        if f % 2 == 1:
            X[rng.random(n) < nan_rate, f] = np.nan
    y = (np.nan_to_num(X[:, 0]) + rng.integers(0, 2, n)).astype(np.int64) % n_classes
    return X, y, n_cat


def _completed(sample, growth, weight, train, k):
    """Fold ``k``'s nodes and its store with every deferred search done, and how many were deferred."""
    nodes, store = _fold_batch._grow_fold(sample, growth, weight, k)
    left, right, feature, threshold, missing_left, counts, bits = nodes
    tables = (store.n_found, store.feature, store.threshold, store.left_below, store.bits, store.known)
    n_cat = growth.shared.plain.n_categories
    leaves = np.empty(train.shape[0], dtype=np.int64)
    _fold_batch._training_leaves(sample.X, (train, weight), nodes, tables, n_cat, leaves)
    deferred = np.flatnonzero(store.n_found[: left.shape[0]] == DEFERRED)
    for node in deferred:
        assert left[node] != -1  # only splits search
        _fold_batch._find_deferred(sample.X, growth.shared.plain, weight, (train, leaves), nodes, store, node)
    return nodes, store, deferred.shape[0]


def _check_fold(job, sample, growth, rows, k):
    train = rows.train[rows.train_offsets[k] : rows.train_offsets[k + 1]]
    weight = np.zeros(job.weight.shape[0])
    weight[train] = job.weight[train]
    if not (weight > 0).any():
        return 0
    want = job.grower.grow_arrays(job.params, weight, job.grow_seed)
    nodes, store, n_deferred = _completed(sample, growth, weight, train, k)
    for got, expected in zip(nodes, want[:7]):
        np.testing.assert_array_equal(got, expected)
    if want[7] is None:
        assert store.n_found.shape[0] == 0
        return 0
    left = nodes[0]
    offsets, feature, threshold, left_below, bits, known, agreement, adj = _gather_surrogates(
        store, left.shape[0], left == -1
    )
    s = want[7]
    np.testing.assert_array_equal(offsets, s.offsets)
    np.testing.assert_array_equal(feature, s.feature)
    np.testing.assert_array_equal(threshold, s.threshold)
    np.testing.assert_array_equal(left_below, s.left_below)
    np.testing.assert_array_equal(bits, s.category_bits.view(np.int64))
    np.testing.assert_array_equal(known, s.known_bits.view(np.int64))
    np.testing.assert_array_equal(agreement, s.agreement)
    np.testing.assert_array_equal(adj, s.adj)
    return n_deferred


def _run(seed, n, d, n_classes, n_levels, nan_rate, max_surrogates, weights, n_folds, criterion="gini"):
    rng = np.random.default_rng(seed)
    X, y, n_cat = _table(rng, n, d, n_classes, n_levels, nan_rate)
    w = np.ones(n) if weights == "unit" else rng.integers(0, 4, n).astype(float)
    w[0] = max(w[0], 1.0)
    grower = CARTGrower(X, y, n_classes, n_categories=n_cat)
    params = GrowthParams(criterion, None, 2, 1, 0.0, None, None, max_surrogates=max_surrogates)
    job = sel.FoldJob(grower, w, "M2", params, int(rng.integers(0, 1000)), None, True)
    folds = list(folds_of(fold_of_rows(n, n_folds, seed % 1000, None), n_folds))
    records = _fold_batch.batch_records(job, folds)
    if records is None:
        return 0
    sample, growth, rows = records
    return sum(_check_fold(job, sample, growth, rows, k) for k in range(n_folds))


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(12, 80),
    d=st.integers(2, 6),
    n_classes=st.integers(2, 4),
    n_levels=st.integers(2, 12),
    nan_rate=st.sampled_from([0.05, 0.3, 0.6]),
    max_surrogates=st.sampled_from([1, 2, 5]),
    weights=st.sampled_from(["unit", "integer"]),
    n_folds=st.integers(2, 5),
    criterion=st.sampled_from(["gini", "entropy", "misclassification"]),
)
def test_deferred_searches_give_the_surrogates_of_the_one_fold_growth(
    seed, n, d, n_classes, n_levels, nan_rate, max_surrogates, weights, n_folds, criterion
):
    _run(seed, n, d, n_classes, n_levels, nan_rate, max_surrogates, weights, n_folds, criterion)


def test_searches_are_deferred():
    # Half the features complete: many splits need no surrogate during growth.
    assert _run(0, 80, 4, 3, 5, 0.3, 3, "unit", 4) > 5
