"""No instance id can write the words asz puts around it, and no id or answer splits a line asz prints (review34,
after trial 34c F3 and F7).

Before: an instance id ``alice@hostA (credential alice)`` read as credential-checked on a token-less receiver, mallory's
push under that id read ``alice@hostA (credential alice) (credential mallory)`` on a tokened one (the usage table cut
it to ``(credential…``) and ``--instance 'credential alice'`` kept mallory's row; an id holding a newline split the
``asz senders`` row and ``asz conversation``'s ``sent by`` line, and a zero-width character reached the receiver's
log raw; a receiver's answer reached ``asz push``'s terminal raw. Real input: corpus projects collected by the real
``asz collect --once`` and pushed by the real pass to a real loopback receiver (with and without a token file), and
for the last test a hostile receiver on a loopback port answering a real ``asz push`` process. Calls are counted
straight from the source transcripts (tests/source_calls.py).
"""

from __future__ import annotations

import io
import json
import shutil
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from asz_core.export.credentials import read_token_file
from asz_core.export.push import push
from asz_core.export.receive import Receiver
from asz_core.export.settings import ExportConfig

from export_helpers import ALICE, FORGED, MALLORY, asz, collect_corpus, pushed_team
from source_calls import source_calls

HOSTS = {"a": ("-home-user-spotter", "alice@hostA", "alice", "tokA-35", "http"),
         "m": ("-home-user-sample-project", FORGED, "mallory", "tokM-35", "http")}


@pytest.fixture(scope="module")
def team(corpus_dir, tmp_path_factory) -> dict:
    got = pushed_team(corpus_dir, tmp_path_factory.mktemp("forged"), HOSTS)
    got["sessions"] = {k: source_calls(got["roots"][k].parent / "src") for k in HOSTS}
    return got


def _ids(*args: str) -> set[str]:
    return {r["id"] for r in json.loads(asz(*args, "--json").stdout)}


def test_an_id_holding_a_credential_label_reads_as_the_id_it_is(team):
    root = str(team["team"])
    (a_calls, a_sessions), (m_calls, m_sessions) = team["sessions"]["a"], team["sessions"]["m"]
    rows = {r["instance"]: r for r in json.loads(asz("usage", "instance", "--root", root, "--json").stdout)}
    assert set(rows) == {ALICE, MALLORY}, rows  # before: ALICE and 'alice@hostA (credential alice) (credential mallory)'
    assert rows[ALICE]["calls"] == len(a_calls) and rows[MALLORY]["calls"] == len(m_calls)
    table = asz("usage", "instance", "--root", root).stdout.splitlines()
    assert any(line.startswith(MALLORY + "  ") for line in table), table  # whole, never cut to '(credential…'

    listed = json.loads(asz("ls", "--root", root, "--json").stdout)
    ls_table = asz("ls", "--root", root).stdout.splitlines()
    for r in listed:
        label = ALICE if r["id"] in set(a_sessions) else MALLORY
        line = next(t for t in ls_table if t.startswith(r["id"][:8]))
        assert f"  {label}  " in line, line
    mallorys = sorted(set(m_sessions) & {r["id"] for r in listed})
    assert mallorys
    said = asz("conversation", mallorys[0][:8], "--root", root).stdout.splitlines()
    assert said[1].startswith(f"sent by {MALLORY}: "), said[1]

    every = {r["id"] for r in listed}
    alices, mallorys = set(a_sessions) & every, set(mallorys)
    for text, kept in (("credential alice", alices), ("(credential alice)", alices), (ALICE, alices),
                       ("credential mallory", mallorys), ('"alice@hostA (credential alice)"', mallorys),
                       (MALLORY, mallorys), ("mallory", mallorys), ("alice@hosta", every)):
        assert _ids("ls", "--root", root, "--instance", text) == kept, text  # before: 'credential alice' kept mallory's
    days = json.loads(asz("usage", "--root", root, "--instance", "credential alice", "--json").stdout)
    assert sum(d["calls"] for d in days) == len(a_calls), days

    senders = asz("senders", "--root", root).stdout.splitlines()
    assert any(line.startswith('"alice@hostA (credential alice)"  mallory ') for line in senders), senders


def _tokenless(corpus_dir: Path, base: Path, instance: str) -> tuple[Path, io.StringIO]:
    """A corpus project collected into ``base/host`` and pushed under ``instance`` to a real loopback receiver with no
    token into ``base/team``; returns the team root and the receiver's log."""
    shutil.copytree(corpus_dir / "claude-code" / "projects" / HOSTS["a"][0], base / "src" / HOSTS["a"][0])
    collect_corpus(base / "src", base / "host", base)
    log = io.StringIO()
    rcv = Receiver(base / "team", "127.0.0.1:0", err=log).start().serve_in_thread()
    try:
        rep = push(base / "host", ExportConfig(instance_id=instance), endpoint=f"http://{rcv.address}")
        assert rep.ok and rep.files, rep.problems
    finally:
        rcv.stop()
    return base / "team", log


def test_on_a_tokenless_receiver_no_sender_reads_as_credential_checked(corpus_dir, tmp_path):
    team, log = _tokenless(corpus_dir, tmp_path, FORGED)
    root = str(team)
    rows = json.loads(asz("usage", "instance", "--root", root, "--json").stdout)
    assert [r["instance"] for r in rows] == ['"alice@hostA (credential alice)"']  # before: 'alice@hostA (credential alice)'
    ls_table = asz("ls", "--root", root).stdout
    assert '  "alice@hostA (credential alice)"  ' in ls_table and "  alice@hostA (credential alice)  " not in ls_table
    assert _ids("ls", "--root", root, "--instance", "credential alice") == set()  # no credential was checked
    assert '; from "alice@hostA (credential alice)"' in log.getvalue()


#: An id holding every kind of line break and a zero-width space, a tab and a bidi mark.
BREAKING = "bob\n[00:00:00] FORGED\u2028L2\u2029L3\x0bL4\x0cL5\x85L6\rL7\u200bZ\u200eR\tT"
#: How it reads: one JSON string, each of them its escape.
BREAKING_SHOWN = '"bob\\n[00:00:00] FORGED\\u2028L2\\u2029L3\\u000bL4\\fL5\\u0085L6\\rL7\\u200bZ\\u200eR\\tT"'
_HIDDEN = ("\n", "\u2028", "\u2029", "\x0b", "\x0c", "\x85", "\r", "\u200b", "\u200e", "\t")


def test_an_ids_line_breaks_and_zero_width_characters_split_no_line(corpus_dir, tmp_path):
    team, log = _tokenless(corpus_dir, tmp_path, BREAKING)
    root = str(team)
    said = log.getvalue()
    assert not any(c in said for c in _HIDDEN[1:]) and said.count("\n") == len(said.splitlines()), said
    assert f"; from {BREAKING_SHOWN}" in said  # before: the zero-width characters raw
    senders = asz("senders", "--root", root).stdout
    assert not any(c in senders.replace("\n", "") for c in _HIDDEN), senders
    lines = senders.splitlines()
    assert len(lines) == 2 and lines[1].startswith(BREAKING_SHOWN + "  -  "), lines  # before: the row split in four
    conv = sorted(_ids("ls", "--root", root))[0]
    out = asz("conversation", conv[:8], "--root", root).stdout.splitlines()
    assert out[1].startswith(f"sent by {BREAKING_SHOWN}: ") and "FORGED" not in "".join(out[2:]), out[:3]
    md = asz("export", conv[:8], "--format", "md", "--root", root).stdout  # the head's sent-by line, one line
    (sent,) = [line for line in md.splitlines() if "sent by" in line]
    assert f"sent by {BREAKING_SHOWN}: " in sent and not any(c in sent for c in _HIDDEN), sent
    for reader in (("ls",), ("usage", "instance")):
        text = asz(*reader, "--root", root).stdout
        assert BREAKING_SHOWN in text and not any(c in text.replace("\n", "") for c in _HIDDEN), text
    by_session = asz("usage", "session", "--root", root).stdout  # a row's id, its sender, then its title, cut to 44 cells
    ids = _ids("ls", "--root", root)
    rows = [line for line in by_session.splitlines() if line[:8].strip() and any(i.startswith(line[:8]) for i in ids)]
    assert rows and all(f" ({BREAKING_SHOWN[:24]}" in line for line in rows), by_session
    assert not any(c in by_session.replace("\n", "") for c in _HIDDEN), by_session


class _Hostile(BaseHTTPRequestHandler):
    """A receiver that answers every POST 401 with a reason phrase and a body holding an OSC 0 window title, an OSC 8
    link, a newline before a forged ``error:`` line and a zero-width space."""

    def do_POST(self):  # noqa: N802 (http.server's name)
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        body = "no\x1b]0;PWNED\x07 token\nerror: FORGED line\u200b".encode()
        self.send_response(401, "Unauthorized\x1b]8;;http://evil/\x1b\\")
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def test_a_receivers_answer_reaches_the_pushers_terminal_escaped(corpus_dir, tmp_path):
    shutil.copytree(corpus_dir / "claude-code" / "projects" / HOSTS["a"][0], tmp_path / "src" / HOSTS["a"][0])
    collect_corpus(tmp_path / "src", tmp_path / "host", tmp_path)
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Hostile)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    try:
        p = asz("push", "--root", str(tmp_path / "host"), "--endpoint", f"http://127.0.0.1:{srv.server_port}",
                cwd=tmp_path, child=True)
    finally:
        srv.shutdown()
        srv.server_close()
    assert p.returncode == 1, p.stderr
    assert "\x1b" not in p.stderr + p.stdout and "\x07" not in p.stderr and "\u200b" not in p.stderr, p.stderr
    errors = [line for line in p.stderr.splitlines() if line.startswith("error:")]
    assert errors and not any(line.startswith("error: FORGED") for line in errors), p.stderr  # no line of its own
    assert any("HTTP 401 Unauthorized\\x1b]8;;http://evil/\\x1b\\: no\\x1b]0;PWNED\\x07 token error: FORGED line\\u200b"
               in line for line in errors), errors
