"""`prunus reproduce boosting` in a tiny mode: every table and figure is produced."""

from prunus.experiments import PAPERS, get_runner


def test_reproduce_boosting_tiny(tmp_path):
    assert "boosting" in PAPERS
    path = get_runner("boosting")("tiny", tmp_path, progress=False)
    text = path.read_text()
    for heading in ("Table 2", "Table 3", "Table 4", "Table 10", "Figure 1", "Figure 2"):
        assert heading in text
    assert "a6a" in text and "not available offline" in text
    assert (tmp_path / "figure1_gap_fraction.png").stat().st_size > 0
    assert (tmp_path / "figure2_cumulative_assessments.png").stat().st_size > 0
    # the lower-bound-first rule is reported next to Algorithm 1, and never below LB_wo
    assert "AP-LF" in text
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if "| AP-LF / LB_wo |" in line)
    f2 = [[c.strip() for c in line.split("|")[1:-1]] for line in lines[start + 2:] if line.startswith("| ")]
    f2 = f2[:next((i for i, r in enumerate(f2) if len(r) != 9), len(f2))]
    assert f2 and all(float(r[7]) >= 1.0 for r in f2)
    # AP and QB train identical trees: Table 4 rows of the two algorithms share their errors
    rows = [line.split("|") for line in text.splitlines() if line.startswith("| AP-B: ") or line.startswith("| QB: ")]
    ap = {r[1].split(":")[1].strip(): [c.strip() for c in r[3:]] for r in rows if "AP-B" in r[1]}
    qb = {r[1].split(":")[1].strip(): [c.strip() for c in r[3:]] for r in rows if "QB" in r[1]}
    assert ap and ap.keys() == qb.keys()
    for name in ap:
        errors = lambda cells: [c for i, c in enumerate(cells) if i % 3 != 2]  # noqa: E731 (drop assessments)
        assert errors(ap[name]) == errors(qb[name])
