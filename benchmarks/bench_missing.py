"""Missing values: the default rule, surrogate splits and the learned side, against R's rpart.

For each table and missingness pattern, the mean test error over ``--draws``
draws of a 75/25 split and of the missing-value mask (the same mask rule on
the training and the test rows) of:

* ``default``: ``CARTClassifier(selection="cv", cv=10)``, i.e.
  ``missing="auto"``: both rules below cross-validated on the same folds,
  the one of lower CV error kept;
* ``surrogate``: ``missing="surrogate"``
  (rpart's surrogate splits; a row missing every surrogate's feature goes
  with the split's majority side by weight, rpart's rule);
* ``learned``: ``missing="learned"`` (every missing value takes its split's
  learned side);
* ``rpart``: rpart with its defaults (``xval = 10``, ``cp = 0.01``,
  surrogates on, ``usesurrogate = 2``), min-xerror subtree.

Tables: rpart's example data with a class target (``cu.summary``,
``car.test.frame``, ``kyphosis``, ``stagec``; see ``bench_categorical.py``),
the registered ``breast_cancer`` and ``spam`` data, and the synthetic
factor tables of ``bench_categorical.py`` (2 and 3 classes, 2,000 training
rows, 2,000 test rows). Patterns: complete; MCAR (every cell missing with
probability p); MNAR (a cell's probability grows with its own value: for a
numeric column ``2 p`` times its rank / n, for a factor ``1.5 p`` on a random
half of the levels and ``0.5 p`` on the others), p = 0.1 and 0.3.

The column ``learned chosen`` is the share of draws where the default kept
the learned side. The column ``gap`` is the default's mean error less the lower
of the ``learned`` and ``rpart`` means (the better of the two; ``learned``
alone without rpart), and ``se`` its paired standard error: the standard
deviation over the draws of the per-draw difference between the default and
that rule (the same split and mask for both), divided by the square root of
the number of draws. A gap larger than about two standard errors is not the
luck of the draws. Times are wall-clock seconds of one prunus fit (kernels
loaded first), or with ``--cpu`` the CPU seconds of the process; the machine
may be shared.

Two options measure where differences from rpart come from:

* ``--rpart-seeds S``: rpart is fitted with the R seeds 1 to S (the seed
  draws its 10 cross-validation groups; the default, 1 seed, is seed 1);
  the ``rpart`` column is the mean over the seeds, and the column ``rpart
  by seed`` gives the lowest and highest of the S per-seed means over the
  draws: how far rpart is from itself when only its CV folds change.
* ``--min-leaf L``: a column ``surr leaf>=L``, ``missing="surrogate"`` with
  ``min_samples_leaf=L`` (rpart's ``minbucket`` is 7 by default: rpart's
  rules with rpart's leaf size).

``--per-draw FILE`` writes every draw's errors (one CSV row per table,
pattern and draw) for a closer look at where the means come from.

Run: ``python benchmarks/bench_missing.py [--draws 10] [--tables rpart,registered,synthetic] [--rates 0,0.1,0.3]
[--no-rpart] [--rpart-seeds 1] [--min-leaf L] [--cpu] [--per-draw FILE]``
"""

import argparse
import os
import shutil
import sys
import time

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(__file__))
from bench_categorical import CLOCK, RPART_DATA, rpart_tables, run_rpart, synthetic  # noqa: E402

from prunus import CARTClassifier, datasets  # noqa: E402

PATTERNS = [
    ("complete", None, 0.0),
    ("MCAR", "mcar", 0.1),
    ("MCAR", "mcar", 0.3),
    ("MNAR", "mnar", 0.1),
    ("MNAR", "mnar", 0.3),
]


def registered_tables():
    for name in ("breast_cancer", "spam"):
        d = datasets.load(name)
        X = np.asarray(d.X, dtype=float)
        yield name, pd.DataFrame(X, columns=[f"x{j}" for j in range(X.shape[1])]), np.asarray(d.y).astype(str)


def synthetic_tables():
    for k, levels in ((2, (2, 5, 10, 20, 50)), (3, (2, 4, 6, 10, 12))):
        X, y = synthetic(4_000, k, seed=100 + k, levels=levels)
        yield f"synthetic K={k}", X, y


def masked(X, kind, p, rng):
    """A copy of the DataFrame with cells set missing by the pattern."""
    out = X.copy()
    n = len(out)
    for name in out.columns:
        col = out[name]
        if kind == "mcar":
            prob = np.full(n, p)
        elif isinstance(col.dtype, pd.CategoricalDtype):
            high = rng.permutation(len(col.cat.categories)) % 2 == 0
            codes = col.cat.codes.to_numpy()
            prob = np.where(codes >= 0, np.where(high[np.maximum(codes, 0)], 1.5 * p, 0.5 * p), 0.0)
        else:
            rank = col.rank(method="average").to_numpy()
            prob = 2.0 * p * np.nan_to_num(rank, nan=0.0) / n
        drop = rng.random(n) < prob
        if isinstance(col.dtype, pd.CategoricalDtype):
            out[name] = col.mask(drop)
        else:
            out[name] = col.astype(float).mask(drop)
    return out


def fit_error(Xtr, ytr, Xte, yte, seed, missing, **params):
    est = CARTClassifier(selection="cv", cv=10, random_state=seed, missing=missing, **params)
    clock = time.process_time if CLOCK["cpu"] else time.perf_counter
    start = clock()
    est.fit(Xtr, ytr)
    seconds = clock() - start
    return float(np.mean(est.predict(Xte) != yte)), seconds, est.missing_ == "learned"


def paired_gap(default, learned, rpart):
    """The default's mean error less the lower of the learned and rpart means, and its paired standard error.

    Parameters
    ----------
    default, learned, rpart : ndarray of shape (n_draws,)
        Test errors of each draw; ``rpart`` all NaN when rpart did not run.

    Returns
    -------
    gap, se : float
        ``se`` is the standard error of the mean of the per-draw differences
        with the better rule (NaN with a single draw).
    """
    better = learned if np.isnan(rpart).any() or learned.mean() <= rpart.mean() else rpart
    diff = default - better
    se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else np.nan
    return float(diff.mean()), float(se)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--draws", type=int, default=10)
    parser.add_argument("--tables", default="rpart,registered,synthetic")
    parser.add_argument("--no-rpart", action="store_true")
    parser.add_argument("--rates", default="0,0.1,0.3", help="missing rates to run (0: complete data)")
    parser.add_argument("--rpart-seeds", type=int, default=1, help="rpart's CV seeds 1..S, errors averaged")
    parser.add_argument("--min-leaf", type=int, default=None, help="add missing='surrogate' with this min_samples_leaf")
    parser.add_argument("--cpu", action="store_true", help="time CPU seconds of the process instead of wall-clock")
    parser.add_argument("--per-draw", default=None, help="write every draw's errors to this CSV file")
    args = parser.parse_args()
    CLOCK["cpu"] = args.cpu
    if args.rpart_seeds < 1:
        parser.error(f"--rpart-seeds must be >= 1, got {args.rpart_seeds}")
    if args.min_leaf is not None and args.min_leaf < 1:
        parser.error(f"--min-leaf must be >= 1, got {args.min_leaf}")
    rates = [float(r) for r in args.rates.split(",")]
    # rpart's example tables are read from its package's files; R itself is needed only for the rpart column.
    has_rpart_data = os.path.exists(RPART_DATA + ".rdb")
    has_r = not args.no_rpart and shutil.which("Rscript") is not None and has_rpart_data
    warm, wy = synthetic(300, 3, 0)
    warm = masked(warm, "mcar", 0.2, np.random.default_rng(0))
    for missing in ("auto", "surrogate", "learned"):
        CARTClassifier(selection="cv", cv=3, missing=missing).fit(warm, wy)

    groups = {"rpart": rpart_tables, "registered": registered_tables, "synthetic": synthetic_tables}
    extra = ""
    if args.min_leaf is not None:
        extra += f" {'surr leaf>=' + str(args.min_leaf):>13}"
    if args.rpart_seeds > 1:
        extra += f" {'rpart by seed':>13}"
    extra = f"|{extra} |" if extra else "|"
    header = (
        f"{'table':<18}{'pattern':>10} | {'default':>7} {'surrogate':>9} {'learned':>8} {'rpart':>7} {extra} "
        f"{'gap':>6} {'se':>5} | {'learned chosen':>14} | {'s default':>9} {'s surr':>7} {'s learned':>9}"
    )
    print(header)
    print("-" * len(header), flush=True)
    draws_out = []
    for group in args.tables.split(","):
        if group == "rpart" and not has_rpart_data:
            print(f"rpart's example tables left out: {RPART_DATA}.rdb not found (apt-get install r-cran-rpart)")
            continue
        for name, X, y in groups[group]():
            for label, kind, p in PATTERNS:
                if p not in rates:
                    continue
                rows, leaf_errors, seed_errors = [], [], []
                for d in range(args.draws):
                    rng = np.random.default_rng(1000 * d + int(100 * p))
                    Xd = X if kind is None else masked(X, kind, p, rng)
                    perm = rng.permutation(len(y))
                    n_test = len(y) // 4 if len(y) < 4_000 else len(y) // 2
                    te, tr = perm[:n_test], perm[n_test:]
                    Xtr, Xte = Xd.iloc[tr].reset_index(drop=True), Xd.iloc[te].reset_index(drop=True)
                    e_a, t_a, chose = fit_error(Xtr, y[tr], Xte, y[te], d, "auto")
                    e_s, t_s, _ = fit_error(Xtr, y[tr], Xte, y[te], d, "surrogate")
                    e_l, t_l, _ = fit_error(Xtr, y[tr], Xte, y[te], d, "learned")
                    if args.min_leaf is not None:
                        fitted = fit_error(Xtr, y[tr], Xte, y[te], d, "surrogate", min_samples_leaf=args.min_leaf)
                        leaf_errors.append(fitted[0])
                    e_r = np.nan
                    if has_r:
                        by_seed = [
                            run_rpart(Xtr, y[tr], Xte, y[te], 1, ("default",), first_seed=s)["default"][1]
                            for s in range(1, args.rpart_seeds + 1)
                        ]
                        seed_errors.append(by_seed)
                        e_r = float(np.mean(by_seed))
                    rows.append((e_a, e_s, e_l, e_r, chose, t_a, t_s, t_l))
                    draws_out.append(
                        dict(table=name, pattern=label, rate=p, draw=d, default=e_a, surrogate=e_s, learned=e_l)
                        | dict(rpart=e_r, learned_chosen=chose, t_default=t_a)
                        | ({"surr_leaf": leaf_errors[-1]} if args.min_leaf is not None else {})
                        | {f"rpart_seed{s + 1}": e for s, e in enumerate(seed_errors[-1] if has_r else [])}
                    )
                m = np.mean(rows, axis=0)
                gap, se = paired_gap(*np.asarray(rows)[:, [0, 2, 3]].T)
                pattern = label if kind is None else f"{label} {p:.0%}"
                cells = ""
                if args.min_leaf is not None:
                    cells += f" {np.mean(leaf_errors):>13.3f}"
                if args.rpart_seeds > 1:
                    seed_means = np.mean(seed_errors, axis=0) if seed_errors else np.full(2, np.nan)
                    cells += f" {seed_means.min():>6.3f}-{seed_means.max():.3f}"
                cells = f"|{cells} |" if cells else "|"
                print(
                    f"{name:<18}{pattern:>10} | {m[0]:>7.3f} {m[1]:>9.3f} {m[2]:>8.3f} {m[3]:>7.3f} {cells} "
                    f"{gap:>6.3f} {se:>5.3f} | {m[4]:>14.2f} | {m[5]:>9.3f} {m[6]:>7.3f} {m[7]:>9.3f}",
                    flush=True,
                )
                if args.per_draw is not None:
                    pd.DataFrame(draws_out).to_csv(args.per_draw, index=False)


if __name__ == "__main__":
    main()
