"""``asz.yaml``: the configuration file (origin-digest §8.2).

Keys read, with their defaults::

    storage:
      root: ./data                      # the storage root, relative to the working directory
    adapters:                           # a file listing adapters replaces the default list
      - name: claude-code-local
        enabled: true
        source_root: ""                 # "" = the adapter's default (CLAUDE_CONFIG_DIR/projects, …)
        include: []                     # session filters, passed to the adapter's discovery
        exclude: []
        collector:
          mode: watch                   # watch | once
          interval: 10m                 # Go-style duration: 30s, 10m, 1h30m, 500ms
          max_delta_bytes: 2097152      # the cut budget in bytes (2 MiB)
    parse:
      max_round_bytes: 2097152
    storage:
      retention: {after: "", require_accepted: true}   # issue 21: asz prune (see asz_core.export.settings)
    export:
      otlp: {protocol: grpc, endpoint: "", …}          # issue 21: asz push (see asz_core.export.settings)
    view:                               # asz view / asz server (seed 004, Withholding)
      hide: []                          # withholdable flags to withhold: system_prompt, tool_schemas
      hide_override: false              # true: a request's ?hide= replaces view.hide for that request
    receive:                            # a receiving root's (asz senders; docs/push.md, Alerting on a host …)
      expect: []                        # the instances that should send: instance ids or token credential names
    prices:                             # USD per million tokens, replacing or adding entries of the shipped table
      claude-opus-4-7: {input: 5, output: 25, cache_write: 6.25, cache_read: 0.5}

An adapter entry may also hold the keys its adapter's plugin declares through
the ``asz_register_settings`` hook (``listen``, ``token``, ``thread_keys``,
``scope``, ``provider_bodies`` of ``langsmith-ingest``): each is checked by the
plugin's :class:`asz_core.Setting` and reaches :meth:`Adapter.configure` in
``entry.options``. Every other key is an error that names the key and the file
(:class:`ConfigError`), and so is a key given twice in one mapping (it names
the file, the line and the key). With no file given, ``./asz.yaml`` is read when it
exists, else the built-in defaults apply.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping, TypeVar

import attrs

from .export.settings import ExportConfig, RetentionConfig, parse_export, parse_retention
from .sessiondata.model import DEFAULT_MAX_DELTA_BYTES
from .sessiondata.vocabulary import WITHHOLDABLE
from .sessiondata.times import format_duration, parse_duration
from .storage.layout import DEFAULT_ROOT

__all__ = [
    "ConfigError",
    "CollectorConfig",
    "AdapterConfig",
    "Config",
    "load_config",
    "parse_duration",
    "format_duration",
    "DEFAULT_ADAPTER",
    "DEFAULT_CONFIG_NAME",
    "MIN_DELTA_BYTES",
    "MIN_ROUND_BYTES",
    "MIN_INTERVAL",
    "user_path",
    "check_adapter_keys",
]

#: The adapter collected when no configuration names one.
DEFAULT_ADAPTER = "claude-code-local"
#: The file read from the working directory when no ``--config`` is given.
DEFAULT_CONFIG_NAME = "asz.yaml"
#: The smallest cut budget accepted, in bytes (a header and a closing line must fit).
MIN_DELTA_BYTES = 1024
#: The smallest round budget accepted, in bytes (``parse.max_round_bytes``, ``asz parse --max-round-bytes``).
MIN_ROUND_BYTES = 1024
#: The shortest collector interval in seconds (100 ms): a shorter one spins.
MIN_INTERVAL = 0.1
#: Default collector interval in seconds (10m).
DEFAULT_INTERVAL = 600.0
DEFAULT_MAX_ROUND_BYTES = 2 * 1024 * 1024
_P = TypeVar("_P", str, Path)


def user_path(value: _P) -> _P:
    """A path a person gave (a flag, a key of ``asz.yaml``, asz's own environment variable) taken as a shell takes it:
    a leading ``~`` is ``$HOME`` (``~user`` that user's home), as :func:`os.path.expanduser` does; any other path,
    and a ``~`` whose home cannot be told, comes back unchanged. Same type back (``str`` or :class:`~pathlib.Path`),
    so ``--root "~/x"`` (quoted, the shell leaves it) is ``$HOME/x``, never a folder named ``~`` in the working
    directory (trial finding, session 14). Every ``Path`` option and argument of a command reaches it through
    :func:`asz_core.cli.quick.with_user_paths`; ``storage.root``, ``adapters[].source_root`` and
    ``export.otlp.ca_file`` through :func:`load_config`."""
    expanded = os.path.expanduser(value)
    if isinstance(value, str) or expanded == os.fspath(value):
        return expanded if isinstance(value, str) else value
    return type(value)(expanded)


class ConfigError(ValueError):
    """A configuration problem: ``where`` is ``file: key.path`` (or the flag), ``message`` says what is wrong."""

    def __init__(self, where: str, message: str):
        self.where = where
        self.message = message
        super().__init__(f"{where}: {message}" if where else message)


@attrs.define
class CollectorConfig:
    """``collector`` of one adapter: ``mode`` (watch|once), ``interval`` in seconds, ``max_delta_bytes`` in bytes."""

    mode: str = "watch"
    interval: float = DEFAULT_INTERVAL
    max_delta_bytes: int = DEFAULT_MAX_DELTA_BYTES


@attrs.define
class AdapterConfig:
    """One entry of ``adapters``: name, enabled, source_root ('' = the adapter's default), filters, collector."""

    name: str
    enabled: bool = True
    source_root: str = ""
    include: list[str] = attrs.Factory(list)
    #: The folders after the first of a ``source_root`` list (docs/configuration.md): read into the same storage root.
    more_source_roots: list[str] = attrs.Factory(list)
    exclude: list[str] = attrs.Factory(list)
    collector: CollectorConfig = attrs.Factory(CollectorConfig)
    #: The adapter's own keys (declared by its plugin through ``asz_register_settings``), each checked; a key the
    #: file does not give is absent (the adapter uses the :class:`asz_core.Setting`'s default).
    options: dict[str, Any] = attrs.Factory(dict)
    #: The entry's own keys left unchecked because its adapter was not loaded when the file was read (blocked by
    #: ``ASZ_DISABLE_ADAPTERS``, not installed, failed, or loaded later from ``--adapter-file``), as written; and
    #: where the entry is (``asz.yaml: adapters[1]``) for :func:`check_adapter_keys`'s errors.
    unchecked: dict[str, Any] = attrs.Factory(dict)
    at: str = attrs.field(default="", eq=False)


@attrs.define
class Config:
    """The whole configuration. ``path`` is the file read, None for built-in defaults."""

    root: str = DEFAULT_ROOT
    #: Whether the file read set ``storage.root`` (False: ``root`` is the default, ./data beside that file or of the
    #: working directory with no file); the new-root note says which (cli/reading_common.created_root_note).
    root_set: bool = attrs.field(default=False, eq=False)
    adapters: list[AdapterConfig] = attrs.Factory(lambda: [AdapterConfig(DEFAULT_ADAPTER)])
    max_round_bytes: int = DEFAULT_MAX_ROUND_BYTES
    #: ``view.hide``: withholdable flag names asz view withholds (a subset of WITHHOLDABLE, in file order, no repeats).
    view_hide: list[str] = attrs.Factory(list)
    #: ``view.hide_override``: when true a request's ``hide`` parameter replaces ``view_hide`` for that request.
    view_hide_override: bool = False
    #: ``export.otlp`` (issue 21): where and how ``asz push`` sends.
    export: ExportConfig = attrs.Factory(ExportConfig)
    #: ``storage.retention`` (issue 21): when ``asz prune`` removes a session's landed files.
    retention: RetentionConfig = attrs.Factory(RetentionConfig)
    #: ``receive.expect``: the instances a receiving root should hear from (their ``service.instance.id`` or token
    #: credential names), which ``asz senders`` checks when ``--expect`` is not given (trial 27b F8).
    receive_expect: list[str] = attrs.Factory(list)
    #: ``prices``: model → ``{input, output, cache_write, cache_read}`` in USD per million tokens (issue 17).
    prices: dict[str, dict[str, Any]] = attrs.Factory(dict)
    path: Path | None = None
    #: True when the file read has an ``adapters`` key (its list replaced the default one).
    adapters_listed: bool = attrs.field(default=False, eq=False)  # not a setting: equal configurations stay equal

    def enabled(self) -> list[AdapterConfig]:
        """The adapters with ``enabled: true``, in file order."""
        return [a for a in self.adapters if a.enabled]

    def adapter(self, name: str) -> AdapterConfig:
        """The entry named ``name``, or a default entry for it when the file does not list it."""
        for a in self.adapters:
            if a.name == name:
                return a
        return AdapterConfig(name)


# Durations (``10m``, ``1h30m``) are parsed and printed by :mod:`asz_core.sessiondata.times`, which the export
# settings share without importing this module; ``parse_duration`` and ``format_duration`` stay importable from here.
_INT64_MAX = 2**63 - 1


# --------------------------------------------------------------------------- loading


class _Ctx:
    def __init__(self, file: str):
        self.file = file

    def err(self, key: str, message: str) -> ConfigError:
        return ConfigError(f"{self.file}: {key}" if key else self.file, message)

    def mapping(self, value: Any, key: str, allowed: tuple[str, ...]) -> dict:
        if value is None:
            return {}
        if not isinstance(value, dict):
            raise self.err(key, f"expected a mapping, got {type(value).__name__}")
        for k in value:
            if k not in allowed:
                where = f"{key}.{k}" if key else str(k)
                raise self.err(where, f"unknown key (known here: {', '.join(allowed)})")
        return value

    def string(self, value: Any, key: str) -> str:
        if value is None:
            return ""
        if not isinstance(value, str):
            raise self.err(key, f"expected a string, got {type(value).__name__} {value!r}")
        return value

    def boolean(self, value: Any, key: str) -> bool:
        if not isinstance(value, bool):
            raise self.err(key, f"expected true or false, got {value!r}")
        return value

    def integer(self, value: Any, key: str, minimum: int) -> int:
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.err(key, f"expected an integer, got {value!r}")
        if value < minimum:
            raise self.err(key, f"must be at least {minimum}, got {value}")
        if value > _INT64_MAX:
            raise self.err(key, f"must fit in 64 bits (at most {_INT64_MAX}), got {value}")
        return value

    def strings(self, value: Any, key: str) -> list[str]:
        if value is None:
            return []
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise self.err(key, f"expected a list of strings, got {value!r}")
        return list(value)


def _collector(ctx: _Ctx, value: Any, key: str) -> CollectorConfig:
    d = ctx.mapping(value, key, ("mode", "interval", "max_delta_bytes"))
    c = CollectorConfig()
    if "mode" in d:
        c.mode = ctx.string(d["mode"], f"{key}.mode")
        if c.mode not in ("watch", "once"):
            raise ctx.err(f"{key}.mode", f"expected watch or once, got {c.mode!r}")
    if "interval" in d:
        raw = d["interval"]
        if isinstance(raw, (int, float)) and not isinstance(raw, bool) and raw != 0:
            raise ctx.err(f"{key}.interval", f"{raw!r} has no unit; write e.g. {raw}s or {raw}m")
        try:
            c.interval = parse_duration(str(raw))
        except ValueError as exc:
            raise ctx.err(f"{key}.interval", str(exc)) from None
        if c.interval < MIN_INTERVAL:
            raise ctx.err(f"{key}.interval", f"must be at least 100ms (a shorter one spins), got {raw}")
    if "max_delta_bytes" in d:
        c.max_delta_bytes = ctx.integer(d["max_delta_bytes"], f"{key}.max_delta_bytes", MIN_DELTA_BYTES)
    return c


#: The keys of an adapter entry the core reads; any other key belongs to the adapter (``asz_register_settings``).
CORE_ADAPTER_KEYS = ("name", "enabled", "source_root", "include", "exclude", "collector")


def _adapter(ctx: _Ctx, value: Any, key: str, settings: Any) -> AdapterConfig:
    if value is not None and not isinstance(value, dict):
        raise ctx.err(key, f"expected a mapping, got {type(value).__name__}")
    d = value or {}
    name = ctx.string(d.get("name"), f"{key}.name")
    if not name:
        raise ctx.err(f"{key}.name", "every adapter entry needs a name")
    a = AdapterConfig(name)
    if "enabled" in d:
        a.enabled = ctx.boolean(d["enabled"], f"{key}.enabled")
    if isinstance(d.get("source_root"), list):  # several folders: the first the storage root's own (collect/folders.py)
        roots = ctx.strings(d["source_root"], f"{key}.source_root")
        if not roots or not all(roots):
            raise ctx.err(f"{key}.source_root", f"expected folders, got {roots!r}")
        a.source_root, a.more_source_roots = roots[0], roots[1:]
    else:
        a.source_root = ctx.string(d.get("source_root"), f"{key}.source_root")
    a.include = ctx.strings(d.get("include"), f"{key}.include")
    a.exclude = ctx.strings(d.get("exclude"), f"{key}.exclude")
    if "collector" in d:
        a.collector = _collector(ctx, d["collector"], f"{key}.collector")
    a.at = f"{ctx.file}: {key}"
    a.unchecked = {str(k): d[k] for k in d if k not in CORE_ADAPTER_KEYS}
    if a.unchecked and name in settings():
        check_adapter_keys(a, settings())
    return a


def check_adapter_keys(entry: AdapterConfig, settings: Mapping[str, Any]) -> None:
    """Check ``entry``'s own keys (:attr:`AdapterConfig.unchecked`) against the :class:`asz_core.Setting` keys its
    adapter declares (``settings``: per loaded adapter name, its keys) and move each into ``entry.options``.

    Raises ConfigError ``FILE: adapters[i].KEY: unknown key (known here: …)`` or the setting's own complaint. Called
    when the file is read for every adapter loaded then, and by ``asz collect``/``sources``/``server`` once more for an
    adapter loaded later (``--adapter-file``). An entry whose adapter is not loaded keeps its keys unchecked: a
    named but blocked or uninstalled adapter is not a configuration error (docs/configuration.md; trial 20).
    """
    declared = {s.key: s for s in settings.get(entry.name, ())}
    for k, value in entry.unchecked.items():
        if k not in declared:
            known = ", ".join([*CORE_ADAPTER_KEYS, *declared])
            raise ConfigError(f"{entry.at}.{k}", f"unknown key (known here: {known})")
        try:
            entry.options[k] = declared[k].check(value)
        except (ValueError, TypeError) as exc:
            raise ConfigError(f"{entry.at}.{k}", str(exc)) from None
    entry.unchecked = {}


def installed_settings() -> dict:
    """Per loaded adapter name, the ``asz.yaml`` keys its plugin declares (``()`` for none); an adapter that is
    blocked, failed or not installed is absent (loads the plugins: call only when needed)."""
    from .plugins.manager import get_plugin_manager

    return get_plugin_manager().declared_settings()


def parse_config(data: Any, file: str = "asz.yaml", *, settings: Any = None) -> Config:
    """Build a :class:`Config` from decoded YAML ``data``; ``file`` names it in errors. Raises ConfigError.

    ``settings`` maps an adapter name to the :class:`asz_core.Setting` keys it
    reads from its entry; by default the installed plugins are asked, and only
    when an entry holds a key the core does not read.
    """
    ctx = _Ctx(file)
    cache: list[dict] = []

    def declared() -> dict:
        if settings is not None:
            return settings
        if not cache:
            cache.append(installed_settings())
        return cache[0]

    top = ctx.mapping(data, "", ("storage", "adapters", "parse", "view", "export", "receive", "prices"))
    cfg = Config()
    if "storage" in top:
        st = ctx.mapping(top["storage"], "storage", ("root", "retention"))
        if "root" in st:
            cfg.root = ctx.string(st["root"], "storage.root") or DEFAULT_ROOT
            cfg.root_set = True
        if "retention" in st:
            cfg.retention = parse_retention(ctx, st["retention"], parse_duration)
    if "export" in top:
        cfg.export = parse_export(ctx, top["export"])
    if "adapters" in top:
        raw = top["adapters"]
        if raw is None:
            raw = []
        if not isinstance(raw, list):
            raise ctx.err("adapters", f"expected a list, got {type(raw).__name__}")
        cfg.adapters = [_adapter(ctx, v, f"adapters[{i}]", declared) for i, v in enumerate(raw)]
        cfg.adapters_listed = True
        names = [a.name for a in cfg.adapters]
        for n in names:
            if names.count(n) > 1:
                raise ctx.err("adapters", f"adapter {n!r} is listed more than once")
    if "parse" in top:
        p = ctx.mapping(top["parse"], "parse", ("max_round_bytes",))
        if "max_round_bytes" in p:
            cfg.max_round_bytes = ctx.integer(p["max_round_bytes"], "parse.max_round_bytes", MIN_ROUND_BYTES)
    if "view" in top:
        v = ctx.mapping(top["view"], "view", ("hide", "hide_override"))
        names: list[str] = []
        for name in ctx.strings(v.get("hide"), "view.hide"):
            name = name.strip()
            if name not in WITHHOLDABLE:
                raise ctx.err("view.hide", f"{name!r} is not a withholdable flag (known: {', '.join(WITHHOLDABLE)})")
            if name not in names:
                names.append(name)
        cfg.view_hide = names
        if "hide_override" in v:
            cfg.view_hide_override = ctx.boolean(v["hide_override"], "view.hide_override")
    if "receive" in top:
        rv = ctx.mapping(top["receive"], "receive", ("expect",))
        names = [n.strip() for n in ctx.strings(rv.get("expect"), "receive.expect")]
        if any(not n for n in names):
            raise ctx.err("receive.expect", "an empty name (give each instance id or credential name)")
        cfg.receive_expect = list(dict.fromkeys(names))
    if "prices" in top:
        cfg.prices = _prices(ctx, top["prices"])
    return cfg


def _prices(ctx: _Ctx, value: Any) -> dict[str, dict[str, Any]]:
    """``prices``: each model's four prices, checked as the price table reads them (issue 17)."""
    from .view.prices import parse_price

    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ctx.err("prices", f"expected a mapping of model to prices, got {type(value).__name__}")
    out: dict[str, dict[str, Any]] = {}
    for model, entry in value.items():
        if not isinstance(model, str) or not model:
            raise ctx.err("prices", f"a model name must be a non-empty string, got {model!r}")
        try:
            parse_price(entry)
        except ValueError as exc:
            raise ctx.err(f"prices.{model}", str(exc)) from None
        out[model] = dict(entry)
    return out


def _unique_key_loader() -> tuple[type, type]:
    """``(loader, duplicate-key error)``: a ``yaml.SafeLoader`` that refuses a mapping naming one key twice (YAML 1.2
    §3.2.1.1: keys are unique). Made on first use, so a command run without ``asz.yaml`` never imports PyYAML."""
    import yaml

    class DuplicateKey(yaml.YAMLError):
        """A mapping names ``key`` twice: first on ``first`` and again on ``line`` (1-based lines)."""

        def __init__(self, key: Any, line: int, first: int):
            self.key, self.line, self.first = key, line, first
            super().__init__(f"line {line}: duplicate key {key!r} (first on line {first})")

    class UniqueKeyLoader(yaml.SafeLoader):
        def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict:
            """The mapping of ``node``; raises ``DuplicateKey`` on a repeated key (merge keys ``<<`` aside)."""
            seen: dict[Any, int] = {}
            for key_node, _ in node.value:
                if key_node.tag == "tag:yaml.org,2002:merge":
                    continue
                key = self.construct_object(key_node, deep=deep)
                line = key_node.start_mark.line + 1
                try:
                    if key in seen:
                        raise DuplicateKey(key, line, seen[key])
                except TypeError:  # an unhashable key: the base constructor reports it
                    continue
                seen[key] = line
            return super().construct_mapping(node, deep=deep)

    return UniqueKeyLoader, DuplicateKey


def load_config(path: str | os.PathLike | None = None, *, cwd: str | os.PathLike | None = None, settings: Any = None) -> Config:
    """Load ``path``, else ``<cwd>/asz.yaml`` when it exists, else the built-in defaults.

    Relative ``storage.root`` and ``adapters[].source_root`` values in a file
    are taken relative to the file's directory (not the working directory);
    a leading ``~`` in them, in ``export.otlp.ca_file`` and in ``path`` is the
    home folder (:func:`user_path`).

    Raises ConfigError when ``path`` is given but missing or unreadable, when
    the YAML does not parse, or when a key is unknown or has the wrong type;
    the message names the file and the key. ``settings`` as in :func:`parse_config`.
    """
    if path is None:
        candidate = Path(cwd or os.getcwd()) / DEFAULT_CONFIG_NAME
        if not candidate.is_file():
            return Config()
        path = candidate
    path = user_path(Path(path))
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(str(path), f"cannot read: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise ConfigError(str(path), "not UTF-8 text") from None
    import yaml

    loader, duplicate_key = _unique_key_loader()
    try:
        data = yaml.load(text, Loader=loader)
    except duplicate_key as exc:
        raise ConfigError(f"{path}: line {exc.line}", f"duplicate key {exc.key!r} (first on line {exc.first})") from None
    except yaml.YAMLError as exc:
        raise ConfigError(str(path), f"not valid YAML: {str(exc).replace('<unicode string>', path.name)}") from None
    cfg = parse_config(data, str(path), settings=settings)
    cfg.path = path
    # Relative paths in a file are relative to the file, whatever the working directory.
    base = path.resolve().parent
    cfg.root = user_path(cfg.root)
    if cfg.root and not os.path.isabs(cfg.root):
        cfg.root = str(base / cfg.root)
    for a in cfg.adapters:
        a.source_root = user_path(a.source_root)
        if a.source_root and not os.path.isabs(a.source_root):
            a.source_root = str(base / a.source_root)
        a.more_source_roots = [p if os.path.isabs(p) else str(base / p) for p in map(user_path, a.more_source_roots)]
    cfg.export.ca_file = user_path(cfg.export.ca_file)
    return cfg
