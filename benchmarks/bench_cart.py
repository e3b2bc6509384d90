"""CART benchmarks: prunus against scikit-learn and R's rpart, in one process.

0. Growth of T_max: ``grow_cart`` vs ``DecisionTreeClassifier().fit`` on
   letter, satimage, spam and ``make_classification`` (150k and 1M rows x 20
   features); numba's one-time compilation is measured apart.
   CV selection: ``CARTClassifier(selection="cv", cv=10)`` vs rpart with
   ``rpart.control(cp=0, minsplit=2, minbucket=1, xval=10, maxcompete=0,
   maxsurrogate=0)`` and its min-xerror subtree (timed inside R, on the same
   training rows); test error of both on the same held-out 20%. rpart is run
   by ``Rscript`` when present (``apt-get install r-base-core r-cran-rpart``).
   Peak memory of the 1M-row CV fit against the size of X.
1. Path speed: ``cost_complexity_path`` vs scikit-learn's pruning-path
   computation on the same grown tree (~100k nodes: 300k noisy rows, 10
   features).
2. Selection: ``CARTClassifier(selection="cv", cv=5)`` vs
   ``GridSearchCV(DecisionTreeClassifier(), ccp_alpha over its path, cv=5)`` on
   letter (18000 training rows, 2000 test rows; needs ``prunus data fetch letter``).

3. Regression: ``CARTRegressor(selection="cv", cv=10)`` vs rpart
   ``method="anova"`` (the control above, min-xerror subtree, timed inside R)
   and ``GridSearchCV(DecisionTreeRegressor(), 30 ccp_alpha of its path,
   cv=10)``: test MSE on the same held-out 25% and fit time, on scikit-learn's
   diabetes, ``make_friedman1`` (2k / 20k / 200k rows; scikit-learn up to 20k)
   and the example data shipped inside R's rpart package (``car.test.frame``
   and ``cu.summary``, target Mileage, read from its lazy-load database;
   factors as their integer codes for both libraries).

   Peak resident memory of each fit beyond what was resident before it, over
   X's bytes; ``--large 200000 --large 1000000`` adds ``make_friedman1`` with
   20 features at those sizes (time and memory, no other library).

Run: ``python benchmarks/bench_cart.py [--quick] [--only grow|cv|memory|path|selection|regression] [--n-jobs N]``
"""

import argparse
import os
import shutil
import subprocess
import sys
import time
from contextlib import nullcontext

import numpy as np
from sklearn.model_selection import GridSearchCV
from sklearn.tree import DecisionTreeClassifier
from sklearn.tree._tree import ccp_pruning_path

from prunus.datasets import is_available, load
from prunus.experiments._rpart import RPART_CLASS_SCRIPT, rpart_anova_script, run_rpart
from prunus.pruning import CARTClassifier, cost_complexity_path
from prunus.tree import Tree, grow_cart


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
    print(
        f"[path] prunus cost_complexity_path: {t_prunus * 1e3:.1f} ms (K={len(path)}); "
        f"node_counts of {n_rows} rows: {t_counts * 1e3:.1f} ms"
    )
    print(f"[path] scikit-learn ccp_pruning_path:  {t_sklearn * 1e3:.1f} ms (K={len(sk_path['ccp_alphas'])})")
    print(
        f"[path] speed-up (path only): {t_sklearn / t_prunus:.0f}x; "
        f"including node_counts: {t_sklearn / (t_prunus + t_counts):.0f}x"
    )


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
    print(
        f"[cv] prunus CARTClassifier(selection='cv'): {t_prunus:.2f} s, {len(est.path_)} alphas evaluated, "
        f"{est.pruned_tree_.n_leaves} leaves, test error {err_prunus:.4f}"
    )
    print(
        f"[cv] scikit-learn path + GridSearchCV over {len(grid)} ccp_alphas: {t_sklearn:.2f} s, "
        f"{search.best_estimator_.get_n_leaves()} leaves, test error {err_sklearn:.4f}"
    )
    print(f"[cv] speed-up: {t_sklearn / t_prunus:.1f}x")


GROW_DATASETS = ("letter", "satimage", "spam")
CV_DATASETS = ("letter", "satimage", "spam", "digits", "breast_cancer", "wine", "iris")


def synthetic(n_rows):
    from sklearn.datasets import make_classification

    return make_classification(n_rows, 20, n_informative=10, random_state=0)


def grow_problems(quick):
    for name in GROW_DATASETS:
        if is_available(name):
            data = load(name)
            yield name, data.X, data.y
        else:
            print(f"[grow] {name} not fetched: run `prunus data fetch {name}`")
    for n_rows in (150_000,) if quick else (150_000, 1_000_000):
        yield f"make_classification {n_rows // 1000}k x 20", *synthetic(n_rows)


def bench_grow(quick, repeat):
    start = time.perf_counter()
    grow_cart(np.array([[0.0], [1.0]]), np.array([0, 1]))
    print(f"[grow] numba compilation (first call of this process): {time.perf_counter() - start:.1f} s")
    print(f"[grow] {'data':<28} {'prunus s':>9} {'sklearn s':>10} {'ratio':>6} {'leaves':>14}")
    for name, X, y in grow_problems(quick):
        reps = 1 if X.shape[0] >= 1_000_000 else repeat
        t_ours, tree = best_of(lambda: grow_cart(X, y), reps)
        t_sk, sk = best_of(lambda: DecisionTreeClassifier().fit(X, y), reps)
        print(
            f"[grow] {name:<28} {t_ours:9.3f} {t_sk:10.3f} {t_sk / t_ours:5.1f}x "
            f"{tree.n_leaves:>6}/{sk.get_n_leaves():<6}"
        )


_RPART_SCRIPT = RPART_CLASS_SCRIPT
_RPART_ANOVA_SCRIPT = rpart_anova_script(10)


def _with_cpu_seconds(script):
    """``script`` printing R's CPU seconds (user + sys) right after its wall seconds."""
    edits = (
        ("elapsed <- system.time(", "times <- system.time("),
        ('})[["elapsed"]]', '}); elapsed <- times[["elapsed"]]'),
        ("cat(elapsed, ", 'cat(elapsed, times[["user.self"]] + times[["sys.self"]], '),
    )
    for old, new in edits:
        if old not in script:
            raise RuntimeError(f"the rpart script changed: {old!r} not found")
        script = script.replace(old, new)
    return script


#: The regression fit, printing wall seconds, CPU seconds, test MSE, leaves.
_RPART_ANOVA_CPU_SCRIPT = _with_cpu_seconds(_RPART_ANOVA_SCRIPT)


def cv_problems(quick):
    for name in CV_DATASETS:
        if is_available(name):
            data = load(name)
            yield name, data.X, data.y
        else:
            print(f"[cv] {name} not fetched: run `prunus data fetch {name}`")
    yield "make_classification 150k x 20", *synthetic(150_000)


def bench_cv_vs_rpart(quick, repeat, n_jobs):
    from sklearn.model_selection import train_test_split

    has_r = shutil.which("Rscript") is not None
    if not has_r:
        print("[cv] Rscript not found: rpart columns left out (apt-get install r-base-core r-cran-rpart)")
    CARTClassifier(selection="cv", cv=2).fit(np.arange(8.0).reshape(4, 2), [0, 1, 0, 1])  # compile
    print(
        f"[cv] CARTClassifier(selection='cv', cv=10, n_jobs={n_jobs}) vs rpart xval=10; 80/20 split; best of {repeat}"
    )
    print(f"[cv] {'data':<30} {'prunus s':>9} {'rpart s':>8} {'ratio':>6} {'err 0-SE':>16} {'err 1-SE':>16}")
    for name, X, y in cv_problems(quick):
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.2, random_state=0, stratify=y)
        reps = 1 if Xtr.shape[0] > 50_000 else repeat
        t_ours, est = best_of(
            lambda: CARTClassifier(selection="cv", cv=10, random_state=0, n_jobs=n_jobs).fit(Xtr, ytr), reps
        )
        err0 = np.mean(est.predict(Xte) != yte)
        one_se = CARTClassifier(selection="cv-1se", cv=10, random_state=0, n_jobs=n_jobs).fit(Xtr, ytr)
        err1 = np.mean(one_se.predict(Xte) != yte)
        if has_r:
            runs = [run_rpart(Xtr, ytr, Xte, yte) for _ in range(reps)]
            t_r = min(r[0] for r in runs)
            r0, r1 = runs[0][1], runs[0][2]
            print(
                f"[cv] {name:<30} {t_ours:9.2f} {t_r:8.2f} {t_r / t_ours:5.1f}x "
                f"{err0:7.4f}/{r0:<7.4f}  {err1:7.4f}/{r1:<7.4f}"
            )
        else:
            print(f"[cv] {name:<30} {t_ours:9.2f} {'-':>8} {'-':>6} {err0:7.4f}/{'-':<7}  {err1:7.4f}/{'-':<7}")


def rpart_frames():
    """rpart's example data (car.test.frame, cu.summary) from the lazy-load
    database of the installed R package, target Mileage; factors as codes."""
    from prunus.datasets._text import read_r_lazyload

    out = subprocess.run(
        ["Rscript", "-e", "cat(system.file('data', package = 'rpart'))"], capture_output=True, text=True
    )
    folder = out.stdout.strip()
    if not folder:
        return
    frames = read_r_lazyload(os.path.join(folder, "Rdata.rdb"), os.path.join(folder, "Rdata.rdx"))
    for name in ("car.test.frame", "cu.summary"):
        frame = frames[name]
        y = frame["Mileage"].astype("float64").to_numpy()
        columns = []
        for col in frame.columns.drop("Mileage"):
            v = frame[col]
            columns.append(v.cat.codes.replace(-1, np.nan) if v.dtype == "category" else v.astype("float64"))
        X = np.column_stack([np.asarray(c, dtype=np.float64) for c in columns])
        keep = np.isfinite(y)
        yield f"rpart {name} (Mileage)", X[keep], y[keep]


def regression_problems(quick):
    from sklearn.datasets import load_diabetes, make_friedman1

    yield "diabetes", *load_diabetes(return_X_y=True)
    if shutil.which("Rscript"):
        yield from rpart_frames()
    # 2,667 rows: 2,000 training rows, the smallest size of the speed target.
    for n in (2_000, 2_667, 20_000) if quick else (2_000, 2_667, 20_000, 200_000):
        yield f"friedman1 {n / 1000:.3g}k x 10", *make_friedman1(n, noise=1.0, random_state=0)


class PeakMemory:
    """Peak resident memory of this process while the block runs, beyond
    what was resident when it started (sampled every 2 ms by a thread; the
    numbers are those of the kernel, so numpy's and numba's allocations both
    count)."""

    def __enter__(self):
        import threading

        import psutil

        self._proc = psutil.Process()
        self.base = self._proc.memory_info().rss
        self.peak = self.base
        self._stop = threading.Event()

        def sample():
            while not self._stop.is_set():
                self.peak = max(self.peak, self._proc.memory_info().rss)
                self._stop.wait(0.002)

        self._thread = threading.Thread(target=sample, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._proc.memory_info().rss)

    @property
    def extra(self):
        return self.peak - self.base


def bench_regression(quick, repeat, sklearn=True):
    from sklearn.model_selection import train_test_split
    from sklearn.tree import DecisionTreeRegressor

    from prunus.pruning import CARTRegressor

    has_r = shutil.which("Rscript") is not None
    if not has_r:
        print("[reg] Rscript not found: rpart columns left out (apt-get install r-base-core r-cran-rpart)")
    CARTRegressor(selection="cv", cv=2).fit(np.arange(8.0).reshape(4, 2), np.arange(4.0))  # compile
    print("[reg] CARTRegressor(selection='cv', cv=10), default n_jobs and n_jobs=1, vs rpart anova xval=10")
    print(f"[reg] and sklearn GridSearchCV(ccp_alpha x 30, cv=10); 75/25 split; best of {repeat}, interleaved")
    print("[reg] 'mem/X': peak resident memory of the default fit beyond what was resident before it, over X's bytes")
    print("[reg] 'cpu': rpart's CPU seconds over prunus's with n_jobs=1 (steadier than wall time on a loaded machine)")
    print(
        f"[reg] {'data':<30} {'n':>6} {'prunus s':>8} {'1 job s':>8} {'rpart s':>8} {'ratio':>6} {'1 job':>6} "
        f"{'cpu':>6} {'mem/X':>6} {'sklearn s':>9}  test MSE prunus / rpart / sklearn"
    )
    for name, X, y in regression_problems(quick):
        Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0)
        reps = 1 if Xtr.shape[0] > 50_000 else repeat
        times, times_1, cpu_1, r_runs, memory = [], [], [], [], []
        for _ in range(reps):  # interleaved, so that every tool sees the same load of the shared machine
            # The memory sampler's thread slows a fit of a few milliseconds
            # measurably: where there are several runs, memory is measured on
            # fits of their own, untimed; a single long run is timed under it.
            if reps > 1:
                with PeakMemory() as peak:
                    CARTRegressor(selection="cv", cv=10, random_state=0).fit(Xtr, ytr)
                memory.append(peak.extra / Xtr.nbytes)
            with PeakMemory() if reps == 1 else nullcontext() as peak:
                start = time.perf_counter()
                est = CARTRegressor(selection="cv", cv=10, random_state=0).fit(Xtr, ytr)
                times.append(time.perf_counter() - start)
            if reps == 1:
                memory.append(peak.extra / Xtr.nbytes)
            start, start_cpu = time.perf_counter(), time.process_time()
            est = CARTRegressor(selection="cv", cv=10, random_state=0, n_jobs=1).fit(Xtr, ytr)
            times_1.append(time.perf_counter() - start)
            cpu_1.append(time.process_time() - start_cpu)
            if has_r and Xtr.shape[0] <= 50_000:
                r_runs.append(run_rpart(Xtr, ytr, Xte, yte, _RPART_ANOVA_CPU_SCRIPT))
        mse = np.mean((est.predict(Xte) - yte) ** 2)
        t_r, c_r, mse_r = (
            (min(r[0] for r in r_runs), min(r[1] for r in r_runs), r_runs[0][2]) if r_runs else (np.nan,) * 3
        )
        t_sk, mse_sk = np.nan, np.nan
        if sklearn and Xtr.shape[0] <= 20_000:
            alphas = DecisionTreeRegressor(random_state=0).cost_complexity_pruning_path(Xtr, ytr).ccp_alphas
            grid = np.unique(np.quantile(alphas, np.linspace(0, 1, 30)))
            start = time.perf_counter()
            search = GridSearchCV(
                DecisionTreeRegressor(random_state=0), {"ccp_alpha": grid}, cv=10, scoring="neg_mean_squared_error"
            ).fit(Xtr, ytr)
            t_sk = time.perf_counter() - start
            mse_sk = np.mean((search.predict(Xte) - yte) ** 2)
        t, t1 = min(times), min(times_1)
        print(
            f"[reg] {name:<30} {Xtr.shape[0]:>6} {t:8.3f} {t1:8.3f} {t_r:8.3f} {t_r / t:5.1f}x {t_r / t1:5.1f}x "
            f"{c_r / min(cpu_1):5.1f}x {min(memory):6.2f} {t_sk:9.2f}  {mse:.4g} / {mse_r:.4g} / {mse_sk:.4g}"
        )


def bench_regression_large(sizes, n_jobs=None):
    """``CARTRegressor(selection="cv", cv=10)`` on ``make_friedman1`` with 20
    features (10 of noise) and all rows: fit time and peak memory beyond X,
    each size in a child process (so that one fit's memory is not another's)."""
    for n_rows in sizes:
        code = f"""
import sys, time
sys.path.insert(0, {os.path.dirname(os.path.abspath(__file__))!r})
from bench_cart import PeakMemory
from sklearn.datasets import make_friedman1
from prunus import CARTRegressor
X, y = make_friedman1({n_rows}, n_features=20, noise=1.0, random_state=0)
# Load the kernels first: the growth of a few dozen rows and, from about 22,000
# rows, the one into node arrays on memory maps (their code is not the fit's memory).
CARTRegressor(selection="cv", cv=2, n_jobs={n_jobs}).fit(X[:50], y[:50])
CARTRegressor(selection="cv", cv=2, n_jobs={n_jobs}).fit(X[:50_000], y[:50_000])
with PeakMemory() as peak:
    start = time.perf_counter()
    est = CARTRegressor(selection="cv", cv=10, random_state=0, n_jobs={n_jobs}).fit(X, y)
    elapsed = time.perf_counter() - start
print(elapsed, peak.extra / X.nbytes, est.pruned_tree_.n_leaves)
"""
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
        elapsed, extra, leaves = out.stdout.split()
        print(
            f"[reg-large] friedman1 {n_rows:,} x 20, cv=10, n_jobs={n_jobs}: {float(elapsed):.1f} s, "
            f"peak memory beyond X {float(extra):.2f} x X, {leaves} leaves selected"
        )


def bench_memory(n_rows):
    """Peak resident memory of a CV fit beyond X, in a child process (so the
    high-water mark is this fit's alone)."""
    code = f"""
import resource, numpy as np
from prunus import CARTClassifier
rng = np.random.default_rng(0)
X = np.empty(({n_rows}, 20))
for start in range(0, {n_rows}, 100_000):
    X[start:start + 100_000] = rng.standard_normal((min(100_000, {n_rows} - start), 20))
y = (X[:, :5].sum(axis=1) + rng.standard_normal({n_rows}) > 0).astype(int)
CARTClassifier(selection="cv", cv=2).fit(X[:50], y[:50])
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")  # reset the high-water mark: only the fit counts from here
base = int(open("/proc/self/statm").read().split()[1]) * resource.getpagesize()
CARTClassifier(selection="cv", cv=10, random_state=0).fit(X, y)
peak = [int(l.split()[1]) * 1024 for l in open("/proc/self/status") if l.startswith("VmHWM")][0]
print(X.nbytes, peak - base)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    nbytes, extra = (int(v) for v in out.stdout.split())
    print(
        f"[memory] CV fit on {n_rows} x 20: X is {nbytes / 2**20:.0f} MiB, peak memory of the fit beyond "
        f"what was resident before it {extra / 2**20:.0f} MiB = {extra / nbytes:.2f} x X"
    )


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller path benchmark (60k rows)")
    parser.add_argument("--n-jobs", type=int, default=1)
    parser.add_argument(
        "--only",
        choices=("grow", "cv", "memory", "path", "selection", "regression"),
        action="append",
        help="run only these parts (repeatable)",
    )
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    parser.add_argument("--no-sklearn", action="store_true", help="regression: leave out scikit-learn's grid search")
    parser.add_argument(
        "--large",
        type=int,
        action="append",
        help="regression: also fit make_friedman1 with this many rows x 20 features (repeatable)",
    )
    args = parser.parse_args()
    parts = args.only or ("grow", "cv", "memory", "path", "selection", "regression")
    if "grow" in parts:
        bench_grow(args.quick, args.repeat)
    if "cv" in parts:
        bench_cv_vs_rpart(args.quick, args.repeat, args.n_jobs)
    if "memory" in parts:
        bench_memory(150_000 if args.quick else 1_000_000)
    if "path" in parts:
        bench_path(60_000 if args.quick else 300_000, repeat=3)
    if "selection" in parts:
        bench_selection(n_alphas=52, n_jobs=args.n_jobs)
    if "regression" in parts:
        bench_regression(args.quick, args.repeat, sklearn=not args.no_sklearn)
        if args.large:
            bench_regression_large(args.large)


if __name__ == "__main__":
    main()
