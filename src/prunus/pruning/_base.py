"""What CARTClassifier and CARTRegressor share: the parameters of growth,
pruning and selection, and the fit from a presorted :class:`CARTGrower` (grow
T_max, prune it into Breiman's sequence, select one T_k by hold-out, CV, the
slope heuristic, a penalty or a given alpha), apply and decision_path."""

from __future__ import annotations

import copy
import numbers
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse
from sklearn.base import BaseEstimator
from sklearn.model_selection import KFold, StratifiedKFold
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted

from ..tree._encoding import predict_table
from ..tree.cart import GrowthParams, check_growth_params
from ..utils._cpus import usable_cpus
from ..utils._param_validation import CV_SPLITS, Integral, Interval, Real, RealNotInt, StrOptions
from ..utils._progress import progress_bar
from ..utils._random import seeded_random_state
from ..utils._validation import check_cv_pairs, refuse_dask
from . import selection as sel
from ._cp_table import CPTable, cp_table
from ._reselect import reselect

if TYPE_CHECKING:
    from sklearn.model_selection import BaseCrossValidator
    from typing_extensions import Self
from ._folds import AssignedFolds, fold_of_rows, folds_of
from ._sampled import fit_cart_sampled

METHODS = ("M1", "M2")
MISSING = ("auto", "surrogate", "learned")
SELECTIONS = ("holdout", "cv", "cv-1se", "slope", "penalty", "alpha")

#: Constraints of the parameters both estimators take (``criterion`` is each one's own).
SHARED_CONSTRAINTS = {
    "max_depth": [Interval(Integral, 1, None, closed="left"), None],
    "min_samples_split": [
        Interval(Integral, 2, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="right"),
    ],
    "min_samples_leaf": [
        Interval(Integral, 1, None, closed="left"),
        Interval(RealNotInt, 0.0, 1.0, closed="neither"),
    ],
    "method": [StrOptions(set(METHODS))],
    "selection": [StrOptions(set(SELECTIONS))],
    "test_size": [Interval(RealNotInt, 0.0, 1.0, closed="neither")],
    "cv": CV_SPLITS,
    "alpha": [Interval(Real, 0.0, None, closed="left"), None],
    "penalty_c": [Interval(Real, 0.0, None, closed="left"), None],
    "n_jobs": [Integral, None],
    "verbose": ["verbose"],
    "random_state": ["random_state"],
    "missing": [StrOptions(set(MISSING))],
    "max_surrogates": [Interval(Integral, 0, None, closed="left")],
    "grow_size": [Interval(Integral, 2, None, closed="left"), None],
}


class RuleFit(NamedTuple):
    """One fit of :meth:`BaseCART._grow_and_select` with one routing rule.

    Attributes
    ----------
    risk : float
        Estimated risk of the selected subtree T_k (CV or hold-out; 0 for
        the other selections, which estimate none).
    rule : {"surrogate", "learned"}
        The routing rule of missing values.
    path : CostComplexityPath
        The pruning path of T_max.
    k : int
        Index of the selected subtree in ``path``.
    prune_rows : ndarray of int
        Rows of the pruning sample.
    cv_results : dict or None
        The cross-validation's table (``cv_results_``).
    test_risk : ndarray or None
        The hold-out risk of every subtree (``test_risk_``).
    """

    risk: float
    rule: str
    path: Any
    k: int
    prune_rows: np.ndarray
    cv_results: dict[str, np.ndarray] | None
    test_risk: np.ndarray | None


def _first_draw(rng: np.random.RandomState) -> int:
    """A fit's first draw from its generator: the seed of the feature draws
    of every tree it grows."""
    return rng.randint(2**31 - 1)


class BaseCART(BaseEstimator):
    """Grow, prune and select; subclasses open the fit (check X, y and the
    weights, make the grower) and turn the selected tree into predictions."""

    #: Exponent parameter of the "penalty" shape (|T|/n)^(kappa / (2 kappa - 1)); 1 is linear.
    kappa = 1.0
    #: Whether ``n_jobs=None`` runs the folds of a large enough fit in threads on every core.
    _auto_threads = False
    #: Rows x features from which a fold's growth outweighs starting threads (measured on make_friedman1).
    _THREADS_FROM_CELLS = 20_000
    #: Bytes of X from which a cross-validated fit frees T_max and its path
    #: while the folds run, and grows it again after them (the same tree): its
    #: arrays, about 1.3 times X's bytes for a regression grown to single-row
    #: leaves, then are not resident beside the folds' own. The price is one
    #: growth more (1/(K+1) of the fit's growth work for K folds).
    _REGROW_FROM_BYTES = 2**24
    # A fold count, a splitter or the splits (``_parameter_constraints``); read by duck typing.
    cv: Any

    def __init__(
        self,
        *,
        criterion: str = "squared_error",
        selection: str = "holdout",
        method: str = "M2",
        cv: int | BaseCrossValidator | Iterable[Any] = 10,
        test_size: float = 0.1,
        alpha: float | None = None,
        penalty_c: float | None = None,
        max_depth: int | None = None,
        min_samples_split: int | float = 2,
        min_samples_leaf: int | float = 1,
        n_jobs: int | None = None,
        verbose: int = 0,
        random_state: int | np.random.RandomState | None = None,
        categorical_features: str | ArrayLike | None = "from_dtype",
        missing: str = "auto",
        max_surrogates: int = 5,
        grow_size: int | None = None,
    ) -> None:
        # Growth of T_max
        self.criterion = criterion
        self.max_depth = max_depth
        self.min_samples_split = min_samples_split
        self.min_samples_leaf = min_samples_leaf
        # Pruning and selection
        self.selection = selection
        self.method = method
        self.cv = cv
        self.test_size = test_size
        self.alpha = alpha
        self.penalty_c = penalty_c
        # Execution
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.random_state = random_state
        self.categorical_features = categorical_features
        self.missing = missing
        self.max_surrogates = max_surrogates
        self.grow_size = grow_size

    # ------------------------------------------------------------ checks
    def _check_params(self, n_samples):
        """Checks that involve the data or several parameters at once.

        Each parameter alone is checked by ``_parameter_constraints`` (through
        ``validate_fit``) before this runs.
        """
        n_learn = n_samples
        if self.selection == "holdout":
            n_test = int(np.ceil(self.test_size * n_samples))
            n_learn = n_samples - n_test
            if n_test < 1 or n_learn < 1:
                raise ValueError(
                    f"selection='holdout' with test_size={self.test_size} leaves {n_learn} learning and "
                    f"{n_test} test samples out of n_samples = {n_samples}; both need at least one sample."
                )
        if self.method == "M1" and n_learn < 2:
            raise ValueError(
                f"method='M1' splits the learning sample in two halves and needs at least 2 learning "
                f"samples; got {n_learn} (n_samples = {n_samples})."
            )
        if self.selection in ("cv", "cv-1se") and isinstance(self.cv, numbers.Integral) and self.cv > n_samples:
            raise ValueError(f"cv={self.cv} folds need at least {self.cv} samples, got n_samples = {n_samples}.")
        if self.selection == "alpha" and self.alpha is None:
            raise ValueError("selection='alpha' needs alpha, a finite float >= 0; got None.")

    # --------------------------------------------------------------- fit
    def _fit_grower(self, grower, weight, loss=None):
        """Grow T_max from ``grower`` (the whole sample, presorted once),
        prune it and select; ``weight`` are the checked sample weights and
        ``loss`` a classifier's loss matrix (None: 0-1 loss).

        With ``missing="auto"`` (see :meth:`_missing_rules`) the fit runs
        once per routing rule from the same random state (so on the same
        folds or hold-out rows) and keeps the one of lower estimated risk
        at its selected subtree; the surrogates on a tie."""
        self._check_params(grower.X.shape[0])
        if isinstance(self.random_state, numbers.Integral):
            # The fit's own generator, kept by nothing after it.
            with seeded_random_state(self.random_state) as rng:
                return self._fit_from_state(grower, weight, loss, rng)
        return self._fit_from_state(grower, weight, loss, check_random_state(self.random_state))

    def _fit_from_state(self, grower, weight, loss, rng):
        """:meth:`_fit_grower` drawing from the RandomState ``rng``."""
        # Drawn first, so every tree of this fit (and of a refit with the same
        # random_state on other rows) is grown with the same feature draws.
        grow_seed = _first_draw(rng)
        rules = self._missing_rules(grower, weight)
        cv = self.selection in ("cv", "cv-1se")
        regrow = cv and grower.X.nbytes >= self._REGROW_FROM_BYTES
        n_growths = ((self._n_folds(grower.X, grower.y) + 1 + regrow) if cv else 1) * len(rules)
        # The folds of the rules' fits, drawn by the first (see _folds); for this fit only.
        self._fold_memo: dict[tuple, AssignedFolds] | None = {} if len(rules) > 1 else None
        try:
            best = self._fit_rules(grower, weight, loss, rules, grow_seed, rng, n_growths)
        finally:
            del self._fold_memo
        assert best is not None
        self.cv_results_, self.test_risk_ = best.cv_results, best.test_risk
        self.missing_ = best.rule
        self.pruning_indices_ = best.prune_rows
        return self._store_selection(best.path, best.k)

    def _fit_rules(self, grower, weight, loss, rules, grow_seed, rng, n_growths):
        """The :class:`RuleFit` of the rule of lowest estimated risk among
        ``rules`` (the first one on a tie), each fitted from the state
        ``rng`` has now."""
        with progress_bar(self.verbose, n_growths, desc="CART growths", unit="tree") as bar:
            best = None
            # Every rule from the same state: the same hold-out rows, folds and halves.
            private = isinstance(self.random_state, numbers.Integral)
            # Another's generator (the global one for random_state=None) is
            # left as it is: each rule draws from a spare set to its state
            # (reading and setting a state cost a seventh of a copy's 0.4 ms).
            start = rng.get_state() if not private and len(rules) > 1 else None
            for i, rule in enumerate(rules):
                if start is None:
                    if i > 0:
                        self._rewind(rng)
                    fitted = self._grow_and_select(grower, weight, loss, rule, grow_seed, rng, bar.update)
                else:
                    with seeded_random_state(0) as state:
                        state.set_state(start)
                        fitted = self._grow_and_select(grower, weight, loss, rule, grow_seed, state, bar.update)
                if best is None or fitted.risk < best.risk:
                    best = fitted
        return best

    def _rewind(self, rng):
        """Put ``rng``, this fit's own generator (seeded by the integer
        ``random_state``, seen by no one else), back in the state the first
        routing rule started from: seeded again and the fit's first draw made
        again, the same state (saving and restoring it cost 0.1 ms, more than
        a small table's tree)."""
        rng.seed(self.random_state)
        _first_draw(rng)

    def _missing_rules(self, grower, weight):
        """The routing rules this fit tries: ``missing`` itself, or for
        "auto" both "surrogate" and "learned" when some training row of
        positive weight misses a value and the selection estimates the
        risk of the selected subtree on rows it was not grown on ("cv",
        "cv-1se", "holdout"); else "surrogate" alone."""
        if self.missing != "auto":
            return (self.missing,)
        if self.selection in ("cv", "cv-1se", "holdout") and grower._has_missing(weight):
            return ("surrogate", "learned")
        return ("surrogate",)

    def _grow_and_select(self, grower, weight, loss, rule, grow_seed, rng, progress):
        """One fit of :meth:`_fit_grower` with the routing rule ``rule``.

        Returns
        -------
        RuleFit
        """
        n = grower.X.shape[0]
        params = check_growth_params(
            GrowthParams(
                self.criterion,
                self.max_depth,
                self.min_samples_split,
                self.min_samples_leaf,
                0.0,
                None,
                None,
                max_surrogates=sel.surrogates_asked(self, rule),
            )
        )
        # The CV table is returned, not stored (the fit stores the chosen
        # rule's); the hold-out selection sets ``test_risk_`` (see _select_from_counts).
        cv_results = None
        learn = np.arange(n)
        if self.selection == "holdout":
            perm = rng.permutation(n)
            n_test = int(np.ceil(self.test_size * n))
            test, learn = np.sort(perm[:n_test]), np.sort(perm[n_test:])
        cv = self.selection in ("cv", "cv-1se")
        # A large fit's folds run without T_max, grown again after them (see _REGROW_FROM_BYTES).
        regrow = cv and grower.X.nbytes >= self._REGROW_FROM_BYTES
        early = cv and self.method == "M2" and not regrow
        # The state that draws M1's halves, replayed by the second growth.
        replay = copy.deepcopy(rng) if regrow else rng
        # M2 draws nothing for T_max: the folds are drawn first (the same
        # draws in the same order) and may start growing beside it.
        run = self._start_folds(grower, weight, params, grow_seed, rng, loss, start=True) if early else None
        try:
            path, prune_rows = sel.build_path(grower, learn, weight, self.method, params, grow_seed, rng, loss)
            progress()
            risk = 0.0
            if cv:
                alphas, n_leaves = path.alphas, path.n_leaves
                if regrow:
                    # T_max, its path and its rows (a tenth of X's bytes) are made again after the folds.
                    del path, prune_rows, learn
                sel.trim_heap(grower)  # the growth's workspace (and T_max), before the folds' own
                if run is None:
                    run = self._start_folds(grower, weight, params, grow_seed, rng, loss)
                k, cv_results = self._select_cv(grower, (alphas, n_leaves), run, progress, loss)
                risk = float(cv_results["mean_risk"][k])
        finally:
            if run is not None:
                run.close()
        if cv:
            if regrow:
                learn = np.arange(n)
                path, prune_rows = sel.build_path(grower, learn, weight, self.method, params, grow_seed, replay, loss)
                progress()
        else:
            test_counts = None
            if self.selection == "holdout":
                test_counts = sel.node_statistics(grower, path.tree, weight, test)
            k = self._select_from_counts(path, prune_rows.shape[0], test_counts)
            if self.selection == "holdout":
                risk = float(self.test_risk_[k])
        test_risk = self.test_risk_ if self.selection == "holdout" else None
        return RuleFit(risk, rule, path, k, prune_rows, cv_results, test_risk)

    def _fit_sampled(self, sample):
        """M1 with T_max grown on ``grow_size`` rows of ``sample`` (a
        :class:`~prunus.tree.sample.LabelledSample`), pruned with the rest
        (:func:`~prunus.pruning._sampled.fit_cart_sampled`)."""
        return fit_cart_sampled(self, sample)

    def _select_from_counts(self, path, n_prune, test_counts=None):
        """k-hat of every selection but CV: from the path, the pruning sample's
        size ``n_prune`` and, for "holdout", the test sample's node statistics."""
        if self.selection == "holdout":
            k, self.test_risk_ = sel.select_holdout(path, test_counts)
        elif self.selection == "alpha":
            k = path.index(self.alpha)
        else:
            kappa = 1.0 if self.selection == "slope" else self.kappa
            c = self.penalty_c if self.selection == "penalty" else None
            if c is None:
                c = 2.0 * sel.minimal_penalty_constant(path, n_prune, kappa)
            self.penalty_c_ = c
            k = sel.select_penalty(path, n_prune, c, kappa)
        return k

    def _store_selection(self, path, k):
        self.selection_ = self.selection
        self.path_ = path
        self.tree_ = path.tree
        self.selected_index_ = int(k)
        self.alpha_ = float(path.alphas[k])
        self.pruned_tree_, index = path.subtree(k, return_index=True)
        self.pruned_counts_ = path.counts[index]
        self._store_leaf_predictions(path, index)
        return self

    def _store_leaf_predictions(self, path, index):
        """Keep what ``predict`` reads for the nodes ``index`` of T_max kept in T_k-hat."""
        raise NotImplementedError

    def _start_folds(self, grower, weight, params, grow_seed, rng, loss, start=False):
        """The folds of the cross-validation, drawn from ``rng``, as a
        :class:`~.selection.FoldRun` (with ``start``, threads of this
        process start growing them at once)."""
        folds, n_folds = self._folds(grower.X, grower.y, grower.n_classes, rng, lazy=True)
        n_jobs = self._n_jobs(grower)
        # The default's threads: started in this process for the folds, unless joblib is configured;
        # below _THREADS_FROM_CELLS, where the folds run in one compiled call, that call's folds are
        # shared among one thread per core.
        default = self.n_jobs is None and self._auto_threads
        local_threads = default and n_jobs == -1
        return sel.FoldRun(
            grower,
            weight,
            folds,
            self.method,
            params,
            grow_seed,
            rng,
            n_jobs,
            loss,
            n_folds,
            local_threads,
            start,
            batch_threads=usable_cpus() if default else 1,
        )

    def _select_cv(self, grower, sequence, run, progress, loss=None):
        """(k-hat, the table of ``cv_results_``) by cross-validation on the
        folds ``run``; ``sequence`` = (alphas, n_leaves) of the path of T_max."""
        alphas, n_leaves = sequence
        betas = sel.cv_temperatures(alphas, sel.root_temperature(grower))
        if loss is not None:
            # A fold's root collapses below its R(root), at most the largest loss.
            betas[-1] = sel.ROOT_TEMPERATURE * max(1.0, float(loss.max()))
        per_row = grower.regression or loss is not None  # rpart's per-row SE; else the binomial one
        mean, std, se = sel.fold_risk_summary(run, betas, progress, per_row)
        table = dict(alpha=betas, n_leaves=n_leaves.copy(), mean_risk=mean, std_risk=std, se_risk=se)
        return sel.select_cv(mean, se, one_se=self.selection == "cv-1se"), table

    def _n_jobs(self, grower):
        """``n_jobs``, or for ``None`` with ``_auto_threads`` one thread per core
        when the data is large enough for threads to pay (results are equal)."""
        if self.n_jobs is not None or not self._auto_threads:
            return self.n_jobs
        X = grower.X
        return -1 if X.shape[0] * X.shape[1] >= self._THREADS_FROM_CELLS else None

    def _n_folds(self, X, y):
        if isinstance(self.cv, numbers.Integral):
            return int(self.cv)
        if hasattr(self.cv, "get_n_splits"):
            return int(self.cv.get_n_splits(X, y))
        return len(self.cv) if hasattr(self.cv, "__len__") else None

    def _stratify(self, y, n_classes):
        """Whether integer ``cv`` folds are stratified by ``y``."""
        return False

    def _folds(self, X, y, n_classes, rng, lazy=False):
        """(train, test) index pairs from ``cv``: a fold count (shuffled;
        stratified where :meth:`_stratify` says so), a splitter or the splits.

        With ``lazy``, returns (pairs, number of folds) where the pairs of a
        fold count are made as the folds run (the indices of all folds at
        once weigh 8 bytes per row and fold, half of X at 20 features)."""
        if isinstance(self.cv, numbers.Integral):
            stratify = self._stratify(y, n_classes)
            seed = rng.randint(2**31 - 1)
            n_splits = int(self.cv)
            folds: Iterable[tuple[np.ndarray, np.ndarray]]
            if 2 <= n_splits <= X.shape[0]:
                # The splitter's folds, drawn without its checks of X and y (see _folds.py);
                # the rules of one fit draw the same seed, hence the same folds: drawn once.
                # The folds keep their rows concatenated once made (for the batched folds): shared too.
                memo = getattr(self, "_fold_memo", None)
                key = (X.shape[0], n_splits, seed, stratify)
                assigned = None if memo is None else memo.get(key)
                if assigned is None:
                    assignment = fold_of_rows(X.shape[0], n_splits, seed, np.asarray(y) if stratify else None)
                    assigned = folds_of(assignment, n_splits)
                    if memo is not None:
                        memo[key] = assigned
                folds = assigned
            else:  # the splitter's own error
                splitter_cls = StratifiedKFold if stratify else KFold
                folds = splitter_cls(n_splits=n_splits, shuffle=True, random_state=seed).split(X, y)
            return (folds, n_splits) if lazy else list(folds)
        pairs = check_cv_pairs(self.cv.split(X, y) if hasattr(self.cv, "split") else self.cv, X.shape[0])
        if len(pairs) < 2:
            raise ValueError(f"cv must give at least 2 folds, got {len(pairs)}.")
        return (pairs, len(pairs)) if lazy else pairs

    # ----------------------------------------------------------- subtrees
    def select(self, alpha: float | None = None, *, cp: float | None = None, rule: str | None = None) -> Self:
        """Another subtree of the fitted path, without refitting (rpart's ``prune(fit, cp)``).

        Exactly one of the arguments chooses the subtree. Returns a **copy** of
        this estimator that predicts with it; ``self`` is left unchanged, so a
        fitted model is never silently altered. The copy keeps the parameters
        of the fit (they say how its tree was grown), its path and CV results,
        and holds a consistent ``selected_index_``, ``alpha_``,
        ``pruned_tree_``, ``pruned_counts_``, ``selection_`` and importances.
        With the path of a fit that grew on all rows (every selection but
        "holdout"), ``select(alpha=a)`` predicts exactly as a fresh fit with
        ``selection="alpha", alpha=a`` and the same ``random_state``.

        Parameters
        ----------
        alpha : float >= 0, optional
            T_alpha, in ``ccp_alpha`` units (as ``selection="alpha"``).
        cp : float >= 0, optional (keyword only)
            rpart's scaled complexity: the subtree of the first row of
            :attr:`cv_table_` whose ``cp`` is at most this (a ``cp`` read
            from the table selects its row).
        rule : {"cv", "cv-1se", "holdout"}, optional (keyword only)
            Apply that selection rule to the risks the fit computed: "cv" and
            "cv-1se" need a cross-validated fit, "holdout" a hold-out one
            (e.g. from the min-xerror tree to the 1-SE tree).

        Returns
        -------
        estimator : CARTClassifier or CARTRegressor
            A fitted copy, of the class of this estimator.
        """
        check_is_fitted(self, "path_")
        return reselect(self, alpha=alpha, cp=cp, rule=rule)

    @property
    def cv_table_(self) -> CPTable:
        """rpart's ``cptable`` of the fitted path (see :class:`~prunus.pruning.CPTable`).

        ``xerror`` and ``xstd`` are present after a cross-validated selection.
        """
        check_is_fitted(self, "path_")
        return cp_table(self.path_, self.cv_results_)

    def plot(self, ax: Any = None, decimals: int = 2) -> Any:
        """Draw the selected tree (matplotlib): every node shows its split, its
        prediction (the class and its share, or the mean) and n.

        See :func:`prunus.tree.plot_tree` and :func:`prunus.tree.node_summaries`.

        Parameters
        ----------
        ax : matplotlib Axes, optional
            Where to draw (a new figure when omitted).
        decimals : int, default=2
            Decimals of the thresholds.

        Returns
        -------
        ax : matplotlib.axes.Axes
            The Axes drawn on.
        """
        check_is_fitted(self, "pruned_tree_")
        return self.pruned_tree_.plot(
            **self._names(), node_labels=self._node_summaries(decimals), ax=ax, decimals=decimals
        )

    def _names(self) -> dict[str, Any]:
        """The feature and level names of the fit (``feature_names_in_``,
        ``categories_``), as the renderings of ``pruned_tree_`` take them."""
        names = getattr(self, "feature_names_in_", None)
        return {
            "feature_names": None if names is None else list(names),
            "categories": getattr(self, "categories_", None),
        }

    def _node_summaries(self, decimals: int) -> list[str]:
        """The text of every node of ``pruned_tree_`` drawn by :meth:`plot`."""
        raise NotImplementedError

    def export_text(self, decimals: int = 3) -> str:
        """The selected tree as indented text, one line per split side and per
        leaf, as scikit-learn's ``export_text``: a classifier's leaves read
        ``class: yes``, a regressor's ``value: 3.2`` (the leaf's mean).

        Feature names and level names come from the fit (``feature_names_in_``,
        ``categories_``). See :func:`prunus.tree.export_text`.

        Parameters
        ----------
        decimals : int, default=3
            Decimals of the thresholds (and of a regressor's values).

        Returns
        -------
        text : str
            ``|--- size <= 0.998``, ..., ``|   |--- leaf 2 class: no``.
        """
        check_is_fitted(self, "pruned_tree_")
        labels, label_name = self._leaf_texts(decimals)
        return self.pruned_tree_.export_text(
            **self._names(), node_labels=labels, decimals=decimals, label_name=label_name
        )

    def _leaf_texts(self, decimals: int) -> tuple[list[str], str]:
        """The prediction of every node of ``pruned_tree_`` as text, and what it is ("class", "value")."""
        raise NotImplementedError

    # ----------------------------------------------------------- predict
    def _check_X(self, X):
        check_is_fitted(self, "pruned_tree_")
        refuse_dask(self, X, method="predict")
        return predict_table(self, X)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def apply(self, X: ArrayLike) -> np.ndarray:
        """Leaf of the selected tree reached by each row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (NaN is a missing value).

        Returns
        -------
        leaves : ndarray of int64 of shape (n_samples,)
            Node id of the leaf each row reaches.

        See Also
        --------
        decision_path : The nodes each row visits.
        """
        X = self._check_X(X)
        return self.pruned_tree_.apply(X)

    def decision_path(self, X: ArrayLike) -> sparse.csr_matrix:
        """Sparse indicator of the nodes of the selected tree each row visits.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (NaN is a missing value).

        Returns
        -------
        indicator : scipy.sparse.csr_matrix of shape (n_samples, n_nodes)
            Non-zero where a row visits a node.

        See Also
        --------
        apply : The leaf each row reaches.
        """
        X = self._check_X(X)
        return self.pruned_tree_.decision_path(X)
