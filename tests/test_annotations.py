"""Every public function and every public method of a public class is annotated.

The public API is what a user reaches without an underscore: the names in the
``__all__`` of prunus's public modules (a module whose dotted name has no part
starting with ``_``), and the functions and classes such a module defines.
Every parameter (but ``self`` / ``cls``) and the return carry an annotation;
mypy (``check_untyped_defs`` on the packages) then checks the bodies against
them.
"""

import importlib
import inspect
import pkgutil

import pytest

import prunus

# Optional extras: their modules are walked when the extra is installed.
_EXTRAS = {"prunus.hsoftmax": "torch"}


def _public_modules():
    names = ["prunus"]
    for info in pkgutil.walk_packages(prunus.__path__, "prunus."):
        if any(part.startswith("_") for part in info.name.split(".")):
            continue
        names.append(info.name)
    return sorted(names)


def _import(name):
    for prefix, extra in _EXTRAS.items():
        if name.startswith(prefix) and importlib.util.find_spec(extra) is None:
            return None
    return importlib.import_module(name)


def _defined_in_prunus(obj):
    return (getattr(obj, "__module__", None) or "").split(".")[0] == "prunus"


def _public_objects(module):
    """``(dotted name, object)`` of the public functions and classes of a module."""
    names = getattr(module, "__all__", None)
    if names is None:
        names = [
            n
            for n, obj in vars(module).items()
            if not n.startswith("_") and getattr(obj, "__module__", None) == module.__name__
        ]
    for name in names:
        obj = getattr(module, name)
        if (inspect.isfunction(obj) or inspect.isclass(obj)) and _defined_in_prunus(obj):
            yield f"{module.__name__}.{name}", obj


def _callables(name, obj):
    """The function itself, or every public method (and ``__init__``, ``__call__``) of a class
    defined by prunus: its own and those it inherits from prunus's classes."""
    if inspect.isfunction(obj):
        yield name, obj
        return
    seen = set()
    for klass in obj.__mro__:
        if not _defined_in_prunus(klass) or getattr(klass, "_fields", None) is not None:
            continue
        for attr, member in vars(klass).items():
            if attr in seen or (attr.startswith("_") and attr not in ("__init__", "__call__")):
                continue
            seen.add(attr)
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            elif isinstance(member, property):
                member = member.fget
            if inspect.isfunction(member) and _defined_in_prunus(member):
                yield f"{name}.{attr}", member


def _missing(func):
    """Names of what ``func`` leaves unannotated: parameters, and ``return``."""
    signature = inspect.signature(func)
    missing = [
        p.name
        for i, p in enumerate(signature.parameters.values())
        if p.annotation is inspect.Parameter.empty and not (i == 0 and p.name in ("self", "cls"))
    ]
    if signature.return_annotation is inspect.Signature.empty:
        missing.append("return")
    return missing


def public_callables():
    out = {}
    # Subpackages first: a name re-exported by ``prunus`` is reported under its subpackage.
    for module_name in sorted(_public_modules(), key=lambda name: (name == "prunus", name)):
        module = _import(module_name)
        if module is None:
            continue
        for name, obj in _public_objects(module):
            for qualname, func in _callables(name, obj):
                # A callable reached by several names is checked once, under the name of
                # the class (or function) that defines it where one is public.
                key = f"{func.__module__}.{func.__qualname__}"
                home = qualname.endswith("." + func.__qualname__)
                if key not in out or (home and not out[key][0].endswith("." + func.__qualname__)):
                    out[key] = (qualname, func)
    return sorted(out.values(), key=lambda item: item[0])


def test_the_walker_sees_the_public_api():
    names = {name for name, _ in public_callables()}
    for expected in (
        "prunus.tree.grow_cart",
        "prunus.tree.Tree.apply",
        "prunus.pruning.CARTClassifier.fit",
        "prunus.pruning.CARTClassifier.__init__",
        "prunus.datasets.load",
        "prunus.cli.main",
    ):
        assert expected in names, expected
    assert len(names) > 150


def test_every_public_callable_is_annotated():
    missing = [f"{name}: {', '.join(m)}" for name, func in public_callables() if (m := _missing(func))]
    assert not missing, f"{len(missing)} public callables lack annotations:\n" + "\n".join(missing)


def test_the_check_fails_on_an_unannotated_function():
    def annotated(x: int, *, y: str = "a") -> None:
        pass

    def bare(x, y: int = 1):
        pass

    assert _missing(annotated) == []
    assert _missing(bare) == ["x", "return"]


@pytest.mark.parametrize("module", ["prunus.tree", "prunus.pruning", "prunus.datasets"])
def test_public_modules_are_walked(module):
    assert module in _public_modules()
