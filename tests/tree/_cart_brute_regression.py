"""Plain-Python reference CART builder for the squared error, for tests only.

Every candidate split of a node is enumerated one by one, as in
``_cart_brute`` (consecutive distinct present values give the thresholds;
with missing values each threshold is tried with them right, then left, then
"every present value left, missing right" at threshold +inf), and scored in
exact rational arithmetic (``fractions.Fraction`` of the float64 y and
weights): the score of a split is ``S_L^2 / W_L + S_R^2 / W_R`` with ``S`` the
weighted sums of y, so the tie rule (lowest feature, then lowest threshold,
then missing values right before left) is applied to genuine ties only.

Two scores that differ in exact arithmetic by less than ``margin`` times the
node's within sum of squares are beyond what a float64 builder can be asked
to order (:class:`Ambiguous`); a property test then discards the input. With
``strict`` a tie for the best score raises too (for comparisons with a
builder whose tie rule differs, such as scikit-learn's random feature order).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from _cart_brute import Ambiguous, thresholds

DEFAULT_MARGIN = 1e-10


@dataclass
class Candidate:
    feature: int
    threshold: float
    missing_left: bool
    node_has_nan: bool
    left: np.ndarray
    right: np.ndarray
    score: Fraction

    @property
    def key(self):
        return (self.feature, self.threshold, self.missing_left)


def moments(y, w, rows):
    """Exact (W, S, Q) = sums of w, w y, w y^2 over ``rows``."""
    W = sum((Fraction(float(w[i])) for i in rows), Fraction(0))
    S = sum((Fraction(float(w[i])) * Fraction(float(y[i])) for i in rows), Fraction(0))
    Q = sum((Fraction(float(w[i])) * Fraction(float(y[i])) ** 2 for i in rows), Fraction(0))
    return W, S, Q


def within_ss(y, w, rows):
    """Exact weighted sum of squared deviations from the weighted mean."""
    W, S, Q = moments(y, w, rows)
    return Q - S * S / W if W > 0 else Fraction(0)


def score(y, w, left, right):
    _, sl, _ = moments(y, w, left)
    _, sr, _ = moments(y, w, right)
    wl = sum((Fraction(float(w[i])) for i in left), Fraction(0))
    wr = sum((Fraction(float(w[i])) for i in right), Fraction(0))
    return sl * sl / wl + sr * sr / wr


def candidates(X, y, w, rows, min_samples_leaf):
    rows = np.asarray(rows, dtype=np.int64)
    rows = rows[w[rows] > 0]
    out = []
    for j in range(X.shape[1]):
        col = X[rows, j]
        nan = np.isnan(col)
        present_rows, nan_rows = rows[~nan], rows[nan]
        has_nan = nan_rows.size > 0
        values = sorted({float(v) for v in col[~nan]})
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
            left, right = np.sort(left), np.sort(right)
            out.append(Candidate(j, t, miss_left, has_nan, left, right, score(y, w, left, right)))
    return out


def best_split(X, y, w, rows, min_samples_leaf=1, strict=False, margin=DEFAULT_MARGIN):
    """Best valid candidate of the node holding ``rows`` (None if there is none)."""
    rows = np.asarray(rows, dtype=np.int64)
    live = rows[w[rows] > 0]
    ss = within_ss(y, w, live)
    cands = candidates(X, y, w, live, min_samples_leaf)
    best, tied = None, False
    for c in cands:  # in tie order
        if best is None:
            best = c
        elif c.score > best.score:
            best, tied = c, False
        elif c.score == best.score:
            tied = True
    if best is None:
        return None
    for c in cands:
        if c.score != best.score and best.score - c.score <= margin * ss:
            raise Ambiguous("two scores differ by less than a float64 builder can resolve")
    if strict and tied:
        raise Ambiguous("tie for the best split")
    return best


def decrease(cand, y, w, rows, w_root):
    """Exact scikit-learn impurity decrease ``(SS_t - SS_L - SS_R) / W_root``."""
    W, S, _ = moments(y, w, rows)
    return (cand.score - S * S / W) / Fraction(float(w_root))


def grow_brute(
    X,
    y,
    sample_weight=None,
    max_depth=None,
    min_samples_split=2,
    min_samples_leaf=1,
    min_impurity_decrease=0.0,
    strict=False,
    margin=DEFAULT_MARGIN,
):
    """Grow the full least-squares tree depth first, left child first (preorder ids).

    Returns the arrays of ``_cart_brute.grow_brute`` with ``counts`` the
    exact (weight, mean, within sum of squares) per node as floats, and
    ``reason`` the stopping rule of every leaf.
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    w = np.ones(X.shape[0]) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    live = np.flatnonzero(w > 0)
    w_root = float(w[live].sum())
    nodes = []

    def grow(rows, depth):
        W, S, _ = moments(y, w, rows)
        rec = dict(
            left=-1,
            right=-1,
            feature=-2,
            threshold=-2.0,
            missing=False,
            counts=[float(W), float(S / W), float(within_ss(y, w, rows))],
            reason=None,
        )
        nodes.append(rec)
        reason = None
        if len({float(y[i]) for i in rows}) <= 1:
            reason = "pure"
        elif max_depth is not None and depth >= max_depth:
            reason = "max_depth"
        elif rows.size < min_samples_split:
            reason = "min_samples_split"
        elif rows.size < 2 * min_samples_leaf:
            reason = "min_samples_leaf"
        else:
            best = best_split(X, y, w, rows, min_samples_leaf, strict, margin)
            if best is None:
                reason = "no_candidate"
            elif min_impurity_decrease > 0:
                dec = decrease(best, y, w, rows, w_root)
                mid = Fraction(float(min_impurity_decrease))
                if dec != mid and abs(float(dec - mid)) < 1e-9 * max(1.0, float(mid)):
                    raise Ambiguous("impurity decrease too close to min_impurity_decrease")
                if dec < mid:
                    reason = "min_impurity_decrease"
        if reason is not None:
            rec["reason"] = reason
            return
        rec["feature"], rec["threshold"] = best.feature, best.threshold
        rec["missing"] = best.missing_left if best.node_has_nan else best.left.size > best.right.size
        rec["left"] = len(nodes)
        grow(best.left, depth + 1)
        rec["right"] = len(nodes)
        grow(best.right, depth + 1)

    grow(live, 0)
    return dict(
        children_left=np.array([r["left"] for r in nodes], dtype=np.int64),
        children_right=np.array([r["right"] for r in nodes], dtype=np.int64),
        feature=np.array([r["feature"] for r in nodes], dtype=np.int64),
        threshold=np.array([r["threshold"] for r in nodes], dtype=np.float64),
        missing_go_to_left=np.array([r["missing"] for r in nodes], dtype=bool),
        counts=np.array([r["counts"] for r in nodes], dtype=np.float64).reshape(len(nodes), 3),
        reason=[r["reason"] for r in nodes],
    )
