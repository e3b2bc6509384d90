"""Optional dependencies: imported where needed, with an error naming the extra that provides them."""

from __future__ import annotations

import importlib

#: module -> (extra, what the message suggests installing)
_EXTRAS = {"matplotlib": "plot"}


def require(module: str, purpose: str):
    """Import ``module`` or raise an ImportError naming the prunus extra that installs it.

    Parameters
    ----------
    module : str
        e.g. ``"matplotlib.pyplot"``.
    purpose : str
        What needs it, for the message (e.g. ``"plot_tree"``).
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        top = module.split(".")[0]
        extra = _EXTRAS.get(top, "all")
        raise ImportError(
            f"{purpose} needs {top}, which comes with the optional extra '{extra}': "
            f'pip install "prunus[{extra}]" (in a checkout: pip install -e ".[{extra}]")'
        ) from exc


def pyplot(purpose: str):
    """``matplotlib.pyplot``, or an ImportError naming the ``plot`` extra."""
    return require("matplotlib.pyplot", purpose)
