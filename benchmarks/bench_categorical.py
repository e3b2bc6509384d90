"""Categorical predictors: prunus's subset splits against R's rpart (factors as factors).

Tables
------
* rpart's own example data, read from the lazy-load database of R's rpart
  package (``/usr/lib/R/library/rpart/data/Rdata.rdb``; Debian
  ``r-cran-rpart``): ``cu.summary`` (Reliability ~ Price + Country + Mileage
  + Type, 5 classes), ``car.test.frame`` (Type ~ ., 6 classes), ``kyphosis``
  (numeric features only), ``stagec`` (pgstat ~ age + eet + g2 + grade +
  gleason + ploidy). Small: mean test error over ``--draws`` random 75/25
  splits.
* synthetic tables: five factors and three numeric features; the class is an
  interaction of level groups of two factors and a numeric threshold, with
  10% label noise; two classes with factors of 2, 5, 10, 20 and 50 levels,
  three classes with 2, 4, 6, 10 and 12 levels (rpart enumerates every
  partition of a factor for more than two classes: 2^49 for 50 levels, which
  it does not finish); 2,000 and 20,000 training rows, 10,000 test rows.

Fits
----
* prunus: ``CARTClassifier(selection="cv", cv=10)`` on a pandas DataFrame
  whose factors are ``category`` columns (default settings), and the same on
  the level codes read as ordered numbers (``categorical_features=None``),
  which is what a table of integer-coded factors got before;
* rpart with its defaults (``xval = 10``, ``cp = 0.01``, surrogates on) and
  the min-xerror subtree, and rpart grown fully like prunus (``cp = 0,
  minsplit = 2, minbucket = 1``, no competitors or surrogates), each timed
  inside R on the same rows.

With ``--missing P`` every cell of the synthetic tables (training and test
rows) is missing with probability ``P``: prunus fits with its default
``missing="auto"``, rpart with its surrogate splits.

Times are the best of ``--repeat`` fits (prunus's kernels loaded first). The
machine may be shared: compare the ratios, measured in the same run; ``--cpu``
times CPU seconds instead of wall-clock ones (prunus's whole process, threads
included; rpart's user + system time), which other work on the machine
disturbs far less (but which cannot show what threads gain).

Few-level features (``--few-levels``)
------------------------------------
Tables whose features have few distinct values, where prunus searches splits
from per-node tables of class weights per value instead of the presorted
order (``prunus.tree.cart.MAX_TABLE_LEVELS``): 60 binary features (2
classes); 30 integer features of 2-16 levels (3 classes); 24 features of 2-8
levels mixed with 6 numeric ones (2 classes); and the synthetic factor tables
above (2 and 3 classes), at 2,000, 20,000 and 200,000 training rows (10,000
test rows). prunus is timed with the tables switched off (every feature
presorted: "before") and on, with its default ``n_jobs`` and with
``n_jobs=1``, in one process; rpart grown fully is left out above
``--full-max-rows``.

Run: ``python benchmarks/bench_categorical.py [--quick] [--draws 20] [--repeat 3] [--missing 0.1]``
or ``python benchmarks/bench_categorical.py --few-levels [--sizes 2000 20000] [--repeat 3]``
"""

import argparse
import os
import shutil
import subprocess
import tempfile
import time

import numpy as np
import pandas as pd

import prunus.tree.cart as cart_module
from prunus import CARTClassifier
from prunus.datasets._text import read_r_lazyload

RPART_DATA = "/usr/lib/R/library/rpart/data/Rdata"

_RPART_SCRIPT = r"""
suppressMessages(library(rpart))
args <- commandArgs(TRUE)
repeat_n <- as.integer(args[3])
train <- read.csv(args[1], stringsAsFactors = TRUE, na.strings = "NA")
test <- read.csv(args[2], stringsAsFactors = TRUE, na.strings = "NA")
for (name in setdiff(names(train), "y")) if (is.factor(train[[name]]))
  test[[name]] <- factor(as.character(test[[name]]), levels = levels(train[[name]]))
fit_min <- function(control) {
  fit <- rpart(y ~ ., data = train, method = "class", control = control)
  cp <- fit$cptable
  prune(fit, cp = cp[which.min(cp[, "xerror"]), "CP"])
}
controls <- list(default = rpart.control(xval = 10),
                 full = rpart.control(cp = 0, minsplit = 2, minbucket = 1, xval = 10,
                                      maxcompete = 0, maxsurrogate = 0))
wanted <- if (length(args) >= 4) strsplit(args[4], ",")[[1]] else names(controls)
first_seed <- if (length(args) >= 5) as.integer(args[5]) else 1L
for (name in intersect(names(controls), wanted)) {
  best <- Inf
  best_cpu <- Inf
  for (r in seq_len(repeat_n)) {
    set.seed(first_seed + r - 1L)
    took <- system.time(pruned <- fit_min(controls[[name]]))
    best <- min(best, took[["elapsed"]])
    best_cpu <- min(best_cpu, took[["user.self"]] + took[["sys.self"]])
  }
  pred <- as.character(predict(pruned, test, type = "class"))
  err <- mean(is.na(pred) | pred != as.character(test$y))
  cat(name, best, err, best_cpu, "\n")
}
"""


def rpart_tables():
    """(name, DataFrame of features, labels) of rpart's example data with a class target."""
    data = read_r_lazyload(RPART_DATA + ".rdb", RPART_DATA + ".rdx")
    cu = data["cu.summary"].dropna(subset=["Reliability"])
    yield "cu.summary", cu[["Price", "Country", "Mileage", "Type"]], cu["Reliability"].astype(str).to_numpy()
    car = data["car.test.frame"]
    yield "car.test.frame", car.drop(columns=["Type"]), car["Type"].astype(str).to_numpy()
    ky = data["kyphosis"]
    yield "kyphosis", ky.drop(columns=["Kyphosis"]), ky["Kyphosis"].astype(str).to_numpy()
    st = data["stagec"]
    yield (
        "stagec",
        st[["age", "eet", "g2", "grade", "gleason", "ploidy"]],
        st["pgstat"].astype(int).astype(str).to_numpy(),
    )


def synthetic(n, n_classes, seed, levels=(2, 5, 10, 20, 50)):
    """Factors of 2-50 levels, numeric features, an interaction of level groups and a threshold."""
    rng = np.random.default_rng(seed)
    codes = [rng.integers(0, L, n) for L in levels]
    num = rng.normal(size=(n, 3))
    group_a = rng.permutation(levels[3]) < levels[3] // 2  # a random half of factor f3's levels
    group_b = rng.permutation(levels[4]) % 3  # three random groups of factor f4's levels
    signal = group_a[codes[3]].astype(int) + (group_b[codes[4]] == 1) * (num[:, 0] > 0.3)
    y = (signal + (codes[1] >= 3)) % n_classes
    flip = rng.random(n) < 0.1
    y[flip] = rng.integers(0, n_classes, flip.sum())
    frame = {}
    for j, (L, c) in enumerate(zip(levels, codes)):
        frame[f"f{j}"] = pd.Categorical.from_codes(c, [f"l{k}" for k in range(L)])
    for j in range(3):
        frame[f"x{j}"] = num[:, j]
    return pd.DataFrame(frame), np.array([f"c{k}" for k in y])


def missing_at_random(df, rate, rng):
    """A copy of the table with every cell missing with probability ``rate``."""
    out = df.copy()
    for name in out.columns:
        column = out[name].copy()
        column[rng.random(len(out)) < rate] = np.nan
        out[name] = column
    return out


def as_codes(df):
    """The table with every category column replaced by its level codes (NaN missing)."""
    out = df.copy()
    for name in out.columns:
        if isinstance(out[name].dtype, pd.CategoricalDtype):
            out[name] = out[name].cat.codes.astype(float).replace(-1.0, np.nan)
    return out.astype(float)


#: The clock of every timing: wall-clock seconds, or with ``--cpu`` the CPU
#: seconds of the process (every thread's; rpart's user + system time), which
#: a machine shared with other work disturbs far less.
CLOCK = {"cpu": False}


def best_of(fn, repeat):
    clock = time.process_time if CLOCK["cpu"] else time.perf_counter
    best, out = np.inf, None
    for _ in range(repeat):
        start = clock()
        out = fn()
        best = min(best, clock() - start)
    return best, out


def run_rpart(train, ytr, test, yte, repeat, controls=("default", "full"), first_seed=1):
    """{control: (seconds, test error)} of rpart fitted ``repeat`` times with
    the R seeds ``first_seed``, ``first_seed + 1``, ... (the seed draws the
    10 cross-validation groups); the error is that of the last fit."""
    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for part, (X, y) in (("train", (train, ytr)), ("test", (test, yte))):
            path = os.path.join(tmp, f"{part}.csv")
            X.assign(y=y).to_csv(path, index=False, na_rep="NA")
            paths.append(path)
        script = os.path.join(tmp, "fit.R")
        with open(script, "w") as fh:
            fh.write(_RPART_SCRIPT)
        out = subprocess.run(
            ["Rscript", script, *paths, str(repeat), ",".join(controls), str(first_seed)],
            capture_output=True,
            text=True,
            check=True,
        )
    result = {}
    for line in out.stdout.strip().splitlines():
        name, seconds, err, cpu = line.split()
        result[name] = (float(cpu if CLOCK["cpu"] else seconds), float(err))
    return result


def evaluate(Xtr, ytr, Xte, yte, repeat, has_r, seed):
    est = CARTClassifier(selection="cv", cv=10, random_state=seed)
    t_cat, fitted = best_of(lambda: est.fit(Xtr, ytr), repeat)
    err_cat = float(np.mean(fitted.predict(Xte) != yte))
    ordinal = CARTClassifier(selection="cv", cv=10, random_state=seed, categorical_features=None)
    ordinal.fit(as_codes(Xtr), ytr)
    err_ord = float(np.mean(ordinal.predict(as_codes(Xte)) != yte))
    out = dict(t_cat=t_cat, err_cat=err_cat, err_ord=err_ord)
    if has_r:
        r = run_rpart(Xtr, ytr, Xte, yte, repeat)
        out.update(t_rd=r["default"][0], err_rd=r["default"][1], t_rf=r["full"][0], err_rf=r["full"][1])
    return out


def few_level_tables(n, seed):
    """(name, DataFrame, labels) of tables whose features have few distinct values."""
    rng = np.random.default_rng(seed)

    def labels(score, n_classes):
        cuts = np.quantile(score, np.linspace(0, 1, n_classes + 1)[1:-1])
        y = np.digitize(score + 0.3 * rng.normal(size=n), cuts)
        flip = rng.random(n) < 0.05
        y[flip] = rng.integers(0, n_classes, flip.sum())
        return np.array([f"c{k}" for k in y])

    X = rng.integers(0, 2, (n, 60)).astype(float)
    score = X[:, 0] + X[:, 1] * X[:, 2] - X[:, 3] + 0.5 * X[:, 4] * (1 - X[:, 5]) + 0.2 * X[:, 6:12].sum(axis=1)
    yield "binary x60", pd.DataFrame(X, columns=[f"b{j}" for j in range(60)]), labels(score, 2)
    sizes = 2 + np.arange(30) % 15
    X = np.column_stack([rng.integers(0, s, n) for s in sizes]).astype(float)
    score = np.sin(X[:, 13]) + (X[:, 7] > 4) + 0.3 * X[:, 1] - 0.2 * X[:, 20] + 0.1 * X[:, 14]
    yield "levels 2-16 x30", pd.DataFrame(X, columns=[f"v{j}" for j in range(30)]), labels(score, 3)
    few = np.column_stack([rng.integers(0, 2 + j % 7, n) for j in range(24)]).astype(float)
    num = rng.normal(size=(n, 6))
    score = few[:, 3] * num[:, 0] + (few[:, 5] > 2) - num[:, 1] + 0.3 * few[:, 8]
    frame = pd.DataFrame(
        np.column_stack([few, num]), columns=[f"v{j}" for j in range(24)] + [f"x{j}" for j in range(6)]
    )
    yield "mixed 24+6 numeric", frame, labels(score, 2)
    X, y = synthetic(n, 2, seed)
    yield "factors K=2", X, y
    X, y = synthetic(n, 3, seed, levels=(2, 4, 6, 10, 12))
    yield "factors K=3", X, y


def bench_few_levels(sizes, repeat, has_r, full_max_rows):
    """prunus with per-node tables against itself without them and against rpart."""
    warm, wy = synthetic(300, 3, 0)
    CARTClassifier(selection="cv", cv=3).fit(warm, wy)
    default_levels = cart_module.MAX_TABLE_LEVELS
    header = (
        f"{'table':<20}{'rows':>7} | {'err prunus':>10} {'rpart':>6} {'full':>6} | {'before':>7} {'after':>7} "
        f"{'n_jobs=1':>8} {'rpart':>7} {'full':>7} | {'gain':>5} {'rpart/':>6} {'/nj1':>5} {'full/':>6}"
    )
    clock = "CPU seconds" if CLOCK["cpu"] else "seconds"
    print(f"MAX_TABLE_LEVELS={default_levels}; {clock} are the best of {repeat} (1 above 50,000 rows)")
    print(header)
    print("-" * len(header))
    for n_train in sizes:
        reps = 1 if n_train > 50_000 else repeat
        for name, X, y in few_level_tables(n_train + 10_000, seed=n_train):
            Xtr, Xte = X.iloc[:n_train].reset_index(drop=True), X.iloc[n_train:].reset_index(drop=True)
            ytr, yte = y[:n_train], y[n_train:]
            times = {}
            for label, levels, n_jobs in (
                ("before", -1, None),
                ("after", default_levels, None),
                ("nj1", default_levels, 1),
            ):
                cart_module.MAX_TABLE_LEVELS = levels
                est = CARTClassifier(selection="cv", cv=10, random_state=0, n_jobs=n_jobs)
                times[label], fitted = best_of(lambda est=est: est.fit(Xtr, ytr), reps)
                if label == "before":
                    before_tree = fitted.pruned_tree_
                elif label == "after" and fitted.pruned_tree_ != before_tree:
                    print(f"  {name}: the tree with tables differs from the presorted one")
            cart_module.MAX_TABLE_LEVELS = default_levels
            err = float(np.mean(fitted.predict(Xte) != yte))
            line = f"{name:<20}{n_train:>7} | {err:>10.3f} "
            if has_r:
                controls = ("default", "full") if n_train <= full_max_rows else ("default",)
                r = run_rpart(Xtr, ytr, Xte, yte, reps, controls)
                t_rd, e_rd = r["default"]
                t_rf, e_rf = r.get("full", (np.nan, np.nan))
                line += f"{e_rd:>6.3f} {e_rf:>6.3f} | "
            else:
                t_rd = t_rf = np.nan
                line += f"{'-':>6} {'-':>6} | "
            line += f"{times['before']:>7.3f} {times['after']:>7.3f} {times['nj1']:>8.3f} {t_rd:>7.3f} {t_rf:>7.3f} | "
            line += f"{times['before'] / times['after']:>4.1f}x {t_rd / times['after']:>5.1f}x "
            line += f"{t_rd / times['nj1']:>4.1f}x {t_rf / times['after']:>5.1f}x"
            print(line, flush=True)


def bench_table_levels(repeat):
    """Growth of one full tree from tables against the presorted search, by number of distinct values."""
    from prunus.tree.cart import CARTGrower, GrowthParams

    rng = np.random.default_rng(0)
    n = 20_000
    params = GrowthParams("gini", None, 2, 1, 0.0, None, None)
    weight = np.ones(n)
    default_levels = cart_module.MAX_TABLE_LEVELS
    print(f"one full tree, {n} rows x 20 features of L values; ms are the best of {repeat}")
    for n_classes in (2, 5):
        for n_values in (8, 32, 64, 128, 255):
            X = rng.integers(0, n_values, (n, 20)).astype(float)
            y = ((X[:, 0] > n_values / 2) + (X[:, 1] % 3 == 0) + rng.integers(0, 2, n)) % n_classes
            times = []
            for levels in (-1, 254):
                cart_module.MAX_TABLE_LEVELS = levels
                grower = CARTGrower(X, y)
                grower.grow(params, weight)
                times.append(best_of(lambda grower=grower: grower.grow(params, weight), repeat)[0])
            print(
                f"K={n_classes} L={n_values:>3}: presorted {1000 * times[0]:7.1f} ms, "
                f"tables {1000 * times[1]:7.1f} ms, {times[0] / times[1]:.2f}x"
            )
    cart_module.MAX_TABLE_LEVELS = default_levels


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer draws, no 20,000-row tables")
    parser.add_argument("--draws", type=int, default=20, help="random 75/25 splits of each small table")
    parser.add_argument("--repeat", type=int, default=3, help="fits per timing (best of)")
    parser.add_argument("--few-levels", action="store_true", help="the tables of few-level features instead")
    parser.add_argument("--sizes", type=int, nargs="+", default=[2_000, 20_000, 200_000], help="with --few-levels")
    parser.add_argument("--full-max-rows", type=int, default=20_000, help="with --few-levels: rpart full up to this")
    parser.add_argument("--table-levels", action="store_true", help="tables against presorted by distinct values")
    parser.add_argument("--cpu", action="store_true", help="time CPU seconds (prunus's process, rpart's user + system)")
    parser.add_argument("--missing", type=float, default=0.0, help="cells of the synthetic tables missing (MCAR)")
    args = parser.parse_args()
    CLOCK["cpu"] = args.cpu
    draws = 4 if args.quick else args.draws
    has_r = shutil.which("Rscript") is not None and os.path.exists(RPART_DATA + ".rdb")
    if not has_r:
        print("Rscript or rpart's data not found (apt-get install r-base-core r-cran-rpart): rpart left out")
    if args.table_levels:
        bench_table_levels(args.repeat)
        return
    if args.few_levels:
        bench_few_levels(args.sizes, args.repeat, has_r, args.full_max_rows)
        return
    # Load the kernels first, so that no timing includes compilation.
    warm, wy = synthetic(300, 3, 0)
    CARTClassifier(selection="cv", cv=3).fit(warm, wy)
    CARTClassifier(selection="cv", cv=3, categorical_features=None).fit(as_codes(warm), wy)

    header = (
        f"{'table':<22}{'rows':>7} | {'err prunus':>10} {'ordinal':>8} {'rpart':>7} {'rpart full':>10} | "
        f"{'s prunus':>9} {'s rpart':>8} {'ratio':>6} {'s full':>7} {'ratio':>6}"
    )
    print(header)
    print("-" * len(header))

    def report(name, n_train, results):
        m = {k: np.mean([r[k] for r in results]) for k in results[0]}
        line = f"{name:<22}{n_train:>7} | {m['err_cat']:>10.3f} {m['err_ord']:>8.3f} "
        if has_r:
            line += f"{m['err_rd']:>7.3f} {m['err_rf']:>10.3f} | {m['t_cat']:>9.3f} {m['t_rd']:>8.3f} "
            line += f"{m['t_rd'] / m['t_cat']:>5.1f}x {m['t_rf']:>7.3f} {m['t_rf'] / m['t_cat']:>5.1f}x"
        else:
            line += f"{'':>7} {'':>10} | {m['t_cat']:>9.3f}"
        print(line, flush=True)

    if has_r:
        for name, X, y in rpart_tables():
            rng = np.random.default_rng(0)
            results = []
            for d in range(draws):
                perm = rng.permutation(len(y))
                n_test = len(y) // 4
                te, tr = perm[:n_test], perm[n_test:]
                Xtr, Xte = X.iloc[tr].reset_index(drop=True), X.iloc[te].reset_index(drop=True)
                results.append(evaluate(Xtr, y[tr], Xte, y[te], args.repeat, has_r, d))
            report(name, len(y) - len(y) // 4, results)
    sizes = (2_000,) if args.quick else (2_000, 20_000)
    for n_classes in (2, 3):
        # rpart enumerates the 2^(L-1) - 1 partitions of a factor for more than two classes:
        # with 50 levels it does not finish, so the 3-class tables keep to 12 levels.
        levels = (2, 5, 10, 20, 50) if n_classes == 2 else (2, 4, 6, 10, 12)
        for n_train in sizes:
            X, y = synthetic(n_train + 10_000, n_classes, seed=n_train + n_classes, levels=levels)
            if args.missing > 0:
                X = missing_at_random(X, args.missing, np.random.default_rng(n_train + n_classes))
            Xtr, Xte = X.iloc[:n_train].reset_index(drop=True), X.iloc[n_train:].reset_index(drop=True)
            result = evaluate(Xtr, y[:n_train], Xte, y[n_train:], args.repeat, has_r, 0)
            missing = f", {args.missing:.0%} NaN" if args.missing > 0 else ""
            report(f"synthetic K={n_classes}{missing}", n_train, [result])


if __name__ == "__main__":
    main()
