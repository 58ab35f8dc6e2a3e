"""A command's password read to its end as the shell reads the word it stands in (forms 9, session 49: trial 49a F1).

The forms of :mod:`asz_core.view.secret_kinds` that find a password given to a command (``mysql -p…``, ``curl -u
USER:…``, ``sshpass -p …``, ``docker login -p …``, ``redis-cli -a …``, a flag's ``--password …`` or ``--password=…``)
take a value up to a character no password of a name usually holds (``&``, ``(``, a space). A shell reads the word
otherwise, and a half-masked value shows its tail (``curl -u admin:***&3xK9``): so the value found is read on to the
end of its shell word (:func:`shell_end`):

- inside quotes (the quote before the value, or before ``USER:`` of curl's ``-u``), to the closing quote: a single
  quote's literally, a double quote's over a backslash-escaped ``\\"``, a JSON text's ``\\"`` to the next ``\\"``;
  256 characters at most, never over a line's end;
- unquoted (or a quote left open), up to white space, a quote, a code mark, ``;``, ``|``, ``<`` or ``>``: an ``&``,
  ``(`` or ``)`` inside the run is taken with it. An unquoted ``&`` ends a command in bash (``-pTr0ub4dor&3xK9``
  runs ``-pTr0ub4dor`` in the background), but a person who typed it meant one password and the text holds the rest:
  a value over-masked is better than a half-masked one. A backslash before a character other than white space, a
  quote, a backslash or a JSON escape's letter (``\\&``) keeps it in the word.

The value found first still passes its form's guard as before; only its end moves (never back).
"""

from __future__ import annotations

import re

__all__ = ["SHELL_READ", "SHELL_CHAR", "shell_end"]

#: The forms whose value is a command's word, read to its end (:func:`shell_end`); ``password`` only where its name is
#: a command's flag (``--password VALUE``, ``--password=VALUE``: group ``flag`` or ``dash`` set).
SHELL_READ = frozenset({"mysql-password", "curl-password", "sshpass-password", "docker-password", "redis-password",
                        "password"})
#: An unquoted shell word's characters, the one spelling (:mod:`asz_core.view.secret_kinds`' command values match
#: them too): none of white space, a quote, a code mark, ``;``, ``|``, ``<``, ``>``; a backslash only before a
#: character it escapes in the shell and no JSON escape stands for (``\\&``, ``\\!``, ``\\$``), or, in a JSON text,
#: its escaped backslash before one (``Ws2\\\\$Ed4`` of a tool input for ``Ws2\\$Ed4``: forms 11).
SHELL_CHAR = r"(?:[^\s\"'`;|<>\\]|\\[^\s\\\"'nrtu]|\\\\(?:[^\s\\\"']|\\\\))"
#: The rest of an unquoted shell word (:data:`SHELL_CHAR`).
_UNQUOTED = re.compile(SHELL_CHAR + "*")
#: How far a quoted value is read for its closing quote.
_QUOTED_MOST = 256


def _closing(text: str, b: int, q: str) -> int | None:
    """Where the quote ``q`` that opened a value closes at or after ``b`` (the closing quote's offset), or None: no
    closing quote within :data:`_QUOTED_MOST` characters of the line."""
    stop = min(len(text), b + _QUOTED_MOST)
    i = b
    while i < stop:
        c = text[i]
        if c in "\r\n":
            return None
        if q == '"' and c == "\\" and i + 1 < stop and text[i + 1] in '"\\':
            i += 2
            continue
        if q == '\\"' and text.startswith('\\\\\\"', i):  # a JSON text's \\\" (the shell's \" inside quotes: forms 11)
            i += 4
            continue
        if q == '\\"' and text.startswith("\\\\", i):  # a JSON text's escaped backslash
            i += 2
            continue
        if text.startswith(q, i) if q != "\\'" else c == "'":
            return i
        if q in ('\\"', "\\'") and text.startswith("\\n", i):
            return None
        i += 1
    return None


def shell_end(m: re.Match, name: str, b: int) -> int:
    """Where the value of a match ``m`` of form ``name`` ending at ``b`` ends read as its shell word (the module's
    rules): ``b`` itself for a form not of :data:`SHELL_READ`, or a ``password`` given to a name that is no flag."""
    groups = m.re.groupindex
    if name not in SHELL_READ or (name == "password" and not (m.group("flag") or m.group("dash") is not None)):
        return b
    q = m.group("q") if "q" in groups else None
    if q:
        close = _closing(m.string, b, q)
        if close is not None:
            return max(b, close)
    return max(b, _UNQUOTED.match(m.string, b).end())
