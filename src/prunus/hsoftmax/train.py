"""Train a tree-softmax language model on a registered corpus and save it to one file.

One process::

    python -m prunus.hsoftmax.train --data ptb --output learned --epochs 3 --save ptb-lm.pt

Data-parallel, one process per CPU group or GPU (gloo on CPU, nccl on GPU)::

    torchrun --nproc-per-node 4 -m prunus.hsoftmax.train --data ptb --save ptb-lm.pt

Every rank trains on its shard; the node statistics are summed over the ranks
before each label-tree re-build, so all ranks hold the same tree. Rank 0
writes the model (:meth:`TreeLanguageModel.save`, vocabulary included) and
prints the test perplexity.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

import torch
from torch import distributed as dist

from ._lm import OUTPUTS, TreeLanguageModel


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    """The command line's options (``argv`` defaults to ``sys.argv[1:]``)."""
    p = argparse.ArgumentParser(prog="python -m prunus.hsoftmax.train", description=__doc__.split("\n\n")[0])
    p.add_argument("--data", default="ptb", help="corpus from prunus.datasets with ids_train/valid/test (ptb, austen)")
    p.add_argument("--output", default="learned", choices=OUTPUTS)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--tokens", type=int, default=0, help="first N training tokens (0: all)")
    p.add_argument("--eval-tokens", type=int, default=0, help="first N valid / test tokens (0: all)")
    p.add_argument("--context-size", type=int, default=3)
    p.add_argument("--dim", type=int, default=100)
    p.add_argument("--arity", type=int, default=25)
    p.add_argument("--depth", type=int, default=3)
    p.add_argument("--batch-size", type=int, default=256)
    p.add_argument("--lr", type=float, default=0.025)
    p.add_argument("--tree-epochs", type=int, default=1)
    p.add_argument("--reassign-per-epoch", type=int, default=20)
    p.add_argument("--device", default="auto", help="cpu, cuda or auto (under torchrun: this rank's GPU)")
    p.add_argument("--threads", type=int, default=None, help="torch threads per process")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--save", required=True, help="path of the saved model")
    return p.parse_args(argv)


def main(argv: Sequence[str] | None = None) -> int:
    """Train, evaluate and save the model described by the command line ``argv``."""
    args = parse_args(argv)
    from .. import datasets

    launched = "RANK" in os.environ and "WORLD_SIZE" in os.environ  # started by torchrun
    device = args.device
    if launched:
        use_cuda = device != "cpu" and torch.cuda.is_available()
        if use_cuda:
            local = int(os.environ.get("LOCAL_RANK", "0"))
            torch.cuda.set_device(local)
            device = f"cuda:{local}"
        dist.init_process_group("nccl" if use_cuda else "gloo")
    rank = dist.get_rank() if launched else 0
    try:
        data = datasets.load(args.data)

        def cut(ids, n):
            return ids if not n else ids[:n]

        train, valid, test = (
            cut(data.ids_train, args.tokens),
            cut(data.ids_valid, args.eval_tokens),
            cut(data.ids_test, args.eval_tokens),
        )
        model = TreeLanguageModel(
            len(data.vocabulary),
            context_size=args.context_size,
            dim=args.dim,
            output=args.output,
            arity=args.arity,
            depth=args.depth,
            batch_size=args.batch_size,
            lr=args.lr,
            tree_epochs=args.tree_epochs,
            reassign_per_epoch=args.reassign_per_epoch,
            pad_id=data.vocabulary.eos_id,
            n_threads=args.threads,
            device=device,
            random_state=args.seed,
            verbose=int(rank == 0 and sys.stderr.isatty()),
        )
        model.fit(train, epochs=args.epochs, valid_ids={"valid": valid})
        if rank == 0:
            model.save(args.save, vocabulary=data.vocabulary)
            for record in model.history_:
                print(
                    f"epoch {record['epoch']}: train NLL {record['train_nll']:.3f}, "
                    f"valid perplexity {record['perplexity_valid']:.1f}, {record['seconds']:.1f} s"
                )
            print(f"test perplexity {model.perplexity(test):.2f}; saved to {args.save}")
    finally:
        if launched:
            dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
