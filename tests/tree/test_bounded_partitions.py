"""The branch-and-bound search over the partitions of a categorical feature's
levels (more than two classes, integer weights), and the direct enumeration
of a few levels, against the plain exhaustive search: the same split (proxy
to the last bit, missing side, left levels) from any incoming best
candidate, and the best of every partition found by a plain-Python
enumeration."""

import itertools
import math

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from prunus.tree._categorical_split import _FEW_LEVELS, _scan_bounded, _scan_exhaustive, _scan_few, _scratch_size
from prunus.tree._criterion import CLASSIFICATION_CRITERIA
from prunus.tree._splitter import Workspace
from prunus.tree.cart import GrowthParams, _settings, _workspace_arrays

# The criterion of each kernel code (the first name of it).
CRITERION_NAME = {code: name for name, code in reversed(CLASSIFICATION_CRITERIA.items())}

NO_BEST = (-np.inf, -1, np.nan, False)


@st.composite
def level_tables(draw):
    """Class weights (integers) of 2-12 present levels and of the missing rows."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n_levels = draw(st.integers(2, 14))
    n_classes = draw(st.integers(3, 5))
    # Skewed levels (one class dominant) make some partitions clearly best,
    # so that most blocks are skipped; uniform ones make many near-ties.
    skew = draw(st.sampled_from([0.0, 2.0, 8.0]))
    stats = rng.integers(0, 6, (n_levels, n_classes)).astype(float)
    stats[np.arange(n_levels), rng.integers(0, n_classes, n_levels)] += skew * rng.integers(0, 4, n_levels)
    # A growth holds rows of positive weight only: a present level weighs
    # at least 1 (and has at most as many rows as its weight); absent levels
    # have no rows.
    stats[np.arange(n_levels), rng.integers(0, n_classes, n_levels)] += 1.0
    absent = rng.random(n_levels) < 0.2
    absent[:2] = False
    stats[absent] = 0.0
    weights = stats.sum(axis=1).astype(np.int64)
    rows = np.where(absent, 0, np.maximum(1, weights - rng.integers(0, 2, n_levels)))
    present = np.flatnonzero(rows > 0)
    missing = np.zeros(n_classes)
    n_missing = 0
    if draw(st.booleans()):
        missing = rng.integers(0, 4, n_classes).astype(float)
        missing[rng.integers(0, n_classes)] += 1.0
        n_missing = int(missing.sum())
    total = stats.sum(axis=0) + missing
    criterion = draw(st.sampled_from(sorted(set(CLASSIFICATION_CRITERIA.values()))))
    min_leaf = draw(st.sampled_from([1, 1, 2, 5]))
    return stats, rows, present, missing, n_missing, total, criterion, min_leaf


def _scan(kernel, table, best, feature=3):
    stats, rows, present, missing, n_missing, total, criterion, min_leaf = table
    # The library's own records (a record type of this module would enter numba's cache of the kernels).
    n_classes = total.shape[0]
    arrays = _workspace_arrays(np.zeros((1, 1), dtype=np.int32), np.ones(1), n_classes, 1, np.zeros(0, dtype=bool))
    work = Workspace._make((*arrays, np.empty((0, 0))))
    work.left[:] = np.nan
    work.missing[:] = missing
    work.total[:] = total
    sizes = (int(rows.sum()) + n_missing, n_missing)
    params = GrowthParams(CRITERION_NAME[criterion], None, 2, min_leaf, 0.0, None, None)
    growth = _settings(params, max(sizes[0], 1), feature + 1, n_classes, 0)
    tol = 1e-12 * total.sum()
    levels = present
    if kernel is _scan_bounded:  # with its scratch
        levels = (present, np.full(_scratch_size(present.shape[0], n_classes), np.nan))
    found = kernel(work, growth, feature, stats, rows, levels, sizes, best, tol)
    return found, work.best_bits.copy()


def _proxy(left, total, criterion):
    """The proxy of a split with class weights ``left`` left, in plain Python."""
    value = 0.0
    for side in (left, total - left):
        weight = side.sum()
        if weight <= 0.0:
            return -math.inf
        if criterion == CLASSIFICATION_CRITERIA["gini"]:
            value += float((side**2).sum() / weight)
        elif criterion == CLASSIFICATION_CRITERIA["entropy"]:
            value += sum(c * math.log(c) for c in side if c > 0) - weight * math.log(weight)
        else:
            value += float(side.max())
    return value


def _brute_best(table):
    """Largest proxy of every admissible partition of the present levels."""
    stats, rows, present, missing, n_missing, total, criterion, min_leaf = table
    n_rows = int(rows.sum()) + n_missing
    best = -math.inf
    others = present[1:]
    for size in range(others.shape[0] + 1):
        for chosen in itertools.combinations(others, size):
            left_levels = [present[0], *chosen]
            left = stats[left_levels].sum(axis=0)
            left_rows = int(rows[left_levels].sum())
            every_level = len(left_levels) == present.shape[0]
            for with_missing in (False, True) if n_missing else (False,):
                if every_level and (with_missing or not n_missing):
                    continue
                n_left = left_rows + (n_missing if with_missing else 0)
                if n_left < min_leaf or n_rows - n_left < min_leaf:
                    continue
                best = max(best, _proxy(left + missing if with_missing else left, total, criterion))
    return best


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(level_tables(), st.sampled_from(["none", "below", "at", "above"]), st.sampled_from([1, 3, 5]))
def test_bounded_search_is_the_exhaustive_search(table, incoming, incoming_feature):
    """Same candidate, same proxy bits, same left levels, whatever the
    incoming best (none, below the feature's best, equal to it from a lower
    or higher feature, above it)."""
    _assert_same_as_exhaustive(_scan_bounded, table, incoming, incoming_feature)


def _assert_same_as_exhaustive(kernel, table, incoming, incoming_feature):
    exhaustive, bits = _scan(_scan_exhaustive, table, NO_BEST)
    best = NO_BEST
    if incoming != "none" and exhaustive[1] >= 0:
        factor = {"below": 0.97, "at": 1.0, "above": 1.03}[incoming]
        best = (exhaustive[0] * factor if exhaustive[0] > 0 else exhaustive[0], incoming_feature, 0.5, False)
    expected, expected_bits = _scan(_scan_exhaustive, table, best)
    found, found_bits = _scan(kernel, table, best)
    assert found[1] == expected[1]
    assert found[3] == expected[3]
    assert (found[0] == expected[0]) or (np.isinf(found[0]) and np.isinf(expected[0]))
    if expected[1] == 3:
        np.testing.assert_array_equal(found_bits, expected_bits)


@st.composite
def few_level_tables(draw):
    """:func:`level_tables` restricted to the present levels the direct enumeration takes."""
    stats, rows, present, missing, n_missing, total, criterion, min_leaf = draw(level_tables())
    keep = present[: draw(st.integers(2, _FEW_LEVELS))]
    dropped = np.setdiff1d(present, keep)
    stats, rows = stats.copy(), rows.copy()
    stats[dropped] = 0.0
    rows[dropped] = 0
    total = stats.sum(axis=0) + missing
    return stats, rows, keep, missing, n_missing, total, criterion, min_leaf


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(few_level_tables(), st.sampled_from(["none", "below", "at", "above"]), st.sampled_from([1, 3, 5]))
def test_few_level_search_is_the_exhaustive_search(table, incoming, incoming_feature):
    """The direct enumeration of 2-4 present levels: the exhaustive search's
    candidate, proxy bits and left levels, whatever the incoming best."""
    _assert_same_as_exhaustive(_scan_few, table, incoming, incoming_feature)
    _assert_same_as_exhaustive(_scan_bounded, table, incoming, incoming_feature)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(level_tables())
def test_bounded_search_finds_the_best_partition(table):
    """From no incoming candidate, the proxy found is the largest of every
    admissible partition (plain-Python enumeration), or none is admissible."""
    found, _ = _scan(_scan_bounded, table, NO_BEST)
    brute = _brute_best(table)
    if math.isinf(brute):
        assert found[1] == -1
    else:
        assert found[1] == 3
        assert math.isclose(found[0], brute, rel_tol=1e-9, abs_tol=1e-9)


def test_bounded_search_on_twelve_levels_of_three_classes():
    """The largest exhaustive case (2^11 partitions), clearly separated
    levels: the class-0 levels left, the others right."""
    stats = np.zeros((12, 3))
    for level in range(12):
        stats[level, level % 3] = 20.0
        stats[level, (level + 1) % 3] = 1.0
    rows = stats.sum(axis=1).astype(np.int64)
    table = (stats, rows, np.arange(12), np.zeros(3), 0, stats.sum(axis=0), CLASSIFICATION_CRITERIA["gini"], 1)
    found, bits = _scan(_scan_bounded, table, NO_BEST)
    expected, expected_bits = _scan(_scan_exhaustive, table, NO_BEST)
    assert (found[0], found[1], found[3]) == (expected[0], expected[1], expected[3])
    np.testing.assert_array_equal(bits, expected_bits)
    left = [level for level in range(12) if bits[0] >> level & 1]
    assert left == [0, 3, 6, 9]
