"""Transcript text made safe for a terminal (trial 3, F4/F19): every character that could steer the terminal or
reorder what it shows is written as a visible escape instead.

Escaped: C0 controls except ``\\t`` and ``\\n`` (so NUL, BEL, ``\\r`` and ESC, which starts CSI and OSC sequences
such as a window title or OSC 52 clipboard), DEL, the C1 controls U+0080–U+009F (U+009B is a one-byte CSI, U+009D
an OSC), and the bidirectional embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069 (a Trojan-Source
style reordering of the rest of a row). A character below U+0100 becomes ``\\xHH``, any other ``\\uHHHH`` (lower
case hex), e.g. ESC ``\\x1b`` and RIGHT-TO-LEFT OVERRIDE ``\\u202e``. Everything else, backslashes included,
stands for itself, so text without such characters prints unchanged.

A JSON line (``asz show`` prints record lines) takes the same characters as JSON escapes instead
(``visible(line, json=True)``: ESC ``\\u001b``, U+0085 ``\\u0085``, U+202E ``\\u202e``), so the printed line still
decodes to the very same value. HTML (``asz export --format html``, the page) takes the terminal's escapes but
keeps CR, which HTML reads as white space (``visible(text, keep_cr=True)``).

Apply it before cutting text to a width: a cut can then only shorten an escape, never leave half a sequence.

Terminal formatting is removed first, where a person reads (the terminal, the page, HTML and Markdown exports):
each whole CSI sequence (ESC ``[``, parameter bytes 0x30–0x3F, intermediate bytes 0x20–0x2F, one final byte
0x40–0x7E: colours and bold ``\x1b[38;2;153;153;153m``, ``\x1b[?2026h``, ``\x1b[2J``), as Claude Code's
``<local-command-stdout>`` carries them (:func:`plain`). What such a sequence does to a terminal, text shown as it
is without it; nothing else is taken: an OSC (``\x1b]0;title\x07``), a lone ESC, the one-byte CSI U+009B and every
other control still show as their escapes. The landed records, the asz.view document, search snippets' JSON
(``visible(..., json=True)``) and ``asz show`` keep every byte.
"""

from __future__ import annotations

import re

from ..termsafe import ESCAPED_IN_DATA, ESCAPES, INVISIBLE, UNSAFE, line_value, one_line, translated  # the code points visible escapes, with the collect lines' escapes
from .export_render import drawn

__all__ = ["plain", "visible", "md_visible", "md_line", "md_literal", "html_line", "json_visible", "cell_visible", "visible_spans", "UNSAFE",
           "INVISIBLE", "CSI"]


_TABLE = ESCAPES
#: A JSON escape for each character a JSON encoder leaves as it is that could steer a terminal, break a line to a
#: reader (U+2028/U+2029: ``str.splitlines()``, an editor; review34: the prose JSONL kept them raw) or hide in it
#: (:data:`INVISIBLE`): the same value, decoded.
_JSON_TABLE = {c: f"\\u{c:04x}" for c in ESCAPED_IN_DATA}
_KEEP_CR_TABLE = {c: e for c, e in _TABLE.items() if c != 0x0D}


#: One whole CSI sequence (ECMA-48 5.4): ESC ``[``, parameter bytes, intermediate bytes, a final byte.
CSI = re.compile("\x1b\\[[0-?]*[ -/]*[@-~]")


def plain(text: str) -> str:
    """``text`` without its :data:`CSI` sequences (terminal colours, modes, cursor moves); str in, str out."""
    return CSI.sub("", text) if "\x1b" in text else text


def visible(text: str, *, json: bool = False, keep_cr: bool = False) -> str:
    """``text`` with each :data:`UNSAFE` character written as its escape (``\\x1b``, ``\\u202e``); str in, str out.
    ``json``: ``text`` is JSON and each such character becomes its JSON escape (``\\u001b``), the same value, and
    nothing is removed. Otherwise :func:`plain` first (terminal formatting removed).
    ``keep_cr``: a CR stays as it is (HTML, where it is white space)."""
    if json:
        return translated(text, _JSON_TABLE)
    return translated(plain(text), _KEEP_CR_TABLE if keep_cr else _TABLE)


_LONE_CR = re.compile("\r(?!\n)")


def md_visible(text: str) -> str:
    """``text`` for a Markdown export, a file read in a terminal (``cat``) as often as in a viewer (trial 27c, F3):
    :func:`plain` (terminal formatting removed), then each :data:`UNSAFE` character written as :func:`visible` writes
    it (an OSC's ESC and BEL as ``\\x1b`` and ``\\x07``, NUL as ``\\x00``, ``\\u202e``), but for a CR ending a line
    before its LF (Windows line ends stay as they are); a lone CR, which lets a terminal write over a line, becomes
    ``\\x0d``. str in, str out."""
    t = translated(plain(text), _KEEP_CR_TABLE)
    return _LONE_CR.sub("\\\\x0d", t) if "\r" in t else t


def md_line(text: str) -> str:
    """``text`` as one line of an export that asz frames (a head line of md and html: title, project, branch, models,
    cost, who sent it; an index cell; a talk's heading; the text form's ``key: value`` and ``[TS] KIND`` lines):
    :func:`plain` (terminal formatting removed), then :func:`asz_core.termsafe.line_value`, the one rule for a value
    inside one line asz prints (render 9): no line break of any kind (a newline ``\\n``, a CR ``\\x0d``, U+2028
    ``\\u2028``), every control (a tab ``\\t``, ESC ``\\x1b``), bidi and zero-width character shown (``\\u202e``,
    ``\\u200b``), so a value taken from a transcript steers no terminal that ``cat``s the file, ends where its line
    does and hides nothing (trial 34c F1, F4; fix35a left tabs and zero-width characters raw). The one function every
    such line goes through. A copy of render 8 or before is drawn again as it was (:func:`md_visible` and newlines,
    CRs and U+2028/U+2029 escaped, tabs and zero-width characters kept: ``asz verify --export``,
    :func:`~asz_core.reading.export_render.drawing`). str in, str out."""
    if drawn() >= 9:
        return line_value(plain(text))
    return one_line(md_visible(text))


#: A code span as CommonMark reads it: a run of backticks, text, the same run (backslashes inside stand for themselves).
_CODE_SPAN = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)")


#: A backslash a Markdown viewer would take as an escape (CommonMark: one before ASCII punctuation, another backslash
#: included), or one ending the line; and a ``&`` that would start an entity reference (``&amp;``, ``&#38;``).
_MD_TAKEN = re.compile(r"\\(?=[!-/:-@\[-`{-~]|$)|&(?=#?[A-Za-z0-9]+;)")


def md_literal(line: str) -> str:
    """``line`` (a head line or an index cell asz wrote, already through :func:`md_line`) with a backslash written before
    each backslash a Markdown viewer would take as an escape (one before ASCII punctuation, another backslash included,
    or ending the line) and before each ``&`` that starts an entity reference, outside code spans, so a viewer shows
    the value as written: ``\\\\wsl.localhost\\Ubuntu`` is written ``\\\\\\wsl.localhost\\Ubuntu`` and read
    back as it was, ``my app\\_build`` keeps its backslash, where the bare text would lose one of the first two and
    every one before ``_ * [ #`` (trial 36c F1; render 8). A backslash before anything else stands for itself in
    Markdown and is left, so the raw file reads as the terminal prints (``C:\\Users``, ``\\x1b``). A code span's
    backslashes stand for themselves and are left. str in, str out."""
    if "\\" not in line and "&" not in line:
        return line
    out, at = [], 0
    for m in _CODE_SPAN.finditer(line):
        out += [_MD_TAKEN.sub(_taken, line[at:m.start()]), m.group(0)]
        at = m.end()
    return "".join(out + [_MD_TAKEN.sub(_taken, line[at:])])


def _taken(m: re.Match) -> str:
    return "\\" + m.group(0)


def html_line(text: str, *, keep_cr: bool = True) -> str:
    """Transcript ``text`` as a value inside one line of an html copy (a head line, a heading, an index cell), before
    it is escaped as HTML: :func:`md_line`, the one rule the md and text forms' lines follow (render 9: a CR as
    ``\\x0d``, a tab as ``\\t``, a zero-width character as ``\\u200b``; fix36c: a planted cwd's or branch's CR stood
    raw in the html head); a copy of render 8 or before drawn again as it was (:func:`visible`, keeping CRs but in a
    ``<title>``, ``keep_cr`` False). str in, str out."""
    return md_line(text) if drawn() >= 9 else visible(text, keep_cr=keep_cr)


def json_visible(data: bytes) -> bytes:
    """JSON bytes (UTF-8) printed to a terminal (``asz ls --json``, ``asz conversation --json``, ``asz search --json``)
    or written as a json or prose export, with each :data:`UNSAFE` character a JSON encoder leaves as it is (DEL,
    C1, the bidi overrides: U+202E), U+2028 and U+2029 and each :data:`INVISIBLE` character as its JSON escape
    (``\\u202e``, ``\\u2028``, ``\\u200b``): the same value when decoded, nothing reordered on the terminal (trial
    34c F9), no line that ``str.splitlines()`` or an editor breaks in two and no character hidden (review34; render 7).
    bytes in, bytes out; ASCII input is returned as it is."""
    if data.isascii():
        return data
    return translated(data.decode("utf-8", "surrogatepass"), _JSON_TABLE).encode("utf-8", "surrogatepass")


_CELL_TABLE = {**_TABLE, **{c: f"\\u{c:04x}" for c in INVISIBLE}}


def cell_visible(text: str) -> str:
    """``text`` for a table cell on a terminal: :func:`visible`, and each :data:`INVISIBLE` character as its escape
    too (``\\u200b``), so what a cell holds is what it shows. str in, str out."""
    return translated(plain(text), _CELL_TABLE)


def visible_spans(text: str, spans: list[list[int]]) -> tuple[str, list[list[int]]]:
    """``(visible(text), spans)`` with each ``[start, end)`` character span moved to the escaped text (a span
    covering an escaped character covers its whole escape; a span inside a removed :data:`CSI` sequence shrinks to
    where it was)."""
    if not any(ord(c) in UNSAFE for c in text):
        return text, spans
    gone = [False] * len(text)
    for m in CSI.finditer(text):
        gone[m.start():m.end()] = [True] * (m.end() - m.start())
    pos = [0]
    out: list[str] = []
    for i, c in enumerate(text):
        out.append("" if gone[i] else _TABLE.get(ord(c), c))
        pos.append(pos[-1] + len(out[-1]))
    return "".join(out), [[pos[a], pos[b]] for a, b in spans]
