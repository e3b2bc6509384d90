"""ExactBoostClassifier: identical ensembles, invariants, SAMME vs scikit-learn, API."""

import pickle

import numpy as np
import pytest
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.ensemble import AdaBoostClassifier

from prunus.boosting import ExactBoostClassifier
from prunus.tree import Tree
from prunus.utils._testing import sklearn_check_params

from .conftest import brute_force_stump

CONFIGS = [
    dict(max_depth=1, criterion="error"),
    dict(max_depth=3, criterion="error"),
    dict(max_depth=2, criterion="entropy"),
    dict(max_depth=3, criterion="error", feature_fraction=0.5, random_state=3),
    dict(max_depth=2, criterion="error", weight_trim=0.9),
    dict(max_depth=2, criterion="entropy", feature_fraction=0.7, weight_trim=0.99, random_state=0),
]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_strategies_give_identical_ensembles(small_problems, config):
    for name, (X, y) in small_problems.items():
        fits = {
            s: ExactBoostClassifier(n_estimators=12, split_search=s, track_bounds=True, **config).fit(X, y)
            for s in ("exhaustive", "quick", "adaptive")
        }  # "adaptive": the estimator's default rule
        fits["gap (Algorithm 1)"] = ExactBoostClassifier(
            n_estimators=12, adaptive_rule="gap", min_batch=1, adaptive_init=0.5, track_bounds=True, **config
        ).fit(X, y)
        for target in (0.0, 0.9):
            fits[f"lower_first({target})"] = ExactBoostClassifier(
                n_estimators=12,
                split_search="adaptive",
                adaptive_rule="lower_first",
                adaptive_target=target,
                min_batch=1,
                track_bounds=True,
                **config,
            ).fit(X, y)
        ref = fits["exhaustive"]
        for s, est in fits.items():
            assert len(est.estimators_) == len(ref.estimators_), (name, s)
            for a, b in zip(est.estimators_, ref.estimators_):
                assert a == b, (name, s)
            for a, b in zip(est.leaf_labels_, ref.leaf_labels_):
                np.testing.assert_array_equal(a, b)
            np.testing.assert_array_equal(est.estimator_weights_, ref.estimator_weights_)
            for p, q in zip(est.staged_predict(X), ref.staged_predict(X)):
                np.testing.assert_array_equal(p, q)
            # invariants, every round: LB_wo <= assessments <= exhaustive = sum n_node * n_features
            np.testing.assert_array_equal(est.exhaustive_assessments_, ref.assessments_)
            assert np.all(est.weight_order_bound_ <= est.assessments_), (name, s)
            assert np.all(est.assessments_ <= est.exhaustive_assessments_), (name, s)
            np.testing.assert_array_equal(est.weight_order_bound_, ref.weight_order_bound_)


def test_depth_one_tree_is_brute_force_stump(small_problems):
    X, y = small_problems["ties"]
    est = ExactBoostClassifier(n_estimators=1, max_depth=1).fit(X, y)
    tree = est.estimators_[0]
    value, feature, thr, left, right = brute_force_stump(X, y, np.full(len(y), 1 / len(y)), 2)
    assert (tree.feature[0], tree.threshold[0]) == (feature, thr)
    assert list(est.leaf_labels_[0][[1, 2]]) == [left, right]
    assert isinstance(tree, Tree)
    assert est.estimator_errors_[0] == pytest.approx(value)


def test_deeper_trees_fit_better(small_problems):
    X, y = small_problems["digits"]
    err = [1 - ExactBoostClassifier(n_estimators=30, max_depth=d).fit(X, y).score(X, y) for d in (1, 3)]
    assert err[1] < err[0]
    assert ExactBoostClassifier(n_estimators=60, max_depth=3).fit(X, y).score(X, y) > 0.9


class _Replay(ClassifierMixin, BaseEstimator):
    """Weak learner replaying prunus' trees inside scikit-learn's AdaBoost."""

    predictions = []
    received = []

    def fit(self, X, y, sample_weight=None):
        self.round_ = len(_Replay.received)
        _Replay.received.append(np.asarray(sample_weight, dtype=float).copy())
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return _Replay.predictions[self.round_]


@pytest.mark.parametrize("dataset", ["wine", "breast_cancer"])
def test_samme_matches_scikit_learn_on_identical_weak_learners(small_problems, dataset):
    X, y = small_problems[dataset]
    states = []
    ours = ExactBoostClassifier(n_estimators=20, max_depth=2)._fit(X, y, callback=lambda t, s: states.append(s))
    _Replay.predictions = [s["pred"] for s in states]
    _Replay.received = []
    sk = AdaBoostClassifier(_Replay(), n_estimators=len(states)).fit(X, y)
    np.testing.assert_allclose(sk.estimator_weights_, ours.estimator_weights_, rtol=1e-10)
    np.testing.assert_allclose(sk.estimator_errors_, ours.estimator_errors_, rtol=1e-10)
    for got, state in zip(_Replay.received, states):  # weight update of every round
        np.testing.assert_allclose(got / got.sum(), state["w"], rtol=1e-9, atol=1e-15)
    # decision rule (votes / sum of alphas, binary: class 1 minus class 0)
    np.testing.assert_allclose(sk.decision_function(X), ours.decision_function(X), rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(sk.predict(X), ours.predict(X))
    np.testing.assert_allclose(sk.predict_proba(X), ours.predict_proba(X), rtol=1e-9)
    for a, b in zip(sk.staged_predict(X), ours.staged_predict(X)):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_allclose(list(sk.staged_score(X, y)), list(ours.staged_score(X, y)))


@pytest.mark.parametrize(
    "estimator, check",
    sklearn_check_params(
        [
            ExactBoostClassifier(n_estimators=8, max_depth=2),
            ExactBoostClassifier(n_estimators=5, split_search="quick", criterion="entropy"),
            ExactBoostClassifier(n_estimators=5, max_depth=2, adaptive_rule="lower_first", min_batch=1),
        ]
    ),
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_pickle_round_trip(small_problems):
    X, y = small_problems["wine"]
    est = ExactBoostClassifier(n_estimators=10).fit(X, y)
    clone = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(clone.decision_function(X), est.decision_function(X))
    assert all(a == b for a, b in zip(clone.estimators_, est.estimators_))


def test_string_labels_and_staged_lengths(small_problems):
    X, y = small_problems["wine"]
    labels = np.array(["a", "b", "c"])[y]
    est = ExactBoostClassifier(n_estimators=7, max_depth=1).fit(X, labels)
    assert set(est.predict(X)) <= set(labels)
    assert len(list(est.staged_predict(X))) == len(est.estimators_) == len(est.assessments_)
    assert est.weight_order_bound_ is None


@pytest.mark.parametrize("criterion", ["error", "entropy"])
def test_min_batch_changes_cost_not_ensemble(small_problems, criterion):
    # min_batch (an int or "auto") only sizes the adaptive batches: same trees, same weights
    for name, (X, y) in small_problems.items():
        ref = ExactBoostClassifier(n_estimators=8, max_depth=2, criterion=criterion, split_search="exhaustive").fit(
            X, y
        )
        for mb, rule in ((1, "gap"), (7, "gap"), ("auto", "gap"), (7, "lower_first"), ("auto", "lower_first")):
            est = ExactBoostClassifier(
                n_estimators=8,
                max_depth=2,
                criterion=criterion,
                split_search="adaptive",
                min_batch=mb,
                adaptive_rule=rule,
            ).fit(X, y)
            assert est.estimators_ == ref.estimators_, (name, mb, rule)
            np.testing.assert_array_equal(est.estimator_weights_, ref.estimator_weights_)
            assert np.all(est.assessments_ <= est.exhaustive_assessments_), (name, mb)


@pytest.mark.parametrize(
    "params, exc, word",
    [
        (dict(n_estimators=0), ValueError, "n_estimators"),
        (dict(n_estimators=2.5), TypeError, "n_estimators"),
        (dict(max_depth=0), ValueError, "max_depth"),
        (dict(split_search="greedy"), ValueError, "split_search"),
        (dict(criterion="gini"), ValueError, "criterion"),
        (dict(max_bins=1), ValueError, "max_bins"),
        (dict(feature_fraction=0.0), ValueError, "feature_fraction"),
        (dict(feature_fraction=1.5), ValueError, "feature_fraction"),
        (dict(weight_trim=0.0), ValueError, "weight_trim"),
        (dict(track_bounds="yes"), TypeError, "track_bounds"),
        (dict(min_batch=0), ValueError, "min_batch"),
        (dict(min_batch="big"), TypeError, "min_batch"),
        (dict(adaptive_rule="ucb"), ValueError, "adaptive_rule"),
        (dict(adaptive_target=1.5), ValueError, "adaptive_target"),
        (dict(adaptive_target=-0.1), ValueError, "adaptive_target"),
    ],
)
def test_bad_parameters(params, exc, word):
    X = np.random.RandomState(0).rand(20, 3)
    y = np.arange(20) % 2
    with pytest.raises(exc, match=word):
        ExactBoostClassifier(**params).fit(X, y)


def test_bad_data():
    rng = np.random.RandomState(0)
    X = rng.rand(20, 3)
    y = np.arange(20) % 2
    Xnan = X.copy()
    Xnan[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        ExactBoostClassifier().fit(Xnan, y)
    Xinf = X.copy()
    Xinf[0, 0] = np.inf
    with pytest.raises(ValueError, match="infinity"):
        ExactBoostClassifier().fit(Xinf, y)
    with pytest.raises(ValueError, match="class"):
        ExactBoostClassifier().fit(X, np.zeros(20))
    with pytest.raises(ValueError, match="inconsistent numbers of samples"):
        ExactBoostClassifier().fit(X, y[:-1])
    with pytest.raises(ValueError, match="(?i)negative"):
        ExactBoostClassifier().fit(X, y, sample_weight=-np.ones(20))
    with pytest.raises(ValueError, match="(?i)sample weights"):
        ExactBoostClassifier().fit(X, y, sample_weight=np.zeros(20))
    with pytest.raises(ValueError, match="0 sample"):
        ExactBoostClassifier().fit(X[:0], y[:0])
    est = ExactBoostClassifier(n_estimators=3).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :2])


def test_text_columns_are_refused_naming_the_column():
    """A DataFrame column of labels is named in the error (fit and predict); numbers written as text still convert."""
    import pandas as pd

    rng = np.random.default_rng(0)
    x = rng.normal(size=60)
    y = (x > 0).astype(int)
    for labels in (
        pd.Categorical(rng.choice(["red", "blue"], 60)),
        pd.Series(rng.choice(["red", "blue"], 60), dtype=object),
        pd.Series(rng.choice(["red", "blue"], 60), dtype="string"),
    ):
        X = pd.DataFrame({"x": x, "colour": labels})
        with pytest.raises(
            ValueError, match="^column 'colour' of X is not numeric; ExactBoostClassifier splits numbers"
        ):
            ExactBoostClassifier(n_estimators=2).fit(X, y)
    numbers_as_text = pd.DataFrame({"x": x, "k": pd.Categorical(np.arange(60) % 3).rename_categories(["0", "1", "2"])})
    plain = pd.DataFrame({"x": x, "k": (np.arange(60) % 3).astype(float)})
    fitted = ExactBoostClassifier(n_estimators=3, random_state=0).fit(numbers_as_text, y)
    expected = ExactBoostClassifier(n_estimators=3, random_state=0).fit(plain, y).predict(plain)
    np.testing.assert_array_equal(fitted.predict(numbers_as_text), expected)
    with pytest.raises(ValueError, match="^column 'k' of X is not numeric"):
        fitted.predict(plain.assign(k=pd.Series(["a"] * 60, dtype=object)))
    # A numpy array of strings: its column by index.
    words = np.column_stack([x.astype(str), rng.choice(["red", "blue"], 60)])
    with pytest.raises(ValueError, match="^column 1 of X is not numeric; ExactBoostClassifier splits numbers"):
        ExactBoostClassifier(n_estimators=2).fit(words, y)
