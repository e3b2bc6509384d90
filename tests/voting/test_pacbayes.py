"""PAC-Bayes weights: the log-space DP against brute force over all subtrees."""

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.special import logsumexp

from prunus.tree import Tree
from prunus.voting import NodeStats, PACBayesTreeClassifier, pac_bayes_weights, vote_proba

from ._subtrees import enumerate_subtrees, leaf_on_path, random_counts, random_tree


def _direct_log_q(tree, counts, leaves, lambda1, lambda2, prior, delta=0.05):
    """log of the unnormalized posterior of one subtree, from the definitions."""
    n_node = counts.sum(axis=1)
    data = [a for a in leaves if n_node[a] > 0]
    errors = sum(n_node[a] - counts[a].max() for a in data)
    if prior == "practical":
        # -n (lambda1 R + lambda2 Delta_n) - |pi(T, S)|,  n Delta_n = sum sqrt(n p(A)) ... times n
        n = n_node[0]
        risk = errors / n
        delta_n = sum(math.sqrt(n_node[a] / n / n) for a in data)
        return -n * (lambda1 * risk + lambda2 * delta_n) - len(data)
    n = n_node[0]
    log_term = math.log(tree.n_nodes / delta)
    pen = sum(math.sqrt(n_node[a] / n * 2 * log_term / n) for a in data)
    return -lambda1 * errors - n * lambda1 * pen - 3 * tree.max_depth * len(data)


def _brute(tree, counts, lambda1, lambda2, prior):
    subtrees = enumerate_subtrees(tree)
    log_q = np.array([_direct_log_q(tree, counts, s, lambda1, lambda2, prior) for s in subtrees])
    log_z = logsumexp(log_q)
    q = np.exp(log_q - log_z)
    w = np.zeros(tree.n_nodes)
    for s, qs in zip(subtrees, q):
        for a in s:
            w[a] += qs
    return subtrees, q, w, log_z


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n_splits=st.integers(0, 7),
    n_classes=st.integers(2, 4),
    prior=st.sampled_from(["practical", "theory"]),
)
def test_weights_match_brute_force(seed, n_splits, n_classes, prior):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n_splits)
    counts = random_counts(rng, tree, n_classes)
    if counts[0].sum() == 0:
        counts[0, 0] = 1.0  # n > 0 for the direct formula (counts need not be additive)
    lambda1 = float(rng.choice([2.0**-8, 0.3, 1.0, 5.0]))
    lambda2 = None if prior == "theory" else float(rng.choice([0.0, 2.0**-8, 0.7, 3.0]))
    res = pac_bayes_weights(tree, counts, lambda1, lambda2, prior=prior)
    subtrees, q, w, log_z = _brute(tree, counts, lambda1, lambda2 or 0.0, prior)
    np.testing.assert_allclose(res["node_weight"], w, rtol=1e-9, atol=1e-300)
    # log w(A) is C * w_Q(A) with C = the partition function beta(root)
    assert res["log_partition"] == pytest.approx(log_z, rel=1e-9, abs=1e-9)
    # weights on every root-to-leaf path sum to 1
    for leaf in np.flatnonzero(tree.is_leaf):
        path, node = [], leaf
        while node != -1:
            path.append(node)
            node = tree.parent[node]
        assert res["node_weight"][path].sum() == pytest.approx(1.0, rel=1e-9)
    # h_Q on every cell of T0 against the brute-force vote
    labels = np.argmax(counts, axis=1)
    leaves_x = np.flatnonzero(tree.is_leaf)
    proba = vote_proba(tree, res["node_label"], res["node_weight"], n_classes, leaves=leaves_x)
    for row, leaf in enumerate(leaves_x):
        votes = np.zeros(n_classes)
        for s, qs in zip(subtrees, q):
            votes[labels[leaf_on_path(tree, s, leaf)]] += qs
        np.testing.assert_allclose(proba[row], votes, rtol=1e-9, atol=1e-12)
        top = np.flatnonzero(votes >= votes.max() * (1 - 1e-12))
        if top.shape[0] == 1:
            assert np.argmax(proba[row]) == top[0]


def test_empty_cell_is_a_dummy_with_phi_zero_and_label_zero():
    tree = Tree([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.0, -2, -2], 1)
    counts = np.array([[0, 5], [0, 5], [0, 0]], dtype=float)
    res = pac_bayes_weights(tree, counts, 1.0, 1.0)
    assert res["log_phi"][2] == 0.0
    assert res["node_label"][2] == 0
    # phi(root) = phi(1) = -sqrt(5) - 1: beta(root) = e^phi + e^phi * 1
    phi = -math.sqrt(5) - 1
    assert res["log_partition"] == pytest.approx(math.log(2 * math.exp(phi)))
    assert res["node_weight"][2] == pytest.approx(0.5)


def test_bad_lambdas():
    tree = Tree([-1], [-1], [-2], [-2.0], 1)
    counts = np.array([[1.0, 2.0]])
    for bad in (-1.0, np.inf, np.nan):
        with pytest.raises(ValueError, match="lambda1"):
            pac_bayes_weights(tree, counts, bad, 1.0)
        with pytest.raises(ValueError, match="lambda2"):
            pac_bayes_weights(tree, counts, 1.0, bad)
    with pytest.raises(ValueError, match="lambda2"):
        pac_bayes_weights(tree, counts, 1.0, 1.0, prior="theory")
    with pytest.raises(ValueError, match="prior"):
        pac_bayes_weights(tree, counts, 1.0, 1.0, prior="flat")
    with pytest.raises(ValueError, match="counts"):
        pac_bayes_weights(tree, np.ones((2, 2)), 1.0, 1.0)


@pytest.mark.parametrize("lambdas", [(2.0**-8, 2.0**-8), (2.0**6, 2.0**6), (128.0, 0.0), (0.0, 128.0)])
def test_log_space_exact_at_n_1e6(lambdas):
    """Counts of n = 10^6 rows: exp(phi) underflows, the log-space DP does not;
    weights and votes agree with exact (50-digit) arithmetic over all subtrees."""
    rng = np.random.default_rng(7)
    tree = random_tree(rng, 6)
    counts = random_counts(rng, tree, 3, empty_prob=0.2, scale=10**5)
    counts[0] = 0
    counts[0] = counts[tree.children_left[0]] + counts[tree.children_right[0]]
    counts *= 1e6 / counts[0].sum()
    counts = np.floor(counts)
    for node in range(tree.n_nodes - 1, -1, -1):  # keep counts additive after flooring
        if tree.children_left[node] != -1:
            counts[node] = counts[tree.children_left[node]] + counts[tree.children_right[node]]
    lambda1, lambda2 = lambdas
    res = pac_bayes_weights(tree, counts, lambda1, lambda2)
    assert np.isfinite(res["log_weight"]).all() and np.isfinite(res["log_partition"])
    assert np.isfinite(res["node_weight"]).all()
    mpmath.mp.dps = 50
    n_node = counts.sum(axis=1)
    phi = [
        mpmath.mpf(0)
        if n_node[a] == 0
        else -mpmath.mpf(lambda1) * mpmath.mpf(n_node[a] - counts[a].max())
        - mpmath.mpf(lambda2) * mpmath.sqrt(mpmath.mpf(n_node[a]))
        - 1
        for a in range(tree.n_nodes)
    ]
    subtrees = enumerate_subtrees(tree)
    q = [mpmath.exp(sum(phi[a] for a in s)) for s in subtrees]
    z = sum(q)
    w = [mpmath.mpf(0)] * tree.n_nodes
    for s, qs in zip(subtrees, q):
        for a in s:
            w[a] += qs / z
    assert res["log_partition"] == pytest.approx(float(mpmath.log(z)), rel=1e-12)
    # phi is of order lambda * n = 1e8 here: one ulp of it is ~1e-8, so relative
    # agreement of the normalized weights is bounded by ~1e-8 by conditioning.
    np.testing.assert_allclose(res["node_weight"], np.array([float(v) for v in w]), rtol=1e-6, atol=1e-300)
    labels = np.argmax(counts, axis=1)
    leaves_x = np.flatnonzero(tree.is_leaf)
    pred = np.argmax(vote_proba(tree, res["node_label"], res["node_weight"], 3, leaves=leaves_x), axis=1)
    for leaf, got in zip(leaves_x, pred):
        votes = [mpmath.mpf(0)] * 3
        for s, qs in zip(subtrees, q):
            votes[labels[leaf_on_path(tree, s, leaf)]] += qs
        best = max(range(3), key=lambda k: (votes[k], -k))
        assert got == best


def test_estimator_at_one_million_rows_is_finite():
    rng = np.random.default_rng(0)
    n = 10**6
    X = rng.uniform(size=(n, 2))
    y = ((X[:, 0] + 0.1 * rng.standard_normal(n)) > 0.5).astype(int)
    for l1, l2 in [(2.0**-8, 2.0**-8), (128.0, 128.0)]:
        est = PACBayesTreeClassifier("dyadic", max_depth=12, lambda1=l1, lambda2=l2).fit(X, y)
        assert np.isfinite(est.log_weight_).all() and np.isfinite(est.log_partition_)
        proba = est.predict_proba(X[:1000])
        assert np.isfinite(proba).all()
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-9)
        assert est.score(X[:20000], y[:20000]) > 0.9


def test_any_tree_can_be_voted_over():
    """A fitted scikit-learn tree, converted, with counts from another sample."""
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 3))
    y = (X[:, 0] > 0).astype(int)
    sk = DecisionTreeClassifier(max_depth=3, random_state=0).fit(X, y)
    tree = Tree.from_sklearn(sk)
    X2 = rng.normal(size=(100, 3))
    y2 = (X2[:, 0] > 0).astype(int)
    counts = tree.node_counts(X2, y2, n_classes=2)
    res = pac_bayes_weights(tree, NodeStats(tree, counts), 1.0, 0.5)
    _, _, w, _ = _brute(tree, counts, 1.0, 0.5, "practical")
    np.testing.assert_allclose(res["node_weight"], w, rtol=1e-9, atol=1e-300)


@pytest.mark.parametrize("prior", ["practical", "theory"])
def test_no_overflow_at_n_1e7_on_the_grid_extremes(prior):
    """Counts of 10^7 rows on a deep random tree: every weight finite, every path sums to 1."""
    rng = np.random.default_rng(3)
    tree = random_tree(rng, 300)
    counts = random_counts(rng, tree, 5, empty_prob=0.1, scale=10**6)
    counts *= 1e7 / counts[0].sum()
    for lam in (2.0**-8, 2.0**6, 2.0**7):
        res = pac_bayes_weights(tree, counts, lam, None if prior == "theory" else lam, prior=prior)
        assert np.isfinite(res["log_weight"]).all() and np.isfinite(res["log_partition"])
        w = res["node_weight"]
        assert np.isfinite(w).all()
        for leaf in np.flatnonzero(tree.is_leaf)[:50]:
            total, node = 0.0, leaf
            while node != -1:
                total += w[node]
                node = tree.parent[node]
            assert total == pytest.approx(1.0, rel=1e-6)
