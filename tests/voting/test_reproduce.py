"""The pacbayes reproduction runs end to end (tiny mode) and writes its report."""

from prunus.experiments import PAPERS, get_runner


def test_reproduce_tiny(tmp_path):
    assert PAPERS["pacbayes"] == "prunus.experiments.pacbayes"
    path = get_runner("pacbayes")(mode="tiny", out=tmp_path, progress=False)
    text = path.read_text()
    assert "Table 2" in text and "Figure 2" in text
    for name in ("spam", "digits", "letter", "satimage"):
        assert f"| {name} |" in text
    # scikit-learn's wine recognition set, named so that it is not taken for the paper's Wine Quality
    assert "| wine recognition (178 rows; not the paper's Wine Quality) |" in text
    assert "N/A (N/A)" not in text and "| N/A |" not in text
    assert "Absolute test errors" in text and "ccp_alpha by CV" in text and "vote on a CART tree" in text
    assert "target" not in text
    assert "PAC-Bayes forest" in text and "RandomForest" in text
    assert "one-standard-error rule kept lambda1" in text
    assert "(0.975)" in text  # the paper's spam / dyadic PAC-Bayes ratio printed beside ours
    assert (tmp_path / "figure2.png").stat().st_size > 0


def test_reproduce_without_a_fetched_multiclass_dataset_plots_the_synthetic_one(tmp_path, monkeypatch):
    from prunus import datasets
    from prunus.experiments import pacbayes_forest

    monkeypatch.setattr(datasets, "is_available", lambda name: name == "breast_cancer")
    monkeypatch.setattr(pacbayes_forest, "wildwood_status", lambda: "left out of this test")
    text = get_runner("pacbayes")(mode="tiny", out=tmp_path, progress=False).read_text()
    assert "Not fetched here, so not plotted: letter, satimage" in text
    figure2 = text.split("## Figure 2")[1]
    assert "| holder_multiclass (synthetic, 3 classes) | dyadic | PAC-Bayes tree |" in figure2
    assert "| digits |" not in figure2
    assert (tmp_path / "figure2.png").stat().st_size > 0
