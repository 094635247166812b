"""Running methods on task instances and storing per-case results atomically.

``job`` runs one job (and knows no executor), ``isolate`` and ``dask_backend`` are the
executors (they receive the function they run), ``runner`` plans a study and hands its
jobs to an executor, ``store`` reads and writes the result files, ``output`` writes the
files others read (reports, packed results).
"""

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

# on first use: the analyses read the store (``.store``, ``.packed``) and never load the
# runner, its executors (multiprocessing, cloudpickle) or a job's imports
_EXPORTS = {
    "EncodedInstance": ".instance",
    "load_instance": ".instance",
    "Job": ".job",
    "Outcome": ".job",
    "RunOptions": ".job",
    "JobPlan": ".runner",
    "RunInterrupted": ".runner",
    "plan_jobs": ".runner",
    "run_jobs": ".runner",
    "InstanceResult": ".store",
    "read_task_results": ".store",
    "result_dir": ".store",
}
__all__ = [
    "EncodedInstance",
    "InstanceResult",
    "Job",
    "JobPlan",
    "Outcome",
    "RunInterrupted",
    "RunOptions",
    "load_instance",
    "plan_jobs",
    "read_task_results",
    "result_dir",
    "run_jobs",
]

if TYPE_CHECKING:
    from .instance import EncodedInstance, load_instance
    from .job import Job, Outcome, RunOptions
    from .runner import JobPlan, RunInterrupted, plan_jobs, run_jobs
    from .store import InstanceResult, read_task_results, result_dir


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)
