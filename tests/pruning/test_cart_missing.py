"""CARTClassifier / CARTRegressor with ``missing="surrogate" | "learned"`` and ``max_surrogates``
(the choice of ``missing="auto"`` is tested in test_missing_choice.py)."""

import pickle

import numpy as np
import pytest

from prunus import CARTClassifier, CARTRegressor
from prunus.tree import add_surrogates
from prunus.tree._importance import impurity_decrease, node_impurity
from prunus.utils._param_validation import InvalidParameterError


def _data(n=400, missing=0.2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[:, 1] = X[:, 0] + 0.2 * rng.normal(size=n)  # a good surrogate of feature 0
    y = (X[:, 0] + 0.3 * rng.normal(size=n) > 0).astype(int)
    X[rng.random(X.shape) < missing] = np.nan
    return X, y


@pytest.mark.parametrize(
    "params, name",
    [
        ({"missing": "surrogates"}, "missing"),
        ({"max_surrogates": -1}, "max_surrogates"),
        ({"max_surrogates": 1.5}, "max_surrogates"),
    ],
)
@pytest.mark.parametrize("cls", [CARTClassifier, CARTRegressor])
def test_bad_parameters_name_the_argument(cls, params, name):
    X, y = _data()
    with pytest.raises(InvalidParameterError, match=name):
        cls(**params).fit(X, y)


def test_surrogates_route_missing_values_and_survive_pickle():
    X, y = _data()
    est = CARTClassifier(selection="cv", cv=5, random_state=0, missing="surrogate").fit(X, y)
    tree = est.pruned_tree_
    assert tree.has_surrogates
    root = tree.node_surrogates(0)
    assert {int(tree.feature[0]), int(root.feature[0])} == {0, 1}
    # A row missing the root's feature follows the surrogate.
    row = np.zeros((2, 4))
    row[:, tree.feature[0]] = np.nan
    row[0, root.feature[0]] = -3.0
    row[1, root.feature[0]] = 3.0
    leaves = est.apply(row)
    path = est.decision_path(row).toarray()
    left, right = tree.children_left[0], tree.children_right[0]
    assert path[0, left if root.left_below[0] else right] == 1
    assert path[1, right if root.left_below[0] else left] == 1
    again = pickle.loads(pickle.dumps(est))
    assert again.pruned_tree_ == tree
    np.testing.assert_array_equal(again.apply(X), est.apply(X))
    np.testing.assert_array_equal(again.predict(X), est.predict(X))
    assert leaves.shape == (2,)


def test_learned_side_has_no_surrogates_and_is_the_former_fit():
    X, y = _data()
    learned = CARTClassifier(selection="cv", cv=5, random_state=0, missing="learned").fit(X, y)
    none = CARTClassifier(selection="cv", cv=5, random_state=0, missing="surrogate", max_surrogates=0).fit(X, y)
    assert not learned.pruned_tree_.has_surrogates
    assert not none.pruned_tree_.has_surrogates
    assert learned.tree_.surrogates is None


def test_complete_data_same_fit_either_way():
    X, y = _data(missing=0.0)
    a = CARTClassifier(selection="cv", cv=5, random_state=0).fit(X, y)
    b = CARTClassifier(selection="cv", cv=5, random_state=0, missing="learned").fit(X, y)
    assert not a.tree_.has_surrogates
    assert a.tree_ == b.tree_ and a.pruned_tree_ == b.pruned_tree_
    # On request, on the training rows.
    tree = add_surrogates(a.pruned_tree_, X, max_surrogates=3)
    assert tree.has_surrogates and np.diff(tree.surrogates.offsets).max() <= 3
    assert tree.node_surrogates(0).feature[0] in (0, 1)


def test_add_surrogates_finds_the_grown_ones():
    X, y = _data()
    est = CARTClassifier(selection="alpha", alpha=0.0).fit(X, y)
    again = add_surrogates(est.tree_, X, max_surrogates=5)
    assert again == est.tree_
    with pytest.raises(ValueError, match="max_surrogates"):
        add_surrogates(est.tree_, X, max_surrogates=-1)


def test_variable_importance_adds_surrogate_terms():
    X, y = _data()
    est = CARTClassifier(selection="cv", cv=5, random_state=0, missing="surrogate").fit(X, y)
    tree, counts = est.pruned_tree_, est.pruned_counts_
    decrease = impurity_decrease(tree, node_impurity(counts, "gini"), counts.sum(axis=1))
    want = np.zeros(4)
    for node in np.flatnonzero(~tree.is_leaf):
        want[tree.feature[node]] += decrease[node]
        s = tree.node_surrogates(node)
        for g, adj in zip(s.feature, s.adj):
            want[g] += adj * decrease[node]
    np.testing.assert_allclose(est.variable_importance_, want, rtol=1e-12)
    primary_only = np.bincount(tree.feature[~tree.is_leaf], weights=decrease[~tree.is_leaf], minlength=4)
    assert est.variable_importance_[1 - tree.feature[0]] > primary_only[1 - tree.feature[0]]


def test_summary_lists_surrogates():
    X, y = _data()
    est = CARTClassifier(selection="cv", cv=5, random_state=0, missing="surrogate").fit(X, y)
    text = est.summary()
    assert "Surrogate splits" in text
    s = est.pruned_tree_.node_surrogates(0)
    assert f"agree={s.agreement[0]:.3f}, adj={s.adj[0]:.3f}" in text
    assert "or missing" not in text.split("Surrogate splits")[0].splitlines()[6]


def test_regressor_with_surrogates():
    X, y = _data()
    target = np.where(np.isnan(X[:, 0]), 0.0, X[:, 0])
    est = CARTRegressor(selection="cv", cv=5, random_state=0, missing="surrogate").fit(X, target)
    assert est.pruned_tree_.has_surrogates
    learned = CARTRegressor(selection="cv", cv=5, random_state=0, missing="learned").fit(X, target)
    assert not learned.pruned_tree_.has_surrogates
    assert est.variable_importance_.shape == (4,)
    assert np.isfinite(est.predict(X)).all()


def test_grow_size_path_grows_surrogates():
    X, y = _data(n=600)
    est = CARTClassifier(method="M1", grow_size=300, random_state=0).fit(X, y)
    assert est.tree_.has_surrogates
    learned = CARTClassifier(method="M1", grow_size=300, random_state=0, missing="learned").fit(X, y)
    assert not learned.tree_.has_surrogates
