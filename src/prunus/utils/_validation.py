"""The opening of every classifier's ``fit``: parameters, X / y / sample_weight, labels.

:func:`open_classifier_fit` is the one way a prunus classifier starts a fit:
it forgets the previous fit, checks the hyper-parameters against their
declared constraints, refuses dask collections (the Dask estimators of
:mod:`prunus.distributed` take those), checks ``X``, ``y`` and
``sample_weight`` with scikit-learn's public validation, encodes the labels
and refuses a single class, all before any long work.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import validate_data

from ._param_validation import validate_fit

#: A checked feature matrix: a numpy array, or a scipy sparse matrix where the
#: caller accepts one (scipy ships no type stubs: that side is ``Any`` to the
#: type checker, and the numpy side is still checked).
Matrix = np.ndarray | Any

__all__ = [
    "Matrix",
    "check_classes",
    "check_cv_pairs",
    "check_sample_weight",
    "encode_labels",
    "is_dask_collection",
    "open_classifier_fit",
    "refuse_dask",
    "reset_fitted",
]


def is_dask_collection(obj: object) -> bool:
    """True for a dask array, DataFrame, Series or delayed object.

    Recognised by the ``__dask_graph__`` method of dask's collection
    protocol, so neither dask nor :mod:`prunus.distributed` is imported.
    """
    return callable(getattr(type(obj), "__dask_graph__", None))


def refuse_dask(estimator: Any, *arrays: Any, method: str = "fit") -> None:
    """Raise a ``TypeError`` naming the Dask counterpart when an input is a dask collection.

    A core estimator would otherwise load every row into one process. The
    counterpart is the class attribute ``_dask_counterpart`` (a class name of
    :mod:`prunus.distributed`), when there is one.
    """
    for obj in arrays:
        if is_dask_collection(obj):
            name = type(estimator).__name__
            counterpart = getattr(estimator, "_dask_counterpart", None)
            if counterpart:
                hint = f"use prunus.distributed.{counterpart} for dask input"
            else:
                hint = (
                    "fit it on an in-memory sample, or use prunus.distributed.DaskCARTClassifier, "
                    "DaskCARTRegressor or DaskPACBayesTreeClassifier, which grow on a sample and count the rest"
                )
            raise TypeError(f"{name}.{method} takes in-memory arrays, got a dask {type(obj).__name__}; {hint}.")


def reset_fitted(estimator: Any) -> None:
    """Forget every fitted attribute (a name ending in ``_``, as scikit-learn's convention).

    Called first in ``fit``, so that nothing of a previous fit with other
    settings (a split, a CV table, a best index) survives a refit. Private
    state (a leading ``_``) is either rewritten by every fit or not ours
    (scikit-learn keeps callback state there), so it is left alone.
    """
    for name in list(vars(estimator)):
        if name.endswith("_") and not name.startswith("_"):
            delattr(estimator, name)


def check_cv_pairs(splits: Any, n_samples: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """The (train, test) index pairs of a cross-validation, each checked against the rows it indexes.

    Parameters
    ----------
    splits : iterable of (train, test)
        What a splitter's ``split`` yields, or the pairs given as ``cv``.
    n_samples : int
        Rows the indices point into.

    Returns
    -------
    list of (ndarray, ndarray)
        The pairs as arrays.

    Raises
    ------
    ValueError
        Naming ``cv``: an item is no pair, or a side is empty or indexes a row outside
        ``[0, n_samples)`` (before any fold indexes the data with it).
    """
    pairs = []
    for pair in splits:
        if len(pair) != 2:
            raise ValueError("cv must yield (train, test) index pairs.")
        train, test = (np.asarray(idx) for idx in pair)
        if (
            train.size == 0
            or test.size == 0
            or train.min() < 0
            or test.min() < 0
            or max(train.max(), test.max()) >= n_samples
        ):
            raise ValueError(f"cv yielded a fold with empty or out-of-range indices (n_samples = {n_samples}).")
        pairs.append((train, test))
    return pairs


def check_sample_weight(sample_weight: Any, n_samples: int) -> np.ndarray:
    """Row weights as float64: ones for None; a number for every row, finite and non-negative.

    Raises
    ------
    ValueError
        Naming ``sample_weight`` and what is wrong (shape, NaN / infinity, a negative weight).
    """
    if sample_weight is None:
        return np.ones(n_samples, dtype=np.float64)
    try:
        weight = np.asarray(sample_weight, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"sample_weight must hold numbers: {exc}") from None
    if weight.ndim == 0:
        weight = np.full(n_samples, float(weight))
    if weight.shape != (n_samples,):
        raise ValueError(f"sample_weight must have shape ({n_samples},), got {weight.shape}.")
    if not np.isfinite(weight).all():
        raise ValueError("sample_weight contains NaN or infinity.")
    if (weight < 0).any():
        raise ValueError("sample_weight has negative values; weights must be non-negative.")
    if n_samples and not weight.sum() > 0:
        raise ValueError(
            "sample_weight is zero for every row: sample weights must contain at least one non-zero number."
        )
    return weight


def check_score_inputs(X: Any, y: Any, sample_weight: Any, *, numeric: bool = False) -> None:
    """Refuse a ``y`` or ``sample_weight`` that ``score(X, y, sample_weight)``
    cannot compare with the predictions of ``X``, naming it, before predicting.

    ``y``: finite when it holds numbers (``numeric``: it must), one entry per
    row of ``X``; ``sample_weight`` as :func:`check_sample_weight` takes it.
    scikit-learn's metrics would refuse the same input without naming it
    ("Input contains NaN", "inconsistent numbers of samples: [150, 150, 3]").
    """
    from sklearn.utils.validation import _num_samples, check_array

    y = check_array(y, ensure_2d=False, dtype="numeric" if numeric else None, input_name="y")
    n_rows, n_labels = _num_samples(X), _num_samples(y)
    if n_labels != n_rows:
        raise ValueError(f"y has {n_labels} entries, but X has {n_rows} rows.")
    check_sample_weight(sample_weight, n_rows)


def check_classes(classes: np.ndarray) -> np.ndarray:
    """The sorted distinct labels of a classifier's ``y``; a ``ValueError`` when there is only one."""
    if classes.shape[0] < 2:
        raise ValueError(
            f"y has only one class ({classes[0]!r}); a classifier needs samples of at least 2 classes."
            if classes.shape[0]
            else "y is empty; a classifier needs samples of at least 2 classes."
        )
    return classes


#: The target types (scikit-learn's ``type_of_target``) a classifier accepts.
CLASSIFICATION_TARGETS = (
    "binary",
    "multiclass",
    "multiclass-multioutput",
    "multilabel-indicator",
    "multilabel-sequences",
)


def encode_labels(estimator: Any, y: np.ndarray, target_type: str | None = None) -> np.ndarray:
    """Set ``estimator.classes_`` (sorted labels) and return the int64 code of every row.

    ``target_type``: ``type_of_target`` of ``y`` when already known (it is
    then not computed again, which costs more than a small tree's growth).
    """
    if target_type not in CLASSIFICATION_TARGETS:
        check_classification_targets(y)  # scikit-learn's error
    classes, codes = _unique_labels(y)
    estimator.classes_ = check_classes(classes)
    return codes


def _unique_labels(y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(y, return_inverse=True)``, the codes as int64.

    A 1-D object array of strings (a DataFrame's text column) is done by
    Python's sort of its distinct labels: numpy sorts an object array by the
    same ``<`` comparisons, so the classes and codes are the same, at a
    fifth of numpy's cost (which is a tenth of a small table's growth).
    """
    if isinstance(y, np.ndarray) and y.ndim == 1 and y.dtype == object:
        values = y.tolist()
        if all(type(v) is str for v in values):
            labels = sorted(set(values))
            code_of = {label: code for code, label in enumerate(labels)}
            return np.array(labels, dtype=object), np.array([code_of[v] for v in values], dtype=np.int64)
    classes, codes = np.unique(y, return_inverse=True)
    return classes, codes.astype(np.int64)


def _checked_as_they_are(X: Any, y: Any, ensure_all_finite: bool | str, ensure_min_samples: int) -> bool:
    """Whether scikit-learn's ``validate_data`` would return ``X`` and ``y``
    as they are, raising and warning nothing: a 2-D float64 ndarray X with
    rows and columns (no infinity, nor NaN unless ``ensure_all_finite`` is
    "allow-nan") and a 1-D ndarray y of as many labels, none NaN. Its
    checks of such arrays (array-API and dataframe probes) cost more than a
    small table's tree; anything else, e.g. a malformed input, goes through
    them, and gets their errors."""
    if type(X) is not np.ndarray or type(y) is not np.ndarray:
        return False
    if X.dtype != np.float64 or X.ndim != 2 or y.ndim != 1:
        return False
    n_samples, n_features = X.shape
    if n_samples < max(ensure_min_samples, 1) or n_features < 1 or y.shape[0] != n_samples:
        return False
    if ensure_all_finite == "allow-nan":
        if np.isinf(X).any():
            return False
    elif ensure_all_finite and not np.isfinite(X).all():
        return False
    kind = y.dtype.kind
    if kind == "f":
        return bool(np.isfinite(y).all())
    if kind == "O":
        return not bool((y != y).any())  # scikit-learn's NaN test of an object array
    return kind in "iubU"


def open_classifier_fit(
    estimator: Any,
    X: Any,
    y: Any,
    sample_weight: Any = None,
    *,
    ensure_all_finite: bool | str = True,
    accept_sparse: bool | tuple[str, ...] = False,
    ensure_min_samples: int = 1,
    reset: bool = True,
    prepare_X: Callable[[Any], Any] | None = None,
    check_y: Callable[[Any], str | None] | None = None,
) -> tuple[Matrix, np.ndarray, np.ndarray]:
    """The opening of a classifier's ``fit``.

    Parameters
    ----------
    estimator : estimator
        Declares ``_parameter_constraints``; gets ``classes_``,
        ``n_features_in_`` (and ``feature_names_in_`` for a DataFrame).
    X : array-like or sparse matrix, shape (n_samples, n_features)
        Training features, checked and converted to float64.
    y : array-like, shape (n_samples,)
        Class labels.
    sample_weight : array-like, shape (n_samples,), or None
        Non-negative finite row weights (None: all ones).
    ensure_all_finite : bool or "allow-nan", default=True
        "allow-nan" where NaN is a missing value (CART trees).
    accept_sparse : bool or tuple of str, default=False
        Sparse formats taken as they are.
    ensure_min_samples : int, default=1
        Fewest rows accepted.
    reset : bool, default=True
        Forget the previous fit first (False for a warm start).
    prepare_X : callable, optional
        Applied to ``X`` once the parameters are checked, before ``X`` is validated
        (e.g. categorical columns coded as levels).
    check_y : callable, optional
        Called with ``y`` once the parameters are checked and ``y`` is known not
        to be a dask collection, before the labels are encoded (e.g. to refuse a
        regression target with an error naming the regressor). It may return
        ``type_of_target(y)``, which the encoding of the labels then reuses.

    Returns
    -------
    X : ndarray or sparse matrix, shape (n_samples, n_features)
        float64 features.
    codes : ndarray of int64, shape (n_samples,)
        Class code of every row (its index in ``estimator.classes_``).
    sample_weight : ndarray of float64, shape (n_samples,)
        The weights.
    """
    if reset:
        reset_fitted(estimator)
    validate_fit(estimator, y)
    refuse_dask(estimator, X, y, sample_weight)
    target_type = None
    if check_y is not None:
        target_type = check_y(y)
    if prepare_X is not None:
        X = prepare_X(X)
    if _checked_as_they_are(X, y, ensure_all_finite, ensure_min_samples):
        # What validate_data does to arrays that pass its checks unchanged.
        if hasattr(estimator, "feature_names_in_"):
            del estimator.feature_names_in_
        estimator.n_features_in_ = X.shape[1]
    else:
        X, y = validate_data(
            estimator,
            X,
            y,
            dtype=np.float64,
            ensure_all_finite=ensure_all_finite,
            accept_sparse=accept_sparse,
            ensure_min_samples=ensure_min_samples,
        )
    weight = check_sample_weight(sample_weight, X.shape[0])
    return X, encode_labels(estimator, y, target_type), weight
