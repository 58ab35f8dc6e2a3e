"""Build storage roots for the verify tests and the verify bench, in the documented layout.

Turns source lines into records with the ``ord``/``off``/``bytes``/``sha`` a
collector gives them (origin-digest §3.3: ``ord`` from 1, ``off`` the byte
where the line starts, ``bytes`` its size without the newline, ``sha`` the
first 12 hex of its SHA-256), lands them with :class:`SDWriter` under
``kind_dir`` / ``landed_name`` and commits an append cursor after the files,
as a collector does (origin-digest §2.1, §2.2). It is not the collector: it
lands whatever it is told, so a test can also land what a collector never
would.
"""

from __future__ import annotations

from pathlib import Path

import orjson

from asz_core.sessiondata import Header, Part, RawJSON, Record, SDWriter, compact, source_sha, unknown_part
from asz_core.storage import AppendCursor, SnapshotCursor, cursor_path, kind_dir, landed_name, write_cursor
from asz_core.storage.session_list import record_sessions

STAMP = "20260101T000000.000000000Z"
SNAPSHOT_KINDS = ("agent_meta", "workflow_manifest", "workflow_script")


def split_lines(data: bytes) -> list[tuple[int, int, bytes]]:
    """``(ord, off, line)`` for every complete line of ``data``, line without its newline.

    An unterminated last line is left out (a write in progress, origin-digest §2.2 step 5).
    """
    out = []
    off = 0
    n = 1
    while True:
        end = data.find(b"\n", off)
        if end < 0:
            return out
        out.append((n, off, data[off:end]))
        n += 1
        off = end + 1


def record_for(ord_: int, off: int, line: bytes) -> Record:
    """One record for one source line: a data part keeping the JSON, or an unknown part keeping the bytes."""
    try:
        orjson.loads(line)
        part = Part(k="data", data=RawJSON(compact(line)), bytes=len(line))
    except orjson.JSONDecodeError:
        part = unknown_part(line, "the record is not valid JSON")
    return Record(ord=ord_, off=off, sha=source_sha(line), bytes=len(line), from_="runtime", parts=[part])


class RootBuilder:
    """Lands files of sessions into ``root``; seq runs per session from 1, as the collector numbers them."""

    def __init__(self, root: Path, *, stamp: str = STAMP, fsync: bool = False):
        self.root = Path(root)
        self.stamp = stamp
        self.fsync = fsync
        self.seq: dict[str, int] = {}

    def _next_seq(self, session: str) -> int:
        self.seq[session] = self.seq.get(session, 0) + 1
        return self.seq[session]

    def land(self, session: str, kind: str, records: list[Record], *, stream: str = "", batch: str = "", src: str = "src.jsonl") -> Path:
        """Land one file holding ``records``; returns its path."""
        seq = self._next_seq(session)
        run_kind = kind in ("journal", "workflow_manifest", "workflow_script")
        header_stream = "" if run_kind or kind == "provider_body" else (stream or "main")
        header = Header(kind=kind, session=session, src=src, dialect="mock/1", adapter="mock/0.2.0", seq=seq,
                        at="2026-01-01T00:00:00Z", stream=header_stream, batch=batch)
        d = kind_dir(self.root, session, kind, stream=stream, batch=batch)
        d.mkdir(parents=True, exist_ok=True)
        path = d / landed_name(kind, self.stamp, seq)
        with SDWriter(path, header, fsync=self.fsync) as w:
            for r in records:
                w.write(r)
            w.close()
        if seq == 1:  # a writer that lands a session's first file gives it its line in the root's list, as collect does
            record_sessions(self.root, [path.relative_to(self.root).parts[0]], fsync=self.fsync)
        return path

    def land_stream(self, session: str, data: bytes, *, kind: str = "transcript", stream: str = "main", batch: str = "",
                    per_file: int = 0, max_bytes: int = 0, cursor: bool = True, src: str = "") -> list[Path]:
        """Land the complete lines of ``data`` as a stream of files and commit the append cursor.

        A file is cut after ``per_file`` records or once it holds ``max_bytes``
        of record lines (0: no limit). Returns the landed paths in seq order.
        """
        src = src or f"{session}/{stream or batch}.jsonl"
        lines = split_lines(data)
        paths: list[Path] = []
        batch_recs: list[Record] = []
        size = 0
        for ord_, off, line in lines:
            rec = record_for(ord_, off, line)
            batch_recs.append(rec)
            size += len(line) + 64
            if (per_file and len(batch_recs) >= per_file) or (max_bytes and size >= max_bytes):
                paths.append(self.land(session, kind, batch_recs, stream=stream, batch=batch, src=src))
                batch_recs, size = [], 0
        if batch_recs:
            paths.append(self.land(session, kind, batch_recs, stream=stream, batch=batch, src=src))
        if cursor:
            last_ord, last_off, last_line = lines[-1] if lines else (0, 0, b"")
            offset = last_off + len(last_line) + 1 if lines else 0
            write_cursor(cursor_path(paths[0].parent if paths else kind_dir(self.root, session, kind, stream, batch), kind),
                         AppendCursor(source=src, offset=offset, ord=last_ord, size=offset, last_seq=self.seq.get(session, 0)),
                         fsync=self.fsync)
        return paths

    def land_snapshot(self, session: str, kind: str, doc: bytes, *, stream: str = "", batch: str = "") -> Path:
        """Land one document as one record at ord 1, off 0, and commit its snapshot cursor."""
        rec = record_for(1, 0, doc)
        path = self.land(session, kind, [rec], stream=stream, batch=batch, src=f"{session}/{kind}.json")
        write_cursor(cursor_path(path.parent, kind), SnapshotCursor(source=f"{session}/{kind}.json", last_seq=self.seq[session]), fsync=self.fsync)
        return path


def jsonl(n: int, *, start: int = 1, width: int = 40) -> bytes:
    """``n`` JSON lines of a synthetic transcript (each about ``width`` bytes of text)."""
    out = []
    for i in range(start, start + n):
        out.append(orjson.dumps({"type": "user" if i % 2 else "assistant", "uuid": f"u-{i:06d}", "n": i, "text": ("x" * (i % width)) + " <&> é"}))
    return b"\n".join(out) + b"\n"


# --------------------------------------------------------------------------- damage, for the tests


def closing_for(body: bytes, records: int) -> bytes:
    """The closing line (with newline) that binds ``body`` (header and record lines, each with its newline)."""
    import hashlib

    return b'{"t":"end","records":%d,"digest":"%s"}\n' % (records, hashlib.sha256(body).hexdigest().encode())


def overwrite(path: Path, data: bytes) -> None:
    """Replace a landed file's bytes and put its read-only mode back, so only the content differs."""
    import os

    os.chmod(path, 0o644)
    path.write_bytes(data)
    os.chmod(path, 0o444)


def edit_records(path: Path, edit, *, fix_closing: bool) -> None:
    """Apply ``edit(list_of_record_lines) -> list_of_record_lines`` (lines with newlines) to a landed file.

    With ``fix_closing`` the closing line is recomputed, so only contiguity can tell.
    """
    lines = path.read_bytes().splitlines(keepends=True)
    header, records, closing = lines[0], lines[1:-1], lines[-1]
    records = edit(records)
    body = header + b"".join(records)
    overwrite(path, body + (closing_for(body, len(records)) if fix_closing else closing))


def change_byte(path: Path, pos: int, value: int) -> None:
    """Set the byte at ``pos`` of a landed file to ``value``."""
    data = bytearray(path.read_bytes())
    data[pos] = value
    overwrite(path, bytes(data))


def land_executions(root: Path, work: Path, cwd: Path, run=None) -> int:
    """Land one MCP call's execution record per session of ``root`` that holds none, as Claude Code's hook and the
    collector land it (the real ``asz hook --data work/hookdata``, then ``asz collect --once --adapter changes``), and
    parse again; how many were written. The call is the first call part of the session's main transcript, its tool
    named ``mcp__bench__<name>`` and sent its own input. For the verify bench and the tests of a root with MCP
    execution records; the commands run in ``cwd`` (the checkout), each a real process started by ``run`` (default
    :func:`subprocess.run`, a fresh interpreter; a test gives ``forked.run``)."""
    import json
    import subprocess
    import sys

    run = run or subprocess.run

    from asz_core.storage import landed_files, session_dirs

    data = work / "hookdata"
    asz = [sys.executable, "-m", "asz_core.cli.main"]
    n = 0
    for sdir in session_dirs(root):
        if any(name.kind == "execution" for name, _ in landed_files(sdir)):
            continue
        part = None
        for path in sorted((sdir / "streams" / "main").glob("transcript-*.sd")):
            for line in path.read_bytes().split(b"\n")[1:-2]:
                if b'"k":"call"' in line:
                    part = next((p for p in json.loads(line).get("parts") or () if p.get("k") == "call" and p.get("id")), None)
                if part:
                    break
            if part:
                break
        if part is None:
            continue
        event = {"session_id": sdir.name, "hook_event_name": "PostToolUse", "tool_use_id": part["id"],
                 "tool_name": f"mcp__bench__{part.get('name') or 'tool'}", "tool_input": part.get("data"),
                 "tool_response": [{"type": "text", "text": "ok"}], "duration_ms": 1, "cwd": "/bench",
                 "mcp_server": {"name": "bench", "source": "dynamic"}}
        run([*asz, "hook", "--data", str(data)], check=True, cwd=cwd, input=json.dumps(event).encode())
        n += 1
    if n:
        run([*asz, "collect", "--once", "--adapter", "changes", "--source", str(data), "--root", str(root)],
            check=True, cwd=cwd, stdout=subprocess.DEVNULL)
        run([*asz, "parse", "--root", str(root)], check=True, cwd=cwd, stdout=subprocess.DEVNULL)
    return n


def typer_passes(command, args: list[str]) -> dict:
    """The keyword arguments Typer calls the command function ``command`` with for the command line ``args`` (a command
    of the same signature that records them, named ``verify`` beside a second command, as in asz)."""
    import functools

    import typer
    from typer.testing import CliRunner

    seen: dict = {}

    @functools.wraps(command)
    def record(**kwargs):
        seen.update(kwargs)

    app = typer.Typer()
    app.command("verify")(record)
    app.command("other")(lambda: None)  # two commands: ``verify`` is named on the command line, as in asz
    got = CliRunner().invoke(app, ["verify", *args])
    assert got.exit_code == 0, got.output
    return seen
