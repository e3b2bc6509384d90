import io
import pickle

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from prunus.hsoftmax import (  # noqa: E402
    LabelTree,
    TreeLanguageModel,
    TreeSoftmax,
    TreeSoftmaxClassifier,
    Vocabulary,
)

from .test_lm import _stream  # noqa: E402


def _roundtrip(obj):
    buf = io.BytesIO()
    torch.save(obj, buf)
    buf.seek(0)
    return torch.load(buf, weights_only=True)


@pytest.mark.parametrize("n_reassign", [0, 1, 3])
def test_tree_softmax_state_dict_restores_the_learned_tree(n_reassign):
    torch.manual_seed(0)
    layer = TreeSoftmax(5, LabelTree.random(20, 3, 3, random_state=0))
    h = torch.randn(300, 5)
    y = torch.randint(0, 20, (300,))
    moved = 0
    for _ in range(n_reassign):
        layer.log_prob(h + torch.randn_like(h), y)
        moved += layer.reassign()["moved"]
    assert moved > 0 or n_reassign == 0
    fresh = TreeSoftmax(5, LabelTree.random(20, 3, 3, random_state=1))
    fresh.load_state_dict(_roundtrip(layer.state_dict()))
    layer.eval()
    fresh.eval()
    assert fresh.tree == layer.tree
    assert torch.equal(fresh.log_prob(h, y), layer.log_prob(h, y))
    assert torch.equal(fresh.full_log_prob(h), layer.full_log_prob(h))
    assert torch.equal(fresh.predict(h), layer.predict(h))
    assert torch.equal(fresh.path_nodes, layer.path_nodes) and torch.equal(fresh.child_mask, layer.child_mask)


def test_loading_a_learned_tree_changes_log_prob():
    # the state carries the tree: without it the fresh module would score differently
    torch.manual_seed(0)
    layer = TreeSoftmax(5, LabelTree.random(20, 3, 3, random_state=0))
    h = torch.randn(300, 5)
    y = torch.randint(0, 20, (300,))
    layer.log_prob(h, y)
    assert layer.reassign()["moved"] > 0
    state = layer.state_dict()
    fresh = TreeSoftmax(5, LabelTree.random(20, 3, 3, random_state=0))
    layer.eval()
    fresh.eval()
    fresh.load_state_dict({k: v for k, v in state.items() if k != "leaf_of_label"}, strict=False)
    assert not torch.equal(fresh.log_prob(h, y), layer.log_prob(h, y))
    fresh.load_state_dict(state)
    assert torch.equal(fresh.log_prob(h, y), layer.log_prob(h, y))


@pytest.mark.parametrize(
    "other", [dict(k=20, m=4, d=3), dict(k=20, m=3, d=4), dict(k=21, m=3, d=3), dict(k=20, m=3, d=3, f=6)]
)
def test_state_of_another_shape_is_a_clear_error(other):
    layer = TreeSoftmax(5, LabelTree.random(20, 3, 3, random_state=0))
    fresh = TreeSoftmax(other.get("f", 5), LabelTree.random(other["k"], other["m"], other["d"], random_state=0))
    with pytest.raises(ValueError, match="another shape"):
        fresh.load_state_dict(layer.state_dict())


def test_invalid_leaves_in_a_state_are_rejected():
    layer = TreeSoftmax(5, LabelTree.random(20, 3, 3, random_state=0))
    state = layer.state_dict()
    state["leaf_of_label"] = torch.zeros(20, dtype=torch.long)
    with pytest.raises(ValueError, match="leaf_of_label"):
        TreeSoftmax(5, LabelTree(20, 3, 3)).load_state_dict(state)


@pytest.mark.parametrize("output", ["learned", "random", "huffman", "flat", "adaptive"])
def test_language_model_save_load_and_pickle(output, tmp_path):
    ids = _stream(1500)
    model = TreeLanguageModel(
        40,
        context_size=2,
        dim=8,
        output=output,
        depth=2,
        batch_size=64,
        reassign_per_epoch=5,
        random_state=0,
        n_threads=1,
    )
    model.fit(ids[:1200], epochs=1)
    test = ids[1200:]
    vocab = Vocabulary([f"w{i}" for i in range(38)] + ["<unk>", "<eos>"])
    path = tmp_path / "lm.pt"
    model.save(path, vocabulary=vocab)
    raw = torch.load(path, weights_only=True)  # plain data only
    assert raw["format"] == "prunus.TreeLanguageModel"
    loaded = TreeLanguageModel.load(path)
    assert loaded.perplexity(test) == model.perplexity(test)
    ctx = model.contexts(test)
    np.testing.assert_array_equal(loaded.full_log_prob(ctx), model.full_log_prob(ctx))
    assert loaded.vocabulary_.words == vocab.words
    assert loaded.history_ == model.history_
    if output in ("learned", "random", "huffman"):
        assert loaded.label_tree_ == model.label_tree_
    unpickled = pickle.loads(pickle.dumps(model))
    assert unpickled.perplexity(test) == model.perplexity(test)


def test_load_rejects_other_files(tmp_path):
    path = tmp_path / "x.pt"
    torch.save({"a": 1}, path)
    with pytest.raises(ValueError, match="TreeLanguageModel"):
        TreeLanguageModel.load(path)
    with pytest.raises(ValueError, match="TreeSoftmaxClassifier"):
        TreeSoftmaxClassifier.load(path)


@pytest.mark.parametrize("output", ["learned", "random", "flat"])
def test_classifier_save_load_and_pickle(output, tmp_path):
    rng = np.random.RandomState(0)
    centers = rng.randn(12, 4) * 3
    y = rng.randint(0, 12, 300)
    X = centers[y] + rng.randn(300, 4)
    labels = np.array([f"c{i}" for i in range(12)])[y]
    clf = TreeSoftmaxClassifier(
        hidden_layer_sizes=(8,), output=output, depth=2, epochs=4, reassign_per_epoch=3, random_state=0, n_threads=1
    ).fit(X, labels)
    path = tmp_path / "clf.pt"
    clf.save(path)
    assert torch.load(path, weights_only=True)["format"] == "prunus.TreeSoftmaxClassifier"
    loaded = TreeSoftmaxClassifier.load(path)
    np.testing.assert_array_equal(loaded.predict_log_proba(X), clf.predict_log_proba(X))
    np.testing.assert_array_equal(loaded.predict(X), clf.predict(X))
    assert loaded.classes_.dtype == clf.classes_.dtype
    if output != "flat":
        assert loaded.label_tree_ == clf.label_tree_
        np.testing.assert_array_equal(
            loaded.set_params(predict_method="greedy").predict(X), clf.set_params(predict_method="greedy").predict(X)
        )
    unpickled = pickle.loads(pickle.dumps(clf))
    np.testing.assert_array_equal(unpickled.predict_log_proba(X), clf.predict_log_proba(X))
