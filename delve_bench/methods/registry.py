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
"""

from __future__ import annotations

import functools
import importlib
import re
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import yaml

from ..errors import DelveError, suggest
from ..workspace import Workspace, yaml_files
from .base import Budget, Method

#: a modern core does in 1 CPU second what the thesis' 200 MHz R4400 did in 20
DEFAULT_TIME_SCALE = 0.05
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.+-]*$")


@dataclass(frozen=True)
class MethodSpec:
    """A named, versioned method: plugin, fixed parameters, budget rule, description."""

    name: str
    plugin: str
    params: dict = field(default_factory=dict)
    budget: dict = field(default_factory=dict)
    description: str = ""
    source: str = ""
    #: the method's code version (YAML ``version:``): bump it when a code change alters
    #: the method's results, so that older results read as stale (docs/provenance.md)
    version: str | None = None

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
            return Budget(mode="cpu", cpu_seconds=secs * time_scale)
        if mode != "work":
            raise DelveError(f"budget mode must be cpu or work, not {mode!r}")
        work = b.get("work")
        per = b.get("work_per_case")
        if work is None and per is None:
            return Budget(mode="work")
        units = int(work or 0) + int(round(float(per or 0) * n_train))
        if b.get("work_cap") is not None:
            units = min(units, int(b["work_cap"]))
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
    version = raw.get("version")
    return MethodSpec(
        name=str(raw.get("name", path.stem)),
        plugin=str(raw["plugin"]),
        params=dict(raw.get("params") or {}),
        budget=dict(raw.get("budget") or {}),
        description=str(raw.get("description", "")).strip(),
        source=str(path),
        version=None if version is None else str(version),
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
        for p in yaml_files(d):
            spec = _parse(p)
            specs[spec.name] = spec
    return specs


def method_names(ws: Workspace) -> list[str]:
    return sorted(_all_specs(ws))


def method_spec(ws: Workspace, name: str) -> MethodSpec:
    """The spec of method ``name``; a one-line error with close names when unknown."""
    if not _NAME.match(name):
        raise DelveError(f"{name!r} is not a method name")
    specs = _all_specs(ws)
    if name not in specs:
        raise DelveError(
            f"unknown method {name!r}{suggest(name, specs)}; `delve methods` lists them"
        )
    return specs[name]
