"""Row blocks: dask arrays / DataFrames (and numpy arrays) as aligned row chunks.

Every function here turns the user's ``X``, ``y`` and ``sample_weight`` into
dask arrays whose row chunks coincide, so that block ``b`` of each can be
handed to one task. ``X`` becomes float64 with a single column chunk (a tree
routes a row with all its features).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ._detect import is_dask_collection, require_dask


def _is_dataframe(obj):
    return hasattr(obj, "to_dask_array") and getattr(obj, "ndim", None) == 2


def _is_series(obj):
    return hasattr(obj, "to_dask_array") and getattr(obj, "ndim", None) == 1


def as_matrix(X: Any, n_features: int | None = None, name: str = "X") -> Any:
    """``X`` as a 2-D float64 dask array with one column chunk.

    Parameters
    ----------
    X : dask array or dask DataFrame of numeric columns
    n_features : int, optional
        Checked against the number of columns before any computation.
    """
    require_dask()
    if _is_dataframe(X):
        from pandas.api.types import is_bool_dtype, is_numeric_dtype

        bad = [str(col) for col, dt in X.dtypes.items() if not (is_numeric_dtype(dt) or is_bool_dtype(dt))]
        if bad:
            raise TypeError(f"{name} must have numeric columns only; columns {bad} are not numeric.")
        X = X.to_dask_array()
    elif _is_series(X):
        raise ValueError(f"{name} must be 2-D (a dask array or DataFrame), got a dask Series.")
    elif not hasattr(X, "chunks"):
        raise TypeError(f"{name} must be a dask array or a dask DataFrame, got {type(X).__name__}.")
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array, got an array with {X.ndim} dimension(s).")
    if not (np.issubdtype(X.dtype, np.number) or X.dtype == bool):
        raise TypeError(f"{name} must hold numbers, got dtype {X.dtype}.")
    if n_features is not None and X.shape[1] != n_features:
        raise ValueError(f"{name} has {X.shape[1]} features, but {n_features} were expected.")
    return X.astype(np.float64).rechunk({1: -1})


def known_rows(X: Any) -> Any:
    """``X`` with every row-chunk length known (a DataFrame's are not)."""
    if any(np.isnan(c) for c in X.chunks[0]):
        X = X.compute_chunk_sizes()
    return X


def _unknown(chunks):
    return any(np.isnan(c) for c in chunks)


def as_vector(v: Any, X: Any, name: str) -> tuple[Any, Any]:
    """A 1-D input aligned with the row chunks of the dask matrix ``X``.

    ``v`` may be a numpy array / list, a dask array or a dask Series. Returns
    ``(v, X)``: ``X`` keeps its blocks but may have learnt their lengths.
    """
    import dask.array as da

    if _is_series(v):
        v = v.to_dask_array()
    elif _is_dataframe(v):
        raise ValueError(f"{name} must be 1-D, got a dask DataFrame.")
    if not is_dask_collection(v):
        v = np.asarray(v)
        if v.ndim != 1:
            raise ValueError(f"{name} must be 1-D, got shape {v.shape}.")
        X = known_rows(X)
        if v.shape[0] != X.shape[0]:
            raise ValueError(f"{name} has {v.shape[0]} rows but X has {X.shape[0]}.")
        return da.from_array(v, chunks=(X.chunks[0],)), X
    if v.ndim != 1:
        raise ValueError(f"{name} must be 1-D, got an array with {v.ndim} dimension(s).")
    if _unknown(X.chunks[0]) or _unknown(v.chunks[0]):
        if v.numblocks[0] == X.numblocks[0]:
            # DataFrame partitions of unknown length: blocks pair by position,
            # and each task checks that its blocks have the same length.
            return v, X
        X, v = known_rows(X), known_rows(v)
    if v.shape[0] != X.shape[0]:
        raise ValueError(f"{name} has {v.shape[0]} rows but X has {X.shape[0]}.")
    if v.chunks[0] != X.chunks[0]:
        v = v.rechunk((X.chunks[0],))
    return v, X


def aligned(X: Any, y: Any = None, sample_weight: Any = None, n_features: int | None = None) -> tuple[Any, Any, Any]:
    """``(X, y, w)`` as dask arrays whose blocks pair up (``y``/``w`` may be None).

    Learning the lengths of ``X``'s blocks never changes the blocks, so a
    vector aligned earlier stays aligned.
    """
    X = as_matrix(X, n_features)
    out = []
    for v, name in ((y, "y"), (sample_weight, "sample_weight")):
        if v is not None:
            v, X = as_vector(v, X, name)
        out.append(v)
    return X, out[0], out[1]


def row_blocks(X: Any, y: Any = None, w: Any = None) -> list[tuple[Any, Any, Any]]:
    """Delayed blocks ``[(X_b, y_b, w_b), ...]`` (``None`` where not given)."""
    xs = X.to_delayed().ravel()
    ys = y.to_delayed().ravel() if y is not None else [None] * len(xs)
    ws = w.to_delayed().ravel() if w is not None else [None] * len(xs)
    return list(zip(xs, ys, ws))


def row_offsets(X: Any) -> np.ndarray:
    """First global row of every row block (needs known chunk lengths)."""
    lengths = np.asarray(X.chunks[0], dtype=np.int64)
    return np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
