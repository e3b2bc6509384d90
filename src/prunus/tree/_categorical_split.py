"""Best subset split of one node on a categorical feature (numba kernels).

A categorical feature's values are level codes ``0 .. L - 1`` (float64; NaN
missing). A split sends a subset of the levels present at the node left and
the others right; missing values go to the side that scores better (both
are tried), and "every present level left, missing right" is a candidate of
its own, as for numeric features.

One pass over the node's rows (O(rows)) fills a table per level (class
weights; for the squared error the weight and the weighted sum of the
deviations of y from the node's mean) and a row count per level; the search
then works on the ``m`` levels present at the node only:

* two classes, and the squared error: the levels are ordered by their share
  of class 1 (by their mean) and only the ``m - 1`` splits into a prefix and
  a suffix of that order are scored. One of them is optimal for any concave
  impurity with two classes (Breiman, Friedman, Olshen & Stone,
  *Classification and Regression Trees*, 1984, theorem 4.5) and for least
  squares (Fisher, *On grouping for maximum homogeneity*, 1958):
  O(m log m).
* more classes, up to :data:`MAX_EXHAUSTIVE_LEVELS` present levels: every
  one of the ``2^(m-1) - 1`` partitions (as rpart does); with integer
  weights, blocks of partitions that an upper bound of the criterion shows
  cannot win are skipped (branch and bound, same result).
* more classes and more levels: a heuristic. For each class k in turn, the
  levels are ordered by their share of class k and the prefix splits of that
  order are scored (``K (m - 1)`` candidates, which contain the exact answer
  whenever one class against the rest is the best split).

The ordering theorems concern unconstrained partitions: with
``min_samples_leaf > 1`` the best admissible partition need not be a prefix,
so nodes with at most :data:`MAX_EXHAUSTIVE_LEVELS` present levels then
enumerate every partition (exact); above it the best admissible prefix is
taken (not guaranteed optimal).

Candidates of one feature are scored in a fixed order and the first of equal
ones is kept: an ordered scan takes the levels sorted by (share or mean,
level code) and tries shorter prefixes first; the exhaustive search takes
the subsets containing the lowest present level, in increasing binary order
of the other present levels' membership (the i-th lowest present level is
bit i - 1); each subset is tried with the missing values right, then left.
Across features the lowest feature wins a tie (:func:`~._criterion.better`).
The subset recorded is the left side of the winning candidate.
"""

import math

import numpy as np

from .._compiled import njit
from ._criterion import SQUARED_ERROR, better, node_term, split_proxy, squared_error_proxy
from ._no_refcount import copy_into, njit_counted, njit_no_refcount

#: Most levels present at a node for which the partitions of a K > 2 class
#: node are enumerated exhaustively (2^(m-1) - 1 of them); above it, the
#: class-share ordering heuristic.
MAX_EXHAUSTIVE_LEVELS = 12


@njit(cache=True, nogil=True, inline="always")
def is_categorical(data, feature):
    """Whether ``feature`` holds level codes (``data.n_categories`` may be empty: all numeric)."""
    return data.n_categories.shape[0] > 0 and data.n_categories[feature] > 0


@njit_no_refcount
def set_absent_levels(bits, present, missing_left):
    """Levels absent from a node (not flagged in ``present``: False or 0) go
    where its missing values go: their bits are set iff ``missing_left``."""
    for code in range(present.shape[0]):
        if not present[code]:
            mask = np.int64(1) << (code & 63)
            if missing_left:
                bits[code >> 6] |= mask
            else:
                bits[code >> 6] &= ~mask


@njit(cache=True, nogil=True)
def _level_tables(data, work, settings, feature, rows, segment):
    """Per-level statistics and row counts of the node's rows
    ``rows[start:end]`` (``segment = (start, end)``), the statistics of its
    missing rows into ``work.missing``, and the number of missing rows."""
    n_levels = data.n_categories[feature]
    stats = np.zeros((n_levels, work.total.shape[0]))
    counts = np.zeros(n_levels, dtype=np.int64)
    return stats, counts, _fill_level_tables(data, work, settings, feature, rows, segment, (stats, counts))


@njit(cache=True, nogil=True, inline="always")
def _fill_level_tables(data, work, settings, feature, rows, segment, tables):
    """:func:`_level_tables` added into ``tables = (stats, counts)``
    (zeros); returns the number of missing rows."""
    stats, counts = tables
    start, end = segment
    regression = settings.criterion == SQUARED_ERROR
    column = data.columns[feature]
    mean = work.total[1]
    missing = work.missing
    missing[:] = 0.0
    n_missing = 0
    for i in range(start, end):
        row = rows[i]
        w = data.weight[row]
        v = column[row]
        if math.isnan(v):
            target = missing
            n_missing += 1
        else:
            code = np.int64(v)
            counts[code] += 1
            target = stats[code]
        if regression:
            target[0] += w
            target[1] += w * (data.target[row] - mean)
        else:
            target[data.y[row]] += w
    return n_missing


@njit(cache=True, nogil=True, inline="always")
def _proxy(work, settings, left, add_missing):
    """Proxy of the split whose left side holds the statistics ``left`` (and
    the missing rows when ``add_missing``); for the squared error ``left`` is
    (weight, sum of deviations) and ``work.total`` (weight, mean, sum of
    deviations) of the node."""
    return _side_proxy((left, work.missing, work.total), settings.criterion, add_missing)


@njit(cache=True, nogil=True, inline="always")
def _side_proxy(sides, criterion, add_missing):
    """:func:`_proxy` on plain arrays, ``sides = (left, missing, total)``."""
    left, missing, total = sides
    if criterion != SQUARED_ERROR:
        return split_proxy(left, missing, add_missing, total, criterion)
    w_left = left[0] + missing[0] if add_missing else left[0]
    s_left = left[1] + missing[1] if add_missing else left[1]
    w_right = total[0] - w_left
    if w_left <= 0.0 or w_right <= 0.0:
        return -np.inf
    return squared_error_proxy(w_left, s_left, w_right, total[2] - s_left)


@njit(cache=True, nogil=True, inline="always")
def _offer_sides(sides, rules, feature, candidate, best, tol):
    """Offer the subset whose left side holds the statistics ``sides[0]``
    with the missing rows right, then left, under the tie rule (the offer of
    every subset search); ``sides = (left, missing, total)``, ``rules =
    (criterion, min_samples_leaf)``, ``candidate = (rows left, every present
    level left, (rows, missing rows))``: every present level left is a
    split only with the missing rows right. Returns ``(best, whether it
    changed)``."""
    criterion, min_leaf = rules
    left_rows, all_present, sizes = candidate
    n_rows, n_missing = sizes
    improved = False
    for side in range(2 if n_missing > 0 else 1):
        if all_present and (side == 1 or n_missing == 0):
            continue  # every row left: not a split
        rows_left = left_rows + n_missing * side
        if rows_left < min_leaf or n_rows - rows_left < min_leaf:
            continue
        proxy = _side_proxy(sides, criterion, side == 1)
        if better(proxy, feature, best[0], best[1], tol):
            best = (proxy, feature, np.nan, side == 1)
            improved = True
    return best, improved


@njit(cache=True, nogil=True, inline="always")
def _record(bits, levels, n_left):
    """``bits`` (``work.best_bits``) = the subset ``levels[:n_left]``."""
    bits[:] = 0
    for j in range(n_left):
        code = levels[j]
        bits[code >> 6] |= np.int64(1) << (code & 63)


@njit(cache=True, nogil=True, inline="always")
def _record_mask(work, present, mask):
    """``work.best_bits`` = the lowest present level and those whose bit
    is set in ``mask`` (bit ``i`` for ``present[i + 1]``)."""
    bits = work.best_bits
    bits[:] = 0
    for j in range(present.shape[0]):
        if j == 0 or (mask >> (j - 1)) & 1:
            code = present[j]
            bits[code >> 6] |= np.int64(1) << (code & 63)


@njit_no_refcount
def _offer_subset(work, settings, feature, candidate, best, tol):
    """Score the subset ``levels[:n_left]`` (``candidate = (levels, n_left,
    left statistics, rows left, node segment sizes)``) with the missing rows
    right, then left; keep it in ``best`` / ``work.best_bits`` if better."""
    levels, n_left, left, left_rows, n_rows, n_missing, all_present = candidate
    best, improved = _offer_sides(
        (left, work.missing, work.total),
        (settings.criterion, settings.min_samples_leaf),
        feature,
        (left_rows, all_present, (n_rows, n_missing)),
        best,
        tol,
    )
    if improved:
        _record(work.best_bits, levels, n_left)
    return best


@njit_no_refcount
def _scan_order(work, settings, feature, stats, rows, order, sizes, best, tol):
    """Prefix splits of the levels in ``order``: the first j levels left, for
    j = 1 .. m - 1, and all m left (missing right) when values are missing."""
    m = order.shape[0]
    # The left side's statistics in the workspace's scratch (free during a
    # level search): no allocation per call.
    left = work.left[: stats.shape[1]]
    left[:] = 0.0
    sides = (left, work.missing, work.total)
    rules = (settings.criterion, settings.min_samples_leaf)
    left_rows = 0
    best_prefix = 0
    for j in range(m):
        code = order[j]
        left += stats[code]
        left_rows += rows[code]
        best, improved = _offer_sides(sides, rules, feature, (left_rows, j == m - 1, sizes), best, tol)
        if improved:
            best_prefix = j + 1
    # The subset is written once, for the last (hence best) prefix kept.
    if best_prefix > 0:
        _record(work.best_bits, order, best_prefix)
    return best


@njit(cache=True, nogil=True)
def _sorted_by(present, key):
    """``present`` (ascending codes) sorted by ``key`` (one value per present
    level), ties by code: a stable sort of codes already ascending."""
    return present[np.argsort(key, kind="mergesort")]


@njit_counted
def _scan_sorted(work, settings, feature, stats, rows, present, key, sizes, best, tol):
    """:func:`_scan_order` of the present levels merge-sorted by ``key``
    (:func:`_sorted_by`, which allocates the order)."""
    return _scan_order(work, settings, feature, stats, rows, _sorted_by(present, key), sizes, best, tol)


#: Most present levels ordered by :func:`_sort_by_key` (quadratic) rather
#: than a merge sort.
_INSERTION_SORT_LEVELS = 32


@njit(cache=True, nogil=True, inline="always")
def _sort_by_key(present, key):
    """:func:`_sorted_by` in place, ``key`` with it: insertion sort, stable
    (a level moves only past larger keys), so the order is the same; with a
    node's few present levels it costs less than a merge sort's buffers."""
    for i in range(1, present.shape[0]):
        code = present[i]
        value = key[i]
        j = i - 1
        while j >= 0 and key[j] > value:
            present[j + 1] = present[j]
            key[j + 1] = key[j]
            j -= 1
        present[j + 1] = code
        key[j + 1] = value
    return present


@njit(cache=True, nogil=True, inline="always")
def _share(stats, code, column):
    """Share of column ``column`` in the level's statistics (its mean for the squared error)."""
    total = stats[code].sum()
    return stats[code, column] / total if total > 0.0 else 0.0


@njit_counted
def _scan_exhaustive(work, settings, feature, stats, rows, present, sizes, best, tol):
    """Every partition of the ``m`` present levels: the subsets holding the
    lowest one, in increasing binary order of the membership of the others.

    The subsets are visited in Gray-code order, each one level away from the
    previous, so its left statistics cost one addition or subtraction of a
    level's (O(K) rather than O(m K)); their proxies are stored, then
    offered in the binary order, so that the first of equal candidates is
    the one the binary order meets first. With integer weights the class
    weights, hence the proxies, are exactly those of summing each subset's
    levels afresh. The squared error's sums of real deviations are summed
    afresh per subset (O(m)), so that they round as they always have.
    """
    n_rows, n_missing = sizes
    m = present.shape[0]
    n_masks = 1 << (m - 1)
    min_leaf = settings.min_samples_leaf
    proxies = np.empty((n_masks, 2))
    valid = np.zeros((n_masks, 2), dtype=np.bool_)
    left = stats[present[0]].copy()
    left_rows = rows[present[0]]
    n_stats = stats.shape[1]
    fresh = settings.criterion == SQUARED_ERROR
    for i in range(n_masks):
        mask = i ^ (i >> 1)
        if fresh:
            # Sums of real targets: added afresh in the binary order's way, so that they round as before.
            left[:] = stats[present[0]]
            left_rows = rows[present[0]]
            for b in range(m - 1):
                if (mask >> b) & 1:
                    left += stats[present[b + 1]]
                    left_rows += rows[present[b + 1]]
        elif i > 0:
            # The bit flipped from the previous Gray code is the lowest set bit of i.
            b = 0
            while not (i >> b) & 1:
                b += 1
            code = present[b + 1]
            sign = 1.0 if (mask >> b) & 1 else -1.0
            for k in range(n_stats):
                left[k] += sign * stats[code, k]
            left_rows += rows[code] if sign > 0.0 else -rows[code]
        all_present = mask == n_masks - 1
        if all_present and n_missing == 0:
            continue
        for side in range(2 if n_missing > 0 else 1):
            if all_present and side == 1:
                continue  # every row left: not a split
            n_left = left_rows + n_missing * side
            if n_left < min_leaf or n_rows - n_left < min_leaf:
                continue
            proxies[mask, side] = _proxy(work, settings, left, side == 1)
            valid[mask, side] = True
    best_mask = -1
    for mask in range(n_masks):
        for side in range(2):
            if valid[mask, side] and better(proxies[mask, side], feature, best[0], best[1], tol):
                best = (proxies[mask, side], feature, np.nan, side == 1)
                best_mask = mask
    if best_mask >= 0:
        subset = np.empty(m, dtype=np.int64)
        subset[0] = present[0]
        n_left = 1
        for b in range(m - 1):
            if (best_mask >> b) & 1:
                subset[n_left] = present[b + 1]
                n_left += 1
        _record(work.best_bits, subset, n_left)
    return best


#: Fewest unassigned levels for which :func:`_scan_bounded` bounds a block of
#: partitions before enumerating it: a bound costs about one proxy and most
#: blocks are skipped, so even blocks of two partitions are worth bounding
#: (measured on factor tables of 3 classes: 1 faster than 2, 3 or 4).
_MIN_BLOCK_BITS = 1


@njit_no_refcount
def _scan_bounded(work, settings, feature, stats, rows, levels, sizes, best, tol):
    """:func:`_scan_exhaustive` for classification with integer weights,
    skipping blocks of partitions that cannot be offered (branch and bound).

    The partitions are visited in the binary order itself (the ``i``-th
    lowest present level above the first is bit ``i - 1`` of ``mask``), so
    ``best`` evolves exactly as in the exhaustive scan. The partitions
    sharing the bits of ``mask`` from bit ``r`` up form a block: levels with
    a set bit are left, with a clear one right, the ``r`` lowest are free.
    By the subadditivity of the proxy (see :func:`_cannot_win`), no
    candidate of the block scores above ``term(left) + term(right) +
    sum of the free levels' terms + term(missing rows)``; when that bound,
    with a margin far above rounding, could not be offered over the current
    ``best``, no candidate of the block could, and ``best`` does not change
    across it: the block is skipped. Class weights are integers, so the
    left side's weights (updated by the levels whose bit changes) are
    exactly those of summing the subset's levels afresh, and every proxy is
    the exhaustive scan's. ``levels = (present, scratch)``: the present
    levels and at least :func:`_scratch_size` floats of scratch.
    """
    present, scratch = levels
    m = present.shape[0]
    n_bits = m - 1
    n_masks = 1 << n_bits
    n_classes = stats.shape[1]
    criterion = settings.criterion
    min_leaf = settings.min_samples_leaf
    # Free levels of a block of r free bits are present[1 .. r]: their summed
    # weights and terms by r, and the weights of every present level. In
    # the caller's scratch: the prefix sums by r, every present level's
    # weights, the right side; the left side in the workspace's scratch.
    low_stats = scratch[: m * n_classes].reshape((m, n_classes))
    all_stats = scratch[m * n_classes : (m + 1) * n_classes]
    right = scratch[(m + 1) * n_classes : (m + 2) * n_classes]
    low_term = scratch[(m + 2) * n_classes :]
    low_stats[0] = 0.0
    low_term[0] = 0.0
    for b in range(n_bits):
        level = stats[present[b + 1]]
        low_term[b + 1] = low_term[b] + node_term(level, criterion)
        for k in range(n_classes):
            low_stats[b + 1, k] = low_stats[b, k] + level[k]
    for k in range(n_classes):
        all_stats[k] = low_stats[n_bits, k] + stats[present[0], k]
    missing_term = node_term(work.missing, criterion)
    scale = work.total.sum()
    left = work.left[:n_classes]
    copy_into(left, stats[present[0]])
    left_rows = rows[present[0]]
    sides = (left, work.missing, work.total)
    rules = (criterion, min_leaf)
    best_mask = -1
    mask = 0
    while mask < n_masks:
        # Blocks starting at mask: r free bits, down from the trailing zeros of mask.
        r = n_bits
        if mask > 0:
            r = 0
            while not (mask >> r) & 1:
                r += 1
        step = 1
        while r >= _MIN_BLOCK_BITS:
            for k in range(n_classes):
                right[k] = all_stats[k] - left[k] - low_stats[r, k]
            bound = node_term(left, criterion) + node_term(right, criterion) + low_term[r] + missing_term
            bound += 1e-9 * (abs(bound) + abs(best[0]) + scale)
            if not better(bound, feature, best[0], best[1], tol):
                step = 1 << r
                break
            r -= 1
        if step == 1:
            best, improved = _offer_sides(sides, rules, feature, (left_rows, mask == n_masks - 1, sizes), best, tol)
            if improved:
                best_mask = mask
        following = mask + step
        if following >= n_masks:
            break
        # Move the left side to the next mask: levels whose bit changes.
        changed = mask ^ following
        b = 0
        while changed >> b:
            if (changed >> b) & 1:
                code = present[b + 1]
                if (following >> b) & 1:
                    for k in range(n_classes):
                        left[k] += stats[code, k]
                    left_rows += rows[code]
                else:
                    for k in range(n_classes):
                        left[k] -= stats[code, k]
                    left_rows -= rows[code]
            b += 1
        mask = following
    if best_mask >= 0:
        _record_mask(work, present, best_mask)
    return best


#: Most present levels for which :func:`_scan_few` enumerates the
#: partitions directly: below it the bounds of :func:`_scan_bounded` cost
#: more than the few partitions they would skip.
_FEW_LEVELS = 4


@njit(cache=True, nogil=True, inline="always")
def _scan_few(work, settings, feature, stats, rows, present, sizes, best, tol):
    """:func:`_scan_bounded` for a few present levels (at most
    :data:`_FEW_LEVELS`): every partition in the binary order, the left
    side summed afresh in the workspace's scratch, no bound and no
    allocation. Class weights are integers (as for :func:`_scan_bounded`),
    so the sums, hence the proxies, are those of the bounded scan, offered
    in the same order: the same candidate wins (the bounded scan skips only
    candidates that cannot be offered)."""
    n_missing = sizes[1]
    m = present.shape[0]
    n_bits = m - 1
    n_masks = 1 << n_bits
    n_classes = stats.shape[1]
    left = work.left[:n_classes]
    sides = (left, work.missing, work.total)
    rules = (settings.criterion, settings.min_samples_leaf)
    best_mask = -1
    for mask in range(n_masks):
        all_present = mask == n_masks - 1
        if all_present and n_missing == 0:
            continue
        first = present[0]
        left_rows = rows[first]
        for k in range(n_classes):
            left[k] = stats[first, k]
        for b in range(n_bits):
            if (mask >> b) & 1:
                code = present[b + 1]
                left_rows += rows[code]
                for k in range(n_classes):
                    left[k] += stats[code, k]
        best, improved = _offer_sides(sides, rules, feature, (left_rows, all_present, sizes), best, tol)
        if improved:
            best_mask = mask
    if best_mask >= 0:
        _record_mask(work, present, best_mask)
    return best


@njit(cache=True, nogil=True, inline="always")
def _cannot_win(work, settings, feature, stats, present, best, tol):
    """Whether no partition of the present levels can be offered over
    ``best``, so that the exhaustive search may be skipped without changing
    its outcome.

    The proxy of every classification criterion is a sum over the two
    children of a function of their class weights that is convex and
    positively homogeneous (Gini ``sum_k c_k^2 / W``, entropy ``sum_k c_k
    log c_k - W log W``, misclassification ``max_k c_k``), hence
    subadditive: merging groups of rows never raises it. Every candidate
    merges the atoms "one present level" and "the missing rows" into two
    children, so its proxy is at most the sum of the atoms' terms. When that
    bound, with a margin far above rounding, is below the least proxy
    ``better`` could accept, the search would offer nothing.
    """
    if settings.criterion == SQUARED_ERROR or best[1] < 0:
        return False
    bound = node_term(work.missing, settings.criterion)
    for j in range(present.shape[0]):
        bound += node_term(stats[present[j]], settings.criterion)
    margin = 1e-9 * (abs(bound) + abs(best[0]) + work.total.sum())
    return bound + margin < best[0] - tol


@njit(cache=True, nogil=True)
def _draw_subset(work, settings, feature, stats, rows, present, sizes, best, tol):
    """A subset of the present levels drawn at random (each level left with
    probability 1/2, drawn again until a side would be empty; with one
    level, present against missing), scored with the missing rows right,
    then left: the categorical counterpart of a random threshold."""
    n_rows, n_missing = sizes
    m = present.shape[0]
    subset = np.empty(m, dtype=np.int64)
    n_left = m
    if m > 1:
        n_left = 0
        while n_left == 0 or n_left == m:
            n_left = 0
            for j in range(m):
                if np.random.random() < 0.5:
                    subset[n_left] = present[j]
                    n_left += 1
    else:
        subset[0] = present[0]
    left = np.zeros(stats.shape[1])
    left_rows = 0
    for j in range(n_left):
        left += stats[subset[j]]
        left_rows += rows[subset[j]]
    candidate = (subset, n_left, left, left_rows, n_rows, n_missing, n_left == m)
    return _offer_subset(work, settings, feature, candidate, best, tol)


@njit(cache=True, nogil=True, inline="always")
def _scratch_size(n_present, n_classes):
    """Floats of scratch a search of ``n_present`` levels of ``n_classes``
    statistics needs (:func:`_scan_bounded`'s; an ordered scan needs
    ``n_present``, fewer)."""
    return (n_present + 2) * n_classes + n_present


@njit(cache=True, nogil=True, inline="always")
def _present_levels(counts, out):
    """Write the codes of the levels with rows (``counts`` > 0), ascending, to
    ``out``; returns how many."""
    n_present = 0
    for code in range(counts.shape[0]):
        if counts[code] > 0:
            out[n_present] = code
            n_present += 1
    return n_present


@njit_counted
def _search_allocated(work, settings, feature, stats, counts, sizes, best, tol, exact):
    """:func:`_search_levels` with its present levels and scratch allocated."""
    present = np.empty(counts.shape[0], dtype=np.int64)
    present = present[: _present_levels(counts, present)]
    scratch = np.empty(_scratch_size(present.shape[0], stats.shape[1]))
    return _search_levels(work, settings, feature, stats, counts, (present, scratch), sizes, best, tol, exact)


@njit(cache=True, nogil=True, inline="always")
def level_scratch_size(n_words, n_stats):
    """Floats of scratch for :func:`scan_categorical`:
    the tables, present levels and search scratch of a feature of up to
    ``64 * n_words`` levels (the most its split's bitset of ``n_words``
    words holds) and ``n_stats`` statistics per level."""
    n_levels = 64 * n_words
    return n_levels * (n_stats + 2) + _scratch_size(n_levels, n_stats) if n_words > 0 else 0


@njit_no_refcount
def scan_categorical(data, work, settings, feature, rows, segment, best, tol):
    """Best subset split of the categorical ``feature`` at the node whose
    rows are ``rows[start:end]`` (``segment = (start, end)``), offered
    against ``best`` (proxy, feature, threshold, missing_left); a better
    candidate's threshold is NaN and its left levels are written to
    ``work.best_bits``.

    Without reference counting (it runs for every such feature at every
    node): the level tables, present levels and search scratch live in
    ``work.search_scratch`` past its first ``len(total) + len(best_bits)``
    (see :data:`~._splitter.Workspace`); a search that allocates (see
    :func:`_allocation_free`), or a workspace without that scratch, goes
    through :func:`_scan_categorical_allocated`, the same search.

    Returns ``(best, searched)``: ``searched`` is False when the feature is
    constant or entirely missing at the node.
    """
    n_levels = data.n_categories[feature]
    n_stats = work.total.shape[0]
    scratch = work.search_scratch[n_stats + work.best_bits.shape[0] :]
    if scratch.shape[0] < n_levels * (n_stats + 2) + _scratch_size(n_levels, n_stats):
        return _scan_categorical_allocated(data, work, settings, feature, rows, segment, best, tol)
    start, end = segment
    stats = scratch[: n_levels * n_stats].reshape((n_levels, n_stats))
    stats[:] = 0.0
    codes = scratch[n_levels * n_stats : n_levels * (n_stats + 2)].view(np.int64)
    counts = codes[:n_levels]
    counts[:] = 0
    n_missing = _fill_level_tables(data, work, settings, feature, rows, segment, (stats, counts))
    sizes = (end - start, n_missing)
    exact = data.integer_weight
    present = codes[n_levels : n_levels + _present_levels(counts, codes[n_levels:])]
    if not _allocation_free(settings, present.shape[0], n_stats, exact):
        return _search_allocated(work, settings, feature, stats, counts, sizes, best, tol, exact)
    search_scratch = scratch[n_levels * (n_stats + 2) :]
    return _search_exact(work, settings, feature, stats, counts, (present, search_scratch), sizes, best, tol)


@njit_counted
def _scan_categorical_allocated(data, work, settings, feature, rows, segment, best, tol):
    """:func:`scan_categorical` with its tables allocated."""
    start, end = segment
    stats, counts, n_missing = _level_tables(data, work, settings, feature, rows, segment)
    sizes = (end - start, n_missing)
    return _search_allocated(work, settings, feature, stats, counts, sizes, best, tol, data.integer_weight)


@njit_no_refcount
def scan_categorical_table(data, work, settings, feature, segment, best, tol, present_only=False):
    """:func:`scan_categorical` from the node's tables (``work.table``, see
    :func:`~._level_split.fill_tables`), for a feature with a slot in them;
    with ``present_only``, of the node's rows where the feature is present
    (``work.total`` must then hold their statistics).

    Without reference counting or allocation (it runs for every categorical
    feature at every node): the present levels (int32) and the search's
    scratch (float64) live in the partition buffer ``work.index_buffer``,
    free during a split search, which holds a row id per row of the growth:
    at least one word per present level. A search whose scratch does not
    fit there (a few rows, many classes) allocates it.
    """
    start, end = segment
    slot = data.level_slot[feature]
    n_levels = data.n_levels[slot]
    n_classes = work.total.shape[0]
    first = data.level_offset[slot]
    table = work.table[first * n_classes : (first + n_levels + 1) * n_classes].reshape((n_levels + 1, n_classes))
    stats = table[:n_levels]
    table_rows = work.table_rows[first : first + n_levels + 1]
    counts = table_rows[:n_levels]
    if present_only:
        work.missing[:] = 0.0
        sizes = (end - start - table_rows[n_levels], 0)
    else:
        copy_into(work.missing, table[n_levels])
        sizes = (end - start, table_rows[n_levels])
    buffer = work.index_buffer
    n_present = _present_levels(counts, buffer)
    # The floats start at an even word: 8-byte aligned, as the buffer is.
    floats_from = n_present + (n_present & 1)
    n_floats = (buffer.shape[0] - floats_from) // 2
    exact = data.integer_weight
    if n_floats < _scratch_size(n_present, n_classes) or not _allocation_free(settings, n_present, n_classes, exact):
        return _search_allocated(work, settings, feature, stats, counts, sizes, best, tol, exact)
    present = buffer[:n_present]
    scratch = buffer[floats_from : floats_from + 2 * n_floats].view(np.float64)
    return _search_exact(work, settings, feature, stats, counts, (present, scratch), sizes, best, tol)


@njit(cache=True, nogil=True, inline="always")
def _enumerates(settings, n_present, n_classes):
    """Whether the partitions of ``n_present`` levels are enumerated (not
    ordered): more than two classes, or ``min_samples_leaf > 1`` (see the
    module's docstring), up to :data:`MAX_EXHAUSTIVE_LEVELS` levels."""
    ordered = settings.criterion == SQUARED_ERROR or n_classes <= 2
    return n_present <= MAX_EXHAUSTIVE_LEVELS and (not ordered or settings.min_samples_leaf > 1)


@njit(cache=True, nogil=True, inline="always")
def _allocation_free(settings, n_present, n_classes, exact):
    """Whether :func:`_search_exact` searches ``n_present`` levels: a
    classification, not random, enumerated with integer weights (``exact``)
    or, with two classes, ordered by insertion."""
    if settings.random_thresholds or settings.criterion == SQUARED_ERROR:
        return False
    if _enumerates(settings, n_present, n_classes):
        return exact
    return n_classes <= 2 and n_present <= _INSERTION_SORT_LEVELS


@njit(cache=True, nogil=True, inline="always")
def _search_exact(work, settings, feature, stats, counts, levels, sizes, best, tol):
    """:func:`_search_levels` where :func:`_allocation_free` holds: it
    calls no kernel that allocates."""
    present, scratch = levels
    n_present = present.shape[0]
    if n_present == 0 or (n_present == 1 and sizes[1] == 0):
        return best, False
    if _cannot_win(work, settings, feature, stats, present, best, tol):
        return best, True
    if _enumerates(settings, n_present, stats.shape[1]):
        if n_present <= _FEW_LEVELS:
            return _scan_few(work, settings, feature, stats, counts, present, sizes, best, tol), True
        return _scan_bounded(work, settings, feature, stats, counts, levels, sizes, best, tol), True
    key = scratch[:n_present]
    for j in range(n_present):
        key[j] = _share(stats, present[j], stats.shape[1] - 1)
    _sort_by_key(present, key)
    return _scan_order(work, settings, feature, stats, counts, present, sizes, best, tol), True


@njit(cache=True, nogil=True, inline="always")
def _search_levels(work, settings, feature, stats, counts, levels, sizes, best, tol, exact):
    """The search of :func:`scan_categorical` from the node's per-level
    statistics and row counts, its missing rows' statistics in
    ``work.missing`` and ``sizes = (rows, missing rows)``; ``levels =
    (present, scratch)``: the codes of the levels with rows, ascending, and
    at least :func:`_scratch_size` floats of scratch; ``exact``: every
    weight is an integer (class weights add up exactly, in any order).
    The searches of :func:`_search_exact` allocate nothing; the others may."""
    present, scratch = levels
    n_present = present.shape[0]
    n_classes = stats.shape[1]
    if n_present == 0 or (n_present == 1 and sizes[1] == 0):
        return best, False
    if settings.random_thresholds:
        return _draw_subset(work, settings, feature, stats, counts, present, sizes, best, tol), True
    if _allocation_free(settings, n_present, n_classes, exact):
        return _search_exact(work, settings, feature, stats, counts, levels, sizes, best, tol)
    regression = settings.criterion == SQUARED_ERROR
    if not regression and _cannot_win(work, settings, feature, stats, present, best, tol):
        return best, True
    if _enumerates(settings, n_present, n_classes):
        return _scan_exhaustive(work, settings, feature, stats, counts, present, sizes, best, tol), True
    key = scratch[:n_present]
    if regression:
        for j in range(n_present):
            key[j] = stats[present[j], 1] / stats[present[j], 0]  # mean deviation of the level
        return _scan_sorted(work, settings, feature, stats, counts, present, key, sizes, best, tol), True
    if n_classes <= 2:  # more levels than an insertion sort takes
        for j in range(n_present):
            key[j] = _share(stats, present[j], n_classes - 1)
        return _scan_sorted(work, settings, feature, stats, counts, present, key, sizes, best, tol), True
    for k in range(n_classes):
        for j in range(n_present):
            key[j] = _share(stats, present[j], k)
        best = _scan_sorted(work, settings, feature, stats, counts, present, key, sizes, best, tol)
    return best, True
