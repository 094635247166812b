"""Named methods: ``methods/<name>.yaml`` binds a name to a plugin, fixed parameters and
a budget rule; the entry-point group ``delve_bench.methods`` adds installed plugins.

A YAML spec::

    name: lin-1
    plugin: delve_bench.methods.lin:Lin1      # any importable class
    params: {}                                # keyword arguments of the class
    budget: {cpu_per_case: 30, cpu_cap: 28800, work: 150}
    description: ...

The plugin may also be any scikit-learn-style regressor class (``fit``/``predict``);
it is wrapped by :class:`delve_bench.methods.sklearn.SklearnRegressor`.

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
import re
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import yaml

from ..errors import DelveError, suggest
from ..workspace import Workspace
from .base import Budget, Method

#: a modern core does in 1 CPU second what the thesis' 200 MHz R4400 did in 20
DEFAULT_TIME_SCALE = 0.05
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")
_BUDGET_KEYS = ("cpu_per_case", "cpu_fixed", "cpu_cap", "work", "work_per_case", "work_cap")


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
    #: ``METHOD@F``: the method this one scales, and F (1 for a plain method)
    base: str = ""
    fraction: float = 1.0

    @property
    def seed_name(self) -> str:
        """The name its random seed derives from: a budget fraction of a method draws the
        same random numbers as the method itself, so a snapshot equals a shorter run."""
        return self.base or self.name

    def load_class(self) -> type:
        mod, _, attr = self.plugin.partition(":")
        try:
            obj = importlib.import_module(mod)
            for part in attr.split("."):
                obj = getattr(obj, part)
        except (ImportError, AttributeError) as e:
            raise DelveError(
                f"method {self.name}: cannot import plugin {self.plugin!r} ({e})"
            ) from None
        return obj  # type: ignore[return-value]

    def instantiate(self) -> Method:
        cls = self.load_class()
        if isinstance(cls, type) and issubclass(cls, Method):
            return cls(**self.params)
        if hasattr(cls, "fit") and hasattr(cls, "predict"):
            from .sklearn import SklearnRegressor

            return SklearnRegressor(estimator=cls, **self.params)
        raise DelveError(
            f"method {self.name}: {self.plugin} is neither a delve-bench Method "
            "nor a regressor with fit/predict"
        )

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
        if mode != "work":
            raise DelveError(f"budget mode must be cpu or work, not {mode!r}")
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


_PARSED: dict[tuple[Path, int], MethodSpec] = {}


def _parse(path: Path) -> MethodSpec:
    """Parse a method YAML; cached per file version (runs look methods up for every job)."""
    key = (path, path.stat().st_mtime_ns)
    if key not in _PARSED:
        _PARSED[key] = _parse_file(path)
    return _PARSED[key]


def _parse_file(path: Path) -> MethodSpec:
    try:
        raw = yaml.load(path.read_text(), Loader=_LOADER) or {}
    except yaml.YAMLError as e:
        raise DelveError(f"{path}: not valid YAML ({str(e).splitlines()[0]})") from None
    if "plugin" not in raw:
        raise DelveError(f"{path}: no 'plugin' (module:Class)")
    return MethodSpec(
        str(raw.get("name", path.stem)),
        str(raw["plugin"]),
        dict(raw.get("params") or {}),
        dict(raw.get("budget") or {}),
        str(raw.get("description", "")).strip(),
        str(path),
    )


_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@functools.lru_cache(maxsize=1)
def _entry_point_specs() -> dict[str, MethodSpec]:
    out: dict[str, MethodSpec] = {}
    try:
        eps = metadata.entry_points(group="delve_bench.methods")
    except TypeError:  # pragma: no cover - Python < 3.10
        eps = metadata.entry_points().get("delve_bench.methods", [])
    for ep in eps:
        out[ep.name] = MethodSpec(ep.name, ep.value, source=f"entry point {ep.value}")
    return out


def _all_specs(ws: Workspace) -> dict[str, MethodSpec]:
    specs = dict(_entry_point_specs())
    for d in reversed(ws.spec_dirs("methods")):  # the workspace overrides the built-ins
        for p in sorted(d.glob("*.yaml")):
            spec = _parse(p)
            specs[spec.name] = spec
    return specs


def method_names(ws: Workspace) -> list[str]:
    return sorted(_all_specs(ws))


def method_spec(ws: Workspace, name: str) -> MethodSpec:
    """The spec of method ``name`` (or ``METHOD@F``); a one-line error with close names
    when unknown."""
    base, fraction = split_fraction(name)
    if fraction is not None:
        spec = method_spec(ws, base)
        if not any(spec.budget.get(k) is not None for k in _BUDGET_KEYS):
            raise DelveError(f"{name!r}: {base} has no budget to take a fraction of")
        return dataclasses.replace(spec, name=name, base=base, fraction=fraction)
    if not _NAME.match(name):
        raise DelveError(f"{name!r} is not a method name")
    specs = _all_specs(ws)
    if name not in specs:
        raise DelveError(
            f"unknown method {name!r}{suggest(name, specs)}; `delve methods` lists them"
        )
    return specs[name]
