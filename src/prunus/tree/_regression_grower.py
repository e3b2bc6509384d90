"""Depth-first least-squares growth for the common case, in one kernel.

A regression tree grown to single-value leaves has about 2 n nodes, so on a
few thousand rows the cost of a node that does not depend on its rows (calls
between kernels that pass the growth's records, the branches every node takes
for classification, categorical features, level tables and feature draws) is
most of the time of a growth. :func:`grow_squared_error` grows the tree
:func:`~prunus.tree._grower.grow_depth_first` grows when none of those is in
play: squared error, every feature numeric and searched at every node with
every threshold, no bound on the number of leaves (missing values, their
learned sides and surrogate splits are handled, with rpart's scoring of a
feature on the rows where it is present when surrogates are grown). The
operations on the numbers are those of the general kernels, in the same
order (the scans and the moments are the very helpers of ``_splitter`` that
the general kernels call, ``scan_two_pass``, ``scan_with_missing`` and
``row_moments``; the routing is that of ``route_rows``, the surrogates are
``_surrogate.split_with_surrogates``), so the tree is the same, bit for bit.
"""

import math

import numpy as np

from .._compiled import njit
from ._criterion import better
from ._grower import _EPSILON, _grown_rows, _grown_vector, _new_node, _prefix, _push_children
from ._splitter import (
    _NONE,
    NO_FEATURE,
    _stable_partition,
    missing_sums,
    regression_proxy,
    row_moments,
    scan_two_pass,
    scan_with_missing,
)
from ._surrogate import split_with_surrogates


@njit(cache=True, nogil=True, inline="always")
def _is_leaf(stats, n_rows, depth, limits):
    """``_grower._is_leaf`` for the squared error: ``limits = (max_depth,
    min_samples_split, min_samples_leaf)``."""
    max_depth, min_split, min_leaf = limits
    return stats[2] <= 0.0 or (max_depth >= 0 and depth >= max_depth) or n_rows < min_split or n_rows < 2 * min_leaf


@njit(cache=True, nogil=True, inline="always")
def scan_present_rows(column, order, target, weight, unit_weight, segment, totals, min_leaf, scan, best, feature, tol):
    """``_splitter._scan_present_rows`` for the squared error on plain arrays:
    the candidates of a feature with missing values at the node (``segment =
    (start, present_end, end)``, the missing rows last) split its present
    rows, ``min_leaf`` on each side, and are scored by the decrease of the
    squared error of those rows alone (rpart). The best of them enters the
    node's search with the proxy ``decrease`` (the squared error's node term
    is 0), its missing side right. ``totals = (weight, mean, sum of
    deviations)`` of the node."""
    start, present_end, end = segment
    w_total, mean, s_total = totals
    w_missing, s_missing = missing_sums(order, target, weight, mean, segment)
    w_present = w_total - w_missing
    s_present = s_total - s_missing
    if w_present <= 0.0:
        return best
    # Their own impurity is the full proxy less S_P^2 / W_P.
    present_term = s_present * s_present / w_present
    found = scan_two_pass(
        column,
        order,
        target,
        weight,
        unit_weight,
        (start, present_end),
        (w_present, mean, s_present),
        min_leaf,
        scan,
        _NONE,
        feature,
        tol,
    )
    if found[1] == NO_FEATURE:
        return best
    proxy = found[0] - present_term
    if better(proxy, feature, best[0], best[1], tol):
        return proxy, feature, found[2], False
    return best


@njit(cache=True, nogil=True, inline="always")
def _route_present_scored(column, order, target, weight, segment, threshold, totals, tol, goes_left):
    """Flag the sides of the rows ``order[start:end]`` (sorted by ``column``,
    the missing values last) under a split scored on present rows: the
    present rows by ``threshold``, the missing ones by the side that scores
    better for them, the present rows staying put (``_splitter._learned_side``,
    ties right; its sums are run in the same order here, in the routing's one
    pass). Returns (rows sent left, whether a value is missing, side of the
    missing values: False when none is)."""
    start, end = segment
    mean = totals[1]
    w_left = s_left = w_missing = s_missing = 0.0
    n_left = 0
    n_missing = 0
    for i in range(start, end):
        row = order[i]
        v = column[row]
        if math.isnan(v):
            n_missing += 1
            w = weight[row]
            w_missing += w
            s_missing += w * (target[row] - mean)
            goes_left[row] = False
        else:
            go = v <= threshold
            if go:
                w = weight[row]
                w_left += w
                s_left += w * (target[row] - mean)
            goes_left[row] = go
            n_left += go
    if n_missing == 0:
        return n_left, False, False
    right_side = regression_proxy(totals, w_left, s_left)
    left_side = regression_proxy(totals, w_left + w_missing, s_left + s_missing)
    learned_left = left_side > right_side + tol
    if learned_left:
        for i in range(end - n_missing, end):
            goes_left[order[i]] = True
        n_left += n_missing
    return n_left, True, learned_left


@njit(cache=True, nogil=True)
def node_capacity(n_rows):
    """Most nodes of a tree grown on ``n_rows`` rows: every leaf holds a row."""
    return max(2 * n_rows - 1, 1)


@njit(cache=True, nogil=True)
def grow_squared_error(data, work, settings, surrogates):
    """Depth-first least-squares growth of ``grow_depth_first`` (same
    arguments; ``surrogates`` empty or with room for every node) when every
    feature is numeric and searched (see the module's docstring). Returns the
    same arrays: (children_left, children_right, feature, threshold,
    missing_go_to_left, moments, bits) with the moments (weight, mean, within
    sum of squares) of every node and empty bits; children and features are
    int32."""
    # Node ids and features in int32 (the caller sends fewer than 2^30 rows
    # here): with ~2 n nodes, 12 bytes less per node than int64 is an eighth
    # of X at 20 features, per growth in flight.
    capacity = node_capacity(work.index.shape[1])
    nodes = (
        np.empty(capacity, dtype=np.int32),
        np.empty(capacity, dtype=np.int32),
        np.empty(capacity, dtype=np.int32),
        np.empty(capacity),
        np.empty(capacity, dtype=np.bool_),
        np.empty((capacity, 3)),
        np.empty((capacity, 0), dtype=np.int64),
    )
    return grow_squared_error_into(data, work, settings, surrogates, nodes)


@njit(cache=True, nogil=True)
def grow_squared_error_into(data, work, settings, surrogates, nodes):
    """:func:`grow_squared_error` into the caller's node arrays ``nodes``
    (children_left, children_right, feature as int32, threshold, missing
    side, moments (capacity, 3), bits (capacity, 0) int64, each with room
    for :func:`node_capacity` nodes); returns their filled prefixes."""
    columns = data.columns
    target = data.target
    weight = data.weight
    unit_weight = data.unit_weight
    index = work.index
    node_rows = work.node_rows
    goes_left = work.goes_left
    buffer = work.index_buffer
    scan = work.scan
    n_features, n_rows = index.shape
    limits = (settings.max_depth, settings.min_samples_split, settings.min_samples_leaf)
    min_leaf = settings.min_samples_leaf
    min_decrease = settings.min_impurity_decrease
    # Every leaf holds a row: at most 2 n - 1 nodes, each filled when created.
    _, _, feature, threshold, missing_left, moments, _ = nodes
    # Pending nodes, a stack: (start, end, depth, parent, is_left) and their
    # moments and features not constant, in the slot they occupy.
    depth_cap = 16
    p_int = np.empty((depth_cap, 5), dtype=np.int64)
    p_moments = np.empty((depth_cap, 3))
    p_features = np.empty((depth_cap, n_features), dtype=np.int64)
    p_n_features = np.empty(depth_cap, dtype=np.int64)
    features = np.empty(n_features, dtype=np.int64)
    child_moments = np.empty((2, 3))
    child_features = np.empty((2, n_features), dtype=np.int64)
    n_child = np.zeros(2, dtype=np.int64)
    with_surrogates = surrogates.n_found.shape[0] > 0
    # Features scored on their present rows (rpart), with surrogate splits.
    present_only = settings.present_only
    no_bits = np.zeros(0, dtype=np.int64)  # numeric splits: no levels

    # The root: moments from the sums of y about its first-pass mean (node_statistics).
    w_root = 0.0
    s_root = 0.0
    for i in range(n_rows):
        row = node_rows[i]
        w_root += weight[row]
        s_root += weight[row] * target[row]
    row_moments(target, weight, node_rows, (0, n_rows), goes_left, False, s_root / w_root, p_moments)
    root_weight = p_moments[0, 0]
    for f in range(n_features):
        p_features[0, f] = f
    p_n_features[0] = n_features
    p_int[0, 0] = 0
    p_int[0, 1] = n_rows
    p_int[0, 2] = 0
    p_int[0, 3] = -1
    p_int[0, 4] = 0
    n_pending = 1
    n_nodes = 0
    while n_pending > 0:
        n_pending -= 1
        slot = n_pending
        start = p_int[slot, 0]
        end = p_int[slot, 1]
        depth = p_int[slot, 2]
        parent = p_int[slot, 3]
        is_left = p_int[slot, 4]
        node = n_nodes
        n_nodes += 1
        _new_node(nodes, node, parent, is_left)
        stats = moments[node]
        stats[:] = p_moments[slot]
        m = end - start
        if _is_leaf(stats, m, depth, limits):
            continue
        n_active = p_n_features[slot]
        features[:n_active] = p_features[slot, :n_active]
        # The split search (find_best_split): deviations from the node's mean.
        mean = stats[1]
        tol = 1e-12 * stats[2]
        s_total = 0.0
        for i in range(start, end):
            row = node_rows[i]
            s_total += weight[row] * (target[row] - mean)
        totals = (stats[0], mean, s_total)
        best = (-np.inf, NO_FEATURE, 0.0, False)
        n_kept = 0
        for position in range(n_active):
            f = features[position]
            column = columns[f]
            order = index[f]
            # Missing values sit at the end of the segment.
            present_end = end
            while present_end > start and math.isnan(column[order[present_end - 1]]):
                present_end -= 1
            if present_end == start or (present_end == end and column[order[start]] == column[order[end - 1]]):
                continue  # constant or all missing here: dropped for the descendants too
            features[n_kept] = f
            n_kept += 1
            if present_only and present_end < end:
                best = scan_present_rows(
                    column,
                    order,
                    target,
                    weight,
                    unit_weight,
                    (start, present_end, end),
                    totals,
                    min_leaf,
                    scan,
                    best,
                    f,
                    tol,
                )
            elif present_end == end:
                best = scan_two_pass(
                    column, order, target, weight, unit_weight, (start, end), totals, min_leaf, scan, best, f, tol
                )
            else:
                best = scan_with_missing(
                    column,
                    order,
                    target,
                    weight,
                    unit_weight,
                    (start, present_end, end),
                    totals,
                    min_leaf,
                    best,
                    f,
                    tol,
                )
        proxy, f, t, learned_left = best
        if f == NO_FEATURE:
            continue
        # The weighted decrease, W_t / W_root scaled as scikit-learn's (a zero gain is made).
        if min_decrease > 0.0 and proxy / root_weight + _EPSILON < min_decrease:
            continue
        # Routing (route_rows): where no value of the feature is missing,
        # missing values (at prediction) follow the larger child.
        column = columns[f]
        order = index[f]
        n_left = 0
        seen_missing = False
        if present_only:
            n_left, seen_missing, learned_left = _route_present_scored(
                column, order, target, weight, (start, end), t, totals, tol, goes_left
            )
        else:
            for i in range(start, end):
                row = order[i]
                v = column[row]
                is_missing = math.isnan(v)
                seen_missing = seen_missing or is_missing
                go = v <= t or (is_missing and learned_left)
                goes_left[row] = go
                n_left += go
        row_moments(target, weight, order, (start, end), goes_left, True, mean, child_moments)
        if not seen_missing:
            learned_left = n_left > m - n_left
        if with_surrogates:
            n_left, learned_left = split_with_surrogates(
                data,
                work,
                settings,
                (start, end),
                (f, learned_left, n_left),
                no_bits,
                surrogates,
                node,
                child_moments,
                stats,
                features[:n_kept],
                True,
            )
        feature[node] = f
        threshold[node] = t
        missing_left[node] = learned_left
        middle = start + n_left
        n_child[0] = 0
        n_child[1] = 0
        if not (
            _is_leaf(child_moments[0], n_left, depth + 1, limits)
            and _is_leaf(child_moments[1], m - n_left, depth + 1, limits)
        ):
            # Stable partition of the rows and of every kept feature's order (partition).
            _stable_partition(node_rows, start, end, goes_left, buffer)
            for position in range(n_kept):
                g = features[position]
                order = index[g]
                _stable_partition(order, start, end, goes_left, buffer)
                column = columns[g]
                # Missing values sort last: a segment is entirely missing when its first value is.
                first, last = column[order[start]], column[order[middle - 1]]
                if not (first == last or math.isnan(first)):
                    child_features[0, n_child[0]] = g
                    n_child[0] += 1
                first, last = column[order[middle]], column[order[end - 1]]
                if not (first == last or math.isnan(first)):
                    child_features[1, n_child[1]] = g
                    n_child[1] += 1
        if n_pending + 2 > p_int.shape[0]:
            depth_cap = 2 * p_int.shape[0]
            p_int = _grown_rows(p_int, depth_cap)
            p_moments = _grown_rows(p_moments, depth_cap)
            p_features = _grown_rows(p_features, depth_cap)
            p_n_features = _grown_vector(p_n_features, depth_cap)
        _push_children((p_features, p_n_features, p_moments), (child_features, n_child, child_moments), n_pending)
        # Right first, so that the left child is popped (numbered) first.
        for child, child_slot in ((1, n_pending), (0, n_pending + 1)):
            child_start = start if child == 0 else middle
            child_end = middle if child == 0 else end
            p_int[child_slot, 0] = child_start
            p_int[child_slot, 1] = child_end
            p_int[child_slot, 2] = depth + 1
            p_int[child_slot, 3] = node
            p_int[child_slot, 4] = 1 - child
        n_pending += 2
    return _prefix(nodes, n_nodes)
