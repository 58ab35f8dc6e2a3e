"""What a search hit serves, shared by the index (:mod:`asz_core.reading.search`) and its queries.

The text the index holds of each part of a record (:func:`part_text`,
:func:`part_index`); the check that a hit row still holds what its cited
record holds, so a row changed in the index itself is never served as the
record's text (:class:`HitCheck`, trial 4 F12); a query's WHERE terms
(:func:`query_where`), one hit's snippet (:func:`snippet_of`) and the hits
of the files that do not verify (:func:`held_in`).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any, Iterable, Sequence

import orjson

from ..sessiondata.spelling import folded
from ..sessiondata.jsonbytes import loads
from ..sessiondata.times import parse_instant
from ..view.rows import read_head
from ..view.secret_forms import masked_found, shown_title
from ..view.match import NO_PROJECT
from .landed_check import problem_of
from .termtext import plain
from .listing import Filters
from .search_text import SNIP_END, SNIP_START, cjk_window, index_form, marked, snippet_spans
from .search_undescribed import line_breaks, line_copy, undescribed_note, undescribed_text

__all__ = ["DATA_STEPS", "INDEX_DIFFERS", "HitCheck", "json_text", "person_typed", "text_kind", "part_text", "masked_index", "given_label", "part_index", "query_where", "hits_where", "conv_where", "UNVERIFIED_CONV", "unjudged_convs", "unjudged_hits", "timeless_left_out", "window_terms", "snippet_of", "stored_text", "held_in", "sent_by", "with_senders", "repeated", "left_out_by", "excluded_note", "hit_dicts", "stoppable", "stopped"]


def json_text(data: Any) -> str:
    """``data`` as the index holds it: JSON, with each ``\\n``, ``\\r``, ``\\t`` and ``\\u001b`` inside a string written
    as the character it stands for, so that the word after a line break is a word of its own (``and\\nlight`` was the
    one word ``and`` then ``nlight``: a search for ``light`` missed it), a snippet shows the break as one, and a
    terminal colour is one :func:`~asz_core.reading.search_text.index_form` takes out."""
    return line_breaks(orjson.dumps(data, default=str).decode("utf-8"))


#: The step kinds whose records' ``data`` parts are indexed, each with the kind the index gives them: what a
#: ``context.injection`` shows (a prompt snapshot, an attachment) is ``context``; a runtime's notice
#: (``control.notice``: Claude Code's ``away_summary`` recap, a hook's progress line) and a compaction boundary
#: (``epoch.boundary``: "Conversation compacted") are ``notice`` (trial 16b, F11: drawn by the page and exports,
#: and were never found).
DATA_STEPS = {"context.injection": "context", "control.notice": "notice", "epoch.boundary": "notice"}


def text_kind(rec: dict) -> str:
    """The kind of a ``text`` part of ``rec``, by what the document draws the record as (its flags, as
    :mod:`asz_core.flow.asm_steps` reads them): ``summary`` for a compaction summary (flag ``reset_summary``,
    an ``epoch.summary``: the runtime wrote it, never a person; trial 16b F6), ``notice`` for a compaction boundary
    (``context_reset``) and a runtime's notice (``notice``: Claude Code's interrupt notice, trial 43c F1), ``prompt`` for what a person typed (flag ``external_input``, a ``message.external``),
    ``reply`` for the agent's text, ``context`` for injected material (``injected``, a ``context.injection``), and
    ``text`` for any other record's: a runtime's line, and a record from ``external`` no flag names (what a
    sub-agent was asked, such as Claude Code's ``Warmup``, which the parent agent wrote; a teammate's message)."""
    flags = rec.get("flags") or ()
    if not isinstance(flags, (list, tuple)):
        flags = ()
    if "reset_summary" in flags:
        return "summary"
    if "context_reset" in flags or ("notice" in flags and "external_input" not in flags):
        return "notice"
    if "external_input" in flags:
        return "prompt"
    if rec.get("from") == "agent":
        return "reply"
    return "context" if "injected" in flags else "text"


def person_typed(rec: dict) -> bool:
    """Whether ``rec`` is a person's turn by the one rule every reader uses (trial 28c F1): from ``external``, flagged
    ``external_input`` (the flag that opens a talk and makes a ``message.external`` step, :mod:`asz_core.flow.asm_steps`)
    and holding a ``text`` part (what :func:`text_kind` calls ``prompt``); its other parts (a LangGraph run's ``data``)
    sit beside the text. Claude Code's prose adds seed 003's shape test on top (:mod:`asz_core.reading.prose`)."""
    flags = rec.get("flags") or ()
    return (rec.get("from") == "external" and isinstance(flags, (list, tuple)) and "external_input" in flags
            and any(isinstance(p, dict) and p.get("k") == "text" for p in rec.get("parts") or ()))


def part_text(rec: dict, p: dict, step_kind: str, dialect: str = "") -> tuple[str, str] | None:
    """``(kind, text)`` to index for one part of ``rec`` (of a file of ``dialect``) which a step of kind ``step_kind``
    cites, or None (media and empty parts, an unknown part taken out, and a data part no step of :data:`DATA_STEPS`
    cites, are not indexed). A text part's kind is :func:`text_kind`'s; an unknown part's bytes are ``undescribed``
    (:func:`undescribed_text`); a notice's data part its words, never its JSON (:func:`~asz_core.reading.search_notice.
    notice_words`: trial 50b F2, ``external`` found notices by ``"userType":"external"``)."""
    k = p.get("k")
    if k == "data" and step_kind in DATA_STEPS and p.get("data") is not None:
        kind = DATA_STEPS[step_kind]
        if kind == "notice":
            from .search_notice import notice_words

            text = notice_words(rec, p, dialect)
        else:
            text = json_text(p["data"])
    elif k == "text":  # a runtime's notice the document draws (an interrupt notice an earlier rule flagged a prompt)
        kind, text = "notice" if step_kind == "control.notice" else text_kind(rec), p.get("text", "")
    elif k == "reasoning":
        kind, text = "thinking", p.get("text", "")
    elif k == "call":
        data = p.get("data")
        body = p.get("text", "") or ("" if data is None else json_text(data))
        kind, text = "tool_input", f"{p.get('name', '')} {body}".strip()
    elif k == "result":
        data = p.get("data")
        kind = "tool_result"
        text = p.get("text", "") or ("" if data is None else json_text(data))
    elif k == "unknown" and not line_copy(rec, p) and (got := undescribed_text(p)) is not None:
        kind, text = "undescribed", got[0]
    else:
        return None
    text = text.replace(SNIP_START, " ").replace(SNIP_END, " ")
    return (kind, text) if text.strip() else None


#: The ``part`` a label's row keeps in ``hit`` (a label is the record's, no part's): below every part's place.
LABEL_PART = -1


def label_index(rec: dict, seen: set | None = None, given: str = "") -> tuple[str, str, str, list] | None:
    """``("label", label, indexed text, credentials)`` (:func:`masked_index`) of a record carrying a ``label`` (seed 001: a name the runtime gave
    something, the only naming evidence in the data: Claude Code's ``ai-title`` and ``summary`` texts, Kiro's session
    title, a child's description), or, for one with none, of ``given``, the title a person gave in it
    (:func:`~asz_core.view.titles.given_title`: Claude Code's ``/rename``); None when it has neither (trial 32b F4: a
    title was found by no search), or when ``seen`` (the labels a conversation's rows already hold, as
    ``("label", label)``, added to here) holds it."""
    label = rec.get("label") or given
    if not isinstance(label, str) or not label.strip():
        return None
    if seen is not None:
        if ("label", label) in seen:
            return None
        seen.add(("label", label))
    text = label.replace(SNIP_START, " ").replace(SNIP_END, " ")
    return ("label", label, *masked_index(text))


def given_label(rec: dict, dialect: str) -> str:
    """The title a person gave in ``rec`` when it has no ``id`` and no ``label`` (:func:`~asz_core.view.titles.given_title`,
    asked of the adapter of ``dialect``: Claude Code's ``/rename``), indexed as its label; '' otherwise."""
    if not dialect or rec.get("id") or rec.get("label"):
        return ""
    from ..view.titles import given_title

    return given_title(rec, dialect)


def masked_index(text: str) -> tuple[str, list[tuple[str, str, str]]]:
    """``(indexed text, credentials)`` of a text: its :func:`~asz_core.reading.search_text.index_form` with each
    credential of a known form masked first as every reader shows it
    (:func:`~asz_core.view.secret_forms.masked_found`: ``AKIA…MPLE``, a password ``***``), and ``(kind, shown,
    fingerprint)`` of each, one per place (what ``asz secrets`` lists: the ``secret`` table). The index never holds
    a credential's value, so no query, count, rank or snippet can answer anything about it beyond its masked form
    (trial 38c F2: prefix queries recovered an AWS key id through ``/api/search``'s hit count)."""
    shown, found = masked_found(plain(text) if "\x1b" in text else text)
    return index_form(shown), found


def part_index(rec: dict, p: dict, step_kind: str, dialect: str = "") -> tuple[str, str, str, list] | None:
    """``(kind, text, indexed text, credentials)`` of one part (:func:`part_text`; the indexed text and credentials
    are :func:`masked_index`'s): what the index holds for it, and what a hit is checked against
    (:meth:`HitCheck.holds`, with the file's ``dialect``, as the index read it)."""
    got = part_text(rec, p, step_kind, dialect)
    if got is None:
        return None
    shown, found = masked_index(got[1])
    if got[0] == "notice" and p.get("k") == "data":  # each credential its record's data holds (search_notice)
        from .search_notice import data_credentials

        found = data_credentials(p["data"])
    return got[0], got[1], shown, found


#: Why a hit whose indexed text is not what its cited record holds is left out (:func:`search`).
INDEX_DIFFERS = "the search index does not hold what the record holds: asz search --reindex rebuilds it"


class HitCheck:
    """Checks hit rows of one query against their cited records (:meth:`holds`), each row once; ``differs`` keeps
    ``file -> rows`` whose indexed text is not the record's."""

    def __init__(self, root: Path, con: sqlite3.Connection):
        self.root, self.con = root, con
        self.lines: dict[str, bytes] = {}  # each file's bytes, read once for the query
        self.checked: dict[int, bool] = {}  # rowid -> holds: a row fetched again (more rows asked for) is checked once
        self.differs: dict[str, list[int]] = {}
        self.sessions: dict[str, str | None] = {}  # conversation -> the session its head round names
        self.dialects: dict[str, str] = {}  # landed file -> its header's dialect (a given title's label: given_label)
        self.notes: dict[int, str] = {}  # rowid -> what an undescribed hit says (undescribed_note)

    def _session(self, conversation: str) -> str | None:
        if conversation not in self.sessions:
            head = read_head(self.root, conversation)
            session = (head.header or {}).get("session") if head is not None else None
            self.sessions[conversation] = session if isinstance(session, str) else None
        return self.sessions[conversation]

    def _dialect(self, file: str) -> str:
        """The dialect of landed ``file``'s header (under the root), read once; '' when it does not read."""
        if file not in self.dialects:
            from ..view.titles import first_dialect

            self.dialects[file] = first_dialect([self.root / file])
        return self.dialects[file]

    def holds(self, r: tuple) -> bool:
        """Whether hit row ``r`` (``r[5]`` its kind, ``r[8]`` its landed file, ``r[9]`` its row, ``r[10]`` its rowid)
        holds what its cited record holds: its kind and indexed text are those of one of the record's parts, as the
        index builds them (:func:`part_index`; a data part is taken as cited by a step of :data:`DATA_STEPS` giving the row's
        kind, the only data indexed), its time
        (``r[6]``, unix ms, 0 for none) is the record's, and the file lies in the session the conversation's head round
        names (``r[0]``: a row moved to another conversation is not served there, trial 5). The file verified just
        before (:func:`~asz_core.reading.landed_check.verified_rows`)."""
        if r[10] not in self.checked:
            self.checked[r[10]] = self._holds(r)
            if not self.checked[r[10]]:
                self.differs.setdefault(r[8], []).append(r[9])
        return self.checked[r[10]]

    def _holds(self, r: tuple) -> bool:
        file, row = r[8], r[9]
        if not isinstance(file, str) or file.split("/", 1)[0] != self._session(r[0]):
            return False
        if file not in self.lines:
            try:
                self.lines[file] = (self.root / file).read_bytes()
            except OSError:
                self.lines[file] = b""
        data, at = self.lines[file], 0
        for _ in range(row if isinstance(row, int) and row > 0 else 0):  # line 0 the header: record row N is line N
            at = data.find(b"\n", at) + 1
            if not at:
                break
        end = data.find(b"\n", at)
        got = self.con.execute("SELECT text FROM fts WHERE rowid = ?", (r[10],)).fetchone()
        try:  # the closing line (the last) is no record: it has no parts
            rec = loads(data[at:end], exact=True) if at and end > at and isinstance(row, int) and row > 0 else None
        except ValueError:
            rec = None
        if got is None or not isinstance(rec, dict):
            return False
        ns = parse_instant(rec.get("time"))
        if r[6] != (0 if ns is None else ns // 1_000_000):
            return False
        if r[5] == "label":  # a record may carry a label and no part (LangSmith's run question)
            return (x := label_index(rec, given=given_label(rec, self._dialect(file)))) is not None and x[2] == got[0]
        if not isinstance(rec.get("parts"), list):
            return False
        from .search_relayed import copied_parts  # a sub-agent's tool call copied into its parent's file (fix50a)

        step, dialect = next((s for s, kind in DATA_STEPS.items() if kind == r[5]), "context.injection"), self._dialect(file)
        for p in [*rec["parts"], *copied_parts(rec, dialect)] if r[5] in ("tool_input", "tool_result") else rec["parts"]:
            x = part_index(rec, p, step, dialect) if isinstance(p, dict) else None
            if x is not None and x[0] == r[5] and x[2] == got[0]:
                if r[5] == "undescribed":
                    self.notes[r[10]] = undescribed_note(p)
                return True
        return False


def query_where(match: str, hide: Sequence[str], f: Filters, kinds: Sequence[str],
                conversation: str | Sequence[str] = "") -> tuple[list[str], list[Any]]:
    """The WHERE terms and their arguments of a query: the match, withholding, kinds and the filters (and the one
    conversation whose texts alone are asked, when given: :mod:`asz_core.reading.search_convs`; or a list of them:
    ``asz search --instance``)."""
    where = ["fts MATCH ?"]
    args: list[Any] = [match]
    if isinstance(conversation, str) and conversation:
        where.append("hit.conversation = ?")
        args.append(conversation)
    elif not isinstance(conversation, str):
        where.append("hit.conversation IN (SELECT value FROM json_each(?))")
        args.append(orjson.dumps(list(conversation)).decode())
    for name in hide:
        where.append("instr(' ' || hit.flags || ' ', ?) = 0")
        args.append(f" {name} ")
    if kinds:
        where.append(f"hit.kind IN ({','.join('?' * len(kinds))})")
        args.extend(kinds)
    terms, more = hits_where(f)
    return where + terms, args + more


def window_terms(f: Filters) -> tuple[list[str], list[str], list[Any], list[Any]]:
    """``(timed, inside, timed args, inside args)``: the terms putting a hit's own time in ``f``'s
    ``since``/``until``, and those putting its conversation's whole recorded range (``from_ms``..``to_ms``) inside
    them; both empty when ``f`` sets no window."""
    timed, inside, targs, iargs = ["hit.at > 0"], [], [], []  # 0: no time of its own (an --until alone kept it)
    for bound, op, end in ((f.since, ">=", "from_ms"), (f.until, "<=", "to_ms")):
        if bound is not None:
            timed.append(f"hit.at {op} ?")
            inside.append(f"conv.{end} {op} ?")
            targs.append(bound)
            iargs.append(bound)
    return (timed, inside, targs, iargs) if inside else ([], [], [], [])


def hits_where(f: Filters) -> tuple[list[str], list[Any]]:
    """The WHERE terms (and their arguments) of ``f`` on a hit: its time in ``since``/``until``, or, for a hit with no
    time of its own (``at`` 0 in the index; Kiro CLI 2.x writes none on its replies and tool calls), its conversation's whole recorded range
    inside them, so the hit happened in the window (trial 19, F25); and its conversation kept by :func:`conv_where`."""
    timed, inside, targs, iargs = window_terms(f)
    where: list[str] = []
    args: list[Any] = []
    if timed:
        where.append(f"(({' AND '.join(timed)}) OR (hit.at = 0 AND conv.from_ms IS NOT NULL AND conv.to_ms IS NOT NULL "
                     f"AND {' AND '.join(inside)}))")
        args.extend(targs + iargs)
    if f.tool:
        where.append(TOOL_TERM)
        name = index_form(f.tool)
        args.extend([name, len(name) + 1, name + " "])
    terms, more = conv_where(f)
    return where + terms, args + more


#: ``--tool NAME``'s term (:func:`hits_where`): a tool input or result whose step's input row (the tool's name, a
#: space, its input: :func:`part_text`) names the tool NAME, whole (three arguments: the name as indexed, its length
#: plus one, the name and a space).
TOOL_TERM = ("hit.kind IN ('tool_input', 'tool_result') AND EXISTS (SELECT 1 FROM hit AS named JOIN fts AS said ON "
             "said.rowid = named.rowid WHERE named.conversation = hit.conversation AND named.step = hit.step AND "
             "named.kind = 'tool_input' AND (said.text = ? OR substr(said.text, 1, ?) = ?))")


def timeless_left_out(con: sqlite3.Connection, match: str, hide: Sequence[str], f: Filters,
                      kinds: Sequence[str]) -> dict[str, int]:
    """``conversation -> hits`` the query (``match``, ``hide``, ``kinds``, ``f``'s other filters) has with no time of
    their own that ``f``'s window leaves out though they may lie in it: their conversation's recorded range meets the
    window (or is not known) but is not inside it, so they cannot be placed in it or out of it. Empty with no window."""
    timed, inside, _, iargs = window_terms(f)
    if not timed:
        return {}
    where, args = query_where(match, hide, Filters(project=f.project, model=f.model, dialect=f.dialect, tool=f.tool), kinds)
    where += ["hit.at = 0", f"NOT (conv.from_ms IS NOT NULL AND conv.to_ms IS NOT NULL AND {' AND '.join(inside)})"]
    args += iargs
    terms, more = conv_where(Filters(since=f.since, until=f.until), gaps=True)  # the range meets the window, or is not known
    sql = (f"SELECT hit.conversation, count(*) FROM fts JOIN hit ON hit.rowid = fts.rowid JOIN conv ON conv.id = hit.conversation "
           f"WHERE {' AND '.join(where + terms)} GROUP BY hit.conversation ORDER BY hit.conversation")
    return dict(con.execute(sql, args + more).fetchall())


#: A ``conv`` row's conversation has a landed file that did not verify when the index read it (the ``landed`` table's
#: ``ok`` 0: damaged, or not the file its round chain consumed): nothing of that file named its project or models.
UNVERIFIED_CONV = "EXISTS (SELECT 1 FROM landed WHERE landed.conversation = conv.id AND NOT landed.ok)"


def unjudged_convs(con: sqlite3.Connection, f: Filters, ids: Sequence[str]) -> list[str]:
    """Those of ``ids`` (conversations of the index) that ``f``'s project or model keeps only because it cannot judge
    them (:data:`UNVERIFIED_CONV` with the field '': :func:`conv_where`'s rule), sorted; [] when ``f`` sets neither."""
    terms = [f"conv.{col} = ''" for col, v in (("project", f.project), ("models", f.model)) if v]
    if not terms or not ids:
        return []
    out: list[str] = []
    ids = sorted(set(ids))
    for at in range(0, len(ids), 500):  # SQLite's limit on a statement's variables
        part = ids[at:at + 500]
        out += [r[0] for r in con.execute(
            f"SELECT id FROM conv WHERE ({' OR '.join(terms)}) AND {UNVERIFIED_CONV} AND id IN ({','.join('?' * len(part))})", part)]
    return out


def unjudged_hits(con: sqlite3.Connection, f: Filters, conversations: Iterable[str], files: Iterable[str]) -> list[str]:
    """:func:`unjudged_convs` of a search's ``conversations`` (those of its hits) and of those whose landed ``files``
    held hits back (they do not verify): what ``asz search`` names as kept though the filter cannot judge it (recheck
    25 N3), sorted."""
    ids, files = set(conversations), sorted(files)
    for at in range(0, len(files) if f.project or f.model else 0, 500):  # SQLite's limit on a statement's variables
        part = files[at:at + 500]
        ids.update(r[0] for r in con.execute(
            f"SELECT DISTINCT conversation FROM hit WHERE file IN ({','.join('?' * len(part))})", part))
    return unjudged_convs(con, f, sorted(ids))


def conv_where(f: Filters, gaps: bool = False) -> tuple[list[str], list[Any]]:
    """The WHERE terms (and their arguments) of ``f``'s project, model and dialect on the ``conv`` table. ``gaps``
    (:func:`~asz_core.reading.search_gaps.gaps`: what could not be read may be what the filter asks for): a
    conversation whose project or models the index does not know ('') passes those, and ``since``/``until`` ask
    that its span (``from_ms``..``to_ms``, an end not known open) meet theirs. Without ``gaps`` one whose project or
    models is '' passes those too when one of its landed files did not verify when indexed (:data:`UNVERIFIED_CONV`:
    the filter cannot judge it; its hits are held back when read, :func:`held_in`)."""
    where: list[str] = []
    args: list[Any] = []
    if gaps and f.since is not None:
        where.append("(conv.to_ms IS NULL OR conv.to_ms >= ?)")
        args.append(f.since)
    if gaps and f.until is not None:
        where.append("(conv.from_ms IS NULL OR conv.from_ms <= ?)")
        args.append(f.until)
    # gaps: what was not read may be anything; else a conversation one of whose files did not verify when indexed
    # gives no project or models from it (docs/view.md), so the filter cannot judge it: kept, its hits held back when
    # read and said (listing.blind_to's rule, trial 25b F3), never left out silently
    blank = "conv.{0} = '' OR " if gaps else f"(conv.{{0}} = '' AND {UNVERIFIED_CONV}) OR "
    if f.project == NO_PROJECT:  # the conversations that name none (match.NO_PROJECT)
        where.append("conv.project = ''")
    elif f.project:
        where.append(f"({blank.format('project')}instr(asz_folded(conv.project), ?) > 0)")  # either Unicode spelling
        args.append(folded(f.project))  # (search_store.connect's function: the lists' rule, trial 31c F2)
    if f.model:
        where.append(f"({blank.format('models')}instr(asz_folded(conv.models), ?) > 0)")
        args.append(folded(f.model))
    if f.dialect:
        where.append("(conv.dialect = ? OR conv.dialect LIKE ? || '/%')")
        args.extend([f.dialect, f.dialect])
    return where, args


def snippet_of(con: sqlite3.Connection, match: str, terms: Sequence[str], rowid: int, cjk: bool) -> tuple[str, list[list[int]]]:
    """``(text, spans)`` of one hit (:func:`~asz_core.reading.search_text.snippet_spans`). A text longer than
    :data:`~asz_core.reading.search_snippet.LONG_TEXT` gets it from a bounded window around its first match
    (:func:`~asz_core.reading.search_snippet.long_snippet`: FTS5's ``snippet()`` takes time growing with the square
    of its matches). FTS5's snippet counts a CJK character as a word and may end inside a CJK match, so for a query
    with CJK text the window is taken here, from the whole text with every match marked
    (:func:`~asz_core.reading.search_text.cjk_window`). ``terms``: the query's
    (:func:`~asz_core.reading.search_text.query_terms`), ``match`` their FTS5 expression."""
    from .search_snippet import LONG_TEXT, long_snippet

    stored = stored_text(con, rowid)
    if len(stored) > LONG_TEXT:
        got = long_snippet(stored, terms)
        if got is not None:
            return got
    if cjk:
        row = con.execute(f"SELECT highlight(fts, 0, '{SNIP_START}', '{SNIP_END}') FROM fts WHERE fts MATCH ? AND rowid = ?",
                          (match, rowid)).fetchone()
        if row is not None:
            return cjk_window(*snippet_spans(row[0]))
    row = con.execute(f"SELECT snippet(fts, 0, '{SNIP_START}', '{SNIP_END}', '…', 24) FROM fts WHERE fts MATCH ? AND rowid = ?",
                      (match, rowid)).fetchone()
    return snippet_spans(row[0] if row is not None else "")


def stored_text(con: sqlite3.Connection, rowid: int) -> str:
    """The text the index holds for the hit ``rowid`` (what :func:`snippet_of` cuts a snippet from; '' for none)."""
    row = con.execute("SELECT text FROM fts WHERE rowid = ?", (rowid,)).fetchone()
    return row[0] if row is not None and isinstance(row[0], str) else ""


def held_in(root: Path, con: sqlite3.Connection, where: list[str], args: list[Any], bad: dict[str, str]) -> dict[str, int]:
    """``file -> hits`` of every landed file that does not verify in which the whole query (``where`` with ``args``)
    matches, its problem put in ``bad``, so the count is the query's, not that of the hits fetched. The files asked are
    those ``bad`` already names and the index's :func:`~asz_core.reading.search_gaps.suspects` (did not verify when
    read, or stat changed since: a stat per file), each checked by :func:`~asz_core.reading.landed_check.problem_of`
    (hashed again only once its stat changed); a file left as the index read it is not opened."""
    from .search_gaps import suspects

    found: dict[str, str] = dict(bad)  # file -> problem, of the files checked: put in bad only when the query matches them
    for file, conversation in suspects(root, con):
        if file not in found:
            problem = problem_of(root, file, {}, conversation)
            if problem:
                found[file] = problem
    out: dict[str, int] = {}
    files = sorted(found)
    for at in range(0, len(files), 500):  # SQLite's limit on a statement's variables
        part = files[at:at + 500]
        for file, n in con.execute(
                f"SELECT hit.file, count(*) FROM fts JOIN hit ON hit.rowid = fts.rowid JOIN conv ON conv.id = hit.conversation "
                f"WHERE {' AND '.join(where)} AND hit.file IN ({','.join('?' * len(part))}) GROUP BY hit.file", [*args, *part]):
            out[file] = n
            bad.setdefault(file, found[file])
    return out


def left_out_by(con: sqlite3.Connection, query: str, where: list[str], args: list[Any], limit: int) -> tuple[int, list[tuple[str, int]]]:
    """``(texts, [(thing as written, texts)…])`` of a query with no hit: how many texts its other words match (with the
    same filters: ``where`` and ``args``, from :func:`query_where`, whose first term is the match), each count up to
    ``limit``, and of those how many each thing it leaves out holds (:func:`~asz_core.reading.search_text.exclusions`),
    those holding none left out of the list; ``(0, [])`` when it leaves nothing out. A pasted command's flags
    (``rm -rf …``, ``psql … -c …``) are things left out, and left out the one text holding the command: said, never
    0 hits silently (trial 30a F4). Raises sqlite3.Error."""
    from .search_text import exclusions, kept_query

    out = exclusions(query)
    if not out:
        return 0, []
    kept = kept_query(query)
    sql = (f"SELECT count(*) FROM (SELECT 1 FROM fts JOIN hit ON hit.rowid = fts.rowid JOIN conv ON conv.id = hit.conversation "
           f"WHERE {' AND '.join(where)} LIMIT ?)")
    texts = con.execute(sql, [kept, *args[1:], limit]).fetchone()[0]
    if not texts:
        return 0, []
    by = [(written, con.execute(sql, [f"({kept}) AND {term}", *args[1:], limit]).fetchone()[0]) for written, term in out]
    return texts, [(w, n) for w, n in by if n]


def excluded_note(excluded: dict[str, Any], limit: int) -> str:
    """The note of a query whose things left out took every text its other words match (:func:`left_out_by`'s answer
    as ``{"texts", "by"}``; counts past ``limit`` said as more than it): ``1 text(s) matched the other words and were
    left out by -rf (1): …``, what ``asz search`` says on stderr and ``/api/search`` gives as ``note``; '' for none."""
    if not excluded.get("texts"):
        return ""

    def n(x: int) -> str:
        return f"more than {limit:,}" if x > limit else f"{x:,}"

    by = ", ".join(f"{w} ({n(k)})" for w, k in excluded["by"])
    return (f"{n(excluded['texts'])} text(s) matched the other words and were left out by {by}: -word and NOT word "
            "leave out the texts holding the word; to find a command line as typed, give it as one \"phrase\" "
            "(docs/reading.md)")


#: SQLite's virtual machine instructions between two calls of :func:`stoppable`'s handler.
TICK = 10_000


def _tick() -> int:
    return 0  # a Ctrl-C arriving while SQLite works raises KeyboardInterrupt here, which aborts the statement


def stoppable(con: sqlite3.Connection) -> sqlite3.Connection:
    """``con`` with a progress handler called every :data:`TICK` instructions, so that Ctrl-C (SIGINT) stops a running
    statement at once (a Python handler runs only between Python instructions): the statement then raises
    ``sqlite3.OperationalError`` (SQLITE_INTERRUPT), which :func:`stopped` turns back into KeyboardInterrupt. A
    statement spending its time in one instruction (FTS5's ``snippet()`` over one long text) is not stopped before it
    ends: :func:`snippet_of` keeps those short."""
    con.set_progress_handler(_tick, TICK)
    return con


def stopped(exc: sqlite3.Error) -> None:
    """Raise KeyboardInterrupt when ``exc`` is a statement :func:`stoppable`'s handler aborted (Ctrl-C)."""
    if getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_INTERRUPT:
        raise KeyboardInterrupt from None


def repeated(links: Any, there: dict[str, str], seq: int, row: int, rec: dict, cites: dict[tuple, str]) -> str:
    """The session whose record row ``row`` of landed file ``seq`` repeats, '' when it is the conversation's own: a
    continuing session's copy of the earlier session's record (:class:`~asz_core.view.links.Links` ``evidence`` that no
    step of this conversation cites: drawn and counted there, as ``asz ls`` says), or, in a receiving root, one the
    twice list says is counted there (``there``: :func:`~asz_core.storage.twice_list.counted_there`, record id ->
    session). A search marks its hits (``repeats``), so one command is not read as run twice (trial 30a F5)."""
    other = links.evidence.get((seq, row), "")
    if other and (seq, row, None) not in cites:
        return other
    rid = rec.get("id")
    return there.get(rid, "") if there and isinstance(rid, str) else ""


def sent_by(root: Path, instance: str) -> list[str]:
    """The conversations of ``root`` whose session's landed files an instance id or token credential name holding
    ``instance`` sent (:func:`~asz_core.storage.senders.sender_matches`, case-insensitive), as ``asz ls --instance``
    keeps them: what ``asz search --instance`` and ``/api/search?instance=`` search (trial 30a F6); [] in a root no
    receiver landed."""
    from ..storage.senders import RECEIVED, sender_matches, settled_senders
    from ..view.rows import list_conversations
    from ..view.rows import head_session

    if not (root / RECEIVED).is_dir():
        return []
    sessions = {cid: head_session(root, cid) for cid in list_conversations(root)}
    got = settled_senders(root, set(sessions.values()))  # after the requests in flight (trial 31a F1)
    return [cid for cid, session in sessions.items() if sender_matches(got[session], instance)]


def with_senders(root: Path, hits: list[dict]) -> list[dict]:
    """``hits`` each with ``sender`` in a root ``asz receive`` landed: the instance id the sender record names for the
    hit's landed file (:func:`~asz_core.storage.senders.file_senders`; None for a file with no line, one sent without
    an instance id, or a line that does not verify), read after the requests in flight (:func:`~asz_core.storage.
    senders.settled_senders`, as ``asz ls`` does); unchanged elsewhere (trial 30a F6: which host ran it)."""
    from ..storage.senders import RECEIVED, file_senders, settled_senders

    if not hits or not (root / RECEIVED).is_dir():
        return hits
    dirs = [h["file"].split("/", 1)[0] if isinstance(h.get("file"), str) else "" for h in hits]
    by = settled_senders(root, set(dirs) - {""}, file_senders)
    for h, session in zip(hits, dirs):
        h["sender"] = by[session].get(h["file"]) if session else None
    return hits


def hit_dicts(rows: Sequence[tuple], snippets: Sequence[tuple[str, list]], hide: Sequence[str],
              notes: dict[int, str] | None = None) -> list[dict]:
    """The hits :func:`asz_core.reading.search.search` returns, one dict a row: ``rows`` as its query selects them
    (conversation, title, title_from, talk, step, kind, at, repeats, file, row, rowid), ``snippets`` their ``(snippet_text,
    snippet_marks)``; a title taken from a flag in ``hide`` is left empty, and every title masked again as read (a
    credential form added since the index was written, url-password, trial 24b F6). ``repeats``: the earlier session
    whose record this repeats (drawn and counted there: :func:`repeated`), '' for the conversation's own.
    ``undescribed``: for a hit of kind ``undescribed``, what ``notes`` (rowid -> :func:`undescribed_note`) say of
    it, why its bytes were not described and whether they were read with U+FFFD; '' for every other hit."""
    hidden, notes = set(hide), notes or {}
    out = []
    for (cid, title, title_from, talk, step, kind, at, repeats, file, row, rowid), (text, spans) in zip(rows, snippets):
        if hidden.intersection((title_from or "").split()):
            title = ""
        out.append({"conversation": cid, "title": shown_title(title) if title else "", "talk": talk, "step": step, "kind": kind, "at": at,
                    "snippet": marked(text, spans), "file": file, "row": row, "snippet_text": text, "snippet_marks": spans,
                    "repeats": repeats or "", "undescribed": notes.get(rowid, "") if kind == "undescribed" else ""})
    return out
