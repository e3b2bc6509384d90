"""Best split of one node, and the stable partition of the presorted rows.

The rows of a node occupy the segment ``[start, end)`` of every row of the
workspace's ``index`` array (one row per feature), sorted by the feature's
value with missing values (NaN) last; values are read by row id from the
columns of X. A split is searched by one scan of each feature's segment and
applied by a stable partition of every segment, so the order is computed
once per fit and never sorted again.

With many features and few searched per node (``max_features``), moving
every feature's segment at each split costs more than sorting the searched
ones: below such a split only the node's rows (``node_rows``, ascending row
ids) are partitioned, and a feature's segment is refilled by a stable sort
when the node searches it (:func:`sort_segment`). Stable sorting of rows in
ascending order gives the segment the presorted order would have, so the
splits are the same.
"""

import math
from collections import namedtuple

import numpy as np

from .._compiled import njit
from ._categorical_split import (
    is_categorical,
    level_scratch_size,
    scan_categorical,
    scan_categorical_table,
    set_absent_levels,
)
from ._criterion import (
    GINI,
    MISCLASSIFICATION,
    SQUARED_ERROR,
    node_term,
    proxy_from_sums,
    split_proxy,
    squared_error_proxy,
    term,
    term_change,
)
from ._criterion import (
    better as _better,
)
from ._level_split import CATEGORICAL_TABLE, PRESORTED, level_slot, offer, offer_side, scan_levels
from ._no_refcount import copy_into, njit_counted, njit_no_refcount

# Global data of a growth (read only): X by columns, float64 (d, n), the
# transposed view of a C-ordered X (``columns[f, row]``, F-contiguous), class
# codes y (n,), sample weights (n,)
# (rows of weight 0 are absent), whether every present row weighs 1 (then
# the weights are not read), and the float64 target of a regression (n,).
# A classification has an empty ``target``, a regression an empty ``y``: both
# tasks share one compiled builder and branch on the criterion.
# ``n_categories[f]`` is the number of levels of a categorical feature f
# (its values are level codes 0 .. L - 1, NaN missing), 0 for a numeric one;
# empty when every feature is numeric.
# ``level_slot[f]`` says how feature f is searched (empty: all presorted):
# from its presorted order (-1), from a table of its level codes (-2, a
# categorical feature of many levels), or from the node's tables, where it
# has the slot ``level_slot[f]`` (see _level_split): its levels are
# ``level_codes[:, slot]`` (uint8 per row, missing ``n_levels[slot]``), the
# values of a numeric one ``level_values[slot]``, its cells in the tables
# ``level_offset[slot] ..`` (``level_offset`` has one more entry, the number
# of cells). A table-searched feature's segment of ``Workspace.index`` is
# neither read nor partitioned: the node's rows ``node_rows`` are.
# ``integer_weight``: every weight is an integer (and their sum exact), so
# a child's tables may be its parent's less its sibling's, exactly.
GrowthData = namedtuple(
    "GrowthData",
    "columns y weight unit_weight target n_categories level_slot level_codes level_values n_levels "
    "level_offset integer_weight",
    defaults=(
        np.empty(0),
        np.zeros(0, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.zeros((0, 0), dtype=np.uint8),
        np.zeros((0, 0)),
        np.zeros(0, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        False,
    ),
)

# Scratch arrays of one growth. ``index[f, :]`` holds the active rows sorted
# by feature f (values are read from ``columns``: a partition then moves 4
# bytes per row and feature rather than 12); the buffer holds right children
# during a partition; ``goes_left`` flags rows by row id; ``left`` /
# ``missing`` / ``total`` are class-weight vectors of the candidate being
# scored; ``node_rows[start:end]`` holds the node's rows in ascending order
# (kept by every partition). A regression's node statistics (its "class
# weights") are the three numbers (weight, mean, within sum of squares); in
# a split search ``total`` holds (weight, mean, sum of y - mean) instead.
# ``best_bits`` holds the subset of levels (a bitset of int64 words) sent
# left by the best split found so far when it is on a categorical feature.
# ``table`` / ``table_rows``: the node's class weights and row counts per
# cell of the table-searched features (_level_split.fill_tables).
# ``scan`` (4, B + 1), B >= 1, is a regression's scratch for the two-pass scan of a
# feature (:func:`scan_two_pass`); empty: one pass. In a classification it
# carries keys (empty: none): ``scan[f, i]`` holds, next to the row id
# ``index[f, i]`` of a presorted feature, the row's class and the rank of its
# value (:func:`carried_keys`, exact integers), so that the Gini / entropy
# scan reads one array forward through memory rather than ``y`` and
# ``columns`` at random rows; every partition and sort of ``index`` moves
# them along, through the last row ``scan[n_features]``. (The keys share the
# field rather than adding one: every field of the record is an argument of
# each kernel call that takes it.) ``search_scratch`` (float64, at least
# :func:`search_scratch_size` long) is scratch that searches would otherwise
# allocate, which would make them count references to every array of the
# records at each call: while a feature is scored on its present rows
# (:func:`_scan_present_rows`), its first ``len(total)`` floats hold those
# rows' class weights and the next ``len(best_bits)`` words the levels of the
# feature's best candidate; the rest holds the level tables and search
# scratch of a categorical feature searched from its rows
# (:func:`~._categorical_split.scan_categorical`; too short: allocated there).
Workspace = namedtuple(
    "Workspace",
    "index index_buffer goes_left left missing total node_rows best_bits table table_rows search_scratch scan",
    defaults=(np.zeros(0), np.zeros(0, dtype=np.int64), np.zeros(0), np.empty((0, 0))),
)


@njit(cache=True, nogil=True, inline="always")
def search_scratch_size(n_words, n_stats):
    """Floats of ``Workspace.search_scratch`` for ``n_stats`` statistics per
    node and level subsets of ``n_words`` words."""
    return n_stats + n_words + level_scratch_size(n_words, n_stats)


# Stopping rules and options, all numbers (max_depth / max_leaf_nodes are -1
# when unbounded, max_features is the number of features to draw per node,
# random_thresholds draws one threshold per searched feature instead of
# scanning them all, sort_cost is the cost of sorting a row per halving of a
# node relative to moving it in a partition: see _grower._keeps_presorted).
# ``present_only``: a feature with missing values at the node is scored on
# the rows where it is present, as rpart scores it (the rows missing it are
# then sent by surrogate splits); otherwise its missing rows are sent to the
# side that scores better (the learned side). Only with every feature
# presorted (a surrogate growth reads no tables).
Settings = namedtuple(
    "Settings",
    "criterion max_depth min_samples_split min_samples_leaf min_impurity_decrease "
    "max_features max_leaf_nodes n_classes seed random_thresholds sort_cost present_only",
    defaults=(False,),
)

#: Bits of a carried key (see :data:`Workspace`) holding the class; the
#: value's rank is above them.
CLASS_BITS = 8
CLASS_MASK = (1 << CLASS_BITS) - 1
#: Rows from which no keys are carried: below, every key is an integer
#: below 2^53, exact in a float64.
CARRY_BELOW_ROWS = 1 << (53 - CLASS_BITS)
#: Most keys carried (of 8 bytes, 128 MiB): on larger growths they would
#: triple the memory of the presorted orders (int32 row ids).
MAX_CARRIED_KEYS = 1 << 24


@njit(cache=True, nogil=True)
def carries_keys(n_rows, n_classes, n_features, unsorted):
    """Whether a classification growth of ``n_rows`` rows, ``n_classes``
    classes and ``n_features`` features carries keys (:func:`carried_keys`):
    some feature is searched from its order (not every one flagged in
    ``unsorted``), the class and the rank are exact in a float64, and there
    are at most :data:`MAX_CARRIED_KEYS` keys."""
    searched = unsorted.shape[0] == 0
    for f in range(unsorted.shape[0]):
        searched = searched or not unsorted[f]
    small = (n_features + 1) * n_rows <= MAX_CARRIED_KEYS
    return searched and small and 0 < n_rows < CARRY_BELOW_ROWS and n_classes <= CLASS_MASK + 1


@njit(cache=True, nogil=True, inline="always")
def _carries_keys(data, work):
    """Whether ``work.scan`` holds carried keys: a classification's (a
    regression's is its scan scratch)."""
    return work.scan.shape[0] > 0 and data.target.shape[0] == 0


@njit(cache=True, nogil=True)
def carried_keys(columns, y, index, unsorted):
    """The keys carried next to ``index`` (:data:`Workspace`): for each
    presorted feature f (not flagged in ``unsorted``) and position i, the
    class of the row ``index[f, i]`` in the low :data:`CLASS_BITS` bits and
    above them the rank of its value among the feature's values in that
    order (equal values, equal ranks; every missing value a rank of its own).
    Two consecutive rows have equal values exactly when their keys agree
    above the class bits. The keys are float64 integers (``Workspace.scan``),
    and the last row, ``keys[d]``, is the partition's buffer."""
    d, m = index.shape
    keys = np.zeros((d + 1, m))
    for f in range(d):
        # A table-searched feature's order (feature 0's is kept) is never scanned.
        if unsorted.shape[0] > 0 and unsorted[f]:
            continue
        _rank_keys(columns[f], y, index[f], 0, m, keys[f])
    return keys


@njit(cache=True, nogil=True, inline="always")
def _rank_keys(column, y, rows, start, end, keys):
    """``keys[start:end]`` of the rows ``rows[start:end]``, sorted by
    ``column`` (see :func:`carried_keys`)."""
    rank = 0
    v = 0.0
    for i in range(start, end):
        row = rows[i]
        v_next = column[row]
        # NaN differs from everything, itself included: a rank of its own.
        rank += i > start and v_next != v
        keys[i] = np.float64((rank << CLASS_BITS) | np.int64(y[row]))
        v = v_next


# A split: feature (-1 when none is valid), threshold, side of missing values,
# the criterion's proxy, and the number of rows going left.
NO_FEATURE = -1


@njit(cache=True, nogil=True, inline="always")
def segment_class_weights(data, index, start, end, out):
    """``out`` = class weights of the rows ``index[start:end]`` (inlined: also
    called by kernels without reference counting, which may not return an array)."""
    out[:] = 0.0
    for i in range(start, end):
        row = index[i]
        out[data.y[row]] += data.weight[row]
    return out


@njit(cache=True, nogil=True)
def node_class_weights(data, work, start, end, out):
    """Class weights of the rows in a segment (read from feature 0's order,
    valid at the root and wherever every feature is partitioned)."""
    return segment_class_weights(data, work.index[0], start, end, out)


@njit(cache=True, nogil=True)
def node_statistics(data, work, settings, start, end, out):
    """Statistics of the rows ``node_rows[start:end]``: class weights, or for
    the squared error (weight, mean, within sum of squares)."""
    if settings.criterion != SQUARED_ERROR:
        return node_class_weights(data, work, start, end, out)
    weight = 0.0
    total = 0.0
    for i in range(start, end):
        row = work.node_rows[i]
        weight += data.weight[row]
        total += data.weight[row] * data.target[row]
    stats = np.empty((1, 3))
    side_moments(data, work.node_rows, (start, end), work.goes_left, False, total / weight, stats)
    out[:] = stats[0]
    return out


@njit(cache=True, nogil=True, inline="always")
def row_moments(target, weight, rows, segment, goes_left, by_side, shift, out):
    """:func:`side_moments` on plain arrays (inlined where it is called, so
    that the least-squares growth kernel pays no call per node)."""
    start, end = segment
    # Two sides at most, in scalars: a node allocates nothing here (regression
    # trees grown to single-value leaves have ~2n nodes).
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


@njit(cache=True, nogil=True)
def side_moments(data, rows, segment, goes_left, by_side, shift, out):
    """(weight, mean, within sum of squares) of the rows ``rows[start:end]``,
    into ``out[0]``, or with ``by_side`` of those flagged in ``goes_left``
    into ``out[0]`` and of the others into ``out[1]``.

    Two passes: the mean from the sums of ``y - shift`` (``shift`` is close to
    the mean, e.g. the parent's), then the squares of the deviations from it,
    corrected by their rounded sum (the corrected two-pass algorithm of Chan,
    Golub & LeVeque). A side whose values are all equal gets that value as
    its mean and exactly 0 as its sum of squares: it is pure.
    """
    row_moments(data.target, data.weight, rows, segment, goes_left, by_side, shift, out)
    return out


@njit(cache=True, nogil=True, inline="always")
def _finished(weight, mean, low, high, squares, sums):
    """(weight, mean, within sum of squares) of one group, as
    :func:`~prunus.tree._kernels.finish_moments` computes them."""
    if weight <= 0.0:
        return weight, mean, 0.0
    if low == high:
        return weight, low, 0.0
    return weight, mean, max(squares - sums * sums / weight, 0.0)


@njit_no_refcount
def _shuffle(features):
    """Fisher-Yates shuffle in place (numba's generator, seeded once per growth)."""
    for i in range(features.shape[0] - 1, 0, -1):
        j = np.random.randint(0, i + 1)
        tmp = features[i]
        features[i] = features[j]
        features[j] = tmp


# The best candidate so far: (proxy, feature, threshold, missing_go_to_left).
_NONE = (-np.inf, NO_FEATURE, 0.0, False)


@njit_no_refcount
def _scan_present(data, work, settings, feature, start, end, best, tol):
    """Gini or entropy on a feature with no missing value at the node:
    running sums of ``term`` per side, O(1) per row.

    With Gini and integer weights (every weight, hence every side's, at
    least 1; a node's total below 2^26) a candidate is first tested without division
    (:func:`_gini_below`): one that certainly scores below what ``better``
    could accept is not scored. Only candidates that cannot be offered are
    passed over, so the split is the same, bit for bit; the two divisions
    of a proxy are most of a row's cost, and past the first candidates of
    a node few rows come near the best.
    """
    criterion = settings.criterion
    min_leaf = settings.min_samples_leaf
    index = work.index[feature]
    column = data.columns[feature]
    left = work.left
    total = work.total
    y = data.y
    weight = data.weight
    unit_weight = data.unit_weight
    left[:] = 0.0
    weight_total = 0.0
    sum_right = 0.0
    for k in range(total.shape[0]):
        weight_total += total[k]
        sum_right += term(total[k], criterion)
    sum_left = 0.0
    weight_left = 0.0
    # Squares of integer class weights below 2^26 are exact: every running sum is the exact, non-negative one.
    filtered = criterion == GINI and (unit_weight or data.integer_weight) and weight_total < 2.0**26
    first = start + min_leaf - 1  # the first candidate leaves min_leaf rows left
    last = end - min_leaf  # and the last one min_leaf rows right
    v = column[index[start]]
    for i in range(start, last):
        row = index[i]
        c = y[row]
        w = 1.0 if unit_weight else weight[row]
        lc = left[c]
        sum_left += term_change(lc, w, criterion)
        sum_right += term_change(total[c] - lc, -w, criterion)
        left[c] = lc + w
        weight_left += w
        v_next = column[index[i + 1]]
        if i >= first and v != v_next:
            weight_right = weight_total - weight_left
            if not (filtered and _gini_below((sum_left, weight_left, sum_right, weight_right), best[0] - tol)):
                proxy = proxy_from_sums(sum_left, weight_left, sum_right, weight_right, criterion)
                best = offer(best, proxy, feature, v, v_next, False, tol)
        v = v_next
    return best


@njit_no_refcount
def _scan_carried(data, work, settings, feature, start, end, best, tol):
    """:func:`_scan_present` reading the class and the rank of the value of
    each row from the keys carried next to the feature's order
    (``work.scan``), forward through memory: the same sums in the same
    order, the same candidates (a candidate is where the rank changes, which
    is where the value does), so the same split, bit for bit. Values are
    read only for the candidates scored, for their threshold."""
    criterion = settings.criterion
    min_leaf = settings.min_samples_leaf
    index = work.index[feature]
    keys = work.scan[feature]
    column = data.columns[feature]
    left = work.left
    total = work.total
    weight = data.weight
    unit_weight = data.unit_weight
    left[:] = 0.0
    weight_total = 0.0
    sum_right = 0.0
    for k in range(total.shape[0]):
        weight_total += total[k]
        sum_right += term(total[k], criterion)
    sum_left = 0.0
    weight_left = 0.0
    filtered = criterion == GINI and (unit_weight or data.integer_weight) and weight_total < 2.0**26
    first = start + min_leaf - 1
    last = end - min_leaf
    key = np.int64(keys[start])
    for i in range(start, last):
        c = key & CLASS_MASK
        w = 1.0 if unit_weight else weight[index[i]]
        lc = left[c]
        sum_left += term_change(lc, w, criterion)
        sum_right += term_change(total[c] - lc, -w, criterion)
        left[c] = lc + w
        weight_left += w
        key_next = np.int64(keys[i + 1])
        if i >= first and (key ^ key_next) > CLASS_MASK:
            weight_right = weight_total - weight_left
            if not (filtered and _gini_below((sum_left, weight_left, sum_right, weight_right), best[0] - tol)):
                proxy = proxy_from_sums(sum_left, weight_left, sum_right, weight_right, criterion)
                best = offer(best, proxy, feature, column[index[i]], column[index[i + 1]], False, tol)
        key = key_next
    return best


#: Relative margin of :func:`_gini_below`: far above the few roundings of its products.
_BELOW_MARGIN = 1.0 - 1e-9


@njit(cache=True, nogil=True, inline="always")
def _gini_below(sums, floor):
    """Whether the Gini proxy ``sum_left / weight_left + sum_right /
    weight_right`` of ``sums = (sum_left, weight_left, sum_right,
    weight_right)``, as :func:`~._criterion.proxy_from_sums` rounds it, is
    certainly below ``floor`` (the least proxy ``better`` accepts: the best's
    less the tolerance), tested without division: ``sum_left weight_right
    + sum_right weight_left < floor weight_left weight_right``, less a
    relative margin of 1e-9.

    Every number is non-negative and the weights are at least 1 (integer
    weights: no underflow), so each side is within a few units of rounding
    of its exact value, and so is the rounded proxy of the exact quotient:
    below the margin, the rounded proxy is below ``floor``. A ``floor`` of
    at most 0 (or -inf, no best yet) is never above a proxy: False.
    """
    sum_left, weight_left, sum_right, weight_right = sums
    return sum_left * weight_right + sum_right * weight_left < (floor * _BELOW_MARGIN) * (weight_left * weight_right)


@njit_no_refcount
def _scan_general(data, work, settings, feature, segment, best, tol):
    """Any classification criterion, with missing values at ``[present_end,
    end)``: each threshold with the missing rows right, then left, then the
    split of present (left) from missing (right) values, threshold +inf;
    ``segment = (start, present_end, end)``."""
    start, present_end, end = segment
    criterion = settings.criterion
    min_leaf = settings.min_samples_leaf
    index = work.index[feature]
    column = data.columns[feature]
    left = work.left
    missing = work.missing
    total = work.total
    n_rows = end - start
    n_missing = end - present_end
    segment_class_weights(data, index, present_end, end, missing)
    left[:] = 0.0
    # Running sums of term() per side, missing values right (a) or left (b);
    # the misclassification proxy, a max, is recomputed per candidate.
    incremental = criterion != MISCLASSIFICATION
    weight_total = 0.0
    weight_missing = 0.0
    sum_la = 0.0
    sum_ra = 0.0
    sum_lb = 0.0
    sum_rb = 0.0
    if incremental:
        for k in range(total.shape[0]):
            weight_total += total[k]
            weight_missing += missing[k]
            sum_ra += term(total[k], criterion)
            sum_lb += term(missing[k], criterion)
            sum_rb += term(total[k] - missing[k], criterion)
    weight_left = 0.0
    for i in range(start, present_end - 1):
        row = index[i]
        c = data.y[row]
        w = data.weight[row]
        lc = left[c]
        if incremental:
            sum_la += term_change(lc, w, criterion)
            sum_ra += term_change(total[c] - lc, -w, criterion)
            sum_lb += term_change(lc + missing[c], w, criterion)
            sum_rb += term_change(total[c] - missing[c] - lc, -w, criterion)
        left[c] = lc + w
        weight_left += w
        v = column[row]
        v_next = column[index[i + 1]]
        if v == v_next:
            continue
        n_left_present = i + 1 - start
        # The missing rows' two sides written out, not in a loop: see scan_levels.
        scan = (
            (left, missing, total),
            (sum_la, sum_ra, sum_lb, sum_rb),
            (weight_left, weight_missing, weight_total),
            criterion,
        )
        candidate = (feature, v, v_next, tol)
        best = offer_side(best, False, (n_left_present, n_rows, min_leaf), scan, candidate)
        if n_missing > 0:
            best = offer_side(best, True, (n_left_present + n_missing, n_rows, min_leaf), scan, candidate)
    if n_missing > 0 and present_end - start >= min_leaf and n_missing >= min_leaf:
        row = index[present_end - 1]
        left[data.y[row]] += data.weight[row]
        proxy = split_proxy(left, missing, False, total, criterion)
        if _better(proxy, feature, best[0], best[1], tol):
            best = (proxy, feature, np.inf, False)
    return best


@njit_no_refcount
def _segment_sums(data, index, start, end, mean):
    """Weight and weighted sum of ``y - mean`` of the rows ``index[start:end]``."""
    w_sum = 0.0
    s_sum = 0.0
    for i in range(start, end):
        row = index[i]
        w = data.weight[row]
        w_sum += w
        s_sum += w * (data.target[row] - mean)
    return w_sum, s_sum


@njit(cache=True, nogil=True, inline="always")
def regression_proxy(totals, w_left, s_left):
    """Proxy of the split whose left child has weight ``w_left`` and sum of
    deviations ``s_left`` in a node of ``totals = (weight, mean, sum of
    deviations)``; -inf when rounding leaves a side without weight."""
    w_total, _, s_total = totals
    w_right = w_total - w_left
    if w_left <= 0.0 or w_right <= 0.0:
        return -np.inf
    return squared_error_proxy(w_left, s_left, w_right, s_total - s_left)


@njit(cache=True, nogil=True, inline="always")
def _regression_proxy(work, w_left, s_left):
    """:func:`regression_proxy` of the node whose totals are ``work.total``."""
    return regression_proxy((work.total[0], work.total[1], work.total[2]), w_left, s_left)


@njit_no_refcount
def _scan_squared_error(data, work, settings, feature, segment, best, tol):
    """Squared error, with missing values at ``[present_end, end)``: running
    weighted sums of the deviations from the node's mean (``work.total[1]``),
    O(1) per row; candidates as in :func:`_scan_general`."""
    start, present_end, end = segment
    totals = (work.total[0], work.total[1], work.total[2])
    min_leaf = settings.min_samples_leaf
    index = work.index[feature]
    column = data.columns[feature]
    if present_end == end and work.scan.shape[1] > 1:
        return scan_two_pass(
            column,
            index,
            data.target,
            data.weight,
            data.unit_weight,
            (start, end),
            totals,
            min_leaf,
            work.scan,
            best,
            feature,
            tol,
        )
    return scan_with_missing(
        column, index, data.target, data.weight, data.unit_weight, segment, totals, min_leaf, best, feature, tol
    )


@njit(cache=True, nogil=True, inline="always")
def missing_sums(index, target, weight, mean, segment):
    """(weight, weighted sum of deviations from ``mean``) of the rows
    ``index[present_end:end]`` of ``segment = (start, present_end, end)``:
    the rows missing the feature, last in its sorted segment."""
    _, present_end, end = segment
    w_missing = 0.0
    s_missing = 0.0
    for i in range(present_end, end):
        row = index[i]
        w = weight[row]
        w_missing += w
        s_missing += w * (target[row] - mean)
    return w_missing, s_missing


@njit_no_refcount
def scan_with_missing(column, index, target, weight, unit_weight, segment, totals, min_leaf, best, feature, tol):
    """:func:`_scan_squared_error` on plain arrays: the rows ``index[start:
    end]`` of ``segment = (start, present_end, end)`` sorted by ``column``,
    missing values at ``[present_end, end)``; ``totals = (weight, mean, sum
    of deviations)`` of the node; every threshold with the missing rows
    right, then left, then present left and missing right (threshold +inf).
    Returns the better of ``best = (proxy, feature, threshold,
    missing_go_to_left)`` and the feature's best candidate."""
    start, present_end, end = segment
    mean = totals[1]
    w_missing, s_missing = missing_sums(index, target, weight, mean, segment)
    n_rows = end - start
    n_missing = end - present_end
    n_sides = 2 if n_missing > 0 else 1
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
                proxy = regression_proxy(totals, w_left + w_missing * side, s_left + s_missing * side)
                best = offer(best, proxy, feature, v, v_next, side == 1, tol)
        v = v_next
    if n_missing > 0 and present_end - start >= min_leaf and n_missing >= min_leaf:
        row = index[present_end - 1]
        w = weight[row]
        proxy = regression_proxy(totals, w_left + w, s_left + w * (target[row] - mean))
        if _better(proxy, feature, best[0], best[1], tol):
            best = (proxy, feature, np.inf, False)
    return best


@njit(cache=True, nogil=True, inline="always")
def scan_two_pass(column, index, target, weight, unit_weight, segment, totals, min_leaf, scan, best, feature, tol):
    """:func:`scan_with_missing` on a feature without missing values at the
    node, ``segment = (start, end)``, in three loops over the scratch ``scan``
    (4, B + 1) per block of B rows: the values and the running sums (the only
    reads by row id, free of branches so that the memory reads of many rows
    overlap), the proxy of every candidate (no loop-carried dependency: the
    divisions vectorise), then the candidates in order under the tie rule.
    The running sums go on from block to block and a block's scratch holds
    the next block's first value, so the sums, the proxies and the order of
    the offers are those of the one-pass scan: the split is the same, bit
    for bit, whatever B (a growth's scratch stays small and in cache)."""
    start, end = segment
    w_total, mean, s_total = totals
    m = end - start
    block = scan.shape[1] - 1
    values = scan[0]
    w_sums = scan[1]
    s_sums = scan[2]
    proxies = scan[3]
    w_left = 0.0
    s_left = 0.0
    # Candidate j splits after the j + 1 first rows: min_leaf rows on each side.
    first = min_leaf - 1
    last = m - min_leaf
    for lo in range(0, m, block):
        hi = min(lo + block, m)
        for j in range(lo, hi):
            row = index[start + j]
            w = 1.0 if unit_weight else weight[row]
            w_left += w
            s_left += w * (target[row] - mean)
            values[j - lo] = column[row]
            w_sums[j - lo] = w_left
            s_sums[j - lo] = s_left
        if hi < m:
            values[hi - lo] = column[index[start + hi]]
        a = max(first, lo)
        b = min(last, hi)
        for j in range(a, b):
            k = j - lo
            wl = w_sums[k]
            sl = s_sums[k]
            wr = w_total - wl
            sr = s_total - sl
            p = squared_error_proxy(wl, sl, wr, sr)
            ok = (values[k] != values[k + 1]) & (wl > 0.0) & (wr > 0.0)
            proxies[k] = p if ok else -np.inf
        for j in range(a, b):
            k = j - lo
            p = proxies[k]
            if p > -np.inf:
                best = offer(best, p, feature, values[k], values[k + 1], False, tol)
    return best


#: Rows per block of :func:`scan_two_pass` (its scratch: 4 x 8 bytes per
#: row, 512 KiB).
SCAN_BLOCK = 16384


@njit_no_refcount
def _draw_threshold(data, work, settings, feature, segment, best, tol):
    """One threshold drawn uniformly between the node's smallest and largest
    present value of the feature (the splitter of extremely randomized trees,
    Geurts, Ernst & Wehenkel 2006), scored with the missing rows right, then
    left; ``segment = (start, present_end, end)``."""
    start, present_end, end = segment
    index = work.index[feature]
    column = data.columns[feature]
    left = work.left
    missing = work.missing
    lo = column[index[start]]
    hi = column[index[present_end - 1]]
    r = np.random.random()
    threshold = lo * (1.0 - r) + hi * r  # no overflow of hi - lo at +-1e308
    if threshold >= hi or threshold < lo:  # rounding at the top, or lo == hi
        threshold = lo
    # First present row above the threshold (binary search in the sorted segment).
    a, b = start, present_end
    while a < b:
        mid = (a + b) // 2
        if column[index[mid]] <= threshold:
            a = mid + 1
        else:
            b = mid
    regression = settings.criterion == SQUARED_ERROR
    if regression:
        w_left, s_left = _segment_sums(data, index, start, a, work.total[1])
        w_missing, s_missing = _segment_sums(data, index, present_end, end, work.total[1])
    else:
        segment_class_weights(data, index, start, a, left)
        segment_class_weights(data, index, present_end, end, missing)
    n_rows = end - start
    n_missing = end - present_end
    for side in range(2 if n_missing > 0 else 1):
        n_left = a - start + n_missing * side
        if n_left < settings.min_samples_leaf or n_rows - n_left < settings.min_samples_leaf:
            continue
        if regression:
            proxy = _regression_proxy(work, w_left + w_missing * side, s_left + s_missing * side)
        else:
            proxy = split_proxy(left, missing, side == 1, work.total, settings.criterion)
        if _better(proxy, feature, best[0], best[1], tol):
            best = (proxy, feature, threshold, side == 1)
    return best


@njit_counted
def sort_segment(data, work, feature, start, end):
    """Refill the feature's segment ``[start, end)`` with the node's rows
    sorted by value, missing values last, ties in ascending row order."""
    rows = work.node_rows[start:end]
    column = data.columns[feature]
    values = np.empty(end - start)
    for i in range(end - start):
        values[i] = column[rows[i]]
    order = np.argsort(values, kind="mergesort")  # stable: rows ascend within ties
    index = work.index[feature]
    for i in range(end - start):
        index[start + i] = rows[order[i]]
    if _carries_keys(data, work):
        # Ranks among the node's values: only their changes are read.
        _rank_keys(column, data.y, index, start, end, work.scan[feature])


@njit_no_refcount
def find_best_split(data, work, settings, segment, node_counts, features):
    """Best split of the rows in ``[start, end)`` among the searched features.

    Every threshold between consecutive distinct present values is tried with
    the missing values sent right, then left; if the node has both present and
    missing values, also "present left, missing right" (threshold +inf). Ties
    go to the lowest feature, then the lowest threshold, then missing right.
    Only splits leaving ``min_samples_leaf`` rows on each side are valid.

    ``features`` lists the features not known to be constant at the node; the
    ones found constant here (or entirely missing) are removed from it in
    place, since they stay constant in every descendant (scikit-learn keeps
    the same list). With ``max_features``, the list is shuffled and its first
    features searched, and more while none of them could be split.

    ``segment = (start, end, presorted)``; without ``presorted`` each
    feature's segment is sorted here before it is read (:func:`sort_segment`).

    Returns
    -------
    (feature, threshold, missing_go_to_left, proxy, n_kept): feature is -1
    when no split is valid; ``features[:n_kept]`` are the features left.
    """
    start, end, presorted = segment
    n_active = features.shape[0]
    copy_into(work.total, node_counts)
    regression = settings.criterion == SQUARED_ERROR
    # Equal proxies computed in different orders differ by a few ulps (of
    # the node's weight, or of its sum of squares, which bounds the proxy).
    if regression:
        tol = 1e-12 * node_counts[2]
        # The rounded sum of the deviations from the node's mean, in place of
        # its sum of squares: the right side's sum is this minus the left's.
        work.total[2] = _segment_sums(data, work.node_rows, start, end, node_counts[1])[1]
    else:
        tol = 1e-12 * node_counts.sum()
    best = _NONE
    draw = settings.max_features < n_active
    if draw:
        _shuffle(features)
    n_searched = 0
    n_kept = 0
    for position in range(n_active):
        feature = features[position]
        if draw and n_searched >= settings.max_features and best[1] != NO_FEATURE:
            features[n_kept] = feature  # not searched: kept for the children
            n_kept += 1
            continue
        slot = level_slot(data, feature)
        if slot != PRESORTED:
            # From a table of the node's rows per level, which also tells a constant feature.
            if slot == CATEGORICAL_TABLE:
                best, searched = scan_categorical(
                    data, work, settings, feature, work.node_rows, (start, end), best, tol
                )
            elif settings.present_only and is_categorical(data, feature):
                best, searched = _scan_present_table(data, work, settings, feature, (start, end), best, tol)
            elif is_categorical(data, feature):
                best, searched = scan_categorical_table(data, work, settings, feature, (start, end), best, tol)
            else:
                best, searched = scan_levels(data, work, settings, feature, (start, end), best, tol)
            if searched:
                features[n_kept] = feature
                n_kept += 1
                n_searched += 1
            continue
        if not presorted:
            sort_segment(data, work, feature, start, end)
        index = work.index[feature]
        column = data.columns[feature]
        # Missing values sit at the end of the segment.
        present_end = end
        while present_end > start and math.isnan(column[index[present_end - 1]]):
            present_end -= 1
        if present_end == start or (present_end == end and column[index[start]] == column[index[end - 1]]):
            continue  # constant or all missing here: dropped, and not counted as searched
        features[n_kept] = feature
        n_kept += 1
        n_searched += 1
        if settings.present_only and present_end < end:
            best = _scan_present_rows(data, work, settings, feature, (start, present_end, end), best, tol)
        else:
            best = _scan_presorted(data, work, settings, feature, (start, present_end, end), best, tol)
    proxy, feature, threshold, missing_left = best
    if settings.present_only and feature != NO_FEATURE:
        missing_left = _learned_side(data, work, settings, (feature, threshold), (start, end), tol)
    return feature, threshold, missing_left, proxy, n_kept


@njit_no_refcount
def _learned_side(data, work, settings, split, segment, tol):
    """Whether the rows of ``segment = (start, end)`` missing the feature of
    ``split = (feature, threshold)`` (at a categorical split, the levels in
    ``work.best_bits`` go left) score better left than right, the split's
    present rows staying where it sends them: the side the learned search
    would give them, kept as the split's side of missing values when no
    surrogate sends a row (ties: right)."""
    start, end = segment
    feature, threshold = split
    # A table-searched feature keeps no order: the node's rows (its sums are then exact, see _scan_present_table).
    index = work.index[feature] if level_slot(data, feature) == PRESORTED else work.node_rows
    column = data.columns[feature]
    categorical = is_categorical(data, feature)
    regression = settings.criterion == SQUARED_ERROR
    bits = work.best_bits
    left = work.left
    missing = work.missing
    left[:] = 0.0
    missing[:] = 0.0
    mean = work.total[1] if regression else 0.0
    w_left = s_left = w_missing = s_missing = 0.0
    any_missing = False
    for i in range(start, end):
        row = index[i]
        v = column[row]
        w = data.weight[row]
        if math.isnan(v):
            any_missing = True
            if regression:
                w_missing += w
                s_missing += w * (data.target[row] - mean)
            else:
                missing[data.y[row]] += w
            continue
        if categorical:
            code = np.int64(v)
            go = (bits[code >> 6] >> (code & 63)) & 1 == 1
        else:
            go = v <= threshold
        if go:
            if regression:
                w_left += w
                s_left += w * (data.target[row] - mean)
            else:
                left[data.y[row]] += w
    if not any_missing:
        return False
    if regression:
        right_side = _regression_proxy(work, w_left, s_left)
        left_side = _regression_proxy(work, w_left + w_missing, s_left + s_missing)
    else:
        right_side = split_proxy(left, missing, False, work.total, settings.criterion)
        left_side = split_proxy(left, missing, True, work.total, settings.criterion)
    return left_side > right_side + tol


@njit(cache=True, nogil=True, inline="always")
def _scan_presorted(data, work, settings, feature, segment, best, tol):
    """The candidates of a presorted ``feature`` at ``segment = (start,
    present_end, end)`` (its missing rows at ``[present_end, end)``),
    offered against ``best``."""
    start, present_end, end = segment
    if is_categorical(data, feature):
        return scan_categorical(data, work, settings, feature, work.index[feature], (start, end), best, tol)[0]
    if settings.random_thresholds:
        return _draw_threshold(data, work, settings, feature, segment, best, tol)
    if settings.criterion == SQUARED_ERROR:
        return _scan_squared_error(data, work, settings, feature, segment, best, tol)
    if present_end == end and settings.criterion != MISCLASSIFICATION:
        if work.scan.shape[0] > 0:
            return _scan_carried(data, work, settings, feature, start, end, best, tol)
        return _scan_present(data, work, settings, feature, start, end, best, tol)
    return _scan_general(data, work, settings, feature, segment, best, tol)


@njit(cache=True, nogil=True, inline="always")
def _present_scratch(work):
    """(class weights, levels) of the present rows' search: the first
    ``len(total)`` floats of ``work.search_scratch`` and the next
    ``len(best_bits)`` words (see :data:`Workspace`)."""
    n_stats = work.total.shape[0]
    return work.search_scratch[:n_stats], work.search_scratch[n_stats : n_stats + work.best_bits.shape[0]].view(
        np.int64
    )


@njit(cache=True, nogil=True, inline="always")
def _scoring_present(work, present, bits):
    """``work`` with ``present`` as its ``total`` and ``bits`` as its
    ``best_bits`` (the same arrays otherwise; no array is copied)."""
    return Workspace(
        work.index,
        work.index_buffer,
        work.goes_left,
        work.left,
        work.missing,
        present,
        work.node_rows,
        bits,
        work.table,
        work.table_rows,
        work.search_scratch,
        work.scan,
    )


@njit_no_refcount
def _scan_present_rows(data, work, settings, feature, segment, best, tol):
    """rpart's scoring of a presorted ``feature`` with missing values at the
    node (``segment = (start, present_end, end)``, missing rows last): its
    candidates split the rows where it is present, ``min_samples_leaf`` of
    them on each side, and each is scored by the impurity decrease on those
    rows alone, not scaled (rpart's ``bsplit``: a feature missing on many rows
    decreases the impurity of fewer). The best of them enters the node's
    search as the proxy with that decrease,
    ``decrease + node term``, so that features are compared by decrease
    under the usual tie rule; its missing side is right (the rows missing it
    are sent by surrogate splits, else by the side :func:`_learned_side`
    gives them).

    The search reads the present rows' class weights from, and writes its
    best levels to, ``work.search_scratch`` (:func:`_present_scratch`: a
    record whose ``total`` and ``best_bits`` are those), so ``work.total`` is
    left as it is and ``work.best_bits`` changes only when this feature's
    candidate is the better."""
    start, present_end, end = segment
    total = work.total
    present, bits = _present_scratch(work)
    index = work.index[feature]
    criterion = settings.criterion
    if criterion == SQUARED_ERROR:
        # (weight, node mean, sum of deviations from it) of the present rows;
        # their own impurity is the full proxy less S_P^2 / W_P.
        w_missing, s_missing = _segment_sums(data, index, present_end, end, total[1])
        present[0] = total[0] - w_missing
        present[1] = total[1]
        present[2] = total[2] - s_missing
        if present[0] <= 0.0:
            return best
        present_term = present[2] * present[2] / present[0]
    else:
        missing = segment_class_weights(data, index, present_end, end, work.missing)
        present_term = _present_class_weights(total, missing, present, criterion)
    found = _scan_presorted(
        data, _scoring_present(work, present, bits), settings, feature, (start, present_end, present_end), _NONE, tol
    )
    if found[1] == NO_FEATURE:
        return best
    return _enter_present(data, work, (feature, criterion), (found, present_term), best, tol)


@njit(cache=True, nogil=True, inline="always")
def _present_class_weights(total, missing, present, criterion):
    """Write to ``present`` the class weights ``total`` less ``missing`` (of
    the rows where a feature is present); returns their node term."""
    for k in range(total.shape[0]):
        present[k] = max(total[k] - missing[k], 0.0)
    return node_term(present, criterion)


@njit(cache=True, nogil=True, inline="always")
def _enter_present(data, work, scored, present_search, best, tol):
    """The best candidate of a feature scored on the rows where it is present
    (:func:`_scan_present_rows`), entered into the node's search ``best``
    with the proxy of its decrease: ``scored = (feature, criterion)``,
    ``present_search = (found, present_term)``, the search's best and the
    present rows' node term. At a categorical split its levels, in the
    present search's bits (:func:`_present_scratch`), become
    ``work.best_bits`` when it is the better."""
    feature, criterion = scored
    found, present_term = present_search
    proxy = found[0] - present_term + node_term(work.total, criterion)
    if _better(proxy, feature, best[0], best[1], tol):
        if is_categorical(data, feature):
            copy_into(work.best_bits, _present_scratch(work)[1])
        return proxy, feature, found[2], False
    return best


@njit_no_refcount
def _scan_present_table(data, work, settings, feature, segment, best, tol):
    """:func:`_scan_present_rows` of a categorical ``feature`` searched from
    the node's tables (a classification with surrogates on integer weights,
    whose class weights per level are then those of its presorted segment,
    exactly). Returns ``(best, searched)`` as :func:`scan_categorical_table`:
    ``searched`` is False when the feature is entirely missing at the node,
    or constant there without a missing value."""
    start, end = segment
    slot = data.level_slot[feature]
    n_levels = data.n_levels[slot]
    n_classes = work.total.shape[0]
    missing_row = data.level_offset[slot] + n_levels
    n_missing = work.table_rows[missing_row]
    if n_missing == 0:
        return scan_categorical_table(data, work, settings, feature, segment, best, tol)
    if n_missing == end - start:
        return best, False
    missing = work.table[missing_row * n_classes : (missing_row + 1) * n_classes]
    present, bits = _present_scratch(work)
    present_term = _present_class_weights(work.total, missing, present, settings.criterion)
    found, _ = scan_categorical_table(
        data, _scoring_present(work, present, bits), settings, feature, segment, _NONE, tol, True
    )
    if found[1] == NO_FEATURE:
        return best, True
    return _enter_present(data, work, (feature, settings.criterion), (found, present_term), best, tol), True


@njit_no_refcount
def route_rows(data, work, settings, segment, split, child_counts, node_counts, bits):
    """Flag the side of every row of ``segment = (start, end)`` under
    ``split = (feature, threshold, missing_left)`` (on a categorical feature:
    the subset of levels in the bitset ``bits``) in ``work.goes_left`` and
    write the statistics of the children (:func:`node_statistics`) to
    ``child_counts[0]`` (left) and ``child_counts[1]`` (right) from those of
    the node, ``node_counts`` (the squared error's start from its mean).

    Returns the number of rows going left and the side of missing values
    (unchanged when the node has missing values of the split feature;
    otherwise the larger child, so that a value missing only at prediction
    follows the majority of the training rows, as scikit-learn does). At a
    categorical split, the levels absent from the node are then given the
    side of missing values in ``bits``.
    """
    feature = split[0]
    if is_categorical(data, feature):
        # The levels met are flagged in the partition buffer (free until the
        # partition), which holds a word per row of the growth: enough for
        # the levels of all but a tiny growth's feature.
        n_levels = data.n_categories[feature]
        if work.index_buffer.shape[0] < n_levels:
            return _route_categorical(data, work, settings, segment, split, child_counts, node_counts, bits)
        present = work.index_buffer[:n_levels]
        present[:] = 0
        return _route_flagged(data, work, settings, segment, split, child_counts, node_counts, (bits, present))
    # Class weights that are integers add up exactly in any order: the
    # split feature's sorted segment and carried keys tell the sides.
    exact = settings.criterion != SQUARED_ERROR and (data.unit_weight or data.integer_weight)
    if exact and level_slot(data, feature) == PRESORTED and work.scan.shape[0] > 0:
        return _route_sorted(data, work, segment, split, child_counts)
    return _route_values(data, work, settings, segment, split, child_counts, node_counts, (bits, work.goes_left[:0]))


@njit(cache=True, nogil=True, inline="always")
def routes_by_levels(data, work, feature):
    """Whether :func:`route_by_levels` can route a split on ``feature``
    (given that ``work.table`` holds the node's tables): the feature has a
    slot in the tables, the weights are integers (class weights summed per
    level are then exact) and the partition buffer holds a side per level."""
    slot = level_slot(data, feature)
    return data.integer_weight and slot >= 0 and work.index_buffer.shape[0] > data.n_levels[slot]


@njit_no_refcount
def route_by_levels(data, work, segment, split, child_counts, bits):
    """:func:`route_rows` for a split on a feature with a slot in the node's
    tables, which ``work.table`` holds (:func:`routes_by_levels`): the
    children's row counts and class weights are summed per level from the
    tables (integers: the same sums as row by row, exactly), the levels
    present read off them, and each row's side looked up by its level code
    (one byte per row, rather than its value in ``columns``).

    The side of each level, then of missing values, lives in the partition
    buffer (free until the partition). Returns what :func:`route_rows`
    returns, and sets the absent levels' bits as it does.
    """
    start, end = segment
    feature, threshold, missing_left = split
    slot = data.level_slot[feature]
    n_levels = data.n_levels[slot]
    first = data.level_offset[slot]
    n_classes = child_counts.shape[1]
    table = work.table
    table_rows = work.table_rows
    categorical = is_categorical(data, feature)
    values = data.level_values[slot]
    side = work.index_buffer[: n_levels + 1]
    n_left = 0
    for code in range(n_levels):
        if categorical:
            go = (bits[code >> 6] >> (code & 63)) & 1 == 1
        else:
            go = values[code] <= threshold
        side[code] = go
        n_left += table_rows[first + code] if go else 0
    n_missing = table_rows[first + n_levels]
    if n_missing == 0:
        missing_left = n_left > end - start - n_left
    side[n_levels] = missing_left
    n_left += n_missing if missing_left else 0
    child_counts[:] = 0.0
    for code in range(n_levels + 1):
        child = 1 - side[code]
        for k in range(n_classes):
            child_counts[child, k] += table[(first + code) * n_classes + k]
    if categorical:
        # A level is present where it has rows.
        set_absent_levels(bits, table_rows[first : first + n_levels], missing_left)
    codes = data.level_codes
    rows = work.node_rows
    goes_left = work.goes_left
    for i in range(start, end):
        row = rows[i]
        goes_left[row] = side[codes[row, slot]] != 0
    return n_left, missing_left


@njit_counted
def _route_categorical(data, work, settings, segment, split, child_counts, node_counts, bits):
    """:func:`_route_flagged` with the flags of the levels allocated."""
    present = np.zeros(data.n_categories[split[0]], dtype=np.bool_)
    return _route_flagged(data, work, settings, segment, split, child_counts, node_counts, (bits, present))


@njit(cache=True, nogil=True, inline="always")
def _route_flagged(data, work, settings, segment, split, child_counts, node_counts, levels):
    """:func:`route_rows` at a categorical split, ``levels = (bits, present)``
    with ``present`` a zero flag per level of the feature: the levels absent
    from the node then get the side of missing values in ``bits``."""
    bits, present = levels
    n_left, missing_left = _route_values(data, work, settings, segment, split, child_counts, node_counts, levels)
    set_absent_levels(bits, present, missing_left)
    return n_left, missing_left


@njit(cache=True, nogil=True, inline="always")
def _route_values(data, work, settings, segment, split, child_counts, node_counts, levels):
    """:func:`route_rows` from the values of the split feature; at a
    categorical split ``levels = (bits, present)`` (else ``present`` is
    empty), and the levels met at the node are flagged in ``present``."""
    start, end = segment
    feature, threshold, missing_left = split
    bits, present = levels
    regression = settings.criterion == SQUARED_ERROR
    # A table-searched feature's rows are the node's (its own order is not
    # kept). Class weights that are integers add up exactly in any order:
    # the node's rows, ascending, are then read rather than the feature's
    # order, so that the reads by row id go forward through memory.
    exact = not regression and (data.unit_weight or data.integer_weight)
    presorted = level_slot(data, feature) == PRESORTED
    categorical = is_categorical(data, feature)
    index = work.index[feature] if presorted and not exact else work.node_rows
    column = data.columns[feature]
    goes_left = work.goes_left
    child_counts[:] = 0.0
    n_left = 0
    seen_missing = False
    for i in range(start, end):
        row = index[i]
        v = column[row]
        is_missing = math.isnan(v)
        seen_missing = seen_missing or is_missing
        if categorical and not is_missing:
            code = np.int64(v)
            present[code] = True
            go = (bits[code >> 6] >> (code & 63)) & 1 == 1
        else:
            go = v <= threshold or (is_missing and missing_left)
        goes_left[row] = go
        n_left += go
        if not regression:
            child_counts[0 if go else 1, data.y[row]] += data.weight[row]
    if regression:
        row_moments(data.target, data.weight, index, (start, end), goes_left, True, node_counts[1], child_counts)
    if not seen_missing:
        missing_left = n_left > end - start - n_left
    return n_left, missing_left


@njit(cache=True, nogil=True, inline="always")
def _route_sorted(data, work, segment, split, child_counts):
    """:func:`route_rows` at a numeric split of a classification with
    integer weights, from the split feature's segment (sorted: the split
    search read it) and its carried keys (``work.scan``): the rows left
    of the threshold are a prefix of its present rows (found by bisection),
    the missing ones last, and each row's class is in its key, so no value
    is read but the bisection's. Class weights that are integers add up
    exactly in any order: the children's are those of the node's row order."""
    start, end = segment
    feature, threshold, missing_left = split
    index = work.index[feature]
    keys = work.scan[feature]
    column = data.columns[feature]
    goes_left = work.goes_left
    weight = data.weight
    unit_weight = data.unit_weight
    present_end = end
    while present_end > start and math.isnan(column[index[present_end - 1]]):
        present_end -= 1
    # First present position whose value is above the threshold.
    low, high = start, present_end
    while low < high:
        middle = (low + high) >> 1
        if column[index[middle]] <= threshold:
            low = middle + 1
        else:
            high = middle
    child_counts[:] = 0.0
    for i in range(start, end):
        row = index[i]
        go = i < low or (i >= present_end and missing_left)
        goes_left[row] = go
        child_counts[0 if go else 1, np.int64(keys[i]) & CLASS_MASK] += 1.0 if unit_weight else weight[row]
    n_left = low - start + (end - present_end if missing_left else 0)
    if present_end == end:
        missing_left = n_left > end - start - n_left
    return n_left, missing_left


@njit_no_refcount
def partition(data, work, segment, features, child_features, sides=(True, True)):
    """Split the segment of every feature in ``features`` stably into the
    rows flagged left by :func:`route_rows`, then the others, keeping each
    sorted (the other features are constant below this node and never read
    again there). A feature searched from tables (``data.level_slot``) keeps
    no order: it is passed on to both children, whose searches drop it where
    it is constant.

    ``segment = (start, end, n_left)``; ``sides = (left, right)`` says which
    children read their segments: a child that is a leaf never does, so
    only the other child's rows are moved into place (the node's rows
    ``node_rows`` are partitioned whole: they count the children's tables).
    Writes to ``child_features[0]`` / ``child_features[1]`` the features not
    constant (nor entirely missing) in the left / right child, read off the
    ends of its sorted segment: a feature constant in a child stays constant
    below it, so its segment is not partitioned there again (none for a
    child that is not read). Returns how many each child keeps.
    """
    start, end, n_left = segment
    left_read, right_read = sides
    middle = start + n_left
    partition_rows(work, segment)
    goes_left = work.goes_left
    index_buffer = work.index_buffer
    carried = _carries_keys(data, work)
    n_kept_left = 0
    n_kept_right = 0
    for position in range(features.shape[0]):
        f = features[position]
        if level_slot(data, f) != PRESORTED:
            # Searched from tables of the node's rows, which tell whether it is constant there.
            child_features[0, n_kept_left] = f
            child_features[1, n_kept_right] = f
            n_kept_left += left_read
            n_kept_right += right_read
            continue
        index = work.index[f]
        if carried:
            keys = work.scan[f]
            if left_read and right_read:
                key_buffer = work.scan[work.index.shape[0]]
                _stable_partition_keys(index, keys, (start, end), goes_left, (index_buffer, key_buffer))
            else:
                _gather_side_keys(index, keys, (start, end), goes_left, left_read)
        elif left_read and right_read:
            _stable_partition(index, start, end, goes_left, index_buffer)
        else:
            _gather_side(index, start, end, goes_left, left_read)
        # Missing values sort last: a segment is entirely missing when its first value is.
        column = data.columns[f]
        if left_read:
            first, last = column[index[start]], column[index[middle - 1]]
            if not (first == last or math.isnan(first)):
                child_features[0, n_kept_left] = f
                n_kept_left += 1
        if right_read:
            first, last = column[index[middle]], column[index[end - 1]]
            if not (first == last or math.isnan(first)):
                child_features[1, n_kept_right] = f
                n_kept_right += 1
    return n_kept_left, n_kept_right


@njit(cache=True, nogil=True, inline="always")
def _gather_side(rows, start, end, goes_left, left):
    """Move the rows of ``rows[start:end]`` flagged in ``goes_left`` (when
    ``left``; else the others) to where a stable partition puts them, in
    their order, in place: left rows forward to the front (the write cursor
    never passes the read one), right rows backward to the back. The other
    side's places are left as they come."""
    if left:
        write = start
        for i in range(start, end):
            row = rows[i]
            rows[write] = row
            write += goes_left[row]
    else:
        write = end - 1
        for i in range(end - 1, start - 1, -1):
            row = rows[i]
            rows[write] = row
            write -= 1 - goes_left[row]


@njit(cache=True, nogil=True, inline="always")
def _gather_side_keys(rows, keys, segment, goes_left, left):
    """:func:`_gather_side` moving ``keys`` along with ``rows``; ``segment = (start, end)``."""
    start, end = segment
    if left:
        write = start
        for i in range(start, end):
            row = rows[i]
            rows[write] = row
            keys[write] = keys[i]
            write += goes_left[row]
    else:
        write = end - 1
        for i in range(end - 1, start - 1, -1):
            row = rows[i]
            rows[write] = row
            keys[write] = keys[i]
            write -= 1 - goes_left[row]


@njit(cache=True, nogil=True, inline="always")
def _stable_partition_keys(rows, keys, segment, goes_left, buffers):
    """:func:`_stable_partition` moving ``keys`` along with ``rows``;
    ``segment = (start, end)``, ``buffers = (rows', keys')``."""
    start, end = segment
    buffer, key_buffer = buffers
    write = start
    n_right = 0
    for i in range(start, end):
        row = rows[i]
        key = keys[i]
        go = goes_left[row]
        rows[write] = row
        keys[write] = key
        buffer[n_right] = row
        key_buffer[n_right] = key
        write += go
        n_right += 1 - go
    copy_into(rows, buffer[:n_right], write)
    copy_into(keys, key_buffer[:n_right], write)


@njit(cache=True, nogil=True, inline="always")
def partition_rows(work, segment):
    """Stable partition of ``node_rows[start:end]`` into the rows flagged
    left by :func:`route_rows`, then the others; ``segment = (start, end, n_left)``."""
    start, end, _ = segment
    _stable_partition(work.node_rows, start, end, work.goes_left, work.index_buffer)


@njit(cache=True, nogil=True, inline="always")
def _stable_partition(rows, start, end, goes_left, buffer):
    """Move the rows of ``rows[start:end]`` flagged in ``goes_left`` (by row
    id) to the front, keeping the order on both sides."""
    write = start
    n_right = 0
    for i in range(start, end):
        # Branch-free: the side of a row is unpredictable, so both
        # destinations are written and only one cursor advances.
        row = rows[i]
        go = goes_left[row]
        rows[write] = row
        buffer[n_right] = row
        write += go
        n_right += 1 - go
    copy_into(rows, buffer[:n_right], write)
