"""The ``changes`` adapter: lands what the asz Claude Code observers write (dialect ``asz-changes/1``; origin-digest §3.2, §5.2).

Observers write one JSON record per line under a plugin data directory::

    <data>/output/<session>/<stream>.execution.jsonl    execution/1 (``asz hook``)  -> kind execution
    <data>/output/<session>/<stream>.jsonl              changes/1 (workspace observer) -> kind changes

Each file is an append source of the stream its name gives (``main`` or an
agent id). A line lands as one record with ``id``, ``tool`` and ``time``
lifted out and the whole line, compacted, as one ``data`` part; no ``from``,
no flags, so these records add no node to a round. A line that is not a JSON
object lands as an ``unknown`` part.

The source root is either one data directory (it has ``output/``) or a
directory of them, by default ``<claude config dir>/plugins/data``, which
holds the data directory of every installed plugin and the one ``asz hook``
uses by default.
"""

from __future__ import annotations

import os
import re
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Iterable, Mapping

from asz_core import (
    Adapter,
    Capabilities,
    Discovery,
    Dropped,
    FlagRule,
    Part,
    RawJSON,
    Record,
    Source,
    Term,
    build_glossary,
    compact,
    json_loads,
    keys_twice,
    os_error_text,
    source_sha,
    twice_dropped,
    unknown_part,
)
from asz_core.sessiondata.vocabulary import TWICE_DROPPED

from asz_core.plugins.adapter import REFUSED_EVENTS, UNWRITTEN_EVENTS

from .roots import default_folder, preferred_folders, unread_folders

__all__ = ["ClaudeCodeObserver", "DIALECT", "EXECUTION_SUFFIX", "CHANGES_SUFFIX", "GLOSSARY", "FLAG_RULES"]

DIALECT = "asz-changes/1"
EXECUTION_SUFFIX = ".execution.jsonl"
CHANGES_SUFFIX = ".jsonl"
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,199}")

_LINE = "top level of an execution/1 or changes/1 line"
_NAMED: dict[str, tuple[str, str, str]] = {
    "session": ("session", f"{_LINE}; also the output/<session> directory", "Claude Code's session_id as the hook event gave it"),
    "stream": ("stream", f"{_LINE}; also the file name <stream>.jsonl / <stream>.execution.jsonl", "main, or the hook event's agent_id inside a subagent"),
    "main": ("main", "stream field and file name main.jsonl / main.execution.jsonl", "the session's own stream"),
    "id": ("id", _LINE, "the observation's own id, unique in its session; one call may have several"),
    "tool": ("tool", _LINE, "the tool-use id of the call observed: the only join to its tool step"),
    "time": ("time", _LINE, "RFC 3339, when the observation ended"),
    "size_only": ("size_only", "arguments.state and result.state of an execution/1 line", "only the size and SHA-256 of what was sent and returned are kept"),
}


def _glossary() -> tuple[Term, ...]:
    return build_glossary(_NAMED, default_note="not recorded by asz-changes/1: its records add no node and name only the call they observed")


#: Every vocabulary term for ``asz-changes/1`` (origin-digest §6).
GLOSSARY: tuple[Term, ...] = _glossary()
#: ``asz-changes/1`` sets no flag: its records are evidence joined to a step, never steps.
FLAG_RULES: tuple[FlagRule, ...] = ()


def _path_matches(path: str, pattern: str) -> bool:
    """A directory filter: ``/x`` is the directory itself, ``/x/**`` also anything below it."""
    p = path.replace("\\", "/").rstrip("/") or "/"
    if pattern.endswith("/**"):
        base = pattern[:-3].rstrip("/") or "/"
        return fnmatchcase(p, base) or fnmatchcase(p, base.rstrip("/") + "/*")
    return fnmatchcase(p, pattern.rstrip("/") or "/")


def _first_root(path: Path) -> str:
    """The working directory the first record of a file names (``cwd``, else ``root.path``), or ''."""
    try:
        with open(path, "rb") as f:
            line = f.readline()
        obj = json_loads(line)
    except (OSError, ValueError):
        return ""
    if not isinstance(obj, dict):
        return ""
    if isinstance(obj.get("cwd"), str):
        return obj["cwd"]
    root = obj.get("root")
    return root["path"] if isinstance(root, dict) and isinstance(root.get("path"), str) else ""


def _selected(session: str, path: Path, include: list[str], exclude: list[str]) -> bool:
    """Filters: a pattern starting with ``/`` is judged on the directory the file's first record names, any other on the session id."""
    if not include and not exclude:
        return True
    root = _first_root(path) if any(p.startswith("/") for p in (*include, *exclude)) else ""

    def hit(p: str) -> bool:
        return _path_matches(root, p) if p.startswith("/") else fnmatchcase(session, p)

    if include and not any(hit(p) for p in include):
        return False
    return not any(hit(p) for p in exclude)


def holds_records(root: Path) -> bool:
    """True when a data directory under ``root`` (a ``plugins/data``) holds an observer record file
    (``<data>/output/<session>/<stream>[.execution].jsonl``): listings of ``root``, each ``output`` and its session
    folders up to the first such file, no file read. Never raises."""
    try:
        with os.scandir(root) as it:
            outputs = [Path(e.path) / "output" for e in it if e.is_dir()]
        for out in outputs:
            if not out.is_dir():
                continue
            with os.scandir(out) as sessions:
                for s in sessions:
                    if not (s.is_dir() and _ID.fullmatch(s.name)):
                        continue
                    with os.scandir(s.path) as files:
                        if any(f.name.endswith(CHANGES_SUFFIX) and f.is_file() for f in files):
                            return True
    except (OSError, ValueError):
        return False
    return False


def _data_dir(d: Path) -> bool:
    """Whether ``d`` is an observer data directory: it holds ``output/``, or only ``log/plugin.log`` (every event
    ``asz hook`` had was refused, so no ``output/`` was ever made: its refused count is said all the same, recheck 27
    NEW-2). Never raises."""
    try:
        return (d / "output").is_dir() or (d / "log" / "plugin.log").is_file()
    except (OSError, ValueError):
        return False


#: How a line of ``plugin.log`` that says an event was refused begins after its time (``asz_adapters_claude.hook.run``).
REFUSED = " asz hook: refused: "
#: At most this much of the end of ``plugin.log`` is read for :func:`refused_said` (a log only grows).
LOG_READ = 4 << 20


def _twice_named(obj: dict, line: bytes) -> list[Dropped]:
    """The record's ``dropped`` entries for keys given twice (trial 30c F6), so collect warns of them and a reader
    says them as it does a transcript line's (asz_core.collect.session_pass ``twice_of``, the view's ``keys given
    twice`` problem): those ``asz hook`` named in the record's own ``dropped`` (the event gave a key twice; the
    record it wrote gives none), then those the line itself gives twice (:func:`~asz_core.twice_dropped`, the
    transcript's own check)."""
    out = [Dropped(what=d["what"], bytes=d["bytes"], why=d["why"]) for d in obj.get("dropped") or ()
           if isinstance(d, dict) and isinstance(d.get("what"), str) and d["what"].startswith(TWICE_DROPPED)
           and isinstance(d.get("bytes"), int) and not isinstance(d.get("bytes"), bool) and isinstance(d.get("why"), str)]
    if keys_twice(line, 0, len(line)):
        out.extend(twice_dropped(line, 0, len(line)))
    return out


def refused_said(log: Path) -> str:
    """What a data directory's ``log/plugin.log`` says of the MCP events ``asz hook`` refused (an event with no
    ``tool_use_id``: Claude Code before 1.0.x; no ``session_id``; bytes that are not one JSON object), so that a reader
    is told, not only the log (trial 27a F8): ``asz hook refused 1 event(s) (the latest: PostToolUse mcp__kapture__list_tabs
    in session 9dbb…: the event has no tool_use_id …; nothing recorded): no execution record was written for them,
    so no conversation holds them``; '' when it names none or cannot be read. Reads at most the last
    :data:`LOG_READ` bytes (said when it is cut). Never raises."""
    try:
        with open(log, "rb") as f:
            size = os.fstat(f.fileno()).st_size
            f.seek(max(0, size - LOG_READ))
            data = f.read(LOG_READ)
    except OSError:
        return ""
    lines = [x for x in data.decode("utf-8", "replace").splitlines() if REFUSED in x]
    if not lines:
        return ""
    latest = lines[-1].split(REFUSED, 1)[1].strip()
    latest = latest if len(latest) <= 240 else latest[:239] + "…"
    part = f" in its last {LOG_READ >> 20} MiB" if size > LOG_READ else ""
    return (f"{REFUSED_EVENTS}{len(lines):,} event(s){part} (the latest: {latest}): no execution record was written for "
            "them, so no conversation holds them")


#: How a line of ``plugin.log`` saying an execution record could not be written begins after its time
#: (``asz_adapters_claude.hook.UNWRITTEN``), and how the empty file begins that says it when the log could not be
#: written either (``hook.UNWRITTEN_MARK``).
UNWRITTEN_LINE = " asz hook: could not write the execution record: "
UNWRITTEN_MARK = "unwritten."


def unwritten_said(log_dir: Path) -> str:
    """What a data directory's ``log/`` says of the execution records ``asz hook`` observed and could not write (a
    full disk, an unwritable directory: trial 33b F5): the ``plugin.log`` lines that say so (its last
    :data:`LOG_READ` bytes) and, when the log could not be written either, the empty files ``unwritten.<unix
    ns>.<tool_use_id>`` whose names are the trace: ``asz hook could not write 2 execution record(s) (the latest: at
    2026-12-05T21:16:00Z, tool call toolu_01…: [Errno 27] File too large): the calls it observed then are recorded
    nowhere; no conversation holds them``; '' when none. Never raises."""
    found: list[tuple[int, str, str]] = []  # (unix ns, tool call, why)
    try:
        with os.scandir(log_dir) as it:
            for e in it:
                if e.name.startswith(UNWRITTEN_MARK):
                    ns, _, tool = e.name[len(UNWRITTEN_MARK):].partition(".")
                    if ns.isdigit():
                        found.append((int(ns), tool, "nor could its log line be written"))
    except OSError:
        pass
    try:
        with open(log_dir / "plugin.log", "rb") as f:
            f.seek(max(0, os.fstat(f.fileno()).st_size - LOG_READ))
            data = f.read(LOG_READ)
    except OSError:
        data = b""
    lines = [x for x in data.decode("utf-8", "replace").splitlines() if UNWRITTEN_LINE in x]
    if not found and not lines:
        return ""
    from asz_core.sessiondata.times import format_rfc3339

    latest = ""
    if found:
        ns, tool, why = max(found)
        latest = f"at {format_rfc3339(ns)}, tool call {tool}: {why}"
    if lines and (not found or lines[-1].split(" ", 1)[0] > format_rfc3339(max(found)[0])):
        stamp, _, why = lines[-1].partition(UNWRITTEN_LINE)
        latest = f"at {stamp.strip()}: {why.strip()[:200]}"
    return (f"{UNWRITTEN_EVENTS}{len(found) + len(lines):,} execution record(s) (the latest: {latest}): the calls it "
            "observed then are recorded nowhere, so no conversation holds them (a full disk or an unwritable data "
            "directory)")


class ClaudeCodeObserver(Adapter):
    """The asz observers' output into Session Data: kinds ``execution`` and ``changes``, dialect ``asz-changes/1``.

    Stateless: every method may be called on any instance, from any thread.
    """

    name = "changes"
    version = "0.1.0"
    dialects = (DIALECT,)
    kinds = ("execution", "changes")
    capabilities = Capabilities()
    source_env = ("CLAUDE_CONFIG_DIR", "HOME")
    description = "asz's Claude Code observers (plugins/data/*/output): MCP execution records and workspace change records"

    glossaries = {DIALECT: GLOSSARY}
    flag_rules = {DIALECT: FLAG_RULES}
    sessions_in_parallel = True  # converts from its arguments and the source files alone

    def default_source_root(self, env: Mapping[str, str] | None = None) -> Path:
        """``<claude config dir>/plugins/data`` (origin-digest §5.2): of Claude Code's configuration folders
        (:func:`asz_adapters_claude.roots.config_dirs`: each entry of a comma-separated ``CLAUDE_CONFIG_DIR``, else
        ``~/.claude`` and ``~/.config/claude``), the first whose ``plugins/data`` is a directory, else the first
        (:func:`asz_adapters_claude.roots.default_folder`). Never raises."""
        return default_folder(os.environ if env is None else env, "plugins/data")

    def has_default_sessions(self, env: Mapping[str, str] | None = None) -> bool:
        """True when a data directory under :meth:`default_source_root` holds an observer record file
        (``<data>/output/<session>/<stream>[.execution].jsonl``, what ``asz hook`` writes once ``asz hooks install``
        ran): :func:`holds_records`, no file read. Plain ``asz collect`` then says these records are not collected
        (trial 17, F9). Never raises."""
        try:
            return holds_records(self.default_source_root(env))
        except (OSError, ValueError):
            return False

    def unread_default_sources(self, env: Mapping[str, str] | None = None) -> list[Path]:
        """The ``plugins/data`` of Claude Code's other configuration folders (:func:`asz_adapters_claude.roots.config_dirs`,
        the list the ``projects`` folders come from: ``~/.config/claude`` beside ``~/.claude``, each
        ``CLAUDE_CONFIG_DIR`` entry) that hold observer records (:func:`holds_records`), read after
        :meth:`default_source_root` into the same storage root (docs/storage-root.md, Several source folders). Never
        raises."""
        e = os.environ if env is None else env
        try:
            return unread_folders(e, "plugins/data", holds_records)
        except (OSError, ValueError):
            return []

    def default_source_candidates(self, env: Mapping[str, str] | None = None) -> list[Path]:
        """The ``plugins/data`` of every Claude Code configuration folder, existing or not, in the order asz prefers
        them (:func:`asz_adapters_claude.roots.preferred_folders`). Never raises."""
        return preferred_folders(os.environ if env is None else env, "plugins/data")

    def discover(self, source_root: Path, *, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Discovery:
        """The observer files under ``source_root``, one append source each, grouped by session.

        ``source_root`` is a data directory (it holds ``output/``) or a
        directory of data directories. ``include``/``exclude`` patterns that
        start with ``/`` are directories judged against the ``cwd`` (or
        ``root.path``) the file's first record names (``/x/**`` takes what is
        below ``/x`` too); other patterns are globs on the session id. A second
        file for one session, kind and stream (from another data directory)
        is handed over too: the collector keeps the one the stream's cursor
        follows, else the first, and refuses the other as a conflict. Never raises: unreadable
        directories are ``errors``, other names ``skipped`` with a reason; ``notes`` holds the one on an installed
        observer hook that would not start (:func:`asz_adapters_claude.hooks_status.source_notes`).
        """
        root = Path(source_root)
        out = Discovery()
        inc, exc = list(include), list(exclude)

        def rel(p: Path) -> str:
            return p.relative_to(root).as_posix()

        def listdir(p: Path) -> list[os.DirEntry] | None:
            try:
                with os.scandir(p) as it:
                    return sorted(it, key=lambda e: e.name)
            except FileNotFoundError:
                return []
            except OSError as e:
                out.errors.append((str(p), os_error_text(e, "directory")))
                return None

        if _data_dir(root):
            data_dirs = [root]
        else:
            data_dirs = []
            for e in listdir(root) or []:
                if e.is_dir() and _data_dir(Path(e.path)):
                    data_dirs.append(Path(e.path))
        for data in data_dirs:
            for s in listdir(data / "output") or []:
                sp = Path(s.path)
                if not s.is_dir():
                    out.skipped.append((rel(sp), "not a session directory"))
                    continue
                if not _ID.fullmatch(s.name):
                    out.skipped.append((rel(sp), "not a session id"))
                    continue
                for f in listdir(sp) or []:
                    fp = Path(f.path)
                    if f.name.endswith(EXECUTION_SUFFIX):
                        kind, stream = "execution", f.name[: -len(EXECUTION_SUFFIX)]
                    elif f.name.endswith(CHANGES_SUFFIX):
                        kind, stream = "changes", f.name[: -len(CHANGES_SUFFIX)]
                    else:
                        out.skipped.append((rel(fp), "not an observer output file (<stream>.jsonl or <stream>.execution.jsonl)"))
                        continue
                    if not f.is_file():
                        out.skipped.append((rel(fp), "not a regular file"))
                        continue
                    if not _ID.fullmatch(stream):
                        out.skipped.append((rel(fp), f"stream name {stream!r} is not main or an agent id"))
                        continue
                    if not _selected(s.name, fp, inc, exc):
                        out.skipped.append((rel(fp), "excluded by the session filters"))
                        continue
                    # the same stream from a second data dir is handed over too: the collector keeps the one its
                    # cursor follows, else the first, and refuses the other (asz_core.collect.second_source)
                    out.sources.append(Source(session=s.name, kind=kind, path=fp, src=rel(fp), dialect=DIALECT, stream=stream))
            if said := refused_said(data / "log" / "plugin.log"):  # events asz hook refused: said, not only logged
                out.skipped.append((rel(data / "log" / "plugin.log"), said))
            if said := unwritten_said(data / "log"):  # records asz hook could not write (trial 33b F5)
                out.skipped.append((rel(data / "log"), said))
        from .hooks_status import source_notes

        out.notes += source_notes(root, "plugins/data")  # an installed hook that would not start: records it will not write
        return out

    def convert_line(self, source: Source, line: bytes, ord: int, off: int) -> Record:
        """One observer line (no newline) into one record: ``id``, ``tool``, ``time`` lifted, the line as one data part.

        ``ord`` counts lines from 1 and ``off`` is the line's byte offset;
        ``bytes`` = ``len(line)`` and ``sha`` the first 12 hex of its SHA-256.
        The data part holds the line compacted (whitespace between tokens
        removed, nothing else) with ``bytes`` = ``len(line)``. A line that is
        not a JSON object becomes an ``unknown`` part. Never raises.
        """
        rec = Record(ord=ord, off=off, sha=source_sha(line), bytes=len(line))
        try:
            obj = json_loads(line)
        except (ValueError, UnicodeDecodeError, RecursionError):
            from asz_core import not_utf8_reason

            rec.parts = [unknown_part(line, not_utf8_reason(line, source.src, ord, off) or "the line is not valid JSON")]
            return rec
        if not isinstance(obj, dict):
            rec.parts = [unknown_part(line, f"the line is a JSON {type(obj).__name__}, not an object (an execution/1 or changes/1 record)")]
            return rec
        for key in ("id", "tool", "time"):
            value = obj.get(key)
            if isinstance(value, str):
                setattr(rec, key, value)
        rec.parts = [Part(k="data", data=RawJSON(compact(line)), state="available", bytes=len(line))]
        rec.dropped.extend(_twice_named(obj, line))
        return rec

    def convert_document(self, source: Source, data: bytes) -> Record:
        """A whole file read as one line at ord 1, off 0 (observer files are append sources; this is for completeness). Never raises."""
        return self.convert_line(source, data, 1, 0)
