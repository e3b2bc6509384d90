"""Test helpers shared by the test suite (importable, unlike conftest files).

pytest (the ``test`` extra) is imported only by the helpers that need it, so
this module imports without it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_WEIGHTS_ARE_NOT_COPIES = "{what}, so a weight of 2 is not a repeated row"

_CLASS_WEIGHT_HEURISTIC = (
    "the check wants class 0 predicted on 87% of noisy blobs under class_weight {0: 1000, others: 1e-4}; "
    "a pure leaf of another class still costs less than merging it (1e-4 per row), so the slope and penalty "
    "rules keep large trees, and the hold-out rule decides on 5 rows (scikit-learn's tree passes only with "
    "min_weight_fraction_leaf=0.01, which the check sets when the estimator has it)"
)


def expected_failed_checks(estimator: Any) -> dict[str, str]:
    """scikit-learn's estimator checks that ``estimator`` fails by design, each with the reason.

    The ``expected_failed_checks`` of ``parametrize_with_checks`` and of
    :func:`sklearn_check_params`; only checks that run for ``estimator`` are
    named (they are strict xfails). The estimator is recognised by the names of
    its classes (a subclass, such as a Dask estimator, fails as its base does):
    this module sits below the estimators and imports none of them.
    """
    classes = {cls.__name__ for cls in type(estimator).__mro__}
    failures = {}
    if classes & {"CARTClassifier", "CARTRegressor"}:
        if estimator.selection == "holdout" or estimator.method == "M1":
            failures["check_sample_weight_equivalence_on_dense_data"] = _WEIGHTS_ARE_NOT_COPIES.format(
                what="the hold-out rows (and M1's halves) are drawn at random among rows"
            )
        # (M1's hold-out choice on the check's data happens to pass.)
        if "CARTClassifier" in classes and (
            estimator.selection in ("slope", "penalty")
            or (estimator.selection == "holdout" and estimator.method == "M2")
        ):
            failures["check_class_weight_classifiers"] = _CLASS_WEIGHT_HEURISTIC
    elif "PACBayesTreeClassifier" in classes and estimator.grow_size is not None:
        failures["check_sample_weight_equivalence_on_dense_data"] = (
            "with grow_size the cross-validation runs on rows drawn at random, so the check cannot give it "
            "(train, test) index pairs, and a weight of 2 is not a repeated row in the draw"
        )
    elif "PACBayesForestClassifier" in classes:
        failures["check_sample_weight_equivalence_on_dense_data"] = (
            _WEIGHTS_ARE_NOT_COPIES.format(what="each tree's sample draws rows, not weight units")
            + " (as for scikit-learn's random forest)"
        )
    elif "TreeSoftmaxClassifier" in classes:
        failures["check_sample_weight_equivalence_on_dense_data"] = _WEIGHTS_ARE_NOT_COPIES.format(
            what="stochastic minibatch training draws rows, not weight units, into its batches"
        )
    return failures


def sklearn_check_params(estimators: Any, expected_failed_checks: Any = expected_failed_checks) -> list:
    """pytest params for scikit-learn's estimator checks, minus the array-API ones.

    The same checks as ``parametrize_with_checks``, except those that only
    apply to estimators supporting the array API (prunus's numba kernels need
    numpy), which would otherwise be reported as skipped. Checks named in
    ``expected_failed_checks(estimator) -> {name: reason}`` (by default
    :func:`expected_failed_checks`) are strict xfails.

    Use as ``@pytest.mark.parametrize("estimator, check", sklearn_check_params([...]))``.
    """
    import pytest
    from sklearn.utils.estimator_checks import estimator_checks_generator

    params = []
    for est in estimators:
        expected = expected_failed_checks(est) if expected_failed_checks else {}
        for estimator, check in estimator_checks_generator(est, legacy=True):
            name = getattr(check, "func", check).__name__
            if "array_api" in name:
                continue
            if name == "check_param_validation":
                # scikit-learn's check reads only its own (private) constraint classes;
                # prunus declares its constraints with prunus.utils._param_validation,
                # and check_param_validation below is the same check in that vocabulary.
                continue
            marks = [pytest.mark.xfail(reason=expected[name], strict=True)] if name in expected else []
            params.append(pytest.param(estimator, check, id=f"{estimator}-{name}", marks=marks))
    return params


def check_param_validation(name: str, estimator: Any, X: Any = None, y: Any = None) -> None:
    """Every constructor argument set to a value of no accepted kind, then to one just outside
    each declared constraint, must make ``fit`` raise :class:`InvalidParameterError` naming it.

    The check of scikit-learn's ``check_param_validation``, in prunus's constraint vocabulary.
    """
    from sklearn.base import clone

    from ._param_validation import InvalidParameterError, make_constraint

    if X is None:
        rng = np.random.RandomState(0)
        X, y = rng.uniform(size=(20, 5)), rng.randint(0, 2, size=20)
    params = estimator.get_params(deep=False)
    constraints = estimator._parameter_constraints
    assert set(constraints) == set(params), f"{name}: _parameter_constraints and the parameters differ"
    bad_type = type("BadType", (), {})()
    for param in params:
        if constraints[param] == "no_validation":
            continue
        kinds = [make_constraint(c) for c in constraints[param]]
        bad_values = [bad_type]
        for kind in kinds:
            try:
                bad = kind.invalid_value()
            except NotImplementedError:
                continue
            if not any(k.is_satisfied_by(bad) for k in kinds):
                bad_values.append(bad)
        for bad in bad_values:
            est = clone(estimator).set_params(**{param: bad})
            try:
                est.fit(X, y)
            except InvalidParameterError as exc:
                message = str(exc)
                assert message.startswith(f"The {param!r} parameter of {name} must be"), message
                assert " Got " in message, message
            else:
                raise AssertionError(f"{name}.fit accepted {param}={bad!r}")
