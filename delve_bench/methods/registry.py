"""Named methods: ``methods/<name>.yaml`` binds a name to a plugin, fixed parameters and
a budget rule; the entry-point group ``delve_bench.methods`` adds installed plugins.

A YAML spec::

    name: lin-1
    plugin: delve_bench.methods.lin:Lin       # any importable class
    params: {}                                # keyword arguments of the class
    budget: {cpu_per_case: 30, cpu_cap: 28800, work: 150}
    summary: one line for ``delve methods``   # optional; else the description's first sentence
    description: ...

The plugin may also be any scikit-learn-style regressor class (``fit``/``predict``),
wrapped by :class:`delve_bench.methods.sklearn.SklearnRegressor`, or classifier class
(with ``predict_proba``), wrapped by :class:`~delve_bench.methods.sklearn.SklearnClassifier`.

``METHOD@F`` (e.g. ``mlp-mc-1@0.25``) names METHOD with F times its budget: the same
plugin, parameters and seed, every budget figure scaled by F. It is a result of its own
(its own directory, meta.json and provenance). An anytime method (one implementing
:meth:`~delve_bench.methods.base.Method.snapshot`) makes it as a snapshot of a full run,
the prediction it would have made had its budget ended at F (the thesis' Fig. 5.19).
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import importlib.util
import inspect
import re
from dataclasses import dataclass, field
from pathlib import Path

from ..defaults import (
    BUDGET_KEYS,
    BUDGET_MODES,
    CPU_BUDGET_KEYS,
    DEFAULT_TIME_SCALE,
    WORK_BUDGET_KEYS,
)
from ..errors import DelveError, suggest
from ..specfile import Fields, read_yaml
from ..workspace import WorkspaceDirs, spec_files
from .base import Budget, Method

_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")


def split_fraction(name: str) -> tuple[str, float | None]:
    """``('mlp-mc-1', 0.25)`` for ``mlp-mc-1@0.25``; ``(name, None)`` without ``@``.

    The fraction must be written canonically (``format(F, 'g')``: 0.25, 0.125, 2), so that
    one budget has one name and one result directory."""
    base, at, frac = name.partition("@")
    if not at:
        return name, None
    try:
        f = float(frac)
    except ValueError:
        f = float("nan")
    if not (f > 0 and f < float("inf")):
        raise DelveError(f"{name!r}: the budget fraction after @ must be a positive number")
    if format(f, "g") != frac:
        raise DelveError(f"{name!r}: write the fraction as {format(f, 'g')} ({base}@{f:g})")
    return base, f


def fraction_name(base: str, fraction: float) -> str:
    """The canonical name of ``base`` with ``fraction`` of its budget."""
    return base if fraction == 1 else f"{base}@{format(fraction, 'g')}"


@dataclass(frozen=True)
class MethodSpec:
    """A named, versioned method: plugin, fixed parameters, budget rule, description."""

    name: str
    plugin: str
    params: dict = field(default_factory=dict)
    budget: dict = field(default_factory=dict)
    description: str = ""
    source: str = ""
    short: str = ""  # the YAML's one-line ``summary`` (see :attr:`summary`)
    #: ``METHOD@F``: the method this one scales, and F (1 for a plain method)
    base: str = ""
    fraction: float = 1.0

    @property
    def seed_name(self) -> str:
        """The name its random seed derives from: a budget fraction of a method draws the
        same random numbers as the method itself, so a snapshot equals a shorter run."""
        return self.base or self.name

    #: the method's code version (YAML ``version:``): bump it when a code change alters
    #: the method's results, so that older results read as stale (docs/provenance.md)
    version: str | None = None

    def load_class(self) -> type:
        mod, _, attr = self.plugin.partition(":")
        try:
            obj = importlib.import_module(mod)
            for part in attr.split("."):
                obj = getattr(obj, part)
        except Exception as e:  # ImportError, AttributeError, or the module's own error
            raise DelveError(
                f"method {self.name}: cannot import plugin {self.plugin!r} "
                f"({type(e).__name__}: {e})"
            ) from None
        return obj  # type: ignore[return-value]

    def instantiate(self) -> Method:
        cls = self.load_class()
        if isinstance(cls, type) and issubclass(cls, Method):
            return cls(**self.params)
        if hasattr(cls, "fit") and hasattr(cls, "predict"):
            from .sklearn import SklearnClassifier, SklearnRegressor, is_sklearn_classifier

            if is_sklearn_classifier(cls):
                return SklearnClassifier(estimator=cls, **self.params)
            return SklearnRegressor(estimator=cls, **self.params)
        raise DelveError(
            f"method {self.name}: {self.plugin} is neither a delve-bench Method "
            "nor a regressor with fit/predict"
        )

    def budget_rule(self, mode: str | None = None) -> str:
        """The budget rule in words: ``cpu 30 s/case``, ``work 20000``, ... (``mode``: only
        that mode's part; None: both modes and the hard limit). CPU seconds are
        1996-machine seconds, multiplied by ``--time-scale`` when a run starts."""
        b = self.budget or {}
        cpu = []
        if b.get("cpu_fixed"):
            cpu.append(f"{_num(b['cpu_fixed'])} s")
        if b.get("cpu_per_case") is not None:
            cpu.append(f"{_num(b['cpu_per_case'])} s/case")
        cpu_text = " + ".join(cpu) + (
            f" (at most {_num(b['cpu_cap'])} s)" if "cpu_cap" in b else ""
        )
        work = []
        if b.get("work"):
            work.append(_num(b["work"]))
        if b.get("work_per_case") is not None:
            work.append(f"{_num(b['work_per_case'])}/case")
        work_text = " + ".join(work) + (
            f" (at most {_num(b['work_cap'])})" if "work_cap" in b else ""
        )
        if mode == "cpu":
            return f"cpu {cpu_text}" if cpu else "no cpu budget"
        if mode == "work":
            return f"work {work_text}" if work else "no work budget"
        parts = ([f"cpu {cpu_text}"] if cpu else []) + ([f"work {work_text}"] if work else [])
        if b.get("hard_limit") is not None:
            parts.append(f"hard limit {_num(b['hard_limit'])} s")
        return "; ".join(parts) or "runs to completion"

    def losses_served(self) -> tuple[str, ...] | None:
        """The losses the method gives (``L`` needs a predictive density); None when its
        plugin cannot be imported here."""
        try:
            cls = self.load_class()
        except DelveError:
            return None
        if isinstance(cls, type) and issubclass(cls, Method):
            return tuple(cls.losses)
        from .sklearn import SklearnClassifier, SklearnRegressor, is_sklearn_classifier

        wrapper = SklearnClassifier if is_sklearn_classifier(cls) else SklearnRegressor
        return tuple(wrapper.losses)

    @property
    def summary(self) -> str:
        """One line: the YAML's ``summary``, else the description's first sentence."""
        if self.short:
            return self.short
        text = " ".join(self.description.split())
        m = re.search(r"[.;:](\s|$)", text)
        return text[: m.start() + 1].rstrip(";:") if m else text

    def make_budget(
        self, n_train: int, mode: str, time_scale: float = DEFAULT_TIME_SCALE
    ) -> Budget:
        """The budget of one instance with ``n_train`` training cases."""
        b = self.budget or {}
        if mode == "cpu":
            per, fixed, cap = (b.get("cpu_per_case"), b.get("cpu_fixed", 0.0), b.get("cpu_cap"))
            if per is None and not fixed and cap is None:
                return Budget(mode="cpu")
            secs = float(fixed) + float(per or 0.0) * n_train
            if cap is not None:
                secs = min(secs, float(cap))
            return Budget(mode="cpu", cpu_seconds=secs * time_scale * self.fraction)
        if mode not in BUDGET_MODES:
            raise DelveError(f"budget mode must be {' or '.join(BUDGET_MODES)}, not {mode!r}")
        work = b.get("work")
        per = b.get("work_per_case")
        if work is None and per is None:
            return Budget(mode="work")
        units = int(work or 0) + int(round(float(per or 0) * n_train))
        if b.get("work_cap") is not None:
            units = min(units, int(b["work_cap"]))
        if self.fraction != 1:
            units = max(1, int(round(units * self.fraction)))
        return Budget(mode="work", work=units)


def _num(x) -> str:
    return f"{x:g}" if isinstance(x, float) else str(x)


#: the keys a method spec may have (those of its ``budget``: defaults.BUDGET_KEYS)
KEYS = ("name", "plugin", "params", "budget", "summary", "description", "version")
_WHOLE_BUDGET_KEYS = ("work", "work_cap")
_PLUGIN = re.compile(r"^[A-Za-z_][\w.]*:[A-Za-z_][\w.]*$")
_PARAM = re.compile(r"^[A-Za-z_]\w*$")
_PARSED: dict[tuple[Path, int], MethodSpec] = {}


def _parse(path: Path) -> MethodSpec:
    """Parse a method YAML; cached per file version (runs look methods up for every job)."""
    try:
        key = (path, path.stat().st_mtime_ns)
    except OSError as e:
        raise DelveError(f"{path}: cannot read ({e.strerror or e})") from None
    if key not in _PARSED:
        _PARSED[key] = _parse_file(path)
    return _PARSED[key]


def _budget(f: Fields) -> dict:
    b = f.mapping("budget", BUDGET_KEYS)
    if b is None:
        return {}
    out: dict = {}
    for k in (k for k in BUDGET_KEYS if k in b):
        if k == "hard_limit":
            out[k] = b.number(k, positive=True)
        elif k in _WHOLE_BUDGET_KEYS:  # a number of work units
            out[k] = b.whole(k, minimum=0)
        else:  # CPU seconds, or work units per training case
            out[k] = b.number(k)
    return out


def _parse_file(path: Path) -> MethodSpec:
    f = Fields(path, read_yaml(path), allowed=KEYS)
    name = f.check_name("method")
    if not _NAME.match(name):
        raise f.error("name", f"{name!r} is not a method name (letters, digits, - _ . +)")
    plugin = f.required("plugin")
    if not _PLUGIN.match(plugin):
        raise f.error("plugin", f"{plugin!r} is not module:Class")
    params = f.mapping("params")
    if params is not None:
        for k in params.raw:
            if not _PARAM.match(k):
                raise params.error(k, "is not a keyword argument name")
    version = f.raw.get("version")
    if version is not None and (
        isinstance(version, bool) or not isinstance(version, str | int | float)
    ):
        raise f.error("version", "expected text or a number, e.g. version: 2")
    return MethodSpec(
        name=name,
        plugin=plugin,
        params=dict(params.raw) if params is not None else {},
        budget=_budget(f),
        description=f.optional("description").strip(),
        source=str(path),
        short=" ".join((f.text("summary", "") or "").split()),
        version=None if version is None else str(version),
    )


@functools.lru_cache(maxsize=1)
def _entry_point_specs() -> dict[str, MethodSpec]:
    # imported here: importlib.metadata (with the email package it parses metadata with)
    # is a tenth of a run's start-up, and most names are found among the YAML files first
    from importlib import metadata

    out: dict[str, MethodSpec] = {}
    for ep in metadata.entry_points(group="delve_bench.methods"):
        out[ep.name] = MethodSpec(name=ep.name, plugin=ep.value, source=f"entry point {ep.value}")
    return out


def _method_files(ws: WorkspaceDirs) -> dict[str, Path]:
    """Method YAML files by name (the file name); the workspace's override the built-ins.
    Nothing is parsed here, so a broken file only breaks the commands that use it."""
    return spec_files(reversed(ws.spec_dirs("methods")))


def method_names(ws: WorkspaceDirs) -> list[str]:
    return sorted(set(_entry_point_specs()) | set(_method_files(ws)))


def is_method(ws: WorkspaceDirs, name: str) -> bool:
    """Whether ``name`` (without ``@F``) names a method: a YAML file, else an entry point
    (looked up only then: reading the installed packages' entry points is a tenth of a
    run's start-up, and a task pattern such as ``kin-8*`` cannot name a method)."""
    if name in _method_files(ws):
        return True
    return bool(_NAME.match(name)) and name in _entry_point_specs()


def method_spec(ws: WorkspaceDirs, name: str) -> MethodSpec:
    """The spec of method ``name`` (or ``METHOD@F``); a one-line error with close names
    when unknown."""
    base, fraction = split_fraction(name)
    if fraction is not None:
        spec = method_spec(ws, base)
        if not any(spec.budget.get(k) is not None for k in CPU_BUDGET_KEYS + WORK_BUDGET_KEYS):
            raise DelveError(f"{name!r}: {base} has no budget to take a fraction of")
        return dataclasses.replace(spec, name=name, base=base, fraction=fraction)
    if not _NAME.match(name):
        raise DelveError(f"{name!r} is not a method name")
    files = _method_files(ws)
    if name in files:
        return _parse(files[name])
    eps = _entry_point_specs()
    if name in eps:
        return eps[name]
    raise DelveError(
        f"unknown method {name!r}{suggest(name, set(files) | set(eps))}; `delve methods` lists them"
    )


def checked_method(ws: WorkspaceDirs, name: str) -> MethodSpec:
    """The spec of ``name`` with its plugin imported and instantiated once, so that a plugin
    that cannot be imported or refuses its parameters is one error before any job runs."""
    spec = method_spec(ws, name)
    try:
        method = spec.instantiate()
        for module, extra in method.requires.items():
            if importlib.util.find_spec(module) is None:
                raise DelveError(
                    f"method {name} needs the package {module!r}, which is not installed: "
                    f"pip install 'delve-bench[{extra}]'"
                )
        from .sklearn import SklearnRegressor

        if isinstance(method, SklearnRegressor):  # it builds the estimator in fit: check now
            try:
                signature = inspect.signature(method.estimator_cls)
            except (TypeError, ValueError):  # no introspectable signature: fit will tell
                signature = None
            if signature is not None:
                signature.bind(**method.params)
    except DelveError:
        raise
    except Exception as e:  # the plugin's own error: name the method and the plugin
        raise DelveError(
            f"method {name}: {spec.plugin} with params {spec.params} fails "
            f"({type(e).__name__}: {e})"
        ) from None
    return spec
