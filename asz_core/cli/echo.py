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
from contextlib import contextmanager
from typing import Iterator

__all__ = ["echo", "stderr_outlived"]

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


class _Outlived:
    """A stream (``sys.stderr``, or its ``buffer``) whose reader may go away while a command's work is not done: the
    first write or flush that meets a closed pipe points its file descriptor at /dev/null and every later one goes
    there, so the work goes on and ends with its own exit (:func:`stderr_outlived`). Everything else is the stream's."""

    def __init__(self, stream) -> None:
        self._stream, self.gone = stream, False

    def _went(self) -> None:
        import os

        self.gone = True
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, self._stream.fileno())
        finally:
            os.close(devnull)

    def write(self, data):
        try:
            return self._stream.write(data)
        except BrokenPipeError:
            self._went()
            return len(data)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except BrokenPipeError:
            self._went()

    @property
    def buffer(self):
        return _Outlived(self._stream.buffer)

    def __getattr__(self, name: str):
        return getattr(self._stream, name)


@contextmanager
def stderr_outlived(when: bool = True) -> Iterator[None]:
    """Inside the block a standard error whose reader went away (``asz export ID --out F 2>&1 | head -1``) loses what
    is said on it, never the work: an export to files writes each copy and its manifest whole and exits as it would
    have (trial 39c F3: it ended at the first line, exit 0, with no manifest). Standard output is left as it is; nothing
    changes when ``when`` is false."""
    was = sys.stderr
    if was is None or not when:
        yield
        return
    sys.stderr = _Outlived(was)
    try:
        yield
    finally:
        sys.stderr.flush()
        sys.stderr = was
