"""Adaptive-Pruning Boost vs Quick Boost vs exhaustive vs scikit-learn, in one process.

Two parts:

1. Wall time on satimage (source train/test split) at the same number of
   rounds: prunus ``ExactBoostClassifier`` with each split search against
   scikit-learn ``AdaBoostClassifier(DecisionTreeClassifier(max_depth=3))``.
   Each fit is timed ``--repeat`` times after a warm-up (numba compilation
   excluded) and the best time is kept; both test errors are printed.
   Aims: adaptive at most half scikit-learn's time; quick and adaptive
   faster than exhaustive.
2. Assessments on satimage, spam, letter and digits (depth 3, then 1): adaptive
   as Algorithm 1 (``adaptive_rule="gap", min_batch=1, adaptive_init=0.5``) and
   with the lower-bound-first rule (``adaptive_rule="lower_first"``, the
   estimator's default) vs quick (aim:
   >= 15% fewer on average) and vs LB_wo (aim: within 3%), listing every
   dataset where adaptive > quick.

3. ``--frontier``: every adaptive setting against exhaustive search, Quick
   Boost and LB_wo on satimage, spam, letter, digits, breast_cancer, wine,
   iris, a 20-class synthetic problem and a small 11-class one (990 training
   rows, 10 features), at depths 3 and 1.
4. ``--table``: per dataset, assessments of the default, Quick Boost and
   LB_wo, and wall time of the default, Quick Boost, exhaustive search and
   scikit-learn's AdaBoost (depth 3; ``--rounds``, ``--repeat``).
6. ``--mnist``: the paper's scale on a synthetic MNIST-shaped problem (60,000 x 784 features of
   256 levels, 10 classes; ``--mnist-shape``, ``--mnist-depth``): exhaustive search, Quick Boost,
   the default and Algorithm 1, interleaved in one process (``--rounds``, ``--repeat``).
5. ``--sparse``: a synthetic sparse binary problem (default 50,000 rows x
   10,000 features at 1% density; ``--sparse-shape`` to change it): fit time
   and peak memory of prunus (adaptive, exhaustive and Quick Boost) on the
   CSR matrix, on the same matrix densified (``--sparse-dense``; 8 bytes per
   entry), and of scikit-learn's AdaBoost on the CSR matrix, each fit in a
   fresh process. Measured (10 rounds, depth 3): exhaustive 3.9 s on CSR
   (88 MiB above the data) vs 67 s densified and 3.4 s for scikit-learn;
   adaptive 4.9 s on CSR vs 76 s densified; Quick Boost 4.8 s on CSR.
   Dense and CSR fits assess the same examples.

Usage: ``python benchmarks/bench_boosting.py [--rounds 100] [--repeat 3] [--assess-rounds 500]``
``python benchmarks/bench_boosting.py --sparse [--sparse-shape 50000 10000 0.01] [--sparse-rounds 10]``
``python benchmarks/bench_boosting.py --mnist --rounds 10 --repeat 3 [--mnist-shape 50000 500 --mnist-depth 3]``
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from sklearn.ensemble import AdaBoostClassifier
from sklearn.tree import DecisionTreeClassifier

from prunus.boosting import ExactBoostClassifier
from prunus.datasets import load

# Synthetic problems (``make_classification``, one cluster per class; about 70% of the rows for
# training): many classes, and few rows with many classes, where interval updates cost most.
SYNTHETIC = {  # name: (make_classification arguments, training rows)
    "synthetic20": (dict(n_samples=4000, n_features=20, n_informative=14, n_redundant=2, n_classes=20), 2800),
    "synthetic11": (dict(n_samples=1414, n_features=10, n_informative=8, n_redundant=1, n_classes=11), 990),
}


def split(name, seed=0):
    if name in SYNTHETIC:
        from sklearn.datasets import make_classification

        params, cut = SYNTHETIC[name]
        X, y = make_classification(**params, n_clusters_per_class=1, random_state=seed)
        return X[:cut], y[:cut], X[cut:], y[cut:]
    data = load(name)
    if data.train_index is not None:
        return data.X[data.train_index], data.y[data.train_index], data.X[data.test_index], data.y[data.test_index]
    rng = np.random.RandomState(seed)
    perm = rng.permutation(len(data.y))
    cut = int(0.7 * len(perm))
    return data.X[perm[:cut]], data.y[perm[:cut]], data.X[perm[cut:]], data.y[perm[cut:]]


def best_time(make, X, y, repeat):
    """Best wall time and best CPU (process) time over ``repeat`` fits."""
    best, best_cpu, est = np.inf, np.inf, None
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        est = make().fit(X, y)
        best = min(best, time.perf_counter() - t0)
        best_cpu = min(best_cpu, time.process_time() - c0)
    est.cpu_seconds_ = best_cpu
    return best, est


def lower_first(target=0.9, min_batch=1, init=0.5):
    """Parameters of the plain lower-bound-first rule at one setting.

    Batches are not sized by the bound's rate, and every node is searched by the rule.
    """
    return dict(
        split_search="adaptive",
        adaptive_rule="lower_first",
        adaptive_extrapolate=False,
        adaptive_target=target,
        min_batch=min_batch,
        adaptive_init=init,
        exhaustive_below=0.0,
    )


CONFIGS = {
    "exhaustive": dict(split_search="exhaustive"),
    "quick": dict(split_search="quick"),  # defaults: quick_init=0.9, quick_batches=20
    "quick(0.5,10)": dict(split_search="quick", quick_init=0.5, quick_batches=10),
    # the estimator's default: lower_first, target 0.97, min_batch=1, init 0.9, batches sized by the bound's rate
    "adaptive": dict(split_search="adaptive"),
    "adaptive(gap, auto)": dict(
        split_search="adaptive", adaptive_rule="gap", min_batch="auto", adaptive_init=0.9, exhaustive_below=0.0
    ),
    # literal Algorithm 1
    "adaptive(Alg. 1)": dict(
        split_search="adaptive", adaptive_rule="gap", min_batch=1, adaptive_init=0.5, exhaustive_below=0.0
    ),
    "adaptive(lower-first)": lower_first(),
}


def wall_time(rounds, repeat, depth=3):
    Xtr, ytr, Xte, yte = split("satimage")
    ExactBoostClassifier(n_estimators=3).fit(Xtr[:300], ytr[:300])  # compile outside the timings
    for cfg in CONFIGS.values():
        ExactBoostClassifier(n_estimators=2, **cfg).fit(Xtr[:300], ytr[:300])
    rows = []
    times, cpu = {}, {}
    for name, cfg in CONFIGS.items():
        t, est = best_time(lambda: ExactBoostClassifier(n_estimators=rounds, max_depth=depth, **cfg), Xtr, ytr, repeat)
        times[name] = t
        cpu[name] = est.cpu_seconds_
        rows.append(
            (
                f"prunus {name}",
                t,
                est.cpu_seconds_,
                len(est.estimators_),
                1 - est.score(Xte, yte),
                int(est.assessments_.sum()),
            )
        )
    t, sk = best_time(
        lambda: AdaBoostClassifier(DecisionTreeClassifier(max_depth=depth), n_estimators=rounds, random_state=0),
        Xtr,
        ytr,
        repeat,
    )
    times["sklearn"] = t
    cpu["sklearn"] = sk.cpu_seconds_
    rows.append(("sklearn AdaBoost(DT depth 3)", t, sk.cpu_seconds_, len(sk.estimators_), 1 - sk.score(Xte, yte), -1))
    print(f"\n== wall time, satimage train 4435 x 36, {rounds} rounds, depth {depth}, best of {repeat} ==")
    print(
        f"{'method':32s} {'wall s':>8s} {'cpu s':>8s} {'ms/tree':>8s} {'trees':>6s} {'test err':>9s} "
        f"{'assessments':>12s}"
    )
    for name, t, c, k, err, a in rows:
        print(f"{name:32s} {t:8.3f} {c:8.3f} {1000 * t / k:8.2f} {k:6d} {err:9.4f} {a if a >= 0 else '':>12}")
    print(
        f"ratio adaptive / sklearn: wall {times['adaptive'] / times['sklearn']:.3f}, "
        f"cpu {cpu['adaptive'] / cpu['sklearn']:.3f}  (aim <= 0.5)"
    )
    for name in CONFIGS:
        if name != "exhaustive":
            print(
                f"ratio {name} / exhaustive: wall {times[name] / times['exhaustive']:.3f}, "
                f"cpu {cpu[name] / cpu['exhaustive']:.3f}  (aim < 1)"
            )
    return times


def wall_time_other(rounds, repeat, datasets=("spam", "letter", "digits"), depth=3):
    """Quick and adaptive vs exhaustive wall time on the other datasets (prunus only)."""
    print(f"\n== wall time vs exhaustive, {rounds} rounds, depth {depth}, best of {repeat} ==")
    print(
        f"{'dataset':10s} {'exhaustive s':>12s} {'quick/exh':>10s} {'adaptive/exh':>13s} {'Alg.1/exh':>13s} "
        f"{'lower-first/exh':>16s}"
    )
    for name in datasets:
        Xtr, ytr, _, _ = split(name)
        times = {}
        for key in ("exhaustive", "quick", "adaptive", "adaptive(Alg. 1)", "adaptive(lower-first)"):
            times[key], _ = best_time(
                lambda: ExactBoostClassifier(n_estimators=rounds, max_depth=depth, **CONFIGS[key]), Xtr, ytr, repeat
            )
        ex = times["exhaustive"]
        print(
            f"{name:10s} {ex:12.3f} {times['quick'] / ex:10.3f} {times['adaptive'] / ex:13.3f} "
            f"{times['adaptive(Alg. 1)'] / ex:13.3f} {times['adaptive(lower-first)'] / ex:16.3f}"
        )


def assessments(rounds, depth=3, datasets=("satimage", "spam", "letter", "digits")):
    """Assessments of Quick Boost, Algorithm 1 and the lower-bound-first rule against LB_wo.

    LB_wo bounds every search that assesses examples in weight order and
    completes the winner, Quick Boost included, so ``1 - LB_wo / QB`` is the
    largest saving over Quick Boost that any such search can reach.
    """
    print(f"\n== assessments, {rounds} rounds, depth {depth} ==")
    print(
        f"{'dataset':10s} {'exhaustive':>11s} {'QB(0.5,10)':>11s} {'QB':>11s} {'AP Alg.1':>11s} {'AP lower-1st':>12s} "
        f"{'LB_wo':>11s} {'Alg.1/QB':>9s} {'LF/QB':>7s} {'LF/QB(.5)':>9s} {'best/QB':>8s} {'Alg.1/LB':>8s} "
        f"{'LF/LB':>7s} {'QB/LB':>7s}"
    )
    keys = ("quick", "quick(0.5,10)", "adaptive(Alg. 1)", "adaptive(lower-first)")
    ratios = {k: [] for k in ("alg1_qb", "lf_qb", "lf_qbw", "lb_qb", "alg1_lb", "lf_lb")}
    worse = []
    for name in datasets:
        Xtr, ytr, _, _ = split(name)
        res = {}
        for key in keys:
            est = ExactBoostClassifier(
                n_estimators=rounds, max_depth=depth, track_bounds=(key == "quick"), **CONFIGS[key]
            ).fit(Xtr, ytr)
            res[key] = est.assessments_.sum()
            if key == "quick":
                lbwo = est.weight_order_bound_.sum()
                ex = est.exhaustive_assessments_.sum()
        qb, qbw, a1, lf = (res[k] for k in keys)
        for key, v in (
            ("alg1_qb", a1 / qb),
            ("lf_qb", lf / qb),
            ("lf_qbw", lf / qbw),
            ("lb_qb", lbwo / qb),
            ("alg1_lb", a1 / lbwo),
            ("lf_lb", lf / lbwo),
        ):
            ratios[key].append(v)
        worse += [f"{name} ({k} vs QB)" for k, v in (("Alg. 1", a1), ("lower-first", lf)) if v > qb]
        print(
            f"{name:10s} {ex:11.3e} {qbw:11.3e} {qb:11.3e} {a1:11.3e} {lf:12.3e} {lbwo:11.3e} "
            f"{100 * (1 - a1 / qb):8.1f}% {100 * (1 - lf / qb):6.1f}% {100 * (1 - lf / qbw):8.1f}% "
            f"{100 * (1 - lbwo / qb):7.1f}% {a1 / lbwo:8.3f} {lf / lbwo:7.3f} {qb / lbwo:7.3f}"
        )
    m = {k: float(np.mean(v)) for k, v in ratios.items()}
    print(
        f"mean saving over QB (0.9/20): Alg. 1 {100 * (1 - m['alg1_qb']):.1f}%, lower-first "
        f"{100 * (1 - m['lf_qb']):.1f}%, largest possible (LB_wo) {100 * (1 - m['lb_qb']):.1f}%  (aim >= 15%)"
    )
    print(f"mean saving of lower-first over QB(0.5,10): {100 * (1 - m['lf_qbw']):.1f}%")
    print(f"mean AP / LB_wo: Alg. 1 {m['alg1_lb']:.3f}, lower-first {m['lf_lb']:.3f}  (aim <= 1.03)")
    print("datasets where adaptive > quick:", ", ".join(worse) if worse else "none")


FRONTIER_DATASETS = (
    "satimage",
    "spam",
    "letter",
    "digits",
    "breast_cancer",
    "wine",
    "iris",
    "synthetic20",
    "synthetic11",
)
FRONTIER = {
    "default": dict(),
    "Alg. 1": dict(split_search="adaptive", adaptive_rule="gap", min_batch=1, adaptive_init=0.5, exhaustive_below=0.0),
    "gap(auto,.9)": dict(
        split_search="adaptive", adaptive_rule="gap", min_batch="auto", adaptive_init=0.9, exhaustive_below=0.0
    ),
    "LF(.9,1,.5)": lower_first(0.9, 1, 0.5),
    "LF(.9,1,.9)": lower_first(0.9, 1, 0.9),
    "LF(.9,auto,.9)": lower_first(0.9, "auto", 0.9),
    "LF(.9,1,.7)": lower_first(0.9, 1, 0.7),
    "LF(.9,1,.1)": lower_first(0.9, 1, 0.1),
    **{f"LF({t:g},1,.5)": lower_first(t, 1, 0.5) for t in (0.0, 0.1, 0.25, 0.5, 0.75)},
    "LF(0,1,0)": lower_first(0.0, 1, 1e-9),
}


def frontier(rounds, depth, repeat, datasets=FRONTIER_DATASETS, settings=FRONTIER):
    """Per dataset: CPU time (best of ``repeat``) and assessments / LB_wo of every adaptive setting.

    A cell is starred when the setting assesses no more than Quick Boost and
    at most 1.03 x LB_wo, and is faster than both exhaustive search and Quick
    Boost. Settings are "LF(target, min_batch, init)" for the lower-bound-first
    rule; "default" is ``ExactBoostClassifier()``'s own setting.
    """
    cols = ["exhaustive", "quick"] + list(settings)
    configs = {"exhaustive": dict(split_search="exhaustive"), "quick": dict(split_search="quick"), **settings}
    X, y, _, _ = split("iris")
    for cfg in configs.values():
        ExactBoostClassifier(n_estimators=2, max_depth=depth, **cfg).fit(X, y)  # compile outside the timings
    print(
        f"\n== frontier, {rounds} rounds, depth {depth}: CPU ms (best of {repeat}) and assessments / LB_wo; "
        f"* = <= QB, <= 1.03 LB_wo, faster than exhaustive and QB =="
    )
    print(f"{'dataset':14s}" + "".join(f"{c:>17s}" for c in cols) + f"{'LB_wo':>11s}")
    total = {c: 0.0 for c in settings}
    holds = {c: 0 for c in settings}
    bound = {c: 0 for c in settings}
    for name in datasets:
        X, y, _, _ = split(name)
        res = {}
        for c in cols:
            cpu = np.inf
            for _ in range(repeat):
                c0 = time.process_time()
                est = ExactBoostClassifier(n_estimators=rounds, max_depth=depth, **configs[c]).fit(X, y)
                cpu = min(cpu, time.process_time() - c0)
            res[c] = (cpu, int(est.assessments_.sum()))
        lbwo = int(
            ExactBoostClassifier(n_estimators=rounds, max_depth=depth, split_search="quick", track_bounds=True)
            .fit(X, y)
            .weight_order_bound_.sum()
        )
        cells = []
        for c in cols:
            t, a = res[c]
            in_bound = a <= res["quick"][1] and a <= 1.03 * lbwo
            ok = in_bound and t < res["exhaustive"][0] and t < res["quick"][0]
            if c in settings:
                total[c] += t
                holds[c] += ok
                bound[c] += in_bound
            cells.append(f"{1000 * t:7.0f} {a / lbwo:6.3f}{'*' if ok else ' '}")
        print(f"{name:14s}" + "".join(f"{x:>17s}" for x in cells) + f"{lbwo:11.3e}", flush=True)
    n = len(datasets)
    for c in settings:
        print(
            f"{c:16s} total CPU {total[c]:7.3f} s; all four conditions on {holds[c]}/{n} datasets; "
            f"assessment bound on {bound[c]}/{n}"
        )


def table(rounds, depth, repeat, datasets=FRONTIER_DATASETS):
    """Per dataset: assessments (default / QB / LB_wo) and wall time (default / quick / exhaustive / scikit-learn).

    Wall times are the best of ``repeat`` fits after a compiling warm-up;
    the four fits of a dataset alternate within each repetition.
    """
    import os

    makers = {
        "default": lambda: ExactBoostClassifier(n_estimators=rounds, max_depth=depth),
        "quick": lambda: ExactBoostClassifier(n_estimators=rounds, max_depth=depth, split_search="quick"),
        "exhaustive": lambda: ExactBoostClassifier(n_estimators=rounds, max_depth=depth, split_search="exhaustive"),
        "sklearn": lambda: AdaBoostClassifier(
            DecisionTreeClassifier(max_depth=depth), n_estimators=rounds, random_state=0
        ),
    }
    X, y, _, _ = split("iris")
    for make in makers.values():
        make().set_params(n_estimators=2).fit(X, y)  # compile outside the timings
    print(
        f"\n== {rounds} rounds, depth {depth}: assessments and wall seconds (best of {repeat}); "
        f"load average {os.getloadavg()[0]:.2f} at start =="
    )
    print(
        f"{'dataset':14s} {'default':>10s} {'QB':>10s} {'LB_wo':>10s} {'def/QB':>7s} {'def/LB':>7s} "
        f"{'t default':>10s} {'t quick':>9s} {'t exh':>9s} {'t sklearn':>10s} {'def/exh':>8s} {'def/QB':>7s}"
    )
    for name in datasets:
        X, y, _, _ = split(name)
        best = {k: np.inf for k in makers}
        for _ in range(repeat):
            for key, make in makers.items():
                t0 = time.perf_counter()
                make().fit(X, y)
                best[key] = min(best[key], time.perf_counter() - t0)
        a_def = int(makers["default"]().fit(X, y).assessments_.sum())
        qb = makers["quick"]().set_params(track_bounds=True).fit(X, y)
        a_qb, lbwo = int(qb.assessments_.sum()), int(qb.weight_order_bound_.sum())
        print(
            f"{name:14s} {a_def:10.3e} {a_qb:10.3e} {lbwo:10.3e} {a_def / a_qb:7.3f} {a_def / lbwo:7.3f} "
            f"{best['default']:10.3f} {best['quick']:9.3f} {best['exhaustive']:9.3f} {best['sklearn']:10.3f} "
            f"{best['default'] / best['exhaustive']:8.3f} {best['default'] / best['quick']:7.3f}",
            flush=True,
        )
    print(f"load average {os.getloadavg()[0]:.2f} at end")


def mnist_scale(shape, depth, rounds, repeat, track_bounds=False):
    """The paper's scale on ``synthetic_mnist`` (the reproduction's MNIST stand-in): wall time and assessments.

    Exhaustive search, Quick Boost, the default and Algorithm 1 as written
    alternate within each of ``repeat`` repetitions in this one process (best
    time kept, after a compiling warm-up); ratios are printed next to the
    times. With ``track_bounds`` the default is also fitted with
    ``track_bounds=True``.
    """
    from prunus.experiments.boosting import LITERAL, synthetic_mnist

    n, k = shape
    X, y = synthetic_mnist(n, k)
    configs = {
        "exhaustive": dict(split_search="exhaustive"),
        "quick": dict(split_search="quick"),
        "default": {},
        "AP-B (Alg. 1)": dict(split_search="adaptive", **LITERAL),
    }
    if track_bounds:
        configs["default, track_bounds"] = dict(track_bounds=True)
    for cfg in configs.values():
        ExactBoostClassifier(n_estimators=2, max_depth=2, **cfg).fit(X[:300], y[:300])  # compile
    import os

    best = {c: np.inf for c in configs}
    cpu = {c: np.inf for c in configs}
    assessed = {}
    load0 = os.getloadavg()[0]
    for _ in range(repeat):
        for name, cfg in configs.items():
            t0, c0 = time.perf_counter(), time.process_time()
            est = ExactBoostClassifier(n_estimators=rounds, max_depth=depth, **cfg).fit(X, y)
            best[name] = min(best[name], time.perf_counter() - t0)
            cpu[name] = min(cpu[name], time.process_time() - c0)
            assessed[name] = int(est.assessments_.sum())
    print(
        f"\n== synthetic MNIST scale {n} x {k}, depth {depth}, {rounds} rounds: best of {repeat}, "
        f"load average {load0:.1f} at start, {os.getloadavg()[0]:.1f} at end =="
    )
    a_ex, a_qb = assessed["exhaustive"], assessed["quick"]
    for label, times in (("wall", best), ("CPU", cpu)):
        t_ex, t_qb = times["exhaustive"], times["quick"]
        for name in configs:
            t, a = times[name], assessed[name]
            print(
                f"{label:4s} {name:24s} {t:8.2f} s {a:10.3e} assess.  time / exh {t / t_ex:6.3f}  "
                f"assess. / exh {a / a_ex:6.3f}  time / QB {t / t_qb:6.3f}  assess. / QB {a / a_qb:6.3f}",
                flush=True,
            )


def _sparse_problem(n, k, density, seed=0):
    from scipy import sparse

    rng = np.random.RandomState(seed)
    X = sparse.random(n, k, density=density, format="csr", random_state=rng, dtype=np.float64)
    X.data[:] = 1.0  # binary features, as in the LIBSVM files a6a, w4a
    informative = rng.choice(k, size=20, replace=False)
    score = np.asarray(X[:, informative].sum(axis=1)).ravel() + 0.3 * rng.randn(n)
    y = (score > np.median(score)).astype(np.int64)
    return X, y


def _sparse_write(shape, path):
    from scipy import sparse

    X, y = _sparse_problem(*shape)
    sparse.save_npz(path, X)
    np.save(path + ".y.npy", y)


def _sparse_child(variant, path, rounds, queue):
    import resource

    from scipy import sparse

    X = sparse.load_npz(path)
    y = np.load(path + ".y.npy")
    if variant.startswith("prunus dense"):
        X = X.toarray()
    if variant == "sklearn AdaBoost (CSR)":
        est = AdaBoostClassifier(DecisionTreeClassifier(max_depth=3), n_estimators=rounds, random_state=0)
    else:
        search = "exhaustive" if "exhaustive" in variant else ("quick" if "quick" in variant else "adaptive")
        est = ExactBoostClassifier(n_estimators=rounds, max_depth=3, split_search=search)
        ExactBoostClassifier(n_estimators=2, max_depth=3, split_search=search).fit(X[:200], y[:200])  # compile
    base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # data loaded, kernels compiled
    t0 = time.perf_counter()
    est.fit(X, y)
    wall = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assessed = float(est.assessments_.sum()) if hasattr(est, "assessments_") else float("nan")
    queue.put((wall, (peak - base) / 1024.0, peak / 1024.0, est.score(X, y), assessed))


def sparse_benchmark(shape, rounds, dense=False):
    """Fit time and memory on a sparse binary problem: CSR vs dense input vs scikit-learn."""
    import multiprocessing
    import os
    import shutil
    import tempfile

    ctx = multiprocessing.get_context("spawn")
    n, k, density = int(shape[0]), int(shape[1]), float(shape[2])
    # Generated once, in a process of its own, and loaded by every fit's process: the peak memory of a
    # fit is then its own (generating the matrix needs more memory than fitting on it, and a process
    # started from a large one inherits its peak).
    tmp = tempfile.mkdtemp()
    path = os.path.join(tmp, "X.npz")
    writer = ctx.Process(target=_sparse_write, args=((n, k, density), path))
    writer.start()
    writer.join()
    print(f"\n== sparse binary problem {n} x {k} at density {density}, depth 3, {rounds} rounds ==")
    print(
        f"{'method':34s} {'wall s':>8s} {'extra peak MiB':>15s} {'peak MiB':>9s} {'train acc':>10s} {'assessed':>10s}"
    )
    variants = ["prunus adaptive (CSR)", "prunus exhaustive (CSR)", "prunus quick (CSR)"]
    variants += ["prunus dense adaptive", "prunus dense exhaustive"] if dense else []
    variants += ["sklearn AdaBoost (CSR)"]
    for variant in variants:
        queue = ctx.Queue()
        proc = ctx.Process(target=_sparse_child, args=(variant, path, rounds, queue))
        proc.start()
        wall, extra, peak, acc, assessed = queue.get()
        proc.join()
        print(f"{variant:34s} {wall:8.2f} {extra:15.1f} {peak:9.1f} {acc:10.4f} {assessed:10.3e}", flush=True)
    print(f"load average {os.getloadavg()[0]:.2f} at end")
    shutil.rmtree(tmp, ignore_errors=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--assess-rounds", type=int, default=500, help="rounds of the assessment tables (paper: 500)")
    parser.add_argument(
        "--frontier",
        action="store_true",
        help="only the per-dataset frontier of the adaptive settings (depths 1 and 3)",
    )
    parser.add_argument("--sparse", action="store_true", help="only the sparse benchmark")
    parser.add_argument(
        "--table",
        action="store_true",
        help="only the per-dataset table of assessments and wall times (depth 3; --rounds, --repeat)",
    )
    parser.add_argument("--depths", type=int, nargs="+", default=(3, 1), help="depths of --frontier")
    parser.add_argument("--settings", nargs="+", default=None, help="the --frontier settings to run (default: all)")
    parser.add_argument(
        "--datasets", nargs="+", default=FRONTIER_DATASETS, help="datasets of --frontier and --table (default: all)"
    )
    parser.add_argument(
        "--sparse-shape", nargs=3, type=float, default=(50_000, 10_000, 0.01), metavar=("ROWS", "COLS", "DENSITY")
    )
    parser.add_argument("--sparse-rounds", type=int, default=10)
    parser.add_argument("--sparse-dense", action="store_true", help="also fit the densified matrix")
    parser.add_argument("--mnist", action="store_true", help="only the synthetic MNIST-scale comparison")
    parser.add_argument("--mnist-shape", nargs=2, type=int, default=(60_000, 784), metavar=("ROWS", "FEATURES"))
    parser.add_argument("--mnist-depth", type=int, default=4)
    parser.add_argument("--track-bounds", action="store_true", help="--mnist: also the default with track_bounds")
    args = parser.parse_args(argv)
    if args.mnist:
        mnist_scale(args.mnist_shape, args.mnist_depth, args.rounds, args.repeat, args.track_bounds)
        return
    if args.table:
        table(args.rounds, 3, args.repeat, datasets=args.datasets)
        return
    if args.frontier:
        chosen = FRONTIER if args.settings is None else {k: FRONTIER[k] for k in args.settings}
        for depth in args.depths:
            frontier(args.rounds, depth, args.repeat, datasets=args.datasets, settings=chosen)
        return
    if args.sparse:
        sparse_benchmark(args.sparse_shape, args.sparse_rounds, args.sparse_dense)
        return
    wall_time(args.rounds, args.repeat)
    wall_time_other(args.rounds, args.repeat)
    assessments(args.assess_rounds, depth=3)
    assessments(args.assess_rounds, depth=1)


if __name__ == "__main__":
    main()
