"""The documentation keeps up with the code: every public name is in the API reference."""

import importlib
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


def _validated_objects():
    """The estimators and methods docs/conf.py validates with numpydoc, as dotted names."""
    import re

    conf = (DOCS / "conf.py").read_text()
    estimators = re.findall(r'"(\w+)",', conf.split("VALIDATED_ESTIMATORS = (", 1)[1].split(")", 1)[0])
    methods = re.findall(r'"(\w+)",', conf.split("VALIDATED_METHODS = (", 1)[1].split(")", 1)[0])
    names = []
    for module in MODULES:
        if module == "prunus.hsoftmax" and importlib.util.find_spec("torch") is None:
            continue
        mod = importlib.import_module(module)
        for est in estimators:
            if est in getattr(mod, "__all__", ()):
                cls = getattr(mod, est)
                names.append(f"{module}.{est}")
                # Methods documented on the class page: defined by the class itself.
                names.extend(f"{module}.{est}.{m}" for m in methods if m in vars(cls))
    return names


def test_estimator_docstrings_pass_numpydoc_validation():
    """Every parameter described; Returns and See Also on fit / predict / predict_proba / apply ..."""
    pytest.importorskip("numpydoc")
    from numpydoc.validate import validate

    checks = {"PR01", "PR02", "PR07", "RT01", "SA01"}
    names = _validated_objects()
    assert len(names) >= 30
    errors = []
    for name in names:
        for code, message in validate(name)["errors"]:
            if code in checks:
                errors.append(f"{name}: {code} {message}")
    assert not errors, "\n".join(errors)
