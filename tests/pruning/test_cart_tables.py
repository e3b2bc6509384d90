"""CARTClassifier after the fit: importances, rpart's CP table, select(), class_weight."""

import numpy as np
import pytest
from sklearn.utils.class_weight import compute_sample_weight

from prunus.datasets import make_gey_hypercube
from prunus.pruning import CARTClassifier, CPTable, cp_table, plot_cv
from prunus.pruning.selection import cv_temperatures
from prunus.tree import grow_cart
from prunus.tree._importance import classification_importances
from prunus.tree._testing import brute_importances


def _problem(n=400, q=0.25, seed=0, d=3):
    data = make_gey_hypercube(n_samples=n, n_features=d, q=q, random_state=seed)
    return data.X, data.y


def _folds(n, k=5):
    fold = np.arange(n) % k
    return [(np.flatnonzero(fold != j), np.flatnonzero(fold == j)) for j in range(k)]


# ------------------------------------------------------------- importances
@pytest.mark.parametrize("criterion", ["gini", "entropy", "misclassification"])
@pytest.mark.parametrize("method", ["M2", "M1"])
def test_importances_of_the_selected_tree(criterion, method):
    X, y = _problem(n=800, q=0.1)
    est = CARTClassifier(criterion=criterion, method=method, selection="cv", cv=_folds(len(y)), random_state=0)
    est.fit(X, y)
    # The pruning sample's counts, recounted from its rows: L for M2, L2 for M1.
    rows = est.pruning_indices_
    counts = est.pruned_tree_.node_counts(X[rows], y[rows], n_classes=2)
    np.testing.assert_allclose(
        est.feature_importances_, brute_importances(est.pruned_tree_, counts, criterion), atol=1e-12
    )
    np.testing.assert_allclose(
        est.variable_importance_,
        brute_importances(est.pruned_tree_, counts, criterion, normalize=False),
        rtol=1e-12,
        atol=1e-9,
    )
    assert est.pruned_tree_.n_leaves > 1 and est.feature_importances_.sum() == pytest.approx(1.0)


def test_importances_follow_the_selected_subtree():
    X, y = _problem()
    est = CARTClassifier(selection="alpha", alpha=0.0, random_state=0).fit(X, y)
    root = est.select(alpha=1.0)
    assert root.pruned_tree_.n_leaves == 1
    assert not root.feature_importances_.any() and not root.variable_importance_.any()
    full = classification_importances(est.tree_, est.path_.counts)
    assert not np.allclose(est.feature_importances_, full) or est.pruned_tree_ == est.tree_


def test_variable_importance_is_rpart_improve():
    # rpart's kyphosis root split (Start < 8.5 on 81 rows, 17 present) has
    # improve = 6.762330: 81 gini(root) - 62 gini(left) - 19 gini(right).
    counts = np.array([[64.0, 17.0], [56.0, 6.0], [8.0, 11.0]])
    from prunus.tree import Tree

    tree = Tree([1, -1, -1], [2, -1, -1], [2, -2, -2], [8.5, -2.0, -2.0], 3)
    raw = classification_importances(tree, counts, "gini", normalize=False)
    assert raw[2] == pytest.approx(6.762330, abs=5e-7)


# --------------------------------------------------------------- CP table
def test_cp_table_columns_follow_rpart_definitions():
    X, y = _problem(seed=3)
    est = CARTClassifier(selection="cv", cv=_folds(len(y)), random_state=0).fit(X, y)
    path, res = est.path_, est.cv_results_
    table = est.cv_table_
    assert isinstance(table, CPTable) and table.columns == ("cp", "nsplit", "rel_error", "xerror", "xstd")
    # R(root): the misclassified share of the learning sample at the root.
    root_counts = np.bincount(y, minlength=2).astype(float)
    r_root = (root_counts.sum() - root_counts.max()) / root_counts.sum()
    assert table.root_error == root_counts.sum() - root_counts.max() and table.root_weight == len(y)
    K = len(path)
    for row in range(K):
        k = K - 1 - row  # the root first
        assert table.path_index[row] == k
        assert table.nsplit[row] == path.n_leaves[k] - 1
        assert table.cp[row] == pytest.approx(path.alphas[k] / r_root, rel=1e-12)
        # rel error recounted on the learning sample with T_k's own leaves.
        sub, index = path.subtree(k, return_index=True)
        labels = np.argmax(path.counts[index], axis=1)
        wrong = np.sum(labels[sub.apply(X)] != y)
        assert table.rel_error[row] == pytest.approx(wrong / len(y) / r_root, rel=1e-12)
        assert table.xerror[row] == pytest.approx(res["mean_risk"][k] / r_root, rel=1e-12)
        assert table.xstd[row] == pytest.approx(res["se_risk"][k] / r_root, rel=1e-12)
    assert table.nsplit[0] == 0 and table.rel_error[0] == pytest.approx(1.0)
    assert np.all(np.diff(table.cp) < 0)


def test_xerror_by_brute_force_over_the_folds():
    # rpart: each fold's tree is pruned at the geometric means of the full
    # path's cp (in weight-per-row units) and its held-out rows are counted.
    X, y = _problem(n=240, seed=4)
    folds = _folds(len(y), 4)
    est = CARTClassifier(selection="cv", cv=folds, random_state=0).fit(X, y)
    betas = cv_temperatures(est.path_.alphas)
    wrong = np.zeros(len(betas))
    for train, test in folds:
        tree = grow_cart(X[train], y[train])
        fold = CARTClassifier(selection="alpha", alpha=0.0).fit(X[train], y[train])
        assert fold.tree_ == tree
        for j, beta in enumerate(betas):
            wrong[j] += np.sum(fold.select(alpha=beta).predict(X[test]) != y[test])
    r_root = est.path_.risks[-1]
    np.testing.assert_allclose(est.cv_table_.xerror, (wrong / len(y) / r_root)[::-1], rtol=1e-12)


def test_cp_table_prints_like_printcp():
    X, y = _problem(seed=2)
    est = CARTClassifier(selection="cv", cv=_folds(len(y)), random_state=0).fit(X, y)
    text = str(est.cv_table_)
    lines = text.splitlines()
    assert lines[0].startswith(f"Root node error: {int(est.cv_table_.root_error)}/{len(y)} = ")
    assert lines[2] == f"n= {len(y)}"
    assert lines[4].split() == ["CP", "nsplit", "rel", "error", "xerror", "xstd"]
    assert len(lines) == 5 + len(est.path_)
    first = lines[5].split()
    assert first[0] == "1" and first[2] == "0" and float(first[3]) == 1.0


def test_cp_table_without_cv_has_three_columns():
    X, y = _problem()
    est = CARTClassifier(random_state=0).fit(X, y)
    table = est.cv_table_
    assert table.columns == ("cp", "nsplit", "rel_error") and table.xerror is None
    assert "xerror" not in str(table)
    with pytest.raises(KeyError, match="xerror"):
        table["xerror"]
    with pytest.raises(ValueError, match="cross-validation"):
        plot_cv(table)
    assert set(table.to_dict()) == {"cp", "nsplit", "rel_error"}
    assert np.array_equal(cp_table(est.path_).cp, table.cp)


def test_plot_cv_draws_rpart_plotcp():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    X, y = _problem()
    est = CARTClassifier(selection="cv-1se", cv=_folds(len(y)), random_state=0).fit(X, y)
    ax = plot_cv(est)
    table = est.cv_table_
    line = ax.get_lines()[0]
    np.testing.assert_allclose(line.get_ydata(), table.xerror)
    best = int(np.argmin(table.xerror))
    assert any(np.allclose(h.get_ydata(), table.xerror[best] + table.xstd[best]) for h in ax.get_lines()[1:])
    assert ax.get_xlabel() == "cp"
    with pytest.raises(ValueError, match="upper"):
        plot_cv(table, upper="leaves")
    import matplotlib.pyplot as plt

    plt.close("all")


# ---------------------------------------------------------------- select
@pytest.mark.parametrize("method", ["M2", "M1"])
def test_select_alpha_equals_a_fresh_fit(method):
    X, y = _problem(seed=1)
    est = CARTClassifier(method=method, selection="cv", cv=5, random_state=7).fit(X, y)
    for alpha in [0.0, *est.path_.alphas[1:-1], 0.5 * est.path_.alphas[1], 1.0]:
        got = est.select(alpha=float(alpha))
        fresh = CARTClassifier(method=method, selection="alpha", alpha=float(alpha), random_state=7).fit(X, y)
        assert got.pruned_tree_ == fresh.pruned_tree_
        assert got.selected_index_ == fresh.selected_index_ and got.alpha_ == fresh.alpha_
        assert np.array_equal(got.pruned_counts_, fresh.pruned_counts_)
        assert np.array_equal(got.predict_proba(X), fresh.predict_proba(X))
        np.testing.assert_allclose(got.feature_importances_, fresh.feature_importances_, atol=0)
        assert got.selection_ == "alpha"


def test_select_rule_equals_a_fresh_fit_and_leaves_the_original():
    X, y = _problem(seed=2)
    est = CARTClassifier(selection="cv", cv=5, random_state=3).fit(X, y)
    before = (est.selected_index_, est.pruned_tree_, est.selection_)
    one_se = est.select(rule="cv-1se")
    fresh = CARTClassifier(selection="cv-1se", cv=5, random_state=3).fit(X, y)
    assert one_se.selected_index_ == fresh.selected_index_ and one_se.pruned_tree_ == fresh.pruned_tree_
    assert np.array_equal(one_se.predict(X), fresh.predict(X))
    assert one_se.selection_ == "cv-1se"
    assert (est.selected_index_, est.pruned_tree_, est.selection_) == before
    assert est.select(rule="cv").selected_index_ == est.selected_index_


def test_select_cp_takes_rpart_prune_semantics():
    X, y = _problem(seed=5)
    est = CARTClassifier(selection="cv", cv=5, random_state=0).fit(X, y)
    table = est.cv_table_
    for row in range(len(table)):
        got = est.select(cp=float(table.cp[row]))
        assert got.selected_index_ == table.path_index[row] and got.selection_ == "cp"
        if row > 0:  # between two rows: the smaller cp's... the larger tree of the two rows' interval
            mid = 0.5 * (table.cp[row] + table.cp[row - 1])
            assert est.select(cp=mid).selected_index_ == table.path_index[row]
    assert est.select(cp=10.0).pruned_tree_.n_leaves == 1


def test_select_holdout_rule_and_errors():
    X, y = _problem()
    est = CARTClassifier(random_state=0).fit(X, y)
    assert est.select(rule="holdout").selected_index_ == est.selected_index_
    with pytest.raises(ValueError, match="cv_results_"):
        est.select(rule="cv-1se")
    with pytest.raises(ValueError, match="exactly one"):
        est.select()
    with pytest.raises(ValueError, match="exactly one"):
        est.select(alpha=0.1, cp=0.1)
    with pytest.raises(ValueError, match="cp"):
        est.select(cp=-1.0)
    with pytest.raises(ValueError, match="alpha"):
        est.select(alpha=float("nan"))
    with pytest.raises(ValueError, match="rule"):
        est.select(rule="slope")
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        CARTClassifier().select(alpha=0.1)


# ----------------------------------------------------------- class_weight
@pytest.mark.parametrize(
    "params",
    [
        dict(),
        dict(selection="cv", cv=4),
        dict(selection="cv-1se", cv=4, method="M1"),
        dict(selection="slope"),
        dict(criterion="entropy", selection="alpha", alpha=0.01),
        dict(method="M1", grow_size=200, selection="slope"),
    ],
)
def test_class_weight_equals_sample_weight_per_class(params):
    X, y = _problem(seed=6)
    y = np.where(y == 1, "b", "a")
    w = np.random.default_rng(0).integers(1, 4, size=len(y)).astype(float)
    a = CARTClassifier(class_weight={"a": 3}, random_state=0, **params).fit(X, y, sample_weight=w)
    b = CARTClassifier(random_state=0, **params).fit(X, y, sample_weight=w * np.where(y == "a", 3.0, 1.0))
    assert a.tree_ == b.tree_ and a.pruned_tree_ == b.pruned_tree_
    assert np.array_equal(a.path_.alphas, b.path_.alphas) and np.array_equal(a.path_.risks, b.path_.risks)
    assert np.array_equal(a.predict_proba(X), b.predict_proba(X))
    if a.cv_results_ is not None:
        for key in a.cv_results_:
            assert np.array_equal(a.cv_results_[key], b.cv_results_[key])


def test_class_weight_balanced_and_its_effect():
    X, y = _problem(n=500, seed=8)
    keep = (y == 0) | (np.arange(len(y)) % 5 == 0)  # class 1 becomes rare
    X, y = X[keep], y[keep]
    a = CARTClassifier(class_weight="balanced", selection="cv", cv=4, random_state=0).fit(X, y)
    b = CARTClassifier(selection="cv", cv=4, random_state=0).fit(
        X, y, sample_weight=compute_sample_weight("balanced", y)
    )
    assert a.pruned_tree_ == b.pruned_tree_ and np.array_equal(a.cv_results_["mean_risk"], b.cv_results_["mean_risk"])
    # The weighted root risk of a balanced sample is 1/2.
    assert a.path_.risks[-1] == pytest.approx(0.5)
    with pytest.raises(ValueError, match="class_weight"):
        CARTClassifier(class_weight={7: 2.0}).fit(X, y)
    with pytest.raises(ValueError, match="class_weight"):
        CARTClassifier(class_weight="uniform").fit(X, y)
    with pytest.raises(ValueError, match="class_weight"):
        CARTClassifier(class_weight={0: -1.0}).fit(X, y)


def test_dask_input_refuses_class_weight():
    da = pytest.importorskip("dask.array")
    from prunus.distributed import DaskCARTClassifier

    X, y = _problem()
    est = DaskCARTClassifier(method="M1", grow_size=100, class_weight={0: 2.0}, random_state=0)
    with pytest.raises(ValueError, match="class_weight"):
        est.fit(da.from_array(X, chunks=100), da.from_array(y, chunks=100))
    lossy = DaskCARTClassifier(method="M1", grow_size=100, loss_matrix=1 - np.eye(2), random_state=0)
    with pytest.raises(ValueError, match="loss_matrix"):
        lossy.fit(da.from_array(X, chunks=100), da.from_array(y, chunks=100))
    # In memory the same estimator honours it.
    local = est.fit(X, y)
    ref = CARTClassifier(method="M1", grow_size=100, random_state=0).fit(X, y, sample_weight=np.where(y == 0, 2.0, 1.0))
    assert local.pruned_tree_ == ref.pruned_tree_
