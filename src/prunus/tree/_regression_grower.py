"""Depth-first least-squares growth for the common case, in one kernel.

A regression tree grown to single-value leaves has about 2 n nodes, so on a
few thousand rows the cost of a node that does not depend on its rows (calls
between kernels that pass the growth's records, the branches every node takes
for classification, categorical features, level tables and feature draws) is
most of the time of a growth. :func:`grow_squared_error` grows the tree
:func:`~prunus.tree._grower.grow_depth_first` grows when none of those is in
play: squared error, every feature numeric and searched at every node with
every threshold, no bound on the number of leaves (missing values and
surrogate splits are handled). The operations on the numbers are those of the
general kernels, in the same order (the scans of
``_splitter._scan_squared_error`` and ``_scan_squared_error_two_pass``, the
moments of ``_splitter.side_moments``, the routing of ``route_rows`` and
``_surrogate.split_with_surrogates``), so the tree is the same, bit for bit.
"""

import math

import numpy as np

from .._compiled import njit
from ._criterion import better, squared_error_proxy
from ._splitter import NO_FEATURE, _finished, _midpoint, _stable_partition
from ._surrogate import split_with_surrogates

TREE_LEAF = -1
TREE_UNDEFINED = -2
_EPSILON = np.finfo(np.float64).eps


@njit(cache=True, nogil=True, inline="always")
def _moments(target, weight, rows, start, end, goes_left, by_side, shift, out):
    """``_splitter.side_moments``: (weight, mean, within sum of squares) of
    the rows ``rows[start:end]`` into ``out[0]``, or with ``by_side`` of those
    flagged in ``goes_left`` into ``out[0]`` and of the others into ``out[1]``."""
    w0 = w1 = s0 = s1 = 0.0
    low0 = low1 = np.inf
    high0 = high1 = -np.inf
    for i in range(start, end):
        row = rows[i]
        v = target[row]
        w = weight[row]
        if not by_side or goes_left[row]:
            w0 += w
            s0 += w * (v - shift)
            low0 = min(low0, v)
            high0 = max(high0, v)
        else:
            w1 += w
            s1 += w * (v - shift)
            low1 = min(low1, v)
            high1 = max(high1, v)
    mean0 = shift + s0 / w0 if w0 > 0.0 else 0.0
    mean1 = shift + s1 / w1 if w1 > 0.0 else 0.0
    s0 = s1 = 0.0
    q0 = q1 = 0.0
    for i in range(start, end):
        row = rows[i]
        w = weight[row]
        if not by_side or goes_left[row]:
            d = target[row] - mean0
            s0 += w * d
            q0 += w * d * d
        else:
            d = target[row] - mean1
            s1 += w * d
            q1 += w * d * d
    out[0, 0], out[0, 1], out[0, 2] = _finished(w0, mean0, low0, high0, q0, s0)
    if by_side:
        out[1, 0], out[1, 1], out[1, 2] = _finished(w1, mean1, low1, high1, q1, s1)


@njit(cache=True, nogil=True, inline="always")
def _is_leaf(stats, n_rows, depth, limits):
    """``_grower._is_leaf`` for the squared error: ``limits = (max_depth,
    min_samples_split, min_samples_leaf)``."""
    max_depth, min_split, min_leaf = limits
    return stats[2] <= 0.0 or (max_depth >= 0 and depth >= max_depth) or n_rows < min_split or n_rows < 2 * min_leaf


@njit(cache=True, nogil=True, inline="always")
def _scan(column, index, target, weight, unit_weight, segment, totals, min_leaf, scan, best, feature, tol):
    """``_splitter._scan_squared_error_two_pass`` on plain arrays:
    ``segment = (start, end)``, ``totals = (weight, mean, sum of deviations)``
    of the node, ``best = (proxy, feature, threshold)``."""
    start, end = segment
    w_total, mean, s_total = totals
    m = end - start
    values = scan[0]
    w_sums = scan[1]
    s_sums = scan[2]
    proxies = scan[3]
    w_left = 0.0
    s_left = 0.0
    for j in range(m):
        row = index[start + j]
        w = 1.0 if unit_weight else weight[row]
        w_left += w
        s_left += w * (target[row] - mean)
        values[j] = column[row]
        w_sums[j] = w_left
        s_sums[j] = s_left
    first = min_leaf - 1
    last = m - min_leaf
    for j in range(first, last):
        wl = w_sums[j]
        sl = s_sums[j]
        wr = w_total - wl
        sr = s_total - sl
        p = squared_error_proxy(wl, sl, wr, sr)
        ok = (values[j] != values[j + 1]) & (wl > 0.0) & (wr > 0.0)
        proxies[j] = p if ok else -np.inf
    best_proxy, best_feature, best_threshold, best_missing = best
    for j in range(first, last):
        p = proxies[j]
        if p > -np.inf and better(p, feature, best_proxy, best_feature, tol):
            best_proxy = p
            best_feature = feature
            best_threshold = _midpoint(values[j], values[j + 1])
            best_missing = False
    return best_proxy, best_feature, best_threshold, best_missing


@njit(cache=True, nogil=True, inline="always")
def _proxy(totals, w_left, s_left):
    """``_splitter._regression_proxy``: -inf when rounding leaves a side without weight."""
    w_total, _, s_total = totals
    w_right = w_total - w_left
    if w_left <= 0.0 or w_right <= 0.0:
        return -np.inf
    return squared_error_proxy(w_left, s_left, w_right, s_total - s_left)


@njit(cache=True, nogil=True)
def _scan_missing(column, index, target, weight, unit_weight, segment, totals, min_leaf, best, feature, tol):
    """``_splitter._scan_squared_error`` on plain arrays, with the missing
    values at ``[present_end, end)`` of ``segment = (start, present_end,
    end)``: every threshold with them right, then left, then present left
    and missing right (threshold +inf)."""
    start, present_end, end = segment
    mean = totals[1]
    w_missing = 0.0
    s_missing = 0.0
    for i in range(present_end, end):
        row = index[i]
        w = weight[row]
        w_missing += w
        s_missing += w * (target[row] - mean)
    n_rows = end - start
    n_missing = end - present_end
    n_sides = 2 if n_missing > 0 else 1
    best_proxy, best_feature, best_threshold, best_missing = best
    w_left = 0.0
    s_left = 0.0
    v = column[index[start]]
    for i in range(start, present_end - 1):
        row = index[i]
        w = 1.0 if unit_weight else weight[row]
        w_left += w
        s_left += w * (target[row] - mean)
        v_next = column[index[i + 1]]
        if v != v_next:
            n_left_present = i + 1 - start
            for side in range(n_sides):
                n_left = n_left_present + n_missing * side
                if n_left < min_leaf or n_rows - n_left < min_leaf:
                    continue
                proxy = _proxy(totals, w_left + w_missing * side, s_left + s_missing * side)
                if better(proxy, feature, best_proxy, best_feature, tol):
                    best_proxy = proxy
                    best_feature = feature
                    best_threshold = _midpoint(v, v_next)
                    best_missing = side == 1
        v = v_next
    if n_missing > 0 and present_end - start >= min_leaf and n_missing >= min_leaf:
        row = index[present_end - 1]
        w = weight[row]
        proxy = _proxy(totals, w_left + w, s_left + w * (target[row] - mean))
        if better(proxy, feature, best_proxy, best_feature, tol):
            best_proxy = proxy
            best_feature = feature
            best_threshold = np.inf
            best_missing = False
    return best_proxy, best_feature, best_threshold, best_missing


@njit(cache=True, nogil=True)
def grow_squared_error(data, work, settings, surrogates):
    """Depth-first least-squares growth of ``grow_depth_first`` (same
    arguments; ``surrogates`` empty or with room for every node) when every
    feature is numeric and searched (see the module's docstring). Returns the
    same arrays: (children_left, children_right, feature, threshold,
    missing_go_to_left, moments, bits) with the moments (weight, mean, within
    sum of squares) of every node and empty bits."""
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
    capacity = max(2 * n_rows - 1, 1)
    left = np.empty(capacity, dtype=np.int64)
    right = np.empty(capacity, dtype=np.int64)
    feature = np.empty(capacity, dtype=np.int64)
    threshold = np.empty(capacity)
    missing_left = np.empty(capacity, dtype=np.bool_)
    moments = np.empty((capacity, 3))
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
    no_bits = np.zeros(0, dtype=np.int64)  # numeric splits: no levels

    # The root: moments from the sums of y about its first-pass mean (node_statistics).
    w_root = 0.0
    s_root = 0.0
    for i in range(n_rows):
        row = node_rows[i]
        w_root += weight[row]
        s_root += weight[row] * target[row]
    _moments(target, weight, node_rows, 0, n_rows, goes_left, False, s_root / w_root, p_moments)
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
        left[node] = TREE_LEAF
        right[node] = TREE_LEAF
        feature[node] = TREE_UNDEFINED
        threshold[node] = float(TREE_UNDEFINED)
        missing_left[node] = False
        if parent >= 0:
            if is_left:
                left[parent] = node
            else:
                right[parent] = node
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
            if present_end == end:
                best = _scan(
                    column, order, target, weight, unit_weight, (start, end), totals, min_leaf, scan, best, f, tol
                )
            else:
                best = _scan_missing(
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
        for i in range(start, end):
            row = order[i]
            v = column[row]
            is_missing = math.isnan(v)
            seen_missing = seen_missing or is_missing
            go = v <= t or (is_missing and learned_left)
            goes_left[row] = go
            n_left += go
        _moments(target, weight, order, start, end, goes_left, True, mean, child_moments)
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
            p_int = _grown(p_int, depth_cap)
            p_moments = _grown(p_moments, depth_cap)
            p_features = _grown(p_features, depth_cap)
            grown_n = np.empty(depth_cap, dtype=np.int64)
            grown_n[: p_n_features.shape[0]] = p_n_features
            p_n_features = grown_n
        # Right first, so that the left child is popped (numbered) first.
        for child, child_slot in ((1, n_pending), (0, n_pending + 1)):
            k = n_child[child]
            p_features[child_slot, :k] = child_features[child, :k]
            p_n_features[child_slot] = k
            p_moments[child_slot] = child_moments[child]
            child_start = start if child == 0 else middle
            child_end = middle if child == 0 else end
            p_int[child_slot, 0] = child_start
            p_int[child_slot, 1] = child_end
            p_int[child_slot, 2] = depth + 1
            p_int[child_slot, 3] = node
            p_int[child_slot, 4] = 1 - child
        n_pending += 2
    bits = np.empty((n_nodes, 0), dtype=np.int64)
    stats = moments[:n_nodes]
    if n_nodes < capacity:
        stats = stats.copy()  # without keeping the whole reservation alive
    return (
        left[:n_nodes],
        right[:n_nodes],
        feature[:n_nodes],
        threshold[:n_nodes],
        missing_left[:n_nodes],
        stats,
        bits,
    )


@njit(cache=True, nogil=True)
def _grown(a, capacity):
    out = np.empty((capacity, a.shape[1]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out
