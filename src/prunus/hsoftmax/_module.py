"""TreeSoftmax: the M-ary tree-structured output layer (eqs. 5 and 11) as a torch module."""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F

from ..utils._param_validation import Integral, Interval, StrOptions, validate_params
from ._assign import AssignSettings, AssignStats, node_objectives, reassign_kernel
from ._huffman import HuffmanTree
from ._label_tree import LabelTree

#: Accepted arguments of :class:`TreeSoftmax` (checked before any tensor is made).
MODULE_CONSTRAINTS = {
    "in_features": [Interval(Integral, 1, None, closed="left")],
    "label_tree": [LabelTree, HuffmanTree],
    "criterion": [StrOptions({"loglik", "class"})],
}


class TreeSoftmax(nn.Module):
    """Tree-structured softmax over the labels of a :class:`LabelTree`.

    Every internal node n has a softmax over its M children,
    ``g_n(h) = softmax(W_n h + b_n)``, and
    ``log p(y | h) = sum_d log g_{c_{d,1}}(h)[c_{d,2}]`` (eq. 5 / eq. 11). The node
    parameters are stored batched, ``weight`` of shape (n_internal, M, in_features)
    and ``bias`` (n_internal, M), so a batch is scored with one gather and one
    batched product over (batch, depth): O(D * M * in_features) per example.
    Children with no label below them are masked out (probability 0), so the
    K label probabilities always sum to one.

    While training, the forward pass accumulates Algorithm 1's node statistics
    (lines 8-9) ``SumProbas`` and ``Counts`` from the probabilities it already
    computed; :meth:`reassign` then re-builds the tree with Algorithm 2.

    Parameters
    ----------
    in_features : int
        Size of the representation ``h`` scored by every node.
    label_tree : LabelTree or HuffmanTree
        The tree of the labels (a :class:`HuffmanTree` is fixed:
        :meth:`reassign` needs a :class:`LabelTree`).
    criterion : {"loglik", "class"}
        Greedy criterion of Algorithm 2: dJ_n/dlog p_{j|i} (eq. 12, the paper's
        language-model variant) or dJ_n/dp_{j|i} (eq. 10).
    exchange : bool
        After the greedy pass, apply improving label exchanges between children
        (eq. 15 in the proof of Lemma 1). ``False`` is the bare Algorithm 2.
    track_stats : bool
        Accumulate node statistics in the forward pass when in training mode.
    carry_leaf_rows : bool
        Whether :meth:`reassign` moves each label's last-level parameter row
        with it (see there).
    sparse : bool
        Sparse gradients for the node parameters (only the D nodes on each
        example's path are touched); use with ``torch.optim.Adagrad`` / ``SGD``
        / ``SparseAdam`` to make the update cost O(B D M F) instead of O(N M F).

    Attributes
    ----------
    check_labels : bool
        Class attribute, False: the label range of ``y`` is checked on CPU
        tensors; on an accelerator only when True (it costs a host
        synchronisation per call, so ``forward`` does not wait for the device).
        The module works wherever its parameters are (``.to(device)``): node
        statistics are accumulated there and copied to the host once per
        :meth:`reassign`.
    dense_nodes : int
        Class attribute, 64: the top levels with at most this many nodes are
        scored for the whole batch with one matrix product per level (each
        example keeps its own node's logits); below, every example's node rows
        are gathered. Same values and gradients either way; only the speed
        differs (a product over a few nodes beats per-example gathers on CPU).
    weight : Parameter (n_internal, M * in_features)
        Row n holds W_n (M x in_features) flattened; see :meth:`node_weight`.
    bias : Parameter (n_internal, M)
    """

    # Buffers registered in __init__ (typed for the checker: register_buffer hides them).
    sum_probas: torch.Tensor
    counts: torch.Tensor
    path_nodes: torch.Tensor
    path_children: torch.Tensor
    child_mask: torch.Tensor
    codes: torch.Tensor
    child_node: torch.Tensor
    child_label: torch.Tensor
    leaf_of_label: torch.Tensor
    label_of_leaf: torch.Tensor

    #: Check label ranges of accelerator tensors too (a host synchronisation per
    #: call; CPU tensors are always checked).
    check_labels = False

    #: Levels with at most this many nodes are scored with one dense product per
    #: level (cheaper than gathering per-example rows when the level is small).
    dense_nodes = 64

    def __init__(
        self,
        in_features: int,
        label_tree: LabelTree | HuffmanTree,
        criterion: str = "loglik",
        exchange: bool = True,
        track_stats: bool = True,
        sparse: bool = False,
        carry_leaf_rows: bool = True,
    ) -> None:
        super().__init__()
        validate_params(
            MODULE_CONSTRAINTS,
            {"in_features": in_features, "label_tree": label_tree, "criterion": criterion},
            "TreeSoftmax",
        )
        self.in_features = int(in_features)
        self.tree = label_tree
        self.criterion = criterion
        self.exchange = bool(exchange)
        self.track_stats = bool(track_stats)
        self.sparse = bool(sparse)
        self.carry_leaf_rows = bool(carry_leaf_rows)
        t = label_tree
        # 2-D so that rows can be gathered with F.embedding (sparse gradients).
        self.weight = nn.Parameter(torch.empty(t.n_internal, t.arity * self.in_features))
        self.bias = nn.Parameter(torch.zeros(t.n_internal, t.arity))
        nn.init.normal_(self.weight, std=1.0 / np.sqrt(self.in_features))
        self.register_buffer("sum_probas", torch.zeros(t.n_labels, t.depth, t.arity, dtype=torch.float64))
        self.register_buffer("counts", torch.zeros(t.n_labels, t.depth, dtype=torch.float64))
        self._sync_tree()

    # ------------------------------------------------------------ tree buffers
    def _sync_tree(self):
        t = self.tree
        device = self.bias.device
        self.register_buffer("path_nodes", torch.as_tensor(t.path_nodes, device=device), persistent=False)
        self.register_buffer("path_children", torch.as_tensor(t.path_children, device=device), persistent=False)
        mask = torch.as_tensor(t.child_mask, device=device)
        # A node with no label below it is never on a path; leave its children
        # unmasked so full_log_prob stays finite there (its own log-prob is -inf).
        mask = mask | ~mask.any(dim=1, keepdim=True)
        self.register_buffer("child_mask", mask, persistent=False)
        # The label tree is module state (its leaves, or a Huffman tree's codes):
        # everything else is rebuilt from it.
        if isinstance(t, HuffmanTree):
            self.register_buffer("codes", torch.as_tensor(t.codes, device=device))
            self.register_buffer("child_node", torch.as_tensor(t.child_node, device=device), persistent=False)
            self.register_buffer("child_label", torch.as_tensor(t.child_label, device=device), persistent=False)
        else:
            self.register_buffer("leaf_of_label", torch.as_tensor(t.leaf_of_label, device=device))
            self.register_buffer("label_of_leaf", torch.as_tensor(t.label_of_leaf, device=device), persistent=False)

    # ------------------------------------------------------------ state
    def get_extra_state(self) -> dict[str, Any]:
        """Shape of the label tree, checked by :meth:`load_state_dict`.

        Returns
        -------
        state : dict of str to int or str
            ``kind``, ``n_labels``, ``arity``, ``depth``, ``n_internal`` and
            ``in_features`` (plain values: loadable with
            ``torch.load(..., weights_only=True)``).
        """
        t = self.tree
        kind = "huffman" if isinstance(t, HuffmanTree) else "complete"
        return dict(
            kind=kind,
            n_labels=int(t.n_labels),
            arity=int(t.arity),
            depth=int(t.depth),
            n_internal=int(t.n_internal),
            in_features=int(self.in_features),
        )

    def set_extra_state(self, state: Any) -> None:
        """Nothing to set: the saved shape is checked before loading (see :meth:`get_extra_state`).

        Parameters
        ----------
        state : dict
            The saved :meth:`get_extra_state`.
        """

    def _load_from_state_dict(
        self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
    ):
        """Load the parameters and the label tree (``leaf_of_label``): the tree is
        re-built from the saved leaves, so ``log_prob`` / ``full_log_prob`` are
        exactly those of the saved module; another tree shape is a ValueError."""
        extra = state_dict.get(prefix + "_extra_state")
        if extra is not None:
            mine = self.get_extra_state()
            if not isinstance(extra, dict) or any(extra.get(k) != v for k, v in mine.items()):
                raise ValueError(f"state_dict holds a TreeSoftmax of another shape ({extra!r}); this one has {mine!r}.")
        codes = state_dict.get(prefix + "codes")
        if codes is not None and isinstance(self.tree, HuffmanTree):
            self.tree = HuffmanTree(codes.detach().cpu().numpy(), self.tree.arity)
            self._sync_tree()
        leaves = state_dict.get(prefix + "leaf_of_label")
        if leaves is not None and isinstance(self.tree, LabelTree):
            leaves = leaves.detach().cpu().numpy()
            if leaves.shape != (self.tree.n_labels,):
                raise ValueError(
                    f"state_dict holds leaf_of_label for {leaves.shape[0] if leaves.ndim else 0} "
                    f"labels; this TreeSoftmax has {self.tree.n_labels}."
                )
            self.tree.set_leaves(leaves)  # validated: distinct slots in range
            self._leaf_rows = None
            self._sync_tree()
        super()._load_from_state_dict(
            state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs
        )

    def extra_repr(self) -> str:
        """Sizes shown by ``repr``.

        Returns
        -------
        text : str
            ``in_features``, ``n_labels``, ``arity`` and ``depth``.
        """
        t = self.tree
        return f"in_features={self.in_features}, n_labels={t.n_labels}, arity={t.arity}, depth={t.depth}"

    # ------------------------------------------------------------ scoring
    def _check_h(self, h):
        if not isinstance(h, torch.Tensor) or h.dim() != 2 or h.shape[1] != self.in_features:
            raise ValueError(f"h must be a tensor of shape (batch, {self.in_features}).")
        if h.dtype != self.weight.dtype and not torch.is_autocast_enabled(h.device.type):
            # as nn.Linear: no silent cast, the error names the expected dtype (under
            # autocast, a bf16 / fp16 h meets the float32 parameters: float32 log-probs)
            raise TypeError(
                f"h must have the dtype of the layer's parameters, {self.weight.dtype}; got {h.dtype} "
                "(cast h, or the layer with .to(dtype))."
            )

    def _check_y(self, y, batch):
        if not isinstance(y, torch.Tensor) or y.dim() != 1 or y.shape[0] != batch:
            raise ValueError(f"y must be a 1-D tensor of {batch} label ids.")
        if y.dtype not in (torch.int64, torch.int32):
            raise TypeError(f"y must hold integer label ids, got {y.dtype}.")
        # Reading a value back from an accelerator waits for it: the range is
        # checked on CPU tensors, and elsewhere only with ``check_labels``.
        if batch and (y.device.type == "cpu" or self.check_labels):
            low, high = torch.aminmax(y)
            if int(low) < 0 or int(high) >= self.tree.n_labels:
                raise ValueError(f"y must lie in [0, {self.tree.n_labels}).")

    def node_weight(self) -> torch.Tensor:
        """W as a (n_internal, M, in_features) view.

        Returns
        -------
        weight : torch.Tensor, shape (n_internal, arity, in_features)
            A view of ``weight``: row n holds W_n.
        """
        return self.weight.view(self.tree.n_internal, self.tree.arity, self.in_features)

    def node_log_probs(self, h: torch.Tensor, nodes: torch.Tensor) -> torch.Tensor:
        """log g_n(h) for the node ids ``nodes``.

        Parameters
        ----------
        h : torch.Tensor, shape (batch, in_features)
            Representations, in the dtype of the layer's parameters.
        nodes : torch.Tensor of int64, shape (batch, n_steps)
            Internal node ids scored for every row.

        Returns
        -------
        log_probs : torch.Tensor, shape (batch, n_steps, arity)
            Log-probabilities of the children of every node (-inf where a
            child has no label below it).
        """
        b, length = nodes.shape
        m = self.tree.arity
        w = F.embedding(nodes, self.weight, sparse=self.sparse).view(b, length, m, self.in_features)
        bias = F.embedding(nodes, self.bias, sparse=self.sparse)
        # A broadcast multiply-and-sum, not einsum: einsum lowers this to a bmm of
        # B tiny matrix-vector products, several times slower on CPU.
        logits = (w * h[:, None, None, :]).sum(dim=-1) + bias
        logits = logits.masked_fill(~self.child_mask[nodes], float("-inf"))
        return F.log_softmax(logits, dim=-1)

    def _dense_levels(self):
        """Number of top levels scored densely (all their nodes for every example)."""
        t = self.tree
        if isinstance(t, HuffmanTree):
            return 1  # the root
        counts = np.diff(t.offsets)  # nodes per level: 1, M, M**2, ...
        return int(np.count_nonzero(counts <= self.dense_nodes))

    def _path_logits(self, h, nodes):
        """Logits W_n h + b_n of the D nodes on every example's path, (B, D, M).

        The top levels hold few nodes (1, M, ...): there one matrix product scores all
        of a level's nodes for the whole batch (a BLAS product, ``dense_nodes`` nodes at
        most) and each example keeps its own node's M logits. Below, each example's
        node rows are gathered and multiplied with its representation. The rows are
        always taken with ``F.embedding``, so that with ``sparse`` the gradient of
        ``weight`` stays sparse (indexing would make it dense and the optimizer would
        then update every node at every step).
        """
        t = self.tree
        b, m, f = h.shape[0], t.arity, self.in_features
        parts = []
        dense = min(self._dense_levels(), t.depth)
        for d in range(dense):
            lo, hi = (0, 1) if isinstance(t, HuffmanTree) else (int(t.offsets[d]), int(t.offsets[d + 1]))
            rows = torch.arange(lo, hi, device=h.device)
            w = F.embedding(rows, self.weight, sparse=self.sparse).view((hi - lo) * m, f)
            bias = F.embedding(rows, self.bias, sparse=self.sparse).view(-1)
            level = F.linear(h, w, bias).view(b, hi - lo, m)
            if hi - lo > 1:
                level = level.gather(1, (nodes[:, d] - lo).view(b, 1, 1).expand(b, 1, m))
            parts.append(level.view(b, 1, m))
        if dense < t.depth:
            below = nodes[:, dense:]
            w = F.embedding(below, self.weight, sparse=self.sparse).view(b, t.depth - dense, m, f)
            bias = F.embedding(below, self.bias, sparse=self.sparse)
            # A broadcast multiply-and-sum, not einsum: einsum lowers this to a bmm of
            # B tiny matrix-vector products, several times slower on CPU.
            parts.append((w * h[:, None, None, :]).sum(dim=-1) + bias)
        return torch.cat(parts, dim=1) if len(parts) > 1 else parts[0]

    def log_prob(self, h: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """log p(y | h) along each label's path (eq. 5), shape (B,).

        ``h`` must have the parameters' dtype (no silent cast, as ``nn.Linear``),
        except under ``torch.autocast``, where a bf16 / fp16 ``h`` is multiplied
        with the float32 node parameters and the log-probabilities are float32;
        ``y`` holds int64 or int32 label ids.

        Vectorized over batch and depth; in training mode with ``track_stats``
        the node probabilities are added to SumProbas / Counts (Algorithm 1,
        lines 8-9) at no extra cost.

        Parameters
        ----------
        h : torch.Tensor, shape (batch, in_features)
            Representations, in the dtype of the layer's parameters
            (see above).
        y : torch.Tensor of int64 or int32, shape (batch,)
            Label ids in ``0 .. n_labels - 1``.

        Returns
        -------
        log_prob : torch.Tensor, shape (batch,)
            ``log p(y | h)`` of every row.

        See Also
        --------
        full_log_prob : The log-probabilities of every label.
        """
        self._check_h(h)
        self._check_y(y, h.shape[0])
        y = y.long()
        nodes = self.path_nodes[y]  # (B, D)
        # under autocast the node products may be bf16 / fp16: the softmax and the
        # sum of log-probabilities are taken in the parameters' precision
        logits = self._path_logits(h, nodes).to(self.weight.dtype)
        logp = F.log_softmax(logits.masked_fill(~self.child_mask[nodes], float("-inf")), dim=-1)  # (B, D, M)
        if self.training and self.track_stats:
            with torch.no_grad():
                self.sum_probas.index_add_(0, y, logp.detach().exp().to(torch.float64))
                self.counts.index_add_(
                    0, y, torch.ones(y.shape[0], self.tree.depth, dtype=torch.float64, device=y.device)
                )
        return logp.gather(2, self.path_children[y].unsqueeze(2)).squeeze(2).sum(dim=1)

    def forward(self, h: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """Same as :meth:`log_prob`.

        Parameters
        ----------
        h : torch.Tensor, shape (batch, in_features)
            Representations, in the dtype of the layer's parameters.
        y : torch.Tensor of int64 or int32, shape (batch,)
            Label ids in ``0 .. n_labels - 1``.

        Returns
        -------
        log_prob : torch.Tensor, shape (batch,)
            ``log p(y | h)`` of every row.
        """
        return self.log_prob(h, y)

    def loss(self, h: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """Mean negative log-likelihood of a batch.

        Parameters
        ----------
        h : torch.Tensor, shape (batch, in_features)
            Representations, in the dtype of the layer's parameters.
        y : torch.Tensor of int64 or int32, shape (batch,)
            Label ids in ``0 .. n_labels - 1``.

        Returns
        -------
        loss : torch.Tensor, shape ()
            ``-mean(log_prob(h, y))``.
        """
        return -self.log_prob(h, y).mean()

    def full_log_prob(self, h: torch.Tensor) -> torch.Tensor:
        """log p(k | h) for all K labels, level by level down the tree.

        Parameters
        ----------
        h : torch.Tensor, shape (batch, in_features)
            Representations, in the dtype of the layer's parameters.

        Returns
        -------
        log_prob : torch.Tensor, shape (batch, n_labels)
            Every row sums to one after ``exp``.
        """
        self._check_h(h)
        t = self.tree
        b = h.shape[0]
        if isinstance(t, HuffmanTree):
            return self._paths_log_prob(h)
        acc = h.new_zeros(b, 1)
        for d in range(t.depth):
            lo, hi = int(t.offsets[d]), int(t.offsets[d + 1])
            logits = torch.einsum("nmf,bf->bnm", self.node_weight()[lo:hi], h) + self.bias[lo:hi]
            logits = logits.masked_fill(~self.child_mask[lo:hi], float("-inf"))
            acc = (acc.unsqueeze(2) + F.log_softmax(logits, dim=-1)).reshape(b, -1)
        return acc[:, self.leaf_of_label]

    def _paths_log_prob(self, h, max_elements=2**22):
        """full_log_prob of any tree: all node softmaxes, then a sum along every label's path
        (labels in blocks of at most ``max_elements`` gathered values)."""
        t = self.tree
        b, m = h.shape[0], t.arity
        logits = torch.einsum("nmf,bf->bnm", self.node_weight(), h) + self.bias
        logp = F.log_softmax(logits.masked_fill(~self.child_mask, float("-inf")), dim=-1).reshape(b, -1)
        flat = self.path_nodes * m + self.path_children  # (K, depth)
        step = max(1, max_elements // max(1, b * t.depth))
        return torch.cat([logp[:, flat[s : s + step]].sum(dim=2) for s in range(0, t.n_labels, step)], dim=1)

    def _predict_greedy_paths(self, h):
        """Greedy descent in a tree whose paths differ in length (child_node / child_label)."""
        node = torch.zeros(h.shape[0], dtype=torch.long, device=h.device)
        label = torch.full_like(node, -1)
        for _ in range(self.tree.depth):
            j = self.node_log_probs(h, node.unsqueeze(1)).squeeze(1).argmax(dim=1)
            active = label < 0
            found, below = self.child_label[node, j], self.child_node[node, j]
            label = torch.where(active & (found >= 0), found, label)
            node = torch.where(active & (below >= 0), below, node)
        return label

    @torch.no_grad()
    def predict(self, h: torch.Tensor, method: str = "greedy") -> torch.Tensor:
        """Label predictions.

        Parameters
        ----------
        h : torch.Tensor, shape (batch, in_features)
            Representations, in the dtype of the layer's parameters.
        method : {"greedy", "exact"}, default="greedy"
            ``"greedy"`` follows the most likely child at every node (O(D M F),
            eq. 4's decision functions); ``"exact"`` is the argmax of
            :meth:`full_log_prob`.

        Returns
        -------
        labels : torch.Tensor of int64, shape (batch,)
            The predicted label of every row.
        """
        self._check_h(h)
        if method == "exact":
            return self.full_log_prob(h).argmax(dim=1)
        if method != "greedy":
            raise ValueError(f"method must be 'greedy' or 'exact', got {method!r}.")
        t = self.tree
        if isinstance(t, HuffmanTree):
            return self._predict_greedy_paths(h)
        pos = torch.zeros(h.shape[0], dtype=torch.long, device=h.device)
        for d in range(t.depth):
            nodes = int(t.offsets[d]) + pos
            logp = self.node_log_probs(h, nodes.unsqueeze(1)).squeeze(1)
            pos = pos * t.arity + logp.argmax(dim=1)
        return self.label_of_leaf[pos]

    # ------------------------------------------------------------ Algorithm 2
    def _leaf_row(self, leaf):
        """Index of the last-level (node, child) row of each slot in the (N * M) rows."""
        t = self.tree
        assert isinstance(t, LabelTree)  # only reassign moves rows, and it refuses a HuffmanTree
        parent = t.offsets[t.depth - 1] + leaf // t.arity
        return torch.as_tensor(parent * t.arity + leaf % t.arity, device=self.bias.device)

    @torch.no_grad()
    def carry_rows(self, tensor: torch.Tensor) -> torch.Tensor:
        """Move the last-level rows of ``tensor`` as :meth:`reassign` moved the parameters.

        Each label's row goes from its previous leaf to its new one, as done
        for the parameters by the last :meth:`reassign`; call it on optimizer
        state (e.g. Adagrad's ``sum``) to keep it aligned with the parameters.

        Parameters
        ----------
        tensor : torch.Tensor
            Shaped like ``weight`` or ``bias``; changed in place.

        Returns
        -------
        tensor : torch.Tensor
            ``tensor`` itself.
        """
        moved = getattr(self, "_leaf_rows", None)
        if moved is None:
            return tensor
        dest, src = moved
        t = self.tree
        rows = tensor.view(t.n_internal * t.arity, -1)
        rows[dest] = rows[src].clone()
        return tensor

    def reset_stats(self) -> None:
        """Clear the node statistics (SumProbas and Counts)."""
        self.sum_probas.zero_()
        self.counts.zero_()

    def node_objectives(self) -> np.ndarray:
        """J_n (eq. 6) of every internal node from the current statistics.

        Returns
        -------
        J : ndarray of float64, shape (n_internal,)
            NaN at a node no example has visited.
        """
        return node_objectives(
            self.sum_probas.cpu().numpy(), self.counts.cpu().numpy(), self.tree.path_nodes, self.tree.n_internal
        )

    @torch.no_grad()
    def reassign(self, reset_stats: bool = False, min_count: float = 0) -> dict[str, Any]:
        """Re-build the label tree with Algorithm 2 from the accumulated statistics.

        Top-down, every node sends its labels to children greedily by
        dJ_n/dlog p_{j|i} (eq. 12) or dJ_n/dp_{j|i} (eq. 10) under the capacity
        M**(D-d-1) per child; labels without statistics at a node keep their
        previous child index when there is room.

        Node parameters. Above the last level a child stands for a group of
        labels and its parameters are kept: a label moves to the child whose
        decision function already routes its examples with probability above
        average, so the learned g_n stays the right starting point; children
        that lose all their labels are masked out (and get no gradient),
        children that gain labels start from their current weights. At the last
        level a child is one label, and its row (W_n[j], b_n[j]) is that label's
        output embedding: with ``carry_leaf_rows`` (default) the row moves with
        the label to its new leaf (use :meth:`carry_rows` on optimizer state).
        Statistics of a label stay valid at the nodes it still reaches and are
        reset at the nodes it now reaches for the first time.

        Parameters
        ----------
        reset_stats : bool, default=False
            Clear all statistics afterwards, so the next re-assignment only
            sees the examples of the current tree and representation (a window
            instead of Algorithm 1's cumulative sums).
        min_count : float, default=0
            Labels seen fewer times at a node keep their child there (their
            gradient estimate is treated as missing).

        Returns
        -------
        report : dict
            ``J`` (J_n per node before re-assignment, eq. 6), ``moved``
            (number of labels whose leaf changed) and ``seconds``.
        """
        start = time.perf_counter()
        t = self.tree
        if not isinstance(t, LabelTree):
            raise TypeError(f"reassign re-builds a LabelTree; this layer's tree is a {type(t).__name__} (fixed).")
        # one copy to the host
        both = torch.cat([self.sum_probas.reshape(-1), self.counts.reshape(-1)]).cpu().numpy()
        sp = both[: self.sum_probas.numel()].reshape(self.sum_probas.shape)
        cnt = both[self.sum_probas.numel() :].reshape(self.counts.shape)
        j_before = node_objectives(sp, cnt, t.path_nodes, t.n_internal)
        old_nodes = t.path_nodes.copy()
        new_leaf = reassign_kernel(
            AssignStats(old_nodes, t.path_children, sp, cnt),
            t.arity,
            t.depth,
            AssignSettings(self.criterion == "loglik", self.exchange, float(min_count)),
        )
        old_leaf = t.leaf_of_label.copy()
        moved = int(np.count_nonzero(new_leaf != old_leaf))
        t.set_leaves(new_leaf)
        # The last-level row (W_n[j], b_n[j]) of a leaf scores one label only: it
        # is that label's output embedding. It travels with the label.
        # (only the labels that moved: the other rows stay where they are)
        went = np.flatnonzero(new_leaf != old_leaf)
        self._leaf_rows = (self._leaf_row(new_leaf[went]), self._leaf_row(old_leaf[went]))
        if self.carry_leaf_rows and moved:
            for param in (self.weight, self.bias):
                self.carry_rows(param.data)
        stale = torch.as_tensor(t.path_nodes != old_nodes, device=self.counts.device)
        self.counts.masked_fill_(stale, 0.0)
        self.sum_probas.masked_fill_(stale.unsqueeze(2), 0.0)
        if reset_stats:
            self.reset_stats()
        self._sync_tree()
        return dict(J=j_before, moved=moved, seconds=time.perf_counter() - start)


class ReassignSchedule:
    """When to call :meth:`TreeSoftmax.reassign` (Algorithm 1).

    The tree is re-built ``per_epoch`` times per epoch, after every R =
    n_batches // per_epoch batches (i.e. at the start of the next batch, line 16;
    the last one closes the epoch), during the first ``tree_epochs`` epochs;
    afterwards the tree is fixed and only the parameters are fine-tuned.

    Parameters
    ----------
    n_batches : int
        Training batches per epoch.
    per_epoch : int, default=20
        Re-builds of the tree per epoch.
    tree_epochs : int, default=1
        Epochs during which the tree is re-built.
    """

    def __init__(self, n_batches: int, per_epoch: int = 20, tree_epochs: int = 1) -> None:
        self.per_epoch = max(1, int(per_epoch))
        self.every = max(1, n_batches // self.per_epoch)
        self.tree_epochs = int(tree_epochs)

    def due_after(self, epoch: int, batch: int) -> bool:
        """Whether the tree is re-built after a training batch.

        Parameters
        ----------
        epoch : int
            The epoch (from 0).
        batch : int
            The batch just trained, within the epoch (from 0).

        Returns
        -------
        due : bool
            True when :meth:`TreeSoftmax.reassign` is called now.
        """
        done = batch + 1
        return epoch < self.tree_epochs and done % self.every == 0 and done // self.every <= self.per_epoch
