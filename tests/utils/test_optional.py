"""Optional dependencies fail with a message naming the extra; light modules import without them."""

import subprocess
import sys

import pytest

import prunus.experiments
from prunus import cli
from prunus.utils._optional import pyplot


@pytest.fixture
def no_matplotlib(monkeypatch):
    """Make ``import matplotlib`` fail as it does where the ``plot`` extra is not installed."""
    for name in list(sys.modules):
        if name == "matplotlib" or name.startswith("matplotlib."):
            monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)


def test_pyplot_names_the_plot_extra(no_matplotlib):
    with pytest.raises(ImportError, match=r"^plot_tree needs matplotlib, .*extra 'plot'.*prunus\[plot\]"):
        pyplot("plot_tree")


def test_plot_tree_without_matplotlib(no_matplotlib):
    from prunus.tree import Tree, export_text

    tree = Tree([1, -1, -1], [2, -1, -1], [0, 0, 0], [0.5, 0.0, 0.0], 1)
    assert "x[0]" in export_text(tree)  # text needs no extra
    with pytest.raises(ImportError, match=r"prunus\[plot\]"):
        tree.plot()


def test_reproduce_without_matplotlib_fails_before_computing(no_matplotlib, monkeypatch, capsys, tmp_path):
    ran = []
    monkeypatch.setattr(prunus.experiments, "PAPERS", {"cart": "prunus_test_never_imported"})
    monkeypatch.setitem(sys.modules, "prunus_test_never_imported", type(sys)("x"))
    sys.modules["prunus_test_never_imported"].run = lambda **kw: ran.append(kw)
    assert cli.main(["reproduce", "cart", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and 'pip install "prunus[plot]"' in err and "torch" not in err
    assert ran == []


def test_light_imports_need_neither_pytest_nor_matplotlib():
    code = (
        "import sys\n"
        "sys.modules['pytest'] = None\n"
        "sys.modules['matplotlib'] = None\n"
        "import prunus, prunus.cli, prunus.datasets, prunus.experiments, prunus.utils._testing\n"
        "import prunus.experiments.cart, prunus.experiments.pacbayes, prunus.experiments.boosting\n"
        "from prunus import CARTClassifier, ExactBoostClassifier, PACBayesTreeClassifier\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "ok"
