"""``njit`` for growth kernels compiled without numba's reference counting.

Every array a numba kernel receives (each array of a record such as
:data:`~._splitter.GrowthData` or :data:`~._splitter.Workspace`) gets an
atomic incref when the call begins and a decref when it ends, and so does
every view it takes of one (``work.index[feature]``): on small trees that was
about 40% of a growth. Kernels that only read and write arrays they are given
need none of it, as their caller holds every array alive for the call.

A kernel compiled with :data:`njit_no_refcount` must

- allocate nothing (numba refuses to compile an allocation there), and
- return no array, nor call a kernel that returns one: the caller would
  release a reference it was never given, or never release one it was given;
- call, outside inlined code, only kernels that say whether they count
  references (:data:`njit_no_refcount` or :data:`njit_counted`): numba
  compiles a kernel that does not with the ``_nrt`` of its first caller.

``tests/tree/test_no_refcount.py`` checks the last two rules.
"""

from typing import Any

from .._compiled import njit

# Passed as a dict: numba's ``_nrt`` option is not in its stubs.
_OPTIONS: dict[str, Any] = {"cache": True, "nogil": True, "_nrt": False}

#: Decorator of the kernels compiled without reference counting.
njit_no_refcount = njit(**_OPTIONS)
#: Decorator of a kernel that needs reference counting (it allocates) and is
#: called by one without: numba compiles a kernel with its first caller's
#: ``_nrt`` unless the kernel sets it, so these set it.
njit_counted = njit(**{**_OPTIONS, "_nrt": True})


@njit(cache=True, nogil=True, inline="always")
def copy_into(out, values, start=0):
    """``out[start:start + len(values)] = values`` element by element: numba's
    slice assignment may copy ``values`` first (when it cannot rule out an
    overlap), an allocation a kernel without reference counting cannot make."""
    for i in range(values.shape[0]):
        out[start + i] = values[i]
