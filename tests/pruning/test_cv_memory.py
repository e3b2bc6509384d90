"""The memory savings of a cross-validated fit change none of its numbers:
T_max freed during the folds and grown again after them, the folds' indices
made as they run, X read in place by the builder, the compiled regression
fold on complete data whatever ``max_surrogates`` asks, a growth's arrays on
memory maps of their own, the folds' growths spaced in time.

Each comparison runs the same floating-point operations in the same order,
so the results must be identical (no tolerance).
"""

import mmap
import threading

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.datasets import make_classification, make_friedman1

from prunus import CARTClassifier, CARTRegressor
from prunus.pruning import selection as sel
from prunus.tree.cart import CARTGrower, GrowthParams
from prunus.utils import _memory


def _same_fit(a, b):
    assert a.selected_index_ == b.selected_index_
    for name in ("children_left", "children_right", "feature", "threshold", "missing_go_to_left"):
        np.testing.assert_array_equal(getattr(a.tree_, name), getattr(b.tree_, name))
    np.testing.assert_array_equal(a.path_.alphas, b.path_.alphas)
    np.testing.assert_array_equal(a.path_.n_leaves, b.path_.n_leaves)
    np.testing.assert_array_equal(a.path_.risks, b.path_.risks)
    np.testing.assert_array_equal(a.pruning_indices_, b.pruning_indices_)
    for key in ("alpha", "n_leaves", "mean_risk", "std_risk", "se_risk"):
        np.testing.assert_array_equal(a.cv_results_[key], b.cv_results_[key])


def _regrown(est):
    """``est`` set to free T_max during its folds whatever the size of X."""
    est._REGROW_FROM_BYTES = 0
    return est


@pytest.mark.parametrize("method", ["M1", "M2"])
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_regrown_tmax_equals_kept_regression(method, n_jobs):
    X, y = make_friedman1(300, noise=1.0, random_state=0)
    X[::13, 2] = np.nan
    w = np.random.default_rng(0).integers(0, 3, 300).astype(float)
    params = dict(selection="cv", method=method, cv=5, random_state=3, n_jobs=n_jobs)
    kept = CARTRegressor(**params).fit(X, y, sample_weight=w)
    regrown = _regrown(CARTRegressor(**params)).fit(X, y, sample_weight=w)
    _same_fit(kept, regrown)
    np.testing.assert_array_equal(kept.predict(X), regrown.predict(X))


@pytest.mark.parametrize("method", ["M1", "M2"])
def test_regrown_tmax_equals_kept_classification(method):
    X, y = make_classification(300, 6, n_classes=3, n_informative=4, random_state=0)
    loss = [[0, 1, 2], [1, 0, 1], [3, 1, 0]]
    params = dict(selection="cv-1se", method=method, cv=4, random_state=1, loss_matrix=loss)
    kept = CARTClassifier(**params).fit(X, y)
    regrown = _regrown(CARTClassifier(**params)).fit(X, y)
    _same_fit(kept, regrown)


def test_lazy_folds_equal_listed_folds():
    X, y = make_friedman1(200, noise=1.0, random_state=0)
    grower = CARTGrower(X, y, regression=True)
    params = GrowthParams("squared_error", None, 2, 1, 0.0, None, None, max_surrogates=5)
    w = np.ones(200)
    est = CARTRegressor(cv=5)
    listed = est._folds(X, y, grower.n_classes, np.random.RandomState(0))
    lazy, n_folds = est._folds(X, y, grower.n_classes, np.random.RandomState(0), lazy=True)
    assert n_folds == 5 and not isinstance(lazy, list)
    betas = np.array([0.0, 0.01, 0.1, 1.0, 10.0])
    a = sel.cv_risks(grower, w, listed, "M2", params, 7, betas, np.random.RandomState(1))
    b = sel.cv_risks(grower, w, lazy, "M2", params, 7, betas, np.random.RandomState(1), n_folds=n_folds)
    for u, v in zip(a, b):
        np.testing.assert_array_equal(u, v)


def test_builder_reads_a_c_ordered_x_in_place():
    X, y = make_friedman1(120, noise=1.0, random_state=0)
    grower = CARTGrower(X, y, regression=True)
    assert np.shares_memory(grower._columns, X)
    fortran = CARTGrower(np.asfortranarray(X), y, regression=True)
    params = GrowthParams("squared_error", None, 2, 1, 0.0, None, None)
    a, _ = grower.grow(params, np.ones(120))
    b, _ = fortran.grow(params, np.ones(120))
    np.testing.assert_array_equal(a.feature, b.feature)
    np.testing.assert_array_equal(a.threshold, b.threshold)


@pytest.mark.parametrize("max_surrogates", [0, 5])
def test_complete_data_folds_take_the_compiled_path(monkeypatch, max_surrogates):
    X, y = make_friedman1(150, noise=1.0, random_state=1)
    grower = CARTGrower(X, y, regression=True)
    params = GrowthParams("squared_error", None, 2, 1, 0.0, None, None, max_surrogates=max_surrogates)
    w = np.ones(150)
    fold = (np.arange(30, 150), np.arange(30))
    betas = np.array([0.0, 0.05, 0.5, 5.0])
    path, _ = sel.build_path(grower, fold[0], w, "M2", params, 0, None, sizes=False)
    expected = path._held_out_rows(grower.X, grower.y, w, fold[1], betas)
    calls = []
    compiled = sel._regression_fold_loss
    monkeypatch.setattr(sel, "_regression_fold_loss", lambda *a: calls.append(1) or compiled(*a))
    got = sel._fold_loss(sel.FoldJob(grower, w, "M2", params, 0), fold, 0, betas)
    assert calls == [1]
    for u, v in zip(expected, got):
        np.testing.assert_array_equal(u, v)


def test_fold_threads_keep_order_and_take_few_folds_ahead():
    taken = []

    def items():
        for i in range(20):
            taken.append(i)
            yield i

    out = []
    for result in sel.ThreadedMap(lambda i: i * i, items(), 2):
        out.append(result)
        # Lazy folds: their indices are made when taken, a few ahead of the results.
        assert len(taken) <= len(out) + 4
    assert out == [i * i for i in range(20)]


def test_default_threads_fit_equals_sequential_fit_when_regrown():
    X, y = make_friedman1(1200, n_features=10, noise=1.0, random_state=2)
    sequential = CARTRegressor(selection="cv", cv=5, random_state=0, n_jobs=1).fit(X, y)
    threads = _regrown(CARTRegressor(selection="cv", cv=5, random_state=0)).fit(X, y)
    _same_fit(sequential, threads)


def _streamed(monkeypatch, stream):
    """Fold rows of losses streamed into running sums (``stream``) or kept."""
    monkeypatch.setattr(sel, "_STREAM_FROM_BYTES", 0 if stream else 2**62)


@pytest.mark.parametrize(
    "make",
    [
        lambda: (
            CARTRegressor(selection="cv", cv=10, random_state=0),
            *make_friedman1(1500, noise=1.0, random_state=0),
        ),
        lambda: (
            CARTClassifier(selection="cv-1se", cv=7, random_state=0, loss_matrix=[[0, 1], [3, 0]]),
            *make_classification(900, 6, random_state=0),
        ),
        lambda: (CARTClassifier(selection="cv", cv=5, random_state=1), *make_classification(700, 5, random_state=1)),
    ],
)
def test_streamed_cv_summary_equals_kept_rows(monkeypatch, make):
    """Large CV paths fold each fold's row of losses into running sums: the
    pooled risk, its standard error and the selection are the same numbers;
    the deviation across folds (Welford's) agrees with numpy's two-pass one
    to rounding."""
    est, X, y = make()
    _streamed(monkeypatch, False)
    kept = clone(est).fit(X, y)
    _streamed(monkeypatch, True)
    streamed = clone(est).fit(X, y)
    assert kept.selected_index_ == streamed.selected_index_
    for key in ("alpha", "n_leaves", "mean_risk", "se_risk"):
        np.testing.assert_array_equal(kept.cv_results_[key], streamed.cv_results_[key])
    std, mean = kept.cv_results_["std_risk"], kept.cv_results_["mean_risk"]
    assert np.all(std >= 0) and np.any(std > 0)
    np.testing.assert_allclose(streamed.cv_results_["std_risk"], std, rtol=1e-12, atol=1e-14 * mean.max())


def test_lean_growth_keeps_int32_nodes_and_trees_int64():
    X, y = make_friedman1(200, noise=1.0, random_state=0)
    grower = CARTGrower(X, y, regression=True)
    params = GrowthParams("squared_error", None, 2, 1, 0.0, None, None)
    left, right, feature = grower.grow_arrays(params, np.ones(200))[:3]
    assert left.dtype == right.dtype == feature.dtype == np.int32
    tree, _ = grower.grow(params, np.ones(200))
    assert tree.children_left.dtype == tree.feature.dtype == np.int64
    np.testing.assert_array_equal(tree.children_left, left)
    np.testing.assert_array_equal(tree.feature[left != -1], feature[left != -1])


def _mapped(array):
    """Whether ``array``'s memory is an anonymous map of its own (through its bases)."""
    while array is not None and not isinstance(array, mmap.mmap):
        array = getattr(array, "base", None) if isinstance(array, np.ndarray) else getattr(array, "obj", None)
    return isinstance(array, mmap.mmap)


def test_mapped_empty_maps_large_arrays_only():
    small = _memory.mapped_empty(10, np.int32)
    large = _memory.mapped_empty((4, _memory.MAPPED_FROM_BYTES // 32 + 1))
    assert not _mapped(small) and _mapped(large)
    assert large.shape == (4, _memory.MAPPED_FROM_BYTES // 32 + 1) and large.dtype == np.float64
    assert large.flags.c_contiguous and large.flags.writeable
    large[:] = 1.5
    assert large.sum() == 1.5 * large.size


@pytest.mark.parametrize("weights", [False, True])
def test_growth_on_mapped_arrays_equals_heap_growth(monkeypatch, weights):
    X, y = make_friedman1(3000, n_features=6, noise=1.0, random_state=3)
    X[::17, 2] = np.nan
    w = np.random.default_rng(0).integers(0, 3, 3000).astype(float) if weights else np.ones(3000)
    grower = CARTGrower(X, y, regression=True)
    params = GrowthParams("squared_error", None, 2, 1, 0.0, None, None)
    monkeypatch.setattr(_memory, "MAPPED_FROM_BYTES", 2**62)
    heap = grower.grow_arrays(params, w)
    monkeypatch.setattr(_memory, "MAPPED_FROM_BYTES", 0)
    mapped = grower.grow_arrays(params, w)
    # The node arrays are views of the maps the growth wrote (moments copied when shorter).
    assert _mapped(mapped[0]) and _mapped(mapped[3])
    for u, v in zip(heap[:7], mapped[:7]):
        assert u.dtype == v.dtype
        np.testing.assert_array_equal(u, v)


def test_growth_spacing_starts_a_growth_half_a_growth_after_the_other(monkeypatch):
    # Fake thread clocks, advanced by the test: only the clocks decide a start.
    clocks = {}

    def thread_clock():
        name = threading.current_thread().name
        clocks.setdefault(name, 0.0)
        return lambda: clocks[name]

    monkeypatch.setattr(sel, "_thread_clock", thread_clock)
    spacing = sel.GrowthSpacing(expected=4.0)
    assert spacing.lead() == 2.0
    events = []
    first_in, release_first = threading.Event(), threading.Event()

    def first():
        with spacing.growth():
            events.append("first starts")
            first_in.set()
            release_first.wait(10)
        events.append("first ends")

    def second():
        first_in.wait(10)
        with spacing.growth():
            events.append("second starts")

    a = threading.Thread(target=first, name="a")
    b = threading.Thread(target=second, name="b")
    a.start()
    b.start()
    first_in.wait(10)
    b.join(0.3)
    assert b.is_alive() and events == ["first starts"]  # the first growth's clock reads 0 < 2
    clocks["a"] = 2.5
    b.join(10)
    assert events == ["first starts", "second starts"]
    release_first.set()
    a.join(10)
    # The first growth, timed on its thread's clock, sets the next lead.
    assert spacing.lead() == 0.5 * 2.5


def test_spaced_threads_fit_equals_sequential_fit(monkeypatch):
    X, y = make_friedman1(1200, n_features=10, noise=1.0, random_state=2)
    sequential = CARTRegressor(selection="cv", cv=5, random_state=0, n_jobs=1).fit(X, y)
    monkeypatch.setattr(sel, "_SPACE_FROM_BYTES", 0)
    monkeypatch.setattr(sel, "usable_cpus", lambda: 2)
    growths = []
    spaced = sel.GrowthSpacing.growth

    def spy(self):
        growths.append(1)
        return spaced(self)

    monkeypatch.setattr(sel.GrowthSpacing, "growth", spy)
    threads = _regrown(CARTRegressor(selection="cv", cv=5, random_state=0)).fit(X, y)
    assert len(growths) == 5
    _same_fit(sequential, threads)
