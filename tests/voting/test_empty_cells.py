"""Empty cells (Remark 1 of Nguyen & Kpotufe): T0 is the partition intersected with the
support of the data. Every estimator's default (``empty_cells="parent"``) against a brute
force that deletes the empty cells, enumerates the subtrees of what is left (a node may keep
a single child) and routes a row of an empty cell to its nearest ancestor with data."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.tree import grow_dyadic
from prunus.voting import (
    HSVoteClassifier,
    NodeStats,
    PACBayesTreeClassifier,
    PenalizedTreeClassifier,
    hs_vote_weights,
    pac_bayes_weights,
    vote_proba,
)
from prunus.voting._hsvote import path_mean_kernel

from ._subtrees import random_counts, random_tree


def _reduced_subtrees(tree, has_data, node=0):
    """Subtrees (tuples of leaves) of the tree restricted to the nodes with data."""
    kids = [c for c in (tree.children_left[node], tree.children_right[node]) if c != -1 and has_data[c]]
    out = [(node,)]
    if kids:
        combos = [()]
        for c in kids:
            combos = [a + b for a in combos for b in _reduced_subtrees(tree, has_data, c)]
        out += combos
    return out


def _home(tree, has_data, leaf):
    """The nearest node with data on or above a leaf of the partition."""
    node = leaf
    while not has_data[node]:
        node = tree.parent[node]
    return node


def _node_of(tree, subtree, home):
    """The node of the subtree that classifies a row living in ``home``: the subtree's
    leaf on the path, or ``home`` itself when the subtree splits it further."""
    node, members = home, set(subtree)
    while node != -1:
        if node in members:
            return node
        node = tree.parent[node]
    return home


def _internal_nodes(tree, subtree):
    nodes = set()
    for a in subtree:
        node = tree.parent[a]
        while node != -1 and node not in nodes:
            nodes.add(node)
            node = tree.parent[node]
    return nodes


def _brute_pacbayes(tree, counts, lambda1, lambda2):
    """Vote shares per leaf of the partition, from the posterior over reduced subtrees."""
    n_node = counts.sum(axis=1)
    has = n_node > 0
    label = np.argmax(counts, axis=1)
    subtrees = _reduced_subtrees(tree, has)
    log_q = np.array(
        [
            sum(-lambda1 * (n_node[a] - counts[a].max()) - lambda2 * math.sqrt(n_node[a]) - 1 for a in s)
            for s in subtrees
        ]
    )
    q = np.exp(log_q - log_q.max())
    q /= q.sum()
    out = {}
    for leaf in np.flatnonzero(tree.is_leaf):
        home = _home(tree, has, leaf)
        votes = np.zeros(counts.shape[1])
        for s, qs in zip(subtrees, q):
            votes[label[_node_of(tree, s, home)]] += qs
        out[leaf] = votes
    return out


def _brute_hs(tree, counts, lam):
    """HS-vote on the reduced tree: 2^-bits (one bit per node of T internal in the reduced
    T0) times beta^(absolute loss); a row of an empty cell gets its home's estimate."""
    n0, n1 = counts[:, 0], counts[:, 1]
    tot = n0 + n1
    has = tot > 0
    eta = np.where(has, n1 / np.maximum(tot, 1e-300), 0.0)
    internal_reduced = np.array(
        [
            has[a] and any(c != -1 and has[c] for c in (tree.children_left[a], tree.children_right[a]))
            for a in range(tree.n_nodes)
        ]
    )
    subtrees = _reduced_subtrees(tree, has)
    log_w = []
    for s in subtrees:
        nodes = _internal_nodes(tree, s) | set(s)
        bits = sum(1 for a in nodes if internal_reduced[a])
        loss = sum(2 * n0[a] * n1[a] / tot[a] for a in s)
        log_w.append(-bits * math.log(2) - lam * loss)
    log_w = np.array(log_w)
    q = np.exp(log_w - log_w.max())
    q /= q.sum()
    return {
        leaf: sum(qs * eta[_node_of(tree, s, _home(tree, has, leaf))] for s, qs in zip(subtrees, q))
        for leaf in np.flatnonzero(tree.is_leaf)
    }


def _brute_pruning(tree, counts, lam, penalty):
    """The subtree of the reduced tree minimizing sum of err + lam * pen over its leaves;
    None when the minimum is not unique (the DP's tie rule is then a convention)."""
    n_node = counts.sum(axis=1)
    has = n_node > 0
    err = n_node - counts.max(axis=1)
    depth = tree.depth
    if penalty == "leaves":
        pen = np.ones(tree.n_nodes)
    else:
        pen = np.sqrt(np.maximum(n_node, depth) * depth)
    subtrees = _reduced_subtrees(tree, has)
    cost = np.array([sum(err[a] + lam * pen[a] for a in s) for s in subtrees])
    best = np.flatnonzero(cost <= cost.min() + 1e-9)
    if best.shape[0] > 1:
        return None
    s = subtrees[best[0]]
    return {leaf: _node_of(tree, s, _home(tree, has, leaf)) for leaf in np.flatnonzero(tree.is_leaf)}


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n_splits=st.integers(0, 7),
    n_classes=st.integers(2, 3),
    lambdas=st.sampled_from([(2.0**-8, 0.0), (0.3, 0.7), (1.0, 2.0**-8), (5.0, 3.0)]),
)
def test_pacbayes_parent_matches_reduced_brute_force(seed, n_splits, n_classes, lambdas):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n_splits)
    counts = random_counts(rng, tree, n_classes, empty_prob=0.4)
    if counts[0].sum() == 0:
        counts[tree.is_leaf.nonzero()[0][0], 0] = 1.0
        counts = _additive(tree, counts)
    res = pac_bayes_weights(tree, NodeStats(tree, counts, "parent"), *lambdas)
    leaves = np.flatnonzero(tree.is_leaf)
    got = vote_proba(tree, res["node_label"], res["node_weight"], n_classes, leaves=leaves)
    want = _brute_pacbayes(tree, counts, *lambdas)
    for row, leaf in enumerate(leaves):
        np.testing.assert_allclose(got[row], want[leaf], rtol=1e-9, atol=1e-12)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31), n_splits=st.integers(0, 7), lam=st.sampled_from([0.0, 2.0**-8, 0.5, 3.0]))
def test_hs_parent_matches_reduced_brute_force(seed, n_splits, lam):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n_splits)
    counts = random_counts(rng, tree, 2, empty_prob=0.4)
    if counts[0].sum() == 0:
        counts[tree.is_leaf.nonzero()[0][0], 1] = 1.0
        counts = _additive(tree, counts)
    res = hs_vote_weights(tree, counts, lam, empty_cells="parent")
    leaves = np.flatnonzero(tree.is_leaf)
    got = path_mean_kernel(leaves, tree.parent, res["node_value"], res["node_weight"])
    want = _brute_hs(tree, counts, lam)
    np.testing.assert_allclose(got, [want[a] for a in leaves], rtol=1e-9, atol=1e-12)


def _additive(tree, counts):
    out = np.where(tree.is_leaf[:, None], counts, 0.0)
    for node in range(tree.n_nodes - 1, 0, -1):
        out[tree.parent[node]] += out[node]
    return out


def _fixed_partition_data(seed, n_classes=2):
    """A dyadic partition grown on the unit square, fitted on rows of a corner only:
    many cells are empty, internal ones included, and some cells with data have two empty
    children."""
    rng = np.random.default_rng(seed)
    tree = grow_dyadic(rng.uniform(size=(64, 2)), max_depth=4)
    X = rng.uniform(0, 1, size=(40, 2)) * np.array([0.7, 0.45])
    y = (X[:, 0] + 0.3 * rng.standard_normal(40) > 0.35).astype(int)
    if n_classes == 3:
        y[X[:, 1] > 0.3] = 2
    X_test = rng.uniform(size=(400, 2))
    return tree, X, y, X_test


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_estimators_route_empty_cells_to_the_nearest_ancestor_with_data(seed):
    tree, X, y, X_test = _fixed_partition_data(seed, n_classes=3)
    leaves = tree.apply(X_test)
    est = PACBayesTreeClassifier(partition=tree, lambda1=0.7, lambda2=0.3).fit(X, y)
    counts = est.node_counts_
    assert (counts.sum(axis=1) == 0).any() and ((counts.sum(axis=1) == 0) & ~tree.is_leaf).any()
    want = _brute_pacbayes(tree, counts, 0.7, 0.3)
    np.testing.assert_allclose(est.predict_proba(X_test), [want[t] for t in leaves], rtol=1e-9, atol=1e-12)

    yb = (y == 1).astype(int)
    hs = HSVoteClassifier(partition=tree, lam=0.4).fit(X, yb)
    want = _brute_hs(tree, hs.node_counts_, 0.4)
    np.testing.assert_allclose(hs.predict_proba(X_test)[:, 1], [want[t] for t in leaves], rtol=1e-9, atol=1e-12)

    unique = 0
    for penalty, lam in (("leaves", 0.37), ("leaves", 2.3), ("sn", 0.11), ("sn", 0.9)):
        pen = PenalizedTreeClassifier(partition=tree, penalty=penalty, lam=lam).fit(X, y)
        node = _brute_pruning(tree, pen.node_counts_, lam, penalty)
        if node is None:
            continue
        unique += 1
        c = pen.node_counts_
        want = np.array([c[node[t]] / c[node[t]].sum() for t in leaves])
        np.testing.assert_allclose(pen.predict_proba(X_test), want, rtol=1e-12)
        np.testing.assert_array_equal(pen.predict(X_test), pen.classes_[np.argmax(want, axis=1)])
    assert unique >= 2


def test_class0_is_kept_as_an_option():
    """Corollary 1's labelling: every cell kept, an empty one votes class 0 (differs from parent)."""
    tree, X, y, X_test = _fixed_partition_data(0)
    y = 1 - y
    zero = PACBayesTreeClassifier(partition=tree, lambda1=0.7, lambda2=0.3, empty_cells="class0").fit(X, y)
    par = PACBayesTreeClassifier(partition=tree, lambda1=0.7, lambda2=0.3).fit(X, y)
    empty_rows = zero.node_counts_.sum(axis=1)[tree.apply(X_test)] == 0
    assert empty_rows.any()
    assert np.mean(zero.predict(X_test[empty_rows]) == 0) > np.mean(par.predict(X_test[empty_rows]) == 0)
