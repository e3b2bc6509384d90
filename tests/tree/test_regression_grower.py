"""The one-kernel least-squares growth grows the tree of the general
depth-first kernel, bit for bit (missing values, learned sides and surrogate
splits included), wherever :class:`CARTGrower` sends a growth to it;
elsewhere (categorical features, feature draws, random thresholds, a bound
on the leaves) the general kernel grows.

Both kernels run the same floating-point operations in the same order on
the same machine, so exact equality is what the code promises.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from prunus.tree import _regression_grower
from prunus.tree._grower import grow_depth_first
from prunus.tree._splitter import GrowthData, Workspace
from prunus.tree._surrogate import flat_surrogates
from prunus.tree.cart import CARTGrower, GrowthParams, _settings, _workspace_arrays


def _both_kernels(X, y, w, params, block=None):
    """The general kernel's tree (one-pass scans) and the lean kernel's (two-pass
    scans in blocks of ``block`` rows; default: the whole sample)."""
    grower = CARTGrower(X, y, regression=True)
    d = X.shape[1]
    m = int(np.count_nonzero(w > 0.0))
    settings_ = _settings(params, m, d, grower.n_classes, 0)
    unit = bool(np.all((w == 0.0) | (w == 1.0)))
    data = GrowthData(grower._columns, grower._codes, w, unit, grower._target, grower.n_categories)
    # As CARTGrower.grow_arrays: with surrogates, features are scored on their present rows.
    settings_ = settings_._replace(present_only=grower.finds_surrogates(params, w))
    grown = []
    for kernel in (grow_depth_first, _regression_grower.grow_squared_error):
        arrays = _workspace_arrays(grower.order, w, grower.n_classes, 0, np.zeros(0, dtype=np.bool_))
        lean = kernel is not grow_depth_first
        scan = np.empty((4, (m if block is None else block) + 1)) if lean else np.empty((0, 0))
        work = Workspace(*arrays, scan)
        store = grower._surrogate_store(params, w, m, 0)
        nodes = kernel(data, work, settings_, store)
        found = None
        if store.n_found.shape[0] > 0:
            found = flat_surrogates(store, nodes[0].shape[0], nodes[0] == -1)
        grown.append((*nodes, found))
    return grown


def _assert_same(general, lean):
    names = ("children_left", "children_right", "feature", "threshold", "missing_go_to_left", "moments", "bits")
    for name, a, b in zip(names, general, lean):
        assert a.shape == b.shape, name
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert (general[-1] is None) == (lean[-1] is None)
    if general[-1] is not None:
        for name, a, b in zip(general[-1]._fields, general[-1], lean[-1]):
            np.testing.assert_array_equal(a, b, err_msg=f"surrogates.{name}")


@settings(max_examples=80, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(1, 150),
    d=st.integers(1, 4),
    tied=st.booleans(),
    weights=st.sampled_from(["unit", "integer", "zeros", "dyadic"]),
    min_leaf=st.integers(1, 4),
    min_split=st.integers(2, 6),
    max_depth=st.sampled_from([None, 1, 3]),
    min_decrease=st.sampled_from([0.0, 0.01, 0.5]),
    shift=st.sampled_from([0.0, 1e9]),
    nan_rate=st.sampled_from([0.0, 0.0, 0.1, 0.4]),
    surrogates=st.sampled_from([0, 1, 5]),
    block=st.sampled_from([None, 1, 2, 3, 7, 64]),
)
def test_lean_kernel_grows_the_general_tree(
    seed, n, d, tied, weights, min_leaf, min_split, max_depth, min_decrease, shift, nan_rate, surrogates, block
):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, d)).astype(float) if tied else rng.random((n, d))
    y = X[:, 0] * 2.0 - X[:, -1] + rng.normal(0, 1.0, n)
    if tied:
        y = np.round(y)
    y = y + shift
    if weights == "unit":
        w = np.ones(n)
    elif weights == "integer":
        w = rng.integers(1, 4, n).astype(float)
    elif weights == "zeros":
        w = rng.integers(0, 3, n).astype(float)
    else:
        w = rng.integers(1, 8, n) / 4.0
    w[0] = max(w[0], 1.0)
    X[rng.random((n, d)) < nan_rate] = np.nan
    params = GrowthParams(
        "squared_error", max_depth, min_split, min_leaf, min_decrease, None, None, max_surrogates=surrogates
    )
    _assert_same(*_both_kernels(X, y, w, params, block))


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(2, 120),
    d=st.integers(1, 4),
    tied=st.booleans(),
    weights=st.sampled_from(["unit", "integer", "zeros", "dyadic"]),
    min_leaf=st.integers(1, 4),
    max_depth=st.sampled_from([None, 2, 4]),
    min_decrease=st.sampled_from([0.0, 0.0, 0.05]),
    nan_rate=st.sampled_from([0.05, 0.2, 0.4, 0.7]),
    surrogates=st.sampled_from([1, 2, 5]),
)
def test_lean_kernel_grows_the_general_tree_scored_on_present_rows(
    seed, n, d, tied, weights, min_leaf, max_depth, min_decrease, nan_rate, surrogates
):
    # Every growth here finds surrogates, so every feature with a missing
    # value at a node is scored on its present rows and the split's missing
    # side is the one its missing rows score better on (rpart).
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 4, size=(n, d)).astype(float) if tied else rng.random((n, d))
    y = X[:, 0] - 2.0 * X[:, -1] + rng.normal(0, 1.0, n)
    if tied:
        y = np.round(y)
    X[rng.random((n, d)) < nan_rate] = np.nan
    X[0, 0] = np.nan  # a row with a missing value, of positive weight below
    if weights == "unit":
        w = np.ones(n)
    elif weights == "integer":
        w = rng.integers(1, 4, n).astype(float)
    elif weights == "zeros":
        w = rng.integers(0, 3, n).astype(float)
    else:
        w = rng.integers(1, 8, n) / 4.0
    w[0] = max(w[0], 1.0)
    w[-1] = max(w[-1], 1.0)
    params = GrowthParams("squared_error", max_depth, 2, min_leaf, min_decrease, None, None, max_surrogates=surrogates)
    general, lean = _both_kernels(X, y, w, params)
    assert general[-1] is not None  # surrogates were searched
    _assert_same(general, lean)


def test_lean_kernel_keeps_the_first_of_mirrored_splits():
    # x = 0..3, y = 0 1 1 0: the thresholds 0.5 and 2.5 have equal gains; the first is kept.
    X = np.repeat(np.arange(4.0), 3)[:, None]
    y = np.repeat([0.0, 1.0, 1.0, 0.0], 3)
    general, lean = _both_kernels(X, y, np.ones(12), GrowthParams("squared_error", None, 2, 1, 0.0, None, None))
    assert lean[3][0] == 0.5
    _assert_same(general, lean)


def test_lean_kernel_sends_missing_values_to_the_larger_child():
    # No value is missing in training: a split's missing side is its larger child's.
    X = np.arange(10.0)[:, None]
    y = np.array([0.0, 0, 0, 0, 0, 0, 0, 5, 5, 5])
    general, lean = _both_kernels(X, y, np.ones(10), GrowthParams("squared_error", 1, 2, 1, 0.0, None, None))
    assert lean[2][0] == 0 and lean[3][0] == 6.5 and lean[4][0]
    _assert_same(general, lean)


def test_lean_kernel_sends_missing_values_right_on_a_tie_of_their_sides():
    # Scored on its present rows, x <= 0.5 splits y = 0 0 | 2 2; the two rows
    # missing x (y = 1, the node's mean) fit exactly as well on either side
    # and no surrogate nor majority sends them: ties go right.
    X = np.array([[0.0], [0.0], [1.0], [1.0], [np.nan], [np.nan]])
    y = np.array([0.0, 0.0, 2.0, 2.0, 1.0, 1.0])
    params = GrowthParams("squared_error", None, 2, 1, 0.0, None, None, max_surrogates=5)
    general, lean = _both_kernels(X, y, np.ones(6), params)
    assert lean[2][0] == 0 and lean[3][0] == 0.5 and not lean[4][0]
    np.testing.assert_array_equal(lean[5][1:, 0], [2.0, 4.0])  # weights of the children
    _assert_same(general, lean)


def _spy(monkeypatch):
    calls = []
    for name in ("grow_squared_error", "grow_squared_error_into"):
        lean = getattr(_regression_grower, name)

        def spy(*args, lean=lean):
            calls.append(1)
            return lean(*args)

        monkeypatch.setattr(f"prunus.tree.cart.{name}", spy)
    return calls


@pytest.mark.parametrize(
    "case, lean",
    [
        ("plain", True),
        ("weights", True),
        ("nan", True),
        ("surrogates", True),
        ("categorical", False),
        ("max_features", False),
        ("random", False),
        ("max_leaf_nodes", False),
    ],
)
def test_growths_sent_to_the_lean_kernel(monkeypatch, case, lean):
    rng = np.random.default_rng(0)
    X = rng.random((60, 3))
    y = X[:, 0] + rng.normal(0, 0.1, 60)
    w = np.ones(60)
    n_categories = None
    kwargs = {}
    if case == "weights":
        w = rng.integers(0, 3, 60).astype(float)
        w[0] = 1.0
    elif case in ("nan", "surrogates"):
        X[5, 1] = np.nan
    elif case == "categorical":
        X[:, 2] = rng.integers(0, 4, 60)
        n_categories = [0, 0, 4]
    elif case == "max_features":
        kwargs["max_features"] = 2
    elif case == "random":
        kwargs["splitter"] = "random"
    elif case == "max_leaf_nodes":
        kwargs["max_leaf_nodes"] = 5
    params = GrowthParams(
        "squared_error",
        None,
        2,
        1,
        0.0,
        kwargs.get("max_features"),
        kwargs.get("max_leaf_nodes"),
        kwargs.get("splitter", "best"),
        max_surrogates=5 if case == "surrogates" else 0,
    )
    calls = _spy(monkeypatch)
    CARTGrower(X, y, regression=True, n_categories=n_categories).grow_arrays(params, w, seed=1)
    assert bool(calls) == lean
