"""Uncertainty intervals of the stumps of one feature (section 3 and Appendix B).

Aziz, Anderton & Aslam, "Adaptively Pruning Features for Boosted Decision
Trees": after the ``m`` heaviest examples of a node are assessed, every stump
(threshold ``t`` with its best labelling) of a feature has an interval
``[L_m, U_m]`` containing its error on all ``n`` examples. Values are
*unnormalized*: the error criterion uses weighted error sums ``eps`` (the
paper's ``L_m = eps_m / Z_n``) and the entropy criterion ``Z_n * eps_n``
(Appendix B, eq. 3).

``feature_summary`` gives the feature-level ``LB()``, ``UB()`` and
``bestStump()`` of Algorithm 1 from the feature's weighted class histogram.
"""

import numpy as np

from .._compiled import njit
from ._records import ERROR


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
def threshold_bounds(h, nb, seen_tot, unseen_cls, unseen, criterion, lg_c, ws):
    """Fill ``ws.L[t]``, ``ws.U[t]`` (t = 0..nb-2): the interval of every stump of one feature.

    ``h`` is the feature's (bins, classes) histogram of seen weight and
    ``seen_tot`` its class sums; ``unseen_cls`` splits the ``unseen`` weight
    by class. ``ws`` is a ``Workspace``: its ``L``, ``U``, ``left`` and
    ``right`` are the outputs and scratch.

    Error: ``L`` is the best-labelling error on the seen examples (leaves take
    the weighted-majority label) and ``U = L + unseen weight``. Entropy: ``L``
    is the seen conditional entropy (eq. 2) and ``U`` the bound of eq. 3.
    """
    L, U, left, right = ws.L, ws.U, ws.left, ws.right
    C = left.shape[0]
    for c in range(C):
        left[c] = 0.0
    for t in range(nb - 1):
        for c in range(C):
            left[c] += h[t, c]
        if criterion == ERROR:
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
                U[t] = _entropy_upper(left, unseen_cls, unseen, lg_c) + _entropy_upper(right, unseen_cls, unseen, lg_c)


@njit(cache=True, inline="always")
def _mx(a, b):
    # A plain select: the builtin ``max`` compiles to a branch, which
    # mispredicts on irregular histograms and dominated the scan.
    return a if a > b else b


@njit(cache=True, inline="always")
def _mn(a, b):
    return a if a < b else b


@njit(cache=True, inline="always")
def _scan2(ws, slot, cnt, first):
    hist, seen_tot, cls, nz, L, U = ws.hist, ws.seen_tot, ws.cls, ws.nz, ws.L, ws.U
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
def _scan4(ws, slot, cnt, first):
    hist, seen_tot, cls, nz, L, U = ws.hist, ws.seen_tot, ws.cls, ws.nz, ws.L, ws.U
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
def _scan8(ws, slot, cnt, first):
    hist, seen_tot, cls, nz, L, U = ws.hist, ws.seen_tot, ws.cls, ws.nz, ws.L, ws.U
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
        mr = _mx(_mx(_mx(t0 - r0, t1 - r1), _mx(t2 - r2, t3 - r3)), _mx(_mx(t4 - r4, t5 - r5), _mx(t6 - r6, t7 - r7)))
        if first:
            L[j] = ml
            U[j] = mr
        else:
            L[j] = _mx(L[j], ml)
            U[j] = _mx(U[j], mr)


@njit(cache=True)
def _error_summary(node, ws, slot, want_t):
    """Error criterion fast path: ``(min_t L_t, lowest t within tie of it)`` of feature slot ``slot``.

    The best-labelling error of threshold ``t`` on the seen examples is
    ``Z_seen - max_y left_y(t) - max_y right_y(t)``. Only thresholds at
    occupied bins inside the seen range are evaluated: outside the range
    every seen example is on one side (the constant value
    ``Z_seen - max_y Z_seen^y``), and a threshold at an empty bin has the
    value of the occupied bin below it, which is also lower (the tie rule
    would never pick it). Classes are scanned in groups whose running sums
    stay in registers while ``L`` and ``U`` collect the left and right maxima.
    The threshold is returned only when ``want_t`` (else -1).
    """
    seen_tot, brange, occ, nz, cls, L, U = ws.seen_tot, ws.brange, ws.occ, ws.nz, ws.cls, ws.L, ws.U
    present = node.present
    T = node.nbins[slot] - 1
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
                _scan2(ws, slot, cnt, g0 == 0)
            elif G == 4:
                _scan4(ws, slot, cnt, g0 == 0)
            else:
                _scan8(ws, slot, cnt, g0 == 0)
            g0 += G
        for j in range(cnt):
            e = _mx(total - L[j] - U[j], 0.0)
            L[j] = e
            lb = _mn(lb, e)
    if not want_t:
        return lb, -1
    tie = node.tie
    if lo > 0 and const <= lb + tie:
        return lb, 0
    for j in range(cnt):
        if L[j] <= lb + tie:
            return lb, nz[j]
    return lb, _mx(hi, 0)


@njit(cache=True)
def _error_summary_binary(node, ws, slot, want_t):
    """``_error_summary`` for two present classes ``c0``, ``c1``, in one running difference.

    With ``P_t`` the prefix sum of ``h_c1 - h_c0`` over bins ``<= t``, the four
    labellings of threshold ``t`` err ``Z^c1``, ``Z^c0``, ``Z^c0 + P_t`` and
    ``Z^c1 - P_t``, so ``min_t L_t`` needs only ``min_t P_t`` and ``max_t P_t``:
    one add per bin instead of two class sums and two maxima. Empty bins add
    0 and repeat the value of the bin below, which the tie rule prefers, so
    no compaction of occupied bins is needed.
    """
    hist, seen_tot, brange = ws.hist, ws.seen_tot, ws.brange
    c0 = node.present[0]
    c1 = node.present[1]
    tie = node.tie
    T = node.nbins[slot] - 1
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


@njit(cache=True, inline="always")
def follows_witness(node):
    """Whether the weight-order bound follows one threshold of a feature (its witness) between scans.

    Only with more than two present classes: a two-class scan
    (``_error_summary_binary``) costs one add per bin, as following one
    threshold does. The split search then finds every update's best
    threshold (``Workspace.every_t``) to start the bound's search from.
    """
    return node.present.shape[0] > 2


@njit(cache=True, inline="always")
def feature_summary(node, ws, s, unseen, every_t=False):
    """Feature-level ``LB()``, ``UB()`` and ``bestStump()`` of feature slot ``s``.

    ``unseen`` is the node's weight not yet assessed for the feature.
    ``bestStump()`` (returned only once ``unseen == 0``, or with ``every_t``,
    else -1 for the error criterion) is the lowest threshold whose value is
    within ``node.tie`` of the minimum: values that differ only by rounding
    count as ties.
    """
    nb = node.nbins[s]
    if node.criterion == ERROR:
        if node.present.shape[0] == 2:
            lb, tb = _error_summary_binary(node, ws, s, unseen <= 0.0 or every_t)
        else:
            lb, tb = _error_summary(node, ws, s, unseen <= 0.0 or every_t)
        return lb, lb + unseen, tb
    C = node.node_tot.shape[0]
    for c in range(C):
        v = node.node_tot[c] - ws.seen_tot[s, c]
        ws.unseen_cls[c] = v if v > 0.0 else 0.0
    threshold_bounds(ws.hist[s], nb, ws.seen_tot[s], ws.unseen_cls, unseen, node.criterion, node.lg_c, ws)
    L = ws.L
    U = ws.U
    lb = np.inf
    ub = np.inf
    for t in range(nb - 1):
        if L[t] < lb:
            lb = L[t]
        if U[t] < ub:
            ub = U[t]
    tb = -1
    for t in range(nb - 1):
        if L[t] <= lb + node.tie:
            tb = t
            break
    return lb, ub, tb
