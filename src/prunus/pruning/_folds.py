"""The shuffled K folds of an integer ``cv``, without the splitter's checks.

scikit-learn's :class:`~sklearn.model_selection.KFold` and
:class:`~sklearn.model_selection.StratifiedKFold` (``shuffle=True``) check
their input again at every call (target type, array conversions), which on a
table of a hundred rows costs more than growing the folds' trees. The
estimators know their rows and encoded labels already: these functions draw
the same folds from the same seed, with the same random draws in the same
order, so that a fit is unchanged (pinned against scikit-learn's splitters in
the tests).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np

from .._compiled import njit
from ..utils._random import seeded_random_state


def fold_of_rows(n_samples: int, n_splits: int, seed: int, y: np.ndarray | None = None) -> np.ndarray:
    """The test fold of every row, as the shuffled splitters assign them.

    Parameters
    ----------
    n_samples : int
        Number of rows, at least ``n_splits``.
    n_splits : int
        Number of folds, at least 2.
    seed : int
        The splitter's ``random_state``.
    y : ndarray of int, shape (n_samples,), optional
        Class codes ``0 .. K - 1`` of the rows: folds stratified by them (as
        ``StratifiedKFold``; every class then has at least ``n_splits`` rows).
        None: plain shuffled folds (as ``KFold``).

    Returns
    -------
    ndarray of int, shape (n_samples,)
    """
    with seeded_random_state(seed) as rng:
        return _fold_of_rows(n_samples, n_splits, rng, y)


def _fold_of_rows(n_samples, n_splits, rng, y):
    """:func:`fold_of_rows` drawn by ``rng``, the splitter's ``RandomState(seed)``."""
    if y is None:
        # KFold: a permutation of the rows cut into consecutive folds, the
        # first n % k of them one row longer.
        indices = np.arange(n_samples)
        rng.shuffle(indices)
        sizes = np.full(n_splits, n_samples // n_splits, dtype=int)
        sizes[: n_samples % n_splits] += 1
        folds = np.empty(n_samples, dtype=np.intp)
        folds[indices] = np.repeat(np.arange(n_splits), sizes)
        return folds
    # StratifiedKFold: classes numbered by first occurrence; each class's
    # share of every fold from the sorted labels dealt round-robin, its
    # fold numbers shuffled among its rows. The codes are small integers:
    # counted, and their rows grouped by one stable sort (no np.unique).
    y = np.asarray(y, dtype=np.intp)
    counts = np.bincount(y)
    rows = np.argsort(y, kind="stable")  # each code's rows, in row order, code after code
    starts = np.cumsum(counts) - counts
    codes = np.flatnonzero(counts)
    codes = codes[np.argsort(rows[starts[codes]])]  # ordered by their first row
    n_classes = codes.shape[0]
    sizes = counts[codes]
    ordered = np.repeat(np.arange(n_classes), sizes)
    # allocation[i, k]: rows of class k among ordered[i::n_splits], counted in one pass.
    cell = (np.arange(n_samples) % n_splits) * n_classes + ordered
    allocation = np.bincount(cell, minlength=n_splits * n_classes).reshape(n_splits, n_classes)
    folds = np.empty(n_samples, dtype=np.intp)
    for k in range(n_classes):
        for_class = np.arange(n_splits).repeat(allocation[:, k])
        rng.shuffle(for_class)
        start = starts[codes[k]]
        folds[rows[start : start + sizes[k]]] = for_class
    return folds


def folds_of(folds: np.ndarray, n_splits: int) -> AssignedFolds:
    """(train, test) row indices of every fold, each sorted, one fold at a
    time, from the test fold of every row (:func:`fold_of_rows`): with
    ``fold_of_rows(n_samples, n_splits, seed, y)``, the pairs of ``KFold``
    (``y`` None) or ``StratifiedKFold`` with ``shuffle=True, random_state=seed``.

    Returns
    -------
    AssignedFolds
        The pairs, made as they are iterated (as often as asked).
    """
    return AssignedFolds(folds, n_splits)


class AssignedFolds:
    """The (train, test) pairs of the folds given by the test fold of every
    row (see :func:`folds_of`), made as they are iterated; also all at once,
    concatenated, for the folds run in one compiled call.

    Parameters
    ----------
    assignment : ndarray of int, shape (n_samples,)
        The test fold of every row, ``0 .. n_splits - 1``.
    n_splits : int
        Number of folds.
    """

    def __init__(self, assignment: np.ndarray, n_splits: int) -> None:
        self.assignment = assignment
        self.n_splits = n_splits
        self._concatenated: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None = None

    def __len__(self) -> int:
        return self.n_splits

    def __iter__(self) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        for i in range(self.n_splits):
            test = self.assignment == i
            yield np.flatnonzero(~test), np.flatnonzero(test)

    def concatenated(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(train, train_offsets, test, test_offsets) of int64: fold k's
        pairs are ``train[train_offsets[k]:train_offsets[k + 1]]`` and
        ``test[test_offsets[k]:test_offsets[k + 1]]``, each ascending, as
        iterating gives them. Made once (the routing rules of one fit share
        their folds)."""
        if self._concatenated is None:
            self._concatenated = _concatenated_folds(np.asarray(self.assignment, dtype=np.int64), self.n_splits)
        return self._concatenated


@njit(cache=True, nogil=True)
def _concatenated_folds(assignment, n_splits):
    """:meth:`AssignedFolds.concatenated` of the test fold of every row: each
    fold's test rows and training rows ascending, by counting."""
    n = assignment.shape[0]
    test_offsets = np.zeros(n_splits + 1, dtype=np.int64)
    for i in range(n):
        test_offsets[assignment[i] + 1] += 1
    train_offsets = np.zeros(n_splits + 1, dtype=np.int64)
    for k in range(n_splits):
        train_offsets[k + 1] = train_offsets[k] + n - test_offsets[k + 1]
        test_offsets[k + 1] += test_offsets[k]
    test = np.empty(n, dtype=np.int64)
    cursor = test_offsets[:n_splits].copy()
    for i in range(n):
        k = assignment[i]
        test[cursor[k]] = i
        cursor[k] += 1
    train = np.empty(train_offsets[n_splits], dtype=np.int64)
    for k in range(n_splits):
        # Every row is written at the cursor and only the fold's training rows advance it: no branch on a
        # row's fold, which is unpredictable (the one on the cursor's end is taken once).
        at = train_offsets[k]
        end = train_offsets[k + 1]
        for i in range(n):
            if at < end:
                train[at] = i
            at += assignment[i] != k
    return train, train_offsets, test, test_offsets
