"""The ``key value`` state format (``session.state``, ``index/index.state``, a chain's state): one parser for the
writers' readers (:func:`asz_core.storage.root.read_state`, lenient) and for ``asz verify`` (strict: the first line
that does not read, :mod:`asz_core.verify.session_files`).

Imports nothing but the standard library, so ``asz view`` can check state files before it answers.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["StateLines", "parse_state"]


class StateLines(NamedTuple):
    """What a state file's bytes say: ``values`` (key -> value stripped; every line that is not blank or a ``#``
    comment, a line with no value giving ''; {} when the bytes are not UTF-8) and the first line that does not read
    as the format says, ``line`` (1-based; 0 when every line reads) with ``why`` (what is wrong with it; '' then);
    ``rows``: key -> the line its value was read from (to name the line of a value that does not read)."""

    values: dict[str, str]
    line: int
    why: str
    rows: dict[str, int]


def parse_state(data: bytes) -> StateLines:
    """Read ``key<spaces>value`` lines (written whole, each ending in a newline; ``#`` starts a comment line).

    The first bad line is, in this order: the last one when it has no newline (a file cut short), else the first
    that is not UTF-8, or whose key is not printable ASCII or that has no value."""
    values: dict[str, str] = {}
    rows: dict[str, int] = {}
    bad, why = 0, ""
    if data and not data.endswith(b"\n"):
        bad, why = data.count(b"\n") + 1, "cut short: the last line has no newline (the file is written whole, then renamed)"
    utf8 = True
    for n, raw in enumerate(data.split(b"\n"), 1):
        try:  # line by line: a newline byte is never inside a UTF-8 character, so this reads the file as a whole would
            line = raw.decode("utf-8").strip()
        except UnicodeDecodeError as exc:
            utf8 = False
            if not bad:
                bad, why = n, f"not UTF-8 at byte {exc.start} of the line"
            continue
        if not line or line.startswith("#"):
            continue
        key, _, value = line.partition(" ")
        values[key], rows[key] = value.strip(), n
        if not bad and (not value.strip() or not key.isascii() or not key.isprintable()):
            bad, why = n, f"not a 'key value' line: {line[:40]!r}"
    return StateLines(values if utf8 else {}, bad, why, rows if utf8 else {})
