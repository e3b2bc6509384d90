import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st

from prunus.hsoftmax import LabelTree, TreeSoftmax, node_objectives  # noqa: E402


def _layer(k, m, depth, features=5, seed=0, **kw):
    torch.manual_seed(seed)
    tree = LabelTree.random(k, m, depth, random_state=seed)
    layer = TreeSoftmax(features, tree, **kw)
    with torch.no_grad():
        layer.bias.normal_()
    return layer


@settings(max_examples=25, deadline=None)
@given(k=st.integers(2, 40), depth=st.integers(1, 3), extra=st.integers(0, 2), seed=st.integers(0, 1000))
def test_full_log_prob_normalized_and_matches_log_prob(k, depth, extra, seed):
    from prunus.hsoftmax import default_arity

    m = default_arity(k, depth) + extra  # extra > 0 leaves empty slots / empty children
    layer = _layer(k, m, depth, seed=seed)
    h = torch.randn(7, 5, dtype=torch.float32)
    full = layer.full_log_prob(h).double().detach()
    np.testing.assert_allclose(full.exp().sum(dim=1).numpy(), 1.0, atol=1e-5)
    y = torch.randint(0, k, (7,))
    np.testing.assert_allclose(
        layer.log_prob(h, y).detach().numpy(), full[torch.arange(7), y].detach().numpy(), atol=1e-5
    )
    assert torch.equal(layer.predict(h, "exact"), full.argmax(dim=1))
    greedy = layer.predict(h, "greedy")
    assert greedy.min() >= 0 and greedy.max() < k


def _reference_log_prob(weight, bias, tree, h, y):
    """Plain hierarchical softmax, one example and one node at a time (eq. 5)."""
    m, f = tree.arity, h.shape[1]
    out = []
    for b in range(h.shape[0]):
        total = 0.0
        label = int(y[b])
        for d in range(tree.depth):
            n = int(tree.path_nodes[label, d])
            logits = weight[n].view(m, f) @ h[b] + bias[n]
            logits = logits.masked_fill(~torch.as_tensor(tree.child_mask[n]), float("-inf"))
            total = total + torch.log_softmax(logits, dim=0)[int(tree.path_children[label, d])]
        out.append(total)
    return torch.stack(out)


@pytest.mark.parametrize("sparse", [False, True])
def test_fixed_tree_step_is_hierarchical_softmax_gradient_descent(sparse):
    layer = _layer(20, 3, 3, features=4, seed=3, sparse=sparse)
    h = torch.randn(16, 4)
    y = torch.randint(0, 20, (16,))
    w_ref = layer.weight.detach().clone().requires_grad_(True)
    b_ref = layer.bias.detach().clone().requires_grad_(True)
    lr = 0.3
    opt = torch.optim.SGD(layer.parameters(), lr=lr)
    opt.zero_grad()
    (-layer.log_prob(h, y).mean()).backward()
    opt.step()
    loss_ref = -_reference_log_prob(w_ref, b_ref, layer.tree, h, y).mean()
    gw, gb = torch.autograd.grad(loss_ref, (w_ref, b_ref))
    torch.testing.assert_close(layer.weight.detach(), w_ref.detach() - lr * gw, atol=1e-6, rtol=1e-5)
    torch.testing.assert_close(layer.bias.detach(), b_ref.detach() - lr * gb, atol=1e-6, rtol=1e-5)


def test_statistics_are_algorithm1_lines_8_9():
    layer = _layer(12, 4, 2, seed=1)
    layer.train()
    h = torch.randn(30, 5)
    y = torch.randint(0, 12, (30,))
    layer.log_prob(h, y)
    tree = layer.tree
    sp = np.zeros((12, 2, 4))
    cnt = np.zeros((12, 2))
    with torch.no_grad():
        for b in range(30):
            label = int(y[b])
            for d in range(2):
                n = int(tree.path_nodes[label, d])
                logits = layer.node_weight()[n] @ h[b] + layer.bias[n]
                logits = logits.masked_fill(~torch.as_tensor(tree.child_mask[n]), float("-inf"))
                sp[label, d] += torch.softmax(logits, 0).numpy()
                cnt[label, d] += 1
    np.testing.assert_allclose(layer.sum_probas.numpy(), sp, atol=1e-6)
    np.testing.assert_array_equal(layer.counts.numpy(), cnt)
    layer.eval()
    layer.log_prob(h, y)  # evaluation does not touch the statistics
    np.testing.assert_array_equal(layer.counts.numpy(), cnt)


def test_reassign_keeps_parameters_and_resets_moved_statistics():
    torch.manual_seed(0)
    k, m, depth, f = 27, 3, 3, 6
    tree = LabelTree.random(k, m, depth, random_state=0)
    layer = TreeSoftmax(f, tree)
    # examples of label i have a representation that the root sends to child i % 3
    centers = torch.randn(k, f) * 3
    y = torch.arange(k).repeat(20)
    h = centers[y] + 0.1 * torch.randn(y.shape[0], f)
    opt = torch.optim.Adam(layer.parameters(), lr=0.05)
    for _ in range(30):
        opt.zero_grad()
        (-layer.log_prob(h, y).mean()).backward()
        opt.step()
    before_w = layer.node_weight().detach().clone()
    before_b = layer.bias.detach().clone()
    old_leaf = layer.tree.leaf_of_label.copy()
    old_nodes = layer.tree.path_nodes.copy()
    counts_before = layer.counts.clone()
    sums_before = layer.sum_probas.clone()
    info = layer.reassign()
    # groups' rows are kept; a label's last-level row moves with it to its new leaf
    last = int(tree.offsets[depth - 1])
    assert torch.equal(layer.node_weight()[:last].detach(), before_w[:last])
    new_leaf = layer.tree.leaf_of_label
    assert info["moved"] == int(np.sum(new_leaf != old_leaf)) > 0
    for label in range(k):
        (po, co), (pn, cn) = [(last + s // m, s % m) for s in (old_leaf[label], new_leaf[label])]
        assert torch.equal(layer.node_weight()[pn, cn].detach(), before_w[po, co])
        assert layer.bias[pn, cn].item() == before_b[po, co].item()
    assert info["J"].shape == (tree.n_internal,)
    valid = info["J"][~np.isnan(info["J"])]
    assert np.all((valid >= -1e-12) & (valid <= 4 / m * (1 - 1 / m) + 1e-12))
    np.testing.assert_allclose(
        info["J"], node_objectives(sums_before.numpy(), counts_before.numpy(), old_nodes, tree.n_internal)
    )
    assert info["J"][0] > 0.2  # the trained root separates the label groups (J* = 0.89)
    same = layer.tree.path_nodes == old_nodes
    np.testing.assert_array_equal(layer.counts.numpy()[same], counts_before.numpy()[same])
    assert np.all(layer.counts.numpy()[~same] == 0)
    # still a proper distribution after the tree changed
    full = layer.full_log_prob(h[:5]).double().detach()
    np.testing.assert_allclose(full.exp().sum(1).numpy(), 1.0, atol=1e-5)
    # the learned structure is at least as good for the training likelihood as random leaves would be
    assert info["moved"] >= 0


def test_reassign_without_carry_keeps_every_parameter():
    layer = _layer(20, 3, 3, seed=2, carry_leaf_rows=False)
    h = torch.randn(200, 5)
    y = torch.randint(0, 20, (200,))
    layer.log_prob(h, y)
    before = layer.weight.detach().clone()
    assert layer.reassign()["moved"] > 0
    assert torch.equal(layer.weight.detach(), before)


def test_bad_input():
    layer = _layer(10, 4, 2)
    with pytest.raises(ValueError, match="h"):
        layer.log_prob(torch.randn(3, 4), torch.tensor([0, 1, 2]))
    with pytest.raises(ValueError, match="y"):
        layer.log_prob(torch.randn(3, 5), torch.tensor([0, 1, 10]))
    with pytest.raises(TypeError, match="y"):
        layer.log_prob(torch.randn(3, 5), torch.tensor([0.0, 1.0, 2.0]))
    with pytest.raises(TypeError, match="h must have the dtype.*float32"):
        layer.log_prob(torch.randn(3, 5, dtype=torch.float64), torch.tensor([0, 1, 2]))
    with pytest.raises(TypeError, match="label_tree"):
        TreeSoftmax(5, "tree")
    with pytest.raises(ValueError, match="criterion"):
        TreeSoftmax(5, LabelTree(4, 2, 2), criterion="x")
    with pytest.raises(ValueError, match="method"):
        layer.predict(torch.randn(2, 5), method="x")


@settings(max_examples=20, deadline=None)
@given(
    k=st.integers(2, 200),
    depth=st.integers(1, 4),
    arity=st.integers(2, 9),
    dense_nodes=st.integers(0, 100),
    sparse=st.booleans(),
    seed=st.integers(0, 1000),
)
def test_dense_top_levels_equal_gathered_rows(k, depth, arity, dense_nodes, sparse, seed):
    """Scoring the top levels with one product per level gives the log-probabilities,
    the statistics and the gradients of gathering every example's node rows."""
    if arity**depth < k:
        depth = int(np.ceil(np.log(k) / np.log(arity))) + 1
    torch.manual_seed(seed)
    tree = LabelTree.random(k, arity, depth, random_state=seed)
    ref = TreeSoftmax(5, tree, sparse=sparse)
    ref.dense_nodes = 0  # every level gathered
    layer = TreeSoftmax(5, tree.copy(), sparse=sparse)
    layer.load_state_dict(ref.state_dict())
    layer.dense_nodes = dense_nodes
    h = torch.randn(17, 5)
    y = torch.randint(0, k, (17,))
    out = []
    for mod in (ref, layer):
        mod.train()
        lp = mod.log_prob(h, y)
        lp.sum().backward()
        out.append((lp.detach(), mod.weight.grad.to_dense(), mod.bias.grad.to_dense(), mod.sum_probas.clone()))
    for a, b in zip(*out):
        torch.testing.assert_close(a, b, rtol=1e-5, atol=1e-5)
