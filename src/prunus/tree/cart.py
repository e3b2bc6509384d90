"""CART growth (Breiman et al.'s T_max and its shallower variants) by prunus's
own float64 builder.

The rows are sorted once per feature when a :class:`CARTGrower` is made; every
growth, e.g. one per cross-validation fold, reuses that order restricted to
its rows (rows of weight 0 are absent), so K-fold cross-validation costs K + 1
growths and no further sort, and X is never copied per fold.
"""

import math
import time
from collections import namedtuple
from numbers import Integral, Real
from typing import Any, Literal, overload

import numpy as np
from numpy.typing import ArrayLike
from sklearn.utils import check_random_state

from .._compiled import njit
from ..utils import _memory
from ..utils._memory import mapped_empty
from ..utils._param_validation import Interval, RealNotInt, StrOptions, validate_params
from . import _surrogate
from ._criterion import CRITERIA, REGRESSION_CRITERIA, criterion_code
from ._encoding import fit_encoding
from ._grower import SORT_COST, grow_best_first, grow_depth_first
from ._level_split import CATEGORICAL_TABLE, MAX_CODED_LEVELS, PRESORTED, level_codes
from ._preparation import first_bad_level_column, presorted_order, rows_with_missing
from ._regression_grower import grow_squared_error, grow_squared_error_into, node_capacity
from ._splitter import SCAN_BLOCK, GrowthData, Settings, Workspace, carried_keys, carries_keys, search_scratch_size
from ._surrogate import empty_store, flat_surrogates, node_surrogates, surrogate_side
from ._tree import MAX_CATEGORIES, Tree, _check_weight, check_target, check_X_missing

GrowthParams = namedtuple(
    "GrowthParams",
    "criterion max_depth min_samples_split min_samples_leaf min_impurity_decrease max_features max_leaf_nodes "
    "splitter max_surrogates",
    defaults=("best", 0),
)
GrowthParams.__doc__ = (
    "Hyper-parameters of one CART growth, as given by the user (validated by :func:`check_growth_params`); "
    "``splitter`` is ``'best'`` (every threshold of every searched feature) or ``'random'`` (one threshold "
    "drawn per searched feature, as in extremely randomized trees); ``max_surrogates`` > 0 keeps that many "
    "surrogate splits per split when the rows grown on have a missing value, and sends the rows missing a "
    "split's feature by them (0: by the learned side)."
)
SPLITTERS = ("best", "random")


#: Accepted values of every field of :class:`GrowthParams` (the vocabulary of the estimators' constraints).
GROWTH_CONSTRAINTS = {
    "criterion": [StrOptions(set(CRITERIA))],
    "max_depth": [Interval(Integral, 1, None, closed="left"), None],
    "min_samples_split": [Interval(Integral, 2, None, closed="left"), Interval(RealNotInt, 0.0, 1.0, closed="right")],
    "min_samples_leaf": [Interval(Integral, 1, None, closed="left"), Interval(RealNotInt, 0.0, 1.0, closed="neither")],
    "min_impurity_decrease": [Interval(Real, 0.0, math.inf, closed="left")],
    "max_features": [
        StrOptions({"sqrt", "log2"}),
        Interval(Integral, 1, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="right"),
        None,
    ],
    "max_leaf_nodes": [Interval(Integral, 2, None, closed="left"), None],
    "splitter": [StrOptions(set(SPLITTERS))],
    "max_surrogates": [Interval(Integral, 0, None, closed="left")],
}


def check_growth_params(params: GrowthParams) -> GrowthParams:
    """Validate :class:`GrowthParams` against :data:`GROWTH_CONSTRAINTS`; every error names its argument.

    Parameters
    ----------
    params : GrowthParams
        The hyper-parameters of one growth.

    Returns
    -------
    params : GrowthParams
        ``params`` itself, once valid.
    """
    # Each value with its type (1, 1.0 and True are equal keys, not equal parameters).
    key: tuple | None = tuple((type(value), value) for value in params)
    try:
        known = key in _VALID_GROWTH_PARAMS
    except TypeError:  # an unhashable value: validated (and refused) below
        key, known = None, False
    if not known:
        validate_params(GROWTH_CONSTRAINTS, params._asdict(), "grow_cart")
        if key is not None and len(_VALID_GROWTH_PARAMS) < 1024:
            _VALID_GROWTH_PARAMS.add(key)
    return params


#: Parameter sets that passed :func:`check_growth_params` (an estimator's
#: fit checks its growth's once per routing rule; the checks cost more than
#: a small table's tree). Bounded: beyond 1,024 sets, new ones are checked every time.
_VALID_GROWTH_PARAMS: set[tuple] = set()


def _settings(params, n_rows, n_features, n_classes, seed):
    """Numbers for the kernels: fractions resolved against the growth's rows."""

    def count(value, low):
        if isinstance(value, Integral):
            return int(value)
        return max(low, int(math.ceil(value * n_rows)))

    mf = params.max_features
    if mf is None:
        max_features = n_features
    elif mf == "sqrt":
        max_features = max(1, int(math.sqrt(n_features)))
    elif mf == "log2":
        max_features = max(1, int(math.log2(n_features)))
    elif isinstance(mf, Integral):
        max_features = min(int(mf), n_features)
    else:
        max_features = max(1, int(mf * n_features))
    return Settings(
        criterion=criterion_code(params.criterion),
        max_depth=-1 if params.max_depth is None else int(params.max_depth),
        min_samples_split=count(params.min_samples_split, 2),
        min_samples_leaf=count(params.min_samples_leaf, 1),
        min_impurity_decrease=float(params.min_impurity_decrease),
        max_features=max_features,
        max_leaf_nodes=-1 if params.max_leaf_nodes is None else int(params.max_leaf_nodes),
        n_classes=int(n_classes),
        seed=int(seed),
        random_thresholds=params.splitter == "random",
        sort_cost=SORT_COST,
    )


#: Most distinct values of a numeric feature searched from per-node tables
#: of class weights per value rather than from its presorted order (see
#: ``_level_split``; at most 254), in classification trees that search
#: every feature at every node. Categorical features are always searched
#: from tables there. -1 searches every feature from its presorted order.
#: Growing full trees on 20,000 rows of 20 features of L values (2 and 5
#: classes), the tables were 1.4-2.4x faster than the presorted search up to
#: L = 64 and 0.8-1.2x at L = 128 and 255
#: (``benchmarks/bench_categorical.py --table-levels``).
MAX_TABLE_LEVELS = 64

#: Rows from which a growth with surrogate splits searches its categorical
#: features from tables (:meth:`CARTGrower._level_tables`): on rpart's example
#: tables (45-110 rows) they cost 1-6% more per cross-validated fit than the
#: presorted search, at 200 rows as much, and from 500 rows they save 8-14%.
SURROGATE_TABLES_FROM_ROWS = 200


@njit(cache=True, nogil=True)
def _workspace_arrays(order, weight, n_classes, n_words, unsorted, n_cells=0):
    """The presorted order restricted to the rows of positive weight, for
    one growth (the global order is left untouched); ``n_words`` int64
    words hold a subset of the levels of the largest categorical feature.
    The features flagged in ``unsorted`` (searched from tables, see
    ``_level_split``) get no order but feature 0's, read for the root's
    class weights; ``n_cells`` cells of their tables."""
    d, n = order.shape
    m = 0
    for i in range(n):
        m += weight[i] > 0.0
    return _workspace_into(np.empty((d, m), dtype=np.int32), order, weight, n_classes, n_words, unsorted, n_cells)


@njit(cache=True, nogil=True)
def _workspace_into(index, order, weight, n_classes, n_words, unsorted, n_cells):
    """:func:`_workspace_arrays` with the restricted order written into
    ``index`` (int32, (n_features, rows of positive weight)), an array of the
    caller's (e.g. on its own memory map)."""
    d, n = order.shape
    m = index.shape[1]
    node_rows = np.empty(m, dtype=np.int32)
    k = 0
    for row in range(n):
        if weight[row] > 0.0:
            node_rows[k] = row
            k += 1
    for f in range(d):
        if f > 0 and unsorted.shape[0] > 0 and unsorted[f]:
            continue
        # Branch-free: whether a row is in the growth is unpredictable, so
        # every row is written at the cursor and only kept ones advance it.
        k = 0
        for i in range(n):
            row = order[f, i]
            if k < m:
                index[f, k] = row
            k += weight[row] > 0.0
    return (
        index,
        np.empty(m, dtype=np.int32),
        np.zeros(n, dtype=np.bool_),
        np.zeros(n_classes),
        np.zeros(n_classes),
        np.zeros(n_classes),
        node_rows,
        np.zeros(n_words, dtype=np.int64),
        np.zeros(n_cells * n_classes),
        np.zeros(n_cells, dtype=np.int64),
        np.empty(search_scratch_size(n_words, n_classes)),
    )


def _table_features(levels):
    """(features searched from tables rather than an order, their cells) of the level tables ``levels``."""
    if levels is None:
        return np.zeros(0, dtype=np.bool_), 0
    return levels[0] != PRESORTED, int(levels[4][-1])


#: What many growths of one grower with the same settings share (see
#: :meth:`CARTGrower.shared_growth`): ``plain`` and ``tables`` are the
#: ``GrowthData`` of a growth without and with the level tables (one record
#: when there are none), whose weights each growth replaces; ``unsorted``
#: and ``n_cells`` the tables' features without an order and their cells;
#: ``n_words`` int64 words of a level bitset; ``store_flags`` the
#: ``SurrogateStore.majority_last`` switches of a growth with surrogates and
#: ``no_store`` the store of one without; ``rows_with_missing`` the rows
#: missing a value (a growth on none of them finds no surrogates);
#: ``surrogate_tables`` the (``tables``, ``unsorted``, ``n_cells``) of a
#: growth with surrogates, whose tables hold only the categorical features.
SharedGrowth = namedtuple(
    "SharedGrowth", "plain tables unsorted n_cells n_words store_flags no_store rows_with_missing surrogate_tables"
)


#: Rows below which a regression may grow in the lean kernel, whose node
#: arrays are int32 (a tree of n rows has up to 2 n - 1 nodes).
_LEAN_ROWS_BELOW = 2**30

#: Statistics per node of a regression growth: weight, mean, within sum of squares.
N_MOMENTS = 3


def check_level_codes(X: np.ndarray, n_categories: ArrayLike | None) -> np.ndarray:
    """``n_categories`` checked against X (errors name ``n_categories``).

    A categorical column holds level codes, integers in ``0 .. L - 1`` or NaN.

    Parameters
    ----------
    X : ndarray of float64, shape (n_samples, n_features)
        Checked features.
    n_categories : array-like of int, shape (n_features,), or None
        Levels of every feature (0 for a numeric one); None: all numeric.

    Returns
    -------
    n_categories : ndarray of int64, shape (n_features,)
        One count per column of X (zeros when None).
    """
    d = X.shape[1]
    if n_categories is None:
        return np.zeros(d, dtype=np.int64)
    n_cat = np.asarray(n_categories)
    if n_cat.shape != (d,) or (n_cat.size and n_cat.dtype.kind not in "iu"):
        raise ValueError(f"n_categories must hold one integer per feature ({d}), got {n_categories!r}.")
    n_cat = n_cat.astype(np.int64)
    if n_cat.size and (n_cat.min() < 0 or n_cat.max() > MAX_CATEGORIES):
        raise ValueError(f"n_categories must lie in 0 .. {MAX_CATEGORIES} (0: numeric), got {n_cat.tolist()}.")
    f = first_bad_level_column(np.ascontiguousarray(X), n_cat) if n_cat.any() else -1
    if f >= 0:
        raise ValueError(
            f"feature {f} is categorical with n_categories={n_cat[f]}, so its values must be the level "
            f"codes 0 .. {n_cat[f] - 1} or NaN."
        )
    return n_cat


def encode_labels(y: ArrayLike, n_rows: int, n_classes: int | None = None) -> tuple[np.ndarray, int]:
    """Class codes 0..K-1 of ``y`` and K.

    Non-negative integers are their own codes (so a fold missing a class keeps
    the global numbering); other labels are coded in sorted order.

    Parameters
    ----------
    y : array-like of shape (n_rows,)
        Class labels.
    n_rows : int
        Rows of X.
    n_classes : int, optional
        Number of classes K (default: as many as ``y`` needs).

    Returns
    -------
    codes : ndarray of int64, shape (n_rows,)
        The class code of every row.
    n_classes : int
        K (at least 1).
    """
    y = np.asarray(y)
    if y.ndim != 1 or y.shape[0] != n_rows:
        raise ValueError(f"y must be a 1-D array of {n_rows} labels, got shape {y.shape}.")
    if y.dtype.kind == "f" and not np.isfinite(y).all():
        raise ValueError("y contains NaN or infinity; class labels must be finite (NaN is not a class).")
    if y.dtype.kind in "iub" and (y.size == 0 or y.min() >= 0):
        codes = y.astype(np.int64)
        k = int(codes.max()) + 1 if codes.size else 0
    else:
        _, codes = np.unique(y, return_inverse=True)
        codes = codes.astype(np.int64).ravel()
        k = int(codes.max()) + 1 if codes.size else 0
    if n_classes is not None:
        if k > n_classes:
            raise ValueError(f"y holds {k} classes but n_classes={n_classes}.")
        k = int(n_classes)
    return codes, max(k, 1)


def _lean_nodes(n_rows):
    """Node arrays for :func:`grow_squared_error_into` growing on ``n_rows``
    rows, each on its own map when large (see ``mapped_empty``): a tree
    grown to single-row leaves has about twice as many nodes as rows, so
    they are a growth's largest arrays with its restricted order; the
    reserved nodes never made are never resident."""
    capacity = node_capacity(n_rows)
    return (
        mapped_empty(capacity, np.int32),
        mapped_empty(capacity, np.int32),
        mapped_empty(capacity, np.int32),
        mapped_empty(capacity),
        mapped_empty(capacity, np.bool_),
        mapped_empty((capacity, 3)),
        np.empty((capacity, 0), dtype=np.int64),
    )


def _grow_lean(data, work, settings, store, n_rows):
    """The lean least-squares growth on ``n_rows`` rows: into node arrays on
    maps of their own (:func:`_lean_nodes`) when the largest of them (the
    moments, 24 bytes a node) would be mapped; else into arrays the kernel
    allocates (on a table of a few dozen rows, allocating the seven arrays
    in Python cost a third of the growth)."""
    if node_capacity(n_rows) * 24 < _memory.MAPPED_FROM_BYTES:
        return grow_squared_error(data, work, settings, store)
    return grow_squared_error_into(data, work, settings, store, _lean_nodes(n_rows))


class CARTGrower:
    """Rows presorted once, for many CART growths on subsets of them.

    Parameters
    ----------
    X : array-like, shape (n_samples, n_features)
        Missing values are NaN; infinity is an error.
    y : array-like, shape (n_samples,)
        Labels (non-negative integers are used as class codes), or with
        ``regression`` the finite real target.
    n_classes : int, optional
        Number of classes of the counts (default: as many as ``y`` needs).
    regression : bool, default=False
        Grow regression trees (criterion ``"squared_error"``); the statistics
        of a node are then its weight, mean and within sum of squares.
    n_categories : array-like of int, shape (n_features,), optional
        Number of levels of each categorical feature (0 for a numeric one),
        whose column of X holds level codes ``0 .. L - 1`` (NaN missing):
        splits on it send a subset of levels left. Default: all numeric.

    Notes
    -----
    The order costs ``4 n d`` bytes (X is read in place when C-ordered, else
    copied once); each growth works on ``4 m d`` bytes for its ``m`` rows of
    positive weight.
    """

    def __init__(
        self,
        X: ArrayLike,
        y: ArrayLike,
        n_classes: int | None = None,
        *,
        regression: bool = False,
        n_categories: ArrayLike | None = None,
    ) -> None:
        self.X = check_X_missing(X)
        self.n_categories = check_level_codes(self.X, n_categories)
        self.regression = bool(regression)
        if self.regression:
            if n_classes is not None:
                raise ValueError("n_classes is for classification; a regression grower takes none.")
            self.y = check_target(y, self.X.shape[0])
            self.n_classes = N_MOMENTS
            self._codes = np.empty(0, dtype=np.int32)
            self._target = self.y
        else:
            self.y, self.n_classes = encode_labels(y, self.X.shape[0], n_classes)
            # The kernels read one class code per row scanned: int32 halves
            # their cache footprint.
            self._codes = self.y.astype(np.int32)
            self._target = np.empty(0)
        self.order = presorted_order(self.X, self.n_categories)
        #: CPU seconds of the last growth (:meth:`grow_arrays`), none before one.
        self.growth_seconds: float | None = None
        self._rows_with_missing = rows_with_missing(self.X)
        # The splitter reads a feature's values by row id, ``columns[f, row]``:
        # a view of X by rows (no copy of a C-ordered X; a Fortran-ordered one
        # is copied once, so that every growth compiles for one layout). Read
        # in place it grew as fast as from a copy by columns (200k and 1M rows
        # of 20 features: the rows of a deep node share cache lines).
        self._columns = np.ascontiguousarray(self.X).T
        # The arrays of GrowthData's level tables (or None) per largest number of levels of a numeric
        # feature's slot (-1: categorical features only), computed at the first growth that uses them.
        self._levels: dict[int, tuple[np.ndarray, ...] | None] = {}
        # What every growth of this grower shares (a fold's Python work
        # outweighs its growth on small tables): the kernels' settings per
        # (params, rows, seed), and the store of a growth without surrogates.
        self._settings_of: dict[tuple, Settings] = {}
        self._no_store = empty_store()
        # shared_growth's records per what their level tables depend on.
        self._shared_of: dict[tuple, SharedGrowth] = {}
        # int64 words of a level bitset of the largest categorical feature.
        self._n_words = -(-int(self.n_categories.max(initial=0)) // 64)

    def _level_tables(self, settings: Settings, categorical_only: bool = False) -> tuple[np.ndarray, ...] | None:
        """The arrays of ``GrowthData`` that search few-level and categorical
        features from per-node tables (:data:`MAX_TABLE_LEVELS`), computed
        once per grower; None where every feature is searched presorted: for
        a regression, a draw of features per node or random thresholds
        (their trees keep the lists of features of the presorted search).

        With ``categorical_only`` (a growth with surrogate splits), only the
        categorical features of at most :data:`MAX_CODED_LEVELS` levels get
        tables, from :data:`SURROGATE_TABLES_FROM_ROWS` rows: the surrogate
        search reads a numeric feature's presorted segment, and a
        categorical one's levels from the node's rows."""
        if (
            self.regression
            or MAX_TABLE_LEVELS < 0
            or settings.max_features < self.n_features
            or settings.random_thresholds
            or (categorical_only and self.X.shape[0] < SURROGATE_TABLES_FROM_ROWS)
        ):
            return None
        max_levels = -1 if categorical_only else min(MAX_TABLE_LEVELS, MAX_CODED_LEVELS)
        if max_levels not in self._levels:
            slot, codes, values, n_levels = level_codes(self._columns, self.order, self.n_categories, max_levels)
            if categorical_only:
                slot[slot == CATEGORICAL_TABLE] = PRESORTED
            tables = None
            if not np.all(slot == PRESORTED):
                offset = np.concatenate(([0], np.cumsum(n_levels + 1))).astype(np.int64)
                tables = (slot, codes, values, n_levels, offset)
            self._levels[max_levels] = tables
        return self._levels[max_levels]

    @property
    def n_features(self) -> int:
        """Columns of X."""
        return self.X.shape[1]

    def growth_settings(self, params: GrowthParams, n_rows: int, seed: int, present_only: bool = False) -> Settings:
        """The kernels' ``Settings`` of a growth on ``n_rows`` rows (fractions
        resolved against them), kept per grower: a fold's Python work
        outweighs its growth on small tables.

        Parameters
        ----------
        params : GrowthParams
        n_rows : int
            Rows of positive weight grown on.
        seed : int
            Seed of the feature draws and random thresholds.
        present_only : bool, default=False
            Whether candidates are scored on the rows where their feature is
            present (a growth with surrogate splits).

        Returns
        -------
        Settings
        """
        key = (params, n_rows, seed, present_only)
        settings = self._settings_of.get(key)
        if settings is None:
            settings = _settings(params, n_rows, self.n_features, self.n_classes, seed)._replace(
                present_only=present_only
            )
            if len(self._settings_of) < 64:
                self._settings_of[key] = settings
        return settings

    def _growth_data(self, weight, unit_weight, integer_weight, levels):
        """The ``GrowthData`` of a growth on ``weight``, with the level tables ``levels`` (or none)."""
        data = GrowthData(self._columns, self._codes, weight, unit_weight, self._target, self.n_categories)
        if levels is None:
            return data
        return data._replace(
            level_slot=levels[0],
            level_codes=levels[1],
            level_values=levels[2],
            n_levels=levels[3],
            level_offset=levels[4],
            integer_weight=integer_weight,
        )

    def shared_growth(self, settings: Settings) -> SharedGrowth:
        """What the growths of this grower with ``settings`` (but their rows)
        share, for a kernel that runs many of them (see
        :data:`SharedGrowth`); their weights must be integers.

        Parameters
        ----------
        settings : Settings
            The growths' settings (e.g. :meth:`growth_settings`).

        Returns
        -------
        SharedGrowth
        """
        # The surrogate module's switches, read at each call as _surrogate_store reads them at each growth.
        switches = np.array([_surrogate.MAJORITY_LAST_RESORT, _surrogate.CHOOSE_BY_FIT])
        # What _level_tables reads (the module's constants too: tests and measurements flip them).
        key = (settings.max_features, settings.random_thresholds, MAX_TABLE_LEVELS, SURROGATE_TABLES_FROM_ROWS)
        shared = self._shared_of.get(key)
        if shared is None:
            unit = np.ones(self.X.shape[0])  # a placeholder: each growth puts in its own weights
            plain = self._growth_data(unit, True, False, None)

            def with_tables(categorical_only):
                levels = self._level_tables(settings, categorical_only)
                data = plain if levels is None else self._growth_data(unit, True, True, levels)
                return (data, *_table_features(levels))

            tables, unsorted, n_cells = with_tables(False)
            shared = SharedGrowth(
                plain,
                tables,
                unsorted,
                n_cells,
                self._n_words,
                switches,
                self._no_store,
                self._rows_with_missing,
                # Only where some row misses a value are there growths with surrogates.
                with_tables(True) if self._rows_with_missing.shape[0] > 0 else (tables, unsorted, n_cells),
            )
            self._shared_of[key] = shared
        return shared._replace(store_flags=switches)

    def grow_arrays(self, params: GrowthParams, weight: ArrayLike, seed: int = 0) -> tuple[Any, ...]:
        """The node arrays of :meth:`grow` before they become a :class:`Tree`:
        (children_left, children_right, feature, threshold, missing_go_to_left,
        counts, category bits as int64 words, surrogate splits or None); the
        leaves' feature and threshold are placeholders.

        Parameters
        ----------
        params : GrowthParams
        weight : ndarray of float64, shape (n_samples,)
            Non-negative sample weights; a fold is the rows it weighs.
        seed : int
            Seed of the feature draws (``max_features``) and of the random thresholds.

        Returns
        -------
        tuple of ndarray
        """
        if (params.criterion in REGRESSION_CRITERIA) != self.regression:
            task = "a regression" if self.regression else "a classification"
            raise ValueError(f"criterion={params.criterion!r} cannot grow {task} tree.")
        weight = np.ascontiguousarray(weight, dtype=np.float64)
        n_words = self._n_words
        n_rows = int(np.count_nonzero(weight > 0.0))
        if n_rows == 0:
            raise ValueError("sample_weight is zero for every row: there is nothing to grow a tree on.")
        store = self._surrogate_store(params, weight, n_rows, n_words)
        # With surrogates, a feature's candidates are scored on the rows where it is present (rpart).
        present_only = store.n_found.shape[0] > 0
        settings = self.growth_settings(params, n_rows, seed, present_only)
        unit_weight = bool(np.all((weight == 0.0) | (weight == 1.0)))
        integer = unit_weight or bool(np.all(weight == np.floor(weight)) and weight.sum() < 2.0**52)
        # A growth with surrogates searches only categorical features from tables, and only on integer
        # weights (their class weights add up exactly in the node's row order as in a feature's order).
        if not present_only:
            levels = self._level_tables(settings)
        else:
            levels = self._level_tables(settings, categorical_only=True) if integer else None
        unsorted, n_cells = _table_features(levels)
        # The restricted order (half of X's bytes at 20 features) on a map of
        # its own (see mapped_empty); a regression's scan scratch, four
        # floats per row of a block of rows.
        index = mapped_empty((self.order.shape[0], n_rows), np.int32)
        arrays = _workspace_into(index, self.order, weight, self.n_classes, n_words, unsorted, n_cells)
        del index
        if self.regression:
            scan = np.empty((4, min(n_rows, SCAN_BLOCK) + 1))
        elif carries_keys(n_rows, self.n_classes, self.order.shape[0], unsorted):
            scan = carried_keys(self._columns, self._codes, arrays[0], unsorted)
        else:
            scan = np.empty((0, 0))
        work = Workspace._make((*arrays, scan))
        # Integer weights let a growth with tables subtract them, and a classification with
        # surrogates search a categorical feature's subsets with bounds (the same split; see
        # _categorical_split._allocation_free).
        integer_weight = (levels is not None or (present_only and not self.regression)) and integer
        data = self._growth_data(weight, unit_weight, integer_weight, levels)
        start = time.thread_time()
        if self._grows_lean(settings, levels):
            grown = _grow_lean(data, work, settings, store, n_rows)
        else:
            grow = grow_depth_first if settings.max_leaf_nodes < 0 else grow_best_first
            grown = grow(data, work, settings, store)
        del work, arrays, scan
        self.growth_seconds = time.thread_time() - start
        left, right, feature, threshold, missing_left, counts, bits = grown
        surrogates = None
        if store.n_found.shape[0] > 0:
            surrogates = flat_surrogates(store, left.shape[0], left == -1)
        return left, right, feature, threshold, missing_left, counts, bits, surrogates

    def _grows_lean(self, settings, levels):
        """Whether :func:`~._regression_grower.grow_squared_error` grows this
        tree: depth-first least squares on numeric features, every feature
        and threshold searched, no level tables (the general kernel's tree,
        with none of its per-node branches), with or without surrogates. Not
        from 2^30 rows (its node ids are int32)."""
        return (
            self.regression
            and self.X.shape[0] < _LEAN_ROWS_BELOW
            and settings.max_leaf_nodes < 0
            and settings.max_features >= self.n_features
            and not settings.random_thresholds
            and levels is None
            and not self.n_categories.any()
        )

    def grow(self, params: GrowthParams, weight: ArrayLike, seed: int = 0) -> tuple[Tree, np.ndarray]:
        """Grow one tree on the rows of positive ``weight``.

        Parameters
        ----------
        params : GrowthParams
            Hyper-parameters of the growth (checked by :func:`check_growth_params`).
        weight : ndarray of float64, shape (n_samples,)
            Non-negative sample weights; a fold is the rows it weighs.
        seed : int
            Seed of the feature draws (``max_features``) and of the random thresholds.

        Returns
        -------
        tree : Tree
            The grown tree.
        counts : ndarray, shape (n_nodes, n_classes)
            Summed weights of each class at each node; for a regression,
            shape (n_nodes, 3): the weight, mean and within sum of squares of
            y at each node (as :meth:`Tree.node_moments`).
        """
        left, right, feature, threshold, missing_left, counts, bits, surrogates = self.grow_arrays(params, weight, seed)
        # The builders' arrays are valid trees: made canonical, not checked again.
        tree = Tree._of_valid_nodes(
            left, right, feature, threshold, self.n_features, missing_left, self.n_categories, bits, surrogates
        )
        return tree, counts

    def _surrogate_store(self, params, weight, n_rows, n_words):
        """Surrogate tables for a growth: only when asked for and some row of
        positive weight misses a value (complete data grows as fast as without)."""
        k = int(params.max_surrogates)
        if not self.finds_surrogates(params, weight):
            return self._no_store  # no node to write: shared by every growth
        # The module's switches, read at each growth (the user guide's measurements flip them).
        return empty_store(
            self.X.shape[0], 2 * n_rows + 1, k, n_words, _surrogate.MAJORITY_LAST_RESORT, _surrogate.CHOOSE_BY_FIT
        )

    def finds_surrogates(self, params: GrowthParams, weight: np.ndarray) -> bool:
        """Whether a growth on ``weight`` finds surrogate splits: when they are
        asked for and some row of positive weight misses a value.

        Parameters
        ----------
        params : GrowthParams
        weight : ndarray of float64, shape (n_samples,)

        Returns
        -------
        bool
        """
        return int(params.max_surrogates) > 0 and self._has_missing(weight)

    def _has_missing(self, weight):
        rows = self._rows_with_missing
        return rows.shape[0] > 0 and bool(np.any(weight[rows] > 0.0))


@overload
def grow_cart(
    X: ArrayLike,
    y: ArrayLike,
    criterion: str = "gini",
    max_depth: int | None = None,
    min_samples_leaf: int | float = 1,
    sample_weight: ArrayLike | None = None,
    random_state: int | np.random.RandomState | None = None,
    *,
    min_samples_split: int | float = 2,
    min_impurity_decrease: float = 0.0,
    max_leaf_nodes: int | None = None,
    max_features: int | float | str | None = None,
    n_classes: int | None = None,
    return_counts: Literal[False] = ...,
    categorical_features: str | ArrayLike | None = ...,
    max_surrogates: int = ...,
) -> Tree: ...


@overload
def grow_cart(
    X: ArrayLike,
    y: ArrayLike,
    criterion: str = "gini",
    max_depth: int | None = None,
    min_samples_leaf: int | float = 1,
    sample_weight: ArrayLike | None = None,
    random_state: int | np.random.RandomState | None = None,
    *,
    min_samples_split: int | float = 2,
    min_impurity_decrease: float = 0.0,
    max_leaf_nodes: int | None = None,
    max_features: int | float | str | None = None,
    n_classes: int | None = None,
    return_counts: Literal[True],
    categorical_features: str | ArrayLike | None = ...,
    max_surrogates: int = ...,
) -> tuple[Tree, np.ndarray]: ...


def grow_cart(
    X: ArrayLike,
    y: ArrayLike,
    criterion: str = "gini",
    max_depth: int | None = None,
    min_samples_leaf: int | float = 1,
    sample_weight: ArrayLike | None = None,
    random_state: int | np.random.RandomState | None = None,
    *,
    min_samples_split: int | float = 2,
    min_impurity_decrease: float = 0.0,
    max_leaf_nodes: int | None = None,
    max_features: int | float | str | None = None,
    n_classes: int | None = None,
    return_counts: bool = False,
    categorical_features: str | ArrayLike | None = "from_dtype",
    max_surrogates: int = 0,
) -> Tree | tuple[Tree, np.ndarray]:
    """Grow a CART tree; by default the maximal tree T_max of section 2.3 of
    Gey, *Risk bounds for CART classifiers under a margin condition*.

    Splits maximise the impurity decrease (Breiman et al., *Classification and
    Regression Trees*); the tree is grown until its leaves are pure (one
    class, or for ``criterion="squared_error"`` one value of y) unless a
    stopping rule binds. Pruning is left to :mod:`prunus.pruning`.

    Every threshold lies between two consecutive distinct float64 values of
    its feature (``a <= t < b``, computed without overflow or rounding onto
    ``b``), so multiplying a feature by a power of two scales the thresholds
    and changes no prediction. Equal candidates go to the lowest feature, then
    the lowest threshold. Missing values (NaN) are data: each split sends them
    to the side with the better criterion (stored in
    ``Tree.missing_go_to_left``); when a node has none, to the side with more
    training rows.

    Parameters
    ----------
    X : array-like, shape (n_samples, n_features)
        float64 features; NaN marks a missing value, infinity is an error.
    y : array-like, shape (n_samples,)
        Labels; non-negative integers are taken as class codes. For
        ``criterion="squared_error"``, the finite real target.
    criterion : {"gini", "entropy", "log_loss", "misclassification", "squared_error"}
        ``"squared_error"`` grows a regression tree: least squares, each
        split's sums centred at its node's mean.
    max_depth : int or None
        Deepest leaf (the root has depth 0); None: no limit.
    min_samples_leaf : int or float
        Fewest rows in a leaf (a float is a fraction of the rows).
    sample_weight : array-like, shape (n_samples,), optional
        Non-negative finite weights; rows of weight 0 are ignored entirely.
    random_state : int, RandomState or None
        Seeds the features drawn per node when ``max_features`` is set.
    min_samples_split : int or float
        Fewest rows in a node that may be split.
    min_impurity_decrease : float
        A node is split only if its impurity decrease, weighted by its share
        of the total weight, is at least this (scikit-learn's convention).
    max_leaf_nodes : int or None
        Grow best first with at most this many leaves.
    max_features : int, float, "sqrt", "log2" or None
        Features drawn at random per node among which the split is searched
        (further ones are drawn while none of them can be split).
    n_classes : int, optional
        Number of classes of the counts (default: as many as ``y`` needs).
    return_counts : bool
        Also return the class weights per node (for a regression the
        weight, mean and within sum of squares per node).
    categorical_features : "from_dtype", None, array-like of int or str, or bool mask
        Categorical features, split by subsets of their levels (see
        :ref:`the user guide <cart-categorical>`). ``"from_dtype"``: the
        pandas ``category`` and string / object columns of a DataFrame;
        None: none. Indices, column names or a
        boolean mask select columns; a selected numeric column must hold
        level codes ``0 .. L - 1`` (NaN missing). The returned tree reads
        level codes: pandas' ``.cat.codes`` (NaN for -1) for a category
        column, the rank among the sorted distinct values for strings. The
        estimators (:class:`~prunus.CARTClassifier`) encode new data for you.
    max_surrogates : int >= 0, default=0
        With missing values in ``X``, keep up to this many surrogate splits
        per split (rpart's definition, see :ref:`the user guide
        <cart-missing>`) and send the rows missing a split's feature by them
        during growth, else to the split's majority side. 0: every missing
        value takes its split's learned side.

    Returns
    -------
    tree : Tree
        The grown tree.
    counts : ndarray, shape (n_nodes, n_classes) or (n_nodes, 3)
        Only with ``return_counts``; equal to ``tree.node_counts(X, y, sample_weight)``,
        for a regression to ``tree.node_moments(X, y, sample_weight)`` up to rounding.
    """
    params = check_growth_params(
        GrowthParams(
            criterion,
            max_depth,
            min_samples_split,
            min_samples_leaf,
            min_impurity_decrease,
            max_features,
            max_leaf_nodes,
            "best",
            max_surrogates,
        )
    )
    encoding, X = fit_encoding(X, categorical_features)
    n_categories = None if encoding is None else encoding.n_categories
    X = check_X_missing(X)
    if X.shape[0] == 0:
        raise ValueError("X has no rows: a tree needs at least one sample.")
    weight = _check_weight(sample_weight, X.shape[0])
    regression = criterion in REGRESSION_CRITERIA
    grower = CARTGrower(X, y, n_classes, regression=regression, n_categories=n_categories)
    seed = check_random_state(random_state).randint(np.iinfo(np.int32).max)
    tree, counts = grower.grow(params, weight, seed)
    return (tree, counts) if return_counts else tree


def add_surrogates(tree: Tree, X: ArrayLike, sample_weight: ArrayLike | None = None, max_surrogates: int = 5) -> Tree:
    """The tree with the surrogate splits of every split, found on a sample.

    The rows of ``X`` (of positive weight) are sent down ``tree`` from the
    root; at each split the surrogates are those of the rows reaching it
    (rpart's definition, see :ref:`the user guide <cart-missing>`), and rows
    missing the split's feature follow them, else ``missing_go_to_left``.
    On the sample a tree was grown on with surrogates this finds the same
    surrogates; on complete training data, where the estimators find none
    (so that they fit as fast as without), it adds them.

    Parameters
    ----------
    tree : Tree
        The tree whose splits get surrogates (its structure is kept).
    X : array-like, shape (n_samples, n_features)
        Missing values are NaN; categorical features hold level codes.
    sample_weight : array-like, shape (n_samples,), optional
        Row weights (default: ones); rows of weight 0 are left out.
    max_surrogates : int, default=5
        Most surrogate splits kept per split.

    Returns
    -------
    tree : Tree
        A new tree: ``tree``'s splits with these surrogates (any it had are replaced).
    """
    if isinstance(max_surrogates, bool) or not isinstance(max_surrogates, (int, np.integer)) or max_surrogates < 0:
        raise ValueError(f"max_surrogates must be an integer >= 0, got {max_surrogates!r}.")
    X = tree._check_X(X)
    weight = _check_weight(sample_weight, X.shape[0])
    columns = np.ascontiguousarray(X.T)
    n_cat = tree.n_categories
    n_words = -(-int(n_cat.max(initial=0)) // 64)
    store = empty_store(X.shape[0], tree.n_nodes, int(max_surrogates), n_words)
    side = store.side
    rows_at = {0: np.flatnonzero(weight > 0.0).astype(np.int32)}
    for node in range(tree.n_nodes):
        rows = rows_at.pop(node, np.zeros(0, dtype=np.int32))
        if tree.children_left[node] == -1:
            continue
        f = tree.feature[node]
        # The primary's side of each row: route one level with this node as a stump.
        go = _primary_sides(tree, node, X, rows)
        side[rows] = go
        node_surrogates(columns, n_cat, weight, rows, side, f, store, node)
        missing = rows[go == 0]
        for r in missing:
            s = 0
            for q in range(store.n_found[node]):
                g = store.feature[node, q]
                s = surrogate_side(
                    columns[g, r],
                    n_cat[g],
                    store.threshold[node, q],
                    store.left_below[node, q],
                    store.bits[node, q],
                    store.known[node, q],
                )
                if s != 0:
                    break
            side[r] = s if s != 0 else (1 if tree.missing_go_to_left[node] else -1)
        rows_at[tree.children_left[node]] = rows[side[rows] == 1]
        rows_at[tree.children_right[node]] = rows[side[rows] == -1]
    return Tree(
        tree.children_left,
        tree.children_right,
        tree.feature,
        tree.threshold,
        tree.n_features,
        missing_go_to_left=tree.missing_go_to_left,
        n_categories=tree.n_categories,
        category_bits=tree.category_bits,
        surrogates=flat_surrogates(store, tree.n_nodes, tree.is_leaf),
    )


def _primary_sides(tree, node, X, rows):
    """+1 / -1 of the rows by ``node``'s split, 0 where its feature is missing
    (or, at a categorical split, holds no level code)."""
    f = tree.feature[node]
    values = X[rows, f]
    if tree.is_categorical[node]:
        n_levels = tree.n_categories[f]
        code = np.where((values >= 0) & (values < n_levels) & (values == np.floor(values)), values, -1)
        code = np.nan_to_num(code, nan=-1).astype(np.int64)
        valid = code >= 0
        safe = np.maximum(code, 0)
        left = (tree.category_bits[node, safe >> 6] >> (safe & 63).astype(np.uint64)) & np.uint64(1)
        return np.where(valid, np.where(left == 1, 1, -1), 0).astype(np.int8)
    return np.where(np.isnan(values), 0, np.where(values <= tree.threshold[node], 1, -1)).astype(np.int8)
