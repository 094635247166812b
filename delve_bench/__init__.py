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

#: The API's names, :mod:`delve_bench.api`'s ``__all__``: they are listed here, where
#: reading them imports nothing, so that they can be top-level names imported on first use
#: (``delve --help`` must not import the API) and ``api`` takes its ``__all__`` from here.
_API = (
    # results and records
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
    "TaskInfo",
    "Unpacked",
    "Verification",
    "Workspace",
    # functions
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
)
#: older names of the API that are top-level names too (none is a subpackage)
_OLDER = ("datasets",)


def __getattr__(name: str):
    if name in _API or name in _OLDER or name == "api":
        import importlib

        api = importlib.import_module(".api", __name__)
        return api if name == "api" else getattr(api, name)
    raise AttributeError(f"module 'delve_bench' has no attribute {name!r}")


def __dir__():
    return sorted({*globals(), *_API, *_OLDER, "api"})
