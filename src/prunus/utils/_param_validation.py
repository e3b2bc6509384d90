"""Input checks shared by every estimator: hyper-parameters, label types, indices.

Every estimator declares its hyper-parameters once, as a class attribute
``_parameter_constraints`` mapping each constructor argument to the list of
values it accepts, in scikit-learn's vocabulary::

    _parameter_constraints = {
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "criterion": [StrOptions({"gini", "entropy"})],
        "random_state": ["random_state"],
    }

(an :class:`Interval` of ``Integral`` / ``Real`` / ``RealNotInt``, a
:class:`StrOptions` or :class:`Options` set, a type, ``None``, or one of the
strings ``"random_state"``, ``"boolean"``, ``"cv_object"``, ``"array-like"``,
``"no_validation"``), and calls :func:`validate_fit` first thing in ``fit``,
before any work. An invalid value raises
:class:`~sklearn.utils._param_validation.InvalidParameterError` -- both a
``ValueError`` and a ``TypeError`` -- whose message names the parameter, the
estimator, what is accepted and what was given.

Checks that depend on several parameters or on the data (``cv`` folds
against the number of rows, a fixed tree against the number of features)
stay in the estimator, after :func:`validate_fit`.
"""

from __future__ import annotations

import inspect
import numbers
from collections.abc import Iterable
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.utils._param_validation import (
    HasMethods,
    InvalidParameterError,
    Options,
    RealNotInt,
    StrOptions,
    validate_parameter_constraints,
)
from sklearn.utils._param_validation import Interval as _SklearnInterval

__all__ = [
    "CV_SPLITS",
    "HasMethods",
    "Integral",
    "Interval",
    "InvalidParameterError",
    "Options",
    "Real",
    "RealNotInt",
    "StrOptions",
    "check_index",
    "check_label_types",
    "validate_fit",
]


class Interval(_SklearnInterval):
    """scikit-learn's ``Interval`` constraint, except that a bool is never a number.

    ``True`` is an ``Integral`` in Python, so ``n_estimators=True`` would pass
    ``Interval(Integral, 1, None)``; here it is rejected like any other
    non-number.
    """

    def is_satisfied_by(self, val: object) -> bool:
        if isinstance(val, (bool, np.bool_)):
            return False
        return super().is_satisfied_by(val)


class _Splits(HasMethods):
    """An iterable of (train, test) index pairs, not a string (a ``HasMethods`` so that scikit-learn takes it)."""

    def __init__(self):
        super().__init__("__iter__")

    def is_satisfied_by(self, val):
        return isinstance(val, Iterable) and not isinstance(val, (str, bytes)) and not hasattr(val, "split")

    def __str__(self):
        return "an iterable of (train, test) index pairs"


#: ``cv`` given as a number of folds (>= 2), a splitter or the (train, test) splits themselves.
CV_SPLITS = [Interval(Integral, 2, None, closed="left"), HasMethods(["split", "get_n_splits"]), _Splits()]


def _params(estimator: Any) -> dict[str, Any]:
    """Constructor arguments as set on ``estimator`` (``get_params`` without the estimator base class)."""
    if hasattr(estimator, "get_params"):
        return estimator.get_params(deep=False)
    names = [
        p.name
        for p in inspect.signature(type(estimator).__init__).parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    return {name: getattr(estimator, name) for name in names}


def validate_fit(estimator: Any, y: Any = None) -> None:
    """Check ``estimator``'s hyper-parameters, and the label types of ``y``, before ``fit`` does any work.

    Parameters
    ----------
    estimator : object
        Has a ``_parameter_constraints`` class attribute covering its
        constructor arguments.
    y : array-like or None
        Training labels as passed to ``fit`` (before any conversion); see
        :func:`check_label_types`.

    Raises
    ------
    InvalidParameterError
        (a ``ValueError`` and a ``TypeError``) naming the first invalid parameter.
    ValueError
        When ``y`` mixes label types.
    """
    validate_parameter_constraints(
        estimator._parameter_constraints, _params(estimator), caller_name=type(estimator).__name__
    )
    if y is not None:
        check_label_types(y)


def _label_kind(value: object) -> str:
    if isinstance(value, (str, np.str_, bytes)):
        return "str"
    if isinstance(value, (numbers.Number, np.number, np.bool_)):
        return "number"
    return type(value).__name__


def check_label_types(y: Any, name: str = "y") -> None:
    """Refuse labels that mix types (e.g. strings among integers).

    NumPy would otherwise either turn every label into a string (a list
    ``[1, "a"]`` becomes ``["1", "a"]``, so the integer 1 and the string "1"
    become one class) or fail deep inside sorting with ``'<' not supported
    between instances of 'int' and 'str'``. Integers and floats together are
    one kind (numbers). Only lists, tuples and object arrays are inspected:
    an array of a numeric or string dtype holds one kind by construction.

    Raises
    ------
    ValueError
        Naming ``name`` and the Python types found.
    """
    if isinstance(y, (list, tuple)):
        flat = list(y)
    else:
        if getattr(getattr(y, "dtype", None), "kind", None) != "O":
            return
        flat = list(np.asarray(y, dtype=object).ravel())
    kinds = {_label_kind(v) for v in flat}
    if len(kinds) <= 1:
        return
    types = sorted({type(v).__name__ for v in flat})
    raise ValueError(f"{name} mixes label types ({', '.join(types)}); class labels must be all numbers or all strings.")


def check_index(k: Any, name: str, length: int) -> int:
    """An integer position in a sequence of ``length`` items (negative counts from the end).

    Raises
    ------
    TypeError
        When ``k`` is not an integer (a float such as 1.5 or 2.0, a bool, a string).
    IndexError
        When ``k`` is outside ``[-length, length)``.
    """
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (Integral, np.integer)):
        raise TypeError(f"{name} must be an integer, got {type(k).__name__} {k!r}.")
    k = int(k)
    if not -length <= k < length:
        raise IndexError(f"{name}={k} is outside the range of {length} items [-{length}, {length}).")
    return k % length
