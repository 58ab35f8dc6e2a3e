"""The ``key value`` state format (``session.state``, ``index/index.state``, a chain's state, the cursors,
``push.state``): one line splitter (:func:`_split`) for the writers' readers (:func:`asz_core.storage.root.read_state`,
lenient), ``asz verify`` (:func:`parse_state`: the first line that does not read, :mod:`asz_core.verify.session_files`)
and the strict readers of the cursors, ``push.state`` and a repack's cursor copy (:func:`state_rows`: raises naming
file and line; each checks its own keys and names the field).

Imports nothing but the standard library, so ``asz view`` can check state files before it answers.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["StateLines", "StateRow", "parse_state", "state_rows"]


class StateLines(NamedTuple):
    """What a state file's bytes say: ``values`` (key -> value stripped; every line that is not blank or a ``#``
    comment, a line with no value giving ''; {} when the bytes are not UTF-8) and the first line that does not read
    as the format says, ``line`` (1-based; 0 when every line reads) with ``why`` (what is wrong with it; '' then);
    ``rows``: key -> the line its value was read from (to name the line of a value that does not read)."""

    values: dict[str, str]
    line: int
    why: str
    rows: dict[str, int]


class StateRow(NamedTuple):
    """One ``key value`` line of a state file: ``line`` (1-based), ``key``, ``value`` (stripped; '' when none)."""

    line: int
    key: str
    value: str


def _split(raw: bytes) -> tuple[str, str]:
    """``(key, value)`` of one decoded, stripped line: split on the first space, the value stripped. Raises
    UnicodeDecodeError."""
    key, _, value = raw.decode("utf-8").strip().partition(" ")
    return key, value.strip()


def state_rows(data: bytes, path: object = "") -> list[StateRow]:
    """Every ``key<spaces>value`` line of a state file's bytes, in file order, repeated keys kept (``push.state``'s
    ``pushed`` lines); blank and ``#`` lines skipped. The strict reader of the cursors (``<kind>.cursor``,
    origin-digest §2.2), ``push.state`` (§9.6) and a repack's cursor copy: each then checks its own keys.

    Raises ValueError naming ``path`` and the line: ``<path>: line N: cut short: …`` for a last line with no newline,
    ``<path>: line N: not UTF-8 at byte B of the line``, ``<path>: line N: <key>: not a printable ASCII key``."""
    rows: list[StateRow] = []
    if data and not data.endswith(b"\n"):
        last = data.count(b"\n") + 1
        raise ValueError(f"{path}: line {last}: cut short: the last line has no newline "
                         "(the file is written whole, then renamed)")
    try:  # decoded whole: a newline byte is never inside a UTF-8 character, so each line reads as it would alone
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = None  # line by line below, to name the line that is not UTF-8
    if text is not None:  # what the loop below does, without a decode and a call a line (verify reads every cursor)
        append, row = rows.append, tuple.__new__  # row(StateRow, (n, key, value)) is StateRow(n, key, value), made in C
        for n, line in enumerate(text.split("\n"), 1):
            key, _, value = line.strip().partition(" ")
            if not key or key[0] == "#":
                continue
            if not key.isascii() or not key.isprintable():
                raise ValueError(f"{path}: line {n}: {key[:40]!r}: not a printable ASCII key: the file is damaged")
            append(row(StateRow, (n, key, value.strip())))
        return rows
    for n, raw in enumerate(data.split(b"\n"), 1):
        try:
            key, value = _split(raw)
        except UnicodeDecodeError as exc:
            raise ValueError(f"{path}: line {n}: not UTF-8 at byte {exc.start} of the line: the file is damaged") from None
        if not key or key.startswith("#"):
            continue
        if not key.isascii() or not key.isprintable():
            raise ValueError(f"{path}: line {n}: {key[:40]!r}: not a printable ASCII key: the file is damaged")
        rows.append(StateRow(n, key, value))
    return rows


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
            key, value = _split(raw)
        except UnicodeDecodeError as exc:
            utf8 = False
            if not bad:
                bad, why = n, f"not UTF-8 at byte {exc.start} of the line"
            continue
        if not key or key.startswith("#"):
            continue
        values[key], rows[key] = value, n
        if not bad and (not value or not key.isascii() or not key.isprintable()):
            line = raw.decode("utf-8").strip()
            bad, why = n, f"not a 'key value' line: {line[:40]!r}"
    return StateLines(values if utf8 else {}, bad, why, rows if utf8 else {})
