"""Study files: ``studies/<name>.yaml`` declares a whole comparison.

A study names its methods (each with its budget mode, time scale, snapshot fractions, the
training-set sizes it skips and the instances it runs), its tasks, the losses and displays
of its report, and rough CPU estimates for methods that have no budget. Everything is
checked when the file is loaded; a mistake is one line naming the file and the field. Example::

    description: lin-1 and knn-cv-1 on kin-8nm
    results: results/smoke          # the study's result store (default results/<name>)
    defaults: {budget_mode: work, time_scale: 0.05}
    methods:
      lin-1: {}
      knn-cv-1: {cpu_estimate: {64: 0.01, 1024: 0.5}}
      mlp-mc-1: {budget_mode: cpu, time_scale: 0.005, snapshots: [0.125, 0.5]}
      gp-mc-1: {skip_sizes: [1024], instances: {512: [0, 1]}}
    tasks: [kin-8nm]
    losses: {default: [S], boston/price: [S, A, L]}
    displays: [diagrams, geometric, cpu-time, anytime, bagging]
    claims: [thesis]                # published claims RESULTS.md sets the results beside

``instances`` (in ``defaults`` for every method, or per method) runs only the named
instances at the training-set sizes it names (``{4096: [0]}``: instance 0 of each
4096-case task; other sizes: every instance); the others are neither run nor counted as
missing. ``snapshots`` (anytime methods only) adds the results ``METHOD@F`` for each
fraction F, recorded from the same runs (the thesis' Fig. 5.19). A method's
``time_scale`` may differ by task: ``{default: 0.005, pumadyn-32nm: 0.05}`` (keys: task
names or patterns of the study's tasks, as ``tasks`` takes them, each task named once), for
a CPU budget still binding on some tasks (docs/studies.md). ``cpu_estimate`` maps
training-set sizes to CPU seconds per instance on this machine; ``delve study status``
uses measured times where it has them and interpolates these (log-log) where it has not.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..defaults import BUDGET_MODES, DEFAULT_BUDGET_MODE, DEFAULT_TIME_SCALE, REGRESSION_LOSSES
from ..errors import DelveError
from ..methods.registry import fraction_name, method_spec
from ..specfile import Fields, number, read_yaml, whole
from ..tasks.names import TaskRef, resolve_tasks
from ..workspace import WorkspaceDirs

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
#: the keys of a study file, of its ``defaults`` and of one method's settings
STUDY_KEYS = (
    "description",
    "results",
    "defaults",
    "methods",
    "tasks",
    "losses",
    "displays",
    "claims",
)
DEFAULT_KEYS = ("budget_mode", "time_scale", "instances")
METHOD_KEYS = (*DEFAULT_KEYS, "snapshots", "skip_sizes", "cpu_estimate", "hard_limit")
#: the losses a study may report and commit (the packed files' columns, which hold a
#: classification task's Z, Q, L in this order)
LOSSES = REGRESSION_LOSSES
#: whose published claims RESULTS.md may set the results beside
CLAIMS = ("thesis", "barrio", "barrio-hwang")
STUDY_DIR = "studies"
#: a study's ``instances`` setting: (training-set size, the instances run at that size),
#: by size; a size it does not name runs every instance
Instances = tuple[tuple[int, tuple[int, ...]], ...]


def instances_at(instances: Instances, ref: TaskRef) -> set[int] | None:
    """The instances of ``ref`` that a study's ``instances`` setting (size -> instances)
    runs; None: all of them."""
    want = dict(instances).get(ref.size)
    return None if want is None else set(want)


@dataclass(frozen=True)
class MethodPlan:
    """How a study runs one method."""

    name: str
    budget_mode: str
    #: the time scale of the tasks ``time_scales`` does not name
    time_scale: float
    snapshots: tuple[float, ...] = ()
    skip_sizes: tuple[int, ...] = ()
    cpu_estimate: tuple[tuple[int, float], ...] = ()
    hard_limit: float | None = None
    instances: Instances = ()
    #: (key as written, time scale) of ``time_scale: {default: .., KEY: ..}``, in file order
    time_scale_keys: tuple[tuple[str, float], ...] = ()
    #: the tasks those keys name, each with its time scale
    time_scales: tuple[tuple[TaskRef, float], ...] = ()

    def time_scale_at(self, ref: TaskRef) -> float:
        """The time scale of this method's jobs on task ``ref``."""
        return dict(self.time_scales).get(ref, self.time_scale)

    def describe_time_scale(self) -> str:
        """``0.005``, or ``0.005 (0.05 on pumadyn-32nm/std.64, 128 and pumadyn-32nh)``
        where it differs by task: the keys of one value together, the sizes of one
        prototask as one list."""
        if not self.time_scale_keys:
            return f"{self.time_scale:g}"
        by_value: dict[float, dict[str, list[str]]] = {}
        for key, value in self.time_scale_keys:
            head, sep, size = key.rpartition("/std.")
            prefix, tail = (head + sep, size) if sep and size.isdigit() else (key, "")
            by_value.setdefault(value, {}).setdefault(prefix, []).append(tail)
        on = "; ".join(
            f"{v:g} on "
            + " and ".join(
                prefix + ", ".join(t for t in tails if t) for prefix, tails in keys.items()
            )
            for v, keys in by_value.items()
        )
        return f"{self.time_scale:g} ({on})"

    def instances_at(self, ref: TaskRef) -> set[int] | None:
        """The instances the study runs on ``ref`` with this method; None: all of them."""
        return instances_at(self.instances, ref)

    def selected(self, ref: TaskRef, indices: Sequence[int]) -> list[int]:
        """The instances of ``ref`` the study runs with this method: all of ``indices``
        (the task's), or those ``instances`` names at the task's size; a DelveError when
        it names one the task does not have."""
        want = self.instances_at(ref)
        if want is None:
            return list(indices)
        missing = sorted(set(want) - set(indices))
        if missing:
            raise DelveError(
                f"{ref.full_name} has instances 0-{len(indices) - 1}; the study's "
                f"instances name {missing[0]}"
            )
        return [i for i in indices if i in want]

    @property
    def snapshot_names(self) -> list[str]:
        return [fraction_name(self.name, f) for f in self.snapshots]

    def options(self, ref: TaskRef):
        """The runner's options for this method's jobs on task ``ref``."""
        from ..run.job import RunOptions

        return RunOptions(
            mode=self.budget_mode,  # type: ignore[arg-type]
            time_scale=self.time_scale_at(ref),
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
    defaults: tuple[str, float] = (DEFAULT_BUDGET_MODE, DEFAULT_TIME_SCALE)
    #: the instances a method the study does not name runs at each size (``defaults``)
    default_instances: Instances = ()
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

    def refs(self, ws: WorkspaceDirs) -> list[TaskRef]:
        return resolve_tasks(ws, list(self.task_names))

    def method_refs(
        self, ws: WorkspaceDirs, plan: MethodPlan, tasks: Sequence[str] = ()
    ) -> list[TaskRef]:
        """The tasks ``plan`` runs on (``tasks``: only those of them, see :meth:`subset`)."""
        wanted = self.subset(ws, tasks) if tasks else None
        return [
            r
            for r in self.refs(ws)
            if r.size not in plan.skip_sizes and (wanted is None or r in wanted)
        ]

    def subset(self, ws: WorkspaceDirs, tasks: Sequence[str]) -> set[TaskRef]:
        """The study's tasks named by ``tasks`` (task names or patterns, as ``delve run``
        takes them); one that is not a task of the study is an error naming its tasks."""
        wanted = set(resolve_tasks(ws, list(tasks)))
        outside = sorted(wanted - set(self.refs(ws)))
        if outside:
            raise DelveError(
                f"{outside[0].full_name} is not a task of study {self.name} "
                f"(its tasks: {', '.join(self.task_names)})"
            )
        return wanted

    def losses_for(self, prototask: str) -> tuple[str, ...]:
        return self.losses.get(prototask, self.losses.get("default", LOSSES[:1]))

    def workspace(self, ws: WorkspaceDirs) -> WorkspaceDirs:
        """The workspace whose result store is the study's working store (``runs/``)."""
        return ws.with_results(self.results / "runs")


def study_path(ws: WorkspaceDirs, name: str) -> Path:
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


def load_study(ws: WorkspaceDirs, name: str) -> Study:
    """Load and check a study file: every field typed and checked by
    :class:`~delve_bench.specfile.Fields`, a mistake one line naming the file (relative to
    the workspace) and the field, as for every other spec."""
    path = study_path(ws, name)
    shown = path.relative_to(ws.root) if path.is_relative_to(ws.root) else path
    f = Fields(shown, read_yaml(path, shown), allowed=STUDY_KEYS)
    defaults = _defaults(f)
    displays, display_args = _displays(f)
    study = Study(
        name=path.stem,
        source=path,
        description=f.optional("description").strip(),
        results=_results(f, path.stem),
        methods=_method_plans(ws, f, defaults),
        task_names=_tasks(ws, f),
        losses=_losses(f),
        displays=displays,
        claims=tuple(_names_from(f, "claims", CLAIMS)),
        defaults=defaults[:2],
        default_instances=defaults[2],
        display_args=display_args,
    )
    ours = set(study.refs(ws))
    for plan in study.methods:
        outside = sorted(r.full_name for r, _ in plan.time_scales if r not in ours)
        if outside:
            raise f.error(
                f"methods.{plan.name}.time_scale", f"{outside[0]} is not a task of the study"
            )
    return study


def _defaults(f: Fields) -> tuple[str, float, Instances]:
    """The budget mode, time scale and instances of a method whose own settings leave
    them out."""
    d = f.mapping("defaults", DEFAULT_KEYS)
    if d is None:
        return DEFAULT_BUDGET_MODE, DEFAULT_TIME_SCALE, ()
    return (
        d.choice("budget_mode", BUDGET_MODES, DEFAULT_BUDGET_MODE),
        _positive(d, "time_scale", DEFAULT_TIME_SCALE),
        _instances(d, ()),
    )


def _positive(f: Fields, key: str, default: float) -> float:
    """A number greater than zero, ``default`` when absent."""
    v = f.number(key, default, positive=True)
    assert v is not None  # the default is a number
    return v


def _method_plans(
    ws: WorkspaceDirs, f: Fields, defaults: tuple[str, float, Instances]
) -> tuple[MethodPlan, ...]:
    """``methods``: a mapping of method names to their settings, or a list of names."""
    if isinstance(f.raw.get("methods"), list):  # names only: each with the defaults
        names = [_name(f, "methods", i, m, "a method name") for i, m in enumerate(f.raw["methods"])]
        methods: Fields | None = Fields(f.path, dict.fromkeys(names), f"{f.where}methods.")
    else:
        methods = f.mapping("methods")
    if methods is None or not methods.raw:
        raise f.error("methods", "missing or empty (name at least one method)")
    return tuple(_method_plan(ws, methods, m, defaults) for m in methods.raw)


def _method_plan(
    ws: WorkspaceDirs, methods: Fields, name: str, defaults: tuple[str, float, Instances]
) -> MethodPlan:
    """One method's settings; what they leave out comes from the study's ``defaults``."""
    try:
        spec = method_spec(ws, name)
    except DelveError as e:
        raise methods.error(name, str(e)) from None
    o = methods.mapping(name, METHOD_KEYS) or Fields(methods.path, {}, f"{methods.where}{name}.")
    skip = o.items("skip_sizes")
    scale, keys, scales = _time_scales(ws, o, defaults[1])
    return MethodPlan(
        name=name,
        budget_mode=o.choice("budget_mode", BUDGET_MODES, defaults[0]),
        time_scale=scale,
        time_scale_keys=keys,
        time_scales=scales,
        snapshots=_snapshots(o, spec),
        skip_sizes=tuple(
            whole(v, 1, lambda m, i=i: o.error(f"skip_sizes[{i}]", m)) for i, v in enumerate(skip)
        ),
        cpu_estimate=_cpu_estimate(o),
        hard_limit=o.number("hard_limit", positive=True),
        instances=_instances(o, defaults[2]),
    )


def _time_scales(
    ws: WorkspaceDirs, o: Fields, default: float
) -> tuple[float, tuple[tuple[str, float], ...], tuple[tuple[TaskRef, float], ...]]:
    """``time_scale``: a number, or ``{default: x, TASKS: y, ...}`` (keys as ``tasks``
    takes them). Returns the default, the keys as written and the tasks they name."""
    if not isinstance(o.raw.get("time_scale"), dict):
        return _positive(o, "time_scale", default), (), ()
    by = o.mapping("time_scale")
    assert by is not None  # a mapping
    base = _positive(by, "default", default)
    keys, named = [], {}
    for k in by.raw:
        if k == "default":
            continue
        v = _positive(by, k, default)
        try:
            refs = resolve_tasks(ws, [str(k)])
        except DelveError as e:
            raise by.error(k, str(e)) from None
        twice = sorted(r.full_name for r in refs if r in named)
        if twice:
            raise by.error(k, f"{twice[0]} is named by an earlier key already")
        named.update(dict.fromkeys(refs, v))
        keys.append((str(k), v))
    return base, tuple(keys), tuple(named.items())


def _name(f: Fields, key: str, i: int, value, what: str) -> str:
    """Item ``i`` of list ``key``, which must be text (``what`` it names)."""
    if not isinstance(value, str) or not value:
        raise f.error(f"{key}[{i}]", f"expected {what}, got {value!r}")
    return value


def _snapshots(o: Fields, spec) -> tuple[float, ...]:
    """Budget fractions strictly between 0 and 1, of an anytime method only."""
    fractions = []
    for i, v in enumerate(o.items("snapshots")):
        x = number(v, 0.0, True, lambda m, i=i: o.error(f"snapshots[{i}]", m))
        if x >= 1:
            raise o.error(
                f"snapshots[{i}]", f"a fraction of the budget lies between 0 and 1, not {v!r}"
            )
        fractions.append(x)
    if fractions and not getattr(spec.load_class(), "anytime", False):
        raise o.error("snapshots", f"{spec.name} is not an anytime method (no snapshots)")
    return tuple(sorted(fractions))


def _cpu_estimate(o: Fields) -> tuple[tuple[int, float], ...]:
    """``{training-set size: CPU seconds}``; the keys are numbers, so it is read here
    rather than as a mapping of names."""
    raw = o.raw.get("cpu_estimate")
    if raw is None:
        return ()
    if not isinstance(raw, dict):
        raise o.error(
            "cpu_estimate", f"expected a mapping of training-set sizes to CPU seconds, got {raw!r}"
        )
    out = []
    for k, v in raw.items():
        at = f"cpu_estimate.{k}"
        size = whole(k, 1, lambda m, at=at: o.error(at, f"the training-set size: {m}"))
        out.append((size, number(v, 0.0, True, lambda m, at=at: o.error(at, m))))
    return tuple(sorted(out))


def _instances(o: Fields, default: Instances) -> Instances:
    """``instances``: ``{training-set size: [instance, ...]}``, the instances run at each
    size it names (``{}``: every instance at every size); ``default`` when absent. The keys
    are numbers, so it is read here rather than as a mapping of names."""
    if "instances" not in o:
        return default
    raw = o.raw["instances"]
    if not isinstance(raw, dict):
        raise o.error(
            "instances",
            f"expected a mapping of training-set sizes to lists of instance numbers "
            f"({{4096: [0]}}), got {raw!r}",
        )
    out = []
    for k, v in raw.items():
        at = f"instances.{k}"
        size = whole(k, 1, lambda m, at=at: o.error(at, f"the training-set size: {m}"))
        # one list of instance numbers, read (and its errors named) as every spec's lists
        listed = Fields(o.path, {at: v}, o.where).wholes(at, minimum=0)
        out.append((size, tuple(sorted(set(listed)))))
    return tuple(sorted(out))


def _tasks(ws: WorkspaceDirs, f: Fields) -> tuple[str, ...]:
    tasks = [
        _name(f, "tasks", i, t, "a task or prototask name") for i, t in enumerate(f.items("tasks"))
    ]
    if not tasks:
        raise f.error("tasks", "missing or empty (name at least one task or prototask)")
    try:
        resolve_tasks(ws, tasks)
    except DelveError as e:
        raise f.error("tasks", str(e)) from None
    return tuple(tasks)


def _losses(f: Fields) -> dict[str, tuple[str, ...]]:
    """``losses``: a list (every prototask), or prototask -> list with ``default``."""
    raw = f.raw.get("losses")
    if not raw:
        return {"default": LOSSES[:1]}
    if isinstance(raw, list):
        by: Fields | None = Fields(f.path, {"default": raw}, f"{f.where}losses.")
    else:
        by = f.mapping("losses")
    assert by is not None  # raw is not empty
    return {k: tuple(_names_from(by, k, LOSSES, empty=False)) for k in by.raw}


def _names_from(f: Fields, key: str, choices: Sequence[str], empty: bool = True) -> list[str]:
    """A list of names from ``choices`` (each at most once)."""
    items = f.items(key)
    if not empty and not items:
        raise f.error(key, f"expected a list of {', '.join(choices)}, got {f.raw.get(key)!r}")
    for i, v in enumerate(items):
        if v not in choices:
            raise f.error(f"{key}[{i}]", f"{v!r} is not one of {', '.join(choices)}")
    return items


def _results(f: Fields, stem: str) -> Path:
    """The study's result folder, relative to the workspace and inside it."""
    results = Path(f.optional("results") or f"results/{stem}")
    if results.is_absolute() or ".." in results.parts:
        raise f.error("results", f"{str(results)!r}: must be a folder inside the workspace")
    return results


def _displays(f: Fields) -> tuple[tuple[str, ...], dict[str, tuple[str, ...]]]:
    """The display names, and the arguments of those given as ``{name: [args]}``."""
    from ..errors import suggest

    names: list[str] = []
    args: dict[str, tuple[str, ...]] = {}
    raw = f.items("displays") or ["diagrams"]
    for i, d in enumerate(raw):
        at = f"displays[{i}]"
        given: list = []
        if isinstance(d, dict):
            if len(d) != 1:
                raise f.error(at, f"a display with arguments is {{name: [args]}}, not {d!r}")
            d, given = next(iter(d.items()))
            if d not in DISPLAY_ARGS:
                raise f.error(
                    at, f"display {d!r} takes no arguments (only {', '.join(DISPLAY_ARGS)})"
                )
            if (
                not isinstance(given, list)
                or not given
                or not all(isinstance(a, str) and a for a in given)
            ):
                raise f.error(f"displays.{d}", "a list of prototask patterns")
        if d not in DISPLAYS:
            raise f.error(
                at,
                f"unknown display {d!r}{suggest(str(d), DISPLAYS)} "
                f"(displays: {', '.join(DISPLAYS)})",
            )
        if d in names:
            raise f.error(at, f"display {d!r} is listed twice")
        names.append(d)
        if given:
            args[d] = tuple(given)
    return tuple(names), args
