import numpy as np
import pytest

pytest.importorskip("torch")

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st

from prunus.hsoftmax import j_star, node_objective, node_objectives  # noqa: E402


def test_eq6_hand_computed():
    # K=2 labels, M=2 children; q = (0.75, 0.25), p_{.|1} = (1, 0), p_{.|2} = (0.2, 0.8)
    # p = (0.75*1 + 0.25*0.2, 0.25*0.8) = (0.8, 0.2)
    # J = (2/2) [0.75 (|0.8-1| + |0.2-0|) + 0.25 (|0.8-0.2| + |0.2-0.8|)] = 0.3 + 0.3 = 0.6
    assert node_objective([0.75, 0.25], [[1.0, 0.0], [0.2, 0.8]]) == pytest.approx(0.6)
    # M=3, one label: the conditional equals the marginal -> J = 0
    assert node_objective([1.0], [[0.2, 0.3, 0.5]]) == pytest.approx(0.0)


def test_lemma3_pure_and_balanced_reaches_j_star():
    for m in (2, 3, 5, 25):
        k = 2 * m
        q = np.full(k, 1.0 / k)
        p_cond = np.zeros((k, m))
        p_cond[np.arange(k), np.arange(k) % m] = 1.0  # pure, and each child gets 1/M of the mass
        assert node_objective(q, p_cond) == pytest.approx(j_star(m), abs=1e-12)
        # pure but unbalanced -> strictly below J*
        p_cond2 = np.zeros((k, m))
        p_cond2[:, 0] = 1.0
        p_cond2[0, 0], p_cond2[0, 1] = 0.0, 1.0
        assert node_objective(q, p_cond2) < j_star(m) - 1e-9
        # balanced but impure -> strictly below J*
        assert node_objective(q, np.full((k, m), 1.0 / m)) < j_star(m) - 1e-9


@settings(max_examples=60, deadline=None)
@given(k=st.integers(1, 8), m=st.integers(2, 6), seed=st.integers(0, 10**6))
def test_lemma2_range(k, m, seed):
    rng = np.random.RandomState(seed)
    q = rng.dirichlet(np.ones(k))
    p_cond = rng.dirichlet(np.full(m, 0.3), size=k)
    j = node_objective(q, p_cond)
    assert -1e-12 <= j <= j_star(m) + 1e-12


@settings(max_examples=30, deadline=None)
@given(k=st.integers(2, 12), m=st.integers(2, 4), seed=st.integers(0, 10**6))
def test_node_objectives_from_algorithm1_stats(k, m, seed):
    """J_n from SumProbas / Counts equals eq. 6 with q_i = Counts_i / sum and p_{j|i} = SumProbas_i / Counts_i."""
    rng = np.random.RandomState(seed)
    depth = 2
    path_nodes = np.stack([np.zeros(k, dtype=np.int64), 1 + rng.randint(0, m, size=k)], axis=1)
    counts = rng.randint(0, 5, size=(k, depth)).astype(float)
    sum_probas = rng.dirichlet(np.ones(m), size=(k, depth)) * counts[:, :, None]
    n_internal = 1 + m
    got = node_objectives(sum_probas, counts, path_nodes, n_internal)
    for node in range(n_internal):
        d = 0 if node == 0 else 1
        rows = [i for i in range(k) if path_nodes[i, d] == node and counts[i, d] > 0]
        if not rows:
            assert np.isnan(got[node])
            continue
        c = counts[rows, d]
        expected = node_objective(c / c.sum(), sum_probas[rows, d] / c[:, None])
        assert got[node] == pytest.approx(expected, abs=1e-12)
