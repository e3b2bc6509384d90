"""First use of a fresh install: time to the first fit in a new process, cold and warm.

Builds a wheel of prunus (``pip wheel``, the package's own build, which
compiles the shipped kernels), installs it without dependencies into a fresh
temporary folder, and times, for each estimator, a new Python process that
imports the library, loads scikit-learn's breast_cancer (569 rows) and fits
once:

- **cold**: fresh install, empty per-user numba cache (a new ``NUMBA_CACHE_DIR``
  for every estimator, so that no estimator profits from another's run);
- **warm**: a second process on the same cache.

scikit-learn's estimators are timed by the same script for comparison. Each
time is the best of ``--repeat`` runs (for cold runs, each on a new empty cache).

    python benchmarks/bench_cold_start.py                      # this checkout
    python benchmarks/bench_cold_start.py --source ../other    # another checkout (e.g. before a change)
    python benchmarks/bench_cold_start.py --wheel dist/prunus-0.1.0-cp311-cp311-linux_x86_64.whl

``--steady``: steady-state speed of the shipped code (compiled for the generic
CPU of the platform) against code compiled by numba for this host's CPU
(``PRUNUS_SHIPPED_KERNELS=0``), on the prunus found on ``sys.path`` (e.g.
``PYTHONPATH=src`` after ``python -m prunus._warmup --build``). Each mode runs
in its own process, the two alternate ``--repeat`` times, and each fit is the
best of its repeats after a first fit that loads or compiles the kernels (needs
``prunus data fetch letter satimage``).
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import tempfile
import time

ESTIMATORS = {
    "CARTClassifier(selection='cv')": "from prunus import CARTClassifier as E; est = E(selection='cv')",
    "ExactBoostClassifier(n_estimators=20, max_depth=3)": (
        "from prunus import ExactBoostClassifier as E; est = E(n_estimators=20, max_depth=3)"
    ),
    "PACBayesTreeClassifier(partition='kd')": (
        "from prunus import PACBayesTreeClassifier as E; est = E(partition='kd')"
    ),
    "PACBayesForestClassifier(n_estimators=20)": (
        "from prunus import PACBayesForestClassifier as E; est = E(n_estimators=20)"
    ),
    "sklearn GridSearchCV(DecisionTreeClassifier)": (
        "from sklearn.model_selection import GridSearchCV; from sklearn.tree import DecisionTreeClassifier; "
        "est = GridSearchCV(DecisionTreeClassifier(random_state=0), {'ccp_alpha': [0.0, 0.001, 0.01, 0.1]})"
    ),
    "sklearn AdaBoostClassifier": "from sklearn.ensemble import AdaBoostClassifier as E; est = E()",
    "sklearn RandomForestClassifier": "from sklearn.ensemble import RandomForestClassifier as E; est = E()",
}

SCRIPT = """
from sklearn.datasets import load_breast_cancer
{make}
X, y = load_breast_cancer(return_X_y=True)
est.fit(X, y)
"""


def _run(code: str, env: dict) -> float:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], env=env, check=True)
    return time.perf_counter() - t0


def build_wheel(source: str, out: str) -> str:
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", out, source], check=True)
    (wheel,) = glob.glob(os.path.join(out, "prunus-*.whl"))
    print(f"built {os.path.basename(wheel)} in {time.perf_counter() - t0:.0f} s", flush=True)
    return wheel


STEADY = """
import json, sys, time
import numpy as np
from prunus import CARTClassifier, ExactBoostClassifier, PACBayesForestClassifier, PACBayesTreeClassifier, grow_cart
from prunus.datasets import load

letter, sat = load("letter"), load("satimage")
XL, yL = letter.X[:18000], letter.y[:18000]
XS, yS = sat.X[:4435], sat.y[:4435]
fits = {
    "grow_cart letter": lambda: grow_cart(XL, yL),
    "CARTClassifier(selection='cv') letter": lambda: CARTClassifier(selection="cv", random_state=0).fit(XL, yL),
    "ExactBoost adaptive 50 rounds satimage": lambda: ExactBoostClassifier(n_estimators=50, random_state=0).fit(XS, yS),
    "ExactBoost quick 50 rounds satimage": lambda: ExactBoostClassifier(
        n_estimators=50, split_search="quick", random_state=0).fit(XS, yS),
    "PACBayesTree(kd) letter": lambda: PACBayesTreeClassifier(partition="kd", random_state=0).fit(XL, yL),
    "PACBayesForest(20 trees) letter": lambda: PACBayesForestClassifier(n_estimators=20, random_state=0).fit(XL, yL),
}
out = {}
for name, fit in fits.items():
    fit()
    best = np.inf
    for _ in range(int(sys.argv[1])):
        t0 = time.perf_counter(); fit(); best = min(best, time.perf_counter() - t0)
    out[name] = best
print(json.dumps(out))
"""


def steady(repeat: int) -> None:
    import json

    modes = {"host JIT": "0", "shipped generic": "1"}
    best: dict = {m: {} for m in modes}
    for _ in range(repeat):
        for mode, switch in modes.items():
            env = dict(os.environ, PRUNUS_SHIPPED_KERNELS=switch)
            out = subprocess.run(
                [sys.executable, "-c", STEADY, "2"], env=env, check=True, capture_output=True, text=True
            ).stdout
            for name, sec in json.loads(out.strip().splitlines()[-1]).items():
                best[mode][name] = min(best[mode].get(name, float("inf")), sec)
    print(f"{'fit (best time)':42s} {'host JIT':>9s} {'generic':>9s} {'generic/host':>13s}")
    for name in best["host JIT"]:
        h, g = best["host JIT"][name], best["shipped generic"][name]
        print(f"{name:42s} {h:8.3f}s {g:8.3f}s {g / h:12.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--source", default=os.path.join(os.path.dirname(__file__), ".."), help="checkout to build")
    parser.add_argument("--wheel", help="install this wheel instead of building one")
    parser.add_argument("--repeat", type=int, default=3, help="best of this many runs")
    parser.add_argument("--only", help="time only the estimators whose name contains this")
    parser.add_argument("--steady", action="store_true", help="steady-state speed: shipped generic vs host JIT")
    args = parser.parse_args()
    if args.steady:
        steady(args.repeat)
        return

    with tempfile.TemporaryDirectory(prefix="prunus-cold-") as tmp:
        wheel = args.wheel or build_wheel(os.path.abspath(args.source), os.path.join(tmp, "dist"))
        site = os.path.join(tmp, "site")
        subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target", site, wheel], check=True)
        env = dict(os.environ, PYTHONPATH=site, PYTHONDONTWRITEBYTECODE="1")
        env.pop("NUMBA_DISABLE_JIT", None)
        print(f"{'new process: imports, data loading and first fit':55s} {'cold':>8s} {'warm':>8s}", flush=True)
        for name, make in ESTIMATORS.items():
            if args.only and args.only not in name:
                continue
            code = SCRIPT.format(make=make)
            cold, warm = [], []
            for _ in range(args.repeat):
                with tempfile.TemporaryDirectory(prefix="numba-", dir=tmp) as cache:
                    env["NUMBA_CACHE_DIR"] = cache
                    cold.append(_run(code, env))
                    warm.append(_run(code, env))
            print(f"{name:55s} {min(cold):7.2f}s {min(warm):7.2f}s", flush=True)


if __name__ == "__main__":
    main()
