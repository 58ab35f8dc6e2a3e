"""HTML character references read as the characters they stand for (session 44, fix44b): a text holding them (an
escaped page a tool read) is searched for credentials as its characters, each finding's span then given over the
references it was read from (:func:`~asz_core.view.secret_forms.find`). Moved out of ``secret_forms`` (review44:
that module past 600 lines)."""

from __future__ import annotations

import re
from bisect import bisect_right
from html.entities import html5

__all__ = ["ENTITY", "entity", "entities_read"]


#: An HTML character reference with its ``;``: a name (HTML5's, ``&quot;``, ``&amp;``, ``&rdquo;``), a decimal or a
#: hexadecimal number (``&#34;``, ``&#x27;``). One without its ``;`` is read as written (``?a=1&para=2`` is a query).
ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")


def entity(ref: str) -> str | None:
    """The characters HTML character reference ``ref`` (``&quot;``, ``&#34;``) stands for, or None for a name HTML5
    does not define or a number that is no character (a surrogate, 0, past U+10FFFF)."""
    if ref[1] != "#":
        return html5.get(ref[1:])
    n = int(ref[3:-1], 16) if ref[2] in "xX" else int(ref[2:-1])
    return chr(n) if 0 < n <= 0x10FFFF and not 0xD800 <= n <= 0xDFFF else None


def entities_read(text: str):
    """``(plain, source)``: ``text`` with each HTML character reference (:data:`ENTITY`) read as the characters it
    stands for, and ``source(i)``, the ``(start, end)`` in ``text`` that character ``i`` of ``plain`` was read from (a
    reference's whole); None when ``text`` holds no reference."""
    parts, marks, at, shift = [], [], 0, 0  # marks: (index in plain, start in text, characters, end in text)
    for m in ENTITY.finditer(text):
        if (chars := entity(m.group())) is None:
            continue
        parts += [text[at:m.start()], chars]
        marks.append((m.start() - shift, m.start(), len(chars), m.end()))
        shift += m.end() - m.start() - len(chars)
        at = m.end()
    if not marks:
        return None
    starts = [k[0] for k in marks]

    def source(i: int) -> tuple[int, int]:
        k = bisect_right(starts, i) - 1
        if k < 0:
            return i, i + 1
        d, a, n, b = marks[k]
        return (a, b) if i < d + n else (b + i - d - n, b + i - d - n + 1)

    return "".join(parts) + text[at:], source
