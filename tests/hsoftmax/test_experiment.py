import numpy as np
import pytest

pytest.importorskip("torch")

from sklearn.utils import Bunch  # noqa: E402

from prunus.datasets import Vocabulary  # noqa: E402
from prunus.experiments.lm import OUTPUTS, leaf_table, make_many_class, run_corpus  # noqa: E402


def test_run_corpus_tiny():
    rng = np.random.RandomState(0)
    words = [f"w{i}" for i in range(60)]
    text = "\n".join(" ".join(rng.choice(words, size=8)) for _ in range(300))
    vocab = Vocabulary.build(text)
    ids = vocab.encode(text)
    data = Bunch(ids_train=ids[:2000], ids_valid=ids[2000:2300], ids_test=ids[2300:], vocabulary=vocab)
    settings = dict(n_train=None, n_eval=None, epochs=2, tree_epochs=1, dim=8, batch_size=64)
    res = run_corpus(data, 2, settings, progress=False)
    assert set(res) == set(OUTPUTS)
    for r in res.values():
        assert np.isfinite(r["perplexity"]) and len(r["history"]) == 2
        assert r["perplexity"] == pytest.approx(r["history"][-1]["perplexity_test"])
    columns = leaf_table(res["learned"]["model"], vocab, n_leaves=2, n_words=2)
    assert len(columns) == 2 and all(len(w) == 2 and set(w) <= set(vocab.words) for _, w in columns)


def test_make_many_class():
    X, y = make_many_class(n_classes=500, n_per_class=3, n_features=4, n_groups=10)
    assert X.shape == (1500, 4) and np.bincount(y).tolist() == [3] * 500
