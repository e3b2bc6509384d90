"""PAC-Bayes forest: feature importances (brute force over nodes and subtrees) and class_weight."""

import numpy as np
import pytest
from sklearn.utils.class_weight import compute_sample_weight

from prunus.tree._importance import split_probability
from prunus.tree._testing import brute_importances
from prunus.voting import PACBayesForestClassifier


def _data(n=160, seed=0, n_classes=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1], np.linspace(-1, 1, n_classes - 1))
    return X, y


def _brute_split_probability(tree, leaf_weight):
    """P(t internal) = P(t in T) - P(t leaf), walking up from each node: t is in
    the subtree T unless one of its strict ancestors is a leaf of T (disjoint
    events). tests/tree/test_importance.py checks the formula by enumerating
    subtrees."""
    out = np.zeros(tree.n_nodes)
    for t in range(tree.n_nodes):
        if tree.children_left[t] < 0:
            continue
        above, node = 0.0, tree.parent[t]
        while node >= 0:
            above += leaf_weight[node]
            node = tree.parent[node]
        out[t] = 1.0 - above - leaf_weight[t]
    return out


@pytest.mark.parametrize("lambdas", [dict(lambda1=2.0**20, lambda2=0.0), dict(lambda1=0.5, lambda2=2.0**-6), dict()])
def test_importances_are_the_vote_weighted_mean_over_trees(lambdas):
    X, y = _data()
    est = PACBayesForestClassifier(n_estimators=6, random_state=0, **lambdas).fit(X, y)
    per_tree = []
    for tree, counts, w in zip(est.estimators_, est.node_counts_, est.node_weights_):
        if tree.n_nodes > 1:
            per_tree.append(brute_importances(tree, counts, "gini", split_weight=_brute_split_probability(tree, w)))
    want = np.mean(per_tree, axis=0)
    np.testing.assert_allclose(est.feature_importances_, want / want.sum(), atol=1e-10)


def test_plain_forest_importances_are_the_grown_trees():
    # At a huge lambda1 the posterior sits on the full trees: every split counts fully.
    X, y = _data(seed=1)
    est = PACBayesForestClassifier(n_estimators=5, lambda1=2.0**30, lambda2=0.0, random_state=0).fit(X, y)
    want = np.mean([brute_importances(t, c, "gini") for t, c in zip(est.estimators_, est.node_counts_)], axis=0)
    np.testing.assert_allclose(est.feature_importances_, want / want.sum(), atol=1e-9)


def test_node_weights_are_leaf_marginals_of_a_distribution_over_subtrees():
    X, y = _data(n=40, seed=2)
    est = PACBayesForestClassifier(n_estimators=2, max_leaf_nodes=6, lambda1=1.0, lambda2=0.1, random_state=0)
    est.fit(X, y)
    for tree, w in zip(est.estimators_, est.node_weights_):
        # The posterior over subtrees, recovered from its leaf marginals, must be a distribution:
        # leaf probabilities of every root-to-leaf path of T0 sum to one.
        for leaf in np.flatnonzero(tree.is_leaf):
            total, node = 0.0, leaf
            while node >= 0:
                total += w[node]
                node = tree.parent[node]
            assert total == pytest.approx(1.0)
        np.testing.assert_allclose(split_probability(tree, w), _brute_split_probability(tree, w), atol=1e-12)


@pytest.mark.parametrize("params", [dict(), dict(bootstrap=True), dict(lambda1=4.0, lambda2=0.0)])
def test_class_weight_equals_sample_weight_per_class(params):
    X, y = _data(seed=3)
    labels = np.array(["x", "y", "z"])[y]
    w = np.random.default_rng(1).integers(1, 3, size=len(y)).astype(float)
    a = PACBayesForestClassifier(n_estimators=4, class_weight={"y": 3, "z": 2}, random_state=0, **params)
    a.fit(X, labels, sample_weight=w)
    factor = np.select([labels == "y", labels == "z"], [3.0, 2.0], 1.0)
    b = PACBayesForestClassifier(n_estimators=4, random_state=0, **params).fit(X, labels, sample_weight=w * factor)
    assert all(s == t for s, t in zip(a.estimators_, b.estimators_))
    assert (a.lambda1_, a.lambda2_) == (b.lambda1_, b.lambda2_)
    for s, t in zip(a.node_counts_, b.node_counts_):
        assert np.array_equal(s, t)
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    assert a.oob_score_ == b.oob_score_


def test_class_weight_balanced():
    X, y = _data(seed=4)
    a = PACBayesForestClassifier(n_estimators=3, class_weight="balanced", random_state=0).fit(X, y)
    b = PACBayesForestClassifier(n_estimators=3, random_state=0).fit(
        X, y, sample_weight=compute_sample_weight("balanced", y)
    )
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    with pytest.raises(ValueError, match="class_weight"):
        PACBayesForestClassifier(class_weight={5: 1.0}).fit(X, y)


@pytest.mark.parametrize("partition", ["cart", "kd"])
def test_pac_bayes_tree_class_weight_equals_sample_weight_per_class(partition):
    from prunus.voting import PACBayesTreeClassifier

    X, y = _data(seed=5)
    w = np.random.default_rng(2).integers(1, 4, size=len(y)).astype(float)
    a = PACBayesTreeClassifier(partition, class_weight={0: 2, 2: 3}, cv=3, random_state=0).fit(X, y, sample_weight=w)
    factor = np.select([y == 0, y == 2], [2.0, 3.0], 1.0)
    b = PACBayesTreeClassifier(partition, cv=3, random_state=0).fit(X, y, sample_weight=w * factor)
    assert a.tree_ == b.tree_ and np.array_equal(a.node_counts_, b.node_counts_)
    assert (a.lambda1_, a.lambda2_) == (b.lambda1_, b.lambda2_)
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
