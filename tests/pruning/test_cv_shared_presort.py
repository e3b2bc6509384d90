"""Cross-validation on the shared presorted order equals growing every fold
from scratch; threads equal sequential; missing values flow through pruning."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from prunus import CARTClassifier, CARTRegressor
from prunus.pruning import cost_complexity_path, squared_error_path
from prunus.pruning import selection as sel
from prunus.tree import Tree, grow_cart
from prunus.tree.cart import CARTGrower, GrowthParams


def _data(seed, n=300, d=4, nan_rate=0.1, regression=False):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 12, size=(n, d)).astype(float)
    if regression:
        y = X[:, 0] * 2.0 + (X[:, 1] > 6) * 5.0 + rng.normal(0, 2.0, n)
    else:
        y = ((X[:, 0] + X[:, 1] + rng.integers(0, 6, n)) > 13).astype(np.int64) + (X[:, 2] > 9)
    X[rng.random((n, d)) < nan_rate] = np.nan
    w = rng.integers(1, 4, n).astype(float)
    return X, y, w


def _fold_reference(X, y, w, parts, test, betas, regression):
    """Loss of one fold's path at ``betas``, its tree grown from the fold's own rows copied out of X."""
    grow_rows, prune_rows = parts
    if regression:
        tree = grow_cart(X[grow_rows], y[grow_rows], criterion="squared_error", sample_weight=w[grow_rows])
        path = squared_error_path(tree, tree.node_moments(X[prune_rows], y[prune_rows], w[prune_rows]))
        return path.squared_error(X[test], y[test], w[test], betas)
    tree = grow_cart(X[grow_rows], y[grow_rows], sample_weight=w[grow_rows], n_classes=3)
    path = cost_complexity_path(tree, tree.node_counts(X[prune_rows], y[prune_rows], w[prune_rows], n_classes=3))
    return path.misclassified(tree.node_counts(X[test], y[test], w[test], n_classes=3), betas)


@pytest.mark.parametrize("regression", [False, True])
@pytest.mark.parametrize("method", ["M2", "M1"])
@pytest.mark.parametrize("seed", [0, 1])
def test_cv_on_shared_order_equals_folds_grown_from_scratch(method, seed, regression):
    X, y, w = _data(seed, regression=regression)
    if regression:
        grower = CARTGrower(X, y, regression=True)
        params = GrowthParams("squared_error", None, 2, 1, 0.0, None, None)
    else:
        grower = CARTGrower(X, y, n_classes=3)
        params = GrowthParams("gini", None, 2, 1, 0.0, None, None)
    folds = [(np.setdiff1d(np.arange(len(y)), test), test) for test in np.array_split(np.arange(len(y)), 5)]
    full, _ = sel.build_path(grower, np.arange(len(y)), w, method, params, 7, np.random.RandomState(seed))
    betas = sel.cv_temperatures(full.alphas, sel.root_temperature(grower))
    shared, held = sel.cv_risks(grower, w, folds, method, params, 7, betas, np.random.RandomState(seed))

    # Reference: every fold copies its rows out of X and grows from scratch.
    seeds = np.random.RandomState(seed).randint(2**31 - 1, size=len(folds))
    for k, ((train, test), fold_seed) in enumerate(zip(folds, seeds)):
        parts = sel.learning_parts(train, method, np.random.RandomState(fold_seed))
        want = _fold_reference(X, y, w, parts, test, betas, regression)
        if regression:  # the same sums, added in another order
            np.testing.assert_allclose(shared[k], want, rtol=1e-9)
        else:
            np.testing.assert_array_equal(shared[k], want)
        assert held[k] == w[test].sum()


@pytest.mark.parametrize("estimator", [CARTClassifier, CARTRegressor])
def test_threads_equal_sequential(estimator):
    X, y, w = _data(3, n=600, regression=estimator is CARTRegressor)
    a = estimator(selection="cv", cv=5, random_state=0).fit(X, y, sample_weight=w)
    b = estimator(selection="cv", cv=5, random_state=0, n_jobs=2).fit(X, y, sample_weight=w)
    assert a.tree_ == b.tree_ and a.selected_index_ == b.selected_index_
    for key in ("mean_risk", "std_risk", "se_risk"):
        np.testing.assert_array_equal(a.cv_results_[key], b.cv_results_[key])


@pytest.mark.parametrize("estimator", [CARTClassifier, CARTRegressor])
def test_verbose_shows_one_step_per_growth(capsys, estimator):
    X, y, _ = _data(4, regression=estimator is CARTRegressor)
    estimator(selection="cv", cv=4, random_state=0, verbose=1, missing="surrogate").fit(X, y)
    err = capsys.readouterr().err
    assert "CART growths" in err and "5/5" in err
    estimator(selection="cv", cv=4, random_state=0).fit(X, y)
    assert capsys.readouterr().err == ""


def test_missing_values_flow_through_pruning_and_prediction():
    X, y, _ = _data(5, n=400, nan_rate=0.2)
    est = CARTClassifier(selection="cv", cv=5, random_state=0).fit(X, y)
    assert np.isnan(X).any()
    leaves = est.pruned_tree_.apply(X)
    np.testing.assert_array_equal(est.predict(X), est.classes_[est._leaf_label[leaves]])
    # A column missing only at prediction follows each node's stored side.
    Z = X.copy()
    Z[:, 0] = np.nan
    assert est.predict(Z).shape == (len(y),)


def test_from_sklearn_honours_missing_go_to_left():
    X, y, _ = _data(6, n=400, nan_rate=0.25)
    est = DecisionTreeClassifier(random_state=0).fit(X, y)
    assert est.tree_.missing_go_to_left[est.tree_.children_left != -1].any()
    tree = Tree.from_sklearn(est)
    np.testing.assert_array_equal(tree.apply(X), est.apply(X))
    np.testing.assert_array_equal(tree.decision_path(X).toarray(), est.decision_path(X).toarray())


def test_pickled_tree_keeps_missing_sides():
    import pickle

    X, y, _ = _data(7, nan_rate=0.3)
    tree = grow_cart(X, y)
    assert tree.missing_go_to_left.any()
    again = pickle.loads(pickle.dumps(tree))
    assert again == tree
    np.testing.assert_array_equal(again.apply(X), tree.apply(X))
