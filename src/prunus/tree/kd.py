"""KD partition trees (section 5 of Nguyen & Kpotufe).

The paper normalizes every coordinate by its standard deviation and splits
cells at the median, cycling through the coordinates. A median split is
invariant under rescaling a coordinate, so the standardization changes no
partition; the thresholds are stored in raw units and :meth:`Tree.apply`
routes raw rows.

Split rule (stated precisely, since ties make "the median" ambiguous): a cell
at depth ``d`` with ``k`` training rows is split on coordinate
``j = d mod D``. With the cell's values sorted ``v(1) <= ... <= v(k)``, let
``m = v(ceil(k/2))`` (the lower median); when ``m`` equals the largest value,
``m`` becomes the largest value below it. The threshold is the midpoint of
``m`` and the next larger value in the cell, so the left child holds the rows
with ``x_j <= m`` and both children are non-empty. If coordinate ``j`` is
constant in the cell, the next coordinates ``j+1, j+2, ...`` (cyclically) are
tried; a cell constant in every coordinate is a leaf. A cell is also a leaf
at ``max_depth``, when it has fewer than ``2 * min_samples_leaf`` rows, or
when the split would leave fewer than ``min_samples_leaf`` rows on a side.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ._kernels import partition_rows
from ._tree import Tree
from .dyadic import _check_int, _check_X, _grow_float, _grow_int


def grow_kd(X, max_depth=None, min_samples_leaf=1):
    """Grow the KD tree T0 of a sample by median splits cycling through coordinates.

    Parameters
    ----------
    X : array-like, shape (n_samples, n_features)
    max_depth : int or None
        Depth limit (``None``: grow until the cells cannot be split).
    min_samples_leaf : int
        Every leaf keeps at least this many training rows.

    Returns
    -------
    Tree
        Every cell of the tree holds training rows (no empty cells), so
        |T0| <= 2n - 1.
    """
    X = _check_X(X)
    max_depth = -1 if max_depth is None else _check_int(max_depth, "max_depth", 0)
    min_samples_leaf = _check_int(min_samples_leaf, "min_samples_leaf", 1)
    left, right, feature, threshold = _grow_kd_kernel(X, max_depth, min_samples_leaf)
    return Tree(left, right, feature, threshold, X.shape[1])


@njit(cache=True)
def _grow_kd_kernel(X, max_depth, min_samples_leaf):
    n, D = X.shape
    cap = max(4, 2 * n)  # a binary tree whose leaves hold rows has <= 2n - 1 nodes
    left = np.full(cap, -1, dtype=np.int64)
    right = np.full(cap, -1, dtype=np.int64)
    feature = np.full(cap, -2, dtype=np.int64)
    threshold = np.full(cap, -2.0)
    depth = np.zeros(cap, dtype=np.int64)
    start = np.zeros(cap, dtype=np.int64)
    end = np.zeros(cap, dtype=np.int64)
    idx = np.arange(n)
    end[0] = n
    n_nodes = 1
    node = 0
    # Breadth-first: nodes are created in order, so children get larger ids.
    while node < n_nodes:
        k = end[node] - start[node]
        if k >= 2 * min_samples_leaf and (max_depth < 0 or depth[node] < max_depth):
            vals = np.empty(k)
            for tries in range(D):
                j = (depth[node] + tries) % D
                for p in range(k):
                    vals[p] = X[idx[start[node] + p], j]
                vals.sort()
                if vals[0] == vals[k - 1]:
                    continue
                mi = (k + 1) // 2 - 1
                med = vals[mi]
                if med == vals[k - 1]:
                    # all values from the median up are tied with the maximum
                    while vals[mi] == vals[k - 1]:
                        mi -= 1
                    med = vals[mi]
                # first value strictly above med
                nxt_i = mi + 1
                while vals[nxt_i] == med:
                    nxt_i += 1
                n_left = nxt_i
                if n_left < min_samples_leaf or k - n_left < min_samples_leaf:
                    break
                thr = 0.5 * (med + vals[nxt_i])
                if not thr < vals[nxt_i]:  # midpoint rounded up to the next value
                    thr = med
                feature[node] = j
                threshold[node] = thr
                i = partition_rows(X, idx, start[node], end[node], j, thr)
                if n_nodes + 2 > cap:
                    cap = 2 * cap
                    left = _grow_int(left, cap, -1)
                    right = _grow_int(right, cap, -1)
                    feature = _grow_int(feature, cap, -2)
                    threshold = _grow_float(threshold, cap, -2.0)
                    depth = _grow_int(depth, cap, 0)
                    start = _grow_int(start, cap, 0)
                    end = _grow_int(end, cap, 0)
                left[node] = n_nodes
                right[node] = n_nodes + 1
                start[n_nodes], end[n_nodes] = start[node], i
                start[n_nodes + 1], end[n_nodes + 1] = i, end[node]
                depth[n_nodes] = depth[node] + 1
                depth[n_nodes + 1] = depth[node] + 1
                n_nodes += 2
                break
        node += 1
    return left[:n_nodes].copy(), right[:n_nodes].copy(), feature[:n_nodes].copy(), threshold[:n_nodes].copy()
