"""Benchmark: PAC-Bayes tree on Letter (18000 training rows) against time budgets
and against scikit-learn, in one process.

    python benchmarks/bench_pacbayes.py [--repeats 5]
    python benchmarks/bench_pacbayes.py --forest [--datasets letter satimage spam digits] [--reps 1]
        [--trees 100] [--max-train N] [--no-wildwood] [--random-splitter]
    python benchmarks/bench_pacbayes.py --forest --datasets noisy0 noisy10 noisy30 wide1000 --reps 5

Time budgets: T0 + counts + one DP <= 0.5 s; a fully
CV-tuned fit <= 15 s; predicting 2000 rows <= 20 ms. Anchor: scikit-learn's
DecisionTreeClassifier (fit of the full CART tree; GridSearchCV over
``ccp_alpha`` with 2 folds and 10 values, the usual way to tune a pruned tree;
predict). Times are medians over ``--repeats`` runs after one warm-up run
(numba compilation excluded).

``--forest``: test error and fit time of the PAC-Bayes forest against
scikit-learn's ``RandomForestClassifier`` and ``ExtraTreesClassifier`` (same
number of trees, ``max_features="sqrt"``) and wildwood's ``ForestClassifier``
when it is installed (benchmark only, not a dependency). Every forest is
fitted once on a small sample first, so that no numba compilation is timed. Training
sizes as in the reproduction of Table 2 (test sets of 2000 rows or what the
data allow); every fit single-process. ``noisy0``, ``noisy10`` and ``noisy30``
are 6000-row, 3-class ``make_classification`` problems with 0%, 10% and 30%
of the labels drawn at random, ``wide1000`` one with 1000 features of which 10
are informative (half for training, half for testing).
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.model_selection import GridSearchCV
from sklearn.tree import DecisionTreeClassifier

from prunus import datasets
from prunus.tree import grow_dyadic, grow_kd
from prunus.voting import HSVoteClassifier, PACBayesTreeClassifier, PenalizedTreeClassifier, pac_bayes_weights


def timeit(fn, repeats):
    fn()  # warm-up (numba compilation, caches)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def forest_main(args):
    from prunus.experiments import pacbayes as exp
    from prunus.experiments import pacbayes_forest as pf

    forests = ["pacbayes_forest", "random_forest", "extra_trees"]
    if args.random_splitter:
        forests.insert(1, "pacbayes_forest_random")
    status = pf.wildwood_status()
    if not args.no_wildwood:
        if status is None:
            forests.append("wildwood")
        else:
            print(f"wildwood not run: {status}")
    cfg = dict(exp.MODES["full"], max_train=args.max_train)
    rows = pf.compare(
        args.datasets,
        lambda name, n: (n // 2, n - n // 2) if name in pf.SYNTHETIC else exp._sizes(name, n, cfg),
        reps=args.reps,
        n_estimators=args.trees,
        forests=tuple(forests),
    )
    header, table = pf.summary(rows, forests)
    print(" | ".join(header))
    for row in table:
        print(" | ".join(f"{v:.4f}" if isinstance(v, float) else str(v) for v in row))
    for r in rows:
        if r["forest"] == "pacbayes_forest":
            print(f"  {r['dataset']} rep {r['rep']}: lambda1={r['lambda1']:g} lambda2={r['lambda2']:g}")
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--forest", action="store_true", help="forest comparison instead of the tree timings")
    parser.add_argument("--datasets", nargs="+", default=["letter", "satimage", "spam", "digits"])
    parser.add_argument("--reps", type=int, default=1, help="random splits per dataset (--forest)")
    parser.add_argument("--trees", type=int, default=100)
    parser.add_argument("--max-train", type=int, default=None, help="cap on the training size (--forest)")
    parser.add_argument("--no-wildwood", action="store_true")
    parser.add_argument(
        "--random-splitter", action="store_true", help="also the PAC-Bayes forest with splitter='random' (--forest)"
    )
    args = parser.parse_args(argv)
    if args.forest:
        return forest_main(args)
    data = datasets.load("letter")
    rng = np.random.default_rng(0)
    perm = rng.permutation(data.X.shape[0])
    train, test = perm[:18000], perm[18000:20000]
    X, y, Xt, yt = data.X[train], data.y[train], data.X[test], data.y[test]
    L = int(y.max()) + 1
    r = args.repeats

    rows = []

    def report(name, seconds, target=None, anchor=None):
        ok = "" if target is None else ("PASS" if seconds <= target else "MISS")
        ratio = "" if anchor is None else f"{seconds / anchor:6.2f}x sklearn"
        tgt = "" if target is None else f"<= {target:g} s"
        rows.append((name, seconds, tgt, ok, ratio))
        print(f"{name:<48} {seconds * 1000:9.1f} ms  {tgt:<10} {ok:<4} {ratio}", flush=True)

    sk_fit = timeit(lambda: DecisionTreeClassifier(random_state=0).fit(X, y), r)
    report("sklearn DecisionTreeClassifier.fit (anchor)", sk_fit)
    alphas = np.logspace(-5, -1, 10)
    sk_cv = timeit(
        lambda: GridSearchCV(DecisionTreeClassifier(random_state=0), {"ccp_alpha": alphas}, cv=2).fit(X, y),
        max(1, r // 2),
    )
    report("sklearn GridSearchCV(ccp_alpha x10, cv=2) (anchor)", sk_cv)
    sk = DecisionTreeClassifier(random_state=0).fit(X, y)
    sk_pred = timeit(lambda: sk.predict(Xt), r * 4)
    report("sklearn predict 2000 rows (anchor)", sk_pred)

    for part, grow in (("dyadic", grow_dyadic), ("kd", grow_kd)):

        def one_dp():
            tree = grow(X)
            counts = tree.node_counts(X, y, n_classes=L)
            return pac_bayes_weights(tree, counts, 1.0, 1.0)

        report(f"{part}: T0 + counts + one DP", timeit(one_dp, r), 0.5, sk_fit)
        est = PACBayesTreeClassifier(part, random_state=0)
        report(
            f"{part}: PACBayesTreeClassifier CV-tuned fit", timeit(lambda: est.fit(X, y), max(1, r // 2)), 15.0, sk_cv
        )
        err = np.mean(est.predict(Xt) != yt)
        report(
            f"{part}: PACBayesTreeClassifier.predict 2000 rows", timeit(lambda: est.predict(Xt), r * 4), 0.020, sk_pred
        )
        pen = PenalizedTreeClassifier(part, random_state=0)
        report(
            f"{part}: PenalizedTreeClassifier CV-tuned fit", timeit(lambda: pen.fit(X, y), max(1, r // 2)), None, sk_cv
        )
        print(
            f"    test error: PAC-Bayes {err:.4f}, default pruning {np.mean(pen.predict(Xt) != yt):.4f} "
            f"(lambda1={est.lambda1_:.4g}, lambda2={est.lambda2_:.4g}, lam={pen.lam_:.4g}; "
            f"|T0|={est.tree_.n_nodes})"
        )

    # HS-vote is binary: time it on the 'A vs rest' problem of the same rows.
    yb = (y == 0).astype(int)
    hs = HSVoteClassifier("kd", random_state=0)
    report("kd: HSVoteClassifier CV-tuned fit (binary A vs rest)", timeit(lambda: hs.fit(X, yb), max(1, r // 2)))
    return rows


if __name__ == "__main__":
    main()
