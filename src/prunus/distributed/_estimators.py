"""Dask input for the estimators' fit / predict / predict_proba / apply / score.

:func:`dask_dispatch` decorates an estimator class: each of those methods,
given a dask collection, runs the dask version below, and otherwise the
estimator's own code unchanged. Predictions are ``map_blocks`` of the
in-memory method over row blocks (lazy dask arrays); ``score`` is computed.
"""

from __future__ import annotations

import functools

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._blocks import as_matrix, as_vector
from ._detect import any_dask, require_dask

_ROW_METHODS = ("predict", "predict_proba", "apply")


def _block_method(X, est, name):
    return getattr(est, name)(X)


def map_rows(est, X, name):
    """``est.<name>`` (``predict``, ``predict_proba`` or ``apply``) over the row blocks of a dask ``X``."""
    dask = require_dask()
    check_is_fitted(est)
    X = as_matrix(X, est.n_features_in_)
    est_d = dask.delayed(est)
    if name == "predict_proba":
        k = len(est.classes_)
        return X.map_blocks(
            _block_method,
            est_d,
            name,
            chunks=(X.chunks[0], (k,)),
            dtype=np.float64,
            meta=np.empty((0, 0), dtype=np.float64),
        )
    dtype = est.classes_.dtype if name == "predict" else np.int64
    return X.map_blocks(_block_method, est_d, name, drop_axis=1, dtype=dtype, meta=np.empty((0,), dtype=dtype))


def score(est, X, y, sample_weight=None):
    """Mean accuracy (weighted by ``sample_weight``) of ``est`` on dask data, computed."""
    dask = require_dask()
    pred = map_rows(est, X, "predict")
    y, pred = as_vector(y, pred, "y")
    right = (pred == y).astype(np.float64)
    if sample_weight is None:
        num, den = right.sum(), dask.array.ones_like(right).sum()
    else:
        w, pred = as_vector(sample_weight, pred, "sample_weight")
        num, den = (right * w).sum(), w.sum()
    num, den = dask.compute(num, den)
    if not den > 0:
        raise ValueError("score needs a sample with positive total weight.")
    return float(num / den)


def _wrap_row_method(name, method):
    @functools.wraps(method)
    def wrapper(self, X, *args, **kwargs):
        if any_dask(X):
            return map_rows(self, X, name)
        return method(self, X, *args, **kwargs)

    return wrapper


def _wrap_score(method):
    @functools.wraps(method)
    def wrapper(self, X, y, sample_weight=None):
        if any_dask(X, y, sample_weight):
            return score(self, X, y, sample_weight)
        return method(self, X, y, sample_weight=sample_weight)

    wrapper.__doc__ = _SCORE_DOC
    return wrapper


_SCORE_DOC = """Mean accuracy of ``predict(X)`` against ``y`` (weighted by ``sample_weight``).

    Parameters
    ----------
    X : array-like, dask array or dask DataFrame, shape (n_samples, n_features)
    y : array-like or dask array, shape (n_samples,)
    sample_weight : array-like or dask array, shape (n_samples,), optional

    Returns
    -------
    score : float
        On dask input the accuracy is computed block by block on the cluster.
    """


def _wrap_fit(method, sampled_fit):
    @functools.wraps(method)
    def wrapper(self, X, y, sample_weight=None):
        if any_dask(X, y, sample_weight) or getattr(self, "grow_size", None) is not None:
            from . import _fit

            return getattr(_fit, sampled_fit)(self, X, y, sample_weight)
        return method(self, X, y, sample_weight=sample_weight)

    return wrapper


def _refuse_dask_fit(method):
    @functools.wraps(method)
    def wrapper(self, X, y, sample_weight=None):
        if any_dask(X, y, sample_weight):
            raise TypeError(
                f"{type(self).__name__} cannot be fit on a dask collection (it would load every row into "
                "memory); fit it on an in-memory sample, or use CARTClassifier(method='M1') or "
                "PACBayesTreeClassifier with grow_size."
            )
        return method(self, X, y, sample_weight=sample_weight)

    return wrapper


def dask_dispatch(sampled_fit=None):
    """Class decorator: dask input for ``predict``, ``predict_proba``, ``apply``, ``score``
    and, when ``sampled_fit`` names a function of :mod:`prunus.distributed._fit`, ``fit``
    (also used in memory when the estimator's ``grow_size`` is set); otherwise ``fit``
    refuses dask input rather than loading it whole."""

    def decorate(cls):
        for name in _ROW_METHODS:
            method = getattr(cls, name, None)
            if method is not None and not getattr(method, "_dask_dispatch", False):
                wrapped = _wrap_row_method(name, method)
                wrapped._dask_dispatch = True
                setattr(cls, name, wrapped)
        if not getattr(cls.score, "_dask_dispatch", False):
            cls.score = _wrap_score(cls.score)
            cls.score._dask_dispatch = True
        if not getattr(cls.fit, "_dask_dispatch", False):
            cls.fit = _wrap_fit(cls.fit, sampled_fit) if sampled_fit else _refuse_dask_fit(cls.fit)
            cls.fit._dask_dispatch = True
        return cls

    return decorate
