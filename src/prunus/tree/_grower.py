"""Growth of a CART tree from presorted rows: depth first, or best first
when the number of leaves is bounded (numba kernels over flat arrays).

Nodes are numbered as they are created, so every child has a larger id than
its parent (depth-first growth numbers them in preorder, left child first).
"""

import math
from collections import namedtuple

import numpy as np

from .._compiled import njit
from ._criterion import SQUARED_ERROR, impurity_decrease, node_term
from ._level_split import fill_tables, subtract_tables
from ._no_refcount import copy_into, njit_no_refcount
from ._splitter import (
    NO_FEATURE,
    find_best_split,
    node_statistics,
    partition,
    partition_rows,
    route_by_levels,
    route_rows,
    routes_by_levels,
)
from ._surrogate import split_with_surrogates

TREE_LEAF = -1
TREE_UNDEFINED = -2
_EPSILON = np.finfo(np.float64).eps
# Cost of sorting one row of a segment, per halving of the node, relative to
# moving it in a partition: the fastest of 0.5, 1, 2 and 4 on spam, letter,
# digits and 3000 x 200 / 3000 x 1000 make_classification forests.
SORT_COST = 2.0

#: A node chosen for a split, as :func:`_route` sends its rows: its id,
#: ``segment = (start, end)``, ``split = (feature, threshold,
#: missing_left)``, ``counts = (child_counts, node_counts)`` (the children's
#: class weights, written, and the node's), ``bits`` (its row of the
#: category bitsets) and ``candidates = (features not constant at the node,
#: whether their segments are sorted)``, among which surrogates are sought.
NodeSplit = namedtuple("NodeSplit", "node segment split counts bits candidates")


@njit(cache=True, nogil=True)
def _grown(nodes, capacity):
    """``nodes`` (left, right, feature, threshold, missing_left, counts, bits)
    with room for ``capacity`` nodes; ``bits[node]`` is the bitset of the
    levels sent left by a categorical split (int64 words)."""
    left, right, feature, threshold, missing_left, counts, bits = nodes
    n = left.shape[0]
    new_left = np.full(capacity, TREE_LEAF, dtype=np.int64)
    new_right = np.full(capacity, TREE_LEAF, dtype=np.int64)
    new_feature = np.full(capacity, TREE_UNDEFINED, dtype=np.int64)
    new_threshold = np.full(capacity, float(TREE_UNDEFINED))
    new_missing = np.zeros(capacity, dtype=np.bool_)
    new_counts = np.zeros((capacity, counts.shape[1]))
    new_bits = np.zeros((capacity, bits.shape[1]), dtype=np.int64)
    new_left[:n] = left
    new_right[:n] = right
    new_feature[:n] = feature
    new_threshold[:n] = threshold
    new_missing[:n] = missing_left
    new_counts[:n] = counts
    new_bits[:n] = bits
    return new_left, new_right, new_feature, new_threshold, new_missing, new_counts, new_bits


@njit(cache=True, nogil=True)
def _empty_nodes(capacity, n_classes, n_words):
    return _grown(
        (
            np.empty(0, dtype=np.int64),
            np.empty(0, dtype=np.int64),
            np.empty(0, dtype=np.int64),
            np.empty(0),
            np.empty(0, dtype=np.bool_),
            np.empty((0, n_classes)),
            np.empty((0, n_words), dtype=np.int64),
        ),
        capacity,
    )


@njit(cache=True, nogil=True)
def _trimmed(nodes, n_nodes):
    left, right, feature, threshold, missing_left, counts, bits = nodes
    return (
        left[:n_nodes].copy(),
        right[:n_nodes].copy(),
        feature[:n_nodes].copy(),
        threshold[:n_nodes].copy(),
        missing_left[:n_nodes].copy(),
        counts[:n_nodes].copy(),
        bits[:n_nodes].copy(),
    )


@njit(cache=True, nogil=True)
def _unfilled_nodes(capacity, n_classes, n_words):
    """Node arrays for ``capacity`` nodes, left uninitialised: each node is
    filled when created (:func:`_new_node`), so pages of the arrays that no
    node reaches are never touched (the bound 2 n - 1 of a tree on n rows is
    reserved up front, without the copies of repeated doubling)."""
    return (
        np.empty(capacity, dtype=np.int64),
        np.empty(capacity, dtype=np.int64),
        np.empty(capacity, dtype=np.int64),
        np.empty(capacity),
        np.empty(capacity, dtype=np.bool_),
        np.empty((capacity, n_classes)),
        np.empty((capacity, n_words), dtype=np.int64),
    )


@njit_no_refcount
def _new_node(nodes, node, parent, is_left):
    """Give ``node`` the arrays' values of a leaf and make it the left (or
    right) child of ``parent`` unless it is the root (``parent < 0``).
    Without reference counting: called per node with the node arrays."""
    left, right, feature, threshold, missing_left, counts, bits = nodes
    if parent >= 0:
        if is_left:
            left[parent] = node
        else:
            right[parent] = node
    left[node] = TREE_LEAF
    right[node] = TREE_LEAF
    feature[node] = TREE_UNDEFINED
    threshold[node] = float(TREE_UNDEFINED)
    missing_left[node] = False
    bits[node] = 0


@njit(cache=True, nogil=True)
def _prefix(nodes, n_nodes):
    """The first ``n_nodes`` nodes, as views (the caller's :class:`Tree`
    copies its arrays; the statistics are copied when the arrays are
    larger, so that they do not keep the whole reservation alive)."""
    left, right, feature, threshold, missing_left, counts, bits = nodes
    c = counts[:n_nodes]
    if n_nodes < counts.shape[0]:
        c = c.copy()
    return (
        left[:n_nodes],
        right[:n_nodes],
        feature[:n_nodes],
        threshold[:n_nodes],
        missing_left[:n_nodes],
        c,
        bits[:n_nodes],
    )


@njit(cache=True, nogil=True, inline="always")
def _is_leaf(settings, counts, n_rows, depth):
    """Stopping rules that need no split search: pure (one class, or for the
    squared error every y equal: a zero sum of squares), at ``max_depth``,
    or too few rows to split."""
    if settings.criterion == SQUARED_ERROR:
        pure = counts[2] <= 0.0
    else:
        n_present = 0
        for k in range(counts.shape[0]):
            n_present += counts[k] > 0.0
        pure = n_present <= 1
    return (
        pure
        or (settings.max_depth >= 0 and depth >= settings.max_depth)
        or n_rows < settings.min_samples_split
        or n_rows < 2 * settings.min_samples_leaf
    )


@njit(cache=True, nogil=True, inline="always")
def _keeps_presorted(settings, n_rows, n_features):
    """Whether a split of ``n_rows`` rows partitions every one of the
    ``n_features`` features not constant there, rather than only its rows:
    yes unless sorting the ``max_features`` features its descendants search
    costs less."""
    return settings.max_features * settings.sort_cost * math.log2(max(n_rows, 2)) >= n_features


@njit_no_refcount
def _evaluate(data, work, settings, segment, counts, features, root_weight):
    """Best admissible split of a node ``segment = (start, end, depth,
    presorted, tables_ready)`` (``tables_ready``: ``work.table`` already
    holds the node's tables, else they are filled here when needed), or
    feature -1 when the node is a leaf: pure, at ``max_depth``, too few rows,
    no valid split, or an impurity decrease (weighted by W_t / W_root,
    scikit-learn's convention) below ``min_impurity_decrease``.

    Returns (feature, threshold, missing_go_to_left, weighted decrease,
    n_kept) with ``features[:n_kept]`` the features not constant here.
    """
    start, end, depth, presorted, tables_ready = segment
    if _is_leaf(settings, counts, end - start, depth):
        return NO_FEATURE, 0.0, False, 0.0, features.shape[0]
    if not tables_ready and work.table_rows.shape[0] > 0:
        fill_tables(data, work.node_rows, (start, end), work.table, work.table_rows)
    feature, threshold, missing_left, proxy, n_kept = find_best_split(
        data, work, settings, (start, end, presorted), counts, features
    )
    if feature == NO_FEATURE:
        return NO_FEATURE, 0.0, False, 0.0, n_kept
    decrease = impurity_decrease(proxy, node_term(counts, settings.criterion), settings.criterion) / root_weight
    # The decrease is never negative in exact arithmetic: with no minimum,
    # a zero-gain split (rounded to -1e-16) is made, as scikit-learn does.
    if settings.min_impurity_decrease > 0.0 and decrease + _EPSILON < settings.min_impurity_decrease:
        return NO_FEATURE, 0.0, False, 0.0, n_kept
    return feature, threshold, missing_left, decrease, n_kept


@njit(cache=True, nogil=True, inline="always")
def _weight(settings, counts):
    """Total weight of a node from its statistics."""
    return counts[0] if settings.criterion == SQUARED_ERROR else counts.sum()


@njit(cache=True, nogil=True)
def _seed(settings, n_features):
    if settings.max_features < n_features or settings.random_thresholds:
        np.random.seed(settings.seed)


@njit(cache=True, nogil=True)
def _grown_rows(a, capacity):
    """The 2-d array ``a`` with room for ``capacity`` rows (a stack of pending nodes)."""
    out = np.empty((capacity, a.shape[1]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit_no_refcount
def _push_children(pending, children, slot):
    """Give the stack slots ``slot + 1`` (left child) and ``slot`` (right
    child: the left one is popped, and numbered, first) the children's
    features not constant and statistics: ``pending = (features, n_features,
    statistics)`` of the stack, ``children = (features, n_features,
    statistics)`` of the two children."""
    pending_features, pending_n_features, pending_counts = pending
    child_features, n_child_features, child_counts = children
    for child, child_slot in ((1, slot), (0, slot + 1)):
        n_child = n_child_features[child]
        copy_into(pending_features[child_slot], child_features[child, :n_child])
        pending_n_features[child_slot] = n_child
        copy_into(pending_counts[child_slot], child_counts[child])


@njit(cache=True, nogil=True)
def _grown_vector(a, capacity):
    """The 1-d array ``a`` with room for ``capacity`` entries."""
    out = np.empty(capacity, dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit_no_refcount
def _route(data, work, settings, surrogates, chosen):
    """Flag the side of the rows of the node split as ``chosen`` (a
    :data:`NodeSplit`, :func:`route_rows`); with surrogate tables
    (``surrogates``, a :data:`._surrogate.SurrogateStore` with room for the
    node) the node's surrogates are found among ``chosen.candidates`` and
    send the rows missing the split feature. Returns (n_left, side of
    missing values)."""
    child_counts, node_counts = chosen.counts
    n_left, m = route_rows(data, work, settings, chosen.segment, chosen.split, child_counts, node_counts, chosen.bits)
    if surrogates.n_found.shape[0] > 0:
        features, sorted_segments = chosen.candidates
        n_left, m = split_with_surrogates(
            data,
            work,
            settings,
            chosen.segment,
            (chosen.split[0], m, n_left),
            chosen.bits,
            surrogates,
            chosen.node,
            child_counts,
            node_counts,
            features,
            sorted_segments,
        )
    return n_left, m


@njit_no_refcount
def _children_tables(data, work, segment, slot, pending):
    """Tables of the two children of the node ``segment = (start, middle,
    end)`` (its rows partitioned, its own tables in ``work.table``) into the
    pending slots ``slot + 1`` (left) and ``slot`` (right): the smaller
    child's counted from its rows, the larger one's the node's less them
    when the weights are integers (exact) and that costs less than counting."""
    start, middle, end = segment
    tables, table_rows = pending
    left_smaller = middle - start <= end - middle
    small_slot, large_slot = (slot + 1, slot) if left_smaller else (slot, slot + 1)
    small = (start, middle) if left_smaller else (middle, end)
    large = (middle, end) if left_smaller else (start, middle)
    fill_tables(data, work.node_rows, small, tables[small_slot], table_rows[small_slot])
    n_slots = data.level_offset.shape[0] - 1
    if data.integer_weight and work.table.shape[0] + table_rows.shape[1] < (large[1] - large[0]) * n_slots:
        subtract_tables(
            work.table,
            work.table_rows,
            tables[small_slot],
            table_rows[small_slot],
            tables[large_slot],
            table_rows[large_slot],
        )
    else:
        fill_tables(data, work.node_rows, large, tables[large_slot], table_rows[large_slot])


@njit_no_refcount
def _split_node(data, work, settings, surrogates, tree, pending, entry):
    """Create the node ``entry = (node, slot, segment)`` of a depth-first
    growth from the pending slot ``slot`` and split it: search, route,
    partition, and give the pending slots ``slot + 1`` (left child) and
    ``slot`` (right child) the children's features, statistics and tables.

    ``tree = (nodes, features, child_features, child_counts)`` (the node
    arrays and the growth's scratch), ``pending = (features, n_features,
    statistics, tables, table rows)`` of the stack, with room for two more
    slots; ``segment = (start, end, depth, parent, is_left, presorted,
    tables_ready)`` as :func:`grow_depth_first` stacks it. Without reference
    counting: it runs once per node, and every array it touches is the
    caller's. Returns (split, rows left, children presorted, children's
    tables ready).
    """
    nodes, features, child_features, child_counts = tree
    pending_features, pending_n_features, pending_counts, pending_tables, pending_table_rows = pending
    node, slot, segment = entry
    start, end, depth, parent, is_left, presorted, tables_ready = segment
    _new_node(nodes, node, parent, is_left)
    left, right, feature, threshold, missing_left, counts, bits = nodes
    node_counts = counts[node]
    copy_into(node_counts, pending_counts[slot])
    n_active = pending_n_features[slot]
    copy_into(features, pending_features[slot, :n_active])
    n_cells = work.table_rows.shape[0]
    if tables_ready and not _is_leaf(settings, node_counts, end - start, depth):
        copy_into(work.table, pending_tables[slot])
        copy_into(work.table_rows, pending_table_rows[slot])
    f, t, m, _, n_kept = _evaluate(
        data,
        work,
        settings,
        (start, end, depth, presorted, tables_ready),
        node_counts,
        features[:n_active],
        _weight(settings, counts[0]),
    )
    if f == NO_FEATURE:
        return False, 0, False, False
    node_bits = bits[node]
    copy_into(node_bits, work.best_bits)
    kept = features[:n_kept]
    if routes_by_levels(data, work, f) and surrogates.n_found.shape[0] == 0:
        # From the node's tables, which its search left in work.table (with
        # surrogates, rows missing the feature are sent by them: row by row).
        n_left, m = route_by_levels(data, work, (start, end), (f, t, m), child_counts, node_bits)
    else:
        # Every kept feature's segment is sorted here unless only some were drawn and searched.
        candidates = (kept, presorted or settings.max_features >= n_active)
        chosen = NodeSplit(node, (start, end), (f, t, m), (child_counts, node_counts), node_bits, candidates)
        n_left, m = _route(data, work, settings, surrogates, chosen)
    # Two children that are leaves already never read their segments.
    n_child_features = (0, 0)
    children_presorted = presorted and _keeps_presorted(settings, end - start, n_kept)
    children_tables = False
    left_read = not _is_leaf(settings, child_counts[0], n_left, depth + 1)
    right_read = not _is_leaf(settings, child_counts[1], end - start - n_left, depth + 1)
    if not (left_read or right_read):
        pass
    elif children_presorted:
        n_child_features = partition(data, work, (start, end, n_left), kept, child_features, (left_read, right_read))
    else:
        # Below here segments are sorted when searched: only the rows move.
        partition_rows(work, (start, end, n_left))
        for child in range(2):
            copy_into(child_features[child], kept)
        n_child_features = (n_kept, n_kept)
    feature[node] = f
    threshold[node] = t
    missing_left[node] = m
    _push_children(
        (pending_features, pending_n_features, pending_counts),
        (child_features, n_child_features, child_counts),
        slot,
    )
    if n_cells > 0 and n_child_features[0] + n_child_features[1] > 0:
        # The node's rows are partitioned: the smaller child's tables are
        # counted, the other's are the node's less those where exact.
        _children_tables(data, work, (start, start + n_left, end), slot, (pending_tables, pending_table_rows))
        children_tables = True
    return True, n_left, children_presorted, children_tables


@njit(cache=True, nogil=True)
def grow_depth_first(data, work, settings, surrogates):
    """Depth-first growth (every node split as soon as it is created).

    Pending nodes keep, in the slot of the stack they occupy, their class
    weights and the features not constant in them. ``surrogates`` is a
    :data:`._surrogate.SurrogateStore`: empty (no surrogates), or with room
    for every node, which then gets its surrogate splits.

    Returns (children_left, children_right, feature, threshold,
    missing_go_to_left, counts, bits) with counts the statistics of every
    node: class weights, or for the squared error (weight, mean, within sum
    of squares), and bits the bitsets of the categorical splits.
    """
    n_features, n_rows = work.index.shape
    n_classes = settings.n_classes
    _seed(settings, n_features)
    # Every leaf holds a row: at most 2 n - 1 nodes.
    nodes = _unfilled_nodes(max(2 * n_rows - 1, 1), n_classes, work.best_bits.shape[0])
    pending_features = np.empty((16, n_features), dtype=np.int64)
    pending_n_features = np.empty(16, dtype=np.int64)
    pending_counts = np.empty((16, n_classes))
    # The tables of pending nodes (see _level_split), filled when their parent is split.
    n_cells = work.table_rows.shape[0]
    pending_tables = np.empty((16 if n_cells > 0 else 0, work.table.shape[0]))
    pending_table_rows = np.empty((16 if n_cells > 0 else 0, n_cells), dtype=np.int64)
    pending_features[0] = np.arange(n_features)
    pending_n_features[0] = n_features
    # The root's statistics: node 0's once it is created.
    node_statistics(data, work, settings, 0, n_rows, pending_counts[0])
    tree = (
        nodes,
        np.empty(n_features, dtype=np.int64),
        np.empty((2, n_features), dtype=np.int64),
        np.empty((2, n_classes)),
    )
    # pending nodes: (start, end, depth, parent, is_left, presorted, tables_ready)
    stack = [(0, n_rows, 0, -1, 0, True, False)]
    n_nodes = 0
    while len(stack) > 0:
        slot = len(stack) - 1
        segment = stack.pop()
        if slot + 2 > pending_counts.shape[0]:
            # Room for the node's two children (the stack only grows by splits).
            capacity = 2 * pending_counts.shape[0]
            pending_features = _grown_rows(pending_features, capacity)
            pending_counts = _grown_rows(pending_counts, capacity)
            if n_cells > 0:
                pending_tables = _grown_rows(pending_tables, capacity)
                pending_table_rows = _grown_rows(pending_table_rows, capacity)
            pending_n_features = _grown_vector(pending_n_features, capacity)
        node = n_nodes
        n_nodes += 1
        split, n_left, children_presorted, children_tables = _split_node(
            data,
            work,
            settings,
            surrogates,
            tree,
            (pending_features, pending_n_features, pending_counts, pending_tables, pending_table_rows),
            (node, slot, segment),
        )
        if split:
            start, end, depth = segment[0], segment[1], segment[2]
            stack.append((start + n_left, end, depth + 1, node, 0, children_presorted, children_tables))
            stack.append((start, start + n_left, depth + 1, node, 1, children_presorted, children_tables))
    return _prefix(nodes, n_nodes)


@njit(cache=True, nogil=True)
def grow_best_first(data, work, settings, surrogates):
    """Best-first growth with at most ``max_leaf_nodes`` leaves: the frontier
    leaf of largest impurity decrease is split next (ties: lowest node id).

    Returns the same arrays as :func:`grow_depth_first`.
    """
    n_features, n_rows = work.index.shape
    _seed(settings, n_features)
    capacity = 2 * settings.max_leaf_nodes
    nodes = _empty_nodes(capacity, settings.n_classes, work.best_bits.shape[0])
    left, right, feature, threshold, missing_left, counts, bits = nodes
    # Features not constant at each node (read off its sorted segments when
    # its parent was partitioned, narrowed by its own search).
    node_features = np.empty((capacity, n_features), dtype=np.int64)
    node_n_features = np.zeros(capacity, dtype=np.int64)
    node_features[0] = np.arange(n_features)
    node_statistics(data, work, settings, 0, n_rows, counts[0])
    root_weight = _weight(settings, counts[0])
    child_counts = np.empty((2, settings.n_classes))
    child_features = np.empty((2, n_features), dtype=np.int64)
    # frontier entries: (decrease, node, start, end, depth, feature, threshold, missing_left)
    frontier = [(0.0, 0, 0, 0, 0, 0, 0.0, False)]
    frontier.pop()
    f, t, m, gain, n_kept = _evaluate(
        data, work, settings, (0, n_rows, 0, True, False), counts[0], node_features[0], root_weight
    )
    node_n_features[0] = n_kept
    bits[0] = work.best_bits
    if f != NO_FEATURE:
        frontier.append((gain, 0, 0, n_rows, 0, f, t, m))
    n_nodes = 1
    n_leaves = 1
    while len(frontier) > 0 and n_leaves < settings.max_leaf_nodes:
        best = 0
        for i in range(1, len(frontier)):
            if frontier[i][0] > frontier[best][0] or (
                frontier[i][0] == frontier[best][0] and frontier[i][1] < frontier[best][1]
            ):
                best = i
        gain, node, start, end, depth, f, t, m = frontier.pop(best)
        kept = node_features[node, : node_n_features[node]]
        chosen = NodeSplit(node, (start, end), (f, t, m), (child_counts, counts[node]), bits[node], (kept, True))
        n_left, m = _route(data, work, settings, surrogates, chosen)
        n_child_features = partition(data, work, (start, end, n_left), kept, child_features)
        feature[node] = f
        threshold[node] = t
        missing_left[node] = m
        left[node] = n_nodes
        right[node] = n_nodes + 1
        for child, (child_start, child_end) in enumerate(((start, start + n_left), (start + n_left, end))):
            child_id = n_nodes + child
            counts[child_id] = child_counts[child]
            n_child = n_child_features[child]
            node_features[child_id, :n_child] = child_features[child, :n_child]
            cf, ct, cm, cgain, c_kept = _evaluate(
                data,
                work,
                settings,
                (child_start, child_end, depth + 1, True, False),
                counts[child_id],
                node_features[child_id, :n_child],
                root_weight,
            )
            node_n_features[child_id] = c_kept
            bits[child_id] = work.best_bits
            if cf != NO_FEATURE:
                frontier.append((cgain, child_id, child_start, child_end, depth + 1, cf, ct, cm))
        n_nodes += 2
        n_leaves += 1
    return _trimmed(nodes, n_nodes)
