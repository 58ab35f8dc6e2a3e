"""A member of a Claude Code line the dialect does not describe travels verbatim as an unknown part, never vanishes
(seed 000, Parts and Dropped; trial 23a F5): the member as ``{"name":value}`` from the source bytes, after the
content's parts and before the parts the adapter adds, with the text naming it and where it sat. Members the dialect
understands and leaves out are docs/adapters/claude-code.md's known gaps and land nothing, as before.

Real data: lines of the shared corpus (../shared/corpus, skipped when absent), with F5's exact members written into
them (``agentTelemetryV9`` on the line, ``future_tokens_v9`` in ``message.usage``), converted by the adapter, and one
session collected by the real ``asz collect --once`` and read back (show, conversation, ls, usage, verify) in process.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import orjson
import pytest

from asz_adapters_claude.convert import DIALECT, convert_record
from asz_core import Source
from cli_helpers import asz_in_process, collect_transcript

PROJECT = "-Users-alex-workspace-claude-code-log-sample"
SID = "0d3a8e6f-290f-4105-a327-a2496e5e2a83"
TELEMETRY = b'"agentTelemetryV9":{"energy_joules":12.5,"note":"FUTUREFIELDTEXT"}'
SRC = Source(session=SID, kind="transcript", path=Path("/nowhere"), src=f"{PROJECT}/{SID}.jsonl", dialect=DIALECT)


@pytest.fixture(scope="module")
def lines(corpus_dir) -> list[bytes]:
    return (corpus_dir / "claude-code" / "projects" / PROJECT / f"{SID}.jsonl").read_bytes().splitlines()


def _first(lines: list[bytes], *marks: bytes) -> bytes:
    return next(x for x in lines if all(m in x for m in marks))


def _with_f5(line: bytes) -> bytes:
    """F5's two members written into a real assistant line, as a runtime would: one before ``uuid`` on the line, one
    at the end of ``message.usage``."""
    at = line.index(b',"uuid":')
    line = line[:at] + b"," + TELEMETRY + line[at:]
    usage = line.index(b'"usage":{')
    end = line.index(b"}", line.index(b'"service_tier"', usage))
    return line[:end] + b',"future_tokens_v9":777' + line[end:]


def _unknown(rec) -> list[tuple[str, bytes]]:
    return [(p.text, p.raw()) for p in rec.parts if p.k == "unknown"]


def test_f5_members_land_verbatim_after_the_content(lines):
    real = _first(lines, b'"type":"assistant"', b'"service_tier"')
    before = convert_record(SRC, real, 7, 0)
    rec = convert_record(SRC, _with_f5(real), 7, 0)
    assert _unknown(before) == []
    assert rec.parts[:len(before.parts)] == before.parts and rec.usage == before.usage and rec.call == before.call
    assert _unknown(rec) == [  # in source order: message (and its usage) comes before uuid on this line
        ('member "future_tokens_v9" of message.usage is not one this dialect describes', b'{"future_tokens_v9":777}'),
        ('member "agentTelemetryV9" of the line is not one this dialect describes', b"{" + TELEMETRY + b"}"),
    ]
    assert rec.dropped == before.dropped and [p.bytes for p in rec.parts[len(before.parts):]] == [24, 68]


def test_a_line_with_spaces_keeps_the_member_as_written(lines):
    """A line that is not orjson's encoding (spaces after the colons): the part holds the member's own bytes."""
    real = _first(lines, b'"type":"assistant"', b'"service_tier"')
    spaced = real[:-1] + b', "agentTelemetryV9" :  {"energy_joules": 12.5}}'
    assert _unknown(convert_record(SRC, spaced, 1, 0)) == [
        ('member "agentTelemetryV9" of the line is not one this dialect describes',
         b'{"agentTelemetryV9" :  {"energy_joules": 12.5}}')]


def test_known_gaps_land_nothing_and_other_values_of_them_travel(lines):
    """``stop_details`` null and ``context_management`` with no edits (the corpus's values) are known gaps; another
    value of them is not described; ``thinkingMetadata``, ``todos``, ``sourceToolUseID`` and
    ``isVisibleInTranscriptOnly`` (the corpus's other such members) are known gaps at any value."""
    real = _first(lines, b'"type":"assistant"', b'"service_tier"')
    v = json.loads(real)
    v["message"]["stop_details"] = None
    v["message"]["context_management"] = {"applied_edits": []}
    v["thinkingMetadata"], v["todos"], v["sourceToolUseID"] = {"maxThinkingTokens": 31999}, [], "toolu_01"
    assert _unknown(convert_record(SRC, orjson.dumps(v), 1, 0)) == []
    v["message"]["stop_details"] = {"type": "refusal"}
    v["message"]["context_management"] = {"applied_edits": [{"type": "clear_tool_uses"}]}
    assert [t for t, _ in _unknown(convert_record(SRC, orjson.dumps(v), 1, 0))] == [
        'member "stop_details" of message is not one this dialect describes',
        'member "context_management" of message is not one this dialect describes']


def test_a_user_line_and_an_edit_result_keep_the_derived_part_last(corpus_dir):
    """A tool result of an Edit: the unknown member comes after the result and before the derived changes/1 part."""
    path = corpus_dir / "claude-code" / "projects" / PROJECT / "fe869ecb-c176-478f-9734-7e4b8ef12cff.jsonl"
    real = next(x for x in path.read_bytes().splitlines() if b'"structuredPatch"' in x and b'"type":"user"' in x)
    before = convert_record(SRC, real, 1, 0)
    rec = convert_record(SRC, real[:-1] + b',"newMember":null}', 1, 0)
    assert [p.k for p in before.parts] == ["result", "data"]
    assert [p.k for p in rec.parts] == ["result", "unknown", "data"]
    assert rec.parts[1].raw() == b'{"newMember":null}' and rec.parts[2] == before.parts[1]


def test_a_member_whose_bytes_are_not_utf8_keeps_the_whole_line(lines):
    """Bytes that are not UTF-8 in a member not described: the line lands whole, base64, every byte kept."""
    real = _first(lines, b'"type":"assistant"', b'"service_tier"')
    bad = real[:-1] + b',"agentTelemetryV9":"caf\xe9"}'
    rec = convert_record(SRC, bad, 1, 0)
    assert [p.k for p in rec.parts] == ["unknown"] and rec.parts[0].encoding == "base64"
    assert base64.b64decode(rec.parts[0].data) == bad


def test_collected_the_member_is_in_the_root_and_the_readers_count_the_same(lines, tmp_path):
    """F5 end to end: the session collected as it is and with F5's members; collect warns, naming the line; the member
    is in the landed record (``asz show``) and listed under undescribed; verify passes; ls and usage count the same."""
    target = _first(lines, b'"type":"assistant"', b'"service_tier"')
    uuid = json.loads(target)["uuid"]
    changed = b"\n".join(_with_f5(x) if x == target else x for x in lines) + b"\n"
    plain = collect_transcript(tmp_path / "plain", PROJECT, SID, b"\n".join(lines) + b"\n")
    (tmp_path / "f5" / "projects" / PROJECT).mkdir(parents=True)
    path = tmp_path / "f5" / "projects" / PROJECT / f"{SID}.jsonl"
    path.write_bytes(changed)
    root = tmp_path / "f5" / "root"
    p = asz_in_process("collect", "--once", "--source", str(tmp_path / "f5" / "projects"), "--root", str(root))
    line = lines.index(target) + 1
    assert p.returncode == 0 and [x for x in p.stderr.splitlines() if "describe" in x] == [
        f"warning: {path}: 1 line(s) hold content adapter claude-code-local does not describe (line {line}: member "
        '"future_tokens_v9" of message.usage is not one this dialect describes): each such member or block travels '
        "verbatim, its source bytes as written, as an unknown part of the line's record beside what it read (asz "
        "conversation lists them under undescribed)"], p.stderr
    shown = asz_in_process("show", SID, uuid, "--root", str(root))
    assert shown.returncode == 0 and "FUTUREFIELDTEXT" in shown.stdout and "future_tokens_v9" in shown.stdout
    doc = json.loads(asz_in_process("conversation", SID, "--json", "--root", str(root)).stdout)
    said = [u["why"] if "why" in u else json.dumps(u) for u in doc["undescribed"]]
    assert len(said) == 2 and any("agentTelemetryV9" in s for s in said) and any("future_tokens_v9" in s for s in said)
    assert asz_in_process("verify", "--root", str(root)).returncode == 0
    for args in (("ls", "--json"), ("usage", "session", "--json")):
        a, b = (asz_in_process(*args, "--root", str(r)) for r in (plain, root))
        assert a.returncode == b.returncode == 0 and a.stdout.replace(str(plain), "") == b.stdout.replace(str(root), "")


def test_a_prompt_with_a_member_not_described_stays_a_prompt_in_the_prose(lines, tmp_path):
    """A member a newer runtime adds to every prompt line must not make the prompt a list to seed 003's shape test:
    ``asz export --format prose`` gives the same turns (role, time, text) with the member as without it."""
    first = lines[0]
    assert b'"type":"user"' in first and json.loads(first)["message"]["content"].startswith("Hey Claude")
    turns = []
    for name, data in (("plain", lines), ("member", [first[:-1] + b',"promptMetaV9":{"x":1}}', *lines[1:]])):
        root = collect_transcript(tmp_path / name, PROJECT, SID, b"\n".join(data) + b"\n")
        p = asz_in_process("export", SID, "--format", "prose", "--root", str(root))
        assert p.returncode == 0, p.stderr
        turns.append([(t["role"], t["ts"], t["text"]) for t in map(json.loads, p.stdout.splitlines())])
    assert turns[0] == turns[1] and turns[0][0][:2] == ("user", "2025-07-05T19:39:53.126Z") and len(turns[0]) == 19
