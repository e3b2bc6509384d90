"""Categorical columns of a table turned into the level codes the CART builder reads.

The builder and :class:`~prunus.tree.Tree` see a float64 matrix in which a
categorical feature holds level codes ``0 .. L - 1`` (NaN missing) and a
record of the number of levels ``L`` of each feature (0 for a numeric one).
This module makes that matrix from what users hand over, remembering the
levels at fit so that the same codes are given at predict:

* a pandas ``category`` column: its categories, in their order, are the
  levels (the codes are pandas' ``.cat.codes``);
* a string / object column (of a DataFrame, or selected in a numpy array of
  strings or objects): the sorted distinct values seen at fit;
* a numeric column selected as categorical: its values must be non-negative
  integer codes (``L`` = largest code + 1), as for scikit-learn's
  ``HistGradientBoostingClassifier``.

At predict, a level not seen at fit becomes NaN, so that it follows the
missing values of every split it meets; a value of another kind than the
levels of fit (a number where the levels were strings, or the reverse) is
refused naming its column, since every such row would silently be read as
missing (R's ``predict`` refuses a column of another class the same way).
pandas is never imported: a DataFrame is recognised by its ``columns`` and
``dtypes``.
"""

from __future__ import annotations

from numbers import Number

import numpy as np

from ..utils._validation import is_dask_collection
from ._tree import MAX_CATEGORIES, check_X_missing

_STRING_KINDS = "OUS"


def is_dataframe(X) -> bool:
    """Duck-typed pandas (or pandas-like) DataFrame."""
    # Looked up on the class first: pandas' ``dtypes`` and ``iloc`` are
    # properties that build a Series or an indexer at each access, which
    # would cost more than a small table's tree.
    kind = type(X)
    return all(hasattr(kind, name) or hasattr(X, name) for name in _FRAME_ATTRIBUTES)


_FRAME_ATTRIBUTES = ("columns", "dtypes", "iloc")


def _columns(X, frame=None, labels=None):
    """(name, 1-D values or Series) of every column of a DataFrame or 2-D
    array (``frame``: whether X is a DataFrame, when known; ``labels``: the
    list of its column labels, when made already: iterating a pandas Index
    of strings costs microseconds each time)."""
    if is_dataframe(X) if frame is None else frame:
        columns = list(X.columns) if labels is None else labels
        if X.columns.is_unique and all(type(name) is str for name in columns):
            # By name: a fraction of the cost of ``iloc`` per column, the same Series.
            return [(name, X[name]) for name in columns]
        return [(name, X.iloc[:, j]) for j, name in enumerate(columns)]
    return [(j, X[:, j]) for j in range(X.shape[1])]


def _is_category(col) -> bool:
    return getattr(getattr(col, "dtype", None), "name", "") == "category"


def _text_dtype(dtype) -> bool:
    """Whether a column of this dtype may hold strings (object / string dtypes)."""
    kind = getattr(dtype, "kind", "O")
    return kind in _STRING_KINDS or getattr(dtype, "name", "") in ("string", "str")


#: pandas' nullable numeric dtypes (their missing value, NA, becomes NaN).
_NULLABLE_NUMERIC = frozenset(f"{base}{bits}" for base in ("Int", "UInt", "Float") for bits in (8, 16, 32, 64))


def _plain_numeric(dtype) -> bool:
    """A numpy integer / float dtype or a pandas nullable one: read as float64 as is."""
    if isinstance(dtype, np.dtype):
        return dtype.kind in "iuf"
    return getattr(dtype, "name", "") in _NULLABLE_NUMERIC


def _all_numeric(dtypes) -> bool:
    """Whether every dtype is :func:`_plain_numeric`."""
    return all(_plain_numeric(dtype) for dtype in dtypes)


def _is_text(col) -> bool:
    """An object / string column holding strings."""
    if not _text_dtype(getattr(col, "dtype", None)):
        return False
    values = np.asarray(col, dtype=object)
    missing = _missing(col, values)
    return any(isinstance(v, (str, bytes)) for v in values[~missing])


def _missing(col, values):
    """Missing cells of an object column: None, NaN, pandas' NA / NaT."""
    isna = getattr(col, "isna", None)
    if isna is not None:
        return np.asarray(isna(), dtype=bool)
    # A numpy column (e.g. a DataFrame's ``to_numpy()``) keeps pandas' NA and
    # NaT as objects: known by their type's name, pandas not being imported.
    return np.array(
        [v is None or (isinstance(v, float) and v != v) or type(v).__name__ in _PANDAS_MISSING for v in values],
        dtype=bool,
    )


_PANDAS_MISSING = frozenset({"NAType", "NaTType"})


def _selected(categorical_features, names, n_features, X, dtypes=None):
    """Boolean mask of the categorical columns (errors name ``categorical_features``);
    ``dtypes``: those of the DataFrame X, when known."""
    if categorical_features is None:
        return np.zeros(n_features, dtype=bool)
    if isinstance(categorical_features, str):
        if categorical_features != "from_dtype":
            raise ValueError(
                "categorical_features must be 'from_dtype', None, a list of column indices or names, "
                f"or a boolean mask; got {categorical_features!r}."
            )
        # From the dtypes first: a column (a pandas Series, costly on small
        # tables) is only read when its dtype may hold strings.
        return np.array(
            [
                getattr(dtype, "name", "") == "category" or (_text_dtype(dtype) and _is_text(X.iloc[:, j]))
                for j, dtype in enumerate(X.dtypes if dtypes is None else dtypes)
            ],
            dtype=bool,
        )
    spec = np.asarray(categorical_features)
    if spec.ndim != 1:
        raise ValueError(f"categorical_features must be 1-D, got shape {spec.shape}.")
    mask = np.zeros(n_features, dtype=bool)
    if spec.dtype == bool:
        if spec.shape[0] != n_features:
            raise ValueError(
                f"categorical_features as a boolean mask must have one entry per feature ({n_features}), "
                f"got {spec.shape[0]}."
            )
        return spec.copy()
    if spec.size == 0:
        return mask
    if spec.dtype.kind in "iu":
        if spec.min() < -n_features or spec.max() >= n_features:
            raise ValueError(f"categorical_features holds indices outside 0 .. {n_features - 1}: {spec.tolist()}.")
        mask[spec] = True
        return mask
    if spec.dtype.kind in "US" or spec.dtype == object:
        if names is None:
            raise ValueError("categorical_features names columns, but X has no column names (a pandas DataFrame has).")
        position = {str(n): j for j, n in enumerate(names)}
        for name in spec:
            if str(name) not in position:
                raise ValueError(f"categorical_features names a column {str(name)!r} that X does not have.")
            mask[position[str(name)]] = True
        return mask
    raise ValueError(f"categorical_features must hold column indices, names or booleans, got dtype {spec.dtype}.")


class FeatureEncoding:
    """Levels of the categorical columns of a table, remembered at fit.

    Attributes
    ----------
    categorical : ndarray of bool, shape (n_features,)
    n_categories : ndarray of int, shape (n_features,)
        ``L`` of each categorical feature, 0 for a numeric one (the record
        the builder and :class:`~prunus.tree.Tree` take).
    categories : list of (ndarray or None)
        The levels of each categorical feature, code order (None for a
        numeric one); for a numeric column of codes, ``0 .. L - 1``.
    feature_names : ndarray of str or None
    """

    def __init__(self, categorical, n_categories, categories, feature_names, kinds):
        self.categorical = categorical
        self.n_categories = n_categories
        self.categories = categories
        self.feature_names = feature_names
        self._kinds = kinds

    @property
    def any(self) -> bool:
        return bool(self.categorical.any())

    def transform(self, X) -> np.ndarray:
        """float64 matrix of codes (NaN missing or unseen) and numeric values."""
        X = _as_table(X)
        n = X.shape[0]
        cols = _columns(X)
        if len(cols) != self.categorical.shape[0]:
            raise ValueError(f"X has {len(cols)} features, but the model was fitted with {self.categorical.shape[0]}.")
        out = np.empty((n, len(cols)), dtype=np.float64)
        for j, (name, col) in enumerate(cols):
            if self.categorical[j]:
                out[:, j] = _codes(col, self.categories[j], self._kinds[j], name)
            else:
                out[:, j] = _numeric(col, name, fitted_as="numbers")
        return out


def _as_table(X):
    if is_dataframe(X):
        return X
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array, got an array with {X.ndim} dimension(s).")
    return X


def _numeric(col, name, fitted_as=None):
    """float64 values of a numeric column (NaN missing); ``fitted_as``: at
    predict, what the column held at fit (for the error of a column of text)."""
    values = _plain_numeric_values(col)
    if values is None:
        try:
            values = _as_float(col)
        except (TypeError, ValueError):
            if fitted_as is not None:
                raise ValueError(
                    f"column {name!r} of X holds values that are not numbers; it held {fitted_as} at fit."
                ) from None
            raise ValueError(
                f"column {name!r} of X is not numeric; list it in categorical_features to split it as categorical."
            ) from None
    # One NaN for every missing value: R's NA (a signalling NaN) would raise
    # "invalid value" floating-point warnings in every later sum.
    values[np.isnan(values)] = np.nan
    return values


def _as_float(col):
    """A new float64 array of a column's numbers, its missing cells (None,
    NaN, pandas' NA / NaT) NaN; a ``TypeError`` / ``ValueError`` when a
    present value is not a number (numbers written as text convert)."""
    if _is_category(col):
        col = np.asarray(col, dtype=object)
    try:
        return np.array(col, dtype=np.float64)
    except (TypeError, ValueError):
        # Perhaps only the missing cells (pandas' NA) refuse the conversion.
        values = np.asarray(col, dtype=object)
        missing = _missing(col, values)
        if not missing.any():
            raise
        out = np.full(values.shape[0], np.nan)
        out[~missing] = np.array(values[~missing], dtype=np.float64)
        return out


def _plain_numeric_values(col):
    """A pandas column of a :func:`_plain_numeric` dtype as a new float64
    array (NA as NaN), by its own conversion (half the cost of numpy's on a
    nullable column); None for anything else."""
    if not (_plain_numeric(getattr(col, "dtype", None)) and hasattr(col, "to_numpy")):
        return None
    try:
        return np.asarray(col.to_numpy(dtype=np.float64, na_value=np.nan, copy=True), dtype=np.float64)
    except (TypeError, ValueError):
        return None


def _integer_codes(values, name):
    """A numeric column of level codes: non-negative integers (NaN missing)."""
    present = values[~np.isnan(values)]
    if present.size and (present.min() < 0 or np.any(present != np.floor(present))):
        raise ValueError(
            f"categorical_features selects column {name!r}, whose values are not non-negative integer level "
            "codes; code its levels 0 .. L - 1 (NaN for missing) or pass it as strings / a pandas category."
        )
    return int(present.max()) + 1 if present.size else 0


def _fit_levels(col, name):
    """(kind, levels, codes) of a categorical column at fit."""
    if _is_category(col):
        # The Categorical itself: its levels and codes, without the ``.cat`` accessor's Series.
        values = getattr(col, "array", None)
        if values is None or not hasattr(values, "codes"):
            values = col.cat
        levels = np.asarray(values.categories, dtype=object)
        codes = np.asarray(values.codes, dtype=np.float64)
        codes[codes < 0] = np.nan
        return "category", levels, codes
    values = np.asarray(col)
    if values.dtype.kind in "biuf":
        values = values.astype(np.float64)
        n_levels = _integer_codes(values, name)
        return "codes", np.arange(n_levels), values
    values = np.asarray(col, dtype=object)
    missing = _missing(col, values)
    present = values[~missing]
    try:
        levels, inverse = np.unique(present, return_inverse=True)
    except TypeError:  # levels of several types (e.g. str and int): ordered by their text
        keys = np.array([f"{type(v).__name__}:{v}" for v in present], dtype=object)
        _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
        levels = present[first]
    codes = np.full(values.shape[0], np.nan)
    codes[~missing] = inverse.ravel()
    return "text", np.asarray(levels, dtype=object), codes


def _value_kind(value) -> str:
    """What a level is, for the check of the levels at predict against those of
    fit: "text", "bytes", "number" (bools and numpy scalars included, which
    compare equal to the numbers they hold), else the name of its type."""
    if isinstance(value, str):
        return "text"
    if isinstance(value, bytes):
        return "bytes"
    if isinstance(value, Number):
        return "number"
    return type(value).__name__


def _check_unseen_kinds(unseen, levels, name):
    """Refuse levels not seen at fit (``unseen``) that are of another kind
    than every level of fit, naming the column: "1" against 1 is a column
    read as another type (every row would follow the missing values), not a
    new level."""
    kinds = {_value_kind(level) for level in levels}
    if not kinds:
        return  # no level at fit: nothing to compare with
    checked = set()
    for value in unseen:
        if type(value) in checked:
            continue
        checked.add(type(value))
        kind = _value_kind(value)
        if kind not in kinds:
            fitted = " / ".join(sorted(kinds))
            raise ValueError(
                f"column {name!r} of X holds {kind} levels (e.g. {value!r}) but its levels at fit were {fitted} "
                f"(e.g. {levels[0]!r}): convert the column to the type it had at fit (its levels are in "
                "categories_). Levels of the same type not seen at fit go where missing values go."
            )


def _codes(col, levels, kind, name):
    """Codes of a column at predict under the levels of fit; unseen -> NaN
    (a level of another kind than those of fit: a ``ValueError`` naming the column)."""
    if kind == "codes":
        values = _numeric(col, name, fitted_as="integer level codes")
        bad = ~np.isnan(values) & ((values < 0) | (values >= levels.shape[0]) | (values != np.floor(values)))
        return np.where(bad, np.nan, values)
    lookup = {level: code for code, level in enumerate(levels)}
    if _is_category(col):
        # Map the column's own categories once, then its codes.
        own = np.asarray(col.cat.categories, dtype=object)
        mapping = np.array([lookup.get(level, np.nan) for level in own] + [np.nan], dtype=np.float64)
        codes = np.asarray(col.cat.codes, dtype=np.int64)
        if np.isnan(mapping[:-1]).any():
            # Only the categories that occur: an unused category is no value of the column.
            used = np.unique(codes[codes >= 0])
            _check_unseen_kinds(own[used[np.isnan(mapping[used])]], levels, name)
        return mapping[codes]  # code -1 (missing) reads the last entry
    values = np.asarray(col, dtype=object)
    missing = _missing(col, values)
    out = np.full(values.shape[0], np.nan)
    for i in np.flatnonzero(~missing):
        out[i] = lookup.get(values[i], np.nan)
    unseen = ~missing & np.isnan(out)
    if unseen.any():
        _check_unseen_kinds(values[unseen], levels, name)
    return out


def fit_encoding(X, categorical_features="from_dtype", dtypes=None):
    """The levels of ``X``'s categorical columns, and ``X`` as float64 codes.

    ``dtypes``: the list of a DataFrame ``X``'s dtypes when the caller has
    read them already (each read of ``X.dtypes`` builds a Series).

    Returns
    -------
    encoding : FeatureEncoding or None
        None when no column is categorical (then ``X`` is returned as it was,
        for the numeric path's own checks).
    X : ndarray of float64 or the input
    """
    if is_dask_collection(X):
        return None, X  # the estimators refuse it, naming their Dask counterpart
    if categorical_features is None:
        return None, X
    # Each attribute look-up on a DataFrame costs microseconds: asked once.
    frame = is_dataframe(X)
    from_dtype = isinstance(categorical_features, str) and categorical_features == "from_dtype"
    if not frame and hasattr(X, "tocsr"):  # sparse: numeric only
        if not from_dtype:
            raise ValueError("categorical_features needs dense X; sparse input is numeric only.")
        return None, X
    if from_dtype and not frame:
        return None, X  # dtypes are per column only in a DataFrame; numpy input selects its columns
    X = X if frame else _as_table(X)
    n_features = X.shape[1]
    if frame and dtypes is None:
        dtypes = list(X.dtypes)
    elif not frame:
        dtypes = None
    if from_dtype and dtypes is not None and all(_plain_numeric(dtype) for dtype in dtypes):
        return None, X
    labels = list(X.columns) if frame else None
    names = np.asarray([str(c) for c in labels], dtype=object) if labels is not None else None
    mask = _selected(categorical_features, names, n_features, X, dtypes)
    if not mask.any():
        return None, X
    n_categories = np.zeros(n_features, dtype=np.int64)
    categories = [None] * n_features
    kinds = [None] * n_features
    out = np.empty((X.shape[0], n_features), dtype=np.float64)
    for j, (name, col) in enumerate(_columns(X, frame, labels)):
        if not mask[j]:
            out[:, j] = _numeric(col, name)
            continue
        kinds[j], levels, out[:, j] = _fit_levels(col, name)
        if levels.shape[0] > MAX_CATEGORIES:
            raise ValueError(
                f"categorical_features: column {name!r} has {levels.shape[0]} levels; at most {MAX_CATEGORIES} "
                "are supported. Group its rare levels or leave it out of categorical_features."
            )
        categories[j] = levels
        # A column with no level at all is kept categorical with one level that never occurs.
        n_categories[j] = max(levels.shape[0], 1)
    return FeatureEncoding(mask, n_categories, categories, names, kinds), out


# ------------------------------------------------------------------ estimators
def refuse_text_columns(X, estimator_name, advice=None):
    """``X`` unchanged, once every column of a DataFrame (or of a numpy
    array of strings or objects) reads as numbers.

    For an estimator that splits numbers only: a column of labels (strings,
    a pandas ``category`` of strings) is refused naming the column, where the
    conversion to float64 would fail with only one of its values to show.
    Columns of numbers written as strings still convert, as scikit-learn's
    checks convert them. ``advice``: what the error says to do, after the
    column's name (by default: code it as numbers first).
    """
    if is_dask_collection(X):
        return X
    if advice is None:
        advice = (
            f"{estimator_name} splits numbers only: code its strings as numbers first (e.g. with scikit-learn's "
            "OrdinalEncoder)."
        )
    if not is_dataframe(X):
        dtype = getattr(X, "dtype", None)
        if isinstance(dtype, np.dtype) and dtype.kind in _STRING_KINDS and X.ndim == 2:
            _refuse_text(_columns(X, frame=False), advice)
        return X
    dtypes = list(X.dtypes)
    if _all_numeric(dtypes):
        return X
    _refuse_text(
        ((name, X.iloc[:, j]) for j, (name, dtype) in enumerate(zip(X.columns, dtypes)) if not _all_numeric([dtype])),
        advice,
    )
    return X


def _refuse_text(columns, advice):
    """Refuse the first of (name, column) holding strings that do not read as
    numbers, naming it. (Other objects, such as a dict, fail the usual checks
    with their ``TypeError``, as scikit-learn's do.)"""
    for name, col in columns:
        try:
            _as_float(col)
        except ValueError:
            raise ValueError(f"column {name!r} of X is not numeric; {advice}") from None
        except TypeError:
            return


def open_table(estimator, X):
    """``X`` with its categorical columns (``estimator.categorical_features``)
    coded as levels: the ``prepare_X`` step of an estimator's fit, run once
    its parameters and labels are checked.

    Sets ``estimator._encoding`` (None when no column is categorical: then
    ``X`` is returned untouched, and the usual checks see it, except that a
    DataFrame of numeric columns is handed over as its float64 matrix, its
    column names kept for :func:`close_table`: scikit-learn's checks of a
    DataFrame cost more than a small tree's whole fit). Call
    :func:`close_table` after those checks.
    """
    # A DataFrame's dtypes, read once (each read builds a Series).
    dtypes = list(X.dtypes) if not is_dask_collection(X) and is_dataframe(X) else None
    categorical = estimator.categorical_features
    if dtypes is not None and isinstance(categorical, str) and categorical == "from_dtype" and _all_numeric(dtypes):
        encoding, out = None, X  # what fit_encoding finds of a frame of numeric columns
    else:
        encoding, out = fit_encoding(X, categorical, dtypes)
    estimator._encoding = encoding
    estimator._numeric_table_names = None
    if encoding is None and is_dataframe(out):
        if dtypes is None or out is not X:
            dtypes = list(out.dtypes)
        if _all_numeric(dtypes):
            columns = list(out.columns)
            if all(type(name) is str for name in columns):
                names = np.asarray(columns, dtype=object)
            else:
                from sklearn.utils.validation import _get_feature_names

                # scikit-learn's rule (and error) for names of other types: None, or a TypeError.
                names = _get_feature_names(out)
            estimator._numeric_table_names = names
            out = out.to_numpy(dtype=np.float64, na_value=np.nan)
    if encoding is None:
        # A column of labels that categorical_features leaves out: named,
        # before the usual checks fail on one of its values.
        refuse_text_columns(out, type(estimator).__name__, advice=_UNSELECTED_TEXT)
    return out


#: What to do with a column of labels that ``categorical_features`` does not select.
_UNSELECTED_TEXT = (
    "categorical_features does not select it: list it there (or leave categorical_features='from_dtype', "
    "which selects every category and string column of a DataFrame) to split it by its levels, or code it "
    "as numbers."
)


#: Why a column of labels is refused at predict when every column of the fit was numeric.
_NUMERIC_AT_FIT = "it held numbers at fit."


def close_table(estimator, n_features):
    """After the usual checks (which forget fitted attributes and saw only
    codes): ``is_categorical_``, ``categories_`` and the column names of the
    DataFrame the estimator was fitted on."""
    encoding = getattr(estimator, "_encoding", None)
    if encoding is None:
        estimator.is_categorical_ = np.zeros(n_features, dtype=bool)
        estimator.categories_ = [None] * n_features
        names = getattr(estimator, "_numeric_table_names", None)
        if names is not None:
            estimator.feature_names_in_ = names
        return
    estimator.is_categorical_ = encoding.categorical.copy()
    estimator.categories_ = list(encoding.categories)
    if encoding.feature_names is not None:
        estimator.feature_names_in_ = encoding.feature_names.copy()


def n_categories_of(estimator):
    """The builder's record of levels per feature (None: every feature numeric)."""
    encoding = getattr(estimator, "_encoding", None)
    return None if encoding is None else encoding.n_categories


def predict_table(estimator, X, ensure_all_finite="allow-nan") -> np.ndarray:
    """``X`` at predict, float64: coded with the levels of fit (unseen levels
    NaN, the column names checked as scikit-learn does) when the estimator
    has a categorical feature, else checked by scikit-learn's
    ``validate_data`` against the fit (``ensure_all_finite`` as it takes it)."""
    encoding = getattr(estimator, "_encoding", None)
    if encoding is None:
        from sklearn.utils.validation import validate_data

        # A column of labels is named, as at fit, before the conversion fails on one of its values.
        X = refuse_text_columns(X, type(estimator).__name__, advice=_NUMERIC_AT_FIT)
        return validate_data(estimator, X, reset=False, dtype=np.float64, ensure_all_finite=ensure_all_finite)
    from sklearn.utils.validation import _check_feature_names

    _check_feature_names(estimator, X, reset=False)
    return check_X_missing(encoding.transform(X))
