"""The presorted order of a grower: categorical level codes sorted as small
integers give the order of a stable sort of their float values (missing
values last, ties in row order)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.tree._preparation import presorted_order


@settings(max_examples=200, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_rows=st.integers(1, 400),
    n_levels=st.sampled_from([1, 2, 3, 17, 254, 255, 256, 1000]),
    nan_share=st.sampled_from([0.0, 0.1, 0.9, 1.0]),
)
def test_categorical_order_is_the_float_order(seed, n_rows, n_levels, nan_share):
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.integers(0, n_levels, n_rows).astype(float), rng.normal(size=n_rows).round(1)])
    X[rng.random(X.shape) < nan_share] = np.nan
    X[rng.random(n_rows) < 0.05, 0] = -0.0  # equal to level 0
    expected = np.stack([np.argsort(X[:, f], kind="stable") for f in range(2)])
    np.testing.assert_array_equal(presorted_order(X, np.array([n_levels, 0])), expected)


EDGE_VALUES = [0.0, -0.0, np.nan, -np.nan, np.inf, -np.inf, 5e-324, -5e-324, 1e308, -1e308, 1.0, -1.0]


@settings(max_examples=300, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n_rows=st.integers(0, 400),
    decimals=st.integers(0, 3),
    scale=st.integers(-300, 300),
    edge_share=st.sampled_from([0.0, 0.1, 0.5, 1.0]),
)
def test_value_order_is_numpys_stable_order(seed, n_rows, decimals, scale, edge_share):
    # The radix sort of numeric features against numpy's stable argsort: ties
    # (rounded values) in row order, -0.0 equal to 0.0, NaN (of either sign) last.
    rng = np.random.default_rng(seed)
    X = np.column_stack([rng.normal(size=n_rows).round(decimals) * 10.0**scale, rng.integers(-3, 3, n_rows)])
    edge = rng.random(n_rows) < edge_share
    X[edge, 0] = rng.choice(EDGE_VALUES, size=int(edge.sum()))
    expected = np.stack([np.argsort(X[:, f], kind="stable") for f in range(2)])
    np.testing.assert_array_equal(
        presorted_order(np.ascontiguousarray(X), np.array([0, 0])), expected.reshape(2, n_rows)
    )
