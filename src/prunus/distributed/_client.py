"""Connecting to a Dask scheduler with a bounded wait and a clear error."""

from __future__ import annotations

import numbers
from typing import Any

#: Seconds to wait for a scheduler before giving up.
CONNECT_TIMEOUT = 10.0


def connect(scheduler: str, timeout: float | None = None) -> Any:
    """A ``distributed.Client`` for ``scheduler``.

    Parameters
    ----------
    scheduler : str
        A scheduler address (``"tcp://host:8786"``), or ``"local:N"`` to start
        a ``LocalCluster`` of ``N`` single-threaded worker processes on this
        machine (closed with the client).
    timeout : float, optional
        Seconds to wait for the scheduler to answer (default
        :data:`CONNECT_TIMEOUT`).

    Returns
    -------
    client : distributed.Client
        The client, which dask computations then use by default; close it
        (or use it as a context manager) when done.

    Raises
    ------
    ConnectionError
        When no scheduler answers at the address within ``timeout`` seconds.
    """
    if not isinstance(scheduler, str) or not scheduler:
        raise TypeError(f"scheduler must be an address string or 'local:N', got {scheduler!r}.")
    if timeout is None:
        timeout = CONNECT_TIMEOUT
    if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real) or not float(timeout) > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}.")
    try:
        from distributed import Client
    except ImportError as exc:  # pragma: no cover - the extra is installed in CI
        raise ImportError("a Dask scheduler needs the optional dask extra: pip install 'prunus[dask]'") from exc
    if scheduler.startswith("local:"):
        n = scheduler[len("local:") :]
        if not n.isdigit() or int(n) < 1:
            raise ValueError(f"scheduler 'local:N' needs a positive worker count N, got {scheduler!r}.")
        # A client given the cluster's settings owns the cluster and closes it with itself.
        return Client(
            n_workers=int(n), threads_per_worker=1, processes=True, dashboard_address=None, timeout=f"{timeout}s"
        )
    try:
        return Client(scheduler, timeout=f"{timeout}s")
    except (OSError, TimeoutError) as exc:
        raise ConnectionError(f"no Dask scheduler answered at {scheduler!r} within {timeout:g} s ({exc}).") from None
