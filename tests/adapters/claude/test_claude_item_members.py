"""The member rule one level further in, and what readers make of a member part (member24; seed 000, Parts: "Content
it cannot describe goes in as an unknown part in the same place, never left out").

- A member no dialect describes in an item of a ``tool_result`` block's ``content`` list, or in an item of a
  ``queued_command`` attachment's ``prompt`` list, lands verbatim as an unknown part after the block's (the
  attachment's) parts; the items the real corpus holds (text {type, text}, tool_reference, no image) land none.
- A member part is not a content block: a ``user`` line's list of one text block holding a member states ``content
  list`` as without it, so the prose export reads the line as it did before the member part existed.
- A line read with members it does not describe and nothing else (an assistant line whose content is empty) is read:
  collect's warning names it among the lines it read, the document does not call it a record that could hold a call,
  and its call is counted; the warning says what happened to the member, not "nothing lost".

Real data: lines of the shared corpus (../shared/corpus, skipped when absent) with a member written into them,
converted by the adapter and collected by the real ``asz collect --once``, read back in process.
"""

from __future__ import annotations

import json
from pathlib import Path

import orjson

from asz_adapters_claude.convert import convert_record
from asz_adapters_claude.members import CHECKS
from cli_helpers import asz_in_process, collect_transcript
from test_claude_block_members import HOOKS, SAMPLE, _lines, _src, _unknown  # the corpus lines those tests read


def _text_result(lines: list[bytes]) -> bytes:
    """The first user line whose tool_result's content is a list opening with a text item."""
    return next(x for x in lines if b'"type":"tool_result","content":[{"type":"text"' in x)


def test_a_tool_result_text_item_member_lands_after_the_result(corpus_dir):
    real = _text_result(_lines(corpus_dir, HOOKS))
    at = real.index(b'"type":"tool_result","content":[{"type":"text"') + len(b'"type":"tool_result","content":[{')
    changed = real[:at] + b'"futureItemV9":{"n":7},' + real[at:]
    before, rec = convert_record(_src(HOOKS), real, 5, 0), convert_record(_src(HOOKS), changed, 5, 0)
    assert _unknown(before) == [] and before.parts[0].k == "result"
    assert [p.k for p in rec.parts] == [before.parts[0].k, "unknown", *[p.k for p in before.parts[1:]]]
    assert rec.parts[0] == before.parts[0] and rec.parts[2:] == before.parts[1:]  # the result's text as before
    assert _unknown(rec) == [('member "futureItemV9" of message.content[0].content[0] (text) is not one this dialect '
                              'describes', b'{"futureItemV9":{"n":7}}')]
    v = json.loads(changed)  # the same line as orjson writes it (the compiled fast path's shape): the same parts
    assert convert_record(_src(HOOKS), orjson.dumps(v), 5, 0).parts == rec.parts


def test_a_queued_command_prompt_item_member_lands_after_the_text(corpus_dir):
    """A queued prompt (origin-digest §5.1: text from ``prompt[].text``) written into a real attachment line."""
    real = next(x for x in _lines(corpus_dir, HOOKS) if b'"type":"hook_success"' in x)
    v = json.loads(real)
    v["attachment"] = {"type": "queued_command", "commandMode": "prompt",
                       "prompt": [{"type": "text", "text": "run the tests"}, {"type": "text", "text": "then push", "cacheV9": True}]}
    plain = convert_record(_src(HOOKS), orjson.dumps({**v, "attachment": {**v["attachment"], "prompt": [
        {"type": "text", "text": "run the tests"}, {"type": "text", "text": "then push"}]}}), 3, 0)
    rec = convert_record(_src(HOOKS), orjson.dumps(v), 3, 0)
    assert [(p.k, p.text) for p in plain.parts] == [("text", "run the tests\nthen push")]
    assert rec.parts[0] == plain.parts[0] and "external_input" in rec.flags
    assert _unknown(rec) == [('member "cacheV9" of attachment.prompt[1] (text) is not one this dialect describes',
                              b'{"cacheV9":true}')]


def test_every_corpus_line_is_known_and_lands_no_member_part(corpus_dir):
    """The one table covers the real corpus: every Claude Code line of it is known (the compiled path may take it)
    and lands no member part, its tool_result items (text, tool_reference) included."""
    files = sorted((corpus_dir / "claude-code").rglob("*.jsonl"))
    items = 0
    for f in files:
        for n, line in enumerate(f.read_bytes().splitlines(), 1):
            try:
                v = json.loads(line)
            except ValueError:
                continue
            if isinstance(v, dict) and v.get("type") in CHECKS:
                assert CHECKS[v["type"]](v), (f, n)
                items += line.count(b'"type":"tool_reference"')
            rec = convert_record(_src(SAMPLE), line, n, 0)
            assert [t for t, _ in _unknown(rec) if t.startswith("member ")] == [], (f, n)
    assert len(files) >= 20 and items == 25  # the corpus's tool_reference items (counted by grep)


def test_a_list_of_one_text_block_with_a_member_states_the_list_and_reads_as_before(corpus_dir, tmp_path):
    """A person's list of one text block (the runtime's interrupt notice shape) with a block member: ``content list``
    under dropped as without it, and the prose export's turns are the same with the member as without it."""
    lines = _lines(corpus_dir, SAMPLE)
    first = lines[0]
    v = json.loads(first)
    v["message"]["content"] = [{"type": "text", "text": "Please also add tests"}]
    listed = orjson.dumps(v)
    v["message"]["content"][0]["futureBlockV9"] = 1
    member = orjson.dumps(v)
    a, b = convert_record(_src(SAMPLE), listed, 1, 0), convert_record(_src(SAMPLE), member, 1, 0)
    assert [d.what for d in a.dropped] == [d.what for d in b.dropped] == ["content list"]
    assert [p.k for p in b.parts] == ["text", "unknown"] and b.parts[0] == a.parts[0]
    turns = []
    for name, data in (("plain", [listed, *lines[1:]]), ("member", [member, *lines[1:]])):
        root = collect_transcript(tmp_path / name, SAMPLE[0], SAMPLE[1], b"\n".join(data) + b"\n")
        p = asz_in_process("export", SAMPLE[1], "--format", "prose", "--root", str(root))
        assert p.returncode == 0, p.stderr
        turns.append([(t["role"], t["ts"], t["text"]) for t in map(json.loads, p.stdout.splitlines())])
    assert turns[0] == turns[1] and "Please also add tests" not in {t for _, _, t in turns[0]}


def test_an_unknown_block_beside_a_member_is_undescribed_as_before(corpus_dir, tmp_path):
    """A user line whose only block is of a type no dialect describes, with a line member too: the prose leaves it
    out as it did with the block alone, and collect names it among the lines it could not describe, by the block."""
    lines = _lines(corpus_dir, SAMPLE)
    v = json.loads(lines[0])
    v["message"]["content"] = [{"type": "futureBlockTypeV9", "x": 1}]
    alone = orjson.dumps(v)
    v["promptMetaV9"] = {"x": 1}
    both = orjson.dumps(v)
    rec = convert_record(_src(SAMPLE), both, 1, 0)
    assert [p.k for p in rec.parts] == ["unknown", "unknown"]
    said, turns = [], []
    for name, first in (("alone", alone), ("both", both)):
        (tmp_path / name / "projects" / SAMPLE[0]).mkdir(parents=True)
        path = tmp_path / name / "projects" / SAMPLE[0] / f"{SAMPLE[1]}.jsonl"
        path.write_bytes(b"\n".join([first, *lines[1:]]) + b"\n")
        root = tmp_path / name / "root"
        p = asz_in_process("collect", "--once", "--source", str(path.parent.parent), "--root", str(root))
        assert p.returncode == 0, p.stderr
        said += [x.replace(str(path), "SRC") for x in p.stderr.splitlines() if "describe" in x]
        e = asz_in_process("export", SAMPLE[1], "--format", "prose", "--root", str(root))
        turns.append([(t["role"], t["ts"], t["text"]) for t in map(json.loads, e.stdout.splitlines())])
    assert turns[0] == turns[1]
    assert said[0] == said[1] == (
        'warning: SRC: 1 line(s) adapter claude-code-local could not describe (line 1: block type "futureBlockTypeV9" '
        "is not one this dialect describes): their source bytes landed verbatim, as written, as unknown parts (asz "
        "conversation lists them under undescribed)")


def test_an_assistant_line_with_only_a_member_is_read(corpus_dir, tmp_path):
    """An assistant line whose content is empty and which holds a member no dialect describes: its only part is the
    member's, yet it was read (its call, model and usage): collect names it among the lines read, the document's
    problems do not call it a record that could hold a call, and ``asz usage`` counts its call."""
    lines = _lines(corpus_dir, SAMPLE)
    n, real = next((i, x) for i, x in enumerate(lines, 1) if b'"type":"assistant"' in x and b'"output_tokens"' in x)
    v = json.loads(real)
    v["message"]["content"] = []
    v["agentTelemetryV9"] = {"energy_joules": 12.5}
    changed = orjson.dumps(v)
    rec = convert_record(_src(SAMPLE), changed, n, 0)
    assert [p.text for p in rec.parts] == ['member "agentTelemetryV9" of the line is not one this dialect describes']
    assert rec.call == v["message"]["id"] and rec.usage is not None
    (tmp_path / "projects" / SAMPLE[0]).mkdir(parents=True)
    path = tmp_path / "projects" / SAMPLE[0] / f"{SAMPLE[1]}.jsonl"
    path.write_bytes(b"\n".join(changed if x == real else x for x in lines) + b"\n")
    root = tmp_path / "root"
    p = asz_in_process("collect", "--once", "--source", str(tmp_path / "projects"), "--root", str(root))
    assert p.returncode == 0 and [x for x in p.stderr.splitlines() if "describe" in x] == [
        f"warning: {path}: 1 line(s) hold content adapter claude-code-local does not describe (line {n}: member "
        '"agentTelemetryV9" of the line is not one this dialect describes): each such member or block travels '
        "verbatim, its source bytes as written, as an unknown part of the line's record beside what it read (asz "
        "conversation lists them under undescribed)"], p.stderr
    doc = json.loads(asz_in_process("conversation", SAMPLE[1], "--json", "--root", str(root)).stdout)
    assert not [x for x in doc["summary"]["problems"] if x.startswith("undescribed records")]
    assert [u["reason"] for u in doc["undescribed"]] == [rec.parts[0].text]
    usage = json.loads(asz_in_process("usage", "session", "--json", "--root", str(root)).stdout)
    assert not [r for r in usage if r.get("undescribed")]
    # the message's calls counted from the source: one per message id (and request id) of its assistant lines
    want = {(json.loads(x)["message"]["id"], json.loads(x).get("requestId")) for x in lines if b'"type":"assistant"' in x}
    assert sum(r["calls"] for r in usage) == len(want)
