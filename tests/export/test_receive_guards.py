"""``asz receive``'s port has the view's defences (trial 27c F6, F7; docs/push.md, The receiver's limits).

A real ``asz receive`` child on a loopback port: connections that never finish their headers are closed after the
header timeout (held forever before, each logged as a false ``HTTP 415`` when its client left), a body over 1 GiB is
answered 413 (``MemoryError`` before), past the connection cap the longest-waiting connections are closed and a
request is still answered, and on an address that is not loopback with no token it warns as ``asz view`` does.
"""

from __future__ import annotations

import os
import resource
import select
import re
import socket
import subprocess
import time
from pathlib import Path

from cli_helpers import write_secret
from export_helpers import ASZ

LINE = "not a loopback address and no token is set: anyone who reaches it can land files in the root that read verified"


class Child:
    """``asz receive`` in a child process on a free port; :meth:`stop` ends it and returns its stderr."""

    def __init__(self, tmp: Path, *extra: str, env: dict | None = None, files: int | None = None, listen="127.0.0.1:0",
                 own_token: bool = False):
        """``own_token``: ``--own-token``, the receiving root's own token (trial 38c F1); else ``extra`` as given (no
        token option: the default tokenless receiver, issue 21)."""
        if own_token:
            extra = ("--own-token", *extra)
        def limit():
            if files:
                resource.setrlimit(resource.RLIMIT_NOFILE, (files, files))

        self.err_path = tmp / f"receive-{time.monotonic_ns()}.err"
        self.err = open(self.err_path, "w")
        self.proc = subprocess.Popen([*ASZ, "receive", "--listen", listen, "--root", str(tmp / "team"), *extra],
                                     cwd=tmp, stdout=subprocess.DEVNULL, stderr=self.err, preexec_fn=limit,
                                     env={**os.environ, **(env or {})})
        deadline = time.monotonic() + 60
        while "receiving:" not in (text := self.err_path.read_text()):
            assert self.proc.poll() is None and time.monotonic() < deadline, text
            time.sleep(0.1)
        self.port = int(text.split("receiving:")[1].split(" on ")[1].split(" ")[0].rsplit(":", 1)[1])

    def post(self, head: str, body: bytes = b"") -> bytes:
        with socket.create_connection(("127.0.0.1", self.port), timeout=30) as s:
            s.sendall(head.encode() + body)
            out = b""
            while chunk := s.recv(65536):
                out += chunk
                if b"\r\n\r\n" in out and len(out.split(b"\r\n\r\n", 1)[1]) >= int(
                        out.split(b"Content-Length: ")[1].split(b"\r\n")[0]):
                    return out
            return out

    def said(self, words: str) -> "Child":
        """Once its stderr holds ``words`` (a line it writes after ``receiving:``; at most 60 s): a child stopped at once
        may be stopped before it (a race under load, not a missing line)."""
        deadline = time.monotonic() + 60
        while words not in self.err_path.read_text() and self.proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        return self

    def stop(self) -> str:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(timeout=20)
        self.err.close()
        return self.err_path.read_text()


def _empty_logs(port_child: Child) -> bytes:
    return port_child.post("POST /v1/logs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-protobuf\r\n"
                           "Content-Length: 0\r\nConnection: close\r\n\r\n")


def _half(port: int, n: int) -> list[socket.socket]:
    out = []
    for _ in range(n):
        c = socket.create_connection(("127.0.0.1", port))
        c.sendall(b"POST /v1/logs HTTP/1.1\r\nHost: 127.0.0.1\r\n")  # headers never finished
        out.append(c)
    return out


def _left_by_client(port: int) -> int:
    """The receiver's connections on ``port`` that their client closed and it has not closed yet (CLOSE_WAIT in
    /proc/net/tcp): its handler counts such a connection, then closes it."""
    rows = [line.split() for line in Path("/proc/net/tcp").read_text().splitlines()[1:]]
    return sum(1 for row in rows if row[1].endswith(f":{port:04X}") and row[3] == "08")


def _closed(held: list[socket.socket]) -> list[bool]:
    """Whether the receiver closed each connection (its end read at once), in the order given."""
    ready, _, _ = select.select(held, [], [], 0.5)
    out = []
    for c in held:
        if c not in ready:
            out.append(False)
            continue
        try:
            out.append(c.recv(1) == b"")
        except OSError:
            out.append(True)
    return out


def test_half_sent_headers_are_closed_after_the_header_timeout_and_said_once(tmp_path):
    r = Child(tmp_path, env={"ASZ_RECEIVE_HEADER_TIMEOUT": "1", "ASZ_RECEIVE_IDLE_TIMEOUT": "2"})
    try:
        held = _half(r.port, 200)
        assert _empty_logs(r).startswith(b"HTTP/1.1 200")  # still answers meanwhile
        closed, deadline = [False] * len(held), time.monotonic() + 60
        while not all(closed):  # all closed by the receiver (kept open for good before), looked at every 0.05 s
            assert time.monotonic() < deadline, f"{closed.count(False)} of {len(held)} still open 60 s after"
            time.sleep(0.05)
            closed = [was or now for was, now in zip(closed, _closed(held))]
        dropped = _half(r.port, 30)
        for c in dropped:
            c.close()  # their clients leave before the headers end
        deadline = time.monotonic() + 60  # each counted before the stop: its handler read its end and closed it
        while (left := _left_by_client(r.port)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not left, f"{left} connection(s) their clients closed still open in the receiver 60 s after"
        big = r.post("POST /v1/logs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-protobuf\r\n"
                     "Content-Length: 100000000000\r\n\r\n")
        assert big.startswith(b"HTTP/1.1 413") and b"over the 1073741824 (1 GiB) a request may hold" in big
        bad = r.post("POST /v1/logs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: -5\r\n\r\n")
        assert bad.startswith(b"HTTP/1.1 400")
        with socket.create_connection(("127.0.0.1", r.port), timeout=30) as s:  # a header is read as latin-1
            s.sendall(b"POST /v1/logs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: \xb2\r\n\r\n")
            assert s.recv(65536).startswith(b"HTTP/1.1 400")  # before: int('\u00b2') raised, nothing answered
    finally:
        err = r.stop()
    assert "HTTP 415" not in err and "MemoryError" not in err, err
    timed = re.findall(r"closed (\d+) connection\(s\) that sent no complete request headers in time "
                       r"\(header timeout 1 s, idle 2 s\)", err)
    dropped = re.findall(r"(\d+) connection\(s\) closed by their client before their request's headers or body ended", err)
    # each kind: the first said at once, the rest counted and said as the receiver stops (fix33c item 5: before, what
    # was held back at the stop was never said); every one of the 200 held and 30 dropped connections counted once
    assert timed[:1] == dropped[:1] == ["1"] and len(timed) <= 2 and len(dropped) <= 2, err
    assert sum(map(int, timed)) >= 200 and sum(map(int, timed + dropped)) == 230, err
    assert "refused POST /v1/logs: the body is 100000000000 bytes, over the 1073741824 (1 GiB) a request may hold (HTTP 413)" in err


def test_a_client_gone_before_its_refusal_is_written_is_no_connection_closed_with_nothing_read(tmp_path):
    """A sender whose request is read and refused (a ``Content-Length`` that is no number: 400) but that left before
    the answer was written: its refusal is said, and it is not counted as a connection its client closed before its
    headers ended (session 49: the answer's second write met the reset and handle_error counted it so, a 31st
    "closed by their client" in the half-sent test above, said on a third line as the receiver stopped)."""
    r = Child(tmp_path, env={"ASZ_RECEIVE_HEADER_TIMEOUT": "60", "ASZ_RECEIVE_IDLE_TIMEOUT": "60"})
    try:
        for _ in range(3):
            with socket.create_connection(("127.0.0.1", r.port), timeout=30) as s:
                s.sendall(b"POST /v1/logs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: x\r\n\r\n")
            # closed before the receiver read it: its answer's first write is met by a reset, the next one fails
        deadline = time.monotonic() + 60
        while (left := _left_by_client(r.port)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not left, f"{left} connection(s) still open in the receiver 60 s after their clients left"
    finally:
        err = r.stop()
    assert err.count("refused POST /v1/logs: Content-Length must be a whole number of bytes (HTTP 400)") == 3, err
    assert "closed by their client" not in err and "Traceback" not in err, err


def test_past_the_cap_the_longest_waiting_are_closed_and_requests_answered(tmp_path):
    # 256 open files: the cap is max(16, 256 // 2 - 3 * 16) = 80 connections (asz_core.netguard.connection_cap)
    r = Child(tmp_path, env={"ASZ_RECEIVE_HEADER_TIMEOUT": "600"}, files=256)
    try:
        held = _half(r.port, 60)
        time.sleep(0.5)
        held += _half(r.port, 100)
        time.sleep(1)
        assert _empty_logs(r).startswith(b"HTTP/1.1 200")
        closed = _closed(held)
        assert sum(closed) >= 160 - 80 and all(closed[:40])  # the oldest went first
        assert not any(closed[-10:])  # the newest are kept
    finally:
        err = r.stop()
    assert "waiting connection(s) to stay under the cap of 80 open at once" in err, err


def test_no_token_beyond_loopback_is_warned_about(tmp_path):
    r = Child(tmp_path, listen="0.0.0.0:0")
    assert f"warning: 0.0.0.0 is {LINE}" in r.stop()
    write_secret(tmp_path / "t.tok", "tok-0123456789abcdef\n")
    r = Child(tmp_path, "--token-file", str(tmp_path / "t.tok"), listen="0.0.0.0:0")  # the token in plain HTTP: said
    said = r.stop()
    assert ("warning: 0.0.0.0 is not a loopback address: the token travels in plain HTTP (no TLS) on the network, in "
            "each request; anyone who sees it on the way can land files in the root that read verified") in said, said
    assert "no token is set" not in said and said.count("warning") == 1, said
    r = Child(tmp_path, own_token=True)  # the root's own token: no warning
    assert "warning" not in r.stop()
    for extra in ((), ("--no-token",)):  # the default, and it said explicitly: one warning line after receiving:
        said = Child(tmp_path, *extra).said("asz receive: warning: no token").stop()
        assert said.splitlines()[1].startswith("asz receive: warning: no token: every account on this machine"), said
        assert said.splitlines()[0].endswith("; no token") and "not a loopback" not in said, said


def test_the_counts_held_back_are_said_once_a_minute_old():
    """A flood that stopped is said with its count once the kind's last line is a minute old (here 0.3 s); what is
    held back when the receiver stops is said then (the receiver's one counter of summed lines, fix33c item 5)."""
    import io

    from asz_core.export.receive_http import DROPPED, EVICTED, TIMED_OUT
    from asz_core.export.receive_seen import METRICS, Summed

    out = io.StringIO()
    t = Summed(out, every=0.3)
    for _ in range(5):
        t.add(TIMED_OUT)
    t.add(EVICTED, cap=80)
    t.flush()  # nothing a minute (0.3 s) old yet
    assert [line.split("] ", 1)[1] for line in out.getvalue().splitlines()] == [
        "closed 1 connection(s) that sent no complete request headers in time (header timeout 10 s, idle 20 s)",
        "closed 1 waiting connection(s) to stay under the cap of 80 open at once"]
    time.sleep(0.35)
    t.flush()
    t.flush()  # said once
    assert out.getvalue().splitlines()[2:] == [out.getvalue().splitlines()[2]]
    assert out.getvalue().splitlines()[2].endswith(
        "] closed 4 connection(s) that sent no complete request headers in time (header timeout 10 s, idle 20 s)")
    for _ in range(3):  # the first of each said at once, the rest held back; all of it said as the receiver stops
        t.add(DROPPED)
        t.add(METRICS, points=2, names=["dev@hostA"])
    t.flush(everything=True)
    assert [line.split("] ", 1)[1] for line in out.getvalue().splitlines()[3:]] == [
        "1 connection(s) closed by their client before their request's headers or body ended (nothing read from them)",
        "metrics: 1 request(s), 2 data point(s), answered and not kept; from dev@hostA",
        "2 connection(s) closed by their client before their request's headers or body ended (nothing read from them)",
        "metrics: 2 request(s), 4 data point(s), answered and not kept; from dev@hostA"]


def _written_until_refused(port: int, size: int) -> tuple[int, list[OSError]]:
    """A body of ``size`` bytes with no token written to the receiver on ``port`` while its answer is read: asserts the
    answer is a 401; returns the bytes written before the write failed (the receiver's reset) and that failure."""
    import threading

    sent, failed = [0], []
    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.sendall(b"POST /v1/logs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-protobuf\r\n"
                  b"Content-Length: %d\r\n\r\n" % size)

        def send():
            piece = bytes(1 << 20)
            try:
                for _ in range(size >> 20):
                    s.sendall(piece)
                    sent[0] += len(piece)
            except OSError as exc:
                failed.append(exc)

        t = threading.Thread(target=send)
        t.start()
        assert s.recv(65536).startswith(b"HTTP/1.1 401")
        t.join(timeout=60)
    return sent[0], failed


def test_a_body_without_the_token_is_read_no_further_than_the_linger(tmp_path):
    """A request with no token is answered 401 once 64 KiB of its body are read, the connection closed lingering: what
    the sender still sends is read and dropped up to 64 MiB (LINGER_BYTES), never held, then the connection is reset
    (before session 43 the whole body was read, up to 1 GiB; before trial 38c F5 it was held whole)."""
    from asz_core.export.receive_http import LINGER_BYTES

    write_secret(tmp_path / "tok", "s3cretTOKEN1234567890abcdef\n")
    r = Child(tmp_path, "--token-file", str(tmp_path / "tok"))
    size = 400 << 20
    try:
        sent, failed = _written_until_refused(r.port, size)
        assert failed and sent < LINGER_BYTES + (32 << 20), (sent, failed)  # read no further than the linger (and buffers)
        peak = next(int(x.split()[1]) for x in Path(f"/proc/{r.proc.pid}/status").read_text().splitlines()
                    if x.startswith("VmHWM:"))  # KiB
        assert peak < (size >> 10) // 2, peak  # the receiver's peak memory stays well under the body's size
    finally:
        r.stop()


def test_the_lingers_bytes_are_a_setting(tmp_path):
    """``$ASZ_RECEIVE_LINGER_BYTES`` (fixed at 64 MiB until fix44a; close43, "Not done"): set to 4 MiB, a sender still
    writing a 96 MiB body with no token is reset once 4 MiB more were dropped (and what the buffers hold), where 64 MiB
    would have read more than the whole 36 MiB allowed here; the 401 is sent first all the same."""
    write_secret(tmp_path / "tok", "s3cretTOKEN1234567890abcdef\n")
    r = Child(tmp_path, "--token-file", str(tmp_path / "tok"), env={"ASZ_RECEIVE_LINGER_BYTES": str(4 << 20)})
    try:
        sent, failed = _written_until_refused(r.port, 96 << 20)
        assert failed and sent < (4 << 20) + (32 << 20), (sent, failed)
    finally:
        said = r.stop()
    assert "ASZ_RECEIVE_LINGER" not in said, said  # a value taken is not said


def _answer_whole(port: int, head: bytes, size: int) -> tuple[int, dict, bytes]:
    """A request sent as http.client and asz push send it, its whole body before reading; then every byte of the
    answer to the connection's end: (status, headers, body). An OSError (a reset on the write or the read) raises."""
    from http.client import parse_headers
    import io

    with socket.create_connection(("127.0.0.1", port), timeout=60) as s:
        s.sendall(head + b"Content-Length: %d\r\n\r\n" % size)
        piece = bytes(1 << 20)
        for _ in range(size >> 20):
            s.sendall(piece)
        got = b""
        while chunk := s.recv(65536):
            got += chunk
    f = io.BytesIO(got)
    status = int(f.readline().split()[1])
    headers = parse_headers(f)
    return status, dict(headers), f.read()


def test_a_refused_sender_still_writing_its_body_reads_its_answer_whole(tmp_path):
    """A refusal that closes the connection (401 past 64 KiB of body, 413 over ``$ASZ_RECEIVE_MAX_BODY``) with the body
    unread reached a sender still writing it as a reset: the write failed (EPIPE) and the answer was never read (close42,
    "Not done"). Now the receiver sends it, ends writing and reads and drops the rest (a lingering close): five times
    each, the whole answer (its Content-Length of body) then the connection's end."""
    write_secret(tmp_path / "tok", "alice s3cretTOKEN1234567890abcdef\n")
    r = Child(tmp_path, "--token-file", str(tmp_path / "tok"), env={"ASZ_RECEIVE_MAX_BODY": str(16 << 20)})
    head = b"POST /v1/logs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-protobuf\r\nAuthorization: Bearer %s\r\n"
    cases = ((b"wrongTOKEN", 12 << 20, 401, b"the bearer token does not match\n"),
             (b"s3cretTOKEN1234567890abcdef", 32 << 20, 413,
              b"the body is 33554432 bytes, over the 16777216 (16 MiB) a request may hold\n"))
    try:
        for token, size, status, said in cases:
            for _ in range(5):
                got = _answer_whole(r.port, head % token, size)
                assert got == (status, {**got[1], "Content-Length": str(len(said)), "Connection": "close"}, said), got
    finally:
        said = r.stop()
    assert said.count("(HTTP 401)") == 5 and said.count("(HTTP 413)") == 5, said
