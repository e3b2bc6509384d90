"""Reproductions of the papers' tables and figures, one module per paper.

Each module listed in :data:`PAPERS` exposes
``run(mode="quick"|"full", out=Path, progress=True) -> Path`` that computes
its tables and figures with pure functions and writes ``report.md`` plus PNG
files into ``out``; the CLI (``prunus reproduce NAME``) only dispatches here.
"""

import importlib
from collections.abc import Callable
from pathlib import Path

#: paper key -> module implementing ``run``; later papers add themselves here.
PAPERS = {
    "cart": "prunus.experiments.cart",
    "pacbayes": "prunus.experiments.pacbayes",
    "boosting": "prunus.experiments.boosting",
    "lm": "prunus.experiments.lm",
}


def get_runner(name: str) -> Callable[..., Path]:
    """The ``run`` function of paper ``name``; checks first that figures can be drawn (the ``plot`` extra)."""
    if name not in PAPERS:
        raise ValueError(f"Unknown paper {name!r}; choose from {', '.join(PAPERS)}.")
    from ._report import require_matplotlib

    require_matplotlib()
    return importlib.import_module(PAPERS[name]).run
