"""Levels at predict of another kind than those of fit ("1" against 1) are
refused naming the column, by every estimator that takes categorical
columns; a level of the same kind not seen at fit still goes where missing
values go, and a column of the same levels in another dtype (a category at
fit, strings at predict) predicts the same."""

import numpy as np
import pytest

from prunus import CARTClassifier, CARTRegressor, PACBayesForestClassifier, PACBayesTreeClassifier
from prunus.voting import HSVoteClassifier, PenalizedTreeClassifier

pd = pytest.importorskip("pandas")


def _estimators():
    kw = dict(random_state=0)
    out = [
        CARTClassifier(selection="alpha", alpha=0.0, **kw),
        CARTRegressor(selection="alpha", alpha=0.0, **kw),
        PACBayesForestClassifier(n_estimators=3, **kw),
        PACBayesTreeClassifier("cart", max_depth=4, cv=3, **kw),
        PenalizedTreeClassifier("cart", max_depth=4, cv=3, **kw),
        HSVoteClassifier("cart", max_depth=4, cv=3, **kw),
    ]
    try:
        from prunus.distributed import DaskCARTClassifier, DaskCARTRegressor

        out += [
            DaskCARTClassifier(selection="alpha", alpha=0.0, **kw),
            DaskCARTRegressor(selection="alpha", alpha=0.0, **kw),
        ]
    except ImportError:  # the dask extra is not installed
        pass
    return out


ESTIMATORS = _estimators()


def _table(levels, n=240, seed=0):
    """A categorical column ``grade`` holding ``levels`` and a numeric one; a
    label that depends on both."""
    rng = np.random.default_rng(seed)
    pick = rng.integers(0, len(levels), n)
    num = rng.normal(size=n)
    grade = np.array(levels, dtype=object)[pick]
    y = ((pick % 2 == 0) ^ (num > 1.0)).astype(int)
    return pd.DataFrame({"grade": grade, "num": num}), y


def _fit(est, X, y):
    if isinstance(est, CARTRegressor):
        return est.fit(X, y.astype(float))
    return est.fit(X, y)


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
@pytest.mark.parametrize(
    "fit_levels, predict_levels, category_at_fit",
    [
        (["1", "2", "3"], [1, 2, 3], True),  # category of strings at fit, ints at predict
        (["1", "2", "3"], [1, 2, 3], False),  # strings at fit and at predict
        ([1, 2, 3], ["1", "2", "3"], True),  # category of ints at fit, strings at predict
        (["a", "b", "c"], [0.0, 1.0, 2.0], True),  # codes given where the levels were strings
    ],
)
def test_levels_of_another_kind_are_refused_naming_the_column(est, fit_levels, predict_levels, category_at_fit):
    X, y = _table(fit_levels)
    if category_at_fit:
        X["grade"] = pd.Categorical(X["grade"])
    else:
        X["grade"] = X["grade"].astype(object)
    _fit(est, X, y)
    mapping = dict(zip(fit_levels, predict_levels))
    other = X.assign(grade=X["grade"].astype(object).map(mapping))
    with pytest.raises(ValueError, match="column 'grade' of X holds .* levels"):
        est.predict(other)
    # The same values as a category column.
    with pytest.raises(ValueError, match="column 'grade' of X holds"):
        est.predict(other.assign(grade=pd.Categorical(other["grade"])))


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_same_levels_in_another_dtype_predict_the_same(est):
    """A category column at fit, its strings as an object column, a pandas
    string column or a category with its categories reordered at predict."""
    X, y = _table(["low", "mid", "high", "top"])
    X["grade"] = pd.Categorical(X["grade"], categories=["low", "mid", "high", "top", "unused"])
    _fit(est, X, y)
    expected = est.predict(X)
    for grade in (
        X["grade"].astype(object),
        X["grade"].astype("string"),
        X["grade"].cat.reorder_categories(["top", "unused", "high", "mid", "low"]),
    ):
        np.testing.assert_array_equal(est.predict(X.assign(grade=grade)), expected)


@pytest.mark.parametrize("est", ESTIMATORS, ids=lambda e: type(e).__name__)
def test_unseen_level_of_the_same_kind_goes_where_missing_values_go(est):
    X, y = _table([1, 2, 3])
    X["grade"] = pd.Categorical(X["grade"])
    _fit(est, X, y)
    unseen = X.assign(grade=X["grade"].astype(object).where(X["num"] > 0, 99))
    missing = X.assign(grade=X["grade"].astype(object).where(X["num"] > 0, None))
    np.testing.assert_array_equal(est.predict(unseen), est.predict(missing))


def test_mixed_levels_at_fit_take_either_kind_at_predict():
    """Levels of several kinds at fit: a new level of any of them is unseen, not refused."""
    X, y = _table(["a", 1, "b", 2])
    est = CARTClassifier(selection="alpha", alpha=0.0).fit(X, y)
    probe = X.assign(grade=X["grade"].where(X["num"] > 0, "z"))
    probe.loc[probe.index[:5], "grade"] = 7
    missing = X.assign(grade=X["grade"].where(X["num"] > 0, None))
    missing.loc[missing.index[:5], "grade"] = None
    np.testing.assert_array_equal(est.predict(probe), est.predict(missing))


def test_level_codes_column_given_text_at_predict_names_it():
    """A numeric column of level codes at fit, words at predict."""
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 4, 200), rng.normal(size=200)])
    y = (X[:, 0] % 2 == 0).astype(int)
    est = CARTClassifier(categorical_features=[0]).fit(X, y)
    words = X.astype(object)
    words[:, 0] = np.array(["a", "b", "c", "d"], dtype=object)[X[:, 0].astype(int)]
    with pytest.raises(ValueError, match="column 0 of X holds values that are not numbers; it held integer level"):
        est.predict(words)


def test_numeric_column_given_text_at_predict_says_what_it_held():
    X, y = _table(["a", "b"])
    est = CARTClassifier().fit(X, y)
    with pytest.raises(ValueError, match="column 'num' of X holds values that are not numbers; it held numbers"):
        est.predict(X.assign(num="big"))
