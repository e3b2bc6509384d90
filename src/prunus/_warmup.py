"""Compile every kernel signature prunus uses, ahead of time, into the shipped kernel cache.

The package build runs ``python -m prunus._warmup --build`` (see ``setup.py``):
a child process with ``NUMBA_CPU_NAME=generic`` runs every entry of
:data:`PATHS` once on a few rows, and numba writes the compiled code of each
kernel it meets into ``prunus/_kernel_cache/`` (:mod:`prunus._compiled`). An
installed prunus then loads that code at run time instead of compiling it.

Adding a code path
------------------
A kernel reached by no entry below compiles on its user's first call (and is
cached per user from then on), as plain numba does. When you add an estimator,
an option that reaches a kernel no other entry reaches, or a kernel called with
new argument types (another dtype, an optional argument given or not), add ONE
line to :data:`PATHS`: a label and a function of the small data ``d`` that runs
that path. Then rebuild the cache (``python -m prunus._warmup --build``, or
``pip install -e .`` again) and run ``tests/test_compiled_ahead.py``.

``python -m prunus._warmup --report`` runs the same entries in this process and
lists every kernel numba had to compile (none, once the shipped cache is built
and current).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from types import ModuleType, SimpleNamespace
from typing import Any

import numpy as np

from ._compiled import SHIPPED_CACHE_DIR, SHIPPED_CPU, building_shipped_cache


def _data() -> SimpleNamespace:
    """Small data sets of every kind the estimators accept (every dtype and layout they pass to a kernel)."""
    from scipy import sparse

    rng = np.random.RandomState(0)
    n, p = 160, 5
    X = rng.normal(size=(n, p))
    X[:, 3] = np.round(X[:, 3])  # ties
    y3 = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(np.int64) + (X[:, 2] > 0.8)
    y2 = (X[:, 0] > 0).astype(np.int64)
    yr = X[:, 0] + 0.3 * X[:, 1] ** 2 + 0.1 * rng.normal(size=n)  # a real target (regression trees)
    Xnan = X.copy()
    Xnan[::7, 1] = np.nan
    Xcat = X.copy()  # level codes: 3 levels (every subset searched) and 12 levels, some missing
    Xcat[:, 3] = rng.randint(0, 3, size=n)
    Xcat[:, 4] = rng.randint(0, 12, size=n)
    Xcat[::11, 4] = np.nan
    return SimpleNamespace(
        X=X,
        y=y3,
        y2=y2,
        yr=yr,
        w=rng.uniform(0.5, 2.0, size=n),
        Xf=np.asfortranarray(X),  # pandas frames and many readers hand over Fortran order
        Xnan=Xnan,
        Xcat=Xcat,
        Xcsr=sparse.csr_matrix(np.where(np.abs(X) < 0.7, 0.0, X)),
        Xcsc=sparse.csc_matrix(np.where(np.abs(X) < 0.7, 0.0, X)),
        Xbig=rng.normal(size=(200_000, p)),  # Tree.apply switches to its parallel kernel from 200 000 rows
    )


_PREDICTIONS = (
    "predict",
    "predict_proba",
    "decision_function",
    "apply",
    "decision_path",
    "staged_predict",
    "staged_predict_proba",
)


def _fit(est: Any, X: Any, y: Any, **fit_params: Any) -> Any:
    """Fit, then call every prediction method the estimator has (they reach their own kernels)."""
    est.fit(X, y, **fit_params)
    for name in _PREDICTIONS:
        method = getattr(est, name, None)
        if method is not None:
            out = method(X)
            if name.startswith("staged"):
                for _ in out:
                    pass
    return est


def _tree_methods(d: SimpleNamespace) -> None:
    from .pruning import cost_complexity_path
    from .tree import grow_cart

    tree, counts = grow_cart(d.X, d.y, return_counts=True)
    for X in (d.X, d.Xf):
        tree.apply(X)
        tree.decision_path(X)
        tree.node_counts(X, d.y)
        tree.node_counts(X, d.y, d.w)
    tree.apply(d.Xbig)
    path = cost_complexity_path(tree, counts)
    k = len(path.alphas) // 2
    path.subtree(k)
    path.leaf_intervals()
    path.misclassified(counts)
    tree.prune(np.flatnonzero(~tree.is_leaf)[:1])


def _categorical_tree(d: SimpleNamespace) -> None:
    """Subset splits (ordered scan, exhaustive; squared error), their routing and pruning path."""
    from .pruning import cost_complexity_path
    from .tree import grow_cart

    for y, params in (
        (d.y2, {}),
        (d.y, {}),
        (d.y, {"min_samples_leaf": 3}),
        (d.X[:, 2], {"criterion": "squared_error"}),
    ):
        grow_cart(d.Xcat, y, categorical_features=[3, 4], **params)
    grow_cart(d.Xcat, d.y, categorical_features=[3, 4], max_leaf_nodes=6)
    tree, counts = grow_cart(d.Xcat, d.y, categorical_features=[3, 4], return_counts=True)
    tree.decision_path(d.Xcat)
    tree.node_counts(d.Xcat, d.y, d.w)
    tree.node_moments(d.Xcat, d.X[:, 2])
    cost_complexity_path(tree, counts).subtree(1)


def _surrogates(d: SimpleNamespace) -> None:
    """Surrogate splits: growth (numeric and categorical, classes and least squares), routing, add_surrogates."""
    from .tree import add_surrogates, grow_cart

    for X, categorical in ((d.Xnan, None), (d.Xcat, [3, 4])):
        tree, counts = grow_cart(X, d.y, categorical_features=categorical, max_surrogates=5, return_counts=True)
        tree.apply(X)
        tree.node_counts(X, d.y, d.w)
        add_surrogates(tree, X, d.w)
        grow_cart(X, d.y, categorical_features=categorical, max_surrogates=2, max_leaf_nodes=6)
    grow_cart(d.Xnan, d.yr, criterion="squared_error", max_surrogates=5)


def _lean_mapped(d: SimpleNamespace) -> None:
    """Least-squares growths of large tables, into node arrays on maps of their own (forced here on a few rows)."""
    from .tree import grow_cart
    from .utils import _memory

    saved = _memory.MAPPED_FROM_BYTES
    _memory.MAPPED_FROM_BYTES = 0
    try:
        grow_cart(d.Xnan, d.yr, criterion="squared_error")
        grow_cart(d.Xnan, d.yr, criterion="squared_error", max_surrogates=5)
    finally:
        _memory.MAPPED_FROM_BYTES = saved


def _regression(d: SimpleNamespace) -> None:
    """Least-squares regression trees: growth, node moments, the squared-error pruning path."""
    from .pruning import squared_error_path
    from .tree import grow_cart

    for X in (d.X, d.Xnan):
        tree = grow_cart(X, d.yr, criterion="squared_error")
        grow_cart(X, d.yr, criterion="squared_error", max_leaf_nodes=6, sample_weight=d.w)
        grow_cart(X, d.yr, criterion="squared_error", max_features=2, min_samples_leaf=3, random_state=0)
    grow_cart(d.Xcat, d.yr, criterion="squared_error", categorical_features=[3, 4])
    tree = grow_cart(d.X, d.yr, criterion="squared_error", max_depth=6)
    for w in (None, d.w):
        path = squared_error_path(tree, tree.node_moments(d.X, d.yr, w))
        path.subtree(len(path.alphas) // 2)
        path.squared_error(d.X, d.yr, w)


def _grow(builder: str, data: str = "X", **params: Any) -> Callable[[SimpleNamespace], None]:
    """A path: ``prunus.tree.<builder>`` on the data set named ``data``."""

    def path(d: SimpleNamespace) -> None:
        from . import tree

        args = (getattr(d, data), d.y) if builder == "grow_cart" else (getattr(d, data),)
        getattr(tree, builder)(*args, **{k: getattr(d, v) if k == "sample_weight" else v for k, v in params.items()})

    return path


def _est(
    cls: str, data: str | tuple[str, ...] = "X", weighted: bool = False, **params: Any
) -> Callable[[SimpleNamespace], None]:
    """A path: fit ``prunus.<cls>(**params)`` on each data set named in ``data`` (and predict with it)."""

    def path(d: SimpleNamespace) -> None:
        import prunus

        y = {"HSVoteClassifier": d.y2, "CARTRegressor": d.yr}.get(cls, d.y)  # HS-vote is binary
        for name in (data,) if isinstance(data, str) else data:
            est = getattr(prunus, cls)(random_state=0, **params)
            _fit(est, getattr(d, name), y, **({"sample_weight": d.w} if weighted else {}))

    return path


def _boost(
    data: str | tuple[str, ...] = "X", weighted: bool = False, **params: Any
) -> Callable[[SimpleNamespace], None]:
    """A path: a small ExactBoostClassifier fit."""
    return _est("ExactBoostClassifier", data, weighted, n_estimators=3, max_depth=2, **params)


def _load_without_package(name: str) -> ModuleType:
    """Import ``prunus.<name>`` without its package's ``__init__`` (prunus.hsoftmax's needs torch)."""
    if name in sys.modules:
        return sys.modules[name]
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), *name.split(".")[1:]) + ".py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _label_tree_reassign(d: SimpleNamespace) -> None:
    """The label-tree re-assignment of the tree softmax (its numba part; torch is not needed)."""
    assign = _load_without_package("prunus.hsoftmax._assign")
    label_tree = _load_without_package("prunus.hsoftmax._label_tree")
    rng = np.random.RandomState(0)
    k, depth = 40, 3
    tree = label_tree.LabelTree.random(k, 4, depth, random_state=0)
    m = tree.arity
    counts = rng.randint(0, 5, size=(k, depth)).astype(np.float64)
    sp = rng.dirichlet(np.ones(m), size=(k, depth)) * counts[:, :, None]
    assign.node_objectives(sp, counts, tree.path_nodes, tree.n_internal)
    for log_variant in (False, True):
        for exchange in (False, True):
            for min_count in (0.0, 2.0):
                old = tree.path_nodes.copy()
                assign.reassign_kernel(
                    assign.AssignStats(old, tree.path_children, sp, counts),
                    m,
                    depth,
                    assign.AssignSettings(log_variant, exchange, min_count),
                )


def _lower_bound(d: SimpleNamespace) -> None:
    from .boosting import exact_lower_bound

    exact_lower_bound(d.X[:60], d.y2[:60], max_bins=8, time_limit=5.0)
    exact_lower_bound(d.X[:60], d.y2[:60], sample_weight=d.w[:60], max_bins=8, time_limit=5.0)


Path = tuple[str, Callable[[SimpleNamespace], Any]]

_VOTING = ("PACBayesTreeClassifier", "PenalizedTreeClassifier", "HSVoteClassifier")
_DATA = ("X", "Xcsr", "Xcsc")
_SELECTIONS = ("holdout", "cv", "cv-1se", "slope", "penalty", "alpha")
_CRITERIA = ("gini", "entropy", "log_loss", "misclassification")

# fmt: off
#: One entry per code path: (label, function of the small data sets ``d``). Add a line for a new path,
#: in the section whose kernels it shares (the build compiles the sections in parallel processes).
TREE_PATHS: list[Path] = [
    # CART builder and its tree (grow_cart, Tree methods, cost-complexity path)
    ("tree methods and path", _tree_methods),
    ("grow_cart best-first", _grow("grow_cart", max_leaf_nodes=6)),
    ("grow_cart max_features", _grow("grow_cart", max_features=2, random_state=0)),
    ("grow_cart sample_weight", _grow("grow_cart", sample_weight="w")),
    ("grow_cart NaN", _grow("grow_cart", "Xnan", max_leaf_nodes=6)),
    ("grow_cart stopping rules", _grow("grow_cart", max_depth=3, min_samples_leaf=3, min_samples_split=5, min_impurity_decrease=0.01)),
    ("grow_cart criterion=entropy", _grow("grow_cart", criterion="entropy")),
    ("grow_cart categorical features, their routing and path", _categorical_tree),
    ("regression trees (squared_error) and their path", _regression),
    ("surrogate splits: growth, routing, add_surrogates", _surrogates),
    ("least-squares growth into mapped node arrays (large tables)", _lean_mapped),
    ("grow_cart categorical", _grow("grow_cart", "Xcat", categorical_features=[3, 4])),
    ("grow_cart categorical best-first, entropy", _grow("grow_cart", "Xcat", categorical_features=[3, 4], max_leaf_nodes=6, criterion="entropy")),
    ("grow_cart few-level numeric features split from per-node tables", _grow("grow_cart", "Xcat", categorical_features=None, sample_weight="w")),
    # CARTClassifier: every selection, method, criterion; weights, NaN, Fortran order, threads
    *[(f"CART selection={s}", _est("CARTClassifier", selection=s, alpha=0.01 if s == "alpha" else None)) for s in _SELECTIONS],
    *[(f"CART criterion={c}", _est("CARTClassifier", criterion=c, selection="cv", cv=3)) for c in _CRITERIA],
    ("CART method=M1", _est("CARTClassifier", method="M1")),
    ("CART sample_weight", _est("CARTClassifier", weighted=True, selection="cv", cv=3)),
    ("CART NaN, Fortran-ordered X", _est("CARTClassifier", ("Xnan", "Xf"), selection="cv", cv=3)),
    ("CART missing=learned", _est("CARTClassifier", "Xnan", missing="learned", selection="cv", cv=3)),
    ("CART grow_size", _est("CARTClassifier", method="M1", grow_size=100, max_depth=4, min_samples_leaf=0.05)),
    ("CART n_jobs=2", _est("CARTClassifier", selection="cv", cv=4, n_jobs=2)),
    # CARTRegressor: squared_error growth, path and CV; weights, NaN, threads
    ("CARTRegressor cv, NaN, Fortran-ordered X", _est("CARTRegressor", ("X", "Xnan", "Xf"), selection="cv", cv=3)),
    ("CARTRegressor M1 holdout, sample_weight", _est("CARTRegressor", weighted=True, method="M1")),
    ("CARTRegressor n_jobs=2", _est("CARTRegressor", selection="cv-1se", cv=4, n_jobs=2)),
    ("CART categorical, class_weight", _est("CARTClassifier", "Xcat", categorical_features=[3, 4], class_weight="balanced", selection="cv", cv=3)),
    ("CART loss_matrix", _est("CARTClassifier", loss_matrix=[[0, 1, 2], [1, 0, 1], [2, 1, 0]], selection="cv", cv=3)),
    # PAC-Bayes tree, penalized tree, HS vote: every partition
    *[(f"{cls} partition={p}", _est(cls, partition=p)) for cls in _VOTING for p in ("dyadic", "kd", "cart")],
    ("PACBayesTree prior=theory, empty_cells=class0", _est("PACBayesTreeClassifier", prior="theory", empty_cells="class0")),
    ("PACBayesTree lambdas given, sample_weight", _est("PACBayesTreeClassifier", weighted=True, lambda1=1.0, lambda2=1.0)),
    ("PACBayesTree Fortran-ordered X", _est("PACBayesTreeClassifier", "Xf", partition="kd")),
    ("PenalizedTree penalty=sn", _est("PenalizedTreeClassifier", penalty="sn", partition="cart")),
    ("PACBayesTree n_jobs=2", _est("PACBayesTreeClassifier", partition="kd", n_jobs=2)),
    ("PACBayesTree class_weight", _est("PACBayesTreeClassifier", partition="cart", class_weight="balanced")),
    *[(f"grow_kd split={s}", _grow("grow_kd", split=s)) for s in ("spread", "cycle", "range")],
    ("grow_dyadic", _grow("grow_dyadic", max_nodes=50)),
    # PAC-Bayes forest
    ("PACBayesForest", _est("PACBayesForestClassifier", n_estimators=4)),
    ("PACBayesForest splitter=random, bootstrap", _est("PACBayesForestClassifier", n_estimators=4, splitter="random", bootstrap=True)),
    ("PACBayesForest max_samples, sample_weight", _est("PACBayesForestClassifier", weighted=True, n_estimators=4, max_samples=0.7, max_features=None)),
    ("PACBayesForest categorical, class_weight", _est("PACBayesForestClassifier", "Xcat", n_estimators=4, categorical_features=[3, 4], class_weight="balanced")),
    ("PACBayesForest categorical, random splitter", _est("PACBayesForestClassifier", "Xcat", n_estimators=4, categorical_features=[3, 4], splitter="random")),
    ("PACBayesForest NaN, Fortran, n_jobs=2", _est("PACBayesForestClassifier", ("Xnan", "Xf"), n_estimators=4, n_jobs=2, max_leaf_nodes=8)),
]

BOOSTING_PATHS: list[Path] = [
    # Exact boosting: every split search, rule, criterion; bounds; dense and sparse; trimming; feature sampling
    *[(f"Boost {s} {c}", _boost(_DATA, split_search=s, criterion=c)) for s in ("exhaustive", "quick", "adaptive") for c in ("error", "entropy")],
    *[(f"Boost adaptive_rule={r}", _boost(adaptive_rule=r, min_batch="auto")) for r in ("lower_first", "gap")],
    *[(f"Boost track_bounds {s}", _boost(("X", "Xcsr"), split_search=s, track_bounds=True)) for s in ("exhaustive", "quick", "adaptive")],
    ("Boost weight_trim, feature_fraction", _boost(("X", "Xcsr", "Xf"), weight_trim=0.9, feature_fraction=0.6)),
    ("Boost sample_weight", _boost(weighted=True)),
    ("Boost max_bins=300 (uint16 value offsets)", _boost(max_bins=300)),
    ("exact_lower_bound", _lower_bound),
    # Tree softmax: label-tree re-assignment (numba part)
    ("label tree re-assignment", _label_tree_reassign),
]
# fmt: on

SECTIONS: dict[str, list[Path]] = {"trees": TREE_PATHS, "boosting": BOOSTING_PATHS}
PATHS: list[Path] = [path for section in SECTIONS.values() for path in section]


def run_paths(paths: list[Path] | None = None, verbose: bool = False) -> list[tuple[str, float]]:
    """Run ``paths`` (default: every entry of :data:`PATHS`) in this process; returns (label, seconds)."""
    d = _data()
    times = []
    for label, path in PATHS if paths is None else paths:
        t0 = time.perf_counter()
        path(d)
        times.append((label, time.perf_counter() - t0))
        if verbose:
            print(f"{times[-1][1]:7.1f} s  {label}", flush=True)
    return times


class CompileRecorder:
    """Records numba's compilations (``numba:compile`` events) of this process: (kernel, argument types, seconds)."""

    def __init__(self) -> None:
        from numba.core import event

        self._event = event
        self.compiled: list[tuple[str, str, float]] = []
        self._starts: list[float] = []

        recorder = self

        class _Listener(event.Listener):
            def on_start(self, ev: Any) -> None:
                recorder._starts.append(time.perf_counter())

            def on_end(self, ev: Any) -> None:
                seconds = time.perf_counter() - recorder._starts.pop()
                disp = ev.data["dispatcher"]
                name = f"{disp.py_func.__module__}.{disp.py_func.__qualname__}"
                recorder.compiled.append((name, str(ev.data["args"]), seconds))

        self._listener = _Listener()

    def __enter__(self) -> CompileRecorder:
        self._event.register("numba:compile", self._listener)
        return self

    def __exit__(self, *exc: Any) -> None:
        self._event.unregister("numba:compile", self._listener)


def build(cache_dir: str = SHIPPED_CACHE_DIR, python: str = sys.executable, verbose: bool = True) -> float:
    """(Re)write the shipped cache of the prunus package that this module belongs to; returns seconds.

    Runs :data:`PATHS` in child processes (one per section of :data:`SECTIONS`,
    in parallel when the machine has several cores) that compile for the
    generic CPU of the platform and write nothing but the shipped cache.
    """
    import numba

    t0 = time.perf_counter()
    shutil.rmtree(cache_dir, ignore_errors=True)
    os.makedirs(cache_dir)
    package_parent = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = dict(os.environ)
    env.update(
        NUMBA_CPU_NAME=SHIPPED_CPU[0],
        NUMBA_CPU_FEATURES=SHIPPED_CPU[1],
        PRUNUS_KERNEL_CACHE_BUILD="1",
        PYTHONPATH=os.pathsep.join([package_parent, *filter(None, [env.get("PYTHONPATH")])]),
    )
    env.pop("NUMBA_DISABLE_JIT", None)
    parallel = (os.cpu_count() or 1) > 1
    children = []
    for section in SECTIONS:
        cmd = [python, "-m", "prunus._warmup", "--run", section] + (["--verbose"] if verbose else [])
        children.append((section, subprocess.Popen(cmd, env=env, cwd=package_parent)))
        if not parallel:
            children[-1][1].wait()
    failed = [section for section, child in children if child.wait() != 0]
    if failed:
        raise RuntimeError(f"compiling the kernels of section(s) {failed} failed (see above)")
    lock = os.path.join(cache_dir, ".lock")  # the children's write lock (prunus._compiled)
    if os.path.exists(lock):
        os.remove(lock)
    with open(os.path.join(cache_dir, "BUILT"), "w", encoding="ascii") as f:
        f.write(f"{numba.__version__} {SHIPPED_CPU[0]}\n")
    seconds = time.perf_counter() - t0
    if verbose:
        n = sum(name.endswith(".nbc") for _, _, files in os.walk(cache_dir) for name in files)
        print(f"prunus kernel cache: {n} compiled kernel signatures in {cache_dir}, built in {seconds:.0f} s")
    return seconds


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m prunus._warmup", description=__doc__.split("\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--build", action="store_true", help="rewrite the shipped kernel cache of this prunus")
    mode.add_argument("--report", action="store_true", help="run every path here and list what numba compiled")
    mode.add_argument("--run", choices=list(SECTIONS), help=argparse.SUPPRESS)  # the build's child process
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    if args.build:
        build(verbose=True)
        return 0
    if args.run:
        if not building_shipped_cache():
            parser.error("--run is the build's child process; use --build")
        run_paths(SECTIONS[args.run], verbose=args.verbose)
        return 0
    with CompileRecorder() as rec:
        run_paths(verbose=args.verbose)
    for name, types, seconds in rec.compiled:
        print(f"compiled {seconds:6.2f} s  {name}{types}")
    print(f"{len(rec.compiled)} compilations")
    return 0


if __name__ == "__main__":
    sys.exit(main())
