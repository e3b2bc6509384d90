"""Dyadic partition trees (section 3.3 and Assumption 2 of Nguyen & Kpotufe).

The data are scaled to ``[0, 1]^D`` by a min-max scaler fitted on the training
sample; every cell is halved at its midpoint, cycling through the coordinates
(coordinate ``depth mod D`` at ``depth``), until the depth ``D0``. Cells
without training points, and cells whose training points are all identical,
are leaves (splitting them further could not separate anything and would only
blow |T0| up).

The scaling is folded into the thresholds: a midpoint ``t`` of the scaled
cube is stored as ``lo + t * (hi - lo)`` in raw units, so routing a raw row
with :meth:`Tree.apply` is the same as scaling it and clipping it to the cube
(a value below ``lo`` goes left at every split, one above ``hi`` goes right).
"""

from __future__ import annotations

import math
from numbers import Integral
from typing import Any

import numpy as np

from .._compiled import njit
from ..utils._param_validation import Interval, validate_params
from ._kernels import partition_rows
from ._tree import Tree

#: default node budget per training row: |T0| stays O(n) (Assumption 2).
NODES_PER_ROW = 8

#: Accepted values of :func:`grow_dyadic`'s sizes (once ``None`` is resolved).
DYADIC_CONSTRAINTS = {
    "max_depth": [Interval(Integral, 0, None, closed="left")],
    "max_nodes": [Interval(Integral, 1, None, closed="left")],
}


def default_dyadic_depth(n_samples: int, n_coordinates: int) -> int:
    """``D0 = D * ceil(log2 n)``, the order of Assumption 2 (D0 = O(D log n))."""
    return int(max(1, n_coordinates) * max(1, math.ceil(math.log2(max(n_samples, 2)))))


def grow_dyadic(X: Any, max_depth: int | None = None, max_nodes: int | None = None) -> Tree:
    """Grow the dyadic tree T0 of a sample.

    Parameters
    ----------
    X : array-like, shape (n_samples, n_features)
        Training rows (finite).
    max_depth : int or None
        The depth ``D0``. ``None`` means ``D * ceil(log2 n)`` where ``D``
        counts the non-constant coordinates (Assumption 2: D0 = O(D log n)).
    max_nodes : int or None
        Cap on |T0| (Assumption 2: |T0| = O(n)). The tree is grown level by
        level and stops before the first level that would exceed the cap, so
        every level is complete. ``None`` means ``8 * n + 1``.

    Returns
    -------
    Tree
        Nodes numbered depth-first (preorder). Splits on coordinate
        ``coords[depth mod D]`` at the midpoint of the cell, in raw units. ``coords`` are the non-constant coordinates in
        increasing order (a constant coordinate cannot be halved usefully:
        every row would fall on one side).
    """
    X = _check_X(X)
    n, n_features = X.shape
    lo = X.min(axis=0)
    hi = X.max(axis=0)
    coords = np.flatnonzero(hi > lo).astype(np.int64)
    if max_depth is None:
        max_depth = default_dyadic_depth(n, coords.shape[0])
    if max_nodes is None:
        max_nodes = NODES_PER_ROW * n + 1
    validate_params(DYADIC_CONSTRAINTS, {"max_depth": max_depth, "max_nodes": max_nodes}, "grow_dyadic")
    max_depth, max_nodes = int(max_depth), int(max_nodes)
    if coords.shape[0] == 0:
        max_depth = 0
    left, right, feature, threshold = _grow_dyadic_kernel(
        X, _row_ids(X[:, coords]), coords, lo, hi, max_depth, max_nodes
    )
    # The tree is grown level by level; numbering it depth-first instead puts
    # every left child right after its parent, which makes routing rows down
    # the deep dyadic tree several times faster (fewer cache misses).
    order = _preorder(left, right)
    new_id = np.empty_like(order)
    new_id[order] = np.arange(order.shape[0])
    left, right = left[order], right[order]
    left = np.where(left >= 0, new_id[np.maximum(left, 0)], -1)
    right = np.where(right >= 0, new_id[np.maximum(right, 0)], -1)
    return Tree(left, right, feature[order], threshold[order], n_features)


def _row_ids(Z):
    """Integer id per row, equal iff the rows are identical (lexsort, faster than unique(axis=0))."""
    n = Z.shape[0]
    if Z.shape[1] == 0:
        return np.zeros(n, dtype=np.int64)
    order = np.lexsort(Z.T[::-1])
    s = Z[order]
    new_row = np.empty(n, dtype=np.int64)
    new_row[0] = 0
    new_row[1:] = np.any(s[1:] != s[:-1], axis=1)
    ids = np.empty(n, dtype=np.int64)
    ids[order] = np.cumsum(new_row)
    return ids


@njit(cache=True)
def _preorder(left, right):
    """Node ids in depth-first preorder (left branch first)."""
    n = left.shape[0]
    order = np.empty(n, dtype=np.int64)
    stack = np.empty(n, dtype=np.int64)
    stack[0] = 0
    top, k = 1, 0
    while top > 0:
        top -= 1
        node = stack[top]
        order[k] = node
        k += 1
        if left[node] != -1:
            stack[top] = right[node]
            stack[top + 1] = left[node]
            top += 2
    return order


@njit(cache=True)
def _grow_dyadic_kernel(X, row_id, coords, lo, hi, max_depth, max_nodes):
    n = X.shape[0]
    m = coords.shape[0]
    cap = 64
    left = np.full(cap, -1, dtype=np.int64)
    right = np.full(cap, -1, dtype=np.int64)
    feature = np.full(cap, -2, dtype=np.int64)
    threshold = np.full(cap, -2.0)
    # Extent of each cell along the coordinate it is split on, in [0, 1] units.
    cell_lo = np.zeros(cap)
    cell_hi = np.ones(cap)
    parent = np.full(cap, -1, dtype=np.int64)
    start = np.zeros(cap, dtype=np.int64)
    end = np.zeros(cap, dtype=np.int64)
    idx = np.arange(n)
    end[0] = n
    n_nodes = 1
    level_first, level_last = 0, 1  # nodes of the current level: [first, last)
    depth = 0
    while depth < max_depth:
        # Which cells of this level split: at least two distinct rows.
        n_split = 0
        for node in range(level_first, level_last):
            if end[node] - start[node] >= 2:
                rmin = row_id[idx[start[node]]]
                rmax = rmin
                for p in range(start[node] + 1, end[node]):
                    r = row_id[idx[p]]
                    if r < rmin:
                        rmin = r
                    if r > rmax:
                        rmax = r
                if rmin != rmax:
                    n_split += 1
                    feature[node] = -3  # mark; set below
        if n_split == 0 or n_nodes + 2 * n_split > max_nodes:
            for node in range(level_first, level_last):
                feature[node] = -2
            break
        if n_nodes + 2 * n_split > cap:
            new_cap = max(2 * cap, n_nodes + 2 * n_split)
            left = _grow_int(left, new_cap, -1)
            right = _grow_int(right, new_cap, -1)
            feature = _grow_int(feature, new_cap, -2)
            threshold = _grow_float(threshold, new_cap, -2.0)
            cell_lo = _grow_float(cell_lo, new_cap, 0.0)
            cell_hi = _grow_float(cell_hi, new_cap, 1.0)
            parent = _grow_int(parent, new_cap, -1)
            start = _grow_int(start, new_cap, 0)
            end = _grow_int(end, new_cap, 0)
            cap = new_cap
        j = coords[depth % m]
        span = hi[j] - lo[j]
        for node in range(level_first, level_last):
            if feature[node] != -3:
                continue
            # The cell's extent along j was set by the ancestor m levels up,
            # the last one split on j (or is the whole [0, 1] above depth m).
            a, b = 0.0, 1.0
            if depth >= m:
                child = node
                for _ in range(m - 1):
                    child = parent[child]
                anc = parent[child]
                t_anc = 0.5 * (cell_lo[anc] + cell_hi[anc])
                if left[anc] == child:
                    a, b = cell_lo[anc], t_anc
                else:
                    a, b = t_anc, cell_hi[anc]
            cell_lo[node] = a
            cell_hi[node] = b
            t = 0.5 * (a + b)
            thr = lo[j] + t * span
            feature[node] = j
            threshold[node] = thr
            # Partition with the raw threshold, exactly as Tree.apply routes.
            i = partition_rows(X, idx, start[node], end[node], j, thr)
            for c in range(2):
                child = n_nodes
                n_nodes += 1
                parent[child] = node
                if c == 0:
                    left[node] = child
                    start[child], end[child] = start[node], i
                else:
                    right[node] = child
                    start[child], end[child] = i, end[node]
        level_first, level_last = level_last, n_nodes
        depth += 1
    return left[:n_nodes].copy(), right[:n_nodes].copy(), feature[:n_nodes].copy(), threshold[:n_nodes].copy()


@njit(cache=True)
def _grow_int(a, cap, fill):
    out = np.full(cap, fill, dtype=np.int64)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def _grow_float(a, cap, fill):
    out = np.full(cap, fill)
    out[: a.shape[0]] = a
    return out


def _check_X(X):
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array, got an array with {X.ndim} dimension(s).")
    if X.shape[0] == 0 or X.shape[1] == 0:
        raise ValueError(f"X must have at least one row and one column, got shape {X.shape}.")
    if not np.isfinite(X).all():
        raise ValueError("X contains NaN or infinity.")
    return np.ascontiguousarray(X)
