"""Variable importance: against a plain-Python sum over the nodes, scikit-learn, and subtree enumeration."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.tree import DecisionTreeClassifier

from prunus.tree import Tree, feature_importances, grow_cart, impurity_decrease, node_impurity
from prunus.tree._importance import classification_importances, split_probability
from prunus.tree._testing import brute_importances, counts_from_leaves, enumerate_subtrees, random_tree


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n_splits=st.integers(0, 12),
    criterion=st.sampled_from(["gini", "entropy", "misclassification"]),
    normalize=st.booleans(),
)
def test_matches_a_plain_python_sum_over_nodes(seed, n_splits, criterion, normalize):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n_splits, n_features=4)
    leaf_counts = rng.integers(0, 6, size=(tree.n_leaves, 3)).astype(float)
    counts = counts_from_leaves(tree, leaf_counts)
    got = classification_importances(tree, counts, criterion, normalize=normalize)
    want = brute_importances(tree, counts, criterion, normalize=normalize)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)
    if normalize:
        assert got.sum() == pytest.approx(1.0) or not got.any()


@pytest.mark.parametrize("criterion", ["gini", "entropy"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_equals_scikit_learn_on_the_same_tree(criterion, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 5))
    y = (X[:, 0] + 0.5 * X[:, 1] ** 2 + 0.3 * rng.normal(size=300) > 0.4).astype(int) + (X[:, 2] > 1.0)
    w = rng.integers(1, 4, size=300).astype(float)
    sk = DecisionTreeClassifier(criterion=criterion, max_depth=6, random_state=0).fit(X, y, sample_weight=w)
    tree = Tree.from_sklearn(sk)
    counts = tree.node_counts(X, y, w, n_classes=3)
    np.testing.assert_allclose(classification_importances(tree, counts, criterion), sk.feature_importances_, atol=1e-12)


def test_equals_scikit_learn_on_trees_grown_alike():
    # prunus's builder grows scikit-learn's tree on float32-representable data without ties.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(400, 6)).astype(np.float32).astype(np.float64)
    y = (X[:, 0] * X[:, 3] > 0.1).astype(int)
    sk = DecisionTreeClassifier(random_state=0).fit(X, y)
    tree, counts = grow_cart(X, y, return_counts=True)
    sk_tree = Tree.from_sklearn(sk)
    for name in ("children_left", "children_right", "feature"):
        assert np.array_equal(getattr(tree, name), getattr(sk_tree, name))
    np.testing.assert_allclose(classification_importances(tree, counts), sk.feature_importances_, atol=1e-12)


def test_generic_hook_takes_any_node_impurity():
    # A regression tree passes its node variance and weight: the same sum.
    rng = np.random.default_rng(0)
    tree = random_tree(rng, 6, n_features=3)
    values = rng.normal(size=tree.n_leaves)
    weight_leaf = rng.integers(1, 5, size=tree.n_leaves).astype(float)
    # per-node weight, sum and sum of squares, children summed into parents
    stats = counts_from_leaves(tree, np.column_stack([weight_leaf, weight_leaf * values, weight_leaf * values**2]))
    w, s, q = stats.T
    variance = q / w - (s / w) ** 2
    imp = feature_importances(tree, variance, w, normalize=False)
    dec = impurity_decrease(tree, variance, w)
    want = np.zeros(3)
    for t in np.flatnonzero(~tree.is_leaf):
        left, right = tree.children_left[t], tree.children_right[t]
        want[tree.feature[t]] += w[t] * variance[t] - w[left] * variance[left] - w[right] * variance[right]
        assert dec[t] >= -1e-9  # least squares never increases within one sample
    np.testing.assert_allclose(imp, want, atol=1e-9)


def test_node_impurity_values_and_errors():
    counts = np.array([[2.0, 2.0], [3.0, 1.0], [0.0, 0.0]])
    np.testing.assert_allclose(node_impurity(counts, "gini"), [0.5, 0.375, 0.0])
    np.testing.assert_allclose(
        node_impurity(counts, "entropy")[:2], [math.log(2), -(0.75 * math.log(0.75) + 0.25 * math.log(0.25))]
    )
    np.testing.assert_allclose(node_impurity(counts, "misclassification"), [0.5, 0.25, 0.0])
    with pytest.raises(ValueError, match="criterion"):
        node_impurity(counts, "twoing")
    with pytest.raises(ValueError, match="counts"):
        node_impurity(-counts, "gini")
    tree = random_tree(0, 2)
    with pytest.raises(ValueError, match="impurity"):
        feature_importances(tree, np.zeros(2), np.zeros(tree.n_nodes))
    with pytest.raises(ValueError, match="split_weight"):
        feature_importances(tree, np.zeros(tree.n_nodes), np.zeros(tree.n_nodes), split_weight=[1.0])


def test_single_leaf_has_no_important_feature():
    tree = Tree([-1], [-1], [-2], [-2.0], 3)
    assert np.array_equal(classification_importances(tree, np.array([[3.0, 1.0]])), np.zeros(3))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_splits=st.integers(0, 6))
def test_split_probability_by_enumerating_subtrees(seed, n_splits):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n_splits)
    subtrees = [frozenset(leaves) for leaves in enumerate_subtrees(tree)]
    q = rng.random(len(subtrees))
    q /= q.sum()
    leaf = np.zeros(tree.n_nodes)
    internal = np.zeros(tree.n_nodes)
    for prob, leaves in zip(q, subtrees):
        nodes = set()
        for node in leaves:
            while node >= 0:
                nodes.add(int(node))
                node = tree.parent[node]
        for node in nodes:
            if node in leaves:
                leaf[node] += prob
            else:
                internal[node] += prob
    np.testing.assert_allclose(split_probability(tree, leaf), internal, atol=1e-12)


@pytest.mark.parametrize("seed", [0, 1])
def test_regression_importances_equal_scikit_learn(seed):
    # The hook a least-squares tree uses: node moments give variance and weight.
    from sklearn.tree import DecisionTreeRegressor

    from prunus.tree._importance import regression_importances

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(300, 4))
    y = X[:, 0] ** 2 + np.sin(2 * X[:, 2]) + 0.2 * rng.normal(size=300)
    w = rng.integers(1, 3, size=300).astype(float)
    sk = DecisionTreeRegressor(max_depth=5, random_state=0).fit(X, y, sample_weight=w)
    tree = Tree.from_sklearn(sk)
    moments = tree.node_moments(X, y, w)
    np.testing.assert_allclose(regression_importances(tree, moments), sk.feature_importances_, atol=1e-10)
