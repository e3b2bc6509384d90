"""Every fold of a small classification's cross-validation in one compiled
call gives, bit for bit, what the folds give one Python call each: the same
kernels run on the same inputs in the same order (no tolerance).

The one-fold path (``selection._fold_loss``) is itself pinned against the
path objects (``build_path`` then ``_held_out_rows``) in test_cv_fast_paths.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.model_selection import KFold

import prunus.tree.cart as cart_module
from prunus import CARTClassifier
from prunus.pruning import _fold_batch
from prunus.pruning import selection as sel
from prunus.pruning._folds import fold_of_rows, folds_of
from prunus.tree import _surrogate
from prunus.tree.cart import CARTGrower, GrowthParams


def _table(rng, n, d, n_classes, n_levels, nan_rate):
    """Numeric features of few or many values and categorical ones, NaN at ``nan_rate``."""
    X = np.empty((n, d))
    n_cat = np.zeros(d, dtype=np.int64)
    for f in range(d):
        kind = f % 3
        if kind == 0:
            X[:, f] = rng.normal(size=n).round(1)
        elif kind == 1:
            X[:, f] = rng.integers(0, 4, n)
        else:
            n_cat[f] = n_levels
            X[:, f] = rng.integers(0, n_levels, n)
    X[rng.random((n, d)) < nan_rate] = np.nan
    signal = np.nan_to_num(X[:, 0]) + (np.nan_to_num(X[:, -1]) > 1)
    y = (signal + rng.integers(0, 2, n)).astype(np.int64) % n_classes
    return X, y, n_cat


def _one_by_one(job, folds, betas):
    return [sel._fold_loss(job, fold, 0, betas) for fold in folds]


def _assert_same(batch, reference):
    assert len(batch) == len(reference)
    for (wrong, squares, held), (ref_wrong, ref_squares, ref_held) in zip(batch, reference):
        np.testing.assert_array_equal(wrong, ref_wrong)
        np.testing.assert_array_equal(squares, ref_squares)
        assert held == ref_held


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    n=st.integers(12, 90),
    d=st.integers(1, 5),
    n_classes=st.integers(2, 3),
    n_levels=st.integers(2, 70),
    nan_rate=st.sampled_from([0.0, 0.05, 0.3]),
    max_surrogates=st.sampled_from([0, 2, 5]),
    criterion=st.sampled_from(["gini", "gini", "entropy", "misclassification"]),
    max_depth=st.sampled_from([None, 1, 3]),
    max_features=st.sampled_from([None, None, 1, "sqrt"]),
    min_samples_leaf=st.sampled_from([1, 3, 0.1]),
    min_samples_split=st.sampled_from([2, 7, 0.3]),
    weights=st.sampled_from(["unit", "integer"]),
    n_folds=st.integers(2, 6),
    stratify=st.booleans(),
    threads=st.integers(1, 4),
)
def test_batched_folds_equal_folds_one_by_one(
    seed,
    n,
    d,
    n_classes,
    n_levels,
    nan_rate,
    max_surrogates,
    criterion,
    max_depth,
    max_features,
    min_samples_leaf,
    min_samples_split,
    weights,
    n_folds,
    stratify,
    threads,
):
    rng = np.random.default_rng(seed)
    X, y, n_cat = _table(rng, n, d, n_classes, n_levels, nan_rate)
    # Integer weights, some zero (rows no growth sees).
    w = np.ones(n) if weights == "unit" else rng.integers(0, 4, n).astype(float)
    w[0] = max(w[0], 1.0)
    grower = CARTGrower(X, y, n_classes, n_categories=n_cat)
    params = GrowthParams(
        criterion,
        max_depth,
        min_samples_split,
        min_samples_leaf,
        0.0,
        max_features,
        None,
        max_surrogates=max_surrogates,
    )
    job = sel.FoldJob(grower, w, "M2", params, int(rng.integers(0, 1000)), None, True)
    assert _fold_batch.batchable(job)
    stratified = stratify and np.bincount(y, minlength=n_classes).min() >= n_folds
    folds = list(folds_of(fold_of_rows(n, n_folds, seed % 1000, y if stratified else None), n_folds))
    # Temperatures of a real path, the root's, and others between and beyond.
    betas = np.concatenate(([0.0], np.sort(rng.random(4)) * 0.5, [sel.ROOT_TEMPERATURE]))
    try:
        reference = _one_by_one(job, folds, betas)
    except ValueError:
        # A fold without weight: the batch gives way, the one-fold path raises.
        assert _fold_batch.fold_batch(job, folds, betas, threads) is None
        return
    # One compiled call, or one per run of consecutive folds in threads: the same numbers.
    _assert_same(_fold_batch.fold_batch(job, folds, betas, threads), reference)
    # Grown before the temperatures are known, as step functions read at them: the same numbers.
    early = _fold_batch.EarlyFoldBatch(_fold_batch.batch_records(job, folds), threads)
    wrong, held = early.risks(betas)
    _assert_same([(wrong[k], wrong[k], float(held[k])) for k in range(len(folds))], reference)


@pytest.mark.parametrize("majority_last", [True, False])
@pytest.mark.parametrize("choose_by_fit", [False, True])
def test_batched_folds_read_the_surrogate_switches(monkeypatch, majority_last, choose_by_fit):
    monkeypatch.setattr(_surrogate, "MAJORITY_LAST_RESORT", majority_last)
    monkeypatch.setattr(_surrogate, "CHOOSE_BY_FIT", choose_by_fit)
    rng = np.random.default_rng(5)
    X, y, n_cat = _table(rng, 80, 4, 2, 5, 0.25)
    grower = CARTGrower(X, y, 2, n_categories=n_cat)
    params = GrowthParams("gini", None, 2, 1, 0.0, None, None, max_surrogates=3)
    job = sel.FoldJob(grower, np.ones(80), "M2", params, 3, None, True)
    folds = list(folds_of(fold_of_rows(80, 5, 1), 5))
    betas = np.array([0.0, 0.01, 0.05, 2.0])
    _assert_same(_fold_batch.fold_batch(job, folds, betas), _one_by_one(job, folds, betas))


def test_folds_outside_the_batch_run_one_by_one():
    rng = np.random.default_rng(2)
    X, y, n_cat = _table(rng, 40, 3, 2, 4, 0.1)
    grower = CARTGrower(X, y, 2, n_categories=n_cat)
    params = GrowthParams("gini", None, 2, 1, 0.0, None, None, max_surrogates=5)
    w = np.ones(40)
    job = sel.FoldJob(grower, w, "M2", params, 0, None, True)
    folds = list(folds_of(fold_of_rows(40, 4, 0), 4))
    betas = np.array([0.0, 2.0])
    # Training rows out of order, or a fold without weight: left to the one-fold path.
    shuffled = [(train[::-1], test) for train, test in folds]
    assert _fold_batch.fold_batch(job, shuffled, betas) is None
    empty = w.copy()
    empty[folds[0][0]] = 0.0
    assert _fold_batch.fold_batch(job._replace(weight=empty), folds, betas) is None
    # Not a batch's job: real weights, a loss matrix, M1, best-first growth, a regression.
    assert not _fold_batch.batchable(job._replace(integer=False))
    assert not _fold_batch.batchable(job._replace(loss=np.ones((2, 2)) - np.eye(2)))
    assert not _fold_batch.batchable(job._replace(method="M1"))
    assert not _fold_batch.batchable(job._replace(params=params._replace(max_leaf_nodes=4)))
    assert not _fold_batch.batchable(job._replace(grower=CARTGrower(X, np.ones(40), regression=True)))


@pytest.mark.parametrize("missing", ["auto", "surrogate", "learned"])
@pytest.mark.parametrize("selection", ["cv", "cv-1se"])
@pytest.mark.parametrize("cv", [7, "splitter"])
def test_fit_with_batched_folds_equals_fit_without(monkeypatch, missing, selection, cv):
    rng = np.random.default_rng(8)
    X, y, n_cat = _table(rng, 70, 4, 3, 6, 0.15)
    w = rng.integers(1, 3, 70).astype(float)
    if cv == "splitter":
        cv = KFold(5, shuffle=True, random_state=3)
    kwargs = dict(selection=selection, cv=cv, random_state=2, missing=missing, n_jobs=1)
    kwargs["categorical_features"] = np.flatnonzero(n_cat)
    batched = CARTClassifier(**kwargs).fit(X, y, sample_weight=w)
    monkeypatch.setattr(sel, "batchable", lambda job: False)
    one_by_one = CARTClassifier(**kwargs).fit(X, y, sample_weight=w)
    assert batched.missing_ == one_by_one.missing_
    assert batched.selected_index_ == one_by_one.selected_index_
    assert batched.pruned_tree_ == one_by_one.pruned_tree_
    assert batched.cv_results_.keys() == one_by_one.cv_results_.keys()
    for key, value in one_by_one.cv_results_.items():
        np.testing.assert_array_equal(batched.cv_results_[key], value)


@pytest.mark.parametrize("missing", ["auto", "surrogate"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_batched_folds_with_tables_equal_the_presorted_search(monkeypatch, missing, seed):
    """The folds' growths with surrogates search categorical features from
    tables: the fit of the presorted search (``MAX_TABLE_LEVELS < 0``), bit for bit."""
    rng = np.random.default_rng(seed)
    X, y, n_cat = _table(rng, 400, 6, 2 + seed % 2, 12, 0.1)
    kwargs = dict(selection="cv", cv=5, random_state=seed, missing=missing, n_jobs=1)
    kwargs["categorical_features"] = np.flatnonzero(n_cat)
    with_tables = CARTClassifier(**kwargs).fit(X, y)
    monkeypatch.setattr(cart_module, "MAX_TABLE_LEVELS", -1)
    presorted = CARTClassifier(**kwargs).fit(X, y)
    assert with_tables.missing_ == presorted.missing_
    assert with_tables.tree_ == presorted.tree_
    assert with_tables.pruned_tree_ == presorted.pruned_tree_
    for key, value in presorted.cv_results_.items():
        np.testing.assert_array_equal(with_tables.cv_results_[key], value)


def test_an_integer_cv_summarises_the_batch_arrays(monkeypatch):
    # The folds of an integer cv reach the summary as the batch's two arrays,
    # without a (wrong, squares, weight) triple per fold.
    calls = []
    risks = sel.fold_batch_risks

    def spy(job, folds, betas, threads):
        calls.append(type(folds).__name__)
        return risks(job, folds, betas, threads)

    monkeypatch.setattr(sel, "fold_batch_risks", spy)
    monkeypatch.setattr(sel, "fold_batch", None)  # the per-fold triples: not called
    rng = np.random.default_rng(8)
    X, y, n_cat = _table(rng, 70, 4, 3, 6, 0.15)
    est = CARTClassifier(selection="cv", cv=7, random_state=2, n_jobs=1).fit(X, y)
    assert calls == ["AssignedFolds"] * 2  # both routing rules
    assert est.cv_results_["mean_risk"].shape == est.path_.alphas.shape


@pytest.mark.parametrize("missing", ["auto", "surrogate", "learned"])
@pytest.mark.parametrize("cv", [7, 2])
def test_default_fit_shares_the_batch_among_threads(monkeypatch, missing, cv):
    # With n_jobs=None the batch's folds are shared among one thread per core
    # (three here, whatever the machine, and whatever the folds' work), in
    # runs of consecutive folds; with n_jobs=1 they run in one call. The fits
    # are equal.
    from prunus.pruning import _base

    sizes = []
    risks = _fold_batch.classification_fold_risks

    def spy(sample, growth, rows, temperatures):
        sizes.append(rows.train_offsets.shape[0] - 1)
        return risks(sample, growth, rows, temperatures)

    monkeypatch.setattr(_fold_batch, "classification_fold_risks", spy)
    monkeypatch.setattr(_base, "usable_cpus", lambda: 3)
    monkeypatch.setattr(sel, "_THREAD_SECONDS", 1e-12)  # a thread for every run, however short
    monkeypatch.setattr(_fold_batch, "EARLY_FROM_WORK", 10**12)  # threads started after T_max's growth
    rng = np.random.default_rng(8)
    X, y, n_cat = _table(rng, 70, 4, 3, 6, 0.15)
    kwargs = dict(selection="cv", cv=cv, random_state=2, missing=missing, categorical_features=np.flatnonzero(n_cat))
    threaded = CARTClassifier(**kwargs).fit(X, y)
    n_rules = 2 if threaded.missing_ != missing else 1
    # the runs of folds of each call (their threads record them in any order)
    assert sorted(sizes) == sorted(([2, 3, 2] if cv == 7 else [1, 1]) * n_rules)
    sizes.clear()
    one = CARTClassifier(n_jobs=1, **kwargs).fit(X, y)
    assert sizes == [cv] * n_rules
    assert threaded.missing_ == one.missing_
    assert threaded.selected_index_ == one.selected_index_
    assert threaded.pruned_tree_ == one.pruned_tree_
    for key, value in one.cv_results_.items():
        np.testing.assert_array_equal(threaded.cv_results_[key], value)


@pytest.mark.parametrize("missing", ["auto", "surrogate", "learned"])
@pytest.mark.parametrize("cpus", [2, 3, 16])
def test_default_fit_starts_the_batch_beside_t_max(monkeypatch, missing, cpus):
    # With enough work the default's batch starts growing its folds before
    # T_max: every thread but one at once, the one that grows T_max after
    # it, each taking the next fold no thread has taken. The fit equals the
    # one whose folds start after T_max, and n_jobs=1's.
    from prunus.pruning import _base

    runs = []
    claimed = _fold_batch.claimed_fold_steps

    def spy(sample, growth, rows, next_fold):
        steps = claimed(sample, growth, rows, next_fold)
        runs.append(steps[0])
        return steps

    monkeypatch.setattr(_fold_batch, "claimed_fold_steps", spy)
    monkeypatch.setattr(_base, "usable_cpus", lambda: cpus)
    rng = np.random.default_rng(8)
    X, y, n_cat = _table(rng, 300, 4, 3, 6, 0.15)
    kwargs = dict(selection="cv", cv=10, random_state=2, missing=missing, categorical_features=np.flatnonzero(n_cat))
    early = CARTClassifier(**kwargs).fit(X, y)
    n_rules = 2 if early.missing_ != missing else 1
    # One call per thread and rule; every fold grown (a fold may grow twice when two threads take it at once).
    assert len(runs) == n_rules * min(cpus, 10)
    assert np.all(np.bincount(np.concatenate(runs), minlength=10) >= n_rules)
    runs.clear()
    monkeypatch.setattr(_fold_batch, "EARLY_FROM_WORK", 10**12)
    late = CARTClassifier(**kwargs).fit(X, y)
    one = CARTClassifier(n_jobs=1, **kwargs).fit(X, y)
    assert runs == []
    for other in (late, one):
        assert early.missing_ == other.missing_
        assert early.selected_index_ == other.selected_index_
        assert early.pruned_tree_ == other.pruned_tree_
        for key, value in other.cv_results_.items():
            np.testing.assert_array_equal(early.cv_results_[key], value)


def test_only_enough_work_starts_early():
    rng = np.random.default_rng(3)
    params = GrowthParams("gini", None, 2, 1, 0.0, None, None, max_surrogates=5)

    def job(n, d, nan_rate):
        X, y, n_cat = _table(rng, n, d, 2, 4, nan_rate)
        return sel.FoldJob(CARTGrower(X, y, 2, n_categories=n_cat), np.ones(n), "M2", params, 0, None, True)

    work = _fold_batch.EARLY_FROM_WORK
    assert _fold_batch.starts_early(job(work // 2, 2, 0.0), 2)
    assert not _fold_batch.starts_early(job(work // 2, 2, 0.0), 1)  # one thread: nothing to start
    assert not _fold_batch.starts_early(job(work // 2 - 1, 2, 0.0), 2)
    # surrogate searches weigh more: a quarter of the rows suffices once some row misses a value
    assert _fold_batch.starts_early(job(work // (2 * _fold_batch.SURROGATE_WORK), 2, 0.3), 2)


def test_a_failed_early_fold_is_raised_by_the_fit(monkeypatch):
    from prunus.pruning import _base

    def fail(sample, growth, rows, next_fold):
        raise MemoryError("no room for the fold")

    monkeypatch.setattr(_fold_batch, "claimed_fold_steps", fail)
    monkeypatch.setattr(_base, "usable_cpus", lambda: 2)
    rng = np.random.default_rng(4)
    X, y, _ = _table(rng, 400, 4, 2, 4, 0.0)
    with pytest.raises(MemoryError, match="no room for the fold"):
        CARTClassifier(selection="cv", cv=5, random_state=0).fit(X, y)


def test_a_call_grows_the_folds_not_yet_taken():
    # claimed_fold_steps takes the folds from next_fold[0] on, one after the
    # other, and leaves none: the same steps as a batch that grows them all.
    rng = np.random.default_rng(6)
    X, y, n_cat = _table(rng, 120, 3, 3, 4, 0.1)
    grower = CARTGrower(X, y, 3, n_categories=n_cat)
    params = GrowthParams("gini", None, 2, 1, 0.0, None, None, max_surrogates=2)
    job = sel.FoldJob(grower, np.ones(120), "M2", params, 0, None, True)
    folds = list(folds_of(fold_of_rows(120, 6, 4), 6))
    records = _fold_batch.batch_records(job, folds)
    betas = np.array([0.0, 0.01, 0.1, sel.ROOT_TEMPERATURE])
    wrong, held = _fold_batch.fold_batch_risks(job, folds, betas)
    next_fold = np.array([2])
    grown, *steps = _fold_batch.claimed_fold_steps(*records, next_fold)
    np.testing.assert_array_equal(grown, [2, 3, 4, 5])
    assert next_fold[0] == 6
    np.testing.assert_array_equal(_fold_batch.steps_at(tuple(steps), betas), wrong[2:])
    np.testing.assert_array_equal(steps[3], held[2:])
    grown, *steps = _fold_batch.claimed_fold_steps(*records, next_fold)
    assert grown.shape == (0,) and next_fold[0] == 6
