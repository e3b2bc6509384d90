"""The classifier's own answer to ``type_of_target`` for plain label arrays
equals scikit-learn's."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.utils.multiclass import type_of_target

from prunus.pruning._classes import _labels_type

_LABELS = st.one_of(
    st.lists(st.integers(-3, 3), min_size=1, max_size=30).map(np.array),
    st.lists(st.booleans(), min_size=1, max_size=30).map(np.array),
    st.lists(st.integers(0, 4), min_size=1, max_size=30).map(lambda v: np.array(v, dtype=np.uint8)),
    st.lists(st.sampled_from(["a", "b", "c", "ab", ""]), min_size=1, max_size=30).map(np.array),
    st.lists(st.sampled_from(["yes", "no", "maybe"]), min_size=1, max_size=30).map(lambda v: np.array(v, dtype=object)),
)


@settings(max_examples=300, deadline=None)
@given(_LABELS)
def test_labels_type_is_scikit_learns(y):
    assert _labels_type(y) == type_of_target(y)


def test_other_labels_are_left_to_scikit_learn():
    for y in (
        np.array([0.5, 1.0]),
        np.array(["a", 1], dtype=object),
        np.array([b"a", b"b"], dtype=object),
        np.array([[0, 1], [1, 0]]),
        np.array([], dtype=int),
        np.array([None, "a"], dtype=object),
    ):
        assert _labels_type(y) is None
