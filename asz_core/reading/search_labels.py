"""A record's label in the search index (kind ``label``; trial 32b F4), and which withholdable flags withhold a text
that could come from a withheld record (a title, a label made of a withheld question; seed 004, Withholding)."""

from __future__ import annotations

from pathlib import Path

import orjson

from ..sessiondata.model import WITHHOLDABLE
from ..view.session_records import title_withheld
from ..view.session_records import title_words
from .search_hits import LABEL_PART, given_label, label_index
from .search_meta import Meta

__all__ = ["withheld_by", "document_title", "label_row", "label_flags"]


def withheld_by(flagged: list[Path], title: str) -> list[str]:
    """The withholdable flags (:data:`WITHHOLDABLE` order) of records the title could come from (``title_withheld``
    over the lines of ``flagged``, the landed files that name such a flag at all), each file read once."""
    if not title or not flagged:
        return []
    names = [n for n in WITHHOLDABLE if n]
    needles = (orjson.dumps(title)[1:-1], title.encode("utf-8", "surrogatepass"))
    words = title_words(title)
    found: set[str] = set()
    for path in flagged:
        try:
            data = path.read_bytes()
        except OSError:  # not read: a withheld record may hold the title there, so every name withholds it
            return names
        if not any(n in data for n in needles) and not all(w in data for w in words):
            continue
        lines = data.split(b"\n")
        found.update(n for n in names if n not in found and title_withheld(lines, title, [n]))
    return [n for n in names if n in found]


def document_title(root: Path, conversation: str, session: str, flagged: list[Path]) -> tuple[str, list[str]]:
    """``(title, names)``: the title the document gives ``conversation`` (whose head round names ``session``), the one
    rule ``asz ls``, the page and the exports follow (:meth:`~asz_core.view.summary.DocumentView.title`, read through
    the root's kept summaries, :func:`~asz_core.view.summary_cache.conversation_summary`, so a listed conversation is
    not counted again), and the withholdable names whose withholding changes it (looked at only when ``flagged``, some
    landed file names such a flag). ``("", [])`` when its chain gives no document (``ViewError``) or cannot be read.
    Search's own reading titles a conversation by its runtime's title or a typed prompt; this gives the rest: a resumed
    copy's ``(continues ID) TITLE``, ``(removed by retention)``, a sub-agent's ``(subagent) PROMPT`` (close41: search
    read it as ''), ``(no transcript) …`` and ``(no prompt)`` (docs/reading.md, Titles)."""
    from ..view.chain import ViewError
    from ..view.summary_cache import SummaryStore, conversation_summary

    store = SummaryStore(root)
    try:
        def title_of(hide: list[str]) -> str:
            return conversation_summary(root, conversation, session, hide, store=store).places.get("title") or ""

        title = title_of([])
        return title, [n for n in WITHHOLDABLE if n and flagged and title_of([n]) != title]
    except (ViewError, OSError):
        return "", []
    finally:
        store.close()


def label_row(out: list[tuple], meta: Meta, rec: dict, seen: set, place: tuple, dialect: str = "") -> None:
    """Append the row of ``rec``'s label to ``out`` (:func:`~asz_core.reading.search_hits.label_index`: once per
    conversation, ``seen`` its labels so far; a record with no id and no label gives the title a person gave in it, as
    the adapter of ``dialect`` reads it, :func:`~asz_core.reading.search_hits.given_label`), and its place to ``meta.labels``;
    ``place``: (conversation, step, talk_of, at, landed file, row, flags, repeats)."""
    if (got := label_index(rec, seen, given_label(rec, dialect))) is not None:
        cid, step, talk_of, at, rel, row, flags, repeats = place
        meta.labels.append((len(out), got[1]))
        out.append((got[2], cid, step, talk_of.get(step, ""), got[0], at, rel, row, LABEL_PART, flags, repeats, got[3]))


def label_flags(out: list[tuple], meta: Meta) -> None:
    """Give each label row of ``out`` the withholdable flags of the records its text could come from too
    (:func:`withheld_by`; all of them when a landed file was not read): a label made of a withheld question is
    withheld with it, never matched, counted or snippeted, as the title made of it is (seed 004, Withholding)."""
    for at, label in meta.labels if meta.flagged or meta.not_read else ():
        names = [n for n in WITHHOLDABLE if n] if meta.not_read else withheld_by(meta.flagged, label)
        if names:
            r = out[at]
            out[at] = r[:9] + (" ".join(dict.fromkeys(f for f in (*r[9].split(), *names) if f)),) + r[10:]
