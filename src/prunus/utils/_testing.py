"""Test helpers shared by the test suite (importable, unlike conftest files).

pytest (the ``test`` extra) is imported only by the helpers that need it, so
this module imports without it.
"""


def sklearn_check_params(estimators, expected_failed_checks=None):
    """pytest params for scikit-learn's estimator checks, minus the array-API ones.

    The same checks as ``parametrize_with_checks``, except those that only
    apply to estimators supporting the array API (prunus's numba kernels need
    numpy), which would otherwise be reported as skipped. Checks named in
    ``expected_failed_checks(estimator) -> {name: reason}`` are strict xfails.

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
            marks = [pytest.mark.xfail(reason=expected[name], strict=True)] if name in expected else []
            params.append(pytest.param(estimator, check, id=f"{estimator}-{name}", marks=marks))
    return params
