"""A worker lost mid-computation, and a scheduler that does not answer (runs last: it kills a worker)."""

import os
import signal
import socket
import threading
import time

import dask.array as da
import numpy as np
import pytest

from prunus import distributed as pdist
from prunus.tree import grow_cart

from .conftest import labelled


def test_worker_killed_during_counts_gives_exact_result(client):
    X, y = labelled(n=4000)
    tree = grow_cart(X[::4], y[::4], random_state=0)
    expected = tree.node_counts(X, y)

    def slow_copy(block):  # defined here so that it is pickled by value
        import time

        time.sleep(0.15)
        return block.copy()

    Xd = da.from_array(X, chunks=(100, 4)).map_blocks(slow_copy, dtype=float)  # 40 blocks, about 3 s
    victim = min(client.scheduler_info()["workers"])
    pid = client.run(os.getpid, workers=[victim])[victim]
    killed = {}

    def kill_when_busy():
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            processing = client.processing()
            if any(processing.values()):
                time.sleep(0.5)  # let the victim finish a few blocks, whose results die with it
                killed["at"] = time.monotonic()
                os.kill(pid, signal.SIGKILL)
                return
            time.sleep(0.05)

    killer = threading.Thread(target=kill_when_busy, daemon=True)
    killer.start()
    got = pdist.node_counts(tree, Xd, y)
    finished = time.monotonic()
    killer.join(timeout=30)
    np.testing.assert_array_equal(got, expected)
    assert "at" in killed and killed["at"] < finished, "the worker was not killed during the computation"
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)  # the worker process is really gone
    # The nanny restarts the worker; this file runs last, so no test waits for it.


def _free_port():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_unreachable_scheduler_is_a_clear_error_not_a_hang():
    outcome = {}

    def attempt():
        try:
            pdist.connect(f"tcp://127.0.0.1:{_free_port()}", timeout=2)
        except Exception as exc:  # noqa: BLE001 - the test inspects it
            outcome["error"] = exc

    thread = threading.Thread(target=attempt, daemon=True)
    thread.start()
    thread.join(timeout=60)  # a bound on a hang, far above the 2 s asked for
    assert not thread.is_alive(), "connect() hung on an address where no scheduler listens"
    assert isinstance(outcome.get("error"), ConnectionError)
    assert "no Dask scheduler answered" in str(outcome["error"])


def test_cli_reproduce_with_unreachable_scheduler(monkeypatch, capsys):
    from prunus import cli
    from prunus.distributed import _client

    monkeypatch.setattr(_client, "CONNECT_TIMEOUT", 1.0)
    code = cli.main(["reproduce", "cart", "--scheduler", f"tcp://127.0.0.1:{_free_port()}", "--out", "unused"])
    assert code == 1
    assert "no Dask scheduler answered" in capsys.readouterr().err


def test_connect_rejects_bad_arguments():
    with pytest.raises(TypeError, match="scheduler"):
        pdist.connect(None)
    with pytest.raises(ValueError, match="local:N"):
        pdist.connect("local:zero")
    with pytest.raises(ValueError, match="timeout"):
        pdist.connect("tcp://127.0.0.1:1", timeout=0)
