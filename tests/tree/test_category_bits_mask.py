"""A tree's category bits keep exactly the bits of its categorical splits' levels 0 .. L - 1."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.tree._tree import _canonical_category_bits


def _expected(bits, n_cat, feature, is_categorical):
    """Bit by bit: level 64 w + b of a node is kept iff the node splits a categorical feature of more levels."""
    out = np.zeros_like(bits)
    for node in range(bits.shape[0]):
        if not is_categorical[node]:
            continue
        for word in range(bits.shape[1]):
            for bit in range(64):
                if 64 * word + bit < n_cat[feature[node]] and (int(bits[node, word]) >> bit) & 1:
                    out[node, word] |= np.uint64(1) << np.uint64(bit)
    return out


@settings(max_examples=150, deadline=None)
@given(
    n_words=st.integers(0, 3),
    levels=st.lists(st.integers(0, 192), min_size=1, max_size=4),
    nodes=st.lists(st.tuples(st.integers(-2, 3), st.integers(0, 2**64 - 1)), min_size=1, max_size=12),
    data=st.data(),
)
def test_mask_keeps_the_levels_of_each_split(n_words, levels, nodes, data):
    n_cat = np.minimum(np.array(levels, dtype=np.int64), 64 * n_words)
    feature = np.array([min(f, len(levels) - 1) for f, _ in nodes], dtype=np.int64)
    is_categorical = (feature >= 0) & (n_cat[np.maximum(feature, 0)] > 0)
    words = data.draw(st.lists(st.integers(0, 2**64 - 1), min_size=len(nodes) * n_words, max_size=len(nodes) * n_words))
    bits = np.array(words, dtype=np.uint64).reshape(len(nodes), n_words)
    expected = _expected(bits, n_cat, feature, is_categorical)
    got = _canonical_category_bits(bits.copy(), n_cat, feature, is_categorical)
    assert got.dtype == np.uint64
    np.testing.assert_array_equal(got, expected)
