"""A reseeded generator draws as a new ``RandomState(seed)``."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.utils._random import seeded_random_state


@settings(max_examples=100, deadline=None)
@given(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=4))
def test_seeded_generator_draws_as_a_new_one(seeds):
    for seed in seeds:
        expected = np.random.RandomState(seed)
        with seeded_random_state(seed) as rng:
            # Draws that leave state beyond the Mersenne Twister's (a cached Gaussian) behind.
            assert rng.standard_normal() == expected.standard_normal()
            np.testing.assert_array_equal(rng.permutation(17), expected.permutation(17))
            assert rng.randint(2**31 - 1) == expected.randint(2**31 - 1)


def test_nested_blocks_get_their_own_generators():
    with seeded_random_state(3) as outer:
        first = outer.randint(1000)
        with seeded_random_state(3) as inner:
            assert inner is not outer
            assert inner.randint(1000) == first
        assert outer.randint(1000) == np.random.RandomState(3).randint(1000, size=2)[1]
