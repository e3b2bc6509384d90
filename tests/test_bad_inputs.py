"""Every public estimator against one table of bad inputs.

A new estimator is checked by adding one line to ``ESTIMATORS``. Each bad
input must raise a ValueError / TypeError naming what is wrong before any
work; ``check_param_validation`` (scikit-learn's, in prunus's constraint
vocabulary) sets every constructor
argument in turn to a value of the wrong type and to values outside its
declared constraints.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import get_tags

from prunus import (
    CARTClassifier,
    CARTRegressor,
    ExactBoostClassifier,
    HSVoteClassifier,
    PACBayesForestClassifier,
    PACBayesTreeClassifier,
    PenalizedTreeClassifier,
)
from prunus.utils._testing import check_param_validation


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
    (
        "string X",
        lambda X, y: (X.astype(str).astype(object) + "a", y, None),
        ValueError,
        "^column 0 of X is not numeric",
    ),
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
        with pytest.raises(ValueError, match="^column 0 of X is not numeric"):
            getattr(est, method)(X.astype(str).astype(object) + "a")


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


@pytest.mark.parametrize("case", [c for c in ESTIMATORS if not c.regressor], ids=str)
@pytest.mark.parametrize("bad", [np.nan, np.inf], ids=["NaN", "inf"])
def test_classifier_names_non_finite_labels(case, bad):
    """A NaN / inf class label is refused naming y, without a warning from casting it first."""
    X, y = _data()
    labels = y.astype(float)
    labels[3] = bad
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ValueError, match="^Input y contains (NaN|infinity)"):
            case.make().fit(X, labels)


@pytest.mark.parametrize("case", ESTIMATORS, ids=str)
@pytest.mark.parametrize(
    "bad, message",
    [
        (lambda y, w: (np.where(np.arange(y.shape[0]) == 3, np.nan, y), None), "^Input y contains NaN"),
        (lambda y, w: (y[:-2], None), "^y has 38 entries, but X has 40 rows"),
        (lambda y, w: (y, w[:3]), r"^sample_weight must have shape \(40,\), got \(3,\)"),
        (lambda y, w: (y, -w), "^sample_weight has negative values"),
    ],
    ids=["NaN y", "short y", "short sample_weight", "negative sample_weight"],
)
def test_score_names_y_and_sample_weight(case, bad, message):
    """score refuses a y or sample_weight that does not fit X's predictions naming it (scikit-learn's
    metrics say "Input contains NaN" or list the lengths unnamed)."""
    X, y = _data()
    est = case.make().fit(X, y.astype(float) if case.regressor else y)
    labels, weight = bad(y.astype(float), np.ones(y.shape[0]))
    with pytest.raises(ValueError, match=message):
        est.score(X, labels, sample_weight=weight)


# ------------------------------------------------------------ builders and modules


def test_grow_cart_refuses_nan_labels():
    from prunus.tree import grow_cart

    X, y = _data()
    labels = y.astype(float)
    labels[3] = np.nan
    with pytest.raises(ValueError, match="^y contains NaN"):
        grow_cart(X, labels)


def test_grow_cart_names_sparse_x():
    from scipy import sparse

    from prunus.tree import grow_cart

    X, y = _data()
    for fmt in ("csr", "csc"):
        with pytest.raises(TypeError, match="^X is a scipy sparse matrix"):
            grow_cart(sparse.csr_matrix(X).asformat(fmt), y)


@pytest.mark.parametrize("exponent", [997, -997])
def test_kd_spread_is_scale_invariant_at_extreme_scales(exponent):
    """A power-of-two factor changes no KD split, vote or SN pruning (no variance over- or underflows)."""
    from sklearn.datasets import load_digits

    from prunus.tree import grow_kd

    X, y = load_digits(return_X_y=True)
    X, y = X[:500].astype(float), y[:500]
    Xs = X * 2.0**exponent
    base, scaled = grow_kd(X, max_depth=7), grow_kd(Xs, max_depth=7)
    internal = base.children_left >= 0
    np.testing.assert_array_equal(base.children_left, scaled.children_left)
    np.testing.assert_array_equal(base.feature[internal], scaled.feature[internal])
    np.testing.assert_array_equal(base.threshold[internal] * 2.0**exponent, scaled.threshold[internal])
    for make in (
        lambda: PACBayesTreeClassifier(partition="kd", max_depth=7, lambda1=1.0, lambda2=1.0),
        lambda: PenalizedTreeClassifier(partition="kd", max_depth=7, penalty="sn", lam=0.5),
    ):
        np.testing.assert_array_equal(make().fit(Xs, y).predict(Xs), make().fit(X, y).predict(X))


@pytest.mark.parametrize("exponent", [997, -997])
def test_tree_softmax_classifier_is_scale_stable_and_never_nan(exponent):
    pytest.importorskip("torch")
    from sklearn.datasets import load_iris

    from prunus.hsoftmax import TreeSoftmaxClassifier

    X, y = load_iris(return_X_y=True)

    def make():
        return TreeSoftmaxClassifier(hidden_layer_sizes=(8,), epochs=5, random_state=0, n_threads=1)

    base = make().fit(X, y)
    scaled = make().fit(X * 2.0**exponent, y)
    np.testing.assert_array_equal(scaled.predict(X * 2.0**exponent), base.predict(X))
    np.testing.assert_allclose(scaled.predict_proba(X * 2.0**exponent), base.predict_proba(X), rtol=0, atol=1e-6)
    extreme = np.array([[1e308] * 4, [-1e308] * 4, [1e308, -1e308, 0.0, 5e307]])
    for est in (base, make().fit(np.vstack([X * 1e300, extreme]), np.r_[y, 0, 1, 2])):
        proba = est.predict_proba(extreme)
        assert np.isfinite(proba).all()
        np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-5)


def test_tree_softmax_names_negative_in_features():
    pytest.importorskip("torch")
    from prunus.hsoftmax import LabelTree, TreeSoftmax

    with pytest.raises(ValueError, match="'in_features' parameter of TreeSoftmax"):
        TreeSoftmax(-3, LabelTree(10, depth=2))


def test_tree_language_model_progress_is_deprecated_for_verbose():
    pytest.importorskip("torch")
    from prunus.hsoftmax import TreeLanguageModel

    ids = np.arange(60) % 7
    model = TreeLanguageModel(7, context_size=2, dim=4, depth=2, n_threads=1, random_state=0, progress=0)
    with pytest.warns(FutureWarning, match="'progress' was renamed 'verbose'"):
        model.fit(ids, epochs=1)
    assert model._verbose == 0
    quiet = TreeLanguageModel(7, context_size=2, dim=4, depth=2, n_threads=1, random_state=0).fit(ids, epochs=1)
    np.testing.assert_allclose(quiet.history_[0]["train_nll"], model.history_[0]["train_nll"], rtol=1e-6)
