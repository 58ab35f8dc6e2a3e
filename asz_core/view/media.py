"""Media parts in the asz.view document (issue 18; seed 000, Media is kept inline).

Every ``media`` part of a landed record is said on the step that draws its
record, as an entry of that node's ``media`` list::

    {"ref": {"seq": S, "row": R, "block": B}, "mime": "image/png", "bytes": 96,
     "state": "available", "digest": "<sha256 hex>", "decoded_bytes": 70,
     "decoded_sha256": "<sha256 hex>", "kept": true}

``mime`` is the part's ``media`` (its media type, '' when the runtime named
none); ``bytes`` the length of the base64 text the runtime wrote; ``state``
the part's (``too_large`` when it was too large to land); ``digest`` the
SHA-256 of the part's data as the writer lands it (the JSON string), which is
the ``sha256`` a part taken out to land keeps, so a kept image and a cut one
compare; ``decoded_bytes`` and ``decoded_sha256``, only where the landed record
keeps the data and it is base64 (RFC 4648, no other character), the size and
SHA-256 of the bytes it decodes to: the image file itself, which a researcher
holding that file can match (trial 31b F8; fix32d); ``kept`` says the data is in the landed record (the page then shows
it from ``/api/c/<id>/record/<seq>/<row>``). The owner is the step citing the
exact part, else the first step (by id, ``llm.call`` last) citing the record.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from typing import Iterable

import orjson

from ..flow.model import Node
from ..sessiondata import encode_value
from ..sessiondata.jsonbytes import RawJSON

__all__ = ["media_of"]

_CONTAINERS = frozenset(("conversation", "segment", "session", "stream", "epoch", "talk", "run"))


def _digest(p: dict) -> str:
    if p.get("sha256"):
        return p["sha256"]
    data = p.get("data")
    if data is None:
        return ""
    raw = data.raw if isinstance(data, RawJSON) else encode_value(data)
    return hashlib.sha256(raw).hexdigest()


def _decoded(p: dict) -> dict:
    """``{"decoded_bytes": N, "decoded_sha256": HEX}`` of a media part whose landed data is a base64 text (the bytes
    it decodes to: the image file); {} when the data is not landed, not a string or not base64."""
    data = p.get("data")
    if isinstance(data, RawJSON):
        try:
            data = orjson.loads(data.raw)
        except orjson.JSONDecodeError:
            return {}
    if not isinstance(data, str):
        return {}
    try:
        raw = base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return {}
    return {"decoded_bytes": len(raw), "decoded_sha256": hashlib.sha256(raw).hexdigest()}


def media_of(media: list[tuple[int, int, int, dict]], nodes: Iterable[Node]) -> dict[str, list[dict]]:
    """Node id → its media entries (see the module docstring), for every media part ``media`` lists.

    ``media`` is ``(seq, row, block, part)`` of every media part of the landed records, in seq/row/block order
    (:meth:`~asz_core.view.session_records.LandedSession.media_parts`); the owners are looked up only when there is one.
    """
    out: dict[str, list[dict]] = {}
    if not media:
        return out
    exact: dict[tuple[int, int, int], str] = {}
    whole: dict[tuple[int, int], str] = {}
    for n in sorted(nodes, key=lambda n: (n.kind == "llm.call", n.id)):
        if n.kind in _CONTAINERS:
            continue
        for r in ([n.ref] if n.ref is not None else []) + list(n.refs):
            if r.block is not None:
                exact.setdefault((r.seq, r.row, r.block), n.id)
            whole.setdefault((r.seq, r.row), n.id)
    for seq, row, block, p in media:
        owner = exact.get((seq, row, block)) or whole.get((seq, row))
        if owner is None:
            continue  # coverage names a record no node draws
        state = p.get("state", "available")
        out.setdefault(owner, []).append({
            "ref": {"seq": seq, "row": row, "block": block}, "mime": p.get("media", ""),
            "bytes": p.get("bytes", 0), "state": state, "digest": _digest(p),
            **(_decoded(p) if state == "available" else {}),
            "kept": state == "available" and p.get("data") is not None,
        })
    return out
