"""What ``asz hook`` could not keep as given is stated in the record's ``dropped`` (trial 33b F3, F4; seed 000,
Dropped: "dropped exists so a loss is stated rather than silent").

Each event is the corpus's probe payload ``echo`` (Claude Code 2.1.282, ``mcp-hooks-2.1.282.jsonl``) changed in the
one member the case is about, as bytes, fed to the real hook process (``python -S hook.py``, what ``asz hooks
install`` writes).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from test_hook_event_edges import probe, records
from test_observer_hook import run_hook as _run_hook

NOT_UTF8 = ("bytes that are not UTF-8, each read as U+FFFD (3 bytes), as Go's JSON decoder reads them, before the "
            "member was measured: its size and digest are of the text so read, not of the bytes given")


def run_hook(raw: bytes, data: Path):
    return _run_hook(raw, data, via="script")


def _event(corpus_dir: Path, **members: bytes) -> bytes:
    """The ``echo`` probe event with each of ``members`` given as the raw JSON bytes (put last, replacing its own)."""
    event = {k: v for k, v in probe(corpus_dir, "echo").items() if k not in members}
    raw = json.dumps(event).encode()[:-1]
    return raw + b"".join(b',"' + k.encode() + b'":' + v for k, v in members.items()) + b"}"


def test_a_byte_that_is_not_utf8_is_stated(corpus_dir: Path, tmp_path: Path) -> None:
    """Trial 33b F3's payload: ``tool_input`` ``{"query":"caf\\xe9-latin1"}``, 23 bytes. The digest is of the text as
    Go's decoder reads it (``\\xe9`` as U+FFFD: 25 bytes, the original's digest), and ``dropped`` says so."""
    given = b'{"query":"caf\xe9-latin1"}'
    assert len(given) == 23
    assert run_hook(_event(corpus_dir, tool_input=given), tmp_path).returncode == 0
    (rec,) = records(tmp_path, probe(corpus_dir, "echo")["session_id"])
    read = '{"query":"caf\ufffd-latin1"}'.encode()
    assert rec["arguments"] == {"state": "size_only", "bytes": 25, "sha256": hashlib.sha256(read).hexdigest()}
    assert rec["dropped"][0] == {"what": "not UTF-8 in tool_input", "bytes": 1, "why": NOT_UTF8}
    # the members Claude Code sends that the record has no key for are still listed after it
    assert [d["what"] for d in rec["dropped"][1:]] == ["transcript_path", "prompt_id", "permission_mode", "effort",
                                                       "probe_case"]


def test_valid_utf8_states_nothing(corpus_dir: Path, tmp_path: Path) -> None:
    assert run_hook(_event(corpus_dir, tool_input='{"query":"café"}'.encode()), tmp_path).returncode == 0
    (rec,) = records(tmp_path, probe(corpus_dir, "echo")["session_id"])
    assert not [d for d in rec["dropped"] if d["what"].startswith("not UTF-8")]
    assert rec["arguments"]["bytes"] == len('{"query":"café"}'.encode())


@pytest.mark.parametrize("member, raw, kind, what", [
    ("duration_ms", b'"fast"', "string", "a JSON number"),
    ("mcp_server", b'"notanobject"', "string", "an object with a non-empty string name (and a string source)"),
    ("mcp_server", b'{"name":7,"source":"user"}', "object", "an object with a non-empty string name (and a string source)"),
    ("cwd", b'["/work"]', "array", "a JSON string"),
    ("agent_id", b"12", "number", "a JSON string (the stream; main when absent)"),
])
def test_a_known_member_of_another_type_is_stated(corpus_dir: Path, tmp_path: Path, member: str, raw: bytes,
                                                  kind: str, what: str) -> None:
    """Trial 33b F4: ``"duration_ms":"fast"`` and ``"mcp_server":"notanobject"`` were left out with no ``dropped``
    entry. Now each is named with its size as canonical JSON and why."""
    assert run_hook(_event(corpus_dir, **{member: raw}), tmp_path).returncode == 0
    (rec,) = records(tmp_path, probe(corpus_dir, "echo")["session_id"])
    key = {"mcp_server": "server"}.get(member, member)
    assert key not in rec and rec["stream"] == "main"
    (said,) = [d for d in rec["dropped"] if d["what"] == member]
    assert said == {"what": member, "bytes": len(json.dumps(json.loads(raw), separators=(",", ":")).encode()),
                    "why": f"execution/1 reads it as {what}, and this value is not: left out of the record (it is a "
                           f"JSON {kind})"}


def test_the_trial_event_states_both(tmp_path: Path) -> None:
    """Trial 33b F4's exact event."""
    raw = (b'{"session_id":"s1","hook_event_name":"PostToolUse","tool_name":"mcp__a__b","tool_use_id":"t2",'
           b'"duration_ms":"fast","mcp_server":"notanobject","tool_input":{"a":1}}')
    assert run_hook(raw, tmp_path).returncode == 0
    (rec,) = records(tmp_path, "s1")
    assert [(d["what"], d["bytes"]) for d in rec["dropped"]] == [("mcp_server", 13), ("duration_ms", 6)]


def test_a_server_source_of_another_type_is_stated(corpus_dir: Path, tmp_path: Path) -> None:
    assert run_hook(_event(corpus_dir, mcp_server=b'{"name":"probe","source":3}'), tmp_path).returncode == 0
    (rec,) = records(tmp_path, probe(corpus_dir, "echo")["session_id"])
    assert rec["server"] == {"name": "probe"}
    assert [d["what"] for d in rec["dropped"] if d["what"].startswith("mcp_server")] == ["mcp_server.source"]


def test_the_corpus_payloads_state_no_misread_member(corpus_dir: Path, tmp_path: Path) -> None:
    """The 2.1.282 payloads as Claude Code sent them: every member the record reads has the type it reads."""
    path = next((corpus_dir / "hooks").glob("apache__*mcp-hooks-2.1.282.jsonl"))
    for i, line in enumerate(path.read_bytes().splitlines()):
        assert run_hook(line, tmp_path / str(i)).returncode == 0
        for f in (tmp_path / str(i) / "output").rglob("*.jsonl"):
            for rec in map(json.loads, f.read_bytes().splitlines()):
                assert {d["what"] for d in rec.get("dropped", ())} <= {
                    "transcript_path", "prompt_id", "permission_mode", "effort", "agent_type", "probe_case"}, rec


def _no_file_bytes() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_FSIZE, (0, resource.RLIM_INFINITY))  # a full disk: no byte can be written


def test_a_full_disk_leaves_a_trace_a_later_collect_says(corpus_dir: Path, tmp_path: Path) -> None:
    """Trial 33b F5: under ``ulimit -f 0`` the hook left a 0-byte log and a 0-byte execution file and nothing later
    said a call was lost. Now its empty ``log/unwritten.<ns>.<tool_use_id>`` file is the trace (a name needs no byte),
    and ``asz collect --adapter changes`` says it."""
    import subprocess
    import sys

    from test_observer_hook import HOOK_FILE

    data = tmp_path / "data"
    event = probe(corpus_dir, "echo")
    p = subprocess.run([sys.executable, "-S", str(HOOK_FILE), "--data", str(data)], input=json.dumps(event).encode(),
                       capture_output=True, timeout=60, preexec_fn=_no_file_bytes)
    assert p.returncode == 0 and p.stdout == b""
    assert (data / "log" / "plugin.log").stat().st_size == 0  # the premise: not one byte could be written
    assert (data / "output" / event["session_id"] / "main.execution.jsonl").stat().st_size == 0
    (mark,) = [f for f in (data / "log").iterdir() if f.name != "plugin.log"]
    assert mark.name.startswith("unwritten.") and mark.name.endswith("." + event["tool_use_id"])
    got = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--adapter", "changes",
                          "--source", str(data), "--root", str(tmp_path / "root")], capture_output=True, text=True,
                         timeout=300)
    assert got.returncode == 0, got.stderr
    assert "skipped=1" in got.stdout + got.stderr
    (said,) = [x for x in got.stderr.splitlines() if "asz hook could not write" in x]
    assert f"asz hook could not write 1 execution record(s) (the latest: at " in said
    assert f"tool call {event['tool_use_id']}: nor could its log line be written)" in said


def test_a_logged_write_failure_is_said_by_a_later_collect(corpus_dir: Path, tmp_path: Path) -> None:
    """The record could not be written and the log line could (an output folder that is not writable): the log's
    line is the trace, and a later collect says it."""
    import subprocess
    import sys

    event = probe(corpus_dir, "echo")
    data = tmp_path / "data"
    (data / "output").mkdir(parents=True)
    (data / "output" / event["session_id"]).write_text("a file where the session folder goes")
    assert run_hook(json.dumps(event).encode(), data).returncode == 0
    assert "asz hook: could not write the execution record: " in (data / "log" / "plugin.log").read_text()
    got = subprocess.run([sys.executable, "-m", "asz_core.cli.main", "collect", "--once", "--adapter", "changes",
                          "--source", str(data), "--root", str(tmp_path / "root")], capture_output=True, text=True,
                         timeout=300)
    (said,) = [x for x in got.stderr.splitlines() if "asz hook could not write" in x]
    assert "asz hook could not write 1 execution record(s) (the latest: at 20" in said
