"""The primary split search of a surrogate growth against a plain-Python brute force.

With surrogate splits (a growth whose rows miss some values), a candidate
split is scored as rpart's ``bsplit`` scores it: on the node's rows where
its feature is present, by the impurity decrease of those rows alone (not
scaled by their share), each side holding at least ``min_samples_leaf`` of
them; the best decrease wins, ties to the lowest feature, then the lowest
threshold. The reference enumerates every candidate (every midpoint of
consecutive distinct present values, every subset of the present levels)
and scores it in exact rational arithmetic; with integer weights the grown
tree's split at every node (on the rows the tree routes there) must be the
reference's best: the same feature, the same threshold, or a subset of
levels with the best decrease.
"""

import itertools
import math
import os
import sys
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

sys.path.insert(0, os.path.dirname(__file__))
import _surrogate_reference as ref

from prunus.tree import _surrogate
from prunus.tree.cart import CARTGrower, GrowthParams

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _impurity(rows, y, w, criterion):
    """Weighted impurity W i(t) of ``rows``, exactly (Fractions)."""
    if criterion == "squared_error":
        wt = sum(Fraction(int(w[r])) for r in rows)
        mean = sum(Fraction(int(w[r])) * Fraction(int(y[r])) for r in rows) / wt
        return sum(Fraction(int(w[r])) * (Fraction(int(y[r])) - mean) ** 2 for r in rows)
    counts = {}
    for r in rows:
        counts[y[r]] = counts.get(y[r], 0) + int(w[r])
    total = sum(counts.values())
    if criterion == "gini":
        return Fraction(total) - Fraction(sum(c * c for c in counts.values()), total)
    return Fraction(total - max(counts.values()))  # misclassification


def _mid(a, b):
    t = a / 2.0 + b / 2.0
    return a if (t >= b or t < a) else t


def _candidates(X, n_cat, rows, f):
    """(threshold or None, rows sent left, rows present) of every candidate on feature f."""
    present = [r for r in rows if not math.isnan(X[r, f])]
    if n_cat[f]:
        levels = sorted({int(X[r, f]) for r in present})
        for k in range(len(levels) - 1):
            for others in itertools.combinations(levels[1:], k):
                left = {levels[0], *others}
                yield None, [r for r in present if int(X[r, f]) in left], present
    else:
        values = sorted({X[r, f] for r in present})
        for a, b in itertools.pairwise(values):
            t = _mid(a, b)
            yield t, [r for r in present if X[r, f] <= t], present


def best_present_split(X, y, w, n_cat, rows, criterion, min_samples_leaf):
    """(decrease, feature, threshold) of the best candidate, or None; the
    first of equal decreases in (feature, threshold) order."""
    best = None
    for f in range(X.shape[1]):
        for t, left, present in _candidates(X, n_cat, rows, f):
            if len(left) < min_samples_leaf or len(present) - len(left) < min_samples_leaf:
                continue
            right = [r for r in present if r not in set(left)]
            decrease = _impurity(present, y, w, criterion) - _impurity(left, y, w, criterion)
            decrease -= _impurity(right, y, w, criterion)
            if best is None or decrease > best[0]:
                best = (decrease, f, t)
    return best


def subset_decrease(X, y, w, rows, f, left_levels, criterion):
    present = [r for r in rows if not math.isnan(X[r, f])]
    left = [r for r in present if int(X[r, f]) in left_levels]
    right = [r for r in present if int(X[r, f]) not in left_levels]
    return _impurity(present, y, w, criterion) - _impurity(left, y, w, criterion) - _impurity(right, y, w, criterion)


@st.composite
def tables(draw):
    """2-4 features (numeric with ties or categorical with 2-4 levels), NaN
    (30% of cells at most), integer weights with zeros, a target of 2-3
    classes or integer values."""
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    n = draw(st.integers(6, 30))
    d = draw(st.integers(2, 4))
    n_cat = np.array([draw(st.sampled_from([0, 0, 2, 4])) for _ in range(d)], dtype=np.int64)
    cols = [
        rng.integers(0, L, n).astype(float) if L else rng.integers(0, draw(st.sampled_from([3, 8])), n) / 2.0
        for L in n_cat
    ]
    X = np.column_stack(cols)
    X[rng.random(X.shape) < draw(st.sampled_from([0.1, 0.3]))] = np.nan
    w = rng.integers(0, 4, n).astype(float) if draw(st.booleans()) else np.ones(n)
    w[0] = max(w[0], 1.0)
    X[0, 0] = np.nan  # a row of the growth misses a value: surrogates are grown
    return X, n_cat, w, rng


def _grow_counts(X, y, w, n_cat, criterion, min_samples_leaf, max_depth):
    grower = CARTGrower(X, y, regression=criterion == "squared_error", n_categories=n_cat)
    params = GrowthParams(criterion, max_depth, 2, min_samples_leaf, 0.0, None, None, "best", 3)
    return grower.grow(params, w)


def _grow(X, y, w, n_cat, criterion, min_samples_leaf, max_depth):
    return _grow_counts(X, y, w, n_cat, criterion, min_samples_leaf, max_depth)[0]


def _is_stopped(y, w, rows, criterion, n_rows_min, depth, max_depth):
    """The builder's stopping rules that need no search."""
    if len(rows) < n_rows_min or (max_depth is not None and depth >= max_depth):
        return True
    return _impurity(rows, y, w, criterion) == 0


@SETTINGS
@given(
    tables(),
    st.sampled_from(["gini", "misclassification", "squared_error"]),
    st.integers(2, 3),
    st.sampled_from([1, 2, 3]),
    st.sampled_from([None, 3]),
)
def test_every_split_is_the_best_on_present_rows(table, criterion, n_classes, min_samples_leaf, max_depth):
    X, n_cat, w, rng = table
    y = rng.integers(0, 6 if criterion == "squared_error" else n_classes, X.shape[0])
    if criterion == "squared_error":
        y = y.astype(float)
    tree = _grow(X, y, w, n_cat, criterion, min_samples_leaf, max_depth)
    members = ref.node_rows(tree, X, np.flatnonzero(w > 0).tolist())
    depth = np.zeros(tree.n_nodes, dtype=int)
    for node in range(tree.n_nodes):
        rows = members[node]
        if tree.is_leaf[node]:
            children = ()
        else:
            children = (tree.children_left[node], tree.children_right[node])
        for c in children:
            depth[c] = depth[node] + 1
        want = best_present_split(X, y, w, n_cat, rows, criterion, min_samples_leaf)
        if tree.is_leaf[node]:
            stopped = _is_stopped(y, w, rows, criterion, 2 * min_samples_leaf, depth[node], max_depth)
            assert stopped or want is None, f"leaf {node}: the reference splits it by {want}"
            continue
        assert want is not None, f"node {node}: no valid split in the reference"
        decrease, f, t = want
        assert tree.feature[node] == f, f"node {node}: feature {tree.feature[node]}, reference {want}"
        if t is None:
            present = {int(X[r, f]) for r in rows if not math.isnan(X[r, f])}
            left = set(tree.left_categories(node).tolist()) & present
            assert subset_decrease(X, y, w, rows, f, left, criterion) == decrease, f"node {node}"
        else:
            assert tree.threshold[node] == t, f"node {node}: threshold {tree.threshold[node]}, reference {t}"


def _informative_missing(n=600, seed=0):
    """y = [x0 > 0]; x0 is missing on half the rows of class 1; x2 is a noisy copy of x0."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    X[:, 2] = X[:, 0] + 0.8 * rng.normal(size=n)
    y = (X[:, 0] > 0).astype(int)
    X[(rng.random(n) < 0.5) & (y == 1), 0] = np.nan
    return X, y


@pytest.mark.parametrize("by_fit", [False, True])
def test_choice_by_fit_between_surrogates_and_learned_side(monkeypatch, by_fit):
    """Every row missing x0 is of class 1: the learned side (right, with the
    class-1 rows) fits them perfectly, the surrogate x2 does not. Choosing
    by fit drops the root's surrogates and sends those rows right; rpart's
    rule keeps the surrogate and the majority side (left)."""
    X, y = _informative_missing()
    monkeypatch.setattr(_surrogate, "CHOOSE_BY_FIT", by_fit)
    tree, counts = _grow_counts(X, y, np.ones(X.shape[0]), np.zeros(3, dtype=np.int64), "gini", 1, 1)
    assert tree.feature[0] == 0
    missing = np.isnan(X[:, 0])
    leaves = tree.apply(X[missing])
    if by_fit:
        assert tree.node_surrogates(0).feature.tolist() == []
        assert not tree.missing_go_to_left[0]
        assert (leaves == tree.children_right[0]).all()
    else:
        assert tree.node_surrogates(0).feature.tolist() == [2]
        assert tree.missing_go_to_left[0]
        assert 0 < (leaves == tree.children_right[0]).sum() < missing.sum()
    np.testing.assert_array_equal(tree.node_counts(X, y, np.ones(X.shape[0]), n_classes=2), counts)
