"""The lower-bound-first rule's tournament tree against its plain scan of every feature."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.boosting import ExactBoostClassifier, fit_binning
from prunus.boosting._records import new_workspace, search_settings
from prunus.boosting._split import (
    TOURNAMENT_MIN_FEATURES,
    _lower_first_choice,
    _lower_first_loop,
    _reset,
    _tournament_build,
    _tournament_choice,
    _tournament_update,
    split_node,
)


def _node(n_features, n=40, n_classes=3, seed=0):
    """A node record (and its search settings) of a random problem with ``n_features`` candidates."""
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, n_features)).astype(float)
    y = rng.integers(0, n_classes, size=n)
    w = rng.random(n) + 0.1
    b = fit_binning(X)
    feats = np.flatnonzero(b.n_bins >= 2).astype(np.int64)
    cfg = search_settings("adaptive", "error", n_classes, adaptive_rule="lower_first", min_batch=1)
    order = np.argsort(-w, kind="stable").astype(np.int64)
    *_, node = split_node(b.transform(X), order, y, w, feats, b.n_bins[feats], cfg)
    return node, cfg, feats.shape[0]


def _tree(S):
    P = 1
    while P < S:
        P *= 2
    return np.empty(2 * P, dtype=np.int64), np.empty(2 * P)


@settings(max_examples=60, deadline=None)
@given(
    S=st.integers(1, 70),
    values=st.lists(st.sampled_from([0.0, 0.25, 0.5, 1.0, np.inf]), min_size=2 * 70, max_size=2 * 70),
    done=st.lists(st.booleans(), min_size=70, max_size=70),
    moves=st.lists(st.tuples(st.integers(0, 69), st.sampled_from([0.0, 0.5, 2.0])), max_size=20),
)
def test_choice_equals_scan(S, values, done, moves):
    """Random bounds with many ties: same ``(j, target, U_min)`` as the scan, also after updates."""
    node, cfg, n_feats = _node(S, seed=S)
    S = n_feats
    ws = new_workspace(S, 8, 3)
    n = node.idx.shape[0]
    ws.lb[:S] = values[:S]
    ws.ub[:S] = np.maximum(ws.lb[:S], values[70 : 70 + S])
    ws.mk[:S] = np.where(np.array(done[:S]), n, 0)
    tl, tu = _tree(S)
    _tournament_build(ws.lb, ws.ub, tl, tu, S)
    assert _tournament_choice(node, ws, tl, tu) == _lower_first_choice(node, ws)
    for slot, up in moves:
        s = slot % S
        ws.lb[s] += up
        ws.ub[s] = max(ws.ub[s], ws.lb[s]) + up
        _tournament_update(ws.lb, ws.ub, tl, tu, s, S)
        assert _tournament_choice(node, ws, tl, tu) == _lower_first_choice(node, ws)


def test_search_with_tree_equals_scan():
    """A whole lower-first search over many features: same assessments and bounds either way."""
    node, cfg, S = _node(3 * TOURNAMENT_MIN_FEATURES, n=120, n_classes=4)
    out = []
    for tl, tu in (_tree(S), (np.empty(0, dtype=np.int64), np.empty(0))):
        ws = new_workspace(S, 8, 4)
        _reset(node, ws)
        _lower_first_loop(node, cfg, ws, tl, tu)
        out.append((ws.mk[:S].copy(), ws.lb[:S].copy(), ws.ub[:S].copy()))
    for a, b in zip(*out):
        np.testing.assert_array_equal(a, b)


def test_wide_fit_equals_exhaustive():
    """More candidates than the tournament's threshold: the default search builds exhaustive search's trees."""
    rng = np.random.default_rng(1)
    X = rng.integers(0, 4, size=(300, 2 * TOURNAMENT_MIN_FEATURES)).astype(float)
    y = (X[:, 3] + X[:, 70] + rng.integers(0, 2, 300) > 3).astype(int) + (X[:, 100] > 2)
    fits = [ExactBoostClassifier(n_estimators=8, split_search=s).fit(X, y) for s in ("adaptive", "exhaustive")]
    for a, b in zip(fits[0].estimators_, fits[1].estimators_):
        np.testing.assert_array_equal(a.feature, b.feature)
        np.testing.assert_array_equal(a.threshold, b.threshold)
    assert fits[0].assessments_.sum() < fits[1].assessments_.sum()
