"""The order of a node's present levels by their class share (the ordered
search of a categorical feature): the in-place insertion sort is the stable
merge sort's order, ties kept in ascending level code."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.tree._categorical_split import _sort_by_key, _sorted_by


@settings(max_examples=300, deadline=None)
@given(
    st.integers(1, 40),
    st.integers(0, 2**32 - 1),
    st.sampled_from([2, 3, 5, 1000]),
)
def test_insertion_order_is_the_merge_sort_order(n_present, seed, n_values):
    """Keys drawn from a few values (many ties) or many; codes ascending with gaps."""
    rng = np.random.default_rng(seed)
    present = np.sort(rng.choice(300, n_present, replace=False)).astype(np.int64)
    key = rng.integers(0, n_values, n_present) / max(n_values - 1, 1)
    expected = _sorted_by(present, key)
    found = _sort_by_key(present.copy(), key.copy())
    np.testing.assert_array_equal(found, expected)


def test_ties_keep_ascending_codes():
    present = np.array([2, 5, 7, 9], dtype=np.int64)
    key = np.array([0.5, 0.25, 0.5, 0.25])
    np.testing.assert_array_equal(_sort_by_key(present, key), [5, 9, 2, 7])
