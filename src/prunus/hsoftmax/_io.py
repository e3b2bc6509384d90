"""One-file save / load of the hsoftmax estimators, readable with ``torch.load(..., weights_only=True)``.

A saved file is a dict of plain Python values (int, float, str, bool, None,
lists, tuples, dicts) and CPU tensors: no pickled classes, so loading it runs
no code from the file.
"""

from __future__ import annotations

import numpy as np
import torch

VERSION = 1


def plain(value):
    """``value`` with numpy scalars / arrays turned into Python values and tensors moved to the CPU."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(plain(v) for v in value)
    if isinstance(value, torch.Tensor):
        return value.detach().cpu()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    return None  # e.g. a RandomState: not reproducible from a file, saved as None


def cpu_state(module):
    """``module.state_dict()`` with every tensor on the CPU."""
    return {k: (v.detach().cpu() if isinstance(v, torch.Tensor) else v) for k, v in module.state_dict().items()}


def save_payload(path, kind, payload):
    torch.save(dict(format=kind, version=VERSION, **payload), path)


def load_payload(path, kind):
    """The dict saved by :func:`save_payload`, loaded with ``weights_only=True``; ValueError if it is not a ``kind``."""
    payload = torch.load(path, map_location="cpu", weights_only=True)
    if not isinstance(payload, dict) or payload.get("format") != kind:
        found = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
        raise ValueError(f"path does not hold a saved {kind} (found {found!r}).")
    if payload.get("version") != VERSION:
        raise ValueError(
            f"path holds a {kind} of format version {payload.get('version')!r}; this prunus reads version {VERSION}."
        )
    return payload
