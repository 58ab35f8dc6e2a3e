"""The ``claude-code-provider`` adapter: the bodies Claude Code sent and received (dialect ``claude-code-provider/1``).

Spec: origin-digest §5.3 and §3.7; seed 000 (Provider bodies).

Claude Code writes every request and response body to a flat directory when
``OTEL_LOG_RAW_API_BODIES=file:<dir>`` is set in its environment (by default
asz expects ``<claude config dir>/asz/provider-bodies``):

* a request as ``<random uuid>.request.json``: its session is the
  ``session_id`` inside the JSON string ``metadata.user_id``; its first
  ``system`` block (the billing header) carries ``cc_prompt_id=…;`` (the
  prompt, our ``run``) and ``cc_prev_req=…;`` (the provider request id of the
  call before it in its chain, our ``previous_request``);
* a response as ``<provider request id>.response.json``: its ``id`` is the
  message id (our ``call``), its file name the request id (our ``request``).

The record id of a body is its file name without ``.json``. A directory that
is absent makes the adapter inert. Landing needs the root-wide table of seen
files (``_provider/seen.state``), not cursors, so the collector's
line-by-line pass does not run this adapter; :mod:`asz_core.collect.provider_bodies`
does, after the transcript adapter in each pass.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, Iterable, Mapping

from asz_core import (Adapter, BodyInfo, BodyMeta, Capabilities, Discovery, ProviderSession, Record, Source, Term, build_glossary,
                      json_loads, os_error_text)

from .roots import default_folder, unread_folders

__all__ = [
    "ClaudeCodeProvider",
    "DIALECT",
    "NAME",
    "REQUEST_SUFFIX",
    "RESPONSE_SUFFIX",
    "ENV_VAR",
    "GLOSSARY",
    "body_meta",
    "holds_bodies",
    "BodyInfo",
    "enable_capture",
    "disable_capture",
    "capture_status",
]

NAME = "claude-code-provider"
DIALECT = "claude-code-provider/1"
REQUEST_SUFFIX = ".request.json"
RESPONSE_SUFFIX = ".response.json"
#: The variable Claude Code reads; its value is ``file:<absolute dir>``.
ENV_VAR = "OTEL_LOG_RAW_API_BODIES"
#: Where in a Claude Code configuration folder asz expects the bodies (``asz provider enable``'s default).
BODIES_DIR = "asz/provider-bodies"

_OLD_UID = re.compile(r"_session_([0-9a-fA-F-]{36})$")
_KV = re.compile(r"\b(cc_prompt_id|cc_prev_req)=([^;\s]*)")

_NAMED: dict[str, tuple[str, str, str]] = {
    "session": ("session_id", "metadata.user_id (a JSON string) of a request", "the Claude Code session the request was sent for"),
    "run": ("cc_prompt_id", "first system block of a request (billing header)", "the prompt the request answers"),
    "call": ("id", "top level of a response", "the message id; the transcript's assistant lines carry the same id"),
    "id": ("file name", "<uuid>.request.json or <request id>.response.json, without .json", "unique in the session"),
    "model": ("model", "top level of a request or response", "the model name as the runtime sent it"),
}


def _glossary() -> tuple[Term, ...]:
    return build_glossary(_NAMED, default_note="not recorded by claude-code-provider/1: a body is evidence joined to its call, never a step")


#: Every vocabulary term for ``claude-code-provider/1`` (origin-digest §6).
GLOSSARY: tuple[Term, ...] = _glossary()


def _first_system_text(value: dict) -> str:
    sysv = value.get("system")
    if isinstance(sysv, str):
        return sysv
    if isinstance(sysv, list) and sysv and isinstance(sysv[0], dict) and isinstance(sysv[0].get("text"), str):
        return sysv[0]["text"]
    return ""


def body_meta(name: str, data: bytes) -> BodyInfo:
    """Read the model words of one body file (``name`` its file name, ``data`` its bytes); §5.3 renames.

    Request: ``session`` from ``metadata.user_id`` → ``session_id``, ``run``
    from ``cc_prompt_id``, ``previous_request`` from ``cc_prev_req``, ``model``.
    Response: ``call`` from ``id``, ``request`` from the file name, ``model``.
    Returns a BodyInfo whose ``problem`` says why when ``data`` is not one JSON
    object or the name is not a body file's. Never raises.
    """
    if name.endswith(REQUEST_SUFFIX):
        role = "request"
    elif name.endswith(RESPONSE_SUFFIX):
        role = "response"
    else:
        return BodyInfo(None, "not a body file (<uuid>.request.json or <request id>.response.json)")
    rid = name[: -len(".json")]
    try:
        value = json_loads(data)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return BodyInfo(None, "not one JSON value")
    if not isinstance(value, dict):
        return BodyInfo(None, "not a JSON object", value)
    meta = BodyMeta(role=role, src=name, record_id=rid)
    if isinstance(value.get("model"), str):
        meta.model = value["model"]
    if role == "request":
        md = value.get("metadata")
        uid = md.get("user_id") if isinstance(md, dict) else None
        if isinstance(uid, str):
            try:
                u = json_loads(uid)
            except ValueError:
                u = None
            if isinstance(u, dict) and isinstance(u.get("session_id"), str):
                meta.session = u["session_id"]
            else:  # older runtimes: user_<hash>_account_<uuid>_session_<uuid>
                m = _OLD_UID.search(uid)
                if m:
                    meta.session = m.group(1)
        for k, v in _KV.findall(_first_system_text(value)):
            if k == "cc_prompt_id":
                meta.run = v
            else:
                meta.previous_request = v
    else:
        meta.request = name[: -len(RESPONSE_SUFFIX)]
        if isinstance(value.get("id"), str):
            meta.call = value["id"]
    return BodyInfo(meta, "", value)


def holds_bodies(folder: Path) -> bool:
    """True when ``folder`` holds a ``<…>.request.json`` or ``<…>.response.json`` file; a listing only, up to the first.
    An unreadable folder holds none that can be read. Never raises."""
    try:
        with os.scandir(folder) as it:
            return any(e.name.endswith((REQUEST_SUFFIX, RESPONSE_SUFFIX)) for e in it)
    except (OSError, ValueError):
        return False


class ClaudeCodeProvider(Adapter):
    """Claude Code's raw API bodies into ``provider_body`` Session Data (dialect ``claude-code-provider/1``).

    Stateless. :meth:`discover` lists the body files whose session the file
    itself names (requests); responses get their session from the provider
    pass (:func:`asz_core.collect.provider_bodies.provider_pass`), which is what
    ``asz collect`` runs for this adapter.
    """

    name = NAME
    version = "0.1.0"
    dialects = (DIALECT,)
    kinds = ("provider_body",)
    capabilities = Capabilities()
    source_env = (ENV_VAR, "CLAUDE_CONFIG_DIR", "HOME")
    description = "Claude Code raw API bodies (OTEL_LOG_RAW_API_BODIES=file:<dir>): what was sent to the model, kept once"

    glossaries = {DIALECT: GLOSSARY}
    flag_rules: dict = {DIALECT: ()}  # a body is evidence joined to its call, never a step: no flags
    #: Collected by the provider pass: ``<uuid>.request.json`` and ``<request id>.response.json`` of a flat directory.
    body_suffixes = (REQUEST_SUFFIX, RESPONSE_SUFFIX)
    #: Capture is switched on in Claude Code's settings (``asz provider enable``), not in asz.yaml: collect the
    #: default directory whenever it exists.
    collect_when_present = True

    def body_meta(self, name: str, data: bytes) -> BodyInfo:
        """:func:`body_meta`: the identifiers one body file names (§5.3 renames). Never raises."""
        return body_meta(name, data)

    def default_source_root(self, env: Mapping[str, str] | None = None) -> Path:
        """``<claude config dir>/asz/provider-bodies`` (origin-digest §5.3): of Claude Code's configuration folders
        (:func:`asz_adapters_claude.roots.config_dirs`: each entry of a comma-separated ``CLAUDE_CONFIG_DIR``, else
        ``~/.claude`` and ``~/.config/claude``), the first where it is a directory, else the first
        (:func:`asz_adapters_claude.roots.default_folder`). Never raises."""
        return default_folder(os.environ if env is None else env, BODIES_DIR)

    def unread_default_sources(self, env: Mapping[str, str] | None = None) -> list[Path]:
        """The ``asz/provider-bodies`` of Claude Code's other configuration folders that hold a body file
        (:func:`holds_bodies`), apart from :meth:`default_source_root`: the provider pass reads each after it
        (:func:`asz_adapters_claude.roots.unread_folders`, the list the transcripts' folders come from). Never raises."""
        return unread_folders(os.environ if env is None else env, BODIES_DIR, holds_bodies)

    def discover(self, source_root: Path, *, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Discovery:
        """The request files of ``source_root`` that name their session, one snapshot source each.

        Responses are ``skipped`` here ("session decided by the provider
        pass"); an absent directory gives an empty Discovery. Session filters
        (globs on the session id) apply. Never raises.
        """
        from fnmatch import fnmatchcase

        out = Discovery()
        root = Path(source_root)
        try:
            names = sorted(os.listdir(root))
        except FileNotFoundError:
            return out
        except OSError as exc:
            out.errors.append((str(root), os_error_text(exc, "directory")))
            return out
        inc, exc_ = list(include), list(exclude)
        for n in names:
            p = root / n
            if n.endswith(RESPONSE_SUFFIX):
                out.skipped.append((n, "a response: its session is decided by the provider pass"))
                continue
            if not n.endswith(REQUEST_SUFFIX):
                out.skipped.append((n, "not a body file"))
                continue
            try:
                info = body_meta(n, p.read_bytes())
            except OSError as e:
                out.errors.append((str(p), f"unreadable: {e.strerror or e}"))
                continue
            if info.meta is None or not info.meta.session:
                out.skipped.append((n, info.problem or "names no session (metadata.user_id)"))
                continue
            s = info.meta.session
            if (inc and not any(fnmatchcase(s, x) for x in inc)) or any(fnmatchcase(s, x) for x in exc_):
                out.skipped.append((n, "excluded by the session filters"))
                continue
            out.sources.append(Source(session=s, kind="provider_body", path=p, src=n, dialect=DIALECT, mode="snapshot"))
        return out

    def convert_line(self, source: Source, line: bytes, ord: int, off: int) -> Record:
        """A body is one document: the same as :meth:`convert_document` (ord and off as given). Never raises."""
        rec = self.convert_document(source, line)
        rec.ord, rec.off = ord, off
        return rec

    def convert_document(self, source: Source, data: bytes) -> Record:
        """One body on its own: a provider_body record that refers to nothing (all its pieces in it).

        Within a session the provider pass cuts against what the session
        holds instead. Never raises: a body that does not parse lands whole
        in one unknown part.
        """
        name = Path(source.src).name
        info = body_meta(name, data)
        meta = info.meta or BodyMeta(role="response" if name.endswith(RESPONSE_SUFFIX) else "request", src=name,
                                     record_id=name[: -len(".json")] if name.endswith(".json") else name)
        return ProviderSession().cut(data, meta)


# --------------------------------------------------------------------------- settings: enable, disable, status


def enable_capture(path: Path, directory: Path, *, dry_run: bool = False):
    """Set ``env.OTEL_LOG_RAW_API_BODIES`` to ``file:<directory>`` in Claude Code's settings file ``path``.

    ``directory`` is made absolute (Claude Code needs an absolute directory).
    Idempotent; the old file is copied aside first and the new one written
    atomically (as ``asz hooks install`` does). Returns a
    :class:`asz_adapters_claude.hooks_settings.Change`. Raises SettingsError
    for an unreadable file, one that is not a JSON object, or an ``env`` that
    is not an object.
    """
    from .hooks_settings import SettingsError, edit_settings

    value = f"file:{Path(directory).expanduser().resolve()}"

    def edit(settings: dict) -> list[str]:
        env = settings.setdefault("env", {})
        if not isinstance(env, dict):
            raise SettingsError(f"{path}: env is a JSON {type(env).__name__}, not an object; nothing was changed")
        if env.get(ENV_VAR) == value:
            return []
        old = env.get(ENV_VAR)
        env[ENV_VAR] = value
        return [f"set env.{ENV_VAR}={value}" + (f" (was {old})" if old else "")]

    return edit_settings(Path(path), edit, dry_run)


def disable_capture(path: Path, *, dry_run: bool = False):
    """Remove ``env.OTEL_LOG_RAW_API_BODIES`` from the settings file ``path`` (and ``env`` when left empty).

    A missing file or variable is left untouched. Backup, atomic write and
    errors as :func:`enable_capture`.
    """
    from .hooks_settings import edit_settings

    def edit(settings: dict) -> list[str]:
        env = settings.get("env")
        if not isinstance(env, dict) or ENV_VAR not in env:
            return []
        old = env.pop(ENV_VAR)
        if not env:
            settings.pop("env")
        return [f"removed env.{ENV_VAR} (was {old})"]

    return edit_settings(Path(path), edit, dry_run)


def capture_status(path: Path, root: Path | None = None) -> dict:
    """What the settings file ``path`` captures and what became of it.

    Returns ``{"settings": str, "value": str|None, "directory": str|None,
    "exists": bool, "requests": N, "responses": N, "bytes": N, "table": {state: N}}``;
    ``table`` counts the lines of ``<root>/_provider/seen.state`` by state when
    ``root`` is given. Never raises for a missing file or directory.
    """
    from .hooks_settings import SettingsError, read_settings

    try:
        _, settings = read_settings(Path(path))
    except SettingsError:
        settings = {}
    env = settings.get("env") if isinstance(settings.get("env"), dict) else {}
    value = env.get(ENV_VAR) if isinstance(env.get(ENV_VAR), str) else None
    directory = value[len("file:"):] if value and value.startswith("file:") else None
    out: dict[str, Any] = {"settings": str(path), "value": value, "directory": directory, "exists": False,
                           "requests": 0, "responses": 0, "bytes": 0, "table": {}}
    if directory:
        d = Path(directory)
        try:
            for e in os.scandir(d):
                if e.name.endswith(REQUEST_SUFFIX):
                    out["requests"] += 1
                elif e.name.endswith(RESPONSE_SUFFIX):
                    out["responses"] += 1
                else:
                    continue
                out["bytes"] += e.stat().st_size
            out["exists"] = True
        except OSError:
            pass
    if root is not None:
        from asz_core.collect.provider_bodies import read_table

        for e in read_table(root).values():
            out["table"][e.state] = out["table"].get(e.state, 0) + 1
    return out
