"""Default and SN penalized pruning: the bottom-up DP against brute force."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.pruning.penalized import effective_labels, penalized_prune
from prunus.tree import Tree
from prunus.tree._testing import enumerate_subtrees, random_counts, random_tree


def _criterion(tree, counts, leaves, lam, penalty):
    """n times C1 or C2 of section 5, from the definitions."""
    n = counts[0].sum()
    n_node = counts.sum(1)
    risk = sum(n_node[a] - counts[a].max() for a in leaves) / n
    if penalty == "leaves":
        pen = sum(1 for a in leaves if n_node[a] > 0) / n
    else:
        pen = sum(math.sqrt(max(n_node[a] / n, tree.depth[a] / n) * tree.depth[a] / n) for a in leaves)
    return n * (risk + lam * pen)


@settings(max_examples=50, deadline=None)
@given(
    seed=st.integers(0, 2**31),
    n_splits=st.integers(0, 8),
    penalty=st.sampled_from(["leaves", "sn"]),
    lam=st.sampled_from([0.0, 2.0**-8, 0.5, 1.0, 2.5, 64.0]),
)
def test_dp_matches_brute_force(seed, n_splits, penalty, lam):
    rng = np.random.default_rng(seed)
    tree = random_tree(rng, n_splits)
    counts = random_counts(rng, tree, 3, scale=8)
    if counts[0].sum() == 0:
        return
    res = penalized_prune(tree, counts, lam, penalty)
    costs = {frozenset(s): _criterion(tree, counts, s, lam, penalty) for s in enumerate_subtrees(tree)}
    best = min(costs.values())
    assert res["cost"] == pytest.approx(best, rel=1e-9, abs=1e-12)
    chosen = frozenset(np.flatnonzero(res["leaves"]).tolist())
    assert costs[chosen] == pytest.approx(best, rel=1e-9, abs=1e-12)
    # ties prune: no optimal subtree is strictly smaller than the chosen one
    # along the chosen subtree's own branches
    smaller = [
        s
        for s, c in costs.items()
        if len(s) < len(chosen)
        and c <= best + 1e-9 * max(1, abs(best))
        and s <= set(np.flatnonzero(tree.keep_mask(res["collapse"])))
    ]
    assert not smaller
    # the pruned Tree's leaves are the chosen nodes
    assert sorted(res["index"][res["subtree"].is_leaf]) == sorted(chosen)
    # effective labels: each T0 leaf gets the label of its chosen ancestor
    eff = effective_labels(res["collapse"], tree.parent, res["node_label"])
    for leaf in np.flatnonzero(tree.is_leaf):
        node = leaf
        while node not in chosen:
            node = tree.parent[node]
        assert eff[leaf] == res["node_label"][node]


def test_lambda_extremes():
    rng = np.random.default_rng(0)
    tree = random_tree(rng, 6)
    counts = random_counts(rng, tree, 2, scale=8)
    counts[0] = counts[tree.children_left[0]] + counts[tree.children_right[0]]
    huge = penalized_prune(tree, counts, 1e9, "leaves")
    assert huge["subtree"].n_nodes == 1
    zero = penalized_prune(tree, counts, 0.0, "leaves")
    n_node = counts.sum(1)
    assert zero["cost"] == pytest.approx(sum(n_node[a] - counts[a].max() for a in np.flatnonzero(tree.is_leaf)))


def test_bad_input():
    tree = Tree([-1], [-1], [-2], [-2.0], 1)
    with pytest.raises(ValueError, match="lam"):
        penalized_prune(tree, np.ones((1, 2)), -1.0)
    with pytest.raises(ValueError, match="lam"):
        penalized_prune(tree, np.ones((1, 2)), np.nan)
    with pytest.raises(ValueError, match="penalty"):
        penalized_prune(tree, np.ones((1, 2)), 1.0, "l1")
    with pytest.raises(ValueError, match="counts"):
        penalized_prune(tree, np.ones((2, 2)), 1.0)
