"""``asz conversation`` says where the call of a result it cannot draw is when that call is a record the session
repeats of the one it continues (trial 49d F7: of a cut-down result it said "its call never landed", though the call
landed as a repeated record counted in the conversation this session continues).

Real input: the corpus transcript de3b8b19 landed twice by the real ``asz collect --once``, as session X, and as
session Y repeating every record of it but the Write call's result, whose runtime's structured copy is grown past the
landing budget (so Y holds its own cut-down copy of that result, and its call only as a record it repeats of X). The
ids are read from the transcript; the call's seq and row from Y's landed files.
"""

from __future__ import annotations

import json
from pathlib import Path

from reading_helpers import asz

SRC = "claude-code/projects/-home-user-claude-reliability/de3b8b19-5bc0-4a2a-934a-1b6806567e25.jsonl"
X, Y = "f1e1d000-0000-4000-8000-000000000001", "f1e1d000-0000-4000-8000-000000000002"


def test_a_cut_result_whose_call_is_a_repeated_record_says_where_it_is(corpus_dir: Path, tmp_path):
    from asz_core.sessiondata import SDReader
    from asz_core.storage.layout import landed_files

    lines = [json.loads(x) for x in (corpus_dir / SRC).read_text(encoding="utf-8").splitlines()]
    (result,) = [(i, b) for i, d in enumerate(lines) if d.get("toolUseResult") and isinstance(d["message"]["content"], list)
                 for b in d["message"]["content"] if b.get("type") == "tool_result" and "File created" in str(b.get("content"))]
    (call,) = [d["uuid"] for d in lines if d.get("type") == "assistant"
               for b in d["message"]["content"] if b.get("type") == "tool_use" and b["id"] == result[1]["tool_use_id"]]
    grown = json.loads(json.dumps(lines))
    grown[result[0]]["toolUseResult"]["content"] = "x" * 120_000  # past the 32 KiB budget: the copy is taken out
    folder = tmp_path / "projects" / "-p"
    folder.mkdir(parents=True)
    for sid, ls in ((X, lines), (Y, grown)):
        (folder / f"{sid}.jsonl").write_text("".join(json.dumps({**d, "sessionId": sid}) + "\n" for d in ls), encoding="utf-8")
    root = tmp_path / "root"
    asz("collect", "--once", "--max-delta-bytes", "32768", "--source", str(tmp_path / "projects"), "--root", str(root))
    rid = lines[result[0]]["uuid"]
    (at,), (own,) = ([(ln.seq, row) for ln, path in landed_files(root / Y) for row, rec in SDReader(path, decode="dict")
                      if rec.get("id") == r] for r in (call, rid))
    said = asz("conversation", Y, "--root", str(root)).stdout
    assert (f"record {rid} (seq {own[0]}, row {own[1]}; its call is record {call} (seq {at[0]}, row {at[1]}), one it repeats of {X}, "
            "drawn and counted there): result text kept whole") in said, said
    assert "its call never landed" not in said


def test_a_repeated_record_read_through_a_link_says_nothing(tmp_path: Path):
    """The landed line of the repeated record is read only from the file asz landed: a symbolic link in its place is
    never followed (its target could be anything), so no words are given, as for a line that does not read."""
    from asz_core.reading.repeated_call import repeated_calls

    line = json.dumps({"id": "r1", "parts": [{"k": "call", "id": "toolu_1"}]}).encode()
    target = tmp_path / "elsewhere.sd"
    target.write_bytes(b"{}\n" + line + b"\n")
    (tmp_path / "S").mkdir()
    doc = {"not_drawn": [{"id": "res1", "why": "unresolved", "unresolved": "unres/tool_use/toolu_1"},
                         {"id": "r1", "why": "duplicate", "ref": {"seq": 1, "row": 1}, "of": {"conversation": "X"}}],
           "files": [{"seq": 1, "file": "S/00000001.sd"}]}
    (tmp_path / "S" / "00000001.sd").write_bytes(target.read_bytes())
    assert repeated_calls(tmp_path, doc) == {"res1": "its call is record r1 (seq 1, row 1), one it repeats of X, drawn and counted there"}
    (tmp_path / "S" / "00000001.sd").unlink()
    (tmp_path / "S" / "00000001.sd").symlink_to(target)
    assert repeated_calls(tmp_path, doc) == {}
