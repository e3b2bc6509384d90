"""``ExactBoostClassifier``: AdaBoost / SAMME over exact greedy-optimal trees.

Algorithm 2 of Aziz, Anderton & Aslam ("Adaptively Pruning Features for
Boosted Decision Trees"): every round grows a depth-``max_depth`` tree node
by node with an exact split search (exhaustive, Quick Boost or
Adaptive-Pruning Stump, Algorithm 1), chooses ``alpha_t`` and restores the
decreasing-weight order of the examples in O(n) by merging runs.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import sparse
from scipy.special import softmax
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_is_fitted, validate_data

from ..tree._encoding import refuse_text_columns
from ..tree._importance import classification_importances
from ..tree._kernels import leaf_counts_to_node_counts, scatter_counts
from ..utils._classifier import Classifier
from ..utils._param_validation import Integral, Interval, Real, StrOptions
from ..utils._progress import progress_bar
from ..utils._validation import open_classifier_fit
from ._binning import fit_binning, fit_transform
from ._grow import apply_codes, grow_tree
from ._order import codes_in_order, merge_weight_order
from ._predict import CSRRows, ensemble_labels, ensemble_labels_csr, stack_trees, vote
from ._records import ADAPTIVE_RULES, CRITERIA, STRATEGIES, new_workspace, search_settings

if TYPE_CHECKING:
    from typing_extensions import Self


def samme_alpha(err: float, n_classes: int) -> float:
    """SAMME's estimator weight ``log((1 - err) / err) + log(K - 1)``.

    For two classes this is discrete AdaBoost with the update
    ``w_i <- w_i exp(alpha 1{h(x_i) != y_i})`` (Freund & Schapire 1996).

    Parameters
    ----------
    err : float or ndarray
        Weighted training error of the round's tree, in (0, 1).
    n_classes : int
        K, the number of classes.

    Returns
    -------
    alpha : float or ndarray
        The tree's weight in the vote.
    """
    return np.log((1.0 - err) / err) + np.log(n_classes - 1.0)


class ExactBoostClassifier(Classifier, BaseEstimator):
    """AdaBoost (discrete for 2 classes, SAMME for more) of exact greedy trees.

    Every weak learner is the exact greedy-optimal depth-``max_depth`` tree
    for the current boosting weights over all thresholds of the binned
    features; the three ``split_search`` strategies return the same trees and
    differ only in how many (example, feature) assessments they spend.

    Parameters
    ----------
    n_estimators : int, default=500
        Boosting rounds (fewer if a tree fits the weights perfectly).
    max_depth : int, default=3
        Depth of every tree.
    split_search : {"adaptive", "quick", "exhaustive"}, default="adaptive"
        ``"adaptive"``: Adaptive-Pruning (Algorithm 1's intervals; the rule
        choosing the next batch is ``adaptive_rule``);
        ``"quick"``: Quick Boost (Appel et al. 2013);
        ``"exhaustive"``: classic AdaBoost, every example for every feature.
    criterion : {"error", "entropy"}, default="error"
        Split by weighted error (weighted-majority leaves) or by information
        gain with the bounds of Appendix B.
    max_bins : int, default=256
        Bins per feature; a feature with at most ``max_bins`` distinct values
        is split exactly at every threshold.
    feature_fraction : float, default=1.0
        LazyBoost (Escudero et al. 2001): fraction of the features sampled
        uniformly per round.
    weight_trim : float or None, default=None
        Weight trimming (Friedman et al. 1998): train each tree on the
        heaviest examples covering this fraction of the weight.
    track_bounds : bool, default=False
        Also compute the weight-order lower bound LB_wo per round (section 4).
    quick_init : float, default=0.9
        Quick Boost: fraction of the weight used for the initial estimates.
    quick_batches : int, default=20
        Quick Boost: number of equal-weight batches for the remaining weight.
        The defaults were the best of a small grid (init 0.5-0.95, 4-20
        batches) on satimage, spam and digits, so Quick Boost is a strong
        baseline; ``quick_init=0.5, quick_batches=10`` spends far more.
    min_batch : int or "auto", default=1
        Adaptive-Pruning: smallest batch, in examples (Algorithm 1: 1).
        Larger values trade assessments for fewer O(bins x classes) interval
        updates; ``"auto"`` sizes the floor per feature as (bins in the seen
        range x classes present) / 2 examples.
    adaptive_init : float, default=0.9
        Adaptive-Pruning: fraction of the node's weight every feature is
        assessed on before the interval race starts (Algorithm 1:
        ``Z_m >= 0.5``).
    adaptive_rule : {"lower_first", "gap"}, default="lower_first"
        Adaptive-Pruning: which feature is assessed next and by how much.
        ``"gap"`` is Algorithm 1 (the leader ``a = argmin UB`` and the
        challenger ``b = argmin LB`` each get a batch weighing the gap
        ``UB_a - LB_b``); ``adaptive_rule="gap", min_batch=1,
        adaptive_init=0.5`` is Algorithm 1 exactly as written.
        ``"lower_first"`` assesses the feature with the smallest lower bound;
        with ``adaptive_target=0`` its batch is the weight it needs to reach
        the next-smallest lower bound, which any weight-order search must
        also assess unless that feature wins, so with ``min_batch=1`` and
        ``criterion="error"`` it spends no more than LB_wo (section 4) plus
        the initial pass. It stops, as Algorithm 1 does, once a fully
        assessed feature's error is below every other lower bound.

        The default (``"lower_first"``, ``adaptive_target=0.97``,
        ``min_batch=1``, ``adaptive_init=0.9``) was chosen by measurement
        for the time of a fit, among the settings that assess fewer examples
        than Quick Boost with its defaults. Every batch is followed by an
        interval update that rescans the feature's seen bins for every class
        present, and where many classes share many bins (10 classes x 256
        bins) an update costs as much as hundreds of assessments; the
        initial pass over 90% of the weight, one streaming pass per feature,
        leaves few features, and few updates, to the race, and batches aimed
        close to the smallest upper bound (``adaptive_target=0.97``) need
        fewer updates than aimed lower. On a synthetic MNIST-shaped problem
        (60,000 x 784, 256 levels, 10 classes, depth 4, 10 rounds) it takes
        0.91x Quick Boost's CPU time and 0.60x exhaustive search's for 0.99x
        Quick Boost's assessments, where an initial pass of 0.5 took 1.47x
        Quick Boost's time for 0.94x its assessments
        (``benchmarks/bench_boosting.py --frontier`` compares the settings on
        the benchmark datasets). The cost is in assessments: with
        ``adaptive_init=0.5`` the rule spends at most
        1.02x LB_wo on digits, spam, satimage, letter and synthetic problems
        of 20 and 11 classes (section 4), against up to 1.12x with the
        default (1.00-1.01x on letter and the synthetic problems; more on small
        datasets, where the first pass alone exceeds the bound's margin).
        ``adaptive_init=0.5`` is the setting for the fewest assessments.
        For the least wall time, Quick Boost and the default take about the
        same time on most problems (see the user guide); on small problems
        with many classes the default, which searches their small nodes
        exhaustively (``exhaustive_below``), is the faster. Every setting
        returns the same ensemble.
    adaptive_target : float in [0, 1], default=0.97
        ``"lower_first"`` only: the batch aims at ``L2 + adaptive_target *
        (U_min - L2)``, where ``L2`` is the next-smallest lower bound and
        ``U_min`` the smallest upper bound. 0 never overshoots LB_wo but
        takes many small batches (each costs an O(bins x classes) interval
        update: 50x slower than 0.9 on spam); 1 is Algorithm 1's gap.
    adaptive_extrapolate : bool, default=True
        ``"lower_first"`` with ``criterion="error"`` only: size a batch for
        the rate at which the feature's lower bound has been rising. One unit
        of weight raises an error bound by at most one unit, but usually by
        less (0.6-1), so a batch of the bare gap tends to fall short and need
        another, each followed by an interval update. The gap is divided by
        the bound's rise per unit of weight in the feature's last batch,
        clamped to [0.6, 1]; a feature's first batch after the initial pass,
        which has no rise of its own yet, is divided by the mean rise of the
        first batches of the node's earlier features (the examples after the
        initial pass are the same for every feature; the first of them aims
        at the bare gap). On the MNIST-shaped problem below, 10 rounds,
        ``adaptive_target=0.9``, the race after the initial passes takes
        132,363 interval updates instead of 286,464 with the bare gaps
        (197,188 when first batches aim at the bare gap), for 0.4% more
        assessments (6.825e8 against 6.798e8, Quick Boost 6.894e8); with the
        default 0.97, 105,021 updates for 6.830e8 assessments. ``False`` gives
        the batches of the plain rule. The ensemble is the same either way.
    exhaustive_below : float >= 0, default=0.5
        Adaptive-Pruning only: a node is searched exhaustively (every
        example for every feature, one interval update each) when its
        examples times its candidate features are at most
        ``exhaustive_below`` times the cells of their class-weight tables
        (bins x classes present in the node, summed over the features).
        A pruned search saves assessments, a few nanoseconds each, but
        follows its initial pass and every later batch by an interval
        update that scans the feature's cells; in a node with about as few
        examples as cells the updates cost more than the assessments saved
        (small datasets, deep nodes, many classes or bins). The tree is the
        same; only the assessment count of such nodes is exhaustive
        search's. 0 searches every node by the rule (the paper's algorithm,
        as the reproduction runs it).
    random_state : int, RandomState or None
        Seeds the LazyBoost feature sampling.
    verbose : int, default=0
        Show a progress bar over the boosting rounds when > 0.

    Attributes
    ----------
    estimators_ : list of prunus.tree.Tree
    leaf_labels_ : list of ndarray of int
        Per tree, the class code of every node (used at its leaves).
    estimator_weights_ : ndarray of shape (n_rounds,)
    estimator_errors_ : ndarray of shape (n_rounds,)
        Weighted training error of each tree under its round's weights.
    assessments_ : ndarray of int64, shape (n_rounds,)
        (example, feature) assessments of the split searches of each round.
    exhaustive_assessments_ : ndarray of int64, shape (n_rounds,)
        What exhaustive search spends on the same nodes (sum of n_node * n_features).
    weight_order_bound_ : ndarray of int64 or None
        LB_wo per round when ``track_bounds``.
    classes_, n_classes_, n_features_in_, bin_thresholds_
    feature_importances_ : ndarray, shape (n_features,)
        As scikit-learn's ``AdaBoostClassifier``: the mean of the trees'
        normalised importances weighted by ``estimator_weights_``. A tree's
        importance is the decrease of its split criterion at each split, under
        the boosting weights of its round on the rows it was grown on: the
        weighted error (misclassification impurity) for ``criterion="error"``,
        the entropy for ``"entropy"``.

    See Also
    --------
    exact_lower_bound : The least weighted error any tree of the same depth can reach.
    """

    _parameter_constraints = {
        "n_estimators": [Interval(Integral, 1, None, closed="left")],
        "max_depth": [Interval(Integral, 1, None, closed="left")],
        "split_search": [StrOptions(set(STRATEGIES))],
        "criterion": [StrOptions(set(CRITERIA))],
        "max_bins": [Interval(Integral, 2, 65535, closed="both")],
        "feature_fraction": [Interval(Real, 0.0, 1.0, closed="right")],
        "weight_trim": [Interval(Real, 0.0, 1.0, closed="right"), None],
        "track_bounds": ["boolean"],
        "quick_init": [Interval(Real, 0.0, 1.0, closed="right")],
        "quick_batches": [Interval(Integral, 1, None, closed="left")],
        "min_batch": [Interval(Integral, 1, None, closed="left"), StrOptions({"auto"})],
        "adaptive_init": [Interval(Real, 0.0, 1.0, closed="right")],
        "adaptive_rule": [StrOptions(set(ADAPTIVE_RULES))],
        "adaptive_target": [Interval(Real, 0.0, 1.0, closed="both")],
        "adaptive_extrapolate": ["boolean"],
        "exhaustive_below": [Interval(Real, 0.0, None, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        n_estimators: int = 500,
        max_depth: int = 3,
        split_search: str = "adaptive",
        criterion: str = "error",
        max_bins: int = 256,
        feature_fraction: float = 1.0,
        weight_trim: float | None = None,
        track_bounds: bool = False,
        quick_init: float = 0.9,
        quick_batches: int = 20,
        min_batch: int = 1,
        adaptive_init: float = 0.9,
        adaptive_rule: str = "lower_first",
        adaptive_target: float = 0.97,
        adaptive_extrapolate: bool = True,
        exhaustive_below: float = 0.5,
        random_state: int | np.random.RandomState | None = None,
        verbose: int = 0,
    ) -> None:
        self.n_estimators = n_estimators
        self.max_depth = max_depth
        self.split_search = split_search
        self.criterion = criterion
        self.max_bins = max_bins
        self.feature_fraction = feature_fraction
        self.weight_trim = weight_trim
        self.track_bounds = track_bounds
        self.quick_init = quick_init
        self.quick_batches = quick_batches
        self.min_batch = min_batch
        self.exhaustive_below = exhaustive_below
        self.adaptive_init = adaptive_init
        self.adaptive_rule = adaptive_rule
        self.adaptive_target = adaptive_target
        self.adaptive_extrapolate = adaptive_extrapolate
        self.random_state = random_state
        self.verbose = verbose

    def _search_settings(self, n_classes):
        """The split-search ``Settings`` of these parameters (one record for every node of the fit)."""
        return search_settings(
            self.split_search,
            self.criterion,
            n_classes,
            self.adaptive_rule,
            self.quick_init,
            self.quick_batches,
            self.adaptive_init,
            self.min_batch,
            self.adaptive_target,
            self.adaptive_extrapolate,
            self.exhaustive_below,
        )

    # ------------------------------------------------------------------- fit
    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Boost ``n_estimators`` exact trees.

        Parameters
        ----------
        X : array-like or scipy sparse CSR / CSC matrix of shape (n_samples, n_features)
            Sparse input is binned column by column (implicit zeros are the
            value 0.0) and never densified: a tree node costs time in its
            stored entries rather than in rows x features. The ensemble and
            the assessment counts equal those of the dense matrix.
        y : array-like of shape (n_samples,)
            Class labels of the rows.
        sample_weight : array-like of shape (n_samples,), optional
            Initial boosting weights (non-negative, not all zero).

        Returns
        -------
        self

        See Also
        --------
        predict : The class of every row.
        staged_predict : The class after every round.
        """
        return self._fit(X, y, sample_weight)

    def _fit(self, X, y, sample_weight=None, callback=None):
        """``fit`` with an optional ``callback(round, state)`` called before each tree is kept.

        ``state`` holds the round's normalized weights ``w``, the weight order
        ``order``, the trained ids, the grown tree and its predictions; the
        experiments use it for per-round lower bounds. Its bin codes ``Xb``
        are the dense array of ``Binning.transform``, or on sparse input the
        ``SparseBins`` of ``Binning.transform_sparse`` (which ``split_node``
        also takes; the integer programs of ``stump_lower_bounds`` need dense codes).
        """
        X, y_codes, w = open_classifier_fit(
            self,
            X,
            y,
            sample_weight,
            ensure_min_samples=2,
            accept_sparse=("csr", "csc"),
            prepare_X=lambda X: refuse_text_columns(X, type(self).__name__),
        )
        self.n_classes_ = K = len(self.classes_)
        if w.sum() <= 0:
            raise ValueError("sample_weight must not sum to zero.")
        # Zero-weight examples keep zero weight in every round, so they carry
        # no information; they are left out so that they do not shape the bins.
        keep = w > 0
        if not keep.all():
            X, y_codes, w = X[keep], y_codes[keep], w[keep]
        w = w / w.sum()
        n, n_features = X.shape
        settings = self._search_settings(K)
        rng = check_random_state(self.random_state)

        Xb: Any  # the SparseBins of a sparse X, else the dense codes (read by the ``dense`` branches)
        if sparse.issparse(X):
            binning = fit_binning(X, self.max_bins)
            # Sparse input stays sparse: per row, only the entries outside their feature's bin of 0.0.
            Xb = binning.transform_sparse(X)
        else:
            binning, Xb = fit_transform(X, self.max_bins)
        self.bin_thresholds_ = binning.thresholds
        usable = np.flatnonzero(binning.n_bins >= 2).astype(np.int64)
        n_lazy = max(1, int(round(self.feature_fraction * len(usable)))) if len(usable) else 0
        ws = new_workspace(n_features, int(binning.n_bins.max()), K)

        order = np.argsort(-w, kind="stable").astype(np.int64)
        dense = not sparse.issparse(X)
        ordered = None  # dense input: the codes permuted into a round's order (allocated when first needed)
        laid = Xb  # the codes as the searches read them: ``Xb`` itself or ``ordered``
        positions = np.arange(n, dtype=np.int64)
        layout = None  # dense input: the example ids in the order ``laid`` holds their codes
        rank = np.empty(n, dtype=np.int64)  # position of every example in ``layout`` (when it holds all n)
        node_counts = []
        trees, labels, alphas, errors, assess, exhaust, lbwo = [], [], [], [], [], [], []
        bar = progress_bar(self.verbose, self.n_estimators, desc="boosting rounds", unit="round")
        for t in range(self.n_estimators):
            if self.feature_fraction < 1.0 and len(usable):
                feats = np.sort(rng.choice(usable, size=n_lazy, replace=False)).astype(np.int64)
            else:
                feats = usable
            if self.weight_trim is not None:
                cum = np.cumsum(w[order])
                m = int(np.searchsorted(cum, self.weight_trim * cum[-1])) + 1
                train = order[: min(m, n)]
            else:
                train = order
            if dense:
                # The codes, classes and weights in this round's order: every search then reads a feature's
                # codes forwards (the tree is the same: each node sees the same examples in the same order).
                # Every other round the codes stay in the previous round's order and the nodes hold positions
                # in it: this round's order merges two runs of that one, so the searches still read a
                # feature's codes nearly forwards (measured faster than permuting them every round).
                if t % 2 == 1 and train.shape[0] == n and layout is not None and layout.shape[0] == n:
                    rows = rank[train]
                else:
                    if train.shape[0] == n and np.array_equal(train, positions):
                        # Equal weights (the first round without sample weights) keep the ids' order: a copy
                        # of the codes in that order would be ``Xb`` itself.
                        laid = Xb
                    else:
                        if ordered is None or ordered.shape[1] != train.shape[0]:
                            ordered = np.empty((Xb.shape[0], train.shape[0]), dtype=Xb.dtype)
                        laid = codes_in_order(Xb, train, ordered)
                    layout = train
                    if train.shape[0] == n:
                        rank[layout] = positions
                        rows = positions
                    else:
                        rows = np.arange(train.shape[0])
                codes, yt, wt = laid, y_codes[layout], w[layout]
            else:
                codes, yt, wt, rows = Xb, y_codes, w, train
            grown = grow_tree(
                codes,
                yt,
                wt,
                rows,
                feats,
                binning.n_bins[feats],
                binning.thresholds,
                self.max_depth,
                settings,
                ws,
                track_bounds=bool(self.track_bounds),
            )
            tr = grown.tree
            leaves = apply_codes(Xb, tr.children_left, tr.children_right, tr.feature, grown.bin_threshold)
            pred = grown.leaf_labels[leaves]
            incorrect = pred != y_codes
            err = float(w[incorrect].sum() / w.sum())
            if callback is not None:
                callback(
                    t,
                    dict(
                        w=w.copy(),
                        order=order.copy(),
                        train=train,
                        feats=feats,
                        grown=grown,
                        incorrect=incorrect,
                        pred=pred,
                        Xb=Xb,
                        y=y_codes,
                        n_bins=binning.n_bins,
                    ),
                )
            trees.append(tr)
            # The round's class weights per node, for the importances.
            counts = scatter_counts(leaves[train], y_codes[train], w[train], tr.n_nodes, K)
            node_counts.append(leaf_counts_to_node_counts(counts, tr.parent))
            labels.append(grown.leaf_labels)
            errors.append(err)
            assess.append(grown.assessments)
            exhaust.append(grown.exhaustive_assessments)
            lbwo.append(grown.weight_order_bound)
            bar.update()
            if err <= 0.0:
                alphas.append(1.0)  # perfect tree: it alone decides (as scikit-learn does)
                break
            if err >= 1.0 - 1.0 / K:
                # No better than chance: keep it only if it is the first tree
                # (then it predicts the weighted majority), and stop.
                if t == 0:
                    alphas.append(1.0)
                else:
                    for lst in (trees, labels, errors, assess, exhaust, lbwo, node_counts):
                        lst.pop()
                break
            alpha = samme_alpha(err, K)
            alphas.append(alpha)
            if t == self.n_estimators - 1:
                break
            w = w.copy()
            w[incorrect] *= np.exp(alpha)
            w /= w.sum()
            order = merge_weight_order(order, w, incorrect)
        bar.close()

        self.estimators_ = trees
        self.leaf_labels_ = labels
        self.estimator_weights_ = np.asarray(alphas, dtype=np.float64)
        self.estimator_errors_ = np.asarray(errors, dtype=np.float64)
        self.assessments_ = np.asarray(assess, dtype=np.int64)
        self.exhaustive_assessments_ = np.asarray(exhaust, dtype=np.int64)
        self.weight_order_bound_ = np.asarray(lbwo, dtype=np.int64) if self.track_bounds else None
        self._stacked = stack_trees(trees, labels)
        self._node_counts = node_counts
        return self

    @property
    def feature_importances_(self) -> np.ndarray:
        """Impurity-based importance of every feature, averaged over the trees with their weights.

        Each tree's split importances (the decrease of the misclassification
        or entropy impurity of its training weights) are weighted by the
        tree's ``estimator_weights_``.
        """
        check_is_fitted(self)
        if not hasattr(self, "_node_counts"):
            raise AttributeError(
                "feature_importances_ needs the per-node weights that fit records since prunus 0.1.0 (unreleased); refit the model."
            )
        impurity = "misclassification" if self.criterion == "error" else "entropy"
        per_tree = [classification_importances(t, c, impurity) for t, c in zip(self.estimators_, self._node_counts)]
        weights = self.estimator_weights_
        return np.tensordot(weights, np.asarray(per_tree), axes=1) / weights.sum()

    # --------------------------------------------------------------- predict
    def _tree_predictions(self, X):
        check_is_fitted(self)
        X = refuse_text_columns(X, type(self).__name__)
        X = validate_data(self, X, dtype=np.float64, reset=False, accept_sparse=("csr", "csc"))
        if sparse.issparse(X):
            X = sparse.csr_matrix(X)
            if not X.has_canonical_format:
                X = X.copy()
                X.sum_duplicates()
            return ensemble_labels_csr(CSRRows(X.indptr, X.indices, X.data, X.shape[0]), self._stacked)
        return ensemble_labels(np.ascontiguousarray(X), self._stacked)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def _to_decision(self, votes, norm):
        # SAMME's symmetric coding: a tree votes +alpha for its class and
        # -alpha / (K - 1) for the others (scikit-learn's AdaBoostClassifier).
        K = self.n_classes_
        coded = (votes * K - norm) / (K - 1) / norm
        if K == 2:
            return coded[:, 1] - coded[:, 0]
        return coded

    def decision_function(self, X: ArrayLike) -> np.ndarray:
        """SAMME decision function, as scikit-learn's ``AdaBoostClassifier``.

        Returns ``sum_t alpha_t c_t(x, k) / sum_t alpha_t`` per class with
        ``c_t = 1`` if ``h_t(x) = k`` else ``-1 / (K - 1)``; for two classes
        the score of class 1 minus that of class 0.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (dense or scipy sparse CSR / CSC).

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            Weighted votes of the ensemble (one column for two classes).

        See Also
        --------
        predict : The class of the largest score.
        """
        pred = self._tree_predictions(X)
        return self._to_decision(vote(pred, self.estimator_weights_, self.n_classes_), self.estimator_weights_.sum())

    def staged_decision_function(self, X: ArrayLike) -> Iterator[np.ndarray]:
        """Decision function after each round.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (dense or scipy sparse CSR / CSC).

        Yields
        ------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            :meth:`decision_function` of the first t + 1 trees.
        """
        pred = self._tree_predictions(X)
        votes = np.zeros((pred.shape[1], self.n_classes_))
        rows = np.arange(pred.shape[1])
        norm = 0.0
        for t, alpha in enumerate(self.estimator_weights_):
            votes[rows, pred[t]] += alpha
            norm += alpha
            yield self._to_decision(votes, norm)

    def _decision_to_label(self, dec):
        if self.n_classes_ == 2:
            return self.classes_.take((dec > 0).astype(int))
        return self.classes_.take(np.argmax(dec, axis=1))

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Class of every row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (dense or scipy sparse CSR / CSC).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted class label of every row.

        See Also
        --------
        predict_proba : Class probabilities of every row.
        """
        return self._decision_to_label(self.decision_function(X))

    def staged_predict(self, X: ArrayLike) -> Iterator[np.ndarray]:
        """Predicted labels after each round.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (dense or scipy sparse CSR / CSC).

        Yields
        ------
        y_pred : ndarray of shape (n_samples,)
            :meth:`predict` of the first t + 1 trees.
        """
        for dec in self.staged_decision_function(X):
            yield self._decision_to_label(dec)

    def staged_score(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Iterator[float]:
        """Accuracy after each round.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (dense or scipy sparse CSR / CSC).
        y : array-like of shape (n_samples,)
            True class labels.
        sample_weight : array-like of shape (n_samples,), optional
            Row weights of the mean.

        Yields
        ------
        score : float
            :meth:`score` of the first t + 1 trees.
        """
        from sklearn.metrics import accuracy_score

        for pred in self.staged_predict(X):
            yield accuracy_score(y, pred, sample_weight=sample_weight)

    @staticmethod
    def _proba(dec, n_classes):
        if n_classes == 2:
            dec = np.vstack([-dec, dec]).T / 2
        else:
            dec = dec / (n_classes - 1)
        return softmax(dec, axis=1)

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities ``softmax(decision / (K - 1))`` (scikit-learn's SAMME rule).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (dense or scipy sparse CSR / CSC).

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Class probabilities of every row, columns in the order of ``classes_``.

        See Also
        --------
        predict : The most probable class of every row.
        """
        return self._proba(self.decision_function(X), self.n_classes_)

    def staged_predict_proba(self, X: ArrayLike) -> Iterator[np.ndarray]:
        """Class probabilities after each round.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows (dense or scipy sparse CSR / CSC).

        Yields
        ------
        proba : ndarray of shape (n_samples, n_classes)
            :meth:`predict_proba` of the first t + 1 trees.
        """
        for dec in self.staged_decision_function(X):
            yield self._proba(dec, self.n_classes_)
