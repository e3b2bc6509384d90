"""TreeSoftmaxClassifier: a small MLP representation learned jointly with a label tree."""

from __future__ import annotations

import numpy as np
import torch
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils import check_random_state
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import _check_sample_weight, check_is_fitted, validate_data
from torch import nn
from torch.nn import functional as F

from ..utils._param_validation import Integral, Interval, Real, StrOptions, validate_fit
from ._label_tree import LabelTree
from ._lm import _carry_optimizer_state, _threads
from ._module import ReassignSchedule, TreeSoftmax


class TreeSoftmaxClassifier(ClassifierMixin, BaseEstimator):
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
    epochs : int
    batch_size : int
    lr : float
        Adam step size.
    tree_epochs : int or None
        Epochs that learn the tree (``None``: half of ``epochs``).
    reassign_per_epoch : int
    criterion : {"loglik", "class"}
        Algorithm 2's greedy criterion (eq. 12 or eq. 10).
    predict_method : {"exact", "greedy"}
        ``predict`` by the argmax over all classes, or by following the most
        likely child down the tree (O(D M d) per example).
    n_threads : int or None
        torch intra-op threads during fit / predict.
    random_state : int, RandomState or None

    Attributes
    ----------
    classes_ : array (n_classes,)
    label_tree_ : LabelTree or None
    module_ : torch.nn.Module
    history_ : list of dict (per epoch ``loss``, ``moved``)
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
        "random_state": ["random_state"],
    }

    def __init__(self, hidden_layer_sizes=(64,), output="learned", arity=None, depth=2, epochs=20,
                 batch_size=128, lr=0.01, tree_epochs=None, reassign_per_epoch=5, criterion="loglik",
                 predict_method="exact", n_threads=None, random_state=None):
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
        self.random_state = random_state

    def _validate_params(self):
        if self.output not in ("learned", "random", "flat"):
            raise ValueError(f"output must be 'learned', 'random' or 'flat', got {self.output!r}.")
        if self.predict_method not in ("exact", "greedy"):
            raise ValueError(f"predict_method must be 'exact' or 'greedy', got {self.predict_method!r}.")
        for name in ("epochs", "batch_size", "depth"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v < 1:
                raise ValueError(f"{name} must be a positive integer, got {v!r}.")
        if not (isinstance(self.lr, (int, float)) and self.lr > 0):
            raise ValueError(f"lr must be a positive number, got {self.lr!r}.")
        sizes = tuple(self.hidden_layer_sizes)
        if any(isinstance(s, bool) or not isinstance(s, (int, np.integer)) or s < 1 for s in sizes):
            raise ValueError(f"hidden_layer_sizes must hold positive integers, got {self.hidden_layer_sizes!r}.")
        return sizes

    def fit(self, X, y, sample_weight=None):
        """Fit the representation and the tree (Algorithm 1) on (X, y)."""
        validate_fit(self, y)
        sizes = self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64)
        check_classification_targets(y)
        sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
        self.classes_, codes = np.unique(y, return_inverse=True)
        k = self.classes_.shape[0]
        if k < 2:
            raise ValueError("TreeSoftmaxClassifier needs samples of at least 2 classes in y; "
                             f"got 1 class ({self.classes_[0]!r}).")
        self.mean_ = X.mean(axis=0)
        scale = X.std(axis=0)
        self.scale_ = np.where(scale > 0, scale, 1.0)
        rng = check_random_state(self.random_state)
        with _threads(self.n_threads), torch.random.fork_rng():
            torch.manual_seed(int(rng.randint(2**31 - 1)))
            self._fit(X, codes, sample_weight, sizes, k, rng)
        return self

    def _fit(self, X, codes, sample_weight, sizes, k, rng):
        layers, width = [], X.shape[1]
        for size in sizes:
            layers += [nn.Linear(width, int(size)), nn.ReLU()]
            width = int(size)
        body = nn.Sequential(*layers)
        self.label_tree_ = None
        if self.output == "flat":
            head = nn.Linear(width, k)
        else:
            tree = LabelTree.random(k, self.arity, self.depth, random_state=rng.randint(2**31 - 1))
            head = TreeSoftmax(width, tree, criterion=self.criterion, track_stats=self.output == "learned")
            self.label_tree_ = tree
        self.module_ = nn.ModuleDict(dict(body=body, head=head))
        opt = torch.optim.Adam(self.module_.parameters(), lr=self.lr)
        Xt = torch.as_tensor((X - self.mean_) / self.scale_, dtype=torch.float32)
        yt = torch.as_tensor(codes, dtype=torch.long)
        wt = torch.as_tensor(sample_weight, dtype=torch.float32)
        n = X.shape[0]
        bs = min(int(self.batch_size), n)
        n_batches = (n + bs - 1) // bs
        tree_epochs = self.epochs // 2 if self.tree_epochs is None else int(self.tree_epochs)
        schedule = ReassignSchedule(n_batches, self.reassign_per_epoch, tree_epochs)
        learned = self.output == "learned"
        self.history_ = []
        for epoch in range(int(self.epochs)):
            self.module_.train()
            if learned:
                head.track_stats = epoch < tree_epochs
            perm = torch.as_tensor(rng.permutation(n))
            total, moved = 0.0, 0
            for b in range(n_batches):
                idx = perm[b * bs:(b + 1) * bs]
                lp = self._log_prob(body(Xt[idx]), yt[idx])
                w = wt[idx]
                loss = -(w * lp).sum() / w.sum().clamp_min(1e-12)
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                total += loss.item() * idx.shape[0]
                if learned and schedule.due_after(epoch, b):
                    moved += head.reassign()["moved"]
                    _carry_optimizer_state(opt, head)
            self.history_.append(dict(epoch=epoch + 1, loss=total / n, moved=moved))
        self.module_.eval()

    def _log_prob(self, h, y):
        head = self.module_["head"]
        if isinstance(head, TreeSoftmax):
            return head.log_prob(h, y)
        return F.log_softmax(head(h), dim=1).gather(1, y[:, None]).squeeze(1)

    @torch.no_grad()
    def _represent(self, X):
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        self.module_.eval()
        return self.module_["body"](torch.as_tensor((X - self.mean_) / self.scale_, dtype=torch.float32))

    def predict_log_proba(self, X, batch_size=1024):
        """Log class probabilities, computed in row blocks (the tree's full
        distribution costs O(K) memory per row)."""
        with _threads(self.n_threads), torch.no_grad():
            h = self._represent(X)
            head = self.module_["head"]
            out = np.empty((h.shape[0], self.classes_.shape[0]))
            for s in range(0, h.shape[0], batch_size):
                block = h[s:s + batch_size]
                if isinstance(head, TreeSoftmax):
                    lp = head.full_log_prob(block)
                else:
                    lp = F.log_softmax(head(block), dim=1)
                out[s:s + batch_size] = lp.double().numpy()
        return out

    def predict_proba(self, X):
        """Class probabilities (columns in ``classes_`` order); rows sum to one."""
        return np.exp(self.predict_log_proba(X))

    def predict(self, X):
        if self.predict_method == "greedy" and self.output != "flat":
            with _threads(self.n_threads), torch.no_grad():
                codes = self.module_["head"].predict(self._represent(X), method="greedy").numpy()
        else:
            codes = np.argmax(self.predict_log_proba(X), axis=1)
        return self.classes_[codes]
