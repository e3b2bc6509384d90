"""The pruning path against exhaustive enumeration of pruned subtrees."""

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier

from prunus.pruning import cost_complexity_path
from prunus.tree import Tree, grow_cart

from ._brute import (
    all_pruned_subtrees,
    breiman_weakest_link_alphas,
    counts_from_leaves,
    random_tree,
    smallest_minimiser,
)


def _leaf_set(path, k):
    sub, index = path.subtree(k, return_index=True)
    return frozenset(index[sub.is_leaf].tolist())


def _check_against_brute_force(tree, counts):
    path = cost_complexity_path(tree, counts)
    weight = Fraction(float(counts[0].sum()))
    subtrees = all_pruned_subtrees(tree)
    K = len(path)
    assert np.all(np.diff(path.alphas) > 0), "alphas must strictly increase"
    assert path.alphas[0] == 0.0
    assert path.n_leaves[-1] == 1
    # Digits: every alpha_k is the correctly rounded exact weakest-link value.
    exact = breiman_weakest_link_alphas(tree, counts)
    assert len(exact) == K
    for k in range(K):
        assert path.alphas[k] == float(exact[k] / weight)
    # Theorem 2.4.1: T_alpha is T_k on [alpha_k, alpha_{k+1}), checked at exact
    # alpha_k, at midpoints and beyond the last temperature.
    probes = [(exact[k], k) for k in range(K)]
    probes += [((exact[k] + exact[k + 1]) / 2, k) for k in range(K - 1)]
    probes += [(exact[-1] + 1, K - 1)]
    for alpha, k in probes:
        leaves = smallest_minimiser(tree, counts, alpha, subtrees)
        assert leaves == _leaf_set(path, k)
        assert path.n_leaves[k] == len(leaves)
    # Risks are R(T_k) on the pruning sample.
    for k in range(K):
        sub, index = path.subtree(k, return_index=True)
        leaves = index[sub.is_leaf]
        risk = (counts[leaves].sum(axis=1) - counts[leaves].max(axis=1)).sum() / counts[0].sum()
        assert path.risks[k] == pytest.approx(risk, rel=1e-12, abs=1e-15)
    return path


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n_leaves=st.integers(1, 11),
    n_classes=st.integers(2, 3),
    max_count=st.integers(0, 4),
)
def test_path_matches_enumeration_integer_counts(seed, n_leaves, n_classes, max_count):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n_leaves - 1, n_features=3)
    leaf_counts = rng.integers(0, max_count + 1, size=(n_leaves, n_classes)).astype(float)
    leaf_counts[0, 0] += 1  # a positive total weight
    _check_against_brute_force(tree, counts_from_leaves(tree, leaf_counts))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_leaves=st.integers(2, 10))
def test_path_matches_enumeration_dyadic_weights(seed, n_leaves):
    # Weights that are multiples of 1/8 keep float sums exact.
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n_leaves - 1, n_features=3)
    leaf_counts = rng.integers(0, 17, size=(n_leaves, 2)) / 8.0
    leaf_counts[0, 0] += 1
    _check_against_brute_force(tree, counts_from_leaves(tree, leaf_counts))


def test_tied_weakest_links_are_pruned_together():
    # Two mirrored branches, each with g(t) = (3 - 2) / 1 = 1 (in weight units),
    # weaker than the root's (9 - 4) / 3: both collapse in ONE step, so the
    # 3-leaf tree never appears, then the root goes at g = (9 - 6) / 1 = 3.
    left = [1, 3, 5, -1, -1, -1, -1]
    right = [2, 4, 6, -1, -1, -1, -1]
    tree = Tree(left, right, [0, 1, 1, 0, 0, 0, 0], [0.5] * 7, 2)
    leaf_counts = np.array([[5, 1], [1, 2], [1, 5], [2, 1]], dtype=float)
    counts = counts_from_leaves(tree, leaf_counts)
    path = _check_against_brute_force(tree, counts)
    assert path.n_leaves.tolist() == [4, 2, 1]
    assert path.alphas.tolist() == [0.0, 1 / 18, 3 / 18]


def test_t1_drops_splits_that_do_not_reduce_error():
    # Both children predict class 0 like their parent: T_1 (alpha = 0) is the root.
    tree = Tree([1, -1, -1], [2, -1, -1], [0, -2, -2], [0.0, -2, -2], 1)
    counts = counts_from_leaves(tree, np.array([[5.0, 1.0], [4.0, 2.0]]))
    path = cost_complexity_path(tree, counts)
    assert path.n_leaves.tolist() == [1]
    assert path.alphas.tolist() == [0.0]


def test_path_on_grown_tree_and_heldout_counts():
    rng = np.random.RandomState(0)
    X = rng.random_sample((400, 3))
    y = ((X[:, 0] > 0.5) ^ (rng.random_sample(400) < 0.2)).astype(int)
    tree = grow_cart(X[:200], y[:200], random_state=0)
    path = cost_complexity_path(tree, tree.node_counts(X[200:], y[200:], n_classes=2))
    # Held-out evaluation through sum_over_leaves equals predicting row by row.
    wrong = path.misclassified(tree.node_counts(X[200:], y[200:], n_classes=2))
    for k in range(len(path)):
        sub, index = path.subtree(k, return_index=True)
        pred = path.label[index[sub.apply(X[200:])]]
        assert wrong[k] == np.sum(pred != y[200:])


def test_units_match_sklearn_ccp_alpha_convention():
    # With one split whose children are pure, g(root) = (R(root) - 0) / 1 and
    # R is a fraction of the total weight, as scikit-learn's ccp_alpha.
    X = np.array([[0.0], [0.0], [1.0], [1.0], [1.0]])
    y = np.array([0, 0, 1, 1, 1])
    tree = Tree.from_sklearn(DecisionTreeClassifier().fit(X, y))
    path = cost_complexity_path(tree, tree.node_counts(X, y, n_classes=2))
    assert path.alphas.tolist() == [0.0, 2 / 5]
    assert path.risks.tolist() == [0.0, 2 / 5]


@pytest.mark.parametrize("bad", [np.ones((3, 2)), -np.ones((5, 2)), np.zeros((5, 2)), np.full((5, 2), np.nan)])
def test_bad_counts(bad):
    tree = Tree([1, 3, -1, -1, -1], [2, 4, -1, -1, -1], [0, 0, -2, -2, -2], [0.5, 0.2, -2, -2, -2], 1)
    with pytest.raises(ValueError, match="counts"):
        cost_complexity_path(tree, bad)


def test_index_lookup():
    rng = np.random.default_rng(3)
    tree = random_tree(rng, 7, n_features=3)
    counts = counts_from_leaves(tree, rng.integers(0, 5, size=(8, 2)).astype(float) + [[1, 0]])
    path = cost_complexity_path(tree, counts)
    for k, a in enumerate(path.alphas):
        assert path.index(a) == k
    assert path.index(path.alphas[-1] + 1.0) == len(path) - 1
    with pytest.raises(ValueError, match="alpha"):
        path.index(-1.0)
