"""The random split of a large sample into a growing sample and the rest.

Method M1 of Gey's paper (section 3.1) grows T_max on L1 and prunes it with
L2; with the hold-out selection (eq. 10) a test sample T is kept out as well.
When the sample is too large for one process, L1 is a sample of ``grow_size``
rows that fits in memory and L2 is every other row. The split must be known
to every worker without shipping an index per row, so:

* L1 is ``grow_size`` distinct rows drawn by a seeded generator (a sorted
  index array of ``grow_size`` entries, cut into one slice per block);
* a row outside L1 belongs to T when a hash of its global row number and the
  seed, read as a uniform number in [0, 1), is below ``test_size`` (so T
  does not depend on how the rows are cut into blocks), and to L2 otherwise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _uniform(seed, rows):
    """splitmix64 of ``seed`` and each global row number, as floats in [0, 1)."""
    with np.errstate(over="ignore"):
        z = np.uint64(seed) * _GOLDEN + (np.asarray(rows, dtype=np.uint64) + np.uint64(1)) * _GOLDEN
        z = (z ^ (z >> np.uint64(30))) * _MIX1
        z = (z ^ (z >> np.uint64(27))) * _MIX2
        z = z ^ (z >> np.uint64(31))
    return (z >> np.uint64(11)).astype(np.float64) * 2.0**-53


@dataclass(frozen=True)
class SampledSplit:
    """Rows of a sample of ``n_samples`` rows split into L1, L2 and a test sample.

    Attributes
    ----------
    n_samples : int
    grow_indices : ndarray of int, shape (grow_size,)
        Sorted rows of L1.
    test_size : float
        Probability that a row outside L1 is a test row (0: no test sample).
    seed : int
        Seed of the test rows' hash.
    """

    n_samples: int
    grow_indices: np.ndarray
    test_size: float
    seed: int

    @classmethod
    def draw(cls, n_samples, grow_size, test_size, rng):
        """Draw L1 (``grow_size`` rows) and the test hash seed from ``rng`` (a RandomState)."""
        seed = int(rng.randint(2**31 - 1))
        gen = np.random.default_rng(seed)
        # Generator.choice without replacement costs O(grow_size), not O(n_samples).
        grow = np.sort(gen.choice(n_samples, size=grow_size, replace=False, shuffle=False)).astype(np.int64)
        return cls(int(n_samples), grow, float(test_size), seed)

    def block_masks(self, start, stop):
        """``(test, prune)`` boolean masks of rows ``start .. stop - 1``."""
        rows = np.arange(start, stop, dtype=np.int64)
        grow = np.zeros(stop - start, dtype=bool)
        lo, hi = np.searchsorted(self.grow_indices, [start, stop])
        grow[self.grow_indices[lo:hi] - start] = True
        if self.test_size > 0:
            test = ~grow & (_uniform(self.seed, rows) < self.test_size)
        else:
            test = np.zeros(stop - start, dtype=bool)
        return test, ~grow & ~test

    def masks(self):
        """``(grow, test, prune)`` masks over all rows (for samples that fit in memory)."""
        test, prune = self.block_masks(0, self.n_samples)
        return ~(test | prune), test, prune
