"""The sampled split: the same rows whatever the blocks (no cluster needed)."""

from itertools import pairwise

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.tree.sample import SampledSplit


@settings(max_examples=50, deadline=None)
@given(
    n=st.integers(3, 400),
    data=st.data(),
    test_size=st.sampled_from([0.0, 0.1, 0.5]),
    seed=st.integers(0, 2**31 - 2),
)
def test_block_masks_agree_with_whole_sample(n, data, test_size, seed):
    grow_size = data.draw(st.integers(1, n - 1))
    cuts = sorted(set(data.draw(st.lists(st.integers(1, n - 1), max_size=6))))
    split = SampledSplit.draw(n, grow_size, test_size, np.random.RandomState(seed))
    grow, test, prune = split.masks()
    assert grow.sum() == grow_size and np.array_equal(np.flatnonzero(grow), split.grow_indices)
    assert not (grow & test).any() and not (grow & prune).any() and not (test & prune).any()
    assert (grow | test | prune).all()
    bounds = [0, *cuts, n]
    parts = [split.block_masks(a, b) for a, b in pairwise(bounds)]
    assert np.array_equal(np.concatenate([p[0] for p in parts]), test)
    assert np.array_equal(np.concatenate([p[1] for p in parts]), prune)
    if test_size == 0.0:
        assert not test.any()


def test_test_rows_have_the_asked_frequency():
    split = SampledSplit.draw(200_000, 1000, 0.1, np.random.RandomState(0))
    _, test, prune = split.masks()
    frac = test.sum() / (test.sum() + prune.sum())
    assert abs(frac - 0.1) < 0.005  # binomial sd is 0.0007
