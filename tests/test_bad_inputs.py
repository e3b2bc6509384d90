"""Every public estimator against one table of bad inputs.

A new estimator is checked by adding one line to ``ESTIMATORS``. Each bad
input must raise a ValueError / TypeError naming what is wrong before any
work; ``check_param_validation`` (scikit-learn's) sets every constructor
argument in turn to a value of the wrong type and to values outside its
declared constraints.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import get_tags
from sklearn.utils.estimator_checks import check_param_validation

from prunus import (
    CARTClassifier,
    CARTRegressor,
    ExactBoostClassifier,
    HSVoteClassifier,
    PACBayesForestClassifier,
    PACBayesTreeClassifier,
    PenalizedTreeClassifier,
)


@dataclass
class Case:
    """One estimator of the table.

    ``allow_nan``: whether ``fit`` / ``predict`` accept NaN in X. ``None``
    reads the estimator's ``allow_nan`` tag, so an estimator that learns to
    route missing values only has to say so in its tags.
    ``binary_only``: the estimator refuses more than two classes.
    ``regressor``: y is a real target (the label checks become checks of numbers).
    """

    estimator: object  # an unfitted estimator, or a function making one (for optional extras)
    allow_nan: bool | None = None
    binary_only: bool = False
    regressor: bool = False

    def __str__(self):
        if not hasattr(self.estimator, "fit"):
            return self.estimator.__name__.strip("_")
        return repr(self.estimator).replace("\n", "").replace(" ", "")

    def make(self):
        return clone(self.estimator) if hasattr(self.estimator, "fit") else self.estimator()

    def nan_accepted(self):
        if self.allow_nan is not None:
            return self.allow_nan
        return bool(get_tags(self.make()).input_tags.allow_nan)


def _tree_softmax():
    torch = pytest.importorskip("torch")  # noqa: F841 - the optional extra
    from prunus.hsoftmax import TreeSoftmaxClassifier

    return TreeSoftmaxClassifier(hidden_layer_sizes=(4,), epochs=1, n_threads=1, random_state=0)


ESTIMATORS = [
    # NaN in X: accepted where the estimator's allow_nan tag says so (CARTClassifier: the CART builder
    # routes missing values); PACBayesTreeClassifier("cart") follows its tag too (allow_nan=True here
    # would force acceptance).
    Case(CARTClassifier(random_state=0)),
    Case(CARTClassifier(selection="cv", cv=3, random_state=0)),
    Case(CARTRegressor(random_state=0), regressor=True),
    Case(CARTRegressor(selection="cv", cv=3, random_state=0), regressor=True),
    Case(PACBayesTreeClassifier("dyadic", random_state=0)),
    Case(PACBayesTreeClassifier("kd", random_state=0)),
    Case(PACBayesTreeClassifier("cart", random_state=0)),
    Case(PACBayesForestClassifier(n_estimators=3, random_state=0)),
    Case(PenalizedTreeClassifier("kd", random_state=0)),
    Case(HSVoteClassifier("kd", random_state=0), binary_only=True),
    Case(ExactBoostClassifier(n_estimators=3, max_depth=2, random_state=0)),
    Case(_tree_softmax),
]


def _data(n=40, n_features=3, n_classes=2, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, n_features))
    y = np.arange(n) % n_classes
    return X, y


def _with(X, value):
    X = X.copy()
    X[1, 0] = value
    return X


# (id, make (X, y, sample_weight) from good ones, exception, pattern the message must match)
BAD_FIT = [
    ("inf in X", lambda X, y: (_with(X, np.inf), y, None), ValueError, "(?i)infinity"),
    ("-inf in X", lambda X, y: (_with(X, -np.inf), y, None), ValueError, "(?i)infinity"),
    ("empty X", lambda X, y: (X[:0], y[:0], None), ValueError, "0 sample"),
    ("no feature", lambda X, y: (X[:, :0], y, None), ValueError, "0 feature"),
    ("1-D X", lambda X, y: (X[:, 0], y, None), ValueError, "2D array"),
    ("3-D X", lambda X, y: (X[:, :, None], y, None), ValueError, "(?i)dim"),
    ("string X", lambda X, y: (X.astype(str).astype(object) + "a", y, None), ValueError, "(?i)string|float"),
    ("y too short", lambda X, y: (X, y[:-1], None), ValueError, "inconsistent numbers of samples"),
    ("2-D y", lambda X, y: (X, np.column_stack([y, y]), None), ValueError, "(?i)y|1d|column"),
    ("one class", lambda X, y: (X, np.zeros_like(y), None), ValueError, "(?i)class"),
    (
        "continuous y",
        lambda X, y: (X, y + np.linspace(0.01, 0.5, y.size), None),
        ValueError,
        "(?i)label type|continuous",
    ),
    (
        "mixed labels",
        lambda X, y: (X, np.array(["a"] + list(y[1:]), dtype=object), None),
        ValueError,
        r"^y mixes label types \(int\w*, str\)",
    ),
    (
        "mixed labels list",
        lambda X, y: (X, [int(v) for v in y[:-1]] + ["b"], None),
        ValueError,
        r"^y mixes label types \(int\w*, str\)",
    ),
    ("negative weight", lambda X, y: (X, y, _with(np.ones((y.size, 1)), -1.0)[:, 0]), ValueError, "(?i)negative"),
    ("NaN weight", lambda X, y: (X, y, _with(np.ones((y.size, 1)), np.nan)[:, 0]), ValueError, "(?i)NaN"),
    ("inf weight", lambda X, y: (X, y, _with(np.ones((y.size, 1)), np.inf)[:, 0]), ValueError, "(?i)infinity"),
    ("short weight", lambda X, y: (X, y, np.ones(y.size - 1)), ValueError, "(?i)sample_weight|shape"),
    ("2-D weight", lambda X, y: (X, y, np.ones((y.size, 2))), ValueError, "(?i)sample_weight|1D|dim"),
    ("zero weights", lambda X, y: (X, y, np.zeros(y.size)), ValueError, "(?i)sample.weight|weight"),
]


#: Bad inputs of a classifier only: a regression target may be constant or continuous.
CLASSIFIER_ONLY = {"one class", "continuous y", "mixed labels", "mixed labels list"}

# Bad real targets of a regressor (y are the good labels 0 / 1 as floats).
BAD_FIT_REGRESSION = [
    ("NaN y", lambda X, y: (X, _with(y[:, None] * 1.0, np.nan)[:, 0], None), ValueError, "(?i)y contains NaN"),
    ("inf y", lambda X, y: (X, _with(y[:, None] * 1.0, np.inf)[:, 0], None), ValueError, "(?i)y contains.*infinity"),
    ("string y", lambda X, y: (X, np.array(["a", "b"] * (y.size // 2)), None), ValueError, "^y must hold numbers"),
    (
        "object string y",
        lambda X, y: (X, np.array(["a"] + list(y[1:]), dtype=object), None),
        ValueError,
        "^y must hold numbers",
    ),
    ("2-D y", lambda X, y: (X, np.column_stack([y, y]), None), ValueError, "^y must be 1-D"),
]


@pytest.mark.parametrize("case", ESTIMATORS, ids=str)
@pytest.mark.parametrize("bad", BAD_FIT, ids=lambda b: b[0])
def test_fit_rejects_bad_input(case, bad):
    _, make, exc, pattern = bad
    if case.regressor and bad[0] in CLASSIFIER_ONLY:
        pytest.skip("a regression target may be constant, continuous or of mixed numbers")
    est = case.make()
    X, y, w = make(*_data())
    with pytest.raises(exc, match=pattern):
        est.fit(X, y, sample_weight=w)


@pytest.mark.parametrize("case", [c for c in ESTIMATORS if c.regressor], ids=str)
@pytest.mark.parametrize("bad", BAD_FIT_REGRESSION, ids=lambda b: b[0])
def test_regressor_fit_rejects_bad_target(case, bad):
    _, make, exc, pattern = bad
    X, y, w = make(*_data())
    with pytest.raises(exc, match=pattern):
        case.make().fit(X, y, sample_weight=w)


@pytest.mark.parametrize("case", ESTIMATORS, ids=str)
def test_nan_in_X(case):
    est = case.make()
    X, y = _data()
    Xn = _with(X, np.nan)
    if case.nan_accepted():
        pred = est.fit(Xn, y).predict(Xn)
        if case.regressor:
            assert np.all((pred >= y.min()) & (pred <= y.max()))
        else:
            assert set(pred) <= set(y)
    else:
        with pytest.raises(ValueError, match="NaN"):
            est.fit(Xn, y)
        est.fit(X, y)
        with pytest.raises(ValueError, match="NaN"):
            est.predict(Xn)


@pytest.mark.parametrize("case", ESTIMATORS, ids=str)
def test_predict_rejects_bad_input(case):
    est = case.make()
    X, y = _data()
    with pytest.raises(NotFittedError):
        est.predict(X)
    est.fit(X, y)
    methods = [m for m in ("predict", "predict_proba", "decision_function", "apply") if hasattr(est, m)]
    for method in methods:
        with pytest.raises(ValueError, match="features"):
            getattr(est, method)(X[:, :2])
        with pytest.raises(ValueError, match="features"):
            getattr(est, method)(np.hstack([X, X]))
        with pytest.raises(ValueError, match="(?i)infinity"):
            getattr(est, method)(_with(X, np.inf))
        with pytest.raises(ValueError, match="2D array"):
            getattr(est, method)(X[0])


@pytest.mark.parametrize("case", [c for c in ESTIMATORS if c.binary_only], ids=str)
def test_binary_only_rejects_three_classes(case):
    X, y = _data(n_classes=3)
    with pytest.raises(ValueError, match="(?i)binary"):
        case.make().fit(X, y)


@pytest.mark.parametrize("case", ESTIMATORS, ids=str)
def test_every_hyper_parameter_is_validated(case):
    """A wrong type or out-of-range value for any constructor argument names it (at ``fit``)."""
    est = case.make()
    check_param_validation(type(est).__name__, est)


@pytest.mark.parametrize("case", ESTIMATORS, ids=str)
def test_mixed_labels_before_any_work(case, monkeypatch):
    """The label check comes first: a mixed ``y`` is refused even with an invalid X."""
    est = case.make()
    if case.regressor:
        with pytest.raises(ValueError, match="^y must hold numbers"):
            est.fit([[np.nan, "x"]] * 3, [1, "a", 2])
        return
    with pytest.raises(ValueError, match="^y mixes label types"):
        est.fit([[np.nan, "x"]] * 3, [1, "a", 2])
