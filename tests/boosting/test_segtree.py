"""Pair segment trees of the incremental error bounds against a naive prefix scan."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.boosting import ExactBoostClassifier, _classifier
from prunus.boosting._records import new_workspace
from prunus.boosting._segtree import add_examples, build, lower_bound, pair_index


def naive_lower_bound(h, hi):
    """``min_t`` best-labelling error over thresholds ``t < hi`` and the one-label value, by brute force."""
    z = h.sum(axis=0)
    best = z.sum() - z.max()
    for t in range(hi):
        left = h[: t + 1].sum(axis=0)
        right = z - left
        best = min(best, z.sum() - left.max() - right.max())
    return max(best, 0.0)


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    nb=st.integers(2, 19),
    n_classes=st.integers(2, 5),
    n=st.integers(1, 60),
    cut=st.floats(0.0, 1.0),
)
def test_point_updates_and_rebuild_match_naive_scan(seed, nb, n_classes, n, cut):
    rng = np.random.RandomState(seed)
    Xb = rng.randint(0, nb, size=(1, n)).astype(np.uint8)
    yn = rng.randint(0, n_classes, size=n).astype(np.int64)
    wn = np.sort(rng.exponential(size=n))[::-1].copy()
    idx = np.arange(n, dtype=np.int64)
    ws = new_workspace(1, nb, n_classes, incremental=True)
    present = np.unique(yn).astype(np.int64)
    if present.shape[0] < 2:
        return
    P = present.shape[0]
    rank = np.zeros(n_classes, dtype=np.int64)
    rank[present] = np.arange(P)
    T = nb - 1
    m = int(cut * n)
    hist = np.zeros((1, nb, n_classes))
    np.add.at(hist[0], (Xb[0, :m], yn[:m]), wn[:m])
    build(hist, 0, T, present, ws.tsum, ws.tmin, ws.tmax)  # the first m examples by a rebuild
    add_examples(Xb, 0, 0, T, idx, yn, wn, m, n, rank, P, ws.tsum, ws.tmin, ws.tmax)  # the rest one by one
    full = np.zeros((nb, n_classes))
    np.add.at(full, (Xb[0], yn), wn)
    for i in range(P):
        for j in range(i + 1, P):
            q = pair_index(i, j, P)
            prefix = np.cumsum(full[:T, present[j]] - full[:T, present[i]])
            np.testing.assert_allclose(ws.tsum[0, q, 1], prefix[-1], atol=1e-9)
            np.testing.assert_allclose(ws.tmin[0, q, 1], prefix.min(), atol=1e-9)
            np.testing.assert_allclose(ws.tmax[0, q, 1], prefix.max(), atol=1e-9)
    seen = full.sum(axis=0)[None, :]
    for hi in range(T + 1):
        got = lower_bound(seen, 0, hi, present, ws.tsum, ws.tmin, ws.tmax)
        np.testing.assert_allclose(got, naive_lower_bound(full, hi), atol=1e-9)


def test_incremental_bounds_build_the_same_ensembles(monkeypatch):
    from sklearn.datasets import load_wine

    X, y = load_wine(return_X_y=True)
    ref = ExactBoostClassifier(n_estimators=5, max_depth=2).fit(X, y)
    monkeypatch.setattr(_classifier, "new_workspace", lambda *a: new_workspace(*a, incremental=True))
    inc = ExactBoostClassifier(n_estimators=5, max_depth=2).fit(X, y)
    for a, b in zip(ref.estimators_, inc.estimators_):
        np.testing.assert_array_equal(a.feature, b.feature)
        np.testing.assert_array_equal(a.threshold, b.threshold)
    np.testing.assert_array_equal(ref.estimator_weights_, inc.estimator_weights_)
    # the same assessments up to rounding-level choices between tied bounds
    assert abs(int(inc.assessments_.sum()) - int(ref.assessments_.sum())) <= 0.02 * ref.assessments_.sum()
