"""A member of a Kiro line the dialect does not describe travels verbatim as an unknown part (seed 000, Parts and
Dropped; trial 23a F7): it was listed under ``dropped`` with a ``why`` guessing it a runtime annotation. The runtime
annotations the dialect knows (3.x payload ``_meta``, ``title``, ``kind``, ``actionType``, ``status``, ``filePath``,
``durationMs``) are still listed under ``dropped``.

Real data: lines of the shared corpus's Kiro 2.x (8e247382) and 3.x (sess_5e804080) sessions (../shared/corpus, skipped
when absent) with F7's members written into them, converted by the adapter; the 3.x session collected by the real
``asz collect --once`` and verified, in process.
"""

from __future__ import annotations

import json
import shutil

import orjson
import pytest

from asz_adapters_kiro.convert import convert_line
from asz_core import Source
from cli_helpers import asz_in_process

SRC = Source(session="s", kind="transcript", path=None, src="x.jsonl", dialect="kiro/1")  # type: ignore[arg-type]
V2 = "cli/8e247382-c779-440f-b1db-ed9bad1afaee.jsonl"
V3 = "2f1c0d9e8b7a6f5e/sess_5e804080-466c-4f65-bde9-f6133b7068f6/messages.jsonl"


def _lines(corpus_dir, name: str) -> list[bytes]:
    return (corpus_dir / "kiro" / "home" / ".kiro" / "sessions" / name).read_bytes().splitlines()


def _unknown(rec) -> list[tuple[str, bytes]]:
    return [(p.text, p.raw()) for p in rec.parts if p.k == "unknown"]


def test_2x_data_and_line_members(corpus_dir):
    real = next(x for x in _lines(corpus_dir, V2) if b'"kind":"ToolResults"' in x)
    before = convert_line(SRC, real, 3, 0)
    v = json.loads(real)
    v["data"]["futureMember"] = {"a": 1}
    v["futureTopLevel"] = "x"
    rec = convert_line(SRC, orjson.dumps(v), 3, 0)
    assert [p.k for p in before.parts] == ["result", "data", "data"]  # the result, the runtime's results, changes/1
    # after the content's parts, before the changes/1 record the adapter adds (seed 000, Addressing a record)
    assert [p.k for p in rec.parts] == ["result", "data", "unknown", "unknown", "data"]
    assert [p for p in rec.parts if p.k != "unknown"] == before.parts and rec.dropped == before.dropped == []
    assert _unknown(rec) == [
        ('member "futureMember" of the data is not one this dialect describes', b'{"futureMember":{"a":1}}'),
        ('member "futureTopLevel" of the line is not one this dialect describes', b'{"futureTopLevel":"x"}')]


def test_3x_payload_and_line_members_and_the_annotations_stay_dropped(corpus_dir):
    real = next(x for x in _lines(corpus_dir, V3) if b'"type":"tool_call"' in x and b'"filePath"' in x)
    before = convert_line(SRC, real, 5, 0)
    assert [d.what for d in before.dropped][:1] == ["payload members title, _meta"]  # Kiro's classification is kept (F9)
    spaced = real[:-2] + b', "futurePayloadMember" : [1, 2]}, "futureTopLevel":null}'
    rec = convert_line(SRC, spaced, 5, 0)
    # the call, Kiro's classification of it (status, kind, actionType, filePath: trial 29c F9), the changes/1 record
    assert [p.k for p in before.parts] == ["call", "data", "data"]
    assert [p.k for p in rec.parts] == ["call", "data", "unknown", "unknown", "data"]
    assert rec.dropped == before.dropped and [p for p in rec.parts if p.k != "unknown"] == before.parts
    assert _unknown(rec) == [
        ('member "futurePayloadMember" of the payload is not one this dialect describes',
         b'{"futurePayloadMember" : [1, 2]}'),
        ('member "futureTopLevel" of the line is not one this dialect describes', b'{"futureTopLevel":null}')]


def test_collected_3x_member_lands_and_verifies(corpus_dir, tmp_path):
    home = tmp_path / ".kiro"
    shutil.copytree(corpus_dir / "kiro" / "home" / ".kiro", home)
    path = home / "sessions" / V3
    lines = path.read_bytes().splitlines()
    at = next(i for i, x in enumerate(lines) if b'"type":"assistant"' in x)
    lines[at] = lines[at][:-2] + b',"futurePayloadMember":"FUTUREFIELDTEXT"}}'
    path.write_bytes(b"\n".join(lines) + b"\n")
    root = tmp_path / "root"
    p = asz_in_process("collect", "--once", "--adapter", "kiro", "--source", str(home), "--root", str(root))
    assert p.returncode == 0, p.stderr
    landed = [x for f in root.rglob("*.sd") for x in f.read_bytes().splitlines() if b"FUTUREFIELDTEXT" in x]
    assert len(landed) == 1 and b'{\\"futurePayloadMember\\":\\"FUTUREFIELDTEXT\\"}' in landed[0]
    assert asz_in_process("verify", "--root", str(root)).returncode == 0
