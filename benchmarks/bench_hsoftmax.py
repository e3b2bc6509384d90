"""Benchmark: learned / random tree softmax vs a flat softmax vs torch's adaptive softmax.

All in ONE process, same thread count, same epoch budget:

1. one training step of the output layer alone (forward, backward, Adagrad) at
   d = 100, V = 10,000, batch 256 — tree: depth 3, 25-ary, sparse gradients;
2. Algorithm 2 re-building a depth-3 tree over 10k labels (aim < 1 s);
3. (``--scaled``) the same step at d = 200, batch 512, Zipf-distributed labels, for
   vocabularies up to 250k: flat, adaptive (cutoffs [2000, 5000] up to 20k labels,
   [20000, 60000] above), random / learned / Huffman trees; CPU time, layers in turns
   (``--device cuda``: on a GPU, wall time after synchronising);
4. the HLBL language model on Penn Treebank (learned / random / Huffman tree,
   flat, adaptive): every output layer trained for the
   same number of epochs on the same tokens (learned tree: tree learned in
   epoch 1, fixed afterwards); exact test perplexity and ms per training batch.

Usage::

    python benchmarks/bench_hsoftmax.py                 # 400k training tokens, 2 epochs
    python benchmarks/bench_hsoftmax.py --tokens 0      # whole PTB train
    python benchmarks/bench_hsoftmax.py --first-epoch 600000   # tree-learning epoch vs fixed-tree epochs
    python benchmarks/bench_hsoftmax.py --scaled 10000 250000  # one step per output layer, d = 200, batch 512
    python benchmarks/bench_hsoftmax.py --scaled 10000 250000 --device cuda   # the same step on a GPU
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import torch
from torch import nn

from prunus import datasets
from prunus.hsoftmax import HuffmanTree, LabelTree, TreeLanguageModel, TreeSoftmax

warnings.filterwarnings("ignore", message="Sparse invariant checks")


def train_step(layer, opt, h, y):
    """One forward, backward and optimizer step of an output layer on features ``h``, labels ``y``."""
    if isinstance(layer, TreeSoftmax):
        loss = -layer.log_prob(h, y).mean()
    elif isinstance(layer, nn.Linear):
        loss = nn.functional.cross_entropy(layer(h), y)
    else:
        loss = layer(h, y).loss
    opt.zero_grad()
    loss.backward()
    opt.step()


def bench_layers(repeats=30, batch=256, dim=100, vocab=10000):
    torch.manual_seed(0)
    h = torch.randn(batch, dim)
    # Zipf-distributed ids, as word frequencies (label 0 the most frequent)
    p = 1.0 / np.arange(1, vocab + 1)
    y = torch.as_tensor(np.random.RandomState(0).choice(vocab, size=batch, p=p / p.sum()))
    layers = {
        "tree (25-ary, depth 3)": TreeSoftmax(dim, LabelTree.random(vocab, 25, 3, random_state=0), sparse=True),
        # Zipf word frequencies: frequent labels get short paths
        "Huffman tree (25-ary)": TreeSoftmax(dim, HuffmanTree.build(1.0 / np.arange(1, vocab + 1), 25), sparse=True),
        "flat softmax": nn.Linear(dim, vocab),
        "adaptive softmax": nn.AdaptiveLogSoftmaxWithLoss(dim, vocab, cutoffs=[2000, 5000], div_value=4.0),
    }
    out = {}
    for name, layer in layers.items():
        opt = torch.optim.Adagrad(layer.parameters(), lr=0.025)

        def step(layer=layer, opt=opt):
            train_step(layer, opt, h, y)

        for _ in range(5):
            step()
        times = []
        for _ in range(repeats):
            start = time.perf_counter()
            step()
            times.append(time.perf_counter() - start)
        out[name] = 1000 * float(np.median(times))
    return out


def zipf_ids(vocab, size, seed=0):
    """Label ids drawn with p(k) proportional to 1 / (k + 1), as word frequencies."""
    p = 1.0 / np.arange(1, vocab + 1)
    return torch.as_tensor(np.random.RandomState(seed).choice(vocab, size=size, p=p / p.sum()))


def scaled_layers(vocab, dim, arity, depth):
    """The output layers compared at one vocabulary size: a flat softmax, torch's adaptive
    softmax with its usual cutoffs, and the tree softmax with a random, learned (statistics
    tracked) and Huffman tree."""
    cutoffs = [2000, 5000] if vocab <= 20000 else [20000, 60000]
    freq = 1.0 / np.arange(1, vocab + 1)
    random_tree = LabelTree.random(vocab, arity, depth, random_state=0)
    learned = TreeSoftmax(dim, random_tree.copy(), sparse=True)
    random_layer = TreeSoftmax(dim, random_tree, sparse=True, track_stats=False)
    return {
        "flat": nn.Linear(dim, vocab),
        f"adaptive {cutoffs}": nn.AdaptiveLogSoftmaxWithLoss(dim, vocab, cutoffs=cutoffs, div_value=4.0),
        f"random tree ({arity}-ary, depth {depth})": random_layer,
        f"learned tree ({arity}-ary, depth {depth})": learned,
        f"Huffman tree ({arity}-ary)": TreeSoftmax(dim, HuffmanTree.build(freq, arity), sparse=True),
    }


def step_clock(device):
    """The clock a step is timed with: CPU time on the CPU; on a GPU, wall time after the device's queued work is done."""
    if torch.device(device).type == "cpu":
        return time.process_time

    def clock():
        torch.cuda.synchronize(device)
        return time.perf_counter()

    return clock


def bench_scaled(vocab, dim=200, batch=512, arity=None, depth=3, repeats=5, device="cpu"):
    """Milliseconds of one training step (forward, backward, Adagrad) per layer, Zipf-distributed
    labels; the layers take turns, the median over ``repeats`` rounds is kept (``step_clock``)."""
    torch.manual_seed(0)
    arity = LabelTree(vocab, arity, depth).arity
    h = torch.randn(batch, dim, device=device)
    y = zipf_ids(vocab, batch).to(device)
    layers = scaled_layers(vocab, dim, arity, depth)
    clock = step_clock(device)
    steps = {}
    for name, layer in layers.items():
        layer.to(device)
        layer.train()
        opt = torch.optim.Adagrad(layer.parameters(), lr=0.025)

        def step(layer=layer, opt=opt):
            train_step(layer, opt, h, y)

        step()
        steps[name] = step
    times = {name: [] for name in layers}
    for _ in range(repeats):
        for name, step in steps.items():
            start = clock()
            step()
            times[name].append(clock() - start)
    return {name: 1000 * float(np.median(t)) for name, t in times.items()}


def bench_reassign(vocab=10000, arity=25, depth=3, repeats=5):
    rng = np.random.RandomState(0)
    layer = TreeSoftmax(100, LabelTree.random(vocab, arity, depth, random_state=0))
    times = []
    for r in range(repeats + 1):
        # fresh random statistics every time, so that labels really move
        counts = torch.as_tensor(rng.randint(1, 50, size=(vocab, depth)).astype(float))
        probs = torch.as_tensor(rng.dirichlet(np.full(arity, 0.3), size=(vocab, depth)))
        layer.counts.copy_(counts)
        layer.sum_probas.copy_(probs * counts[:, :, None])
        info = layer.reassign()
        if r:  # the first call includes numba's (cached) compile / load
            times.append(info["seconds"])
    return float(np.median(times)), info["moved"]


def ptb_model(vocab, output, context_size=3, dim=100, threads=1):
    """The PTB language model every benchmark here trains: 25-ary depth-3 trees, the tree learned
    in the first epoch with 20 re-builds, Adagrad at 0.025, batches of 256."""
    return TreeLanguageModel(
        len(vocab),
        context_size=context_size,
        dim=dim,
        output=output,
        arity=25,
        depth=3,
        batch_size=256,
        lr=0.025,
        tree_epochs=1,
        reassign_per_epoch=20,
        pad_id=vocab.eos_id,
        n_threads=threads,
        random_state=0,
    )


def bench_lm(tokens, epochs, threads):
    data = datasets.load("ptb")
    train = data.ids_train if not tokens else data.ids_train[:tokens]
    test = data.ids_test
    rows = {}
    for output in ("learned", "random", "huffman", "flat", "adaptive"):
        model = ptb_model(data.vocabulary, output, threads=threads)
        start = time.perf_counter()
        model.fit(train, epochs=epochs)
        fit_s = time.perf_counter() - start
        n_reassign = max(len(getattr(model, "reassign_log_", [])), 1)
        rows[output] = dict(
            ppl=model.perplexity(test),
            ms=model.ms_per_batch_,
            fit_s=fit_s,
            reassign_ms=1000 * model.reassign_seconds_ / n_reassign,
        )
        print(
            f"  {output:9s} test ppl {rows[output]['ppl']:8.1f}   {rows[output]['ms']:7.1f} ms/batch   "
            f"fit {fit_s:6.1f} s",
            flush=True,
        )
    return rows


def bench_first_epoch(tokens, threads):
    """The epoch that learns the tree (statistics + 20 re-builds) against epochs with a fixed tree:
    the learned model's second epoch (its tree fixed) and the first epoch of a fixed random tree."""
    data = datasets.load("ptb")
    train = data.ids_train[:tokens]
    learned = ptb_model(data.vocabulary, "learned", threads=threads).fit(train, epochs=2)
    random_tree = ptb_model(data.vocabulary, "random", threads=threads).fit(train, epochs=1)
    first = learned.history_[0]["seconds"] + learned.reassign_seconds_
    return dict(
        first=first,
        steps=learned.history_[0]["seconds"],
        rebuilds=learned.reassign_seconds_,
        fixed=learned.history_[1]["seconds"],
        random=random_tree.history_[0]["seconds"],
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=400_000, help="PTB training tokens (0 = all)")
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1, help="torch threads (same for every model)")
    parser.add_argument(
        "--first-epoch",
        type=int,
        default=0,
        metavar="TOKENS",
        help="only time the tree-learning epoch against fixed-tree epochs on TOKENS PTB tokens",
    )
    parser.add_argument(
        "--scaled",
        type=int,
        nargs="*",
        metavar="V",
        help="only time one training step of every output layer at these vocabulary sizes "
        "(d = 200, batch 512, Zipf labels; CPU ms, median), e.g. --scaled 10000 250000",
    )
    parser.add_argument("--arity", type=int, default=None, help="tree arity for --scaled (default: smallest for depth)")
    parser.add_argument("--depth", type=int, default=3, help="tree depth for --scaled")
    parser.add_argument(
        "--device", default="cpu", help="torch device for --scaled, e.g. cuda (GPU: wall ms after synchronising)"
    )
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    print(f"torch {torch.__version__}, {args.threads} thread(s)")
    if args.scaled:
        on_cpu = torch.device(args.device).type == "cpu"
        unit = "CPU ms" if on_cpu else f"wall ms on {args.device}"
        for vocab in args.scaled:
            print(f"\n[scaled] V = {vocab}: one training step, d = 200, batch 512 ({unit}, median)", flush=True)
            # a GPU step takes milliseconds: more rounds, still seconds in all
            repeats = (5 if vocab <= 20000 else 3) if on_cpu else 21
            rows = bench_scaled(vocab, arity=args.arity, depth=args.depth, repeats=repeats, device=args.device)
            flat = rows["flat"]
            for name, ms in rows.items():
                print(f"  {name:32s} {ms:9.2f} ms   flat/this = {flat / ms:6.2f}x", flush=True)
        return
    if args.first_epoch:
        r = bench_first_epoch(args.first_epoch, args.threads)
        print(
            f"\n[first epoch] {args.first_epoch} PTB tokens: tree-learning epoch {r['first']:.1f} s "
            f"(steps {r['steps']:.1f} s + 20 re-builds {r['rebuilds']:.1f} s); the same model's next epoch "
            f"(tree fixed) {r['fixed']:.1f} s: ratio {r['first'] / r['fixed']:.2f} (aim <= 1.3); "
            f"a fixed random tree's epoch {r['random']:.1f} s: ratio {r['first'] / r['random']:.2f}"
        )
        return

    print("\n[1] output layer alone: one training step, d=100, V=10k, batch 256 (median)")
    layers = bench_layers()
    flat = layers["flat softmax"]
    for name, ms in layers.items():
        print(f"  {name:24s} {ms:7.2f} ms   flat/this = {flat / ms:5.2f}x")

    print("\n[2] Algorithm 2: re-build a depth-3, 25-ary tree over 10k labels")
    seconds, moved = bench_reassign()
    print(f"  {1000 * seconds:.1f} ms per re-assignment ({moved} labels moved)   aim < 1000 ms")

    print(
        f"\n[3] HLBL language model on PTB: {args.tokens or 'all'} training tokens, {args.epochs} epochs each, "
        "exact test perplexity"
    )
    rows = bench_lm(args.tokens, args.epochs, args.threads)
    lt, rt, hf, fl, ad = (rows[k] for k in ("learned", "random", "huffman", "flat", "adaptive"))
    print("\n  ratios (aims)")
    print(f"  learned vs random perplexity: {lt['ppl'] / rt['ppl']:.3f}  (aim < 1: learned lower)")
    print(f"  learned vs Huffman perplexity: {lt['ppl'] / hf['ppl']:.3f}  (aim <= 1)")
    print(f"  learned vs flat perplexity:   {lt['ppl'] / fl['ppl']:.3f}  (aim <= 1.05)")
    print(f"  flat / learned ms per batch:  {fl['ms'] / lt['ms']:.2f}x (aim >= 2x)")
    print(f"  flat / adaptive ms per batch: {fl['ms'] / ad['ms']:.2f}x (adaptive, side by side)")
    print(f"  adaptive / learned ms/batch:  {ad['ms'] / lt['ms']:.2f}x (aim: learned as fast as adaptive)")
    print(f"  re-assignment cost: {lt['reassign_ms']:.1f} ms each, 20 per epoch")


if __name__ == "__main__":
    main()
