"""The ``prunus`` command line: datasets and paper reproductions.

Thin by design: it parses arguments and calls :mod:`prunus.datasets` and
:mod:`prunus.experiments`.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import NoReturn

from . import __version__

#: How ``prunus data list`` names each kind of source.
_KIND_LABEL = {"bundled": "bundled", "synthetic": "synthetic", "fetched": "download"}


def _cmd_data_list(args: argparse.Namespace) -> int:
    from . import datasets

    rows = [("NAME", "KIND", "STATUS", "DESCRIPTION")]
    problems = []
    for name in datasets.list_datasets():
        spec = datasets.get_spec(name)
        status = datasets.cache_status(name)
        rows.append((name, _KIND_LABEL.get(spec.kind, spec.kind), status, spec.description))
        if status != "ready":
            problems.append((name, status))
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    for row in rows:
        print("  ".join(f"{cell:<{w}}" for cell, w in zip(row[:3], widths)) + "  " + row[3])
    missing = [n for n, st in problems if st == "missing"]
    if missing:
        print(
            f"\nmissing: not in the cache ({datasets.data_home()}); fetch with: prunus data fetch {' '.join(missing)}"
        )
    for name, status in problems:
        if status == "corrupted":
            print(f"corrupted: {name}: a cached file fails its SHA-256 check; repair with: prunus data fetch {name}")
    return 0


def _cmd_data_fetch(args: argparse.Namespace) -> int:
    from . import datasets

    if args.all:
        names = datasets.list_datasets(kind="fetched")
    elif args.names:
        names = args.names
        for name in names:  # every name is checked before anything is fetched
            try:
                datasets.get_spec(name)
            except ValueError as exc:
                raise UsageError(str(exc)) from None
    else:
        raise UsageError("name the datasets to fetch (see: prunus data list) or pass --all")
    missing_extra = []
    for name in names:
        spec = datasets.get_spec(name)
        if spec.fetch is None:
            print(f"{name}: {spec.kind}, nothing to fetch")
            continue
        status = "forced" if args.force else datasets.cache_status(name)
        if status != "ready":
            # A download takes seconds: say what is happening before it starts.
            why = " (the cached file is corrupted)" if status == "corrupted" else ""
            print(f"{name}: fetching{why} ({spec.source}) ...", flush=True)
        try:
            path = datasets.fetch(name, force=args.force)
        except ImportError as exc:
            if not args.all:
                raise
            # --all goes on with the others; the run still fails at the end.
            print(f"{name}: skipped: {_one_line(exc)}", file=sys.stderr)
            missing_extra.append(name)
            continue
        print(f"{name}: {path}")
    return 1 if missing_extra else 0


def _cmd_reproduce(args: argparse.Namespace) -> int:
    # Every argument is checked before any work (and before connecting to a cluster).
    args.out_dir = _check_out(args.out)
    if args.data is not None:
        _check_data(args.data, args.paper)
    if args.scheduler is None:
        return _reproduce(args)
    import joblib

    from .distributed import connect

    client = connect(args.scheduler)
    try:
        workers = len(client.scheduler_info()["workers"])
        print(f"[prunus] Dask scheduler {client.scheduler.address} ({workers} workers)", flush=True)
        # The experiments' joblib loops (grids of fits, CV folds) become tasks on the cluster.
        with joblib.parallel_backend("dask"):
            return _reproduce(args)
    finally:
        client.close()


def _reproduce(args: argparse.Namespace) -> int:
    from .experiments import PAPERS, get_runner

    mode = "full" if args.full else "quick"
    papers = [args.paper] if args.paper else list(PAPERS)
    out = args.out_dir if getattr(args, "out_dir", None) is not None else _check_out(args.out)
    reports = []
    times = {}
    for paper in papers:
        start = time.perf_counter()
        target = out / paper if len(papers) > 1 or args.paper is None else out
        print(f"[prunus] reproducing {paper} ({mode}) -> {target}", flush=True)
        extra = {"data": args.data} if getattr(args, "data", None) else {}
        path = get_runner(paper)(mode=mode, out=target, progress=not args.no_progress, **extra)
        times[paper] = time.perf_counter() - start
        print(f"[prunus] {paper}: wrote {path} in {times[paper]:.1f} s", flush=True)
        reports.append((paper, path))
    if len(reports) > 1:
        index = out / "report.md"
        index.write_text(_index_page(out, mode, reports, times))
        print(f"[prunus] index: {index}")
    return 0


def _index_page(out: Path, mode: str, reports: list, times: dict) -> str:
    """The page a reader opens first: each paper's headline claims, the paper's number, ours, and links."""
    import json

    from .experiments._report import CLAIMS

    lines = [
        "# prunus: the four papers reproduced\n",
        f"Mode `{mode}`. Each row is a headline claim of a paper: what the paper reports, what this run "
        "measured, and whether the claim holds here; the linked reports hold the tables, figures and settings.\n",
        "| paper | claim | paper's number | here | holds here |",
        "|---|---|---|---|---|",
    ]
    links = []
    for paper, report in reports:
        # relpath of resolved paths: a runner may return an absolute path while
        # --out is relative (Path.relative_to would raise after all the work).
        rel = Path(os.path.relpath(Path(report).resolve(), out.resolve())).as_posix()
        claims_file = Path(report).parent / CLAIMS
        data = json.loads(claims_file.read_text()) if claims_file.is_file() else {"title": paper, "claims": []}
        title = PAPER_TITLES.get(paper, data.get("title", paper))
        for claim in data["claims"]:
            lines.append(
                f"| [{paper}]({rel}) | {claim['claim']} | {claim['paper']} | {claim['ours']} | {claim['holds']} |"
            )
        if not data["claims"]:
            lines.append(f"| [{paper}]({rel}) | the report states no headline claim | see the report | | |")
        links.append(f"- [{paper}]({rel}): {title} ({times[paper]:.0f} s)")
    lines += ["", "## Reports", "", *links, ""]
    return "\n".join(lines)


class UsageError(Exception):
    """A command line that cannot be run as given (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    """argparse with one-line usage errors (exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {message} (see: {self.prog} --help)\n")


def _one_line(exc: BaseException) -> str:
    """An exception's message on one line (tool output such as apt-get's may span several)."""
    return " ".join(line.strip() for line in str(exc).splitlines() if line.strip()) or type(exc).__name__


def _check_out(value: str) -> Path:
    """``--out`` as a writable directory, created if needed; a :class:`UsageError` otherwise."""
    out = Path(value)
    if out.exists() and not out.is_dir():
        raise UsageError(f"argument --out: {out} exists and is not a directory")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"argument --out: cannot create directory {out}: {exc.strerror or exc}") from None
    try:
        with tempfile.TemporaryFile(dir=out):
            pass
    except OSError as exc:
        raise UsageError(f"argument --out: cannot write in {out}: {exc.strerror or exc}") from None
    return out


def _check_data(value: str, paper: str | None) -> Path:
    """``--data`` as a readable LIBSVM-format file of the boosting paper; a :class:`UsageError` otherwise.

    Only the file's first example line is read: a file that is not LIBSVM text
    is refused here, before any computation.
    """
    if paper != "boosting":
        raise UsageError("argument --data: for the boosting paper only (prunus reproduce boosting --data PATH)")
    path = Path(value)
    if not path.exists():
        raise UsageError(f"argument --data: {path}: no such file")
    if not path.is_file():
        raise UsageError(f"argument --data: {path}: not a file")
    try:
        with path.open("rb") as handle:
            first = next((line for line in handle if line.strip() and not line.lstrip().startswith(b"#")), b"")
    except OSError as exc:
        raise UsageError(f"argument --data: cannot read {path}: {exc.strerror or exc}") from None
    fields = first.split(b"#", 1)[0].split()
    if not fields or not _is_number(fields[0]) or not all(b":" in f for f in fields[1:]):
        raise UsageError(f"argument --data: {path}: not a LIBSVM-format file (each line: label index:value ...)")
    return path


def _is_number(field: bytes) -> bool:
    try:
        float(field)
    except ValueError:
        return False
    return True


#: Paper titles shown by ``prunus reproduce --help``.
PAPER_TITLES = {
    "cart": "Gey, Risk bounds for CART classifiers under a margin condition",
    "pacbayes": "Nguyen & Kpotufe, PAC-Bayes tree: weighted subtrees with guarantees (NeurIPS 2018)",
    "boosting": "Aziz, Anderton & Aslam, Adaptively pruning features for boosted decision trees",
    "lm": "Jernite, Choromanska, Sontag & LeCun, Simultaneous learning of trees and representations "
    "for extreme classification, with application to language modeling",
}


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="prunus", description="Learning with decision trees with guarantees.")
    parser.add_argument("--version", action="version", version=f"prunus {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    data = sub.add_parser("data", help="list or fetch datasets", description="List or fetch datasets.")
    data_sub = data.add_subparsers(dest="data_command", required=True, metavar="COMMAND")
    data_sub.add_parser(
        "list",
        help="list the registered datasets and whether they are ready",
        description="List the registered datasets: name, kind (bundled with scikit-learn, synthetic, or "
        "download: fetched once into the cache), status (ready, missing, or corrupted: a cached "
        "file fails its SHA-256 check) and description. Verifies the cached files.",
    ).set_defaults(func=_cmd_data_list)
    fetch = data_sub.add_parser(
        "fetch",
        help="fetch datasets into the cache",
        description="Fetch datasets into the cache ($PRUNUS_DATA, default ~/.cache/prunus). A dataset whose "
        "cached file is missing or corrupted is fetched again; one that is ready is left alone "
        "unless --force.",
    )
    fetch.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help="a dataset name as listed by `prunus data list` (e.g. spam letter satimage); "
        "bundled and synthetic datasets need no fetch",
    )
    fetch.add_argument("--all", action="store_true", help="fetch every dataset of kind download")
    fetch.add_argument("--force", action="store_true", help="fetch again even if the cached file is ready")
    fetch.set_defaults(func=_cmd_data_fetch)

    from .experiments import PAPERS

    names = list(PAPERS)
    rep = sub.add_parser(
        "reproduce",
        help=f"reproduce a paper's tables and figures ({', '.join(names)})",
        description="Reproduce a paper's tables and figures into a Markdown report with its figures.",
        epilog="papers:\n" + "\n".join(f"  {k:<10} {PAPER_TITLES.get(k, k)}" for k in names),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rep.add_argument(
        "paper", nargs="?", choices=names, metavar="PAPER", help=f"one of {', '.join(names)} (default: all of them)"
    )
    size = rep.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="small settings, minutes (default)")
    size.add_argument("--full", action="store_true", help="the paper's settings")
    rep.add_argument(
        "--out", default="prunus-report", help="output directory, created if needed (default: prunus-report)"
    )
    rep.add_argument("--no-progress", action="store_true", help="hide progress bars")
    rep.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=None,
        help="run the reproduction's grids of fits (dataset x repetition x method) as tasks on a Dask "
        "cluster, with the same seeds and so the same tables: a scheduler address, or local:N to start "
        "N local worker processes (needs the dask extra; the workers need prunus, not the data)",
    )
    rep.add_argument("--data", metavar="PATH", help="boosting only: run the tables on this LIBSVM-format file")
    rep.set_defaults(func=_cmd_reproduce)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 ok, 1 failure, 2 usage error, 130 interrupted).

    Every error is one line on stderr, without a traceback (set
    ``PRUNUS_DEBUG=1`` to get the traceback of an unexpected error).
    """
    args = build_parser().parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("\n[prunus] interrupted", file=sys.stderr)
        return 130
    except UsageError as exc:
        print(f"prunus: error: {_one_line(exc)}", file=sys.stderr)
        return 2
    except ImportError as exc:
        # e.g. a paper needing an optional extra (torch): a message, not a traceback.
        # The extras' own messages say how to install them (torch: the CPU build first).
        hint = (
            ""
            if "pip install" in str(exc)
            else (' (an optional dependency is missing: pip install torch==2.13.0, then pip install -e ".[all]")')
        )
        print(f"prunus: error: {_one_line(exc)}{hint}", file=sys.stderr)
        return 1
    except (ValueError, RuntimeError, OSError) as exc:
        print(f"prunus: error: {_one_line(exc)}", file=sys.stderr)
        return 1
    except Exception as exc:
        if os.environ.get("PRUNUS_DEBUG"):
            raise
        print(
            f"prunus: error: {type(exc).__name__}: {_one_line(exc)} (PRUNUS_DEBUG=1 shows the traceback)",
            file=sys.stderr,
        )
        return 1


if __name__ == "__main__":
    sys.exit(main())
