"""HS-vote against a direct evaluation of its definition over all prunings."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.voting import HSVoteClassifier, hs_vote_weights
from prunus.voting._hsvote import path_mean_kernel

from ._subtrees import enumerate_subtrees, leaf_on_path, random_counts, random_tree


def _direct(tree, counts, lam):
    """Weighted average of eta over prunings: prior 2^-bits, weight beta^(absolute loss)."""
    n0, n1 = counts[:, 0], counts[:, 1]
    tot = n0 + n1
    eta = np.where(tot > 0, n1 / np.maximum(tot, 1), 0.0)
    internal = ~tree.is_leaf
    subtrees = enumerate_subtrees(tree)
    log_w = []
    for leaves in subtrees:
        # code length: one bit per node of T that is internal in T0
        members = set(leaves)
        nodes = set()
        for a in leaves:
            node = a
            while node != -1 and node not in nodes:
                nodes.add(node)
                node = tree.parent[node]
        bits = sum(1 for a in nodes if internal[a])
        loss = sum(n0[a] * eta[a] + n1[a] * (1 - eta[a]) for a in members)
        log_w.append(-bits * math.log(2) - lam * loss)
    log_w = np.array(log_w)
    q = np.exp(log_w - log_w.max())
    q /= q.sum()
    p = {}
    for leaf in np.flatnonzero(tree.is_leaf):
        p[leaf] = sum(qs * eta[leaf_on_path(tree, s, leaf)] for s, qs in zip(subtrees, q))
    return p


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31), n_splits=st.integers(0, 7), lam=st.sampled_from([0.0, 2.0**-8, 0.5, 3.0]))
def test_hs_vote_matches_definition(seed, n_splits, lam):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n_splits)
    counts = random_counts(rng, tree, 2)
    res = hs_vote_weights(tree, counts, lam)
    leaves = np.flatnonzero(tree.is_leaf)
    got = path_mean_kernel(leaves, tree.parent, res["node_value"], res["node_weight"])
    want = _direct(tree, counts, lam)
    np.testing.assert_allclose(got, [want[a] for a in leaves], rtol=1e-9, atol=1e-12)


def test_hs_vote_is_binary_only():
    X = np.arange(30, dtype=float).reshape(-1, 1)
    y = np.repeat([0, 1, 2], 10)
    with pytest.raises(ValueError, match="binary only"):
        HSVoteClassifier(lam=1.0).fit(X, y)
    tree = random_tree(np.random.default_rng(0), 2)
    with pytest.raises(ValueError, match="binary only"):
        hs_vote_weights(tree, np.ones((tree.n_nodes, 3)), 1.0)


def test_hs_vote_estimator_predicts_threshold_half():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(400, 2))
    y = (X[:, 0] > 0.5).astype(int)
    est = HSVoteClassifier("kd", random_state=0).fit(X, y)
    proba = est.predict_proba(X)
    np.testing.assert_array_equal(est.predict(X), (proba[:, 1] > 0.5).astype(int))
    assert est.score(X, y) > 0.95
