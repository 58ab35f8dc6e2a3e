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
from ..termsafe import one_line

__all__ = ["shown", "unwritable_src", "take_unwritable"]

def shown(path: str | os.PathLike) -> str:
    """``path`` printable on one line of a terminal: bytes that are not UTF-8 as ``\\xNN`` (``bad\\xffdir``), and
    controls, bidi overrides and newlines as escapes (:func:`one_line`; trial 27c F4: a folder named with an OSC and a
    newline retitled the operator's terminal and started a line of its own). Never raises."""
    return one_line(os.fsencode(path).decode("utf-8", "backslashreplace"))


def unwritable_src(source_root: Path, s: Source) -> str:
    """Why ``s`` cannot land, else '': its ``src`` is not UTF-8 (a landed file's ``src`` is a JSON string), or holds a
    line break (a cursor is one ``key value`` per line, origin-digest §2.2: trial 27c F5, such a folder's cursor read
    back cut at the break, and every pass after said the source had moved and ``asz sources`` called it a conflict);
    the message names the folder or file."""
    if _utf8(s.src) and "\n" not in s.src and "\r" not in s.src:
        return ""
    parts = s.src.split("/")
    n = next(i for i, p in enumerate(parts) if not _utf8(p) or "\n" in p or "\r" in p)
    what = "folder" if n < len(parts) - 1 else "file"
    if _utf8(parts[n]):
        why = "a line break, and a cursor (one key and value a line) cannot hold it"
    else:
        why = "bytes that are not UTF-8, and a landed file's src (a JSON string) cannot hold them"
    return f"the {what} {shown(source_root / '/'.join(parts[:n + 1]))} is named with {why}: not landed; rename it to collect this source"


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
