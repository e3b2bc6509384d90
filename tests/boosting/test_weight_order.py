"""LB_wo: the counts found from the search's work space against a rebuild of every prefix."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.boosting import fit_binning
from prunus.boosting._records import new_workspace, search_settings
from prunus.boosting._split import prefix_lower_bound, split_node
from prunus.boosting._weight_order import MARGIN_SCALE, _counts_by_moves, weight_order_counts

SEARCHES = {
    "exhaustive": dict(split_search="exhaustive"),
    "quick": dict(split_search="quick", quick_init=0.5, quick_batches=4),
    "gap": dict(split_search="adaptive", adaptive_rule="gap", min_batch=1),
    "lower_first": dict(split_search="adaptive", adaptive_rule="lower_first"),
    "lower_first_small": dict(split_search="adaptive", adaptive_rule="lower_first", adaptive_init=0.05, min_batch=1),
    # small nodes searched exhaustively: the probes start from complete rows
    "lower_first_small_nodes_exhaustive": dict(
        split_search="adaptive", adaptive_rule="lower_first", adaptive_extrapolate=True, exhaustive_below=0.5
    ),
}


def searched_node(seed, n, k, n_classes, n_values, search, every_t=False):
    """A random node after ``search``: its record, work space, winner and exact value.

    ``every_t``: every interval update also finds its best threshold (as in a fit with ``track_bounds``).
    """
    rng = np.random.RandomState(seed)
    X = rng.randint(0, n_values, size=(n, k)).astype(float)
    if k > 2:
        X[:, 2] = X[:, 1]  # a duplicated feature: exact ties with the winner are common
    y = rng.randint(0, n_classes, size=n)
    y[:n_classes] = np.arange(n_classes)
    y = np.where(rng.rand(n) < 0.6, (X[:, 0] * n_classes // n_values).astype(int), y)
    w = rng.exponential(size=n) ** 3 if seed % 2 else np.ones(n)
    w /= w.sum()
    b = fit_binning(X)
    feats = np.flatnonzero(b.n_bins >= 2).astype(np.int64)
    if len(feats) == 0:
        return None
    nbins = b.n_bins[feats]
    cfg = search_settings(n_classes=n_classes, **SEARCHES[search])
    ws = new_workspace(len(feats), int(nbins.max()), n_classes)
    ws.every_t[0] = every_t
    order = np.argsort(-w, kind="stable").astype(np.int64)
    slot, _, value, _, node = split_node(b.transform(X), order, y, w, feats, nbins, cfg, ws)
    return node, ws, slot, value


def rebuilt_counts(node, slot, value):
    """``min{m : L_m >= E* - tie}`` per feature by rebuilding every prefix ``m`` (``n`` for the winner)."""
    n = node.idx.shape[0]
    S = node.feats.shape[0]
    ws = new_workspace(S, int(node.nbins.max()), node.node_tot.shape[0])
    out = np.zeros(S, dtype=np.int64)
    for s in range(S):
        if s == slot:
            out[s] = n
            continue
        out[s] = next((m for m in range(n) if prefix_lower_bound(node, ws, s, m) >= value - node.tie), n)
    return out


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(4, 150),
    k=st.integers(1, 6),
    n_classes=st.integers(2, 4),
    n_values=st.integers(2, 8),
    search=st.sampled_from(sorted(SEARCHES)),
)
def test_counts_equal_a_rebuild_of_every_prefix(seed, n, k, n_classes, n_values, search):
    got = searched_node(seed, n, k, n_classes, n_values, search)
    if got is None:
        return
    node, ws, slot, value = got
    expected = rebuilt_counts(node, slot, value)
    np.testing.assert_array_equal(weight_order_counts(node, slot, value, ws), expected)


@pytest.mark.parametrize("margin_scale", [0.0, MARGIN_SCALE, 1e13])
@pytest.mark.parametrize("search", sorted(SEARCHES))
def test_counts_do_not_depend_on_the_rounding_allowance(search, margin_scale):
    # 1e13 leaves every probe on a row with a removal too close to call: each is decided on a rebuilt
    # prefix. 0 trusts the moved rows' rounded sums as they are. Both find what a rebuild finds.
    for seed in range(12):
        got = searched_node(seed, 120, 5, 2 + seed % 3, 6, search)
        if got is None:
            continue
        node, ws, slot, value = got
        expected = rebuilt_counts(node, slot, value)
        np.testing.assert_array_equal(_counts_by_moves(node, slot, value, ws, margin_scale), expected)


@pytest.mark.parametrize("every_t", [False, True])
@pytest.mark.parametrize("search", ["lower_first", "quick", "exhaustive"])
def test_counts_with_many_classes_and_levels(search, every_t):
    # Ten classes and up to 40 levels: many thresholds, whose best one changes as the prefix grows, so the
    # probes that follow one threshold's error hand over to others before the answer is confirmed; with
    # ``every_t`` they start from the best threshold of the search's last update.
    for seed in range(8):
        got = searched_node(seed, 300, 6, 10, 40, search, every_t)
        if got is None:
            continue
        node, ws, slot, value = got
        expected = rebuilt_counts(node, slot, value)
        np.testing.assert_array_equal(weight_order_counts(node, slot, value, ws), expected)
