"""delve-bench: DELVE (Rasmussen et al., Toronto 1996) revived.

Datasets -> prototasks -> tasks -> task instances, method plugins run on every
instance, per-case losses kept on disk, and the DELVE ANOVA statistics on top.

The Python API is :mod:`delve_bench.api` (docs/api.md)::

    import delve_bench as db
    ws = db.Workspace(".")
    ws.run("lin-1", "kin-8nm/std.64", budget_mode="work")
    ws.losses("lin-1", "kin-8nm/std.64")      # a pandas DataFrame

``Workspace``, ``api`` and every name of ``api.__all__`` (``run_methods``, ``task_stats``,
``study_status``, ...) are top-level names; none of them is also a subpackage.
"""

__version__ = "0.1.0"

# imported on first use, so that `delve` itself starts fast
_API = frozenset(
    {
        "CheckResult",
        "ComparisonResult",
        "DatasetInfo",
        "Fetched",
        "Generated",
        "MethodInfo",
        "Plan",
        "PowerAnalysis",
        "ReportCheck",
        "RunSummary",
        "SelftestResult",
        "StatsResult",
        "StudyReport",
        "StudyRunSummary",
        "StudyStatus",
        "Unpacked",
        "Verification",
        "TaskInfo",
        "Workspace",
        "check_results",
        "compare",
        "comparison_power",
        "comparisons",
        "execute_plan",
        "fetch_datasets",
        "generate_splits",
        "list_datasets",
        "list_methods",
        "list_tasks",
        "loss_table",
        "make_report",
        "method",
        "plan",
        "posterior_plot",
        "results",
        "run_methods",
        "run_selftest",
        "status",
        "study_leaderboard",
        "study_report",
        "study_report_check",
        "study_run",
        "study_status",
        "study_unpack",
        "study_verify",
        "task_stats",
        "workspace_dirs",
        # older names that are not subpackages
        "datasets",
    }
)


def __getattr__(name: str):
    if name in _API or name == "api":
        import importlib

        api = importlib.import_module(".api", __name__)
        return api if name == "api" else getattr(api, name)
    raise AttributeError(f"module 'delve_bench' has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | _API | {"api"})
