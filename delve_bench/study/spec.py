"""Study files: ``studies/<name>.yaml`` declares a whole comparison.

A study names its methods (each with its budget mode, time scale, snapshot fractions and
the training-set sizes it skips), its tasks, the losses and displays of its report, and
rough CPU estimates for methods that have no budget. Everything is checked when the file
is loaded; a mistake is one line naming the file and the field. Example::

    description: lin-1 and knn-cv-1 on kin-8nm
    results: results/smoke          # the study's result store (default results/<name>)
    defaults: {budget_mode: work, time_scale: 0.05}
    methods:
      lin-1: {}
      knn-cv-1: {cpu_estimate: {64: 0.01, 1024: 0.5}}
      mlp-mc-1: {budget_mode: cpu, time_scale: 0.005, snapshots: [0.125, 0.5]}
      gp-mc-1: {skip_sizes: [1024]}
    tasks: [kin-8nm]
    losses: {default: [S], boston/price: [S, A, L]}
    displays: [diagrams, geometric, cpu-time, anytime, bagging]
    claims: [thesis]                # published claims RESULTS.md sets the results beside

``snapshots`` (anytime methods only) adds the results ``METHOD@F`` for each fraction F,
recorded from the same runs (the thesis' Fig. 5.19). ``cpu_estimate`` maps training-set
sizes to CPU seconds per instance on this machine; ``delve study status`` uses measured
times where it has them and interpolates these (log-log) where it has not.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from ..errors import DelveError
from ..methods.registry import fraction_name, method_spec
from ..tasks.names import TaskRef, resolve_tasks
from ..workspace import Workspace

DISPLAYS = (
    "diagrams",  # DELVE diagram and tables per prototask, summary/ranks/wins (delve report)
    "geometric",  # thesis Figs. 5.14-5.17: geometric averages by data characteristic
    "cpu-time",  # thesis Fig. 5.18: measured CPU time per method and size
    "anytime",  # thesis Fig. 5.19: accuracy against CPU time from the snapshots
    "bagging",  # thesis Fig. 5.2: mars3.6-bag-1 against mars3.6-1
    "wins",  # Barrio et al. Table 2: significant wins per pair, beside the published
    "basis-size",  # Barrio et al. Table 4: mean number of basis functions at n = 1024
    "basis-steps",  # Barrio et al. Table 6: mean add/remove steps at n = 1024
    "hwang-wins",  # Barrio et al. Table 3: significant wins at n = 8192, beside the published
    "hwang-basis",  # Barrio et al. Table 5: mean #BF and add/remove steps at n = 8192
    "scaling",  # Barrio et al. Figs. 3-4: training CPU time and #BF against n, log-log
)
#: displays that take a list of arguments (``{scaling: [kin-8nm, pumadyn-8nm]}``)
DISPLAY_ARGS = ("scaling",)
_TOP = {"description", "results", "defaults", "methods", "tasks", "losses", "displays", "claims"}
CLAIMS = ("thesis", "barrio")
_METHOD_KEYS = {
    "budget_mode",
    "time_scale",
    "snapshots",
    "skip_sizes",
    "cpu_estimate",
    "hard_limit",
}
_DEFAULT_KEYS = {"budget_mode", "time_scale"}
STUDY_DIR = "studies"


@dataclass(frozen=True)
class MethodPlan:
    """How a study runs one method."""

    name: str
    budget_mode: str
    time_scale: float
    snapshots: tuple[float, ...] = ()
    skip_sizes: tuple[int, ...] = ()
    cpu_estimate: tuple[tuple[int, float], ...] = ()
    hard_limit: float | None = None

    @property
    def snapshot_names(self) -> list[str]:
        return [fraction_name(self.name, f) for f in self.snapshots]

    def options(self):
        """The runner's options for this method's jobs."""
        from ..run.job import RunOptions

        return RunOptions(
            mode=self.budget_mode,  # type: ignore[arg-type]
            time_scale=self.time_scale,
            hard_limit=self.hard_limit,
        )

    @property
    def deterministic(self) -> bool:
        """Reruns give the same bits: work mode, or a method without a CPU budget."""
        return self.budget_mode == "work"


@dataclass(frozen=True)
class Study:
    name: str
    source: Path
    description: str
    results: Path  # relative to the workspace root
    methods: tuple[MethodPlan, ...]
    task_names: tuple[str, ...]
    losses: dict[str, tuple[str, ...]] = field(default_factory=dict)
    displays: tuple[str, ...] = ()
    claims: tuple[str, ...] = ()  # whose published claims RESULTS.md checks
    #: budget mode and time scale of a method the study does not name (``defaults``)
    defaults: tuple[str, float] = ("work", 0.05)
    #: display -> its arguments (``scaling``: prototask patterns, one panel each)
    display_args: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def plan(self, method: str) -> MethodPlan:
        for p in self.methods:
            if p.name == method or method in p.snapshot_names:
                return p
        raise DelveError(f"study {self.name} has no method {method!r}")

    def only(self, names: Sequence[str] = ()) -> tuple[MethodPlan, ...]:
        """The plans of ``names`` in the study file's order (all when empty); an unknown
        name is an error naming the study's methods."""
        unknown = [n for n in names if n not in self.method_names]
        if unknown:
            raise DelveError(
                f"study {self.name} has no method {unknown[0]!r}; its methods: "
                f"{', '.join(self.method_names)}"
            )
        return tuple(p for p in self.methods if not names or p.name in names)

    @property
    def method_names(self) -> list[str]:
        return [p.name for p in self.methods]

    @property
    def snapshot_names(self) -> list[str]:
        return [s for p in self.methods for s in p.snapshot_names]

    def refs(self, ws: Workspace) -> list[TaskRef]:
        return resolve_tasks(ws, list(self.task_names))

    def method_refs(self, ws: Workspace, plan: MethodPlan) -> list[TaskRef]:
        return [r for r in self.refs(ws) if r.size not in plan.skip_sizes]

    def losses_for(self, prototask: str) -> tuple[str, ...]:
        return self.losses.get(prototask, self.losses.get("default", ("S",)))

    def workspace(self, ws: Workspace) -> Workspace:
        """The workspace whose result store is the study's working store (``runs/``)."""
        return ws.with_results(self.results / "runs")


def study_path(ws: Workspace, name: str) -> Path:
    """``studies/<name>.yaml`` in the workspace, else the built-in copy; or a path."""
    p = Path(name)
    if p.suffix in (".yaml", ".yml"):
        if not p.is_absolute():
            p = ws.root / p
        if not p.is_file():
            raise DelveError(f"no study file {p}")
        return p
    dirs = ws.spec_dirs(STUDY_DIR)
    for d in dirs:
        if (d / f"{name}.yaml").is_file():
            return d / f"{name}.yaml"
    known = sorted({q.stem for d in dirs for q in d.glob("*.yaml")})
    from ..errors import suggest

    raise DelveError(
        f"unknown study {name!r}{suggest(name, known)}; studies: {', '.join(known) or 'none'}"
    )


def _number(where: str, v, positive: bool = True) -> float:
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        raise DelveError(f"{where}: must be a number, not {v!r}")
    if positive and v <= 0:
        raise DelveError(f"{where}: must be positive, not {v!r}")
    return float(v)


def _mode(where: str, v) -> str:
    if v not in ("cpu", "work"):
        raise DelveError(f"{where}: must be cpu or work, not {v!r}")
    return v


def load_study(ws: Workspace, name: str) -> Study:
    """Load and check a study file (one-line errors naming the file and field)."""
    path = study_path(ws, name)
    where = str(path.relative_to(ws.root)) if path.is_relative_to(ws.root) else str(path)
    from ..specfile import load_yaml

    try:
        raw = load_yaml(path.read_bytes().decode("utf-8"))
    except OSError as e:
        raise DelveError(f"{where}: cannot read ({e.strerror or e})") from None
    except UnicodeDecodeError:
        raise DelveError(f"{where}: not a UTF-8 text file") from None
    except yaml.YAMLError as e:
        raise DelveError(f"{where}: not valid YAML ({str(e).splitlines()[0]})") from None
    except (ValueError, TypeError, OverflowError, RecursionError) as e:
        raise DelveError(f"{where}: not valid YAML ({type(e).__name__}: {e})") from None
    if not isinstance(raw, dict):
        raise DelveError(f"{where}: must be a mapping of {', '.join(sorted(_TOP))}")
    bad = sorted(set(raw) - _TOP)
    if bad:
        raise DelveError(f"{where}: unknown field {bad[0]!r} (fields: {', '.join(sorted(_TOP))})")
    for key in ("methods", "tasks"):
        if not raw.get(key):
            raise DelveError(f"{where}: '{key}' is missing or empty")
    defaults = raw.get("defaults") or {}
    if not isinstance(defaults, dict) or set(defaults) - _DEFAULT_KEYS:
        raise DelveError(f"{where}: defaults may only set {', '.join(sorted(_DEFAULT_KEYS))}")
    d_mode = _mode(f"{where}: defaults.budget_mode", defaults.get("budget_mode", "work"))
    d_scale = _number(f"{where}: defaults.time_scale", defaults.get("time_scale", 0.05))
    methods_raw = raw["methods"]
    if isinstance(methods_raw, list):
        methods_raw = {m: {} for m in methods_raw}
    if not isinstance(methods_raw, dict):
        raise DelveError(f"{where}: methods must be a mapping name -> settings (or a list)")
    plans = []
    for m, opts in methods_raw.items():
        w = f"{where}: methods.{m}"
        opts = opts or {}
        if not isinstance(opts, dict):
            raise DelveError(f"{w}: settings must be a mapping")
        bad = sorted(set(opts) - _METHOD_KEYS)
        if bad:
            raise DelveError(f"{w}: unknown setting {bad[0]!r} ({', '.join(sorted(_METHOD_KEYS))})")
        try:
            spec = method_spec(ws, str(m))
        except DelveError as e:
            raise DelveError(f"{w}: {e}") from None
        snaps = tuple(sorted(_number(f"{w}.snapshots", f) for f in (opts.get("snapshots") or ())))
        if any(f >= 1 for f in snaps):
            raise DelveError(f"{w}.snapshots: fractions must lie between 0 and 1")
        if snaps and not getattr(spec.load_class(), "anytime", False):
            raise DelveError(f"{w}.snapshots: {m} is not an anytime method (no snapshots)")
        skip = opts.get("skip_sizes") or ()
        if not isinstance(skip, list | tuple) or not all(
            isinstance(s, int) and not isinstance(s, bool) for s in skip
        ):
            raise DelveError(f"{w}.skip_sizes: must be a list of training-set sizes")
        est = opts.get("cpu_estimate") or {}
        if not isinstance(est, dict):
            raise DelveError(f"{w}.cpu_estimate: must map training-set sizes to CPU seconds")
        est_t = tuple(
            sorted(
                (int(k), _number(f"{w}.cpu_estimate.{k}", v, positive=True)) for k, v in est.items()
            )
        )
        hl = opts.get("hard_limit")
        plans.append(
            MethodPlan(
                name=str(m),
                budget_mode=_mode(f"{w}.budget_mode", opts.get("budget_mode", d_mode)),
                time_scale=_number(f"{w}.time_scale", opts.get("time_scale", d_scale)),
                snapshots=snaps,
                skip_sizes=tuple(skip),
                cpu_estimate=est_t,
                hard_limit=None if hl is None else _number(f"{w}.hard_limit", hl),
            )
        )
    tasks = raw["tasks"]
    if not isinstance(tasks, list) or not all(isinstance(t, str) for t in tasks):
        raise DelveError(f"{where}: tasks must be a list of task or prototask names")
    try:
        resolve_tasks(ws, tasks)
    except DelveError as e:
        raise DelveError(f"{where}: tasks: {e}") from None
    losses_raw = raw.get("losses") or {"default": ["S"]}
    if isinstance(losses_raw, list):
        losses_raw = {"default": losses_raw}
    losses = {}
    for k, v in losses_raw.items():
        if not isinstance(v, list) or not v or any(x not in ("S", "A", "L") for x in v):
            raise DelveError(f"{where}: losses.{k}: a list of S, A, L")
        losses[str(k)] = tuple(v)
    displays, display_args = _displays(where, raw.get("displays") or ["diagrams"])
    claims = raw.get("claims") or []
    if not isinstance(claims, list) or any(c not in CLAIMS for c in claims):
        raise DelveError(f"{where}: claims must be a list of {', '.join(CLAIMS)}")
    results = Path(str(raw.get("results") or f"results/{path.stem}"))
    if results.is_absolute() or ".." in results.parts:
        raise DelveError(f"{where}: results must be a folder inside the workspace")
    return Study(
        name=path.stem,
        source=path,
        description=str(raw.get("description") or "").strip(),
        results=results,
        methods=tuple(plans),
        task_names=tuple(tasks),
        losses=losses,
        displays=displays,
        claims=tuple(claims),
        defaults=(d_mode, d_scale),
        display_args=display_args,
    )


def _displays(where: str, raw) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """The display names, and the arguments of those given as ``{name: [args]}``."""
    from ..errors import suggest

    if not isinstance(raw, list):
        raise DelveError(f"{where}: displays must be a list ({', '.join(DISPLAYS)})")
    names: list[str] = []
    args: dict[str, tuple[str, ...]] = {}
    for d in raw:
        given: list = []
        if isinstance(d, dict):
            if len(d) != 1:
                raise DelveError(
                    f"{where}: a display with arguments is {{name: [args]}}, not {d!r}"
                )
            d, given = next(iter(d.items()))
            if d not in DISPLAY_ARGS:
                raise DelveError(
                    f"{where}: display {d!r} takes no arguments (only {', '.join(DISPLAY_ARGS)})"
                )
            if (
                not isinstance(given, list)
                or not given
                or not all(isinstance(a, str) and a for a in given)
            ):
                raise DelveError(f"{where}: displays.{d}: a list of prototask patterns")
        if d not in DISPLAYS:
            raise DelveError(
                f"{where}: unknown display {d!r}{suggest(str(d), DISPLAYS)} "
                f"(displays: {', '.join(DISPLAYS)})"
            )
        if d in names:
            raise DelveError(f"{where}: display {d!r} is listed twice")
        names.append(d)
        if given:
            args[d] = tuple(given)
    return tuple(names), args
