"""Cross-validation on the shared presorted order equals growing every fold
from scratch; threads equal sequential; missing values flow through pruning."""

import numpy as np
import pytest
from sklearn.tree import DecisionTreeClassifier

from prunus import CARTClassifier
from prunus.pruning import cost_complexity_path
from prunus.pruning import selection as sel
from prunus.tree import Tree, grow_cart
from prunus.tree.cart import CARTGrower, GrowthParams


def _data(seed, n=300, d=4, nan_rate=0.1):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 12, size=(n, d)).astype(float)
    y = ((X[:, 0] + X[:, 1] + rng.integers(0, 6, n)) > 13).astype(np.int64) + (X[:, 2] > 9)
    X[rng.random((n, d)) < nan_rate] = np.nan
    w = rng.integers(1, 4, n).astype(float)
    return X, y, w


@pytest.mark.parametrize("method", ["M2", "M1"])
@pytest.mark.parametrize("seed", [0, 1])
def test_cv_on_shared_order_equals_folds_grown_from_scratch(method, seed):
    X, y, w = _data(seed)
    grower = CARTGrower(X, y, n_classes=3)
    params = GrowthParams("gini", None, 2, 1, 0.0, None, None)
    folds = [(np.setdiff1d(np.arange(len(y)), test), test) for test in np.array_split(np.arange(len(y)), 5)]
    full, _ = sel.build_path(grower, np.arange(len(y)), w, method, params, 7, np.random.RandomState(seed))
    betas = sel.cv_temperatures(full.alphas)
    shared, held = sel.cv_risks(grower, w, folds, method, params, 7, betas, np.random.RandomState(seed))

    # Reference: every fold copies its rows out of X and grows from scratch.
    seeds = np.random.RandomState(seed).randint(2**31 - 1, size=len(folds))
    for k, ((train, test), fold_seed) in enumerate(zip(folds, seeds)):
        rng = np.random.RandomState(fold_seed)
        if method == "M2":
            grow_rows = prune_rows = train
        else:
            perm = rng.permutation(train.shape[0])
            half = train.shape[0] // 2
            grow_rows, prune_rows = np.sort(train[perm[:half]]), np.sort(train[perm[half:]])
        tree = grow_cart(X[grow_rows], y[grow_rows], sample_weight=w[grow_rows], n_classes=3)
        counts = tree.node_counts(X[prune_rows], y[prune_rows], w[prune_rows], n_classes=3)
        path = cost_complexity_path(tree, counts)
        test_counts = tree.node_counts(X[test], y[test], w[test], n_classes=3)
        np.testing.assert_array_equal(shared[k], path.misclassified(test_counts, betas))
        assert held[k] == test_counts[0].sum()


def test_threads_equal_sequential():
    X, y, w = _data(3, n=600)
    a = CARTClassifier(selection="cv", cv=5, random_state=0).fit(X, y, sample_weight=w)
    b = CARTClassifier(selection="cv", cv=5, random_state=0, n_jobs=2).fit(X, y, sample_weight=w)
    assert a.tree_ == b.tree_ and a.selected_index_ == b.selected_index_
    for key in ("mean_risk", "std_risk", "se_risk"):
        np.testing.assert_array_equal(a.cv_results_[key], b.cv_results_[key])


def test_verbose_shows_one_step_per_growth(capsys):
    X, y, _ = _data(4)
    CARTClassifier(selection="cv", cv=4, random_state=0, verbose=1).fit(X, y)
    err = capsys.readouterr().err
    assert "CART growths" in err and "5/5" in err
    CARTClassifier(selection="cv", cv=4, random_state=0).fit(X, y)
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
