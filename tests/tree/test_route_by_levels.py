"""Routing a split from the node's tables (route_by_levels) against routing
it row by row from the feature's values (route_rows): the same flags, rows
left, side of missing values, children's class weights and level bitset,
bit for bit, on categorical and few-level numeric features with integer
weights; and the node's tables against counting its rows one by one."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.tree._level_split import fill_tables, level_codes
from prunus.tree._splitter import GrowthData, Settings, Workspace, route_by_levels, route_rows, routes_by_levels


def _growth(seed, n_all, n_values, nan_share, n_classes):
    """Two features of integer values (feature 0 categorical with
    ``n_values`` levels, feature 1 numeric), their level tables, labels and
    integer weights (0 for a few rows: not in the growth)."""
    rng = np.random.default_rng(seed)
    columns = rng.integers(0, n_values, (2, n_all)).astype(float)
    columns[1] *= 0.5
    columns[rng.random(columns.shape) < nan_share] = np.nan
    order = np.empty((2, n_all), dtype=np.int32)
    for f in range(2):
        order[f] = np.argsort(np.where(np.isnan(columns[f]), np.inf, columns[f]), kind="stable")
    n_categories = np.array([n_values, 0], dtype=np.int64)
    slot, codes, values, n_levels = level_codes(columns, order, n_categories, 64)
    offset = np.concatenate(([0], np.cumsum(n_levels + 1))).astype(np.int64)
    y = rng.integers(0, n_classes, n_all).astype(np.int32)
    unit = seed % 2 == 0
    weight = np.ones(n_all) if unit else rng.integers(1, 4, n_all).astype(float)
    weight[rng.random(n_all) < 0.2] = 0.0
    data = GrowthData(columns, y, weight, unit, np.empty(0), n_categories, slot, codes, values, n_levels, offset, True)
    return data, rng


def _workspace(data, node_rows, n_classes):
    n_cells = data.level_offset[-1]
    n_all = data.columns.shape[1]
    return Workspace(
        np.zeros((2, node_rows.shape[0]), dtype=np.int32),
        np.empty(max(node_rows.shape[0], 64), dtype=np.int32),
        np.zeros(n_all, dtype=np.bool_),
        np.zeros(n_classes),
        np.zeros(n_classes),
        np.zeros(n_classes),
        node_rows,
        np.zeros(1, dtype=np.int64),
        np.zeros(n_cells * n_classes),
        np.zeros(n_cells, dtype=np.int64),
    )


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(20, 120),
    st.sampled_from([2, 5, 12, 40]),
    st.sampled_from([0.0, 0.2]),
    st.sampled_from([2, 3]),
    st.integers(0, 1),
    st.booleans(),
)
def test_routing_from_tables_is_routing_row_by_row(seed, n_all, n_values, nan_share, n_classes, feature, missing_left):
    data, rng = _growth(seed, n_all, n_values, nan_share, n_classes)
    rows = np.flatnonzero(data.weight > 0.0).astype(np.int32)
    # A node: some of the growth's rows, ascending, at [start, end) of node_rows.
    start = 1 if rows.shape[0] > 2 else 0
    keep = np.sort(rng.choice(rows.shape[0] - start, max(1, (rows.shape[0] - start) // 2), replace=False))
    node_rows = rows.copy()
    node_rows[start : start + keep.shape[0]] = rows[start + keep]
    end = start + keep.shape[0]
    node = node_rows[start:end]
    node_counts = np.bincount(data.y[node], data.weight[node], n_classes)
    levels = rng.random(64) < 0.5
    bits = np.zeros(1, dtype=np.int64)
    for code in np.flatnonzero(levels):
        bits[0] |= np.int64(1) << np.int64(code)
    present = data.columns[1, node]
    threshold = float(np.nanmedian(present)) if not np.all(np.isnan(present)) else 0.0
    split = (feature, threshold, missing_left)
    cfg = Settings(0, -1, 2, 1, 0.0, 2, -1, n_classes, 0, False, 2.0)

    plain = _workspace(data, node_rows.copy(), n_classes)
    plain_counts = np.full((2, n_classes), np.nan)
    plain_bits = bits.copy()
    expected = route_rows(data, plain, cfg, (start, end), split, plain_counts, node_counts, plain_bits)

    tables = _workspace(data, node_rows.copy(), n_classes)
    fill_tables(data, tables.node_rows, (start, end), tables.table, tables.table_rows)
    assert routes_by_levels(data, tables, feature)
    counts = np.full((2, n_classes), np.nan)
    found = route_by_levels(data, tables, (start, end), split, counts, bits)

    assert found == expected
    np.testing.assert_array_equal(counts, plain_counts)
    np.testing.assert_array_equal(tables.goes_left[node], plain.goes_left[node])
    np.testing.assert_array_equal(bits, plain_bits)


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 2**32 - 1),
    st.integers(1, 120),
    st.sampled_from([2, 5, 12, 40]),
    st.sampled_from([0.0, 0.2, 1.0]),
    st.sampled_from([2, 3]),
)
def test_node_tables_count_the_rows_of_each_cell(seed, n_all, n_values, nan_share, n_classes):
    """fill_tables (its unit-weight path on even seeds) against counting row by row."""
    data, rng = _growth(seed, n_all, n_values, nan_share, n_classes)
    rows = np.flatnonzero(data.weight > 0.0).astype(np.int32)
    start = min(1, rows.shape[0])
    end = start + rng.integers(0, rows.shape[0] - start + 1)
    n_cells = data.level_offset[-1]
    table = np.full(n_cells * n_classes, np.nan)
    counts = np.full(n_cells, -1, dtype=np.int64)
    fill_tables(data, rows, (start, end), table, counts)
    expected = np.zeros((n_cells, n_classes))
    expected_counts = np.zeros(n_cells, dtype=np.int64)
    for row in rows[start:end]:
        for s in range(data.n_levels.shape[0]):
            cell = data.level_offset[s] + data.level_codes[row, s]
            expected[cell, data.y[row]] += data.weight[row]
            expected_counts[cell] += 1
    np.testing.assert_array_equal(table.reshape(n_cells, n_classes), expected)
    np.testing.assert_array_equal(counts, expected_counts)
