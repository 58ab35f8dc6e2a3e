"""Where Kiro keeps its sessions, and which sources a collect pass reads (issue 12, Sources).

The source root is a home directory (or a Kiro home, ``~/.kiro``, or a Kiro
IDE ``kiro.kiroagent`` directory); every ``src`` is relative to it with
forward slashes. Under it (path → kind, mode, stream):

* ``.kiro/sessions/<workspace>/sess_<id>/messages.jsonl`` → transcript, append, main
* ``.kiro/sessions/<workspace>/sess_<id>/session.json`` → agent_meta, snapshot, main
* ``.kiro/sessions/<workspace>/sess_<id>/<sub>/messages.jsonl`` (or under
  ``subagents/<sub>/``) → transcript, append, ``<sub>``
* ``.kiro/sessions/cli/<id>.jsonl`` → transcript, append, main
* ``.kiro/sessions/cli/<id>.json`` → agent_meta, snapshot, main
* a 3.x ``session.json`` naming ``parentSessionId``, or a 2.x ``<id>.json``
  naming ``parent_session_id``, makes that session a child stream of its parent
* ``<local data dir>/kiro-cli/data.sqlite3`` rows → agent_meta, document, main
* ``<name>.json`` at the root holding ``conversation_id`` and ``history``
  (``/chat save``) → agent_meta, snapshot, ``saved-<name>``
* ``<kiro.kiroagent>/workspace-sessions/<b64 path>/<sessionId>.json`` → agent_meta, snapshot, main
* ``<kiro.kiroagent>/<workspace hash>/<id>.chat`` → agent_meta, snapshot, main
* ``<kiro.kiroagent>/<workspace hash>/<dir>/<execution id>`` → agent_meta,
  snapshot, ``execution-<execution id>``, in the session the file names

Kiro IDE writes three more things into a ``sess_<id>`` folder, each skipped with what it is
(:data:`IDE_SIDECARS`; docs/adapters/kiro.md, Kiro IDE in the 3.x layout): ``snapshots/`` (the
contents of the files its calls changed, which a tool result's ``kiro-snapshot-v2://`` link names:
workspace files, not the conversation), ``sub-executions/`` (its sub-agents' executions: no real
file has shown their lines, so they are not read as transcripts) and ``publish.cursor``.

A 3.x child stream is named by its sub-session id without the ``sess_``
prefix, the form the parent's ``sub_agent_start.subSessionId`` uses. SQLite
rows are not files: :func:`discover` lists each row as a ``mode="document"``
source whose ``path`` is the database and whose ``src`` is
``<database src>#<table>/<key>/<conversation id>``; the collector reads it
through :meth:`asz_adapters_kiro.KiroAdapter.read_document` and asks
:meth:`asz_adapters_kiro.KiroAdapter.source_exists` whether a row no longer
listed is gone.

A symbolic link found while listing (file or directory) is followed when it
resolves inside the source root or inside the Kiro home or IDE directory it
was found under (a home's ``.kiro`` may itself be a link, to a dotfiles
checkout say); one leading anywhere else is skipped with its target named, so
a link never lands a file from elsewhere on the machine. A link that leads
nowhere (or loops), a folder that cannot be listed and an entry that cannot
be inspected are skipped once with why (:func:`asz_core.source_entries`),
except a session's own transcript (``messages.jsonl``, ``cli/<id>.jsonl``),
which is an error.
"""

from __future__ import annotations

import fnmatch
import os
import re
from pathlib import Path
from typing import Callable, Iterable

import orjson

from asz_core import Discovery, Source, SourceEntry, source_entries

from .convert import DIALECT
from .ide import EXECUTION_STREAM
from .sqlite_rows import RowReadError, list_rows, row_fragment

__all__ = [
    "KIRO_HOMES",
    "DATABASES",
    "IDE_DIRS",
    "IDE_SIDECARS",
    "discover",
    "discover_documents",
    "kiro_homes",
    "databases",
    "ide_dirs",
    "read_folders",
]

#: What Kiro IDE writes into a ``sess_<id>`` folder besides its two session files, by name, and why each is skipped
#: (the ``skipped`` reason; trial 29c, F7). The observer fixture's README (superbasedapp/observer
#: ``testdata/kirocli``, from live Kiro IDE captures) lists these names; no real file of ``sub-executions/`` was seen.
IDE_SIDECARS = {
    "snapshots": "Kiro IDE file snapshots: the contents of the files its calls changed (a tool result's "
                 "kiro-snapshot-v2:// checkpoint link names them), workspace files, not the conversation: not read",
    "sub-executions": "Kiro IDE sub-agent executions: no real file has shown their lines, so they are not read as "
                      "transcripts",
    "publish.cursor": "Kiro IDE's own read watermark (<byte offset>:<record index>), not part of the conversation",
}

#: Kiro homes relative to the source root; the root itself counts when it holds ``sessions``.
KIRO_HOMES = (".kiro",)
#: Kiro CLI 1.x databases relative to the source root: the ``dirs`` crate's local data
#: directory on Linux, macOS and Windows, for ``kiro-cli`` and its predecessor ``amazon-q``.
DATABASES = tuple(
    f"{base}/{app}/data.sqlite3"
    for base in (".local/share", "Library/Application Support", "AppData/Local")
    for app in ("kiro-cli", "amazon-q")
) + ("data.sqlite3",)
#: Kiro IDE extension storage relative to the source root (Linux, remote server, macOS, Windows).
IDE_DIRS = tuple(
    f"{base}/User/globalStorage/kiro.kiroagent"
    for base in (".config/Kiro", ".kiro-server/data", "Library/Application Support/Kiro", "AppData/Roaming/Kiro")
)

_SESSION_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
_HEAD = 64 * 1024
_EXEC_SESSION = re.compile(rb'"(?:chatSessionId|sessionId)"\s*:\s*"([^"\\]{1,200})"')


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix()


def _read_json(path: Path) -> dict | None:
    try:
        v = orjson.loads(path.read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    return v if isinstance(v, dict) else None


def _head(path: Path) -> bytes:
    try:
        with open(path, "rb") as f:
            return f.read(_HEAD)
    except OSError:
        return b""


def kiro_homes(root: Path) -> list[Path]:
    """Kiro homes under ``root``: ``root`` itself when it holds ``sessions``, and ``root/.kiro`` (issue 12, Sources). Never raises."""
    found = []
    if (root / "sessions").is_dir():
        found.append(root)
    for rel in KIRO_HOMES:
        if (root / rel / "sessions").is_dir():
            found.append(root / rel)
    return found


def databases(root: Path) -> list[Path]:
    """Kiro CLI 1.x ``data.sqlite3`` files under ``root`` (see :data:`DATABASES`; issue 12, Sources). Never raises."""
    return [root / rel for rel in DATABASES if (root / rel).is_file()]


def ide_dirs(root: Path) -> list[Path]:
    """Kiro IDE ``kiro.kiroagent`` directories under ``root``; ``root`` itself when it is one (issue 12, Sources). Never raises."""
    found = [root] if root.name == "kiro.kiroagent" or (root / "workspace-sessions").is_dir() else []
    return found + [root / rel for rel in IDE_DIRS if (root / rel).is_dir()]


def read_folders(root: Path) -> list[Path]:
    """The folders under ``root`` whose trees :func:`discover` reads (the paths need not exist): ``[root]`` when
    ``root`` is itself a Kiro home (it holds ``sessions`` or is named ``.kiro``), a ``sessions`` directory or a
    ``kiro.kiroagent`` directory; else, for a home directory, each Kiro home (``.kiro``), each IDE ``kiro.kiroagent``
    directory and each folder holding a CLI 1.x database (``.local/share/kiro-cli`` and the like) of
    :data:`KIRO_HOMES`, :data:`IDE_DIRS` and :data:`DATABASES`. Of the home itself only its top-level files are read
    (``/chat save`` exports, a bare ``data.sqlite3``), never its other folders. ``stat`` calls only; never raises."""
    try:
        whole = (root.name in (".kiro", "sessions", "kiro.kiroagent") or (root / "sessions").is_dir()
                 or (root / "workspace-sessions").is_dir())
    except OSError:
        whole = True
    if whole:
        return [root]
    held = dict.fromkeys(str(Path(rel).parent) for rel in DATABASES if "/" in rel)
    return [root / rel for rel in (*KIRO_HOMES, *IDE_DIRS, *held)]


def _v2_transcript(name: str) -> bool:
    """True for a Kiro CLI 2.x session's own transcript name, ``<session id>.jsonl``."""
    return name.endswith(".jsonl") and bool(_SESSION_RE.match(name[: -len(".jsonl")]))


class _Walk:
    def __init__(self, root: Path, include: Iterable[str], exclude: Iterable[str]):
        self.root = root
        self.out = Discovery()
        self.include = list(include)
        self.exclude = list(exclude)
        #: Real paths a symbolic link found while listing may lead into: the root, then each Kiro home and IDE directory.
        self.real_roots = [os.path.realpath(root)]

    def listdir(self, path: Path, *, report: bool = True, own_file: Callable[[str], bool] | None = None) -> list[SourceEntry]:
        """The readable entries of ``path`` by name (:func:`asz_core.source_entries`): a symbolic link leading out of
        :attr:`real_roots`, one leading nowhere, a folder that cannot be listed and an entry that cannot be
        inspected go to ``skipped`` with why, except a link named as a session's own file (``own_file``),
        which leading nowhere is an error. ``report=False``: a folder that cannot be listed is passed over silently."""
        if not report:
            try:
                os.scandir(path).close()
            except OSError:
                return []
        return source_entries(path, self.out, self.real_roots, own_file=own_file)

    def wanted(self, session: str, where: Path) -> bool:
        if self.include and not any(fnmatch.fnmatchcase(session, p) for p in self.include):
            self.out.skipped.append((str(where), f"session {session} is not included"))
            return False
        hit = next((p for p in self.exclude if fnmatch.fnmatchcase(session, p)), None)
        if hit is not None:
            self.out.skipped.append((str(where), f"session {session} is excluded by {hit!r}"))
            return False
        return True

    def add(self, session: str, kind: str, path: Path, stream: str = "", mode: str = "append") -> None:
        self.out.sources.append(
            Source(session=session, kind=kind, path=path, src=_rel(path, self.root), dialect=DIALECT, stream=stream, mode=mode)
        )

    # -- Kiro CLI 3.x ------------------------------------------------------------------

    def v3_workspace(self, ws: Path) -> None:
        entries = self.listdir(ws)
        names = {e.name for e in entries}
        for e in entries:
            if not e.is_dir or not e.name.startswith("sess_"):
                self.out.skipped.append((e.path, "not a Kiro CLI 3.x session directory (sess_<id>)"))
                continue
            meta = _read_json(Path(e.path) / "session.json") or {}
            parent = meta.get("parentSessionId") if isinstance(meta.get("parentSessionId"), str) else ""
            if parent and not parent.startswith("sess_") and f"sess_{parent}" in names:
                parent = f"sess_{parent}"
            session, stream = (parent, e.name[5:]) if parent else (e.name, "")
            if not self.wanted(session, Path(e.path)):
                continue
            self.v3_session(Path(e.path), session, stream)

    def v3_session(self, d: Path, session: str, stream: str, depth: int = 0) -> None:
        for e in self.listdir(d, own_file=lambda name: name == "messages.jsonl"):
            p = Path(e.path)
            if e.name == "messages.jsonl" and e.is_file:
                self.add(session, "transcript", p, stream)
            elif e.name == "session.json" and e.is_file:
                self.add(session, "agent_meta", p, stream, mode="snapshot")
            elif e.is_dir and depth == 0 and e.name == "subagents":
                for sub in self.listdir(p):
                    if sub.is_dir:
                        self.v3_child(Path(sub.path), session)
            elif e.is_dir and depth == 0 and (p / "messages.jsonl").is_file():
                self.v3_child(p, session)
            elif e.name in IDE_SIDECARS:
                self.out.skipped.append((e.path, IDE_SIDECARS[e.name]))
            else:
                self.out.skipped.append((e.path, "not a Kiro CLI 3.x session file (messages.jsonl, session.json)"))

    def v3_child(self, d: Path, session: str) -> None:
        name = d.name[5:] if d.name.startswith("sess_") else d.name
        self.v3_session(d, session, name, depth=1)

    # -- Kiro CLI 2.x ------------------------------------------------------------------

    def v2_dir(self, cli: Path) -> None:
        groups: dict[str, dict[str, Path]] = {}
        for e in self.listdir(cli, own_file=_v2_transcript):
            stem, dot, ext = e.name.rpartition(".")
            if not e.is_file or not dot or not stem:
                self.out.skipped.append((e.path, "not a Kiro CLI 2.x session file"))
                continue
            if ext in ("jsonl", "json"):
                groups.setdefault(stem, {})[ext] = Path(e.path)
            elif ext == "lock":
                self.out.skipped.append((e.path, "the session is still running (its .lock); its files are read as they grow"))
            elif ext == "history":
                self.out.skipped.append((e.path, "plain-text prompt history; the prompts are in the session's .jsonl"))
            else:
                self.out.skipped.append((e.path, "not a Kiro CLI 2.x session file"))
        for sid, files in sorted(groups.items()):
            if not _SESSION_RE.match(sid):
                for p in files.values():
                    self.out.skipped.append((str(p), "not a Kiro CLI 2.x session id"))
                continue
            meta = _read_json(files["json"]) if "json" in files else None
            parent = (meta or {}).get("parent_session_id")
            session, stream = (parent, sid) if isinstance(parent, str) and parent else (sid, "")
            if not self.wanted(session, files.get("jsonl") or files["json"]):
                continue
            if "jsonl" in files:
                self.add(session, "transcript", files["jsonl"], stream)
            if "json" in files:
                self.add(session, "agent_meta", files["json"], stream, mode="snapshot")

    def sessions_dir(self, sessions: Path) -> None:
        for e in self.listdir(sessions):
            if not e.is_dir:
                self.out.skipped.append((e.path, "not a Kiro sessions directory"))
            elif e.name == "cli":
                self.v2_dir(Path(e.path))
            else:
                self.v3_workspace(Path(e.path))

    # -- /chat save exports ------------------------------------------------------------

    def exports(self, d: Path) -> None:
        for e in self.listdir(d, report=False):
            if not e.is_file or not e.name.endswith(".json"):
                continue
            head = _head(Path(e.path))
            if b'"conversation_id"' not in head or b'"history"' not in head:
                continue
            doc = _read_json(Path(e.path))
            cid = doc.get("conversation_id") if doc else None
            if not isinstance(cid, str) or not cid or not isinstance(doc.get("history"), list):
                self.out.skipped.append((e.path, "looks like a /chat save export but holds no conversation_id and history list"))
                continue
            if self.wanted(cid, Path(e.path)):
                self.add(cid, "agent_meta", Path(e.path), "saved-" + e.name[: -len(".json")], mode="snapshot")

    # -- Kiro CLI 1.x SQLite rows -------------------------------------------------------

    def rows(self, db: Path) -> None:
        try:
            refs = list_rows(db)
        except RowReadError as exc:
            self.out.errors.append((str(db), str(exc)))
            return
        for ref in refs:
            where = f"{db}#{row_fragment(ref)}"
            if not ref.conversation_id or not _SESSION_RE.match(ref.conversation_id):
                self.out.skipped.append((where, "a conversation row without a usable conversation id"))
                continue
            if not self.wanted(ref.conversation_id, Path(where)):
                continue
            self.out.sources.append(
                Source(session=ref.conversation_id, kind="agent_meta", path=db, src=f"{_rel(db, self.root)}#{row_fragment(ref)}",
                       dialect=DIALECT, mode="document")
            )

    # -- Kiro IDE ----------------------------------------------------------------------

    def ide(self, a: Path) -> None:
        for e in self.listdir(a):
            p = Path(e.path)
            if e.name == "workspace-sessions" and e.is_dir:
                for ws in self.listdir(p):
                    for f in self.listdir(Path(ws.path)) if ws.is_dir else []:
                        fp = Path(f.path)
                        if f.name == "sessions.json":
                            self.out.skipped.append((f.path, "index of a workspace's sessions; each session lands from its own file"))
                        elif f.is_file and f.name.endswith(".json"):
                            sid = f.name[: -len(".json")]
                            if self.wanted(sid, fp):
                                self.add(sid, "agent_meta", fp, mode="snapshot")
                        else:
                            self.out.skipped.append((f.path, "not a Kiro IDE session file"))
            elif e.is_dir and re.fullmatch(r"[0-9a-f]{16,64}", e.name):
                self.ide_workspace(p)

    def ide_workspace(self, ws: Path) -> None:
        for e in self.listdir(ws):
            p = Path(e.path)
            if e.is_file and e.name.endswith(".chat"):
                sid = e.name[: -len(".chat")]
                if self.wanted(sid, p):
                    self.add(sid, "agent_meta", p, mode="snapshot")
            elif e.is_file and "." not in e.name:
                self.out.skipped.append((e.path, "Kiro IDE session index; the sessions land from their execution files"))
            elif e.is_dir:
                for x in self.listdir(p):
                    xp = Path(x.path)
                    if not x.is_file or "." in x.name:
                        self.out.skipped.append((x.path, "not a Kiro IDE execution file"))
                        continue
                    m = _EXEC_SESSION.search(_head(xp))
                    sid = m.group(1).decode("utf-8", "replace") if m else x.name
                    if self.wanted(sid, xp):
                        self.add(sid, "agent_meta", xp, EXECUTION_STREAM + x.name, mode="snapshot")
            else:
                self.out.skipped.append((e.path, "not a Kiro IDE file this dialect reads"))


def discover(source_root: Path, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Discovery:
    """Sources under ``source_root`` (a home directory, a Kiro home or a ``kiro.kiroagent`` directory).

    ``include`` / ``exclude`` are shell patterns (:func:`fnmatch.fnmatchcase`)
    over session ids. Returns every file source of the table in this
    module's docstring, and each conversation row of each ``data.sqlite3`` as
    a ``mode="document"`` source (as :func:`discover_documents` lists them,
    after the files). Never raises for what is on disk: an unreadable root,
    directory or database is an ``errors`` entry, noise a ``skipped`` entry
    with a reason.
    """
    root = Path(source_root)
    walk = _Walk(root, include, exclude)
    if not root.is_dir():
        walk.out.errors.append((str(root), "the source root is not a readable directory"))
        return walk.out
    homes, ides = kiro_homes(root), ide_dirs(root)
    walk.real_roots += [os.path.realpath(d) for d in (*homes, *ides)]  # a linked ~/.kiro is the user's own layout
    for home in homes:
        walk.sessions_dir(home / "sessions")
    if root.name == "sessions" and not (root / "sessions").is_dir():
        walk.sessions_dir(root)
    walk.exports(root)
    for a in ides:
        walk.ide(a)
    for db in databases(root):
        walk.rows(db)
    return walk.out


def discover_documents(source_root: Path, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Discovery:
    """Each conversation row of each ``data.sqlite3`` under ``source_root`` as a ``mode="document"`` source
    (the rows alone; :func:`discover` lists them too).

    A source's ``path`` is the database file and its ``src`` is
    ``<database src>#<table>/<key>/<conversation id>`` (see
    :func:`asz_adapters_kiro.sqlite_rows.row_fragment`); session = the
    conversation id, kind ``agent_meta``, stream ``main``. A row with no
    conversation id is skipped. An unreadable database is an ``errors``
    entry. Never raises for what is on disk.
    """
    root = Path(source_root)
    walk = _Walk(root, include, exclude)
    for db in databases(root):
        walk.rows(db)
    return walk.out
