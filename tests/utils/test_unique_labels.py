"""The classes and codes of a classifier's labels are numpy's ``unique`` of them, whatever path computes them."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.utils._validation import _unique_labels

_TEXT = st.text(alphabet=st.sampled_from(["a", "b", "B", "é", " ", "1", "9", "\u00e9", "e\u0301"[1]]), max_size=3)


def _same_as_numpy(y):
    classes, codes = _unique_labels(y)
    expected_classes, expected_codes = np.unique(y, return_inverse=True)
    assert classes.dtype == expected_classes.dtype
    assert classes.tolist() == expected_classes.tolist()
    assert codes.dtype == np.int64
    np.testing.assert_array_equal(codes, expected_codes)


@settings(max_examples=200, deadline=None)
@given(st.lists(_TEXT, min_size=1, max_size=40))
def test_object_strings_as_numpy(values):
    _same_as_numpy(np.array(values, dtype=object))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(_TEXT, st.integers(-3, 3)), min_size=1, max_size=20))
def test_other_labels_as_numpy(values):
    ints = [v for v in values if isinstance(v, int)]
    for y in (np.array(ints, dtype=np.int64), np.array([str(v) for v in values]), np.array(ints or [0], dtype=object)):
        if y.size:
            _same_as_numpy(y)


def test_numpy_strings_in_an_object_array():
    # np.str_ items are not str: numpy's path, the same result.
    _same_as_numpy(np.array([np.str_("b"), np.str_("a"), np.str_("b")], dtype=object))
