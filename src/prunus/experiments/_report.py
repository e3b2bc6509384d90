"""A Markdown report with tables and PNG figures, written to one directory."""

from __future__ import annotations

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
        return f"{value:.{digits}f}" if abs(value) >= 10 ** (-digits) or value == 0 else f"{value:.2e}"
    return str(value)


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

    def heading(self, text, level=2):
        self.blocks.append(f"{'#' * level} {text}\n")

    def text(self, text):
        self.blocks.append(text.strip() + "\n")

    def table(self, header, rows, digits=4):
        """A Markdown table; floats are printed with ``digits`` decimals."""
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

    def write(self, name="report.md") -> Path:
        path = self.out / name
        path.write_text("\n".join(self.blocks))
        return path
