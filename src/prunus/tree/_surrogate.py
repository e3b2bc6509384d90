"""Surrogate splits (Breiman et al. 1984, section 5.3; rpart's definition).

Once the primary split of a node is chosen, every other feature gets the
split that best mimics it on the node's rows where both features are present:

- the primary sends each row left (+1), right (-1), or, when its feature is
  missing, nowhere (0); ``W_L`` and ``W_R`` are the weights it sends left and
  right;
- a numeric candidate ``x <= t`` is tried at every midpoint between
  consecutive distinct present values of the feature, sending ``x <= t`` left
  or, reversed, right, with at least two rows of known primary side on each
  side; its agreement is the weight of rows it sends where the primary does,
  and it must beat sending every row with the primary's majority (on the rows
  where the candidate's feature is present) strictly; the first best midpoint
  wins;
- a categorical candidate sends each level present there to the side most of
  its weight goes (ties: the side of the larger total), which is the best
  subset; it needs at least two agreeing and two disagreeing rows (rpart's
  test, kept as rpart has it); a level absent there has no side;
- agreement is divided by ``W_L + W_R`` (rows missing the candidate count as
  disagreeing), and the adjusted agreement
  ``adj = (agreement - m) / (1 - m)`` with ``m = max(W_L, W_R) / (W_L + W_R)``
  measures the gain over the majority rule; candidates with ``adj <= 1e-10``
  are dropped;
- the ``max_surrogates`` best by agreement are kept, equal agreements in
  feature order (rpart's ``surrogatestyle = 0``).

A row whose primary feature is missing follows the first surrogate whose
feature it has (at a categorical surrogate, a level with a side), else the
node's last-resort side (rpart's ``usesurrogate = 2``). Kernels here work on
the rows of one node and write into a :data:`SurrogateStore` of per-node
tables, so that growth (:mod:`._grower`) calls them once per split.
"""

from __future__ import annotations

import math
from collections import namedtuple
from typing import Any

import numpy as np
from numba.cpython.unsafe.numbers import trailing_zeros as _trailing_zeros

from .._compiled import njit
from ._categorical_split import is_categorical, set_absent_levels
from ._criterion import GINI, MISCLASSIFICATION, SQUARED_ERROR, midpoint
from ._no_refcount import copy_into, njit_counted, njit_no_refcount
from ._splitter import side_moments

#: The count of trailing zero bits of an integer (an LLVM intrinsic, typed loosely for static checkers).
trailing_zeros: Any = _trailing_zeros

#: Last resort of a row missing every surrogate's feature: the primary
#: split's majority side by weight (rpart), rather than the side the split
#: search learned for the missing values of its feature as a group (kept on
#: an exact tie of the weights). Chosen by measurement (see the user guide).
MAJORITY_LAST_RESORT = True

#: Per split, send the rows missing its feature by the surrogates or all to
#: the split's learned side, whichever leaves the children of lower
#: training impurity (then the split keeps no surrogate); False: always by
#: the surrogates (rpart). Chosen by measurement (see the user guide).
CHOOSE_BY_FIT = False

#: Adjusted agreements at or below this are no better than the majority rule (rpart's cut-off).
MIN_ADJ = 1e-10

#: ``SurrogateStore.n_found`` of a node whose search was deferred.
DEFERRED = -1

# Per-node tables of one growth (``cap`` nodes, ``K`` = max_surrogates
# slots each, ``W`` int64 words of a level bitset): surrogate feature (-1 in
# unused slots), threshold (numeric), whether ``x <= threshold`` goes left,
# agreement and adjusted agreement, the levels sent left and the levels
# that have a side (categorical), and the number kept per node. ``side`` is
# scratch by row id (+1 left, -1 right, 0 primary missing); ``majority_last``
# (shape (2,)): [0] chooses the last resort, the primary's majority side
# (rpart) rather than the side learned for missing values; [1] chooses per
# split between the surrogates and the learned side (:data:`CHOOSE_BY_FIT`);
# an optional [2] defers the search at a split none of whose rows misses its
# feature: ``n_found`` is then :data:`DEFERRED` there, for a caller that
# finds them only where a row it routes needs them (:func:`deferred_surrogates`).
# The last three are the searches' scratch, sized once per growth so that the
# kernels run per node allocate nothing (see :mod:`._no_refcount`): ``levels``
# (float64, 4 per level: a categorical candidate's weights and row counts per
# level and side), ``present`` (bool, one per level: the levels with a row at
# the node) and ``level_sets`` (int64 words, shape (2, W): a candidate's
# levels sent left and levels with a side); a level bitset of ``W`` words
# holds at most ``64 W`` levels.
SurrogateStore = namedtuple(
    "SurrogateStore",
    "feature threshold left_below agreement adj bits known n_found side majority_last levels present level_sets",
)


#: The surrogate splits of a tree as flat tables: node ``t``'s surrogates,
#: best first, are the entries ``offsets[t]:offsets[t + 1]`` of ``feature``,
#: ``threshold`` (NaN for a categorical one), ``left_below`` (whether a numeric
#: ``x <= threshold`` goes left), ``category_bits`` / ``known_bits`` (uint64
#: words: the levels sent left, the levels that have a side), ``agreement``
#: and ``adj`` (adjusted agreement).
SurrogateSplits = namedtuple(
    "SurrogateSplits", "offsets feature threshold left_below category_bits known_bits agreement adj"
)
SurrogateSplits.__doc__ = """The surrogate splits of a tree as flat tables (``Tree.surrogates``).

Parameters
----------
offsets : ndarray of int64, shape (n_nodes + 1,)
    Node ``t``'s surrogates, best first, are the entries
    ``offsets[t]:offsets[t + 1]`` of the other fields.
feature : ndarray of int64
    Feature of each surrogate split.
threshold : ndarray of float64
    Threshold of a numeric surrogate (NaN for a categorical one).
left_below : ndarray of bool
    Whether ``x <= threshold`` goes left (numeric surrogates).
category_bits : ndarray of uint64, shape (n_surrogates, n_words)
    The levels a categorical surrogate sends left, as bitset words.
known_bits : ndarray of uint64, shape (n_surrogates, n_words)
    The levels that have a side.
agreement : ndarray of float64
    Weighted share of the node's rows the surrogate sends where the primary split does.
adj : ndarray of float64
    Adjusted agreement: the gain over the majority side (rpart's ``adj``).
"""


def flat_surrogates(store, n_nodes, is_leaf):
    """:data:`SurrogateSplits` of the first ``n_nodes`` nodes of a grown store (none at leaves)."""
    offsets, feature, threshold, left_below, bits, known, agreement, adj = _gather_surrogates(store, n_nodes, is_leaf)
    return SurrogateSplits(
        offsets, feature, threshold, left_below, bits.view(np.uint64), known.view(np.uint64), agreement, adj
    )


@njit(cache=True, nogil=True)
def _gather_surrogates(store, n_nodes, is_leaf):
    """The surrogates of the :data:`SurrogateStore` ``store`` at the
    internal nodes among the first ``n_nodes``, node by node and best
    first, with their offsets (one compiled pass: a fold's tree is
    flattened once per growth)."""
    feature, threshold, left_below, bits, known = (
        store.feature,
        store.threshold,
        store.left_below,
        store.bits,
        store.known,
    )
    agreement, adj, n_found = store.agreement, store.adj, store.n_found
    offsets = np.zeros(n_nodes + 1, dtype=np.int64)
    for t in range(n_nodes):
        offsets[t + 1] = offsets[t] + (0 if is_leaf[t] else n_found[t])
    m = offsets[n_nodes]
    n_words = bits.shape[2]
    out_feature = np.empty(m, dtype=np.int64)
    out_threshold = np.empty(m)
    out_left_below = np.empty(m, dtype=np.bool_)
    out_bits = np.empty((m, n_words), dtype=np.int64)
    out_known = np.empty((m, n_words), dtype=np.int64)
    out_agreement = np.empty(m)
    out_adj = np.empty(m)
    for t in range(n_nodes):
        for j in range(offsets[t + 1] - offsets[t]):
            i = offsets[t] + j
            out_feature[i] = feature[t, j]
            out_threshold[i] = threshold[t, j]
            out_left_below[i] = left_below[t, j]
            out_bits[i] = bits[t, j]
            out_known[i] = known[t, j]
            out_agreement[i] = agreement[t, j]
            out_adj[i] = adj[t, j]
    return offsets, out_feature, out_threshold, out_left_below, out_bits, out_known, out_agreement, out_adj


def routing_record(surrogates):
    """The arrays of :data:`SurrogateSplits` that :func:`apply_surrogate_kernel`
    reads, the bitsets as int64 words (the same bits)."""
    s = surrogates
    return s.offsets, s.feature, s.threshold, s.left_below, s.category_bits.view(np.int64), s.known_bits.view(np.int64)


def empty_surrogates(n_nodes, n_words=0):
    """:data:`SurrogateSplits` with no surrogate at any node."""
    return SurrogateSplits(
        np.zeros(n_nodes + 1, dtype=np.int64),
        np.zeros(0, dtype=np.int64),
        np.zeros(0),
        np.zeros(0, dtype=np.bool_),
        np.zeros((0, n_words), dtype=np.uint64),
        np.zeros((0, n_words), dtype=np.uint64),
        np.zeros(0),
        np.zeros(0),
    )


def empty_store(n_rows=0, capacity=0, max_surrogates=0, n_words=0, majority_last=True, choose_by_fit=False):
    """A :data:`SurrogateStore` for ``capacity`` nodes over ``n_rows`` rows
    (``capacity = 0``: surrogates off; the grower then never calls this module)."""
    flags = np.array([majority_last, choose_by_fit])
    return new_store(n_rows if capacity else 0, capacity, max_surrogates, n_words, flags)


@njit(cache=True, nogil=True)
def new_store(n_rows, capacity, k, n_words, flags):
    """:func:`empty_store` with room for ``k`` surrogates per node and its
    switches ``flags`` (``majority_last``) as an array: callable from the
    kernels that run many growths."""
    max_levels = 64 * n_words if capacity > 0 else 0
    return SurrogateStore(
        np.full((capacity, k), -1, dtype=np.int64),
        np.zeros((capacity, k)),
        np.zeros((capacity, k), dtype=np.bool_),
        np.zeros((capacity, k)),
        np.zeros((capacity, k)),
        np.zeros((capacity, k, n_words), dtype=np.int64),
        np.zeros((capacity, k, n_words), dtype=np.int64),
        np.zeros(capacity, dtype=np.int64),
        np.zeros(n_rows, dtype=np.int8),
        flags,
        np.zeros(4 * max_levels),
        np.zeros(max_levels, dtype=np.bool_),
        np.zeros((2, n_words if capacity > 0 else 0), dtype=np.int64),
    )


@njit_counted
def numeric_candidate(column, weight, rows, side):
    """Best numeric surrogate of one feature over ``rows`` (any order).

    Returns (found, agreement weight, threshold, left_below)."""
    n = rows.shape[0]
    xs = np.empty(n)
    rs = np.empty(n, dtype=np.int64)
    m = 0
    for i in range(n):
        v = column[rows[i]]
        if not math.isnan(v):
            xs[m] = v
            rs[m] = rows[i]
            m += 1
    order = np.argsort(xs[:m], kind="mergesort")
    return sorted_numeric_candidate(column, weight, rs[order], m, side)


@njit_no_refcount
def sorted_numeric_candidate(column, weight, rows, m, side):
    """:func:`numeric_candidate` over ``rows`` sorted by the feature, whose
    first ``m`` are the rows where it is present (a presorted segment)."""
    if m == 0:
        return False, 0.0, 0.0, True
    # Start with every row "above" the candidate threshold.
    ll = 0
    rl = 0
    llwt = 0.0
    rlwt = 0.0
    for i in range(m):
        r = rows[i]
        s = side[r]
        w = weight[r]
        if s == 1:
            ll += w > 0.0
            llwt += w
        elif s == -1:
            rl += w > 0.0
            rlwt += w
    agree = llwt if llwt > rlwt else rlwt
    lr = 0
    rr = 0
    lrwt = 0.0
    rrwt = 0.0
    found = False
    left_below = True
    lastx = column[rows[0]]
    threshold = lastx
    i = 0
    while ll + rl >= 2 and i < m:
        r = rows[i]
        x = column[r]
        if lr + rr >= 2 and x != lastx:
            if llwt + rrwt > agree:
                # Below goes right: the rows above that the primary sends left agree, and those below it sends right.
                found = True
                agree = llwt + rrwt
                left_below = False
                threshold = midpoint(lastx, x)
            elif lrwt + rlwt > agree:
                found = True
                agree = lrwt + rlwt
                left_below = True
                threshold = midpoint(lastx, x)
        s = side[r]
        w = weight[r]
        if s == 1:
            if w > 0.0:
                ll -= 1
                lr += 1
            llwt -= w
            lrwt += w
        elif s == -1:
            if w > 0.0:
                rl -= 1
                rr += 1
            rlwt -= w
            rrwt += w
        lastx = x
        i += 1
    return found, agree, threshold, left_below


@njit_no_refcount
def categorical_candidate(column, weight, rows, side, n_levels, sets, table):
    """Best categorical surrogate of one feature over ``rows``: writes the
    levels sent left to ``sets[0]`` and those with a side to ``sets[1]``
    (int64 words), using ``table`` (float64, at least ``4 n_levels``) as
    scratch. Returns (found, agreement weight).

    A node with fewer than half as many rows as the feature has levels
    (deep in a tree) reads and clears only the levels its rows meet
    (:func:`_few_rows_candidate`), the same numbers; with more rows, the
    pass over every level costs less than the rows' second pass."""
    if 2 * rows.shape[0] < n_levels:
        return _few_rows_candidate(column, weight, rows, side, n_levels, sets, table)
    # Weights and counts of rows per level and side; counts below 2^53 are exact as floats.
    table[: 4 * n_levels] = 0.0
    tables = _level_tables(table, n_levels)
    bits = sets[0]
    known = sets[1]
    _tally_levels(column, weight, rows, side, tables, known[:0])
    default_left = tables[0].sum() > tables[1].sum()
    bits[:] = 0
    known[:] = 0
    agree = 0.0
    n_disagree = 0
    n_agree = 0
    for k in range(n_levels):
        if tables[2][k] == 0 and tables[3][k] == 0:
            continue
        known[k >> 6] |= np.int64(1) << (k & 63)
        weight_agreeing, agreeing, disagreeing, left = _level_vote(tables, k, default_left)
        agree += weight_agreeing
        n_agree += agreeing
        n_disagree += disagreeing
        if left:
            bits[k >> 6] |= np.int64(1) << (k & 63)
    return n_disagree > 1 and n_agree > 1, agree


@njit(cache=True, nogil=True, inline="always")
def _few_rows_candidate(column, weight, rows, side, n_levels, sets, table):
    """:func:`categorical_candidate` that reads, clears and sums only the
    levels met by the rows (few rows meet few of many levels): in ascending
    order, the order of a pass over every level, so the same sums."""
    tables = _level_tables(table, n_levels)
    bits = sets[0]
    known = sets[1]
    bits[:] = 0
    known[:] = 0
    for i in range(rows.shape[0]):
        v = column[rows[i]]
        if not math.isnan(v):
            k = np.int64(v)
            for part in tables:
                part[k] = 0.0
    _tally_levels(column, weight, rows, side, tables, known)
    # The levels met hold every nonzero weight: their sums are those over every level.
    total_left = 0.0
    total_right = 0.0
    for word in range(known.shape[0]):
        met = known[word]
        while met != 0:
            k = 64 * word + trailing_zeros(met)
            met &= met - 1
            total_left += tables[0][k]
            total_right += tables[1][k]
    default_left = total_left > total_right
    agree = 0.0
    n_disagree = 0
    n_agree = 0
    for word in range(known.shape[0]):
        met = known[word]
        while met != 0:
            k = 64 * word + trailing_zeros(met)
            met &= met - 1
            weight_agreeing, agreeing, disagreeing, left = _level_vote(tables, k, default_left)
            agree += weight_agreeing
            n_agree += agreeing
            n_disagree += disagreeing
            if left:
                bits[word] |= np.int64(1) << (k & 63)
    return n_disagree > 1 and n_agree > 1, agree


@njit(cache=True, nogil=True, inline="always")
def _level_tables(table, n_levels):
    """Views of ``table``: the weights of the rows the primary sends left and
    right, then their counts of positive weight, per level."""
    return (
        table[:n_levels],
        table[n_levels : 2 * n_levels],
        table[2 * n_levels : 3 * n_levels],
        table[3 * n_levels : 4 * n_levels],
    )


@njit(cache=True, nogil=True, inline="always")
def _tally_levels(column, weight, rows, side, tables, known):
    """Add every row of ``rows`` with a level and a primary side into
    ``tables`` (:func:`_level_tables`); with ``known`` not empty, flag in it
    the levels met by a row of positive weight."""
    left_weight, right_weight, left_count, right_count = tables
    flag = known.shape[0] > 0
    for i in range(rows.shape[0]):
        r = rows[i]
        v = column[r]
        s = side[r]
        if math.isnan(v) or s == 0:
            continue
        k = np.int64(v)
        w = weight[r]
        if s == 1:
            left_count[k] += w > 0.0
            left_weight[k] += w
        else:
            right_count[k] += w > 0.0
            right_weight[k] += w
        if flag and w > 0.0:
            known[k >> 6] |= np.int64(1) << (k & 63)


@njit(cache=True, nogil=True, inline="always")
def _level_vote(tables, k, default_left):
    """Level ``k`` goes to the side that sends more of its weight (a tie: the
    primary's heavier side, ``default_left``). Returns (the weight that then
    agrees, its rows agreeing, its rows disagreeing, whether it goes left)."""
    left_weight, right_weight, left_count, right_count = tables
    if left_weight[k] < right_weight[k] or (left_weight[k] == right_weight[k] and not default_left):
        return right_weight[k], right_count[k], left_count[k], False
    return left_weight[k], left_count[k], right_count[k], True


@njit_counted
def node_surrogates(columns, n_categories, weight, rows, side, primary, store, node):
    """Fill ``store``'s tables of ``node`` with the surrogates of the split
    on ``primary`` over ``rows``, given ``side[row]`` of the primary.

    Returns (W_L, W_R): the weights the primary sends left and right."""
    candidates = np.arange(columns.shape[0])
    return segment_surrogates(
        columns, n_categories, weight, rows, side, primary, store, node, candidates, np.empty((0, 0), dtype=np.int32)
    )


@njit_no_refcount
def segment_surrogates(columns, n_categories, weight, rows, side, primary, store, node, candidates, segments):
    """:func:`node_surrogates` over the features ``candidates`` (ascending;
    the others must be constant or missing on ``rows``). ``segments``: empty,
    or a row per feature holding ``rows`` sorted by that feature with missing
    values last (the builder's presorted segments), so that nothing is sorted.

    Without reference counting (it runs at every split of a growth with
    surrogates): its scratch is the store's; only an unsorted numeric
    candidate (no ``segments``) allocates, in :func:`numeric_candidate`."""
    w_left, w_right = _side_weights(weight, rows, side)
    max_k = store.feature.shape[1]
    n_found = 0
    total = w_left + w_right
    # A split on missingness alone (every present row one way) has nothing to mimic.
    if max_k == 0 or w_left <= 0.0 or w_right <= 0.0:
        store.n_found[node] = 0
        return w_left, w_right
    majority = max(w_left, w_right) / total
    level_sets = store.level_sets
    bits = level_sets[0]
    known = level_sets[1]
    for position in range(candidates.shape[0]):
        g = candidates[position]
        if g == primary:
            continue
        categorical = n_categories.shape[0] > 0 and n_categories[g] > 0
        threshold = np.nan
        left_below = True
        if categorical:
            found, agree = categorical_candidate(
                columns[g], weight, rows, side, n_categories[g], level_sets, store.levels
            )
        elif segments.shape[0] > 0:
            segment = segments[g]
            column = columns[g]
            m = segment.shape[0]
            while m > 0 and math.isnan(column[segment[m - 1]]):
                m -= 1
            found, agree, threshold, left_below = sorted_numeric_candidate(column, weight, segment, m, side)
        else:
            found, agree, threshold, left_below = numeric_candidate(columns[g], weight, rows, side)
        if not found:
            continue
        agreement = agree / total
        adj = (agreement - majority) / (1.0 - majority)
        if adj <= MIN_ADJ:
            continue
        # Insert after the surrogates of equal or larger agreement.
        pos = 0
        while pos < n_found and not agreement > store.agreement[node, pos]:
            pos += 1
        if pos == max_k:
            continue
        last = min(n_found, max_k - 1)
        for q in range(last, pos, -1):
            store.feature[node, q] = store.feature[node, q - 1]
            store.threshold[node, q] = store.threshold[node, q - 1]
            store.left_below[node, q] = store.left_below[node, q - 1]
            store.agreement[node, q] = store.agreement[node, q - 1]
            store.adj[node, q] = store.adj[node, q - 1]
            copy_into(store.bits[node, q], store.bits[node, q - 1])
            copy_into(store.known[node, q], store.known[node, q - 1])
        store.feature[node, pos] = g
        store.threshold[node, pos] = threshold
        store.left_below[node, pos] = left_below
        store.agreement[node, pos] = agreement
        store.adj[node, pos] = adj
        if categorical:
            copy_into(store.bits[node, pos], bits)
            copy_into(store.known[node, pos], known)
        else:
            store.bits[node, pos] = 0
            store.known[node, pos] = 0
        n_found = min(n_found + 1, max_k)
    store.n_found[node] = n_found
    return w_left, w_right


@njit(cache=True, nogil=True, inline="always")
def surrogate_side(value, n_levels, threshold, left_below, bits, known):
    """Side a surrogate sends ``value``: 1 left, -1 right, 0 none (missing,
    or a level without a side)."""
    if math.isnan(value):
        return 0
    if n_levels > 0:
        if not (value >= 0.0 and value < n_levels and value == np.floor(value)):
            return 0
        code = np.int64(value)
        if (known[code >> 6] >> (code & 63)) & 1 == 0:
            return 0
        return 1 if (bits[code >> 6] >> (code & 63)) & 1 == 1 else -1
    below = value <= threshold
    return 1 if below == left_below else -1


@njit(cache=True, nogil=True, inline="always")
def _ascending(values):
    """Whether ``values`` ascend (strictly): the growths keep their lists of
    features in order, so a split rarely needs to sort them."""
    for i in range(1, values.shape[0]):
        if values[i] <= values[i - 1]:
            return False
    return True


@njit_no_refcount
def split_with_surrogates(
    data, work, settings, segment, split, bits, store, node, child_counts, node_counts, candidates, sorted_segments
):
    """After :func:`._splitter.route_rows` flagged the rows of a node: find
    the node's surrogates, send the rows missing the primary feature by them
    (else by the last resort), and recount the children's statistics.

    ``split = (feature, missing_left, n_left)`` with ``missing_left`` the
    side learned for missing values and ``n_left`` the rows sent left so
    far; ``bits`` the levels sent left at a categorical split (those absent
    from the node follow the last resort). ``candidates`` are the features
    not constant at the node (ascending); with ``sorted_segments`` their
    segments of ``work.index`` are sorted. Returns (n_left, last-resort
    side is left).

    Without reference counting (it runs at every split): its scratch is the
    store's (:data:`SurrogateStore`)."""
    start, end = segment
    feature, missing_left, n_left = split
    rows = work.node_rows[start:end]
    column = data.columns[feature]
    goes_left = work.goes_left
    side = store.side
    any_missing = False
    for i in range(rows.shape[0]):
        r = rows[i]
        if math.isnan(column[r]):
            side[r] = 0
            any_missing = True
        else:
            side[r] = 1 if goes_left[r] else -1
    if not any_missing and store.majority_last.shape[0] > 2 and store.majority_last[2]:
        # No row here needs a surrogate: the search waits for a row that does.
        w_left, w_right = _side_weights(data.weight, rows, side)
        store.n_found[node] = DEFERRED if w_left > 0.0 and w_right > 0.0 else 0
    else:
        w_left, w_right = _node_surrogates(data, work, segment, feature, store, node, candidates, sorted_segments)
    if w_left <= 0.0 or w_right <= 0.0:
        # A split on missingness: the learned side stands.
        return n_left, missing_left
    last_left = missing_left
    if store.majority_last[0] and w_left != w_right:
        last_left = w_left > w_right
    if is_categorical(data, feature) and last_left != missing_left:
        # Levels absent from the node go where the last resort sends rows.
        set_absent_levels(bits, _present_levels(data, feature, rows, store.present), last_left)
    if not any_missing:
        return n_left, last_left
    _route_missing(data, rows, side, store, node, last_left, goes_left)
    _count_children(data, settings, rows, goes_left, node_counts, child_counts)
    if store.majority_last[1]:
        # The learned side for every row missing the feature, if that fits the training rows better.
        by_surrogates = _children_impurity(settings, child_counts)
        for i in range(rows.shape[0]):
            if side[rows[i]] == 0:
                goes_left[rows[i]] = missing_left
        # Counted into child_counts (no scratch), counted again by the surrogates if they fit better.
        _count_children(data, settings, rows, goes_left, node_counts, child_counts)
        if _children_impurity(settings, child_counts) < by_surrogates - 1e-12 * abs(by_surrogates):
            store.n_found[node] = 0
            if is_categorical(data, feature):
                set_absent_levels(bits, _present_levels(data, feature, rows, store.present), missing_left)
            last_left = missing_left
        else:
            _route_missing(data, rows, side, store, node, last_left, goes_left)
            _count_children(data, settings, rows, goes_left, node_counts, child_counts)
    n_left = 0
    for i in range(rows.shape[0]):
        n_left += goes_left[rows[i]]
    return n_left, last_left


@njit(cache=True, nogil=True, inline="always")
def _present_levels(data, feature, rows, scratch):
    """The levels of the categorical ``feature`` held by some of ``rows``,
    flagged in (and returned as a view of) ``scratch``."""
    present = scratch[: data.n_categories[feature]]
    present[:] = False
    column = data.columns[feature]
    for i in range(rows.shape[0]):
        v = column[rows[i]]
        if not math.isnan(v):
            present[np.int64(v)] = True
    return present


@njit(cache=True, nogil=True, inline="always")
def _side_weights(weight, rows, side):
    """(W_L, W_R): the weights of ``rows`` the primary sends left and right."""
    w_left = 0.0
    w_right = 0.0
    for i in range(rows.shape[0]):
        r = rows[i]
        if side[r] == 1:
            w_left += weight[r]
        elif side[r] == -1:
            w_right += weight[r]
    return w_left, w_right


@njit_no_refcount
def _node_surrogates(data, work, segment, feature, store, node, candidates, sorted_segments):
    """:func:`segment_surrogates` of the node ``segment = (start, end)`` of
    ``work`` split on ``feature`` (``store.side`` set on its rows)."""
    if not _ascending(candidates):
        return _unsorted_node_surrogates(data, work, segment, feature, store, node, candidates, sorted_segments)
    return _node_search(data, work, segment, feature, store, node, candidates, sorted_segments)


@njit_counted
def _unsorted_node_surrogates(data, work, segment, feature, store, node, candidates, sorted_segments):
    """:func:`_node_surrogates` with ``candidates`` not ascending (features
    drawn at random): over a sorted copy of them."""
    return _node_search(data, work, segment, feature, store, node, np.sort(candidates), sorted_segments)


@njit(cache=True, nogil=True, inline="always")
def _node_search(data, work, segment, feature, store, node, candidates, sorted_segments):
    """:func:`_node_surrogates` over ascending ``candidates``."""
    start, end = segment
    # Without sorted segments, none: no rows of them (a view, not an allocation).
    segments = work.index[:, start:end] if sorted_segments else work.index[:0, start:end]
    return segment_surrogates(
        data.columns,
        data.n_categories,
        data.weight,
        work.node_rows[start:end],
        store.side,
        feature,
        store,
        node,
        candidates,
        segments,
    )


@njit_no_refcount
def _route_missing(data, rows, side, store, node, last_left, goes_left):
    """Send the rows missing the primary feature (``side == 0``) by the
    node's surrogates, else to ``last_left``."""
    n_categories = data.n_categories
    for i in range(rows.shape[0]):
        r = rows[i]
        if side[r] != 0:
            continue
        go = last_left
        for q in range(store.n_found[node]):
            g = store.feature[node, q]
            n_levels = n_categories[g] if n_categories.shape[0] > 0 else 0
            s = surrogate_side(
                data.columns[g, r],
                n_levels,
                store.threshold[node, q],
                store.left_below[node, q],
                store.bits[node, q],
                store.known[node, q],
            )
            if s != 0:
                go = s == 1
                break
        goes_left[r] = go


@njit_no_refcount
def _count_children(data, settings, rows, goes_left, node_counts, out):
    """Statistics of the two children (classes, or moments) into ``out``."""
    out[:] = 0.0
    if settings.criterion == SQUARED_ERROR:
        _child_moments(data, rows, goes_left, node_counts, out)
    else:
        for i in range(rows.shape[0]):
            r = rows[i]
            out[0 if goes_left[r] else 1, data.y[r]] += data.weight[r]


@njit_counted
def _child_moments(data, rows, goes_left, node_counts, out):
    """:func:`._splitter.side_moments` of the two children (a kernel that
    does not say whether it counts references, hence this counted call)."""
    side_moments(data, rows, (0, rows.shape[0]), goes_left, True, node_counts[1], out)


@njit_no_refcount
def _children_impurity(settings, counts):
    """``W_L i(L) + W_R i(R)`` of two children's statistics (Gini, entropy in
    nats, misclassification; the within sum of squares for a regression)."""
    if settings.criterion == SQUARED_ERROR:
        return counts[0, 2] + counts[1, 2]
    out = 0.0
    for side in range(2):
        total = counts[side].sum()
        if total <= 0.0:
            continue
        if settings.criterion == MISCLASSIFICATION:
            # The largest class weight, by a loop: array.max() may raise, which needs reference counting.
            largest = counts[side, 0]
            for k in range(1, counts.shape[1]):
                largest = max(largest, counts[side, k])
            out += total - largest
            continue
        for k in range(counts.shape[1]):
            c = counts[side, k]
            if c <= 0.0:
                continue
            if settings.criterion == GINI:
                out += c * (1.0 - c / total)
            else:
                out -= c * math.log(c / total)
    return out


@njit(cache=True, nogil=True)
def apply_surrogate_kernel(X, rows, children_left, feature, threshold, missing_left, categories, surrogates):
    """Leaf id of the rows ``X[rows]`` of a tree with surrogate splits.

    ``categories = (children_right, is_categorical, bits, n_categories)``
    (the split's level bitsets as for :func:`._kernels.apply_categorical_kernel`);
    ``surrogates = (offsets, feature, threshold, left_below, bits, known)``
    flat tables, node ``t``'s in ``offsets[t]:offsets[t + 1]``. A row missing
    the split's feature (or, at a categorical split, holding no level code)
    follows the first surrogate that gives it a side, else ``missing_left``.
    """
    children_right, is_categorical, cat_bits, n_categories = categories
    offsets, s_feature, s_threshold, s_left_below, s_bits, s_known = surrogates
    out = np.empty(rows.shape[0], dtype=np.int64)
    has_levels = n_categories.shape[0] > 0
    for i in range(rows.shape[0]):
        x = X[rows[i]]
        node = 0
        while children_left[node] != -1:
            f = feature[node]
            value = x[f]
            s = 0
            if is_categorical[node]:
                if value >= 0.0 and value < n_categories[f] and value == np.floor(value):
                    code = np.int64(value)
                    s = 1 if (cat_bits[node, code >> 6] >> (code & 63)) & 1 == 1 else -1
            elif not math.isnan(value):
                s = 1 if value <= threshold[node] else -1
            q = offsets[node]
            while s == 0 and q < offsets[node + 1]:
                g = s_feature[q]
                n_levels = n_categories[g] if has_levels else 0
                s = surrogate_side(x[g], n_levels, s_threshold[q], s_left_below[q], s_bits[q], s_known[q])
                q += 1
            if s == 0:
                s = 1 if missing_left[node] else -1
            node = children_left[node] if s == 1 else children_right[node]
        out[i] = node
    return out
