"""The three estimators: scikit-learn checks, CV protocol, pickling, bad input."""

import pickle

import numpy as np
import pytest
from sklearn.model_selection import KFold

from prunus.tree import grow_cart
from prunus.utils._testing import sklearn_check_params
from prunus.voting import HSVoteClassifier, PACBayesTreeClassifier, PenalizedTreeClassifier, pac_bayes_weights
from prunus.voting._classes import LOG_GRID

_ESTIMATORS = [
    PACBayesTreeClassifier(random_state=0),
    PACBayesTreeClassifier(partition="kd", prior="theory", random_state=0),
    PenalizedTreeClassifier(partition="kd", random_state=0),
    PenalizedTreeClassifier(partition="cart", penalty="sn", random_state=0),
    HSVoteClassifier(random_state=0),
    PACBayesTreeClassifier(grow_size=6, random_state=0),
]


@pytest.mark.parametrize("estimator, check", sklearn_check_params(_ESTIMATORS))
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _data(n=300, seed=0, n_classes=3):
    rng = np.random.default_rng(seed)
    X = rng.uniform(size=(n, 3))
    y = np.minimum((X[:, 0] * n_classes).astype(int), n_classes - 1)
    flip = rng.random(n) < 0.1
    y[flip] = rng.integers(0, n_classes, flip.sum())
    return X, y


@pytest.mark.parametrize("partition", ["dyadic", "kd", "cart"])
def test_cv_protocol_grids(partition):
    X, y = _data()
    est = PACBayesTreeClassifier(partition, random_state=0).fit(X, y)
    res = est.cv_results_
    stages = res["stage"]
    assert (stages == "log").sum() == 100 and (stages == "linear").sum() == 100
    log_pts = np.column_stack([res["param_lambda1"], res["param_lambda2"]])[stages == "log"]
    assert set(np.round(log_pts[:, 0], 12)) == set(np.round(LOG_GRID, 12))
    mean = res["mean_test_error"]
    coarse = stages != "linear"  # the log grid and its extensions beyond an edge
    best_log = np.column_stack([res["param_lambda1"], res["param_lambda2"]])[coarse][np.argmin(mean[coarse])]
    lin = np.column_stack([res["param_lambda1"], res["param_lambda2"]])[stages == "linear"]
    for k in range(2):
        np.testing.assert_allclose(np.unique(lin[:, k]), np.linspace(best_log[k] / 2, 2 * best_log[k], 10))
    assert mean[est.best_index_] == mean.min()
    assert est.best_index_ == np.flatnonzero(mean == mean.min())[0]  # ties: first in grid order
    assert (est.lambda1_, est.lambda2_) == tuple(res["params"][est.best_index_].values())
    assert np.all((mean >= 0) & (mean <= 1))


class _Synthetic(PACBayesTreeClassifier):
    """CV error replaced by a smooth function of log2(lambda) with its minimum at ``target``."""

    target = (-13.0, 2.0)

    def _point_error(self, fold, lam):
        a, b = np.log2(lam["lambda1"]), np.log2(lam["lambda2"])
        return fold.total * (0.1 + ((a - self.target[0]) ** 2 + (b - self.target[1]) ** 2) / 1e4)


def test_grid_extends_past_an_edge_until_the_optimum_is_interior():
    X, y = _data(120)
    est = _Synthetic("kd", random_state=0).fit(X, y)
    res = est.cv_results_
    stages = res["stage"]
    assert (stages == "log").sum() == 100 and (stages == "linear").sum() == 100
    ext = stages == "extend"
    # lambda1 below 2^-8: three steps put 2^-8 / step^3 = 2^-12.67 nearest to 2^-13, a fourth
    # shows it is interior; lambda2's optimum 2^2 lies inside the grid, so it never grows.
    step = LOG_GRID[1] / LOG_GRID[0]
    np.testing.assert_allclose(np.unique(res["param_lambda1"][ext]), LOG_GRID[0] / step ** np.arange(4, 0, -1))
    assert ext.sum() == 4 * 10
    coarse = stages != "linear"
    best = res["params"][np.flatnonzero(coarse)[np.argmin(res["mean_test_error"][coarse])]]
    assert best["lambda1"] == pytest.approx(LOG_GRID[0] / step**3)
    lin = res["param_lambda1"][stages == "linear"]
    np.testing.assert_allclose(np.unique(lin), np.linspace(best["lambda1"] / 2, 2 * best["lambda1"], 10))
    assert est.lambda1_ == res["params"][est.best_index_]["lambda1"]


def test_grid_extension_is_bounded_and_goes_both_ways():
    X, y = _data(120)
    est = _Synthetic("kd", random_state=0)
    est.target = (-100.0, 60.0)  # far beyond both edges
    res = est.fit(X, y).cv_results_
    ext = res["stage"] == "extend"
    step = LOG_GRID[1] / LOG_GRID[0]
    lam1, lam2 = res["param_lambda1"], res["param_lambda2"]
    assert lam1[ext].min() == pytest.approx(LOG_GRID[0] / step**8)  # at most 8 steps
    assert lam2[ext].max() == pytest.approx(LOG_GRID[-1] * step**8)
    assert ext.sum() == 18 * 18 - 100  # the grown 18 x 18 product, each point once
    assert len({(a, b) for a, b in zip(lam1[~(res["stage"] == "linear")], lam2[~(res["stage"] == "linear")])}) == 324


def test_cv_error_equals_refit_error_on_each_fold():
    """One grid point = one DP on fold-wise T0 and counts: same as fitting the fold."""
    X, y = _data(200, seed=3)
    est = PACBayesTreeClassifier("kd", cv=2, random_state=5).fit(X, y)
    from sklearn.model_selection import StratifiedKFold

    rng = np.random.RandomState(5)
    rng.randint(np.iinfo(np.int32).max)  # the final-fit seed
    fold_seed = rng.randint(np.iinfo(np.int32).max)
    splits = list(StratifiedKFold(2, shuffle=True, random_state=fold_seed).split(X, y))
    for i in [0, 37, 150]:
        lam = est.cv_results_["params"][i]
        for k, (tr, te) in enumerate(splits):
            fold = PACBayesTreeClassifier("kd", lambda1=lam["lambda1"], lambda2=lam["lambda2"]).fit(X[tr], y[tr])
            err = np.mean(fold.predict(X[te]) != y[te])
            assert est.cv_results_[f"split{k}_test_error"][i] == pytest.approx(err)


def test_fixed_lambdas_skip_cv_and_match_functional_api():
    X, y = _data()
    est = PACBayesTreeClassifier("kd", lambda1=2.0, lambda2=0.5).fit(X, y)
    assert est.cv_results_ is None
    res = pac_bayes_weights(est.tree_, est.node_counts_, 2.0, 0.5)
    np.testing.assert_allclose(est.log_weight_ - est.log_partition_, res["log_weight"] - res["log_partition"])
    np.testing.assert_array_equal(est.node_label_, res["node_label"])
    proba = est.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    np.testing.assert_array_equal(est.predict(X), est.classes_[np.argmax(proba, axis=1)])


def test_one_lambda_fixed_searches_the_other():
    X, y = _data()
    est = PACBayesTreeClassifier("kd", lambda2=0.25, random_state=0).fit(X, y)
    assert np.all(est.cv_results_["param_lambda2"] == 0.25)
    assert (est.cv_results_["stage"] != "extend").sum() == 20
    assert est.lambda2_ == 0.25


def test_theory_prior():
    X, y = _data()
    est = PACBayesTreeClassifier("kd", prior="theory", random_state=0).fit(X, y)
    assert est.lambda2_ == est.lambda1_
    assert (est.cv_results_["stage"] != "extend").sum() == 20
    with pytest.raises(ValueError, match="lambda2"):
        PACBayesTreeClassifier(prior="theory", lambda2=1.0).fit(X, y)
    with pytest.raises(ValueError, match="delta"):
        PACBayesTreeClassifier(prior="theory", delta=1.5).fit(X, y)


def test_sample_weight_equivalence_with_fixed_lambdas():
    X, y = _data(120)
    w = np.random.default_rng(0).integers(1, 3, size=X.shape[0])
    for est in [PACBayesTreeClassifier("kd", lambda1=1.0, lambda2=0.3), PenalizedTreeClassifier("kd", lam=0.5)]:
        # A fixed T0, so that only the counts see the weights (a KD median
        # moves when rows are repeated).
        est.set_params(partition=est.fit(X, y).tree_)
        a = est.fit(X, y, sample_weight=w).predict_proba(X)
        b = est.fit(np.repeat(X, w, axis=0), np.repeat(y, w)).predict_proba(X)
        np.testing.assert_allclose(a, b)


@pytest.mark.parametrize(
    "est",
    [PACBayesTreeClassifier(random_state=0), PenalizedTreeClassifier(random_state=0), HSVoteClassifier(random_state=0)],
)
def test_pickle_round_trip(est):
    X, y = _data(n_classes=2)
    est.fit(X, y)
    clone = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(clone.predict_proba(X), est.predict_proba(X))
    assert clone.tree_ == est.tree_


def test_fixed_tree_partition():
    X, y = _data()
    tree = grow_cart(X, y, max_depth=4, random_state=0)
    est = PenalizedTreeClassifier(partition=tree, random_state=0).fit(X, y)
    assert est.tree_ is tree
    with pytest.raises(ValueError, match="features"):
        PenalizedTreeClassifier(partition=tree).fit(X[:, :2], y)


def test_bad_input():
    X, y = _data()
    with pytest.raises(ValueError, match="partition"):
        PACBayesTreeClassifier(partition="ball").fit(X, y)
    with pytest.raises(ValueError, match="prior"):
        PACBayesTreeClassifier(prior="flat").fit(X, y)
    with pytest.raises(ValueError, match="penalty"):
        PenalizedTreeClassifier(penalty="l2").fit(X, y)
    for bad in (-1.0, np.inf, np.nan):
        with pytest.raises(ValueError, match="lambda1"):
            PACBayesTreeClassifier(lambda1=bad).fit(X, y)
        with pytest.raises(ValueError, match="lambda2"):
            PACBayesTreeClassifier(lambda2=bad).fit(X, y)
        with pytest.raises(ValueError, match="lam"):
            PenalizedTreeClassifier(lam=bad).fit(X, y)
    with pytest.raises(ValueError, match="cv"):
        PACBayesTreeClassifier(cv=1).fit(X, y)
    with pytest.raises(ValueError, match="max_depth"):
        PACBayesTreeClassifier(max_depth=-1).fit(X, y)
    with pytest.raises(ValueError, match="min_samples_leaf"):
        PACBayesTreeClassifier(min_samples_leaf=0).fit(X, y)
    with pytest.raises(ValueError, match="one class"):
        PACBayesTreeClassifier().fit(X, np.zeros(X.shape[0]))
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        PACBayesTreeClassifier().fit(Xn, y)
    with pytest.raises(ValueError, match="sample_weight|negative"):
        PACBayesTreeClassifier().fit(X, y, sample_weight=-np.ones(X.shape[0]))
    est = PACBayesTreeClassifier("kd", lambda1=1.0, lambda2=1.0).fit(X, y)
    with pytest.raises(ValueError, match="features"):
        est.predict(X[:, :2])


@pytest.mark.parametrize("cls", [PACBayesTreeClassifier, PenalizedTreeClassifier, HSVoteClassifier])
def test_cv_pairs_out_of_range_are_refused(cls):
    """(train, test) pairs given as cv are checked against the rows before a fold indexes them."""
    X, y = _data(60, n_classes=2)
    beyond = [(np.arange(10), np.arange(10, 61))] * 2
    with pytest.raises(ValueError, match=r"^cv yielded a fold with empty or out-of-range indices \(n_samples = 60\)"):
        cls(cv=beyond, random_state=0).fit(X, y)


def test_cv_pairs_with_grow_size_are_refused():
    """With grow_size the cross-validation runs on rows drawn at random: the caller's pairs cannot index them."""
    X, y = _data(60)
    pairs = list(KFold(3).split(X))
    with pytest.raises(ValueError, match=r"^cv given as \(train, test\) index pairs cannot be used with grow_size"):
        PACBayesTreeClassifier(grow_size=20, cv=pairs, random_state=0).fit(X, y)
    # a splitter is run on the drawn rows
    assert PACBayesTreeClassifier(grow_size=20, cv=KFold(3), random_state=0).fit(X, y).cv_results_ is not None


@pytest.mark.parametrize("cls", [PACBayesTreeClassifier, PenalizedTreeClassifier, HSVoteClassifier])
def test_empty_cells_option(cls):
    X, y = _data(200, n_classes=2)
    y = 1 - y  # make class 1 the majority near the empty cells' parents
    kw = {"lambda1": 1.0, "lambda2": 0.5} if cls is PACBayesTreeClassifier else {"lam": 0.5}
    assert cls().empty_cells == "parent"  # the default (Remark 1 of the paper)
    zero = cls("dyadic", empty_cells="class0", **kw).fit(X, y)
    par = cls("dyadic", **kw).fit(X, y)
    tree = zero.tree_
    empty = zero.node_counts_.sum(axis=1) == 0
    assert empty.any()
    assert np.all(zero.node_label_[empty] == 0)
    for node in np.flatnonzero(empty):
        assert par.node_label_[node] == par.node_label_[tree.parent[node]]
    if cls is HSVoteClassifier:
        for node in np.flatnonzero(empty):
            assert par.node_value_[node] == par.node_value_[tree.parent[node]]
            assert zero.node_value_[node] == 0
    with pytest.raises(ValueError, match="empty_cells"):
        cls(empty_cells="nearest", **kw).fit(X, y)
