"""A UTF-8 byte order mark before the JSON of a source line: read past it, and list it under ``dropped``.

Windows editors and PowerShell 7 begin a UTF-8 file with ``EF BB BF``; ``copy /b a+b`` of two such files leaves a
second mark at the start of the line where they were joined (trial 31c F5). The mark is no part of the record's
value, so a dialect reads the JSON after it and, by seed 000's rule that what an adapter leaves out is listed
(Dropped), lists the mark's 3 bytes under ``dropped``. The record keeps ``off``, ``bytes`` and ``sha`` of the
whole line, mark included. When what follows the mark is not described either, the line lands whole, mark
included, as one unknown part, as any line the dialect cannot read (an unknown part holds source bytes verbatim).

One rule for every adapter (trial 49c F5: the template's ``loads_source`` refused such a first line and the
session lost its start): :func:`past_bom` gives the line to decode and the entry to list.
"""

from __future__ import annotations

from .model import Dropped

__all__ = ["BOM", "BOM_WHAT", "BOM_WHY", "BOM_WHY_LINE", "past_bom"]

#: A UTF-8 byte order mark.
BOM = b"\xef\xbb\xbf"
#: What a record whose line began with :data:`BOM` lists under ``dropped`` (seed 000, Dropped), and why: at file
#: offset 0, and on a later line (two files joined, each with its mark: trial 31c F5).
BOM_WHAT = "byte order mark"
BOM_WHY = "a UTF-8 byte order mark before the JSON at the start of the file: not part of the record's value"
BOM_WHY_LINE = ("a UTF-8 byte order mark before the JSON at the start of the line (files joined, each starting with "
                "one): not part of the record's value")


def past_bom(line: bytes, off: int = 0) -> tuple[bytes, Dropped | None]:
    """``(the line after its mark, the Dropped entry naming the mark)`` for a ``line`` that starts with :data:`BOM`
    (``off`` its byte offset in the file: 0 gives :data:`BOM_WHY`, any other :data:`BOM_WHY_LINE`); ``(line,
    None)`` for any other line. Put the entry first in the record's ``dropped`` once the rest described the line."""
    if not line.startswith(BOM):
        return line, None
    return line[len(BOM):], Dropped(what=BOM_WHAT, bytes=len(BOM), why=BOM_WHY if off == 0 else BOM_WHY_LINE)
