"""One line of text to stdout or stderr, byte for byte as ``typer.echo`` writes it, without importing Typer (issue 22:
``asz verify``'s light start, :mod:`asz_core.cli.verify_run`).

:func:`echo` is Click's ``echo`` (which ``typer.echo`` is) for a ``str`` on the standard streams: the message and a
newline; ANSI style codes (``ESC [`` digits ``;`` ``?`` and a letter) removed when the stream is not a terminal; a
stream whose encoding is ASCII written through its binary buffer as UTF-8 (errors replaced), as Click's
``_force_correct_text_writer`` does; flushed. Every line ``asz verify`` prints goes through it,
on its light path and through Typer alike, so the two cannot differ (``tests/cli/test_echo.py`` holds it to
``typer.echo`` on a pipe, a stream of ASCII encoding and a message holding an escape).
"""

from __future__ import annotations

import re
import sys

__all__ = ["echo"]

#: Click's ``_ansi_re``: the ANSI style codes it removes from what goes to a stream that is not a terminal.
_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")


def _ascii(stream) -> bool:
    """Whether ``stream``'s encoding is ASCII (Click's ``_stream_is_misconfigured``: no encoding counts as ASCII)."""
    import codecs

    try:
        return codecs.lookup(getattr(stream, "encoding", None) or "ascii").name == "ascii"
    except LookupError:
        return False


def echo(message: str, err: bool = False) -> None:
    """Write ``message`` and a newline to ``sys.stdout`` (``sys.stderr`` with ``err``) as ``typer.echo`` does, and
    flush; nothing when the stream is None. Raises what the stream's write raises (``BrokenPipeError`` on a pipe its
    reader closed: :func:`asz_core.cli.entry.guarded` makes that exit 0)."""
    stream = sys.stderr if err else sys.stdout
    if stream is None:
        return
    out = message + "\n"
    try:
        terminal = stream.isatty()
    except Exception:
        terminal = False
    if not terminal:
        out = _ANSI.sub("", out)
    buffer = getattr(stream, "buffer", None)
    if buffer is not None and _ascii(stream):  # Click writes UTF-8 (errors replaced) under a stream of ASCII encoding
        stream.flush()
        buffer.write(out.encode("utf-8", "replace"))
        buffer.flush()
        return
    stream.write(out)
    stream.flush()
