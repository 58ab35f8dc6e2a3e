"""A fuller copy of a transcript in another source folder is its growth, not a rival (trial 37a F4; README: "a later
copy must be the same bytes plus appended lines, or it is a conflict"). hostC holds the first 5 lines of a corpus
transcript, hostE all 15, hostD all 15 and one call more. Before, the shortest copy (landed first) kept the stream,
the fuller ones were refused as conflicts, and their calls were in no figure while ``asz ls``/``verify`` said nothing.
Now the fullest copy whose bytes begin with the others' lands (the cursor follows it, said in a ``note:``), the shorter
ones are skipped as copies (nothing of them is left out), and a copy that differs stays a conflict whose line names
the source folder of the copy that lands (hostC, hostE and hostD all hold ``-home-user-spotter/<id>.jsonl``).

Real input: the corpus transcript 55604662; the expected tokens are counted from hostD's file by the test (one
``message.usage`` per ``message.id``/``requestId``, the last line's)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from cli_helpers import asz_in_process

SID = "55604662-cf2a-4331-851a-ec234028f8ca"
CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus" / "claude-code" / "projects"
SRC = CORPUS / "-home-user-spotter" / f"{SID}.jsonl"
ENV = {"KIRO_HOME": None, "USERPROFILE": None, "CLAUDE_CONFIG_DIR": None, "XDG_CONFIG_HOME": None}


def _one_call_more(lines: list[bytes]) -> bytes:
    """A copy of the transcript's last assistant line as a new call: its own uuid, message id and request id, and
    3,000 tokens (1,000 in, 2,000 out)."""
    last = json.loads(next(x for x in reversed(lines) if json.loads(x).get("type") == "assistant"))
    last.update(uuid="0d0d0d0d-0000-4000-8000-000000000001", parentUuid=json.loads(lines[-1]).get("uuid"),
                requestId="req_fix37d_one_more", timestamp="2026-02-10T21:20:00.000Z")
    last["message"].update(id="msg_fix37d_one_more", usage={"input_tokens": 1000, "output_tokens": 2000,
                                                            "cache_creation_input_tokens": 0,
                                                            "cache_read_input_tokens": 0})
    return json.dumps(last).encode() + b"\n"


def _tokens(path: Path) -> int:
    """Tokens of ``path`` straight from its lines: the last usage of each (message.id, requestId)."""
    calls = {}
    for line in path.read_bytes().splitlines():
        d = json.loads(line)
        m = d.get("message")
        if d.get("type") == "assistant" and isinstance(m, dict) and m.get("usage"):
            calls[(m.get("id"), d.get("requestId"))] = m["usage"]
    return sum(u.get(k, 0) for u in calls.values() for k in
               ("input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))


@pytest.fixture
def hosts(tmp_path):
    if not SRC.is_file():
        pytest.skip(f"the corpus transcript is absent ({SRC})")
    lines = SRC.read_bytes().splitlines(keepends=True)
    assert len(lines) == 15
    have = {"hostC": b"".join(lines[:5]), "hostE": b"".join(lines), "hostD": b"".join(lines) + _one_call_more(lines)}
    for h, data in have.items():
        (tmp_path / h / SRC.parent.name).mkdir(parents=True)
        (tmp_path / h / SRC.parent.name / SRC.name).write_bytes(data)
    (tmp_path / "home").mkdir()
    return tmp_path


def _asz(base: Path, *args: str):
    return asz_in_process(*args, cwd=base, env={"HOME": str(base / "home"), **ENV})


def _row(base: Path) -> dict:
    """The one row of ``asz ls --json``, with ``tokens``: its usage's in, out, cache read and cache write."""
    rows = json.loads(_asz(base, "ls", "--json", "--root", "data").stdout)
    assert [r["id"] for r in rows] == [SID]
    u = rows[0]["usage"]
    return {**rows[0], "tokens": u["in"] + u["out"] + u["cache_read"] + u["cache_write"]}


ALL = ("--source", "hostC", "--source", "hostE", "--source", "hostD")


@pytest.mark.parametrize("first", ["hostC alone first", "all at once"])
def test_the_fullest_copy_lands_and_the_shorter_ones_are_copies(hosts, first):
    if first == "hostC alone first":
        p = _asz(hosts, "collect", "--once", "--source", "hostC", "--root", "data")
        assert p.returncode == 0 and _row(hosts)["tokens"] == _tokens(hosts / "hostC" / SRC.parent.name / SRC.name)
    p = _asz(hosts, "collect", "--once", *ALL, "--root", "data")
    assert p.returncode == 0, p.stdout + p.stderr
    assert " conflicts=0 " in p.stdout and " skipped=2 " in p.stdout and "conflict:" not in p.stderr
    full = hosts / "hostD" / SRC.parent.name / SRC.name
    assert _row(hosts)["tokens"] == _tokens(full) == _tokens(SRC) + 3000  # hostD's call is in the figure
    cursor = next((hosts / "data").glob(f"{SID}/streams/main/transcript.cursor")).read_text()
    assert f"source          {full}" in cursor.splitlines() or f"source          {SRC.parent.name}/{SRC.name}" in cursor
    if first == "hostC alone first":
        assert f"note: {full}: holds every byte of {hosts / 'hostC' / SRC.parent.name / SRC.name} (" in p.stderr
    again = _asz(hosts, "collect", "--once", *ALL, "--root", "data")
    assert again.returncode == 0 and " landed=0 " in again.stdout and " skipped=2 " in again.stdout
    assert _asz(hosts, "verify", "--root", "data").returncode == 0


def test_a_copy_that_differs_stays_a_conflict_naming_the_folders(hosts):
    rival = hosts / "hostX" / SRC.parent.name / SRC.name
    rival.parent.mkdir(parents=True)
    lines = SRC.read_bytes().splitlines(keepends=True)
    rival.write_bytes(b"".join(lines[:5]) + _one_call_more(lines))  # hostC's lines, then not hostE's sixth
    assert _asz(hosts, "collect", "--once", "--source", "hostE", "--root", "data").returncode == 0
    p = _asz(hosts, "collect", "--once", "--source", "hostE", "--source", "hostX", "--root", "data")
    assert p.returncode == 1 and " conflicts=1 " in p.stdout
    line = next(x for x in p.stderr.splitlines() if x.startswith("conflict: "))
    assert line.startswith(f"conflict: {rival}: ")
    assert f"already comes from {SRC.parent.name}/{SRC.name} in the source folder {hosts / 'hostE'};" in line
    assert _row(hosts)["tokens"] == _tokens(SRC)
    os.unlink(rival)
