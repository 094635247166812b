"""Running methods on task instances and storing per-case results atomically."""

from .runner import Job, plan_jobs, run_jobs
from .store import InstanceResult, read_task_results, result_dir

__all__ = ["InstanceResult", "Job", "plan_jobs", "read_task_results", "result_dir", "run_jobs"]
