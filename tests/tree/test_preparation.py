"""The grower's preparation kernels against numpy: the rows missing a value,
and the first categorical column holding a value that is not a level code."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.tree._preparation import first_bad_level_column, rows_with_missing
from prunus.tree.cart import CARTGrower, check_level_codes


def _first_bad_reference(X, n_categories):
    for f in np.flatnonzero(n_categories):
        present = X[~np.isnan(X[:, f]), f]
        if present.size and (
            present.min() < 0 or present.max() >= n_categories[f] or np.any(present != np.floor(present))
        ):
            return f
    return -1


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_rows=st.integers(1, 60),
    n_features=st.integers(1, 6),
    nan_share=st.sampled_from([0.0, 0.2, 1.0]),
    bad_cells=st.integers(0, 3),
)
def test_kernels_match_numpy(seed, n_rows, n_features, nan_share, bad_cells):
    rng = np.random.default_rng(seed)
    n_categories = rng.choice([0, 1, 2, 5], size=n_features).astype(np.int64)
    X = np.where(n_categories > 0, rng.integers(0, np.maximum(n_categories, 1), (n_rows, n_features)), 0.0)
    X = X + np.where(n_categories > 0, 0.0, rng.normal(size=(n_rows, n_features)))
    X[rng.random(X.shape) < nan_share] = np.nan
    X[rng.random(X.shape) < 0.05] = -0.0
    # Values that are not level codes: a fraction, a code past the last level, a negative one.
    for _ in range(bad_cells):
        i, f = rng.integers(0, n_rows), rng.integers(0, n_features)
        X[i, f] = rng.choice([0.5, n_categories[f], -1.0, 1e300])
    X = np.ascontiguousarray(X)
    np.testing.assert_array_equal(rows_with_missing(X), np.flatnonzero(np.isnan(X).any(axis=1)))
    assert first_bad_level_column(X, n_categories) == _first_bad_reference(X, n_categories)


def test_a_bad_code_names_its_feature():
    X = np.array([[0.0, 1.0, 0.0], [1.0, 2.5, 7.0], [np.nan, 0.0, 1.0]])
    with pytest.raises(ValueError, match="feature 1 is categorical with n_categories=3"):
        check_level_codes(X, [2, 3, 2])
    with pytest.raises(ValueError, match="feature 1 is categorical"):
        CARTGrower(X, [0, 1, 0], 2, n_categories=[2, 3, 2])
    np.testing.assert_array_equal(check_level_codes(X, [2, 0, 0]), [2, 0, 0])
