"""ExactBoostClassifier.feature_importances_ against a brute force from each round's weights."""

import numpy as np
import pytest

from prunus.boosting import ExactBoostClassifier
from prunus.tree._testing import brute_importances


@pytest.mark.parametrize(
    "config",
    [dict(max_depth=1), dict(max_depth=3), dict(max_depth=2, criterion="entropy"), dict(max_depth=2, weight_trim=0.9)],
)
def test_importances_are_the_estimator_weighted_mean_of_each_round(config):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 5))
    y = (X[:, 0] + X[:, 1] * X[:, 2] > 0.2).astype(int) + (X[:, 3] > 1.0)
    rounds = []
    est = ExactBoostClassifier(n_estimators=15, random_state=0, **config)
    est._fit(X, y, callback=lambda t, state: rounds.append((state["w"], state["train"])))
    impurity = "entropy" if config.get("criterion") == "entropy" else "misclassification"
    per_tree = []
    for tree, (w, train) in zip(est.estimators_, rounds):
        # The round's weights of the rows the tree was grown on, routed by the raw thresholds.
        counts = tree.node_counts(X[train], y[train], w[train], n_classes=3)
        per_tree.append(brute_importances(tree, counts, impurity))
    weights = est.estimator_weights_
    want = np.sum(weights[:, None] * np.array(per_tree), axis=0) / weights.sum()
    np.testing.assert_allclose(est.feature_importances_, want, atol=1e-10)
    assert est.feature_importances_.sum() == pytest.approx(1.0)


def test_unfitted_has_no_importances():
    assert not hasattr(ExactBoostClassifier(), "feature_importances_")
