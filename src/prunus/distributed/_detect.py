"""Recognising dask collections without importing dask."""

from __future__ import annotations

import sys
from typing import Any


def is_dask_collection(obj: object) -> bool:
    """True for a dask array, DataFrame, Series or delayed object.

    An object can only be a dask collection if dask has been imported, so this
    never imports dask itself.

    Parameters
    ----------
    obj : object
        Anything.

    Returns
    -------
    is_dask : bool
        Whether ``obj`` is a dask collection.
    """
    dask = sys.modules.get("dask")
    if dask is None:
        return False
    return bool(dask.is_dask_collection(obj))


def any_dask(*objs) -> bool:
    """True when at least one of ``objs`` is a dask collection."""
    return any(is_dask_collection(obj) for obj in objs)


def require_dask() -> Any:
    """Import dask (and dask.array), or say which extra to install."""
    try:
        import dask
        import dask.array
    except ImportError as exc:  # pragma: no cover - the extra is installed in CI
        raise ImportError("dask inputs need the optional dask extra: pip install 'prunus[dask]'") from exc
    return dask
