"""Plain-Python reference CART builder, for tests only.

Every candidate split of a node is enumerated one by one (no sorting sweep, no
running sums): for each feature, each pair of consecutive distinct present
values gives a threshold, and when the node has missing values (NaN) on that
feature each threshold is tried with the missing rows on either side, plus the
split "every present value left, missing right" (threshold +inf). Scores are
compared in exact arithmetic (``fractions.Fraction`` for Gini and
misclassification; integer powers for entropy once the weights are scaled to
integers), so the tie rule -- lowest feature, then lowest threshold, then
missing values right before left -- is applied to genuine ties only. When two
scores are so close that a float64 implementation could not tell them apart
and yet they differ, or when a near tie cannot be decided exactly, the
reference raises :class:`Ambiguous`; a property test then discards the input.

Scores maximised (equivalent to minimising the weighted impurity of the
children; ``L_k``, ``R_k`` the class weights on each side, ``W_L``, ``W_R`` their
sums):

* gini: ``sum_k L_k^2 / W_L + sum_k R_k^2 / W_R``
* entropy: ``sum_k L_k ln L_k - W_L ln W_L + (same for R)``
* misclassification: ``max_k L_k + max_k R_k``

The impurity decrease compared with ``min_impurity_decrease`` is
scikit-learn's ``W_node / W_root * (i(node) - W_L/W_node i(L) - W_R/W_node i(R))``,
which is ``(score - parent_term) / W_root``; for entropy scikit-learn measures
impurity in bits, so that difference is divided by ``ln 2``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

CRITERIA = ("gini", "entropy", "misclassification")
# Scores closer than this (relative to the node weight) but not equal in exact
# arithmetic are beyond what a float64 builder can be asked to order.
_AMBIGUOUS_REL = 1e-10
# Scores further apart than this are ordered by their float values alone.
_FLOAT_SAFE_REL = 1e-8
_MAX_SCALE = 2**16


class Ambiguous(Exception):
    """A decision the reference cannot make safely (near tie, not exact)."""


@dataclass
class Candidate:
    feature: int
    threshold: float
    missing_left: bool  # side of NaN rows in this candidate (False if the node has none)
    node_has_nan: bool
    left: np.ndarray  # row ids (positive weight) going left
    right: np.ndarray
    left_counts: np.ndarray  # class weights
    right_counts: np.ndarray
    score: float

    @property
    def key(self):
        return (self.feature, self.threshold, self.missing_left)


# ----------------------------------------------------------------- scores
def _class_counts(y, w, rows, n_classes):
    return np.bincount(y[rows], weights=w[rows], minlength=n_classes).astype(np.float64)


def _xlogx(v):
    return v * math.log(v) if v > 0 else 0.0


def node_term(counts, criterion):
    """The "score" of an unsplit node (the parent term)."""
    counts = [float(c) for c in counts]
    total = sum(counts)
    if criterion == "gini":
        return sum(c * c for c in counts) / total
    if criterion == "entropy":
        return sum(_xlogx(c) for c in counts) - _xlogx(total)
    return max(counts)


def _exact_term(counts, criterion):
    counts = [Fraction(float(c)) for c in counts]
    total = sum(counts)
    if criterion == "gini":
        return sum(c * c for c in counts) / total
    return max(counts)


def float_score(lc, rc, criterion):
    return node_term(lc, criterion) + node_term(rc, criterion)


def _exact_score(lc, rc, criterion):
    return _exact_term(lc, criterion) + _exact_term(rc, criterion)


def _entropy_power(counts, scale):
    """exp(scale * term) for entropy as a Fraction: prod c^c / W^W on scaled integers."""
    ints = []
    for c in counts:
        v = Fraction(float(c)) * scale
        if v.denominator != 1:
            raise Ambiguous("entropy tie with weights that do not scale to integers")
        ints.append(int(v))
    num = 1
    for v in ints:
        if v > 0:
            num *= v**v
    total = sum(ints)
    return Fraction(num, total**total)


def _weight_scale(w, rows):
    scale = 1
    for v in w[rows]:
        den = Fraction(float(v)).denominator
        scale = scale * den // math.gcd(scale, den)
        if scale > _MAX_SCALE:
            raise Ambiguous("entropy tie with non-dyadic or fine weights")
    return scale


def compare(a, b, criterion, w_node, scale_fn):
    """Sign of score(a) - score(b) in exact arithmetic (raises Ambiguous)."""
    diff = a.score - b.score
    if abs(diff) > _FLOAT_SAFE_REL * max(1.0, w_node):
        return 1 if diff > 0 else -1
    if criterion == "entropy":
        scale = scale_fn()
        pa = _entropy_power(a.left_counts, scale) * _entropy_power(a.right_counts, scale)
        pb = _entropy_power(b.left_counts, scale) * _entropy_power(b.right_counts, scale)
        sign = (pa > pb) - (pa < pb)
    else:
        ea = _exact_score(a.left_counts, a.right_counts, criterion)
        eb = _exact_score(b.left_counts, b.right_counts, criterion)
        sign = (ea > eb) - (ea < eb)
    if sign != 0 and abs(diff) < _AMBIGUOUS_REL * max(1.0, w_node):
        raise Ambiguous("scores differ by less than a float64 builder can resolve")
    return sign


# ------------------------------------------------------------- candidates
def thresholds(values):
    """Thresholds between consecutive distinct values (sorted, no NaN): a <= t < b."""
    out = []
    for a, b in itertools.pairwise(values):
        t = a / 2 + b / 2
        if t == b:
            t = a
        out.append(t)
    return out


def candidates(X, y, w, rows, criterion, min_samples_leaf, n_classes, features=None):
    """Every valid candidate split of the node holding ``rows``, in tie order.

    Rows of zero weight are dropped first: they are not part of the node.
    """
    rows = np.asarray(rows, dtype=np.int64)
    rows = rows[w[rows] > 0]
    out = []
    for j in range(X.shape[1]) if features is None else sorted(features):
        col = X[rows, j]
        nan = np.isnan(col)
        present_rows, nan_rows = rows[~nan], rows[nan]
        has_nan = nan_rows.size > 0
        values = sorted({float(v) for v in col[~nan]})  # -0.0 == 0.0: one value
        options = []
        for t in thresholds(values):
            go_left = present_rows[X[present_rows, j] <= t]
            go_right = present_rows[~(X[present_rows, j] <= t)]
            options.append((t, False, go_left, np.concatenate([go_right, nan_rows])))
            if has_nan:
                options.append((t, True, np.concatenate([go_left, nan_rows]), go_right))
        if has_nan and present_rows.size:
            options.append((math.inf, False, present_rows, nan_rows))
        for t, miss_left, left, right in options:
            if left.size < min_samples_leaf or right.size < min_samples_leaf:
                continue
            # Sorted rows: one set of rows always sums to the same float counts.
            left, right = np.sort(left), np.sort(right)
            lc = _class_counts(y, w, left, n_classes)
            rc = _class_counts(y, w, right, n_classes)
            out.append(Candidate(j, t, miss_left, has_nan, left, right, lc, rc, float_score(lc, rc, criterion)))
    return out


def best_split(X, y, w, rows, criterion, min_samples_leaf=1, n_classes=None, features=None, strict=False):
    """Best valid candidate of the node holding ``rows`` (None if there is none).

    Ties in exact arithmetic go to the lowest feature, then the lowest
    threshold, then missing values right before left. With ``strict`` a tie
    for the best score raises :class:`Ambiguous` (for comparisons with a
    builder whose tie rule differs).
    """
    if criterion == "log_loss":
        criterion = "entropy"
    if n_classes is None:
        n_classes = int(y.max()) + 1
    rows = np.asarray(rows, dtype=np.int64)
    live = rows[w[rows] > 0]
    w_node = float(w[live].sum())
    cands = candidates(X, y, w, rows, criterion, min_samples_leaf, n_classes, features)
    scale = []

    def scale_fn():
        if not scale:
            scale.append(_weight_scale(w, live))
        return scale[0]

    best, tied = None, False
    for c in cands:  # already in tie order
        if best is None:
            best = c
            continue
        s = compare(c, best, criterion, w_node, scale_fn)
        if s > 0:
            best, tied = c, False
        elif s == 0:
            tied = True
    if strict and tied:
        raise Ambiguous("tie for the best split")
    return best


def impurity_decrease(cand, parent_counts, w_root, criterion):
    """scikit-learn's weighted impurity decrease of a split (float)."""
    gain = cand.score - node_term(parent_counts, criterion)
    if criterion == "entropy":
        gain /= math.log(2)
    return gain / w_root


def _blocked_by_decrease(cand, parent_counts, w_root, criterion, min_impurity_decrease):
    if min_impurity_decrease <= 0:
        return False  # decreases are >= 0 in exact arithmetic: zero-gain splits are made
    if criterion == "entropy":
        dec = impurity_decrease(cand, parent_counts, w_root, criterion)
        if abs(dec - min_impurity_decrease) < 1e-9 * max(1.0, min_impurity_decrease):
            raise Ambiguous("impurity decrease too close to min_impurity_decrease")
        return dec < min_impurity_decrease
    exact = (
        _exact_score(cand.left_counts, cand.right_counts, criterion) - _exact_term(parent_counts, criterion)
    ) / Fraction(float(w_root))
    mid = Fraction(float(min_impurity_decrease))
    if exact != mid and abs(float(exact - mid)) < 1e-9 * max(1.0, float(mid)):
        raise Ambiguous("impurity decrease too close to min_impurity_decrease")
    return exact < mid


# ------------------------------------------------------------------- tree
@dataclass
class Settings:
    criterion: str = "gini"
    max_depth: int | None = None
    min_samples_split: int = 2
    min_samples_leaf: int = 1
    min_impurity_decrease: float = 0.0
    n_classes: int | None = None
    strict: bool = False


def leaf_reason(X, y, w, rows, depth, w_root, s):
    """Why the node holding ``rows`` is a leaf (a string), or its split (a Candidate)."""
    rows = np.asarray(rows, dtype=np.int64)
    live = rows[w[rows] > 0]
    counts = _class_counts(y, w, live, s.n_classes)
    if np.count_nonzero(counts > 0) <= 1:
        return "pure"
    if s.max_depth is not None and depth >= s.max_depth:
        return "max_depth"
    if live.size < s.min_samples_split:
        return "min_samples_split"
    if live.size < 2 * s.min_samples_leaf:
        return "min_samples_leaf"
    best = best_split(X, y, w, live, s.criterion, s.min_samples_leaf, s.n_classes, strict=s.strict)
    if best is None:
        return "no_candidate"
    if _blocked_by_decrease(best, counts, w_root, s.criterion, s.min_impurity_decrease):
        return "min_impurity_decrease"
    return best


def check_weight(w, n):
    w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
    return w


def grow_brute(
    X,
    y,
    sample_weight=None,
    criterion="gini",
    max_depth=None,
    min_samples_split=2,
    min_samples_leaf=1,
    min_impurity_decrease=0.0,
    n_classes=None,
    strict=False,
):
    """Grow the full tree depth first, left child first (preorder ids).

    Returns
    -------
    dict with ``children_left``, ``children_right``, ``feature``, ``threshold``,
    ``missing_go_to_left`` (arrays over nodes, -1 / -2 / -2.0 / False at
    leaves), ``counts`` (n_nodes, n_classes) and ``reason`` (list: the stopping
    rule of each leaf, None at splits).
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.int64)
    w = check_weight(sample_weight, X.shape[0])
    if criterion == "log_loss":
        criterion = "entropy"
    if n_classes is None:
        n_classes = int(y.max()) + 1
    s = Settings(criterion, max_depth, min_samples_split, min_samples_leaf, min_impurity_decrease, n_classes, strict)
    live = np.flatnonzero(w > 0)
    w_root = float(w[live].sum())
    nodes = []

    def grow(rows, depth):
        rec = dict(
            left=-1,
            right=-1,
            feature=-2,
            threshold=-2.0,
            missing=False,
            counts=_class_counts(y, w, rows, n_classes),
            reason=None,
        )
        nodes.append(rec)
        out = leaf_reason(X, y, w, rows, depth, w_root, s)
        if isinstance(out, str):
            rec["reason"] = out
            return
        rec["feature"], rec["threshold"] = out.feature, out.threshold
        if out.node_has_nan:
            rec["missing"] = out.missing_left
        else:
            rec["missing"] = out.left.size > out.right.size
        rec["left"] = len(nodes)
        grow(out.left, depth + 1)
        rec["right"] = len(nodes)
        grow(out.right, depth + 1)

    grow(live, 0)
    return dict(
        children_left=np.array([r["left"] for r in nodes], dtype=np.int64),
        children_right=np.array([r["right"] for r in nodes], dtype=np.int64),
        feature=np.array([r["feature"] for r in nodes], dtype=np.int64),
        threshold=np.array([r["threshold"] for r in nodes], dtype=np.float64),
        missing_go_to_left=np.array([r["missing"] for r in nodes], dtype=bool),
        counts=np.array([r["counts"] for r in nodes], dtype=np.float64).reshape(len(nodes), n_classes),
        reason=[r["reason"] for r in nodes],
    )


# ---------------------------------------------------------------- routing
def route(arrays, x):
    """Path (list of node ids) of one row ``x`` through tree arrays."""
    left, right = arrays["children_left"], arrays["children_right"]
    feat, thr, miss = arrays["feature"], arrays["threshold"], arrays["missing_go_to_left"]
    node, path = 0, [0]
    while left[node] != -1:
        v = x[feat[node]]
        go_left = bool(miss[node]) if math.isnan(v) else v <= thr[node]
        node = left[node] if go_left else right[node]
        path.append(int(node))
    return path


def apply_brute(arrays, X):
    return np.array([route(arrays, x)[-1] for x in np.asarray(X, dtype=np.float64)], dtype=np.int64)


def rows_per_node(arrays, X, rows=None):
    """List over nodes of the row ids (from ``rows``) whose path visits the node."""
    X = np.asarray(X, dtype=np.float64)
    n_nodes = len(arrays["children_left"])
    out = [[] for _ in range(n_nodes)]
    for i in range(X.shape[0]) if rows is None else rows:
        for node in route(arrays, X[i]):
            out[node].append(i)
    return [np.array(r, dtype=np.int64) for r in out]


def arrays_of(tree):
    """The routing arrays of a prunus ``Tree`` (or of a scikit-learn ``tree_``)."""
    n = len(tree.children_left)
    miss = getattr(tree, "missing_go_to_left", None)
    return dict(
        children_left=np.asarray(tree.children_left, dtype=np.int64),
        children_right=np.asarray(tree.children_right, dtype=np.int64),
        feature=np.asarray(tree.feature, dtype=np.int64),
        threshold=np.asarray(tree.threshold, dtype=np.float64),
        missing_go_to_left=np.zeros(n, dtype=bool) if miss is None else np.asarray(miss, dtype=bool),
    )
