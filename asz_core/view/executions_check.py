"""``asz verify``'s warning for an execution record whose arguments differ from the transcript's input (trial 23a, F8).

``asz hook`` keeps the digest of the arguments an MCP server was sent; the transcript keeps the model's own input of
the same call. The document holds the two against each other per ``tool_executions`` entry (``arguments_check``:
:mod:`asz_core.view.arguments_check`; docs/claude-code-hooks.md, Held against the transcript). Both sides landed
whole, so a difference is no damage (the exit code stays 0), but what the server ran is not what the transcript
shows: a hook before the call rewrote it (seed 000, Execution records). ``asz verify`` says so, one ``warning:`` per
entry that differs, naming the session, the execution record (its file and line) and the tool call.

Only sessions holding landed ``execution`` files are read (a root of transcripts alone costs one listing per
session), and of each such conversation (through its head round's ``through_seq``, as the document reads it) only
its execution files whole and, of its other landed files, the record lines that hold the quoted id of a call an
execution record names: the document is not built. Both sides join and measure by the same functions
(:func:`~asz_core.view.arguments_check.observation_entries`, :func:`~asz_core.view.arguments_check.calls_named`,
:func:`~asz_core.view.arguments_check.hold_all`), so the counts and warnings are the document's.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Collection, Iterable, Iterator

import orjson

from ..sessiondata import SDReader
from ..sessiondata.reader import SDError
from ..storage.layout import session_dirs, session_listing
from ..verify.clean import CALL_NAME
from ..verify.report import Problem, Section

__all__ = ["ARGUMENTS_DIFFER", "arguments_section"]

#: The warning's name (:class:`~asz_core.verify.report.Problem` ``problem``).
ARGUMENTS_DIFFER = "arguments differ"


def _holding_executions(root: Path, listed: dict[str, list]) -> dict[str, list]:
    """The session folders of ``root`` that hold a landed ``execution`` file, by name, each with its landed files
    (skeletons too, paths as ``str``: :func:`~asz_core.storage.layout.session_listing`); one listing each, taken from
    ``listed`` (by the folder's path as ``str``) where the chain checks just listed it; a folder
    that cannot be listed holds none here: the landed check names it."""
    out = {}
    for sdir in session_dirs(root):
        try:
            files = listed.get(os.fspath(sdir))
            if files is None:
                files = session_listing(sdir, skeletons=True, strings=True).files
        except (OSError, ValueError):
            continue
        if any(name.kind == "execution" and name.ext == "sd" for name, _ in files):
            out[sdir.name] = files
    return out


def arguments_section(root: str | os.PathLike, only: str | None = None, named: Collection[str] | None = None,
                      seen=None, unheld: Collection[str] = ()) -> Section | None:
    """The ``arguments`` section: ``checked N tool execution record(s) against the transcript's input: agree A,
    differ D, not compared C`` and one warning per entry whose ``arguments_check`` is ``differ``:
    ``<file>:<line>: arguments differ [arguments]: session S, execution record row R, tool call T NAME: the server
    was sent N bytes (sha256 …), the transcript's input is M bytes (sha256 …); a hook before the call may have
    rewritten it (asz conversation S says which)``. ``only``: one session (or conversation) id. None when no
    conversation in scope has an execution record. Never fails the run; a conversation whose head round does not
    read is left to the chain checks, which name it.

    ``named``: when the landed check (:func:`~asz_core.verify.walk.verify`) ran over the same root just before, the
    files its problems name (:func:`named_files`): a landed file holding a call that none names is taken as it
    verified it (its closing line binds its bytes), not hashed again; without it each such file is hashed here.
    ``seen``: what the chain checks just listed and read (``walk.verify``'s
    :class:`~asz_core.flow.verify_chain.Seen`): a session's landed files are not listed again, and a head round they
    read whole (the one a listing of its rounds names) is not read again. ``unheld``: the landed files (paths as
    ``str``) the landed check read whole and found no MCP call's name in (:func:`~asz_core.verify.walk.verify_root`):
    none of them is read for the MCP calls no execution record covers."""
    from .rows import list_conversations

    root = Path(root)
    counts = {"agree": 0, "differ": 0, "cannot_compare": 0}
    other = {"name": 0, "outcome": 0, "result": 0, "twice": 0, "records": 0, "differing": 0, "no_result": 0,
             "no_execution": 0}
    warnings: list[Problem] = []
    notes: list[str] = []
    holding = _holding_executions(root, seen.listed if seen is not None else {})
    if not holding:  # a root of transcripts alone: no conversation's head is read (one listing per session)
        return None  # nor are the modules that hold an execution record against its call (issue 22, the start)
    from .arguments_check import TRANSCRIPT_CHECKS
    heads = seen.heads if seen is not None else {}
    for cid in list_conversations(root):
        header = _head_header(root, cid, heads)
        if not header:
            continue
        session = header.get("session")
        session = session if isinstance(session, str) and session else cid
        if only is not None and only not in (session, cid):
            continue
        through = header.get("through_seq")
        if session not in holding or not isinstance(through, int) or isinstance(through, bool):
            continue
        try:
            # the landed check walked the root, or the session ``only`` names: a conversation named by its id whose
            # head round names another session had its files walked by no one
            walked = named if only is None or only == session else None
            entries, files, ended, unrecorded = conversation_checks(root, holding[session], through, walked, full=True,
                                                                    unheld=unheld)
        except OSError:
            continue
        _one_side(root, session, entries, files, ended, unrecorded, other, warnings, notes)
        for e in entries:
            check = e.get("arguments_check") if isinstance(e.get("arguments_check"), dict) else {}
            result = check.get("result")
            if result in counts:
                counts[result] += 1
            if result == "differ":
                warnings.append(_warning(root, session, e, check, files))
            held = e.get("transcript_check") if isinstance(e.get("transcript_check"), dict) else {}
            for k in TRANSCRIPT_CHECKS:
                if (held.get(k) or {}).get("result") == "differ":
                    other[k] += 1
                    warnings.append(_held_warning(root, session, e, k, held[k], files))
            times = e.get("observed_times")
            if isinstance(times, int) and times > 1:
                other["records"] += times
                other["twice"] += 1
                if e.get("observed_again"):
                    other["differing"] += 1
                    notes.append(_again_note(root, session, e, files))
    if not sum(counts.values()):
        return None
    return Section("arguments", _summary(counts, other),
                   counts={"executions_agree": counts["agree"], "executions_differ": counts["differ"],
                           "executions_not_compared": counts["cannot_compare"],
                           "executions_name_differs": other["name"], "executions_outcome_differs": other["outcome"],
                           "executions_result_differs": other["result"], "executions_observed_twice": other["twice"],
                           "executions_observed_twice_differing": other["differing"],
                           "executions_no_result": other["no_result"], "calls_no_execution": other["no_execution"]},
                   notes=notes, warnings=warnings)


def _head_header(root: Path, cid: str, heads: dict) -> dict | None:
    """The header of conversation ``cid``'s newest round (:func:`~asz_core.view.rows.read_head`), as much of it as
    this check reads (``session``, ``through_seq``) taken from ``heads`` where the chain checks read that very file
    whole (the newest one listed now); None when it has no round or its header line does not read."""
    from .rows import newest_round, read_head

    newest = newest_round(root, cid)
    known = heads.get(cid)
    if newest is not None and known is not None and known[0] == newest[1]:
        return {"session": known[1], "through_seq": known[2]}
    head = read_head(root, cid, newest) if newest is not None else None
    return head.header if head else None


def named_files(problems: Iterable[Problem]) -> set[str]:
    """The files ``problems`` name (:attr:`~asz_core.verify.report.Problem.file`), each as an absolute normalised path
    (what :func:`arguments_section` takes as ``named``)."""
    return {os.path.normpath(os.path.abspath(p.file)) for p in problems if p.file}


def conversation_checks(root: Path, listed: list, through_seq: int, named: Collection[str] | None = None,
                        full: bool = False, unheld: Collection[str] = ()) -> tuple:
    """``(entries, files)`` of a session's landed files ``listed`` (``(LandedName, path)`` in seq order, as
    :func:`~asz_core.storage.layout.session_listing` gives them) with seq <= ``through_seq``: the execution entries the
    document's ``tool_executions`` holds, each with its ``arguments_check``, and the root-relative path of each
    execution file by seq; read without building the document (module docstring). An execution file that does not
    read whole gives no entry (the document holds its records back, data and all). ``named``, ``unheld``: as
    :func:`arguments_section` takes them. With ``full``, also the calls only one side saw (``ended``, ``unrecorded``:
    :func:`~asz_core.view.arguments_check.hold_all`): the lines naming the entries' calls are read only as far as
    their calls and results, and apart from them every line holding an MCP call's name (:data:`MCP_NAME`), of each
    file but those in ``unheld`` (issue 22, session 34). Raises OSError when a file cannot be read."""
    from .arguments_check import hold_all, observation_entries

    landed = [(ln, path) for ln, path in listed if ln.seq <= through_seq]
    parts: list[tuple[int, int, int, dict]] = []
    files: dict[int, str] = {}
    for ln, path in landed:
        if ln.kind != "execution":
            continue
        files[ln.seq] = _rel(root, path)
        try:
            recs = [rec for _, rec in SDReader(path, decode="dict")]
        except SDError:
            continue
        for row, rec in enumerate(recs, 1):
            for block, p in enumerate(rec.get("parts") or ()):
                if isinstance(p, dict) and p.get("k") in ("data", "unknown"):
                    parts.append((ln.seq, row, block, p))
    _, entries = observation_entries(parts)
    for ln, path in landed:  # every landed file by seq: a call part's file is named too (trial 33b F1)
        if ln.seq not in files:
            files[ln.seq] = _rel(root, path)
    if not entries:
        return (entries, files, {}, []) if full else (entries, files)
    ids = {e.get("tool") for e in entries}
    lines: dict[tuple[int, int], bytes] = {}
    decoded: dict[tuple[int, int], dict] = {}  # each record line found, as calls_named reads it (transcript_check)
    unverified: set[int] = set()

    def kept(found: Iterator[tuple[int, int, dict]]) -> Iterator[tuple[int, int, dict]]:
        for seq, row, rec in found:
            decoded[(seq, row)] = rec
            yield seq, row, rec

    removed = {ln.seq for ln, _ in landed if ln.ext == "sk"}
    ended, unrecorded = hold_all(entries, kept(_lines_naming(landed, ids, lines, unverified, named)),
                                 removed=removed.__contains__, unverified=unverified.__contains__,
                                 withheld=lambda seq, row: False, line=lambda seq, row: lines.get((seq, row)),
                                 record=lambda seq, row: decoded.get((seq, row)),
                                 more=lambda ids: _lines_naming(landed, ids, {}, set(), named),
                                 mcp=_lines_naming([x for x in landed if x[1] not in unheld], (), {}, unverified,
                                                   named, (MCP_NAME,)))
    return (entries, files, ended, unrecorded) if full else (entries, files)


def _plain(base: str, rel: str) -> bool:
    """Whether ``f"{base}/{rel}"`` is already the text pathlib makes of ``base`` and ``rel`` (a POSIX system, a root
    other than ``.`` and ``/``, no empty or ``.`` part in ``rel``): :func:`_rel` and :func:`_under` then build no
    :class:`~pathlib.Path` (issue 22, session 39: 1,325 of them cost some 7 ms of the 200 MB bench root's check)."""
    return (os.sep == "/" and base not in ("", ".", "/") and rel != "" and not rel.startswith("/")
            and not rel.endswith("/") and "//" not in rel and "/./" not in f"/{rel}/")


def _rel(root: Path, path: str) -> str:
    """``Path(path).relative_to(root).as_posix()`` of a landed file's path as the listing gives it (``str``, under
    ``root``), as plain text where :func:`_plain` says it is the same. Raises ValueError as ``relative_to`` does."""
    base = str(root)
    if path.startswith(base + "/") and _plain(base, path[len(base) + 1:]):
        return path[len(base) + 1:]
    return Path(path).relative_to(root).as_posix()


def _under(root: Path, rel: str) -> str:
    """``str(root / rel)`` for a root-relative path ``rel`` (:func:`_rel`'s, or a session's name), as plain text
    where :func:`_plain` says it is the same."""
    base = str(root)
    return f"{base}/{rel}" if _plain(base, rel) else str(root / rel)


#: What a landed line holding an MCP call's name holds (the name's JSON string begins so): the lines read to find the
#: MCP calls no execution record covers (trial 33b F1).
MCP_NAME = CALL_NAME


def _lines_naming(landed: list[tuple], ids: set, lines: dict[tuple[int, int], bytes], unverified: set[int],
                  named: Collection[str] | None, also: tuple[bytes, ...] = ()) -> Iterator[tuple[int, int, dict]]:
    """``(seq, row, record)`` of each record line of the landed files other than execution files that holds the
    quoted text of one of ``ids`` (as landing writes a string: JSON, UTF-8), in landed order, decoded; each such
    line kept in ``lines`` by ``(seq, row)``. Only a file whose bytes hold one is read further, as the document reads
    it (:class:`~asz_core.view.session_records.LandedSession`): a plain file whose closing line binds its bytes by its
    lines: when ``named`` names it not, found where the id is in the file read only as far as that line (the lines
    before it counted, none split; :func:`_rows_holding`), when :func:`~asz_core.view.session_records.read_sealed` says so, among the record
    lines it split from the very bytes it checked; else (a skeleton, or a file that does not verify: its seq is
    added to ``unverified``) through the reader, whose records up to a line that does not read are the file's. A line
    another record's text makes match holds no call part of that id: :func:`~asz_core.view.arguments_check.calls_named`
    looks at the parts themselves."""
    quoted = [orjson.dumps(i) for i in ids if isinstance(i, str) and i] + list(also)  # ``also``: other bytes to find
    if not quoted:
        return
    for ln, path in landed:
        if ln.kind == "execution":
            continue
        if ln.ext == "sk":
            found = [(row, line) for row, line in enumerate(_read_records(path, None, ln.seq, unverified), 1)
                     if any(q in line for q in quoted)]  # read whole: the reader says at its end whether it verifies
        elif named is not None and os.path.normpath(os.path.abspath(path)) not in named:
            found = _rows_holding(path, quoted)  # the landed check read its closing line against its bytes
        else:
            data, sealed = Path(path).read_bytes(), None
            if not any(q in data for q in quoted):
                continue
            if named is None:  # hashed only when it holds one; the lines searched are the bytes read_sealed checked
                from .session_records import read_sealed  # not loaded when the landed check ran before (asz verify)

                data, _, sealed, _ = read_sealed(path)
            if sealed is not None:
                found = [(row, line) for row, line in enumerate(sealed[4], 1) if any(q in line for q in quoted)]
            else:
                found = [(row, line) for row, line in enumerate(_read_records(path, data, ln.seq, unverified), 1)
                         if any(q in line for q in quoted)]
        for row, line in found:
            try:
                rec = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            lines[(ln.seq, row)] = line
            yield ln.seq, row, rec


#: How many bytes :func:`_rows_holding` reads at a time at most (a sealed file is read only as far as the lines it
#: yields).
ROWS_CHUNK = 1 << 18

#: How many bytes :func:`_rows_holding` reads first; each read after it twice the one before, up to
#: :data:`ROWS_CHUNK`, so a call named near a file's start costs a small read (issue 22: on the 200 MB bench root, whose
#: execution records name each transcript's first call, ``asz verify`` read 45.8 MB with 256 KB reads, 5.7 MB so).
ROWS_FIRST = 1 << 14


def _rows_holding(path: str, quoted: list[bytes]) -> Iterator[tuple[int, bytes]]:
    """``(row, line)`` of each record line of the sealed landed file ``path`` that holds one of ``quoted``, in row
    order (row 1 the line after the header; the closing line, the file's last, is none), the lines before a match only
    counted. The file is read a chunk at a time, only as far as the line the caller stops after (not
    mapped: a file truncated under a mapping would end the process with SIGBUS, losing every other finding of
    ``asz verify``; not read whole: issue 22, the command read 156 MB of a 207 MB root's transcripts to find one call
    each near their start; the first read is :data:`ROWS_FIRST` bytes, each next twice the one before up to
    :data:`ROWS_CHUNK`). A quoted id holds no newline, so a match lies within one line, and only whole lines
    (their newline read) are searched; the one whose newline is the file's last byte is the closing line. Lazy: the
    caller stops it once it has what it wants."""
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        buf, off, row = b"", 0, 0  # buf holds the file from byte ``off``, where line ``row`` (0: the header) begins
        chunk = min(ROWS_FIRST, ROWS_CHUNK)
        while True:
            more = f.read(max(chunk, len(buf)))  # a line longer than a chunk: read twice as much, and so on
            chunk = min(2 * chunk, ROWS_CHUNK)
            buf += more
            cut = buf.rfind(b"\n", len(buf) - len(more)) + 1  # buf[:cut]: whole lines (the tail kept held none)
            start = 0
            while True:
                hits = [a for a in (buf.find(q, start, cut) for q in quoted) if a >= 0]
                if not hits:
                    break
                first = min(hits)
                at = buf.rfind(b"\n", start, first) + 1 or start  # where the matching line begins
                row += buf.count(b"\n", start, at)  # the lines before it only counted
                end = buf.find(b"\n", first, cut)
                if off + end == size - 1:
                    return  # the closing line
                if row >= 1:
                    yield row, buf[at:end]
                start, row = end + 1, row + 1
            row += buf.count(b"\n", start, cut)
            buf, off = buf[cut:], off + cut
            if not more:
                return


def _read_records(path: Path, data: bytes | None, seq: int, unverified: set[int]) -> Iterator[bytes]:
    """The records of a landed file through its reader (a skeleton: gzip), each as its JSON line, up to a line that
    does not read (``seq`` is then added to ``unverified``)."""
    try:
        for _, rec in SDReader(path, decode="dict", data=data):
            yield orjson.dumps(rec)
    except SDError:
        unverified.add(seq)


def _warning(root: Path, session: str, e: dict, check: dict, files: dict[int, str]) -> Problem:
    """The warning of one entry ``e`` whose arguments differ (:func:`arguments_section`)."""
    ref = e.get("ref") or {}
    seq, row = ref.get("seq"), ref.get("row")
    rel = files.get(seq, "") if isinstance(seq, int) else ""
    a, t = e.get("arguments") or {}, check.get("transcript") or {}
    from .execution_words import call_named

    call = call_named(e) or "(no tool call id)"
    detail = (f"session {session}, execution record row {row}, tool call {call}: the server was sent "
              f"{_size(a)} (sha256 {str(a.get('sha256', ''))[:12]}…), the transcript's input is {_size(t)} (sha256 "
              f"{str(t.get('sha256', ''))[:12]}…); a hook before the call may have rewritten it (asz conversation "
              f"{session} says which)")
    return Problem(_under(root, rel or session), row + 1 if isinstance(row, int) else 0, "arguments",
                   ARGUMENTS_DIFFER, detail)


def _summary(counts: dict, other: dict) -> str:
    """The section's two ``checked`` lines (:func:`arguments_section`; the second: trial 30c F2, F3, 33b F1)."""
    from .arguments_check import NO_EXECUTION, NO_RESULT

    n = sum(counts.values())
    return (f"checked {n} tool execution record(s) against the transcript's input: agree {counts['agree']}, differ "
            f"{counts['differ']}, not compared {counts['cannot_compare']}\n"
            f"checked {n} tool execution record(s) against the transcript's call and result: name differs "
            f"{other['name']}, outcome differs {other['outcome']}, result differs {other['result']}; observed twice "
            f"{other['twice']} ({other['records']} records), differing {other['differing']} (the first by time is the "
            "one counted)" + (f"; {NO_RESULT} {other['no_result']}; MCP calls of the transcript with {NO_EXECUTION} "
                              f"{other['no_execution']}" if other["no_result"] or other["no_execution"] else ""))


def _one_side(root: Path, session: str, entries: list[dict], files: dict[int, str], ended: dict, unrecorded: list,
              other: dict, warnings: list, notes: list) -> None:
    """The calls only one side saw (trial 33b F1), counted in ``other`` (``no_result``, ``no_execution``): a
    ``warning:`` for each entry the hook saw end whose call the transcript holds with no tool result (``ended``: its
    call part's place by id), a ``note:`` for each MCP call of the transcript no execution record covers
    (``unrecorded``, :func:`~asz_core.view.arguments_check.unrecorded_calls`: a fact, not damage), each naming the
    call part's file and line."""
    from .arguments_check import NO_EXECUTION, NO_RESULT
    from .execution_words import call_named, outcome_said

    for e in entries:
        if e.get("tool") in ended:
            other["no_result"] += 1
            warnings.append(_call_problem(root, session, ended[e["tool"]], files, NO_RESULT,
                                          f"tool call {call_named(e)}: the hook saw the call end, {outcome_said(e)} "
                                          f"(execution record {_at(root, session, e, files)}); the transcript holds its "
                                          "call and no tool result of it"))
    for c in unrecorded:
        other["no_execution"] += 1
        at, named = c["ref"], call_named({"tool": c["id"], "tool_name": c["name"]})
        notes.append("note: " + str(_call_problem(root, session, (at["seq"], at["row"], at["block"]), files,
                                                  NO_EXECUTION, f"tool call {named}: {c['why']}")))


def _call_problem(root: Path, session: str, at: tuple[int, int, int], files: dict[int, str], what: str,
                  said: str) -> Problem:
    """``<file>:<line>: <what> [arguments]: session S, <said>``, naming the transcript's call part at ``at``
    (``(seq, row, block)``): its landed file and line (row + 1: the header is line 1; trial 33b F1)."""
    seq, row, _ = at
    rel = files.get(seq, "")
    return Problem(_under(root, rel or session), row + 1, "arguments", what,
                   f"session {session}, {said}")


def _at(root: Path, session: str, e: dict, files: dict[int, str]) -> str:
    """``<file>:<line>`` of entry ``e``'s execution record (:func:`_where`)."""
    path, line, _ = _where(root, session, e, files)
    return f"{path}:{line}"


def _where(root: Path, session: str, e: dict, files: dict[int, str]) -> tuple[str, int, int | None]:
    """``(file, line, row)`` of entry ``e``'s execution record: its landed file (the session's folder when not known),
    its line in it (row + 1: the header is line 1; 0 when not known) and its row."""
    ref = e.get("ref") or {}
    seq, row = ref.get("seq"), ref.get("row")
    rel = files.get(seq, "") if isinstance(seq, int) else ""
    return _under(root, rel or session), (row + 1 if isinstance(row, int) else 0), row


def _held_warning(root: Path, session: str, e: dict, what: str, check: dict, files: dict[int, str]) -> Problem:
    """The warning of one entry ``e`` whose ``what`` check (``name``, ``outcome``, ``result``) differs
    (:func:`arguments_section`; trial 30c F3): ``<file>:<line>: outcome differs [arguments]: session S, execution
    record row R, tool call T NAME: <what differs, as the exports say it> (asz conversation S says which)``."""
    from .arguments_check import HELD_DIFFER
    from .execution_words import call_named, held_said

    path, at, row = _where(root, session, e, files)
    call = call_named(e) or "(no tool call id)"
    detail = (f"session {session}, execution record row {row}, tool call {call}: {held_said(e, what)} (asz "
              f"conversation {session} says which)")
    return Problem(path, at, "arguments", HELD_DIFFER[what], detail)


def _again_note(root: Path, session: str, e: dict, files: dict[int, str]) -> str:
    """The note of one entry ``e`` a later record of the same id contradicts (trial 30c F2): ``note: <file>:<line>:
    observed twice, differing: session S, tool call T NAME: <as the exports say it>``, naming the later record's line;
    not damage (both landed whole), so a note."""
    from .execution_words import again_said, call_named

    later = next((a for a in e.get("observed_again") or () if isinstance(a, dict)), {})
    path, at, _ = _where(root, session, {"ref": later.get("ref") or e.get("ref")}, files)  # the later record's line
    call = call_named(e) or "(no tool call id)"
    return f"note: {path}:{at}: observed twice, differing: session {session}, tool call {call}: {again_said(e)}"


def _size(d: dict) -> str:
    """``N bytes`` of a digest's ``bytes``, ``? bytes`` when it holds none."""
    n = d.get("bytes")
    return f"{n:,} bytes" if isinstance(n, int) and not isinstance(n, bool) else "? bytes"
