"""The ``export.otlp`` and ``storage.retention`` keys of ``asz.yaml`` (origin-digest §8.2; issue 21).

::

    export:
      otlp:
        protocol: grpc             # grpc | http (protobuf body, POST <base>/v1/logs)
        endpoint: ""               # grpc://HOST:PORT, http://HOST:PORT, https://…; "" = push refuses
        tls: false                 # true: TLS to the endpoint (system roots, or ca_file)
        ca_file: ""                # PEM roots to trust instead of the system's (asz's own key)
        service_name: ""           # "" = the runtime of the session (e.g. "Claude Code")
        instance_id: ""            # "" = user@host
        layer: AI_AGENT
        headers: {}                # sent with every request (gRPC metadata keys are lowercased)
        batch_bytes: 8388608       # file bytes per request (a larger file goes alone)
        max_bytes_per_minute: 0    # 0 = no limit
        logs: true
        metrics: true              # logs or metrics must be on
    storage:
      retention:
        after: ""                  # a duration (72h, 30m); "" = keep everything
        require_accepted: true     # only sessions whose every file the receiver accepted go

:func:`parse_export` and :func:`parse_retention` are called by
:func:`asz_core.config.parse_config`; errors name the file and key.
"""

from __future__ import annotations

import getpass
import socket
from typing import Any, Callable
from urllib.parse import urlsplit

import attrs

__all__ = ["ExportConfig", "RetentionConfig", "parse_export", "parse_retention", "default_instance_id", "split_endpoint",
           "DEFAULT_BATCH_BYTES", "TOKEN_ENV", "TOKEN_FROM", "check_token", "token_said", "with_token"]

#: The environment variable ``asz push`` (and the push after an ``asz collect`` or ``asz server`` pass) reads a
#: receiver's bearer token from, sent as ``Authorization: Bearer <token>`` (docs/push.md; never printed).
TOKEN_ENV = "ASZ_PUSH_TOKEN"

#: ``export.otlp.batch_bytes`` default: 8 MiB of file bytes per request.
DEFAULT_BATCH_BYTES = 8 * 1024 * 1024
_EXPORT_KEYS = ("protocol", "endpoint", "tls", "ca_file", "service_name", "instance_id", "layer", "headers", "batch_bytes",
                "max_bytes_per_minute", "logs", "metrics")


@attrs.define
class ExportConfig:
    """``export.otlp`` (§8.2). ``endpoint`` '' means nothing is sent."""

    protocol: str = "grpc"
    endpoint: str = ""
    tls: bool = False
    ca_file: str = ""
    service_name: str = ""
    instance_id: str = ""
    layer: str = "AI_AGENT"
    headers: dict[str, str] = attrs.Factory(dict)
    batch_bytes: int = DEFAULT_BATCH_BYTES
    max_bytes_per_minute: int = 0
    logs: bool = True
    metrics: bool = True


@attrs.define
class RetentionConfig:
    """``storage.retention``: ``after`` in seconds (None = keep everything), ``require_accepted``."""

    after: float | None = None
    require_accepted: bool = True


def default_instance_id() -> str:
    """``user@host``: the instance id when ``export.otlp.instance_id`` is empty (§8.2)."""
    try:
        user = getpass.getuser()
    except Exception:  # noqa: BLE001 - no user name in this environment
        user = "unknown"
    return f"{user}@{socket.gethostname()}"


def split_endpoint(endpoint: str, protocol: str = "grpc", tls: bool = False) -> tuple[str, str, bool, str]:
    """``(protocol, host:port, tls, base path)`` of an endpoint.

    ``grpc://H:P`` → grpc; ``http://H:P[/base]`` → http; ``https://…`` → http
    with TLS; ``grpcs://`` → grpc with TLS; a bare ``H:P`` takes ``protocol``.
    Raises ValueError for another scheme or a missing host or port.
    """
    if "://" not in endpoint:
        endpoint = f"{'grpc' if protocol == 'grpc' else 'http'}://{endpoint}"
    u = urlsplit(endpoint)
    scheme = u.scheme.lower()
    kinds = {"grpc": ("grpc", False), "grpcs": ("grpc", True), "http": ("http", False), "https": ("http", True)}
    if scheme not in kinds:
        raise ValueError(f"{endpoint!r}: the scheme must be grpc://, http:// or https://")
    proto, secure = kinds[scheme]
    try:
        port = u.port
    except ValueError:
        port = None
    if not u.hostname:
        raise ValueError(f"{endpoint!r}: no host")
    if port is None:
        port = 443 if secure else (4317 if proto == "grpc" else 4318)
    host = f"[{u.hostname}]" if ":" in u.hostname else u.hostname
    return proto, f"{host}:{port}", secure or tls, u.path.rstrip("/")


def parse_export(ctx: Any, value: Any) -> ExportConfig:
    """``export`` of a configuration (only ``otlp`` inside). ``ctx`` is asz_core.config's checker. Raises ConfigError."""
    top = ctx.mapping(value, "export", ("otlp",))
    d = ctx.mapping(top.get("otlp"), "export.otlp", _EXPORT_KEYS)
    e = ExportConfig()
    key = lambda k: f"export.otlp.{k}"  # noqa: E731
    if "protocol" in d:
        e.protocol = ctx.string(d["protocol"], key("protocol"))
        if e.protocol not in ("grpc", "http"):
            raise ctx.err(key("protocol"), f"expected grpc or http, got {e.protocol!r}")
    for name in ("endpoint", "ca_file", "service_name", "instance_id", "layer"):
        if name in d:
            setattr(e, name, ctx.string(d[name], key(name)))
    if e.endpoint:
        try:
            split_endpoint(e.endpoint, e.protocol)
        except ValueError as exc:
            raise ctx.err(key("endpoint"), str(exc)) from None
    for name in ("tls", "logs", "metrics"):
        if name in d:
            setattr(e, name, ctx.boolean(d[name], key(name)))
    if not (e.logs or e.metrics):
        raise ctx.err("export.otlp", "logs or metrics must be on")
    if "batch_bytes" in d:
        e.batch_bytes = ctx.integer(d["batch_bytes"], key("batch_bytes"), 1)
    if "max_bytes_per_minute" in d:
        e.max_bytes_per_minute = ctx.integer(d["max_bytes_per_minute"], key("max_bytes_per_minute"), 0)
    h = ctx.mapping(d.get("headers"), key("headers"), tuple(d.get("headers") or ()))
    for k, v in h.items():
        if not isinstance(k, str) or not isinstance(v, str):
            raise ctx.err(key("headers"), f"expected string names and values, got {k!r}: {v!r}")
    e.headers = dict(h)
    return e


def parse_retention(ctx: Any, value: Any, parse_duration: Callable[[str], float]) -> RetentionConfig:
    """``storage.retention``: ``after`` (a duration, '' = keep everything) and ``require_accepted``. Raises ConfigError."""
    d = ctx.mapping(value, "storage.retention", ("after", "require_accepted"))
    r = RetentionConfig()
    raw = d.get("after")
    if raw not in (None, ""):
        if isinstance(raw, (int, float)) and not isinstance(raw, bool) and raw != 0:
            raise ctx.err("storage.retention.after", f"{raw!r} has no unit; write e.g. {raw}h or {raw}m")
        try:
            r.after = parse_duration(str(raw))
        except ValueError as exc:
            raise ctx.err("storage.retention.after", str(exc)) from None
    if "require_accepted" in d:
        r.require_accepted = ctx.boolean(d["require_accepted"], "storage.retention.require_accepted")
    return r


def check_token(token: str, where: str) -> str:
    """``token`` with surrounding whitespace (a file's trailing newline) removed. Raises ValueError, naming ``where``
    (``--token-file PATH``, ``$ASZ_PUSH_TOKEN``) and never the token, when nothing is left or it holds whitespace or a
    control character, which cannot stand in one ``Authorization`` header."""
    token = token.strip()
    if not token:
        raise ValueError(f"{where}: no token in it")
    if any(c.isspace() or not c.isprintable() for c in token):
        raise ValueError(f"{where}: the token holds whitespace or a control character (one line, no spaces)")
    return token


#: Where a pusher's token comes from, said after a receiver refused a request for its token (trial 47a F3: the line
#: after ``asz collect --once`` said ``gRPC UNAUTHENTICATED: a bearer token is required`` and nothing of where it goes).
TOKEN_FROM = (f"the token is read from ${TOKEN_ENV} (asz push also takes --token-file FILE), else from the "
              "authorization header of export.otlp.headers")


def token_said(failure: str) -> str:
    """``failure`` (a push request's error), followed by ``; `` and :data:`TOKEN_FROM` when it is a refusal for the
    token (gRPC ``UNAUTHENTICATED``, HTTP 401)."""
    refused = failure.startswith("gRPC UNAUTHENTICATED:") or ": HTTP 401 " in failure
    return f"{failure}; {TOKEN_FROM}" if refused else failure


def with_token(cfg: ExportConfig, token: str | None) -> ExportConfig:
    """``cfg`` with ``Authorization: Bearer <token>`` in its headers, replacing any ``authorization`` header of the
    configuration (names compared without case); ``cfg`` itself when ``token`` is None or ''."""
    if not token:
        return cfg
    headers = {k: v for k, v in cfg.headers.items() if k.lower() != "authorization"}
    headers["authorization"] = f"Bearer {token}"
    return attrs.evolve(cfg, headers=headers)
