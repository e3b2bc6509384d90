"""Plain-Python reference of rpart's surrogate splits and of routing by them.

Written from the definition (rpart's ``choose_surg.c`` / ``surrogate.c``,
``surrogatestyle = 0``, ``usesurrogate = 2``), one candidate at a time,
without the library's kernels:

- numeric feature: every cut between consecutive distinct present values
  (of every row of the node, the primary's missing ones included) with at
  least two rows of known primary side (and positive weight) below and two
  above; cuts in increasing order, the running best starting at the
  majority weight of the rows present on the feature; a cut replaces it if
  "below goes right" agrees strictly more, else if "below goes left" does;
- categorical feature: each level with rows of known side goes to the side
  of more weight (ties: the side of more total weight, right on a tie);
  needs two agreeing and two disagreeing rows;
- agreement / (W_L + W_R); adj against max(W_L, W_R); kept if adj > 1e-10;
  sorted by agreement, then feature; the first ``max_surrogates``.
"""

import math

MIN_ADJ = 1e-10


def _mid(a, b):
    t = a / 2.0 + b / 2.0
    if t >= b or t < a:
        t = a
    return t


def numeric(x, w, rows, side):
    """(agree, threshold, left_below) or None."""
    present = [r for r in rows if not math.isnan(x[r])]
    if not present:
        return None
    known = [r for r in present if side[r] != 0]
    wl = sum(w[r] for r in known if side[r] == 1)
    wr = sum(w[r] for r in known if side[r] == -1)
    best = max(wl, wr)
    found = None
    values = sorted({x[r] for r in present})
    for a, b in zip(values[:-1], values[1:]):
        below = [r for r in known if x[r] <= a]
        above = [r for r in known if x[r] > a]
        if sum(w[r] > 0 for r in below) < 2 or sum(w[r] > 0 for r in above) < 2:
            continue
        right_agree = sum(w[r] for r in above if side[r] == 1) + sum(w[r] for r in below if side[r] == -1)
        left_agree = sum(w[r] for r in below if side[r] == 1) + sum(w[r] for r in above if side[r] == -1)
        if right_agree > best:
            best, found = right_agree, (right_agree, _mid(a, b), False)
        elif left_agree > best:
            best, found = left_agree, (left_agree, _mid(a, b), True)
    return found


def categorical(x, w, rows, side, n_levels):
    """(agree, left levels, levels with a side) or None."""
    lw = [0.0] * n_levels
    rw = [0.0] * n_levels
    lc = [0] * n_levels
    rc = [0] * n_levels
    for r in rows:
        if math.isnan(x[r]) or side[r] == 0:
            continue
        k = int(x[r])
        if side[r] == 1:
            lw[k] += w[r]
            lc[k] += w[r] > 0
        else:
            rw[k] += w[r]
            rc[k] += w[r] > 0
    default_left = sum(lw) > sum(rw)
    agree, left, with_side, n_agree, n_disagree = 0.0, set(), set(), 0, 0
    for k in range(n_levels):
        if lc[k] == 0 and rc[k] == 0:
            continue
        with_side.add(k)
        if lw[k] < rw[k] or (lw[k] == rw[k] and not default_left):
            agree += rw[k]
            n_agree, n_disagree = n_agree + rc[k], n_disagree + lc[k]
        else:
            agree += lw[k]
            left.add(k)
            n_agree, n_disagree = n_agree + lc[k], n_disagree + rc[k]
    if n_agree > 1 and n_disagree > 1:
        return agree, left, with_side
    return None


def surrogates(X, n_categories, w, rows, side, primary, max_surrogates):
    """List of dicts (feature, threshold, left_below, left, known, agreement, adj), best first."""
    wl = sum(w[r] for r in rows if side[r] == 1)
    wr = sum(w[r] for r in rows if side[r] == -1)
    if max_surrogates == 0 or wl <= 0 or wr <= 0:
        return []
    total = wl + wr
    majority = max(wl, wr) / total
    found = []
    for g in range(X.shape[1]):
        if g == primary:
            continue
        if n_categories[g] > 0:
            c = categorical(X[:, g], w, rows, side, int(n_categories[g]))
            if c is None:
                continue
            entry = dict(feature=g, threshold=None, left_below=None, left=c[1], known=c[2], agree=c[0])
        else:
            c = numeric(X[:, g], w, rows, side)
            if c is None:
                continue
            entry = dict(feature=g, threshold=c[1], left_below=c[2], left=None, known=None, agree=c[0])
        entry["agreement"] = entry["agree"] / total
        entry["adj"] = (entry["agreement"] - majority) / (1.0 - majority)
        if entry["adj"] > MIN_ADJ:
            found.append(entry)
    found.sort(key=lambda e: (-e["agreement"], e["feature"]))
    return found[:max_surrogates]


def _levels(words):
    return {64 * i + b for i, word in enumerate(words) for b in range(64) if (int(word) >> b) & 1}


def primary_side(tree, node, value):
    """+1 / -1 / 0 (missing, or not a level code at a categorical split)."""
    if math.isnan(value):
        return 0
    if tree.is_categorical[node]:
        n_levels = tree.n_categories[tree.feature[node]]
        if not (0 <= value < n_levels and value == int(value)):
            return 0
        return 1 if int(value) in set(tree.left_categories(node).tolist()) else -1
    return 1 if value <= tree.threshold[node] else -1


def surrogate_side(tree, q, value):
    s = tree.surrogates
    g = s.feature[q]
    if math.isnan(value):
        return 0
    if tree.n_categories[g] > 0:
        if not (0 <= value < tree.n_categories[g] and value == int(value)):
            return 0
        if int(value) not in _levels(s.known_bits[q]):
            return 0
        return 1 if int(value) in _levels(s.category_bits[q]) else -1
    return 1 if (value <= s.threshold[q]) == bool(s.left_below[q]) else -1


def route(tree, x):
    """Leaf of one row: primary, else the first surrogate with a side, else missing_go_to_left."""
    node = 0
    while tree.children_left[node] != -1:
        s = primary_side(tree, node, x[tree.feature[node]])
        if s == 0 and tree.surrogates is not None:
            for q in range(tree.surrogates.offsets[node], tree.surrogates.offsets[node + 1]):
                s = surrogate_side(tree, q, x[tree.surrogates.feature[q]])
                if s != 0:
                    break
        if s == 0:
            s = 1 if tree.missing_go_to_left[node] else -1
        node = tree.children_left[node] if s == 1 else tree.children_right[node]
    return node


def node_rows(tree, X, rows):
    """Rows reaching every node under :func:`route`'s rule: list of lists."""
    members = [[] for _ in range(tree.n_nodes)]
    for r in rows:
        node = 0
        members[0].append(r)
        while tree.children_left[node] != -1:
            x = X[r]
            s = primary_side(tree, node, x[tree.feature[node]])
            if s == 0 and tree.surrogates is not None:
                for q in range(tree.surrogates.offsets[node], tree.surrogates.offsets[node + 1]):
                    s = surrogate_side(tree, q, x[tree.surrogates.feature[q]])
                    if s != 0:
                        break
            if s == 0:
                s = 1 if tree.missing_go_to_left[node] else -1
            node = tree.children_left[node] if s == 1 else tree.children_right[node]
            members[node].append(r)
    return members
