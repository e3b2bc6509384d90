"""Incremental error bounds of one feature: a segment tree per pair of classes.

Aziz, Anderton & Aslam, "Adaptively Pruning Features for Boosted Decision
Trees", section 3: after the ``m`` heaviest examples of a node are assessed,
the lower bound of a feature is ``LB = min_t L_m(t)``, the smallest
best-labelling error on the seen examples over its thresholds ``t``. For two
classes ``i < j`` write ``P_t`` for the prefix sum over bins ``<= t`` of the
seen-weight difference ``h_j - h_i``. Labelling the left leaf ``j`` and the
right leaf ``i`` errs ``Z - Z^i - P_t``; the reverse errs ``Z - Z^j + P_t``
(``Z`` the seen weight, ``Z^y`` its class-``y`` part); a leaf pair with one
label errs ``Z - Z^y``. Hence

    LB = max(0, min(Z - max_y Z^y, min_{i<j} min(Z - Z^i - max_t P_t, Z - Z^j + min_t P_t)))

and each class pair needs only the minimum and maximum prefix of its
difference. A segment tree over the threshold bins keeps, per node, the block
sum, its minimum prefix and its maximum prefix; assessing one example of
class ``c`` in bin ``b`` changes the ``|Y| - 1`` pairs holding ``c`` at one
leaf each, so ``b`` examples cost ``O(b |Y| log bins)`` and ``LB`` is read at
the roots in ``O(|Y|^2)``, instead of rescanning ``O(bins |Y|)`` histogram
cells after every batch. A tree is rebuilt from the histogram in
``O(|Y|^2 bins)`` when that is cheaper than the point updates (the initial
pass). The values equal the rescan's up to rounding (the sums are added in
another order); the exact rescan still gives the final value and threshold of
a fully assessed feature.

Layout: ``tsum``, ``tmin``, ``tmax`` are ``(S, pairs, 2 * size)`` arrays,
node 1 the root and leaves ``size + t``; padding leaves (``t >= bins - 1``)
hold sum 0 and an empty prefix range (``+inf``/``-inf``). Pairs are indexed
over the node's present classes ``present[i] < present[j]``.
"""

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def pair_index(i, j, P):
    """Index of the pair ``i < j`` of ``P`` present classes (row-major upper triangle)."""
    return i * (2 * P - i - 1) // 2 + (j - i - 1)


@njit(cache=True, inline="always")
def _pull(tsum, tmin, tmax, s, q, k):
    """Recompute node ``k`` of pair ``q`` of slot ``s`` from its two children."""
    lft = 2 * k
    rgt = lft + 1
    sl = tsum[s, q, lft]
    tsum[s, q, k] = sl + tsum[s, q, rgt]
    a = tmin[s, q, lft]
    b = sl + tmin[s, q, rgt]
    tmin[s, q, k] = a if a < b else b
    a = tmax[s, q, lft]
    b = sl + tmax[s, q, rgt]
    tmax[s, q, k] = a if a > b else b


@njit(cache=True)
def build(hist, s, T, present, tsum, tmin, tmax):
    """Rebuild every pair tree of slot ``s`` from its histogram ``hist[s]`` (thresholds ``0..T-1``)."""
    P = present.shape[0]
    size = tsum.shape[2] // 2
    for i in range(P):
        ci = present[i]
        for j in range(i + 1, P):
            cj = present[j]
            q = pair_index(i, j, P)
            for t in range(T):
                d = hist[s, t, cj] - hist[s, t, ci]
                tsum[s, q, size + t] = d
                tmin[s, q, size + t] = d
                tmax[s, q, size + t] = d
            for t in range(T, size):
                tsum[s, q, size + t] = 0.0
                tmin[s, q, size + t] = np.inf
                tmax[s, q, size + t] = -np.inf
            for k in range(size - 1, 0, -1):
                _pull(tsum, tmin, tmax, s, q, k)


@njit(cache=True, inline="always")
def _leaf_add(tsum, tmin, tmax, s, q, leaf, d):
    v = tsum[s, q, leaf] + d
    tsum[s, q, leaf] = v
    tmin[s, q, leaf] = v
    tmax[s, q, leaf] = v
    k = leaf >> 1
    while k >= 1:
        _pull(tsum, tmin, tmax, s, q, k)
        k >>= 1


@njit(cache=True)
def add_examples(Xb, feat, s, T, idx, yn, wn, start, stop, rank, P, tsum, tmin, tmax):
    """Point-update slot ``s``'s pair trees with examples ``start..stop-1`` of the node.

    ``rank[c]`` is the index of class ``c`` among the present classes. An
    example in the last bin (``b >= T``) is right of every threshold and
    changes no prefix.
    """
    size = tsum.shape[2] // 2
    for e in range(start, stop):
        b = Xb[feat, idx[e]]
        if b >= T:
            continue
        k = rank[yn[e]]
        w = wn[e]
        leaf = size + b
        for i in range(k):  # pairs (i, k): the difference h_k - h_i gains w
            _leaf_add(tsum, tmin, tmax, s, pair_index(i, k, P), leaf, w)
        for j in range(k + 1, P):  # pairs (k, j): h_j - h_k loses w
            _leaf_add(tsum, tmin, tmax, s, pair_index(k, j, P), leaf, -w)


@njit(cache=True, inline="always")
def _prefix_range(tsum, tmin, tmax, s, q, hi):
    """``(min, max)`` of ``P_t`` over ``t < hi`` in pair tree ``q`` of slot ``s`` (top-down, left to right)."""
    size = tsum.shape[2] // 2
    acc = 0.0
    lo_v = np.inf
    hi_v = -np.inf
    k = 1
    start = 0
    width = size
    while hi > start:
        if hi >= start + width:  # node k lies inside the range: append it
            a = acc + tmin[s, q, k]
            lo_v = a if a < lo_v else lo_v
            a = acc + tmax[s, q, k]
            hi_v = a if a > hi_v else hi_v
            break
        width >>= 1
        k = 2 * k
        if hi >= start + width:  # the left child lies inside: append it, go right
            a = acc + tmin[s, q, k]
            lo_v = a if a < lo_v else lo_v
            a = acc + tmax[s, q, k]
            hi_v = a if a > hi_v else hi_v
            acc += tsum[s, q, k]
            k += 1
            start += width
    return lo_v, hi_v


@njit(cache=True)
def lower_bound(seen_tot, s, hi, present, tsum, tmin, tmax):
    """``LB = min_t L_m(t)`` of slot ``s`` from its pair trees (module docstring).

    Only thresholds ``t < hi`` are read, ``hi`` the highest seen bin (capped
    at the number of thresholds): above it every seen example is left, the
    value is ``Z - max_y Z^y`` exactly, and reading it from the trees would
    only add rounding.
    """
    P = present.shape[0]
    if P == 2:  # the two-class form of the running-difference scan, term for term
        z0 = seen_tot[s, present[0]]
        z1 = seen_tot[s, present[1]]
        lb = z0 if z0 < z1 else z1
        if hi > 0:
            pmin, pmax = _prefix_range(tsum, tmin, tmax, s, 0, hi)
            v = z0 + pmin
            lb = v if v < lb else lb
            v = z1 - pmax
            lb = v if v < lb else lb
        return lb if lb > 0.0 else 0.0
    total = 0.0
    top = 0.0
    for i in range(P):
        v = seen_tot[s, present[i]]
        total += v
        top = v if v > top else top
    lb = total - top
    if hi > 0:
        for i in range(P):
            zi = seen_tot[s, present[i]]
            for j in range(i + 1, P):
                zj = seen_tot[s, present[j]]
                pmin, pmax = _prefix_range(tsum, tmin, tmax, s, pair_index(i, j, P), hi)
                v = total - zi - pmax
                lb = v if v < lb else lb
                v = total - zj + pmin
                lb = v if v < lb else lb
    return lb if lb > 0.0 else 0.0
