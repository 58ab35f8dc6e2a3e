"""``GET /api/search?q=…``: the hits ``asz search --json`` prints, for the page (issue 20).

The answer is the list of hits ``asz search --json`` prints (issue 20's
Contract: "answers the same list"). With ``held_back=1`` it is
``{"hits": [hit…], "held_back": {"hits": N, "files": [{"file", "problem",
"hits"}…]}}`` instead (what the page asks): ``held_back`` says what was left
out because the landed file it was indexed from no longer verifies (``asz
search`` says it on stderr): how many hits the whole query matches in such
files (every such file the query matches is found, not only those of the hits
fetched for ``limit``: a stat per landed file the index read, :func:`~asz_core.reading.search_hits.held_in`), and per file its problem and count (``hits`` 0 and
``files`` [] when nothing was left out); ``not_searched`` (:func:`held_back`) lists
``{"conversation", "file", "problem"}`` of what the index could not read at
all (a landed file the session index names that the root lacks, a
conversation with no usable round) of the conversations the filters keep, whatever the
words: its hits cannot be counted, so it is named instead.

With ``conversations=1`` the list is of conversations instead, as ``asz search --conversations --json`` prints
them (:mod:`asz_core.reading.search_convs`: those whose texts hold every word between them, each with its best hits;
``limit`` counts conversations), under ``hits`` with ``held_back=1``. With ``held_back=1`` the answer also has
``across``: when the query found nothing, how many conversations hold every word of it between their texts (0
otherwise, and for a query of one word), so the page can say how to ask for them (trial 21).

Parameters (each at most once): ``q`` (required), ``limit`` (1..500, default
50), ``offset`` (0..:data:`MAX_OFFSET`, default 0: the hits skipped first; the answer says the whole query's count and
its next page, :func:`paged`: headers ``X-Asz-Total`` and ``X-Asz-Next`` on the plain list, keys with
``held_back=1``; trial 36a F3), ``held_back`` (``0`` or ``1``, default 0), ``conversations`` (``0`` or ``1``, default 0), ``kind`` (comma list of :data:`asz_core.reading.search.KINDS`),
``project``, ``since``, ``until`` (the forms ``asz search`` takes), ``model``,
``dialect``, ``instance`` (as ``asz search --instance``: the conversations a sender whose instance id or credential
name holds it sent; with ``conversations=1`` too). The index is brought up to date before a query, at most once
every :data:`FRESH_SECONDS` (``asz server`` also updates it after each pass); while another process updates it (the
server's pass), a query does not wait for it nor update it too: it searches what that update has written so far, each
conversation's rows whole (:mod:`asz_core.reading.search_store`). Such an answer is marked partial
(:func:`indexing`): with ``held_back=1`` ``"partial": true`` and ``"indexing": N``, the conversations whose rows the
index does not hold as they stand yet (``"partial": false``, ``"indexing": 0`` otherwise); the plain list keeps its
shape and says it in the header ``X-Asz-Indexing: N``. A query with no hit whose filters keep no conversation
(a mistyped ``project``), or whose ``-word``s left out every text its other words match (a pasted ``rm -rf …``:
:func:`~asz_core.reading.search_hits.excluded_note`, trial 30a F4), says so as ``asz search`` does
(:func:`none_kept`): ``note`` with ``held_back=1``, else the header ``X-Asz-Note``; a ``dialect`` no installed adapter speaks is refused with 400 (trial 29b F3). Withholding is the server's: ``hide`` is what the request withholds.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path
from typing import Sequence

import sqlite3

from ..view.rows import list_conversations
from .listing import Filters, TimeError
from ..view.match import time_window
from .search import COUNT_LIMIT, QueryError, SearchError, index_path, iter_kinds, other_indexes_note, replaced_note, search, update_index
from .search_hits import excluded_note, sent_by
from .search_convs import across, search_conversations
from .search_gaps import changed, known_prints
from .search_place import index_file
from .search_store import connect, one_writer

__all__ = ["answer", "answer_kept", "held_back", "held_back_answer", "indexing", "none_kept", "paged", "Hits", "PARAMS", "MAX_LIMIT",
           "MAX_OFFSET", "INDEXING_HEADER", "FIRST_PASS_HEADER", "NOTE_HEADER", "TOTAL_HEADER", "NEXT_HEADER"]

#: The header of a plain-list answer given while another update writes the index: how many conversations it lacks.
INDEXING_HEADER = "X-Asz-Indexing"
#: The header of a plain-list answer given during ``asz server``'s first pass, from the index as it stood (:func:`answer_kept`).
FIRST_PASS_HEADER = "X-Asz-First-Pass"

PARAMS = ("q", "limit", "offset", "held_back", "conversations", "kind", "project", "since", "until", "model", "dialect",
          "instance", "hide")
MAX_LIMIT = 500
#: The largest ``offset`` taken: the hits a query is counted up to (:data:`~asz_core.reading.search.COUNT_LIMIT`).
MAX_OFFSET = COUNT_LIMIT
#: The headers of a plain-list answer saying how many hits the whole query matches and where its next page is
#: (trial 36a F3: the answer stopped at 500 and said nothing).
TOTAL_HEADER = "X-Asz-Total"
NEXT_HEADER = "X-Asz-Next"
#: ``/api/search`` looks for new rounds to index at most this often, in seconds.
FRESH_SECONDS = 5.0
_lock = threading.Lock()
_updated: dict[str, float] = {}


class Hits(list):
    """The plain-list answer: the hits, and ``headers`` to send with them (:data:`INDEXING_HEADER` while partial)."""

    headers: dict[str, str] | None = None


def _fresh(root: Path) -> bool:
    """Update the index of ``root`` unless it was updated within :data:`FRESH_SECONDS` (one update at a time); True
    when another update holds the index (asz server's pass, asz search --reindex…): the query then reads what it has
    committed so far."""
    key = str(root)
    with _lock:
        if time.monotonic() - _updated.get(key, -1e9) < FRESH_SECONDS:
            return _busy(root)
        try:
            rep = update_index(root, wait=False)  # another update under way (asz server's pass): search what it wrote
            if rep.busy:
                return True  # not marked fresh: the next request tries again
            if rep.elsewhere:  # once per root while the server runs
                print(f"asz: {root} cannot be written: the search index is kept in {rep.elsewhere} while this server runs "
                      "(removed when it stops; the root is left as it is)", file=sys.stderr, flush=True)
            note = replaced_note("server", rep) or other_indexes_note(root, "server")  # each said once
            if note:
                print(note, file=sys.stderr, flush=True)
        except SearchError:
            if not index_file(root, index_path(root)).is_file():
                raise
        _updated[key] = time.monotonic()
    return False


def _busy(root: Path) -> bool:
    """True when another update (a thread of this process, or another process) holds the index of ``root`` now."""
    with one_writer(index_file(root, index_path(root)), wait=False) as mine:
        return not mine


def indexing(root: Path) -> int:
    """How many conversations of ``root`` the index does not hold as they stand (not indexed yet, or changed since:
    :func:`~asz_core.reading.search_gaps.changed`), read from what it has committed; 0 when there is no index to
    read. A listing and a few stats a conversation, as an update's own look (no landed file is opened when nothing
    changed)."""
    path = index_file(root, index_path(root))
    if not path.is_file():
        return 0
    try:
        con = connect(path, write=False)
        try:
            prints = known_prints(con)
        finally:
            con.close()
    except sqlite3.Error:
        return 0  # the query says what is wrong with the index
    return sum(1 for cid in list_conversations(root) if changed(root, cid, prints, False) is not None)


def answer(root: Path, pairs: Sequence[tuple[str, str]], hide: Sequence[str], error: type, *, update: bool = True) -> list | dict:
    """The answer to one request (the hits, or ``hits`` and ``held_back`` with ``held_back=1``: module docstring);
    ``error(status, message)`` is raised for a refusal (400, or 503 with no index or no storage root). ``update``
    False: the index is searched as it stands, neither brought up to date nor built again when damaged (no index:
    503), and the answer is partial by the conversations it does not hold as they stand (:func:`indexing`): what
    ``asz server`` answers during its first pass (:func:`answer_kept`)."""
    got: dict[str, str] = {}
    for k, v in pairs:
        if k not in PARAMS:
            raise error(400, f"unknown parameter {k!r} (known: {', '.join(p for p in PARAMS if p != 'hide')})", None,
                        "unknown_parameter")
        if k in got:
            raise error(400, f"give {k} at most once", None, "repeated_parameter")
        got[k] = v
    if not got.get("q", "").strip():
        raise error(400, "give the words to search for as q=…")
    from ..view.row_filters import empty_filter

    if empty := empty_filter(got, ("kind", "project", "model", "dialect", "since", "until", "instance")):
        raise error(400, empty, None, "empty_filter")  # asz search --project '' exits 2 (trial 42b F7)
    for flag in ("held_back", "conversations"):
        if got.get(flag, "0") not in ("0", "1"):
            raise error(400, f"{flag} is 0 or 1")
    limit = got.get("limit", "50")
    if not limit.isdigit() or not 1 <= int(limit) <= MAX_LIMIT:
        raise error(400, f"limit is a number from 1 to {MAX_LIMIT}")
    offset = got.get("offset", "0")
    if not offset.isdigit() or len(offset) > 6 or int(offset) > MAX_OFFSET:
        raise error(400, f"offset is a number from 0 to {MAX_OFFSET:,} (the hits a query is counted up to)")
    try:
        kinds = list(iter_kinds(got.get("kind", "")))
        since, until = time_window(got.get("since", ""), got.get("until", ""), flag="")
        f = Filters(project=got.get("project", ""), model=got.get("model", ""), dialect=got.get("dialect", ""),
                    since=since, until=until)
    except (ValueError, TimeError) as exc:
        raise error(400, str(exc)) from None
    from ..view.row_filters import unknown_dialect

    if why := unknown_dialect(f.dialect, root):  # asz search --dialect's usage error (trial 29b F3)
        raise error(400, f"dialect: {why}", None, "unknown_dialect")
    if not Path(root).is_dir():  # not "no search index yet: run asz search --reindex", which cannot work (trial 17, F11)
        raise error(503, f"search is not available: the storage root {root} is gone: nothing to search until it is back")
    try:
        try:
            behind, hits, bad, held, unsearched, many, note, matched = _query(root, got, f, kinds, hide, update)
        except SearchError as exc:
            if not exc.damaged or not update:
                raise
            _rebuilt(root, exc)  # derived data: deleted, built again, said once on stderr (trial 42b F2)
            behind, hits, bad, held, unsearched, many, note, matched = _query(root, got, f, kinds, hide)
    except QueryError as exc:
        raise error(400, str(exc)) from None
    except SearchError as exc:
        raise error(503, f"search is not available: {exc}") from None
    page = paged(pairs, hits, int(offset), int(limit), matched)
    if got.get("held_back", "0") == "0":
        out = Hits(hits)
        heads = {INDEXING_HEADER: str(behind)} if behind else {}
        heads[TOTAL_HEADER] = str(page["total"]) + ("+" if page["total_capped"] else "")
        if page["next"]:
            heads[NEXT_HEADER] = page["next"]
        if note:  # a header value is Latin-1: a root's other characters escaped
            heads[NOTE_HEADER] = note.encode("ascii", "backslashreplace").decode("ascii")
        out.headers = heads or None
        return out
    return {**held_back_answer(hits, bad, held, unsearched, behind, many), **page, **({"note": note} if note else {})}


def answer_kept(root: Path, pairs: Sequence[tuple[str, str]], hide: Sequence[str], error: type) -> list | dict:
    """:func:`answer` from the index as it stands, not updated (``update=False``): ``asz server``'s answer while its
    first pass runs, which updates the index itself at its end (trial 50b F5: a restarted server refused every search
    for its 7.4 s pass, which landed nothing, although its index was whole). Partial, and by how many conversations,
    when the pass has listed or changed some the index does not hold yet; a 503 when there is no index to read. The
    answer says it is given during that pass, when what the pass has landed but not parsed yet may be missing:
    ``"first_pass": true`` with ``held_back=1``, else the header :data:`FIRST_PASS_HEADER`."""
    value = answer(root, pairs, hide, error, update=False)
    if isinstance(value, dict):
        return {**value, "first_pass": True}
    value.headers = {**(value.headers or {}), FIRST_PASS_HEADER: "1"}
    return value


def _query(root: Path, got: dict[str, str], f: Filters, kinds: list[str], hide: Sequence[str], update: bool = True) -> tuple:
    """:func:`answer`'s query of the index (brought up to date first, :func:`_fresh`, when ``update``): ``(behind,
    hits, bad, held, unsearched, many, note, matched)``. Raises QueryError and SearchError."""
    limit, offset = got.get("limit", "50"), got.get("offset", "0")
    behind = indexing(root) if not update or _fresh(root) else 0
    bad: dict[str, str] = {}
    held: dict[str, int] = {}
    unsearched: list[dict] = []
    excluded: dict = {}
    among: list[str] | str = sent_by(Path(root), got["instance"]) if got.get("instance") else ""
    matched: dict[str, int] = {}
    if got.get("conversations", "0") == "1":
        gaps: dict = {}  # what the hit search says beside its hits, the same keys (trial 46d F2)
        hits = search_conversations(root, got["q"], hide=hide, filters=f, kinds=kinds, limit=int(limit), unverified=bad,
                                    among=among, matched=matched, offset=int(offset), gaps=gaps)
        unsearched, excluded = gaps["unsearched"], gaps["excluded"]
    else:
        hits = search(root, got["q"], hide=hide, filters=f, kinds=kinds, limit=int(limit), unverified=bad, held=held,
                      unsearched=unsearched, excluded=excluded, conversation=among, matched=matched,
                      offset=int(offset))
    many = across(root, got["q"], hide=hide, filters=f, kinds=kinds) if not hits and not held else 0
    note = (none_kept(root, got, f) or excluded_note(excluded, COUNT_LIMIT)) if not hits and not held else ""
    if got.get("instance") and not among:
        from ..view.row_filters import matched_none

        note = matched_none(f"instance={got['instance']}", len(list_conversations(root)), root)
    return behind, hits, bad, held, unsearched, many, note, matched


def _rebuilt(root: Path, exc: SearchError) -> None:
    """A damaged index of ``root`` (``exc``) deleted and built again, one line on stderr saying so. Raises SearchError
    (it cannot be deleted or built) and OSError."""
    from .search_place import rebuilt_line, remove_index

    print(rebuilt_line("server", exc), file=sys.stderr, flush=True)
    with _lock, one_writer(index_file(root, index_path(root))):  # not under another update's feet
        remove_index(root)
        _updated.pop(str(root), None)
    update_index(root)


def paged(pairs: Sequence[tuple[str, str]], hits: list, offset: int, limit: int, matched: dict[str, int]) -> dict:
    """``{"total", "total_capped", "offset", "limit", "next"}`` of one ``/api/search`` page (trial 36a F3): ``total``
    how many hits (conversations, with ``conversations=1``) the whole query matches, counted up to
    :data:`~asz_core.reading.search.COUNT_LIMIT` (``total_capped`` true when there are more; hits in landed files
    that no longer verify are counted, as ``asz search`` counts them: ``held_back`` names them), ``offset`` and ``limit``
    as applied, ``next`` the address of the next page (the same query, ``offset`` moved on by ``limit``) while the page
    is full and hits may follow it within the count, else null."""
    from urllib.parse import urlencode

    total = matched.get("hits", matched.get("conversations", offset + len(hits)))
    capped = total > COUNT_LIMIT
    total = min(total, COUNT_LIMIT)
    after = offset + limit
    more = len(hits) == limit and (after < total or capped) and after <= MAX_OFFSET
    nxt = "/api/search?" + urlencode([(k, v) for k, v in pairs if k != "offset"] + [("offset", str(after))]) if more else None
    return {"total": total, "total_capped": capped, "offset": offset, "limit": limit, "next": nxt}


#: The header of a plain-list answer whose filters keep no conversation: the line asz search says (trial 29b F3).
NOTE_HEADER = "X-Asz-Note"
#: The filter parameters a no-match note names, in this order (as /api/conversations' note names them).
_FILTERS = ("project", "model", "dialect", "since", "until")


def none_kept(root: Path, got: dict[str, str], f: Filters) -> str:
    """The note of a query whose filters (``got``: the parameters as given; ``f``: read) keep no conversation of
    ``root``'s index: ``no conversation matched project=nope (of N in ROOT)``, the line ``asz search`` says on stderr
    before it exits 1 and ``/api/conversations`` gives as its ``note`` (:func:`~asz_core.view.row_filters.matched_none`);
    '' when no filter is given or one conversation is kept. Raises SearchError as
    :func:`~asz_core.reading.search.conversations_kept` does."""
    from ..view.row_filters import matched_none
    from .search import conversations_kept

    said = " ".join(f"{k}={got[k]}" for k in _FILTERS if got.get(k))
    if not said or conversations_kept(root, f):
        return ""
    return matched_none(said, len(list_conversations(root)), root)


def held_back_answer(hits: list[dict], bad: dict[str, str], held: dict[str, int], unsearched: list[dict],
                     behind: int = 0, many: int = 0) -> dict:
    """``{"hits", "held_back", "partial", "indexing", "across"}``: what ``/api/search?held_back=1`` and ``asz search
    --json --held-back`` answer (``held_back``: :func:`held_back`; ``behind``: :func:`indexing` while another update
    writes the index, else 0; ``asz search`` waits for such an update, so its answer is whole; ``many``: with no hit,
    how many conversations hold every word between their texts, :func:`~asz_core.reading.search_convs.across`)."""
    return {"hits": hits, "held_back": held_back(bad, held, unsearched), "partial": behind > 0, "indexing": behind,
            "across": many}


def held_back(bad: dict[str, str], held: dict[str, int], unsearched: list[dict]) -> dict:
    """``{"hits", "files", "not_searched"}`` of one query (module docstring), from what :func:`search` put in its
    ``unverified``, ``held`` and ``unsearched``: the answer ``/api/search?held_back=1`` and ``asz search --json
    --held-back`` give."""
    files = [{"file": file, "problem": problem, "hits": held.get(file, 0)} for file, problem in sorted(bad.items())]
    return {"hits": sum(x["hits"] for x in files), "files": files, "not_searched": unsearched}
