"""Benchmark: how late ``asz server`` shows lines an agent appends to a transcript, with and without CPU load (session 46).

Usage::

    python bench/server_lag.py --root ROOT --source DIR [--appends 15] [--load 4] [--session ID]

``ROOT`` is a root collected from ``DIR`` before (``bench/realcorpus.py DIR --size-mb 150``, then ``asz collect
--once --source DIR --root ROOT``). One ``asz server`` is started on it and waited for (its first pass and checks
done, ``/api/status`` ``reading`` empty). Then, twice in the same run, first with the machine as it is and then
beside ``--load`` busy Python loops at the server's own priority (``nice`` 0, as the server): a line is appended to
one transcript of ``DIR`` (``--session``, else the largest main transcript) every ``--every`` seconds, ``--appends``
times. Each line is a real line of that transcript (its user and assistant records, in turn, from its middle), with a
new ``uuid`` chained to the line before (``parentUuid``), new ``message.id`` and ``requestId``, and the time now.
The lag of a line is the seconds from its append until ``/api/c/ID/view`` (what the open page polls, with its
``If-None-Match``) is drawn from it (its ``files``' main transcript records count it); asked every ``--poll`` seconds. Printed: each phase's lags (median, max) and
the server's passes over the phase (``refreshed:`` lines: count, median and max seconds), and the load average.
The page itself asks every 5 s, which adds up to 5 s to what a reader sees. Timing lives here, never in tests.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

from _common import compile_packages, free_port, http_get  # bench/_common.py

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BUSY = "while True: pass"
#: The ids a copied line carries that must be new: record uuids, Anthropic message, request and tool-use ids.
ID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|(?:msg|req|toolu)_[A-Za-z0-9]+")


def _new_id(old: str) -> str:
    """A new id of ``old``'s form (a uuid, or its ``msg_``/``req_``/``toolu_`` head and length)."""
    if "_" not in old:
        return str(uuid.uuid4())
    head, tail = old.split("_", 1)
    return head + "_" + (uuid.uuid4().hex * 4)[:len(tail)]


def _largest(src: Path) -> Path:
    return max(src.glob("*/*.jsonl"), key=lambda p: p.stat().st_size)


def _lines_to_copy(path: Path) -> list[dict]:
    """The user (text) and assistant records of the middle of ``path``, in file order, to be appended again."""
    out = []
    for raw in path.read_bytes().splitlines():
        try:
            rec = json.loads(raw)
        except ValueError:
            continue
        if rec.get("type") in ("user", "assistant") and not rec.get("isSidechain") and rec.get("uuid"):
            out.append(rec)
    mid = len(out) // 3
    return out[mid:mid + 60] or out


class Appender:
    """Appends one line to ``path`` each ``every`` seconds, ``n`` times; ``sent`` holds each one's append time."""

    def __init__(self, path: Path, pool: list[dict], every: float, n: int):
        self.path, self.pool, self.every, self.n = path, pool, every, n
        last = json.loads(path.read_bytes().rstrip(b"\n").rsplit(b"\n", 1)[-1])
        self.parent = last.get("uuid")
        self.sent: list[float] = []  # each line's append time (monotonic), in order
        self.done = threading.Event()
        self.at = 0

    def one(self) -> None:
        """Append the pool's next record, its ids new: its own ``uuid`` (its ``parentUuid`` the line before), and every
        ``msg_``, ``req_`` and ``toolu_`` id and record uuid it names, each the same new id wherever it stands in this
        round of the pool (a tool use and its result stay paired, one reply's lines one call)."""
        if self.at % len(self.pool) == 0:
            self.ids: dict[str, str] = {self.path.stem: self.path.stem}  # the session's id stays
        rec = self.pool[self.at % len(self.pool)]
        self.at += 1
        old_uuid = rec["uuid"]
        text = json.dumps(dict(rec, parentUuid=None, timestamp=""), ensure_ascii=False, separators=(",", ":"))
        text = ID.sub(lambda m: self.ids.setdefault(m.group(0), _new_id(m.group(0))), text)
        new = json.loads(text)
        new["parentUuid"], new["timestamp"] = self.parent, time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
        with open(self.path, "ab") as f:
            f.write(json.dumps(new, ensure_ascii=False, separators=(",", ":")).encode() + b"\n")
        self.sent.append(time.monotonic())
        self.parent = self.ids[old_uuid]

    def run(self) -> None:
        start = time.monotonic()
        for i in range(self.n):
            time.sleep(max(0.0, start + i * self.every - time.monotonic()))
            self.one()
        self.done.set()


def _view(port: int, session: str, etag: str) -> tuple[int, str, bytes]:
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    c.request("GET", f"/api/c/{session}/view", headers={"If-None-Match": etag} if etag else {})
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, r.getheader("ETag") or "", body


def main_lines(body: bytes) -> int:
    """How many source lines of the main transcript the document ``body`` (``/api/c/ID/view``) is drawn from: the
    records of its landed transcript files of stream ``main`` (each ``.sd`` file's ``lines`` less its header and its
    closing line: docs/session-data.md)."""
    files = json.loads(body)["files"]
    return sum(f["lines"] - 2 for f in files if f.get("kind") == "transcript" and f.get("stream") == "main")


def _watch(port: int, session: str, app: Appender, base: int, poll: float, limit: float) -> list[float]:
    """Ask ``/api/c/ID/view`` every ``poll`` s (with the ETag, as the page) until the document holds every line ``app``
    appended (its main transcript's lines ``base`` + their number), or ``limit`` s after the last append; the lag of
    each line shown, in append order."""
    lags: list[float] = []
    etag, shown = "", base
    while True:
        status, tag, body = _view(port, session, etag)
        now = time.monotonic()
        if status == 200:
            etag, shown = tag, main_lines(body)
        while len(lags) < min(shown - base, len(app.sent)):
            lags.append(now - app.sent[len(lags)])
        if app.done.is_set() and (len(lags) == len(app.sent) or now - app.sent[-1] > limit):
            return lags
        time.sleep(poll)


def _passes(out: Path, since: int) -> list[float]:
    """The seconds of the server's passes printed after byte ``since`` of its stdout."""
    text = out.read_bytes()[since:].decode(errors="replace")
    return [float(line.rsplit("(", 1)[1].rstrip("s)")) for line in text.splitlines() if " refreshed: " in line]


def _settled(port: int, deadline: float) -> None:
    while time.monotonic() < deadline:
        try:
            st = json.loads(http_get(port, "/api/status")[1])
            if st["last_pass"] is not None and not st["reading"] and not st["refreshing"]:
                return
        except OSError:
            pass
        time.sleep(0.5)
    raise SystemExit("the server did not settle")


def phase(name: str, port: int, out: Path, path: Path, pool: list[dict], a) -> None:
    _settled(port, time.monotonic() + 600)
    time.sleep(2)
    mark = out.stat().st_size
    base = main_lines(_view(port, path.stem, "")[2])
    app = Appender(path, pool, a.every, a.appends)
    threading.Thread(target=app.run, daemon=True).start()
    lags = _watch(port, path.stem, app, base, a.poll, a.limit)
    got = sorted(lags) or [float("nan")]
    passes = _passes(out, mark)
    missing = len(app.sent) - len(lags)
    print(f"{name:<10}: lag median {statistics.median(got):.2f} s, max {got[-1]:.2f} s over {len(got)} line(s)"
          + (f", {missing} not shown within {a.limit:g} s" if missing else "")
          + f"; {len(passes)} pass(es), median {statistics.median(passes) if passes else 0:.2f} s, max "
          f"{max(passes, default=0):.2f} s; load {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    gaps = [b - a for a, b in zip(app.sent, app.sent[1:])]
    print(f"{'':<10}  lags: {' '.join(f'{x:.1f}' for x in lags)} (in append order); appends over "
          f"{app.sent[-1] - app.sent[0]:.1f} s, gaps {min(gaps, default=0):.2f}..{max(gaps, default=0):.2f} s")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--root", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("--session", help="the transcript appended to (its id); the largest main transcript by default")
    ap.add_argument("--appends", type=int, default=15)
    ap.add_argument("--every", type=float, default=1.0)
    ap.add_argument("--load", type=int, default=4, help="busy loops beside the server in the second phase")
    ap.add_argument("--poll", type=float, default=0.25)
    ap.add_argument("--limit", type=float, default=120.0, help="seconds after the last append a line may take")
    a = ap.parse_args(argv)
    compile_packages()
    src = Path(a.source)
    path = next(src.glob(f"*/{a.session}.jsonl")) if a.session else _largest(src)
    pool = _lines_to_copy(path)
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "server.out"
        with open(out, "wb") as fo:
            proc = subprocess.Popen([sys.executable, "-m", "asz_core.cli.main", "server", "--root", a.root, "--source",
                                     a.source, "--port", str(port)], stdout=fo, stderr=subprocess.DEVNULL,
                                    env={**os.environ, "PYTHONUNBUFFERED": "1"})  # each refreshed: line as it is said
        busy: list[subprocess.Popen] = []
        try:
            print(f"appending to {path} ({path.stat().st_size / 1e6:.1f} MB), one line every {a.every:g} s")
            phase("no load", port, out, path, pool, a)
            busy = [subprocess.Popen([sys.executable, "-c", BUSY]) for _ in range(a.load)]
            time.sleep(5)
            phase(f"load +{a.load}", port, out, path, pool, a)
        finally:
            for b in busy:
                b.kill()
                b.wait()
            proc.terminate()
            proc.wait(60)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
