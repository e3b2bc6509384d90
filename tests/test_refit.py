"""A refit with other settings equals a fresh fit: no fitted attribute of the first fit survives."""

import numpy as np
import pytest
from sklearn.base import clone

from prunus import (
    CARTClassifier,
    ExactBoostClassifier,
    HSVoteClassifier,
    PACBayesForestClassifier,
    PACBayesTreeClassifier,
    PenalizedTreeClassifier,
)


def _data():
    rng = np.random.RandomState(0)
    X = rng.rand(300, 3)
    y = ((X[:, 0] + 0.3 * rng.rand(300)) > 0.6).astype(int)
    return X, y


def _fitted_state(est):
    return {name: value for name, value in vars(est).items() if name.endswith("_") and not name.startswith("_")}


def _same(a, b):
    if isinstance(a, dict):
        return isinstance(b, dict) and a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and not isinstance(a, str):
        return type(a) is type(b) and len(a) == len(b) and all(_same(u, v) for u, v in zip(a, b))
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if hasattr(a, "__dataclass_fields__"):
        return type(a) is type(b) and all(_same(getattr(a, f), getattr(b, f)) for f in a.__dataclass_fields__)
    if hasattr(a, "tree") and hasattr(a, "alphas"):  # a pruning path
        return a.tree == b.tree and np.array_equal(a.alphas, b.alphas)
    try:
        return bool(a == b)
    except (TypeError, ValueError):
        return type(a) is type(b)


CASES = [
    (
        CARTClassifier(method="M1", grow_size=150, random_state=0),
        dict(method="M2", grow_size=None, selection="cv", cv=3),
    ),
    (
        CARTClassifier(selection="slope", random_state=0),
        dict(selection="alpha", alpha=0.01),
    ),
    (
        PACBayesTreeClassifier(partition="kd", max_depth=4, grow_size=150, random_state=0),
        dict(grow_size=None, lambda1=1.0, lambda2=1.0),
    ),
    (
        PenalizedTreeClassifier(partition="kd", max_depth=4, random_state=0),
        dict(lam=0.5),
    ),
    (
        HSVoteClassifier(partition="kd", max_depth=4, random_state=0),
        dict(partition="dyadic"),
    ),
    (
        PACBayesForestClassifier(n_estimators=3, random_state=0),
        dict(n_estimators=2, max_depth=3),
    ),
    (
        ExactBoostClassifier(n_estimators=3, random_state=0),
        dict(n_estimators=2, max_depth=1),
    ),
]


@pytest.mark.parametrize("first, changes", CASES, ids=lambda p: type(p).__name__ if not isinstance(p, dict) else "")
def test_refit_with_other_settings_equals_a_fresh_fit(first, changes):
    X, y = _data()
    refit = clone(first).fit(X, y)
    refit.set_params(**changes).fit(X, y)
    fresh = clone(first).set_params(**changes).fit(X, y)
    got, expected = _fitted_state(refit), _fitted_state(fresh)
    assert got.keys() == expected.keys(), f"stale after refit: {sorted(set(got) - set(expected))}"
    for name in expected:
        assert _same(got[name], expected[name]), name
    np.testing.assert_array_equal(refit.predict(X), fresh.predict(X))


def test_cart_without_grow_size_forgets_the_split():
    X, y = _data()
    est = CARTClassifier(method="M1", grow_size=150, random_state=0).fit(X, y)
    assert est.split_.grow_indices.shape == (150,)
    est.set_params(grow_size=None).fit(X, y)
    assert not hasattr(est, "split_")
    assert est.pruning_indices_ is not None
