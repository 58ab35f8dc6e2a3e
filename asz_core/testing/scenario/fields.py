"""Reading the scenario language's YAML: typed field readers that name the file and key path (origin-digest §9.1).

Each reader takes a raw YAML value and a :class:`Where` (file path and key
path such as ``steps[3].call.tools[0]``) and returns the value typed, or
raises :class:`ScenarioError` naming that place: a key the language does not
have, a value of the wrong type, a duration that is not Go style. Absent
values (None) give the reader's default. Durations are held as integer
milliseconds (:func:`parse_duration_ms`).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import yaml

__all__ = ["ScenarioError", "parse_duration_ms", "Where", "read_map", "read_str", "read_bool", "read_int", "read_dur", "read_list",
           "load_yaml", "scenario_name"]


class ScenarioError(ValueError):
    """A scenario or expectation file that cannot be read: ``path`` and ``message`` name the place.

    The CLI maps it to exit code 2 (usage).
    """

    def __init__(self, path: str, message: str):
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


_UNIT_MS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1000.0, "m": 60000.0, "h": 3600000.0}


def parse_duration_ms(value: Any, where: str = "duration") -> int:
    """``"1s"`` → 1000, ``"100ms"`` → 100, ``"+11.1s"`` → 11100, ``0`` → 0 (milliseconds, int).

    Several parts (``1m30s``) add up. Raises ValueError naming ``where`` for
    anything else (a bare number other than 0, a negative value, no unit).
    """
    if value == 0 or value == "0":
        return 0
    s = str(value).strip()
    total = 0.0
    pos = 1 if s.startswith("+") else 0
    part = re.compile(r"(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)")
    if pos >= len(s):
        raise ValueError(f"{where}: {value!r} is not a duration such as 1s or 100ms")
    while pos < len(s):
        m = part.match(s, pos)
        if not m:
            raise ValueError(f"{where}: {value!r} is not a duration such as 1s or 100ms")
        total += float(m.group(1)) * _UNIT_MS[m.group(2)]
        pos = m.end()
    return int(round(total))


class Where:
    """Where a value sits: file path and key path, for error messages."""

    def __init__(self, path: str, keys: str = ""):
        self.path = path
        self.keys = keys

    def at(self, key: Any) -> "Where":
        """The place of ``key`` inside this one: ``keys[3]`` for an index, ``keys.name`` for a key."""
        if isinstance(key, int):
            return Where(self.path, f"{self.keys}[{key}]")
        return Where(self.path, f"{self.keys}.{key}" if self.keys else str(key))

    def fail(self, message: str) -> ScenarioError:
        """A ScenarioError saying ``message`` at this place (the caller raises it)."""
        return ScenarioError(self.path, f"{self.keys}: {message}" if self.keys else message)


def read_map(v: Any, ctx: Where, allowed: tuple[str, ...]) -> dict:
    """A mapping whose keys are all in ``allowed`` ({} for None); raises ScenarioError naming the first other key."""
    if v is None:
        return {}
    if not isinstance(v, dict):
        raise ctx.fail(f"expected a mapping, got {type(v).__name__}")
    for k in v:
        if k not in allowed:
            raise ctx.fail(f"unknown key {k!r} (allowed: {', '.join(allowed)})")
    return v


def read_str(v: Any, ctx: Where, default: str = "") -> str:
    """Text (a number is taken as its text); ``default`` for None; raises ScenarioError for a bool, mapping or list."""
    if v is None:
        return default
    if isinstance(v, bool) or isinstance(v, (dict, list)):
        raise ctx.fail(f"expected text, got {type(v).__name__}")
    return str(v)


def read_bool(v: Any, ctx: Where, default: bool = False) -> bool:
    """``true`` or ``false``; ``default`` for None; raises ScenarioError for anything else."""
    if v is None:
        return default
    if not isinstance(v, bool):
        raise ctx.fail(f"expected true or false, got {v!r}")
    return v


def read_int(v: Any, ctx: Where) -> int:
    """An integer (not a bool); raises ScenarioError for anything else."""
    if isinstance(v, bool) or not isinstance(v, int):
        raise ctx.fail(f"expected an integer, got {v!r}")
    return v


def read_dur(v: Any, ctx: Where) -> int | None:
    """A Go-style duration in milliseconds (:func:`parse_duration_ms`), None for None; raises ScenarioError."""
    if v is None:
        return None
    try:
        return parse_duration_ms(v, ctx.keys)
    except ValueError as exc:
        raise ctx.fail(str(exc).split(": ", 1)[-1]) from None


def read_list(v: Any, ctx: Where) -> list:
    """A list ([] for None); raises ScenarioError for anything else."""
    if v is None:
        return []
    if not isinstance(v, list):
        raise ctx.fail(f"expected a list, got {type(v).__name__}")
    return v


def load_yaml(path: Path) -> Any:
    """The YAML document in the file at ``path``; raises ScenarioError when it cannot be read or is not YAML."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ScenarioError(str(path), f"cannot read: {exc.strerror or exc}") from None
    try:
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise ScenarioError(str(path), f"not YAML: {exc}") from None


def scenario_name(path: str | Path) -> str:
    """``dir/NAME.yaml`` or ``dir/NAME.expect.yaml`` → ``NAME``."""
    n = Path(path).name
    for suffix in (".expect.yaml", ".yaml", ".yml"):
        if n.endswith(suffix):
            return n[: -len(suffix)]
    return n
