"""Split search for one tree node: exhaustive, Quick Boost and Adaptive-Pruning.

All three strategies share one ``assess`` kernel (add a batch of examples to a
feature's per-bin weighted class histogram, in decreasing-weight order) and
one ``bounds`` kernel (the uncertainty interval [L_m, U_m] of every stump of a
feature after its first ``m`` examples, section 3 of Aziz, Anderton & Aslam).
Because every strategy adds the examples of a feature to its histogram in the
same order, the histograms of fully assessed features are bit-identical across
strategies and the final choice (lowest value, then lowest feature index, then
lowest threshold) is the same split.

Values are *unnormalized*: the error criterion works with weighted error sums
``eps`` (L_m = eps_m / Z_n in the paper) and the entropy criterion with
``Z_n * eps_n`` (Appendix B, eq. 3). A stump is a (feature, bin threshold t)
pair with its best labelling: examples with bin ``<= t`` go left.

Assessments are counted per feature as the number ``m_k`` of the node's
examples added to its histogram (one example evaluated for one feature).
"""

import numpy as np
from numba import njit

EXHAUSTIVE, QUICK, ADAPTIVE, LOWER_FIRST = 0, 1, 2, 3
STRATEGIES = {"exhaustive": EXHAUSTIVE, "quick": QUICK, "adaptive": ADAPTIVE}
ADAPTIVE_RULES = {"gap": ADAPTIVE, "lower_first": LOWER_FIRST}  # split_search="adaptive"
ERROR, ENTROPY = 0, 1
AUTO_DIV = 2  # ~ assessments per rescan of one (bin, class) cell, measured on satimage/letter/digits
CRITERIA = {"error": ERROR, "entropy": ENTROPY}


@njit(cache=True)
def _assess(Xb, feat, slot, idx, yn, wn, start, stop, hist, seen_tot, brange, occ):
    """``f_k.assess(batch)``: add examples ``start..stop-1`` of the node to feature ``feat``.

    ``brange[slot]`` tracks the lowest and highest bin seen: thresholds outside
    that range leave every seen example on one side and need no scan.
    """
    lo = brange[slot, 0]
    hi = brange[slot, 1]
    for i in range(start, stop):
        b = Xb[feat, idx[i]]
        c = yn[i]
        w = wn[i]
        hist[slot, b, c] += w
        seen_tot[slot, c] += w
        occ[slot, b] = 1
        if b < lo:
            lo = b
        if b > hi:
            hi = b
    brange[slot, 0] = lo
    brange[slot, 1] = hi


@njit(cache=True)
def _entropy_sum(v):
    """``Z * H`` of a weighted class histogram (bits): ``-sum_y v_y lg(v_y / Z)``."""
    z = 0.0
    for c in range(v.shape[0]):
        z += v[c]
    if z <= 0.0:
        return 0.0
    h = 0.0
    for c in range(v.shape[0]):
        if v[c] > 0.0:
            h -= v[c] * np.log2(v[c] / z)
    return h


@njit(cache=True)
def _entropy_upper(u, unseen_cls, w, lg_c):
    """Upper bound on ``Z_rho * eps_rho`` of one leaf (Appendix B, eq. 3).

    ``u`` is the leaf's seen class weight, ``w`` the node's total unseen weight
    and ``unseen_cls`` its split by label. Lemma 1 bounds the KL term by
    ``lg((Z_u + w) / Z_u^y)``; when no unseen example has label ``y`` the
    second probability ratio in its proof is 0, so ``lg((Z_u + w) / Z_u)``
    suffices, which makes the bound exact once every example is seen. The
    trivial bound ``(Z_u + w) lg|Y|`` caps it (and covers ``Z_u^y = 0``).
    """
    zu = 0.0
    for c in range(u.shape[0]):
        zu += u[c]
    if w <= 0.0:
        return _entropy_sum(u)
    trivial = (zu + w) * lg_c
    if zu <= 0.0:
        return trivial
    total = _entropy_sum(u) + w * lg_c
    for c in range(u.shape[0]):
        wy = unseen_cls[c]
        zy = u[c] + wy
        if zy <= 0.0:
            continue
        if wy <= 0.0:
            total += zy * np.log2((zu + w) / zu)
        elif u[c] <= 0.0:
            return trivial
        else:
            total += zy * np.log2((zu + w) / u[c])
    return min(total, trivial)


@njit(cache=True)
def threshold_bounds(h, nb, seen_tot, unseen_cls, unseen, criterion, lg_c, L, U, left, right):
    """Fill ``L[t]``, ``U[t]`` (t = 0..nb-2): the interval of every stump of one feature.

    Error: ``L`` is the best-labelling error on the seen examples (leaves take
    the weighted-majority label) and ``U = L + unseen weight``. Entropy: ``L``
    is the seen conditional entropy (eq. 2) and ``U`` the bound of eq. 3.
    """
    C = left.shape[0]
    for c in range(C):
        left[c] = 0.0
    for t in range(nb - 1):
        for c in range(C):
            left[c] += h[t, c]
        if criterion == 0:
            sl = 0.0
            sr = 0.0
            ml = 0.0
            mr = 0.0
            for c in range(C):
                lv = left[c]
                rv = seen_tot[c] - lv
                if rv < 0.0:
                    rv = 0.0
                sl += lv
                sr += rv
                if lv > ml:
                    ml = lv
                if rv > mr:
                    mr = rv
            e = (sl - ml) + (sr - mr)
            L[t] = e
            U[t] = e + unseen
        else:
            for c in range(C):
                rv = seen_tot[c] - left[c]
                right[c] = rv if rv > 0.0 else 0.0
            L[t] = _entropy_sum(left) + _entropy_sum(right)
            if unseen <= 0.0:
                U[t] = L[t]
            else:
                U[t] = _entropy_upper(left, unseen_cls, unseen, lg_c) + _entropy_upper(
                    right, unseen_cls, unseen, lg_c)


@njit(cache=True, inline="always")
def _mx(a, b):
    # A plain select: the builtin ``max`` compiles to a branch, which
    # mispredicts on irregular histograms and dominated the scan.
    return a if a > b else b


@njit(cache=True, inline="always")
def _mn(a, b):
    return a if a < b else b


@njit(cache=True, inline="always")
def _scan2(hist, slot, seen_tot, cls, nz, cnt, L, U, first):
    c0, c1 = cls[0], cls[1]
    t0, t1 = seen_tot[slot, c0], seen_tot[slot, c1]
    r0 = 0.0
    r1 = 0.0
    for j in range(cnt):
        t = nz[j]
        r0 += hist[slot, t, c0]
        r1 += hist[slot, t, c1]
        ml = _mx(r0, r1)
        mr = _mx(t0 - r0, t1 - r1)
        if first:
            L[j] = ml
            U[j] = mr
        else:
            L[j] = _mx(L[j], ml)
            U[j] = _mx(U[j], mr)


@njit(cache=True, inline="always")
def _scan4(hist, slot, seen_tot, cls, nz, cnt, L, U, first):
    c0, c1, c2, c3 = cls[0], cls[1], cls[2], cls[3]
    t0, t1, t2, t3 = seen_tot[slot, c0], seen_tot[slot, c1], seen_tot[slot, c2], seen_tot[slot, c3]
    r0 = 0.0
    r1 = 0.0
    r2 = 0.0
    r3 = 0.0
    for j in range(cnt):
        t = nz[j]
        r0 += hist[slot, t, c0]
        r1 += hist[slot, t, c1]
        r2 += hist[slot, t, c2]
        r3 += hist[slot, t, c3]
        ml = _mx(_mx(r0, r1), _mx(r2, r3))
        mr = _mx(_mx(t0 - r0, t1 - r1), _mx(t2 - r2, t3 - r3))
        if first:
            L[j] = ml
            U[j] = mr
        else:
            L[j] = _mx(L[j], ml)
            U[j] = _mx(U[j], mr)


@njit(cache=True, inline="always")
def _scan8(hist, slot, seen_tot, cls, nz, cnt, L, U, first):
    c0, c1, c2, c3, c4, c5, c6, c7 = cls[0], cls[1], cls[2], cls[3], cls[4], cls[5], cls[6], cls[7]
    t0, t1, t2, t3 = seen_tot[slot, c0], seen_tot[slot, c1], seen_tot[slot, c2], seen_tot[slot, c3]
    t4, t5, t6, t7 = seen_tot[slot, c4], seen_tot[slot, c5], seen_tot[slot, c6], seen_tot[slot, c7]
    r0 = 0.0
    r1 = 0.0
    r2 = 0.0
    r3 = 0.0
    r4 = 0.0
    r5 = 0.0
    r6 = 0.0
    r7 = 0.0
    for j in range(cnt):
        t = nz[j]
        r0 += hist[slot, t, c0]
        r1 += hist[slot, t, c1]
        r2 += hist[slot, t, c2]
        r3 += hist[slot, t, c3]
        r4 += hist[slot, t, c4]
        r5 += hist[slot, t, c5]
        r6 += hist[slot, t, c6]
        r7 += hist[slot, t, c7]
        ml = _mx(_mx(_mx(r0, r1), _mx(r2, r3)), _mx(_mx(r4, r5), _mx(r6, r7)))
        mr = _mx(_mx(_mx(t0 - r0, t1 - r1), _mx(t2 - r2, t3 - r3)),
                 _mx(_mx(t4 - r4, t5 - r5), _mx(t6 - r6, t7 - r7)))
        if first:
            L[j] = ml
            U[j] = mr
        else:
            L[j] = _mx(L[j], ml)
            U[j] = _mx(U[j], mr)


@njit(cache=True)
def _error_summary(hist, slot, nb, seen_tot, brange, present, L, U, tie, occ, nz, cls, want_t):
    """Error criterion fast path: ``(min_t L_t, lowest t within tie of it)``.

    The best-labelling error of threshold ``t`` on the seen examples is
    ``Z_seen - max_y left_y(t) - max_y right_y(t)``. Only thresholds at
    occupied bins inside the seen range are evaluated: outside the range
    every seen example is on one side (the constant value
    ``Z_seen - max_y Z_seen^y``), and a threshold at an empty bin has the
    value of the occupied bin below it, which is also lower (the tie rule
    would never pick it). Classes are scanned in groups whose running sums
    stay in registers while ``L`` and ``U`` collect the left and right maxima.
    """
    T = nb - 1
    total = 0.0
    top = 0.0
    for ci in range(present.shape[0]):
        v = seen_tot[slot, present[ci]]
        total += v
        top = _mx(top, v)
    const = _mx(total - top, 0.0)
    lo = brange[slot, 0]
    hi = _mn(brange[slot, 1], T)  # thresholds t in [lo, hi) split the seen examples
    lb = np.inf
    if lo > 0 or hi < T:
        lb = const
    # Branch-free compaction of the occupied bins: the occupancy pattern is
    # irregular, and a branch per bin costs more in mispredictions than the scan.
    cnt = 0
    for t in range(lo, hi):
        nz[cnt] = t
        cnt += occ[slot, t]
    if cnt > 0:
        P = present.shape[0]
        # Classes in groups of 8, then 4 or 2 for the rest, padded by
        # repeating a class, which changes no maximum: independent running
        # sums hide the add latency of a prefix sum.
        g0 = 0
        while g0 < P:
            G = 8 if P - g0 > 4 else (4 if P - g0 > 2 else 2)
            for j in range(G):
                cls[j] = present[g0 + j] if g0 + j < P else present[g0]
            if G == 2:
                _scan2(hist, slot, seen_tot, cls, nz, cnt, L, U, g0 == 0)
            elif G == 4:
                _scan4(hist, slot, seen_tot, cls, nz, cnt, L, U, g0 == 0)
            else:
                _scan8(hist, slot, seen_tot, cls, nz, cnt, L, U, g0 == 0)
            g0 += G
        for j in range(cnt):
            e = _mx(total - L[j] - U[j], 0.0)
            L[j] = e
            lb = _mn(lb, e)
    if not want_t:
        return lb, -1
    if lo > 0 and const <= lb + tie:
        return lb, 0
    for j in range(cnt):
        if L[j] <= lb + tie:
            return lb, nz[j]
    return lb, _mx(hi, 0)


@njit(cache=True)
def _error_summary_binary(hist, slot, nb, seen_tot, brange, c0, c1, tie, want_t):
    """``_error_summary`` for two present classes ``c0``, ``c1``, in one running difference.

    With ``P_t`` the prefix sum of ``h_c1 - h_c0`` over bins ``<= t``, the four
    labellings of threshold ``t`` err ``Z^c1``, ``Z^c0``, ``Z^c0 + P_t`` and
    ``Z^c1 - P_t``, so ``min_t L_t`` needs only ``min_t P_t`` and ``max_t P_t``:
    one add per bin instead of two class sums and two maxima. Empty bins add
    0 and repeat the value of the bin below, which the tie rule prefers, so
    no compaction of occupied bins is needed.
    """
    T = nb - 1
    z0 = seen_tot[slot, c0]
    z1 = seen_tot[slot, c1]
    const = _mn(z0, z1)
    lo = brange[slot, 0]
    hi = _mn(brange[slot, 1], T)  # thresholds t in [lo, hi) split the seen examples
    lb = np.inf
    if lo > 0 or hi < T:
        lb = const
    p = 0.0
    pmin = np.inf
    pmax = -np.inf
    for t in range(lo, hi):
        p += hist[slot, t, c1] - hist[slot, t, c0]
        pmin = _mn(pmin, p)
        pmax = _mx(pmax, p)
    if hi > lo:
        lb = _mn(lb, _mx(_mn(const, _mn(z0 + pmin, z1 - pmax)), 0.0))
    if not want_t:
        return lb, -1
    if lo > 0 and const <= lb + tie:
        return lb, 0
    p = 0.0
    for t in range(lo, hi):
        p += hist[slot, t, c1] - hist[slot, t, c0]
        if _mx(_mn(const, _mn(z0 + p, z1 - p)), 0.0) <= lb + tie:
            return lb, t
    return lb, _mx(hi, 0)


@njit(cache=True)
def _summary(slot, hist, nbins, seen_tot, node_tot, unseen, criterion, lg_c, L, U, left, right, unseen_cls,
             tie, brange, present, occ, nz, cls):
    """Feature-level ``LB()``, ``UB()`` and ``bestStump()``.

    ``bestStump()`` is the lowest threshold whose value is within ``tie`` of
    the minimum: values that differ only by rounding count as ties.
    """
    nb = nbins[slot]
    if criterion == 0:
        if present.shape[0] == 2:
            lb, tb = _error_summary_binary(hist, slot, nb, seen_tot, brange, present[0], present[1], tie,
                                            unseen <= 0.0)
        else:
            lb, tb = _error_summary(hist, slot, nb, seen_tot, brange, present, L, U, tie, occ, nz, cls, unseen <= 0.0)
        return lb, lb + unseen, tb
    C = node_tot.shape[0]
    for c in range(C):
        v = node_tot[c] - seen_tot[slot, c]
        unseen_cls[c] = v if v > 0.0 else 0.0
    threshold_bounds(hist[slot], nb, seen_tot[slot], unseen_cls, unseen, criterion, lg_c, L, U, left, right)
    lb = np.inf
    ub = np.inf
    for t in range(nb - 1):
        if L[t] < lb:
            lb = L[t]
        if U[t] < ub:
            ub = U[t]
    tb = -1
    for t in range(nb - 1):
        if L[t] <= lb + tie:
            tb = t
            break
    return lb, ub, tb


@njit(cache=True, inline="always")
def _batch_floor(min_batch, brange, slot, n_present):
    """Minimum batch size of a feature: ``min_batch``, or automatic when ``min_batch == 0``.

    A rescan after a batch costs O(bins in the seen range x classes) while
    one assessment costs a few nanoseconds; the automatic floor makes a batch
    at least (seen bins x present classes) / AUTO_DIV examples long, so that
    the rescan does not dominate the batch it follows.
    """
    if min_batch > 0:
        return min_batch
    width = brange[slot, 1] - brange[slot, 0] + 1
    if width < 1:
        width = 1
    return 1 + (width * n_present) // AUTO_DIV


@njit(cache=True)
def _advance(Zp, m, gap, n, min_batch):
    """Smallest index m' >= m + min_batch with ``Z_{m'} >= Z_m + gap`` (Algorithm 1's batch end)."""
    target = Zp[m] + (gap if gap > 0.0 else 0.0)
    j = np.searchsorted(Zp, target)
    if j < m + min_batch:
        j = m + min_batch
    if j > n:
        j = n
    return j


@njit(cache=True)
def _first_index(Zp, target):
    j = np.searchsorted(Zp, target)
    if j < 1:
        j = 1
    if j > Zp.shape[0] - 1:
        j = Zp.shape[0] - 1
    return j


@njit(cache=True)
def node_stats(yn, wn, n_classes):
    """Prefix weights ``Z_m`` and class totals of a node's examples (in their order)."""
    n = yn.shape[0]
    Zp = np.empty(n + 1)
    Zp[0] = 0.0
    node_tot = np.zeros(n_classes)
    for i in range(n):
        Zp[i + 1] = Zp[i] + wn[i]
        node_tot[yn[i]] += wn[i]
    return Zp, node_tot


@njit(cache=True)
def _lg_classes(node_tot):
    present = 0
    for c in range(node_tot.shape[0]):
        if node_tot[c] > 0.0:
            present += 1
    return np.log2(present) if present > 1 else 0.0


@njit(cache=True)
def _argmin_first(v, S):
    """Lowest slot holding the minimum of ``v[:S]``."""
    a = 0
    for s in range(1, S):
        if v[s] < v[a]:
            a = s
    return a


@njit(cache=True, inline="always")
def _argmin_update(v, S, amin, x, old):
    """``_argmin_first(v, S)`` after ``v[x]`` changed from ``old``, without a full scan when possible.

    Only ``v[x]`` moved: it takes the lead if it is now below the leader
    (or equal with a lower slot); the leader stays if it moved down; only a
    leader that moved up needs the full scan.
    """
    if x != amin:
        if v[x] < v[amin] or (v[x] == v[amin] and x < amin):
            return x
        return amin
    if v[x] <= old:
        return amin
    return _argmin_first(v, S)


@njit(cache=True)
def _initial_pass(m0, Xb, feats, idx, yn, wn, Zp, hist, seen_tot, mk, lb, ub, tb, nbins, node_tot, criterion, lg_c,
                  L, U, left, right, unseen_cls, tie, brange, present, occ, nz, cls):
    """Assess every feature on the node's ``m0`` heaviest examples and fill its interval.

    The common start of Quick Boost and both Adaptive-Pruning rules.
    """
    unseen = Zp[Zp.shape[0] - 1] - Zp[m0]
    for s in range(feats.shape[0]):
        _assess(Xb, feats[s], s, idx, yn, wn, 0, m0, hist, seen_tot, brange, occ)
        mk[s] = m0
        lb[s], ub[s], tb[s] = _summary(s, hist, nbins, seen_tot, node_tot, unseen, criterion, lg_c, L, U, left,
                                       right, unseen_cls, tie, brange, present, occ, nz, cls)


@njit(cache=True)
def _lower_first(lb, ub, mk, S, n, tol):
    """Next feature to assess under the lower-bound-first rule, and the bound it must reach.

    ``j`` is the feature with the smallest lower bound (lowest slot on equal
    bounds). If ``j`` is not fully assessed, it must reach ``target``, the
    smallest lower bound among the other features: if ``j`` is not the
    winner, the winner's error ``E*`` is at least its own lower bound, hence
    at least ``target``, and ``j`` can only be ruled out once ``L^j >= E*``.
    Since one unit of assessed weight raises an error bound by at most one
    unit, the heaviest unseen examples of weight ``target - L^j`` are needed
    whatever happens next: no assessment is ever wasted relative to the
    weight-order lower bound LB_wo (section 4). If ``j`` is fully assessed,
    its exact error is at most every other lower bound; only a lower slot
    whose bound is within ``tol`` of it could still tie (ties go to the
    lowest feature index), and it is assessed until it exceeds ``E_j + tol``.
    Returns ``(j, target, U_min)``, ``U_min`` the smallest upper bound, and
    ``j = -1`` when the search is over.
    """
    # one pass: smallest and second-smallest lower bound, smallest upper bound
    j = 0
    second = np.inf
    umin = ub[0]
    for s in range(1, S):
        v = lb[s]
        if v < lb[j]:
            second = lb[j]
            j = s
        elif v < second:
            second = v
        if ub[s] < umin:
            umin = ub[s]
    if mk[j] < n:
        return j, second, umin
    for s in range(j):
        if mk[s] < n and lb[s] <= lb[j] + tol:
            return s, lb[j] + tol, umin
    return -1, 0.0, umin


@njit(cache=True)
def search_split(Xb, idx, yn, wn, feats, nbins, n_classes, criterion, strategy,
                 quick_init, quick_batches, hist, seen_tot, mk, lb, ub, tb, batch_floor=0.0, adaptive_init=0.5,
                 min_batch=1, target_mix=0.0):
    """Best stump of one node under one strategy.

    Parameters
    ----------
    Xb : uint array (n_features_total, n_samples_total)
        Bin codes, feature-major.
    idx : int64 array (n,)
        The node's example ids in decreasing boosting weight (ties by id).
    yn, wn : arrays (n,)
        Class codes and weights of ``idx`` (same order).
    feats, nbins : int64 arrays (S,)
        Candidate features (increasing ids) and their number of bins.
    strategy : int
        0 exhaustive (every example for every feature), 1 Quick Boost
        (Appel et al. 2013: all features on the heaviest ``quick_init`` of the
        weight, the feature with the lowest partial error completed, the others
        assessed in ``quick_batches`` equal-weight batches until their lower
        bound exceeds the best full value), 2 Adaptive-Pruning Stump
        (Algorithm 1), 3 Adaptive-Pruning with the lower-bound-first rule
        (``_lower_first``: same intervals, the feature with the smallest
        lower bound is assessed by the weight it still needs).
    hist, seen_tot, mk, lb, ub, tb : work arrays (S_max, B, C), (S_max, C), (S_max,) ...
        Overwritten; on return ``mk[s]`` holds the assessments of feature slot
        ``s`` and ``lb``/``ub`` its final interval.
    adaptive_init, min_batch : float, int
        Adaptive: weight fraction assessed for every feature first (Algorithm
        1: 0.5) and smallest batch (Algorithm 1: 1; 0 = automatic, see
        ``_batch_floor``). They change the cost, never the returned split.
    target_mix : float
        Lower-bound-first only: where the batch aims between the smallest
        other lower bound (0) and the smallest upper bound (1).

    Returns
    -------
    best_slot, best_threshold_bin, best_value : int, int, float
        ``best_slot = -1`` when no feature has a threshold.
    """
    n = idx.shape[0]
    S = feats.shape[0]
    C = n_classes
    B = hist.shape[1]
    Zp, node_tot = node_stats(yn, wn, C)
    Zn = Zp[n]
    lg_c = _lg_classes(node_tot)
    # Values within ``tie`` count as equal (rounding differs with summation
    # order), so ties go to the lowest feature, then the lowest threshold.
    # A feature is pruned only when its lower bound exceeds the incumbent by
    # more than ``tol >= tie``: every feature that could tie is then fully
    # assessed, and the final choice is made on bit-identical exact values.
    tie = 1e-10 * Zn
    tol = 2e-10 * Zn * (1.0 + lg_c)
    for s in range(S):
        for b in range(nbins[s]):
            for c in range(C):
                hist[s, b, c] = 0.0
        for c in range(C):
            seen_tot[s, c] = 0.0
        mk[s] = 0
        lb[s] = np.inf
        ub[s] = np.inf
        tb[s] = -1
    L = np.empty(B)
    U = np.empty(B)
    left = np.empty(C)
    right = np.empty(C)
    unseen_cls = np.empty(C)
    brange = np.empty((S, 2), dtype=np.int64)
    for s in range(S):
        brange[s, 0] = B
        brange[s, 1] = -1
    present = np.flatnonzero(node_tot > 0.0)
    occ = np.zeros((S, B), dtype=np.uint8)
    nz = np.empty(B, dtype=np.int64)
    cls = np.empty(8, dtype=np.int64)  # class group of the error scan

    if strategy == 0:
        for s in range(S):
            _assess(Xb, feats[s], s, idx, yn, wn, 0, n, hist, seen_tot, brange, occ)
            mk[s] = n
            lb[s], ub[s], tb[s] = _summary(s, hist, nbins, seen_tot, node_tot, 0.0, criterion, lg_c,
                                           L, U, left, right, unseen_cls, tie, brange, present, occ, nz, cls)
    elif strategy == 2:
        gscale = 1.0 if criterion == 0 else 1.0 / max(1.0, lg_c)
        floor = batch_floor * Zn
        _initial_pass(_first_index(Zp, adaptive_init * Zn), Xb, feats, idx, yn, wn, Zp, hist, seen_tot, mk, lb,
                      ub, tb, nbins, node_tot, criterion, lg_c, L, U, left, right, unseen_cls, tie, brange,
                      present, occ, nz, cls)
        # Challengers still in play, in increasing slot order. Error criterion:
        # LB never decreases and the UB of the argmin never increases, so a
        # feature whose LB exceeds UB(a) + tol (plus a ``tie`` margin against
        # rounding) can never be a or b again and leaves the list for good;
        # the scan for b then shrinks as features are pruned.
        active = np.arange(S)
        na = S
        drop = criterion == 0
        amin = _argmin_first(ub, S)
        while True:
            # a = argmin UB (kept up to date by _argmin_update); b = the
            # challenger with the smallest LB that is not yet ruled out (both
            # fully assessed means both are exact).
            a = amin
            b = -1
            best = np.inf
            bound = ub[a] + tol
            keep = 0
            for j in range(na):
                s = active[j]
                if drop and s != a and lb[s] > bound + tie:
                    continue
                active[keep] = s
                keep += 1
                if s == a or (mk[s] == n and mk[a] == n):
                    continue
                # Once a is exact, a later feature that cannot beat it can at
                # best tie, and ties go to the lower index: it is ruled out.
                if mk[a] == n and s > a and lb[s] >= ub[a]:
                    continue
                if lb[s] <= bound and lb[s] < best:
                    best = lb[s]
                    b = s
            na = keep
            if b < 0:
                break
            # Batch weight = the gap (error: one unit of weight moves a bound by
            # at most one unit). Entropy values are in bits * weight, so the
            # gap is converted back to weight by the maximal entropy lg|Y|.
            gap = max((ub[a] - lb[b]) * gscale, floor)
            if mk[a] < n:
                m = _advance(Zp, mk[a], gap, n, _batch_floor(min_batch, brange, a, present.shape[0]))
                _assess(Xb, feats[a], a, idx, yn, wn, mk[a], m, hist, seen_tot, brange, occ)
                mk[a] = m
                old = ub[a]
                lb[a], ub[a], tb[a] = _summary(a, hist, nbins, seen_tot, node_tot, Zn - Zp[m], criterion,
                                               lg_c, L, U, left, right, unseen_cls, tie, brange, present, occ, nz, cls)
                amin = _argmin_update(ub, S, amin, a, old)
                gap = max((ub[a] - lb[b]) * gscale, floor) if ub[a] > lb[b] else (ub[a] - lb[b])
            if mk[b] < n and (gap > 0.0 or mk[a] == n):
                m = _advance(Zp, mk[b], gap, n, _batch_floor(min_batch, brange, b, present.shape[0]))
                _assess(Xb, feats[b], b, idx, yn, wn, mk[b], m, hist, seen_tot, brange, occ)
                mk[b] = m
                old = ub[b]
                lb[b], ub[b], tb[b] = _summary(b, hist, nbins, seen_tot, node_tot, Zn - Zp[m], criterion,
                                               lg_c, L, U, left, right, unseen_cls, tie, brange, present, occ, nz, cls)
                amin = _argmin_update(ub, S, amin, b, old)
        a = 0
        for s in range(1, S):
            if ub[s] < ub[a]:
                a = s
        if mk[a] < n:
            _assess(Xb, feats[a], a, idx, yn, wn, mk[a], n, hist, seen_tot, brange, occ)
            mk[a] = n
            lb[a], ub[a], tb[a] = _summary(a, hist, nbins, seen_tot, node_tot, 0.0, criterion, lg_c,
                                           L, U, left, right, unseen_cls, tie, brange, present, occ, nz, cls)
    elif strategy == 3:
        # Lower-bound-first: always assess the feature with the smallest lower
        # bound, by the weight it provably still needs (see ``_lower_first``).
        gscale = 1.0 if criterion == 0 else 1.0 / max(1.0, lg_c)
        _initial_pass(_first_index(Zp, adaptive_init * Zn), Xb, feats, idx, yn, wn, Zp, hist, seen_tot, mk, lb,
                      ub, tb, nbins, node_tot, criterion, lg_c, L, U, left, right, unseen_cls, tie, brange,
                      present, occ, nz, cls)
        while True:
            j, target, umin = _lower_first(lb, ub, mk, S, n, tol)
            if j < 0:
                break
            # Aim between the bound j provably needs (target_mix = 0: no
            # assessment beyond LB_wo, but many small batches) and the
            # smallest upper bound (1: Algorithm 1's gap, fewest batches).
            if umin > target:
                target += target_mix * (umin - target)
            gap = (target - lb[j]) * gscale
            m = _advance(Zp, mk[j], gap, n, _batch_floor(min_batch, brange, j, present.shape[0]))
            _assess(Xb, feats[j], j, idx, yn, wn, mk[j], m, hist, seen_tot, brange, occ)
            mk[j] = m
            lb[j], ub[j], tb[j] = _summary(j, hist, nbins, seen_tot, node_tot, Zn - Zp[m], criterion,
                                           lg_c, L, U, left, right, unseen_cls, tie, brange, present, occ, nz, cls)
    else:
        m0 = _first_index(Zp, quick_init * Zn)
        _initial_pass(m0, Xb, feats, idx, yn, wn, Zp, hist, seen_tot, mk, lb, ub, tb, nbins, node_tot, criterion,
                      lg_c, L, U, left, right, unseen_cls, tie, brange, present, occ, nz, cls)
        # Batch ends: the remaining weight split evenly into quick_batches.
        ends = np.empty(quick_batches, dtype=np.int64)
        for j in range(quick_batches):
            if j == quick_batches - 1:
                ends[j] = n
            else:
                ends[j] = _first_index(Zp, Zp[m0] + (j + 1) * (Zn - Zp[m0]) / quick_batches)
        order = np.argsort(lb[:S], kind="mergesort")
        first = order[0]
        _assess(Xb, feats[first], first, idx, yn, wn, mk[first], n, hist, seen_tot, brange, occ)
        mk[first] = n
        lb[first], ub[first], tb[first] = _summary(first, hist, nbins, seen_tot, node_tot, 0.0, criterion, lg_c,
                                                   L, U, left, right, unseen_cls, tie, brange, present, occ, nz,
                                                   cls)
        incumbent = lb[first]
        inc_slot = first
        for r in range(1, S):
            s = order[r]
            # pruned: lower bound above the best full value, or (for a later
            # feature) equal to it, since ties go to the lower feature index
            # ``reach`` bounds the exact lower bound from above while rescans are skipped (see below).
            reach = lb[s]
            while mk[s] < n and lb[s] <= incumbent + tol and not (s > inc_slot and lb[s] >= incumbent):
                m = n
                for j in range(quick_batches):
                    if ends[j] > mk[s]:
                        m = ends[j]
                        break
                _assess(Xb, feats[s], s, idx, yn, wn, mk[s], m, hist, seen_tot, brange, occ)
                reach += Zp[m] - Zp[mk[s]]
                mk[s] = m
                # Error criterion: a batch of weight w raises every stump's
                # best-labelling error by at most w, so the new lower bound is
                # at most ``reach``. While ``reach`` is below the incumbent
                # (with a ``tie`` margin for rounding) the loop condition holds
                # whatever the exact value is: the O(bins x classes) rescan is
                # skipped and the batches (hence assessments) are unchanged.
                # The stale ``lb[s] <= reach`` keeps the loop condition true.
                if criterion == 0 and m < n and reach + tie < incumbent:
                    continue
                lb[s], ub[s], tb[s] = _summary(s, hist, nbins, seen_tot, node_tot, Zn - Zp[m], criterion,
                                               lg_c, L, U, left, right, unseen_cls, tie, brange, present, occ, nz, cls)
                reach = lb[s]
            if mk[s] == n and (lb[s] < incumbent - tie or (lb[s] <= incumbent + tie and s < inc_slot)):
                incumbent = lb[s]
                inc_slot = s

    # Exact value among fully assessed features; lowest slot (= feature id) on ties.
    vmin = np.inf
    for s in range(S):
        if mk[s] == n and tb[s] >= 0 and lb[s] < vmin:
            vmin = lb[s]
    best_slot = -1
    best_value = np.inf
    for s in range(S):
        if mk[s] == n and tb[s] >= 0 and lb[s] <= vmin + tie:
            best_value = lb[s]
            best_slot = s
            break
    best_t = tb[best_slot] if best_slot >= 0 else -1
    return best_slot, best_t, best_value


@njit(cache=True)
def prefix_lower_bound(Xb, feat, idx, yn, wn, m, nb, node_tot, criterion, lg_c, B):
    """Feature-level lower bound ``min_t L_m`` from the first ``m`` examples (rebuilt)."""
    C = node_tot.shape[0]
    hist = np.zeros((1, B, C))
    seen_tot = np.zeros((1, C))
    brange = np.empty((1, 2), dtype=np.int64)
    brange[0, 0] = B
    brange[0, 1] = -1
    present = np.flatnonzero(node_tot > 0.0)
    occ = np.zeros((1, B), dtype=np.uint8)
    nz = np.empty(B, dtype=np.int64)
    cls = np.empty(8, dtype=np.int64)  # class group of the error scan
    _assess(Xb, feat, 0, idx, yn, wn, 0, m, hist, seen_tot, brange, occ)
    nbins = np.empty(1, dtype=np.int64)
    nbins[0] = nb
    L = np.empty(B)
    U = np.empty(B)
    left = np.empty(C)
    right = np.empty(C)
    unseen_cls = np.empty(C)
    lbv, ubv, tbv = _summary(0, hist, nbins, seen_tot, node_tot, 1.0, criterion, lg_c, L, U, left, right,
                             unseen_cls, 0.0, brange, present, occ, nz, cls)
    return lbv


@njit(cache=True)
def weight_order_bound(Xb, idx, yn, wn, feats, nbins, n_classes, criterion, best_slot, best_value, B):
    """LB_wo of one node (section 4): ``n + sum_{k != k*} min{m : L_m^k >= E*}``.

    ``>= E*`` is taken up to the split search's tie tolerance (1e-10 of the
    node weight).

    ``L_m^k`` is non-decreasing in ``m``, so the smallest ``m`` is found by
    binary search, rebuilding the prefix histogram at each probe.
    """
    n = idx.shape[0]
    Zp, node_tot = node_stats(yn, wn, n_classes)
    lg_c = _lg_classes(node_tot)
    # Same tie tolerance as search_split: a feature whose bound reaches E*
    # up to rounding is proven no better (it can at most tie). Without it,
    # rounding makes "L_m >= E*" flicker for exactly tied features.
    target = best_value - 1e-10 * Zp[n]
    total = n
    for s in range(feats.shape[0]):
        if s == best_slot or nbins[s] < 2:
            continue
        lo = 0
        hi = n
        while lo < hi:
            mid = (lo + hi) // 2
            if prefix_lower_bound(Xb, feats[s], idx, yn, wn, mid, nbins[s], node_tot, criterion, lg_c,
                                  B) >= target:
                hi = mid
            else:
                lo = mid + 1
        total += lo
    return total
