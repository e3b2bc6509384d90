import itertools

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st

from prunus.hsoftmax import HuffmanTree, TreeSoftmax, huffman_codes  # noqa: E402


def _brute_force_min_length(p, m):
    """min sum_i p_i l_i over integer lengths with sum_i m**-l_i <= 1 (Kraft-McMillan:
    exactly the length vectors of M-ary prefix codes)."""
    k = len(p)
    best = np.inf
    for lengths in itertools.product(range(1, k), repeat=k):  # an optimal code is never longer than K - 1
        if sum(float(m) ** -length for length in lengths) <= 1 + 1e-12:
            best = min(best, float(np.dot(p, lengths)))
    return best


@settings(max_examples=40, deadline=None)
@given(freq=st.lists(st.integers(0, 50), min_size=2, max_size=6), m=st.integers(2, 4))
def test_huffman_expected_length_is_minimal(freq, m):
    freq = np.asarray(freq, dtype=float)
    if freq.sum() == 0:
        freq = freq + 1.0
    tree = HuffmanTree.build(freq, m)
    p = freq / freq.sum()
    assert tree.expected_length(freq) == pytest.approx(_brute_force_min_length(p, m), abs=1e-9)
    # as in every optimal code, a more frequent label is never deeper
    more = freq[:, None] > freq[None, :]
    lengths = tree.lengths
    assert np.all((lengths[:, None] <= lengths[None, :]) | ~more)


def test_small_cases():
    codes = huffman_codes([5, 1, 1, 1], 2)
    lengths = (codes >= 0).sum(axis=1)
    assert lengths[0] == 1 and sorted(lengths[1:]) == [2, 3, 3]
    tree = HuffmanTree.build([3, 2], 4)  # fewer labels than the arity: one node
    assert tree.depth == 1 and tree.n_internal == 2  # root + pad node


@pytest.mark.parametrize(
    "codes, match",
    [
        ([[0, -1], [0, 1]], "prefix"),
        ([[0, 1], [0, 1]], "prefix"),
        ([[0, 3], [1, -1]], "child indices"),
        ([[-1, 0], [1, -1]], "child indices|-1 before"),
    ],
)
def test_bad_codes(codes, match):
    with pytest.raises(ValueError, match=match):
        HuffmanTree(np.array(codes), 3)


@settings(max_examples=20, deadline=None)
@given(k=st.integers(2, 40), m=st.integers(2, 6), seed=st.integers(0, 1000))
def test_huffman_softmax_is_a_distribution_and_matches_the_paths(k, m, seed):
    rng = np.random.RandomState(seed)
    freq = rng.zipf(1.5, size=k).astype(float)
    torch.manual_seed(seed)
    layer = TreeSoftmax(5, HuffmanTree.build(freq, m))
    with torch.no_grad():
        layer.bias.normal_()
    h = torch.randn(6, 5)
    full = layer.full_log_prob(h).double().detach()
    np.testing.assert_allclose(full.exp().sum(dim=1).detach().numpy(), 1.0, atol=1e-5)
    y = torch.as_tensor(rng.randint(0, k, 6))
    np.testing.assert_allclose(
        layer.log_prob(h, y).detach().numpy(), full[torch.arange(6), y].detach().numpy(), atol=1e-5
    )
    # reference: one node at a time, stopping at the end of each code
    tree = layer.tree
    for b in range(6):
        label, total = int(y[b]), 0.0
        for d in range(int(tree.lengths[label])):
            n = int(tree.path_nodes[label, d])
            logits = layer.node_weight()[n] @ h[b] + layer.bias[n]
            logits = logits.masked_fill(~torch.as_tensor(tree.child_mask[n]), float("-inf"))
            total += float(torch.log_softmax(logits.detach(), 0)[int(tree.path_children[label, d])])
        assert total == pytest.approx(float(full[b, label]), abs=1e-5)
    greedy = layer.predict(h, "greedy")
    assert greedy.min() >= 0 and greedy.max() < k
    # greedy = argmax of the product of the chosen node probabilities along its own path
    assert torch.equal(layer.predict(h, "exact"), full.argmax(dim=1))


def test_huffman_layer_save_load_and_no_reassign():
    freq = np.arange(1, 31, dtype=float)
    layer = TreeSoftmax(4, HuffmanTree.build(freq, 3))
    state = layer.state_dict()
    assert "codes" in state
    fresh = TreeSoftmax(4, HuffmanTree.build(freq, 3))
    with torch.no_grad():
        fresh.weight.zero_()
    fresh.load_state_dict(state)
    h = torch.randn(5, 4)
    assert torch.equal(fresh.full_log_prob(h), layer.full_log_prob(h))
    from prunus.hsoftmax import LabelTree

    with pytest.raises(ValueError, match="another shape"):
        TreeSoftmax(4, LabelTree(30, 3, 4)).load_state_dict(state)
    with pytest.raises(TypeError, match="reassign"):
        layer.reassign()
