"""``kiro/1`` conversion rules on synthetic records.

SYNTHETIC: the 3.x lines below follow the KAS persistence schema published in
the Kiro / Amazon Q CLI source (``crates/chat-cli-v2/src/agent/kas/schema.rs``:
tombstone, operationType Reasoning/Summary, user source, images); the 2.x
entries follow its ``LogEntryV1`` variants (Compaction, Clear); the 1.x
conversation state follows ``ConversationState`` / ``message.rs`` of the
1.x CLI. None of these shapes is in the real corpus.
"""

from __future__ import annotations

import hashlib
import random

import orjson
import pytest

from asz_adapters_kiro.convert import convert_document, convert_line, failed_from_status, mcp_split, unix_seconds_rfc3339
from asz_core import FLAGS, RawJSON, Source, compact

SRC = Source(session="s", kind="transcript", path=None, src="x.jsonl", dialect="kiro/1")  # type: ignore[arg-type]
DOC = Source(session="s", kind="agent_meta", path=None, src="x.json", dialect="kiro/1", mode="snapshot")  # type: ignore[arg-type]


def line(obj) -> bytes:
    return orjson.dumps(obj)


def v3(payload: dict, **top) -> bytes:
    return line({"id": top.get("id", "m1"), "timestamp": "2026-05-21T20:35:47.332Z", "payload": payload})


@pytest.mark.parametrize(
    "raw, reason",
    [
        (b"{not json", "the record is not valid JSON"),
        (b'["x"]', "the record is JSON but not an object"),
        (b"12", "the record is JSON but not an object"),
        (b'{"a":1}', "a line that is neither a Kiro CLI 3.x message nor a 2.x log entry"),
        (b"\xff\xfe{", "the record is not valid UTF-8: byte 0xff at offset 0 of line 3 of x.jsonl (file offset 10), and is "
                       "not valid JSON either"),  # where, as the Claude Code adapter says it (trial 50c F8)
        (b"[" * 300 + b"]" * 300, "the record is not valid JSON"),
    ],
)
def test_undescribable_lines_keep_their_bytes(raw: bytes, reason: str) -> None:
    rec = convert_line(SRC, raw, 3, 10)
    assert (rec.ord, rec.off, rec.bytes, rec.sha) == (3, 10, len(raw), hashlib.sha256(raw).hexdigest()[:12])
    (part,) = rec.parts
    assert part.k == "unknown" and part.raw() == raw and part.bytes == len(raw)
    if not raw.startswith(b"["):
        assert part.text == reason


def test_too_deep_is_unknown() -> None:
    raw = b'{"id":"x","payload":{"type":"user","content":' + b"[" * 260 + b"]" * 260 + b"}}"
    rec = convert_line(SRC, raw, 1, 0)
    assert rec.parts[0].k == "unknown" and "deeper" in rec.parts[0].text


def test_unknown_payload_type_and_entry_kind() -> None:
    rec = convert_line(SRC, v3({"type": "future_thing", "x": 1}), 1, 0)
    assert rec.parts[0].k == "unknown" and 'payload type "future_thing"' in rec.parts[0].text
    rec = convert_line(SRC, line({"version": "v1", "kind": "Future", "data": {}}), 1, 0)
    assert rec.parts[0].k == "unknown" and 'entry kind "Future"' in rec.parts[0].text


def test_never_raises_on_noise() -> None:
    rnd = random.Random(12)
    base = v3({"type": "tool_result", "toolCallId": "t", "content": "ok", "success": True})
    for _ in range(300):
        b = bytearray(base)
        for _ in range(rnd.randint(1, 4)):
            b[rnd.randrange(len(b))] = rnd.randrange(256)
        rec = convert_line(SRC, bytes(b), 1, 0)
        assert rec.bytes == len(b) and rec.parts


def test_3x_compaction_is_a_reset_with_its_summary() -> None:
    tomb = convert_line(SRC, v3({"type": "tombstone", "kind": "summarization", "effectiveFromMessageId": "m0",
                                 "metadata": {"truncatedMessageCount": 4}}), 1, 0)
    assert tomb.flags == ["context_reset"] and tomb.parts[0].k == "data" and tomb.from_ == "runtime"
    summ = convert_line(SRC, v3({"type": "assistant", "content": "we did X", "operationType": "Summary"}), 2, 1)
    assert summ.flags == ["reset_summary"] and summ.parts[0].text == "we did X" and summ.from_ == "agent"


def test_3x_user_message_id_is_the_parent() -> None:
    meta = {"kiro": {"userMessageId": "u1"}}
    r = convert_line(SRC, v3({"type": "assistant", "content": "a", "operationType": "Say", "_meta": meta}, id="a1"), 1, 0)
    assert (r.parent, r.call, r.dropped) == ("u1", "a1", [])
    r = convert_line(SRC, v3({"type": "tool_call", "toolCallId": "t", "toolName": "x", "args": {},
                              "_meta": {"kiro": {"userMessageId": "u1", "agentMode": "vibe"}}}), 1, 0)
    assert r.parent == "u1" and r.dropped[0].what == "payload members _meta"


def test_3x_reasoning_hook_input_images_and_failed_results() -> None:
    r = convert_line(SRC, v3({"type": "assistant", "content": "hmm", "operationType": "Reasoning",
                              "reasoningSignature": "c2ln", "reasoningModelId": "claude-x"}), 1, 0)
    assert r.parts[0].k == "reasoning" and r.parts[0].text == "hmm" and r.model == "claude-x"
    assert [(d.what, d.bytes) for d in r.dropped] == [("reasoning signature", 4)]

    r = convert_line(SRC, v3({"type": "user", "content": "hook said", "source": "hook"}), 1, 0)
    assert r.flags == ["injected"] and r.from_ == "runtime" and not r.trigger

    r = convert_line(SRC, v3({"type": "user", "content": "look", "images": [{"data": "iVBOR", "mime_type": "image/png"}]}), 1, 0)
    assert [p.k for p in r.parts] == ["text", "media"] and r.parts[1].media == "image/png" and r.parts[1].bytes == 5

    r = convert_line(SRC, v3({"type": "tool_result", "toolCallId": "t1", "content": "boom", "success": False, "durationMs": 3.5}), 1, 0)
    assert r.parts[0].failed is True and r.parts[0].text == "boom"
    assert r.dropped[0].what == "payload members durationMs"

    r = convert_line(SRC, v3({"type": "tool_call", "toolCallId": "t2", "toolName": "github___create_issue", "args": {"a": 1}, "status": "denied"}), 1, 0)
    p = r.parts[0]
    assert (p.k, p.server, p.server_tool, p.data) == ("call", "github", "create_issue", RawJSON(b'{"a":1}'))


def test_2x_compaction_clear_thinking_and_error_results() -> None:
    r = convert_line(SRC, line({"version": "v1", "kind": "Compaction", "data": {"summary": "so far", "strategy": {"x": 1},
                                                                              "messages_snapshot": []}}), 1, 0)
    assert r.flags == ["context_reset", "reset_summary"] and [p.k for p in r.parts] == ["text", "data", "data"]
    r = convert_line(SRC, line({"version": "v1", "kind": "Clear"}), 1, 0)
    assert r.flags == ["context_reset"] and r.parts[0].k == "data"
    r = convert_line(SRC, line({"version": "v1", "kind": "AssistantMessage", "data": {"message_id": "a", "content": [
        {"kind": "thinking", "data": {"text": "z", "signature": "sig"}},
        {"kind": "image", "data": {"format": "png"}},
    ]}}), 1, 0)
    assert [p.k for p in r.parts] == ["reasoning", "unknown"] and r.dropped[0].what == "reasoning signature"
    r = convert_line(SRC, line({"version": "v1", "kind": "ToolResults", "data": {"message_id": "r", "content": [
        {"kind": "toolResult", "data": {"toolUseId": "t", "content": [{"kind": "text", "data": "no"}, {"kind": "json", "data": {"c": 1}}], "status": "error"}}]}}), 1, 0)
    p = r.parts[0]
    assert p.failed is True and p.text == "no" and p.data == RawJSON(b'[{"kind":"text","data":"no"},{"kind":"json","data":{"c":1}}]')


CONVERSATION = {
    "conversation_id": "c0ffee00-0000-4000-8000-000000000001",
    "next_message": None,
    "history": [
        {
            "user": {"additional_context": "", "env_context": {"env_state": {"operating_system": "linux"}},
                     "content": {"Prompt": {"prompt": "list files"}}, "timestamp": "2026-01-11T09:40:55+01:00", "images": None},
            "assistant": {"ToolUse": {"message_id": "m1", "content": "", "tool_uses": [
                {"id": "tooluse_1", "name": "execute_bash", "orig_name": "execute_bash", "args": {"command": "ls"}, "orig_args": {"command": "ls"}},
                {"id": "tooluse_2", "name": "git___status", "orig_name": "status", "args": {}, "orig_args": {}}]}},
            "request_metadata": {"request_id": "r1", "message_id": "m1", "model_id": "auto", "message_meta_tags": []},
        },
        {
            "user": {"additional_context": "steering text", "env_context": {}, "timestamp": None, "images": None,
                     "content": {"ToolUseResults": {"tool_use_results": [
                         {"tool_use_id": "tooluse_1", "content": [{"Text": "a\nb"}], "status": "Success"},
                         {"tool_use_id": "tooluse_2", "content": [{"Json": {"clean": True}}], "status": "Error"}]}}},
            "assistant": {"Response": {"message_id": "m2", "content": "two files"}},
            "request_metadata": None,
        },
        {
            "user": {"additional_context": "", "env_context": {}, "timestamp": None, "images": None,
                     "content": {"CancelledToolUses": {"prompt": "stop", "tool_use_results": [
                         {"tool_use_id": "tooluse_3", "content": [{"Text": "Tool use was cancelled by the user"}], "status": "Error"}]}}},
            "assistant": {"Response": {"message_id": "m3", "content": "ok"}},
        },
    ],
    "valid_history_range": [0, 3],
    "transcript": ["> list files", "two files"],
    "tools": {"Native": [{"ToolSpecification": {"name": "execute_bash", "input_schema": {"json": {}}}}]},
    "latest_summary": ["earlier we talked", {"request_id": "r0"}],
    "model_info": {"model_id": "claude-sonnet-4", "context_window_tokens": 200000},
    "user_turn_metadata": {"continuation_id": "k", "requests": [], "usage_info": [{"value": 0.42, "unit": "credit", "unit_plural": "credits"}]},
}


@pytest.mark.parametrize("pretty", [False, True], ids=["sqlite-row", "chat-save-export"])
def test_1x_conversation_state(pretty: bool) -> None:
    raw = orjson.dumps(CONVERSATION, option=orjson.OPT_INDENT_2 if pretty else 0)
    rec = convert_document(DOC, raw)
    assert (rec.ord, rec.off, rec.bytes, rec.sha) == (1, 0, len(raw), hashlib.sha256(raw).hexdigest()[:12])
    assert rec.flags == ["tool_schemas", "reset_summary"] and rec.model == "claude-sonnet-4" and rec.usage is None
    kinds = [(p.k, p.of if p.k == "result" else p.id or p.text) for p in rec.parts if p.k != "data"]
    assert kinds == [
        ("text", "list files"), ("call", "tooluse_1"), ("call", "tooluse_2"),
        ("result", "tooluse_1"), ("result", "tooluse_2"), ("text", "two files"),
        ("text", "stop"), ("result", "tooluse_3"), ("text", "ok"), ("text", "earlier we talked"),
    ]
    results = {p.of: p for p in rec.parts if p.k == "result"}
    assert results["tooluse_1"].failed is False and results["tooluse_1"].text == "a\nb" and results["tooluse_1"].data is None
    assert results["tooluse_2"].failed is True and results["tooluse_2"].data == RawJSON(b'[{"Json":{"clean":true}}]')
    assert results["tooluse_3"].failed is True
    calls = [p for p in rec.parts if p.k == "call"]
    assert (calls[1].server, calls[1].server_tool) == ("git", "status")
    # every data part is the compacted source slice; the credits stay in one of them
    whole = compact(raw)
    datas = [p.data.raw for p in rec.parts if isinstance(p.data, RawJSON)]
    assert all(d in whole for d in datas)
    assert any(b'"unit":"credit"' in d for d in datas)
    assert {d.what for d in rec.dropped} == {"user env_context and timestamp", "tool use orig_name and orig_args"}


def test_metadata_documents_land_whole() -> None:
    raw = b'{\n  "schemaVersion": "1.0.0", "id": "sess_c", "title": "T", "modelId": "m", "parentSessionId": "sess_p",\n  "parentExecutionId": "e"\n}\n'
    rec = convert_document(DOC, raw)
    assert (rec.label, rec.model, rec.child, rec.run) == ("T", "m", "c", "")  # parentExecutionId stays in data
    assert rec.parts[0].data == RawJSON(compact(raw.strip()))
    ide = convert_document(DOC, b'{"executionId":"x","title":"ide chat","chat":[]}')
    assert ide.label == "ide chat" and ide.parts[0].k == "data"


def test_small_rules() -> None:
    assert [failed_from_status(s) for s in ("Success", "error", "Error", "cancelled", "weird", None)] == [False, True, True, True, None, None]
    assert mcp_split("srv___tool") == ("srv", "tool")
    assert mcp_split("@srv/tool") == ("srv", "tool")
    for name in ("a____b", "a___b___c", "___b", "a___", "fs_read", "@a/b/c", "@/b"):
        assert mcp_split(name) is None, name
    assert unix_seconds_rfc3339(1779905703) == "2026-05-27T18:15:03Z"
    assert unix_seconds_rfc3339("1") == "" and unix_seconds_rfc3339(True) == ""


def test_flags_are_in_vocabulary_order() -> None:
    rec = convert_document(DOC, orjson.dumps(CONVERSATION))
    assert rec.flags == sorted(rec.flags, key=FLAGS.index)


def test_part_bytes_are_the_original_size() -> None:
    """A part's bytes: its text's UTF-8 size, else its compacted JSON's; media its base64 length (seed 000, Parts)."""
    rec = convert_line(SRC, line({"version": "v1", "kind": "AssistantMessage", "data": {"message_id": "a", "content": [
        {"kind": "text", "data": "h\u00e9 \"q\""}, {"kind": "toolUse", "data": {"toolUseId": "t", "name": "n", "input": {"a": [1, 2]}}}]}}), 1, 0)
    text, call = rec.parts
    assert text.bytes == len('hé "q"'.encode()) and call.bytes == len(b'{"a":[1,2]}')
    raw = b'{\n  "history": [],\n  "transcript": [],\n  "tools": {"x": [1]}\n}'
    rec = convert_document(DOC, raw)
    assert [p.bytes for p in rec.parts] == [len(b"[]"), len(b'{"x":[1]}')]


def _convert_file(path, lines: list[bytes]):
    """Write ``lines`` as a transcript at ``path`` and convert them in order, as the collector does."""
    path.write_bytes(b"".join(ln + b"\n" for ln in lines))
    src = Source(session="s", kind="transcript", path=path, src=path.name, dialect="kiro/1")
    out, off = [], 0
    for i, ln in enumerate(lines, 1):
        out.append(convert_line(src, ln, i, off))
        off += len(ln) + 1
    return src, out


def test_3x_runs_follow_the_turn_from_its_prompt_to_turn_end(tmp_path) -> None:
    """SYNTHETIC (KAS line shapes): a hook before any prompt, two turns, a tombstone between them."""
    lines = [
        v3({"type": "user", "content": "ctx", "source": "hook"}, id="h0"),
        v3({"type": "user", "content": "first"}, id="u1"),
        v3({"type": "turn_start", "executionId": "e1"}, id="e1-turn-start"),
        v3({"type": "assistant", "content": "ok", "operationType": "Say", "executionId": "e1"}, id="a1"),
        v3({"type": "user", "content": "hook mid-turn", "source": "hook", "executionId": "e1"}, id="h1"),
        v3({"type": "tool_call", "toolCallId": "t1", "toolName": "x", "args": {}, "executionId": "t1"}, id="t1-call"),
        v3({"type": "turn_end", "stopReason": "end_turn", "executionId": "e9"}, id="e9-turn-end"),
        v3({"type": "tombstone", "kind": "summarization", "executionId": "c1"}, id="c1"),
        v3({"type": "user", "content": "second"}, id="u2"),
        v3({"type": "assistant", "content": "done", "operationType": "Say", "executionId": "e2"}, id="a2"),
    ]
    src, recs = _convert_file(tmp_path / "messages.jsonl", lines)
    assert [r.run for r in recs] == ["", "u1", "u1", "u1", "u1", "u1", "u1", "c1", "u2", "u2"]
    assert [d.what for d in recs[3].dropped] == ["payload executionId"]
    assert recs[6].dropped == [] and recs[7].dropped == []  # whole payloads kept as data
    # converted out of order (a restart), each line reads its turn back from the file
    off = sum(len(ln) + 1 for ln in lines[:5])
    again = convert_line(src, lines[5], 6, off)
    assert again.run == "u1"
    # without its file a line states only its own executionId
    assert convert_line(SRC, lines[3], 4, 99).run == "e1"


def test_2x_runs_follow_the_prompt(tmp_path) -> None:
    """SYNTHETIC (LogEntryV1 shapes): two prompts; no entry after a prompt carries a run of its own."""
    def entry(kind: str, mid: str) -> bytes:
        return line({"version": "v1", "kind": kind, "data": {"message_id": mid, "content": [{"kind": "text", "data": mid}]}})

    _, recs = _convert_file(tmp_path / "x.jsonl", [
        line({"version": "v1", "kind": "ToolResults", "data": {"message_id": "r0", "content": [], "meta": {"timestamp": 1779905703}}}),
        line({"version": "v1", "kind": "Clear"}), entry("Prompt", "p1"), entry("AssistantMessage", "a1"),
        entry("ToolResults", "r1"), entry("Prompt", "p2"), entry("AssistantMessage", "a2")])
    assert [r.run for r in recs] == ["", "", "p1", "p1", "p1", "p2", "p2"]
    assert [r.call for r in recs] == ["", "", "", "a1", "", "", "a2"]
    assert recs[0].time == "2026-05-27T18:15:03Z"  # outside any turn, the entry keeps its time
