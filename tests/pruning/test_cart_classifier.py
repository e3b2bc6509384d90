"""CARTClassifier: methods M1/M2, every selection rule; the scikit-learn contract of both CART estimators."""

import pickle

import numpy as np
import pytest

from prunus.datasets import make_gey_hypercube
from prunus.pruning import CARTClassifier, CARTRegressor, cost_complexity_path
from prunus.pruning.selection import ROOT_TEMPERATURE, cv_temperatures
from prunus.tree import grow_cart
from prunus.utils._testing import sklearn_check_params

from ._brute import all_pruned_subtrees, exact_node_risk


def _problem(n=600, q=0.2, seed=0, d=2):
    data = make_gey_hypercube(n_samples=n, n_features=d, q=q, random_state=seed)
    return data.X, data.y


@pytest.mark.parametrize(
    "estimator, check",
    sklearn_check_params(
        [
            *[
                cls(random_state=0, **kw)
                for cls in (CARTClassifier, CARTRegressor)
                for kw in (
                    {},
                    {"method": "M1"},
                    {"selection": "cv", "cv": 3},
                    {"selection": "cv-1se", "cv": 3},
                    {"selection": "slope"},
                    {"selection": "alpha", "alpha": 0.01},
                )
            ],
            CARTClassifier(selection="penalty", kappa=2.0, random_state=0),
            CARTRegressor(selection="penalty", penalty_c=0.5, random_state=0),
        ],
    ),
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_m2_prunes_with_the_learning_sample():
    X, y = _problem()
    est = CARTClassifier(selection="alpha", alpha=0.0, random_state=0).fit(X, y)
    assert np.array_equal(est.pruning_indices_, np.arange(X.shape[0]))
    counts = est.tree_.node_counts(X, y, n_classes=2)
    ref = cost_complexity_path(est.tree_, counts)
    assert np.array_equal(est.path_.alphas, ref.alphas)


def test_m1_uses_only_l2_counts_for_labels_and_risks():
    X, y = _problem(n=501)
    est = CARTClassifier(method="M1", selection="alpha", alpha=0.0, random_state=3).fit(X, y)
    l2 = est.pruning_indices_
    assert l2.shape[0] == 501 - 501 // 2
    l1 = np.setdiff1d(np.arange(501), l2)
    # T_max was grown on L1 alone ...
    grown = grow_cart(X[l1], y[l1], random_state=np.random.RandomState(3).randint(2**31 - 1))
    assert grown == est.tree_
    # ... and every pruning statistic comes from L2's counts.
    ref = cost_complexity_path(est.tree_, est.tree_.node_counts(X[l2], y[l2], n_classes=2))
    assert np.array_equal(est.path_.alphas, ref.alphas)
    assert np.array_equal(est.path_.risks, ref.risks)
    assert np.array_equal(est.path_.label, ref.label)
    # Changing L1's labels after growing cannot change them: relabel L1 and
    # recompute from the same tree and L2.
    y_flipped = y.copy()
    y_flipped[l1] = 1 - y_flipped[l1]
    ref2 = cost_complexity_path(est.tree_, est.tree_.node_counts(X[l2], y_flipped[l2], n_classes=2))
    assert np.array_equal(ref.alphas, ref2.alphas)


@pytest.mark.parametrize("method", ["M1", "M2"])
def test_holdout_is_argmin_of_eq10(method):
    X, y = _problem(n=800, q=0.25, seed=1)
    est = CARTClassifier(method=method, test_size=0.25, random_state=5).fit(X, y)
    path = est.path_
    # The test sample: the same draws as fit (grow seed first, then the split).
    n_test = int(np.ceil(0.25 * X.shape[0]))
    rng = np.random.RandomState(5)
    rng.randint(2**31 - 1)
    test = np.sort(rng.permutation(X.shape[0])[:n_test])
    risks = []
    for k in range(len(path)):
        sub, index = path.subtree(k, return_index=True)
        pred = path.label[index[sub.apply(X[test])]]
        risks.append(np.mean(pred != y[test]))
    risks = np.array(risks)
    assert np.allclose(est.test_risk_, risks, rtol=0, atol=1e-12)
    best = risks.min()
    assert est.selected_index_ == np.flatnonzero(risks == best).max()
    assert np.intersect1d(test, est.pruning_indices_).size == 0


def _slow_cv_reference(X, y, folds, betas, random_state):
    """Refit a tree per fold and per alpha and count held-out errors."""
    wrong = np.zeros((len(folds), len(betas)))
    for f, (train, test) in enumerate(folds):
        for j, beta in enumerate(betas):
            est = CARTClassifier(selection="alpha", alpha=float(beta), random_state=random_state)
            est.fit(X[train], y[train])
            wrong[f, j] = np.sum(est.predict(X[test]) != y[test])
    return wrong.sum(axis=0) / X.shape[0]


def test_cv_matches_refitting_per_alpha():
    X, y = _problem(n=240, q=0.2, seed=2, d=3)
    rng = np.random.RandomState(0)
    perm = rng.permutation(X.shape[0])
    folds = [(np.setdiff1d(perm, part), np.sort(part)) for part in np.array_split(perm, 4)]
    est = CARTClassifier(selection="cv", cv=folds, random_state=11).fit(X, y)
    betas = cv_temperatures(est.path_.alphas)
    assert np.array_equal(est.cv_results_["alpha"], betas)
    assert betas[-1] == ROOT_TEMPERATURE
    ref = _slow_cv_reference(X, y, folds, betas, random_state=11)
    assert np.allclose(est.cv_results_["mean_risk"], ref, rtol=0, atol=1e-12)
    best = ref.min()
    assert est.selected_index_ == np.flatnonzero(ref == best).max()


def test_one_se_picks_smallest_tree_within_one_se():
    X, y = _problem(n=1000, q=0.3, seed=4)
    est = CARTClassifier(selection="cv-1se", cv=5, random_state=0).fit(X, y)
    res = est.cv_results_
    best = np.argmin(res["mean_risk"])
    within = np.flatnonzero(res["mean_risk"] <= res["mean_risk"][best] + res["se_risk"][best])
    assert est.selected_index_ == within.max()
    assert est.pruned_tree_.n_leaves == res["n_leaves"][within].min()
    plain = CARTClassifier(selection="cv", cv=5, random_state=0).fit(X, y)
    assert est.pruned_tree_.n_leaves <= plain.pruned_tree_.n_leaves
    assert np.allclose(res["se_risk"], np.sqrt(res["mean_risk"] * (1 - res["mean_risk"]) / X.shape[0]))


@pytest.mark.parametrize("seed", range(6))
def test_subadditive_penalty_minimiser_lies_in_the_sequence(seed):
    # Section 4 remark (Scott): minimising R(T) + c (|T|/n)^(kappa/(2 kappa-1))
    # over ALL pruned subtrees gives a tree of the CART sequence.
    rng = np.random.RandomState(seed)
    X = rng.random_sample((60, 2))
    y = (rng.random_sample(60) < 0.3 + 0.4 * (X[:, 0] > 0.5)).astype(int)
    tree = grow_cart(X, y, max_depth=4, random_state=0)
    counts = tree.node_counts(X, y, n_classes=2)
    path = cost_complexity_path(tree, counts)
    risk = [float(exact_node_risk(r)) / 60 for r in counts]
    subtrees = all_pruned_subtrees(tree)
    for kappa in (1.0, 1.5, 3.0):
        p = kappa / (2 * kappa - 1)
        for c in (0.01, 0.05, 0.2, 1.0):
            best = min(sum(risk[t] for t in s) + c * (len(s) / 60) ** p for s in subtrees)
            on_path = min(path.risks + c * (path.n_leaves / 60) ** p)
            assert on_path == pytest.approx(best, abs=1e-12)


def test_slope_heuristic_uses_twice_the_minimal_constant():
    X, y = _problem(n=2000, q=0.2, seed=7)
    est = CARTClassifier(selection="slope", random_state=0).fit(X, y)
    path = est.path_
    large = path.n_leaves >= 0.5 * path.n_leaves[0]
    slope = np.polyfit(path.n_leaves[large] / 2000.0, path.risks[large], 1)[0]
    assert est.penalty_c_ == pytest.approx(-2 * slope)
    crit = path.risks + est.penalty_c_ * path.n_leaves / 2000.0
    assert crit[est.selected_index_] == crit.min()
    # Fewer leaves than T_max on a 4-cell problem with 20% noise.
    assert est.pruned_tree_.n_leaves < path.n_leaves[0] / 3


def test_alpha_selection_is_t_alpha():
    X, y = _problem()
    full = CARTClassifier(selection="alpha", alpha=0.0, random_state=0).fit(X, y)
    for k, a in enumerate(full.path_.alphas):
        est = CARTClassifier(selection="alpha", alpha=float(a), random_state=0).fit(X, y)
        assert est.selected_index_ == k
        assert est.pruned_tree_.n_leaves == full.path_.n_leaves[k]


def test_selection_recovers_bayes_structure():
    # Gey's example 1 in 2-D: the Bayes rule has 4 cells; the excess risk of
    # the selected tree must be small compared with the noise level. (The
    # slope heuristic is left out: on 0-1 loss its c_min is the rate at which
    # pure leaves fit noise, and 2 c_min still keeps noise splits; see the
    # reproduction report.)
    data = make_gey_hypercube(n_samples=4000, n_features=2, q=0.2, random_state=0)
    from prunus.datasets import excess_risk

    for selection in ("holdout", "cv", "cv-1se"):
        est = CARTClassifier(selection=selection, cv=5, random_state=0).fit(data.X, data.y)
        assert excess_risk(est.predict, data) < 0.03, selection


def test_string_labels_and_proba():
    X, y = _problem()
    labels = np.array(["neg", "pos"])[y]
    est = CARTClassifier(selection="cv", cv=3, random_state=0).fit(X, labels)
    assert set(est.predict(X)) <= {"neg", "pos"}
    proba = est.predict_proba(X)
    assert np.allclose(proba.sum(axis=1), 1.0)
    assert np.array_equal(est.classes_[proba.argmax(axis=1)], est.predict(X))


def test_sample_weight_changes_the_fit_and_zero_weight_rows_count_for_nothing():
    X, y = _problem(n=400)
    w = np.ones(400)
    w[:200] = 0.0
    a = CARTClassifier(selection="alpha", alpha=0.002, random_state=0).fit(X, y, sample_weight=w)
    # Zero-weight rows still route but add nothing to the pruning counts.
    assert a.path_.counts[0].sum() == 200
    b = CARTClassifier(selection="alpha", alpha=0.002, random_state=0).fit(X[200:], y[200:])
    assert np.array_equal(a.predict(X), b.predict(X))


def test_pickle_round_trip():
    X, y = _problem()
    est = CARTClassifier(selection="cv", cv=3, random_state=0).fit(X, y)
    clone = pickle.loads(pickle.dumps(est))
    assert np.array_equal(clone.predict_proba(X), est.predict_proba(X))
    assert clone.pruned_tree_ == est.pruned_tree_


def test_parallel_folds_equal_sequential():
    X, y = _problem(n=500)
    a = CARTClassifier(selection="cv", cv=4, random_state=0).fit(X, y)
    b = CARTClassifier(selection="cv", cv=4, n_jobs=2, random_state=0).fit(X, y)
    assert np.array_equal(a.cv_results_["mean_risk"], b.cv_results_["mean_risk"])


@pytest.mark.parametrize(
    "params, X, y, w, match",
    [
        ({}, [[np.inf, 1.0], [1.0, 2.0]] * 5, [0, 1] * 5, None, "infinity"),
        ({}, [[1.0], [2.0], [3.0], [4.0]], [0, 1, 0, 1], [1, np.inf, 1, 1], "sample_weight"),
        ({"criterion": "squared"}, [[1.0], [2.0]], [0, 1], None, "criterion"),
        ({"max_depth": 0}, [[1.0], [2.0]], [0, 1], None, "max_depth"),
        ({}, [[np.inf, 1.0], [1.0, 2.0]] * 5, [0, 1] * 5, None, "infinity"),
        ({}, [1.0, 2.0, 3.0, 4.0], [0, 1, 0, 1], None, "2D array"),
        ({}, [[1.0], [2.0], [3.0]], [0, 1], None, "inconsistent numbers of samples"),
        ({}, [[1.0], [2.0], [3.0], [4.0]], [0, 1, 0, 1], [1, -1, 1, 1], "sample_weight"),
        ({}, [[1.0], [2.0], [3.0], [4.0]], [0, 1, 0, 1], [1, np.nan, 1, 1], "sample_weight"),
        ({}, np.empty((0, 2)), [], None, "0 sample"),
        ({}, [[1.0], [2.0], [3.0]], [1, 1, 1], None, "one class"),
        ({"test_size": 0.0}, [[1.0], [2.0], [3.0], [4.0]], [0, 1, 0, 1], None, "test_size"),
        ({"test_size": 1.5}, [[1.0], [2.0], [3.0], [4.0]], [0, 1, 0, 1], None, "test_size"),
        ({"test_size": 0.9}, [[1.0], [2.0]], [0, 1], None, "test_size"),
        ({"method": "M1", "test_size": 0.5}, [[1.0], [2.0]], [0, 1], None, "method='M1'"),
        ({"method": "M3"}, [[1.0], [2.0]], [0, 1], None, "method"),
        ({"selection": "aic"}, [[1.0], [2.0]], [0, 1], None, "selection"),
        ({"selection": "alpha"}, [[1.0], [2.0]], [0, 1], None, "alpha"),
        ({"selection": "alpha", "alpha": -1.0}, [[1.0], [2.0]], [0, 1], None, "alpha"),
        ({"selection": "cv", "cv": 1}, [[1.0], [2.0]], [0, 1], None, "cv"),
        ({"selection": "cv", "cv": 5}, [[1.0], [2.0], [3.0]], [0, 1, 0], None, "cv=5"),
        ({"selection": "penalty", "kappa": 0.5}, [[1.0], [2.0]], [0, 1], None, "kappa"),
        ({"selection": "penalty", "penalty_c": -1.0}, [[1.0], [2.0]], [0, 1], None, "penalty_c"),
    ],
)
def test_bad_input_names_the_argument(params, X, y, w, match):
    with pytest.raises(ValueError, match=match):
        CARTClassifier(**params).fit(np.asarray(X, dtype=float), np.asarray(y), sample_weight=w)


def test_feature_count_mismatch_at_predict():
    X, y = _problem()
    est = CARTClassifier(random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(np.ones((3, 5)))


@pytest.mark.parametrize(
    "pairs, message",
    [
        (
            [(np.arange(10), np.arange(10, 61))] * 2,
            r"^cv yielded a fold with empty or out-of-range indices \(n_samples = 60\)",
        ),
        ([(np.arange(30), np.arange(0))] * 2, r"^cv yielded a fold with empty or out-of-range indices"),
        ([(np.arange(30), np.arange(30, 60), np.arange(3))] * 2, r"^cv must yield \(train, test\) index pairs"),
        ([(np.arange(30), np.arange(30, 60))], r"^cv must give at least 2 folds, got 1"),
    ],
)
@pytest.mark.parametrize("cls", [CARTClassifier, CARTRegressor])
def test_cv_pairs_are_checked(cls, pairs, message):
    """(train, test) pairs given as cv are checked against the rows before a fold indexes them."""
    X, y = _problem(n=60)
    with pytest.raises(ValueError, match=message):
        cls(selection="cv", cv=pairs, random_state=0).fit(X, y)
