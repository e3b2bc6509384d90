import os
import socket
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from torch import distributed as dist  # noqa: E402

from prunus.hsoftmax import TreeLanguageModel, TreeSoftmaxClassifier  # noqa: E402

pytestmark = pytest.mark.skipif(not dist.is_available(), reason="torch built without torch.distributed")
ROOT = Path(__file__).resolve().parents[2]


def lm_data():
    from tests.hsoftmax.test_lm import _stream

    return _stream(2000, v=30, seed=4)


def lm_model():
    return TreeLanguageModel(
        30,
        context_size=2,
        dim=8,
        depth=2,
        batch_size=32,
        reassign_per_epoch=4,
        tree_epochs=1,
        random_state=0,
        n_threads=1,
    )


def clf_data():
    rng = np.random.RandomState(0)
    y = rng.randint(0, 12, 400)
    return rng.randn(12, 4)[y] * 3 + rng.randn(400, 4), y


def clf_model():
    return TreeSoftmaxClassifier(
        hidden_layer_sizes=(8,), depth=2, epochs=4, reassign_per_epoch=3, batch_size=32, random_state=0, n_threads=1
    )


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _run(world, tmp_path, kind):
    port = _free_port()
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")]))
    procs = [
        subprocess.Popen(
            [
                sys.executable,
                str(ROOT / "tests/hsoftmax/_ddp_worker.py"),
                str(rank),
                str(world),
                str(port),
                str(tmp_path),
                kind,
            ],
            env=env,
            cwd=ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
        )
        for rank in range(world)
    ]
    outputs = []
    try:
        for p in procs:
            outputs.append(p.communicate(timeout=240)[0].decode(errors="replace"))
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
    for p, out in zip(procs, outputs):
        assert p.returncode == 0, out[-3000:]
    return [torch.load(tmp_path / f"rank{r}.pt", weights_only=True) for r in range(world)]


@pytest.mark.parametrize("kind", ["lm", "clf"])
def test_two_ranks_build_the_same_tree(tmp_path, kind):
    a, b = _run(2, tmp_path, kind)
    assert torch.equal(a["leaf_of_label"], b["leaf_of_label"])
    for key in a["state"]:
        assert torch.equal(a["state"][key], b["state"][key]) or key in ("head.sum_probas", "head.counts"), key
    if kind == "lm":
        assert np.isfinite(a["perplexity"]) and a["perplexity"] == b["perplexity"]
    else:
        assert torch.equal(a["proba"], b["proba"])


def test_one_rank_equals_the_plain_fit(tmp_path):
    (one,) = _run(1, tmp_path, "lm")
    ids = lm_data()
    plain = lm_model().fit(ids[:1600], epochs=2)
    assert one["perplexity"] == pytest.approx(plain.perplexity(ids[1600:]), rel=1e-4)
    np.testing.assert_array_equal(one["leaf_of_label"].numpy(), plain.label_tree_.leaf_of_label)


def test_train_entry_point(tmp_path, capsys):
    from prunus import datasets
    from prunus.hsoftmax.train import main

    if not datasets.is_available("ptb"):
        pytest.skip("ptb is not fetched on this machine")
    path = tmp_path / "lm.pt"
    main(
        [
            "--data",
            "ptb",
            "--tokens",
            "3000",
            "--eval-tokens",
            "2000",
            "--epochs",
            "1",
            "--dim",
            "8",
            "--reassign-per-epoch",
            "2",
            "--threads",
            "1",
            "--device",
            "cpu",
            "--save",
            str(path),
        ]
    )
    assert "test perplexity" in capsys.readouterr().out
    model = TreeLanguageModel.load(path)
    assert model.vocabulary_.words == datasets.load("ptb").vocabulary.words
    assert np.isfinite(model.perplexity(datasets.load("ptb").ids_test[:500]))
