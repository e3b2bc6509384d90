"""The partition of a split node's presorted segments when only one child
reads them (the other is a leaf), and the routing of its rows in the node's
row order: both against the plain stable partition / the feature's order."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.tree._splitter import GrowthData, Settings, Workspace, partition, route_rows


def _node(seed, n_rows, n_features, n_values, nan_share):
    """A node of ``n_rows`` rows (ids with gaps, as in a fold) at ``[2, 2 + n_rows)``
    of every feature's presorted segment, NaN last."""
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
    # A split sends rows both ways.
    goes_left[node_rows[2]] = True
    goes_left[node_rows[3]] = False
    return columns, index, node_rows, goes_left, rng


def _workspace(index, node_rows, goes_left, n_classes=2):
    zeros = np.zeros(n_classes)
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
    )


@settings(max_examples=150, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(2, 60),
    st.integers(1, 4),
    st.sampled_from([2, 5, 1000]),
    st.sampled_from([0.0, 0.2]),
    st.sampled_from([(True, False), (False, True)]),
)
def test_one_sided_partition_is_the_stable_partition_there(seed, n_rows, n_features, n_values, nan_share, sides):
    columns, index, node_rows, goes_left, _ = _node(seed, n_rows, n_features, n_values, nan_share)
    start, end = 2, 2 + n_rows
    n_left = int(goes_left[node_rows[start:end]].sum())
    middle = start + n_left
    features = np.arange(n_features, dtype=np.int64)
    data = GrowthData(columns, np.zeros(columns.shape[1], dtype=np.int64), np.ones(columns.shape[1]), True)
    full = _workspace(index.copy(), node_rows.copy(), goes_left)
    full_children = np.full((2, n_features), -7, dtype=np.int64)
    full_kept = partition(data, full, (start, end, n_left), features, full_children)
    one = _workspace(index.copy(), node_rows.copy(), goes_left)
    one_children = np.full((2, n_features), -7, dtype=np.int64)
    one_kept = partition(data, one, (start, end, n_left), features, one_children, sides)
    # The node's rows are partitioned whole; outside the node nothing moves.
    np.testing.assert_array_equal(one.node_rows, full.node_rows)
    np.testing.assert_array_equal(one.index[:, :start], index[:, :start])
    np.testing.assert_array_equal(one.index[:, end:], index[:, end:])
    side = 0 if sides[0] else 1
    lo, hi = (start, middle) if side == 0 else (middle, end)
    # The child that reads its segments finds them as the stable partition
    # leaves them (the leaf's places are not read again).
    np.testing.assert_array_equal(one.index[:, lo:hi], full.index[:, lo:hi])
    assert one_kept[side] == full_kept[side]
    assert one_kept[1 - side] == 0
    np.testing.assert_array_equal(one_children[side, : one_kept[side]], full_children[side, : full_kept[side]])


@settings(max_examples=100, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(2, 60),
    st.sampled_from([2, 5, 1000]),
    st.sampled_from([0.0, 0.2]),
    st.sampled_from([(0, 3), (1, 4)]),
    st.booleans(),
)
def test_routing_in_row_order_is_routing_in_feature_order(seed, n_rows, n_values, nan_share, weights, missing_left):
    """Integer weights (units, or integers 0-3 / 1-4): the children's class
    weights read in the node's row order are those read in the feature's
    order, bit for bit, as are the flags, the rows left and the side of
    missing values."""
    columns, index, node_rows, goes_left, rng = _node(seed, n_rows, 2, n_values, nan_share)
    n_all = columns.shape[1]
    n_classes = 3
    y = rng.integers(0, n_classes, n_all).astype(np.int64)
    unit = weights == (0, 3) and seed % 2 == 0
    weight = np.ones(n_all) if unit else rng.integers(weights[0], weights[1] + 1, n_all).astype(float)
    start, end = 2, 2 + n_rows
    node_counts = np.bincount(y[node_rows[start:end]], weight[node_rows[start:end]], n_classes)
    present = columns[1, node_rows[start:end]]
    threshold = float(np.nanmedian(present)) if not np.all(np.isnan(present)) else 0.0
    cfg = Settings(0, -1, 2, 1, 0.0, 2, -1, n_classes, 0, False, 2.0)
    found = []
    for exact in (True, False):
        # Not exact: the feature's presorted order is read (as for real weights).
        data = GrowthData(columns, y, weight, unit and exact, np.empty(0), integer_weight=exact)
        work = _workspace(index.copy(), node_rows.copy(), np.zeros(n_all, dtype=np.bool_), n_classes)
        child_counts = np.full((2, n_classes), np.nan)
        bits = np.zeros(1, dtype=np.int64)
        n_left, side = route_rows(
            data, work, cfg, (start, end), (1, threshold, missing_left), child_counts, node_counts, bits
        )
        found.append((n_left, side, child_counts, work.goes_left.copy()))
    (n_a, side_a, counts_a, flags_a), (n_b, side_b, counts_b, flags_b) = found
    assert (n_a, side_a) == (n_b, side_b)
    np.testing.assert_array_equal(counts_a, counts_b)
    np.testing.assert_array_equal(flags_a, flags_b)
    assert counts_a.sum() == weight[node_rows[start:end]].sum()
