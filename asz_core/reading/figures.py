"""``asz verify --figures``: the figures the reading commands print from their cache, counted again from the evidence.

``asz ls``, ``asz usage`` and the page read each conversation's row and summary (tokens, cost, state, title) from
``<root>/_index/summaries.sqlite`` (:mod:`asz_core.view.summary_cache`, :mod:`asz_core.reading.row_cache`) while
its fingerprint, the stat of the conversation's rounds and landed files, is the one the entry was made with. The
fingerprint tells a changed file; it cannot tell an entry whose figures were changed in the database itself, since
no file it names moved (trial 4, F12). This check counts every entry in use again from the round chain and the
landed files, as a cold cache would (:func:`asz_core.reading.listing.counted_row`), and compares:

- an entry whose figures differ is a problem (``figures differ``, naming the table, the conversation and the
  first keys that differ), and is removed, so the next list counts the conversation from its files;
- an entry of a fingerprint that is no longer the files' is never read: left as it is;
- a row made with a price table other than the one ``--config`` gives cannot be counted again here: removed
  (derived data; the next list with that table counts it again) and said in a note.

It reads what ``asz ls`` reads cold: about a cold ``asz usage`` more than ``asz verify`` alone (docs/verify.md).
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path
from typing import Any, Callable

import orjson

from ..verify.report import Problem, Section

__all__ = ["FIGURES_DIFFER", "check_figures"]

#: The problem name of a cached entry whose figures are not the ones its files give.
FIGURES_DIFFER = "figures differ"


def _differing(stored: Any, fresh: Any, at: str = "") -> list[str]:
    """The keys (dotted paths) where ``stored`` and ``fresh`` differ, in order."""
    if isinstance(stored, dict) and isinstance(fresh, dict):
        out: list[str] = []
        for k in sorted(set(stored) | set(fresh), key=str):
            out += _differing(stored.get(k), fresh.get(k), f"{at}.{k}" if at else str(k))
        return out
    return [] if stored == fresh else [at or "(the whole entry)"]


def check_figures(root: str | os.PathLike, prices: Any = None, step: Callable[[str], None] | None = None,
                  only: str | None = None, stage: Callable[[str, int], None] | None = None) -> Section:
    """Count every cached entry in use again (module docstring); returns the ``figures`` section: its summary line
    ``checked N cached figure entr(ies) of N conversation(s) against the evidence``, counts ``figures`` and
    ``figures_removed``, a problem per entry that differs. ``prices``: the price table of the configuration (None: the
    shipped one). ``step(conversation)`` after each; ``stage``: :func:`_check_tools`' (trial 49d F4); ``only``: that conversation's entries alone. Never raises for a
    store that cannot be read (then every conversation is counted in memory: :func:`_in_memory`)."""
    from .listing import counted_row, row_cache_key
    from ..view.rows import read_head
    from ..view.summary_cache import MARK_TAG, ConversationSummary, SummaryStore, fingerprint, store_mark
    root = Path(root)
    sec = Section("figures", "")
    store = SummaryStore(root)
    mark = MARK_TAG + store_mark()  # the end of this asz's entries' keys: another asz's entries are its to check
    checked = removed = other_prices = 0
    convs: dict[str, Any] = {}  # conversation -> the one its row says it continues (None: none)
    if store.con is None:  # no cache to read (none here, or it does not open): what the readers print is counted
        return _in_memory(root, prices, step, only)
    try:
        try:
            entries = store.con.execute("SELECT 'summaries', id, hide, fp, entry FROM summaries "
                                        "UNION ALL SELECT 'rows', id, hide, fp, row FROM rows ORDER BY 2, 1, 3").fetchall()
        except sqlite3.Error:  # a store that opened but does not read (an older one, damaged): counted in memory
            return _in_memory(root, prices, step, only)
        by_conv: dict[str, list] = {}
        for e in entries:
            by_conv.setdefault(e[1], []).append(e)
        ours = ",".join(row_cache_key([], prices))
        for cid, its in by_conv.items():
            if only is not None and cid != only:
                continue
            head = read_head(root, cid)
            session = ((head.header if head else None) or {}).get("session") or cid
            fp = fingerprint(root, cid, session if isinstance(session, str) else "")
            counted: dict[str, tuple] = {}
            for table, _, hide_key, efp, value in its:
                if efp != fp or not hide_key.endswith(mark):
                    continue  # not the files' now, or another asz's: never read
                names = [n for n in hide_key[:-len(mark)].split(",") if n]
                tagged = [n for n in names if n.startswith("prices=")]
                hide = [n for n in names if not n.startswith("prices=")]
                if tagged and (not ours or tagged != [ours]):  # a row priced with a table not at hand
                    _remove(store, table, cid, hide_key)
                    other_prices += 1
                    continue
                key = ",".join(hide)
                if (key, bool(tagged)) not in counted:
                    counted[key, bool(tagged)] = counted_row(root, cid, hide, prices if tagged else None, head)
                row, summary = counted[key, bool(tagged)]
                checked += 1
                convs[cid] = row.get("continues")
                if table == "rows":
                    fresh = row
                elif summary is None:
                    fresh = None
                else:
                    fresh = orjson.loads(ConversationSummary(summary[0], tuple(summary[1]), summary[2], tuple(summary[3])).to_json())
                stored = orjson.loads(value)
                if table == "rows":
                    stored.setdefault("removed_files", row.get("removed_files"))  # rows kept before the key existed
                keys = _differing(stored, fresh)
                if keys:
                    _remove(store, table, cid, hide_key)
                    removed += 1
                    shown = ", ".join(keys[:4]) + (f" and {len(keys) - 4} more" if len(keys) > 4 else "")
                    withheld = f" withholding {key}" if key else ""
                    sec.problems.append(Problem(str(Path("_index") / "summaries.sqlite"), 0, f"{table} {cid}", FIGURES_DIFFER,
                                                f"the cached {'row' if table == 'rows' else 'summary'} of conversation {cid}{withheld} "
                                                f"is not what its files give ({shown}); removed: the next list counts it from its files"))
            if step is not None:
                step(cid)
        tools = _check_tools(root, store, mark, sec, only, step, stage)
    finally:
        store.close()
    _close(root, sec, store.read_only, convs, (checked, removed, other_prices), prices, step, only, tools)
    _check_search(root, sec, only)
    if other_prices:
        sec.notes.append(f"{other_prices} cached row(s) made with another price table than this configuration's removed "
                         "(derived data: a list with that table counts them again)")
    return sec


def _close(root: Path, sec: Section, read_only: bool, convs: dict[str, Any], counts: tuple[int, int, int], prices: Any,
           step: Callable[[str], None] | None, only: str | None, tools: tuple[int, int] = (0, 0)) -> None:
    """The ``figures`` section's line and counts once the cached entries were checked (``counts``: checked, removed,
    made with another price table; ``tools``: the ``tools`` entries checked and removed, said apart, since they are no
    list figures: :func:`_check_tools`), each conversation with no entry in use counted from the evidence in memory
    (trial 29a F3), and, in a read-only root (``read_only``: trial 29a F7), a note that nothing was removed; then
    :func:`check_pairs` over ``convs`` (each conversation checked -> the one it continues), those counted here added."""
    checked, removed, other_prices = counts
    if tools[0]:  # asz usage tools' entries (trial 40a F5), in the total plain verify says (trial 49d F4)
        sec.summary = (f"checked {checked + tools[0]} cached figure entries of {len(convs)} conversation(s) against the "
                       f"evidence ({checked} list row(s) and usage summaries, and the cached tool calls of {tools[0]} "
                       f"conversation(s) (asz usage tools))")
    else:
        sec.summary = f"checked {checked} cached figure entr{'y' if checked == 1 else 'ies'} of {len(convs)} conversation(s) against the evidence"
    from ..view.rows import list_conversations

    rest = [c for c in list_conversations(root) if c not in convs and (only is None or c == only)]
    in_memory = _count(root, rest, prices, step, sec, convs)  # trial 29a F3: what the readers count, no entry being in use
    if rest:
        sec.summary += (f"; {in_memory} conversation(s) with no cached entry in use (none made, or made for files "
                        "whose stat is not theirs now: a copy, a restore) counted from the evidence in memory, as "
                        "the readers count them")
    sec.counts = {"figures": checked + tools[0], "figures_removed": 0 if read_only else removed + other_prices + tools[1],
                  "figures_in_memory": in_memory}
    removed += tools[1]
    if read_only and (removed or other_prices):
        sec.notes.append(f"{removed + other_prices} entr(ies) named above or made with another price table not removed: "
                         f"{root} is read-only (its mount, or no write bit on its folders: trial 29a F7), so its cache "
                         "is read, never written; a reader of it counts an entry whose seal does not match again")
    check_pairs(root, convs, sec, prices)


def _count(root: Path, cids: list[str], prices: Any, step: Callable[[str], None] | None, sec: Section,
           continues: dict[str, Any] | None = None) -> int:
    """Count each of ``cids`` from the evidence (:func:`~asz_core.reading.listing.counted_row`, as a reader with no
    cache entry in use does); how many counted. One that cannot be counted is a problem of ``sec``. ``continues``,
    when given, gets each counted conversation's ``continues`` (:func:`check_pairs`), None for one that cannot be
    counted (so :func:`check_pairs` does not count it again)."""
    counted = 0
    for cid in cids:
        if continues is not None:
            continues[cid] = None
        try:
            row = _row_of(root, cid, prices)
            if continues is not None:
                continues[cid] = row.get("continues")
            counted += 1
        except Exception as exc:  # noqa: BLE001 - a conversation that cannot be counted is said, never skipped
            sec.problems.append(Problem(cid, 0, "figures", FIGURES_DIFFER, f"its figures cannot be counted from the "
                                                                          f"evidence: {exc}"))
        if step is not None:
            step(cid)
    return counted


def _row_of(root: Path, cid: str, prices: Any) -> dict:
    """Conversation ``cid``'s list row counted from the evidence (:func:`~asz_core.reading.listing.counted_row`, as a
    reader with no cache entry in use counts it)."""
    from ..view.rows import read_head
    from .listing import counted_row

    return counted_row(root, cid, [], prices, read_head(root, cid))[0]


def check_pairs(root: Path, continues: dict[str, Any], sec: Section, prices: Any = None) -> None:
    """A problem of ``sec`` for each two conversations each saying it continues the other (``continues``: conversation ->
    the one its row names, as the readers count them; a conversation named there and not counted yet is counted now):
    the records they share would be counted in neither (trial 45d F1: a chain not drawn again when its pair turned
    over). ``asz parse`` of each draws them again (docs/session-flow.md, Links across sessions)."""
    for a in sorted(continues):
        b = continues[a]
        if not isinstance(b, str) or not b:
            continue
        if b not in continues:
            try:
                continues[b] = _row_of(root, b, prices).get("continues")
            except Exception:  # noqa: BLE001 - a conversation that cannot be counted is said by _count
                continues[b] = None
        if continues.get(b) == a and a < b:  # the pair said once
            sec.problems.append(Problem(a, 0, "continues", FIGURES_DIFFER,
                                        f"conversation {a} continues {b} and {b} continues {a}: the records they share, "
                                        f"their calls and tokens, are counted in neither; asz parse {a[:8]}, then asz parse "
                                        f"{b[:8]}, draws them again"))


def _in_memory(root: Path, prices: Any, step: Callable[[str], None] | None, only: str | None) -> Section:
    """``asz verify --figures`` where no figure cache can be read (none was made, or it does not open; trial 29a F3:
    on read-only media it said "checked 0" and checked nothing): every conversation counted from the evidence in
    memory, as each reader then counts it (nothing cached is printed); a conversation that cannot be counted is a
    problem. Counts ``figures`` 0, ``figures_in_memory`` N."""
    from ..storage.frozen import frozen
    from ..view.rows import list_conversations

    sec = Section("figures", "")
    continues: dict[str, Any] = {}
    counted = _count(root, [c for c in list_conversations(root) if only is None or c == only], prices, step, sec, continues)
    check_pairs(root, continues, sec, prices)
    why = "a read-only root" if frozen(root) else "none was made, or it does not open"
    sec.summary = (f"no figure cache to check ({why}): counted the figures of {counted} conversation(s) from the "
                   "evidence in memory, as every reader here counts them (nothing cached is printed)")
    sec.counts = {"figures": 0, "figures_removed": 0, "figures_in_memory": counted}
    _check_search(root, sec, only)
    return sec


def _check_search(root: Path, sec: Section, only: str | None) -> None:
    """Hold each ``conv`` row of the search index (the title and project a hit is served with) at its conversation's
    head round to what an update would write now (:func:`asz_core.reading.search.conv_values`); a row that differs
    is a problem and goes with its hits, so the next search indexes the conversation again. Adds to ``sec``'s summary
    and its counts ``search_rows`` and ``search_rows_removed``; nothing when there is no index (a row of an older
    head is indexed again by the next search before it is read). A damaged index (``PRAGMA quick_check`` not ok, or
    any sqlite3 error reading it) is a note, never a problem: derived data (issue 20), built again by the next search."""
    import sqlite3

    from ..view.rows import newest_round
    from .search import CONV_KEYS, conv_values, forget_conversation, INDEX_PATH, index_path

    path = index_path(root)
    if not path.is_file():
        return
    from ..storage.frozen import frozen, read_only_db

    checked = removed = 0
    still = frozen(root)  # read-only (trial 29a F7): rows that differ are named, never removed
    try:
        con = read_only_db(path, timeout=30) if still else sqlite3.connect(path, timeout=30)
    except (sqlite3.Error, OSError):
        return
    try:
        said = con.execute("PRAGMA quick_check(1)").fetchone()  # 0.09 s of CPU for a 77.6 MB index (trial 42b F2)
        if said is None or said[0] != "ok":
            sec.notes.append(f"the search index {path} is damaged (PRAGMA quick_check: {said and said[0]}): derived data, "
                             "not checked; the next asz search deletes it and builds it again")
            return
        for cid, head, *stored in con.execute(f"SELECT id, head, {', '.join(CONV_KEYS)} FROM conv ORDER BY id").fetchall():
            newest = newest_round(root, cid) if only is None or cid == only else None
            if newest is None or newest[1] != head:
                continue
            fresh = conv_values(root, cid)
            checked += 1
            keys = [k for k, a, b in zip(CONV_KEYS, stored, fresh or (None,) * len(CONV_KEYS)) if a != b]
            if not keys:
                continue
            if not still:
                forget_conversation(con, cid)
                con.commit()
                removed += 1
            sec.problems.append(Problem(INDEX_PATH.as_posix(), 0, f"conv {cid}", FIGURES_DIFFER,
                                        f"the search index's row of conversation {cid} is not what its files give "
                                        f"({', '.join(keys)}); " + ("not removed: the root is read-only, a search here builds "
                                                                             "its index outside it" if still else
                                                                             "removed with its hits: the next search indexes it again")))
    except sqlite3.Error as exc:
        sec.notes.append(f"the search index {path} could not be checked: {exc}")
    finally:
        con.close()
    sec.summary += f", and {checked} conversation row(s) of the search index"
    sec.counts.update(search_rows=checked, search_rows_removed=removed)


def _check_tools(root: Path, store, mark: str, sec: Section, only: str | None, step: Callable[[str], None] | None = None,
                 stage: Callable[[str, int], None] | None = None) -> tuple[int, int]:
    """Read every ``tools`` entry of this asz in use (:mod:`asz_core.reading.tool_cache`: its fingerprint the files'
    now) again from the evidence; one that differs is a problem in ``sec`` and removed. ``stage(label, n)`` before the
    ``n`` entries are read again (each then a ``step``), and ``stage(*what it gave)`` after: the progress goes on
    through them (trial 49d F4: 36 s with no line). Returns ``(checked, removed)``."""
    from ..view.chain import ViewError
    from ..view.document import conversation_tool_calls
    from .tool_cache import entry_bytes, tool_fingerprint

    try:
        where, args = (" WHERE id=?", (only,)) if only is not None else ("", ())
        entries = store.con.execute(f"SELECT id, hide, fp, entry FROM tools{where} ORDER BY 1, 2", args).fetchall()
    except sqlite3.Error:  # a store an asz before the tools table made, read only: nothing kept to check
        return 0, 0
    checked = removed = 0
    # another asz's, or not the files' now: never read
    entries = [e for e in entries if e[1].endswith(mark) and e[2] == tool_fingerprint(root, e[0])]
    back = stage("tool calls", len(entries)) if stage is not None else None  # then back to the figures' count
    for cid, hide_key, efp, value in entries:
        if step is not None:
            step(cid)
        hide = [n for n in hide_key[:-len(mark)].split(",") if n]
        try:
            fresh = orjson.loads(entry_bytes(*conversation_tool_calls(root, cid, hide)) or b"null")
        except ViewError:
            fresh = None
        checked += 1
        keys = _differing(orjson.loads(value), fresh)
        if keys:
            _remove(store, "tools", cid, hide_key)
            removed += 1
            sec.problems.append(Problem(str(Path("_index") / "summaries.sqlite"), 0, f"tools {cid}", FIGURES_DIFFER,
                                        f"the cached tool calls of conversation {cid} are not what its files give "
                                        f"({', '.join(keys[:4])}); removed: the next asz usage tools reads it from its files"))
    if back is not None:
        stage(*back)
    return checked, removed


def _remove(store, table: str, conversation: str, hide_key: str) -> None:
    import sqlite3

    try:
        store.con.execute(f"DELETE FROM {table} WHERE id=? AND hide=?", (conversation, hide_key))
        store.con.commit()
    except sqlite3.Error:
        pass


def cache_unchecked(root: str | os.PathLike, only: str | None = None) -> Section | None:
    """What plain ``asz verify`` says of the figure cache it does not count again: a section whose line says how many
    entries of ``_index/summaries.sqlite`` (of conversation ``only``, when given) were not recounted and names
    ``asz verify --figures``, with counts ``figures_not_recounted`` and ``figures_unsealed`` (entries whose seal,
    :func:`asz_core.view.summary_cache.seal`, does not match: edited outside asz; the readers count them again).
    Reads the store read-only, its seals alone (a hash of each entry: no round or landed file is read). Only this
    asz's entries (keys ending in its :func:`~asz_core.view.summary_cache.store_mark`) are counted, as ``--figures``
    checks only those; the entries kept for other asz builds (up to ``MARKS_KEPT`` of them; this one never reads them)
    are said apart, count ``figures_other_builds`` (fix49h: a copied root said 1,651 entries where 825 were this asz's).
    None when there is no store (nothing is read from one either)."""
    import sqlite3

    from ..view.summary_cache import MARK_TAG, store_mark
    from ..view.summary_seal import DB_NAME, seal

    path = Path(root) / "_index" / DB_NAME
    if not path.is_file():
        return None
    mark = MARK_TAG + store_mark()
    total = unsealed = other = 0
    try:
        from ..storage.frozen import open_read

        con = open_read(path, root)
        try:
            where, args = (" WHERE id=?", (only,)) if only is not None else ("", ())  # of conversation only, when given
            for table, column in (("summaries", "entry"), ("rows", "row"), ("tools", "entry")):
                try:
                    got = con.execute(f"SELECT id, hide, fp, {column}, seal FROM {table}{where}", args).fetchall()
                except sqlite3.OperationalError:
                    if table == "tools":  # a store an asz before the tools table made
                        continue
                    raise
                for cid, hide, fp, value, sealed in got:
                    if not str(hide).endswith(mark):  # another asz build's, never read by this one
                        other += 1
                        continue
                    total += 1
                    unsealed += sealed != seal(table, cid, hide, fp, value)
        finally:
            con.close()
    except sqlite3.Error as exc:  # an older store (no seal column) or a damaged one: the readers rebuild it
        from ..storage.frozen import frozen

        rebuild = ("a read-only root: asz ls and asz usage count every conversation from its files here, writing no "
                   "cache" if frozen(root) else "asz ls and asz usage rebuild it (derived data)")
        sec = Section("cache", f"the figure cache {path} was not read ({exc}): {rebuild}; asz verify --figures counts "
                               "the figures again from the evidence")
        sec.counts = {"figures_not_recounted": 0, "figures_unsealed": 0, "figures_other_builds": 0}
        return sec
    # one short line on every clean run (trial 17, F3: it was a 300-character paragraph); docs/verify.md says the rest
    line = (f"{total} cached figure entr{'y' if total == 1 else 'ies'} (_index/{DB_NAME}) not counted again: "
            "asz verify --figures does")
    if unsealed:
        line += f"; {unsealed} do not match their seal (edited outside asz): the readers count those again"
    if other:
        line += f"; {other} more kept for other asz builds, never read by this one"
    sec = Section("cache", line)
    sec.counts = {"figures_not_recounted": total, "figures_unsealed": unsealed, "figures_other_builds": other}
    return sec
