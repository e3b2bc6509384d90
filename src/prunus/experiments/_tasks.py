"""Run a reproduction's grid of independent fits, here or on a Dask cluster.

Every grid of the reproductions (dataset x repetition x method, or the
experiment's own coordinates) is a list of jobs: tuples of arguments of one
module-level function, each job seeded by its own coordinates. :func:`run_tasks`
hands them to joblib; joblib runs them one after the other in this process by
default, and as Dask tasks on a cluster inside
``joblib.parallel_backend("dask")`` (what ``prunus reproduce --scheduler``
sets). The results come back in the order of the jobs either way, so the
tables are the same. Large arguments (a dataset's ``X`` and ``y`` passed as
their own arguments) are sent to the cluster once per call, not once per job.
"""

from __future__ import annotations

from joblib import Parallel, delayed, parallel_config
from tqdm.auto import tqdm

_WARMED: set = set()


class _Task:
    """``func`` with the ``n_jobs=None`` loops inside it run in its own process.

    joblib's dask backend runs a task's nested joblib loops on the cluster
    too: every CV fold of every fit would become a task of its own. The grid
    is the unit of parallelism, so the task's nested loops get joblib's local
    default (``loky``; ``n_jobs=None`` runs in the task's process), as in a
    local run.
    """

    def __init__(self, func):
        self.func = func
        self.__name__ = func.__name__  # joblib names the cluster's tasks after it

    def __call__(self, *args):
        with parallel_config(backend="loky", n_jobs=1):
            return self.func(*args)


def run_tasks(func, jobs, desc, progress=True):
    """``[func(*job) for job in jobs]``, as tasks of the active joblib backend.

    Parameters
    ----------
    func : callable
        A module-level function (it is pickled to the workers on a cluster).
    jobs : list of tuple
        The arguments of each call. Arrays shared by many jobs should be
        separate arguments (not nested in a tuple): a cluster then receives
        them once.
    desc : str
        Label of the progress bar.
    progress : bool
        Show a progress bar that advances as results arrive.

    Returns
    -------
    list
        The results, in the order of ``jobs``.
    """
    jobs = list(jobs)
    task = _Task(func)
    results = Parallel(return_as="generator")(delayed(task)(*job) for job in jobs)
    return list(tqdm(results, total=len(jobs), desc=desc, disable=not progress))


def warm_once(key, warm):
    """Call ``warm()`` the first time ``key`` is seen in this process.

    A task that times a fit calls it first, so that numba compilation (or
    loading the compiled cache) is never timed, on whatever worker runs it.
    """
    if key not in _WARMED:
        warm()
        _WARMED.add(key)
