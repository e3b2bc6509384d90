"""The progress bar every long fit shows when asked (``verbose``), silent by default."""

from __future__ import annotations

from typing import Any


def progress_bar(verbose: Any, total: int, desc: str, unit: str) -> Any:
    """A tqdm bar of ``total`` steps when ``verbose`` is truthy, else a silent stand-in.

    Used as a context manager; ``bar.update()`` advances it by one step.
    ``tqdm.auto`` picks the notebook widget in Jupyter and text elsewhere.
    """
    from tqdm.auto import tqdm

    return tqdm(total=total, disable=not verbose, desc=desc, unit=unit)
