"""No word a sender chose reaches the operator's terminal raw (trial 34c F3).

``service.instance.id`` is the pusher's own word. Before, ``asz receive``'s log (for a request it refused with 401 too),
``asz senders`` and ``asz conversation``'s ``sent by`` line printed it as sent, so an unauthenticated host set the
window title (OSC 0) and planted a hidden link (OSC 8) in the operator's terminal, while ``asz ls`` and ``asz usage
instance`` escaped it. Real input: a real receiver on a loopback port with a token file, the trial's instance ids, a
refused request as the trial's ``evilpush.py`` sent it, and a real collect and push of a corpus transcript.
"""

from __future__ import annotations

import hashlib
import io
import urllib.error
import urllib.request

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest

from asz_core.export.credentials import read_token_file
from asz_core.export.push import push
from asz_core.export.receive import Receiver
from asz_core.export.settings import ExportConfig

from cli_helpers import write_secret
from export_helpers import asz, collected_session

DE3 = ("-home-user-claude-reliability", "de3b8b19-5bc0-4a2a-934a-1b6806567e25")
#: The trial's ids: the refused sender's (OSC 0 window title) and the pusher's (OSC 0 and an OSC 8 hidden link).
REFUSED_ID = "alice@hostA\x1b]0;PWN\x07<script>"
PUSHED_ID = "bob@hostB\x1b]0;PWNED-SENDER\x07\x1b]8;;http://evil/\x1b\\click\x1b]8;;\x1b\\"
#: How every reader draws them: as a JSON string, each control its JSON escape (ESC ``\u001b``, BEL ``\u0007``), a
#: backslash ``\\`` (storage/senders.py instance_word: an id holding a control, a parenthesis or a line break is
#: quoted, so no id reads as asz's own words; review34).
REFUSED_SHOWN = '"alice@hostA\\u001b]0;PWN\\u0007<script>"'
PUSHED_SHOWN = '"bob@hostB\\u001b]0;PWNED-SENDER\\u0007\\u001b]8;;http://evil/\\u001b\\\\click\\u001b]8;;\\u001b\\\\"'


def _raw(text: str) -> bool:
    return "\x1b" in text or "\x07" in text


def _refused_post(address: str, instance: str = REFUSED_ID) -> int:
    """The trial's evilpush.py: no token, one record, ``service.instance.id`` = :data:`REFUSED_ID`."""
    req = ExportLogsServiceRequest()
    rl = req.resource_logs.add()
    for k, v in (("service.name", "Claude Code"), ("service.instance.id", instance)):
        a = rl.resource.attributes.add()
        a.key, a.value.string_value = k, v
    rec = rl.scope_logs.add().log_records.add()
    rec.body.bytes_value = b"root:x:0:0:pwned\n"
    for k, v in (("asz.format", "sd"), ("asz.file", "x/streams/main/transcript-1-000001.sd"),
                 ("asz.file.digest", hashlib.sha256(b"root:x:0:0:pwned\n").hexdigest())):
        kv = rec.attributes.add()
        kv.key, kv.value.string_value = k, v
    q = urllib.request.Request(f"http://{address}/v1/logs", data=req.SerializeToString(),
                               headers={"Content-Type": "application/x-protobuf"})
    try:
        with urllib.request.urlopen(q, timeout=60) as resp:
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code


def test_a_senders_instance_id_is_escaped_in_the_log_senders_and_conversation(tmp_path):
    host = collected_session(tmp_path, *DE3)
    tokens = tmp_path / "team.tokens"
    write_secret(tokens, "alice tokA-1\nbob tokB-2\n")
    log = io.StringIO()
    team = tmp_path / "team"
    rcv = Receiver(team, "127.0.0.1:0", token=read_token_file(tokens), err=log).start().serve_in_thread()
    try:
        assert _refused_post(rcv.address) == 401
        rep = push(host, ExportConfig(instance_id=PUSHED_ID, headers={"Authorization": "Bearer tokB-2"}),
                   endpoint=f"http://{rcv.address}")
        assert rep.ok and rep.files, rep.problems
    finally:
        rcv.stop()
    said = log.getvalue()
    assert not _raw(said), said
    assert f"refused POST /v1/logs from {REFUSED_SHOWN}: a bearer token is required (HTTP 401)" in said
    assert f"landed, 0 already there, 0 rejected, 0 held; from {PUSHED_SHOWN} (credential bob)" in said

    senders = asz("senders", "--root", str(team), cwd=tmp_path)
    assert not _raw(senders.stdout + senders.stderr), senders.stdout
    rows = {line.split("  ", 1)[0]: line for line in senders.stdout.splitlines()[1:]}
    assert set(rows) == {REFUSED_SHOWN, PUSHED_SHOWN}
    assert "refused: no token sent" in rows[REFUSED_SHOWN]

    talk = asz("conversation", DE3[1][:8], "--root", str(team), cwd=tmp_path)
    assert talk.returncode == 0, talk.stderr
    assert not _raw(talk.stdout + talk.stderr), talk.stdout
    assert talk.stdout.splitlines()[1].startswith(f"sent by {PUSHED_SHOWN} (credential bob): ")
    for reader in (("ls",), ("usage", "instance")):  # escaped already: the bar the others now meet
        out = asz(*reader, "--root", str(team), "--since", "2000-01-01", cwd=tmp_path) if reader[0] == "usage" else \
            asz(*reader, "--root", str(team), cwd=tmp_path)
        assert not _raw(out.stdout + out.stderr) and "PWNED-SENDER" in out.stdout, out.stdout


#: A sender's id holding a newline, U+2028 and a CR, each before a line it would forge in the operator's log
#: (review34, after F3: the id reached the log with its newline, a whole forged line after it, before any token).
FORGING_ID = ("alice@hostA\n[00:00:00] logs: 9 file(s): 9 landed, 0 already there, 0 rejected, 0 held; from bob"
              "\u2028FORGED\rFORGED")


def test_a_senders_newline_writes_no_line_of_the_receivers_log(tmp_path):
    tokens = tmp_path / "team.tokens"
    write_secret(tokens, "alice tokA-1\n")
    log = io.StringIO()
    rcv = Receiver(tmp_path / "team", "127.0.0.1:0", token=read_token_file(tokens), err=log).start().serve_in_thread()
    try:
        assert _refused_post(rcv.address, FORGING_ID) == 401
    finally:
        rcv.stop()
    lines = log.getvalue().splitlines()  # breaks at U+2028 and CR too, as a terminal or an editor may
    (line,) = [x for x in lines if "alice@hostA" in x]
    assert len(lines) == 1 and "FORGED" in line and "9 landed" in line, lines
    assert "alice@hostA\\n[00:00:00] logs: 9 file(s)" in line and "\\u2028FORGED\\rFORGED" in line, line
