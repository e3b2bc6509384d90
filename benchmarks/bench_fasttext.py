"""Benchmark: next-word prediction on Penn Treebank, fastText against prunus's tree softmax.

The same task for both: predict word w_t from the T = 3 previous words on the
same training / test tokens. fastText (the ``fasttext`` / ``fasttext-wheel``
package; not a prunus dependency) gets the context words as its input text and
w_t as the label, with ``-loss hs`` (its Huffman-tree hierarchical softmax) and
``-loss softmax``; prunus trains the HLBL model with the learned tree, the
Huffman tree and a flat softmax. Compared: top-1 accuracy on the test tokens
and training time per token (one thread each, same epochs).

Perplexities are not compared: fastText's input is a bag of context words
(position-free, averaged embeddings), a different model from the HLBL's
position-dependent context matrices, and its evaluation API gives no exact
normalized probability of every test word.

Usage::

    pip install fasttext-wheel
    python benchmarks/bench_fasttext.py --tokens 200000 --epochs 3
"""

from __future__ import annotations

import argparse
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import torch
from bench_hsoftmax import ptb_model  # the same PTB model as the other tree-softmax benchmarks

from prunus import datasets

warnings.filterwarnings("ignore", message="Sparse invariant checks")


def fasttext_rows(train, test, words, context, epochs, dim):
    import fasttext

    def lines(ids):
        ctx = np.stack([np.roll(ids, k) for k in range(1, context + 1)], axis=1)
        return [" ".join(words[w] for w in ctx[i]) for i in range(context, ids.shape[0])], ids[context:]

    train_x, train_y = lines(train)
    test_x, test_y = lines(test)
    rows = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "train.txt"
        path.write_text("".join(f"__label__{words[y]} {x}\n" for x, y in zip(train_x, train_y)))
        for loss in ("hs", "softmax"):
            start = time.perf_counter()
            model = fasttext.train_supervised(
                str(path), epoch=epochs, dim=dim, loss=loss, thread=1, lr=0.1, minCount=1, verbose=0
            )
            seconds = time.perf_counter() - start
            labels, _ = model.predict(test_x, k=1)
            pred = [lab[0][len("__label__") :] if lab else "" for lab in labels]
            acc = float(np.mean([p == words[y] for p, y in zip(pred, test_y)]))
            rows[f"fastText -loss {loss}"] = dict(
                acc=acc, us_per_token=1e6 * seconds / (len(train_x) * epochs), fit_s=seconds
            )
    return rows


def prunus_rows(train, test, vocab, context, epochs, dim):
    rows = {}
    for output in ("learned", "huffman", "flat"):
        model = ptb_model(vocab, output, context_size=context, dim=dim)
        start = time.perf_counter()
        model.fit(train, epochs=epochs)
        seconds = time.perf_counter() - start
        ctx = model.contexts(test)[context:]
        correct = 0
        for s in range(0, ctx.shape[0], 2048):
            correct += int(
                (model.full_log_prob(ctx[s : s + 2048]).argmax(axis=1) == test[context:][s : s + 2048]).sum()
            )
        rows[f"prunus {output}"] = dict(
            acc=correct / ctx.shape[0],
            us_per_token=1e6 * seconds / (train.shape[0] * epochs),
            fit_s=seconds,
            ppl=model.perplexity(test),
        )
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tokens", type=int, default=200_000, help="PTB training tokens (0 = all)")
    parser.add_argument("--test-tokens", type=int, default=20_000)
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--dim", type=int, default=100)
    args = parser.parse_args()
    torch.set_num_threads(1)
    data = datasets.load("ptb")
    train = data.ids_train if not args.tokens else data.ids_train[: args.tokens]
    test = data.ids_test[: args.test_tokens]
    words = data.vocabulary.words
    print(
        f"PTB next-word prediction: {train.shape[0]} training tokens, {test.shape[0]} test tokens, "
        f"context 3, d = {args.dim}, {args.epochs} epochs, 1 thread"
    )
    try:
        rows = fasttext_rows(train, test, words, 3, args.epochs, args.dim)
    except ImportError as exc:
        print(f"  fastText not importable ({exc}); only prunus rows")
        rows = {}
    rows.update(prunus_rows(train, test, data.vocabulary, 3, args.epochs, args.dim))
    print(f"\n  {'model':26s} {'top-1 acc':>9s} {'us/token':>9s} {'fit s':>7s}  perplexity")
    for name, r in rows.items():
        ppl = f"{r['ppl']:.1f}" if "ppl" in r else "n/a (not comparable)"
        print(f"  {name:26s} {r['acc']:9.4f} {r['us_per_token']:9.2f} {r['fit_s']:7.1f}  {ppl}")


if __name__ == "__main__":
    main()
