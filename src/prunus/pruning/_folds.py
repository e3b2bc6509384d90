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
    # fold numbers shuffled among its rows.
    _, first, inverse = np.unique(y, return_index=True, return_inverse=True)
    _, class_perm = np.unique(first, return_inverse=True)
    encoded = class_perm[inverse.ravel()]
    n_classes = first.shape[0]
    ordered = np.sort(encoded)
    # allocation[i, k]: rows of class k among ordered[i::n_splits], counted in one pass.
    cell = (np.arange(n_samples) % n_splits) * n_classes + ordered
    allocation = np.bincount(cell, minlength=n_splits * n_classes).reshape(n_splits, n_classes)
    folds = np.empty(n_samples, dtype=np.intp)
    for k in range(n_classes):
        for_class = np.arange(n_splits).repeat(allocation[:, k])
        rng.shuffle(for_class)
        folds[encoded == k] = for_class
    return folds


def folds_of(folds: np.ndarray, n_splits: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(train, test) row indices of every fold, each sorted, one fold at a
    time, from the test fold of every row (:func:`fold_of_rows`): with
    ``fold_of_rows(n_samples, n_splits, seed, y)``, the pairs of ``KFold``
    (``y`` None) or ``StratifiedKFold`` with ``shuffle=True, random_state=seed``."""
    for i in range(n_splits):
        test = folds == i
        yield np.flatnonzero(~test), np.flatnonzero(test)
