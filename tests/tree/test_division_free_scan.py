"""The presorted Gini scan's division-free test of a candidate (integer
weights) passes over only candidates that ``better`` would refuse: the
split found is the plain scan's, bit for bit, whatever the incoming best."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from prunus.tree._criterion import proxy_from_sums
from prunus.tree._splitter import _NONE, GrowthData, Settings, Workspace, _gini_below, _scan_present


@njit(cache=False)
def _scan(data, work, cfg, feature, end, best, tol):
    return _scan_present(data, work, cfg, feature, 0, end, best, tol)


def _case(seed, n_rows, n_classes, n_values, max_weight):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, n_values, n_rows).astype(float)
    y = ((x > n_values / 2) + rng.integers(0, n_classes, n_rows)) % n_classes
    weight = rng.integers(1, max_weight + 1, n_rows).astype(float)
    # Four features, the scanned one (3) read: its order in every row.
    index = np.tile(np.argsort(x, kind="stable").astype(np.int32), (4, 1))
    total = np.bincount(y, weight, n_classes)
    zeros = np.zeros(n_classes)
    work = Workspace(
        index,
        np.empty(n_rows, dtype=np.int32),
        np.zeros(n_rows, dtype=np.bool_),
        zeros.copy(),
        zeros.copy(),
        total,
        np.arange(n_rows, dtype=np.int32),
        np.zeros(1, dtype=np.int64),
        np.zeros(0),
        np.zeros(0, dtype=np.int64),
    )
    return np.ascontiguousarray(np.tile(x, (4, 1))), y.astype(np.int64), weight, work


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(2, 80),
    st.integers(2, 4),
    st.sampled_from([2, 3, 10, 1000]),
    st.sampled_from([1, 3]),
    st.sampled_from([1, 2, 5]),
    st.sampled_from(["none", "below", "tie_lower", "tie_higher", "above"]),
)
def test_filtered_scan_is_the_plain_scan(seed, n_rows, n_classes, n_values, max_weight, min_leaf, incoming):
    columns, y, weight, work = _case(seed, n_rows, n_classes, n_values, max_weight)
    cfg = Settings(0, -1, 2, min_leaf, 0.0, 1, -1, n_classes, 0, False, 2.0)
    tol = 1e-12 * work.total.sum()
    feature = 3
    # Integer weights given as reals and not flagged: the plain scan, every candidate scored.
    plain = GrowthData(columns, y, weight, max_weight == 1, integer_weight=False)
    plain = plain._replace(unit_weight=False)
    filtered = GrowthData(columns, y, weight, max_weight == 1, integer_weight=True)
    own = _scan(plain, work, cfg, feature, n_rows, _NONE, tol)
    if own[1] < 0:
        offered = _NONE
    elif incoming == "none":
        offered = _NONE
    elif incoming == "below":
        offered = (own[0] * 0.97, 7, 0.5, True)
    elif incoming == "tie_lower":
        offered = (own[0], 1, 0.5, True)  # a lower feature keeps an equal proxy
    elif incoming == "tie_higher":
        offered = (own[0], 9, 0.5, True)  # a higher feature gives way to an equal proxy
    else:
        offered = (own[0] * 1.03, 7, 0.5, True)
    expected = _scan(plain, work, cfg, feature, n_rows, offered, tol)
    found = _scan(filtered, work, cfg, feature, n_rows, offered, tol)
    assert found[1] == expected[1]
    assert found[3] == expected[3]
    assert np.float64(found[0]).tobytes() == np.float64(expected[0]).tobytes()
    assert np.float64(found[2]).tobytes() == np.float64(expected[2]).tobytes()


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.integers(0, 60), min_size=2, max_size=5),
    st.lists(st.integers(0, 60), min_size=2, max_size=5),
    st.floats(-1.0, 1.05),
)
def test_below_only_when_the_rounded_proxy_is_below(left, right, shift):
    """Class weights of two sides (at least 1 each): whenever the test says
    below the floor, the proxy as rounded is below it; a floor equal to the
    proxy is never below."""
    k = min(len(left), len(right))
    left = np.array(left[:k], dtype=float)
    right = np.array(right[:k], dtype=float)
    left[0] += 1.0
    right[0] += 1.0
    sums = (float((left**2).sum()), float(left.sum()), float((right**2).sum()), float(right.sum()))
    proxy = proxy_from_sums(sums[0], sums[1], sums[2], sums[3], 0)
    floor = proxy * (1.0 + shift * 1e-6)
    if _gini_below(sums, floor):
        assert proxy < floor
    assert not _gini_below(sums, proxy)
    assert not _gini_below(sums, -np.inf)
