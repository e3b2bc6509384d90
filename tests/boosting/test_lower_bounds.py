"""LB_exact (integer program) against brute-force subset enumeration, and LB_exact <= LB_wo."""

from itertools import combinations

import numpy as np
import pytest

from prunus.boosting import exact_lower_bound, fit_binning


def brute_exact(X, y, w):
    """Smallest subset proving each non-best feature no better, by enumeration."""
    w = w / w.sum()
    n = len(y)
    b = fit_binning(X)
    Xb = b.transform(X)
    best = np.inf
    stumps = {}
    for k in range(X.shape[1]):
        mis = [y == 1, y == 0]  # constant labellings
        for t in range(b.n_bins[k] - 1):
            m01 = np.where(Xb[k] <= t, y == 1, y == 0)
            mis += [m01, ~m01]
        stumps[k] = np.array(mis)
        if b.n_bins[k] >= 2:
            best = min(best, (stumps[k][2:] * w).sum(axis=1).min())
    out = {}
    for k in range(X.shape[1]):
        if b.n_bins[k] < 2:
            continue
        for size in range(n + 1):
            if any(
                np.all((stumps[k][:, list(M)] * w[list(M)]).sum(axis=1) >= best - 1e-12)
                for M in combinations(range(n), size)
            ):
                out[k] = size
                break
    return best, out


@pytest.mark.parametrize("seed", range(6))
def test_exact_lower_bound_matches_brute_force(seed):
    rng = np.random.RandomState(seed)
    n = 9
    X = rng.randint(0, 3, size=(n, 3)).astype(float)
    y = rng.randint(0, 2, size=n)
    y[:2] = [0, 1]
    w = rng.exponential(size=n)
    if np.all(X == X[0]):
        return
    res = exact_lower_bound(X, y, w)
    best, per = brute_exact(X, y, w)
    assert res.best_error == pytest.approx(best)
    assert res.optimal
    feats = sorted(per)
    for s, k in enumerate(feats):
        if k == res.best_feature:
            assert res.per_feature_exact[s] == n
        else:
            assert res.per_feature_exact[s] == per[k], (k, res.per_feature_exact, per)
    assert res.lb_exact <= res.lb_wo
    assert np.all(res.per_feature_exact <= res.per_feature_wo)


def test_exact_below_weight_order_on_real_data():
    from sklearn.datasets import load_breast_cancer

    X, y = load_breast_cancer(return_X_y=True)
    rng = np.random.RandomState(0)
    idx = rng.choice(len(y), 120, replace=False)
    w = rng.exponential(size=120) ** 2
    res = exact_lower_bound(X[idx][:, :8], y[idx], w, time_limit=20)
    assert res.lb_exact <= res.lb_wo <= 120 * 8
    assert res.lb_exact >= 120  # the best feature alone needs every example


def test_exact_lower_bound_bad_input():
    X = np.random.rand(10, 2)
    with pytest.raises(ValueError, match="binary"):
        exact_lower_bound(X, np.arange(10) % 3)
    with pytest.raises(ValueError, match="sample_weight"):
        exact_lower_bound(X, np.arange(10) % 2, sample_weight=-np.ones(10))
