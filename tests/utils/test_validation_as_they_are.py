"""Arrays that open a classifier's fit without scikit-learn's checks are
exactly those the checks would hand back unchanged, with no error and no
warning; every other input still meets the checks (and their errors)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator
from sklearn.utils.validation import validate_data

from prunus import CARTClassifier
from prunus.utils import _validation
from prunus.utils._validation import _checked_as_they_are


class _Probe(BaseEstimator):
    pass


def _labels(draw_kind, rng, n):
    if draw_kind == "int":
        return rng.integers(-2, 3, n)
    if draw_kind == "bool":
        return rng.random(n) < 0.5
    if draw_kind == "str":
        return np.array(["a", "bb", "c"])[rng.integers(0, 3, n)]
    if draw_kind == "object":
        return np.array(["a", "bb", "c"], dtype=object)[rng.integers(0, 3, n)]
    if draw_kind == "object-nan":
        y = np.array(["a", "b", np.nan], dtype=object)[rng.integers(0, 3, n)]
        return y
    if draw_kind == "float":
        return rng.integers(0, 3, n).astype(float)
    if draw_kind == "float-nan":
        y = rng.integers(0, 3, n).astype(float)
        y[rng.random(n) < 0.3] = np.nan
        return y
    if draw_kind == "column":
        return rng.integers(0, 3, (n, 1))
    return rng.integers(0, 3, n).astype(np.complex128)


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(0, 6),
    d=st.integers(0, 3),
    x_kind=st.sampled_from(["float64", "float32", "int", "nan", "inf", "fortran", "list"]),
    y_kind=st.sampled_from(["int", "bool", "str", "object", "object-nan", "float", "float-nan", "column", "complex"]),
    y_rows=st.sampled_from([0, -1]),
    ensure_all_finite=st.sampled_from([True, "allow-nan", False]),
    ensure_min_samples=st.sampled_from([1, 2]),
)
def test_arrays_taken_as_they_are_pass_the_checks_unchanged(
    seed, n, d, x_kind, y_kind, y_rows, ensure_all_finite, ensure_min_samples
):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    if x_kind == "float32":
        X = X.astype(np.float32)
    elif x_kind == "int":
        X = X.astype(np.int64)
    elif x_kind == "nan" and X.size:
        X.flat[0] = np.nan
    elif x_kind == "inf" and X.size:
        X.flat[-1] = np.inf
    elif x_kind == "fortran":
        X = np.asfortranarray(X)
    y = _labels(y_kind, rng, max(n + y_rows, 0))
    X_in = X.tolist() if x_kind == "list" else X
    taken = _checked_as_they_are(X_in, y, ensure_all_finite, ensure_min_samples)
    probe = _Probe()
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        try:
            X_out, y_out = validate_data(
                probe,
                X_in,
                y,
                dtype=np.float64,
                ensure_all_finite=ensure_all_finite,
                ensure_min_samples=ensure_min_samples,
            )
        except (ValueError, TypeError, Warning):
            assert not taken
            return
    if taken:
        assert X_out is X_in or (X_out.dtype == X_in.dtype and np.array_equal(X_out, X_in, equal_nan=True))
        assert y_out.dtype == y.dtype and np.array_equal(y_out, y)
        assert probe.n_features_in_ == X.shape[1]


def test_a_fit_on_plain_arrays_equals_the_checked_fit(monkeypatch):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 3))
    X[rng.random((80, 3)) < 0.1] = np.nan
    y = np.array(["no", "yes"])[(np.nan_to_num(X[:, 0]) > 0).astype(int)]
    fast = CARTClassifier(selection="cv", cv=5, random_state=0).fit(X, y)
    monkeypatch.setattr(_validation, "_checked_as_they_are", lambda *args: False)
    checked = CARTClassifier(selection="cv", cv=5, random_state=0).fit(X, y)
    assert fast.n_features_in_ == checked.n_features_in_ == 3
    assert not hasattr(fast, "feature_names_in_") and not hasattr(checked, "feature_names_in_")
    np.testing.assert_array_equal(fast.classes_, checked.classes_)
    assert fast.pruned_tree_ == checked.pruned_tree_


def test_a_refit_on_arrays_forgets_the_column_names():
    pd = pytest.importorskip("pandas")
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 2))
    y = (X[:, 0] > 0).astype(int)
    est = CARTClassifier().fit(pd.DataFrame(X, columns=["a", "b"]), y)
    assert list(est.feature_names_in_) == ["a", "b"]
    est.fit(X, y)
    assert not hasattr(est, "feature_names_in_")
