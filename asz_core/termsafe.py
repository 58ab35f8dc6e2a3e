"""Text shown on a terminal that cannot steer it (trial 3, F4/F19; trial 27c, F4): the characters that could, and
the one-line escape of a name or a collect line, and a word of a command asz suggests, quoted for the shell. A room of
its own with no import of asz, below both the collect lines (:mod:`asz_core.collect.report`,
:mod:`asz_core.collect.src_text`) and the readers (:mod:`asz_core.reading.termtext`).
"""

from __future__ import annotations

import os

__all__ = ["UNSAFE", "ESCAPES", "INVISIBLE", "HIDDEN", "ESCAPED_IN_DATA", "one_line", "line_value", "shell_word", "translated",
           "EscapingStream", "LineStream"]

#: The code points that could steer a terminal or reorder what it shows: C0 controls but tab and newline (NUL, BEL,
#: CR, ESC, which starts CSI and OSC sequences), DEL, C1 (U+009B a one-byte CSI, U+009D an OSC), the bidi
#: embeddings, overrides and isolates U+202A–U+202E and U+2066–U+2069.
UNSAFE = frozenset([*(c for c in range(0x20) if c not in (0x09, 0x0A)), *range(0x7F, 0xA0),
                    *range(0x202A, 0x202F), *range(0x2066, 0x206A)])
#: Each :data:`UNSAFE` character as the terminal's escape of it (``\\x1b``; above U+00FF ``\\u202e``).
ESCAPES = {c: (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}") for c in UNSAFE}
#: :data:`ESCAPES`, a newline as ``\\n``, and the line and paragraph separators U+2028/U+2029 (a Markdown viewer and
#: some terminals break a line at them: trial 30c F7) as ``\\u2028``/``\\u2029``.
_ONE_LINE = {**ESCAPES, 0x0A: "\\n", 0x2028: "\\u2028", 0x2029: "\\u2029"}
#: Characters a terminal draws as nothing, so two values that differ by them read alike (trial 34c F9: two titles,
#: one with U+200B): SOFT HYPHEN, ARABIC LETTER MARK, MONGOLIAN VOWEL SEPARATOR, ZERO WIDTH SPACE, the left-to-right
#: and right-to-left marks U+200E/U+200F, WORD JOINER and the invisible operators U+2060-U+2064, the zero-width
#: no-break space U+FEFF. The zero-width joiner and non-joiner (emoji sequences, Persian) are kept.
INVISIBLE = frozenset([0x00AD, 0x061C, 0x180E, 0x200B, 0x200E, 0x200F, *range(0x2060, 0x2065), 0xFEFF])
#: What a document printed as data (JSON, YAML) writes as an escape where its format would leave the character as it is:
#: each :data:`UNSAFE` one, the line and paragraph separators U+2028/U+2029 (``str.splitlines()`` and editors break a
#: line at them) and each :data:`INVISIBLE` one (``termtext.json_visible``, ``view.render.to_yaml``).
ESCAPED_IN_DATA = frozenset((*UNSAFE, 0x2028, 0x2029, *INVISIBLE))
#: More code points a terminal draws as nothing (Unicode's default-ignorable ones and the fillers that draw blank),
#: shown by :func:`line_value` and the log streams only (the exports' bytes keep :data:`INVISIBLE`; review35): the
#: COMBINING GRAPHEME JOINER U+034F, the Hangul fillers U+115F, U+1160, U+3164, U+FFA0, the Khmer inherent vowels
#: U+17B4/U+17B5, the Mongolian variation selectors U+180B-U+180D and U+180F, the interlinear annotation marks
#: U+FFF9-U+FFFB, the shorthand format controls U+1BCA0-U+1BCA3, the musical format marks U+1D173-U+1D17A and the
#: tag characters and their plane U+E0000-U+E0FFF (an id ``alice`` followed by tags reads as ``alice``).
HIDDEN = frozenset([0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, *range(0x180B, 0x180E), 0x180F, 0x3164, 0xFFA0,
                    *range(0xFFF9, 0xFFFC), *range(0x1BCA0, 0x1BCA4), *range(0x1D173, 0x1D17B), *range(0xE0000, 0xE1000)])


def _shown(c: int) -> str:
    """A code point's escape as a line value shows it: ``\\u200b``, above U+FFFF ``\\U000e0041``."""
    return f"\\u{c:04x}" if c <= 0xFFFF else f"\\U{c:08x}"


#: The tables :func:`line_value` and the log streams translate by, made on first use (4,100 entries, the tag plane's
#: among them: 3 ms of CPU that every asz command paid at import, session 36): ``"line"``, :data:`_ONE_LINE`, a tab
#: as ``\\t`` and each :data:`INVISIBLE` and :data:`HIDDEN` character as ``\\u200b``; ``"stream"``, :data:`ESCAPES`
#: and each :data:`INVISIBLE` and :data:`HIDDEN` character so.
_TABLES: dict[str, dict[int, str]] = {}


def _table(name: str) -> dict[int, str]:
    """The translate table ``name`` (``"line"`` or ``"stream"``) of :data:`_TABLES`, made once."""
    got = _TABLES.get(name)
    if got is None:
        shown = {c: _shown(c) for c in (*INVISIBLE, *HIDDEN)}
        got = _TABLES[name] = {**_ONE_LINE, 0x09: "\\t", **shown} if name == "line" else {**ESCAPES, **shown}
    return got


#: Each translate table :func:`translated` was given (by its id: the tables are made once) with the pattern finding its
#: characters (one character class), compiled on first use.
_FINDS: dict[int, tuple[dict, object]] = {}


def _finder(table: dict[int, str]):
    """The compiled character class of ``table``'s code points (its runs as ranges: the tag plane is one)."""
    import re

    got = _FINDS.get(id(table))
    if got is None or got[0] is not table:
        runs: list[list[int]] = []
        for c in sorted(table):
            if runs and runs[-1][1] == c - 1:
                runs[-1][1] = c
            else:
                runs.append([c, c])
        ranges = "".join(f"\\U{a:08x}" + (f"-\\U{b:08x}" if b > a else "") for a, b in runs)
        got = _FINDS[id(table)] = (table, re.compile(f"[{ranges}]"))
    return got[1]


def translated(text: str, table: dict[int, str]) -> str:
    """``text.translate(table)`` (each code point of ``table`` written as its string), the same str, found by one scan
    of a character class: ``str.translate`` looks each character of a text holding any non-ASCII one up in the table
    and raises and catches a LookupError for each not in it, about 60 ns a character, against about 3 ns for the scan
    (session 47: a third of an md export's CPU, trial 47b F2). A text holding none of them is returned as it is."""
    find = _finder(table)
    if find.search(text) is None:
        return text
    return find.sub(lambda m: table[ord(m.group())], text)


def one_line(text: str) -> str:
    """``text`` as one line a terminal shows as it is: :data:`UNSAFE` characters, newlines and U+2028/U+2029 written as
    escapes (ESC ``\\x1b``, a newline ``\\n``, U+202E ``\\u202e``, U+2028 ``\\u2028``); nothing removed. str in, str
    out. The one helper an id or a name is drawn through in a text or Markdown line (trial 30c F7)."""
    return translated(text, _ONE_LINE)


def line_value(text: str) -> str:
    """``text`` as a value inside one line asz prints on a terminal (a sender's instance id, a receiver's answer, a
    table cell, a log line's words; review34): no line break of any kind (a newline ``\\n``, U+2028/U+2029, and VT,
    FF, CR, FS/GS/RS and NEL as the :data:`UNSAFE` controls they are), every control escaped (a tab ``\\t``, ESC
    ``\\x1b``), the bidi overrides and every :data:`INVISIBLE` and :data:`HIDDEN` character shown (``\\u202e``, ``\\u200b``); nothing
    removed, everything else as it is. The one rule for such a value. str in, str out. (:func:`one_line` keeps tabs
    and zero-width characters: the exports' lines, compared byte for byte with copies made before.)"""
    return translated(text, _table("line"))


def shell_word(value: str | os.PathLike) -> str:
    """``value`` (a root, a source or another path, a session id, a text to search) as one word of a command asz
    suggests (``asz parse --root …``, ``asz sources --reland …``, ``--reset-conflict …``), quoted for a POSIX shell
    by :func:`shlex.quote`: pasted, it is that one argument (``root with spaces`` reads ``'root with spaces'``; a word
    of letters, digits and ``@%+=:,./-`` stays as it is). str or path-like in, str out. The one function every
    suggested command's words go through (trial 33a F2: a root with a space was pasted as three arguments)."""
    import shlex  # only when a command is suggested

    return shlex.quote(os.fspath(value))


class EscapingStream:
    """A text stream (``stream``: stderr, a log file) every write to which has each :data:`UNSAFE` and
    :data:`INVISIBLE` character written as its escape (:data:`ESCAPES`: ESC ``\\x1b``, BEL ``\\x07``, U+202E
    ``\\u202e``; U+200B ``\\u200b``); newlines and tabs stay, nothing is removed. What ``asz receive`` writes its lines through, so that no word a sender chose (its
    ``service.instance.id``, a path it sent) steers the operator's terminal: a window title, a hidden link, a
    clipboard write (trial 34c F3). Other attributes are the stream's own."""

    def __init__(self, stream):
        self.stream = stream

    def write(self, text: str) -> int:
        self.stream.write(translated(text, _table("stream")))
        return len(text)

    def __getattr__(self, name: str):
        return getattr(self.stream, name)


class LineStream(EscapingStream):
    """A text stream each write to which is one line at most: :func:`line_value` of what it is given, but for a last
    newline, which stays (``print`` writes its text, then ``"\\n"``). What ``asz push`` prints its lines through,
    so that no word a receiver chose (its answer's reasons, an HTTP reason phrase, a gRPC status's details) steers
    the operator's terminal or writes a line of its own (fix35a)."""

    def write(self, text: str) -> int:
        body, end = (text[:-1], "\n") if text.endswith("\n") else (text, "")
        self.stream.write(line_value(body) + end)
        return len(text)
