"""Sparse CSR / CSC input: the same bins and the same ensembles as the dense matrix; LIBSVM files."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import sparse

from prunus.boosting import ExactBoostClassifier, fit_binning
from prunus.datasets import load_svmlight


def sparse_problem(seed, n=300, k=12, density=0.15, n_classes=2):
    rng = np.random.RandomState(seed)
    X = sparse.random(
        n,
        k,
        density=density,
        format="csr",
        random_state=rng,
        data_rvs=lambda m: rng.choice([-2.0, -1.0, 0.5, 1.0, 3.0, 7.0], size=m),
    )
    dense = X.toarray()
    y = ((dense[:, 0] > 0).astype(int) + (dense[:, 1] < 0) + rng.randint(0, 2, n)) % n_classes
    return X, dense, y


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 10_000), density=st.floats(0.0, 1.0), max_bins=st.integers(2, 8), explicit_zeros=st.booleans()
)
def test_sparse_binning_equals_dense(seed, density, max_bins, explicit_zeros):
    rng = np.random.RandomState(seed)
    X = sparse.random(
        40,
        5,
        density=density,
        format="csc",
        random_state=rng,
        data_rvs=lambda m: rng.randint(-3, 4, size=m).astype(float),
    )
    if explicit_zeros and X.nnz:
        X.data[::2] = 0.0  # stored zeros count as zeros
    dense = X.toarray()
    a, b = fit_binning(dense, max_bins), fit_binning(X, max_bins)
    for ta, tb in zip(a.thresholds, b.thresholds):
        np.testing.assert_array_equal(ta, tb)
    np.testing.assert_array_equal(a.transform(dense), b.transform(X))
    np.testing.assert_array_equal(a.transform(dense), b.transform(X.tocsr()))
    # the sparse codes: every code not listed is the bin of 0.0, listed codes never are
    sb = b.transform_sparse(X.tocsr())
    rebuilt = np.repeat(sb.zbin[:, None], X.shape[0], axis=1).astype(a.transform(dense).dtype)
    for i in range(X.shape[0]):
        row = slice(sb.indptr[i], sb.indptr[i + 1])
        assert np.all(np.diff(sb.feat[row]) > 0)
        assert np.all(sb.bins[row] != sb.zbin[sb.feat[row]])
        rebuilt[sb.feat[row], i] = sb.bins[row]
    np.testing.assert_array_equal(rebuilt, a.transform(dense))


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize(
    "params",
    [
        dict(split_search="exhaustive", max_depth=2),
        dict(split_search="adaptive", max_depth=3),
        dict(split_search="adaptive", adaptive_rule="lower_first", min_batch=1, max_depth=1, criterion="entropy"),
        dict(split_search="quick", max_depth=2, max_bins=4),
    ],
)
def test_sparse_fit_predict_equals_dense(fmt, params):
    X, dense, y = sparse_problem(3, n_classes=3)
    Xs = X.asformat(fmt)
    a = ExactBoostClassifier(n_estimators=10, **params).fit(dense, y)
    b = ExactBoostClassifier(n_estimators=10, **params).fit(Xs, y)
    assert a.estimators_ == b.estimators_
    np.testing.assert_array_equal(a.estimator_weights_, b.estimator_weights_)
    np.testing.assert_array_equal(a.assessments_, b.assessments_)
    np.testing.assert_array_equal(a.decision_function(dense), b.decision_function(Xs))
    np.testing.assert_array_equal(a.predict(dense), b.predict(X.tocsc()))


def test_load_svmlight_round_trip(tmp_path):
    from sklearn.datasets import dump_svmlight_file

    X, dense, y = sparse_problem(5)
    labels = np.where(y == 1, 1, -1)
    path = tmp_path / "toy.svm"
    dump_svmlight_file(X, labels, str(path), zero_based=False)
    data = load_svmlight(path)
    assert sparse.isspmatrix_csr(data.X) or sparse.issparse(data.X)
    np.testing.assert_array_equal(data.X.toarray(), dense)
    np.testing.assert_array_equal(data.target_names[data.y], np.where(labels == 1, "1", "-1"))
    est = ExactBoostClassifier(n_estimators=5, max_depth=2).fit(data.X, data.y)
    assert est.score(data.X, data.y) > 0.5
    wide = load_svmlight(path, n_features=20)
    assert wide.X.shape == (len(y), 20)


def test_load_svmlight_bad_input(tmp_path):
    with pytest.raises(FileNotFoundError, match="path"):
        load_svmlight(tmp_path / "missing.svm")
    bad = tmp_path / "bad.svm"
    bad.write_text("this is not svmlight\n")
    with pytest.raises(ValueError, match="path"):
        load_svmlight(bad)
    with pytest.raises(ValueError, match="n_features"):
        load_svmlight(bad, n_features=0)


# every split search of the kernel, with the settings the estimator exposes
SPARSE_SEARCHES = [
    dict(split_search="exhaustive"),
    dict(split_search="quick"),
    dict(split_search="quick", quick_init=0.5, quick_batches=3),
    dict(split_search="adaptive", adaptive_rule="gap", min_batch=1, adaptive_init=0.5),
    dict(split_search="adaptive", adaptive_rule="gap", min_batch="auto", adaptive_init=0.9),
    dict(split_search="adaptive"),  # lower_first, the default
    dict(split_search="adaptive", adaptive_rule="lower_first", adaptive_target=0.0),
]


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 100_000),
    n=st.integers(8, 120),
    k=st.integers(1, 9),
    density=st.floats(0.0, 0.6),
    n_values=st.integers(1, 6),
    max_bins=st.integers(2, 6),
    n_classes=st.integers(2, 4),
    search=st.sampled_from(SPARSE_SEARCHES),
    criterion=st.sampled_from(["error", "entropy"]),
    feature_fraction=st.sampled_from([1.0, 0.6]),
    weight_trim=st.sampled_from([None, 0.9]),
    explicit_zeros=st.booleans(),
    fmt=st.sampled_from(["csr", "csc"]),
)
def test_sparse_search_equals_dense(
    seed,
    n,
    k,
    density,
    n_values,
    max_bins,
    n_classes,
    search,
    criterion,
    feature_fraction,
    weight_trim,
    explicit_zeros,
    fmt,
):
    # Several values per feature, negative ones among them, stored zeros, and few bins (quantile bins
    # then merge 0.0 with its neighbours): the sparse scans must build the dense scans' ensemble with
    # the same assessments and the same LB_wo, round after round.
    rng = np.random.RandomState(seed)
    values = rng.choice([-3.0, -1.5, -0.5, 0.25, 1.0, 2.0, 4.5], size=n_values, replace=False)
    X = sparse.random(
        n, k, density=density, format="coo", random_state=rng, data_rvs=lambda m: rng.choice(values, size=m)
    )
    if explicit_zeros and X.nnz:
        X.data[::3] = 0.0
    X = X.asformat(fmt)
    dense = X.toarray()
    y = rng.randint(0, n_classes, size=n)
    y[dense[:, 0] > 0] = (y[dense[:, 0] > 0] + 1) % n_classes  # a feature that tells something
    y[:n_classes] = np.arange(n_classes)
    params = dict(
        n_estimators=6,
        max_depth=int(rng.randint(1, 4)),
        max_bins=max_bins,
        criterion=criterion,
        feature_fraction=feature_fraction,
        weight_trim=weight_trim,
        track_bounds=True,
        random_state=0,
        **search,
    )
    a = ExactBoostClassifier(**params).fit(dense, y)
    b = ExactBoostClassifier(**params).fit(X, y)
    assert a.estimators_ == b.estimators_
    for la, lb in zip(a.leaf_labels_, b.leaf_labels_):
        np.testing.assert_array_equal(la, lb)
    np.testing.assert_array_equal(a.estimator_weights_, b.estimator_weights_)
    np.testing.assert_array_equal(a.assessments_, b.assessments_)
    np.testing.assert_array_equal(a.exhaustive_assessments_, b.exhaustive_assessments_)
    np.testing.assert_array_equal(a.weight_order_bound_, b.weight_order_bound_)
    np.testing.assert_array_equal(a.predict(dense), b.predict(X))
