"""A source whose path is not UTF-8 cannot be named in a header's ``src`` (seed 000, Header; trial 15 F13).

``src`` is a JSON string, and a JSON string holds UTF-8 text only; the seeds give it no escape for other bytes (unlike
an unknown part's ``encoding``). A project folder named with such bytes (``bad\\xffdir``) made the session fail on
every pass with ``TypeError: str is not valid UTF-8: surrogates not allowed``. Rather than guess a spelling for the
bytes, the pass leaves such a source out with one ``error:`` naming the folder (told once per process, counted in
``errors=`` on every pass), and lands everything else.
"""

from __future__ import annotations

import os
from pathlib import Path

from ..plugins.adapter import Discovery, Source

__all__ = ["shown", "unwritable_src", "take_unwritable"]


def shown(path: str | os.PathLike) -> str:
    """``path`` printable: bytes that are not UTF-8 as ``\\xNN`` (``bad\\xffdir``). Never raises."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def unwritable_src(source_root: Path, s: Source) -> str:
    """Why ``s`` cannot land (its ``src`` is not UTF-8: the folder or file named with such bytes), else ''."""
    if _utf8(s.src):
        return ""
    parts = s.src.split("/")
    n = next(i for i, p in enumerate(parts) if not _utf8(p))
    what = "folder" if n < len(parts) - 1 else "file"
    return (f"the {what} {shown(source_root / '/'.join(parts[:n + 1]))} is named with bytes that are not UTF-8, and "
            "a landed file's src (a JSON string) cannot hold them: not landed; rename it to collect this source")


def take_unwritable(source_root: Path, disc: Discovery) -> list[tuple[str, str]]:
    """Take the sources :func:`unwritable_src` refuses out of ``disc.sources``; ``[(shown path, why)]`` of each."""
    out, kept = [], []
    for s in disc.sources:
        why = unwritable_src(source_root, s)
        if why:
            out.append((shown(s.path), why))
        else:
            kept.append(s)
    if out:
        disc.sources = kept
    return out


def _utf8(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True
