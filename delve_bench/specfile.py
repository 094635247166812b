"""Reading the YAML specs (datasets, prototasks, methods) with every field typed and checked.

A spec is a mapping of known keys; each value is checked where it is read, and an error
names the file and the field, e.g.
``tasks/kin-8nm/dist.yaml: training-set-sizes[1]: expected a whole number, got 'abc'``.
Unknown keys are errors too (with the closest known key), so a typo is never silently
ignored.

The YAML is read by :func:`load_yaml`: the safe loader without aliases (``&a`` / ``*a``:
a few lines of aliases can expand to gigabytes, the "billion laughs"), with at most
:data:`MAX_DEPTH` levels of nesting and no key twice in one mapping (YAML says keys are
unique; PyYAML keeps the last one silently).
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Iterable
from pathlib import Path
from typing import Any

import yaml

from .errors import DelveError, suggest

_BASE = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
#: deepest nesting of mappings and lists a spec may have
MAX_DEPTH = 32


class _Loader(_BASE):  # type: ignore[misc,valid-type]
    """The safe loader, refusing a key that a mapping has twice."""


def _unique_map(loader, node):
    seen: set = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=True)
        try:
            dup = key in seen
            seen.add(key)
        except TypeError:  # an unhashable key: the constructor reports it
            continue
        if dup:
            raise yaml.constructor.ConstructorError(
                None, None, f"duplicate key {_show(key)}, line {key_node.start_mark.line + 1}", None
            )
    return loader.construct_yaml_map(node)


_Loader.add_constructor("tag:yaml.org,2002:map", _unique_map)


def load_yaml(text: str):
    """The value of YAML ``text`` (see the module doc for what is refused). Raises
    yaml.YAMLError with the reason."""
    depth = 0
    for event in yaml.parse(text, Loader=_BASE):
        line = event.start_mark.line + 1 if event.start_mark is not None else "?"
        if isinstance(event, yaml.AliasEvent):
            raise yaml.YAMLError(f"aliases (*{event.anchor}) are not allowed, line {line}")
        if isinstance(event, yaml.CollectionStartEvent):
            depth += 1
            if depth > MAX_DEPTH:
                raise yaml.YAMLError(f"nested more than {MAX_DEPTH} levels deep, line {line}")
        elif isinstance(event, yaml.CollectionEndEvent):
            depth -= 1
    return yaml.load(text, Loader=_Loader)


_HEX = {40: re.compile(r"^[0-9a-f]{40}$"), 64: re.compile(r"^[0-9a-f]{64}$")}


def _show(value: Any) -> str:
    """A short rendering of a bad value for an error message."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def read_yaml(path: Path, shown: Path | None = None) -> dict[str, Any]:
    """The mapping held by the YAML file ``path`` (an empty file is an empty mapping);
    errors name it ``shown`` (default: ``path``)."""
    where = path if shown is None else shown
    try:
        text = path.read_bytes().decode("utf-8")
    except OSError as e:
        raise DelveError(f"{where}: cannot read ({e.strerror or e})") from None
    except UnicodeDecodeError:
        raise DelveError(f"{where}: not a UTF-8 text file") from None
    try:
        raw = load_yaml(text)
    except yaml.YAMLError as e:
        raise DelveError(f"{where}: not valid YAML ({str(e).splitlines()[0]})") from None
    except (ValueError, TypeError, OverflowError, RecursionError) as e:
        # the safe loader's constructors (dates, numbers) and very deep nesting
        raise DelveError(f"{where}: not valid YAML ({type(e).__name__}: {e})") from None
    if raw is None:
        return {}
    if not isinstance(raw, dict):
        raise DelveError(
            f"{where}: expected a mapping of keys to values, got a {type(raw).__name__}"
        )
    for key in raw:
        if not isinstance(key, str):
            raise DelveError(f"{where}: key {_show(key)} is not a name")
    return raw


class Fields:
    """Typed access to one mapping of a spec file; errors name the file and the field.

    ``where`` is the path of the mapping inside the file (``budget.``, ``attributes[2].``)."""

    def __init__(self, path: Path, raw: Any, where: str = "", allowed: Collection[str] = ()):
        self.path = path
        self.where = where
        if not isinstance(raw, dict):
            raise self.error("", f"expected a mapping of keys to values, got {_show(raw)}")
        for key in raw:
            if not isinstance(key, str):
                raise self.error("", f"key {_show(key)} is not a name")
        self.raw: dict[str, Any] = raw
        if allowed:
            unknown = sorted(set(raw) - set(allowed))
            if unknown:
                hint = (
                    suggest(unknown[0], allowed, n=1) or f" (known: {', '.join(sorted(allowed))})"
                )
                raise self.error(unknown[0], f"unknown key{hint}")

    def error(self, key: str, message: str) -> DelveError:
        """An error about field ``key`` of this mapping (``key[i]`` for a list item)."""
        field = f"{self.where}{key}".rstrip(".")
        return DelveError(
            f"{self.path}: {field}: {message}" if field else f"{self.path}: {message}"
        )

    def wholes(self, key: str, minimum: int | None = None, maximum: int | None = None) -> list[int]:
        """A required, non-empty list of whole numbers."""
        items = self.items(key, required=True)
        if not items:
            raise self.error(key, "the list is empty")
        return [
            whole(v, minimum, lambda m, i=i: self.error(f"{key}[{i}]", m), maximum)
            for i, v in enumerate(items)
        ]

    def __contains__(self, key: str) -> bool:
        return key in self.raw and self.raw[key] is not None

    def _get(self, key: str, required: bool) -> Any:
        if key not in self:
            if required:
                raise self.error(key, "missing (required)")
            return None
        return self.raw[key]

    def text(self, key: str, default: str | None = None, required: bool = False) -> str | None:
        v = self._get(key, required)
        if v is None:
            return default
        if not isinstance(v, str):
            raise self.error(key, f"expected text, got {_show(v)}")
        return v

    def required(self, key: str) -> str:
        """A text field that must be there."""
        v = self.text(key, required=True)
        assert v is not None  # text() raises for a missing required field
        return v

    def optional(self, key: str, default: str = "") -> str:
        """A text field with a default."""
        v = self.text(key, default)
        return default if v is None else v

    def file_name(self, key: str, required: bool = False) -> str | None:
        """A file name relative to a data directory (sub-folders allowed, nothing outside it)."""
        name = self.text(key, required=required)
        if name is None:
            return None
        parts = name.replace("\\", "/").split("/")
        if not name or name.startswith("/") or any(p in ("", ".", "..") for p in parts):
            raise self.error(key, f"{name!r} must be a file name relative to a data directory")
        return name

    def choice(self, key: str, choices: Iterable[str], default: str | None = None) -> str:
        choices = list(choices)
        v = self.text(key, default, required=default is None)
        if v is None or v not in choices:
            raise self.error(key, f"{_show(v)} is not one of {', '.join(choices)}")
        return v

    def whole(
        self,
        key: str,
        default: int | None = None,
        minimum: int | None = None,
        maximum: int | None = None,
    ) -> int:
        v = self._get(key, default is None)  # raises when missing and there is no default
        if v is None and default is not None:
            return default
        return whole(v, minimum, lambda m: self.error(key, m), maximum)

    def number(
        self, key: str, default: float | None = None, minimum: float = 0.0, positive: bool = False
    ) -> float | None:
        v = self._get(key, False)
        if v is None:
            return default
        return number(v, minimum, positive, lambda m: self.error(key, m))

    def hexdigest(self, key: str, length: int, required: bool = False) -> str | None:
        v = self.text(key, required=required)
        if v is not None and not _HEX[length].match(v):
            raise self.error(key, f"expected {length} lowercase hex digits, got {_show(v)}")
        return v

    def items(self, key: str, required: bool = False) -> list:
        v = self._get(key, required)
        if v is None:
            return []
        if not isinstance(v, list):
            raise self.error(key, f"expected a list, got {_show(v)}")
        return v

    def mapping(self, key: str, allowed: Collection[str] = ()) -> Fields | None:
        v = self._get(key, False)
        return None if v is None else Fields(self.path, v, f"{self.where}{key}.", allowed)

    def item_fields(self, key: str, i: int, value: Any, allowed: Collection[str] = ()) -> Fields:
        """Fields of the mapping at ``key[i]``."""
        return Fields(self.path, value, f"{self.where}{key}[{i}].", allowed)

    def check_name(self, kind: str) -> str:
        """The spec's ``name:``, which must equal its file name (one name, one file)."""
        name = self.text("name", self.path.stem)
        if name != self.path.stem:
            raise self.error(
                "name", f"{_show(name)} differs from the file name; rename one so both say the same"
            )
        return name


def whole(value: Any, minimum: int | None, error, maximum: int | None = None) -> int:
    """``value`` as an int (YAML integers only; booleans are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise error(f"expected a whole number, got {_show(value)}")
    if minimum is not None and value < minimum:
        raise error(f"must be at least {minimum}, got {value}")
    if maximum is not None and value > maximum:
        raise error(f"must be at most {maximum}, got {_show(value)}")
    return value


def number(value: Any, minimum: float, positive: bool, error) -> float:
    """``value`` as a finite float >= ``minimum`` (> when ``positive``)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise error(f"expected a number, got {_show(value)}")
    x = float(value)
    if not math.isfinite(x):
        raise error(f"expected a finite number, got {_show(value)}")
    if positive and x <= minimum:
        raise error(f"must be greater than {minimum:g}, got {value}")
    if x < minimum:
        raise error(f"must be at least {minimum:g}, got {value}")
    return x
