"""TreeSoftmaxClassifier: a small MLP representation learned jointly with a label tree."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.utils import check_random_state
from sklearn.utils.validation import (
    check_is_fitted,
    validate_data,
)
from torch import nn
from torch.nn import functional as F

from ..tree._encoding import refuse_text_columns
from ..utils._classifier import Classifier
from ..utils._param_validation import Integral, Interval, Real, StrOptions
from ..utils._progress import progress_bar
from ..utils._validation import open_classifier_fit
from . import _distributed as ddp
from ._io import cpu_state, load_payload, plain, save_payload
from ._label_tree import LabelTree
from ._lm import _carry_optimizer_state, _threads, resolve_device
from ._module import ReassignSchedule, TreeSoftmax

if TYPE_CHECKING:
    from typing_extensions import Self


class _Network(nn.ModuleDict):
    """``body`` (MLP) and ``head``; its forward is log p(y | x), so that DistributedDataParallel can wrap it."""

    def forward(self, x, y):
        h = self["body"](x)
        head = self["head"]
        if isinstance(head, TreeSoftmax):
            return head.log_prob(h, y)
        return F.log_softmax(head(h), dim=1).gather(1, y[:, None]).squeeze(1)


#: Standardized inputs are clipped to [-STANDARDIZED_LIMIT, STANDARDIZED_LIMIT] (float32-safe).
STANDARDIZED_LIMIT = 1e6


def _power_of_two(values):
    """Per column, ``2^-e`` with ``e`` the binary exponent of the largest magnitude (1 for zeros)."""
    _, exponent = np.frexp(np.max(np.abs(values), axis=0))
    return np.ldexp(1.0, -exponent.astype(np.int64))


def _standardizer(X):
    """``(mean, std)`` of every column, exact under power-of-two scaling and free of overflow."""
    p = _power_of_two(X)
    Xs = X * p
    mean, std = Xs.mean(axis=0) / p, Xs.std(axis=0) / p
    return mean, np.where(std > 0, std, 1.0)


def _standardize(X, mean, scale):
    """``(X - mean) / scale``, computed in units where mean and scale are below 1, then clipped."""
    q = _power_of_two(np.vstack([mean, scale]))
    with np.errstate(over="ignore", invalid="ignore"):
        Z = (X * q - mean * q) / (scale * q)
    Z = np.nan_to_num(Z, nan=0.0, posinf=STANDARDIZED_LIMIT, neginf=-STANDARDIZED_LIMIT)
    return np.clip(Z, -STANDARDIZED_LIMIT, STANDARDIZED_LIMIT)


class TreeSoftmaxClassifier(Classifier, BaseEstimator):
    """Many-class classifier: MLP representation f_Theta + tree-structured softmax.

    Trained as in Algorithm 1: the representation and the node decision
    functions take gradient steps on the tree log-likelihood (eq. 5) while the
    label tree is re-built by Algorithm 2 ``reassign_per_epoch`` times per epoch
    during the first ``tree_epochs`` epochs; the remaining epochs fine-tune with
    the tree fixed. ``output="flat"`` replaces the tree by a flat softmax over
    the same representation (the comparison of the paper's Table 1).

    Parameters
    ----------
    hidden_layer_sizes : tuple of int
        Widths of the ReLU layers of the representation (its output size is
        the last width; ``()`` uses the standardized input directly).
    output : {"learned", "random", "flat"}
    arity : int or None
        M; ``None``: smallest M with M**depth >= n_classes.
    depth : int
        D, the depth of the label tree.
    epochs : int
        Passes over the training rows.
    batch_size : int
        Rows per gradient step.
    lr : float
        Adam step size.
    tree_epochs : int or None
        Epochs that learn the tree (``None``: half of ``epochs``).
    reassign_per_epoch : int
        Re-builds of the label tree (Algorithm 2) per epoch while it is learned.
    criterion : {"loglik", "class"}
        Algorithm 2's greedy criterion (eq. 12 or eq. 10).
    predict_method : {"exact", "greedy"}
        ``predict`` by the argmax over all classes, or by following the most
        likely child down the tree (O(D M d) per example).
    n_threads : int or None
        torch intra-op threads during fit / predict.
    device : {"cpu", "cuda", "auto"} or torch.device
        Where the network is trained and evaluated (``"auto"``: cuda when
        available); predictions come back as numpy arrays.
    random_state : int, RandomState or None
        Seeds the network's initialization, the batches and the random label tree.
    verbose : int, default=0
        When > 0, a progress bar over the epochs (on the first rank only under
        torch.distributed); silent by default.

    Attributes
    ----------
    classes_ : array (n_classes,)
    mean_ : ndarray (n_features,)
        Mean of every feature over the training rows.
    scale_ : ndarray (n_features,)
        Standard deviation of every feature over the training rows (1 where constant).
    label_tree_ : LabelTree or None
    module_ : torch.nn.Module
    history_ : list of dict (per epoch ``loss``, ``moved``)

    A fitted classifier is saved to one file with :meth:`save` and read back
    with :meth:`load` (``torch.load(..., weights_only=True)`` reads the file); it
    also pickles.

    See Also
    --------
    TreeSoftmax : The tree-structured output layer alone.
    TreeLanguageModel : The same output layer in a language model.

    Notes
    -----
    Inputs are standardized internally with statistics of the training rows:
    feature j becomes ``(x_j - mean_[j]) / scale_[j]`` (``scale_`` is the
    standard deviation, 1 for a constant feature), computed after an exact
    rescaling by a power of two so that no sum overflows or underflows.
    Predictions are therefore the same when a feature is multiplied by a
    power of two (even 2^±997), and standardized values beyond
    ``±STANDARDIZED_LIMIT`` (far outside the training rows) are clipped
    there, so float32 activations stay finite and probabilities are never NaN.

    """

    _parameter_constraints = {
        "hidden_layer_sizes": ["array-like"],
        "output": [StrOptions({"learned", "random", "flat"})],
        "arity": [Interval(Integral, 2, None, closed="left"), None],
        "depth": [Interval(Integral, 1, None, closed="left")],
        "epochs": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "lr": [Interval(Real, 0.0, None, closed="neither")],
        "tree_epochs": [Interval(Integral, 0, None, closed="left"), None],
        "reassign_per_epoch": [Interval(Integral, 1, None, closed="left")],
        "criterion": [StrOptions({"loglik", "class"})],
        "predict_method": [StrOptions({"exact", "greedy"})],
        "n_threads": [Interval(Integral, 1, None, closed="left"), None],
        "device": [str, torch.device],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(
        self,
        hidden_layer_sizes: Sequence[int] = (64,),
        output: str = "learned",
        arity: int | None = None,
        depth: int = 2,
        epochs: int = 20,
        batch_size: int = 128,
        lr: float = 0.01,
        tree_epochs: int | None = None,
        reassign_per_epoch: int = 5,
        criterion: str = "loglik",
        predict_method: str = "exact",
        n_threads: int | None = None,
        device: str | torch.device = "cpu",
        random_state: int | np.random.RandomState | None = None,
        verbose: int = 0,
    ) -> None:
        self.hidden_layer_sizes = hidden_layer_sizes
        self.output = output
        self.arity = arity
        self.depth = depth
        self.epochs = epochs
        self.batch_size = batch_size
        self.lr = lr
        self.tree_epochs = tree_epochs
        self.reassign_per_epoch = reassign_per_epoch
        self.criterion = criterion
        self.predict_method = predict_method
        self.n_threads = n_threads
        self.device = device
        self.random_state = random_state
        self.verbose = verbose

    def _validate_params(self):
        """What ``_parameter_constraints`` cannot say: a device torch knows, positive layer widths."""
        resolve_device(self.device)
        sizes = tuple(self.hidden_layer_sizes)
        if any(isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 1 for s in sizes):
            raise ValueError(f"hidden_layer_sizes must hold positive integers, got {self.hidden_layer_sizes!r}.")
        return sizes

    def fit(self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None) -> Self:
        """Fit the representation and the tree (Algorithm 1) on (X, y).

        Inside an initialized torch.distributed process group every rank passes
        the same data and ``random_state`` and trains on its shard of each epoch
        (gradients averaged, tree statistics summed before every re-build).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training rows (standardized internally, see the class notes).
        y : array-like of shape (n_samples,)
            Class labels.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative row weights of the log-likelihood.

        Returns
        -------
        self : object
            The fitted estimator.

        See Also
        --------
        predict : The class of every row.
        """
        X, codes, sample_weight = open_classifier_fit(self, X, y, sample_weight, prepare_X=self._numeric)
        sizes = self._validate_params()
        k = self.classes_.shape[0]
        self.mean_, self.scale_ = _standardizer(X)
        rng = check_random_state(self.random_state)
        with _threads(self.n_threads), torch.random.fork_rng():
            torch.manual_seed(int(rng.randint(2**31 - 1)))
            self._fit(X, codes, sample_weight, sizes, k, rng)
        return self

    def _make_module(self, n_features, sizes, k, tree=None):
        """``module_`` (MLP body + head) on ``device_``; ``tree`` is the label tree of a tree head."""
        layers, width = [], n_features
        for size in sizes:
            layers += [nn.Linear(width, int(size)), nn.ReLU()]
            width = int(size)
        body = nn.Sequential(*layers)
        head: nn.Module
        if self.output == "flat":
            head = nn.Linear(width, k)
        else:
            head = TreeSoftmax(width, tree, criterion=self.criterion, track_stats=self.output == "learned")
        self.label_tree_ = tree
        self.device_ = resolve_device(self.device)
        self.module_ = _Network(dict(body=body, head=head)).to(self.device_)
        return body, head

    def _fit(self, X, codes, sample_weight, sizes, k, rng):
        tree = None
        if self.output != "flat":
            tree = LabelTree.random(k, self.arity, self.depth, random_state=rng.randint(2**31 - 1))
        _, head = self._make_module(X.shape[1], sizes, k, tree)
        opt = torch.optim.Adam(self.module_.parameters(), lr=self.lr)
        dev = self.device_
        Xt = torch.as_tensor(_standardize(X, self.mean_, self.scale_), dtype=torch.float32).to(dev)
        yt = torch.as_tensor(codes, dtype=torch.long).to(dev)
        wt = torch.as_tensor(sample_weight, dtype=torch.float32).to(dev)
        group = ddp.process_group()
        net = self.module_ if group is None else ddp.wrap(self.module_, dev)
        n = X.shape[0]
        n_local = ddp.shard(np.arange(n), group).shape[0]
        bs = min(int(self.batch_size), n_local)
        n_batches = (n_local + bs - 1) // bs
        tree_epochs = self.epochs // 2 if self.tree_epochs is None else int(self.tree_epochs)
        schedule = ReassignSchedule(n_batches, self.reassign_per_epoch, tree_epochs)
        learned = self.output == "learned"
        self.history_ = []
        show = self.verbose and (group is None or group[0] == 0)
        bar = progress_bar(show, int(self.epochs), desc=f"{self.output} tree softmax", unit="epoch")
        for epoch in range(int(self.epochs)):
            self.module_.train()
            if learned:
                head.track_stats = epoch < tree_epochs
            perm = torch.as_tensor(ddp.shard(rng.permutation(n), group)).to(dev)
            total = torch.zeros((), dtype=torch.float64, device=dev)  # no host sync per step
            moved = 0
            for b in range(n_batches):
                idx = perm[b * bs : (b + 1) * bs]
                lp = net(Xt[idx], yt[idx])
                w = wt[idx]
                loss = -(w * lp).sum() / w.sum().clamp_min(1e-12)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                total += loss.detach() * idx.shape[0]
                if learned and schedule.due_after(epoch, b):
                    ddp.sum_statistics(head, group)
                    moved += head.reassign()["moved"]
                    ddp.keep_statistics_once(head, group)
                    _carry_optimizer_state(opt, head)
            loss = ddp.sum_scalar(total, group).item() / (n_local * (1 if group is None else group[1]))
            self.history_.append(dict(epoch=epoch + 1, loss=loss, moved=moved))
            bar.update()
        bar.close()
        self.module_.eval()

    def _numeric(self, X):
        """``X`` unchanged once every column reads as numbers; a column of labels is refused naming it."""
        name = type(self).__name__
        advice = (
            f"{name} reads numbers only: code its strings as numbers first (e.g. with scikit-learn's OneHotEncoder)."
        )
        return refuse_text_columns(X, name, advice=advice)

    @torch.no_grad()
    def _represent(self, X):
        check_is_fitted(self)
        X = validate_data(self, self._numeric(X), dtype=np.float64, reset=False)
        self.module_.eval()
        Xt = torch.as_tensor(_standardize(X, self.mean_, self.scale_), dtype=torch.float32).to(self.device_)
        return self.module_["body"](Xt)

    def predict_log_proba(self, X: ArrayLike, batch_size: int = 1024) -> np.ndarray:
        """Log class probabilities, computed in row blocks.

        The tree's full distribution costs O(K) memory per row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.
        batch_size : int, default=1024
            Rows per forward pass.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
            Log class probabilities, columns in the order of ``classes_``.

        See Also
        --------
        predict_proba : The probabilities.
        """
        with _threads(self.n_threads), torch.no_grad():
            h = self._represent(X)
            head = self.module_["head"]
            out = np.empty((h.shape[0], self.classes_.shape[0]))
            for s in range(0, h.shape[0], batch_size):
                block = h[s : s + batch_size]
                if isinstance(head, TreeSoftmax):
                    lp = head.full_log_prob(block)
                else:
                    lp = F.log_softmax(head(block), dim=1)
                out[s : s + batch_size] = lp.double().cpu().numpy()
        return out

    def predict_proba(self, X: ArrayLike) -> np.ndarray:
        """Class probabilities (columns in ``classes_`` order); rows sum to one.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
            Class probabilities of every row, columns in the order of ``classes_``.

        See Also
        --------
        predict : The most probable class of every row.
        """
        return np.exp(self.predict_log_proba(X))

    def predict(self, X: ArrayLike) -> np.ndarray:
        """Class of every row.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The rows.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
            Predicted class label of every row.

        See Also
        --------
        predict_proba : Class probabilities of every row.
        """
        if self.predict_method == "greedy" and self.output != "flat":
            with _threads(self.n_threads), torch.no_grad():
                head: Any = self.module_["head"]
                codes = head.predict(self._represent(X), method="greedy").cpu().numpy()
        else:
            codes = np.argmax(self.predict_log_proba(X), axis=1)
        return self.classes_[codes]

    # ------------------------------------------------------------------ persistence
    def save(self, path: str | os.PathLike[str]) -> None:
        """Write the fitted classifier to one file.

        The file holds the weights, label tree, classes, input scaling and
        hyper-parameters as tensors and plain Python values, readable with
        ``torch.load(path, weights_only=True)``.

        Parameters
        ----------
        path : str or Path
            The file to write.

        See Also
        --------
        load : Read the file back.
        """
        check_is_fitted(self)
        params = self.get_params()
        params["hidden_layer_sizes"] = [int(v) for v in params["hidden_layer_sizes"]]
        params["device"] = str(params["device"])
        tree = self.label_tree_
        save_payload(
            path,
            "prunus.TreeSoftmaxClassifier",
            dict(
                params=plain(params),
                classes=self.classes_.tolist(),
                classes_dtype=self.classes_.dtype.str if self.classes_.dtype != object else "object",
                mean=torch.as_tensor(self.mean_),
                scale=torch.as_tensor(self.scale_),
                n_features_in=int(self.n_features_in_),
                feature_names_in=None if not hasattr(self, "feature_names_in_") else self.feature_names_in_.tolist(),
                tree=None if tree is None else dict(arity=tree.arity, depth=tree.depth),
                state_dict=cpu_state(self.module_),
                history=plain(self.history_),
            ),
        )

    @classmethod
    def load(cls, path: str | os.PathLike[str], device: str | torch.device | None = None) -> Self:
        """A classifier written by :meth:`save`.

        Parameters
        ----------
        path : str or Path
            The file written by :meth:`save`.
        device : str or torch.device, optional
            Where the classifier is loaded; default: the saved ``device`` when
            it exists here, else the CPU.

        Returns
        -------
        classifier : TreeSoftmaxClassifier
            The fitted classifier.

        See Also
        --------
        save : Write a fitted classifier to one file.
        """
        payload = load_payload(path, "prunus.TreeSoftmaxClassifier")
        params = dict(payload["params"])
        params["hidden_layer_sizes"] = tuple(params["hidden_layer_sizes"])
        clf = cls(**params)
        if device is not None:
            clf.device = device
        elif clf.device != "auto" and torch.device(clf.device).type == "cuda" and not torch.cuda.is_available():
            clf.device = "cpu"
        sizes = clf._validate_params()
        clf.classes_ = np.asarray(payload["classes"], dtype=payload["classes_dtype"])
        clf.mean_ = payload["mean"].numpy()
        clf.scale_ = payload["scale"].numpy()
        clf.n_features_in_ = payload["n_features_in"]
        if payload["feature_names_in"] is not None:
            clf.feature_names_in_ = np.asarray(payload["feature_names_in"], dtype=object)
        t = payload["tree"]
        k = clf.classes_.shape[0]
        tree = None if t is None else LabelTree(k, t["arity"], t["depth"])
        clf._make_module(clf.n_features_in_, sizes, k, tree)
        clf.module_.load_state_dict(payload["state_dict"])
        clf.module_.eval()
        clf.history_ = payload["history"]
        return clf
