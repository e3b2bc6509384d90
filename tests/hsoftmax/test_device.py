import numpy as np
import pytest

torch = pytest.importorskip("torch")

from prunus.hsoftmax import (  # noqa: E402
    LabelTree,
    TreeLanguageModel,
    TreeSoftmax,
    TreeSoftmaxClassifier,
)

from .test_lm import _stream  # noqa: E402

DEVICES = ["cpu"] + (["cuda"] if torch.cuda.is_available() else [])


def test_forward_and_backward_never_read_a_value_back():
    # Tensors on the meta device have no values: any .item() / int() / .cpu()
    # inside log_prob would raise, so this run shows the training step of the
    # layer (statistics included) needs no host synchronisation.
    layer = TreeSoftmax(5, LabelTree.random(20, 3, 3, random_state=0)).to("meta")
    layer.train()
    h = torch.randn(8, 5, device="meta", requires_grad=True)
    y = torch.randint(0, 20, (8,), device="meta")
    lp = layer.log_prob(h, y)
    (-lp.mean()).backward()
    assert lp.shape == (8,) and layer.weight.grad.shape == layer.weight.shape
    layer.check_labels = True  # the opt-in check does read the labels back
    with pytest.raises((RuntimeError, NotImplementedError)):
        layer.log_prob(h, y)


@pytest.mark.parametrize("device", DEVICES)
def test_layer_on_device_matches_cpu(device):
    torch.manual_seed(0)
    cpu = TreeSoftmax(5, LabelTree.random(20, 3, 3, random_state=0))
    dev = TreeSoftmax(5, LabelTree.random(20, 3, 3, random_state=0))
    dev.load_state_dict(cpu.state_dict())
    dev.to(device)
    h = torch.randn(64, 5)
    y = torch.randint(0, 20, (64,))
    torch.testing.assert_close(dev.log_prob(h.to(device), y.to(device)).cpu(), cpu.log_prob(h, y))
    assert dev.counts.device.type == torch.device(device).type
    torch.testing.assert_close(dev.counts.cpu(), cpu.counts)
    a, b = cpu.reassign(), dev.reassign()
    assert a["moved"] == b["moved"]
    np.testing.assert_array_equal(dev.leaf_of_label.cpu().numpy(), cpu.leaf_of_label.numpy())
    assert dev.path_nodes.device.type == torch.device(device).type


@pytest.mark.parametrize("device", DEVICES)
def test_language_model_on_device_saves_and_loads_on_cpu(device, tmp_path):
    ids = _stream(1200)
    model = TreeLanguageModel(
        40,
        context_size=2,
        dim=8,
        depth=2,
        batch_size=64,
        reassign_per_epoch=4,
        device=device,
        random_state=0,
        n_threads=1,
    ).fit(ids[:1000], epochs=1)
    assert next(model.module_.parameters()).device.type == torch.device(device).type
    model.save(tmp_path / "m.pt")
    loaded = TreeLanguageModel.load(tmp_path / "m.pt", device="cpu")
    assert loaded.perplexity(ids[1000:]) == pytest.approx(model.perplexity(ids[1000:]), rel=1e-5)
    assert loaded.label_tree_ == model.label_tree_


@pytest.mark.parametrize("device", DEVICES)
def test_classifier_on_device(device):
    rng = np.random.RandomState(0)
    y = rng.randint(0, 10, 200)
    X = rng.randn(10, 3)[y] * 3 + rng.randn(200, 3)
    clf = TreeSoftmaxClassifier(hidden_layer_sizes=(8,), epochs=3, device=device, random_state=0, n_threads=1).fit(X, y)
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-5)


def test_device_argument_is_checked():
    with pytest.raises(ValueError, match="device"):
        TreeLanguageModel(10, device="gpu0").fit(np.arange(10), epochs=1)
    with pytest.raises(ValueError, match="device"):
        TreeSoftmaxClassifier(device="nope").fit(np.random.randn(20, 2), np.arange(20) % 2)
    if not torch.cuda.is_available():
        with pytest.raises(ValueError, match="cuda"):
            TreeLanguageModel(10, device="cuda").fit(np.arange(10), epochs=1)
    auto = TreeLanguageModel(10, context_size=2, dim=4, depth=2, device="auto", n_threads=1)
    auto.fit(np.arange(50) % 10, epochs=1)
    assert auto.device_.type == ("cuda" if torch.cuda.is_available() else "cpu")


def test_autocast_bf16_representation_gives_float32_log_probs():
    torch.manual_seed(0)
    body = torch.nn.Linear(4, 5)
    layer = TreeSoftmax(5, LabelTree.random(20, 3, 3, random_state=0))
    x = torch.randn(16, 4)
    y = torch.randint(0, 20, (16,))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        h = body(x)
        assert h.dtype == torch.bfloat16
        lp = layer.log_prob(h, y)
    assert lp.dtype == torch.float32 and torch.isfinite(lp).all()
    exact = layer.log_prob(h.float(), y)
    torch.testing.assert_close(lp, exact, atol=2e-2, rtol=1e-2)  # bf16 node products
    with pytest.raises(TypeError, match="dtype"):
        layer.log_prob(h, y)  # outside autocast: the dtype must match
