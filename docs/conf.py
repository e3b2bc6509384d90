"""Sphinx configuration: ``sphinx-build -W -b html docs docs/_build`` (warnings are errors)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).parent
sys.path.insert(0, str(HERE.parent / "src"))
os.environ.setdefault("MPLBACKEND", "Agg")

import prunus  # noqa: E402
from prunus.cli import build_parser  # noqa: E402

project = "prunus"
author = "the prunus developers"
copyright = "the prunus developers"
release = version = prunus.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx-mathjax-offline",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]

autosummary_generate = True
autodoc_default_options = {"inherited-members": False}
numpydoc_show_class_members = False
numpydoc_show_inherited_class_members = False
numpydoc_class_members_toctree = False
# numpydoc validates the estimators during the build (warnings are errors): every parameter
# described (PR01, PR02, PR07), and Returns (RT01) and See Also (SA01) on the methods a user calls.
# tests/test_docs.py runs the same validation without a build.
numpydoc_validation_checks = {"PR01", "PR02", "PR07", "RT01", "SA01"}
VALIDATED_ESTIMATORS = (
    "CARTClassifier",
    "CARTRegressor",
    "PACBayesTreeClassifier",
    "PenalizedTreeClassifier",
    "HSVoteClassifier",
    "PACBayesForestClassifier",
    "ExactBoostClassifier",
    "TreeSoftmaxClassifier",
    "TreeLanguageModel",
    "DaskCARTClassifier",
    "DaskCARTRegressor",
    "DaskPACBayesTreeClassifier",
)
VALIDATED_METHODS = (
    "fit",
    "predict",
    "predict_proba",
    "predict_log_proba",
    "apply",
    "decision_path",
    "decision_function",
    "score",
)
# Everything else is left out of the validation (the names that do NOT match the estimators and methods).
numpydoc_validation_exclude = {
    rf"^(?!prunus\.[a-z_.]+\.({'|'.join(VALIDATED_ESTIMATORS)})(\.({'|'.join(VALIDATED_METHODS)}))?$)"
}

templates_path = ["_templates"]

# Docstrings write the size of a tree as |T|, |T_k|, |T0| (the papers' notation); in reStructuredText
# that would be a substitution, so each one stands for itself.
rst_prolog = "\n".join(f".. |{name}| replace:: \\|{name}\\|" for name in ("T", "T_k", "T0", "T_max")) + "\n"
exclude_patterns = [
    "_build",
    "Thumbs.db",
    ".DS_Store",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.json",
    "auto_examples/*.md5",
]

# Formulas render without a network: MathJax 3 (SVG output, so no web fonts are loaded) is copied
# from the sphinx-mathjax-offline package (the ``docs`` extra) into the built site's _static/mathjax.
# ``tools/check_offline_docs.py`` fails the build of a page that loads a script, style or font from
# another site.
# (Set in setup() below: the extension's own setup would otherwise choose tex-chtml.js.)
MATHJAX_PATH = "mathjax/tex-svg.js"

html_theme = "pydata_sphinx_theme"
html_title = f"prunus {version}"
html_theme_options = {"navigation_with_keys": False}
html_static_path: list[str] = []

sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    # The execution-times page loads jQuery, DataTables and Bootstrap from other sites.
    "write_computation_times": False,
}


def _write_cli_help(app):
    """docs/_generated/cli/*.txt: the command line's own --help texts (so the CLI page cannot go stale)."""
    os.environ["COLUMNS"] = "88"  # argparse wraps to the terminal width
    out = HERE / "_generated" / "cli"
    out.mkdir(parents=True, exist_ok=True)
    parser = build_parser()
    subs = {}
    for action in parser._actions:
        if action.__class__.__name__ == "_SubParsersAction":
            subs = action.choices
    texts = {"prunus": parser.format_help()}
    for name, sub in subs.items():
        texts[f"prunus-{name}"] = sub.format_help()
        for action in sub._actions:
            if action.__class__.__name__ == "_SubParsersAction":
                for inner, parser_ in action.choices.items():
                    texts[f"prunus-{name}-{inner}"] = parser_.format_help()
    for name, text in texts.items():
        path = out / f"{name}.txt"
        if not path.exists() or path.read_text() != text:
            path.write_text(text)


_SKLEARN_PLUMBING = {"get_params", "set_params", "get_metadata_routing", "set_output"}


def _skip_member(app, what, name, obj, skip, options):
    """Leave scikit-learn's plumbing (``set_*_request``, ``get_params``...) out of the estimators' pages."""
    if name in _SKLEARN_PLUMBING or (name.startswith("set_") and name.endswith("_request")):
        return True
    return None


def setup(app):
    app.config.mathjax_path = MATHJAX_PATH
    app.connect("builder-inited", _write_cli_help)
    app.connect("autodoc-skip-member", _skip_member)
