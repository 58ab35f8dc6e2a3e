"""``asz verify --export FILE --root ROOT`` of a copy with no manifest beside it (trial 37c F2; docs/verify.md, "A
copy with no manifest").

An asz built before 2026-12-05 (source 9436bebf) wrote a manifest beside a masked copy only (from 2026-12-04, source
2335d470), and none beside an unmasked one; a copy written to stdout has none whatever the version. Nothing then
says which conversation, format, options, zone, head round or rendering the copy was made with. With ``--root`` the
holder still has the evidence, so the copy is checked as far as its bytes allow: its conversation is the first
conversation id of the root it names (:func:`named_conversation`), its format its suffix's (``.md``, ``.html``,
``.json``, ``.jsonl`` prose, ``.txt`` text), and it is made again from the root's records as ``asz export ID
--format F`` writes it with no other option, unmasked then masked, in this machine's zone then UTC, at each render
this asz can draw (:data:`~asz_core.reading.export_render.RENDER` back to 1: ``drawing`` and ``as_render``), and
compared byte for byte (:func:`matching_render`). A match names the render; none is said with the first line that
differs from the nearest attempt, never as a changed copy: a copy made by an asz before renders were numbered
(2026-12-05) was drawn by rules that changed many times before (45209c25 wrote ``- models: …`` where render 1 writes
``- models …``), which this asz cannot draw again.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Optional

from ..reading.export_render import RENDER

__all__ = ["SUFFIX_FORMATS", "named_conversation", "matching_render", "unmanifested_results", "NO_MANIFEST_BEFORE"]

#: The format a copy's suffix names (``asz export``'s EXT read back).
SUFFIX_FORMATS = {".md": "md", ".html": "html", ".json": "json", ".jsonl": "prose", ".txt": "text"}
#: Which asz wrote no manifest, in words a user can match against ``asz --version`` (its source commit and date).
NO_MANIFEST_BEFORE = ("an asz built before 2026-12-05 (source 9436bebf; asz --version names a build's source and "
                      "date) wrote none beside an unmasked copy, and none is written beside a copy sent to stdout")
#: The renders whose drawing (not only what :func:`~asz_core.reading.export_render.as_render` takes off) differs: a
#: copy is made again once per class, at its newest render, and brought back to each render of the class.
_DRAWN_AS = tuple((r, (r,)) for r in range(RENDER, 7, -1)) + ((7, (7, 6)), (5, (5, 4, 3, 2, 1)))
_TOKEN = re.compile(rb"[A-Za-z0-9][A-Za-z0-9_.:-]{7,}")


def named_conversation(data: bytes, ids: list[str]) -> Optional[str]:
    """The first conversation of ``ids`` (the root's) that ``data`` names, by where its id first stands in the bytes
    (an export names its conversation in its head); None when it names none."""
    known = set(ids)
    for m in _TOKEN.finditer(data):
        token = m.group(0).decode("ascii", "replace")
        for cand in (token, token.rstrip(".:-")):
            if cand in known:
                return cand
    return None


def _attempts(root: Path, cid: str, fmt: str, config: Optional[Path]):
    """``(render, redact, zone name, bytes)`` of each attempt, newest render first, unmasked before masked, this
    machine's zone before UTC (the same zone once when it is UTC); renders 3 back to 1 also with the cost lines as
    before f7840f1b (2026-12-05 22:06, ``drawing``'s ``cents_before``), which every asz that wrote no manifest drew."""
    from ..reading.export_render import as_render, drawing
    from ..view.zone import zone_name
    from .export_made import made_again

    zones = [None] if zone_name() == "UTC" else [None, "UTC"]
    for redact in (False, True):
        for tz in zones:
            for newest, renders in _DRAWN_AS:
                for before in (False, True) if min(renders) <= 3 else (False,):
                    with drawing(newest, cents_before=before):
                        made, _ = made_again(root, cid, {"format": fmt, "redact": redact, "hide": [], "tz": tz}, config)
                    for r in renders:
                        if r <= 3 or not before:  # no render after 3 drew the older cost lines
                            yield r, redact, tz or zone_name(), as_render(made, r, fmt)


def matching_render(data: bytes, root: Path, cid: str, fmt: str, config: Optional[Path]) -> tuple[Optional[tuple], bytes]:
    """``(match, nearest)``: ``match`` the ``(render, redact, zone)`` whose copy made again from ``root`` is ``data``
    byte for byte (None when none is), ``nearest`` the attempt sharing the longest first lines with ``data`` (what
    :func:`first_difference` is said against). Raises as :func:`~asz_core.cli.export_made.made_again` (ViewError,
    LookupError, OSError)."""
    nearest, best = b"", -1
    for r, redact, zone, again in _attempts(root, cid, fmt, config):
        if again == data:
            return (r, redact, zone), again
        same = _same_lines(data, again)
        if same > best:
            nearest, best = again, same
    return None, nearest


def _same_lines(a: bytes, b: bytes) -> int:
    n = 0
    for x, y in zip(a.split(b"\n"), b.split(b"\n")):
        if x != y:
            break
        n += 1
    return n


def first_difference(data: bytes, again: bytes) -> str:
    """``line N: the copy has '…', this asz draws '…'`` for the first line where ``data`` and ``again`` differ (each
    cut to 120 characters)."""
    a, b = data.split(b"\n"), again.split(b"\n")
    n = _same_lines(data, again)
    x, y = (a[n] if n < len(a) else b""), (b[n] if n < len(b) else b"")
    col = next((i for i, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
    long = max(len(x), len(y)) > 120
    start = max(0, col - 30) if long else 0  # a long line (json's one line) is shown around where it differs

    def cut(v: bytes, whole: bool) -> str:
        if not whole:
            return "(its end)"
        t = v[start:start + 120].decode("utf-8", "replace")
        return ("…" if start else "") + t + ("…" if len(v) > start + 120 else "")

    where = f"line {n + 1}" + (f", column {col + 1}" if long else "")
    return f"{where}: the copy has {cut(x, n < len(a))!r}, this asz draws {cut(y, n < len(b))!r}"


def unmanifested_results(copy: Path, root: Path, config: Optional[Path]) -> tuple[list[str], list[str], Optional[str]]:
    """``(said, not_checked, refusal)`` for ``copy`` (no manifest) against ``root``: ``said`` the ``ok`` lines and
    ``not_checked`` what no manifest lets be checked when a render matched; else ``refusal``, why it cannot be
    checked (the caller exits 2: neither checked nor found changed)."""
    from ..storage.ids import unique_prefixes
    from ..view.rows import list_conversations

    fmt = SUFFIX_FORMATS.get(copy.suffix.lower())
    if fmt is None:
        return [], [], (f"its suffix {copy.suffix or '(none)'} names no format of asz export "
                        f"({', '.join(SUFFIX_FORMATS)}), so it cannot be made again to compare")
    data = copy.read_bytes()
    known = list_conversations(root)
    cid = named_conversation(data, known)
    if cid is None:
        return [], [], f"it names no conversation of the root {root}, so there is nothing to make it again from"
    typed = unique_prefixes([cid], known)[cid]  # a prefix asz export takes back (trial 43b F3)
    try:
        match, nearest = matching_render(data, root, cid, fmt, config)
    except (LookupError, ValueError, OSError, RuntimeError) as exc:  # no usable round (ViewError) and the like
        return [], [], f"conversation {cid} cannot be made again from the root: {exc}"
    if match is None:
        return [], [], (f"it is not what this asz draws of conversation {cid} from the root's records as asz export "
                        f"{typed} --format {fmt} writes it at any render it knows (renders {RENDER} back to 1, masked and "
                        f"unmasked, in this machine's zone and UTC), so it cannot be proved: a copy made by an asz built "
                        "before 2026-12-05, when renders began to be numbered, was drawn by rules that changed many "
                        "times before (this asz draws render 1 as the last of them did), or it was made with other "
                        f"options or before the conversation grew; the nearest differs at {first_difference(data, nearest)}")
    render, redact, zone = match
    said = [f"{copy.name}: no manifest: it is render {render} of conversation {cid} as asz export {typed} --format "
            f"{fmt}{' --redact' if redact else ''} draws it from the root's records now, in the zone {zone} with no "
            "other option, byte for byte: every text in it is the landed one"
            + (" and each mask stands over a credential of its form" if redact else "")]
    not_checked = ("not checked (no manifest says them): which head round and landed files the copy was made from, "
                   "and its SHA-256 as its sender gave it: the conversation as the root holds it now drew the same bytes")
    return said, [not_checked], None
