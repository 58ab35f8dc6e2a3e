"""Which root sent under an instance id: two roots under one name are said, never merged unsaid (trial 34b F3).

A push names its sender by ``service.instance.id`` (``export.otlp.instance_id``, else ``user@host``), the pusher's own
word: a second machine configured with the same id, or a host whose root was re-made (a re-image, ``mv data
data.old``), sends under the same name, and the receiving root summed them in one row with nothing said. Each storage
root now has an id of its own (:func:`root_id`: 32 random hex digits made once, kept in ``<root>/_export/root.id``),
which ``asz push`` sends as the resource attribute ``asz.root.id`` and ``asz receive`` keeps in each sender line
(``"root"``; absent for a pusher before 2026-12-06). :func:`two_roots` finds the instance ids that more than one root
sent under; ``asz verify`` (a note), ``asz senders`` (its row and a note; ``--json``'s ``roots``) and ``asz usage
instance`` (a note under its table) say each: ``two roots under one name since T``, and whether they sent one after the
other (a root re-made) or both in the same span (two machines). A root copied whole keeps its id: its copies are one
root here.
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["ROOT_ID_FILE", "root_id", "roots_of", "two_roots", "two_roots_in", "two_roots_line"]

#: Where a storage root keeps its id, relative to the root.
ROOT_ID_FILE = "_export/root.id"
#: root path -> its id, read or made once per process
_IDS: dict[str, str] = {}


def root_id(root: str | os.PathLike) -> str:
    """The id of storage root ``root``: the 32 hex digits of ``_export/root.id``, made (random, written once, never
    replaced: two passes making it at once keep the first) when there is none. Raises OSError when it can be neither
    read nor made."""
    key = os.path.abspath(root)
    if key in _IDS:
        return _IDS[key]
    from .mask_key import made_once

    got = made_once(Path(root) / ROOT_ID_FILE, 32, "a root id")
    _IDS[key] = got
    return got


def two_roots(entries: list[dict]) -> list[dict]:
    """The instance ids that sender lines ``entries`` (verified ones: :data:`~asz_core.storage.senders.UNVERIFIED`
    lines name no one) show more than one root id under, by instance id: ``{"instance", "since" (the second root's
    first ``received_at``), "apart" (True when no root's span of ``received_at`` overlaps another's: one root after the
    other, a root re-made), "roots"}`` (:func:`roots_of`'s, two or more). A line naming no root (a pusher before
    2026-12-06) counts for none."""
    return [d for d in roots_of(entries) if len(d["roots"]) > 1]


def two_roots_in(root: str | os.PathLike) -> list[dict]:
    """:func:`two_roots` over every sender record of receiving root ``root`` ([] when it holds none). Never raises."""
    from .senders import RECEIVED, read_senders

    folder = Path(root) / RECEIVED
    entries = [e for p in (sorted(folder.glob("*.senders")) if folder.is_dir() else []) for e in read_senders(p).entries]
    return two_roots(entries)


def roots_of(entries: list[dict]) -> list[dict]:
    """:func:`two_roots`' entries for every instance id a line naming a root names, one root or more: ``"roots":
    [{"root", "files", "first_received", "last_received"}]`` by first file; ``since`` None and ``apart`` True for
    one root."""
    from ..sessiondata.times import parse_instant
    from .senders import UNVERIFIED

    by: dict[str, dict[str, dict]] = {}
    for e in entries:
        inst, rid, at = e.get("instance"), e.get("root"), e.get("received_at")
        ns = parse_instant(at) if isinstance(at, str) else None
        if e.get(UNVERIFIED) or not isinstance(rid, str) or not rid or ns is None:
            continue
        r = by.setdefault(inst if isinstance(inst, str) else "", {}).setdefault(
            rid, {"root": rid, "files": 0, "first_received": at, "last_received": at, "first": ns, "last": ns})
        r["files"] += 1
        if ns < r["first"]:
            r["first_received"], r["first"] = at, ns
        if ns > r["last"]:
            r["last_received"], r["last"] = at, ns
    out = []
    for inst, roots in sorted(by.items()):
        ordered = sorted(roots.values(), key=lambda r: (r["first"], r["root"]))
        apart = all(a["last"] < b["first"] for a, b in zip(ordered, ordered[1:]))
        out.append({"instance": inst or None, "since": ordered[1]["first_received"] if len(ordered) > 1 else None,
                    "apart": apart,
                    "roots": [{k: v for k, v in r.items() if k not in ("first", "last")} for r in ordered]})
    return out


def two_roots_line(d: dict, name: str) -> str:
    """What readers say of one :func:`two_roots` entry, its instance drawn as ``name``: ``NAME: 2 roots under one name
    since T (root 1a2b3c4d…: 12 file(s), T1 to T2; root 5e6f…: …): one after the other, so a root re-made (a re-imaged
    host?) or ... ; their files and figures are under one name here …``."""
    each = "; ".join(f"root {r['root'][:12]}: {r['files']:,} file(s), {r['first_received']}"
                     + (f" to {r['last_received']}" if r["last_received"] != r["first_received"] else "")
                     for r in d["roots"])
    how = ("one after the other: a root re-made under the same name (a re-imaged host, a new data folder?)" if d["apart"]
           else "in the same span: two machines (or roots) sending under one service.instance.id")
    return (f"{name}: {len(d['roots'])} roots under one name since {d['since']} ({each}); {how}; their files and "
            "figures are summed under that one name here, so give each root its own export.otlp.instance_id "
            "(docs/push.md, Who sent what)")
