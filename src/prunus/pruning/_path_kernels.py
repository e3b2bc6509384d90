"""Numba kernels for Breiman's minimal cost-complexity pruning.

The pruning sequence is computed without simulating the weakest-link loop.
For a branch T_t let C_t(a) = min over pruned subtrees T of T_t of
R(T) + a |T|: a concave, piecewise-linear function of the temperature a.
Node t is a leaf of the smallest minimiser T_a (section 2.3 of Gey's paper)
iff R(t) + a <= C_l(a) + C_r(a); the gap D_t(a) = C_l(a) + C_r(a) - R(t) - a
is increasing (slope >= 1) and non-positive at a = 0, so it has one root
beta_t, and

    t is collapsed in T_a  <=>  a >= beta_t.

Each C_t is kept as a max-heap of its breakpoints (a leftist heap, mergeable
in O(log n)) plus its top linear piece. The root beta_t is found by walking
down from +inf, popping breakpoints above it; popped breakpoints never come
back, so the whole tree costs O(n log n).

Every breakpoint stores the change of the piece's constant and slope as it is
crossed (integers for unit weights), so the constants are sums of exact
risks, and beta_t is one correctly rounded division of exact numbers: two
weakest links tied in exact arithmetic get bit-identical temperatures and are
pruned in the same step, as Table 1 of the paper requires.
"""

import numpy as np

from .._compiled import njit


@njit(cache=True)
def _merge(a, b, key, left, right, rank, stack):
    """Merge two leftist max-heaps (roots ``a``, ``b``; -1 is empty)."""
    if a == -1:
        return b
    if b == -1:
        return a
    if key[a] < key[b]:
        a, b = b, a
    root = a
    depth = 0
    cur = a
    other = b
    # Walk down the right spines (O(log n) long), splicing the larger key in.
    while True:
        stack[depth] = cur
        depth += 1
        r = right[cur]
        if r == -1:
            right[cur] = other
            break
        if key[r] < key[other]:
            right[cur] = other
            other = r
        cur = right[cur]
    # Restore the leftist property on the way back up.
    for i in range(depth - 1, -1, -1):
        node = stack[i]
        lft = left[node]
        rgt = right[node]
        rank_l = rank[lft] if lft != -1 else 0
        rank_r = rank[rgt] if rgt != -1 else 0
        if rank_l < rank_r:
            left[node] = rgt
            right[node] = lft
            rank_r = rank_l
        rank[node] = rank_r + 1
    return root


@njit(cache=True)
def collapse_temperatures(children_left, children_right, node_risk, total_weight):
    """beta_t for every internal node (``inf`` at leaves).

    Parameters
    ----------
    children_left, children_right : int64 arrays
        Tree structure; children have larger ids than parents.
    node_risk : float64 array
        R(t): misclassified weight of node t when it is a leaf (unnormalised).
    total_weight : float
        Weight of the whole sample: temperatures are returned per unit of it,
        in one division so that they stay correctly rounded.

    Returns
    -------
    beta : float64 array
        Temperature (risk per leaf, risk = misclassified weight / total
        weight) from which collapsing t into a leaf is optimal within its
        branch.
    """
    n = children_left.shape[0]
    # A fold's tree of a large regression has ~2n nodes, and these arrays
    # are most of the pruning's memory: the heap's keys are the betas
    # themselves (a node enters the heap keyed by its beta, which never
    # changes), the slopes' changes are leaf counts (integers), node ids
    # int32, ranks below 64 (a leftist heap of rank r has 2^r - 1 nodes or
    # more), and a merge walks two right spines of at most 63 nodes each.
    beta = np.full(n, np.inf)
    key = beta
    d_const = np.empty(n, dtype=np.float64)
    d_slope = np.empty(n, dtype=np.int32)
    left = np.full(n, -1, dtype=np.int32)
    right = np.full(n, -1, dtype=np.int32)
    rank = np.zeros(n, dtype=np.int8)
    stack = np.empty(min(n + 1, 128), dtype=np.int32)
    heap = np.full(n, -1, dtype=np.int32)
    for t in range(n - 1, -1, -1):
        lc = children_left[t]
        if lc == -1:
            continue
        rc = children_right[t]
        h = _merge(heap[lc], heap[rc], key, left, right, rank, stack)
        # The top piece of a processed node's C_t is R(t) + a (constant
        # R(t), slope 1), whether it is a leaf or not: no array holds it.
        const = node_risk[lc] + node_risk[rc]
        slope = 2.0
        while True:
            cand = (node_risk[t] - const) / ((slope - 1.0) * total_weight)
            if h == -1 or cand >= key[h]:
                break
            # The root lies below this breakpoint: cross it downwards.
            const += d_const[h]
            slope += d_slope[h]
            h = _merge(left[h], right[h], key, left, right, rank, stack)
        if cand < 0.0:  # only rounding can push it below 0 (D_t(0) <= 0)
            cand = 0.0
        beta[t] = cand
        # C_t = C_l + C_r below beta_t and R(t) + a above it: one new breakpoint.
        key[t] = cand
        d_const[t] = const - node_risk[t]
        d_slope[t] = slope - 1.0
        left[t] = -1
        right[t] = -1
        rank[t] = 1
        heap[t] = _merge(h, t, key, left, right, rank, stack)
    return beta


@njit(cache=True)
def effective_temperatures(beta, parent):
    """A(t) = min(beta_t, A(parent)): the temperature at which node t stops
    being an internal node of the pruned sequence (top-down pass)."""
    n = beta.shape[0]
    out = np.empty(n, dtype=np.float64)
    for t in range(n):
        p = parent[t]
        if p == -1:
            out[t] = beta[t]
        else:
            out[t] = min(beta[t], out[p])
    return out


@njit(cache=True, nogil=True)
def _effective_in_place(beta, parent):
    """:func:`effective_temperatures` written over ``beta`` (parents come
    before their children, so each parent's value is final when read)."""
    for t in range(beta.shape[0]):
        p = parent[t]
        if p != -1:
            beta[t] = min(beta[t], beta[p])
    return beta


@njit(cache=True, nogil=True)
def path_error_sums(leaves, y, weight, parent, value):
    """Per node t, the sums over the rows whose path goes through t of
    ``w (y - value[t])^2`` and ``w (y - value[t])^4``: the squared error of
    the rows if t were a leaf predicting ``value[t]``, and the sum of the
    squares of those errors (for the standard error of a cross-validated
    risk). Each row walks up from its leaf: O(rows x depth)."""
    n = parent.shape[0]
    sq = np.zeros(n)
    fourth = np.zeros(n)
    for i in range(leaves.shape[0]):
        node = leaves[i]
        w = weight[i]
        v = y[i]
        while node != -1:
            d = v - value[node]
            e = w * d * d
            sq[node] += e
            fourth[node] += e * d * d
            node = parent[node]
    return sq, fourth


@njit(cache=True, nogil=True)
def interval_sums(values, start, stop, n_points):
    """Row ``j`` of the result: the sum of ``values[t]`` over the nodes with
    ``start[t] <= j < stop[t]`` (``values`` of shape (n_nodes, m)).

    A difference array and its running sum, accumulated in the order of
    ``numpy.add.at`` (every start in node order, then every stop) and of
    ``numpy.cumsum``, so the sums are those of the array expression, bit for
    bit, without its temporaries.
    """
    n_nodes, m = values.shape
    diff = np.zeros((n_points + 1, m))
    for t in range(n_nodes):
        for k in range(m):
            diff[start[t], k] += values[t, k]
    for t in range(n_nodes):
        for k in range(m):
            diff[stop[t], k] += -values[t, k]
    out = np.empty((n_points, m))
    for k in range(m):
        acc = 0.0
        for j in range(n_points):
            acc += diff[j, k]
            out[j, k] = acc
    return out


@njit(cache=True, nogil=True)
def node_parents(children_left, children_right):
    """Parent of every node (-1 at the root), as ``depth_and_parent`` finds
    them, without the depths (a fold's tree of a large regression has about
    twice as many nodes as rows)."""
    n = children_left.shape[0]
    parent = np.full(n, -1, dtype=np.int32)
    for t in range(n):
        if children_left[t] != -1:
            parent[children_left[t]] = t
            parent[children_right[t]] = t
    return parent


@njit(cache=True, nogil=True)
def route_numeric(routing, X, rows):
    """Leaf of every row ``rows`` of ``X`` in a tree with numeric splits
    only, ``routing`` = (children_left, children_right, feature, threshold,
    missing_go_to_left)."""
    left, right, feature, threshold, missing_left = routing
    leaves = np.empty(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        row = X[rows[i]]
        node = 0
        while left[node] != -1:
            v = row[feature[node]]
            if v <= threshold[node] or (v != v and missing_left[node]):
                node = left[node]
            else:
                node = right[node]
        leaves[i] = node
    return leaves


@njit(cache=True, nogil=True)
def fold_squared_errors(nodes, parent, X, rows, y, weight, temperatures):
    """Held-out squared errors of a cross-validation fold's regression tree
    at every temperature, from its grown arrays: what
    :func:`~prunus.pruning.path.squared_error_path` then
    ``SquaredErrorPath._held_out_rows`` compute, with the same operations in
    the same order (so the same numbers, bit for bit), and no Python object
    per fold.

    ``nodes`` = (children_left, children_right, feature, threshold,
    missing_go_to_left, moments) of a tree with numeric splits only, grown
    on the fold's training rows (``moments``: weight, mean, within sum of
    squares per node; its means are overwritten, see
    :func:`leaf_squared_errors`), ``parent`` its parents; ``rows`` are the
    held-out rows of ``X``, ``y``, ``weight``. Returns the weighted sums of
    the squared errors (row 0) and of their squares (row 1), shape
    (2, len(temperatures)).
    """
    left, right, feature, threshold, missing_left, moments = nodes
    leaves = route_numeric((left, right, feature, threshold, missing_left), X, rows)
    return leaf_squared_errors((left, right, moments), parent, leaves, rows, y, weight, temperatures)


@njit(cache=True, nogil=True)
def leaf_squared_errors(nodes, parent, leaves, rows, y, weight, temperatures):
    """:func:`fold_squared_errors` of the held-out rows ``rows`` whose
    leaves of the fold's tree are ``leaves`` (routed by the caller, e.g.
    through surrogate splits); ``nodes`` = (children_left, children_right,
    moments).

    A fold's tree of a large regression has about twice as many nodes as
    rows, so the arrays per node are kept few (the collapse temperatures
    and the two error sums; the leaf values are written over the means of
    ``moments``, which the caller gives up): a node's interval of
    temperatures is found when its sums are added (as :func:`interval_sums`
    adds them, every start in node order, then every stop) rather than
    stored, and in increasing temperatures the running sums are taken in
    place of their differences.
    """
    left, right, moments = nodes
    n = left.shape[0]
    collapse = _effective_in_place(collapse_temperatures(left, right, moments[:, 2], moments[0, 0]), parent)
    # Leaf predictions: a node without weight takes its parent's mean.
    value = moments[:, 1]
    for t in range(1, n):
        if moments[t, 0] <= 0.0:
            value[t] = value[parent[t]]
    # Node t is a leaf of T_a for a in [enter(t), exit(t)): enter is 0 at a
    # leaf of the tree, else its collapse temperature; exit is its parent's
    # (+inf at the root).
    for t in range(n):
        if left[t] == -1:
            collapse[t] = np.inf
    held_y = np.empty(rows.shape[0])
    held_w = np.empty(rows.shape[0])
    for i in range(rows.shape[0]):
        held_y[i] = y[rows[i]]
        held_w[i] = weight[rows[i]]
    sq, fourth = path_error_sums(leaves, held_y, held_w, parent, value)
    # The cross-validation temperatures come sorted (one per temperature of
    # T_max's path, about one per row): their stable sort is the identity,
    # so no sorted copy nor order is made for them.
    n_points = temperatures.shape[0]
    ascending = True
    for j in range(1, n_points):
        if temperatures[j] < temperatures[j - 1]:
            ascending = False
            break
    if ascending:
        order = np.empty(0, dtype=np.int64)
        sorted_t = temperatures
    else:
        order = np.argsort(temperatures, kind="mergesort")
        sorted_t = temperatures[order]
    diff = np.zeros((2, n_points + 1))
    for t in range(n):
        enter = 0.0 if left[t] == -1 else collapse[t]
        at = np.searchsorted(sorted_t, enter)
        diff[0, at] += sq[t]
        diff[1, at] += fourth[t]
    for t in range(n):
        exit_ = np.inf if t == 0 else collapse[parent[t]]
        at = np.searchsorted(sorted_t, exit_)
        diff[0, at] += -sq[t]
        diff[1, at] += -fourth[t]
    out = diff if ascending else np.empty((2, n_points + 1))
    for k in range(2):
        acc = 0.0
        for j in range(n_points):
            acc += diff[k, j]
            out[k, j if ascending else order[j]] = acc
    return out[:, :n_points]


@njit(cache=True, nogil=True, inline="always")
def _held_out_intervals(nodes, parent, leaves, held_y, held_w):
    """(enter, exit, misclassified held-out weight per node, held-out
    weight) of a fold's classification tree: node t is a leaf of the pruned
    tree T_a for a in [enter[t], exit[t]), where the held-out rows it holds
    lose ``values[t, 0]``. Arguments as :func:`fold_misclassified`."""
    left, right, counts = nodes
    n, n_classes = counts.shape
    # Leaf labels: the first majority class; a node without weight takes its parent's.
    label = np.empty(n, dtype=np.int64)
    node_risk = np.empty(n)
    for t in range(n):
        total = 0.0
        best = 0
        for k in range(n_classes):
            total += counts[t, k]
            if counts[t, k] > counts[t, best]:
                best = k
        label[t] = best if total > 0.0 or t == 0 else label[parent[t]]
        node_risk[t] = total - counts[t, label[t]]
    beta = collapse_temperatures(left, right, node_risk, counts[0].sum())
    collapse = effective_temperatures(beta, parent)
    enter = np.empty(n)
    exit_ = np.empty(n)
    for t in range(n):
        is_leaf = left[t] == -1
        if is_leaf:
            collapse[t] = np.inf
        enter[t] = 0.0 if is_leaf else collapse[t]
    for t in range(n):
        exit_[t] = np.inf if t == 0 else collapse[parent[t]]
    held = np.zeros((n, n_classes))
    for i in range(leaves.shape[0]):
        held[leaves[i], held_y[i]] += held_w[i]
    for t in range(n - 1, 0, -1):
        for k in range(n_classes):
            held[parent[t], k] += held[t, k]
    values = np.empty((n, 1))
    for t in range(n):
        values[t, 0] = held[t].sum() - held[t, label[t]]
    return enter, exit_, values, held[0].sum()


@njit(cache=True, nogil=True)
def fold_misclassified(nodes, parent, leaves, held_y, held_w, temperatures):
    """Held-out misclassified weight of a cross-validation fold's
    classification tree at every temperature, from its grown arrays: what
    :func:`~prunus.pruning.path.cost_complexity_path` (0-1 loss) then
    ``CostComplexityPath._held_out_rows`` compute, with no Python object per
    fold.

    ``nodes`` = (children_left, children_right, class weights per node) of
    the tree grown on the fold's training rows; ``leaves`` are the leaves
    reached by its held-out rows (their class codes ``held_y`` and weights
    ``held_w``). Every weight must be an integer (their sums below 2^52):
    then every sum here is exact in any order, so the numbers are those of
    the path objects bit for bit. Returns (misclassified weight per
    temperature, held-out weight).
    """
    enter, exit_, values, held = _held_out_intervals(nodes, parent, leaves, held_y, held_w)
    order = np.argsort(temperatures, kind="mergesort")
    sorted_t = temperatures[order]
    start = np.searchsorted(sorted_t, enter, side="left")
    stop = np.searchsorted(sorted_t, exit_, side="left")
    sums = interval_sums(values, start, stop, sorted_t.shape[0])
    wrong = np.empty(order.shape[0])
    for j in range(order.shape[0]):
        wrong[order[j]] = sums[j, 0]
    return wrong, held


@njit(cache=True, nogil=True)
def misclassified_steps(nodes, parent, leaves, held_y, held_w):
    """:func:`fold_misclassified` before the temperatures are known: its
    misclassified weight as a step function of the temperature.

    Returns (breaks, levels, held-out weight): at a temperature ``a`` with
    ``breaks[j] <= a < breaks[j + 1]`` (the last step has no end) the
    misclassified weight is ``levels[j]``; ``breaks[0]`` is 0, where every
    leaf of the grown tree enters. Each level sums the weights of the nodes
    that are leaves of T_a; with integer weights (as
    :func:`fold_misclassified` requires) the sums are exact in any order,
    so :func:`misclassified_at` gives its numbers bit for bit.
    """
    enter, exit_, values, held = _held_out_intervals(nodes, parent, leaves, held_y, held_w)
    n = enter.shape[0]
    position = np.empty(2 * n)
    change = np.empty(2 * n)
    for t in range(n):
        position[t] = enter[t]
        change[t] = values[t, 0]
        position[n + t] = exit_[t]
        change[n + t] = -values[t, 0]
    order = np.argsort(position, kind="mergesort")
    breaks = np.empty(2 * n)
    levels = np.empty(2 * n)
    m = 0
    acc = 0.0
    for j in range(2 * n):
        e = order[j]
        acc += change[e]
        last = j == 2 * n - 1 or position[order[j + 1]] != position[e]
        # Only finite positions start a step: the root leaves T_a at no temperature.
        if last and position[e] < np.inf:
            breaks[m] = position[e]
            levels[m] = acc
            m += 1
    return breaks[:m], levels[:m], held


@njit(cache=True, nogil=True)
def misclassified_at(breaks, levels, temperatures):
    """The levels of :func:`misclassified_steps` at every temperature."""
    wrong = np.empty(temperatures.shape[0])
    for j in range(temperatures.shape[0]):
        step = np.searchsorted(breaks, temperatures[j], side="right") - 1
        wrong[j] = levels[step] if step >= 0 else 0.0
    return wrong


@njit(cache=True, nogil=True)
def integer_count_path(children_left, children_right, parent, counts, sizes):
    """The pruning sequence of a tree under the 0-1 loss, in one pass, for
    class counts that are integers (as integer sample weights give them).

    Every sum of such counts below 2^52 is exact in any order, so this
    gives, bit for bit, what ``path._cost_complexity_path`` computes with
    numpy (``node_labels``, ``_node_loss``, ``_weakest_links``,
    ``_fill_sizes``) without its dozen array passes and temporaries.

    Parameters
    ----------
    children_left, children_right, parent : int64 arrays
        The tree (children have larger ids than parents; the root's parent -1).
    counts : float64 array, shape (n_nodes, n_classes)
        Class weights per node: finite, non-negative, positive at the root.
    sizes : bool
        Whether ``n_leaves`` and ``risks`` are computed (else empty).

    Returns
    -------
    ok : bool
        False where a count is not an integer or the counts sum to 2^52 or
        more: nothing else is meaningful then (the caller takes the general
        path).
    label, alphas, collapse, n_leaves, risks : arrays
        The majority class of every node (an empty node its parent's), the
        path's temperatures, every node's collapse temperature (``inf`` at
        leaves), and |T_k| and R(T_k) for every k.
    """
    n_nodes, n_classes = counts.shape
    total = np.empty(n_nodes)
    label = np.empty(n_nodes, dtype=np.int64)
    grand = 0.0
    for t in range(n_nodes):
        s = 0.0
        best = 0
        for k in range(n_classes):
            c = counts[t, k]
            if c != np.floor(c):
                return False, label, total, total, label, total
            s += c
            if c > counts[t, best]:
                best = k
        total[t] = s
        label[t] = best
        grand += s
    if not grand < 2.0**52:
        return False, label, total, total, label, total
    # An empty node predicts as its parent (top-down: parents come first).
    for t in range(1, n_nodes):
        if total[t] <= 0.0:
            label[t] = label[parent[t]]
    node_risk = np.empty(n_nodes)
    for t in range(n_nodes):
        node_risk[t] = total[t] - counts[t, label[t]]
    weight = total[0]
    beta = collapse_temperatures(children_left, children_right, node_risk, weight)
    collapse = effective_temperatures(beta, parent)
    n_internal = 0
    for t in range(n_nodes):
        if children_left[t] == -1:
            collapse[t] = np.inf
        else:
            n_internal += 1
    points = np.empty(n_internal + 1)
    points[0] = 0.0
    j = 1
    for t in range(n_nodes):
        if children_left[t] != -1:
            points[j] = collapse[t]
            j += 1
    alphas = np.unique(points)
    n_alphas = alphas.shape[0]
    if not sizes:
        return True, label, alphas, collapse, np.empty(0, dtype=np.int64), np.empty(0)
    # Node t is a leaf of T_alpha for alpha in [enter, exit): a difference
    # array over the sorted temperatures (exact sums of integers).
    leaves = np.zeros(n_alphas + 1)
    risk_sum = np.zeros(n_alphas + 1)
    for t in range(n_nodes):
        enter = 0.0 if children_left[t] == -1 else collapse[t]
        exit_ = np.inf if t == 0 else collapse[parent[t]]
        start = np.searchsorted(alphas, enter)
        stop = np.searchsorted(alphas, exit_)
        leaves[start] += 1.0
        leaves[stop] -= 1.0
        risk_sum[start] += node_risk[t]
        risk_sum[stop] -= node_risk[t]
    n_leaves = np.empty(n_alphas, dtype=np.int64)
    risks = np.empty(n_alphas)
    acc_leaves = 0.0
    acc_risk = 0.0
    for j in range(n_alphas):
        acc_leaves += leaves[j]
        acc_risk += risk_sum[j]
        n_leaves[j] = np.int64(np.rint(acc_leaves))
        risks[j] = acc_risk / weight
    return True, label, alphas, collapse, n_leaves, risks
