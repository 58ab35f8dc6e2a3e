"""A hit's snippet from a bounded window of a long text, so that a query's time does not grow with the text.

FTS5's ``snippet()`` scores a window at every match against every other match:
over one text of 1.9 MB holding a word 50,000 times it took 15 s (35 s for a
commoner word), and ``highlight()`` over the whole text half a second per MB.
For a text longer than :data:`LONG_TEXT` characters (as indexed) the snippet is
therefore found here (:func:`long_snippet`), with FTS5's own tokenizer, so a
match is exactly what the index matched:

1. windows of the indexed text, each cut at a separator (never inside a word)
   and overlapping the one before by :data:`OVERLAP` characters, the first
   :data:`FIRST_WINDOW` characters long and each next one twice as long, are put
   one at a time in an in-memory FTS5 table (same tokenizer) and asked whether
   any term of the query matches; the first that does holds the first match;
2. that window is asked again the same way in windows of :data:`FIRST_WINDOW`;
3. ``highlight()`` marks every match in the small window found, and the snippet
   is :data:`SNIPPET` characters of it from :data:`BEFORE` before its first match
   (:func:`~asz_core.reading.search_text.cut_window`), ``…`` where text was cut.

The work is about linear in where the first match stands, whatever the number of
matches. A term no window holds (a phrase longer than the overlap across a cut)
gets FTS5's ``snippet()`` over the whole text (None here: the caller asks it).
"""

from __future__ import annotations

import re
import sqlite3
from typing import Sequence

from .search_text import SNIP_END, SNIP_START, TOKENIZE, cut_window, snippet_spans

__all__ = ["LONG_TEXT", "FIRST_WINDOW", "OVERLAP", "SNIPPET", "BEFORE", "long_snippet"]

#: A text longer than this (characters, as indexed) gets its snippet from windows of it.
LONG_TEXT = 16_384
#: The first window's length and the length of the windows a matching one is asked again in (characters).
FIRST_WINDOW = 8_192
#: How many characters a window repeats of the one before it, so a phrase across a cut is still found.
OVERLAP = 1_024
#: A long text's snippet: this many characters in all, this many of them before the first match.
SNIPPET, BEFORE = 200, 60

_SEPARATOR = re.compile(r"[\s\x01]")


def _cut(text: str, at: int) -> int:
    """The first separator (whitespace or the CJK separator) at or after ``at``, else the text's end: a window ending
    there cuts no word."""
    if at >= len(text):
        return len(text)
    m = _SEPARATOR.search(text, at)
    return len(text) if m is None else m.start()


def _back(text: str, at: int, floor: int) -> int:
    """Where the window after one ending at ``at`` starts: the separator at or after ``at - OVERLAP`` (not before
    ``floor``)."""
    return min(_cut(text, max(floor, at - OVERLAP)), at)


class _Windows:
    """An in-memory FTS5 table holding one window of text at a time, with the index's tokenizer."""

    def __init__(self, ask: str):
        self.con = sqlite3.connect(":memory:")
        self.con.execute(f"CREATE VIRTUAL TABLE w USING fts5(text, tokenize = \"{TOKENIZE}\")")
        self.ask = ask
        self.asked = 0  # windows asked: what :func:`long_snippet` did, for tests

    def matches(self, piece: str) -> bool:
        self.asked += 1
        self.con.execute("DELETE FROM w")
        self.con.execute("INSERT INTO w(rowid, text) VALUES (1, ?)", (piece,))
        return self.con.execute("SELECT 1 FROM w WHERE w MATCH ?", (self.ask,)).fetchone() is not None

    def first(self, text: str, lo: int, hi: int, size: int, grow: int) -> tuple[int, int] | None:
        """``[start, end)`` of the first window of ``text[lo:hi]`` a term matches: windows of ``size`` characters,
        each ``grow`` times the one before."""
        start = lo
        while start < hi:
            end = min(_cut(text, start + size), hi)
            if self.matches(text[start:end]):
                return start, end
            if end >= hi:
                return None
            start, size = _back(text, end, start + 1), size * grow
        return None


def long_snippet(stored: str, terms: Sequence[str], work: list[int] | None = None) -> tuple[str, list[list[int]]] | None:
    """``(text, spans)`` of the snippet of ``stored`` (a text as the index holds it) for the FTS5 ``terms``
    (:func:`~asz_core.reading.search_text.query_terms`), from the first window holding a match (module docstring);
    None when no window matches (the caller asks FTS5 over the whole text). ``work``, when given, gets the number of
    windows asked and the length of the window marked."""
    win = _Windows(" OR ".join(terms))
    try:
        big = win.first(stored, 0, len(stored), FIRST_WINDOW, 2)
        if big is None:
            return None
        small = win.first(stored, big[0], big[1], FIRST_WINDOW, 1) or big
        got = win.con.execute("SELECT highlight(w, 0, ?, ?) FROM w WHERE w MATCH ?", (SNIP_START, SNIP_END, win.ask)) \
            if win.matches(stored[small[0]:small[1]]) else None
        row = None if got is None else got.fetchone()
    finally:
        win.con.close()
    if work is not None:
        work.extend([win.asked, small[1] - small[0]])
    if row is None:
        return None
    text, spans = snippet_spans(row[0])
    if not spans:
        return None
    return cut_window(text, spans, SNIPPET, BEFORE, before_text=small[0] > 0, after_text=small[1] < len(stored),
                      words=True)
