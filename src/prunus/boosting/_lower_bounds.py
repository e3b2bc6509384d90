"""Lower bounds on the assessments needed to find the best stump (section 4).

``LB_wo`` (weight-order bound): the best feature is assessed on all ``n``
examples and every other feature ``k`` on the fewest *heaviest* examples that
prove it no better: ``n + sum_{k != k*} min{m : L_m^k >= E*}``.

``LB_exact``: the same, but any subset ``M`` of examples may prove feature
``k`` no better; its minimum size is an integer linear program
``min sum_i c_i  s.t.  sum_i c_i w_i 1{h_j(x_i) != y_i} >= E*  for all stumps j of k``
solved with ``scipy.optimize.milp`` (HiGHS). Stumps are depth-1 trees on a
binary problem: every threshold with both leaf labellings, plus the two
constant labellings (best-labelling lower bounds include them).
"""

from __future__ import annotations

import contextlib
import os
import sys
import warnings

import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse
from scipy.optimize import Bounds, LinearConstraint, milp
from sklearn.utils import Bunch

from ._binning import SparseBins, fit_binning
from ._records import new_workspace, search_settings
from ._split import split_node
from ._weight_order import weight_order_counts


@contextlib.contextmanager
def _quiet_stdout():
    """Silence fd 1 while HiGHS runs: some versions print solver internals from C++."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        yield
        return
    sys.stdout.flush()
    saved = os.dup(fd)
    try:
        with open(os.devnull, "w") as devnull:
            os.dup2(devnull.fileno(), fd)
            yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)


def _feature_ilp(bins, y, w, nb, best_value, tie, time_limit):
    """Smallest set of examples proving one feature no better than ``best_value``."""
    n = y.shape[0]
    rows = []
    mis_const0 = y == 1  # everything labelled 0
    rows.append(mis_const0)
    rows.append(~mis_const0)
    for t in range(nb - 1):
        goes_left = bins <= t
        mis01 = np.where(goes_left, y == 1, y == 0)  # left labelled 0, right 1
        rows.append(mis01)
        rows.append(~mis01)
    M = np.vstack(rows)
    # Scale so the right-hand side is 1: HiGHS' absolute feasibility tolerance
    # (1e-6) would otherwise be large compared with normalized weights. The
    # right-hand side E* - tie (the search's tie tolerance, as in LB_wo) keeps
    # every prefix counted by LB_wo feasible, so LB_exact <= LB_wo; relaxing
    # can only lower the optimum, so the result stays a lower bound.
    A = sparse.csr_matrix(M * (w / best_value)[None, :])
    with _quiet_stdout():
        res = milp(
            c=np.ones(n),
            integrality=np.ones(n),
            bounds=Bounds(0, 1),
            constraints=LinearConstraint(A, lb=1.0 - tie / best_value - 1e-12, ub=np.inf),
            options={"time_limit": float(time_limit), "presolve": True},
        )
    if res.status == 0:
        return int(round(res.fun)), True
    bound = getattr(res, "mip_dual_bound", None)
    if bound is None or not np.isfinite(bound):
        bound = 0.0
    return int(np.ceil(bound - 1e-6)), False


def _stump_bounds_binned(Xb, y, w, feats, n_bins, time_limit=None, exact=True):
    n = y.shape[0]
    order = np.argsort(-w, kind="stable").astype(np.int64)
    feats = np.asarray(feats, dtype=np.int64)
    nbins = np.asarray(n_bins, dtype=np.int64)[feats]
    ws = new_workspace(len(feats), int(nbins.max()), 2)
    slot, t, value, _, node = split_node(Xb, order, y, w, feats, nbins, search_settings("exhaustive"), ws)
    tie = node.tie  # the split search's tie tolerance
    per_wo = weight_order_counts(node, slot, value, ws)
    per_exact = np.zeros(len(feats), dtype=np.int64)
    optimal = True
    for s in range(len(feats)):
        if s == slot:
            per_exact[s] = n
            continue
        if not exact:
            continue
        if value <= 0.0:
            per_exact[s] = 0
            continue
        per_exact[s], ok = _feature_ilp(Xb[feats[s]].astype(np.int64), y, w, nbins[s], value, tie, time_limit)
        optimal &= ok
    return Bunch(
        lb_wo=int(per_wo.sum()),
        lb_exact=int(per_exact.sum()) if exact else None,
        per_feature_wo=per_wo,
        per_feature_exact=per_exact if exact else None,
        best_feature=int(feats[slot]),
        best_threshold_bin=int(t),
        best_error=float(value),
        optimal=bool(optimal),
    )


def exact_lower_bound(
    X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None, max_bins: int = 256, time_limit: float = 10.0
) -> Bunch:
    """LB_exact and LB_wo of the best-stump problem for the given weights.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The sample's features.
    y : array-like of shape (n_samples,), two classes
        The labels.
    sample_weight : array-like, optional
        Boosting weights (uniform by default).
    max_bins : int
        Most bins per feature (as :class:`ExactBoostClassifier`'s).
    time_limit : float
        Seconds per integer program. When HiGHS stops before proving
        optimality the dual bound (still a valid lower bound) is used and a
        ``RuntimeWarning`` says so; ``optimal`` is then False.

    Returns
    -------
    bounds : Bunch
        ``lb_exact``, ``lb_wo``, ``per_feature_exact``, ``per_feature_wo``,
        ``best_feature``, ``best_error`` (weighted error sum of normalized
        weights), ``optimal``.

    See Also
    --------
    stump_lower_bounds : The same on binned features.
    """
    X = np.asarray(X, dtype=np.float64)
    classes, y = np.unique(np.asarray(y), return_inverse=True)
    if X.ndim != 2 or X.shape[0] != y.shape[0]:
        raise ValueError("X must be 2-D with one row per label in y.")
    if len(classes) != 2:
        raise ValueError(f"exact_lower_bound needs a binary problem; y has {len(classes)} classes.")
    w = np.ones(len(y)) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64)
    if w.shape != y.shape or np.any(~np.isfinite(w)) or np.any(w < 0) or w.sum() <= 0:
        raise ValueError("sample_weight must be finite, non-negative, not all zero, one per sample.")
    w = w / w.sum()
    binning = fit_binning(X, max_bins)
    Xb = binning.transform(X)
    feats = np.flatnonzero(binning.n_bins >= 2)
    if len(feats) == 0:
        raise ValueError("X has no non-constant feature.")
    out = _stump_bounds_binned(Xb, y.astype(np.int64), w, feats, binning.n_bins, time_limit)
    if not out.optimal:
        warnings.warn(
            "LB_exact: some integer programs hit the time limit before optimality; "
            "their HiGHS dual bounds were used, so lb_exact is a valid but looser bound.",
            RuntimeWarning,
            stacklevel=2,
        )
    return out


def stump_lower_bounds(
    Xb: np.ndarray,
    y: ArrayLike,
    w: ArrayLike,
    feats: np.ndarray,
    n_bins: np.ndarray,
    time_limit: float = 10.0,
    exact: bool = True,
) -> Bunch:
    """Binned twin of :func:`exact_lower_bound` (used per boosting round).

    Parameters
    ----------
    Xb : ndarray of shape (n_features, n_samples)
        Dense bin codes (:meth:`Binning.transform`).
    y : array-like of int, shape (n_samples,)
        Class codes 0 and 1.
    w : array-like of float, shape (n_samples,)
        Normalized boosting weights.
    feats : ndarray of int
        The features searched (those with at least two bins).
    n_bins : ndarray of int64, shape (n_features,)
        Bins of every feature.
    time_limit : float, default=10.0
        Seconds per integer program.
    exact : bool, default=True
        Also solve the integer programs of LB_exact (else only LB_wo).

    Returns
    -------
    bounds : Bunch
        As :func:`exact_lower_bound` (``lb_exact`` None without ``exact``).

    Raises
    ------
    TypeError
        When ``Xb`` is the ``SparseBins`` of a sparse fit: the integer
        programs read every example's bin.
    """
    if isinstance(Xb, SparseBins):
        raise TypeError("Xb must be the dense bin codes of Binning.transform; got the SparseBins of a sparse fit.")
    return _stump_bounds_binned(
        Xb, np.asarray(y, dtype=np.int64), np.asarray(w, dtype=np.float64), feats, n_bins, time_limit, exact
    )
