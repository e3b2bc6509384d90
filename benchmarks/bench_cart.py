"""CART pruning benchmarks: prunus against scikit-learn, in one process.

1. Path speed: ``cost_complexity_path`` vs scikit-learn's pruning-path
   computation on the same grown tree (~100k nodes: 300k noisy rows, 10
   features).
2. Selection: ``CARTClassifier(selection="cv", cv=5)`` vs
   ``GridSearchCV(DecisionTreeClassifier(), ccp_alpha over its path, cv=5)`` on
   letter (18000 training rows, 2000 test rows; needs ``prunus data fetch letter``).

Run: ``python benchmarks/bench_cart.py [--quick]``
"""

import argparse
import time

import numpy as np
from sklearn.model_selection import GridSearchCV
from sklearn.tree import DecisionTreeClassifier
from sklearn.tree._tree import ccp_pruning_path

from prunus.datasets import is_available, load
from prunus.pruning import CARTClassifier, cost_complexity_path
from prunus.tree import Tree


def best_of(fn, repeat):
    best, out = np.inf, None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def bench_path(n_rows, repeat):
    rng = np.random.RandomState(0)
    X = rng.random_sample((n_rows, 10))
    y = ((X[:, 0] + X[:, 1] > 1.0) ^ (rng.random_sample(n_rows) < 0.3)).astype(np.int64)
    sk = DecisionTreeClassifier(random_state=0).fit(X, y)
    tree = Tree.from_sklearn(sk)
    counts = tree.node_counts(X, y, n_classes=2)
    cost_complexity_path(tree, counts)  # compile
    t_prunus, path = best_of(lambda: cost_complexity_path(tree, counts), repeat)
    t_counts, _ = best_of(lambda: tree.node_counts(X, y, n_classes=2), repeat)
    t_sklearn, sk_path = best_of(lambda: ccp_pruning_path(sk.tree_), 1)
    print(f"[path] T_max: {tree.n_nodes} nodes, {tree.n_leaves} leaves, depth {tree.max_depth}")
    print(f"[path] prunus cost_complexity_path: {t_prunus * 1e3:.1f} ms (K={len(path)}); "
          f"node_counts of {n_rows} rows: {t_counts * 1e3:.1f} ms")
    print(f"[path] scikit-learn ccp_pruning_path:  {t_sklearn * 1e3:.1f} ms (K={len(sk_path['ccp_alphas'])})")
    print(f"[path] speed-up (path only): {t_sklearn / t_prunus:.0f}x; "
          f"including node_counts: {t_sklearn / (t_prunus + t_counts):.0f}x")


def bench_selection(n_alphas, n_jobs):
    if not is_available("letter"):
        print("[cv] letter not fetched: run `prunus data fetch letter`")
        return
    data = load("letter")
    rng = np.random.RandomState(0)
    perm = rng.permutation(data.X.shape[0])
    train, test = perm[:18000], perm[18000:]
    Xtr, ytr, Xte, yte = data.X[train], data.y[train], data.X[test], data.y[test]

    start = time.perf_counter()
    est = CARTClassifier(selection="cv", cv=5, random_state=0, n_jobs=n_jobs).fit(Xtr, ytr)
    t_prunus = time.perf_counter() - start
    err_prunus = np.mean(est.predict(Xte) != yte)

    start = time.perf_counter()
    path = DecisionTreeClassifier(random_state=0).cost_complexity_pruning_path(Xtr, ytr)
    alphas = path.ccp_alphas[:-1]
    grid = alphas[np.unique(np.linspace(0, len(alphas) - 1, n_alphas).astype(int))]
    search = GridSearchCV(DecisionTreeClassifier(random_state=0), {"ccp_alpha": grid}, cv=5, n_jobs=n_jobs)
    search.fit(Xtr, ytr)
    t_sklearn = time.perf_counter() - start
    err_sklearn = np.mean(search.predict(Xte) != yte)
    print(f"[cv] letter 18000/2000, 5 folds, n_jobs={n_jobs}")
    print(f"[cv] prunus CARTClassifier(selection='cv'): {t_prunus:.2f} s, {len(est.path_)} alphas evaluated, "
          f"{est.pruned_tree_.n_leaves} leaves, test error {err_prunus:.4f}")
    print(f"[cv] scikit-learn path + GridSearchCV over {len(grid)} ccp_alphas: {t_sklearn:.2f} s, "
          f"{search.best_estimator_.get_n_leaves()} leaves, test error {err_sklearn:.4f}")
    print(f"[cv] speed-up: {t_sklearn / t_prunus:.1f}x")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller path benchmark (60k rows)")
    parser.add_argument("--n-jobs", type=int, default=1)
    args = parser.parse_args()
    bench_path(60_000 if args.quick else 300_000, repeat=3)
    bench_selection(n_alphas=52, n_jobs=args.n_jobs)


if __name__ == "__main__":
    main()
