"""CARTRegressor: methods M1/M2, every selection rule, CV on the shared
presort, the scikit-learn contract; CARTClassifier refusing a regression target."""

import pickle
import warnings

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, make_friedman1
from sklearn.metrics import r2_score

from prunus import CARTClassifier, CARTRegressor
from prunus.pruning import selection as sel
from prunus.pruning import squared_error_path
from prunus.tree import grow_cart
from prunus.tree.cart import CARTGrower, GrowthParams


def _data(seed, n=300, d=4, nan_rate=0.1):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 12, size=(n, d)).astype(float)
    y = X[:, 0] * 2.0 + (X[:, 1] > 6) * 5.0 + rng.normal(0, 2.0, n)
    X[rng.random((n, d)) < nan_rate] = np.nan
    w = rng.integers(1, 4, n).astype(float)
    return X, y, w


def test_m2_prunes_with_the_learning_sample():
    X, y, w = _data(0)
    est = CARTRegressor(selection="alpha", alpha=0.0, random_state=0).fit(X, y, sample_weight=w)
    assert np.array_equal(est.pruning_indices_, np.arange(X.shape[0]))
    ref = squared_error_path(est.tree_, est.tree_.node_moments(X, y, w))
    np.testing.assert_allclose(est.path_.alphas, ref.alphas, rtol=1e-9, atol=1e-12)
    assert np.array_equal(est.path_.n_leaves, ref.n_leaves)
    assert est.tree_ == grow_cart(X, y, criterion="squared_error", sample_weight=w, max_surrogates=5)
    # T_1 predicts the training means: the training R^2 of the unpruned sequence head.
    np.testing.assert_allclose(est.predict(X), est.path_.value[est.tree_.apply(X)])


def test_m1_grows_on_one_half_and_prunes_with_the_other():
    X, y, w = _data(1)
    est = CARTRegressor(method="M1", selection="alpha", alpha=0.0, random_state=3).fit(X, y, sample_weight=w)
    prune = est.pruning_indices_
    assert prune.shape[0] == X.shape[0] - X.shape[0] // 2
    grow = np.setdiff1d(np.arange(X.shape[0]), prune)
    assert est.tree_ == grow_cart(X[grow], y[grow], criterion="squared_error", sample_weight=w[grow], max_surrogates=5)
    moments = est.tree_.node_moments(X[prune], y[prune], w[prune])
    np.testing.assert_allclose(est.path_.moments, moments, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("method", ["M2", "M1"])
def test_holdout_selects_the_least_test_error(method):
    X, y, w = _data(2, n=400)
    est = CARTRegressor(method=method, test_size=0.25, random_state=5).fit(X, y, sample_weight=w)
    assert est.test_risk_.shape == (len(est.path_),)
    # With M2 the test rows are those outside L, the pruning sample: their error at each T_k row by row.
    test = np.setdiff1d(np.arange(400), est.pruning_indices_) if method == "M2" else None
    if test is not None:
        for k in range(len(est.path_)):
            sub, index = est.path_.subtree(k, return_index=True)
            pred = est.path_.value[index[sub.apply(X[test])]]
            mse = np.sum(w[test] * (y[test] - pred) ** 2) / w[test].sum()
            assert est.test_risk_[k] == pytest.approx(mse, rel=1e-9)
    k = est.selected_index_
    assert est.test_risk_[k] == est.test_risk_.min()
    assert np.all(est.test_risk_[k + 1 :] > est.test_risk_[k])


@pytest.mark.parametrize("one_se", [False, True])
def test_cv_selection_and_summary(one_se):
    X, y, w = _data(3, n=500)
    est = CARTRegressor(selection="cv-1se" if one_se else "cv", cv=5, random_state=0).fit(X, y, sample_weight=w)
    res = est.cv_results_
    assert res["alpha"].shape == res["mean_risk"].shape == (len(est.path_),)
    best = int(np.flatnonzero(res["mean_risk"] == res["mean_risk"].min()).max())
    if one_se:
        bound = res["mean_risk"][best] + res["se_risk"][best]
        assert est.selected_index_ == np.flatnonzero(res["mean_risk"] <= bound).max()
    else:
        assert est.selected_index_ == best
    assert np.all(res["se_risk"] > 0)


def test_cv_standard_error_is_rparts_per_row_one():
    X, y, w = _data(4, n=200, nan_rate=0.0)
    grower = CARTGrower(X, y, regression=True)
    params = GrowthParams("squared_error", None, 2, 1, 0.0, None, None)
    folds = [(np.setdiff1d(np.arange(200), t), t) for t in np.array_split(np.arange(200), 4)]
    full, _ = sel.build_path(grower, np.arange(200), w, "M2", params, 7, np.random.RandomState(0))
    betas = sel.cv_temperatures(full.alphas, sel.root_temperature(grower))
    assert betas[-1] == 2.0 * (y.max() - y.min()) ** 2
    squares = []
    loss, held = sel.cv_risks(grower, w, folds, "M2", params, 7, betas, np.random.RandomState(0), squares=squares)
    mean, _, se = sel.cv_summary(loss, held, 200, squares[0])
    # Per-row errors of every fold at every beta, by hand.
    errors = np.zeros((200, betas.shape[0]))
    seeds = np.random.RandomState(0).randint(2**31 - 1, size=4)
    for (train, test), fold_seed in zip(folds, seeds):
        path, _ = sel.build_path(grower, train, w, "M2", params, 7, np.random.RandomState(fold_seed))
        for j, b in enumerate(betas):
            k = path.index(b)
            sub, index = path.subtree(k, return_index=True)
            errors[test, j] = (y[test] - path.value[index[sub.apply(X[test])]]) ** 2
    want_mean = (w[:, None] * errors).sum(axis=0) / w.sum()
    # rpart's per-row SE: sqrt((weighted mean of e^2 - mean^2) / n).
    want_se = np.sqrt(((w[:, None] * errors**2).sum(axis=0) / w.sum() - want_mean**2) / 200)
    np.testing.assert_allclose(mean, want_mean, rtol=1e-9)
    np.testing.assert_allclose(se, want_se, rtol=1e-6)


@pytest.mark.parametrize("selection", ["slope", "penalty"])
def test_penalty_selections_minimise_the_penalised_risk(selection):
    X, y, _ = _data(6, n=400)
    est = CARTRegressor(selection=selection, penalty_c=None, random_state=0).fit(X, y)
    path, n = est.path_, X.shape[0]
    assert est.penalty_c_ == pytest.approx(2.0 * sel.minimal_penalty_constant(path, n))
    crit = path.risks + est.penalty_c_ * path.n_leaves / n
    assert est.selected_index_ == int(np.flatnonzero(crit == crit.min()).max())
    est = CARTRegressor(selection="penalty", penalty_c=1e9).fit(X, y)
    assert est.pruned_tree_.n_leaves == 1


def test_alpha_selection_equals_sklearn_ccp_alpha():
    from sklearn.tree import DecisionTreeRegressor

    X, y = make_friedman1(300, random_state=0)
    X = X.astype(np.float32).astype(np.float64)
    for alpha in (0.0, 0.01, 0.1, 1.0):
        est = CARTRegressor(selection="alpha", alpha=alpha).fit(X, y)
        sk = DecisionTreeRegressor(ccp_alpha=alpha, random_state=0).fit(X, y)
        assert est.pruned_tree_.n_leaves == sk.get_n_leaves()
        np.testing.assert_allclose(est.predict(X), sk.predict(X), rtol=1e-9)


def test_score_is_r2_and_pickle_round_trips():
    X, y = load_diabetes(return_X_y=True)
    est = CARTRegressor(selection="cv", cv=5, random_state=0).fit(X[:350], y[:350])
    assert est.score(X[350:], y[350:]) == pytest.approx(r2_score(y[350:], est.predict(X[350:])))
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict(X), est.predict(X))
    labels = est.node_labels()
    assert len(labels) == est.pruned_tree_.n_nodes and labels[0].startswith("mean = ")
    text = est.pruned_tree_.export_text(node_labels=labels)
    assert "mean = " in text


def test_missing_values_flow_through_pruning_and_prediction():
    X, y, _ = _data(5, n=400, nan_rate=0.2)
    est = CARTRegressor(selection="cv", cv=5, random_state=0).fit(X, y)
    leaves = est.pruned_tree_.apply(X)
    np.testing.assert_array_equal(est.predict(X), est._leaf_value[leaves])
    Z = X.copy()
    Z[:, 0] = np.nan
    assert np.isfinite(est.predict(Z)).all()


@pytest.mark.parametrize(
    "bad, match",
    [
        (np.array([1.0, np.nan] * 10), "y"),
        (np.array([1.0, np.inf] * 10), "y"),
        (np.array(["a", "b"] * 10), "y must hold numbers"),
        (np.array(["a", "b"] * 10, dtype=object), "y must hold numbers"),
        (np.ones((20, 2)), "y must be 1-D"),
    ],
)
def test_bad_y_raises_naming_y(bad, match):
    X = np.arange(20.0)[:, None]
    with pytest.raises(ValueError, match=match):
        CARTRegressor().fit(X, bad)


def test_classifier_refuses_a_continuous_target_naming_the_regressor():
    X = np.arange(20.0)[:, None]
    with pytest.raises(ValueError, match="CARTRegressor"):
        CARTClassifier().fit(X, np.linspace(0, 1, 20) + 0.01)


def test_classifier_warns_on_a_target_of_many_numeric_values():
    X, y = load_diabetes(return_X_y=True)
    with pytest.warns(UserWarning, match="CARTRegressor may be meant"):
        CARTClassifier(selection="alpha", alpha=0.0).fit(X, y.astype(int))
    Xs, ys = X[:200], (np.arange(200) % 3)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        CARTClassifier(selection="alpha", alpha=0.0).fit(Xs, ys)


def test_feature_importances_are_the_normalized_squared_error_decreases():
    """scikit-learn's feature_importances_ of a regression tree, summed plainly over the rows of each node."""
    X, y = make_friedman1(n_samples=300, random_state=0)
    est = CARTRegressor(selection="alpha", alpha=0.05, random_state=0).fit(X, y)
    tree = est.pruned_tree_
    assert tree.n_leaves > 3
    rows = tree.decision_path(X).toarray().astype(bool)  # rows[i, t]: row i passes through node t

    def sum_of_squares(t):
        return float(((y[rows[:, t]] - y[rows[:, t]].mean()) ** 2).sum())

    want = np.zeros(X.shape[1])
    for t in np.flatnonzero(tree.children_left >= 0):
        left, right = tree.children_left[t], tree.children_right[t]
        want[tree.feature[t]] += sum_of_squares(t) - sum_of_squares(left) - sum_of_squares(right)
    np.testing.assert_allclose(est.feature_importances_, want / want.sum(), rtol=1e-9)
    assert not CARTRegressor(selection="alpha", alpha=1e9).fit(X, y).feature_importances_.any()


def test_cv_table_is_rparts_anova_cptable():
    """printcp of rpart(y ~ ., method = "anova", cp = 0, minsplit = 2, minbucket = 1) on the diabetes data.

    Recorded with R's rpart 4.1 (first rows: the deeper rows depend on how ties between splits are broken).
    """
    X, y = load_diabetes(return_X_y=True)
    table = CARTRegressor(selection="alpha", alpha=0.0).fit(X, y).cv_table_
    assert table.root_weight == 442
    np.testing.assert_allclose(table.root_error, 2621009.124, rtol=1e-9)
    np.testing.assert_allclose(table.cp[:3], [2.915416506e-01, 8.522755749e-02, 5.660089012e-02], rtol=1e-9)
    np.testing.assert_allclose(table.rel_error[:3], [1.0, 7.084583494e-01, 6.232307919e-01], rtol=1e-9)
    np.testing.assert_array_equal(table.nsplit[:3], [0, 1, 2])
    assert str(table).startswith("Root node error: 2.621e+06/442 = 5929.9\n") and table.xerror is None


def test_regressor_select_equals_a_fresh_fit():
    """select (rpart's prune) gives the subtree a fresh fit with that selection gives, and leaves self alone."""
    X, y = make_friedman1(n_samples=300, random_state=0)
    cv = CARTRegressor(selection="cv", cv=5, random_state=0).fit(X, y)
    table = cv.cv_table_
    assert table.xerror is not None and len(table) == len(cv.path_)
    one_se = cv.select(rule="cv-1se")
    fresh = CARTRegressor(selection="cv-1se", cv=5, random_state=0).fit(X, y)
    assert one_se.selected_index_ == fresh.selected_index_ and one_se.selected_index_ != cv.selected_index_
    np.testing.assert_array_equal(one_se.predict(X), fresh.predict(X))
    np.testing.assert_array_equal(one_se.feature_importances_, fresh.feature_importances_)
    assert cv.selected_index_ == CARTRegressor(selection="cv", cv=5, random_state=0).fit(X, y).selected_index_
    alpha = float(cv.path_.alphas[3])
    np.testing.assert_array_equal(
        cv.select(alpha=alpha).predict(X), CARTRegressor(selection="alpha", alpha=alpha).fit(X, y).predict(X)
    )
    row = 4
    assert cv.select(cp=float(table.cp[row])).selected_index_ == table.path_index[row]


def test_regressor_summary_prints_every_node_of_the_selected_tree():
    """rpart's print of an "anova" tree: per node n, the sum of squares and the mean of the rows in it."""
    import pandas as pd

    X, y = make_friedman1(n_samples=200, random_state=1)
    frame = pd.DataFrame(X, columns=[f"v{j}" for j in range(X.shape[1])])
    est = CARTRegressor(selection="alpha", alpha=0.5).fit(frame, y)
    tree = est.pruned_tree_
    text = est.summary(decimals=2)
    lines = text.splitlines()
    assert lines[0] == "n = 200" and lines[2] == "node), split, n, deviance, yval"
    rows = tree.decision_path(X).toarray().astype(bool)
    for line in lines[5 : 5 + tree.n_nodes]:
        node = int(line.split(")")[0])
        words = line.rstrip(" *").split()
        n, deviance, mean = int(words[-3]), float(words[-2]), float(words[-1])
        in_node = y[rows[:, node]]
        assert n == in_node.size and line.endswith("*") == (tree.children_left[node] < 0)
        np.testing.assert_allclose(mean, in_node.mean(), rtol=1e-3)
        np.testing.assert_allclose(deviance, ((in_node - in_node.mean()) ** 2).sum(), rtol=1e-3)
        if node:
            assert words[1].startswith("v")  # the split, by column name
    with pytest.raises(ValueError, match="'decimals' parameter of node_labels"):
        est.node_labels(decimals=-1)
