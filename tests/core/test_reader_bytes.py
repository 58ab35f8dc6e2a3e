"""SDReader over bytes already read (``data=``) reads exactly as over the open file (issue 22).

The view, parse and export give the reader the bytes they have read (one
read instead of two); ``asz show`` gives it the path. For a good landed file and for every cut
and every damaged line of it (seed 000, Reading a file: a missing closing
line, a bad count, a digest mismatch, a bad record, a bad header), both give
the same records, the same refusal (line, field, message), the same closing
line and the same digest.
"""

from __future__ import annotations

import hashlib

import pytest
from rewrite import rewrite_bytes

from asz_core.sessiondata.reader import SDError, SDReader

HEADER = b'{"h":1,"schema":"sd/1","kind":"transcript","session":"s","src":"x.jsonl","dialect":"claude-code/1","adapter":"a"}\n'
RECORDS = [b'{"ord":0,"off":0,"id":"a","parts":[{"k":"text","text":"x"}]}', b'{"ord":1,"off":61,"id":null,"parent":"a"}',
           b'{"ord":2,"off":99,"parts":[{"k":"call","name":"Bash","data":{"n":1}}],"usage":{"in":3}}']


def _file(records: list[bytes]) -> bytes:
    body = HEADER + b"".join(r + b"\n" for r in records)
    digest = hashlib.sha256(body).hexdigest()
    return body + b'{"t":"end","records":' + str(len(records)).encode() + b',"digest":"' + digest.encode() + b'"}\n'


def _read(reader: SDReader):
    got = []
    try:
        for row, rec in reader:
            got.append((row, rec))
    except SDError as exc:
        return got, (exc.line, exc.field, exc.message), None, ""
    return got, None, reader.closing, reader.digest


def _variants() -> list[bytes]:
    good = _file(RECORDS)
    out = [good, b"", b"\n", HEADER, HEADER[:-1], good + b"\n", good + b"x", good[:-1]]
    out += [good[:i] for i in range(0, len(good), 7)]  # every cut
    lines = good.split(b"\n")
    for i in range(len(lines) - 1):  # each line damaged in turn: not JSON, a bad field, dropped
        for bad in (b"{", b'{"ord":"x","off":0}', None):
            changed = lines[:i] + ([bad] if bad is not None else []) + lines[i + 1:]
            out.append(b"\n".join(changed))
    out.append(_file(RECORDS).replace(b'"records":3', b'"records":2'))
    digest = hashlib.sha256(good[: good.rindex(b'{"t":"end"')]).hexdigest().encode()
    out.append(good.replace(digest, b"0" * 64))
    return out


@pytest.mark.parametrize("decode", [True, False, "dict"])
def test_bytes_and_file_read_the_same(tmp_path, decode) -> None:
    path = tmp_path / "transcript-1.sd"
    seen_errors = set()
    for data in _variants():
        rewrite_bytes(path, data)
        from_file = _read(SDReader(path, decode=decode))
        from_bytes = _read(SDReader(path, decode=decode, data=data))
        assert from_bytes == from_file, data
        if from_file[1]:
            seen_errors.add(from_file[1][2].split(":")[0])
    # the variants reach the refusals the comparison is about
    assert {"missing closing line", "digest mismatch", "closing line says 2 records, file holds 3", "empty file"} <= seen_errors


def test_a_good_file_reads_whole() -> None:
    data = _file(RECORDS)
    r = SDReader("x.sd", decode="dict", data=data)
    rows = [row for row, _ in r]
    assert rows == [1, 2, 3] and r.closing.records == 3 and r.digest == hashlib.sha256(data).hexdigest()
