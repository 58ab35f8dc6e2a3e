"""What ``asz export`` writes beside its rendering (asz_core.cli.export_cmd): prose lines in their form
(:func:`lines_written`), several conversations as one stream into one file, whole or not at all (:func:`stream_to`),
and a conversation over ``--max-tokens`` in parts (:func:`write_parts`, ``--split``: trial 27b F5)."""

from __future__ import annotations

import errno
import glob
import os
import re
import sys
from contextlib import contextmanager
from pathlib import Path

import orjson
import typer

from ..storage.out_path import put_in_place, refuse_odd, written_at
from .export_made import copy_manifest
from .export_said import over_budget

__all__ = ["LOCK", "PART", "earlier", "file_lock", "lines_written", "part_in_place", "said_path", "stream_to", "to_stdout", "write_parts"]

#: The lock file beside an export's ``--out FILE`` (:func:`file_lock`): ``FILE.lock``.
LOCK = ".lock"
#: The file an export's bytes go to before they replace ``--out FILE`` (:func:`part_in_place`): ``FILE.part``.
PART = ".part"


def lines_written(lines: list[dict], fmt: str) -> bytes:
    """Prose lines as ``fmt`` writes them: one JSON object a line (prose; DEL, C1 and the bidi overrides as JSON
    escapes: :func:`~asz_core.reading.termtext.json_visible`), or the audit form as plain text (text,
    :func:`~asz_core.reading.prose_text.to_text`)."""
    if fmt == "text":
        from ..reading.prose_text import to_text

        return to_text(lines)
    from ..reading.termtext import json_visible  # U+202E and C1 as JSON escapes, the same values (trial 34c F9)

    return b"".join(json_visible(orjson.dumps(t)) + b"\n" for t in lines)


def stream_to(file: Path, write, then=lambda: None) -> tuple[int, int]:
    """``write(stream)`` (:func:`_many` of several conversations as one stream) into ``file``, whole or not at all: the
    bytes go to ``FILE.part``, which replaces ``file`` only once every conversation is in it; a file replaced is said,
    as a single conversation's is (trial 12), then ``wrote FILE (N bytes)``, then ``then()`` runs (its manifest), all
    under :func:`file_lock` (a second export to ``file`` meanwhile: exit 1). Ctrl-C (or an error) leaves ``file`` as
    it was and removes the ``.part`` (:func:`part_in_place`). ``file`` a symbolic link to a regular file: its target is
    written (:func:`~asz_core.storage.out_path.written_at`), the link stays; anything else but a regular file or
    nothing: :class:`~asz_core.storage.out_path.NotRegular`, nothing written (trial 47b F1)."""
    return _in_place(file, write, then, "stream")


def file_to(file: Path, data: bytes, then=lambda: None) -> None:
    """One conversation's copy ``data`` into ``file`` as :func:`stream_to` writes a stream (``FILE.part`` replacing
    it, a link's target written, said, then ``then()``: its manifest), under :func:`file_lock`. Raises OSError
    (:class:`~asz_core.storage.out_path.NotRegular`: not a regular file), typer.Exit (1: another export writes it)."""
    _in_place(file, lambda stream: stream.write(data), then)


def _in_place(file: Path, write, then, point: str = ""):
    """:func:`stream_to` and :func:`file_to`'s one way: ``write(stream)`` replacing the file ``file`` names (its
    target when it is a symbolic link to a regular file), under :func:`file_lock`, then said (:func:`_said`); what
    ``write`` returned (``point``: :func:`part_in_place`'s)."""
    dest = written_at(file) or file
    with file_lock(dest):
        got, before = part_in_place(dest, write, point)
        _said(file, before, then, dest)
    return got


def part_in_place(file: Path, write, point: str = "") -> tuple:
    """``write(stream)`` into ``FILE.part`` (:func:`part_open`), which then replaces ``file``: ``(what write returned,
    the size in bytes ``file`` had before, None when there was none)``. Anything raised from the open on (Ctrl-C,
    SIGTERM, a full disk) removes the ``.part`` (never a link planted there) and leaves ``file`` as it was (session 41:
    a stop as the open returned, before the ``try`` that removed it, left the ``.part``). ``point``: the test hook
    :func:`~asz_core.reading.export_manifest.stop_for_test` reached with the ``.part`` whole, not yet in place."""
    from ..reading.export_manifest import stop_for_test
    from ..storage.root import gone_if_raised

    refuse_odd(file)  # a FIFO, a device, a link (a folder export's own names): nothing written (trial 47b F1)
    part = file.with_name(file.name + PART)
    with gone_if_raised(part):
        with part_open(part) as stream:
            got = write(stream)
        if point:
            stop_for_test(point)
        before = file.stat().st_size if file.is_file() else None
        put_in_place(part, file)
    return got, before


def _said(file: Path, before: int | None, then, dest: Path) -> None:
    """``then()`` (the copy's manifest, written before a word is said: trial 39c F3), then a file replaced (``before``:
    its size) is said, never silent (trial 12), and ``wrote FILE (N bytes)``, with ``; through the symbolic link to
    DEST, which stays`` when ``file`` is a link whose target ``dest`` was written."""
    then()
    if before is not None:
        typer.echo(f"asz export: replaced {file} (the {before:,} bytes it held)", err=True)
    via = f"; through the symbolic link to {dest}, which stays" if dest != file else ""
    typer.echo(f"wrote {file} ({file.stat().st_size:,} bytes{via})", err=True)


@contextmanager
def file_lock(out: Path):
    """Hold the export to the file ``out`` alone (trial 39a F1: two exports to one ``--out day.txt`` at once shared
    ``day.txt.part``: one said ``wrote`` while the file on disk mixed both days, the other failed): a
    :class:`~asz_core.storage.root.FileLock` on ``OUT.lock`` (:data:`LOCK`, holding ``pid N, started TS``, UTC) for
    the export's life (its copy and manifest written), removed at its end; a kill -9 leaves the file, never the lock
    (the kernel releases it). A second export to ``out`` meanwhile writes nothing and ends with exit 1 (typer.Exit),
    naming the one at work; a symbolic link at ``OUT.lock`` is never followed: exit 1 naming it (review 40). Nothing is
    locked where the system has no flock (Windows). Raises OSError when the lock file cannot be made."""
    try:
        import fcntl  # noqa: F401  (the storage locks need it)
    except ImportError:
        yield
        return
    from ..storage.root import FileLock, LockBusy

    try:
        lock = FileLock(out.with_name(out.name + LOCK), note="pid {pid}, started {started}", remove=True).acquire()
    except OSError as e:
        _linked(out.with_name(out.name + LOCK), e)
        raise
    except LockBusy as busy:
        typer.echo(f"asz export: another asz export ({busy.holder or 'its pid unknown'}) is writing {out}: nothing "
                   "written; run this one again once it has ended", err=True)
        raise typer.Exit(1) from None
    with lock:
        yield


def part_open(part: Path):
    """``part`` (an export's ``FILE.part``) opened to write, emptied, binary, never through a symbolic link (``O_NOFOLLOW``
    where the system has it; review 40: a link planted at ``OUT.part`` in a writable folder had its target truncated):
    a link there ends the export with exit 1 (typer.Exit) naming it, its target untouched. Raises OSError otherwise."""
    from ..storage.out_path import temp_open

    try:  # the one way a temporary name is opened (out_path.temp_open: O_NOFOLLOW)
        return temp_open(part, 0o644)
    except OSError as e:
        _linked(part, e)
        raise


def _linked(path: Path, e: OSError) -> None:
    """Exit 1 (typer.Exit) saying ``path`` is a symbolic link asz does not write through, when ``e`` says so (ELOOP, or
    the link seen after an error of another kind); else nothing (the caller raises ``e``)."""
    if e.errno == errno.ELOOP or path.is_symlink():
        typer.echo(f"asz export: {path} is a symbolic link: nothing written (asz never writes through a link there; "
                   "remove it and export again)", err=True)
        raise typer.Exit(1) from None


def write_parts(r: Path, cid: str, out: Path, fmt: str, hide: list[str], thinking: bool, prose,
                 replaced: list[str]) -> list[str]:
    """Write ``prose.parts`` (the last render's, :func:`~asz_core.reading.export_parts.split_lines`) into ``out`` as
    ``ID.part1.EXT``, ``ID.part2.EXT``, … each whole or absent, each masked copy with its manifest (its ``made``
    naming the part: :func:`~asz_core.cli.export_made.made`); one still over the budget (a line alone) is said. The
    conversation's files of an earlier export not written again (its whole ``ID.EXT``, parts past the last) are
    removed (:func:`earlier`) and, with those written again, added to ``replaced``. Returns the parts' names, in
    order (the index page links each: 27b, it linked only the first)."""
    from ..reading.export_manifest import mask_places

    names = [f"{cid}.part{k}.{_ext(fmt)}" for k in range(1, len(prose.parts) + 1)]
    replaced += earlier(out, cid, fmt, names)
    for k, (name, data) in enumerate(zip(names, prose.parts), 1):
        part_in_place(out / name, lambda stream, data=data: stream.write(data))
        if True:  # every file gets its manifest, masked or not (trial 29a F6)
            prose.masks, prose.part = mask_places(data, prose.seen) if prose.redact else [], k
            try:
                copy_manifest(r, cid, out / name, data, fmt, hide, thinking, prose)
            finally:
                prose.part = None
        over_budget(prose, out / name, len(data), fmt, part=True)
    typer.echo(f"asz export: {cid[:8]}: over --max-tokens {prose.max_tokens:,}: written in {len(names)} parts, "
               f"{names[0]} .. {names[-1]}", err=True)
    return names


def earlier(out: Path, cid: str, fmt: str, keep: list[str]) -> list[str]:
    """The names of conversation ``cid``'s files of an earlier export in the folder ``out`` (``ID.EXT`` and
    ``ID.partN.EXT`` of ``fmt``), sorted: those in ``keep`` (about to be written again) are left to be replaced, the
    others are removed with their manifests, so the folder never holds a whole file beside its parts, nor a part of
    an earlier split (``--split``, ``--max-tokens``) beside the file or the parts written now. Raises OSError when one
    cannot be removed."""
    ext = _ext(fmt)
    found = [f.name for f in out.glob(f"{glob.escape(cid)}.*{ext}")
             if re.fullmatch(rf"{re.escape(cid)}(\.part[1-9][0-9]*)?\.{ext}", f.name) and f.is_file()]
    for name in found:
        if name not in keep:
            (out / name).unlink()
            (out / f"{name}.manifest.json").unlink(missing_ok=True)
    return sorted(found)


def to_stdout(data: bytes, fmt: str) -> None:
    """Write an export's bytes to stdout: as they are to a pipe or a file; to a terminal, each control and bidi
    character a transcript holds is written as its escape, as ``asz ls``, ``asz conversation`` and ``asz search``
    print them (docs/reading.md, Control characters), so a hostile prompt, folder or branch name cannot retitle,
    clear or link the reader's terminal (trial 18, F-a). JSON and prose lines get JSON escapes (the same values)."""
    if sys.stdout.isatty():
        from ..reading.termtext import visible

        data = visible(data.decode("utf-8", "replace"), json=fmt in ("json", "prose")).encode("utf-8")
    sys.stdout.buffer.write(data)


def _ext(fmt: str) -> str:
    """The file extension of ``fmt`` (:data:`~asz_core.cli.export_cmd.EXT`)."""
    from .export_cmd import EXT

    return EXT[fmt]


def said_path(out: Path, failed) -> object:
    """The path a user is told could not be written: ``failed`` (an OSError's filename), but ``out`` itself when
    ``failed`` is one of the export's own files beside it (``OUT.lock``, ``OUT.part``: trial 43c F10 was told
    ``cannot write /proc/x.html.lock`` for ``--out /proc/x.html``), or when the error names none."""
    if failed is None:
        return out
    name = os.fsdecode(failed)
    if name in (str(out) + LOCK, str(out) + PART):
        return out
    return name
