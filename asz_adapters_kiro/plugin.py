"""The ``kiro`` adapter and its registration (entry point ``kiro = "asz_adapters_kiro.plugin"``).

It reads Kiro CLI 3.x, 2.x and 1.x sessions, ``/chat save`` exports and Kiro
IDE session files, and speaks dialect ``kiro/1`` (issue 12; seed 000,
Producing Session Data; ``docs/adapters/kiro.md``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterable, Mapping

from asz_core import AddedCredits, Adapter, Capabilities, Discovery, Record, Source, hookimpl
from asz_core.plugins.adapter import adapter_version

from .convert import DIALECT, convert_document, convert_line, unfinished_reason
from .discover import DATABASES, IDE_DIRS, KIRO_HOMES, discover, discover_documents, read_folders
from .flags import FLAG_RULES
from .gists import call_gist
from .metered import metered_data
from .glossary import GLOSSARY
from .sqlite_rows import parse_row_fragment, read_row, row_exists

__all__ = ["KiroAdapter", "asz_register_adapters", "CALLS_GROUPED"]

#: What the readers say of a Kiro CLI 3.x conversation's model calls (:meth:`KiroAdapter.calls_grouped`).
CALLS_GROUPED = ("Kiro 3.x records no call id: asz counts one call per stretch of model lines with no result handed "
                 "back between them")

#: What a file of an earlier ``kiro`` adapter version did not keep or read as this one does, by the version that
#: first did (:meth:`KiroAdapter.landed_without`; the version notes of :attr:`KiroAdapter.version`).
_LANDED_WITHOUT = (
    ((0, 2, 0), "a file write's changes/1 record (it derived none)"),
    ((0, 3, 0), "a member it did not describe, verbatim (it listed it under dropped, its bytes not landed)"),
    ((0, 4, 0), "a 2.x create as Kiro recorded it (its change reads modify, the file before it present)"),
    ((0, 5, 0), "a Kiro IDE call's file change, its session_start system prompt, Kiro's classification of a call, and "
                "approvals and context usage as notices (trial 29c: they read as (+N), undescribed, dropped, data)"),
    ((0, 5, 0), "a 3.x session.json with no time of its own (it took lastModifiedAt, so the conversation's range ran "
                "to Kiro's last rewrite of the document, a retitle or a reopen: trial 29c, F10)"),
    ((0, 6, 0), "a time that does not read (a 3.x timestamp that is no string, a 2.x meta.timestamp or an IDE startTime "
                "that is no count in range, a metadata document's updated_at that is no time) as Kiro wrote it (it "
                "landed no time and said nothing: trial 30a F8)"),
    ((0, 7, 0), "a line holding bytes that are not valid UTF-8 described, its text read with U+FFFD (it landed such a line whole as one unknown part said not valid JSON, its prompt or reply in no talk: trial 50c F8)"),
)


class KiroAdapter(Adapter):
    """Kiro's local sessions into Session Data (dialect ``kiro/1``).

    Lands ``transcript`` (3.x ``messages.jsonl`` and 2.x ``<id>.jsonl``, main
    and child streams) and ``agent_meta`` (3.x ``session.json``, 2.x
    ``<id>.json``, 1.x SQLite rows, ``/chat save`` exports, Kiro IDE
    session and execution files: each one document, one record). Stateless:
    every method may be called on any instance, from any thread.
    """

    name = "kiro"
    # 0.2.0: a file write's derived changes/1 record (asz_adapters_kiro.changes); 0.3.0: a member the dialect does not
    # describe lands verbatim as an unknown part, no longer under dropped (build.Build.leftovers); 0.4.0: a 2.x FileWrite
    # create's change is operation create, as Kiro recorded it, its before side not recorded (changes._change; F18);
    # 0.5.0 (trial 29c): a call Kiro classifies as an edit or delete gets its changes/1 record (changes.v3_write), a
    # call keeps Kiro's classification (build.Build.kept), session_start is the system prompt, approvals and context
    # usage are notices (lines.notice_text); 0.6.0 (trial 30a F8, session 32): a time that does not read lands as Kiro
    # wrote it, said by asz collect (build.node_time); 0.7.0 (trial 50c F8, session 50): a line that is not valid UTF-8
    # is described from its bad bytes as escapes, its own bytes kept in a trailing unknown part (build.guard)
    version = "0.7.0"
    dialects = (DIALECT,)
    kinds = ("transcript", "agent_meta")
    capabilities = Capabilities(tool_calls=True, reasoning=True, usage=False, children=True, media=True, snapshots=True)
    source_env = ("KIRO_HOME", "HOME", "USERPROFILE")
    description = "Kiro CLI (3.x, 2.x, 1.x SQLite) and Kiro IDE sessions under the home directory"

    glossaries = {DIALECT: GLOSSARY}
    flag_rules = {DIALECT: FLAG_RULES}
    #: Kiro's shell tools, ``shell`` (CLI 2.x, the runtime's ``ExecuteCmd``), ``run_command`` (CLI 3.x, ``kind:
    #: execute``), ``execute_bash`` (CLI 1.x), ``execute_pwsh`` (Kiro IDE 1.0.411 on Windows, ``kind: execute``), and its
    #: file writes, ``write`` (CLI 2.x, ``FileWrite``), ``create`` (CLI 3.x, ``kind: edit``), ``fs_write`` (CLI 1.x; the
    #: IDE, ``kind: edit``), ``str_replace`` (the IDE, ``kind: edit``) and ``delete_file`` (the IDE, ``kind: delete``)
    #: (docs/adapters/kiro.md, Changes and shell runs).
    tool_roles = {DIALECT: {**dict.fromkeys(("shell", "run_command", "execute_bash", "execute_pwsh"), "shell"),
                            **dict.fromkeys(("write", "create", "fs_write", "str_replace", "delete_file"), "file_write")}}
    sessions_in_parallel = True  # converts from its arguments and the source files alone
    resumes_as_new_session = False  # Kiro resumes a session under its own id: a session repeating another's records is a copy

    def default_source_root(self, env: Mapping[str, str] | None = None) -> Path:
        """The home directory, which holds every Kiro store this adapter reads (``.kiro``, the CLI's data
        directory, the IDE's ``globalStorage``), on Linux, macOS and Windows alike.

        ``$KIRO_HOME`` when set (the CLI's own override of ``~/.kiro``; only
        the CLI sessions under it are then found); else ``$HOME``, else
        ``%USERPROFILE%``, else :meth:`pathlib.Path.home`. ``env`` defaults to
        the process environment. Never raises.
        """
        env = os.environ if env is None else env
        for key in ("KIRO_HOME", "HOME", "USERPROFILE"):
            if env.get(key):
                return Path(env[key])
        return Path.home()

    def has_default_sessions(self, env: Mapping[str, str] | None = None) -> bool:
        """True when a Kiro store this adapter reads is at :meth:`default_source_root`: a Kiro home's ``sessions``
        folder, a CLI 1.x database or an IDE ``kiro.kiroagent`` folder (``stat`` of their known paths, no walk). Never raises."""
        env = os.environ if env is None else env
        try:
            root = self.default_source_root(env)
            homes = ("sessions",) if env.get("KIRO_HOME") else tuple(f"{h}/sessions" for h in KIRO_HOMES)
            return (any((root / rel).is_dir() for rel in (*homes, *IDE_DIRS))
                    or any((root / rel).is_file() for rel in DATABASES if "/" in rel))  # not a bare data.sqlite3 in HOME
        except (OSError, ValueError):
            return False

    def read_folders(self, source_root: Path) -> list[Path]:
        """The Kiro stores under ``source_root`` (``.kiro``, the IDE's ``kiro.kiroagent`` folders, the CLI 1.x data
        folders), or ``[source_root]`` when it is a Kiro home, ``sessions`` or ``kiro.kiroagent`` directory: a storage
        root elsewhere under the home (``~/asz-data``, ``./data`` of a project) is not refused. See
        :func:`asz_adapters_kiro.discover.read_folders`. Never raises."""
        return read_folders(Path(source_root))

    def discover(self, source_root: Path, *, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Discovery:
        """Sources under ``source_root`` grouped by session; see :func:`asz_adapters_kiro.discover.discover`.

        Files are ``append`` or ``snapshot`` sources; each Kiro CLI 1.x SQLite
        conversation row is a ``mode="document"`` source (read by
        :meth:`read_document`, landed as a snapshot, origin-digest §2.2).
        Never raises for what is on disk.
        """
        return discover(Path(source_root), include=include, exclude=exclude)

    def discover_documents(self, source_root: Path, *, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Discovery:
        """Only the sources that are not files (Kiro CLI 1.x SQLite rows), each ``mode="document"``;
        :meth:`discover` lists them too. See :func:`asz_adapters_kiro.discover.discover_documents`.
        Never raises for what is on disk.
        """
        return discover_documents(Path(source_root), include=include, exclude=exclude)

    def read_document(self, source: Source) -> bytes:
        """The current bytes of one document source.

        A ``mode="document"`` source is a SQLite row: its ``src`` ends in
        ``#<table>/<key>/<conversation id>`` and the row's ``value`` bytes are
        returned, read through a read-only, autocommit, short-lived
        connection. Any other source is read as a file. Raises
        FileNotFoundError when the row or file is gone, ValueError when the
        ``src`` names no row, and :class:`asz_adapters_kiro.sqlite_rows.RowReadError`
        (an OSError) when the database cannot be read now.
        """
        if source.mode != "document":
            return Path(source.path).read_bytes()
        ref = _row_ref(source)
        if not Path(source.path).exists():
            raise FileNotFoundError(f"{source.path}: the database is gone")
        data = read_row(Path(source.path), ref)
        if data is None:
            raise FileNotFoundError(f"{source.src}: the row is gone")
        return data

    def source_exists(self, source: Source) -> bool:
        """Whether a source discovery no longer lists still exists (the collector asks before ``source_gone``).

        For a ``mode="document"`` source: whether its database file holds the
        row its ``src`` names (``SELECT 1``, same read-only connection rules as
        :meth:`read_document`). Any other source: whether its file exists.
        Raises :class:`asz_adapters_kiro.sqlite_rows.RowReadError` (an
        OSError) when the database cannot be read now, ValueError when the
        ``src`` names no row.
        """
        if source.mode != "document":
            return super().source_exists(source)
        return row_exists(Path(source.path), _row_ref(source))

    def credits(self, dialect: str, record: Mapping[str, Any]) -> float | None:
        """The credits a record gives (docs/adapters/kiro.md, Usage and credits):

        - Kiro CLI 2.x's session document (an ``agent_meta`` record whose data part holds ``session_state``): the sum
          of every ``session_state.conversation_metadata.user_turn_metadatas[].metering_usage[].value`` whose ``unit``
          is ``credit``, a running total (the session so far);
        - a ``usage_summary`` line of a ``sess_<id>/messages.jsonl`` (Kiro CLI 3.x, and Kiro IDE, which writes the same
          layout): the sum of its ``promptTurnSummaries[].usage`` whose ``unit`` is ``credit``, one prompt's, as an
          :class:`~asz_core.AddedCredits`;

        None for any other record, or one naming no credit figure."""
        for part in record.get("parts") or ():
            d = part.get("data") if isinstance(part, dict) else None
            if not isinstance(d, dict):
                continue
            if d.get("type") == "usage_summary" and isinstance(d.get("promptTurnSummaries"), list):
                got = _credit_sum(d["promptTurnSummaries"], "usage")
                return None if got is None else AddedCredits(got)
            if (turns := _turn_entries(d)) is None:
                continue
            return _credit_sum((m for t in turns if isinstance(t, dict) for m in _listed(t, "metering_usage")), "value")
        return None

    def metered_data(self, dialect: str, data: Any) -> Any:
        """What of a data part a skeleton keeps so :meth:`credits` and :meth:`turns` read the same after retention
        (trial 29a F2): the credit figures and turns alone. See :func:`asz_adapters_kiro.metered.metered_data`."""
        return metered_data(data)

    def turns(self, dialect: str, record: Mapping[str, Any]) -> list[tuple[str | None, tuple, float | None]] | None:
        """The turns Kiro CLI 2.x's session document lists (``session_state.conversation_metadata.user_turn_metadatas``),
        each as ``(end_timestamp, message_ids, the sum of its credit metering_usage)`` (docs/adapters/kiro.md, Usage
        and credits): the 2.x replies carry no time, their turn's entry names them by their log ``message_id`` (the
        landed record's ``id``) and says when it ended. None for any other record."""
        for part in record.get("parts") or ():
            d = part.get("data") if isinstance(part, dict) else None
            if isinstance(d, dict) and (turns := _turn_entries(d)) is not None:
                return [(t.get("end_timestamp") if isinstance(t.get("end_timestamp"), str) else None,
                         tuple(i for i in _listed(t, "message_ids") if isinstance(i, str)),
                         _credit_sum(_listed(t, "metering_usage"), "value")) for t in turns if isinstance(t, dict)]
        return None

    def failed_word(self, dialect: str) -> str:
        """Kiro's words for a failed tool call: a result's ``success: false`` (CLI 3.x, IDE) or a ``status`` word of
        failure (CLI 2.x and 1.x: :func:`asz_adapters_kiro.build.failed_from_status`)."""
        return ("success: false on its tool result (CLI 3.x, IDE), or a status of error, failed, cancelled, denied, "
                "rejected or timeout (CLI 2.x, 1.x)")

    def calls_grouped(self, dialect: str, src: str) -> str:
        """:data:`CALLS_GROUPED` for a Kiro CLI 3.x (or Kiro IDE) ``sess_<id>/messages.jsonl``, whose lines name no
        model call or request: ``asz_adapters_kiro.turns`` groups them into requests (docs/adapters/kiro.md, Calls;
        trial 23a, F15); '' for any other source (a 2.x ``AssistantMessage``'s ``message_id`` is Kiro's own)."""
        return CALLS_GROUPED if src.replace("\\", "/").rsplit("/", 1)[-1] == "messages.jsonl" else ""

    def landed_without(self, dialect: str, adapter: str) -> list[str]:
        """What a file whose header names ``adapter`` (``kiro/X.Y.Z``, an earlier version) did not keep or read as
        this version does, one phrase each in version order (:meth:`asz_core.Adapter.landed_without`: ``asz
        conversation`` says them under ``landed through seq``); [] for another adapter, or a version that is not
        three dotted integers. Never raises."""
        v = adapter_version(adapter, self.name)
        return [] if v is None or len(v) != 3 else [what for since, what in _LANDED_WITHOUT if v < since]

    def call_gist(self, dialect: str, name: str, data: Any) -> str | None:
        """What a Kiro tool call acts on, from its input's own fields: a 2.x ``write``'s sub-command and path
        (``create /w/notes.md``), a 3.x ``create``'s file, a ``grep``'s or ``glob``'s pattern and folder, a ``read``'s
        paths; None for any other call (the readers' own rule). See :func:`asz_adapters_kiro.gists.call_gist`."""
        return call_gist(name, data)

    def record_words(self, dialect: str, record: Mapping[str, Any]) -> str | None:
        """The words of a 3.x runtime event: a notice's text part holds them (``context usage: 1.97 %``, ``tool_approval
        asked: fs_write; …``, indexed as it is), so its payload adds none (''); None for an event with no text (a
        ``session_event``: its payload's string values are indexed). Never raises."""
        parts = record.get("parts") if isinstance(record, Mapping) else None
        said = isinstance(parts, list) and any(isinstance(p, Mapping) and p.get("k") == "text" for p in parts)
        return "" if said else None

    def document_unfinished(self, source: Source, data: bytes) -> str:
        """Why a snapshot file's bytes read as a document Kiro was rewriting when they were read, '' when they read
        whole: Kiro writes a 3.x ``session.json``, a 2.x ``<id>.json`` and its IDE files whole again at each change,
        so bytes that are not valid JSON (cut mid-way) are a torn read; the collector reads the file again on its
        next pass and lands them only when the file then stays unchanged for the idle window (trial 23a, F16;
        docs/adapters/kiro.md, Snapshots read mid-rewrite). '' for a SQLite row (a committed value). Never raises."""
        if source.mode != "snapshot":
            return ""
        return unfinished_reason(data)

    def convert_line(self, source: Source, line: bytes, ord: int, off: int) -> Record:
        """One complete source line (no newline) of a 3.x or 2.x transcript into one record.

        ``bytes`` = ``len(line)``, ``sha`` = first 12 hex of its SHA-256.
        Never raises: what cannot be described is an ``unknown`` part.
        See :func:`asz_adapters_kiro.convert.convert_line`.
        """
        return convert_line(source, line, ord, off)

    def convert_document(self, source: Source, data: bytes) -> Record:
        """One whole document (metadata, SQLite row value, export, IDE file) into one record at ord 1, off 0.

        ``sha`` and ``bytes`` cover ``data`` as given. Never raises. See
        :func:`asz_adapters_kiro.convert.convert_document`.
        """
        return convert_document(source, data)


def _row_ref(source: Source):
    """The row a document source's ``src`` (``<database src>#<fragment>``) names. Raises ValueError."""
    _, sep, fragment = source.src.partition("#")
    if not sep:
        raise ValueError(f"a document source's src names no row: {source.src!r}")
    return parse_row_fragment(fragment)


@hookimpl
def asz_register_adapters() -> list[type[Adapter]]:
    """The adapters this plugin provides: ``[KiroAdapter]``."""
    return [KiroAdapter]


def _credit_sum(entries: Iterable[Any], key: str) -> float | None:
    """The sum of ``entry[key]`` over the ``entries`` (dicts) whose ``unit`` is ``credit`` and whose figure is a number
    of 0 or more; None when none is."""
    total, seen = 0.0, False
    for m in entries:
        v = m.get(key) if isinstance(m, dict) and m.get("unit") == "credit" else None
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0:
            total, seen = total + v, True
    return total if seen else None


def _turn_entries(d: dict) -> list | None:
    """A 2.x session document's ``session_state.conversation_metadata.user_turn_metadatas`` list, None when ``d`` has none."""
    state = d.get("session_state")
    meta = state.get("conversation_metadata") if isinstance(state, dict) else None
    turns = meta.get("user_turn_metadatas") if isinstance(meta, dict) else None
    return turns if isinstance(turns, list) else None


def _listed(entry: dict, key: str) -> list:
    """``entry[key]`` when it is a list, else []."""
    v = entry.get(key)
    return v if isinstance(v, list) else []
