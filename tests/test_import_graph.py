"""Data flows one way: datasets -> tree -> pruning / voting / boosting -> distributed / experiments -> CLI.

Every ``import`` of ``src/prunus`` (at module level or inside a function) is
read with ``ast``: the core packages never import ``prunus.distributed`` or
``prunus.experiments``, ``utils`` imports no other package of prunus, no
two packages import each other, directly or through others, and no two
modules of one package do.
"""

import ast
from pathlib import Path

import pytest

SRC = Path(__file__).parents[1] / "src" / "prunus"
CORE = ("tree", "pruning", "voting", "boosting", "hsoftmax", "datasets", "utils")
ABOVE = ("distributed", "experiments")


def _module_name(path, root=SRC):
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _imports(path, root=SRC):
    """``(line, imported module)`` of every import in ``path``, relative ones resolved."""
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            out.append((node.lineno, target))
            # ``from . import x`` / ``from .. import distributed`` import submodules by name.
            out.extend((node.lineno, f"{target}.{alias.name}") for alias in node.names)
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", None)) in (
            "import_module",
            "__import__",
        ):
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                out.append((node.lineno, node.args[0].value))
    return out


def _package(module):
    """Top-level package of prunus a module belongs to (``None`` outside prunus)."""
    parts = module.split(".")
    if parts[0] != "prunus":
        return None
    if len(parts) == 1:
        return "prunus"
    return parts[1] if (SRC / parts[1]).is_dir() or (SRC / f"{parts[1]}.py").exists() else None


def _graph():
    edges = {}
    for path in sorted(SRC.rglob("*.py")):
        src = _package(_module_name(path))
        for line, target in _imports(path):
            dst = _package(target)
            if dst is not None and dst != src and dst != "prunus":
                edges.setdefault(src, {}).setdefault(dst, []).append(f"{path.relative_to(SRC.parent)}:{line}")
    return edges


def test_core_never_imports_distributed_or_experiments():
    bad = []
    for path in sorted(SRC.rglob("*.py")):
        if _package(_module_name(path)) not in CORE:
            continue
        for line, target in _imports(path):
            if _package(target) in ABOVE:
                bad.append(f"{path.relative_to(SRC.parent)}:{line} imports {target}")
    assert not bad, "\n".join(bad)


def test_utils_stays_below_everything():
    edges = _graph().get("utils", {})
    assert not edges, edges


def test_no_import_cycle_between_packages():
    cycles = _cycles(_graph())
    assert not cycles, "\n".join(cycles)


def _module_path(module):
    """The file of a module of prunus (``None`` for a package's ``__init__`` or a name in a module)."""
    parts = module.split(".")
    if parts[0] != "prunus":
        return None
    path = SRC.parent.joinpath(*parts).with_suffix(".py")
    return path if path.is_file() else None


def _module_graph():
    """Imports between the modules of one package: ``{module: {imported module: [file:line]}}``.

    A name imported from a module (``from ._tree import Tree``) is an import of
    that module; a package's ``__init__`` (its face: it only hands names on) is
    not a node.
    """
    edges = {}
    for path in sorted(SRC.rglob("*.py")):
        if path.name == "__init__.py":
            continue
        src = _module_name(path)
        for line, target in _imports(path):
            while target and _module_path(target) is None and "." in target:
                target = target.rsplit(".", 1)[0]
            if _module_path(target) is None or target == src or _package(target) != _package(src):
                continue
            edges.setdefault(src, {}).setdefault(target, []).append(f"{path.relative_to(SRC.parent)}:{line}")
    return edges


def _cycles(edges):
    cycles = []

    def visit(node, path):
        for nxt in edges.get(node, {}):
            if nxt in path:
                cycle = path[path.index(nxt) :] + [nxt]
                cycles.append(" -> ".join(cycle) + "  (" + "; ".join(edges[node][nxt][:2]) + ")")
            else:
                visit(nxt, path + [nxt])

    for start in edges:
        visit(start, [start])
    return sorted(set(cycles))


def test_no_import_cycle_inside_a_package():
    """The modules of one package read one way too: shared names live in the lower module."""
    edges = _module_graph()
    assert edges.get("prunus.tree.cart", {}).get("prunus.tree._tree"), "the module graph misses cart -> _tree"
    cycles = _cycles(edges)
    assert not cycles, "\n".join(cycles)


def test_the_cycle_finder_sees_a_module_cycle():
    edges = {
        "p.a": {"p.b": ["a.py:1"]},
        "p.b": {"p.c": ["b.py:2"]},
        "p.c": {"p.a": ["c.py:3"]},
        "p.d": {"p.a": ["d.py:4"]},
    }
    assert len(_cycles(edges)) == 3  # the one circle, from each of its three modules
    assert all("p.d" not in c for c in _cycles(edges))


@pytest.mark.parametrize(
    "code, expected",
    [
        ("from ..distributed import node_counts", "prunus.distributed"),
        ("from .. import distributed", "prunus.distributed"),
        ("import prunus.experiments.cart", "prunus.experiments.cart"),
    ],
)
def test_the_reader_resolves_relative_and_lazy_imports(tmp_path, code, expected):
    """The walker itself: an import inside a function, relative or absolute, is seen."""
    pkg = tmp_path / "prunus" / "tree"
    pkg.mkdir(parents=True)
    path = pkg / "mod.py"
    path.write_text(f"def f():\n    {code}\n")
    assert expected in [target for _, target in _imports(path, tmp_path / "prunus")]
