"""What ``asz verify`` reports (origin-digest §6): a :class:`Problem` per finding, a :class:`Section` per part of the
root (landed files, round chains, provider bodies) and the :class:`VerifyReport`, with the fixed lines it prints.

Split from :mod:`asz_core.verify.walk` (the walk itself), which re-exports every name here.
"""

from __future__ import annotations

import os

import attrs

from ..termsafe import shell_word

__all__ = ["Problem", "Section", "VerifyReport", "SNAPSHOT_KINDS", "UNCHECKED_KINDS", "OK_LINE", "FILE_OK_LINE", "ALONE_NOTE", "DUPLICATES_LINE",
           "UNCURSORED_LINE", "TORN", "CHANGED_SINCE_PARSED", "PARALLEL_MIN_FILES", "SESSIONS_PER_JOB"]

#: Kinds whose source is one document: each file is one record at ord 1, off 0 (seed 000, File kinds).
SNAPSHOT_KINDS = ("agent_meta", "workflow_manifest", "workflow_script", "tool_output")
#: Kinds not contiguity-checked: a provider body is rebuilt instead (seed 000, Provider bodies).
UNCHECKED_KINDS = ("provider_body",)
#: The last line of a clean root (origin-digest §8.1).
OK_LINE = "all landed data is contiguous and matches its digests"
#: The last line of a clean single file.
FILE_OK_LINE = "the file is whole: its header, records and closing digest check"
#: The note of a single file's check: what it cannot see (trial 15, F4: a re-sealed file is whole on its own).
ALONE_NOTE = ("checked on its own: a single file's check sees only the file itself, not its session's cursor nor its "
              "conversation's round chain (whether this is the file that was parsed, and that nothing is missing or was "
              "re-sealed); {command} checks those")
#: The line counting re-landed records (origin-digest §8.1); ``{n}`` is the count.
DUPLICATES_LINE = ("{n} record(s) landed more than once (by an interrupted pass, or in the rest of a stream made for a "
                   "receiver: docs/push.md); assembly removes them")

#: The line counting streams whose files have no cursor; ``{n}`` is the count.
UNCURSORED_LINE = ("{n} stream(s) hold landed files but no cursor: a collect pass writes their cursors from the landed files "
                   "while the sources still hold what landed, and lands the rest")

#: The problem name of a landed file whose whole digest is not the one its round's input digest binds (the file was
#: written again since it was parsed, possibly whole with a closing line of its own): :mod:`asz_core.flow.recorded`.
CHANGED_SINCE_PARSED = "changed since parsed"

#: The problem name of a torn tail: reported as a warning, never a failure (:mod:`asz_core.storage.torn`).
TORN = "torn tail"

#: A root with fewer landed files than this is checked in one process.
PARALLEL_MIN_FILES = 32
#: With at least this many sessions per process, processes take whole sessions rather than files.
SESSIONS_PER_JOB = 8


@attrs.frozen
class Problem:
    """One thing wrong: ``file`` (as found), ``line`` (1-based; 0 = the file as a whole), ``field``, ``problem`` name, ``detail``.

    ``problem`` is a short fixed name: ``ord gap``, ``byte gap``, ``end gap``,
    ``digest mismatch``, ``count mismatch``, ``missing closing line``,
    ``bad header``, ``bad record``, ``empty file``, ``unreadable``, ``symbolic link`` (a landed file that is one:
    :mod:`asz_core.sessiondata.nolink`),
    ``writable``, ``name mismatch``, ``duplicate seq``, ``unexpected file``,
    ``bad cursor``, ``damaged record`` / ``damaged line`` (the first line of a file whose digest or count
    failed that differs from what the session index kept of it: :mod:`asz_core.verify.damage`),
    ``chain`` for the round chains' findings, ``changed since parsed`` for a landed file that is not the one its
    round consumed (:data:`CHANGED_SINCE_PARSED`), and ``missing session`` for a session the root's
    ``_sessions.list`` names that is gone, ``missing list`` for that list deleted (:mod:`asz_core.verify.listed`).
    """

    file: str
    line: int
    field: str
    problem: str
    detail: str = ""

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.sentence}"

    @property
    def sentence(self) -> str:
        """What is wrong, without the file and line: ``bad header [session]: missing field``."""
        field = f" [{self.field}]" if self.field else ""
        detail = f": {self.detail}" if self.detail else ""
        return f"{self.problem}{field}{detail}"

    def as_dict(self) -> dict:
        """``{file, line, field, problem, detail}`` for ``--json``."""
        return {"file": self.file, "line": self.line, "field": self.field, "problem": self.problem, "detail": self.detail}


#: What a gap in a stream's records adds (``{command}`` from :func:`~asz_core.flow.verify_chain.reland_command`, ``{source}``
#: :data:`~asz_core.flow.verify_chain.RELAND_SOURCE`): the way back when a landed file was lost.
LOST_HINT = ("; if a landed file was lost (deleted), {command} lands it again from its source {source}, byte "
             "for byte, while the source and the session's index still hold it")


#: What a damaged landed file adds, on its first ``damaged record``/``damaged line`` (else its ``digest mismatch``).
DAMAGED_HINT = ("; {command} keeps the damaged file aside (moved under _set_aside/, never deleted) and lands it again "
                "from its source {source}, byte for byte, while the source and the session's index still hold it")
#: What a damaged landed file adds in a root ``asz receive`` landed it in (``{hosts}``: who sent the session, ``{root}``
#: the root; trial 30a F9: the hint named ``asz sources --reland … --source DIR``, and a receiver has no source).
RECEIVED_DAMAGED_HINT = ("; this root received the session from {hosts} (asz receive), so it holds no source to land the "
                         "file again from, and the receiver refuses other bytes at a path it holds: put the original "
                         "back byte for byte (a copy from the sending host's root, while its retention keeps the file, or "
                         "from a backup), then asz verify --root {root} --receipts HOST_ROOT_OR_PUSH_STATE holds it to "
                         "the SHA-256 the host's receipts name (docs/push.md, the receipts)")
#: What a gap in a stream's records adds in a receiving root (its :data:`LOST_HINT`).
RECEIVED_LOST_HINT = "; {received}"


#: The problems of a landed file whose bytes are damaged, in the order the hint goes to the first of.
DAMAGED = ("damaged record", "damaged line", "digest mismatch")


def hint_lost(problems: list[Problem], first: int, session: str, root: str | os.PathLike) -> None:
    """Add :data:`LOST_HINT` to the ``ord gap`` and ``end gap`` problems of ``problems`` from index ``first`` on
    (``session`` of ``root``, the storage root as verify was given it), and :data:`DAMAGED_HINT` to one
    :data:`DAMAGED` problem of each damaged file."""
    if first >= len(problems):
        return  # nothing to add to (the common case: a clean session)
    from ..flow.verify_chain import RELAND_SOURCE, received_lost, received_from, reland_command

    command = reland_command(session, root)
    sent = received_from(root, session)
    hint = (RECEIVED_LOST_HINT if sent else LOST_HINT).format(command=command, source=RELAND_SOURCE,
                                                               received=received_lost(sent, root))
    damaged: dict[str, int] = {}
    for i in range(first, len(problems)):
        p = problems[i]
        if p.problem in ("ord gap", "end gap"):
            problems[i] = attrs.evolve(p, detail=p.detail + hint)
        elif p.problem in DAMAGED:
            was = damaged.get(p.file)
            if was is None or DAMAGED.index(p.problem) < DAMAGED.index(problems[was].problem):
                damaged[p.file] = i
    for i in damaged.values():
        way = (skeleton_hint(problems[i].file, session, root) if problems[i].file.endswith(".sk")
               else (RECEIVED_DAMAGED_HINT if sent else DAMAGED_HINT).format(command=command, source=RELAND_SOURCE,
                                                                             hosts=sent, root=shell_word(root)))
        problems[i] = attrs.evolve(problems[i], detail=problems[i].detail + way)


#: What a damaged skeleton adds in place of :data:`DAMAGED_HINT` (trial 22a, F24): its landed file is gone and its
#: source was not kept for it, so nothing here lands it again; the receiver that accepted it holds the original.
SKELETON_HINT = ("; this is a skeleton: retention removed the landed file it stands for, so asz sources --reland cannot "
                 "land it again (it lands files from their source, which retention does not keep); {receiver}")
#: :data:`SKELETON_HINT`'s end when a receiver accepted the file (``{where}``: which).
HELD_BY = ("{where} holds the original landed file, with the SHA-256 the skeleton's removed.digest and the round chain "
           "bind (asz verify --root THAT_ROOT {session} checks it there), and only that copy shows what the file held")


def skeleton_hint(path: str, session: str, root: str | os.PathLike) -> str:
    """:data:`SKELETON_HINT` for the damaged skeleton at ``path`` (as shown, openable): the receiver its header's
    ``removed.owner`` names (the endpoint, unescaped) when ``removed.receiver`` says it accepted the file; that no
    receiver confirmed it otherwise; the receiver ``ROOT/push.state`` names when the header does not read."""
    from urllib.parse import unquote

    import orjson

    from ..sessiondata.reader import header_line

    try:
        removed = orjson.loads(header_line(path))["removed"]
        said, owner = removed["receiver"], removed["owner"]
    except Exception:  # noqa: BLE001 - a damaged gzip stream, header or key: the receiver push.state names
        where = f"the receiver this root pushes to (the endpoint in {os.path.join(str(root), 'push.state')}), if it accepted it,"
        return SKELETON_HINT.format(receiver=HELD_BY.format(where=where, session=session))
    if said != "accepted":
        return SKELETON_HINT.format(receiver=f"no receiver confirmed it (removed.receiver: {said}), so no copy of it is "
                                             "known: what it held is lost, the round chain still binds its digest")
    where = f"the receiver that accepted it, {unquote(str(owner).split('||', 1)[0])},"
    return SKELETON_HINT.format(receiver=HELD_BY.format(where=where, session=session))


@attrs.define
class Section:
    """One check of a report: its counts, its summary line, non-failing notes and its problems.

    ``counts`` keys become top-level ``--json`` keys (e.g. ``sessions``,
    ``streams``, ``records``, ``duplicates``); ``summary`` is the
    ``checked …`` line; ``notes`` are lines that do not fail the run;
    ``warnings`` are findings that do not fail it either (a ``torn tail``).
    """

    name: str
    summary: str
    counts: dict[str, int] = attrs.Factory(dict)
    notes: list[str] = attrs.Factory(list)
    problems: list[Problem] = attrs.Factory(list)
    warnings: list[Problem] = attrs.Factory(list)


@attrs.define
class VerifyReport:
    """What ``asz verify`` found: a list of sections; ``ok`` when none has a problem.

    ``ok_line`` is printed when there is no problem.
    """

    sections: list[Section] = attrs.Factory(list)
    ok_line: str = OK_LINE

    @property
    def problems(self) -> list[Problem]:
        """Every section's problems, in section order."""
        return [p for s in self.sections for p in s.problems]

    @property
    def ok(self) -> bool:
        """True when no section found a problem."""
        return not self.problems

    def lines(self) -> list[str]:
        """The text report: every summary line, every note, then the problems or ``ok_line``."""
        out = [s.summary for s in self.sections]
        out += [n for s in self.sections for n in s.notes]
        out += [f"warning: {w}" for s in self.sections for w in s.warnings]
        problems = self.problems
        out += [str(p) for p in problems] if problems else [self.ok_line]
        return out

    def as_dict(self) -> dict:
        """The report as data: every section's counts at the top level, ``problems`` (list of dicts), ``ok``."""
        d: dict = {}
        for s in self.sections:
            d.update(s.counts)
        d["problems"] = [p.as_dict() for p in self.problems]
        warnings = [w.as_dict() for s in self.sections for w in s.warnings]
        if warnings:  # only when there are any: the clean report keeps its shape
            d["warnings"] = warnings
        d["ok"] = self.ok
        return d


#: A refusal's message start -> its :class:`Problem` name (the first that starts it; ``closing line says`` only in the
#: ``records`` field); any other refusal is a ``bad record``.
_NAMES = (("digest mismatch", "digest mismatch"), ("missing closing line", "missing closing line"),
          ("a closing line before the end", "closing line not last"), ("closing line says", "count mismatch"),
          ("bad header", "bad header"), ("empty file", "empty file"), ("unreadable", "unreadable"),
          ("symbolic link", "symbolic link"))


def problem_name(field: str, m: str) -> str:
    """The short fixed name (:class:`Problem`) of a refusal's ``field`` and message ``m``."""
    for start, name in _NAMES:
        if m.startswith(start) and (name != "count mismatch" or field == "records"):
            return name
    return "bad record"


def from_error(err: tuple[int, str, str], shown: str) -> Problem:
    """The :class:`Problem` of a refusal ``(line, field, message)`` (an SDError's) in file ``shown``."""
    line, field, detail = err
    name = problem_name(field, detail)
    if detail.startswith(name):
        detail = detail[len(name):].lstrip(" :")
    return Problem(shown, line, field, name, detail)


def said(line: int, field: str, message: str) -> str:
    """A refusal of a landed file in the words ``asz verify`` prints it, for the readers that hold its evidence back
    (``asz search``): ``missing closing line: the file ends after line 34 (line 35)``."""
    return f"{from_error((line, field, message), '').sentence} (line {line})"
