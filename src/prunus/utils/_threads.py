"""Calls shared among threads of this process, started per call."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Any


def in_threads(function: Callable[..., Any], calls: Sequence[tuple[Any, ...]]) -> list[Any]:
    """``function(*args)`` of every ``args`` of ``calls``: the first in this
    thread, each other in a thread of its own; the results in order.

    The calls are worth threads where ``function`` spends its time in
    compiled code that releases the GIL. The first error of a call is
    raised here once every thread has finished. Threads are started per
    call rather than kept in a pool by the module: a pool's threads would
    not exist in a process forked from this one.
    """
    results: list[Any] = [None] * len(calls)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            results[i] = function(*calls[i])
        except BaseException as exc:  # re-raised in the calling thread
            errors.append(exc)

    workers = [threading.Thread(target=run, args=(i,)) for i in range(1, len(calls))]
    for worker in workers:
        worker.start()
    if calls:
        run(0)
    for worker in workers:
        worker.join()
    if errors:
        raise errors[0]
    return results
