"""Seeded random generators without the cost of making one."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np

_spares = threading.local()


@contextmanager
def seeded_random_state(seed: int) -> Iterator[np.random.RandomState]:
    """``numpy.random.RandomState(seed)`` for the duration of the block.

    The same draws as a new generator, from spares kept per thread and
    seeded again: making a RandomState first seeds a fresh Mersenne Twister
    from the system's entropy (about 80 microseconds, more than growing a
    small table's tree), which seeding an existing one skips. The generator
    must not be kept beyond the block. A block inside another takes another
    spare (a fit's own generator is open while its folds are drawn), so each
    thread keeps as many spares as its deepest nesting.
    """
    spares = getattr(_spares, "stack", None)
    if spares is None:
        spares = _spares.stack = []
    if spares:
        spare = spares.pop()
        spare.seed(seed)
    else:
        spare = np.random.RandomState(seed)
    try:
        yield spare
    finally:
        spares.append(spare)
