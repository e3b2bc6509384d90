"""Hyper-parameter constraints: one vocabulary for every estimator and builder.

Every estimator declares its hyper-parameters once, as a class attribute
``_parameter_constraints`` mapping each constructor argument to the list of
values it accepts, in scikit-learn's vocabulary::

    _parameter_constraints = {
        "max_depth": [Interval(Integral, 1, None, closed="left"), None],
        "criterion": [StrOptions({"gini", "entropy"})],
        "random_state": ["random_state"],
    }

(an :class:`Interval` of ``Integral`` / ``Real`` / :class:`RealNotInt`, a
:class:`StrOptions` or :class:`Options` set, :class:`HasMethods`, a type,
``None``, or one of the strings ``"random_state"``, ``"boolean"``,
``"verbose"``, ``"cv_object"``, ``"array-like"``, ``"no_validation"``), and
calls :func:`validate_fit` first thing in ``fit``, before any work. Functions
and records (the CART builder's :class:`~prunus.tree.cart.GrowthParams`, the
label tree's sizes) declare theirs the same way and call
:func:`validate_params`. An invalid value raises
:class:`InvalidParameterError` -- both a ``ValueError`` and a ``TypeError``
-- whose message names the parameter, its owner, what is accepted and what
was given.

This module is prunus's own: it depends on no private scikit-learn module
(those change between releases), only on the public
:func:`sklearn.base.BaseEstimator.get_params`. Checks that depend on several
parameters or on the data stay in the estimator, after :func:`validate_fit`.
"""

from __future__ import annotations

import inspect
import math
import numbers
from collections.abc import Callable, Iterable
from numbers import Integral, Real
from typing import Any

import numpy as np
from sklearn.base import BaseEstimator

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
    "make_constraint",
    "validate_fit",
    "validate_params",
]


class InvalidParameterError(ValueError, TypeError):
    """A hyper-parameter of the wrong type or value (both a ``ValueError`` and a ``TypeError``)."""


class RealNotInt(Real):
    """A real number that is not an integer: ``float`` and numpy floats, not ``int``."""


RealNotInt.register(float)
RealNotInt.register(np.floating)


def _is_bool(val: object) -> bool:
    return isinstance(val, (bool, np.bool_))


class Constraint:
    """One accepted kind of value of a parameter."""

    hidden = False

    def is_satisfied_by(self, val: object) -> bool:
        raise NotImplementedError

    def invalid_value(self) -> object:
        """A value of the right kind that this constraint refuses (for tests).

        Raises
        ------
        NotImplementedError
            When every value of the kind is accepted.
        """
        raise NotImplementedError

    def __str__(self) -> str:
        raise NotImplementedError


class Interval(Constraint):
    """Numbers of ``type`` (``Integral``, ``Real`` or ``RealNotInt``) between ``left`` and ``right``.

    ``closed`` is ``"left"``, ``"right"``, ``"both"`` or ``"neither"``; a
    bound ``None`` is infinite. A bool is never a number here (``True`` would
    otherwise be an ``Integral``), and NaN lies in no interval.
    """

    def __init__(self, type: type, left: float | None, right: float | None, *, closed: str):
        if closed not in ("left", "right", "both", "neither"):
            raise ValueError(f"closed must be 'left', 'right', 'both' or 'neither', got {closed!r}.")
        self.type, self.left, self.right, self.closed = type, left, right, closed

    def is_satisfied_by(self, val: object) -> bool:
        if _is_bool(val) or not isinstance(val, self.type):
            return False
        if not isinstance(val, Real) or math.isnan(val):
            return False
        val = float(val) if not isinstance(val, Integral) else int(val)
        low_ok = self.left is None or (val >= self.left if self.closed in ("left", "both") else val > self.left)
        high_ok = self.right is None or (val <= self.right if self.closed in ("right", "both") else val < self.right)
        return bool(low_ok and high_ok)

    def invalid_value(self) -> object:
        step = 1 if self.type is Integral else 1e-6
        if self.left is not None and self.left > -np.inf:
            return (
                self.left - step
                if self.type is Integral
                else (self.left - step if self.closed in ("left", "both") else self.left)
            )
        if self.right is not None and self.right < np.inf:
            return (
                self.right + step
                if self.type is Integral
                else (self.right + step if self.closed in ("right", "both") else self.right)
            )
        raise NotImplementedError

    def __str__(self) -> str:
        kind = "an int" if self.type is Integral else "a float"
        left = "-inf" if self.left is None else self.left
        right = "inf" if self.right is None else self.right
        lb = "[" if self.closed in ("left", "both") and self.left is not None else "("
        rb = "]" if self.closed in ("right", "both") and self.right is not None else ")"
        return f"{kind} in the range {lb}{left}, {right}{rb}"


class Options(Constraint):
    """One of a set of values of ``type``."""

    def __init__(self, type: type, options: Iterable[object]):
        self.type, self.options = type, set(options)

    def is_satisfied_by(self, val: object) -> bool:
        return isinstance(val, self.type) and not _is_bool(val) and val in self.options

    def invalid_value(self) -> object:
        if self.type is str:
            return "not an option"
        raise NotImplementedError

    def __str__(self) -> str:
        return f"a {self.type.__name__} among {{{', '.join(repr(o) for o in sorted(self.options, key=str))}}}"


class StrOptions(Options):
    """One of a set of strings."""

    def __init__(self, options: Iterable[str]):
        super().__init__(str, options)


class HasMethods(Constraint):
    """An object with every method named in ``methods``."""

    def __init__(self, methods: str | list[str]):
        self.methods = [methods] if isinstance(methods, str) else list(methods)

    def is_satisfied_by(self, val: object) -> bool:
        return all(callable(getattr(val, m, None)) for m in self.methods)

    def __str__(self) -> str:
        return f"an object implementing {' and '.join(repr(m) for m in self.methods)}"


class _InstancesOf(Constraint):
    def __init__(self, type: type):
        self.type = type

    def is_satisfied_by(self, val: object) -> bool:
        return isinstance(val, self.type)

    def __str__(self) -> str:
        return f"an instance of {self.type.__module__}.{self.type.__qualname__}".replace("builtins.", "")


class _NoneConstraint(Constraint):
    def is_satisfied_by(self, val: object) -> bool:
        return val is None

    def __str__(self) -> str:
        return "None"


class _Booleans(Constraint):
    def is_satisfied_by(self, val: object) -> bool:
        return _is_bool(val)

    def __str__(self) -> str:
        return "a bool"


class _RandomStates(Constraint):
    _seed = Interval(Integral, 0, 2**32 - 1, closed="both")

    def is_satisfied_by(self, val: object) -> bool:
        return val is None or self._seed.is_satisfied_by(val) or isinstance(val, np.random.RandomState)

    def invalid_value(self) -> object:
        return -1

    def __str__(self) -> str:
        return "an int in the range [0, 4294967295], an instance of RandomState or None"


class _Verbose(Constraint):
    _levels = Interval(Integral, 0, None, closed="left")

    def is_satisfied_by(self, val: object) -> bool:
        return _is_bool(val) or self._levels.is_satisfied_by(val)

    def invalid_value(self) -> object:
        return -1

    def __str__(self) -> str:
        return "an int in the range [0, inf) or a bool"


class _Splits(Constraint):
    """An iterable of (train, test) index pairs, not a string."""

    def is_satisfied_by(self, val: object) -> bool:
        return isinstance(val, Iterable) and not isinstance(val, (str, bytes)) and not hasattr(val, "split")

    def __str__(self) -> str:
        return "an iterable of (train, test) index pairs"


class _CVObjects(Constraint):
    _parts = (Interval(Integral, 2, None, closed="left"), HasMethods(["split", "get_n_splits"]), _Splits())

    def is_satisfied_by(self, val: object) -> bool:
        return val is None or any(c.is_satisfied_by(val) for c in self._parts)

    def invalid_value(self) -> object:
        return 1

    def __str__(self) -> str:
        return "an int in the range [2, inf), an object implementing 'split' and 'get_n_splits', an iterable or None"


class _ArrayLikes(Constraint):
    def is_satisfied_by(self, val: object) -> bool:
        return hasattr(val, "__len__") or hasattr(val, "shape") or hasattr(val, "__array__")

    def __str__(self) -> str:
        return "an array-like"


class _Callables(Constraint):
    def is_satisfied_by(self, val: object) -> bool:
        return callable(val)

    def __str__(self) -> str:
        return "a callable"


_NAMED: dict[str, Callable[[], Constraint]] = {
    "random_state": _RandomStates,
    "boolean": _Booleans,
    "verbose": _Verbose,
    "cv_object": _CVObjects,
    "array-like": _ArrayLikes,
}


def make_constraint(constraint: object) -> Constraint:
    """The :class:`Constraint` a declaration stands for (a type, None, a name, or a constraint)."""
    if isinstance(constraint, Constraint):
        return constraint
    if constraint is None:
        return _NoneConstraint()
    if constraint is callable:
        return _Callables()
    if isinstance(constraint, str) and constraint in _NAMED:
        return _NAMED[constraint]()
    if isinstance(constraint, type):
        return _InstancesOf(constraint)
    raise ValueError(f"unknown constraint: {constraint!r}")


#: ``cv`` given as a number of folds (>= 2), a splitter or the (train, test) splits themselves.
CV_SPLITS = [Interval(Integral, 2, None, closed="left"), HasMethods(["split", "get_n_splits"]), _Splits()]


def validate_params(constraints: dict[str, Any], params: dict[str, Any], caller_name: str) -> None:
    """Check every value of ``params`` that ``constraints`` declares.

    Parameters
    ----------
    constraints : dict
        Parameter name -> list of accepted kinds (see the module docstring),
        or ``"no_validation"``.
    params : dict
        Parameter name -> value.
    caller_name : str
        The estimator or function named in the error.

    Raises
    ------
    InvalidParameterError
        Naming the first parameter whose value no declared kind accepts.
    """
    for name, value in params.items():
        if name not in constraints or constraints[name] == "no_validation":
            continue
        kinds = [make_constraint(c) for c in constraints[name]]
        if any(kind.is_satisfied_by(value) for kind in kinds):
            continue
        shown = [str(kind) for kind in kinds if not kind.hidden]
        accepted = shown[0] if len(shown) == 1 else f"{', '.join(shown[:-1])} or {shown[-1]}"
        raise InvalidParameterError(
            f"The {name!r} parameter of {caller_name} must be {accepted}. Got {value!r} instead."
        )


#: Constructor argument names of the estimator classes whose ``get_params``
#: is scikit-learn's (it reads the signature anew at every call).
_PARAM_NAMES: dict[type, list[str]] = {}


def _params(estimator: Any) -> dict[str, Any]:
    """Constructor arguments as set on ``estimator`` (``get_params`` without the estimator base class)."""
    cls = type(estimator)
    if getattr(cls, "get_params", None) is BaseEstimator.get_params:
        names = _PARAM_NAMES.get(cls)
        if names is None:
            names = _PARAM_NAMES[cls] = list(cls._get_param_names())
        return {name: getattr(estimator, name) for name in names}
    if hasattr(estimator, "get_params"):
        return estimator.get_params(deep=False)
    names = [
        p.name
        for p in inspect.signature(type(estimator).__init__).parameters.values()
        if p.name != "self" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
    ]
    return {name: getattr(estimator, name) for name in names}


#: Keys (:func:`_plain_key`) of parameter sets found valid, at most this many.
_VALID_PARAMS: set[tuple] = set()
_MAX_VALID_PARAMS = 1024
_PLAIN_TYPES = (type(None), bool, int, float, str)


def _plain_key(cls: type, params: dict[str, Any]) -> tuple | None:
    """A hashable key of ``params`` when every value is None, a bool, an int,
    a float or a str (their type included: 1, 1.0 and True differ); else None."""
    items = []
    for name, value in params.items():
        if type(value) not in _PLAIN_TYPES:
            return None
        items.append((name, type(value), value))
    return (cls, tuple(items))


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
    constraints = estimator._parameter_constraints
    params = _params(estimator)
    # A fit with the same plain values (numbers, strings, None) as an earlier
    # valid one is valid: small fits repeat with the same settings, and the
    # checks cost as much as a small tree's growth.
    key = _plain_key(type(estimator), params)
    if key is None or key not in _VALID_PARAMS:
        validate_params(constraints, params, type(estimator).__name__)
        if key is not None and len(_VALID_PARAMS) < _MAX_VALID_PARAMS:
            _VALID_PARAMS.add(key)
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
    if all(type(v) is str for v in flat):
        return  # one kind (a table's text labels), told at a tenth of the cost of the kinds below
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
