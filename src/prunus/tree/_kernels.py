"""Numba kernels over the flat arrays of a :class:`~prunus.tree.Tree`.

Every kernel relies on one invariant of ``Tree``: node 0 is the root and every
child has a larger id than its parent, so a reversed loop over node ids visits
children before parents (bottom-up) and a forward loop visits parents first.
"""

import numpy as np

from .._compiled import njit, prange


@njit(cache=True, inline="always")
def _route(row, children_left, children_right, feature, threshold, missing_left):
    """Leaf reached by one row. Reading the row once and carrying the left
    child into the next test (one load per level fewer) makes this about twice
    as fast as indexing ``X[i, feature[node]]`` in the loop: on par with
    scikit-learn's Cython ``apply``. A NaN fails ``<=``, so only rows that
    would go right pay the test for a missing value."""
    node = 0
    left = children_left[0]
    while left != -1:
        value = row[feature[node]]
        if value <= threshold[node] or (value != value and missing_left[node]):
            node = left
        else:
            node = children_right[node]
        left = children_left[node]
    return node


@njit(cache=True, nogil=True)
def apply_kernel(X, children_left, children_right, feature, threshold, missing_left):
    """Leaf id reached by each row of ``X``: left when x[feature] <= threshold,
    and for a missing value (NaN) left when ``missing_left`` holds at the node."""
    n = X.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in range(n):
        out[i] = _route(X[i], children_left, children_right, feature, threshold, missing_left)
    return out


@njit(cache=True, parallel=True)
def apply_kernel_parallel(X, children_left, children_right, feature, threshold, missing_left):
    """Parallel twin of :func:`apply_kernel` for large inputs."""
    n = X.shape[0]
    out = np.empty(n, dtype=np.int64)
    for i in prange(n):
        out[i] = _route(X[i], children_left, children_right, feature, threshold, missing_left)
    return out


@njit(cache=True, nogil=True)
def apply_rows_kernel(X, rows, children_left, children_right, feature, threshold, missing_left):
    """Leaf id of the rows ``X[rows]``, without copying them out of ``X``."""
    out = np.empty(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        out[i] = _route(X[rows[i]], children_left, children_right, feature, threshold, missing_left)
    return out


@njit(cache=True, inline="always")
def _route_categorical(row, children_left, children_right, feature, threshold, missing_left, categories):
    """:func:`_route` for a tree with subset splits. ``categories`` is the
    record ``(is_categorical, bits, n_categories)``: at a node flagged in
    ``is_categorical`` a level code ``c`` (an integer in ``0 .. L - 1`` of the
    feature's ``L = n_categories[f]``) goes left iff bit ``c`` of the node's
    bitset ``bits[node]`` (int64 words) is set; NaN, and any other value (a
    level unknown to the tree), follows ``missing_left``."""
    is_categorical, bits, n_categories = categories
    node = 0
    left = children_left[0]
    while left != -1:
        f = feature[node]
        value = row[f]
        if is_categorical[node]:
            go = missing_left[node]
            if value >= 0.0 and value < n_categories[f] and value == np.floor(value):
                code = np.int64(value)
                go = (bits[node, code >> 6] >> (code & 63)) & 1 == 1
        else:
            go = value <= threshold[node] or (value != value and missing_left[node])
        node = left if go else children_right[node]
        left = children_left[node]
    return node


@njit(cache=True, nogil=True)
def apply_categorical_kernel(X, rows, children_left, children_right, feature, threshold, missing_left, categories):
    """Leaf id of the rows ``X[rows]`` of a tree with subset splits
    (:func:`_route_categorical`), without copying them out of ``X``."""
    out = np.empty(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        out[i] = _route_categorical(
            X[rows[i]], children_left, children_right, feature, threshold, missing_left, categories
        )
    return out


@njit(cache=True, nogil=True)
def leaf_counts_to_node_counts(counts, parent):
    """Add every node's counts into its parent, children first (in place)."""
    for node in range(counts.shape[0] - 1, 0, -1):
        p = parent[node]
        for k in range(counts.shape[1]):
            counts[p, k] += counts[node, k]
    return counts


@njit(cache=True, nogil=True)
def scatter_counts(leaves, y, weight, n_nodes, n_classes):
    """Weighted class histogram per node of the rows' leaves (leaves only)."""
    counts = np.zeros((n_nodes, n_classes), dtype=np.float64)
    for i in range(leaves.shape[0]):
        counts[leaves[i], y[i]] += weight[i]
    return counts


@njit(cache=True, nogil=True)
def scatter_moments(leaves, y, weight, n_nodes):
    """(weight, mean, within sum of squares) of ``y`` per node, from the rows
    of each leaf only (other nodes get zeros; a node without weight has mean
    0). Two passes: the deviations are taken from the leaf's mean and
    corrected by their rounded sum, so a large mean costs no precision; a
    leaf whose values are all equal gets that value and exactly 0."""
    out = np.zeros((n_nodes, 3))
    sums = np.zeros(n_nodes)
    low = np.full(n_nodes, np.inf)
    high = np.full(n_nodes, -np.inf)
    for i in range(leaves.shape[0]):
        t = leaves[i]
        out[t, 0] += weight[i]
        sums[t] += weight[i] * y[i]
        if weight[i] > 0.0:
            low[t] = min(low[t], y[i])
            high[t] = max(high[t], y[i])
    for t in range(n_nodes):
        if out[t, 0] > 0.0:
            out[t, 1] = sums[t] / out[t, 0]
    sums[:] = 0.0
    for i in range(leaves.shape[0]):
        t = leaves[i]
        d = y[i] - out[t, 1]
        sums[t] += weight[i] * d
        out[t, 2] += weight[i] * d * d
    return finish_moments(out, low, high, out[:, 2].copy(), sums)


@njit(cache=True, nogil=True)
def finish_moments(out, low, high, squares, sums):
    """Second pass of the moments of groups of rows: ``out[g]`` = (weight,
    mean, ...) gets the sum of squares ``squares[g]`` of the deviations from
    the mean corrected by their rounded sum ``sums[g]`` (Chan, Golub &
    LeVeque's corrected two-pass algorithm); a group whose values span
    ``[low[g], high[g]]`` with ``low == high`` is pure: that value, exactly 0."""
    for g in range(out.shape[0]):
        if out[g, 0] <= 0.0:
            continue
        if low[g] == high[g]:
            out[g, 1] = low[g]
            out[g, 2] = 0.0
        else:
            out[g, 2] = max(squares[g] - sums[g] * sums[g] / out[g, 0], 0.0)
    return out


@njit(cache=True, nogil=True)
def leaf_moments_to_node_moments(moments, parent):
    """Merge every node's (weight, mean, within sum of squares) into its
    parent's, children first (in place), by the pairwise update of Chan,
    Golub & LeVeque: the sum of squares gains ``delta^2 W_a W_b / W`` with
    ``delta`` the difference of the means, never a difference of raw sums."""
    for node in range(moments.shape[0] - 1, 0, -1):
        p = parent[node]
        w_b = moments[node, 0]
        if w_b <= 0.0:
            continue
        w_a = moments[p, 0]
        w = w_a + w_b
        delta = moments[node, 1] - moments[p, 1]
        moments[p, 1] += delta * (w_b / w)
        moments[p, 2] += moments[node, 2] + delta * delta * (w_a * w_b / w)
        moments[p, 0] = w
    return moments


@njit(cache=True)
def depth_and_parent(children_left, children_right):
    """Parent (-1 at the root) and depth (0 at the root) of every node."""
    n = children_left.shape[0]
    parent = np.full(n, -1, dtype=np.int64)
    depth = np.zeros(n, dtype=np.int64)
    for node in range(n):
        left = children_left[node]
        if left != -1:
            right = children_right[node]
            parent[left] = node
            parent[right] = node
            depth[left] = depth[node] + 1
            depth[right] = depth[node] + 1
    return parent, depth


# Codes of ``structure_error``: the first rule of a tree's arrays that fails, in the order checked.
STRUCTURE_OK = 0
LEAVES_DIFFER = 1
CHILD_ORDER = 2
TWO_PARENTS = 3
UNREACHABLE = 4
FEATURE_RANGE = 5
THRESHOLD_VALUE = 6


@njit(cache=True)
def structure_error(children_left, children_right, feature, threshold, n_features):
    """The first structural rule a tree's node arrays break (``STRUCTURE_OK`` if none).

    The rules are checked one after the other over every node, so that the
    rule reported does not depend on where in the arrays it is broken: leaves
    (-1) at the same nodes of both child arrays; every child id above its
    parent's and below ``n_nodes``; no node the child of two nodes; every
    node but the root reachable (``n_nodes - 1`` children); feature ids in
    ``0 .. n_features - 1`` and thresholds neither NaN nor -inf at internal
    nodes. One compiled pass per rule instead of a dozen array operations:
    trees of a few nodes are built thousands of times per boosting fit.
    """
    n = children_left.shape[0]
    for i in range(n):
        if (children_left[i] == -1) != (children_right[i] == -1):
            return LEAVES_DIFFER
    n_children = 0
    for i in range(n):
        if children_left[i] != -1:
            for c in (children_left[i], children_right[i]):
                if c <= i or c >= n:
                    return CHILD_ORDER
            n_children += 2
    seen = np.zeros(n, dtype=np.bool_)
    for i in range(n):
        if children_left[i] != -1:
            for c in (children_left[i], children_right[i]):
                if seen[c]:
                    return TWO_PARENTS
                seen[c] = True
    if n_children != n - 1:
        return UNREACHABLE
    for i in range(n):
        if children_left[i] != -1 and (feature[i] < 0 or feature[i] >= n_features):
            return FEATURE_RANGE
    for i in range(n):
        if children_left[i] != -1 and (np.isnan(threshold[i]) or threshold[i] == -np.inf):
            return THRESHOLD_VALUE
    return STRUCTURE_OK


@njit(cache=True)
def decision_path_indices(leaves, parent, indptr):
    """CSR column indices of the nodes on each row's path, root first.

    ``indptr[i + 1] - indptr[i]`` is the depth of row i's leaf plus one; the
    path is written from the leaf upwards into the end of the row's slot.
    """
    indices = np.empty(indptr[-1], dtype=np.int64)
    for i in range(leaves.shape[0]):
        node = leaves[i]
        pos = indptr[i + 1] - 1
        while node != -1:
            indices[pos] = node
            pos -= 1
            node = parent[node]
    return indices


@njit(cache=True)
def removed_below(collapse, parent):
    """Nodes with a strict ancestor in the boolean mask ``collapse`` (top-down)."""
    n = parent.shape[0]
    removed = np.zeros(n, dtype=np.bool_)
    for node in range(1, n):
        p = parent[node]
        removed[node] = removed[p] or collapse[p]
    return removed


@njit(cache=True)
def fill_from_parent(values, mask, parent):
    """Rows of ``values`` (2-D) where ``mask`` holds take their parent's row, top-down
    (so a chain of masked nodes inherits from the nearest unmasked ancestor)."""
    for node in range(1, values.shape[0]):
        if mask[node]:
            p = parent[node]
            for k in range(values.shape[1]):
                values[node, k] = values[p, k]
    return values


@njit(cache=True)
def partition_rows(X, idx, start, end, feature, threshold):
    """Reorder ``idx[start:end]`` in place so rows going left come first.

    Uses the routing rule of :meth:`Tree.apply` (left iff x <= threshold), so
    the counts a builder derives from the split always agree with routing.
    Returns the first position of the right part.
    """
    i, k = start, end - 1
    while i <= k:
        if X[idx[i], feature] <= threshold:
            i += 1
        else:
            tmp = idx[i]
            idx[i] = idx[k]
            idx[k] = tmp
            k -= 1
    return i
