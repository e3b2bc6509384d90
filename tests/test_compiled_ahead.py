"""The kernels ship compiled: a first fit in a fresh process compiles nothing.

Each estimator is fitted once in a new Python process whose per-user numba
cache is an empty folder, so that every kernel it runs comes from the shipped
cache (``prunus/_kernel_cache``, written by the package build) or is compiled
there and then, which numba reports as a ``numba:compile`` event.
"""

import json
import os
import subprocess
import sys

import pytest

from prunus._compiled import SHIPPED_CACHE_DIR, shipped_cache_built

pytestmark = pytest.mark.skipif(
    not shipped_cache_built(),
    reason=(
        f"the shipped kernel cache is not built ({SHIPPED_CACHE_DIR}): build it with "
        "`python -m prunus._warmup --build` (or `pip install -e .`)"
    ),
)

# Independent of prunus._warmup.PATHS on purpose: this is what users run.
FIRST_FITS = {
    "CARTClassifier": "CARTClassifier()",
    "CARTClassifier cv": "CARTClassifier(selection='cv', n_jobs=2)",
    "CARTClassifier entropy, slope": "CARTClassifier(criterion='entropy', selection='slope')",
    "ExactBoostClassifier": "ExactBoostClassifier(n_estimators=5)",
    "ExactBoostClassifier quick, bounds": "ExactBoostClassifier(n_estimators=5, split_search='quick', track_bounds=True)",
    "ExactBoostClassifier exhaustive, entropy": "ExactBoostClassifier(n_estimators=5, split_search='exhaustive', criterion='entropy')",
    "PACBayesTreeClassifier dyadic": "PACBayesTreeClassifier()",
    "PACBayesTreeClassifier kd": "PACBayesTreeClassifier(partition='kd')",
    "PACBayesTreeClassifier cart": "PACBayesTreeClassifier(partition='cart')",
    "PenalizedTreeClassifier": "PenalizedTreeClassifier(partition='kd')",
    "HSVoteClassifier": "HSVoteClassifier()",
    "PACBayesForestClassifier": "PACBayesForestClassifier(n_estimators=5)",
    "PACBayesForestClassifier random": "PACBayesForestClassifier(n_estimators=5, splitter='random', bootstrap=True)",
}

_SCRIPT = """
import json, sys
from prunus._warmup import CompileRecorder
from sklearn.datasets import load_breast_cancer
import prunus

X, y = load_breast_cancer(return_X_y=True)
X, y = X[:300], y[:300]
compiled = {}
for name, make in json.loads(sys.argv[1]).items():
    est = eval("prunus." + make)
    with CompileRecorder() as rec:
        est.fit(X, y)
        est.predict_proba(X)
    compiled[name] = sorted({k for k, _, _ in rec.compiled})
print(json.dumps(compiled))
"""


def test_first_fits_compile_no_kernel(tmp_path):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    for var in ("NUMBA_DISABLE_JIT", "NUMBA_CPU_NAME", "NUMBA_CPU_FEATURES", "PRUNUS_KERNEL_CACHE_BUILD"):
        env.pop(var, None)
    out = subprocess.run(
        [sys.executable, "-c", _SCRIPT, json.dumps(FIRST_FITS)], env=env, capture_output=True, text=True, check=True
    )
    compiled = json.loads(out.stdout.strip().splitlines()[-1])
    assert set(compiled) == set(FIRST_FITS)
    missing = {name: kernels for name, kernels in compiled.items() if kernels}
    assert not missing, (
        "kernels compiled at run time although prunus ships them compiled: the shipped cache is stale "
        "(rebuild: python -m prunus._warmup --build) or prunus._warmup.PATHS misses a code path: "
        f"{json.dumps(missing, indent=1)}"
    )
