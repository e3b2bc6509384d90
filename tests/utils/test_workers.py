"""Threads kept waiting between fits: calls run in another thread, the
threads are reused, survive a failing call, and a forked child starts its own."""

import multiprocessing
import os
import threading

import pytest

from prunus.utils import _workers
from prunus.utils._workers import start_call


def _thread_of_a_call():
    seen = []
    start_call(lambda: seen.append(threading.get_ident())).wait(10)
    return seen[0]


def test_calls_run_in_a_waiting_thread_reused_between_calls():
    first = _thread_of_a_call()
    assert first != threading.get_ident()
    # Each call, once returned, leaves its thread waiting: the next call runs there.
    assert _thread_of_a_call() == first
    assert _thread_of_a_call() == first


def test_calls_at_once_run_in_threads_of_their_own():
    release = threading.Event()
    idents = []
    running = [start_call(lambda: (idents.append(threading.get_ident()), release.wait(10))) for _ in range(3)]
    release.set()
    for done in running:
        assert done.wait(10)
    assert len(set(idents)) == 3


def test_a_failing_call_leaves_its_thread_for_the_next():
    def fail():
        raise MemoryError("no room")

    assert start_call(fail).wait(10)
    assert _thread_of_a_call() != threading.get_ident()


def _child(queue):
    # The parent's threads do not exist here: a call still runs (in a thread of the child's own).
    queue.put((len(_workers._waiting), _thread_of_a_call() != threading.get_ident()))


@pytest.mark.skipif(not hasattr(os, "fork"), reason="fork only")
def test_a_forked_child_starts_its_own_threads():
    _thread_of_a_call()
    assert _workers._waiting
    context = multiprocessing.get_context("fork")
    queue = context.Queue()
    child = context.Process(target=_child, args=(queue,))
    child.start()
    waiting_in_child, ran = queue.get(timeout=30)
    child.join(30)
    assert waiting_in_child == 0 and ran
