"""KD partition trees (section 5 of Nguyen & Kpotufe).

The paper normalizes every coordinate by its standard deviation before
building KD trees and splits cells at the median. Which coordinate a cell is
split on is the split rule:

* ``split="spread"`` (default, the usual KD-tree rule): the coordinate of
  largest spread of the standardized data, the spread of coordinate ``j`` in
  a cell being the variance of the cell's rows divided by the variance of
  ``x_j`` over the whole training sample (the paper's normalization by the
  standard deviation). Ties, up to a relative 1e-9 so that rounding never
  decides (at the root every standardized variance is 1), go to the lowest
  coordinate.
* ``split="range"``: the same with the range ``(max - min) / sd`` as the
  spread, the other common KD-tree rule. Measured against the variance on
  digits, satimage, spam and letter (training sets of at most 3000 rows, two
  random splits each, PAC-Bayes tree and default pruning with 2-fold CV), the
  variance gave the lower test error on 7 of the 8 splits (digits: 0.29-0.32
  against 0.41-0.42; letter: 0.34-0.35 against 0.36; spam: mixed): a range is
  set by the most extreme rows of a cell, and on pixel-like features a few
  outlying rows make a coordinate look wide, so the variance is the default.
* ``split="cycle"``: coordinate ``d mod D`` at depth ``d``. A median split is
  invariant under rescaling a coordinate, so with cycling the normalization
  changes no partition; but a depth-capped cycling tree on many features
  only ever splits the first ones (test errors of 0.59-0.62 on digits in
  the same runs).

The thresholds are stored in raw units and :meth:`Tree.apply` routes raw
rows; the standardization only ranks coordinates, and it is exact under
multiplying a feature by a power of two: the spreads are computed on every
coordinate scaled by the power of two that brings its largest magnitude into
[0.5, 1), so that no variance overflows or underflows even for features of
magnitude 2^±1000.

Median split (stated precisely, since ties make "the median" ambiguous): a
cell with ``k`` training rows split on coordinate ``j``, with the cell's
values sorted ``v(1) <= ... <= v(k)``: let ``m = v(ceil(k/2))`` (the lower
median); when ``m`` equals the largest value, ``m`` becomes the largest value
below it. The threshold is the midpoint of ``m`` and the next larger value in
the cell, so the left child holds the rows with ``x_j <= m`` and both
children are non-empty. With cycling, if coordinate ``j`` is constant in the
cell, the next coordinates ``j+1, j+2, ...`` (cyclically) are tried; the
spread and range rules never pick a constant coordinate. A cell constant
in every coordinate is a leaf. A cell is also a leaf at ``max_depth``, when it
has fewer than ``2 * min_samples_leaf`` rows, or when the median split would
leave fewer than ``min_samples_leaf`` rows on a side.
"""

from __future__ import annotations

from numbers import Integral
from typing import Any

import numpy as np

from .._compiled import njit
from ..utils._param_validation import Interval, StrOptions, validate_params
from ._kernels import partition_rows
from ._tree import Tree
from .dyadic import _check_X, _grow_float, _grow_int

SPLITS = ("spread", "cycle", "range")
#: spreads within this relative factor tie (rounding must not decide: at the
#: root every standardized variance is 1 up to rounding).
TIE_TOL = 1.0 + 1e-9

#: Accepted values of :func:`grow_kd`'s settings.
KD_CONSTRAINTS = {
    "max_depth": [Interval(Integral, 0, None, closed="left"), None],
    "min_samples_leaf": [Interval(Integral, 1, None, closed="left")],
    "split": [StrOptions(set(SPLITS))],
}


def grow_kd(X: Any, max_depth: int | None = None, min_samples_leaf: int = 1, split: str = "spread") -> Tree:
    """Grow the KD tree T0 of a sample by median splits.

    Parameters
    ----------
    X : array-like, shape (n_samples, n_features)
        The sample whose medians place the splits (finite values).
    max_depth : int or None
        Depth limit (``None``: grow until the cells cannot be split).
    min_samples_leaf : int
        Every leaf keeps at least this many training rows.
    split : {"spread", "cycle", "range"}
        Which coordinate a cell is split on (see the module docstring):
        largest variance of the standardized data (default), cycling through
        the coordinates, or largest range of the standardized data.

    Returns
    -------
    Tree
        Every cell of the tree holds training rows (no empty cells), so
        |T0| <= 2n - 1.
    """
    X = _check_X(X)
    validate_params(
        KD_CONSTRAINTS, {"max_depth": max_depth, "min_samples_leaf": min_samples_leaf, "split": split}, "grow_kd"
    )
    max_depth = -1 if max_depth is None else int(max_depth)
    min_samples_leaf = int(min_samples_leaf)
    # Each coordinate is first multiplied by a power of two that brings its
    # largest magnitude into [0.5, 1): exact, so every spread, median and
    # midpoint is the same number scaled, but no variance overflows (|x| near
    # 2^1000) or underflows (|x| near 2^-1000). Thresholds go back to raw units.
    scale = _power_of_two_scale(X)
    Xs = X * scale
    sd = Xs.std(axis=0)
    inv_sd = np.divide(1.0, sd, out=np.zeros_like(sd), where=sd > 0)
    left, right, feature, threshold = _grow_kd_kernel(Xs, max_depth, min_samples_leaf, SPLITS.index(split), inv_sd)
    internal = left >= 0
    threshold[internal] = threshold[internal] / scale[feature[internal]]
    return Tree(left, right, feature, threshold, X.shape[1])


def _power_of_two_scale(X: np.ndarray) -> np.ndarray:
    """Per coordinate, ``2^-e`` with ``e`` the binary exponent of its largest magnitude (1 for a zero column)."""
    _, exponent = np.frexp(np.abs(X).max(axis=0))
    return np.ldexp(1.0, -exponent.astype(np.int64)).astype(np.float64)


@njit(cache=True, nogil=True)
def _widest_coordinate(X, idx, start, end, mode, inv_sd):
    """Coordinate of largest standardized variance (mode 0) or range (mode 2); -1 if all constant."""
    D = X.shape[1]
    best, best_val = -1, -1.0
    k = end - start
    for j in range(D):
        lo = X[idx[start], j]
        hi = lo
        total = 0.0
        for p in range(start, end):
            v = X[idx[p], j]
            lo = min(lo, v)
            hi = max(hi, v)
            total += v
        if not hi > lo:
            continue
        if mode == 2:
            val = (hi - lo) * inv_sd[j]
        else:
            mean = total / k
            ss = 0.0
            for p in range(start, end):
                d = X[idx[p], j] - mean
                ss += d * d
            val = ss / k * inv_sd[j] * inv_sd[j]
        if val > best_val * TIE_TOL:
            best, best_val = j, val
    return best


@njit(cache=True)
def _grow_kd_kernel(X, max_depth, min_samples_leaf, split_mode, inv_sd):
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
            widest = -1
            n_tries = D
            if split_mode != 1:
                widest = _widest_coordinate(X, idx, start[node], end[node], split_mode, inv_sd)
                n_tries = 1 if widest >= 0 else 0
            for tries in range(n_tries):
                j = (depth[node] + tries) % D if split_mode == 1 else widest
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
