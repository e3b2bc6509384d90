"""The documentation keeps up with the code: every public name is in the API reference."""

import importlib
import inspect
from pathlib import Path

import pytest

DOCS = Path(__file__).parents[1] / "docs"
MODULES = [
    "prunus.tree",
    "prunus.pruning",
    "prunus.voting",
    "prunus.distributed",
    "prunus.boosting",
    "prunus.datasets",
    "prunus.hsoftmax",
]
# Re-exported helpers documented under their home module, and module objects.
NOT_LISTED = {"Bunch", "synthetic", "Vocabulary"}


@pytest.mark.parametrize("module", MODULES)
def test_every_public_name_is_in_the_api_reference(module):
    if module == "prunus.hsoftmax":
        pytest.importorskip("torch")
    api = (DOCS / "api.rst").read_text()
    section = api.split(f".. currentmodule:: {module}\n", 1)
    assert len(section) == 2, f"docs/api.rst has no section for {module}"
    listed = {line.strip() for line in section[1].split(".. currentmodule::")[0].splitlines()}
    missing = [
        name for name in importlib.import_module(module).__all__ if name not in listed and name not in NOT_LISTED
    ]
    assert not missing, f"add to the {module} section of docs/api.rst: {missing}"


def test_every_example_is_a_gallery_script():
    examples = sorted((DOCS.parent / "examples").glob("*.py"))
    assert examples, "examples/ feeds the gallery"
    for path in examples:
        assert path.name.startswith("plot_"), f"{path.name}: sphinx-gallery runs only plot_*.py"
        text = path.read_text()
        assert text.startswith('"""\n') and "\n===" in text.split('"""')[1], f"{path.name}: title docstring"


def _api_names():
    """``(module, name)`` of every entry of the autosummary lists of docs/api.rst."""
    import re

    out, module = [], None
    for line in (DOCS / "api.rst").read_text().splitlines():
        match = re.match(r"\.\. currentmodule:: (\S+)", line)
        if match:
            module = match.group(1)
        elif module and re.fullmatch(r"   [A-Za-z_]\w*", line):
            out.append((module, line.strip()))
    return out


def _rendered_members(cls):
    """The members a class page shows: public functions, properties and class / static methods
    defined by prunus (the class itself or a prunus base class; see _skip_member in docs/conf.py)."""
    seen, out = set(), []
    for klass in cls.__mro__:
        for name, member in vars(klass).items():
            if name.startswith("_") or name in seen:
                continue
            seen.add(name)
            func = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
            if inspect.isfunction(func) and (func.__module__ or "").startswith("prunus"):
                out.append(name)
    return sorted(out)


def _estimators_and_methods():
    """The estimators (and methods) on which See Also is required too, from docs/conf.py."""
    import re

    conf = (DOCS / "conf.py").read_text()
    estimators = re.findall(r'"(\w+)",', conf.split("VALIDATED_ESTIMATORS = (", 1)[1].split(")", 1)[0])
    methods = re.findall(r'"(\w+)",', conf.split("VALIDATED_METHODS = (", 1)[1].split(")", 1)[0])
    return set(estimators), set(methods)


def _validated_objects():
    """Dotted names of every object of the API reference and of the members its pages show,
    each with the numpydoc checks it must pass."""
    estimators, methods = _estimators_and_methods()
    out = []
    for module, name in _api_names():
        if module == "prunus.hsoftmax" and importlib.util.find_spec("torch") is None:
            continue
        obj = getattr(importlib.import_module(module), name)
        strict = name in estimators
        out.append((f"{module}.{name}", ALL_CHECKS | ({"SA01"} if strict else set())))
        if inspect.isclass(obj):
            for member in _rendered_members(obj):
                extra = {"SA01"} if strict and member in methods else set()
                out.append((f"{module}.{name}.{member}", ALL_CHECKS | extra))
    return out


#: What every object of the API reference must pass (docs/conf.py validates the same in the build).
ALL_CHECKS = {"GL08", "PR01", "PR02", "PR07", "RT01"}


def test_api_docstrings_pass_numpydoc_validation():
    """Every object of the API reference and every member on its page: a docstring, every
    parameter described, a Returns section; See Also too on the estimators' fit / predict /
    predict_proba / apply / score ..."""
    pytest.importorskip("numpydoc")
    from numpydoc.validate import validate

    objects = _validated_objects()
    assert len(objects) >= 200, len(objects)
    errors = []
    for name, checks in objects:
        for code, message in validate(name)["errors"]:
            if code in checks:
                errors.append(f"{name}: {code} {message}")
    assert not errors, f"{len(errors)} numpydoc errors:\n" + "\n".join(errors)


def test_every_estimator_documents_its_score():
    """``score`` is on every estimator's page with what it computes (R^2 for a regressor)."""
    from sklearn.base import ClassifierMixin, RegressorMixin

    checked = 0
    for module, name in _api_names():
        if module == "prunus.hsoftmax" and importlib.util.find_spec("torch") is None:
            continue
        obj = getattr(importlib.import_module(module), name)
        if not inspect.isclass(obj) or not issubclass(obj, (ClassifierMixin, RegressorMixin)):
            continue
        assert "score" in _rendered_members(obj), f"{name}.score is inherited from scikit-learn, not documented"
        doc = inspect.getdoc(obj.score)
        expected = "R^2" if issubclass(obj, RegressorMixin) else "accuracy"
        assert expected in doc.split("\n")[0], f"{name}.score: the summary line should say {expected}: {doc!r}"
        checked += 1
    assert checked >= 9
