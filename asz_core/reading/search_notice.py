"""What the search index holds of a runtime's own record a notice or a compaction boundary cites: its words, never its
JSON (trial 50b F2).

Claude Code's ``system`` lines land whole as one ``data`` part; indexed as their JSON, ``asz search external`` found
nearly every notice by its ``"userType":"external"``, and ``isSidechain`` or ``parentUuid`` found each by a field's
name. A reader sees such a record by what its adapter says it says (:meth:`~asz_core.plugins.adapter.Adapter.record_line`,
``record_commands``): the index holds those words (:meth:`~asz_core.plugins.adapter.Adapter.record_words`), and for a
runtime whose adapter gives none the data's string values, one a line, no key and no JSON punctuation
(:func:`data_values`). The core never imports an adapter: it asks through the plugin manager
(:func:`~asz_core.view.titles.ask_adapter`)."""

from __future__ import annotations

from typing import Any

import orjson

__all__ = ["data_values", "notice_words", "data_credentials"]


def data_values(data: Any) -> str:
    """Every string value of ``data`` (a record's data part), depth first in the data's order, one a line: no key, no
    number, no ``true``/``null`` and no JSON punctuation, so a search finds a runtime's record by what it holds, not by
    its field names. A string value holding only whitespace is left out; a string on its own is itself. A credential
    its JSON shows by its member's name (``"password": …``, an environment's ``DB_PASS``) is masked first, as the JSON
    is (:func:`~asz_core.view.secret_forms.masked_found`), so its value, once its key is gone, is never held bare; JSON
    that does not read back once masked is held as that masked JSON (:func:`~asz_core.reading.search_hits.json_text`)."""
    from ..view.secret_forms import masked_found

    raw = orjson.dumps(data, default=str).decode("utf-8")
    shown, found = masked_found(raw)
    if found:
        try:
            data = orjson.loads(shown)
        except orjson.JSONDecodeError:
            from .search_undescribed import line_breaks

            return line_breaks(shown)
    out: list[str] = []
    todo = [data]
    while todo:
        x = todo.pop()
        if isinstance(x, str):
            if x.strip():
                out.append(x)
        elif isinstance(x, dict):
            todo.extend(reversed(list(x.values())))
        elif isinstance(x, (list, tuple)):
            todo.extend(reversed(x))
    return "\n".join(out)


def notice_words(rec: dict, p: dict, dialect: str) -> str:
    """The text the index holds for data part ``p`` of ``rec``, a record a ``control.notice`` or ``epoch.boundary`` step
    cites: the words the adapter of ``dialect`` says the record says (``Adapter.record_words``: Claude Code's ``content``,
    the short form, a stop hook summary's commands), held by the record's first data part (a further one holds none);
    when no adapter speaks ``dialect``, or it gives no answer (None, an exception, anything but a string),
    :func:`data_values` of the part. '' for a record whose adapter says it says nothing."""
    from ..view.titles import ask_adapter

    got = ask_adapter(dialect, "record_words", rec) if dialect else None
    if not isinstance(got, str):
        return data_values(p.get("data"))
    first = next((q for q in rec.get("parts") or () if isinstance(q, dict) and q.get("k") == "data"), None)
    return got if first is p else ""


def data_credentials(data: Any) -> list[tuple[str, str, str]]:
    """``(kind, shown, fingerprint)`` of each credential of a notice's ``data`` as its JSON holds it (what ``asz secrets``
    lists of the record, as before schema 55: :func:`~asz_core.reading.search_hits.masked_index` of its JSON text), the
    words the index holds of it being fewer (:func:`notice_words`)."""
    from .search_hits import json_text, masked_index

    return masked_index(json_text(data))[1]
