"""numba kernels of the PAC-Bayes forest: per-leaf vote shares of one tree, added to rows."""

from __future__ import annotations

import numpy as np

from .._compiled import njit


@njit(cache=True, nogil=True)
def _leaf_shares(order, parent, children_left, label, weight, n_classes):
    """Sparse h_Q vote shares of every leaf: ``cls[start[l]:start[l]+count[l]]``, ``val[...]``.

    One depth-first pass keeps the vote mass per class of the current path
    (restored exactly when the walk backs up, never subtracted) and the set
    of classes labelling a node of the path, so a leaf costs O(classes on
    its path) rather than O(depth).
    """
    n = order.shape[0]
    acc = np.zeros(n_classes)
    cnt = np.zeros(n_classes, dtype=np.int64)
    active = np.empty(n_classes, dtype=np.int64)
    where = np.full(n_classes, -1, dtype=np.int64)
    n_active = 0
    path = np.empty(n + 1, dtype=np.int64)
    saved = np.empty(n + 1)
    saved_total = np.empty(n + 1)
    top = 0
    total = 0.0
    start = np.zeros(n, dtype=np.int64)
    count = np.zeros(n, dtype=np.int64)
    cls = np.empty(2 * n + n_classes, dtype=np.int64)  # grown when a leaf needs more
    val = np.empty(cls.shape[0])
    pos = 0
    for k in range(n):
        node = order[k]
        p = parent[node]
        while top > 0 and path[top - 1] != p:  # back up to the parent
            top -= 1
            c = label[path[top]]
            acc[c] = saved[top]
            total = saved_total[top]
            cnt[c] -= 1
            if cnt[c] == 0:
                i = where[c]
                last = active[n_active - 1]
                active[i] = last
                where[last] = i
                where[c] = -1
                n_active -= 1
        c = label[node]
        saved[top] = acc[c]
        saved_total[top] = total
        path[top] = node
        top += 1
        acc[c] += weight[node]
        total += weight[node]
        cnt[c] += 1
        if cnt[c] == 1:
            where[c] = n_active
            active[n_active] = c
            n_active += 1
        if children_left[node] == -1:
            if pos + n_active > cls.shape[0]:
                new_cls = np.empty(2 * cls.shape[0] + n_active, dtype=np.int64)
                new_val = np.empty(new_cls.shape[0])
                new_cls[:pos] = cls[:pos]
                new_val[:pos] = val[:pos]
                cls, val = new_cls, new_val
            start[node] = pos
            for j in range(n_active):
                a = active[j]
                if acc[a] != 0.0:
                    cls[pos] = a
                    val[pos] = acc[a] / total
                    pos += 1
            count[node] = pos - start[node]
    return start, count, cls, val


@njit(cache=True, nogil=True)
def _add_votes(total, rows, leaves, start, count, cls, val):
    """``total[rows[i]] += h_Q vote shares of a row reaching leaves[i]`` (one tree)."""
    for i in range(leaves.shape[0]):
        leaf = leaves[i]
        r = rows[i]
        for e in range(start[leaf], start[leaf] + count[leaf]):
            total[r, cls[e]] += val[e]


@njit(cache=True, nogil=True)
def add_path_votes(total, rows, leaves, parent, label, weights):
    """``total[rows[i], g] +=`` the h_Q vote shares of a row reaching ``leaves[i]``
    under the posterior of every grid point ``g`` (``weights[:, g]``), for one tree.

    Out-of-bag rows are few per leaf, so the path of each leaf they reach is
    walked (once for a run of rows sorted by leaf) instead of computing every
    leaf's shares; the sums run root first per class, as in
    :func:`_leaf_shares`, so the shares are the same numbers. Grid points are
    the last axis of ``weights`` (n_nodes, n_points) and the middle one of
    ``total`` (n_samples, n_points, n_classes), so the inner loops are contiguous.
    """
    n_points = weights.shape[1]
    acc = np.zeros((total.shape[2], n_points))
    norm = np.empty(n_points)
    path = np.empty(64, dtype=np.int64)
    classes = np.empty(64, dtype=np.int64)
    shares = np.empty((64, n_points))
    i = 0
    while i < leaves.shape[0]:
        leaf = leaves[i]
        depth = 0
        node = leaf
        while node >= 0:
            if depth == path.shape[0]:
                longer = np.empty(2 * depth, dtype=np.int64)
                longer[:depth] = path
                path = longer
            path[depth] = node
            depth += 1
            node = parent[node]
        if classes.shape[0] < depth:
            classes = np.empty(path.shape[0], dtype=np.int64)
            shares = np.empty((path.shape[0], n_points))
        norm[:] = 0.0
        for k in range(depth - 1, -1, -1):
            node = path[k]
            c = label[node]
            for g in range(n_points):
                acc[c, g] += weights[node, g]
                norm[g] += weights[node, g]
        # The leaf's shares: one entry per class on the path (its first node).
        n_classes = 0
        for k in range(depth):
            c = label[path[k]]
            seen = False
            for g in range(n_points):
                seen = seen or acc[c, g] != 0.0
            if not seen:
                continue
            classes[n_classes] = c
            for g in range(n_points):
                shares[n_classes, g] = acc[c, g] / norm[g] if acc[c, g] != 0.0 else 0.0
                acc[c, g] = 0.0
            n_classes += 1
        while i < leaves.shape[0] and leaves[i] == leaf:
            r = rows[i]
            for k in range(n_classes):
                c = classes[k]
                for g in range(n_points):
                    total[r, g, c] += shares[k, g]
            i += 1
