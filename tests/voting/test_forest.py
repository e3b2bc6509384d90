"""PAC-Bayes forest: OOB lambda selection against a slow reference, one tree against the
PAC-Bayes tree, scikit-learn checks, warm start, pickling, bad input."""

import pickle

import numpy as np
import pytest

from prunus.utils._testing import sklearn_check_params
from prunus.voting import (
    NodeStats,
    PACBayesForestClassifier,
    PACBayesTreeClassifier,
    pac_bayes_weights,
)
from prunus.voting._forest import FOREST_LAMBDA1, FOREST_LAMBDA2


@pytest.mark.parametrize(
    "estimator, check",
    sklearn_check_params([PACBayesForestClassifier(n_estimators=5, random_state=0)]),
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _data(n=160, seed=0, n_classes=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    y = np.digitize(X[:, 0] + 0.5 * X[:, 1], np.linspace(-1, 1, n_classes - 1))
    flip = rng.random(n) < 0.15
    y[flip] = rng.integers(0, n_classes, flip.sum())
    return X, y


def _walk(tree, x):
    """Root-to-leaf path of one row, by the thresholds."""
    node, path = 0, [0]
    while tree.children_left[node] != -1:
        node = tree.children_left[node] if x[tree.feature[node]] <= tree.threshold[node] else tree.children_right[node]
        path.append(node)
    return path


def _drawn(seed, n, sampling):
    """How often each row is in a tree's sample, written out independently of the estimator."""
    rng = np.random.RandomState(seed)
    if sampling == "bootstrap":
        return np.bincount(rng.randint(0, n, n), minlength=n)
    if sampling == "half bootstrap":
        return np.bincount(rng.randint(0, n, n // 2), minlength=n)
    share = {"subsample": 0.8, "subsample 0.5": 0.5}[sampling]
    drawn = np.zeros(n, dtype=int)
    drawn[rng.permutation(n)[: int(round(share * n))]] = 1
    return drawn


SAMPLINGS = {
    "subsample": {},
    "subsample 0.5": {"max_samples": 0.5},
    "bootstrap": {"bootstrap": True},
    "half bootstrap": {"bootstrap": True, "max_samples": 0.5},
}


@pytest.mark.parametrize("splitter", ["best", "random"])
@pytest.mark.parametrize("sampling", list(SAMPLINGS))
def test_oob_selection_equals_naive_reference(sampling, splitter):
    X, y = _data()
    n, n_classes = X.shape[0], 3
    forest = PACBayesForestClassifier(
        n_estimators=6, max_features=2, random_state=3, splitter=splitter, **SAMPLINGS[sampling]
    ).fit(X, y)
    trees, seeds = forest.estimators_, forest._seeds
    # independent sample draws and in-bag counts, row by row
    drawn = [_drawn(s, n, sampling) for s in seeds]
    paths = [[_walk(t, x) for x in X] for t in trees]
    counts = []
    for t, d, ps in zip(trees, drawn, paths):
        c = np.zeros((t.n_nodes, n_classes))
        for i in range(n):
            for node in ps[i]:
                c[node, y[i]] += d[i]
        counts.append(c)
    errors, probas = [], []
    for l1 in FOREST_LAMBDA1:
        for l2 in FOREST_LAMBDA2:
            total, seen = np.zeros((n, n_classes)), np.zeros(n)
            for t, d, ps, c in zip(trees, drawn, paths, counts):
                res = pac_bayes_weights(t, NodeStats(t, c, "parent"), l1, l2)
                for i in np.flatnonzero(d == 0):
                    votes = np.zeros(n_classes)
                    for node in ps[i]:
                        votes[res["node_label"][node]] += res["node_weight"][node]
                    total[i] += votes / votes.sum()
                    seen[i] += 1
            ok = seen > 0
            proba = total[ok] / seen[ok, None]
            errors.append(np.mean(np.argmax(proba, axis=1) != y[ok]))
            probas.append((ok, proba))
    errors = np.array(errors)
    np.testing.assert_allclose(forest.oob_results_["oob_error"], errors, rtol=0, atol=1e-12)
    # one-standard-error rule, naively: within one SE of the smallest error, the largest lambda1, then
    # the smallest lambda2
    n_oob = int(probas[0][0].sum())
    se = np.sqrt(errors.min() * (1 - errors.min()) / n_oob)
    assert forest.oob_results_["oob_error_se"] == pytest.approx(se, rel=1e-12)
    m = len(FOREST_LAMBDA2)
    candidates = [
        (FOREST_LAMBDA1[k // m], -FOREST_LAMBDA2[k % m], k)
        for k in range(len(errors))
        if errors[k] <= errors.min() + se + 1e-12
    ]
    best = max(candidates)[2]
    assert (forest.lambda1_, forest.lambda2_) == (FOREST_LAMBDA1[best // m], FOREST_LAMBDA2[best % m])
    ok, proba = probas[best]
    np.testing.assert_allclose(forest.oob_decision_function_[ok], proba, rtol=1e-12)
    assert np.isnan(forest.oob_decision_function_[~ok]).all()
    assert forest.oob_score_ == pytest.approx(1 - errors[best])


@pytest.mark.parametrize("lambdas", [(1.0, 0.5), (64.0, 0.0), (2.0**-3, 1.0)])
def test_one_tree_without_bootstrap_is_the_pac_bayes_tree(lambdas):
    X, y = _data(200, seed=1)
    l1, l2 = lambdas
    forest = PACBayesForestClassifier(
        n_estimators=1, max_samples=1.0, max_features=None, lambda1=l1, lambda2=l2, random_state=7
    ).fit(X, y)
    tree = PACBayesTreeClassifier("cart", lambda1=l1, lambda2=l2, random_state=7).fit(X, y)
    assert forest.estimators_[0] == tree.tree_
    np.testing.assert_allclose(forest.node_weights_[0], tree.node_weight_, rtol=1e-12)
    Xt, _ = _data(300, seed=2)
    np.testing.assert_allclose(forest.predict_proba(Xt), tree.predict_proba(Xt), rtol=1e-12, atol=1e-15)
    np.testing.assert_array_equal(forest.predict(Xt), tree.predict(Xt))
    assert not hasattr(forest, "oob_score_")


def test_warm_start_equals_a_fresh_fit_and_threads_change_nothing():
    X, y = _data()
    warm = PACBayesForestClassifier(n_estimators=4, warm_start=True, random_state=0).fit(X, y)
    first = list(warm.estimators_)
    warm.set_params(n_estimators=9).fit(X, y)
    assert warm.estimators_[:4] == first
    fresh = PACBayesForestClassifier(n_estimators=9, random_state=0, n_jobs=2).fit(X, y)
    assert warm.estimators_ == fresh.estimators_
    assert (warm.lambda1_, warm.lambda2_) == (fresh.lambda1_, fresh.lambda2_)
    np.testing.assert_allclose(warm.predict_proba(X), fresh.predict_proba(X), rtol=1e-12)
    assert warm.oob_score_ == fresh.oob_score_
    with pytest.raises(ValueError, match="n_estimators"):
        warm.set_params(n_estimators=3).fit(X, y)


def test_pickle_round_trip():
    X, y = _data()
    est = PACBayesForestClassifier(n_estimators=5, random_state=0).fit(X, y)
    clone = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(clone.predict_proba(X), est.predict_proba(X))
    assert clone.estimators_ == est.estimators_


@pytest.mark.parametrize("max_leaf_nodes", [None, 7])  # 7: best-first trees, ids not in preorder
def test_probabilities_are_the_mean_of_the_trees_votes(max_leaf_nodes):
    X, y = _data()
    est = PACBayesForestClassifier(
        n_estimators=5, random_state=0, lambda1=4.0, lambda2=0.1, max_leaf_nodes=max_leaf_nodes
    ).fit(X, y)
    if max_leaf_nodes:
        assert all(t.n_leaves <= max_leaf_nodes for t in est.estimators_)
    want = np.zeros((X.shape[0], 3))
    for tree, counts, w in zip(est.estimators_, est.node_counts_, est.node_weights_):
        label = NodeStats(tree, counts, "parent").label
        for i, x in enumerate(X):
            for node in _walk(tree, x):
                want[i, label[node]] += w[node] / 5
    np.testing.assert_allclose(est.predict_proba(X), want, rtol=1e-12)


def test_bad_input():
    X, y = _data()
    with pytest.raises(ValueError, match="max_samples=1.0 without bootstrap"):
        PACBayesForestClassifier(max_samples=1.0).fit(X, y)
    for bad in (0.0, 1.5, 2):
        with pytest.raises(ValueError, match="max_samples"):
            PACBayesForestClassifier(max_samples=bad).fit(X, y)
    with pytest.raises(ValueError, match="splitter"):
        PACBayesForestClassifier(splitter="worst").fit(X, y)
    with pytest.raises(ValueError, match="n_estimators"):
        PACBayesForestClassifier(n_estimators=0).fit(X, y)
    for bad in (-1.0, np.nan, np.inf):
        with pytest.raises(ValueError, match="lambda1"):
            PACBayesForestClassifier(lambda1=bad).fit(X, y)
        with pytest.raises(ValueError, match="lambda2"):
            PACBayesForestClassifier(lambda2=bad).fit(X, y)
    with pytest.raises(ValueError, match="max_features"):
        PACBayesForestClassifier(max_features="half").fit(X, y)
    with pytest.raises(ValueError, match="empty_cells"):
        PACBayesForestClassifier(empty_cells="nearest").fit(X, y)
    with pytest.raises(ValueError, match="one class"):
        PACBayesForestClassifier().fit(X, np.zeros(X.shape[0]))
    est = PACBayesForestClassifier(n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :2])


@pytest.mark.parametrize("seed", range(6))
def test_leaf_shares_match_path_walks(seed):
    """The one-pass sparse shares against a walk up each leaf's path, on trees whose ids
    are not in preorder, with many classes (the share buffer grows) and zero weights."""
    from prunus.tree._testing import random_tree
    from prunus.tree.dyadic import _preorder
    from prunus.voting._forest_kernels import _leaf_shares

    rng = np.random.default_rng(seed)
    tree = random_tree(rng, 60)
    n_classes = 30
    label = rng.integers(0, n_classes, tree.n_nodes)
    weight = rng.random(tree.n_nodes) * (rng.random(tree.n_nodes) < 0.8)
    weight[0] = 0.5
    order = _preorder(tree.children_left, tree.children_right)
    assert sorted(order) == list(range(tree.n_nodes))
    start, count, cls, val = _leaf_shares(order, tree.parent, tree.children_left, label, weight, n_classes)
    for leaf in np.flatnonzero(tree.is_leaf):
        want = np.zeros(n_classes)
        node = leaf
        while node != -1:
            want[label[node]] += weight[node]
            node = tree.parent[node]
        got = np.zeros(n_classes)
        got[cls[start[leaf] : start[leaf] + count[leaf]]] = val[start[leaf] : start[leaf] + count[leaf]]
        np.testing.assert_allclose(got, want / want.sum(), rtol=1e-13, atol=0)


def test_one_se_rule_picks_the_least_smoothing_point_within_one_standard_error():
    from prunus.voting._forest import least_smoothing, one_se

    points = [{"lambda1": a, "lambda2": b} for a in (0.25, 1.0, 4.0) for b in (0.0, 0.5)]
    errors = np.array([0.30, 0.31, 0.20, 0.26, 0.24, 0.21])
    assert least_smoothing(points, errors, 0.05) == 4  # 0.24 (lambda1=4, lambda2=0) within 0.20 + 0.05
    assert least_smoothing(points, errors, 0.02) == 5  # only 0.20 and 0.21 within: lambda1=4, lambda2=0.5
    assert least_smoothing(points, errors, 0.0) == 2  # the plain minimum
    assert one_se(0.2, np.ones(100)) == pytest.approx(0.04)
    assert one_se(0.2, np.full(100, 3.0)) == pytest.approx(0.04)  # effective n: 100 rows
    assert one_se(0.2, np.r_[np.ones(50), np.zeros(50)]) == pytest.approx(np.sqrt(0.16 / 50))
