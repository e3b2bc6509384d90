"""``min_samples_split`` (rpart's ``minsplit``) reaches every growth of the
CART estimators: T_max, every fold and the sampled M1 growth."""

import numpy as np
import pytest

from prunus import CARTClassifier, CARTRegressor
from prunus.pruning import _fold_batch, _sampled
from prunus.tree import grow_cart
from prunus.tree.cart import CARTGrower


def _data(seed, n=200, regression=False):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 20, size=(n, 3)).astype(float)
    y = X[:, 0] + 3.0 * (X[:, 1] > 9) + rng.normal(0, 3.0, n)
    if not regression:
        y = (y > np.median(y)).astype(np.int64)
    X[rng.random((n, 3)) < 0.05] = np.nan
    return X, y


def _rows_per_node(tree, X):
    """Training rows reaching every node, counted from the decision paths."""
    return np.asarray(tree.decision_path(X).sum(axis=0)).ravel()


@pytest.mark.parametrize("estimator", [CARTClassifier, CARTRegressor])
@pytest.mark.parametrize("min_split", [2, 9, 0.15])
def test_t_max_is_the_builders_tree_with_that_limit(estimator, min_split):
    regression = estimator is CARTRegressor
    X, y = _data(0, regression=regression)
    est = estimator(selection="alpha", alpha=0.0, min_samples_split=min_split, random_state=0).fit(X, y)
    criterion = "squared_error" if regression else "gini"
    want = grow_cart(X, y, criterion=criterion, min_samples_split=min_split, max_surrogates=5)
    assert est.tree_ == want
    # Independently of the builder: no node with fewer rows than the limit is split.
    limit = min_split if isinstance(min_split, int) else int(np.ceil(min_split * len(y)))
    rows = _rows_per_node(est.tree_, X)
    internal = est.tree_.children_left >= 0
    assert rows[internal].min() >= limit
    if limit > 2:
        assert est.tree_.n_leaves < grow_cart(X, y, criterion=criterion, max_surrogates=5).n_leaves


@pytest.mark.parametrize("estimator", [CARTClassifier, CARTRegressor])
def test_every_growth_of_a_cross_validated_fit_gets_the_limit(estimator, monkeypatch):
    X, y = _data(1, regression=estimator is CARTRegressor)
    seen = []
    grow_arrays = CARTGrower.grow_arrays
    batch = _fold_batch.classification_fold_risks

    def spy(self, params, weight, seed=0):
        seen.append(self.growth_settings(params, int(np.count_nonzero(weight)), seed).min_samples_split)
        return grow_arrays(self, params, weight, seed)

    # A small classification's folds grow together in one compiled call: each with its own settings.
    def spy_batch(sample, growth, folds, temperatures):
        seen.extend(growth.min_samples_split.tolist())
        return batch(sample, growth, folds, temperatures)

    monkeypatch.setattr(CARTGrower, "grow_arrays", spy)
    monkeypatch.setattr(_fold_batch, "classification_fold_risks", spy_batch)
    estimator(selection="cv", cv=4, min_samples_split=11, missing="learned", random_state=0, n_jobs=1).fit(X, y)
    assert len(seen) == 5  # T_max and four folds
    assert seen == [11] * 5


def test_the_sampled_m1_growth_gets_the_limit(monkeypatch):
    X, y = _data(2, regression=True)
    seen = []
    grow = _sampled.grow_cart

    def spy(*args, **kwargs):
        seen.append(kwargs["min_samples_split"])
        return grow(*args, **kwargs)

    monkeypatch.setattr(_sampled, "grow_cart", spy)
    est = CARTRegressor(method="M1", grow_size=120, min_samples_split=13, selection="alpha", alpha=0.0, random_state=0)
    est.fit(X, y)
    assert seen == [13]


@pytest.mark.parametrize("estimator", [CARTClassifier, CARTRegressor])
@pytest.mark.parametrize("bad", [1, 0, 0.0, 1.5, -3])
def test_a_bad_limit_is_refused_naming_it(estimator, bad):
    X, y = _data(3, regression=estimator is CARTRegressor)
    with pytest.raises(ValueError, match="min_samples_split"):
        estimator(min_samples_split=bad).fit(X, y)
