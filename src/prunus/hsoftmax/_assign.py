"""Node objective J_n (eq. 6) and label re-assignment (Algorithm 2), numba kernels.

Statistics layout. Algorithm 1 keeps ``SumProbas[n, i]`` (sum of g_n outputs,
a vector over the M children) and ``Counts[n, i]`` for every node n and label i
(lines 8-9). A label only reaches the D nodes of its current path, so prunus
stores them per (label, depth): ``sum_probas[i, d]`` and ``counts[i, d]`` are the
statistics of label i at the node ``path_nodes[i, d]``. That is N/D times less
memory (650 MB -> 6 MB for PTB) and loses only the statistics a label left
behind at nodes it no longer reaches (they are reset when it moves away).
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numpy.typing import ArrayLike

from .._compiled import njit

#: The statistics Algorithm 2 reads, per (label, depth): the node and child of
#: each label's current path (``old_nodes``, ``old_children``: (K, D) int64) and
#: Algorithm 1's ``sum_probas`` ((K, D, M) float64) and ``counts`` ((K, D) float64)
#: gathered there.
AssignStats = namedtuple("AssignStats", "old_nodes old_children sum_probas counts")
AssignStats.__doc__ = "Per (label, depth) paths and statistics read by Algorithm 2 (see the module docstring)."

#: Settings of Algorithm 2: ``log_variant`` (eq. 12 rather than eq. 10),
#: ``exchange`` (improve the greedy assignment by exchanges) and ``min_count``
#: (labels seen fewer times at a node keep their child).
AssignSettings = namedtuple("AssignSettings", "log_variant exchange min_count")
AssignSettings.__doc__ = "Settings of Algorithm 2: criterion variant, exchanges, minimum count."


# --------------------------------------------------------------------- eq. 6
def node_objective(q: ArrayLike, p_cond: ArrayLike) -> float:
    """J_n of eq. 6 from class proportions and conditional child probabilities.

    Parameters
    ----------
    q : array (K,)
        q_i^{(n)}, proportion of the examples reaching n that have label i.
    p_cond : array (K, M)
        p_{j|i}^{(n)}, probability that an example of label i goes to child j.

    Returns
    -------
    J : float
        ``(2/M) sum_i q_i sum_j |p_j - p_{j|i}|`` with ``p_j = sum_i q_i p_{j|i}`` (eq. 7).

    See Also
    --------
    node_objectives : J_n of every node from Algorithm 1's statistics.
    j_star : The largest value of J_n.
    """
    q = np.asarray(q, dtype=np.float64)
    p_cond = np.asarray(p_cond, dtype=np.float64)
    if q.ndim != 1 or p_cond.ndim != 2 or p_cond.shape[0] != q.shape[0]:
        raise ValueError("q must have shape (K,) and p_cond shape (K, M).")
    p = q @ p_cond
    return float(2.0 / p_cond.shape[1] * np.sum(q * np.abs(p[None, :] - p_cond).sum(axis=1)))


def node_objectives(sum_probas: ArrayLike, counts: ArrayLike, path_nodes: ArrayLike, n_internal: int) -> np.ndarray:
    """J_n (eq. 6) of every internal node from Algorithm 1's statistics.

    ``p_{j|i}`` is SumProbas/Counts (the continuous eq. 9), ``q_i`` the share of
    label i in the examples that reached n.

    Parameters
    ----------
    sum_probas : array-like of float, shape (n_labels, depth, arity)
        SumProbas: per label and depth, the summed probabilities of the
        children of the node on the label's path.
    counts : array-like of float, shape (n_labels, depth)
        Counts: examples of each label that reached the node at each depth.
    path_nodes : array-like of int, shape (n_labels, depth)
        The internal node of every label's path at every depth.
    n_internal : int
        Number of internal nodes.

    Returns
    -------
    J : ndarray of float64, shape (n_internal,)
        J_n of every node; NaN where no example arrived.

    See Also
    --------
    node_objective : J_n from class proportions and conditional probabilities.
    """
    sum_probas = np.ascontiguousarray(sum_probas, dtype=np.float64)
    counts = np.ascontiguousarray(counts, dtype=np.float64)
    nodes = np.ascontiguousarray(path_nodes, dtype=np.int64)
    return _node_objectives(sum_probas, counts, nodes, int(n_internal))


@njit(cache=True)
def _node_objectives(sum_probas, counts, path_nodes, n_internal):
    """Two passes over the (label, depth) statistics: p_j of every node, then eq. 7."""
    k, depth, m = sum_probas.shape
    total = np.zeros(n_internal)
    p = np.zeros((n_internal, m))
    for i in range(k):
        for d in range(depth):
            c = counts[i, d]
            if c > 0:
                n = path_nodes[i, d]
                total[n] += c
                for j in range(m):
                    p[n, j] += sum_probas[i, d, j]
    for n in range(n_internal):
        if total[n] > 0:
            for j in range(m):
                p[n, j] /= total[n]
    acc = np.zeros(n_internal)
    for i in range(k):
        for d in range(depth):
            c = counts[i, d]
            if c > 0:
                n = path_nodes[i, d]
                s = 0.0
                for j in range(m):
                    s += abs(p[n, j] - sum_probas[i, d, j] / c)
                acc[n] += c * s
    out = np.full(n_internal, np.nan)
    for n in range(n_internal):
        if total[n] > 0:
            out[n] = 2.0 / m * acc[n] / total[n]
    return out


def j_star(arity: int) -> float:
    """Largest value of J_n, 4/M (1 - 1/M) (Lemma 2).

    Parameters
    ----------
    arity : int
        M, the number of children of a node.

    Returns
    -------
    J_star : float
        The value of J_n at a perfectly pure and balanced split.
    """
    return 4.0 / arity * (1.0 - 1.0 / arity)


# ------------------------------------------------------------- Algorithm 2
@njit(cache=True)
def _scores(labels, node, d, stats, log_variant, min_count):
    """dJ_n/dp_{j|i} (eq. 10) or dJ_n/dlog p_{j|i} (eq. 12) for the labels at ``node``.

    Labels whose statistics were gathered at another node (they just moved
    here) have q_i = 0, hence a zero gradient. Labels seen fewer than
    ``min_count`` times at the node count in p_j and q but get a zero gradient
    too: their p_{j|i} is too noisy to move them (they keep their child).
    """
    old_nodes, old_children, sum_probas, counts = stats.old_nodes, stats.old_children, stats.sum_probas, stats.counts
    m_labels = labels.shape[0]
    m = sum_probas.shape[2]
    total = 0.0
    p0 = np.zeros(m)
    for a in range(m_labels):
        i = labels[a]
        if old_nodes[i, d] == node and counts[i, d] > 0:
            total += counts[i, d]
            for j in range(m):
                p0[j] += sum_probas[i, d, j]
    score = np.zeros((m_labels, m))
    margin = np.zeros((m_labels, m))
    pref = np.full(m_labels, -1, dtype=np.int64)
    for a in range(m_labels):
        i = labels[a]
        pref[a] = old_children[i, d]
    if total <= 0:
        return score, margin, pref
    for j in range(m):
        p0[j] /= total
    for a in range(m_labels):
        i = labels[a]
        if old_nodes[i, d] != node or counts[i, d] <= 0 or counts[i, d] < min_count:
            continue
        q = counts[i, d] / total
        w = 2.0 / m * q * (1.0 - q)
        for j in range(m):
            pj = sum_probas[i, d, j] / counts[i, d]
            diff = pj - p0[j]
            margin[a, j] = diff
            s = 1.0 if diff > 0 else (-1.0 if diff < 0 else 0.0)
            score[a, j] = w * s * (pj if log_variant else 1.0)
    return score, margin, pref


@njit(cache=True)
def _before(a, ja, b, jb, score, margin, pref, m):
    """Greedy order of pairs (label a, child ja) and (b, jb): larger score, then the
    label's previous child, then larger margin, then lower index a * m + j."""
    if score[a, ja] != score[b, jb]:
        return score[a, ja] > score[b, jb]
    pa = pref[a] == ja
    pb = pref[b] == jb
    if pa != pb:
        return pa
    if margin[a, ja] != margin[b, jb]:
        return margin[a, ja] > margin[b, jb]
    return a * m + ja < b * m + jb


@njit(cache=True)
def _sift_down(heap, size, pos, nxt, score, margin, pref, m):
    while True:
        left = 2 * pos + 1
        if left >= size:
            return
        best = left
        right = left + 1
        if right < size:
            r, l_ = heap[right], heap[left]
            if _before(r, nxt[r], l_, nxt[l_], score, margin, pref, m):
                best = right
        top, cand = heap[pos], heap[best]
        if not _before(cand, nxt[cand], top, nxt[top], score, margin, pref, m):
            return
        heap[pos], heap[best] = cand, top
        pos = best


@njit(cache=True)
def _greedy(score, margin, pref, cap):
    """Algorithm 2, lines 15-26: best (label, child) pair first, children fill up.

    Ties (equal gradient, e.g. labels without statistics) go to the label's
    previous child, then to the larger p_{j|i} - p_j, then lowest label, child.

    The pairs are not sorted globally: every unassigned label keeps its best
    child not yet found full in a heap, so the scan visits the pairs in the
    same order at O((labels + refusals) log labels) cost.
    """
    m_labels, m = score.shape
    # each label's children in greedy order (insertion sort, m is the arity)
    ranked = np.empty((m_labels, m), dtype=np.int64)
    for a in range(m_labels):
        p = pref[a]
        for j in range(m):
            sj, mj = score[a, j], margin[a, j]
            t = j
            while t > 0:
                i = ranked[a, t - 1]
                si = score[a, i]
                if sj != si:
                    first = sj > si
                elif (j == p) != (i == p):
                    first = j == p
                elif mj != margin[a, i]:
                    first = mj > margin[a, i]
                else:
                    first = j < i
                if not first:
                    break
                ranked[a, t] = i
                t -= 1
            ranked[a, t] = j
    rank = np.zeros(m_labels, dtype=np.int64)  # position of the label's current candidate in ranked
    nxt = ranked[:, 0].copy()  # current candidate child of each label
    heap = np.arange(m_labels)
    for pos in range(m_labels // 2 - 1, -1, -1):
        _sift_down(heap, m_labels, pos, nxt, score, margin, pref, m)
    size = m_labels
    child = np.full(m_labels, -1, dtype=np.int64)
    fill = np.zeros(m, dtype=np.int64)
    while size > 0:
        a = heap[0]
        j = nxt[a]
        if fill[j] < cap:
            child[a] = j
            fill[j] += 1
            size -= 1
            heap[0] = heap[size]
        else:
            # child j is full for good: the label's next candidate that is not
            # full (a full child would refuse it again, changing nothing)
            rank[a] += 1
            while rank[a] < m and fill[ranked[a, rank[a]]] >= cap:
                rank[a] += 1
            if rank[a] >= m:  # no room anywhere (cannot happen when m * cap >= labels)
                size -= 1
                heap[0] = heap[size]
            else:
                nxt[a] = ranked[a, rank[a]]
        _sift_down(heap, size, 0, nxt, score, margin, pref, m)
    return child, fill


@njit(cache=True)
def _members(child, m):
    """Labels of every child: ``members[j, :size[j]]``, and each label's slot in its row."""
    n = child.shape[0]
    members = np.empty((m, max(n, 1)), dtype=np.int64)
    size = np.zeros(m, dtype=np.int64)
    slot = np.full(n, -1, dtype=np.int64)
    for a in range(n):
        j = child[a]
        if j >= 0:
            members[j, size[j]] = a
            slot[a] = size[j]
            size[j] += 1
    return members, size, slot


@njit(cache=True)
def _move(a, j, jj, members, size, slot):
    """Move label ``a`` from child ``j``'s row to child ``jj``'s (swap with the last)."""
    last = members[j, size[j] - 1]
    members[j, slot[a]] = last
    slot[last] = slot[a]
    size[j] -= 1
    members[jj, size[jj]] = a
    slot[a] = size[jj]
    size[jj] += 1


#: Length of the per-(child, child) candidate lists of the exchange step.
_TOP = 8


@njit(cache=True)
def _ahead(g, a, h, b):
    """(gain g, label a) ranks before (h, b): larger gain, then lower label."""
    return g > h or (g == h and a < b)


@njit(cache=True)
def _insert(top_g, top_a, top_n, j, jj, g, a):
    """Put (g, a) in the sorted candidate list of (j, jj), dropping the last one when full."""
    n = top_n[j, jj]
    pos = n
    while pos > 0 and _ahead(g, a, top_g[j, jj, pos - 1], top_a[j, jj, pos - 1]):
        pos -= 1
    cap = top_g.shape[2]
    if pos >= cap:
        return
    last = min(n, cap - 1)
    for t in range(last, pos, -1):
        top_g[j, jj, t] = top_g[j, jj, t - 1]
        top_a[j, jj, t] = top_a[j, jj, t - 1]
    top_g[j, jj, pos] = g
    top_a[j, jj, pos] = a
    top_n[j, jj] = min(n + 1, cap)


@njit(cache=True)
def _fill_row(score, members, size, j, top_g, top_a, top_n):
    """The candidate lists of child j from scratch: for every other child j', its
    members with the largest gains score[a, j'] - score[a, j] (ties: lowest a)."""
    m = score.shape[1]
    cap = top_g.shape[2]
    for jj in range(m):
        top_n[j, jj] = 0
    for t in range(size[j]):
        a = members[j, t]
        for jj in range(m):
            if jj == j:
                continue
            g = score[a, jj] - score[a, j]
            n = top_n[j, jj]
            if n == cap and not _ahead(g, a, top_g[j, jj, n - 1], top_a[j, jj, n - 1]):
                continue
            _insert(top_g, top_a, top_n, j, jj, g, a)


@njit(cache=True)
def _left(score, members, size, j, a, top_g, top_a, top_n):
    """Label ``a`` left child j (already moved out of ``members``): drop it from j's lists;
    a list left empty while j still has labels is rebuilt with the whole row."""
    m = score.shape[1]
    empty = False
    for jj in range(m):
        n = top_n[j, jj]
        for t in range(n):
            if top_a[j, jj, t] == a:
                for u in range(t, n - 1):
                    top_g[j, jj, u] = top_g[j, jj, u + 1]
                    top_a[j, jj, u] = top_a[j, jj, u + 1]
                top_n[j, jj] = n - 1
                if n == 1 and size[j] > 0:
                    empty = True
                break
    if empty:
        _fill_row(score, members, size, j, top_g, top_a, top_n)


@njit(cache=True)
def _joined(score, size, j, a, top_g, top_a, top_n):
    """Label ``a`` joined child j (already in ``members``): it enters a list when the list
    holds every other label of j or when it ranks before the list's last entry, so each
    list stays the exact head of its column's order."""
    m = score.shape[1]
    for jj in range(m):
        if jj == j:
            continue
        g = score[a, jj] - score[a, j]
        n = top_n[j, jj]
        if n == size[j] - 1 or (n > 0 and _ahead(g, a, top_g[j, jj, n - 1], top_a[j, jj, n - 1])):
            _insert(top_g, top_a, top_n, j, jj, g, a)


@njit(cache=True)
def _exchange(score, child, fill, cap, max_steps):
    """Apply improving moves / pairwise swaps until none is left (eq. 15).

    The proof of Lemma 1 argues that no exchange of two labels between two
    children can increase the first-order gain sum_i dJ_n/dp_{a(i)|i} of the
    greedy assignment; on ties and capacity limits the greedy alone can miss
    such an exchange, so it is applied here. For every pair of children (j, j')
    the labels of j with the largest gains score[a, j'] - score[a, j] are kept
    in a short sorted list (its head is the best single move from j to j'), so a
    step touches the lists of the labels that moved instead of re-scanning
    whole children. Returns the number of steps.
    """
    m = score.shape[1]
    members, size, slot = _members(child, m)
    top_g = np.empty((m, m, _TOP))
    top_a = np.empty((m, m, _TOP), dtype=np.int64)
    top_n = np.zeros((m, m), dtype=np.int64)
    for j in range(m):
        _fill_row(score, members, size, j, top_g, top_a, top_n)
    steps = 0
    while steps < max_steps:
        gain_best = 1e-12
        bj = -1
        bjj = -1
        swap = False
        for j in range(m):
            for jj in range(m):
                if j == jj or top_n[j, jj] == 0:
                    continue
                if fill[jj] < cap and top_g[j, jj, 0] > gain_best:
                    gain_best = top_g[j, jj, 0]
                    bj, bjj, swap = j, jj, False
                if top_n[jj, j] > 0 and j < jj:
                    g = top_g[j, jj, 0] + top_g[jj, j, 0]
                    if g > gain_best:
                        gain_best = g
                        bj, bjj, swap = j, jj, True
        if bj < 0:
            break
        a = top_a[bj, bjj, 0]
        b = top_a[bjj, bj, 0]
        child[a] = bjj
        _move(a, bj, bjj, members, size, slot)
        _left(score, members, size, bj, a, top_g, top_a, top_n)
        _joined(score, size, bjj, a, top_g, top_a, top_n)
        if swap:
            child[b] = bj
            _move(b, bjj, bj, members, size, slot)
            _left(score, members, size, bjj, b, top_g, top_a, top_n)
            _joined(score, size, bj, b, top_g, top_a, top_n)
        else:
            fill[bj] -= 1
            fill[bjj] += 1
        steps += 1
    return steps


@njit(cache=True)
def assign_node(labels, node, d, stats, cap, settings):
    """Children (0..M-1) for ``labels`` at ``node`` of depth ``d``; Algorithm 2 at one node.

    ``stats`` is an :data:`AssignStats`, ``settings`` an :data:`AssignSettings`;
    each child takes at most ``cap`` labels.
    """
    score, margin, pref = _scores(labels, node, d, stats, settings.log_variant, settings.min_count)
    child, fill = _greedy(score, margin, pref, cap)
    if settings.exchange:
        _exchange(score, child, fill, cap, 4 * labels.shape[0] + 16)
    return child


@njit(cache=True)
def reassign_kernel(stats, arity, depth, settings):
    """Algorithm 2 top-down over the whole tree (AssignLabels from the root).

    ``stats`` is an :data:`AssignStats`, ``settings`` an :data:`AssignSettings`.
    Returns the new leaf slot of every label.
    """
    k = stats.old_nodes.shape[0]
    pos = np.zeros(k, dtype=np.int64)
    for d in range(depth):
        cap = arity ** (depth - d - 1)
        offset = (arity**d - 1) // (arity - 1)
        order = np.argsort(pos, kind="mergesort")
        new_child = np.empty(k, dtype=np.int64)
        start = 0
        while start < k:
            p = pos[order[start]]
            end = start
            while end < k and pos[order[end]] == p:
                end += 1
            labels = order[start:end].copy()
            child = assign_node(labels, offset + p, d, stats, cap, settings)
            for a in range(end - start):
                new_child[labels[a]] = child[a]
            start = end
        for i in range(k):
            pos[i] = pos[i] * arity + new_child[i]
    return pos


def assignment_gain(score, child):
    """First-order gain sum_i score[i, child[i]] (eq. 13 / eq. 14 up to the 2/M factor)."""
    score = np.asarray(score)
    return float(score[np.arange(score.shape[0]), np.asarray(child)].sum())
