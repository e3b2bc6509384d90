"""Hierarchical log-bilinear language model (section 6) with four output layers."""

from __future__ import annotations

import math
import time
import warnings

import numpy as np
import torch
from sklearn.utils import check_random_state
from torch import nn
from torch.nn import functional as F
from tqdm.auto import tqdm

from ..utils._param_validation import Integral, Interval, Real, StrOptions, validate_fit
from ._label_tree import LabelTree
from ._module import ReassignSchedule, TreeSoftmax

OUTPUTS = ("learned", "random", "flat", "adaptive")


def check_ids(ids, name, vocab_size, min_len=1):
    """Token ids as an int64 array (1-D, in range); ValueError naming ``name`` otherwise."""
    arr = np.asarray(ids)
    if arr.ndim != 1 or arr.shape[0] < min_len:
        raise ValueError(f"{name} must be a 1-D array of at least {min_len} token ids.")
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must hold integer token ids, got dtype {arr.dtype}.")
    if arr.min() < 0 or arr.max() >= vocab_size:
        raise ValueError(f"{name} must lie in [0, {vocab_size}); got ids in [{arr.min()}, {arr.max()}].")
    return arr.astype(np.int64)


class _threads:
    """Temporarily set torch's intra-op thread count."""

    def __init__(self, n):
        self.n = n

    def __enter__(self):
        self.old = torch.get_num_threads()
        if self.n is not None:
            torch.set_num_threads(int(self.n))

    def __exit__(self, *exc):
        torch.set_num_threads(self.old)


def _carry_optimizer_state(opt, head):
    """Keep per-parameter optimizer state (Adagrad's sums) aligned with moved leaf rows."""
    if not head.carry_leaf_rows:
        return
    for param in (head.weight, head.bias):
        for value in opt.state.get(param, {}).values():
            if isinstance(value, torch.Tensor) and value.shape == param.shape:
                head.carry_rows(value)


class _HLBL(nn.Module):
    """r_x = sum_k R_k U_{w_{t-k}} (section 6) followed by an output layer."""

    def __init__(self, vocab_size, context_size, dim, head, sparse=False):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, dim, sparse=sparse)
        nn.init.normal_(self.embedding.weight, std=0.1)
        # R_k starts near the identity so that r_x is a sum of context embeddings.
        eye = torch.eye(dim).expand(context_size, dim, dim)
        self.context = nn.Parameter(eye + torch.randn(context_size, dim, dim) * (0.1 / math.sqrt(dim)))
        self.head = head

    def represent(self, ctx):
        """ctx: (B, T) ids, column k holding w_{t-k-1}; returns r_x of shape (B, dim)."""
        return torch.einsum("btd,ted->be", self.embedding(ctx), self.context)


class TreeLanguageModel:
    """HLBL n-gram language model with a tree-structured, flat or adaptive softmax.

    Parameters
    ----------
    vocab_size : int
    context_size : int
        T, number of previous words (3 for PTB in the paper, 4 for Gutenberg).
    dim : int
        d_r, size of word embeddings and context representation.
    output : {"learned", "random", "flat", "adaptive"}
        ``"learned"``: :class:`TreeSoftmax` whose tree is re-built by Algorithm 2
        during the first ``tree_epochs`` epochs (Algorithm 1), then fixed;
        ``"random"``: the same layer with a fixed random tree; ``"flat"``: a
        full softmax ``log_softmax(W r + b)``; ``"adaptive"``:
        :class:`torch.nn.AdaptiveLogSoftmaxWithLoss` (words ranked by training
        frequency, ``cutoffs``).
    arity : int or None
        M; ``None`` is the smallest M with M**depth >= vocab_size.
    depth : int
    batch_size, lr : int, float
        Adagrad step size (the paper: 0.025).
    weight_decay : float
        L2 multiplier (the paper: 5e-5 on PTB, 0 on Gutenberg).
    tree_epochs : int
        Epochs during which the tree is learned (then fine-tuning with it fixed).
    reassign_per_epoch : int
        Re-builds of the tree per epoch while learning it (the paper: 20).
    criterion : {"loglik", "class"}
        Algorithm 2's greedy criterion, eq. 12 or eq. 10.
    min_count : int
        Labels seen fewer times at a node are not moved there by Algorithm 2
        (their p_{j|i} estimate is too noisy); 0 moves every label.
    stats : {"cumulative", "window"}
        Node statistics summed since the start (Algorithm 1) or only since the
        previous re-assignment.
    tree_init : {"random", "frequency"}
        Initial tree of ``"learned"`` (``"random"`` uses the same tree as the
        random baseline for a given ``random_state``).
    cutoffs : list of int or None
        Adaptive softmax cluster boundaries; default ``[V // 5, V // 2]``.
    pad_id : int or None
        Id used for the context before the first token; default: the last token
        of the training stream (``<eos>`` for PTB-style streams).
    n_threads : int or None
        torch intra-op threads while fitting / evaluating (restored after);
        ``None`` leaves torch's setting. On a busy machine 1 thread is often
        several times faster than oversubscribed ones.
    random_state : int, RandomState or None
    progress : bool
        tqdm bar over batches.

    Attributes
    ----------
    module_ : torch.nn.Module
    history_ : list of dict
        Per epoch: ``epoch``, ``train_nll``, ``seconds``, ``ms_per_batch``,
        ``tree_learning``, ``moved`` (labels moved by re-assignments),
        ``mean_J`` and one ``perplexity_<name>`` per evaluation set.
    ms_per_batch_ : float
        Mean wall time of one training step (forward, backward, update; tree
        re-builds excluded and reported in ``reassign_seconds_``) over the last fit.
    """

    _parameter_constraints = {
        "vocab_size": [Interval(Integral, 2, None, closed="left")],
        "context_size": [Interval(Integral, 1, None, closed="left")],
        "dim": [Interval(Integral, 1, None, closed="left")],
        "output": [StrOptions(set(OUTPUTS))],
        "arity": [Interval(Integral, 2, None, closed="left"), None],
        "depth": [Interval(Integral, 1, None, closed="left")],
        "batch_size": [Interval(Integral, 1, None, closed="left")],
        "lr": [Interval(Real, 0.0, None, closed="neither")],
        "weight_decay": [Interval(Real, 0.0, None, closed="left")],
        "tree_epochs": [Interval(Integral, 0, None, closed="left")],
        "reassign_per_epoch": [Interval(Integral, 1, None, closed="left")],
        "criterion": [StrOptions({"loglik", "class"})],
        "min_count": [Interval(Integral, 0, None, closed="left")],
        "stats": [StrOptions({"cumulative", "window"})],
        "tree_init": [StrOptions({"random", "frequency"})],
        "cutoffs": ["array-like", None],
        "pad_id": [Interval(Integral, 0, None, closed="left"), None],
        "n_threads": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
        "progress": ["boolean"],
    }

    def __init__(self, vocab_size, context_size=4, dim=100, output="learned", arity=None, depth=3,
                 batch_size=256, lr=0.025, weight_decay=0.0, tree_epochs=1, reassign_per_epoch=20,
                 criterion="loglik", min_count=0, stats="cumulative", tree_init="random", cutoffs=None,
                 pad_id=None, n_threads=None,
                 random_state=None, progress=True):
        self.vocab_size = vocab_size
        self.context_size = context_size
        self.dim = dim
        self.output = output
        self.arity = arity
        self.depth = depth
        self.batch_size = batch_size
        self.lr = lr
        self.weight_decay = weight_decay
        self.tree_epochs = tree_epochs
        self.reassign_per_epoch = reassign_per_epoch
        self.criterion = criterion
        self.stats = stats
        self.min_count = min_count
        self.tree_init = tree_init
        self.cutoffs = cutoffs
        self.pad_id = pad_id
        self.n_threads = n_threads
        self.random_state = random_state
        self.progress = progress

    # ------------------------------------------------------------------ setup
    def _validate(self):
        if self.output not in OUTPUTS:
            raise ValueError(f"output must be one of {OUTPUTS}, got {self.output!r}.")
        for name in ("vocab_size", "context_size", "dim", "batch_size", "depth"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}.")
        if self.vocab_size < 2:
            raise ValueError("vocab_size must be >= 2.")
        if not self.lr > 0:
            raise ValueError(f"lr must be > 0, got {self.lr!r}.")
        if self.stats not in ("cumulative", "window"):
            raise ValueError(f"stats must be 'cumulative' or 'window', got {self.stats!r}.")
        if self.tree_init not in ("random", "frequency"):
            raise ValueError(f"tree_init must be 'random' or 'frequency', got {self.tree_init!r}.")

    def _build(self, train):
        rng = check_random_state(self.random_state)
        torch.manual_seed(int(rng.randint(2**31 - 1)))
        v = int(self.vocab_size)
        freq = np.bincount(train, minlength=v).astype(np.float64)
        self.rank_ = None
        # Sparse gradients (embedding rows, tree nodes on the batch's paths) keep
        # the Adagrad update proportional to the batch, not the vocabulary;
        # torch's Adagrad has no weight decay for sparse gradients.
        sparse = self.weight_decay == 0
        if self.output in ("learned", "random"):
            if self.output == "learned" and self.tree_init == "frequency":
                tree = LabelTree.frequency_balanced(freq, self.arity, self.depth)
            else:
                tree = LabelTree.random(v, self.arity, self.depth, random_state=rng.randint(2**31 - 1))
            head = TreeSoftmax(self.dim, tree, criterion=self.criterion,
                               track_stats=self.output == "learned", sparse=sparse)
        elif self.output == "flat":
            head = nn.Linear(self.dim, v)
        else:
            # AdaptiveLogSoftmaxWithLoss wants the most frequent words first.
            order = np.argsort(-freq, kind="stable")
            self.rank_ = np.empty(v, dtype=np.int64)
            self.rank_[order] = np.arange(v)
            cutoffs = self.cutoffs or sorted({max(1, v // 5), max(2, v // 2)})
            cutoffs = [c for c in cutoffs if 0 < c < v]
            # tail cluster i projects to dim // div**(i+1) units: keep at least one
            div = 4.0
            while div > 1.0 and int(self.dim // div ** len(cutoffs)) < 1:
                div /= 2.0
            head = nn.AdaptiveLogSoftmaxWithLoss(self.dim, v, cutoffs=cutoffs, div_value=div)
        self.module_ = _HLBL(v, int(self.context_size), int(self.dim), head, sparse=sparse)
        self.pad_id_ = int(train[-1]) if self.pad_id is None else int(self.pad_id)

    def _contexts(self, padded, positions):
        """(B, T) context ids of the tokens at ``positions`` (indices into the stream)."""
        t = int(self.context_size)
        return padded[positions[:, None] + t - torch.arange(1, t + 1)[None, :]]

    def _pad(self, ids):
        pad = torch.full((int(self.context_size),), self.pad_id_, dtype=torch.long)
        return torch.cat([pad, torch.as_tensor(ids, dtype=torch.long)])

    def _target(self, y):
        if self.rank_ is not None:
            return torch.as_tensor(self.rank_)[y]
        return y

    def _log_prob(self, h, y):
        """Exact log p(y | context) for every row (all outputs are normalized)."""
        head = self.module_.head
        if isinstance(head, TreeSoftmax):
            return head.log_prob(h, y)
        if isinstance(head, nn.Linear):
            return F.log_softmax(head(h), dim=1).gather(1, y[:, None]).squeeze(1)
        return head(h, self._target(y)).output

    # ------------------------------------------------------------------ training
    def fit(self, train_ids, epochs=4, valid_ids=None):
        validate_fit(self)
        with _threads(self.n_threads):
            return self._fit(train_ids, epochs, valid_ids)

    def _fit(self, train_ids, epochs=4, valid_ids=None):
        """Train with Adagrad for ``epochs`` passes over ``train_ids`` (shuffled positions).

        ``valid_ids`` may be an id array or a dict name -> ids; the perplexity of
        each is recorded in ``history_`` after every epoch (Figure 3).
        """
        self._validate()
        train = check_ids(train_ids, "train_ids", self.vocab_size, min_len=2)
        if isinstance(epochs, bool) or not isinstance(epochs, (int, np.integer)) or epochs < 1:
            raise ValueError(f"epochs must be a positive integer, got {epochs!r}.")
        evals = {} if valid_ids is None else (dict(valid_ids) if isinstance(valid_ids, dict)
                                              else {"valid": valid_ids})
        evals = {k: check_ids(v, f"valid_ids[{k!r}]", self.vocab_size) for k, v in evals.items()}
        self._build(train)
        rng = check_random_state(self.random_state)
        model = self.module_
        head = model.head
        opt = torch.optim.Adagrad(model.parameters(), lr=self.lr, weight_decay=self.weight_decay)
        # torch warns once per process that it skips sparse invariant checks.
        warnings.filterwarnings("ignore", message="Sparse invariant checks", category=UserWarning)
        padded = self._pad(train)
        target = torch.as_tensor(train)
        n = train.shape[0]
        bs = int(self.batch_size)
        n_batches = (n + bs - 1) // bs
        schedule = ReassignSchedule(n_batches, self.reassign_per_epoch, self.tree_epochs)
        learned = self.output == "learned"
        self.history_ = []
        step_time = 0.0
        steps = 0
        self.reassign_seconds_ = 0.0
        self.reassign_log_ = []
        for epoch in range(epochs):
            model.train()
            if isinstance(head, TreeSoftmax):
                head.track_stats = learned and epoch < self.tree_epochs
            perm = torch.as_tensor(rng.permutation(n))
            total_nll, epoch_time, moved = 0.0, 0.0, 0
            bar = tqdm(range(n_batches), desc=f"{self.output} epoch {epoch + 1}/{epochs}",
                       disable=not self.progress, leave=False, mininterval=1.0)
            for b in bar:
                pos = perm[b * bs:(b + 1) * bs]
                start = time.perf_counter()
                y = target[pos]
                h = model.represent(self._contexts(padded, pos))
                loss = -self._log_prob(h, y).mean()
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                elapsed = time.perf_counter() - start
                epoch_time += elapsed
                total_nll += loss.item() * pos.shape[0]
                if learned and schedule.due_after(epoch, b):
                    info = head.reassign(reset_stats=self.stats == "window", min_count=self.min_count)
                    _carry_optimizer_state(opt, head)
                    moved += info["moved"]
                    self.reassign_seconds_ += info["seconds"]
                    self.reassign_log_.append(dict(epoch=epoch, batch=b, moved=info["moved"],
                                                   mean_J=float(np.nanmean(info["J"])),
                                                   root_J=float(info["J"][0])))
                if b % 50 == 0:
                    bar.set_postfix(ppl=f"{math.exp(min(total_nll / ((b * bs) + pos.shape[0]), 50)):.1f}")
            bar.close()
            step_time += epoch_time
            steps += n_batches
            record = dict(epoch=epoch + 1, train_nll=total_nll / n, seconds=epoch_time,
                          ms_per_batch=1000.0 * epoch_time / n_batches,
                          tree_learning=learned and epoch < self.tree_epochs, moved=moved)
            if isinstance(head, TreeSoftmax) and learned:
                record["mean_J"] = float(np.nanmean(head.node_objectives()))
            for name, ids in evals.items():
                record[f"perplexity_{name}"] = self.perplexity(ids)
            self.history_.append(record)
        self.ms_per_batch_ = 1000.0 * step_time / max(steps, 1)
        return self

    # ------------------------------------------------------------------ evaluation
    def _check_fitted(self):
        if not hasattr(self, "module_"):
            raise RuntimeError("This TreeLanguageModel is not fitted yet; call fit first.")

    def log_prob(self, ids, batch_size=4096):
        """log p(w_t | w_{t-T..t-1}) of every token of ``ids`` (exactly normalized)."""
        with _threads(self.n_threads):
            return self._log_prob_ids(ids, batch_size)

    @torch.no_grad()
    def _log_prob_ids(self, ids, batch_size):
        self._check_fitted()
        ids = check_ids(ids, "ids", self.vocab_size)
        self.module_.eval()
        padded = self._pad(ids)
        target = torch.as_tensor(ids)
        out = []
        for s in range(0, ids.shape[0], batch_size):
            pos = torch.arange(s, min(s + batch_size, ids.shape[0]))
            h = self.module_.represent(self._contexts(padded, pos))
            out.append(self._log_prob(h, target[pos]))
        return torch.cat(out).double().numpy()

    def perplexity(self, ids):
        """exp of the mean negative log-likelihood per token, exactly normalized.

        Every output layer gives a proper distribution over the whole vocabulary
        (the tree's node softmaxes multiply to one over the K leaves), so no
        sampled or approximate normalizer is involved.
        """
        return float(np.exp(-np.mean(self.log_prob(ids))))

    @torch.no_grad()
    def full_log_prob(self, context_ids):
        """log p(. | context) over the whole vocabulary: (B, V) for (B, T) contexts.

        Column k of ``context_ids`` holds w_{t-k-1} (most recent word first).
        """
        self._check_fitted()
        ctx = torch.as_tensor(np.asarray(context_ids), dtype=torch.long)
        self.module_.eval()
        h = self.module_.represent(ctx)
        head = self.module_.head
        if isinstance(head, TreeSoftmax):
            return head.full_log_prob(h).double().numpy()
        if isinstance(head, nn.Linear):
            return F.log_softmax(head(h), dim=1).double().numpy()
        return head.log_prob(h)[:, torch.as_tensor(self.rank_)].double().numpy()

    def contexts(self, ids):
        """(N, T) context ids of every token of ``ids`` (as used by :meth:`log_prob`)."""
        self._check_fitted()
        ids = check_ids(ids, "ids", self.vocab_size)
        return self._contexts(self._pad(ids), torch.arange(ids.shape[0])).numpy()

    @property
    def label_tree_(self):
        """The (learned or random) :class:`LabelTree`; None for flat / adaptive."""
        self._check_fitted()
        head = self.module_.head
        return head.tree if isinstance(head, TreeSoftmax) else None
