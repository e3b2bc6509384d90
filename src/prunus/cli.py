"""The ``prunus`` command line: datasets and paper reproductions.

Thin by design: it parses arguments and calls :mod:`prunus.datasets` and
:mod:`prunus.experiments`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from . import __version__


def _cmd_data_list(args):
    from . import datasets

    rows = []
    for name in datasets.list_datasets():
        spec = datasets.get_spec(name)
        status = "ready" if datasets.is_available(name) else "not fetched"
        rows.append((name, spec.kind, status, spec.description))
    width = max(len(r[0]) for r in rows)
    for name, kind, status, desc in rows:
        print(f"{name:<{width}}  {kind:<9}  {status:<11}  {desc}")
    return 0


def _cmd_data_fetch(args):
    from . import datasets

    if args.all:
        names = datasets.list_datasets(kind="fetched")
    elif args.names:
        names = args.names
    else:
        print("prunus data fetch: name a dataset or pass --all", file=sys.stderr)
        return 2
    missing_extra = []
    for name in names:
        spec = datasets.get_spec(name)
        if spec.fetch is None:
            print(f"{name}: {spec.kind}, nothing to fetch")
            continue
        if args.force or not datasets.is_available(name):
            # A download takes seconds: say what is happening before it starts.
            print(f"{name}: fetching ({spec.source}) ...", flush=True)
        try:
            path = datasets.fetch(name, force=args.force)
        except ImportError as exc:
            if not args.all:
                raise
            # --all goes on with the others; the run still fails at the end.
            print(f"{name}: skipped: {exc}", file=sys.stderr)
            missing_extra.append(name)
            continue
        print(f"{name}: {path}")
    return 1 if missing_extra else 0


def _cmd_reproduce(args):
    from .experiments import PAPERS, get_runner

    mode = "full" if args.full else "quick"
    if args.data and args.paper != "boosting":
        print("prunus reproduce: --data PATH is for the boosting paper (prunus reproduce boosting --data PATH)",
              file=sys.stderr)
        return 2
    papers = [args.paper] if args.paper else list(PAPERS)
    out = Path(args.out)
    reports = []
    for paper in papers:
        start = time.perf_counter()
        target = out / paper if len(papers) > 1 or args.paper is None else out
        print(f"[prunus] reproducing {paper} ({mode}) -> {target}", flush=True)
        extra = {"data": args.data} if getattr(args, "data", None) else {}
        path = get_runner(paper)(mode=mode, out=target, progress=not args.no_progress, **extra)
        print(f"[prunus] {paper}: wrote {path} in {time.perf_counter() - start:.1f} s", flush=True)
        reports.append((paper, path))
    if len(reports) > 1:
        index = out / "report.md"
        lines = ["# prunus reproductions\n"]
        # relpath of resolved paths: a runner may return an absolute path while
        # --out is relative (Path.relative_to would raise after all the work).
        lines += [
            f"- [{p}]({Path(os.path.relpath(Path(r).resolve(), out.resolve())).as_posix()})"
            for p, r in reports
        ]
        index.write_text("\n".join(lines) + "\n")
        print(f"[prunus] index: {index}")
    return 0


def build_parser():
    parser = argparse.ArgumentParser(prog="prunus", description="Learning with decision trees with guarantees.")
    parser.add_argument("--version", action="version", version=f"prunus {__version__}")
    sub = parser.add_subparsers(dest="command", required=True)

    data = sub.add_parser("data", help="list or fetch datasets")
    data_sub = data.add_subparsers(dest="data_command", required=True)
    data_sub.add_parser("list", help="list registered datasets").set_defaults(func=_cmd_data_list)
    fetch = data_sub.add_parser("fetch", help="fetch datasets into the cache")
    fetch.add_argument("names", nargs="*", metavar="NAME")
    fetch.add_argument("--all", action="store_true", help="fetch every fetchable dataset")
    fetch.add_argument("--force", action="store_true", help="fetch again even if cached")
    fetch.set_defaults(func=_cmd_data_fetch)

    from .experiments import PAPERS

    rep = sub.add_parser("reproduce", help="reproduce a paper's tables and figures")
    rep.add_argument("paper", nargs="?", choices=list(PAPERS), help="paper to reproduce (default: all)")
    size = rep.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="small settings, minutes (default)")
    size.add_argument("--full", action="store_true", help="the paper's settings")
    rep.add_argument("--out", default="prunus-report", help="output directory (default: prunus-report)")
    rep.add_argument("--no-progress", action="store_true", help="hide progress bars")
    rep.add_argument("--data", metavar="PATH", help="boosting only: run the tables on this LIBSVM-format file")
    rep.set_defaults(func=_cmd_reproduce)
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("\n[prunus] interrupted", file=sys.stderr)
        return 130
    except ImportError as exc:
        # e.g. a paper needing an optional extra (torch): a message, not a traceback.
        # The extras' own messages say how to install them (torch: the CPU build first).
        hint = "" if "pip install" in str(exc) else (
            ' (an optional dependency is missing: pip install torch==2.13.0, then pip install -e ".[all]")'
        )
        print(f"prunus: error: {exc}{hint}", file=sys.stderr)
        return 1
    except (ValueError, RuntimeError, FileNotFoundError) as exc:
        print(f"prunus: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
