"""Threads of this process kept waiting for work between calls.

Starting a thread costs about 0.1 ms (``Thread.start`` waits until the new
thread runs), as much as growing a small table's fold: the compiled calls
that share a fit's folds among threads are handed to threads that already
exist, started once and then kept waiting. A process forked from this one
has none of them (only the forking thread survives a fork): it forgets them
and starts its own.
"""

from __future__ import annotations

import os
import queue
import threading
from collections.abc import Callable


class _Worker:
    """A daemon thread that runs the calls handed to it, one after the other."""

    def __init__(self) -> None:
        self._calls: queue.SimpleQueue[tuple[Callable[[], object], threading.Event]] = queue.SimpleQueue()
        threading.Thread(target=self._serve, daemon=True, name="prunus-worker").start()

    def hand(self, call: Callable[[], object], done: threading.Event) -> None:
        self._calls.put((call, done))

    def _serve(self) -> None:
        while True:
            call, done = self._calls.get()
            try:
                call()
            except BaseException:  # the call reports its own errors; the thread stays for the next one
                pass
            finally:
                with _lock:
                    _waiting.append(self)
                done.set()


_lock = threading.Lock()
_waiting: list[_Worker] = []


def _forget_workers() -> None:
    """In a forked child: the parent's threads do not exist here."""
    global _lock
    _lock = threading.Lock()
    _waiting.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_workers)


def start_call(call: Callable[[], object]) -> threading.Event:
    """Run ``call()`` in a waiting thread of this process (a new one when none
    waits); the returned event is set once it has returned (or raised:
    ``call`` must keep its own errors for its caller)."""
    with _lock:
        worker = _waiting.pop() if _waiting else None
    if worker is None:
        worker = _Worker()
    done = threading.Event()
    worker.hand(call, done)
    return done
