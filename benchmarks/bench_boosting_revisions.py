"""ExactBoostClassifier fit times of two revisions of the library, side by side.

Each revision is checked out into a temporary git worktree and timed in its
own child process (numba's cache is per checkout, so each compiles its own
kernels once, before timing). The children alternate, ``--passes`` times,
and the best CPU time of all ``--repeat`` x ``--passes`` fits is kept, so
that a slow moment of a shared machine does not count against one side.
Only parameters both revisions know are passed: the split strategies are
spelled out in full rather than relying on either revision's defaults.

``python benchmarks/bench_boosting_revisions.py OLD NEW [--rounds 100] [--depth 3] [--repeat 5] [--passes 2]``
(revisions as git understands them, e.g. a commit id and ``HEAD``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATASETS = ("satimage", "spam", "letter", "digits", "breast_cancer", "wine", "iris", "synthetic20")
STRATEGIES = {
    "exhaustive": dict(split_search="exhaustive"),
    "quick": dict(split_search="quick", quick_init=0.9, quick_batches=20),
    "Algorithm 1": dict(split_search="adaptive", adaptive_rule="gap", min_batch=1, adaptive_init=0.5),
    "lower-first": dict(
        split_search="adaptive", adaptive_rule="lower_first", adaptive_target=0.9, min_batch=1, adaptive_init=0.5
    ),
}

# Run inside a child whose PYTHONPATH is one revision's ``src``: prints one JSON line of
# {dataset: {strategy: [best CPU seconds, assessments]}}.
CHILD = r"""
import json, sys, time
sys.path.insert(0, {bench!r})
from bench_boosting import split
from prunus.boosting import ExactBoostClassifier
cfg = json.loads({cfg!r})
out = {{}}
for name in cfg["datasets"]:
    X, y, _, _ = split(name)
    out[name] = {{}}
    for label, kw in cfg["strategies"].items():
        make = lambda: ExactBoostClassifier(n_estimators=cfg["rounds"], max_depth=cfg["depth"], **kw)
        make().fit(X[:50], y[:50])  # compile (or load) the kernels outside the timing
        best = float("inf")
        for _ in range(cfg["repeat"]):
            c0 = time.process_time()
            est = make().fit(X, y)
            best = min(best, time.process_time() - c0)
        out[name][label] = [best, int(est.assessments_.sum())]
print(json.dumps(out))
"""


def checkout(revision, where):
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "-f", "--detach", where, revision], check=True)
    return Path(where) / "src"


def run_child(src, cfg):
    code = CHILD.format(bench=str(ROOT / "benchmarks"), cfg=json.dumps(cfg))
    env = dict(os.environ, PYTHONPATH=str(src))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--passes", type=int, default=2)
    parser.add_argument("--datasets", nargs="+", default=list(DATASETS))
    args = parser.parse_args(argv)
    cfg = dict(datasets=args.datasets, strategies=STRATEGIES, rounds=args.rounds, depth=args.depth, repeat=args.repeat)
    with tempfile.TemporaryDirectory() as tmp:
        srcs = {rev: checkout(rev, f"{tmp}/{k}") for k, rev in enumerate((args.old, args.new))}
        try:
            best = {}
            for _ in range(args.passes):
                for rev, src in srcs.items():
                    res = run_child(src, cfg)
                    for name, row in res.items():
                        for label, (sec, count) in row.items():
                            prev = best.get((rev, name, label), (float("inf"), count))
                            best[(rev, name, label)] = (min(prev[0], sec), count)
        finally:
            for k in range(2):
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", f"{tmp}/{k}"], check=False)
    print(f"best CPU seconds of {args.repeat * args.passes} fits, {args.rounds} rounds, depth {args.depth}")
    print(
        f"{'dataset':14s} {'strategy':12s} {args.old[:10]:>10s} {args.new[:10]:>10s} {'new/old':>8s} same assessments"
    )
    for name in args.datasets:
        for label in STRATEGIES:
            t_old, a_old = best[(args.old, name, label)]
            t_new, a_new = best[(args.new, name, label)]
            print(f"{name:14s} {label:12s} {t_old:10.3f} {t_new:10.3f} {t_new / t_old:8.3f} {a_old == a_new}")


if __name__ == "__main__":
    main()
