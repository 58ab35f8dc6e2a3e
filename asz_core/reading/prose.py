"""``asz export --format prose``: a conversation as the prose an audit model is fed (seed 003, §4; issue 20).

One JSON object per transcript record that carries prose, in file order,
stream by stream (the main stream first, then the others by their first
record's time). Seed 003's rule (§4, "Structured") is stated on Claude Code
source lines, and applied as written:

- ``role: "user"``: a ``user`` line whose ``message.content`` is a string
  (seed 003 §5: "string = human"), text as written, whatever the runtime put
  there (its notices, command output, ``isMeta`` text); a ``user`` line whose
  content is a list is dropped even when it holds only text or image blocks
  (an interrupt notice, an IDE selection, a pasted image: seed 003's filter
  drops them and we follow it; :attr:`ProseStats.person_left_out` names those
  a person wrote, flag ``external_input``, for stderr: trial 16b, F7; and
  :attr:`ProseStats.not_person` the ``user`` turns kept that no person typed,
  such as a compaction summary, trial 16b F6);
- ``role: "assistant"``: an ``assistant`` line whose content is a list, its
  ``text`` blocks joined with a newline (with ``thinking``, its ``thinking``
  blocks too, in block order);
- a turn whose text is empty is left out; never a tool call or result.

A text block whose content is not in the root, because it was too large to
land (seed 000) or retention removed it (a skeleton's ``state: removed``),
stays in its place in ``text`` as ``[too large to land: 30,000,005 bytes, sha256 3a55…]``
or ``[removed by retention: 1,234 bytes]`` (the page's words, with the
original's size): the turn keeps its role and time as seed 003's filter
gives them, and the audit model reads that something was said and how
much, never an empty or missing turn. The shape test reads the landed form
as for a record whose source line is gone (a skeleton keeps no ``sha``).

A string lands as one ``text`` part, and so does a list of one text block
(origin-digest §5.1). A file the Claude Code adapter landed from version
0.2.0 on states such a list under the record's ``dropped`` (``what``
``content list``), so the record alone decides, by the adapter's rule
(:meth:`~asz_core.plugins.adapter.Adapter.content_shape`), with or without
the source; :class:`ProseStats` counts these as ``from_record``. A record of
an earlier file cannot tell which shape its line had: its shape is read from the source line itself
(``src`` of the file's header under the adapter's source root, at the
record's ``off``, ``bytes`` long, accepted only when its SHA-256 matches the
record's ``sha``). When that line cannot be read (the source is gone or
changed) the landed form decides: one text part counts as a string (a
``user`` record is kept, an ``assistant`` one too), and :class:`ProseStats`
counts it as ``undecided``. Any other part mix is decided by the landed
record alone (several parts or media: a list).

Other dialects (Kiro, LangChain) have no string/list distinction: a record
from ``external`` whose parts are all ``text`` or ``media`` is the person's
prompt, and so is one the page draws as a person's message whatever lies beside
its text (:func:`~asz_core.reading.search_hits.person_typed`: flag
``external_input``, a ``text`` part; a LangGraph invocation's record also holds
its run as a ``data`` part, left out; trial 28c F1), and the ``text`` parts of a record from ``agent`` are the model's
(seed 003's intent: person prompts as typed, model text, no tool blocks).

Keys: ``conversation``, ``stream``, ``role``, ``ts`` (the record's time as
written), ``text`` (the parts joined with a newline), ``file`` and ``row``
(the landed record); with a ``--since``/``--until`` window the export adds ``in_range``
(:func:`~asz_core.reading.prose_audit.mark_in_range`; trial 19, F13). A record landed twice (an interrupted pass) counts once,
by its ``ord``; a record carrying a flag ``hide`` names is left out.

:func:`estimate` gives the token estimate of seed 003 (words x 1.3) for the
prose and a like-for-like byte estimate (bytes / 4) of prose against the
source records the conversation landed (``bytes`` of each record: the size of
the source line).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, BinaryIO, Callable, Iterator, Optional, Sequence

import orjson

from ..flow.chain import Chain, ChainError
from ..flow.fold import FoldError, fold_rounds
from ..flow.round import RoundError
from ..sessiondata import SDError, SDReader
from ..sessiondata.model import Header, is_member_part
from ..sessiondata.times import parse_instant
from ..sessiondata.untimed import untimed, untimed_at
from ..storage.layout import landed_files
from .doc_order import arrival_ordered, document_order, in_document_order
from .export_steps import LOST, UNREAD_MARK, UNREAD_THINKING, part_marker, thinking_note
from .landed_check import chain_problem
from .prose_estimate import Estimate, estimate  # Estimate and estimate moved there (trial 49a F5)
from .prose_replays import Replays
from .search_hits import person_typed

__all__ = ["PERSON_NAMED", "Estimate", "ProseStats", "SourceLines", "prose_turns", "said_untimed", "estimate", "session_of"]

_PROSE_USER_PARTS = frozenset(("text", "media"))
#: How many of the person turns left out :meth:`ProseStats.line` names by file and row (the rest are counted).
PERSON_NAMED = 10


def session_of(root: str | os.PathLike, conversation: str) -> tuple[str, int]:
    """``(session, through_seq)`` of a conversation's head round. Raises LookupError when its chain does not fold."""
    head = _head(root, conversation)[0]
    return head.session, head.through_seq


def _head(root: str | os.PathLike, conversation: str, damage: list[str] | None = None):
    """(the head round's header, the head round ``conversation.state`` names); LookupError when the chain does not fold
    and cannot be read from the landed records either. A chain with no round that verifies is read from its landed
    records in memory, as the document is (:meth:`~asz_core.view.chain.ChainReader.fold_chain`, trial 29a F8): then
    ``damage``, when given, gets the reader's problem lines (the round that does not verify, the in-memory note)."""
    from ..view.chain import round_as_of

    chain, upto = Chain(root, conversation), round_as_of(conversation)
    named = chain.named_head()  # before the rounds are listed (Chain.named_head)
    if upto is not None:  # as of a round (asz verify --export of a copy the root moved on from: trial 31b F1)
        named = min(named, upto)
    try:
        head = fold_rounds(r for r in chain.iter_rounds() if upto is None or r.header.round <= upto).head
    except (ChainError, FoldError, RoundError, OSError) as exc:
        from ..view.chain import ChainReader, ViewError

        reader = ChainReader(Path(root), conversation, ())
        try:
            head = reader.fold_chain()[0].head
        except ViewError:
            head = None
        if head is None or not reader.in_memory:
            raise LookupError(f"conversation {conversation!r} has no usable round: {exc}") from None
        if damage is not None:
            damage.extend(reader.problems)
        return head, named
    if head is None:
        raise LookupError(f"conversation {conversation!r} has no round")
    return head, named


def missing_landed(root: Path, session: str, through: int) -> list[tuple[int, str]]:
    """``(seq, "landed file seq N of session S is missing")`` for each seq of ``session`` through ``through`` with no
    landed file or skeleton in the root, by seq: the words the document, ``asz export`` and the search index use."""
    have = {ln.seq for ln, _ in landed_files(root / session, skeletons=True)} if (root / session).is_dir() else set()
    return [(seq, f"landed file seq {seq} of session {session} is missing") for seq in range(1, through + 1) if seq not in have]


def missing_evidence(root: Path, session: str, through: int, head_round: int, named: int) -> list[str]:
    """What of a conversation is missing, in the words of the document's ``summary.problems`` (state ``incomplete``):
    ``landed file seq N of session S is missing`` for each seq through ``through`` with no landed file or skeleton
    (:func:`missing_landed`), and ``round N is missing: conversation.state names round M as the head`` when rounds
    were removed from the end."""
    out = [said for _, said in missing_landed(root, session, through)]
    if named > head_round:
        out.append(f"round {head_round + 1} is missing: conversation.state names round {named} as the head")
    return out


class ProseStats:
    """What deciding the content shape took: ``from_source`` records whose line was read, ``undecided`` ones judged by their landed form."""

    def __init__(self) -> None:
        #: one-text-part records whose own landed form states the shape (:meth:`Adapter.content_shape`): no source read
        self.from_record = 0
        self.from_source = 0
        self.undecided = 0
        #: of ``undecided``: source root looked in -> records whose transcript file is not there; records whose source
        #: line is there but no longer matches; records of an adapter whose source root is not known (:meth:`_why`)
        self.absent: dict[str, int] = {}
        self.changed = 0
        self.no_root = 0
        #: turns whose text is not in the root, by the part's state (``too_large``, ``removed``): each says so in its text
        self.lost: dict[str, int] = {}
        #: ``file: problem`` of each landed transcript file that does not verify; none of its records gave a turn
        self.unverified: list[str] = []
        #: what is missing (a landed file, rounds cut from the chain's end), one line each (:func:`missing_evidence`)
        self.missing: list[str] = []
        #: ``(file, row)`` of each record flagged ``external_input`` (a person's turn) seed 003's shape rule left out: its
        #: content was a list (a prompt with an image, an interrupt notice, an IDE selection; trial 16b, F7)
        self.person_left_out: list[tuple[str, int]] = []
        #: ``(file, row)`` of each ``user`` turn kept whose record is not flagged ``external_input``: the runtime's
        #: (a compaction summary, flag ``reset_summary``; ``isMeta`` text) or a parent agent's (trial 16b, F6)
        self.not_person: list[tuple[str, int]] = []
        #: the record time of each ``(file, row)`` named in :attr:`person_left_out` and :attr:`not_person` (or None), and how
        #: long both lists were when :func:`prose_turns` began the conversation it read last (:meth:`keep_only`)
        self.times: dict[tuple[str, int], Any] = {}
        self.mark = (0, 0)
        #: reasoning parts with no text (written empty or redacted) of the conversation :func:`prose_turns` read
        #: last, with ``thinking`` (``--thinking``); its first turn holding one says how many, in that part's place
        self.thinking_unread = 0
        #: how many of :attr:`thinking_unread` are redacted (a ``redacted_thinking`` block), not written empty
        self.thinking_redacted = 0

    def keep_only(self, lines: Sequence[dict], kept: Sequence[dict], window: tuple[Optional[int], Optional[int]]) -> None:
        """``--in-range-only``: of the turns the conversation read last named in :attr:`person_left_out` and
        :attr:`not_person`, keep only those the export writes (``kept``, of its ``lines``: the same ``file`` and
        ``row``) or, giving no line (the default prose leaves a person's list out), whose time is not outside
        ``window`` (``(since, until)`` unix ms; no time: kept), so stderr names no row of a line left out, nor of a
        conversation none of whose lines is in the window (docs/reading.md, "A day's window")."""
        from .prose_audit import placed

        given = {(x.get("file"), x.get("row")) for x in lines}
        shown = {(x.get("file"), x.get("row")) for x in kept}

        def keep(where: tuple[str, int]) -> bool:
            return where in shown or (where not in given and placed(self.times.get(where), window) is not False)

        a, b = self.mark
        self.person_left_out[a:] = [w for w in self.person_left_out[a:] if keep(w)]
        self.not_person[b:] = [w for w in self.not_person[b:] if keep(w)]

    def _why(self) -> str:
        """Why the undecided records could not be checked, by what was found (trial 15, F6: a transcript that is only
        not where asz looked was said to be "gone, moved or changed"): ``N not found under ROOT`` (the root does not
        record where its sources were collected from: the adapter's configured or default root is looked in, or
        --source), ``N whose source line differs from what landed`` (the transcript changed since), ``N with no
        source root known``."""
        out = []
        for where, n in sorted(self.absent.items()):
            out.append(f"{n:,} whose transcript is not under {where}, where this export looked (the root does not record "
                       "the folder they were collected from)")
        if self.changed:
            out.append(f"{self.changed:,} whose source line no longer matches what landed (the transcript changed since)")
        if self.no_root:
            out.append(f"{self.no_root:,} with no source folder known for their adapter")
        return "; ".join(out)

    def line(self, audit: bool = False) -> str:
        """One line for stderr, or '' when no shape needed its source line and no turn's text is missing; and, on a
        line of its own, the person turns the shape rule left out (:attr:`person_left_out`), when there are any
        (``audit``: the audit form kept them, and the line says so)."""
        if not self.undecided:
            out = f"content shape of {self.from_source:,} one-text-part records read from their source lines" if self.from_source else ""
        else:
            out = (f"{self.undecided:,} user/assistant record(s) could not be checked against their source transcripts "
                   f"({self._why()}), so each was kept as typed text though it may have been a list of text "
                   "blocks (the prose leaves out a user's list, such as an interrupt notice); pass --source DIR where the transcripts "
                   "now are to check them")
        lost = ", ".join(f"{n:,} {LOST[k]}" for k, n in sorted(self.lost.items()))
        if lost:
            out += ("; " if out else "") + f"turns whose text is not in the root (marked in their text): {lost}"
        left, kept = self.person_left_out, self.not_person
        if left and audit:
            out += (("\n" if out else "") + f"{len(left):,} person turn(s) the prose leaves out (their content was "
                    f"a list) are kept in this audit form as kind prompt_blocks or interrupt: {_rows_named(left)}")
        elif left:
            out += (("\n" if out else "") + f"{len(left):,} person turn(s) left out of the prose (a user line counts "
                    f"only when its content is a string; these were lists: a prompt with an image, an interrupt notice, an "
                    f"IDE selection; --audit keeps them, docs/reading.md): {_rows_named(left)}")
        if kept:
            out += (("\n" if out else "") + f"{len(kept):,} user turn(s) the prose keeps (their content is a string) are not text a person typed "
                    f"(a compaction summary, isMeta text, a command's output, what a sub-agent was asked): {_rows_named(kept)}")
        return out


def _rows_named(rows: Sequence[tuple[str, int]]) -> str:
    """The first :data:`PERSON_NAMED` of ``(file, row)`` as ``FILE row(s) 3, 7; FILE2 row(s) 1``, then ``and N more``."""
    by_file: dict[str, list[str]] = {}
    for file, row in rows[:PERSON_NAMED]:
        by_file.setdefault(file, []).append(str(row))
    named = "; ".join(f"{file} row(s) {', '.join(r)}" for file, r in by_file.items())
    return named + (f" and {len(rows) - PERSON_NAMED:,} more" if len(rows) > PERSON_NAMED else "")


class SourceLines:
    """The source line of a landed record, read at ``off`` for ``bytes`` and accepted when its SHA-256 starts with ``sha``.

    ``source_of(adapter)`` gives the source folders of an adapter name (the header's ``adapter`` before ``/``), ``[]``
    when none is known: a record's ``src`` is looked for in each in order (a source of a further folder is named by
    its absolute path, the same file in every one; docs/storage-root.md, Several source folders), and the first
    file whose line is the one that landed answers. Files are opened once each.
    """

    def __init__(self, source_of: Callable[[str], Sequence[Path]]):
        self._source_of = source_of
        self._roots: dict[str, list[Path]] = {}
        self._files: dict[Path, Optional[BinaryIO]] = {}
        #: why the last :meth:`content` that gave ``(False, None)`` did: ``("absent", folders looked in)``,
        #: ``("changed", "")`` or ``("no_root", "")``
        self.why: tuple[str, str] = ("no_root", "")

    def _open(self, path: Path) -> Optional[BinaryIO]:
        if path not in self._files:
            try:
                self._files[path] = open(path, "rb")
            except OSError:
                self._files[path] = None
        return self._files[path]

    def _candidates(self, header: Header) -> list[Path]:
        """The files ``header.src`` may be, one per source folder of its adapter (one when ``src`` is absolute)."""
        name = header.adapter.split("/", 1)[0]
        if name not in self._roots:
            self._roots[name] = [Path(p) for p in self._source_of(name)]
        out: list[Path] = []
        for base in self._roots[name]:
            p = base / header.src
            if p not in out:
                out.append(p)
        return out

    def content(self, header: Header, rec: dict) -> tuple[bool, Any]:
        """``(True, message.content)`` of the record's source line, or ``(False, None)`` when it cannot be read or does not match."""
        paths = self._candidates(header) if header.src else []
        if not paths:
            self.why = ("no_root", "")
            return False, None
        sha, off, size = rec.get("sha"), rec.get("off"), rec.get("bytes")
        self.why = ("absent", " or ".join(str(b) for b in self._roots[header.adapter.split("/", 1)[0]]))
        if not isinstance(sha, str) or not sha or not isinstance(off, int) or not isinstance(size, int):
            return False, None
        for path in paths:
            f = self._open(path)
            if f is None:
                continue
            self.why = ("changed", "")  # a file is there: none matching means its line is not what landed
            try:
                f.seek(off)
                line = f.read(size)
            except OSError:
                continue
            if len(line) != size or not hashlib.sha256(line).hexdigest().startswith(sha):
                continue
            try:
                v = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            msg = v.get("message") if isinstance(v, dict) else None
            return True, (msg.get("content") if isinstance(msg, dict) else None)
        return False, None

    def close(self) -> None:
        """Close every file opened."""
        for f in self._files.values():
            if f is not None:
                f.close()
        self._files.clear()


def _is_claude(header: Header) -> bool:
    return header.dialect.split("/", 1)[0] == "claude-code"


def _content_parts(parts: Sequence[dict]) -> Sequence[dict]:
    """A record's parts less the unknown parts of source members its dialect does not describe (:func:`is_member_part`):
    they sit beside its content, so a prompt line with a member a newer runtime added is still a prompt."""
    if len(parts) < 2:
        return parts
    return [p for p in parts if not is_member_part(p)]


def _one_text(parts: Sequence[dict]) -> bool:
    content = _content_parts(parts)
    return len(content) == 1 and content[0].get("k") == "text"


def landed_shape(header: Header, rec: dict) -> str | None:
    """``"string"`` or ``"list"`` as the record's own landed form states its content's shape, by the rule of the adapter
    that speaks its dialect (:meth:`~asz_core.plugins.adapter.Adapter.content_shape`, given the header's ``adapter``);
    None when no adapter answers so (a file landed before the adapter stated it)."""
    from ..view.titles import ask_adapter  # loads the plugins once, on the first one-text-part record

    got = ask_adapter(header.dialect, "content_shape", header.adapter, rec)  # an adapter's bug: "cannot tell", as for
    # an older file (the source line decides)
    return got if got in ("string", "list") else None


def _shape_keeps(rec: dict, header: Header, who: str, lines: Optional[SourceLines], stats: ProseStats) -> bool:
    """Seed 003's shape test for a Claude Code record: a ``user`` line's content must be a string, an ``assistant`` line's a list."""
    parts = rec.get("parts", ())
    if not _one_text(parts):  # a string lands as exactly one text part: anything else was a list
        return who == "agent"
    shape = landed_shape(header, rec)
    if shape is not None:
        stats.from_record += 1
        return shape == ("string" if who == "external" else "list")
    ok, content = lines.content(header, rec) if lines is not None else (False, None)
    if not ok:
        stats.undecided += 1
        why, where = lines.why if lines is not None else ("no_root", "")
        if why == "absent":
            stats.absent[where] = stats.absent.get(where, 0) + 1
        elif why == "changed":
            stats.changed += 1
        else:
            stats.no_root += 1
        return True
    stats.from_source += 1
    return isinstance(content, str) if who == "external" else isinstance(content, list)


def _turn(rec: dict, header: Header, thinking: bool, lines: Optional[SourceLines], stats: ProseStats,
          where: tuple[str, int] = ("", 0)) -> tuple[str, str] | None:
    """``(role, text)`` of one record's prose turn, or None. A record flagged ``external_input`` the shape rule leaves
    out is named (``where``, its ``(file, row)``) in ``stats.person_left_out``."""
    parts = _content_parts(rec.get("parts", ()))
    who = rec.get("from", "")
    if who == "external":
        if not parts:
            return None
        if any(p.get("k") not in _PROSE_USER_PARTS for p in parts):
            if not person_typed(rec):
                return None
            parts = [p for p in parts if p.get("k") in _PROSE_USER_PARTS]  # beside it: the run's own data (LangChain)
        role = "user"
    elif who == "agent":
        role = "assistant"
    else:
        return None
    if _is_claude(header) and not _shape_keeps(rec, header, who, lines, stats):
        if who == "external" and "external_input" in (rec.get("flags") or ()):
            stats.person_left_out.append(where)
            stats.times[where] = rec.get("time")
        return None
    keep = ("text", "reasoning") if (thinking and who == "agent") else ("text",)
    # as seed 003 joins a line's blocks, empty ones too; a block whose text is not in the root says so (part_marker)
    text = "\n".join(p.get("text", "") or part_marker(p) or _unread(p, stats) for p in parts if p.get("k") in keep)
    if not text:
        return None
    lost = [p for p in parts if p.get("k") in keep and not p.get("text") and part_marker(p)]
    if lost:
        stats.lost[lost[0]["state"]] = stats.lost.get(lost[0]["state"], 0) + 1
    if role == "user" and _is_claude(header) and "external_input" not in (rec.get("flags") or ()):
        stats.not_person.append(where)
        stats.times[where] = rec.get("time")
    return role, text


def _unread(p: dict, stats: ProseStats) -> str:
    """'' for a part drawn as nothing; for a reasoning part the runtime wrote with no text (state in
    :data:`~asz_core.reading.export_steps.UNREAD_THINKING`), counted in ``stats.thinking_unread``, and the first of a
    conversation (``stats.thinking_unread`` was 0), :data:`UNREAD_MARK`, which :func:`prose_turns` replaces by the
    note saying how many the conversation holds (:func:`~asz_core.reading.export_steps.thinking_note`)."""
    if p.get("k") != "reasoning" or p.get("state") not in UNREAD_THINKING:
        return ""
    stats.thinking_unread += 1
    stats.thinking_redacted += p["state"] == "redacted"
    return UNREAD_MARK if stats.thinking_unread == 1 else ""


def _records(root: Path, session: str, through: int, bad: list[str], conversation: str = "") -> Iterator[tuple[Header, str, int, dict]]:
    """``(header, file, row, record)`` of the session's transcript files through seq ``through``, in seq/row order.

    A file that does not verify (its closing line does not bind its bytes, a line does not read, or, given the
    ``conversation``, it is not the file its round chain consumed: :func:`~asz_core.reading.landed_check.chain_problem`)
    gives no record: ``file: problem`` is added to ``bad`` instead (what it holds is not evidence; asz verify names
    the damage)."""
    for ln, path in landed_files(root / session, skeletons=True) if (root / session).is_dir() else []:
        if ln.seq > through or ln.kind != "transcript":
            continue
        reader = SDReader(path, decode="dict")
        rel = path.relative_to(root).as_posix()
        try:
            got = [(reader.header or Header("transcript", session, "", ""), rel, row, rec) for row, rec in reader]
        except SDError as exc:
            bad.append(f"{rel}: {exc.message} (line {exc.line})")
            continue
        except OSError as exc:
            bad.append(f"{rel}: {exc.strerror or exc}")
            continue
        why = chain_problem(root, conversation, path, reader.digest) if conversation else ""
        if why:
            bad.append(f"{rel}: {why}")
            continue
        yield from got


def prose_turns(root: str | os.PathLike, conversation: str, *, hide: Sequence[str] = (), thinking: bool = False,
                raw: list[int] | None = None, lines: Optional[SourceLines] = None,
                stats: Optional[ProseStats] = None, audit: Any = None, evidence: Optional[dict] = None) -> list[dict]:
    """The prose turns of ``conversation`` (module docstring).

    ``raw``, when given, gets ``[source bytes of every transcript record]``
    added; ``lines`` reads source lines where a landed record leaves the
    content shape open; ``stats`` counts how those were decided. ``audit``
    (an :class:`~asz_core.reading.prose_audit.Audit`) gives the audit form
    instead: each record's lines from ``audit.lines``, the streams arranged by
    ``audit.arrange`` (docs/reading.md, ``--audit``). ``evidence``, when given, gets the conversation's manifest entry
    of the document built here (:func:`~asz_core.reading.export_title.built_evidence`), so its copy's manifest does
    not build it again (session 43); nothing when none is built.
    """
    root = Path(root)
    stats = stats if stats is not None else ProseStats()
    damage: list[str] = []
    head, named = _head(root, conversation, damage)
    session, through = head.session, head.through_seq
    stats.missing.extend(damage + missing_evidence(root, session, through, head.round, named))
    hidden = set(hide)
    stats.thinking_unread = stats.thinking_redacted = 0
    stats.mark = (len(stats.person_left_out), len(stats.not_person))
    seen: set[tuple[str, int]] = set()
    by_stream: dict[str, list[dict]] = {}
    first: dict[str, int] = {}
    arrived: dict[str, bool] = {}  # dialect -> whether it lands in arrival order (doc_order.arrival_ordered)
    ordered = False  # a record of such a dialect is read: the streams take the document's order
    raw_bytes = 0
    replays = Replays(lambda: _built(root, conversation, hide, evidence), early=audit is not None)  # trial 45d F3
    if audit is not None:  # a sub-agent's tool calls the document draws from copies alone (fix50a)
        from .prose_relayed import relayed_tool_ids

        audit.relayed_tools = relayed_tool_ids(replays.doc)
    for header, rel, row, rec in _records(root, session, through, stats.unverified, conversation):
        stream = header.stream or "main"
        ordered = arrival_ordered(header.dialect, arrived) or ordered
        key = (stream, rec.get("ord", 0))
        if key in seen:
            continue
        seen.add(key)
        raw_bytes += rec.get("bytes", 0) or 0
        ns = parse_instant(rec.get("time"))
        if ns is not None and stream not in first:
            first[stream] = ns
        if replays.skip(header.seq, rel, row, stream, rec):
            continue
        if hidden.intersection(rec.get("flags", ())):
            if audit is not None:
                audit.withhold(rec, stream, rel, row)
            continue
        t = _turn(rec, header, thinking, lines, stats, (rel, row))
        got = [] if t is None else [{"conversation": conversation, "stream": stream, "role": t[0],
                                     "ts": rec.get("time", ""), "text": t[1], "file": rel, "row": row}]
        if audit is not None:
            got = audit.lines(header, stream, rel, row, rec, got[0] if got else None)
        if got:
            by_stream.setdefault(stream, []).extend(got)
    if raw is not None:
        raw.append(raw_bytes)
    _note_unread(by_stream, stats.thinking_unread, stats.thinking_redacted)
    # main first, then by first time; at one time (and untimed) in the order each was read (stable: never by name)
    order = sorted(by_stream, key=lambda s: (s != "main", first.get(s, 1 << 62)))
    doc = replays.document(_built(root, conversation, hide, evidence) if ordered and replays.doc is None else None)
    by_stream = replays.drop(by_stream, doc)
    if doc is not None and ordered:  # landed in arrival order: the document's order of the work
        from .prose_audit import record_of

        placed = document_order(doc)
        by_stream = {s: in_document_order(lines, placed, record_of) for s, lines in by_stream.items()}
    if audit is not None:
        audit.files = {ln.seq: path.relative_to(root).as_posix() for ln, path in landed_files(root / session, skeletons=True)} \
            if (root / session).is_dir() else {}
        audit.ask(doc, by_stream)
        return said_untimed(audit.arrange([by_stream[s] for s in order]))
    return said_untimed([turn for s in order for turn in by_stream[s]])


def _built(root: Path, conversation: str, hide: Sequence[str], evidence: Optional[dict]) -> dict:
    """The asz.view document of ``conversation`` (:func:`~asz_core.reading.export.build`), its manifest entry put in
    ``evidence`` under its id when given."""
    if evidence is None:
        from .export import build  # here: a search of a kept index reads no document, nor the export's modules
        return build(root, conversation, hide)
    from .export_title import built_evidence

    doc, evidence[conversation] = built_evidence(root, conversation, hide)
    return doc


def said_untimed(lines: list[dict]) -> list[dict]:
    """``lines`` with ``time_unread`` added to each whose ``ts`` (the record's time as written) does not read as an RFC
    3339 time: the words the other forms draw in a step's time's place (:func:`~asz_core.sessiondata.untimed.untimed_at`,
    ``time does not read ('yesterday', S/…/x.sd line 3)``, its landed file and line; trial 30a F8)."""
    for line in lines:
        if untimed(ts := line.get("ts")) and isinstance(line.get("row"), int):
            line["time_unread"] = untimed_at(ts, f"{line.get('file', '')} line {line['row'] + 1}")
    return lines


def _note_unread(by_stream: dict[str, list[dict]], n: int, redacted: int = 0) -> None:
    """The turn holding :data:`UNREAD_MARK` (the first reasoning part with no text) given the note on the ``n`` such
    parts of the conversation in its place."""
    for turn in (t for turns in by_stream.values() for t in turns) if n else ():
        if UNREAD_MARK in turn.get("text", ""):
            turn["text"] = turn["text"].replace(UNREAD_MARK, thinking_note(n, redacted))
            return
