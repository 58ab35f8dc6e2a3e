"""Where the call of a landed result no step draws is, when it is a record the conversation repeats of one it
continues (trial 49d F7: ``asz conversation`` said of such a result "its call never landed", though its call landed
as a repeated record, drawn and counted in the conversation this session continues).

A result no step draws is a document's ``not_drawn`` entry ``why: unresolved`` whose ``unresolved`` is
``unres/tool_use/ID``: no ``llm.call`` step of this conversation holds the call ``ID``. Its call may still be here,
in a record this session repeats of an earlier one (``why: duplicate``, drawn there, not here): that record's landed
line holds a ``call`` part with the same ``id``.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from ..sessiondata.nolink import read_nofollow

__all__ = ["repeated_calls"]


def repeated_calls(root: str | Path, doc: dict) -> dict[str, str]:
    """Record id of each undrawn result of ``doc`` whose call is a record it repeats -> the words that say where:
    ``its call is record ID (seq 1, row 3), one it repeats of CONV, drawn and counted there``. Reads the landed
    lines of the repeated records only (the document's ``files``), never through a symbolic link (a landed file that
    is one says nothing here: :func:`~asz_core.sessiondata.nolink.read_nofollow`); {} when there is none, or a line
    does not read."""
    orphans = {nd["unresolved"].rsplit("/", 1)[-1]: nd.get("id") for nd in doc.get("not_drawn") or ()
               if nd.get("why") == "unresolved" and str(nd.get("unresolved") or "").startswith("unres/tool_use/")}
    repeats = [nd for nd in doc.get("not_drawn") or () if nd.get("why") == "duplicate" and nd.get("ref")]
    if not orphans or not repeats:
        return {}
    files = {f.get("seq"): f.get("file") for f in doc.get("files") or () if f.get("file")}
    lines: dict[int, list[bytes]] = {}
    out: dict[str, str] = {}
    for nd in repeats:
        seq, row = nd["ref"].get("seq"), nd["ref"].get("row")
        try:
            if seq not in lines:
                lines[seq] = read_nofollow(Path(root) / files[seq]).splitlines()
            rec = orjson.loads(lines[seq][row])
        except (KeyError, OSError, IndexError, TypeError, orjson.JSONDecodeError):
            continue
        of = (nd.get("of") or {}).get("conversation") or "the conversation it continues"
        for part in rec.get("parts") or () if isinstance(rec, dict) else ():
            if isinstance(part, dict) and part.get("k") == "call" and part.get("id") in orphans:
                out[orphans[part["id"]]] = (f"its call is record {nd.get('id')} (seq {seq}, row {row}), one it repeats "
                                            f"of {of}, drawn and counted there")
    return out
