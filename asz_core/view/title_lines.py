"""The record-line helpers the title rule of seed 004 (Withholding) needs: :func:`title_withheld` (could a title
come from a withheld record?), :func:`title_words` and :func:`title_unread` (why a title is withheld where a landed
file could not be read).
Re-exported by :mod:`asz_core.view.session_records`, where they were first written."""

from __future__ import annotations

import re
from typing import Iterable

import orjson

__all__ = ["title_withheld", "title_words", "title_unread"]


def title_withheld(lines: Iterable[bytes], title: str, hide: Iterable[str]) -> bool:
    """True when ``title`` could come from a record carrying a withheld flag (seed 004, Withholding).

    ``lines`` are landed record lines. A line counts when it names one of the
    ``hide`` flags and holds the title, as the writer escapes it or as it
    stands (a source's own bytes may escape it otherwise), or with every run of
    whitespace in both made one space (a title written from the withheld text
    with its line breaks made spaces, :func:`_one_space`). Erring on the side
    of withholding: a title found in a withheld record is not shown.
    """
    hide = [n for n in hide if n]
    if not title or not hide:
        return False
    flags = [f'"{n}"'.encode() for n in hide]
    needles = {orjson.dumps(title)[1:-1], title.encode("utf-8", "surrogatepass")}
    words = title_words(title)
    spaced = b" ".join(words)
    for line in lines:
        if any(f in line for f in flags) and (any(n in line for n in needles) or (
                spaced and all(w in line for w in words) and spaced in _one_space(line))):
            return True
    return False


def title_words(title: str) -> list[bytes]:
    """The words of ``title`` as a landed line writes them (JSON-escaped, split at whitespace): a line that lacks one
    cannot hold the title in any spacing (:func:`title_withheld`'s cheap test before it reads a file's lines)."""
    return _one_space(orjson.dumps(title)[1:-1]).strip().split(b" ")


#: A run of what ``str.split`` takes for whitespace, as a landed line holds it: ASCII spaces, tabs, line breaks and
#: separators, real or JSON-escaped (``\n``, ``\u000b``), and the Unicode spaces and separators in UTF-8 (NEL, no-break
#: space, ogham space, en to hair spaces, line and paragraph separators, narrow no-break, medium mathematical and
#: ideographic spaces).
_SPACES = re.compile(rb"(?:[ \t\r\n\x0b\x0c\x1c-\x1f]|\\[nrtf]|\\u00(?:0[bB]|1[c-fC-F]|85|[aA]0)|\xc2[\x85\xa0]"
                     rb"|\xe1\x9a\x80|\xe2\x80[\x80-\x8a\xa8\xa9\xaf]|\xe2\x81\x9f|\xe3\x80\x80)+")


def _one_space(data: bytes) -> bytes:
    """``data`` (JSON text) with each run of whitespace made one space: a runtime's title is often its first prompt
    with its line breaks and runs of spaces made one (LangSmith's question, ``title_of``), so it is looked for so too."""
    return _SPACES.sub(b" ", data)


def title_unread(unread: Iterable[str], hide: Iterable[str]) -> str:
    """Why a conversation's title is withheld although none of its landed files that could be read holds it in a
    withheld record: '' when nothing is withheld (``hide`` empty) or every landed file was read, else ``the title is
    withheld: landed file S/…/x.sd cannot be read: Permission denied, and a record view.hide withholds (system_prompt)
    may hold it there`` (``unread``: each unreadable file's problem line, the words every reader says it in). A title
    found in such a file's withheld record could not be told from one that is not there (seed 004, Withholding: erring
    on the side of withholding; review A 26: the files were skipped and the title shown)."""
    said = list(unread)
    names = [n for n in hide if n]
    if not said or not names:
        return ""
    return f"the title is withheld: {'; '.join(said)}, and a record view.hide withholds ({', '.join(names)}) may hold it there"
