"""The ``provider_body`` records of a LangChain session's body source (origin-digest §5.4; seed 000, provider bodies).

Split from :mod:`asz_adapters_langchain.dialect`, which re-exports :func:`convert_body`. Each line of a session's
``bodies/provider_body.jsonl`` is an llm run's ``inputs`` or ``outputs``; line ``ord`` of the ``.meta.jsonl`` beside it
says whose. A body is cut against the bodies before it in the same source by one
:class:`~asz_core.ProviderSession` kept between calls (rebuilt by cutting those lines again in a new process: the
cut is deterministic, so it meets what landed).
"""

from __future__ import annotations

from typing import Any

import orjson

from asz_core import BodyMeta, ProviderSession, Record, Source, source_sha, unknown_part

__all__ = ["convert_body"]

_META: dict[str, list[dict]] = {}


def _body_meta(source: Source, ord: int) -> dict | None:
    """Line ``ord`` of the meta file beside a body source (read again when the cached copy is shorter)."""
    path = source.path.with_name(source.path.name.replace(".jsonl", ".meta.jsonl"))
    key = str(path)
    metas = _META.get(key)
    if metas is None or len(metas) < ord:
        try:
            metas = [orjson.loads(x) for x in path.read_bytes().splitlines() if x.strip()]
        except (OSError, orjson.JSONDecodeError):
            return None
        if len(_META) > 64:
            _META.clear()
        _META[key] = metas
    return metas[ord - 1] if 0 < ord <= len(metas) else None


_CUTTERS: dict[str, tuple[ProviderSession, int]] = {}


def _bm(source: Source, meta: dict) -> BodyMeta:
    return BodyMeta(role=meta["role"], src=source.src, record_id=str(meta["id"]), model=str(meta.get("model") or ""),
                    run=str(meta.get("run") or ""), call=str(meta.get("call") or ""))


def _ok(meta: Any) -> bool:
    return isinstance(meta, dict) and bool(meta.get("id")) and meta.get("role") in ("request", "response")


def _cutter(source: Source, ord: int) -> ProviderSession:
    """The provider-body session that has cut lines 1..ord-1 of this source, kept between calls; rebuilt by
    cutting those lines again when this process has not (the cut is deterministic, so it meets what landed)."""
    key = str(source.path)
    ent = _CUTTERS.get(key)
    if ent is not None and ent[1] == ord - 1:
        return ent[0]
    sess = ProviderSession()
    with open(source.path, "rb") as f:
        for i, prev in enumerate(f, 1):
            if i >= ord:
                break
            meta = _body_meta(source, i)
            if _ok(meta):
                sess.cut(prev.rstrip(b"\n"), _bm(source, meta))
    if len(_CUTTERS) > 16:
        _CUTTERS.clear()
    _CUTTERS[key] = (sess, ord - 1)
    return sess


def convert_body(source: Source, line: bytes, ord: int, off: int) -> Record:
    """One line of a session's body source → one ``provider_body`` record.

    The line *is* the body: an llm run's ``inputs`` (``<run id>:request``) or
    ``outputs`` (``<run id>:response``) as compact JSON, the framework's
    view, not the wire; line ``ord`` of the ``.meta.jsonl`` beside it says
    what it is (``id``, ``role``, ``call``, ``run``, ``model``). The body is
    cut against the bodies before it in the same source (seed 000: pieces
    the session already holds and a shared front become references to
    earlier records), with the ``provider_body/1`` manifest last, and names
    its call (the llm run id), so the join to the ``llm.call`` is exact.
    Never raises for the body: one whose meta line is missing lands as an
    ``unknown`` part (raises OSError only when the source cannot be read again).
    """
    meta = _body_meta(source, ord)
    if not _ok(meta):
        return Record(ord=ord, off=off, bytes=len(line), sha=source_sha(line),
                      parts=[unknown_part(line, "no meta line says which run this body belongs to")])
    sess = _cutter(source, ord)
    rec = sess.cut(line, _bm(source, meta))
    _CUTTERS[str(source.path)] = (sess, ord)
    rec.ord, rec.off = ord, off
    return rec
