"""``asz receive`` reads chunked and gzip bodies, and refuses what it cannot frame with the connection closed (trial 42a
F1; asz_core/httpbody.py; docs/push.md, The receiver's limits).

Before, a valid ``POST /v1/logs`` sent ``Transfer-Encoding: chunked`` (no ``Content-Length``) was answered 200 as an
empty probe and nothing landed, its chunk bytes then read as the next request (``400 Bad request syntax ('3')``): a
request-smuggling shape behind a proxy; ``Content-Encoding: gzip`` (which OTLP/HTTP servers must read) was 400. Real
input: the files and rounds of a real ``asz collect`` of two corpus projects, each made a request by push's own wire
code, sent over raw sockets to a real ``asz receive`` child on loopback, its limit lowered to 1 MiB by
``$ASZ_RECEIVE_MAX_BODY``; what lands is compared byte for byte with the host's files, and ``asz verify`` runs on the
receiving root.
"""

from __future__ import annotations

import gzip
import io
import os
import re
import socket
import subprocess
import time
from http.client import parse_headers
from pathlib import Path

import pytest
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceResponse

from asz_core.export.wire import log_record, logs_request, outbox, resource
from asz_core.httpbody import BodyLeft, BodyRefused, read_body

from export_helpers import ASZ, asz, collect_corpus, copied_projects, sent_files

PROJECTS = ("-home-user-claude-reliability", "-Users-alex-workspace-personal-site-next")
LIMIT = 1 << 20
HEAD = "POST /v1/logs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-protobuf\r\n"


def _chunked(body: bytes, size: int) -> bytes:
    """``body`` as chunks of ``size`` bytes, one with an extension, then the last chunk and a trailer."""
    out = [b"%x;ext=1\r\n%s\r\n" % (len(body[i:i + size]), body[i:i + size]) for i in range(0, len(body), size)]
    return b"".join(out) + b"0\r\nX-Trailer: t\r\n\r\n"


def _answers(sock: socket.socket, n: int) -> list[tuple[int, bytes]]:
    """The next ``n`` answers read from ``sock``: (status, body)."""
    f = sock.makefile("rb")
    out = []
    for _ in range(n):
        status = int(f.readline().split()[1])
        headers = parse_headers(f)
        out.append((status, f.read(int(headers["Content-Length"]))))
    return out


def _closed_after(sock: socket.socket, n: int = 1) -> list[tuple[int, bytes]]:
    """``n`` answers, then the receiver's end of the connection (asserted: nothing more is answered)."""
    got = _answers(sock, n)
    sock.settimeout(10)
    try:  # its end: a FIN, or a reset for the bytes it left unread
        rest = sock.recv(65536)
    except ConnectionResetError:
        rest = b""
    assert rest == b"", "the receiver kept the connection open after a body it did not read whole"
    return got


def _send(port: int, data: bytes) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=30)
    s.sendall(data)
    return s


@pytest.fixture
def host(corpus_dir, tmp_path) -> Path:
    root = tmp_path / "host"
    collect_corpus(copied_projects(corpus_dir, tmp_path / "src", PROJECTS), root, tmp_path)
    return root


@pytest.mark.slow  # ~15 s under load: a collect, a receiver child, a verify
def test_chunked_and_gzip_bodies_land_and_unframable_ones_are_refused_with_the_connection_closed(host, tmp_path):
    files = list(outbox(host))
    assert [f.fmt for f in files].count("sd") >= 2 and [f.fmt for f in files].count("sf") >= 2, files
    res = resource("asz push", "dev@h42", "GENERAL", host)
    one = [logs_request([(res, [log_record(f, f.path.read_bytes()).record])]).SerializeToString() for f in files]
    sd = [b for f, b in zip(files, one) if f.fmt == "sd"]
    rounds = logs_request([(res, [log_record(f, f.path.read_bytes()).record for f in files if f.fmt == "sf"])]).SerializeToString()
    assert max(len(b) for b in [*one, rounds]) < LIMIT
    # what a lenient reader would take as a second request: a whole, valid one landing the first file
    hidden = (HEAD + f"Content-Length: {len(one[0])}\r\n\r\n").encode() + one[0]
    team = tmp_path / "team"
    err_path = tmp_path / "receive.err"
    with open(err_path, "w") as err:
        rcv = subprocess.Popen([*ASZ, "receive", "--listen", "127.0.0.1:0", "--root", str(team)], cwd=tmp_path,
                               stdout=subprocess.DEVNULL, stderr=err, env={**os.environ, "ASZ_RECEIVE_MAX_BODY": str(LIMIT)})
    try:
        deadline = time.monotonic() + 60
        while "receiving:" not in (text := err_path.read_text()):
            assert rcv.poll() is None and time.monotonic() < deadline, text
            time.sleep(0.1)
        port = int(re.search(r" on 127\.0\.0\.1:(\d+) ", text).group(1))
        refused = [  # (request, status, reason said): each answered, the connection closed, the hidden one never read
            (HEAD + "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 400,
             "both Transfer-Encoding and Content-Length given"),
            (HEAD + "Transfer-Encoding: chunked\r\n\r\nzz\r\n", 400, "chunk size b'zz' is no hexadecimal number"),
            (HEAD + "Transfer-Encoding: chunked\r\n\r\n3\r\nabcXY", 400, "a chunk of 3 bytes is not followed by CRLF"),
            (HEAD + "Transfer-Encoding: chunked\r\n\r\n0\n\r\n", 400, "a chunk size line ended by LF without CR"),
            (HEAD + "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n", 501, "only chunked is read"),
            (HEAD + "Transfer-Encoding : chunked\r\n\r\n0\r\n\r\n", 400, "a header line that is no 'name: value'"),
            (HEAD + "Content-Encoding: br\r\nContent-Length: 3\r\n\r\nabc", 415, "content encoding 'br' is not spoken"),
        ]
        for head, status, why in refused:
            with _send(port, head.encode() + hidden) as s:
                (got, answer), = _closed_after(s)
            assert got == status and why in answer.decode(), (head, got, answer)
        bomb = gzip.compress(b"\0" * (16 * LIMIT))
        with _send(port, (HEAD + f"Content-Encoding: gzip\r\nContent-Length: {len(bomb)}\r\n\r\n").encode() + bomb) as s:
            assert _closed_after(s) == [(413, f"decompressed body is over the limit of {LIMIT} bytes\n".encode())]
        big = b"%x\r\n" % (LIMIT - 10) + b"x" * (LIMIT - 10) + b"\r\n14\r\n"  # a second chunk passing the limit
        with _send(port, (HEAD + "Transfer-Encoding: chunked\r\n\r\n").encode() + big + hidden) as s:
            assert _closed_after(s) == [(413, b"the chunked body passes the 1048576 (1 MiB) a request may hold "
                                              b"(a chunk of 20 bytes after 1048566)\n")]
        assert sent_files(team) == {}  # nothing of the bodies above was read as a request
        # chunked, gzip with Content-Length, gzip and chunked, then truly empty probes: on one kept-alive connection
        with _send(port, (HEAD + "Transfer-Encoding: chunked\r\n\r\n").encode() + _chunked(sd[0], 1000)
                   + (HEAD + f"Content-Encoding: gzip\r\nContent-Length: {len(z := gzip.compress(sd[1]))}\r\n\r\n").encode()
                   + z + (HEAD + "Content-Encoding: gzip\r\nTransfer-Encoding: chunked\r\n\r\n").encode()
                   + _chunked(gzip.compress(rounds), 333) + (HEAD + "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n").encode()
                   + (HEAD + "Content-Length: 0\r\n\r\n").encode()) as s:
            got = _answers(s, 5)
        assert [status for status, _ in got] == [200] * 5
        for _, answer in got:
            assert not ExportLogsServiceResponse.FromString(answer).partial_success.rejected_log_records
    finally:
        rcv.terminate()
        rcv.wait(timeout=60)
    assert sent_files(team) == sent_files(host)  # every file and round, byte for byte, at its path
    v = asz("verify", "--root", str(team), cwd=tmp_path)
    assert v.returncode == 0, v.stdout + v.stderr
    log = err_path.read_text()
    assert len(re.findall(r"logs: 1 file\(s\): 1 landed, 0 already there", log)) == len(sd), log
    assert f"logs: {len(files) - len(sd)} file(s): {len(files) - len(sd)} landed" in log, log
    assert sum(map(int, re.findall(r"logs: (\d+) request\(s\) with no file \(push passes' probes\)", log))) == 2, log
    for _head, status, why in refused:
        assert any(ln.count("refused POST /v1/logs: ") == 1 and why in ln and ln.endswith(f"(HTTP {status})")
                   for ln in log.splitlines()), why
    assert "Bad request syntax" not in log and "Traceback" not in log, log


def test_a_refused_senders_body_is_held_only_up_to_its_hold():
    """``hold`` (a request refused before its body, no token): a small chunked gzip body is given decoded, to name its
    sender; one that does not decode is given as b''; one past the hold is read no further (BodyLeft: session 43, the
    receiver answers and closes lingering)."""
    def req(head: bytes, body: bytes) -> tuple[io.BytesIO, object]:
        f = io.BytesIO(head + b"\r\n" + body + b"NEXT")
        return f, parse_headers(f)

    small = gzip.compress(b"sender" * 10)
    f, h = req(b"Transfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n", _chunked(small, 7))
    assert read_body(f, h, "HTTP/1.1", LIMIT, hold=1000) == b"sender" * 10 and f.read() == b"NEXT"
    f, h = req(b"Transfer-Encoding: chunked\r\n", _chunked(b"y" * 3000, 1000))
    with pytest.raises(BodyLeft, match="passes the 1000 bytes read of it"):
        read_body(f, h, "HTTP/1.1", LIMIT, hold=1000)
    assert f.read().startswith(b"\r\n3e8;ext=1\r\n")  # the third chunk on is not read
    f, h = req(b"Content-Encoding: gzip\r\nContent-Length: 5\r\n", b"12345")
    assert read_body(f, h, "HTTP/1.1", LIMIT, hold=1000) == b"" and f.read() == b"NEXT"
    f, h = req(b"Transfer-Encoding: chunked\r\n", b"0\r\n\r\n")  # HTTP/1.0 cannot frame with chunks
    with pytest.raises(BodyRefused, match="Transfer-Encoding in an HTTP/1.0 request"):
        read_body(f, h, "HTTP/1.0", LIMIT)
    f, h = req(b"Content-Length: 3\r\nContent-Length: 4\r\n", b"abcd")
    with pytest.raises(BodyRefused, match="Content-Length given 2 different values"):
        read_body(f, h, "HTTP/1.1", LIMIT)
    for digits, said in (("9" * 5000, "a 5000-digit number of bytes"), ("0" * 5000 + "5", None)):  # int() refuses 4,301
        f, h = req(f"Content-Length: {digits}\r\n".encode(), b"12345")
        if said is None:
            assert read_body(f, h, "HTTP/1.1", LIMIT) == b"12345" and f.read() == b"NEXT"
            continue
        with pytest.raises(BodyRefused, match=said) as refused:
            read_body(f, h, "HTTP/1.1", LIMIT)
        assert refused.value.status == 413
    f, h = req(b"Host: a\r\n Transfer-Encoding: chunked\r\n", b"0\r\n\r\n")  # folded: read as part of Host
    with pytest.raises(BodyRefused, match="folded"):
        read_body(f, h, "HTTP/1.1", LIMIT)


def test_a_gzip_body_of_several_members_is_read_whole_and_bytes_starting_no_member_are_refused():
    """RFC 1952 2.2: a gzip body is a series of members (``gzip -c a b``, a sender compressing piece by piece); each
    member decoded in turn, across chunk boundaries, the limit counting them all; bytes after a member that start no
    member are 400 (it was 400 for any second member: review42)."""
    def req(head: bytes, body: bytes) -> tuple[io.BytesIO, object]:
        f = io.BytesIO(head + b"\r\n" + body + b"NEXT")
        return f, parse_headers(f)

    a, b = b"first member " * 50, b"second member " * 70
    two = gzip.compress(a) + gzip.compress(b)
    for piece in (3, 64, len(two)):
        f, h = req(b"Transfer-Encoding: chunked\r\nContent-Encoding: gzip\r\n", _chunked(two, piece))
        assert read_body(f, h, "HTTP/1.1", LIMIT) == a + b and f.read() == b"NEXT"
    for tail, said in ((b"junk", "does not decompress"), (gzip.compress(b"c")[:5], "truncated gzip body")):
        body = two + tail
        f, h = req(b"Content-Encoding: gzip\r\nContent-Length: %d\r\n" % len(body), body)
        with pytest.raises(BodyRefused, match=said) as refused:
            read_body(f, h, "HTTP/1.1", LIMIT)
        assert refused.value.status == 400
    bomb = gzip.compress(bytes(LIMIT // 2 + 1)) * 2  # each member under the limit, the two over it
    f, h = req(b"Content-Encoding: gzip\r\nContent-Length: %d\r\n" % len(bomb), bomb)
    with pytest.raises(BodyRefused, match="decompressed body is over the limit") as refused:
        read_body(f, h, "HTTP/1.1", LIMIT)
    assert refused.value.status == 413
