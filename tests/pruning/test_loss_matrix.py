"""rpart's loss matrix: the path on expected loss against subtree enumeration, the estimator
against 0-1 loss, a brute force over the CV folds, and rpart's recorded table on kyphosis."""

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.datasets import make_gey_hypercube
from prunus.pruning import CARTClassifier, cost_complexity_path
from prunus.pruning.path import node_labels
from prunus.pruning.selection import cv_temperatures
from prunus.tree._testing import counts_from_leaves, random_tree

from ._brute import all_pruned_subtrees, breiman_weakest_link_alphas, smallest_minimiser

FIXTURE = json.loads((Path(__file__).parent / "rpart_kyphosis_cptable.json").read_text())


def _exact_loss_risks(counts, loss):
    """Per node: min over predicted j of sum_i counts[t, i] loss[i, j], in Fractions."""
    out = []
    for row in counts:
        out.append(
            min(
                sum(Fraction(float(row[i])) * Fraction(float(loss[i][j])) for i in range(len(row)))
                for j in range(len(row))
            )
        )
    return out


@settings(max_examples=80, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n_splits=st.integers(1, 7), n_classes=st.integers(2, 3))
def test_path_on_expected_loss_against_enumeration(seed, n_splits, n_classes):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n_splits)
    counts = counts_from_leaves(tree, rng.integers(0, 6, size=(tree.n_leaves, n_classes)).astype(float))
    if counts[0].sum() == 0:
        counts[tree.is_leaf.argmax(), 0] = 1.0
        counts = counts_from_leaves(tree, counts[tree.is_leaf])
    loss = rng.integers(1, 5, size=(n_classes, n_classes)).astype(float)
    np.fill_diagonal(loss, 0.0)
    path = cost_complexity_path(tree, counts, loss=loss)
    risk = _exact_loss_risks(counts, loss)
    weight = Fraction(float(counts[0].sum()))
    exact = breiman_weakest_link_alphas(tree, counts, risk=risk)
    assert len(path) == len(exact)
    for k, a in enumerate(exact):
        assert path.alphas[k] == float(a / weight)
    subtrees = all_pruned_subtrees(tree)
    for k, a in enumerate(exact):
        leaves = smallest_minimiser(tree, counts, a, subtrees, risk=risk)
        sub, index = path.subtree(k, return_index=True)
        assert leaves == frozenset(index[sub.is_leaf].tolist())
        assert path.risks[k] == pytest.approx(float(sum(risk[t] for t in leaves) / weight), rel=1e-12, abs=1e-15)
    # Labels: the class of least expected loss (lowest index on ties).
    for t in np.flatnonzero(counts.sum(axis=1) > 0):
        expected = [sum(counts[t, i] * loss[i, j] for i in range(n_classes)) for j in range(n_classes)]
        assert path.label[t] == int(np.argmin(expected))


def test_zero_one_loss_is_the_default():
    data = make_gey_hypercube(n_samples=300, n_features=3, q=0.25, random_state=0)
    for params in (dict(selection="cv", cv=4), dict(), dict(method="M1", selection="slope")):
        a = CARTClassifier(random_state=0, **params).fit(data.X, data.y)
        b = CARTClassifier(random_state=0, loss_matrix=1 - np.eye(2), **params).fit(data.X, data.y)
        assert a.tree_ == b.tree_ and a.pruned_tree_ == b.pruned_tree_
        assert np.array_equal(a.path_.risks, b.path_.risks)
        if a.cv_results_ is not None:
            assert np.array_equal(a.cv_results_["mean_risk"], b.cv_results_["mean_risk"])
            np.testing.assert_allclose(a.cv_results_["se_risk"], b.cv_results_["se_risk"], rtol=1e-12)


def test_cv_with_a_loss_matrix_by_brute_force_over_the_folds():
    data = make_gey_hypercube(n_samples=240, n_features=3, q=0.25, random_state=4)
    X, y = data.X, data.y
    loss = np.array([[0.0, 1.0], [3.0, 0.0]])
    fold = np.arange(len(y)) % 4
    folds = [(np.flatnonzero(fold != j), np.flatnonzero(fold == j)) for j in range(4)]
    est = CARTClassifier(selection="cv", cv=folds, loss_matrix=loss, random_state=0).fit(X, y)
    # Growth: rpart's altered priors, i.e. rows weighted by their class's row sum of the loss.
    grown = CARTClassifier(selection="alpha", alpha=0.0, random_state=0).fit(X, y, sample_weight=loss.sum(axis=1)[y])
    assert grown.tree_ == est.tree_
    # Leaves predict the class of least expected loss on the unweighted counts.
    counts = est.tree_.node_counts(X, y, n_classes=2)
    assert np.array_equal(est.path_.label, node_labels(est.tree_, counts, loss))
    betas = cv_temperatures(est.path_.alphas)
    betas[-1] = 2.0 * loss.max()
    per_row = np.zeros((len(y), len(betas)))
    for train, test in folds:
        f = CARTClassifier(selection="alpha", alpha=0.0, loss_matrix=loss).fit(X[train], y[train])
        for j, beta in enumerate(betas):
            per_row[test, j] = loss[y[test], f.select(alpha=beta).predict(X[test])]
    mean = per_row.mean(axis=0)
    np.testing.assert_allclose(est.cv_results_["mean_risk"], mean, rtol=1e-12)
    se = np.sqrt(((per_row**2).mean(axis=0) - mean**2) / len(y))
    np.testing.assert_allclose(est.cv_results_["se_risk"], se, rtol=1e-9)


def test_pruning_on_expected_loss_matches_rpart_where_rpart_is_exact():
    # rpart's table with matrix(c(0, 4, 1, 0), 2): its first six subtrees (0-5 splits) are
    # Breiman's, with the same cp and rel error. Beyond them rpart lists a 7-split tree that
    # Breiman's sequence skips (its penalised loss exceeds the 10-split tree's for every cp in
    # the range rpart gives it); its xerror evaluates held-out rows with the transposed matrix.
    X = np.array(FIXTURE["X"])
    y = np.array(FIXTURE["y"])
    want = FIXTURE["cptable_loss"]
    est = CARTClassifier(selection="alpha", alpha=0.0, loss_matrix=FIXTURE["loss_matrix"], random_state=0).fit(X, y)
    table = est.cv_table_
    assert table.nsplit[:6].tolist() == want["nsplit"][:6]
    np.testing.assert_allclose(table.rel_error[:6], want["rel_error"][:6], rtol=1e-12)
    np.testing.assert_allclose(table.cp[:5], want["cp"][:5], rtol=1e-12)
    assert (table.root_error, table.root_weight) == (64.0, 81.0)
    # The 7-split tree of rpart's table is beaten by the 10-split one inside rpart's cp range.
    rel = dict(zip(table.nsplit.tolist(), table.rel_error.tolist()))
    rpart_rel = dict(zip(want["nsplit"], want["rel_error"]))
    cp = 0.5 * (want["cp"][6] + want["cp"][5])
    assert rel[10] + 11 * cp < rpart_rel[7] + 8 * cp


def test_bad_loss_matrix():
    data = make_gey_hypercube(n_samples=60, n_features=2, random_state=0)
    for bad, match in (
        (np.ones((3, 3)), "shape"),
        (np.ones((2, 2)), "diagonal"),
        ([[0, -1], [1, 0]], "non-negative"),
    ):
        with pytest.raises(ValueError, match=match):
            CARTClassifier(loss_matrix=bad).fit(data.X, data.y)
    with pytest.raises(ValueError, match="grow_size"):
        CARTClassifier(method="M1", grow_size=30, loss_matrix=1 - np.eye(2)).fit(data.X, data.y)


def test_cp_table_root_error_is_the_root_loss():
    X = np.array(FIXTURE["X"])
    y = np.array(FIXTURE["y"])  # 64 absent, 17 present
    est = CARTClassifier(selection="alpha", alpha=0.0, loss_matrix=[[0, 2], [4, 0]]).fit(X, y)
    # Calling every row absent costs 17 * 4 = 68; present, 64 * 2 = 128.
    assert (est.cv_table_.root_error, est.cv_table_.root_weight) == (68.0, 81.0)
    assert est.path_.risks[-1] == pytest.approx(68 / 81)


def test_rpart_priors_are_class_weights():
    # rpart's parms = list(prior = p) weighs class k by p_k / (share of class k) in growth and
    # risk: class_weight={k: p_k / share_k} ("balanced" for equal priors). Its first six subtrees,
    # cp and rel error equal rpart's; rpart then lists a non-Breiman 7-split tree again.
    X = np.array(FIXTURE["X"])
    y = np.array(FIXTURE["y"])
    want = FIXTURE["cptable_prior"]
    assert FIXTURE["prior"] == [0.5, 0.5]
    est = CARTClassifier(selection="alpha", alpha=0.0, class_weight="balanced", random_state=0).fit(X, y)
    table = est.cv_table_
    assert table.nsplit[:6].tolist() == want["nsplit"][:6]
    np.testing.assert_allclose(table.rel_error[:6], want["rel_error"][:6], rtol=1e-12)
    np.testing.assert_allclose(table.cp[:5], want["cp"][:5], rtol=1e-12)
