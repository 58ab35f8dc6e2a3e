"""Skeletons: what a removed landed file leaves behind (seed 000, Skeletons; issue 21).

A skeleton is the landed file's name with ``.sk``, in its directory:
Session Data compressed with gzip (mtime 0, so the same file always gives
the same bytes), written once and read-only. It keeps what the structure is
built from and none of the content:

- the header whole, with one more key, ``removed``: ``digest`` (SHA-256 of
  the landed file's whole bytes), ``size``, ``records``, ``at`` (when it was
  removed), ``generation`` (which removal of the session, from 1),
  ``receiver`` (``accepted`` | ``rejected`` | ``unconfirmed``) and ``owner``,
  then ``elsewhere`` only for a file the receiver refused because it holds
  every record of it as another root's file (``accepted`` then): that file's
  path in the receiving root (push.state's ``elsewhere … all`` line);
- every record in order with ``ord off bytes id parent call run continues
  tool child batch label started_by from time trigger flags usage model
  dropped`` (and ``sha`` for a provider body);
- every part in its place with ``k bytes failed sha256``, state ``removed``
  (``too_large`` stays), a call's ``id name server server_tool``, a result's
  ``of``; text, data, media and encoding go, except (when the data decodes) a
  ``changes/1`` record's identity and per-file counts, an ``execution/1``
  record's ``schema id tool time outcome``, and a provider body manifest
  without its literal segments; and, when the adapter of the header's
  dialect says so (:meth:`asz_core.Adapter.metered_data`; trial 29a F2),
  the figures a data part gives its usage from (Kiro's credits and turns;
  Claude Code's copies of a sub-agent's calls in ``progress`` records, their
  ids, model, usage and tool call ids and names, fix50i), beside its ``sha256``. Every other data part keeps the SHA-256 of
  its data in ``sha256`` (a provider body piece: the piece's identity);
  and a text or result part whose whole text the adapter of the header's
  dialect says is its runtime's fixed wording (:meth:`asz_core.Adapter.fixed_wording`:
  Claude Code's interrupt notice, its answer to a refused call with no
  reason) keeps that text, its state still ``removed`` (trial 47a F1, F2:
  the readers read ``interrupt`` and ``refused`` from it, and without it
  12 refused calls of a day read failed); one whose text begins with such
  a wording followed by someone's words (:meth:`asz_core.Adapter.fixed_prefix`:
  that answer before the person's reason for the rejection) keeps the
  wording alone in ``text``, and says what went after it: ``removed_bytes``
  (its size, UTF-8; no digest of it, which would let a short reason be
  found again by hashing guesses: review48) (trial 47a F1's other half:
  32 of 256 refusals read failed);
- its own closing line.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
from pathlib import Path
from typing import Any, Callable, Optional

import orjson

from . import array_elements, object_members
from .durable import fsync_dir, write_once

__all__ = ["skeleton_bytes", "skeleton_path", "write_skeleton", "Removed", "check_removed", "RECEIVER_ANSWERS"]

#: What ``removed.receiver`` may say.
RECEIVER_ANSWERS = ("accepted", "rejected", "unconfirmed")

_RECORD_KEYS = ("ord", "off", "bytes", "id", "parent", "call", "run", "continues", "tool", "child", "batch", "label", "started_by",
                "from", "time", "trigger", "flags", "usage", "model", "request", "sidechain", "dropped", "parts")
_CHANGES_KEEP = ("schema", "id", "captured_by", "tool", "tool_name", "time", "basis", "root", "coverage", "changed_files", "changes")
_CHANGE_FILE_KEEP = ("path", "operation", "before", "after", "diff", "attribution", "additions", "deletions")
_EXECUTION_KEEP = ("schema", "id", "tool", "time", "outcome")


def skeleton_path(landed: str | os.PathLike) -> Path:
    """``…/<name>.sk`` beside ``…/<name>.sd``."""
    p = Path(landed)
    return p.with_suffix(".sk")


def _dumps(value: Any) -> bytes:
    # The writer's rules for strings it encodes itself: <, > and & literal, U+2028/U+2029 escaped.
    return orjson.dumps(value).replace("\u2028".encode(), b"\\u2028").replace("\u2029".encode(), b"\\u2029")


def _changes(data: dict) -> dict:
    out = {k: data[k] for k in _CHANGES_KEEP if k in data}
    files = []
    for ch in data.get("changes") or ():
        if not isinstance(ch, dict):
            continue
        f = {k: ch[k] for k in _CHANGE_FILE_KEEP if k in ch}
        if f.get("diff") == "available":
            f["diff"] = "unavailable"  # its lines are not kept
        files.append(f)
    if "changes" in out:
        out["changes"] = files
    return out


def _manifest(data: dict) -> dict:
    out = dict(data)
    segs = []
    for seg in data.get("segments") or ():
        if isinstance(seg, dict):
            kept = {k: v for k, v in seg.items() if k != "lit"}
            if kept:
                segs.append(kept)
    if "segments" in data:
        out["segments"] = segs
    return out


def _kept_data(value: Any) -> Any:
    """The data a skeleton keeps of a data part whose value decoded, or None."""
    if isinstance(value, dict):
        schema = value.get("schema")
        if schema == "changes/1":
            return _changes(value)
        if schema == "execution/1":
            return {k: value[k] for k in _EXECUTION_KEEP if k in value}
        if schema == "provider_body/1":
            return _manifest(value)
    return None


def _part(line: bytes, start: int, keep: Optional[Callable[[Any], Any]] = None,
          fixed: Optional[Callable[[str], Any]] = None) -> dict:
    """A part of a landed record as its skeleton keeps it; ``keep``: what of a data part that decodes and is none of
    :func:`_kept_data`'s the adapter keeps for its usage figures (:meth:`asz_core.Adapter.metered_data`); ``fixed``:
    what leading part of a text or result part's text is its runtime's fixed wording, kept (the whole text or a
    lead: :func:`_said_fixed`)."""
    members = object_members(line, start)
    keys = {k: (b, e) for k, b, e in members}
    val = lambda k: orjson.loads(line[keys[k][0]:keys[k][1]])  # noqa: E731
    kind = val("k") if "k" in keys else ""
    out: dict[str, Any] = {}
    kept = None
    sha = val("sha256") if "sha256" in keys else ""
    if "data" in keys:
        raw = line[keys["data"][0]:keys["data"][1]]
        try:
            decoded = orjson.loads(raw)
        except orjson.JSONDecodeError:
            decoded = None
        kept = _kept_data(decoded) if kind == "data" else None
        metered = kept is None and kind == "data" and keep is not None and decoded is not None
        if metered:  # trial 29a F2: the figures a reader's credits are read from (Kiro's credits, its turns)
            try:
                kept = keep(decoded)
            except Exception:  # an adapter's bug keeps nothing
                kept = None
        if (kept is None or metered) and not sha and kind == "data":
            sha = hashlib.sha256(raw).hexdigest()  # the data as the writer landed it (a body piece's identity)
    state = val("state") if "state" in keys else "available"
    whole = val("text") if fixed is not None and kind in ("text", "result") and "text" in keys and state == "available" else None
    words = _said_fixed(fixed, whole) if isinstance(whole, str) and whole and not sha else None
    if words is not None and words != whole and kind != "result":
        words = None  # a lead is kept of a runtime's answer to a call alone, never of a turn someone wrote
    for k, _, _ in members:
        if k == "k" or k == "bytes" or k == "failed":
            out[k] = val(k)
        elif k in ("id", "name", "server", "server_tool") and kind == "call":
            out[k] = val(k)
        elif k == "of" and kind == "result":
            out[k] = val(k)
        elif k == "data" and kept is not None:
            out["data"] = kept
        elif k == "text" and words is not None:
            out["text"] = words  # the runtime's fixed wording, whole or its lead (trial 47a F1)
        elif k == "state":
            out["state"] = "too_large" if state == "too_large" else "removed"
    out.setdefault("state", "too_large" if state == "too_large" else "removed")
    if words is not None and words != whole:  # what went after the kept lead (the reason): its size, never its digest,
        # from which a short reason ("no") is found again by hashing guesses (review48)
        out["removed_bytes"] = len(whole[len(words):].encode("utf-8", "surrogatepass"))
    if sha:
        out["sha256"] = sha
    return out


def _said_fixed(fixed: Callable[[str], Any], text: str) -> Optional[str]:
    """What of ``text`` ``fixed(text)`` says is the runtime's fixed wording: ``text`` whole (an answer of True, or
    ``text`` itself) or a non-empty leading part of it; None for anything else, an adapter's bug (an exception, another
    answer) keeping nothing."""
    try:
        got = fixed(text)
    except Exception:
        return None
    if got is True:
        return text
    return got if isinstance(got, str) and got and text.startswith(got) else None


def _record(line: bytes, body: bool, keep: Optional[Callable[[Any], Any]] = None,
            fixed: Optional[Callable[[str], Any]] = None) -> bytes:
    out: dict[str, Any] = {}
    for key, b, e in object_members(line, 0):
        if key == "parts":
            out["parts"] = [_part(line, pb, keep, fixed) for pb, _ in array_elements(line, b)]
        elif key in _RECORD_KEYS or (key == "sha" and body):
            out[key] = orjson.loads(line[b:e])
    return _dumps(out)


class Removed(dict):
    """The header's ``removed`` mapping, in its order: digest, size, records, at, generation, receiver, owner, and
    ``elsewhere`` when not '' (the receiving root's file that holds every record of it, landed from another root), or
    ``owned`` when not '' (the credential whose files there hold every record of it: its session is that credential's
    at the receiver, which refused this root's file; trial 43a F6)."""

    def __init__(self, digest: str, size: int, records: int, at: str, generation: int, receiver: str, owner: str,
                 elsewhere: str = "", owned: str = ""):
        super().__init__(digest=digest, size=size, records=records, at=at, generation=generation, receiver=receiver, owner=owner)
        if elsewhere:
            self["elsewhere"] = elsewhere
        if owned:
            self["owned"] = owned


def skeleton_bytes(data: bytes, *, at: str, generation: int, receiver: str, owner: str, elsewhere: str = "",
                   owned: str = "", keep: Optional[Callable[[str, Any], Any]] = None,
                   fixed: Optional[Callable[[str, str], Any]] = None) -> bytes:
    """The uncompressed skeleton of a landed file's bytes ``data`` (``elsewhere``, ``owned``: :class:`Removed`).
    ``keep(dialect, data)``: what of a data part the adapter of the header's dialect keeps for its usage figures
    (:meth:`asz_core.Adapter.metered_data`; None keeps nothing, and so does a ``keep`` that raises: an adapter's bug
    costs that part's figures, never the skeleton); ``fixed(dialect, text)``: what of a text or result part's text is
    the runtime's fixed wording, which the skeleton keeps: True or the text for all of it
    (:meth:`asz_core.Adapter.fixed_wording`), a leading part of it (:meth:`asz_core.Adapter.fixed_prefix`: the rest's
    size said in ``removed_bytes``, no digest of it), anything else nothing (one that raises keeps nothing). Raises ValueError for bytes that are not a whole landed file."""
    lines = data.split(b"\n")
    if len(lines) < 3 or lines[-1] != b"":
        raise ValueError("not a whole landed file (no closing line)")
    header = orjson.loads(lines[0])
    records = lines[1:-2]
    closing = orjson.loads(lines[-2])
    if not isinstance(header, dict) or not isinstance(closing, dict) or closing.get("t") != "end" or closing.get("records") != len(records):
        raise ValueError("not a whole landed file (bad header or closing line)")
    header["removed"] = Removed(hashlib.sha256(data).hexdigest(), len(data), len(records), at, generation, receiver, owner,
                                elsewhere, owned)
    body = header.get("kind") == "provider_body"
    out = io.BytesIO()
    sha = hashlib.sha256()
    dialect = header.get("dialect") if isinstance(header.get("dialect"), str) else ""
    bound = (lambda d: keep(dialect, d)) if keep is not None and dialect else None  # noqa: E731
    said = (lambda t: fixed(dialect, t)) if fixed is not None and dialect else None  # noqa: E731
    for line in [_dumps(header)] + [_record(r, body, bound, said) for r in records]:
        out.write(line + b"\n")
        sha.update(line + b"\n")
    out.write(_dumps({"t": "end", "records": len(records), "digest": sha.hexdigest()}) + b"\n")
    return out.getvalue()


def write_skeleton(landed: str | os.PathLike, *, at: str, generation: int, receiver: str, owner: str,
                   elsewhere: str = "", owned: str = "", keep: Optional[Callable[[str, Any], Any]] = None,
                   fixed: Optional[Callable[[str, str], Any]] = None) -> Path:
    """Write the skeleton of the landed file at ``landed`` beside it, once (gzip, 0444), synced with its directory
    entry (so the landed file's removal after it never reaches the disk without it); returns its path
    (``elsewhere``, ``owned``: :class:`Removed`; ``keep``, ``fixed``: :func:`skeleton_bytes`).

    An existing skeleton is kept as it is (a removal interrupted after writing it).
    Raises OSError, ValueError for a file that is not whole.
    """
    landed = Path(landed)
    target = skeleton_path(landed)
    if target.exists():
        return target
    raw = skeleton_bytes(landed.read_bytes(), at=at, generation=generation, receiver=receiver, owner=owner,
                         elsewhere=elsewhere, owned=owned, keep=keep, fixed=fixed)
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, filename="") as gz:
        gz.write(raw)
    write_once(target, buf.getvalue(), target.with_name(f".{target.name}.{os.getpid()}.tmp"))
    fsync_dir(target.parent)  # its name durable before the landed file's removal is (push.md: crash-safe; session 41)
    return target


def check_removed(path: str | os.PathLike) -> list[str]:
    """Problems with a skeleton's ``removed`` header (one message each; [] when it is whole).

    Checks the keys and types seed 000 lists, that ``records`` is the
    skeleton's own record count, and that the receiver answer is known.
    """
    try:
        with gzip.open(path, "rb") as f:
            lines = f.read().split(b"\n")
        head = orjson.loads(lines[0])
    except (OSError, EOFError, orjson.JSONDecodeError) as exc:
        return [f"the header does not read: {exc}"]
    r = head.get("removed") if isinstance(head, dict) else None
    if not isinstance(r, dict):
        return ["a skeleton's header needs removed {digest, size, records, at, generation, receiver, owner}"]
    out = []
    import re

    if not isinstance(r.get("digest"), str) or not re.fullmatch(r"[0-9a-f]{64}", r["digest"]):
        out.append(f"removed.digest {r.get('digest')!r} is not a SHA-256 in hex")
    for k, lo in (("size", 0), ("records", 0), ("generation", 1)):
        if not isinstance(r.get(k), int) or isinstance(r.get(k), bool) or r[k] < lo:
            out.append(f"removed.{k} {r.get(k)!r} is not an integer ≥ {lo}")
    if isinstance(r.get("records"), int) and r["records"] != max(0, len(lines) - 3):
        out.append(f"removed.records {r['records']} but the skeleton holds {max(0, len(lines) - 3)} records")
    if r.get("receiver") not in RECEIVER_ANSWERS:
        out.append(f"removed.receiver {r.get('receiver')!r} is not one of {', '.join(RECEIVER_ANSWERS)}")
    for k in ("at", "owner"):
        if not isinstance(r.get(k), str):
            out.append(f"removed.{k} {r.get(k)!r} is not a string")
    if "elsewhere" in r and (not isinstance(r["elsewhere"], str) or not r["elsewhere"] or r.get("receiver") != "accepted"):
        out.append(f"removed.elsewhere {r['elsewhere']!r} is not the path of a file the receiver holds every record in "
                   "(a non-empty string, with receiver accepted)")
    if "owned" in r and (not isinstance(r["owned"], str) or not r["owned"] or r.get("receiver") != "accepted"
                         or "elsewhere" in r):
        out.append(f"removed.owned {r['owned']!r} is not the credential in whose files the receiver holds every record "
                   "of it (a non-empty string, with receiver accepted and no removed.elsewhere)")
    return out
