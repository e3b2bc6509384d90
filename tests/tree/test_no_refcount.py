"""The growth kernels compiled without numba's reference counting keep its rules.

A kernel compiled with ``_nrt=False`` (``prunus.tree._no_refcount``) must
return no array, and every kernel it calls outside inlined code must say
whether it counts references: numba compiles a kernel that does not with the
``_nrt`` of whichever caller compiles it first.
"""

import ast
import importlib
import inspect
import os
import subprocess
import sys
import textwrap

from numba.core.registry import CPUDispatcher

KERNEL_MODULES = [
    "prunus.tree._categorical_split",
    "prunus.tree._criterion",
    "prunus.tree._grower",
    "prunus.tree._level_split",
    "prunus.tree._no_refcount",
    "prunus.tree._regression_grower",
    "prunus.tree._splitter",
    "prunus.tree._surrogate",
    "prunus.pruning._fold_batch",
]


def _kernels():
    """{(module, name): (dispatcher, names of the kernels its body calls)} of the growth's kernel modules."""
    kernels = {}
    for name in KERNEL_MODULES:
        module = importlib.import_module(name)
        for node in ast.parse(inspect.getsource(module)).body:
            kernel = getattr(module, getattr(node, "name", ""), None)
            if not isinstance(node, ast.FunctionDef) or not isinstance(kernel, CPUDispatcher):
                continue
            called = set()
            for call in ast.walk(node):
                if isinstance(call, ast.Call) and isinstance(call.func, ast.Name):
                    callee = getattr(module, call.func.id, None)
                    if isinstance(callee, CPUDispatcher):
                        called.add(callee)
            kernels[kernel] = called
    return kernels


def _inline(kernel):
    return kernel.targetoptions.get("inline", "never") == "always"


def test_callees_of_kernels_without_refcounts_say_whether_they_count():
    kernels = _kernels()
    without = [k for k in kernels if k.targetoptions.get("_nrt") is False and not _inline(k)]
    assert len(without) >= 10  # the scans, the split search, the partition, the tables
    undeclared = set()
    for kernel in without:
        pending, seen = list(kernels[kernel]), set()
        while pending:
            callee = pending.pop()
            if callee in seen:
                continue
            seen.add(callee)
            if _inline(callee):
                pending.extend(kernels.get(callee, ()))  # its body is compiled into the caller's
            elif "_nrt" not in callee.targetoptions:
                undeclared.add(f"{callee.py_func.__module__}.{callee.py_func.__name__} <- {kernel.py_func.__name__}")
    assert not undeclared, sorted(undeclared)


# Compiles the growth kernels afresh (the signatures of the kernels they call
# are known only to a process that compiled them) on small growths that reach
# the scans, the categorical and level-table searches, best-first growth,
# drawn features, random thresholds and surrogates, then prints the kernels
# compiled without reference counting that return an array.
_FRESH_COMPILE = textwrap.dedent(
    """
    import numpy as np
    from numba import types
    from numba.core.registry import CPUDispatcher
    from prunus.tree import _categorical_split, _criterion, _level_split, _splitter, _surrogate
    from prunus.tree.cart import CARTGrower, GrowthParams

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 4, 120), rng.normal(size=120), rng.integers(0, 30, 120)]).astype(float)
    X[rng.random(X.shape) < 0.1] = np.nan
    y = (np.nan_to_num(X[:, 1]) + (X[:, 0] == 2) > 0.5).astype(np.int64) + (rng.random(120) < 0.2)
    weight = rng.integers(0, 3, 120).astype(float)
    classes = CARTGrower(X, y, n_categories=[4, 0, 30])
    values = CARTGrower(X, y + rng.normal(size=120), regression=True, n_categories=[4, 0, 30])
    for criterion, grower in (("gini", classes), ("squared_error", values)):
        for options in ((None, None, "best", 0), (2, 5, "best", 0), (None, None, "random", 0), (None, None, "best", 3)):
            for w in (np.ones(120), weight):
                grower.grow_arrays(GrowthParams(criterion, None, 2, 1, 0.0, *options), w, 0)

    def has_array(t):
        if isinstance(t, types.Array):
            return True
        return isinstance(t, types.BaseTuple) and any(has_array(u) for u in t.types)

    compiled = 0
    for module in (_categorical_split, _criterion, _level_split, _splitter, _surrogate):
        for name, kernel in vars(module).items():
            if not isinstance(kernel, CPUDispatcher):
                continue
            if kernel.targetoptions.get("_nrt", True):
                continue
            for result in kernel.overloads.values():
                compiled += 1
                if has_array(result.signature.return_type):
                    print("RETURNS", name, result.signature.return_type)
    print("COMPILED", compiled)
    """
)


def test_kernels_without_refcounts_return_no_array(tmp_path):
    # A fresh per-user cache and no shipped cache (an installed package has one): every kernel compiles here.
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path), PRUNUS_SHIPPED_KERNELS="0")
    env.pop("PRUNUS_KERNEL_CACHE_BUILD", None)
    out = subprocess.run(
        [sys.executable, "-c", _FRESH_COMPILE], env=env, capture_output=True, text=True, check=True
    ).stdout
    lines = out.splitlines()
    assert lines[-1].startswith("COMPILED")
    assert int(lines[-1].split()[1]) >= 10
    assert lines[:-1] == []
