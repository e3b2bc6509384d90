"""Best threshold of one node on a feature with few distinct values, from a
table of class weights per value (numba kernels).

A feature with at most a few distinct values (binary, small integer codes) is
searched the way a categorical one is: one pass over the node's rows fills a
table of class weights and row counts per distinct value (its *level*), and
the thresholds between consecutive levels present at the node are scored
from the table's running sums. Its presorted order is then never read, and
never partitioned at a split: only the node's row ids move. Per node the
cost falls from sorting-order bookkeeping over the rows of every feature to
one counting pass plus O(levels x classes).

The candidates and their order are those of the presorted scan
(:func:`~._splitter.find_best_split`): every threshold between consecutive
distinct present values (their midpoint), each with the missing values
right, then left, then "present left, missing right" (threshold +inf); the
proxies are computed from the same class weights. With integer sample
weights every class weight is an exact integer, so the proxies, and hence
the trees, are bit for bit those of the presorted scan (Gini and
misclassification; entropy sums its terms in another order, which can only
matter between candidates equal to rounding).

Every feature's level of each row (its rank among the feature's distinct
values, missing values last) is computed once per grower from the
presorted order (:func:`level_codes`).
"""

import numpy as np

from .._compiled import njit
from ._criterion import MISCLASSIFICATION, better, candidate_proxy, midpoint, split_proxy, term
from ._no_refcount import copy_into, njit_no_refcount

#: ``GrowthData.level_slot`` of a feature searched from its presorted order.
PRESORTED = -1
#: ``GrowthData.level_slot`` of a categorical feature with more levels than a
#: code byte holds, searched from a table of its own (from ``columns``).
CATEGORICAL_TABLE = -2
#: Most levels of a feature whose codes are kept in ``GrowthData.level_codes``
#: (uint8, the code 255 left for a missing value at 254 levels).
MAX_CODED_LEVELS = 254


@njit(cache=True, nogil=True, inline="always")
def level_slot(data, feature):
    """How ``feature`` is searched: :data:`PRESORTED`, :data:`CATEGORICAL_TABLE`,
    or its slot in the node's tables (``data.level_slot`` may be empty:
    every feature presorted)."""
    if data.level_slot.shape[0] == 0:
        return PRESORTED
    return data.level_slot[feature]


@njit(cache=True, nogil=True)
def level_codes(columns, order, n_categories, max_levels):
    """Levels of the numeric features with at most ``max_levels`` distinct
    values (at most :data:`MAX_CODED_LEVELS`) and of the categorical ones
    with at most :data:`MAX_CODED_LEVELS` levels.

    Parameters
    ----------
    columns : ndarray of float64, shape (d, n)
    order : ndarray of int32, shape (d, n)
        Each feature's rows sorted by value, missing values (NaN) last.
    n_categories : ndarray of int64, shape (d,)
        Levels of each categorical feature, 0 for a numeric one (may be empty).
    max_levels : int

    Returns
    -------
    slot : ndarray of int64, shape (d,)
        :data:`PRESORTED`, :data:`CATEGORICAL_TABLE`, or the feature's slot.
    codes : ndarray of uint8, shape (n, n_slots)
        Each row's level per slot (by row: one pass over a node's rows
        reads its levels of every slot from one cache line): the rank of its
        value among the feature's distinct values, or a categorical level
        code; a missing value gets the number of levels.
    values : ndarray of float64, shape (n_slots, max_levels)
        The distinct values of a numeric slot, ascending.
    n_levels : ndarray of int64, shape (n_slots,)
    """
    d, n = order.shape
    slot = np.full(d, PRESORTED, dtype=np.int64)
    n_slots = 0
    for f in range(d):
        if n_categories.shape[0] > 0 and n_categories[f] > 0:
            if n_categories[f] <= MAX_CODED_LEVELS:
                slot[f] = n_slots
                n_slots += 1
            else:
                slot[f] = CATEGORICAL_TABLE
            continue
        column = columns[f]
        distinct = 0
        previous = np.nan
        for i in range(n):
            v = column[order[f, i]]
            if np.isnan(v):
                break
            if distinct == 0 or v != previous:
                distinct += 1
                if distinct > max_levels:
                    break
            previous = v
        if distinct <= max_levels:
            slot[f] = n_slots
            n_slots += 1
    codes = np.empty((n, n_slots), dtype=np.uint8)
    values = np.zeros((n_slots, max(max_levels, 1)))
    n_levels = np.zeros(n_slots, dtype=np.int64)
    for f in range(d):
        s = slot[f]
        if s < 0:
            continue
        column = columns[f]
        if n_categories.shape[0] > 0 and n_categories[f] > 0:
            n_cat = n_categories[f]
            n_levels[s] = n_cat
            for row in range(n):
                v = column[row]
                codes[row, s] = n_cat if np.isnan(v) else np.int64(v)
            continue
        level = -1
        for j in range(n):
            row = order[f, j]
            v = column[row]
            if np.isnan(v):
                break
            if level < 0 or v != values[s, level]:
                level += 1
                values[s, level] = v
            codes[row, s] = level
        n_levels[s] = level + 1
        i = n - 1
        while i >= 0 and np.isnan(column[order[f, i]]):  # missing values sort last
            codes[order[f, i], s] = level + 1
            i -= 1
    return slot, codes, values, n_levels


@njit_no_refcount
def fill_tables(data, rows, segment, table, counts):
    """The node's tables from its rows ``rows[start:end]``: ``counts[cell]``
    rows and ``table[cell * K + k]`` weight of class k per cell, the cells
    of slot s being ``level_offset[s] + level`` (its missing rows last).

    When every row weighs 1 a cell's row count is the sum of its class
    weights (exact integers): the rows add to the class weights only, half
    the memory updates per row, and the counts are summed per cell after."""
    start, end = segment
    n_classes = table.shape[0] // max(counts.shape[0], 1)
    offset = data.level_offset
    n_slots = offset.shape[0] - 1
    codes = data.level_codes
    y = data.y
    weight = data.weight
    table[:] = 0.0
    if data.unit_weight:
        for i in range(start, end):
            row = rows[i]
            base = y[row]
            r = codes[row]
            for s in range(n_slots):
                table[(offset[s] + r[s]) * n_classes + base] += 1.0
        for cell in range(counts.shape[0]):
            n_rows = 0.0
            for k in range(n_classes):
                n_rows += table[cell * n_classes + k]
            counts[cell] = np.int64(n_rows)
        return
    counts[:] = 0
    for i in range(start, end):
        row = rows[i]
        base = y[row]
        w = weight[row]
        r = codes[row]
        for s in range(n_slots):
            cell = offset[s] + r[s]
            table[cell * n_classes + base] += w
            counts[cell] += 1


@njit_no_refcount
def subtract_tables(parent, parent_counts, child, child_counts, out, out_counts):
    """``out`` = the tables of a node's other child: the parent's less ``child``'s."""
    for i in range(parent.shape[0]):
        out[i] = parent[i] - child[i]
    for i in range(parent_counts.shape[0]):
        out_counts[i] = parent_counts[i] - child_counts[i]


@njit_no_refcount
def _sides(left, missing, total, criterion, with_missing):
    """Sums of :func:`~._criterion.term` of the left and right sides, with
    the missing values right (``a``) and, ``with_missing``, left (``b``)."""
    sum_la = 0.0
    sum_ra = 0.0
    sum_lb = 0.0
    sum_rb = 0.0
    for k in range(total.shape[0]):
        lk = left[k]
        sum_la += term(lk, criterion)
        sum_ra += term(total[k] - lk, criterion)
        if with_missing:
            mk = missing[k]
            sum_lb += term(lk + mk, criterion)
            sum_rb += term(total[k] - mk - lk, criterion)
    return sum_la, sum_ra, sum_lb, sum_rb


@njit(cache=True, nogil=True, inline="always")
def offer(best, proxy, feature, below, above, missing_left, tol):
    """``best`` (proxy, feature, threshold, missing_left), or the candidate
    splitting between the consecutive values ``below < above`` if it is
    better under the tie rule (:func:`~._criterion.better`)."""
    if better(proxy, feature, best[0], best[1], tol):
        return proxy, feature, midpoint(below, above), missing_left
    return best


@njit(cache=True, nogil=True, inline="always")
def offer_side(best, missing_left, sizes, scan, candidate):
    """``best`` or the threshold ``candidate = (feature, value below, value
    above, tol)`` with the missing rows sent left (``missing_left``) or
    right, if better and ``sizes = (rows left, rows, min_samples_leaf)``
    leave enough rows on each side; ``scan = (counts, sums, weights,
    criterion)`` as :func:`~._criterion.candidate_proxy` takes them."""
    n_left, n_rows, min_leaf = sizes
    if n_left < min_leaf or n_rows - n_left < min_leaf:
        return best
    counts, sums, weights, criterion = scan
    proxy = candidate_proxy(missing_left, counts, sums, weights, criterion)
    feature, below, above, tol = candidate
    return offer(best, proxy, feature, below, above, missing_left, tol)


@njit(cache=True, nogil=True, inline="always")
def scan_levels(data, work, settings, feature, segment, best, tol):
    """Best threshold of the few-level ``feature`` at the node ``segment =
    (start, end)``, from the node's tables (``work.table``, see
    :func:`fill_tables`), offered against
    ``best`` (proxy, feature, threshold, missing_left) with the candidates
    and tie rule of the presorted scan.

    Returns ``(best, searched)``: ``searched`` is False when the feature is
    constant or entirely missing at the node (then it is dropped there).
    """
    start, end = segment
    slot = data.level_slot[feature]
    n_levels = data.n_levels[slot]
    values = data.level_values[slot]
    n_classes = work.total.shape[0]
    first = data.level_offset[slot]
    table = work.table[first * n_classes : (first + n_levels + 1) * n_classes].reshape((n_levels + 1, n_classes))
    rows = work.table_rows[first : first + n_levels + 1]
    n_missing = rows[n_levels]
    n_rows = end - start
    n_present_rows = n_rows - n_missing
    if n_present_rows == 0:
        return best, False
    lowest = 0
    while rows[lowest] == 0:
        lowest += 1
    if rows[lowest] == n_present_rows and n_missing == 0:
        return best, False  # one value
    criterion = settings.criterion
    min_leaf = settings.min_samples_leaf
    total = work.total
    left = work.left
    missing = work.missing
    copy_into(missing, table[n_levels])
    left[:] = 0.0
    weight_total = 0.0
    weight_missing = 0.0
    for k in range(n_classes):
        weight_total += total[k]
        weight_missing += missing[k]
    incremental = criterion != MISCLASSIFICATION
    weight_left = 0.0
    sum_la = sum_ra = sum_lb = sum_rb = 0.0  # read only by the incremental criteria
    n_left_present = 0
    previous = -1
    for code in range(lowest, n_levels):
        if n_left_present == n_present_rows:
            break  # every present level is left: no further threshold
        if rows[code] == 0:
            continue
        if previous >= 0:
            # Candidate between the levels ``previous`` and ``code``: the levels up to ``previous`` left.
            if incremental:
                sum_la, sum_ra, sum_lb, sum_rb = _sides(left, missing, total, criterion, n_missing > 0)
            # The two sides of the missing rows, written out: in a loop over them LLVM hoisted both
            # sides' entropy terms (logarithms) ahead of the loop, where Gini scans computed them too.
            scan = (
                (left, missing, total),
                (sum_la, sum_ra, sum_lb, sum_rb),
                (weight_left, weight_missing, weight_total),
                criterion,
            )
            candidate = (feature, values[previous], values[code], tol)
            best = offer_side(best, False, (n_left_present, n_rows, min_leaf), scan, candidate)
            if n_missing > 0:
                best = offer_side(best, True, (n_left_present + n_missing, n_rows, min_leaf), scan, candidate)
        for k in range(n_classes):
            w = table[code, k]
            left[k] += w
            weight_left += w
        n_left_present += rows[code]
        previous = code
    if n_missing > 0 and n_left_present >= min_leaf and n_missing >= min_leaf:
        proxy = split_proxy(left, missing, False, total, criterion)
        if better(proxy, feature, best[0], best[1], tol):
            best = (proxy, feature, np.inf, False)
    return best, True
