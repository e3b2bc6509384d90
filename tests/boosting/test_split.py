"""One node: the three strategies against each other, brute force and the bounds."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.boosting import fit_binning
from prunus.boosting._bounds import threshold_bounds
from prunus.boosting._records import CRITERIA, new_workspace, search_settings
from prunus.boosting._split import RATE_FLOOR, _extrapolated_gap, _warm_row, split_node
from prunus.boosting._weight_order import weight_order_bound

from .conftest import brute_force_stump

# every split search of the kernel: the three strategies and adaptive's lower-bound-first rule
SEARCHES = {
    "exhaustive": dict(split_search="exhaustive"),
    "quick": dict(split_search="quick"),
    "adaptive": dict(split_search="adaptive"),
    "lower_first": dict(split_search="adaptive", adaptive_rule="lower_first"),
    "lower_first_extrapolated": dict(split_search="adaptive", adaptive_rule="lower_first", adaptive_extrapolate=True),
    # the estimator's default: the same, small nodes searched exhaustively
    "lower_first_small_nodes_exhaustive": dict(
        split_search="adaptive", adaptive_rule="lower_first", adaptive_extrapolate=True, exhaustive_below=0.5
    ),
}


def run_node(X, y, w, criterion, strategy, quick_init=0.5, quick_batches=4, adaptive_init=0.5, target_mix=0.0):
    n_classes = int(y.max()) + 1
    b = fit_binning(X)
    Xb = b.transform(X)
    feats = np.flatnonzero(b.n_bins >= 2).astype(np.int64)
    nbins = b.n_bins[feats]
    order = np.argsort(-w, kind="stable").astype(np.int64)
    settings = search_settings(
        criterion=criterion,
        n_classes=n_classes,
        quick_init=quick_init,
        quick_batches=quick_batches,
        adaptive_init=adaptive_init,
        min_batch=1,
        adaptive_target=target_mix,
        **SEARCHES[strategy],
    )
    slot, t, value, mk, node = split_node(Xb, order, y, w, feats, nbins, settings)
    lbwo = weight_order_bound(node, slot, value, new_workspace(len(feats), int(nbins.max()), n_classes))
    feature = int(feats[slot])
    return dict(
        feature=feature,
        threshold=float(b.thresholds[feature][t]),
        value=value,
        assessments=int(mk.sum()),
        n_feats=len(feats),
        lbwo=int(lbwo),
        mk=mk,
    )


def random_problem(seed, n, k, n_classes, n_values):
    rng = np.random.RandomState(seed)
    X = rng.randint(0, n_values, size=(n, k)).astype(float)
    y = rng.randint(0, n_classes, size=n)
    y[:n_classes] = np.arange(n_classes)
    # Informative feature 0 so the best split is not always a tie at the top.
    y = np.where(rng.rand(n) < 0.5, (X[:, 0] > n_values / 2).astype(int) % n_classes, y)
    w = rng.exponential(size=n) ** 3 if seed % 2 else np.ones(n)
    return X, y, w / w.sum()


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(5, 80),
    k=st.integers(1, 6),
    n_classes=st.integers(2, 4),
    n_values=st.integers(2, 6),
    criterion=st.sampled_from(["error", "entropy"]),
)
def test_strategies_agree_with_brute_force(seed, n, k, n_classes, n_values, criterion):
    X, y, w = random_problem(seed, n, k, n_classes, n_values)
    if np.all(X == X[0]):
        return
    value, feature, thr, _, _ = brute_force_stump(X, y, w, n_classes, criterion)
    res = {s: run_node(X, y, w, criterion, s) for s in SEARCHES}
    for s, r in res.items():
        assert (r["feature"], r["threshold"]) == (feature, thr), s
        assert r["value"] == pytest.approx(value, rel=1e-9, abs=1e-12)
    exhaustive = res["exhaustive"]["assessments"]
    assert exhaustive == n * res["exhaustive"]["n_feats"]
    for s in ("quick", "adaptive", "lower_first"):
        assert res[s]["lbwo"] <= res[s]["assessments"] <= exhaustive
        # the returned feature is always assessed on every example
        assert res[s]["mk"].max() == n


def test_strategies_agree_on_real_node(small_problems):
    for name, (X, y) in small_problems.items():
        w = np.random.RandomState(3).exponential(size=len(y)) ** 2
        w /= w.sum()
        for criterion in ("error", "entropy"):
            res = {s: run_node(X, y, w, criterion, s) for s in SEARCHES}
            assert len({(r["feature"], r["threshold"], r["value"]) for r in res.values()}) == 1, name
            exact_bins = max(len(np.unique(col)) for col in X.T) <= 256
            if exact_bins:  # else binning is approximate and brute force over raw values differs
                value, feature, thr, _, _ = brute_force_stump(X, y, w, int(y.max()) + 1, criterion)
                assert res["adaptive"]["feature"] == feature and res["adaptive"]["threshold"] == thr
                assert res["adaptive"]["value"] == pytest.approx(value, rel=1e-9)
            for s in ("quick", "adaptive", "lower_first"):
                assert res[s]["lbwo"] <= res[s]["assessments"] <= res["exhaustive"]["assessments"]


def true_values(bins, y, w, nb, n_classes, criterion):
    out = np.empty(nb - 1)
    for t in range(nb - 1):
        v = 0.0
        for side in (bins <= t, bins > t):
            cnt = np.bincount(y[side], weights=w[side], minlength=n_classes)
            if criterion == "error":
                v += cnt.sum() - cnt.max()
            else:
                nz = cnt[cnt > 0]
                v += -np.sum(nz * np.log2(nz / cnt.sum())) if cnt.sum() > 0 else 0.0
        out[t] = v
    return out


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(2, 60),
    n_classes=st.integers(2, 5),
    nb=st.integers(2, 8),
    criterion=st.sampled_from(["error", "entropy"]),
)
def test_intervals_contain_true_value_for_every_stump_and_m(seed, n, n_classes, nb, criterion):
    """L_m <= E_n <= U_m for every threshold and every prefix m (error and Appendix B)."""
    rng = np.random.RandomState(seed)
    bins = rng.randint(0, nb, size=n)
    y = rng.randint(0, n_classes, size=n)
    w = rng.exponential(size=n) ** 2
    w /= w.sum()
    order = np.argsort(-w, kind="stable")
    bins, y, w = bins[order], y[order], w[order]
    truth = true_values(bins, y, w, nb, n_classes, criterion)
    node_tot = np.bincount(y, weights=w, minlength=n_classes)
    present = np.count_nonzero(node_tot)
    lg_c = np.log2(present) if present > 1 else 0.0
    ws = new_workspace(1, nb, n_classes)
    L, U = ws.L, ws.U
    for m in range(n + 1):
        h = np.zeros((nb, n_classes))
        np.add.at(h, (bins[:m], y[:m]), w[:m])
        seen = h.sum(axis=0)
        unseen_cls = np.maximum(node_tot - seen, 0.0)
        threshold_bounds(
            h,
            nb,
            seen,
            unseen_cls,
            max(w[m:].sum(), 0.0),
            CRITERIA[criterion],
            lg_c,
            ws,
        )
        tol = 1e-12
        assert np.all(L[: nb - 1] <= truth + tol), m
        assert np.all(truth <= U[: nb - 1] + tol), m
        if m == n:  # the interval collapses to the exact value
            np.testing.assert_allclose(L[: nb - 1], truth, atol=1e-12)
            np.testing.assert_allclose(U[: nb - 1], truth, atol=1e-12)


def test_weight_order_bound_brute_force():
    """LB_wo equals the prefix scan done by hand with the brute-force error."""
    X, y, w = random_problem(7, 40, 4, 2, 5)
    r = run_node(X, y, w, "error", "adaptive")
    order = np.argsort(-w, kind="stable")
    best = r["value"]
    expected = len(y)
    for k in range(X.shape[1]):
        if k == r["feature"]:
            continue
        vals = np.unique(X[:, k])
        for m in range(len(y) + 1):
            sub = order[:m]
            lb = min(true_values(np.searchsorted(vals, X[sub, k]), y[sub], w[sub], len(vals), 2, "error"))
            if lb >= best:
                expected += m
                break
    assert r["lbwo"] == expected


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(20, 400), k=st.integers(2, 8), n_classes=st.integers(2, 4))
def test_lower_first_spends_no_more_than_weight_order_bound(seed, n, k, n_classes):
    # With target 0 and one-example batches, every batch of the lower-bound-first
    # rule is weight that the weight-order lower bound also needs (error
    # criterion: a unit of weight raises a lower bound by at most a unit), so
    # only the initial example of each feature may exceed LB_wo. Continuous
    # features and weights make exact ties between features improbable.
    rng = np.random.RandomState(seed)
    X = rng.rand(n, k)
    y = (X[:, 0] * n_classes + rng.rand(n) * 1.5).astype(int) % n_classes
    w = rng.exponential(size=n) ** 2
    w /= w.sum()
    r = run_node(X, y, w, "error", "lower_first", adaptive_init=1e-12, target_mix=0.0)
    assert r["lbwo"] <= r["assessments"] <= r["lbwo"] + r["n_feats"]
    ref = run_node(X, y, w, "error", "exhaustive")
    assert (r["feature"], r["threshold"], r["value"]) == (ref["feature"], ref["threshold"], ref["value"])


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n=st.integers(5, 120), k=st.integers(1, 5), n_classes=st.integers(2, 5))
def test_warm_row_leaves_the_workspace_unchanged(seed, n, k, n_classes):
    # The cache warm-up before a batch only reads: every array of the workspace, as a lower-bound-first search
    # left it (partly assessed histograms), is bit-identical after warming every feature slot.
    X, y, w = random_problem(seed, n, k, n_classes, 6)
    b = fit_binning(X)
    feats = np.flatnonzero(b.n_bins >= 2).astype(np.int64)
    if len(feats) == 0:
        return
    nbins = b.n_bins[feats]
    order = np.argsort(-w, kind="stable").astype(np.int64)
    cfg = search_settings(split_search="adaptive", adaptive_rule="lower_first", n_classes=n_classes)
    ws = new_workspace(len(feats), int(nbins.max()), n_classes)
    node = split_node(b.transform(X), order, y, w, feats, nbins, cfg, ws)[4]
    for reset in (False, True):
        if reset:  # no bin seen: the whole row is warmed
            ws.brange[:, 0] = ws.hist.shape[1]
            ws.brange[:, 1] = -1
        before = [np.array(a, copy=True) for a in ws]
        for s in range(len(feats)):
            _warm_row(node, ws, s)
        for name, old, new in zip(ws._fields, before, ws):
            np.testing.assert_array_equal(new, old, err_msg=name)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(5, 90),
    k=st.integers(1, 6),
    n_classes=st.integers(2, 5),
    strategy=st.sampled_from(sorted(SEARCHES)),
    criterion=st.sampled_from(sorted(CRITERIA)),
    sparse_codes=st.booleans(),
)
def test_a_reused_workspace_searches_like_a_fresh_one(seed, n, k, n_classes, strategy, criterion, sparse_codes):
    # Searches leave their histograms behind and the next search empties each row only when it first uses it.
    # A node searched after another one (more features, other bins) must find the same split with the same
    # assessments as in a fresh workspace; after it, every row is zero outside its seen bins and its class
    # sums are the running sums of the first ``mk`` examples.
    from scipy import sparse

    first = random_problem(seed + 1, n + 7, k + 2, n_classes, 9)
    X, y, w = random_problem(seed, n, k, n_classes, 4 + seed % 5)
    cfg = search_settings(criterion=criterion, n_classes=n_classes, min_batch=1, **SEARCHES[strategy])
    runs = []
    for Xp, yp, wp in (first, (X, y, w)):
        b = fit_binning(Xp)
        codes = b.transform_sparse(sparse.csr_matrix(Xp)) if sparse_codes else b.transform(Xp)
        feats = np.flatnonzero(b.n_bins >= 2).astype(np.int64)
        order = np.argsort(-wp, kind="stable").astype(np.int64)
        runs.append((codes, order, yp, wp, feats, b.n_bins[feats]))
    if len(runs[1][4]) == 0 or len(runs[0][4]) == 0:
        return
    ws = new_workspace(k + 2, 9, n_classes)
    split_node(*runs[0], cfg, ws)
    reused = split_node(*runs[1], cfg, ws)
    fresh = split_node(*runs[1], cfg, new_workspace(k + 2, 9, n_classes))
    assert reused[:3] == fresh[:3]
    np.testing.assert_array_equal(reused[3], fresh[3])
    order = runs[1][1]
    for s, m in enumerate(reused[3]):
        lo, hi = ws.brange[s]
        outside = np.ones(ws.hist.shape[1], dtype=bool)
        outside[max(lo, 0) : hi + 1] = False
        assert not ws.hist[s][outside].any() and not ws.occ[s][outside].any()
        running = np.zeros(n_classes)
        for i in order[:m]:
            running[y[i]] += w[i]
        np.testing.assert_array_equal(ws.seen_tot[s], running)


@given(
    m=st.lists(st.integers(0, 40), min_size=2, max_size=2, unique=True),
    rise=st.floats(-1.0, 2.0),
    gap=st.floats(0.0, 3.0),
    first=st.booleans(),
    first_rate=st.one_of(st.just(-1.0), st.floats(0.0, 1.0)),
)
@settings(max_examples=80, deadline=None)
def test_extrapolated_gap_divides_by_the_expected_rate(m, rise, gap, first, first_rate):
    # the batch of the extrapolated lower-first rule: the gap over the bound's rise per unit of weight in the
    # feature's last batch, clamped to [RATE_FLOOR, 1]; at its first batch after the initial pass, over the
    # node's mean first-batch rate (the bare gap when there is none: first_rate < 0)
    Zp = np.concatenate([[0.0], np.cumsum(np.linspace(1.0, 0.1, 40))])
    m0, m1 = sorted(m)
    ws = new_workspace(1, 4, 2)
    dz = Zp[m1] - Zp[m0]
    ws.upd[0] = [m1, 0.25 + rise * dz, -1.0 if first else m0, 0.25]
    got = _extrapolated_gap(Zp, ws, 0, gap, first_rate)
    if first:
        rate = None if first_rate < 0.0 else first_rate
    else:
        rate = rise if dz > 0.0 else None
    if rate is None:
        assert got == gap
    else:
        rate = min(max(rate, RATE_FLOOR), 1.0)
        np.testing.assert_allclose(got, gap / rate, rtol=1e-12)
        assert gap <= got <= gap / RATE_FLOOR + 1e-12


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(4, 120),
    k=st.integers(1, 5),
    n_classes=st.integers(2, 4),
    n_values=st.integers(2, 12),
    below=st.sampled_from([0.0, 0.1, 0.5, 1.0, 4.0]),
)
def test_small_nodes_are_searched_exhaustively(seed, n, k, n_classes, n_values, below):
    # A node is searched exhaustively exactly when examples x features <= below x the cells of the
    # features' tables (bins x classes present in the node): every feature then assesses every example.
    X, y, w = random_problem(seed, n, k, n_classes, n_values)
    b = fit_binning(X)
    feats = np.flatnonzero(b.n_bins >= 2).astype(np.int64)
    if len(feats) == 0:
        return
    nbins = b.n_bins[feats]
    cfg = search_settings(
        split_search="adaptive", adaptive_rule="lower_first", n_classes=n_classes, exhaustive_below=below
    )
    order = np.argsort(-w, kind="stable").astype(np.int64)
    slot, t, _, mk, _ = split_node(b.transform(X), order, y, w, feats, nbins, cfg)
    present = np.unique(y[w > 0]).shape[0]
    if n * len(feats) <= below * nbins.sum() * present:
        np.testing.assert_array_equal(mk, np.full(len(feats), n))
    else:
        # otherwise the rule prunes as without the switch: the counts of below=0
        plain = search_settings(split_search="adaptive", adaptive_rule="lower_first", n_classes=n_classes)
        np.testing.assert_array_equal(mk, split_node(b.transform(X), order, y, w, feats, nbins, plain)[3])
    # either way the split of exhaustive search
    exhaustive = split_node(b.transform(X), order, y, w, feats, nbins, search_settings(n_classes=n_classes))
    assert (slot, t) == exhaustive[:2]
