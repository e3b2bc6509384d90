"""The number of CPUs this process may use, looked up once."""

from __future__ import annotations

import functools

from joblib import cpu_count


@functools.cache
def usable_cpus() -> int:
    """``joblib.cpu_count()``, read once per process.

    joblib counts the CPUs this process may run on (affinity, cgroup quota)
    by reading system files, about 0.1 ms per call: as long as a small
    table's cross-validation fold. The count is taken as fixed for the
    life of the process (as the thread pools sized from it are).
    """
    return int(cpu_count())
