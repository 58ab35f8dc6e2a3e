"""``asz secrets``: every credential of a known form the search index's texts hold (a scan before a root is shared or
pushed). The forms, and how a value is masked and fingerprinted, are :mod:`asz_core.view.secret_forms`' (the readers'
titles are masked with them too)."""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

from ..view.secret_forms import credentials, shown_title
from .listing import Filters

__all__ = ["scan"]


def scan(root: str | os.PathLike, index: Path, filters: Filters | None = None, unjudged: list[str] | None = None) -> list[dict]:
    """Every credential in the texts the search index ``index`` of ``root`` holds (prompts, replies, thinking, tool
    inputs and results, of every conversation, withheld records included: a credential is there whether or not the
    page shows it), narrowed by ``filters`` (project, model, dialect of the conversation; since/until of the text's
    time). Each: ``{"conversation", "title" (:func:`~asz_core.view.secret_forms.shown_title`: a first prompt may hold one), "kind" (the text's kind), "at" (unix ms, 0 when unknown), "step",
    "file", "row", "secret" (a :data:`~asz_core.view.secret_forms.KINDS` name), "masked", "fingerprint"}``, in the index's order; one per place
    (a text holding one credential twice: once), each credential as the exports mask and count it
    (:func:`~asz_core.view.secret_forms.credentials`: a PEM private key told from another of its type by its lines). ``unjudged``, when given, gets the conversations of the findings that
    ``filters``' project or model kept only because it cannot judge them (a landed file did not verify, so their
    project or models are not known: :func:`~asz_core.reading.search_hits.unjudged_convs`; trial 25b F3). Raises
    sqlite3.Error."""
    from .search_hits import hits_where, unjudged_convs

    where, args = hits_where(filters or Filters())
    sql = ("SELECT hit.conversation, conv.title, hit.kind, hit.at, hit.step, hit.file, hit.row, fts.text FROM hit "
           "JOIN fts ON fts.rowid = hit.rowid JOIN conv ON conv.id = hit.conversation "
           f"WHERE {' AND '.join(where) or '1'} ORDER BY hit.rowid")
    from ..storage.frozen import open_read
    from .search_store import with_folded

    con = with_folded(open_read(index, root, timeout=30))  # --project compares asz_folded (trial 31c F2)
    out: list[dict] = []
    try:
        for cid, title, kind, at, step, file, row, text in con.execute(sql, args):
            seen: set[str] = set()
            for name, shown, mark in credentials(text or ""):
                if mark in seen:
                    continue
                seen.add(mark)
                out.append({"conversation": cid, "title": shown_title(title or ""), "kind": kind, "at": at or 0, "step": step or "",
                            "file": file, "row": row, "secret": name, "masked": shown, "fingerprint": mark})
        if unjudged is not None:
            unjudged.extend(unjudged_convs(con, filters or Filters(), [f["conversation"] for f in out]))
    finally:
        con.close()
    return out
