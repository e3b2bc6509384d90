"""LIBSVM / SVMlight text files (``label index:value ...``), read as sparse matrices."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from sklearn.utils import Bunch


def load_svmlight(path: str | Path, n_features: int | None = None) -> Bunch:
    """Read a LIBSVM-format file into a Bunch with a CSR matrix ``X``.

    The format of the binary datasets used by Aziz, Anderton & Aslam
    (a6a, w4a, RCV1): one example per line, ``label index:value ...`` with
    1-based feature indices; absent features are zeros. Parsing is
    scikit-learn's ``load_svmlight_file``.

    Parameters
    ----------
    path : str or Path
        The file to read.
    n_features : int, optional
        Number of columns (e.g. to align a test file with its training
        file); inferred from the largest index when omitted.

    Returns
    -------
    data : Bunch
        ``X`` (scipy.sparse CSR, float64), ``y`` (class codes, int64),
        ``target_names`` (the labels as written in the file), ``feature_names``,
        ``train_index = test_index = None``, ``description``, ``source``.

    Raises
    ------
    FileNotFoundError
        When ``path`` does not exist.
    ValueError
        When the file is not in LIBSVM format.
    """
    from sklearn.datasets import load_svmlight_file

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"path: no such file {str(path)!r}.")
    if n_features is not None and (isinstance(n_features, bool) or int(n_features) != n_features or n_features < 1):
        raise ValueError(f"n_features must be a positive int, got {n_features!r}.")
    try:
        X, labels = load_svmlight_file(str(path), n_features=n_features, dtype=np.float64)
    except ValueError as exc:
        raise ValueError(f"path: {str(path)!r} is not a LIBSVM-format file ({exc}).") from exc
    classes, y = np.unique(labels, return_inverse=True)
    names = [f"{c:g}" for c in classes]
    return Bunch(
        X=X.tocsr(),
        y=y.astype(np.int64),
        target_names=np.asarray(names),
        feature_names=[f"x{j + 1}" for j in range(X.shape[1])],
        train_index=None,
        test_index=None,
        description=f"LIBSVM file {path.name}: {X.shape[0]} x {X.shape[1]}, {X.nnz} stored entries, "
        f"{len(classes)} classes.",
        source=str(path),
    )
