"""Split search for one tree node: exhaustive, Quick Boost and Adaptive-Pruning.

Every strategy is one small kernel over the ``Node``, ``Settings`` and
``Workspace`` records (see ``_records``), built from the same two steps: ``_refine`` (``f_k.assess``: add
the next examples of a feature to its per-bin weighted class histogram, in
decreasing-weight order, then update its interval ``[L_m, U_m]``, section 3 of
Aziz, Anderton & Aslam, "Adaptively Pruning Features for Boosted Decision
Trees") and ``_initial_pass`` (every feature on the heaviest part of the
weight). Because every strategy adds the examples of a feature to its
histogram in the same order, the histograms of fully assessed features are
bit-identical across strategies and the final choice (lowest value, then
lowest feature index, then lowest threshold) is the same split.

A stump is a (feature, bin threshold t) pair with its best labelling:
examples with bin ``<= t`` go left. Assessments are counted per feature as
the number ``m_k`` of the node's examples added to its histogram (one example
evaluated for one feature).
"""

from typing import Any

import numpy as np

from .._compiled import njit
from ._bounds import (  # noqa: F401 (threshold_bounds: re-exported for tests)
    feature_summary,
    follows_witness,
    threshold_bounds,
)
from ._records import (
    ADAPTIVE_GAP,
    ADAPTIVE_LOWER_FIRST,
    AUTO_BATCH,
    ERROR,
    EXHAUSTIVE,
    QUICK,
    class_sums_at,
    new_workspace,
    node_stats,
    snap,
)
from ._sparse import assess_sparse, candidate_slots, node_of, rewind_sparse

# Batch-level kernels are compiled without numba's reference counting (its ``_nrt`` option): they
# only read the records' arrays, and with it every field read cost an atomic incref/decref pair,
# measured as 10-40% of a fit on spam and digits. Passed as a dict: the option is not in numba's stubs.
_NO_REFCOUNT: dict[str, Any] = {"cache": True, "_nrt": False}
_njit_without_refcounts = njit(**_NO_REFCOUNT)

# Automatic smallest batch: about this many assessments cost as much as rescanning one (bin, class) cell
# of a feature's histogram (measured on satimage, letter and digits).
AUTO_BATCH_DIV = 2


@njit(cache=True, inline="always")
def _add_counted(Xb, feat, ib, yb, wb, cnt, hist, seen_tot, occ, s):
    """Add examples ``0..cnt-1`` of the id, class and weight arrays to slot ``s``, class sums included.

    Ids and classes index as unsigned integers (they are never negative):
    a signed index makes every access select between ``i`` and ``i + size``
    for Python's negative indices, two selects per assessment here.
    """
    row = Xb[feat]
    h = hist[s]
    tot = seen_tot[s]
    o = occ[s]
    for i in range(cnt):
        b = row[np.uintp(ib[i])]
        c = np.uintp(yb[i])
        w = wb[i]
        h[b, c] += w
        tot[c] += w
        o[b] = 1


@njit(cache=True, inline="always")
def _add(Xb, feat, ib, yb, wb, cnt, hist, occ, s):
    """``_add_counted`` without the class sums."""
    row = Xb[feat]
    h = hist[s]
    o = occ[s]
    for i in range(cnt):
        b = row[np.uintp(ib[i])]
        h[b, np.uintp(yb[i])] += wb[i]
        o[b] = 1


@njit(cache=True, inline="always")
def _widen_range(node, ws, s):
    """``ws.brange[s]`` after a batch: the lowest and highest occupied bin of slot ``s``.

    Bins outside the range before the batch are unoccupied unless the batch
    added to them, so only those are read (all ``nbins`` at the first batch):
    cheaper than a running minimum and maximum in the batch's loop, which
    cost two compare-and-select chains per assessment.
    """
    occ, brange = ws.occ, ws.brange
    lo = brange[s, 0]
    hi = brange[s, 1]
    nb = node.nbins[s]
    if hi < 0:  # nothing seen before: the batch's bins are the only occupied ones
        lo = nb
        hi = -1
        for b in range(nb):
            if occ[s, b]:
                lo = b
                break
        for b in range(nb - 1, lo - 1, -1):
            if occ[s, b]:
                hi = b
                break
    else:
        for b in range(lo):
            if occ[s, b]:
                lo = b
                break
        for b in range(nb - 1, hi, -1):
            if occ[s, b]:
                hi = b
                break
    if hi < 0:  # an empty batch leaves the empty range as it was
        return
    brange[s, 0] = lo
    brange[s, 1] = hi


@njit(cache=True, inline="always")
def _assess_dense(node, ws, s, start, stop):
    """``_assess`` on dense codes: the loop reads local copies of the records' arrays.

    A batch that starts after the first example loops from 0 over views of
    its ids, classes and weights: a loop ``range(start, stop)`` with a
    run-time ``start`` compiled to a loop measured 1.5x slower per
    assessment (its indices are not known to be non-negative). From the
    first example (exhaustive search, the initial pass) the arrays are read
    directly, which measured faster there than the views.
    """
    Xb, idx, yn, wn = node.Xb, node.idx, node.yn, node.wn
    hist, seen_tot, occ = ws.hist, ws.seen_tot, ws.occ
    feat = node.feats[s]
    if start == 0:
        _add_counted(Xb, feat, idx, yn, wn, stop, hist, seen_tot, occ, s)
    else:
        _add_counted(Xb, feat, idx[start:stop], yn[start:stop], wn[start:stop], stop - start, hist, seen_tot, occ, s)
    _widen_range(node, ws, s)


@njit(cache=True, inline="always")
def _assess_dense_next(node, ws, s, start, stop):
    """``_assess_dense`` for the searches, whose slot ``s`` has seen exactly the first ``start`` examples.

    Its class sums are then those of the node's first ``start`` examples and
    become those of the first ``stop``, which ``class_sums_at`` reads in one
    binary search per class (the same running sums, bit for bit). A long
    batch therefore does not add every weight a second time into
    ``seen_tot``: that read-modify-write of one of a few cells, repeated
    whenever consecutive examples share a class, measured about a quarter
    of exhaustive search's time on 784 features of 256 bins and ten classes.
    A short batch (fewer than ``2 x classes x lg n`` examples, where the
    searches cost more) keeps the running sums.
    """
    C = ws.seen_tot.shape[1]
    lg = 1
    while (1 << lg) <= stop:
        lg += 1
    if stop - start < 2 * C * lg:
        _assess_dense(node, ws, s, start, stop)
        return
    Xb, idx, yn, wn = node.Xb, node.idx, node.yn, node.wn
    hist, occ = ws.hist, ws.occ
    feat = node.feats[s]
    if start == 0:
        _add(Xb, feat, idx, yn, wn, stop, hist, occ, s)
    else:
        _add(Xb, feat, idx[start:stop], yn[start:stop], wn[start:stop], stop - start, hist, occ, s)
    class_sums_at(node, ws.seen_tot, s, stop)
    _widen_range(node, ws, s)


@njit(cache=True, inline="always")
def _assess(node, ws, s, start, stop):
    """``f_k.assess(batch)``: add examples ``start..stop-1`` of the node to feature slot ``s``.

    ``ws.brange[s]`` tracks the lowest and highest bin seen: thresholds
    outside that range leave every seen example on one side and need no scan.
    On sparse codes only the batch's entries outside the zero bin are read
    (``_sparse.assess_sparse``); ``start`` must be the examples already assessed.
    """
    # ``node.sp is None`` is a constant of the record type: each type compiles one branch only.
    if node.sp is not None:
        assess_sparse(node.sp, node, ws, s, start, stop)
    else:
        _assess_dense(node, ws, s, start, stop)


@njit(cache=True, inline="always")
def _assess_next(node, ws, s, start, stop):
    """``_assess`` of the searches: slot ``s`` has seen exactly the node's first ``start`` examples."""
    if node.sp is not None:
        assess_sparse(node.sp, node, ws, s, start, stop)
    else:
        _assess_dense_next(node, ws, s, start, stop)


@njit(cache=True, inline="always")
def _rewind(node, s):
    """Sparse codes: feature slot ``s`` back to its first entry, nothing seen (dense codes: nothing to do)."""
    if node.sp is not None:
        rewind_sparse(node.sp, s)


@njit(cache=True, inline="always")
def _update(node, ws, s):
    """Recompute the interval and best threshold of feature slot ``s`` from its histogram."""
    Zp = node.Zp
    # LB_wo's search starts from the best threshold of a feature's last update
    every_t = ws.every_t[0] and follows_witness(node)
    lbv, ubv, ws.tb[s] = feature_summary(node, ws, s, Zp[Zp.shape[0] - 1] - Zp[ws.mk[s]], every_t)
    upd = ws.upd
    upd[s, 2] = upd[s, 0]
    upd[s, 3] = upd[s, 1]
    upd[s, 0] = ws.mk[s]
    upd[s, 1] = lbv
    ws.lb[s] = snap(lbv, node.grid)
    ws.ub[s] = snap(ubv, node.grid)


# Histograms (features x bins x classes, float64) of at most this many cells, 1 MiB, stay in the cache
# between two batches of a feature: there ``_warm_row`` only costs its loads (measured: the default search
# 3-10% faster without it on spam, satimage, letter, breast cancer and an 11-class problem of 10 features).
WARM_MIN_CELLS = 1 << 17


@njit(cache=True, inline="always")
def _warm_row(node, ws, s):
    """Load every cache line of feature slot ``s``'s histogram that its next batch and rescan use.

    That is the bins seen so far, or all the feature's bins before its first
    batch in a node (the examples may fall in any). With many features the
    histograms (S x bins x classes float64) do not stay in cache between two
    batches of one feature: a batch then waits on about one miss per example
    (its updates hit scattered bins), and the rescan after it on the rest.
    The independent loads of this loop overlap their misses instead; the
    rescan reads every seen bin anyway. (Measured on 30,000 x 784 with ten
    classes: a third less CPU time for the lower-bound-first search and a
    fifth less for exhaustive search and Quick Boost.) ``_refine`` skips it
    when all histograms together hold at most ``WARM_MIN_CELLS`` cells.
    """
    hist, brange = ws.hist, ws.brange
    last = hist.shape[2] - 1
    acc = 0.0
    lo = brange[s, 0]
    hi = brange[s, 1]
    if hi < 0:
        lo = 0
        hi = node.nbins[s] - 1
    # a bin's class row may straddle two lines: read its first and last entry
    for b in range(max(lo, 0), hi + 1):
        acc += hist[s, b, 0] + hist[s, b, last]
    # Weights are non-negative, so this never stores: it only keeps the loads from being optimised away.
    if acc < 0.0:
        ws.L[0] = acc


@njit(cache=True, inline="always")
def _open_row(node, ws, s):
    """Empty feature slot ``s``'s histogram at its first batch in a node, and load the rest of its lines.

    ``_reset`` leaves the histograms alone: the bins that the slot saw in
    earlier nodes (``ws.brange``) are zeroed here, just before the row is
    used, so that each row is brought into cache once per node instead of
    once to be emptied (a pass over every feature's histogram) and again
    when its turn comes. The other bins are zero already; they are loaded as
    in ``_warm_row``, since the first batch may fall in any of them.
    """
    hist, occ, brange = ws.hist, ws.occ, ws.brange
    C = hist.shape[2]
    last = C - 1
    B = hist.shape[1]
    lo = max(brange[s, 0], 0)
    hi = min(brange[s, 1], B - 1)
    nb = node.nbins[s]
    acc = 0.0
    for b in range(nb):
        if lo <= b <= hi:
            for c in range(C):
                hist[s, b, c] = 0.0
            occ[s, b] = 0
        else:
            acc += hist[s, b, 0] + hist[s, b, last]
    # bins of this feature beyond nbins (a slot's feature changes between rounds) may hold weight too
    for b in range(max(lo, nb), hi + 1):
        for c in range(C):
            hist[s, b, c] = 0.0
        occ[s, b] = 0
    brange[s, 0] = B
    brange[s, 1] = -1
    # Weights are non-negative, so this never stores: it only keeps the loads from being optimised away.
    if acc < 0.0:
        ws.L[0] = acc


@_njit_without_refcounts
def _refine(node, ws, s, m):
    """Assess feature slot ``s`` up to example ``m`` (exclusive) and update its interval.

    Compiled as its own function (not inlined): measured faster in the batch
    loops of Algorithm 1 and Quick Boost on spam.
    """
    if ws.upd[s, 0] < 0.0:
        _open_row(node, ws, s)
    elif ws.hist.size > WARM_MIN_CELLS:
        _warm_row(node, ws, s)
    _assess_next(node, ws, s, ws.mk[s], m)
    ws.mk[s] = m
    _update(node, ws, s)


@_njit_without_refcounts
def _assess_batch(node, ws, s, start, stop):
    _assess_next(node, ws, s, start, stop)


@_njit_without_refcounts
def _rescan(node, ws, s):
    _update(node, ws, s)


@njit(cache=True)
def _reset(node, ws):
    """Empty the intervals and class sums of the node's features; their histograms are emptied later.

    Every search opens each feature's row with ``_open_row`` before its
    first batch (``_refine`` or ``_exhaustive``), which zeroes the bins the
    slot saw in earlier nodes (``ws.brange``) while it loads the row anyway.
    """
    nbins = node.nbins
    C = ws.seen_tot.shape[1]
    for s in range(nbins.shape[0]):
        for c in range(C):
            ws.seen_tot[s, c] = 0.0
        _rewind(node, s)
        ws.mk[s] = 0
        ws.lb[s] = np.inf
        ws.ub[s] = np.inf
        ws.tb[s] = -1
        ws.upd[s, 0] = -1.0
        ws.upd[s, 2] = -1.0


@njit(cache=True)
def _first_index(Zp, target):
    """Smallest ``m >= 1`` with ``Z_m >= target`` (at most ``n``)."""
    j = np.searchsorted(Zp, target)
    if j < 1:
        j = 1
    if j > Zp.shape[0] - 1:
        j = Zp.shape[0] - 1
    return j


@njit(cache=True)
def _batch_end(Zp, m, gap, min_batch):
    """Smallest index m' >= m + min_batch with ``Z_{m'} >= Z_m + gap`` (Algorithm 1's batch end)."""
    n = Zp.shape[0] - 1
    target = Zp[m] + (gap if gap > 0.0 else 0.0)
    j = np.searchsorted(Zp, target)
    if j < m + min_batch:
        j = m + min_batch
    if j > n:
        j = n
    return j


@njit(cache=True, inline="always")
def _min_batch(node, ws, s, mb):
    """Smallest batch of feature slot ``s``: ``Settings.min_batch``, or automatic for AUTO_BATCH.

    A rescan after a batch costs O(bins in the seen range x classes) while
    one assessment costs a few nanoseconds; the automatic floor makes a batch
    at least (seen bins x present classes) / AUTO_BATCH_DIV examples long, so
    that the rescan does not dominate the batch it follows.
    """
    if mb != AUTO_BATCH:
        return mb
    width = ws.brange[s, 1] - ws.brange[s, 0] + 1
    if width < 1:
        width = 1
    return 1 + (width * node.present.shape[0]) // AUTO_BATCH_DIV


@_njit_without_refcounts
def _open_all(node, ws, m):
    """Open every feature slot, assess it on the node's first ``m`` examples and fill its interval.

    The common body of exhaustive search (``m = n``) and of the initial
    pass. One loop over the features inside one kernel instead of a call of
    ``_refine`` per feature: the same operations in the same order, but
    measured a third faster per assessment (60,000 x 784, ten classes:
    Quick Boost with ``quick_init=1`` took 5.3 s through ``_refine`` and
    3.8 s, exhaustive search's time, through this loop).
    """
    for s in range(node.feats.shape[0]):
        _open_row(node, ws, s)
        _assess_next(node, ws, s, 0, m)
        ws.mk[s] = m
        _update(node, ws, s)


@njit(cache=True, inline="always")
def _initial_pass(node, ws, m0):
    """Assess every feature on the node's ``m0`` heaviest examples and fill its interval.

    The common start of Quick Boost and both Adaptive-Pruning rules.
    """
    _open_all(node, ws, m0)


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


@njit(cache=True, inline="always")
def _gap_scale(node):
    """Weight per unit of value: 1 for the error; entropy values are bits x weight, so 1 / lg|Y|."""
    return 1.0 if node.criterion == ERROR else 1.0 / max(1.0, node.lg_c)


# ------------------------------------------------------------------ strategies
@_njit_without_refcounts
def _exhaustive(node, ws):
    """Classic AdaBoost: every example for every feature."""
    _open_all(node, ws, node.idx.shape[0])


@njit(cache=True)
def _quick(node, cfg, ws):
    """Quick Boost (Appel et al. 2013).

    Every feature is assessed on the heaviest ``quick_init`` of the weight,
    the feature with the lowest partial error is completed, and the others,
    in increasing order of their lower bound, are assessed in
    ``quick_batches`` equal-weight batches until their lower bound exceeds
    the best full value.
    """
    Zp = node.Zp
    n = node.idx.shape[0]
    S = node.feats.shape[0]
    Zn = Zp[n]
    tie, tol = node.tie, node.tol
    lb, mk = ws.lb, ws.mk
    nb = cfg.quick_batches
    m0 = _first_index(Zp, cfg.quick_init * Zn)
    _initial_pass(node, ws, m0)
    # Batch ends: the remaining weight split evenly into quick_batches.
    ends = np.empty(nb, dtype=np.int64)
    for j in range(nb):
        if j == nb - 1:
            ends[j] = n
        else:
            ends[j] = _first_index(Zp, Zp[m0] + (j + 1) * (Zn - Zp[m0]) / nb)
    order = np.argsort(lb[:S], kind="mergesort")
    first = order[0]
    _refine(node, ws, first, n)
    incumbent = lb[first]
    inc_slot = first
    for r in range(1, S):
        s = order[r]
        # pruned: lower bound above the best full value, or (for a later
        # feature) equal to it, since ties go to the lower feature index.
        # ``reach`` bounds the exact lower bound from above while rescans are skipped (see below).
        reach = lb[s]
        while mk[s] < n and lb[s] <= incumbent + tol and not (s > inc_slot and lb[s] >= incumbent):
            m = n
            for j in range(nb):
                if ends[j] > mk[s]:
                    m = ends[j]
                    break
            _assess_batch(node, ws, s, mk[s], m)
            reach += Zp[m] - Zp[mk[s]]
            mk[s] = m
            # Error criterion: a batch of weight w raises every stump's
            # best-labelling error by at most w, so the new lower bound is
            # at most ``reach``. While ``reach`` is below the incumbent
            # (with a ``tie`` margin for rounding) the loop condition holds
            # whatever the exact value is: the O(bins x classes) rescan is
            # skipped and the batches (hence assessments) are unchanged.
            # The stale ``lb[s] <= reach`` keeps the loop condition true.
            if node.criterion == ERROR and m < n and reach + tie < incumbent:
                continue
            _rescan(node, ws, s)
            reach = lb[s]
        if mk[s] == n and (lb[s] < incumbent - tie or (lb[s] <= incumbent + tie and s < inc_slot)):
            incumbent = lb[s]
            inc_slot = s


@njit(cache=True)
def _adaptive_gap(node, cfg, ws):
    """Adaptive-Pruning Stump, Algorithm 1.

    After the initial pass, the leader ``a = argmin UB`` and the challenger
    ``b`` (smallest LB among the others) each receive the heaviest unseen
    examples weighing the gap ``UB_a - LB_b``, until no challenger's LB is
    below ``UB_a``; then ``a`` is completed.
    """
    Zp = node.Zp
    n = node.idx.shape[0]
    S = node.feats.shape[0]
    tie, tol = node.tie, node.tol
    lb, ub, mk = ws.lb, ws.ub, ws.mk
    gscale = _gap_scale(node)
    _initial_pass(node, ws, _first_index(Zp, cfg.adaptive_init * Zp[n]))
    # Challengers still in play, in increasing slot order. Error criterion:
    # LB never decreases and the UB of the argmin never increases, so a
    # feature whose LB exceeds UB(a) + tol (plus a ``tie`` margin against
    # rounding) can never be a or b again and leaves the list for good;
    # the scan for b then shrinks as features are pruned.
    active = np.arange(S)
    na = S
    drop = node.criterion == ERROR
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
        gap = max((ub[a] - lb[b]) * gscale, 0.0)
        if mk[a] < n:
            old = ub[a]
            _refine(node, ws, a, _batch_end(Zp, mk[a], gap, _min_batch(node, ws, a, cfg.min_batch)))
            amin = _argmin_update(ub, S, amin, a, old)
            gap = max((ub[a] - lb[b]) * gscale, 0.0) if ub[a] > lb[b] else (ub[a] - lb[b])
        if mk[b] < n and (gap > 0.0 or mk[a] == n):
            old = ub[b]
            _refine(node, ws, b, _batch_end(Zp, mk[b], gap, _min_batch(node, ws, b, cfg.min_batch)))
            amin = _argmin_update(ub, S, amin, b, old)
    a = _argmin_first(ub, S)
    if mk[a] < n:
        _refine(node, ws, a, n)


@njit(cache=True, inline="always")
def _lower_first_choice(node, ws):
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
    lb, ub, mk = ws.lb, ws.ub, ws.mk
    S = node.feats.shape[0]
    n = node.idx.shape[0]
    tol = node.tol
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


# Smallest rise of a lower bound per unit of assessed weight that ``_extrapolated_gap`` sizes a batch for.
RATE_FLOOR = 0.6


@njit(cache=True, inline="always")
def _last_rise(Zp, ws, s):
    """Weight assessed by feature slot ``s`` between its last two interval updates, and its lower bound's rise per unit.

    ``(0.0, nan)`` before the slot's second update in the node; the rise is
    NaN or infinite while a bound is infinite.
    """
    upd = ws.upd
    if upd[s, 2] < 0.0:
        return 0.0, np.nan
    dz = Zp[int(upd[s, 0])] - Zp[int(upd[s, 2])]
    if not dz > 0.0:
        return 0.0, np.nan
    return dz, (upd[s, 1] - upd[s, 3]) / dz


@njit(cache=True, inline="always")
def _extrapolated_gap(Zp, ws, s, gap, first_rate):
    """The weight feature slot ``s`` is expected to need for its error lower bound to rise by ``gap``.

    One unit of assessed weight raises an error bound by at most one unit, so
    ``gap`` is the least weight that can suffice; but the bound of a
    feature usually rises by less (0.6-1 per unit on a 10-class problem), and
    a batch of exactly ``gap`` then falls short and needs another, each
    followed by an O(bins x classes) interval update. The gap is divided by
    the expected rise per unit of weight, clamped to ``[RATE_FLOOR, 1]``:
    once the feature has had two interval updates in the node, the rise
    between them; at its first batch after the initial pass, ``first_rate``,
    the mean rise the first batches of the node's earlier features showed
    (the bare gap while there is none, ``first_rate < 0``). The examples
    after the initial pass are the same light examples for every feature,
    and their rates are alike: on a 60,000 x 784 problem of ten classes this
    takes a third fewer interval updates than the bare first gap, for fewer
    assessments; the initial pass's own average rate, the other estimate at
    hand, overshoots on small tables. Only batch sizes change: every search
    returns the same split.
    """
    if ws.upd[s, 2] < 0.0:
        if first_rate < 0.0:
            return gap
        r = first_rate
    else:
        dz, r = _last_rise(Zp, ws, s)
        if not dz > 0.0:
            return gap
    if not r > RATE_FLOOR:  # also a NaN rate (a bound still infinite)
        r = RATE_FLOOR
    if r > 1.0:
        r = 1.0
    return gap / r


# Above this many candidate features, the lower-bound-first rule finds its next feature in a tournament
# tree (O(log S) per batch) instead of a scan of every feature (O(S) per batch, cheaper for few features).
TOURNAMENT_MIN_FEATURES = 64


@njit(cache=True, inline="always")
def _play(lb, ub, tl, tu, i, S):
    """Node ``i`` of the tournament from its two children: lowest bound (lower slot on ties), lowest ``ub``."""
    a = tl[2 * i]
    b = tl[2 * i + 1]
    if b >= S or (a < S and lb[a] <= lb[b]):
        tl[i] = a
    else:
        tl[i] = b
    x = tu[2 * i]
    y = tu[2 * i + 1]
    tu[i] = x if x <= y else y


@_njit_without_refcounts
def _tournament_build(lb, ub, tl, tu, S):
    """Fill the tournament tree over the ``S`` feature slots (leaves at ``P + s``, ``P = len(tl) // 2``)."""
    P = tl.shape[0] // 2
    for s in range(P):
        tl[P + s] = s  # slots >= S are padding and never win
        tu[P + s] = ub[s] if s < S else np.inf
    for i in range(P - 1, 0, -1):
        _play(lb, ub, tl, tu, i, S)


@_njit_without_refcounts
def _tournament_update(lb, ub, tl, tu, s, S):
    """Replay the matches of slot ``s`` after its bounds changed."""
    P = tl.shape[0] // 2
    tu[P + s] = ub[s]
    i = (P + s) // 2
    while i >= 1:
        _play(lb, ub, tl, tu, i, S)
        i //= 2


@_njit_without_refcounts
def _tournament_choice(node, ws, tl, tu):
    """``_lower_first_choice`` read from the tournament tree: the same ``(j, target, U_min)``."""
    lb, mk = ws.lb, ws.mk
    S = node.feats.shape[0]
    n = node.idx.shape[0]
    P = tl.shape[0] // 2
    j = tl[1]
    # second-smallest lower bound: the best of every sibling on j's path to the root
    second = np.inf
    i = P + j
    while i > 1:
        w = tl[i ^ 1]
        if w < S and lb[w] < second:
            second = lb[w]
        i //= 2
    if mk[j] < n:
        return j, second, tu[1]
    for s in range(j):
        if mk[s] < n and lb[s] <= lb[j] + node.tol:
            return s, lb[j] + node.tol, tu[1]
    return -1, 0.0, tu[1]


@_njit_without_refcounts
def _lower_first_loop(node, cfg, ws, tl, tu):
    Zp = node.Zp
    lb, ub = ws.lb, ws.ub
    S = node.feats.shape[0]
    tree = tl.shape[0] > 0
    gscale = _gap_scale(node)
    extrapolate = cfg.extrapolate and node.criterion == ERROR
    # the rises of the first batches after the initial pass (see ``_extrapolated_gap``)
    first_sum = 0.0
    first_count = 0
    _initial_pass(node, ws, _first_index(Zp, cfg.adaptive_init * Zp[Zp.shape[0] - 1]))
    if tree:
        _tournament_build(lb, ub, tl, tu, S)
    while True:
        if tree:
            j, target, umin = _tournament_choice(node, ws, tl, tu)
        else:
            j, target, umin = _lower_first_choice(node, ws)
        if j < 0:
            break
        # Aim between the bound j provably needs (target_mix = 0: no
        # assessment beyond LB_wo, but many small batches) and the
        # smallest upper bound (1: Algorithm 1's gap, fewest batches).
        if umin > target:
            target += cfg.target_mix * (umin - target)
        gap = (target - lb[j]) * gscale
        first = ws.upd[j, 2] < 0.0
        if extrapolate:
            gap = _extrapolated_gap(Zp, ws, j, gap, first_sum / first_count if first_count > 0 else -1.0)
        _refine(node, ws, j, _batch_end(Zp, ws.mk[j], gap, _min_batch(node, ws, j, cfg.min_batch)))
        if extrapolate and first:
            dz, r = _last_rise(Zp, ws, j)
            if dz > 0.0 and np.isfinite(r):
                first_sum += min(max(r, 0.0), 1.0)
                first_count += 1
        if tree:
            _tournament_update(lb, ub, tl, tu, j, S)


@njit(cache=True)
def _adaptive_lower_first(node, cfg, ws):
    """Adaptive-Pruning with the lower-bound-first rule (see ``_lower_first_choice``).

    Same intervals and start as Algorithm 1; the feature with the smallest
    lower bound is assessed by the weight it provably still needs, aimed
    ``target_mix`` of the way towards the smallest upper bound. With many
    candidate features the choice comes from a tournament tree.
    """
    S = node.feats.shape[0]
    P = 1
    while P < S:
        P *= 2
    size = 2 * P if S > TOURNAMENT_MIN_FEATURES else 0
    _lower_first_loop(node, cfg, ws, np.empty(size, dtype=np.int64), np.empty(size))


@njit(cache=True, inline="always")
def _best_exact(node, ws):
    """Lowest exact value among fully assessed features; lowest slot (= feature id) on ties."""
    n = node.idx.shape[0]
    S = node.feats.shape[0]
    tie = node.tie
    vmin = np.inf
    for s in range(S):
        if ws.mk[s] == n and ws.tb[s] >= 0 and ws.lb[s] < vmin:
            vmin = ws.lb[s]
    for s in range(S):
        if ws.mk[s] == n and ws.tb[s] >= 0 and ws.lb[s] <= vmin + tie:
            return s, ws.tb[s], ws.lb[s]
    return -1, -1, np.inf


@njit(cache=True, inline="always")
def _exhaustive_cheaper(node, settings):
    """Whether the Adaptive-Pruning search of this node should assess every example instead.

    A pruned search saves assessments (a few nanoseconds each) but pays an
    interval update, a scan of the feature's class-weight table (bins x
    present classes), after its initial pass and after every later batch;
    exhaustive search pays one. Where the node's examples are about as few
    as the cells of the tables (small nodes, many classes or bins), the
    updates cost more than the assessments they save: such a node (examples
    x features at most ``settings.exhaustive_below`` x the cells of all
    features) is searched exhaustively. Every search finds the same split,
    so the trees do not change, only the assessment count.
    """
    below = settings.exhaustive_below
    if below <= 0.0 or (settings.strategy != ADAPTIVE_GAP and settings.strategy != ADAPTIVE_LOWER_FIRST):
        return False
    cells = 0
    for s in range(node.nbins.shape[0]):
        cells += node.nbins[s]
    return node.idx.shape[0] * node.nbins.shape[0] <= below * cells * node.present.shape[0]


@njit(cache=True)
def search_split(node, settings, ws):
    """Best stump of one node under ``settings.strategy``.

    Parameters
    ----------
    node : Node
    settings : Settings
    ws : Workspace
        Overwritten; on return ``ws.mk[s]`` holds the assessments of feature
        slot ``s`` and ``ws.lb``/``ws.ub`` its final interval.

    Returns
    -------
    best_slot, best_threshold_bin, best_value : int, int, float
        ``best_slot = -1`` when no feature has a threshold. The search
        compares intervals rounded by ``snap``, and ``best_value`` is
        rounded too (``exact_value`` gives it as summed).
    """
    _reset(node, ws)
    strategy = settings.strategy
    if strategy == EXHAUSTIVE or _exhaustive_cheaper(node, settings):
        _exhaustive(node, ws)
    elif strategy == QUICK:
        _quick(node, settings, ws)
    elif strategy == ADAPTIVE_GAP:
        _adaptive_gap(node, settings, ws)
    elif strategy == ADAPTIVE_LOWER_FIRST:
        _adaptive_lower_first(node, settings, ws)
    return _best_exact(node, ws)


@njit(cache=True)
def exact_value(node, ws, slot, value):
    """The value of the winner ``slot`` of ``search_split`` as summed (``value`` is its snapped one).

    Read from its histogram, before ``ws`` is overwritten.
    """
    if slot < 0:
        return value
    return feature_summary(node, ws, slot, 0.0)[0]


@njit(cache=True)
def _search_node(codes, idx, y, w, feats, nbins, settings, ws):
    n = idx.shape[0]
    yn = np.empty(n, dtype=np.int64)
    wn = np.empty(n)
    for i in range(n):
        yn[i] = y[idx[i]]
        wn[i] = w[idx[i]]
    node = node_of(codes, candidate_slots(codes, feats), feats, nbins, idx, yn, wn, settings)
    slot, t, value = search_split(node, settings, ws)
    return slot, t, exact_value(node, ws, slot, value), node


def split_node(Xb, order, y, w, feats, nbins, settings, ws=None):
    """Best stump of one node: the entry point outside tree growth.

    Parameters
    ----------
    Xb : uint array (n_features_total, n_samples_total) or SparseBins
        Bin codes, feature-major (``Binning.transform``), or the sparse
        codes of ``Binning.transform_sparse``.
    order : int array
        The node's example ids in decreasing weight (ties by id).
    y, w : arrays indexed by example id
        Class codes and weights.
    feats, nbins : int arrays (S,)
        Candidate features (increasing ids) and their number of bins.
    settings : Settings
        From ``search_settings``.
    ws : Workspace, optional
        Allocated when omitted.

    Returns
    -------
    (slot, threshold_bin, value, assessments, node) : the winner's feature slot (-1 if none), its
    bin threshold and exact value, the per-feature assessment counts (copy), and the ``Node`` record.
    """
    feats = np.ascontiguousarray(feats, dtype=np.int64)
    nbins = np.ascontiguousarray(nbins, dtype=np.int64)
    if ws is None:
        ws = new_workspace(len(feats), int(nbins.max()), settings.n_classes)
    slot, t, value, node = _search_node(
        Xb,
        np.ascontiguousarray(order, dtype=np.int64),
        np.asarray(y, dtype=np.int64),
        np.asarray(w, dtype=np.float64),
        feats,
        nbins,
        settings,
        ws,
    )
    return int(slot), int(t), float(value), ws.mk[: len(feats)].copy(), node


@njit(cache=True)
def _clear_row(node, ws, s):
    """Row ``s`` of ``ws`` back to no example seen (outside its seen bins ``ws.brange[s]`` it is zero already)."""
    C = ws.seen_tot.shape[1]
    for b in range(max(ws.brange[s, 0], 0), min(ws.brange[s, 1] + 1, node.nbins[s])):
        for c in range(C):
            ws.hist[s, b, c] = 0.0
        ws.occ[s, b] = 0
    for c in range(C):
        ws.seen_tot[s, c] = 0.0
    ws.brange[s, 0] = ws.hist.shape[1]
    ws.brange[s, 1] = -1
    _rewind(node, s)


@njit(cache=True)
def prefix_lower_bound(node, ws, s, m):
    """Feature-level lower bound ``min_t L_m`` of feature slot ``s`` from the first ``m`` examples.

    The histogram is rebuilt in row ``s`` of ``ws``, which is overwritten.
    """
    _clear_row(node, ws, s)
    _assess(node, ws, s, 0, m)
    lbv, ubv, tbv = feature_summary(node, ws, s, 1.0)
    return lbv


__all__ = [
    "node_stats",
    "prefix_lower_bound",
    "search_split",
    "split_node",
]
