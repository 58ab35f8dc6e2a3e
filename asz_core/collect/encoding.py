"""A source that is not UTF-8 at all, told from its first bytes (trial 36c F3): a transcript saved as UTF-16.

Windows tools write UTF-16 where a Linux tool writes UTF-8: PowerShell 5's ``Get-Content x | Out-File y`` and ``>``,
Notepad's "Unicode", give UTF-16 LE with a byte order mark (``FF FE``); "Unicode big endian" ``FE FF``. Read as UTF-8
JSON Lines, every line of such a copy failed on its own (a 300 KB warning listing 1,593 lines, none saying UTF-16),
and the NUL after its last newline kept the pass ``partial`` for ever. JSON text in UTF-8 never holds a NUL byte (a
NUL in a string is written ``\\u0000``), so a NUL after every other byte of the file's start says UTF-16 without a
mark too. :func:`utf16_said` names it; the collector then lands nothing of the source and says so in one line
(:func:`utf16_error`), and lands it once it is saved as UTF-8 (nothing of it landed, so no conflict follows).
"""

from __future__ import annotations

__all__ = ["HEAD_BYTES", "utf16_said", "utf16_error"]

#: The bytes of a source's start looked at (read once, when nothing of it has landed).
HEAD_BYTES = 256


def utf16_said(head: bytes) -> str:
    """``UTF-16 LE (BOM FF FE)``, ``UTF-16 BE (BOM FE FF)``, ``UTF-16 LE (no BOM: a NUL after every other byte)`` or
    ``UTF-16 BE (no BOM: …)`` for a file that begins with ``head``; '' when it does not read as UTF-16 (a UTF-8 file,
    with or without its own BOM ``EF BB BF``, or too short to tell: fewer than 8 bytes)."""
    if head.startswith(b"\xff\xfe"):
        return "UTF-16 LE (BOM FF FE)"
    if head.startswith(b"\xfe\xff"):
        return "UTF-16 BE (BOM FE FF)"
    head = head[:HEAD_BYTES]
    head = head[:len(head) - len(head) % 2]  # whole pairs
    if len(head) < 8:
        return ""
    first, second = head[0::2], head[1::2]
    for name, nuls, other in (("LE", second, first), ("BE", first, second)):
        if nuls.count(0) * 10 >= len(nuls) * 9 and other.count(0) == 0:
            return f"UTF-16 {name} (no BOM: a NUL {'after' if name == 'LE' else 'before'} every other byte)"
    return ""


def utf16_error(said: str) -> str:
    """The one line a UTF-16 source gets (``said``: :func:`utf16_said`'s words), its next step included."""
    return (f"the file is {said}, not UTF-8: asz reads a transcript as UTF-8 JSON Lines, so nothing of it landed; "
            "save it as UTF-8 (PowerShell: Get-Content FILE | Set-Content -Encoding utf8 NEW, or copy the original "
            "file rather than piping it; Notepad: Save as, Encoding UTF-8) and collect again")
