"""The keys carried next to the presorted orders (each row's class and the
rank of its value): the scan reading them finds the plain scan's split, bit
for bit, and every partition and sort keeps them next to their rows."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from prunus.tree._splitter import (
    _NONE,
    CLASS_BITS,
    CLASS_MASK,
    MAX_CARRIED_KEYS,
    GrowthData,
    Settings,
    Workspace,
    _scan_carried,
    _scan_present,
    carried_keys,
    carries_keys,
    partition,
    route_rows,
    sort_segment,
)


def _node(seed, n_rows, n_features, n_values, nan_share):
    """A node of ``n_rows`` rows (ids with gaps, as in a fold) at ``[2, 2 +
    n_rows)`` of every feature's presorted segment, NaN last, each row
    flagged to a side."""
    rng = np.random.default_rng(seed)
    n_all = 3 * n_rows + 4
    columns = rng.integers(0, n_values, (n_features, n_all)).astype(float)
    columns[rng.random(columns.shape) < nan_share] = np.nan
    rows = np.sort(rng.choice(n_all, n_rows + 4, replace=False)).astype(np.int32)
    node_rows = rows.copy()
    index = np.empty((n_features, rows.shape[0]), dtype=np.int32)
    for f in range(n_features):
        # Each block (before, the node, after) sorted by the feature.
        for lo, hi in ((0, 2), (2, 2 + n_rows), (2 + n_rows, rows.shape[0])):
            block = rows[lo:hi]
            key = np.where(np.isnan(columns[f, block]), np.inf, columns[f, block])
            index[f, lo:hi] = block[np.argsort(key, kind="stable")]
    goes_left = np.zeros(n_all, dtype=np.bool_)
    goes_left[rows] = rng.random(rows.shape[0]) < 0.5
    goes_left[node_rows[2]] = True
    goes_left[node_rows[3]] = False
    return columns, index, node_rows, goes_left, rng


@njit(cache=False)
def _scans(data, work, cfg, feature, segment, best, tol):
    start, end = segment
    plain = _scan_present(data, work, cfg, feature, start, end, best, tol)
    carried = _scan_carried(data, work, cfg, feature, start, end, best, tol)
    return plain, carried


def _workspace(index, node_rows, goes_left, n_classes, keys=None):
    zeros = np.zeros(n_classes)
    if keys is None:
        keys = np.empty((0, 0))
    return Workspace(
        index,
        np.empty(index.shape[1], dtype=np.int32),
        goes_left,
        zeros.copy(),
        zeros.copy(),
        zeros.copy(),
        node_rows,
        np.zeros(1, dtype=np.int64),
        np.zeros(0),
        np.zeros(0, dtype=np.int64),
        scan=keys,
    )


def _check_keys(columns, y, index, keys, segments):
    """Each key holds its row's class, and consecutive keys agree above the
    class bits exactly where the values are equal (missing: never)."""
    for f in range(index.shape[0]):
        for lo, hi in segments:
            rows = index[f, lo:hi]
            codes = keys[f].astype(np.int64)
            np.testing.assert_array_equal(codes[lo:hi] & CLASS_MASK, y[rows])
            values = columns[f, rows]
            same_value = values[1:] == values[:-1]
            same_rank = (codes[lo + 1 : hi] >> CLASS_BITS) == (codes[lo : hi - 1] >> CLASS_BITS)
            np.testing.assert_array_equal(same_rank, same_value)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(2, 80),
    st.integers(2, 4),
    st.sampled_from([2, 3, 10, 1000]),
    st.sampled_from(["unit", "integer", "real"]),
    st.sampled_from([0, 1]),
    st.sampled_from([1, 2, 5]),
    st.sampled_from(["none", "below", "tie_lower", "tie_higher", "above"]),
)
def test_carried_scan_is_the_plain_scan(seed, n_rows, n_classes, n_values, weights, criterion, min_leaf, incoming):
    """On a segment of the order (the whole, or rows inside it), with
    incoming best none / below / equal from a lower and a higher feature /
    above: the same feature, proxy, threshold and side, to the last bit."""
    rng = np.random.default_rng(seed)
    n_all = n_rows + 6
    x = rng.integers(0, n_values, n_all).astype(float)
    x[x == 0] = -0.0  # equal to 0.0: the same rank
    x[rng.random(n_all) < 0.2] = 0.0
    y = ((x > n_values / 2) + rng.integers(0, n_classes, n_all)) % n_classes
    if weights == "unit":
        weight = np.ones(n_all)
    elif weights == "integer":
        weight = rng.integers(1, 4, n_all).astype(float)
    else:
        weight = rng.random(n_all) * 2.0 + 0.01
    feature = 2
    columns = np.ascontiguousarray(np.tile(x, (3, 1)))
    index = np.tile(np.argsort(x, kind="stable").astype(np.int32), (3, 1))
    keys = carried_keys(columns, y.astype(np.int32), index, np.zeros(0, dtype=np.bool_))
    start, end = (0, n_all) if seed % 2 else (3, 3 + n_rows)
    rows = index[feature, start:end]
    work = _workspace(index, np.sort(rows), np.zeros(n_all, dtype=np.bool_), n_classes, keys)
    work.total[:] = np.bincount(y[rows], weight[rows], n_classes)
    data = GrowthData(columns, y.astype(np.int32), weight, weights == "unit", integer_weight=weights == "integer")
    cfg = Settings(criterion, -1, 2, min_leaf, 0.0, 1, -1, n_classes, 0, False, 2.0)
    tol = 1e-12 * work.total.sum()
    own = _scans(data, work, cfg, feature, (start, end), _NONE, tol)[0]
    if own[1] < 0 or incoming == "none":
        offered = _NONE
    elif incoming == "below":
        offered = (own[0] * 0.97, 7, 0.5, True)
    elif incoming == "tie_lower":
        offered = (own[0], 1, 0.5, True)
    elif incoming == "tie_higher":
        offered = (own[0], 9, 0.5, True)
    else:
        offered = (own[0] * 1.03, 7, 0.5, True)
    expected, found = _scans(data, work, cfg, feature, (start, end), offered, tol)
    assert found[1] == expected[1]
    assert found[3] == expected[3]
    assert np.float64(found[0]).tobytes() == np.float64(expected[0]).tobytes()
    assert np.float64(found[2]).tobytes() == np.float64(expected[2]).tobytes()


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(2, 60),
    st.integers(1, 4),
    st.sampled_from([2, 5, 1000]),
    st.sampled_from([0.0, 0.2]),
    st.sampled_from([(True, True), (True, False), (False, True)]),
)
def test_partition_moves_the_keys_with_their_rows(seed, n_rows, n_features, n_values, nan_share, sides):
    """Both children's segments, or the one read: the rows as the partition
    without keys leaves them, each next to its key."""
    columns, index, node_rows, goes_left, rng = _node(seed, n_rows, n_features, n_values, nan_share)
    n_classes = 3
    y = rng.integers(0, n_classes, columns.shape[1]).astype(np.int32)
    start, end = 2, 2 + n_rows
    n_left = int(goes_left[node_rows[start:end]].sum())
    middle = start + n_left
    keys = carried_keys(columns, y, index, np.zeros(0, dtype=np.bool_))
    _check_keys(columns, y, index, keys, [(0, index.shape[1])])
    features = np.arange(n_features, dtype=np.int64)
    data = GrowthData(columns, y, np.ones(columns.shape[1]), True)
    plain = _workspace(index.copy(), node_rows.copy(), goes_left, n_classes)
    plain_children = np.full((2, n_features), -7, dtype=np.int64)
    plain_kept = partition(data, plain, (start, end, n_left), features, plain_children, sides)
    work = _workspace(index.copy(), node_rows.copy(), goes_left, n_classes, keys.copy())
    children = np.full((2, n_features), -7, dtype=np.int64)
    kept = partition(data, work, (start, end, n_left), features, children, sides)
    assert kept == plain_kept
    np.testing.assert_array_equal(children, plain_children)
    np.testing.assert_array_equal(work.node_rows, plain.node_rows)
    read = [seg for seg, side in zip(((start, middle), (middle, end)), sides) if side]
    for lo, hi in read:
        np.testing.assert_array_equal(work.index[:, lo:hi], plain.index[:, lo:hi])
    # Outside the node nothing moves.
    np.testing.assert_array_equal(work.scan[:-1, :start], keys[:-1, :start])
    np.testing.assert_array_equal(work.scan[:-1, end:], keys[:-1, end:])
    _check_keys(columns, y, work.index, work.scan, [seg for seg in read if seg[1] > seg[0]])


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(2, 60), st.sampled_from([2, 5, 1000]), st.sampled_from([0.0, 0.2]))
def test_sorted_segment_gets_its_keys(seed, n_rows, n_values, nan_share):
    """A segment sorted at its node (below the presorted nodes) gets keys of
    its rows' ranks there."""
    columns, index, node_rows, goes_left, rng = _node(seed, n_rows, 2, n_values, nan_share)
    y = rng.integers(0, 4, columns.shape[1]).astype(np.int32)
    keys = carried_keys(columns, y, index, np.zeros(0, dtype=np.bool_))
    # The segment scrambled, as a partition of the rows alone leaves it.
    index[1, 2 : 2 + n_rows] = node_rows[2 : 2 + n_rows]
    keys[1, 2 : 2 + n_rows] = -1
    data = GrowthData(columns, y, np.ones(columns.shape[1]), True)
    work = _workspace(index, node_rows, goes_left, 4, keys)
    sort_segment(data, work, 1, 2, 2 + n_rows)
    _check_keys(columns[1:], y, work.index[1:], work.scan[1:], [(2, 2 + n_rows)])


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(2, 60),
    st.sampled_from([2, 5, 1000]),
    st.sampled_from([0.0, 0.2, 0.9]),
    st.sampled_from(["unit", "integer"]),
    st.sampled_from(["median", "inf", "low"]),
    st.booleans(),
)
def test_routing_by_the_sorted_segment_is_routing_by_values(
    seed, n_rows, n_values, nan_share, weights, threshold_at, missing_left
):
    """Integer weights: routing a numeric split from the feature's sorted
    segment and its keys flags the same rows, sends as many left, gives the
    same side of missing values and the same children's class weights, bit
    for bit, as routing by the values in the node's row order."""
    columns, index, node_rows, _, rng = _node(seed, n_rows, 2, n_values, nan_share)
    n_all = columns.shape[1]
    n_classes = 3
    y = rng.integers(0, n_classes, n_all).astype(np.int32)
    unit = weights == "unit"
    weight = np.ones(n_all) if unit else rng.integers(0, 4, n_all).astype(float)
    start, end = 2, 2 + n_rows
    node_counts = np.bincount(y[node_rows[start:end]], weight[node_rows[start:end]], n_classes)
    present = columns[1, node_rows[start:end]]
    present = present[~np.isnan(present)]
    if threshold_at == "inf" or present.shape[0] == 0:
        threshold = np.inf
    elif threshold_at == "low":
        threshold = float(present.min()) - 0.5
    else:
        threshold = float(np.median(present))
    cfg = Settings(0, -1, 2, 1, 0.0, 2, -1, n_classes, 0, False, 2.0)
    data = GrowthData(columns, y, weight, unit, np.empty(0), integer_weight=not unit)
    keys = carried_keys(columns, y, index, np.zeros(0, dtype=np.bool_))
    found = []
    for carried in (None, keys):
        work = _workspace(index.copy(), node_rows.copy(), np.zeros(n_all, dtype=np.bool_), n_classes, carried)
        child_counts = np.full((2, n_classes), np.nan)
        bits = np.zeros(1, dtype=np.int64)
        n_left, side = route_rows(
            data, work, cfg, (start, end), (1, threshold, missing_left), child_counts, node_counts, bits
        )
        found.append((n_left, side, child_counts, work.goes_left.copy()))
    (n_a, side_a, counts_a, flags_a), (n_b, side_b, counts_b, flags_b) = found
    assert (n_b, side_b) == (n_a, side_a)
    np.testing.assert_array_equal(counts_b, counts_a)
    np.testing.assert_array_equal(flags_b, flags_a)


def test_keys_are_carried_where_they_serve_and_fit():
    """Keys for a classification with some feature searched from its order,
    at most 256 classes, and not more than MAX_CARRIED_KEYS of them."""
    none = np.zeros(0, dtype=np.bool_)
    assert carries_keys(20_000, 2, 8, none)
    assert carries_keys(20_000, 256, 8, np.array([True, False]))
    assert not carries_keys(20_000, 2, 2, np.array([True, True]))  # every feature from tables
    assert not carries_keys(20_000, 257, 8, none)
    assert not carries_keys(0, 2, 8, none)
    assert carries_keys(MAX_CARRIED_KEYS // 9, 2, 8, none)
    assert not carries_keys(MAX_CARRIED_KEYS // 9 + 1, 2, 8, none)
