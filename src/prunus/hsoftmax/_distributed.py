"""Data-parallel training with torch.distributed (one process per device; gloo or nccl).

Every rank trains on its shard of each epoch's permutation (all ranks draw the
same permutation from the same ``random_state``); DistributedDataParallel
averages the gradients, so the parameters stay identical. Before every label
tree re-build the node statistics of Algorithm 1 are summed over the ranks, so
every rank runs Algorithm 2 on the same numbers and builds the same tree.
"""

from __future__ import annotations

import inspect

import torch
from torch import distributed as dist


def process_group():
    """(rank, world_size) of the initialized default process group, or None."""
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return None


def shard(perm, group):
    """This rank's positions of an epoch: every ``world``-th of ``perm``, the same count on every rank."""
    if group is None:
        return perm
    rank, world = group
    n_local = perm.shape[0] // world
    if n_local < 1:
        raise ValueError(f"train_ids holds {perm.shape[0]} positions, fewer than the {world} ranks.")
    return perm[rank::world][:n_local]


def wrap(model, device, find_unused=False):
    """``model`` in DistributedDataParallel (buffers stay per rank: they hold local statistics)."""
    from torch.nn.parallel import DistributedDataParallel

    ids = [device.index if device.index is not None else torch.cuda.current_device()] if device.type == "cuda" else None
    # the buffers are equal at the start (same seed); afterwards they are never synchronized
    params = inspect.signature(DistributedDataParallel).parameters
    sync: dict = dict(forward_sync_buffers=False) if "forward_sync_buffers" in params else dict(broadcast_buffers=False)
    return DistributedDataParallel(model, device_ids=ids, find_unused_parameters=find_unused, **sync)


def sum_statistics(head, group):
    """Replace the local node statistics by their sum over the ranks (before a re-build)."""
    if group is None:
        return
    dist.all_reduce(head.sum_probas, op=dist.ReduceOp.SUM)
    dist.all_reduce(head.counts, op=dist.ReduceOp.SUM)


def keep_statistics_once(head, group):
    """After a re-build, only rank 0 keeps the summed statistics (the others restart from
    zero), so the next sum over the ranks counts every example once."""
    if group is not None and group[0] != 0:
        head.reset_stats()


def sum_scalar(value, group):
    """``value`` (a 0-d tensor) summed over the ranks."""
    if group is not None:
        dist.all_reduce(value, op=dist.ReduceOp.SUM)
    return value
