"""The weight-order lower bound LB_wo of one node.

Aziz, Anderton & Aslam, "Adaptively Pruning Features for Boosted Decision
Trees", section 4: the best feature ``k*`` is assessed on all ``n`` examples
and every other feature ``k`` on the fewest *heaviest* examples that prove it
no better, ``LB_wo = n + sum_{k != k*} min{m : L_m^k >= E*}``.

``weight_order_counts`` finds each ``min{m : L_m^k >= E*}`` by a search over
``m`` that starts from the work space the split search left: the histogram of
the feature's first ``m_k`` examples and the lower bounds of its last two
interval updates. Its answer is that of the predicate ``L_m^k >= E*`` as a
histogram rebuilt from the first example computes it (bit for bit).
"""

import numpy as np

from .._compiled import njit
from ._bounds import _error_summary, feature_summary, follows_witness
from ._records import ERROR, class_sums_at
from ._split import _assess, _assess_dense_next, _clear_row

# Unit roundoff of float64.
_UNIT_ROUNDOFF = 2.0**-53
# The rounding allowance of a moved histogram row, in units of ``u * Z_n`` per operation (``_counts_by_moves``).
MARGIN_SCALE = 8.0


@njit(cache=True, inline="always")
def _copy_row(node, ws, s, hist, seen, occ, brange, nzs, to_ws):
    """Copy row ``s`` of ``ws`` (histogram, class sums, bins seen, sparse cursor) to or from the saved arrays."""
    C = ws.seen_tot.shape[1]
    # Outside the bins ``ws`` has seen, both the row and the saved copy are zero: the saved copy is
    # always an earlier state of the same prefix, whose seen bins are a subset of the row's.
    for b in range(max(ws.brange[s, 0], 0), min(ws.brange[s, 1] + 1, node.nbins[s])):
        for c in range(C):
            if to_ws:
                ws.hist[s, b, c] = hist[b, c]
            else:
                hist[b, c] = ws.hist[s, b, c]
        if to_ws:
            ws.occ[s, b] = occ[b]
        else:
            occ[b] = ws.occ[s, b]
    for c in range(C):
        if to_ws:
            ws.seen_tot[s, c] = seen[c]
        else:
            seen[c] = ws.seen_tot[s, c]
    for k in range(2):
        if to_ws:
            ws.brange[s, k] = brange[k]
        else:
            brange[k] = ws.brange[s, k]
    _copy_cursor(node.sp, s, nzs, brange, to_ws)


@njit(cache=True)
def _copy_cursor(sp, s, nzs, brange, to_ws):
    """``_copy_row`` of the sparse cursor of slot ``s`` (into ``brange[2]`` and ``nzs``); nothing on dense codes."""
    if sp is None:
        return
    for c in range(nzs.shape[0]):
        if to_ws:
            sp.nzs[s, c] = nzs[c]
        else:
            nzs[c] = sp.nzs[s, c]
    if to_ws:
        sp.cur[s] = brange[2]
    else:
        brange[2] = sp.cur[s]


@njit(cache=True, inline="always")
def _side_sums(node, ws, s, t, sums):
    """The class sums of one side of threshold ``t`` of row ``s`` (bins ``<= t``, or ``> t``) into ``sums[c]``.

    The side of fewer seen bins is summed; the other side's class sums are
    the row's class sums minus these (``_error_of_sides``).
    """
    present = node.present
    lo = max(ws.brange[s, 0], 0)
    hi = ws.brange[s, 1]
    first, last = (lo, min(t, hi)) if t - lo < hi - t else (max(t + 1, lo), hi)
    for ci in range(present.shape[0]):
        sums[present[ci]] = 0.0
    for b in range(first, last + 1):
        for ci in range(present.shape[0]):
            sums[present[ci]] += ws.hist[s, b, present[ci]]


@njit(cache=True, inline="always")
def _error_of_sides(node, ws, s, sums):
    """The best-labelling error of the split whose one side has class sums ``sums`` (``_side_sums``).

    Every threshold's error is at least the feature's lower bound ``L``, so a
    threshold that errs less than ``E*`` shows ``L < E*`` without the scan of
    every threshold.
    """
    present = node.present
    total = 0.0
    top_one = 0.0
    top_other = 0.0
    for ci in range(present.shape[0]):
        c = present[ci]
        z = ws.seen_tot[s, c]
        total += z
        top_one = max(top_one, sums[c])
        top_other = max(top_other, z - sums[c])
    return max(total - top_one - top_other, 0.0)


@njit(cache=True, inline="always")
def _summary_and_witness(node, ws, s, witness):
    """The feature's lower bound (as ``feature_summary`` gives it) and, with ``witness``, a threshold attaining it."""
    if witness:
        return _error_summary(node, ws, s, True)
    return feature_summary(node, ws, s, 1.0)[0], -1


@njit(cache=True)
def _counts_rebuilt(node, best_slot, best_value, ws):
    """``weight_order_counts`` by rebuilding every probed prefix (any codes and criterion).

    ``>= E*`` is taken up to the split search's tie tolerance: a feature
    whose bound reaches E* up to rounding is proven no better (it can at most
    tie); without it, rounding makes "L_m >= E*" flicker for exactly tied
    features. ``L_m^k`` is non-decreasing in ``m``, so the smallest ``m`` is
    found by binary search. ``ws`` is the workspace as ``search_split`` left
    it on this node (or a fresh one): a feature the search assessed on its
    first ``m_k`` examples with ``L_{m_k} >= E*`` is searched in ``[0, m_k]``
    only. A probe copies the histogram of the bracket's low end and adds
    the examples up to the probe, in order (the sums, hence the bounds, are
    those of a histogram rebuilt from the first example), so a feature costs
    at most twice its bracket in examples, plus a histogram copy and scan
    per probe. The rows of ``ws`` are overwritten.
    """
    n = node.idx.shape[0]
    S = node.feats.shape[0]
    C = ws.seen_tot.shape[1]
    B = ws.hist.shape[1]
    target = best_value - node.tie
    out = np.zeros(S, dtype=np.int64)
    # the saved copy of a row; zero outside its seen bins ``brange[:2]`` between features
    hist = np.zeros((B, C))
    seen = np.empty(C)
    occ = np.zeros(B, dtype=np.uint8)
    brange = np.empty(3, dtype=np.int64)
    nzs = np.empty(C)
    for s in range(S):
        if s == best_slot:
            out[s] = n
            continue
        if node.nbins[s] < 2:
            continue
        hi = n
        mk = ws.mk[s]
        if 0 < mk < n and feature_summary(node, ws, s, 1.0)[0] >= target:
            hi = mk
        # The search's update before its last one, at m' < m_k examples, had L_{m'} < E*: the answer is
        # above m'. (Both values were summed in the examples' order, as the probes sum them.)
        lo = 0
        upd = ws.upd
        if hi == mk and upd[s, 0] == mk and 0.0 <= upd[s, 2] < mk and upd[s, 3] < target:
            lo = np.int64(upd[s, 2]) + 1
        # the saved state is the histogram of the first ``lo`` examples; ``ahead``: the row holds more
        _clear_row(node, ws, s)
        _assess(node, ws, s, 0, lo)
        _copy_row(node, ws, s, hist, seen, occ, brange, nzs, False)
        ahead = False
        while lo < hi:
            mid = (lo + hi) // 2
            if ahead:
                _copy_row(node, ws, s, hist, seen, occ, brange, nzs, True)
            _assess(node, ws, s, lo, mid)
            if feature_summary(node, ws, s, 1.0)[0] >= target:
                hi = mid
                ahead = mid > lo
            else:
                _assess(node, ws, s, mid, mid + 1)
                lo = mid + 1
                ahead = False
                if lo < hi:
                    _copy_row(node, ws, s, hist, seen, occ, brange, nzs, False)
        out[s] = lo
        for b in range(max(brange[0], 0), min(brange[1] + 1, B)):
            for c in range(C):
                hist[b, c] = 0.0
            occ[b] = 0
    return out


@njit(cache=True, inline="always")
def _unassess_dense(node, ws, s, start, stop):
    """Take examples ``start..stop-1`` out of feature slot ``s`` (dense codes).

    ``occ`` and ``brange`` keep the bins the examples occupied: a superset of
    the occupied bins, whose extra thresholds have the value of a threshold
    below them or of the one-sided split, so the feature's lower bound is
    unchanged (in exact arithmetic).
    """
    # A loop from 0 over views: with a run-time ``start`` the loop compiles slower (see ``_assess_dense``).
    Xb, hist, seen_tot = node.Xb, ws.hist, ws.seen_tot
    ib, yb, wb = node.idx[start:stop], node.yn[start:stop], node.wn[start:stop]
    feat = node.feats[s]
    C = seen_tot.shape[1]
    lg = 1
    while (1 << lg) <= stop:
        lg += 1
    if stop - start < 2 * C * lg:
        for i in range(stop - start):
            b = Xb[feat, ib[i]]
            c = yb[i]
            w = wb[i]
            hist[s, b, c] -= w
            seen_tot[s, c] -= w
        return
    # A long batch: the class sums of the first ``start`` examples as a rebuild sums them (no rounding
    # error there at all), without a read-modify-write of a few cells per example.
    for i in range(stop - start):
        hist[s, Xb[feat, ib[i]], yb[i]] -= wb[i]
    class_sums_at(node, seen_tot, s, start)


@njit(cache=True, inline="always")
def _secant_probe(a, b, m1, v1, m2, v2, run, target, Zp):
    """The next probe in ``(a, b)``: where the line through ``(m1, v1)`` and ``(m2, v2)`` crosses ``target``.

    The bounds rise about linearly in the assessed weight near the answer.
    After ``run >= 2`` probes on the same side of it, ``2^(run-1)`` times as
    far from the last probe, to get to the other side (the answer is then
    bracketed closely); after four, or without a rising line, the middle.
    """
    mid = (a + b) // 2
    dz = Zp[m2] - Zp[m1]
    dv = v2 - v1
    if run < 4 and dz * dv > 0.0:
        z = Zp[m2] + (target - v2) * (dz / dv)
        if run >= 2:
            z = Zp[m2] + (1 << (run - 1)) * (z - Zp[m2])
        if np.isfinite(z):
            mid = min(max(np.searchsorted(Zp, z), a + 1), b - 1)
    return mid


@njit(cache=True)
def _counts_by_moves(node, best_slot, best_value, ws, margin_scale):
    """``weight_order_counts`` on dense codes with the error criterion, without rebuilding prefixes.

    The feature's histogram row is moved between the probed prefixes by
    adding or taking out the examples in between, starting from the
    search's row of the first ``m_k`` examples. A row that was only added
    to holds the sums of a rebuild bit for bit; after a removal it differs
    from them by rounding only. Every float operation on a row moves a
    value derived from it by at most ``u * Z_n`` (``u`` the unit roundoff,
    ``Z_n`` the node weight, all weights non-negative), and the lower bound
    of the error criterion combines a cell sum, a class sum and a scan over
    at most ``B`` bins and ``C`` classes, so a row that received ``ops``
    operations gives the rebuild's lower bound to within
    ``margin = 8 u Z_n (2n + B + C + 8 + ops)`` (a generous bound;
    ``margin_scale`` is the 8, ``MARGIN_SCALE``). A scan whose value is
    within ``margin`` of ``E* - tie`` is decided on a rebuilt prefix
    instead; any other is decided as a rebuild would.

    One unit of assessed weight raises an error lower bound by at most one
    unit, so from a known value at ``m'`` every ``m`` whose weight
    ``Z_m - Z_m'`` cannot close (or open) the distance to ``E* - tie`` is
    decided without a probe. The probes follow the secant through the last
    two measured values (``_secant_probe``; with no value below ``E*``
    known but ``L_0 = 0``, the answer usually lies close below the search's
    ``m_k``, and a line from the origin approaches it from one side only);
    a probe far below the row rebuilds it from the first example when that
    takes fewer operations than removing examples.

    With more than two classes, a scan of every threshold is needed only
    where the answer is confirmed. ``L_m`` is the least error of the
    thresholds, each of which is non-decreasing in ``m``, so the answer is
    the prefix where the last of them reaches ``E* - tie``. The best
    threshold of the last scan (the witness) is the likely last one: the
    probes follow its error alone (the class sums of its shorter side, a
    fraction of a scan), which proves ``L_m < E* - tie`` wherever it is
    below by more than the rounding of both, up to the first prefix where it
    is not. That prefix is scanned: either ``L`` reaches ``E* - tie`` there
    (the answer), or the scan's best threshold is the next witness. Where
    the probes fall changes only their number, never the answer.
    """
    # A saved exact row (the rebuild of the first ``ckpt`` examples, ``ckpt < answer``; -1: none), made at
    # the feature's first probe too close to call: a later one restores it and adds the examples up to
    # the probe, instead of rebuilding from the first example. Zero outside its seen bins between features.
    C = ws.seen_tot.shape[1]
    B = ws.hist.shape[1]
    hist = np.zeros((B, C))
    seen = np.empty(C)
    occ = np.zeros(B, dtype=np.uint8)
    brange = np.empty(3, dtype=np.int64)
    nzs = np.empty(C)
    sums = np.empty(C)  # the class sums of one side of the witness (``_side_sums``)
    n = node.idx.shape[0]
    S = node.feats.shape[0]
    out = np.zeros(S, dtype=np.int64)
    Zp = node.Zp
    upd = ws.upd
    target = best_value - node.tie
    unit = margin_scale * _UNIT_ROUNDOFF * abs(Zp[n]) * (1.0 + 1e-3)
    fixed = 2 * n + B + C + 8
    witness = follows_witness(node)
    # How far the witness's error may be from the one a scan of the row gives at that threshold: two sums
    # of at most B cells and C class sums, each moved by at most u Z_n per operation (twice over).
    slack = 4.0 * (B + C + 4) * _UNIT_ROUNDOFF * abs(Zp[n])
    for s in range(S):
        if s == best_slot:
            out[s] = n
            continue
        if node.nbins[s] < 2:
            continue
        if not target > 0.0:  # L_0 = 0 already reaches it
            continue
        ckpt = -1
        mk = ws.mk[s]
        pos = mk  # the row holds the first ``pos`` examples
        ops = mk  # float operations any of its cells received: bounds their rounding
        exact = True  # bit for bit the rebuild of its first ``pos`` examples
        # The answer lies in (a, b]: L_a < E* - tie (L_0 = 0), and b = n or L_b >= E* - tie.
        # ``la`` and ``lb`` are the values there when known (NaN: not known); ``la`` may be an upper bound.
        a = 0
        la = 0.0
        b = n
        lb = np.nan
        # the values below and at or above E* - tie known before any probe (the first secant)
        ma = 0
        va = 0.0
        mb = n
        vb = np.nan
        margin = unit * (fixed + ops)
        # The witness ``wt`` (-1: none) errs at least E* - tie at ``bt`` (a < bt <= b), as far as known: at
        # first the best threshold of the search's last update, when the row holds what that update saw.
        wt = ws.tb[s] if witness and upd[s, 0] == mk else -1
        bt = n
        # The search's last two updates: the lower bound (as summed) after its first ``upd[s, 0]``
        # (then ``upd[s, 2]``) examples; -1 for none.
        for k in range(2):
            m = np.int64(upd[s, 2 * k])
            v = upd[s, 2 * k + 1]
            if upd[s, 2 * k] < 0.0 or m > n:
                continue
            if v < target - margin and m > a:
                a = ma = m
                la = va = v
            elif v >= target + margin and m <= b:
                b = mb = m
                lb = vb = v
        if a < mk < b:
            # The row is a rebuild of the first ``m_k`` examples: its value decides exactly.
            v, t = _summary_and_witness(node, ws, s, witness)
            if v >= target:
                b = mb = mk
                lb = vb = v
            else:
                a = ma = mk
                la = va = v
            wt = t
        elif mk == n and b == n and np.isnan(lb):
            # P(n) holds by definition (E* is the lowest value); its value only narrows the search.
            v = feature_summary(node, ws, s, 1.0)[0]
            if v >= target + margin:
                lb = vb = v
        # the last two measured points (examples, value: of L or of the witness), older first, for the
        # secant of the next probe
        m1 = ma
        v1 = va
        m2 = mb
        v2 = vb
        run = 0  # consecutive probes on the same side of E* - tie
        above = False  # the side of the last probe
        while b - a > 1:
            margin = unit * (fixed + ops)
            if not np.isnan(lb):
                # L_m >= L_b - (Z_b - Z_m): every m with Z_m >= Z_b - (L_b - target - margin) reaches it
                m = np.searchsorted(Zp, Zp[b] - (lb - target - margin))
                if m < b:
                    b = max(m, a + 1)
                    lb = np.nan
            if not np.isnan(la):
                # L_m <= L_a + (Z_m - Z_a): every m with Z_m < Z_a + (target - margin - L_a) stays below
                m = np.searchsorted(Zp, Zp[a] + (target - margin - la)) - 1
                if m > a:
                    a = min(m, b - 1)
                    la = np.nan
            if b - a <= 1:
                break
            bt = min(max(bt, a + 1), b)
            # the next probe: of the witness's error while it has a bracket, else a scan
            follow = wt >= 0 and bt - a > 1
            if follow:
                mid = _secant_probe(a, bt, m1, v1, m2, v2, run, target, Zp)
            elif wt >= 0:
                mid = bt  # = a + 1: the witness's first prefix at E* - tie is scanned
            else:
                mid = _secant_probe(a, b, m1, v1, m2, v2, run, target, Zp)
            if mid >= pos:
                if exact:
                    # the row is the rebuild of the first ``pos`` examples: the search's adds, bit for bit
                    _assess_dense_next(node, ws, s, pos, mid)
                else:
                    _assess(node, ws, s, pos, mid)
                ops += mid - pos
            elif 0 <= ckpt <= mid and mid - ckpt <= pos - mid:
                # the rows a restore writes include every bin the saved row has seen (it was added to since)
                _copy_row(node, ws, s, hist, seen, occ, brange, nzs, True)
                _assess_dense_next(node, ws, s, ckpt, mid)
                ops += mid - ckpt
                exact = True
            elif pos - mid <= mid:
                _unassess_dense(node, ws, s, mid, pos)
                ops += pos - mid
                exact = False
            else:  # fewer examples from the first one
                _clear_row(node, ws, s)
                _assess_dense_next(node, ws, s, 0, mid)
                ops += mid
                exact = True
            pos = mid
            margin = unit * (fixed + ops)
            if follow:
                # The witness's error is at least L_m: below E* - tie by more than the rounding of its sums
                # and of the row, it proves L_m below, as a rebuild decides it (and bounds L_m from above).
                _side_sums(node, ws, s, wt, sums)
                v = _error_of_sides(node, ws, s, sums) + slack
                below = v < target - margin
                run = run + 1 if run > 0 and below != above else 1
                above = not below
                m1 = m2
                v1 = v2
                m2 = mid
                v2 = v
                if below:
                    a = mid
                    la = v
                    if exact and ckpt >= 0:
                        _copy_row(node, ws, s, hist, seen, occ, brange, nzs, False)
                        ckpt = mid
                else:
                    bt = mid
                continue
            v, t = _summary_and_witness(node, ws, s, witness)
            if not exact and target - margin <= v < target + margin:
                # too close to call with rounded sums: the prefix exactly, from the saved row at or below
                # ``a`` (saved now if there is none yet)
                if ckpt < 0:
                    _clear_row(node, ws, s)
                    _assess_dense_next(node, ws, s, 0, a)
                    _copy_row(node, ws, s, hist, seen, occ, brange, nzs, False)
                    ckpt = a
                else:
                    _copy_row(node, ws, s, hist, seen, occ, brange, nzs, True)
                _assess_dense_next(node, ws, s, ckpt, mid)
                exact = True
                v, t = _summary_and_witness(node, ws, s, witness)
            run = run + 1 if run > 0 and (v >= target) == above else 1
            above = v >= target
            m1 = m2
            v1 = v2
            m2 = mid
            v2 = v
            if above:
                b = mid
                lb = v
            else:
                a = mid
                la = v
                if exact and ckpt >= 0:
                    _copy_row(node, ws, s, hist, seen, occ, brange, nzs, False)
                    ckpt = mid
            # the scan's best threshold is the next witness
            wt = t
            bt = b
        out[s] = b
        if ckpt >= 0:
            for bb in range(max(brange[0], 0), min(brange[1] + 1, B)):
                for c in range(C):
                    hist[bb, c] = 0.0
                occ[bb] = 0
    return out


@njit(cache=True)
def weight_order_counts(node, best_slot, best_value, ws):
    """Per feature slot, ``min{m : L_m^k >= E*}`` (``n`` for the winner): the terms of LB_wo (section 4).

    ``>= E*`` is taken up to the split search's tie tolerance: a feature
    whose bound reaches E* up to rounding is proven no better (it can at most
    tie); without it, rounding makes "L_m >= E*" flicker for exactly tied
    features. ``L_m^k`` is non-decreasing in ``m``, so the smallest ``m`` is
    found by a search over ``m``. ``ws`` is the workspace as ``search_split``
    left it on this node (or a fresh one); its rows are overwritten. The
    answer is the one of histograms rebuilt from the first example for every
    probed ``m``.
    """
    if node.sp is None and node.criterion == ERROR:
        return _counts_by_moves(node, best_slot, best_value, ws, MARGIN_SCALE)
    return _counts_rebuilt(node, best_slot, best_value, ws)


@njit(cache=True)
def weight_order_bound(node, best_slot, best_value, ws):
    """LB_wo of one node (section 4): ``n + sum_{k != k*} min{m : L_m^k >= E*}``.

    With no winner (``best_slot = -1``) the ``n`` term is still counted.
    """
    total = weight_order_counts(node, best_slot, best_value, ws).sum()
    if best_slot < 0:
        total += node.idx.shape[0]
    return total


__all__ = ["weight_order_bound", "weight_order_counts"]
