"""Synthetic classification problems with a known Bayes classifier.

Gey's two margin examples (section 3.2 of S. Gey, *Risk bounds for CART
classifiers under a margin condition*)
satisfy the margin assumption MA(1) with any h < |2q - 1|; the smooth
multiclass generator has a Hölder-continuous regression function for rate
experiments. Every generator returns, besides ``X`` and ``y``, the Bayes
prediction of each row (``bayes_pred``), the Bayes risk (``bayes_risk``) and a
``bayes_predict(X)`` function, so experiments can report excess risk

    l(f*, f) = P(f(X) != Y) - P(f*(X) != Y),     (eq. 5)

without a test sample: see :func:`excess_risk`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from scipy.special import softmax
from sklearn.utils import Bunch, check_random_state

#: What ``random_state`` arguments accept: a seed, a RandomState or None.
RandomStateLike = int | np.random.RandomState | None


def _check_q(q):
    q = float(q)
    if not 0.0 <= q <= 1.0:
        raise ValueError(f"q must lie in [0, 1], got {q}.")
    return q


def _check_n(n_samples):
    if int(n_samples) != n_samples or n_samples < 1:
        raise ValueError(f"n_samples must be a positive integer, got {n_samples!r}.")
    return int(n_samples)


def _flip(region, q, rng):
    """Y = 1 with probability q inside ``region`` and 1 - q outside."""
    p_one = np.where(region, q, 1.0 - q)
    return (rng.random_sample(region.shape[0]) < p_one).astype(np.int64)


def _binary_bunch(X, y, region, q, bayes_predict, name, description):
    # eta = q on the region, 1 - q elsewhere; f* = 1{eta >= 1/2} (eq. 3).
    bayes_pred = bayes_predict(X)
    return Bunch(
        X=X,
        y=y,
        bayes_pred=bayes_pred,
        bayes_predict=bayes_predict,
        bayes_risk=min(q, 1.0 - q),
        margin=abs(2.0 * q - 1.0),
        feature_names=[f"x{j + 1}" for j in range(X.shape[1])],
        target_names=np.asarray(["0", "1"]),
        train_index=None,
        test_index=None,
        description=description,
        source=f"synthetic: {name}",
    )


def make_gey_hypercube(
    n_samples: int = 1000, n_features: int = 2, q: float = 0.2, random_state: RandomStateLike = None
) -> Bunch:
    """Example 1 of Gey (section 3.2): X uniform on [0, 1]^d.

    If all coordinates lie on the same side of 1/2, Y = 1 with probability
    ``q``; otherwise Y = 1 with probability ``1 - q``.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of rows.
    n_features : int, default=2
        Dimension d of the hypercube.
    q : float in [0, 1], default=0.2
        Label flip probability; the margin is ``|2q - 1|``.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw; the same seed gives the same sample.

    Returns
    -------
    data : Bunch
        ``X``, ``y``, ``bayes_pred`` (the Bayes prediction of each row),
        ``bayes_predict`` (the Bayes rule as a function of X), ``bayes_risk``,
        ``margin``, ``feature_names``, ``target_names``, ``description`` and ``source``.

    See Also
    --------
    excess_risk : Excess risk of a classifier on the problem.
    """
    n = _check_n(n_samples)
    q = _check_q(q)
    if int(n_features) != n_features or n_features < 1:
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}.")
    rng = check_random_state(random_state)
    X = rng.random_sample((n, int(n_features)))

    def region(Z):
        low = Z <= 0.5
        return low.all(axis=1) | (~low).all(axis=1)

    def bayes_predict(Z):
        Z = np.asarray(Z, dtype=np.float64)
        inside = region(Z)
        return np.where(inside, int(q >= 0.5), int(1.0 - q >= 0.5)).astype(np.int64)

    y = _flip(region(X), q, rng)
    return _binary_bunch(
        X,
        y,
        region(X),
        q,
        bayes_predict,
        "gey_hypercube",
        f"Gey example 1: X ~ U[0,1]^{n_features}, label flip probability q={q}.",
    )


def make_gey_gaussian(n_samples: int = 1000, q: float = 0.2, random_state: RandomStateLike = None) -> Bunch:
    """Example 2 of Gey (section 3.2): X ~ N(0, I_2).

    If X^1 > 0 and X^2 > 0, Y = 1 with probability ``q``; otherwise Y = 1
    with probability ``1 - q``.

    Parameters
    ----------
    n_samples : int, default=1000
        Number of rows.
    q : float in [0, 1], default=0.2
        Label flip probability; the margin is ``|2q - 1|``.
    random_state : int, RandomState instance or None, default=None
        Seed of the draw; the same seed gives the same sample.

    Returns
    -------
    data : Bunch
        ``X``, ``y``, ``bayes_pred`` (the Bayes prediction of each row),
        ``bayes_predict`` (the Bayes rule as a function of X), ``bayes_risk``,
        ``margin``, ``feature_names``, ``target_names``, ``description`` and ``source``.

    See Also
    --------
    excess_risk : Excess risk of a classifier on the problem.
    """
    n = _check_n(n_samples)
    q = _check_q(q)
    rng = check_random_state(random_state)
    X = rng.standard_normal((n, 2))

    def region(Z):
        return (Z[:, 0] > 0) & (Z[:, 1] > 0)

    def bayes_predict(Z):
        Z = np.asarray(Z, dtype=np.float64)
        return np.where(region(Z), int(q >= 0.5), int(1.0 - q >= 0.5)).astype(np.int64)

    y = _flip(region(X), q, rng)
    return _binary_bunch(
        X,
        y,
        region(X),
        q,
        bayes_predict,
        "gey_gaussian",
        f"Gey example 2: X ~ N(0, I_2), positive quadrant rule, label flip probability q={q}.",
    )


def make_holder_multiclass(
    n_samples: int = 1000,
    n_features: int = 2,
    n_classes: int = 3,
    smoothness: float = 0.5,
    scale: float = 4.0,
    random_state: RandomStateLike = None,
) -> Bunch:
    """Multiclass problem with a Hölder-continuous regression function.

    X is uniform on [0, 1]^d and ``P(Y = k | x) = softmax_k(-scale * ||x - c_k||^s)``
    with centres ``c_k`` drawn once from ``random_state`` and ``s = smoothness``
    in (0, 1]: each ``P(Y = k | .)`` is s-Hölder. The Bayes rule predicts the
    nearest centre; its risk ``E[1 - max_k P(Y = k | X)]`` is estimated on
    200,000 fresh points (``bayes_risk``).

    Parameters
    ----------
    n_samples : int, default=1000
        Number of rows.
    n_features : int, default=2
        Dimension d of the unit cube.
    n_classes : int, default=3
        Number of classes (and centres), at least 2.
    smoothness : float in (0, 1], default=0.5
        The Hölder exponent s.
    scale : float, default=4.0
        Sharpness of the softmax: larger values make the classes purer.
    random_state : int, RandomState instance or None, default=None
        Seed of the centres and of the draw; the same seed gives the same sample.

    Returns
    -------
    data : Bunch
        ``X``, ``y``, ``bayes_pred`` (the Bayes prediction of each row),
        ``bayes_predict`` (the Bayes rule as a function of X), ``bayes_risk``,
        ``bayes_proba`` (the class probabilities as a function of X), ``centres``, ``feature_names``, ``target_names``, ``description`` and ``source``.

    See Also
    --------
    excess_risk : Excess risk of a classifier on the problem.
    """
    n = _check_n(n_samples)
    if not 0.0 < smoothness <= 1.0:
        raise ValueError(f"smoothness must lie in (0, 1], got {smoothness}.")
    if int(n_classes) != n_classes or n_classes < 2:
        raise ValueError(f"n_classes must be an integer >= 2, got {n_classes!r}.")
    if int(n_features) != n_features or n_features < 1:
        raise ValueError(f"n_features must be a positive integer, got {n_features!r}.")
    rng = check_random_state(random_state)
    d, k = int(n_features), int(n_classes)
    centres = rng.random_sample((k, d))

    def proba(Z):
        dist = np.sqrt(((Z[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2))
        return softmax(-scale * dist**smoothness, axis=1)

    def bayes_predict(Z):
        return np.argmax(proba(np.asarray(Z, dtype=np.float64)), axis=1).astype(np.int64)

    X = rng.random_sample((n, d))
    p = proba(X)
    y = (rng.random_sample(n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1).astype(np.int64)
    y = np.minimum(y, k - 1)
    mc = np.random.RandomState(12345).random_sample((200_000, d))
    bayes_risk = float(np.mean(1.0 - proba(mc).max(axis=1)))
    return Bunch(
        X=X,
        y=y,
        bayes_pred=bayes_predict(X),
        bayes_predict=bayes_predict,
        bayes_proba=proba,
        bayes_risk=bayes_risk,
        centres=centres,
        feature_names=[f"x{j + 1}" for j in range(d)],
        target_names=np.asarray([str(c) for c in range(k)]),
        train_index=None,
        test_index=None,
        description=(f"Smooth multiclass: X ~ U[0,1]^{d}, {k} classes, softmax of -{scale}*||x-c_k||^{smoothness}."),
        source="synthetic: holder_multiclass",
    )


def excess_risk(
    predict: Callable[[np.ndarray], np.ndarray], problem: Bunch, n_test: int = 200_000, random_state: int = 0
) -> float:
    """Monte Carlo estimate of the excess risk l(f*, f) (eq. 5) of ``predict``.

    Uses ``l(f*, f) = E[|2 eta(X) - 1| 1{f(X) != f*(X)}]``, which for Gey's
    examples is ``margin * P(f(X) != f*(X))``: no label noise enters the
    estimate, only the input distribution.

    Parameters
    ----------
    predict : callable
        ``predict(X) -> labels`` of the classifier, e.g. a fitted
        estimator's ``predict``.
    problem : Bunch
        A Bunch returned by one of the generators of this module (drawn
        again for fresh inputs).
    n_test : int, default=200_000
        Number of fresh inputs of the Monte Carlo estimate.
    random_state : int, default=0
        Seed of the fresh inputs.

    Returns
    -------
    excess_risk : float
        Estimate of ``P(f(X) != Y) - P(f*(X) != Y)``.

    See Also
    --------
    make_gey_hypercube, make_gey_gaussian, make_holder_multiclass
    """
    source = problem.source.split(": ", 1)[-1]
    if source not in _GENERATORS:
        raise ValueError(f"excess_risk needs a Bunch from a prunus generator, got source {problem.source!r}.")
    fresh = _GENERATORS[source](problem, n_test, random_state)
    disagree = np.asarray(predict(fresh)) != problem.bayes_predict(fresh)
    if "margin" in problem:
        return float(problem.margin * np.mean(disagree))
    p = problem.bayes_proba(fresh)
    rows = np.arange(fresh.shape[0])
    gap = p[rows, problem.bayes_predict(fresh)] - p[rows, np.asarray(predict(fresh), dtype=np.int64)]
    return float(np.mean(gap))


_GENERATORS = {
    "gey_hypercube": lambda b, n, rs: check_random_state(rs).random_sample((n, b.X.shape[1])),
    "gey_gaussian": lambda b, n, rs: check_random_state(rs).standard_normal((n, 2)),
    "holder_multiclass": lambda b, n, rs: check_random_state(rs).random_sample((n, b.X.shape[1])),
}
