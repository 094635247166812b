"""Running methods on task instances and storing per-case results atomically.

``job`` runs one job (and knows no executor), ``isolate`` and ``dask_backend`` are the
executors (they receive the function they run), ``runner`` plans a study and hands its
jobs to an executor, ``store`` reads and writes the result files, ``output`` writes the
files others read (reports, packed results).
"""

from .instance import EncodedInstance, load_instance
from .job import Job, Outcome, RunOptions
from .runner import JobPlan, RunInterrupted, plan_jobs, run_jobs
from .store import InstanceResult, read_task_results, result_dir

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
