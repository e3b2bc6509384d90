"""Final selection of one tree of the pruning sequence (section 2.3 and 4 of
Gey's paper): test sample (eq. 10), cross-validation as in rpart, the 1-SE
rule, the slope heuristic and sub-additive penalties.

Every function takes a :class:`~prunus.pruning.CostComplexityPath` and
returns an index ``k`` into it. On ties the smaller tree (larger ``k``) wins.
"""

from __future__ import annotations

import math
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager, nullcontext
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from joblib import Parallel, delayed
from joblib.parallel import LokyBackend, get_active_backend

from ..tree._kernels import apply_categorical_kernel, apply_rows_kernel
from ..tree._surrogate import apply_surrogate_kernel, routing_record
from ..utils._cpus import usable_cpus
from ..utils._memory import release_free_memory
from ..utils._random import seeded_random_state
from ._fold_batch import EarlyFoldBatch, batch_records, batchable, fold_batch, fold_batch_risks, starts_early
from ._folds import AssignedFolds
from ._path_kernels import fold_misclassified, leaf_squared_errors, node_parents, route_numeric
from .path import (
    CostComplexityPath,
    _check_counts,
    _check_moments,
    _cost_complexity_path,
    _squared_error_path,
    check_loss_matrix,
)

if TYPE_CHECKING:
    from ..tree import Tree
    from ..tree.cart import CARTGrower, GrowthParams

#: Any temperature above 1 prunes a classification tree to the root:
#: alpha_k <= R(root) <= 1 (see :func:`root_temperature` for regression).
ROOT_TEMPERATURE = 2.0


def _last_argmin(values):
    """Index of the minimum, the last one on ties (the smallest tree)."""
    values = np.asarray(values)
    return int(values.shape[0] - 1 - np.argmin(values[::-1]))


def select_holdout(path: CostComplexityPath, test_counts: np.ndarray) -> tuple[int, np.ndarray]:
    """k-hat of eq. (10): the T_k with the least test loss (misclassified
    weight, or squared error for a :class:`SquaredErrorPath`).

    Parameters
    ----------
    path : CostComplexityPath
    test_counts : ndarray, shape (n_nodes, n_classes) or (n_nodes, 3)
        Class weights (or moments) of the test sample per node of T_max.

    Returns
    -------
    k : int
    test_risk : ndarray, shape (K,)
        P_{n_t}(f_{T_k}) for every k (the test mean squared error for a regression).
    """
    wrong = path.held_out_loss(test_counts)
    total = path.sample_weight_of(test_counts)
    risk = wrong / total if total > 0 else wrong
    return _last_argmin(risk), risk


def root_temperature(grower: CARTGrower) -> float:
    """A temperature that prunes any tree of the grower's sample to its root.

    :data:`ROOT_TEMPERATURE` for classification. For a regression, alpha_k
    <= R(root), the weighted variance of y on any subsample, which is at
    most the squared range of y: twice that.
    """
    if not grower.regression or grower.y.shape[0] == 0:
        return ROOT_TEMPERATURE
    spread = float(grower.y.max() - grower.y.min())
    if spread == 0.0:
        return ROOT_TEMPERATURE
    return min(2.0 * spread * spread, np.finfo(np.float64).max)


def cv_temperatures(alphas: np.ndarray, root: float = ROOT_TEMPERATURE) -> np.ndarray:
    """rpart's evaluation points: geometric means of consecutive alphas.

    T_k is optimal on [alpha_k, alpha_{k+1}); its representative temperature
    is sqrt(alpha_k alpha_{k+1}), and the root's is ``root``, a temperature
    above every alpha of every fold (:func:`root_temperature`).
    """
    alphas = np.asarray(alphas, dtype=np.float64)
    betas = np.empty_like(alphas)
    betas[:-1] = np.sqrt(alphas[:-1] * alphas[1:])
    betas[-1] = root
    return betas


def learning_parts(rows: np.ndarray, method: str, rng: np.random.RandomState | None) -> tuple[np.ndarray, np.ndarray]:
    """(rows to grow on, rows to prune with) of the learning sample ``rows``:
    both are ``rows`` for M2; for M1 the halves L1, L2 drawn by ``rng`` (sorted)."""
    if method == "M2":
        return rows, rows
    if rng is None:
        raise ValueError("method='M1' draws its halves: rng must be a RandomState, got None.")
    perm = rng.permutation(rows.shape[0])
    half = rows.shape[0] // 2
    return np.sort(rows[perm[:half]]), np.sort(rows[perm[half:]])


def build_path(
    grower: CARTGrower,
    rows: np.ndarray,
    weight: np.ndarray,
    method: str,
    params: GrowthParams,
    grow_seed: int,
    rng: np.random.RandomState | None,
    loss: np.ndarray | None = None,
    sizes: bool = True,
) -> tuple[CostComplexityPath, np.ndarray]:
    """Grow T_max and prune it by method M1 or M2 (section 3.1).

    M2 grows and prunes on the learning sample ``rows``. M1 splits it in two
    halves at random, grows T_max on the first and computes every pruning
    statistic (risks, leaf labels) from the second only.

    Parameters
    ----------
    grower : CARTGrower
        The whole sample, presorted once; the tree is grown on ``rows`` of it
        (the other rows get weight 0: nothing is copied).
    rows : ndarray of int
        Rows of the learning sample L.
    weight : ndarray of float64, shape (n_samples,)
        Sample weights of every row.
    method : {"M1", "M2"}
    params : GrowthParams
    grow_seed : int
        Seed of the builder's feature draws.
    rng : RandomState or None
        Draws the M1 halves (None for M2, which draws nothing).
    loss : ndarray, shape (n_classes, n_classes), optional
        Loss matrix (rows: true class, columns: predicted). T_max is then
        grown with each row's weight multiplied by its class's row sum of
        ``loss`` (rpart's altered priors, Breiman et al. section 4.4), and the
        path is pruned on the expected loss of the unaltered weights.
    sizes : bool, default=True
        Whether the path gets ``n_leaves`` and ``risks`` (a cross-validation
        fold only needs its temperatures and leaf predictions).

    Returns
    -------
    path : CostComplexityPath
    prune_rows : ndarray of int
        Rows forming the pruning sample (``rows`` for M2, L2 for M1).
    """
    grow_rows, prune_rows = learning_parts(rows, method, rng)
    grow_weight = np.zeros_like(weight)
    grow_weight[grow_rows] = weight[grow_rows]
    if loss is not None:
        grow_weight[grow_rows] *= loss.sum(axis=1)[grower.y[grow_rows]]
    tree, counts = grower.grow(params, grow_weight, grow_seed)
    if method == "M1" or loss is not None:
        counts = node_statistics(grower, tree, weight, prune_rows)
    if grower.regression:
        return _squared_error_path(tree, _check_moments(tree, counts), sizes), prune_rows
    counts = _check_counts(tree, counts)
    if loss is not None:
        loss = check_loss_matrix(loss, counts.shape[1])
    return _cost_complexity_path(tree, counts, loss, sizes), prune_rows


def node_statistics(grower: CARTGrower, tree: Tree, weight: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """Per-node statistics of the rows ``rows`` of the grower's sample: class
    weights, or for a regression (weight, mean, within sum of squares)."""
    if grower.regression:
        return tree._node_moments_rows(grower.X, grower.y, weight, rows)
    return tree._node_counts_rows(grower.X, grower.y, weight, rows, grower.n_classes)


class FoldJob(NamedTuple):
    """What every fold of one cross-validation shares: the arguments of
    :func:`build_path` that are the same for each fold (``grower``,
    ``weight``, ``method``, ``params``, ``grow_seed``, ``loss``: see there),
    and two of its own.

    Attributes
    ----------
    integer : bool or None
        :func:`_integer_weights` of ``weight`` when known (the same for
        every fold: computed once per cross-validation).
    spacing : GrowthSpacing or None
        Times the start of the folds' growths (see :func:`_regression_fold_loss`).
    """

    grower: CARTGrower
    weight: np.ndarray
    method: str
    params: GrowthParams
    grow_seed: int
    loss: np.ndarray | None = None
    integer: bool | None = None
    spacing: GrowthSpacing | None = None


def _resolved(betas):
    """The temperatures, waiting for them if they are a future."""
    return betas.result() if isinstance(betas, Future) else betas


def _fold_loss(job: FoldJob, fold, seed: int, betas) -> tuple[np.ndarray, np.ndarray, float]:
    """(wrong, squares, held-out weight) of one fold (``fold`` = (train,
    test) rows, ``seed`` its M1 draws) at the temperatures ``betas`` (an
    array, or a future read once the fold's tree is grown)."""
    try:
        return _one_fold_loss(job, fold, seed, betas)
    finally:
        trim_heap(job.grower)


def trim_heap(grower: CARTGrower) -> None:
    """Give the C heap's free memory back to the system after a step of a
    large fit: when the sample's X is at least ``_TRIM_FROM_BYTES`` (a
    fold's presorted orders and workspace scale with X)."""
    if grower.X.nbytes >= _TRIM_FROM_BYTES:
        release_free_memory()


#: Bytes of X from which the C heap is trimmed after each fold (a fold's
#: arrays are then tens of megabytes). Below, trimming costs more than it
#: frees: on 20,000-100,000 rows of 8 features (1.3-6.4 MB) a trim and the page
#: faults of the next fold's fresh arrays took 6-11% of a CV fit, and leaving
#: the heap untrimmed kept 4-26 MB more resident after the fit, with the same
#: peak. Wide tables (10,000 rows of 60 features and up) are still trimmed.
_TRIM_FROM_BYTES = 2**22


def _one_fold_loss(job, fold, seed, betas):
    """:func:`_fold_loss` without the heap trim."""
    grower, weight, method, params, grow_seed, loss, integer, spacing = job
    train, test = fold
    if grower.regression and method == "M2" and not grower.n_categories.any():
        grow_weight = np.zeros_like(weight)
        grow_weight[train] = weight[train]
        return _regression_fold_loss(grower, weight, grow_weight, test, params, grow_seed, betas, spacing)
    if integer is None:
        integer = _integer_weights(weight)
    if not grower.regression and method == "M2" and loss is None and integer:
        return _classification_fold_loss(grower, weight, train, test, params, grow_seed, betas)
    if method == "M1":  # only M1 draws (its halves)
        with seeded_random_state(seed) as rng:
            path, _ = build_path(grower, train, weight, method, params, grow_seed, rng, loss, sizes=False)
    else:
        path, _ = build_path(grower, train, weight, method, params, grow_seed, None, loss, sizes=False)
    return path._held_out_rows(grower.X, grower.y, weight, test, _resolved(betas))


def _regression_fold_loss(
    grower: CARTGrower,
    weight: np.ndarray,
    grow_weight: np.ndarray,
    test: np.ndarray,
    params: GrowthParams,
    grow_seed: int,
    betas: np.ndarray,
    spacing: GrowthSpacing | None = None,
) -> tuple[np.ndarray, np.ndarray, float]:
    """:func:`_fold_loss` of an M2 regression on numeric features, grown on
    ``grow_weight`` (the weights of the fold's training rows, 0 elsewhere):
    the fold's tree is grown, pruned and evaluated on its held-out rows
    ``test`` from its node arrays in compiled passes (no :class:`Tree` nor
    path object: the Python work per fold would outweigh a small fold's
    growth); held-out rows missing a split's feature follow its surrogate
    splits when it has some, as :meth:`Tree.apply` sends them. The same
    numbers as ``build_path`` then ``_held_out_rows``; ``spacing`` (a
    :class:`GrowthSpacing`) times the growth's start."""
    with nullcontext() if spacing is None else spacing.growth():
        left, right, feature, threshold, missing_left, moments, bits, surrogates = grower.grow_arrays(
            params, grow_weight, grow_seed
        )
    # The growth's presorted segments and scan scratch (about 0.6 X) are
    # free now, but sit in the C heap: given back before the pruning.
    trim_heap(grower)
    test = np.asarray(test, dtype=np.int64)
    if surrogates is None:
        leaves = route_numeric((left, right, feature, threshold, missing_left), grower.X, test)
    else:
        # Numeric splits: no levels (the kernel reads no bits of a numeric split).
        n_nodes = left.shape[0]
        categories = (right, np.zeros(n_nodes, dtype=np.bool_), bits, grower.n_categories)
        record = routing_record(surrogates)
        leaves = apply_surrogate_kernel(grower.X, test, left, feature, threshold, missing_left, categories, record)
        del categories, record
    # The rows are routed: the splits' arrays are freed before the pruning,
    # whose temporaries are about as large.
    del feature, threshold, missing_left, bits, surrogates
    parent = node_parents(left, right)
    betas = np.asarray(_resolved(betas), dtype=np.float64)
    sums = leaf_squared_errors((left, right, moments), parent, leaves, test, grower.y, weight, betas)
    return sums[0], sums[1], float(weight[test].sum())


def _integer_weights(weight: np.ndarray) -> bool:
    """Whether every weight is an integer and their sum below 2^52 (every
    partial sum of them is then exact in float64, in any order)."""
    return bool(np.all(weight == np.floor(weight)) and weight.sum() < 2.0**52)


def _classification_fold_loss(
    grower: CARTGrower,
    weight: np.ndarray,
    train: np.ndarray,
    test: np.ndarray,
    params: GrowthParams,
    grow_seed: int,
    betas: np.ndarray,
    spacing: GrowthSpacing | None = None,
) -> tuple[np.ndarray, np.ndarray, float]:
    """:func:`_fold_loss` of an M2 classification with the 0-1 loss and
    integer weights: the fold's tree is grown, its held-out rows routed (by
    subsets of levels and surrogate splits where it has them), and its
    pruned trees evaluated from its node arrays (no :class:`Tree` nor path
    object, whose checks and bookkeeping would outweigh a small fold's
    growth). The same numbers as ``build_path`` then ``_held_out_rows``: with
    integer weights every sum of the pruning is exact (see
    :func:`~._path_kernels.fold_misclassified`)."""
    grow_weight = np.zeros_like(weight)
    grow_weight[train] = weight[train]
    left, right, feature, threshold, missing_left, counts, bits, surrogates = grower.grow_arrays(
        params, grow_weight, grow_seed
    )
    parent = node_parents(left, right)
    rows = np.asarray(test, dtype=np.int64)
    is_leaf = left == -1
    n_cat = grower.n_categories
    routing = (left, right, feature, threshold, missing_left)
    if surrogates is not None or n_cat.any():
        # np.maximum rather than np.clip: the same indices, a fraction of the cost.
        is_categorical = ~is_leaf & (n_cat[np.maximum(feature, 0)] > 0)
        categories = (is_categorical, bits, n_cat)
    if surrogates is not None and surrogates.feature.shape[0] > 0:
        leaves = apply_surrogate_kernel(
            grower.X, rows, left, feature, threshold, missing_left, (right, *categories), routing_record(surrogates)
        )
    elif n_cat.any() and is_categorical.any():
        leaves = apply_categorical_kernel(grower.X, rows, *routing, categories)
    else:
        leaves = apply_rows_kernel(grower.X, rows, *routing)
    held_y, held_w = grower.y[rows], weight[rows]
    betas = np.asarray(_resolved(betas), dtype=np.float64)
    wrong, held_out = fold_misclassified((left, right, counts), parent, leaves, held_y, held_w, betas)
    return wrong, wrong, float(held_out)


def cv_risks(
    grower: CARTGrower,
    weight: np.ndarray,
    folds: Iterable[tuple[np.ndarray, np.ndarray]],
    method: str,
    params: GrowthParams,
    grow_seed: int,
    betas: np.ndarray,
    rng: np.random.RandomState,
    n_jobs: int | None = None,
    progress: Callable[[], Any] | None = None,
    loss: np.ndarray | None = None,
    squares: list[np.ndarray] | None = None,
    n_folds: int | None = None,
    local_threads: bool = False,
) -> tuple[np.ndarray, np.ndarray]:
    """Held-out loss (misclassified weight, the loss of a loss matrix, or the
    squared error for a regression grower) of every fold's pruned trees at ``betas``.

    One tree and one path per fold, each evaluated at every temperature from
    the counts of the fold's held-out part: no refit per alpha. Every fold
    grows from the grower's presorted order, restricted to its training rows,
    and the folds run in threads (the kernels release the GIL), so neither X
    nor its order is copied or pickled per fold.

    Parameters
    ----------
    progress : callable, optional
        Called once per finished fold (e.g. a progress bar's ``update``).
    loss : ndarray, optional
        Loss matrix (see :func:`build_path`): ``wrong`` is then the held-out
        weighted loss.
    squares : list, optional
        Receives the held-out weighted sums of the rows' squared losses,
        summed over the folds, shape (len(betas),), for :func:`cv_summary`.
    n_folds : int, optional
        Number of folds when ``folds`` is an iterator (e.g. a splitter's
        ``split``, whose index arrays are then made one fold at a time);
        default ``len(folds)``.
    local_threads : bool, default=False
        Run the folds in threads of this process, one per core, unless a
        joblib backend or ``n_jobs`` is configured (``joblib.parallel_config``),
        which then runs them with ``n_jobs``.

    Returns
    -------
    wrong : ndarray, shape (n_folds, len(betas))
    weight : ndarray, shape (n_folds,)
        Held-out weight of each fold.
    """
    with FoldRun(grower, weight, folds, method, params, grow_seed, rng, n_jobs, loss, n_folds, local_threads) as run:
        return _collect_risks(run, betas, progress, squares)


def _collect_risks(run, betas, progress=None, squares=None):
    """:func:`cv_risks` of the started folds ``run`` (a :class:`FoldRun`)."""
    n_folds = run.n_folds
    results = run.results(betas)
    # A large regression's path has about as many temperatures as rows: the
    # folds' rows of losses are written in place as they come, and the
    # squares, only ever summed over folds, are summed in fold order (as
    # ``sum(axis=0)`` adds the rows of a C-ordered array: the same numbers).
    wrong = np.empty((n_folds, len(betas)))
    square_sum = None
    held = []
    for i, (fold_wrong, fold_squares, fold_weight) in enumerate(results):
        wrong[i] = fold_wrong
        if squares is not None:
            square_sum = fold_squares.copy() if square_sum is None else square_sum + fold_squares
        held.append(fold_weight)
        del fold_wrong, fold_squares
        if progress is not None:
            progress()
    if squares is not None and square_sum is not None:
        squares.append(square_sum)
    return wrong, np.array(held)


#: Bytes of the folds' rows of losses (n_folds x temperatures x 8) from which
#: :func:`cv_risk_summary` keeps running sums instead of the rows.
_STREAM_FROM_BYTES = 2**22


def cv_risk_summary(
    grower: CARTGrower,
    weight: np.ndarray,
    folds: Iterable[tuple[np.ndarray, np.ndarray]],
    method: str,
    params: GrowthParams,
    grow_seed: int,
    betas: np.ndarray,
    rng: np.random.RandomState,
    n_jobs: int | None = None,
    progress: Callable[[], Any] | None = None,
    loss: np.ndarray | None = None,
    per_row: bool = False,
    n_folds: int | None = None,
    local_threads: bool = False,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`cv_summary` of :func:`cv_risks` (same arguments; ``per_row``:
    rpart's per-row standard error, else the binomial one), without keeping
    every fold's row of losses when they are large.

    A large regression's path has about one temperature per row, so the
    folds' rows weigh half of X at 20 features and 10 folds. When they
    would take :data:`_STREAM_FROM_BYTES` or more, each fold's row is
    folded into running sums as it arrives: the mean and the standard error
    are the same numbers (the sums over folds are taken in fold order, as
    ``sum(axis=0)`` takes them), and the standard deviation across folds is
    Welford's running one, equal to ``numpy.std``'s two-pass one up to
    rounding (relative differences of order 1e-15 times the number of folds
    and the ratio of the mean to the deviation). Below, the rows are kept and
    :func:`cv_summary` is exactly that of :func:`cv_risks`.

    Returns
    -------
    mean, std, se : ndarray, shape (len(betas),)
    """
    with FoldRun(grower, weight, folds, method, params, grow_seed, rng, n_jobs, loss, n_folds, local_threads) as run:
        return fold_risk_summary(run, betas, progress, per_row)


def fold_risk_summary(
    run: FoldRun, betas: np.ndarray, progress: Callable[[], Any] | None = None, per_row: bool = False
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`cv_risk_summary` of the folds ``run`` (a :class:`FoldRun`,
    started before the temperatures ``betas`` were known)."""
    n_folds = run.n_folds
    n_samples = run.job.grower.X.shape[0]
    if n_folds * len(betas) * 8 < _STREAM_FROM_BYTES:
        batch = None if per_row else run.batched(betas)
        if batch is not None:
            # The rows _collect_risks would copy, in one call (0-1 loss: no per-row SE).
            if progress is not None:
                for _ in range(n_folds):
                    progress()
            return cv_summary(batch[0], batch[1], n_samples, None)
        squares: list[np.ndarray] = []
        wrong, held = _collect_risks(run, betas, progress, squares)
        return cv_summary(wrong, held, n_samples, squares[0] if per_row else None)
    results: Iterator[Any] = run.results(betas)
    wrong_sum = square_sum = running_mean = deviations = None
    held_weights: list[float] = []
    for i, (fold_wrong, fold_squares, fold_weight) in enumerate(results):
        if wrong_sum is None:
            wrong_sum = fold_wrong.copy()
            square_sum = fold_squares.copy() if per_row else None
        else:
            wrong_sum += fold_wrong
            if square_sum is not None:
                square_sum += fold_squares
        # cv_summary's per-fold risk, then Welford's update of its mean and
        # of the sum of squared deviations from it.
        risk = fold_wrong / (fold_weight if fold_weight > 0 else 1.0)
        if running_mean is None:
            running_mean, deviations = risk, np.zeros_like(risk)
        else:
            delta = risk - running_mean
            running_mean += delta / (i + 1)
            risk -= running_mean
            delta *= risk
            deviations += delta
        held_weights.append(fold_weight)
        del fold_wrong, fold_squares
        if progress is not None:
            progress()
    assert wrong_sum is not None and deviations is not None
    total = np.array(held_weights).sum()
    mean = wrong_sum / total
    std = np.sqrt(deviations / n_folds)
    return mean, std, _standard_error(mean, total, n_samples, square_sum)


class FoldRun:
    """The folds of one cross-validation, from their start to their results.

    Made with the folds (``folds``, ``n_folds``) and the fit's generator
    ``rng``, from which every fold's seed is drawn at once; the other
    arguments are those of :func:`cv_risks`. With ``start``, folds that run
    in threads of this process (``local_threads`` and joblib's defaults)
    start growing at once, each one waiting for the temperatures only to
    evaluate its pruned trees, so that T_max and its path, which give the
    temperatures, are made beside the first folds. Otherwise the folds run
    as :meth:`results` reads them. A context manager: leaving it stops the
    folds not yet started and waits for the others.

    ``batch_threads`` (keyword only): folds that run one after the other in
    one compiled call (:func:`~._fold_batch.fold_batch`) are shared among
    at most this many threads of this process, each running a run of
    consecutive folds; the numbers are the same. With ``start`` and enough
    work (:func:`~._fold_batch.starts_early`), those threads start at once,
    beside T_max, each taking the next fold no thread has taken
    (:class:`~._fold_batch.EarlyFoldBatch`).
    """

    def __init__(
        self,
        grower: CARTGrower,
        weight: np.ndarray,
        folds: Iterable[tuple[np.ndarray, np.ndarray]],
        method: str,
        params: GrowthParams,
        grow_seed: int,
        rng: np.random.RandomState,
        n_jobs: int | None = None,
        loss: np.ndarray | None = None,
        n_folds: int | None = None,
        local_threads: bool = False,
        start: bool = False,
        *,
        batch_threads: int = 1,
    ) -> None:
        if n_folds is None:
            folds = list(folds)
            n_folds = len(folds)
        self.n_folds = n_folds
        self._n_jobs = n_jobs
        seeds = rng.randint(2**31 - 1, size=n_folds)
        # An integer cv's folds (re-iterable; see _folds.AssignedFolds) are kept for the batch.
        self._folds = folds if isinstance(folds, AssignedFolds) else None
        self._tasks: Iterator[tuple[tuple[np.ndarray, np.ndarray], Any]] = zip(folds, seeds)
        default_backend = (local_threads or n_jobs in (None, 1)) and _default_joblib_backend()
        self._threads = local_threads and default_backend
        self._sequential = not self._threads and n_jobs in (None, 1) and default_backend
        n_threads = min(usable_cpus(), n_folds) if self._threads else 1
        spacing = None
        if self._threads and n_threads > 1 and grower.X.nbytes >= _SPACE_FROM_BYTES:
            spacing = GrowthSpacing(grower.growth_seconds)
        integer = None if grower.regression else _integer_weights(weight)
        self.job = FoldJob(grower, weight, method, params, grow_seed, loss, integer, spacing)
        # Folds one after the other of a small classification: one compiled call for all (see _fold_batch),
        # or one for each run of consecutive folds, in threads of this process.
        self._batch = self._sequential and batchable(self.job)
        self._batch_threads = max(1, min(batch_threads, n_folds))
        self._betas: Future[np.ndarray] = Future()
        self._pool: ThreadedMap | None = None
        # Growths started early only where they do not shape memory (GrowthSpacing).
        if start and self._threads and spacing is None:
            self._pool = ThreadedMap(self._one, self._tasks, n_threads)
        self._n_threads = n_threads
        # The batch's folds started early in threads of their own, beside T_max (see EarlyFoldBatch).
        self._early: EarlyFoldBatch | None = None
        if start and self._batch and self._folds is not None and starts_early(self.job, self._batch_threads):
            records = batch_records(self.job, self._folds)
            if records is not None:
                self._early = EarlyFoldBatch(records, self._batch_threads)

    def _one(self, task):
        fold, seed = task
        return _fold_loss(self.job, fold, seed, self._betas)

    def results(self, betas: np.ndarray) -> Iterator[tuple[np.ndarray, np.ndarray, float]]:
        """(wrong, squares, held-out weight) of every fold at the
        temperatures ``betas``, in fold order, as the folds finish."""
        self._betas.set_result(betas)
        if self._threads:
            # Threads of this process: a pool costs a fraction of a
            # millisecond, joblib's threading backend ~10 ms.
            if self._pool is None:
                self._pool = ThreadedMap(self._one, self._tasks, self._n_threads)
            return iter(self._pool)
        if self._sequential:
            if self._early is not None:
                wrong, held = self._early.risks(betas)
                return iter([(wrong[k], wrong[k], float(held[k])) for k in range(self.n_folds)])
            if self._batch:
                if self._folds is not None:
                    # Their rows concatenated, made once for every rule of the fit: no pairs made here.
                    batch = fold_batch(self.job, self._folds, betas, self._threads_for_batch())
                    if batch is not None:
                        return iter(batch)
                else:
                    taken = list(self._tasks)
                    batch = fold_batch(self.job, [fold for fold, _ in taken], betas, self._threads_for_batch())
                    if batch is not None:
                        return iter(batch)
                    self._tasks = iter(taken)
            # One after the other in this thread, as joblib would run them, without
            # its dispatch (which weighs on a small table's folds).
            return map(self._one, self._tasks)
        tasks = (delayed(_fold_loss)(self.job, fold, seed, betas) for fold, seed in self._tasks)
        return Parallel(n_jobs=self._n_jobs, prefer="threads", return_as="generator")(tasks)

    def _threads_for_batch(self) -> int:
        """Threads among which the batch's folds are shared: at most
        ``batch_threads``, and where the folds' work is small about
        sqrt(work / a thread's cost), which minimises work / t + (t - 1)
        costs (:data:`_THREAD_SECONDS`); none below four costs. The work is
        taken as n_folds times the last growth's CPU time (T_max's, about a
        fold's)."""
        seconds = self.job.grower.growth_seconds
        if self._batch_threads <= 1 or not seconds:
            return 1
        best = int(math.sqrt(self.n_folds * seconds / _THREAD_SECONDS))
        return max(1, min(self._batch_threads, best))

    def batched(self, betas: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """(wrong of shape (n_folds, len(betas)), held-out weights of shape
        (n_folds,)) of the folds of an integer ``cv`` run one after the
        other in one compiled call (see :func:`~._fold_batch.fold_batch_risks`),
        with the 0-1 loss, so ``wrong`` is also each fold's ``squares``;
        None where they do not run so (then :meth:`results` runs them, once)."""
        if not (self._sequential and self._batch and self._folds is not None):
            return None
        risks: tuple[np.ndarray, np.ndarray] | None
        if self._early is not None:
            risks = self._early.risks(betas)
        else:
            risks = fold_batch_risks(self.job, self._folds, betas, self._threads_for_batch())
        if risks is None:
            # The batch gave way (a fold without a training row of positive
            # weight): results() runs the folds one by one without trying it again.
            self._batch = False
        else:
            self._betas.set_result(betas)
        return risks

    def close(self) -> None:
        """Stop the folds not started (a fold waiting for temperatures
        that never came raises) and wait for those running."""
        if not self._betas.done():
            self._betas.set_exception(RuntimeError("the cross-validation stopped before its temperatures were known"))
        if self._pool is not None:
            self._pool.close()
        if self._early is not None:
            self._early.close()

    def __enter__(self) -> FoldRun:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


#: What a thread adds to a batch's wall time (``FoldRun``), in seconds: its
#: start and join take about 60 us, but measured on 2 cores the threads of a
#: CV fit cost more: ten folds of about 0.6 ms of growth in all (kyphosis,
#: iris) took 0.1-0.24 ms longer in two threads than in one, about 1.1 ms
#: (car.test.frame) took the same, 1.3-2 ms (wine, cu.summary, stagec)
#: 9-16% less in the whole fit.
_THREAD_SECONDS = 3e-4

#: Bytes of X from which the folds' growths in local threads are kept out of
#: phase (:class:`GrowthSpacing`).
_SPACE_FROM_BYTES = 2**24


class GrowthSpacing:
    """Keeps the growths of folds that run in threads half a growth apart.

    A fold holds the most memory at the end of its growth: its restricted
    presorted order and scan scratch, with the nodes it has made (about 1.2
    X's bytes at 20 features, against about 0.9 at mid-growth and 0.8 while
    it prunes). Folds of equal size started together end their growths
    together, and stay so, as their threads take the next folds at the same
    moments. Here a growth starts only when every growth in flight has run
    half as long as a growth, so that the peaks of the threads alternate;
    once apart, they stay so (each thread's fold takes as long), and the
    wait is about half a growth of one thread, once. Durations are the
    threads' CPU times where the system gives them (a loaded machine then
    delays a thread without shifting the phases), else wall times. Only the
    start of a growth is timed: the folds' results are the same.

    Parameters
    ----------
    expected : float, optional
        Seconds of a growth before one has been timed here (e.g. the
        grower's last growth, see ``CARTGrower.growth_seconds``); none: the
        first growths start at once.
    """

    def __init__(self, expected: float | None = None) -> None:
        self._expected = expected
        self._changed = threading.Condition()
        # Growths in flight: token -> (clock of their thread, its reading at the start).
        self._started: dict[int, tuple[Callable[[], float], float]] = {}
        self._next = 0

    def lead(self) -> float:
        """Seconds a growth in flight must have run before another starts."""
        return 0.0 if self._expected is None else 0.5 * self._expected

    @contextmanager
    def growth(self) -> Iterator[None]:
        """Context of one growth: waits for its start, then times it."""
        clock = _thread_clock()
        with self._changed:
            while True:
                behind = max((start + self.lead() - other() for other, start in self._started.values()), default=0.0)
                if behind <= 0.0:
                    break
                # A thread's clock runs no faster than the wall's: no later than due.
                self._changed.wait(behind)
            token = self._next
            self._next += 1
            start = clock()
            self._started[token] = (clock, start)
        try:
            yield
        finally:
            with self._changed:
                del self._started[token]
                self._expected = clock() - start
                self._changed.notify_all()


def _thread_clock() -> Callable[[], float]:
    """A reader of the calling thread's CPU time that other threads can call
    (``time.monotonic`` where the system has no such clock)."""
    try:
        clock_id = time.pthread_getcpuclockid(threading.get_ident())
        time.clock_gettime(clock_id)
    except (AttributeError, OSError):
        return time.monotonic
    return lambda: time.clock_gettime(clock_id)


class ThreadedMap:
    """``func`` of every item in ``n_threads`` threads, started when made;
    iterating gives the results in the items' order. At most ``n_threads +
    1`` items are taken ahead of the results read (a lazy fold's indices, 8
    bytes per training row, are made when it is taken: one in the queue
    keeps every thread busy)."""

    def __init__(self, func: Callable[[Any], Any], items: Iterable[Any], n_threads: int) -> None:
        self._func = func
        self._items = iter(items)
        self._n_threads = n_threads
        self._pool: ThreadPoolExecutor | None = ThreadPoolExecutor(max_workers=n_threads)
        self._pending: deque = deque()
        self._fill()

    def _fill(self) -> None:
        assert self._pool is not None
        while len(self._pending) <= self._n_threads:
            item = next(self._items, _DONE)
            if item is _DONE:
                return
            self._pending.append(self._pool.submit(self._func, item))

    def __iter__(self) -> Iterator[Any]:
        try:
            while self._pending:
                result = self._pending.popleft().result()
                self._fill()
                yield result
        finally:
            self.close()

    def close(self) -> None:
        """Cancel the items not started and wait for the running ones."""
        if self._pool is None:
            return
        for future in self._pending:
            future.cancel()
        self._pending.clear()
        self._pool.shutdown(wait=True)
        self._pool = None


_DONE = object()


def _default_joblib_backend() -> bool:
    """Whether joblib runs with its defaults: no backend other than its
    default one and no ``n_jobs`` configured (``joblib.parallel_config``)."""
    backend, n_jobs = get_active_backend()
    return n_jobs is None and isinstance(backend, LokyBackend)


def cv_summary(
    wrong: np.ndarray, weight: np.ndarray, n_samples: int, squares: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean risk (pooled over folds, as rpart's xerror), fold std and rpart's SE.

    The standard error is rpart's binomial one, sqrt(p (1 - p) / n), with p
    the pooled held-out risk. Given ``squares``, the held-out weighted sums
    of the rows' squared losses (a loss matrix, the squared error), per fold
    (n_folds, len) or summed over the folds (len,), rpart's per-row one,
    sqrt((mean of l^2 - p^2) / n) (the binomial one for 0-1 loss).
    """
    total = weight.sum()
    mean = wrong.sum(axis=0) / total
    per_fold = wrong / np.where(weight > 0, weight, 1.0)[:, None]
    std = per_fold.std(axis=0)
    if squares is not None and squares.ndim == 2:
        squares = squares.sum(axis=0)
    return mean, std, _standard_error(mean, total, n_samples, squares)


def _standard_error(mean, total, n_samples, square_sum=None):
    """rpart's standard error of the pooled risk ``mean`` (see :func:`cv_summary`)."""
    if square_sum is None:
        return np.sqrt(mean * (1.0 - mean) / n_samples)
    return np.sqrt(np.maximum(square_sum / total - mean * mean, 0.0) / n_samples)


def select_cv(mean_risk: np.ndarray, se_risk: np.ndarray | None = None, one_se: bool = False) -> int:
    """argmin of the CV risk, or with ``one_se`` the smallest tree whose risk
    is within one standard error of the minimum (the 1-SE rule)."""
    best = _last_argmin(mean_risk)
    if not one_se:
        return best
    if se_risk is None:
        raise ValueError("select_cv: the 1-SE rule needs se_risk.")
    bound = mean_risk[best] + se_risk[best]
    return int(np.flatnonzero(mean_risk <= bound).max())


def penalty_exponent(kappa: float) -> float:
    """kappa / (2 kappa - 1): the exponent of |T|/n under MA(MT) (section 4)."""
    kappa = float(kappa)
    if not np.isfinite(kappa) or kappa < 1.0:
        raise ValueError(f"kappa must be a finite number >= 1, got {kappa}.")
    return kappa / (2.0 * kappa - 1.0)


def minimal_penalty_constant(path: CostComplexityPath, n: int, kappa: float = 1.0, fraction: float = 0.5) -> float:
    """Slope heuristic: the minimal penalty constant c_min.

    Over the largest trees of the sequence (those with at least ``fraction``
    of the leaves of T_1, and at least the two largest) the empirical risk
    decreases linearly in the penalty shape (|T|/n)^p; minus the slope of a
    least-squares fit is c_min (Birgé-Massart; Arlot-Massart). The selected
    penalty is then 2 c_min.
    """
    shape = (path.n_leaves / float(n)) ** penalty_exponent(kappa)
    large = path.n_leaves >= fraction * path.n_leaves[0]
    if large.sum() < 2:
        large[: min(2, len(path))] = True
    if large.sum() < 2:
        return 0.0
    slope = np.polyfit(shape[large], path.risks[large], 1)[0]
    return max(-float(slope), 0.0)


def select_penalty(path: CostComplexityPath, n: int, c: float, kappa: float = 1.0) -> int:
    """argmin over the CART sequence of R(T_k) + c (|T_k| / n)^(kappa / (2 kappa - 1)).

    For kappa > 1 the penalty is sub-additive, and its minimisers over all
    pruned subtrees lie in the CART sequence (Scott; section 4 remarks), so
    searching the sequence is exact.
    """
    shape = (path.n_leaves / float(n)) ** penalty_exponent(kappa)
    return _last_argmin(path.risks + c * shape)


def surrogates_asked(estimator: Any, rule: str | None = None) -> int:
    """Surrogate splits per split a fit asks of the builder: ``max_surrogates``
    with the routing rule ``rule`` (default: the estimator's ``missing``)
    "surrogate" or "auto" (whose fits without a choice of rule keep the
    surrogates), else 0 (the learned side)."""
    if rule is None:
        rule = getattr(estimator, "missing", "learned")
    if rule not in ("surrogate", "auto"):
        return 0
    return int(estimator.max_surrogates)
