"""The bound that lets a node skip the search over the subsets of a
categorical feature's levels (the exhaustive search of more than two
classes, the ordered scan of two).

Skipping is exact only if the skipped search would have offered nothing: at
every offered ``best``, the search with the bound returns what the search
without it returns (the same best candidate and the same recorded subset),
and the bound is never below the proxy of any partition (checked against a
plain-Python enumeration of every partition).
"""

import itertools

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.tree._categorical_split import _cannot_win, _scan_exhaustive, _scan_order, _search_allocated, _sorted_by
from prunus.tree._splitter import Workspace
from prunus.tree.cart import GrowthParams, _settings, _workspace_arrays

CRITERIA = ["gini", "entropy", "misclassification"]


def _problem(seed, n_levels, n_classes, with_missing, criterion, min_leaf):
    rng = np.random.default_rng(seed)
    stats = rng.integers(0, 6, (n_levels, n_classes)).astype(float)
    stats[rng.random(n_levels) < 0.2] = 0.0  # some levels absent from the node
    missing = rng.integers(0, 4, n_classes).astype(float) if with_missing else np.zeros(n_classes)
    counts = stats.sum(axis=1).astype(np.int64)  # unit weights: rows = weight
    total = stats.sum(axis=0) + missing
    n_rows = int(total.sum())
    arrays = _workspace_arrays(np.zeros((1, 1), dtype=np.int32), np.ones(1), n_classes, 1, np.zeros(0, dtype=bool))
    work = Workspace._make((*arrays, np.empty((0, 0))))
    work.total[:] = total
    work.missing[:] = missing
    params = GrowthParams(criterion, None, 2, min_leaf, 0.0, None, None)
    return stats, counts, work, _settings(params, max(n_rows, 1), 1, n_classes, 0), n_rows, int(missing.sum())


def _proxies(stats, missing, total, criterion):
    """Every partition's proxy (the left side holding the lowest present level), plain Python."""

    def term(c):
        w = c.sum()
        if criterion == "gini":
            return (c**2).sum() / w
        if criterion == "entropy":
            return sum(x * np.log(x) for x in c if x > 0) - w * np.log(w)
        return c.max()

    present = [j for j in range(stats.shape[0]) if stats[j].sum() > 0]
    out: list[float] = []
    if not present:
        return out
    for r in range(len(present) + 1):
        for rest in itertools.combinations(present[1:], r):
            left = stats[[present[0], *rest]].sum(axis=0)
            for side in (left, left + missing):
                right = total - side
                if side.sum() > 0 and right.sum() > 0:
                    out.append(term(side) + term(right))
    return out


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n_levels=st.integers(2, 7),
    n_classes=st.integers(2, 4),
    with_missing=st.booleans(),
    criterion=st.sampled_from(CRITERIA),
    min_leaf=st.integers(1, 3),
    shift=st.sampled_from([-1.0, -1e-13, 0.0, 1e-13, 1e-6, 1.0]),
    lower_feature=st.booleans(),
)
def test_search_with_the_bound_equals_the_search_without(
    seed, n_levels, n_classes, with_missing, criterion, min_leaf, shift, lower_feature
):
    stats, counts, work, settings_, n_rows, n_missing = _problem(
        seed, n_levels, n_classes, with_missing, criterion, min_leaf
    )
    present = np.flatnonzero(counts > 0)
    if present.shape[0] == 0 or (present.shape[0] == 1 and n_missing == 0) or n_rows < 2:
        return
    proxies = _proxies(stats, work.missing, work.total, criterion)
    if not proxies:
        return
    tol = 1e-12 * n_rows
    # Offer a best just around the best partition: where skipping is at stake.
    offered = (max(proxies) + shift * max(1.0, abs(max(proxies))), 2 if lower_feature else 0, 0.5, False)
    results = []
    # Unit weights: the search may also take its integer-weight (branch and bound) path.
    for search in ("bounded, real weights", "bounded, integer weights", "plain"):
        work.best_bits[:] = 12345
        sizes = (n_rows, n_missing)
        if search.startswith("bounded"):
            exact = search.endswith("integer weights")
            best, searched = _search_allocated(work, settings_, 1, stats, counts, sizes, offered, tol, exact)
        elif n_classes > 2 or min_leaf > 1:
            best = _scan_exhaustive(work, settings_, 1, stats, counts, present, sizes, offered, tol)
        else:  # two classes: the levels ordered by their share of class 1
            share = stats[present, 1] / stats[present].sum(axis=1)
            best = _scan_order(work, settings_, 1, stats, counts, _sorted_by(present, share), sizes, offered, tol)
        results.append((best, work.best_bits.copy()))
    for result in results[:2]:
        np.testing.assert_equal(result, results[2])  # (proxy, feature, threshold NaN, side), bits


@settings(max_examples=150, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n_levels=st.integers(2, 7),
    n_classes=st.integers(3, 4),
    with_missing=st.booleans(),
    criterion=st.sampled_from(CRITERIA),
)
def test_no_partition_beats_the_bound(seed, n_levels, n_classes, with_missing, criterion):
    stats, counts, work, settings_, n_rows, _ = _problem(seed, n_levels, n_classes, with_missing, criterion, 1)
    present = np.flatnonzero(counts > 0)
    proxies = _proxies(stats, work.missing, work.total, criterion)
    if not proxies:
        return
    top = max(proxies)
    # Offered exactly the best partition's proxy (from another feature, which
    # loses ties): the bound must not call the search useless unless it is.
    assert not _cannot_win(work, settings_, 1, stats, present, (top - 1e-12 * n_rows - 1e-9, 0, 0.5, False), 0.0)
    assert _cannot_win(work, settings_, 1, stats, present, (top + 1e6, 0, 0.5, False), 0.0) or top + 1e6 <= top
