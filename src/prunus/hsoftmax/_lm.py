"""Hierarchical log-bilinear language model (section 6) with four output layers."""

from __future__ import annotations

import math
import os
import time
import warnings
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
from numpy.typing import ArrayLike
from sklearn.utils import check_random_state
from torch import nn
from torch.nn import functional as F
from tqdm.auto import tqdm

from ..utils._param_validation import Integral, Interval, Real, StrOptions, validate_fit, validate_params
from . import _distributed as ddp
from ._huffman import HuffmanTree
from ._io import cpu_state, load_payload, plain, save_payload
from ._label_tree import LabelTree, default_arity
from ._module import ReassignSchedule, TreeSoftmax

if TYPE_CHECKING:
    from typing_extensions import Self

    from ..datasets import Vocabulary

OUTPUTS = ("learned", "random", "huffman", "flat", "adaptive")


def check_ids(ids: ArrayLike, name: str, vocab_size: int, min_len: int = 1) -> np.ndarray:
    """Token ids as an int64 array (1-D, in range); ValueError naming ``name`` otherwise."""
    arr = np.asarray(ids)
    if arr.ndim != 1 or arr.shape[0] < min_len:
        raise ValueError(f"{name} must be a 1-D array of at least {min_len} token ids.")
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"{name} must hold integer token ids, got dtype {arr.dtype}.")
    if arr.min() < 0 or arr.max() >= vocab_size:
        raise ValueError(f"{name} must lie in [0, {vocab_size}); got ids in [{arr.min()}, {arr.max()}].")
    return arr.astype(np.int64)


#: Arguments of :meth:`TreeLanguageModel.fit`.
FIT_CONSTRAINTS = {"epochs": [Interval(Integral, 1, None, closed="left")]}

#: torch's intra-op thread count (None: torch's default).
THREADS_CONSTRAINTS = {"n_threads": [Interval(Integral, 1, None, closed="left"), None]}


def check_contexts(context_ids: ArrayLike, context_size: int, vocab_size: int) -> np.ndarray:
    """(n, context_size) int64 context ids in range; errors name ``context_ids``."""
    arr = np.asarray(context_ids)
    if arr.ndim != 2:
        raise ValueError(f"context_ids must be a 2-D array of shape (n, {context_size}); got {arr.ndim} dimension(s).")
    if arr.shape[1] != context_size:
        raise ValueError(f"context_ids must have context_size = {context_size} columns, got {arr.shape[1]}.")
    if not np.issubdtype(arr.dtype, np.integer):
        raise TypeError(f"context_ids must hold integer token ids, got dtype {arr.dtype}.")
    if arr.size and (arr.min() < 0 or arr.max() >= vocab_size):
        raise ValueError(f"context_ids must lie in [0, {vocab_size}); got ids in [{arr.min()}, {arr.max()}].")
    return arr.astype(np.int64)


def resolve_device(device):
    """``"cpu"``, ``"cuda"`` (``"cuda:1"``, a ``torch.device``) or ``"auto"`` (cuda when available) as a torch.device."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        dev = torch.device(device)
    except (RuntimeError, TypeError) as exc:
        raise ValueError(f"device must be 'cpu', 'cuda', 'auto' or a torch.device, got {device!r}.") from exc
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(f"device={device!r} but torch.cuda.is_available() is False; use 'cpu' or 'auto'.")
    return dev


def _elapsed(start, device):
    """Seconds since ``start``, after the device finished its queued work."""
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    return time.perf_counter() - start


class _threads:
    """Temporarily set torch's intra-op thread count."""

    def __init__(self, n):
        validate_params(THREADS_CONSTRAINTS, {"n_threads": n}, "torch threads")
        self.n = None if n is None else int(n)

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

    def forward(self, ctx, y):
        """log p(y | ctx) of every row; ``y`` in the head's label ids (frequency ranks for
        the adaptive softmax). A forward, so that DistributedDataParallel can wrap the model."""
        h = self.represent(ctx)
        head = self.head
        if isinstance(head, TreeSoftmax):
            return head.log_prob(h, y)
        if isinstance(head, nn.Linear):
            return F.log_softmax(head(h), dim=1).gather(1, y[:, None]).squeeze(1)
        return head(h, y).output


class TreeLanguageModel:
    """HLBL n-gram language model with a tree-structured, flat or adaptive softmax.

    Parameters
    ----------
    vocab_size : int
        Number of distinct token ids (ids are ``0 .. vocab_size - 1``).
    context_size : int
        T, number of previous words (3 for PTB in the paper, 4 for Gutenberg).
    dim : int
        d_r, size of word embeddings and context representation.
    output : {"learned", "random", "huffman", "flat", "adaptive"}
        ``"learned"``: :class:`TreeSoftmax` whose tree is re-built by Algorithm 2
        during the first ``tree_epochs`` epochs (Algorithm 1), then fixed;
        ``"random"``: the same layer with a fixed random tree; ``"huffman"``:
        the same layer with the fixed M-ary Huffman tree of the training word
        frequencies (:class:`HuffmanTree`, as in word2vec / fastText; paths of
        different lengths, ``depth`` unused); ``"flat"``: a
        full softmax ``log_softmax(W r + b)``; ``"adaptive"``:
        :class:`torch.nn.AdaptiveLogSoftmaxWithLoss` (words ranked by training
        frequency, ``cutoffs``).
    arity : int or None
        M; ``None`` is the smallest M with M**depth >= vocab_size.
    depth : int
        D, the depth of the label tree.
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
    device : {"cpu", "cuda", "auto"} or torch.device
        Where the model is trained and evaluated (``"auto"``: cuda when
        available). Token ids are checked once on the host; the training step
        itself never waits for the device (the training loss is summed there).
    random_state : int, RandomState or None
        Seeds the initialization, the batches and the random label tree.
    verbose : int, default=0
        When > 0, a progress bar over each epoch's batches (with the running
        training perplexity); silent by default.
    progress : int or bool, default="deprecated"
        The former name of ``verbose``, accepted with a ``FutureWarning``
        (its value is used as ``verbose``).

        .. deprecated:: 0.1
           ``progress`` was renamed ``verbose``; it will be removed in 0.2.

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
    device_ : torch.device

    A fitted model is saved to one file with :meth:`save` and read back with
    :meth:`load`; it also pickles.

    See Also
    --------
    TreeSoftmax : The tree-structured output layer.
    TreeSoftmaxClassifier : The same output layer over an MLP for classification.
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
        "device": [str, torch.device],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
        "progress": ["verbose", StrOptions({"deprecated"})],
    }

    def __init__(
        self,
        vocab_size: int,
        context_size: int = 4,
        dim: int = 100,
        output: str = "learned",
        arity: int | None = None,
        depth: int = 3,
        batch_size: int = 256,
        lr: float = 0.025,
        weight_decay: float = 0.0,
        tree_epochs: int = 1,
        reassign_per_epoch: int = 20,
        criterion: str = "loglik",
        min_count: int = 0,
        stats: str = "cumulative",
        tree_init: str = "random",
        cutoffs: Sequence[int] | None = None,
        pad_id: int | None = None,
        n_threads: int | None = None,
        device: str | torch.device = "cpu",
        random_state: int | np.random.RandomState | None = None,
        verbose: int = 0,
        progress: int | str = "deprecated",
    ) -> None:
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
        self.device = device
        self.random_state = random_state
        self.verbose = verbose
        self.progress = progress

    # ------------------------------------------------------------------ setup
    def _validate(self):
        """Every parameter against ``_parameter_constraints``, then what they cannot say:
        a device torch knows, and ``pad_id`` inside the vocabulary."""
        validate_fit(self)
        self._verbose = self.verbose
        if not (isinstance(self.progress, str) and self.progress == "deprecated"):
            warnings.warn(
                "TreeLanguageModel's 'progress' was renamed 'verbose' in 0.1 and will be removed in 0.2; "
                "its value is used as verbose.",
                FutureWarning,
                stacklevel=3,
            )
            self._verbose = int(self.progress)
        resolve_device(self.device)
        if self.pad_id is not None and self.pad_id >= self.vocab_size:
            raise ValueError(f"pad_id must lie in [0, vocab_size = {self.vocab_size}), got {self.pad_id!r}.")

    def _build(self, train):
        rng = check_random_state(self.random_state)
        torch.manual_seed(int(rng.randint(2**31 - 1)))
        v = int(self.vocab_size)
        freq = np.bincount(train, minlength=v).astype(np.float64)
        self.rank_ = None
        tree: LabelTree | HuffmanTree | None = None
        self.head_config_: dict[str, Any]
        if self.output in ("learned", "random"):
            if self.output == "learned" and self.tree_init == "frequency":
                tree = LabelTree.frequency_balanced(freq, self.arity, self.depth)
            else:
                tree = LabelTree.random(v, self.arity, self.depth, random_state=rng.randint(2**31 - 1))
            self.head_config_ = dict(arity=tree.arity, depth=tree.depth)
        elif self.output == "huffman":
            arity = default_arity(v, int(self.depth)) if self.arity is None else int(self.arity)
            tree = HuffmanTree.build(freq, arity)
            self.head_config_ = dict(arity=arity)
        elif self.output == "flat":
            self.head_config_ = {}
        else:
            # AdaptiveLogSoftmaxWithLoss wants the most frequent words first.
            order = np.argsort(-freq, kind="stable")
            self.rank_ = np.empty(v, dtype=np.int64)
            self.rank_[order] = np.arange(v)
            cutoffs = self.cutoffs or sorted({max(1, v // 5), max(2, v // 2)})
            cutoffs = [int(c) for c in cutoffs if 0 < c < v]
            # tail cluster i projects to dim // div**(i+1) units: keep at least one
            div = 4.0
            while div > 1.0 and int(self.dim // div ** len(cutoffs)) < 1:
                div /= 2.0
            self.head_config_ = dict(cutoffs=cutoffs, div_value=div)
        self.pad_id_ = int(train[-1]) if self.pad_id is None else int(self.pad_id)
        self._make_module(tree)

    def _make_module(self, tree=None):
        """``module_`` on ``device_`` from ``head_config_`` (``tree``: the label tree, or a placeholder
        whose leaves :meth:`load` overwrites)."""
        v = int(self.vocab_size)
        config = self.head_config_
        # Sparse gradients (embedding rows, tree nodes on the batch's paths) keep
        # the Adagrad update proportional to the batch, not the vocabulary;
        # torch's Adagrad has no weight decay for sparse gradients.
        # (dense under torch.distributed: DistributedDataParallel reduces dense gradients)
        sparse = self.weight_decay == 0 and ddp.process_group() is None
        head: nn.Module
        if self.output in ("learned", "random", "huffman"):
            tree = LabelTree(v, config["arity"], config["depth"]) if tree is None else tree
            head = TreeSoftmax(
                self.dim, tree, criterion=self.criterion, track_stats=self.output == "learned", sparse=sparse
            )
        elif self.output == "flat":
            head = nn.Linear(self.dim, v)
        else:
            head = nn.AdaptiveLogSoftmaxWithLoss(self.dim, v, cutoffs=config["cutoffs"], div_value=config["div_value"])
        self.device_ = resolve_device(self.device)
        self.module_ = _HLBL(v, int(self.context_size), int(self.dim), head, sparse=sparse).to(self.device_)
        self._rank_t = None if self.rank_ is None else torch.as_tensor(self.rank_, device=self.device_)

    def _contexts(self, padded, positions):
        """(B, T) context ids of the tokens at ``positions`` (indices into the stream)."""
        t = int(self.context_size)
        return padded[positions[:, None] + t - torch.arange(1, t + 1, device=positions.device)[None, :]]

    def _pad(self, ids, device=None):
        pad = torch.full((int(self.context_size),), self.pad_id_, dtype=torch.long)
        return torch.cat([pad, torch.as_tensor(ids, dtype=torch.long)]).to(device or "cpu")

    def _target(self, y):
        if self._rank_t is not None:
            return self._rank_t[y]
        return y

    # ------------------------------------------------------------------ training
    def fit(
        self, train_ids: ArrayLike, epochs: int = 4, valid_ids: ArrayLike | dict[str, ArrayLike] | None = None
    ) -> Self:
        """Train with Adagrad for ``epochs`` passes over ``train_ids`` (shuffled positions).

        ``valid_ids`` may be an id array or a dict name -> ids; the perplexity of
        each is recorded in ``history_`` after every epoch (Figure 3).

        Inside an initialized torch.distributed process group every rank passes
        the same ``train_ids`` and ``random_state`` and trains on its shard of each
        epoch; gradients are averaged by DistributedDataParallel and the node
        statistics are summed over the ranks before every re-build of the tree,
        so all ranks end with the same tree and parameters.

        Parameters
        ----------
        train_ids : array-like of int
            The training token ids, one sequence.
        epochs : int, default=4
            Passes over the training positions.
        valid_ids : array-like of int or dict of str to array-like, optional
            Sequences whose perplexity is recorded after every epoch.

        Returns
        -------
        self : TreeLanguageModel
            The fitted model.

        See Also
        --------
        perplexity : The perplexity of a sequence under the model.
        """
        self._validate()
        with _threads(self.n_threads):
            return self._fit(train_ids, epochs, valid_ids)

    def _fit(self, train_ids, epochs=4, valid_ids=None):
        train = check_ids(train_ids, "train_ids", self.vocab_size, min_len=2)
        validate_params(FIT_CONSTRAINTS, {"epochs": epochs}, "TreeLanguageModel.fit")
        evals = {} if valid_ids is None else (dict(valid_ids) if isinstance(valid_ids, dict) else {"valid": valid_ids})
        evals = {k: check_ids(v, f"valid_ids[{k!r}]", self.vocab_size) for k, v in evals.items()}
        self._build(train)
        rng = check_random_state(self.random_state)
        model = self.module_
        head = model.head
        opt = torch.optim.Adagrad(model.parameters(), lr=self.lr, weight_decay=self.weight_decay)
        # torch warns once per process that it skips sparse invariant checks.
        warnings.filterwarnings("ignore", message="Sparse invariant checks", category=UserWarning)
        dev = self.device_
        padded = self._pad(train, dev)
        target = torch.as_tensor(train).to(dev)
        group = ddp.process_group()
        net = model if group is None else ddp.wrap(model, dev, find_unused=self.output == "adaptive")
        n = train.shape[0]
        n_local = ddp.shard(np.arange(n), group).shape[0]
        bs = int(self.batch_size)
        n_batches = (n_local + bs - 1) // bs
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
            perm = torch.as_tensor(ddp.shard(rng.permutation(n), group)).to(dev)
            # The training NLL stays on the device: no host synchronisation per step.
            total_nll = torch.zeros((), dtype=torch.float64, device=dev)
            epoch_time, moved = 0.0, 0
            bar = tqdm(
                range(n_batches),
                desc=f"{self.output} epoch {epoch + 1}/{epochs}",
                disable=not self._verbose,
                leave=False,
                mininterval=1.0,
            )
            start = time.perf_counter()
            for b in bar:
                pos = perm[b * bs : (b + 1) * bs]
                loss = -net(self._contexts(padded, pos), self._target(target[pos])).mean()
                opt.zero_grad(set_to_none=True)
                loss.backward()
                opt.step()
                total_nll += loss.detach() * pos.shape[0]
                if learned and schedule.due_after(epoch, b):
                    # tree re-builds are timed apart (reassign_seconds_)
                    epoch_time += _elapsed(start, dev)
                    ddp.sum_statistics(head, group)
                    info = head.reassign(reset_stats=self.stats == "window", min_count=self.min_count)
                    ddp.keep_statistics_once(head, group)
                    _carry_optimizer_state(opt, head)
                    moved += info["moved"]
                    self.reassign_seconds_ += info["seconds"]
                    self.reassign_log_.append(
                        dict(
                            epoch=epoch,
                            batch=b,
                            moved=info["moved"],
                            mean_J=float(np.nanmean(info["J"])),
                            root_J=float(info["J"][0]),
                        )
                    )
                    start = time.perf_counter()
                if self._verbose and b % 50 == 0:
                    bar.set_postfix(ppl=f"{math.exp(min(total_nll.item() / ((b * bs) + pos.shape[0]), 50)):.1f}")
            epoch_time += _elapsed(start, dev)
            bar.close()
            step_time += epoch_time
            steps += n_batches
            train_nll = ddp.sum_scalar(total_nll, group).item() / (n_local * (1 if group is None else group[1]))
            record = dict(
                epoch=epoch + 1,
                train_nll=train_nll,
                seconds=epoch_time,
                ms_per_batch=1000.0 * epoch_time / n_batches,
                tree_learning=learned and epoch < self.tree_epochs,
                moved=moved,
            )
            if isinstance(head, TreeSoftmax) and learned:
                j = head.node_objectives()  # NaN everywhere on ranks > 0 right after a re-build
                record["mean_J"] = float(np.nanmean(j)) if np.isfinite(j).any() else float("nan")
            for name, ids in evals.items():
                record[f"perplexity_{name}"] = self.perplexity(ids)
            self.history_.append(record)
        self.ms_per_batch_ = 1000.0 * step_time / max(steps, 1)
        return self

    # ------------------------------------------------------------------ evaluation
    def _check_fitted(self):
        if not hasattr(self, "module_"):
            raise RuntimeError("This TreeLanguageModel is not fitted yet; call fit first.")

    def log_prob(self, ids: ArrayLike, batch_size: int = 4096) -> np.ndarray:
        """log p(w_t | w_{t-T..t-1}) of every token of ``ids`` (exactly normalized).

        Parameters
        ----------
        ids : array-like of int, shape (n_tokens,)
            One token stream; the context of its first tokens is padded with
            ``pad_id_``.
        batch_size : int, default=4096
            Tokens scored at once.

        Returns
        -------
        log_prob : ndarray of float64, shape (n_tokens,)
            The log-probability of every token given its context.

        See Also
        --------
        perplexity : exp of minus their mean.
        """
        with _threads(self.n_threads):
            return self._log_prob_ids(ids, batch_size)

    @torch.no_grad()
    def _log_prob_ids(self, ids, batch_size):
        self._check_fitted()
        ids = check_ids(ids, "ids", self.vocab_size)
        self.module_.eval()
        dev = self.device_
        padded = self._pad(ids, dev)
        target = torch.as_tensor(ids).to(dev)
        out = []
        for s in range(0, ids.shape[0], batch_size):
            pos = torch.arange(s, min(s + batch_size, ids.shape[0]), device=dev)
            out.append(self.module_(self._contexts(padded, pos), self._target(target[pos])))
        return torch.cat(out).double().cpu().numpy()

    def perplexity(self, ids: ArrayLike) -> float:
        """exp of the mean negative log-likelihood per token, exactly normalized.

        Every output layer gives a proper distribution over the whole vocabulary
        (the tree's node softmaxes multiply to one over the K leaves), so no
        sampled or approximate normalizer is involved.

        Parameters
        ----------
        ids : array-like of int, shape (n_tokens,)
            One token stream.

        Returns
        -------
        perplexity : float
            ``exp(-mean(log_prob(ids)))``.

        See Also
        --------
        log_prob : The log-probability of every token.
        """
        return float(np.exp(-np.mean(self.log_prob(ids))))

    @torch.no_grad()
    def full_log_prob(self, context_ids: ArrayLike) -> np.ndarray:
        """log p(. | context) over the whole vocabulary: (B, V) for (B, T) contexts.

        Column k of ``context_ids`` holds w_{t-k-1} (most recent word first).

        Parameters
        ----------
        context_ids : array-like of int, shape (n_contexts, context_size)
            The contexts, e.g. from :meth:`contexts`.

        Returns
        -------
        log_prob : ndarray of float64, shape (n_contexts, vocab_size)
            Every row sums to one after ``exp``.
        """
        self._check_fitted()
        ctx = torch.as_tensor(check_contexts(context_ids, int(self.context_size), int(self.vocab_size)))
        self.module_.eval()
        h = self.module_.represent(ctx.to(self.device_))
        head = self.module_.head
        if isinstance(head, TreeSoftmax):
            out = head.full_log_prob(h)
        elif isinstance(head, nn.Linear):
            out = F.log_softmax(head(h), dim=1)
        else:
            out = head.log_prob(h)[:, self._rank_t]
        return out.double().cpu().numpy()

    def contexts(self, ids: ArrayLike) -> np.ndarray:
        """Context ids of every token of ``ids`` (as used by :meth:`log_prob`).

        Parameters
        ----------
        ids : array-like of int, shape (n_tokens,)
            One token stream.

        Returns
        -------
        contexts : ndarray of int64, shape (n_tokens, context_size)
            Column k holds the token k + 1 places before (padded with
            ``pad_id_`` before the first token).
        """
        self._check_fitted()
        ids = check_ids(ids, "ids", self.vocab_size)
        return self._contexts(self._pad(ids), torch.arange(ids.shape[0])).numpy()

    @property
    def label_tree_(self) -> LabelTree | HuffmanTree | None:
        """The (learned or random) :class:`LabelTree` or the :class:`HuffmanTree`; None for flat / adaptive."""
        self._check_fitted()
        head = self.module_.head
        return head.tree if isinstance(head, TreeSoftmax) else None

    # ------------------------------------------------------------------ persistence
    #: Set by :meth:`load` when the file holds a vocabulary (an annotation only: absent otherwise).
    vocabulary_: Any

    _PARAMS = (
        "vocab_size",
        "context_size",
        "dim",
        "output",
        "arity",
        "depth",
        "batch_size",
        "lr",
        "weight_decay",
        "tree_epochs",
        "reassign_per_epoch",
        "criterion",
        "min_count",
        "stats",
        "tree_init",
        "cutoffs",
        "pad_id",
        "n_threads",
        "device",
        "random_state",
        "verbose",
    )

    def save(self, path: str | os.PathLike[str], vocabulary: Vocabulary | None = None) -> None:
        """Write the fitted model to one file: weights, label tree, hyper-parameters,
        history and (optionally) the :class:`~prunus.datasets.Vocabulary`.

        The file holds only tensors and plain Python values, so
        ``torch.load(path, weights_only=True)`` reads it; :meth:`load` rebuilds
        the model.

        Parameters
        ----------
        path : str or Path
            The file to write.
        vocabulary : Vocabulary, optional
            Saved with the model; defaults to ``vocabulary_`` when set.

        See Also
        --------
        load : Read the file back.
        """
        self._check_fitted()
        vocabulary = getattr(self, "vocabulary_", None) if vocabulary is None else vocabulary
        params = {name: getattr(self, name) for name in self._PARAMS}
        params["device"] = str(params["device"])
        save_payload(
            path,
            "prunus.TreeLanguageModel",
            dict(
                params=plain(params),
                head_config=plain(self.head_config_),
                state_dict=cpu_state(self.module_),
                pad_id=self.pad_id_,
                rank=None if self.rank_ is None else torch.as_tensor(self.rank_),
                history=plain(self.history_),
                ms_per_batch=float(self.ms_per_batch_),
                vocabulary=None
                if vocabulary is None
                else dict(words=list(vocabulary.words), counts=torch.as_tensor(vocabulary.counts)),
            ),
        )

    @classmethod
    def load(cls, path: str | os.PathLike[str], device: str | torch.device | None = None) -> Self:
        """A model written by :meth:`save`.

        Parameters
        ----------
        path : str or Path
            The file written by :meth:`save`.
        device : str or torch.device, optional
            Where the model is loaded; default: the saved ``device`` when it
            exists here, else the CPU.

        Returns
        -------
        model : TreeLanguageModel
            The fitted model (with ``vocabulary_`` when the file holds one).

        See Also
        --------
        save : Write a fitted model to one file.
        """
        from ..datasets._text import Vocabulary

        payload = load_payload(path, "prunus.TreeLanguageModel")
        params = dict(payload["params"])
        if "progress" in params:  # files written before ``progress`` became ``verbose``
            params["verbose"] = int(params.pop("progress"))
        model = cls(**params)
        if device is not None:
            model.device = device
        elif model.device != "auto" and torch.device(model.device).type == "cuda" and not torch.cuda.is_available():
            model.device = "cpu"
        model._validate()
        model.head_config_ = payload["head_config"]
        model.pad_id_ = payload["pad_id"]
        model.rank_ = None if payload["rank"] is None else payload["rank"].numpy()
        tree = None
        if model.output == "huffman":
            tree = HuffmanTree(payload["state_dict"]["head.codes"].numpy(), model.head_config_["arity"])
        model._make_module(tree)
        model.module_.load_state_dict(payload["state_dict"])
        model.module_.eval()
        model.history_ = payload["history"]
        model.ms_per_batch_ = payload["ms_per_batch"]
        voc = payload["vocabulary"]
        if voc is not None:
            model.vocabulary_ = Vocabulary(voc["words"], voc["counts"].numpy())
        return model
