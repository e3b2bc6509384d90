"""The progress bar every long fit shows when asked (``verbose``), silent by default."""

from __future__ import annotations

from typing import Any


class _Silent:
    """What a fit reads of a disabled bar (``update``, ``close``, a context):
    a disabled tqdm bar costs tens of microseconds to make, as much as a
    small table's tree."""

    def update(self, n: int = 1) -> None:
        """Advance by ``n`` steps (nothing to show)."""

    def close(self) -> None:
        """Nothing to close."""

    def __enter__(self) -> _Silent:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


_SILENT = _Silent()


def progress_bar(verbose: Any, total: int, desc: str, unit: str) -> Any:
    """A tqdm bar of ``total`` steps when ``verbose`` is truthy, else a silent stand-in.

    Used as a context manager; ``bar.update()`` advances it by one step.
    ``tqdm.auto`` picks the notebook widget in Jupyter and text elsewhere.
    """
    if not verbose:
        return _SILENT
    from tqdm.auto import tqdm

    return tqdm(total=total, disable=False, desc=desc, unit=unit)
