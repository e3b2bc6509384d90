"""The CART reproduction runs end to end on tiny settings and reports what it computed."""

import json

import numpy as np

from prunus.experiments import cart
from prunus.experiments._report import Report, audit


def test_cart_reproduction_tiny(tmp_path, monkeypatch):
    tiny = cart.Settings(
        sizes=(200, 400),
        qs=(0.2,),
        repeats=2,
        n_mc=20_000,
        cv=3,
        real_datasets=("iris", "not-a-dataset-name"),
        sklearn_alphas=5,
        reg_sizes=(200, 400),
        reg_repeats=2,
        reg_n_test=5_000,
        reg_datasets=("diabetes",),
    )
    monkeypatch.setattr(cart, "QUICK", tiny)
    monkeypatch.setattr(cart, "is_available", lambda name: name == "iris")
    path = cart.run(mode="quick", out=tmp_path, progress=False)
    text = path.read_text()
    assert "## Excess risk against sample size" in text
    assert "Proposition 3" in text
    assert "| iris | scikit-learn GridSearchCV" in text
    assert "not-a-dataset-name" in text  # named as left out
    assert (tmp_path / "excess_risk_vs_n.png").stat().st_size > 1000
    # The regression section: M1 and M2 against the best tree of their sequence, and the comparison.
    oracle = text.split("## Regression trees: the selected tree against the best of its sequence")[1].split("##")[0]
    for method in ("M1", "M2"):
        for rule in cart.REG_RULES:
            for n in (200, 400):
                assert f"| {method} | {rule} | {n} |" in oracle
    comparison = text.split("## Regression: CARTRegressor next to rpart and scikit-learn")[1]
    assert "| diabetes | prunus M2 cv |" in comparison and "| diabetes | scikit-learn GridSearchCV" in comparison
    assert ("| diabetes | rpart anova" in comparison) == cart.has_rscript()
    assert ("Rscript was not found" in comparison) != cart.has_rscript()
    claims = [
        c for c in json.loads((tmp_path / "claims.json").read_text())["claims"] if "Regression CART" in c["claim"]
    ]
    assert len(claims) == 2


def test_the_report_says_when_rpart_is_missing(tmp_path, monkeypatch):
    """Without Rscript the comparison leaves rpart out and says so (no rpart row, no empty cell)."""
    monkeypatch.setattr(cart, "has_rscript", lambda: False)
    rep = Report(tmp_path, "t")
    cart._regression_section(rep, cart.TINY, progress=False)
    text = rep.write().read_text()
    assert "rpart anova" not in text.split("| dataset |")[1].split("Train/test")[0]
    assert "Rscript was not found on this machine, so rpart is left out" in text
    assert audit(text) == []


def test_regression_records_are_consistent():
    records = cart.regression_oracle(cart.TINY, progress=False)
    assert len(records) == len(cart.TINY.reg_sizes) * cart.TINY.reg_repeats * 2 * len(cart.REG_RULES)
    for rec in records:
        # The oracle is the best tree of the same sequence: never worse than the selected one.
        assert 0 < rec["oracle"] <= rec["excess"]
        assert 0 < rec["oracle_mse"] <= rec["mse"]
        assert rec["leaves"] >= 1 and rec["oracle_leaves"] >= 1


def test_regression_risks_are_those_of_the_fitted_tree():
    """The per-T_k risks come from the path; at the selected index they are the fitted tree's test MSE."""
    X, y, f_star = cart._friedman1_truth(300, 0)
    X_t, y_t, f_t = cart._friedman1_truth(2000, 1)
    est = cart.CARTRegressor(method="M1", random_state=0).fit(X, y)
    mse = est.path_.squared_error(X_t, y_t) / len(y_t)
    np.testing.assert_allclose(mse[est.selected_index_], np.mean((est.predict(X_t) - y_t) ** 2), rtol=1e-12)
    excess = est.path_.squared_error(X_t, f_t) / len(f_t)
    np.testing.assert_allclose(excess[est.selected_index_], np.mean((est.predict(X_t) - f_t) ** 2), rtol=1e-12)
    np.testing.assert_allclose(y - f_star, np.random.RandomState(1).standard_normal(300))


def test_synthetic_records_are_consistent():
    tiny = cart.Settings(
        sizes=(300,), qs=(0.2,), repeats=1, n_mc=20_000, cv=3, real_datasets=(), sklearn_alphas=5, reg_sizes=()
    )
    records = cart.synthetic_rates(tiny, progress=False)
    assert len(records) == len(cart.EXAMPLES) * 2 * len(cart.RULES)
    for rec in records:
        assert 0.0 <= rec["excess"] <= 0.6  # margin |2q-1| = 0.6 bounds the excess risk
        assert 1 <= rec["leaves"] <= rec["tmax_leaves"]
        if rec["rule"] == "holdout":
            # The oracle is the best tree of the same sequence: never worse than the selected one.
            assert rec["oracle"] <= rec["excess"] + 1e-12
    assert np.isfinite([r["excess"] for r in records]).all()
