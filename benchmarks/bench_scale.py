"""Scale benchmarks: per-node counts and an M1 fit over rows generated on Dask workers.

1. Counts: ``prunus.distributed.node_counts`` over ``--rows`` rows x 20
   features that are generated block by block on the workers (no process ever
   holds more than a few blocks), with 1 and with 2 single-threaded workers:
   rows per second and peak resident memory per worker.
2. M1 fit: ``CARTClassifier(method="M1", grow_size=--grow)`` on the same kind of
   rows: T_max grown in this process from ``--grow`` rows, the rest counted on
   2 workers; wall time and peak memory of this process and of the workers.

The full scale is ``--rows 100000000 --grow 1000000`` (10^8 rows:
16 GB of features that exist only block by block).

Run: ``python benchmarks/bench_scale.py [--rows N] [--grow N] [--block N] [--skip-counts] [--skip-fit]``
"""

import argparse
import os
import resource
import time

import numpy as np

N_FEATURES = 20


def _peak_rss_mb():
    # ru_maxrss is in KiB on Linux: the peak resident set of this process so far.
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def _rows(n_rows, block, seed=0):
    """(X, y) as dask arrays generated on the workers: y depends on two features, with 20% noise."""
    import dask.array as da

    X = da.random.default_rng(seed).random((n_rows, N_FEATURES), chunks=(block, N_FEATURES))
    noise = da.random.default_rng(seed + 1).random(n_rows, chunks=block)
    y = ((X[:, 0] + X[:, 1] > 1.0) ^ (noise < 0.2)).astype(np.int64)
    return X, y


def _tree(n=100_000, seed=5):
    """A deep CART tree (pure leaves on noisy labels) grown from a small in-memory sample."""
    from prunus.tree import grow_cart

    rng = np.random.default_rng(seed)
    X = rng.random((n, N_FEATURES))
    y = ((X[:, 0] + X[:, 1] > 1.0) ^ (rng.random(n) < 0.2)).astype(np.int64)
    return grow_cart(X, y, random_state=0)


def _rss_mb():
    import psutil

    return psutil.Process().memory_info().rss / 2**20


def _load():
    return "load " + " ".join(f"{v:.2f}" for v in os.getloadavg())


def _cluster(n_workers):
    from distributed import Client, LocalCluster

    # One thread per worker, numba's parallel kernels included: k workers use k cores.
    cluster = LocalCluster(
        n_workers=n_workers,
        threads_per_worker=1,
        processes=True,
        dashboard_address=None,
        env={"NUMBA_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"},
    )
    client = Client(cluster)
    client.run(lambda: __import__("prunus.tree"))  # imports and numba cache loads, outside the timing
    return cluster, client


def bench_counts(n_rows, block, workers):
    from prunus.distributed import node_counts

    tree = _tree()
    print(
        f"[counts] tree: {tree.n_nodes} nodes, depth {tree.max_depth}; {n_rows} rows x {N_FEATURES}, "
        f"blocks of {block} rows"
    )
    for k in workers:
        cluster, client = _cluster(k)
        try:
            X, y = _rows(min(n_rows, 4 * block), block)
            node_counts(tree, X, y, n_classes=2)  # warm-up: compile paths on every worker
            base = client.run(_rss_mb)
            X, y = _rows(n_rows, block)
            start = time.perf_counter()
            counts = node_counts(tree, X, y, n_classes=2)
            wall = time.perf_counter() - start
            peaks = client.run(_peak_rss_mb)
            assert counts[0].sum() == n_rows
            print(
                f"[counts] {k} worker(s): {wall:.2f} s, {n_rows / wall / 1e6:.2f} M rows/s; "
                f"peak RSS per worker {', '.join(f'{v:.0f}' for v in peaks.values())} MB (after the warm-up: "
                f"{', '.join(f'{v:.0f}' for v in base.values())} MB; one block of X: {block * N_FEATURES * 8 / 2**20:.0f} MB) "
                f"({_load()})"
            )
        finally:
            client.close()
            cluster.close()


def bench_fit(n_rows, grow, block):
    from prunus import CARTClassifier

    cluster, client = _cluster(2)
    try:
        X, y = _rows(n_rows, block, seed=10)
        start = time.perf_counter()
        est = CARTClassifier(method="M1", grow_size=grow, random_state=0).fit(X, y)
        wall = time.perf_counter() - start
        peaks = client.run(_peak_rss_mb)
        print(
            f"[fit] M1 on {n_rows} rows (T_max from {grow}): {wall:.2f} s; T_max {est.tree_.n_leaves} leaves, "
            f"selected {est.pruned_tree_.n_leaves} leaves, hold-out risk {est.test_risk_[est.selected_index_]:.4f}"
        )
        print(
            f"[fit] peak RSS: this process {_peak_rss_mb():.0f} MB; workers "
            f"{', '.join(f'{v:.0f}' for v in peaks.values())} MB ({_load()})"
        )
    finally:
        client.close()
        cluster.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--grow", type=int, default=100_000)
    parser.add_argument("--block", type=int, default=100_000, help="rows per block (below 200k: serial kernel)")
    parser.add_argument("--skip-fit", action="store_true")
    parser.add_argument("--skip-counts", action="store_true")
    args = parser.parse_args()
    if not args.skip_counts:
        bench_counts(args.rows, args.block, (1, 2))
    if not args.skip_fit:
        bench_fit(args.rows, args.grow, args.block)


if __name__ == "__main__":
    main()
