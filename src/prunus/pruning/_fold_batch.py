"""Every fold of a small classification's cross-validation in one compiled call.

On a table of a hundred rows a fold's tree grows in tens of microseconds,
and the Python around it (the growth's records, its workspace, the
surrogate tables, the routing of the held-out rows, the pruning) costs as
much again: :func:`fold_batch` grows, routes and prunes every fold in one
call of :func:`classification_fold_risks`, which runs, fold after fold,
the kernels :meth:`~prunus.tree.cart.CARTGrower.grow_arrays` and
``selection._classification_fold_loss`` run one Python call at a time, on
the same inputs: the same numbers, bit for bit.

It applies where that fold loss does (method M2, 0-1 loss, integer weights)
to folds that would run one after the other in the calling thread; the
batch may share them among a few threads, each running a run of
consecutive folds in one call. Folds run by joblib or in a pool of threads
keep one task per fold.
"""

from __future__ import annotations

import math
from collections import namedtuple
from collections.abc import Sequence
from functools import partial
from typing import Any

import numpy as np

from .._compiled import njit
from ..tree._grower import grow_depth_first
from ..tree._kernels import apply_categorical_kernel, apply_rows_kernel
from ..tree._no_refcount import njit_no_refcount
from ..tree._splitter import GrowthData, Settings, Workspace, carried_keys, carries_keys
from ..tree._surrogate import (
    DEFERRED,
    new_store,
    node_surrogates,
    surrogate_side,
)
from ..tree.cart import _workspace_into
from ..utils._workers import start_call
from ._folds import AssignedFolds
from ._path_kernels import fold_misclassified, misclassified_at, misclassified_steps, node_parents

#: Rows from which the folds keep one call each (a fold's growth then
#: outweighs its Python many times, and a large fold's memory is given back
#: between folds: see ``selection.trim_heap``).
BATCH_BELOW_ROWS = 10_000

#: The whole sample: X (C-ordered float64), class codes, the weights and
#: the presorted order of every feature.
FoldSample = namedtuple("FoldSample", "X y weight order")

#: What every fold's growth shares: ``shared`` the grower's
#: :data:`~prunus.tree.cart.SharedGrowth`; ``settings`` the kernels'
#: ``Settings``, but for the fold's own ``min_samples_split`` /
#: ``min_samples_leaf`` (one per fold) and ``present_only`` (whether the
#: fold finds surrogate splits: ``max_surrogates`` > 0 and some row of its
#: training part misses a value).
FoldGrowth = namedtuple("FoldGrowth", "shared settings min_samples_split min_samples_leaf max_surrogates")

#: The folds: fold k grows on ``train[train_offsets[k]:train_offsets[k + 1]]``
#: and is evaluated on ``test[test_offsets[k]:test_offsets[k + 1]]``.
FoldRows = namedtuple("FoldRows", "train train_offsets test test_offsets")


def batchable(job: Any) -> bool:
    """Whether the folds of ``job`` (a ``selection.FoldJob``) can run in one
    :func:`fold_batch`: a classification by M2 with the 0-1 loss and integer
    weights (``selection._classification_fold_loss``), grown depth first,
    on fewer than :data:`BATCH_BELOW_ROWS` rows."""
    grower = job.grower
    return (
        not grower.regression
        and job.method == "M2"
        and job.loss is None
        and bool(job.integer)
        and job.params.max_leaf_nodes is None
        and job.spacing is None
        and grower.X.shape[0] < BATCH_BELOW_ROWS
    )


def fold_batch(
    job: Any, folds: Sequence[tuple[np.ndarray, np.ndarray]] | AssignedFolds, betas: np.ndarray, threads: int = 1
) -> list[tuple[np.ndarray, np.ndarray, float]] | None:
    """(wrong, squares, held-out weight) of every fold, as
    ``selection._fold_loss`` gives them one fold at a time, from one
    compiled call; None where a fold is not of the batch's kind (a training
    part not in ascending order or without weight: the one-fold path then
    runs it, and raises where it must).

    Parameters
    ----------
    job : selection.FoldJob
        What every fold shares (:func:`batchable`; typed loosely here, as
        the selection module imports this one).
    folds : sequence of (train, test) row indices, or AssignedFolds
        The folds (an integer ``cv``'s come concatenated already).
    betas : ndarray of float64
        The temperatures at which each fold's pruned trees are evaluated.
    threads : int, default=1
        Threads of this process among which the folds are shared
        (:func:`fold_batch_risks`).

    Returns
    -------
    list of (ndarray, ndarray, float) or None
    """
    risks = fold_batch_risks(job, folds, betas, threads)
    if risks is None:
        return None
    wrong, held = risks
    return [(wrong[k], wrong[k], float(held[k])) for k in range(len(folds))]


def fold_batch_risks(
    job: Any, folds: Sequence[tuple[np.ndarray, np.ndarray]] | AssignedFolds, betas: np.ndarray, threads: int = 1
) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`fold_batch`'s numbers as two arrays: the misclassified weight
    of shape (n_folds, n_temperatures) (fold k's row is its ``wrong`` and
    its ``squares``) and the held-out weights of shape (n_folds,); None
    where :func:`fold_batch` gives None.

    With ``threads`` > 1 the folds are shared among that many threads of
    this process, each running :func:`classification_fold_risks` on a run
    of consecutive folds (the kernel releases the GIL; its records are only
    read). Each fold is computed as in one call, so the numbers are the same.
    """
    records = batch_records(job, folds)
    if records is None:
        return None
    sample, growth, rows = records
    betas = np.asarray(betas, dtype=np.float64)
    if threads <= 1:
        return classification_fold_risks(sample, growth, rows, betas)
    results = _in_threads(
        [(sample, part_growth, part, betas) for part_growth, part in _fold_groups(growth, rows, threads)]
    )
    return np.concatenate([wrong for wrong, _ in results]), np.concatenate([held for _, held in results])


def _fold_groups(growth: Any, rows: Any, n_groups: int) -> list[tuple[Any, Any]]:
    """(:data:`FoldGrowth`, :data:`FoldRows`) of ``n_groups`` runs of
    consecutive folds, in order, as even as can be.

    Offsets index the concatenated rows, so a run's offsets are a slice of
    the whole's and its rows are the same arrays; the folds' own settings
    (``min_samples_split``, ``min_samples_leaf``, one per fold) are sliced
    alike.
    """
    train, train_offsets, test, test_offsets = rows
    n_folds = train_offsets.shape[0] - 1
    ends = [round(n_folds * g / n_groups) for g in range(n_groups + 1)]
    return [
        (
            growth._replace(
                min_samples_split=growth.min_samples_split[a:b], min_samples_leaf=growth.min_samples_leaf[a:b]
            ),
            FoldRows(train, train_offsets[a : b + 1], test, test_offsets[a : b + 1]),
        )
        for a, b in zip(ends[:-1], ends[1:])
        if b > a
    ]


#: Work (rows x features, times :data:`SURROGATE_WORK` where the growths
#: find surrogate splits) from which :func:`starts_early` starts a batch's
#: folds beside T_max. Below, a fold grows in well under 0.1 ms and the
#: threads cost more than they save: measured on 2 cores, iris (600) and
#: kyphosis (183, no missing value) were 7-10% slower started early, wine
#: (2,314) 4% faster, and rpart's cu.summary, stagec and car.test.frame
#: (256-660, with missing values) 5-7% faster.
EARLY_FROM_WORK = 1000

#: A growth that looks for surrogate splits costs about this many plain
#: ones on the same rows (measured per row and feature: 1.8x on rpart's
#: cu.summary against kyphosis, 2.5-4.3x on 300-1,000-row tables with 10%
#: of values missing against the same tables complete).
SURROGATE_WORK = 4


def starts_early(job: Any, threads: int) -> bool:
    """Whether the folds of the batch ``job`` (a ``selection.FoldJob``)
    start growing beside T_max in ``threads`` threads (an
    :class:`EarlyFoldBatch`): with at least two threads and enough work
    (:data:`EARLY_FROM_WORK`)."""
    grower = job.grower
    work = grower.X.shape[0] * grower.X.shape[1]
    if grower.finds_surrogates(job.params, job.weight):
        work *= SURROGATE_WORK
    return threads > 1 and work >= EARLY_FROM_WORK


class EarlyFoldBatch:
    """The folds of a batch grown from the start of the fit, beside T_max.

    A fold's misclassified held-out weight is a step function of the
    temperature (:func:`claimed_fold_steps`), so every fold can be
    grown, routed and pruned before T_max and its path give the
    temperatures. Made with the batch's records (:func:`batch_records`) and
    a number of threads: all but one start at once, and the thread that
    grows T_max joins them once T_max and its path are made (:meth:`risks`).
    Each runs :func:`claimed_fold_steps`, which takes the next fold no
    thread has taken, until none is left, all in one compiled call: a fold
    and T_max differ in cost, and a fixed share of the folds per thread left
    one thread idle while another finished (about a fold's time, 1 ms of a
    9-12 ms fit at 2,000 rows on 2 cores). :meth:`risks` reads every fold at
    the temperatures: the numbers of :func:`fold_batch_risks`, bit for bit
    (integer weights).
    """

    def __init__(self, records: tuple[Any, Any, Any], threads: int) -> None:
        *_, rows = records
        self._n_folds = rows.train_offsets.shape[0] - 1
        self._records = records
        # The next fold no thread has taken (claimed_fold_steps).
        self._next = np.zeros(1, dtype=np.int64)
        self._parts: list[Any] = []
        self._errors: list[BaseException] = []
        n_workers = max(1, min(threads, self._n_folds) - 1)
        # Threads kept waiting between fits (starting one costs about 0.1 ms).
        self._workers = [start_call(self._grow) for _ in range(n_workers)]

    def _grow(self) -> None:
        try:
            self._parts.append(claimed_fold_steps(*self._records, self._next))
        except BaseException as exc:  # re-raised in the thread that reads the risks
            self._errors.append(exc)
            self._next[0] = self._n_folds  # the other threads take no further fold

    def risks(self, temperatures: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(misclassified weight of shape (n_folds, n_temperatures), held-out
        weights of shape (n_folds,)), as :func:`fold_batch_risks` gives them."""
        self._grow()
        self.close()
        if self._errors:
            raise self._errors[0]
        temperatures = np.asarray(temperatures, dtype=np.float64)
        wrong = np.empty((self._n_folds, temperatures.shape[0]))
        held = np.empty(self._n_folds)
        for grown, breaks, levels, offsets, part_held in self._parts:
            wrong[grown] = steps_at((breaks, levels, offsets, part_held), temperatures)
            held[grown] = part_held
        return wrong, held

    def close(self) -> None:
        """Leave the folds not yet taken, and wait for the folds' threads."""
        self._next[0] = self._n_folds
        for done in self._workers:
            done.wait()


def _in_threads(calls: list[tuple[Any, ...]]) -> list[Any]:
    """``classification_fold_risks(*args)`` of every ``args`` of ``calls``: the
    first in this thread, each other in a thread of its own (one kept waiting
    between fits, see :func:`~prunus.utils._workers.start_call`); in order."""
    results: list[Any] = [None] * len(calls)
    errors: list[BaseException] = []

    def run(i: int) -> None:
        try:
            results[i] = classification_fold_risks(*calls[i])
        except BaseException as exc:  # re-raised in the calling thread
            errors.append(exc)

    workers = [start_call(partial(run, i)) for i in range(1, len(calls))]
    run(0)
    for done in workers:
        done.wait()
    if errors:
        raise errors[0]
    return results


def batch_records(
    job: Any, folds: Sequence[tuple[np.ndarray, np.ndarray]] | AssignedFolds
) -> tuple[tuple[Any, ...], tuple[Any, ...], tuple[np.ndarray, ...]] | None:
    """The (:data:`FoldSample`, :data:`FoldGrowth`, :data:`FoldRows`) of
    :func:`fold_batch`'s call, or None where it gives way."""
    grower, weight = job.grower, job.weight
    rows = _fold_rows(folds)
    if rows is None:
        return None
    train, train_offsets, test, test_offsets = rows
    n_rows = np.add.reduceat((weight > 0.0)[train], train_offsets[:-1])
    if not np.all(n_rows > 0):
        return None
    # Folds differ in size by a row at most: a few distinct settings.
    of_size = {m: grower.growth_settings(job.params, m, job.grow_seed) for m in set(n_rows.tolist())}
    settings = [of_size[m] for m in n_rows.tolist()]
    growth = FoldGrowth(
        grower.shared_growth(settings[0]),
        settings[0],
        np.array([s.min_samples_split for s in settings], dtype=np.int64),
        np.array([s.min_samples_leaf for s in settings], dtype=np.int64),
        int(job.params.max_surrogates),
    )
    sample = FoldSample(grower.X, grower.y, weight, grower.order)
    return sample, growth, FoldRows(train, train_offsets, test, test_offsets)


def _fold_rows(folds: Sequence[tuple[np.ndarray, np.ndarray]] | AssignedFolds) -> tuple[np.ndarray, ...] | None:
    """(train, train_offsets, test, test_offsets) of int64 of the folds
    (see :data:`FoldRows`), or None where a training part is empty or not
    ascending. The folds of an integer ``cv`` (``AssignedFolds``) come
    concatenated already, made once for every routing rule of a fit."""
    if isinstance(folds, AssignedFolds):
        train, train_offsets, test, test_offsets = folds.concatenated()
        if not np.all(train_offsets[1:] > train_offsets[:-1]):
            return None
        return train, train_offsets, test, test_offsets
    n_folds = len(folds)
    if n_folds == 0:
        return None
    trains = [np.asarray(train, dtype=np.int64) for train, _ in folds]
    tests = [np.asarray(test, dtype=np.int64) for _, test in folds]
    if any(train.ndim != 1 or train.shape[0] == 0 for train in trains):
        return None
    train_offsets = np.zeros(n_folds + 1, dtype=np.int64)
    np.cumsum([train.shape[0] for train in trains], out=train_offsets[1:])
    train = np.concatenate(trains)
    # Each fold's training rows ascending (each row once), so that the rows
    # it grows on are counted here as its growth counts them: those of
    # positive weight. The steps between folds may go down.
    ascending = train[1:] > train[:-1]
    ascending[train_offsets[1:-1] - 1] = True
    if not ascending.all():
        return None
    test_offsets = np.zeros(n_folds + 1, dtype=np.int64)
    np.cumsum([test.shape[0] for test in tests], out=test_offsets[1:])
    return train, train_offsets, np.concatenate(tests), test_offsets


@njit(cache=True, nogil=True)
def classification_fold_risks(sample, growth, folds, temperatures):
    """Held-out misclassified weight of every fold's pruned trees at every
    temperature, and each fold's held-out weight: for fold k, the tree
    grown on its training rows (their weights, 0 elsewhere), its held-out
    rows routed (by subsets of levels and surrogate splits where it has
    them) and its pruned trees evaluated by
    :func:`~._path_kernels.fold_misclassified`. ``sample`` is a
    :data:`FoldSample`, ``growth`` a :data:`FoldGrowth`, ``folds`` the
    :data:`FoldRows`. Returns (wrong of shape (n_folds, n_temperatures),
    held-out weights of shape (n_folds,))."""
    n_folds = folds.train_offsets.shape[0] - 1
    wrong = np.empty((n_folds, temperatures.shape[0]))
    held = np.empty(n_folds)
    for k in range(n_folds):
        nodes, parent, leaves, held_y, held_w = _fold_held_out(sample, growth, folds, k)
        fold_wrong, fold_held = fold_misclassified(nodes, parent, leaves, held_y, held_w, temperatures)
        wrong[k] = fold_wrong
        held[k] = fold_held
    return wrong, held


@njit(cache=True, nogil=True)
def claimed_fold_steps(sample, growth, folds, next_fold):
    """:func:`classification_fold_risks` before the temperatures are known,
    of the folds this call takes: every fold's misclassified held-out weight
    as a step function of the temperature
    (:func:`~._path_kernels.misclassified_steps`), read at the temperatures
    by :func:`steps_at`. The call takes one fold after the other, each time
    the next fold no call has taken, ``next_fold[0]`` (shared by the calls
    running at once in other threads), until none is left. Returns (the
    folds grown, breaks, levels, offsets, held-out weights): the j-th fold
    grown has the steps ``offsets[j]:offsets[j + 1]`` of the breaks and
    levels.

    A take is a plain load and store, not an atomic one: two calls that
    read the same value both grow that fold, to the same numbers, and a
    call that then writes back a value another has passed makes a later
    fold grow twice. No fold is left out: a value is only ever written by a
    call that read the one below it, and that call grows that fold."""
    n_folds = folds.train_offsets.shape[0] - 1
    grown = []
    held = []
    parts = []
    while True:
        k = next_fold[0]
        if k >= n_folds:
            break
        next_fold[0] = k + 1
        nodes, parent, leaves, held_y, held_w = _fold_held_out(sample, growth, folds, k)
        breaks, levels, fold_held = misclassified_steps(nodes, parent, leaves, held_y, held_w)
        grown.append(k)
        held.append(fold_held)
        parts.append((breaks, levels))
    n = len(grown)
    offsets = np.zeros(n + 1, dtype=np.int64)
    for j in range(n):
        offsets[j + 1] = offsets[j] + parts[j][0].shape[0]
    all_breaks = np.empty(offsets[n])
    all_levels = np.empty(offsets[n])
    for j in range(n):
        all_breaks[offsets[j] : offsets[j + 1]] = parts[j][0]
        all_levels[offsets[j] : offsets[j + 1]] = parts[j][1]
    return np.array(grown, dtype=np.int64), all_breaks, all_levels, offsets, np.array(held)


@njit(cache=True, nogil=True)
def steps_at(steps, temperatures):
    """The misclassified weight of every fold of ``steps`` (the breaks,
    levels, offsets and held-out weights of :func:`claimed_fold_steps`) at
    every temperature: :func:`classification_fold_risks`' numbers for those
    folds, bit for bit (integer weights)."""
    breaks, levels, offsets, held = steps
    n_folds = offsets.shape[0] - 1
    wrong = np.empty((n_folds, temperatures.shape[0]))
    for k in range(n_folds):
        a, b = offsets[k], offsets[k + 1]
        wrong[k] = misclassified_at(breaks[a:b], levels[a:b], temperatures)
    return wrong


@njit(cache=True, nogil=True, inline="always")
def _fold_held_out(sample, growth, folds, k):
    """Fold k grown on its training rows (their weights, 0 elsewhere), with
    its held-out rows routed (by subsets of levels and surrogate splits where
    it has them): ((children_left, children_right, class weights per node),
    parents, the held-out rows' leaves, their class codes and weights)."""
    X, y, weight, order = sample
    train_rows, train_offsets, test_rows, test_offsets = folds
    n = weight.shape[0]
    grow_weight = np.zeros(n)
    for i in range(train_offsets[k], train_offsets[k + 1]):
        grow_weight[train_rows[i]] = weight[train_rows[i]]
    nodes, store = _grow_fold(sample, growth, grow_weight, k)
    rows = test_rows[test_offsets[k] : test_offsets[k + 1]]
    left, right, feature, threshold, missing_left, counts, bits = nodes
    if store.n_found.shape[0] > 0:
        train = train_rows[train_offsets[k] : train_offsets[k + 1]]
        leaves = _route_by_store(sample, growth.shared.plain, grow_weight, (rows, train), nodes, store)
    else:
        leaves = _route_held_out(X, rows, growth.shared.plain.n_categories, nodes)
    parent = node_parents(left, right)
    held_y = np.empty(rows.shape[0], dtype=y.dtype)
    held_w = np.empty(rows.shape[0])
    for i in range(rows.shape[0]):
        held_y[i] = y[rows[i]]
        held_w[i] = weight[rows[i]]
    return (left, right, counts), parent, leaves, held_y, held_w


@njit(cache=True, nogil=True)
def _grow_fold(sample, growth, grow_weight, k):
    """``CARTGrower.grow_arrays`` of fold k (weights ``grow_weight``): the
    node arrays, and the surrogate store of a growth that looked for
    surrogates (else the grower's empty one). The store's searches are
    deferred where no training row needs them (see
    :func:`_route_by_store`, which finds those the held-out rows need)."""
    order = sample.order
    shared = growth.shared
    rows_with_missing = shared.rows_with_missing
    n = grow_weight.shape[0]
    n_rows = 0
    unit = True
    for i in range(n):
        w = grow_weight[i]
        n_rows += w > 0.0
        unit = unit and (w == 0.0 or w == 1.0)
    # Surrogates where asked for and some training row misses a value.
    finds = False
    if growth.max_surrogates > 0:
        for i in range(rows_with_missing.shape[0]):
            if grow_weight[rows_with_missing[i]] > 0.0:
                finds = True
                break
    s = growth.settings
    settings = Settings(
        s.criterion,
        s.max_depth,
        growth.min_samples_split[k],
        growth.min_samples_leaf[k],
        s.min_impurity_decrease,
        s.max_features,
        s.max_leaf_nodes,
        s.n_classes,
        s.seed,
        s.random_thresholds,
        s.sort_cost,
        finds,
    )
    # A growth with surrogates has tables of its categorical features only (see CARTGrower._level_tables).
    tables, unsorted, n_cells = shared.surrogate_tables if finds else (shared.tables, shared.unsorted, shared.n_cells)
    arrays = _workspace_into(
        np.empty((order.shape[0], n_rows), dtype=np.int32),
        order,
        grow_weight,
        s.n_classes,
        shared.n_words,
        unsorted,
        n_cells,
    )
    if carries_keys(n_rows, s.n_classes, order.shape[0], unsorted):
        keys = carried_keys(shared.plain.columns, shared.plain.y, arrays[0], unsorted)
    else:
        keys = np.empty((0, 0))
    work = _workspace(arrays, keys)
    if finds:
        flags = np.ones(3, dtype=np.bool_)  # [2]: searches deferred where no training row needs them
        flags[:2] = shared.store_flags[:2]
        store = new_store(n, 2 * n_rows + 1, growth.max_surrogates, shared.n_words, flags)
        # Integer weights (see batchable): its categorical searches bounded, as in CARTGrower.grow_arrays.
        data = _with_weight(tables, grow_weight, unit, True)
        return grow_depth_first(data, work, settings, store), store
    # Integer weights throughout (see batchable): a growth with tables has integer_weight.
    data = _with_weight(tables, grow_weight, unit, unsorted.shape[0] > 0)
    return grow_depth_first(data, work, settings, shared.no_store), shared.no_store


@njit(cache=True, nogil=True, inline="always")
def _primary_side(x, node, split, n_cat):
    """Side the split of ``node`` sends the row ``x``: 1 left, -1 right, 0
    none (its feature missing, or at a categorical split no level code), as
    ``apply_surrogate_kernel`` reads it; ``split = (feature, threshold,
    bits)`` of every node."""
    feature, threshold, bits = split
    f = feature[node]
    value = x[f]
    if n_cat.shape[0] > 0 and n_cat[f] > 0:
        if value >= 0.0 and value < n_cat[f] and value == np.floor(value):
            code = np.int64(value)
            return 1 if (bits[node, code >> 6] >> (code & 63)) & 1 == 1 else -1
        return 0
    if math.isnan(value):
        return 0
    return 1 if value <= threshold[node] else -1


@njit(cache=True, nogil=True, inline="always")
def _surrogates_side(x, node, tables, n_cat):
    """Side of the first of the node's surrogates that gives the row ``x``
    one (0: none does); ``tables`` = the store's (n_found, feature,
    threshold, left_below, bits, known)."""
    n_found, s_feature, s_threshold, s_left_below, s_bits, s_known = tables
    has_levels = n_cat.shape[0] > 0
    for q in range(n_found[node]):
        g = s_feature[node, q]
        n_levels = n_cat[g] if has_levels else 0
        s = surrogate_side(
            x[g], n_levels, s_threshold[node, q], s_left_below[node, q], s_bits[node, q], s_known[node, q]
        )
        if s != 0:
            return s
    return 0


@njit(cache=True, nogil=True, inline="always")
def _side(x, node, split, tables, n_cat):
    """Side ``node`` sends the row ``x`` (1 left, -1 right), as
    ``apply_surrogate_kernel`` sends it: its split, else the first of its
    surrogates that gives one, else the majority side; ``split =
    (feature, threshold, bits, missing_left)`` of every node."""
    feature, threshold, bits, missing_left = split
    s = _primary_side(x, node, (feature, threshold, bits), n_cat)
    if s == 0:
        s = _surrogates_side(x, node, tables, n_cat)
    if s == 0:
        s = 1 if missing_left[node] else -1
    return s


@njit(cache=True, nogil=True)
def _route_by_store(sample, data, grow_weight, rows, nodes, store):
    """Leaves of the held-out rows of a fold whose growth looked for
    surrogates, ``rows = (held-out rows, training rows)``, routed as
    ``apply_surrogate_kernel`` routes them by the surrogates of ``store``.

    Where the growth deferred a node's search (none of its training rows
    missed the split's feature), a held-out row missing it finds them here,
    over the node's training rows (those of positive weight whose leaf lies
    in its subtree: depth-first growth numbers a subtree's nodes
    consecutively), with every feature a candidate (those constant there
    give none) and the numeric ones sorted afresh: with integer weights,
    the same surrogates as the growth's search over its presorted segments.
    """
    X = sample.X
    held, train = rows
    left = nodes[0]
    tables = (store.n_found, store.feature, store.threshold, store.left_below, store.bits, store.known)
    n_cat = data.n_categories
    # Leaves of the training rows, found when a node first needs its rows.
    train_leaf = np.empty(0, dtype=np.int64)
    out = np.empty(held.shape[0], dtype=np.int64)
    for i in range(held.shape[0]):
        node = _descend(X, held[i], 0, nodes, tables, n_cat)
        while left[node] != -1:
            # A deferred node the row cannot follow by its split.
            if train_leaf.shape[0] == 0:
                train_leaf = np.empty(train.shape[0], dtype=np.int64)
                _training_leaves(X, (train, grow_weight), nodes, tables, n_cat, train_leaf)
            _find_deferred(X, data, grow_weight, (train, train_leaf), nodes, store, node)
            node = _descend(X, held[i], node, nodes, tables, n_cat)
        out[i] = node
    return out


@njit_no_refcount
def _descend(X, row, node, nodes, tables, n_cat):
    """The node where the row ``X[row]`` stops going down from ``node``: its
    leaf, or a node whose search the growth deferred and whose split's
    feature it misses. Without reference counting: it runs for every
    held-out row of a fold, and its view of the row would otherwise count
    a reference at every node."""
    x = X[row]
    left, right, feature, threshold, missing_left, counts, bits = nodes
    split = (feature, threshold, bits)
    n_found = tables[0]
    while left[node] != -1:
        if n_found[node] == DEFERRED and _primary_side(x, node, split, n_cat) == 0:
            return node
        node = left[node] if _side(x, node, (*split, missing_left), tables, n_cat) == 1 else right[node]
    return node


@njit_no_refcount
def _training_leaves(X, train, nodes, tables, n_cat, out):
    """Leaf of every training row, ``train = (rows, grow weights)``, into
    ``out`` (-1 for those of no weight), routed as the growth sent them
    (``tables`` as for :func:`_surrogates_side`): no row meets a deferred
    node without its feature. Without reference counting, as
    :func:`_descend`."""
    rows, grow_weight = train
    left, right, feature, threshold, missing_left, counts, bits = nodes
    split = (feature, threshold, bits, missing_left)
    for i in range(rows.shape[0]):
        out[i] = -1
        if not grow_weight[rows[i]] > 0.0:
            continue
        x = X[rows[i]]
        node = 0
        while left[node] != -1:
            node = left[node] if _side(x, node, split, tables, n_cat) == 1 else right[node]
        out[i] = node


@njit(cache=True, nogil=True)
def _find_deferred(X, data, grow_weight, train, nodes, store, node):
    """The surrogates of ``node``, whose search the growth deferred, into
    ``store``: over its training rows ``train = (rows, their leaves)``, in
    ascending order."""
    rows, leaf = train
    left, right, feature, threshold, missing_left, counts, bits = nodes
    split = (feature, threshold, bits)
    last = node
    while left[last] != -1:
        last = right[last]
    node_rows = np.empty(rows.shape[0], dtype=np.int64)
    m = 0
    for i in range(rows.shape[0]):
        if leaf[i] >= node and leaf[i] <= last:
            node_rows[m] = rows[i]
            m += 1
    node_rows = node_rows[:m]
    side = store.side
    for i in range(m):
        side[node_rows[i]] = _primary_side(X[node_rows[i]], node, split, data.n_categories)
    node_surrogates(data.columns, data.n_categories, grow_weight, node_rows, side, feature[node], store, node)


@njit(cache=True, nogil=True)
def _route_held_out(X, rows, n_cat, nodes):
    """Leaves of the held-out ``rows`` in a fold's tree ``nodes`` grown
    without surrogates, by the kernel ``selection._classification_fold_loss``
    picks: subsets of levels where it split a categorical feature, else
    thresholds (the same leaves by each)."""
    left, right, feature, threshold, missing_left, counts, bits = nodes
    n_nodes = left.shape[0]
    has_levels = False
    for f in range(n_cat.shape[0]):
        has_levels = has_levels or n_cat[f] > 0
    if has_levels:
        is_categorical = np.zeros(n_nodes, dtype=np.bool_)
        any_categorical = False
        for t in range(n_nodes):
            is_categorical[t] = left[t] != -1 and n_cat[max(feature[t], 0)] > 0
            any_categorical = any_categorical or is_categorical[t]
        if any_categorical:
            return apply_categorical_kernel(
                X, rows, left, right, feature, threshold, missing_left, (is_categorical, bits, n_cat)
            )
    return apply_rows_kernel(X, rows, left, right, feature, threshold, missing_left)


@njit(cache=True, nogil=True)
def _with_weight(data, weight, unit, integer):
    """``data`` (a ``GrowthData``) of a growth on ``weight``."""
    return GrowthData(
        data.columns,
        data.y,
        weight,
        unit,
        data.target,
        data.n_categories,
        data.level_slot,
        data.level_codes,
        data.level_values,
        data.n_levels,
        data.level_offset,
        integer,
    )


@njit(cache=True, nogil=True)
def _workspace(arrays, keys):
    """The ``Workspace`` of ``_workspace_into``'s arrays with the carried
    ``keys`` (see ``carried_keys``; a classification scans in one pass)."""
    index, buffer, goes_left, left, missing, total, node_rows, best_bits, table, table_rows, scratch = arrays
    return Workspace(
        index,
        buffer,
        goes_left,
        left,
        missing,
        total,
        node_rows,
        best_bits,
        table,
        table_rows,
        scratch,
        keys,
    )
