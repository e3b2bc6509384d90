"""A Markdown report with tables and PNG figures, written to one directory."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

from ..utils._optional import pyplot, require


def require_matplotlib():
    """Check, before a reproduction computes anything, that its figures can be drawn.

    Selects the non-interactive Agg backend (the reports only write PNG files).
    """
    require("matplotlib", "Reproducing a paper (its figures)").use("Agg")
    return pyplot("Reproducing a paper (its figures)")


def _cell(value, digits):
    if isinstance(value, float):
        if not math.isfinite(value):
            # A missing number is a defect of the reproduction, not a cell: the caller says why instead.
            raise ValueError(f"a table cell is {value}; write the reason in the cell instead")
        return f"{value:.{digits}f}" if abs(value) >= 10 ** (-digits) or value == 0 else f"{value:.2e}"
    return str(value)


#: File beside ``report.md`` with the report's headline claims (read by ``prunus reproduce`` for its index).
CLAIMS = "claims.json"


class Report:
    """Collects Markdown blocks and figures; :meth:`write` saves ``report.md``.

    Parameters
    ----------
    out : path
        Directory that receives ``report.md`` and the PNG figures.
    title : str
    """

    def __init__(self, out, title):
        require_matplotlib()
        self.out = Path(out)
        self.out.mkdir(parents=True, exist_ok=True)
        self.blocks = [f"# {title}\n"]
        self.title = title
        self.claims = []  # dicts: claim, paper, ours, holds, section

    def heading(self, text, level=2):
        self.blocks.append(f"{'#' * level} {text}\n")

    def text(self, text):
        self.blocks.append(text.strip() + "\n")

    def table(self, header, rows, digits=4, empty=None):
        """A Markdown table; floats are printed with ``digits`` decimals.

        A table without rows is left out: ``empty`` is the sentence that says why
        (a :class:`ValueError` when it is missing). A non-finite float cell is a
        :class:`ValueError`: a missing value is written as text that says why.
        """
        rows = list(rows)
        if not rows:
            if not empty:
                raise ValueError(f"table {header!r} has no rows and no sentence saying why")
            self.text(empty)
            return
        lines = ["| " + " | ".join(str(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
        for row in rows:
            lines.append("| " + " | ".join(_cell(v, digits) for v in row) + " |")
        self.blocks.append("\n".join(lines) + "\n")

    def figure(self, fig, name, caption=""):
        """Save a matplotlib figure as ``name``.png and link it."""
        path = self.out / f"{name}.png"
        fig.savefig(path, dpi=110, bbox_inches="tight")
        pyplot("Report.figure").close(fig)
        self.blocks.append(f"![{caption or name}]({path.name})\n")
        if caption:
            self.blocks.append(f"*{caption}*\n")

    def claim(self, claim, paper, ours, holds, section=""):
        """Record a headline claim of the paper: what it says, its number, ours, and whether it holds here.

        ``holds`` is ``"yes"``, ``"no"`` or a short qualified verdict. The claims are
        written to ``claims.json`` beside the report, and ``prunus reproduce`` gathers
        them into its index page.
        """
        self.claims.append(dict(claim=claim, paper=paper, ours=ours, holds=holds, section=section))

    def claims_table(self):
        """Place the table of the claims here; it is filled by :meth:`write` with every claim recorded."""
        self.heading("The paper's claims, here")
        self._claims_at = len(self.blocks)
        self.blocks.append("")

    def write(self, name="report.md") -> Path:
        path = self.out / name
        blocks = list(self.blocks)
        at = getattr(self, "_claims_at", None)
        if at is not None:
            rows = [(c["claim"], c["paper"], c["ours"], c["holds"]) for c in self.claims]
            lines = ["| claim | paper | here | holds here |", "|---|---|---|---|"]
            lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in rows]
            blocks[at] = "\n".join(lines) + "\n" if rows else "No claim could be checked with the data here.\n"
        path.write_text("\n".join(blocks))
        (self.out / CLAIMS).write_text(json.dumps({"title": self.title, "claims": self.claims}, indent=1) + "\n")
        return path


_NAN = re.compile(r"(?<![\w.])(nan|NaN|inf|-inf)(?![\w])")
_NA = re.compile(r"^(N/A|n/a|NA|-|—|)$")


def audit(text):
    """Problems a reader would meet in a report: empty tables, ``nan`` anywhere, ``N/A`` cells without a reason.

    A cell may be missing only with its reason in the cell (e.g.
    ``N/A: binary problems only``); an empty cell is allowed in a row that
    also has a label cell (MEAN rows leave the per-dataset columns blank).
    Returns a list of one-line problem descriptions (empty when the report reads well).
    """
    problems = []
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if _NAN.search(line):
            problems.append(f"line {i + 1}: not a number: {line.strip()[:120]}")
        if line.startswith("|---") and i > 0 and lines[i - 1].startswith("|"):
            body = []
            for row in lines[i + 1 :]:
                if not row.startswith("|"):
                    break
                body.append(row)
            if not body:
                problems.append(f"line {i}: a table with a header and no rows: {lines[i - 1].strip()[:120]}")
            for k, row in enumerate(body):
                cells = [c.strip() for c in row.strip().strip("|").split("|")]
                for cell in cells:
                    if cell and _NA.match(cell):
                        problems.append(f"line {i + 2 + k}: a cell {cell!r} without a reason: {row.strip()[:120]}")
                    elif re.search(r"\bN/A\b(?!\s*[:(])", cell):
                        problems.append(f"line {i + 2 + k}: 'N/A' without a reason: {row.strip()[:120]}")
    return problems
