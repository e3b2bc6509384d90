import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.boosting import fit_binning, merge_weight_order


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 200), st.integers(0, 10_000), st.integers(1, 5), st.floats(0.01, 5.0))
def test_merge_equals_stable_argsort(n, seed, n_levels, alpha):
    rng = np.random.RandomState(seed)
    # Few distinct weights so that ties are frequent.
    w = rng.randint(1, n_levels + 1, size=n).astype(float) / n_levels
    order = np.argsort(-w, kind="stable").astype(np.int64)
    for _ in range(3):
        incorrect = rng.rand(n) < 0.3
        w = w.copy()
        w[incorrect] *= np.exp(alpha)
        w /= w.sum()
        order = merge_weight_order(order, w, incorrect)
        np.testing.assert_array_equal(order, np.argsort(-w, kind="stable"))


def test_merge_within_boosting_matches_argsort():
    from sklearn.datasets import load_wine

    from prunus.boosting import ExactBoostClassifier

    X, y = load_wine(return_X_y=True)
    seen = []

    def check(t, state):
        seen.append(t)
        np.testing.assert_array_equal(state["order"], np.argsort(-state["w"], kind="stable"))

    ExactBoostClassifier(n_estimators=15, max_depth=2)._fit(X, y, callback=check)
    assert len(seen) == 15


def test_binning_exact_when_few_values():
    rng = np.random.RandomState(0)
    X = np.c_[rng.randint(0, 7, 100), rng.randn(100), np.ones(100)]
    b = fit_binning(X, max_bins=256)
    assert list(b.n_bins) == [7, 100, 1]
    Xb = b.transform(X)
    for k in range(2):
        vals = np.unique(X[:, k])
        np.testing.assert_array_equal(Xb[k], np.searchsorted(vals, X[:, k]))
        # raw thresholds route exactly like bins: x <= thr[t]  <=>  bin <= t
        for t, thr in enumerate(b.thresholds[k]):
            np.testing.assert_array_equal(X[:, k] <= thr, Xb[k] <= t)


def test_binning_quantiles_respect_max_bins():
    rng = np.random.RandomState(1)
    X = rng.randn(5000, 3)
    X[:, 2] = np.round(X[:, 2], 1)
    b = fit_binning(X, max_bins=32)
    assert b.n_bins.max() <= 32
    Xb = b.transform(X)
    for k in range(3):
        assert Xb[k].max() == b.n_bins[k] - 1
        counts = np.bincount(Xb[k])
        if k < 2:  # continuous: roughly equal-count bins
            assert counts.max() < 3 * 5000 / 32
        for t, thr in enumerate(b.thresholds[k]):
            np.testing.assert_array_equal(X[:, k] <= thr, Xb[k] <= t)


def test_binning_adjacent_floats():
    a = 1.0
    X = np.array([[a], [np.nextafter(a, 2.0)]])
    b = fit_binning(X)
    Xb = b.transform(X)
    assert list(Xb[0]) == [0, 1]
    assert X[0, 0] <= b.thresholds[0][0] < X[1, 0]


@settings(max_examples=60, deadline=None)
@given(
    st.integers(2, 120),
    st.integers(0, 10_000),
    st.sampled_from([2, 3, 16, 256, 300]),
    st.booleans(),
)
def test_fit_transform_equals_fit_binning_then_transform(n, seed, max_bins, fortran):
    """The lookup-table path for integer columns gives the edges and codes of unique + searchsorted."""
    from prunus.boosting._binning import fit_transform

    rng = np.random.RandomState(seed)
    cols = [
        rng.randint(0, 7, n),  # few levels
        rng.randint(-2000, 2000, n),  # more levels than max_bins: quantile edges
        rng.randn(n),  # not integers: the general path
        np.ones(n),  # constant
        np.where(rng.rand(n) < 0.5, -0.0, 1.0),  # signed zeros
        np.round(rng.randn(n) * 3) * 2.0**40,  # integers too far apart for a table
        rng.randint(250, 262, n) + 0.5 * (np.arange(n) == 0),  # one fraction: general path
        2.0**52 - rng.randint(0, 5, n),  # integers at the edge of the exactly representable ones: table
        2.0**51 - 0.5 * rng.randint(0, 5, n),  # halves just below 2^51: the general path
    ]
    X = np.column_stack(cols).astype(np.float64)
    if fortran:
        X = np.asfortranarray(X)
    ref = fit_binning(X, max_bins)
    binning, codes = fit_transform(X, max_bins)
    expected = ref.transform(X)
    assert codes.dtype == expected.dtype
    np.testing.assert_array_equal(codes, expected)
    np.testing.assert_array_equal(binning.n_bins, ref.n_bins)
    for got, want in zip(binning.thresholds, ref.thresholds):
        np.testing.assert_array_equal(got, want)
