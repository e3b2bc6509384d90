"""Split criteria of the CART builder, as numba functions of class counts.

A split of a node with class weights ``T`` into ``L`` and ``R = T - L`` is
scored by a *proxy* that is largest for the split of smallest weighted child
impurity ``W_L i(L) + W_R i(R)`` (Breiman et al.'s impurity decrease, section
2.3 of Gey, *Risk bounds for CART classifiers under a margin condition*):

* Gini, ``i(t) = 1 - sum_k p_k^2``:     proxy ``sum_k L_k^2 / W_L + sum_k R_k^2 / W_R``
* entropy, ``i(t) = -sum_k p_k log p_k``: proxy ``sum_k L_k log L_k - W_L log W_L + (same for R)``
* misclassification, ``i(t) = 1 - max_k p_k``: proxy ``max_k L_k + max_k R_k``
* squared error (regression), ``i(t)`` the weighted variance of y in t: proxy
  ``S_L^2 / W_L + S_R^2 / W_R`` with ``S`` the weighted sums of ``y - mean(t)``
  (Breiman et al.'s least-squares criterion, chapter 8). Centring at the
  node's own mean keeps the proxy exact to rounding when the mean is large
  against the spread, where raw sums of y and y^2 lose every digit.

The same expression on the node's own counts is its *node term* (0 for the
centred squared error); the weighted
impurity decrease of a split is ``proxy - node term`` (entropy in bits, as in
scikit-learn, so that ``min_impurity_decrease`` means the same in both).
"""

import math

from .._compiled import njit
from ._no_refcount import njit_no_refcount

GINI = 0
ENTROPY = 1
MISCLASSIFICATION = 2
SQUARED_ERROR = 3

CLASSIFICATION_CRITERIA = {
    "gini": GINI,
    "entropy": ENTROPY,
    "log_loss": ENTROPY,
    "misclassification": MISCLASSIFICATION,
}
REGRESSION_CRITERIA = {"squared_error": SQUARED_ERROR}
CRITERIA = {**CLASSIFICATION_CRITERIA, **REGRESSION_CRITERIA}

_LN2 = math.log(2.0)


@njit(cache=True, inline="always")
def _xlogx(x):
    return x * math.log(x) if x > 0.0 else 0.0


@njit(cache=True, nogil=True, inline="always")
def term(x, criterion):
    """Per-class summand of the proxy: x^2 (Gini) or x log x (entropy)."""
    if criterion == GINI:
        return x * x
    return _xlogx(x)


@njit(cache=True, nogil=True, inline="always")
def term_change(x, delta, criterion):
    """``term(x + delta) - term(x)``, exactly for Gini on integer weights."""
    if criterion == GINI:
        return delta * (2.0 * x + delta)
    return _xlogx(x + delta) - _xlogx(x)


@njit(cache=True, nogil=True, inline="always")
def proxy_from_sums(sum_left, weight_left, sum_right, weight_right, criterion):
    """The proxy from the per-side sums of :func:`term` (Gini or entropy)."""
    if criterion == GINI:
        return sum_left / weight_left + sum_right / weight_right
    return sum_left - _xlogx(weight_left) + sum_right - _xlogx(weight_right)


@njit_no_refcount
def node_term(counts, criterion):
    """The proxy's expression on one node's class weights ``counts`` (0 for
    the squared error, whose proxy is centred at the node's mean)."""
    if criterion == SQUARED_ERROR:
        return 0.0
    total = 0.0
    acc = 0.0
    for k in range(counts.shape[0]):
        c = counts[k]
        total += c
        if criterion != MISCLASSIFICATION:
            acc += term(c, criterion)
        elif c > acc:
            acc = c
    if criterion == GINI:
        return acc / total if total > 0.0 else 0.0
    if criterion == ENTROPY:
        return acc - _xlogx(total)
    return acc


@njit_no_refcount
def split_proxy(left, missing, add_missing, total, criterion):
    """Proxy of the split whose left child holds ``left`` (plus ``missing``
    when ``add_missing``) and whose right child holds the rest of ``total``."""
    sum_l = 0.0
    sum_r = 0.0
    acc_l = 0.0
    acc_r = 0.0
    for k in range(total.shape[0]):
        lk = left[k] + missing[k] if add_missing else left[k]
        rk = total[k] - lk
        if rk < 0.0:  # rounding of non-dyadic weights; a class is never negative
            rk = 0.0
        sum_l += lk
        sum_r += rk
        if criterion != MISCLASSIFICATION:
            acc_l += term(lk, criterion)
            acc_r += term(rk, criterion)
        else:
            if lk > acc_l:
                acc_l = lk
            if rk > acc_r:
                acc_r = rk
    if criterion != MISCLASSIFICATION:
        return proxy_from_sums(acc_l, sum_l, acc_r, sum_r, criterion)
    return acc_l + acc_r


@njit(cache=True, nogil=True, inline="always")
def candidate_proxy(missing_left, counts, sums, weights, criterion):
    """Proxy of one threshold candidate of a class-weight scan, with the
    node's missing rows sent left (``missing_left``) or right.

    ``counts = (left, missing, total)`` are the class weights left of the
    threshold (present rows), of the missing rows and of the node;
    ``sums = (sum_la, sum_ra, sum_lb, sum_rb)`` the running :func:`term`
    sums of the left and right child with the missing rows right (``a``)
    or left (``b``); ``weights = (weight_left, weight_missing,
    weight_total)``. Gini and entropy take the running sums (O(1));
    misclassification, whose term is a maximum, is taken from the counts.
    """
    left, missing, total = counts
    weight_left, weight_missing, weight_total = weights
    if criterion == MISCLASSIFICATION:
        return split_proxy(left, missing, missing_left, total, criterion)
    sum_la, sum_ra, sum_lb, sum_rb = sums
    if not missing_left:
        return proxy_from_sums(sum_la, weight_left, sum_ra, weight_total - weight_left, criterion)
    return proxy_from_sums(
        sum_lb, weight_left + weight_missing, sum_rb, weight_total - weight_missing - weight_left, criterion
    )


@njit(cache=True, nogil=True, inline="always")
def squared_error_proxy(weight_left, sum_left, weight_right, sum_right):
    """``S_L^2 / W_L + S_R^2 / W_R``: the between-children sum of squares of
    a split when the sums are of deviations from the node's mean."""
    return sum_left * sum_left / weight_left + sum_right * sum_right / weight_right


@njit(cache=True, nogil=True, inline="always")
def better(proxy, feature, best_proxy, best_feature, tol):
    """The tie rule of split candidates: strictly better, or equal within
    rounding and of a lower feature (the candidates of one feature are
    scanned in a fixed order, so the first of equal ones is kept by the
    strict test)."""
    if proxy > best_proxy + tol:
        return True
    return proxy >= best_proxy - tol and feature < best_feature


@njit(cache=True, nogil=True, inline="always")
def midpoint(a, b):
    """A threshold t with a <= t < b, for consecutive distinct a < b: halves
    first, so that neither 1e308 overflows nor subnormals round onto b."""
    t = a / 2.0 + b / 2.0
    if t >= b or t < a:
        t = a
    return t


@njit_no_refcount
def impurity_decrease(proxy, node_value, criterion):
    """Weighted impurity decrease ``W_t i(t) - W_L i(L) - W_R i(R)`` from a
    split's proxy and its node's :func:`node_term`."""
    gain = proxy - node_value
    return gain / _LN2 if criterion == ENTROPY else gain


def criterion_code(criterion):
    """Numeric code of a criterion name (ValueError naming ``criterion``)."""
    try:
        return CRITERIA[criterion]
    except (KeyError, TypeError):
        raise ValueError(f"criterion must be one of {sorted(CRITERIA)}, got {criterion!r}.") from None
