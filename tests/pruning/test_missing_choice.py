"""``missing="auto"``: the routing rule of lower estimated risk, chosen per fit.

The reference is independent of the mechanism: the same estimator fitted
once with ``missing="surrogate"`` and once with ``missing="learned"`` (same
``random_state``, hence the same folds or hold-out rows), the estimated
risk of each one's selected subtree read from its own ``cv_results_`` or
``test_risk_``; the automatic fit must be, bit for bit, the fit of the
lower one (the surrogates on a tie).
"""

import numpy as np
import pytest

from prunus import CARTClassifier, CARTRegressor
from prunus.pruning._base import BaseCART


def _table(kind, seed, n=240):
    """Features 0-3; feature 1 a surrogate of feature 0. ``kind``: "mcar"
    (every cell missing with probability 0.3) or "informative" (feature 0
    missing far more often in class 1, so missingness carries the class)."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    X[:, 1] = X[:, 0] + 0.3 * rng.normal(size=n)
    y = (X[:, 0] + 0.5 * rng.normal(size=n) > 0).astype(int)
    missing = rng.random(X.shape) < 0.3
    if kind == "informative":
        missing[:, 0] = rng.random(n) < np.where(y == 1, 0.7, 0.05)
        missing[:, 1] = missing[:, 0] | (rng.random(n) < 0.1)
    X[missing] = np.nan
    return X, y


def _estimated_risk(est):
    if est.cv_results_ is not None:
        return float(est.cv_results_["mean_risk"][est.selected_index_])
    return float(est.test_risk_[est.selected_index_])


def _same_fit(a, b):
    assert a.pruned_tree_ == b.pruned_tree_ and a.tree_ == b.tree_
    assert a.selected_index_ == b.selected_index_ and a.alpha_ == b.alpha_
    np.testing.assert_array_equal(a.pruned_counts_, b.pruned_counts_)
    if b.cv_results_ is None:
        assert a.cv_results_ is None
        np.testing.assert_array_equal(a.test_risk_, b.test_risk_)
    else:
        for key, value in b.cv_results_.items():
            np.testing.assert_array_equal(a.cv_results_[key], value)


CASES = [
    (cls, selection, kind, seed)
    for cls in (CARTClassifier, CARTRegressor)
    for selection in ("cv", "cv-1se", "holdout")
    for kind in ("mcar", "informative")
    for seed in range(3)
]


def _fit(cls, selection, X, y, seed, missing):
    params = dict(selection=selection, random_state=seed, missing=missing)
    if selection != "holdout":
        params["cv"] = 5
    else:
        params["test_size"] = 0.3
    return cls(**params).fit(X, y)


def _chosen(case):
    cls, selection, kind, seed = case
    X, y = _table(kind, seed)
    target = y if cls is CARTClassifier else y + 0.5 * np.nan_to_num(X[:, 2])
    fits = {m: _fit(cls, selection, X, target, seed, m) for m in ("auto", "surrogate", "learned")}
    risk = {m: _estimated_risk(fits[m]) for m in ("surrogate", "learned")}
    expected = "surrogate" if risk["surrogate"] <= risk["learned"] else "learned"
    return fits, expected, X


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0].__name__}-{c[1]}-{c[2]}-{c[3]}")
def test_auto_is_the_fit_of_the_rule_with_the_lower_estimated_risk(case):
    fits, expected, X = _chosen(case)
    auto = fits["auto"]
    assert auto.missing_ == expected
    assert fits["surrogate"].missing_ == "surrogate" and fits["learned"].missing_ == "learned"
    _same_fit(auto, fits[expected])
    np.testing.assert_array_equal(auto.predict(X), fits[expected].predict(X))
    if expected == "learned":
        assert not auto.tree_.has_surrogates


def test_both_rules_are_chosen_somewhere():
    """The cases above are not all one outcome (else they could not tell a
    choice from a fixed rule)."""
    chosen = {_chosen(case)[1] for case in CASES if case[0] is CARTClassifier and case[1] == "cv"}
    assert chosen == {"surrogate", "learned"}


def _count_rule_fits(monkeypatch):
    calls = []
    original = BaseCART._grow_and_select

    def counted(self, grower, weight, loss, rule, *args):
        calls.append(rule)
        return original(self, grower, weight, loss, rule, *args)

    monkeypatch.setattr(BaseCART, "_grow_and_select", counted)
    return calls


@pytest.mark.parametrize("cls", [CARTClassifier, CARTRegressor])
def test_complete_data_fits_once_as_the_surrogate_rule(monkeypatch, cls):
    X, y = _table("mcar", 0)
    X = np.nan_to_num(X)
    target = y if cls is CARTClassifier else y + 0.5 * X[:, 2]
    calls = _count_rule_fits(monkeypatch)
    auto = cls(selection="cv", cv=5, random_state=0).fit(X, target)
    assert calls == ["surrogate"] and auto.missing_ == "surrogate"
    _same_fit(auto, cls(selection="cv", cv=5, random_state=0, missing="surrogate").fit(X, target))
    _same_fit(auto, cls(selection="cv", cv=5, random_state=0, missing="learned").fit(X, target))


def test_zero_weight_rows_with_missing_values_do_not_ask_for_a_choice(monkeypatch):
    X, y = _table("mcar", 1)
    weight = np.where(np.isnan(X).any(axis=1), 0.0, 1.0)
    calls = _count_rule_fits(monkeypatch)
    CARTClassifier(selection="cv", cv=5, random_state=0).fit(X, y, sample_weight=weight)
    assert calls == ["surrogate"]


@pytest.mark.parametrize("params", [dict(selection="alpha", alpha=0.01), dict(selection="slope")])
def test_selections_without_a_risk_estimate_keep_the_surrogates(monkeypatch, params):
    X, y = _table("informative", 0)
    calls = _count_rule_fits(monkeypatch)
    auto = CARTClassifier(random_state=0, **params).fit(X, y)
    assert calls == ["surrogate"] and auto.missing_ == "surrogate"
    _same_fit(auto, CARTClassifier(random_state=0, missing="surrogate", **params).fit(X, y))


def test_grow_size_fit_keeps_the_surrogates():
    X, y = _table("informative", 0, n=400)
    auto = CARTClassifier(method="M1", grow_size=200, random_state=0).fit(X, y)
    assert auto.missing_ == "surrogate" and auto.tree_.has_surrogates
    learned = CARTClassifier(method="M1", grow_size=200, random_state=0, missing="learned").fit(X, y)
    assert learned.missing_ == "learned"


def test_select_after_fit_keeps_the_chosen_rule():
    X, y = _table("informative", 0)
    auto = CARTClassifier(selection="cv", cv=5, random_state=0).fit(X, y)
    other = auto.select(rule="cv-1se")
    assert other.missing_ == auto.missing_ and other.tree_ == auto.tree_


def test_verbose_counts_the_growths_of_both_rules(capsys):
    X, y = _table("mcar", 0)
    CARTClassifier(selection="cv", cv=4, random_state=0, verbose=1).fit(X, y)
    err = capsys.readouterr().err
    assert "CART growths" in err and "10/10" in err


@pytest.mark.parametrize("cls", [CARTClassifier, CARTRegressor])
@pytest.mark.parametrize("selection", ["cv", "holdout"])
def test_auto_fits_alike_from_a_seed_and_from_a_generator(cls, selection):
    # An integer random_state gives the fit its own generator, rewound between
    # the rules; a RandomState is copied per rule and, as for one rule with
    # nothing copied, advanced by the fit's first draw only.
    X, y = _table("mcar", 4)
    target = y if cls is CARTClassifier else y + 0.5 * np.nan_to_num(X[:, 2])
    from_seed = _fit(cls, selection, X, target, 11, "auto")
    generator = np.random.RandomState(11)
    from_generator = _fit(cls, selection, X, target, generator, "auto")
    assert from_seed.missing_ == from_generator.missing_
    _same_fit(from_seed, from_generator)
    np.testing.assert_array_equal(from_seed.predict(X), from_generator.predict(X))
    expected = np.random.RandomState(11)
    expected.randint(2**31 - 1)
    assert generator.randint(2**31 - 1) == expected.randint(2**31 - 1)


def test_auto_draws_the_folds_once(monkeypatch):
    import prunus.pruning._base as base

    calls = []
    draw = base.fold_of_rows

    def counted(*args, **kwargs):
        calls.append(args)
        return draw(*args, **kwargs)

    monkeypatch.setattr(base, "fold_of_rows", counted)
    X, y = _table("mcar", 5)
    est = _fit(CARTClassifier, "cv", X, y, 3, "auto")
    assert len(calls) == 1
    assert not hasattr(est, "_fold_memo")


@pytest.mark.parametrize("cls", [CARTClassifier, CARTRegressor])
@pytest.mark.parametrize("given", ["RandomState", "global"])
def test_a_generator_of_the_caller_gives_each_rule_its_state_and_is_left_in_it(cls, given):
    """``random_state`` a RandomState, or None (numpy's global generator):
    each rule of "auto" draws from the generator's state after the fit's
    first draw (the seed of its trees' feature draws), and the generator is
    left in that state."""
    X, y = _table("informative", 1)
    target = y if cls is CARTClassifier else y + 0.5 * np.nan_to_num(X[:, 2])
    fits, after = {}, {}
    for missing in ("auto", "surrogate", "learned"):
        if given == "global":
            np.random.seed(7)
            generator = None
        else:
            generator = np.random.RandomState(7)
        fits[missing] = cls(selection="cv", cv=5, random_state=generator, missing=missing).fit(X, target)
        after[missing] = (
            np.random.randint(2**31 - 1, size=4) if generator is None else generator.randint(2**31 - 1, size=4)
        )
    reference = np.random.RandomState(7)
    reference.randint(2**31 - 1)  # the fit's first draw
    np.testing.assert_array_equal(after["auto"], reference.randint(2**31 - 1, size=4))
    risk = {m: _estimated_risk(fits[m]) for m in ("surrogate", "learned")}
    expected = "surrogate" if risk["surrogate"] <= risk["learned"] else "learned"
    assert fits["auto"].missing_ == expected
    _same_fit(fits["auto"], fits[expected])
