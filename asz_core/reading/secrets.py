"""``asz secrets``: every credential of a known form the search index's texts hold (a scan before a root is shared or
pushed). The forms, and how a value is masked and fingerprinted, are :mod:`asz_core.view.secret_forms`' (the readers'
titles are masked with them too)."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable
from pathlib import Path

from ..view.secret_forms import credentials, shown_title
from .listing import Filters

__all__ = ["scan", "scan_places", "keyed_findings", "PLACE_FIELDS"]


def scan(root: str | os.PathLike, index: Path, filters: Filters | None = None, unjudged: list[str] | None = None) -> list[dict]:
    """Every credential in the texts the search index ``index`` of ``root`` holds (found as each text was indexed,
    before it was masked there: the ``secret`` table, :func:`~asz_core.reading.search_hits.masked_index`; prompts, replies, thinking, tool
    inputs and results, of every conversation, withheld records included: a credential is there whether or not the
    page shows it), narrowed by ``filters`` (project, model, dialect of the conversation; since/until of the text's
    time). Each: ``{"conversation", "title" (:func:`~asz_core.view.secret_forms.shown_title`: a first prompt may hold one), "kind" (the text's kind), "at" (unix ms, 0 when unknown), "step",
    "file", "row", "secret" (a :data:`~asz_core.view.secret_forms.KINDS` name), "masked", "fingerprint"}``, in the index's order; one per place
    (a text holding one credential twice: once, its ``places`` 2: :func:`~asz_core.view.secret_forms.counted`),
    each credential as the exports mask and count it
    (:func:`~asz_core.view.secret_forms.credentials`: a PEM private key told from another of its type by its lines). ``unjudged``, when given, gets the conversations of the findings that
    ``filters``' project or model kept only because it cannot judge them (a landed file did not verify, so their
    project or models are not known: :func:`~asz_core.reading.search_hits.unjudged_convs`; trial 25b F3). Raises
    :class:`~asz_core.reading.search.SearchError` (the index cannot be read; ``damaged`` when SQLite finds the file
    damaged: :func:`~asz_core.reading.search_place.is_damaged`), as a search's query does."""
    from .search_hits import hits_where, unjudged_convs

    where, args = hits_where(filters or Filters())
    sql = ("SELECT hit.conversation, conv.title, hit.kind, hit.at, hit.step, hit.file, hit.row, secret.kind, secret.masked, "
           "secret.fingerprint, hit.rowid FROM hit JOIN secret ON secret.hit = hit.rowid JOIN conv ON conv.id = hit.conversation "
           f"WHERE {' AND '.join(where) or '1'} ORDER BY hit.rowid, secret.n")
    from ..storage.frozen import open_read
    from .search_store import with_folded

    out: list[dict] = []
    try:
        con = with_folded(open_read(index, root, timeout=30))  # --project compares asz_folded (trial 31c F2)
        try:
            seen: dict[tuple[int, str], dict] = {}
            for cid, title, kind, at, step, file, row, name, shown, mark, rowid in con.execute(sql, args):
                if (rowid, mark) in seen:  # the same credential again in the same text: one finding, one more place
                    seen[rowid, mark]["places"] += 1
                    continue
                seen[rowid, mark] = {"conversation": cid, "title": shown_title(title or ""), "kind": kind, "at": at or 0,
                                     "step": step or "", "file": file, "row": row, "secret": name, "masked": shown,
                                     "fingerprint": mark, "field": "text", "places": 1}
                out.append(seen[rowid, mark])
            if unjudged is not None:
                unjudged.extend(unjudged_convs(con, filters or Filters(), [f["conversation"] for f in out]))
        finally:
            con.close()
    except sqlite3.Error as exc:
        from .search import SearchError
        from .search_place import REINDEX_REMEDY, is_damaged

        raise SearchError(f"the search index {index} cannot be read: {exc} ({REINDEX_REMEDY})", is_damaged(exc)) from None
    return out


#: The fields of a conversation (not texts of the index) :func:`scan_places` reads, and what ``asz secrets`` calls each.
PLACE_FIELDS = {"project": "project (the working directory it ran in, cwd)", "git_branch": "git_branch (the git branch it ran on)"}


def scan_places(rows: Iterable[dict]) -> list[dict]:
    """Every credential in the fields naming where the conversations of ``rows`` (their list rows, as ``asz ls``
    counts and keeps them: trial 48d F3, rows counted under another key took 13 s unsaid) ran (:data:`PLACE_FIELDS`: the working directory, the git branch, as ``asz ls`` lists them, the conversation's first
    recorded value; trial 37a F2: a ``ghp_`` token in a cwd and a branch was masked in the exports and ``asz secrets``
    found nothing). Each finding as :func:`scan`'s, ``field`` naming the field, ``kind`` ``field``, ``at`` the
    conversation's first activity (unix ms, 0 when unknown), no ``step``, ``file`` or ``row`` ('' and 0: the field is
    the conversation's, not one record's); one per field and credential (``places``: how often it stands there), in
    id order."""
    out: list[dict] = []
    for row in sorted(rows, key=lambda r: r["id"]):
        for field in PLACE_FIELDS:
            seen: dict[str, dict] = {}
            value = row.get(field)
            for name, shown, mark in credentials(value if isinstance(value, str) else ""):
                if mark in seen:
                    seen[mark]["places"] += 1
                    continue
                seen[mark] = {"conversation": row["id"], "title": shown_title(row.get("title") or ""), "kind": "field",
                              "at": _ms(row.get("from")), "step": "", "file": "", "row": 0, "secret": name,
                              "masked": shown, "fingerprint": mark, "field": field, "places": 1}
                out.append(seen[mark])
    return out


def _ms(value) -> int:
    """A row's ``from`` (an RFC 3339 time, or unix ms) in unix ms; 0 when it does not read."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    from ..sessiondata.times import instant_ms

    return instant_ms(value) or 0


def keyed_findings(root: str | os.PathLike, found: list[dict]) -> tuple[list[dict], str]:
    """``found`` (:func:`scan`'s, :func:`scan_places`') with each ``fingerprint`` keyed by ``root``'s mask key
    (:func:`~asz_core.storage.mask_key.keyed_mark`, made when the root has none), the fingerprint a masked export's
    manifest gives the same credential; and a note ('' when none). The unkeyed SHA-256 of a password a person chose,
    pasted with ``asz secrets``' answer into a ticket, let anyone test guesses offline (trial 37a F1). A root the key can
    be neither read from nor made in: keyed by a key of this run alone (one credential still one fingerprint), said."""
    import secrets as random

    from ..storage.mask_key import keyed_mark, mask_key

    note = ""
    try:
        key = mask_key(root)
    except OSError as exc:
        key, note = random.token_bytes(32), (f"note: no mask key ({exc}): each fingerprint is keyed by this run's own "
                                             "key, so it matches no export's manifest")
    return [{**f, "fingerprint": keyed_mark(key, f["fingerprint"])} for f in found], note
