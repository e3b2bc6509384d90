import numpy as np
import pytest

torch = pytest.importorskip("torch")

from prunus.hsoftmax import TreeLanguageModel, Vocabulary  # noqa: E402


def _stream(n=3000, v=40, seed=0):
    """A Markov chain over v words: enough structure for a model to learn."""
    rng = np.random.RandomState(seed)
    nxt = rng.randint(0, v, size=(v, 3))
    ids = [0]
    for _ in range(n - 1):
        ids.append(nxt[ids[-1], rng.randint(3)] if rng.rand() < 0.9 else rng.randint(v))
    return np.asarray(ids, dtype=np.int64)


@pytest.mark.parametrize("output", ["learned", "random", "huffman", "flat", "adaptive"])
def test_perplexity_is_exact(output):
    ids = _stream()
    v = 40
    model = TreeLanguageModel(
        v,
        context_size=2,
        dim=16,
        output=output,
        depth=2,
        batch_size=64,
        lr=0.1,
        reassign_per_epoch=5,
        random_state=0,
        n_threads=1,
    )
    model.fit(ids[:2500], epochs=2, valid_ids={"test": ids[2500:]})
    test = ids[2500:]
    full = model.full_log_prob(model.contexts(test))
    assert full.shape == (test.shape[0], v)
    np.testing.assert_allclose(np.exp(full).sum(axis=1), 1.0, atol=1e-5)  # full normalization
    from_full = float(np.exp(-full[np.arange(test.shape[0]), test].mean()))
    assert model.perplexity(test) == pytest.approx(from_full, rel=1e-5)
    assert model.history_[-1]["perplexity_test"] == pytest.approx(from_full, rel=1e-5)
    assert len(model.history_) == 2
    assert model.ms_per_batch_ > 0
    # the model learned something: much better than the uniform distribution
    assert from_full < 0.6 * v


def test_learned_tree_is_learned_then_fixed():
    ids = _stream(seed=1)
    model = TreeLanguageModel(
        40,
        context_size=2,
        dim=16,
        output="learned",
        depth=2,
        batch_size=50,
        lr=0.1,
        tree_epochs=1,
        reassign_per_epoch=10,
        random_state=0,
        n_threads=1,
    )
    model.fit(ids, epochs=2)
    assert model.history_[0]["tree_learning"] and not model.history_[1]["tree_learning"]
    assert model.history_[1]["moved"] == 0
    assert len(model.reassign_log_) == 10  # after every R = 60 // 10 batches of epoch 1
    assert sum(r["moved"] for r in model.reassign_log_) == model.history_[0]["moved"]
    tree = model.label_tree_
    assert np.unique(tree.leaf_of_label).size == 40


def test_deterministic():
    ids = _stream(1000)
    kw = dict(context_size=2, dim=8, depth=2, random_state=3, n_threads=1)
    a = TreeLanguageModel(40, **kw).fit(ids, epochs=1)
    b = TreeLanguageModel(40, **kw).fit(ids, epochs=1)
    assert a.perplexity(ids) == b.perplexity(ids)
    np.testing.assert_array_equal(a.label_tree_.leaf_of_label, b.label_tree_.leaf_of_label)


def test_bad_input():
    model = TreeLanguageModel(10)
    with pytest.raises(ValueError, match="train_ids"):
        model.fit(np.array([1, 2, 30]))
    with pytest.raises(TypeError, match="train_ids"):
        model.fit(np.array([1.0, 2.0, 3.0]))
    with pytest.raises(ValueError, match="output"):
        TreeLanguageModel(10, output="x").fit(np.arange(10))
    with pytest.raises(RuntimeError, match="not fitted"):
        model.perplexity(np.arange(5))


def test_vocabulary_ptb_conventions():
    text = "the cat sat\nthe dog sat on the mat\n"
    vocab = Vocabulary.build(text)
    assert vocab.words[0] == "the"  # most frequent first
    ids = vocab.encode(text)
    assert (ids == vocab.eos_id).sum() == 2
    assert vocab.decode(ids) == text
    assert vocab.encode("the unicorn")[1] == vocab.unk_id
    small = Vocabulary.build(text, max_size=4)
    assert len(small) == 4 and small.counts.sum() == ids.shape[0]
    assert small.counts[small.unk_id] == 4  # cat, dog, on, mat


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(tree_epochs=-1), "tree_epochs"),
        (dict(reassign_per_epoch=-2), "reassign_per_epoch"),
        (dict(reassign_per_epoch=0), "reassign_per_epoch"),
        (dict(n_threads=0), "n_threads"),
        (dict(pad_id=10), "pad_id"),
        (dict(pad_id=-1), "pad_id"),
        (dict(min_count=-1), "min_count"),
        (dict(criterion="x"), "criterion"),
    ],
)
def test_bad_parameters_name_the_argument(params, match):
    model = TreeLanguageModel(10, context_size=2, dim=4, depth=2, **params)
    with pytest.raises((ValueError, TypeError), match=match):
        model.fit(np.arange(10) % 10, epochs=1)


def test_bad_contexts_name_the_argument():
    ids = _stream(400, v=10)
    model = TreeLanguageModel(10, context_size=2, dim=4, depth=2, n_threads=1, random_state=0).fit(ids, epochs=1)
    with pytest.raises(ValueError, match="context_ids"):
        model.full_log_prob(np.array([[1, 10]]))  # id >= vocabulary size
    with pytest.raises(ValueError, match="context_ids"):
        model.full_log_prob(np.array([[1, -1]]))
    with pytest.raises(ValueError, match="context_ids.*columns"):
        model.full_log_prob(np.array([[1, 2, 3]]))  # wrong width
    with pytest.raises(ValueError, match="context_ids.*2-D"):
        model.full_log_prob(np.array([1, 2]))  # 1-D
    with pytest.raises(TypeError, match="context_ids"):
        model.full_log_prob(np.array([[1.0, 2.0]]))
    with pytest.raises(ValueError, match="ids"):
        model.log_prob(np.array([1, 2, 11]))
    model.n_threads = 0
    with pytest.raises(ValueError, match="n_threads"):
        model.perplexity(ids[:20])
    assert model.full_log_prob(np.array([[1, 2]])).shape == (1, 10)
