"""Reproduction for Gey, *Risk bounds for CART classifiers under a margin condition*.

The paper is theoretical (no tables of numbers); this experiment checks its
claims empirically on its own two margin examples (section 3.2):

* the excess risk l(f*, f~) of CART with test-sample selection decreases
  roughly like 1/n under the margin condition MA(1) (Theorem 1), for both
  methods M1 and M2;
* selecting among the pruned sequence by a test sample costs little against
  the best tree of the sequence (Proposition 3);
* the other selection rules (CV, 1-SE, slope heuristic, sub-additive
  penalty) side by side;

and, on real data, compares every rule with scikit-learn's route
(DecisionTreeClassifier + GridSearchCV over its ccp_alpha path).

A regression section does the same for least-squares trees (Gey & Nedelec,
*Model selection for CART regression trees*): on ``make_friedman1`` with
unit noise, the risk of the tree selected by M1 and M2 against the best tree
of its own pruned sequence, on a large fresh test sample; and on real and
simulated data, ``CARTRegressor`` with CV next to R's rpart (``method =
"anova"``, when ``Rscript`` is present) and scikit-learn's
DecisionTreeRegressor + GridSearchCV.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ..datasets import is_available, load, make_gey_gaussian, make_gey_hypercube
from ..pruning import CARTClassifier, CARTRegressor
from ._report import Report
from ._rpart import has_rscript, rpart_anova_script, run_rpart
from ._tasks import run_tasks, warm_once

RULES = ("holdout", "cv", "cv-1se", "slope", "penalty")
#: Selection rules of the regression oracle table.
REG_RULES = ("holdout", "cv", "slope")
EXAMPLES = {
    "hypercube (d=2)": lambda n, q, seed: make_gey_hypercube(n, n_features=2, q=q, random_state=seed),
    "gaussian quadrant": lambda n, q, seed: make_gey_gaussian(n, q=q, random_state=seed),
}


@dataclass(frozen=True)
class Settings:
    sizes: tuple
    qs: tuple
    repeats: int
    n_mc: int
    cv: int
    real_datasets: tuple
    sklearn_alphas: int
    # Regression: sample sizes and repetitions of the oracle table, fresh test rows per fit,
    # and the data sets of the comparison with rpart and scikit-learn (see REGRESSION_DATA).
    reg_sizes: tuple = (250, 1000, 4000)
    reg_repeats: int = 3
    reg_n_test: int = 20_000
    reg_datasets: tuple = ("diabetes", "friedman1 2k")


QUICK = Settings(
    sizes=(250, 500, 1000, 2000, 4000),
    qs=(0.1, 0.3),
    repeats=5,
    n_mc=100_000,
    cv=5,
    real_datasets=("breast_cancer", "digits"),
    sklearn_alphas=20,
)
# For tests only: seconds, every table and figure, meaningless numbers.
TINY = Settings(
    sizes=(200, 400),
    qs=(0.2,),
    repeats=2,
    n_mc=20_000,
    cv=3,
    real_datasets=("iris",),
    sklearn_alphas=5,
    reg_sizes=(200, 400),
    reg_repeats=2,
    reg_n_test=5_000,
    reg_datasets=("diabetes",),
)
FULL = Settings(
    sizes=(250, 500, 1000, 2000, 4000, 8000, 16000),
    qs=(0.1, 0.2, 0.3),
    repeats=10,
    n_mc=400_000,
    cv=10,
    real_datasets=("breast_cancer", "digits", "spam", "satimage", "letter"),
    sklearn_alphas=52,
    reg_sizes=(250, 500, 1000, 2000, 4000, 8000, 16000),
    reg_repeats=10,
    reg_n_test=200_000,
    reg_datasets=("diabetes", "friedman1 2k", "friedman1 20k"),
)


def _diabetes():
    from sklearn.datasets import load_diabetes

    return load_diabetes(return_X_y=True)


def _friedman1(n):
    from sklearn.datasets import make_friedman1

    return lambda: make_friedman1(n, noise=1.0, random_state=0)


#: Data of the regression comparison: scikit-learn's bundled diabetes and make_friedman1 (10 features,
#: unit noise), each split 75/25 by a seeded permutation.
REGRESSION_DATA = {
    "diabetes": _diabetes,
    "friedman1 2k": _friedman1(2_000),
    "friedman1 20k": _friedman1(20_000),
}


def _make_estimator(method, rule, cv, seed):
    params = dict(method=method, selection=rule, cv=cv, random_state=seed)
    if rule == "penalty":
        params["kappa"] = 2.0  # sub-additive shape (|T|/n)^(2/3), constant by the slope heuristic
    return CARTClassifier(**params)


def _disagreement_per_k(path, X_mc, bayes_mc):
    """P(f_{T_k} != f*) for every tree of the sequence, on Monte Carlo inputs."""
    counts = path.tree.node_counts(X_mc, bayes_mc, n_classes=path.counts.shape[1])
    return path.misclassified(counts) / X_mc.shape[0]


def synthetic_rates(settings: Settings, progress: bool = True) -> list[dict[str, Any]]:
    """Excess risk of every (example, q, n, method, rule), with the oracle of the sequence.

    One task per (example, q, n, repetition), each seeded by its own
    coordinates (:func:`~prunus.experiments._tasks.run_tasks`): run here by
    default, and on a Dask cluster under ``joblib.parallel_backend("dask")``
    with the same records.

    Returns a list of dict records, one per fit.
    """
    jobs = [
        (ex, q, n, r, settings)
        for ex in EXAMPLES
        for q in settings.qs
        for n in settings.sizes
        for r in range(settings.repeats)
    ]
    return [rec for recs in run_tasks(_synthetic_job, jobs, "cart: synthetic", progress) for rec in recs]


def _synthetic_job(example, q, n, rep, settings):
    seed = 1000 * rep + n
    data = EXAMPLES[example](n, q, seed)
    fresh = EXAMPLES[example](settings.n_mc, q, seed + 7_777_777)
    X_mc, bayes_mc = fresh.X, fresh.bayes_pred
    records = []
    for method in ("M1", "M2"):
        for rule in RULES:
            est = _make_estimator(method, rule, settings.cv, seed).fit(data.X, data.y)
            disagree = np.mean(est.predict(X_mc) != bayes_mc)
            rec = dict(
                example=example,
                q=q,
                n=n,
                rep=rep,
                method=method,
                rule=rule,
                excess=data.margin * disagree,
                leaves=est.pruned_tree_.n_leaves,
                tmax_leaves=est.tree_.n_leaves,
            )
            if rule == "holdout":
                # Proposition 3: the best tree of the same sequence.
                rec["oracle"] = data.margin * _disagreement_per_k(est.path_, X_mc, bayes_mc).min()
            records.append(rec)
    return records


def _mean_se(values):
    values = np.asarray(values, dtype=float)
    se = values.std(ddof=1) / np.sqrt(values.size) if values.size > 1 else 0.0
    return values.mean(), se


def _fit_rate(ns, risks):
    """Least-squares slope of log(excess risk) against log(n)."""
    ns, risks = np.asarray(ns, float), np.asarray(risks, float)
    keep = risks > 0
    if keep.sum() < 2:
        return float("nan")
    return float(np.polyfit(np.log(ns[keep]), np.log(risks[keep]), 1)[0])


def _warm_up():
    X = np.random.RandomState(0).rand(60, 2)
    CARTClassifier().fit(X, (X[:, 0] > 0.5).astype(int)).predict(X)


def _real_data_job(name, procedure, Xtr, ytr, Xte, yte, settings):
    """One row of the real-data table: a prunus (method, rule) fit, or scikit-learn's route."""
    warm_once("cart", _warm_up)
    if procedure != "sklearn":
        method, rule = procedure
        start = time.perf_counter()
        est = _make_estimator(method, rule, settings.cv, 0).fit(Xtr, ytr)
        elapsed = time.perf_counter() - start
        return (name, f"prunus {method} {rule}", np.mean(est.predict(Xte) != yte), est.pruned_tree_.n_leaves, elapsed)
    from sklearn.model_selection import GridSearchCV
    from sklearn.tree import DecisionTreeClassifier

    start = time.perf_counter()
    path = DecisionTreeClassifier(random_state=0).cost_complexity_pruning_path(Xtr, ytr)
    alphas = path.ccp_alphas[:-1]
    grid = alphas[np.unique(np.linspace(0, len(alphas) - 1, settings.sklearn_alphas).astype(int))]
    search = GridSearchCV(DecisionTreeClassifier(random_state=0), {"ccp_alpha": grid}, cv=settings.cv)
    search.fit(Xtr, ytr)
    elapsed = time.perf_counter() - start
    return (
        name,
        f"scikit-learn GridSearchCV ({len(grid)} ccp_alphas)",
        np.mean(search.predict(Xte) != yte),
        search.best_estimator_.get_n_leaves(),
        elapsed,
    )


def real_data_comparison(settings: Settings, progress: bool = True) -> tuple[list[Any], list[str]]:
    """Test error, leaves and fit time of every rule and of scikit-learn's route.

    One task per (dataset, procedure); the fit times are those of the process
    that ran the task.
    """
    names = [d for d in settings.real_datasets if is_available(d)]
    missing = [d for d in settings.real_datasets if not is_available(d)]
    procedures = [(method, rule) for method in ("M2", "M1") for rule in RULES] + ["sklearn"]
    jobs = []
    for name in names:
        data = load(name)
        if data.train_index is not None:
            train, test = data.train_index, data.test_index
        else:
            perm = np.random.RandomState(0).permutation(data.X.shape[0])
            n_test = min(2000, data.X.shape[0] // 4)
            test, train = perm[:n_test], perm[n_test:]
        Xtr, ytr, Xte, yte = data.X[train], data.y[train], data.X[test], data.y[test]
        jobs += [(name, procedure, Xtr, ytr, Xte, yte, settings) for procedure in procedures]
    return run_tasks(_real_data_job, jobs, "cart: real data", progress), missing


def _friedman1_truth(n, seed):
    """``make_friedman1`` inputs, noisy targets (unit variance) and the regression function f* at them."""
    from sklearn.datasets import make_friedman1

    X, f_star = make_friedman1(n, noise=0.0, random_state=seed)
    y = f_star + np.random.RandomState(seed + 1).standard_normal(n)
    return X, y, f_star


def regression_oracle(settings: Settings, progress: bool = True) -> list[dict[str, Any]]:
    """Risk of the selected regression tree against the best tree of its sequence, per (n, method, rule).

    One task per (n, repetition). Returns a list of dict records, one per fit.
    """
    jobs = [(n, r, settings) for n in settings.reg_sizes for r in range(settings.reg_repeats)]
    return [rec for recs in run_tasks(_regression_job, jobs, "cart: regression", progress) for rec in recs]


def _regression_job(n, rep, settings):
    seed = 1000 * rep + n
    X, y, _ = _friedman1_truth(n, seed)
    X_t, y_t, f_t = _friedman1_truth(settings.reg_n_test, seed + 7_777_777)
    records = []
    for method in ("M1", "M2"):
        for rule in REG_RULES:
            # n_jobs=1: the grid of tasks is the unit of parallelism.
            est = CARTRegressor(method=method, selection=rule, cv=settings.cv, random_state=seed, n_jobs=1)
            est.fit(X, y)
            # Every T_k of the sequence at once: ||f_k - f*||^2 (excess risk) and the test MSE.
            excess = est.path_.squared_error(X_t, f_t) / X_t.shape[0]
            mse = est.path_.squared_error(X_t, y_t) / X_t.shape[0]
            k = est.selected_index_
            records.append(
                dict(
                    n=n,
                    rep=rep,
                    method=method,
                    rule=rule,
                    excess=excess[k],
                    oracle=excess.min(),
                    mse=mse[k],
                    oracle_mse=mse.min(),
                    leaves=est.pruned_tree_.n_leaves,
                    oracle_leaves=est.path_.n_leaves[int(np.argmin(excess))],
                )
            )
    return records


def _warm_up_regressor():
    X = np.random.RandomState(0).rand(60, 2)
    CARTRegressor(selection="cv", cv=3).fit(X, X[:, 0]).predict(X)


def _regression_split(name):
    X, y = REGRESSION_DATA[name]()
    perm = np.random.RandomState(0).permutation(X.shape[0])
    n_test = X.shape[0] // 4
    test, train = perm[:n_test], perm[n_test:]
    return X[train], y[train], X[test], y[test]


def _regression_compare_job(name, procedure, Xtr, ytr, Xte, yte, settings):
    """One row of the regression comparison: (dataset, procedure, test MSE, leaves or None, seconds)."""
    warm_once("cart-regression", _warm_up_regressor)
    if procedure == "rpart":
        seconds, mse, leaves = run_rpart(Xtr, ytr, Xte, yte, rpart_anova_script(settings.cv))
        return (name, "rpart anova, min xerror", mse, int(leaves), seconds)
    if procedure == "sklearn":
        from sklearn.model_selection import GridSearchCV
        from sklearn.tree import DecisionTreeRegressor

        start = time.perf_counter()
        alphas = DecisionTreeRegressor(random_state=0).cost_complexity_pruning_path(Xtr, ytr).ccp_alphas
        grid = np.unique(np.quantile(alphas, np.linspace(0, 1, settings.sklearn_alphas)))
        search = GridSearchCV(
            DecisionTreeRegressor(random_state=0), {"ccp_alpha": grid}, cv=settings.cv, scoring="neg_mean_squared_error"
        ).fit(Xtr, ytr)
        elapsed = time.perf_counter() - start
        mse = float(np.mean((search.predict(Xte) - yte) ** 2))
        return (
            name,
            f"scikit-learn GridSearchCV ({len(grid)} ccp_alphas)",
            mse,
            search.best_estimator_.get_n_leaves(),
            elapsed,
        )
    start = time.perf_counter()
    est = CARTRegressor(selection=procedure, cv=settings.cv, random_state=0, n_jobs=1).fit(Xtr, ytr)
    elapsed = time.perf_counter() - start
    mse = float(np.mean((est.predict(Xte) - yte) ** 2))
    return (name, f"prunus M2 {procedure}", mse, est.pruned_tree_.n_leaves, elapsed)


def regression_comparison(settings: Settings, progress: bool = True) -> tuple[list[Any], bool]:
    """Test MSE, leaves and fit time of CARTRegressor (CV, 1-SE), rpart (when ``Rscript`` is present)
    and scikit-learn's route, per data set of ``settings.reg_datasets``.

    Returns ``(rows, has_r)``.
    """
    has_r = has_rscript()
    procedures = ["cv", "cv-1se"] + (["rpart"] if has_r else []) + ["sklearn"]
    jobs = []
    for name in settings.reg_datasets:
        Xtr, ytr, Xte, yte = _regression_split(name)
        jobs += [(name, procedure, Xtr, ytr, Xte, yte, settings) for procedure in procedures]
    return run_tasks(_regression_compare_job, jobs, "cart: regression comparison", progress), has_r


def _regression_section(rep: Report, settings: Settings, progress: bool) -> None:
    """The regression part of the report: oracle ratios of M1 and M2, then rpart / scikit-learn."""
    rep.heading("Regression trees: the selected tree against the best of its sequence")
    records = regression_oracle(settings, progress)
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for rec in records:
        groups.setdefault((rec["method"], rec["rule"], rec["n"]), []).append(rec)
    rep.text(
        f"CART least-squares trees (`CARTRegressor`) on `make_friedman1` (10 features, 5 informative, unit "
        f"Gaussian noise), {settings.reg_repeats} repetitions per sample size. T_max is grown to pure leaves and "
        "pruned on squared error (Breiman's sequence); M2 grows and prunes on the learning sample, M1 grows on one "
        "half and takes the pruning risks and leaf means from the other (Gey & Nedelec, *Model selection for CART "
        f"regression trees*). Risks are measured on {settings.reg_n_test:,} fresh rows per fit: the excess risk "
        "||f - f*||^2 against the noise-free regression function, and the test mean squared error (which adds the "
        "noise variance 1). The oracle is the tree of the same pruned sequence with the least excess risk (for "
        "the MSE ratio, the least test MSE)."
    )
    header = [
        "method",
        "rule",
        "n",
        "excess risk selected",
        "excess risk best T_k",
        "ratio",
        "test MSE ratio",
        "leaves selected",
        "leaves best T_k",
    ]
    rows = []
    ratios: dict = {}
    for method in ("M2", "M1"):
        for rule in REG_RULES:
            for n in settings.reg_sizes:
                recs = groups[(method, rule, n)]
                sel = np.mean([r["excess"] for r in recs])
                orc = np.mean([r["oracle"] for r in recs])
                mse_ratio = np.mean([r["mse"] for r in recs]) / np.mean([r["oracle_mse"] for r in recs])
                ratios.setdefault((method, rule), []).append(sel / orc)
                rows.append(
                    [
                        method,
                        rule,
                        n,
                        f"{sel:.3f}",
                        f"{orc:.3f}",
                        f"{sel / orc:.2f}",
                        f"{mse_ratio:.3f}",
                        f"{np.mean([r['leaves'] for r in recs]):.1f}",
                        f"{np.mean([r['oracle_leaves'] for r in recs]):.1f}",
                    ]
                )
    rep.table(header, rows)
    rep.text(
        "Means over repetitions; ratio = mean excess risk of the selected tree over that of the best tree of its "
        "sequence. Gey & Nedelec's risk bounds are of the oracle type (the selected tree's risk at most a "
        "constant times the best risk over the sequence, plus a remainder); they give no numbers. `slope` is "
        "the penalty 2 c_min |T| / n, c_min fitted on the larger half of the sequence."
    )
    for method in ("M1", "M2"):
        found = ratios[(method, "holdout")]
        rep.claim(
            f"Regression CART, method {method}: choosing among the pruned sequence by a test sample costs a "
            "constant factor over the sequence's best tree (Gey & Nedelec)",
            "risk <= C x best + remainder; no numbers",
            f"excess risk selected / best: median {np.median(found):.2f}, largest {max(found):.2f} over "
            f"{len(found)} sample sizes",
            "yes (median ratio <= 2)" if np.median(found) <= 2 else f"no: median ratio {np.median(found):.2f}",
            "Regression trees: the selected tree against the best of its sequence",
        )

    rep.heading("Regression: CARTRegressor next to rpart and scikit-learn")
    rows, has_r = regression_comparison(settings, progress)
    rep.table(
        ["dataset", "procedure", "test MSE", "leaves", "fit time (s)"],
        [
            (
                d,
                proc,
                f"{mse:.4g}",
                int(leaves),
                f"{sec:.2f}",
            )
            for d, proc, mse, leaves, sec in rows
        ],
    )
    notes = (
        f"Train/test: a seeded random 75/25 split. Every procedure uses {settings.cv}-fold CV. prunus and rpart "
        "select the minimum-CV-error subtree (`cv`; `cv-1se` is the 1-SE rule), T_max grown to pure leaves "
        "(rpart: cp = 0, minsplit = 2, minbucket = 1, no competitor or surrogate splits); rpart's time is measured "
        "inside R (system.time around rpart and prune). Each tool draws its CV folds once (prunus random_state 0, "
        "R's set.seed(0)); on a few thousand rows the selected subtree, and its test MSE, move with that draw. "
        "scikit-learn's route: DecisionTreeRegressor's "
        f"cost-complexity path, {settings.sklearn_alphas} of its alphas (quantiles), GridSearchCV refitting a "
        "tree per alpha and fold."
    )
    if not has_r:
        notes += (
            " Rscript was not found on this machine, so rpart is left out of the table "
            "(install R and its rpart package, e.g. `apt-get install r-base-core r-cran-rpart`)."
        )
    rep.text(notes)


def _plot_rates(summary, settings):
    import matplotlib.pyplot as plt

    examples = list(EXAMPLES)
    fig, axes = plt.subplots(
        len(settings.qs), len(examples), figsize=(6 * len(examples), 3.6 * len(settings.qs)), squeeze=False
    )
    from matplotlib.lines import Line2D
    from matplotlib.ticker import FixedLocator, NullFormatter, NullLocator

    styles = {"M2": "-", "M1": (0, (4, 2))}  # long dashes: visible in the legend and on short segments
    for i, q in enumerate(settings.qs):
        for j, example in enumerate(examples):
            ax = axes[i, j]
            for method, style in styles.items():
                for c, rule in enumerate(RULES):
                    ys = [summary[(example, q, n, method, rule)][0] for n in settings.sizes]
                    ax.plot(settings.sizes, ys, linestyle=style, color=f"C{c}", marker="o", ms=3)
            ns = np.asarray(settings.sizes, float)
            ref = summary[(example, q, settings.sizes[0], "M2", "holdout")][0] * ns[0] / ns
            ax.plot(ns, ref, ":", color="k")
            ax.set_xscale("log")
            ax.set_yscale("log")
            # One labelled tick per sample size, no minor labels (they overlap on a log axis).
            ax.xaxis.set_major_locator(FixedLocator(settings.sizes))
            ax.xaxis.set_major_formatter(lambda x, _: f"{x:,.0f}")
            ax.xaxis.set_minor_locator(NullLocator())
            ax.xaxis.set_minor_formatter(NullFormatter())
            ax.tick_params(axis="x", labelrotation=30)
            ax.set_title(f"{example}, q={q:g}")
            ax.set_xlabel("n")
            ax.set_ylabel("excess risk l(f*, f~)")
    # One legend for the figure: colour = selection rule, line style = method.
    handles = [Line2D([], [], color=f"C{c}", marker="o", ms=4, lw=2) for c in range(len(RULES))]
    labels = list(RULES)
    handles += [Line2D([], [], color="0.3", linestyle=styles[m], lw=2) for m in ("M2", "M1")]
    labels += ["M2 (solid)", "M1 (dashed)"]
    handles.append(Line2D([], [], color="k", linestyle=":", lw=2))
    labels.append("1/n reference")
    fig.tight_layout(rect=(0, 0.08 if len(settings.qs) > 1 else 0.14, 1, 1))
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=10, handlelength=3.5, frameon=False)
    return fig


def run(mode: str = "quick", out: Path = Path("prunus-report"), progress: bool = True) -> Path:
    """Run the CART reproduction and write ``report.md`` + PNGs into ``out``."""
    settings = {"quick": QUICK, "full": FULL, "tiny": TINY}.get(mode)
    if settings is None:
        raise ValueError(f"mode must be 'quick' or 'full', got {mode!r}.")
    start = time.perf_counter()
    records = synthetic_rates(settings, progress)
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for rec in records:
        groups.setdefault((rec["example"], rec["q"], rec["n"], rec["method"], rec["rule"]), []).append(rec)
    summary = {key: _mean_se([r["excess"] for r in recs]) for key, recs in groups.items()}

    rep = Report(out, "CART pruning and selection under a margin condition (Gey)")
    rep.text(
        f"Mode `{mode}`: sizes {list(settings.sizes)}, flip probabilities q in {list(settings.qs)}, "
        f"{settings.repeats} repetitions, {settings.cv}-fold CV, excess risk "
        f"l(f*, f~) = |2q - 1| P(f~(X) != f*(X)) estimated on {settings.n_mc:,} fresh inputs per fit "
        "(no label noise in the estimate). T_max is grown to pure leaves (Gini); the pruning sequence is "
        "Breiman's on misclassification cost (Table 1). M2 grows and prunes on the learning sample; M1 grows on "
        "one half and prunes with the other (section 3.1). Hold-out uses 10% of the sample as test sample "
        "(eq. 10). `penalty` is the sub-additive penalty c (|T|/n)^(kappa/(2kappa-1)) with kappa = 2, its "
        "constant set by the slope heuristic on that shape; `slope` is the linear-penalty slope heuristic "
        "(penalty twice the minimal one). The paper reports no numbers; the checks are its claims."
    )
    rep.claims_table()
    rep.heading("Excess risk against sample size")
    header = ["example", "q", "method", "rule"] + [f"n={n}" for n in settings.sizes] + ["log-log slope"]
    rows = []
    slopes = {}
    for example, q in [(e, q) for e in EXAMPLES for q in settings.qs]:
        for method in ("M2", "M1"):
            for rule in RULES:
                means = [summary[(example, q, n, method, rule)][0] for n in settings.sizes]
                cells = [
                    f"{m:.4f} ± {summary[(example, q, n, method, rule)][1]:.4f}" for m, n in zip(means, settings.sizes)
                ]
                slope = _fit_rate(settings.sizes, means)
                slopes[(example, q, method, rule)] = slope
                slope_cell = f"{slope:.2f}" if np.isfinite(slope) else "N/A: fewer than two nonzero risks"
                rows.append([example, f"{q:g}", method, rule] + cells + [slope_cell])
    rep.table(header, rows)
    rep.text(
        "Mean ± standard error over repetitions. A log-log slope near -1 is the fast rate that "
        "Theorem 1 gives under MA(1) (up to log factors for M2)."
    )
    for method in ("M1", "M2"):
        found = [v for (_e, _q, m, rule), v in slopes.items() if m == method and rule == "holdout" and np.isfinite(v)]
        if not found:
            continue
        fast = sum(v <= -0.75 for v in found)
        rep.claim(
            f"Excess risk of CART, method {method}, test-sample selection, falls like 1/n under the margin "
            "condition (Theorem 1)",
            "rate 1/n" + (" up to a log n factor" if method == "M2" else "") + " (log-log slope -1); no numbers",
            f"log-log slope {min(found):.2f} to {max(found):.2f} over {len(found)} (example, q) settings",
            "yes (every slope <= -0.75)"
            if fast == len(found)
            else f"on {fast} of {len(found)} settings (slope <= -0.75)",
            "Excess risk against sample size",
        )
    rep.figure(
        _plot_rates(summary, settings),
        "excess_risk_vs_n",
        "Excess risk of the selected tree against n (solid: M2, dashed: M1; dotted: 1/n).",
    )

    rep.heading("Cost of the final selection by test sample (Proposition 3)")
    header = [
        "example",
        "q",
        "method",
        "n",
        "selected (hold-out)",
        "best T_k of the sequence",
        "ratio",
        "leaves selected",
        "leaves T_max",
    ]
    rows = []
    prop3 = []
    for example, q in [(e, q) for e in EXAMPLES for q in settings.qs]:
        for method in ("M2", "M1"):
            for n in settings.sizes:
                recs = groups[(example, q, n, method, "holdout")]
                sel = np.mean([r["excess"] for r in recs])
                orc = np.mean([r["oracle"] for r in recs])
                if orc > 0:
                    prop3.append(sel / orc)
                rows.append(
                    [
                        example,
                        f"{q:g}",
                        method,
                        n,
                        f"{sel:.4f}",
                        f"{orc:.4f}",
                        f"{sel / orc:.2f}" if orc > 0 else "N/A: the best tree has zero excess risk",
                        f"{np.mean([r['leaves'] for r in recs]):.1f}",
                        f"{np.mean([r['tmax_leaves'] for r in recs]):.1f}",
                    ]
                )
    rep.table(header, rows)
    rep.text(
        "The oracle is the tree of the same pruned sequence with the least excess risk; Proposition 3 "
        "bounds the selected tree's risk by a constant times the oracle's plus log(K)/n_t."
    )

    if prop3:
        rep.claim(
            "Choosing among the pruned sequence by a test sample costs a constant factor over the sequence's best "
            "tree (Proposition 3)",
            "risk <= C x best + log(K) / n_t; no numbers",
            f"selected / best: median {np.median(prop3):.2f}, largest {max(prop3):.2f} over {len(prop3)} settings",
            "yes (median ratio <= 2)" if np.median(prop3) <= 2 else f"no: median ratio {np.median(prop3):.2f}",
            "Cost of the final selection by test sample",
        )
    rep.heading("Real data: every rule next to scikit-learn")
    real, missing = real_data_comparison(settings, progress)
    rep.table(
        ["dataset", "procedure", "test error", "leaves", "fit time (s)"],
        [(d, proc, f"{err:.4f}", int(leaves), f"{sec:.2f}") for d, proc, err, leaves, sec in real],
        empty="No real dataset is available here.",
    )
    notes = (
        "Train/test: the source split for satimage (4435/2000); otherwise a seeded random split with "
        "min(2000, n/4) test rows. scikit-learn's route: its impurity-based ccp path, then GridSearchCV "
        "refitting a tree per alpha and fold."
    )
    if missing:
        notes += f" Not fetched, so left out: {', '.join(missing)} (run `prunus data fetch {' '.join(missing)}`)."
    if mode == "quick":
        notes += " Quick mode uses bundled data only; `--full` adds spam, satimage and letter."
    rep.text(notes)
    _regression_section(rep, settings, progress)
    rep.text(f"Total time: {time.perf_counter() - start:.1f} s.")
    return rep.write()
