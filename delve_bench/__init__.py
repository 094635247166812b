"""delve-bench: DELVE (Rasmussen et al., Toronto 1996) revived.

Datasets -> prototasks -> tasks -> task instances, method plugins run on every
instance, per-case losses kept on disk, and the DELVE ANOVA statistics on top.

The Python API is :mod:`delve_bench.api` (docs/api.md)::

    import delve_bench as db
    ws = db.Workspace(".")
    ws.run("lin-1", "kin-8nm/std.64", budget_mode="work")
    ws.losses("lin-1", "kin-8nm/std.64")      # a pandas DataFrame

``Workspace``, ``api`` and the API functions whose names are not also subpackages
(``compare``, ``comparisons``, ``results``, ``plan``, ``status``, ``datasets``, ``method``)
are top-level names; ``run``, ``losses``, ``stats``, ``methods``, ``tasks`` and ``report``
are subpackages here, so use ``Workspace`` methods or ``from delve_bench.api import run``.
"""

__version__ = "0.1.0"

# imported on first use, so that `delve` itself starts fast
_API = frozenset(
    {
        "ComparisonResult",
        "StatsResult",
        "Workspace",
        "compare",
        "comparisons",
        "datasets",
        "method",
        "plan",
        "results",
        "status",
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
