"""Finding Claude Code's sources under a ``projects`` directory (origin-digest §5.1, Sources).

Discovery is session-first: every project directory is scanned for entries
named like a session id (UUID shape, any case; joins are byte-exact and keep
the case) and what belongs to one session is grouped across directories,
since a workflow script can be filed under another project directory. A
session's id is its file's name, but for a name that differs from the
``sessionId`` its own lines give only in case (a copy through a FAT or exFAT
drive, or a Windows tool, upper-cases ``de3b8b19-….jsonl`` into
``DE3B8B19-….jsonl``): the session is then the one its lines name, so the copy
is a second source of that session's stream and lands once, never as a second
session (trial 31c F1; :func:`session_of`). A transcript's extension is read in
any case (``.JSONL``). Layouts read::

    <slug>/<session>.jsonl                                         main stream (append)
    <slug>/<session>/subagents/agent-<id>.jsonl                    child stream <id> (append)
    <slug>/<session>/subagents/agent-<id>.meta.json                its sidecar (snapshot)
    <slug>/<session>/subagents/workflows/<run>/agent-<id>.jsonl    workflow child, batch <run>
    <slug>/<session>/subagents/workflows/<run>/agent-<id>.meta.json
    <slug>/<session>/subagents/workflows/<run>/journal.jsonl       run journal, batch <run> (append)
    <slug>/<session>/workflows/wf_<run>.json                       manifest, batch wf_<run> (snapshot)
    <slug>/<session>/workflows/scripts/<label>-wf_<run>.js         script, batch wf_<run> (snapshot)
    <slug>/<session>/tool-results/<name>                           a result's full output (companion file; snapshot),
                                                                   stream ``tool-results_<name>``, kind ``tool_output``
    <slug>/agent-<id>.jsonl                                        2.0.x child beside the session file;
                                                                   its session is the first sessionId in it

Sidechain lines inside a 1.0.x main file stay in the main stream. Everything
else (``memory/``, a project-level ``tool-results/``, ``sessions-index.json``, names that are
not session ids) is noise and goes to ``skipped`` with a reason; what cannot be
read goes to ``errors`` and discovery carries on. A symbolic link (file or
directory) is followed when it resolves inside the source root, and skipped
with its target named when it leads outside it (a link is never a way to land
a file from elsewhere on the machine).
"""

from __future__ import annotations

import os
import re
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Iterable, Iterator

from asz_core import Discovery, Source, json_loads, os_error_text, past_bom, source_entries

from .convert import DIALECT

__all__ = ["discover", "slug_of", "session_matches", "companion_stream", "session_of", "SESSION_ID", "STREAM_ID",
           "TOOL_RESULTS"]

#: A session id: UUID shaped, any case.
SESSION_ID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
#: An agent id as it appears in ``agent-<id>.jsonl``. Wider than 2.1's ``a`` + 16 hex: the
#: corpus holds 8-hex ids (2.0.x), ``a7be2f0`` and ``acompact-f46190`` (2.1.39).
STREAM_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,127}")
_AGENT_FILE = re.compile(r"agent-(?P<id>.+?)(?P<ext>\.(?i:jsonl)|\.(?i:meta\.json))")
#: A transcript's extension; read in any case (``.JSONL``: a FAT or exFAT copy, a Windows tool).
_JSONL = ".jsonl"
#: A ``"sessionId"`` member with a UUID-long string value, as a line gives it (:func:`_lines_session`).
_SESSION_MEMBER = re.compile(rb'"sessionId"\s*:\s*"([0-9a-fA-F-]{36})"')
#: (path, size, mtime_ns, ino) of a transcript whose name is not lower case -> the session its lines name.
_NAMED: dict[tuple, str] = {}
#: Files :data:`_NAMED` keeps at most.
_KEEP = 4096
#: What an agent file whose id is the main stream's name is skipped for (``agent-main.jsonl``).
_MAIN_ID = "its agent id is the name of the session's main stream, which the session file holds"
#: Why a session's folder directly in the source root, beside its ``<session id>.jsonl``, is skipped: the source root
#: is one project folder, not the ``projects`` folder (``asz collect`` then names the parent: did you mean --source).
IN_PROJECT_FOLDER = "a session's folder beside its transcript: the source root is one project folder; its parent is the projects folder"
_NOISE = {
    "memory": "agent memory, not a session",
    "tool-results": "persisted tool output, not a source this dialect reads",
    "sessions-index.json": "Claude Code's session index, not a session",
}
# Order of kinds inside one session: main first, then children, journals, manifests, scripts.
_RANK = {"transcript": 0, "agent_meta": 1, "journal": 2, "workflow_manifest": 3, "workflow_script": 4, "tool_output": 5}
#: Where Claude Code keeps a result's full output when the transcript holds only a preview (``<persisted-output>``).
TOOL_RESULTS = "tool-results"


def _transcript_stem(name: str) -> str:
    """The session id a main transcript's file name ``<session id>.jsonl`` gives (the extension in any case,
    ``.JSONL``), or '' for another name."""
    stem = name[: -len(_JSONL)]
    return stem if name[-len(_JSONL):].lower() == _JSONL and SESSION_ID.fullmatch(stem) else ""


def _session_file(name: str) -> bool:
    """True for a main session transcript's name, ``<session id>.jsonl`` (its own file: a link of it leading nowhere is an error)."""
    return bool(_transcript_stem(name))


def session_of(path: Path, stem: str) -> str:
    """The session of the transcript at ``path`` whose file name gives ``stem`` (a UUID-shaped id): ``stem`` itself,
    unless the ``sessionId`` of its lines differs from ``stem`` only in case; then that ``sessionId`` (trial 31c F1).

    Claude Code names a session's file by its id, a lower-case UUID, and writes that id on every line; a FAT or
    exFAT copy or a Windows tool may upper-case the name. A name that is all lower case is taken as it is, with no
    read (every name Claude Code writes); any other is read to the first line whose top-level ``sessionId`` equals
    ``stem`` ignoring case (a resumed session's file opens with lines of the session it continues, so the first
    ``sessionId`` is not enough), once per size and modification time of the file. A name that no line names in
    any case, a name the lines give as it is (an upper-case id of its own: origin-digest §5.1, joins are byte-exact)
    and a file that cannot be read keep ``stem``: the collector reads, or fails to read, the file as before.
    Never raises.
    """
    if stem == stem.lower():
        return stem
    try:
        st = os.stat(path)
        key = (os.fspath(path), st.st_size, st.st_mtime_ns, st.st_ino)
        if key not in _NAMED:
            if len(_NAMED) >= _KEEP:
                _NAMED.clear()
            _NAMED[key] = _lines_session(path, stem)
        return _NAMED[key] or stem
    except OSError:
        return stem


def _lines_session(path: Path, stem: str) -> str:
    """The first top-level ``sessionId`` of a complete line of ``path`` (a mark at a line's start read past) that
    equals ``stem`` ignoring case, or ''. Raises OSError."""
    want = stem.lower()
    with open(path, "rb") as f:
        for line in _lines(f):
            m = _SESSION_MEMBER.search(line)
            if m is None or m.group(1).decode("ascii").lower() != want:
                continue
            try:
                value = json_loads(past_bom(line)[0])
            except (ValueError, RecursionError):
                continue
            sid = value.get("sessionId") if isinstance(value, dict) else None
            if isinstance(sid, str) and sid.lower() == want:
                return sid
    return ""


def slug_of(path: str) -> str:
    """Claude Code's project directory name for a working directory: ``/``, ``.`` and space become ``-``.

    ``/Users/me/my.app`` → ``-Users-me-my-app``. The mapping loses
    information and is never reversed (origin-digest §5.1). Never raises.
    """
    return re.sub(r"[/. ]", "-", path)


def session_matches(slug: str, pattern: str) -> bool:
    """True when project directory ``slug`` matches one session filter (origin-digest §5.1, §8.2).

    A filter starting with ``/`` is a directory, converted to the slug form;
    ``/abs/dir/**`` matches the directory itself and any ``<slug>-…`` below it.
    Any other filter is a glob on the slug (:func:`fnmatch.fnmatchcase`,
    case-sensitive). Never raises.
    """
    if pattern.startswith("/"):
        if pattern.endswith("/**"):
            base = slug_of(pattern[:-3])
            return fnmatchcase(slug, base) or fnmatchcase(slug, base + "-*")
        return fnmatchcase(slug, slug_of(pattern.rstrip("/") or "/"))
    return fnmatchcase(slug, pattern)


class _Walk:
    """State of one discovery pass."""

    def __init__(self, root: Path):
        self.root = root
        self.real_root = os.path.realpath(root)  # where a symbolic link must lead to be followed
        self.out = Discovery()
        self.sessions: dict[str, list[Source]] = {}
        self.primary: dict[str, str] = {}  # session -> project dir holding its main transcript (else first seen)
        self.streams: dict[tuple[str, str, str], str] = {}  # (session, kind, stream/batch) -> src
        self.renamed: set[str] = set()  # src of each main transcript whose name is not its session id (other case)

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def skip(self, path: Path, reason: str) -> None:
        self.out.skipped.append((self.rel(path), reason))

    def error(self, path: Path, exc: OSError | str, what: str = "file") -> None:
        """An ``errors`` entry for ``path``: ``exc`` as a plain message (``no such <what>``, ``not a directory``)."""
        message = exc if isinstance(exc, str) else os_error_text(exc, what)
        self.out.errors.append((str(path), message))

    def entries(self, path: Path) -> Iterator[tuple[str, Path, bool]]:
        """``(name, path, is_dir)`` of each entry of directory ``path`` by name (:func:`asz_core.source_entries`).

        The source root that cannot be listed is an error; a directory inside
        it that cannot be listed is skipped, with why. A symbolic link that
        leads nowhere (its target is missing, or links loop) is skipped with
        its target named, except a main session transcript (``<session>.jsonl``
        in a project directory), which is an error: that is the session's own
        file. Any other entry that cannot be inspected is skipped.
        """
        in_project = path.parent == self.root
        for e in source_entries(path, self.out, self.real_root, top=path == self.root, own_file=_session_file if in_project else None,
                                shown=lambda p: self.rel(Path(p))):
            yield e.name, Path(e.path), e.is_dir

    def add(self, session: str, slug: str, kind: str, path: Path, *, stream: str = "", batch: str = "", mode: str = "append",
            renamed: bool = False) -> None:
        src = self.rel(path)
        key = (session, kind, stream or batch)
        # A second source into a taken stream (the same session file in two project folders) is handed over too:
        # the collector keeps the one the stream's cursor follows and refuses the other (asz_core.collect.second_source).
        # A file named by its session id comes before a copy whose name differs in case (found first: upper case sorts first).
        if renamed:
            self.renamed.add(src)
        main = kind == "transcript" and stream == "main"
        if main and (key not in self.streams or (not renamed and self.streams[key] in self.renamed)):
            self.primary[session] = slug
            self.streams[key] = src
        self.streams.setdefault(key, src)
        self.primary.setdefault(session, slug)
        self.sessions.setdefault(session, []).append(
            Source(session=session, kind=kind, path=path, src=src, dialect=DIALECT, stream=stream, batch=batch, mode=mode)
        )

    # -- project directories ---------------------------------------------------------------

    def project(self, pdir: Path) -> None:
        slug = pdir.name
        older: list[Path] = []  # 2.0.x children, read after the session directories so the newer layout wins
        entries = list(self.entries(pdir))
        files = {stem: path for name, path, is_dir in entries if not is_dir and (stem := _transcript_stem(name))}
        for name, path, is_dir in entries:
            if name in _NOISE:
                self.skip(path, _NOISE[name])
            elif is_dir:
                if SESSION_ID.fullmatch(name):
                    # the folder of a session whose file's name differs from its id in case is that session's
                    self.session_dir(session_of(files[name], name) if name in files else name, slug, path)
                elif _transcript_stem(name):  # named like a transcript, but a directory (trial 33a F7)
                    self.skip(path, "a directory named like a transcript (<session id>.jsonl): a transcript is a file")
                else:
                    self.skip(path, "directory name is not a session id")
            elif stem := _transcript_stem(name):
                session = session_of(path, stem)
                self.add(session, slug, "transcript", path, stream="main", renamed=session != stem)
            elif name.startswith("agent-") and name[-len(_JSONL):].lower() == _JSONL:
                older.append(path)
            else:
                self.skip(path, "file name is not a session id")
        for path in older:
            self.old_child(slug, path)

    def old_child(self, slug: str, path: Path) -> None:
        """A 2.0.x ``agent-<id>.jsonl`` beside the session file: its session is named inside it."""
        m = _AGENT_FILE.fullmatch(path.name)
        agent = m.group("id") if m else ""
        if not STREAM_ID.fullmatch(agent):
            self.skip(path, "agent file name does not carry an agent id")
            return
        if agent.lower() == "main":
            self.skip(path, _MAIN_ID)
            return
        try:
            session = _first_session_id(path)
        except OSError as exc:
            self.error(path, exc)
            return
        if not session:
            self.skip(path, "no line names its session yet")
        elif not SESSION_ID.fullmatch(session):
            self.skip(path, f"its sessionId {session[:60]!r} is not a session id")
        else:
            self.add(session, slug, "transcript", path, stream=agent)

    # -- inside a session directory -------------------------------------------------------

    def session_dir(self, session: str, slug: str, sdir: Path) -> None:
        for name, path, is_dir in self.entries(sdir):
            if name == "subagents" and is_dir:
                self.children(session, slug, path, batch="")
            elif name == "workflows" and is_dir:
                self.workflows(session, slug, path)
            elif name == TOOL_RESULTS and is_dir:
                self.companions(session, slug, path)
            else:
                self.skip(path, _NOISE.get(name, "not a source this dialect reads"))

    def children(self, session: str, slug: str, cdir: Path, *, batch: str) -> None:
        """``subagents/`` (batch '') or ``subagents/workflows/<run>/`` (batch = run)."""
        for name, path, is_dir in self.entries(cdir):
            m = _AGENT_FILE.fullmatch(name)
            if m and m.group("id").lower() == "main":
                self.skip(path, _MAIN_ID)
            elif m and STREAM_ID.fullmatch(m.group("id")) and not is_dir:
                if m.group("ext").lower() == _JSONL:
                    self.add(session, slug, "transcript", path, stream=m.group("id"), batch=batch)
                else:
                    self.add(session, slug, "agent_meta", path, stream=m.group("id"), batch=batch, mode="snapshot")
            elif batch and name == "journal.jsonl" and not is_dir:
                self.add(session, slug, "journal", path, batch=batch)
            elif not batch and name == "workflows" and is_dir:
                for run, run_path, run_is_dir in self.entries(path):
                    if run_is_dir and STREAM_ID.fullmatch(run):
                        self.children(session, slug, run_path, batch=run)
                    else:
                        self.skip(run_path, "not a workflow run directory")
            else:
                self.skip(path, "not a source this dialect reads")

    def companions(self, session: str, slug: str, tdir: Path) -> None:
        """``tool-results/<name>``: each file one ``tool_output`` document in its own stream ``tool-results_<name>``."""
        for name, path, is_dir in self.entries(tdir):
            if not is_dir and STREAM_ID.fullmatch(name.replace(".", "_")):
                self.add(session, slug, "tool_output", path, stream=companion_stream(name), mode="snapshot")
            else:
                self.skip(path, "not a companion file of a tool result")

    def workflows(self, session: str, slug: str, wdir: Path) -> None:
        """``workflows/wf_<run>.json`` manifests and ``workflows/scripts/<label>-wf_<run>.js``."""
        for name, path, is_dir in self.entries(wdir):
            if name.startswith("wf_") and name.endswith(".json") and not is_dir and STREAM_ID.fullmatch(name[:-5]):
                self.add(session, slug, "workflow_manifest", path, batch=name[:-5], mode="snapshot")
            elif name == "scripts" and is_dir:
                for script, script_path, script_is_dir in self.entries(path):
                    run = _script_run(script)
                    if run and not script_is_dir:
                        self.add(session, slug, "workflow_script", script_path, batch=run, mode="snapshot")
                    else:
                        self.skip(script_path, "not a workflow script name (<label>-wf_<run>.js)")
            else:
                self.skip(path, "not a source this dialect reads")


def companion_stream(name: str) -> str:
    """The stream a companion file ``tool-results/<name>`` lands in: ``tool-results_<name>`` (one snapshot cursor each)."""
    return f"{TOOL_RESULTS}_{name}"


def _script_run(name: str) -> str:
    """Run id (``wf_<run>``) of a script named ``<label>-wf_<run>.js``: split on the last ``-wf_``."""
    if not name.endswith(".js") or "-wf_" not in name:
        return ""
    run = "wf_" + name[:-3].rsplit("-wf_", 1)[1]
    return run if STREAM_ID.fullmatch(run) else ""


def _first_session_id(path: Path) -> str:
    """The first ``sessionId`` string found reading ``path`` line by line ('' when none). Raises OSError."""
    with open(path, "rb") as f:
        for line in _lines(f):
            if b'"sessionId"' not in line:
                continue
            try:
                value = json_loads(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(value, dict) and isinstance(value.get("sessionId"), str):
                return value["sessionId"]
    return ""


def _lines(f) -> Iterator[bytes]:
    """Complete lines of a binary file, split on ``\\n`` only (field report 9)."""
    for line in f:
        if line.endswith(b"\n"):
            yield line[:-1]


def discover(source_root: Path, include: Iterable[str] = (), exclude: Iterable[str] = ()) -> Discovery:
    """Sources under ``source_root`` grouped by session (origin-digest §5.1; seed 000, Header ``src``).

    ``include`` and ``exclude`` are session filters judged on the session's
    primary project directory (the one holding its main transcript, else the
    first where it was seen): see :func:`session_matches`. Sessions come in
    the order their first source was found (project directories by name);
    inside a session, main transcript first, then children, sidecars,
    journals, manifests and scripts, each by ``src``. A second source into the
    same stream (the session file in two project folders, a 2.0.x child also
    in the newer layout) is not refused here: it comes right after the first
    found, and the collector keeps the one the stream's cursor follows
    (:func:`asz_core.collect.second_source.refuse_seconds`). Never raises for what it
    finds on disk: an unreadable root, directory or file is an ``errors``
    entry ``(path, message)``; noise is a ``skipped`` entry ``(src, reason)``.
    """
    root = Path(os.path.abspath(source_root))
    walk = _Walk(root)
    entries = list(walk.entries(root))
    transcripts = {stem for name, _, is_dir in entries if not is_dir and (stem := _transcript_stem(name))}
    for name, path, is_dir in entries:
        if is_dir and name in transcripts:  # a session's folder beside its transcript: the root is one project folder
            walk.skip(path, IN_PROJECT_FOLDER)  # skipped whole, one count, no note per subagents folder (trial 38a F2)
        elif is_dir:
            walk.project(path)
        else:
            walk.skip(path, "not a project directory")
    include, exclude = list(include), list(exclude)
    for session, sources in walk.sessions.items():
        slug = walk.primary[session]
        if include and not any(session_matches(slug, p) for p in include):
            walk.out.skipped.append((slug, f"session {session} is not included"))
            continue
        hit = next((p for p in exclude if session_matches(slug, p)), None)
        if hit is not None:
            walk.out.skipped.append((slug, f"session {session} is excluded by {hit!r}"))
            continue
        # a second source into a stream right after the first found (the newer layout, then project folders by name):
        # the collector keeps the first unless the stream's cursor follows the other
        first = walk.streams
        sources.sort(key=lambda s: (s.stream != "main", _RANK[s.kind], (f := first[(session, s.kind, s.stream or s.batch)]),
                                    s.src != f, s.src))
        walk.out.sources.extend(sources)
    return walk.out
