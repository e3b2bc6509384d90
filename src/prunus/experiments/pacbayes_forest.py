"""PAC-Bayes forest against scikit-learn's random forests (and wildwood when installed).

Pure functions: :func:`compare` returns, per dataset and repetition, the test
error and fit time of each forest, all with the same number of trees and
``max_features="sqrt"``. Used by ``prunus reproduce pacbayes`` (forest rows)
and by ``benchmarks/bench_pacbayes.py --forest``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .. import datasets
from ._tasks import run_tasks, warm_once

FORESTS = ("pacbayes_forest", "pacbayes_forest_random", "random_forest", "extra_trees", "wildwood")
#: synthetic problems (``make_classification`` arguments, ``random_state=1``): label noise, and
#: 1000 features of which 10 are informative
SYNTHETIC: dict[str, dict[str, Any]] = {
    **{
        f"noisy{round(100 * flip)}": dict(
            n_samples=6000, n_features=20, n_informative=6, n_redundant=4, n_classes=3, flip_y=flip
        )
        for flip in (0.0, 0.1, 0.3)
    },
    "wide1000": dict(n_samples=6000, n_features=1000, n_informative=10, n_redundant=0, n_classes=3),
}

FOREST_NAMES = {
    "pacbayes_forest": "PAC-Bayes forest",
    "pacbayes_forest_random": "PAC-Bayes forest, random thresholds",
    "random_forest": "RandomForest",
    "extra_trees": "ExtraTrees",
    "wildwood": "wildwood ForestClassifier",
}


def wildwood_status() -> str | None:
    """``None`` when wildwood's ForestClassifier imports, else the reason it does not."""
    try:
        from wildwood import ForestClassifier  # noqa: F401
    except (ImportError, RuntimeError) as exc:  # a reason to report, not to crash
        return f"{type(exc).__name__}: {exc}"
    return None


def load(name: str) -> tuple[np.ndarray, np.ndarray]:
    """``(X, y)`` of a dataset of :mod:`prunus.datasets` or of :data:`SYNTHETIC`."""
    if name in SYNTHETIC:
        from sklearn.datasets import make_classification

        return make_classification(**SYNTHETIC[name], random_state=1)
    data = datasets.load(name)
    return data.X, data.y


def make_forest(name: str, n_estimators: int, random_state: int | None, n_jobs: int | None = None) -> Any:
    if name in ("pacbayes_forest", "pacbayes_forest_random"):
        from ..voting import PACBayesForestClassifier

        return PACBayesForestClassifier(
            n_estimators=n_estimators,
            max_features="sqrt",
            splitter="random" if name == "pacbayes_forest_random" else "best",
            random_state=random_state,
            n_jobs=n_jobs,
        )
    if name == "random_forest":
        from sklearn.ensemble import RandomForestClassifier

        return RandomForestClassifier(
            n_estimators=n_estimators, max_features="sqrt", random_state=random_state, n_jobs=n_jobs
        )
    if name == "extra_trees":
        from sklearn.ensemble import ExtraTreesClassifier

        return ExtraTreesClassifier(
            n_estimators=n_estimators, max_features="sqrt", random_state=random_state, n_jobs=n_jobs
        )
    if name == "wildwood":
        from wildwood import ForestClassifier

        return ForestClassifier(
            n_estimators=n_estimators, max_features="sqrt", random_state=random_state, n_jobs=n_jobs or 1
        )
    raise ValueError(f"Unknown forest {name!r}; choose from {FORESTS}.")


def compare(
    names: Sequence[str],
    sizes: Callable[[str, int], tuple[int, int]],
    reps: int = 1,
    n_estimators: int = 100,
    forests: Sequence[str] = FORESTS,
    n_jobs: int | None = None,
    progress: bool = False,
    seed0: int = 0,
) -> list[Any]:
    """Test error and fit time of each forest on random train / test splits.

    Parameters
    ----------
    names : list of str
        Dataset names of :mod:`prunus.datasets` or :data:`SYNTHETIC`.
    sizes : callable ``(name, n_rows) -> (n_train, n_test)``
    reps : int
        Random splits per dataset (seeds ``seed0 .. seed0 + reps - 1``).
    forests : tuple of keys of :data:`FORESTS`

    One task per (dataset, repetition, forest)
    (:func:`~prunus.experiments._tasks.run_tasks`: here, or on a Dask
    cluster); every forest is fitted once on a small sample first in the
    process that runs it, so that no numba compilation is timed.

    Returns
    -------
    list of dict with ``dataset``, ``rep``, ``n_train``, ``forest``,
    ``error``, ``fit_s`` (and ``lambda1``, ``lambda2`` for the PAC-Bayes forest).
    """
    jobs = []
    for name in names:
        X, y = load(name)
        n_train, n_test = sizes(name, X.shape[0])
        for rep in range(reps):
            jobs += [(X, y, name, rep, n_train, n_test, forest, n_estimators, n_jobs, seed0) for forest in forests]
    return run_tasks(_forest_job, jobs, "forests", progress)


def _warm_up(forest, n_jobs):
    warm = datasets.load("breast_cancer")
    make_forest(forest, 2, 0, n_jobs).fit(warm.X[:100], warm.y[:100])


def _forest_job(X, y, name, rep, n_train, n_test, forest, n_estimators, n_jobs, seed0):
    """One forest fitted on one random split: a row of :func:`compare`."""
    # Compile numba code (prunus's kernels, wildwood's) outside the timings, in the process that times.
    warm_once(("forest", forest, n_jobs), lambda: _warm_up(forest, n_jobs))
    perm = np.random.default_rng(seed0 + rep).permutation(X.shape[0])
    train, test = perm[:n_train], perm[n_train : n_train + n_test]
    est = make_forest(forest, n_estimators, seed0 + rep, n_jobs)
    start = time.perf_counter()
    est.fit(X[train], y[train])
    fit_s = time.perf_counter() - start
    row = {
        "dataset": name,
        "rep": rep,
        "n_train": n_train,
        "forest": forest,
        "error": float(np.mean(est.predict(X[test]) != y[test])),
        "fit_s": fit_s,
    }
    if forest.startswith("pacbayes_forest"):
        row["lambda1"], row["lambda2"] = est.lambda1_, est.lambda2_
    return row


def summary(rows: Sequence[Any], forests: Sequence[str]) -> tuple[list[str], list[Any]]:
    """Per dataset: mean test error and mean fit time of each forest (table rows)."""
    out = []
    for name in dict.fromkeys(r["dataset"] for r in rows):
        sel = [r for r in rows if r["dataset"] == name]
        row = [name, sel[0]["n_train"]]
        for forest in forests:
            f = [r for r in sel if r["forest"] == forest]
            row.append(float(np.mean([r["error"] for r in f])) if f else "N/A")
        for forest in forests:
            f = [r for r in sel if r["forest"] == forest]
            row.append(float(np.mean([r["fit_s"] for r in f])) if f else "N/A")
        out.append(row)
    header = (
        ["dataset", "n_train"]
        + [f"error: {FOREST_NAMES[f]}" for f in forests]
        + [f"fit s: {FOREST_NAMES[f]}" for f in forests]
    )
    return header, out
