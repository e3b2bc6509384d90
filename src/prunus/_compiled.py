"""``njit`` for prunus's kernels: machine code compiled when the package is built, loaded at run time.

Every kernel module imports ``njit`` from here instead of from numba. A kernel
declared with ``cache=True`` gets a cache that looks in two places:

1. the **shipped cache**, ``prunus/_kernel_cache/``, written by the package
   build (:mod:`prunus._warmup`) for the generic x86-64 CPU (code that runs on
   any CPU of the platform). Its entries are keyed portably: the content hash of
   the package's kernel modules, the kernel's bytecode, the argument types and
   the fixed tag of the CPU the code was compiled for, instead of numba's key
   with the host's CPU name and features. It is only ever read at run time.
2. numba's ordinary **per-user cache** (``NUMBA_CACHE_DIR``, ``__pycache__``
   beside a writable source tree, or ``~/.cache/numba``) with numba's ordinary
   host key: a signature the build did not compile, a kernel edited since the
   build or another numba version than the build's compiles on first use, as
   plain numba does, and is stored there for the next process.

``PRUNUS_SHIPPED_KERNELS=0`` in the environment turns the shipped cache off: every
kernel is then compiled for this host's CPU on first use (and cached per user),
which is what prunus did before it shipped compiled kernels.

Loading machine code needs no compiler and takes milliseconds per kernel;
compiling the same kernels takes seconds each. With ``PRUNUS_KERNEL_CACHE_BUILD=1``
in the environment (set by the warm-up, never by users) the roles turn around:
compiled code is written into the shipped cache, and the per-user cache is
neither read nor written, so that no code compiled for the build machine's own
CPU is linked into the shipped code.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import os
import sys
from collections.abc import Callable
from typing import Any

import numba
from numba import prange
from numba.core import config
from numba.core.caching import CompileResultCacheImpl, FunctionCache, NullCache, _Cache, _CacheLocator
from numba.core.dispatcher import Dispatcher

__all__ = ["njit", "prange", "SHIPPED_CACHE_DIR", "SHIPPED_CPU", "building_shipped_cache", "shipped_cache_built"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))

#: Directory of the shipped cache, mirroring the package's sub-packages.
SHIPPED_CACHE_DIR = os.path.join(_PACKAGE_DIR, "_kernel_cache")

#: (CPU name, CPU features) the shipped code is compiled for: LLVM's generic
#: model of the platform (x86-64: SSE2), which every CPU of the platform runs.
SHIPPED_CPU = ("generic", "")

_BUILD_ENV = "PRUNUS_KERNEL_CACHE_BUILD"
_SWITCH_ENV = "PRUNUS_SHIPPED_KERNELS"


def building_shipped_cache() -> bool:
    """Whether this process writes the shipped cache (the package build's warm-up)."""
    return os.environ.get(_BUILD_ENV, "") == "1"


def shipped_cache_built() -> bool:
    """Whether the shipped cache holds compiled kernels for this numba version."""
    stamp = os.path.join(SHIPPED_CACHE_DIR, "BUILT")
    try:
        with open(stamp, encoding="ascii") as f:
            return f.read().split()[0] == numba.__version__
    except (OSError, IndexError):
        return False


@functools.cache
def _kernel_sources_digest() -> str:
    """Content hash of every kernel module of the package (those that import ``njit`` from here).

    The stamp of every shipped entry: compiled code includes the code of the
    kernels it calls, which may live in other files, so an edit of any kernel
    module retires the whole shipped cache (kernels then compile on first use,
    as without it, until the cache is rebuilt). Contents, not time stamps: an
    install changes a file's time, never its content.
    """
    digest = hashlib.sha256()
    for root, dirs, files in os.walk(_PACKAGE_DIR):
        dirs[:] = sorted(d for d in dirs if d not in ("__pycache__", "_kernel_cache") and not d.startswith("."))
        for name in sorted(f for f in files if f.endswith(".py")):
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                source = f.read()
            if b"_compiled import njit" in source:
                digest.update(os.path.relpath(path, _PACKAGE_DIR).replace(os.sep, "/").encode() + b"\0" + source)
    return digest.hexdigest()


class _ShippedLocator(_CacheLocator):
    """Locates a kernel's entries in the shipped cache: ``_kernel_cache/<sub-package>/``.

    The source stamp is the content hash of all kernel modules (:func:`_kernel_sources_digest`).
    """

    def __init__(self, py_func: Callable[..., Any], py_file: str) -> None:
        self._py_file = py_file
        self._lineno = py_func.__code__.co_firstlineno
        sub = os.path.relpath(os.path.dirname(os.path.abspath(py_file)), _PACKAGE_DIR)
        self._cache_path = os.path.normpath(os.path.join(SHIPPED_CACHE_DIR, sub))

    def ensure_cache_path(self) -> None:
        # Only the build writes here; at run time the package directory may be read-only.
        if not building_shipped_cache():
            raise OSError("the shipped kernel cache is written only by the package build")
        os.makedirs(self._cache_path, exist_ok=True)

    def get_cache_path(self) -> str:
        return self._cache_path

    def get_source_stamp(self) -> str:
        return _kernel_sources_digest()

    def get_disambiguator(self) -> str:
        return str(self._lineno)

    @classmethod
    def from_function(cls, py_func: Callable[..., Any], py_file: str) -> _ShippedLocator | None:
        path = os.path.abspath(py_file)
        if not os.path.exists(path) or os.path.commonpath([path, _PACKAGE_DIR]) != _PACKAGE_DIR:
            return None
        return cls(py_func, path)


class _ShippedImpl(CompileResultCacheImpl):
    """numba's compile-result serialisation, with the shipped locator only."""

    def __init__(self, py_func: Callable[..., Any]) -> None:
        # numba's constructor picks a locator from its own list (or NUMBA_CACHE_LOCATOR_CLASSES);
        # the shipped cache has exactly one place, so the three attributes are set here.
        self._lineno = py_func.__code__.co_firstlineno
        locator = _ShippedLocator.from_function(py_func, inspect.getfile(py_func))
        if locator is None:
            raise RuntimeError(f"{py_func.__qualname__} is not a prunus kernel")
        self._locator = locator
        modname = os.path.splitext(os.path.basename(inspect.getfile(py_func)))[0]
        self._filename_base = self.get_filename_base(f"{modname}.{py_func.__qualname__}", getattr(sys, "abiflags", ""))


class _ShippedCache(FunctionCache):
    """numba's function cache over the shipped directory, keyed by the shipped CPU instead of the host's."""

    _impl_class = _ShippedImpl

    def _index_key(self, sig: Any, codegen: Any) -> Any:
        key = super()._index_key(sig, codegen)
        triple = codegen.magic_tuple()[0]
        # The code under this key was compiled for SHIPPED_CPU (the build checks it), so it runs on this host.
        return (key[0], (triple, *SHIPPED_CPU), key[2])

    def _save_overload(self, sig: Any, data: Any) -> None:
        magic = data.codegen.magic_tuple()
        if tuple(magic[1:]) != SHIPPED_CPU:
            raise RuntimeError(
                f"the shipped kernel cache takes code compiled for CPU {SHIPPED_CPU}, got {magic[1:]}: "
                "run the build with NUMBA_CPU_NAME=generic (python -m prunus._warmup --build does)"
            )
        # The build may compile in several processes at once: one writer at a time (an index is
        # read, extended and written back).
        try:
            import fcntl
        except ImportError:  # not POSIX: the build runs one process
            super()._save_overload(sig, data)
            return
        os.makedirs(SHIPPED_CACHE_DIR, exist_ok=True)
        with open(os.path.join(SHIPPED_CACHE_DIR, ".lock"), "w") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                super()._save_overload(sig, data)
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)


class _KernelCache(_Cache):
    """The shipped cache first, then numba's per-user cache (see the module docstring)."""

    def __init__(self, py_func: Callable[..., Any]) -> None:
        self._name = repr(py_func)
        self._shipped: _Cache
        try:
            self._shipped = _ShippedCache(py_func)
        except RuntimeError:
            self._shipped = NullCache()
        self._user: _Cache
        try:
            self._user = FunctionCache(py_func)
        except RuntimeError:
            # No writable per-user cache directory: kernels not shipped compile in every process.
            self._user = NullCache()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} py_func={self._name}>"

    @property
    def cache_path(self) -> str:
        return self._shipped.cache_path if building_shipped_cache() else self._user.cache_path

    def load_overload(self, sig: Any, target_context: Any) -> Any:
        if os.environ.get(_SWITCH_ENV, "") == "0" and not building_shipped_cache():
            return self._user.load_overload(sig, target_context)
        cres = self._shipped.load_overload(sig, target_context)
        if cres is not None or building_shipped_cache():
            return cres
        return self._user.load_overload(sig, target_context)

    def save_overload(self, sig: Any, data: Any) -> None:
        if building_shipped_cache():
            self._shipped.save_overload(sig, data)
        else:
            self._user.save_overload(sig, data)

    def enable(self) -> None:
        self._shipped.enable()
        self._user.enable()

    def disable(self) -> None:
        self._shipped.disable()
        self._user.disable()

    def flush(self) -> None:
        # Only the per-user cache is ever emptied at run time; the shipped one belongs to the install.
        if building_shipped_cache():
            self._shipped.flush()
        else:
            self._user.flush()


def njit(*args: Any, **kwargs: Any) -> Any:
    """``numba.njit``, with ``cache=True`` served by the shipped cache first (see the module docstring).

    Used exactly like ``numba.njit``: ``@njit``, ``@njit(cache=True, nogil=True)``
    or ``njit(**options)`` as a decorator factory.
    """
    if args and callable(args[0]) and not isinstance(args[0], str):
        return njit(**kwargs)(args[0])
    cache = kwargs.pop("cache", False)
    decorate = numba.njit(*args, **kwargs)
    if not cache:
        return decorate
    if args:
        raise TypeError("prunus's njit compiles lazily: give no signatures with cache=True")

    def wrap(func: Callable[..., Any]) -> Any:
        disp = decorate(func)
        if isinstance(disp, Dispatcher):  # not with NUMBA_DISABLE_JIT=1, where numba hands back func
            disp._cache = _KernelCache(disp.py_func)  # type: ignore[attr-defined]
        return disp

    return wrap


if building_shipped_cache() and (config.CPU_NAME, config.CPU_FEATURES) != SHIPPED_CPU:  # type: ignore[attr-defined]
    raise RuntimeError(
        f"{_BUILD_ENV}=1 needs NUMBA_CPU_NAME={SHIPPED_CPU[0]} and NUMBA_CPU_FEATURES={SHIPPED_CPU[1]!r} "
        "(python -m prunus._warmup --build sets them)"
    )
