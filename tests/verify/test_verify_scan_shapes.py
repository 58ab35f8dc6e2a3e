"""The default scan and ``--deep`` name the same problems for lines of every shape, on files the collector landed.

``asz verify`` reads each record line's positions from its front and decodes
in full only a line that does not start with them or does not end its object
on its last byte (docs/verify.md, What is checked). Each case here damages one
record row of the largest transcript file landed from the shared Claude Code
corpus (lines of about 2.6 KB): its positions changed, a raw newline put inside
a string, a CRLF line end, an empty line, its positions taken out. Each is
checked twice: as damage after landing (the closing line left as it was, so
its digest fails) and as a writer's mistake (the closing line recomputed, so
only the lines themselves can tell). The expected problems are worked out from
where the damage was put and the rules of docs/verify.md, never asked of the
code; both ways of reading (the scan, in whole files and cut into 4,097-byte
chunks, and ``--deep``) must give exactly them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from verify_landing import closing_for, overwrite

import asz_core.verify.landed as landed
from asz_core.verify.walk import verify_file, verify_root

PREFIX = re.compile(rb'^\{"ord":(\d+),"off":\d+,"sha":"[0-9a-f]{12}","bytes":\d+,')


@pytest.fixture(scope="module")
def corpus_root(corpus_copy, tmp_path_factory) -> Path:
    return corpus_copy(tmp_path_factory.mktemp("shapes") / "root")


def _largest_transcript(root: Path) -> Path:
    return max(root.glob("*/streams/*/transcript-*.sd"), key=lambda p: p.stat().st_size)


def _damage(lines: list[bytes], case: str, row: int) -> tuple[list[bytes], list[tuple[int, str, str]], list[tuple[int, str, str]], int]:
    """``lines`` (header, record rows, closing line; no newlines) with record row ``row`` damaged as ``case`` says.

    Returns the new lines, the problems reading the lines must name
    (``(line, field, problem)``, line 1-based with the header as line 1), the
    contiguity problems the walk must name, and the first line that differs
    from the file as it landed.
    """
    line = row + 1  # the header is line 1, record row 1 is line 2
    rec = lines[row]
    ord_ = int(PREFIX.match(rec).group(1))
    assert ord_ == int(PREFIX.match(lines[1]).group(1)) + row - 1  # the file's records follow each other
    if case == "positions changed":
        bad = rec.replace(b'{"ord":%d,' % ord_, b'{"ord":%d,' % (ord_ + 5), 1)
        # the walk expects ord_ here; after ord_ + 5 it expects ord_ + 6 where the next row holds ord_ + 1
        return lines[:row] + [bad] + lines[row + 1:], [], [(line, "ord", "ord gap"), (line + 1, "ord", "ord gap")], line
    if case == "newline inside a string":
        at = re.compile(rb'":"[^"\\\\]{6}').search(rec, 200).start() + 6  # three characters into a string value
        # two lines now, neither of them JSON
        return lines[:row] + [rec[:at], rec[at:]] + lines[row + 1:], [(line, "", "bad record"), (line + 1, "", "bad record")], [], line
    if case == "CRLF":
        # JSON takes a carriage return for white space (RFC 8259 §2): the line still decodes as the same record
        return lines[:row] + [rec + b"\r"] + lines[row + 1:], [], [], line
    if case == "empty line":
        # the empty line is record row ``row + 1``: the first that differs from the file as it landed
        return lines[: row + 1] + [b""] + lines[row + 1:], [(line + 1, "", "bad record")], [], line + 1
    if case == "positions missing":
        bad = PREFIX.sub(b"{", rec, count=1)
        assert b'"ord"' not in bad and bad.startswith(b'{"')
        return lines[:row] + [bad] + lines[row + 1:], [(line, "ord", "bad record")], [], line
    raise AssertionError(case)


CASES = ["positions changed", "newline inside a string", "CRLF", "empty line", "positions missing"]


@pytest.mark.parametrize("case", CASES)
def test_each_line_shape_is_named_alike_by_the_scan_and_by_deep(corpus_root: Path, monkeypatch: pytest.MonkeyPatch, case: str) -> None:
    path = _largest_transcript(corpus_root)
    session = path.relative_to(corpus_root).parts[0]
    original = path.read_bytes()
    lines = original.split(b"\n")[:-1]
    assert len(lines) >= 40 and sum(map(len, lines)) / len(lines) > 1000  # real-shaped: many lines of KBs
    row = len(lines) // 2
    new, read_problems, walk_problems, first_diff = _damage(lines, case, row)
    body = b"".join(x + b"\n" for x in new[:-1])
    closing = len(new)  # the closing line's line number
    try:
        for keep_closing in (True, False):
            if keep_closing:  # damage after landing: the closing line's digest fails, and its count when a line came in
                data = body + new[-1] + b"\n"
                read = read_problems + [(closing, "digest", "digest mismatch")]
                if len(new) != len(lines):
                    read.append((closing, "records", "count mismatch"))
            else:  # a writer's mistake: the closing line binds the damaged bytes, only the lines can tell
                data = body + closing_for(body, len(new) - 2)
                read = list(read_problems)
            # a file that is not whole names its first line that differs from what the session index kept
            want = sorted(read + walk_problems + ([(first_diff, "", "damaged record")] if read else []))
            overwrite(path, data)
            # the scan over whole files and with every line cut across reads; --deep reads each file whole
            for chunk, deep in ((landed.SCAN_CHUNK, False), (4097, False), (landed.SCAN_CHUNK, True)):
                monkeypatch.setattr(landed, "SCAN_CHUNK", chunk)
                how = f"{case}, closing {'kept' if keep_closing else 'recomputed'}, chunk {chunk}, deep {deep}"
                in_root = verify_root(corpus_root, session, jobs=1, deep=deep).problems
                assert sorted((p.line, p.field, p.problem) for p in in_root if p.file.endswith(path.name)) == want, how
                assert all(p.file.endswith(path.name) for p in in_root), how  # nothing else of the session
                alone = verify_file(path, deep=deep).problems
                assert sorted((p.line, p.field, p.problem) for p in alone) == want, how
                assert landed.check_landed_file(path, deep=deep).whole == (not read), how
                monkeypatch.undo()
    finally:
        overwrite(path, original)
    assert verify_root(corpus_root, session, jobs=1).ok  # put back whole
