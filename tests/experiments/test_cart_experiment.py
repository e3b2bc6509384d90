"""The CART reproduction runs end to end on tiny settings and reports what it computed."""

import numpy as np

from prunus.experiments import cart


def test_cart_reproduction_tiny(tmp_path, monkeypatch):
    tiny = cart.Settings(
        sizes=(200, 400),
        qs=(0.2,),
        repeats=2,
        n_mc=20_000,
        cv=3,
        real_datasets=("iris", "not-a-dataset-name"),
        sklearn_alphas=5,
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


def test_synthetic_records_are_consistent():
    tiny = cart.Settings(sizes=(300,), qs=(0.2,), repeats=1, n_mc=20_000, cv=3, real_datasets=(), sklearn_alphas=5)
    records = cart.synthetic_rates(tiny, progress=False)
    assert len(records) == len(cart.EXAMPLES) * 2 * len(cart.RULES)
    for rec in records:
        assert 0.0 <= rec["excess"] <= 0.6  # margin |2q-1| = 0.6 bounds the excess risk
        assert 1 <= rec["leaves"] <= rec["tmax_leaves"]
        if rec["rule"] == "holdout":
            # The oracle is the best tree of the same sequence: never worse than the selected one.
            assert rec["oracle"] <= rec["excess"] + 1e-12
    assert np.isfinite([r["excess"] for r in records]).all()
